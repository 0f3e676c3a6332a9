/* The walk of a model diff: the models checked, the scratch lists of names
 * made, and the parts run in their order. */
#include <string.h>

#include "evolve/diff.h"

static int max_int(int a, int b) { return a > b ? a : b; }

int ddbst__diff_walk(const ddbst_model *old, const ddbst_model *next,
                     int rename_ok, const ddbst_allocator *alloc,
                     ddbst__change_fn fn, void *user, ddbst_error *err) {
  if (!old || !next)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "%s model is NULL",
                       old ? "the new" : "the old");
  if (!rename_ok && strcmp(old->table_name, next->table_name) != 0)
    return ddbst__fail(err, DDBST_EINVAL, "table.name",
                       "the models are of different tables (%s and %s): a "
                       "diff compares two versions of one table's model; "
                       "say that the table is renamed to compare them",
                       old->table_name, next->table_name);
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  ddbst__differ d;
  memset(&d, 0, sizeof d);
  d.old = old;
  d.next = next;
  d.fn = fn;
  d.user = user;
  d.ents_cap = max_int(old->nentities, next->nentities) * 2 + 1;
  d.pats_cap = max_int(old->npatterns, next->npatterns) * 2 + 1;
  d.ents = ddbst__malloc(&a, (size_t)d.ents_cap * sizeof *d.ents);
  d.pats =
      d.ents ? ddbst__malloc(&a, (size_t)d.pats_cap * sizeof *d.pats) : NULL;
  if (!d.pats) {
    ddbst__free(&a, d.ents);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, NULL);
  }
  ddbst__diff_scope(&d);
  ddbst__diff_table(&d);
  ddbst__diff_indexes(&d);
  ddbst__diff_entities(&d);
  ddbst__diff_patterns(&d);
  ddbst__free(&a, d.pats);
  ddbst__free(&a, d.ents);
  if (d.rc)
    return d.rc == DDBST_ENOMEM ? ddbst__fail(err, DDBST_ENOMEM, NULL, NULL)
                                : d.rc;
  return d.worst;
}
