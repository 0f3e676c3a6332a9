/* Cursors of queries on a native (multi-attribute) index: its
 * LastEvaluatedKey holds the table's keys (strings ddbst wrote) and the
 * index's attributes (the item's own values, typed S, N or B). The
 * partition attributes are the query's: the cursor is bound to them (the
 * context's partition is their length-prefixed values,
 * item/native_keys.h) and does not carry them; the table's keys and
 * the sort attributes are carried as text, in the index's order. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"
#include "item/attribute_value.h"
#include "item/native_keys.h"

/* The LastEvaluatedKey's attributes of native index key `k`, in the
 * order the cursor carries them after the partition attributes: the
 * table's partition and sort key, then the sort attributes. names[0..np)
 * are the partition attributes. Returns the count. */
static int lek_names(const ddbst_model *m, const ddbst__entity *e,
                     const ddbst__ekey *k, const char **names, int *np) {
  int n = 0;
  for (int i = 0; i < k->pk.nsegs; i++) names[n++] = e->attrs[k->pk.segs[i].attr].name;
  *np = n;
  names[n++] = m->pk_attr;
  if (m->sk_attr) names[n++] = m->sk_attr;
  for (int i = 0; i < k->sk.nsegs; i++) names[n++] = e->attrs[k->sk.segs[i].attr].name;
  return n;
}

int ddbst__native_cursor_seal(const ddbst_cursor_keys *keys, ddbst_item *it,
                              const ddbst__pattern *p,
                              const char *const *names,
                              const char *const *vals, const size_t *lens,
                              int n, int64_t now_us, ddbst_buf *out,
                              ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  if (!k)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "entity %s has no key in the index pattern %s reads",
                       e->name, p->name);
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  uint32_t po, pl;
  int rc = ddbst__native_partition(it, k, &po, &pl, err);
  if (rc) return rc;
  view part = {it->keytext.data + po, pl};

  const char *want[2 + 8];
  int np;
  int nw = lek_names(m, e, k, want, &np);
  view v[2 + 8];
  int seen[2 + 8] = {0};
  for (int i = 0; i < n; i++) {
    int a = 0;
    while (a < nw && strcmp(names[i], want[a])) a++;
    if (a == nw)
      return ddbst__cursor_lek_fail(err, names[i],
                      "%s is not a key attribute of pattern %s's "
                      "LastEvaluatedKey",
                      names[i], p->name);
    if (seen[a]) return ddbst__cursor_lek_fail(err, names[i], "%s appears twice", names[i]);
    seen[a] = 1;
    v[a] = (view){vals[i], lens[i]};
    size_t limit = a == np ? DDBST__PK_MAX : DDBST__SK_MAX;
    if (!vals[i] || lens[i] == 0 || lens[i] > limit ||
        ddbst__utf8_check(vals[i], lens[i]))
      return ddbst__cursor_lek_fail(err, names[i],
                      "%s is not a key value DynamoDB could return (empty, "
                      "too long or not UTF-8)",
                      names[i]);
  }
  for (int a = 0; a < nw; a++)
    if (!seen[a])
      return ddbst__cursor_lek_fail(err, want[a], "%s is missing (pattern %s)", want[a],
                      p->name);
  for (int a = 0; a < np; a++) {
    const ddbst__val *val = &it->vals[k->pk.segs[a].attr];
    if (!view_eq(v[a], (view){it->text.data + val->off, val->len}))
      return ddbst__cursor_lek_fail(err, want[a],
                      "%s is not the partition this query read (pattern %s)",
                      want[a], p->name);
  }
  if (!ddbst__cursor_model_fits(m, -1, ROLE_PK, v[np]) ||
      (m->sk_attr && !ddbst__cursor_model_fits(m, -1, ROLE_SK, v[np + 1])))
    return ddbst__cursor_lek_fail(err, NULL,
                    "the LastEvaluatedKey is no key of pattern %s's "
                    "entities",
                    p->name);

  int flags;
  int64_t issued;
  uint8_t env[ENV_MAX];
  cw w;
  rc = ddbst__cursor_start(keys, now_us, env, &w, &issued, &flags, err);
  if (rc) return rc;
  cw_array(&w, (size_t)(issued >= 0) + (size_t)(nw - np));
  if (issued >= 0) cw_uint(&w, (uint64_t)issued);
  for (int a = np; a < nw; a++) cw_text(&w, v[a].p, v[a].n);
  if (w.full)
    return ddbst__fail(err, DDBST_ERANGE, "LastEvaluatedKey",
                       "the cursor would pass %d characters",
                       DDBST__CURSOR_MAX_CHARS);
  return ddbst__cursor_finish(keys, m, p, part, flags, env, w.len, out, err);
}

/* "name":{AV} of attribute `a`'s value v, after `{` or `,`. */
static int put_av(ddbst_buf *out, int first, const ddbst__attr *a, view v) {
  int rc = ddbst__buf_putc(out, first ? '{' : ',');
  rc = rc ? rc : ddbst__json_string(out, a->name, strlen(a->name));
  rc = rc ? rc : ddbst__buf_putc(out, ':');
  return rc ? rc : ddbst__write_av(out, a, v.p, v.n);
}

static int put_s(ddbst_buf *out, const char *name, view v) {
  int rc = ddbst__buf_putc(out, ',');
  rc = rc ? rc : ddbst__json_string(out, name, strlen(name));
  rc = rc ? rc : ddbst__buf_putc(out, ':');
  return rc ? rc : ddbst__write_s(out, v.p, v.n);
}

int ddbst__native_cursor_keys(const ddbst_model *m, const ddbst__pattern *p,
                              view part, const dec *d, int at, ddbst_buf *out,
                              ddbst_error *err) {
  const ddbst__entity *e = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  const ddbst__index *ix = &m->indexes[p->index];
  const char *want[2 + 8];
  int np;
  int nw = lek_names(m, e, k, want, &np);
  if (d->n - at != nw - np)
    return ddbst__cursor_refuse(err,
                                "the cursor holds %d values, where pattern "
                                "%s's cursor holds %d",
                                d->n - at, p->name, nw - np);
  /* the partition attributes, from the query's own values */
  const char *s = part.p, *end = part.p + part.n;
  for (int a = 0; a < np; a++) {
    size_t len = 0;
    while (s < end && *s >= '0' && *s <= '9') len = len * 10 + (size_t)(*s++ - '0');
    if (s >= end || *s++ != ':' || len > (size_t)(end - s))
      return ddbst__fail(err, DDBST_EINVAL, NULL, "the partition is malformed");
    if (put_av(out, a == 0, &e->attrs[k->pk.segs[a].attr], (view){s, len}))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    s += len;
  }
  for (int a = np; a < nw; a++) {
    const citem *c = &d->it[at + a - np];
    view v = {(const char *)c->p, c->n};
    size_t limit = a == np ? DDBST__PK_MAX : DDBST__SK_MAX;
    if (c->kind != K_TEXT || c->n == 0 || c->n > limit ||
        ddbst__utf8_check(v.p, v.n))
      return ddbst__cursor_refuse(err,
                                  "the cursor's %s is no key value (a "
                                  "non-empty UTF-8 string of at most %zu "
                                  "bytes)",
                                  want[a], limit);
    int rc;
    int table_key = a - np < (m->sk_attr ? 2 : 1);
    if (table_key) {
      int role = a == np ? ROLE_PK : ROLE_SK;
      if (!ddbst__cursor_model_fits(m, -1, role, v))
        return ddbst__cursor_refuse(err, "the cursor's %s is no key of the "
                                         "model",
                                    want[a]);
      rc = put_s(out, want[a], v);
    } else {
      int s_i = a - np - (m->sk_attr ? 2 : 1);
      if (ix->types[ix->npk + s_i] == 'N' && !ddbst__cursor_number_text(v.p, v.n))
        return ddbst__cursor_refuse(err, "the cursor's %s is no number",
                                    want[a]);
      rc = put_av(out, 0, &e->attrs[k->sk.segs[s_i].attr], v);
    }
    if (rc) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  if (ddbst__buf_putc(out, '}'))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}
