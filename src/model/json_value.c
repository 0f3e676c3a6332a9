/* A list, map or set attribute's value given as plain JSON ([1, "a"])
 * converted to DynamoDB's AttributeValue JSON ({"L":[{"N":"1"},{"S":"a"}]}),
 * with DynamoDB's own refusals, by one pass of the streaming parser. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "json/parse.h"
#include "model/facet.h"
#include "model/json_value.h"

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
  /* a set's elements so far, to refuse one given twice as DynamoDB does:
   * records of [u32 n][the value's key][u32 n][the text as given]. The
   * first few are kept in `local` and compared one by one, so that a small
   * value (the common one) is converted without allocating; past
   * LINEAR_MAX, or when `local` is full, they move to `seen` and are found
   * by hash. */
  uint32_t nseen;
  int hashed;
  ddbst_buf seen;
  ddbst__strset set;
  /* and each object's member names, keyed by the object's number */
  uint32_t objects, object_of[34];
  ddbst_buf scratch; /* a member's key when it does not fit on the stack */
  size_t local_len;
  char local[2048]; /* last: zeroed never, written before it is read */
} converter;

enum { LINEAR_MAX = 32 };

static const char *records(const converter *c) {
  return c->hashed ? c->seen.data : c->local;
}

static ddbst__strkey seen_key(const void *owner, uint32_t entry) {
  const converter *c = owner;
  uint32_t n;
  memcpy(&n, records(c) + entry, 4);
  return (ddbst__strkey){records(c) + entry + 4, n};
}

/* The record whose key is key[0..kn) among the local ones, or -1. */
static long local_find(const converter *c, const char *key, size_t kn) {
  size_t at = 0;
  for (uint32_t i = 0; i < c->nseen; i++) {
    uint32_t n, tn;
    memcpy(&n, c->local + at, 4);
    if (n == kn && memcmp(c->local + at + 4, key, kn) == 0) return (long)at;
    memcpy(&tn, c->local + at + 4 + n, 4);
    at += 8 + (size_t)n + tn;
  }
  return -1;
}

/* The local records into `seen`, each put in the hash set; 1 when out of
 * memory. */
static int spill(converter *c) {
  if (ddbst__buf_append(&c->seen, c->local, c->local_len) ||
      ddbst__strset_reserve(&c->set, &c->out->alloc, c->nseen + 1, 16,
                            seen_key, c))
    return 1;
  c->hashed = 1;
  size_t at = 0;
  for (uint32_t i = 0; i < c->nseen; i++) {
    ddbst__strkey k = seen_key(c, (uint32_t)at);
    ddbst__strset_put(&c->set,
                      ddbst__strset_find(&c->set, k.s, k.n, seen_key, c),
                      (uint32_t)at);
    uint32_t tn;
    memcpy(&tn, c->local + at + 4 + k.n, 4);
    at += 8 + k.n + tn;
  }
  return 0;
}

enum { SEEN_STRING, SEEN_NUMBER, SEEN_MEMBER };

/* Records a set's element by its value's key (its bytes, or for a number
 * its value: 1 and 1.0 are one), or an object's member by its name; 0 when
 * it is new, else refuses it. */
static int seen_before(converter *c, const char *key, size_t kn,
                       const char *text, size_t tn, int kind) {
  int number = kind == SEEN_NUMBER;
  size_t size = 8 + kn + tn;
  if (!c->hashed && (c->nseen == LINEAR_MAX ||
                     size > sizeof c->local - c->local_len) &&
      spill(c)) {
    c->nomem = 1;
    return 1;
  }
  ddbst__strslot *slot = NULL;
  long found = -1;
  if (c->hashed) {
    if (ddbst__strset_reserve(&c->set, &c->out->alloc, c->set.count + 1, 16,
                              seen_key, c)) {
      c->nomem = 1;
      return 1;
    }
    slot = ddbst__strset_find(&c->set, key, kn, seen_key, c);
    if (ddbst__strset_taken(&c->set, slot)) found = slot->entry;
  } else {
    found = local_find(c, key, kn);
  }
  if (found >= 0) {
    uint32_t first_n;
    const char *first = records(c) + found + 4 + kn;
    memcpy(&first_n, first, 4);
    first += 4;
    int shown = tn > 60 ? 60 : (int)tn, fshown = first_n > 60 ? 60 : (int)first_n;
    if (kind == SEEN_MEMBER)
      snprintf(c->why, c->why_cap,
               "\"%.*s%s\" is given twice in one object: a map holds one "
               "value per name",
               shown, text, tn > 60 ? "..." : "");
    else if (number && (first_n != tn || memcmp(first, text, tn)))
      snprintf(c->why, c->why_cap,
               "%.*s and %.*s are one number, given twice in the set: "
               "DynamoDB refuses a set with duplicate elements",
               fshown, first, shown, text);
    else
      snprintf(c->why, c->why_cap,
               "%s%.*s%s%s is given twice in the set: DynamoDB refuses a set "
               "with duplicate elements",
               number ? "" : "\"", shown, text, tn > 60 ? "..." : "",
               number ? "" : "\"");
    return 1;
  }
  uint32_t k32 = (uint32_t)kn, t32 = (uint32_t)tn;
  c->nseen++;
  if (!c->hashed) {
    char *d = c->local + c->local_len;
    memcpy(d, &k32, 4);
    memcpy(d + 4, key, kn);
    memcpy(d + 4 + kn, &t32, 4);
    memcpy(d + 8 + kn, text, tn);
    c->local_len += size;
    return 0;
  }
  uint32_t entry = (uint32_t)c->seen.len;
  if (ddbst__buf_append(&c->seen, &k32, 4) ||
      ddbst__buf_append(&c->seen, key, kn) ||
      ddbst__buf_append(&c->seen, &t32, 4) ||
      ddbst__buf_append(&c->seen, text, tn)) {
    c->nomem = 1;
    return 1;
  }
  ddbst__strset_put(&c->set, slot, entry);
  return 0;
}

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
  if (c->kind == DDBST__JV_NUMBER_SET && c->depth == 1) {
    char key[DDBST__NUMBER_KEY_MAX];
    if (seen_before(c, key, ddbst__number_key(s, n, key), s, n, SEEN_NUMBER))
      return 0;
  }
  return cv_scalar(c, "N", s, n, 1);
}
static int cv_string(void *ctx, const unsigned char *s, size_t n) {
  converter *c = ctx;
  if (memchr(s, '\0', n)) return cv_fail(c, "strings may not hold NUL");
  if (c->kind == DDBST__JV_NUMBER_SET && c->depth == 1)
    return cv_fail(c, "a number set holds only numbers");
  if (c->kind == DDBST__JV_STRING_SET && c->depth == 1 &&
      seen_before(c, (const char *)s, n, (const char *)s, n, SEEN_STRING))
    return 0;
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
  c->object_of[c->depth] = is_map ? ++c->objects : 0;
  return 1;
}
static int cv_start_map(void *ctx) { return cv_open(ctx, 1); }
static int cv_start_array(void *ctx) { return cv_open(ctx, 0); }
static int cv_key(void *ctx, const unsigned char *k, size_t n) {
  converter *c = ctx;
  if (memchr(k, '\0', n)) return cv_fail(c, "names may not hold NUL");
  uint32_t object = c->object_of[c->depth];
  char small[4 + 124];
  char *key = small;
  if (4 + n > sizeof small) {
    ddbst_buf_reset(&c->scratch);
    if (ddbst__buf_reserve(&c->scratch, 4 + n)) {
      c->nomem = 1;
      return 0;
    }
    key = c->scratch.data;
  }
  memcpy(key, &object, 4);
  memcpy(key + 4, k, n);
  if (seen_before(c, key, 4 + n, (const char *)k, n, SEEN_MEMBER)) return 0;
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
  memset(&c, 0, offsetof(converter, local_len));
  c.local_len = 0;
  c.kind = kind;
  c.out = out;
  c.why = why;
  c.why_cap = why_cap;
  ddbst__buf_init(&c.seen, &out->alloc);
  ddbst__buf_init(&c.scratch, &out->alloc);
  ddbst__strset_init(&c.set);
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
  ddbst__strset_release(&c.set, &out->alloc);
  ddbst__buf_release(&c.seen);
  ddbst__buf_release(&c.scratch);
  if (rc) ddbst__buf_truncate(out, start);
  return rc;
}
