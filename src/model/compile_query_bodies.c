/* Whole query bodies fixed at load: for the commonest query, a pattern of
 * one entity with no filter asked for its whole key range (no sort-key
 * condition, no sort-key facet among the values), everything but the
 * partition key's value and the limit depends on the pattern alone, so it
 * is made here once and a query copies it (request/query.c). What it holds
 * is what the general path writes, byte for byte:
 * tests/unit/test_query_fixed.c compares the two for every pattern of the
 * example models. */
#include <stdio.h>
#include <string.h>

#include "model/compile.h"

/* The literal start of sort template `t` up to its first facet, as a
 * {"S":...} value into `value` (its text gathered in `scratch` first);
 * *complete when the template has no facet. 0, 1 when the general path
 * would refuse it (a literal past the limit: no fixed text then), or
 * DDBST_ENOMEM. */
static int literal_start(const ddbst__template *t, ddbst_buf *scratch,
                         ddbst_buf *value, int *complete) {
  int i = 0, rc = 0;
  ddbst_buf_reset(scratch);
  for (; !rc && i < t->nsegs && t->segs[i].attr < 0; i++) {
    if (t->segs[i].len > DDBST__SK_MAX) return 1;
    rc = ddbst__buf_append(scratch, t->segs[i].text, t->segs[i].len);
  }
  if (rc) return rc;
  *complete = i == t->nsegs;
  if (scratch->len == 0) return 0;
  rc = ddbst__buf_append(value, "{\"S\":", 5);
  rc = rc ? rc : ddbst__json_string(value, scratch->data, scratch->len);
  return rc ? rc : ddbst__buf_putc(value, '}');
}

/* The texts depend on the index, the entity's sort-key literal, the order
 * and the limit: the patterns that agree on them share one copy. */
static int keep(ddbst__text_pool *pool, ddbst_buf *b, ddbst__jtext *j) {
  return ddbst__text_pool_keep(pool, b->data, b->len, j);
}

static int one_pattern(ddbst_model *m, ddbst__text_pool *pool,
                       ddbst__pattern *p, ddbst_buf *open, ddbst_buf *value) {
  if (p->op != DDBST__OP_QUERY || p->nentities != 1 || p->nfilter ||
      (p->type_filter && m->entity_attr))
    return 0;
  if (p->index >= 0 && m->indexes[p->index].native) return 0;
  const ddbst__entity *e = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  if (!k) return 0;
  const char *pk_attr = p->index >= 0 ? m->indexes[p->index].pk_attr
                                      : m->pk_attr;
  const char *sk_attr = p->index >= 0 ? m->indexes[p->index].sk_attr
                                      : m->sk_attr;
  ddbst_buf_reset(open);
  ddbst_buf_reset(value);
  int complete = 0;
  if (sk_attr) {
    int rc = literal_start(&k->sk, open, value, &complete);
    if (rc) return rc == 1 ? 0 : rc;
    ddbst_buf_reset(open);
  }
  int rc = ddbst__buf_append(open, p->query_head.p, p->query_head.n);
  if (!rc && value->len)
    rc = ddbst__buf_puts(open, complete ? " AND #n1 = :v1"
                                        : " AND begins_with(#n1, :v1)");
  rc = rc ? rc
          : ddbst__buf_puts(open, "\",\"ExpressionAttributeNames\":{\"#n0\":");
  rc = rc ? rc : ddbst__json_string(open, pk_attr, strlen(pk_attr));
  if (!rc && value->len) {
    rc = ddbst__buf_puts(open, ",\"#n1\":");
    rc = rc ? rc : ddbst__json_string(open, sk_attr, strlen(sk_attr));
  }
  rc = rc ? rc
          : ddbst__buf_puts(open, "},\"ExpressionAttributeValues\":{\":v0\":");
  rc = rc ? rc : keep(pool, open, &p->fixed_open);
  if (rc) return rc;
  /* after the partition key's value */
  ddbst_buf_reset(open);
  if (value->len) {
    rc = ddbst__buf_puts(open, ",\":v1\":");
    rc = rc ? rc : ddbst__buf_append(open, value->data, value->len);
  }
  rc = rc ? rc : ddbst__buf_putc(open, '}');
  if (!rc && p->descending)
    rc = ddbst__buf_puts(open, ",\"ScanIndexForward\":false");
  return rc ? rc : keep(pool, open, &p->fixed_close);
}

/* ,"Limit":N of the limit a query reads when it gives none, so that
 * query_body copies it rather than writing its digits. */
static int default_limit(ddbst__text_pool *pool, ddbst__pattern *p,
                         ddbst_buf *b) {
  uint32_t limit = p->limit_default ? p->limit_default : p->limit_max;
  if (p->limit_max && limit > p->limit_max) limit = p->limit_max;
  if (p->op != DDBST__OP_QUERY || !limit) return 0;
  char digits[16];
  int n = snprintf(digits, sizeof digits, "%u", (unsigned)limit);
  ddbst_buf_reset(b);
  int rc = ddbst__buf_puts(b, ",\"Limit\":");
  rc = rc ? rc : ddbst__buf_append(b, digits, (size_t)n);
  rc = rc ? rc : keep(pool, b, &p->limit_text);
  if (!rc) p->limit_text_of = limit;
  return rc;
}

int ddbst__compile_query_bodies(ddbst_model *m) {
  ddbst_buf open, value;
  ddbst__buf_init(&open, &m->alloc);
  ddbst__buf_init(&value, &m->alloc);
  ddbst__text_pool pool;
  ddbst__text_pool_init(&pool, m);
  int rc = 0;
  for (int i = 0; !rc && i < m->npatterns; i++) {
    rc = one_pattern(m, &pool, &m->patterns[i], &open, &value);
    rc = rc ? rc : default_limit(&pool, &m->patterns[i], &open);
  }
  ddbst__buf_release(&open);
  ddbst__buf_release(&value);
  ddbst__text_pool_release(&pool);
  return rc;
}
