/* The table's name (or ARN) and its settings beyond keys and indexes
 * (load_table_settings.c): on-demand maximum and warm throughput,
 * deletion protection, point-in-time recovery, table class, contributor
 * insights, tags and a resource policy, each checked against DynamoDB's
 * documented limits at load. */
#ifndef DDBST_MODEL_TABLE_SETTINGS_H
#define DDBST_MODEL_TABLE_SETTINGS_H

#include "model/load.h"

/* DynamoDB's rule for table and index names: 3 to 255 of
 * [A-Za-z0-9_.-]. */
int ddbst__is_table_name(const char *s);

/* A table name, or a table's ARN
 * (arn:<aws|aws-cn|aws-us-gov|...>:dynamodb:<region>:<12-digit account>:
 * table/<name>): NULL when `s` is neither; else the name part (s itself
 * for a plain name). */
const char *ddbst__table_name_part(const char *s);

/* The members of table (onDemandThroughput, warmThroughput,
 * deletionProtection, pointInTimeRecovery, tableClass,
 * contributorInsights, tags, resourcePolicy) into L->m->settings. */
void ddbst__load_table_settings(ddbst__loader *L, const ddbst__jnode *t);

/* A global index's onDemandThroughput, warmThroughput and
 * contributorInsights into ix->settings; a local index has none of its
 * own (it shares the table's capacity), and says so. */
void ddbst__load_index_settings(ddbst__loader *L, const ddbst__jnode *n,
                                ddbst__index *ix);

/* The names load_table_settings reads, for the unknown-field checks of
 * table and of an index: NULL-terminated. */
extern const char *const ddbst__table_setting_fields[];
extern const char *const ddbst__index_setting_fields[];

#endif
