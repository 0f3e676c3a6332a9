/* Sample items of a model, for the design view (view.c) and the data it
 * loads into DynamoDB Local (view_data.c): a few realistic items per
 * entity, made deterministically from a seed, that share partitions the
 * way the model means them to (a User's orgId is an Organisation's), each
 * prepared and keyed by the library's own code, as a create writes it:
 * every key is exactly the one ddbst writes, unique guards included. */
#ifndef DDBST_REVIEW_SAMPLE_H
#define DDBST_REVIEW_SAMPLE_H

#include <stdint.h>

#include "item/item.h"
#include "json/tree.h"

/* One item of the table: an entity's item, or the guard item of one of
 * its unique constraints. */
typedef struct ddbst__sample_row {
  int entity;        /* the item's entity, or the guarded one's */
  int unique;        /* a guard: the index of its unique constraint; -1 */
  int owner;         /* a guard: the row of the item it guards; -1 */
  ddbst_item *item;  /* an entity's item (NULL for a guard): its values */
  const char *json;  /* the item as written: an AttributeValue map */
  size_t len;
  const ddbst__jnode *node; /* the same, parsed */
} ddbst__sample_row;

typedef struct ddbst__sample {
  const ddbst_model *m;
  ddbst__arena ar; /* the rows' text and trees */
  ddbst__sample_row *rows;
  int nrows;
  int64_t now_us; /* the write time the items were prepared with */
} ddbst__sample;

/* Makes the sample of model `m` for `seed` into `s`. Errors:
 * DDBST_ENOMEM, or the error an item of the model could not be made with
 * (path and message say which; a model the sampler cannot satisfy). `s`
 * must be freed with ddbst__sample_free whatever the result. */
int ddbst__sample_make(const ddbst_model *m, uint64_t seed, ddbst__sample *s,
                       ddbst_error *err);
void ddbst__sample_free(ddbst__sample *s);

/* The S value of attribute `name` of a row, or NULL (absent, not S). */
const char *ddbst__sample_s(const ddbst__sample_row *r, const char *name,
                            size_t *len);

#endif
