/* Item size as DynamoDB counts it (src/item/itemsize.c): attribute names
 * plus values — strings and binary by their bytes, numbers by significant
 * digits, one byte for a boolean or null, three for a list or map plus one
 * per element, sets by their elements — keys included, and the 400 KB
 * (409,600 bytes) limit exactly at its edge. Each case sets one attribute
 * and measures what it adds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "item/itemsize.h"
#include "support.h"

static const char model_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},"
    "\"entities\":{\"Thing\":{\"attributes\":{\"id\":\"string\","
    "\"s\":\"string\",\"num\":\"number\",\"int\":\"integer\","
    "\"flag\":\"boolean\",\"bin\":\"binary\",\"list\":\"list\","
    "\"map\":\"map\",\"tags\":\"string_set\",\"nums\":\"number_set\"},"
    "\"key\":{\"pk\":\"T#{id}\",\"sk\":\"T\"}}}}";

static ddbst_model *m;
static int thing;

static int setup(void **state) {
  (void)state;
  m = load_text(model_json);
  thing = ddbst_model_entity(m, "Thing");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(m);
  return 0;
}

static int size_of(ddbst_item *it) {
  ddbst_error err;
  int n = ddbst_item_size(it, &err);
  if (n < 0) fail_msg("item size: %s: %s", err.path, err.message);
  return n;
}

/* What setting `name` to `value` adds to the item's size. */
static int adds(const char *name, const char *value) {
  ddbst_item *it = ddbst_item_new(m, thing);
  set(it, "id", "1");
  int before = size_of(it);
  set(it, name, value);
  int after = size_of(it);
  ddbst_item_free(it);
  return after - before;
}

static void keys_and_names_count(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(m, thing);
  set(it, "id", "1");
  /* PK "T#1" 2 + 3, SK "T" 2 + 1, id "1" 2 + 1 (no entity attribute) */
  assert_int_equal(size_of(it), 11);
  ddbst_item_free(it);
}

static void strings_by_utf8_bytes(void **state) {
  (void)state;
  assert_int_equal(adds("s", "x"), 1 + 1);
  assert_int_equal(adds("s", "h\xc3\xa9llo"), 1 + 6);     /* é is 2 bytes */
  assert_int_equal(adds("s", "\xe2\x82\xac"), 1 + 3);     /* € */
  assert_int_equal(adds("s", "\xf0\x9f\x98\x80"), 1 + 4); /* an emoji */
  /* a control character is one byte, though JSON writes it as \u0001 */
  assert_int_equal(adds("s", "a\x01"
                             "b"),
                   1 + 3);
  assert_int_equal(adds("s", "a\"b\\"), 1 + 4);
}

static void numbers_by_significant_digits(void **state) {
  (void)state;
  /* (significant digits + 1) / 2 + 1, leading and trailing zeros trimmed */
  assert_int_equal(adds("num", "0"), 3 + 2);
  assert_int_equal(adds("num", "7"), 3 + 2);
  assert_int_equal(adds("num", "12"), 3 + 2);
  assert_int_equal(adds("num", "123"), 3 + 3);
  assert_int_equal(adds("num", "123.45"), 3 + 4);
  assert_int_equal(adds("num", "-1000"), 3 + 2);
  assert_int_equal(adds("num", "0.00100"), 3 + 2);
  assert_int_equal(adds("num", "100.001"), 3 + 4);
  assert_int_equal(adds("num", "12345678901234567890123456789012345678"),
                   3 + 20);
  assert_int_equal(adds("int", "1000000"), 3 + 2);
  assert_int_equal(adds("int", "-9876543"), 3 + 5);
}

static void booleans_and_binary(void **state) {
  (void)state;
  assert_int_equal(adds("flag", "true"), 4 + 1);
  assert_int_equal(adds("flag", "false"), 4 + 1);
  /* binary by its decoded bytes */
  assert_int_equal(adds("bin", "AAEC"), 3 + 3);
  assert_int_equal(adds("bin", "AQ=="), 3 + 1);
  assert_int_equal(adds("bin", "AQI="), 3 + 2);
}

static void lists_maps_and_null(void **state) {
  (void)state;
  /* 3 + per element its size + 1: N 1 (2), S "ab" (2), BOOL (1), NULL (1),
   * an empty list (3) */
  assert_int_equal(adds("list", "[1,\"ab\",true,null,[]]"),
                   4 + 3 + 3 + 3 + 2 + 2 + 4);
  assert_int_equal(adds("list", "[]"), 4 + 3);
  /* 3 + per member name + size + 1: a "xy" (1 + 2 + 1), bb {c 1}
   * (2 + (3 + 1 + 2 + 1) + 1) */
  assert_int_equal(adds("map", "{\"a\":\"xy\",\"bb\":{\"c\":1}}"),
                   3 + 3 + 4 + 10);
  assert_int_equal(adds("map", "{}"), 3 + 3);
  assert_int_equal(adds("map", "{\"n\":null}"), 3 + 3 + 1 + 1 + 1);
}

static void sets_by_their_elements(void **state) {
  (void)state;
  assert_int_equal(adds("tags", "[\"a\",\"bcd\"]"), 4 + 1 + 3);
  assert_int_equal(adds("tags", "[\"\xc3\xa9\"]"), 4 + 2);
  /* inside a document, by the decoded bytes, not the JSON escapes */
  assert_int_equal(adds("tags", "[\"a\\u0001b\"]"), 4 + 3);
  assert_int_equal(adds("tags", "[\"a\\\"b\\\\\"]"), 4 + 4);
  assert_int_equal(adds("nums", "[1,22.5]"), 4 + 2 + 3);
}

/* An item of exactly 409,600 bytes is written; one byte more is refused
 * before any body is built. */
static void the_limit_at_its_edge(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_item *it = ddbst_item_new(m, thing);
  set(it, "id", "1");
  int base = size_of(it) + 1; /* and the name "s" */
  size_t n = (size_t)(DDBST__ITEM_MAX - base);
  char *big = malloc(n + 2);
  memset(big, 'x', n + 1);
  big[n] = '\0';
  set(it, "s", big);
  assert_int_equal(size_of(it), 409600);
  assert_int_equal(ddbst_put_request(it, 0, 1, out, &err), DDBST_OP_PUT_ITEM);
  big[n] = 'x';
  big[n + 1] = '\0';
  set(it, "s", big);
  assert_int_equal(size_of(it), 409601);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(it, 0, 1, out, &err), DDBST_ERANGE);
  assert_string_equal(err.path, "Thing");
  assert_string_equal(err.message, "the Thing would be 409601 bytes; "
                                   "DynamoDB stores at most 409600 per item");
  assert_int_equal(ddbst_buf_len(out), 0);
  free(big);
  ddbst_item_free(it);
  ddbst_buf_free(out);
}

/* An update is held to the limit as far as it can tell: the key and the
 * values it writes make at least the item it leaves (what the item held
 * before only DynamoDB knows). At 409,600 bytes it is built; one more is
 * refused before any body, plain or upsert. */
static void an_update_at_the_limit(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_item *it = ddbst_item_new(m, thing);
  /* PK "T#1" 2 + 3, SK "T" 2 + 1, the name "s" 1; id is in the key only */
  size_t n = (size_t)(DDBST__ITEM_MAX - 9);
  char *big = malloc(n + 2);
  memset(big, 'x', n + 1);
  big[n] = '\0';
  for (int upsert = 0; upsert < 2; upsert++) {
    uint32_t flags = upsert ? DDBST_UPSERT : 0;
    ddbst_item_reset(it, thing);
    set(it, "id", "1");
    big[n] = '\0';
    set(it, "s", big);
    ddbst_buf_reset(out);
    assert_int_equal(ddbst_update_request(it, flags, 1, out, &err),
                     DDBST_OP_UPDATE_ITEM);
    big[n] = 'x';
    big[n + 1] = '\0';
    set(it, "s", big);
    ddbst_buf_reset(out);
    assert_int_equal(ddbst_update_request(it, flags, 1, out, &err),
                     DDBST_ERANGE);
    assert_string_equal(err.path, "Thing");
    assert_string_equal(err.message,
                        "the Thing would be at least 409601 bytes after this "
                        "update (its key and the values it writes); DynamoDB "
                        "stores at most 409600 per item");
    assert_int_equal(ddbst_buf_len(out), 0);
  }
  /* two values, each well under the limit, together over it */
  ddbst_item_reset(it, thing);
  set(it, "id", "1");
  big[205000] = '\0';
  set(it, "s", big);
  char *b64 = malloc(280000 + 1);
  memset(b64, 'A', 280000);
  b64[280000] = '\0';
  set(it, "bin", b64); /* 210,000 bytes decoded */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, 1, out, &err), DDBST_ERANGE);
  assert_string_equal(err.message,
                      "the Thing would be at least 415012 bytes after this "
                      "update (its key and the values it writes); DynamoDB "
                      "stores at most 409600 per item");
  /* an ADD of set elements counts them, a list append its elements */
  ddbst_item_reset(it, thing);
  set(it, "id", "1");
  /* PK, SK 8 + "tags" 4 + the element's bytes */
  char *tags = malloc(n + 16);
  size_t k = 409601 - 12;
  tags[0] = '[';
  tags[1] = '"';
  memset(tags + 2, 'x', k);
  memcpy(tags + 2 + k, "\"]", 3);
  assert_int_equal(ddbst_item_add(it, ddbst_model_attribute(m, thing, "tags"),
                                  tags, k + 4, &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, 1, out, &err), DDBST_ERANGE);
  assert_string_equal(err.message,
                      "the Thing would be at least 409601 bytes after this "
                      "update (its key and the values it writes); DynamoDB "
                      "stores at most 409600 per item");
  /* PK, SK 8 + "list" 4 + a list's 3 + an element's 1 + its bytes */
  ddbst_item_reset(it, thing);
  set(it, "id", "1");
  k = 409601 - 16;
  memset(tags + 2, 'x', k);
  memcpy(tags + 2 + k, "\"]", 3);
  assert_int_equal(ddbst_item_append(it, ddbst_model_attribute(m, thing, "list"),
                                     tags, k + 4, &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, 1, out, &err), DDBST_ERANGE);
  assert_string_equal(err.message,
                      "the Thing would be at least 409601 bytes after this "
                      "update (its key and the values it writes); DynamoDB "
                      "stores at most 409600 per item");
  tags[2 + k - 1] = '"';
  tags[2 + k] = ']';
  assert_int_equal(ddbst_item_append(it, ddbst_model_attribute(m, thing, "list"),
                                     tags, k + 3, &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, 1, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  free(tags);
  free(b64);
  free(big);
  ddbst_item_free(it);
  ddbst_buf_free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keys_and_names_count),
      cmocka_unit_test(strings_by_utf8_bytes),
      cmocka_unit_test(numbers_by_significant_digits),
      cmocka_unit_test(booleans_and_binary),
      cmocka_unit_test(lists_maps_and_null),
      cmocka_unit_test(sets_by_their_elements),
      cmocka_unit_test(the_limit_at_its_edge),
      cmocka_unit_test(an_update_at_the_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
