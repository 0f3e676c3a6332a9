/* The texts the put and create plans share (compile_put_plans.c,
 * compile_create_plans.c): an Item's member before its value, and the
 * condition a create's Put carries. Made here once so that the two plans
 * cannot write them two ways. */
#include <string.h>

#include "model/compile.h"

const ddbst__jtext *ddbst__plan_members(ddbst_model *m, const ddbst__entity *e,
                                        ddbst_buf *t, size_t *bytes) {
  ddbst__jtext *mt =
      ddbst__arena_alloc(&m->arena, (size_t)(e->nattrs + 1) * sizeof *mt);
  if (!mt) return NULL;
  memset(mt, 0, (size_t)(e->nattrs + 1) * sizeof *mt);
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__jtext *s = &e->attrs[a].s_member;
    if (!s->p) continue; /* not a string: written the general way */
    /* `"}` closes the value before it, then `,"name":{"S":"` */
    ddbst_buf_reset(t);
    if (ddbst__buf_append(t, "\"},", 3) || ddbst__buf_append(t, s->p, s->n))
      return NULL;
    const char *kept = ddbst__arena_strndup(&m->arena, t->data, t->len);
    if (!kept) return NULL;
    mt[a] = (ddbst__jtext){kept, (uint32_t)t->len, 0};
    *bytes += t->len;
  }
  ddbst_buf_reset(t);
  return mt;
}

int ddbst__plan_not_exists(const ddbst_model *m, ddbst_buf *t) {
  static const char cond[] =
      ",\"ConditionExpression\":\"attribute_not_exists(#n0)\","
      "\"ExpressionAttributeNames\":{\"#n0\":";
  int rc = ddbst__buf_append(t, cond, sizeof cond - 1);
  /* the key's name as its JSON text, less the ':' after it */
  rc = rc ? rc : ddbst__buf_append(t, m->pk_jname.p, m->pk_jname.n - 1);
  return rc ? rc : ddbst__buf_append(t, "}", 1);
}
