/* The final checks of the migration proof (migrate_checks.c): the table,
 * every pattern of the NEW model and its indexes against the oracle. */
#ifndef DDBST_ITEST_MIGRATE_CHECKS_H
#define DDBST_ITEST_MIGRATE_CHECKS_H

#include "fixture.h"
#include "migrate_data.h"

/* A full scan of the table holds exactly the oracle's live items, each
 * once, each exactly as a put of the NEW model writes it (keys, index
 * keys, defaults, values; nothing more): no old key, no stale index
 * attribute, nothing lost or duplicated. f->model is the NEW model. */
void mig_check_table(itest_fixture *f, mig_store *oracle);

/* Every query pattern of the NEW model returns, partition by partition,
 * exactly the oracle's items in the pattern's order; the gets find theirs;
 * each index holds exactly the items that belong in it. */
void mig_check_patterns(itest_fixture *f, mig_store *oracle);

/* ddbst_migration_verify over a full scan: the number of problems (each
 * printed). */
int mig_verify_all(itest_fixture *f, const ddbst_model *old_model);

#endif
