/* Update plans (ddbst__update_plan): each entity's UpdateItem body as the
 * fixed texts around its values, made once so that an update of the
 * commonest shape (request/update_plan.c) decides with bitmasks and writes
 * with copies: the Key object's texts between the primary key's facets
 * (from its run, compile_key_runs.c), a names-map member per attribute and
 * per index key, and per index the attributes that touch it and those it
 * needs. A name that two assignments could share (an attribute named as an
 * index key, two indexes writing one key) is left to the writers that
 * number placeholders by name. */
#include <stdio.h>
#include <string.h>

#include "model/compile.h"
#include "model/plan_texts.h"
#include "model/update_plan.h"

typedef struct plan_maker {
  ddbst__plan_maker t; /* the texts and arrays, each kept once */
  ddbst__update_plan *p;
} plan_maker;

static int add(plan_maker *k, const char *s, size_t n) {
  return ddbst__plan_add(&k->t, s, n);
}

/* The pending text kept, its bytes counted in the plan's `fixed`. */
static int take(plan_maker *k, ddbst__jtext *t) {
  return ddbst__plan_take(&k->t, t);
}

/* A whole body's steps, at most (more: no whole body; a Key object of
 * more facets: no plan). */
enum { MAX_STEPS = 128 };

/* `,"#n0":` then `name`'s JSON, and `tail`. */
static int member(plan_maker *k, const ddbst__name *nm, const char *tail,
                  ddbst__jtext *t) {
  ddbst_buf_reset(&k->t.pending);
  int rc = add(k, ",\"#n0\":", 7);
  rc = rc ? rc : add(k, nm->json.p, nm->json.n);
  rc = rc ? rc : add(k, tail, strlen(tail));
  return rc ? rc : take(k, t);
}

/* The Key object into `steps`: the table's name, then the primary key's
 * run with each facet ending a step; `"}},"UpdateExpression":"SET` is
 * left pending. 1: not the shape a plan writes. */
static int add_key(plan_maker *k, const ddbst__entity *e, ddbst__ustep *steps,
                   int *nsteps) {
  const ddbst__jrun *run = &e->key.avrun;
  ddbst_buf_reset(&k->t.pending);
  int rc = add(k, k->t.m->begin.p, k->t.m->begin.n);
  rc = rc ? rc : add(k, ",\"Key\":{", 8);
  rc = rc ? rc : add(k, run->head, run->head_len);
  for (int i = 0; !rc && i < run->npieces; i++) {
    ddbst__jtext t;
    rc = take(k, &t);
    if (rc) break;
    steps[(*nsteps)++] = (ddbst__ustep){t.p, t.n, run->pieces[i].attr};
    rc = add(k, run->pieces[i].lit, run->pieces[i].lit_len);
  }
  if (rc) return rc;
  /* the run ends with `"},`: the object closes instead */
  if (k->t.pending.len < 3 ||
      memcmp(k->t.pending.data + k->t.pending.len - 3, "\"},", 3) != 0)
    return 1;
  k->t.pending.len -= 1;
  return add(k, "},\"UpdateExpression\":\"SET", 25);
}

/* The Key object's steps, kept (entities keyed alike share them). */
static int key_steps(plan_maker *k, const ddbst__entity *e) {
  ddbst__update_plan *p = k->p;
  if (e->key.avrun.npieces > MAX_STEPS) return 1;
  ddbst__ustep steps[MAX_STEPS]; /* no padding: kept by its bytes */
  int rc = add_key(k, e, steps, &p->nsteps);
  rc = rc ? rc : take(k, &p->key_end);
  if (rc) return rc;
  p->steps = ddbst__plan_keep(&k->t, steps, (size_t)p->nsteps * sizeof *steps);
  return p->steps ? 0 : DDBST_ENOMEM;
}

/* Bit `a` of a mask (an entity has at most 64 attributes for a plan). */
static uint64_t bit(int a) { return (uint64_t)1 << a; }

static void touch_template(ddbst__uindex *u, const ddbst__entity *e,
                           const ddbst__template *t) {
  for (int j = 0; j < t->nsegs; j++) {
    int a = t->segs[j].attr;
    if (a < 0) continue;
    u->need |= bit(a);
    if (!e->attrs[a].primary_facet) u->touch |= bit(a);
  }
}

static uint32_t literal_max(uint32_t max, const ddbst__ekey *k) {
  if (k->pk.literal_len > max) max = k->pk.literal_len;
  return k->sk.literal_len > max ? k->sk.literal_len : max;
}

/* How many times `nm` is in `names`. */
static int count(const ddbst__name *nm, const ddbst__name *const *names,
                 int n) {
  int c = 0;
  for (int i = 0; i < n; i++) c += names[i] == nm;
  return c;
}

/* One index of the entity: its masks, and its keys' members when it is
 * plannable: simple templates, each key's name once among `names` (every
 * name an assignment of the entity may write). */
static int make_index(plan_maker *k, const ddbst__entity *e,
                      const ddbst__ekey *ek, ddbst__uindex *u,
                      const ddbst__name *const *names, int nnames) {
  const ddbst_model *m = k->t.m;
  const ddbst__index *ix = &m->indexes[ek->index];
  u->k = ek;
  touch_template(u, e, &ek->pk);
  touch_template(u, e, &ek->sk);
  for (int i = 0; i < ek->nwhen; i++) {
    u->touch |= bit(ek->when[i].attr);
    u->need |= bit(ek->when[i].attr);
  }
  k->p->key_literal_max = literal_max(k->p->key_literal_max, ek);
  u->plannable = 1;
  const char *keys[2] = {ddbst__index_own_pk(ix) ? ix->pk_attr : NULL,
                         ddbst__index_own_sk(ix) ? ix->sk_attr : NULL};
  const ddbst__template *ts[2] = {&ek->pk, &ek->sk};
  for (int i = 0; i < 2; i++) {
    if (!keys[i]) continue;
    const ddbst__name *nm = ddbst__name_of(m, keys[i]);
    if (!nm || !ts[i]->simple || count(nm, names, nnames) != 1) {
      u->plannable = 0;
      return 0;
    }
    k->p->size_fixed += nm->json.raw_len + ts[i]->literal_len;
    ddbst__ukey *uk = &u->keys[u->nkeys++];
    uk->t = ts[i];
    int rc = member(k, nm, "", &uk->member);
    if (rc) return rc;
  }
  return 0;
}

/* The names every assignment of `e` may write: the attributes', the index
 * keys' and the version's, and the condition's (the table's partition
 * key), each once; NULL for a name not interned. Returns how many. */
static int all_names(const ddbst_model *m, const ddbst__entity *e,
                     const ddbst__name **out) {
  int n = 0;
  for (int a = 0; a < e->nattrs; a++)
    out[n++] = ddbst__name_of(m, e->attrs[a].name);
  for (int i = 0; i < e->nindexes; i++) {
    const ddbst__index *ix = &m->indexes[e->indexes[i].index];
    if (ddbst__index_own_pk(ix)) out[n++] = ddbst__name_of(m, ix->pk_attr);
    if (ddbst__index_own_sk(ix)) out[n++] = ddbst__name_of(m, ix->sk_attr);
  }
  out[n++] = ddbst__name_of(m, m->pk_attr);
  return n;
}


/* `text` with its digit (at `at`) made `d`. */
static int add_digit(plan_maker *k, const char *text, size_t n, size_t at,
                     int d) {
  size_t start = k->t.pending.len;
  int rc = add(k, text, n);
  if (!rc) k->t.pending.data[start + at] = (char)('0' + d);
  return rc;
}

/* A names-map member (`,"#n0":"status"`) numbered `d`, opening the map
 * when it is the first. */
static int add_member(plan_maker *k, const ddbst__jtext *mt, int d, int first) {
  size_t start = k->t.pending.len;
  int rc = add_digit(k, mt->p, mt->n, 4, d);
  if (!rc && first) k->t.pending.data[start] = '{';
  return rc;
}

/* The pending text, then attribute `attr`'s value (its scan under `mask`
 * checked: see ddbst__ucheck): a step of `s`. */
static int step(plan_maker *k, ddbst__ustep *steps, int *nsteps,
                unsigned char *masks, int attr, unsigned mask) {
  ddbst__jtext t;
  int rc = take(k, &t);
  if (!rc) steps[(*nsteps)++] = (ddbst__ustep){t.p, t.n, attr};
  masks[attr] |= (unsigned char)mask;
  return rc;
}

/* The shape `s` kept, with its steps and its checks (each value it copies,
 * once, with the checks its uses ask): entities alike share them. */
static const ddbst__ushape *keep_shape(plan_maker *k, ddbst__ushape *s,
                                       const ddbst__ustep *steps,
                                       const unsigned char *masks,
                                       int nattrs) {
  ddbst__ucheck checks[64];
  for (int a = 0; a < nattrs; a++)
    if (masks[a]) checks[s->nchecks++] = (ddbst__ucheck){(uint8_t)a, masks[a]};
  s->steps = (ddbst__ustep *)ddbst__plan_keep(
      &k->t, steps, (size_t)s->nsteps * sizeof *steps);
  s->checks = (ddbst__ucheck *)ddbst__plan_keep(
      &k->t, checks, (size_t)s->nchecks * sizeof *checks);
  if (!s->steps || !s->checks) return NULL;
  return ddbst__plan_keep(&k->t, s, sizeof *s);
}

static int lowest(uint64_t b) {
  int a = 0;
  while (!(b & 1)) b >>= 1, a++;
  return a;
}

static int popcount(uint64_t b) {
  int n = 0;
  for (; b; b &= b - 1) n++;
  return n;
}

/* The whole body of an update of attribute `a` alone (and the stamp): the
 * placeholders numbered as the general writer numbers them (the values in
 * attribute order, the index keys, the version, the condition's name).
 * None (0) when an index it touches is not plannable, has "when"
 * conditions (decided per request), or needs a value the update does not
 * give; 1 when made. */
static int make_shape(plan_maker *k, const ddbst__entity *e, int a,
                      const ddbst__ushape **shapes) {
  ddbst__update_plan *p = k->p;
  uint64_t assign = bit(a) | p->stamp, given = assign | p->facets, need = 0;
  const ddbst__uindex *rw[64];
  int nrw = 0, nkeys = 0, nsteps = e->key.avrun.npieces + popcount(assign);
  for (int i = 0; i < p->nindexes; i++) {
    const ddbst__uindex *u = &p->indexes[i];
    if (!(u->touch & assign)) continue;
    if (!u->plannable || u->k->nwhen || (u->need & ~given)) return 0;
    need |= u->need;
    rw[nrw++] = u;
    nkeys += u->nkeys;
    for (int j = 0; j < u->nkeys; j++) nsteps += u->keys[j].t->nfacets;
  }
  int n = popcount(assign) + nkeys, version = p->version.p != NULL;
  if (n > 8 || nsteps > MAX_STEPS) return 0;
  ddbst__ushape shape, *s = &shape;
  memset(s, 0, sizeof *s); /* kept by its bytes: no stray ones */
  ddbst__ustep steps[MAX_STEPS]; /* no padding: kept by its bytes */
  s->assign = assign;
  s->need = need;
  size_t fixed = p->fixed;
  char t[96];
  /* the Key object's texts are the plan's own: shared, not made again */
  unsigned char masks[64] = {0};
  for (int i = 0; i < p->nsteps; i++) {
    steps[s->nsteps++] = p->steps[i];
    masks[p->steps[i].attr] |= 7;
    p->fixed += p->steps[i].len;
  }
  ddbst_buf_reset(&k->t.pending);
  int rc = add(k, p->key_end.p, p->key_end.n);
  /* SET #n0 = :v0, #n1 = :v1 ... */
  for (int d = 0; !rc && d < n; d++) {
    snprintf(t, sizeof t, "%s #n%d = :v%d", d ? "," : "", d, d);
    rc = add(k, t, strlen(t));
  }
  if (!rc && version) {
    snprintf(t, sizeof t, ", #n%d = if_not_exists(#n%d, :v%d) + :v%d", n, n,
             n, n + 1);
    rc = add(k, t, strlen(t));
  }
  if (!rc) {
    snprintf(t, sizeof t, "attribute_exists(#n%d)", n + version);
    rc = add(k, "\",\"ConditionExpression\":\"", 25);
    rc = rc ? rc : add(k, t, strlen(t));
    rc = rc ? rc : add(k, "\",\"ExpressionAttributeNames\":", 29);
  }
  /* the names: the values' in attribute order, the keys', the version's,
   * the condition's (which opens the values map) */
  int d = 0;
  for (uint64_t b = assign; !rc && b; b &= b - 1, d++)
    rc = add_member(k, &p->members[lowest(b)], d, d == 0);
  for (int i = 0; !rc && i < nrw; i++)
    for (int j = 0; !rc && j < rw[i]->nkeys; j++, d++)
      rc = add_member(k, &rw[i]->keys[j].member, d, d == 0);
  if (!rc && version) rc = add_member(k, &p->version, d, d == 0);
  d += version;
  rc = rc ? rc : add_member(k, &p->pk_end, d, d == 0);
  rc = rc ? rc : add(k, "{", 1);
  /* the values */
  d = 0;
  for (uint64_t b = assign; !rc && b; b &= b - 1, d++) {
    snprintf(t, sizeof t, "%s\":v%d\":{\"S\":\"", d ? "\"}," : "", d);
    rc = add(k, t, strlen(t));
    rc = rc ? rc : step(k, steps, &s->nsteps, masks, lowest(b), 6);
  }
  for (int i = 0; !rc && i < nrw; i++)
    for (int j = 0; !rc && j < rw[i]->nkeys; j++, d++) {
      const ddbst__template *tp = rw[i]->keys[j].t;
      snprintf(t, sizeof t, "%s\":v%d\":{\"S\":\"", d ? "\"}," : "", d);
      rc = add(k, t, strlen(t));
      for (int f = 0; !rc && f < tp->nfacets; f++) {
        rc = add(k, tp->pieces[f].lit, tp->pieces[f].lit_len);
        rc = rc ? rc : step(k, steps, &s->nsteps, masks, tp->pieces[f].attr,
                            7);
      }
      rc = rc ? rc : add(k, tp->tail, tp->tail_len);
    }
  rc = rc ? rc : add(k, "\"}", 2);
  if (!rc && version) {
    snprintf(t, sizeof t, ",\":v%d\":{\"N\":\"0\"},\":v%d\":{\"N\":\"1\"}",
             d, d + 1);
    rc = add(k, t, strlen(t));
  }
  rc = rc ? rc : add(k, "}}", 2);
  rc = rc ? rc : take(k, &s->end);
  s->fixed = p->fixed - fixed;
  p->fixed = fixed;
  if (rc) return rc;
  shapes[a] = keep_shape(k, s, steps, masks, e->nattrs);
  return shapes[a] ? 1 : DDBST_ENOMEM;
}

/* The values' text lengths L the plan takes are those below the limit:
 * key_uses * L + key_literal_max <= the sort key's limit, and size_fixed +
 * (key_uses + 1) * L <= the item's (0: none). */
static size_t text_limit(const ddbst__update_plan *p, size_t key_uses) {
  if (p->key_literal_max > DDBST__SK_MAX || p->size_fixed > DDBST__ITEM_MAX)
    return 0;
  size_t by_item = (DDBST__ITEM_MAX - p->size_fixed) / (key_uses + 1);
  if (!key_uses) return by_item + 1;
  size_t by_key = (DDBST__SK_MAX - p->key_literal_max) / key_uses;
  return (by_key < by_item ? by_key : by_item) + 1;
}

static int make_plan(plan_maker *k, const ddbst__entity *e) {
  ddbst_model *m = k->t.m;
  ddbst__update_plan *p = k->p;
  int rc = key_steps(k, e);
  if (rc) return rc;
  p->key_literal_max = literal_max(0, &e->key);
  p->size_fixed = e->key.avrun.names_raw + e->key.pk.literal_len +
                  e->key.sk.literal_len;
  int nindexes = 0;
  for (int i = 0; i < e->nindexes; i++)
    nindexes += !m->indexes[e->indexes[i].index].native;
  p->indexes = ddbst__arena_alloc(
      &m->arena, (size_t)(nindexes ? nindexes : 1) * sizeof *p->indexes);
  /* the names list and the members are the load's until kept: on the
   * stack (a plan is made for 64 attributes and 64 indexes at most) */
  const ddbst__name *names[64 + 2 * 64 + 1];
  ddbst__jtext members[64];
  memset(members, 0, sizeof members);
  if (!p->indexes) return DDBST_ENOMEM;
  int nnames = all_names(m, e, names);
  /* an assignment's name written once per request: any name twice in the
   * entity's list is left to the other writers */
  const ddbst__name *pk = names[nnames - 1];
  if (!pk || count(pk, names, nnames) != 1) return 1;
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    p->size_fixed += at->jname.raw_len;
    if (at->primary_facet) p->facets |= bit(a);
    if (at->primary_facet || a == e->version_attr) continue;
    p->settable |= bit(a);
    if (!names[a] || count(names[a], names, nnames) != 1 ||
        !ddbst__type_is_string(at->type))
      continue;
    rc = member(k, names[a], "", &members[a]);
    if (rc) return rc;
    p->assignable |= bit(a);
  }
  /* kept: entities alike share them */
  p->members = ddbst__plan_keep(&k->t, members,
                                (size_t)e->nattrs * sizeof *members);
  if (!p->members) return DDBST_ENOMEM;
  if (e->version_attr >= 0) {
    const ddbst__name *v = names[e->version_attr];
    if (!v || count(v, names, nnames) != 1) return 1;
    rc = member(k, v, "", &p->version);
    if (rc) return rc;
  }
  for (int i = 0; i < e->nindexes; i++) {
    const ddbst__ekey *ek = &e->indexes[i];
    if (m->indexes[ek->index].native) continue;
    rc = make_index(k, e, ek, &p->indexes[p->nindexes++], names, nnames);
    if (rc) return rc;
  }
  rc = member(k, pk, "},\"ExpressionAttributeValues\":", &p->pk_end);
  if (rc) return rc;
  p->text_limit = text_limit(p, e->key_uses);
  p->first_limit = e->nuniques ? 0 : p->text_limit;
  p->updated = e->updated_attr >= 0 ? bit(e->updated_attr) : 0;
  /* each attribute's update alone: its whole body (with the stamp, when
   * the entity keeps one the plan writes) */
  int u = e->updated_attr;
  if (u >= 0 && !(p->assignable & bit(u))) return 0;
  /* a shape rewrites the indexes its attribute touches: none may be
   * touched by the version's value, which no shape assigns */
  for (int i = 0; e->version_attr >= 0 && i < p->nindexes; i++)
    if (p->indexes[i].touch & bit(e->version_attr)) return 0;
  p->stamp = u >= 0 ? bit(u) : 0;
  const ddbst__ushape *shapes[64] = {0};
  int made = 0;
  for (int a = 0; a < e->nattrs; a++) {
    if (!(p->assignable & bit(a))) continue;
    rc = make_shape(k, e, a, shapes);
    if (rc < 0) return rc;
    made += rc;
  }
  /* kept: entities alike share the array too */
  if (made)
    p->shapes = ddbst__plan_keep(&k->t, shapes,
                                 (size_t)e->nattrs * sizeof *shapes);
  return made && !p->shapes ? DDBST_ENOMEM : 0;
}

int ddbst__compile_update_plans(ddbst_model *m) {
  plan_maker k;
  ddbst__plan_maker_init(&k.t, m);
  int rc = 0;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    /* a mask holds 64 (an update that moves a unique value takes the
     * guard writer before any plan is looked at) */
    if (!en->key.avrun.head || en->nattrs > 64 ||
        en->nindexes > 64)
      continue;
    k.p = ddbst__arena_alloc(&m->arena, sizeof *k.p);
    if (!k.p) {
      rc = DDBST_ENOMEM;
      break;
    }
    memset(k.p, 0, sizeof *k.p);
    k.t.fixed = &k.p->fixed;
    rc = make_plan(&k, en);
    if (rc == 1) { /* not the shape a plan writes */
      rc = 0;
      continue;
    }
    if (!rc) en->update_plan = k.p;
  }
  ddbst__plan_maker_release(&k.t);
  return rc;
}
