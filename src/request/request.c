/* Request bodies for single items (GetItem, PutItem, UpdateItem, DeleteItem),
 * in DynamoDB's JSON protocol: the bodies the single requests
 * (item_request.c) and transactions (transact.c) are made of. Each appends
 * one complete body or nothing; a warm item and buffer do not allocate. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"
#include "request/expr.h"
#include "model/facet.h"
#include "item/itemsize.h"
#include "item/keys.h"
#include "request/request.h"
#include "base/bytes.h"

int ddbst__write_key_sized(ddbst_item *it, ddbst_buf *out, size_t *bytes,
                           ddbst_error *err) {
  const ddbst_model *m = it->m;
  size_t size = 0;
  int rc = ddbst__primary_av_simple(it, out, &size);
  if (rc < 0) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (rc) { /* as rendering it would leave the item: no other key kept */
    ddbst_buf_reset(&it->keytext);
    it->nkeys = 0;
    if (bytes) *bytes = size;
    return 0;
  }
  uint32_t po, pl, so, sl;
  rc = ddbst__render_primary(it, &po, &pl, &so, &sl, err);
  if (rc) return rc;
  if (bytes) *bytes = m->pk_jname.raw_len + m->sk_jname.raw_len + pl + sl;
  rc = ddbst__buf_putc(out, '{');
  if (!rc) rc = ddbst__buf_append(out, m->pk_jname.p, m->pk_jname.n);
  if (!rc) rc = ddbst__write_s(out, it->keytext.data + po, pl);
  if (!rc && m->sk_attr) {
    rc = ddbst__buf_putc(out, ',');
    if (!rc) rc = ddbst__buf_append(out, m->sk_jname.p, m->sk_jname.n);
    if (!rc) rc = ddbst__write_s(out, it->keytext.data + so, sl);
  }
  if (!rc) rc = ddbst__buf_putc(out, '}');
  if (rc) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}

int ddbst__write_key(ddbst_item *it, ddbst_buf *out, ddbst_error *err) {
  return ddbst__write_key_sized(it, out, NULL, err);
}

/* The user's condition after ddbst's own (written from `start`, the first
 * byte of the expression's text; `own` says whether there are any): when
 * both are there each goes in parentheses, so neither changes the
 * other's meaning. */
static int user_condition(ddbst_item *it, ddbst_buf *out, size_t start,
                          int own, ddbst_error *err) {
  if (!it->cond) return 0;
  int rc = 0;
  if (own) {
    if (ddbst__buf_reserve(out, 8)) return DDBST_ENOMEM;
    memmove(out->data + start + 1, out->data + start, out->len - start);
    out->data[start] = '(';
    out->len++;
    rc = ddbst__buf_puts(out, ") AND (");
  }
  rc = rc ? rc : ddbst__xwrite_cond(it, it->cond, out, err);
  return rc || !own ? rc : ddbst__buf_putc(out, ')');
}

/* What a request that is not an update refuses of the item: update
 * actions (and, for a read, a condition). */
static int refuse_update_parts(const ddbst_item *it, const char *what,
                               int cond_too, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  if (it->update)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "update actions are for an update, not a %s", what);
  if (cond_too && it->cond)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "a %s takes no condition (a query takes a filter)",
                       what);
  return 0;
}

/* ,"ReturnValues":"..." (`allowed`: the DDBST_RETURN_* values this write
 * takes) and ,"ReturnValuesOnConditionCheckFailure":"ALL_OLD". */
DDBST__NOINLINE static int returns_given(const ddbst_item *it, uint32_t flags,
                                         const char *what, int updates,
                                         ddbst_buf *out, ddbst_error *err) {
  static const char *const names[] = {NULL, "ALL_OLD", "UPDATED_OLD",
                                      "ALL_NEW", "UPDATED_NEW"};
  unsigned r = (flags & DDBST_RETURN_MASK) >> 8;
  if (r > 4)
    return ddbst__fail(err, DDBST_EINVAL, ddbst__entity_of(it)->name,
                       "unknown DDBST_RETURN_* value 0x%x",
                       (unsigned)(flags & DDBST_RETURN_MASK));
  if (r > 1 && !updates)
    return ddbst__fail(err, DDBST_EINVAL, ddbst__entity_of(it)->name,
                       "a %s returns the item as it was (return ALL_OLD, "
                       "--return old or DDBST_RETURN_ALL_OLD) "
                       "or nothing",
                       what);
  int rc = 0;
  if (r) {
    rc = ddbst__buf_puts(out, ",\"ReturnValues\":\"");
    rc = rc ? rc : ddbst__buf_puts(out, names[r]);
    rc = rc ? rc : ddbst__buf_putc(out, '"');
  }
  if (!rc && (flags & DDBST_RETURN_OLD_ON_FAILURE))
    rc = ddbst__buf_puts(out,
                         ",\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"");
  return rc;
}

/* Nearly every write asks for no return values: that case costs no call. */
static inline int write_returns(const ddbst_item *it, uint32_t flags,
                                const char *what, int updates, ddbst_buf *out,
                                ddbst_error *err) {
  if (!(flags & (DDBST_RETURN_MASK | DDBST_RETURN_OLD_ON_FAILURE))) return 0;
  return returns_given(it, flags, what, updates, out, err);
}

/* Keeps the caller's buffer whole: on failure, cut back to where the body
 * began and report. */
int ddbst__abandon(ddbst_buf *out, size_t start, int rc, ddbst_error *err) {
  ddbst__buf_truncate(out, start);
  if (rc == DDBST_ENOMEM)
    return ddbst__fail(err, rc, NULL, "out of memory");
  /* Placeholder capacity is sized for the entity at item creation; running
   * out means a bug, reported rather than written half. */
  if (rc == DDBST_ERANGE && err && err->code != DDBST_ERANGE)
    return ddbst__fail(err, rc, NULL, "too many expression placeholders");
  return rc;
}

/* ---- GetItem ---- */

int ddbst__write_projection(ddbst_item *it, const char *const *keys,
                             int nkeys, ddbst_buf *out) {
  if (!it->nprojected) return 0;
  const ddbst__entity *e = ddbst__entity_of(it);
  int rc = ddbst__buf_puts(out, ",\"ProjectionExpression\":\"");
  int first = 1;
  /* the keys and the entity type always come back: they say what the item
   * is and where the next page starts */
  for (int i = 0; !rc && i < nkeys; i++) {
    if (!keys[i]) continue;
    if (!first) rc = ddbst__buf_puts(out, ", ");
    first = 0;
    rc = rc ? rc : ddbst__expr_name(it, keys[i], out);
  }
  for (int a = 0; !rc && a < e->nattrs; a++) {
    if (!it->projected[a]) continue;
    if (!first) rc = ddbst__buf_puts(out, ", ");
    first = 0;
    rc = rc ? rc : ddbst__expr_name(it, e->attrs[a].name, out);
  }
  return rc ? rc : ddbst__buf_putc(out, '"');
}

int ddbst__get_body(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                    ddbst_error *err) {
  const ddbst_model *m = it->m;
  const char *keys[] = {m->pk_attr, m->sk_attr, m->entity_attr};
  ddbst__expr_reset(it);
  int rc = refuse_update_parts(it, "get", 1, err);
  if (rc) return rc;
  rc = ddbst__begin(out, m);
  if (!rc) rc = ddbst__buf_puts(out, ",\"Key\":");
  if (!rc) rc = ddbst__write_key(it, out, err);
  if (!rc) rc = ddbst__write_projection(it, keys, 3, out);
  if (!rc) rc = ddbst__expr_emit(it, out);
  if (!rc && (flags & DDBST_CONSISTENT_READ))
    rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc;
}

/* ---- PutItem ---- */

/* The version an insert starts at, and the one after an expected version. */
static int store_version(ddbst_item *it, int attr, int64_t v) {
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  return ddbst__item_store(it, attr, tmp, (size_t)n);
}

/* ,"name":{"S":"v"} (the comma unless first) in one reservation, for text
 * that needs no JSON escape: most members of every item are keys and short
 * strings, and three appends each cost more than the copies. */
static int put_s_member(ddbst_buf *out, int first, const ddbst__jtext *name,
                        const char *v, size_t n) {
  if (ddbst__buf_reserve(out, 1 + name->n + 8 + n)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  *o = ',';
  o += !first;
  /* the name (the arena) and the value (the item's text or key text) are
   * padded */
  ddbst__copy_padded(o, name->p, name->n);
  out->len = (size_t)(ddbst__put_s_padded(o + name->n, v, n) - out->data);
  return 0;
}

/* Writes the whole item: its keys (primary, the indexes it is in, the entity
 * type), then every set attribute in declaration order. */
int ddbst__write_item(ddbst_item *it, ddbst_buf *out, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  int n = ddbst_item_build_keys(it, err);
  if (n < 0) return n;
  size_t size = ddbst__item_size(it);
  if (size > DDBST__ITEM_MAX) return ddbst__item_too_big(e, size, err);
  int rc = ddbst__buf_putc(out, '{');
  for (int i = 0; !rc && i < n; i++) {
    const ddbst__keyval *kv = &it->keys[i];
    const char *v = it->keytext.data + kv->off;
    if (kv->plain) {
      rc = put_s_member(out, i == 0, kv->jname, v, kv->len);
      continue;
    }
    if (i) rc = ddbst__buf_putc(out, ',');
    if (!rc) rc = ddbst__buf_append(out, kv->jname->p, kv->jname->n);
    if (!rc) rc = ddbst__write_s(out, v, kv->len);
  }
  for (int a = 0; !rc && a < e->nattrs; a++) {
    if (!it->vals[a].set) continue;
    const ddbst__attr *at = &e->attrs[a];
    const char *v = it->text.data + it->vals[a].off;
    size_t len = it->vals[a].len;
    unsigned scan = it->vals[a].scan; /* what setting it found, if it looked */
    if (ddbst__type_is_string(at->type) &&
        (scan ? !(scan & DDBST__SCAN_ESCAPE)
              : ddbst__json_plain_len(v, len) == len)) {
      rc = put_s_member(out, 0, &at->jname, v, len);
      continue;
    }
    rc = ddbst__buf_putc(out, ',');
    if (!rc) rc = ddbst__buf_append(out, at->jname.p, at->jname.n);
    if (!rc) rc = ddbst__write_av(out, at, v, len);
  }
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc ? DDBST_ENOMEM : 0;
}

/* Fills defaults and versions, then checks what a whole-item write needs. */
int ddbst__prepare_write(ddbst_item *it, int create, int64_t now_us,
                         ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  int rc = ddbst__item_check_plain(it, err);
  if (!rc) rc = ddbst_item_apply_defaults(it, now_us, err);
  if (!rc && e->version_attr >= 0) {
    if (it->has_expected_version)
      rc = store_version(it, e->version_attr, it->expected_version + 1);
    else if (create && !it->vals[e->version_attr].set)
      rc = store_version(it, e->version_attr, 1);
    if (rc) rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  if (!rc) rc = ddbst_item_check_required(it, err);
  return rc;
}

/* ConditionExpression of a whole-item write: no item with the key for a
 * create, the expected version for an optimistic replace, and the user's
 * condition. */
static int write_put_condition(ddbst_item *it, int create, ddbst_buf *out,
                               ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  int rc = 0;
  int own = create || it->has_expected_version;
  if (!own && !it->cond) return 0;
  rc = ddbst__buf_puts(out, ",\"ConditionExpression\":\"");
  size_t start = out->len;
  if (create) {
    rc = rc ? rc : ddbst__buf_puts(out, "attribute_not_exists(");
    rc = rc ? rc : ddbst__expr_name(it, m->pk_attr, out);
    rc = rc ? rc : ddbst__buf_putc(out, ')');
  }
  if (it->has_expected_version) {
    if (create) rc = rc ? rc : ddbst__buf_puts(out, " OR ");
    rc = rc ? rc : ddbst__expr_name(it, e->attrs[e->version_attr].name, out);
    rc = rc ? rc : ddbst__buf_puts(out, " = ");
    int n = snprintf(it->scratch + it->scratch_len,
                     sizeof it->scratch - it->scratch_len, "%lld",
                     (long long)it->expected_version);
    const char *lit = it->scratch + it->scratch_len;
    it->scratch_len += (size_t)n + 1;
    rc = rc ? rc : ddbst__expr_number(it, lit, out);
  }
  rc = rc ? rc : user_condition(it, out, start, own, err);
  return rc ? rc : ddbst__buf_putc(out, '"');
}

int ddbst__put_body(ddbst_item *it, uint32_t flags, int64_t now_us,
                    ddbst_buf *out, ddbst_error *err) {
  int create = (flags & DDBST_CREATE) != 0;
  ddbst__expr_reset(it);
  int rc = refuse_update_parts(it, "put", 0, err);
  if (!rc && create && it->cond)
    rc = ddbst__fail(err, DDBST_EINVAL, ddbst__entity_of(it)->name,
                     "a create writes only where no item is, so a condition "
                     "on its attributes could never hold: use a put with "
                     "the condition");
  if (!rc) rc = ddbst__prepare_write(it, create, now_us, err);
  if (!rc) rc = ddbst__begin(out, it->m);
  if (!rc) rc = ddbst__buf_puts(out, ",\"Item\":");
  if (!rc) rc = ddbst__write_item_simple(it, out, err);
  if (!rc) rc = ddbst__write_item(it, out, err);
  if (rc == 1) rc = 0;
  if (!rc) rc = write_put_condition(it, create, out, err);
  if (!rc) rc = ddbst__expr_emit(it, out);
  if (!rc) rc = write_returns(it, flags, create ? "create" : "put", 0, out, err);
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc;
}

/* ---- DeleteItem ---- */

int ddbst__delete_body(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                       ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  ddbst__expr_reset(it);
  int rc = refuse_update_parts(it, "delete", 0, err);
  if (!rc) rc = ddbst__begin(out, it->m);
  if (!rc) rc = ddbst__buf_puts(out, ",\"Key\":");
  if (!rc) rc = ddbst__write_key(it, out, err);
  /* the conditions that apply, joined by AND; none → no condition */
  size_t mark = out->len;
  int parts = 0;
  if (!rc) rc = ddbst__buf_puts(out, ",\"ConditionExpression\":\"");
  size_t start = out->len;
  if (!rc && (flags & DDBST_IF_EXISTS)) {
    rc = ddbst__buf_puts(out, "attribute_exists(");
    rc = rc ? rc : ddbst__expr_name(it, it->m->pk_attr, out);
    rc = rc ? rc : ddbst__buf_putc(out, ')');
    parts++;
  }
  if (!rc && it->has_expected_version) {
    if (parts++) rc = ddbst__buf_puts(out, " AND ");
    rc = rc ? rc : ddbst__expr_name(it, e->attrs[e->version_attr].name, out);
    rc = rc ? rc : ddbst__buf_puts(out, " = ");
    int n = snprintf(it->scratch, sizeof it->scratch, "%lld",
                     (long long)it->expected_version);
    it->scratch_len = (size_t)n + 1;
    rc = rc ? rc : ddbst__expr_number(it, it->scratch, out);
  }
  /* the guards deleted with the item must be its own: the item must hold
   * the unique values the guards' keys were built from */
  for (int u = 0; !rc && u < e->nuniques; u++) {
    const ddbst__template *t = &e->uniques[u].tmpl;
    for (int i = 0; !rc && i < t->nsegs; i++) {
      int a = t->segs[i].attr;
      if (a < 0 || e->attrs[a].primary_facet || !it->vals[a].set) continue;
      if (parts++) rc = ddbst__buf_puts(out, " AND ");
      rc = rc ? rc : ddbst__expr_name(it, e->attrs[a].name, out);
      rc = rc ? rc : ddbst__buf_puts(out, " = ");
      rc = rc ? rc : ddbst__expr_attr_value(it, a, out);
    }
  }
  if (!rc && it->cond) rc = user_condition(it, out, start, parts > 0, err);
  if (!rc && (parts || it->cond)) rc = ddbst__buf_putc(out, '"');
  if (!rc && !parts && !it->cond) ddbst__buf_truncate(out, mark);
  if (!rc) rc = ddbst__expr_emit(it, out);
  if (!rc) rc = write_returns(it, flags, "delete", 0, out, err);
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc;
}

/* ---- UpdateItem ---- */

typedef struct clause {
  int any; /* a clause keyword has been written */
} clause;

/* Starts one action of the clause `kw` ("SET", "REMOVE", "ADD"): the keyword
 * the first time, a comma after. */
static int action(ddbst_buf *out, clause *c, const char *kw, int *first_clause) {
  int rc = 0;
  if (!c->any) {
    if (!*first_clause) rc = ddbst__buf_putc(out, ' ');
    if (!rc) rc = ddbst__buf_puts(out, kw);
    if (!rc) rc = ddbst__buf_putc(out, ' ');
    c->any = 1;
    *first_clause = 0;
  } else {
    rc = ddbst__buf_puts(out, ", ");
  }
  return rc;
}

/* `SET #nK = :vJ` (", #nK = :vJ" after the first): action, the name and
 * the value in one write. */
static int assign(ddbst_item *it, ddbst_buf *out, clause *set, int *first,
                  const char *name, ddbst__vref ref) {
  static const char set_first[8] = "SET ", set_later[8] = " SET ",
                    comma[8] = ", ";
  const char *lead = comma;
  size_t lead_len = 2;
  if (!set->any) {
    lead = *first ? set_first : set_later;
    lead_len = *first ? 4 : 5;
  }
  int rc = ddbst__expr_assign(it, lead, lead_len, name, ref, out);
  if (rc) return rc;
  set->any = 1;
  *first = 0;
  return 0;
}

static int facet_given(const ddbst_item *it, int a) {
  return it->vals[a].set && it->vals[a].upd == DDBST__UPD_SET;
}

/* What an update does to one index: leave its keys alone, rewrite them, or
 * remove them (the item leaves the sparse index). */
enum { IDX_KEEP, IDX_WRITE, IDX_REMOVE };

static int index_action(const ddbst_item *it, const ddbst__ekey *k,
                        ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const char *index = it->m->indexes[k->index].name;
  const ddbst__template *ts[2] = {&k->pk, &k->sk};
  /* a native index follows the attributes themselves: nothing to rewrite */
  if (it->m->indexes[k->index].native) return IDX_KEEP;
  int touched = 0, removed = 0;
  char path[DDBST_ERROR_PATH_MAX];
#define INDEX_PATH (snprintf(path, sizeof path, "%s.indexes.%s", e->name, index), path)
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++) {
      int a = ts[t]->segs[i].attr;
      if (a < 0 || e->attrs[a].primary_facet) continue;
      ddbst__upd u = it->vals[a].upd;
      if (u == DDBST__UPD_ADD || u == DDBST__UPD_APPEND)
        return ddbst__fail(err, DDBST_EVALUE, INDEX_PATH,
                           "%s.%s is a facet of index %s: ADD would build the "
                           "key from the delta; set the new value instead",
                           e->name, e->attrs[a].name, index);
      if (u == DDBST__UPD_REMOVE) removed = touched = 1;
      if (facet_given(it, a)) touched = 1;
    }
  for (int i = 0; i < k->nwhen; i++) {
    int a = k->when[i].attr;
    if (it->vals[a].upd == DDBST__UPD_REMOVE) removed = touched = 1;
    if (facet_given(it, a)) touched = 1;
  }
  if (!touched) return IDX_KEEP;
  if (removed) return IDX_REMOVE;
  for (int i = 0; i < k->nwhen; i++)
    if (!facet_given(it, k->when[i].attr))
      return ddbst__fail(err, DDBST_EMISSING, INDEX_PATH,
                         "this update changes index %s's keys; give %s too, "
                         "so ddbst can tell whether the item stays in it",
                         index, e->attrs[k->when[i].attr].name);
  /* a membership condition that stops holding takes the item out */
  for (int i = 0; i < k->nwhen; i++)
    if (!ddbst__cond_holds(it, &k->when[i])) return IDX_REMOVE;
  /* it holds: the keys are rewritten, so every facet is needed, even when
   * only the condition's attribute changed (a draft being published) */
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++) {
      int a = ts[t]->segs[i].attr;
      if (a >= 0 && !facet_given(it, a))
        return ddbst__fail(err, DDBST_EMISSING, INDEX_PATH,
                           "this update rewrites index %s's keys: give %s "
                           "too",
                           index, e->attrs[a].name);
    }
  return IDX_WRITE;
}
#undef INDEX_PATH

static int set_key(ddbst_item *it, const char *name, const ddbst__template *t,
                   size_t limit, ddbst_buf *out, clause *set, int *first,
                   ddbst_error *err) {
  size_t start = it->keytext.len;
  int plain = 0;
  int rc = ddbst__render(it, t, name, limit, &it->keytext, &plain, err);
  if (rc) return rc;
  /* a key the renderer found clean is written without a scan */
  ddbst__vref r = {plain ? DDBST__REF_PLAIN_KEY : DDBST__REF_KEY, -1,
                   (uint32_t)start, (uint32_t)(it->keytext.len - start), NULL};
  return assign(it, out, set, first, name, r);
}

static int update_expression(ddbst_item *it, int upsert, int64_t now_us,
                             size_t key_bytes, ddbst_buf *out,
                             ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  clause set = {0}, rem = {0}, add = {0}, del = {0};
  int first = 1, rc = 0;
  char path[DDBST_ERROR_PATH_MAX];
  /* what the item holds after the update at least, counted as a put counts
   * it: the key just rendered and every value this update writes */
  size_t bytes = key_bytes;

  rc = ddbst__update_stamp(it, now_us, err);
  if (rc) return rc;

  rc = ddbst__buf_puts(out, ",\"UpdateExpression\":\"");
  /* SET: plain values and list appends */
  for (int a = 0; !rc && a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    ddbst__upd u = it->vals[a].upd;
    if (at->primary_facet || a == e->version_attr || !it->vals[a].set) continue;
    if (u == DDBST__UPD_SET || u == DDBST__UPD_APPEND)
      bytes += at->jname.raw_len +
               ddbst__value_size(at, it->text.data + it->vals[a].off,
                                 it->vals[a].len);
    if (u == DDBST__UPD_SET) {
      ddbst__vref r = {DDBST__REF_ATTR, a, 0, 0, NULL};
      rc = assign(it, out, &set, &first, at->name, r);
    } else if (u == DDBST__UPD_APPEND) {
      rc = action(out, &set, "SET", &first);
      rc = rc ? rc : ddbst__expr_name(it, at->name, out);
      rc = rc ? rc : ddbst__buf_puts(out, " = list_append(if_not_exists(");
      rc = rc ? rc : ddbst__expr_name(it, at->name, out);
      rc = rc ? rc : ddbst__buf_puts(out, ", ");
      rc = rc ? rc : ddbst__expr_raw(it, "{\"L\":[]}", out);
      rc = rc ? rc : ddbst__buf_puts(out, "), ");
      rc = rc ? rc : ddbst__expr_attr_value(it, a, out);
      rc = rc ? rc : ddbst__buf_putc(out, ')');
    }
  }
  /* the update actions' SETs, after the values' */
  const ddbst_expr *x = it->update;
  for (int i = 0; !rc && x && x->has_set && i < x->nactions; i++)
    if (x->actions[i]->kind == DDBST__X_SET) {
      rc = action(out, &set, "SET", &first);
      rc = rc ? rc : ddbst__xwrite_action(it, x, i, DDBST__X_SET, out, err);
    }
  /* an upsert may create the item: it must say what it is, and when it was
   * created, like a put would */
  if (!rc && upsert && m->entity_attr) {
    bytes += m->entity_jname.raw_len + strlen(e->name);
    rc = action(out, &set, "SET", &first);
    rc = rc ? rc : ddbst__expr_name(it, m->entity_attr, out);
    rc = rc ? rc : ddbst__buf_puts(out, " = ");
    rc = rc ? rc : ddbst__expr_string(it, e->name, out);
  }
  if (!rc && upsert && e->created_attr >= 0 && !it->vals[e->created_attr].set) {
    char ts[DDBST__TS_MAX];
    size_t tl;
    const char *bad = ddbst__ts_from_unix_us(
        now_us, e->attrs[e->created_attr].precision, ts, &tl);
    if (bad) return ddbst__fail(err, DDBST_ERANGE, NULL, "createdAt: %s", bad);
    if (tl + 1 > sizeof it->scratch - it->scratch_len) return DDBST_ERANGE;
    char *lit = it->scratch + it->scratch_len;
    memcpy(lit, ts, tl);
    lit[tl] = '\0';
    it->scratch_len += tl + 1;
    const char *cn = e->attrs[e->created_attr].name;
    rc = action(out, &set, "SET", &first);
    rc = rc ? rc : ddbst__expr_name(it, cn, out);
    rc = rc ? rc : ddbst__buf_puts(out, " = if_not_exists(");
    rc = rc ? rc : ddbst__expr_name(it, cn, out);
    rc = rc ? rc : ddbst__buf_puts(out, ", ");
    rc = rc ? rc : ddbst__expr_string(it, lit, out);
    rc = rc ? rc : ddbst__buf_putc(out, ')');
  }
  /* index keys kept true */
  int actions[DDBST__MAX_INDEXES]; /* at most 20 + 5 (checked at load) */
  for (int i = 0; !rc && i < e->nindexes; i++) {
    const ddbst__ekey *k = &e->indexes[i];
    int act = index_action(it, k, err);
    if (act < 0) return act;
    actions[i] = act;
    if (act == IDX_WRITE) {
      const ddbst__index *ix = &m->indexes[k->index];
      size_t before = it->keytext.len, names = 0;
      if (ddbst__index_own_pk(ix)) { /* a local index's is the table's */
        rc = set_key(it, ix->pk_attr, &k->pk, DDBST__PK_MAX, out, &set,
                     &first, err);
        names += ix->pk_jname.raw_len;
      }
      if (!rc && ddbst__index_own_sk(ix)) { /* an inverted one's is not */
        rc = set_key(it, ix->sk_attr, &k->sk, DDBST__SK_MAX, out, &set,
                     &first, err);
        names += ix->sk_jname.raw_len;
      }
      if (rc) return rc;
      bytes += names + (it->keytext.len - before);
    }
  }
  /* the version moves on */
  if (!rc && e->version_attr >= 0) {
    const char *vn = e->attrs[e->version_attr].name;
    rc = action(out, &set, "SET", &first);
    rc = rc ? rc : ddbst__expr_name(it, vn, out);
    rc = rc ? rc : ddbst__buf_puts(out, " = ");
    if (it->has_expected_version) {
      int n = snprintf(it->scratch + it->scratch_len,
                       sizeof it->scratch - it->scratch_len, "%lld",
                       (long long)(it->expected_version + 1));
      const char *lit = it->scratch + it->scratch_len;
      it->scratch_len += (size_t)n + 1;
      rc = rc ? rc : ddbst__expr_number(it, lit, out);
    } else {
      rc = rc ? rc : ddbst__buf_puts(out, "if_not_exists(");
      rc = rc ? rc : ddbst__expr_name(it, vn, out);
      rc = rc ? rc : ddbst__buf_puts(out, ", ");
      rc = rc ? rc : ddbst__expr_number(it, "0", out);
      rc = rc ? rc : ddbst__buf_puts(out, ") + ");
      rc = rc ? rc : ddbst__expr_number(it, "1", out);
    }
  }
  /* REMOVE: removed attributes and the keys of indexes the item leaves
   * (an item with no REMOVE, ADD or append has none to look for) */
  for (int a = 0; !rc && it->has_update_ops && a < e->nattrs; a++) {
    if (it->vals[a].upd != DDBST__UPD_REMOVE) continue;
    rc = action(out, &rem, "REMOVE", &first);
    rc = rc ? rc : ddbst__expr_name(it, e->attrs[a].name, out);
  }
  for (int i = 0; !rc && x && x->has_remove && i < x->nactions; i++)
    if (x->actions[i]->kind == DDBST__X_REMOVE) {
      rc = action(out, &rem, "REMOVE", &first);
      rc = rc ? rc : ddbst__xwrite_action(it, x, i, DDBST__X_REMOVE, out, err);
    }
  for (int i = 0; !rc && i < e->nindexes; i++) {
    if (actions[i] != IDX_REMOVE) continue;
    const ddbst__index *ix = &m->indexes[e->indexes[i].index];
    rc = action(out, &rem, "REMOVE", &first);
    /* leaving a local index takes its sort key away, never the table's
     * partition key */
    if (ddbst__index_own_pk(ix)) {
      rc = rc ? rc : ddbst__expr_name(it, ix->pk_attr, out);
      if (!rc && ddbst__index_own_sk(ix)) rc = ddbst__buf_puts(out, ", ");
    }
    if (!rc && ddbst__index_own_sk(ix))
      rc = ddbst__expr_name(it, ix->sk_attr, out);
  }
  /* ADD: number deltas and set elements */
  for (int a = 0; !rc && it->has_update_ops && a < e->nattrs; a++) {
    if (it->vals[a].upd != DDBST__UPD_ADD) continue;
    /* the set holds the elements added; a sum's size is DynamoDB's to know */
    bytes += e->attrs[a].jname.raw_len;
    if (e->attrs[a].type == DDBST__T_STRING_SET ||
        e->attrs[a].type == DDBST__T_NUMBER_SET)
      bytes += ddbst__value_size(&e->attrs[a], it->text.data + it->vals[a].off,
                                 it->vals[a].len);
    rc = action(out, &add, "ADD", &first);
    rc = rc ? rc : ddbst__expr_name(it, e->attrs[a].name, out);
    rc = rc ? rc : ddbst__buf_putc(out, ' ');
    rc = rc ? rc : ddbst__expr_attr_value(it, a, out);
  }
  for (int i = 0; !rc && x && x->has_add && i < x->nactions; i++)
    if (x->actions[i]->kind == DDBST__X_ADD) {
      rc = action(out, &add, "ADD", &first);
      rc = rc ? rc : ddbst__xwrite_action(it, x, i, DDBST__X_ADD, out, err);
    }
  /* DELETE: set elements, which only update actions take away */
  for (int i = 0; !rc && x && x->has_delete && i < x->nactions; i++)
    if (x->actions[i]->kind == DDBST__X_DELETE) {
      rc = action(out, &del, "DELETE", &first);
      rc = rc ? rc : ddbst__xwrite_action(it, x, i, DDBST__X_DELETE, out, err);
    }
  if (!rc && first) {
    snprintf(path, sizeof path, "%s", e->name);
    return ddbst__fail(err, DDBST_EMISSING, path,
                       "the update changes nothing: set, remove or add an "
                       "attribute");
  }
  if (!rc && bytes > DDBST__ITEM_MAX)
    return ddbst__fail(err, DDBST_ERANGE, e->name,
                       "the %s would be at least %zu bytes after this update "
                       "(its key and the values it writes); DynamoDB stores "
                       "at most %d per item",
                       e->name, bytes, DDBST__ITEM_MAX);
  return rc ? rc : ddbst__buf_putc(out, '"');
}

/* Whether an update action SETs or ADDs to the whole of attribute `a`. */
static int action_gives(const ddbst_item *it, int a) {
  const ddbst_expr *x = it->update;
  for (int i = 0; x && i < x->nactions; i++) {
    const ddbst__xnode *n = x->actions[i];
    if ((n->kind == DDBST__X_SET || n->kind == DDBST__X_ADD) && n->nkids &&
        n->kids[0]->kind == DDBST__X_PATH && n->kids[0]->attr == a &&
        n->kids[0]->nsteps == 0)
      return 1;
  }
  return 0;
}

int ddbst__update_body(ddbst_item *it, uint32_t flags, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err) {
  int rc = ddbst__update_body_simple(it, flags, now_us, out);
  if (rc) return rc < 0 ? rc : 0;
  return ddbst__update_body_general(it, flags, now_us, out, err);
}

/* not inlined into ddbst__update_body: its frame would be paid by every
 * update the short ways write */
DDBST__NOINLINE int ddbst__update_body_general(ddbst_item *it, uint32_t flags,
                                               int64_t now_us, ddbst_buf *out,
                                               ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  char path[DDBST_ERROR_PATH_MAX];
  /* before the key is built: a removed primary facet is a change, not a
   * missing value (only REMOVE, ADD and append make one: has_update_ops) */
  for (int a = 0; it->has_update_ops && a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    ddbst__upd u = it->vals[a].upd;
    if (at->primary_facet && (u != DDBST__UPD_SET)) {
      snprintf(path, sizeof path, "%s.%s", e->name, at->name);
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "%s.%s is part of the primary key and cannot change; "
                         "write a new item and delete this one",
                         e->name, at->name);
    }
  }
  for (int a = 0; it->has_update_ops && a < e->nattrs; a++)
    if (e->attrs[a].required && it->vals[a].upd == DDBST__UPD_REMOVE) {
      snprintf(path, sizeof path, "%s.%s", e->name, e->attrs[a].name);
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "%s.%s is required and cannot be removed", e->name,
                         e->attrs[a].name);
    }
  /* an upsert may create the item: what a put would demand it demands, or
   * an item would exist that no update could make whole */
  for (int k = 0; (flags & DDBST_UPSERT) && k < e->nrequired; k++) {
    int a = e->required_attrs[k];
    if (e->attrs[a].primary_facet || it->vals[a].set || action_gives(it, a))
      continue;
    snprintf(path, sizeof path, "%s.%s", e->name, e->attrs[a].name);
    return ddbst__fail(err, DDBST_EMISSING, path,
                       "%s.%s is required, and an upsert creates the item when "
                       "there is none: give %s, or update without upsert",
                       e->name, e->attrs[a].name, e->attrs[a].name);
  }
  if (it->update) {
    int rc = ddbst__xcheck_overlap(it, it->update, err);
    if (rc) return rc;
  }
  ddbst__expr_reset(it);
  size_t key_bytes = 0;
  int rc = ddbst__begin(out, it->m);
  if (!rc) rc = ddbst__buf_puts(out, ",\"Key\":");
  if (!rc) rc = ddbst__write_key_sized(it, out, &key_bytes, err);
  if (!rc) rc = update_expression(it, (flags & DDBST_UPSERT) != 0, now_us,
                                  key_bytes, out, err);
  int exists = !(flags & DDBST_UPSERT);
  int guarded = ddbst__unique_conditions_needed(it);
  int own = exists || it->has_expected_version || guarded;
  if (!rc && (own || it->cond)) {
    rc = ddbst__buf_puts(out, ",\"ConditionExpression\":\"");
    size_t start = out->len;
    if (!rc && exists) {
      rc = ddbst__buf_puts(out, "attribute_exists(");
      rc = rc ? rc : ddbst__expr_name(it, it->m->pk_attr, out);
      rc = rc ? rc : ddbst__buf_putc(out, ')');
      if (!rc && it->has_expected_version) rc = ddbst__buf_puts(out, " AND ");
    }
    if (!rc && it->has_expected_version) {
      rc = ddbst__expr_name(it, e->attrs[e->version_attr].name, out);
      rc = rc ? rc : ddbst__buf_puts(out, " = ");
      int n = snprintf(it->scratch + it->scratch_len,
                       sizeof it->scratch - it->scratch_len, "%lld",
                       (long long)it->expected_version);
      const char *lit = it->scratch + it->scratch_len;
      it->scratch_len += (size_t)n + 1;
      rc = rc ? rc : ddbst__expr_number(it, lit, out);
    }
    /* a unique attribute moves only from the value its guard holds */
    if (!rc && guarded)
      rc = ddbst__unique_conditions(it, exists || it->has_expected_version,
                                    out);
    if (!rc) rc = user_condition(it, out, start, own, err);
    if (!rc) rc = ddbst__buf_putc(out, '"');
  }
  if (!rc) rc = ddbst__expr_emit(it, out);
  if (!rc) rc = write_returns(it, flags, "update", 1, out, err);
  if (!rc) rc = ddbst__buf_putc(out, '}');
  return rc;
}
