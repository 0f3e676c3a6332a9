/* The JSON entry (src/ffi/): exact answers for every op, errors with the
 * typed API's codes, paths and messages, and answers that are never half
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_session.h"

#include "ffi/ffi.h"
#include "item/item.h"

/* `text` as a JSON string literal (quotes included), malloc'd. */
static char *quoted(const char *text) {
  size_t n = strlen(text);
  char *q = malloc(n * 6 + 3), *o = q;
  *o++ = '"';
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\') {
      *o++ = '\\';
      *o++ = *p;
    } else if ((unsigned char)*p < 0x20) {
      o += sprintf(o, "\\u%04x", (unsigned char)*p);
    } else {
      *o++ = *p;
    }
  }
  *o++ = '"';
  *o = 0;
  return q;
}

/* prefix + `rel`'s text as a JSON string + suffix. */
static char *with_file(const char *prefix, const char *rel,
                       const char *suffix) {
  size_t n;
  char *text = read_source(rel, &n), *q = quoted(text);
  char *r = malloc(strlen(prefix) + strlen(q) + strlen(suffix) + 1);
  sprintf(r, "%s%s%s", prefix, q, suffix);
  free(q);
  free(text);
  return r;
}

/* ---- sessions ---- */

static void open_errors(void **state) {
  (void)state;
  char *error = NULL;
  assert_null(open_config("{}", &error));
  assert_string_equal(error,
                      "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
                      "\"model\",\"message\":\"give the model as \\\"model\\\""
                      " (its JSON text) or as \\\"modelFile\\\" (a path), one "
                      "of the two\"}}");
  ddbst_json_free(error);

  assert_null(open_config("{\"modelFile\":\"x.json\",\"tabel\":\"t\"}", &error));
  assert_string_equal(error,
                      "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
                      "\"tabel\",\"message\":\"unknown field for a "
                      "session; did you mean table?\"}}");
  ddbst_json_free(error);

  assert_null(open_config("{\"modelFile\":", &error));
  assert_non_null(strstr(error, "\"name\":\"ESYNTAX\""));
  assert_non_null(strstr(error, "\"line\":1,"));
  ddbst_json_free(error);

  assert_null(open_config("{\"modelFile\":\"" DDBST_SOURCE_DIR
                          "/examples/saas/model.json\",\"cursorKeys\":\"abc\"}",
                          &error));
  assert_non_null(strstr(error, "\"name\":\"EVALUE\",\"path\":\"cursorKeys\","));
  ddbst_json_free(error);

  /* a cursor age needs keys to seal with */
  assert_null(open_config("{\"modelFile\":\"" DDBST_SOURCE_DIR
                          "/examples/saas/model.json\",\"cursorMaxAge\":60}",
                          &error));
  assert_non_null(strstr(error, "\"path\":\"cursorMaxAge\""));
  ddbst_json_free(error);

  /* NULL for the error is allowed */
  assert_null(open_config("[]", NULL));
}

static void open_reports_every_model_error(void **state) {
  (void)state;
  char *error = NULL;
  assert_null(open_config(
      "{\"model\":\"{\\\"ddbst\\\":1,\\\"table\\\":{\\\"name\\\":\\\"t\\\","
      "\\\"sortkey\\\":1}}\"}",
      &error));
  /* the first problem, then every problem */
  assert_non_null(strstr(error, "{\"error\":{\"code\":-4,\"name\":\"EMODEL\","
                                "\"path\":\"table.sortkey\""));
  const char *list = strstr(error, "\"errors\":[");
  assert_non_null(list);
  assert_non_null(strstr(list, "\"path\":\"table.sortkey\""));
  assert_non_null(strstr(list, "\"path\":\"table.partitionKey\""));
  assert_non_null(strstr(list, "\"path\":\"entities\""));
  ddbst_json_free(error);
}

static void table_override(void **state) {
  (void)state;
  ddbst_json *s = open_config("{\"modelFile\":\"" DDBST_SOURCE_DIR
                              "/examples/saas/model.json\",\"table\":\"prod-t\"}",
                              NULL);
  assert_non_null(s);
  const char req[] = "{\"op\":\"check\"}";
  char *a = ddbst_json_call(s, req, sizeof req - 1, NULL);
  assert_string_equal(
      a, "{\"ok\":true,\"table\":\"prod-t\",\"entities\":4,\"patterns\":7}");
  ddbst_json_free(a);
  /* the model seals cursors and this session has no keys to open one */
  const char q[] = "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":"
                   "{\"orgId\":\"1\"},\"cursor\":\"AAAA\"}";
  a = ddbst_json_call(s, q, sizeof q - 1, NULL);
  assert_non_null(strstr(a, "{\"error\":{\"code\":-1,\"name\":\"EINVAL\","
                            "\"path\":\"cursorKeys\""));
  ddbst_json_free(a);
  ddbst_json_close(s);
}

static void no_session(void **state) {
  (void)state;
  char *a = ddbst_json_call(NULL, "{}", 2, NULL);
  assert_non_null(strstr(a, "\"path\":\"session\""));
  ddbst_json_free(a); /* static: accepted */
  ddbst_json_free(NULL);
  ddbst_json_close(NULL);
}

/* ---- requests that are not right ---- */

static void bad_requests(void **state) {
  (void)state;
  expect_prefix("{\"op\":", "{\"error\":{\"code\":-3,\"name\":\"ESYNTAX\"");
  expect_error("[1]", DDBST_EINVAL, "EINVAL", "", "expected a request object");
  expect_error("{}", DDBST_EMISSING, "EMISSING", "op", "op is required");
  expect_error("{\"op\":7}", DDBST_EINVAL, "EINVAL", "op", "expected a string");
  expect_error("{\"op\":\"scna\"}", DDBST_EINVAL, "EINVAL", "op",
               "unknown op scna (docs/ffi.md lists them); did you mean scan?");
  expect_error("{\"op\":\"get\",\"entity\":\"User\",\"limit\":3}",
               DDBST_EINVAL, "EINVAL", "limit", "unknown field for get");
  expect_error("{\"op\":\"get\",\"entity\":\"Usr\"}", DDBST_ENOTFOUND,
               "ENOTFOUND", "entity",
               "the model has no entity Usr; did you mean User?");
  expect_error("{\"op\":\"get\",\"entity\":\"User\",\"values\":[]}",
               DDBST_EINVAL, "EINVAL", "values",
               "expected an object of attributes");
}

/* ---- keys and values ---- */

static void keys(void **state) {
  (void)state;
  expect("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":\"123\","
         "\"userId\":\"9\",\"email\":\"Ann@Example.com\",\"role\":\"admin\","
         "\"name\":\"Ann\"}}",
         "{\"keys\":{\"PK\":\"ORG#123\",\"SK\":\"USER#9\",\"GSI1PK\":"
         "\"EMAIL#ann@example.com\",\"_type\":\"User\"},\"item\":{\"orgId\":"
         "\"123\",\"userId\":\"9\",\"email\":\"Ann@Example.com\",\"role\":"
         "\"admin\",\"name\":\"Ann\"}}");
  /* defaults filled at "now"; the timestamp comes back canonical */
  expect("{\"op\":\"keys\",\"entity\":\"Project\",\"now\":" NOW
         ",\"values\":{\"orgId\":\"1\",\"projectId\":\"p1\",\"createdAt\":"
         "\"2026-03-14T10:00:00+01:00\",\"name\":\"Web\",\"status\":"
         "\"active\"}}",
         "{\"keys\":{\"PK\":\"ORG#1\",\"SK\":\"PROJECT#2026-03-14T09:00:00Z#p1\","
         "\"GSI2PK\":\"STATUS#active\",\"GSI2SK\":\"2026-03-14T09:00:00Z\","
         "\"_type\":\"Project\"},\"item\":{\"orgId\":\"1\",\"projectId\":\"p1\","
         "\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":\"Web\","
         "\"status\":\"active\"}}");
}

static void value_errors(void **state) {
  (void)state;
  /* the typed API's own error, path and message */
  expect_error("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":"
               "\"1#USER#admin\",\"userId\":\"9\"}}",
               DDBST_EVALUE, "EVALUE", "facet orgId",
               "User.orgId contains the key delimiter '#', which would forge "
               "another key");
  expect_error("{\"op\":\"keys\",\"entity\":\"Project\",\"values\":{"
               "\"createdAt\":\"yesterday\"}}",
               DDBST_EVALUE, "EVALUE", "Project.createdAt",
               "createdAt: not an ISO-8601 timestamp: expected "
               "YYYY-MM-DDTHH:MM:SS");
  /* a JSON number is not quietly a string, nor a boolean */
  expect_error("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":1}}",
               DDBST_EVALUE, "EVALUE", "values.orgId",
               "orgId is of type string: give it as a JSON string");
  expect_error("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"name\":true}}",
               DDBST_EVALUE, "EVALUE", "values.name",
               "name is of type string, not boolean");
  expect_error("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"nme\":\"x\"}}",
               DDBST_ENOTFOUND, "ENOTFOUND", "values.nme",
               "User has no attribute nme; did you mean name?");
  /* nothing half-done: the error alone */
  expect_error("{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":"
               "\"1\"}}",
               DDBST_EMISSING, "EMISSING", "facet userId",
               "User.userId is needed for SK = USER#{userId}");
}

static void typed_values(void **state) {
  (void)state;
  /* numbers, maps and lists go in as JSON and come back as JSON */
  expect("{\"op\":\"keys\",\"entity\":\"Event\",\"values\":{\"projectId\":"
         "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
         "\"01j0000000000000000000000a\",\"type\":\"deploy\",\"expiresAt\":"
         "1800000000,\"payload\":{\"n\":[1,\"a\",null],\"ok\":true}}}",
         "{\"keys\":{\"PK\":\"PROJECT#p1\",\"SK\":\"EVENT#2026-03-14T09:00:00Z#"
         "01J0000000000000000000000A\",\"_type\":\"Event\"},\"item\":{"
         "\"projectId\":\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
         "\"01J0000000000000000000000A\",\"type\":\"deploy\",\"payload\":{"
         "\"n\":[1,\"a\",null],\"ok\":true},\"expiresAt\":1800000000}}");
}

/* A user's map whose member is named "M" and holds an array (the shape of
 * {"M":[...]} in DynamoDB JSON) is a value like any other: ddbst writes it
 * as {"M":{"M":{"L":[...]}}} and reads it back whole. DynamoDB JSON a user
 * gives (a page, a stream record) is checked by the response parser and
 * never reaches the item answer's writer. */
static void a_map_named_like_dynamodb_json(void **state) {
  (void)state;
  expect("{\"op\":\"keys\",\"entity\":\"Event\",\"values\":{\"projectId\":"
         "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
         "\"01j0000000000000000000000a\",\"payload\":{\"M\":[1,{\"L\":{}}],"
         "\"SS\":\"x\"}}}",
         "{\"keys\":{\"PK\":\"PROJECT#p1\",\"SK\":\"EVENT#2026-03-14T09:00:00Z#"
         "01J0000000000000000000000A\",\"_type\":\"Event\"},\"item\":{"
         "\"projectId\":\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
         "\"01J0000000000000000000000A\",\"payload\":{\"M\":[1,{\"L\":{}}],"
         "\"SS\":\"x\"}}}");
}

/* The item answer's writer of lists, maps and sets (answer.c) reads the
 * DynamoDB JSON the item holds, which ddbst wrote; one of another shape is
 * DDBST_EINVAL at the attribute, not a crash ({"M":[...]} read its
 * elements' member names, NULL). */
static void item_answer_refuses_a_value_ddbst_did_not_write(void **state) {
  (void)state;
  static const char *const bad[] = {
      "{\"M\":[{\"S\":\"x\"}]}",  "{\"L\":{\"a\":{\"S\":\"x\"}}}",
      "{\"M\":{\"a\":[]}}",       "{\"M\":{\"a\":{\"N\":[1]}}}",
      "{\"L\":[{\"S\":{}}]}",     "{\"SS\":\"x\"}",
      "{\"NS\":[1]}",             "{\"BOOL\":\"true\"}",
      "{\"X\":[]}",               "{\"M\":{},\"L\":[]}",
      "{}",                       "[]",
  };
  ddbst_model *m = load_example("examples/saas/model.json");
  int event = ddbst_model_entity(m, "Event");
  int payload = ddbst_model_attribute(m, event, "payload");
  ddbst_allocator alloc;
  ddbst__alloc_init(&alloc, NULL);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    call c;
    memset(&c, 0, sizeof c);
    c.alloc = &alloc;
    c.m = m;
    ddbst__arena_init(&c.ar, &alloc);
    ddbst__buf_init(&c.out, &alloc);
    ddbst__buf_init(&c.tmp, &alloc);
    ddbst__jw_init(&c.w, &c.out);
    ddbst_item *it = ddbst_item_new(m, event);
    assert_non_null(it);
    assert_int_equal(ddbst__item_store(it, payload, bad[i], strlen(bad[i])),
                     0);
    ddbst__ffi_put_values(&c, it);
    if (c.w.rc != DDBST_EINVAL || c.err.code != DDBST_EINVAL)
      fail_msg("%s: %d %d", bad[i], c.w.rc, (int)c.err.code);
    assert_string_equal(c.err.path, "payload");
    assert_string_equal(c.err.message,
                        "not DynamoDB JSON of the shape ddbst writes (a bug "
                        "in ddbst)");
    ddbst_item_free(it);
    ddbst__buf_release(&c.out);
    ddbst__buf_release(&c.tmp);
    ddbst__jtree_kept_release(&c.tree, &alloc);
    ddbst__arena_free(&c.ar);
  }
  ddbst_model_free(m);
}

static void parse(void **state) {
  (void)state;
  expect("{\"op\":\"parse\",\"pk\":\"ORG#1\",\"sk\":\"USER#9\"}",
         "{\"entity\":\"User\",\"values\":{\"orgId\":\"1\",\"userId\":\"9\"}}");
  expect("{\"op\":\"parse\",\"index\":\"GSI1\",\"pk\":\"EMAIL#a@b.c\"}",
         "{\"entity\":\"User\",\"values\":{\"email\":\"a@b.c\"}}");
  expect_prefix("{\"op\":\"parse\",\"pk\":\"NOPE#1\",\"sk\":\"X\"}",
                "{\"error\":{\"code\":-7,\"name\":\"ENOTFOUND\"");
  expect_error("{\"op\":\"parse\"}", DDBST_EMISSING, "EMISSING", "pk",
               "pk is required");
}

static void item_size(void **state) {
  (void)state;
  expect("{\"op\":\"itemSize\",\"entity\":\"User\",\"values\":{\"orgId\":"
         "\"1\",\"userId\":\"9\",\"email\":\"a@b.c\",\"role\":\"admin\","
         "\"name\":\"Ann\"}}",
         "{\"bytes\":80,\"limit\":409600}");
}

/* ---- requests ---- */

static void get(void **state) {
  (void)state;
  expect("{\"op\":\"get\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
         "\"userId\":\"9\"},\"consistent\":true,\"project\":[\"name\"]}",
         "{\"operation\":\"GetItem\",\"target\":\"DynamoDB_20120810.GetItem\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":"
         "\"ORG#1\"},\"SK\":{\"S\":\"USER#9\"}},"
         "\"ProjectionExpression\":\"#n0, #n1, #n2, #n3\","
         "\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":\"SK\","
         "\"#n2\":\"_type\",\"#n3\":\"name\"},\"ConsistentRead\":true}}");
}

static void put_and_create(void **state) {
  (void)state;
  expect("{\"op\":\"put\",\"entity\":\"Organisation\",\"now\":" NOW
         ",\"values\":{\"orgId\":\"1\",\"name\":\"Acme\",\"plan\":\"pro\"}}",
         "{\"operation\":\"PutItem\",\"target\":\"DynamoDB_20120810.PutItem\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":"
         "\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},\"_type\":{\"S\":"
         "\"Organisation\"},\"orgId\":{\"S\":\"1\"},\"name\":{\"S\":\"Acme\"},"
         "\"plan\":{\"S\":\"pro\"},\"createdAt\":{\"S\":"
         "\"2026-03-14T09:00:00Z\"}}},\"item\":{\"orgId\":\"1\",\"name\":"
         "\"Acme\",\"plan\":\"pro\",\"createdAt\":\"2026-03-14T09:00:00Z\"}}");
  /* a User has a unique email: its create is a transaction with a guard */
  expect_prefix("{\"op\":\"create\",\"entity\":\"User\",\"values\":{\"orgId\":"
                "\"1\",\"userId\":\"9\",\"email\":\"A@b.c\",\"role\":\"admin\","
                "\"name\":\"Ann\"}}",
                "{\"operation\":\"TransactWriteItems\",\"target\":"
                "\"DynamoDB_20120810.TransactWriteItems\",\"body\":{"
                "\"TransactItems\":[{\"Put\":");
  assert_non_null(strstr(answer, "\"_type\":{\"S\":\"User.email\"}"));
  /* a plain put of it could not keep the guard true */
  expect_prefix("{\"op\":\"put\",\"entity\":\"User\",\"values\":{\"orgId\":"
                "\"1\",\"userId\":\"9\",\"email\":\"A@b.c\",\"role\":\"admin\","
                "\"name\":\"Ann\"}}",
                "{\"error\":{\"code\":-1,\"name\":\"EINVAL\"");
}

static void update(void **state) {
  (void)state;
  expect("{\"op\":\"update\",\"entity\":\"Organisation\",\"now\":" NOW
         ",\"values\":{\"orgId\":\"1\"},\"set\":{\"plan\":\"free\"},"
         "\"remove\":[\"name\"]}",
         "{\"operation\":\"UpdateItem\",\"target\":"
         "\"DynamoDB_20120810.UpdateItem\",\"body\":{\"TableName\":"
         "\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
         "\"ORG#1\"}},\"UpdateExpression\":\"SET #n0 = :v0 REMOVE #n1\","
         "\"ConditionExpression\":\"attribute_exists(#n2)\","
         "\"ExpressionAttributeNames\":{\"#n0\":\"plan\",\"#n1\":\"name\","
         "\"#n2\":\"PK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
         "\"free\"}}}}");
  expect_error("{\"op\":\"update\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"1\"},\"expectVersion\":2}",
               DDBST_EINVAL, "EINVAL", "expectVersion",
               "Organisation has no version attribute");
}

static void delete(void **state) {
  (void)state;
  expect("{\"op\":\"delete\",\"entity\":\"Organisation\",\"values\":{"
         "\"orgId\":\"1\"},\"ifExists\":true}",
         "{\"operation\":\"DeleteItem\",\"target\":"
         "\"DynamoDB_20120810.DeleteItem\",\"body\":{\"TableName\":"
         "\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
         "\"ORG#1\"}},\"ConditionExpression\":\"attribute_exists(#n0)\","
         "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}}");

  /* what the write answers with */
  expect("{\"op\":\"delete\",\"entity\":\"Organisation\",\"values\":{"
         "\"orgId\":\"1\"},\"return\":\"ALL_OLD\",\"returnOnFailure\":true}",
         "{\"operation\":\"DeleteItem\",\"target\":"
         "\"DynamoDB_20120810.DeleteItem\",\"body\":{\"TableName\":"
         "\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
         "\"ORG#1\"}},\"ReturnValues\":\"ALL_OLD\","
         "\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}}");
  expect_error("{\"op\":\"delete\",\"entity\":\"Organisation\",\"values\":"
               "{\"orgId\":\"1\"},\"return\":\"ALL\"}",
               DDBST_EINVAL, "EINVAL", "return",
               "expected NONE, ALL_OLD, UPDATED_OLD, ALL_NEW or UPDATED_NEW");
  expect_error("{\"op\":\"delete\",\"entity\":\"Organisation\",\"values\":"
               "{\"orgId\":\"1\"},\"return\":\"ALL_NEW\"}",
               DDBST_EINVAL, "EINVAL", "Organisation",
               "a delete returns the item as it was (return ALL_OLD, "
               "--return old or DDBST_RETURN_ALL_OLD) "
               "or nothing");
  expect_prefix("{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{"
                "\"orgId\":\"1\"},\"select\":\"COUNT\"}",
                "{\"operation\":\"Query\"");
  assert_non_null(strstr(answer, ",\"Limit\":25,\"Select\":\"COUNT\"}}"));
  expect_error("{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{"
               "\"orgId\":\"1\"},\"select\":\"count\"}",
               DDBST_EINVAL, "EINVAL", "select",
               "expected COUNT (the number of items, not the items) or ALL");
}

static void query(void **state) {
  (void)state;
  expect("{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{"
         "\"orgId\":\"1\"},\"limit\":2,\"condition\":{\"createdAt\":{"
         "\"begins\":\"2026-03\"}}}",
         "{\"operation\":\"Query\",\"target\":\"DynamoDB_20120810.Query\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":"
         "\"#n0 = :v0 AND begins_with(#n1, :v1)\",\"ExpressionAttributeNames\":"
         "{\"#n0\":\"PK\",\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{"
         "\":v0\":{\"S\":\"ORG#1\"},\":v1\":{\"S\":\"PROJECT#2026-03\"}},"
         "\"ScanIndexForward\":false,\"Limit\":2}}");
  expect_prefix("{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{"
                "\"orgId\":\"1\"},\"condition\":{\"createdAt\":{\"between\":["
                "\"2026-01\",\"2026-02\"]}}}",
                "{\"operation\":\"Query\"");
  assert_non_null(strstr(answer, "BETWEEN"));
  /* a pair of bounds: a lower and an upper member, in either order */
  expect("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
         "\"projectId\":\"p\"},\"condition\":{\"ts\":{\"lt\":\"2026-05\","
         "\"gt\":\"2026-03\"}}}",
         "{\"operation\":\"Query\",\"target\":\"DynamoDB_20120810.Query\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":"
         "\"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2\",\"ExpressionAttributeNames\":"
         "{\"#n0\":\"PK\",\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{"
         "\":v0\":{\"S\":\"PROJECT#p\"},\":v1\":{\"S\":\"EVENT#2026-04\"},"
         "\":v2\":{\"S\":\"EVENT#2026-05\"}},\"Limit\":100}}");
  expect("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
         "\"projectId\":\"p\"},\"condition\":{\"ts\":{\"gte\":\"2026-03\","
         "\"lte\":\"2026-04\"}}}",
         "{\"operation\":\"Query\",\"target\":\"DynamoDB_20120810.Query\","
         "\"body\":{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":"
         "\"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2\",\"ExpressionAttributeNames\":"
         "{\"#n0\":\"PK\",\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{"
         "\":v0\":{\"S\":\"PROJECT#p\"},\":v1\":{\"S\":\"EVENT#2026-03\"},"
         "\":v2\":{\"S\":\"EVENT#2026-05\"}},\"Limit\":100}}");
  expect_error("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
               "\"projectId\":\"p\"},\"condition\":{\"ts\":{\"gt\":\"2026\","
               "\"gte\":\"2027\"}}}",
               DDBST_EINVAL, "EINVAL", "condition.ts",
               "two bounds are a lower one (gt or gte) and an upper one (lt "
               "or lte), not gt and gte");
  expect_error("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
               "\"projectId\":\"p\"},\"condition\":{\"ts\":{\"gt\":\"2026\","
               "\"lt\":[\"2027\"]}}}",
               DDBST_EINVAL, "EINVAL", "condition.ts",
               "expected a value as a string");
  expect_error("{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{"
               "\"orgId\":\"1\"},\"condition\":{\"createdAt\":{\"near\":"
               "\"2026\"}}}",
               DDBST_EINVAL, "EINVAL", "condition.createdAt.near",
               "expected begins, gt, gte, lt, lte or between");
  expect_error("{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{"
               "\"orgId\":\"1\"},\"limit\":0}",
               DDBST_EINVAL, "EINVAL", "limit",
               "expected a whole number from 1 to 4294967295");
  expect_error("{\"op\":\"query\",\"pattern\":\"listProject\"}",
               DDBST_ENOTFOUND, "ENOTFOUND", "pattern",
               "the model has no pattern listProject; did you mean "
               "listProjects?");
  expect_error("{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{}}",
               DDBST_EMISSING, "EMISSING", "facet orgId",
               "Project.orgId is needed for PK = ORG#{orgId}");
}

static void batches(void **state) {
  (void)state;
  expect("{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":"
         "\"Organisation\",\"values\":{\"orgId\":\"1\"}},{\"op\":\"get\","
         "\"entity\":\"User\",\"values\":{\"orgId\":\"1\",\"userId\":\"2\"}}]}",
         "{\"requests\":[{\"operation\":\"BatchGetItem\",\"target\":"
         "\"DynamoDB_20120810.BatchGetItem\",\"body\":{\"RequestItems\":{"
         "\"saas-api-dev\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":"
         "\"ORG#1\"}},{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}]}}}}"
         "]}");
  expect_prefix("{\"op\":\"batchWrite\",\"now\":" NOW ",\"items\":[{\"op\":"
                "\"put\",\"entity\":\"Organisation\",\"values\":{\"orgId\":"
                "\"1\",\"name\":\"A\",\"plan\":\"pro\"}},{\"op\":\"delete\","
                "\"entity\":\"Organisation\",\"values\":{\"orgId\":\"2\"}}]}",
                "{\"requests\":[{\"operation\":\"BatchWriteItem\",\"target\":"
                "\"DynamoDB_20120810.BatchWriteItem\",\"body\":{"
                "\"RequestItems\":{\"saas-api-dev\":[{\"PutRequest\":");
  expect_error("{\"op\":\"batchWrite\",\"items\":[{\"op\":\"get\",\"entity\":"
               "\"Organisation\",\"values\":{\"orgId\":\"1\"}}]}",
               DDBST_EINVAL, "EINVAL", "items[0].op",
               "batchWrite takes put and delete, not get");
  expect_error("{\"op\":\"batchGet\",\"items\":{}}", DDBST_EINVAL, "EINVAL",
               "items", "expected an array of operations");
  /* the item's own error, told which item */
  expect_error("{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":"
               "\"Organisation\",\"values\":{\"orgId\":\"1\"}},{\"op\":\"get\","
               "\"entity\":\"Organisation\",\"values\":{\"orgId\":\"a#b\"}}]}",
               DDBST_EVALUE, "EVALUE", "items[1].facet orgId",
               "Organisation.orgId contains the key delimiter '#', which "
               "would forge another key");
}

static void transact(void **state) {
  (void)state;
  expect("{\"op\":\"transact\",\"token\":\"t-1\",\"items\":[{\"op\":"
         "\"check\",\"entity\":\"Organisation\",\"values\":{\"orgId\":\"1\"}},"
         "{\"op\":\"delete\",\"entity\":\"Project\",\"values\":{\"orgId\":"
         "\"1\",\"projectId\":\"p1\",\"createdAt\":\"2026-03-14T09:00:00Z\"}}]}",
         "{\"operation\":\"TransactWriteItems\",\"target\":"
         "\"DynamoDB_20120810.TransactWriteItems\",\"body\":{\"TransactItems\":"
         "[{\"ConditionCheck\":{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":"
         "{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}},\"ConditionExpression\":"
         "\"attribute_exists(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":"
         "\"PK\"}}},{\"Delete\":{\"TableName\":\"saas-api-dev\",\"Key\":{"
         "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z"
         "#p1\"}}}}],\"ClientRequestToken\":\"t-1\"}}");
  /* every write and check asks for its item on a failed condition */
  expect_prefix("{\"op\":\"transact\",\"returnOnFailure\":true,\"items\":[{"
                "\"op\":\"check\",\"entity\":\"Organisation\",\"values\":{"
                "\"orgId\":\"1\"}},{\"op\":\"delete\",\"entity\":\"Project\","
                "\"values\":{\"orgId\":\"1\",\"projectId\":\"p1\","
                "\"createdAt\":\"2026-03-14T09:00:00Z\"}}]}",
                "{\"operation\":\"TransactWriteItems\"");
  assert_non_null(strstr(answer, "\"PK\"},\"ReturnValuesOnConditionCheckFailure\""
                                 ":\"ALL_OLD\"}},{\"Delete\""));
  assert_non_null(strstr(answer, "#p1\"}},\"ReturnValuesOnConditionCheck"
                                 "Failure\":\"ALL_OLD\"}}]"));
  expect_error("{\"op\":\"transact\",\"items\":[{\"op\":\"scan\",\"entity\":"
               "\"User\"}]}",
               DDBST_EINVAL, "EINVAL", "items[0].op",
               "op scan: not an item operation");
}

static void create_table_and_review(void **state) {
  (void)state;
  expect_prefix("{\"op\":\"createTable\"}",
                "{\"operation\":\"CreateTable\",\"target\":"
                "\"DynamoDB_20120810.CreateTable\",\"body\":{\"TableName\":"
                "\"saas-api-dev\",\"AttributeDefinitions\":");
  /* the other table requests */
  expect("{\"op\":\"describeTable\"}",
         "{\"operation\":\"DescribeTable\",\"target\":"
         "\"DynamoDB_20120810.DescribeTable\",\"body\":{\"TableName\":"
         "\"saas-api-dev\"}}");
  expect("{\"op\":\"deleteTable\"}",
         "{\"operation\":\"DeleteTable\",\"target\":"
         "\"DynamoDB_20120810.DeleteTable\",\"body\":{\"TableName\":"
         "\"saas-api-dev\"}}");
  expect("{\"op\":\"updateTable\",\"addIndex\":\"GSI1\"}",
         "{\"operation\":\"UpdateTable\",\"target\":"
         "\"DynamoDB_20120810.UpdateTable\",\"body\":{\"TableName\":"
         "\"saas-api-dev\",\"AttributeDefinitions\":[{\"AttributeName\":"
         "\"GSI1PK\",\"AttributeType\":\"S\"}],\"GlobalSecondaryIndexUpdates"
         "\":[{\"Create\":{\"IndexName\":\"GSI1\",\"KeySchema\":[{"
         "\"AttributeName\":\"GSI1PK\",\"KeyType\":\"HASH\"}],\"Projection"
         "\":{\"ProjectionType\":\"KEYS_ONLY\"}}}]}}");
  expect("{\"op\":\"updateTable\",\"removeIndex\":\"GSI9\"}",
         "{\"operation\":\"UpdateTable\",\"target\":"
         "\"DynamoDB_20120810.UpdateTable\",\"body\":{\"TableName\":"
         "\"saas-api-dev\",\"GlobalSecondaryIndexUpdates\":[{\"Delete\":{"
         "\"IndexName\":\"GSI9\"}}]}}");
  expect_error("{\"op\":\"updateTable\"}", DDBST_EINVAL, "EINVAL", "",
               "updateTable takes addIndex or removeIndex, one of them");
  /* createTable's follow-ups: recovery on by default; the SaaS model
   * declares no contributor insights */
  expect("{\"op\":\"updateContinuousBackups\"}",
         "{\"operation\":\"UpdateContinuousBackups\",\"target\":"
         "\"DynamoDB_20120810.UpdateContinuousBackups\",\"body\":{"
         "\"TableName\":\"saas-api-dev\",\"PointInTimeRecoverySpecification"
         "\":{\"PointInTimeRecoveryEnabled\":true}}}");
  expect_error("{\"op\":\"updateContributorInsights\",\"index\":\"GSI1\"}",
               DDBST_ENOTFOUND, "ENOTFOUND", "index",
               "the model does not declare contributorInsights for index GSI1");
  expect("{\"op\":\"updateTimeToLive\"}",
         "{\"operation\":\"UpdateTimeToLive\",\"target\":"
         "\"DynamoDB_20120810.UpdateTimeToLive\",\"body\":{"
         "\"TableName\":\"saas-api-dev\",\"TimeToLiveSpecification\":{"
         "\"AttributeName\":\"expiresAt\",\"Enabled\":true}}}");
  expect_error("{\"op\":\"updateTimeToLive\",\"disable\":\"expiresAt\"}",
               DDBST_EINVAL, "EINVAL", "disable",
               "the model still declares expiresAt as its ttlAttribute: "
               "remove it from the model first, so that no write keeps "
               "setting it");
  expect_error("{\"op\":\"updateTimeToLive\",\"disable\":7}",
               DDBST_EINVAL, "EINVAL", "disable", "expected a string");
  expect_error("{\"op\":\"updateContributorInsights\",\"idx\":\"GSI1\"}",
               DDBST_EINVAL, "EINVAL", "idx",
               "unknown field for updateContributorInsights");
  expect("{\"op\":\"check\"}",
         "{\"ok\":true,\"table\":\"saas-api-dev\",\"entities\":4,"
         "\"patterns\":7}");
  expect("{\"op\":\"version\"}", "{\"version\":\"" DDBST_VERSION_STRING "\"}");
  expect_prefix("{\"op\":\"patterns\"}",
                "{\"patterns\":{\"getOrganisation\":{\"op\":\"get\"");
  expect_prefix("{\"op\":\"lint\"}",
                "{\"findings\":[{\"severity\":\"note\",\"rule\":"
                "\"few-partitions\",\"path\":\"entities.Project.indexes.GSI2."
                "pk\"");
  assert_non_null(strstr(answer, "],\"errors\":0}"));
  expect_prefix("{\"op\":\"doc\"}", "{\"markdown\":\"# ");
  expect_prefix("{\"op\":\"cloudformation\",\"streamFilters\":[\"User\"]}",
                "{\"template\":{");
  assert_non_null(strstr(answer, "filterPatterns"));
  /* the typed API's stream_filters[i] is this request's streamFilters[i] */
  expect_prefix("{\"op\":\"cloudformation\",\"streamFilters\":[\"User\","
                "\"Nobody\"]}",
                "{\"error\":{\"code\":-7,\"name\":\"ENOTFOUND\",\"path\":"
                "\"streamFilters[1]\"");
}

/* ---- answers from DynamoDB ---- */

static void page_and_cursor(void **state) {
  (void)state;
  char *req = with_file("{\"op\":\"page\",\"pattern\":\"listUsers\","
                        "\"values\":{\"orgId\":\"1\"},\"response\":",
                        "tests/data/responses/local-query-users-page1.json",
                        "}");
  expect_prefix(req, "{\"items\":[{\"entity\":\"User\",\"item\":{\"orgId\":"
                     "\"1\",\"userId\":\"2\",\"email\":\"Ann@X.com\",\"role\":"
                     "\"admin\",\"name\":\"Ann\"}}],\"count\":1,\"hasMore\":"
                     "true,\"cursor\":\"");
  free(req);
  /* the sealed cursor opens for the same query, and only for it */
  char cursor[512];
  const char *start = strstr(answer, "\"cursor\":\"") + 10;
  size_t n = (size_t)(strchr(start, '"') - start);
  assert_true(n < sizeof cursor);
  memcpy(cursor, start, n);
  cursor[n] = 0;
  char q[1024];
  snprintf(q, sizeof q,
           "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
           "\"1\"},\"cursor\":\"%s\"}",
           cursor);
  ask(q);
  assert_non_null(strstr(answer, "\"ExclusiveStartKey\":{\"PK\":{\"S\":"
                                 "\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}"));
  snprintf(q, sizeof q,
           "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
           "\"2\"},\"cursor\":\"%s\"}",
           cursor);
  expect_prefix(q, "{\"error\":{\"code\":-11,\"name\":\"ECURSOR\",\"path\":"
                   "\"cursor\"");
  cursor[n / 2] = cursor[n / 2] == 'A' ? 'B' : 'A';
  snprintf(q, sizeof q,
           "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
           "\"1\"},\"cursor\":\"%s\"}",
           cursor);
  expect_prefix(q, "{\"error\":{\"code\":-11,\"name\":\"ECURSOR\",\"path\":"
                   "\"cursor\"");
}

static void page_of_other_reads(void **state) {
  (void)state;
  char *req = with_file("{\"op\":\"page\",\"operation\":\"GetItem\","
                        "\"response\":",
                        "tests/data/responses/local-get-missing.json", "}");
  expect(req, "{\"items\":[],\"count\":0,\"hasMore\":false}");
  free(req);
  /* no pattern (null is none): no cursor, the page all the same */
  expect("{\"op\":\"page\",\"pattern\":null,\"response\":\"{\\\"Items\\\":"
         "[]}\"}",
         "{\"items\":[],\"count\":0,\"hasMore\":false}");
  expect_error("{\"op\":\"page\",\"operation\":\"Scan\",\"response\":\"{}\"}",
               DDBST_EINVAL, "EINVAL", "operation",
               "expected GetItem, Query, BatchGetItem, BatchWriteItem, "
               "TransactGetItems, PutItem, UpdateItem or DeleteItem");
  /* a write's ReturnValues, read as the entity written */
  expect("{\"op\":\"page\",\"operation\":\"UpdateItem\",\"entity\":"
         "\"Project\",\"response\":\"{\\\"Attributes\\\":{\\\"status\\\":"
         "{\\\"S\\\":\\\"archived\\\"}}}\"}",
         "{\"items\":[{\"entity\":\"Project\",\"item\":{\"status\":"
         "\"archived\"}}],\"count\":1,\"hasMore\":false}");
  expect("{\"op\":\"page\",\"operation\":\"DeleteItem\",\"response\":"
         "\"{}\"}",
         "{\"items\":[],\"count\":0,\"hasMore\":false}");
  expect_error("{\"op\":\"page\",\"operation\":\"Query\",\"entity\":"
               "\"Project\",\"response\":\"{}\"}",
               DDBST_EINVAL, "EINVAL", "entity",
               "the entity is for a write's answer (PutItem, UpdateItem, "
               "DeleteItem): the items of a read say what they are");
  /* a Select COUNT answer */
  expect("{\"op\":\"page\",\"operation\":\"Query\",\"response\":"
         "\"{\\\"Count\\\":3,\\\"ScannedCount\\\":7}\"}",
         "{\"items\":[],\"count\":0,\"hasMore\":false,\"matched\":3,"
         "\"scanned\":7}");
  expect_prefix("{\"op\":\"page\",\"response\":\"{\\\"Items\\\":[{\\\"PK\\\":"
                "{\\\"N\\\":\\\"x\\\"}}]}\"}",
                "{\"error\":{\"code\":-5,\"name\":\"EVALUE\",\"path\":"
                "\"Items[0].PK.N\"");
}

static void dynamodb_errors(void **state) {
  (void)state;
  char *req = with_file("{\"op\":\"page\",\"response\":",
                        "tests/data/responses/local-error-validation.json",
                        "}");
  expect_prefix(req, "{\"error\":{\"code\":-12,\"name\":\"EDYNAMODB\",\"path\":"
                     "\"__type\"");
  assert_non_null(strstr(answer, "},\"dynamodb\":{\"type\":"
                                 "\"ValidationException\",\"kind\":"
                                 "\"Validation\""));
  free(req);
  /* a refused create, in the model's words */
  req = with_file("{\"op\":\"explain\",\"request\":{\"op\":\"create\","
                  "\"entity\":\"User\",\"values\":{\"orgId\":\"1\",\"userId\":"
                  "\"3\",\"email\":\"ann@x.com\",\"role\":\"admin\",\"name\":"
                  "\"Ann\"}},\"response\":",
                  "tests/data/responses/local-error-cancel-unique.json", "}");
  ask(req);
  assert_non_null(strstr(answer, "\"retryable\":false,\"reasons\":[{\"code\":"
                                 "\"None\",\"kind\":\"None\",\"message\":\"\"},"
                                 "{\"code\":\"ConditionalCheckFailed\""));
  assert_non_null(strstr(answer, "\"kind\":\"unique\",\"explanation\":"
                                 "\"TransactItems[1]: unique constraint "
                                 "User.email: another User already has this "
                                 "email (EMAIL#ann@x.com)\\n\"}"));
  free(req);
  /* the same as a transaction: each failure listed */
  req = with_file("{\"op\":\"explain\",\"request\":{\"op\":\"transact\","
                  "\"items\":[{\"op\":\"create\",\"entity\":\"User\","
                  "\"values\":{\"orgId\":\"1\",\"userId\":\"3\",\"email\":"
                  "\"ann@x.com\",\"role\":\"admin\",\"name\":\"Ann\"}}]},"
                  "\"response\":",
                  "tests/data/responses/local-error-cancel-unique.json", "}");
  ask(req);
  assert_non_null(strstr(answer, "\"failures\":[{\"kind\":\"unique\",\"index\":"
                                 "1,\"entity\":\"User\",\"unique\":\"email\"}]}"));
  free(req);
  expect_prefix("{\"op\":\"explain\",\"response\":\"{}\"}",
                "{\"error\":{\"code\":-5,\"name\":\"EVALUE\"");
}

static void stream(void **state) {
  (void)state;
  char *req = with_file("{\"op\":\"stream\",\"failed\":[1],\"event\":",
                        "tests/data/responses/local-stream-event.json", "}");
  expect_prefix(req, "{\"records\":[{\"eventName\":\"INSERT\","
                     "\"sequenceNumber\":\"000000000000000000001\"");
  assert_non_null(strstr(answer, "\"failures\":{\"batchItemFailures\":[{"
                                 "\"itemIdentifier\":"));
  free(req);
  expect_error("{\"op\":\"stream\",\"event\":\"{\\\"Records\\\":[]}\","
               "\"failed\":[-1]}",
               DDBST_EINVAL, "EINVAL", "failed[0]", "expected a record index");
}

/* ---- what the review found ---- */

/* A session on a small model with a number, a document and a version. */
static ddbst_json *open_things(void) {
  static const char config[] =
      "{\"model\":\"{\\\"ddbst\\\":1,\\\"table\\\":{\\\"name\\\":\\\"tbl\\\","
      "\\\"partitionKey\\\":\\\"PK\\\"},\\\"entities\\\":{\\\"Thing\\\":{"
      "\\\"attributes\\\":{\\\"id\\\":\\\"string\\\",\\\"price\\\":"
      "\\\"number\\\",\\\"note\\\":\\\"string\\\",\\\"doc\\\":\\\"map\\\","
      "\\\"version\\\":\\\"integer\\\"},\\\"key\\\":{\\\"pk\\\":"
      "\\\"THING#{id}\\\"},\\\"version\\\":\\\"version\\\"}}}\"}";
  char *error = NULL;
  ddbst_json *s = open_config(config, &error);
  if (!s) fail_msg("open: %s", error);
  return s;
}

static const char *ask_on(ddbst_json *s, const char *request) {
  char *a = ddbst_json_call(s, request, strlen(request), NULL);
  snprintf(answer, sizeof answer, "%s", a);
  ddbst_json_free(a);
  return answer;
}

static void values_come_back_by_type(void **state) {
  (void)state;
  ddbst_json *s = open_things();
  /* a string that looks like DynamoDB JSON stays a string; a number with
   * leading zeros is a JSON number without them; a map is plain JSON */
  assert_string_equal(
      ask_on(s, "{\"op\":\"keys\",\"entity\":\"Thing\",\"values\":{\"id\":"
                "\"1\",\"price\":\"007.50\",\"note\":\"{\\\"S\\\":\\\"x\\\"}\","
                "\"doc\":{\"a\":[1,{\"b\":null}]}}}"),
      "{\"keys\":{\"PK\":\"THING#1\"},\"item\":{\"id\":"
      "\"1\",\"price\":7.50,\"note\":\"{\\\"S\\\":\\\"x\\\"}\",\"doc\":{\"a\":"
      "[1,{\"b\":null}]}}}");
  assert_string_equal(
      ask_on(s, "{\"op\":\"keys\",\"entity\":\"Thing\",\"values\":{\"id\":"
                "\"{oops\"}}"),
      "{\"keys\":{\"PK\":\"THING#{oops\"},\"item\":{"
      "\"id\":\"{oops\"}}");
  /* versions count from 1, and the next of INT64_MAX does not exist */
  assert_non_null(strstr(
      ask_on(s, "{\"op\":\"update\",\"entity\":\"Thing\",\"values\":{\"id\":"
                "\"1\"},\"set\":{\"note\":\"n\"},\"expectVersion\":"
                "9223372036854775807}"),
      "\"path\":\"expectVersion\",\"message\":\"expected a whole number from 1 "
      "to 9223372036854775806\""));
  assert_non_null(strstr(
      ask_on(s, "{\"op\":\"update\",\"entity\":\"Thing\",\"values\":{\"id\":"
                "\"1\"},\"expectVersion\":99999999999999999999}"),
      "\"path\":\"expectVersion\""));
  /* a ConditionCheck takes an expected version */
  assert_non_null(strstr(
      ask_on(s, "{\"op\":\"transact\",\"items\":[{\"op\":\"check\",\"entity\":"
                "\"Thing\",\"values\":{\"id\":\"1\"},\"expectVersion\":3},{"
                "\"op\":\"delete\",\"entity\":\"Thing\",\"values\":{\"id\":"
                "\"2\"}}]}"),
      "\"ConditionExpression\":\"attribute_exists(#n0) AND #n1 = :v0\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":\"version\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"}}"));
  ddbst_json_close(s);
}

static void fields_that_would_be_ignored(void **state) {
  (void)state;
  /* the batch's and the transaction's own fields, not their elements' */
  expect_error("{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":"
               "\"Organisation\",\"values\":{\"orgId\":\"1\"},\"consistent\":"
               "true}]}",
               DDBST_EINVAL, "EINVAL", "items[0].consistent",
               "unknown field for get");
  expect_error("{\"op\":\"transact\",\"items\":[{\"op\":\"put\",\"entity\":"
               "\"Organisation\",\"values\":{\"orgId\":\"1\"},\"now\":1}]}",
               DDBST_EINVAL, "EINVAL", "items[0].now", "unknown field for put");
  /* values only make a cursor, and a cursor needs its pattern */
  expect_error("{\"op\":\"page\",\"values\":{\"orgId\":\"1\"},\"response\":"
               "\"{\\\"Items\\\":[]}\"}",
               DDBST_EINVAL, "EINVAL", "values",
               "values make the next page's cursor, for a pattern: give "
               "\\\"pattern\\\" too");
}

static void answers_are_utf8(void **state) {
  (void)state;
  /* a path or message cut at its byte limit never ends mid-character */
  char req[2048] = "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"a";
  for (int i = 0; i < 300; i++) strcat(req, "\xc3\xa9"); /* é */
  strcat(req, "\":\"x\"}}");
  const char *a = ask(req);
  const unsigned char *u = (const unsigned char *)a;
  for (size_t i = 0; u[i]; i++) {
    size_t k = u[i] < 0x80 ? 0 : u[i] >= 0xF0 ? 3 : u[i] >= 0xE0 ? 2 : 1;
    if (u[i] >= 0x80 && u[i] < 0xC0) fail_msg("stray byte at %zu", i);
    for (size_t j = 1; j <= k; j++)
      if ((u[i + j] & 0xC0) != 0x80) fail_msg("cut character at %zu", i);
    i += k;
  }
  assert_non_null(strstr(a, "\"name\":\"ENOTFOUND\""));
}


/* Conditions, filters, update actions and their parameters, in the text
 * form (a string) or the JSON form (an object, an array of actions): the
 * same body either way, errors at the request's own paths. */
#define PROJECT_P1                                                             \
  "\"entity\":\"Project\",\"values\":{\"orgId\":\"o1\",\"createdAt\":"         \
  "\"2026-03-14T09:00:00Z\",\"projectId\":\"p1\"}"

static void conditions_filters_and_actions(void **state) {
  (void)state;
  static const char body[] =
      "{\"operation\":\"UpdateItem\",\"target\":\"DynamoDB_20120810."
      "UpdateItem\",\"body\":{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":"
      "{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p1\"}},"
      "\"UpdateExpression\":\"SET #n0 = :v0\",\"ConditionExpression\":\"("
      "attribute_exists(#n1)) AND (#n2 = :v1)\",\"ExpressionAttributeNames\":"
      "{\"#n0\":\"name\",\"#n1\":\"PK\",\"#n2\":\"status\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Apollo\"},\":v1\":{"
      "\"S\":\"active\"}}}}";
  expect("{\"op\":\"update\"," PROJECT_P1 ",\"update\":\"set name = :n\","
         "\"params\":{\"n\":\"Apollo\"},\"condition\":\"status = "
         "\\\"active\\\"\"}",
         body);
  expect("{\"op\":\"update\"," PROJECT_P1 ",\"update\":[{\"set\":[\"name\","
         "{\"param\":\"n\"}]}],\"params\":{\"n\":\"Apollo\"},\"condition\":"
         "{\"=\":[\"status\",\"active\"]}}",
         body);
  /* a filter, both forms */
  static const char query[] =
      "{\"operation\":\"Query\",\"target\":\"DynamoDB_20120810.Query\","
      "\"body\":{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":"
      "\"#n0 = :v0 AND begins_with(#n1, :v1)\",\"FilterExpression\":\"#n2 = "
      ":v2 AND #n3.#n4 > :v3\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\","
      "\"#n1\":\"SK\",\"#n2\":\"type\",\"#n3\":\"payload\",\"#n4\":\"level\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"PROJECT#p1\"},\":v1\":{"
      "\"S\":\"EVENT#\"},\":v2\":{\"S\":\"deploy\"},\":v3\":{\"N\":\"2\"}},"
      "\"Limit\":100}}";
  expect("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
         "\"projectId\":\"p1\"},\"filter\":\"type = :t and payload.level > "
         "2\",\"params\":{\"t\":\"deploy\"}}",
         query);
  expect("{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
         "\"projectId\":\"p1\"},\"filter\":{\"and\":[{\"=\":[\"type\","
         "\"deploy\"]},{\">\":[\"payload.level\",2]}]}}",
         query);
  /* errors: the JSON form's path, the text form's character */
  expect_error("{\"op\":\"update\"," PROJECT_P1 ",\"condition\":{\"=\":["
               "\"statuss\",\"active\"]}}",
               -7, "ENOTFOUND", "condition.=[0]",
               "Project has no attribute statuss; did you mean status?");
  expect("{\"op\":\"delete\"," PROJECT_P1 ",\"condition\":\"status =\"}",
         "{\"error\":{\"code\":-3,\"name\":\"ESYNTAX\",\"path\":\"condition\","
         "\"message\":\"at character 9: expected an attribute or a value, "
         "found the end\",\"offset\":8,\"line\":1,\"column\":9}}");
  expect("{\"op\":\"update\"," PROJECT_P1 ",\"update\":\"set status = "
         "\\\"archived\\\"\"}",
         "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"update\","
         "\"message\":\"at character 5: Project.status decides index GSI2's "
         "keys: set it as a value (not an action), so ddbst rewrites them\","
         "\"offset\":4,\"line\":1,\"column\":5}}");
  expect_error("{\"op\":\"query\",\"pattern\":\"userByEmail\",\"values\":{"
               "\"email\":\"a@x.com\"},\"filter\":\"role = \\\"admin\\\"\"}",
               -1, "EINVAL", "filter",
               "userByEmail reads index GSI1, which does not project role "
               "(KEYS_ONLY): DynamoDB refuses a filter on it; project it in "
               "the model, or read the table");
  expect_error("{\"op\":\"transact\",\"items\":[{\"op\":\"check\"," PROJECT_P1
               ",\"condition\":\"status = \\\"active\\\"\"},{\"op\":\"delete\","
               "\"entity\":\"Event\",\"values\":{\"projectId\":\"p1\",\"ts\":"
               "\"2026-03-14T09:00:00Z\",\"eventId\":"
               "\"01HZ0000000000000000000010\"},\"condition\":{\"=\":[\"kind\","
               "\"x\"]}}]}",
               -7, "ENOTFOUND", "items[1].condition.=[0]",
               "Event has no attribute kind");
  expect_error("{\"op\":\"create\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"o1\",\"name\":\"Acme\"},\"condition\":\"plan = "
               "\\\"free\\\"\"}",
               -1, "EINVAL", "Organisation",
               "a create writes only where no item is, so a condition on its "
               "attributes could never hold: use a put with the condition");
  expect_error("{\"op\":\"update\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"o1\"},\"params\":[1]}",
               -1, "EINVAL", "params",
               "expected an object of parameters: {\\\"qty\\\": 3}");
  expect_error("{\"op\":\"update\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"o1\"},\"condition\":7}",
               -1, "EINVAL", "condition",
               "expected the text form (a string) or the JSON form (an "
               "object)");
  expect_error("{\"op\":\"update\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"o1\"},\"update\":{\"set\":[\"plan\",\"x\"]}}",
               -1, "EINVAL", "update",
               "expected the text form (a string) or the JSON form (an array "
               "of actions)");
  /* a get takes none of them */
  expect_error("{\"op\":\"get\",\"entity\":\"Organisation\",\"values\":{"
               "\"orgId\":\"o1\"},\"condition\":\"plan = \\\"x\\\"\"}",
               -1, "EINVAL", "condition", "unknown field for get");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(open_errors),
      cmocka_unit_test(open_reports_every_model_error),
      cmocka_unit_test(table_override),
      cmocka_unit_test(no_session),
      cmocka_unit_test(bad_requests),
      cmocka_unit_test(keys),
      cmocka_unit_test(value_errors),
      cmocka_unit_test(typed_values),
      cmocka_unit_test(parse),
      cmocka_unit_test(item_size),
      cmocka_unit_test(get),
      cmocka_unit_test(put_and_create),
      cmocka_unit_test(update),
      cmocka_unit_test(delete),
      cmocka_unit_test(query),
      cmocka_unit_test(batches),
      cmocka_unit_test(transact),
      cmocka_unit_test(create_table_and_review),
      cmocka_unit_test(page_and_cursor),
      cmocka_unit_test(page_of_other_reads),
      cmocka_unit_test(dynamodb_errors),
      cmocka_unit_test(stream),
      cmocka_unit_test(values_come_back_by_type),
      cmocka_unit_test(fields_that_would_be_ignored),
      cmocka_unit_test(answers_are_utf8),
      cmocka_unit_test(a_map_named_like_dynamodb_json),
      cmocka_unit_test(item_answer_refuses_a_value_ddbst_did_not_write),
      cmocka_unit_test(conditions_filters_and_actions),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
