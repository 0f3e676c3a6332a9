/* The diff of access patterns: reads only, so a pattern's change is free
 * unless it reads keys items already stored do not have yet. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

static const char *index_name(const ddbst_model *m, int index) {
  return index < 0 ? "" : m->indexes[index].name;
}

/* Whether every item the new pattern `p` reads already has the keys it
 * reads through: its entities were stored under that index before (or are
 * new, so none is stored), and the index is not new. Names what is
 * missing in `why`. */
static int served(ddbst__differ *d, const ddbst__pattern *p, char *why,
                  size_t cap) {
  const ddbst_model *o = d->old, *n = d->next;
  int oix = -1;
  if (p->index >= 0) {
    const ddbst__index *ix = &n->indexes[p->index];
    oix = ddbst__diff_index_of(o, ix->name);
    if (oix < 0) {
      snprintf(why, cap, "it reads %s, a new index (table.%s.%s)", ix->name,
               ix->local ? "localIndexes" : "indexes", ix->name);
      return 0;
    }
  }
  for (int i = 0; i < p->nentities; i++) {
    const ddbst__entity *e = &n->entities[p->entities[i]];
    int oe = ddbst__diff_entity_of(o, e->name);
    if (oe < 0) continue;
    if (p->index >= 0 && !n->indexes[p->index].native &&
        !ddbst__entity_key(&o->entities[oe], oix)) {
      snprintf(why, cap,
               "it reads %s through %s, which items of %s already stored "
               "have no keys of (entities.%s.indexes.%s)",
               e->name, n->indexes[p->index].name, e->name, e->name,
               n->indexes[p->index].name);
      return 0;
    }
  }
  return 1;
}

static int same_entities(const ddbst_model *o, const ddbst__pattern *a,
                         const ddbst_model *n, const ddbst__pattern *b) {
  if (a->nentities != b->nentities) return 0;
  for (int i = 0; i < a->nentities; i++)
    if (strcmp(o->entities[a->entities[i]].name,
               n->entities[b->entities[i]].name) != 0)
      return 0;
  return 1;
}

static int same_filter(const ddbst_model *o, const ddbst__pattern *a,
                       const ddbst_model *n, const ddbst__pattern *b) {
  if (a->nfilter != b->nfilter) return 0;
  if (!a->nfilter) return 1;
  const ddbst__entity *ea = &o->entities[a->entities[0]];
  const ddbst__entity *eb = &n->entities[b->entities[0]];
  for (int i = 0; i < a->nfilter; i++) {
    const ddbst__cond *x = &a->filter[i], *y = &b->filter[i];
    if (strcmp(ea->attrs[x->attr].name, eb->attrs[y->attr].name) != 0 ||
        x->nvalues != y->nvalues)
      return 0;
    for (size_t v = 0; v < x->nvalues; v++)
      if (x->lens[v] != y->lens[v] ||
          memcmp(x->values[v], y->values[v], x->lens[v]) != 0)
        return 0;
  }
  return 1;
}

/* Whether `a` and `b` read the same way. */
static int same_pattern(const ddbst_model *o, const ddbst__pattern *a,
                        const ddbst_model *n, const ddbst__pattern *b) {
  const char *ra =
      a->range >= 0 ? o->entities[a->entities[0]].attrs[a->range].name : "";
  const char *rb =
      b->range >= 0 ? n->entities[b->entities[0]].attrs[b->range].name : "";
  const char *da = a->description ? a->description : "";
  const char *db = b->description ? b->description : "";
  return a->op == b->op &&
         strcmp(index_name(o, a->index), index_name(n, b->index)) == 0 &&
         same_entities(o, a, n, b) && strcmp(ra, rb) == 0 &&
         a->descending == b->descending &&
         a->limit_default == b->limit_default && a->limit_max == b->limit_max &&
         same_filter(o, a, n, b) && strcmp(da, db) == 0;
}

static void scope_pattern(ddbst__differ *d, const ddbst_model *m,
                          const ddbst__pattern *p) {
  for (int i = 0; i < p->nentities; i++)
    ddbst__diff_entity(d, m->entities[p->entities[i]].name);
  ddbst__diff_pattern(d, p->name);
}

void ddbst__diff_patterns(ddbst__differ *d) {
  char path[DDBST__REASON_MAX], why[DDBST__REASON_MAX];
  for (int i = 0; i < d->next->npatterns; i++) {
    const ddbst__pattern *p = &d->next->patterns[i];
    const ddbst__pattern *a = NULL;
    for (int j = 0; j < d->old->npatterns && !a; j++)
      if (strcmp(d->old->patterns[j].name, p->name) == 0)
        a = &d->old->patterns[j];
    if (a && same_pattern(d->old, a, d->next, p)) continue;
    snprintf(path, sizeof path, "patterns.%s", p->name);
    scope_pattern(d, d->next, p);
    if (!served(d, p, why, sizeof why))
      ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                         "%s %s: %s; it misses items already stored until "
                         "they are backfilled",
                         a ? "the pattern" : "a new pattern", p->name, why);
    else if (a)
      ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                         "the pattern %s reads differently, through keys "
                         "items already have: no item changes",
                         p->name);
    else
      ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                         "a new pattern %s, served by keys items already "
                         "have: no item changes",
                         p->name);
  }
  for (int j = 0; j < d->old->npatterns; j++) {
    const ddbst__pattern *a = &d->old->patterns[j];
    int kept = 0;
    for (int i = 0; i < d->next->npatterns && !kept; i++)
      kept = strcmp(d->next->patterns[i].name, a->name) == 0;
    if (kept) continue;
    snprintf(path, sizeof path, "patterns.%s", a->name);
    scope_pattern(d, d->old, a);
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "the pattern %s is removed: no item changes (its "
                       "index and keys stay while anything else uses them)",
                       a->name);
  }
}
