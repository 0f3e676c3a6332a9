/* Put plans (ddbst__put_plan): each entity's PutItem body as the fixed
 * texts between its values, made once from the key runs
 * (compile_key_runs.c) so that a put of the common shape is copies and
 * nothing else (request/put_plan.c): the table's name, `"Item":`, the key
 * members, the entity type and every member's name run together into as
 * few texts as the values between them allow. */
#include <string.h>

#include "model/compile.h"
#include "model/plan_texts.h"

typedef struct plan_maker {
  ddbst__plan_maker t; /* the texts, each kept once */
  ddbst__put_plan *p;
} plan_maker;

/* A run's texts and facets, its facets each ending a step. */
static int add_run(plan_maker *k, const ddbst__jrun *run) {
  int rc = ddbst__plan_add(&k->t, run->head, run->head_len);
  for (int i = 0; !rc && i < run->npieces; i++) {
    ddbst__jtext t;
    rc = ddbst__plan_take(&k->t, &t);
    if (rc) break;
    k->p->steps[k->p->nsteps++] = (ddbst__pstep){t.p, t.n,
                                                 run->pieces[i].attr};
    rc = ddbst__plan_add(&k->t, run->pieces[i].lit, run->pieces[i].lit_len);
  }
  return rc;
}

static uint32_t literal_max(uint32_t max, const ddbst__ekey *k) {
  if (k->pk.literal_len > max) max = k->pk.literal_len;
  return k->sk.literal_len > max ? k->sk.literal_len : max;
}

/* A member's or an end's text: `"}` closing the value before it, then
 * `a` and `b`. */
static int closing(plan_maker *k, const char *a, size_t an, const char *b,
                   size_t bn, ddbst__jtext *t) {
  ddbst_buf_reset(&k->t.pending);
  int rc = ddbst__plan_add(&k->t, "\"}", 2);
  rc = rc ? rc : ddbst__plan_add(&k->t, a, an);
  rc = rc ? rc : ddbst__plan_add(&k->t, b, bn);
  return rc ? rc : ddbst__plan_take(&k->t, t);
}

static int make_plan(plan_maker *k, const ddbst__entity *e) {
  const ddbst_model *m = k->t.m;
  ddbst__put_plan *p = k->p;
  int facets = e->key.avrun.npieces, nconds = 0;
  for (int i = 0; i < e->nindexes; i++) {
    facets += e->indexes[i].avrun.npieces;
    nconds += e->indexes[i].nwhen > 0;
  }
  p->steps = ddbst__arena_alloc(&k->t.m->arena, (size_t)(facets + 1) *
                                                  sizeof *p->steps);
  p->conds = ddbst__arena_alloc(&k->t.m->arena,
                                (size_t)(nconds + 1) * sizeof *p->conds);
  if (!p->steps || !p->conds) return DDBST_ENOMEM;
  ddbst_buf_reset(&k->t.pending);
  int rc = ddbst__plan_add(&k->t, m->begin.p, m->begin.n);
  rc = rc ? rc : ddbst__plan_add(&k->t, ",\"Item\":{", 9);
  rc = rc ? rc : add_run(k, &e->key.avrun);
  p->key_literal_max = literal_max(0, &e->key);
  for (int i = 0; !rc && i < e->nindexes; i++) {
    const ddbst__ekey *ek = &e->indexes[i];
    const ddbst__index *ix = &m->indexes[ek->index];
    if (!ddbst__index_own_pk(ix) && !ddbst__index_own_sk(ix)) continue;
    if (ek->nwhen) p->conds[p->nconds++] = ek;
    p->key_literal_max = literal_max(p->key_literal_max, ek);
    rc = add_run(k, &ek->avrun);
  }
  if (!rc && m->entity_attr) rc = ddbst__plan_add(&k->t, e->type_av.p, e->type_av.n);
  if (rc) return rc;
  /* every run and the type end in `"},`: the members and the end close the
   * last value themselves */
  if (k->t.pending.len < 3 ||
      memcmp(k->t.pending.data + k->t.pending.len - 3, "\"},", 3) != 0)
    return 0; /* not the shape this plan writes: no plan */
  k->t.pending.len -= 3;
  rc = ddbst__plan_take(&k->t, &p->keys_end);
  if (!rc) {
    p->members = ddbst__plan_members(&k->t, e, &p->fixed);
    if (!p->members) rc = DDBST_ENOMEM;
  }
  /* the ends: a put's, and a create's (no item with its key yet:
   * request.c's write_put_condition and the names map it leaves) */
  size_t before = p->fixed;
  rc = rc ? rc : closing(k, "}}", 2, "", 0, &p->put_end);
  if (!rc) {
    ddbst_buf_reset(&k->t.pending);
    rc = ddbst__plan_add(&k->t, "\"}}", 3);
    rc = rc ? rc : ddbst__plan_not_exists(m, &k->t.pending);
    rc = rc ? rc : ddbst__plan_add(&k->t, "}", 1);
    rc = rc ? rc : ddbst__plan_take(&k->t, &p->create_end);
  }
  /* one of the two ends is written */
  p->fixed = before + (p->put_end.n > p->create_end.n ? p->put_end.n
                                                      : p->create_end.n);
  return rc;
}

int ddbst__compile_put_plans(ddbst_model *m) {
  plan_maker k;
  ddbst__plan_maker_init(&k.t, m);
  int rc = 0;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    if (!en->keys_simple || en->nuniques) continue;
    k.p = ddbst__arena_alloc(&m->arena, sizeof *k.p);
    if (!k.p) rc = DDBST_ENOMEM;
    if (!rc) k.t.fixed = &k.p->fixed; /* the ends' are counted apart */
    rc = rc ? rc : make_plan(&k, en);
    /* no keys_end: not the shape a plan writes */
    if (!rc && k.p->keys_end.p) en->put_plan = k.p;
  }
  ddbst__plan_maker_release(&k.t);
  return rc;
}
