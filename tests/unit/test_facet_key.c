/* The one facet renderer (src/item/facet_key.c): the exact key form of each
 * attribute type and modifier, its reverse refusing every text it does not
 * make, and the consumers that must agree with it (sort-key bounds on a
 * lower-cased facet, keys read back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "item/facet_key.h"
#include "support.h"

/* Delimiter '/': its escape %2F has a hex letter, which lower-casing must
 * not touch. */
static const char MODEL[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"facets\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"delimiter\":\"/\",\"cursors\":\"unsealed\"},"
    "\"entities\":{\"Thing\":{\"attributes\":{"
    "\"id\":\"string\",\"name\":\"string\","
    "\"path\":{\"type\":\"string\",\"escape\":true},"
    "\"n\":{\"type\":\"integer\",\"width\":3,\"negative\":\"sortable\"},"
    "\"plain\":\"integer\","
    "\"at\":{\"type\":\"timestamp\",\"precision\":\"s\"},"
    "\"u\":\"ulid\","
    "\"state\":{\"type\":\"enum\",\"values\":[\"InProgress\",\"Done\"]}},"
    "\"key\":{\"pk\":\"T/{id}\",\"sk\":\"S/{name:lower}/{path:lower}\"}}},"
    "\"patterns\":{\"byName\":{\"query\":\"Thing\",\"range\":\"name\"}}}";

static ddbst_model *model;
static const ddbst__attr *attrs;
static int nattrs;

static int setup(void **state) {
  (void)state;
  model = load_text(MODEL);
  attrs = model->entities[0].attrs;
  nattrs = model->entities[0].nattrs;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(model);
  return 0;
}

static const ddbst__attr *attr(const char *name) {
  for (int i = 0; i < nattrs; i++)
    if (strcmp(attrs[i].name, name) == 0) return &attrs[i];
  fail_msg("no attribute %s", name);
  return NULL;
}

/* The key form of `v`, or "!<reason code>". */
static const char *key_of(const char *name, int lower, int partial,
                          const char *v) {
  static char out[256];
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(b);
  assert_int_equal(ddbst__buf_append(b, "x", 1), 0); /* appends after */
  const char *why = NULL;
  ddbst__fk_why w = ddbst__facet_key(model, attr(name), lower, partial, v,
                                     strlen(v), 0, b, &why);
  if (w == DDBST__FK_OK)
    snprintf(out, sizeof out, "%s", ddbst_buf_data(b) + 1);
  else
    snprintf(out, sizeof out, "!%d%s%s", (int)w, why ? " " : "",
             why ? why : "");
  if (w != DDBST__FK_OK) assert_string_equal(ddbst_buf_data(b), "x");
  ddbst_buf_free(b);
  return out;
}

static void key_forms(void **state) {
  (void)state;
  assert_string_equal(key_of("id", 0, 0, "Ann Lee"), "Ann Lee");
  assert_string_equal(key_of("id", 1, 0, "Ann LEE"), "ann lee");
  assert_string_equal(key_of("name", 1, 0, "AnnLEE"), "annlee");
  /* multi-byte UTF-8 is left as it is: :lower is ASCII only */
  assert_string_equal(key_of("name", 1, 0, "\xc3\x89T\xc3\xa9"),
                      "\xc3\x89t\xc3\xa9");
  assert_string_equal(key_of("path", 0, 0, "a/b%c"), "a%2Fb%25c");
  /* lower-cased before escaping: the escape's hex stays upper-case */
  assert_string_equal(key_of("path", 1, 0, "A/B"), "a%2Fb");
  assert_string_equal(key_of("n", 0, 0, "7"), "007");
  assert_string_equal(key_of("n", 0, 0, "-5"), "-995");
  assert_string_equal(key_of("n", 1, 0, "-1"), "-999");
  assert_string_equal(key_of("plain", 0, 0, "-12"), "-12");
  assert_string_equal(key_of("at", 0, 0, "2026-03-14T09:00:00Z"),
                      "2026-03-14T09:00:00Z");
  assert_string_equal(key_of("at", 1, 0, "2026-03-14T09:00:00Z"),
                      "2026-03-14t09:00:00z");
  assert_string_equal(key_of("at", 0, 1, "2026-03"), "2026-03");
  assert_string_equal(key_of("u", 1, 0, "01HZ0000000000000000000031"),
                      "01hz0000000000000000000031");
  assert_string_equal(key_of("state", 1, 1, "InP"), "inp");
}

static void key_form_refusals(void **state) {
  (void)state;
  char want[128];
  snprintf(want, sizeof want, "!%d", DDBST__FK_EMPTY);
  assert_string_equal(key_of("name", 0, 0, ""), want);
  snprintf(want, sizeof want, "!%d", DDBST__FK_DELIM);
  assert_string_equal(key_of("name", 0, 0, "1/USER/admin"), want);
  assert_string_equal(key_of("name", 1, 1, "a/"), want);
  snprintf(want, sizeof want, "!%d %s", DDBST__FK_WIDTH,
           "integer has more digits than the key width");
  assert_string_equal(key_of("n", 0, 0, "1000"), want);
  /* a key of width 3 holds -999 .. 999 */
  assert_string_equal(key_of("n", 0, 0, "-1000"), want);
  snprintf(want, sizeof want, "!%d", DDBST__FK_PARTIAL);
  assert_string_equal(key_of("n", 0, 1, "1"), want);
  /* byName ranges on name, which '/' follows in the sort key: text that
   * would sort below it there is refused (issue 16), the first character
   * as it is */
  snprintf(want, sizeof want, "!%d", DDBST__FK_BELOW);
  assert_string_equal(key_of("name", 0, 0, "Ann Lee"), want);
  assert_string_equal(key_of("name", 1, 0, "a-b"), want);
  assert_string_equal(key_of("name", 0, 0, " a"), " a");
}

/* Issue 16: where text followed by the delimiter would sort out of place. */
static void order_breaks(void **state) {
  (void)state;
  ddbst_model *hash = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\"},"
      "\"entities\":{\"A\":{\"attributes\":{\"a\":\"string\"},"
      "\"key\":{\"pk\":\"A#{a}\"}}},\"patterns\":{}}");
  ddbst_model *dollars = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
      "\"delimiter\":\"$$\"},\"entities\":{\"A\":{\"attributes\":{"
      "\"a\":\"string\"},\"key\":{\"pk\":\"A$${a}\"}}},\"patterns\":{}}");
  static const struct {
    int dollars;
    const char *text;
    size_t at;
  } cases[] = {
      {0, "tool", 0},    {0, "tool s", 4}, {0, "tool!", 4}, {0, "to\"ol", 2},
      {0, " tool", 0},   {0, "a$b", 0},    {0, "caf\xc3\xa9", 0},
      {0, "a\x01", 1},  {1, "a$b", 0},    {1, "a$!", 1},   {1, "a!", 1},
      {1, "a#", 1},      {1, "a$%", 0},    {1, "$a", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const ddbst_model *m = cases[i].dollars ? dollars : hash;
    size_t got = ddbst__facet_order_break(m, cases[i].text,
                                          strlen(cases[i].text));
    if (got != cases[i].at)
      fail_msg("%s with %s: %zu, wanted %zu", cases[i].text, m->delim, got,
               cases[i].at);
  }
  ddbst_model_free(dollars);
  ddbst_model_free(hash);
}

/* "escape": "ordered" with '#': every byte up to '#' and '$' itself become
 * '$' and two hex digits, and read back. */
static void ordered_escaping(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\"},\"entities\":{\"P\":{\"attributes\":{"
      "\"c\":{\"type\":\"string\",\"escape\":\"ordered\"}},"
      "\"key\":{\"pk\":\"P\",\"sk\":\"C#{c}#X\"}}},"
      "\"patterns\":{\"byC\":{\"query\":\"P\",\"range\":\"c\"}}}");
  const ddbst__attr *c = &m->entities[0].attrs[0];
  assert_int_equal(c->escape, DDBST__ESCAPE_ORDERED);
  assert_false(c->range_checked); /* its order is kept: nothing to check */
  static const struct {
    int lower;
    const char *value, *key;
  } forms[] = {
      {0, "tool", "tool"},
      {0, "tool s", "tool$20s"},
      {0, "tool!", "tool$21"},
      {0, "a#b", "a$23b"},
      {0, "$5", "$245"},
      {0, "%&", "%&"},
      {0, "\x01\x1f", "$01$1F"},
      {1, "Tool S", "tool$20s"},
      {0, "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9$20\xf0\x9f\x98\x80"},
  };
  ddbst_buf *b = ddbst_buf_new(NULL);
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
    ddbst_buf_reset(b);
    assert_int_equal(ddbst__facet_key(m, c, forms[i].lower, 0, forms[i].value,
                                      strlen(forms[i].value), 0, b, NULL),
                     DDBST__FK_OK);
    assert_string_equal(ddbst_buf_data(b), forms[i].key);
    assert_int_equal(ddbst__facet_order_break(m, ddbst_buf_data(b),
                                              ddbst_buf_len(b)),
                     0);
    char why[160];
    ddbst_buf_reset(b);
    assert_int_equal(ddbst__facet_from_key(m, c, forms[i].lower, forms[i].key,
                                           strlen(forms[i].key), b, why,
                                           sizeof why),
                     0);
    if (!forms[i].lower) assert_string_equal(ddbst_buf_data(b), forms[i].value);
  }
  /* text the escaping never makes */
  static const char *const never[] = {"a b", "a#", "$2", "$2x", "$41", "$00",
                                      "a$", "$"};
  for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
    char why[160];
    ddbst_buf_reset(b);
    assert_int_equal(ddbst__facet_from_key(m, c, 0, never[i],
                                           strlen(never[i]), b, why,
                                           sizeof why),
                     DDBST_EVALUE);
  }
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* The value ddbst__facet_from_key reads from key text, or "!<why>". */
static const char *value_of(const char *name, int lower, const char *k) {
  static char out[256];
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(b);
  char why[160] = "";
  int rc = ddbst__facet_from_key(model, attr(name), lower, k, strlen(k), b,
                                 why, sizeof why);
  if (rc == 0)
    snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  else
    snprintf(out, sizeof out, "!%s", why);
  if (rc) assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_buf_free(b);
  return out;
}

static void read_back(void **state) {
  (void)state;
  assert_string_equal(value_of("name", 0, "Ann Lee"), "Ann Lee");
  assert_string_equal(value_of("name", 1, "ann lee"), "ann lee");
  assert_string_equal(value_of("path", 1, "a%2Fb%25"), "a/b%");
  assert_string_equal(value_of("n", 0, "007"), "7");
  assert_string_equal(value_of("n", 0, "-995"), "-5");
  assert_string_equal(value_of("at", 1, "2026-03-14t09:00:00z"),
                      "2026-03-14T09:00:00Z");
  assert_string_equal(value_of("u", 1, "01hz0000000000000000000031"),
                      "01HZ0000000000000000000031");
  assert_string_equal(value_of("state", 1, "inprogress"), "InProgress");
  assert_string_equal(value_of("state", 0, "Done"), "Done");
}

static void read_back_refusals(void **state) {
  (void)state;
  /* text the renderer never makes for that facet */
  assert_string_equal(value_of("name", 1, "Ann"),
                      "!name: 'Ann' is not a canonical string");
  assert_string_equal(value_of("path", 0, "a%2fb"),
                      "!path: malformed %-escape");
  assert_string_equal(value_of("path", 0, "%41"), "!path: malformed %-escape");
  assert_string_equal(value_of("path", 0, "a%2"), "!path: malformed %-escape");
  assert_string_equal(
      value_of("n", 0, "07"),
      "!n: integer key has the wrong number of digits for its width");
  assert_string_equal(value_of("at", 0, "2026-03-14t09:00:00z"),
                      "!at: '2026-03-14t09:00:00z' is not a canonical "
                      "timestamp");
  assert_string_equal(value_of("u", 0, "01hz0000000000000000000031"),
                      "!u: '01hz0000000000000000000031' is not a canonical "
                      "ulid");
  assert_string_equal(value_of("state", 0, "inprogress"),
                      "!state: 'inprogress' is not a canonical enum");
}

/* The bodies of the issue's example: a range on U#{name:lower} must be on
 * the lower-cased text the key holds. */
static const char *query_body(const char *cond, const char *v) {
  static char out[8192];
  int e = ddbst_model_entity(model, "Thing");
  ddbst_item *it = ddbst_item_new(model, e);
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(it);
  assert_non_null(b);
  set(it, "id", "t1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = strcmp(cond, "begins") == 0 ? DDBST_SK_BEGINS : DDBST_SK_LT;
  q.attribute = ddbst_model_attribute(model, e, "name");
  q.value = v;
  q.value_len = strlen(v);
  ddbst_error err;
  int rc = ddbst_query_request(it, ddbst_model_pattern(model, "byName"), &q, b,
                               &err);
  assert_int_equal(rc, DDBST_OP_QUERY);
  snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  ddbst_item_free(it);
  ddbst_buf_free(b);
  return out;
}

static void lower_cased_range(void **state) {
  (void)state;
  const char *body = query_body("begins", "Ab");
  assert_non_null(strstr(body, "begins_with(#n1, :v1)"));
  assert_non_null(strstr(body, "\":v1\":{\"S\":\"S/ab\"}"));
  body = query_body("lt", "B");
  /* everything of the entity below "S/b": no key equals "S/b" (a path
   * follows the name), so it is the inclusive upper bound */
  assert_non_null(strstr(body, "#n1 BETWEEN :v1 AND :v2"));
  assert_non_null(strstr(body, "\":v1\":{\"S\":\"S/\"},\":v2\":{\"S\":\"S/b\"}"));
}

/* A key written with lower-cased and escaped facets reads back to values
 * whose keys are the same bytes; a key with an upper-case letter where the
 * template lower-cases is no key of the model. */
static void keys_read_back(void **state) {
  (void)state;
  int e = ddbst_model_entity(model, "Thing");
  ddbst_item *it = ddbst_item_new(model, e);
  assert_non_null(it);
  set(it, "id", "t1");
  set(it, "name", "Ann");
  set(it, "path", "A/B%");
  assert_int_equal(ddbst_item_build_keys(it, NULL), 2);
  const char *sk;
  size_t skl;
  assert_int_equal(ddbst_item_key(it, 1, NULL, &sk, &skl), 0);
  assert_string_equal(sk, "S/ann/a%2Fb%25");
  char copy[64];
  snprintf(copy, sizeof copy, "%s", sk);
  ddbst_error err;
  assert_int_equal(ddbst_item_from_key(it, NULL, "T/t1", 4, copy, skl, &err),
                   e);
  assert_int_equal(ddbst_item_build_keys(it, NULL), 2);
  assert_int_equal(ddbst_item_key(it, 1, NULL, &sk, &skl), 0);
  assert_string_equal(sk, copy);
  assert_true(ddbst_item_from_key(it, NULL, "T/t1", 4, "S/Ann/a", 7, &err) <
              0);
  assert_string_equal(err.message, "the key has the shape of Thing: name: "
                                   "'Ann' is not a canonical string");
  ddbst_item_free(it);
}

/* With a delimiter of two bytes, a facet ending with its first byte would
 * join the delimiter after it: "a$" then "$$" reads "a$$$", the delimiter
 * found one byte early, and the key no longer splits back. */
static void longer_delimiter(void **state) {
  (void)state;
  ddbst_model *m2 = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"facets\",\"partitionKey\":"
      "\"PK\",\"sortKey\":\"SK\",\"delimiter\":\"$$\"},\"entities\":{"
      "\"Thing\":{\"attributes\":{\"id\":\"string\",\"name\":\"string\"},"
      "\"key\":{\"pk\":\"T$${id}\",\"sk\":\"S$${name}$$X\"}}},"
      "\"patterns\":{\"byName\":{\"query\":\"Thing\",\"range\":"
      "\"name\"}}}");
  const ddbst__attr *a = &m2->entities[0].attrs[1];
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(b);
  assert_int_equal(ddbst__facet_key(m2, a, 0, 0, "a$", 2, 0, b, NULL),
                   DDBST__FK_DELIM_END);
  assert_int_equal(ddbst__facet_key(m2, a, 0, 0, "a$$b", 4, 0, b, NULL),
                   DDBST__FK_DELIM);
  assert_int_equal(ddbst__facet_key(m2, a, 0, 0, "a$b", 3, 0, b, NULL),
                   DDBST__FK_OK);
  assert_int_equal(ddbst__facet_key(m2, a, 0, 0, "$a", 2, 0, b, NULL),
                   DDBST__FK_OK);
  assert_string_equal(ddbst_buf_data(b), "a$b$a");
  ddbst_item *it = ddbst_item_new(m2, 0);
  assert_non_null(it);
  set(it, "id", "t1");
  set(it, "name", "a$");
  ddbst_error err;
  assert_int_equal(ddbst_item_build_keys(it, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "facet name");
  assert_string_equal(err.message,
                      "Thing.name ends with the start of the key delimiter "
                      "'$$', which would join the delimiter after it and "
                      "forge another key");
  /* the same across the text before the facet: "S$$" then "$a" holds
   * "$$" at a place the template puts none */
  set(it, "name", "$a$b");
  assert_int_equal(ddbst_item_build_keys(it, &err), DDBST_EVALUE);
  assert_string_equal(err.message,
                      "Thing.name starts with the end of the key delimiter "
                      "'$$', which would join the text before it and forge "
                      "another key");
  set(it, "name", "a$b");
  assert_int_equal(ddbst_item_build_keys(it, &err), 2);
  const char *sk;
  size_t skl;
  assert_int_equal(ddbst_item_key(it, 1, NULL, &sk, &skl), 0);
  assert_string_equal(sk, "S$$a$b$$X");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_GT;
  q.attribute = 1;
  q.value = "a$";
  q.value_len = 2;
  ddbst_buf_reset(b);
  assert_int_equal(
      ddbst_query_request(it, ddbst_model_pattern(m2, "byName"), &q, b, &err),
      DDBST_EVALUE);
  assert_string_equal(err.message,
                      "name ends with the start of the key delimiter '$$'");
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(key_forms),         cmocka_unit_test(key_form_refusals),
      cmocka_unit_test(read_back),         cmocka_unit_test(read_back_refusals),
      cmocka_unit_test(lower_cased_range), cmocka_unit_test(keys_read_back),
      cmocka_unit_test(longer_delimiter),
      cmocka_unit_test(order_breaks),      cmocka_unit_test(ordered_escaping),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
