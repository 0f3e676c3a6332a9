/* The diff of entities: added and removed entities, the keys each is
 * stored under (the table's, each index's) and its unique constraints.
 * A key whose compiled form changed moves every item it covers. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

/* ---- keys ---- */

typedef struct key_pair {
  ddbst__differ *d;
  int oe, ne;
  const ddbst__entity *eo, *en;
} key_pair;

/* Compares one template of a key (`part` "pk" or "sk") and reports the
 * change. `index` is the new model's (-1: the table). */
static void key_part(key_pair *p, int index, const char *path_base,
                     const char *part, const ddbst__template *a,
                     const ddbst__template *b) {
  ddbst__differ *d = p->d;
  char how[DDBST__REASON_MAX];
  int narrows;
  if (!ddbst__diff_template(p->eo, a, p->en, b, how, sizeof how, &narrows))
    return;
  char path[DDBST__PATH_MAX];
  snprintf(path, sizeof path, "%s.%s", path_base, part);
  ddbst__diff_entity(d, p->en->name);
  ddbst__diff_readers(d, d->next, p->ne, index);
  const char *attr =
      index < 0 ? (part[0] == 'p' ? d->next->pk_attr : d->next->sk_attr)
                : (part[0] == 'p' ? d->next->indexes[index].pk_attr
                                  : d->next->indexes[index].sk_attr);
  if (!attr) attr = part;
  if (index < 0 && narrows) {
    snprintf(d->check, sizeof d->check,
             "no two items of %s get the same new key (%.300s), or one "
             "overwrites the other when they move",
             p->en->name, how);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                       "%s: every item of %s moves to a new %s, and items "
                       "whose keys differed may now share one",
                       how, p->en->name, attr);
  } else if (index < 0) {
    ddbst__diff_report(d, DDBST_CHANGE_REWRITE, path,
                       "%s: every item of %s moves to a new %s (a Put "
                       "under the new key and a Delete of the old, in one "
                       "transaction per item)",
                       how, p->en->name, attr);
  } else {
    ddbst__diff_report(d, DDBST_CHANGE_REWRITE, path,
                       "%s: every item of %s in %s is written with a new %s "
                       "(an update per item; its primary key stays)",
                       how, p->en->name, d->next->indexes[index].name, attr);
  }
}

/* Whether `c` of `e` lets value `v` of attribute `name` in: absent
 * conditions let every value in. */
static const ddbst__cond *cond_on(const ddbst__entity *e, const ddbst__ekey *k,
                                  const char *name) {
  for (int i = 0; i < k->nwhen; i++)
    if (strcmp(e->attrs[k->when[i].attr].name, name) == 0) return &k->when[i];
  return NULL;
}

static int cond_has(const ddbst__cond *c, const char *v, size_t n) {
  for (size_t i = 0; i < c->nvalues; i++)
    if (c->lens[i] == n && memcmp(c->values[i], v, n) == 0) return 1;
  return 0;
}

/* Whether every item `from`'s conditions let in, `to`'s do too. */
static int admits_all(const ddbst__entity *ef, const ddbst__ekey *from,
                      const ddbst__entity *et, const ddbst__ekey *to) {
  for (int i = 0; i < to->nwhen; i++) {
    const ddbst__cond *c = &to->when[i];
    const ddbst__cond *f = cond_on(ef, from, et->attrs[c->attr].name);
    if (!f) return 0;
    for (size_t v = 0; v < f->nvalues; v++)
      if (!cond_has(c, f->values[v], f->lens[v])) return 0;
  }
  return 1;
}

static void membership(key_pair *p, int index, const char *path_base,
                       const ddbst__ekey *a, const ddbst__ekey *b) {
  int more = !admits_all(p->en, b, p->eo, a); /* new lets in what old did not */
  int fewer = !admits_all(p->eo, a, p->en, b);
  if (!more && !fewer) return;
  ddbst__differ *d = p->d;
  char path[DDBST__PATH_MAX];
  snprintf(path, sizeof path, "%s.when", path_base);
  ddbst__diff_entity(d, p->en->name);
  ddbst__diff_readers(d, d->next, p->ne, index);
  const char *ix = d->next->indexes[index].name;
  if (more)
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "the condition for items of %s to be in %s now lets "
                       "in items it kept out: those already stored lack its "
                       "keys until written%s",
                       p->en->name, ix,
                       fewer ? "; items it now keeps out keep the keys they "
                               "have until removed"
                             : "");
  else
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, path,
                       "the condition for items of %s to be in %s now keeps "
                       "out items it let in: those already stored keep its "
                       "keys, and stay in the index, until removed",
                       p->en->name, ix);
}

static void index_keys(key_pair *p) {
  ddbst__differ *d = p->d;
  char base[DDBST__PATH_BASE_MAX];
  for (int i = 0; i < p->en->nindexes; i++) {
    const ddbst__ekey *b = &p->en->indexes[i];
    const ddbst__index *ix = &d->next->indexes[b->index];
    int oix = ddbst__diff_index_of(d->old, ix->name);
    if (oix < 0) continue; /* a new index: its own change says it */
    const ddbst__index *oi = &d->old->indexes[oix];
    const ddbst__ekey *a = ddbst__entity_key(p->eo, oix);
    snprintf(base, sizeof base, "entities.%s.indexes.%s", p->en->name,
             ix->name);
    if (!a) {
      ddbst__diff_entity(d, p->en->name);
      ddbst__diff_readers(d, d->next, p->ne, b->index);
      if (ix->native || ix->pk_shared)
        ddbst__diff_report(d, DDBST_CHANGE_FREE, base,
                           "%s joins %s, keyed on attributes its items hold "
                           "already: DynamoDB has them in the index",
                           p->en->name, ix->name);
      else
        ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, base,
                           "%s joins %s: items of %s already stored lack "
                           "its keys; write them on every item that "
                           "qualifies%s",
                           p->en->name, ix->name, p->en->name,
                           b->nwhen ? " (its condition holds and every "
                                      "facet is present)"
                                    : " (every facet present)");
      continue;
    }
    /* the key schema itself changed: the index's change says it */
    if (oi->native != ix->native || oi->local != ix->local) continue;
    if (!ix->native) {
      if (!ix->pk_shared) key_part(p, b->index, base, "pk", &a->pk, &b->pk);
      if (!ix->sk_shared) key_part(p, b->index, base, "sk", &a->sk, &b->sk);
    }
    membership(p, b->index, base, a, b);
  }
  for (int i = 0; i < p->eo->nindexes; i++) {
    const ddbst__index *oi = &d->old->indexes[p->eo->indexes[i].index];
    int nix = ddbst__diff_index_of(d->next, oi->name);
    if (nix < 0 || ddbst__entity_key(p->en, nix)) continue;
    snprintf(base, sizeof base, "entities.%s.indexes.%s", p->eo->name,
             oi->name);
    ddbst__diff_entity(d, p->en->name);
    ddbst__diff_readers(d, d->old, p->oe, p->eo->indexes[i].index);
    if (oi->native || oi->pk_shared)
      ddbst__diff_report(d, DDBST_CHANGE_FREE, base,
                         "%s leaves %s, keyed on its items' own attributes: "
                         "they stay in the index while they hold them, and "
                         "are no pattern's there",
                         p->en->name, oi->name);
    else
      ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, base,
                         "%s leaves %s: items of %s already stored keep its "
                         "keys, and stay in the index, until they are "
                         "removed",
                         p->en->name, oi->name, p->en->name);
  }
}

/* ---- unique constraints ---- */

static void uniques(key_pair *p) {
  ddbst__differ *d = p->d;
  char path[DDBST__REASON_MAX], how[DDBST__REASON_MAX];
  for (int i = 0; i < p->en->nuniques; i++) {
    const ddbst__unique *b = &p->en->uniques[i];
    const ddbst__unique *a = NULL;
    for (int j = 0; j < p->eo->nuniques && !a; j++)
      if (strcmp(p->eo->uniques[j].name, b->name) == 0) a = &p->eo->uniques[j];
    snprintf(path, sizeof path, "entities.%s.unique.%s", p->en->name, b->name);
    int narrows = 1;
    if (a && !ddbst__diff_template(p->eo, &a->tmpl, p->en, &b->tmpl, how,
                                   sizeof how, &narrows))
      continue;
    ddbst__diff_entity(d, p->en->name);
    if (!a || narrows) {
      snprintf(d->check, sizeof d->check,
               "no two items of %s already stored share %s; then write a "
               "guard item for each",
               p->en->name, b->tmpl.source);
      ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                         a ? "%s's guard %s (%s): items that were distinct "
                             "may now collide, and every guard item moves"
                           : "%s's new unique constraint %s (%s): duplicates "
                             "may already be stored, and items already "
                             "stored have no guard item",
                         p->en->name, b->name, a ? how : b->tmpl.source);
    } else {
      ddbst__diff_report(d, DDBST_CHANGE_REWRITE, path,
                         "%s's guard %s (%s): every guard item moves to its "
                         "new key (a Put of the new and a Delete of the old, "
                         "in one transaction)",
                         p->en->name, b->name, how);
    }
  }
  for (int j = 0; j < p->eo->nuniques; j++) {
    const ddbst__unique *a = &p->eo->uniques[j];
    int kept = 0;
    for (int i = 0; i < p->en->nuniques && !kept; i++)
      kept = strcmp(p->en->uniques[i].name, a->name) == 0;
    if (kept) continue;
    snprintf(path, sizeof path, "entities.%s.unique.%s", p->eo->name, a->name);
    ddbst__diff_entity(d, p->en->name);
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, path,
                       "%s's unique constraint %s is removed: its guard "
                       "items (%s) stay in the table until deleted",
                       p->eo->name, a->name, a->tmpl.source);
  }
}

/* ---- entities ---- */

static void entity_changed(ddbst__differ *d, int oe, int ne) {
  key_pair p = {d, oe, ne, &d->old->entities[oe], &d->next->entities[ne]};
  ddbst__diff_attributes(d, oe, ne);
  char base[DDBST__PATH_BASE_MAX];
  snprintf(base, sizeof base, "entities.%s.key", p.en->name);
  key_part(&p, -1, base, "pk", &p.eo->key.pk, &p.en->key.pk);
  key_part(&p, -1, base, "sk", &p.eo->key.sk, &p.en->key.sk);
  index_keys(&p);
  uniques(&p);
  const char *a = p.eo->description, *b = p.en->description;
  if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
    snprintf(base, sizeof base, "entities.%s.description", p.en->name);
    ddbst__diff_entity(d, p.en->name);
    ddbst__diff_report(d, DDBST_CHANGE_FREE, base,
                       "the description of %s changed: no item changes",
                       p.en->name);
  }
}

void ddbst__diff_entities(ddbst__differ *d) {
  char path[DDBST__REASON_MAX];
  for (int i = 0; i < d->next->nentities; i++) {
    const ddbst__entity *e = &d->next->entities[i];
    int oe = ddbst__diff_entity_of(d->old, e->name);
    if (oe >= 0) {
      entity_changed(d, oe, i);
      continue;
    }
    snprintf(path, sizeof path, "entities.%s", e->name);
    ddbst__diff_entity(d, e->name);
    ddbst__diff_readers(d, d->next, i, -2);
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "a new entity %s: no item of it is stored yet", e->name);
  }
  for (int i = 0; i < d->old->nentities; i++) {
    const ddbst__entity *e = &d->old->entities[i];
    if (ddbst__diff_entity_of(d->next, e->name) >= 0) continue;
    snprintf(path, sizeof path, "entities.%s", e->name);
    ddbst__diff_entity(d, e->name);
    ddbst__diff_readers(d, d->old, i, -2);
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, path,
                       "the entity %s is removed: its items stay in the "
                       "table, read as no entity's, until deleted (a Scan "
                       "for them and a Delete of each)",
                       e->name);
  }
}
