/* Scans: exact bodies, cursors bound to their scan (segment, total,
 * index, filter), pages that keep items of no entity, and the orphan-guard
 * audit on answers written here as DynamoDB writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *dup_text(const char *t) {
  size_t n = strlen(t) + 1;
  char *c = malloc(n);
  assert_non_null(c);
  return memcpy(c, t, n);
}

static ddbst_model *m;
static ddbst_buf *out;
static ddbst_cursor_keys *keys;
static ddbst_error err;

static int setup(void **state) {
  (void)state;
  m = load_example("examples/saas/model.json");
  out = ddbst_buf_new(NULL);
  keys = ddbst_cursor_keys_new(NULL);
  uint8_t k[DDBST_CURSOR_KEY_BYTES];
  for (int i = 0; i < DDBST_CURSOR_KEY_BYTES; i++) k[i] = (uint8_t)i;
  assert_int_equal(ddbst_cursor_keys_add(keys, k, &err), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_cursor_keys_free(keys);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return 0;
}

static void body_is(ddbst_scan *s, uint32_t flags, uint32_t limit,
                    const char *want) {
  int rc = ddbst_scan_request(s, flags, limit, NULL, 0, keys, DDBST_NOW, out,
                              &err);
  if (rc < 0) fail_msg("%s: %s", err.path, err.message);
  assert_int_equal(rc, DDBST_OP_SCAN);
  assert_string_equal(ddbst_buf_data(out), want);
}

static void bodies(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  assert_non_null(s);
  body_is(s, 0, 0, "{\"TableName\":\"saas-api-dev\"}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_SCAN), "Scan");
  assert_int_equal(ddbst_scan_segment(s, 3, 4, &err), 0);
  assert_int_equal(ddbst_scan_entity(s, ddbst_model_entity(m, "User"), &err), 0);
  assert_int_equal(ddbst_scan_entity(s, ddbst_model_entity(m, "Project"), &err), 0);
  assert_int_equal(ddbst_scan_project(s, "name", &err), 0);
  assert_int_equal(ddbst_scan_project(s, "name", &err), 0); /* kept once */
  body_is(s, DDBST_CONSISTENT_READ, 25,
          "{\"TableName\":\"saas-api-dev\","
          "\"FilterExpression\":\"#n0 IN (:v0, :v1)\","
          "\"ProjectionExpression\":\"#n1, #n2, #n0, #n3\","
          "\"ExpressionAttributeNames\":{\"#n0\":\"_type\",\"#n1\":\"PK\","
          "\"#n2\":\"SK\",\"#n3\":\"name\"},"
          "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"User\"},"
          "\":v1\":{\"S\":\"Project\"}},"
          "\"Segment\":3,\"TotalSegments\":4,\"Limit\":25,"
          "\"ConsistentRead\":true}");
  ddbst_scan_free(s);

  /* an index, a user filter with a parameter, a count */
  s = ddbst_scan_new(m);
  ddbst_expr *f;
  assert_int_equal(ddbst_expr_parse(m, ddbst_model_entity(m, "Project"),
                                    DDBST_EXPR_FILTER, "status = :s",
                                    DDBST_NUL_TERMINATED, &f, &err),
                   0);
  assert_int_equal(ddbst_scan_index(s, "GSI2", &err), 0);
  assert_int_equal(ddbst_scan_filter(s, f, &err), 0);
  assert_int_equal(ddbst_scan_bind(s, "s", "archived", 8, &err), 0);
  body_is(s, DDBST_QUERY_COUNT, 0,
          "{\"TableName\":\"saas-api-dev\",\"IndexName\":\"GSI2\","
          "\"FilterExpression\":\"#n0 = :v0 AND (#n1 = :v1)\","
          "\"ExpressionAttributeNames\":{\"#n0\":\"_type\",\"#n1\":\"status\"},"
          "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Project\"},"
          "\":v1\":{\"S\":\"archived\"}},\"Select\":\"COUNT\"}");
  /* a value its attribute cannot hold, at build time */
  assert_int_equal(ddbst_scan_bind(s, "s", "lost", 4, &err), 0);
  assert_true(ddbst_scan_request(s, 0, 0, NULL, 0, keys, 0, out, &err) ==
              DDBST_EVALUE);
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_scan_free(s);
  ddbst_expr_free(f);
}

static void refusals(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  assert_int_equal(ddbst_scan_index(s, "GSI3", &err), DDBST_ENOTFOUND);
  assert_string_equal(err.path, "index");
  assert_string_equal(err.message,
                      "the table declares no index GSI3; did you mean GSI1?");
  assert_int_equal(ddbst_scan_project(s, "nmae", &err), DDBST_ENOTFOUND);
  assert_string_equal(err.path, "project.nmae");
  assert_string_equal(err.message,
                      "no entity of the model declares nmae; did you mean "
                      "name?");
  assert_int_equal(ddbst_scan_segment(s, 4, 4, &err), DDBST_ERANGE);
  assert_string_equal(err.message,
                      "segment 4 of 4: segments are numbered 0 to 3");
  assert_int_equal(ddbst_scan_segment(s, 0, 1000001, &err), DDBST_ERANGE);
  assert_string_equal(err.path, "total_segments");
  assert_int_equal(ddbst_scan_segment(s, 1, 0, &err), DDBST_ERANGE);
  assert_int_equal(ddbst_scan_segment(s, 999999, 1000000, &err), 0);
  assert_int_equal(ddbst_scan_index(s, "GSI1", &err), 0);
  assert_int_equal(ddbst_scan_request(s, DDBST_CONSISTENT_READ, 0, NULL, 0,
                                      keys, 0, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "index GSI1 is a global secondary index: it cannot be "
                      "read consistently");
  assert_int_equal(ddbst_buf_len(out), 0);
  /* GSI1 projects KEYS_ONLY: neither a filter on role nor its projection */
  ddbst_expr *f;
  assert_int_equal(ddbst_expr_parse(m, ddbst_model_entity(m, "User"),
                                    DDBST_EXPR_FILTER, "role = \"admin\"",
                                    DDBST_NUL_TERMINATED, &f, &err),
                   0);
  assert_int_equal(ddbst_scan_filter(s, f, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "index GSI1 does not project role: DynamoDB refuses a "
                      "filter on it; project it in the model, or scan the "
                      "table");
  assert_int_equal(ddbst_scan_project(s, "role", &err), 0);
  assert_int_equal(ddbst_scan_request(s, 0, 0, NULL, 0, keys, 0, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "project");
  ddbst_scan_free(s);
  /* a filter reads one entity */
  s = ddbst_scan_new(m);
  assert_int_equal(ddbst_scan_entity(s, ddbst_model_entity(m, "Project"), &err),
                   0);
  assert_int_equal(ddbst_scan_filter(s, f, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the scan reads Project too: a filter on User's "
                      "attributes would drop its items; scan each entity "
                      "with its own filter");
  ddbst_scan_free(s);
  ddbst_expr_free(f);
  /* a model without an entity attribute cannot filter by entity */
  ddbst_model *bare = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"tab\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\"},\"entities\":{\"A\":{\"attributes\":{\"id\":"
      "\"string\"},\"key\":{\"pk\":\"A#{id}\",\"sk\":\"A\"}}}}");
  s = ddbst_scan_new(bare);
  assert_int_equal(ddbst_scan_entity(s, 0, &err), DDBST_EINVAL);
  ddbst_scan_free(s);
  ddbst_model_free(bare);
}

/* A Scan answer with a User, a guard item and an item of no entity, and
 * a LastEvaluatedKey: the page keeps all three. */
static const char *answer =
    "{\"Items\":["
    "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"
    "\"User\"},\"orgId\":{\"S\":\"1\"},\"userId\":{\"S\":\"2\"},\"email\":{"
    "\"S\":\"Ann@X.com\"}},"
    "{\"PK\":{\"S\":\"EMAIL#ann@x.com\"},\"SK\":{\"S\":\"EMAIL#ann@x.com\"},"
    "\"_type\":{\"S\":\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":"
    "\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}}},"
    "{\"PK\":{\"S\":\"LEGACY#9\"},\"SK\":{\"S\":\"X\"},\"_type\":{\"S\":"
    "\"Invoice\"},\"total\":{\"N\":\"12.50\"}}],"
    "\"Count\":3,\"ScannedCount\":3,"
    "\"LastEvaluatedKey\":{\"PK\":{\"S\":\"LEGACY#9\"},\"SK\":{\"S\":\"X\"}}}";

static void pages_keep_every_item(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  ddbst_page *pg = ddbst_page_new(m);
  assert_int_equal(ddbst_page_parse_scan(pg, s, answer, strlen(answer), &err),
                   DDBST_EINVAL); /* no body built yet */
  body_is(s, 0, 3, "{\"TableName\":\"saas-api-dev\",\"Limit\":3}");
  assert_int_equal(ddbst_page_parse_scan(pg, s, answer, strlen(answer), &err),
                   3);
  assert_int_equal(ddbst_page_item_entity(pg, 0), ddbst_model_entity(m, "User"));
  assert_int_equal(ddbst_page_item_entity(pg, 1), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_item_entity(pg, 2), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_item_json(pg, 2, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"entity\":null,\"item\":{\"PK\":\"LEGACY#9\",\"SK\":"
                      "\"X\",\"_type\":\"Invoice\",\"total\":12.50}}");
  /* the same answer is refused by a Query's parse */
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_QUERY, answer, strlen(answer),
                                    &err),
                   DDBST_ENOTFOUND);
  ddbst_page_free(pg);
  ddbst_scan_free(s);
}

/* The cursor of `s`'s page for `answer`. */
static char *cursor_of(ddbst_scan *s, const char *ans) {
  ddbst_page *pg = ddbst_page_new(m);
  assert_true(ddbst_page_parse_scan(pg, s, ans, strlen(ans), &err) >= 0);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, DDBST_NOW, out, &err), 1);
  char *c = dup_text(ddbst_buf_data(out));
  ddbst_page_free(pg);
  return c;
}

static void refused(ddbst_scan *s, const char *cursor, const char *message) {
  int rc = ddbst_scan_request(s, 0, 0, cursor, DDBST_NUL_TERMINATED, keys,
                              DDBST_NOW, out, &err);
  assert_int_equal(rc, DDBST_ECURSOR);
  assert_string_equal(err.path, "cursor");
  assert_string_equal(err.message, message);
  assert_int_equal(ddbst_buf_len(out), 0);
}

static void cursors(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  assert_int_equal(ddbst_scan_segment(s, 1, 4, &err), 0);
  body_is(s, 0, 3,
          "{\"TableName\":\"saas-api-dev\",\"Segment\":1,\"TotalSegments\":4,"
          "\"Limit\":3}");
  char *c = cursor_of(s, answer);
  assert_int_equal(ddbst_scan_request(s, 0, 3, c, DDBST_NUL_TERMINATED, keys,
                                      DDBST_NOW, out, &err),
                   DDBST_OP_SCAN);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"TableName\":\"saas-api-dev\",\"Segment\":1,"
                      "\"TotalSegments\":4,\"Limit\":3,\"ExclusiveStartKey\":"
                      "{\"PK\":{\"S\":\"LEGACY#9\"},\"SK\":{\"S\":\"X\"}}}");
  /* another segment, another total, no segments */
  assert_int_equal(ddbst_scan_segment(s, 2, 4, &err), 0);
  refused(s, c,
          "the cursor was made for segment 1 of 4, and this scan is segment "
          "2 of 4: give each segment its own cursors");
  assert_int_equal(ddbst_scan_segment(s, 1, 8, &err), 0);
  refused(s, c,
          "the cursor was made for segment 1 of 4, and this scan is segment "
          "1 of 8: give each segment its own cursors");
  assert_int_equal(ddbst_scan_segment(s, 0, 0, &err), 0);
  refused(s, c,
          "the cursor was made for a scan in segments, and this scan has "
          "none");
  /* another index */
  assert_int_equal(ddbst_scan_segment(s, 1, 4, &err), 0);
  assert_int_equal(ddbst_scan_index(s, "GSI2", &err), 0);
  refused(s, c,
          "the cursor was made for a scan of the table, not a scan of index "
          "GSI2: start this scan from its first page");
  /* another entity filter */
  assert_int_equal(ddbst_scan_index(s, NULL, &err), 0);
  assert_int_equal(ddbst_scan_entity(s, 0, &err), 0);
  refused(s, c,
          "the cursor was made for a scan with another filter, entity "
          "filter, parameters or projection: resume a scan with the "
          "settings it started with");
  /* altered */
  ddbst_scan *t = ddbst_scan_new(m);
  assert_int_equal(ddbst_scan_segment(t, 1, 4, &err), 0);
  char *bad = dup_text(c);
  bad[10] = bad[10] == 'A' ? 'B' : 'A';
  refused(t, bad,
          "the cursor does not open: it was made for a scan of another "
          "table, or for a query, or it was altered");
  /* a query's cursor is no scan's */
  ddbst_item *v = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  set(v, "orgId", "1");
  ddbst_page *qp = ddbst_page_new(m);
  const char *qa = "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,"
                   "\"LastEvaluatedKey\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{"
                   "\"S\":\"USER#2\"}}}";
  assert_int_equal(ddbst_page_parse_query(qp, v, ddbst_model_pattern(m, "listUsers"),
                                          qa, strlen(qa), &err),
                   0);
  assert_int_equal(ddbst_page_next_cursor(qp, keys, DDBST_NOW, out, &err), 1);
  char *qc = dup_text(ddbst_buf_data(out));
  refused(t, qc,
          "the cursor does not open: it was made for a scan of another "
          "table, or for a query, or it was altered");
  /* and a scan's is no query's */
  ddbst_query q = {0};
  q.size = sizeof q;
  q.cursor = c;
  q.cursor_len = DDBST_NUL_TERMINATED;
  q.cursor_keys = keys;
  assert_int_equal(ddbst_query_request(v, ddbst_model_pattern(m, "listUsers"),
                                       &q, out, &err),
                   DDBST_ECURSOR);
  /* unsealed cursors are refused where keys are configured */
  refused(t, "EAE", "not a ddbst cursor, or one cut short: 2 bytes, where a "
                    "sealed cursor has at least 46");
  free(qc);
  free(bad);
  free(c);
  ddbst_page_free(qp);
  ddbst_item_free(v);
  ddbst_scan_free(t);
  ddbst_scan_free(s);
}

/* An index scan's cursor carries the index's keys and the table's. */
static void index_cursor(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  assert_int_equal(ddbst_scan_index(s, "GSI2", &err), 0);
  body_is(s, 0, 1, "{\"TableName\":\"saas-api-dev\",\"IndexName\":\"GSI2\","
                   "\"Limit\":1}");
  const char *a =
      "{\"Items\":[],\"Count\":0,\"ScannedCount\":1,\"LastEvaluatedKey\":{"
      "\"GSI2SK\":{\"S\":\"2026-01-01T00:00:00Z\"},\"PK\":{\"S\":\"ORG#1\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-01-01T00:00:00Z#p\"},\"GSI2PK\":{\"S\":"
      "\"STATUS#active\"}}}";
  char *c = cursor_of(s, a);
  assert_int_equal(ddbst_scan_request(s, 0, 1, c, DDBST_NUL_TERMINATED, keys,
                                      DDBST_NOW, out, &err),
                   DDBST_OP_SCAN);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"saas-api-dev\",\"IndexName\":\"GSI2\",\"Limit\":1,"
      "\"ExclusiveStartKey\":{\"GSI2PK\":{\"S\":\"STATUS#active\"},"
      "\"GSI2SK\":{\"S\":\"2026-01-01T00:00:00Z\"},\"PK\":{\"S\":\"ORG#1\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-01-01T00:00:00Z#p\"}}}");
  /* a LastEvaluatedKey that is not the index's */
  ddbst_page *pg = ddbst_page_new(m);
  assert_true(ddbst_page_parse_scan(pg, s, answer, strlen(answer), &err) >= 0);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, DDBST_NOW, out, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "LastEvaluatedKey.GSI2PK");
  assert_string_equal(err.message, "GSI2PK is missing");
  ddbst_page_free(pg);
  free(c);
  ddbst_scan_free(s);
}

/* The audit on answers written as DynamoDB writes them. */
static void audit(void **state) {
  (void)state;
  ddbst_scan *s = ddbst_scan_new(m);
  ddbst_page *pg = ddbst_page_new(m);
  body_is(s, 0, 0, "{\"TableName\":\"saas-api-dev\"}");
  const char *page =
      "{\"Items\":["
      "{\"PK\":{\"S\":\"EMAIL#ann@x.com\"},\"SK\":{\"S\":\"EMAIL#ann@x.com\"},"
      "\"_type\":{\"S\":\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":"
      "\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}}},"
      "{\"PK\":{\"S\":\"EMAIL#bob@x.com\"},\"SK\":{\"S\":\"EMAIL#bob@x.com\"},"
      "\"_type\":{\"S\":\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":"
      "\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}}}},"
      "{\"PK\":{\"S\":\"EMAIL#cy@x.com\"},\"SK\":{\"S\":\"EMAIL#cy@x.com\"},"
      "\"_type\":{\"S\":\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":"
      "\"ORG#1\"},\"SK\":{\"S\":\"USER#4\"}}}},"
      "{\"PK\":{\"S\":\"EMAIL#old@x.com\"},\"SK\":{\"S\":\"EMAIL#old@x.com\"},"
      "\"_type\":{\"S\":\"User.email\"}},"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"
      "\"User\"},\"orgId\":{\"S\":\"1\"},\"userId\":{\"S\":\"2\"},"
      "\"email\":{\"S\":\"Ann@X.com\"}}],\"Count\":5,\"ScannedCount\":5}";
  assert_int_equal(ddbst_page_parse_scan(pg, s, page, strlen(page), &err), 5);
  ddbst_guard_audit *a = ddbst_guard_audit_new(m);
  assert_int_equal(ddbst_guard_audit_add(a, pg, &err), 4);
  assert_int_equal(ddbst_guard_audit_json(a, out, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_guard_audit_request(a, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":["
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}},"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}},"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#4\"}}],"
      "\"ConsistentRead\":true}}}");
  /* USER#2 holds ann's; USER#3 was left unprocessed; USER#4 holds
   * another email now */
  const char *first =
      "{\"Responses\":{\"saas-api-dev\":["
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"
      "\"User\"},\"orgId\":{\"S\":\"1\"},\"userId\":{\"S\":\"2\"},"
      "\"email\":{\"S\":\"ANN@x.com\"}},"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#4\"},\"_type\":{\"S\":"
      "\"User\"},\"orgId\":{\"S\":\"1\"},\"userId\":{\"S\":\"4\"},"
      "\"email\":{\"S\":\"cyril@x.com\"}}]},"
      "\"UnprocessedKeys\":{\"saas-api-dev\":{\"Keys\":[{\"PK\":{\"S\":"
      "\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}}],\"ConsistentRead\":true}}}";
  assert_int_equal(ddbst_guard_audit_answer(a, first, strlen(first), &err), 2);
  assert_int_equal(ddbst_guard_audit_request(a, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":["
                      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#3\"}}],"
                      "\"ConsistentRead\":true}}}");
  const char *second = "{\"Responses\":{\"saas-api-dev\":[]},"
                       "\"UnprocessedKeys\":{}}";
  assert_int_equal(ddbst_guard_audit_answer(a, second, strlen(second), &err), 1);
  assert_int_equal(ddbst_guard_audit_request(a, out, &err), 0);
  assert_int_equal(ddbst_guard_audit_json(a, out, &err), 0);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"guards\":4,\"orphans\":["
      "{\"kind\":\"missing\",\"entity\":\"User\",\"unique\":\"email\","
      "\"guard\":\"EMAIL#bob@x.com\",\"holder\":{\"PK\":\"ORG#1\",\"SK\":"
      "\"USER#3\"}},"
      "{\"kind\":\"stale\",\"entity\":\"User\",\"unique\":\"email\","
      "\"guard\":\"EMAIL#cy@x.com\",\"holder\":{\"PK\":\"ORG#1\",\"SK\":"
      "\"USER#4\"}},"
      "{\"kind\":\"untraceable\",\"entity\":\"User\",\"unique\":\"email\","
      "\"guard\":\"EMAIL#old@x.com\",\"holder\":null}]}");
  const char *g, *hpk, *hsk, *u;
  int e;
  assert_int_equal(ddbst_guard_audit_orphan(a, 0, &g, &hpk, &hsk, &e, &u),
                   DDBST_GUARD_MISSING);
  assert_string_equal(g, "EMAIL#bob@x.com");
  assert_string_equal(hsk, "USER#3");
  assert_int_equal(ddbst_guard_audit_orphan(a, 3, NULL, NULL, NULL, NULL, NULL),
                   DDBST_ENOTFOUND);
  ddbst_guard_audit_reset(a);
  assert_int_equal(ddbst_guard_audit_request(a, out, &err), 0);
  assert_int_equal(ddbst_guard_audit_json(a, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out), "{\"guards\":0,\"orphans\":[]}");
  ddbst_guard_audit_free(a);
  ddbst_page_free(pg);
  ddbst_scan_free(s);
}

/* Warm, a scan body allocates nothing. */
static void no_allocation_when_warm(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_load_options o = {0};
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  size_t len;
  char *text = read_source("examples/saas/model.json", &len);
  ddbst_model *mm;
  assert_int_equal(ddbst_model_load(text, len, &o, &mm, &err), 0);
  free(text);
  ddbst_scan *s = ddbst_scan_new(mm);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  assert_int_equal(ddbst_scan_segment(s, 1, 4, &err), 0);
  assert_int_equal(ddbst_scan_entity(s, 1, &err), 0);
  assert_int_equal(ddbst_scan_project(s, "name", &err), 0);
  assert_int_equal(ddbst_scan_request(s, 0, 100, NULL, 0, keys, 0, b, &err),
                   DDBST_OP_SCAN);
  long before = ca.calls;
  for (int i = 0; i < 10; i++)
    assert_int_equal(ddbst_scan_request(s, 0, 100, NULL, 0, keys, 0, b, &err),
                     DDBST_OP_SCAN);
  assert_int_equal(ca.calls, before);
  ddbst_buf_free(b);
  ddbst_scan_free(s);
  ddbst_model_free(mm);
  assert_int_equal(ca.live, 0);
}

/* A filter's parameters bound again on every page, in turn and with texts
 * of changing length: the body holds the last values, and after the first
 * rounds nothing is allocated (the old texts are given up, not kept). */
static void rebinding_per_page(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_load_options o = {0};
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  size_t len;
  char *text = read_source("examples/saas/model.json", &len);
  ddbst_model *mm;
  assert_int_equal(ddbst_model_load(text, len, &o, &mm, &err), 0);
  free(text);
  int user = ddbst_model_entity(mm, "User");
  ddbst_expr *f;
  assert_int_equal(ddbst_expr_parse(mm, user, DDBST_EXPR_FILTER,
                                    "role = :r and begins_with(name, :n)",
                                    DDBST_NUL_TERMINATED, &f, &err),
                   0);
  ddbst_scan *s = ddbst_scan_new(mm);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  assert_int_equal(ddbst_scan_filter(s, f, &err), 0);
  static const char *const roles[] = {"admin", "member", "viewer-of-all"};
  static const char *const names[] = {"A", "Annabel", ""};
  long before = 0;
  for (int i = 0; i < 300; i++) {
    if (i == 30) before = ca.calls;
    assert_int_equal(ddbst_scan_bind(s, "r", roles[i % 3], DDBST_NUL_TERMINATED, &err), 0);
    assert_int_equal(ddbst_scan_bind(s, "n", names[i % 3], DDBST_NUL_TERMINATED, &err), 0);
    assert_int_equal(ddbst_scan_request(s, 0, 0, NULL, 0, keys, 0, b, &err),
                     DDBST_OP_SCAN);
  }
  assert_int_equal(ca.calls, before);
  /* i = 299: roles[2], names[2] */
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\":v1\":{\"S\":\"viewer-of-all\"},\":v2\":{\"S\":\"\"}"));
  ddbst_buf_free(b);
  ddbst_scan_free(s);
  ddbst_expr_free(f);
  ddbst_model_free(mm);
  assert_int_equal(ca.live, 0);
}

/* The JSON entry's answer to `request` (malloc'd). */
static char *call_json(ddbst_json *j, const char *request) {
  char *a = ddbst_json_call(j, request, strlen(request), NULL);
  char *c = dup_text(a);
  ddbst_json_free(a);
  return c;
}

static void json_entry(void **state) {
  (void)state;
  const char *config =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","
      "\"cursorKeys\":\"000102030405060708090a0b0c0d0e0f101112131415161718191a"
      "1b1c1d1e1f\"}";
  ddbst_json *j = ddbst_json_open(config, strlen(config), NULL, NULL);
  assert_non_null(j);
  char *a = call_json(j, "{\"op\":\"scan\",\"entities\":[\"User\"],"
                         "\"filter\":\"role = :r\",\"params\":{\"r\":\"admin\"},"
                         "\"segment\":2,\"totalSegments\":3,\"limit\":5}");
  assert_string_equal(
      a, "{\"operation\":\"Scan\",\"target\":\"DynamoDB_20120810.Scan\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"FilterExpression\":\"#n0 = "
         ":v0 AND (#n1 = :v1)\",\"ExpressionAttributeNames\":{\"#n0\":\"_type\","
         "\"#n1\":\"role\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
         "\"User\"},\":v1\":{\"S\":\"admin\"}},\"Segment\":2,\"TotalSegments\":"
         "3,\"Limit\":5}}");
  free(a);
  a = call_json(j, "{\"op\":\"scan\",\"filter\":\"role = :r\"}");
  assert_string_equal(
      a, "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"filter\","
         "\"message\":\"a filter reads one entity's attributes: give that "
         "entity alone in \\\"entities\\\"\"}}");
  free(a);
  /* each flag's refusal names the request's own field */
  a = call_json(j, "{\"op\":\"scan\",\"index\":\"GSI1\",\"consistent\":"
                   "true,\"select\":\"COUNT\"}");
  assert_string_equal(
      a, "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
         "\"consistent\",\"message\":\"index GSI1 is a global secondary "
         "index: it cannot be read consistently\"}}");
  free(a);
  a = call_json(j, "{\"op\":\"scan\",\"consistent\":true,\"select\":"
                   "\"COUNT\",\"project\":[\"email\"]}");
  assert_string_equal(
      a, "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
         "\"select\",\"message\":\"a count (select COUNT, --count, "
         "DDBST_QUERY_COUNT) returns no attributes: it takes no "
         "projection\"}}");
  free(a);
  a = call_json(j, "{\"op\":\"scanPage\",\"index\":\"GSI1\",\"select\":"
                   "\"COUNT\",\"consistent\":true,\"response\":\"{}\"}");
  assert_non_null(strstr(a, "\"path\":\"consistent\""));
  free(a);
  a = call_json(j, "{\"op\":\"scan\",\"consistent\":\"yes\"}");
  assert_non_null(strstr(a, "\"path\":\"consistent\""));
  free(a);
  a = call_json(j, "{\"op\":\"scan\",\"select\":\"SPECIFIC_ATTRIBUTES\"}");
  assert_non_null(strstr(a, "\"path\":\"select\""));
  free(a);
  a = call_json(j, "{\"op\":\"scan\",\"segment\":1}");
  assert_string_equal(
      a, "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
         "\"totalSegments\",\"message\":\"a parallel scan gives segment and "
         "totalSegments\"}}");
  free(a);
  /* a page: every item, the guard and the stranger as they are */
  char req[4096];
  ddbst_buf *q = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_buf_append_json_string(q, answer, strlen(answer)), 0);
  snprintf(req, sizeof req,
           "{\"op\":\"scanPage\",\"segment\":0,\"totalSegments\":2,"
           "\"response\":%s}",
           ddbst_buf_data(q));
  a = call_json(j, req);
  const char *want_items =
      "{\"items\":[{\"entity\":\"User\",\"item\":{\"orgId\":\"1\",\"userId\":"
      "\"2\",\"email\":\"Ann@X.com\"}},{\"entity\":null,\"item\":{\"PK\":"
      "\"EMAIL#ann@x.com\",\"SK\":\"EMAIL#ann@x.com\",\"_type\":\"User.email\","
      "\"holderKey\":{\"PK\":\"ORG#1\",\"SK\":\"USER#2\"}}},{\"entity\":null,"
      "\"item\":{\"PK\":\"LEGACY#9\",\"SK\":\"X\",\"_type\":\"Invoice\","
      "\"total\":12.50}}],\"count\":3,\"hasMore\":true,\"scanned\":3,"
      "\"cursor\":\"";
  assert_true(strncmp(a, want_items, strlen(want_items)) == 0);
  /* its cursor continues segment 0 of 2, and no other */
  const char *cur = a + strlen(want_items);
  size_t clen = strcspn(cur, "\"");
  snprintf(req, sizeof req,
           "{\"op\":\"scan\",\"segment\":0,\"totalSegments\":2,\"cursor\":"
           "\"%.*s\"}",
           (int)clen, cur);
  char *b = call_json(j, req);
  assert_string_equal(
      b, "{\"operation\":\"Scan\",\"target\":\"DynamoDB_20120810.Scan\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"Segment\":0,"
         "\"TotalSegments\":2,\"ExclusiveStartKey\":{\"PK\":{\"S\":"
         "\"LEGACY#9\"},\"SK\":{\"S\":\"X\"}}}}");
  free(b);
  snprintf(req, sizeof req,
           "{\"op\":\"scan\",\"segment\":1,\"totalSegments\":2,\"cursor\":"
           "\"%.*s\"}",
           (int)clen, cur);
  b = call_json(j, req);
  assert_string_equal(
      b, "{\"error\":{\"code\":-11,\"name\":\"ECURSOR\",\"path\":\"cursor\","
         "\"message\":\"the cursor was made for segment 0 of 2, and this scan "
         "is segment 1 of 2: give each segment its own cursors\"}}");
  free(b);
  free(a);
  /* guards: first the holders' request, then with its answer the orphans */
  snprintf(req, sizeof req, "{\"op\":\"guards\",\"pages\":[%s]}",
           ddbst_buf_data(q));
  a = call_json(j, req);
  assert_string_equal(
      a, "{\"request\":{\"operation\":\"BatchGetItem\",\"target\":"
         "\"DynamoDB_20120810.BatchGetItem\",\"body\":{\"RequestItems\":{"
         "\"saas-api-dev\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
         "\"USER#2\"}}],\"ConsistentRead\":true}}}}}");
  free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"guards\",\"pages\":[%s],\"holders\":["
           "\"{\\\"Responses\\\":{\\\"saas-api-dev\\\":[]},"
           "\\\"UnprocessedKeys\\\":{}}\"]}",
           ddbst_buf_data(q));
  a = call_json(j, req);
  assert_string_equal(
      a, "{\"guards\":1,\"orphans\":[{\"kind\":\"missing\",\"entity\":"
         "\"User\",\"unique\":\"email\",\"guard\":\"EMAIL#ann@x.com\","
         "\"holder\":{\"PK\":\"ORG#1\",\"SK\":\"USER#2\"}}]}");
  free(a);
  ddbst_buf_free(q);
  ddbst_json_close(j);
}

/* Every allocation of a scan, its page and the audit may fail: each
 * failure is DDBST_ENOMEM (or NULL from a constructor), nothing leaks, and
 * with enough memory the same calls succeed. */
static int scan_round(const ddbst_allocator *hooks, long *reached) {
  size_t len;
  char *text = read_source("examples/saas/model.json", &len);
  ddbst_load_options o = {0};
  o.size = sizeof o;
  o.allocator = hooks;
  ddbst_model *mm = NULL;
  ddbst_error e;
  int rc = ddbst_model_load(text, len, &o, &mm, &e);
  free(text);
  if (rc) return rc;
  ddbst_scan *s = ddbst_scan_new(mm);
  ddbst_page *pg = ddbst_page_new(mm);
  ddbst_guard_audit *a = ddbst_guard_audit_new(mm);
  ddbst_buf *b = ddbst_buf_new(hooks);
  ddbst_expr *f = NULL;
  rc = s && pg && a && b ? 0 : DDBST_ENOMEM;
  *reached = 1;
  if (!rc)
    rc = ddbst_expr_parse(mm, ddbst_model_entity(mm, "User"),
                          DDBST_EXPR_FILTER, "role = :r", DDBST_NUL_TERMINATED,
                          &f, &e);
  if (!rc) rc = ddbst_scan_filter(s, f, &e);
  if (!rc) rc = ddbst_scan_bind(s, "r", "admin", 5, &e);
  if (!rc) rc = ddbst_scan_project(s, "email", &e);
  if (!rc) rc = ddbst_scan_segment(s, 1, 2, &e);
  if (!rc) {
    rc = ddbst_scan_request(s, 0, 10, NULL, 0, keys, 0, b, &e);
    if (rc > 0) rc = 0;
  }
  if (!rc) {
    rc = ddbst_page_parse_scan(pg, s, answer, strlen(answer), &e);
    if (rc > 0) rc = 0;
  }
  if (!rc) {
    rc = ddbst_page_next_cursor(pg, keys, DDBST_NOW, b, &e);
    if (rc > 0) rc = 0;
  }
  if (!rc) {
    rc = ddbst_guard_audit_add(a, pg, &e);
    if (rc > 0) rc = 0;
  }
  if (!rc) {
    rc = ddbst_guard_audit_request(a, b, &e);
    if (rc > 0) rc = 0;
  }
  const char *holders =
      "{\"Responses\":{\"saas-api-dev\":[{\"PK\":{\"S\":\"ORG#1\"},"
      "\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":\"User\"},\"orgId\":"
      "{\"S\":\"1\"},\"userId\":{\"S\":\"2\"},\"email\":{\"S\":"
      "\"ann@x.com\"}}]}}";
  if (!rc) {
    rc = ddbst_guard_audit_answer(a, holders, strlen(holders), &e);
    if (rc > 0) rc = 0;
  }
  if (!rc) rc = ddbst_guard_audit_json(a, b, &e);
  if (!rc)
    assert_string_equal(ddbst_buf_data(b), "{\"guards\":1,\"orphans\":[]}");
  ddbst_expr_free(f);
  ddbst_buf_free(b);
  ddbst_guard_audit_free(a);
  ddbst_page_free(pg);
  ddbst_scan_free(s);
  ddbst_model_free(mm);
  return rc;
}

static void allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  int done = 0;
  for (long n = 1; n < 5000 && !done; n++) {
    counting_alloc_init(&ca);
    ca.fail_at = n;
    long reached = 0;
    int rc = scan_round(&ca.hooks, &reached);
    assert_int_equal(ca.live, 0);
    if (rc == 0) {
      /* a success only where the failing allocation never came: no
       * failure was swallowed */
      assert_true(ca.calls < n);
      done = 1;
    } else if (reached) {
      assert_int_equal(rc, DDBST_ENOMEM);
    }
  }
  assert_true(done);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bodies),
      cmocka_unit_test(refusals),
      cmocka_unit_test(pages_keep_every_item),
      cmocka_unit_test(cursors),
      cmocka_unit_test(index_cursor),
      cmocka_unit_test(audit),
      cmocka_unit_test(no_allocation_when_warm),
      cmocka_unit_test(rebinding_per_page),
      cmocka_unit_test(json_entry),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
