/* Expression placeholders (src/request/expr.c): names numbered in order of
 * first use and shared by equal names, values numbered in order, every
 * kind of value written as its AttributeValue, the two maps emitted only
 * when used, and running out of placeholders refused, not overflowed. */
#include <stdio.h>
#include <string.h>

#include "request/expr.h"
#include "support.h"

static const char model_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},"
    "\"entities\":{\"Thing\":{\"attributes\":{\"id\":\"string\","
    "\"s\":\"string\",\"num\":\"number\",\"flag\":\"boolean\","
    "\"bin\":\"binary\",\"list\":\"list\",\"map\":\"map\","
    "\"tags\":\"string_set\",\"nums\":\"number_set\","
    "\"at\":{\"type\":\"timestamp\",\"precision\":\"s\"},"
    "\"kind\":{\"type\":\"enum\",\"values\":[\"a\",\"b\"]},"
    "\"u\":\"ulid\",\"exp\":\"ttl\",\"n\":\"integer\"},"
    "\"key\":{\"pk\":\"T#{id}\",\"sk\":\"T\"}}}}";

static ddbst_model *m;
static ddbst_item *it;
static ddbst_buf *out;

static int setup(void **state) {
  (void)state;
  m = load_text(model_json);
  it = ddbst_item_new(m, ddbst_model_entity(m, "Thing"));
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_item_free(it);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return 0;
}

static int attr(const char *name) {
  return ddbst_model_attribute(m, ddbst_item_entity(it), name);
}

static void fresh(void) {
  ddbst_item_reset(it, ddbst_item_entity(it));
  ddbst__expr_reset(it);
  ddbst_buf_reset(out);
}

static void names_numbered_by_first_use(void **state) {
  (void)state;
  fresh();
  assert_int_equal(ddbst__expr_name(it, "s", out), 0);
  assert_int_equal(ddbst__expr_name(it, "num", out), 0);
  assert_int_equal(ddbst__expr_name(it, "s", out), 0); /* the same name */
  assert_int_equal(ddbst__expr_name(it, "PK", out), 0);
  assert_string_equal(ddbst_buf_data(out), "#n0#n1#n0#n2");
  assert_int_equal(ddbst__expr_add_name(it, "num"), 1);
  assert_int_equal(ddbst__expr_add_name(it, "flag"), 3);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst__expr_emit(it, out), 0);
  assert_string_equal(ddbst_buf_data(out),
                      ",\"ExpressionAttributeNames\":{\"#n0\":\"s\","
                      "\"#n1\":\"num\",\"#n2\":\"PK\",\"#n3\":\"flag\"}");
  /* a name the model does not have is no placeholder */
  assert_int_equal(ddbst__expr_add_name(it, "nope"), DDBST_EINVAL);
}

/* The same calls give the same bytes, after a reset too. */
static void deterministic(void **state) {
  (void)state;
  char first[512];
  for (int round = 0; round < 3; round++) {
    fresh();
    set(it, "s", "x");
    assert_int_equal(ddbst__expr_name(it, "flag", out), 0);
    assert_int_equal(ddbst__expr_attr_value(it, attr("s"), out), 0);
    assert_int_equal(ddbst__expr_name(it, "s", out), 0);
    assert_int_equal(ddbst__expr_number(it, "3", out), 0);
    assert_int_equal(ddbst__expr_emit(it, out), 0);
    if (round == 0)
      snprintf(first, sizeof first, "%s", ddbst_buf_data(out));
    else
      assert_string_equal(ddbst_buf_data(out), first);
  }
  assert_string_equal(first,
                      "#n0:v0#n1:v1,\"ExpressionAttributeNames\":{\"#n0\":"
                      "\"flag\",\"#n1\":\"s\"},\"ExpressionAttributeValues\":"
                      "{\":v0\":{\"S\":\"x\"},\":v1\":{\"N\":\"3\"}}");
}

/* Each attribute type's value, and each literal kind. */
static void every_value_kind(void **state) {
  (void)state;
  fresh();
  static const struct {
    const char *name, *value, *av;
  } cases[] = {
      {"s", "a\"b", "{\"S\":\"a\\\"b\"}"},
      {"num", "-12.50", "{\"N\":\"-12.50\"}"},
      {"flag", "true", "{\"BOOL\":true}"},
      {"bin", "AAEC", "{\"B\":\"AAEC\"}"},
      {"list", "[1,\"x\",null]",
       "{\"L\":[{\"N\":\"1\"},{\"S\":\"x\"},{\"NULL\":true}]}"},
      {"map", "{\"k\":false}", "{\"M\":{\"k\":{\"BOOL\":false}}}"},
      {"tags", "[\"a\",\"b\"]", "{\"SS\":[\"a\",\"b\"]}"},
      {"nums", "[1,2]", "{\"NS\":[\"1\",\"2\"]}"},
      {"at", "2026-01-02T03:04:05Z", "{\"S\":\"2026-01-02T03:04:05Z\"}"},
      {"kind", "b", "{\"S\":\"b\"}"},
      {"u", "01ARZ3NDEKTSV4RRFFQ69G5FAV",
       "{\"S\":\"01ARZ3NDEKTSV4RRFFQ69G5FAV\"}"},
      {"exp", "1800000000", "{\"N\":\"1800000000\"}"},
      {"n", "42", "{\"N\":\"42\"}"},
  };
  size_t n = sizeof cases / sizeof cases[0];
  char want[2048] = ",\"ExpressionAttributeValues\":{";
  for (size_t i = 0; i < n; i++) {
    set(it, cases[i].name, cases[i].value);
    assert_int_equal(ddbst__expr_attr_value(it, attr(cases[i].name), out), 0);
    size_t l = strlen(want);
    snprintf(want + l, sizeof want - l, "%s\":v%zu\":%s", i ? "," : "", i,
             cases[i].av);
  }
  /* literals: a number, a string that needs escaping, a raw value */
  assert_int_equal(ddbst__expr_number(it, "0", out), 0);
  assert_int_equal(ddbst__expr_string(it, "q\"\n", out), 0);
  assert_int_equal(ddbst__expr_raw(it, "{\"L\":[]}", out), 0);
  strcat(want, ",\":v13\":{\"N\":\"0\"},\":v14\":{\"S\":\"q\\\"\\n\"},"
               "\":v15\":{\"L\":[]}}");
  assert_string_equal(
      ddbst_buf_data(out),
      ":v0:v1:v2:v3:v4:v5:v6:v7:v8:v9:v10:v11:v12:v13:v14:v15");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst__expr_emit(it, out), 0);
  assert_string_equal(ddbst_buf_data(out), want);
}

/* Keys built into the item's key text: plain ones written by emit itself,
 * others escaped. */
static void key_values(void **state) {
  (void)state;
  fresh();
  set(it, "id", "1");
  ddbst_error err;
  assert_true(ddbst_item_build_keys(it, &err) >= 0);
  assert_true(it->nkeys >= 2);
  ddbst__vref plain = {DDBST__REF_PLAIN_KEY, -1, it->keys[0].off,
                       it->keys[0].len, NULL};
  ddbst__vref key = {DDBST__REF_KEY, -1, it->keys[1].off, it->keys[1].len,
                     NULL};
  assert_int_equal(ddbst__expr_value(it, plain, out), 0);
  assert_int_equal(ddbst__expr_value(it, key, out), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst__expr_emit(it, out), 0);
  assert_string_equal(
      ddbst_buf_data(out),
      ",\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"T#1\"},"
      "\":v1\":{\"S\":\"T\"}}");
}

static void nothing_used_nothing_emitted(void **state) {
  (void)state;
  fresh();
  assert_int_equal(ddbst__expr_emit(it, out), 0);
  assert_int_equal(ddbst_buf_len(out), 0);
  /* values alone: no names map */
  assert_int_equal(ddbst__expr_number(it, "1", out), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst__expr_emit(it, out), 0);
  assert_string_equal(
      ddbst_buf_data(out),
      ",\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"1\"}}");
}

/* The placeholder arrays are sized when the item is made; past them is
 * DDBST_ERANGE, and what was written stays numbered as before. */
static void running_out_of_placeholders(void **state) {
  (void)state;
  fresh();
  int cap = it->cap_refs;
  for (int i = 0; i < cap; i++)
    assert_int_equal(ddbst__expr_add_value(
                         it, (ddbst__vref){DDBST__REF_NUMBER, -1, 0, 0, "1"}),
                     i);
  assert_int_equal(ddbst__expr_number(it, "1", out), DDBST_ERANGE);
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(it->nrefs, cap);
  /* names likewise: the model has fewer names than the item has room for,
   * so shrink the room to reach its end */
  fresh();
  it->cap_refs = 2;
  assert_int_equal(ddbst__expr_name(it, "s", out), 0);
  assert_int_equal(ddbst__expr_name(it, "num", out), 0);
  assert_int_equal(ddbst__expr_name(it, "s", out), 0); /* known: fine */
  assert_int_equal(ddbst__expr_name(it, "flag", out), DDBST_ERANGE);
  assert_string_equal(ddbst_buf_data(out), "#n0#n1#n0");
  it->cap_refs = cap;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_numbered_by_first_use),
      cmocka_unit_test(deterministic),
      cmocka_unit_test(every_value_kind),
      cmocka_unit_test(key_values),
      cmocka_unit_test(nothing_used_nothing_emitted),
      cmocka_unit_test(running_out_of_placeholders),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
