/* sort-key-fit: whether a sort key (the table's, a template index's, a
 * native multi-attribute index's, a local or an inverted one's) serves the
 * range a pattern declares on it. A range condition applies only after
 * every sort facet before it is given by equality (a template's text is
 * matched from its start; DynamoDB compares multi-attribute keys left to
 * right and refuses a gap), so what comes before the range decides how
 * many items the range can ever see. docs/review.md#sort-key-fit. */
#include <stdio.h>
#include <string.h>

#include "review/lint.h"

static void report(ddbst__linter *L, int32_t severity, const char *path,
                   const char *fmt, ...) DDBST__PRINTF(4, 5);
static void report(ddbst__linter *L, int32_t severity, const char *path,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__lint_vreport(L, severity, "sort-key-fit", path, fmt, ap);
  va_end(ap);
}

static int in_template(const ddbst__template *t, int attr) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr == attr) return 1;
  return 0;
}

/* Types with about one value per item: given by equality, they leave a
 * range after them one item (or a few ties) to range over. */
static int nearly_unique(ddbst__type t) {
  return t == DDBST__T_TIMESTAMP || t == DDBST__T_ULID ||
         t == DDBST__T_INTEGER || t == DDBST__T_NUMBER || t == DDBST__T_TTL;
}

/* "SK = ORDER#{orderId}#{placedAt}", or a native index's attribute list
 * "sort key [score, playedAt]", for messages. */
static void describe_sort_key(const ddbst_model *m, int index,
                              const ddbst__ekey *k, char *out, size_t cap) {
  const ddbst__index *ix = index >= 0 ? &m->indexes[index] : NULL;
  if (!ix || !ix->native) {
    snprintf(out, cap, "%s = %s", ddbst__sk_attr_of(m, index), k->sk.source);
    return;
  }
  size_t used = (size_t)snprintf(out, cap, "%s's sort key [", ix->name);
  for (int i = 0; i < ix->nsk && used < cap; i++)
    used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "",
                             ix->sk_attrs[i]);
  if (used < cap) snprintf(out + used, cap - used, "]");
}

static void check_range(ddbst__linter *L, const ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  if (p->op != DDBST__OP_QUERY || p->nentities != 1 || p->range < 0) return;
  const ddbst__entity *e = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  if (!k) return;
  const char *range = e->attrs[p->range].name;
  char path[DDBST_ERROR_PATH_MAX], sk[600];
  snprintf(path, sizeof path, "patterns.%s.range", p->name);
  describe_sort_key(m, p->index, k, sk, sizeof sk);

  if (in_template(&k->pk, p->range)) {
    report(L, DDBST_LINT_ERROR, path,
           "%s ranges on %s, but the partition key %s = %s holds %s too: "
           "every item a query reads has the one %s it was given, so the "
           "range can only match it or nothing; range on a facet the "
           "partition key does not hold",
           p->name, range, ddbst__pk_attr_of(m, p->index), k->pk.source,
           range, range);
    return;
  }

  /* The facets every query must give before the range: those of the sort
   * key before it that the partition key does not already fix. */
  int before[DDBST__MAX_FACETS], nbefore = 0;
  for (int i = 0; i < k->sk.nsegs && k->sk.segs[i].attr != p->range; i++) {
    int a = k->sk.segs[i].attr;
    if (a >= 0 && !in_template(&k->pk, a) && nbefore < DDBST__MAX_FACETS)
      before[nbefore++] = a;
  }
  if (nbefore == 0) return;

  /* With the partition key's, do they hold every facet of the primary key?
   * Then each query names one item (an index's sort key only: the table's
   * range facet is itself one of the primary key's). */
  int identified = 1, from_sort = 0;
  for (int a = 0; a < e->nattrs && identified; a++) {
    if (!e->attrs[a].primary_facet || in_template(&k->pk, a)) continue;
    int given = 0;
    for (int i = 0; i < nbefore; i++) given |= before[i] == a;
    identified = given;
    from_sort |= given;
  }
  if (identified && from_sort) {
    report(L, DDBST_LINT_ERROR, path,
           "%s ranges on %s, but in %s the facets before it, which every "
           "query must give exactly, name one %s (they hold its primary "
           "key): the range reads one item at most; put %s before them, or "
           "key the index on what the range is for",
           p->name, range, sk, e->name, range);
    return;
  }
  for (int i = 0; i < nbefore; i++) {
    const ddbst__attr *a = &e->attrs[before[i]];
    if (!nearly_unique(a->type)) continue;
    report(L, DDBST_LINT_WARNING, path,
           "%s ranges on %s, but %s comes before it in %s: every query must "
           "give %s exactly, and %s (%s) takes about one value per item, "
           "which leaves the range almost nothing to read; put %s before "
           "%s, or range on %s",
           p->name, range, a->name, sk, a->name, a->name,
           ddbst__type_name(a->type), range, a->name, a->name);
    return;
  }
}

void ddbst__lint_sort_fit(ddbst__linter *L) {
  for (int p = 0; p < L->m->npatterns; p++)
    check_range(L, &L->m->patterns[p]);
}
