/* A list, map or set attribute's value given as plain JSON ([1, "a"])
 * converted to DynamoDB's AttributeValue JSON ({"L":[{"N":"1"},{"S":"a"}]}),
 * with DynamoDB's own refusals, by one pass of the streaming parser. */
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
   * records of [u32 n][the value's key][u32 n][the text as given] */
  ddbst_buf seen;
  ddbst__strset set;
  /* and each object's member names, keyed by the object's number */
  uint32_t objects, object_of[34];
  ddbst_buf scratch;
} converter;

static ddbst__strkey seen_key(const void *owner, uint32_t entry) {
  const converter *c = owner;
  uint32_t n;
  memcpy(&n, c->seen.data + entry, 4);
  return (ddbst__strkey){c->seen.data + entry + 4, n};
}

enum { SEEN_STRING, SEEN_NUMBER, SEEN_MEMBER };

/* Records a set's element by its value's key (its bytes, or for a number
 * its value: 1 and 1.0 are one), or an object's member by its name; 0 when
 * it is new, else refuses it. */
static int seen_before(converter *c, const char *key, size_t kn,
                       const char *text, size_t tn, int kind) {
  int number = kind == SEEN_NUMBER;
  if (ddbst__strset_reserve(&c->set, &c->out->alloc, c->set.count + 1, 16,
                            seen_key, c)) {
    c->nomem = 1;
    return 1;
  }
  ddbst__strslot *slot = ddbst__strset_find(&c->set, key, kn, seen_key, c);
  if (ddbst__strset_taken(&c->set, slot)) {
    uint32_t first_n;
    const char *first = c->seen.data + slot->entry + 4 + kn;
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
  uint32_t entry = (uint32_t)c->seen.len, k32 = (uint32_t)kn,
           t32 = (uint32_t)tn;
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
  ddbst_buf_reset(&c->scratch);
  if (ddbst__buf_append(&c->scratch, &object, 4) ||
      ddbst__buf_append(&c->scratch, k, n)) {
    c->nomem = 1;
    return 0;
  }
  if (seen_before(c, c->scratch.data, c->scratch.len, (const char *)k, n,
                  SEEN_MEMBER))
    return 0;
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
