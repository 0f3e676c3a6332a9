/* A generated model of a given size (gen_model.c): what a model's size
 * costs, from loading to a request. */
#ifndef DDBST_BENCH_GEN_MODEL_H
#define DDBST_BENCH_GEN_MODEL_H

#include <stddef.h>

typedef struct bench_gen_shape {
  int entities; /* at least 1; one of them is the SaaS model's Project */
  int gsis;     /* global indexes, 2 to 20 (DynamoDB's default quota and the
                   loader's limit); a fifth of them native multi-attribute */
  int lsis;     /* local indexes, 0 to 5 */
  int patterns; /* as many as the entities' candidates allow */
} bench_gen_shape;

/* The model's JSON in a new malloc'd buffer (its length in *len, and the
 * patterns it holds in *patterns_made when not NULL), or NULL when out of
 * memory. The same text for the same shape, on every run. */
char *bench_gen_model(const bench_gen_shape *shape, size_t *len,
                      int *patterns_made);

#endif
