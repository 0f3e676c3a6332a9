/* Which facets a range reads before the delimiter (issue 16): a string,
 * enum or unpadded integer facet that a query pattern may range on and that
 * the delimiter follows in its sort key. In a key, "tool s#..." and
 * "tool!#..." sort before "tool#..." (' ' and '!' are below '#'), though
 * the values sort after "tool": a range on such a facet would miss or
 * wrongly take in items. Such an attribute's key text is checked by the
 * facet renderer (item/facet_key.h, ddbst__facet_order_break), unless its
 * escaping keeps order ("escape": "ordered"); fixed-length forms
 * (timestamps at one precision, ULIDs, integers at a width, booleans) have
 * no value that continues another, and need no check. */
#include "model/compile.h"

static int varies_in_length(const ddbst__attr *a) {
  return a->type == DDBST__T_STRING || a->type == DDBST__T_ENUM ||
         (a->type == DDBST__T_INTEGER && !a->width);
}

/* Marks the facets of `sk` that pattern range `range` (-1: any facet) may
 * name and that the delimiter follows. */
static void mark(ddbst__entity *e, const ddbst__template *sk, int range) {
  for (int i = 0; i + 1 < sk->nsegs; i++) {
    const ddbst__seg *s = &sk->segs[i];
    if (s->attr < 0 || (range >= 0 && s->attr != range)) continue;
    ddbst__attr *a = &e->attrs[s->attr];
    if (varies_in_length(a) && a->escape != DDBST__ESCAPE_ORDERED)
      a->range_checked = 1;
  }
}

/* A checked attribute's facets are no longer copied as they are. */
static void unmark_as_is(const ddbst__entity *e, ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++) {
    ddbst__seg *s = &t->segs[i];
    if (s->attr >= 0 && s->as_is && e->attrs[s->attr].range_checked) {
      s->as_is = 0;
      t->simple = 0;
    }
  }
}

int ddbst__compile_ranges(ddbst_model *m) {
  for (int p = 0; p < m->npatterns; p++) {
    const ddbst__pattern *pat = &m->patterns[p];
    if (pat->op != DDBST__OP_QUERY || pat->nentities == 0) continue;
    /* a condition names an attribute of the pattern's first entity */
    ddbst__entity *e = &m->entities[pat->entities[0]];
    const ddbst__ekey *k = ddbst__entity_key(e, pat->index);
    /* a native index compares the values themselves, not key text */
    if (k && (pat->index < 0 || !m->indexes[pat->index].native))
      mark(e, &k->sk, pat->range);
  }
  for (int i = 0; i < m->nentities; i++) {
    ddbst__entity *e = &m->entities[i];
    unmark_as_is(e, &e->key.pk);
    unmark_as_is(e, &e->key.sk);
    for (int x = 0; x < e->nindexes; x++) {
      unmark_as_is(e, &e->indexes[x].pk);
      unmark_as_is(e, &e->indexes[x].sk);
    }
    for (int u = 0; u < e->nuniques; u++) unmark_as_is(e, &e->uniques[u].tmpl);
  }
  return 0;
}
