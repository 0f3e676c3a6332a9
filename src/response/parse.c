/* Reading DynamoDB's answers: the items of GetItem, Query, BatchGetItem and
 * TransactGetItems, LastEvaluatedKey, unprocessed batch entries, error bodies
 * and stream events, parsed with YAJL's streaming parser straight into the
 * page's storage (no tree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "model/facet.h"
#include "json/tree.h"
#include "response/page.h"

/* ---- YAJL's memory: a block cache per page ---- */

/* YAJL 2.1 uses what its allocator returns without checking for NULL, so a
 * failed allocation jumps back to where the parse started (as json_tree.c
 * does) and reports DDBST_ENOMEM. Unlike json_tree.c, blocks YAJL frees are
 * kept for the page's next parse: a warm page parses without allocating. */
union ddbst__yblock {
  struct {
    ddbst__yblock *next;
    size_t cap;
    int live;
  } h;
  max_align_t align; /* keeps the memory after the header aligned */
};

typedef struct yrun {
  ddbst_page *page;
  jmp_buf fail;
  yajl_handle h;
  yajl_status status;
  size_t at; /* where parsing stopped */
  char msg[160];
} yrun;

static void *yb_malloc(void *ctx, size_t n) {
  yrun *r = ctx;
  ddbst_page *pg = r->page;
  ddbst__yblock *best = NULL;
  /* best fit, so that each of a parse's requests finds its block again */
  for (ddbst__yblock *b = pg->yblocks; b; b = b->h.next)
    if (!b->h.live && b->h.cap >= n && (!best || b->h.cap < best->h.cap))
      best = b;
  if (!best) {
    if (n > SIZE_MAX / 2 - sizeof *best) longjmp(r->fail, 1);
    size_t cap = n < 64 ? 64 : (n + 63) / 64 * 64;
    best = ddbst__malloc(&pg->m->alloc, sizeof *best + cap);
    if (!best) longjmp(r->fail, 1);
    best->h.cap = cap;
    best->h.next = pg->yblocks;
    pg->yblocks = best;
  }
  best->h.live = 1;
  return best + 1;
}

static void *yb_realloc(void *ctx, void *p, size_t n) {
  if (!p) return yb_malloc(ctx, n);
  yrun *r = ctx;
  ddbst_page *pg = r->page;
  ddbst__yblock *b = (ddbst__yblock *)p - 1;
  if (b->h.cap >= n) return p;
  /* grow geometrically, in place, so a deep document does not leave a
   * trail of outgrown blocks behind */
  size_t cap = b->h.cap > SIZE_MAX / 4 ? n : b->h.cap * 2;
  if (cap < n) cap = n;
  if (cap > SIZE_MAX / 2 - sizeof *b) longjmp(r->fail, 1);
  ddbst__yblock **link = &pg->yblocks;
  while (*link != b) link = &(*link)->h.next;
  ddbst__yblock *q = ddbst__realloc(&pg->m->alloc, b, sizeof *b + cap);
  if (!q) longjmp(r->fail, 1); /* b is still whole and linked */
  *link = q;
  q->h.cap = cap;
  return q + 1;
}

static void yb_free(void *ctx, void *p) {
  (void)ctx;
  if (p) ((ddbst__yblock *)p - 1)->h.live = 0;
}

static void yb_idle_all(ddbst_page *pg) {
  for (ddbst__yblock *b = pg->yblocks; b; b = b->h.next) b->h.live = 0;
}

void ddbst__page_release_blocks(ddbst_page *pg) {
  while (pg->yblocks) {
    ddbst__yblock *next = pg->yblocks->h.next;
    ddbst__free(&pg->m->alloc, pg->yblocks);
    pg->yblocks = next;
  }
}

/* Parses json[0..len) with `cb`; 0, or DDBST_ENOMEM when YAJL could not
 * allocate. r->status and r->msg say how the parse ended. */
static int yajl_run_cached(yrun *r, const yajl_callbacks *cb, void *ctx,
                           const char *json, size_t len) {
  r->h = NULL;
  r->msg[0] = '\0';
  if (setjmp(r->fail)) {
    yb_idle_all(r->page);
    return DDBST_ENOMEM;
  }
  yajl_alloc_funcs af = {yb_malloc, yb_realloc, yb_free, r};
  r->h = yajl_alloc(cb, &af, ctx);
  if (!r->h) {
    yb_idle_all(r->page);
    return DDBST_ENOMEM;
  }
  r->status = yajl_parse(r->h, (const unsigned char *)json, len);
  r->at = yajl_get_bytes_consumed(r->h);
  if (r->status == yajl_status_ok) {
    r->status = yajl_complete_parse(r->h);
    if (r->status != yajl_status_ok) r->at = len;
  }
  if (r->status == yajl_status_error) {
    unsigned char *m = yajl_get_error(r->h, 0, (const unsigned char *)json, len);
    if (m) {
      size_t k = strcspn((const char *)m, "\n");
      snprintf(r->msg, sizeof r->msg, "%.*s", (int)k, (const char *)m);
      yajl_free_error(r->h, m);
    } else {
      snprintf(r->msg, sizeof r->msg, "malformed JSON");
    }
  }
  yajl_free(r->h);
  yb_idle_all(r->page);
  return 0;
}

/* ---- the parser ---- */

enum { MAX_FRAMES = 96, MAX_DOC_DEPTH = 32, LEK_TARGET = -2 };

/* What a frame is: a JSON object or list of a known shape. */
enum {
  F_ROOT,
  F_ITEM,       /* attribute name → AttributeValue, kept as records */
  F_AV,         /* {"S": ...}: one type and its value */
  F_LIST,       /* L's elements */
  F_MAP,        /* M's members */
  F_SET,        /* SS, NS or BS elements */
  F_RAWMAP,     /* name → AttributeValue, re-written as JSON only */
  F_ITEMS,      /* a list of items */
  F_BATCH_RESP, /* table → items */
  F_TXN_RESP,   /* [{"Item": ...}, ...] */
  F_TXN_ENTRY,
  F_UKEYS,      /* table → KeysAndAttributes */
  F_KAA,
  F_KEYLIST,
  F_NAMES,      /* ExpressionAttributeNames */
  F_UITEMS,     /* table → write requests */
  F_WRITELIST,
  F_WRITEREQ,
  F_PUTREQ,
  F_DELREQ,
  F_REASONS,
  F_REASON,
  F_RECORDS,
  F_RECORD,
  F_DDB,
  F_USERID
};

static int is_array(int kind) {
  return kind == F_LIST || kind == F_SET || kind == F_ITEMS ||
         kind == F_TXN_RESP || kind == F_KEYLIST || kind == F_WRITELIST ||
         kind == F_REASONS || kind == F_RECORDS;
}

/* What the next value must be. */
enum {
  X_NONE,
  X_SKIP,
  X_ROOT,
  X_ITEM_SINGLE,
  X_ITEMS,
  X_LEK,
  X_BATCH_RESPONSES,
  X_BATCH_TABLE,
  X_TXN_RESPONSES,
  X_TXN_ITEM,
  X_UNPROC_KEYS,
  X_KAA,
  X_KEY_LIST,
  X_CONSISTENT,
  X_PROJECTION,
  X_EAN,
  X_NAME_VALUE,
  X_UNPROC_ITEMS,
  X_WRITE_LIST,
  X_PUT_REQ,
  X_DEL_REQ,
  X_RAW_ITEM,
  X_ETYPE,
  X_EMSG,
  X_REASONS,
  X_RCODE,
  X_RMSG,
  X_RECORDS,
  X_EVENT_ID,
  X_EVENT_NAME,
  X_DDB,
  X_USER_ID,
  X_PRINCIPAL,
  X_IMAGE_KEYS,
  X_IMAGE_NEW,
  X_IMAGE_OLD,
  X_SEQ,
  X_AV,
  X_AV_VALUE,
  /* elements of lists */
  X_ITEM_ELEM,
  X_TXN_ENTRY,
  X_KEY_ELEM,
  X_WRITE_ELEM,
  X_REASON_ELEM,
  X_RECORD_ELEM,
  X_SET_ELEM
};
_Static_assert(X_SET_ELEM < 64, "members are told apart by 64 bits");

/* How an AttributeValue is written: as a record of an item (its value kept
 * raw, or for L, M and sets as JSON), inside a document (AttributeValue JSON
 * and plain JSON), or in a re-written map (AttributeValue JSON only). */
enum { M_TOP, M_DOC, M_RAW };

/* How a frame's current member name is kept, for paths. */
enum { K_NONE, K_LIT, K_RAW, K_ESC };

typedef struct frame {
  uint8_t kind;
  uint8_t avtype;
  uint8_t state; /* F_AV: 0 no type yet, 1 type read, 2 value read */
  uint8_t mode;
  uint8_t first; /* nothing written inside yet */
  uint8_t key_src;
  uint16_t doc_depth;
  uint32_t index;  /* lists: elements begun */
  uint64_t seen;   /* members read (bits by X_*), to refuse duplicates */
  int32_t target;  /* item, record, group index; or a text offset */
  uint32_t key_off, key_len;
  const char *key_lit;
} frame;

typedef struct P {
  ddbst_page *pg;
  const ddbst_model *m;
  int op;
  int lenient; /* stream images: an item of no entity is kept, not refused */
  frame st[MAX_FRAMES];
  int depth;
  int pending;
  uint64_t skip; /* open containers of a value being skipped */
  int has_type;
  int code; /* our refusal, or 0 */
  char path[DDBST_ERROR_PATH_MAX];
  char msg[DDBST_ERROR_MESSAGE_MAX];
  uint32_t nother; /* names of the current item the model does not know */
} P;

static frame *top(P *p) { return &p->st[p->depth - 1]; }

static void path_add(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    DDBST__PRINTF(4, 5);
static void path_add(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
  if (*n >= cap - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
  va_end(ap);
  if (w > 0) *n += (size_t)w < cap - *n ? (size_t)w : cap - *n - 1;
}

/* The path to the value being read inside frames [0, upto). */
static void build_path(const P *p, int upto, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  const char *text = p->pg->text.data;
  for (int i = 0; i < upto; i++) {
    const frame *f = &p->st[i];
    if (is_array(f->kind)) {
      if (f->index) path_add(buf, cap, &n, "[%u]", f->index - 1);
      continue;
    }
    const char *dot = n ? "." : "";
    if (f->key_src == K_LIT)
      path_add(buf, cap, &n, "%s%s", dot, f->key_lit);
    else if (f->key_src == K_RAW)
      path_add(buf, cap, &n, "%s%.*s", dot, (int)(f->key_len > 80 ? 80 : f->key_len),
               text + f->key_off);
    else if (f->key_src == K_ESC && f->key_len >= 2)
      path_add(buf, cap, &n, "%s%.*s", dot,
               (int)(f->key_len - 2 > 80 ? 80 : f->key_len - 2),
               text + f->key_off + 1);
  }
}

static int refuse(P *p, int code, int upto, const char *member,
                  const char *fmt, ...) DDBST__PRINTF(5, 6);
/* Refuses the response: `code` at the path of frames [0, upto), with
 * `member` appended when given. Returns 0, which stops YAJL. */
static int refuse(P *p, int code, int upto, const char *member,
                  const char *fmt, ...) {
  if (p->code) return 0;
  p->code = code;
  build_path(p, upto, p->path, sizeof p->path);
  if (member) {
    size_t n = strlen(p->path);
    path_add(p->path, sizeof p->path, &n, "%s%s", n ? "." : "", member);
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->msg, sizeof p->msg, fmt, ap);
  va_end(ap);
  return 0;
}

static int nomem(P *p) {
  if (!p->code) {
    p->code = DDBST_ENOMEM;
    p->path[0] = '\0';
    snprintf(p->msg, sizeof p->msg, "out of memory");
  }
  return 0;
}

static int push(P *p, int kind, int mode, int32_t target) {
  if (p->depth == MAX_FRAMES)
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "nested deeper than DynamoDB nests documents");
  frame *f = &p->st[p->depth++];
  memset(f, 0, sizeof *f);
  f->kind = (uint8_t)kind;
  f->mode = (uint8_t)mode;
  f->first = 1;
  f->target = target;
  return 1;
}

/* Output into the page's buffers. */
static int put_text(P *p, const char *s, size_t n) {
  return ddbst__buf_append(&p->pg->text, s, n) ? nomem(p) : 1;
}
static int put_plain(P *p, const char *s, size_t n) {
  return ddbst__buf_append(&p->pg->plain, s, n) ? nomem(p) : 1;
}
static int put_text_string(P *p, const char *s, size_t n) {
  return ddbst__json_string(&p->pg->text, s, n) ? nomem(p) : 1;
}

/* A NUL-terminated copy of s[0..n) in text; its offset in *off. */
static int keep(P *p, const char *s, size_t n, uint32_t *off) {
  ddbst_buf *t = &p->pg->text;
  if (t->len > UINT32_MAX - n - 2) return nomem(p);
  *off = (uint32_t)t->len;
  if (ddbst__buf_reserve(t, n + 1)) return nomem(p);
  ddbst__buf_append(t, s, n);
  ddbst__buf_putc(t, '\0');
  return 1;
}

static int no_nul(P *p, const char *s, size_t n, const char *what) {
  if (memchr(s, '\0', n))
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "%s holds a NUL character (\\u0000)", what);
  return 1;
}

/* ---- items: records, duplicate names, identification ---- */

static void next_gen(ddbst_page *pg) {
  if (++pg->gen == UINT32_MAX) {
    memset(pg->seen_gen, 0, pg->nnames * sizeof *pg->seen_gen);
    memset(pg->present_gen, 0,
           (size_t)(pg->m->max_attrs ? pg->m->max_attrs : 1) *
               sizeof *pg->present_gen);
    if (pg->other_gen)
      memset(pg->other_gen, 0, pg->cap_other * sizeof *pg->other_gen);
    pg->gen = 1;
  }
}

static int32_t new_item(P *p, int where, uint32_t ordinal) {
  ddbst_page *pg = p->pg;
  ddbst__pitem *v = ddbst__page_grow(&p->m->alloc, pg->items, &pg->cap_items,
                         pg->nitems + 1, sizeof *v);
  if (!v) return nomem(p) - 1;
  pg->items = v;
  ddbst__pitem *pi = &v[pg->nitems];
  memset(pi, 0, sizeof *pi);
  pi->entity = -1;
  pi->where = (uint8_t)where;
  pi->ordinal = ordinal;
  pi->present = 1;
  pi->first = pg->nattrs;
  return (int32_t)pg->nitems++;
}

static ddbst__pitem *item_at(ddbst_page *pg, int32_t target) {
  return target == LEK_TARGET ? &pg->lek : &pg->items[target];
}

/* Starts reading item `target`'s attributes. */
static int open_item(P *p, int32_t target) {
  ddbst_page *pg = p->pg;
  next_gen(pg);
  p->nother = 0;
  item_at(pg, target)->first = pg->nattrs;
  return push(p, F_ITEM, M_TOP, target);
}

/* Names the model does not know: a small hash set per item, by generation,
 * so that a hostile item with many names stays linear. */
static int other_seen(P *p, uint32_t rec) {
  ddbst_page *pg = p->pg;
  const ddbst__pattr *r = &pg->attrs[rec];
  if ((p->nother + 1) * 2 > pg->cap_other) {
    uint32_t cap = pg->cap_other ? pg->cap_other * 2 : 64;
    uint32_t *slots = ddbst__malloc(&p->m->alloc, cap * sizeof *slots);
    uint32_t *gens = ddbst__malloc(&p->m->alloc, cap * sizeof *gens);
    if (!slots || !gens) {
      ddbst__free(&p->m->alloc, slots);
      ddbst__free(&p->m->alloc, gens);
      return nomem(p) - 1;
    }
    memset(gens, 0, cap * sizeof *gens);
    ddbst__free(&p->m->alloc, pg->other_slots);
    ddbst__free(&p->m->alloc, pg->other_gen);
    pg->other_slots = slots;
    pg->other_gen = gens;
    pg->cap_other = cap;
    /* the current item's earlier unknown names go in again */
    uint32_t first = item_at(pg, top(p)->target)->first;
    for (uint32_t k = first; k < rec; k++) {
      if (pg->attrs[k].name_id >= 0) continue;
      const ddbst__pattr *q = &pg->attrs[k];
      uint32_t i = ddbst__fnv1a(pg->text.data + q->name, q->name_len) & (cap - 1);
      while (gens[i] == pg->gen) i = (i + 1) & (cap - 1);
      gens[i] = pg->gen;
      slots[i] = k;
    }
  }
  uint32_t mask = pg->cap_other - 1;
  const char *name = pg->text.data + r->name;
  for (uint32_t i = ddbst__fnv1a(name, r->name_len) & mask;; i = (i + 1) & mask) {
    if (pg->other_gen[i] != pg->gen) {
      pg->other_gen[i] = pg->gen;
      pg->other_slots[i] = rec;
      p->nother++;
      return 0;
    }
    const ddbst__pattr *q = &pg->attrs[pg->other_slots[i]];
    if (q->name_len == r->name_len &&
        memcmp(pg->text.data + q->name, name, r->name_len) == 0)
      return 1;
  }
}

/* A new record named k[0..n) in the current item. */
static int item_key(P *p, const char *k, size_t n) {
  ddbst_page *pg = p->pg;
  frame *f = top(p);
  f->key_src = K_NONE; /* the path is the item's until the name is kept */
  if (!no_nul(p, k, n, "an attribute name")) return 0;
  if (n == 0)
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "an attribute name is empty");
  ddbst__pattr *v = ddbst__page_grow(&p->m->alloc, pg->attrs, &pg->cap_attrs,
                         pg->nattrs + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->attrs = v;
  uint32_t rec = pg->nattrs;
  ddbst__pattr *r = &v[rec];
  memset(r, 0, sizeof *r);
  if (!keep(p, k, n, &r->name)) return 0;
  r->name_len = (uint32_t)n;
  r->name_id = ddbst__page_name_id(pg, k, n);
  r->role = r->name_id >= 0 ? pg->name_role[r->name_id] : DDBST__PA_ATTR;
  r->attr = -1;
  pg->nattrs++;
  f->key_src = K_RAW;
  f->key_off = r->name;
  f->key_len = r->name_len;
  int dup;
  if (r->name_id >= 0) {
    dup = pg->seen_gen[r->name_id] == pg->gen;
    pg->seen_gen[r->name_id] = pg->gen;
    pg->seen_rec[r->name_id] = rec;
  } else {
    dup = other_seen(p, rec);
    if (dup < 0) return 0;
  }
  if (dup)
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "the attribute appears twice in one item");
  p->pending = X_AV;
  return 1;
}

/* The record of known name `id` in the current item, or -1. */
static int32_t rec_of(const ddbst_page *pg, int32_t id) {
  if (id < 0 || pg->seen_gen[id] != pg->gen) return -1;
  return (int32_t)pg->seen_rec[id];
}

static const char *rec_val(const ddbst_page *pg, int32_t rec) {
  return pg->text.data + pg->attrs[rec].val;
}

/* Facets of `t` the item lacks (and that the key holds as written, not
 * lower-cased). */
static int lacks(const ddbst_page *pg, const ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a >= 0 && !t->segs[i].lower && pg->present_gen[a] != pg->gen) return 1;
  }
  return 0;
}

/* Adds the facets of `t` the item lacks, read from the scratch item (which
 * ddbst_item_from_key just filled from the item's key), as records. */
static int recover(P *p, int32_t e, const ddbst__template *t) {
  ddbst_page *pg = p->pg;
  const ddbst__entity *ent = &p->m->entities[e];
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a < 0 || t->segs[i].lower || pg->present_gen[a] == pg->gen) continue;
    size_t vl = 0;
    const char *v = ddbst__item_text(pg->scratch, a, &vl);
    if (!v) continue;
    ddbst__pattr *arr = ddbst__page_grow(&p->m->alloc, pg->attrs, &pg->cap_attrs,
                             pg->nattrs + 1, sizeof *arr);
    if (!arr) return nomem(p);
    pg->attrs = arr;
    ddbst__pattr *r = &arr[pg->nattrs];
    memset(r, 0, sizeof *r);
    const char *nm = ent->attrs[a].name;
    if (!keep(p, nm, strlen(nm), &r->name) || !keep(p, v, vl, &r->val))
      return 0;
    r->name_len = (uint32_t)strlen(nm);
    r->val_len = (uint32_t)vl;
    r->name_id = ddbst__page_name_id(pg, nm, r->name_len);
    r->attr = a;
    r->role = DDBST__PA_RECOVERED;
    r->type = (uint8_t)ddbst__av_of_type(ent->attrs[a].type);
    pg->present_gen[a] = pg->gen;
    pg->nattrs++;
  }
  return 1;
}

static int32_t entity_named(const ddbst_model *m, const char *s, size_t n) {
  for (int e = 0; e < m->nentities; e++)
    if (strlen(m->entities[e].name) == n &&
        memcmp(m->entities[e].name, s, n) == 0)
      return e;
  return -1;
}

/* ddbst_item_from_key on the records `pkr`, `skr` (-1: none) into the
 * scratch item: the entity, or a negative code with `e2` filled. */
static int key_entity(ddbst_page *pg, const char *index, int32_t pkr,
                      int32_t skr, ddbst_error *e2) {
  const char *sk = skr >= 0 ? rec_val(pg, skr) : NULL;
  size_t skl = skr >= 0 ? pg->attrs[skr].val_len : 0;
  return ddbst_item_from_key(pg->scratch, index, rec_val(pg, pkr),
                             pg->attrs[pkr].val_len, sk, skl, e2);
}

/* An item's attributes are all read: which entity it is, which attribute
 * each record is, and the facets it lacks recovered from its keys. */
static int finish_item(P *p) {
  ddbst_page *pg = p->pg;
  const ddbst_model *m = p->m;
  int32_t target = top(p)->target;
  ddbst__pitem *pi = item_at(pg, target);
  pi->count = pg->nattrs - pi->first;
  int up = p->depth - 1; /* the path of the item itself */
  if (target == LEK_TARGET) {
    for (uint32_t k = pi->first; k < pg->nattrs; k++) {
      const ddbst__pattr *r = &pg->attrs[k];
      const char *nm = pg->text.data + r->name;
      if (r->role != DDBST__PA_KEY)
        return refuse(p, DDBST_EVALUE, up, nm,
                      "%s is not a key attribute of the table or its indexes",
                      nm);
      if (r->type != DDBST__AV_S)
        return refuse(p, DDBST_EVALUE, up, nm,
                      "key attributes of a ddbst table are strings (S)");
    }
    pg->has_more = pi->count > 0;
    return 1;
  }
  int32_t er = rec_of(pg, pg->entity_id), pkr = rec_of(pg, pg->pk_id),
          skr = rec_of(pg, pg->sk_id);
  int keyed = pkr >= 0 && (skr >= 0 || !m->sk_attr);
  if (keyed && (pg->attrs[pkr].type != DDBST__AV_S ||
                (skr >= 0 && pg->attrs[skr].type != DDBST__AV_S)))
    return refuse(p, DDBST_EVALUE, up,
                  pg->attrs[pkr].type != DDBST__AV_S ? m->pk_attr : m->sk_attr,
                  "key attributes of a ddbst table are strings (S)");
  int32_t e = -1;
  int from_key = 0;
  ddbst_error e2;
  if (er >= 0) {
    const ddbst__pattr *r = &pg->attrs[er];
    if (r->type != DDBST__AV_S)
      return refuse(p, DDBST_EVALUE, up, m->entity_attr,
                    "the entity attribute is a string (S)");
    e = entity_named(m, rec_val(pg, er), r->val_len);
    if (e < 0) {
      if (p->lenient) return 1;
      return refuse(p, DDBST_ENOTFOUND, up, NULL,
                    "%s \"%.*s\" is no entity of the model", m->entity_attr,
                    (int)(r->val_len > 64 ? 64 : r->val_len), rec_val(pg, er));
    }
  } else if (keyed) {
    int r = key_entity(pg, NULL, pkr, skr, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r < 0) {
      if (p->lenient) return 1;
      return refuse(p, r == DDBST_EVALUE ? DDBST_EVALUE : DDBST_ENOTFOUND, up,
                    NULL, "%s",
                    r == DDBST_EVALUE
                        ? e2.message
                        : "its key matches no entity's key templates");
    }
    e = r;
    from_key = 1;
  } else {
    if (p->lenient) return 1;
    return refuse(p, DDBST_ENOTFOUND, up, NULL,
                  "the item has neither %s%s%s the table's key, so its "
                  "entity cannot be told",
                  m->entity_attr ? "the entity attribute " : "",
                  m->entity_attr ? m->entity_attr : "",
                  m->entity_attr ? " nor" : "");
  }
  pi->entity = e;
  for (uint32_t k = pi->first; k < pg->nattrs; k++) {
    ddbst__pattr *r = &pg->attrs[k];
    if (r->role != DDBST__PA_ATTR || r->name_id < 0) continue;
    r->attr = pg->name_attr[(size_t)e * pg->nnames + (size_t)r->name_id];
    if (r->attr >= 0 && r->type != DDBST__AV_NULL)
      pg->present_gen[r->attr] = pg->gen;
  }
  const ddbst__entity *ent = &m->entities[e];
  if (keyed && (lacks(pg, &ent->key.pk) || lacks(pg, &ent->key.sk))) {
    int r = from_key ? e : key_entity(pg, NULL, pkr, skr, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r != e) {
      if (p->lenient) {
        pi->entity = -1;
        return 1;
      }
      return refuse(p, DDBST_EVALUE, up, NULL,
                    "%s says %s, but its key %s is not a %s's key",
                    m->entity_attr, ent->name, m->pk_attr, ent->name);
    }
    if (!recover(p, e, &ent->key.pk) || !recover(p, e, &ent->key.sk))
      return 0;
  }
  /* facets of sparse indexes, from those indexes' keys (a projection that
   * leaves them out still carries the keys) */
  for (int j = 0; j < ent->nindexes; j++) {
    const ddbst__ekey *k = &ent->indexes[j];
    if (!lacks(pg, &k->pk) && !lacks(pg, &k->sk)) continue;
    const ddbst__index *ix = &m->indexes[k->index];
    int32_t ipk = rec_of(pg, ddbst__page_name_id(pg, ix->pk_attr, strlen(ix->pk_attr)));
    int32_t isk = ix->sk_attr
                      ? rec_of(pg, ddbst__page_name_id(pg, ix->sk_attr, strlen(ix->sk_attr)))
                      : -1;
    if (ipk < 0 || (ix->sk_attr && isk < 0) ||
        pg->attrs[ipk].type != DDBST__AV_S ||
        (isk >= 0 && pg->attrs[isk].type != DDBST__AV_S))
      continue;
    int r = key_entity(pg, ix->name, ipk, isk, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r == e && (!recover(p, e, &k->pk) || !recover(p, e, &k->sk))) return 0;
  }
  pi->count = pg->nattrs - pi->first;
  return 1;
}

/* ---- AttributeValues ---- */

/* The AttributeValue type named k[0..n), or -1. */
static int av_type_of(const char *k, size_t n) {
  if (n == 1)
    return k[0] == 'S'   ? DDBST__AV_S
           : k[0] == 'N' ? DDBST__AV_N
           : k[0] == 'B' ? DDBST__AV_B
           : k[0] == 'L' ? DDBST__AV_L
           : k[0] == 'M' ? DDBST__AV_M
                         : -1;
  if (n == 2 && k[1] == 'S')
    return k[0] == 'S'   ? DDBST__AV_SS
           : k[0] == 'N' ? DDBST__AV_NS
           : k[0] == 'B' ? DDBST__AV_BS
                         : -1;
  if (n == 4 && memcmp(k, "BOOL", 4) == 0) return DDBST__AV_BOOL;
  if (n == 4 && memcmp(k, "NULL", 4) == 0) return DDBST__AV_NULL;
  return -1;
}

/* The type name of an AttributeValue: {"S": ...} → state 1. */
static int av_key(P *p, const char *k, size_t n) {
  frame *f = top(p);
  if (f->state != 0)
    return refuse(p, DDBST_EVALUE, p->depth - 1, NULL,
                  "an AttributeValue holds exactly one type");
  int type = av_type_of(k, n);
  if (type < 0)
    return refuse(p, DDBST_EVALUE, p->depth - 1, NULL,
                  "'%.*s' is not an AttributeValue type (S, N, B, BOOL, NULL, "
                  "L, M, SS, NS, BS)",
                  (int)(n > 32 ? 32 : n), k);
  f->key_src = K_LIT;
  f->key_lit = ddbst__av_tag(type);
  f->avtype = (uint8_t)type;
  f->state = 1;
  p->pending = X_AV_VALUE;
  if (f->mode == M_TOP) {
    ddbst__pattr *r = &p->pg->attrs[f->target];
    r->type = (uint8_t)type;
    r->val = (uint32_t)p->pg->text.len;
    r->plain = (uint32_t)p->pg->plain.len;
    if (!ddbst__av_is_container(type)) return 1;
  }
  /* {"TAG": */
  return put_text(p, "{\"", 2) && put_text(p, k, n) && put_text(p, "\":", 2);
}

/* A scalar AttributeValue's value, checked and written. */
static int av_scalar(P *p, int vt, const char *s, size_t n, int b) {
  frame *f = top(p);
  int t = f->avtype;
  const char *bad = NULL;
  enum { V_NULL, V_BOOL, V_NUMBER, V_STRING };
  if (t == DDBST__AV_S || t == DDBST__AV_N || t == DDBST__AV_B) {
    if (vt != V_STRING)
      return refuse(p, DDBST_EVALUE, p->depth, NULL, "%s",
                    t == DDBST__AV_N ? "expected the number as a string"
                                     : "expected a string");
    if (!no_nul(p, s, n, "a string")) return 0;
    if (t == DDBST__AV_N) bad = ddbst__number_check(s, n);
    if (t == DDBST__AV_B) bad = ddbst__base64_check(s, n);
    if (bad) return refuse(p, DDBST_EVALUE, p->depth, NULL, "%s", bad);
  } else if (t == DDBST__AV_BOOL) {
    if (vt != V_BOOL)
      return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected true or false");
    s = b ? "true" : "false";
    n = b ? 4 : 5;
  } else { /* NULL */
    if (vt != V_BOOL || !b)
      return refuse(p, DDBST_EVALUE, p->depth, NULL,
                    "a NULL AttributeValue is {\"NULL\": true}");
    s = "";
    n = 0;
  }
  f->state = 2;
  if (f->mode == M_TOP) {
    ddbst__pattr *r = &p->pg->attrs[f->target];
    uint32_t off;
    if (!keep(p, s, n, &off)) return 0;
    r->val = off;
    r->val_len = (uint32_t)n;
    return 1;
  }
  ddbst_buf *plain = f->mode == M_DOC ? &p->pg->plain : NULL;
  int rc = 0;
  switch (t) {
  case DDBST__AV_S:
    rc = ddbst__json_string(&p->pg->text, s, n);
    if (!rc && plain) rc = ddbst__json_string(plain, s, n);
    break;
  case DDBST__AV_N:
  case DDBST__AV_B: /* number and base64 text need no escaping */
    rc = ddbst__buf_putc(&p->pg->text, '"');
    if (!rc) rc = ddbst__buf_append(&p->pg->text, s, n);
    if (!rc) rc = ddbst__buf_putc(&p->pg->text, '"');
    if (!rc && plain && t == DDBST__AV_N) rc = ddbst__json_number(plain, s, n);
    if (!rc && plain && t == DDBST__AV_B) rc = ddbst__json_string(plain, s, n);
    break;
  case DDBST__AV_BOOL:
    rc = ddbst__buf_append(&p->pg->text, s, n);
    if (!rc && plain) rc = ddbst__buf_append(plain, s, n);
    break;
  default:
    rc = ddbst__buf_puts(&p->pg->text, "true");
    if (!rc && plain) rc = ddbst__buf_puts(plain, "null");
  }
  return rc ? nomem(p) : 1;
}

/* L, M or a set begins inside the AttributeValue on top. */
static int av_container(P *p, int is_map) {
  frame *f = top(p);
  int t = f->avtype;
  int want_map = t == DDBST__AV_M;
  if (is_map != want_map)
    return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s",
                  want_map ? "an object" : "a list");
  int mode = f->mode == M_RAW ? M_RAW : M_DOC;
  int depth = f->doc_depth;
  int kind = t == DDBST__AV_L ? F_LIST : t == DDBST__AV_M ? F_MAP : F_SET;
  if (kind != F_SET && ++depth > MAX_DOC_DEPTH)
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "nested deeper than DynamoDB's 32 levels");
  f->state = 2;
  const char *open = is_map ? "{" : "[";
  if (!put_text(p, open, 1)) return 0;
  if (mode == M_DOC && !put_plain(p, open, 1)) return 0;
  if (!push(p, kind, mode, -1)) return 0;
  top(p)->avtype = (uint8_t)t;
  top(p)->doc_depth = (uint16_t)depth;
  return 1;
}

/* A separator before an element of a list, set or map on top. */
static int separate(P *p) {
  frame *f = top(p);
  if (!f->first) {
    if (!put_text(p, ",", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, ",", 1)) return 0;
  }
  f->first = 0;
  return 1;
}

/* A member name of M or of a re-written map. */
static int doc_key(P *p, const char *k, size_t n) {
  frame *f = top(p);
  f->key_src = K_NONE;
  if (!no_nul(p, k, n, "a name")) return 0;
  if (!separate(p)) return 0;
  f->key_src = K_ESC;
  f->key_off = (uint32_t)p->pg->text.len;
  if (!put_text_string(p, k, n)) return 0;
  f->key_len = (uint32_t)(p->pg->text.len - f->key_off);
  if (!put_text(p, ":", 1)) return 0;
  if (f->mode == M_DOC && (ddbst__json_string(&p->pg->plain, k, n) ||
                           ddbst__buf_putc(&p->pg->plain, ':')))
    return nomem(p);
  p->pending = X_AV;
  return 1;
}

/* A set's element. */
static int set_elem(P *p, int vt, const char *s, size_t n) {
  frame *f = top(p);
  int t = f->avtype;
  if (vt != 3 /* string */)
    return refuse(p, DDBST_EVALUE, p->depth, NULL, "%s",
                  t == DDBST__AV_NS ? "a number set holds numbers as strings"
                                    : "a set holds strings");
  if (!no_nul(p, s, n, "a string")) return 0;
  const char *bad = t == DDBST__AV_NS   ? ddbst__number_check(s, n)
                    : t == DDBST__AV_BS ? ddbst__base64_check(s, n)
                                        : NULL;
  if (bad) return refuse(p, DDBST_EVALUE, p->depth, NULL, "%s", bad);
  if (!separate(p)) return 0;
  if (!put_text_string(p, s, n)) return 0;
  if (f->mode != M_DOC) return 1;
  int rc = t == DDBST__AV_NS ? ddbst__json_number(&p->pg->plain, s, n)
                             : ddbst__json_string(&p->pg->plain, s, n);
  return rc ? nomem(p) : 1;
}

/* ---- the answer's structure ---- */

static int new_group(P *p, const char *table, size_t n) {
  ddbst_page *pg = p->pg;
  if (!no_nul(p, table, n, "a table name")) return 0;
  for (uint32_t g = 0; g < pg->ngroups; g++)
    if (pg->groups[g].table_len == n &&
        memcmp(pg->text.data + pg->groups[g].table, table, n) == 0)
      return refuse(p, DDBST_EVALUE, p->depth, NULL,
                    "the table appears twice");
  ddbst__pgroup *v = ddbst__page_grow(&p->m->alloc, pg->groups, &pg->cap_groups,
                          pg->ngroups + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->groups = v;
  ddbst__pgroup *g = &v[pg->ngroups];
  memset(g, 0, sizeof *g);
  if (!keep(p, table, n, &g->table)) return 0;
  g->table_len = (uint32_t)n;
  g->first = pg->nspans;
  g->consistent = -1;
  frame *f = top(p);
  f->key_src = K_RAW;
  f->key_off = g->table;
  f->key_len = g->table_len;
  f->target = (int32_t)pg->ngroups++;
  return 1;
}

static int add_span(P *p, uint32_t off) {
  ddbst_page *pg = p->pg;
  ddbst__pspan *v = ddbst__page_grow(&p->m->alloc, pg->spans, &pg->cap_spans,
                         pg->nspans + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->spans = v;
  v[pg->nspans].off = off;
  v[pg->nspans].len = (uint32_t)(pg->text.len - off);
  pg->nspans++;
  pg->groups[pg->ngroups - 1].count++;
  return 1;
}

/* A member of a known shape: `x` is what its value must be; a second one is
 * refused. */
static int member(P *p, int x, const char *name) {
  frame *f = top(p);
  f->key_src = K_LIT;
  f->key_lit = name;
  uint64_t bit = 1ull << x;
  /* "message" and "Message" are one member, by two spellings */
  if ((f->seen & bit) && x != X_EMSG)
    return refuse(p, DDBST_EVALUE, p->depth, NULL,
                  "the member appears twice");
  f->seen |= bit;
  p->pending = x;
  return 1;
}

static int key_is(const char *k, size_t n, const char *s) {
  return strlen(s) == n && memcmp(k, s, n) == 0;
}

static int root_key(P *p, const char *k, size_t n) {
  static const struct {
    int op; /* 0: any */
    const char *name;
    int x;
  } members[] = {
      {0, "__type", X_ETYPE},
      {0, "message", X_EMSG},
      {0, "Message", X_EMSG},
      {0, "CancellationReasons", X_REASONS},
      {DDBST_OP_GET_ITEM, "Item", X_ITEM_SINGLE},
      {DDBST_OP_QUERY, "Items", X_ITEMS},
      {DDBST_OP_QUERY, "LastEvaluatedKey", X_LEK},
      {DDBST_OP_BATCH_GET_ITEM, "Responses", X_BATCH_RESPONSES},
      {DDBST_OP_BATCH_GET_ITEM, "UnprocessedKeys", X_UNPROC_KEYS},
      {DDBST_OP_BATCH_WRITE_ITEM, "UnprocessedItems", X_UNPROC_ITEMS},
      {DDBST_OP_TRANSACT_GET_ITEMS, "Responses", X_TXN_RESPONSES},
      {DDBST__OP_STREAM, "Records", X_RECORDS},
  };
  for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
    if ((members[i].op == p->op ||
         (!members[i].op && p->op != DDBST__OP_STREAM)) &&
        key_is(k, n, members[i].name))
      return member(p, members[i].x, members[i].name);
  top(p)->key_src = K_NONE;
  p->pending = X_SKIP; /* ConsumedCapacity, ItemCollectionMetrics, ... */
  return 1;
}

/* Members of the other objects of known shape: name → what follows. */
static const struct {
  int frame;
  const char *name;
  int x;
} shape_members[] = {
    {F_KAA, "Keys", X_KEY_LIST},
    {F_KAA, "ConsistentRead", X_CONSISTENT},
    {F_KAA, "ProjectionExpression", X_PROJECTION},
    {F_KAA, "ExpressionAttributeNames", X_EAN},
    {F_WRITEREQ, "PutRequest", X_PUT_REQ},
    {F_WRITEREQ, "DeleteRequest", X_DEL_REQ},
    {F_PUTREQ, "Item", X_RAW_ITEM},
    {F_DELREQ, "Key", X_RAW_ITEM},
    {F_TXN_ENTRY, "Item", X_TXN_ITEM},
    {F_REASON, "Code", X_RCODE},
    {F_REASON, "Message", X_RMSG},
    {F_RECORD, "eventID", X_EVENT_ID},
    {F_RECORD, "eventName", X_EVENT_NAME},
    {F_RECORD, "dynamodb", X_DDB},
    {F_RECORD, "userIdentity", X_USER_ID},
    {F_DDB, "Keys", X_IMAGE_KEYS},
    {F_DDB, "NewImage", X_IMAGE_NEW},
    {F_DDB, "OldImage", X_IMAGE_OLD},
    {F_DDB, "SequenceNumber", X_SEQ},
    {F_USERID, "principalId", X_PRINCIPAL},
};

static int on_key(void *ctx, const unsigned char *key, size_t n) {
  P *p = ctx;
  if (p->skip) return 1;
  const char *k = (const char *)key;
  frame *f = top(p);
  switch (f->kind) {
  case F_ROOT: return root_key(p, k, n);
  case F_ITEM: return item_key(p, k, n);
  case F_AV: return av_key(p, k, n);
  case F_MAP:
  case F_RAWMAP: return doc_key(p, k, n);
  case F_NAMES:
    if (!doc_key(p, k, n)) return 0;
    p->pending = X_NAME_VALUE;
    return 1;
  case F_BATCH_RESP: {
    uint32_t off;
    if (!no_nul(p, k, n, "a table name") || !keep(p, k, n, &off)) return 0;
    f->key_src = K_RAW;
    f->key_off = off;
    f->key_len = (uint32_t)n;
    p->pending = X_BATCH_TABLE;
    return 1;
  }
  case F_UKEYS:
  case F_UITEMS:
    if (!new_group(p, k, n)) return 0;
    p->pending = f->kind == F_UKEYS ? X_KAA : X_WRITE_LIST;
    return 1;
  default:
    break;
  }
  for (size_t i = 0; i < sizeof shape_members / sizeof shape_members[0]; i++)
    if (shape_members[i].frame == f->kind &&
        key_is(k, n, shape_members[i].name)) {
      if (!member(p, shape_members[i].x, shape_members[i].name)) return 0;
      /* a write request's parts are written as they come */
      if (f->kind == F_WRITEREQ || f->kind == F_PUTREQ || f->kind == F_DELREQ) {
        if (f->kind == F_WRITEREQ && (f->seen & ~(1ull << shape_members[i].x)))
          return refuse(p, DDBST_EVALUE, p->depth - 1, NULL,
                        "a write request is a PutRequest or a DeleteRequest");
        if (!f->first && !put_text(p, ",", 1)) return 0;
        f->first = 0;
        return put_text(p, "\"", 1) && put_text(p, k, n) && put_text(p, "\":", 2);
      }
      return 1;
    }
  f->key_src = K_NONE;
  p->pending = X_SKIP;
  return 1;
}

/* A string kept in text, with its offset and length. */
static int keep_string(P *p, int vt, const char *s, size_t n, uint32_t *off,
                       uint32_t *len, const char *what) {
  if (vt != 3)
    return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s", what);
  if (!no_nul(p, s, n, "a string") || !keep(p, s, n, off)) return 0;
  *len = (uint32_t)n;
  return 1;
}

static const char *const vt_names[] = {"null", "a boolean", "a number",
                                       "a string", "an object", "a list"};
enum { V_NULL, V_BOOL, V_NUMBER, V_STRING, V_MAP, V_ARRAY };

static int want(P *p, int vt, int expected, const char *what) {
  if (vt == expected) return 1;
  return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s, found %s", what,
                vt_names[vt]);
}

static ddbst__precord *record_of(P *p) {
  for (int i = p->depth - 1; i >= 0; i--)
    if (p->st[i].kind == F_RECORD) return &p->pg->records[p->st[i].target];
  return NULL;
}

static int image(P *p, int vt, int where) {
  if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
  int32_t rec_index = top(p)->target;
  int32_t it = new_item(p, where, (uint32_t)rec_index);
  if (it < 0) return 0;
  ddbst__precord *r = &p->pg->records[rec_index];
  if (where == DDBST__IN_KEYS) r->keys = it;
  if (where == DDBST__IN_NEW) r->new_image = it;
  if (where == DDBST__IN_OLD) r->old_image = it;
  return open_item(p, it);
}

static int on_value(P *p, int vt, const char *s, size_t n, int b) {
  if (p->skip) {
    if (vt == V_MAP || vt == V_ARRAY) p->skip++;
    return 1;
  }
  ddbst_page *pg = p->pg;
  int x;
  if (p->depth == 0) {
    x = X_ROOT;
  } else {
    frame *f = top(p);
    if (is_array(f->kind)) {
      static const int elems[][2] = {
          {F_LIST, X_AV},           {F_SET, X_SET_ELEM},
          {F_ITEMS, X_ITEM_ELEM},   {F_TXN_RESP, X_TXN_ENTRY},
          {F_KEYLIST, X_KEY_ELEM},  {F_WRITELIST, X_WRITE_ELEM},
          {F_REASONS, X_REASON_ELEM}, {F_RECORDS, X_RECORD_ELEM}};
      x = X_NONE;
      for (size_t i = 0; i < sizeof elems / sizeof elems[0]; i++)
        if (elems[i][0] == f->kind) x = elems[i][1];
      f->index++;
    } else {
      x = p->pending;
      p->pending = X_NONE;
    }
  }
  if (x == X_SKIP) {
    if (vt == V_MAP || vt == V_ARRAY) p->skip = 1;
    return 1;
  }
  int32_t t;
  switch (x) {
  case X_ROOT:
    if (vt != V_MAP)
      return refuse(p, DDBST_EVALUE, 0, NULL,
                    "expected a JSON object, found %s", vt_names[vt]);
    return push(p, F_ROOT, M_RAW, -1);
  case X_ITEM_SINGLE:
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    if ((t = new_item(p, DDBST__IN_ITEM, 0)) < 0) return 0;
    return open_item(p, t);
  case X_ITEMS:
    if (!want(p, vt, V_ARRAY, "a list of items")) return 0;
    if (!push(p, F_ITEMS, M_RAW, -1)) return 0;
    top(p)->avtype = DDBST__IN_ITEMS;
    return 1;
  case X_BATCH_TABLE: {
    if (!want(p, vt, V_ARRAY, "a list of items")) return 0;
    frame *f = top(p);
    uint32_t off = f->key_off, len = f->key_len;
    if (!push(p, F_ITEMS, M_RAW, -1)) return 0;
    top(p)->avtype = DDBST__IN_BATCH;
    top(p)->key_off = off; /* the table, for the items' paths */
    top(p)->key_len = len;
    return 1;
  }
  case X_ITEM_ELEM: {
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    frame *f = top(p);
    if ((t = new_item(p, f->avtype, f->index - 1)) < 0) return 0;
    pg->items[t].table = f->key_off;
    pg->items[t].table_len = f->key_len;
    return open_item(p, t);
  }
  case X_LEK:
    if (!want(p, vt, V_MAP, "a key (a JSON object)")) return 0;
    memset(&pg->lek, 0, sizeof pg->lek);
    pg->lek.where = DDBST__IN_LEK;
    pg->lek.entity = -1;
    return open_item(p, LEK_TARGET);
  case X_BATCH_RESPONSES:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_BATCH_RESP, M_RAW, -1);
  case X_TXN_RESPONSES:
    return want(p, vt, V_ARRAY, "a list") && push(p, F_TXN_RESP, M_RAW, -1);
  case X_TXN_ENTRY:
    if (!want(p, vt, V_MAP, "an object")) return 0;
    if ((t = new_item(p, DDBST__IN_TXN, top(p)->index - 1)) < 0) return 0;
    pg->items[t].present = 0;
    return push(p, F_TXN_ENTRY, M_RAW, t);
  case X_TXN_ITEM:
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    t = top(p)->target;
    pg->items[t].present = 1;
    return open_item(p, t);
  case X_UNPROC_KEYS:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_UKEYS, M_RAW, -1);
  case X_KAA:
    return want(p, vt, V_MAP, "an object with Keys") &&
           push(p, F_KAA, M_RAW, top(p)->target);
  case X_KEY_LIST:
    return want(p, vt, V_ARRAY, "a list of keys") &&
           push(p, F_KEYLIST, M_RAW, -1);
  case X_KEY_ELEM:
  case X_RAW_ITEM: {
    if (!want(p, vt, V_MAP, "a JSON object")) return 0;
    uint32_t off = (uint32_t)pg->text.len;
    return push(p, F_RAWMAP, M_RAW, (int32_t)off) && put_text(p, "{", 1);
  }
  case X_CONSISTENT:
    if (!want(p, vt, V_BOOL, "true or false")) return 0;
    pg->groups[pg->ngroups - 1].consistent = b;
    return 1;
  case X_PROJECTION: {
    ddbst__pgroup *g = &pg->groups[pg->ngroups - 1];
    return keep_string(p, vt, s, n, &g->proj, &g->proj_len, "a string");
  }
  case X_EAN:
    if (!want(p, vt, V_MAP, "an object of names")) return 0;
    pg->groups[pg->ngroups - 1].names = (uint32_t)pg->text.len;
    return push(p, F_NAMES, M_RAW, -1) && put_text(p, "{", 1);
  case X_NAME_VALUE:
    if (!want(p, vt, V_STRING, "a string")) return 0;
    return no_nul(p, s, n, "a name") && put_text_string(p, s, n);
  case X_UNPROC_ITEMS:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_UITEMS, M_RAW, -1);
  case X_WRITE_LIST:
    return want(p, vt, V_ARRAY, "a list of write requests") &&
           push(p, F_WRITELIST, M_RAW, -1);
  case X_WRITE_ELEM: {
    if (!want(p, vt, V_MAP, "a write request (a JSON object)")) return 0;
    uint32_t off = (uint32_t)pg->text.len;
    return push(p, F_WRITEREQ, M_RAW, (int32_t)off) && put_text(p, "{", 1);
  }
  case X_PUT_REQ:
  case X_DEL_REQ:
    if (!want(p, vt, V_MAP, "a JSON object")) return 0;
    return push(p, x == X_PUT_REQ ? F_PUTREQ : F_DELREQ, M_RAW, -1) &&
           put_text(p, "{", 1);
  case X_ETYPE: {
    if (!keep_string(p, vt, s, n, &pg->etype, &pg->etype_len, "a string"))
      return 0;
    /* "com.amazonaws.dynamodb.v20120810#TransactionCanceledException" */
    const char *hash = memchr(s, '#', n);
    while (hash && memchr(hash + 1, '#', n - (size_t)(hash + 1 - s)))
      hash = memchr(hash + 1, '#', n - (size_t)(hash + 1 - s));
    if (hash) {
      uint32_t cut = (uint32_t)(hash + 1 - s);
      pg->etype += cut;
      pg->etype_len -= cut;
    }
    p->has_type = 1;
    return 1;
  }
  case X_EMSG:
    return keep_string(p, vt, s, n, &pg->emsg, &pg->emsg_len, "a string");
  case X_REASONS:
    return want(p, vt, V_ARRAY, "a list") && push(p, F_REASONS, M_RAW, -1);
  case X_REASON_ELEM: {
    if (!want(p, vt, V_MAP, "an object")) return 0;
    ddbst__preason *v = ddbst__page_grow(&p->m->alloc, pg->reasons, &pg->cap_reasons,
                             pg->nreasons + 1, sizeof *v);
    if (!v) return nomem(p);
    pg->reasons = v;
    memset(&v[pg->nreasons], 0, sizeof *v);
    v[pg->nreasons].code = UINT32_MAX;
    return push(p, F_REASON, M_RAW, (int32_t)pg->nreasons++);
  }
  case X_RCODE: {
    ddbst__preason *r = &pg->reasons[top(p)->target];
    return keep_string(p, vt, s, n, &r->code, &r->code_len, "a string");
  }
  case X_RMSG: {
    ddbst__preason *r = &pg->reasons[top(p)->target];
    return keep_string(p, vt, s, n, &r->msg, &r->msg_len, "a string");
  }
  case X_RECORDS:
    return want(p, vt, V_ARRAY, "a list of records") &&
           push(p, F_RECORDS, M_RAW, -1);
  case X_RECORD_ELEM: {
    if (!want(p, vt, V_MAP, "a record (a JSON object)")) return 0;
    ddbst__precord *v = ddbst__page_grow(&p->m->alloc, pg->records, &pg->cap_records,
                             pg->nrecords + 1, sizeof *v);
    if (!v) return nomem(p);
    pg->records = v;
    ddbst__precord *r = &v[pg->nrecords];
    memset(r, 0, sizeof *r);
    r->keys = r->new_image = r->old_image = r->entity = -1;
    r->seq = r->id = UINT32_MAX;
    return push(p, F_RECORD, M_RAW, (int32_t)pg->nrecords++);
  }
  case X_EVENT_ID: {
    ddbst__precord *r = record_of(p);
    return keep_string(p, vt, s, n, &r->id, &r->id_len, "a string");
  }
  case X_EVENT_NAME: {
    ddbst__precord *r = record_of(p);
    if (!want(p, vt, V_STRING, "INSERT, MODIFY or REMOVE")) return 0;
    r->event = key_is(s, n, "INSERT")   ? DDBST_STREAM_INSERT
               : key_is(s, n, "MODIFY") ? DDBST_STREAM_MODIFY
               : key_is(s, n, "REMOVE") ? DDBST_STREAM_REMOVE
                                        : 0;
    if (!r->event)
      return refuse(p, DDBST_EVALUE, p->depth, NULL,
                    "expected INSERT, MODIFY or REMOVE");
    return 1;
  }
  case X_DDB:
    return want(p, vt, V_MAP, "an object") &&
           push(p, F_DDB, M_RAW, top(p)->target);
  case X_USER_ID:
    if (vt == V_NULL) return 1;
    return want(p, vt, V_MAP, "an object") &&
           push(p, F_USERID, M_RAW, top(p)->target);
  case X_PRINCIPAL:
    if (!want(p, vt, V_STRING, "a string")) return 0;
    /* DynamoDB itself removed the item: its TTL expired */
    if (key_is(s, n, "dynamodb.amazonaws.com"))
      pg->records[top(p)->target].by_ttl = 1;
    return 1;
  case X_IMAGE_KEYS: return image(p, vt, DDBST__IN_KEYS);
  case X_IMAGE_NEW: return image(p, vt, DDBST__IN_NEW);
  case X_IMAGE_OLD: return image(p, vt, DDBST__IN_OLD);
  case X_SEQ: {
    ddbst__precord *r = &pg->records[top(p)->target];
    return keep_string(p, vt, s, n, &r->seq, &r->seq_len, "a string");
  }
  case X_AV: {
    if (vt != V_MAP)
      return refuse(p, DDBST_EVALUE, p->depth, NULL,
                    "expected an AttributeValue such as {\"S\": \"text\"}, "
                    "found %s",
                    vt_names[vt]);
    frame *f = top(p);
    int mode = f->kind == F_ITEM ? M_TOP : f->mode;
    int32_t target = f->kind == F_ITEM ? (int32_t)pg->nattrs - 1 : -1;
    uint16_t depth = f->doc_depth;
    if (f->kind == F_LIST && !separate(p)) return 0;
    if (!push(p, F_AV, mode, target)) return 0;
    top(p)->doc_depth = depth;
    return 1;
  }
  case X_AV_VALUE:
    if (vt == V_MAP || vt == V_ARRAY) {
      if (!ddbst__av_is_container(top(p)->avtype))
        return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s, found %s",
                      top(p)->avtype == DDBST__AV_BOOL   ? "true or false"
                      : top(p)->avtype == DDBST__AV_NULL ? "true"
                                                         : "a string",
                      vt_names[vt]);
      return av_container(p, vt == V_MAP);
    }
    if (ddbst__av_is_container(top(p)->avtype))
      return refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s, found %s",
                    top(p)->avtype == DDBST__AV_M ? "an object" : "a list",
                    vt_names[vt]);
    return av_scalar(p, vt, s, n, b);
  case X_SET_ELEM: return set_elem(p, vt, s, n);
  }
  return refuse(p, DDBST_EVALUE, p->depth, NULL, "unexpected %s",
                vt_names[vt]);
}

static int on_null(void *ctx) { return on_value(ctx, V_NULL, NULL, 0, 0); }
static int on_bool(void *ctx, int b) { return on_value(ctx, V_BOOL, NULL, 0, b); }
static int on_number(void *ctx, const char *s, size_t n) {
  return on_value(ctx, V_NUMBER, s, n, 0);
}
static int on_string(void *ctx, const unsigned char *s, size_t n) {
  return on_value(ctx, V_STRING, (const char *)s, n, 0);
}
static int on_start_map(void *ctx) { return on_value(ctx, V_MAP, NULL, 0, 0); }
static int on_start_array(void *ctx) {
  return on_value(ctx, V_ARRAY, NULL, 0, 0);
}

/* The root's members that each operation's answer always has. */
static int root_complete(P *p) {
  frame *f = top(p);
  if (p->has_type) return 1; /* an error body: told apart afterwards */
  static const struct {
    int op, x;
    const char *name;
  } required[] = {
      {DDBST_OP_QUERY, X_ITEMS, "Items"},
      {DDBST_OP_BATCH_GET_ITEM, X_BATCH_RESPONSES, "Responses"},
      {DDBST_OP_BATCH_WRITE_ITEM, X_UNPROC_ITEMS, "UnprocessedItems"},
      {DDBST_OP_TRANSACT_GET_ITEMS, X_TXN_RESPONSES, "Responses"},
      {DDBST__OP_STREAM, X_RECORDS, "Records"},
      {DDBST__OP_ERROR, X_ETYPE, "__type"},
  };
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (required[i].op == p->op && !(f->seen & (1ull << required[i].x)))
      return refuse(p, DDBST_EVALUE, 0, required[i].name, "%s",
                    p->op == DDBST__OP_ERROR
                        ? "missing: this is not a DynamoDB error body"
                        : "missing: this is not the answer to the operation "
                          "given");
  return 1;
}

static int record_complete(P *p) {
  const ddbst__precord *r = &p->pg->records[top(p)->target];
  int up = p->depth - 1;
  if (!r->event)
    return refuse(p, DDBST_EVALUE, up, "eventName", "missing");
  if (r->keys < 0)
    return refuse(p, DDBST_EVALUE, up, "dynamodb.Keys", "missing");
  if (r->seq == UINT32_MAX)
    return refuse(p, DDBST_EVALUE, up, "dynamodb.SequenceNumber", "missing");
  /* the entity its image says; a KEYS_ONLY record's, its key's */
  ddbst__precord *w = &p->pg->records[top(p)->target];
  int32_t it = r->new_image >= 0 ? r->new_image
               : r->old_image >= 0 ? r->old_image
                                   : r->keys;
  w->entity = p->pg->items[it].entity;
  return 1;
}

static int on_end(void *ctx) {
  P *p = ctx;
  if (p->skip) {
    p->skip--;
    return 1;
  }
  ddbst_page *pg = p->pg;
  frame *f = top(p);
  int up = p->depth - 1;
  switch (f->kind) {
  case F_ROOT:
    if (!root_complete(p)) return 0;
    break;
  case F_ITEM:
    if (!finish_item(p)) return 0;
    break;
  case F_AV:
    if (f->state != 2)
      return refuse(p, DDBST_EVALUE, up, NULL,
                    "an AttributeValue needs a type and a value, such as "
                    "{\"S\": \"text\"}");
    if (f->mode == M_TOP) {
      ddbst__pattr *r = &pg->attrs[f->target];
      if (ddbst__av_is_container(r->type)) {
        if (!put_text(p, "}", 1)) return 0;
        r->val_len = (uint32_t)(pg->text.len - r->val);
        r->plain_len = (uint32_t)(pg->plain.len - r->plain);
        if (!put_text(p, "", 1)) return 0;
      }
    } else if (!put_text(p, "}", 1)) {
      return 0;
    }
    break;
  case F_LIST:
  case F_SET:
    if (f->kind == F_SET && f->index == 0)
      return refuse(p, DDBST_EVALUE, up, NULL,
                    "a set is never empty in DynamoDB");
    if (!put_text(p, "]", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, "]", 1)) return 0;
    break;
  case F_MAP:
    if (!put_text(p, "}", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, "}", 1)) return 0;
    break;
  case F_RAWMAP:
    if (!put_text(p, "}", 1)) return 0;
    if (p->st[up - 1].kind == F_KEYLIST && !add_span(p, (uint32_t)f->target))
      return 0;
    break;
  case F_NAMES: {
    if (!put_text(p, "}", 1)) return 0;
    ddbst__pgroup *g = &pg->groups[pg->ngroups - 1];
    g->names_len = (uint32_t)(pg->text.len - g->names);
    break;
  }
  case F_KAA:
    if (!(f->seen & (1ull << X_KEY_LIST)))
      return refuse(p, DDBST_EVALUE, up, "Keys", "missing");
    break;
  case F_PUTREQ:
  case F_DELREQ:
    if (!f->seen)
      return refuse(p, DDBST_EVALUE, up, f->kind == F_PUTREQ ? "Item" : "Key",
                    "missing");
    if (!put_text(p, "}", 1)) return 0;
    break;
  case F_WRITEREQ:
    if (!f->seen)
      return refuse(p, DDBST_EVALUE, up, NULL,
                    "a write request holds a PutRequest or a DeleteRequest");
    if (!put_text(p, "}", 1) || !add_span(p, (uint32_t)f->target)) return 0;
    break;
  case F_REASON: {
    ddbst__preason *r = &pg->reasons[f->target];
    if (r->code == UINT32_MAX)
      return refuse(p, DDBST_EVALUE, up, "Code", "missing");
    r->kind = ddbst__ddb_error_kind(pg->text.data + r->code, r->code_len);
    break;
  }
  case F_RECORD:
    if (!record_complete(p)) return 0;
    break;
  default:
    break;
  }
  p->depth--;
  return 1;
}

static const yajl_callbacks callbacks = {
    on_null,      on_bool, NULL,   NULL,           on_number, on_string,
    on_start_map, on_key,  on_end, on_start_array, on_end,
};

int ddbst__page_parse(ddbst_page *pg, int op, const char *json, size_t len,
                      ddbst_error *err) {
  ddbst__page_clear(pg, 0);
  pg->op = op;
  pg->failed = 1;
  if (!json && len) return ddbst__fail(err, DDBST_EINVAL, NULL, "json is NULL");
  if (len > UINT32_MAX / 4)
    return ddbst__fail(err, DDBST_ERANGE, NULL,
                       "the response is over 1 GB; DynamoDB's answers are not");
  /* Strings kept are never longer than the text they came from, so one
   * reservation covers nearly every parse. */
  if (ddbst__buf_reserve(&pg->text, len + 64))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  P p;
  memset(&p, 0, sizeof p);
  p.pg = pg;
  p.m = pg->m;
  p.op = op;
  p.lenient = op == DDBST__OP_STREAM;
  yrun r;
  memset(&r, 0, sizeof r);
  r.page = pg;
  int rc = yajl_run_cached(&r, &callbacks, &p, json, len);
  if (rc == 0 && (r.status != yajl_status_ok || p.code))
    rc = p.code ? p.code : DDBST_ESYNTAX;
  if (rc) {
    ddbst__page_clear(pg, 0);
    if (rc == DDBST_ENOMEM)
      return ddbst__fail(err, rc, NULL, "out of memory");
    unsigned line, col;
    ddbst__text_position(json, len, r.at, &line, &col);
    if (rc == DDBST_ESYNTAX)
      ddbst__fail(err, rc, NULL, "%s (line %u, column %u)", r.msg, line, col);
    else
      ddbst__fail(err, rc, p.path, "%s", p.msg);
    if (err) {
      err->offset = r.at;
      err->line = line;
      err->column = col;
    }
    return rc;
  }
  if (p.has_type) {
    ddbst__page_clear(pg, 1);
    pg->error_kind = ddbst__ddb_error_kind(pg->text.data + pg->etype, pg->etype_len);
    /* a type spelled like the reason "None" is still an error */
    if (pg->error_kind == DDBST_DDB_NONE) pg->error_kind = DDBST_DDB_OTHER;
    pg->failed = 0;
    if (op == DDBST__OP_ERROR) return pg->error_kind;
    return ddbst__fail(err, DDBST_EDYNAMODB, "__type", "%s: %s",
                       pg->text.data + pg->etype,
                       pg->emsg_len ? pg->text.data + pg->emsg
                                    : "(no message)");
  }
  pg->failed = 0;
  pg->count = op == DDBST__OP_STREAM            ? (int)pg->nrecords
              : op == DDBST_OP_BATCH_WRITE_ITEM ? 0
                                                : (int)pg->nitems;
  return pg->count;
}
