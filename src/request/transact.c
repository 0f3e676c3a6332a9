/* Transactions: a write of an entity with unique attributes as one
 * TransactWriteItems with its guard items (guard.c), and ddbst_txn, which
 * gathers several items' operations into one TransactWriteItems or
 * TransactGetItems. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"
#include "request/expr.h"
#include "item/keys.h"
#include "request/txn_view.h"
#include "request/guard.h"
#include "request/held.h"

enum { TXN_MAX = DDBST__TXN_MAX }; /* DynamoDB's limit on one transaction */

/* The item's own key, for duplicate detection. */
static int item_ident(ddbst_item *it, ident_fn ident, void *user,
                      ddbst_error *err) {
  if (!ident) return 0;
  const ddbst_model *m = it->m;
  uint32_t po, pl, so, sl;
  int rc = ddbst__render_primary(it, &po, &pl, &so, &sl, err);
  if (rc) return rc;
  return ident(user, it->keytext.data + po, pl,
               m->sk_attr ? it->keytext.data + so : NULL, sl, err);
}

/* Records what entry `at` does, so that a cancellation can be explained
 * (ops NULL: nobody asks). */
static void note_op(ddbst__txn_op *ops, int at, ddbst__txop_kind kind,
                    unsigned conds, int unique, const ddbst_item *it) {
  if (!ops || at < 0 || at >= TXN_MAX) return;
  ddbst__txn_op o = {(uint8_t)kind, (uint8_t)conds, (int16_t)unique,
                     it->entity, it->expected_version, {0}, 0};
  if (it->cond && unique < 0) {
    o.conds |= DDBST__TXC_USER;
    const ddbst__entity *e = ddbst__entity_of(it);
    for (int a = 0; a < e->nattrs && o.ncattrs < DDBST__TXN_CATTRS; a++)
      if (it->cond->uses[a]) o.cattrs[o.ncattrs++] = (int16_t)a;
  }
  ops[at] = o;
}

/* The conditions the item's own entry carries, as the bodies write them. */
static unsigned item_conds(const ddbst_item *it, ddbst__write w,
                           uint32_t flags) {
  const ddbst__entity *e = ddbst__entity_of(it);
  unsigned c = it->has_expected_version ? DDBST__TXC_VERSION : 0;
  if (it->cond) c |= DDBST__TXC_USER;
  if (w == DDBST__W_PUT && (flags & DDBST_CREATE)) c |= DDBST__TXC_NOT_EXISTS;
  if (w == DDBST__W_UPDATE) {
    if (!(flags & DDBST_UPSERT)) c |= DDBST__TXC_EXISTS;
    if (ddbst__unique_conditions_needed(it)) c |= DDBST__TXC_UNIQUE;
  }
  if (w == DDBST__W_DELETE) {
    if (flags & DDBST_IF_EXISTS) c |= DDBST__TXC_EXISTS;
    for (int u = 0; u < e->nuniques; u++)
      for (int i = 0; i < e->uniques[u].tmpl.nsegs; i++) {
        int a = e->uniques[u].tmpl.segs[i].attr;
        if (a >= 0 && !e->attrs[a].primary_facet && it->vals[a].set)
          c |= DDBST__TXC_UNIQUE;
      }
  }
  return c;
}

/* Appends the transaction entries of one write, comma-separated, and counts
 * them (and notes each in `ops`, when given). */
static int write_entries(ddbst_item *it, ddbst__write w, uint32_t flags,
                         int64_t now_us, ddbst_buf *out, int *count,
                         ident_fn ident, void *user, ddbst__txn_op *ops,
                         ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  if (w == DDBST__W_PUT && e->nuniques && !(flags & DDBST_CREATE))
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "%s has unique attributes: write it with create, and "
                       "change them with update, so their guards stay true",
                       e->name);
  if (flags & DDBST_RETURN_MASK)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "%s: a transaction returns no values (ReturnValues); "
                       "read the item afterwards, or ask for the item on a "
                       "failed condition (returnOnFailure, "
                       "DDBST_RETURN_OLD_ON_FAILURE)",
                       e->nuniques ? "a write of an entity with unique "
                                     "attributes is a transaction"
                                   : "a write in a transaction");
  /* a put's defaults may be key facets (a "now" timestamp in the sort
   * key): fill them before the key is read, as the plain put does */
  int rc = w == DDBST__W_PUT ? ddbst_item_apply_defaults(it, now_us, err) : 0;
  rc = rc ? rc : item_ident(it, ident, user, err);
  if (rc) return rc;
  ddbst__txop_kind kind = w == DDBST__W_UPDATE   ? DDBST__TXOP_UPDATE
                          : w == DDBST__W_DELETE ? DDBST__TXOP_DELETE
                          : (flags & DDBST_CREATE) ? DDBST__TXOP_CREATE
                                                   : DDBST__TXOP_PUT;
  note_op(ops, *count, kind,
          item_conds(it, w, flags) |
              (flags & DDBST_RETURN_OLD_ON_FAILURE ? DDBST__TXC_ITEM : 0u),
          -1, it);
  static const char *const heads[] = {"{\"Put\":", "{\"Update\":",
                                      "{\"Delete\":"};
  if (*count) rc = ddbst__buf_putc(out, ',');
  rc = rc ? rc : ddbst__buf_puts(out, heads[w]);
  if (rc) return rc;
  if (w == DDBST__W_PUT) {
    /* the plan compiled at load where it applies (1: written), as a
     * single put; the update dispatches to its one pass by itself */
    rc = ddbst__put_planned(it, flags, now_us, out, err);
    if (rc == 0) rc = ddbst__put_body(it, flags, now_us, out, err);
    if (rc == 1) rc = 0;
  } else if (w == DDBST__W_UPDATE)
    rc = ddbst__update_body(it, flags, now_us, out, err);
  else
    rc = ddbst__delete_body(it, flags, out, err);
  rc = rc ? rc : ddbst__buf_putc(out, '}');
  if (rc) return rc;
  (*count)++;
  for (int i = 0; i < e->nuniques; i++) {
    const ddbst__unique *u = &e->uniques[i];
    if (w == DDBST__W_PUT || w == DDBST__W_DELETE) {
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : ddbst__guard_entry(it, u, w == DDBST__W_PUT, 0, out, ident, user, err);
      if (rc) return rc;
      if (w == DDBST__W_PUT)
        note_op(ops, *count, DDBST__TXOP_GUARD_PUT, DDBST__TXC_NOT_EXISTS, i, it);
      else
        note_op(ops, *count, DDBST__TXOP_GUARD_DELETE, 0, i, it);
      (*count)++;
      continue;
    }
    if (!ddbst__unique_moves(it, u)) continue;
    /* an update that moves the value: delete the old guard, claim the new
     * one (unless the key is the same, as when only letter case changed in
     * a lower-cased facet) */
    uint32_t o1, l1, o2, l2;
    rc = ddbst__guard_key(it, u, 1, &o1, &l1, err);
    if (!ddbst__unique_removed(it, u))
      rc = rc ? rc : ddbst__guard_key(it, u, 0, &o2, &l2, err);
    if (rc) return rc;
    if (!ddbst__unique_removed(it, u) && l1 == l2 &&
        memcmp(it->keytext.data + o1, it->keytext.data + o2, l1) == 0)
      continue;
    rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__guard_entry(it, u, 0, 1, out, ident, user, err);
    if (rc) return rc;
    note_op(ops, *count, DDBST__TXOP_GUARD_DELETE, 0, i, it);
    (*count)++;
    if (!ddbst__unique_removed(it, u)) {
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : ddbst__guard_entry(it, u, 1, 0, out, ident, user, err);
      if (rc) return rc;
      note_op(ops, *count, DDBST__TXOP_GUARD_PUT, DDBST__TXC_NOT_EXISTS, i, it);
      (*count)++;
    }
  }
  return 0;
}

static const int single_op[] = {DDBST_OP_PUT_ITEM, DDBST_OP_UPDATE_ITEM,
                                DDBST_OP_DELETE_ITEM};

int ddbst__unique_write(ddbst_item *it, ddbst__write w, uint32_t flags,
                        int64_t now_us, ddbst_buf *out, ddbst_error *err) {
  size_t start = out->len;
  int count = 0;
  int rc = ddbst__buf_puts(out, "{\"TransactItems\":[");
  rc = rc ? rc : write_entries(it, w, flags, now_us, out, &count, NULL, NULL,
                               NULL, err);
  rc = rc ? rc : ddbst__buf_puts(out, "]}");
  if (rc) return ddbst__abandon(out, start, rc, err);
  if (count > 1) return DDBST_OP_TRANSACT_WRITE_ITEMS;
  /* nothing to guard after all (an update that leaves unique attributes
   * alone): a plain body */
  ddbst__buf_truncate(out, start);
  if (w == DDBST__W_UPDATE)
    rc = ddbst__update_body(it, flags, now_us, out, err);
  else if (w == DDBST__W_DELETE)
    rc = ddbst__delete_body(it, flags, out, err);
  else
    rc = ddbst__put_body(it, flags, now_us, out, err);
  return rc ? ddbst__abandon(out, start, rc, err) : single_op[w];
}

/* ---- ddbst_txn: several items in one transaction ---- */

struct ddbst_txn {
  const ddbst_model *m;
  ddbst_buf entries; /* comma-separated TransactItems entries */
  ddbst_buf keys;    /* every operation's key: pk \x1f sk \x1e */
  int count;
  int gets;   /* TransactGetItems entries (never mixed with writes) */
  int writes;
  ddbst__txn_op ops[TXN_MAX]; /* what each entry does, for explanations */
};

ddbst_txn *ddbst_txn_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_txn *t = ddbst__malloc(&m->alloc, sizeof *t);
  if (!t) return NULL;
  memset(t, 0, sizeof *t);
  t->m = m;
  ddbst__buf_init(&t->entries, &m->alloc);
  ddbst__buf_init(&t->keys, &m->alloc);
  return t;
}

void ddbst_txn_free(ddbst_txn *t) {
  if (!t) return;
  ddbst__buf_release(&t->entries);
  ddbst__buf_release(&t->keys);
  ddbst__free(&t->m->alloc, t);
}

void ddbst_txn_reset(ddbst_txn *t) {
  if (!t) return;
  ddbst_buf_reset(&t->entries);
  ddbst_buf_reset(&t->keys);
  t->count = t->gets = t->writes = 0;
}

size_t ddbst__txn_held(const ddbst_txn *t) {
  return t->entries.cap > t->keys.cap ? t->entries.cap : t->keys.cap;
}

int ddbst_txn_count(const ddbst_txn *t) { return t ? t->count : DDBST_EINVAL; }

/* Refuses a second operation on one item: DynamoDB would reject the whole
 * transaction. Keys are short and transactions at most 100 long, so a linear
 * scan is enough. */
static int txn_ident(void *user, const char *pk, size_t pkl, const char *sk,
                     size_t skl, ddbst_error *err) {
  ddbst_txn *t = user;
  /* an empty buffer may have no storage yet: no arithmetic on NULL */
  const char *p = t->keys.data, *end = p ? p + t->keys.len : NULL;
  while (p && p < end) {
    const char *rec_end = memchr(p, '\x1e', (size_t)(end - p));
    const char *sep = memchr(p, '\x1f', (size_t)(rec_end - p));
    if ((size_t)(sep - p) == pkl && !memcmp(p, pk, pkl) &&
        (size_t)(rec_end - sep - 1) == skl && (!skl || !memcmp(sep + 1, sk, skl)))
      return ddbst__fail(err, DDBST_EINVAL, "transaction",
                         "two operations on one item (%.*s%s%.*s): DynamoDB "
                         "refuses that in a transaction",
                         (int)(pkl > 80 ? 80 : pkl), pk, sk ? " / " : "",
                         (int)(skl > 80 ? 80 : skl), sk ? sk : "");
    p = rec_end + 1;
  }
  int rc = ddbst__buf_append(&t->keys, pk, pkl);
  rc = rc ? rc : ddbst__buf_putc(&t->keys, '\x1f');
  if (!rc && skl) rc = ddbst__buf_append(&t->keys, sk, skl);
  rc = rc ? rc : ddbst__buf_putc(&t->keys, '\x1e');
  return rc ? ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory") : 0;
}

/* Adds one item's entries, all or nothing. */
static int txn_add(ddbst_txn *t, ddbst_item *it, ddbst__write w,
                   uint32_t flags, int64_t now_us, ddbst_error *err) {
  if (!t || !it) return ddbst__fail(err, DDBST_EINVAL, NULL, "NULL argument");
  if (it->m != t->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item belongs to another model");
  if (t->gets)
    return ddbst__fail(err, DDBST_EINVAL, "transaction",
                       "a transaction either reads or writes");
  size_t e0 = t->entries.len, k0 = t->keys.len;
  int count = t->count;
  int rc = write_entries(it, w, flags, now_us, &t->entries, &count, txn_ident,
                         t, t->ops, err);
  if (!rc && count > TXN_MAX)
    rc = ddbst__fail(err, DDBST_ERANGE, "transaction",
                     "a transaction holds at most %d operations (this one "
                     "would hold %d, unique guards included)",
                     TXN_MAX, count);
  if (rc) {
    ddbst__buf_truncate(&t->entries, e0);
    ddbst__buf_truncate(&t->keys, k0);
    return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  }
  t->writes += count - t->count;
  t->count = count;
  return 0;
}

int ddbst_txn_put(ddbst_txn *t, ddbst_item *it, uint32_t flags,
                  int64_t now_us, ddbst_error *err) {
  return txn_add(t, it, DDBST__W_PUT, flags, ddbst__now(now_us), err);
}

int ddbst_txn_update(ddbst_txn *t, ddbst_item *it, uint32_t flags,
                     int64_t now_us, ddbst_error *err) {
  return txn_add(t, it, DDBST__W_UPDATE, flags, ddbst__now(now_us), err);
}

int ddbst_txn_delete(ddbst_txn *t, ddbst_item *it, uint32_t flags,
                     ddbst_error *err) {
  return txn_add(t, it, DDBST__W_DELETE, flags, 0, err);
}

/* ConditionCheck: the item exists (and holds the expected version). */
int ddbst_txn_check(ddbst_txn *t, ddbst_item *it, ddbst_error *err) {
  return ddbst_txn_check_flags(t, it, 0, err);
}

int ddbst_txn_check_flags(ddbst_txn *t, ddbst_item *it, uint32_t flags,
                          ddbst_error *err) {
  if (!t || !it) return ddbst__fail(err, DDBST_EINVAL, NULL, "NULL argument");
  if (flags & ~(uint32_t)DDBST_RETURN_OLD_ON_FAILURE)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a ConditionCheck takes DDBST_RETURN_OLD_ON_FAILURE "
                       "only");
  if (t->gets)
    return ddbst__fail(err, DDBST_EINVAL, "transaction",
                       "a transaction either reads or writes");
  if (t->count == TXN_MAX)
    return ddbst__fail(err, DDBST_ERANGE, "transaction",
                       "a transaction holds at most %d operations", TXN_MAX);
  size_t e0 = t->entries.len, k0 = t->keys.len;
  int rc = item_ident(it, txn_ident, t, err);
  /* a delete body carries exactly a ConditionCheck's fields */
  if (!rc && t->count) rc = ddbst__buf_putc(&t->entries, ',');
  rc = rc ? rc : ddbst__buf_puts(&t->entries, "{\"ConditionCheck\":");
  rc = rc ? rc
          : ddbst__delete_body(it, DDBST_IF_EXISTS | flags, &t->entries, err);
  rc = rc ? rc : ddbst__buf_putc(&t->entries, '}');
  if (rc) {
    ddbst__buf_truncate(&t->entries, e0);
    ddbst__buf_truncate(&t->keys, k0);
    return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  }
  note_op(t->ops, t->count, DDBST__TXOP_CHECK,
          DDBST__TXC_EXISTS |
              (it->has_expected_version ? DDBST__TXC_VERSION : 0u) |
              (flags & DDBST_RETURN_OLD_ON_FAILURE ? DDBST__TXC_ITEM : 0u),
          -1, it);
  t->count++;
  t->writes++;
  return 0;
}

int ddbst_txn_get(ddbst_txn *t, ddbst_item *it, ddbst_error *err) {
  if (!t || !it) return ddbst__fail(err, DDBST_EINVAL, NULL, "NULL argument");
  if (t->writes)
    return ddbst__fail(err, DDBST_EINVAL, "transaction",
                       "a transaction either reads or writes");
  if (t->count == TXN_MAX)
    return ddbst__fail(err, DDBST_ERANGE, "transaction",
                       "a transaction holds at most %d operations", TXN_MAX);
  size_t e0 = t->entries.len, k0 = t->keys.len;
  int rc = item_ident(it, txn_ident, t, err);
  if (!rc && t->count) rc = ddbst__buf_putc(&t->entries, ',');
  rc = rc ? rc : ddbst__buf_puts(&t->entries, "{\"Get\":");
  rc = rc ? rc : ddbst__get_body(it, 0, &t->entries, err);
  rc = rc ? rc : ddbst__buf_putc(&t->entries, '}');
  if (rc) {
    ddbst__buf_truncate(&t->entries, e0);
    ddbst__buf_truncate(&t->keys, k0);
    return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  }
  note_op(t->ops, t->count, DDBST__TXOP_GET, 0, -1, it);
  t->count++;
  t->gets++;
  return 0;
}

int ddbst_txn_request(const ddbst_txn *t, const char *client_token,
                      ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!t || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "transaction or buffer is NULL");
  if (t->count == 0)
    return ddbst__fail(err, DDBST_EMISSING, "transaction",
                       "the transaction has no operations");
  if (client_token) {
    size_t n = strlen(client_token);
    int ok = n >= 1 && n <= 36;
    for (size_t i = 0; ok && i < n; i++)
      ok = (unsigned char)client_token[i] > 0x20 &&
           (unsigned char)client_token[i] < 0x7f;
    if (!ok)
      return ddbst__fail(err, DDBST_EVALUE, "client_token",
                         "a ClientRequestToken is 1 to 36 printable ASCII "
                         "characters");
    if (t->gets)
      return ddbst__fail(err, DDBST_EINVAL, "client_token",
                         "TransactGetItems takes no ClientRequestToken");
  }
  size_t start = out->len;
  int rc = ddbst__buf_puts(out, "{\"TransactItems\":[");
  rc = rc ? rc : ddbst__buf_append(out, t->entries.data, t->entries.len);
  rc = rc ? rc : ddbst__buf_putc(out, ']');
  if (!rc && client_token) {
    rc = ddbst__buf_puts(out, ",\"ClientRequestToken\":");
    rc = rc ? rc : ddbst__json_string(out, client_token, strlen(client_token));
  }
  rc = rc ? rc : ddbst__buf_putc(out, '}');
  if (rc) return ddbst__abandon(out, start, rc, err);
  return t->gets ? DDBST_OP_TRANSACT_GET_ITEMS : DDBST_OP_TRANSACT_WRITE_ITEMS;
}

/* ---- what each entry does, to explain a cancellation (txn_view.h) ---- */

void ddbst__txn_view_of(const ddbst_txn *t, ddbst__txn_view *v) {
  v->m = t->m;
  v->ops = t->ops;
  v->n = t->count;
  v->keys = t->keys.data;
  v->keys_len = t->keys.len;
}

/* Collects every entry's key, as txn_ident keeps them. */
static int collect_key(void *user, const char *pk, size_t pkl, const char *sk,
                       size_t skl, ddbst_error *err) {
  ddbst_buf *keys = user;
  int rc = ddbst__buf_append(keys, pk, pkl);
  rc = rc ? rc : ddbst__buf_putc(keys, '\x1f');
  if (!rc && skl) rc = ddbst__buf_append(keys, sk, skl);
  rc = rc ? rc : ddbst__buf_putc(keys, '\x1e');
  return rc ? ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory") : 0;
}

int ddbst__item_view(ddbst_item *it, int op, uint32_t flags,
                     ddbst__txn_op *ops, ddbst_buf *scratch, ddbst_buf *keys,
                     ddbst__txn_view *v, ddbst_error *err) {
  ddbst__write w;
  if (op == DDBST_OP_PUT_ITEM)
    w = DDBST__W_PUT;
  else if (op == DDBST_OP_UPDATE_ITEM)
    w = DDBST__W_UPDATE;
  else if (op == DDBST_OP_DELETE_ITEM)
    w = DDBST__W_DELETE;
  else
    return ddbst__fail(err, DDBST_EINVAL, "op",
                       "the builder called: DDBST_OP_PUT_ITEM, "
                       "DDBST_OP_UPDATE_ITEM or DDBST_OP_DELETE_ITEM");
  int count = 0;
  /* what the write answered with is no part of what it did */
  int rc = write_entries(it, w, flags & ~(uint32_t)DDBST_RETURN_MASK,
                         ddbst_now_unix_us(), scratch, &count, collect_key,
                         keys, ops, err);
  if (rc) return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  v->m = it->m;
  v->ops = ops;
  v->n = count < TXN_MAX ? count : TXN_MAX;
  v->keys = keys->data;
  v->keys_len = keys->len;
  return 0;
}
