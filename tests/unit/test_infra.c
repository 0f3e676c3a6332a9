/* CloudFormation, IAM and stream filters from the model: the exact template
 * for the SaaS example, the actions each kind of pattern adds, how a stream
 * filter picks out one entity's records, and every refusal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The template, or "error CODE PATH: MESSAGE". */
static char *cf(const ddbst_model *m, const char *const *filters, size_t n) {
  static char out[16384];
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  if (ddbst_model_cloudformation(m, filters, n, b, &err) == 0)
    snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  else
    snprintf(out, sizeof out, "error %d %s: %s", err.code, err.path,
             err.message);
  ddbst_buf_free(b);
  return out;
}

/* The text between `from` (included) and the end of `s`, or "" when absent:
 * lets a test assert one part of the template exactly. */
static const char *from(const char *s, const char *start) {
  const char *p = strstr(s, start);
  return p ? p : "";
}

static void saas_template_exactly(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  assert_string_equal(
      cf(m, NULL, 0),
      "{\"Resources\":{\"AppTable\":{\"Type\":\"AWS::DynamoDB::Table\",\"Deleti"
      "onPolicy\":\"Retain\",\"UpdateReplacePolicy\":\"Retain\",\"Properties\":"
      "{\"TableName\":{\"Fn::If\":[\"HasStage\",{\"Fn::Join\":[\"-\",[{\"Ref\":"
      "\"TableName\"},{\"Ref\":\"Stage\"}]]},{\"Ref\":\"TableName\"}]},\"Billin"
      "gMode\":\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[{\"AttributeName\""
      ":\"PK\",\"AttributeType\":\"S\"},{\"AttributeName\":\"SK\",\"AttributeTy"
      "pe\":\"S\"},{\"AttributeName\":\"GSI1PK\",\"AttributeType\":\"S\"},{\"At"
      "tributeName\":\"GSI2PK\",\"AttributeType\":\"S\"},{\"AttributeName\":\"G"
      "SI2SK\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"PK"
      "\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"SK\",\"KeyType\":\"RANGE\""
      "}],\"GlobalSecondaryIndexes\":[{\"IndexName\":\"GSI1\",\"KeySchema\":[{"
      "\"AttributeName\":\"GSI1PK\",\"KeyType\":\"HASH\"}],\"Projection\":{\"Pr"
      "ojectionType\":\"KEYS_ONLY\"}},{\"IndexName\":\"GSI2\",\"KeySchema\":[{"
      "\"AttributeName\":\"GSI2PK\",\"KeyType\":\"HASH\"},{\"AttributeName\":\""
      "GSI2SK\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":\"IN"
      "CLUDE\",\"NonKeyAttributes\":[\"name\",\"status\"]}}],\"StreamSpecificat"
      "ion\":{\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"},\"PointInTimeRecoveryS"
      "pecification\":{\"PointInTimeRecoveryEnabled\":true},\"SSESpecification"
      "\":{\"SSEEnabled\":true},\"TimeToLiveSpecification\":{\"AttributeName\":"
      "\"expiresAt\",\"Enabled\":true}}},\"AppTableAccess\":{\"Type\":\"AWS::IA"
      "M::ManagedPolicy\",\"Properties\":{\"Description\":\"What the ddbst mode"
      "l of saas-api-dev needs: its access patterns and writes, on the table an"
      "d its indexes only\",\"PolicyDocument\":{\"Version\":\"2012-10-17\",\"St"
      "atement\":[{\"Effect\":\"Allow\",\"Action\":[\"dynamodb:GetItem\",\"dyna"
      "modb:PutItem\",\"dynamodb:UpdateItem\",\"dynamodb:DeleteItem\",\"dynamod"
      "b:Query\",\"dynamodb:BatchGetItem\"],\"Resource\":[{\"Fn::GetAtt\":[\"Ap"
      "pTable\",\"Arn\"]},{\"Fn::Join\":[\"\",[{\"Fn::GetAtt\":[\"AppTable\",\""
      "Arn\"]},\"/index/*\"]]}]}]}}}},\"Parameters\":{\"TableName\":{\"Type\":"
      "\"String\",\"Default\":\"saas-api-dev\",\"AllowedPattern\":\"[A-Za-z0-9_"
      ".-]{3,200}\",\"Description\":\"The table's name (the model's by default)"
      "\"},\"Stage\":{\"Type\":\"String\",\"Default\":\"\",\"AllowedPattern\":"
      "\"[A-Za-z0-9_.-]{0,50}\",\"Description\":\"When given (dev, prod), the t"
      "able is named TableName-Stage\"}},\"Conditions\":{\"HasStage\":{\"Fn::No"
      "t\":[{\"Fn::Equals\":[{\"Ref\":\"Stage\"},\"\"]}]}},\"Outputs\":{\"Table"
      "Name\":{\"Description\":\"The table's name\",\"Value\":{\"Ref\":\"AppTab"
      "le\"},\"Export\":{\"Name\":{\"Fn::Join\":[\"-\",[{\"Ref\":\"AWS::StackNa"
      "me\"},\"TableName\"]]}}},\"TableArn\":{\"Description\":\"The table's ARN"
      "\",\"Value\":{\"Fn::GetAtt\":[\"AppTable\",\"Arn\"]},\"Export\":{\"Name"
      "\":{\"Fn::Join\":[\"-\",[{\"Ref\":\"AWS::StackName\"},\"TableArn\"]]}}},"
      "\"StreamArn\":{\"Description\":\"The table's stream's ARN\",\"Value\":{"
      "\"Fn::GetAtt\":[\"AppTable\",\"StreamArn\"]},\"Export\":{\"Name\":{\"Fn:"
      ":Join\":[\"-\",[{\"Ref\":\"AWS::StackName\"},\"StreamArn\"]]}}}}}");
  ddbst_model_free(m);
}

/* The table name in force is the one CloudFormation gets. */
static void table_name_override(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = "saas-api-prod";
  ddbst_model *m = NULL;
  assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
  assert_non_null(strstr(cf(m, NULL, 0), "\"Default\":\"saas-api-prod\""));
  assert_null(strstr(cf(m, NULL, 0), "saas-api-dev"));
  ddbst_model_free(m);
}

#define TABLE_ONLY                                                           \
  "{\"ddbst\":1,\"table\":{\"name\":\"plain\",\"partitionKey\":\"id\"},"   \
  "\"entities\":{\"Thing\":{\"attributes\":{\"thingId\":\"string\"},"       \
  "\"key\":{\"pk\":\"THING#{thingId}\"}}},"

/* No sort key, no index, no stream, no TTL: none of them appears, and the
 * policy names the table alone. */
static void plain_table(void **state) {
  (void)state;
  ddbst_model *m = load_text(TABLE_ONLY "\"patterns\":{}}");
  assert_string_equal(
      cf(m, NULL, 0),
      "{\"Resources\":{\"AppTable\":{\"Type\":\"AWS::DynamoDB::Table\",\"Deleti"
      "onPolicy\":\"Retain\",\"UpdateReplacePolicy\":\"Retain\",\"Properties\":"
      "{\"TableName\":{\"Fn::If\":[\"HasStage\",{\"Fn::Join\":[\"-\",[{\"Ref\":"
      "\"TableName\"},{\"Ref\":\"Stage\"}]]},{\"Ref\":\"TableName\"}]},\"Billin"
      "gMode\":\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[{\"AttributeName\""
      ":\"id\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"id"
      "\",\"KeyType\":\"HASH\"}],\"PointInTimeRecoverySpecification\":{\"PointI"
      "nTimeRecoveryEnabled\":true},\"SSESpecification\":{\"SSEEnabled\":true}}"
      "},\"AppTableAccess\":{\"Type\":\"AWS::IAM::ManagedPolicy\",\"Properties"
      "\":{\"Description\":\"What the ddbst model of plain needs: its access pa"
      "tterns and writes, on the table and its indexes only\",\"PolicyDocument"
      "\":{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Ac"
      "tion\":[\"dynamodb:PutItem\",\"dynamodb:UpdateItem\",\"dynamodb:DeleteIt"
      "em\"],\"Resource\":[{\"Fn::GetAtt\":[\"AppTable\",\"Arn\"]}]}]}}}},\"Par"
      "ameters\":{\"TableName\":{\"Type\":\"String\",\"Default\":\"plain\",\"Al"
      "lowedPattern\":\"[A-Za-z0-9_.-]{3,200}\",\"Description\":\"The table's n"
      "ame (the model's by default)\"},\"Stage\":{\"Type\":\"String\",\"Default"
      "\":\"\",\"AllowedPattern\":\"[A-Za-z0-9_.-]{0,50}\",\"Description\":\"Wh"
      "en given (dev, prod), the table is named TableName-Stage\"}},\"Condition"
      "s\":{\"HasStage\":{\"Fn::Not\":[{\"Fn::Equals\":[{\"Ref\":\"Stage\"},\""
      "\"]}]}},\"Outputs\":{\"TableName\":{\"Description\":\"The table's name\""
      ",\"Value\":{\"Ref\":\"AppTable\"},\"Export\":{\"Name\":{\"Fn::Join\":[\""
      "-\",[{\"Ref\":\"AWS::StackName\"},\"TableName\"]]}}},\"TableArn\":{\"Des"
      "cription\":\"The table's ARN\",\"Value\":{\"Fn::GetAtt\":[\"AppTable\","
      "\"Arn\"]},\"Export\":{\"Name\":{\"Fn::Join\":[\"-\",[{\"Ref\":\"AWS::Sta"
      "ckName\"},\"TableArn\"]]}}}}}");
  ddbst_model_free(m);
}

#define WITH_GSI(projection)                                                 \
  "{\"ddbst\":1,\"table\":{\"name\":\"idx\",\"partitionKey\":\"PK\","       \
  "\"sortKey\":\"SK\",\"indexes\":{\"GS1\":{\"partitionKey\":\"G1PK\","      \
  "\"sortKey\":\"G1SK\",\"projection\":" projection "},\"GS2\":{"         \
  "\"partitionKey\":\"G2PK\",\"sortKey\":\"G2SK\"}}},"                     \
  "\"entities\":{\"Thing\":{\"attributes\":{\"thingId\":\"string\","        \
  "\"tag\":\"string\"},\"key\":{\"pk\":\"THING#{thingId}\",\"sk\":"         \
  "\"THING\"},\"indexes\":{\"GS1\":{\"pk\":\"TAG#{tag}\","                   \
  "\"sk\":\"THING#{thingId}\"}}}},"

static const char *actions(const char *template_text) {
  static char out[512];
  const char *a = from(template_text, "\"Action\":");
  const char *end = strchr(a, ']');
  snprintf(out, sizeof out, "%.*s", end ? (int)(end - a + 1) : 0, a);
  return out;
}

/* Each kind of pattern adds exactly its action; writes are always there. */
static void actions_follow_the_patterns(void **state) {
  (void)state;
  ddbst_model *m = load_text(TABLE_ONLY
                             "\"patterns\":{\"all\":{\"scan\":\"Thing\","
                             "\"limit\":{\"max\":10}}}}");
  assert_string_equal(actions(cf(m, NULL, 0)),
                      "\"Action\":[\"dynamodb:PutItem\",\"dynamodb:"
                      "UpdateItem\",\"dynamodb:DeleteItem\",\"dynamodb:Scan\"]");
  ddbst_model_free(m);

  /* An index projecting everything answers by itself: Query only. */
  m = load_text(WITH_GSI("\"ALL\"") "\"patterns\":{\"byTag\":{\"query\":"
                                    "\"Thing\",\"index\":\"GS1\",\"limit\":{"
                                    "\"max\":50}}}}");
  assert_string_equal(actions(cf(m, NULL, 0)),
                      "\"Action\":[\"dynamodb:PutItem\",\"dynamodb:"
                      "UpdateItem\",\"dynamodb:DeleteItem\",\"dynamodb:Query\"]");
  ddbst_model_free(m);

  /* Keys only, one item at most: the item is then read with GetItem. */
  m = load_text(WITH_GSI("\"KEYS_ONLY\"") "\"patterns\":{\"byTag\":{"
                                          "\"query\":\"Thing\",\"index\":"
                                          "\"GS1\",\"limit\":{\"max\":1}}}}");
  assert_string_equal(actions(cf(m, NULL, 0)),
                      "\"Action\":[\"dynamodb:GetItem\",\"dynamodb:PutItem\","
                      "\"dynamodb:UpdateItem\",\"dynamodb:DeleteItem\","
                      "\"dynamodb:Query\"]");
  ddbst_model_free(m);

  /* Keys only, many items: BatchGetItem. */
  m = load_text(WITH_GSI("[\"tag\"]") "\"patterns\":{\"byTag\":{\"query\":"
                                      "\"Thing\",\"index\":\"GS1\",\"limit\":{"
                                      "\"max\":50}}}}");
  assert_string_equal(actions(cf(m, NULL, 0)),
                      "\"Action\":[\"dynamodb:PutItem\",\"dynamodb:"
                      "UpdateItem\",\"dynamodb:DeleteItem\",\"dynamodb:Query\","
                      "\"dynamodb:BatchGetItem\"]");
  /* every key attribute defined once */
  assert_non_null(strstr(cf(m, NULL, 0),
                         "\"AttributeDefinitions\":[{\"AttributeName\":\"PK\","
                         "\"AttributeType\":\"S\"},{\"AttributeName\":\"SK\","
                         "\"AttributeType\":\"S\"},{\"AttributeName\":\"G1PK\","
                         "\"AttributeType\":\"S\"},{\"AttributeName\":\"G1SK\","
                         "\"AttributeType\":\"S\"},{\"AttributeName\":\"G2PK\","
                         "\"AttributeType\":\"S\"},{\"AttributeName\":\"G2SK\","
                         "\"AttributeType\":\"S\"}],"));
  ddbst_model_free(m);
}

/* A copy of the blog model with a stream: the example itself has none. */
static ddbst_model *blog_with_stream(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/blog/model.json", DDBST_SOURCE_DIR);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char text[16384], edited[16500];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *anchor = "\"entityAttribute\": \"entity\"";
  char *at = strstr(text, anchor);
  assert_non_null(at);
  snprintf(edited, sizeof edited, "%.*s\"stream\": \"KEYS_ONLY\", %s",
           (int)(at - text), text, at);
  return load_text(edited);
}

static void stream_filter_by_sort_key_prefix(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  const char *const filters[] = {"Project:INSERT,MODIFY", "Event"};
  assert_string_equal(
      from(cf(m, filters, 2), "\"Metadata\""),
      "\"Metadata\":{\"ddbst\":{\"filterPatterns\":[{\"eventName\":["
      "\"INSERT\",\"MODIFY\"],\"dynamodb\":{\"Keys\":{\"SK\":{\"S\":[{"
      "\"prefix\":\"PROJECT#\"}]}}}},{\"eventName\":[\"INSERT\",\"MODIFY\","
      "\"REMOVE\"],\"dynamodb\":{\"Keys\":{\"SK\":{\"S\":[{\"prefix\":"
      "\"EVENT#\"}]}}}}]}}}");
  /* Event names in canonical order, whatever order they were given in. */
  const char *const reordered[] = {"User:REMOVE,INSERT"};
  assert_non_null(strstr(cf(m, reordered, 1),
                         "{\"eventName\":[\"INSERT\",\"REMOVE\"],\"dynamodb\":"
                         "{\"Keys\":{\"SK\":{\"S\":[{\"prefix\":\"USER#\"}]}}}}"));
  ddbst_model_free(m);
}

/* BLOG# alone would let the slug uniqueness items (BLOG#SLUG#...) through:
 * the first facet is a ULID, whose first character is 0-7. */
static void stream_filter_refined_by_facet_type(void **state) {
  (void)state;
  ddbst_model *m = blog_with_stream();
  const char *const filters[] = {"Blog:REMOVE"};
  assert_string_equal(
      from(cf(m, filters, 1), "\"Metadata\""),
      "\"Metadata\":{\"ddbst\":{\"filterPatterns\":[{\"eventName\":["
      "\"REMOVE\"],\"dynamodb\":{\"Keys\":{\"sk\":{\"S\":[{\"prefix\":"
      "\"BLOG#0\"},{\"prefix\":\"BLOG#1\"},{\"prefix\":\"BLOG#2\"},{"
      "\"prefix\":\"BLOG#3\"},{\"prefix\":\"BLOG#4\"},{\"prefix\":\"BLOG#5\"},"
      "{\"prefix\":\"BLOG#6\"},{\"prefix\":\"BLOG#7\"}]}}}}]}}}");
  ddbst_model_free(m);
}

#define KEYED(a_pk, a_sk, b_pk, b_sk, c_pk, c_sk)                            \
  "{\"ddbst\":1,\"table\":{\"name\":\"mix\",\"partitionKey\":\"PK\","       \
  "\"sortKey\":\"SK\",\"stream\":\"NEW_IMAGE\"},\"entities\":{"             \
  "\"A\":{\"attributes\":{\"id\":\"string\"},\"key\":{\"pk\":\"" a_pk       \
  "\",\"sk\":\"" a_sk "\"}},"                                                \
  "\"B\":{\"attributes\":{\"id\":\"string\"},\"key\":{\"pk\":\"" b_pk       \
  "\",\"sk\":\"" b_sk "\"}},"                                                \
  "\"C\":{\"attributes\":{\"id\":\"string\",\"on\":\"boolean\"},\"key\":{"  \
  "\"pk\":\"" c_pk "\",\"sk\":\"" c_sk "\"}}}}"

static void stream_filter_other_choices(void **state) {
  (void)state;
  const char *const a[] = {"A:INSERT"};
  const char *const c[] = {"C:INSERT"};
  /* Sort keys alike (DATA#), partitions not: the partition key decides. */
  ddbst_model *m = load_text(
      KEYED("A#{id}", "DATA#{id}", "B#{id}", "DATA#{id}", "C#{id}", "C#{id}"));
  assert_string_equal(from(cf(m, a, 1), "\"dynamodb\""),
                      "\"dynamodb\":{\"Keys\":{\"PK\":{\"S\":[{\"prefix\":"
                      "\"A#\"}]}}}}]}}}");
  ddbst_model_free(m);

  /* Neither key alone: X# is B's partition too, Y# is C's sort key too;
   * both together pass A only. */
  m = load_text(
      KEYED("X#{id}", "Y#{id}", "X#{id}", "Z#{id}", "W#{id}", "Y#{id}"));
  assert_string_equal(from(cf(m, a, 1), "\"dynamodb\""),
                      "\"dynamodb\":{\"Keys\":{\"PK\":{\"S\":[{\"prefix\":"
                      "\"X#\"}]},\"SK\":{\"S\":[{\"prefix\":\"Y#\"}]}}}}]}}}");
  /* A sort key with no literal but a boolean first facet: its two values. */
  ddbst_model_free(m);
  m = load_text(
      KEYED("A#{id}", "A#{id}", "B#{id}", "B#{id}", "C#{id}", "{on}#{id}"));
  assert_string_equal(from(cf(m, c, 1), "\"dynamodb\""),
                      "\"dynamodb\":{\"Keys\":{\"SK\":{\"S\":[{\"prefix\":"
                      "\"true\"},{\"prefix\":\"false\"}]}}}}]}}}");
  ddbst_model_free(m);

  /* An all-literal sort key is matched whole, not as a prefix: CONFIG must
   * not pass B's CONFIGS#... items. */
  m = load_text(KEYED("A#{id}", "CONFIG", "A#{id}", "CONFIGS#{id}", "C#{id}",
                      "C#{id}"));
  assert_string_equal(from(cf(m, a, 1), "\"dynamodb\""),
                      "\"dynamodb\":{\"Keys\":{\"SK\":{\"S\":[\"CONFIG\"]}}}}]}}}");
  ddbst_model_free(m);
}

static void stream_filter_refusals(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  const char *const unknown[] = {"Project", "Projekt:INSERT"};
  assert_string_equal(cf(m, unknown, 2),
                      "error -7 stream_filters[1]: 'Projekt' is not an entity "
                      "of the model (expected ENTITY or "
                      "ENTITY:INSERT,MODIFY,REMOVE)");
  const char *const bad_event[] = {"User:INSERT,DELETE"};
  assert_string_equal(cf(m, bad_event, 1),
                      "error -1 stream_filters[0]: 'DELETE' is not a stream "
                      "event name (expected INSERT, MODIFY or REMOVE)");
  const char *const empty_event[] = {"User:"};
  assert_string_equal(cf(m, empty_event, 1),
                      "error -1 stream_filters[0]: '' is not a stream event "
                      "name (expected INSERT, MODIFY or REMOVE)");
  const char *const null_spec[] = {NULL};
  assert_string_equal(cf(m, null_spec, 1),
                      "error -1 stream_filters[0]: the stream filter is NULL");
  assert_string_equal(cf(m, NULL, 1),
                      "error -1 stream_filters: stream_filters is NULL but "
                      "nfilters is 1");
  ddbst_model_free(m);

  m = load_example("examples/blog/model.json");
  const char *const blog[] = {"Blog"};
  assert_string_equal(cf(m, blog, 1),
                      "error -1 table.stream: stream filters need a stream: "
                      "set table.stream in the model");
  ddbst_model_free(m);

  /* No prefix of either key separates A from B. */
  m = load_text(KEYED("P#{id}", "S#{id}", "P#{id}", "S#{id}#X", "C#{id}",
                      "C#{id}"));
  const char *const a[] = {"A"};
  assert_string_equal(cf(m, a, 1),
                      "error -4 stream_filters[0]: no key prefix tells A's "
                      "records apart from B's (PK = P#{id}, SK = S#{id}#X): "
                      "give A's sort key a literal of its own");
  ddbst_model_free(m);

  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_model_cloudformation(NULL, NULL, 0, b, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "model or buffer is NULL");
  ddbst_buf_free(b);
}

/* A failed call leaves the buffer empty: no half template, and no stale
 * one either (writers replace what the buffer held). */
static void failure_leaves_the_buffer(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_model_cloudformation(m, NULL, 0, b, NULL), 0);
  size_t len = ddbst_buf_len(b);
  const char *const bad[] = {"Nope"};
  assert_true(len > 0);
  assert_int_equal(ddbst_model_cloudformation(m, bad, 1, b, NULL),
                   DDBST_ENOTFOUND);
  assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* Fail the Nth allocation for N = 1, 2, ... until the call succeeds: each
 * failure is DDBST_ENOMEM, appends nothing and leaks nothing. */
static void allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m = NULL;
  assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
  const char *const filters[] = {"Project", "User:INSERT"};
  long baseline = ca.live;
  int failures = 0;
  for (long n = 1;; n++) {
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ca.calls = 0;
    ca.fail_at = n;
    int rc = ddbst_model_cloudformation(m, filters, 2, b, NULL);
    ca.fail_at = 0;
    if (rc == 0) {
      assert_non_null(strstr(ddbst_buf_data(b), "\"prefix\":\"USER#\""));
      ddbst_buf_free(b);
      break;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
    assert_int_equal(ca.live, baseline);
    failures++;
  }
  assert_true(failures >= 3); /* the buffer's growth, the filter scratch */
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(saas_template_exactly),
      cmocka_unit_test(table_name_override),
      cmocka_unit_test(plain_table),
      cmocka_unit_test(actions_follow_the_patterns),
      cmocka_unit_test(stream_filter_by_sort_key_prefix),
      cmocka_unit_test(stream_filter_refined_by_facet_type),
      cmocka_unit_test(stream_filter_other_choices),
      cmocka_unit_test(stream_filter_refusals),
      cmocka_unit_test(failure_leaves_the_buffer),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
