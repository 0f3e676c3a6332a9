/* The JSON entry's ops on the model itself: check, patterns, createTable,
 * cloudformation, lint, doc, and the library's version. */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

int ddbst__ffi_op_check(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "check", f)) return c->err.code;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "ok");
  ddbst__jw_bool(w, 1);
  ddbst__jw_pair(w, "table", ddbst_model_table_name(c->m));
  ddbst__jw_key(w, "entities");
  ddbst__jw_int(w, ddbst_model_entity_count(c->m));
  ddbst__jw_key(w, "patterns");
  ddbst__jw_int(w, ddbst_model_pattern_count(c->m));
  ddbst__jw_close(w, '}');
  return w->rc;
}

int ddbst__ffi_op_patterns(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "patterns", f)) return c->err.code;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "patterns");
  if (ddbst__jw_value(w))
    ddbst__jw_status(w, ddbst__ffi_append(c, ddbst_model_patterns_json(
                                               c->m, &c->tmp, &c->err)));
  ddbst__jw_close(w, '}');
  return w->rc;
}

int ddbst__ffi_op_create_table(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "createTable", f)) return c->err.code;
  int op = ddbst_create_table_request(c->m, &c->tmp, &c->err);
  if (op < 0) return op;
  ddbst__ffi_open_request(c, op);
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}

/* {"op":"describeTable"}, {"op":"deleteTable"}, {"op":"updateTable",
 * "addIndex": name} or {"op":"updateTable","removeIndex": name}, and the
 * follow-ups of createTable: {"op":"updateContinuousBackups"},
 * {"op":"updateContributorInsights"[,"index": name]},
 * {"op":"updateTimeToLive"[,"disable": attribute]}. */
int ddbst__ffi_op_table(call *c, const ddbst__jnode *req) {
  static const char *const plain[] = {"op", NULL};
  static const char *const upd[] = {"op", "addIndex", "removeIndex", NULL};
  const char *name = NULL;
  if (ddbst__ffi_get_string(c, req, "op", 1, &name, NULL)) return c->err.code;
  int op;
  if (!strcmp(name, "updateTable")) {
    if (ddbst__ffi_only(c, req, "updateTable", upd)) return c->err.code;
    const char *add = NULL, *rem = NULL;
    if (ddbst__ffi_get_string(c, req, "addIndex", 0, &add, NULL) ||
        ddbst__ffi_get_string(c, req, "removeIndex", 0, &rem, NULL))
      return c->err.code;
    if (!add == !rem)
      return ddbst__ffi_fail(c, DDBST_EINVAL, "",
                             "updateTable takes addIndex or removeIndex, one "
                             "of them");
    op = add ? ddbst_update_table_add_index_request(c->m, add, &c->tmp, &c->err)
             : ddbst_update_table_remove_index_request(c->m, rem, &c->tmp,
                                                       &c->err);
  } else if (!strcmp(name, "updateContributorInsights")) {
    static const char *const ci[] = {"op", "index", NULL};
    const char *index = NULL;
    if (ddbst__ffi_only(c, req, name, ci) ||
        ddbst__ffi_get_string(c, req, "index", 0, &index, NULL))
      return c->err.code;
    op = ddbst_update_contributor_insights_request(c->m, index, &c->tmp,
                                                   &c->err);
  } else if (!strcmp(name, "updateTimeToLive")) {
    static const char *const ttl[] = {"op", "disable", NULL};
    const char *disable = NULL;
    if (ddbst__ffi_only(c, req, name, ttl) ||
        ddbst__ffi_get_string(c, req, "disable", 0, &disable, NULL))
      return c->err.code;
    op = ddbst_update_time_to_live_request(c->m, disable, &c->tmp, &c->err);
  } else if (!strcmp(name, "updateContinuousBackups")) {
    if (ddbst__ffi_only(c, req, name, plain)) return c->err.code;
    op = ddbst_update_continuous_backups_request(c->m, &c->tmp, &c->err);
  } else {
    if (ddbst__ffi_only(c, req, name, plain)) return c->err.code;
    op = !strcmp(name, "describeTable")
             ? ddbst_describe_table_request(c->m, &c->tmp, &c->err)
             : ddbst_delete_table_request(c->m, &c->tmp, &c->err);
  }
  if (op < 0) return op;
  ddbst__ffi_open_request(c, op);
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}

int ddbst__ffi_op_cloudformation(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "streamFilters", NULL};
  if (ddbst__ffi_only(c, req, "cloudformation", f)) return c->err.code;
  const ddbst__jnode *arr = ddbst__jobj_get(req, "streamFilters");
  size_t n = arr && arr->type == DDBST__J_ARRAY ? arr->count : 0;
  if (arr && arr->type != DDBST__J_ARRAY && arr->type != DDBST__J_NULL)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "streamFilters",
                           "expected an array of \"Entity[:EVENTS]\" strings");
  const char **filters =
      n ? ddbst__arena_alloc(&c->ar, n * sizeof *filters) : NULL;
  if (n && !filters) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  for (size_t i = 0; i < n; i++) {
    if (arr->items[i]->type != DDBST__J_STRING) {
      char path[64];
      snprintf(path, sizeof path, "streamFilters[%zu]", i);
      return ddbst__ffi_fail(c, DDBST_EINVAL, path, "expected a string");
    }
    filters[i] = arr->items[i]->text;
  }
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "template");
  if (ddbst__jw_value(w)) {
    int rc = ddbst__ffi_append(
        c, ddbst_model_cloudformation(c->m, filters, n, &c->tmp, &c->err));
    if (rc && !strncmp(c->err.path, "stream_filters", 14)) {
      /* the C API's argument is this request's streamFilters */
      char path[DDBST_ERROR_PATH_MAX];
      snprintf(path, sizeof path, "streamFilters%s", c->err.path + 14);
      memcpy(c->err.path, path, sizeof path);
    }
    ddbst__jw_status(w, rc);
  }
  ddbst__jw_close(w, '}');
  return w->rc;
}

/* Each finding as an element of the open "findings" array. */
static void on_finding(void *user, int32_t severity, const char *rule,
                       const char *path, const char *message) {
  ddbst__jw *w = user;
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "severity", ddbst_lint_severity_name(severity));
  ddbst__jw_pair(w, "rule", rule);
  ddbst__jw_pair(w, "path", path);
  ddbst__jw_pair(w, "message", message);
  ddbst__jw_close(w, '}');
}

/* {"op":"lint"}, and with "since" (an older model's text) or "sinceFile"
 * (its path), "sinceTable" its table name in force: ddbst_model_lint_since. */
int ddbst__ffi_op_lint(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "since", "sinceFile", "sinceTable",
                                  NULL};
  if (ddbst__ffi_only(c, req, "lint", f)) return c->err.code;
  ddbst_model *since = NULL;
  if (ddbst__ffi_load_older(c, req, "since", "sinceFile", "sinceTable",
                            &since))
    return c->err.code;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "findings");
  ddbst__jw_open(w, '[');
  int errors =
      w->rc     ? w->rc
      : since   ? ddbst_model_lint_since(c->m, since, on_finding, w, &c->err)
                : ddbst_model_lint(c->m, on_finding, w, &c->err);
  ddbst_model_free(since);
  if (errors < 0) return errors;
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "errors");
  ddbst__jw_int(w, errors);
  ddbst__jw_close(w, '}');
  return w->rc;
}

int ddbst__ffi_op_doc(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "doc", f)) return c->err.code;
  int rc = ddbst_model_doc(c->m, &c->tmp, &c->err);
  if (rc) return rc;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "markdown");
  ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
  ddbst__jw_close(w, '}');
  return w->rc;
}

/* {"op":"view","seed":N} and {"op":"viewData","seed":N}: the design view,
 * and its sample items as BatchWriteItem requests. */
static int view_op(call *c, const ddbst__jnode *req, const char *what,
                   int data) {
  static const char *const f[] = {"op", "seed", NULL};
  if (ddbst__ffi_only(c, req, what, f)) return c->err.code;
  int given;
  int64_t seed = 1;
  if (ddbst__ffi_get_int(c, req, "seed", 0, INT64_MAX, &given, &seed))
    return c->err.code;
  if (!given) seed = 1;
  int rc = (data ? ddbst_model_view_data : ddbst_model_view_json)(
      c->m, (uint64_t)seed, &c->tmp, &c->err);
  if (rc) return rc;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  if (!data) {
    ddbst__jw_key(w, "view");
    ddbst__jw_json(w, c->tmp.data, c->tmp.len);
  } else {
    ddbst__jw_key(w, "requests");
    ddbst__jw_open(w, '[');
    for (const char *p = c->tmp.data, *end = p + c->tmp.len; p < end;) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "operation", "BatchWriteItem");
      ddbst__jw_pair(w, "target", "DynamoDB_20120810.BatchWriteItem");
      ddbst__jw_key(w, "body");
      ddbst__jw_json(w, p, n);
      ddbst__jw_close(w, '}');
      p += n + 1;
    }
    ddbst__jw_close(w, ']');
  }
  ddbst__jw_close(w, '}');
  return w->rc;
}

int ddbst__ffi_op_view(call *c, const ddbst__jnode *req) {
  return view_op(c, req, "view", 0);
}
int ddbst__ffi_op_view_data(call *c, const ddbst__jnode *req) {
  return view_op(c, req, "viewData", 1);
}

int ddbst__ffi_op_version(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "version", f)) return c->err.code;
  ddbst__jw_open(&c->w, '{');
  ddbst__jw_pair(&c->w, "version", ddbst_version());
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}
