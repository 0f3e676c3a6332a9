/* Item sizes by DynamoDB's rules. */
#ifndef DDBST_ITEMSIZE_H
#define DDBST_ITEMSIZE_H

#include "item/item.h"

/* DynamoDB's limit on one item, DDBST__ITEM_MAX, is model/model.h's. */

/* Bytes the canonical value `v` of attribute `a` counts for. */
size_t ddbst__value_size(const ddbst__attr *a, const char *v, size_t n);

/* The item's size with the keys last built (ddbst_item_build_keys). */
size_t ddbst__item_size(const ddbst_item *it);

#endif
