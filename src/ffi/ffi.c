/* The JSON entry: one request object in, one answer object out, for callers
 * that reach ddbst through an FFI (and for the `ddbst` command). Each
 * operation here is a thin mapping onto the typed API; the semantics live
 * there. docs/ffi.md is the reference for requests and answers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "base/internal.h"
#include "json/jw.h"
#include "json/tree.h"

struct ddbst_json {
  ddbst_allocator alloc;
  ddbst_model *model;
  ddbst_cursor_keys *keys; /* NULL: none configured */
};

/* Answers carry the allocator that made them in a header, so that
 * ddbst_json_free needs nothing but the pointer. */
typedef struct answer_header {
  ddbst_allocator alloc;
  size_t len;
} answer_header;

#define HEADER_SIZE                                                          \
  ((sizeof(answer_header) + sizeof(max_align_t) - 1) / sizeof(max_align_t) * \
   sizeof(max_align_t))

/* When even an answer cannot be allocated: static, never freed. */
static char nomem_answer[] =
    "{\"error\":{\"code\":-2,\"name\":\"ENOMEM\",\"path\":\"\",\"message\":"
    "\"out of memory\"}}";
static char nosession_answer[] =
    "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"session\","
    "\"message\":\"no session: open one with ddbst_json_open\"}}";

/* One call: the request tree, the answer being written (through `w`, the
 * sticky writer on `out`), scratch text. */
typedef struct call {
  const ddbst_allocator *alloc;
  const ddbst_model *m;
  const ddbst_cursor_keys *keys;
  ddbst__arena ar;
  ddbst_buf out;
  ddbst__jw w;
  ddbst_buf tmp;
  ddbst_error err;
} call;

/* ---- errors ---- */

static const char *code_name(int code) {
  switch (code) {
  case DDBST_EINVAL: return "EINVAL";
  case DDBST_ENOMEM: return "ENOMEM";
  case DDBST_ESYNTAX: return "ESYNTAX";
  case DDBST_EMODEL: return "EMODEL";
  case DDBST_EVALUE: return "EVALUE";
  case DDBST_EMISSING: return "EMISSING";
  case DDBST_ENOTFOUND: return "ENOTFOUND";
  case DDBST_ERANGE: return "ERANGE";
  case DDBST_EIO: return "EIO";
  case DDBST_ENOSPC: return "ENOSPC";
  case DDBST_ECURSOR: return "ECURSOR";
  case DDBST_EDYNAMODB: return "EDYNAMODB";
  default: return "EUNKNOWN";
  }
}

static int fail(call *c, int code, const char *path, const char *fmt, ...)
    DDBST__PRINTF(4, 5);
static int fail(call *c, int code, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__vfail(&c->err, code, path, fmt, ap);
  va_end(ap);
  return code;
}

/* Puts `prefix` before the path of the error in c->err ("items[2]."). */
static int prefix_path(call *c, const char *prefix) {
  char path[DDBST_ERROR_PATH_MAX];
  int n = snprintf(path, sizeof path, "%s%s%s", prefix,
                   c->err.path[0] ? "." : "", c->err.path);
  if (n < 0 || (size_t)n >= sizeof path) /* cut, perhaps mid-character */
    ddbst__trim_partial_utf8(path);
  memcpy(c->err.path, path, sizeof path);
  return c->err.code;
}

static void put_error(ddbst__jw *w, const ddbst_error *e) {
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "code");
  ddbst__jw_int(w, e->code);
  ddbst__jw_pair(w, "name", code_name(e->code));
  ddbst__jw_pair(w, "path", e->path);
  ddbst__jw_pair(w, "message", e->message);
  if (e->line) {
    ddbst__jw_key(w, "offset");
    ddbst__jw_int(w, (long long)e->offset);
    ddbst__jw_key(w, "line");
    ddbst__jw_int(w, e->line);
    ddbst__jw_key(w, "column");
    ddbst__jw_int(w, e->column);
  }
  ddbst__jw_close(w, '}');
}

/* ---- answers ---- */

static char *finish(const ddbst_allocator *a, const ddbst_buf *b,
                    size_t *len) {
  char *mem = ddbst__malloc(a, HEADER_SIZE + b->len + 1);
  if (!mem) {
    if (len) *len = sizeof nomem_answer - 1;
    return nomem_answer;
  }
  answer_header h;
  h.alloc = *a;
  h.len = b->len;
  memcpy(mem, &h, sizeof h);
  memcpy(mem + HEADER_SIZE, b->data, b->len);
  mem[HEADER_SIZE + b->len] = '\0';
  if (len) *len = b->len;
  return mem + HEADER_SIZE;
}

void ddbst_json_free(char *answer) {
  if (!answer || answer == nomem_answer || answer == nosession_answer) return;
  char *mem = answer - HEADER_SIZE;
  answer_header h;
  memcpy(&h, mem, sizeof h);
  ddbst__free(&h.alloc, mem);
}

/* ---- reading the request ---- */

static const ddbst__jnode *member(const ddbst__jnode *obj, const char *key) {
  return ddbst__jobj_get(obj, key);
}

/* Refuses members not in `allowed` (NULL-terminated). */
static int only(call *c, const ddbst__jnode *obj, const char *what,
                const char *const *allowed) {
  for (size_t i = 0; i < obj->count; i++) {
    const char *const *k = allowed;
    while (*k && strcmp(*k, obj->keys[i]) != 0) k++;
    if (!*k)
      return fail(c, DDBST_EINVAL, obj->keys[i], "unknown field for %s",
                  what);
  }
  return 0;
}

static int get_string(call *c, const ddbst__jnode *obj, const char *key,
                      int required, const char **s, size_t *n) {
  const ddbst__jnode *v = member(obj, key);
  *s = NULL;
  if (n) *n = 0;
  if (!v || v->type == DDBST__J_NULL) {
    if (required) return fail(c, DDBST_EMISSING, key, "%s is required", key);
    return 0;
  }
  if (v->type != DDBST__J_STRING)
    return fail(c, DDBST_EINVAL, key, "expected a string");
  *s = v->text;
  if (n) *n = v->len;
  return 0;
}

static int get_bool(call *c, const ddbst__jnode *obj, const char *key,
                    int *b) {
  const ddbst__jnode *v = member(obj, key);
  *b = 0;
  if (!v || v->type == DDBST__J_NULL) return 0;
  if (v->type != DDBST__J_BOOL)
    return fail(c, DDBST_EINVAL, key, "expected true or false");
  *b = v->boolean;
  return 0;
}

static int get_int(call *c, const ddbst__jnode *obj, const char *key,
                   int64_t lo, int64_t hi, int *given, int64_t *x) {
  const ddbst__jnode *v = member(obj, key);
  *given = 0;
  if (!v || v->type == DDBST__J_NULL) return 0;
  char *end = NULL;
  long long n = 0;
  errno = 0;
  if (v->type == DDBST__J_NUMBER) n = strtoll(v->text, &end, 10);
  if (v->type != DDBST__J_NUMBER || *end || errno == ERANGE || n < lo ||
      n > hi)
    return fail(c, DDBST_EINVAL, key, "expected a whole number from %lld to %lld",
                (long long)lo, (long long)hi);
  *given = 1;
  *x = n;
  return 0;
}

/* A JSON value back to text, for list, map and set attributes. */
static void write_json(ddbst__jw *w, const ddbst__jnode *v) {
  switch (v->type) {
  case DDBST__J_NULL: ddbst__jw_null(w); return;
  case DDBST__J_BOOL: ddbst__jw_bool(w, v->boolean); return;
  case DDBST__J_NUMBER: ddbst__jw_json(w, v->text, v->len); return;
  case DDBST__J_STRING: ddbst__jw_strn(w, v->text, v->len); return;
  case DDBST__J_ARRAY:
  case DDBST__J_OBJECT:
    ddbst__jw_open(w, v->type == DDBST__J_ARRAY ? '[' : '{');
    for (size_t i = 0; i < v->count; i++) {
      if (v->type == DDBST__J_OBJECT)
        ddbst__jw_keyn(w, v->keys[i], v->key_lens[i]);
      write_json(w, v->items[i]);
    }
    ddbst__jw_close(w, v->type == DDBST__J_ARRAY ? ']' : '}');
    return;
  }
  ddbst__jw_status(w, DDBST_EINVAL);
}

/* Types whose values the item holds as DynamoDB JSON ({"M":...}). */
static int is_document(const char *type) {
  return !strcmp(type, "list") || !strcmp(type, "map") ||
         !strcmp(type, "string_set") || !strcmp(type, "number_set");
}

static int is_numeric(const char *type) {
  return !strcmp(type, "integer") || !strcmp(type, "number") ||
         !strcmp(type, "ttl");
}

typedef int (*setter)(ddbst_item *, int, const char *, size_t, ddbst_error *);

static int item_set(ddbst_item *it, int a, const char *t, size_t n,
                    ddbst_error *e) {
  return ddbst_item_set(it, a, t, n, e);
}

/* The attribute `name` of the item's entity, or DDBST_ENOTFOUND at `path`. */
static int attribute(call *c, ddbst_item *it, const char *field,
                     const char *name) {
  int entity = ddbst_item_entity(it);
  int a = ddbst_model_attribute(c->m, entity, name);
  if (a < 0) {
    char path[DDBST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s.%s", field, name);
    const char *en = ddbst_model_entity_name(c->m, entity);
    return fail(c, DDBST_ENOTFOUND, path, "%s has no attribute %s", en, name);
  }
  return a;
}

/* Applies every member of the object `field` with `fn`. A JSON string is
 * the value's text as ddbst_item_set reads it; a number only for numeric
 * attributes and true/false only for booleans (a typed language's 42 must
 * not quietly become the string "42"); arrays and objects as JSON text;
 * null leaves the attribute alone. */
static int apply(call *c, ddbst_item *it, const ddbst__jnode *req,
                 const char *field, setter fn) {
  const ddbst__jnode *obj = member(req, field);
  if (!obj || obj->type == DDBST__J_NULL) return 0;
  if (obj->type != DDBST__J_OBJECT)
    return fail(c, DDBST_EINVAL, field, "expected an object of attributes");
  int entity = ddbst_item_entity(it);
  for (size_t i = 0; i < obj->count; i++) {
    const ddbst__jnode *v = obj->items[i];
    int a = attribute(c, it, field, obj->keys[i]);
    if (a < 0) return a;
    const char *type = ddbst_model_attribute_type(c->m, entity, a);
    char path[DDBST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s.%s", field, obj->keys[i]);
    const char *text = v->text;
    size_t n = v->len;
    if (v->type == DDBST__J_NULL) continue;
    if (v->type == DDBST__J_NUMBER && !is_numeric(type))
      return fail(c, DDBST_EVALUE, path,
                  "%s is of type %s: give it as a JSON string", obj->keys[i],
                  type);
    if (v->type == DDBST__J_BOOL) {
      if (strcmp(type, "boolean") != 0)
        return fail(c, DDBST_EVALUE, path, "%s is of type %s, not boolean",
                    obj->keys[i], type);
      text = v->boolean ? "true" : "false";
      n = strlen(text);
    } else if (v->type == DDBST__J_ARRAY || v->type == DDBST__J_OBJECT) {
      ddbst__jw json;
      ddbst_buf_reset(&c->tmp);
      ddbst__jw_init(&json, &c->tmp);
      write_json(&json, v);
      if (json.rc) return fail(c, DDBST_ENOMEM, "", NULL);
      text = c->tmp.data;
      n = c->tmp.len;
    }
    if (fn(it, a, text, n, &c->err)) return c->err.code;
  }
  return 0;
}

/* "remove" and "project": arrays of attribute names. */
static int apply_names(call *c, ddbst_item *it, const ddbst__jnode *req,
                       const char *field, int (*fn)(ddbst_item *, int)) {
  const ddbst__jnode *arr = member(req, field);
  if (!arr || arr->type == DDBST__J_NULL) return 0;
  if (arr->type != DDBST__J_ARRAY)
    return fail(c, DDBST_EINVAL, field, "expected an array of attribute names");
  for (size_t i = 0; i < arr->count; i++) {
    char path[64];
    snprintf(path, sizeof path, "%s[%zu]", field, i);
    if (arr->items[i]->type != DDBST__J_STRING)
      return fail(c, DDBST_EINVAL, path, "expected an attribute name");
    int a = attribute(c, it, field, arr->items[i]->text);
    if (a < 0) return a;
    fn(it, a);
  }
  return 0;
}

static int entity_of(call *c, const ddbst__jnode *req) {
  const char *name;
  if (get_string(c, req, "entity", 1, &name, NULL)) return c->err.code;
  int e = ddbst_model_entity(c->m, name);
  if (e < 0)
    return fail(c, DDBST_ENOTFOUND, "entity", "the model has no entity %s",
                name);
  return e;
}

/* A new item of the request's entity holding everything it gives. */
static int read_item(call *c, const ddbst__jnode *req, ddbst_item **out) {
  *out = NULL;
  int entity = entity_of(c, req);
  if (entity < 0) return entity;
  ddbst_item *it = ddbst_item_new(c->m, entity);
  if (!it) return fail(c, DDBST_ENOMEM, "", NULL);
  int given;
  int64_t version = 0;
  int rc = apply(c, it, req, "values", item_set);
  rc = rc ? rc : apply(c, it, req, "set", item_set);
  rc = rc ? rc : apply(c, it, req, "add", ddbst_item_add);
  rc = rc ? rc : apply(c, it, req, "append", ddbst_item_append);
  rc = rc ? rc : apply(c, it, req, "previous", ddbst_item_set_previous);
  rc = rc ? rc : apply_names(c, it, req, "remove", ddbst_item_remove);
  rc = rc ? rc : apply_names(c, it, req, "project", ddbst_item_project);
  /* versions count from 1, and a write stores the next one */
  rc = rc ? rc
          : get_int(c, req, "expectVersion", 1, INT64_MAX - 1, &given,
                    &version);
  if (!rc && given && ddbst_item_expect_version(it, version))
    rc = fail(c, DDBST_EINVAL, "expectVersion",
              "%s has no version attribute",
              ddbst_model_entity_name(c->m, entity));
  if (rc) {
    ddbst_item_free(it);
    return rc;
  }
  *out = it;
  return 0;
}

static int64_t now_of(call *c, const ddbst__jnode *req, int *rc) {
  int given;
  int64_t now = 0;
  *rc = get_int(c, req, "now", 0, INT64_MAX, &given, &now);
  return given ? now : ddbst_now_unix_us();
}

/* ---- writing answers ---- */

/* DynamoDB JSON (as ddbst_item_get gives lists, maps and sets) as plain
 * JSON: {"L":[{"N":"1"}]} → [1]. */
static void write_plain(ddbst__jw *w, const ddbst__jnode *av) {
  if (av->type != DDBST__J_OBJECT || av->count != 1) {
    ddbst__jw_status(w, DDBST_EINVAL);
    return;
  }
  const char *t = av->keys[0];
  const ddbst__jnode *v = av->items[0];
  if (!strcmp(t, "N")) {
    ddbst__jw_number(w, v->text, v->len);
  } else if (!strcmp(t, "S") || !strcmp(t, "B")) {
    ddbst__jw_strn(w, v->text, v->len);
  } else if (!strcmp(t, "BOOL")) {
    write_json(w, v);
  } else if (!strcmp(t, "NULL")) {
    ddbst__jw_null(w);
  } else if (!strcmp(t, "SS") || !strcmp(t, "NS") || !strcmp(t, "BS")) {
    ddbst__jw_open(w, '[');
    for (size_t i = 0; i < v->count; i++) {
      if (t[0] == 'N')
        ddbst__jw_number(w, v->items[i]->text, v->items[i]->len);
      else
        ddbst__jw_strn(w, v->items[i]->text, v->items[i]->len);
    }
    ddbst__jw_close(w, ']');
  } else {
    int is_map = !strcmp(t, "M");
    ddbst__jw_open(w, is_map ? '{' : '[');
    for (size_t i = 0; i < v->count; i++) {
      if (is_map) ddbst__jw_keyn(w, v->keys[i], v->key_lens[i]);
      write_plain(w, v->items[i]);
    }
    ddbst__jw_close(w, is_map ? '}' : ']');
  }
}

/* The item's values as a JSON object typed by the model: numbers and
 * booleans bare, lists, maps and sets as plain JSON, the rest strings. */
static void put_values(call *c, const ddbst_item *it) {
  ddbst__jw *w = &c->w;
  int entity = ddbst_item_entity(it);
  ddbst__jw_open(w, '{');
  for (int a = 0; a < ddbst_model_attribute_count(c->m, entity) && !w->rc;
       a++) {
    const char *v, *type = ddbst_model_attribute_type(c->m, entity, a);
    size_t n;
    if (ddbst_item_get(it, a, &v, &n) != 1) continue;
    ddbst__jw_key(w, ddbst_model_attribute_name(c->m, entity, a));
    if (is_numeric(type)) {
      ddbst__jw_number(w, v, n);
    } else if (!strcmp(type, "boolean")) {
      ddbst__jw_json(w, v, n);
    } else if (is_document(type)) { /* held as DynamoDB JSON */
      ddbst__jnode *av;
      if (!ddbst__jw_status(w, ddbst__jtree_parse(&c->ar, v, n, &av, &c->err)))
        write_plain(w, av);
    } else {
      ddbst__jw_strn(w, v, n);
    }
  }
  ddbst__jw_close(w, '}');
}

/* {"operation":"PutItem","target":"DynamoDB_20120810.PutItem","body":...
 * with the body in c->tmp; the object stays open for the caller's members
 * and its '}'. */
static void open_request(call *c, int op) {
  ddbst__jw *w = &c->w;
  const char *name = ddbst_operation_name(op);
  char target[64];
  snprintf(target, sizeof target, "DynamoDB_20120810.%s", name);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "operation", name);
  ddbst__jw_pair(w, "target", target);
  ddbst__jw_key(w, "body");
  ddbst__jw_json(w, c->tmp.data, c->tmp.len);
}

/* ---- operations on the model ---- */

static int op_check(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "check", f)) return c->err.code;
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

static int op_patterns(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "patterns", f)) return c->err.code;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "patterns");
  if (ddbst__jw_value(w))
    ddbst__jw_status(w, ddbst_model_patterns_json(c->m, w->b, &c->err));
  ddbst__jw_close(w, '}');
  return w->rc;
}

static int op_create_table(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "createTable", f)) return c->err.code;
  int op = ddbst_create_table_request(c->m, &c->tmp, &c->err);
  if (op < 0) return op;
  open_request(c, op);
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}

static int op_cloudformation(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "streamFilters", NULL};
  if (only(c, req, "cloudformation", f)) return c->err.code;
  const ddbst__jnode *arr = member(req, "streamFilters");
  size_t n = arr && arr->type == DDBST__J_ARRAY ? arr->count : 0;
  if (arr && arr->type != DDBST__J_ARRAY && arr->type != DDBST__J_NULL)
    return fail(c, DDBST_EINVAL, "streamFilters",
                "expected an array of \"Entity[:EVENTS]\" strings");
  const char **filters = n ? ddbst__arena_alloc(&c->ar, n * sizeof *filters)
                           : NULL;
  if (n && !filters) return fail(c, DDBST_ENOMEM, "", NULL);
  for (size_t i = 0; i < n; i++) {
    if (arr->items[i]->type != DDBST__J_STRING) {
      char path[64];
      snprintf(path, sizeof path, "streamFilters[%zu]", i);
      return fail(c, DDBST_EINVAL, path, "expected a string");
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

static int op_lint(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "lint", f)) return c->err.code;
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

static int op_doc(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "doc", f)) return c->err.code;
  int rc = ddbst_model_doc(c->m, &c->tmp, &c->err);
  if (rc) return rc;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "markdown");
  ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
  ddbst__jw_close(w, '}');
  return w->rc;
}

/* ---- keys and items ---- */

static const char *const item_fields[] = {
    "op", "entity", "values", "now", NULL};

static int op_keys(call *c, const ddbst__jnode *req) {
  if (only(c, req, "keys", item_fields)) return c->err.code;
  ddbst_item *it;
  int rc = read_item(c, req, &it);
  if (rc) return rc;
  int64_t now = now_of(c, req, &rc);
  /* keys as the item would be written: defaults (now, ULIDs) filled first */
  rc = rc ? rc : ddbst_item_apply_defaults(it, now, &c->err);
  if (!rc) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "keys");
    if (ddbst__jw_value(w))
      ddbst__jw_status(w, ddbst_item_keys_json(it, w->b, &c->err));
    ddbst__jw_key(w, "item");
    put_values(c, it);
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst_item_free(it);
  return rc;
}

static int op_item_size(call *c, const ddbst__jnode *req) {
  if (only(c, req, "itemSize", item_fields)) return c->err.code;
  ddbst_item *it;
  int rc = read_item(c, req, &it);
  if (rc) return rc;
  int64_t now = now_of(c, req, &rc);
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
  ddbst_item_free(it);
  return bytes < 0 ? bytes : 0;
}

static int op_parse(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "index", "pk", "sk", NULL};
  if (only(c, req, "parse", f)) return c->err.code;
  const char *index, *pk, *sk;
  size_t pk_len, sk_len;
  if (get_string(c, req, "index", 0, &index, NULL) ||
      get_string(c, req, "pk", 1, &pk, &pk_len) ||
      get_string(c, req, "sk", 0, &sk, &sk_len))
    return c->err.code;
  ddbst_item *it = ddbst_item_new(c->m, 0);
  if (!it) return fail(c, DDBST_ENOMEM, "", NULL);
  int entity = ddbst_item_from_key(it, index, pk, pk_len, sk, sk_len, &c->err);
  if (entity >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "entity", ddbst_model_entity_name(c->m, entity));
    ddbst__jw_key(w, "values");
    put_values(c, it);
    ddbst__jw_close(w, '}');
    entity = w->rc;
  }
  ddbst_item_free(it);
  return entity < 0 ? entity : 0;
}

/* ---- single-item requests ---- */

/* K_CHECK only as an element of a transaction. */
typedef enum { K_GET, K_PUT, K_CREATE, K_UPDATE, K_DELETE, K_CHECK } item_kind;

static const struct {
  const char *op;
  item_kind kind;
} item_ops[] = {{"get", K_GET},       {"put", K_PUT},
                {"create", K_CREATE}, {"update", K_UPDATE},
                {"delete", K_DELETE}};

static int item_kind_of(const char *op) {
  for (size_t i = 0; i < sizeof item_ops / sizeof item_ops[0]; i++)
    if (!strcmp(op, item_ops[i].op)) return (int)item_ops[i].kind;
  return -1;
}

/* The fields each kind takes: alone, or as an element of a batch or a
 * transaction, whose request gives "now" and "consistent" for them all. */
static const char *const *fields_of(item_kind k, int element) {
  static const char *const get[] = {"op", "entity", "values", "project",
                                    "consistent", NULL};
  static const char *const put[] = {"op", "entity", "values", "expectVersion",
                                    "now", NULL};
  static const char *const update[] = {
      "op",       "entity",        "values", "set", "remove", "add", "append",
      "previous", "expectVersion", "upsert", "now", NULL};
  static const char *const del[] = {"op", "entity", "values", "expectVersion",
                                    "ifExists", NULL};
  static const char *const get_element[] = {"op", "entity", "values", NULL};
  static const char *const put_element[] = {"op", "entity", "values",
                                            "expectVersion", NULL};
  static const char *const update_element[] = {
      "op",       "entity",        "values", "set", "remove", "add", "append",
      "previous", "expectVersion", "upsert", NULL};
  switch (k) {
  case K_GET: return element ? get_element : get;
  case K_PUT:
  case K_CREATE: return element ? put_element : put;
  case K_UPDATE: return element ? update_element : update;
  case K_CHECK: return put_element; /* a ConditionCheck: exists, version */
  default: return del;
  }
}

static uint32_t flags_of(call *c, const ddbst__jnode *req, item_kind k,
                         int *rc) {
  int consistent = 0, upsert = 0, if_exists = 0;
  *rc = get_bool(c, req, "consistent", &consistent);
  *rc = *rc ? *rc : get_bool(c, req, "upsert", &upsert);
  *rc = *rc ? *rc : get_bool(c, req, "ifExists", &if_exists);
  return (consistent ? DDBST_CONSISTENT_READ : 0u) |
         (upsert ? DDBST_UPSERT : 0u) | (if_exists ? DDBST_IF_EXISTS : 0u) |
         (k == K_CREATE ? DDBST_CREATE : 0u);
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

static int op_item(call *c, const ddbst__jnode *req, item_kind k,
                   const char *name) {
  if (only(c, req, name, fields_of(k, 0))) return c->err.code;
  int rc;
  uint32_t flags = flags_of(c, req, k, &rc);
  int64_t now = rc ? 0 : now_of(c, req, &rc);
  ddbst_item *it = NULL;
  rc = rc ? rc : read_item(c, req, &it);
  int op = rc ? rc : build_item(c, it, k, flags, now);
  if (op >= 0) {
    open_request(c, op);
    if (k == K_PUT || k == K_CREATE) {
      /* what the write stores, generated ids and timestamps included */
      ddbst__jw_key(&c->w, "item");
      put_values(c, it);
    }
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst_item_free(it);
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
 * [low, high]. */
static int read_condition(call *c, ddbst_item *values, const ddbst__jnode *req,
                          ddbst_query *q) {
  const ddbst__jnode *cond = member(req, "condition");
  if (!cond || cond->type == DDBST__J_NULL) return 0;
  if (cond->type != DDBST__J_OBJECT || cond->count != 1 ||
      cond->items[0]->type != DDBST__J_OBJECT || cond->items[0]->count != 1)
    return fail(c, DDBST_EINVAL, "condition",
                "expected {\"<facet>\": {\"<begins|gt|gte|lt|lte|between>\": "
                "value}}");
  int a = attribute(c, values, "condition", cond->keys[0]);
  if (a < 0) return a;
  const ddbst__jnode *test = cond->items[0];
  char path[DDBST_ERROR_PATH_MAX];
  snprintf(path, sizeof path, "condition.%s.%s", cond->keys[0], test->keys[0]);
  q->attribute = a;
  q->condition = -1;
  for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++)
    if (!strcmp(test->keys[0], conditions[i].name))
      q->condition = conditions[i].cond;
  if (q->condition < 0)
    return fail(c, DDBST_EINVAL, path,
                "expected begins, gt, gte, lt, lte or between");
  const ddbst__jnode *v = test->items[0], *v2 = NULL;
  if (q->condition == DDBST_SK_BETWEEN) {
    if (v->type != DDBST__J_ARRAY || v->count != 2)
      return fail(c, DDBST_EINVAL, path, "expected [low, high]");
    v2 = v->items[1];
    v = v->items[0];
  }
  if ((v->type != DDBST__J_STRING && v->type != DDBST__J_NUMBER) ||
      (v2 && v2->type != DDBST__J_STRING && v2->type != DDBST__J_NUMBER))
    return fail(c, DDBST_EINVAL, path, "expected a value as a string");
  q->value = v->text;
  q->value_len = v->len;
  if (v2) {
    q->value2 = v2->text;
    q->value2_len = v2->len;
  }
  return 0;
}

/* The typed API's cursor_keys is the session's cursorKeys. */
static void keys_path(call *c) {
  if (!strcmp(c->err.path, "cursor_keys"))
    snprintf(c->err.path, sizeof c->err.path, "cursorKeys");
}

/* The request's pattern into *pattern (-1 when it names none and may not);
 * returns 0 or the error. */
static int pattern_of(call *c, const ddbst__jnode *req, int required,
                      int *pattern) {
  const char *name;
  *pattern = -1;
  if (get_string(c, req, "pattern", required, &name, NULL)) return c->err.code;
  if (!name) return 0;
  *pattern = ddbst_model_pattern(c->m, name);
  if (*pattern < 0)
    return fail(c, DDBST_ENOTFOUND, "pattern", "the model has no pattern %s",
                name);
  return 0;
}

/* The values of a pattern's (first) entity, for its key facets. */
static int pattern_values(call *c, const ddbst__jnode *req, int pattern,
                          ddbst_item **out) {
  *out = NULL;
  int entity = ddbst_model_pattern_entity(c->m, pattern, 0);
  if (entity < 0)
    return fail(c, DDBST_EINVAL, "pattern", "pattern %s reads no entity",
                ddbst_model_pattern_name(c->m, pattern));
  ddbst_item *it = ddbst_item_new(c->m, entity);
  if (!it) return fail(c, DDBST_ENOMEM, "", NULL);
  int rc = apply(c, it, req, "values", item_set);
  if (rc) {
    ddbst_item_free(it);
    return rc;
  }
  *out = it;
  return 0;
}

static int op_query(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op",     "pattern",    "values", "condition",
                                  "limit",  "consistent", "cursor", "project",
                                  "now",    NULL};
  if (only(c, req, "query", f)) return c->err.code;
  int pattern;
  if (pattern_of(c, req, 1, &pattern)) return c->err.code;
  ddbst_item *values;
  int rc = pattern_values(c, req, pattern, &values);
  if (rc) return rc;
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  int given, consistent = 0;
  int64_t limit = 0, now = 0;
  rc = read_condition(c, values, req, &q);
  rc = rc ? rc : apply_names(c, values, req, "project", ddbst_item_project);
  rc = rc ? rc : get_int(c, req, "limit", 1, UINT32_MAX, &given, &limit);
  rc = rc ? rc : get_int(c, req, "now", 0, INT64_MAX, &given, &now);
  rc = rc ? rc : get_bool(c, req, "consistent", &consistent);
  rc = rc ? rc : get_string(c, req, "cursor", 0, &q.cursor, &q.cursor_len);
  q.limit = (uint32_t)limit;
  q.now_unix_us = now;
  q.flags = consistent ? DDBST_CONSISTENT_READ : 0;
  q.cursor_keys = c->keys;
  int op = rc ? rc : ddbst_query_request(values, pattern, &q, &c->tmp, &c->err);
  if (op < 0) {
    keys_path(c);
  } else {
    open_request(c, op);
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst_item_free(values);
  return op < 0 ? op : 0;
}

/* ---- batches and transactions ---- */

/* Each element of "items" read as an item; `add` puts it where it goes. */
typedef int (*add_fn)(call *c, void *to, ddbst_item *it, const char *op,
                      const ddbst__jnode *elem, int64_t now);

static int each_item(call *c, const ddbst__jnode *req, void *to, add_fn add,
                     int64_t now) {
  const ddbst__jnode *items = member(req, "items");
  if (!items || items->type != DDBST__J_ARRAY)
    return fail(c, DDBST_EINVAL, "items", "expected an array of operations");
  for (size_t i = 0; i < items->count; i++) {
    char where[48];
    snprintf(where, sizeof where, "items[%zu]", i);
    const ddbst__jnode *e = items->items[i];
    if (e->type != DDBST__J_OBJECT)
      return fail(c, DDBST_EINVAL, where, "expected an operation object");
    const char *op = NULL;
    ddbst_item *it = NULL;
    int k = -1;
    int rc = get_string(c, e, "op", 1, &op, NULL);
    if (!rc) k = strcmp(op, "check") == 0 ? (int)K_CHECK : item_kind_of(op);
    if (!rc && k < 0)
      rc = fail(c, DDBST_EINVAL, "op", "op %s: not an item operation", op);
    if (!rc) rc = only(c, e, op, fields_of((item_kind)k, 1));
    rc = rc ? rc : read_item(c, e, &it);
    rc = rc ? rc : add(c, to, it, op, e, now);
    ddbst_item_free(it);
    if (rc) return prefix_path(c, where);
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
  return fail(c, DDBST_EINVAL, "op", "%s takes %s, not %s",
              t->reads ? "batchGet" : "batchWrite",
              t->reads ? "get" : "put and delete", op);
}

static int op_batch(call *c, const ddbst__jnode *req, int reads) {
  static const char *const f[] = {"op", "items", "consistent", "now", NULL};
  if (only(c, req, reads ? "batchGet" : "batchWrite", f)) return c->err.code;
  int rc, consistent = 0;
  int64_t now = now_of(c, req, &rc);
  rc = rc ? rc : get_bool(c, req, "consistent", &consistent);
  if (rc) return rc;
  ddbst_batch *b = ddbst_batch_new(c->m);
  if (!b) return fail(c, DDBST_ENOMEM, "", NULL);
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
      int op = ddbst_batch_request(b, i, consistent ? DDBST_CONSISTENT_READ : 0,
                                   &c->tmp, &c->err);
      if (ddbst__jw_status(w, op < 0 ? op : 0)) break;
      open_request(c, op);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst_batch_free(b);
  return rc;
}

static int add_to_txn(call *c, void *to, ddbst_item *it, const char *op,
                      const ddbst__jnode *elem, int64_t now) {
  ddbst_txn *t = to;
  int k = item_kind_of(op), rc = 0;
  uint32_t flags = k >= 0 ? flags_of(c, elem, (item_kind)k, &rc) : 0;
  if (rc) return rc;
  switch (k) {
  case K_GET: return ddbst_txn_get(t, it, &c->err);
  case K_PUT:
  case K_CREATE: return ddbst_txn_put(t, it, flags, now, &c->err);
  case K_UPDATE: return ddbst_txn_update(t, it, flags, now, &c->err);
  case K_DELETE: return ddbst_txn_delete(t, it, flags, &c->err);
  default: return ddbst_txn_check(t, it, &c->err);
  }
}

/* The transaction of a "transact" request, built into a new ddbst_txn. */
static int build_txn(call *c, const ddbst__jnode *req, ddbst_txn **out) {
  static const char *const f[] = {"op", "items", "token", "now", NULL};
  *out = NULL;
  if (only(c, req, "transact", f)) return c->err.code;
  int rc;
  int64_t now = now_of(c, req, &rc);
  if (rc) return rc;
  ddbst_txn *t = ddbst_txn_new(c->m);
  if (!t) return fail(c, DDBST_ENOMEM, "", NULL);
  rc = each_item(c, req, t, add_to_txn, now);
  if (rc) {
    ddbst_txn_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

static int op_transact(call *c, const ddbst__jnode *req) {
  ddbst_txn *t;
  const char *token = NULL;
  int rc = build_txn(c, req, &t);
  rc = rc ? rc : get_string(c, req, "token", 0, &token, NULL);
  int op = rc ? rc : ddbst_txn_request(t, token, &c->tmp, &c->err);
  if (op >= 0) {
    open_request(c, op);
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst_txn_free(t);
  return op < 0 ? op : 0;
}

/* ---- answers from DynamoDB ---- */

static const char *ddb_kind_name(int kind) {
  static const char *const names[] = {
      "None",          "Other",           "ConditionalCheckFailed",
      "TransactionCanceled", "TransactionConflict", "TransactionInProgress",
      "Throttled",     "Validation",      "ResourceNotFound",
      "Internal",      "ItemCollectionSizeLimit", "IdempotentParameterMismatch",
      "AccessDenied"};
  return kind >= 0 && kind < (int)(sizeof names / sizeof names[0])
             ? names[kind]
             : "Other";
}

static const char *fail_kind_name(int kind) {
  static const char *const names[] = {"none",    "unique",    "exists",
                                      "version", "missing",   "condition",
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
  ddbst__jw_close(w, '}');
}

static const struct {
  const char *name;
  int op;
} read_ops[] = {{"GetItem", DDBST_OP_GET_ITEM},
                {"Query", DDBST_OP_QUERY},
                {"BatchGetItem", DDBST_OP_BATCH_GET_ITEM},
                {"BatchWriteItem", DDBST_OP_BATCH_WRITE_ITEM},
                {"TransactGetItems", DDBST_OP_TRANSACT_GET_ITEMS}};

static int op_page(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "operation", "response", "pattern",
                                  "values", "now", NULL};
  if (only(c, req, "page", f)) return c->err.code;
  const char *opname, *body;
  size_t len;
  int given, op = -1;
  int64_t now = 0;
  if (get_string(c, req, "operation", 0, &opname, NULL) ||
      get_string(c, req, "response", 1, &body, &len) ||
      get_int(c, req, "now", 0, INT64_MAX, &given, &now))
    return c->err.code;
  for (size_t i = 0; opname && i < sizeof read_ops / sizeof read_ops[0]; i++)
    if (!strcmp(opname, read_ops[i].name)) op = read_ops[i].op;
  if (!opname) op = DDBST_OP_QUERY;
  if (op < 0)
    return fail(c, DDBST_EINVAL, "operation",
                "expected GetItem, Query, BatchGetItem, BatchWriteItem or "
                "TransactGetItems");
  int pattern;
  if (pattern_of(c, req, 0, &pattern)) return c->err.code;
  const ddbst__jnode *given_values = member(req, "values");
  if (pattern < 0 && given_values && given_values->type != DDBST__J_NULL)
    return fail(c, DDBST_EINVAL, "values",
                "values make the next page's cursor, for a pattern: give "
                "\"pattern\" too");
  ddbst_item *values = NULL;
  ddbst_page *pg = ddbst_page_new(c->m);
  int rc = pg ? 0 : fail(c, DDBST_ENOMEM, "", NULL);
  if (!rc && pattern >= 0) rc = pattern_values(c, req, pattern, &values);
  int n = rc ? rc : ddbst_page_parse(pg, op, body, len, &c->err);
  ddbst__jw *w = &c->w;
  if (n < 0) {
    rc = n; /* DDBST_EDYNAMODB: the answer says what DynamoDB said too */
  } else {
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "items");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < n; i++)
      if (ddbst__jw_value(w))
        ddbst__jw_status(w, ddbst_page_item_json(pg, i, w->b, &c->err));
    ddbst__jw_close(w, ']');
    ddbst__jw_key(w, "count");
    ddbst__jw_int(w, n);
    ddbst__jw_key(w, "hasMore");
    ddbst__jw_bool(w, ddbst_page_has_more(pg));
    if (!w->rc && ddbst_page_has_more(pg) && values) {
      ddbst_buf_reset(&c->tmp);
      int bad = ddbst_page_cursor(pg, c->keys, values, pattern,
                                  given ? now : ddbst_now_unix_us(), &c->tmp,
                                  &c->err);
      if (bad) keys_path(c);
      ddbst__jw_status(w, bad);
      ddbst__jw_key(w, "cursor");
      ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
    }
    if (!w->rc) {
      ddbst_buf_reset(&c->tmp);
      int fop = ddbst_page_followup_request(pg, &c->tmp, &c->err);
      ddbst__jw_status(w, fop < 0 ? fop : 0);
      if (fop > 0) {
        ddbst__jw_key(w, "followup");
        open_request(c, fop);
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
    put_error(w, &c->err);
    put_dynamodb_error(c, pg);
    ddbst__jw_close(w, '}');
    rc = w->rc;
    if (rc) fail(c, DDBST_ENOMEM, "", NULL);
  }
  ddbst_item_free(values);
  ddbst_page_free(pg);
  return rc;
}

/* "explain": an error answer, and — given the request that drew it —
 * what failed in the model's words. */
static int op_explain(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "request", "response", NULL};
  if (only(c, req, "explain", f)) return c->err.code;
  const char *body;
  size_t len;
  if (get_string(c, req, "response", 1, &body, &len)) return c->err.code;
  const ddbst__jnode *orig = member(req, "request");
  if (orig && orig->type != DDBST__J_OBJECT && orig->type != DDBST__J_NULL)
    return fail(c, DDBST_EINVAL, "request", "expected the request object");
  if (orig && orig->type == DDBST__J_NULL) orig = NULL;
  ddbst_page *pg = ddbst_page_new(c->m);
  if (!pg) return fail(c, DDBST_ENOMEM, "", NULL);
  int parsed = ddbst_page_parse_error(pg, body, len, &c->err);
  if (parsed < 0) {
    ddbst_page_free(pg);
    return parsed;
  }
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  put_dynamodb_error(c, pg);
  const char *op = NULL;
  if (!w->rc && orig && get_string(c, orig, "op", 1, &op, NULL))
    ddbst__jw_status(w, prefix_path(c, "request"));
  if (!w->rc && op) {
    ddbst_txn *t = NULL;
    ddbst_item *it = NULL;
    int k = item_kind_of(op), kind = 0, rc = 0;
    ddbst_buf_reset(&c->tmp);
    if (!strcmp(op, "transact")) {
      rc = build_txn(c, orig, &t);
      kind = rc ? rc : ddbst_txn_explain(t, pg, &c->tmp, &c->err);
    } else if (k == K_PUT || k == K_CREATE || k == K_UPDATE || k == K_DELETE) {
      uint32_t flags = flags_of(c, orig, (item_kind)k, &rc);
      rc = rc ? rc : only(c, orig, op, fields_of((item_kind)k, 0));
      rc = rc ? rc : read_item(c, orig, &it);
      int bop = k == K_UPDATE   ? DDBST_OP_UPDATE_ITEM
                : k == K_DELETE ? DDBST_OP_DELETE_ITEM
                                : DDBST_OP_PUT_ITEM;
      kind = rc ? rc
                : ddbst_item_explain(it, bop, flags, pg, &c->tmp, &c->err);
    } else {
      kind = fail(c, DDBST_EINVAL, "op",
                  "only writes are explained: put, create, update, delete, "
                  "transact");
    }
    if (kind < 0) {
      ddbst__jw_status(w, prefix_path(c, "request"));
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
      for (int i = 0; !w->rc && (kind = ddbst_txn_failure(t, pg, i, &index,
                                                          &entity, &unique)) > 0;
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
    ddbst_txn_free(t);
    ddbst_item_free(it);
  }
  ddbst__jw_close(w, '}');
  ddbst_page_free(pg);
  return w->rc;
}

static int op_stream(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "event", "failed", NULL};
  if (only(c, req, "stream", f)) return c->err.code;
  const char *body;
  size_t len;
  if (get_string(c, req, "event", 1, &body, &len)) return c->err.code;
  const ddbst__jnode *failed = member(req, "failed");
  if (failed && failed->type != DDBST__J_ARRAY && failed->type != DDBST__J_NULL)
    return fail(c, DDBST_EINVAL, "failed", "expected an array of record indices");
  size_t nf = failed && failed->type == DDBST__J_ARRAY ? failed->count : 0;
  int32_t *idx = nf ? ddbst__arena_alloc(&c->ar, nf * sizeof *idx) : NULL;
  if (nf && !idx) return fail(c, DDBST_ENOMEM, "", NULL);
  for (size_t i = 0; i < nf; i++) {
    char *end = NULL;
    const ddbst__jnode *v = failed->items[i];
    long x = v->type == DDBST__J_NUMBER ? strtol(v->text, &end, 10) : -1;
    if (v->type != DDBST__J_NUMBER || *end || x < 0 || x > INT32_MAX) {
      char path[48];
      snprintf(path, sizeof path, "failed[%zu]", i);
      return fail(c, DDBST_EINVAL, path, "expected a record index");
    }
    idx[i] = (int32_t)x;
  }
  ddbst_stream *s = ddbst_stream_new(c->m);
  if (!s) return fail(c, DDBST_ENOMEM, "", NULL);
  int n = ddbst_stream_parse(s, body, len, &c->err);
  if (n >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "records");
    ddbst__jw_open(w, '[');
    for (int i = 0; i < n; i++)
      if (ddbst__jw_value(w))
        ddbst__jw_status(w, ddbst_stream_record_json(s, i, w->b, &c->err));
    ddbst__jw_close(w, ']');
    if (failed && failed->type == DDBST__J_ARRAY) {
      ddbst__jw_key(w, "failures");
      if (ddbst__jw_value(w))
        ddbst__jw_status(
            w, ddbst_stream_failures_json(s, idx, nf, w->b, &c->err));
    }
    ddbst__jw_close(w, '}');
    n = w->rc;
  }
  ddbst_stream_free(s);
  return n < 0 ? n : 0;
}

static int op_version(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", NULL};
  if (only(c, req, "version", f)) return c->err.code;
  ddbst__jw_open(&c->w, '{');
  ddbst__jw_pair(&c->w, "version", ddbst_version());
  ddbst__jw_close(&c->w, '}');
  return c->w.rc;
}

/* ---- the entry ---- */

/* {"error":{...}} alone in c->out, or nothing when even that fails. */
static void put_error_answer(call *c) {
  ddbst_buf_reset(&c->out);
  ddbst__jw_init(&c->w, &c->out);
  ddbst__jw_open(&c->w, '{');
  ddbst__jw_key(&c->w, "error");
  put_error(&c->w, &c->err);
  ddbst__jw_close(&c->w, '}');
  if (c->w.rc) ddbst_buf_reset(&c->out);
}

static int dispatch(call *c, const ddbst__jnode *req) {
  static const struct {
    const char *name;
    int (*run)(call *, const ddbst__jnode *);
  } ops[] = {
      {"check", op_check},       {"patterns", op_patterns},
      {"createTable", op_create_table}, {"cloudformation", op_cloudformation},
      {"lint", op_lint},         {"doc", op_doc},
      {"keys", op_keys},         {"itemSize", op_item_size},
      {"parse", op_parse},       {"query", op_query},
      {"transact", op_transact}, {"page", op_page},
      {"explain", op_explain},   {"stream", op_stream},
      {"version", op_version},
  };
  if (req->type != DDBST__J_OBJECT)
    return fail(c, DDBST_EINVAL, "", "expected a request object");
  const char *op;
  if (get_string(c, req, "op", 1, &op, NULL)) return c->err.code;
  int k = item_kind_of(op);
  if (k >= 0) return op_item(c, req, (item_kind)k, op);
  if (!strcmp(op, "batchGet")) return op_batch(c, req, 1);
  if (!strcmp(op, "batchWrite")) return op_batch(c, req, 0);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i].name)) return ops[i].run(c, req);
  return fail(c, DDBST_EINVAL, "op", "unknown op %s (docs/ffi.md lists them)",
              op);
}

char *ddbst_json_call(const ddbst_json *session, const char *request,
                      size_t len, size_t *answer_len) {
  if (!session) {
    if (answer_len) *answer_len = sizeof nosession_answer - 1;
    return nosession_answer;
  }
  call c;
  memset(&c, 0, sizeof c);
  c.alloc = &session->alloc;
  c.m = session->model;
  c.keys = session->keys;
  ddbst__arena_init(&c.ar, c.alloc);
  ddbst__buf_init(&c.out, c.alloc);
  ddbst__jw_init(&c.w, &c.out);
  ddbst__buf_init(&c.tmp, c.alloc);
  ddbst__jnode *req;
  int rc = request ? ddbst__jtree_parse(&c.ar, request, len, &req, &c.err)
                   : fail(&c, DDBST_EINVAL, "", "no request");
  rc = rc ? rc : dispatch(&c, req);
  if (rc == 0 && c.out.len == 0)
    rc = fail(&c, DDBST_EINVAL, "", "no answer was written (a bug in ddbst)");
  if (rc < 0) {
    /* nothing half-written: the answer is the error alone */
    ddbst_buf_reset(&c.out);
    if (c.err.code != rc) ddbst__fail(&c.err, rc, "", NULL);
    put_error_answer(&c);
  }
  char *answer = c.out.len ? finish(c.alloc, &c.out, answer_len) : NULL;
  if (!answer) {
    if (answer_len) *answer_len = sizeof nomem_answer - 1;
    answer = nomem_answer;
  }
  ddbst__buf_release(&c.tmp);
  ddbst__buf_release(&c.out);
  ddbst__arena_free(&c.ar);
  return answer;
}

/* ---- sessions ---- */

/* Every error of a model load, as the elements of an array. */
typedef struct load_errors {
  ddbst__jw w;
  int n;
} load_errors;

static void on_load_error(void *user, const ddbst_error *e) {
  load_errors *le = user;
  le->n++;
  put_error(&le->w, e);
}

/* The session described by `cfg`; every model error is listed in
 * c->out ("errors") as well as c->err (the first). */
static int open_session(call *c, const ddbst__jnode *cfg, ddbst_json *s) {
  static const char *const f[] = {"model",      "modelFile",    "table",
                                  "cursorKeys", "cursorMaxAge", NULL};
  if (cfg->type != DDBST__J_OBJECT)
    return fail(c, DDBST_EINVAL, "", "expected a configuration object");
  if (only(c, cfg, "a session", f)) return c->err.code;
  const char *text, *file, *table, *hex;
  size_t text_len;
  int given;
  int64_t max_age = 0;
  if (get_string(c, cfg, "model", 0, &text, &text_len) ||
      get_string(c, cfg, "modelFile", 0, &file, NULL) ||
      get_string(c, cfg, "table", 0, &table, NULL) ||
      get_string(c, cfg, "cursorKeys", 0, &hex, NULL) ||
      get_int(c, cfg, "cursorMaxAge", 0, INT64_MAX, &given, &max_age))
    return c->err.code;
  if (!text == !file)
    return fail(c, DDBST_EINVAL, text ? "modelFile" : "model",
                "give the model as \"model\" (its JSON text) or as "
                "\"modelFile\" (a path), one of the two");
  ddbst_buf errors;
  ddbst__buf_init(&errors, c->alloc);
  load_errors le;
  ddbst__jw_init(&le.w, &errors);
  ddbst__jw_open(&le.w, '[');
  le.n = 0;
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = table;
  o.allocator = c->alloc;
  o.on_error = on_load_error;
  o.on_error_user = &le;
  int rc = text ? ddbst_model_load(text, text_len, &o, &s->model, &c->err)
                : ddbst_model_load_file(file, &o, &s->model, &c->err);
  ddbst__jw_close(&le.w, ']');
  if (rc && !le.w.rc && le.n) {
    /* {"error":<first>,"errors":[<every one>]} */
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "error");
    put_error(w, &c->err);
    ddbst__jw_key(w, "errors");
    ddbst__jw_json(w, errors.data, errors.len);
    ddbst__jw_close(w, '}');
    if (w->rc) ddbst_buf_reset(&c->out);
  }
  ddbst__buf_release(&errors);
  if (rc) return rc;
  if (hex) {
    s->keys = ddbst_cursor_keys_new(c->alloc);
    if (!s->keys) return fail(c, DDBST_ENOMEM, "", NULL);
    int bad = ddbst_cursor_keys_add_hex(s->keys, hex, &c->err);
    /* the parsed copy of the keys is ours to wipe (the caller's text is
     * the caller's) */
    sodium_memzero((char *)hex, strlen(hex));
    if (bad) {
      /* the typed API's cursor_keys is this configuration's cursorKeys */
      snprintf(c->err.path, sizeof c->err.path, "cursorKeys");
      return c->err.code;
    }
    ddbst_cursor_keys_set_max_age(s->keys, max_age);
  } else if (given) {
    return fail(c, DDBST_EINVAL, "cursorMaxAge",
                "a maximum age needs cursorKeys");
  }
  return 0;
}

void ddbst_json_close(ddbst_json *session) {
  if (!session) return;
  ddbst_allocator a = session->alloc;
  ddbst_cursor_keys_free(session->keys);
  ddbst_model_free(session->model);
  ddbst__free(&a, session);
}

ddbst_json *ddbst_json_open(const char *config, size_t len,
                            const ddbst_allocator *alloc, char **error) {
  if (error) *error = NULL;
  call c;
  memset(&c, 0, sizeof c);
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  c.alloc = &a;
  ddbst__arena_init(&c.ar, c.alloc);
  ddbst__buf_init(&c.out, c.alloc);
  ddbst__jw_init(&c.w, &c.out);
  ddbst_json *s = ddbst__malloc(&a, sizeof *s);
  ddbst__jnode *cfg;
  int rc = s ? 0 : fail(&c, DDBST_ENOMEM, "", NULL);
  if (s) {
    memset(s, 0, sizeof *s);
    s->alloc = a;
  }
  rc = rc ? rc
          : config ? ddbst__jtree_parse(&c.ar, config, len, &cfg, &c.err)
                   : fail(&c, DDBST_EINVAL, "", "no configuration");
  rc = rc ? rc : open_session(&c, cfg, s);
  if (rc) {
    ddbst_json_close(s);
    s = NULL;
    if (error) {
      if (!c.out.len) put_error_answer(&c);
      *error = c.out.len ? finish(c.alloc, &c.out, NULL) : nomem_answer;
    }
  }
  ddbst__buf_release(&c.out);
  ddbst__arena_free(&c.ar);
  return s;
}
