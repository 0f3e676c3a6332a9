/* The sort-key part of a Query's KeyConditionExpression (sk_bounds.c), and
 * the placeholders query bodies write their keys with. */
#ifndef DDBST_REQUEST_SK_BOUNDS_H
#define DDBST_REQUEST_SK_BOUNDS_H

#include "request/expr.h"
#include "request/request.h"

static inline ddbst__vref ddbst__key_ref(uint32_t off, uint32_t len) {
  ddbst__vref r = {DDBST__REF_KEY, -1, off, len, NULL};
  return r;
}

/* A key whose rendering found nothing to escape: written without a scan. */
static inline ddbst__vref ddbst__plain_key_ref(uint32_t off, uint32_t len,
                                               int plain) {
  ddbst__vref r = {plain ? DDBST__REF_PLAIN_KEY : DDBST__REF_KEY, -1, off, len,
                   NULL};
  return r;
}

/* Appends the sort key's part of KeyConditionExpression, `text` such as
 * " AND begins_with(#n1, :v1)", with the bounds `v1` (and `v2`, for :v2).
 * The partition key's name and value come first in every query body, and
 * the loader gives the two keys different names, so the sort key's are
 * always #n1 and :v1 and the text is fixed. */
static inline int ddbst__sk_expr(ddbst_item *it, const char *sk_attr,
                                 const char *text, ddbst__vref v1,
                                 const ddbst__vref *v2, ddbst_buf *out) {
  if (ddbst__expr_add_name(it, sk_attr) != 1 ||
      ddbst__expr_add_value(it, v1) != 1 ||
      (v2 && ddbst__expr_add_value(it, *v2) != 2))
    return DDBST_ERANGE;
  return ddbst__buf_puts(out, text);
}

/* Writes the sort-key part of KeyConditionExpression (" AND ...") of a
 * query of pattern `p` reading key `k` of the item's entity, whose sort key
 * attribute is `sk_attr`, with condition `q` (NULL or DDBST_SK_NONE: the
 * facets the item holds, matched from the start; nothing for the whole
 * partition). Bounds go into the item's key text and placeholders. Returns
 * 0 or an error with `err` filled (DDBST_ENOMEM may be left to the
 * caller). */
int ddbst__sort_condition(ddbst_item *it, const ddbst__pattern *p,
                          const ddbst__ekey *k, const char *sk_attr,
                          const ddbst_query *q, ddbst_buf *out,
                          ddbst_error *err);

#endif
