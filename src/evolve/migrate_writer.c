/* The writer protocol of a migration: a service writing under the new
 * model while items of the old one's shape remain. A put or delete of an
 * entity whose primary key moves takes care of the old key in the same
 * transaction, so that no item is ever stored twice nor moved back by the
 * pass after a delete (docs/evolution.md, "Writing during a migration"). */
#include <string.h>

#include "evolve/diff.h"
#include "evolve/migrate.h"
#include "item/attribute_value.h"
#include "request/guard.h"
#include "request/request.h"

/* The old model's item of the same values, for its primary key. */
static int old_values(ddbst_migration *m, const ddbst_item *item, int oe,
                      ddbst_error *err) {
  const ddbst__entity *ne = &m->nw->entities[item->entity];
  const ddbst__entity *o = &m->old->entities[oe];
  int rc = ddbst_item_reset(m->oldit, oe);
  for (int a = 0; a < o->nattrs && !rc; a++) {
    if (!o->attrs[a].primary_facet) continue;
    int na = ddbst__diff_attr_of(ne, o->attrs[a].name);
    size_t n;
    const char *v = na >= 0 ? ddbst__item_text(item, na, &n) : NULL;
    if (v) rc = ddbst_item_set(m->oldit, a, v, n, err);
  }
  return rc;
}

/* {"Delete":{...}} of the old key, or for a create the ConditionCheck that
 * nothing is stored under it. */
static int old_entry(ddbst_migration *m, int create, ddbst_buf *key,
                     ddbst_buf *out) {
  int rc = ddbst__buf_puts(out, create ? ",{\"ConditionCheck\":"
                                       : ",{\"Delete\":");
  rc = rc ? rc : ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"Key\":");
  rc = rc ? rc : ddbst__buf_append(out, key->data, key->len);
  if (!rc && create) {
    rc = ddbst__buf_puts(out, ",\"ConditionExpression\":\"attribute_not_exists"
                              "(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":");
    rc = rc ? rc : ddbst__json_string(out, m->nw->pk_attr,
                                      strlen(m->nw->pk_attr));
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  return rc ? rc : ddbst__buf_puts(out, "}}");
}

/* Wraps the new model's body (single or a transaction already) with the
 * old key's entry. */
static int wrap(ddbst_migration *m, int op, const ddbst_buf *body,
                ddbst_buf *key, int create, ddbst_buf *out) {
  int rc;
  if (op == DDBST_OP_TRANSACT_WRITE_ITEMS) {
    /* {"TransactItems":[...]} : the old key's entry goes before the ']' */
    const char *end = strrchr(body->data, ']');
    if (!end) return DDBST_EINVAL;
    rc = ddbst__buf_append(out, body->data, (size_t)(end - body->data));
    rc = rc ? rc : old_entry(m, create, key, out);
    return rc ? rc : ddbst__buf_puts(out, end);
  }
  rc = ddbst__buf_puts(out, op == DDBST_OP_PUT_ITEM
                                ? "{\"TransactItems\":[{\"Put\":"
                                : "{\"TransactItems\":[{\"Delete\":");
  rc = rc ? rc : ddbst__buf_append(out, body->data, body->len);
  rc = rc ? rc : ddbst__buf_putc(out, '}');
  rc = rc ? rc : old_entry(m, create, key, out);
  return rc ? rc : ddbst__buf_puts(out, "]}");
}

/* The primary key of `it` copied into `b`: its text at *pk, *sk. */
static int primary_text(ddbst_item *it, ddbst_buf *b, size_t *pk, size_t *pkl,
                        size_t *sk, size_t *skl, ddbst_error *err) {
  uint32_t po, pl, so = 0, sl = 0;
  int rc = ddbst__render_primary(it, &po, &pl, &so, &sl, err);
  if (rc) return rc;
  *pk = b->len;
  *pkl = pl;
  rc = ddbst__buf_append(b, it->keytext.data + po, pl);
  *sk = b->len;
  *skl = sl;
  return rc ? rc : ddbst__buf_append(b, it->keytext.data + so, sl);
}

/* {"Delete":{...}} of a guard key `g`, held by the item under either of
 * its keys (h: new pk, new sk, old pk, old sk in `keys`). */
static int guard_delete(ddbst_migration *m, const char *g, size_t n,
                        const ddbst_buf *keys, const size_t h[8],
                        ddbst_buf *out) {
  const ddbst_model *nw = m->nw;
  int rc = ddbst__buf_puts(out, ",{\"Delete\":");
  rc = rc ? rc : ddbst__buf_append(out, nw->begin.p, nw->begin.n);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"Key\":{");
  rc = rc ? rc : ddbst__buf_append(out, nw->pk_jname.p, nw->pk_jname.n);
  rc = rc ? rc : ddbst__write_s(out, g, n);
  if (!rc && nw->sk_attr) {
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, nw->sk_jname.p, nw->sk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, g, n);
  }
  /* only a guard this item holds: a wrong value given must not free
   * another item's */
  rc = rc ? rc : ddbst__buf_puts(out, "},\"ConditionExpression\":\""
                                      "attribute_not_exists(#n0) OR #n1 = :v0 "
                                      "OR #n1 = :v1\",\"ExpressionAttributeNames"
                                      "\":{\"#n0\":");
  rc = rc ? rc : ddbst__json_string(out, nw->pk_attr, strlen(nw->pk_attr));
  rc = rc ? rc : ddbst__buf_puts(out, ",\"#n1\":\"holderKey\"},"
                                      "\"ExpressionAttributeValues\":{\":v0\":");
  const char *k = keys->data;
  rc = rc ? rc : ddbst__mig_holder_av(nw, k + h[0], h[1], k + h[2], h[3], out);
  rc = rc ? rc : ddbst__buf_puts(out, ",\":v1\":");
  rc = rc ? rc : ddbst__mig_holder_av(nw, k + h[4], h[5], k + h[6], h[7], out);
  return rc ? rc : ddbst__buf_puts(out, "}}}");
}

static int item_delete(ddbst_migration *m, const ddbst_buf *keys, size_t pk,
                       size_t pkl, size_t sk, size_t skl, ddbst_buf *out) {
  const ddbst_model *nw = m->nw;
  int rc = ddbst__buf_puts(out, "{\"Delete\":");
  rc = rc ? rc : ddbst__buf_append(out, nw->begin.p, nw->begin.n);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"Key\":{");
  rc = rc ? rc : ddbst__buf_append(out, nw->pk_jname.p, nw->pk_jname.n);
  rc = rc ? rc : ddbst__write_s(out, keys->data + pk, pkl);
  if (!rc && nw->sk_attr) {
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, nw->sk_jname.p, nw->sk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, keys->data + sk, skl);
  }
  return rc ? rc : ddbst__buf_puts(out, "}}}");
}

/* The delete of an item whose key moves: both its keys, and the guards it
 * holds under either model, conditional on being held by it. */
static int delete_both(ddbst_migration *m, ddbst_item *item, int oe,
                       ddbst_buf *out, ddbst_error *err) {
  ddbst_buf *keys = &m->keys;
  ddbst_buf_reset(keys);
  size_t h[8];
  int rc = old_values(m, item, oe, err);
  if (!rc) rc = primary_text(item, keys, &h[0], &h[1], &h[2], &h[3], err);
  if (!rc) rc = primary_text(m->oldit, keys, &h[4], &h[5], &h[6], &h[7], err);
  if (rc) return rc;
  rc = ddbst__buf_puts(out, "{\"TransactItems\":[");
  rc = rc ? rc : item_delete(m, keys, h[0], h[1], h[2], h[3], out);
  rc = rc ? rc : ddbst__buf_putc(out, ',');
  rc = rc ? rc : item_delete(m, keys, h[4], h[5], h[6], h[7], out);
  const ddbst__entity *e = &m->nw->entities[item->entity];
  for (int u = 0; u < e->nuniques && !rc; u++) {
    uint32_t go, gl;
    rc = ddbst__guard_key(item, &e->uniques[u], 0, &go, &gl, err);
    /* the guard key's text is copied first: the holder keys live in
     * `keys`, the guard's in the item */
    if (!rc) {
      size_t at = keys->len;
      rc = ddbst__buf_append(keys, item->keytext.data + go, gl);
      rc = rc ? rc : guard_delete(m, keys->data + at, gl, keys, h, out);
    }
  }
  return rc ? rc : ddbst__buf_puts(out, "]}");
}

int ddbst_migration_write_request(ddbst_migration *m, ddbst_item *item, int op,
                                  uint32_t flags, int64_t now_unix_us,
                                  ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !item || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "migration, item and out must not be NULL");
  if (item->m != m->nw)
    return ddbst__fail(err, DDBST_EINVAL, "item",
                       "the item is not of the migration's new model");
  if (op != DDBST_OP_PUT_ITEM && op != DDBST_OP_DELETE_ITEM)
    return ddbst__fail(err, DDBST_EINVAL, "op",
                       "the writer protocol's requests are a put "
                       "(DDBST_OP_PUT_ITEM) or a delete (DDBST_OP_DELETE_ITEM); "
                       "an update is the new model's own, without upsert");
  if (flags & DDBST_RETURN_MASK)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a write during a migration may be a transaction, "
                       "which returns no values (DDBST_RETURN_*)");
  int ne = item->entity;
  int oe = m->old_of_new[ne];
  if (op == DDBST_OP_DELETE_ITEM && m->moves[ne] && oe >= 0) {
    if (flags || item->has_expected_version)
      return ddbst__fail(err, DDBST_EINVAL, "flags",
                         "a delete of an item whose key moves removes both "
                         "its keys, whichever holds it: it takes no "
                         "DDBST_IF_EXISTS nor expected version");
    int rc = delete_both(m, item, oe, out, err);
    if (rc) {
      ddbst_buf_reset(out);
      if (rc == DDBST_ENOMEM) ddbst__fail(err, rc, NULL, NULL);
      return rc;
    }
    return DDBST_OP_TRANSACT_WRITE_ITEMS;
  }
  int rc = op == DDBST_OP_PUT_ITEM
               ? ddbst_put_request(item, flags, now_unix_us, out, err)
               : ddbst_delete_request(item, flags, out, err);
  if (rc < 0 || !m->moves[ne] || oe < 0) return rc;
  int body_op = rc;
  ddbst_buf *body = &m->expr, *old_key = &m->cond, *new_key = &m->keys;
  ddbst_buf_reset(body);
  ddbst_buf_reset(old_key);
  ddbst_buf_reset(new_key);
  rc = ddbst__buf_append(body, out->data, out->len);
  if (!rc) rc = old_values(m, item, oe, err);
  if (!rc) rc = ddbst__write_key(m->oldit, old_key, err);
  if (!rc) rc = ddbst__write_key(item, new_key, err);
  if (!rc && old_key->len == new_key->len &&
      memcmp(old_key->data, new_key->data, old_key->len) == 0)
    return body_op; /* these values render one key in both models */
  ddbst_buf_reset(out);
  if (!rc)
    rc = wrap(m, body_op, body, old_key,
              op == DDBST_OP_PUT_ITEM && (flags & DDBST_CREATE), out);
  if (rc) {
    ddbst_buf_reset(out);
    if (rc == DDBST_ENOMEM) ddbst__fail(err, rc, NULL, NULL);
    return rc;
  }
  return DDBST_OP_TRANSACT_WRITE_ITEMS;
}
