/* The model as a CloudFormation template: its Parameters (the table's
 * name and a stage), the table's resource (its schema from
 * request/table.c), the IAM policy (iam.c), the Outputs (name, ARN, stream
 * ARN) and, when asked, Lambda stream filters (stream_filters.c). */
#include <string.h>

#include "request/table.h"
#include "review/cloudformation.h"

static void json(ddbst__jw *w, const char *fixed) {
  ddbst__jw_json(w, fixed, strlen(fixed));
}

static void param(ddbst__jw *w, const char *id, const char *dflt,
                  const char *pattern, const char *desc) {
  ddbst__jw_key(w, id);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Type", "String");
  ddbst__jw_pair(w, "Default", dflt);
  ddbst__jw_pair(w, "AllowedPattern", pattern);
  ddbst__jw_pair(w, "Description", desc);
  ddbst__jw_close(w, '}');
}

/* One template for every stage: the table is TableName, or
 * TableName-Stage when a stage is given. TableName defaults to the
 * model's (an ARN's name part: CloudFormation takes a name only). */
static void parameters(ddbst__jw *w, const ddbst_model *m) {
  ddbst__jw_key(w, "Parameters");
  ddbst__jw_open(w, '{');
  param(w, "TableName", m->table_plain_name, "[A-Za-z0-9_.-]{3,200}",
        "The table's name (the model's by default)");
  param(w, "Stage", "", "[A-Za-z0-9_.-]{0,50}",
        "When given (dev, prod), the table is named TableName-Stage");
  ddbst__jw_close(w, '}');
  ddbst__jw_key(w, "Conditions");
  json(w, "{\"HasStage\":{\"Fn::Not\":[{\"Fn::Equals\":[{\"Ref\":"
          "\"Stage\"},\"\"]}]}}");
}

static void table_name(ddbst__jw *w) {
  ddbst__jw_key(w, "TableName");
  /* Fn::Join, not Fn::Sub: serverless.yml reads "${...}" as its own
   * variables. */
  json(w, "{\"Fn::If\":[\"HasStage\",{\"Fn::Join\":[\"-\",[{\"Ref\":"
          "\"TableName\"},{\"Ref\":\"Stage\"}]]},{\"Ref\":\"TableName\"}]}");
}

/* An output, exported as <stack name>-<id> for other stacks. */
static void output(ddbst__jw *w, const char *id, const char *desc,
                   const char *attribute) {
  ddbst__jw_key(w, id);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Description", desc);
  ddbst__jw_key(w, "Value");
  ddbst__jw_open(w, '{');
  if (attribute) {
    ddbst__jw_key(w, "Fn::GetAtt");
    ddbst__jw_open(w, '[');
    ddbst__jw_str(w, DDBST__CFN_TABLE_ID);
    ddbst__jw_str(w, attribute);
    ddbst__jw_close(w, ']');
  } else {
    ddbst__jw_pair(w, "Ref", DDBST__CFN_TABLE_ID);
  }
  ddbst__jw_close(w, '}');
  ddbst__jw_key(w, "Export");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "Name");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "Fn::Join");
  ddbst__jw_open(w, '[');
  ddbst__jw_str(w, "-");
  ddbst__jw_open(w, '[');
  json(w, "{\"Ref\":\"AWS::StackName\"}");
  ddbst__jw_str(w, id);
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
}

static void outputs(ddbst__jw *w, const ddbst_model *m) {
  ddbst__jw_key(w, "Outputs");
  ddbst__jw_open(w, '{');
  output(w, "TableName", "The table's name", NULL);
  output(w, "TableArn", "The table's ARN", "Arn");
  if (m->stream != DDBST__STREAM_NONE)
    output(w, "StreamArn", "The table's stream's ARN", "StreamArn");
  ddbst__jw_close(w, '}');
}

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
  table_name(w);
  ddbst__table_billing_mode(w);
  ddbst__table_attribute_definitions(w, m);
  ddbst__table_key_schema(w, m->pk_attr, m->sk_attr);
  ddbst__table_global_secondary_indexes_cfn(w, m);
  ddbst__table_local_secondary_indexes(w, m);
  ddbst__table_stream_specification(w, m, 0);
  ddbst__table_settings_write(w, m, 1);
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
  /* Resources first: the template pastes under a serverless.yml's
   * `resources:`, where Parameters, Conditions and Outputs merge too. */
  ddbst__jw_key(&w, "Resources");
  ddbst__jw_open(&w, '{');
  table_resource(&w, model);
  ddbst__cfn_policy_resource(&w, model);
  ddbst__jw_close(&w, '}');
  parameters(&w, model);
  outputs(&w, model);
  int rc = ddbst__cfn_stream_filters(&w, model, stream_filters, nfilters, err);
  ddbst__jw_close(&w, '}');
  if (!rc && w.rc) rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (rc) ddbst__buf_truncate(out, start);
  return rc;
}
