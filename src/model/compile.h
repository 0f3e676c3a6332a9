/* Compiling a loaded model: the hot-path data built once at load, so that a
 * request never parses, escapes or looks up a name. Each step takes a model
 * the loader validated (no errors) and returns 0 or DDBST_ENOMEM; load.c
 * runs them in this order, each building on the ones before. */
#ifndef DDBST_COMPILE_H
#define DDBST_COMPILE_H

#include "base/hash.h"
#include "model/model.h"

/* Texts a compile step keeps once (compile_text_pool.c): equal texts share
 * one NUL-terminated copy in the model's arena. One pool per step, released
 * at its end (the arena's copies stay). */
typedef struct ddbst__text_pool {
  ddbst_model *m;
  ddbst__strset set;
  ddbst__jtext *texts;
  uint32_t n, cap;
} ddbst__text_pool;
void ddbst__text_pool_init(ddbst__text_pool *tp, ddbst_model *m);
/* *out = s[0..n) (raw_len 0), shared with an equal text kept before: 0 or
 * DDBST_ENOMEM. */
int ddbst__text_pool_keep(ddbst__text_pool *tp, const char *s, size_t n,
                          ddbst__jtext *out);
void ddbst__text_pool_release(ddbst__text_pool *tp);

/* Interned names and the JSON texts of names (compile_names.c). */
int ddbst__compile_names(ddbst_model *m);
/* Scans of the values whose alphabet load knows (compile_scans.c). */
int ddbst__compile_scans(ddbst_model *m);
/* The facets whose key text a range reads before the delimiter, checked
 * by the facet renderer (compile_ranges.c): before the key runs, since such
 * a facet is not copied as it is. */
int ddbst__compile_ranges(ddbst_model *m);
/* Key runs of simple key pairs (compile_key_runs.c): needs the names. */
int ddbst__compile_key_runs(ddbst_model *m);
/* Each entity's PutItem as fixed texts and values (compile_put_plans.c):
 * needs the key runs. */
int ddbst__compile_put_plans(ddbst_model *m);
/* Each entity with unique constraints: its create as fixed texts, keys and
 * guards (compile_create_plans.c): needs the guards' keys. 0 or
 * DDBST_ENOMEM. */
int ddbst__compile_create_plans(ddbst_model *m);
/* Create plan p's flat create, p->flat, when it has one
 * (compile_create_flat.c): its texts made with tx. 0 or DDBST_ENOMEM. */
struct ddbst__plan_maker;
int ddbst__compile_create_flat(struct ddbst__plan_maker *tx,
                                ddbst__create_plan *p);
/* Each entity's UpdateItem as fixed texts and bitmasks
 * (compile_update_plans.c): needs the key runs and the key sizes. */
int ddbst__compile_update_plans(ddbst_model *m);
/* The plans' shared texts and their maker: model/plan_texts.h. */
/* Unique guards that are one of their entity's index keys
 * (compile_guards.c). */
int ddbst__compile_guards(ddbst_model *m);
/* Bounds on the text of each entity's keys (compile_key_sizes.c). */
int ddbst__compile_key_sizes(ddbst_model *m);
/* Query heads and collections' common sort-key starts
 * (compile_queries.c): needs the names. */
int ddbst__compile_queries(ddbst_model *m);
/* Whole query bodies of the commonest queries (compile_query_bodies.c):
 * needs the query heads. */
int ddbst__compile_query_bodies(ddbst_model *m);
/* Each query pattern's cursor shape and layouts
 * (compile_cursor_layouts.c). */
int ddbst__compile_cursor_layouts(ddbst_model *m);

#endif
