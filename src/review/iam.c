/* The IAM policy of the template: exactly the DynamoDB actions the model's
 * access patterns and writes need, on the table and its indexes only. */
#include <stdio.h>

#include "review/cloudformation.h"

/* Fixed, like the table's (review/cloudformation.h says why). */
#define POLICY_ID "AppTableAccess"

/* {"Fn::GetAtt": ["AppTable", "Arn"]} */
static void table_arn(ddbst__jw *w) {
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "Fn::GetAtt");
  ddbst__jw_open(w, '[');
  ddbst__jw_str(w, DDBST__CFN_TABLE_ID);
  ddbst__jw_str(w, "Arn");
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
}

/* The actions, in the order the first seed lists them. Transactions have no
 * action of their own: IAM authorises each Put, Update and Delete inside one
 * by that action. */
static void policy_actions(ddbst__jw *w, const ddbst_model *m) {
  int get = 0, query = 0, scan = 0, batch_get = 0;
  for (int i = 0; i < m->npatterns; i++) {
    const ddbst__pattern *p = &m->patterns[i];
    if (p->op == DDBST__OP_GET) get = 1;
    if (p->op == DDBST__OP_QUERY) query = 1;
    if (p->op == DDBST__OP_SCAN) scan = 1;
    /* An index that does not project the whole item answers with keys; the
     * items themselves are then read from the table by key. */
    if (p->op != DDBST__OP_GET && p->index >= 0 &&
        m->indexes[p->index].projection != DDBST__PROJ_ALL) {
      if (p->limit_max == 1)
        get = 1;
      else
        batch_get = 1;
    }
  }
  ddbst__jw_key(w, "Action");
  ddbst__jw_open(w, '[');
  if (get) ddbst__jw_str(w, "dynamodb:GetItem");
  ddbst__jw_str(w, "dynamodb:PutItem");
  ddbst__jw_str(w, "dynamodb:UpdateItem");
  ddbst__jw_str(w, "dynamodb:DeleteItem");
  if (query) ddbst__jw_str(w, "dynamodb:Query");
  if (scan) ddbst__jw_str(w, "dynamodb:Scan");
  if (batch_get) ddbst__jw_str(w, "dynamodb:BatchGetItem");
  ddbst__jw_close(w, ']');
}

void ddbst__cfn_policy_resource(ddbst__jw *w, const ddbst_model *m) {
  char desc[400];
  snprintf(desc, sizeof desc,
           "What the ddbst model of %.255s needs: its access patterns and "
           "writes, on the table and its indexes only",
           m->table_plain_name);
  ddbst__jw_key(w, POLICY_ID);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Type", "AWS::IAM::ManagedPolicy");
  ddbst__jw_key(w, "Properties");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Description", desc);
  ddbst__jw_key(w, "PolicyDocument");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Version", "2012-10-17");
  ddbst__jw_key(w, "Statement");
  ddbst__jw_open(w, '[');
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "Effect", "Allow");
  policy_actions(w, m);
  ddbst__jw_key(w, "Resource");
  ddbst__jw_open(w, '[');
  table_arn(w);
  if (m->nindexes) {
    /* Fn::Join rather than Fn::Sub: "${...}" would be read as a Serverless
     * variable when the YAML form is pasted into serverless.yml. */
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "Fn::Join");
    ddbst__jw_open(w, '[');
    ddbst__jw_str(w, "");
    ddbst__jw_open(w, '[');
    table_arn(w);
    ddbst__jw_str(w, "/index/*");
    ddbst__jw_close(w, ']');
    ddbst__jw_close(w, ']');
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
}
