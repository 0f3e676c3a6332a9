/* What each entry of a transaction does, recorded by the request builders
 * (transact.c) so that a cancellation can be explained in the model's words
 * (response/explain.c reads it beside the error body a page parsed). */
#ifndef DDBST_REQUEST_TXN_VIEW_H
#define DDBST_REQUEST_TXN_VIEW_H

#include "item/item.h"

enum { DDBST__TXN_MAX = 100 }; /* DynamoDB's limit on one transaction */

/* What one TransactItems entry does. */
typedef enum {
  DDBST__TXOP_PUT,
  DDBST__TXOP_CREATE,
  DDBST__TXOP_UPDATE,
  DDBST__TXOP_DELETE,
  DDBST__TXOP_CHECK,
  DDBST__TXOP_GET,
  DDBST__TXOP_GUARD_PUT,   /* claims a unique value */
  DDBST__TXOP_GUARD_DELETE /* releases one */
} ddbst__txop_kind;

/* The conditions an entry carries (bits). */
#define DDBST__TXC_EXISTS 1u     /* attribute_exists(pk) */
#define DDBST__TXC_NOT_EXISTS 2u /* attribute_not_exists(pk) */
#define DDBST__TXC_VERSION 4u    /* version = the expected one */
#define DDBST__TXC_UNIQUE 8u     /* unique attributes hold the values given
                                    (delete) or the previous ones (update) */
#define DDBST__TXC_USER 16u      /* the caller's own (ddbst_item_condition) */

typedef struct ddbst__txn_op {
  uint8_t kind;   /* ddbst__txop_kind */
  uint8_t conds;  /* DDBST__TXC_* */
  int16_t unique; /* guards: the entity's unique constraint; else -1 */
  int32_t entity;
  int64_t version; /* with DDBST__TXC_VERSION */
} ddbst__txn_op;

/* A transaction's entries as explain reads them: the operations and their
 * keys, "pk \x1f sk \x1e" per entry, in TransactItems order. */
typedef struct ddbst__txn_view {
  const ddbst_model *m;
  const ddbst__txn_op *ops;
  int n;
  const char *keys;
  size_t keys_len;
} ddbst__txn_view;

/* The entries of a ddbst_txn. */
void ddbst__txn_view_of(const ddbst_txn *t, ddbst__txn_view *v);

/* The entries a single-item builder (`op` DDBST_OP_PUT_ITEM, _UPDATE_ITEM or
 * _DELETE_ITEM, with `flags`) wrote for `it`, worked out by writing them
 * again into `scratch` (so the item must be as it was then); `ops` holds
 * DDBST__TXN_MAX entries and `keys` receives the keys. */
int ddbst__item_view(ddbst_item *it, int op, uint32_t flags,
                     ddbst__txn_op *ops, ddbst_buf *scratch, ddbst_buf *keys,
                     ddbst__txn_view *v, ddbst_error *err);

#endif
