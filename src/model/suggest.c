/* The model's names offered to the "did you mean" rule (model/suggest.h). */
#include "base/suggest.h"
#include "model/suggest.h"

const char *ddbst__suggest_entity(const ddbst_model *m, const char *name) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, name);
  for (int i = 0; i < m->nentities; i++)
    ddbst__suggest_offer(&s, m->entities[i].name);
  return ddbst__suggest_best(&s);
}

const char *ddbst__suggest_attribute(const ddbst__entity *e,
                                     const char *name) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, name);
  for (int i = 0; i < e->nattrs; i++)
    ddbst__suggest_offer(&s, e->attrs[i].name);
  return ddbst__suggest_best(&s);
}

const char *ddbst__suggest_index(const ddbst_model *m, const char *name) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, name);
  for (int i = 0; i < m->nindexes; i++)
    ddbst__suggest_offer(&s, m->indexes[i].name);
  return ddbst__suggest_best(&s);
}

const char *ddbst__suggest_pattern(const ddbst_model *m, const char *name) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, name);
  for (int i = 0; i < m->npatterns; i++)
    ddbst__suggest_offer(&s, m->patterns[i].name);
  return ddbst__suggest_best(&s);
}
