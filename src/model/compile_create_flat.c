/* The flat create of a create plan (ddbst__cflat): the body the plan
 * writes when every string attribute is set and clean (an optional one
 * may be unset: its member is cut) and every index is in, laid out once
 * as runs of fixed text between value slots, so that a request copies
 * texts and values and decides nothing per key or member.
 * Made from the plan itself (compile_create_plans.c), its texts and parts
 * walked in the order request/create_plan.c writes them: the same bytes by
 * construction, the guard's and the holder's keys spelled out as the parts
 * they were copied from. */
#include <string.h>

#include "model/compile.h"
#include "model/plan_texts.h"

/* A slot while the flat create is made: an attribute's value, or a key form
 * made from it (`derived`). */
typedef struct sslot {
  int attr, derived;
  unsigned char fold, need_ascii;
  int key;       /* a key's facet: its check takes no delimiter */
  uint32_t uses;
  int optional;  /* a member only, neither required nor defaulted */
} sslot;

typedef struct smaker {
  ddbst__plan_maker *tx; /* its pending text is the text since a value */
  const ddbst__create_plan *p;
  ddbst__cstep steps[DDBST__CSTEPS_MAX]; /* slots numbered as made */
  uint32_t cuts[DDBST__CSTEPS_MAX];
  int nsteps;
  sslot slots[DDBST__CSLOTS_MAX];
  int nslots;
  /* the longest value a key's facet may have with no key past its limit */
  uint32_t value_max;
  int rc;
  int refused; /* a part it does not write: no flat create */
} smaker;

static void text(smaker *sm, const char *s, size_t n) {
  if (!sm->rc) sm->rc = ddbst__plan_add(sm->tx, s, n);
}

/* The slot of attr's value (derived 0) or of its key form, made when new;
 * -1 when there is no room for it. */
static int slot_of(smaker *sm, int attr, int derived, unsigned char fold,
                   unsigned char need_ascii) {
  for (int i = 0; i < sm->nslots; i++) {
    const sslot *s = &sm->slots[i];
    if (s->attr == attr && s->derived == derived &&
        (!derived || (s->fold == fold && s->need_ascii == need_ascii)))
      return i;
  }
  if (sm->nslots == DDBST__CSLOTS_MAX) {
    sm->refused = 1;
    return -1;
  }
  sm->slots[sm->nslots] = (sslot){attr, derived, fold, need_ascii, 0, 0, 0};
  return sm->nslots++;
}

/* The text so far kept, then slot i's value; its last `cut` bytes left
 * out when that value is (an optional attribute's member). */
static void value_cut(smaker *sm, int i, uint32_t cut) {
  if (i < 0 || sm->rc) return;
  if (sm->nsteps == DDBST__CSTEPS_MAX) {
    sm->refused = 1;
    return;
  }
  ddbst__jtext j;
  sm->rc = ddbst__plan_take(sm->tx, &j);
  sm->cuts[sm->nsteps] = cut;
  sm->steps[sm->nsteps++] = (ddbst__cstep){j.p, j.n, (uint32_t)i};
  sm->slots[i].uses++;
}

static void value(smaker *sm, int i) { value_cut(sm, i, 0); }

/* Key `c`'s text, less the first `skip` bytes of its first part (its JSON
 * head, written once), under `limit`: each facet a value, copied or made
 * ASCII lower-case (a form rendered per request is refused). */
static void key_text(smaker *sm, const ddbst__ckey *c, uint32_t skip,
                     uint32_t limit) {
  uint32_t literal = 0, facets = 0;
  for (int i = 0; i < c->nparts; i++) {
    const ddbst__cpart *pt = &c->parts[i];
    uint32_t from = i == 0 ? skip : 0;
    text(sm, pt->text + from, pt->len - from);
    literal += pt->len - (i == 0 ? c->head : 0); /* the key's own bytes */
    if (pt->attr < 0) break;
    facets++;
    int s;
    if (pt->form == DDBST__CFORM_COPY) {
      s = slot_of(sm, pt->attr, 0, 0, 0);
    } else if (pt->form == DDBST__CFORM_ASCII) {
      /* made from the value itself, which is then checked as a facet */
      int raw = slot_of(sm, pt->attr, 0, 0, 0);
      if (raw >= 0) sm->slots[raw].key = 1;
      s = slot_of(sm, pt->attr, 1, pt->fold, pt->need_ascii);
    } else {
      sm->refused = 1;
      return;
    }
    if (s >= 0) sm->slots[s].key = 1;
    value(sm, s);
  }
  /* at most limit bytes, and never empty (a facet's value never is) */
  if (literal >= limit || (facets == 0 && literal == 0)) {
    sm->refused = 1;
  } else if (facets) {
    uint32_t most = (limit - literal) / facets;
    if (most < sm->value_max) sm->value_max = most;
  }
}

/* Plan key k's text where it is copied again (a guard's, a holder's):
 * its limit there the lower of its own and `limit`. */
static void key_again(smaker *sm, int k, uint32_t limit) {
  const ddbst__ckey *c = &sm->p->keys[k];
  key_text(sm, c, c->head, c->limit < limit ? c->limit : limit);
}

static void jtext(smaker *sm, const ddbst__jtext *t) { text(sm, t->p, t->n); }

/* Whether attribute a is defaulted or required. */
static int must(const ddbst__create_plan *p, int a) {
  for (int i = 0; i < p->nmust; i++)
    if (p->must[i] == a) return 1;
  return 0;
}

/* The body, in the order create_plan.c writes it: the item's Put (its
 * keys, type, members), then each guard's Put. */
static void walk(smaker *sm) {
  const ddbst__create_plan *p = sm->p;
  jtext(sm, &p->head);
  for (int k = 0; k < p->nkeys; k++) {
    if (p->keys[k].when) sm->refused = 1; /* decided per request */
    if (k) text(sm, "\"}", 2);
    key_text(sm, &p->keys[k], 0, p->keys[k].limit);
  }
  jtext(sm, &p->type); /* it, or a member, or item_end closes the key */
  for (int i = 0; i < p->nstrings; i++) {
    int a = p->strings[i];
    jtext(sm, &p->members[a]);
    /* a facet's value must be set (the keys came first); each member
     * text closes the value before it, so one may be left out */
    int s = slot_of(sm, a, 0, 0, 0);
    int optional = s >= 0 && !sm->slots[s].key && !must(p, a);
    if (s >= 0) sm->slots[s].optional = optional;
    value_cut(sm, s, optional ? p->members[a].n : 0);
  }
  jtext(sm, &p->item_end);
  int has_sk = p->sk_mid.n > 0;
  uint32_t guard_max = has_sk ? DDBST__SK_MAX : DDBST__PK_MAX;
  for (int u = 0; u < p->nguards; u++) {
    const ddbst__cguard *g = &p->guards[u];
    for (int again = 0; again <= has_sk; again++) {
      if (again) jtext(sm, &p->sk_mid);
      if (g->key >= 0) {
        if (!again) jtext(sm, &g->head);
        key_again(sm, g->key, guard_max);
      } else { /* its own parts: their head written the first time */
        key_text(sm, &g->own, again ? g->own.head : 0, g->own.limit);
      }
    }
    jtext(sm, &g->holder);
    key_again(sm, 0, DDBST__PK_MAX);
    if (has_sk) {
      jtext(sm, &p->sk_mid);
      key_again(sm, 1, DDBST__SK_MAX);
    }
    jtext(sm, &g->end);
  }
  text(sm, "]}", 2);
}

/* Whether ddbst__prepare_write leaves a create the flat create can
 * write: no version, and every defaulted or required attribute a string
 * (set by then, a value it copies). */
static int prepared_when_set(const ddbst__create_plan *p) {
  if (p->versioned) return 0;
  for (int i = 0; i < p->nmust; i++)
    if (!p->members[p->must[i]].p) return 0;
  return 1;
}

/* The slots in the order the request fills them (the values first, then
 * the forms made from them), the steps renumbered; the flat create's arrays
 * kept. */
static void finish(smaker *sm, ddbst__cflat *s) {
  int order[DDBST__CSLOTS_MAX];
  ddbst__ccheck checks[DDBST__CSLOTS_MAX];
  ddbst__cderive derives[DDBST__CSLOTS_MAX];
  /* the arrays are kept by their bytes (hashed, compared), a derive's
   * padding too: zeroed here, and its members set one by one (a compound
   * literal's padding is undefined) */
  memset(checks, 0, sizeof checks);
  memset(derives, 0, sizeof derives);
  int n = 0;
  for (int i = 0; i < sm->nslots; i++) {
    const sslot *x = &sm->slots[i];
    if (x->derived) continue;
    order[i] = n;
    checks[n++] = (ddbst__ccheck){x->attr, x->key ? 7u : 6u,
                                  x->key ? sm->value_max : UINT32_MAX,
                                  (uint32_t)x->optional};
    s->uses += x->uses;
  }
  s->nchecks = n;
  if (n == 0) { /* nothing to copy: the plan's own way is as short */
    sm->refused = 1;
    return;
  }
  for (int i = 0; i < sm->nslots; i++) {
    const sslot *x = &sm->slots[i];
    if (!x->derived) continue;
    int from = slot_of(sm, x->attr, 0, 0, 0);
    ddbst__cderive *d = &derives[s->nderives];
    d->from = order[from];
    d->fold = x->fold;
    d->need_ascii = x->need_ascii;
    s->uses += x->uses;
    order[i] = n + s->nderives++;
  }
  s->nsteps = sm->nsteps;
  for (int i = 0; i < s->nsteps; i++)
    sm->steps[i].slot = (uint32_t)order[sm->steps[i].slot];
  s->steps = ddbst__plan_keep(sm->tx, sm->steps,
                              (size_t)s->nsteps * sizeof *sm->steps);
  s->cuts = ddbst__plan_keep(sm->tx, sm->cuts,
                             (size_t)s->nsteps * sizeof *sm->cuts);
  s->checks = ddbst__plan_keep(sm->tx, checks, (size_t)n * sizeof *checks);
  if (s->nderives)
    s->derives = ddbst__plan_keep(sm->tx, derives,
                                  (size_t)s->nderives * sizeof *derives);
  if (!s->steps || !s->cuts || !s->checks || (s->nderives && !s->derives))
    sm->rc = DDBST_ENOMEM;
}

int ddbst__compile_create_flat(ddbst__plan_maker *tx,
                                ddbst__create_plan *p) {
  if (!prepared_when_set(p)) return 0;
  ddbst__cflat s;
  memset(&s, 0, sizeof s);
  smaker sm;
  memset(&sm, 0, sizeof sm);
  sm.tx = tx;
  sm.p = p;
  sm.value_max = UINT32_MAX;
  size_t *counted = tx->fixed;
  tx->fixed = &s.fixed;
  ddbst_buf_reset(&tx->pending);
  walk(&sm);
  /* a facet that is not a string: set, it is the general writer's (the
   * plan's `others`), so the flat create would never serve */
  for (int i = 0; i < sm.nslots; i++)
    if (!p->members[sm.slots[i].attr].p) sm.refused = 1;
  if (!sm.rc && !sm.refused) sm.rc = ddbst__plan_take(tx, &s.end);
  if (!sm.rc && !sm.refused) finish(&sm, &s);
  tx->fixed = counted;
  ddbst_buf_reset(&tx->pending);
  if (sm.rc || sm.refused) return sm.rc;
  ddbst__cflat *kept = ddbst__arena_alloc(&tx->m->arena, sizeof *kept);
  if (!kept) return DDBST_ENOMEM;
  *kept = s;
  p->flat = kept;
  return 0;
}
