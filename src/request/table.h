/* The table's schema, written once: CreateTable's body and CloudFormation's
 * AWS::DynamoDB::Table properties both hold these members in the same form
 * (CloudFormation mirrors the API), so each rule — which attributes are
 * declared, the key types, the indexes' projections, the stream's view — is
 * one function here. */
#ifndef DDBST_REQUEST_TABLE_H
#define DDBST_REQUEST_TABLE_H

#include "json/jw.h"
#include "model/model.h"

/* "AttributeDefinitions":[...]: every key attribute of the table and its
 * indexes once, in the order they name them, as strings (ddbst's keys are
 * text). DynamoDB and CloudFormation refuse definitions no key uses, and
 * duplicates. */
void ddbst__table_attribute_definitions(ddbst__jw *w, const ddbst_model *m);

/* The same for index `only` alone (UpdateTable's Create), or all (-1). */
void ddbst__table_attribute_definitions_of(ddbst__jw *w, const ddbst_model *m,
                                           int only);

/* One index's {"IndexName","KeySchema","Projection"} and its settings:
 * CreateTable's element and UpdateTable's Create alike. */
void ddbst__table_index(ddbst__jw *w, const ddbst__index *ix);

/* The same element as CloudFormation declares it (with the index's
 * ContributorInsightsSpecification). */
void ddbst__table_index_cfn(ddbst__jw *w, const ddbst__index *ix);

/* "KeySchema":[...]: the partition key (HASH), then the sort key (RANGE)
 * when there is one. */
void ddbst__table_key_schema(ddbst__jw *w, const char *pk, const char *sk);

/* "BillingMode": on demand, so that nothing needs capacity planning (and
 * the indexes need no ProvisionedThroughput). */
void ddbst__table_billing_mode(ddbst__jw *w);

/* "GlobalSecondaryIndexes":[...], each with its key schema and projection;
 * nothing when the table has no global index. */
void ddbst__table_global_secondary_indexes(ddbst__jw *w,
                                           const ddbst_model *m);
/* The same in CloudFormation's form (ddbst__table_index_cfn). */
void ddbst__table_global_secondary_indexes_cfn(ddbst__jw *w,
                                               const ddbst_model *m);

/* "LocalSecondaryIndexes":[...], each with its key schema (the table's
 * partition key, its own sort key) and projection; nothing when the table
 * has no local index. DynamoDB creates them with the table only. */
void ddbst__table_local_secondary_indexes(ddbst__jw *w, const ddbst_model *m);

/* The stream view type as DynamoDB spells it ("NEW_IMAGE"), NULL for
 * none. */
const char *ddbst__stream_view_name(ddbst__stream s);

/* "StreamSpecification":{...} with the stream's view type; nothing when the
 * table has no stream. CreateTable's form (`api`) says StreamEnabled as
 * well; CloudFormation's has the view alone. */
void ddbst__table_stream_specification(ddbst__jw *w, const ddbst_model *m,
                                       int api);

/* "TimeToLiveSpecification":{...} on the model's TTL attribute; nothing
 * when it has none. CloudFormation's form, and UpdateTimeToLive's (which
 * CreateTable cannot do). */
void ddbst__table_ttl_specification(ddbst__jw *w, const ddbst_model *m);

/* The table's settings (model/table_settings.h) as CreateTable's members
 * (`cfn` 0: OnDemandThroughput, WarmThroughput, DeletionProtectionEnabled,
 * TableClass, Tags, ResourcePolicy as a string) or as
 * AWS::DynamoDB::Table's properties (`cfn` 1: the same, ResourcePolicy's
 * PolicyDocument as an object, and PointInTimeRecoverySpecification and
 * ContributorInsightsSpecification, which the API sets by requests of
 * their own). Nothing for what the model does not declare
 * (request/table_settings.c). */
void ddbst__table_settings_write(ddbst__jw *w, const ddbst_model *m, int cfn);

/* A global index's OnDemandThroughput and WarmThroughput (CreateTable's,
 * UpdateTable's Create and CloudFormation's alike), and with `cfn` its
 * ContributorInsightsSpecification. */
void ddbst__table_index_settings(ddbst__jw *w, const ddbst__index *ix,
                                 int cfn);

/* ---- what every table request's body shares (table_body.c) ---- */

/* The builders' contract: `out` emptied (builders replace), then 0, or
 * DDBST_EINVAL ("model or buffer is NULL"). */
int ddbst__table_args(const ddbst_model *m, ddbst_buf *out, ddbst_error *err);

/* {"TableName":"<the model's table>" into `out`, emptied by
 * ddbst__table_args: the members follow, then ddbst__table_body_close. */
void ddbst__table_body_open(ddbst__jw *w, const ddbst_model *m,
                            ddbst_buf *out);

/* The closing brace: `op`, or the writer's error with `out` empty. */
int ddbst__table_body_close(ddbst__jw *w, ddbst_buf *out, int op,
                            ddbst_error *err);

/* The model's global index `name`: its index, or DDBST_ENOTFOUND (no such
 * index) or DDBST_EINVAL ("NAME is a local " `why_not_local`) at path
 * "index". */
int ddbst__table_global_index(const ddbst_model *m, const char *name,
                              const char *why_not_local, ddbst_error *err);

/* "TimeToLiveSpecification":{"AttributeName":attr,"Enabled":enabled}:
 * UpdateTimeToLive's and CloudFormation's. */
void ddbst__table_time_to_live(ddbst__jw *w, const char *attr, int enabled);

#endif
