/* The streaming JSON parser (parse.h) → a ddbst__jnode tree in an arena. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "json/parse.h"
#include "json/tree.h"

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
  const ddbst__json_run *run; /* for the offset of each value */
  frame stack[MAX_DEPTH];
  int depth;
  ddbst__jnode *root;
  int error; /* our own refusal, reported with `why` */
  const char *why;
} builder;

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
  n->offset = ddbst__json_offset(b->run);
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
};

int ddbst__jtree_parse(ddbst__arena *ar, const char *json, size_t len,
                       ddbst__jnode **root, ddbst_error *err) {
  builder b;
  memset(&b, 0, sizeof b);
  b.ar = ar;
  b.alloc = ar->alloc;
  char msg[160] = "";
  ddbst__json_run r;
  b.run = &r;
  int rc = ddbst__json_parse(&r, &callbacks, &b, json, len, ar->alloc, NULL);
  if (rc == 0 && r.status != DDBST__JSON_OK) {
    if (b.error) {
      rc = b.error;
      snprintf(msg, sizeof msg, "%s", b.why);
    } else {
      rc = DDBST_ESYNTAX;
      snprintf(msg, sizeof msg, "%s", r.msg);
    }
  }
  if (rc == DDBST_ENOMEM) {
    ddbst__fail(err, rc, NULL, "out of memory");
  } else if (rc) {
    unsigned line, col;
    ddbst__text_position(json, len, r.at, &line, &col);
    ddbst__fail(err, rc, NULL, "%s (line %u, column %u)", msg, line, col);
    if (err) {
      err->offset = r.at;
      err->line = line;
      err->column = col;
    }
  }
  while (b.depth > 0) release_frame(&b, &b.stack[--b.depth]);
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

/* ---- list, map and set values → DynamoDB AttributeValue JSON ---- */

/* Converting once, when a value is set, lets every request copy the typed
 * form instead of parsing JSON again on the hot path. */
typedef struct converter {
  ddbst__jvkind kind;
  ddbst_buf *out;
  int depth;
  int first[34];    /* per depth: no element written yet */
  int in_map[34];   /* per depth: the container is an object */
  size_t top_count; /* elements of the top-level array */
  int nomem;
  char *why;
  size_t why_cap;
} converter;

static int cv_fail(converter *c, const char *why) {
  snprintf(c->why, c->why_cap, "%s", why);
  return 0;
}

static int cv_put(converter *c, const char *s) {
  if (ddbst__buf_puts(c->out, s)) {
    c->nomem = 1;
    return 0;
  }
  return 1;
}

/* The separator before an element of the current container. */
static int cv_sep(converter *c) {
  if (c->depth == 0) return 1;
  if (c->in_map[c->depth]) return 1; /* the key wrote it */
  if (!c->first[c->depth] && !cv_put(c, ",")) return 0;
  c->first[c->depth] = 0;
  return 1;
}

static int is_set(const converter *c) {
  return c->kind == DDBST__JV_STRING_SET || c->kind == DDBST__JV_NUMBER_SET;
}

/* A scalar: at the top it is refused (the attribute wants a container); in a
 * set it is written bare, elsewhere as a typed AttributeValue. */
static int cv_scalar(converter *c, const char *type, const char *text,
                     size_t n, int quoted) {
  if (c->depth == 0)
    return cv_fail(c, c->kind == DDBST__JV_MAP ? "expected a JSON object"
                                               : "expected a JSON array");
  if (c->depth == 1) c->top_count++;
  if (!cv_sep(c)) return 0;
  int rc = 0;
  if (!(is_set(c) && c->depth == 1)) {
    rc = ddbst__buf_putc(c->out, '{');
    if (!rc) rc = ddbst__json_string(c->out, type, strlen(type));
    if (!rc) rc = ddbst__buf_putc(c->out, ':');
  }
  if (!rc)
    rc = quoted ? ddbst__json_string(c->out, text, n)
                : ddbst__buf_append(c->out, text, n);
  if (!rc && !(is_set(c) && c->depth == 1)) rc = ddbst__buf_putc(c->out, '}');
  if (rc) c->nomem = 1;
  return !rc;
}

static int cv_null(void *ctx) {
  converter *c = ctx;
  if (is_set(c) && c->depth == 1)
    return cv_fail(c, "a set holds no nulls");
  return cv_scalar(c, "NULL", "true", 4, 0);
}
static int cv_bool(void *ctx, int v) {
  converter *c = ctx;
  if (is_set(c) && c->depth == 1)
    return cv_fail(c, "a set holds no booleans");
  return cv_scalar(c, "BOOL", v ? "true" : "false", v ? 4 : 5, 0);
}
static int cv_number(void *ctx, const char *s, size_t n) {
  converter *c = ctx;
  const char *bad = ddbst__number_check(s, n);
  if (bad) return cv_fail(c, bad);
  if (c->kind == DDBST__JV_STRING_SET && c->depth == 1)
    return cv_fail(c, "a string set holds only strings");
  return cv_scalar(c, "N", s, n, 1);
}
static int cv_string(void *ctx, const unsigned char *s, size_t n) {
  converter *c = ctx;
  if (memchr(s, '\0', n)) return cv_fail(c, "strings may not hold NUL");
  if (c->kind == DDBST__JV_NUMBER_SET && c->depth == 1)
    return cv_fail(c, "a number set holds only numbers");
  return cv_scalar(c, "S", (const char *)s, n, 1);
}

static int cv_open(converter *c, int is_map) {
  if (c->depth == 0) {
    int want_map = c->kind == DDBST__JV_MAP;
    if (is_map != want_map)
      return cv_fail(c, want_map ? "expected a JSON object"
                                 : "expected a JSON array");
    const char *head = c->kind == DDBST__JV_MAP          ? "{\"M\":{"
                       : c->kind == DDBST__JV_LIST        ? "{\"L\":["
                       : c->kind == DDBST__JV_STRING_SET  ? "{\"SS\":["
                                                          : "{\"NS\":[";
    if (!cv_put(c, head)) return 0;
  } else {
    if (is_set(c)) return cv_fail(c, "a set holds only scalars");
    if (c->depth == 1) c->top_count++;
    /* DynamoDB nests documents at most 32 levels deep. */
    if (c->depth >= 32) return cv_fail(c, "nested deeper than 32 levels");
    if (!cv_sep(c)) return 0;
    if (!cv_put(c, is_map ? "{\"M\":{" : "{\"L\":[")) return 0;
  }
  c->depth++;
  c->first[c->depth] = 1;
  c->in_map[c->depth] = is_map;
  return 1;
}
static int cv_start_map(void *ctx) { return cv_open(ctx, 1); }
static int cv_start_array(void *ctx) { return cv_open(ctx, 0); }
static int cv_key(void *ctx, const unsigned char *k, size_t n) {
  converter *c = ctx;
  if (memchr(k, '\0', n)) return cv_fail(c, "names may not hold NUL");
  if (!c->first[c->depth] && !cv_put(c, ",")) return 0;
  c->first[c->depth] = 0;
  if (ddbst__json_string(c->out, (const char *)k, n) ||
      ddbst__buf_putc(c->out, ':')) {
    c->nomem = 1;
    return 0;
  }
  return 1;
}
static int cv_end(void *ctx) {
  converter *c = ctx;
  int was_map = c->in_map[c->depth];
  c->depth--;
  return cv_put(c, was_map ? "}}" : "]}");
}

static const ddbst__json_callbacks convert_callbacks = {
    .on_null = cv_null,
    .on_bool = cv_bool,
    .on_number = cv_number,
    .on_string = cv_string,
    .on_start_map = cv_start_map,
    .on_key = cv_key,
    .on_end_map = cv_end,
    .on_start_array = cv_start_array,
    .on_end_array = cv_end,
};

int ddbst__json_to_attribute_value(const char *json, size_t len,
                                   ddbst__jvkind kind, ddbst_buf *out,
                                   char *why, size_t why_cap) {
  converter c;
  memset(&c, 0, sizeof c);
  c.kind = kind;
  c.out = out;
  c.why = why;
  c.why_cap = why_cap;
  why[0] = '\0';
  size_t start = out->len;
  ddbst__json_run r;
  int rc = ddbst__json_parse(&r, &convert_callbacks, &c, json, len,
                             &out->alloc, NULL);
  if (rc || c.nomem) {
    rc = DDBST_ENOMEM;
  } else if (r.status == DDBST__JSON_STOPPED) {
    rc = DDBST_EVALUE; /* `why` says what the converter refused */
  } else if (r.status != DDBST__JSON_OK) {
    rc = DDBST_EVALUE;
    snprintf(why, why_cap, "%s", r.msg);
  } else if (is_set(&c) && c.top_count == 0) {
    rc = DDBST_EVALUE;
    snprintf(why, why_cap, "DynamoDB refuses empty sets");
  }
  if (rc) ddbst__buf_truncate(out, start);
  return rc;
}
