/* Unique constraints: a unique attribute is kept unique by a guard item
 * whose key is the attribute's value ("EMAIL#ann@example.com"), written and
 * removed in the same TransactWriteItems as the item (transact.c), each
 * conditional. Here: the guard's key, its entry, and the conditions an
 * update that moves a guard adds to the item's own entry. */
#include <stdio.h>
#include <string.h>

#include "request/guard.h"

static int facet_changed(const ddbst_item *it, int a) {
  const ddbst__val *v = &it->vals[a];
  return (v->set && v->upd == DDBST__UPD_SET) || v->upd == DDBST__UPD_REMOVE;
}

/* Whether unique `u` moves in this update: a facet that is not part of the
 * primary key is set or removed. */
int ddbst__unique_moves(const ddbst_item *it, const ddbst__unique *u) {
  const ddbst__entity *e = ddbst__entity_of(it);
  for (int i = 0; i < u->tmpl.nsegs; i++) {
    int a = u->tmpl.segs[i].attr;
    if (a >= 0 && !e->attrs[a].primary_facet && facet_changed(it, a))
      return 1;
  }
  return 0;
}

int ddbst__unique_removed(const ddbst_item *it, const ddbst__unique *u) {
  for (int i = 0; i < u->tmpl.nsegs; i++) {
    int a = u->tmpl.segs[i].attr;
    if (a >= 0 && it->vals[a].upd == DDBST__UPD_REMOVE)
      return 1;
  }
  return 0;
}

int ddbst__unique_conditions_needed(const ddbst_item *it) {
  const ddbst__entity *e = ddbst__entity_of(it);
  for (int i = 0; i < e->nuniques; i++)
    if (ddbst__unique_moves(it, &e->uniques[i]))
      return 1;
  return 0;
}

int ddbst__unique_conditions(ddbst_item *it, int and, ddbst_buf *out) {
  const ddbst__entity *e = ddbst__entity_of(it);
  int rc = 0;
  for (int i = 0; !rc && i < e->nuniques; i++) {
    const ddbst__unique *u = &e->uniques[i];
    if (!ddbst__unique_moves(it, u))
      continue;
    for (int s = 0; !rc && s < u->tmpl.nsegs; s++) {
      int a = u->tmpl.segs[s].attr;
      if (a < 0 || e->attrs[a].primary_facet || !it->prev[a].set)
        continue;
      if (and)
        rc = ddbst__buf_puts(out, " AND ");
      and = 1;
      rc = rc ? rc : ddbst__expr_name(it, e->attrs[a].name, out);
      rc = rc ? rc : ddbst__buf_puts(out, " = ");
      ddbst__vref r = {DDBST__REF_PREV, a, 0, 0, NULL};
      rc = rc ? rc : ddbst__expr_value(it, r, out);
    }
  }
  return rc;
}

/* Renders unique `u`'s guard key into keytext: from the values the item
 * will hold (`old` 0) or held before the update (`old` 1). A facet the
 * update leaves alone reads the same either way: its value, else its
 * previous value. */
int ddbst__guard_key(ddbst_item *it, const ddbst__unique *u, int old,
                     uint32_t *off, uint32_t *len, ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  ddbst__val saved[DDBST__MAX_FACETS];
  int attrs[DDBST__MAX_FACETS];
  int n = 0, rc = 0;
  char path[DDBST_ERROR_PATH_MAX];
  for (int i = 0; i < u->tmpl.nsegs; i++) {
    int a = u->tmpl.segs[i].attr;
    if (a >= 0 && !e->attrs[a].primary_facet) {
      attrs[n] = a;
      saved[n++] = it->vals[a];
    }
  }
  for (int i = 0; i < n && !rc; i++) {
    int a = attrs[i];
    int changed = facet_changed(it, a);
    int use_prev = old ? changed || !it->vals[a].set : !it->vals[a].set;
    if (!use_prev)
      continue;
    if (!it->prev[a].set) {
      snprintf(path, sizeof path, "%s.%s", e->name, e->attrs[a].name);
      rc = changed ? ddbst__fail(err, DDBST_EMISSING, path,
                                 "changing %s.%s moves its unique guard %s: "
                                 "give the previous value too "
                                 "(ddbst_item_set_previous)",
                                 e->name, e->attrs[a].name, u->name)
                   : ddbst__fail(err, DDBST_EMISSING, path,
                                 "the unique guard %s of %s needs %s", u->name,
                                 e->name, e->attrs[a].name);
      break;
    }
    it->vals[a] = it->prev[a];
    it->vals[a].upd = DDBST__UPD_SET;
  }
  if (!rc) {
    size_t limit = m->sk_attr ? DDBST__SK_MAX : DDBST__PK_MAX;
    /* errors name the guard by its constraint ("email") */
    rc = ddbst__render_into(it, &u->tmpl, u->name, limit, off, len, err);
  }
  for (int i = 0; i < n; i++)
    it->vals[attrs[i]] = saved[i];
  return rc;
}

static int key_map(const ddbst_model *m, const char *g, size_t n,
                   ddbst_buf *out) {
  int rc = ddbst__buf_putc(out, '{');
  rc = rc ? rc : ddbst__buf_append(out, m->pk_jname.p, m->pk_jname.n);
  rc = rc ? rc : ddbst__write_s(out, g, n);
  if (!rc && m->sk_attr) {
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, m->sk_jname.p, m->sk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, g, n);
  }
  return rc;
}

/* Writes `jname` and {"S":"v"} at o; returns the end. The name is in the
 * model's arena (padded); v is the caller's. */
static char *put_key_member(char *o, const ddbst__jtext *jname, const char *v,
                            size_t n) {
  ddbst__copy_padded(o, jname->p, jname->n);
  return ddbst__put_s(o + jname->n, v, n);
}

/* ddbst__guard_item when no text needs an escape: one reservation, then
 * the same bytes as the general writer's. */
static int guard_item_plain(const ddbst_model *m, const ddbst__unique *u,
                            const char *g, size_t n, const ddbst__holder *h,
                            ddbst_buf *out) {
  static const char holder_head[] = ",\"holderKey\":{\"M\":{";
  size_t pk = m->pk_jname.n + 8, sk = m->sk_attr ? 1 + m->sk_jname.n + 8 : 0;
  size_t need = 1 + pk + n + (sk ? sk + n : 0) +
                (m->entity_attr ? 1 + m->entity_jname.n + u->owner.n : 0) +
                sizeof holder_head - 1 + pk + h->pk_len +
                (sk ? sk + h->sk_len : 0) + 3;
  if (ddbst__buf_reserve(out, need)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  *o++ = '{';
  o = put_key_member(o, &m->pk_jname, g, n);
  if (m->sk_attr) {
    *o++ = ',';
    o = put_key_member(o, &m->sk_jname, g, n);
  }
  if (m->entity_attr) {
    *o++ = ',';
    ddbst__copy_padded(o, m->entity_jname.p, m->entity_jname.n);
    o += m->entity_jname.n;
    ddbst__copy_padded(o, u->owner.p, u->owner.n);
    o += u->owner.n;
  }
  memcpy(o, holder_head, sizeof holder_head - 1);
  o = put_key_member(o + sizeof holder_head - 1, &m->pk_jname, h->pk,
                     h->pk_len);
  if (m->sk_attr) {
    *o++ = ',';
    o = put_key_member(o, &m->sk_jname, h->sk, h->sk_len);
  }
  memcpy(o, "}}}", 4);
  out->len = (size_t)(o + 3 - out->data);
  return 0;
}

int ddbst__guard_item(const ddbst_model *m, const ddbst__unique *u,
                      const char *g, size_t n, const ddbst__holder *holder,
                      ddbst_buf *out) {
  if (holder->plain) return guard_item_plain(m, u, g, n, holder, out);
  int rc = key_map(m, g, n, out);
  if (!rc && m->entity_attr) {
    /* the guard says whose it is: "User.email" */
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, m->entity_jname.p, m->entity_jname.n);
    rc = rc ? rc : ddbst__buf_append(out, u->owner.p, u->owner.n);
  }
  /* and which item holds it: a guard whose holder is gone is an orphan */
  if (!rc) rc = ddbst__buf_puts(out, ",\"holderKey\":{\"M\":{");
  rc = rc ? rc : ddbst__buf_append(out, m->pk_jname.p, m->pk_jname.n);
  rc = rc ? rc : ddbst__write_s(out, holder->pk, holder->pk_len);
  if (!rc && m->sk_attr) {
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, m->sk_jname.p, m->sk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, holder->sk, holder->sk_len);
  }
  rc = rc ? rc : ddbst__buf_puts(out, "}}");
  return rc ? rc : ddbst__buf_putc(out, '}');
}

/* The key named `jname` in the item's key list, which describes the
 * values it holds now (setting any value empties it): 1 found. */
static int built_key(const ddbst_item *it, const ddbst__jtext *jname,
                     uint32_t *off, uint32_t *len, int *plain) {
  for (int k = 0; jname && k < it->nkeys; k++)
    if (it->keys[k].jname == jname) {
      *off = it->keys[k].off;
      *len = it->keys[k].len;
      *plain = it->keys[k].plain;
      return 1;
    }
  return 0;
}

/* Unique `u`'s guard key from the index key the item's body just built
 * with the same template (ddbst__unique.same_key), when every facet it
 * reads is the item's value and the key fits a guard's limit: 1 found. */
static int built_guard_key(const ddbst_item *it, const ddbst__unique *u,
                           uint32_t *off, uint32_t *len, int *plain) {
  for (int i = 0; i < u->tmpl.nsegs; i++) {
    int a = u->tmpl.segs[i].attr;
    if (a >= 0 && (!it->vals[a].set || it->vals[a].upd != DDBST__UPD_SET))
      return 0;
  }
  size_t limit = it->m->sk_attr ? DDBST__SK_MAX : DDBST__PK_MAX;
  return built_key(it, u->same_key, off, len, plain) && *len <= limit;
}

/* The holder's primary key, rendered after the guard's (or as the item's
 * body built it) and copied out: the key text grows while the entry is
 * written. */
static int holder_key(ddbst_item *it, char *pk, char *sk, ddbst__holder *h,
                      ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  uint32_t po, pl, so = 0, sl = 0;
  int rc = 0, pk_plain = 0, sk_plain = 1;
  if (!built_key(it, &m->pk_jname, &po, &pl, &pk_plain) ||
      (m->sk_attr && !built_key(it, &m->sk_jname, &so, &sl, &sk_plain))) {
    pk_plain = 0; /* rendered here: not known */
    rc = ddbst__render_into(it, &e->key.pk, m->pk_attr, DDBST__PK_MAX, &po,
                            &pl, err);
    if (!rc && m->sk_attr)
      rc = ddbst__render_into(it, &e->key.sk, m->sk_attr, DDBST__SK_MAX, &so,
                              &sl, err);
  }
  if (rc) return rc;
  memcpy(pk, it->keytext.data + po, pl);
  if (sl) memcpy(sk, it->keytext.data + so, sl);
  *h = (ddbst__holder){pk, sk, pl, sl, pk_plain && sk_plain};
  return 0;
}

/* {"Put":{...guard item...}} conditional on no such guard, or
 * {"Delete":{...}} of the guard. */
int ddbst__guard_entry(ddbst_item *it, const ddbst__unique *u, int put, int old,
                       ddbst_buf *out, ident_fn ident, void *user,
                       ddbst_error *err) {
  const ddbst_model *m = it->m;
  uint32_t off, len;
  int rc = 0, g_plain = 0;
  if (old || !built_guard_key(it, u, &off, &len, &g_plain)) {
    g_plain = 0; /* rendered here: not known */
    rc = ddbst__guard_key(it, u, old, &off, &len, err);
  }
  if (rc)
    return rc;
  /* copy: keytext grows while the entry is written */
  char g[DDBST__PK_MAX + 1];
  memcpy(g, it->keytext.data + off, len);
  if (ident && (rc = ident(user, g, len, m->sk_attr ? g : NULL, len, err)))
    return rc;
  ddbst__expr_reset(it);
  rc = ddbst__buf_puts(out, put ? "{\"Put\":" : "{\"Delete\":");
  rc = rc ? rc : ddbst__begin(out, m);
  rc = rc ? rc : ddbst__buf_puts(out, put ? ",\"Item\":" : ",\"Key\":");
  char hpk[DDBST__PK_MAX], hsk[DDBST__SK_MAX];
  ddbst__holder holder;
  if (put && !rc) rc = holder_key(it, hpk, hsk, &holder, err);
  if (put && !rc) holder.plain &= g_plain;
  if (put)
    rc = rc ? rc : ddbst__guard_item(m, u, g, len, &holder, out);
  else
    rc = rc ? rc : key_map(m, g, len, out);
  if (!rc && !put) rc = ddbst__buf_putc(out, '}');
  if (!rc && put) {
    rc = ddbst__buf_puts(out,
                         ",\"ConditionExpression\":\"attribute_not_exists(");
    rc = rc ? rc : ddbst__expr_name(it, m->pk_attr, out);
    rc = rc ? rc : ddbst__buf_puts(out, ")\"");
    rc = rc ? rc : ddbst__expr_emit(it, out);
  }
  return rc ? rc : ddbst__buf_puts(out, "}}");
}
