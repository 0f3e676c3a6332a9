/* What changed between two models and what each change does to the items
 * already in the table (docs/evolution.md). The walk (diff_*.c) reports
 * changes one at a time; ddbst_model_diff writes them as JSON or text, and
 * lint --since turns the worst into findings. */
#ifndef DDBST_EVOLVE_DIFF_H
#define DDBST_EVOLVE_DIFF_H

#include <string.h>

#include "model/model.h"

/* One change, valid during the call that receives it. `cls` is a
 * DDBST_CHANGE_*; `what` the path in the model file ("entities.Project.key.sk",
 * the new model's, or the old one's for what was removed); `check` is what a
 * migration must check first (unsafe changes), else NULL; `add_index` /
 * `remove_index` name the UpdateTable step the change needs, else NULL. */
typedef struct ddbst__change {
  int cls;
  const char *what;
  const char *reason;
  const char *check;
  const char *add_index, *remove_index;
  const char *const *entities;
  int nentities;
  const char *const *patterns;
  int npatterns;
} ddbst__change;

/* Receives each change; a negative return stops the walk with that code. */
typedef int (*ddbst__change_fn)(void *user, const ddbst__change *c);

/* Compares `old` with `next` and calls `fn` for every change in a stable
 * order: table, indexes, entities (the new model's order, then those
 * removed), patterns. `rename_ok`: a changed table name is a change, not an
 * error. Returns the most severe class met (DDBST_CHANGE_NONE when none),
 * or DDBST_EINVAL (different tables), DDBST_ENOMEM, or fn's code.
 * `alloc` serves the scratch lists of entity and pattern names. */
int ddbst__diff_walk(const ddbst_model *old, const ddbst_model *next,
                     int rename_ok, const ddbst_allocator *alloc,
                     ddbst__change_fn fn, void *user, ddbst_error *err);

/* ---- between the walk's files ---- */

enum { DDBST__REASON_MAX = 800 };

/* A change's path is made of model names, each at most 255 bytes (an
 * identifier, an index name): "entities.<entity>.indexes.<index>" is the
 * longest base, and a part (".when", ".pk") goes after it. A path buffer
 * is a base's and that part's room, so no path is ever cut. */
enum {
  DDBST__NAME_MAX = 255,
  DDBST__PATH_BASE_MAX = 2 * DDBST__NAME_MAX + 32,
  DDBST__PATH_MAX = DDBST__PATH_BASE_MAX + 16
};

typedef struct ddbst__differ {
  const ddbst_model *old, *next;
  ddbst__change_fn fn;
  void *user;
  int worst;
  int rc; /* the first error: the walk stops reporting */
  /* The scope of the change being reported: names of entities and
   * patterns, each once. */
  const char **ents, **pats;
  int nents, npats, ents_cap, pats_cap;
  const char *add_index, *remove_index;
  char check[DDBST__REASON_MAX];
} ddbst__differ;

/* Starts the scope of the next change. */
void ddbst__diff_scope(ddbst__differ *d);
void ddbst__diff_entity(ddbst__differ *d, const char *name);
/* The patterns of `m` that read entity `entity` through `index` (-1: the
 * table; -2: any index). */
void ddbst__diff_readers(ddbst__differ *d, const ddbst_model *m, int entity,
                         int index);
void ddbst__diff_pattern(ddbst__differ *d, const char *name);
/* Reports a change of class `cls` at `what` with the scope gathered since
 * ddbst__diff_scope, and d->check when `cls` is unsafe; then starts a new
 * scope. */
void ddbst__diff_report(ddbst__differ *d, int cls, const char *what,
                        const char *fmt, ...) DDBST__PRINTF(4, 5);

/* The index of `name` in `m`, or -1. */
int ddbst__diff_index_of(const ddbst_model *m, const char *name);
int ddbst__diff_entity_of(const ddbst_model *m, const char *name);
int ddbst__diff_attr_of(const ddbst__entity *e, const char *name);

/* Whether template `t` of entity `e` has a facet of attribute `name`. */
static inline int ddbst__diff_has_facet(const ddbst__entity *e,
                                        const ddbst__template *t,
                                        const char *name) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr >= 0 &&
        strcmp(e->attrs[t->segs[i].attr].name, name) == 0)
      return 1;
  return 0;
}

/* Compares the key text template `a` (of entity `ea`) renders with what
 * `b` (of `eb`) renders: literals, facets and each facet's key form (type,
 * precision, width, negatives, escaping, normalisation, casing), never the
 * source text. Returns 0 when every key stays as it is; else 1, `how` says
 * what changed, and *narrows is 1 when two items' keys that differed may
 * become equal (a facet dropped, a precision lowered, casing or Unicode
 * folding added). */
int ddbst__diff_template(const ddbst__entity *ea, const ddbst__template *a,
                         const ddbst__entity *eb, const ddbst__template *b,
                         char *how, size_t cap, int *narrows);

/* The model file's name of a precision ("s", "ms", "us"). */
const char *ddbst__diff_precision_name(int precision);

/* The parts of the walk. */
void ddbst__diff_table(ddbst__differ *d);
void ddbst__diff_indexes(ddbst__differ *d);
/* The table's settings beyond keys and indexes (diff_settings.c), and the
 * own settings of global index `oi` of the old model, `ni` of the new. */
void ddbst__diff_table_settings(ddbst__differ *d);
void ddbst__diff_index_settings(ddbst__differ *d, int oi, int ni);
void ddbst__diff_entities(ddbst__differ *d);
void ddbst__diff_patterns(ddbst__differ *d);
/* The attributes of entity `oe` of the old model and `ne` of the new. */
void ddbst__diff_attributes(ddbst__differ *d, int oe, int ne);
/* Whether attribute `name` is a facet of any key or unique constraint of
 * `e`. */
int ddbst__diff_in_key(const ddbst__entity *e, const char *name);

#endif
