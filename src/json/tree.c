/* The streaming JSON parser (parse.h) → a ddbst__jnode tree in an arena. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "json/parse.h"
#include "json/tree.h"

/* Past HASHED_FROM members an object's names are found by hash, not by
 * comparing each with all before it: a large model's patterns are one
 * object of a thousand members. */
enum { MAX_DEPTH = 64, MAX_MEMBERS = 4096, HASHED_FROM = 16 };

/* The bytes of a scalar node: the fields up to its text. */
enum { SCALAR_NODE = offsetof(ddbst__jnode, keys) };
_Static_assert(offsetof(ddbst__jnode, text) + sizeof(const char *) ==
                   SCALAR_NODE,
               "a scalar node ends with its text");

/* Containers collect children in growable arrays on the heap while open, and
 * move them into the arena when they close. A frame is a nesting level:
 * its arrays serve each container opened at that level in turn (a model's
 * 4,000 objects grew and freed arrays of their own: 13,000 allocations),
 * and with a ddbst__jtree_kept they outlive the parse. */
typedef struct ddbst__jtree_frame frame;
struct ddbst__jtree_frame {
  ddbst__jnode *node;
  const char **keys;
  uint32_t *key_lens;
  ddbst__jnode **items;
  size_t count, cap, key_cap; /* cap: of items; key_cap: of keys, key_lens */
  const char *pending_key; /* object: the key awaiting its value */
  uint32_t pending_len;
  int awaiting; /* object: a key was read, its value not yet */
  ddbst__strset names; /* keys[0..hashed), once count reaches HASHED_FROM */
  size_t hashed;
};

/* Short texts a document repeats (member names, a model's "string" and
 * "pk") are kept once: the last text of each slot is reused when the next
 * one equal to it comes. A model of 200 entities repeats most of its 28,000
 * names; each copy would be arena bytes the loader touches once. */
enum { REUSED_SLOTS = 128, REUSED_MAX = 32 };

typedef struct reused {
  const char *text;
  size_t len;
} reused;

/* Only the members before `stack` start zeroed (a frame is cleared when
 * it opens, a slot of `seen` is read once its bit in `filled` is set): the
 * JSON entry parses a small request per call, and clearing 8 KB each time
 * would cost more than the parse. */
typedef struct builder {
  ddbst__arena *ar;
  const ddbst_allocator *alloc;
  const ddbst__json_run *run; /* for the offset of each value */
  char *room; /* where the reader decoded the string it reports next */
  frame *stack; /* own, or the kept frames */
  int kept;     /* the frames' arrays outlive the parse */
  int fresh;    /* stack[fresh..] has never been opened: not yet zeroed */
  int depth;
  ddbst__jnode *root;
  int error; /* our own refusal, reported with `why` */
  const char *why;
  int at_name; /* the refusal is of a member name, not of a value */
  int twice;   /* the refusal is of a name the object has already */
  uint64_t filled[REUSED_SLOTS / 64];
  frame own[MAX_DEPTH]; /* zeroed one level at a time, when first opened */
  reused seen[REUSED_SLOTS];
} builder;

static int refuse(builder *b, int code, const char *why) {
  b->error = code;
  b->why = why;
  b->at_name = 0;
  return 0;
}

static int refuse_name(builder *b, const char *why) {
  refuse(b, DDBST_ESYNTAX, why);
  b->at_name = 1;
  return 0;
}

static int push_child(builder *b, ddbst__jnode *n) {
  if (b->depth == 0) {
    b->root = n;
    return 1;
  }
  frame *f = &b->stack[b->depth - 1];
  int object = f->node->type == DDBST__J_OBJECT;
  if (f->count == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 8;
    ddbst__jnode **it = ddbst__realloc(b->alloc, f->items, cap * sizeof *it);
    if (!it) return refuse(b, DDBST_ENOMEM, "out of memory");
    f->items = it;
    f->cap = cap;
  }
  /* the names' arrays grow apart: an array at this level may have grown
   * the items alone */
  if (object && f->count == f->key_cap) {
    size_t cap = f->cap;
    const char **k = ddbst__realloc(b->alloc, f->keys, cap * sizeof *k);
    if (!k) return refuse(b, DDBST_ENOMEM, "out of memory");
    f->keys = k;
    uint32_t *kl = ddbst__realloc(b->alloc, f->key_lens, cap * sizeof *kl);
    if (!kl) return refuse(b, DDBST_ENOMEM, "out of memory");
    f->key_lens = kl;
    f->key_cap = cap;
  }
  if (object) {
    f->keys[f->count] = f->pending_key;
    f->key_lens[f->count] = f->pending_len;
    f->awaiting = 0;
  }
  f->items[f->count++] = n;
  return 1;
}

static ddbst__jnode *new_node(builder *b, ddbst__jtype t) {
  int container = t == DDBST__J_ARRAY || t == DDBST__J_OBJECT;
  ddbst__jnode *n =
      ddbst__arena_alloc_words(b->ar, container ? sizeof *n : SCALAR_NODE);
  if (!n) {
    refuse(b, DDBST_ENOMEM, "out of memory");
    return NULL;
  }
  n->type = t;
  n->offset = (uint32_t)ddbst__json_offset(b->run);
  return n;
}

/* A NUL-terminated copy of s[0..len) in the arena, or the same text
 * copied before (tree nodes are read only), or NULL; a text the reader
 * decoded in the arena already (string_room) is kept where it is. */
static const char *text_copy(builder *b, const char *s, size_t len) {
  if (s == b->room) {
    b->room[len] = '\0';
    b->room = NULL;
    return s;
  }
  if (len == 0 || len > REUSED_MAX)
    return ddbst__arena_strndup(b->ar, s, len);
  unsigned h = (unsigned)len * 31u + (unsigned char)s[0] * 7u +
               (unsigned char)s[len - 1] * 3u + (unsigned char)s[len / 2];
  unsigned slot = h % REUSED_SLOTS;
  uint64_t bit = (uint64_t)1 << (slot % 64);
  reused *r = &b->seen[slot];
  if ((b->filled[slot / 64] & bit) && r->len == len &&
      memcmp(r->text, s, len) == 0)
    return r->text;
  const char *p = ddbst__arena_strndup(b->ar, s, len);
  if (p) {
    r->text = p;
    r->len = len;
    b->filled[slot / 64] |= bit;
  }
  return p;
}

static int scalar(builder *b, ddbst__jtype t, const char *s, size_t len,
                  int boolean) {
  ddbst__jnode *n = new_node(b, t);
  if (!n) return 0;
  n->boolean = boolean;
  if (s) {
    if (memchr(s, '\0', len))
      return refuse(b, DDBST_ESYNTAX, "contains a NUL byte (\\u0000)");
    n->text = text_copy(b, s, len);
    if (!n->text) return refuse(b, DDBST_ENOMEM, "out of memory");
    n->len = (uint32_t)len;
  }
  return push_child(b, n);
}

static int on_null(void *ctx) { return scalar(ctx, DDBST__J_NULL, NULL, 0, 0); }
static int on_bool(void *ctx, int v) {
  return scalar(ctx, DDBST__J_BOOL, NULL, 0, v != 0);
}
static int on_number(void *ctx, const char *s, size_t len) {
  return scalar(ctx, DDBST__J_NUMBER, s, len, 0);
}
static int on_string(void *ctx, const unsigned char *s, size_t len) {
  return scalar(ctx, DDBST__J_STRING, (const char *)s, len, 0);
}

/* A long string or name with escapes is decoded straight into the arena,
 * which keeps it: not into a block of the reader's first, to be copied
 * (a stream event sent as one JSON string, 133 KB escaped, took a block of
 * its own at every call, past what a warm session keeps). */
static char *string_room(void *ctx, size_t n) {
  builder *b = ctx;
  b->room = ddbst__arena_text_room(b->ar, n);
  return b->room;
}

static int open_container(builder *b, ddbst__jtype t) {
  if (b->depth == MAX_DEPTH)
    return refuse(b, DDBST_ESYNTAX, "nesting deeper than 64 levels");
  ddbst__jnode *n = new_node(b, t);
  if (!n || !push_child(b, n)) return 0;
  frame *f = &b->stack[b->depth++];
  if (b->depth > b->fresh) { /* a level no container has used yet */
    memset(f, 0, sizeof *f);
    ddbst__strset_init(&f->names);
    b->fresh = b->depth;
  }
  /* the level's arrays, from the container before it at this level */
  frame mem = *f;
  memset(f, 0, sizeof *f);
  f->items = mem.items;
  f->keys = mem.keys;
  f->key_lens = mem.key_lens;
  f->cap = mem.cap;
  f->key_cap = mem.key_cap;
  f->names = mem.names;
  if (f->names.stamp)
    ddbst__strset_clear(&f->names);
  else
    ddbst__strset_init(&f->names);
  f->node = n;
  return 1;
}

static void free_frame(frame *f, const ddbst_allocator *a) {
  ddbst__free(a, f->items);
  ddbst__free(a, f->keys);
  ddbst__free(a, f->key_lens);
  ddbst__strset_release(&f->names, a);
  memset(f, 0, sizeof *f);
  ddbst__strset_init(&f->names);
}

/* A container's children into the arena: an object's values, names and
 * name lengths in one block. Its level's arrays stay for the next
 * container there. */
static int close_container(builder *b) {
  frame *f = &b->stack[b->depth - 1];
  ddbst__jnode *n = f->node;
  size_t c = f->count;
  n->count = (uint32_t)c;
  if (c) {
    int object = n->type == DDBST__J_OBJECT;
    size_t items = c * sizeof *n->items, keys = c * sizeof *n->keys;
    char *block = ddbst__arena_alloc_words(
        b->ar, items + (object ? keys + c * sizeof *n->key_lens : 0));
    if (!block) return refuse(b, DDBST_ENOMEM, "out of memory");
    n->items = (ddbst__jnode **)(void *)block;
    memcpy(n->items, f->items, items);
    if (object) {
      n->keys = (const char **)(void *)(block + items);
      n->key_lens = (uint32_t *)(void *)(block + items + keys);
      memcpy(n->keys, f->keys, keys);
      memcpy(n->key_lens, f->key_lens, c * sizeof *n->key_lens);
    }
  }
  b->depth--;
  return 1;
}

static int on_start_map(void *ctx) {
  return open_container(ctx, DDBST__J_OBJECT);
}
static int on_start_array(void *ctx) {
  return open_container(ctx, DDBST__J_ARRAY);
}
static int on_end(void *ctx) { return close_container(ctx); }

static ddbst__strkey member_name(const void *owner, uint32_t i) {
  const frame *f = owner;
  return (ddbst__strkey){f->keys[i], f->key_lens[i]};
}

/* Puts the names read since the last call into the frame's set (they are
 * distinct: a name given twice stopped the parse). */
static int hash_names(builder *b, frame *f) {
  if (ddbst__strset_reserve(&f->names, b->alloc, (uint32_t)f->count + 1, 64,
                            member_name, f))
    return refuse(b, DDBST_ENOMEM, "out of memory");
  for (; f->hashed < f->count; f->hashed++)
    ddbst__strset_put(&f->names,
                      ddbst__strset_find(&f->names, f->keys[f->hashed],
                                         f->key_lens[f->hashed], member_name, f),
                      (uint32_t)f->hashed);
  return 1;
}

static int on_key(void *ctx, const unsigned char *k, size_t len) {
  builder *b = ctx;
  frame *f = &b->stack[b->depth - 1];
  if (memchr(k, '\0', len))
    return refuse_name(b, "a member name contains a NUL byte (\\u0000)");
  if (f->count >= MAX_MEMBERS)
    return refuse_name(b, "more than 4096 members in one object");
  size_t i = f->count;
  if (f->count >= HASHED_FROM) {
    if (!hash_names(b, f)) return 0;
    const ddbst__strslot *slot = ddbst__strset_find(
        &f->names, (const char *)k, len, member_name, f);
    if (ddbst__strset_taken(&f->names, slot)) i = slot->entry;
  } else {
    for (i = 0; i < f->count; i++)
      if (f->key_lens[i] == len && memcmp(f->keys[i], k, len) == 0) break;
  }
  if (i < f->count) {
    /* the path is the member's: the name given twice */
    f->pending_key = f->keys[i];
    f->pending_len = (uint32_t)len;
    f->awaiting = 1;
    refuse(b, DDBST_ESYNTAX, "given twice");
    b->twice = 1;
    return 0;
  }
  f->pending_key = text_copy(b, (const char *)k, len);
  if (!f->pending_key) return refuse(b, DDBST_ENOMEM, "out of memory");
  f->pending_len = (uint32_t)len;
  f->awaiting = 1;
  return 1;
}

static const ddbst__json_callbacks callbacks = {
    .on_null = on_null,
    .on_bool = on_bool,
    .on_number = on_number,
    .on_string = on_string,
    .on_start_map = on_start_map,
    .on_key = on_key,
    .on_end_map = on_end,
    .on_start_array = on_start_array,
    .on_end_array = on_end,
    .string_room = string_room,
};

/* The path of the value being read when the parse stopped ("values.orgId",
 * "items[2]"), or with `of_name` of the object whose member name it was:
 * every open container's child that holds the next, then the member or
 * element in hand (none when an object awaits a name). */
static void stop_path(const builder *b, int of_name, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (int d = 0; d < b->depth; d++) {
    const frame *f = &b->stack[d];
    int inner = d + 1 < b->depth; /* its last child is the next frame */
    int w = 0;
    if (!inner && of_name) break;
    if (f->node->type == DDBST__J_ARRAY)
      w = snprintf(out + n, cap - n, "[%zu]", inner ? f->count - 1 : f->count);
    else if (inner)
      w = snprintf(out + n, cap - n, "%s%.*s", n ? "." : "",
                   (int)f->key_lens[f->count - 1], f->keys[f->count - 1]);
    else if (f->awaiting)
      w = snprintf(out + n, cap - n, "%s%.*s", n ? "." : "",
                   (int)f->pending_len, f->pending_key);
    if (w < 0 || (size_t)w >= cap - n) {
      ddbst__trim_partial_utf8(out); /* cut, perhaps mid-character */
      return;
    }
    n += (size_t)w;
  }
}

int ddbst__jtree_parse(ddbst__arena *ar, const char *json, size_t len,
                       ddbst__jnode **root, ddbst_error *err) {
  return ddbst__jtree_parse_kept(ar, NULL, json, len, root, err);
}

int ddbst__jtree_parse_kept(ddbst__arena *ar, ddbst__jtree_kept *kept,
                            const char *json, size_t len, ddbst__jnode **root,
                            ddbst_error *err) {
  builder b;
  /* the own frames (7 KiB) are zeroed only when used */
  memset(&b, 0, offsetof(builder, own));
  b.ar = ar;
  b.alloc = ar->alloc;
  b.stack = b.own;
  if (kept && !kept->frames) {
    kept->frames = ddbst__malloc(ar->alloc, MAX_DEPTH * sizeof *kept->frames);
    if (kept->frames) memset(kept->frames, 0, MAX_DEPTH * sizeof *kept->frames);
  }
  if (kept && kept->frames) {
    b.stack = kept->frames;
    b.kept = 1;
    b.fresh = MAX_DEPTH; /* zeroed when made, released level by level */
  }
  char msg[DDBST_ERROR_MESSAGE_MAX] = "";
  char path[DDBST_ERROR_PATH_MAX] = "";
  int named = 0; /* the error has a path: no position in its message */
  if (len >= UINT32_MAX) /* a node's lengths and offsets are 32 bits */
    return ddbst__fail(err, DDBST_ERANGE, NULL,
                       "a JSON document of 4 GiB or more");
  ddbst__json_run r;
  b.run = &r;
  int rc = ddbst__json_parse(&r, &callbacks, &b, json, len, ar->alloc,
                             kept ? &kept->reader : NULL);
  if (rc == 0 && r.status != DDBST__JSON_OK) {
    rc = DDBST_ESYNTAX;
    if (b.error) {
      rc = b.error;
      named = rc != DDBST_ENOMEM;
      if (named) stop_path(&b, b.at_name, path, sizeof path);
      if (b.twice)
        snprintf(msg, sizeof msg, "%.*s given twice",
                 (int)b.stack[b.depth - 1].pending_len,
                 b.stack[b.depth - 1].pending_key);
      else
        snprintf(msg, sizeof msg, "%s", b.why);
    } else if (r.status == DDBST__JSON_TEXT) {
      named = 1;
      stop_path(&b, r.in_name, path, sizeof path);
      snprintf(msg, sizeof msg, "%s%s", r.in_name ? "a member name: " : "",
               r.msg);
    } else {
      snprintf(msg, sizeof msg, "%s", r.msg);
    }
  }
  if (rc == DDBST_ENOMEM) {
    ddbst__fail(err, rc, NULL, "out of memory");
  } else if (rc) {
    unsigned line, col;
    ddbst__text_position(json, len, r.at, &line, &col);
    if (named)
      ddbst__fail(err, rc, path, "%s", msg);
    else
      ddbst__fail(err, rc, NULL, "%s (line %u, column %u)", msg, line, col);
    if (err) {
      err->offset = r.at;
      err->line = line;
      err->column = col;
    }
  }
  /* the levels' arrays: the owner's to keep, else freed */
  if (!b.kept)
    for (int d = 0; d < b.fresh; d++) free_frame(&b.stack[d], b.alloc);
  if (rc == 0) *root = b.root;
  return rc;
}

/* The bytes a level's arrays hold. */
static size_t frame_bytes(const frame *f) {
  return f->cap * sizeof *f->items +
         f->key_cap * (sizeof *f->keys + sizeof *f->key_lens) +
         (size_t)f->names.cap * sizeof *f->names.slots;
}

void ddbst__jtree_kept_trim(ddbst__jtree_kept *kept, const ddbst_allocator *a,
                            size_t budget) {
  ddbst__json_cache_trim(&kept->reader, a, budget);
  if (!kept->frames) return;
  /* the shallow levels, which every request uses, while they fit */
  size_t total = 0;
  for (int d = 0; d < MAX_DEPTH; d++) {
    size_t n = frame_bytes(&kept->frames[d]);
    if (total + n > budget)
      free_frame(&kept->frames[d], a);
    else
      total += n;
  }
}

void ddbst__jtree_kept_release(ddbst__jtree_kept *kept,
                               const ddbst_allocator *a) {
  ddbst__json_cache_release(&kept->reader, a);
  if (kept->frames)
    for (int d = 0; d < MAX_DEPTH; d++) free_frame(&kept->frames[d], a);
  ddbst__free(a, kept->frames);
  kept->frames = NULL;
}

const ddbst__jnode *ddbst__jobj_get(const ddbst__jnode *obj, const char *key) {
  if (!obj || obj->type != DDBST__J_OBJECT) return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < obj->count; i++)
    if (obj->key_lens[i] == n && memcmp(obj->keys[i], key, n) == 0)
      return obj->items[i];
  return NULL;
}

void ddbst__jtree_write(ddbst__jw *w, const ddbst__jnode *v) {
  switch (v->type) {
  case DDBST__J_NULL: ddbst__jw_null(w); return;
  case DDBST__J_BOOL: ddbst__jw_bool(w, v->boolean); return;
  case DDBST__J_NUMBER: ddbst__jw_json(w, v->text, v->len); return;
  case DDBST__J_STRING: ddbst__jw_strn(w, v->text, v->len); return;
  case DDBST__J_ARRAY:
  case DDBST__J_OBJECT:
    ddbst__jw_open(w, v->type == DDBST__J_ARRAY ? '[' : '{');
    for (size_t i = 0; i < v->count; i++) {
      if (v->type == DDBST__J_OBJECT)
        ddbst__jw_keyn(w, v->keys[i], v->key_lens[i]);
      ddbst__jtree_write(w, v->items[i]);
    }
    ddbst__jw_close(w, v->type == DDBST__J_ARRAY ? ']' : '}');
    return;
  }
  ddbst__jw_status(w, DDBST_EINVAL);
}
