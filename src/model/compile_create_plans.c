/* Create plans (ddbst__create_plan): each entity with unique constraints,
 * its create (the item's Put and each guard item's Put in one
 * TransactWriteItems) as fixed texts around its keys and values, made once
 * so that a create of the common shape writes its body in one pass
 * (request/create_plan.c). The texts are the ones the general writers put
 * together per call (request.c's ddbst__write_item and its create
 * condition, guard.c's guard item), run together here. */
#include <string.h>

#include "model/compile.h"

typedef struct cmaker {
  ddbst_model *m;
  ddbst_buf t; /* the text being made */
  ddbst__create_plan *p;
  int rc;
  int unplanned; /* a key or guard the plan does not write */
} cmaker;

static void add(cmaker *k, const char *s, size_t n) {
  if (!k->rc) k->rc = ddbst__buf_append(&k->t, s, n);
}
static void adds(cmaker *k, const char *s) { add(k, s, strlen(s)); }

/* The text made so far into the arena (padded, NUL after), and a new one. */
static ddbst__jtext take(cmaker *k) {
  ddbst__jtext j = {NULL, 0, 0};
  if (!k->rc) {
    j.p = ddbst__arena_strndup(&k->m->arena, k->t.data, k->t.len);
    if (!j.p) k->rc = DDBST_ENOMEM;
    j.n = (uint32_t)k->t.len;
    k->p->fixed += k->t.len;
  }
  ddbst_buf_reset(&k->t);
  return j;
}

/* `"PK":{"S":"` for key `jname`, a comma first unless it is the first. */
static void add_key(cmaker *k, const ddbst__jtext *jname,
                    const ddbst__template *t, int ekey, uint32_t limit) {
  ddbst__create_plan *p = k->p;
  if (p->nkeys) adds(k, ",");
  add(k, jname->p, jname->n);
  adds(k, "{\"S\":\"");
  ddbst__ckey *c = &p->keys[p->nkeys++];
  c->head = take(k);
  c->tmpl = t;
  c->ekey = ekey;
  c->limit = limit;
}

/* The condition every Put of the body carries: no item with its key. */
static void add_not_exists(cmaker *k) {
  adds(k, ",\"ConditionExpression\":\"attribute_not_exists(#n0)\","
          "\"ExpressionAttributeNames\":{\"#n0\":");
  add(k, k->m->pk_jname.p, k->m->pk_jname.n - 1); /* less ':' */
  adds(k, "}");
}

/* The plan key that the index key named `jname` is, or -1. */
static int key_named(const ddbst__entity *e, const ddbst_model *m,
                     const ddbst__create_plan *p, const ddbst__jtext *jname) {
  for (int i = 0; jname && i < p->nkeys; i++) {
    int x = p->keys[i].ekey;
    if (x < 0) continue;
    const ddbst__index *ix = &m->indexes[e->indexes[x].index];
    if (&ix->pk_jname == jname || &ix->sk_jname == jname) return i;
  }
  return -1;
}

/* Whether a key template can be written by the plan: its literals need no
 * JSON escape (the general writer would escape them). */
static int writable(const ddbst__template *t) {
  return t->literals_plain && t->nsegs > 0;
}

static void make_plan(cmaker *k, const ddbst__entity *e) {
  ddbst_model *m = k->m;
  ddbst__create_plan *p = k->p;
  int most = 2 + 2 * e->nindexes;
  p->keys = ddbst__arena_alloc(&m->arena, (size_t)most * sizeof *p->keys);
  p->members = ddbst__arena_alloc(&m->arena,
                                  (size_t)(e->nattrs + 1) * sizeof *p->members);
  p->guards = ddbst__arena_alloc(&m->arena,
                                 (size_t)e->nuniques * sizeof *p->guards);
  if (!p->keys || !p->members || !p->guards) {
    k->rc = DDBST_ENOMEM;
    return;
  }
  adds(k, "{\"TransactItems\":[{\"Put\":");
  add(k, m->begin.p, m->begin.n);
  adds(k, ",\"Item\":{");
  p->head = take(k);
  add_key(k, &m->pk_jname, &e->key.pk, -1, DDBST__PK_MAX);
  if (m->sk_attr) add_key(k, &m->sk_jname, &e->key.sk, -1, DDBST__SK_MAX);
  for (int i = 0; i < e->nindexes; i++) {
    const ddbst__ekey *ek = &e->indexes[i];
    const ddbst__index *ix = &m->indexes[ek->index];
    if (ddbst__index_own_pk(ix))
      add_key(k, &ix->pk_jname, &ek->pk, i, DDBST__PK_MAX);
    if (ddbst__index_own_sk(ix))
      add_key(k, &ix->sk_jname, &ek->sk, i, DDBST__SK_MAX);
  }
  for (int i = 0; i < p->nkeys; i++)
    if (!writable(p->keys[i].tmpl)) k->unplanned = 1;
  if (m->entity_attr) {
    adds(k, ",");
    add(k, m->entity_jname.p, m->entity_jname.n);
    adds(k, "{\"S\":\"");
    add(k, e->name, e->name_len);
    adds(k, "\"}");
    p->type = take(k);
  }
  for (int a = 0; a < e->nattrs; a++) {
    adds(k, ",");
    add(k, e->attrs[a].jname.p, e->attrs[a].jname.n);
    adds(k, "{\"S\":\"");
    p->members[a] = take(k);
  }
  adds(k, "}");
  add_not_exists(k);
  adds(k, "}}");
  p->item_end = take(k);
  if (m->sk_attr) {
    adds(k, "\"},");
    add(k, m->sk_jname.p, m->sk_jname.n);
    adds(k, "{\"S\":\"");
    p->sk_mid = take(k);
  }
  for (int u = 0; u < e->nuniques; u++) {
    const ddbst__unique *un = &e->uniques[u];
    ddbst__cguard *g = &p->guards[p->nguards++];
    g->key = key_named(e, m, p, un->same_key);
    g->tmpl = &un->tmpl;
    if (g->key < 0 && !writable(g->tmpl)) k->unplanned = 1;
    adds(k, ",{\"Put\":");
    add(k, m->begin.p, m->begin.n);
    adds(k, ",\"Item\":{");
    add(k, m->pk_jname.p, m->pk_jname.n);
    adds(k, "{\"S\":\"");
    g->head = take(k);
    adds(k, "\"}");
    if (m->entity_attr) {
      adds(k, ",");
      add(k, m->entity_jname.p, m->entity_jname.n);
      add(k, un->owner.p, un->owner.n);
    }
    adds(k, ",\"holderKey\":{\"M\":{");
    add(k, m->pk_jname.p, m->pk_jname.n);
    adds(k, "{\"S\":\"");
    g->holder = take(k);
    adds(k, "\"}}}}");
    add_not_exists(k);
    adds(k, "}}");
    g->end = take(k);
    /* the guard's PK and SK, the holder's PK and SK: two sk_mid each */
    k->p->fixed += 2 * (size_t)p->sk_mid.n;
  }
  k->p->fixed += 2; /* `]}` */
  /* the members: at most one each, not all */
}

int ddbst__compile_create_plans(ddbst_model *m) {
  cmaker k;
  memset(&k, 0, sizeof k);
  k.m = m;
  ddbst__buf_init(&k.t, &m->alloc);
  /* a delimiter of more than one byte can form across a facet's start:
   * the general writer looks for that */
  for (int e = 0; !k.rc && m->delim_len == 1 && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    if (!en->nuniques) continue;
    k.p = ddbst__arena_alloc(&m->arena, sizeof *k.p);
    if (!k.p) {
      k.rc = DDBST_ENOMEM;
      break;
    }
    memset(k.p, 0, sizeof *k.p);
    k.unplanned = 0;
    make_plan(&k, en);
    if (!k.rc && !k.unplanned) en->create_plan = k.p;
  }
  ddbst__buf_release(&k.t);
  return k.rc;
}
