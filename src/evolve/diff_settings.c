/* The diff of the table's settings beyond keys and indexes, and of a
 * global index's own (model/table_settings.h): each is free for the items,
 * and each names the request that makes it on a live table, since
 * CreateTable's members reach only a new one. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

enum { SETTING_TEXT = 96 };

static int same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_throughput(const ddbst__throughput *a,
                           const ddbst__throughput *b) {
  return a->read == b->read && a->write == b->write;
}

/* "read 1000, write 500", "read 1000", or `none` when neither is declared:
 * the model's figures under the names the model file gives them. */
static const char *throughput_text(char out[SETTING_TEXT],
                                   const ddbst__throughput *t,
                                   const char *read, const char *write,
                                   const char *none) {
  if (!t->read && !t->write) return none;
  int n = 0;
  if (t->read)
    n = snprintf(out, SETTING_TEXT, "%s %lld", read, (long long)t->read);
  if (t->write)
    snprintf(out + n, SETTING_TEXT - (size_t)n, "%s%s %lld", n ? ", " : "",
             write, (long long)t->write);
  return out;
}

/* The on-demand maximum and warm throughput of the table (`index` NULL) or
 * of a global index: both set by UpdateTable, an index's inside
 * GlobalSecondaryIndexUpdates' Update. */
static void capacity(ddbst__differ *d, const char *path, const char *index,
                     const ddbst__throughput *od_old,
                     const ddbst__throughput *od_new,
                     const ddbst__throughput *warm_old,
                     const ddbst__throughput *warm_new) {
  char what[DDBST__REASON_MAX], a[SETTING_TEXT], b[SETTING_TEXT];
  const char *where = index ? "GlobalSecondaryIndexUpdates Update " : "";
  if (!same_throughput(od_old, od_new)) {
    snprintf(what, sizeof what, "%s.onDemandThroughput", path);
    ddbst__diff_report(
        d, DDBST_CHANGE_FREE, what,
        "the on-demand maximum of %s, %s, becomes %s (UpdateTable %s"
        "OnDemandThroughput, a figure left out -1): no item changes",
        index ? index : "the table",
        throughput_text(a, od_old, "maxReadRequestUnits",
                        "maxWriteRequestUnits", "no maximum"),
        throughput_text(b, od_new, "maxReadRequestUnits",
                        "maxWriteRequestUnits", "no maximum"),
        where);
  }
  if (!same_throughput(warm_old, warm_new)) {
    /* DynamoDB raises warm throughput and never lowers it */
    int lowered = warm_new->read < warm_old->read ||
                  warm_new->write < warm_old->write;
    snprintf(what, sizeof what, "%s.warmThroughput", path);
    ddbst__diff_report(
        d, DDBST_CHANGE_FREE, what,
        "the warm throughput of %s, %s, becomes %s (UpdateTable %s"
        "WarmThroughput): no item changes%s",
        index ? index : "the table",
        throughput_text(a, warm_old, "readUnitsPerSecond",
                        "writeUnitsPerSecond", "DynamoDB's own"),
        throughput_text(b, warm_new, "readUnitsPerSecond",
                        "writeUnitsPerSecond", "DynamoDB's own"),
        where,
        lowered ? "; DynamoDB only raises warm throughput, so a table "
                  "already warmer stays so"
                : "");
  }
}

/* Contributor insights: -1 (not declared) is DynamoDB's default, off; a
 * table that had them keeps them until told, and the model's builder
 * needs the setting declared to tell it. */
static void insights(ddbst__differ *d, const char *path, const char *index,
                     int was, int is) {
  if ((was > 0) == (is > 0)) return;
  char what[DDBST__REASON_MAX];
  snprintf(what, sizeof what, "%s.contributorInsights", path);
  if (is < 0)
    ddbst__diff_report(d, DDBST_CHANGE_FREE, what,
                       "contributor insights of %s%s are no longer "
                       "declared: they stay on until disabled "
                       "(UpdateContributorInsights, DISABLE; declare false "
                       "for ddbst_update_contributor_insights_request): no "
                       "item changes",
                       index ? "the index " : "the table", index ? index : "");
  else
    ddbst__diff_report(d, DDBST_CHANGE_FREE, what,
                       "contributor insights of %s%s are %s "
                       "(UpdateContributorInsights, "
                       "ddbst_update_contributor_insights_request, %s): no "
                       "item changes",
                       index ? "the index " : "the table", index ? index : "",
                       is ? "enabled" : "disabled", is ? "ENABLE" : "DISABLE");
}

static int tag_of(const ddbst__table_settings *s, const char *key) {
  for (int i = 0; i < s->ntags; i++)
    if (strcmp(s->tag_keys[i], key) == 0) return i;
  return -1;
}

/* Appends `key` to the list in `out` (its text so far `*n` bytes). */
static void list_add(char *out, size_t cap, size_t *n, const char *key) {
  if (*n >= cap) return;
  int k = snprintf(out + *n, cap - *n, "%s%s", *n ? ", " : "", key);
  if (k > 0) *n += (size_t)k;
}

/* Tags set or changed go by TagResource, tags dropped by UntagResource;
 * both take the table's ARN. */
static void tags(ddbst__differ *d, const ddbst__table_settings *o,
                 const ddbst__table_settings *n) {
  char set[DDBST__REASON_MAX / 2] = "", gone[DDBST__REASON_MAX / 4] = "";
  size_t nset = 0, ngone = 0;
  for (int i = 0; i < n->ntags; i++) {
    int j = tag_of(o, n->tag_keys[i]);
    if (j < 0 || strcmp(o->tag_values[j], n->tag_values[i]) != 0)
      list_add(set, sizeof set, &nset, n->tag_keys[i]);
  }
  for (int i = 0; i < o->ntags; i++)
    if (tag_of(n, o->tag_keys[i]) < 0)
      list_add(gone, sizeof gone, &ngone, o->tag_keys[i]);
  if (!nset && !ngone) return;
  ddbst__diff_report(d, DDBST_CHANGE_FREE, "table.tags",
                     "the table's tags change (by the table's ARN):%s%s%s%s"
                     "%s%s: no item changes",
                     nset ? " TagResource sets " : "", set,
                     nset && ngone ? ";" : "",
                     ngone ? " UntagResource removes " : "", gone, "");
}

void ddbst__diff_table_settings(ddbst__differ *d) {
  const ddbst__table_settings *o = &d->old->settings, *n = &d->next->settings;
  capacity(d, "table", NULL, &o->on_demand, &n->on_demand, &o->warm,
           &n->warm);
  if ((o->deletion_protection > 0) != (n->deletion_protection > 0))
    ddbst__diff_report(d, DDBST_CHANGE_FREE, "table.deletionProtection",
                       "deletion protection is %s (UpdateTable "
                       "DeletionProtectionEnabled %s): no item changes",
                       n->deletion_protection > 0 ? "turned on" : "turned off",
                       n->deletion_protection > 0 ? "true" : "false");
  /* on unless the model says false (request/table_settings.c) */
  int pitr_was = o->pitr != 0, pitr_is = n->pitr != 0;
  if (pitr_was != pitr_is || (pitr_is && o->pitr_days != n->pitr_days)) {
    char a[SETTING_TEXT], b[SETTING_TEXT];
    snprintf(a, sizeof a, o->pitr_days ? "%d days" : "35 days", o->pitr_days);
    snprintf(b, sizeof b, n->pitr_days ? "%d days" : "35 days", n->pitr_days);
    ddbst__diff_report(
        d, DDBST_CHANGE_FREE, "table.pointInTimeRecovery",
        "point-in-time recovery %s%s%s%s (UpdateContinuousBackups, "
        "ddbst_update_continuous_backups_request): no item changes%s",
        !pitr_is ? "is turned off"
        : !pitr_was ? "is turned on, keeping "
                    : "keeps ",
        pitr_is ? b : "", pitr_is && pitr_was ? " instead of " : "",
        pitr_is && pitr_was ? a : "",
        !pitr_is ? "; the restore points kept so far are lost" : "");
  }
  if (!same_str(o->table_class ? o->table_class : "STANDARD",
                n->table_class ? n->table_class : "STANDARD"))
    ddbst__diff_report(d, DDBST_CHANGE_FREE, "table.tableClass",
                       "the table class %s becomes %s (UpdateTable "
                       "TableClass): no item changes",
                       o->table_class ? o->table_class : "STANDARD",
                       n->table_class ? n->table_class : "STANDARD");
  insights(d, "table", NULL, o->contributor_insights,
           n->contributor_insights);
  tags(d, o, n);
  if (!same_str(o->resource_policy, n->resource_policy))
    ddbst__diff_report(
        d, DDBST_CHANGE_FREE, "table.resourcePolicy",
        "the table's resource policy %s (%s, by the table's ARN): no item "
        "changes",
        !n->resource_policy   ? "is removed"
        : !o->resource_policy ? "is added"
                              : "changes",
        n->resource_policy ? "PutResourcePolicy" : "DeleteResourcePolicy");
}

void ddbst__diff_index_settings(ddbst__differ *d, int oi, int ni) {
  const ddbst__index *a = &d->old->indexes[oi], *b = &d->next->indexes[ni];
  if (b->local) return; /* a local index has none of its own */
  char path[DDBST__REASON_MAX / 2]; /* an index name is at most 255 */
  snprintf(path, sizeof path, "table.indexes.%s", b->name);
  capacity(d, path, b->name, &a->settings.on_demand, &b->settings.on_demand,
           &a->settings.warm, &b->settings.warm);
  insights(d, path, b->name, a->settings.contributor_insights,
           b->settings.contributor_insights);
}
