/* Over-read traps for the parsers of caller memory other than responses
 * and model files: values (every attribute type, through every setter),
 * keys given back (ddbst_item_from_key), cursors (ddbst_query_request) and
 * the JSON entry (ddbst_json_open and ddbst_json_call). Each input ends
 * exactly at a PROT_NONE page (guard_copy), whole and at every shorter
 * length: reading one byte past the given length faults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static ddbst_model *saas, *kinds;
static ddbst_buf *out;

/* An entity with every attribute type. */
static const char kinds_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},"
    "\"entities\":{\"Thing\":{\"attributes\":{\"id\":\"string\","
    "\"s\":\"string\",\"num\":\"number\",\"n\":{\"type\":\"integer\","
    "\"width\":6},\"flag\":\"boolean\",\"bin\":\"binary\",\"list\":\"list\","
    "\"map\":\"map\",\"tags\":\"string_set\",\"nums\":\"number_set\","
    "\"at\":{\"type\":\"timestamp\",\"precision\":\"ms\"},"
    "\"kind\":{\"type\":\"enum\",\"values\":[\"alpha\",\"beta\"]},"
    "\"u\":\"ulid\",\"exp\":\"ttl\"},"
    "\"key\":{\"pk\":\"T#{id}\",\"sk\":\"T#{n}#{at}\"}}}}";

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  kinds = load_text(kinds_json);
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(kinds);
  ddbst_model_free(saas);
  return 0;
}

typedef int (*setter)(ddbst_item *, int, const char *, size_t, ddbst_error *);

/* `fn` on every prefix of `v`, each ending at a guard page. Only that it
 * returns (success or an error, never a fault) is asserted, and that the
 * whole value gives `whole_rc`. */
static void every_prefix(ddbst_item *it, int a, setter fn, const char *v,
                         int whole_rc) {
  size_t n = strlen(v);
  for (size_t len = 0; len <= n; len++) {
    char *g = guard_copy(v, len);
    ddbst_error err;
    int rc = fn(it, a, g, len, &err);
    if (len == n && rc != whole_rc)
      fail_msg("%s: %d (%s: %s), expected %d", v, rc, err.path, err.message,
               whole_rc);
    guard_free(g);
  }
}

static int item_set(ddbst_item *it, int a, const char *v, size_t n,
                    ddbst_error *err) {
  return ddbst_item_set(it, a, v, n, err);
}

static void values_of_every_type(void **state) {
  (void)state;
  static const struct {
    const char *attr, *value;
    int rc;
  } cases[] = {
      {"s", "h\xc3\xa9llo w\xf0\x9f\x98\x80rld", 0},
      {"s", "bad \xc3", DDBST_EVALUE},
      {"num", "-12345.678e-9", 0},
      {"num", "12.", DDBST_EVALUE},
      {"n", "42", 0},
      {"n", "-42", DDBST_EVALUE}, /* a key facet: not sortable_negative */
      {"n", "1234567", DDBST_EVALUE},
      {"flag", "false", 0},
      {"flag", "fals", DDBST_EVALUE},
      {"bin", "AAECAwQFBgcICQ==", 0},
      {"bin", "AAE", DDBST_EVALUE},
      {"list", "[1,\"two\",[true,null],{\"k\":\"v\"}]", 0},
      {"list", "[1,", DDBST_EVALUE},
      {"map", "{\"a\":{\"b\":[1,2,{\"c\":\"\\u00e9\"}]}}", 0},
      {"map", "{\"a\":}", DDBST_EVALUE},
      {"tags", "[\"x\",\"y\",\"z\"]", 0},
      {"tags", "[]", DDBST_EVALUE},
      {"nums", "[1,2.5,-3]", 0},
      {"at", "2026-03-14T09:26:53.589Z", 0},
      {"at", "2026-03-14T09:26:53+01:00", 0},
      {"at", "2026-02-30T00:00:00Z", DDBST_EVALUE},
      {"kind", "beta", 0},
      {"kind", "bet", DDBST_EVALUE},
      {"u", "01ARZ3NDEKTSV4RRFFQ69G5FAV", 0},
      {"u", "01arz3ndektsv4rrffq69g5fav", 0},
      {"u", "01ARZ3NDEKTSV4RRFFQ69G5FA", DDBST_EVALUE},
      {"exp", "1800000000", 0},
      {"exp", "2026-03-14T09:26:53Z", 0},
  };
  int e = ddbst_model_entity(kinds, "Thing");
  ddbst_item *it = ddbst_item_new(kinds, e);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int a = ddbst_model_attribute(kinds, e, cases[i].attr);
    assert_true(a >= 0);
    every_prefix(it, a, item_set, cases[i].value, cases[i].rc);
  }
  ddbst_item_free(it);
}

static void update_operands(void **state) {
  (void)state;
  int e = ddbst_model_entity(kinds, "Thing");
  ddbst_item *it = ddbst_item_new(kinds, e);
  int num = ddbst_model_attribute(kinds, e, "num");
  int tags = ddbst_model_attribute(kinds, e, "tags");
  int list = ddbst_model_attribute(kinds, e, "list");
  int s = ddbst_model_attribute(kinds, e, "s");
  every_prefix(it, num, ddbst_item_add, "-0.25", 0);
  every_prefix(it, tags, ddbst_item_add, "[\"a\",\"b\"]", 0);
  every_prefix(it, list, ddbst_item_append, "[{\"x\":[1,2]},\"y\"]", 0);
  every_prefix(it, s, ddbst_item_set_previous, "old \xe2\x82\xac", 0);
  ddbst_item_free(it);
}

/* Keys given back: both texts at guard pages, every length. */
static void keys_given_back(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(saas, 0);
  static const struct {
    const char *index, *pk, *sk;
  } keys[] = {
      {NULL, "ORG#123", "USER#9"},
      {NULL, "ORG#1", "PROJECT#2026-01-02T03:04:05Z#p1"},
      {NULL, "PROJECT#p1",
       "EVENT#2026-01-02T03:04:05Z#01ARZ3NDEKTSV4RRFFQ69G5FAV"},
      {"GSI1", "EMAIL#ann@x.com", NULL},
      {"GSI2", "STATUS#active", "2026-01-02T03:04:05Z"},
  };
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    size_t pn = strlen(keys[k].pk), sn = keys[k].sk ? strlen(keys[k].sk) : 0;
    for (size_t pl = 0; pl <= pn; pl++) {
      char *pk = guard_copy(keys[k].pk, pl);
      for (size_t sl = 0; sl <= sn; sl += (pl == pn ? 1 : sn ? sn : 1)) {
        char *sk = keys[k].sk ? guard_copy(keys[k].sk, sl) : NULL;
        ddbst_error err;
        int rc = ddbst_item_from_key(it, keys[k].index, pk, pl, sk, sl, &err);
        if (pl == pn && sl == sn && rc < 0)
          fail_msg("%s %s: %s: %s", keys[k].pk, keys[k].sk ? keys[k].sk : "",
                   err.path, err.message);
        guard_free(sk);
      }
      guard_free(pk);
    }
  }
  ddbst_item_free(it);
}

/* A sealed cursor of listUsers, and every prefix and one-byte change of
 * it, read by ddbst_query_request from a guard page. */
static void cursors(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  assert_int_equal(
      ddbst_cursor_keys_add_hex(
          keys,
          "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
          &err),
      0);
  int pattern = ddbst_model_pattern(saas, "listUsers");
  int user = ddbst_model_entity(saas, "User");
  ddbst_item *values = ddbst_item_new(saas, user);
  set(values, "orgId", "1");
  size_t len;
  char *body = read_response("local-query-users-page1.json", &len);
  ddbst_page *pg = ddbst_page_new(saas);
  assert_true(ddbst_page_parse_query(pg, values, pattern, body, len, &err) >= 0);
  ddbst_buf *cur = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, DDBST_NOW, cur, &err), 1);
  const char *text = ddbst_buf_data(cur);
  size_t n = ddbst_buf_len(cur);
  char *changed = malloc(n + 1);
  for (size_t l = 0; l <= n; l++) {
    for (int variant = 0; variant < 3; variant++) {
      memcpy(changed, text, n);
      if (variant == 1 && l < n) changed[l] ^= 1;  /* one bit off */
      if (variant == 2 && l < n) changed[l] = '='; /* not base64url */
      size_t use = variant == 0 ? l : n;
      if (variant && l == n) continue;
      char *g = guard_copy(changed, use);
      ddbst_query q;
      memset(&q, 0, sizeof q);
      q.size = sizeof q;
      q.cursor = g;
      q.cursor_len = use;
      q.cursor_keys = keys;
      ddbst_buf_reset(out);
      int rc = ddbst_query_request(values, pattern, &q, out, &err);
      if (variant == 0 && use == n)
        assert_int_equal(rc, DDBST_OP_QUERY);
      else if (use > 0)
        assert_int_equal(rc, DDBST_ECURSOR);
      guard_free(g);
    }
  }
  free(changed);
  ddbst_buf_free(cur);
  ddbst_page_free(pg);
  free(body);
  ddbst_item_free(values);
  ddbst_cursor_keys_free(keys);
}

/* Requests of several ops, each at a guard page whole and cut at every
 * length (cut ones are syntax errors, never a fault). */
static void the_json_entry(void **state) {
  (void)state;
  char config[512];
  snprintf(config, sizeof config,
           "{\"modelFile\":\"%s/examples/saas/model.json\",\"cursorKeys\":"
           "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
           "\"}",
           DDBST_SOURCE_DIR);
  size_t cn = strlen(config);
  ddbst_json *s = NULL;
  for (size_t l = 0; l <= cn; l++) {
    char *g = guard_copy(config, l);
    char *error = NULL;
    ddbst_json *opened = ddbst_json_open(g, l, NULL, &error);
    if (l == cn) {
      if (!opened) fail_msg("%s", error);
      s = opened;
    } else {
      assert_null(opened);
      assert_non_null(error);
    }
    ddbst_json_free(error);
    guard_free(g);
  }
  static const char *const requests[] = {
      "{\"op\":\"check\"}",
      "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
      "\"userId\":\"2\",\"email\":\"A@b.c\",\"name\":\"\\u00e9\\n\"}}",
      "{\"op\":\"put\",\"entity\":\"Event\",\"now\":1767225600000000,"
      "\"values\":{\"projectId\":\"p\",\"ts\":\"2026-01-02T03:04:05Z\","
      "\"payload\":{\"a\":[1,2.5,true,null,{\"b\":\"c\"}]},\"expiresAt\":"
      "1800000000}}",
      "{\"op\":\"update\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
      "\"userId\":\"2\"},\"set\":{\"email\":\"n@b.c\"},\"previous\":"
      "{\"email\":\"o@b.c\"},\"remove\":[\"role\"]}",
      "{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{\"projectId\":"
      "\"1\"},\"condition\":{\"ts\":{\"between\":[\"2026-01\",\"2026-02\"]}},"
      "\"limit\":10}",
      "{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":\"User\","
      "\"values\":{\"orgId\":\"1\",\"userId\":\"2\"}}]}",
      "{\"op\":\"transact\",\"items\":[{\"op\":\"check\",\"entity\":"
      "\"Organisation\",\"values\":{\"orgId\":\"1\"}}]}",
      "{\"op\":\"parse\",\"pk\":\"ORG#1\",\"sk\":\"USER#2\"}",
      "{\"op\":\"cloudformation\",\"streamFilters\":[\"Project:INSERT\"]}",
  };
  for (size_t r = 0; r < sizeof requests / sizeof requests[0]; r++) {
    size_t n = strlen(requests[r]);
    for (size_t l = 0; l <= n; l++) {
      char *g = guard_copy(requests[r], l);
      size_t alen;
      char *a = ddbst_json_call(s, g, l, &alen);
      assert_non_null(a);
      if (l == n && strncmp(a, "{\"error\"", 8) == 0)
        fail_msg("%s: %s", requests[r], a);
      if (l < n) assert_true(strncmp(a, "{\"error\"", 8) == 0);
      ddbst_json_free(a);
      guard_free(g);
    }
  }
  ddbst_json_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(values_of_every_type),
      cmocka_unit_test(update_operands),
      cmocka_unit_test(keys_given_back),
      cmocka_unit_test(cursors),
      cmocka_unit_test(the_json_entry),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
