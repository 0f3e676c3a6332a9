/* Queries on a native (multi-attribute) index: the key condition on the
 * item's own typed values (native_query.c). */
#ifndef DDBST_REQUEST_NATIVE_QUERY_H
#define DDBST_REQUEST_NATIVE_QUERY_H

#include "item/native_keys.h"

/* Appends the pattern's prepared head (ending "#n0 = :v0", the first
 * partition attribute) and the rest of the key condition of pattern `p`
 * on native index key `k`: " AND #n1 = :v1" per further partition
 * attribute, then the sort attributes left to right by equality (the
 * leading ones set in the item, or every one before the condition's), then
 * `q`'s condition on its attribute (a sort attribute of the index).
 * Errors: DDBST_EINVAL (a condition on another attribute, begins_with on a
 * number), DDBST_EMISSING (a sort attribute before the condition's),
 * DDBST_EVALUE (a bound the attribute refuses), DDBST_ENOMEM. */
int ddbst__native_key_condition(ddbst_item *it, const ddbst__pattern *p,
                                const ddbst__ekey *k, const ddbst_query *q,
                                ddbst_buf *out, ddbst_error *err);

#endif
