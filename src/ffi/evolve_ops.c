/* The JSON entry's ops on two models: {"op":"diff"} compares the session's
 * model with an older one; lint's "since" (review_ops.c) loads the older
 * one here too. */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

int ddbst__ffi_load_older(call *c, const ddbst__jnode *req,
                          const char *text_field, const char *file_field,
                          const char *table_field, ddbst_model **out) {
  *out = NULL;
  const char *text = NULL, *file = NULL, *table = NULL;
  size_t len = 0;
  if (ddbst__ffi_get_string(c, req, text_field, 0, &text, &len) ||
      ddbst__ffi_get_string(c, req, file_field, 0, &file, NULL) ||
      ddbst__ffi_get_string(c, req, table_field, 0, &table, NULL))
    return c->err.code;
  if (!text && !file) return 0;
  if (text && file)
    return ddbst__ffi_fail(c, DDBST_EINVAL, text_field,
                           "give \"%s\" (the model's text) or \"%s\" (a "
                           "path), one of the two",
                           text_field, file_field);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = c->alloc;
  o.table_name = table;
  int rc = text ? ddbst_model_load(text, len, &o, out, &c->err)
                : ddbst_model_load_file(file, &o, out, &c->err);
  if (rc == DDBST_EIO) c->err.path[0] = '\0'; /* the file is the field's */
  if (rc) return ddbst__ffi_prefix_path(c, text ? text_field : file_field);
  return 0;
}

/* {"op":"diff","old":"<model text>" | "oldFile":"path", "oldTable": the
 * old model's table name in force (as the session's "table"),
 * "tableRenamed": bool, "format":"json" | "text"}: ddbst_model_diff of the old
 * model and the session's. The JSON form is the answer itself; the text form is
 * {"text":"...","worst":"rewrite"}. */
int ddbst__ffi_op_diff(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {
      "op", "old", "oldFile", "oldTable", "format", "tableRenamed", NULL};
  if (ddbst__ffi_only(c, req, "diff", f)) return c->err.code;
  const char *format = NULL;
  int renamed = 0;
  if (ddbst__ffi_get_string(c, req, "format", 0, &format, NULL) ||
      ddbst__ffi_get_bool(c, req, "tableRenamed", &renamed))
    return c->err.code;
  int text = format && !strcmp(format, "text");
  if (format && !text && strcmp(format, "json"))
    return ddbst__ffi_fail(c, DDBST_EINVAL, "format",
                           "format %s: expected \"json\" or \"text\"", format);
  ddbst_model *old = NULL;
  if (ddbst__ffi_load_older(c, req, "old", "oldFile", "oldTable", &old))
    return c->err.code;
  if (!old)
    return ddbst__ffi_fail(c, DDBST_EMISSING, "oldFile",
                           "diff needs the older model: \"old\" (its text) "
                           "or \"oldFile\" (a path)");
  uint32_t flags =
      (text ? DDBST_DIFF_TEXT : 0) | (renamed ? DDBST_DIFF_TABLE_RENAMED : 0);
  int worst = ddbst_model_diff(old, c->m, flags, &c->tmp, &c->err);
  ddbst_model_free(old);
  if (worst < 0) return worst;
  ddbst__jw *w = &c->w;
  if (!text) {
    ddbst__jw_json(w, c->tmp.data, c->tmp.len);
  } else {
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "text");
    ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
    ddbst__jw_pair(w, "worst", ddbst_change_class_name(worst));
    ddbst__jw_close(w, '}');
  }
  return w->rc;
}
