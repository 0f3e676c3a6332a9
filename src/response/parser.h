/* The state of the streaming answer parser, shared by its parts: parse.c
 * drives it (items, AttributeValues); parse_unprocessed.c, parse_error.c
 * and parse_stream.c read the other answer parts. The helpers called for
 * nearly every token are static inline here, so that a part in another
 * file costs no call on the hot path. */
#ifndef DDBST_RESPONSE_PARSER_H
#define DDBST_RESPONSE_PARSER_H

#include <stdio.h>
#include <string.h>

#include "response/page.h"

/* What the page's reader loop (parse.c) calls for nearly every token:
 * inlined into it whatever the compiler's estimate of their size, since
 * the loop is their only hot caller. */
#if defined(__GNUC__)
#define PAGE_HOT static inline __attribute__((always_inline))
#else
#define PAGE_HOT static inline
#endif

enum { MAX_FRAMES = 96, MAX_DOC_DEPTH = 32, LEK_TARGET = -2 };

/* What a frame is: a JSON object or list of a known shape. Grouped by the
 * file that reads them. */
enum {
  /* parse.c */
  F_ROOT,
  F_ITEM,       /* attribute name → AttributeValue, kept as records */
  F_AV,         /* {"S": ...}: one type and its value */
  F_LIST,       /* L's elements */
  F_MAP,        /* M's members */
  F_SET,        /* SS, NS or BS elements */
  F_ITEMS,      /* a list of items */
  F_BATCH_RESP, /* table → items */
  F_TXN_RESP,   /* [{"Item": ...}, ...] */
  F_TXN_ENTRY,
  /* followup.c: UnprocessedKeys and UnprocessedItems */
  F_RAWMAP,     /* name → AttributeValue, re-written as JSON only */
  F_UKEYS,      /* table → KeysAndAttributes */
  F_KAA,
  F_KEYLIST,
  F_NAMES,      /* ExpressionAttributeNames */
  F_UITEMS,     /* table → write requests */
  F_WRITELIST,
  F_WRITEREQ,
  F_PUTREQ,
  F_DELREQ,
  /* error_body.c */
  F_REASONS,
  F_THROTTLES, /* ThrottlingReasons */
  F_THROTTLE,
  F_REASON,
  /* stream.c */
  F_RECORDS,
  F_RECORD,
  F_DDB,
  F_USERID
};

_Static_assert(F_USERID < 32, "frame kinds are told apart by 32 bits");

static inline int is_array(int kind) {
  /* one test of a mask: asked for every value of a page */
  return (int)((1u << F_LIST | 1u << F_SET | 1u << F_ITEMS | 1u << F_TXN_RESP |
                1u << F_KEYLIST | 1u << F_WRITELIST | 1u << F_REASONS |
                1u << F_THROTTLES | 1u << F_RECORDS) >>
               kind & 1u);
}

/* What the next value must be, grouped by the file that reads it. */
enum {
  X_NONE,
  X_SKIP,
  X_ROOT,
  /* parse.c */
  X_ITEM_SINGLE,
  X_ITEMS,
  X_LEK,
  X_BATCH_RESPONSES,
  X_BATCH_TABLE,
  X_TXN_RESPONSES,
  X_TXN_ITEM,
  X_AV,
  X_AV_VALUE,
  X_ITEM_ELEM, /* elements of lists */
  X_TXN_ENTRY,
  X_SET_ELEM,
  X_ATTRIBUTES, /* a write's Attributes */
  X_ERROR_ITEM, /* an error body's Item */
  X_COUNT,
  X_SCANNED,
  /* followup.c */
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
  X_KEY_ELEM,
  X_WRITE_ELEM,
  /* error_body.c */
  X_ETYPE,
  X_EMSG,
  X_REASONS,
  X_RCODE,
  X_RMSG,
  X_REASON_ITEM,
  X_THROTTLES,
  X_THROTTLE_ELEM,
  X_TREASON,
  X_TRESOURCE,
  X_REASON_ELEM,
  /* stream.c */
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
  X_RECORD_ELEM,
  X_LAST = X_RECORD_ELEM
};
_Static_assert(X_LAST < 64, "members are told apart by 64 bits");

/* How an AttributeValue is written: as a record of an item (its value kept
 * raw, or for L, M and sets as JSON), inside a document (AttributeValue JSON
 * and plain JSON), or in a re-written map (AttributeValue JSON only). */
enum { M_TOP, M_DOC, M_RAW };

/* How a frame's current member name is kept, for paths. */
enum { K_NONE, K_LIT, K_RAW, K_ESC };

/* What a JSON value is. */
enum { V_NULL, V_BOOL, V_NUMBER, V_STRING, V_MAP, V_ARRAY };

typedef struct ddbst__frame {
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
} ddbst__frame;

typedef struct ddbst__parser {
  ddbst_page *pg;
  const ddbst_model *m;
  ddbst__answer kind;
  int lenient; /* stream images: an item of no entity is kept, not refused */
  ddbst__frame st[MAX_FRAMES];
  int depth;
  int pending;
  uint64_t skip; /* open containers of a value being skipped */
  int has_type;
  uint32_t name_prev; /* the item's previous name (ddbst__page_next_name_id) */
  /* the text parsed: a string handed over inside it was not unescaped, so
   * it holds no NUL (a raw control character is a syntax error) */
  uintptr_t in_text;
  size_t in_len;
  int code; /* our refusal, or 0 */
  char path[DDBST_ERROR_PATH_MAX];
  char msg[DDBST_ERROR_MESSAGE_MAX];
} ddbst__parser;

/* Refuses the response: `code` at the path of frames [0, upto), with
 * `member` appended when given. Returns 0, which stops the parse. */
int ddbst__refuse(ddbst__parser *p, int code, int upto, const char *member,
                  const char *fmt, ...) DDBST__PRINTF(5, 6);

/* A member of a known shape: `x` is what its value must be; a second one is
 * refused. 1 to go on, 0 to stop. */
int ddbst__member(ddbst__parser *p, int x, const char *name);

/* The members an object of a known shape may hold: name → what follows. */
typedef struct ddbst__shape_member {
  int frame;
  const char *name;
  int x;
} ddbst__shape_member;

/* A member name k[0..n) of the frame on top: *found is its row in `table`
 * (then ddbst__member took it), or NULL when the shape has no such member
 * (then its value is skipped). 1 to go on, 0 to stop. */
int ddbst__shape_key(ddbst__parser *p, const ddbst__shape_member *table,
                     size_t count, const char *k, size_t n,
                     const ddbst__shape_member **found);

/* An item's attributes are all read: its entity, and the facets it lacks
 * recovered from its keys (identify.c). 1 to go on, 0 to stop. */
int ddbst__finish_item(ddbst__parser *p);

/* The DDBST_DDB_* kind of an error type or a cancellation reason code
 * (parse_error.c): DDBST_DDB_OTHER when DynamoDB's name is not known. */
int ddbst__ddb_error_kind(const char *name, size_t n);

/* The answer parts read outside parse.c: a member name of one of their
 * frames, a value they expect (`x` of their group), the end of one of their
 * frames. Each returns 1 to go on, 0 to stop. */
int ddbst__unprocessed_key(ddbst__parser *p, const char *k, size_t n);
int ddbst__unprocessed_value(ddbst__parser *p, int x, int vt, const char *s,
                             size_t n, int b);
int ddbst__unprocessed_end(ddbst__parser *p);
int ddbst__error_body_key(ddbst__parser *p, const char *k, size_t n);
int ddbst__error_body_value(ddbst__parser *p, int x, int vt, const char *s,
                            size_t n, int b);
int ddbst__error_body_end(ddbst__parser *p);
int ddbst__stream_key(ddbst__parser *p, const char *k, size_t n);
int ddbst__stream_value(ddbst__parser *p, int x, int vt, const char *s,
                        size_t n, int b);
int ddbst__stream_end(ddbst__parser *p);

/* ---- helpers for nearly every token ---- */

static inline ddbst__frame *top(ddbst__parser *p) {
  return &p->st[p->depth - 1];
}

static inline int nomem(ddbst__parser *p) {
  if (!p->code) {
    p->code = DDBST_ENOMEM;
    p->path[0] = '\0';
    snprintf(p->msg, sizeof p->msg, "out of memory");
  }
  return 0;
}

PAGE_HOT int push(ddbst__parser *p, int kind, int mode, int32_t target) {
  if (p->depth == MAX_FRAMES)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "nested deeper than DynamoDB nests documents");
  ddbst__frame *f = &p->st[p->depth++];
  memset(f, 0, sizeof *f);
  f->kind = (uint8_t)kind;
  f->mode = (uint8_t)mode;
  f->first = 1;
  f->target = target;
  return 1;
}

/* Output into the page's buffers. */
static inline int put_text(ddbst__parser *p, const char *s, size_t n) {
  return ddbst__buf_append(&p->pg->text, s, n) ? nomem(p) : 1;
}
static inline int put_plain(ddbst__parser *p, const char *s, size_t n) {
  return ddbst__buf_append(&p->pg->plain, s, n) ? nomem(p) : 1;
}
static inline int put_text_string(ddbst__parser *p, const char *s, size_t n) {
  return ddbst__json_string(&p->pg->text, s, n) ? nomem(p) : 1;
}

/* A NUL-terminated copy of s[0..n) in text; its offset in *off. The page
 * reserved room for the whole answer's text, so this is one test, a short
 * copy and the NULs (the kept string's, and the buffer's own past it). */
PAGE_HOT int keep(ddbst__parser *p, const char *s, size_t n,
                       uint32_t *off) {
  ddbst_buf *t = &p->pg->text;
  if (t->len > UINT32_MAX - n - 2) return nomem(p);
  *off = (uint32_t)t->len;
  if (ddbst__buf_reserve(t, n + 1)) return nomem(p);
  ddbst__copy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len++] = '\0';
  t->data[t->len] = '\0';
  return 1;
}

PAGE_HOT int no_nul(ddbst__parser *p, const char *s, size_t n,
                         const char *what) {
  if ((uintptr_t)s - p->in_text < p->in_len) return 1; /* in place */
  if (memchr(s, '\0', n))
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "%s holds a NUL character (\\u0000)", what);
  return 1;
}

static inline int key_is(const char *k, size_t n, const char *s) {
  return strlen(s) == n && memcmp(k, s, n) == 0;
}

/* "a string", for messages about a JSON value of kind `vt`. */
static inline const char *vt_name(int vt) {
  static const char *const names[] = {"null",     "a boolean", "a number",
                                      "a string", "an object", "a list"};
  return names[vt];
}

static inline int want(ddbst__parser *p, int vt, int expected,
                       const char *what) {
  if (vt == expected) return 1;
  return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s, found %s",
                       what, vt_name(vt));
}

/* A string kept in text, with its offset and length. */
static inline int keep_string(ddbst__parser *p, int vt, const char *s,
                              size_t n, uint32_t *off, uint32_t *len,
                              const char *what) {
  if (vt != V_STRING)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s", what);
  if (!no_nul(p, s, n, "a string") || !keep(p, s, n, off)) return 0;
  *len = (uint32_t)n;
  return 1;
}

static inline ddbst__pitem *item_at(ddbst_page *pg, int32_t target) {
  return target == LEK_TARGET ? &pg->lek : &pg->items[target];
}

static inline void next_gen(ddbst_page *pg) {
  if (++pg->gen == UINT32_MAX) {
    memset(pg->seen_gen, 0, pg->nnames * sizeof *pg->seen_gen);
    memset(pg->present_gen, 0,
           (size_t)(pg->m->max_attrs ? pg->m->max_attrs : 1) *
               sizeof *pg->present_gen);
    pg->gen = 1;
  }
}

/* A new item of the page: its index, or -1 when out of memory. */
static inline int32_t new_item(ddbst__parser *p, int where, uint32_t ordinal) {
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

/* Starts reading item `target`'s attributes. */
static inline int open_item(ddbst__parser *p, int32_t target) {
  ddbst_page *pg = p->pg;
  next_gen(pg);
  ddbst__strset_clear(&pg->others);
  p->name_prev = pg->nnames;
  item_at(pg, target)->first = pg->nattrs;
  return push(p, F_ITEM, M_TOP, target);
}

#endif
