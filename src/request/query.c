/* Query bodies for named access patterns: the partition key, the sort-key
 * condition (sk_bounds.c), the filter the key range cannot say, projection,
 * order, limit and the next page's cursor. */
#include <stdio.h>
#include <string.h>

#include "cursor/cursor.h"
#include "model/facet.h"
#include "item/item_named.h"
#include "item/keys.h"
#include "request/cond.h"
#include "request/sk_bounds.h"
#include "request/native_query.h"
#include "request/query_fixed.h"

/* ,"FilterExpression":"..." for what the key range cannot say: the
 * pattern's declared filter, and the entity type when other entities' items
 * can fall in the range (the model found that at load). */
static int write_filter(ddbst_item *it, const ddbst__pattern *p,
                        const ddbst_expr *user, ddbst_buf *out,
                        ddbst_error *err) {
  const ddbst_model *m = it->m;
  int typed = p->type_filter && m->entity_attr;
  if (!typed && !p->nfilter && !user) return 0;
  const ddbst__entity *e0 = &m->entities[p->entities[0]];
  int rc = ddbst__buf_puts(out, ",\"FilterExpression\":\"");
  int parts = 0;
  for (int i = 0; !rc && i < p->nfilter; i++) {
    const ddbst__cond *c = &p->filter[i];
    if (parts++) rc = ddbst__buf_puts(out, " AND ");
    rc = rc ? rc : ddbst__expr_name(it, e0->attrs[c->attr].name, out);
    rc = rc ? rc : ddbst__buf_puts(out, c->nvalues == 1 ? " = " : " IN (");
    for (size_t j = 0; !rc && j < c->nvalues; j++) {
      if (j) rc = ddbst__buf_puts(out, ", ");
      ddbst__vref r = {DDBST__REF_LIT, c->attr, (uint32_t)p->entities[0],
                       (uint32_t)c->lens[j], c->values[j]};
      rc = rc ? rc : ddbst__expr_value(it, r, out);
    }
    if (!rc && c->nvalues != 1) rc = ddbst__buf_putc(out, ')');
  }
  if (!rc && typed) {
    if (parts++) rc = ddbst__buf_puts(out, " AND ");
    rc = rc ? rc : ddbst__expr_name(it, m->entity_attr, out);
    rc = rc ? rc : ddbst__buf_puts(out, p->nentities == 1 ? " = " : " IN (");
    for (int j = 0; !rc && j < p->nentities; j++) {
      if (j) rc = ddbst__buf_puts(out, ", ");
      rc = rc ? rc
              : ddbst__expr_string(it, m->entities[p->entities[j]].name, out);
    }
    if (!rc && p->nentities != 1) rc = ddbst__buf_putc(out, ')');
  }
  /* the model's parts are all joined by AND: the user's filter, in
   * parentheses after them, keeps its meaning and theirs */
  if (!rc && user) {
    if (parts) rc = ddbst__buf_puts(out, " AND (");
    rc = rc ? rc : ddbst__xwrite_cond(it, user, out, err);
    if (!rc && parts) rc = ddbst__buf_putc(out, ')');
  }
  return rc ? rc : ddbst__buf_putc(out, '"');
}

/* Whether the user's filter can work on this query: compiled for the
 * values' entity, on a pattern of one entity, naming only attributes the
 * index projects (DynamoDB refuses a filter on one it does not). */
static int check_filter(ddbst_item *it, const ddbst__pattern *p,
                        const ddbst_expr *f, ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  if (f->m != m || f->kind != DDBST_EXPR_FILTER || f->entity != it->entity)
    return ddbst__fail(err, DDBST_EINVAL, "filter",
                       "the filter must be a DDBST_EXPR_FILTER compiled for "
                       "%s",
                       e->name);
  if (p->nentities > 1)
    return ddbst__fail(err, DDBST_EINVAL, "filter",
                       "%s reads a collection of entities: a filter on %s's "
                       "attributes would drop every other entity's items",
                       p->name, e->name);
  if (p->index < 0) return 0;
  const ddbst__index *ix = &m->indexes[p->index];
  if (ix->projection == DDBST__PROJ_ALL) return 0;
  for (int a = 0; a < e->nattrs; a++) {
    if (!f->uses[a]) continue;
    int projected = 0;
    for (size_t i = 0; ix->projection == DDBST__PROJ_INCLUDE && i < ix->ninclude;
         i++)
      projected |= !strcmp(ix->include[i], e->attrs[a].name);
    if (!projected)
      return ddbst__fail(err, DDBST_EINVAL, "filter",
                         "%s reads index %s, which does not project %s "
                         "(%s): DynamoDB refuses a filter on it; project it "
                         "in the model, or read the table",
                         p->name, ix->name, e->attrs[a].name,
                         ix->projection == DDBST__PROJ_KEYS_ONLY
                             ? "KEYS_ONLY"
                             : "not in its INCLUDE list");
  }
  return 0;
}

static int query_body(ddbst_item *it, int pattern, const ddbst__pattern *p,
                      const ddbst_query *q, ddbst_buf *out, ddbst_error *err);

int ddbst_query_request(ddbst_item *it, int pattern, const ddbst_query *q,
                        ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!it || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item or buffer is NULL");
  const ddbst_model *m = it->m;
  if (pattern < 0 || pattern >= m->npatterns)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern index %d is out of range", pattern);
  const ddbst__pattern *p = &m->patterns[pattern];
  /* the caller's options as they are, when they are of this header's
   * size (the usual case: no copy); else copied and padded with zeros */
  ddbst_query qd;
  const ddbst_query *qo = q;
  if (!q || q->size < sizeof qd) {
    if (q && q->size < offsetof(ddbst_query, value2))
      return ddbst__fail(err, DDBST_EINVAL, NULL, "ddbst_query.size is not set");
    memset(&qd, 0, sizeof qd);
    if (q) memcpy(&qd, q, q->size);
    qo = &qd;
  }
  if (qo->value_len == DDBST_NUL_TERMINATED ||
      qo->value2_len == DDBST_NUL_TERMINATED ||
      qo->cursor_len == DDBST_NUL_TERMINATED ||
      qo->filter_text_len == DDBST_NUL_TERMINATED) {
    if (qo != &qd) memcpy(&qd, q, sizeof qd);
    qd.value_len = ddbst__len(qd.value, qd.value_len);
    qd.value2_len = ddbst__len(qd.value2, qd.value2_len);
    qd.cursor_len = ddbst__len(qd.cursor, qd.cursor_len);
    qd.filter_text_len = ddbst__len(qd.filter_text, qd.filter_text_len);
    qo = &qd;
  }
  if (qo->attribute_name) { /* the facet by name */
    int a = ddbst__item_attribute_named(it, NULL, qo->attribute_name, err);
    if (a < 0) return a;
    if (qo != &qd) memcpy(&qd, q, sizeof qd);
    qd.attribute = a;
    qo = &qd;
  }
  char path[DDBST_ERROR_PATH_MAX];
#define PATTERN_PATH (snprintf(path, sizeof path, "patterns.%s", p->name), path)
  if (p->op != DDBST__OP_QUERY)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "%s is a %s pattern, not a query", p->name,
                       p->op == DDBST__OP_GET ? "get (ddbst_get_request)"
                                              : "scan");
  int ok = 0;
  for (int i = 0; i < p->nentities; i++)
    if (p->entities[i] == it->entity) ok = 1;
  if (!ok)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "the values are of entity %s, which pattern %s does "
                       "not read",
                       ddbst__entity_of(it)->name, p->name);
  if (p->nentities > 1 && qo->condition != DDBST_SK_NONE)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "a collection pattern takes no sort-key condition");
  if ((qo->flags & DDBST_CONSISTENT_READ) && p->index >= 0 &&
      !m->indexes[p->index].local)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "a global secondary index cannot be read consistently");
  if (it->cond || it->update)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "a query takes a filter (ddbst_query.filter), not a "
                       "condition or update actions");
  if ((qo->flags & DDBST_QUERY_COUNT) && it->nprojected)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "a count (select COUNT, --count, DDBST_QUERY_COUNT) "
                       "returns no attributes: it takes no projection");
  if (!qo->filter && !qo->filter_text)
    return query_body(it, pattern, p, qo, out, err);
  if (qo->filter && qo->filter_text)
    return ddbst__fail(err, DDBST_EINVAL, "filter",
                       "give the filter compiled or as text, not both");
  /* a filter given as text lives for this call */
  ddbst_expr *own_filter = NULL;
  if (qo->filter_text) {
    int rc = ddbst_expr_parse(m, it->entity, DDBST_EXPR_FILTER, qo->filter_text,
                              qo->filter_text_len, &own_filter, err);
    if (rc) return rc;
    if (qo != &qd) qd = *qo;
    qd.filter = own_filter;
    qo = &qd;
  }
  int rc = check_filter(it, p, qo->filter, err);
  if (!rc && ddbst__xreserve(it, qo->filter))
    rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  int op = rc ? rc : query_body(it, pattern, p, qo, out, err);
  ddbst_expr_free(own_filter);
  return op;
}

int ddbst__query_fixed_off;

/* Whether the body is the pattern's fixed one (model/compile_query_bodies.c):
 * the pattern has one, and this query asks nothing the fixed text does not
 * say (no sort-key condition, filter or projection; none of the sort key's
 * facets among the values, so its literal start bounds the range). */
static int uses_fixed_body(const ddbst_item *it, const ddbst__pattern *p,
                           const ddbst__ekey *k, const ddbst_query *q) {
  if (!p->fixed_open.n || q->condition != DDBST_SK_NONE || q->filter ||
      it->nprojected || ddbst__query_fixed_off)
    return 0;
  for (int f = 0; f < k->sk.nfacets; f++)
    if (it->vals[k->sk.pieces[f].attr].set) return 0;
  return 1;
}

/* The fixed body around the partition key's value (keytext, `plain` when
 * its rendering found nothing to escape), up to the limit. */
static int fixed_body(const ddbst__pattern *p, const char *pk, size_t n,
                      int plain, ddbst_buf *out) {
  const ddbst__jtext *a = &p->fixed_open, *b = &p->fixed_close;
  if (!plain) {
    int rc = ddbst__buf_append(out, a->p, a->n);
    rc = rc ? rc : ddbst__write_s(out, pk, n);
    return rc ? rc : ddbst__buf_append(out, b->p, b->n);
  }
  if (ddbst__buf_reserve(out, (size_t)a->n + n + 8 + b->n)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  memcpy(o, a->p, a->n);
  o = ddbst__put_s(o + a->n, pk, n);
  memcpy(o, b->p, b->n + 1); /* and the NUL */
  out->len = (size_t)(o - out->data) + b->n;
  return 0;
}

/* The partition key's facets, where the simple render wrote it (literals
 * and values as they are) from values known clean, non-empty and free of
 * the delimiter's first byte: then each facet is its value, which is what
 * splitting the key again (as opening a cursor would) finds. part->t stays
 * NULL otherwise. */
static void known_facets(const ddbst_item *it, const ddbst__template *t,
                         ddbst__cursor_part *part) {
  if (!t->simple) return;
  size_t at = 0;
  for (int f = 0; f < t->nfacets; f++) {
    const ddbst__piece *pc = &t->pieces[f];
    const ddbst__val *v = &it->vals[pc->attr];
    if (v->scan != DDBST__SCAN_KNOWN || v->len == 0) return;
    at += pc->lit_len;
    part->spans[2 * f] = at;
    part->spans[2 * f + 1] = v->len;
    at += v->len;
  }
  if (at + t->tail_len == part->n) part->t = t;
}

/* The body of a query whose arguments were checked. */
static int query_body(ddbst_item *it, int pattern, const ddbst__pattern *p,
                      const ddbst_query *q, ddbst_buf *out, ddbst_error *err) {
  const ddbst_model *m = it->m;
  char path[DDBST_ERROR_PATH_MAX];

  const ddbst__entity *e = ddbst__entity_of(it);
  /* the loader puts every entity of a pattern in the pattern's index */
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  const char *pk_attr = m->pk_attr, *sk_attr = m->sk_attr;
  if (p->index >= 0) {
    pk_attr = m->indexes[p->index].pk_attr;
    sk_attr = m->indexes[p->index].sk_attr;
  }
  if (!sk_attr && q->condition != DDBST_SK_NONE)
    return ddbst__fail(err, DDBST_EINVAL, PATTERN_PATH,
                       "the key pattern %s reads has no sort key", p->name);

  size_t start = out->len;
  ddbst__expr_reset(it);
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  /* the partition key is the first name and value: the pattern's prepared
   * head already says "#n0 = :v0" */
  uint32_t po = 0, pl = 0;
  int pk_plain = 0;
  int native = p->index >= 0 && m->indexes[p->index].native;
  /* a native index: the item's own typed values (native_query.c) */
  int rc = native ? ddbst__native_partition(it, k, &po, &pl, err)
                  : ddbst__render(it, &k->pk, pk_attr, DDBST__PK_MAX,
                                  &it->keytext, &pk_plain, err);
  int fixed = !rc && !native && uses_fixed_body(it, p, k, q);
  if (fixed) {
    pl = (uint32_t)it->keytext.len;
    rc = fixed_body(p, it->keytext.data, pl, pk_plain, out);
  } else if (!rc && native) {
    rc = ddbst__native_key_condition(it, p, k, q, out, err);
  } else if (!rc) {
    pl = (uint32_t)it->keytext.len;
    if (ddbst__expr_add_name(it, pk_attr) != 0 ||
        ddbst__expr_add_value(it, ddbst__plain_key_ref(po, pl, pk_plain)) != 0)
      rc = DDBST_ERANGE;
  }
  if (!rc && !native && !fixed)
    rc = ddbst__buf_append(out, p->query_head.p, p->query_head.n);
  if (!rc && sk_attr && !native && !fixed) {
    if (p->nentities > 1) {
      /* a collection: the literal start every entity's sort key shares */
      if (p->sk_common_len) {
        uint32_t off = (uint32_t)it->keytext.len;
        rc = ddbst__buf_append(&it->keytext, p->sk_common, p->sk_common_len);
        rc = rc ? rc
                : ddbst__sk_expr(it, sk_attr, " AND begins_with(#n1, :v1)",
                          ddbst__key_ref(off, p->sk_common_len), NULL, out);
      }
    } else {
      rc = ddbst__sort_condition(it, p, k, sk_attr, q, out, err);
    }
  }
  if (!rc && !fixed) rc = ddbst__buf_putc(out, '"');
  if (!rc && !fixed) {
    /* a page's items must still say what they are and where the page ends:
     * the table's keys, the index's keys and the entity type */
    const ddbst__index *qix = p->index >= 0 ? &m->indexes[p->index] : NULL;
    const char *keys[5 + 8] = {m->pk_attr, m->sk_attr,
                               qix && ddbst__index_own_pk(qix) ? pk_attr : NULL,
                               qix && ddbst__index_own_sk(qix) ? sk_attr : NULL,
                               m->entity_attr};
    /* a native index's key attributes, as the entity names them, unless
     * the caller projects them already */
    int nk = 5;
    for (int s = 0; native && s < k->pk.nsegs + k->sk.nsegs; s++) {
      int a = s < k->pk.nsegs ? k->pk.segs[s].attr
                              : k->sk.segs[s - k->pk.nsegs].attr;
      if (!it->projected || !it->projected[a]) keys[nk++] = e->attrs[a].name;
    }
    rc = ddbst__write_projection(it, keys, nk, out);
  }
  if (!rc && !fixed) rc = write_filter(it, p, q->filter, out, err);
  if (!rc && !fixed) rc = ddbst__expr_emit(it, out);
  if (!rc && !fixed && p->descending)
    rc = ddbst__buf_puts(out, ",\"ScanIndexForward\":false");
  /* a pattern with only a maximum still bounds every page */
  uint32_t limit = q->limit ? q->limit
                   : p->limit_default ? p->limit_default
                                      : p->limit_max;
  if (p->limit_max && limit > p->limit_max) limit = p->limit_max;
  if (!rc && limit && limit == p->limit_text_of) {
    rc = ddbst__buf_append(out, p->limit_text.p, p->limit_text.n);
  } else if (!rc && limit) {
    /* digits by hand: snprintf would be a tenth of the whole body's cost */
    char tmp[24];
    int n = (int)sizeof tmp;
    uint32_t v = limit;
    do {
      tmp[--n] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    rc = ddbst__buf_puts(out, ",\"Limit\":");
    rc = rc ? rc : ddbst__buf_append(out, tmp + n, sizeof tmp - (size_t)n);
  }
  if (!rc && (q->flags & DDBST_CONSISTENT_READ))
    rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
  if (!rc && (q->flags & DDBST_QUERY_COUNT))
    rc = ddbst__buf_puts(out, ",\"Select\":\"COUNT\"");
  /* the next page: the cursor opened against this very query's pattern and
   * partition, or refused */
  if (!rc && q->cursor) {
    static const char esk[] = ",\"ExclusiveStartKey\":";
    rc = ddbst__buf_append(out, esk, sizeof esk - 1);
    ddbst__cursor_part part; /* its spans only as known_facets fills them */
    part.p = it->keytext.data + po;
    part.n = pl;
    part.plain = !native && pk_plain;
    part.t = NULL;
    if (!native) known_facets(it, &k->pk, &part);
    if (!rc)
      rc = ddbst__cursor_open(q->cursor_keys, m, pattern, &part, q->cursor,
                              q->cursor_len, q->now_unix_us, out, err);
  }
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_QUERY;
}
#undef PATTERN_PATH
