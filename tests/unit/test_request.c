/* Request bodies for single items: exact bytes for the SaaS and blog
 * examples, index keys kept true by updates, refusals that append nothing,
 * and no allocation once warm. Every body also parses back with YAJL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "support.h"

static ddbst_model *saas, *blog;
static ddbst_buf *out;
/* 2026-03-14T09:00:00.123456Z */
static const int64_t NOW = 1773478800123456LL;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  blog = load_example("examples/blog/model.json");
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(saas);
  ddbst_model_free(blog);
  return 0;
}

static ddbst_item *item_of(ddbst_model *m, const char *entity) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, entity));
  assert_non_null(it);
  return it;
}

/* The body must be one well-formed JSON object. */
static void assert_json(const char *body) {
  char why[256];
  yajl_val v = yajl_tree_parse(body, why, sizeof why);
  if (!v || !YAJL_IS_OBJECT(v)) fail_msg("not a JSON object (%s): %s", why, body);
  yajl_tree_free(v);
}

static void expect_body(int op, int want_op, const char *want) {
  if (op < 0) fail_msg("builder failed with %d", op);
  assert_int_equal(op, want_op);
  assert_string_equal(ddbst_buf_data(out), want);
  assert_json(ddbst_buf_data(out));
  ddbst_buf_reset(out);
}

static void get_item(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "User");
  set(it, "orgId", "123");
  set(it, "userId", "9");
  expect_body(ddbst_get_request(it, DDBST_CONSISTENT_READ, out, NULL),
              DDBST_OP_GET_ITEM,
              "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#123\"},"
              "\"SK\":{\"S\":\"USER#9\"}},\"ConsistentRead\":true}");
  /* a projection keeps the keys and the entity type */
  ddbst_item_project(it, ddbst_model_attribute(saas, 1, "email"));
  expect_body(ddbst_get_request(it, 0, out, NULL), DDBST_OP_GET_ITEM,
              "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#123\"},"
              "\"SK\":{\"S\":\"USER#9\"}},\"ProjectionExpression\":\"#n0, #n1, "
              "#n2, #n3\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":"
              "\"SK\",\"#n2\":\"_type\",\"#n3\":\"email\"}}");
  ddbst_error err;
  ddbst_item_unset(it, ddbst_model_attribute(saas, 1, "userId"));
  assert_int_equal(ddbst_get_request(it, 0, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "facet userId");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
}

static const char project_put[] =
    "{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"ORG#123\"},"
    "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p1\"},\"GSI2PK\":{\"S\":"
    "\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:00:00Z\"},\"_type\":"
    "{\"S\":\"Project\"},\"orgId\":{\"S\":\"123\"},\"projectId\":{\"S\":\"p1\"},"
    "\"createdAt\":{\"S\":\"2026-03-14T09:00:00Z\"},\"name\":{\"S\":\"Web "
    "\\\"site\\\"\"},\"status\":{\"S\":\"active\"}}";

static void put_and_create(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "123");
  set(it, "projectId", "p1");
  set(it, "name", "Web \"site\"");
  set(it, "status", "active");
  /* createdAt comes from its default, "now" */
  char want[2048];
  snprintf(want, sizeof want, "%s}", project_put);
  expect_body(ddbst_put_request(it, 0, NOW, out, NULL), DDBST_OP_PUT_ITEM, want);
  snprintf(want, sizeof want,
           "%s,\"ConditionExpression\":\"attribute_not_exists(#n0)\","
           "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}",
           project_put);
  expect_body(ddbst_put_request(it, DDBST_CREATE, NOW, out, NULL),
              DDBST_OP_PUT_ITEM, want);
  /* the same call gives the same bytes */
  ddbst_put_request(it, DDBST_CREATE, NOW, out, NULL);
  assert_string_equal(ddbst_buf_data(out), want);
  ddbst_buf_reset(out);
  ddbst_item_free(it);
}

/* Keys and values with bytes JSON must escape take the escaping writer;
 * plain ones beside them are copied as they are. */
static void put_escapes_keys_and_values(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "o\"1");
  set(it, "projectId", "p\\1\t");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  set(it, "name", "n\x01");
  set(it, "status", "active");
  expect_body(
      ddbst_put_request(it, 0, NOW, out, NULL), DDBST_OP_PUT_ITEM,
      "{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"ORG#o\\\"1\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p\\\\1\\t\"},\"GSI2PK\":"
      "{\"S\":\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:00:00Z\"},"
      "\"_type\":{\"S\":\"Project\"},\"orgId\":{\"S\":\"o\\\"1\"},"
      "\"projectId\":{\"S\":\"p\\\\1\\t\"},\"createdAt\":{\"S\":"
      "\"2026-03-14T09:00:00Z\"},\"name\":{\"S\":\"n\\u0001\"},\"status\":"
      "{\"S\":\"active\"}}}");
  ddbst_item_free(it);
}

static void put_generates_ulid(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Event");
  set(it, "projectId", "p1");
  set(it, "ts", "2026-03-14T09:00:00Z");
  set(it, "payload", "{\"ok\": true, \"n\": [1, 2]}");
  assert_int_equal(ddbst_put_request(it, 0, NOW, out, NULL), DDBST_OP_PUT_ITEM);
  const char *ulid;
  size_t n;
  assert_int_equal(ddbst_item_get(it, ddbst_model_attribute(saas, 3, "eventId"),
                                  &ulid, &n),
                   1);
  char sk[128];
  snprintf(sk, sizeof sk, "\"SK\":{\"S\":\"EVENT#2026-03-14T09:00:00Z#%s\"}",
           ulid);
  assert_non_null(strstr(ddbst_buf_data(out), sk));
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"payload\":{\"M\":{\"ok\":{\"BOOL\":true},\"n\":{\"L\":"
                         "[{\"N\":\"1\"},{\"N\":\"2\"}]}}}"));
  assert_json(ddbst_buf_data(out));
  ddbst_buf_reset(out);
  ddbst_item_free(it);
}

static void update_moves_gsi(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "123");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  set(it, "status", "archived");
  expect_body(
      ddbst_update_request(it, 0, NOW, out, NULL), DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#123\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p1\"}},\"UpdateExpression\":"
      "\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2\",\"ConditionExpression\":"
      "\"attribute_exists(#n3)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"status\",\"#n1\":\"GSI2PK\",\"#n2\":\"GSI2SK\",\"#n3\":\"PK\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"archived\"},\":v1\":"
      "{\"S\":\"STATUS#archived\"},\":v2\":{\"S\":\"2026-03-14T09:00:00Z\"}}}");
  /* removing the facet takes the item out of the sparse index */
  ddbst_item_remove(it, ddbst_model_attribute(saas, 2, "status"));
  expect_body(
      ddbst_update_request(it, DDBST_UPSERT, NOW, out, NULL),
      DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#123\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p1\"}},\"UpdateExpression\":"
      /* an upsert may create the item: it says what it is */
      "\"SET #n0 = :v0 REMOVE #n1, #n2, #n3\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"_type\",\"#n1\":\"status\",\"#n2\":\"GSI2PK\",\"#n3\":"
      "\"GSI2SK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Project\"}}}");
  /* an attribute no index reads leaves the index keys alone */
  ddbst_item_unset(it, ddbst_model_attribute(saas, 2, "status"));
  set(it, "name", "New");
  ddbst_update_request(it, 0, NOW, out, NULL);
  assert_null(strstr(ddbst_buf_data(out), "GSI2"));
  ddbst_buf_reset(out);
  ddbst_item_free(it);
}

static void update_refusals(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "123");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  /* nothing to change */
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "Project");
  /* a primary-key facet cannot change */
  ddbst_item_remove(it, ddbst_model_attribute(saas, 2, "projectId"));
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Project.projectId");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);

  /* ADD on an index facet would build the key from the delta */
  it = item_of(blog, "Service");
  set(it, "serviceId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  assert_int_equal(ddbst_item_add(it, ddbst_model_attribute(blog, 1, "position"),
                                  "1", 1, &err),
                   0);
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Service.indexes.gsi1");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
}

/* gsi3 holds published posts only: its keys follow the condition. */
static void update_membership_condition(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_item *it = item_of(blog, "Blog");
  set(it, "blogId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "updatedAt", "2026-01-01T00:00:00Z");
  set(it, "status", "draft");
  /* versions start at 1, and the write stores the next: INT64_MAX has none */
  assert_int_equal(ddbst_item_expect_version(it, 0), DDBST_ERANGE);
  assert_int_equal(ddbst_item_expect_version(it, INT64_MAX), DDBST_ERANGE);
  assert_int_equal(ddbst_item_expect_version(it, 3), 0);
  expect_body(
      ddbst_update_request(it, 0, NOW, out, NULL), DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"site-content\",\"Key\":{\"pk\":{\"S\":\"BLOG#"
      "01ARYZ6S41TSV4RRFFQ69G5FAV\"},\"sk\":{\"S\":\"BLOG#"
      "01ARYZ6S41TSV4RRFFQ69G5FAV\"}},\"UpdateExpression\":\"SET #n0 = :v0, #n1 "
      "= :v1, #n2 = :v2 REMOVE #n3, #n4\",\"ConditionExpression\":"
      "\"attribute_exists(#n5) AND #n2 = :v3\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"status\",\"#n1\":\"updatedAt\",\"#n2\":\"version\",\"#n3\":"
      "\"gsi3pk\",\"#n4\":\"gsi3sk\",\"#n5\":\"pk\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"},\":v1\":{\"S\":"
      "\"2026-01-01T00:00:00.000Z\"},\":v2\":{\"N\":\"4\"},\":v3\":{\"N\":\"3\"}}}");
  /* published again: every facet of gsi3 is needed to rebuild its keys */
  ddbst_item_reset(it, 0);
  set(it, "blogId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "status", "published");
  set(it, "category", "news");
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "Blog.indexes.gsi3");
  assert_non_null(strstr(err.message, "publishedAt"));
  set(it, "publishedAt", "2026-01-02T00:00:00Z");
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "{\"S\":\"2026-01-02T00:00:00Z#01ARYZ6S41TSV4RRFFQ69G5FAV\"}"));
  /* without an expected version the version still moves on */
  assert_non_null(strstr(ddbst_buf_data(out),
                         "#n6 = if_not_exists(#n6, :v6) + :v7"));
  /* updatedAt defaults to now */
  assert_non_null(strstr(ddbst_buf_data(out), "{\"S\":\"2026-03-14T09:00:00.123Z\"}"));
  assert_json(ddbst_buf_data(out));
  ddbst_buf_reset(out);
  /* changing a facet without the condition's attribute: cannot decide */
  ddbst_item_reset(it, 0);
  set(it, "blogId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "category", "tech");
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EMISSING);
  assert_non_null(strstr(err.message, "give status too"));
  ddbst_item_free(it);
}

static void delete_item(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "1");
  set(it, "projectId", "p");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  expect_body(ddbst_delete_request(it, DDBST_IF_EXISTS, out, NULL),
              DDBST_OP_DELETE_ITEM,
              "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#1\"},"
              "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p\"}},"
              "\"ConditionExpression\":\"attribute_exists(#n0)\","
              "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}");
  ddbst_item_free(it);
}

static void create_table(void **state) {
  (void)state;
  expect_body(
      ddbst_create_table_request(saas, out, NULL), DDBST_OP_CREATE_TABLE,
      "{\"TableName\":\"saas-api-dev\",\"AttributeDefinitions\":[{"
      "\"AttributeName\":\"PK\",\"AttributeType\":\"S\"},{\"AttributeName\":"
      "\"SK\",\"AttributeType\":\"S\"},{\"AttributeName\":\"GSI1PK\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"GSI2PK\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"GSI2SK\","
      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"PK\","
      "\"KeyType\":\"HASH\"},{\"AttributeName\":\"SK\",\"KeyType\":\"RANGE\"}],"
      "\"BillingMode\":\"PAY_PER_REQUEST\",\"GlobalSecondaryIndexes\":[{"
      "\"IndexName\":\"GSI1\",\"KeySchema\":[{\"AttributeName\":\"GSI1PK\","
      "\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":"
      "\"KEYS_ONLY\"}},{\"IndexName\":\"GSI2\",\"KeySchema\":[{"
      "\"AttributeName\":\"GSI2PK\",\"KeyType\":\"HASH\"},{\"AttributeName\":"
      "\"GSI2SK\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":"
      "\"INCLUDE\",\"NonKeyAttributes\":[\"name\",\"status\"]}}],"
      "\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":"
      "\"NEW_AND_OLD_IMAGES\"}}");
}

static void item_size_limit(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_item *it = item_of(saas, "Organisation");
  set(it, "orgId", "1");
  set(it, "name", "Acme");
  /* names and values: PK 2 + 5, SK 2 + 5, _type 5 + 12, orgId 5 + 1,
   * name 4 + 4 */
  assert_int_equal(ddbst_item_size(it, &err), 45);
  size_t n = 400 * 1024;
  char *big = malloc(n + 1);
  memset(big, 'x', n);
  big[n] = '\0';
  set(it, "plan", big);
  assert_int_equal(ddbst_put_request(it, 0, NOW, out, &err), DDBST_ERANGE);
  assert_string_equal(err.path, "Organisation");
  assert_non_null(strstr(err.message, "DynamoDB stores at most 409600"));
  assert_int_equal(ddbst_buf_len(out), 0);
  free(big);
  ddbst_item_free(it);
}

/* A warm item and buffer build bodies without allocating. */
static void no_allocation_when_warm(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m;
  assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
  int project = ddbst_model_entity(m, "Project");
  int list = ddbst_model_pattern(m, "listProjects");
  ddbst_item *it = ddbst_item_new(m, project);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_BETWEEN;
  q.attribute = ddbst_model_attribute(m, project, "createdAt");
  q.value = "2026-01";
  q.value_len = 7;
  q.value2 = "2026-02-01";
  q.value2_len = 10;
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    ddbst_item_reset(it, project);
    set(it, "orgId", "123");
    set(it, "projectId", "p1");
    set(it, "createdAt", "2026-03-14T10:00:00+01:00");
    set(it, "status", "active");
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_put_request(it, DDBST_CREATE, NOW, b, NULL),
                     DDBST_OP_PUT_ITEM);
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_update_request(it, 0, NOW, b, NULL),
                     DDBST_OP_UPDATE_ITEM);
    ddbst_item_reset(it, project);
    set(it, "orgId", "123");
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_query_request(it, list, &q, b, NULL), DDBST_OP_QUERY);
    if (round > 0) assert_int_equal(ca.calls, before);
  }
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static const char counters_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\"},"
    "\"entities\":{\"Page\":{\"attributes\":{\"id\":\"string\","
    "\"views\":\"integer\",\"tags\":\"string_set\",\"log\":\"list\"},"
    "\"key\":{\"pk\":\"PAGE#{id}\"}}}}";

static void update_add_and_append(void **state) {
  (void)state;
  ddbst_model *m = load_text(counters_model);
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "id", "home");
  ddbst_error err;
  assert_int_equal(ddbst_item_add(it, 1, "-2", 2, &err), 0);
  assert_int_equal(ddbst_item_add(it, 2, "[\"new\"]", 7, &err), 0);
  assert_int_equal(ddbst_item_append(it, 3, "[{\"at\": 1}]", 11, &err), 0);
  expect_body(
      ddbst_update_request(it, DDBST_UPSERT, NOW, out, NULL),
      DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"tbl\",\"Key\":{\"PK\":{\"S\":\"PAGE#home\"}},"
      "\"UpdateExpression\":\"SET #n0 = list_append(if_not_exists(#n0, :v0), "
      ":v1) ADD #n1 :v2, #n2 :v3\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"log\",\"#n1\":\"views\",\"#n2\":\"tags\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"L\":[]},\":v1\":{\"L\":[{\"M\":"
      "{\"at\":{\"N\":\"1\"}}}]},\":v2\":{\"N\":\"-2\"},\":v3\":{\"SS\":"
      "[\"new\"]}}}");
  /* ADD and append are for numbers, sets and lists only */
  assert_int_equal(ddbst_item_add(it, 0, "1", 1, &err), DDBST_EVALUE);
  assert_int_equal(ddbst_item_append(it, 2, "[\"x\"]", 5, &err), DDBST_EVALUE);
  /* and a put refuses them */
  assert_int_equal(ddbst_put_request(it, 0, NOW, out, &err), DDBST_EVALUE);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* Placeholders past #n9 and :v9, in every clause and the condition: names
 * and values keep their numbers of first use. */
static const char notes_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\",\"sortKey\":\"SK\","
    "\"entityAttribute\":\"_type\"},\"entities\":{\"Note\":{\"attributes\":{"
    "\"id\":\"string\",\"title\":\"string\",\"n\":\"integer\",\"a1\":\"string\","
    "\"a2\":\"string\",\"a3\":\"string\",\"a4\":\"string\",\"a5\":\"string\","
    "\"a6\":\"string\",\"a7\":\"string\",\"a8\":\"string\",\"a9\":\"string\"},"
    "\"key\":{\"pk\":\"NOTE#{id}\",\"sk\":\"NOTE\"},\"version\":\"v\"}}}";

static void update_many_placeholders(void **state) {
  (void)state;
  ddbst_model *m = load_text(notes_model);
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "id", "1");
  for (int i = 1; i < 10; i++) {
    char name[8];
    snprintf(name, sizeof name, "a%d", i);
    set(it, name, "v\"q");
  }
  assert_int_equal(ddbst_item_remove(it, ddbst_model_attribute(m, 0, "title")), 0);
  assert_int_equal(ddbst_item_add(it, ddbst_model_attribute(m, 0, "n"), "2", 1, NULL), 0);
  assert_int_equal(ddbst_item_expect_version(it, 7), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, DDBST_UPSERT, NOW, out, NULL),
                   DDBST_OP_UPDATE_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"tbl\",\"Key\":{\"PK\":{\"S\":\"NOTE#1\"},"
      "\"SK\":{\"S\":\"NOTE\"}},\"UpdateExpression\":\"SET #n0 = "
      ":v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n4 = :v4, #n5 = :v5,"
      " #n6 = :v6, #n7 = :v7, #n8 = :v8, #n9 = :v9, #n10 = :v10 "
      "REMOVE #n11 ADD #n12 :v11\",\"ConditionExpression\":\"#n10 "
      "= :v12\",\"ExpressionAttributeNames\":{\"#n0\":\"a1\",\"#n1\":\"a2\","
      "\"#n2\":\"a3\",\"#n3\":\"a4\",\"#n4\":\"a5\",\"#n5\":\"a6\","
      "\"#n6\":\"a7\",\"#n7\":\"a8\",\"#n8\":\"a9\",\"#n9\":\"_type\","
      "\"#n10\":\"v\",\"#n11\":\"title\",\"#n12\":\"n\"},\"ExpressionAttribute"
      "Values\":{\":v0\":{\"S\":\"v\\\"q\"},\":v1\":{\"S\":\"v\\\"q\"},"
      "\":v2\":{\"S\":\"v\\\"q\"},\":v3\":{\"S\":\"v\\\"q\"},\":v4\":{\"S\":\""
      "v\\\"q\"},\":v5\":{\"S\":\"v\\\"q\"},\":v6\":{\"S\":\"v\\\"q\"},"
      "\":v7\":{\"S\":\"v\\\"q\"},\":v8\":{\"S\":\"v\\\"q\"},\":v9\":{\"S\":\""
      "Note\"},\":v10\":{\"N\":\"8\"},\":v11\":{\"N\":\"2\"},\":v12\":{\"N\":\""
      "7\"}}}");
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(get_item),
      cmocka_unit_test(put_and_create),
      cmocka_unit_test(put_escapes_keys_and_values),
      cmocka_unit_test(put_generates_ulid),
      cmocka_unit_test(update_moves_gsi),
      cmocka_unit_test(update_refusals),
      cmocka_unit_test(update_membership_condition),
      cmocka_unit_test(delete_item),
      cmocka_unit_test(create_table),
      cmocka_unit_test(item_size_limit),
      cmocka_unit_test(no_allocation_when_warm),
      cmocka_unit_test(update_add_and_append),
      cmocka_unit_test(update_many_placeholders),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
