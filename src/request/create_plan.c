/* A create of an entity with unique constraints from its plan
 * (ddbst__create_plan, compiled at load): the TransactWriteItems of the
 * item's Put and each guard item's Put, in one pass into one reservation.
 * First its flat create (ddbst__cflat, write_flat), when the entity has
 * one: every string set and clean (an optional one may be unset), every
 * index in, each facet copied or ASCII lower-cased: texts and values
 * copied in turn. Else key by key (write_by_parts). The shape either
 * takes: no condition, expected version, update action or return flag;
 * every index the item is in with all its facets set; every
 * facet scanned clean when set (no delimiter, nothing to escape); every set
 * attribute a string needing no escape. A facet takes its key form as the
 * facet renderer gives it (facet_key.h): copied as it is; an ASCII value
 * under a normal form or `:lower` copied and lower-cased in words (its
 * NFKC_Casefold); anything else rendered by ddbst__facet_key_at itself into
 * the body. Each guard's key is the index key with its template, copied
 * (else written from its own parts), and its holder's the item's own,
 * copied. Anything else goes to ddbst__unique_write, which writes the same
 * bytes and says what is wrong. */
#include <string.h>

#include "item/facet_key.h"
#include "item/keys.h"
#include "request/expr.h"
#include "request/request.h"
#include "base/bytes.h"

/* Nothing kept: what was written is past the buffer's length. */
static int left(ddbst_buf *out) {
  out->data[out->len] = '\0';
  return 0;
}

/* A facet that is not as simple as a copy or ASCII: the renderer's key
 * form at o, or NULL when it refuses or its form needs a JSON escape
 * (NFKC: U+FF02 is '"'). */
static char *render(const ddbst_item *it, const ddbst__cpart *s,
                    const char *v, size_t n, unsigned scan, char *o) {
  const ddbst__attr *a = &ddbst__entity_of(it)->attrs[s->attr];
  size_t len = 0;
  if (ddbst__facet_key_at(it->m, a, s->lower, 0, v, n, scan, o, &len,
                          NULL) != DDBST__FK_OK ||
      ddbst__json_plain_len(o, len) != len)
    return NULL;
  return o + len;
}

/* Writes key `c` at o, its JSON head first; its text starts at *at. NULL
 * when the general writer would look further: a facet unset, empty or not
 * clean, a form the renderer refuses, a key past its limit. */
static DDBST__INLINE char *
write_key(const ddbst_item *it, const ddbst__ckey *c, char *o, char **at) {
  const char *text = it->text.data;
  const ddbst__val *vals = it->vals;
  char *start = o + c->head;
  for (const ddbst__cpart *s = c->parts, *end = s + c->nparts; s < end;
       s++) {
    ddbst__copy_chunks(o, s->text, s->len);
    o += s->len;
    if (s->attr < 0) break; /* the literal after the last facet */
    const ddbst__val *v = &vals[s->attr];
    /* exactly KNOWN: set, by value, not empty, no delimiter or escape */
    if (v->scan != DDBST__SCAN_KNOWN) return NULL;
    const char *t = text + v->off;
    size_t n = v->len;
    if (s->form == DDBST__CFORM_COPY) {
      ddbst__copy_chunks(o, t, n);
      o += n;
    } else if (s->form == DDBST__CFORM_ASCII && n <= DDBST__NORM_MAX &&
               (ddbst__lower_copy(o, t, n, s->fold) || !s->need_ascii)) {
      o += n; /* lower-casing makes no byte to escape */
    } else {
      o = render(it, s, t, n, v->scan, o);
      if (!o) return NULL;
    }
  }
  size_t n = (size_t)(o - start);
  if (n == 0 || n > c->limit) return NULL;
  *at = start;
  return o;
}

/* Whether the item is in the index of plan key k (ddbst__index_applies:
 * 1 in, 0 out, -1 partly given); out, its keys are marked unwritten. */
static int index_in(const ddbst_item *it, const ddbst__entity *e,
                    const ddbst__create_plan *p, int k, char **at) {
  const ddbst__ckey *c = &p->keys[k];
  int in = ddbst__index_applies(it, &e->indexes[c->ekey], NULL);
  if (in == 0)
    for (int i = c->group; i < c->next; i++) at[i] = NULL;
  return in;
}

/* ddbst__write_prepared, from the plan: every defaulted and required
 * attribute set, no version. */
static int prepared(const ddbst_item *it, const ddbst__create_plan *p) {
  int ready = !p->versioned;
  for (int i = 0; i < p->nmust; i++) ready &= it->vals[p->must[i]].set;
  return ready;
}

/* A flat create's request slot: a value, or a key form made from one. */
typedef struct cslot {
  const char *p;
  size_t n;
} cslot;

/* The steps' texts and values at o, each text less its cut before an
 * empty value when `cut` (an optional attribute unset); the end. */
static DDBST__INLINE char *copy_steps(char *o, const ddbst__cflat *s,
                                      const cslot *v, int cut) {
  for (const ddbst__cstep *st = s->steps, *end = st + s->nsteps; st < end;
       st++) {
    /* read before the copies, which the compiler cannot tell apart from
     * the step or the slot */
    const char *t = st->text, *vp = v[st->slot].p;
    size_t tn = st->len, vn = v[st->slot].n;
    if (cut && vn == 0) tn -= s->cuts[st - s->steps];
    ddbst__copy_chunks(o, t, tn);
    o += tn;
    ddbst__copy_chunks(o, vp, vn);
    o += vn;
  }
  return o;
}

/* The plan's flat create (ddbst__cflat): every value checked and placed
 * in its slot, the key forms made once, then texts and values copied in
 * turn. 1 written; 0 not served (nothing written), the plan's longer
 * way then decides; an error of ddbst__prepare_write's or DDBST_ENOMEM.
 * With `cut` 0 (the common create) every value is set; one found unset
 * sends the create to write_flat_cut: the defaults filled as the plan
 * fills them, then the same with `cut` 1, whose copies leave out the
 * members of optional attributes unset. */
static int write_flat_cut(ddbst_item *it, const ddbst__create_plan *p,
                          int64_t now_us, ddbst_buf *out, ddbst_error *err);

static DDBST__INLINE int write_flat(ddbst_item *it,
                                     const ddbst__create_plan *p,
                                     int64_t now_us, ddbst_buf *out,
                                     ddbst_error *err, int cut) {
  const ddbst__cflat *s = p->flat;
  const ddbst__val *vals = it->vals;
  const char *text = it->text.data;
  /* the item stays far under 400 KB: its keys are each under 2 KB */
  if (it->text.len > 65536) return 0;
  for (int i = 0; i < p->nothers; i++) /* not a string: the general's */
    if (vals[p->others[i]].set) return 0;
  cslot v[DDBST__CSLOTS_MAX];
  static const ddbst__val none; /* no text: a set value is never empty */
  for (int i = 0; i < s->nchecks; i++) {
    const ddbst__ccheck *c = &s->checks[i];
    const ddbst__val *x = &vals[c->attr];
    if ((x->scan & c->mask) != DDBST__SCAN_KNOWN || x->len > c->max) {
      if (x->set) return 0;
      if (!cut) return write_flat_cut(it, p, now_us, out, err);
      if (!c->optional) return 0;
      x = &none;
    }
    v[i].p = text + x->off;
    v[i].n = x->len;
  }
  /* the key forms, each with the 32 bytes a copy reads past it */
  char forms[1024];
  size_t used = 0;
  for (int i = 0; i < s->nderives; i++) {
    const ddbst__cderive *d = &s->derives[i];
    size_t n = v[d->from].n;
    if (used + n + 32 > sizeof forms) return 0;
    char *f = forms + used;
    if (!ddbst__lower_copy(f, v[d->from].p, n, d->fold) && d->need_ascii)
      return 0; /* not ASCII: its normal form is the renderer's */
    v[s->nchecks + i].p = f;
    v[s->nchecks + i].n = n;
    used += n;
  }
  /* each value is at most the item's text */
  if (ddbst__buf_reserve(out, s->fixed + s->uses * it->text.len))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  char *o = copy_steps(out->data + out->len, s, v, cut);
  ddbst__copy_chunks(o, s->end.p, s->end.n);
  o += s->end.n;
  *o = '\0';
  out->len = (size_t)(o - out->data);
  /* as ddbst__unique_write leaves the item (below) */
  it->nkeys = 0;
  ddbst__expr_reset(it);
  return 1;
}

/* Out of line: the common create's frame keeps no register for it. */
DDBST__NOINLINE static int write_flat_cut(ddbst_item *it,
                                          const ddbst__create_plan *p,
                                          int64_t now_us, ddbst_buf *out,
                                          ddbst_error *err) {
  if (!prepared(it, p)) {
    int rc = ddbst__prepare_write(it, 1, now_us, err);
    if (rc) return rc;
  }
  return write_flat(it, p, now_us, out, err, 1);
}

/* The plan key by key (the flat create not served): a sparse index in or
 * out, a facet rendered. Apart, so that the flat
 * create's frame holds none of its registers. */
DDBST__NOINLINE static int write_by_parts(ddbst_item *it,
                                          const ddbst__entity *e,
                                          const ddbst__create_plan *p,
                                          int64_t now_us, ddbst_buf *out,
                                          ddbst_error *err) {
  const ddbst__val *vals = it->vals;
  if (!prepared(it, p)) {
    int rc = ddbst__prepare_write(it, 1, now_us, err);
    if (rc) return rc;
  }
  /* the item stays far under 400 KB: its keys are each under 2 KB */
  if (it->text.len > 65536) return 0;
  if (ddbst__buf_reserve(out, p->fixed + p->room +
                                  p->room_per_byte * it->text.len))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  char *o = out->data + out->len;
  char *at[2 * (1 + 2 * DDBST__MAX_INDEXES)];
  size_t len[2 * (1 + 2 * DDBST__MAX_INDEXES)];
  ddbst__copy_chunks(o, p->head.p, p->head.n);
  o += p->head.n;
  char *from = o; /* where the index of the key being written starts */
  for (int k = 0; k < p->nkeys; k++) {
    const ddbst__ckey *c = &p->keys[k];
    if (c->group == k) {
      from = o;
      /* an index with "when" conditions: in or out by them first */
      int in = c->when ? index_in(it, e, p, k, at) : 1;
      if (in < 0) return left(out); /* partly given: the general says so */
      if (in == 0) {
        k = c->next - 1;
        continue;
      }
    }
    char *end = write_key(it, c, o, &at[k]);
    if (!end) {
      /* a facet unset: the index is in or out with all its keys, as
       * ddbst__index_applies decides; anything else the general's */
      if (c->ekey < 0 || index_in(it, e, p, k, at) != 0) return left(out);
      o = from;
      k = c->next - 1;
      continue;
    }
    len[k] = (size_t)(end - at[k]);
    memcpy(end, "\"}", 2);
    o = end + 2;
  }
  o -= 2; /* the last key's `"}`: the type's or a member's text closes it */
  ddbst__copy_chunks(o, p->type.p, p->type.n);
  o += p->type.n;
  for (int i = 0; i < p->nothers; i++) /* not a string: the general's */
    if (vals[p->others[i]].set) return left(out);
  for (int i = 0; i < p->nstrings; i++) {
    int a = p->strings[i];
    const ddbst__val *v = &vals[a];
    if (!v->set) continue;
    /* not scanned clean when set */
    if ((v->scan & (DDBST__SCAN_KNOWN | DDBST__SCAN_ESCAPE)) !=
        DDBST__SCAN_KNOWN)
      return left(out);
    ddbst__copy_chunks(o, p->members[a].p, p->members[a].n);
    o += p->members[a].n;
    ddbst__copy_chunks(o, it->text.data + v->off, v->len);
    o += v->len;
  }
  ddbst__copy_chunks(o, p->item_end.p, p->item_end.n);
  o += p->item_end.n;
  int has_sk = p->sk_mid.n > 0;
  size_t guard_max = has_sk ? DDBST__SK_MAX : DDBST__PK_MAX;
  for (int u = 0; u < p->nguards; u++) {
    const ddbst__cguard *g = &p->guards[u];
    char *gk;
    size_t gn;
    if (g->key >= 0) { /* the index key with the guard's template */
      if (!at[g->key] || len[g->key] > guard_max) return left(out);
      ddbst__copy_chunks(o, g->head.p, g->head.n);
      o += g->head.n;
      gk = o;
      gn = len[g->key];
      ddbst__copy_chunks(o, at[g->key], gn);
      o += gn;
    } else { /* its own template, as ddbst__guard_key renders it */
      char *end = write_key(it, &g->own, o, &gk);
      if (!end) return left(out);
      gn = (size_t)(end - gk);
      o = end;
    }
    if (has_sk) {
      ddbst__copy_chunks(o, p->sk_mid.p, p->sk_mid.n);
      o += p->sk_mid.n;
      ddbst__copy_chunks(o, gk, gn);
      o += gn;
    }
    ddbst__copy_chunks(o, g->holder.p, g->holder.n);
    o += g->holder.n;
    ddbst__copy_chunks(o, at[0], len[0]);
    o += len[0];
    if (has_sk) {
      ddbst__copy_chunks(o, p->sk_mid.p, p->sk_mid.n);
      o += p->sk_mid.n;
      ddbst__copy_chunks(o, at[1], len[1]);
      o += len[1];
    }
    ddbst__copy_chunks(o, g->end.p, g->end.n);
    o += g->end.n;
  }
  memcpy(o, "]}", 3);
  out->len = (size_t)(o + 2 - out->data);
  /* as ddbst__unique_write leaves the item: placeholders reset; the key
   * list is made again when asked for */
  it->nkeys = 0;
  ddbst__expr_reset(it);
  return 1;
}

/* The plan, when the create is of the shape it takes (above): else NULL. */
static inline const ddbst__create_plan *plan_of(const ddbst_item *it,
                                                uint32_t flags) {
  const ddbst__create_plan *p = ddbst__entity_of(it)->create_plan;
  if (!p || flags != DDBST_CREATE || it->cond || it->update ||
      it->has_expected_version || it->has_update_ops)
    return NULL;
  return p;
}

int ddbst__create_flat(ddbst_item *it, int64_t now_us, ddbst_buf *out,
                       ddbst_error *err) {
  const ddbst__create_plan *p = plan_of(it, DDBST_CREATE);
  return p && p->flat ? write_flat(it, p, now_us, out, err, 0) : 0;
}

int ddbst__create_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                          ddbst_buf *out, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__create_plan *p = plan_of(it, flags);
  if (!p) return 0;
  if (p->flat) {
    int rc = write_flat(it, p, now_us, out, err, 0);
    if (rc) return rc;
  }
  return write_by_parts(it, e, p, now_us, out, err);
}
