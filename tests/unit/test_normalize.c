/* "normalize" on a string attribute (src/base/normalize.c, by utf8proc):
 * keys and unique guards hold the value's NFC or NFKC_Casefold form, the
 * item the value as written. Forms that differ only in Unicode's eyes (a
 * precomposed é and e with U+0301; fullwidth and upper-case letters under
 * NFKC_Casefold) make one key and one guard; what normalisation makes of a
 * value is held to the rules of any key facet (the delimiter, emptiness,
 * length); the model refuses the option where it means nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/normalize.h"
#include "support.h"

#define E_ACUTE "\xc3\xa9"       /* U+00E9 */
#define E_COMBINING "e\xcc\x81"  /* e, U+0301 */
#define FULLWIDTH_C "\xef\xbc\xa3" /* U+FF23 */
#define FULLWIDTH_HASH "\xef\xbc\x83" /* U+FF03, NFKC '#' */
#define SOFT_HYPHEN "\xc2\xad"   /* U+00AD: default ignorable */

static const char MODEL[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"normal\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\",\"indexes\":{"
    "\"GSI1\":{\"partitionKey\":\"GSI1PK\"}}},"
    "\"entities\":{\"Member\":{\"attributes\":{\"team\":\"string\","
    "\"name\":{\"type\":\"string\",\"normalize\":\"NFC\"},"
    "\"email\":{\"type\":\"string\",\"normalize\":\"NFKC_Casefold\"},"
    "\"raw\":\"string\"},"
    "\"key\":{\"pk\":\"TEAM#{team}\",\"sk\":\"M#{name}\"},"
    "\"indexes\":{\"GSI1\":{\"pk\":\"RAW#{raw}\"}},"
    "\"unique\":{\"email\":\"EMAIL#{email}\"}}},"
    "\"patterns\":{\"members\":{\"query\":\"Member\",\"range\":\"name\"}}}";

static ddbst_model *m;

static int setup(void **state) {
  (void)state;
  m = load_text(MODEL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(m);
  return 0;
}

static const char *normal(int form, const char *v) {
  static char out[DDBST__NORM_MAX + 1];
  long n = ddbst__normalize(form, v, strlen(v), out);
  if (n < 0) return NULL;
  out[n] = '\0';
  return out;
}

static void forms(void **state) {
  (void)state;
  assert_string_equal(normal(DDBST__NORM_NFC, "caf" E_COMBINING),
                      "caf" E_ACUTE);
  assert_string_equal(normal(DDBST__NORM_NFC, "caf" E_ACUTE), "caf" E_ACUTE);
  /* NFC keeps case and compatibility forms */
  assert_string_equal(normal(DDBST__NORM_NFC, "CAF" FULLWIDTH_C),
                      "CAF" FULLWIDTH_C);
  assert_string_equal(
      normal(DDBST__NORM_NFKC_CASEFOLD, FULLWIDTH_C "AF" E_COMBINING),
      "caf" E_ACUTE);
  assert_string_equal(normal(DDBST__NORM_NFKC_CASEFOLD, "Stra\xc3\x9f" "e"),
                      "strasse");
  assert_string_equal(normal(DDBST__NORM_NFKC_CASEFOLD, "a" SOFT_HYPHEN "b"),
                      "ab");
  assert_string_equal(normal(DDBST__NORM_NFKC_CASEFOLD, "x" FULLWIDTH_HASH),
                      "x#");
  /* longer than a key may be: refused, never cut */
  char *big = malloc(DDBST__NORM_MAX + 2);
  memset(big, 'a', DDBST__NORM_MAX + 1);
  big[DDBST__NORM_MAX + 1] = '\0';
  assert_null(normal(DDBST__NORM_NFC, big));
  big[DDBST__NORM_MAX] = '\0';
  assert_non_null(normal(DDBST__NORM_NFC, big));
  free(big);
  /* U+FDFA is one code point and 18 of NFKC's: 3 bytes in, 33 out */
  assert_int_equal(
      strlen(normal(DDBST__NORM_NFKC_CASEFOLD, "\xef\xb7\xba")), 33);
}

/* The keys JSON of a Member with these values. */
static const char *keys_of(const char *name, const char *email,
                           const char *raw, int *rc) {
  static char out[8192];
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "team", "t1");
  if (name) set(it, "name", name);
  if (email) set(it, "email", email);
  if (raw) set(it, "raw", raw);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  *rc = ddbst_item_keys_json(it, b, &err);
  snprintf(out, sizeof out, "%s", *rc ? err.message : ddbst_buf_data(b));
  ddbst_buf_free(b);
  ddbst_item_free(it);
  return out;
}

static void keys_hold_the_form(void **state) {
  (void)state;
  int rc;
  /* the same key from both spellings; a facet without "normalize" keeps
   * the bytes it was given */
  static const char want[] = "{\"PK\":\"TEAM#t1\",\"SK\":\"M#caf" E_ACUTE
                             "\",\"GSI1PK\":\"RAW#caf" E_COMBINING
                             "\",\"_type\":\"Member\"}";
  assert_string_equal(keys_of("caf" E_COMBINING, NULL, "caf" E_COMBINING, &rc),
                      want);
  assert_int_equal(rc, 0);
  assert_string_equal(keys_of("caf" E_ACUTE, NULL, "caf" E_COMBINING, &rc),
                      want);
  /* the item keeps the value as written */
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "team", "t1");
  set(it, "name", "caf" E_COMBINING);
  const char *v;
  size_t n;
  assert_int_equal(ddbst_item_get(it, ddbst_model_attribute(m, 0, "name"), &v,
                                  &n),
                   1);
  assert_string_equal(v, "caf" E_COMBINING);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  set(it, "email", "a@x.com");
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 1, b, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\"name\":{\"S\":\"caf" E_COMBINING "\"}"));
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\"SK\":{\"S\":\"M#caf" E_ACUTE "\"}"));
  /* read back from its key: the form the key holds */
  ddbst_item_reset(it, 0);
  assert_int_equal(ddbst_item_from_key(it, NULL, "TEAM#t1", 7,
                                       "M#caf" E_ACUTE, strlen("M#caf" E_ACUTE),
                                       &err),
                   0);
  assert_int_equal(ddbst_item_get(it, ddbst_model_attribute(m, 0, "name"), &v,
                                  &n),
                   1);
  assert_string_equal(v, "caf" E_ACUTE);
  ddbst_buf_free(b);
  ddbst_item_free(it);
}

static void what_the_form_makes_is_held_to_the_rules(void **state) {
  (void)state;
  int rc;
  /* NFKC makes '#' of a fullwidth number sign: a delimiter, refused */
  const char *msg = keys_of("n", NULL, NULL, &rc);
  assert_int_equal(rc, 0);
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_error err;
  set(it, "team", "t1");
  set(it, "name", "n");
  set(it, "email", "a" FULLWIDTH_HASH "b@x.com");
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 1, b, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "facet email");
  assert_string_equal(err.message, "Member.email contains the key delimiter "
                                   "'#', which would forge another key");
  /* nothing but ignorables is empty */
  set(it, "email", SOFT_HYPHEN);
  ddbst_buf_reset(b);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 1, b, &err), DDBST_EVALUE);
  assert_string_equal(err.message, "Member.email is empty once normalised; "
                                   "a key facet needs a value");
  /* 700 U+FDFA are 2100 bytes, 23100 once NFKC'd: longer than a key */
  char *big = malloc(3 * 700 + 1);
  for (int i = 0; i < 700; i++) memcpy(big + 3 * i, "\xef\xb7\xba", 3);
  big[3 * 700] = '\0';
  set(it, "email", big);
  ddbst_buf_reset(b);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 1, b, &err), DDBST_ERANGE);
  assert_string_equal(err.message, "Member.email is longer than a key may be "
                                   "once normalised");
  assert_int_equal(ddbst_buf_len(b), 0);
  free(big);
  (void)msg;
  ddbst_buf_free(b);
  ddbst_item_free(it);
}

static void guards_collide(void **state) {
  (void)state;
  static const char *const spellings[] = {
      "Caf" E_ACUTE "@Example.com", "caf" E_COMBINING "@example.com",
      FULLWIDTH_C "AF" E_ACUTE "@EXAMPLE.COM"};
  char first[1024] = "";
  for (size_t i = 0; i < 3; i++) {
    ddbst_item *it = ddbst_item_new(m, 0);
    ddbst_error err;
    set(it, "team", "t1");
    set(it, "name", "n");
    set(it, "email", spellings[i]);
    ddbst_buf *b = ddbst_buf_new(NULL);
    assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 1, b, &err),
                     DDBST_OP_TRANSACT_WRITE_ITEMS);
    const char *g = strstr(ddbst_buf_data(b), "\"PK\":{\"S\":\"EMAIL#");
    assert_non_null(g);
    char key[1024];
    snprintf(key, sizeof key, "%.*s", (int)(strchr(g + 11, '"') - g), g);
    if (!i) {
      snprintf(first, sizeof first, "%s", key);
      assert_string_equal(first, "\"PK\":{\"S\":\"EMAIL#caf" E_ACUTE
                                 "@example.com");
    }
    assert_string_equal(key, first);
    /* the user keeps the address as it was typed */
    char stored[256];
    snprintf(stored, sizeof stored, "\"email\":{\"S\":\"%s\"}", spellings[i]);
    assert_non_null(strstr(ddbst_buf_data(b), stored));
    ddbst_buf_free(b);
    ddbst_item_free(it);
  }
}

static void ranges_and_prefixes(void **state) {
  (void)state;
  ddbst_item *v = ddbst_item_new(m, 0);
  set(v, "team", "t1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_BEGINS;
  q.attribute = ddbst_model_attribute(m, 0, "name");
  q.value = "caf" E_COMBINING;
  q.value_len = strlen(q.value);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_query_request(v, ddbst_model_pattern(m, "members"), &q,
                                       b, &err),
                   DDBST_OP_QUERY);
  assert_non_null(strstr(ddbst_buf_data(b), "{\"S\":\"M#caf" E_ACUTE "\"}"));
  ddbst_buf_free(b);
  ddbst_item_free(v);
}

static void model_refusals(void **state) {
  (void)state;
  static const struct {
    const char *attr, *path, *message;
  } cases[] = {
      {"{\"type\":\"integer\",\"normalize\":\"NFC\"}",
       "entities.A.attributes.i.normalize",
       "a integer attribute has no 'normalize'"},
      {"{\"type\":\"string\",\"normalize\":\"NFD\"}",
       "entities.A.attributes.i.normalize",
       "expected \"NFC\" or \"NFKC_Casefold\""},
      {"{\"type\":\"string\",\"normalize\":true}",
       "entities.A.attributes.i.normalize",
       "expected \"NFC\" or \"NFKC_Casefold\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"ddbst\":1,\"table\":{\"name\":\"normal\",\"partitionKey\":"
             "\"PK\"},\"entities\":{\"A\":{\"attributes\":{\"i\":%s},"
             "\"key\":{\"pk\":\"A#{i}\"}}},\"patterns\":{}}",
             cases[i].attr);
    ddbst_model *bad = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(ddbst_model_load(json, strlen(json), NULL, &bad, &err),
                     DDBST_EMODEL);
    assert_string_equal(err.path, cases[i].path);
    assert_string_equal(err.message, cases[i].message);
    ddbst_model_free(bad);
  }
}

/* ASCII skips utf8proc (normalize.c): the same answer as utf8proc's for
 * every ASCII byte, alone and in every pair, and long runs, in both
 * forms. */
static void ascii_as_utf8proc(void **state) {
  (void)state;
  static char fast[DDBST__NORM_MAX + 1], slow[DDBST__NORM_MAX + 1];
  const int forms[2] = {DDBST__NORM_NFC, DDBST__NORM_NFKC_CASEFOLD};
  for (int f = 0; f < 2; f++)
    for (int a = 0; a < 128; a++)
      for (int b = -1; b < 128; b++) {
        char v[3] = {(char)a, (char)b, 'Q'};
        size_t n = b < 0 ? 1 : 3;
        long x = ddbst__normalize(forms[f], v, n, fast);
        long y = ddbst__normalize_utf8proc(forms[f], v, n, slow);
        assert_int_equal(x, y);
        if (x > 0) assert_memory_equal(fast, slow, (size_t)x);
      }
  char big[DDBST__NORM_MAX + 1];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('A' + i % 26);
  for (int f = 0; f < 2; f++)
    for (size_t n = DDBST__NORM_MAX - 1; n <= DDBST__NORM_MAX + 1; n++) {
      long x = ddbst__normalize(forms[f], big, n, fast);
      assert_int_equal(x, ddbst__normalize_utf8proc(forms[f], big, n, slow));
      if (x > 0) assert_memory_equal(fast, slow, (size_t)x);
    }
}

/* The create plan's ASCII form (ddbst__lower_copy, bytes.h): for every
 * ASCII code point, alone and before every other (and at every length to
 * 17, for the word and tail paths), its copy lower-cased is utf8proc's
 * NFKC_Casefold and its copy as it is utf8proc's NFC, and it says ASCII;
 * a byte from 0x80 anywhere says not. */
static void lower_copy_as_utf8proc(void **state) {
  (void)state;
  static char slow[DDBST__NORM_MAX + 1];
  char v[20], d[20];
  for (int a = 1; a < 128; a++)
    for (int b = -1; b < 128; b++)
      for (size_t n = 1; n <= 17; n++) {
        for (size_t i = 0; i < n; i++)
          v[i] = (char)(i == n - 1 && b >= 0 ? (b ? b : 'q') : a);
        for (int fold = 0; fold < 2; fold++) {
          assert_int_equal(ddbst__lower_copy(d, v, n, fold), 1);
          long y = ddbst__normalize_utf8proc(
              fold ? DDBST__NORM_NFKC_CASEFOLD : DDBST__NORM_NFC, v, n, slow);
          assert_int_equal(y, (long)n);
          assert_memory_equal(d, slow, n);
        }
        if (b >= 0 || n == 1) continue;
        v[n / 2] = (char)0xC3; /* not ASCII, wherever it is */
        assert_int_equal(ddbst__lower_copy(d, v, n, 1), 0);
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(forms),
      cmocka_unit_test(ascii_as_utf8proc),
      cmocka_unit_test(lower_copy_as_utf8proc),
      cmocka_unit_test(keys_hold_the_form),
      cmocka_unit_test(what_the_form_makes_is_held_to_the_rules),
      cmocka_unit_test(guards_collide),
      cmocka_unit_test(ranges_and_prefixes),
      cmocka_unit_test(model_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
