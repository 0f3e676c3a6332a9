/* Questions about a compiled model that the infrastructure emitter, the
 * linter and the doc generator all ask: whether an attribute is always
 * present, which patterns read what. */
#ifndef DDBST_REVIEW_H
#define DDBST_REVIEW_H

#include <string.h>

#include "model/model.h"

/* The literal text a template starts with (empty when it starts with a
 * facet): every key it renders begins with it. */
static inline size_t ddbst__template_prefix(const ddbst__template *t,
                                            const char **text) {
  *text = "";
  if (t->nsegs == 0 || t->segs[0].attr >= 0) return 0;
  *text = t->segs[0].text;
  return t->segs[0].len;
}

/* Whether every item of the entity has a value for the attribute: a facet of
 * the primary key, required, or filled by a default. */
static inline int ddbst__attr_always_set(const ddbst__attr *a) {
  return a->primary_facet || a->required || a->def != DDBST__DEF_NONE;
}

/* Whether every item of the entity is written with this index key: no
 * membership condition and every facet always set. */
static inline int ddbst__ekey_always_written(const ddbst__entity *e,
                                             const ddbst__ekey *k) {
  if (k->nwhen) return 0;
  const ddbst__template *ts[2] = {&k->pk, &k->sk};
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++)
      if (ts[t]->segs[i].attr >= 0 &&
          !ddbst__attr_always_set(&e->attrs[ts[t]->segs[i].attr]))
        return 0;
  return 1;
}

/* Whether pattern `p` reads entity `entity` through `index` (-1: table). */
static inline int ddbst__pattern_reads(const ddbst__pattern *p, int entity,
                                       int index) {
  if (p->index != index) return 0;
  for (int i = 0; i < p->nentities; i++)
    if (p->entities[i] == entity) return 1;
  return 0;
}

/* The key attribute names of a key in `index` (-1: table). */
static inline const char *ddbst__pk_attr_of(const ddbst_model *m, int index) {
  return index < 0 ? m->pk_attr : m->indexes[index].pk_attr;
}
static inline const char *ddbst__sk_attr_of(const ddbst_model *m, int index) {
  return index < 0 ? m->sk_attr : m->indexes[index].sk_attr;
}

#endif
