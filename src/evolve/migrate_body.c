/* The write that carries one stored item to the new model, conditional on
 * the item still being as it was read: an UpdateItem when its primary key
 * stays, a TransactWriteItems (Put under the new key, Delete of the old,
 * guards moved) when it moves, or when its unique guards move. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evolve/diff.h"
#include "evolve/migrate.h"
#include "item/attribute_value.h"
#include "request/guard.h"

/* DynamoDB's limit on one expression's text. */
enum { DDBST__EXPR_MAX = 4096 };

void ddbst__mexpr_init(ddbst_migration *m, ddbst__mexpr *x) {
  ddbst_buf_reset(&m->names);
  ddbst_buf_reset(&m->values);
  x->names = &m->names;
  x->values = &m->values;
  x->nm = m->nm;
  x->cap = m->cap_nm;
  x->nnames = x->nvalues = 0;
}

/* prefix and a placeholder's number (never negative): by hand, since
 * snprintf was half of a page's stepping. */
static int put_num(ddbst_buf *out, const char *prefix, int n) {
  char t[16];
  size_t k = sizeof t;
  unsigned v = (unsigned)n;
  do {
    t[--k] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  int rc = ddbst__buf_puts(out, prefix);
  return rc ? rc : ddbst__buf_append(out, t + k, sizeof t - k);
}

int ddbst__mexpr_name(ddbst__mexpr *x, const char *name, ddbst_buf *out) {
  int i = 0;
  while (i < x->nnames && strcmp(x->nm[i], name) != 0) i++;
  int rc = 0;
  if (i == x->nnames) {
    if (i >= x->cap) return DDBST_ERANGE;
    x->nm[x->nnames++] = name;
    if (i) rc = ddbst__buf_putc(x->names, ',');
    rc = rc ? rc : put_num(x->names, "\"#n", i);
    rc = rc ? rc : ddbst__buf_puts(x->names, "\":");
    rc = rc ? rc : ddbst__json_string(x->names, name, strlen(name));
  }
  return rc ? rc : put_num(out, "#n", i);
}

int ddbst__mexpr_value(ddbst__mexpr *x, ddbst_buf *out) {
  int i = x->nvalues++;
  int rc = i ? ddbst__buf_putc(x->values, ',') : 0;
  rc = rc ? rc : put_num(x->values, "\":v", i);
  rc = rc ? rc : ddbst__buf_puts(x->values, "\":");
  return rc ? rc : put_num(out, ":v", i);
}

int ddbst__mexpr_emit(const ddbst__mexpr *x, ddbst_buf *out) {
  int rc = 0;
  if (x->nnames) {
    rc = ddbst__buf_puts(out, ",\"ExpressionAttributeNames\":{");
    rc = rc ? rc : ddbst__buf_append(out, x->names->data, x->names->len);
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  if (!rc && x->nvalues) {
    rc = ddbst__buf_puts(out, ",\"ExpressionAttributeValues\":{");
    rc = rc ? rc : ddbst__buf_append(out, x->values->data, x->values->len);
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  return rc;
}

/* {"N":"<version read + 1>"} of the version the write checks. */
static int next_version(const ddbst_migration *m, ddbst_buf *out) {
  const ddbst__mraw *r = &m->raw[m->version_raw];
  long long v = strtoll(r->val, NULL, 10);
  char t[48];
  int n = snprintf(t, sizeof t, "{\"N\":\"%lld\"}", v < LLONG_MAX ? v + 1 : v);
  return ddbst__buf_append(out, t, (size_t)n);
}

static const char *version_name(const ddbst_migration *m) {
  const ddbst__entity *oe = &m->old->entities[m->oe];
  return oe->attrs[oe->version_attr].name;
}

/* `#n = :v` of stored attribute `ri`, its value as read. */
static int equals_read(ddbst_migration *m, ddbst__mexpr *x, int ri,
                       ddbst_buf *c) {
  int rc = ddbst__mexpr_name(x, m->raw[ri].name, c);
  rc = rc ? rc : ddbst__buf_puts(c, " = ");
  rc = rc ? rc : ddbst__mexpr_value(x, c);
  return rc ? rc : ddbst__mig_raw_av(x->values, &m->raw[ri]);
}

static int raw_has(const ddbst_migration *m, const char *name) {
  for (int i = 0; i < m->nraw; i++)
    if (strcmp(m->raw[i].name, name) == 0) return 1;
  return 0;
}

static int absent(ddbst_migration *m, ddbst__mexpr *x, const char *name,
                  ddbst_buf *c) {
  if (raw_has(m, name)) return 0;
  int rc = ddbst__buf_puts(c, " AND attribute_not_exists(");
  rc = rc ? rc : ddbst__mexpr_name(x, name, c);
  return rc ? rc : ddbst__buf_putc(c, ')');
}

/* The condition that the item is as it was read, into `c`: its version,
 * else every stored attribute equal to what was read and every attribute
 * the write or either model's entity could hold still absent. */
static int as_read(ddbst_migration *m, ddbst__mexpr *x, ddbst_buf *c) {
  if (m->version_raw >= 0) return equals_read(m, x, m->version_raw, c);
  int rc = ddbst__buf_puts(c, "attribute_exists(");
  rc = rc ? rc : ddbst__mexpr_name(x, m->nw->pk_attr, c);
  rc = rc ? rc : ddbst__buf_putc(c, ')');
  for (int i = 0; i < m->nraw && !rc; i++) {
    if (i == m->raw_pk || i == m->raw_sk || m->raw[i].type == DDBST__AV_NULL)
      continue;
    rc = ddbst__buf_puts(c, " AND ");
    rc = rc ? rc : equals_read(m, x, i, c);
  }
  for (int s = 0; s < m->nsets && !rc; s++)
    if (m->sets[s].key >= 0) rc = absent(m, x, m->sets[s].name, c);
  const ddbst__entity *ne = &m->nw->entities[m->ne];
  for (int a = 0; a < ne->nattrs && !rc; a++)
    rc = absent(m, x, ne->attrs[a].name, c);
  if (m->oe >= 0) {
    const ddbst__entity *oe = &m->old->entities[m->oe];
    for (int a = 0; a < oe->nattrs && !rc; a++)
      if (ddbst__diff_attr_of(ne, oe->attrs[a].name) < 0)
        rc = absent(m, x, oe->attrs[a].name, c);
  }
  if (!rc && c->len > DDBST__EXPR_MAX) rc = DDBST_ERANGE;
  return rc;
}

/* The AttributeValue of what the write sets for `s`. */
static int set_value(ddbst_migration *m, const ddbst__mset *s, ddbst_buf *b) {
  if (s->key >= 0) {
    const char *v;
    size_t n;
    ddbst_item_key(m->newit, s->key, NULL, &v, &n);
    return ddbst__write_s(b, v, n);
  }
  const ddbst__entity *e = &m->nw->entities[m->ne];
  size_t n = 0;
  const char *v = ddbst__item_text(m->newit, s->attr, &n);
  return ddbst__write_av(b, &e->attrs[s->attr], v, n);
}

int ddbst__mig_key_of_read(const ddbst_migration *m, ddbst_buf *out) {
  int rc = ddbst__buf_puts(out, ",\"Key\":{");
  rc = rc ? rc : ddbst__buf_append(out, m->nw->pk_jname.p, m->nw->pk_jname.n);
  rc = rc ? rc : ddbst__mig_raw_av(out, &m->raw[m->raw_pk]);
  if (!rc && m->raw_sk >= 0) {
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, m->nw->sk_jname.p, m->nw->sk_jname.n);
    rc = rc ? rc : ddbst__mig_raw_av(out, &m->raw[m->raw_sk]);
  }
  return rc ? rc : ddbst__buf_putc(out, '}');
}

/* The item's own entry: an Update of its attributes (or, with none to
 * change, a ConditionCheck that it is as read; `delete`: the Delete of
 * its old key), the body without the entry's wrapper. */
static int item_entry(ddbst_migration *m, int del, ddbst_buf *out) {
  ddbst__mexpr x;
  ddbst__mexpr_init(m, &x);
  ddbst_buf *e = &m->expr, *c = &m->cond;
  ddbst_buf_reset(e);
  ddbst_buf_reset(c);
  int rc = 0;
  if (!del) {
    const char *sep = "SET ";
    for (int s = 0; s < m->nsets && !rc; s++) {
      rc = ddbst__buf_puts(e, sep);
      rc = rc ? rc : ddbst__mexpr_name(&x, m->sets[s].name, e);
      rc = rc ? rc : ddbst__buf_puts(e, " = ");
      rc = rc ? rc : ddbst__mexpr_value(&x, e);
      rc = rc ? rc : set_value(m, &m->sets[s], x.values);
      sep = ", ";
    }
    if (!rc && m->version_raw >= 0 && (m->nsets || m->nremoves)) {
      /* a writer holding the version read is refused in turn */
      rc = ddbst__buf_puts(e, sep);
      rc = rc ? rc : ddbst__mexpr_name(&x, version_name(m), e);
      rc = rc ? rc : ddbst__buf_puts(e, " = ");
      rc = rc ? rc : ddbst__mexpr_value(&x, e);
      rc = rc ? rc : next_version(m, x.values);
    }
    sep = m->nsets || m->version_raw >= 0 ? " REMOVE " : "REMOVE ";
    for (int r = 0; r < m->nremoves && !rc; r++) {
      rc = ddbst__buf_puts(e, sep);
      rc = rc ? rc : ddbst__mexpr_name(&x, m->raw[m->removes[r]].name, e);
      sep = ", ";
    }
  }
  if (!rc) rc = as_read(m, &x, c);
  if (rc) return rc;
  rc = ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n);
  rc = rc ? rc : ddbst__mig_key_of_read(m, out);
  if (!rc && e->len) {
    rc = ddbst__buf_puts(out, ",\"UpdateExpression\":\"");
    rc = rc ? rc : ddbst__buf_append(out, e->data, e->len);
    rc = rc ? rc : ddbst__buf_putc(out, '"');
  }
  rc = rc ? rc : ddbst__buf_puts(out, ",\"ConditionExpression\":\"");
  rc = rc ? rc : ddbst__buf_append(out, c->data, c->len);
  rc = rc ? rc : ddbst__buf_putc(out, '"');
  rc = rc ? rc : ddbst__mexpr_emit(&x, out);
  return rc ? rc : ddbst__buf_putc(out, '}');
}

static int in_keys(const ddbst_migration *m, const char *name) {
  for (int i = 0; i < m->newit->nkeys; i++) {
    const char *kn;
    ddbst_item_key(m->newit, i, &kn, NULL, NULL);
    if (strcmp(kn, name) == 0) return 1;
  }
  return 0;
}

static int is_removed(const ddbst_migration *m, int ri) {
  for (int r = 0; r < m->nremoves; r++)
    if (m->removes[r] == ri) return 1;
  return 0;
}

/* {"Put":{...}} of the item under its new key: the new model's keys and
 * values, the stored attributes neither model declares as they were. */
static int put_entry(ddbst_migration *m, ddbst_buf *out) {
  const ddbst__entity *e = &m->nw->entities[m->ne];
  int rc = ddbst__buf_puts(out, "{\"Put\":");
  rc = rc ? rc : ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"Item\":{");
  int n = 0;
  for (int i = 0; i < m->newit->nkeys && !rc; i++) {
    const char *name, *v;
    size_t len;
    ddbst_item_key(m->newit, i, &name, &v, &len);
    if (n++) rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__json_string(out, name, strlen(name));
    rc = rc ? rc : ddbst__buf_putc(out, ':');
    rc = rc ? rc : ddbst__write_s(out, v, len);
  }
  int ver = e->version_attr;
  for (int a = 0; a < e->nattrs && !rc; a++) {
    size_t len;
    const char *v = ddbst__item_text(m->newit, a, &len);
    if (!v) continue;
    if (n++) rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, e->attrs[a].jname.p,
                                     e->attrs[a].jname.n);
    if (a == ver && m->version_raw >= 0)
      rc = rc ? rc : next_version(m, out);
    else
      rc = rc ? rc : ddbst__write_av(out, &e->attrs[a], v, len);
  }
  for (int i = 0; i < m->nraw && !rc; i++) {
    const ddbst__mraw *r = &m->raw[i];
    if (i == m->raw_pk || i == m->raw_sk || is_removed(m, i) ||
        in_keys(m, r->name) || ddbst__diff_attr_of(e, r->name) >= 0)
      continue;
    if (n++) rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__json_string(out, r->name, strlen(r->name));
    rc = rc ? rc : ddbst__buf_putc(out, ':');
    rc = rc ? rc : ddbst__mig_raw_av(out, r);
  }
  ddbst__mexpr x;
  ddbst__mexpr_init(m, &x);
  rc = rc ? rc : ddbst__buf_puts(out, "},\"ConditionExpression\":\"attribute_not_exists(");
  rc = rc ? rc : ddbst__mexpr_name(&x, m->nw->pk_attr, out);
  rc = rc ? rc : ddbst__buf_puts(out, ")\"");
  rc = rc ? rc : ddbst__mexpr_emit(&x, out);
  return rc ? rc : ddbst__buf_puts(out, "}}");
}

int ddbst__mig_holder_av(const ddbst_model *mm, const char *pk, size_t pkl,
                     const char *sk, size_t skl, ddbst_buf *b) {
  int rc = ddbst__buf_puts(b, "{\"M\":{");
  rc = rc ? rc : ddbst__buf_append(b, mm->pk_jname.p, mm->pk_jname.n);
  rc = rc ? rc : ddbst__write_s(b, pk, pkl);
  if (!rc && mm->sk_attr) {
    rc = ddbst__buf_putc(b, ',');
    rc = rc ? rc : ddbst__buf_append(b, mm->sk_jname.p, mm->sk_jname.n);
    rc = rc ? rc : ddbst__write_s(b, sk, skl);
  }
  return rc ? rc : ddbst__buf_puts(b, "}}");
}

typedef struct keys2 {
  const char *npk, *nsk, *opk, *osk;
  size_t npkl, nskl, opkl, oskl;
} keys2;

/* " OR #hk = :vN" of the holder `which` (0 new, 1 old). */
static int held_by(ddbst_migration *m, ddbst__mexpr *x, const keys2 *k,
                   int which, ddbst_buf *c) {
  int rc = ddbst__buf_puts(c, " OR ");
  rc = rc ? rc : ddbst__mexpr_name(x, "holderKey", c);
  rc = rc ? rc : ddbst__buf_puts(c, " = ");
  rc = rc ? rc : ddbst__mexpr_value(x, c);
  if (which == 0)
    return rc ? rc : ddbst__mig_holder_av(m->nw, k->npk, k->npkl, k->nsk, k->nskl,
                               x->values);
  return rc ? rc : ddbst__mig_holder_av(m->nw, k->opk, k->opkl, k->osk, k->oskl,
                             x->values);
}

/* A guard's entry: its Put held by the item's new key (`put`), or the
 * Delete of the guard the item held under the old model. */
static int guard_entry(ddbst_migration *m, const ddbst__unique *u,
                       const char *g, size_t n, int put, const keys2 *k,
                       ddbst_buf *out) {
  ddbst__mexpr x;
  ddbst__mexpr_init(m, &x);
  ddbst_buf *c = &m->cond;
  ddbst_buf_reset(c);
  int rc = ddbst__buf_puts(out, put ? "{\"Put\":" : "{\"Delete\":");
  rc = rc ? rc : ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n);
  if (put) {
    ddbst__holder h = {k->npk, k->nsk, k->npkl, k->nskl, 0};
    rc = rc ? rc : ddbst__buf_puts(out, ",\"Item\":");
    rc = rc ? rc : ddbst__guard_item(m->nw, u, g, n, &h, out);
  } else {
    rc = rc ? rc : ddbst__buf_puts(out, ",\"Key\":{");
    rc = rc ? rc : ddbst__buf_append(out, m->nw->pk_jname.p, m->nw->pk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, g, n);
    if (!rc && m->nw->sk_attr) {
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : ddbst__buf_append(out, m->nw->sk_jname.p,
                                       m->nw->sk_jname.n);
      rc = rc ? rc : ddbst__write_s(out, g, n);
    }
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  /* free, or already this item's (a pass run again), or (the old guard,
   * written before guards named their holder) nobody's to tell */
  rc = rc ? rc : ddbst__buf_puts(c, "attribute_not_exists(");
  rc = rc ? rc : ddbst__mexpr_name(&x, m->nw->pk_attr, c);
  rc = rc ? rc : ddbst__buf_putc(c, ')');
  rc = rc ? rc : held_by(m, &x, k, put ? 0 : 1, c);
  if (!rc && put && m->moved) rc = held_by(m, &x, k, 1, c);
  if (!rc && !put) {
    rc = ddbst__buf_puts(c, " OR attribute_not_exists(");
    rc = rc ? rc : ddbst__mexpr_name(&x, "holderKey", c);
    rc = rc ? rc : ddbst__buf_putc(c, ')');
  }
  rc = rc ? rc : ddbst__buf_puts(out, ",\"ConditionExpression\":\"");
  rc = rc ? rc : ddbst__buf_append(out, c->data, c->len);
  rc = rc ? rc : ddbst__buf_putc(out, '"');
  rc = rc ? rc : ddbst__mexpr_emit(&x, out);
  return rc ? rc : ddbst__buf_puts(out, "}}");
}

/* The old model's values of the item, for its old guard keys. */
static int fill_old(ddbst_migration *m) {
  const ddbst__entity *oe = &m->old->entities[m->oe];
  int rc = ddbst_item_reset(m->oldit, m->oe);
  for (int i = 0; i < m->nraw && !rc; i++) {
    const ddbst__mraw *r = &m->raw[i];
    int a = ddbst__diff_attr_of(oe, r->name);
    if (a < 0 || r->type == DDBST__AV_NULL || ddbst__av_is_container(r->type))
      continue;
    rc = ddbst_item_set(m->oldit, a, r->val, r->len, NULL);
    if (rc != DDBST_ENOMEM) rc = 0; /* a value it refuses: no guard */
  }
  return rc;
}

/* Guard key of unique `u` rendered from `it`, copied to m->keys at *off:
 * 1, 0 when the item holds no value for it. */
static int guard_key(ddbst_migration *m, ddbst_item *it, const ddbst__unique *u,
                     size_t *off, size_t *len) {
  uint32_t o, l;
  int rc = ddbst__guard_key(it, u, 0, &o, &l, NULL);
  if (rc == DDBST_ENOMEM) return rc;
  if (rc) return 0;
  *off = m->keys.len;
  *len = l;
  rc = ddbst__buf_append(&m->keys, it->keytext.data + o, l);
  return rc ? rc : 1;
}

static int guard_entries(ddbst_migration *m, const keys2 *k, ddbst_buf *out) {
  const ddbst__entity *ne = &m->nw->entities[m->ne];
  const ddbst__entity *oe = m->oe >= 0 ? &m->old->entities[m->oe] : NULL;
  int rc = oe ? fill_old(m) : 0;
  for (int ui = 0; ui < ne->nuniques && !rc; ui++) {
    const ddbst__unique *u = &ne->uniques[ui], *ou = NULL;
    for (int j = 0; oe && j < oe->nuniques; j++)
      if (strcmp(oe->uniques[j].name, u->name) == 0) ou = &oe->uniques[j];
    ddbst_buf_reset(&m->keys);
    size_t no = 0, nl = 0, oo = 0, ol = 0;
    int has_new = guard_key(m, m->newit, u, &no, &nl);
    int has_old = ou ? guard_key(m, m->oldit, ou, &oo, &ol) : 0;
    if (has_new < 0) return has_new;
    if (has_old < 0) return has_old;
    const char *g = m->keys.data;
    int same = has_new && has_old && nl == ol && !memcmp(g + no, g + oo, nl);
    if (same && !m->moved) continue;
    if (has_old && !same) {
      if (m->nentries >= DDBST__MIG_MAX_ENTRIES) return DDBST_ERANGE;
      m->entries[m->nentries++] = DDBST__ME_GUARD_DEL;
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : guard_entry(m, u, g + oo, ol, 0, k, out);
    }
    if (has_new && !rc) {
      if (m->nentries >= DDBST__MIG_MAX_ENTRIES) return DDBST_ERANGE;
      m->entries[m->nentries++] = DDBST__ME_GUARD_PUT;
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : guard_entry(m, u, m->keys.data + no, nl, 1, k, out);
    }
  }
  return rc;
}

/* The item's old and new primary keys; the new ones copied to m->a, as
 * rendering guard keys into the new item's key text may move it. */
static int the_keys(ddbst_migration *m, keys2 *out) {
  keys2 k = {0};
  const ddbst__mraw *pk = &m->raw[m->raw_pk];
  k.opk = pk->val;
  k.opkl = pk->len;
  if (m->raw_sk >= 0) {
    k.osk = m->raw[m->raw_sk].val;
    k.oskl = m->raw[m->raw_sk].len;
  }
  for (int i = 0; i < m->newit->nkeys; i++) {
    const char *name, *v;
    size_t n;
    ddbst_item_key(m->newit, i, &name, &v, &n);
    if (strcmp(name, m->nw->pk_attr) == 0) {
      k.npk = v;
      k.npkl = n;
    } else if (m->nw->sk_attr && strcmp(name, m->nw->sk_attr) == 0) {
      k.nsk = v;
      k.nskl = n;
    }
  }
  ddbst_buf_reset(&m->a);
  int rc = ddbst__buf_append(&m->a, k.npk, k.npkl);
  rc = rc ? rc : ddbst__buf_append(&m->a, k.nsk ? k.nsk : "", k.nskl);
  if (rc) return rc;
  k.npk = m->a.data;
  k.nsk = m->a.data + k.npkl;
  *out = k;
  return 0;
}

static int ensure_names(ddbst_migration *m) {
  int need = m->nraw + m->cap_sets + 8;
  if (need <= m->cap_nm) return 0;
  const char **nm = ddbst__realloc(&m->alloc, m->nm, (size_t)need * sizeof *nm);
  if (!nm) return DDBST_ENOMEM;
  m->nm = nm;
  m->cap_nm = need;
  return 0;
}

int ddbst__mig_write(ddbst_migration *m, ddbst_buf *out, ddbst_error *err) {
  ddbst_buf_reset(out);
  m->nentries = 0;
  int rc = ensure_names(m);
  if (rc) return ddbst__fail(err, rc, NULL, NULL);
  int op;
  if (!m->moved && !m->guards_move) {
    op = DDBST_OP_UPDATE_ITEM;
    rc = item_entry(m, 0, out);
  } else {
    op = DDBST_OP_TRANSACT_WRITE_ITEMS;
    keys2 k;
    rc = the_keys(m, &k);
    rc = rc ? rc : ddbst__buf_puts(out, "{\"TransactItems\":[");
    if (m->moved) {
      m->entries[m->nentries++] = DDBST__ME_ITEM_PUT;
      m->entries[m->nentries++] = DDBST__ME_ITEM_OLD;
      rc = rc ? rc : put_entry(m, out);
      rc = rc ? rc : ddbst__buf_puts(out, ",{\"Delete\":");
      rc = rc ? rc : item_entry(m, 1, out);
    } else {
      m->entries[m->nentries++] = DDBST__ME_ITEM_OLD;
      int upd = m->nsets || m->nremoves;
      rc = rc ? rc : ddbst__buf_puts(out, upd ? "{\"Update\":"
                                              : "{\"ConditionCheck\":");
      rc = rc ? rc : item_entry(m, 0, out);
    }
    rc = rc ? rc : ddbst__buf_putc(out, '}');
    rc = rc ? rc : guard_entries(m, &k, out);
    rc = rc ? rc : ddbst__buf_puts(out, "]}");
  }
  if (rc) {
    ddbst_buf_reset(out);
    if (rc == DDBST_ERANGE)
      return ddbst__fail(err, rc, NULL,
                         "the item's write passes DynamoDB's limits (an "
                         "expression over 4 KB: give the entity a version "
                         "attribute, which conditions are made of alone)");
    return ddbst__fail(err, rc, NULL, NULL);
  }
  return op;
}
