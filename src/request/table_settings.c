/* The table's settings as CreateTable and CloudFormation declare them
 * (request/table.h), and the requests that set what CreateTable cannot:
 * UpdateContinuousBackups (point-in-time recovery) and
 * UpdateContributorInsights. */
#include <string.h>

#include "request/request.h"
#include "request/table.h"

/* `unset`: what stands for a member the model leaves out (0: nothing). */
static void throughput(ddbst__jw *w, const char *member,
                       const ddbst__throughput *t, const char *read,
                       const char *write, int unset) {
  if (!t->read && !t->write) return;
  ddbst__jw_key(w, member);
  ddbst__jw_open(w, '{');
  if (t->read || unset) {
    ddbst__jw_key(w, read);
    ddbst__jw_int(w, t->read ? (long long)t->read : unset);
  }
  if (t->write || unset) {
    ddbst__jw_key(w, write);
    ddbst__jw_int(w, t->write ? (long long)t->write : unset);
  }
  ddbst__jw_close(w, '}');
}

/* An on-demand maximum the model leaves out is -1 in the API's form, "no
 * maximum" as DynamoDB documents it (DynamoDB Local refuses a missing
 * one); CloudFormation's form, whose minimum is 1, leaves it out. */
static void capacity(ddbst__jw *w, const ddbst__throughput *on_demand,
                     const ddbst__throughput *warm, int cfn) {
  throughput(w, "OnDemandThroughput", on_demand, "MaxReadRequestUnits",
             "MaxWriteRequestUnits", cfn ? 0 : -1);
  throughput(w, "WarmThroughput", warm, "ReadUnitsPerSecond",
             "WriteUnitsPerSecond", 0);
}

static void insights_cfn(ddbst__jw *w, int enabled) {
  if (enabled < 0) return;
  ddbst__jw_key(w, "ContributorInsightsSpecification");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "Enabled");
  ddbst__jw_bool(w, enabled);
  ddbst__jw_close(w, '}');
}

void ddbst__table_index_settings(ddbst__jw *w, const ddbst__index *ix,
                                 int cfn) {
  capacity(w, &ix->settings.on_demand, &ix->settings.warm, cfn);
  if (cfn) insights_cfn(w, ix->settings.contributor_insights);
}

/* {"PointInTimeRecoveryEnabled":...,"RecoveryPeriodInDays":...}: on
 * unless the model turns it off (CloudFormation's template always said
 * so; the data is worth the cost). */
static void pitr_body(ddbst__jw *w, const ddbst_model *m) {
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "PointInTimeRecoveryEnabled");
  ddbst__jw_bool(w, m->settings.pitr != 0);
  if (m->settings.pitr != 0 && m->settings.pitr_days) {
    ddbst__jw_key(w, "RecoveryPeriodInDays");
    ddbst__jw_int(w, m->settings.pitr_days);
  }
  ddbst__jw_close(w, '}');
}

void ddbst__table_settings_write(ddbst__jw *w, const ddbst_model *m, int cfn) {
  const ddbst__table_settings *s = &m->settings;
  capacity(w, &s->on_demand, &s->warm, cfn);
  if (s->deletion_protection >= 0) {
    ddbst__jw_key(w, "DeletionProtectionEnabled");
    ddbst__jw_bool(w, s->deletion_protection);
  }
  if (s->table_class) ddbst__jw_pair(w, "TableClass", s->table_class);
  if (s->ntags) {
    ddbst__jw_key(w, "Tags");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < s->ntags; i++) {
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "Key", s->tag_keys[i]);
      ddbst__jw_pair(w, "Value", s->tag_values[i]);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
  }
  if (s->resource_policy && !cfn) {
    ddbst__jw_pair(w, "ResourcePolicy", s->resource_policy);
  } else if (s->resource_policy) {
    ddbst__jw_key(w, "ResourcePolicy");
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "PolicyDocument");
    ddbst__jw_json(w, s->resource_policy, strlen(s->resource_policy));
    ddbst__jw_close(w, '}');
  }
  if (!cfn) return;
  ddbst__jw_key(w, "PointInTimeRecoverySpecification");
  pitr_body(w, m);
  insights_cfn(w, s->contributor_insights);
}

int ddbst_update_continuous_backups_request(const ddbst_model *m,
                                            ddbst_buf *out, ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (rc) return rc;
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  ddbst__jw_key(&w, "PointInTimeRecoverySpecification");
  pitr_body(&w, m);
  return ddbst__table_body_close(&w, out, DDBST_OP_UPDATE_CONTINUOUS_BACKUPS,
                                 err);
}

int ddbst_update_contributor_insights_request(const ddbst_model *m,
                                              const char *index,
                                              ddbst_buf *out,
                                              ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (rc) return rc;
  int enabled = m->settings.contributor_insights;
  if (index) {
    int ix = ddbst__table_global_index(
        m, index, "index: its insights are the table's", err);
    if (ix < 0) return ix;
    enabled = m->indexes[ix].settings.contributor_insights;
  }
  if (enabled < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND,
                       index ? "index" : "contributorInsights",
                       "the model does not declare contributorInsights for "
                       "%s%.64s",
                       index ? "index " : "the table", index ? index : "");
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  if (index) ddbst__jw_pair(&w, "IndexName", index);
  ddbst__jw_pair(&w, "ContributorInsightsAction",
                 enabled ? "ENABLE" : "DISABLE");
  return ddbst__table_body_close(&w, out,
                                 DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS, err);
}
