/* Update plans (ddbst__update_plan): each entity's UpdateItem body as the
 * fixed texts around its values, made once so that an update of the
 * commonest shape (request/update_plan.c) decides with bitmasks and writes
 * with copies: the Key object's texts between the primary key's facets
 * (from its run, compile_key_runs.c), a names-map member per attribute and
 * per index key, and per index the attributes that touch it and those it
 * needs. A name that two assignments could share (an attribute named as an
 * index key, two indexes writing one key) is left to the writers that
 * number placeholders by name. */
#include <string.h>

#include "model/compile.h"
#include "model/update_plan.h"

typedef struct plan_maker {
  ddbst_model *m;
  ddbst_buf pending; /* the text since the last value */
  ddbst__update_plan *p;
} plan_maker;

static int add(plan_maker *k, const char *s, size_t n) {
  return ddbst__buf_append(&k->pending, s, n);
}

/* The pending text into the arena, as a jtext (padded, NUL after). */
static int take(plan_maker *k, ddbst__jtext *t) {
  const char *p =
      ddbst__arena_strndup(&k->m->arena, k->pending.data, k->pending.len);
  if (!p) return DDBST_ENOMEM;
  *t = (ddbst__jtext){p, (uint32_t)k->pending.len, 0};
  k->p->fixed += k->pending.len;
  ddbst_buf_reset(&k->pending);
  return 0;
}

/* `,"#n0":` then `name`'s JSON, and `tail`. */
static int member(plan_maker *k, const ddbst__name *nm, const char *tail,
                  ddbst__jtext *t) {
  ddbst_buf_reset(&k->pending);
  int rc = add(k, ",\"#n0\":", 7);
  rc = rc ? rc : add(k, nm->json.p, nm->json.n);
  rc = rc ? rc : add(k, tail, strlen(tail));
  return rc ? rc : take(k, t);
}

/* The Key object: the table's name, then the primary key's run with each
 * facet ending a step, and `"}},"UpdateExpression":"SET` after. */
static int key_steps(plan_maker *k, const ddbst__entity *e) {
  const ddbst__jrun *run = &e->key.avrun;
  ddbst__update_plan *p = k->p;
  p->steps = ddbst__arena_alloc(&k->m->arena,
                                (size_t)(run->npieces + 1) * sizeof *p->steps);
  if (!p->steps) return DDBST_ENOMEM;
  ddbst_buf_reset(&k->pending);
  int rc = add(k, k->m->begin.p, k->m->begin.n);
  rc = rc ? rc : add(k, ",\"Key\":{", 8);
  rc = rc ? rc : add(k, run->head, run->head_len);
  for (int i = 0; !rc && i < run->npieces; i++) {
    ddbst__jtext t;
    rc = take(k, &t);
    if (rc) break;
    p->steps[p->nsteps++] = (ddbst__pstep){t.p, t.n, run->pieces[i].attr};
    rc = add(k, run->pieces[i].lit, run->pieces[i].lit_len);
  }
  if (rc) return rc;
  /* the run ends with `"},`: the object closes instead */
  if (k->pending.len < 3 ||
      memcmp(k->pending.data + k->pending.len - 3, "\"},", 3) != 0)
    return 1; /* not the shape this plan writes */
  k->pending.len -= 1;
  rc = add(k, "},\"UpdateExpression\":\"SET", 25);
  return rc ? rc : take(k, &p->key_end);
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
  const ddbst_model *m = k->m;
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

static int make_plan(plan_maker *k, const ddbst__entity *e) {
  ddbst_model *m = k->m;
  ddbst__update_plan *p = k->p;
  int rc = key_steps(k, e);
  if (rc) return rc;
  p->key_literal_max = literal_max(0, &e->key);
  p->size_fixed = e->key.avrun.names_raw + e->key.pk.literal_len +
                  e->key.sk.literal_len;
  p->members = ddbst__arena_alloc(&m->arena, (size_t)e->nattrs *
                                                 sizeof *p->members);
  p->indexes = ddbst__arena_alloc(
      &m->arena, (size_t)(e->nindexes + 1) * sizeof *p->indexes);
  const ddbst__name **names = ddbst__arena_alloc(
      &m->arena, (size_t)(e->nattrs + 2 * e->nindexes + 1) * sizeof *names);
  if (!p->members || !p->indexes || !names) return DDBST_ENOMEM;
  int nnames = all_names(m, e, names);
  /* an assignment's name written once per request: any name twice in the
   * entity's list is left to the other writers */
  const ddbst__name *pk = names[nnames - 1];
  if (!pk || count(pk, names, nnames) != 1) return 1;
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    p->size_fixed += at->jname.raw_len;
    if (at->primary_facet || a == e->version_attr) continue;
    p->settable |= bit(a);
    if (!names[a] || count(names[a], names, nnames) != 1 ||
        !ddbst__type_is_string(at->type))
      continue;
    rc = member(k, names[a], "", &p->members[a]);
    if (rc) return rc;
    p->assignable |= bit(a);
  }
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
  return rc;
}

int ddbst__compile_update_plans(ddbst_model *m) {
  plan_maker k;
  memset(&k, 0, sizeof k);
  k.m = m;
  ddbst__buf_init(&k.pending, &m->alloc);
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
    rc = make_plan(&k, en);
    if (rc == 1) { /* not the shape a plan writes */
      rc = 0;
      continue;
    }
    if (!rc) en->update_plan = k.p;
  }
  ddbst__buf_release(&k.pending);
  return rc;
}
