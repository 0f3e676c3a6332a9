/* The data of the migration proof (test_migration_proof.c): the items written
 * under the OLD model before the migration, and the store that replays the
 * writer's log on top of them — the oracle of what the table must hold at
 * the end. The writer keeps one too, to choose items that exist.
 *
 * Items are kept as items of the NEW model, in its canonical values (an
 * order's placedAt at milliseconds), by identity: the entity and its id
 * ("Order/o0007-03"), which no key change touches.
 *
 * The writer's log, one line per write DynamoDB accepted:
 *   P Entity {"name":"value",...}          a put: the item is these values
 *   U Entity {"name":"value",...} -attr    an update: these values set, the
 *                                          attributes after '-' removed
 *   D Entity {"name":"value",...}          a delete (the id is enough)
 * Values are JSON strings of the values' text, as ddbst_item_set reads it. */
#ifndef DDBST_ITEST_MIGRATE_DATA_H
#define DDBST_ITEST_MIGRATE_DATA_H

#include <stddef.h>

#include "ddbst.h"

#define MIG_OLD_MODEL \
  DDBST_SOURCE_DIR "/tests/integration/models/migration_proof_old.json"
#define MIG_NEW_MODEL \
  DDBST_SOURCE_DIR "/tests/integration/models/migration_proof_new.json"

/* Items per account written before the migration: the account, its
 * orders and its tickets. */
#define MIG_ORDERS 24
#define MIG_TICKETS 15
#define MIG_PER_ACCOUNT (1 + MIG_ORDERS + MIG_TICKETS)

/* Accounts of the proof: DDBST_MIGRATE_ACCOUNTS when set, else 500
 * (20,000 items), or 100 under AddressSanitizer (4,000 items: the asan
 * pass of CI runs every integration test, and each request costs more). */
int mig_accounts(void);

/* Initial item `n` (0 <= n < accounts * MIG_PER_ACCOUNT): its entity name
 * and its values as a JSON object, into `json` (cap bytes). */
const char *mig_initial(int n, char *json, size_t cap);

typedef struct mig_record {
  char id[48];       /* "Order/o0007-03" */
  int entity;        /* of the NEW model */
  int live;          /* 0 once deleted */
  ddbst_item *item;  /* NEW model values */
} mig_record;

typedef struct mig_store mig_store;

/* The initial items of `accounts` accounts, as NEW model items. NULL with
 * a message on stderr when a value is refused or memory runs out. */
mig_store *mig_store_new(const ddbst_model *new_model, int accounts);
void mig_store_free(mig_store *s);

/* Applies one log line. 0, or -1 with the reason in `why`. */
int mig_store_apply(mig_store *s, const char *line, char *why, size_t n);

/* Records, live or not, in the order they were first written. */
size_t mig_store_count(const mig_store *s);
mig_record *mig_store_record(mig_store *s, size_t i);
/* The record of `id`, or NULL. */
mig_record *mig_store_find(mig_store *s, const char *id);

/* The identity of an item of the NEW model ("Order/o0007-03") into `out`;
 * 0, or -1 when its id is unset. */
int mig_identity(const ddbst_model *m, const ddbst_item *item, char *out,
                 size_t cap);

/* Every value `item` holds as a JSON object of strings, into `out`
 * (replacing). 0 or a ddbst error. */
int mig_values_json(const ddbst_model *m, const ddbst_item *item,
                    ddbst_buf *out);

#endif
