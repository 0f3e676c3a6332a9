/* The key condition of a query on a native index (ddbst__index.native):
 * every partition attribute by equality, the sort attributes left to right
 * by equality, and at most one range condition, on the sort attribute
 * after the last one given. Values are the item's own, typed as their
 * attributes (S, N or B); nothing is rendered into key text. */
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "model/value_canon.h"
#include "request/native_query.h"
#include "request/expr.h"

static const char *attr_name(const ddbst_item *it, const ddbst__seg *s) {
  return ddbst__entity_of(it)->attrs[s->attr].name;
}

/* " AND #nK = :vK" for the item's value of the attribute at `s`. */
static int equal(ddbst_item *it, const ddbst__seg *s, ddbst_buf *out) {
  int rc = ddbst__buf_puts(out, " AND ");
  rc = rc ? rc : ddbst__expr_name(it, attr_name(it, s), out);
  rc = rc ? rc : ddbst__buf_puts(out, " = ");
  return rc ? rc : ddbst__expr_attr_value(it, s->attr, out);
}

/* A timestamp's proper prefix, in UTC, that is no whole timestamp. */
static int partial_ts(const ddbst__attr *a, const char *v, size_t n) {
  char tmp[DDBST__TS_MAX];
  size_t tl;
  return ddbst__ts_canon(v, n, a->precision, tmp, &tl) != NULL &&
         ddbst__ts_is_prefix(v, n, a->precision);
}

/* How a bound is read: a value (or the start of one: from its first), the
 * end of a range (a partial timestamp: through its last), a prefix. */
enum { B_FROM, B_UPTO, B_PREFIX };

/* The condition's value `v` as attribute `a`'s canonical text, in keytext
 * (a begins_with prefix as it is), and its placeholder. A timestamp may
 * be partial, in UTC ("2026-03"), as on a template key: as the end of a
 * range it is followed by '~', above every byte a canonical timestamp
 * holds, so that the range takes all of it. */
static int bound(ddbst_item *it, int attr, int how, const char *v, size_t n,
                 ddbst_buf *out, ddbst_error *err) {
  int prefix = how == B_PREFIX;
  const ddbst__attr *a = &ddbst__entity_of(it)->attrs[attr];
  char path[DDBST_ERROR_PATH_MAX];
#define BOUND_PATH \
  (snprintf(path, sizeof path, "%s.%s", ddbst__entity_of(it)->name, a->name), \
   path)
  if (!v || n == 0)
    return ddbst__fail(err, DDBST_EVALUE, BOUND_PATH,
                       "%s: the condition needs a value", a->name);
  uint32_t off = (uint32_t)it->keytext.len;
  if (prefix) {
    if (ddbst__buf_append(&it->keytext, v, n))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  } else if (a->type == DDBST__T_TIMESTAMP && partial_ts(a, v, n)) {
    if (ddbst__buf_append(&it->keytext, v, n) ||
        (how == B_UPTO && ddbst__buf_putc(&it->keytext, '~')))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  } else {
    char why[160] = "";
    int rc = ddbst__value_canon(a, v, n, &it->keytext, why, sizeof why);
    if (rc == DDBST_ENOMEM)
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    if (rc)
      return ddbst__fail(err, DDBST_EVALUE, BOUND_PATH, "%s: %s", a->name, why);
  }
#undef BOUND_PATH
  ddbst__vref r = {DDBST__REF_KEY_AV, attr, off,
                   (uint32_t)(it->keytext.len - off), NULL};
  return ddbst__expr_value(it, r, out);
}

int ddbst__native_key_condition(ddbst_item *it, const ddbst__pattern *p,
                                const ddbst__ekey *k, const ddbst_query *q,
                                ddbst_buf *out, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__index *ix = &it->m->indexes[p->index];
  char path[DDBST_ERROR_PATH_MAX];
  /* the head says "#n0 = :v0": the first partition attribute */
  const ddbst__seg *p0 = &k->pk.segs[0];
  if (ddbst__expr_add_name(it, attr_name(it, p0)) != 0)
    return DDBST_ERANGE;
  ddbst__vref r0 = {DDBST__REF_ATTR, p0->attr, 0, 0, NULL};
  if (ddbst__expr_add_value(it, r0) != 0) return DDBST_ERANGE;
  int rc = ddbst__buf_append(out, p->query_head.p, p->query_head.n);
  for (int i = 1; !rc && i < k->pk.nsegs; i++) rc = equal(it, &k->pk.segs[i], out);
  if (rc) return ddbst__fail(err, rc, NULL, "out of memory");

  int cond = q ? q->condition : DDBST_SK_NONE;
  int at = k->sk.nsegs; /* the sort attribute the condition is on */
  if (cond != DDBST_SK_NONE) {
    at = -1;
    for (int i = 0; i < k->sk.nsegs; i++)
      if (k->sk.segs[i].attr == q->attribute) at = i;
    if (at < 0) {
      snprintf(path, sizeof path, "patterns.%s", p->name);
      return ddbst__fail(err, DDBST_EINVAL, path,
                         "the condition's attribute is not a sort attribute "
                         "of index %s (%s)",
                         ix->name, k->sk.nsegs ? k->sk.source : "none");
    }
    /* a declared range is a promise (lint's sort-key-fit checks what
     * comes before it), held here as on a template key */
    if (p->range >= 0 && q->attribute != p->range) {
      char sorts[4 * 260] = ""; /* 4 names of at most 255 */
      for (int i = 0, n = 0; i < ix->nsk && n >= 0; i++)
        n += snprintf(sorts + n, sizeof sorts - (size_t)n, "%s%s",
                      i ? ", " : "", ix->sk_attrs[i]);
      snprintf(path, sizeof path, "facet %s", e->attrs[q->attribute].name);
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "pattern %s takes a range on %s only, not on %s; "
                         "a pattern with no \"range\" takes a condition on "
                         "any sort attribute of index %s (%s)",
                         p->name, e->attrs[p->range].name,
                         e->attrs[q->attribute].name, ix->name, sorts);
    }
  }
  /* the sort attributes before it, left to right, by equality */
  for (int i = 0; i < at; i++) {
    const ddbst__seg *s = &k->sk.segs[i];
    if (!it->vals[s->attr].set) {
      if (cond == DDBST_SK_NONE) break; /* the leading ones given */
      snprintf(path, sizeof path, "%s.%s", e->name, attr_name(it, s));
      return ddbst__fail(err, DDBST_EMISSING, path,
                         "give %s: a condition on %s needs every sort "
                         "attribute before it (%s)",
                         attr_name(it, s), attr_name(it, &k->sk.segs[at]),
                         k->sk.source);
    }
    rc = equal(it, s, out);
    if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
  }
  if (cond == DDBST_SK_NONE) return 0;

  const ddbst__seg *s = &k->sk.segs[at];
  const ddbst__attr *a = &e->attrs[s->attr];
  char type = ix->types[ix->npk + at];
  static const char *const ops[] = {NULL, NULL, " > ", " >= ", " < ", " <= "};
  rc = ddbst__buf_puts(out, " AND ");
  if (cond == DDBST_SK_BEGINS) {
    if (type == 'N') {
      snprintf(path, sizeof path, "%s.%s", e->name, a->name);
      return ddbst__fail(err, DDBST_EINVAL, path,
                         "%s is a number in index %s: begins_with takes a "
                         "string or binary attribute",
                         a->name, ix->name);
    }
    rc = rc ? rc : ddbst__buf_puts(out, "begins_with(");
    rc = rc ? rc : ddbst__expr_name(it, a->name, out);
    rc = rc ? rc : ddbst__buf_puts(out, ", ");
    if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
    rc = bound(it, s->attr, B_PREFIX, q->value, q->value_len, out, err);
    if (rc) return rc;
    rc = ddbst__buf_putc(out, ')');
  } else if (cond == DDBST_SK_BETWEEN) {
    rc = rc ? rc : ddbst__expr_name(it, a->name, out);
    rc = rc ? rc : ddbst__buf_puts(out, " BETWEEN ");
    if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
    rc = bound(it, s->attr, B_FROM, q->value, q->value_len, out, err);
    if (rc) return rc;
    rc = ddbst__buf_puts(out, " AND ");
    if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
    rc = bound(it, s->attr, B_UPTO, q->value2, q->value2_len, out, err);
    if (rc) return rc;
  } else if (cond >= DDBST_SK_GT && cond <= DDBST_SK_LTE) {
    rc = rc ? rc : ddbst__expr_name(it, a->name, out);
    rc = rc ? rc : ddbst__buf_puts(out, ops[cond]);
    if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
    rc = bound(it, s->attr,
               cond == DDBST_SK_GT || cond == DDBST_SK_LTE ? B_UPTO : B_FROM,
               q->value, q->value_len, out, err);
    if (rc) return rc;
  } else if (cond == DDBST_SK_GT_LT || cond == DDBST_SK_GT_LTE ||
             cond == DDBST_SK_GTE_LT) {
    /* DynamoDB takes one condition per key attribute: a pair is BETWEEN,
     * whose ends are both inclusive, and a value's successor has no text
     * for every type */
    snprintf(path, sizeof path, "%s.%s", e->name, a->name);
    return ddbst__fail(err, DDBST_EINVAL, path,
                       "%s is a sort attribute of multi-attribute index %s: "
                       "a pair of bounds is BETWEEN there (gte and lte); an "
                       "open end (gt, lt) has no key condition",
                       a->name, ix->name);
  } else {
    return ddbst__fail(err, DDBST_EINVAL, "condition",
                       "unknown sort-key condition %d", cond);
  }
  return rc ? ddbst__fail(err, rc, NULL, "out of memory") : 0;
}
