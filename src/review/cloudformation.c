/* The model as a CloudFormation template: the table's resource (its schema
 * from request/table.c), the IAM policy (iam.c) and, when asked, Lambda
 * stream filters (stream_filters.c). */
#include "request/table.h"
#include "review/cloudformation.h"

static void table_resource(ddbst__jw *w, const ddbst_model *m) {
  ddbst__jw_key(w, DDBST__CFN_TABLE_ID);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Type", "AWS::DynamoDB::Table");
  /* The data outlives a `serverless remove` and a rollback that would
   * replace the table. */
  ddbst__jw_pair(w, "DeletionPolicy", "Retain");
  ddbst__jw_pair(w, "UpdateReplacePolicy", "Retain");
  ddbst__jw_key(w, "Properties");
  ddbst__jw_open(w, '{');
  /* Named, so that a change forcing replacement fails loudly instead of
   * creating a new empty table. */
  ddbst__jw_pair(w, "TableName", m->table_name);
  ddbst__table_billing_mode(w);
  ddbst__table_attribute_definitions(w, m);
  ddbst__table_key_schema(w, m->pk_attr, m->sk_attr);
  ddbst__table_global_secondary_indexes(w, m);
  ddbst__table_local_secondary_indexes(w, m);
  ddbst__table_stream_specification(w, m, 0);
  ddbst__jw_key(w, "PointInTimeRecoverySpecification");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "PointInTimeRecoveryEnabled");
  ddbst__jw_bool(w, 1);
  ddbst__jw_close(w, '}');
  ddbst__jw_key(w, "SSESpecification");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "SSEEnabled");
  ddbst__jw_bool(w, 1);
  ddbst__jw_close(w, '}');
  ddbst__table_ttl_specification(w, m);
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
}

int ddbst_model_cloudformation(const ddbst_model *model,
                               const char *const *stream_filters,
                               size_t nfilters, ddbst_buf *out,
                               ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!model || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "Resources");
  ddbst__jw_open(&w, '{');
  table_resource(&w, model);
  ddbst__cfn_policy_resource(&w, model);
  ddbst__jw_close(&w, '}');
  int rc = ddbst__cfn_stream_filters(&w, model, stream_filters, nfilters, err);
  ddbst__jw_close(&w, '}');
  if (!rc && w.rc) rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (rc) ddbst__buf_truncate(out, start);
  return rc;
}
