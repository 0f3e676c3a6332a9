/* The loader's checks that keys tell items apart, on top of overlap.c
 * (whether two templates can meet): between entities and unique guards, and
 * within a query pattern's key range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "model/load.h"

/* Comparing every pair of templates is quadratic in the entities, and each
 * comparison cuts both templates into parts: a model of 200 entities spent
 * most of its load here. Each key's signature (ddbst__template_sig) is
 * made once; a pair is compared only when their signatures say it may
 * meet, so every verdict, and the order of the reports, is the one the
 * full comparison gives. */
typedef struct ksig {
  uint8_t key; /* the entity has this key */
  uint8_t has; /* ... with a partition template */
  uint8_t has_sk; /* ... and a sort key template */
  ddbst__tsig pk, sk;
} ksig;

/* An entity of a key space, by its partition signature (below). */
typedef struct kentry {
  uint64_t pk;
  int entity;
  int row; /* its key's signature: ddbst__keysigs.keys[row] */
} kentry;

/* One key space's entities with a key there: those whose partition
 * signature is concrete (known, with a literal head) sorted by it, then by
 * entity; the others in entity order. A pattern's range check visits only
 * its own signature's group and the others. */
typedef struct kspace {
  kentry *grouped;
  int ngrouped;
  int *loose;
  int nloose;
} kspace;

struct ddbst__keysigs {
  /* The keys entities have, each entity's in a row: its table key, then
   * its index keys in its own order (ddbst__entity.indexes); an entity's
   * row starts at first[entity]. Only the keys held: a matrix of every
   * index by every entity was mostly empty, and made the load's peak. */
  ksig *keys;
  int *first;
  ksig none;           /* the key an entity does not have */
  kspace *spaces;      /* [index + 1] */
  kentry *grouped;     /* the spaces' arrays, in one block each */
  int *loose;
  ddbst__tsig *guards; /* every entity's unique guards, in order */
  int *guard_owner;    /* ... the entity of each */
  int *guard_index;    /* ... and its index in the entity's uniques */
  size_t nguards;
  ddbst__tsig empty;   /* the absent sort key's */
};

/* Whether two templates may produce one key, by their signatures: exactly
 * ddbst__templates_may_share's first tests. */
static int sig_may_share(const ddbst__tsig *a, const ddbst__tsig *b) {
  if (!a->known || !b->known) return 1;
  if (a->nparts != b->nparts) return 0;
  return !a->head_known || !b->head_known || a->head == b->head;
}

/* Whether a template may produce a key starting with text of signature q:
 * ddbst__template_may_start_with's first tests. Part 0 of q is compared
 * whole only when q goes on past it (otherwise it is a prefix). */
static int sig_may_start(const ddbst__tsig *t, const ddbst__tsig *q) {
  if (!t->known || !q->known) return 1;
  if (t->nparts < q->nparts) return 0;
  if (q->nparts < 2) return 1;
  return !t->head_known || !q->head_known || t->head == q->head;
}

static int pk_concrete(const ksig *k) {
  return k->has && k->pk.known && k->pk.head_known;
}

static uint64_t pk_key(const ksig *k) {
  return (uint64_t)k->pk.head << 16 | k->pk.nparts;
}

static int by_pk(const void *a, const void *b) {
  const kentry *x = a, *y = b;
  if (x->pk != y->pk) return x->pk < y->pk ? -1 : 1;
  return (x->entity > y->entity) - (x->entity < y->entity);
}

/* Each space's arrays follow the last one's: they hold only the entities
 * with a key there, at most every entity's table key and index keys. */
static const ksig *sig_of(const ddbst_model *m, const struct ddbst__keysigs *s,
                          int ix, int e) {
  const ksig *row = &s->keys[s->first[e]];
  if (ix < 0) return row;
  const ddbst__entity *en = &m->entities[e];
  for (int k = 0; k < en->nindexes; k++)
    if (en->indexes[k].index == ix) return &row[1 + k];
  return &s->none;
}

static void make_spaces(const ddbst_model *m, struct ddbst__keysigs *s) {
  size_t grouped = 0, loose = 0;
  for (int ix = -1; ix < m->nindexes; ix++) {
    kspace *sp = &s->spaces[ix + 1];
    if (ix >= 0) {
      grouped += (size_t)s->spaces[ix].ngrouped;
      loose += (size_t)s->spaces[ix].nloose;
    }
    sp->grouped = s->grouped + grouped;
    sp->loose = s->loose + loose;
    sp->ngrouped = sp->nloose = 0;
    for (int e = 0; e < m->nentities; e++) {
      const ksig *k = sig_of(m, s, ix, e);
      if (pk_concrete(k))
        sp->grouped[sp->ngrouped++] =
            (kentry){pk_key(k), e, (int)(k - s->keys)};
      else if (k->key)
        sp->loose[sp->nloose++] = e;
    }
    qsort(sp->grouped, (size_t)sp->ngrouped, sizeof *sp->grouped, by_pk);
  }
}

static void make_sigs(ddbst__loader *L) {
  const ddbst_model *m = L->m;
  size_t nguards = 0;
  size_t held = 0; /* the keys entities have: one in the table, their indexes' */
  for (int e = 0; e < m->nentities; e++) {
    nguards += (size_t)m->entities[e].nuniques;
    held += 1 + (size_t)m->entities[e].nindexes;
  }
  /* one block: the struct, then each array at an 8-byte boundary */
  size_t n = held ? held : 1, ng = nguards ? nguards : 1, at = 0, off[9];
  const size_t sizes[9] = {sizeof(struct ddbst__keysigs), n * sizeof(ksig),
                           ng * sizeof(ddbst__tsig),
                           (size_t)(m->nindexes + 1) * sizeof(kspace),
                           n * sizeof(kentry), n * sizeof(int),
                           ng * sizeof(int), ng * sizeof(int),
                           (size_t)(m->nentities ? m->nentities : 1) *
                               sizeof(int)};
  for (int i = 0; i < 9; i++) {
    off[i] = at;
    at += (sizes[i] + 7) / 8 * 8;
  }
  char *block = ddbst__malloc(&m->alloc, at);
  if (!block) {
    /* an allocation failure is the load's ENOMEM, as everywhere else; the
     * checks go on comparing every pair, as they would without sigs */
    L->nomem = 1;
    return;
  }
  struct ddbst__keysigs *s = (void *)block;
  s->keys = (void *)(block + off[1]);
  s->guards = (void *)(block + off[2]);
  s->spaces = (void *)(block + off[3]);
  s->grouped = (void *)(block + off[4]);
  s->loose = (void *)(block + off[5]);
  s->guard_owner = (void *)(block + off[6]);
  s->guard_index = (void *)(block + off[7]);
  s->first = (void *)(block + off[8]);
  memset(&s->none, 0, sizeof s->none);
  s->nguards = nguards;
  L->sigs = s;
  const ddbst__template empty = {.source = NULL};
  ddbst__template_sig(&empty, m->delim, m->delim_len, &s->empty);
  size_t row = 0;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *en = &m->entities[e];
    s->first[e] = (int)row;
    for (int x = -1; x < en->nindexes; x++, row++) {
      ksig *k = &s->keys[row];
      const ddbst__ekey *a = x < 0 ? &en->key : &en->indexes[x];
      memset(k, 0, sizeof *k);
      k->key = 1;
      k->has = a->pk.nsegs != 0;
      k->has_sk = a->sk.nsegs != 0;
      if (!k->has) continue;
      ddbst__template_sig(&a->pk, m->delim, m->delim_len, &k->pk);
      ddbst__template_sig(&a->sk, m->delim, m->delim_len, &k->sk);
    }
  }
  size_t g = 0;
  for (int e = 0; e < m->nentities; e++)
    for (int u = 0; u < m->entities[e].nuniques; u++, g++) {
      ddbst__template_sig(&m->entities[e].uniques[u].tmpl, m->delim,
                          m->delim_len, &s->guards[g]);
      s->guard_owner[g] = e;
      s->guard_index[g] = u;
    }
  make_spaces(m, s);
}

void ddbst__overlap_sigs_free(ddbst__loader *L) {
  if (!L->sigs) return;
  ddbst__free(&L->m->alloc, L->sigs); /* one block (make_sigs) */
  L->sigs = NULL;
}

static const ksig *key_sig(const ddbst__loader *L, int ix, int e) {
  return sig_of(L->m, L->sigs, ix, e);
}

/* A sort key template that is absent matches only the absent sort key. */
static int may_share(const ddbst_model *m, const ddbst__ekey *a,
                     const ddbst__template *a_sk, const ddbst__ekey *b,
                     const ddbst__template *b_sk) {
  return ddbst__templates_may_share(&a->pk, &b->pk, m->delim, m->delim_len) &&
         ddbst__templates_may_share(a_sk, b_sk, m->delim, m->delim_len);
}

/* The first entry of space ks's group of partition signature `pk`. */
static int group_start(const kspace *ks, uint64_t pk) {
  kentry want = {pk, -1, 0};
  int lo = 0, hi = ks->ngrouped;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (by_pk(&ks->grouped[mid], &want) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Entity i's key `a` in space ix against entity j's (j < i): refused when
 * they could be the same. */
static void check_pair(ddbst__loader *L, int ix, int i, const ddbst__ekey *a,
                       const ksig *si, const ksig *sj, int j) {
  const ddbst_model *m = L->m;
  if (si) {
    if (!sj) sj = key_sig(L, ix, j);
    if (!sj->has || !sig_may_share(&si->pk, &sj->pk) ||
        !sig_may_share(&si->sk, &sj->sk))
      return;
  }
  const ddbst__entity *ei = &m->entities[i], *ej = &m->entities[j];
  const ddbst__ekey *b = ddbst__entity_key(ej, ix);
  if (!b || !b->pk.nsegs || !may_share(m, a, &a->sk, b, &b->sk)) return;
  size_t old = ddbst__load_push(L, "entities");
  size_t o2 = ddbst__load_push(L, ei->name);
  ddbst__load_report(
      L, NULL,
      "%s and %s can have the same key in %s (%s / %s and %s / %s): "
      "a key could not tell them apart; give them different literals",
      ej->name, ei->name, ix < 0 ? "the table" : m->indexes[ix].name,
      b->pk.source, b->sk.nsegs ? b->sk.source : "-", a->pk.source,
      a->sk.nsegs ? a->sk.source : "-");
  ddbst__load_pop(L, o2);
  ddbst__load_pop(L, old);
}

/* Entity i's key `a` against unique guard u of entity j (the gi-th guard
 * of the model): refused when a guard item could have its key. */
static void check_guard(ddbst__loader *L, const ddbst__entity *ei,
                        const ddbst__ekey *a, const ksig *si, int j, int u,
                        size_t gi) {
  const ddbst_model *m = L->m;
  if (si) {
    const ddbst__tsig *gs = &L->sigs->guards[gi];
    if (!sig_may_share(&si->pk, gs) ||
        !sig_may_share(&si->sk, m->sk_attr ? gs : &L->sigs->empty))
      return;
  }
  const ddbst__unique *g = &m->entities[j].uniques[u];
  ddbst__ekey gk;
  memset(&gk, 0, sizeof gk);
  gk.pk = g->tmpl;
  const ddbst__template empty = {.source = NULL};
  if (!may_share(m, a, &a->sk, &gk, m->sk_attr ? &g->tmpl : &empty)) return;
  size_t old = ddbst__load_push(L, "entities");
  size_t o2 = ddbst__load_push(L, m->entities[j].name);
  size_t o3 = ddbst__load_push(L, "unique");
  size_t o4 = ddbst__load_push(L, g->name);
  ddbst__load_report(
      L, NULL,
      "the guard items of %s.%s (%s) can have the same key as %s "
      "items; give the guard template its own literal",
      m->entities[j].name, g->name, g->tmpl.source, ei->name);
  ddbst__load_pop(L, o4);
  ddbst__load_pop(L, o3);
  ddbst__load_pop(L, o2);
  ddbst__load_pop(L, old);
}

/* Keys must say which entity an item is: two entities (or an entity and a
 * unique guard) whose templates could produce the same key are refused. */
void ddbst__check_ambiguous_keys(ddbst__loader *L) {
  const ddbst_model *m = L->m;
  make_sigs(L);
  for (int ix = -1; ix < m->nindexes; ix++)
    for (int i = 0; i < m->nentities; i++) {
      const ddbst__entity *ei = &m->entities[i];
      const ddbst__ekey *a = ddbst__entity_key(ei, ix);
      if (!a || !a->pk.nsegs) continue;
      /* a native index's items say what they are by the entity attribute:
       * their keys are values, which entities may share */
      if (ix >= 0 && m->indexes[ix].native) continue;
      const ksig *si = L->sigs ? key_sig(L, ix, i) : NULL;
      if (si && pk_concrete(si)) {
        /* only i's partition group and the loose entities can share its
         * key: merged in entity order, the order of the full scan */
        const kspace *ks = &L->sigs->spaces[ix + 1];
        uint64_t want = pk_key(si);
        int ga = group_start(ks, want), b = 0;
        for (;;) {
          int in_group = ga < ks->ngrouped && ks->grouped[ga].pk == want &&
                         ks->grouped[ga].entity < i;
          int in_loose = b < ks->nloose && ks->loose[b] < i;
          if (!in_group && !in_loose) break;
          if (in_group && (!in_loose || ks->grouped[ga].entity < ks->loose[b])) {
            check_pair(L, ix, i, a, si, &L->sigs->keys[ks->grouped[ga].row],
                       ks->grouped[ga].entity);
            ga++;
          } else {
            check_pair(L, ix, i, a, si, NULL, ks->loose[b++]);
          }
        }
      } else {
        for (int j = 0; j < i; j++) check_pair(L, ix, i, a, si, NULL, j);
      }
      /* unique guards live in the table, keyed by their template twice */
      /* ... and so in an index keyed on the table's keys alone */
      if (ix >= 0 && !ddbst__index_all_shared(&m->indexes[ix])) continue;
      if (L->sigs) {
        const ddbst__tsig *gsk = m->sk_attr ? NULL : &L->sigs->empty;
        for (size_t gi = 0; gi < L->sigs->nguards; gi++) {
          /* check_guard's first test, here: most guards fail it */
          const ddbst__tsig *gs = &L->sigs->guards[gi];
          if (!sig_may_share(&si->pk, gs) ||
              !sig_may_share(&si->sk, gsk ? gsk : gs))
            continue;
          check_guard(L, ei, a, si, L->sigs->guard_owner[gi],
                      L->sigs->guard_index[gi], gi);
        }
      } else {
        size_t gi = 0;
        for (int j = 0; j < m->nentities; j++)
          for (int u = 0; u < m->entities[j].nuniques; u++, gi++)
            check_guard(L, ei, a, si, j, u, gi);
      }
    }
}

/* Whether index `ix` holds attribute `name` in its items. */
static int projects(const ddbst__index *ix, const char *name) {
  if (ix->projection == DDBST__PROJ_ALL) return 1;
  for (size_t i = 0; ix->projection == DDBST__PROJ_INCLUDE && i < ix->ninclude;
       i++)
    if (!strcmp(ix->include[i], name)) return 1;
  return 0;
}

/* A filter of a query on an index reads what the index holds: DynamoDB
 * refuses one on an attribute the index does not project. */
static void check_filter_projected(ddbst__loader *L, const ddbst__pattern *p,
                                   const char *name, const char *why) {
  const ddbst__index *ix = &L->m->indexes[p->index];
  if (projects(ix, name)) return;
  ddbst__load_report(L, NULL,
                     "%s reads index %s, which does not project %s (%s): "
                     "DynamoDB refuses the filter on it that %s; add %s to "
                     "the index's projection",
                     p->name, ix->name, name,
                     ix->projection == DDBST__PROJ_KEYS_ONLY
                         ? "KEYS_ONLY"
                         : "not in its INCLUDE list",
                     why, name);
}

/* Whether entity e's items, not pattern p's, can fall in its key range
 * (k's partition, sort keys starting with q[0..qn)); sp and sq are the
 * signatures of k and q, when made. */
static int falls_in(const ddbst__loader *L, const ddbst__pattern *p,
                    const ddbst__ekey *k, const ksig *sp, const ksig *so,
                    const ddbst__tsig *sq, const char *q, size_t qn, int e) {
  const ddbst_model *m = L->m;
  /* e's signature (`so`, when the caller has it) first: it turns most
   * entities away without their keys */
  if (sp && sp->has) {
    if (!so) so = key_sig(L, p->index, e);
    if (!so->key) return 0;
    if (so->has && (!sig_may_share(&sp->pk, &so->pk) ||
                    (so->has_sk && !sig_may_start(&so->sk, sq))))
      return 0; /* cannot fall in the range */
  }
  const ddbst__ekey *o = ddbst__entity_key(&m->entities[e], p->index);
  if (!o) return 0;
  for (int i = 0; i < p->nentities; i++)
    if (p->entities[i] == e) return 0;
  return ddbst__templates_may_share(&k->pk, &o->pk, m->delim, m->delim_len) &&
         (!o->sk.nsegs ||
          ddbst__template_may_start_with(&o->sk, q, qn, m->delim, m->delim_len));
}

/* Whether unique guard u of entity e (the gi-th of the model) can fall in
 * the key range of falls_in. */
static int guard_in_range(const ddbst__loader *L, const ddbst__ekey *k,
                          const ksig *sp, const ddbst__tsig *sq, const char *q,
                          size_t qn, int e, int u, size_t gi) {
  const ddbst_model *m = L->m;
  if (sp && sp->has &&
      (!sig_may_share(&sp->pk, &L->sigs->guards[gi]) ||
       !sig_may_start(&L->sigs->guards[gi], sq)))
    return 0;
  const ddbst__template *g = &m->entities[e].uniques[u].tmpl;
  return ddbst__templates_may_share(&k->pk, g, m->delim, m->delim_len) &&
         ddbst__template_may_start_with(g, q, qn, m->delim, m->delim_len);
}

/* Whether items that are not the pattern's can fall in its key range: an
 * entity outside it (or a unique guard) whose keys may share its partition
 * and start with the sort-key text the pattern reads. Such a pattern filters
 * on the entity attribute; without one the model is refused. */
void ddbst__check_pattern_range(ddbst__loader *L, ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  if (p->op != DDBST__OP_QUERY || p->nentities == 0) return;
  const ddbst__entity *first = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(first, p->index);
  if (!k) return;
  /* the literal start every entity of the pattern shares */
  char q[DDBST__SK_MAX];
  size_t qn = 0;
  const ddbst__seg *s0 = k->sk.nsegs ? &k->sk.segs[0] : NULL;
  if (s0 && s0->attr < 0 && s0->len <= sizeof q) {
    memcpy(q, s0->text, s0->len);
    qn = s0->len;
  }
  for (int i = 1; i < p->nentities; i++) {
    const ddbst__ekey *o =
        ddbst__entity_key(&m->entities[p->entities[i]], p->index);
    const ddbst__seg *t0 = o && o->sk.nsegs ? &o->sk.segs[0] : NULL;
    size_t l = t0 && t0->attr < 0 ? t0->len : 0, n = 0;
    while (n < qn && n < l && q[n] == t0->text[n]) n++;
    qn = n;
  }
  const char *intruder = NULL;
  const ksig *sp = L->sigs ? key_sig(L, p->index, p->entities[0]) : NULL;
  ddbst__tsig sq = {0};
  if (sp) ddbst__text_sig(q, qn, m->delim, m->delim_len, &sq);
  if (sp && pk_concrete(sp)) {
    /* the pattern's partition group and the loose entities, in entity
     * order: the first intruder is the one the full scan finds */
    const kspace *ks = &L->sigs->spaces[p->index + 1];
    uint64_t want = pk_key(sp);
    int a = group_start(ks, want), b = 0;
    while (!intruder) {
      int in_group = a < ks->ngrouped && ks->grouped[a].pk == want;
      if (!in_group && b == ks->nloose) break;
      const ksig *so = NULL;
      int e;
      if (in_group && (b == ks->nloose || ks->grouped[a].entity < ks->loose[b])) {
        so = &L->sigs->keys[ks->grouped[a].row];
        e = ks->grouped[a++].entity;
      } else {
        e = ks->loose[b++];
      }
      if (falls_in(L, p, k, sp, so, &sq, q, qn, e))
        intruder = m->entities[e].name;
    }
  } else {
    for (int e = 0; e < m->nentities && !intruder; e++)
      if (falls_in(L, p, k, sp, NULL, &sq, q, qn, e))
        intruder = m->entities[e].name;
  }
  int guards = p->index < 0 || ddbst__index_all_shared(&m->indexes[p->index]);
  size_t gi = 0;
  if (L->sigs) { /* the guards by the flat list: most entities have none */
    for (; guards && gi < L->sigs->nguards && !intruder; gi++)
      if (guard_in_range(L, k, sp, &sq, q, qn, L->sigs->guard_owner[gi],
                         L->sigs->guard_index[gi], gi))
        intruder = "a unique guard";
  } else {
    for (int e = 0; guards && e < m->nentities && !intruder; e++)
      for (int u = 0; u < m->entities[e].nuniques && !intruder; u++, gi++)
        if (guard_in_range(L, k, sp, &sq, q, qn, e, u, gi))
          intruder = "a unique guard";
  }
  for (int f = 0; p->index >= 0 && f < p->nfilter; f++)
    check_filter_projected(L, p, first->attrs[p->filter[f].attr].name,
                           "the pattern declares");
  if (!intruder) return;
  if (m->entity_attr) {
    p->type_filter = 1;
    if (p->index >= 0) {
      char why[160];
      snprintf(why, sizeof why, "keeps %s items out of its range", intruder);
      check_filter_projected(L, p, m->entity_attr, why);
    }
    return;
  }
  ddbst__load_report(
      L, NULL,
      "%s items can fall in the key range %s reads (its sort keys start "
      "with '%.*s'); give them different literals, or declare "
      "table.entityAttribute so the query can filter them out",
      intruder, p->name, (int)qn, q);
}
