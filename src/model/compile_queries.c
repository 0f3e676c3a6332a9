/* Query patterns prepared at load: the start of each body and a
 * collection's common sort-key start. */
#include <stdint.h>
#include <string.h>

#include "model/compile.h"

/* The start of each query pattern's body and its collection's common sort
 * key start: what ddbst_query_request would otherwise derive per call. The
 * head depends on the index alone: its patterns share one copy. */
int ddbst__compile_queries(ddbst_model *m) {
  ddbst_buf tmp;
  ddbst__buf_init(&tmp, &m->alloc);
  ddbst__text_pool pool;
  ddbst__text_pool_init(&pool, m);
  int rc = 0;
  for (int i = 0; !rc && i < m->npatterns; i++) {
    ddbst__pattern *p = &m->patterns[i];
    if (p->op != DDBST__OP_QUERY) continue;
    ddbst_buf_reset(&tmp);
    rc = ddbst__buf_append(&tmp, m->begin.p, m->begin.n);
    if (!rc && p->index >= 0) {
      const char *ix = m->indexes[p->index].name;
      rc = ddbst__buf_puts(&tmp, ",\"IndexName\":");
      rc = rc ? rc : ddbst__json_string(&tmp, ix, strlen(ix));
    }
    rc = rc ? rc
            : ddbst__buf_puts(&tmp, ",\"KeyConditionExpression\":\"#n0 = :v0");
    if (rc) break;
    rc = ddbst__text_pool_keep(&pool, tmp.data, tmp.len, &p->query_head);
    if (rc) break;

    const char *sk_attr = p->index >= 0 ? m->indexes[p->index].sk_attr
                                        : m->sk_attr;
    if (p->nentities < 2 || !sk_attr) continue;
    const ddbst__seg *s0 = NULL;
    size_t common = 0;
    for (int j = 0; j < p->nentities; j++) {
      const ddbst__entity *o = &m->entities[p->entities[j]];
      const ddbst__ekey *k = ddbst__entity_key(o, p->index); /* never NULL */
      const ddbst__seg *t0 = &k->sk.segs[0];
      size_t l = t0->attr < 0 ? t0->len : 0;
      if (!s0) {
        s0 = t0;
        common = l;
        continue;
      }
      size_t c = 0;
      while (c < common && c < l && s0->text[c] == t0->text[c]) c++;
      common = c;
    }
    p->sk_common = common ? s0->text : NULL;
    p->sk_common_len = (uint32_t)common;
  }
  ddbst__buf_release(&tmp);
  ddbst__text_pool_release(&pool);
  return rc;
}
