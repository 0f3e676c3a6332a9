/* A native (multi-attribute) index's partition as one text: what a query
 * on it and its cursors are bound to (item/native_keys.h). */
#include <stdio.h>

#include "item/native_keys.h"

int ddbst__native_partition(ddbst_item *it, const ddbst__ekey *k,
                            uint32_t *off, uint32_t *len, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  *off = (uint32_t)it->keytext.len;
  for (int i = 0; i < k->pk.nsegs; i++) {
    int a = k->pk.segs[i].attr;
    if (!it->vals[a].set) {
      char path[DDBST_ERROR_PATH_MAX];
      snprintf(path, sizeof path, "%s.%s", e->name, e->attrs[a].name);
      return ddbst__fail(err, DDBST_EMISSING, path,
                         "%s is missing: a query of a multi-attribute index "
                         "gives every partition attribute",
                         e->attrs[a].name);
    }
    /* length-prefixed, so that no two partitions have one text (digits by
     * hand: snprintf would cost more than the rest of the query) */
    char head[24];
    size_t hn = sizeof head;
    head[--hn] = ':';
    uint32_t vl = it->vals[a].len;
    do {
      head[--hn] = (char)('0' + vl % 10);
      vl /= 10;
    } while (vl);
    if (ddbst__buf_append(&it->keytext, head + hn, sizeof head - hn) ||
        ddbst__buf_append(&it->keytext, it->text.data + it->vals[a].off,
                          it->vals[a].len))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  *len = (uint32_t)(it->keytext.len - *off);
  if (*len > DDBST__PK_MAX)
    return ddbst__fail(err, DDBST_ERANGE, NULL,
                       "the partition's values pass %d bytes", DDBST__PK_MAX);
  return 0;
}
