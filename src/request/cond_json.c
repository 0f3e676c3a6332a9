/* The JSON form of conditions, filters and update actions, for the JSON
 * entry and the bindings: {"and": [{"=": ["status", "draft"]}, {"<":
 * [{"size": "tags"}, 10]}]}, [{"set": ["count", {"+": ["count", 1]}]}].
 * Read from a parsed JSON tree into the same nodes as the text form, so the
 * two forms have one meaning; errors name the JSON path. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"

typedef struct jparser {
  ddbst__xparse *p;
  ddbst_buf *tmp; /* the compile's, lent (p->tmp) */
  int depth;
} jparser;

/* A sub-path's text, in the arena (cut at a character, never inside one,
 * when it would pass DDBST_ERROR_PATH_MAX). */
static const char *keep_path(jparser *J, char *buf) {
  ddbst__trim_partial_utf8(buf);
  return ddbst__arena_strndup(J->p->ar, buf, strlen(buf));
}

/* "condition.and[1]" + "=" → "condition.and[1].=" */
static const char *member_path(jparser *J, const char *parent,
                               const char *key) {
  char buf[DDBST_ERROR_PATH_MAX];
  snprintf(buf, sizeof buf, "%s.%s", parent, key);
  return keep_path(J, buf);
}

/* "condition.and" + 1 → "condition.and[1]" */
static const char *item_path(jparser *J, const char *parent, size_t index) {
  char buf[DDBST_ERROR_PATH_MAX];
  snprintf(buf, sizeof buf, "%s[%zu]", parent, index);
  return keep_path(J, buf);
}

static int fail_at(jparser *J, const char *path, int code, const char *fmt,
                   ...) DDBST__PRINTF(4, 5);
static int fail_at(jparser *J, const char *path, int code, const char *fmt,
                   ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__vfail(J->p->err, code, path, fmt, ap);
  va_end(ap);
  return code;
}

static ddbst__xnode *node(jparser *J, ddbst__xkind kind, int nkids,
                          const char *path) {
  ddbst__xnode *n = ddbst__xnode_new(J->p->ar, kind, nkids);
  if (n) n->jpath = path;
  return n;
}

/* ---- literals ---- */

/* A JSON value back to compact text (arrays and objects given as values). */
static int write_json(ddbst_buf *b, const ddbst__jnode *v) {
  int rc = 0;
  switch (v->type) {
  case DDBST__J_NULL: return ddbst__buf_puts(b, "null");
  case DDBST__J_BOOL: return ddbst__buf_puts(b, v->boolean ? "true" : "false");
  case DDBST__J_NUMBER: return ddbst__buf_append(b, v->text, v->len);
  case DDBST__J_STRING: return ddbst__json_string(b, v->text, v->len);
  case DDBST__J_ARRAY:
    rc = ddbst__buf_putc(b, '[');
    for (size_t i = 0; !rc && i < v->count; i++) {
      if (i) rc = ddbst__buf_putc(b, ',');
      rc = rc ? rc : write_json(b, v->items[i]);
    }
    return rc ? rc : ddbst__buf_putc(b, ']');
  case DDBST__J_OBJECT:
    rc = ddbst__buf_putc(b, '{');
    for (size_t i = 0; !rc && i < v->count; i++) {
      if (i) rc = ddbst__buf_putc(b, ',');
      rc = rc ? rc : ddbst__json_string(b, v->keys[i], v->key_lens[i]);
      rc = rc ? rc : ddbst__buf_putc(b, ':');
      rc = rc ? rc : write_json(b, v->items[i]);
    }
    return rc ? rc : ddbst__buf_putc(b, '}');
  }
  return DDBST_EINVAL;
}

static int literal(jparser *J, const ddbst__jnode *v, const char *path,
                   ddbst__xnode **out) {
  ddbst__xnode *n = node(J, DDBST__X_VALUE, 0, path);
  if (!n) return DDBST_ENOMEM;
  *out = n;
  switch (v->type) {
  case DDBST__J_STRING: n->form = DDBST__L_STRING; break;
  case DDBST__J_NUMBER: n->form = DDBST__L_NUMBER; break;
  case DDBST__J_BOOL: n->form = DDBST__L_BOOL; break;
  case DDBST__J_NULL: n->form = DDBST__L_NULL; break;
  case DDBST__J_ARRAY: n->form = DDBST__L_ARRAY; break;
  case DDBST__J_OBJECT: n->form = DDBST__L_OBJECT; break;
  }
  if (v->type == DDBST__J_STRING || v->type == DDBST__J_NUMBER) {
    n->text = v->text;
    n->len = v->len;
    return 0;
  }
  if (v->type == DDBST__J_BOOL || v->type == DDBST__J_NULL) {
    n->text = v->type == DDBST__J_NULL ? "null" : v->boolean ? "true" : "false";
    n->len = strlen(n->text);
    return 0;
  }
  ddbst_buf_reset(J->tmp);
  if (write_json(J->tmp, v)) return DDBST_ENOMEM;
  n->text = ddbst__arena_strndup(J->p->ar, J->tmp->data, J->tmp->len);
  n->len = J->tmp->len;
  return n->text ? 0 : DDBST_ENOMEM;
}

/* ---- operands ---- */

static int path_of(jparser *J, const ddbst__jnode *v, const char *path,
                   ddbst__xnode **out) {
  if (v->type != DDBST__J_STRING)
    return fail_at(J, path, DDBST_EINVAL,
                   "expected an attribute's path as a string "
                   "(\"payload.items[2].qty\")");
  ddbst__xnode *n = node(J, DDBST__X_PATH, 0, path);
  if (!n) return DDBST_ENOMEM;
  *out = n;
  return ddbst__xparse_path_text(J->p, v->text, v->len, n);
}

/* The one member of an operator object, or NULL when `v` is not one. */
static const char *operator_of(const ddbst__jnode *v, const char *const *ops) {
  if (v->type != DDBST__J_OBJECT || v->count != 1) return NULL;
  for (const char *const *o = ops; *o; o++)
    if (!strcmp(v->keys[0], *o)) return *o;
  return NULL;
}

static const char *const operand_ops[] = {
    "path", "size", "param", "value", "+", "-", "if_not_exists", "list_append",
    NULL};

static int update_value(jparser *J, const ddbst__jnode *v, const char *path,
                        ddbst__xnode **out);

/* An operand: in first place a string is a path, elsewhere a value;
 * {"path": p}, {"size": p}, {"param": name} and {"value": v} say which
 * anywhere. `update` allows the SET values +, -, if_not_exists and
 * list_append. */
static int operand(jparser *J, const ddbst__jnode *v, const char *path,
                   int first, int update, ddbst__xnode **out) {
  const char *op = operator_of(v, operand_ops);
  if (!op) {
    if (first && v->type == DDBST__J_STRING) return path_of(J, v, path, out);
    return literal(J, v, path, out);
  }
  const char *inner = member_path(J, path, op);
  if (!inner) return DDBST_ENOMEM;
  const ddbst__jnode *a = v->items[0];
  if (!strcmp(op, "path")) return path_of(J, a, inner, out);
  if (!strcmp(op, "value")) return literal(J, a, inner, out);
  if (!strcmp(op, "size")) {
    ddbst__xnode *n = node(J, DDBST__X_SIZE, 1, path);
    if (!n) return DDBST_ENOMEM;
    *out = n;
    return path_of(J, a, inner, &n->kids[0]);
  }
  if (!strcmp(op, "param")) {
    if (a->type != DDBST__J_STRING || a->len == 0)
      return fail_at(J, inner, DDBST_EINVAL, "expected a parameter's name");
    ddbst__xnode *n = node(J, DDBST__X_PARAM, 0, path);
    if (!n) return DDBST_ENOMEM;
    n->text = a->text;
    n->len = a->len;
    *out = n;
    return 0;
  }
  if (!update)
    return fail_at(J, path, DDBST_EINVAL,
                   "%s is an update action's value, not a condition's", op);
  return update_value(J, v, path, out);
}

/* The elements of an operator's array, checked for count. */
static int args(jparser *J, const ddbst__jnode *v, const char *path,
                size_t lo, size_t hi, const char *shape) {
  if (v->type != DDBST__J_ARRAY || v->count < lo || v->count > hi)
    return fail_at(J, path, DDBST_EINVAL, "expected %s", shape);
  return 0;
}

/* ---- conditions ---- */

static const struct {
  const char *name;
  ddbst__cmp op;
} comparisons[] = {{"=", DDBST__CMP_EQ}, {"<>", DDBST__CMP_NE},
                   {"<", DDBST__CMP_LT}, {"<=", DDBST__CMP_LE},
                   {">", DDBST__CMP_GT}, {">=", DDBST__CMP_GE}};

static const struct {
  const char *name;
  ddbst__xkind kind;
  int nargs;
} functions[] = {{"attribute_exists", DDBST__X_EXISTS, 1},
                 {"attribute_not_exists", DDBST__X_NOT_EXISTS, 1},
                 {"attribute_type", DDBST__X_TYPE, 2},
                 {"begins_with", DDBST__X_BEGINS, 2},
                 {"contains", DDBST__X_CONTAINS, 2}};

static int condition(jparser *J, const ddbst__jnode *v, const char *path,
                     ddbst__xnode **out);

/* Operands kids[from..] of `n` from the array `a`, the first a path. */
static int operands(jparser *J, ddbst__xnode *n, const ddbst__jnode *a,
                    const char *path) {
  for (size_t i = 0; i < a->count; i++) {
    const char *ep = item_path(J, path, i);
    if (!ep) return DDBST_ENOMEM;
    int rc = operand(J, a->items[i], ep, i == 0, 0, &n->kids[i]);
    if (rc) return rc;
  }
  return 0;
}

static int condition(jparser *J, const ddbst__jnode *v, const char *path,
                     ddbst__xnode **out) {
  if (v->type != DDBST__J_OBJECT || v->count != 1)
    return fail_at(J, path, DDBST_EINVAL,
                   "expected a condition: an object of one operator, "
                   "{\"=\": [\"status\", \"draft\"]}");
  if (++J->depth > DDBST__X_DEPTH)
    return fail_at(J, path, DDBST_EINVAL, "conditions nested past %d levels",
                   DDBST__X_DEPTH);
  const char *op = v->keys[0];
  const ddbst__jnode *a = v->items[0];
  const char *ap = member_path(J, path, op);
  if (!ap) return DDBST_ENOMEM;
  int rc;
  ddbst__xnode *n;
  if (!strcmp(op, "and") || !strcmp(op, "or")) {
    if ((rc = args(J, a, ap, 1, 1000, "an array of conditions"))) return rc;
    if (a->count == 1) {
      const char *ep = item_path(J, ap, 0);
      rc = ep ? condition(J, a->items[0], ep, out) : DDBST_ENOMEM;
      J->depth--;
      return rc;
    }
    n = node(J, op[0] == 'a' ? DDBST__X_AND : DDBST__X_OR, (int)a->count, path);
    if (!n) return DDBST_ENOMEM;
    for (size_t i = 0; i < a->count; i++) {
      const char *ep = item_path(J, ap, i);
      if (!ep) return DDBST_ENOMEM;
      if ((rc = condition(J, a->items[i], ep, &n->kids[i]))) return rc;
    }
    *out = n;
    J->depth--;
    return 0;
  }
  if (!strcmp(op, "not")) {
    n = node(J, DDBST__X_NOT, 1, path);
    if (!n) return DDBST_ENOMEM;
    *out = n;
    rc = condition(J, a, ap, &n->kids[0]);
    J->depth--;
    return rc;
  }
  J->depth--;
  for (size_t i = 0; i < sizeof comparisons / sizeof comparisons[0]; i++)
    if (!strcmp(op, comparisons[i].name)) {
      if ((rc = args(J, a, ap, 2, 2, "[operand, operand]"))) return rc;
      n = node(J, DDBST__X_CMP, 2, path);
      if (!n) return DDBST_ENOMEM;
      n->op = comparisons[i].op;
      *out = n;
      return operands(J, n, a, ap);
    }
  if (!strcmp(op, "between")) {
    if ((rc = args(J, a, ap, 3, 3, "[operand, low, high]"))) return rc;
    n = node(J, DDBST__X_BETWEEN, 3, path);
    if (!n) return DDBST_ENOMEM;
    *out = n;
    return operands(J, n, a, ap);
  }
  if (!strcmp(op, "in")) {
    if ((rc = args(J, a, ap, 2, 101, "[operand, value, ...] (1 to 100 values)")))
      return rc;
    n = node(J, DDBST__X_IN, (int)a->count, path);
    if (!n) return DDBST_ENOMEM;
    *out = n;
    return operands(J, n, a, ap);
  }
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
    if (!strcmp(op, functions[i].name)) {
      n = node(J, functions[i].kind, functions[i].nargs, path);
      if (!n) return DDBST_ENOMEM;
      *out = n;
      if (functions[i].nargs == 1) {
        /* {"attribute_exists": "path"} or {"attribute_exists": {"path": p}} */
        if (a->type == DDBST__J_OBJECT) {
          const char *o = operator_of(a, operand_ops);
          if (!o || strcmp(o, "path") != 0)
            return fail_at(J, ap, DDBST_EINVAL, "expected an attribute's path");
          const char *pp = member_path(J, ap, "path");
          return pp ? path_of(J, a->items[0], pp, &n->kids[0]) : DDBST_ENOMEM;
        }
        return path_of(J, a, ap, &n->kids[0]);
      }
      if ((rc = args(J, a, ap, 2, 2, "[path, value]"))) return rc;
      return operands(J, n, a, ap);
    }
  return fail_at(J, path, DDBST_EINVAL,
                 "unknown operator '%.40s' (expected and, or, not, = <> < <= "
                 "> >=, between, in, attribute_exists, attribute_not_exists, "
                 "attribute_type, begins_with or contains)",
                 op);
}

/* ---- update actions ---- */

/* A SET value: an operand or {"+": [a, b]}, {"-": [a, b]},
 * {"if_not_exists": [path, v]}, {"list_append": [a, b]}. */
static int update_value(jparser *J, const ddbst__jnode *v, const char *path,
                        ddbst__xnode **out) {
  static const char *const ops[] = {"+", "-", "if_not_exists", "list_append",
                                    NULL};
  const char *op = operator_of(v, ops);
  if (!op) return operand(J, v, path, 0, 1, out);
  if (++J->depth > DDBST__X_DEPTH)
    return fail_at(J, path, DDBST_EINVAL, "values nested past %d levels",
                   DDBST__X_DEPTH);
  const char *ap = member_path(J, path, op);
  if (!ap) return DDBST_ENOMEM;
  const ddbst__jnode *a = v->items[0];
  int rc = args(J, a, ap, 2, 2, "[operand, operand]");
  if (rc) return rc;
  ddbst__xkind k = op[0] == '+'   ? DDBST__X_PLUS
                   : op[0] == '-' ? DDBST__X_MINUS
                   : op[0] == 'i' ? DDBST__X_IF_NOT_EXISTS
                                  : DDBST__X_LIST_APPEND;
  ddbst__xnode *n = node(J, k, 2, path);
  if (!n) return DDBST_ENOMEM;
  *out = n;
  for (size_t i = 0; i < 2 && !rc; i++) {
    const char *ep = item_path(J, ap, i);
    if (!ep) return DDBST_ENOMEM;
    /* the first operand is a path when a string, as everywhere */
    if (i == 0 && k == DDBST__X_IF_NOT_EXISTS)
      rc = operand(J, a->items[0], ep, 1, 0, &n->kids[0]);
    else if (i == 0 && a->items[0]->type == DDBST__J_STRING)
      rc = path_of(J, a->items[0], ep, &n->kids[0]);
    else
      rc = update_value(J, a->items[i], ep, &n->kids[i]);
  }
  if (!rc && k == DDBST__X_IF_NOT_EXISTS && n->kids[0]->kind != DDBST__X_PATH)
    rc = fail_at(J, item_path(J, ap, 0), DDBST_EINVAL,
                 "if_not_exists takes an attribute's path first");
  J->depth--;
  return rc;
}

/* One element of the actions array: {"set": [path, value]}, {"remove":
 * path}, {"add": [path, value]}, {"delete": [path, value]}; "remove" also
 * takes an array of paths, and adds one action per path. */
static int action(jparser *J, const ddbst__jnode *v, const char *path,
                  ddbst__xnode **list, int *n, int cap) {
  static const char *const kinds[] = {"set", "remove", "add", "delete", NULL};
  const char *k = operator_of(v, kinds);
  if (!k)
    return fail_at(J, path, DDBST_EINVAL,
                   "expected an action: {\"set\": [path, value]}, "
                   "{\"remove\": path}, {\"add\": [path, value]} or "
                   "{\"delete\": [path, value]}");
  const ddbst__jnode *a = v->items[0];
  const char *ap = member_path(J, path, k);
  if (!ap) return DDBST_ENOMEM;
  int rc;
  if (!strcmp(k, "remove")) {
    size_t count = a->type == DDBST__J_ARRAY ? a->count : 1;
    if (a->type == DDBST__J_ARRAY && count == 0)
      return fail_at(J, ap, DDBST_EINVAL, "expected a path or paths");
    for (size_t i = 0; i < count; i++) {
      if (*n == cap)
        return fail_at(J, ap, DDBST_EINVAL, "more than %d actions", cap);
      ddbst__xnode *r = node(J, DDBST__X_REMOVE, 1, path);
      if (!r) return DDBST_ENOMEM;
      const char *ep = a->type == DDBST__J_ARRAY ? item_path(J, ap, i)
                                                 : ap;
      if (!ep) return DDBST_ENOMEM;
      rc = path_of(J, a->type == DDBST__J_ARRAY ? a->items[i] : a, ep,
                   &r->kids[0]);
      if (rc) return rc;
      list[(*n)++] = r;
    }
    return 0;
  }
  if ((rc = args(J, a, ap, 2, 2, "[path, value]"))) return rc;
  if (*n == cap) return fail_at(J, ap, DDBST_EINVAL, "more than %d actions", cap);
  ddbst__xkind kind = k[0] == 's'   ? DDBST__X_SET
                      : k[0] == 'a' ? DDBST__X_ADD
                                    : DDBST__X_DELETE;
  ddbst__xnode *x = node(J, kind, 2, path);
  const char *p0 = item_path(J, ap, 0), *p1 = item_path(J, ap, 1);
  if (!x || !p0 || !p1) return DDBST_ENOMEM;
  rc = path_of(J, a->items[0], p0, &x->kids[0]);
  if (!rc)
    rc = kind == DDBST__X_SET ? update_value(J, a->items[1], p1, &x->kids[1])
                              : operand(J, a->items[1], p1, 0, 0, &x->kids[1]);
  if (rc) return rc;
  list[(*n)++] = x;
  return 0;
}

int ddbst__xparse_json(ddbst__xparse *p, const ddbst__jnode *v,
                       ddbst__xnode **root, ddbst__xnode ***actions,
                       int *nactions) {
  jparser J;
  memset(&J, 0, sizeof J);
  J.p = p;
  J.tmp = p->tmp;
  int rc;
  if (!p->update) {
    rc = condition(&J, v, p->field, root);
  } else if (v->type != DDBST__J_ARRAY || v->count == 0) {
    rc = fail_at(&J, p->field, DDBST_EINVAL,
                 "expected an array of actions: [{\"set\": [\"count\", "
                 "{\"+\": [\"count\", 1]}]}]");
  } else {
    enum { MAX_ACTIONS = 256 };
    ddbst__xnode *list[MAX_ACTIONS];
    int n = 0;
    rc = 0;
    for (size_t i = 0; !rc && i < v->count; i++) {
      const char *ep = item_path(&J, p->field, i);
      rc = ep ? action(&J, v->items[i], ep, list, &n, MAX_ACTIONS)
              : DDBST_ENOMEM;
    }
    if (!rc) {
      *actions = ddbst__arena_alloc(p->ar, (size_t)n * sizeof **actions);
      if (!*actions) rc = DDBST_ENOMEM;
      else memcpy(*actions, list, (size_t)n * sizeof *list);
      *nactions = n;
    }
  }
  return rc;
}
