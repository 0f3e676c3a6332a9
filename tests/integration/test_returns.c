/* What writes and counts answer with, on DynamoDB Local, read back through
 * ddbst's own parser (the catalogue model, examples/catalog/model.json):
 *  - ReturnValues: ALL_OLD on a put and a delete, all four on an update,
 *    each parsed into a typed item (ddbst_page_parse_write, ddbst_page_item)
 *    and held against what the table held before and after;
 *  - ReturnValuesOnConditionCheckFailure: a single write's and a
 *    transaction's failed condition explained with the value that failed
 *    it ("version is 1, you expected 5"; "status is published");
 *  - Select COUNT with a filter: the Count equals the items the same query
 *    returns without it;
 *  - the refusals: values no write of that kind returns, values from a
 *    transaction, a count with a projection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static itest_fixture *fixture;
static ddbst_page *page;
static ddbst_item *got;
static ddbst_buf *text;
static int product;

static int setup(void **state) {
  fixture = itest_open(DDBST_SOURCE_DIR "/examples/catalog/model.json", "ret");
  if (!fixture) return -1;
  *state = fixture; /* teardown's itest_teardown drops its table */
  itest_fixture *f = fixture;
  product = ddbst_model_entity(f->model, "Product");
  page = ddbst_page_new(f->model);
  got = ddbst_item_new(f->model, product);
  text = ddbst_buf_new(NULL);
  if (!page || !got || !text) return -1;
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p1", "name=Red hat",
               "status=published", "price=12.5", "stock=5",
               "tags=[\"new\",\"sale\"]");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p2", "name=Blue cap",
               "status=draft", "price=8", "stock=0");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p3", "name=Green scarf",
               "status=retired", "price=30", "stock=12");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p4", "name=Red scarf",
               "status=published", "price=2.5", "stock=3");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p7", "name=Hat rack",
               "status=published", "price=100", "stock=1");
  /* another shop: never counted */
  ITEST_CREATE(f, "Product", "shopId=s2", "sku=p1", "name=Other",
               "status=published");
  return 0;
}

/* What setup made for reading answers, then the fixture's teardown. */
static int teardown(void **state) {
  ddbst_page_free(page);
  ddbst_item_free(got);
  ddbst_buf_free(text);
  return itest_teardown(state);
}

/* The text of attribute `name` of `it`, or NULL when it is not set. */
static const char *value(const ddbst_item *it, const char *name) {
  int a = ddbst_model_attribute(fixture->model, product, name);
  const char *v = NULL;
  size_t n;
  if (a < 0) fail_msg("no attribute %s", name);
  return ddbst_item_get(it, a, &v, &n) == 1 ? v : NULL;
}

static void want_value(const ddbst_item *it, const char *name,
                         const char *want) {
  const char *v = value(it, name);
  if (!want && v) fail_msg("%s: wanted it unset, got %s", name, v);
  if (want && (!v || strcmp(v, want)))
    fail_msg("%s: wanted %s, got %s\nresponse: %s", name, want,
             v ? v : "(unset)", itest_client_body(fixture->client));
}

/* The last answer, through ddbst_page_parse_write as entity Product. */
static int parse_write(int op) {
  ddbst_error err;
  int n = ddbst_page_parse_write(page, op, product,
                                 itest_client_body(fixture->client),
                                 itest_client_body_len(fixture->client), &err);
  if (n < 0)
    fail_msg("the answer was refused: %s: %s\nanswer: %s", err.path,
             err.message, itest_client_body(fixture->client));
  if (n == 1) assert_int_equal(ddbst_page_item(page, 0, got, &err), product);
  return n;
}

static void expect_in_body(const char *part) {
  if (!strstr(ddbst_buf_data(fixture->body), part))
    fail_msg("wanted %s in %s", part, ddbst_buf_data(fixture->body));
}

static int update_with(const char *actions, uint32_t flags) {
  itest_fixture *f = fixture;
  if (ddbst_item_update_text(f->item, actions, strlen(actions), &f->err))
    fail_msg("%s: %s", actions, f->err.message);
  return ddbst_update_request(f->item, flags, ITEST_NOW_US, itest_body(f),
                              &f->err);
}

static void return_values(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  /* put ALL_OLD: the item as it was */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p2", "name=Blue cap 2",
               "status=published", "price=9");
  int op = ddbst_put_request(f->item, DDBST_RETURN_ALL_OLD, ITEST_NOW_US,
                             itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_PUT_ITEM);
  expect_in_body(",\"ReturnValues\":\"ALL_OLD\"");
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  want_value(got, "name", "Blue cap");
  want_value(got, "status", "draft");
  want_value(got, "price", "8");
  want_value(got, "sku", "p2");

  /* update: each of the four on stock 5 → 6 → 7 → 8 → 9 */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
  op = update_with("set stock = stock + 1", DDBST_RETURN_ALL_NEW);
  expect_in_body(",\"ReturnValues\":\"ALL_NEW\"");
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  want_value(got, "stock", "6");
  want_value(got, "name", "Red hat");
  want_value(got, "version", "2");
  /* a set as the item keeps it */
  want_value(got, "tags", "{\"SS\":[\"new\",\"sale\"]}");

  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
  op = update_with("set stock = stock + 1", DDBST_RETURN_ALL_OLD);
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  want_value(got, "stock", "6");
  want_value(got, "name", "Red hat");

  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
  op = update_with("set stock = stock + 1", DDBST_RETURN_UPDATED_OLD);
  expect_in_body(",\"ReturnValues\":\"UPDATED_OLD\"");
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  /* only what the update wrote: no name, no keys */
  want_value(got, "stock", "7");
  want_value(got, "version", "3");
  want_value(got, "name", NULL);
  want_value(got, "sku", NULL);
  /* without the entity such values cannot be told */
  ddbst_error err;
  assert_int_equal(ddbst_page_parse(page, op, itest_client_body(f->client),
                                    itest_client_body_len(f->client), &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Attributes");

  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
  op = update_with("set stock = stock + 1", DDBST_RETURN_UPDATED_NEW);
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  want_value(got, "stock", "9");
  want_value(got, "version", "5");
  want_value(got, "name", NULL);
  /* as JSON too */
  ddbst_buf_reset(text);
  assert_int_equal(ddbst_page_item_json(page, 0, text, &err), 0);
  if (!strstr(ddbst_buf_data(text), "\"stock\":9"))
    fail_msg("item JSON: %s", ddbst_buf_data(text));

  /* delete ALL_OLD: the item deleted; again: nothing was there */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p2");
  op = ddbst_delete_request(f->item, DDBST_RETURN_ALL_OLD, itest_body(f),
                            &f->err);
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 1);
  want_value(got, "name", "Blue cap 2");
  want_value(got, "price", "9");
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p2");
  op = ddbst_delete_request(f->item, DDBST_RETURN_ALL_OLD, itest_body(f),
                            &f->err);
  itest_ok(f, op);
  assert_int_equal(parse_write(op), 0);
  /* and the table agrees */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p2");
  assert_null(itest_get(f));
}

static void refusals(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p4", "name=x");
  assert_int_equal(ddbst_put_request(f->item, DDBST_RETURN_ALL_NEW,
                                     ITEST_NOW_US, itest_body(f), &f->err),
                   DDBST_EINVAL);
  assert_string_equal(f->err.message,
                      "a put returns the item as it was (return ALL_OLD, "
                      "--return old or DDBST_RETURN_ALL_OLD) "
                      "or nothing");
  assert_int_equal(ddbst_buf_len(f->body), 0);
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p4");
  assert_int_equal(ddbst_delete_request(f->item, DDBST_RETURN_UPDATED_NEW,
                                        itest_body(f), &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(f->body), 0);
  /* a transaction returns no values */
  ddbst_txn *t = ddbst_txn_new(f->model);
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p4");
  assert_int_equal(ddbst_txn_delete(t, f->item, DDBST_RETURN_ALL_OLD, &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_txn_count(t), 0);
  assert_int_equal(ddbst_txn_check_flags(t, f->item, DDBST_RETURN_ALL_OLD,
                                         &f->err),
                   DDBST_EINVAL);
  ddbst_txn_free(t);
  /* a count returns no attributes */
  ITEST_VALUES(f, "Product", "shopId=s1");
  assert_int_equal(
      ddbst_item_project(f->item,
                         ddbst_model_attribute(f->model, product, "name")),
      0);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.flags = DDBST_QUERY_COUNT;
  assert_int_equal(
      ddbst_query_request(f->item, ddbst_model_pattern(f->model,
                                                       "listProducts"),
                          &q, itest_body(f), &f->err),
      DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(f->body), 0);
}

/* The answer DynamoDB refused `op` with, parsed; explained by the item. */
static const char *explain_item(int op, uint32_t flags) {
  itest_fixture *f = fixture;
  itest_condition_failed(f, op);
  ddbst_error err;
  assert_true(ddbst_page_parse_error(page, itest_client_body(f->client),
                                     itest_client_body_len(f->client),
                                     &err) > 0);
  ddbst_buf_reset(text);
  int bop = op == DDBST_OP_TRANSACT_WRITE_ITEMS ? DDBST_OP_UPDATE_ITEM : op;
  if (ddbst_item_explain(f->item, bop, flags, page, text, &err) < 0)
    fail_msg("explain: %s", err.message);
  return ddbst_buf_data(text);
}

#define P7 "Product (SHOP#s1 / PRODUCT#p7)"

static void failed_conditions_explained(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  uint32_t flags = DDBST_RETURN_OLD_ON_FAILURE;
  /* the version: p7 is at 1 */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7", "price=90");
  assert_int_equal(ddbst_item_expect_version(f->item, 5), 0);
  int op = ddbst_update_request(f->item, flags, ITEST_NOW_US, itest_body(f),
                                &f->err);
  expect_in_body(",\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"");
  assert_string_equal(explain_item(op, flags),
                      "version mismatch: " P7 ": version is 1, you expected "
                      "5; read it again and retry\n");
  /* the item as it is, typed */
  ddbst_error err;
  assert_int_equal(ddbst_page_error_item(page, -1, got, &err), product);
  want_value(got, "price", "100");
  want_value(got, "version", "1");
  /* the caller's condition, with what it read */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7", "price=90");
  const char *c = "status = \"draft\" and stock > 0";
  assert_int_equal(ddbst_item_condition_text(f->item, c, strlen(c), &f->err),
                   0);
  op = ddbst_update_request(f->item, flags, ITEST_NOW_US, itest_body(f),
                            &f->err);
  assert_string_equal(explain_item(op, flags),
                      P7 ": the condition failed: status is published, stock "
                      "is 1\n");
  /* without asking for the item, the two cannot be told apart */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7", "price=90");
  assert_int_equal(ddbst_item_condition_text(f->item, c, strlen(c), &f->err),
                   0);
  op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f), &f->err);
  assert_string_equal(explain_item(op, 0),
                      P7 " does not exist, or the condition failed "
                         "(returnOnFailure, --return-on-failure or "
                         "DDBST_RETURN_OLD_ON_FAILURE tells which)\n");
  assert_int_equal(ddbst_page_error_item(page, -1, got, &err),
                   DDBST_ENOTFOUND);
  /* a delete whose item is not there */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p9");
  c = "attribute_exists(name)";
  assert_int_equal(ddbst_item_condition_text(f->item, c, strlen(c), &f->err),
                   0);
  op = ddbst_delete_request(f->item, flags, itest_body(f), &f->err);
  assert_string_equal(explain_item(op, flags),
                      "Product (SHOP#s1 / PRODUCT#p9): the condition failed: "
                      "the item does not exist\n");
  /* nothing changed */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7");
  itest_expect_n(itest_get(f), "price", "100");
}

static void failed_conditions_in_a_transaction(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  uint32_t flags = DDBST_RETURN_OLD_ON_FAILURE;
  ddbst_txn *t = ddbst_txn_new(f->model);
  /* an update that holds, and a check that does not */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7", "price=80");
  assert_int_equal(ddbst_txn_update(t, f->item, flags, ITEST_NOW_US, &f->err),
                   0);
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p4");
  const char *c = "stock >= 10";
  assert_int_equal(ddbst_item_condition_text(f->item, c, strlen(c), &f->err),
                   0);
  assert_int_equal(ddbst_txn_check_flags(t, f->item, flags, &f->err), 0);
  int op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  itest_condition_failed(f, op);
  ddbst_error err;
  assert_true(ddbst_page_parse_error(page, itest_client_body(f->client),
                                     itest_client_body_len(f->client),
                                     &err) > 0);
  ddbst_buf_reset(text);
  assert_int_equal(ddbst_txn_explain(t, page, text, &err),
                   DDBST_FAIL_CONDITION);
  assert_string_equal(ddbst_buf_data(text),
                      "TransactItems[1]: Product (SHOP#s1 / PRODUCT#p4): the "
                      "condition failed: stock is 3\n");
  assert_int_equal(ddbst_page_error_item(page, 1, got, &err), product);
  want_value(got, "name", "Red scarf");
  assert_int_equal(ddbst_page_error_item(page, 0, got, &err),
                   DDBST_ENOTFOUND);
  /* a version in a transaction */
  ddbst_txn_reset(t);
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7", "price=80");
  assert_int_equal(ddbst_item_expect_version(f->item, 3), 0);
  assert_int_equal(ddbst_txn_update(t, f->item, flags, ITEST_NOW_US, &f->err),
                   0);
  op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  itest_condition_failed(f, op);
  assert_true(ddbst_page_parse_error(page, itest_client_body(f->client),
                                     itest_client_body_len(f->client),
                                     &err) > 0);
  ddbst_buf_reset(text);
  assert_int_equal(ddbst_txn_explain(t, page, text, &err), DDBST_FAIL_VERSION);
  assert_string_equal(ddbst_buf_data(text),
                      "TransactItems[0]: version mismatch: " P7 ": version "
                      "is 1, you expected 3; read it again and retry\n");
  ddbst_txn_free(t);
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p7");
  itest_expect_n(itest_get(f), "price", "100");
}

/* Items of listProducts in shop s1 for which `filter` holds (NULL: all),
 * counted by reading them; then the same query with Select COUNT. */
static void count_against_items(const char *filter) {
  itest_fixture *f = fixture;
  int pattern = ddbst_model_pattern(f->model, "listProducts");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter_text = filter;
  q.filter_text_len = filter ? strlen(filter) : 0;
  ITEST_VALUES(f, "Product", "shopId=s1");
  size_t want = itest_query(f, "listProducts", &q)->u.array.len;
  ITEST_VALUES(f, "Product", "shopId=s1");
  size_t all = itest_query(f, "listProducts", NULL)->u.array.len;
  q.flags = DDBST_QUERY_COUNT;
  ITEST_VALUES(f, "Product", "shopId=s1");
  int op = ddbst_query_request(f->item, pattern, &q, itest_body(f), &f->err);
  expect_in_body(",\"Select\":\"COUNT\"");
  itest_ok(f, op);
  ddbst_error err;
  assert_int_equal(ddbst_page_parse(page, op, itest_client_body(f->client),
                                    itest_client_body_len(f->client), &err),
                   0);
  int64_t scanned = -2;
  assert_int_equal(ddbst_page_query_count(page, &scanned), (int64_t)want);
  assert_int_equal(scanned, (int64_t)all);
}

static void counts(void **state) {
  (void)state;
  count_against_items(NULL);
  count_against_items("status = \"published\"");
  count_against_items("price < 10");
  count_against_items("status = \"draft\"");
}

int main(void) {
  if (itest_should_skip("test_returns")) return ITEST_SKIP;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(return_values),
      cmocka_unit_test(refusals),
      cmocka_unit_test(failed_conditions_explained),
      cmocka_unit_test(failed_conditions_in_a_transaction),
      cmocka_unit_test(counts),
  };
  return cmocka_run_group_tests_name("returns", tests, setup, teardown);
}
