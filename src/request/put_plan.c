/* A PutItem of the common shape from its entity's plan (ddbst__put_plan,
 * compiled at load): no condition, no expected version, no return values,
 * every key facet set and scanned clean when set, every set attribute a
 * string needing no escape. The body is then copies of the plan's fixed
 * texts and of the values, one reservation, no per-byte work: every check
 * (UTF-8, the enum, the timestamp's form, the delimiter and JSON-escape
 * scan) was made when the values were set, and defaults, the version and
 * the required attributes by ddbst__prepare_write as for any put. Anything
 * else is left to ddbst__put_body, which says what is wrong. */
#include "item/itemsize.h"
#include "request/expr.h"
#include "request/request.h"
#include "base/bytes.h"

#include <string.h>

int ddbst__write_prepared(const ddbst_item *it, const ddbst__entity *e) {
  if (e->version_attr >= 0) return 0;
  int all = 1;
  for (int k = 0; k < e->ndefaults; k++) all &= it->vals[e->default_attrs[k]].set;
  for (int k = 0; k < e->nrequired; k++)
    all &= it->vals[e->required_attrs[k]].set;
  return all;
}

/* Nothing kept: what was written is past the buffer's length. */
static int left(ddbst_buf *out) {
  out->data[out->len] = '\0';
  return 0;
}

int ddbst__put_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__put_plan *p = e->put_plan;
  if (!p || (flags & ~DDBST_CREATE) || it->cond || it->update ||
      it->has_expected_version || it->has_update_ops)
    return 0;
  /* The keys' text is at most key_uses times the values' (as
   * ddbst__write_item_simple bounds it): under the sort key's limit, no key
   * can pass its own, and the item is far under 400 KB. */
  size_t text_bound = e->key_uses * it->text.len;
  if (text_bound + p->key_literal_max > DDBST__SK_MAX) return 0;
  for (int i = 0; i < p->nconds; i++)
    for (int c = 0; c < p->conds[i]->nwhen; c++)
      if (!ddbst__cond_holds(it, &p->conds[i]->when[c])) return 0;
  if (!ddbst__write_prepared(it, e)) {
    int rc = ddbst__prepare_write(it, flags != 0, now_us, err);
    if (rc) return rc;
  }
  /* the defaults may have added text */
  text_bound = e->key_uses * it->text.len;
  if (text_bound + p->key_literal_max > DDBST__SK_MAX) return 0;
  if (ddbst__buf_reserve(out, p->fixed + text_bound + it->text.len))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  const char *text = it->text.data;
  const ddbst__val *vals = it->vals;
  char *o = out->data + out->len;
  for (const ddbst__pstep *s = p->steps, *end = s + p->nsteps; s < end;
       s++) {
    const ddbst__val *v = &vals[s->attr];
    if (v->scan != DDBST__SCAN_KNOWN) return left(out);
    /* the texts (the arena) and the values (the item's text) are padded */
    ddbst__copy_text64(o, s->text, s->len);
    o += s->len;
    ddbst__copy_padded(o, text + v->off, v->len);
    o += v->len;
  }
  ddbst__copy_text64(o, p->keys_end.p, p->keys_end.n);
  o += p->keys_end.n;
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__val *v = &vals[a];
    if (!v->set) continue;
    const ddbst__jtext *mt = &p->members[a];
    /* not a string, or not scanned clean when set (a scan found always has
     * SCAN_KNOWN) */
    if (!mt->p ||
        (v->scan & (DDBST__SCAN_KNOWN | DDBST__SCAN_ESCAPE)) !=
            DDBST__SCAN_KNOWN)
      return left(out);
    ddbst__copy_text64(o, mt->p, mt->n);
    o += mt->n;
    ddbst__copy_padded(o, text + v->off, v->len);
    o += v->len;
  }
  const ddbst__jtext *end = flags ? &p->create_end : &p->put_end;
  ddbst__copy_text64(o, end->p, end->n);
  o += end->n;
  *o = '\0';
  out->len = (size_t)(o - out->data);
  /* as ddbst__put_body leaves the item: no key list, no placeholders */
  it->nkeys = 0;
  ddbst__expr_reset(it);
  return 1;
}
