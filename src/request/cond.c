/* Conditions and filters resolved against the model: every name an
 * attribute of the entity (or a path into a map or list one; an unknown
 * name is an error that says which was meant), every comparison one that
 * can hold, every value typed by what it meets (cond_values.c). Also the
 * public face of compiled expressions: parse, free, attach to an item,
 * bind parameters. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "request/cond.h"

/* ---- nodes and errors ---- */

ddbst__xnode *ddbst__xnode_new(ddbst__arena *ar, ddbst__xkind kind,
                               int nkids) {
  ddbst__xnode *n = ddbst__arena_alloc(ar, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->attr = -1;
  n->nkids = nkids;
  if (nkids) {
    n->kids = ddbst__arena_alloc(ar, (size_t)nkids * sizeof *n->kids);
    if (!n->kids) return NULL;
  }
  return n;
}

static int vfail_at(const ddbst__xparse *p, size_t offset, int code,
                    const char *fmt, va_list ap) {
  char msg[DDBST_ERROR_MESSAGE_MAX];
  vsnprintf(msg, sizeof msg, fmt, ap);
  size_t at = offset < p->src_len ? offset : p->src_len;
  size_t ch = ddbst__utf8_chars(p->src, at) + 1;
  if (p->src_jpath) /* a path string of the JSON form */
    return ddbst__fail(p->err, code, p->src_jpath, "at character %zu of the "
                       "path: %s", ch, msg);
  ddbst__fail(p->err, code, p->field, "at character %zu: %s", ch, msg);
  if (p->err) {
    p->err->offset = at;
    p->err->line = 1;
    p->err->column = (uint32_t)ch;
  }
  return code;
}

int ddbst__xfail_at(const ddbst__xparse *p, size_t offset, int code,
                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail_at(p, offset, code, fmt, ap);
  va_end(ap);
  return code;
}

int ddbst__xfail(const ddbst__xparse *p, const ddbst__xnode *n, int code,
                 const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (n && n->jpath)
    ddbst__vfail(p->err, code, n->jpath, fmt, ap);
  else if (n && p->src)
    vfail_at(p, n->offset, code, fmt, ap);
  else
    ddbst__vfail(p->err, code, p->field, fmt, ap);
  va_end(ap);
  return code;
}

/* ---- names ---- */

/* Edits between a and b (insertions, deletions, substitutions and swaps of
 * two neighbours), letter case ignored; stops counting past 3. */
static int distance(const char *a, size_t n, const char *b, size_t m) {
  enum { MAXN = 64 };
  if (n >= MAXN || m >= MAXN) return 99;
  int d[MAXN + 1][MAXN + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      char x = a[i - 1], y = b[j - 1];
      if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
      int best = d[i - 1][j - 1] + (x != y);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* The attribute of the entity closest to `name`, when close enough to be
 * what was meant (at most two edits, and fewer than half its letters). */
static const char *meant(const ddbst__entity *e, const char *name,
                         size_t len) {
  const char *best = NULL;
  int bd = 3;
  for (int a = 0; a < e->nattrs; a++) {
    const char *cand = e->attrs[a].name;
    int d = distance(name, len, cand, strlen(cand));
    if (d < bd && (size_t)d * 2 <= len) {
      bd = d;
      best = cand;
    }
  }
  return best;
}

/* Whether `name` is an attribute only ddbst writes: a key of the table or
 * an index, or the entity attribute. */
static const char *key_role(const ddbst_model *m, const char *name) {
  if (m->pk_attr && !strcmp(name, m->pk_attr)) return "the table's partition key";
  if (m->sk_attr && !strcmp(name, m->sk_attr)) return "the table's sort key";
  if (m->entity_attr && !strcmp(name, m->entity_attr))
    return "the entity attribute";
  for (int i = 0; i < m->nindexes; i++)
    if (!strcmp(name, m->indexes[i].pk_attr) ||
        (m->indexes[i].sk_attr && !strcmp(name, m->indexes[i].sk_attr)))
      return "a key of an index";
  return NULL;
}

/* The interned entry for a map key `s`: the model's own when it names
 * one (so one name gets one placeholder), else a new one in the
 * expression's arena, laid out as the model's are (compile_names.c). */
static const ddbst__name *name_entry(ddbst__xres *r, const char *s,
                                     uint32_t len) {
  const ddbst_model *m = r->x->m;
  for (int i = 0; i < m->nnames; i++)
    if (m->name_list[i]->json.raw_len == len &&
        !memcmp(m->name_list[i]->text, s, len))
      return m->name_list[i];
  for (int i = 0; i < r->nkeys; i++)
    if (r->keys[i]->json.raw_len == len && !memcmp(r->keys[i]->text, s, len))
      return r->keys[i];
  if (r->nkeys == r->cap_keys) {
    int cap = r->cap_keys ? 2 * r->cap_keys : 8;
    const ddbst__name **k = ddbst__arena_alloc(&r->x->ar, (size_t)cap * sizeof *k);
    if (!k) return NULL;
    if (r->nkeys) memcpy(k, r->keys, (size_t)r->nkeys * sizeof *k);
    r->keys = k;
    r->cap_keys = cap;
  }
  ddbst_buf_reset(&r->tmp);
  if (ddbst__json_string(&r->tmp, s, len)) return NULL;
  ddbst__name *nm =
      ddbst__arena_alloc(&r->x->ar, sizeof *nm + len + 1 + r->tmp.len);
  if (!nm) return NULL;
  memcpy(nm->text, s, len);
  nm->text[len] = '\0';
  char *json = nm->text + len + 1;
  memcpy(json, r->tmp.data, r->tmp.len);
  nm->json.p = json;
  nm->json.n = (uint32_t)r->tmp.len;
  nm->json.raw_len = len;
  r->keys[r->nkeys++] = nm;
  return nm;
}

int ddbst__xresolve_path(ddbst__xres *r, ddbst__xnode *n) {
  const ddbst__entity *e = r->e;
  const char *bad;
  if ((bad = ddbst__utf8_check(n->name, n->name_len)))
    return ddbst__xfail(r->p, n, DDBST_ESYNTAX, "%s", bad);
  int a = -1;
  for (int i = 0; i < e->nattrs && a < 0; i++)
    if (strlen(e->attrs[i].name) == n->name_len &&
        !memcmp(e->attrs[i].name, n->name, n->name_len))
      a = i;
  if (a < 0) {
    const char *role = key_role(r->x->m, n->name);
    if (role)
      return ddbst__xfail(
          r->p, n, DDBST_EINVAL,
          "%s is %s, which ddbst writes from the entity's attributes: %s",
          n->name, role,
          r->x->kind == DDBST_EXPR_FILTER
              ? "a query's key is its values and sort-key condition, never a "
                "filter"
              : "name the attributes it is made of");
    const char *guess = meant(e, n->name, n->name_len);
    if (guess)
      return ddbst__xfail(r->p, n, DDBST_ENOTFOUND,
                          "%s has no attribute %s; did you mean %s?", e->name,
                          n->name, guess);
    return ddbst__xfail(r->p, n, DDBST_ENOTFOUND, "%s has no attribute %s",
                        e->name, n->name);
  }
  n->attr = a;
  r->x->uses[a] = 1;
  r->x->nnames++;
  const ddbst__attr *at = &e->attrs[a];
  if (n->nsteps && at->type != DDBST__T_MAP && at->type != DDBST__T_LIST)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is %s: a path goes inside maps and lists only",
                        e->name, at->name,
                        ddbst__xclass_name(ddbst__xclass_of_type(at->type)));
  if (n->nsteps && at->type == DDBST__T_MAP && !n->steps[0].name)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is a map: its members are .name, not [index]",
                        e->name, at->name);
  if (n->nsteps && at->type == DDBST__T_LIST && n->steps[0].name)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is a list: its elements are [index], not .name",
                        e->name, at->name);
  for (int i = 0; i < n->nsteps; i++) {
    ddbst__xstep *st = &n->steps[i];
    if (!st->name) continue;
    if ((bad = ddbst__utf8_check(st->name, st->len)))
      return ddbst__xfail(r->p, n, DDBST_ESYNTAX, "%s", bad);
    st->nm = name_entry(r, st->name, st->len);
    if (!st->nm) return DDBST_ENOMEM;
    r->x->nnames++;
  }
  return 0;
}

/* ---- conditions ---- */

static int is_value(const ddbst__xnode *n) {
  return n->kind == DDBST__X_VALUE || n->kind == DDBST__X_PARAM;
}

/* An operand that is no value: a path, or size(path). */
static int resolve_operand(ddbst__xres *r, ddbst__xnode *n) {
  if (n->kind == DDBST__X_PATH) return ddbst__xresolve_path(r, n);
  if (n->kind != DDBST__X_SIZE)
    return ddbst__xfail(r->p, n, DDBST_EINVAL,
                        "expected an attribute, size(attribute) or a value");
  ddbst__xnode *p = n->kids[0];
  int rc = ddbst__xresolve_path(r, p);
  if (rc) return rc;
  ddbst__vclass c = ddbst__xclass(r, p);
  if (c == DDBST__V_N || c == DDBST__V_BOOL)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is %s: size() measures strings, binary, lists, "
                        "maps and sets",
                        r->e->name, r->e->attrs[p->attr].name,
                        ddbst__xclass_name(c));
  return 0;
}

static ddbst__vclass operand_class(const ddbst__xres *r, const ddbst__xnode *n) {
  return n->kind == DDBST__X_SIZE ? DDBST__V_N : ddbst__xclass(r, n);
}

/* Types value `v` by the operand it is compared with. */
static int type_by(ddbst__xres *r, ddbst__xnode *v, const ddbst__xnode *by) {
  r->x->nvalues++;
  if (by->kind == DDBST__X_SIZE) return ddbst__xtype_value(r, v, DDBST__U_NUMBER, NULL);
  if (by->nsteps) return ddbst__xtype_value(r, v, DDBST__U_DOC, NULL);
  return ddbst__xtype_value(r, v, DDBST__U_ATTR, &r->e->attrs[by->attr]);
}

/* `op`'s operands `a` and `b`: at least one names an attribute; a value
 * is typed by it; two attributes must hold one kind of value; an order
 * comparison needs strings, numbers or binary. */
static int resolve_pair(ddbst__xres *r, ddbst__xnode *at, ddbst__xnode *a,
                        ddbst__xnode *b, int ordered) {
  if (is_value(a) && is_value(b))
    return ddbst__xfail(r->p, at, DDBST_EINVAL,
                        "both sides are values: compare an attribute with a "
                        "value or another attribute");
  ddbst__xnode *named = is_value(a) ? b : a;
  int rc = resolve_operand(r, named);
  if (rc) return rc;
  ddbst__vclass c = operand_class(r, named);
  if (ordered && c != DDBST__V_S && c != DDBST__V_N && c != DDBST__V_B &&
      c != DDBST__V_DOC)
    return ddbst__xfail(r->p, at, DDBST_EVALUE,
                        "%s.%s is %s: only strings, numbers and binary are "
                        "ordered, so this can never hold",
                        r->e->name, r->e->attrs[named->kind == DDBST__X_SIZE
                                                    ? named->kids[0]->attr
                                                    : named->attr]
                                        .name,
                        ddbst__xclass_name(c));
  ddbst__xnode *other = named == a ? b : a;
  if (is_value(other)) return type_by(r, other, named);
  rc = resolve_operand(r, other);
  if (rc) return rc;
  ddbst__vclass c2 = operand_class(r, other);
  if (c != c2 && c != DDBST__V_DOC && c2 != DDBST__V_DOC)
    return ddbst__xfail(r->p, at, DDBST_EVALUE,
                        "one side is %s, the other %s: they are never equal "
                        "or ordered",
                        ddbst__xclass_name(c), ddbst__xclass_name(c2));
  return 0;
}

/* A function's path: its class, with `why` when it is not one of `ok`. */
static int function_path(ddbst__xres *r, ddbst__xnode *f, const char *fname,
                         unsigned ok) {
  ddbst__xnode *p = f->kids[0];
  int rc = ddbst__xresolve_path(r, p);
  if (rc) return rc;
  ddbst__vclass c = ddbst__xclass(r, p);
  if (!(ok & (1u << c)))
    return ddbst__xfail(r->p, f, DDBST_EVALUE,
                        "%s.%s is %s: %s cannot hold on it", r->e->name,
                        r->e->attrs[p->attr].name, ddbst__xclass_name(c),
                        fname);
  return 0;
}

#define CL(c) (1u << DDBST__V_##c)

static int resolve_cond(ddbst__xres *r, ddbst__xnode *n) {
  int rc = 0;
  const ddbst__attr *a;
  switch (n->kind) {
  case DDBST__X_OR:
  case DDBST__X_AND:
  case DDBST__X_NOT:
    for (int i = 0; !rc && i < n->nkids; i++) rc = resolve_cond(r, n->kids[i]);
    return rc;
  case DDBST__X_CMP:
    return resolve_pair(r, n, n->kids[0], n->kids[1],
                        n->op != DDBST__CMP_EQ && n->op != DDBST__CMP_NE);
  case DDBST__X_BETWEEN:
    rc = resolve_pair(r, n, n->kids[0], n->kids[1], 1);
    if (!rc && is_value(n->kids[0]))
      return ddbst__xfail(r->p, n, DDBST_EINVAL,
                          "BETWEEN tests an attribute: write it first");
    if (!rc && is_value(n->kids[2])) return type_by(r, n->kids[2], n->kids[0]);
    return rc ? rc : resolve_pair(r, n, n->kids[0], n->kids[2], 1);
  case DDBST__X_IN:
    if (is_value(n->kids[0]))
      return ddbst__xfail(r->p, n, DDBST_EINVAL,
                          "IN tests an attribute: write it first");
    for (int i = 1; !rc && i < n->nkids; i++) {
      if (i == 1)
        rc = resolve_pair(r, n, n->kids[0], n->kids[1], 0);
      else if (is_value(n->kids[i]))
        rc = type_by(r, n->kids[i], n->kids[0]);
      else
        rc = resolve_pair(r, n, n->kids[0], n->kids[i], 0);
    }
    return rc;
  case DDBST__X_EXISTS:
  case DDBST__X_NOT_EXISTS:
    return ddbst__xresolve_path(r, n->kids[0]);
  case DDBST__X_TYPE:
    rc = ddbst__xresolve_path(r, n->kids[0]);
    r->x->nvalues++;
    return rc ? rc : ddbst__xtype_value(r, n->kids[1], DDBST__U_TYPE, NULL);
  case DDBST__X_BEGINS:
    rc = function_path(r, n, "begins_with", CL(S) | CL(DOC));
    if (rc) return rc;
    r->x->nvalues++;
    a = n->kids[0]->nsteps ? NULL : &r->e->attrs[n->kids[0]->attr];
    return ddbst__xtype_value(r, n->kids[1], DDBST__U_PREFIX, a);
  case DDBST__X_CONTAINS: {
    rc = function_path(r, n, "contains",
                       CL(S) | CL(SS) | CL(NS) | CL(L) | CL(DOC));
    if (rc) return rc;
    r->x->nvalues++;
    ddbst__xnode *p = n->kids[0];
    ddbst__vclass c = ddbst__xclass(r, p);
    a = p->nsteps ? NULL : &r->e->attrs[p->attr];
    if (c == DDBST__V_S)
      return ddbst__xtype_value(r, n->kids[1], DDBST__U_PART, a);
    if (c == DDBST__V_SS || c == DDBST__V_NS)
      return ddbst__xtype_value(r, n->kids[1], DDBST__U_ELEMENT, a);
    return ddbst__xtype_value(r, n->kids[1], DDBST__U_DOC, NULL);
  }
  default:
    return ddbst__xfail(r->p, n, DDBST_EINVAL,
                        "expected a condition (a comparison, BETWEEN, IN or "
                        "a function), not an operand");
  }
}

#undef CL

/* ---- compiling ---- */

static int compile(const ddbst_model *m, int entity, int kind,
                   const char *text, size_t len, const char *json,
                   const ddbst__jnode *tree, ddbst_expr **out,
                   ddbst_error *err) {
  static const char *const fields[] = {NULL, "condition", "filter", "update"};
  if (out) *out = NULL;
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or out is NULL");
  if (entity < 0 || entity >= m->nentities)
    return ddbst__fail(err, DDBST_EINVAL, "entity",
                       "entity index %d is out of range", entity);
  if (kind < DDBST_EXPR_CONDITION || kind > DDBST_EXPR_UPDATE)
    return ddbst__fail(err, DDBST_EINVAL, "kind",
                       "expected DDBST_EXPR_CONDITION, _FILTER or _UPDATE");
  if (!tree && !text && !json)
    return ddbst__fail(err, DDBST_EINVAL, fields[kind], "no expression");
  ddbst_expr *x = ddbst__malloc(&m->alloc, sizeof *x);
  if (!x) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(x, 0, sizeof *x);
  x->m = m;
  x->entity = entity;
  x->kind = kind;
  ddbst__arena_init(&x->ar, &m->alloc);
  const ddbst__entity *e = &m->entities[entity];
  ddbst__xparse p = {&x->ar, kind == DDBST_EXPR_UPDATE, fields[kind], text,
                     len, NULL, err};
  ddbst__xres r;
  memset(&r, 0, sizeof r);
  r.p = &p;
  r.x = x;
  r.e = e;
  ddbst__buf_init(&r.tmp, &m->alloc);
  int rc = 0;
  x->uses = ddbst__arena_alloc(&x->ar, (size_t)e->nattrs + 1);
  if (!x->uses) rc = DDBST_ENOMEM;
  const char *bad;
  if (!rc && text && (bad = ddbst__utf8_check(text, len)))
    rc = ddbst__fail(err, DDBST_ESYNTAX, fields[kind], "%s", bad);
  if (!rc && json) {
    ddbst__jnode *root;
    rc = ddbst__jtree_parse(&x->ar, json, len, (ddbst__jnode **)&root, err);
    tree = root;
  }
  if (!rc && tree)
    rc = ddbst__xparse_json(&p, tree, &x->root, &x->actions, &x->nactions);
  else if (!rc)
    rc = ddbst__xparse_text(&p, &x->root, &x->actions, &x->nactions);
  if (!rc)
    rc = p.update ? ddbst__xresolve_actions(&r) : resolve_cond(&r, x->root);
  /* what requests will write, flattened once */
  if (!rc && !p.update) rc = ddbst__xcompile_prog(&r, x->root, &x->prog);
  if (!rc && p.update) {
    x->action_progs =
        ddbst__arena_alloc(&x->ar, (size_t)x->nactions * sizeof *x->action_progs);
    if (!x->action_progs) rc = DDBST_ENOMEM;
    for (int i = 0; !rc && i < x->nactions; i++)
      rc = ddbst__xcompile_prog(&r, x->actions[i], &x->action_progs[i]);
  }
  ddbst__buf_release(&r.tmp);
  if (rc) {
    ddbst_expr_free(x);
    if (rc == DDBST_ENOMEM) ddbst__fail(err, rc, NULL, "out of memory");
    return rc;
  }
  *out = x;
  return 0;
}

int ddbst_expr_parse(const ddbst_model *m, int entity, int kind,
                     const char *text, size_t len, ddbst_expr **out,
                     ddbst_error *err) {
  if (!text)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "no expression text");
  return compile(m, entity, kind, text, len, NULL, NULL, out, err);
}

int ddbst_expr_parse_json(const ddbst_model *m, int entity, int kind,
                          const char *json, size_t len, ddbst_expr **out,
                          ddbst_error *err) {
  if (!json)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "no expression JSON");
  return compile(m, entity, kind, NULL, len, json, NULL, out, err);
}

int ddbst__expr_from_tree(const ddbst_model *m, int entity, int kind,
                          const ddbst__jnode *tree, ddbst_expr **out,
                          ddbst_error *err) {
  return compile(m, entity, kind, NULL, 0, NULL, tree, out, err);
}

void ddbst_expr_free(ddbst_expr *x) {
  if (!x) return;
  const ddbst_allocator *a = &x->m->alloc;
  ddbst__arena_free(&x->ar);
  ddbst__free(a, x);
}

/* ---- on an item ---- */

int ddbst__xreserve(ddbst_item *it, const ddbst_expr *x) {
  int want = it->base_refs;
  const ddbst_expr *on[3] = {it->cond, it->update, x};
  for (int i = 0; i < 3; i++)
    if (on[i] && (i < 2 || (on[i] != it->cond && on[i] != it->update)))
      want += on[i]->nnames > on[i]->nvalues ? on[i]->nnames : on[i]->nvalues;
  if (want <= it->cap_refs) return 0;
  const ddbst_allocator *a = &it->m->alloc;
  const ddbst__name **names =
      ddbst__realloc(a, (void *)it->names, (size_t)want * sizeof *names);
  if (!names) return DDBST_ENOMEM;
  it->names = names;
  ddbst__vref *refs = ddbst__realloc(a, it->refs, (size_t)want * sizeof *refs);
  if (!refs) return DDBST_ENOMEM;
  it->refs = refs;
  it->cap_refs = want;
  return 0;
}

static int attach(ddbst_item *it, const ddbst_expr *x, int kind,
                  ddbst_error *err) {
  static const char *const what[] = {NULL, "a condition", "a filter",
                                     "update actions"};
  if (!it || !x)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item or expression is NULL");
  if (x->m != it->m || x->entity != it->entity)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the expression was compiled for %s, the item is a %s",
                       x->m == it->m ? x->m->entities[x->entity].name
                                     : "another model",
                       ddbst__entity_of(it)->name);
  if (x->kind != kind)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the expression is %s, not %s", what[x->kind],
                       what[kind]);
  if (ddbst__xreserve(it, x))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  int slot = kind == DDBST_EXPR_UPDATE;
  if (it->owned[slot] && it->owned[slot] != x) {
    it->drop(it->owned[slot]);
    it->owned[slot] = NULL;
  }
  if (slot) it->update = x;
  else it->cond = x;
  it->has_exprs = 1;
  return 0;
}

int ddbst_item_condition(ddbst_item *it, const ddbst_expr *x,
                         ddbst_error *err) {
  return attach(it, x, DDBST_EXPR_CONDITION, err);
}

int ddbst_item_update(ddbst_item *it, const ddbst_expr *x, ddbst_error *err) {
  return attach(it, x, DDBST_EXPR_UPDATE, err);
}

static int attach_text(ddbst_item *it, int kind, const char *text, size_t len,
                       ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  ddbst_expr *x;
  int rc = ddbst_expr_parse(it->m, it->entity, kind, text, len, &x, err);
  return rc ? rc : ddbst__item_carry(it, x, err);
}

int ddbst__item_carry(ddbst_item *it, ddbst_expr *x, ddbst_error *err) {
  int rc = attach(it, x, x->kind, err);
  if (rc) {
    ddbst_expr_free(x);
    return rc;
  }
  it->owned[x->kind == DDBST_EXPR_UPDATE] = x;
  it->drop = ddbst_expr_free;
  return 0;
}

int ddbst_item_condition_text(ddbst_item *it, const char *text, size_t len,
                              ddbst_error *err) {
  return attach_text(it, DDBST_EXPR_CONDITION, text, len, err);
}

int ddbst_item_update_text(ddbst_item *it, const char *text, size_t len,
                           ddbst_error *err) {
  return attach_text(it, DDBST_EXPR_UPDATE, text, len, err);
}

int ddbst_item_bind(ddbst_item *it, const char *name, const char *text,
                    size_t len, ddbst_error *err) {
  if (!it || !name || (!text && len))
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item, name or text is NULL");
  if (name[0] == ':') name++;
  size_t nl = strlen(name);
  int ok = nl > 0;
  for (size_t i = 0; ok && i < nl; i++) {
    char c = name[i];
    ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (i > 0 && c >= '0' && c <= '9');
  }
  if (!ok)
    return ddbst__fail(err, DDBST_EINVAL, "params",
                       "a parameter's name is letters, digits and '_', not "
                       "starting with a digit");
  char path[DDBST_ERROR_PATH_MAX];
#define PARAM_PATH (snprintf(path, sizeof path, "params.%s", name), path)
  const char *bad = ddbst__utf8_check(text ? text : "", len);
  if (bad) return ddbst__fail(err, DDBST_EVALUE, PARAM_PATH, "%s", bad);
  int slot = -1;
  for (int i = 0; i < it->nparams && slot < 0; i++)
    if (it->params[i].name_len == nl &&
        !memcmp(it->ptext.data + it->params[i].name_off, name, nl))
      slot = i;
  if (slot < 0 && it->nparams == DDBST__MAX_PARAMS)
    return ddbst__fail(err, DDBST_ERANGE, PARAM_PATH,
                       "an item binds at most %d parameters", DDBST__MAX_PARAMS);
#undef PARAM_PATH
  size_t at = it->ptext.len;
  if (ddbst__buf_reserve(&it->ptext, nl + len + 2))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  /* name NUL text NUL, in the room just made */
  char *o = it->ptext.data + at;
  memcpy(o, name, nl);
  o[nl] = '\0';
  if (len) memcpy(o + nl + 1, text, len);
  o[nl + 1 + len] = '\0';
  it->ptext.len = at + nl + len + 2;
  it->ptext.data[it->ptext.len] = '\0';
  if (slot < 0) slot = it->nparams++;
  it->has_exprs = 1;
  ddbst__param *pr = &it->params[slot];
  pr->name_off = (uint32_t)at;
  pr->name_len = (uint32_t)nl;
  pr->off = (uint32_t)(at + nl + 1);
  pr->len = (uint32_t)len;
  return 0;
}
