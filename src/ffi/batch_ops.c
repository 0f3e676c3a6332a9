/* The JSON entry's ops on many items: batchGet, batchWrite and transact,
 * each element read as an item request. */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

/* Each element of "items" read as an item; `add` puts it where it goes. */
typedef int (*add_fn)(call *c, void *to, ddbst_item *it, const char *op,
                      const ddbst__jnode *elem, int64_t now);

static int each_item(call *c, const ddbst__jnode *req, void *to, add_fn add,
                     int64_t now) {
  const ddbst__jnode *items = ddbst__jobj_get(req, "items");
  if (!items || items->type != DDBST__J_ARRAY)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "items",
                           "expected an array of operations");
  for (size_t i = 0; i < items->count; i++) {
    char where[48];
    snprintf(where, sizeof where, "items[%zu]", i);
    const ddbst__jnode *e = items->items[i];
    if (e->type != DDBST__J_OBJECT)
      return ddbst__ffi_fail(c, DDBST_EINVAL, where,
                             "expected an operation object");
    const char *op = NULL;
    ddbst_item *it = NULL;
    int k = -1;
    int rc = ddbst__ffi_get_string(c, e, "op", 1, &op, NULL);
    if (!rc)
      k = strcmp(op, "check") == 0 ? (int)K_CHECK
                                   : ddbst__ffi_item_kind_of(op);
    if (!rc && k < 0)
      rc = ddbst__ffi_fail(c, DDBST_EINVAL, "op",
                           "op %s: not an item operation", op);
    if (!rc)
      rc = ddbst__ffi_only(c, e, op, ddbst__ffi_fields_of((item_kind)k, 1));
    rc = rc ? rc : ddbst__ffi_read_item(c, e, &it);
    rc = rc ? rc : add(c, to, it, op, e, now);
    ddbst__ffi_item_free(c, it);
    if (rc) return ddbst__ffi_prefix_path(c, where);
  }
  return 0;
}

typedef struct batch_target {
  ddbst_batch *b;
  int reads; /* batchGet: gets only; batchWrite: puts and deletes */
} batch_target;

static int add_to_batch(call *c, void *to, ddbst_item *it, const char *op,
                        const ddbst__jnode *elem, int64_t now) {
  (void)elem;
  batch_target *t = to;
  if (t->reads && !strcmp(op, "get")) {
    int r = ddbst_batch_get(t->b, it, &c->err);
    return r < 0 ? r : 0;
  }
  if (!t->reads && !strcmp(op, "put"))
    return ddbst_batch_put(t->b, it, now, &c->err);
  if (!t->reads && !strcmp(op, "delete"))
    return ddbst_batch_delete(t->b, it, &c->err);
  return ddbst__ffi_fail(c, DDBST_EINVAL, "op", "%s takes %s, not %s",
                         t->reads ? "batchGet" : "batchWrite",
                         t->reads ? "get" : "put and delete", op);
}

int ddbst__ffi_op_batch(call *c, const ddbst__jnode *req, int reads) {
  static const char *const f[] = {"op", "items", "consistent", "now", NULL};
  if (ddbst__ffi_only(c, req, reads ? "batchGet" : "batchWrite", f))
    return c->err.code;
  int rc, consistent = 0;
  int64_t now = ddbst__ffi_now_of(c, req, &rc);
  rc = rc ? rc : ddbst__ffi_get_bool(c, req, "consistent", &consistent);
  if (rc) return rc;
  ddbst_batch *b = ddbst__ffi_batch_new(c);
  if (!b) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  batch_target t = {b, reads};
  rc = each_item(c, req, &t, add_to_batch, now);
  if (!rc) {
    ddbst__jw *w = &c->w;
    int n = ddbst_batch_request_count(b);
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "requests");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < n && !w->rc; i++) {
      ddbst_buf_reset(&c->tmp);
      int op = ddbst_batch_request(
          b, i, consistent ? DDBST_CONSISTENT_READ : 0, &c->tmp, &c->err);
      if (ddbst__jw_status(w, op < 0 ? op : 0)) break;
      ddbst__ffi_open_request(c, op);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst__ffi_batch_free(c, b);
  return rc;
}

static int add_to_txn(call *c, void *to, ddbst_item *it, const char *op,
                      const ddbst__jnode *elem, int64_t now) {
  ddbst_txn *t = to;
  int k = ddbst__ffi_item_kind_of(op), rc = 0;
  uint32_t flags =
      k >= 0 ? ddbst__ffi_flags_of(c, elem, (item_kind)k, &rc) : 0;
  if (rc) return rc;
  flags |= c->txn_flags;
  switch (k) {
  case K_GET: return ddbst_txn_get(t, it, &c->err);
  case K_PUT:
  case K_CREATE: return ddbst_txn_put(t, it, flags, now, &c->err);
  case K_UPDATE: return ddbst_txn_update(t, it, flags, now, &c->err);
  case K_DELETE: return ddbst_txn_delete(t, it, flags, &c->err);
  default: return ddbst_txn_check_flags(t, it, c->txn_flags, &c->err);
  }
}

/* The transaction of a "transact" request, built into the call's. */
int ddbst__ffi_build_txn(call *c, const ddbst__jnode *req, ddbst_txn **out) {
  static const char *const f[] = {"op",  "items", "token", "now",
                                  "returnOnFailure", NULL};
  *out = NULL;
  if (ddbst__ffi_only(c, req, "transact", f)) return c->err.code;
  int rc, on_failure = 0;
  int64_t now = ddbst__ffi_now_of(c, req, &rc);
  rc = rc ? rc : ddbst__ffi_get_bool(c, req, "returnOnFailure", &on_failure);
  if (rc) return rc;
  /* every write and check of the transaction asks for its item */
  c->txn_flags = on_failure ? DDBST_RETURN_OLD_ON_FAILURE : 0u;
  ddbst_txn *t = ddbst__ffi_txn_new(c);
  if (!t) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  rc = each_item(c, req, t, add_to_txn, now);
  if (rc) {
    ddbst__ffi_txn_free(c, t);
    return rc;
  }
  *out = t;
  return 0;
}

int ddbst__ffi_op_transact(call *c, const ddbst__jnode *req) {
  ddbst_txn *t;
  const char *token = NULL;
  int rc = ddbst__ffi_build_txn(c, req, &t);
  rc = rc ? rc : ddbst__ffi_get_string(c, req, "token", 0, &token, NULL);
  int op = rc ? rc : ddbst_txn_request(t, token, &c->tmp, &c->err);
  if (op >= 0) {
    ddbst__ffi_open_request(c, op);
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst__ffi_txn_free(c, t);
  return op < 0 ? op : 0;
}
