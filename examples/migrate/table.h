/* The table steps of a plan: DescribeTable read for what the driver needs
 * (the table's status, item count and size; each global index's status),
 * UpdateTable to add or remove an index, and the wait until DynamoDB has
 * done it. */
#ifndef MIGRATE_TABLE_H
#define MIGRATE_TABLE_H

#include <stdint.h>

#include "ddb.h"

typedef struct table_info {
  char status[32];       /* TableStatus: "ACTIVE", "UPDATING", ... */
  int64_t item_count;    /* ItemCount (AWS refreshes it about every 6 h) */
  int64_t size_bytes;    /* TableSizeBytes (likewise) */
} table_info;

/* DescribeTable of `model`'s table into *t. 0, or -1 said on stderr. */
int table_describe(ddb *c, const ddbst_model *model, table_info *t);

/* The IndexStatus of global index `index` in the last DescribeTable answer
 * on `c`: "ACTIVE", "CREATING", "DELETING", "UPDATING" into `status`, 1;
 * 0 when the table has no such index. */
int table_index_status(const ddb *c, const char *index, char *status,
                       size_t n);

/* Plan step `step` of `m`, an index to add (`adding`) or remove: sends its
 * UpdateTable unless DynamoDB has done it or is doing it already (a step
 * run again after a restart), then polls DescribeTable every second until
 * the index is ACTIVE (added) or gone (removed). 0, or -1 said on stderr. */
int table_index_step(ddb *c, const ddbst_model *model, ddbst_migration *m,
                     int step, const char *index, int adding);

#endif
