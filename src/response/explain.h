/* ddbst_item_explain with the memory it works in lent by its caller (the
 * JSON entry's scratch), so that a warm explain allocates nothing. */
#ifndef DDBST_RESPONSE_EXPLAIN_H
#define DDBST_RESPONSE_EXPLAIN_H

#include "base/internal.h"

/* As ddbst_item_explain, the entries' bodies written in `scratch` and
 * their keys in `keys` (both emptied first, and left holding them). */
int ddbst__item_explain_in(ddbst_item *item, int op, uint32_t flags,
                           const ddbst_page *pg, ddbst_buf *out,
                           ddbst_buf *scratch, ddbst_buf *keys,
                           ddbst_error *err);

#endif
