/* The table's settings (onDemandThroughput, warmThroughput,
 * deletionProtection, pointInTimeRecovery, tableClass,
 * contributorInsights, tags, resourcePolicy, and a GSI's own): each
 * refusal at load with its path, the exact CreateTable, UpdateTable and
 * follow-up bodies, CloudFormation's properties, and table ARNs taken
 * wherever a table name is. Models are written with ' for ". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* `s` with ' turned into " (static storage, one of 4 in turn). */
static const char *q(const char *s) {
  static char ring[4][16384];
  static int next;
  char *out = ring[next++ % 4];
  size_t n = strlen(s);
  if (n >= sizeof ring[0]) fail_msg("model text too long");
  for (size_t i = 0; i <= n; i++) out[i] = s[i] == '\'' ? '"' : s[i];
  return out;
}

/* A model whose table holds `settings` (members after the keys) and whose
 * GSI1 holds `gsi` (members after its keys). */
static const char *model(const char *name, const char *settings,
                         const char *gsi) {
  static char text[16384];
  snprintf(text, sizeof text,
           "{'ddbst':1,'table':{'name':'%s','partitionKey':'PK',"
           "'sortKey':'SK','indexes':{'GSI1':{'partitionKey':'G1PK'%s%s}}"
           "%s%s},'entities':{'Thing':{'attributes':{'id':'string',"
           "'tag':'string'},'key':{'pk':'T#{id}','sk':'T'},"
           "'indexes':{'GSI1':{'pk':'TAG#{tag}'}}}},'patterns':{}}",
           name, *gsi ? "," : "", gsi, *settings ? "," : "", settings);
  return q(text);
}

#define EXPECT_REFUSED(text, path_, phrase)                                   \
  do {                                                                        \
    ddbst_error e_;                                                           \
    memset(&e_, 0, sizeof e_);                                                \
    assert_int_equal(load_fails((text), &e_), DDBST_EMODEL);                  \
    assert_string_equal(e_.path, (path_));                                    \
    if (!strstr(e_.message, (phrase)))                                        \
      fail_msg("message \"%s\" lacks \"%s\"", e_.message, (phrase));          \
  } while (0)

static void each_setting_refused_with_its_path(void **state) {
  (void)state;
  EXPECT_REFUSED(model("t-1", "'onDemandThroughput':{}", ""),
                 "table.onDemandThroughput",
                 "give maxReadRequestUnits, maxWriteRequestUnits or both");
  EXPECT_REFUSED(model("t-1", "'onDemandThroughput':{'maxReadRequestUnits':0}",
                       ""),
                 "table.onDemandThroughput.maxReadRequestUnits",
                 "expected a whole number from 1 to 9007199254740991");
  EXPECT_REFUSED(model("t-1", "'onDemandThroughput':{'maxReads':5}", ""),
                 "table.onDemandThroughput.maxReads", "unknown field");
  EXPECT_REFUSED(model("t-1", "'warmThroughput':{'readUnitsPerSecond':1.5}",
                       ""),
                 "table.warmThroughput.readUnitsPerSecond",
                 "expected a whole number");
  EXPECT_REFUSED(model("t-1", "'deletionProtection':'yes'", ""),
                 "table.deletionProtection", "expected true or false");
  EXPECT_REFUSED(model("t-1", "'pointInTimeRecovery':{'recoveryPeriodInDays':36}",
                       ""),
                 "table.pointInTimeRecovery.recoveryPeriodInDays",
                 "expected a whole number from 1 to 35");
  EXPECT_REFUSED(model("t-1", "'pointInTimeRecovery':{}", ""),
                 "table.pointInTimeRecovery",
                 "'recoveryPeriodInDays' is required");
  EXPECT_REFUSED(model("t-1", "'pointInTimeRecovery':7", ""),
                 "table.pointInTimeRecovery",
                 "expected true, false or {\"recoveryPeriodInDays\"");
  EXPECT_REFUSED(model("t-1", "'tableClass':'STANDARD_IA'", ""),
                 "table.tableClass",
                 "expected STANDARD or STANDARD_INFREQUENT_ACCESS");
  EXPECT_REFUSED(model("t-1", "'contributorInsights':1", ""),
                 "table.contributorInsights", "expected true or false");
  EXPECT_REFUSED(model("t-1", "'tags':{'aws:team':'x'}", ""),
                 "table.tags.aws:team", "tag keys starting with aws:");
  EXPECT_REFUSED(model("t-1", "'tags':{'team':'a;b'}", ""), "table.tags.team",
                 "a tag value is 0 to 256");
  EXPECT_REFUSED(model("t-1", "'tags':{'team':3}", ""), "table.tags.team",
                 "expected the tag's value, a string");
  EXPECT_REFUSED(model("t-1", "'tags':['team']", ""), "table.tags",
                 "expected an object of tag key: value");
  EXPECT_REFUSED(model("t-1", "'resourcePolicy':'{}'", ""),
                 "table.resourcePolicy", "expected an object");
  EXPECT_REFUSED(model("t-1", "'resourcePolicy':{'Version':'2012-10-17'}", ""),
                 "table.resourcePolicy", "a policy document has a Statement");
  EXPECT_REFUSED(model("t-1", "", "'warmThroughput':{'writeUnitsPerSecond':-1}"),
                 "table.indexes.GSI1.warmThroughput.writeUnitsPerSecond",
                 "expected a whole number");
  EXPECT_REFUSED(model("t-1", "", "'contributorInsights':'on'"),
                 "table.indexes.GSI1.contributorInsights",
                 "expected true or false");
  EXPECT_REFUSED(model("t-1", "", "'rcu':5"), "table.indexes.GSI1.rcu",
                 "unknown field");
}

/* 51 tags, a key of 129 characters, a value of 257: DynamoDB's limits. */
static void tag_limits(void **state) {
  (void)state;
  char tags[4096] = "'tags':{";
  for (int i = 0; i < 51; i++)
    snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "%s'k%d':'v'",
             i ? "," : "", i);
  strcat(tags, "}");
  EXPECT_REFUSED(model("t-1", tags, ""), "table.tags",
                 "51 tags; DynamoDB allows at most 50");
  char key[200] = "'tags':{'";
  memset(key + strlen(key), 'k', 129);
  strcat(key, "':'v'}");
  ddbst_error e;
  assert_int_equal(load_fails(model("t-1", key, ""), &e), DDBST_EMODEL);
  assert_non_null(strstr(e.message, "a tag key is 1 to 128"));
  char value[400] = "'tags':{'k':'";
  memset(value + strlen(value), 'v', 257);
  strcat(value, "'}");
  EXPECT_REFUSED(model("t-1", value, ""), "table.tags.k",
                 "a tag value is 0 to 256");
  /* 128 and 256 of them, in another script, are fine */
  char ok[2048] = "'tags':{'";
  for (int i = 0; i < 128; i++) strcat(ok, "\xc3\xa9");
  strcat(ok, "':'");
  for (int i = 0; i < 256; i++) strcat(ok, "\xc3\xa9");
  strcat(ok, "'}");
  ddbst_model_free(load_text(model("t-1", ok, "")));
}

static char *body(int (*build)(const ddbst_model *, ddbst_buf *,
                               ddbst_error *),
                  const ddbst_model *m, int want) {
  static char out[8192];
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int rc = build(m, b, &err);
  if (rc != want) fail_msg("rc %d: %s: %s", rc, err.path, err.message);
  snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  ddbst_buf_free(b);
  return out;
}

#define ALL_SETTINGS                                                          \
  "'onDemandThroughput':{'maxReadRequestUnits':100,"                         \
  "'maxWriteRequestUnits':50},'warmThroughput':{'readUnitsPerSecond':"       \
  "15000,'writeUnitsPerSecond':5000},'deletionProtection':true,"             \
  "'pointInTimeRecovery':{'recoveryPeriodInDays':7},'tableClass':"           \
  "'STANDARD_INFREQUENT_ACCESS','contributorInsights':true,'tags':{"         \
  "'team':'billing','cost-centre':'42'},'resourcePolicy':{'Version':"        \
  "'2012-10-17','Statement':[{'Effect':'Deny','Principal':'*','Action':"     \
  "'dynamodb:DeleteTable','Resource':'*'}]}"
#define GSI_SETTINGS                                                          \
  "'onDemandThroughput':{'maxWriteRequestUnits':10},'warmThroughput':{"      \
  "'readUnitsPerSecond':12000},'contributorInsights':false"

static void create_table_carries_every_setting(void **state) {
  (void)state;
  ddbst_model *m = load_text(model("t-1", ALL_SETTINGS, GSI_SETTINGS));
  assert_string_equal(
      body(ddbst_create_table_request, m, DDBST_OP_CREATE_TABLE),
      "{\"TableName\":\"t-1\",\"AttributeDefinitions\":[{\"AttributeName\":"
      "\"PK\",\"AttributeType\":\"S\"},{\"AttributeName\":\"SK\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"G1PK\","
      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"PK\","
      "\"KeyType\":\"HASH\"},{\"AttributeName\":\"SK\",\"KeyType\":"
      "\"RANGE\"}],\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"GSI1\",\"KeySchema\":["
      "{\"AttributeName\":\"G1PK\",\"KeyType\":\"HASH\"}],\"Projection\":{"
      "\"ProjectionType\":\"ALL\"},\"OnDemandThroughput\":{"
      "\"MaxReadRequestUnits\":-1,\"MaxWriteRequestUnits\":10},"
      "\"WarmThroughput\":{\"ReadUnitsPerSecond\":12000}}],"
      "\"OnDemandThroughput\":{"
      "\"MaxReadRequestUnits\":100,\"MaxWriteRequestUnits\":50},"
      "\"WarmThroughput\":{\"ReadUnitsPerSecond\":15000,"
      "\"WriteUnitsPerSecond\":5000},\"DeletionProtectionEnabled\":true,"
      "\"TableClass\":\"STANDARD_INFREQUENT_ACCESS\",\"Tags\":[{\"Key\":"
      "\"team\",\"Value\":\"billing\"},{\"Key\":\"cost-centre\",\"Value\":"
      "\"42\"}],\"ResourcePolicy\":\"{\\\"Version\\\":\\\"2012-10-17\\\","
      "\\\"Statement\\\":[{\\\"Effect\\\":\\\"Deny\\\",\\\"Principal\\\":"
      "\\\"*\\\",\\\"Action\\\":\\\"dynamodb:DeleteTable\\\","
      "\\\"Resource\\\":\\\"*\\\"}]}\"}");
  /* the index added later is created with its own settings too */
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_update_table_add_index_request(m, "GSI1", b, NULL),
                   DDBST_OP_UPDATE_TABLE);
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\"Projection\":{\"ProjectionType\":\"ALL\"},"
                         "\"OnDemandThroughput\":{\"MaxReadRequestUnits\":"
                         "-1,\"MaxWriteRequestUnits\":10},\"WarmThroughput\":{\"ReadUnitsPerSecond\":"
                         "12000}}}]}"));
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* Nothing declared, nothing written: the body is what it always was. */
static void create_table_without_settings(void **state) {
  (void)state;
  ddbst_model *m = load_text(model("t-1", "", ""));
  const char *b = body(ddbst_create_table_request, m, DDBST_OP_CREATE_TABLE);
  assert_null(strstr(b, "Throughput"));
  assert_null(strstr(b, "Tags"));
  assert_null(strstr(b, "Deletion"));
  assert_string_equal(strrchr(b, '['),
                      "[{\"AttributeName\":\"G1PK\",\"KeyType\":\"HASH\"}],"
                      "\"Projection\":{\"ProjectionType\":\"ALL\"}}]}");
  ddbst_model_free(m);
}

static char *template_of(const ddbst_model *m) {
  static char out[16384];
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_model_cloudformation(m, NULL, 0, b, NULL), 0);
  snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  ddbst_buf_free(b);
  return out;
}

/* The text of `s` from `start` up to (not including) `end`. */
static const char *between(const char *s, const char *start, const char *end) {
  static char out[4096];
  const char *a = strstr(s, start);
  const char *z = a ? strstr(a, end) : NULL;
  if (!z) fail_msg("'%s' ... '%s' not in %s", start, end, s);
  snprintf(out, sizeof out, "%.*s", (int)(z - a), a);
  return out;
}

static void cloudformation_carries_every_setting(void **state) {
  (void)state;
  ddbst_model *m = load_text(model("t-1", ALL_SETTINGS, GSI_SETTINGS));
  const char *t = template_of(m);
  assert_string_equal(
      between(t, "\"Projection\":{\"ProjectionType\":\"ALL\"},",
              ",\"SSESpecification\""),
      "\"Projection\":{\"ProjectionType\":\"ALL\"},\"OnDemandThroughput\":{"
      "\"MaxWriteRequestUnits\":10},\"WarmThroughput\":{"
      "\"ReadUnitsPerSecond\":12000},\"ContributorInsightsSpecification\":{"
      "\"Enabled\":false}}],\"OnDemandThroughput\":{\"MaxReadRequestUnits\":"
      "100,\"MaxWriteRequestUnits\":50},\"WarmThroughput\":{"
      "\"ReadUnitsPerSecond\":15000,\"WriteUnitsPerSecond\":5000},"
      "\"DeletionProtectionEnabled\":true,\"TableClass\":"
      "\"STANDARD_INFREQUENT_ACCESS\",\"Tags\":[{\"Key\":\"team\",\"Value\":"
      "\"billing\"},{\"Key\":\"cost-centre\",\"Value\":\"42\"}],"
      "\"ResourcePolicy\":{\"PolicyDocument\":{\"Version\":\"2012-10-17\","
      "\"Statement\":[{\"Effect\":\"Deny\",\"Principal\":\"*\",\"Action\":"
      "\"dynamodb:DeleteTable\",\"Resource\":\"*\"}]}},"
      "\"PointInTimeRecoverySpecification\":{\"PointInTimeRecoveryEnabled\":"
      "true,\"RecoveryPeriodInDays\":7},\"ContributorInsightsSpecification\":"
      "{\"Enabled\":true}");
  /* no stream declared: no StreamArn output */
  assert_null(strstr(t, "StreamArn"));
  ddbst_model_free(m);
  m = load_text(model("t-1", "'pointInTimeRecovery':false", ""));
  assert_non_null(strstr(template_of(m),
                         "\"PointInTimeRecoverySpecification\":{"
                         "\"PointInTimeRecoveryEnabled\":false}"));
  ddbst_model_free(m);
}

static void follow_up_requests(void **state) {
  (void)state;
  ddbst_model *m = load_text(model("t-1", ALL_SETTINGS, GSI_SETTINGS));
  assert_string_equal(
      body(ddbst_update_continuous_backups_request, m,
           DDBST_OP_UPDATE_CONTINUOUS_BACKUPS),
      "{\"TableName\":\"t-1\",\"PointInTimeRecoverySpecification\":{"
      "\"PointInTimeRecoveryEnabled\":true,\"RecoveryPeriodInDays\":7}}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_UPDATE_CONTINUOUS_BACKUPS),
                      "UpdateContinuousBackups");
  assert_string_equal(
      ddbst_operation_name(DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS),
      "UpdateContributorInsights");
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_update_contributor_insights_request(m, NULL, b, &err),
                   DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"t-1\",\"ContributorInsightsAction\":"
                      "\"ENABLE\"}");
  assert_int_equal(
      ddbst_update_contributor_insights_request(m, "GSI1", b, &err),
      DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"t-1\",\"IndexName\":\"GSI1\","
                      "\"ContributorInsightsAction\":\"DISABLE\"}");
  assert_int_equal(
      ddbst_update_contributor_insights_request(m, "GSI9", b, &err),
      DDBST_ENOTFOUND);
  assert_string_equal(ddbst_buf_data(b), "");
  assert_string_equal(err.path, "index");
  assert_int_equal(ddbst_update_contributor_insights_request(NULL, NULL, b,
                                                             &err),
                   DDBST_EINVAL);
  ddbst_model_free(m);

  /* undeclared: nothing to set; recovery on by default */
  m = load_text(model("t-1", "", ""));
  assert_int_equal(ddbst_update_contributor_insights_request(m, NULL, b, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "contributorInsights");
  assert_non_null(strstr(err.message, "does not declare contributorInsights"));
  assert_string_equal(body(ddbst_update_continuous_backups_request, m,
                           DDBST_OP_UPDATE_CONTINUOUS_BACKUPS),
                      "{\"TableName\":\"t-1\",\"PointInTimeRecoverySpecification"
                      "\":{\"PointInTimeRecoveryEnabled\":true}}");
  ddbst_model_free(m);
  ddbst_buf_free(b);
}

/* UpdateTimeToLive: enabled on the model's ttlAttribute, or disabled on
 * one a model no longer declares; nothing half-written on a refusal or a
 * failed allocation. */
static void time_to_live_requests(void **state) {
  (void)state;
  ddbst_model *m = load_text(model("t-1", "'ttlAttribute':'expiresAt'", ""));
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_update_time_to_live_request(m, NULL, b, &err),
                   DDBST_OP_UPDATE_TIME_TO_LIVE);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"t-1\",\"TimeToLiveSpecification\":{"
                      "\"AttributeName\":\"expiresAt\",\"Enabled\":true}}");
  assert_string_equal(ddbst_operation_name(DDBST_OP_UPDATE_TIME_TO_LIVE),
                      "UpdateTimeToLive");
  /* still declared: its writes would keep setting it */
  assert_int_equal(ddbst_update_time_to_live_request(m, "expiresAt", b, &err),
                   DDBST_EINVAL);
  assert_string_equal(ddbst_buf_data(b), "");
  assert_string_equal(err.path, "disable");
  assert_string_equal(err.message,
                      "the model still declares expiresAt as its "
                      "ttlAttribute: remove it from the model first, so that "
                      "no write keeps setting it");
  assert_int_equal(ddbst_update_time_to_live_request(m, "oldExpiry", b, &err),
                   DDBST_OP_UPDATE_TIME_TO_LIVE);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"t-1\",\"TimeToLiveSpecification\":{"
                      "\"AttributeName\":\"oldExpiry\",\"Enabled\":false}}");
  assert_int_equal(ddbst_update_time_to_live_request(m, "", b, &err),
                   DDBST_EINVAL);
  assert_string_equal(ddbst_buf_data(b), "");
  assert_string_equal(err.path, "disable");
  assert_int_equal(ddbst_update_time_to_live_request(NULL, NULL, b, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_update_time_to_live_request(m, NULL, NULL, &err),
                   DDBST_EINVAL);
  ddbst_model_free(m);

  /* no ttlAttribute: nothing to enable, and a disable is still built */
  m = load_text(model("t-1", "", ""));
  assert_int_equal(ddbst_update_time_to_live_request(m, NULL, b, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(ddbst_buf_data(b), "");
  assert_string_equal(err.path, "ttlAttribute");
  assert_string_equal(err.message,
                      "the model declares no ttlAttribute to enable; to "
                      "disable time to live, name the attribute it expires "
                      "by");
  assert_int_equal(ddbst_update_time_to_live_request(m, "expiresAt", b, &err),
                   DDBST_OP_UPDATE_TIME_TO_LIVE);
  ddbst_buf_free(b);

  /* a buffer that cannot grow: ENOMEM, empty, no leak */
  for (int n = 1;; n++) {
    counting_alloc c;
    counting_alloc_init(&c);
    c.fail_at = n;
    b = ddbst_buf_new(&c.hooks);
    if (!b) continue;
    int rc = ddbst_update_time_to_live_request(m, "expiresAt", b, &err);
    if (rc == DDBST_OP_UPDATE_TIME_TO_LIVE) {
      ddbst_buf_free(b);
      assert_int_equal(c.live, 0);
      break;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
    assert_int_equal(c.live, 0);
  }
  ddbst_model_free(m);
}

static void local_index_has_no_settings_of_its_own(void **state) {
  (void)state;
  EXPECT_REFUSED(
      q("{'ddbst':1,'table':{'name':'t-1','partitionKey':'PK','sortKey':'SK',"
        "'localIndexes':{'LSI1':{'sortKey':'L1SK','contributorInsights':true}}},"
        "'entities':{'Thing':{'attributes':{'id':'string'},"
        "'key':{'pk':'T#{id}','sk':'T'}}},'patterns':{}}"),
      "table.localIndexes.LSI1.contributorInsights",
      "a local index shares the table's capacity and insights");
}

#define ARN "arn:aws:dynamodb:eu-west-1:123456789012:table/orders-prod"

/* DynamoDB takes a table's ARN wherever it takes a name: so does the
 * model, and the load's override; CloudFormation gets the name. */
static void table_arn_taken_as_name(void **state) {
  (void)state;
  ddbst_model *m = load_text(model(ARN, "", ""));
  assert_string_equal(ddbst_model_table_name(m), ARN);
  assert_string_equal(body(ddbst_describe_table_request, m,
                           DDBST_OP_DESCRIBE_TABLE),
                      "{\"TableName\":\"" ARN "\"}");
  assert_non_null(
      strstr(body(ddbst_create_table_request, m, DDBST_OP_CREATE_TABLE),
             "{\"TableName\":\"" ARN "\","));
  const char *t = template_of(m);
  assert_non_null(strstr(t, "\"Default\":\"orders-prod\""));
  assert_null(strstr(t, "arn:aws"));
  ddbst_model_free(m);

  static const char *const good[] = {
      "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/t-1",
      "arn:aws-us-gov:dynamodb:us-gov-west-1:123456789012:table/t.1_x"};
  for (size_t i = 0; i < 2; i++) {
    m = load_text(model(good[i], "", ""));
    assert_string_equal(ddbst_model_table_name(m), good[i]);
    ddbst_model_free(m);
  }
  static const char *const bad[] = {
      "arn:aws:dynamodb:eu-west-1:12345678901:table/t-1",   /* 11 digits */
      "arn:aws:dynamodb:eu-west-1:123456789012:table/t",    /* short name */
      "arn:aws:dynamodb:eu-west-1:123456789012:table/t-1/stream/x",
      "arn:aws:dynamodb:eu-west-1:123456789012:table/t-1/index/GSI1",
      "arn:aws:s3:eu-west-1:123456789012:table/t-1",
      "arn:gcp:dynamodb:eu-west-1:123456789012:table/t-1",
      "arn:aws:dynamodb::123456789012:table/t-1",
      "arn:aws:dynamodb:eu-west-1:123456789012:tables/t-1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    EXPECT_REFUSED(model(bad[i], "", ""), "table.name",
                   "or the table's ARN, arn:aws:dynamodb:REGION:ACCOUNT:"
                   "table/NAME");

  /* the load option too */
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = ARN;
  const char *text = model("t-1", "", "");
  assert_int_equal(ddbst_model_load(text, strlen(text), &o, &m, NULL), 0);
  assert_string_equal(ddbst_model_table_name(m), ARN);
  ddbst_model_free(m);
}

/* Every allocation of a load with every setting can fail: ENOMEM, no
 * leak (the counting allocator checks). */
static void allocation_failures(void **state) {
  (void)state;
  const char *text = model("t-1", ALL_SETTINGS, GSI_SETTINGS);
  for (int n = 1;; n++) {
    counting_alloc c;
    counting_alloc_init(&c);
    c.fail_at = n;
    ddbst_load_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.allocator = &c.hooks;
    ddbst_model *m = NULL;
    int rc = ddbst_model_load(text, strlen(text), &o, &m, NULL);
    if (rc == 0) {
      ddbst_buf *b = ddbst_buf_new(&c.hooks);
      int r2 = b ? ddbst_model_cloudformation(m, NULL, 0, b, NULL) : 0;
      ddbst_buf_free(b);
      ddbst_model_free(m);
      assert_int_equal(c.live, 0);
      if (b && r2 == 0) break;
      continue;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_int_equal(c.live, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_setting_refused_with_its_path),
      cmocka_unit_test(tag_limits),
      cmocka_unit_test(create_table_carries_every_setting),
      cmocka_unit_test(create_table_without_settings),
      cmocka_unit_test(cloudformation_carries_every_setting),
      cmocka_unit_test(follow_up_requests),
      cmocka_unit_test(time_to_live_requests),
      cmocka_unit_test(local_index_has_no_settings_of_its_own),
      cmocka_unit_test(table_arn_taken_as_name),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
