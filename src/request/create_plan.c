/* A create of an entity with unique constraints from its plan
 * (ddbst__create_plan, compiled at load): the TransactWriteItems of the
 * item's Put and each guard item's Put, in one pass into one reservation.
 * The shape it takes: no condition, expected version, update action or
 * return flag; every index the item is in with all its facets set; every
 * facet scanned clean when set (no delimiter, nothing to escape); every set
 * attribute a string needing no escape. A facet with a transform
 * (lower-casing, a normal form, an integer's width) is rendered by the
 * facet renderer itself (ddbst__facet_key_at) into the body; each guard's
 * key is the index key with its template, copied (else rendered from its
 * own), and its holder's the item's own, copied. Anything else goes to
 * ddbst__unique_write, which writes the same bytes and says what is
 * wrong. */
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

/* The most a key of the plan can take: its literals and each facet's key
 * form at its longest. */
static size_t key_room(const ddbst_item *it, const ddbst__template *t) {
  const ddbst__entity *e = ddbst__entity_of(it);
  size_t room = t->literal_len;
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a >= 0) room += ddbst__facet_key_room(&e->attrs[a], it->vals[a].len);
  }
  return room;
}

/* Writes key template `t` at o, each facet as the general renderer would
 * (keys.c, render_general) when it finds nothing to refuse; NULL when it
 * would look further (a facet unset or empty, a delimiter, text to escape,
 * a transform that refuses), or the key passes `limit`. */
static char *write_key(const ddbst_item *it, const ddbst__template *t,
                       size_t limit, char *o) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  char *start = o;
  for (const ddbst__seg *s = t->segs, *end = s + t->nsegs; s < end; s++) {
    if (s->attr < 0) {
      ddbst__copy(o, s->text, s->len);
      o += s->len;
      continue;
    }
    const ddbst__val *v = &it->vals[s->attr];
    if (!v->set || v->upd != DDBST__UPD_SET || v->len == 0 ||
        (v->scan & (DDBST__SCAN_KNOWN | DDBST__SCAN_DELIM0 |
                    DDBST__SCAN_ESCAPE)) != DDBST__SCAN_KNOWN)
      return NULL;
    const char *text = it->text.data + v->off;
    if (s->as_is) {
      ddbst__copy_padded(o, text, v->len);
      o += v->len;
      continue;
    }
    size_t len = 0;
    if (ddbst__facet_key_at(m, &e->attrs[s->attr], s->lower, 0, text, v->len,
                            v->scan, o, &len, NULL) != DDBST__FK_OK ||
        ddbst__json_plain_len(o, len) != len) /* NFKC: U+FF02 is '"' */
      return NULL;
    o += len;
  }
  size_t n = (size_t)(o - start);
  return n && n <= limit ? o : NULL;
}

static inline char *put(char *o, const ddbst__jtext *t) {
  ddbst__copy_padded(o, t->p, t->n);
  return o + t->n;
}

int ddbst__create_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                          ddbst_buf *out, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__create_plan *p = e->create_plan;
  if (!p || flags != DDBST_CREATE || it->cond || it->update ||
      it->has_expected_version || it->has_update_ops)
    return 0;
  if (!ddbst__write_prepared(it, e)) {
    int rc = ddbst__prepare_write(it, 1, now_us, err);
    if (rc) return rc;
  }
  /* the item stays far under 400 KB: its keys are each under 2 KB */
  if (it->text.len > 65536) return 0;
  size_t keys = 0;
  for (int k = 0; k < p->nkeys; k++) keys += key_room(it, p->keys[k].tmpl);
  for (int u = 0; u < p->nguards; u++)
    if (p->guards[u].key < 0) keys += key_room(it, p->guards[u].tmpl);
  /* each guard copies two keys and the holder's two; each key and member
   * ends in `"}` */
  if (ddbst__buf_reserve(out, p->fixed + keys * (1 + 2 * (size_t)p->nguards) +
                                  it->text.len +
                                  2 * (size_t)(p->nkeys + e->nattrs)))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  const ddbst__val *vals = it->vals;
  char *base = out->data + out->len, *o = base;
  char *at[2 * (1 + 2 * DDBST__MAX_INDEXES)];
  size_t len[2 * (1 + 2 * DDBST__MAX_INDEXES)];
  o = put(o, &p->head);
  for (int k = 0, in = 1, last = -2; k < p->nkeys; k++) {
    const ddbst__ckey *c = &p->keys[k];
    if (c->ekey != last) { /* an index is in or out with both its keys */
      last = c->ekey;
      in = c->ekey < 0
               ? 1
               : ddbst__index_applies(it, &e->indexes[c->ekey], NULL);
      if (in < 0) return left(out); /* partly given: the general says so */
    }
    at[k] = NULL;
    if (!in) continue;
    o = put(o, &c->head);
    at[k] = o;
    char *end = write_key(it, c->tmpl, c->limit, o);
    if (!end) return left(out);
    len[k] = (size_t)(end - o);
    memcpy(end, "\"}", 2);
    o = end + 2;
  }
  if (p->type.p) o = put(o, &p->type); /* none without an entity attribute */
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__val *v = &vals[a];
    if (!v->set) continue;
    if (!ddbst__type_is_string(e->attrs[a].type) ||
        (v->scan & (DDBST__SCAN_KNOWN | DDBST__SCAN_ESCAPE)) !=
            DDBST__SCAN_KNOWN)
      return left(out);
    o = put(o, &p->members[a]);
    ddbst__copy_padded(o, it->text.data + v->off, v->len);
    o += v->len;
    memcpy(o, "\"}", 2);
    o += 2;
  }
  o = put(o, &p->item_end);
  int has_sk = p->sk_mid.n > 0;
  size_t guard_max = has_sk ? DDBST__SK_MAX : DDBST__PK_MAX;
  for (int u = 0; u < p->nguards; u++) {
    const ddbst__cguard *g = &p->guards[u];
    o = put(o, &g->head);
    const char *gk = o;
    size_t gn;
    if (g->key >= 0) { /* the index key with the guard's template */
      if (!at[g->key] || len[g->key] > guard_max) return left(out);
      gn = len[g->key];
      ddbst__copy(o, at[g->key], gn);
    } else { /* its own template, as ddbst__guard_key renders it */
      char *end = write_key(it, g->tmpl, guard_max, o);
      if (!end) return left(out);
      gn = (size_t)(end - o);
    }
    o += gn;
    if (has_sk) {
      o = put(o, &p->sk_mid);
      ddbst__copy(o, gk, gn);
      o += gn;
    }
    o = put(o, &g->holder);
    ddbst__copy(o, at[0], len[0]);
    o += len[0];
    if (has_sk) {
      o = put(o, &p->sk_mid);
      ddbst__copy(o, at[1], len[1]);
      o += len[1];
    }
    o = put(o, &g->end);
  }
  memcpy(o, "]}", 3);
  out->len = (size_t)(o + 2 - out->data);
  /* as ddbst__unique_write leaves the item: placeholders reset; the key
   * list is made again when asked for */
  it->nkeys = 0;
  ddbst__expr_reset(it);
  return 1;
}
