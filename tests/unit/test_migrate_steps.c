/* ddbst_migration_*, the parts around a write: guards that move with
 * their holder and versions a move checks and raises, what a refused
 * write means and the re-read that redoes it, reading items of both
 * models, the writer protocol's requests, pages a migration refuses, and
 * allocation failure at every site. Models:
 * tests/integration/models/migrate_v1.json and migrate_v2.json (customers
 * with unique emails whose sort key moves; orders with a version whose
 * key moves to milliseconds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define V1 "tests/integration/models/migrate_v1.json"
#define V2 "tests/integration/models/migrate_v2.json"

#define CUSTOMER_C1                                                            \
  "{\"PK\":{\"S\":\"CUST#c1\"},\"SK\":{\"S\":\"CUST#c1\"},\"_type\":{\"S\":"   \
  "\"Customer\"},\"customerId\":{\"S\":\"c1\"},\"email\":{\"S\":"              \
  "\"Ann@X.com\"},\"tier\":{\"S\":\"pro\"}}"
#define GUARD_C1                                                               \
  "{\"PK\":{\"S\":\"EMAIL#ann@x.com\"},\"SK\":{\"S\":\"EMAIL#ann@x.com\"},"    \
  "\"_type\":{\"S\":\"Customer.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":" \
  "\"CUST#c1\"},\"SK\":{\"S\":\"CUST#c1\"}}}}"
#define ORDER_O1                                                               \
  "{\"PK\":{\"S\":\"CUST#c1\"},\"SK\":{\"S\":"                                 \
  "\"ORDER#2026-02-01T00:00:00Z#o1\"},\"_type\":{\"S\":\"Order\"},"            \
  "\"customerId\":{\"S\":\"c1\"},\"orderId\":{\"S\":\"o1\"},\"placedAt\":{"   \
  "\"S\":\"2026-02-01T00:00:00Z\"},\"status\":{\"S\":\"open\"},\"version\":{" \
  "\"N\":\"4\"},\"GSI1PK\":{\"S\":\"STATUS#open\"},\"GSI1SK\":{\"S\":"        \
  "\"2026-02-01T00:00:00Z#o1\"}}"
#define CUSTOMER_GOLD                                                          \
  "{\"PK\":{\"S\":\"CUST#c2\"},\"SK\":{\"S\":\"CUST#c2\"},\"_type\":{\"S\":"   \
  "\"Customer\"},\"customerId\":{\"S\":\"c2\"},\"email\":{\"S\":\"b@x.com\"},"\
  "\"tier\":{\"S\":\"gold\"}}"

#define C1_MOVE                                                                \
  "{\"TransactItems\":[{\"Put\":{\"TableName\":\"shop-dev\",\"Item\":{"        \
  "\"PK\":{\"S\":\"CUST#c1\"},\"SK\":{\"S\":\"PROFILE#c1\"},\"GSI2PK\":{"     \
  "\"S\":\"TIER#pro\"},\"GSI2SK\":{\"S\":\"c1\"},\"_type\":{\"S\":"           \
  "\"Customer\"},\"customerId\":{\"S\":\"c1\"},\"email\":{\"S\":"             \
  "\"Ann@X.com\"},\"tier\":{\"S\":\"pro\"},\"region\":{\"S\":\"eu\"}},"       \
  "\"ConditionExpression\":\"attribute_not_exists(#n0)\","                    \
  "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}},{\"Delete\":{"              \
  "\"TableName\":\"shop-dev\",\"Key\":{\"PK\":{\"S\":\"CUST#c1\"},\"SK\":{"   \
  "\"S\":\"CUST#c1\"}},\"ConditionExpression\":\"attribute_exists(#n0) AND " \
  "#n1 = :v0 AND #n2 = :v1 AND #n3 = :v2 AND #n4 = :v3 AND "                   \
  "attribute_not_exists(#n5) AND attribute_not_exists(#n6) AND "               \
  "attribute_not_exists(#n7) AND attribute_not_exists(#n8)\","                 \
  "\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":\"_type\",\"#n2\":"   \
  "\"customerId\",\"#n3\":\"email\",\"#n4\":\"tier\",\"#n5\":\"GSI2PK\","     \
  "\"#n6\":\"GSI2SK\",\"#n7\":\"name\",\"#n8\":\"region\"},"                   \
  "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Customer\"},\":v1\":{"     \
  "\"S\":\"c1\"},\":v2\":{\"S\":\"Ann@X.com\"},\":v3\":{\"S\":\"pro\"}}}},{"  \
  "\"Put\":{\"TableName\":\"shop-dev\",\"Item\":{\"PK\":{\"S\":"               \
  "\"EMAIL#ann@x.com\"},\"SK\":{\"S\":\"EMAIL#ann@x.com\"},\"_type\":{\"S\":" \
  "\"Customer.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":\"CUST#c1\"},"     \
  "\"SK\":{\"S\":\"PROFILE#c1\"}}}},\"ConditionExpression\":"                  \
  "\"attribute_not_exists(#n0) OR #n1 = :v0 OR #n1 = :v1\","                   \
  "\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":\"holderKey\"},"       \
  "\"ExpressionAttributeValues\":{\":v0\":{\"M\":{\"PK\":{\"S\":"              \
  "\"CUST#c1\"},\"SK\":{\"S\":\"PROFILE#c1\"}}},\":v1\":{\"M\":{\"PK\":{"    \
  "\"S\":\"CUST#c1\"},\"SK\":{\"S\":\"CUST#c1\"}}}}}}]}"

typedef struct fixture {
  ddbst_model *old, *nw;
  ddbst_migration *m;
  ddbst_scan *scan;
  ddbst_page *page;
  ddbst_buf *out;
} fixture;

static void open_fixture(fixture *f) {
  f->old = load_example(V1);
  f->nw = load_example(V2);
  ddbst_error err;
  if (ddbst_migration_new(f->old, f->nw, 0, &f->m, &err))
    fail_msg("%s: %s", err.path, err.message);
  f->scan = ddbst_scan_new(f->nw);
  f->page = ddbst_page_new(f->nw);
  f->out = ddbst_buf_new(NULL);
}

static void close_fixture(fixture *f) {
  ddbst_migration_free(f->m);
  ddbst_scan_free(f->scan);
  ddbst_page_free(f->page);
  ddbst_buf_free(f->out);
  ddbst_model_free(f->old);
  ddbst_model_free(f->nw);
}

static int parse_page(fixture *f, ddbst_scan *scan, const char *items,
                      ddbst_error *err) {
  if (ddbst_scan_request(scan, 0, 0, NULL, 0, NULL, DDBST_NOW, f->out, err) !=
      DDBST_OP_SCAN)
    fail_msg("scan: %s", err->message);
  char answer[8192];
  snprintf(answer, sizeof answer, "{\"Items\":[%s],\"Count\":1}", items);
  return ddbst_page_parse_scan(f->page, scan, answer, strlen(answer), err);
}

static void give_page(fixture *f, const char *items) {
  ddbst_error err;
  int n = parse_page(f, f->scan, items, &err);
  if (n < 0) fail_msg("%s: %s", err.path, err.message);
  assert_int_equal(ddbst_migration_page(f->m, f->page, &err), n);
}

static int next(fixture *f, int *op) {
  ddbst_error err;
  int rc = ddbst_migration_next(f->m, op, f->out, &err);
  if (rc < 0) fail_msg("%d %s: %s", rc, err.path, err.message);
  return rc;
}

/* A customer moves with its guard (held anew by its new key), the guard
 * item itself is left alone, an order moves on its version (raised by
 * one), a value the new model refuses is reported. */
static void guards_and_versions(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  assert_int_equal(ddbst_migration_moves(f.m, "Customer"), 1);
  assert_int_equal(ddbst_migration_moves(f.m, "Order"), 1);
  give_page(&f, CUSTOMER_C1 "," GUARD_C1 "," ORDER_O1 "," CUSTOMER_GOLD);
  int op;
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(ddbst_buf_data(f.out), C1_MOVE);
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_GUARD);
  assert_string_equal(ddbst_buf_data(f.out), "");
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"TransactItems\":[{\"Put\":{\"TableName\":\"shop-dev\",\"Item\":{"
      "\"PK\":{\"S\":\"CUST#c1\"},\"SK\":{\"S\":"
      "\"ORDER#2026-02-01T00:00:00.000Z#o1\"},\"_type\":{\"S\":\"Order\"},"
      "\"customerId\":{\"S\":\"c1\"},\"orderId\":{\"S\":\"o1\"},"
      "\"placedAt\":{\"S\":\"2026-02-01T00:00:00.000Z\"},\"status\":{\"S\":"
      "\"open\"},\"version\":{\"N\":\"5\"}},\"ConditionExpression\":"
      "\"attribute_not_exists(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\"}}},{\"Delete\":{\"TableName\":\"shop-dev\",\"Key\":{\"PK\":{"
      "\"S\":\"CUST#c1\"},\"SK\":{\"S\":\"ORDER#2026-02-01T00:00:00Z#o1\"}},"
      "\"ConditionExpression\":\"#n0 = :v0\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":"
      "\"4\"}}}}]}");
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_REFUSED);
  assert_int_equal(op, 0);
  assert_string_equal(ddbst_buf_data(f.out),
                      "{\"key\":{\"PK\":\"CUST#c2\",\"SK\":\"CUST#c2\"},"
                      "\"entity\":\"Customer\",\"reason\":\"tier: 'gold' is "
                      "not one of the enum's values\"}");
  assert_int_equal(next(&f, &op), 0);
  close_fixture(&f);
}

/* A TransactionCanceledException with these three reasons' codes. */
static void cancelled(char *out, size_t cap, const char *a, const char *b,
                      const char *c) {
  snprintf(out, cap,
           "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
           "TransactionCanceledException\",\"CancellationReasons\":[{\"Code\":"
           "\"%s\"},{\"Code\":\"%s\"},{\"Code\":\"%s\"}],\"Message\":\"x\"}",
           a, b, c);
}

/* What DynamoDB's refusal of a write means, the re-read of the item, and
 * its redo before the rest of the page. */
static void failures_and_redo(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  ddbst_error err;
  ddbst_buf *report = ddbst_buf_new(NULL);
  give_page(&f, CUSTOMER_C1 "," ORDER_O1);
  /* nothing given yet */
  assert_int_equal(ddbst_migration_failed(f.m, "{}", 2, report, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_migration_reread_request(f.m, f.out, &err),
                   DDBST_EINVAL);
  int op;
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE);
  char body[512];
  /* the Delete as read failed: the item changed */
  cancelled(body, sizeof body, "None", "ConditionalCheckFailed", "None");
  assert_int_equal(ddbst_migration_failed(f.m, body, strlen(body), report, &err),
                   DDBST_MIGRATE_REDO);
  assert_string_equal(ddbst_buf_data(report), "");
  /* the new key alone is taken: another item of the old model made it */
  cancelled(body, sizeof body, "ConditionalCheckFailed", "None", "None");
  assert_int_equal(ddbst_migration_failed(f.m, body, strlen(body), report, &err),
                   DDBST_MIGRATE_REFUSED);
  assert_non_null(strstr(ddbst_buf_data(report),
                         "\"reason\":\"its new primary key is held by another "
                         "item"));
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE); /* the order */
  /* no reason names a failure: read it again all the same */
  cancelled(body, sizeof body, "None", "None", "None");
  assert_int_equal(ddbst_migration_failed(f.m, body, strlen(body), report, &err),
                   DDBST_MIGRATE_REDO);
  cancelled(body, sizeof body, "TransactionConflict", "None", "None");
  assert_int_equal(ddbst_migration_failed(f.m, body, strlen(body), report, &err),
                   DDBST_MIGRATE_RETRY);
  const char *throttled = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
                          "ProvisionedThroughputExceededException\","
                          "\"message\":\"slow down\"}";
  assert_int_equal(ddbst_migration_failed(f.m, throttled, strlen(throttled),
                                          report, &err),
                   DDBST_MIGRATE_RETRY);
  const char *invalid = "{\"__type\":\"com.amazon.coral.validate#"
                        "ValidationException\",\"message\":\"bad\"}";
  assert_int_equal(
      ddbst_migration_failed(f.m, invalid, strlen(invalid), report, &err),
      DDBST_EDYNAMODB);
  assert_string_equal(err.message, "ValidationException: bad");
  assert_int_equal(ddbst_migration_failed(f.m, "{\"x\"", 4, report, &err),
                   DDBST_ESYNTAX);

  /* the order is re-read by its key as read */
  assert_int_equal(ddbst_migration_reread_request(f.m, f.out, &err),
                   DDBST_OP_GET_ITEM);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"TableName\":\"shop-dev\",\"Key\":{\"PK\":{\"S\":\"CUST#c1\"},\"SK\":"
      "{\"S\":\"ORDER#2026-02-01T00:00:00Z#o1\"}},\"ConsistentRead\":true}");
  /* as it is now: shipped by a writer, version 5 */
  char now[2048];
  snprintf(now, sizeof now, "{\"Item\":%s}", ORDER_O1);
  char *v = strstr(now, "\"N\":\"4\"");
  v[5] = '5';
  char *st = strstr(now, "\"open\"");
  memcpy(st, "\"shut\"", 6); /* not a value of v2: refused on redo */
  assert_int_equal(ddbst_migration_reread(f.m, now, strlen(now), &err), 1);
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_REFUSED);
  assert_int_equal(ddbst_migration_item_index(f.m), -1);
  assert_string_equal(ddbst_buf_data(f.out),
                      "{\"key\":{\"PK\":\"CUST#c1\",\"SK\":"
                      "\"ORDER#2026-02-01T00:00:00Z#o1\"},\"entity\":"
                      "\"Order\",\"reason\":\"status: 'shut' is not one of "
                      "the enum's values\"}");
  memcpy(st, "\"open\"", 6);
  assert_int_equal(ddbst_migration_reread(f.m, now, strlen(now), &err), 1);
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE);
  assert_non_null(strstr(ddbst_buf_data(f.out),
                         "\"version\":{\"N\":\"6\"}},\"ConditionExpression\""));
  assert_non_null(strstr(ddbst_buf_data(f.out), "\":v0\":{\"N\":\"5\"}"));
  /* gone: nothing to do, and the page goes on where it was */
  assert_int_equal(ddbst_migration_reread(f.m, "{}", 2, &err), 0);
  assert_int_equal(next(&f, &op), 0);
  ddbst_buf_free(report);
  close_fixture(&f);
}

/* Reading a page of both models: the old-shape item as the new model
 * reads it, the new-shape item as it is, the guard. */
static void identify(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  ddbst_error err;
  give_page(&f, CUSTOMER_C1 "," GUARD_C1 ","
                "{\"PK\":{\"S\":\"CUST#c3\"},\"SK\":{\"S\":\"PROFILE#c3\"},"
                "\"_type\":{\"S\":\"Customer\"},\"customerId\":{\"S\":\"c3\"},"
                "\"email\":{\"S\":\"c@x.com\"},\"region\":{\"S\":\"us\"}}");
  ddbst_item *it = ddbst_item_new(f.nw, 0);
  int e;
  assert_int_equal(ddbst_migration_identify(f.m, f.page, 0, it, &e, &err),
                   DDBST_MIGRATE_WRITE);
  assert_int_equal(e, ddbst_model_entity(f.nw, "Customer"));
  const char *v;
  assert_int_equal(ddbst_item_get_by_name(it, "region", &v, NULL), 1);
  assert_string_equal(v, "eu"); /* the default the pass writes */
  assert_int_equal(ddbst_migration_identify(f.m, f.page, 1, it, &e, &err),
                   DDBST_MIGRATE_GUARD);
  assert_int_equal(e, -1);
  assert_int_equal(ddbst_migration_identify(f.m, f.page, 2, it, &e, &err),
                   DDBST_MIGRATE_SKIP);
  assert_int_equal(ddbst_item_get_by_name(it, "region", &v, NULL), 1);
  assert_string_equal(v, "us");
  assert_int_equal(ddbst_migration_identify(f.m, f.page, 3, it, &e, &err),
                   DDBST_EINVAL);
  ddbst_item *old_item = ddbst_item_new(f.old, 0);
  assert_int_equal(
      ddbst_migration_identify(f.m, f.page, 0, old_item, &e, &err),
      DDBST_EINVAL);
  assert_string_equal(err.message, "the item is not of the new model");
  /* identify does not disturb the stepping */
  int op;
  assert_int_equal(next(&f, &op), DDBST_MIGRATE_WRITE);
  assert_string_equal(ddbst_buf_data(f.out), C1_MOVE);
  ddbst_item_free(old_item);
  ddbst_item_free(it);
  close_fixture(&f);
}

/* The writer protocol: a create also checks the old key is free; a
 * delete removes both keys and the guard the item holds under either. */
static void writer_requests(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  ddbst_error err;
  ddbst_item *it = ddbst_item_new(f.nw, ddbst_model_entity(f.nw, "Customer"));
  set(it, "customerId", "c9");
  set(it, "email", "Zed@x.com");
  set(it, "tier", "free");
  assert_int_equal(ddbst_migration_write_request(f.m, it, DDBST_OP_PUT_ITEM,
                                                 DDBST_CREATE, DDBST_NOW,
                                                 f.out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  const char *body = ddbst_buf_data(f.out);
  assert_non_null(strstr(
      body, ",{\"ConditionCheck\":{\"TableName\":\"shop-dev\",\"Key\":{\"PK\":"
            "{\"S\":\"CUST#c9\"},\"SK\":{\"S\":\"CUST#c9\"}},"
            "\"ConditionExpression\":\"attribute_not_exists(#n0)\","
            "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}}]}"));
  assert_memory_equal(body, "{\"TransactItems\":[{\"Put\":{", 26);
  /* the new model's own create, then the check */
  ddbst_buf *own = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, DDBST_NOW, own, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_memory_equal(body, ddbst_buf_data(own), ddbst_buf_len(own) - 2);

  assert_int_equal(ddbst_migration_write_request(f.m, it, DDBST_OP_DELETE_ITEM,
                                                 0, 0, f.out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"TransactItems\":[{\"Delete\":{\"TableName\":\"shop-dev\",\"Key\":{"
      "\"PK\":{\"S\":\"CUST#c9\"},\"SK\":{\"S\":\"PROFILE#c9\"}}}},{\"Delete\":"
      "{\"TableName\":\"shop-dev\",\"Key\":{\"PK\":{\"S\":\"CUST#c9\"},\"SK\":"
      "{\"S\":\"CUST#c9\"}}}},{\"Delete\":{\"TableName\":\"shop-dev\",\"Key\":"
      "{\"PK\":{\"S\":\"EMAIL#zed@x.com\"},\"SK\":{\"S\":\"EMAIL#zed@x.com\"}"
      "},\"ConditionExpression\":\"attribute_not_exists(#n0) OR #n1 = :v0 OR "
      "#n1 = :v1\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":"
      "\"holderKey\"},\"ExpressionAttributeValues\":{\":v0\":{\"M\":{\"PK\":{"
      "\"S\":\"CUST#c9\"},\"SK\":{\"S\":\"PROFILE#c9\"}}},\":v1\":{\"M\":{"
      "\"PK\":{\"S\":\"CUST#c9\"},\"SK\":{\"S\":\"CUST#c9\"}}}}}}]}");
  /* a replacing put of an entity without unique attributes: the Put of
   * the new key and the Delete of the old, one transaction */
  ddbst_item *order = ddbst_item_new(f.nw, ddbst_model_entity(f.nw, "Order"));
  set(order, "customerId", "c9");
  set(order, "orderId", "o9");
  set(order, "placedAt", "2026-02-01T00:00:00.5Z");
  assert_int_equal(ddbst_migration_write_request(f.m, order, DDBST_OP_PUT_ITEM,
                                                 0, DDBST_NOW, f.out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_memory_equal(ddbst_buf_data(f.out),
                      "{\"TransactItems\":[{\"Put\":{\"TableName\":"
                      "\"shop-dev\",\"Item\":{\"PK\":{\"S\":\"CUST#c9\"},"
                      "\"SK\":{\"S\":\"ORDER#2026-02-01T00:00:00.500Z#o9\"}",
                      95);
  assert_non_null(strstr(ddbst_buf_data(f.out),
                         "}},{\"Delete\":{\"TableName\":\"shop-dev\",\"Key\":{"
                         "\"PK\":{\"S\":\"CUST#c9\"},\"SK\":{\"S\":"
                         "\"ORDER#2026-02-01T00:00:00Z#o9\"}}}}]}"));
  ddbst_item_free(order);
  /* refusals, each leaving the buffer empty */
  assert_int_equal(ddbst_migration_write_request(f.m, it, DDBST_OP_DELETE_ITEM,
                                                 DDBST_IF_EXISTS, 0, f.out,
                                                 &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(f.out), 0);
  assert_int_equal(ddbst_migration_write_request(f.m, it, DDBST_OP_UPDATE_ITEM,
                                                 0, 0, f.out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "op");
  assert_int_equal(ddbst_migration_write_request(f.m, it, DDBST_OP_PUT_ITEM,
                                                 DDBST_RETURN_ALL_OLD, 0,
                                                 f.out, &err),
                   DDBST_EINVAL);
  ddbst_item *old_item = ddbst_item_new(f.old, 0);
  assert_int_equal(ddbst_migration_write_request(f.m, old_item,
                                                 DDBST_OP_PUT_ITEM, 0, 0,
                                                 f.out, &err),
                   DDBST_EINVAL);
  /* a delete of an item whose unique value is unknown: as the builder */
  ddbst_item_reset(it, ddbst_model_entity(f.nw, "Customer"));
  set(it, "customerId", "c9");
  assert_true(ddbst_migration_write_request(f.m, it, DDBST_OP_DELETE_ITEM, 0,
                                            0, f.out, &err) < 0);
  assert_int_equal(ddbst_buf_len(f.out), 0);
  ddbst_item_free(old_item);
  ddbst_buf_free(own);
  ddbst_item_free(it);
  close_fixture(&f);
}

/* The writer protocol through the JSON entry: the same body as the C
 * API's, and whether the entity moves. */
static void writer_json(void **state) {
  (void)state;
  char cfg[256], req[512];
  snprintf(cfg, sizeof cfg, "{\"modelFile\":\"%s/" V2 "\"}", DDBST_SOURCE_DIR);
  ddbst_json *s = ddbst_json_open(cfg, strlen(cfg), NULL, NULL);
  assert_non_null(s);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateWrite\",\"oldFile\":\"%s/" V1 "\","
           "\"write\":\"delete\",\"entity\":\"Customer\",\"values\":{"
           "\"customerId\":\"c9\",\"email\":\"Zed@x.com\"}}",
           DDBST_SOURCE_DIR);
  char *a = ddbst_json_call(s, req, strlen(req), NULL);
  assert_memory_equal(a,
                      "{\"operation\":\"TransactWriteItems\",\"target\":"
                      "\"DynamoDB_20120810.TransactWriteItems\",\"body\":{"
                      "\"TransactItems\":[{\"Delete\":{\"TableName\":"
                      "\"shop-dev\",\"Key\":{\"PK\":{\"S\":\"CUST#c9\"},"
                      "\"SK\":{\"S\":\"PROFILE#c9\"}}}},{\"Delete\":",
                      173);
  assert_non_null(strstr(a, "}}}}]},\"moves\":true}"));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateWrite\",\"oldFile\":\"%s/" V1 "\","
           "\"write\":\"update\",\"entity\":\"Customer\"}",
           DDBST_SOURCE_DIR);
  a = ddbst_json_call(s, req, strlen(req), NULL);
  assert_non_null(strstr(a, "\"path\":\"write\",\"message\":\"write update: "
                            "expected \\\"create\\\", \\\"put\\\" or "
                            "\\\"delete\\\""));
  ddbst_json_free(a);
  ddbst_json_close(s);
}

/* Pages a migration refuses: a scan of an index, of some entities, with a
 * projection; a page of another table; a failed parse; no page at all. */
static void pages_refused(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f);
  ddbst_error err;
  int op;
  assert_int_equal(ddbst_migration_next(f.m, &op, f.out, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "no page: give one with ddbst_migration_page");
  ddbst_scan *s = ddbst_scan_new(f.nw);
  assert_int_equal(ddbst_scan_index(s, "GSI2", &err), 0);
  assert_true(parse_page(&f, s, "", &err) >= 0);
  assert_int_equal(ddbst_migration_page(f.m, f.page, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the page is of a scan of index GSI2: the migration "
                      "scans the table, where every item is");
  ddbst_scan_free(s);
  s = ddbst_scan_new(f.nw);
  assert_int_equal(ddbst_scan_project(s, "email", &err), 0);
  assert_true(parse_page(&f, s, "", &err) >= 0);
  assert_int_equal(ddbst_migration_page(f.m, f.page, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the page is of a scan with a filter, entity filter or "
                      "projection: the migration must read every item whole");
  ddbst_scan_free(s);
  s = ddbst_scan_new(f.nw);
  assert_int_equal(ddbst_scan_entity(s, 0, &err), 0);
  assert_true(parse_page(&f, s, "", &err) >= 0);
  assert_int_equal(ddbst_migration_page(f.m, f.page, &err), DDBST_EINVAL);
  ddbst_scan_free(s);
  /* a failed parse */
  assert_true(ddbst_page_parse_scan(f.page, f.scan, "{", 1, &err) < 0);
  assert_int_equal(ddbst_migration_page(f.m, f.page, &err), DDBST_EINVAL);
  /* a page of another table */
  ddbst_model *saas = load_example("examples/saas/model.json");
  ddbst_page *other = ddbst_page_new(saas);
  const char *get = "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
                    "\"ORG#1\"},\"_type\":{\"S\":\"Organisation\"},"
                    "\"orgId\":{\"S\":\"1\"}}}";
  assert_int_equal(ddbst_page_parse(other, DDBST_OP_GET_ITEM, get, strlen(get),
                                    &err),
                   1);
  assert_int_equal(ddbst_migration_page(f.m, other, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the page is of table saas-api-dev, the migration of "
                      "shop-dev");
  assert_int_equal(ddbst_migration_verify(f.m, other, f.out, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_migration_page(f.m, NULL, &err), DDBST_EINVAL);
  ddbst_page_free(other);
  ddbst_model_free(saas);
  /* steps out of range */
  assert_int_equal(ddbst_migration_step_request(f.m, 9, f.out, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_migration_plan(f.m, 0x40, f.out, &err), DDBST_EINVAL);
  close_fixture(&f);
}

/* Allocation failure at every site of a migration's life: new, the plan,
 * a page stepped, the writer's request. */
static counting_alloc ca;

static ddbst_model *counted(const char *file) {
  size_t len;
  char *text = read_source(file, &len);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load(text, len, &o, &m, &err))
    fail_msg("%s: %s", err.path, err.message);
  free(text);
  return m;
}

static int life(ddbst_model *o, ddbst_model *n, ddbst_buf *out) {
  ddbst_error err;
  ddbst_migration *m;
  int rc = ddbst_migration_new(o, n, 0, &m, &err);
  if (rc) return rc;
  ddbst_scan *s = ddbst_scan_new(n);
  ddbst_page *pg = s ? ddbst_page_new(n) : NULL;
  ddbst_item *it = pg ? ddbst_item_new(n, ddbst_model_entity(n, "Customer"))
                      : NULL;
  rc = it ? 0 : DDBST_ENOMEM;
  if (!rc) rc = ddbst_migration_plan(m, 0, out, &err);
  if (!rc && ddbst_scan_request(s, 0, 0, NULL, 0, NULL, DDBST_NOW, out, &err) <
                 0)
    rc = err.code;
  const char *answer = "{\"Items\":[" CUSTOMER_C1 "," GUARD_C1 "," ORDER_O1
                       "," CUSTOMER_GOLD "],\"Count\":4}";
  if (!rc && ddbst_page_parse_scan(pg, s, answer, strlen(answer), &err) < 0)
    rc = err.code;
  if (!rc && ddbst_migration_page(m, pg, &err) < 0) rc = err.code;
  int op, r;
  while (!rc && (r = ddbst_migration_next(m, &op, out, &err)) != 0)
    if (r < 0) rc = r;
  if (!rc) {
    int v = ddbst_migration_verify(m, pg, out, &err);
    if (v < 0) rc = v;
  }
  if (!rc) {
    ddbst_item_set_by_name(it, "customerId", "c9", 2, NULL);
    ddbst_item_set_by_name(it, "email", "z@x.com", 7, NULL);
    r = ddbst_migration_write_request(m, it, DDBST_OP_DELETE_ITEM, 0, 0, out,
                                      &err);
    if (r < 0) rc = r;
  }
  ddbst_item_free(it);
  ddbst_page_free(pg);
  ddbst_scan_free(s);
  ddbst_migration_free(m);
  return rc;
}

static void allocation_failures(void **state) {
  (void)state;
  counting_alloc_init(&ca);
  ddbst_model *o = counted(V1), *n = counted(V2);
  long base = ca.live;
  ddbst_buf *out = ddbst_buf_new(NULL);
  long step;
  for (step = 1; step < 20000; step++) {
    ca.fail_at = ca.calls + step;
    int rc = life(o, n, out);
    ca.fail_at = 0;
    if (ca.live != base)
      fail_msg("allocation %ld failing: %ld blocks live, wanted %ld", step,
               ca.live, base);
    if (rc == 0) break;
    if (rc != DDBST_ENOMEM)
      fail_msg("allocation %ld failing: got %d, not DDBST_ENOMEM", step, rc);
  }
  assert_true(step > 10);
  assert_int_equal(life(o, n, out), 0);
  ddbst_buf_free(out);
  ddbst_model_free(o);
  ddbst_model_free(n);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(guards_and_versions),
      cmocka_unit_test(failures_and_redo),
      cmocka_unit_test(identify),
      cmocka_unit_test(writer_requests),
      cmocka_unit_test(writer_json),
      cmocka_unit_test(pages_refused),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
