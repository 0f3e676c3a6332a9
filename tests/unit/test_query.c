/* Query bodies: every row of the sort-key condition table (docs/queries.md)
 * with exact expressions and bounds, for a facet followed by the delimiter
 * (Event ts), a facet that is the whole sort key (GSI2 createdAt) and a
 * string facet that ends the key (User userId); limits, order, collections
 * and refusals. */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "support.h"

static ddbst_model *saas;
static ddbst_buf *out;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(saas);
  return 0;
}

typedef struct row {
  const char *pattern;
  const char *pk_name, *pk_value; /* the partition facet */
  int condition;
  const char *facet, *v1, *v2;
  const char *expression; /* KeyConditionExpression */
  const char *values;     /* ExpressionAttributeValues */
} row;

/* Builds the row's query and returns the body (or fails the test). */
static const char *build(const row *r, ddbst_error *err) {
  int p = ddbst_model_pattern(saas, r->pattern);
  int e = ddbst_model_pattern_entity(saas, p, 0);
  ddbst_item *it = ddbst_item_new(saas, e);
  set(it, r->pk_name, r->pk_value);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = r->condition;
  if (r->facet) q.attribute = ddbst_model_attribute(saas, e, r->facet);
  q.value = r->v1;
  q.value_len = r->v1 ? strlen(r->v1) : 0;
  q.value2 = r->v2;
  q.value2_len = r->v2 ? strlen(r->v2) : 0;
  ddbst_buf_reset(out);
  int rc = ddbst_query_request(it, p, &q, out, err);
  ddbst_item_free(it);
  return rc == DDBST_OP_QUERY ? ddbst_buf_data(out) : NULL;
}

static void check_row(const row *r) {
  ddbst_error err;
  const char *body = build(r, &err);
  if (!body) fail_msg("%s %s: %s: %s", r->pattern, r->v1, err.path, err.message);
  char want[4096];
  snprintf(want, sizeof want, "\"KeyConditionExpression\":\"%s\"", r->expression);
  if (!strstr(body, want)) fail_msg("expression: wanted %s in %s", want, body);
  snprintf(want, sizeof want, "\"ExpressionAttributeValues\":%s", r->values);
  if (!strstr(body, want)) fail_msg("values: wanted %s in %s", want, body);
  char why[128];
  yajl_val v = yajl_tree_parse(body, why, sizeof why);
  assert_non_null(v);
  yajl_tree_free(v);
}

#define EV(a, b) "{\":v0\":{\"S\":\"PROJECT#p\"},\":v1\":{\"S\":\"" a "\"},\":v2\":{\"S\":\"" b "\"}}"
#define BETWEEN "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2"

/* Event: SK "EVENT#{ts}#{eventId}", so P = "EVENT#" and ts is followed by
 * the delimiter. */
static void facet_followed_by_delimiter(void **state) {
  (void)state;
  static const row rows[] = {
      {"listEvents", "projectId", "p", DDBST_SK_NONE, NULL, NULL, NULL,
       "#n0 = :v0 AND begins_with(#n1, :v1)",
       "{\":v0\":{\"S\":\"PROJECT#p\"},\":v1\":{\"S\":\"EVENT#\"}}"},
      {"listEvents", "projectId", "p", DDBST_SK_BEGINS, "ts", "2026-03", NULL,
       "#n0 = :v0 AND begins_with(#n1, :v1)",
       "{\":v0\":{\"S\":\"PROJECT#p\"},\":v1\":{\"S\":\"EVENT#2026-03\"}}"},
      /* complete, in another zone: normalised first */
      {"listEvents", "projectId", "p", DDBST_SK_GTE, "ts",
       "2026-03-14T10:00:00+01:00", NULL, BETWEEN,
       EV("EVENT#2026-03-14T09:00:00Z", "EVENT$")},
      {"listEvents", "projectId", "p", DDBST_SK_GTE, "ts", "2026-03", NULL,
       BETWEEN, EV("EVENT#2026-03", "EVENT$")},
      /* gt: past the whole value, terminator included */
      {"listEvents", "projectId", "p", DDBST_SK_GT, "ts",
       "2026-03-14T09:00:00Z", NULL, BETWEEN,
       EV("EVENT#2026-03-14T09:00:00Z$", "EVENT$")},
      {"listEvents", "projectId", "p", DDBST_SK_GT, "ts", "2026-03", NULL,
       BETWEEN, EV("EVENT#2026-04", "EVENT$")},
      {"listEvents", "projectId", "p", DDBST_SK_LTE, "ts",
       "2026-03-14T09:00:00Z", NULL, BETWEEN,
       EV("EVENT#", "EVENT#2026-03-14T09:00:00Z$")},
      /* lte partial: through the end of March */
      {"listEvents", "projectId", "p", DDBST_SK_LTE, "ts", "2026-03", NULL,
       BETWEEN, EV("EVENT#", "EVENT#2026-04")},
      {"listEvents", "projectId", "p", DDBST_SK_LT, "ts",
       "2026-03-14T09:00:00Z", NULL, BETWEEN,
       EV("EVENT#", "EVENT#2026-03-14T09:00:00Z")},
      {"listEvents", "projectId", "p", DDBST_SK_LT, "ts", "2026-03", NULL,
       BETWEEN, EV("EVENT#", "EVENT#2026-03")},
      {"listEvents", "projectId", "p", DDBST_SK_BETWEEN, "ts", "2026-01-01",
       "2026-02-01", BETWEEN, EV("EVENT#2026-01-01", "EVENT#2026-02-02")},
      {"listEvents", "projectId", "p", DDBST_SK_BETWEEN, "ts", "2026-01-01",
       "2026-02-01T00:00:00Z", BETWEEN,
       EV("EVENT#2026-01-01", "EVENT#2026-02-01T00:00:00Z$")},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) check_row(&rows[i]);
}

#define GV(a) "{\":v0\":{\"S\":\"STATUS#active\"},\":v1\":{\"S\":\"" a "\"}}"
#define GV2(a, b) "{\":v0\":{\"S\":\"STATUS#active\"},\":v1\":{\"S\":\"" a "\"},\":v2\":{\"S\":\"" b "\"}}"

/* GSI2: SK "{createdAt}", so P is empty and the key is the facet: single
 * comparisons, no key-space bounds needed. */
static void facet_is_whole_key(void **state) {
  (void)state;
  static const row rows[] = {
      {"projectsByStatus", "status", "active", DDBST_SK_NONE, NULL, NULL, NULL,
       "#n0 = :v0", "{\":v0\":{\"S\":\"STATUS#active\"}}"},
      {"projectsByStatus", "status", "active", DDBST_SK_BEGINS, "createdAt",
       "2026-03", NULL, "#n0 = :v0 AND begins_with(#n1, :v1)", GV("2026-03")},
      {"projectsByStatus", "status", "active", DDBST_SK_GTE, "createdAt",
       "2026-03-14T09:00:00Z", NULL, "#n0 = :v0 AND #n1 >= :v1",
       GV("2026-03-14T09:00:00Z")},
      {"projectsByStatus", "status", "active", DDBST_SK_GT, "createdAt",
       "2026-03-14T09:00:00Z", NULL, "#n0 = :v0 AND #n1 > :v1",
       GV("2026-03-14T09:00:00Z")},
      {"projectsByStatus", "status", "active", DDBST_SK_GT, "createdAt",
       "2026-03", NULL, "#n0 = :v0 AND #n1 >= :v1", GV("2026-04")},
      {"projectsByStatus", "status", "active", DDBST_SK_LTE, "createdAt",
       "2026-03-14T09:00:00Z", NULL, "#n0 = :v0 AND #n1 <= :v1",
       GV("2026-03-14T09:00:00Z")},
      {"projectsByStatus", "status", "active", DDBST_SK_LTE, "createdAt",
       "2026-03", NULL, "#n0 = :v0 AND #n1 < :v1", GV("2026-04")},
      {"projectsByStatus", "status", "active", DDBST_SK_LT, "createdAt",
       "2026-03", NULL, "#n0 = :v0 AND #n1 < :v1", GV("2026-03")},
      {"projectsByStatus", "status", "active", DDBST_SK_BETWEEN, "createdAt",
       "2026-01", "2026-02", BETWEEN, GV2("2026-01", "2026-03")},
      /* gt on the last facet inside a BETWEEN: the smallest key above v */
      {"projectsByStatus", "status", "active", DDBST_SK_BETWEEN, "createdAt",
       "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", BETWEEN,
       GV2("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) check_row(&rows[i]);
}

#define UV(a, b) "{\":v0\":{\"S\":\"ORG#1\"},\":v1\":{\"S\":\"" a "\"},\":v2\":{\"S\":\"" b "\"}}"

/* User: SK "USER#{userId}": a string facet ends the key, so a bound equal
 * to a possible key cannot be used inclusively. */
static void string_facet_ends_key(void **state) {
  (void)state;
  static const row rows[] = {
      {"listUsers", "orgId", "1", DDBST_SK_GT, "userId", "12", NULL, BETWEEN,
       UV("USER#12\\u0001", "USER$")},
      {"listUsers", "orgId", "1", DDBST_SK_LTE, "userId", "12", NULL, BETWEEN,
       UV("USER#", "USER#12")},
      {"listUsers", "orgId", "1", DDBST_SK_GTE, "userId", "12", NULL, BETWEEN,
       UV("USER#12", "USER$")},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) check_row(&rows[i]);
  /* lt 12: "USER#12" could be a key, so the bound is the largest string
   * below it that fits 1024 bytes: "USER#11" then U+10FFFF to the end */
  row lt = {"listUsers", "orgId", "1", DDBST_SK_LT, "userId", "12", NULL,
            BETWEEN, ""};
  ddbst_error err;
  const char *body = build(&lt, &err);
  assert_non_null(body);
  const char *hi = strstr(body, "\":v2\":{\"S\":\"USER#11\xf4\x8f\xbf\xbf");
  assert_non_null(hi);
  const char *start = hi + strlen("\":v2\":{\"S\":\"");
  const char *end = strchr(start, '"');
  assert_int_equal(end - start, 1024);
}

/* Every pair of bounds (gt or gte with lt or lte), each end by its single
 * condition's rule on complete and partial values; a pair that selects
 * nothing is refused. */
static void pairs_of_bounds(void **state) {
  (void)state;
  static const row rows[] = {
      /* partial gt: after all of March; partial lt: before May */
      {"listEvents", "projectId", "p", DDBST_SK_GT_LT, "ts", "2026-03",
       "2026-05", BETWEEN, EV("EVENT#2026-04", "EVENT#2026-05")},
      /* complete gt past its terminator, partial lte through April */
      {"listEvents", "projectId", "p", DDBST_SK_GT_LTE, "ts",
       "2026-03-14T09:00:00Z", "2026-04", BETWEEN,
       EV("EVENT#2026-03-14T09:00:00Z$", "EVENT#2026-05")},
      /* complete lte: items whose ts is the bound included */
      {"listEvents", "projectId", "p", DDBST_SK_GT_LTE, "ts", "2026-03",
       "2026-04-01T00:00:00Z", BETWEEN,
       EV("EVENT#2026-04", "EVENT#2026-04-01T00:00:00Z$")},
      {"listEvents", "projectId", "p", DDBST_SK_GTE_LT, "ts", "2026-01-01",
       "2026-02-01T00:00:00Z", BETWEEN,
       EV("EVENT#2026-01-01", "EVENT#2026-02-01T00:00:00Z")},
      {"listEvents", "projectId", "p", DDBST_SK_GTE_LTE, "ts", "2026-01-01",
       "2026-02-01", BETWEEN, EV("EVENT#2026-01-01", "EVENT#2026-02-02")},
      /* the facet is the whole key: gt's exclusive bound just above v */
      {"projectsByStatus", "status", "active", DDBST_SK_GT_LT, "createdAt",
       "2026-01-01T00:00:00Z", "2026-02", BETWEEN,
       GV2("2026-01-01T00:00:00Z\\u0001", "2026-02")},
      {"projectsByStatus", "status", "active", DDBST_SK_GTE_LT, "createdAt",
       "2026-01", "2026-01-02", BETWEEN, GV2("2026-01", "2026-01-02")},
      {"projectsByStatus", "status", "active", DDBST_SK_GT_LTE, "createdAt",
       "2026-01", "2026-02", BETWEEN, GV2("2026-02", "2026-03")},
      /* a string facet ending the key: lt's bound the largest key below */
      {"listUsers", "orgId", "1", DDBST_SK_GT_LTE, "userId", "12", "20",
       BETWEEN, UV("USER#12\\u0001", "USER#20")},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) check_row(&rows[i]);

  /* empty pairs: refused, nothing written */
  static const row empty[] = {
      {"listEvents", "projectId", "p", DDBST_SK_GT_LT, "ts", "2026-03",
       "2026-04", NULL, NULL},
      {"listEvents", "projectId", "p", DDBST_SK_GT_LTE, "ts", "2026-03",
       "2026-03-31T23:59:59Z", NULL, NULL},
      {"projectsByStatus", "status", "active", DDBST_SK_GTE_LT, "createdAt",
       "2026-01", "2026-01", NULL, NULL},
      {"listUsers", "orgId", "1", DDBST_SK_GT_LT, "userId", "12", "12", NULL,
       NULL},
  };
  for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
    ddbst_error err;
    if (build(&empty[i], &err))
      fail_msg("%s %s %s: built %s", empty[i].pattern, empty[i].v1,
               empty[i].v2, ddbst_buf_data(out));
    assert_int_equal(err.code, DDBST_ERANGE);
    assert_int_equal(ddbst_buf_len(out), 0);
  }
  /* the upper bound's value is checked like the lower one's */
  row bad = {"listEvents", "projectId", "p", DDBST_SK_GT_LT, "ts", "2026-03",
             "March", NULL, NULL};
  ddbst_error err;
  assert_null(build(&bad, &err));
  assert_int_equal(err.code, DDBST_EVALUE);
  assert_string_equal(err.path, "facet ts");
  assert_int_equal(ddbst_buf_len(out), 0);
}

static void leading_facets_and_refusals(void **state) {
  (void)state;
  ddbst_error err;
  int p = ddbst_model_pattern(saas, "listProjects");
  ddbst_item *it = ddbst_item_new(saas, ddbst_model_entity(saas, "Project"));
  set(it, "orgId", "1");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  /* a complete leading facet ends at the delimiter */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, p, NULL, out, &err), DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":\"#n0 = :v0 "
      "AND begins_with(#n1, :v1)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\",\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"ORG#1\"},\":v1\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#\"}},"
      "\"ScanIndexForward\":false,\"Limit\":25}");
  /* every facet: equality */
  set(it, "projectId", "p1");
  ddbst_buf_reset(out);
  ddbst_query_request(it, p, NULL, out, &err);
  assert_non_null(strstr(ddbst_buf_data(out), "#n0 = :v0 AND #n1 = :v1"));
  /* a gap before a given facet */
  ddbst_item_unset(it, ddbst_model_attribute(saas, 2, "createdAt"));
  assert_int_equal(ddbst_query_request(it, p, NULL, out, &err), DDBST_EMISSING);
  ddbst_item_free(it);

  /* limits: default, given, capped */
  it = ddbst_item_new(saas, ddbst_model_entity(saas, "Project"));
  set(it, "orgId", "1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 500;
  ddbst_buf_reset(out);
  ddbst_query_request(it, p, &q, out, &err);
  assert_non_null(strstr(ddbst_buf_data(out), "\"Limit\":100}"));
  q.limit = 7;
  ddbst_buf_reset(out);
  ddbst_query_request(it, p, &q, out, &err);
  assert_non_null(strstr(ddbst_buf_data(out), "\"Limit\":7}"));
  /* missing partition facet */
  ddbst_item_reset(it, ddbst_model_entity(saas, "Project"));
  assert_int_equal(ddbst_query_request(it, p, &q, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "facet orgId");
  /* a condition on a facet outside the pattern's range */
  set(it, "orgId", "1");
  q.condition = DDBST_SK_GT;
  q.attribute = ddbst_model_attribute(saas, 2, "name");
  q.value = "x";
  q.value_len = 1;
  assert_int_equal(ddbst_query_request(it, p, &q, out, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "facet name");
  /* a bad bound */
  q.attribute = ddbst_model_attribute(saas, 2, "createdAt");
  q.value = "yesterday";
  q.value_len = 9;
  assert_int_equal(ddbst_query_request(it, p, &q, out, &err), DDBST_EVALUE);
  /* a get pattern, and a consistent read of an index */
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(saas, "getUser"),
                                       NULL, out, &err),
                   DDBST_EINVAL);
  q.condition = DDBST_SK_NONE;
  q.flags = DDBST_CONSISTENT_READ;
  set(it, "status", "active");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(
                       it, ddbst_model_pattern(saas, "projectsByStatus"), &q,
                       out, &err),
                   DDBST_EINVAL);
  assert_non_null(strstr(err.message, "consistently"));
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
}

static void index_query(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  set(it, "email", "Ann@Example.com");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(saas, "userByEmail"),
                                       NULL, out, NULL),
                   DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"saas-api-dev\",\"IndexName\":\"GSI1\","
      "\"KeyConditionExpression\":\"#n0 = :v0\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"GSI1PK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"EMAIL#ann@example.com\"}},\"Limit\":1}");
  ddbst_item_free(it);
}

static const char collection_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},\"entities\":{"
    "\"Order\":{\"attributes\":{\"orderId\":\"string\"},"
    "\"key\":{\"pk\":\"ORDER#{orderId}\",\"sk\":\"ORDER#A\"}},"
    "\"Line\":{\"attributes\":{\"orderId\":\"string\",\"n\":{\"type\":"
    "\"integer\",\"width\":3}},\"key\":{\"pk\":\"ORDER#{orderId}\","
    "\"sk\":\"ORDER#LINE#{n}\"}}},"
    "\"patterns\":{\"orderWithLines\":{\"query\":[\"Order\",\"Line\"]}}}";

static void collection(void **state) {
  (void)state;
  ddbst_model *m = load_text(collection_model);
  ddbst_item *it = ddbst_item_new(m, 1);
  set(it, "orderId", "7");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, 0, NULL, out, NULL), DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"#n0 = :v0 AND "
      "begins_with(#n1, :v1)\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\","
      "\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"ORDER#7\"},\":v1\":{\"S\":\"ORDER#\"}}}");
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* The text the loader prepares for each pattern, with everything a body
 * adds around it: a table's type filter and a pattern's own filter,
 * projections that reach #n10 and share names with the keys and the filter
 * (one placeholder each), an index, conditions, a collection, and keys and
 * key names that need escaping. */
static const char tasks_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\",\"sortKey\":\"SK\","
    "\"indexes\":{\"GSI1\":{\"partitionKey\":\"GSI1PK\",\"sortKey\":\"GSI1SK\"}},"
    "\"entityAttribute\":\"_type\"},\"entities\":{"
    "\"Task\":{\"attributes\":{\"listId\":\"string\",\"taskId\":\"string\","
    "\"state\":{\"type\":\"enum\",\"values\":[\"open\",\"done\"]},\"title\":\"string\","
    "\"a1\":\"string\",\"a2\":\"string\",\"a3\":\"string\",\"a4\":\"string\",\"a5\":\"string\","
    "\"a6\":\"string\",\"a7\":\"string\",\"a8\":\"string\",\"a9\":\"string\",\"a10\":\"string\"},"
    "\"key\":{\"pk\":\"LIST#{listId}\",\"sk\":\"TASK#{taskId}\"},"
    "\"indexes\":{\"GSI1\":{\"pk\":\"STATE#{state}\",\"sk\":\"LIST#{listId}#TASK#{taskId}\"}}},"
    "\"Note\":{\"attributes\":{\"listId\":\"string\",\"taskId\":\"string\",\"noteId\":\"string\","
    "\"state\":{\"type\":\"enum\",\"values\":[\"open\",\"done\"]},\"title\":\"string\"},"
    "\"key\":{\"pk\":\"LIST#{listId}\",\"sk\":\"TASK#{taskId}#NOTE#{noteId}\"}}},"
    "\"patterns\":{\"openTasks\":{\"query\":\"Task\",\"filter\":{\"state\":[\"open\",\"done\"],\"title\":\"x\"},\"order\":\"desc\"},"
    "\"byState\":{\"query\":\"Task\",\"index\":\"GSI1\",\"filter\":{\"title\":\"x\"},\"limit\":{\"default\":10,\"max\":20}},"
    "\"listAll\":{\"query\":[\"Task\",\"Note\"]}}}";
static const char quote_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl3\",\"partitionKey\":\"P\\\"K\",\"sortKey\":\"S\\\\K\"},"
    "\"entities\":{\"A\":{\"attributes\":{\"x\":\"string\",\"y\":\"string\"},"
    "\"key\":{\"pk\":\"A#{x}\",\"sk\":\"B\\\"#{y}\"}}},\"patterns\":{\"as\":{\"query\":\"A\"}}}";

static void expect_query(ddbst_model *m, ddbst_item *it, const char *pattern,
                         const ddbst_query *q, const char *want) {
  ddbst_error err;
  ddbst_buf_reset(out);
  int rc = ddbst_query_request(it, ddbst_model_pattern(m, pattern), q, out, &err);
  if (rc != DDBST_OP_QUERY) fail_msg("%s: %s: %s", pattern, err.path, err.message);
  assert_string_equal(ddbst_buf_data(out), want);
}

static void prepared_text_in_context(void **state) {
  (void)state;
  ddbst_model *m = load_text(tasks_model);
  int task = ddbst_model_entity(m, "Task");
  ddbst_item *it = ddbst_item_new(m, task);
  /* a backslash: '"' sorts below '#', and byState may range on listId
   * where '#' follows it (issue 16) */
  set(it, "listId", "L\\1");
  static const char *const projected[] = {"title", "a1", "a2", "a3", "a4", "a5",
                                          "a6", "a7", "a8", "a9", "a10", "state"};
  for (int i = 0; i < 12; i++)
    ddbst_item_project(it, ddbst_model_attribute(m, task, projected[i]));
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  expect_query(m, it, "openTasks", &q,
      "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"#n0 = "
      ":v0 AND begins_with(#n1, :v1)\",\"ProjectionExpression\":\"#n0,"
      " #n1, #n2, #n3, #n4, #n5, #n6, #n7, #n8, #n9, #n10, #n11,"
      " #n12, #n13, #n14\",\"FilterExpression\":\"#n3 IN (:v2, :v3) "
      "AND #n4 = :v4 AND #n2 = :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"P"
      "K\",\"#n1\":\"SK\",\"#n2\":\"_type\",\"#n3\":\"state\",\"#n4\":\"title\""
      ",\"#n5\":\"a1\",\"#n6\":\"a2\",\"#n7\":\"a3\",\"#n8\":\"a4\","
      "\"#n9\":\"a5\",\"#n10\":\"a6\",\"#n11\":\"a7\",\"#n12\":\"a8\","
      "\"#n13\":\"a9\",\"#n14\":\"a10\"},\"ExpressionAttributeValues\":{\":v0\""
      ":{\"S\":\"LIST#L\\\\1\"},\":v1\":{\"S\":\"TASK#\"},\":v2\":{\"S\":\"ope"
      "n\"},\":v3\":{\"S\":\"done\"},\":v4\":{\"S\":\"x\"},\":v5\":{\"S\":\"Ta"
      "sk\"}},\"ScanIndexForward\":false}");

  ddbst_item_reset(it, task);
  set(it, "state", "open");
  set(it, "listId", "L1");
  ddbst_item_project(it, ddbst_model_attribute(m, task, "title"));
  q.limit = 15;
  expect_query(m, it, "byState", &q,
      "{\"TableName\":\"tbl\",\"IndexName\":\"GSI1\",\"KeyConditionExpression\""
      ":\"#n0 = :v0 AND begins_with(#n1, :v1)\",\"ProjectionExpression\":\"#n2"
      ", #n3, #n0, #n1, #n4, #n5\",\"FilterExpression\":\"#n5 = "
      ":v2\",\"ExpressionAttributeNames\":{\"#n0\":\"GSI1PK\",\"#n1\":\"GSI1SK"
      "\",\"#n2\":\"PK\",\"#n3\":\"SK\",\"#n4\":\"_type\",\"#n5\":\"title\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"STATE#open\"},"
      "\":v1\":{\"S\":\"LIST#L1#TASK#\"},\":v2\":{\"S\":\"x\"}},"
      "\"Limit\":15}");

  ddbst_item_reset(it, task);
  set(it, "listId", "L1");
  q.limit = 0;
  q.condition = DDBST_SK_GT;
  q.attribute = ddbst_model_attribute(m, task, "taskId");
  q.value = "t5";
  q.value_len = 2;
  expect_query(m, it, "openTasks", &q,
      "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"#n0 = "
      ":v0 AND #n1 BETWEEN :v1 AND :v2\",\"FilterExpression\":\"#n2 "
      "IN (:v3, :v4) AND #n3 = :v5 AND #n4 = :v6\",\"ExpressionAttributeNames\""
      ":{\"#n0\":\"PK\",\"#n1\":\"SK\",\"#n2\":\"state\",\"#n3\":\"title\","
      "\"#n4\":\"_type\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"LIST"
      "#L1\"},\":v1\":{\"S\":\"TASK#t5\\u0001\"},\":v2\":{\"S\":\"TASK$\"},"
      "\":v3\":{\"S\":\"open\"},\":v4\":{\"S\":\"done\"},\":v5\":{\"S\":\"x\"}"
      ",\":v6\":{\"S\":\"Task\"}},\"ScanIndexForward\":false}");

  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  ddbst_item_project(it, ddbst_model_attribute(m, task, "a3"));
  expect_query(m, it, "listAll", &q,
      "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"#n0 = "
      ":v0 AND begins_with(#n1, :v1)\",\"ProjectionExpression\":\"#n0,"
      " #n1, #n2, #n3\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\","
      "\"#n1\":\"SK\",\"#n2\":\"_type\",\"#n3\":\"a3\"},\"ExpressionAttributeV"
      "alues\":{\":v0\":{\"S\":\"LIST#L1\"},\":v1\":{\"S\":\"TASK#\"}}}");
  set(it, "taskId", "T1");
  expect_query(m, it, "openTasks", &q,
      "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"#n0 = "
      ":v0 AND #n1 = :v1\",\"ProjectionExpression\":\"#n0, #n1, "
      "#n2, #n3\",\"FilterExpression\":\"#n4 IN (:v2, :v3) AND #n5 "
      "= :v4 AND #n2 = :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\","
      "\"#n1\":\"SK\",\"#n2\":\"_type\",\"#n3\":\"a3\",\"#n4\":\"state\","
      "\"#n5\":\"title\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"LIST"
      "#L1\"},\":v1\":{\"S\":\"TASK#T1\"},\":v2\":{\"S\":\"open\"},"
      "\":v3\":{\"S\":\"done\"},\":v4\":{\"S\":\"x\"},\":v5\":{\"S\":\"Task\"}"
      "},\"ScanIndexForward\":false}");
  ddbst_item_free(it);
  ddbst_model_free(m);

  m = load_text(quote_model);
  it = ddbst_item_new(m, 0);
  set(it, "x", "1\\2");
  expect_query(m, it, "as", NULL,
      "{\"TableName\":\"tbl3\",\"KeyConditionExpression\":\"#n0 "
      "= :v0 AND begins_with(#n1, :v1)\",\"ExpressionAttributeNames\":{\"#n0\""
      ":\"P\\\"K\",\"#n1\":\"S\\\\K\"},\"ExpressionAttributeValues\":{\":v0\":"
      "{\"S\":\"A#1\\\\2\"},\":v1\":{\"S\":\"B\\\"#\"}}}");
  set(it, "y", "q\"");
  expect_query(m, it, "as", NULL,
      "{\"TableName\":\"tbl3\",\"KeyConditionExpression\":\"#n0 "
      "= :v0 AND #n1 = :v1\",\"ExpressionAttributeNames\":{\"#n0\":\"P\\\"K\","
      "\"#n1\":\"S\\\\K\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"A#1"
      "\\\\2\"},\":v1\":{\"S\":\"B\\\"#q\\\"\"}}}");
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(facet_followed_by_delimiter),
      cmocka_unit_test(facet_is_whole_key),
      cmocka_unit_test(string_facet_ends_key),
      cmocka_unit_test(pairs_of_bounds),
      cmocka_unit_test(leading_facets_and_refusals),
      cmocka_unit_test(index_query),
      cmocka_unit_test(collection),
      cmocka_unit_test(prepared_text_in_context),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
