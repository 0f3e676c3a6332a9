/* Unique constraints' guard items (guard.c), for the bodies and
 * transactions that write them. */
#ifndef DDBST_REQUEST_GUARD_H
#define DDBST_REQUEST_GUARD_H

#include "request/expr.h"
#include "request/request.h"

/* Receives the key of every operation, so a transaction can refuse two
 * operations on one item. */
typedef int (*ident_fn)(void *user, const char *pk, size_t pkl, const char *sk,
                        size_t skl, ddbst_error *err);

/* Whether unique `u` moves in this update: a facet that is not part of the
 * primary key is set or removed. */
int ddbst__unique_moves(const ddbst_item *it, const ddbst__unique *u);

/* Whether the update removes a facet of unique `u` (the guard goes, and
 * none comes). */
int ddbst__unique_removed(const ddbst_item *it, const ddbst__unique *u);

/* Renders unique `u`'s guard key into the item's key text: from the values
 * the item will hold (`old` 0) or held before the update (`old` 1). */
int ddbst__guard_key(ddbst_item *it, const ddbst__unique *u, int old,
                     uint32_t *off, uint32_t *len, ddbst_error *err);

/* The guard item of key `g` (n bytes) of unique `u`, held by the item
 * whose primary key is `holder` (its partition key's text, then its sort
 * key's when the table has one), as an AttributeValue map:
 * {"PK":{"S":g},"SK":{"S":g},"_type":{"S":"User.email"},
 *  "holderKey":{"M":{"PK":{"S":"ORG#1"},"SK":{"S":"USER#2"}}}}
 * (the entity attribute when the model has one): whose guard it is, and
 * the key to GetItem its holder with. What a create writes; the design
 * view shows it. */
typedef struct ddbst__holder {
  const char *pk, *sk;
  size_t pk_len, sk_len;
  /* g and both keys are known to need no JSON escape (the keys the item's
   * body built say so): written in one reservation; 0, scanned */
  int plain;
} ddbst__holder;
int ddbst__guard_item(const ddbst_model *m, const ddbst__unique *u,
                      const char *g, size_t n, const ddbst__holder *holder,
                      ddbst_buf *out);

/* {"Put":{...guard item...}} conditional on no such guard (`put`), or
 * {"Delete":{...}} of the guard; `ident` (may be NULL) sees its key. */
int ddbst__guard_entry(ddbst_item *it, const ddbst__unique *u, int put, int old,
                       ddbst_buf *out, ident_fn ident, void *user,
                       ddbst_error *err);

#endif
