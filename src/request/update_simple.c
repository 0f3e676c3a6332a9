/* An UpdateItem body in one pass, for the commonest update: values set by
 * value, nothing else asked (no action, mark, condition, expected version,
 * unique guard, upsert or return values), every key it writes a simple
 * template (ddbst__template.simple) of values scanned clean; a version
 * attribute moves on as the general writer moves it. The general writer
 * (request.c) records each placeholder's name and value on the item,
 * through a call per name and per value, then walks the records again for
 * the two maps; here the few assignments are decided first, on the stack,
 * and the expression, the condition and both maps are written from that
 * list with the model's texts (the names' JSON, the templates' pieces).
 * Whatever it does not take, every error included, goes to the general
 * writer, which says what was wrong; where both write, the bytes are the
 * same (tests/unit/test_update_paths.c holds them to it over every example
 * model's entities). */
#include <string.h>

#include "base/bytes.h"
#include "base/internal.h"
#include "item/attribute_value.h"
#include "item/itemsize.h"
#include "item/keys.h"
#include "model/facet.h"
#include "request/expr.h"
#include "request/request.h"

/* request.h: the general writer calls it too, first thing. */
int ddbst__update_stamp(ddbst_item *it, int64_t now_us, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  if (e->updated_attr < 0 || it->vals[e->updated_attr].set) return 0;
  char ts[DDBST__TS_MAX];
  size_t tl;
  const char *bad = ddbst__ts_from_unix_us(
      now_us, e->attrs[e->updated_attr].precision, ts, &tl);
  if (bad) return ddbst__fail(err, DDBST_ERANGE, NULL, "updatedAt: %s", bad);
  if (ddbst__item_store(it, e->updated_attr, ts, tl)) return DDBST_ENOMEM;
  /* what setting a timestamp records: its canonical alphabet's scan */
  it->vals[e->updated_attr].scan = it->m->ts_scan;
  return 0;
}

/* Names #n0 to #n9 and values :v0 to :v8: one digit each. */
enum { MAX_NAMES = 10 };

/* One `#nK = :vK` of the SET clause: an attribute's value, or an index key
 * written from its template's pieces. */
typedef struct assignment {
  const ddbst__name *nm;
  const ddbst__template *t; /* NULL: attribute `attr`'s value */
  int attr;
  uint32_t len; /* the key's bytes */
} assignment;

typedef struct plan {
  assignment as[MAX_NAMES];
  int n;
  const ddbst__name *version; /* NULL when the entity keeps none */
  size_t names_len; /* the names' JSON texts, the condition's included */
  size_t values_len;
  size_t bytes; /* the item's size after the update, at least (as request.c) */
} plan;

static int given(const ddbst_item *it, int a) {
  return it->vals[a].set && it->vals[a].upd == DDBST__UPD_SET;
}

static int add(plan *p, const ddbst__name *nm, const ddbst__template *t,
               int attr, uint32_t len) {
  /* room for the version's name and the condition's after them, and the
   * version's two values */
  if (!nm || p->n == MAX_NAMES - 2) return 0;
  for (int i = 0; i < p->n; i++)
    if (p->as[i].nm == nm) return 0; /* one placeholder for two uses */
  p->as[p->n++] = (assignment){nm, t, attr, len};
  p->names_len += nm->json.n;
  p->values_len += len;
  return 1;
}

/* Index key template `t` written the short way: simple, every facet
 * scanned clean when set, within `limit`. */
static int plan_key(const ddbst_item *it, plan *p, const char *name,
                    const ddbst__jtext *jname, const ddbst__template *t,
                    size_t limit) {
  if (!t->simple) return 0;
  size_t len = t->literal_len;
  for (int i = 0; i < t->nfacets; i++) {
    const ddbst__val *v = &it->vals[t->pieces[i].attr];
    if (v->scan != DDBST__SCAN_KNOWN) return 0;
    len += v->len;
  }
  if (len > limit) return 0;
  p->bytes += jname->raw_len + len;
  return add(p, ddbst__name_of(it->m, name), t, -1, (uint32_t)len);
}

/* What request.c's index_action decides for an item with no REMOVE, ADD or
 * append: keys untouched (1, nothing to do), or rewritten with every facet
 * and membership condition given and holding (planned, 1); 0 for anything
 * else (the item leaving the index, a facet missing). */
static int plan_index(const ddbst_item *it, plan *p, const ddbst__ekey *k) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__index *ix = &m->indexes[k->index];
  if (ix->native) return 1;
  const ddbst__template *ts[2] = {&k->pk, &k->sk};
  /* one walk: whether a value of its own is given, and whether one is not */
  int touched = 0, missing = 0;
  for (int t = 0; t < 2; t++)
    for (int j = 0; j < ts[t]->nsegs; j++) { /* segs is NULL with no key */
      const ddbst__seg *g = &ts[t]->segs[j];
      if (g->attr < 0) continue;
      int gv = given(it, g->attr);
      touched |= gv & !e->attrs[g->attr].primary_facet;
      missing |= !gv;
    }
  for (int i = 0; i < k->nwhen; i++) {
    int gv = given(it, k->when[i].attr);
    touched |= gv;
    missing |= !gv;
  }
  if (!touched) return 1;
  if (missing) return 0;
  for (int i = 0; i < k->nwhen; i++)
    if (!ddbst__cond_holds(it, &k->when[i])) return 0;
  if (ddbst__index_own_pk(ix) &&
      !plan_key(it, p, ix->pk_attr, &ix->pk_jname, &k->pk, DDBST__PK_MAX))
    return 0;
  if (ddbst__index_own_sk(ix) &&
      !plan_key(it, p, ix->sk_attr, &ix->sk_jname, &k->sk, DDBST__SK_MAX))
    return 0;
  return 1;
}

/* The SET clause's assignments in the general writer's order: the values
 * in attribute order, then the index keys. 0: not the short way. */
static int plan_update(const ddbst_item *it, plan *p) {
  const ddbst__entity *e = ddbst__entity_of(it);
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    const ddbst__val *v = &it->vals[a];
    if (!v->set || at->primary_facet || a == e->version_attr) continue;
    if (v->upd != DDBST__UPD_SET) return 0;
    p->bytes += at->jname.raw_len +
                ddbst__value_size(at, it->text.data + v->off, v->len);
    if (!add(p, ddbst__name_of(it->m, at->name), NULL, a, v->len)) return 0;
  }
  for (int i = 0; i < e->nindexes; i++)
    if (!plan_index(it, p, &e->indexes[i])) return 0;
  if (e->version_attr >= 0) {
    p->version = ddbst__name_of(it->m, e->attrs[e->version_attr].name);
    for (int i = 0; p->version && i < p->n; i++)
      if (p->as[i].nm == p->version) return 0;
    if (!p->version) return 0;
    p->names_len += p->version->json.n;
  }
  return (p->n > 0 || p->version) && p->bytes <= DDBST__ITEM_MAX;
}

/* A key's text from its template's pieces at `o` (padded room). */
static char *put_key(const ddbst_item *it, char *o, const ddbst__template *t) {
  const char *text = it->text.data;
  for (int i = 0; i < t->nfacets; i++) {
    const ddbst__piece *pc = &t->pieces[i];
    const ddbst__val *v = &it->vals[pc->attr];
    ddbst__copy_padded(o, pc->lit, pc->lit_len);
    o += pc->lit_len;
    ddbst__copy_padded(o, text + v->off, v->len);
    o += v->len;
  }
  ddbst__copy_padded(o, t->tail, t->tail_len);
  return o + t->tail_len;
}

static const char expr_head[] = ",\"UpdateExpression\":\"SET",
                  cond_head[] = "\",\"ConditionExpression\":\"attribute_exists(#n",
                  names_head[] = ",\"ExpressionAttributeNames\":",
                  values_head[] = ",\"ExpressionAttributeValues\":",
                  /* the version's digits at -33, -13, -8 and -1 */
                  version_set[] = ", #n0 = if_not_exists(#n0, :v0) + :v1";
#define LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) + sizeof(s) - 1)

/* The expression, its condition and the names map: sizes known, one
 * reservation. */
static int write_expression(ddbst_item *it, const plan *p,
                            const ddbst__name *pk, ddbst_buf *out) {
  int n = p->n, v = p->version != NULL, last = n + v; /* the condition's */
  size_t room = sizeof expr_head + 10 * (size_t)n + sizeof version_set +
                sizeof cond_head + 4 + sizeof names_head +
                8 * (size_t)(last + 1) + p->names_len + pk->json.n + 2;
  if (ddbst__buf_reserve(out, room)) return DDBST_ENOMEM;
  char *o = LIT(out->data + out->len, expr_head);
  for (int i = 0; i < n; i++) {
    if (i) *o++ = ',';
    memcpy(o, " #n0 = :v0", 10);
    o[3] = o[9] = (char)('0' + i);
    o += 10;
  }
  if (v) { /* after "SET" the first has no comma; the digits from the end */
    size_t len = sizeof version_set - (n ? 1 : 2);
    memcpy(o, version_set + (n ? 0 : 1), len);
    o += len;
    o[-33] = o[-13] = o[-8] = (char)('0' + n);
    o[-1] = (char)('0' + n + 1);
  }
  o = LIT(o, cond_head);
  *o++ = (char)('0' + last);
  o = LIT(o, ")\"");
  o = LIT(o, names_head);
  for (int i = 0; i <= last; i++) {
    const ddbst__jtext *j = i < n    ? &p->as[i].nm->json
                            : i < last ? &p->version->json
                                       : &pk->json;
    memcpy(o, i ? ",\"#n0\":" : "{\"#n0\":", 8);
    o[4] = (char)('0' + i);
    ddbst__copy_padded(o + 7, j->p, j->n); /* the arena's: padded */
    o += 7 + j->n;
  }
  *o++ = '}';
  *o = '\0';
  out->len = (size_t)(o - out->data);
  (void)it;
  return 0;
}

/* The values map and the body's end: a string scanned clean and every key
 * in the reservation, any other value through its AttributeValue writer. */
static int write_values(ddbst_item *it, const plan *p, ddbst_buf *out) {
  const ddbst__entity *e = ddbst__entity_of(it);
  size_t room = sizeof values_head + 16 * (size_t)p->n + p->values_len + 34;
  if (ddbst__buf_reserve(out, room)) return DDBST_ENOMEM;
  char *o = LIT(out->data + out->len, values_head);
  for (int i = 0; i < p->n; i++) {
    const assignment *as = &p->as[i];
    memcpy(o, i ? ",\":v0\":" : "{\":v0\":", 8);
    o[4] = (char)('0' + i);
    o += 7;
    if (as->t) {
      o = LIT(o, "{\"S\":\"");
      o = put_key(it, o, as->t);
      o = LIT(o, "\"}");
      continue;
    }
    const ddbst__attr *at = &e->attrs[as->attr];
    const ddbst__val *v = &it->vals[as->attr];
    if (ddbst__type_is_string(at->type) && v->scan & DDBST__SCAN_KNOWN &&
        !(v->scan & DDBST__SCAN_ESCAPE)) {
      o = ddbst__put_s(o, it->text.data + v->off, v->len);
      continue;
    }
    /* the rest of the map's room is reserved again after it */
    out->len = (size_t)(o - out->data);
    int rc = ddbst__write_av(out, at, it->text.data + v->off, v->len);
    if (!rc)
      rc = ddbst__buf_reserve(out, 16 * (size_t)(p->n - i) + p->values_len + 34);
    if (rc) return rc;
    o = out->data + out->len;
  }
  if (p->version) { /* its :vJ and :vJ+1, from 0 by 1 */
    memcpy(o, p->n ? ",\":v0\":{\"N\":\"0\"},\":v1\":{\"N\":\"1\"}"
                   : "{\":v0\":{\"N\":\"0\"},\":v1\":{\"N\":\"1\"}", 32);
    o[4] = (char)('0' + p->n);
    o[20] = (char)('0' + p->n + 1);
    o += 32;
  }
  o = LIT(o, "}}");
  *o = '\0';
  out->len = (size_t)(o - out->data);
  return 0;
}

/* request.h. Not inlined: its frame would cost the plan's way (update_plan.c)
 * on every call. */
DDBST__NOINLINE int ddbst__update_one_pass(ddbst_item *it, ddbst_buf *out) {
  plan p;
  p.n = 0;
  p.version = NULL;
  p.names_len = p.values_len = 0;
  p.bytes = 0;
  const ddbst__name *pk = ddbst__name_of(it->m, it->m->pk_attr);
  int ok = plan_update(it, &p);
  for (int i = 0; ok && pk && i < p.n; i++)
    if (p.as[i].nm == pk) pk = NULL;
  if (!ok || !pk) return 0;
  size_t start = out->len, key_bytes = 0;
  int rc = ddbst__begin(out, it->m);
  rc = rc ? rc : ddbst__buf_append(out, ",\"Key\":", 7);
  if (!rc) {
    rc = ddbst__primary_av_simple(it, out, &key_bytes);
    if (rc == 0 || (rc > 0 && p.bytes + key_bytes > DDBST__ITEM_MAX)) {
      ddbst__buf_truncate(out, start);
      return 0;
    }
    rc = rc < 0 ? rc : 0;
  }
  /* the item as the general writer leaves it: no key list, no records */
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  ddbst__expr_reset(it);
  rc = rc ? rc : write_expression(it, &p, pk, out);
  rc = rc ? rc : write_values(it, &p, out);
  if (rc) {
    ddbst__buf_truncate(out, start);
    return DDBST_ENOMEM;
  }
  return 1;
}
