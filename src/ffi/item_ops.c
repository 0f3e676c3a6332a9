/* The JSON entry's ops on one item: keys, itemSize and parse, the
 * single-item requests (get, put, create, update, delete) and query. */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

static const char *const item_fields[] = {"op", "entity", "values", "now",
                                          NULL};

int ddbst__ffi_op_keys(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "keys", item_fields)) return c->err.code;
  ddbst_item *it;
  int rc = ddbst__ffi_read_item(c, req, &it);
  if (rc) return rc;
  int64_t now = ddbst__ffi_now_of(c, req, &rc);
  /* keys as the item would be written: defaults (now, ULIDs) filled first */
  rc = rc ? rc : ddbst_item_apply_defaults(it, now, &c->err);
  if (!rc) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "keys");
    if (ddbst__jw_value(w))
      ddbst__jw_status(w, ddbst_item_keys_json_append(it, w->b, &c->err));
    ddbst__jw_key(w, "item");
    ddbst__ffi_put_values(c, it);
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst__ffi_item_free(c, it);
  return rc;
}

int ddbst__ffi_op_item_size(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "itemSize", item_fields)) return c->err.code;
  ddbst_item *it;
  int rc = ddbst__ffi_read_item(c, req, &it);
  if (rc) return rc;
  int64_t now = ddbst__ffi_now_of(c, req, &rc);
  rc = rc ? rc : ddbst_item_apply_defaults(it, now, &c->err);
  int bytes = rc ? rc : ddbst_item_size(it, &c->err);
  if (bytes >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "bytes");
    ddbst__jw_int(w, bytes);
    ddbst__jw_key(w, "limit");
    ddbst__jw_int(w, 409600);
    ddbst__jw_close(w, '}');
    bytes = w->rc;
  }
  ddbst__ffi_item_free(c, it);
  return bytes < 0 ? bytes : 0;
}

int ddbst__ffi_op_parse(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "index", "pk", "sk", NULL};
  if (ddbst__ffi_only(c, req, "parse", f)) return c->err.code;
  const char *index, *pk, *sk;
  size_t pk_len, sk_len;
  if (ddbst__ffi_get_string(c, req, "index", 0, &index, NULL) ||
      ddbst__ffi_get_string(c, req, "pk", 1, &pk, &pk_len) ||
      ddbst__ffi_get_string(c, req, "sk", 0, &sk, &sk_len))
    return c->err.code;
  ddbst_item *it = ddbst__ffi_item_new(c, 0);
  if (!it) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  int entity = ddbst_item_from_key(it, index, pk, pk_len, sk, sk_len, &c->err);
  if (entity >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "entity", ddbst_model_entity_name(c->m, entity));
    ddbst__jw_key(w, "values");
    ddbst__ffi_put_values(c, it);
    ddbst__jw_close(w, '}');
    entity = w->rc;
  }
  ddbst__ffi_item_free(c, it);
  return entity < 0 ? entity : 0;
}

/* ---- single-item requests ---- */

static const struct {
  const char *op;
  item_kind kind;
} item_ops[] = {{"get", K_GET},
                {"put", K_PUT},
                {"create", K_CREATE},
                {"update", K_UPDATE},
                {"delete", K_DELETE}};

int ddbst__ffi_item_kind_of(const char *op) {
  for (size_t i = 0; i < sizeof item_ops / sizeof item_ops[0]; i++)
    if (!strcmp(op, item_ops[i].op)) return (int)item_ops[i].kind;
  return -1;
}

/* The fields each kind takes: alone, or as an element of a batch or a
 * transaction, whose request gives "now" and "consistent" for them all. */
const char *const *ddbst__ffi_fields_of(item_kind k, int element) {
  static const char *const get[] = {"op",      "entity",     "values",
                                    "project", "consistent", NULL};
  static const char *const put[] = {
      "op",     "entity", "values", "expectVersion",   "condition",
      "params", "now",    "return", "returnOnFailure", NULL};
  static const char *const update[] = {
      "op",        "entity",          "values", "set",       "remove",
      "add",       "append",          "update", "previous",  "expectVersion",
      "upsert",    "condition",       "params", "now",       "return",
      "returnOnFailure", NULL};
  static const char *const del[] = {
      "op",        "entity", "values", "expectVersion",   "ifExists",
      "condition", "params", "return", "returnOnFailure", NULL};
  static const char *const get_element[] = {"op", "entity", "values", NULL};
  static const char *const put_element[] = {
      "op", "entity", "values", "expectVersion", "condition", "params", NULL};
  static const char *const update_element[] = {
      "op",     "entity",        "values", "set",      "remove",
      "add",    "append",        "update", "previous", "expectVersion",
      "upsert", "condition",     "params", NULL};
  switch (k) {
  case K_GET: return element ? get_element : get;
  case K_PUT:
  case K_CREATE: return element ? put_element : put;
  case K_UPDATE: return element ? update_element : update;
  case K_CHECK: return put_element; /* a ConditionCheck: exists, version */
  default: return del;
  }
}

uint32_t ddbst__ffi_flags_of(call *c, const ddbst__jnode *req, item_kind k,
                             int *rc) {
  int consistent = 0, upsert = 0, if_exists = 0, on_failure = 0;
  const char *ret = NULL;
  uint32_t r = 0;
  *rc = ddbst__ffi_get_bool(c, req, "consistent", &consistent);
  *rc = *rc ? *rc : ddbst__ffi_get_bool(c, req, "upsert", &upsert);
  *rc = *rc ? *rc : ddbst__ffi_get_bool(c, req, "ifExists", &if_exists);
  *rc = *rc ? *rc
            : ddbst__ffi_get_bool(c, req, "returnOnFailure", &on_failure);
  *rc = *rc ? *rc : ddbst__ffi_get_string(c, req, "return", 0, &ret, NULL);
  if (!*rc && ret) {
    /* ReturnValues, as DynamoDB spells them */
    static const struct {
      const char *name;
      uint32_t flag;
    } values[] = {{"NONE", 0},
                  {"ALL_OLD", DDBST_RETURN_ALL_OLD},
                  {"UPDATED_OLD", DDBST_RETURN_UPDATED_OLD},
                  {"ALL_NEW", DDBST_RETURN_ALL_NEW},
                  {"UPDATED_NEW", DDBST_RETURN_UPDATED_NEW}};
    int found = 0;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
      if (!strcmp(ret, values[i].name)) {
        r = values[i].flag;
        found = 1;
      }
    if (!found)
      *rc = ddbst__ffi_fail(c, DDBST_EINVAL, "return",
                            "expected NONE, ALL_OLD, UPDATED_OLD, ALL_NEW or "
                            "UPDATED_NEW");
  }
  return (consistent ? DDBST_CONSISTENT_READ : 0u) |
         (upsert ? DDBST_UPSERT : 0u) | (if_exists ? DDBST_IF_EXISTS : 0u) |
         (k == K_CREATE ? DDBST_CREATE : 0u) | r |
         (on_failure ? DDBST_RETURN_OLD_ON_FAILURE : 0u);
}

/* The builder of kind `k` into c->tmp: its DDBST_OP_* or an error. */
static int build_item(call *c, ddbst_item *it, item_kind k, uint32_t flags,
                      int64_t now) {
  ddbst_buf_reset(&c->tmp);
  switch (k) {
  case K_GET: return ddbst_get_request(it, flags, &c->tmp, &c->err);
  case K_PUT:
  case K_CREATE: return ddbst_put_request(it, flags, now, &c->tmp, &c->err);
  case K_UPDATE: return ddbst_update_request(it, flags, now, &c->tmp, &c->err);
  default: return ddbst_delete_request(it, flags, &c->tmp, &c->err);
  }
}

int ddbst__ffi_op_item(call *c, const ddbst__jnode *req, item_kind k,
                       const char *name) {
  if (ddbst__ffi_only(c, req, name, ddbst__ffi_fields_of(k, 0)))
    return c->err.code;
  int rc;
  uint32_t flags = ddbst__ffi_flags_of(c, req, k, &rc);
  int64_t now = rc ? 0 : ddbst__ffi_now_of(c, req, &rc);
  ddbst_item *it = NULL;
  rc = rc ? rc : ddbst__ffi_read_item(c, req, &it);
  int op = rc ? rc : build_item(c, it, k, flags, now);
  if (op >= 0) {
    ddbst__ffi_open_request(c, op);
    if (k == K_PUT || k == K_CREATE) {
      /* what the write stores, generated ids and timestamps included */
      ddbst__jw_key(&c->w, "item");
      ddbst__ffi_put_values(c, it);
    }
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst__ffi_item_free(c, it);
  return op < 0 ? op : 0;
}

/* ---- queries ---- */

static const struct {
  const char *name;
  int cond;
} conditions[] = {{"begins", DDBST_SK_BEGINS}, {"gt", DDBST_SK_GT},
                  {"gte", DDBST_SK_GTE},       {"lt", DDBST_SK_LT},
                  {"lte", DDBST_SK_LTE},       {"between", DDBST_SK_BETWEEN}};

/* "condition": {"createdAt": {"begins": "2026-03"}}; a between takes
 * [low, high]; a pair of bounds is two members, a lower (gt, gte) and an
 * upper (lt, lte): {"createdAt": {"gt": "2026-01", "lt": "2026-03"}}. */
static int condition_of(const char *name) {
  for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++)
    if (!strcmp(name, conditions[i].name)) return conditions[i].cond;
  return -1;
}

static int read_condition(call *c, ddbst_item *values, const ddbst__jnode *req,
                          ddbst_query *q) {
  const ddbst__jnode *cond = ddbst__jobj_get(req, "condition");
  if (!cond || cond->type == DDBST__J_NULL) return 0;
  if (cond->type != DDBST__J_OBJECT || cond->count != 1 ||
      cond->items[0]->type != DDBST__J_OBJECT ||
      (cond->items[0]->count != 1 && cond->items[0]->count != 2))
    return ddbst__ffi_fail(
        c, DDBST_EINVAL, "condition",
        "expected {\"<facet>\": {\"<begins|gt|gte|lt|lte|between>\": "
        "value}} or a lower and an upper bound {\"<gt|gte>\": value, "
        "\"<lt|lte>\": value}");
  int a = ddbst__ffi_attribute(c, values, "condition", cond->keys[0]);
  if (a < 0) return a;
  const ddbst__jnode *test = cond->items[0];
  char path[DDBST_ERROR_PATH_MAX];
  q->attribute = a;
  const ddbst__jnode *v = test->items[0], *v2 = NULL;
  if (test->count == 2) {
    /* a pair: whichever order the members come in */
    int lo = -1, hi = -1;
    for (int i = 0; i < 2; i++) {
      int k = condition_of(test->keys[i]);
      if (k == DDBST_SK_GT || k == DDBST_SK_GTE) {
        if (lo >= 0) hi = -2; /* two lower bounds */
        lo = i;
      } else if (k == DDBST_SK_LT || k == DDBST_SK_LTE) {
        if (hi >= 0) lo = -2;
        hi = i;
      }
    }
    if (lo < 0 || hi < 0) {
      snprintf(path, sizeof path, "condition.%s", cond->keys[0]);
      return ddbst__ffi_fail(c, DDBST_EINVAL, path,
                             "two bounds are a lower one (gt or gte) and an "
                             "upper one (lt or lte), not %s and %s",
                             test->keys[0], test->keys[1]);
    }
    int gt = condition_of(test->keys[lo]) == DDBST_SK_GT;
    int lt = condition_of(test->keys[hi]) == DDBST_SK_LT;
    q->condition = gt ? (lt ? DDBST_SK_GT_LT : DDBST_SK_GT_LTE)
                      : (lt ? DDBST_SK_GTE_LT : DDBST_SK_BETWEEN);
    v = test->items[lo];
    v2 = test->items[hi];
    snprintf(path, sizeof path, "condition.%s", cond->keys[0]);
  } else {
    snprintf(path, sizeof path, "condition.%s.%s", cond->keys[0],
             test->keys[0]);
    q->condition = condition_of(test->keys[0]);
    if (q->condition < 0)
      return ddbst__ffi_fail(c, DDBST_EINVAL, path,
                             "expected begins, gt, gte, lt, lte or between");
    if (q->condition == DDBST_SK_BETWEEN) {
      if (v->type != DDBST__J_ARRAY || v->count != 2)
        return ddbst__ffi_fail(c, DDBST_EINVAL, path, "expected [low, high]");
      v2 = v->items[1];
      v = v->items[0];
    }
  }
  if ((v->type != DDBST__J_STRING && v->type != DDBST__J_NUMBER) ||
      (v2 && v2->type != DDBST__J_STRING && v2->type != DDBST__J_NUMBER))
    return ddbst__ffi_fail(c, DDBST_EINVAL, path,
                           "expected a value as a string");
  q->value = v->text;
  q->value_len = v->len;
  if (v2) {
    q->value2 = v2->text;
    q->value2_len = v2->len;
  }
  return 0;
}

int ddbst__ffi_op_query(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {
      "op",         "pattern", "values",  "condition", "filter", "params",
      "limit",      "consistent", "cursor", "project", "now",    "select",
      NULL};
  if (ddbst__ffi_only(c, req, "query", f)) return c->err.code;
  int pattern;
  if (ddbst__ffi_pattern_of(c, req, 1, &pattern)) return c->err.code;
  ddbst_item *values;
  int rc = ddbst__ffi_pattern_values(c, req, pattern, &values);
  if (rc) return rc;
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  int given, consistent = 0;
  int64_t limit = 0, now = 0;
  rc = read_condition(c, values, req, &q);
  rc = rc ? rc
          : ddbst__ffi_apply_names(c, values, req, "project",
                                   ddbst_item_project);
  rc = rc ? rc
          : ddbst__ffi_get_int(c, req, "limit", 1, UINT32_MAX, &given, &limit);
  rc = rc ? rc : ddbst__ffi_get_int(c, req, "now", 0, INT64_MAX, &given, &now);
  rc = rc ? rc : ddbst__ffi_get_bool(c, req, "consistent", &consistent);
  rc = rc ? rc
          : ddbst__ffi_get_string(c, req, "cursor", 0, &q.cursor,
                                  &q.cursor_len);
  q.limit = (uint32_t)limit;
  q.now_unix_us = now;
  q.flags = consistent ? DDBST_CONSISTENT_READ : 0;
  const char *select = NULL;
  rc = rc ? rc : ddbst__ffi_get_string(c, req, "select", 0, &select, NULL);
  if (!rc && select && strcmp(select, "COUNT") && strcmp(select, "ALL"))
    rc = ddbst__ffi_fail(c, DDBST_EINVAL, "select",
                         "expected COUNT (the number of items, not the "
                         "items) or ALL");
  if (!rc && select && !strcmp(select, "COUNT")) q.flags |= DDBST_QUERY_COUNT;
  q.cursor_keys = c->keys;
  ddbst_expr *filter = NULL;
  rc = rc ? rc
          : ddbst__ffi_read_expr(c, req, "filter", ddbst_item_entity(values),
                                 DDBST_EXPR_FILTER, &filter);
  rc = rc ? rc : ddbst__ffi_read_params(c, values, req);
  q.filter = filter;
  int op =
      rc ? rc : ddbst_query_request(values, pattern, &q, &c->tmp, &c->err);
  ddbst_expr_free(filter);
  if (op < 0) {
    ddbst__ffi_keys_path(c);
  } else {
    ddbst__ffi_open_request(c, op);
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst__ffi_item_free(c, values);
  return op < 0 ? op : 0;
}
