/* Hostile input (issue 8): a catalogue, one table per kind of input, each
 * case with its exact code, path and a key phrase of its message. Values
 * come from end users, responses from the network, cursors from API clients,
 * model files from teammates: none of them may crash, leak, or turn into a
 * request that does something else. Run under ASan/UBSan and valgrind by
 * scripts/test like every unit test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "support.h"

#define NOW_US (INT64_C(1773478800) * 1000000)

static const uint8_t KEY_A[32] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};
static const uint8_t KEY_B[32] = {
    0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
    0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};

/* Every facet type in one key; `big`, `l`, `num` are plain attributes. */
static const char *THING_MODEL =
    "{\"ddbst\":1,"
    "\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\",\"sortKey\":\"SK\"},"
    "\"entities\":{\"Thing\":{"
    "\"attributes\":{\"s\":\"string\",\"low\":\"string\","
    "\"e\":{\"type\":\"enum\",\"values\":[\"a\",\"b\"]},\"u\":\"ulid\","
    "\"ts\":{\"type\":\"timestamp\",\"precision\":\"s\"},\"n\":\"integer\","
    "\"k\":\"string\",\"num\":\"number\",\"l\":\"list\",\"big\":\"string\"},"
    "\"key\":{\"pk\":\"T#{s}#{low:lower}\","
    "\"sk\":\"X#{e}#{u}#{ts}#{n}#{k}\"}}},"
    "\"patterns\":{\"getThing\":{\"get\":\"Thing\"}}}";

static ddbst_model *thing_model, *saas;

/* Where a case is checked: setting the value, or building the keys after. */
enum { AT_SET, AT_KEYS, AT_PUT };

typedef struct value_case {
  const char *name;
  const char *attr;
  const char *value; /* NULL: built by the case's own code (see below) */
  size_t len;        /* 0: strlen(value) */
  int at;
  int code;
  const char *path;
  const char *phrase;
} value_case;

static int print_mode;

static void check(const char *name, int rc, const ddbst_error *err, int code,
                  const char *path, const char *phrase) {
  if (print_mode) {
    printf("%-40s %d | %s | %s\n", name, rc, err->path, err->message);
    return;
  }
  if (rc != code)
    fail_msg("%s: wanted code %d, got %d (%s: %s)", name, code, rc, err->path,
             err->message);
  if (err->code != code)
    fail_msg("%s: err.code %d, returned %d", name, (int)err->code, code);
  if (strcmp(err->path, path))
    fail_msg("%s: wanted path \"%s\", got \"%s\" (%s)", name, path, err->path,
             err->message);
  if (!strstr(err->message, phrase))
    fail_msg("%s: wanted \"%s\" in the message \"%s\"", name, phrase,
             err->message);
}

static ddbst_item *thing(void) {
  int e = ddbst_model_entity(thing_model, "Thing");
  ddbst_item *it = ddbst_item_new(thing_model, e);
  assert_non_null(it);
  set(it, "s", "s1");
  set(it, "low", "l1");
  set(it, "e", "a");
  set(it, "u", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  set(it, "ts", "2026-03-14T09:00:00Z");
  set(it, "n", "7");
  set(it, "k", "k");
  return it;
}

static void run_value_case(const value_case *c, const char *value, size_t len) {
  ddbst_item *it = thing();
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int a = ddbst_model_attribute(thing_model, ddbst_item_entity(it), c->attr);
  assert_true(a >= 0);
  int rc = ddbst_item_set(it, a, value, len, &err);
  if (c->at != AT_SET && rc != 0)
    fail_msg("%s: the value should be accepted: %s: %s", c->name, err.path,
             err.message);
  if (c->at == AT_KEYS) {
    rc = ddbst_item_build_keys(it, &err);
  } else if (c->at == AT_PUT) {
    ddbst_buf *b = ddbst_buf_new(NULL);
    rc = ddbst_put_request(it, 0, NOW_US, b, &err);
    if (rc < 0 && !print_mode) assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
  }
  check(c->name, rc, &err, c->code, c->path, c->phrase);
  ddbst_item_free(it);
}

/* ---- values: key injection, bad text, numbers, nesting ---- */

static const value_case VALUES[] = {
    /* key injection through every facet type */
    {"string facet with #", "s", "a#b", 0, AT_KEYS, DDBST_EVALUE, "facet s",
     "would forge another key"},
    {"string facet that is only #", "k", "#", 0, AT_KEYS, DDBST_EVALUE,
     "facet k", "would forge another key"},
    {"lower-cased facet with #", "low", "A#B", 0, AT_KEYS, DDBST_EVALUE,
     "facet low", "would forge another key"},
    {"enum value with #", "e", "a#b", 0, AT_SET, DDBST_EVALUE, "Thing.e",
     "'a#b' is not one of the enum's values"},
    {"ulid with #", "u", "01ARZ3NDEKTSV4RRFFQ69G5F#V", 0, AT_SET,
     DDBST_EVALUE, "Thing.u", "not a ULID"},
    {"timestamp with #", "ts", "2026-03-14T09:00:00#Z", 0, AT_SET,
     DDBST_EVALUE, "Thing.ts", "not an ISO-8601 timestamp"},
    {"integer with #", "n", "1#2", 0, AT_SET, DDBST_EVALUE, "Thing.n", "not an integer"},
    {"empty string facet", "s", "", 0, AT_KEYS, DDBST_EVALUE, "facet s",
     "a key facet needs a value"},
    /* invalid UTF-8 and NUL bytes */
    {"invalid UTF-8 in a value", "s", "a\xff", 0, AT_SET, DDBST_EVALUE,
     "Thing.s", "invalid UTF-8: byte 0xF8-0xFF"},
    {"overlong UTF-8 encoding of #", "s", "a\xc0\xa3", 0, AT_SET,
     DDBST_EVALUE, "Thing.s", "invalid UTF-8: overlong encoding"},
    {"UTF-16 surrogate in a value", "s", "a\xed\xa0\x80", 0, AT_SET,
     DDBST_EVALUE, "Thing.s", "invalid UTF-8: surrogate"},
    {"truncated UTF-8 sequence", "s", "a\xe2\x82", 0, AT_SET, DDBST_EVALUE,
     "Thing.s", "invalid UTF-8: truncated"},
    {"NUL byte in a value", "s", "a\0b", 3, AT_SET, DDBST_EVALUE, "Thing.s",
     "contains a NUL byte"},
    /* numbers DynamoDB refuses */
    {"39 significant digits", "num", "123456789012345678901234567890123456789",
     0, AT_SET, DDBST_EVALUE, "Thing.num", "more than 38 significant digits"},
    {"exponent too large", "num", "1e126", 0, AT_SET, DDBST_EVALUE,
     "Thing.num", "number too large"},
    {"exponent too small", "num", "1e-131", 0, AT_SET, DDBST_EVALUE,
     "Thing.num", "number too small"},
    {"NaN", "num", "NaN", 0, AT_SET, DDBST_EVALUE, "Thing.num",
     "NaN and Infinity are not allowed"},
    {"Infinity", "num", "Infinity", 0, AT_SET, DDBST_EVALUE, "Thing.num",
     "NaN and Infinity are not allowed"},
    {"1e", "num", "1e", 0, AT_SET, DDBST_EVALUE, "Thing.num",
     "exponent without digits"},
    {"leading +", "num", "+1", 0, AT_SET, DDBST_EVALUE, "Thing.num",
     "leading '+'"},
    {"integer past int64", "n", "9223372036854775808", 0, AT_SET,
     DDBST_EVALUE, "Thing.n", "integer out of 64-bit range"},
};

static void values(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof VALUES / sizeof *VALUES; i++) {
    const value_case *c = &VALUES[i];
    run_value_case(c, c->value, c->len ? c->len : strlen(c->value));
  }
}

/* n bytes of text of which as much as possible is 3-byte UTF-8 ("€"). */
static char *multibyte(size_t n) {
  char *s = malloc(n + 1);
  size_t i = 0;
  while (n - i >= 3) {
    memcpy(s + i, "\xe2\x82\xac", 3);
    i += 3;
  }
  while (i < n) s[i++] = 'x';
  s[n] = 0;
  return s;
}

/* The length of key `name` of `it` as built. */
static size_t key_len(ddbst_item *it, const char *name) {
  ddbst_error err;
  int n = ddbst_item_build_keys(it, &err);
  assert_true(n > 0);
  for (int i = 0; i < n; i++) {
    const char *kn, *kv;
    size_t kl;
    assert_int_equal(ddbst_item_key(it, i, &kn, &kv, &kl), 0);
    if (!strcmp(kn, name)) return kl;
  }
  fail_msg("no key %s", name);
  return 0;
}

static void overlong_keys(void **state) {
  (void)state;
  ddbst_item *it = thing();
  /* "T#" s "#" low, "X#a#<ulid>#<ts>#7#" k */
  size_t pk_fixed = key_len(it, "PK") - strlen("s1");
  size_t sk_fixed = key_len(it, "SK") - strlen("k");
  ddbst_item_free(it);
  struct {
    const char *name, *attr, *key;
    size_t fixed, total;
    int multi, code;
  } cases[] = {
      {"PK of 2048 bytes", "s", "PK", pk_fixed, 2048, 0, 0},
      {"PK of 2049 bytes", "s", "PK", pk_fixed, 2049, 0, DDBST_ERANGE},
      {"PK of 2049 bytes, multi-byte", "s", "PK", pk_fixed, 2049, 1,
       DDBST_ERANGE},
      {"SK of 1024 bytes", "k", "SK", sk_fixed, 1024, 0, 0},
      {"SK of 1025 bytes", "k", "SK", sk_fixed, 1025, 0, DDBST_ERANGE},
      {"SK of 1025 bytes, multi-byte", "k", "SK", sk_fixed, 1025, 1,
       DDBST_ERANGE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    size_t n = cases[i].total - cases[i].fixed;
    char *v = multibyte(n);
    if (!cases[i].multi) memset(v, 'x', n);
    value_case c = {cases[i].name, cases[i].attr, NULL, n, AT_KEYS,
                    cases[i].code,
                    cases[i].code ? cases[i].key : "",
                    cases[i].code ? "DynamoDB allows" : ""};
    if (cases[i].code == 0) {
      ddbst_item *ok = thing();
      set(ok, cases[i].attr, v);
      if (!print_mode) assert_int_equal(key_len(ok, cases[i].key),
                                        cases[i].total);
      ddbst_item_free(ok);
    } else {
      run_value_case(&c, v, n);
    }
    free(v);
  }
}

static char *nested(int depth) {
  char *s = malloc((size_t)depth * 2 + 1);
  for (int i = 0; i < depth; i++) {
    s[i] = '[';
    s[depth * 2 - 1 - i] = ']';
  }
  s[depth * 2] = 0;
  return s;
}

static void deep_and_large(void **state) {
  (void)state;
  char *deep = nested(33);
  value_case c = {"list nested 33 levels", "l", NULL, 0, AT_SET, DDBST_EVALUE,
                  "Thing.l", "nested deeper than 32 levels"};
  run_value_case(&c, deep, strlen(deep));
  free(deep);
  /* 32 levels is the limit, and it holds */
  deep = nested(32);
  ddbst_item *it = thing();
  set(it, "l", deep);
  ddbst_item_free(it);
  free(deep);

  size_t n = 500 * 1024;
  char *big = malloc(n + 1);
  memset(big, 'b', n);
  big[n] = 0;
  value_case large = {"500 KB string, put", "big", NULL, 0, AT_PUT,
                      DDBST_ERANGE, "Thing",
                      "DynamoDB stores at most 409600 per item"};
  run_value_case(&large, big, n);
  free(big);
}

/* ---- responses for ddbst_page_parse ---- */

typedef struct page_case {
  const char *name;
  int op;
  const char *json;
  int code;
  const char *path;
  const char *phrase;
} page_case;

#define USER_KEYS                                                              \
  "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"     \
  "\"User\"}"

static const page_case PAGES[] = {
    {"an N that is not a number", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"orgId\":{\"N\":\"12abc\"}}],\"Count\":1}",
     DDBST_EVALUE, "Items[0].orgId.N", "not a number"},
    {"Items that is not a list", DDBST_OP_QUERY,
     "{\"Items\":{\"a\":1},\"Count\":1}", DDBST_EVALUE, "Items",
     "expected a list of items, found an object"},
    {"Items missing", DDBST_OP_QUERY, "{\"Count\":0}", DDBST_EVALUE, "Items",
     "not the answer to the operation given"},
    {"truncated JSON", DDBST_OP_QUERY,
     "{\"Items\":[{\"role\":{\"S\":\"adm", DDBST_ESYNTAX, "", "premature EOF"},
    {"not JSON", DDBST_OP_QUERY, "<html>502</html>", DDBST_ESYNTAX, "",
     "invalid char in json text"},
    {"unknown entity", DDBST_OP_QUERY,
     "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},"
     "\"_type\":{\"S\":\"Ghost\"}}]}",
     DDBST_ENOTFOUND, "Items[0]", "_type \"Ghost\" is no entity of the model"},
    {"key of no entity", DDBST_OP_QUERY,
     "{\"Items\":[{\"PK\":{\"S\":\"NOPE#1\"},\"SK\":{\"S\":\"NOPE#2\"}}]}",
     DDBST_ENOTFOUND, "Items[0]", "matches no entity's key templates"},
    {"unknown type", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"X\":\"a\"}}]}", DDBST_EVALUE,
     "Items[0].name", "is not an AttributeValue type"},
    {"empty set", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"SS\":[]}}]}", DDBST_EVALUE,
     "Items[0].name.SS", "a set is never empty"},
    {"attribute twice", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"a\"},"
     "\"name\":{\"S\":\"b\"}}]}",
     DDBST_EVALUE, "Items[0].name", "appears twice in one item"},
    {"NUL in a string", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"a\\u0000b\"}}]}",
     DDBST_EVALUE, "Items[0].name.S", "a string holds a NUL character"},
    {"NUL in an attribute name", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"na\\u0000me\":{\"S\":\"a\"}}]}",
     DDBST_EVALUE, "Items[0]", "an attribute name holds a NUL character"},
    {"invalid UTF-8 in a name", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"na\xffme\":{\"S\":\"a\"}}]}",
     DDBST_ESYNTAX, "Items[0]",
     "a member name: invalid UTF-8: byte 0xF8-0xFF never occurs"},
    {"invalid UTF-8 in a value", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"a\xc3\"}}]}",
     DDBST_ESYNTAX, "Items[0].name.S",
     "invalid UTF-8: truncated multi-byte sequence"},
    {"Item that is a string", DDBST_OP_GET_ITEM, "{\"Item\":\"x\"}",
     DDBST_EVALUE, "Item", "expected an item (a JSON object), found a string"},
    {"S that is a number", DDBST_OP_QUERY,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":5}}]}", DDBST_EVALUE,
     "Items[0].name.S", "expected a string"},
    {"op without items", DDBST_OP_CREATE_TABLE, "{}", DDBST_EINVAL, "op",
     "CreateTable answers hold no items"},
};

static void page_case_run(const page_case *c, const char *json, size_t len) {
  ddbst_page *p = ddbst_page_new(saas);
  assert_non_null(p);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_page_parse(p, c->op, json, len, &err);
  check(c->name, rc, &err, c->code, c->path, c->phrase);
  if (!print_mode && rc == DDBST_ESYNTAX) {
    assert_int_equal(err.line, 1);
    assert_true(err.column > 0);
  }
  if (!print_mode) {
    assert_int_equal(ddbst_page_count(p), 0);
    assert_int_equal(ddbst_page_has_more(p), 0);
  }
  ddbst_page_free(p);
}

static void pages(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++)
    page_case_run(&PAGES[i], PAGES[i].json, strlen(PAGES[i].json));
  /* nested past 32 levels of L */
  char json[1024] = "{\"Items\":[{" USER_KEYS ",\"name\":";
  for (int i = 0; i < 33; i++) strcat(json, "{\"L\":[");
  strcat(json, "{\"S\":\"x\"}");
  for (int i = 0; i < 33; i++) strcat(json, "]}");
  strcat(json, "}]}");
  char path[256] = "Items[0].name";
  for (int i = 0; i < 32; i++) strcat(path, ".L[0]");
  strcat(path, ".L");
  page_case deep = {"nested 33 levels", DDBST_OP_QUERY, NULL, DDBST_EVALUE,
                    path, "nested deeper than DynamoDB's 32 levels"};
  page_case_run(&deep, json, strlen(json));
}

/* ---- cursors from API clients ---- */

static ddbst_buf *sealed_cursor_at(ddbst_cursor_keys *keys, int64_t now_us) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/responses/local-query-users-page1.json",
           DDBST_SOURCE_DIR);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char json[8192];
  size_t len = fread(json, 1, sizeof json, f);
  fclose(f);
  ddbst_page *p = ddbst_page_new(saas);
  ddbst_error err;
  ddbst_item *v = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  set(v, "orgId", "1");
  assert_int_equal(ddbst_page_parse_query(p, v,
                                          ddbst_model_pattern(saas, "listUsers"),
                                          json, len, &err),
                   1);
  ddbst_buf *c = ddbst_buf_new(NULL);
  int rc = ddbst_page_next_cursor(p, keys, now_us, c, &err);
  if (rc != 1) fail_msg("cursor: %s: %s", err.path, err.message);
  ddbst_item_free(v);
  ddbst_page_free(p);
  return c;
}

static ddbst_buf *sealed_cursor(ddbst_cursor_keys *keys) {
  return sealed_cursor_at(keys, NOW_US);
}

static int query_with(const char *org, const char *pattern, const char *cursor,
                      size_t len, const ddbst_cursor_keys *keys,
                      ddbst_error *err) {
  ddbst_item *v = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  set(v, "orgId", org);
  set(v, "email", "ann@x.com"); /* for userByEmail */
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = cursor;
  q.cursor_len = len;
  q.cursor_keys = keys;
  q.now_unix_us = NOW_US;
  ddbst_buf *out = ddbst_buf_new(NULL);
  memset(err, 0, sizeof *err);
  int rc = ddbst_query_request(v, ddbst_model_pattern(saas, pattern), &q, out,
                               err);
  if (rc < 0 && !print_mode) assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_buf_free(out);
  ddbst_item_free(v);
  return rc;
}

static void cursors(void **state) {
  (void)state;
  ddbst_cursor_keys *ring = ddbst_cursor_keys_new(NULL), *other =
      ddbst_cursor_keys_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_cursor_keys_add(ring, KEY_A, &err), 0);
  assert_int_equal(ddbst_cursor_keys_add(other, KEY_B, &err), 0);
  ddbst_buf *cb = sealed_cursor(ring);
  const char *c = ddbst_buf_data(cb);
  size_t n = ddbst_buf_len(cb);
  assert_true(n > 20);

  /* the genuine cursor, replayed on its own query, opens (twice: a cursor
   * is not single-use, replay on the same query is by design) */
  assert_int_equal(query_with("1", "listUsers", c, n, ring, &err),
                   DDBST_OP_QUERY);
  assert_int_equal(query_with("1", "listUsers", c, n, ring, &err),
                   DDBST_OP_QUERY);

  const char *no_open = "does not open";
  /* cross-tenant: replayed on another org's query */
  check("cursor replayed on another org",
        query_with("2", "listUsers", c, n, ring, &err), &err, DDBST_ECURSOR,
        "cursor", no_open);
  /* replayed on another pattern */
  check("cursor replayed on another pattern",
        query_with("1", "userByEmail", c, n, ring, &err), &err,
        DDBST_ECURSOR, "cursor", no_open);
  /* another service's key */
  check("cursor opened with another key",
        query_with("1", "listUsers", c, n, other, &err), &err, DDBST_ECURSOR,
        "cursor", "sealed with a key this service no longer has");
  /* truncated: by one byte, by half, to one byte */
  /* one character less either leaves a partial byte or decodes to one
   * byte short, which the tag then refuses: both are refusals */
  check("cursor truncated by one byte",
        query_with("1", "listUsers", c, n - 1, ring, &err), &err,
        DDBST_ECURSOR, "cursor", "does not");
  /* half: a partial byte or too short an envelope, by the length */
  check("cursor truncated to half",
        query_with("1", "listUsers", c, n / 2, ring, &err), &err,
        DDBST_ECURSOR, "cursor", "");
  check("cursor of one byte", query_with("1", "listUsers", c, 1, ring, &err),
        &err, DDBST_ECURSOR, "cursor", "does not end on a whole byte");
  /* altered: every position flipped to another base64url character */
  char *alt = malloc(n + 1);
  for (size_t i = 0; i < n; i++) {
    memcpy(alt, c, n + 1);
    alt[i] = alt[i] == 'A' ? 'B' : 'A';
    int rc = query_with("1", "listUsers", alt, n, ring, &err);
    if (print_mode && i) continue;
    /* the last character's unused bits included: it never opens */
    check("cursor with one character altered", rc, &err, DDBST_ECURSOR,
          "cursor", "");
  }
  /* forged: characters outside base64url, a cursor of the right length made
   * up, and one with garbage appended */
  memset(alt, '!', n);
  check("cursor of non-base64url characters",
        query_with("1", "listUsers", alt, n, ring, &err), &err, DDBST_ECURSOR,
        "cursor", "is not one of A-Z a-z 0-9 - _");
  memset(alt, 'A', n);
  check("cursor made up", query_with("1", "listUsers", alt, n, ring, &err),
        &err, DDBST_ECURSOR, "cursor", "and ddbst makes and reads format 1");
  /* text that is no cursor at all says so first */
  static const char *const not_cursors[] = {"abcdefgh", "hello", "null",
                                            "eyJQSyI6IngifQ", "page-2"};
  for (size_t i = 0; i < sizeof not_cursors / sizeof *not_cursors; i++)
    check("a string that is not a cursor",
          query_with("1", "listUsers", not_cursors[i],
                     strlen(not_cursors[i]), ring, &err),
          &err, DDBST_ECURSOR, "cursor", "not a ddbst cursor");
  /* expired: an hour's maximum age, a cursor made two hours before */
  ddbst_cursor_keys *aged = ddbst_cursor_keys_new(NULL);
  assert_int_equal(ddbst_cursor_keys_add(aged, KEY_A, &err), 0);
  ddbst_cursor_keys_set_max_age(aged, 3600);
  ddbst_buf *old_cb = sealed_cursor_at(aged, NOW_US - INT64_C(7200000000));
  check("a cursor past its maximum age",
        query_with("1", "listUsers", ddbst_buf_data(old_cb),
                   ddbst_buf_len(old_cb), aged, &err),
        &err, DDBST_ECURSOR, "cursor",
        "the cursor expired: issued 7200 s ago, and cursors older than 3600 s "
        "are refused");
  ddbst_buf_free(old_cb);
  ddbst_cursor_keys_free(aged);
  free(alt);
  alt = malloc(n + 5);
  memcpy(alt, c, n);
  memcpy(alt + n, "AAAA", 5);
  check("cursor with bytes appended",
        query_with("1", "listUsers", alt, n + 4, ring, &err), &err,
        DDBST_ECURSOR, "cursor", no_open);
  free(alt);
  /* a sealed cursor with no keys is a configuration error */
  check("sealed cursor without keys",
        query_with("1", "listUsers", c, n, NULL, &err), &err, DDBST_EINVAL,
        "cursor_keys", "no cursor keys were given");

  ddbst_buf_free(cb);
  ddbst_cursor_keys_free(other);
  ddbst_cursor_keys_free(ring);
}

/* ---- model files ---- */

typedef struct collected {
  int count;
  int bad;
  char paths[64][DDBST_ERROR_PATH_MAX];
} collected;

static void on_error(void *user, const ddbst_error *err) {
  collected *c = user;
  c->count++;
  if (print_mode) printf("  model error %d | %s | %s\n", err->code, err->path,
                         err->message);
  if (err->code != DDBST_EMODEL || !err->message[0]) c->bad++;
  if (c->count <= 64) strcpy(c->paths[c->count - 1], err->path);
}

static const char *WRONG_MODEL =
    "{\"ddbst\":2,"
    "\"table\":{\"name\":5,\"partitionKey\":[],\"sortKey\":{},"
    "\"indexes\":7,\"entityAttribute\":true,\"ttlAttribute\":1,"
    "\"stream\":\"SOMETIMES\",\"cursors\":\"maybe\",\"bogus\":1},"
    "\"entities\":{"
    "\"A\":{\"attributes\":{\"x\":\"nosuchtype\","
    "\"y\":{\"type\":\"enum\"},\"z\":{\"type\":\"timestamp\","
    "\"precision\":\"fortnight\"},\"w\":{\"type\":\"string\","
    "\"default\":5}},"
    "\"key\":{\"pk\":\"A#{nope}\",\"sk\":5},"
    "\"indexes\":{\"GSI9\":{\"pk\":\"{x:upper}\"}},"
    "\"unique\":{\"q\":\"Q#{q}\"}},"
    "\"B\":5},"
    "\"patterns\":{\"p\":{\"get\":\"Nope\"},"
    "\"q\":{\"query\":\"A\",\"index\":\"GSI9\","
    "\"limit\":{\"default\":-1,\"max\":\"x\"}},\"r\":7},"
    "\"extra\":true}";

static void wrong_model(void **state) {
  (void)state;
  static collected c;
  memset(&c, 0, sizeof c);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.on_error = on_error;
  o.on_error_user = &c;
  ddbst_model *m = (ddbst_model *)&c;
  ddbst_error err;
  int rc = ddbst_model_load(WRONG_MODEL, strlen(WRONG_MODEL), &o, &m, &err);
  if (print_mode) {
    printf("wrong model: %d errors, rc %d | %s | %s\n", c.count, rc, err.path,
           err.message);
    return;
  }
  assert_int_equal(rc, DDBST_EMODEL);
  assert_null(m);
  assert_int_equal(c.bad, 0);
  /* every field wrong, each reported once with its path; the undeclared
   * GSI9 once, where it is first named (the pattern that queries it too is
   * the same mistake) */
  assert_int_equal(c.count, 24);
  static const char *const want[] = {
      "ddbst", "table.name", "table.partitionKey", "table.sortKey",
      "table.indexes", "table.entityAttribute", "table.ttlAttribute",
      "table.stream", "table.cursors", "table.bogus",
      "entities.A.attributes.x", "entities.A.attributes.y.values",
      "entities.A.attributes.z.precision", "entities.A.attributes.w.default",
      "entities.A.key.pk", "entities.A.key.sk", "entities.A.indexes.GSI9",
      "entities.A.unique.q", "entities.B", "patterns.p.get",
      "patterns.q.limit.default", "patterns.q.limit.max", "patterns.r",
      "extra"};
  assert_int_equal(sizeof want / sizeof *want, 24);
  for (size_t i = 0; i < 24; i++) {
    int found = 0;
    for (int k = 0; k < c.count; k++) found += !strcmp(c.paths[k], want[i]);
    if (found != 1) fail_msg("%s reported %d times", want[i], found);
  }
  assert_int_equal(err.code, DDBST_EMODEL);
  assert_true(err.message[0] != 0);
  /* ddbst.h (ddbst_error_fn): each object's unknown fields come first, so
   * the root's unknown "extra" is the first problem reported */
  assert_string_equal(err.path, "extra");
}

/* Names in model files: invalid UTF-8, NUL. */
static void model_names(void **state) {
  (void)state;
  struct {
    const char *name, *json;
    int code;
    const char *path, *phrase;
  } cases[] = {
      {"attribute name with invalid UTF-8",
       "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\"},"
       "\"entities\":{\"A\":{\"attributes\":{\"i\xff\":\"string\"},"
       "\"key\":{\"pk\":\"A#{i}\"}}},\"patterns\":{}}",
       DDBST_ESYNTAX, "entities.A.attributes",
       "a member name: invalid UTF-8: byte 0xF8-0xFF never occurs"},
      {"attribute name with NUL",
       "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\"},"
       "\"entities\":{\"A\":{\"attributes\":{\"i\\u0000d\":\"string\"},"
       "\"key\":{\"pk\":\"A#{i}\"}}},\"patterns\":{}}",
       DDBST_ESYNTAX, "entities.A.attributes",
       "a member name contains a NUL byte"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ddbst_model *m = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst_model_load(cases[i].json, strlen(cases[i].json), NULL, &m,
                              &err);
    check(cases[i].name, rc, &err, cases[i].code, cases[i].path,
          cases[i].phrase);
    ddbst_model_free(m);
  }

  /* An enum may list a value holding the delimiter (it loads; only keys
   * need to be free of it): used as a facet, the key is still refused. */
  const char *enum_key =
      "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\"},"
      "\"entities\":{\"A\":{\"attributes\":{\"e\":{\"type\":\"enum\","
      "\"values\":[\"a#b\",\"c\"]}},\"key\":{\"pk\":\"A#{e}\"}}},"
      "\"patterns\":{\"g\":{\"get\":\"A\"}}}";
  ddbst_model *m = load_text(enum_key);
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "e", "a#b");
  ddbst_error err;
  memset(&err, 0, sizeof err);
  check("enum value with # in a key", ddbst_item_build_keys(it, &err), &err,
        DDBST_EVALUE, "facet e", "would forge another key");
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static int setup(void **state) {
  (void)state;
  if (sodium_init() < 0) return -1;
  print_mode = getenv("DDBST_HOSTILE_PRINT") != NULL;
  thing_model = load_text(THING_MODEL);
  saas = load_example("examples/saas/model.json");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(saas);
  ddbst_model_free(thing_model);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(values),      cmocka_unit_test(overlong_keys),
      cmocka_unit_test(deep_and_large), cmocka_unit_test(pages),
      cmocka_unit_test(cursors),     cmocka_unit_test(wrong_model),
      cmocka_unit_test(model_names),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
