/* The design view's parts (view.c writes the view; view_eval.c works out
 * which sample rows a request reads and spells its expressions out). */
#ifndef DDBST_REVIEW_VIEW_H
#define DDBST_REVIEW_VIEW_H

#include "review/sample.h"

/* The rows a request reads, in the order DynamoDB returns them. */
typedef struct ddbst__view_read {
  int *rows;
  int nrows;
  int read;    /* rows the key condition read (the filter then drops some) */
  int more;    /* Limit stopped the read: a next page exists */
  int ordered; /* in sort-key order (an index without a sort key: none) */
} ddbst__view_read;

/* Reads `body`, a request of operation `op` (DDBST_OP_GET_ITEM or
 * DDBST_OP_QUERY) as ddbst builds it, against the sample. DDBST_EINVAL
 * for an expression ddbst does not write, DDBST_ENOMEM. Free `r` with
 * ddbst__view_read_free whatever the result. */
int ddbst__view_reads(const ddbst__sample *s, int op, const ddbst__jnode *body,
                      ddbst__view_read *r, ddbst_error *err);
void ddbst__view_read_free(const ddbst_model *m, ddbst__view_read *r);

/* DynamoDB's order of two scalar AttributeValues of one type: numbers
 * (N) by value, strings and binaries by their bytes; an absent or
 * non-scalar one first. */
int ddbst__view_av_cmp(const ddbst__jnode *a, const ddbst__jnode *b);

/* The body's expression `field` ("KeyConditionExpression") with its
 * placeholders replaced by the names and values they stand for, appended
 * to `out`: PK = "ORG#acme" AND begins_with(SK, "USER#"). */
int ddbst__view_spell(const ddbst__jnode *body, const char *field,
                      ddbst_buf *out);

#endif
