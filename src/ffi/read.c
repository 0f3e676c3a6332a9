/* Reading a JSON entry request: fields of each type, unknown fields refused,
 * values objects applied to an item by the model's attribute types, and
 * error paths that name the request's own fields. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "ffi/ffi.h"
#include "item/item_named.h"
#include "model/suggest.h"
#include "request/cond.h"

int ddbst__ffi_fail(call *c, int code, const char *path, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__vfail(&c->err, code, path, fmt, ap);
  va_end(ap);
  return code;
}

/* Puts `prefix` before the path of the error in c->err ("items[2]."). */
int ddbst__ffi_prefix_path(call *c, const char *prefix) {
  char path[DDBST_ERROR_PATH_MAX];
  int n = snprintf(path, sizeof path, "%s%s%s", prefix,
                   c->err.path[0] ? "." : "", c->err.path);
  if (n < 0 || (size_t)n >= sizeof path) /* cut, perhaps mid-character */
    ddbst__trim_partial_utf8(path);
  memcpy(c->err.path, path, sizeof path);
  return c->err.code;
}

/* The builders refuse an update that moves a unique guard without the
 * attribute's previous value, naming the typed API's way to give it
 * (ddbst_item_set_previous). The JSON entry's caller gives it in
 * "previous", and a prepared operation's cannot give it at all: the
 * message names what they write, the JSON path of the value
 * (previous.email: the attribute is the last part of `e->path`). */
void ddbst__ffi_name_previous(ddbst_error *e, int prepared) {
  static const char typed[] =
      "give the previous value too (ddbst_item_set_previous)";
  size_t n = strlen(e->message), t = sizeof typed - 1;
  if (e->code != DDBST_EMISSING || n < t || strcmp(e->message + n - t, typed))
    return;
  const char *dot = strrchr(e->path, '.');
  const char *attr = dot ? dot + 1 : e->path;
  size_t cap = sizeof e->message - (n - t);
  int w = snprintf(e->message + n - t, cap,
                   prepared ? "its previous value is needed, which a "
                              "prepared update cannot carry (the JSON "
                              "entry's previous.%s can)"
                            : "give the previous value too (previous.%s)",
                   attr);
  if (w < 0 || (size_t)w >= cap) /* cut, perhaps mid-character */
    ddbst__trim_partial_utf8(e->message);
}

/* Refuses members not in `allowed` (NULL-terminated). */
int ddbst__ffi_only(call *c, const ddbst__jnode *obj, const char *what,
                    const char *const *allowed) {
  for (size_t i = 0; i < obj->count; i++) {
    const char *const *k = allowed;
    while (*k && strcmp(*k, obj->keys[i]) != 0) k++;
    if (*k) continue;
    ddbst__suggest s;
    ddbst__suggest_init(&s, obj->keys[i]);
    for (k = allowed; *k; k++)
      if (!ddbst__jobj_get(obj, *k)) ddbst__suggest_offer(&s, *k);
    char tail[DDBST__TAIL_CAP];
    return ddbst__ffi_fail(
        c, DDBST_EINVAL, obj->keys[i], "unknown field for %s%s", what,
        ddbst__suggest_tail(ddbst__suggest_best(&s), tail, sizeof tail));
  }
  return 0;
}

int ddbst__ffi_get_string(call *c, const ddbst__jnode *obj, const char *key,
                          int required, const char **s, size_t *n) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, key);
  *s = NULL;
  if (n) *n = 0;
  if (!v || v->type == DDBST__J_NULL) {
    if (required)
      return ddbst__ffi_fail(c, DDBST_EMISSING, key, "%s is required", key);
    return 0;
  }
  if (v->type != DDBST__J_STRING)
    return ddbst__ffi_fail(c, DDBST_EINVAL, key, "expected a string");
  *s = v->text;
  if (n) *n = v->len;
  return 0;
}

int ddbst__ffi_get_bool(call *c, const ddbst__jnode *obj, const char *key,
                        int *b) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, key);
  *b = 0;
  if (!v || v->type == DDBST__J_NULL) return 0;
  if (v->type != DDBST__J_BOOL)
    return ddbst__ffi_fail(c, DDBST_EINVAL, key, "expected true or false");
  *b = v->boolean;
  return 0;
}

int ddbst__ffi_get_int(call *c, const ddbst__jnode *obj, const char *key,
                       int64_t lo, int64_t hi, int *given, int64_t *x) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, key);
  *given = 0;
  if (!v || v->type == DDBST__J_NULL) return 0;
  char *end = NULL;
  long long n = 0;
  errno = 0;
  if (v->type == DDBST__J_NUMBER) n = strtoll(v->text, &end, 10);
  if (v->type != DDBST__J_NUMBER || *end || errno == ERANGE || n < lo ||
      n > hi)
    return ddbst__ffi_fail(c, DDBST_EINVAL, key,
                           "expected a whole number from %lld to %lld",
                           (long long)lo, (long long)hi);
  *given = 1;
  *x = n;
  return 0;
}

ddbst_item *ddbst__ffi_item_new(call *c, int entity) {
  ddbst_item *it = c->spare;
  if (it && ddbst_item_reset(it, entity) == 0) {
    c->spare = NULL;
    return it;
  }
  return ddbst_item_new(c->m, entity);
}

void ddbst__ffi_item_free(call *c, ddbst_item *it) {
  if (it && !c->spare)
    c->spare = it; /* reset when taken: it may hold a request's values */
  else
    ddbst_item_free(it);
}

typedef int (*setter)(ddbst_item *, int, const char *, size_t, ddbst_error *);

static int item_set(ddbst_item *it, int a, const char *t, size_t n,
                    ddbst_error *e) {
  return ddbst_item_set(it, a, t, n, e);
}

/* The attribute `name` of the item's entity, or DDBST_ENOTFOUND at `path`. */
int ddbst__ffi_attribute(call *c, ddbst_item *it, const char *field,
                         const char *name) {
  return ddbst__item_attribute_named(it, field, name, &c->err);
}

/* Applies every member of the object `field` with `fn`, by the rules
 * ddbst_item_set_json reads by (item/item_named.h). */
static int apply(call *c, ddbst_item *it, const ddbst__jnode *req,
                 const char *field, setter fn) {
  return ddbst__item_apply_json(it, ddbst__jobj_get(req, field), field, fn,
                                &c->tmp, &c->err);
}

/* "remove" and "project": arrays of attribute names. */
int ddbst__ffi_apply_names(call *c, ddbst_item *it, const ddbst__jnode *req,
                           const char *field, int (*fn)(ddbst_item *, int)) {
  const ddbst__jnode *arr = ddbst__jobj_get(req, field);
  if (!arr || arr->type == DDBST__J_NULL) return 0;
  if (arr->type != DDBST__J_ARRAY)
    return ddbst__ffi_fail(c, DDBST_EINVAL, field,
                           "expected an array of attribute names");
  for (size_t i = 0; i < arr->count; i++) {
    char path[64];
    snprintf(path, sizeof path, "%s[%zu]", field, i);
    if (arr->items[i]->type != DDBST__J_STRING)
      return ddbst__ffi_fail(c, DDBST_EINVAL, path,
                             "expected an attribute name");
    int a = ddbst__ffi_attribute(c, it, field, arr->items[i]->text);
    if (a < 0) return a;
    fn(it, a);
  }
  return 0;
}

/* A condition, filter or update actions in `field`: a string is the text
 * form, an object or array the JSON form (docs/conditions.md). Compiled
 * into *out (NULL when the field is absent). */
int ddbst__ffi_read_expr(call *c, const ddbst__jnode *req, const char *field,
                         int entity, int kind, ddbst_expr **out) {
  const ddbst__jnode *v = ddbst__jobj_get(req, field);
  *out = NULL;
  if (!v || v->type == DDBST__J_NULL) return 0;
  /* compiled into the call's memory: the expression lives as long as the
   * request's tree, and a warm call allocates nothing for it */
  ddbst__xmem mem = {&c->ar, &c->xtmp, &c->xwork};
  if (v->type == DDBST__J_STRING)
    return ddbst__expr_compile_in(&mem, c->m, entity, kind, v->text, v->len,
                                  NULL, out, &c->err);
  if (v->type != (kind == DDBST_EXPR_UPDATE ? DDBST__J_ARRAY : DDBST__J_OBJECT))
    return ddbst__ffi_fail(c, DDBST_EINVAL, field,
                           "expected the text form (a string) or the JSON "
                           "form (%s)",
                           kind == DDBST_EXPR_UPDATE ? "an array of actions"
                                                     : "an object");
  return ddbst__expr_compile_in(&mem, c->m, entity, kind, NULL, 0, v, out,
                                &c->err);
}

/* "params": {"qty": 3, "tag": "new"}: each bound on the item, its text as
 * "values" gives it (a string as is; numbers, true/false, arrays and
 * objects as their JSON). */
int ddbst__ffi_read_params(call *c, ddbst_item *it, const ddbst__jnode *req) {
  const ddbst__jnode *obj = ddbst__jobj_get(req, "params");
  if (!obj || obj->type == DDBST__J_NULL) return 0;
  if (obj->type != DDBST__J_OBJECT)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "params",
                           "expected an object of parameters: {\"qty\": 3}");
  for (size_t i = 0; i < obj->count; i++) {
    const ddbst__jnode *v = obj->items[i];
    const char *text = v->text;
    size_t n = v->len;
    if (v->type == DDBST__J_NULL) continue;
    if (v->type == DDBST__J_BOOL) {
      text = v->boolean ? "true" : "false";
      n = strlen(text);
    } else if (v->type == DDBST__J_ARRAY || v->type == DDBST__J_OBJECT) {
      ddbst__jw json;
      ddbst_buf_reset(&c->tmp);
      ddbst__jw_init(&json, &c->tmp);
      ddbst__ffi_write_json(&json, v);
      if (json.rc) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
      text = c->tmp.data;
      n = c->tmp.len;
    }
    if (ddbst_item_bind(it, obj->keys[i], text, n, &c->err)) return c->err.code;
  }
  return 0;
}

/* The item's condition and update actions, compiled into the call's
 * memory (ddbst__ffi_read_expr): the item refers to them, never owns them,
 * so that the spare item's next reset touches nothing of this call. */
static int read_expressions(call *c, ddbst_item *it, const ddbst__jnode *req) {
  static const struct {
    const char *field;
    int kind;
  } fields[] = {{"condition", DDBST_EXPR_CONDITION},
                {"update", DDBST_EXPR_UPDATE}};
  for (size_t i = 0; i < 2; i++) {
    ddbst_expr *x;
    int rc = ddbst__ffi_read_expr(c, req, fields[i].field,
                                  ddbst_item_entity(it), fields[i].kind, &x);
    if (!rc && x)
      rc = fields[i].kind == DDBST_EXPR_UPDATE
               ? ddbst_item_update(it, x, &c->err)
               : ddbst_item_condition(it, x, &c->err);
    if (rc) return rc;
  }
  return ddbst__ffi_read_params(c, it, req);
}

static int entity_of(call *c, const ddbst__jnode *req) {
  const char *name;
  if (ddbst__ffi_get_string(c, req, "entity", 1, &name, NULL))
    return c->err.code;
  int e = ddbst_model_entity(c->m, name);
  char tail[DDBST__TAIL_CAP];
  if (e < 0)
    return ddbst__ffi_fail(
        c, DDBST_ENOTFOUND, "entity", "the model has no entity %s%s", name,
        ddbst__suggest_tail(ddbst__suggest_entity(c->m, name), tail,
                            sizeof tail));
  return e;
}

/* A new item of the request's entity holding everything it gives. */
int ddbst__ffi_read_item(call *c, const ddbst__jnode *req, ddbst_item **out) {
  *out = NULL;
  int entity = entity_of(c, req);
  if (entity < 0) return entity;
  ddbst_item *it = ddbst__ffi_item_new(c, entity);
  if (!it) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  int given;
  int64_t version = 0;
  int rc = apply(c, it, req, "values", item_set);
  rc = rc ? rc : apply(c, it, req, "set", item_set);
  rc = rc ? rc : apply(c, it, req, "add", ddbst_item_add);
  rc = rc ? rc : apply(c, it, req, "append", ddbst_item_append);
  rc = rc ? rc : apply(c, it, req, "previous", ddbst_item_set_previous);
  rc = rc ? rc
          : ddbst__ffi_apply_names(c, it, req, "remove", ddbst_item_remove);
  rc = rc ? rc
          : ddbst__ffi_apply_names(c, it, req, "project", ddbst_item_project);
  rc = rc ? rc : read_expressions(c, it, req);
  /* versions count from 1, and a write stores the next one */
  rc = rc ? rc
          : ddbst__ffi_get_int(c, req, "expectVersion", 1, INT64_MAX - 1,
                               &given, &version);
  if (!rc && given && ddbst_item_expect_version(it, version))
    rc = ddbst__ffi_fail(c, DDBST_EINVAL, "expectVersion",
                         "%s has no version attribute",
                         ddbst_model_entity_name(c->m, entity));
  if (rc) {
    ddbst__ffi_item_free(c, it);
    return rc;
  }
  *out = it;
  return 0;
}

int64_t ddbst__ffi_now_of(call *c, const ddbst__jnode *req, int *rc) {
  int given;
  int64_t now = 0;
  *rc = ddbst__ffi_get_int(c, req, "now", 0, INT64_MAX, &given, &now);
  return given ? now : ddbst_now_unix_us();
}

/* The typed API's cursor_keys is the session's cursorKeys. */
void ddbst__ffi_keys_path(call *c) {
  if (!strcmp(c->err.path, "cursor_keys"))
    snprintf(c->err.path, sizeof c->err.path, "cursorKeys");
}

/* The request's pattern into *pattern (-1 when it names none and may not);
 * returns 0 or the error. */
int ddbst__ffi_pattern_of(call *c, const ddbst__jnode *req, int required,
                          int *pattern) {
  const char *name;
  *pattern = -1;
  if (ddbst__ffi_get_string(c, req, "pattern", required, &name, NULL))
    return c->err.code;
  if (!name) return 0;
  *pattern = ddbst_model_pattern(c->m, name);
  char tail[DDBST__TAIL_CAP];
  if (*pattern < 0)
    return ddbst__ffi_fail(
        c, DDBST_ENOTFOUND, "pattern", "the model has no pattern %s%s", name,
        ddbst__suggest_tail(ddbst__suggest_pattern(c->m, name), tail,
                            sizeof tail));
  return 0;
}

/* The values of a pattern's (first) entity, for its key facets. */
int ddbst__ffi_pattern_values(call *c, const ddbst__jnode *req, int pattern,
                              ddbst_item **out) {
  *out = NULL;
  int entity = ddbst_model_pattern_entity(c->m, pattern, 0);
  if (entity < 0)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "pattern",
                           "pattern %s reads no entity",
                           ddbst_model_pattern_name(c->m, pattern));
  ddbst_item *it = ddbst__ffi_item_new(c, entity);
  if (!it) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  int rc = apply(c, it, req, "values", item_set);
  if (rc) {
    ddbst__ffi_item_free(c, it);
    return rc;
  }
  *out = it;
  return 0;
}
