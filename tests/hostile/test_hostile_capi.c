/* Hostile input to issue 23's functions: an object of values from a
 * client (ddbst_item_set_json), names from a request (the by-name setters)
 * and bytes into a buffer. Each case: its exact code and path, a key
 * phrase of its message, and the item as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static ddbst_model *m;
static ddbst_item *ev;

static int setup(void **state) {
  (void)state;
  m = load_example("examples/saas/model.json");
  ev = ddbst_item_new(m, ddbst_model_entity(m, "Event"));
  return ev ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ddbst_item_free(ev);
  ddbst_model_free(m);
  return 0;
}

static char *repeat(const char *head, const char *unit, size_t n,
                    const char *tail) {
  size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
  char *s = malloc(hl + ul * n + tl + 1);
  assert_non_null(s);
  memcpy(s, head, hl);
  for (size_t i = 0; i < n; i++) memcpy(s + hl + i * ul, unit, ul);
  memcpy(s + hl + ul * n, tail, tl + 1);
  return s;
}

/* The item keeps "type": "kept" through every refusal. */
static void refused(const char *what, const char *json, size_t len, int code,
                    const char *path, const char *phrase) {
  ddbst_item_reset(ev, ddbst_item_entity(ev));
  assert_int_equal(ddbst_item_set_by_name(ev, "type", "kept",
                                          DDBST_NUL_TERMINATED, NULL),
                   0);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  /* exactly `len` bytes: a read past them faults */
  char *g = guard_copy(json, len);
  int rc = ddbst_item_set_json(ev, g, len, &err);
  guard_free(g);
  if (rc != code || err.code != code || strcmp(err.path, path) ||
      !strstr(err.message, phrase))
    fail_msg("%s: wanted %d at \"%s\" with \"%s\", got %d at \"%s\": %s", what,
             code, path, phrase, rc, err.path, err.message);
  const char *t = NULL;
  assert_int_equal(ddbst_item_get_by_name(ev, "type", &t, NULL), 1);
  assert_string_equal(t, "kept");
  assert_int_equal(ddbst_item_get_by_name(ev, "projectId", &t, NULL), 0);
}

static void objects_of_values(void **state) {
  (void)state;
  static const struct {
    const char *what, *json;
    int code;
    const char *path, *phrase;
  } cases[] = {
      {"empty input", "", DDBST_ESYNTAX, "", ""},
      {"truncated", "{\"projectId\":\"p", DDBST_ESYNTAX, "", ""},
      {"a string", "\"p\"", DDBST_EINVAL, "", "expected a JSON object"},
      {"null", "null", DDBST_EINVAL, "", "expected a JSON object"},
      {"NUL escaped", "{\"projectId\":\"p\\u0000x\"}", DDBST_ESYNTAX,
       "projectId", ""},
      {"lone surrogate", "{\"projectId\":\"\\udc00\"}", DDBST_ESYNTAX,
       "projectId", "surrogate"},
      {"invalid UTF-8", "{\"projectId\":\"\xc3\x28\"}", DDBST_ESYNTAX,
       "projectId", "UTF-8"},
      {"a name twice", "{\"projectId\":\"a\",\"projectId\":\"b\"}",
       DDBST_ESYNTAX, "projectId", "given twice"},
      {"a number for a string", "{\"projectId\":1e999}", DDBST_EVALUE,
       "projectId", "give it as a JSON string"},
      {"a huge integer", "{\"expiresAt\":1e999}", DDBST_EVALUE,
       "Event.expiresAt", "expiresAt"},
      {"an object for a timestamp", "{\"ts\":{\"a\":1}}", DDBST_EVALUE,
       "Event.ts", "ts"},
      {"the entity attribute", "{\"_type\":\"User\"}", DDBST_ENOTFOUND,
       "_type", "Event has no attribute _type"},
      {"a key attribute", "{\"PK\":\"ORG#1\"}", DDBST_ENOTFOUND, "PK",
       "no attribute PK"},
      {"a path for a name", "{\"payload.a\":\"x\"}", DDBST_ENOTFOUND,
       "payload.a", "no attribute payload.a"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    refused(cases[i].what, cases[i].json, strlen(cases[i].json),
            cases[i].code, cases[i].path, cases[i].phrase);

  /* nesting past 64 levels inside a map value */
  char *deep = repeat("{\"projectId\":\"p\",\"payload\":", "[", 70, "");
  char *deep_path = repeat("payload", "[0]", 63, "");
  refused("deep nesting", deep, strlen(deep), DDBST_ESYNTAX, deep_path,
          "nesting deeper than 64 levels");
  free(deep_path);
  free(deep);
  /* more members than an object may have */
  size_t cap = 5000 * 16 + 64, wl = 0;
  char *wide = malloc(cap);
  assert_non_null(wide);
  wl += (size_t)snprintf(wide + wl, cap - wl, "{\"payload\":{");
  for (int i = 0; i < 5000; i++) /* distinct names: a0000, a0001, ... */
    wl += (size_t)snprintf(wide + wl, cap - wl, "%s\"a%04d\":1", i ? "," : "",
                           i);
  wl += (size_t)snprintf(wide + wl, cap - wl, "}}");
  refused("5000 members", wide, strlen(wide), DDBST_ESYNTAX, "payload",
          "");
  free(wide);
  /* a name of 100 KB: refused with its path cut, never overrun */
  char *longname = repeat("{\"", "x", 100000, "\":\"v\"}");
  ddbst_item_reset(ev, ddbst_item_entity(ev));
  ddbst_error err;
  assert_int_equal(ddbst_item_set_json(ev, longname, strlen(longname), &err),
                   DDBST_ENOTFOUND);
  assert_true(strlen(err.path) < DDBST_ERROR_PATH_MAX);
  assert_true(strlen(err.message) < DDBST_ERROR_MESSAGE_MAX);
  assert_int_equal(ddbst_item_set_by_name(ev, longname + 2, "v", 1, &err),
                   DDBST_ENOTFOUND);
  assert_true(strlen(err.path) < DDBST_ERROR_PATH_MAX);
  free(longname);
  /* a value of 1 MB is taken whole */
  char *big = repeat("{\"type\":\"", "y", 1 << 20, "\"}");
  assert_int_equal(ddbst_item_set_json(ev, big, strlen(big), &err), 0);
  const char *t;
  size_t n;
  assert_int_equal(ddbst_item_get_by_name(ev, "type", &t, &n), 1);
  assert_int_equal(n, 1 << 20);
  free(big);
}

static void names(void **state) {
  (void)state;
  ddbst_error err;
  static const char *const bad[] = {"", " type", "Type", "type ", "ty\xffpe"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(ddbst_item_set_by_name(ev, bad[i], "x", 1, &err),
                     DDBST_ENOTFOUND);
    assert_int_equal(err.code, DDBST_ENOTFOUND);
    assert_non_null(strstr(err.message, "Event has no attribute"));
  }
  /* a value with its length past the NUL: the length wins, the NUL refused */
  assert_int_equal(ddbst_item_set_by_name(ev, "type", "a\0b", 3, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Event.type");
}

static void buffers(void **state) {
  (void)state;
  ddbst_buf *b = ddbst_buf_new(NULL);
  /* every control character, quote and backslash escaped; JSON reads it
   * back as the same text */
  char all[128];
  for (int i = 0; i < 127; i++) all[i] = (char)(i + 1);
  all[127] = '\0';
  assert_int_equal(ddbst_buf_append_json_string(b, all, DDBST_NUL_TERMINATED),
                   0);
  ddbst_item_reset(ev, ddbst_item_entity(ev));
  ddbst_buf *obj = ddbst_buf_new(NULL);
  ddbst_buf_append(obj, "{\"type\":", DDBST_NUL_TERMINATED);
  ddbst_buf_append(obj, ddbst_buf_data(b), ddbst_buf_len(b));
  ddbst_buf_append(obj, "}", 1);
  ddbst_error err;
  assert_int_equal(ddbst_item_set_json(ev, ddbst_buf_data(obj),
                                       ddbst_buf_len(obj), &err),
                   0);
  const char *t;
  assert_int_equal(ddbst_item_get_by_name(ev, "type", &t, NULL), 1);
  assert_string_equal(t, all);
  /* overlong, surrogate and NUL: refused, nothing written */
  size_t len = ddbst_buf_len(b);
  static const char *const bad[] = {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"};
  for (size_t i = 0; i < 3; i++)
    assert_int_equal(ddbst_buf_append_json_string(b, bad[i], strlen(bad[i])),
                     DDBST_EVALUE);
  assert_int_equal(ddbst_buf_append_json_string(b, "a\0b", 3), DDBST_EVALUE);
  assert_int_equal(ddbst_buf_len(b), len);
  ddbst_buf_free(obj);
  ddbst_buf_free(b);
}

/* Pages that remember their query: patterns, values and LastEvaluatedKeys
 * a caller or DynamoDB's answer could get wrong. */
static void pages_and_cursors(void **state) {
  (void)state;
  ddbst_page *pg = ddbst_page_new(m);
  ddbst_buf *cur = ddbst_buf_new(NULL);
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  ddbst_error err;
  assert_int_equal(
      ddbst_cursor_keys_add_hex(
          keys, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
          &err),
      0);
  ddbst_item *user = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  ddbst_item_set_by_name(user, "orgId", "2", DDBST_NUL_TERMINATED, NULL);
  int list_users = ddbst_model_pattern(m, "listUsers");
  size_t len;
  char *body = read_response("local-query-users-page1.json", &len);
  static const int bad_patterns[] = {-1, 9999};
  for (size_t i = 0; i < 2; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(ddbst_page_parse_query(pg, user, bad_patterns[i], body,
                                            len, &err),
                     DDBST_EINVAL);
    assert_string_equal(err.path, "pattern");
    assert_int_equal(ddbst_page_count(pg), 0);
  }
  /* a get pattern, and a query of another entity */
  assert_int_equal(ddbst_page_parse_query(pg, user,
                                          ddbst_model_pattern(m, "getUser"),
                                          body, len, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_parse_query(pg, user,
                                          ddbst_model_pattern(m, "listEvents"),
                                          body, len, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "listEvents is not a query of entity User");
  /* values of another model */
  ddbst_model *other = load_example("examples/saas/model.json");
  ddbst_item *foreign = ddbst_item_new(other, ddbst_model_entity(other, "User"));
  ddbst_item_set_by_name(foreign, "orgId", "1", DDBST_NUL_TERMINATED, NULL);
  assert_int_equal(ddbst_page_parse_query(pg, foreign, list_users, body, len,
                                          &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "the values are an item of another model");
  ddbst_item_free(foreign);
  ddbst_model_free(other);
  /* an answer of another partition than the query's: parsed, never sealed */
  assert_int_equal(ddbst_page_parse_query(pg, user, list_users, body, len,
                                          &err),
                   1);
  ddbst_buf_append(cur, "old", 3);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, 1, cur, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "LastEvaluatedKey.PK");
  assert_int_equal(ddbst_buf_len(cur), 0);
  /* a partition facet that would not make a key */
  ddbst_item_set_by_name(user, "orgId", "a#b", DDBST_NUL_TERMINATED, NULL);
  int rc = ddbst_page_parse_query(pg, user, list_users, body, len, &err);
  assert_true(rc < 0);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, 1, cur, &err),
                   DDBST_EINVAL);
  free(body);
  ddbst_item_free(user);
  ddbst_cursor_keys_free(keys);
  ddbst_buf_free(cur);
  ddbst_page_free(pg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(objects_of_values),
      cmocka_unit_test(names),
      cmocka_unit_test(buffers),
      cmocka_unit_test(pages_and_cursors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
