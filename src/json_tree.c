/* YAJL's streaming parser → a ddbst__jnode tree in an arena. */
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "facet.h"
#include "json_tree.h"

enum { MAX_DEPTH = 64, MAX_MEMBERS = 4096 };

/* Containers collect children in growable arrays on the heap while open, and
 * move them into the arena when they close. */
typedef struct frame {
  ddbst__jnode *node;
  const char **keys;
  size_t *key_lens;
  ddbst__jnode **items;
  size_t count, cap;
  const char *pending_key; /* object: the key awaiting its value */
  size_t pending_len;
} frame;

typedef struct builder {
  ddbst__arena *ar;
  const ddbst_allocator *alloc;
  yajl_handle h;
  frame stack[MAX_DEPTH];
  int depth;
  ddbst__jnode *root;
  int error; /* our own refusal, reported with `why` */
  const char *why;
} builder;

static size_t offset_now(builder *b) { return yajl_get_bytes_consumed(b->h); }

static void *y_malloc(void *ctx, size_t n) {
  return ddbst__malloc((const ddbst_allocator *)ctx, n);
}
static void *y_realloc(void *ctx, void *p, size_t n) {
  return ddbst__realloc((const ddbst_allocator *)ctx, p, n);
}
static void y_free(void *ctx, void *p) {
  ddbst__free((const ddbst_allocator *)ctx, p);
}

static int refuse(builder *b, int code, const char *why) {
  b->error = code;
  b->why = why;
  return 0;
}

static int push_child(builder *b, ddbst__jnode *n) {
  if (b->depth == 0) {
    b->root = n;
    return 1;
  }
  frame *f = &b->stack[b->depth - 1];
  if (f->count == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 8;
    const char **k = NULL;
    size_t *kl = NULL;
    ddbst__jnode **it = ddbst__realloc(b->alloc, f->items, cap * sizeof *it);
    if (!it) return refuse(b, DDBST_ENOMEM, "out of memory");
    f->items = it;
    if (f->node->type == DDBST__J_OBJECT) {
      k = ddbst__realloc(b->alloc, f->keys, cap * sizeof *k);
      if (!k) return refuse(b, DDBST_ENOMEM, "out of memory");
      f->keys = k;
      kl = ddbst__realloc(b->alloc, f->key_lens, cap * sizeof *kl);
      if (!kl) return refuse(b, DDBST_ENOMEM, "out of memory");
      f->key_lens = kl;
    }
    f->cap = cap;
  }
  if (f->node->type == DDBST__J_OBJECT) {
    f->keys[f->count] = f->pending_key;
    f->key_lens[f->count] = f->pending_len;
  }
  f->items[f->count++] = n;
  return 1;
}

static ddbst__jnode *new_node(builder *b, ddbst__jtype t) {
  ddbst__jnode *n = ddbst__arena_alloc(b->ar, sizeof *n);
  if (!n) {
    refuse(b, DDBST_ENOMEM, "out of memory");
    return NULL;
  }
  n->type = t;
  n->offset = offset_now(b);
  return n;
}

static int scalar(builder *b, ddbst__jtype t, const char *s, size_t len,
                  int boolean) {
  ddbst__jnode *n = new_node(b, t);
  if (!n) return 0;
  n->boolean = boolean;
  if (s) {
    if (memchr(s, '\0', len))
      return refuse(b, DDBST_ESYNTAX, "strings may not contain NUL (\\u0000)");
    n->text = ddbst__arena_strndup(b->ar, s, len);
    if (!n->text) return refuse(b, DDBST_ENOMEM, "out of memory");
    n->len = len;
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

static int open_container(builder *b, ddbst__jtype t) {
  if (b->depth == MAX_DEPTH)
    return refuse(b, DDBST_ESYNTAX, "nesting deeper than 64 levels");
  ddbst__jnode *n = new_node(b, t);
  if (!n || !push_child(b, n)) return 0;
  frame *f = &b->stack[b->depth++];
  memset(f, 0, sizeof *f);
  f->node = n;
  return 1;
}

static void release_frame(builder *b, frame *f) {
  ddbst__free(b->alloc, f->items);
  ddbst__free(b->alloc, f->keys);
  ddbst__free(b->alloc, f->key_lens);
  f->items = NULL;
  f->keys = NULL;
  f->key_lens = NULL;
}

static int close_container(builder *b) {
  frame *f = &b->stack[b->depth - 1];
  ddbst__jnode *n = f->node;
  size_t c = f->count;
  n->count = c;
  if (c) {
    n->items = ddbst__arena_alloc(b->ar, c * sizeof *n->items);
    if (!n->items) return refuse(b, DDBST_ENOMEM, "out of memory");
    memcpy(n->items, f->items, c * sizeof *n->items);
    if (n->type == DDBST__J_OBJECT) {
      n->keys = ddbst__arena_alloc(b->ar, c * sizeof *n->keys);
      n->key_lens = ddbst__arena_alloc(b->ar, c * sizeof *n->key_lens);
      if (!n->keys || !n->key_lens)
        return refuse(b, DDBST_ENOMEM, "out of memory");
      memcpy(n->keys, f->keys, c * sizeof *n->keys);
      memcpy(n->key_lens, f->key_lens, c * sizeof *n->key_lens);
    }
  }
  release_frame(b, f);
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

static int on_key(void *ctx, const unsigned char *k, size_t len) {
  builder *b = ctx;
  frame *f = &b->stack[b->depth - 1];
  if (memchr(k, '\0', len))
    return refuse(b, DDBST_ESYNTAX, "names may not contain NUL (\\u0000)");
  /* The quadratic duplicate check is bounded by the member cap. */
  if (f->count >= MAX_MEMBERS)
    return refuse(b, DDBST_ESYNTAX, "more than 4096 members in one object");
  for (size_t i = 0; i < f->count; i++)
    if (f->key_lens[i] == len && memcmp(f->keys[i], k, len) == 0)
      return refuse(b, DDBST_ESYNTAX, "duplicate key in an object");
  f->pending_key = ddbst__arena_strndup(b->ar, (const char *)k, len);
  if (!f->pending_key) return refuse(b, DDBST_ENOMEM, "out of memory");
  f->pending_len = len;
  return 1;
}

static const yajl_callbacks callbacks = {
    on_null, on_bool, NULL, NULL, on_number, on_string,
    on_start_map, on_key, on_end, on_start_array, on_end,
};

void ddbst__text_position(const char *text, size_t len, size_t offset,
                          unsigned *line, unsigned *column) {
  unsigned l = 1, c = 1;
  if (offset > len) offset = len;
  for (size_t i = 0; i < offset; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *column = c;
}

/* YAJL's error text without its verbose excerpt: "lexical error: invalid char
 * in json text." → the part a person needs. */
static void syntax_message(yajl_handle h, const char *json, size_t len,
                           char *out, size_t cap) {
  unsigned char *msg = yajl_get_error(h, 0, (const unsigned char *)json, len);
  if (msg) {
    size_t n = strcspn((const char *)msg, "\n");
    snprintf(out, cap, "%.*s", (int)n, (const char *)msg);
    yajl_free_error(h, msg);
  } else {
    snprintf(out, cap, "malformed JSON");
  }
}

int ddbst__jtree_parse(ddbst__arena *ar, const char *json, size_t len,
                       ddbst__jnode **root, ddbst_error *err) {
  builder b;
  memset(&b, 0, sizeof b);
  b.ar = ar;
  b.alloc = ar->alloc;
  yajl_alloc_funcs af = {y_malloc, y_realloc, y_free, (void *)ar->alloc};
  b.h = yajl_alloc(&callbacks, &af, &b);
  if (!b.h) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");

  yajl_status st = yajl_parse(b.h, (const unsigned char *)json, len);
  size_t at = yajl_get_bytes_consumed(b.h);
  if (st == yajl_status_ok) {
    st = yajl_complete_parse(b.h);
    if (st != yajl_status_ok) at = len;
  }
  int rc = 0;
  if (st != yajl_status_ok) {
    char msg[160];
    if (b.error) {
      rc = b.error;
      snprintf(msg, sizeof msg, "%s", b.why);
    } else {
      rc = DDBST_ESYNTAX;
      syntax_message(b.h, json, len, msg, sizeof msg);
    }
    if (rc == DDBST_ENOMEM) {
      ddbst__fail(err, rc, NULL, "out of memory");
    } else {
      unsigned line, col;
      ddbst__text_position(json, len, at, &line, &col);
      ddbst__fail(err, rc, NULL, "%s (line %u, column %u)", msg, line, col);
      if (err) {
        err->offset = at;
        err->line = line;
        err->column = col;
      }
    }
  }
  while (b.depth > 0) release_frame(&b, &b.stack[--b.depth]);
  yajl_free(b.h);
  if (rc == 0) *root = b.root;
  return rc;
}

const ddbst__jnode *ddbst__jobj_get(const ddbst__jnode *obj, const char *key) {
  if (!obj || obj->type != DDBST__J_OBJECT) return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < obj->count; i++)
    if (obj->key_lens[i] == n && memcmp(obj->keys[i], key, n) == 0)
      return obj->items[i];
  return NULL;
}

/* ---- validating list, map and set values ---- */

typedef struct checker {
  ddbst__jvkind kind;
  int depth;
  size_t top_count; /* elements of the top-level array */
  char *why;
  size_t why_cap;
} checker;

static int chk_fail(checker *c, const char *why) {
  snprintf(c->why, c->why_cap, "%s", why);
  return 0;
}

/* A scalar at depth 1 of a set must have the set's element type. */
static int chk_scalar(checker *c, int is_string, int is_number) {
  if (c->depth == 0)
    return chk_fail(c, c->kind == DDBST__JV_MAP ? "expected a JSON object"
                                                : "expected a JSON array");
  if (c->depth == 1) {
    c->top_count++;
    if (c->kind == DDBST__JV_STRING_SET && !is_string)
      return chk_fail(c, "a string set holds only strings");
    if (c->kind == DDBST__JV_NUMBER_SET && !is_number)
      return chk_fail(c, "a number set holds only numbers");
  }
  return 1;
}

static int chk_null(void *ctx) { return chk_scalar(ctx, 0, 0); }
static int chk_bool(void *ctx, int v) {
  (void)v;
  return chk_scalar(ctx, 0, 0);
}
static int chk_number(void *ctx, const char *s, size_t n) {
  checker *c = ctx;
  const char *bad = ddbst__number_check(s, n);
  if (bad) return chk_fail(c, bad);
  return chk_scalar(c, 0, 1);
}
static int chk_string(void *ctx, const unsigned char *s, size_t n) {
  checker *c = ctx;
  if (memchr(s, '\0', n)) return chk_fail(c, "strings may not hold NUL");
  return chk_scalar(c, 1, 0);
}
static int chk_open(checker *c, int is_map) {
  if (c->depth == 0) {
    int want_map = c->kind == DDBST__JV_MAP;
    if (is_map != want_map)
      return chk_fail(c, want_map ? "expected a JSON object"
                                  : "expected a JSON array");
  } else if (c->depth == 1) {
    c->top_count++;
    if (c->kind == DDBST__JV_STRING_SET || c->kind == DDBST__JV_NUMBER_SET)
      return chk_fail(c, "a set holds only scalars");
  }
  /* DynamoDB nests documents at most 32 levels deep. */
  if (++c->depth > 32) return chk_fail(c, "nested deeper than 32 levels");
  return 1;
}
static int chk_start_map(void *ctx) { return chk_open(ctx, 1); }
static int chk_start_array(void *ctx) { return chk_open(ctx, 0); }
static int chk_key(void *ctx, const unsigned char *k, size_t n) {
  checker *c = ctx;
  if (memchr(k, '\0', n)) return chk_fail(c, "names may not hold NUL");
  return 1;
}
static int chk_end(void *ctx) {
  ((checker *)ctx)->depth--;
  return 1;
}

static const yajl_callbacks check_callbacks = {
    chk_null, chk_bool, NULL, NULL, chk_number, chk_string,
    chk_start_map, chk_key, chk_end, chk_start_array, chk_end,
};

int ddbst__json_validate(const ddbst_allocator *alloc, const char *json,
                         size_t len, ddbst__jvkind kind, char *why,
                         size_t why_cap) {
  checker c = {kind, 0, 0, why, why_cap};
  why[0] = '\0';
  yajl_alloc_funcs af = {y_malloc, y_realloc, y_free, (void *)alloc};
  yajl_handle h = yajl_alloc(&check_callbacks, &af, &c);
  if (!h) return DDBST_ENOMEM;
  yajl_status st = yajl_parse(h, (const unsigned char *)json, len);
  if (st == yajl_status_ok) st = yajl_complete_parse(h);
  int rc = 0;
  if (st == yajl_status_client_canceled) {
    rc = DDBST_EVALUE;
  } else if (st != yajl_status_ok) {
    rc = DDBST_EVALUE;
    syntax_message(h, json, len, why, why_cap);
  } else if ((kind == DDBST__JV_STRING_SET || kind == DDBST__JV_NUMBER_SET) &&
             c.top_count == 0) {
    rc = DDBST_EVALUE;
    snprintf(why, why_cap, "DynamoDB refuses empty sets");
  }
  yajl_free(h);
  return rc;
}
