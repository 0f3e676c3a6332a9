/* A cancelled transaction, or a refused conditional write, explained in the
 * model's words: which entry failed and why, from the error body a page read
 * and the transaction's own record of what each entry does. */
#include <stdio.h>
#include <string.h>

#include "request/txn_view.h"
#include "response/explain.h"
#include "response/page.h"

/* The key of entry `i` of a view: "pk / sk" into buf. */
static void entry_key(const ddbst__txn_view *v, int i, char *buf, size_t cap) {
  const char *p = v->keys, *end = v->keys + v->keys_len;
  buf[0] = '\0';
  for (int k = 0; p && p < end; k++) {
    const char *rec_end = memchr(p, '\x1e', (size_t)(end - p));
    if (!rec_end) return;
    if (k == i) {
      const char *sep = memchr(p, '\x1f', (size_t)(rec_end - p));
      if (!sep) return;
      int pl = (int)(sep - p), sl = (int)(rec_end - sep - 1);
      /* a guard item's sort key repeats its partition key */
      if (sl == pl && memcmp(p, sep + 1, (size_t)pl) == 0) sl = 0;
      if (sl)
        snprintf(buf, cap, "%.*s / %.*s", pl > 200 ? 200 : pl, p,
                 sl > 200 ? 200 : sl, sep + 1);
      else
        snprintf(buf, cap, "%.*s", pl > 200 ? 200 : pl, p);
      return;
    }
    p = rec_end + 1;
  }
}

/* The record of attribute `a` in item `i` of the page, or NULL. */
static const ddbst__pattr *attr_of(const ddbst_page *pg, int32_t i, int a) {
  const ddbst__pitem *pi = &pg->items[i];
  for (uint32_t k = pi->first; k < pi->first + pi->count; k++)
    if (pg->attrs[k].attr == a && pg->attrs[k].type != DDBST__AV_NULL)
      return &pg->attrs[k];
  return NULL;
}

/* "status is published" (or "is not set") into out, for attribute `a` of
 * the entity of item `i`. */
static void say_value(const ddbst_page *pg, int32_t i, const ddbst__entity *e,
                      int a, char *out, size_t cap) {
  const ddbst__pattr *r = attr_of(pg, i, a);
  if (!r) {
    snprintf(out, cap, "%s is not set", e->attrs[a].name);
    return;
  }
  const char *v = ddbst__av_is_container(r->type)
                      ? pg->plain.data + r->plain
                      : pg->text.data + r->val;
  size_t n = ddbst__av_is_container(r->type) ? r->plain_len : r->val_len;
  snprintf(out, cap, "%s is %.*s%s", e->attrs[a].name, n > 80 ? 80 : (int)n, v,
           n > 80 ? "..." : "");
}

/* The failure of entry `op` told from the item the answer carried
 * (ReturnValuesOnConditionCheckFailure), `item` its index in the page or
 * -1 when the answer carried none though the entry asked for one: the
 * item was not there. 0 when the item tells nothing more. */
static int why_with_item(const ddbst_page *pg, const ddbst_model *m,
                         const ddbst__txn_op *op, int32_t item,
                         const char *what, char *out, size_t cap) {
  const ddbst__entity *e = &m->entities[op->entity];
  unsigned c = op->conds;
  long long ver = (long long)op->version;
  if (item < 0) {
    if (c & DDBST__TXC_VERSION) {
      snprintf(out, cap, "version mismatch: %s does not exist, and you "
                         "expected version %lld",
               what, ver);
      return DDBST_FAIL_VERSION;
    }
    if (c & (DDBST__TXC_EXISTS | DDBST__TXC_UNIQUE)) {
      snprintf(out, cap, "%s does not exist", what);
      return DDBST_FAIL_MISSING;
    }
    if (c & DDBST__TXC_USER) {
      snprintf(out, cap, "%s: the condition failed: the item does not exist",
               what);
      return DDBST_FAIL_CONDITION;
    }
    return 0;
  }
  if (pg->items[item].entity != op->entity) return 0;
  if ((c & DDBST__TXC_VERSION) && e->version_attr >= 0) {
    const ddbst__pattr *r = attr_of(pg, item, e->version_attr);
    char want[24];
    snprintf(want, sizeof want, "%lld", ver);
    if (!r || strcmp(pg->text.data + r->val, want) != 0) {
      char now[128];
      say_value(pg, item, e, e->version_attr, now, sizeof now);
      snprintf(out, cap, "version mismatch: %s: %s, you expected %lld; read "
                         "it again and retry",
               what, now, ver);
      return DDBST_FAIL_VERSION;
    }
  }
  if (c & DDBST__TXC_USER) {
    size_t n = (size_t)snprintf(out, cap, "%s: the condition failed", what);
    for (int k = 0; k < op->ncattrs && n < cap; k++) {
      char one[160];
      say_value(pg, item, e, op->cattrs[k], one, sizeof one);
      n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? ", " : ": ", one);
    }
    return DDBST_FAIL_CONDITION;
  }
  /* it exists, at the version expected: what is left is a unique value */
  if (c & DDBST__TXC_UNIQUE) {
    snprintf(out, cap, "%s: its unique attributes no longer hold the %s "
                       "given",
             what,
             op->kind == DDBST__TXOP_UPDATE ? "previous values" : "values");
    return DDBST_FAIL_CONDITION;
  }
  snprintf(out, cap, "%s: a condition failed", what);
  return DDBST_FAIL_CONDITION;
}

/* Why entry `op` failed with reason kind `rk`: a DDBST_FAIL_* kind and a
 * sentence. `item` is the item the answer carried for it, -1 for none. */
static int why_failed(const ddbst_page *pg, const ddbst_model *m,
                      const ddbst__txn_op *op, int32_t item, const char *key,
                      int rk, const char *code, const char *msg, char *out,
                      size_t cap) {
  const ddbst__entity *e = &m->entities[op->entity];
  char what[300];
  if (op->kind == DDBST__TXOP_GUARD_PUT || op->kind == DDBST__TXOP_GUARD_DELETE)
    snprintf(what, sizeof what, "the %s.%s guard (%s)", e->name,
             e->uniques[op->unique].name, key);
  else
    snprintf(what, sizeof what, "%s (%s)", e->name, key);
  long long ver = (long long)op->version;
  switch (rk) {
  case DDBST_DDB_CONDITIONAL_CHECK_FAILED:
    break;
  case DDBST_DDB_TRANSACTION_CONFLICT:
    snprintf(out, cap, "%s: another transaction was writing it at the same "
                       "time; retry the transaction",
             what);
    return DDBST_FAIL_CONFLICT;
  case DDBST_DDB_THROTTLED: {
    /* the body's ThrottlingReasons, when it has them, say where */
    snprintf(out, cap, "%s: throttled (%s)", what, code);
    ddbst__throttling_say(pg, out, cap);
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "; retry with backoff");
    return DDBST_FAIL_THROTTLED;
  }
  case DDBST_DDB_ITEM_COLLECTION_SIZE_LIMIT:
    snprintf(out, cap, "%s: the partition's item collection is over 10 GB",
             what);
    return DDBST_FAIL_OTHER;
  default:
    snprintf(out, cap, "%s: DynamoDB refused the operation: %s%s%s", what,
             code, *msg ? ": " : "", msg);
    return DDBST_FAIL_OTHER;
  }
  unsigned c = op->conds;
  switch (op->kind) {
  case DDBST__TXOP_GUARD_PUT:
    snprintf(out, cap, "unique constraint %s.%s: another %s already has this "
                       "%s (%s)",
             e->name, e->uniques[op->unique].name, e->name,
             e->uniques[op->unique].name, key);
    return DDBST_FAIL_UNIQUE;
  case DDBST__TXOP_CREATE:
    if (c & DDBST__TXC_VERSION)
      snprintf(out, cap, "%s already exists, and not at version %lld", what,
               ver);
    else
      snprintf(out, cap, "%s already exists", what);
    return DDBST_FAIL_EXISTS;
  default:
    break;
  }
  if (item >= 0 || (c & DDBST__TXC_ITEM)) {
    int k = why_with_item(pg, m, op, item, what, out, cap);
    if (k) return k;
  }
  if (c & DDBST__TXC_VERSION) {
    snprintf(out, cap, "version mismatch: %s is not at version %lld (or no "
                       "longer exists); read it again and retry",
             what, ver);
    return DDBST_FAIL_VERSION;
  }
  if (c & DDBST__TXC_UNIQUE) {
    snprintf(out, cap, "%s does not exist, or its unique attributes no "
                       "longer hold the %s given",
             what, op->kind == DDBST__TXOP_UPDATE ? "previous values" : "values");
    return DDBST_FAIL_CONDITION;
  }
  if ((c & DDBST__TXC_EXISTS) && (c & DDBST__TXC_USER)) {
    /* two conditions and no item to tell them apart */
    snprintf(out, cap, "%s does not exist, or the condition failed "
                       "(returnOnFailure, --return-on-failure or "
                       "DDBST_RETURN_OLD_ON_FAILURE tells which)",
             what);
    return DDBST_FAIL_CONDITION;
  }
  if (c & DDBST__TXC_EXISTS) {
    snprintf(out, cap, "%s does not exist", what);
    return DDBST_FAIL_MISSING;
  }
  if (c & DDBST__TXC_USER)
    snprintf(out, cap, "%s: the condition failed", what);
  else
    snprintf(out, cap, "%s: a condition failed", what);
  return DDBST_FAIL_CONDITION;
}

/* The k-th failure of `page` against view `v`: its kind (> 0), *index and
 * the sentence; 0 past the last; DDBST_EINVAL when they do not match. */
static int nth_failure(const ddbst_model *m, const ddbst__txn_view *v,
                       const ddbst_page *pg, int k, int *index, char *out,
                       size_t cap, ddbst_error *err) {
  if (!pg || pg->error_kind == DDBST_DDB_NONE)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no DynamoDB error: parse the error "
                       "body with ddbst_page_parse_error");
  char key[512];
  const char *text = pg->text.data;
  if (pg->error_kind == DDBST_DDB_TRANSACTION_CANCELED ||
      pg->error_kind == DDBST_DDB_CONDITIONAL_CHECK_FAILED) {
    int single = pg->error_kind == DDBST_DDB_CONDITIONAL_CHECK_FAILED;
    int n = single ? 1 : (int)pg->nreasons;
    if (n != v->n)
      return ddbst__fail(err, DDBST_EINVAL, "page",
                         single ? "a ConditionalCheckFailedException answers "
                                  "one write, and this wrote %d operations"
                                : "the answer holds %d cancellation reasons "
                                  "for %d operations: not this transaction's",
                         single ? v->n : n, v->n);
    for (int i = 0, seen = 0; i < n; i++) {
      int rk = single ? DDBST_DDB_CONDITIONAL_CHECK_FAILED
                      : pg->reasons[i].kind;
      if (rk == DDBST_DDB_NONE) continue;
      if (seen++ < k) continue;
      const char *code = single ? "ConditionalCheckFailed"
                                : text + pg->reasons[i].code;
      const char *msg = single || !pg->reasons[i].msg_len
                            ? ""
                            : text + pg->reasons[i].msg;
      entry_key(v, i, key, sizeof key);
      *index = i;
      int32_t item = single ? pg->error_item : pg->reasons[i].item;
      return why_failed(pg, m, &v->ops[i], item, key, rk, code, msg, out,
                        cap);
    }
    return 0;
  }
  /* the request failed as a whole */
  if (k > 0) return 0;
  *index = -1;
  int kind = pg->error_kind == DDBST_DDB_THROTTLED ? DDBST_FAIL_THROTTLED
             : pg->error_kind == DDBST_DDB_TRANSACTION_CONFLICT ||
                     pg->error_kind == DDBST_DDB_TRANSACTION_IN_PROGRESS
                 ? DDBST_FAIL_CONFLICT
                 : DDBST_FAIL_OTHER;
  snprintf(out, cap, "the request failed as a whole: %s: %s",
           text + pg->etype, ddbst_page_error_message(pg));
  ddbst__throttling_say(pg, out, cap);
  if (kind != DDBST_FAIL_OTHER) {
    size_t used = strlen(out);
    snprintf(out + used, cap - used, "; retry with backoff");
  }
  return kind;
}

/* Every failure, one line each, appended to `out`; the first one's kind. */
static int explain(const ddbst_model *m, const ddbst__txn_view *v,
                   const ddbst_page *pg, ddbst_buf *out, ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "buffer is NULL");
  size_t start = out->len;
  int first = 0;
  for (int k = 0;; k++) {
    char line[1024];
    int index;
    int kind = nth_failure(m, v, pg, k, &index, line, sizeof line, err);
    if (kind < 0) {
      ddbst__buf_truncate(out, start);
      return kind;
    }
    if (kind == 0) break;
    if (!first) first = kind;
    /* a plain conditional write is no transaction: no position to name */
    char head[48] = "";
    if (index >= 0 && pg->error_kind != DDBST_DDB_CONDITIONAL_CHECK_FAILED)
      snprintf(head, sizeof head, "TransactItems[%d]: ", index);
    if (ddbst__buf_puts(out, head) || ddbst__buf_puts(out, line) ||
        ddbst__buf_putc(out, '\n')) {
      ddbst__buf_truncate(out, start);
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    }
  }
  return first;
}

int ddbst_txn_explain(const ddbst_txn *txn, const ddbst_page *pg,
                      ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!txn) return ddbst__fail(err, DDBST_EINVAL, NULL, "transaction is NULL");
  ddbst__txn_view v;
  ddbst__txn_view_of(txn, &v);
  if (pg && pg->m != v.m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the page belongs to another model");
  return explain(v.m, &v, pg, out, err);
}

int ddbst_txn_failure(const ddbst_txn *txn, const ddbst_page *pg, int k,
                      int *index, int *entity, const char **unique) {
  if (!txn || k < 0) return DDBST_EINVAL;
  ddbst__txn_view v;
  ddbst__txn_view_of(txn, &v);
  if (pg && pg->m != v.m) return DDBST_EINVAL;
  char line[1024];
  int at = -1;
  int kind = nth_failure(v.m, &v, pg, k, &at, line, sizeof line, NULL);
  if (kind <= 0) return kind ? kind : DDBST_ENOTFOUND;
  const ddbst__txn_op *op = at >= 0 ? &v.ops[at] : NULL;
  if (index) *index = at;
  if (entity) *entity = op ? op->entity : DDBST_ENOTFOUND;
  if (unique)
    *unique = op && op->unique >= 0
                  ? v.m->entities[op->entity].uniques[op->unique].name
                  : NULL;
  return kind;
}

int ddbst__item_explain_in(ddbst_item *item, int op, uint32_t flags,
                           const ddbst_page *pg, ddbst_buf *out,
                           ddbst_buf *scratch, ddbst_buf *keys,
                           ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!item || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item or buffer is NULL");
  if (pg && pg->m != item->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the page belongs to another model");
  ddbst__txn_op ops[DDBST__TXN_MAX]; /* 3 KiB: one write's entries */
  ddbst_buf_reset(scratch);
  ddbst_buf_reset(keys);
  ddbst__txn_view v;
  int rc = ddbst__item_view(item, op, flags, ops, scratch, keys, &v, err);
  return rc ? rc : explain(item->m, &v, pg, out, err);
}

int ddbst_item_explain(ddbst_item *item, int op, uint32_t flags,
                       const ddbst_page *pg, ddbst_buf *out,
                       ddbst_error *err) {
  if (!item) {
    if (out) ddbst_buf_reset(out);
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item or buffer is NULL");
  }
  const ddbst_allocator *a = &item->m->alloc;
  ddbst_buf scratch, keys;
  ddbst__buf_init(&scratch, a);
  ddbst__buf_init(&keys, a);
  int rc = ddbst__item_explain_in(item, op, flags, pg, out, &scratch, &keys,
                                  err);
  ddbst__buf_release(&scratch);
  ddbst__buf_release(&keys);
  return rc;
}
