/* The JSON entry's ops on what DynamoDB answered: page (items, cursor,
 * follow-up request), explain (a failed write in the model's words) and
 * stream (a Lambda stream event). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi.h"
#include "response/explain.h"

static const char *ddb_kind_name(int kind) {
  static const char *const names[] = {"None",
                                      "Other",
                                      "ConditionalCheckFailed",
                                      "TransactionCanceled",
                                      "TransactionConflict",
                                      "TransactionInProgress",
                                      "Throttled",
                                      "Validation",
                                      "ResourceNotFound",
                                      "Internal",
                                      "ItemCollectionSizeLimit",
                                      "IdempotentParameterMismatch",
                                      "AccessDenied"};
  return kind >= 0 && kind < (int)(sizeof names / sizeof names[0])
             ? names[kind]
             : "Other";
}

static const char *fail_kind_name(int kind) {
  static const char *const names[] = {"none",     "unique",    "exists",
                                      "version",  "missing",   "condition",
                                      "conflict", "throttled", "other"};
  return kind >= 0 && kind < (int)(sizeof names / sizeof names[0])
             ? names[kind]
             : "other";
}

/* "dynamodb": what the error answer in the page says, as a member of the
 * open object. */
static void put_dynamodb_error(call *c, const ddbst_page *pg) {
  ddbst__jw *w = &c->w;
  ddbst__jw_key(w, "dynamodb");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "type", ddbst_page_error_type(pg));
  ddbst__jw_pair(w, "kind", ddb_kind_name(ddbst_page_error_kind(pg)));
  ddbst__jw_pair(w, "message", ddbst_page_error_message(pg));
  ddbst__jw_key(w, "retryable");
  ddbst__jw_bool(w, ddbst_page_error_retryable(pg));
  ddbst__jw_key(w, "reasons");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < ddbst_page_reason_count(pg) && !w->rc; i++) {
    const char *code, *message;
    int kind = ddbst_page_reason(pg, i, &code, &message);
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "code", code);
    ddbst__jw_pair(w, "kind", ddb_kind_name(kind));
    ddbst__jw_pair(w, "message", message);
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
  /* only when the body carried them: older answers stay as they were */
  int nthrottles = ddbst_page_throttling_reason_count(pg);
  if (nthrottles) {
    ddbst__jw_key(w, "throttlingReasons");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < nthrottles; i++) {
      const char *reason, *resource;
      ddbst_page_throttling_reason(pg, i, &reason, &resource);
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "reason", reason);
      ddbst__jw_pair(w, "resource", resource);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
  }
  ddbst__jw_close(w, '}');
}

static const struct {
  const char *name;
  int op;
} read_ops[] = {{"GetItem", DDBST_OP_GET_ITEM},
                {"Query", DDBST_OP_QUERY},
                {"BatchGetItem", DDBST_OP_BATCH_GET_ITEM},
                {"BatchWriteItem", DDBST_OP_BATCH_WRITE_ITEM},
                {"TransactGetItems", DDBST_OP_TRANSACT_GET_ITEMS},
                /* a write's ReturnValues */
                {"PutItem", DDBST_OP_PUT_ITEM},
                {"UpdateItem", DDBST_OP_UPDATE_ITEM},
                {"DeleteItem", DDBST_OP_DELETE_ITEM}};

int ddbst__ffi_op_page(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op",     "operation", "response", "pattern",
                                  "values", "now",       "entity",   NULL};
  if (ddbst__ffi_only(c, req, "page", f)) return c->err.code;
  const char *opname, *body;
  size_t len;
  int given, op = -1;
  int64_t now = 0;
  if (ddbst__ffi_get_string(c, req, "operation", 0, &opname, NULL) ||
      ddbst__ffi_get_string(c, req, "response", 1, &body, &len) ||
      ddbst__ffi_get_int(c, req, "now", 0, INT64_MAX, &given, &now))
    return c->err.code;
  for (size_t i = 0; opname && i < sizeof read_ops / sizeof read_ops[0]; i++)
    if (!strcmp(opname, read_ops[i].name)) op = read_ops[i].op;
  if (!opname) op = DDBST_OP_QUERY;
  if (op < 0)
    return ddbst__ffi_fail(
        c, DDBST_EINVAL, "operation",
        "expected GetItem, Query, BatchGetItem, BatchWriteItem, "
        "TransactGetItems, PutItem, UpdateItem or DeleteItem");
  /* a write's values without keys (UPDATED_*) are of the entity written */
  const char *ename = NULL;
  int entity = -1;
  if (ddbst__ffi_get_string(c, req, "entity", 0, &ename, NULL))
    return c->err.code;
  if (ename && (entity = ddbst_model_entity(c->m, ename)) < 0)
    return ddbst__ffi_fail(c, DDBST_ENOTFOUND, "entity",
                           "the model has no entity %s", ename);
  if (ename && op != DDBST_OP_PUT_ITEM && op != DDBST_OP_UPDATE_ITEM &&
      op != DDBST_OP_DELETE_ITEM)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "entity",
                           "the entity is for a write's answer (PutItem, "
                           "UpdateItem, DeleteItem): the items of a read "
                           "say what they are");
  int pattern;
  if (ddbst__ffi_pattern_of(c, req, 0, &pattern)) return c->err.code;
  const ddbst__jnode *given_values = ddbst__jobj_get(req, "values");
  if (pattern < 0 && given_values && given_values->type != DDBST__J_NULL)
    return ddbst__ffi_fail(
        c, DDBST_EINVAL, "values",
        "values make the next page's cursor, for a pattern: give "
        "\"pattern\" too");
  ddbst_item *values = NULL;
  ddbst_page *pg = ddbst__ffi_page_new(c);
  int rc = pg ? 0 : ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  if (!rc && pattern >= 0)
    rc = ddbst__ffi_pattern_values(c, req, pattern, &values);
  int write = op == DDBST_OP_PUT_ITEM || op == DDBST_OP_UPDATE_ITEM ||
              op == DDBST_OP_DELETE_ITEM;
  int n = rc      ? rc
          : write ? ddbst_page_parse_write(pg, op, entity, body, len, &c->err)
          : values && op == DDBST_OP_QUERY
              ? ddbst_page_parse_query(pg, values, pattern, body, len, &c->err)
              : ddbst_page_parse(pg, op, body, len, &c->err);
  ddbst__jw *w = &c->w;
  if (n < 0) {
    rc = n; /* DDBST_EDYNAMODB: the answer says what DynamoDB said too */
  } else {
    ddbst__jw_open(w, '{');
    ddbst__ffi_page_members(c, pg, n, 0);
    if (!w->rc && ddbst_page_has_more(pg) && values && op == DDBST_OP_QUERY)
      ddbst__ffi_page_cursor(c, pg, given ? now : DDBST_NOW);
    if (!w->rc) {
      ddbst_buf_reset(&c->tmp);
      int fop = ddbst_page_followup_request(pg, &c->tmp, &c->err);
      ddbst__jw_status(w, fop < 0 ? fop : 0);
      if (fop > 0) {
        ddbst__jw_key(w, "followup");
        ddbst__ffi_open_request(c, fop);
        ddbst__jw_close(w, '}');
      }
    }
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  if (rc == DDBST_EDYNAMODB) {
    /* {"error":{...},"dynamodb":{...}}: written here, the error first */
    ddbst_buf_reset(&c->out);
    ddbst__jw_init(w, &c->out);
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "error");
    ddbst__ffi_put_error(w, &c->err);
    put_dynamodb_error(c, pg);
    ddbst__jw_close(w, '}');
    rc = w->rc;
    if (rc) ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  }
  ddbst__ffi_item_free(c, values);
  ddbst__ffi_page_free(c, pg);
  return rc;
}

/* "explain": an error answer, and — given the request that drew it —
 * what failed in the model's words. */
int ddbst__ffi_op_explain(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "request", "response", NULL};
  if (ddbst__ffi_only(c, req, "explain", f)) return c->err.code;
  const char *body;
  size_t len;
  if (ddbst__ffi_get_string(c, req, "response", 1, &body, &len))
    return c->err.code;
  const ddbst__jnode *orig = ddbst__jobj_get(req, "request");
  if (orig && orig->type != DDBST__J_OBJECT && orig->type != DDBST__J_NULL)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "request",
                           "expected the request object");
  if (orig && orig->type == DDBST__J_NULL) orig = NULL;
  ddbst_page *pg = ddbst__ffi_page_new(c);
  if (!pg) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  int parsed = ddbst_page_parse_error(pg, body, len, &c->err);
  if (parsed < 0) {
    ddbst__ffi_page_free(c, pg);
    return parsed;
  }
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  put_dynamodb_error(c, pg);
  const char *op = NULL;
  if (!w->rc && orig && ddbst__ffi_get_string(c, orig, "op", 1, &op, NULL))
    ddbst__jw_status(w, ddbst__ffi_prefix_path(c, "request"));
  if (!w->rc && op) {
    ddbst_txn *t = NULL;
    ddbst_item *it = NULL;
    int k = ddbst__ffi_item_kind_of(op), kind = 0, rc = 0;
    ddbst_buf_reset(&c->tmp);
    if (!strcmp(op, "transact")) {
      rc = ddbst__ffi_build_txn(c, orig, &t);
      kind = rc ? rc : ddbst_txn_explain(t, pg, &c->tmp, &c->err);
    } else if (k == K_PUT || k == K_CREATE || k == K_UPDATE || k == K_DELETE) {
      uint32_t flags = ddbst__ffi_flags_of(c, orig, (item_kind)k, &rc);
      rc = rc ? rc
              : ddbst__ffi_only(c, orig, op,
                                ddbst__ffi_fields_of((item_kind)k, 0));
      rc = rc ? rc : ddbst__ffi_read_item(c, orig, &it);
      int bop = k == K_UPDATE   ? DDBST_OP_UPDATE_ITEM
                : k == K_DELETE ? DDBST_OP_DELETE_ITEM
                                : DDBST_OP_PUT_ITEM;
      /* the compile's buffers are free once the item's expressions are
       * compiled: the write's entries are written there */
      kind = rc ? rc
                : ddbst__item_explain_in(it, bop, flags, pg, &c->tmp,
                                         &c->xtmp, &c->xwork, &c->err);
    } else {
      kind = ddbst__ffi_fail(
          c, DDBST_EINVAL, "op",
          "only writes are explained: put, create, update, delete, "
          "transact");
    }
    if (kind < 0) {
      ddbst__jw_status(w, ddbst__ffi_prefix_path(c, "request"));
    } else {
      ddbst__jw_pair(w, "kind", fail_kind_name(kind));
      ddbst__jw_key(w, "explanation");
      ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
    }
    if (!w->rc && t) {
      ddbst__jw_key(w, "failures");
      ddbst__jw_open(w, '[');
      int index, entity;
      const char *unique;
      for (int i = 0;
           !w->rc &&
           (kind = ddbst_txn_failure(t, pg, i, &index, &entity, &unique)) > 0;
           i++) {
        const char *en = ddbst_model_entity_name(c->m, entity);
        ddbst__jw_open(w, '{');
        ddbst__jw_pair(w, "kind", fail_kind_name(kind));
        ddbst__jw_key(w, "index");
        ddbst__jw_int(w, index);
        ddbst__jw_key(w, "entity");
        if (en)
          ddbst__jw_str(w, en);
        else
          ddbst__jw_null(w);
        ddbst__jw_key(w, "unique");
        if (unique)
          ddbst__jw_str(w, unique);
        else
          ddbst__jw_null(w);
        ddbst__jw_close(w, '}');
      }
      ddbst__jw_close(w, ']');
    }
    ddbst__ffi_txn_free(c, t);
    ddbst__ffi_item_free(c, it);
  }
  ddbst__jw_close(w, '}');
  ddbst__ffi_page_free(c, pg);
  return w->rc;
}

int ddbst__ffi_op_stream(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "event", "failed", NULL};
  if (ddbst__ffi_only(c, req, "stream", f)) return c->err.code;
  const char *body;
  size_t len;
  if (ddbst__ffi_get_string(c, req, "event", 1, &body, &len))
    return c->err.code;
  const ddbst__jnode *failed = ddbst__jobj_get(req, "failed");
  if (failed && failed->type != DDBST__J_ARRAY &&
      failed->type != DDBST__J_NULL)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "failed",
                           "expected an array of record indices");
  size_t nf = failed && failed->type == DDBST__J_ARRAY ? failed->count : 0;
  int32_t *idx = nf ? ddbst__arena_alloc(&c->ar, nf * sizeof *idx) : NULL;
  if (nf && !idx) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  for (size_t i = 0; i < nf; i++) {
    char *end = NULL;
    const ddbst__jnode *v = failed->items[i];
    long x = v->type == DDBST__J_NUMBER ? strtol(v->text, &end, 10) : -1;
    if (v->type != DDBST__J_NUMBER || *end || x < 0 || x > INT32_MAX) {
      char path[48];
      snprintf(path, sizeof path, "failed[%zu]", i);
      return ddbst__ffi_fail(c, DDBST_EINVAL, path, "expected a record index");
    }
    idx[i] = (int32_t)x;
  }
  ddbst_stream *s = ddbst__ffi_stream_new(c);
  if (!s) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  /* failures name records by their index in the whole event: read whole */
  if (!(failed && failed->type == DDBST__J_ARRAY) &&
      !ddbst__ffi_stream_sliced(c, s, body, len)) {
    ddbst__ffi_stream_free(c, s);
    return 0;
  }
  int n = ddbst_stream_parse(s, body, len, &c->err);
  if (n >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "records");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < n; i++)
      if (ddbst__jw_value(w))
        ddbst__jw_status(w, ddbst_stream_record_json_append(s, i, w->b, &c->err));
    ddbst__jw_close(w, ']');
    if (failed && failed->type == DDBST__J_ARRAY) {
      ddbst__jw_key(w, "failures");
      if (ddbst__jw_value(w))
        ddbst__jw_status(w, ddbst__ffi_append(
                                c, ddbst_stream_failures_json(s, idx, nf, &c->tmp,
                                                              &c->err)));
    }
    ddbst__jw_close(w, '}');
    n = w->rc;
  }
  ddbst__ffi_stream_free(c, s);
  return n < 0 ? n : 0;
}
