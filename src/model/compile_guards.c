/* Unique guards whose key is one of their entity's index keys: a User's
 * "EMAIL#{email:lower}" guard and its GSI1 partition key render the same
 * text from the same values, so a create writes the guard from the key
 * the item's body already rendered (guard.c) instead of rendering it
 * again. */
#include <string.h>

#include "model/compile.h"

/* Whether two templates of one entity render the same text from the same
 * values: the same segments (the source text says it, and the segments are
 * compared so that nothing the compiler decided can differ). */
static int same_template(const ddbst__template *a, const ddbst__template *b) {
  if (!a->source || !b->source || strcmp(a->source, b->source) != 0 ||
      a->nsegs != b->nsegs)
    return 0;
  for (int i = 0; i < a->nsegs; i++) {
    const ddbst__seg *x = &a->segs[i], *y = &b->segs[i];
    if (x->attr != y->attr || x->lower != y->lower || x->len != y->len ||
        (x->attr < 0 && memcmp(x->text, y->text, x->len) != 0))
      return 0;
  }
  return 1;
}

int ddbst__compile_guards(ddbst_model *m) {
  for (int e = 0; e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    for (int u = 0; u < en->nuniques; u++) {
      ddbst__unique *g = &en->uniques[u];
      g->same_key = NULL;
      for (int i = 0; !g->same_key && i < en->nindexes; i++) {
        const ddbst__ekey *k = &en->indexes[i];
        const ddbst__index *ix = &m->indexes[k->index];
        if (ddbst__index_own_pk(ix) && same_template(&k->pk, &g->tmpl))
          g->same_key = &ix->pk_jname;
        else if (ddbst__index_own_sk(ix) && same_template(&k->sk, &g->tmpl))
          g->same_key = &ix->sk_jname;
      }
    }
  }
  return 0;
}
