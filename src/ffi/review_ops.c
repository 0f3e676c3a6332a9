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
    ddbst__jw_status(w, ddbst_model_patterns_json(c->m, w->b, &c->err));
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
    int rc = ddbst_model_cloudformation(c->m, filters, n, w->b, &c->err);
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

int ddbst__ffi_op_lint(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "lint", f)) return c->err.code;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "findings");
  ddbst__jw_open(w, '[');
  int errors = w->rc ? w->rc : ddbst_model_lint(c->m, on_finding, w, &c->err);
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

int ddbst__ffi_op_version(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (ddbst__ffi_only(c, req, "version", f)) return c->err.code;
  ddbst__jw_open(&c->w, '{');
  ddbst__jw_pair(&c->w, "version", ddbst_version());
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}
