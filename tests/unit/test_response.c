/* Reading DynamoDB's answers (src/response/): real bodies captured from
 * DynamoDB Local (tests/data/responses/local-*.json, see capture.sh) and
 * bodies written from the API reference. Typed values, entities told by the
 * entity attribute and by keys, facets recovered from keys, every malformed
 * shape refused with its code and path, follow-up bodies, DynamoDB's errors
 * and every reason of a cancelled transaction explained, the per-item stamps
 * across their wrap, no over-read, no allocation on a warm page, allocation
 * failure at every site. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "response/page.h"
#include "support.h"

static ddbst_model *saas, *blog;
static ddbst_page *page;
static ddbst_buf *out;
static const int64_t NOW = 1773478800123456LL;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  blog = load_example("examples/blog/model.json");
  page = ddbst_page_new(saas);
  out = ddbst_buf_new(NULL);
  return page && out ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_page_free(page);
  ddbst_model_free(blog);
  ddbst_model_free(saas);
  return 0;
}

/* Parses data file `name` into the shared page; returns the count. */
static int parse_file(int op, const char *name) {
  size_t n;
  char *b = read_response(name, &n);
  ddbst_error err;
  int rc = ddbst_page_parse(page, op, b, n, &err);
  if (rc < 0 && rc != DDBST_EDYNAMODB)
    fail_msg("%s: %d %s: %s", name, rc, err.path, err.message);
  free(b);
  return rc;
}

/* The same for the answer to the query `values` made for `pattern`. */
static int parse_file_query(const ddbst_item *values, int pattern,
                            const char *name) {
  size_t n;
  char *b = read_response(name, &n);
  ddbst_error err;
  int rc = ddbst_page_parse_query(page, values, pattern, b, n, &err);
  if (rc < 0) fail_msg("%s: %d %s: %s", name, rc, err.path, err.message);
  free(b);
  return rc;
}

static int parse_text(int op, const char *json, ddbst_error *err) {
  return ddbst_page_parse(page, op, json, strlen(json), err);
}

/* Item i of the page as JSON (in the shared buffer). */
static const char *item_json(int i) {
  ddbst_buf_reset(out);
  ddbst_error err;
  if (ddbst_page_item_json(page, i, out, &err))
    fail_msg("item_json %d: %s", i, err.message);
  return ddbst_buf_data(out);
}

/* The value of attribute `name` in `it` of model `m`, or NULL when unset. */
static const char *val(const ddbst_model *m, const ddbst_item *it,
                       const char *name) {
  int a = ddbst_model_attribute(m, ddbst_item_entity(it), name);
  if (a < 0) fail_msg("no attribute %s", name);
  const char *text = NULL;
  size_t len;
  return ddbst_item_get(it, a, &text, &len) == 1 ? text : NULL;
}

static int entity(const ddbst_model *m, const char *name) {
  int e = ddbst_model_entity(m, name);
  if (e < 0) fail_msg("no entity %s", name);
  return e;
}

/* ---- real answers ---- */

static void get_item(void **state) {
  (void)state;
  assert_int_equal(parse_file(DDBST_OP_GET_ITEM, "local-get-user.json"), 1);
  assert_int_equal(ddbst_page_count(page), 1);
  assert_int_equal(ddbst_page_item_entity(page, 0), entity(saas, "User"));
  assert_string_equal(item_json(0),
                      "{\"entity\":\"User\",\"item\":{\"orgId\":\"1\","
                      "\"userId\":\"2\",\"email\":\"Ann@X.com\",\"role\":"
                      "\"admin\",\"name\":\"Ann\"}}");
  ddbst_item *it = ddbst_item_new(saas, 0);
  ddbst_error err;
  assert_int_equal(ddbst_page_item(page, 0, it, &err), entity(saas, "User"));
  assert_string_equal(val(saas, it, "orgId"), "1");
  assert_string_equal(val(saas, it, "userId"), "2");
  assert_string_equal(val(saas, it, "email"), "Ann@X.com");
  assert_string_equal(val(saas, it, "role"), "admin");
  assert_string_equal(val(saas, it, "name"), "Ann");
  /* the item read back builds the same keys it was written with */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_item_keys_json(it, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"PK\":\"ORG#1\",\"SK\":\"USER#2\",\"GSI1PK\":"
                      "\"EMAIL#ann@x.com\",\"_type\":\"User\"}");
  /* no next page, nothing to follow up */
  assert_int_equal(ddbst_page_has_more(page), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err), 0);
  assert_int_equal(ddbst_buf_len(out), 0);
  /* out of range */
  assert_int_equal(ddbst_page_item(page, 1, it, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_page_item(page, -1, it, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_page_item_entity(page, 1), DDBST_EINVAL);
  ddbst_item_free(it);

  assert_int_equal(parse_file(DDBST_OP_GET_ITEM, "local-get-missing.json"), 0);
  assert_int_equal(ddbst_page_count(page), 0);
}

static void query_pages(void **state) {
  (void)state;
  assert_int_equal(parse_file(DDBST_OP_QUERY, "local-query-projects.json"), 2);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\","
                      "\"projectId\":\"p2\",\"createdAt\":\"2026-02-01T12:30:"
                      "00Z\",\"name\":\"Beta\",\"status\":\"archived\"}}");
  assert_string_equal(item_json(1),
                      "{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\","
                      "\"projectId\":\"p1\",\"createdAt\":\"2026-01-05T09:00:"
                      "00Z\",\"name\":\"Alpha\",\"status\":\"active\"}}");
  assert_int_equal(ddbst_page_has_more(page), 0);

  /* a page with a next one: the cursor opens into ExclusiveStartKey */
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  uint8_t k[DDBST_CURSOR_KEY_BYTES];
  for (int i = 0; i < DDBST_CURSOR_KEY_BYTES; i++) k[i] = (uint8_t)(i * 7 + 1);
  ddbst_error err;
  assert_int_equal(ddbst_cursor_keys_add(keys, k, &err), 0);
  ddbst_item *values = ddbst_item_new(saas, entity(saas, "User"));
  set(values, "orgId", "1");
  int listUsers = ddbst_model_pattern(saas, "listUsers");
  assert_int_equal(
      parse_file_query(values, listUsers, "local-query-users-page1.json"), 1);
  assert_int_equal(ddbst_page_has_more(page), 1);
  /* the values may be reused once the page is parsed: it remembers the
   * partition it read */
  ddbst_item_reset(values, entity(saas, "User"));
  set(values, "orgId", "2");
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  ddbst_buf_append(cursor, "stale", 5);
  assert_int_equal(ddbst_page_next_cursor(page, keys, NOW, cursor, &err), 1);
  set(values, "orgId", "1");
  assert_true(ddbst_buf_len(cursor) > 20);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  q.cursor_keys = keys;
  q.now_unix_us = NOW;
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(values, listUsers, &q, out, &err),
                   DDBST_OP_QUERY);
  assert_non_null(strstr(ddbst_buf_data(out),
                         ",\"ExclusiveStartKey\":{\"PK\":{\"S\":\"ORG#1\"},"
                         "\"SK\":{\"S\":\"USER#2\"}}"));

  /* an index's LastEvaluatedKey: the index's key and the table's */
  ddbst_item_reset(values, entity(saas, "User"));
  set(values, "email", "ann@x.com");
  int byEmail = ddbst_model_pattern(saas, "userByEmail");
  assert_int_equal(
      parse_file_query(values, byEmail, "local-query-user-by-email.json"), 1);
  assert_int_equal(ddbst_page_has_more(page), 1);
  assert_int_equal(ddbst_page_next_cursor(page, keys, NOW, cursor, &err), 1);
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(values, byEmail, &q, out, &err),
                   DDBST_OP_QUERY);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"ExclusiveStartKey\":{\"GSI1PK\":{\"S\":\"EMAIL#"
                         "ann@x.com\"},\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
                         "\"USER#2\"}}"));
  /* the last page has no cursor, and that is no error: 0, and an empty
   * buffer */
  ddbst_item *org = ddbst_item_new(saas, entity(saas, "Project"));
  set(org, "orgId", "1");
  assert_int_equal(parse_file_query(org, ddbst_model_pattern(saas,
                                                             "listProjects"),
                                    "local-query-projects.json"),
                   2);
  ddbst_item_free(org);
  memset(&err, 0, sizeof err);
  assert_int_equal(ddbst_page_next_cursor(page, keys, NOW, cursor, &err), 0);
  assert_int_equal(ddbst_buf_len(cursor), 0);
  assert_int_equal(err.code, 0);
  /* a page parsed without its query cannot make one */
  assert_int_equal(parse_file(DDBST_OP_QUERY, "local-query-users-page1.json"), 1);
  assert_int_equal(ddbst_page_next_cursor(page, keys, NOW, cursor, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "page");
  assert_int_equal(ddbst_buf_len(cursor), 0);
  /* nor one whose last parse failed */
  set(values, "orgId", "1");
  assert_int_equal(ddbst_page_parse_query(page, values, listUsers, "{", 1,
                                          &err),
                   DDBST_ESYNTAX);
  assert_int_equal(ddbst_page_next_cursor(page, keys, NOW, cursor, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the page holds no answer: its last parse failed");
  /* the query's partition must be given: refused at the parse */
  ddbst_item_reset(values, entity(saas, "User"));
  assert_int_equal(ddbst_page_parse_query(page, values, listUsers, "{}", 2,
                                          &err),
                   DDBST_EMISSING);
  assert_int_equal(ddbst_page_count(page), 0);
  /* a pattern that is no query of the values' entity */
  set(values, "orgId", "1");
  assert_int_equal(ddbst_page_parse_query(page, values,
                                          ddbst_model_pattern(saas, "listProjects"),
                                          "{}", 2, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "pattern");
  assert_int_equal(ddbst_page_parse_query(page, NULL, listUsers, "{}", 2, &err),
                   DDBST_EINVAL);
  ddbst_buf_free(cursor);
  ddbst_item_free(values);
  ddbst_cursor_keys_free(keys);
}

/* A projection without the entity attribute and some facets: the entity
 * from the table's key, the facets from the table's and the index's keys. */
static void projections_recover_facets(void **state) {
  (void)state;
  int project = entity(saas, "Project"), user = entity(saas, "User");
  assert_int_equal(
      parse_file(DDBST_OP_QUERY, "local-query-projects-by-status.json"), 1);
  assert_int_equal(ddbst_page_item_entity(page, 0), project);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\","
                      "\"projectId\":\"p1\",\"createdAt\":\"2026-01-05T09:00:"
                      "00Z\",\"name\":\"Alpha\",\"status\":\"active\"}}");
  ddbst_item *it = ddbst_item_new(saas, 0);
  ddbst_error err;
  assert_int_equal(ddbst_page_item(page, 0, it, &err), project);
  assert_string_equal(val(saas, it, "orgId"), "1");
  assert_string_equal(val(saas, it, "projectId"), "p1");
  assert_string_equal(val(saas, it, "createdAt"), "2026-01-05T09:00:00Z");
  assert_string_equal(val(saas, it, "status"), "active");

  /* KEYS_ONLY: the key facets; email is lower-cased in GSI1PK, so its case
   * is lost and it is not recovered */
  assert_int_equal(
      parse_file(DDBST_OP_QUERY, "local-query-user-by-email.json"), 1);
  assert_string_equal(item_json(0), "{\"entity\":\"User\",\"item\":{\"orgId\":"
                                    "\"1\",\"userId\":\"2\"}}");
  assert_int_equal(ddbst_page_item(page, 0, it, &err), user);
  assert_string_equal(val(saas, it, "orgId"), "1");
  assert_string_equal(val(saas, it, "userId"), "2");
  assert_null(val(saas, it, "email"));

  /* a sparse index's facet that only its key holds */
  assert_int_equal(
      parse_text(DDBST_OP_QUERY,
                 "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
                 "\"PROJECT#2026-01-05T09:00:00Z#p1\"},\"GSI2PK\":{\"S\":"
                 "\"STATUS#archived\"},\"GSI2SK\":{\"S\":\"2026-01-05T09:00:00Z"
                 "\"}}],\"Count\":1,\"ScannedCount\":1}",
                 &err),
      1);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\","
                      "\"projectId\":\"p1\",\"createdAt\":\"2026-01-05T09:00:"
                      "00Z\",\"status\":\"archived\"}}");
  ddbst_item_free(it);
}

/* Documents: the stored form is the AttributeValue JSON that
 * ddbst_item_set makes of plain JSON, so an item read back writes exactly
 * what it was read from. */
static void documents_round_trip(void **state) {
  (void)state;
  int event = entity(saas, "Event");
  assert_int_equal(parse_file(DDBST_OP_QUERY, "local-query-events.json"), 1);
  assert_string_equal(
      item_json(0),
      "{\"entity\":\"Event\",\"item\":{\"projectId\":\"p1\",\"ts\":\"2026-03-"
      "14T09:00:00Z\",\"eventId\":\"01J0000000000000000000000A\",\"type\":"
      "\"deploy\",\"payload\":{\"canary\":true,\"notes\":null,\"replicas\":3,"
      "\"env\":{\"region\":\"eu-west-1\"},\"version\":\"1.2.3\",\"ratio\":0.25,"
      "\"tags\":[\"a\",\"b\"]},\"expiresAt\":1800000000}}");
  ddbst_item *it = ddbst_item_new(saas, event);
  ddbst_error err;
  assert_int_equal(ddbst_page_item(page, 0, it, &err), event);
  static const char payload_av[] =
      "{\"M\":{\"canary\":{\"BOOL\":true},\"notes\":{\"NULL\":true},"
      "\"replicas\":{\"N\":\"3\"},\"env\":{\"M\":{\"region\":{\"S\":\"eu-west-"
      "1\"}}},\"version\":{\"S\":\"1.2.3\"},\"ratio\":{\"N\":\"0.25\"},"
      "\"tags\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"}]}}}";
  assert_string_equal(val(saas, it, "payload"), payload_av);
  assert_string_equal(val(saas, it, "expiresAt"), "1800000000");
  /* the same value set from its plain JSON is stored identically */
  ddbst_item *again = ddbst_item_new(saas, event);
  set(again, "payload",
      "{\"canary\":true,\"notes\":null,\"replicas\":3,\"env\":{\"region\":"
      "\"eu-west-1\"},\"version\":\"1.2.3\",\"ratio\":0.25,\"tags\":[\"a\","
      "\"b\"]}");
  assert_string_equal(val(saas, again, "payload"), payload_av);
  /* and written back as the response held it */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(it, 0, NOW, out, &err), DDBST_OP_PUT_ITEM);
  char want[512];
  snprintf(want, sizeof want, "\"payload\":%s", payload_av);
  assert_non_null(strstr(ddbst_buf_data(out), want));
  assert_non_null(strstr(ddbst_buf_data(out), "\"expiresAt\":{\"N\":\"1800000000\"}"));
  ddbst_item_free(again);
  ddbst_item_free(it);

  /* every type, nested; JSON escapes re-written compactly; numbers as their
   * exact text (leading zeros, which JSON has not, dropped) */
  static const char body[] =
      "{ \"Item\" : {\"PK\":{\"S\":\"PROJECT#p1\"},\"SK\":{\"S\":\"EVENT#2026-"
      "03-14T09:00:00Z#01J0000000000000000000000A\"},\"payload\":{\"M\":{"
      "\"s\":{\"S\":\"caf\\u00e9 \\\"q\\\" \\/ \\t\"},"
      "\"n\":{\"N\":\"-007.50e+3\"},\"big\":{\"N\":"
      "\"12345678901234567890123456789012345678\"},"
      "\"b\":{\"B\":\"AAEC\"},\"ss\":{\"SS\":[\"x\",\"y\"]},"
      "\"ns\":{\"NS\":[\"1\",\"2.5\"]},\"bs\":{\"BS\":[\"AA==\"]},"
      "\"l\":{\"L\":[{\"NULL\":true},{\"BOOL\":false},{\"L\":[]},{\"M\":{}}]}"
      "}}}}";
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM, body, &err), 1);
  assert_string_equal(
      item_json(0),
      "{\"entity\":\"Event\",\"item\":{\"projectId\":\"p1\",\"ts\":\"2026-03-"
      "14T09:00:00Z\",\"eventId\":\"01J0000000000000000000000A\",\"payload\":"
      "{\"s\":\"caf\xc3\xa9 \\\"q\\\" / \\t\",\"n\":-7.50e+3,\"big\":"
      "12345678901234567890123456789012345678,\"b\":\"AAEC\",\"ss\":[\"x\","
      "\"y\"],\"ns\":[1,2.5],\"bs\":[\"AA==\"],\"l\":[null,false,[],{}]}}}");
  it = ddbst_item_new(saas, event);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), event);
  assert_string_equal(
      val(saas, it, "payload"),
      "{\"M\":{\"s\":{\"S\":\"caf\xc3\xa9 \\\"q\\\" / \\t\"},\"n\":{\"N\":\"-"
      "007.50e+3\"},\"big\":{\"N\":\"12345678901234567890123456789012345678\"},"
      "\"b\":{\"B\":\"AAEC\"},\"ss\":{\"SS\":[\"x\",\"y\"]},\"ns\":{\"NS\":["
      "\"1\",\"2.5\"]},\"bs\":{\"BS\":[\"AA==\"]},\"l\":{\"L\":[{\"NULL\":"
      "true},{\"BOOL\":false},{\"L\":[]},{\"M\":{}}]}}}");
  /* the recovered facets are the ones the key spells */
  assert_string_equal(val(saas, it, "ts"), "2026-03-14T09:00:00Z");
  assert_string_equal(val(saas, it, "eventId"), "01J0000000000000000000000A");
  ddbst_item_free(it);
}

static void batches_and_transactions(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(parse_file(DDBST_OP_BATCH_GET_ITEM, "local-batch-get.json"), 2);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"1\","
                      "\"name\":\"Acme\",\"plan\":\"pro\",\"createdAt\":"
                      "\"2026-01-02T10:00:00Z\"}}");
  assert_int_equal(ddbst_page_item_entity(page, 1), entity(saas, "User"));
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err), 0);

  assert_int_equal(parse_file(DDBST_OP_BATCH_WRITE_ITEM, "local-batch-write.json"), 0);
  assert_int_equal(ddbst_page_followup_request(page, out, &err), 0);

  /* one slot per Get, the missing one empty */
  assert_int_equal(parse_file(DDBST_OP_TRANSACT_GET_ITEMS, "local-transact-get.json"), 3);
  assert_int_equal(ddbst_page_item_entity(page, 0), entity(saas, "User"));
  assert_int_equal(ddbst_page_item_entity(page, 1), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_item_entity(page, 2), entity(saas, "Project"));
  assert_string_equal(item_json(1), "null");
  ddbst_item *it = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_page_item(page, 1, it, &err), DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Responses[1]");
  assert_int_equal(ddbst_page_item(page, 2, it, &err), entity(saas, "Project"));
  assert_string_equal(val(saas, it, "name"), "Alpha");
  ddbst_item_free(it);
}

/* The follow-up bodies are the batch builders' bodies, byte for byte: the
 * answer re-written by ddbst's writer, not pasted. */
static void followups(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_batch *b = ddbst_batch_new(saas);
  ddbst_item *u = ddbst_item_new(saas, entity(saas, "User"));
  set(u, "orgId", "1");
  set(u, "userId", "2");
  assert_int_equal(ddbst_batch_get(b, u, &err), 1);
  set(u, "userId", "3");
  assert_int_equal(ddbst_batch_get(b, u, &err), 1);
  ddbst_buf *want = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_batch_request(b, 0, DDBST_CONSISTENT_READ, want, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  /* as the API reference shows it: keys handed back with the read's
   * settings, alongside items and ConsumedCapacity */
  assert_int_equal(
      parse_text(DDBST_OP_BATCH_GET_ITEM,
                 "{\"Responses\": {\"saas-api-dev\": []},\n"
                 " \"UnprocessedKeys\": {\"saas-api-dev\": {\n"
                 "   \"Keys\": [{\"PK\": {\"S\": \"ORG#1\"}, \"SK\": {\"S\": "
                 "\"USER#2\"}},\n"
                 "            {\"PK\": {\"S\": \"ORG#\\u0031\"}, \"SK\": {\"S\": "
                 "\"USER#3\"}}],\n"
                 "   \"ConsistentRead\": true}},\n"
                 " \"ConsumedCapacity\": [{\"TableName\": \"saas-api-dev\", "
                 "\"CapacityUnits\": 1.5, \"Table\": {\"CapacityUnits\": 1.5}}]}",
                 &err),
      0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(ddbst_buf_data(out), ddbst_buf_data(want));
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":[{\"PK\":"
                      "{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}},{\"PK\":{"
                      "\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}}],"
                      "\"ConsistentRead\":true}}}");
  /* a projection and its names come back too */
  assert_int_equal(
      parse_text(DDBST_OP_BATCH_GET_ITEM,
                 "{\"Responses\":{},\"UnprocessedKeys\":{\"other\":{\"Keys\":[{"
                 "\"id\":{\"S\":\"a\"}}],\"ProjectionExpression\":\"#n0, "
                 "#n1\",\"ExpressionAttributeNames\":{\"#n0\":\"id\",\"#n1\":"
                 "\"na\\u006de\"},\"ConsistentRead\":false}}}",
                 &err),
      0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"other\":{\"Keys\":[{\"id\":{\"S\":"
                      "\"a\"}}],\"ProjectionExpression\":\"#n0, #n1\","
                      "\"ExpressionAttributeNames\":{\"#n0\":\"id\",\"#n1\":"
                      "\"name\"}}}}");

  /* writes: a put of every kind of value and a delete */
  ddbst_batch_reset(b);
  ddbst_item *ev = ddbst_item_new(saas, entity(saas, "Event"));
  set(ev, "projectId", "p1");
  set(ev, "ts", "2026-03-14T09:00:00Z");
  set(ev, "eventId", "01J0000000000000000000000A");
  set(ev, "type", "deploy");
  set(ev, "payload", "{\"a\":[1,\"x\",true,null,{\"b\":2.5}],\"c\":\"\\u00e9\"}");
  set(ev, "expiresAt", "1800000000");
  assert_int_equal(ddbst_batch_put(b, ev, NOW, &err), 0);
  ddbst_item *org = ddbst_item_new(saas, entity(saas, "Organisation"));
  set(org, "orgId", "1");
  assert_int_equal(ddbst_batch_delete(b, org, &err), 0);
  ddbst_buf_reset(want);
  assert_int_equal(ddbst_batch_request(b, 0, 0, want, &err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  /* the same requests, unprocessed, in DynamoDB's answer */
  const char *w = ddbst_buf_data(want);
  const char *list = strchr(w + 1, '[');
  char *answer = malloc(strlen(w) + 100);
  snprintf(answer, strlen(w) + 100,
           "{\"UnprocessedItems\":{\"saas-api-dev\":%.*s},"
           "\"ItemCollectionMetrics\":{}}",
           (int)(strlen(list) - 2), list);
  assert_int_equal(parse_text(DDBST_OP_BATCH_WRITE_ITEM, answer, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  assert_string_equal(ddbst_buf_data(out), w);
  free(answer);
  /* the API reference's spacing and member order make no difference */
  assert_int_equal(
      parse_text(DDBST_OP_BATCH_WRITE_ITEM,
                 "{\"UnprocessedItems\": {\"saas-api-dev\": [\n"
                 "  {\"DeleteRequest\": {\"Key\": {\"SK\": {\"S\": \"USER#2\"},"
                 " \"PK\": {\"S\": \"ORG#1\"}}}},\n"
                 "  {\"PutRequest\": {\"Item\": {\"PK\": {\"S\": \"ORG#9\"}, "
                 "\"n\": {\"N\": \"1.0\"}, \"s\": {\"SS\": [\"b\", \"a\"]}}}}\n"
                 "]}}",
                 &err),
      0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(page, out, &err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"saas-api-dev\":[{\"DeleteRequest\":"
                      "{\"Key\":{\"SK\":{\"S\":\"USER#2\"},\"PK\":{\"S\":"
                      "\"ORG#1\"}}}},{\"PutRequest\":{\"Item\":{\"PK\":{\"S\":"
                      "\"ORG#9\"},\"n\":{\"N\":\"1.0\"},\"s\":{\"SS\":[\"b\","
                      "\"a\"]}}}}]}}");
  ddbst_item_free(org);
  ddbst_item_free(ev);
  ddbst_item_free(u);
  ddbst_buf_free(want);
  ddbst_batch_free(b);
}

/* ---- which entity ---- */

static void entities_told_apart(void **state) {
  (void)state;
  ddbst_error err;
  /* no entity attribute: by the key */
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
                              "\"USER#2\"},\"email\":{\"S\":\"a@b.c\"}}}",
                              &err),
                   1);
  assert_string_equal(item_json(0), "{\"entity\":\"User\",\"item\":{\"orgId\":"
                                    "\"1\",\"userId\":\"2\",\"email\":\"a@b."
                                    "c\"}}");
  /* the entity attribute alone, no key */
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"_type\":{\"S\":\"Organisation\"},"
                              "\"orgId\":{\"S\":\"7\"},\"name\":{\"S\":\"X\"}}}",
                              &err),
                   1);
  assert_string_equal(item_json(0), "{\"entity\":\"Organisation\",\"item\":{"
                                    "\"orgId\":\"7\",\"name\":\"X\"}}");
  /* an entity attribute the model does not know: a guard item */
  assert_int_equal(
      parse_text(DDBST_OP_QUERY,
                 "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},"
                 "\"_type\":{\"S\":\"Organisation\"}},{\"PK\":{\"S\":\"EMAIL#a\"},"
                 "\"SK\":{\"S\":\"EMAIL#a\"},\"_type\":{\"S\":\"User.email\"}}]}",
                 &err),
      DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Items[1]");
  assert_string_equal(err.message,
                      "_type \"User.email\" is no entity of the model");
  assert_int_equal(ddbst_page_count(page), 0);
  /* no entity attribute, and a key of no entity */
  assert_int_equal(parse_text(DDBST_OP_QUERY,
                              "{\"Items\":[{\"PK\":{\"S\":\"NOPE#1\"},\"SK\":{"
                              "\"S\":\"X\"}}]}",
                              &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Items[0]");
  /* a key of an entity's shape, with a facet that is not canonical */
  assert_int_equal(
      parse_text(DDBST_OP_QUERY,
                 "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#"
                 "2026-01-05T09:00:00.000Z#p1\"}}]}",
                 &err),
      DDBST_EVALUE);
  assert_string_equal(err.path, "Items[0]");
  assert_non_null(strstr(err.message, "createdAt"));
  /* neither */
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"name\":{\"S\":\"x\"}}}", &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Item");
  /* an entity attribute the key contradicts, when facets are read from it */
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
                              "\"USER#2\"},\"_type\":{\"S\":\"Project\"}}}",
                              &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Item");
  assert_string_equal(err.message,
                      "_type says Project, but its key PK is not a Project's key");
  /* key attributes are strings */
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"PK\":{\"N\":\"1\"},\"SK\":{\"S\":"
                              "\"USER#2\"}}}",
                              &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Item.PK");
  assert_int_equal(parse_text(DDBST_OP_GET_ITEM,
                              "{\"Item\":{\"_type\":{\"N\":\"1\"}}}", &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Item._type");
  /* an item of the blog model: its own entity attribute and keys */
  ddbst_page *bp = ddbst_page_new(blog);
  static const char svc[] =
      "{\"Item\":{\"pk\":{\"S\":\"SERVICE#01J00000000000000000000002\"},\"sk\":"
      "{\"S\":\"SERVICE#01J00000000000000000000002\"},\"gsi1pk\":{\"S\":"
      "\"SERVICE\"},\"gsi1sk\":{\"S\":\"0007#01J00000000000000000000002\"}}}";
  assert_int_equal(ddbst_page_parse(bp, DDBST_OP_GET_ITEM, svc, strlen(svc), &err), 1);
  ddbst_item *it = ddbst_item_new(blog, 0);
  assert_int_equal(ddbst_page_item(bp, 0, it, &err), entity(blog, "Service"));
  /* the integer facet comes back from its padded key form */
  assert_string_equal(val(blog, it, "position"), "7");
  assert_string_equal(val(blog, it, "serviceId"), "01J00000000000000000000002");
  /* an item of another model's page is refused */
  ddbst_item *other = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_page_item(bp, 0, other, &err), DDBST_EINVAL);
  ddbst_item_free(other);
  ddbst_item_free(it);
  ddbst_page_free(bp);
}

/* Attributes the entity does not declare are never dropped silently nor
 * taken for another: page_item leaves them out, JSON lists them apart. */
static void undeclared_attributes(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(
      parse_text(DDBST_OP_GET_ITEM,
                 "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},"
                 "\"_type\":{\"S\":\"Organisation\"},\"legacy\":{\"N\":\"042\"},"
                 "\"name\":{\"S\":\"Acme\"},\"GSI9PK\":{\"S\":\"x\"},\"email\":"
                 "{\"S\":\"not an organisation's\"}}}",
                 &err),
      1);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"1\","
                      "\"name\":\"Acme\"},\"undeclared\":{\"legacy\":42,"
                      "\"GSI9PK\":\"x\",\"email\":\"not an organisation's\"}}");
  ddbst_item *it = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), 0);
  assert_string_equal(val(saas, it, "name"), "Acme");
  assert_string_equal(val(saas, it, "orgId"), "1");
  assert_null(val(saas, it, "plan"));
  ddbst_item_free(it);
}

/* An item's names are looked up by the order the item before had (page.h
 * ddbst__page_next_name_id): items that change the order, drop a name,
 * put an unknown prefix of the name expected next where it was (item 3's
 * "nam", where item 2 began with "name"), or repeat a name where the last
 * item had another, are read as if each name were looked up alone. */
static void names_in_changing_order(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(
      parse_text(
          DDBST_OP_QUERY,
          "{\"Items\":["
          "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},\"_type\":{\"S\":"
          "\"Organisation\"},\"name\":{\"S\":\"A\"},\"plan\":{\"S\":\"free\"}},"
          "{\"name\":{\"S\":\"B\"},\"_type\":{\"S\":\"Organisation\"},\"PK\":{"
          "\"S\":\"ORG#2\"},\"SK\":{\"S\":\"ORG#2\"}},"
          "{\"nam\":{\"S\":\"x\"},\"PK\":{\"S\":\"ORG#3\"},\"SK\":{\"S\":"
          "\"ORG#3\"},\"_type\":{\"S\":\"Organisation\"},\"name\":{\"S\":\"C\"}},"
          "{\"PK\":{\"S\":\"ORG#4\"},\"SK\":{\"S\":\"ORG#4\"},\"_type\":{\"S\":"
          "\"Organisation\"},\"name\":{\"S\":\"D\"},\"plan\":{\"S\":\"pro\"}}],"
          "\"Count\":4,\"ScannedCount\":4}",
          &err),
      4);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"1\","
                      "\"name\":\"A\",\"plan\":\"free\"}}");
  assert_string_equal(item_json(1),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"2\","
                      "\"name\":\"B\"}}");
  assert_string_equal(item_json(2),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"3\","
                      "\"name\":\"C\"},\"undeclared\":{\"nam\":\"x\"}}");
  assert_string_equal(item_json(3),
                      "{\"entity\":\"Organisation\",\"item\":{\"orgId\":\"4\","
                      "\"name\":\"D\",\"plan\":\"pro\"}}");
  /* the last item had SK after PK; this one repeats PK there */
  assert_int_equal(
      parse_text(DDBST_OP_QUERY,
                 "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}},"
                 "{\"PK\":{\"S\":\"ORG#2\"},\"PK\":{\"S\":\"ORG#2\"}}]}",
                 &err),
      DDBST_EVALUE);
  assert_string_equal(err.path, "Items[1].PK");
  assert_non_null(strstr(err.message, "twice"));
}

/* ---- typed values ---- */

static const char *project_with(const char *extra, char *buf, size_t cap) {
  snprintf(buf, cap,
           "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-"
           "01-05T09:00:00Z#p1\"},\"_type\":{\"S\":\"Project\"},\"orgId\":{"
           "\"S\":\"1\"},\"projectId\":{\"S\":\"p1\"},%s}]}",
           extra);
  return buf;
}

static void typed_values(void **state) {
  (void)state;
  ddbst_error err;
  char body[1024];
  int project = entity(saas, "Project");
  ddbst_item *it = ddbst_item_new(saas, project);
  /* a timestamp at another precision and offset: read as ddbst_item_set
   * reads it, canonical */
  parse_text(DDBST_OP_QUERY,
             project_with("\"createdAt\":{\"S\":\"2026-01-05T10:00:00.000+01:"
                          "00\"},\"status\":{\"S\":\"active\"},\"name\":{"
                          "\"NULL\":true}",
                          body, sizeof body),
             &err);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), project);
  assert_string_equal(val(saas, it, "createdAt"), "2026-01-05T09:00:00Z");
  assert_null(val(saas, it, "name")); /* NULL: unset */
  /* the JSON is the item as stored */
  assert_non_null(strstr(item_json(0), "\"createdAt\":\"2026-01-05T10:00:00.000+01:00\""));
  assert_non_null(strstr(item_json(0), "\"name\":null"));
  /* an enum value the model does not list */
  parse_text(DDBST_OP_QUERY,
             project_with("\"status\":{\"S\":\"deleted\"}", body, sizeof body),
             &err);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Items[0].status");
  assert_non_null(strstr(err.message, "not one of the enum's values"));
  /* a timestamp that is none */
  parse_text(DDBST_OP_QUERY,
             project_with("\"createdAt\":{\"S\":\"yesterday\"}", body, sizeof body),
             &err);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Items[0].createdAt");
  /* another type than the attribute's */
  parse_text(DDBST_OP_QUERY,
             project_with("\"status\":{\"N\":\"1\"}", body, sizeof body), &err);
  assert_int_equal(ddbst_page_item(page, 0, it, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Items[0].status");
  assert_string_equal(err.message,
                      "Project.status is of type enum, stored as S; the item "
                      "holds N");
  /* an integer that is not one */
  ddbst_page *bp = ddbst_page_new(blog);
  static const char svc[] =
      "{\"Items\":[{\"pk\":{\"S\":\"SERVICE#01J00000000000000000000002\"},"
      "\"sk\":{\"S\":\"SERVICE#01J00000000000000000000002\"},\"entity\":{\"S\":"
      "\"Service\"},\"position\":{\"N\":\"1.5\"},\"slug\":{\"S\":\"x\"}}]}";
  assert_int_equal(ddbst_page_parse(bp, DDBST_OP_QUERY, svc, strlen(svc), &err), 1);
  ddbst_item *bi = ddbst_item_new(blog, 0);
  assert_int_equal(ddbst_page_item(bp, 0, bi, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Items[0].position");
  ddbst_item_free(bi);
  ddbst_page_free(bp);
  ddbst_item_free(it);
}

/* ---- malformed answers ---- */

typedef struct bad {
  int op;
  const char *json;
  int code;
  const char *path;
  const char *message; /* a part of it; NULL: not checked */
} bad;

static const bad bads[] = {
    {DDBST_OP_QUERY, "{\"Items\":[{\"PK\":{\"S\":\"PROJECT#p1\"}", DDBST_ESYNTAX,
     "", "premature EOF"},
    {DDBST_OP_QUERY, "{\"Items\":[]} x", DDBST_ESYNTAX, "", NULL},
    {DDBST_OP_QUERY, "", DDBST_ESYNTAX, "", NULL},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"S\":\"\xff\"}}}", DDBST_ESYNTAX,
     "Item.name.S", "invalid UTF-8: byte 0xF8-0xFF never occurs"},
    /* a lone surrogate escape is refused where it is, never read as '?' */
    {DDBST_OP_QUERY,
     "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"name\":{\"S\":\"x\\ud800y\"}}]}",
     DDBST_ESYNTAX, "Items[0].name.S",
     "\\ud800 is the high half of a surrogate pair"},
    {DDBST_OP_QUERY,
     "{\"Items\":[{\"n\\udc00\":{\"S\":\"a\"}}]}",
     DDBST_ESYNTAX, "Items[0]",
     "a member name: \\udc00 is the low half of a surrogate pair"},
    {DDBST_OP_QUERY,
     "{\"Items\":[{\"tags\":{\"SS\":[\"a\",\"\\ud83d\\u0041\"]}}]}",
     DDBST_ESYNTAX, "Items[0].tags.SS[1]",
     "\\ud83d is the high half of a surrogate pair"},
    {DDBST_OP_QUERY,
     "{\"Items\":[{\"_type\":{\"S\":\"Event\"},\"expiresAt\":{\"N\":\"abc\"}}]}",
     DDBST_EVALUE, "Items[0].expiresAt.N", "not a number"},
    {DDBST_OP_QUERY, "{\"Items\":{}}", DDBST_EVALUE, "Items",
     "expected a list of items, found an object"},
    {DDBST_OP_QUERY, "{\"Items\":[1]}", DDBST_EVALUE, "Items[0]",
     "expected an item"},
    {DDBST_OP_QUERY, "{\"Count\":0}", DDBST_EVALUE, "Items", "missing"},
    {DDBST_OP_QUERY, "[]", DDBST_EVALUE, "", "expected a JSON object"},
    {DDBST_OP_TRANSACT_GET_ITEMS, "{\"Item\":{}}", DDBST_EVALUE, "Responses",
     "missing"},
    {DDBST_OP_BATCH_WRITE_ITEM, "{}", DDBST_EVALUE, "UnprocessedItems",
     "missing"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"X\":\"1\"}}}", DDBST_EVALUE,
     "Item.name", "'X' is not an AttributeValue type"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"S\":\"a\",\"N\":\"1\"}}}",
     DDBST_EVALUE, "Item.name", "exactly one type"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{}}}", DDBST_EVALUE, "Item.name",
     "needs a type and a value"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":\"plain\"}}", DDBST_EVALUE,
     "Item.name", "expected an AttributeValue"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"S\":\"a\\u0000b\"}}}",
     DDBST_EVALUE, "Item.name.S", "NUL"},
    {DDBST_OP_GET_ITEM,
     "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"na\\u0000me\":{\"S\":\"a\"}}}",
     DDBST_EVALUE, "Item", "NUL"},
    {DDBST_OP_GET_ITEM,
     "{\"Item\":{\"p\":{\"M\":{\"a\":{\"S\":\"1\"},\"b\\u0000\":{\"S\":\"2\"}}}}}",
     DDBST_EVALUE, "Item.p.M", "NUL"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"S\":1}}}", DDBST_EVALUE,
     "Item.name.S", "expected a string"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"n\":{\"N\":5}}}", DDBST_EVALUE,
     "Item.n.N", "expected the number as a string"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"n\":{\"N\":\"NaN\"}}}", DDBST_EVALUE,
     "Item.n.N", "NaN"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"n\":{\"N\":\"1e200\"}}}", DDBST_EVALUE,
     "Item.n.N", "too large"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"b\":{\"B\":\"a-b_\"}}}", DDBST_EVALUE,
     "Item.b.B", "base64"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"b\":{\"BOOL\":\"true\"}}}", DDBST_EVALUE,
     "Item.b.BOOL", "true or false"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"b\":{\"NULL\":false}}}", DDBST_EVALUE,
     "Item.b.NULL", "{\"NULL\": true}"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"s\":{\"SS\":[]}}}", DDBST_EVALUE,
     "Item.s.SS", "never empty"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"s\":{\"NS\":[\"1\",\"x\"]}}}",
     DDBST_EVALUE, "Item.s.NS[1]", "not a number"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"s\":{\"SS\":[\"a\",1]}}}", DDBST_EVALUE,
     "Item.s.SS[1]", "strings"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"l\":{\"L\":{}}}}", DDBST_EVALUE,
     "Item.l.L", "expected a list"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"l\":{\"L\":[{\"S\":\"a\"},{\"N\":\"x\"}]}}}",
     DDBST_EVALUE, "Item.l.L[1].N", "not a number"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"m\":{\"M\":{\"k\":{\"BOOL\":1}}}}}",
     DDBST_EVALUE, "Item.m.M.k.BOOL", "true or false"},
    {DDBST_OP_GET_ITEM,
     "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"name\":{\"S\":\"a\"},\"name\":{"
     "\"S\":\"b\"}}}",
     DDBST_EVALUE, "Item.name", "twice"},
    {DDBST_OP_GET_ITEM,
     "{\"Item\":{\"junk\":{\"S\":\"a\"},\"more\":{\"S\":\"a\"},\"junk\":{"
     "\"S\":\"b\"}}}",
     DDBST_EVALUE, "Item.junk", "twice"},
    {DDBST_OP_GET_ITEM,
     "{\"Item\":{\"_type\":{\"S\":\"Organisation\"}},\"Item\":{}}",
     DDBST_EVALUE, "Item", "twice"},
    {DDBST_OP_QUERY,
     "{\"Items\":[],\"LastEvaluatedKey\":{\"PK\":{\"S\":\"ORG#1\"},\"name\":{"
     "\"S\":\"x\"}}}",
     DDBST_EVALUE, "LastEvaluatedKey.name", "not a key attribute"},
    {DDBST_OP_QUERY, "{\"Items\":[],\"LastEvaluatedKey\":{\"PK\":{\"N\":\"1\"}}}",
     DDBST_EVALUE, "LastEvaluatedKey.PK", "strings (S)"},
    {DDBST_OP_BATCH_GET_ITEM,
     "{\"Responses\":{\"saas-api-dev\":{}}}", DDBST_EVALUE,
     "Responses.saas-api-dev", "expected a list of items"},
    {DDBST_OP_BATCH_GET_ITEM,
     "{\"Responses\":{\"saas-api-dev\":[{\"_type\":{\"S\":\"Nope\"}}]}}",
     DDBST_ENOTFOUND, "Responses.saas-api-dev[0]", "no entity"},
    {DDBST_OP_BATCH_GET_ITEM,
     "{\"Responses\":{},\"UnprocessedKeys\":{\"t\":{\"ConsistentRead\":true}}}",
     DDBST_EVALUE, "UnprocessedKeys.t.Keys", "missing"},
    {DDBST_OP_BATCH_GET_ITEM,
     "{\"Responses\":{},\"UnprocessedKeys\":{\"t\":{\"Keys\":[]},\"t\":{"
     "\"Keys\":[]}}}",
     DDBST_EVALUE, "UnprocessedKeys.t", "twice"},
    {DDBST_OP_BATCH_WRITE_ITEM,
     "{\"UnprocessedItems\":{\"t\":[{\"PutRequest\":{\"Item\":{}},"
     "\"DeleteRequest\":{\"Key\":{}}}]}}",
     DDBST_EVALUE, "UnprocessedItems.t[0]",
     "a PutRequest or a DeleteRequest"},
    {DDBST_OP_BATCH_WRITE_ITEM, "{\"UnprocessedItems\":{\"t\":[{}]}}",
     DDBST_EVALUE, "UnprocessedItems.t[0]", "a PutRequest or a DeleteRequest"},
    {DDBST_OP_BATCH_WRITE_ITEM,
     "{\"UnprocessedItems\":{\"t\":[{\"PutRequest\":{}}]}}", DDBST_EVALUE,
     "UnprocessedItems.t[0].PutRequest.Item", "missing"},
    {DDBST_OP_BATCH_WRITE_ITEM,
     "{\"UnprocessedItems\":{\"t\":[{\"DeleteRequest\":{\"Key\":{\"id\":{"
     "\"Q\":\"1\"}}}}]}}",
     DDBST_EVALUE, "UnprocessedItems.t[0].DeleteRequest.Key.id",
     "not an AttributeValue type"},
    {DDBST_OP_GET_ITEM,
     "{\"CancellationReasons\":[{\"Message\":\"x\"}],\"__type\":\"x#E\"}",
     DDBST_EVALUE, "CancellationReasons[0].Code", "missing"},
    /* AttributeValues whose value is of the wrong shape */
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"\":{\"S\":\"a\"}}}", DDBST_EVALUE, "Item",
     "an attribute name is empty"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"name\":{\"S\":{\"x\":1}}}}", DDBST_EVALUE,
     "Item.name.S", "expected a string, found an object"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"b\":{\"BOOL\":[true]}}}", DDBST_EVALUE,
     "Item.b.BOOL", "expected true or false, found a list"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"n\":{\"NULL\":{}}}}", DDBST_EVALUE,
     "Item.n.NULL", "expected true, found an object"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"l\":{\"L\":\"x\"}}}", DDBST_EVALUE,
     "Item.l.L", "expected a list, found a string"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"m\":{\"M\":1}}}", DDBST_EVALUE, "Item.m.M",
     "expected an object, found a number"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"x\":{\"SX\":[\"a\"]}}}", DDBST_EVALUE,
     "Item.x", "'SX' is not an AttributeValue type"},
    {DDBST_OP_GET_ITEM, "{\"Item\":{\"x\":{\"Str\":\"a\"}}}", DDBST_EVALUE,
     "Item.x", "'Str' is not an AttributeValue type"},
    /* error bodies and stream records are read only where they belong */
    {DDBST_OP_GET_ITEM, "{\"__type\":5}", DDBST_EVALUE, "__type",
     "expected a string"},
    {DDBST_OP_QUERY, "{\"Items\":[],\"CancellationReasons\":{}}", DDBST_EVALUE,
     "CancellationReasons", "expected a list, found an object"},
    {DDBST_OP_BATCH_GET_ITEM,
     "{\"Responses\":{},\"UnprocessedKeys\":{\"t\":{\"Keys\":[],"
     "\"ConsistentRead\":\"yes\"}}}",
     DDBST_EVALUE, "UnprocessedKeys.t.ConsistentRead", "true or false"},
};

/* A write's ReturnValues and the item an error body carries. */
static void write_answers_and_error_items(void **state) {
  (void)state;
  ddbst_error err;
  int project = ddbst_model_entity(saas, "Project");
  int user = ddbst_model_entity(saas, "User");
  const char *all =
      "{\"Attributes\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
      "\"PROJECT#2026-03-14T09:00:00Z#p1\"},\"_type\":{\"S\":\"Project\"},"
      "\"name\":{\"S\":\"Apollo\"},\"status\":{\"S\":\"active\"}}}";
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM, -1, all,
                                          strlen(all), &err),
                   1);
  assert_string_equal(item_json(0),
                      "{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\","
                      "\"projectId\":\"p1\",\"createdAt\":"
                      "\"2026-03-14T09:00:00Z\",\"name\":\"Apollo\",\"status\":"
                      "\"active\"}}");
  /* UPDATED_*: read as the entity written; another entity is refused */
  const char *upd = "{\"Attributes\":{\"status\":{\"S\":\"archived\"}}}";
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM, project,
                                          upd, strlen(upd), &err),
                   1);
  assert_string_equal(item_json(0), "{\"entity\":\"Project\",\"item\":{"
                                    "\"status\":\"archived\"}}");
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM, -1, upd,
                                          strlen(upd), &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Attributes");
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM, user,
                                          all, strlen(all), &err),
                   DDBST_EVALUE);
  assert_string_equal(err.message,
                      "the write was of a User, and its answer holds a "
                      "Project");
  assert_int_equal(ddbst_page_count(page), 0);
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_QUERY, -1, "{}", 2,
                                          &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_PUT_ITEM, 99, "{}", 2,
                                          &err),
                   DDBST_EINVAL);
  /* a single write's error with the item */
  const char *ccf =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "ConditionalCheckFailedException\",\"message\":\"The conditional "
      "request failed\",\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
      "\"PROJECT#2026-03-14T09:00:00Z#p1\"},\"name\":{\"S\":\"Apollo\"}}}";
  assert_int_equal(ddbst_page_parse_error(page, ccf, strlen(ccf), &err),
                   DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  ddbst_item *it = ddbst_item_new(saas, user);
  assert_int_equal(ddbst_page_error_item(page, -1, it, &err), project);
  assert_int_equal(ddbst_page_count(page), 0);
  assert_int_equal(ddbst_page_error_item(page, 0, it, &err), DDBST_EINVAL);
  /* the same through a write's parse: DDBST_EDYNAMODB, the item kept */
  assert_int_equal(ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM, project,
                                          ccf, strlen(ccf), &err),
                   DDBST_EDYNAMODB);
  assert_int_equal(ddbst_page_error_item(page, -1, it, &err), project);
  /* a cancellation: an item per reason that has one; a guard's is kept as
   * no entity's */
  const char *tce =
      "{\"__type\":\"TransactionCanceledException\",\"CancellationReasons\":"
      "[{\"Code\":\"None\"},{\"Code\":\"ConditionalCheckFailed\",\"Item\":"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z"
      "#p1\"}}},{\"Code\":\"ConditionalCheckFailed\",\"Item\":{\"PK\":{\"S\":"
      "\"GUARD\"},\"SK\":{\"S\":\"GUARD\"}}},{\"Code\":\"ConditionalCheck"
      "Failed\",\"Item\":{\"PK\":{\"N\":\"1\"}}}]}";
  assert_int_equal(ddbst_page_parse_error(page, tce, strlen(tce), &err),
                   DDBST_DDB_TRANSACTION_CANCELED);
  assert_int_equal(ddbst_page_error_item(page, 0, it, &err), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_error_item(page, 1, it, &err), project);
  assert_int_equal(ddbst_page_error_item(page, 2, it, &err), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_error_item(page, 3, it, &err), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_error_item(page, 4, it, &err), DDBST_EINVAL);
  ddbst_item_free(it);
  /* a Select COUNT answer */
  assert_int_equal(parse_text(DDBST_OP_QUERY,
                              "{\"Count\":4,\"ScannedCount\":9}", &err),
                   0);
  int64_t scanned;
  assert_int_equal(ddbst_page_query_count(page, &scanned), 4);
  assert_int_equal(scanned, 9);
  assert_int_equal(parse_text(DDBST_OP_QUERY,
                              "{\"Count\":-4,\"ScannedCount\":9}", &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Count");
  assert_int_equal(ddbst_page_query_count(page, NULL), -1);
}

static void malformed(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    const bad *b = &bads[i];
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = parse_text(b->op, b->json, &err);
    if (rc != b->code || strcmp(err.path, b->path) ||
        (b->message && !strstr(err.message, b->message)))
      fail_msg("%s\n  got %d %s: %s\n  want %d %s: %s", b->json, rc, err.path,
               err.message, b->code, b->path, b->message ? b->message : "");
    assert_int_equal(err.code, b->code);
    /* the page is empty, and usable again */
    assert_int_equal(ddbst_page_count(page), 0);
    assert_int_equal(ddbst_page_has_more(page), 0);
    assert_int_equal(ddbst_page_error_kind(page), DDBST_DDB_NONE);
  }
  ddbst_error err;
  /* syntax errors say where */
  assert_int_equal(parse_text(DDBST_OP_QUERY, "{\"Items\":\n [tru]}", &err),
                   DDBST_ESYNTAX);
  assert_int_equal(err.line, 2);
  assert_true(err.offset > 0);
  /* operations whose answers hold no items */
  /* a write's answer without ReturnValues: no item */
  assert_int_equal(parse_text(DDBST_OP_PUT_ITEM, "{}", &err), 0);
  assert_int_equal(parse_text(DDBST_OP_TRANSACT_WRITE_ITEMS, "{}", &err),
                   DDBST_EINVAL);
  assert_int_equal(parse_text(DDBST_OP_CREATE_TABLE, "{}", &err), DDBST_EINVAL);
  assert_int_equal(parse_text(99, "{}", &err), DDBST_EINVAL);
  assert_int_equal(ddbst_page_parse(NULL, DDBST_OP_QUERY, "{}", 2, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, NULL, 2, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_count(NULL), 0);
  assert_null(ddbst_page_new(NULL));
  ddbst_page_free(NULL);
  /* what the answers carry besides is skipped, however deep */
  assert_int_equal(parse_text(DDBST_OP_QUERY,
                              "{\"ConsumedCapacity\":{\"a\":[[[{\"b\":[1,2,"
                              "{\"c\":null}]}]]],\"Table\":{}},\"Items\":[],"
                              "\"Count\":0,\"ScannedCount\":7,\"Future\":"
                              "\"x\"}",
                              &err),
                   0);
}

/* Documents nest at most 32 levels, as in DynamoDB. */
static void nesting(void **state) {
  (void)state;
  for (int levels = 31; levels <= 34; levels++) {
    ddbst_buf_reset(out);
    ddbst_buf *b = ddbst_buf_new(NULL);
    char head[] = "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},"
                  "\"doc\":";
    ddbst_error err;
    /* ddbst_buf has no public append: build in a C buffer */
    size_t cap = 64 + strlen(head) + (size_t)levels * 24;
    char *json = malloc(cap);
    strcpy(json, head);
    for (int i = 0; i < levels; i++) strcat(json, i % 2 ? "{\"M\":{\"k\":" : "{\"L\":[");
    strcat(json, "{\"S\":\"deep\"}");
    for (int i = levels - 1; i >= 0; i--) strcat(json, i % 2 ? "}}" : "]}");
    strcat(json, "}}");
    int rc = parse_text(DDBST_OP_GET_ITEM, json, &err);
    if (levels <= 32) {
      assert_int_equal(rc, 1);
      /* the plain JSON nests as deep */
      const char *j = item_json(0);
      int depth = 0, most = 0;
      for (; *j; j++) {
        if (*j == '[' || *j == '{') most = ++depth > most ? depth : most;
        if (*j == ']' || *j == '}') depth--;
      }
      assert_int_equal(most, levels + 2);
    } else {
      assert_int_equal(rc, DDBST_EVALUE);
      assert_non_null(strstr(err.message, "32 levels"));
      assert_memory_equal(err.path, "Item.doc.L[0].M.k.L[0]", 22);
    }
    free(json);
    ddbst_buf_free(b);
  }
  /* skipped members may nest deeper: they are not DynamoDB's documents */
  char deep[4096] = "{\"Items\":[],\"X\":";
  for (int i = 0; i < 1000; i++) strcat(deep, "[");
  for (int i = 0; i < 1000; i++) strcat(deep, "]");
  strcat(deep, "}");
  ddbst_error err;
  assert_int_equal(parse_text(DDBST_OP_QUERY, deep, &err), 0);
}

/* ---- DynamoDB's errors ---- */

static void error_bodies(void **state) {
  (void)state;
  size_t n;
  ddbst_error err;
  char *b = read_response("local-error-cancel-exists.json", &n);
  /* the answer parsed as if it were a success: told apart */
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, b, n, &err),
                   DDBST_EDYNAMODB);
  assert_string_equal(err.path, "__type");
  assert_string_equal(err.message,
                      "TransactionCanceledException: Transaction cancelled, "
                      "please refer cancellation reasons for specific reasons "
                      "[ConditionalCheckFailed, ConditionalCheckFailed]");
  assert_int_equal(ddbst_page_count(page), 0);
  assert_int_equal(ddbst_page_error_kind(page), DDBST_DDB_TRANSACTION_CANCELED);
  assert_string_equal(ddbst_strerror(DDBST_EDYNAMODB),
                      "DynamoDB answered with an error");
  assert_int_equal(ddbst_page_parse_error(page, b, n, &err),
                   DDBST_DDB_TRANSACTION_CANCELED);
  free(b);
  assert_string_equal(ddbst_page_error_type(page), "TransactionCanceledException");
  assert_int_equal(ddbst_page_reason_count(page), 2);
  const char *code, *msg;
  assert_int_equal(ddbst_page_reason(page, 1, &code, &msg),
                   DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  assert_string_equal(code, "ConditionalCheckFailed");
  assert_string_equal(msg, "The conditional request failed");
  assert_int_equal(ddbst_page_reason(page, 2, &code, &msg), DDBST_EINVAL);
  assert_int_equal(ddbst_page_error_retryable(page), 0);

  b = read_response("local-error-cancel-unique.json", &n);
  assert_int_equal(ddbst_page_parse_error(page, b, n, &err),
                   DDBST_DDB_TRANSACTION_CANCELED);
  free(b);
  assert_int_equal(ddbst_page_reason(page, 0, &code, &msg), DDBST_DDB_NONE);
  assert_string_equal(code, "None");
  assert_string_equal(msg, "");

  static const struct {
    const char *file;
    int kind;
    const char *type, *message;
  } plain[] = {
      {"local-error-conditional.json", DDBST_DDB_CONDITIONAL_CHECK_FAILED,
       "ConditionalCheckFailedException", "The conditional request failed"},
      {"local-error-validation.json", DDBST_DDB_VALIDATION,
       "ValidationException",
       "Invalid KeyConditionExpression: An expression attribute name used in "
       "the document path is not defined; attribute name: #p"},
      {"local-error-not-found.json", DDBST_DDB_RESOURCE_NOT_FOUND,
       "ResourceNotFoundException",
       "Cannot do operations on a non-existent table"},
  };
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    b = read_response(plain[i].file, &n);
    assert_int_equal(ddbst_page_parse_error(page, b, n, &err), plain[i].kind);
    free(b);
    assert_string_equal(ddbst_page_error_type(page), plain[i].type);
    assert_string_equal(ddbst_page_error_message(page), plain[i].message);
    assert_int_equal(ddbst_page_reason_count(page), 0);
    assert_int_equal(ddbst_page_error_retryable(page), 0);
  }
  /* from the API reference: lower-case "message", throttling, and a
   * cancellation only contention caused */
  static const char throttled[] =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "ProvisionedThroughputExceededException\",\"message\":\"The level of "
      "configured provisioned throughput for the table was exceeded.\"}";
  assert_int_equal(ddbst_page_parse_error(page, throttled, strlen(throttled), &err),
                   DDBST_DDB_THROTTLED);
  assert_string_equal(ddbst_page_error_message(page),
                      "The level of configured provisioned throughput for the "
                      "table was exceeded.");
  assert_int_equal(ddbst_page_error_retryable(page), 1);
  static const char conflict[] =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "TransactionCanceledException\",\"Message\":\"Transaction cancelled\","
      "\"CancellationReasons\":[{\"Code\":\"None\"},{\"Code\":"
      "\"TransactionConflict\",\"Message\":\"Transaction is ongoing for the "
      "item\"},{\"Code\":\"ThrottlingError\",\"Item\":{\"PK\":{\"S\":\"x\"}}}]}";
  assert_int_equal(ddbst_page_parse_error(page, conflict, strlen(conflict), &err),
                   DDBST_DDB_TRANSACTION_CANCELED);
  assert_int_equal(ddbst_page_reason(page, 1, NULL, NULL),
                   DDBST_DDB_TRANSACTION_CONFLICT);
  assert_int_equal(ddbst_page_reason(page, 2, NULL, NULL), DDBST_DDB_THROTTLED);
  assert_int_equal(ddbst_page_error_retryable(page), 1);
  static const char odd[] =
      "{\"__type\":\"SomethingNew\",\"CancellationReasons\":[{\"Code\":\"Odd\"}]}";
  assert_int_equal(ddbst_page_parse_error(page, odd, strlen(odd), &err),
                   DDBST_DDB_OTHER);
  assert_string_equal(ddbst_page_error_type(page), "SomethingNew");
  assert_string_equal(ddbst_page_error_message(page), "");
  assert_int_equal(ddbst_page_reason(page, 0, NULL, NULL), DDBST_DDB_OTHER);
  /* a success body is no error body */
  b = read_response("local-get-user.json", &n);
  assert_int_equal(ddbst_page_parse_error(page, b, n, &err), DDBST_EVALUE);
  free(b);
  assert_string_equal(err.path, "__type");
  assert_int_equal(ddbst_page_error_kind(page), DDBST_DDB_NONE);
  assert_null(ddbst_page_error_type(page));
  assert_string_equal(ddbst_page_error_message(page), "");
  assert_int_equal(ddbst_page_reason_count(page), 0);
  assert_int_equal(ddbst_page_parse_error(page, "<html>", 6, &err), DDBST_ESYNTAX);
  assert_int_equal(ddbst_page_parse_error(NULL, "{}", 2, &err), DDBST_EINVAL);
}

/* ---- a cancelled transaction, explained ---- */

static ddbst_item *user(const char *org, const char *id, const char *email) {
  ddbst_item *it = ddbst_item_new(saas, entity(saas, "User"));
  set(it, "orgId", org);
  set(it, "userId", id);
  if (email) set(it, "email", email);
  return it;
}

static void load_error(const char *file) {
  size_t n;
  ddbst_error err;
  char *b = read_response(file, &n);
  if (ddbst_page_parse_error(page, b, n, &err) <= 0)
    fail_msg("%s: %s", file, err.message);
  free(b);
}

static void explain_transactions(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_txn *txn = ddbst_txn_new(saas);
  /* the same user again: the item and its email's guard are both taken */
  ddbst_item *ann = user("1", "2", "Ann@X.com");
  assert_int_equal(ddbst_txn_put(txn, ann, DDBST_CREATE, NOW, &err), 0);
  load_error("local-error-cancel-exists.json");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_EXISTS);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[0]: User (ORG#1 / USER#2) already exists\n"
                      "TransactItems[1]: unique constraint User.email: another "
                      "User already has this email (EMAIL#ann@x.com)\n");
  int index = -9, ent = -9;
  const char *unique = "?";
  assert_int_equal(ddbst_txn_failure(txn, page, 0, &index, &ent, &unique),
                   DDBST_FAIL_EXISTS);
  assert_int_equal(index, 0);
  assert_int_equal(ent, entity(saas, "User"));
  assert_null(unique);
  assert_int_equal(ddbst_txn_failure(txn, page, 1, &index, &ent, &unique),
                   DDBST_FAIL_UNIQUE);
  assert_int_equal(index, 1);
  assert_string_equal(unique, "email");
  assert_int_equal(ddbst_txn_failure(txn, page, 2, &index, &ent, &unique),
                   DDBST_ENOTFOUND);
  assert_int_equal(ddbst_txn_failure(txn, page, 1, NULL, NULL, NULL),
                   DDBST_FAIL_UNIQUE);

  /* another transaction's reasons do not match this one's operations */
  load_error("local-error-cancel-version.json");
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "page");
  /* no error at all */
  assert_int_equal(parse_file(DDBST_OP_GET_ITEM, "local-get-user.json"), 1);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_txn_explain(txn, NULL, out, &err), DDBST_EINVAL);

  /* a ConditionCheck of a missing user */
  ddbst_txn_reset(txn);
  ddbst_item *nobody = user("1", "9", NULL);
  ddbst_item *org = ddbst_item_new(saas, entity(saas, "Organisation"));
  set(org, "orgId", "1");
  set(org, "plan", "team");
  assert_int_equal(ddbst_txn_check(txn, nobody, &err), 0);
  assert_int_equal(ddbst_txn_update(txn, org, 0, NOW, &err), 0);
  load_error("local-error-cancel-check.json");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_MISSING);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[0]: User (ORG#1 / USER#9) does not exist\n");

  /* contention: retry */
  static const char conflict[] =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "TransactionCanceledException\",\"Message\":\"Transaction cancelled\","
      "\"CancellationReasons\":[{\"Code\":\"None\"},{\"Code\":"
      "\"TransactionConflict\",\"Message\":\"Transaction is ongoing for the "
      "item\"}]}";
  assert_true(ddbst_page_parse_error(page, conflict, strlen(conflict), &err) > 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_CONFLICT);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[1]: Organisation (ORG#1): another "
                      "transaction was writing it at the same time; retry the "
                      "transaction\n");
  /* one entry throttled, the body saying where */
  static const char entry_throttled[] =
      "{\"__type\":\"TransactionCanceledException\",\"Message\":\"x\","
      "\"CancellationReasons\":[{\"Code\":\"None\"},{\"Code\":"
      "\"ThrottlingError\"}],\"ThrottlingReasons\":[{\"reason\":"
      "\"TableWriteProvisionedThroughputExceeded\",\"resource\":\"arn:aws:"
      "dynamodb:eu-west-1:123456789012:table/t-1\"}]}";
  assert_true(ddbst_page_parse_error(page, entry_throttled,
                                     strlen(entry_throttled), &err) > 0);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err),
                   DDBST_FAIL_THROTTLED);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[1]: Organisation (ORG#1): throttled "
                      "(ThrottlingError); throttled: "
                      "TableWriteProvisionedThroughputExceeded (above its "
                      "provisioned capacity) on arn:aws:dynamodb:eu-west-1:"
                      "123456789012:table/t-1; retry with backoff\n");
  /* the request failed as a whole */
  static const char throttled[] =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ThrottlingException\","
      "\"message\":\"Rate of requests exceeds the allowed throughput.\"}";
  assert_true(ddbst_page_parse_error(page, throttled, strlen(throttled), &err) > 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_THROTTLED);
  assert_string_equal(ddbst_buf_data(out),
                      "the request failed as a whole: ThrottlingException: "
                      "Rate of requests exceeds the allowed throughput.; "
                      "retry with backoff\n");
  assert_int_equal(ddbst_txn_failure(txn, page, 0, &index, &ent, &unique),
                   DDBST_FAIL_THROTTLED);
  assert_int_equal(index, -1);
  assert_int_equal(ent, DDBST_ENOTFOUND);
  assert_int_equal(ddbst_txn_failure(txn, page, 1, &index, &ent, &unique),
                   DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_throttling_reason_count(page), 0);

  /* newer bodies say why, and where: each reason named, in words */
  static const char reasons[] =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "ProvisionedThroughputExceededException\",\"message\":\"Throughput "
      "exceeds the maximum\",\"ThrottlingReasons\":[{\"reason\":"
      "\"TableWriteKeyRangeThroughputExceeded\",\"resource\":"
      "\"arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev\"},"
      "{\"resource\":\"arn:aws:dynamodb:eu-west-1:123456789012:table/"
      "saas-api-dev/index/GSI1\",\"reason\":"
      "\"IndexWriteMaxOnDemandThroughputExceeded\"},{\"reason\":"
      "\"TableReadSomethingNew\"}]}";
  assert_true(ddbst_page_parse_error(page, reasons, strlen(reasons), &err) > 0);
  assert_int_equal(ddbst_page_throttling_reason_count(page), 3);
  const char *reason, *resource;
  assert_int_equal(ddbst_page_throttling_reason(page, 1, &reason, &resource),
                   0);
  assert_string_equal(reason, "IndexWriteMaxOnDemandThroughputExceeded");
  assert_string_equal(resource, "arn:aws:dynamodb:eu-west-1:123456789012:"
                                "table/saas-api-dev/index/GSI1");
  assert_int_equal(ddbst_page_throttling_reason(page, 2, &reason, &resource),
                   0);
  assert_string_equal(resource, "");
  assert_int_equal(ddbst_page_throttling_reason(page, 3, &reason, &resource),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_throttling_reason(page, -1, NULL, NULL),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err),
                   DDBST_FAIL_THROTTLED);
  assert_string_equal(
      ddbst_buf_data(out),
      "the request failed as a whole: ProvisionedThroughputExceededException: "
      "Throughput exceeds the maximum; throttled: "
      "TableWriteKeyRangeThroughputExceeded (too much on one partition's key "
      "range (a hot partition: spread the partition key)) on "
      "arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev; "
      "IndexWriteMaxOnDemandThroughputExceeded (above the on-demand maximum "
      "the table declares (onDemandThroughput)) on "
      "arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev/index/GSI1; "
      "TableReadSomethingNew; retry with backoff\n");
  /* hostile: bounded, typed, complete; a refused body leaves no reasons */
  static const char *const refused[][2] = {
      {"{\"__type\":\"ThrottlingException\",\"ThrottlingReasons\":"
       "[{},{}]}",
       "ThrottlingReasons[0].reason: missing"},
      {"{\"__type\":\"ThrottlingException\",\"ThrottlingReasons\":"
       "[{\"reason\":7}]}",
       "ThrottlingReasons[0].reason: expected a string"},
      {"{\"__type\":\"ThrottlingException\",\"ThrottlingReasons\":{}}",
       "ThrottlingReasons: expected a list"},
      {"{\"__type\":\"ThrottlingException\",\"ThrottlingReasons\":[{\"reason\""
       ":\"a\"},{\"reason\":\"a\"},{\"reason\":\"a\"},{\"reason\":\"a\"},"
       "{\"reason\":\"a\"},{\"reason\":\"a\"},{\"reason\":\"a\"},"
       "{\"reason\":\"a\"},{\"reason\":\"a\"}]}",
       "ThrottlingReasons[8]: more than 8 throttling reasons"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    assert_int_equal(ddbst_page_parse_error(page, refused[i][0],
                                            strlen(refused[i][0]), &err),
                     DDBST_EVALUE);
    char said[600];
    snprintf(said, sizeof said, "%s: %s", err.path, err.message);
    if (!strstr(said, refused[i][1]))
      fail_msg("case %zu: '%s' lacks '%s'", i, said, refused[i][1]);
    assert_int_equal(ddbst_page_throttling_reason_count(page), 0);
  }

  /* a delete tied to its unique values, and a validation error */
  ddbst_txn_reset(txn);
  assert_int_equal(ddbst_txn_delete(txn, ann, 0, &err), 0);
  static const char del[] =
      "{\"__type\":\"x#TransactionCanceledException\",\"CancellationReasons\":"
      "[{\"Code\":\"ConditionalCheckFailed\"},{\"Code\":\"ValidationError\","
      "\"Message\":\"Item size has exceeded the maximum allowed size\"}]}";
  assert_true(ddbst_page_parse_error(page, del, strlen(del), &err) > 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_CONDITION);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[0]: User (ORG#1 / USER#2) does not exist, "
                      "or its unique attributes no longer hold the values "
                      "given\n"
                      "TransactItems[1]: the User.email guard (EMAIL#ann@x.com)"
                      ": DynamoDB refused the operation: ValidationError: Item "
                      "size has exceeded the maximum allowed size\n");
  ddbst_item_free(org);
  ddbst_item_free(nobody);
  ddbst_item_free(ann);
  ddbst_txn_free(txn);
}

/* The single-item builders that write a transaction, or one conditional
 * write: explained from the item and the builder's op and flags. */
static void explain_single_items(void **state) {
  (void)state;
  ddbst_error err;
  /* another user with Ann's email, in another case */
  ddbst_item *other = user("1", "4", "ANN@x.com");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(other, DDBST_CREATE, NOW, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  load_error("local-error-cancel-unique.json");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_item_explain(other, DDBST_OP_PUT_ITEM, DDBST_CREATE,
                                      page, out, &err),
                   DDBST_FAIL_UNIQUE);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[1]: unique constraint User.email: another "
                      "User already has this email (EMAIL#ann@x.com)\n");
  /* a plain create of an existing organisation */
  ddbst_item *org = ddbst_item_new(saas, entity(saas, "Organisation"));
  set(org, "orgId", "1");
  set(org, "name", "Again");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(org, DDBST_CREATE, NOW, out, &err),
                   DDBST_OP_PUT_ITEM);
  load_error("local-error-conditional.json");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_item_explain(org, DDBST_OP_PUT_ITEM, DDBST_CREATE,
                                      page, out, &err),
                   DDBST_FAIL_EXISTS);
  assert_string_equal(ddbst_buf_data(out), "Organisation (ORG#1) already exists\n");
  /* a ConditionalCheckFailedException cannot answer a two-entry write */
  assert_int_equal(ddbst_item_explain(other, DDBST_OP_PUT_ITEM, DDBST_CREATE,
                                      page, out, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_item_explain(org, DDBST_OP_QUERY, 0, page, out, &err),
                   DDBST_EINVAL);

  /* versions, on the blog model */
  ddbst_page *bp = ddbst_page_new(blog);
  size_t n;
  char *b = read_response("local-error-version.json", &n);
  assert_int_equal(ddbst_page_parse_error(bp, b, n, &err),
                   DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  free(b);
  ddbst_item *post = ddbst_item_new(blog, entity(blog, "Blog"));
  set(post, "blogId", "01J00000000000000000000001");
  set(post, "title", "Again");
  assert_int_equal(ddbst_item_expect_version(post, 7), 0);
  ddbst_buf *body = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_update_request(post, 0, NOW, body, &err),
                   DDBST_OP_UPDATE_ITEM);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_item_explain(post, DDBST_OP_UPDATE_ITEM, 0, bp, out, &err),
                   DDBST_FAIL_VERSION);
  assert_string_equal(ddbst_buf_data(out),
                      "version mismatch: Blog (BLOG#01J00000000000000000000001) "
                      "is not at version 7 (or no longer exists); read it "
                      "again and retry\n");
  /* the update that moves the slug's guard, at a stale version */
  ddbst_item_reset(post, entity(blog, "Blog"));
  set(post, "blogId", "01J00000000000000000000001");
  set(post, "slug", "hello2");
  int slug = ddbst_model_attribute(blog, entity(blog, "Blog"), "slug");
  assert_int_equal(ddbst_item_set_previous(post, slug, "hello", 5, &err), 0);
  assert_int_equal(ddbst_item_expect_version(post, 5), 0);
  ddbst_buf_reset(body);
  assert_int_equal(ddbst_update_request(post, 0, NOW, body, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  b = read_response("local-error-cancel-version.json", &n);
  assert_int_equal(ddbst_page_parse_error(bp, b, n, &err),
                   DDBST_DDB_TRANSACTION_CANCELED);
  free(b);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_item_explain(post, DDBST_OP_UPDATE_ITEM, 0, bp, out, &err),
                   DDBST_FAIL_VERSION);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[0]: version mismatch: Blog (BLOG#01J0000000"
                      "0000000000000001) is not at version 5 (or no longer "
                      "exists); read it again and retry\n");
  /* pages and items of different models do not mix */
  assert_int_equal(ddbst_item_explain(org, DDBST_OP_PUT_ITEM, DDBST_CREATE, bp,
                                      out, &err),
                   DDBST_EINVAL);
  ddbst_buf_free(body);
  ddbst_item_free(post);
  ddbst_page_free(bp);
  ddbst_item_free(org);
  ddbst_item_free(other);
}

/* Every answer, and every prefix of it, ending right at a page no byte of
 * may be read: the parser never reads past `len`. */
static void no_over_read(void **state) {
  (void)state;
  static const struct {
    int op;
    const char *file;
  } files[] = {
      {DDBST_OP_GET_ITEM, "local-get-user.json"},
      {DDBST_OP_QUERY, "local-query-events.json"},
      {DDBST_OP_QUERY, "local-query-user-by-email.json"},
      {DDBST_OP_BATCH_GET_ITEM, "local-batch-get.json"},
      {DDBST_OP_TRANSACT_GET_ITEMS, "local-transact-get.json"},
      {DDBST_OP_QUERY, "local-error-cancel-exists.json"},
  };
  ddbst_error err;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    size_t n;
    char *b = read_response(files[f].file, &n);
    char *at = NULL;
    for (size_t len = 0; len <= n; len++) {
      guard_free(at);
      at = guard_copy(b, len);
      int rc = ddbst_page_parse(page, files[f].op, at, len, &err);
      if (len < n) assert_true(rc < 0);
      for (int i = 0; i < rc; i++) item_json(i);
    }
    /* the page holds nothing of the input */
    memset(at, 'x', n);
    for (int i = 0; i < ddbst_page_count(page); i++) item_json(i);
    guard_free(at);
    free(b);
  }
}

/* ---- what the split into files exposed ---- */

/* The exception type is what follows the last '#'. */
static void error_types_after_the_last_hash(void **state) {
  (void)state;
  ddbst_error err;
  static const char body[] =
      "{\"__type\":\"com.amazon#v2#ConditionalCheckFailedException\","
      "\"message\":\"The conditional request failed\"}";
  assert_int_equal(ddbst_page_parse_error(page, body, strlen(body), &err),
                   DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  assert_string_equal(ddbst_page_error_type(page),
                      "ConditionalCheckFailedException");
  static const char plain[] = "{\"__type\":\"ThrottlingException\"}";
  assert_int_equal(ddbst_page_parse_error(page, plain, strlen(plain), &err),
                   DDBST_DDB_THROTTLED);
  assert_string_equal(ddbst_page_error_type(page), "ThrottlingException");
  assert_string_equal(ddbst_page_error_message(page), "");
}

static void parse_error_text(const char *body) {
  ddbst_error err;
  if (ddbst_page_parse_error(page, body, strlen(body), &err) <= 0)
    fail_msg("%s: %s", body, err.message);
}

/* Every reason a cancellation gives, and the arguments explain refuses. */
static void explain_every_reason(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_txn *txn = ddbst_txn_new(saas);
  ddbst_item *org = ddbst_item_new(saas, entity(saas, "Organisation"));
  set(org, "orgId", "1");
  set(org, "plan", "team");
  ddbst_item *proj = ddbst_item_new(saas, entity(saas, "Project"));
  set(proj, "orgId", "1");
  set(proj, "projectId", "p1");
  set(proj, "createdAt", "2026-03-14T09:00:00Z");
  set(proj, "name", "Roadmap");
  assert_int_equal(ddbst_txn_update(txn, org, 0, NOW, &err), 0);
  assert_int_equal(ddbst_txn_put(txn, proj, 0, NOW, &err), 0); /* no condition */
  parse_error_text(
      "{\"__type\":\"x#TransactionCanceledException\",\"CancellationReasons\":"
      "[{\"Code\":\"ThrottlingError\",\"Message\":\"Throughput exceeds\"},"
      "{\"Code\":\"ItemCollectionSizeLimitExceeded\"}]}");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_THROTTLED);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[0]: Organisation (ORG#1): throttled "
                      "(ThrottlingError); retry with backoff\n"
                      "TransactItems[1]: Project (ORG#1 / PROJECT#2026-03-14T09:"
                      "00:00Z#p1): the partition's item collection is over 10 "
                      "GB\n");
  assert_int_equal(ddbst_txn_failure(txn, page, 1, NULL, NULL, NULL),
                   DDBST_FAIL_OTHER);
  /* a put with no condition of ddbst's own failed one (the caller's) */
  parse_error_text(
      "{\"__type\":\"x#TransactionCanceledException\",\"CancellationReasons\":"
      "[{\"Code\":\"None\"},{\"Code\":\"ConditionalCheckFailed\"}]}");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err),
                   DDBST_FAIL_CONDITION);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[1]: Project (ORG#1 / PROJECT#2026-03-14T09:"
                      "00:00Z#p1): a condition failed\n");
  /* the whole request: another transaction holds it */
  parse_error_text(
      "{\"__type\":\"x#TransactionInProgressException\",\"message\":\"in "
      "progress\"}");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(txn, page, out, &err), DDBST_FAIL_CONFLICT);
  assert_string_equal(ddbst_buf_data(out),
                      "the request failed as a whole: "
                      "TransactionInProgressException: in progress; retry with "
                      "backoff\n");
  /* a create at a version: the item exists at another */
  ddbst_page *bp = ddbst_page_new(blog);
  ddbst_item *post = ddbst_item_new(blog, entity(blog, "Blog"));
  set(post, "blogId", "01J00000000000000000000001");
  set(post, "title", "Again");
  set(post, "slug", "again");
  assert_int_equal(ddbst_item_expect_version(post, 3), 0);
  ddbst_txn *bt = ddbst_txn_new(blog);
  int rc = ddbst_txn_put(bt, post, DDBST_CREATE, NOW, &err);
  if (rc == 0) {
    static const char cancel[] =
        "{\"__type\":\"x#TransactionCanceledException\",\"CancellationReasons"
        "\":[{\"Code\":\"ConditionalCheckFailed\"},{\"Code\":\"None\"}]}";
    assert_true(ddbst_page_parse_error(bp, cancel, strlen(cancel), &err) > 0);
    ddbst_buf_reset(out);
    assert_int_equal(ddbst_txn_explain(bt, bp, out, &err), DDBST_FAIL_EXISTS);
    assert_non_null(strstr(ddbst_buf_data(out),
                           "already exists, and not at version 3"));
  } else {
    fail_msg("a versioned create: %s", err.message);
  }
  /* pages and transactions of different models, and missing arguments */
  assert_int_equal(ddbst_txn_explain(bt, page, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "the page belongs to another model");
  assert_int_equal(ddbst_txn_failure(bt, page, 0, NULL, NULL, NULL),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_txn_explain(NULL, page, out, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_txn_explain(txn, page, NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_txn_failure(NULL, page, 0, NULL, NULL, NULL),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_txn_failure(txn, page, -1, NULL, NULL, NULL),
                   DDBST_EINVAL);
  assert_int_equal(
      ddbst_item_explain(NULL, DDBST_OP_PUT_ITEM, 0, page, out, &err),
      DDBST_EINVAL);
  assert_int_equal(ddbst_item_explain(org, DDBST_OP_PUT_ITEM, 0, page, NULL, &err),
                   DDBST_EINVAL);
  ddbst_txn_free(bt);
  ddbst_item_free(post);
  ddbst_page_free(bp);
  ddbst_item_free(proj);
  ddbst_item_free(org);
  ddbst_txn_free(txn);
}

/* What is left of a page: refusals, and output that cannot grow. */
static void followups_refuse(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(ddbst_page_followup_request(NULL, out, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_page_followup_request(page, NULL, &err), DDBST_EINVAL);
  assert_int_equal(
      parse_text(DDBST_OP_BATCH_WRITE_ITEM,
                 "{\"UnprocessedItems\":{\"t\":[{\"DeleteRequest\":{\"Key\":"
                 "{\"PK\":{\"S\":\"A\"}}}}]}}",
                 &err),
      0);
  /* a buffer whose next allocation fails */
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_buf *full = ddbst_buf_new(&ca.hooks);
  assert_non_null(full);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_page_followup_request(page, full, &err), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(full), 0);
  /* the next cursor needs its arguments */
  assert_int_equal(parse_file(DDBST_OP_QUERY, "local-query-events.json") >= 0, 1);
  assert_int_equal(ddbst_page_next_cursor(NULL, NULL, NOW, out, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_page_next_cursor(page, NULL, NOW, NULL, &err),
                   DDBST_EINVAL);
  /* an item as JSON into a buffer that cannot grow */
  assert_int_equal(parse_file(DDBST_OP_GET_ITEM, "local-get-user.json"), 1);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_page_item_json(page, 0, full, &err), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(full), 0);
  assert_int_equal(ddbst_page_item_json(page, 0, NULL, &err), DDBST_EINVAL);
  ddbst_buf_free(full);
  assert_int_equal(ca.live, 0);

  /* a LastEvaluatedKey of more attributes than a query's key has */
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\",\"indexes\":{"
      "\"GSI1\":{\"partitionKey\":\"G1PK\",\"sortKey\":\"G1SK\"},"
      "\"GSI2\":{\"partitionKey\":\"G2PK\",\"sortKey\":\"G2SK\"},"
      "\"GSI3\":{\"partitionKey\":\"G3PK\",\"sortKey\":\"G3SK\"},"
      "\"GSI4\":{\"partitionKey\":\"G4PK\",\"sortKey\":\"G4SK\"},"
      "\"GSI5\":{\"partitionKey\":\"G5PK\"}}},"
      "\"entities\":{\"U\":{\"attributes\":{\"id\":\"string\"},"
      "\"key\":{\"pk\":\"U#{id}\",\"sk\":\"U#{id}\"}}},"
      "\"patterns\":{\"listU\":{\"query\":\"U\"}}}");
  ddbst_page *mp = ddbst_page_new(m);
  static const char lek[] =
      "{\"Items\":[],\"LastEvaluatedKey\":{\"PK\":{\"S\":\"a\"},\"SK\":{\"S\":"
      "\"a\"},\"G1PK\":{\"S\":\"a\"},\"G1SK\":{\"S\":\"a\"},\"G2PK\":{\"S\":"
      "\"a\"},\"G2SK\":{\"S\":\"a\"},\"G3PK\":{\"S\":\"a\"},\"G3SK\":{\"S\":"
      "\"a\"},\"G4PK\":{\"S\":\"a\"},\"G4SK\":{\"S\":\"a\"},\"G5PK\":"
      "{\"S\":\"a\"}}}";
  ddbst_item *values = ddbst_item_new(m, 0);
  set(values, "id", "a");
  assert_int_equal(ddbst_page_parse_query(mp, values,
                                          ddbst_model_pattern(m, "listU"), lek,
                                          strlen(lek), &err),
                   0);
  assert_int_equal(ddbst_page_has_more(mp), 1);
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  assert_int_equal(ddbst_page_next_cursor(mp, keys, NOW, out, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "LastEvaluatedKey");
  assert_string_equal(err.message, "LastEvaluatedKey holds 11 attributes; a "
                                   "query's holds at most 10");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_cursor_keys_free(keys);
  ddbst_item_free(values);
  ddbst_page_free(mp);
  ddbst_model_free(m);
}

/* Every scalar AttributeValue type as plain JSON, a boolean attribute read
 * into an item. */
static void plain_json_of_every_scalar(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\"},\"entities\":{"
      "\"U\":{\"attributes\":{\"id\":\"string\",\"on\":\"boolean\",\"n\":"
      "\"number\",\"b\":\"binary\",\"gone\":\"string\"},\"key\":{\"pk\":"
      "\"U#{id}\",\"sk\":\"U#{id}\"}}},\"patterns\":{}}");
  ddbst_page *mp = ddbst_page_new(m);
  static const char get[] =
      "{\"Item\":{\"PK\":{\"S\":\"U#1\"},\"SK\":{\"S\":\"U#1\"},\"_type\":"
      "{\"S\":\"U\"},\"gone\":{\"NULL\":true},\"b\":{\"B\":\"AAE=\"},"
      "\"n\":{\"N\":\"-1.50\"},\"on\":{\"BOOL\":false}}}";
  ddbst_error err;
  assert_int_equal(ddbst_page_parse(mp, DDBST_OP_GET_ITEM, get, strlen(get), &err),
                   1);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_item_json(mp, 0, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"entity\":\"U\",\"item\":{\"id\":\"1\",\"on\":false,"
                      "\"n\":-1.50,\"b\":\"AAE=\",\"gone\":null}}");
  ddbst_item *it = ddbst_item_new(m, 0);
  assert_int_equal(ddbst_page_item(mp, 0, it, &err), 0);
  assert_string_equal(val(m, it, "on"), "false");
  assert_null(val(m, it, "gone")); /* NULL is no value */
  ddbst_item_free(it);
  ddbst_page_free(mp);
  ddbst_model_free(m);
}

/* The per-item stamps wrap after four billion items: nothing read before
 * the wrap may count as read in the item after it. */
static void stamps_wrap(void **state) {
  (void)state;
  ddbst_error err;
  size_t n;
  char *b = read_response("local-query-projects.json", &n);
  int count = ddbst_page_parse(page, DDBST_OP_QUERY, b, n, &err);
  assert_true(count > 1);
  char *before = malloc((size_t)count * 1024);
  before[0] = '\0';
  for (int i = 0; i < count; i++) strcat(before, item_json(i));
  for (uint32_t left = 1; left <= 3; left++) {
    page->gen = UINT32_MAX - left; /* tests may look inside (page.h) */
    assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, b, n, &err), count);
    char *after = malloc((size_t)count * 1024);
    after[0] = '\0';
    for (int i = 0; i < count; i++) strcat(after, item_json(i));
    assert_string_equal(after, before);
    free(after);
  }
  /* what the first item of a fresh page marked (stamp 2) is not taken for
   * the second item after the wrap (stamp 2 again): its email is no
   * duplicate, and its userId, absent, is recovered from its key (the
   * organisation between touches neither) */
  ddbst_page *fresh = ddbst_page_new(saas);
  static const char first[] =
      "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},"
      "\"userId\":{\"S\":\"2\"},\"email\":{\"S\":\"a@x.com\"}}]}";
  assert_int_equal(
      ddbst_page_parse(fresh, DDBST_OP_QUERY, first, strlen(first), &err), 1);
  fresh->gen = UINT32_MAX - 1;
  static const char second[] =
      "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}},"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#4\"},\"email\":{"
      "\"S\":\"c@x.com\"}}]}";
  assert_int_equal(
      ddbst_page_parse(fresh, DDBST_OP_QUERY, second, strlen(second), &err), 2);
  assert_int_equal(fresh->gen, 2);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_item_json(fresh, 1, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"entity\":\"User\",\"item\":{\"orgId\":\"1\","
                      "\"userId\":\"4\",\"email\":\"c@x.com\"}}");
  ddbst_page_free(fresh);
  free(before);
  free(b);
}

static void oversized_answer(void **state) {
  (void)state;
  ddbst_error err;
  /* refused by its length, before a byte is read */
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, "{}",
                                    (size_t)UINT32_MAX, &err),
                   DDBST_ERANGE);
  assert_int_equal(ddbst_page_count(page), 0);
}

/* ---- memory ---- */

static ddbst_model *counted_model(counting_alloc *ca, const char *rel) {
  counting_alloc_init(ca);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, rel);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca->hooks;
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load_file(path, &o, &m, &err)) fail_msg("%s", err.message);
  return m;
}

/* A warm page parses without allocating; so do reading an item and
 * writing JSON into warm ones. */
static void warm_page_does_not_allocate(void **state) {
  (void)state;
  counting_alloc ca;
  ddbst_model *m = counted_model(&ca, "examples/saas/model.json");
  ddbst_page *pg = ddbst_page_new(m);
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  static const char *const files[][2] = {
      {"5", "local-query-projects.json"},
      {"5", "local-query-events.json"},
      {"5", "local-query-projects-by-status.json"},
      {"5", "local-query-user-by-email.json"},
      {"6", "local-batch-get.json"},
      {"9", "local-transact-get.json"},
      {"1", "local-get-user.json"},
  };
  size_t nfiles = sizeof files / sizeof files[0];
  char *bodies[16];
  size_t lens[16];
  for (size_t i = 0; i < nfiles; i++) bodies[i] = read_response(files[i][1], &lens[i]);
  ddbst_error err;
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    for (size_t i = 0; i < nfiles; i++) {
      int rc = ddbst_page_parse(pg, atoi(files[i][0]), bodies[i], lens[i], &err);
      assert_true(rc >= 0);
      for (int k = 0; k < rc; k++) {
        if (ddbst_page_item_entity(pg, k) < 0) continue;
        assert_true(ddbst_page_item(pg, k, it, &err) >= 0);
        ddbst_buf_reset(b);
        assert_int_equal(ddbst_page_item_json(pg, k, b, &err), 0);
      }
    }
    /* the first round warms everything up; then nothing allocates */
    if (round > 0) assert_int_equal(ca.calls, before);
  }
  /* an error body too */
  char *e = read_response("local-error-cancel-exists.json", &lens[15]);
  assert_true(ddbst_page_parse_error(pg, e, lens[15], &err) > 0);
  long before = ca.calls;
  assert_true(ddbst_page_parse_error(pg, e, lens[15], &err) > 0);
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_QUERY, bodies[0], lens[0], &err), 2);
  assert_int_equal(ca.calls, before);
  free(e);
  for (size_t i = 0; i < nfiles; i++) free(bodies[i]);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_page_free(pg);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static int nomem_err(ddbst_error *err) {
  if (err) err->code = DDBST_ENOMEM;
  return DDBST_ENOMEM;
}

/* Fails the n-th allocation of `run` for n = 1, 2, ... until it succeeds:
 * every failure is DDBST_ENOMEM and leaks nothing. */
typedef int (*run_fn)(ddbst_model *m, const char *body, size_t len,
                      ddbst_error *err);

static void fail_each(const char *model, run_fn run, const char *body,
                      size_t len, int want) {
  counting_alloc ca;
  ddbst_model *m = counted_model(&ca, model);
  long base = ca.live;
  int failures = 0;
  for (long n = 1;; n++) {
    ca.fail_at = ca.calls + n;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = run(m, body, len, &err);
    ca.fail_at = 0;
    assert_int_equal(ca.live, base);
    if (rc != DDBST_ENOMEM) {
      if (rc != want) fail_msg("after %d failures: %d %s: %s", failures, rc,
                               err.path, err.message);
      break;
    }
    if (err.code != DDBST_ENOMEM)
      fail_msg("allocation %ld: DDBST_ENOMEM without err filled", n);
    failures++;
    if (n > 100000) fail_msg("never succeeds");
  }
  assert_true(failures > 3);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static int run_parse(ddbst_model *m, int op, const char *body, size_t len,
                     ddbst_error *err) {
  ddbst_page *pg = ddbst_page_new(m);
  if (!pg) return nomem_err(err);
  int rc = ddbst_page_parse(pg, op, body, len, err);
  /* everything after the parse allocates too */
  ddbst_item *it = rc > 0 ? ddbst_item_new(m, 0) : NULL;
  ddbst_buf *b = ddbst_buf_new(&m->alloc);
  if (rc > 0 && !it) rc = nomem_err(err);
  for (int k = 0; rc > 0 && k < ddbst_page_count(pg); k++) {
    if (ddbst_page_item_entity(pg, k) < 0) continue;
    int r = ddbst_page_item(pg, k, it, err);
    if (r < 0) rc = r;
  }
  if (rc >= 0 && b) {
    int r = ddbst_page_followup_request(pg, b, err);
    if (r < 0) rc = r;
  }
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_page_free(pg);
  return rc;
}

static int run_query(ddbst_model *m, const char *b, size_t n, ddbst_error *e) {
  return run_parse(m, DDBST_OP_QUERY, b, n, e);
}
static int run_batch_get(ddbst_model *m, const char *b, size_t n,
                         ddbst_error *e) {
  return run_parse(m, DDBST_OP_BATCH_GET_ITEM, b, n, e);
}
static int run_batch_write(ddbst_model *m, const char *b, size_t n,
                           ddbst_error *e) {
  return run_parse(m, DDBST_OP_BATCH_WRITE_ITEM, b, n, e);
}
static int run_txn_get(ddbst_model *m, const char *b, size_t n,
                       ddbst_error *e) {
  return run_parse(m, DDBST_OP_TRANSACT_GET_ITEMS, b, n, e);
}
static int run_error(ddbst_model *m, const char *b, size_t n, ddbst_error *e) {
  ddbst_page *pg = ddbst_page_new(m);
  if (!pg) return nomem_err(e);
  int rc = ddbst_page_parse_error(pg, b, n, e);
  ddbst_page_free(pg);
  return rc;
}

/* The explanation of a single item's create, whose operations are built
 * again. */
static int run_explain(ddbst_model *m, const char *b, size_t n,
                       ddbst_error *e) {
  ddbst_page *pg = ddbst_page_new(m);
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  ddbst_txn *txn = ddbst_txn_new(m);
  ddbst_buf *o = ddbst_buf_new(&m->alloc);
  int rc = pg && it && txn && o ? 0 : nomem_err(e);
  if (!rc) rc = ddbst_page_parse_error(pg, b, n, e) < 0 ? e->code : 0;
  if (!rc) rc = ddbst_item_set(it, 0, "1", 1, e);
  if (!rc) rc = ddbst_item_set(it, 1, "2", 1, e);
  if (!rc) rc = ddbst_item_set(it, 2, "Ann@X.com", 9, e);
  if (!rc) rc = ddbst_item_explain(it, DDBST_OP_PUT_ITEM, DDBST_CREATE, pg, o, e);
  if (rc == DDBST_FAIL_EXISTS) rc = ddbst_txn_put(txn, it, DDBST_CREATE, NOW, e);
  if (!rc) rc = ddbst_txn_explain(txn, pg, o, e);
  ddbst_buf_free(o);
  ddbst_txn_free(txn);
  ddbst_item_free(it);
  ddbst_page_free(pg);
  return rc;
}

static void allocation_failures(void **state) {
  (void)state;
  size_t n;
  char *b = read_response("local-query-events.json", &n);
  fail_each("examples/saas/model.json", run_query, b, n, 1);
  free(b);
  b = read_response("local-query-projects-by-status.json", &n);
  fail_each("examples/saas/model.json", run_query, b, n, 1);
  free(b);
  b = read_response("local-transact-get.json", &n);
  fail_each("examples/saas/model.json", run_txn_get, b, n, 3);
  free(b);
  b = read_response("local-error-cancel-exists.json", &n);
  fail_each("examples/saas/model.json", run_error, b, n,
            DDBST_DDB_TRANSACTION_CANCELED);
  fail_each("examples/saas/model.json", run_explain, b, n, DDBST_FAIL_EXISTS);
  free(b);
  static const char unprocessed[] =
      "{\"Responses\":{\"saas-api-dev\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{"
      "\"S\":\"USER#2\"},\"legacy\":{\"S\":\"x\"},\"other\":{\"L\":[{\"N\":"
      "\"1\"}]}}]},\"UnprocessedKeys\":{\"saas-api-dev\":{\"Keys\":[{\"PK\":{"
      "\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}}],\"ProjectionExpression\":"
      "\"#a\",\"ExpressionAttributeNames\":{\"#a\":\"name\"}}}}";
  fail_each("examples/saas/model.json", run_batch_get, unprocessed,
            strlen(unprocessed), 1);
  static const char writes[] =
      "{\"UnprocessedItems\":{\"saas-api-dev\":[{\"PutRequest\":{\"Item\":{"
      "\"PK\":{\"S\":\"ORG#9\"},\"m\":{\"M\":{\"a\":{\"SS\":[\"x\"]}}}}}},{"
      "\"DeleteRequest\":{\"Key\":{\"PK\":{\"S\":\"ORG#1\"}}}}]}}";
  fail_each("examples/saas/model.json", run_batch_write, writes,
            strlen(writes), 0);
  /* an item with many names the model does not know */
  char big[16384] = "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}";
  for (int i = 0; i < 200; i++) {
    char a[64];
    snprintf(a, sizeof a, ",\"x%d\":{\"N\":\"%d\"}", i, i);
    strcat(big, a);
  }
  strcat(big, "}]}");
  fail_each("examples/saas/model.json", run_query, big, strlen(big), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(get_item),
      cmocka_unit_test(query_pages),
      cmocka_unit_test(projections_recover_facets),
      cmocka_unit_test(documents_round_trip),
      cmocka_unit_test(batches_and_transactions),
      cmocka_unit_test(followups),
      cmocka_unit_test(entities_told_apart),
      cmocka_unit_test(undeclared_attributes),
      cmocka_unit_test(names_in_changing_order),
      cmocka_unit_test(typed_values),
      cmocka_unit_test(malformed),
      cmocka_unit_test(write_answers_and_error_items),
      cmocka_unit_test(nesting),
      cmocka_unit_test(no_over_read),
      cmocka_unit_test(error_bodies),
      cmocka_unit_test(explain_transactions),
      cmocka_unit_test(explain_single_items),
      cmocka_unit_test(error_types_after_the_last_hash),
      cmocka_unit_test(explain_every_reason),
      cmocka_unit_test(followups_refuse),
      cmocka_unit_test(plain_json_of_every_scalar),
      cmocka_unit_test(stamps_wrap),
      cmocka_unit_test(oversized_answer),
      cmocka_unit_test(warm_page_does_not_allocate),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
