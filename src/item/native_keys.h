/* The partition of a query on a native (multi-attribute) index, as the
 * text a cursor's context binds (native_keys.c). */
#ifndef DDBST_ITEM_NATIVE_KEYS_H
#define DDBST_ITEM_NATIVE_KEYS_H

#include "item/item.h"

/* The partition a cursor is bound to: every partition attribute's value,
 * length-prefixed, appended to the item's keytext at *off, *len bytes.
 * DDBST_EMISSING when one is unset; DDBST_ERANGE past 2048 bytes. */
int ddbst__native_partition(ddbst_item *it, const ddbst__ekey *k,
                            uint32_t *off, uint32_t *len, ddbst_error *err);

#endif
