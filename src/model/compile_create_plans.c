/* Create plans (ddbst__create_plan): each entity with unique constraints,
 * its create (the item's Put and each guard item's Put in one
 * TransactWriteItems) as fixed texts around its keys' parts and values,
 * made once so that a create of the common shape writes its body in one
 * pass (request/create_plan.c). The texts are the ones the general writers
 * put together per call (request.c's ddbst__write_item and its create
 * condition, guard.c's guard item), run together here; the members and the
 * condition are the put plan's (compile_plan_texts.c). Each plan's flat
 * create, its commonest body as one run of texts and values, is made
 * from it (compile_create_flat.c). */
#include <string.h>

#include "base/normalize.h"
#include "model/compile.h"
#include "model/facet.h"
#include "model/plan_texts.h"

typedef struct cmaker {
  ddbst__plan_maker tx; /* the texts, each kept once */
  ddbst_model *m;
  ddbst_buf *t; /* the text being made: tx's */
  ddbst__create_plan *p;
  int rc;
  int unplanned; /* a key or guard the plan does not write */
} cmaker;

static void add(cmaker *k, const char *s, size_t n) {
  if (!k->rc) k->rc = ddbst__buf_append(k->t, s, n);
}
static void adds(cmaker *k, const char *s) { add(k, s, strlen(s)); }

/* The text made so far into the arena (padded, NUL after), and a new one. */
static ddbst__jtext take(cmaker *k) {
  ddbst__jtext j = {"", 0, 0};
  if (!k->rc) k->rc = ddbst__plan_take(&k->tx, &j);
  ddbst_buf_reset(k->t);
  return j;
}

/* How a facet of attribute `a` takes its key form in the plan, by the rule
 * of ddbst__facet_key_at (facet_key.h): as it is; ASCII lower-cased (an
 * ASCII value's NFKC_Casefold, NFC is the value itself); or rendered. */
static void set_form(ddbst__cpart *c, const ddbst__seg *s,
                     const ddbst__attr *a) {
  c->lower = (unsigned char)s->lower;
  if (s->as_is) {
    c->form = DDBST__CFORM_COPY;
  } else if (a->type != DDBST__T_INTEGER && !a->escape && !a->range_checked) {
    c->form = DDBST__CFORM_ASCII;
    c->fold = s->lower || a->normalize == DDBST__NORM_NFKC_CASEFOLD;
    c->need_ascii = a->normalize != DDBST__NORM_NONE;
  } else {
    c->form = DDBST__CFORM_RENDER;
  }
}

/* The most a facet of `a` may write, as ddbst__facet_key_room bounds it:
 * `fixed` plus `per_byte` times its value's bytes. */
static void add_room(const ddbst__attr *a, size_t *fixed, size_t *per_byte) {
  size_t times = a->escape ? 3 : 1;
  if (a->normalize)
    *fixed += times * DDBST__NORM_MAX;
  else if (!a->escape)
    *fixed += DDBST__INT_MAX_TEXT;
  *per_byte += times;
}

/* Key `c` from template `t`, the text made so far (its JSON head) first:
 * its parts, and what one more copy of it may take (`fixed`, `per_byte`). */
static void make_key(cmaker *k, const ddbst__entity *e, ddbst__ckey *c,
                     const ddbst__template *t, int ekey, uint32_t limit,
                     size_t *fixed, size_t *per_byte) {
  ddbst__cpart *parts = ddbst__arena_alloc(
      &k->m->arena, (size_t)(t->nsegs + 1) * sizeof *parts);
  if (!parts) {
    k->rc = DDBST_ENOMEM;
    return;
  }
  memset(parts, 0, (size_t)(t->nsegs + 1) * sizeof *parts);
  *c = (ddbst__ckey){parts, 0, (uint32_t)k->t->len, ekey, 0, 0, 0, limit};
  /* a JSON escape in a literal is the general writer's */
  if (!t->literals_plain || t->nsegs == 0) k->unplanned = 1;
  *fixed = t->literal_len;
  *per_byte = 0;
  for (int i = 0; i < t->nsegs; i++) {
    const ddbst__seg *s = &t->segs[i];
    if (s->attr < 0) {
      add(k, s->text, s->len);
      continue;
    }
    ddbst__cpart *pt = &parts[c->nparts++];
    ddbst__jtext j = take(k);
    pt->text = j.p;
    pt->len = j.n;
    pt->attr = s->attr;
    set_form(pt, s, &e->attrs[s->attr]);
    add_room(&e->attrs[s->attr], fixed, per_byte);
  }
  if (k->t->len || c->nparts == 0) { /* the literal after the last facet */
    ddbst__cpart *pt = &parts[c->nparts++];
    ddbst__jtext j = take(k);
    pt->text = j.p;
    pt->len = j.n;
    pt->attr = -1;
  }
  k->p->fixed += 2; /* its `"}` */
}

/* `"PK":{"S":"` for key `jname`, a comma first unless it is the first:
 * a key of the item's Put. */
static void add_key(cmaker *k, const ddbst__entity *e,
                    const ddbst__jtext *jname, const ddbst__template *t,
                    int ekey, uint32_t limit, size_t room[][2]) {
  ddbst__create_plan *p = k->p;
  if (p->nkeys) adds(k, ",");
  add(k, jname->p, jname->n);
  adds(k, "{\"S\":\"");
  int i = p->nkeys++;
  make_key(k, e, &p->keys[i], t, ekey, limit, &room[i][0], &room[i][1]);
  p->room += room[i][0] - t->literal_len; /* its literals are fixed */
  p->room_per_byte += room[i][1];
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

/* Each key's index: its first key, the first key of the next, and whether
 * it has "when" conditions. */
static void link_indexes(const ddbst__entity *e, ddbst__create_plan *p) {
  for (int i = 0; i < p->nkeys;) {
    int next = i + 1;
    while (next < p->nkeys && p->keys[next].ekey == p->keys[i].ekey) next++;
    for (int j = i; j < next; j++) {
      ddbst__ckey *c = &p->keys[j];
      c->group = i;
      c->next = next;
      c->when = c->ekey >= 0 && e->indexes[c->ekey].nwhen > 0;
    }
    i = next;
  }
}

/* One guard item's Put: its head, its key (copied from a plan key, else
 * its own parts), the holder's key, its end. */
static void add_guard(cmaker *k, const ddbst__entity *e,
                      const ddbst__unique *un, size_t room[][2]) {
  ddbst_model *m = k->m;
  ddbst__create_plan *p = k->p;
  ddbst__cguard *g = &p->guards[p->nguards++];
  int has_sk = m->sk_attr != NULL;
  adds(k, ",{\"Put\":");
  add(k, m->begin.p, m->begin.n);
  adds(k, ",\"Item\":{");
  add(k, m->pk_jname.p, m->pk_jname.n);
  adds(k, "{\"S\":\"");
  g->key = key_named(e, m, p, un->same_key);
  size_t fixed, per_byte;
  if (g->key >= 0) {
    g->head = take(k);
    fixed = room[g->key][0];
    per_byte = room[g->key][1];
    /* the guard's PK, and its SK */
    p->room += (size_t)(1 + has_sk) * fixed;
    p->room_per_byte += (size_t)(1 + has_sk) * per_byte;
  } else {
    make_key(k, e, &g->own, &un->tmpl, -1,
             has_sk ? DDBST__SK_MAX : DDBST__PK_MAX, &fixed, &per_byte);
    k->p->fixed -= 2; /* no `"}` of its own: sk_mid or holder follows */
    p->room += fixed - un->tmpl.literal_len + (size_t)has_sk * fixed;
    p->room_per_byte += (size_t)(1 + has_sk) * per_byte;
  }
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
  if (!k->rc) k->rc = ddbst__plan_not_exists(m, k->t);
  adds(k, "}}");
  g->end = take(k);
  /* the holder's PK and SK, copied */
  for (int i = 0; i <= has_sk; i++) {
    p->room += room[i][0];
    p->room_per_byte += room[i][1];
  }
  /* the guard's PK and SK, the holder's PK and SK: two sk_mid each */
  p->fixed += 2 * (size_t)p->sk_mid.n;
}

static void make_plan(cmaker *k, const ddbst__entity *e) {
  ddbst_model *m = k->m;
  ddbst__create_plan *p = k->p;
  int most = 2 + 2 * e->nindexes;
  p->keys = ddbst__arena_alloc(&m->arena, (size_t)most * sizeof *p->keys);
  p->guards = ddbst__arena_alloc(&m->arena,
                                 (size_t)e->nuniques * sizeof *p->guards);
  size_t room[2 + 2 * DDBST__MAX_INDEXES][2];
  if (!p->keys || !p->guards || most > 2 + 2 * DDBST__MAX_INDEXES) {
    k->rc = DDBST_ENOMEM;
    return;
  }
  adds(k, "{\"TransactItems\":[{\"Put\":");
  add(k, m->begin.p, m->begin.n);
  adds(k, ",\"Item\":{");
  p->head = take(k);
  add_key(k, e, &m->pk_jname, &e->key.pk, -1, DDBST__PK_MAX, room);
  if (m->sk_attr)
    add_key(k, e, &m->sk_jname, &e->key.sk, -1, DDBST__SK_MAX, room);
  for (int i = 0; i < e->nindexes; i++) {
    const ddbst__ekey *ek = &e->indexes[i];
    const ddbst__index *ix = &m->indexes[ek->index];
    if (ddbst__index_own_pk(ix))
      add_key(k, e, &ix->pk_jname, &ek->pk, i, DDBST__PK_MAX, room);
    if (ddbst__index_own_sk(ix))
      add_key(k, e, &ix->sk_jname, &ek->sk, i, DDBST__SK_MAX, room);
  }
  link_indexes(e, p);
  /* the last key's `"}` is the type's or the first member's */
  p->fixed -= 2;
  if (m->entity_attr) {
    adds(k, "\"},");
    add(k, m->entity_jname.p, m->entity_jname.n);
    adds(k, "{\"S\":\"");
    add(k, e->name, e->name_len);
  }
  p->type = take(k);
  p->members = ddbst__plan_members(&k->tx, e, &p->fixed);
  p->strings = ddbst__arena_alloc(&m->arena,
                                  (size_t)(e->nattrs + 1) * sizeof(int));
  p->others = ddbst__arena_alloc(&m->arena,
                                 (size_t)(e->nattrs + 1) * sizeof(int));
  if ((!p->members || !p->strings || !p->others) && !k->rc)
    k->rc = DDBST_ENOMEM;
  p->must = ddbst__arena_alloc(
      &m->arena, (size_t)(e->ndefaults + e->nrequired + 1) * sizeof(int));
  if (!p->must && !k->rc) k->rc = DDBST_ENOMEM;
  for (int i = 0; !k->rc && i < e->ndefaults; i++)
    p->must[p->nmust++] = e->default_attrs[i];
  for (int i = 0; !k->rc && i < e->nrequired; i++)
    p->must[p->nmust++] = e->required_attrs[i];
  p->versioned = e->version_attr >= 0;
  for (int a = 0; !k->rc && a < e->nattrs; a++) {
    if (p->members[a].p)
      p->strings[p->nstrings++] = a;
    else
      p->others[p->nothers++] = a;
  }
  p->room_per_byte += 1; /* the members' values */
  adds(k, "\"}}");
  if (!k->rc) k->rc = ddbst__plan_not_exists(m, k->t);
  adds(k, "}}");
  p->item_end = take(k);
  if (m->sk_attr) {
    adds(k, "\"},");
    add(k, m->sk_jname.p, m->sk_jname.n);
    adds(k, "{\"S\":\"");
    p->sk_mid = take(k);
  }
  for (int u = 0; u < e->nuniques; u++) add_guard(k, e, &e->uniques[u], room);
  p->fixed += 2; /* `]}` */
}

int ddbst__compile_create_plans(ddbst_model *m) {
  cmaker k;
  memset(&k, 0, sizeof k);
  k.m = m;
  ddbst__plan_maker_init(&k.tx, m);
  k.t = &k.tx.pending;
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
    k.tx.fixed = &k.p->fixed;
    k.unplanned = 0;
    make_plan(&k, en);
    if (k.rc || k.unplanned) continue;
    en->create_plan = k.p;
    k.rc = ddbst__compile_create_flat(&k.tx, k.p);
  }
  ddbst__plan_maker_release(&k.tx);
  return k.rc;
}
