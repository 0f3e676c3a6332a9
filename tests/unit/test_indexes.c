/* Index kinds beyond the synthetic-key GSI (issue 18): local secondary
 * indexes, and global indexes keyed natively on the entities' own
 * attributes. What the loader refuses (DynamoDB's reasons), the keys an
 * item writes (the table's partition key once; nothing for a native
 * index), the CreateTable body, update expressions that never touch the
 * table's partition key, ConsistentRead taken on a local index only, and
 * a native index's key conditions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* `json` with every ' turned into ", loaded: 0, or the first error. */
static int load_q(const char *json, ddbst_model **m, ddbst_error *err) {
  size_t n = strlen(json);
  char *text = malloc(n + 1);
  assert_non_null(text);
  memcpy(text, json, n + 1);
  for (char *p = text; *p; p++)
    if (*p == '\'') *p = '"';
  memset(err, 0, sizeof *err);
  *m = NULL;
  int rc = ddbst_model_load(text, n, NULL, m, err);
  free(text);
  return rc;
}

static void refused(const char *json, const char *path, const char *message) {
  ddbst_model *m;
  ddbst_error err;
  int rc = load_q(json, &m, &err);
  if (rc != DDBST_EMODEL)
    fail_msg("expected the model refused (%s: %s), got %d", path, message, rc);
  assert_string_equal(err.path, path);
  assert_string_equal(err.message, message);
  assert_null(m);
}

#define LSI_TABLE(extra)                                                     \
  "{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "            \
  "'sortKey': 'SK', 'entityAttribute': '_type', "                            \
  "'indexes': {'GSI1': {'partitionKey': 'G1PK', 'sortKey': 'G1SK'}}, "      \
  "'localIndexes': {'LSI1': {'sortKey': 'L1SK'}, "                           \
  "'LSI2': {'sortKey': 'L2SK', 'projection': 'KEYS_ONLY'}" extra "}},"
#define ORDER(indexes)                                                       \
  " 'entities': {'Order': {'attributes': {'u': 'string', 'o': 'string', "    \
  "'at': 'timestamp', 'total': 'integer', 'st': 'string'}, "                 \
  "'key': {'pk': 'U#{u}', 'sk': 'O#{o}'}, 'indexes': {" indexes "}}}"
#define GOOD_INDEXES                                                         \
  "'LSI1': {'sk': 'AT#{at}'}, 'LSI2': {'sk': 'T#{total}#{o}'}, "             \
  "'GSI1': {'pk': 'ST#{st}', 'sk': '{at}'}"
#define PATTERNS                                                             \
  ", 'patterns': {'byDate': {'query': 'Order', 'index': 'LSI1', "            \
  "'range': 'at'}, 'byStatus': {'query': 'Order', 'index': 'GSI1'}}}"
#define GOOD LSI_TABLE("") ORDER(GOOD_INDEXES) PATTERNS

static ddbst_model *good(void) {
  ddbst_model *m;
  ddbst_error err;
  if (load_q(GOOD, &m, &err)) fail_msg("%s: %s", err.path, err.message);
  return m;
}

static void loader_refuses_what_dynamodb_refuses(void **state) {
  (void)state;
  refused(LSI_TABLE(", 'LSI3': {'sortKey': 'A3'}, 'LSI4': {'sortKey': 'A4'}, "
                    "'LSI5': {'sortKey': 'A5'}, 'LSI6': {'sortKey': 'A6'}")
              ORDER(GOOD_INDEXES) "}",
          "table.localIndexes",
          "Number of LocalSecondaryIndexes exceeds per-table limit of 5 "
          "(DynamoDB allows at most 5 local secondary indexes, created with "
          "the table)");
  refused(LSI_TABLE(", 'LSI3': {'projection': 'ALL'}") ORDER(GOOD_INDEXES) "}",
          "table.localIndexes.LSI3",
          "Index KeySchema does not have a range key for index: LSI3 (a "
          "local index is its own sort order: 'sortKey' is required)");
  refused(LSI_TABLE(", 'LSI3': {'partitionKey': 'X', 'sortKey': 'A3'}")
              ORDER(GOOD_INDEXES) "}",
          "table.localIndexes.LSI3.partitionKey",
          "Index KeySchema does not have the same leading hash key as table "
          "KeySchema for index: LSI3 (a local index's partition key is the "
          "table's, 'PK')");
  refused(LSI_TABLE(", 'GSI1': {'sortKey': 'A3'}") ORDER(GOOD_INDEXES) "}",
          "table.localIndexes.GSI1",
          "Duplicate index name: GSI1 (a local and a global index share one "
          "namespace)");
  refused(LSI_TABLE(", 'LSI3': {'sortKey': 'SK'}") ORDER(GOOD_INDEXES) "}",
          "table", "'SK' is both the table's sort key and LSI3's sort key");
  refused("{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "
          "'localIndexes': {'LSI1': {'sortKey': 'L1SK'}}}, 'entities': "
          "{'A': {'attributes': {'a': 'string'}, 'key': {'pk': 'A#{a}'}}}}",
          "table.localIndexes.LSI1",
          "Table KeySchema does not have a range key, which is required when "
          "specifying a LocalSecondaryIndex (table.sortKey)");
  refused(LSI_TABLE("") ORDER("'LSI1': {'pk': 'U#{u}', 'sk': 'AT#{at}'}") "}",
          "entities.Order.indexes.LSI1.pk",
          "index LSI1 is a local secondary index: its partition key is the "
          "table's (the entity's key.pk); give only 'sk'");
  refused(LSI_TABLE("") ORDER("'LSI1': {}") "}",
          "entities.Order.indexes.LSI1",
          "'sk' is required: index LSI1 has a sort key");
  /* the table's partition key may be named again */
  ddbst_model *m;
  ddbst_error err;
  assert_int_equal(
      load_q(LSI_TABLE(", 'LSI3': {'partitionKey': 'PK', 'sortKey': 'A3'}")
                 ORDER(GOOD_INDEXES) "}",
             &m, &err),
      0);
  ddbst_model_free(m);
}

static ddbst_item *order(ddbst_model *m, const char *at, const char *total) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Order"));
  assert_non_null(it);
  set(it, "u", "u1");
  set(it, "o", "o9");
  if (at) set(it, "at", at);
  if (total) set(it, "total", total);
  return it;
}

static void keys_write_the_partition_key_once(void **state) {
  (void)state;
  ddbst_model *m = good();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  ddbst_item *it = order(m, "2026-01-02T03:04:05Z", "12");
  set(it, "st", "open");
  assert_int_equal(ddbst_item_keys_json(it, b, &err), 0);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"PK\":\"U#u1\",\"SK\":\"O#o9\",\"L1SK\":\"AT#2026-01-"
                      "02T03:04:05Z\",\"L2SK\":\"T#12#o9\",\"G1PK\":\"ST#open\","
                      "\"G1SK\":\"2026-01-02T03:04:05Z\",\"_type\":\"Order\"}");
  /* the key list says the same, one PK */
  assert_int_equal(ddbst_item_build_keys(it, &err), 7);
  ddbst_item_free(it);
  /* sparse by absence: no total, not in LSI2 */
  ddbst_buf_reset(b);
  it = order(m, "2026-01-02T03:04:05Z", NULL);
  set(it, "st", "open");
  assert_int_equal(ddbst_item_keys_json(it, b, &err), 0);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"PK\":\"U#u1\",\"SK\":\"O#o9\",\"L1SK\":\"AT#2026-01-"
                      "02T03:04:05Z\",\"G1PK\":\"ST#open\",\"G1SK\":\"2026-01-"
                      "02T03:04:05Z\",\"_type\":\"Order\"}");
  assert_int_equal(ddbst_item_build_keys(it, &err), 6);
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void create_table_declares_local_indexes(void **state) {
  (void)state;
  ddbst_model *m = good();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_create_table_request(m, b, &err),
                   DDBST_OP_CREATE_TABLE);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"AttributeDefinitions\":["
      "{\"AttributeName\":\"PK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"SK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"G1PK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"G1SK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"L1SK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"L2SK\",\"AttributeType\":\"S\"}],"
      "\"KeySchema\":[{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"SK\",\"KeyType\":\"RANGE\"}],"
      "\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"GSI1\",\"KeySchema\":["
      "{\"AttributeName\":\"G1PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"G1SK\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}}],"
      "\"LocalSecondaryIndexes\":["
      "{\"IndexName\":\"LSI1\",\"KeySchema\":["
      "{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"L1SK\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}},"
      "{\"IndexName\":\"LSI2\",\"KeySchema\":["
      "{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"L2SK\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"}}]}");
  ddbst_buf_reset(b);
  assert_int_equal(ddbst_model_cloudformation(m, NULL, 0, b, &err), 0);
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\"LocalSecondaryIndexes\":[{\"IndexName\":\"LSI1\""));
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void updates_never_touch_the_table_partition_key(void **state) {
  (void)state;
  ddbst_model *m = good();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  ddbst_item *it = order(m, "2026-01-02T03:04:05Z", NULL);
  set(it, "st", "open");
  assert_int_equal(ddbst_item_remove(it, ddbst_model_attribute(m, 0, "total")),
                   0);
  assert_int_equal(ddbst_update_request(it, 0, 0, b, &err), DDBST_OP_UPDATE_ITEM);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"Key\":{\"PK\":{\"S\":\"U#u1\"},\"SK\":{\"S\":"
      "\"O#o9\"}},\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, "
      "#n3 = :v3, #n4 = :v4 REMOVE #n5, #n6\",\"ConditionExpression\":"
      "\"attribute_exists(#n7)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"at\",\"#n1\":\"st\",\"#n2\":\"L1SK\",\"#n3\":\"G1PK\",\"#n4\":"
      "\"G1SK\",\"#n5\":\"total\",\"#n6\":\"L2SK\",\"#n7\":\"PK\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"2026-01-02T03:04:05Z\"},"
      "\":v1\":{\"S\":\"open\"},\":v2\":{\"S\":\"AT#2026-01-02T03:04:05Z\"},"
      "\":v3\":{\"S\":\"ST#open\"},\":v4\":{\"S\":\"2026-01-02T03:04:05Z\"}}}");
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void consistent_read_on_local_indexes_only(void **state) {
  (void)state;
  ddbst_model *m = good();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  ddbst_item *it = order(m, NULL, NULL);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.flags = DDBST_CONSISTENT_READ;
  assert_int_equal(
      ddbst_query_request(it, ddbst_model_pattern(m, "byDate"), &q, b, &err),
      DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"IndexName\":\"LSI1\",\"KeyConditionExpression"
      "\":\"#n0 = :v0 AND begins_with(#n1, :v1)\",\"ExpressionAttributeNames"
      "\":{\"#n0\":\"PK\",\"#n1\":\"L1SK\"},\"ExpressionAttributeValues\":{"
      "\":v0\":{\"S\":\"U#u1\"},\":v1\":{\"S\":\"AT#\"}},\"ConsistentRead\":"
      "true}");
  ddbst_buf_reset(b);
  set(it, "st", "open");
  assert_int_equal(
      ddbst_query_request(it, ddbst_model_pattern(m, "byStatus"), &q, b, &err),
      DDBST_EINVAL);
  assert_string_equal(err.message,
                      "a global secondary index cannot be read consistently");
  assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* ---- native multi-attribute keys ---- */

#define NATIVE_TABLE(ix)                                                     \
  "{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "            \
  "'sortKey': 'SK', 'entityAttribute': '_type', 'indexes': {" ix "}},"
#define SCORE(members)                                                       \
  " 'entities': {'Score': {'attributes': {'p': 'string', 'g': 'string', "    \
  "'r': 'string', 'pts': 'integer', 'at': 'timestamp', 'ok': 'boolean', "    \
  "'b': 'binary'}, 'key': {'pk': 'P#{p}', 'sk': 'S#{g}#{at}'}, "             \
  "'indexes': {" members "}}}"
#define Board "'Board': {'partitionKey': ['g', 'r'], 'sortKey': ['pts', 'at']}"

static void native_keys_refused_as_dynamodb_refuses(void **state) {
  (void)state;
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g', 'r', 'p', 'at', 'b']}")
              SCORE("'Board': {}") "}",
          "table.indexes.Board.partitionKey",
          "a multi-attribute partition key has 1 to 4 attributes; DynamoDB "
          "refuses 5");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g'], 'sortKey': []}")
              SCORE("'Board': {}") "}",
          "table.indexes.Board.sortKey",
          "a multi-attribute sort key has 1 to 4 attributes; DynamoDB "
          "refuses 0");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g', 'g']}")
              SCORE("'Board': {}") "}",
          "table.indexes.Board.partitionKey",
          "'g' is named twice: a key schema names an attribute once");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g'], 'sortKey': ['g']}")
              SCORE("'Board': {}") "}",
          "table.indexes.Board",
          "'g' is both in Board's partition key and its sort key");
  refused("{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': ['PK']}, "
          "'entities': {'A': {'attributes': {'a': 'string'}, 'key': {'pk': "
          "'A#{a}'}}}}",
          "table.partitionKey",
          "the table's key is one attribute: multi-attribute keys are for "
          "global secondary indexes only");
  refused("{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "
          "'sortKey': 'SK', 'localIndexes': {'LSI1': {'sortKey': ['a', 'b']}}}, "
          "'entities': {'A': {'attributes': {'a': 'string'}, 'key': {'pk': "
          "'A#{a}', 'sk': 'A'}}}}",
          "table.localIndexes.LSI1",
          "a local secondary index has one sort key attribute: "
          "multi-attribute keys are for global secondary indexes only");
  refused(NATIVE_TABLE(Board) SCORE("'Board': {'pk': '{g}'}") "}",
          "entities.Score.indexes.Board.pk",
          "Board is keyed on the entities' own attributes (g): its members give "
          "no 'pk'; an item is in it exactly when it has every key attribute");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g', 'ok']}")
              SCORE("'Board': {}") "}",
          "entities.Score.indexes.Board",
          "Score.ok is a boolean: a key attribute is a string, number or "
          "binary (Board keys on it)");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g', 'zz']}")
              SCORE("'Board': {}") "}",
          "entities.Score.indexes.Board",
          "Score is keyed on its attribute 'zz' in Board, which Score does not "
          "declare");
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['SK']}") SCORE("'Board': {}") "}",
          "table", "'SK' is both the table's sort key and a key attribute of Board");
  /* one attribute, one type, in every entity in the index */
  refused(NATIVE_TABLE("'Board': {'partitionKey': ['g'], 'sortKey': ['pts']}")
          " 'entities': {'A': {'attributes': {'g': 'string', 'pts': "
          "'integer'}, 'key': {'pk': 'A#{g}', 'sk': 'A'}, 'indexes': {'Board': "
          "{}}}, 'B': {'attributes': {'g': 'string', 'pts': 'string'}, "
          "'key': {'pk': 'B#{g}', 'sk': 'B'}, 'indexes': {'Board': {}}}}}",
          "table.indexes.Board",
          "'pts' is a key attribute of Board: A writes it as N and B as S, and "
          "one attribute has one type in the index");
}

static ddbst_model *native_model(void) {
  ddbst_model *m;
  ddbst_error err;
  if (load_q(NATIVE_TABLE(Board ", 'Bins': {'partitionKey': ['b']}")
                 SCORE("'Board': {}, 'Bins': {}")
             ", 'patterns': {'top': {'query': 'Score', 'index': 'Board', "
             "'range': 'pts', 'order': 'desc'}, 'byPtsThenAt': {'query': "
             "'Score', 'index': 'Board', 'order': 'desc'}}}",
             &m, &err))
    fail_msg("%s: %s", err.path, err.message);
  return m;
}

static void native_keys_write_nothing_and_declare_types(void **state) {
  (void)state;
  ddbst_model *m = native_model();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "p", "p1");
  set(it, "g", "g1");
  set(it, "at", "2026-01-02T03:04:05Z");
  set(it, "pts", "12");
  /* partly given (no r): out of Board by absence, no error */
  assert_int_equal(ddbst_item_keys_json(it, b, &err), 0);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"PK\":\"P#p1\",\"SK\":\"S#g1#2026-01-02T03:04:05Z\","
                      "\"_type\":\"Score\"}");
  ddbst_buf_reset(b);
  assert_int_equal(ddbst_create_table_request(m, b, &err),
                   DDBST_OP_CREATE_TABLE);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"AttributeDefinitions\":["
      "{\"AttributeName\":\"PK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"SK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"g\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"r\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"pts\",\"AttributeType\":\"N\"},"
      "{\"AttributeName\":\"at\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"b\",\"AttributeType\":\"B\"}],"
      "\"KeySchema\":[{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"SK\",\"KeyType\":\"RANGE\"}],"
      "\"BillingMode\":\"PAY_PER_REQUEST\",\"GlobalSecondaryIndexes\":["
      "{\"IndexName\":\"Board\",\"KeySchema\":["
      "{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"r\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"pts\",\"KeyType\":\"RANGE\"},"
      "{\"AttributeName\":\"at\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}},"
      "{\"IndexName\":\"Bins\",\"KeySchema\":["
      "{\"AttributeName\":\"b\",\"KeyType\":\"HASH\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}}]}");
  /* an update of a key attribute is the attribute alone */
  ddbst_buf_reset(b);
  ddbst_item_free(it);
  it = ddbst_item_new(m, 0);
  set(it, "p", "p1");
  set(it, "g", "g1");
  set(it, "at", "2026-01-02T03:04:05Z");
  set(it, "pts", "13");
  assert_int_equal(ddbst_item_remove(it, ddbst_model_attribute(m, 0, "r")), 0);
  assert_int_equal(ddbst_update_request(it, 0, 0, b, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"Key\":{\"PK\":{\"S\":\"P#p1\"},\"SK\":{\"S\":"
      "\"S#g1#2026-01-02T03:04:05Z\"}},\"UpdateExpression\":\"SET #n0 = :v0 "
      "REMOVE #n1\",\"ConditionExpression\":\"attribute_exists(#n2)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"pts\",\"#n1\":\"r\",\"#n2\":"
      "\"PK\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"13\"}}}");
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void native_key_conditions(void **state) {
  (void)state;
  ddbst_model *m = native_model();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int top = ddbst_model_pattern(m, "top");
  int any = ddbst_model_pattern(m, "byPtsThenAt");
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "g", "g1");
  set(it, "r", "eu");
  set(it, "pts", "100");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_LTE;
  q.attribute = ddbst_model_attribute(m, 0, "at");
  q.value = "2026-03";
  q.value_len = 7;
  /* top declares its range on pts: a condition on at is refused whole */
  assert_int_equal(ddbst_buf_append(b, "stale", 5), 0);
  assert_int_equal(ddbst_query_request(it, top, &q, b, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "facet at");
  assert_string_equal(err.message,
                      "pattern top takes a range on pts only, not on at; a "
                      "pattern with no \"range\" takes a condition on any "
                      "sort attribute of index Board (pts, at)");
  assert_int_equal(ddbst_buf_len(b), 0);
  /* a pattern with no range takes it, after pts by equality */
  assert_int_equal(ddbst_query_request(it, any, &q, b, &err), DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"IndexName\":\"Board\",\"KeyConditionExpression\":"
      "\"#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2 AND #n3 <= :v3\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"g\",\"#n1\":\"r\",\"#n2\":"
      "\"pts\",\"#n3\":\"at\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"g1\"},\":v1\":{\"S\":\"eu\"},\":v2\":{\"N\":\"100\"},\":v3\":{\"S\":"
      "\"2026-03~\"}},\"ScanIndexForward\":false}");
  /* a bound the attribute refuses */
  ddbst_buf_reset(b);
  q.attribute = ddbst_model_attribute(m, 0, "pts");
  q.condition = DDBST_SK_GT;
  q.value = "1x";
  q.value_len = 2;
  assert_int_equal(ddbst_query_request(it, top, &q, b, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Score.pts");
  assert_int_equal(ddbst_buf_len(b), 0);
  /* a pair with an open end: no key condition says it */
  q.condition = DDBST_SK_GT_LT;
  q.value = "1";
  q.value_len = 1;
  q.value2 = "9";
  q.value2_len = 1;
  assert_int_equal(ddbst_query_request(it, top, &q, b, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "pts is a sort attribute of multi-attribute index "
                      "Board: a pair of bounds is BETWEEN there (gte and "
                      "lte); an open end (gt, lt) has no key condition");
  assert_int_equal(ddbst_buf_len(b), 0);
  q.condition = DDBST_SK_GT;
  /* a condition on an attribute that is no sort attribute */
  q.attribute = ddbst_model_attribute(m, 0, "p");
  assert_int_equal(ddbst_query_request(it, top, &q, b, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the condition's attribute is not a sort attribute of "
                      "index Board ({pts}, {at})");
  assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* ---- table requests ---- */

static void table_requests(void **state) {
  (void)state;
  ddbst_model *m = native_model();
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  /* each builder replaces what the buffer held: no reset between them */
  assert_int_equal(ddbst_buf_append(b, "stale", 5), 0);
  assert_int_equal(ddbst_describe_table_request(m, b, &err),
                   DDBST_OP_DESCRIBE_TABLE);
  assert_string_equal(ddbst_buf_data(b), "{\"TableName\":\"app\"}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_DESCRIBE_TABLE),
                      "DescribeTable");
  assert_int_equal(ddbst_delete_table_request(m, b, &err),
                   DDBST_OP_DELETE_TABLE);
  assert_string_equal(ddbst_buf_data(b), "{\"TableName\":\"app\"}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_DELETE_TABLE),
                      "DeleteTable");
  assert_int_equal(ddbst_update_table_add_index_request(m, "Board", b, &err),
                   DDBST_OP_UPDATE_TABLE);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"AttributeDefinitions\":["
      "{\"AttributeName\":\"g\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"r\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"pts\",\"AttributeType\":\"N\"},"
      "{\"AttributeName\":\"at\",\"AttributeType\":\"S\"}],"
      "\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"Board\","
      "\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"r\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"pts\",\"KeyType\":\"RANGE\"},"
      "{\"AttributeName\":\"at\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}}}]}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_UPDATE_TABLE),
                      "UpdateTable");
  assert_int_equal(ddbst_update_table_add_index_request(m, "Nope", b, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.message, "the model declares no index named Nope");
  assert_int_equal(ddbst_buf_len(b), 0); /* the body before it is gone too */
  assert_int_equal(ddbst_update_table_remove_index_request(m, "Board", b, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the model still declares Board: remove it from the "
                      "model first, so that no write keeps its keys");
  assert_int_equal(ddbst_update_table_remove_index_request(m, "x y", b, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(b), 0);
  assert_int_equal(ddbst_update_table_remove_index_request(m, "OldGSI", b, &err),
                   DDBST_OP_UPDATE_TABLE);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"app\",\"GlobalSecondaryIndexUpdates\":"
                      "[{\"Delete\":{\"IndexName\":\"OldGSI\"}}]}");
  ddbst_model_free(m);
  /* a local index is the table's from its creation */
  m = good();
  ddbst_buf_reset(b);
  assert_int_equal(ddbst_update_table_add_index_request(m, "LSI1", b, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "LSI1 is a local secondary index: DynamoDB creates those "
                      "with the table only (a new table, CreateTable)");
  assert_int_equal(ddbst_update_table_add_index_request(m, "GSI1", b, &err),
                   DDBST_OP_UPDATE_TABLE);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"app\",\"AttributeDefinitions\":["
      "{\"AttributeName\":\"G1PK\",\"AttributeType\":\"S\"},"
      "{\"AttributeName\":\"G1SK\",\"AttributeType\":\"S\"}],"
      "\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"GSI1\","
      "\"KeySchema\":[{\"AttributeName\":\"G1PK\",\"KeyType\":\"HASH\"},"
      "{\"AttributeName\":\"G1SK\",\"KeyType\":\"RANGE\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}}}]}");
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* ---- inverted indexes ---- */

static void inverted_index_holds_every_entity(void **state) {
  (void)state;
  /* keyed on the table's keys alone: every entity declares it */
  refused("{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "
          "'sortKey': 'SK', 'indexes': {'INV': {'partitionKey': 'SK', "
          "'sortKey': 'PK'}}}, 'entities': {'M': {'attributes': {'o': "
          "'string', 'u': 'string'}, 'key': {'pk': 'O#{o}', 'sk': 'U#{u}'}, "
          "'indexes': {'INV': {}}}, 'U': {'attributes': {'u': 'string'}, "
          "'key': {'pk': 'U#{u}', 'sk': 'U#{u}'}}}}",
          "entities.U",
          "every U item is in INV, which is keyed on the table's own keys: "
          "declare \"INV\": {} under U's indexes");
  /* a sort key of its own: a sparse index like any other */
  ddbst_model *m;
  ddbst_error err;
  assert_int_equal(
      load_q("{'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK', "
             "'sortKey': 'SK', 'indexes': {'BYS': {'partitionKey': 'SK', "
             "'sortKey': 'G1SK'}}}, 'entities': {'M': {'attributes': {'o': "
             "'string', 'u': 'string', 'at': 'timestamp'}, 'key': {'pk': "
             "'O#{o}', 'sk': 'U#{u}'}, 'indexes': {'BYS': {'sk': '{at}'}}}, "
             "'U': {'attributes': {'u': 'string'}, 'key': {'pk': 'U#{u}', "
             "'sk': 'U#{u}'}}}}",
             &m, &err),
      0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "o", "o1");
  set(it, "u", "u1");
  set(it, "at", "2026-01-02T03:04:05Z");
  assert_int_equal(ddbst_item_keys_json(it, b, &err), 0);
  /* SK once; the index's own sort key */
  assert_string_equal(ddbst_buf_data(b),
                      "{\"PK\":\"O#o1\",\"SK\":\"U#u1\",\"G1SK\":\"2026-01-"
                      "02T03:04:05Z\"}");
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loader_refuses_what_dynamodb_refuses),
      cmocka_unit_test(keys_write_the_partition_key_once),
      cmocka_unit_test(create_table_declares_local_indexes),
      cmocka_unit_test(updates_never_touch_the_table_partition_key),
      cmocka_unit_test(consistent_read_on_local_indexes_only),
      cmocka_unit_test(native_keys_refused_as_dynamodb_refuses),
      cmocka_unit_test(native_keys_write_nothing_and_declare_types),
      cmocka_unit_test(native_key_conditions),
      cmocka_unit_test(table_requests),
      cmocka_unit_test(inverted_index_holds_every_entity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
