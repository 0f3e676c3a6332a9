/* What the put, create and update plans (compile_*_plans.c) make their
 * texts with: a scratch text, added to until a value comes, then kept in
 * the model's arena. A plan's texts repeat across entities (the names'
 * members, the ends, the whole bodies of entities keyed alike: the 200
 * entities of the bench's generated model made 131,801 bytes of update
 * texts, 12,151 of them distinct), so each compile step keeps a text once
 * and hands the same bytes to every plan that makes them again; the
 * arrays a plan reads (an update's steps and checks) are kept the same
 * way. The table that finds them is the step's, freed with the maker. */
#ifndef DDBST_PLAN_TEXTS_H
#define DDBST_PLAN_TEXTS_H

#include "model/model.h"

typedef struct ddbst__kept {
  const char *p;
  uint32_t n, hash; /* hash 0: an empty slot */
} ddbst__kept;

typedef struct ddbst__plan_maker {
  ddbst_model *m;
  ddbst_buf pending; /* the text since the last value */
  size_t *fixed;     /* a take's bytes are counted here (a plan's room) */
  ddbst__kept *kept; /* open addressing over a power of two, half full */
  size_t cap, count;
  /* the first slots, in the maker (a small model's texts fit: its load
   * allocates nothing more for them) */
  ddbst__kept first[256];
} ddbst__plan_maker;

void ddbst__plan_maker_init(ddbst__plan_maker *k, ddbst_model *m);
void ddbst__plan_maker_release(ddbst__plan_maker *k);

static inline int ddbst__plan_add(ddbst__plan_maker *k, const char *s,
                                  size_t n) {
  return ddbst__buf_append(&k->pending, s, n);
}

/* The pending text kept (padded, NUL after, the same bytes kept once),
 * its bytes counted in *k->fixed when set; the pending text emptied.
 * DDBST_ENOMEM. */
int ddbst__plan_take(ddbst__plan_maker *k, ddbst__jtext *t);
/* s[0..n) kept as a text, NUL after: NULL on ENOMEM. */
const char *ddbst__plan_keep_text(ddbst__plan_maker *k, const char *s,
                                  size_t n);
/* n bytes at p kept as an array (aligned as the arena aligns), the same
 * bytes kept once: NULL on ENOMEM. Read-only once kept. */
const void *ddbst__plan_keep(ddbst__plan_maker *k, const void *p, size_t n);

/* Per attribute of `e`, `"},"name":{"S":"` (p NULL for one that is not a
 * string), their bytes added to *bytes; NULL on ENOMEM. */
const ddbst__jtext *ddbst__plan_members(ddbst__plan_maker *k,
                                        const ddbst__entity *e, size_t *bytes);
/* Appends to `t` the condition of a create's Put (no item with its key
 * yet): `,"ConditionExpression":"attribute_not_exists(#n0)",
 * "ExpressionAttributeNames":{"#n0":"PK"}`. 0 or DDBST_ENOMEM. */
int ddbst__plan_not_exists(const ddbst_model *m, ddbst_buf *t);

#endif
