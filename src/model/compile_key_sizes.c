/* Key size bounds: what the text of an entity's keys can take, so that a
 * build reserves its buffer once. */
#include <string.h>

#include "model/compile.h"

/* Each entity's bound on the text of its keys (ddbst__entity.keys_fixed):
 * the literals of its table key and of each index it is in, and which
 * attributes are facets of how many templates. */
int ddbst__compile_key_sizes(ddbst_model *m) {
  int rc = 0;
  /* one scratch count per attribute, for every entity in turn */
  size_t nuses = m->max_attrs ? (size_t)m->max_attrs : 1;
  int *uses = ddbst__malloc(&m->alloc, nuses * sizeof *uses);
  if (!uses) return DDBST_ENOMEM;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    memset(uses, 0, nuses * sizeof *uses);
    en->keys_fixed = en->name_len + 1;
    for (int k = -1; k < en->nindexes; k++) {
      const ddbst__ekey *ek = k < 0 ? &en->key : &en->indexes[k];
      const ddbst__template *ts[2] = {&ek->pk, &ek->sk};
      for (int i = 0; i < 2; i++) {
        if (ts[i]->nsegs == 0) continue;
        en->keys_fixed += ts[i]->literal_len + 1;
        for (int g = 0; g < ts[i]->nsegs; g++)
          if (ts[i]->segs[g].attr >= 0) uses[ts[i]->segs[g].attr]++;
      }
    }
    int n = 0;
    for (int a = 0; a < en->nattrs; a++) n += uses[a] > 0;
    en->key_facets = ddbst__arena_alloc(&m->arena, 2 * (size_t)n * sizeof(int));
    if (!en->key_facets) {
      rc = DDBST_ENOMEM;
      break;
    }
    en->key_facet_uses = en->key_facets + n;
    for (int a = 0; a < en->nattrs; a++)
      if (uses[a]) {
        en->key_facets[en->nkey_facets] = a;
        en->key_facet_uses[en->nkey_facets++] = uses[a];
        en->key_uses += (size_t)uses[a];
      }
  }
  ddbst__free(&m->alloc, uses);
  return rc;
}
