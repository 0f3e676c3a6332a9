/* Compiled expressions, the public face: compiling either form (the
 * parsers, resolution and the program a request runs), freeing, attaching
 * to an item, binding parameters. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "request/cond.h"

/* ---- compiling ---- */

static int compile(const ddbst__xmem *mem, const ddbst_model *m, int entity,
                   int kind, const char *text, size_t len, const char *json,
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
  ddbst_expr *x = mem ? ddbst__arena_alloc(mem->ar, sizeof *x)
                      : ddbst__malloc(&m->alloc, sizeof *x);
  if (!x) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(x, 0, sizeof *x);
  x->m = m;
  x->entity = entity;
  x->kind = kind;
  /* a lent arena is the expression's while it compiles, handed back after */
  if (mem)
    x->ar = *mem->ar;
  else
    ddbst__arena_init(&x->ar, &m->alloc);
  const ddbst__entity *e = &m->entities[entity];
  ddbst__xparse p = {&x->ar, kind == DDBST_EXPR_UPDATE, fields[kind], text,
                     len, NULL, err, NULL};
  ddbst__xres r;
  memset(&r, 0, sizeof r);
  r.p = &p;
  r.x = x;
  r.e = e;
  if (mem) {
    r.tmp = *mem->tmp;
    ddbst_buf_reset(&r.tmp);
    r.work = mem->work;
  } else {
    ddbst__buf_init(&r.tmp, &m->alloc);
  }
  p.tmp = &r.tmp;
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
    rc = p.update ? ddbst__xresolve_actions(&r) : ddbst__xresolve_cond(&r, x->root);
  /* what requests will write, flattened once */
  if (!rc && !p.update) rc = ddbst__xcompile_prog(&r, x->root, &x->prog);
  if (!rc && p.update) {
    x->action_progs =
        ddbst__arena_alloc(&x->ar, (size_t)x->nactions * sizeof *x->action_progs);
    if (!x->action_progs) rc = DDBST_ENOMEM;
    for (int i = 0; !rc && i < x->nactions; i++)
      rc = ddbst__xcompile_prog(&r, x->actions[i], &x->action_progs[i]);
  }
  if (mem) {
    *mem->tmp = r.tmp;
    *mem->ar = x->ar;
    ddbst__arena_init(&x->ar, &m->alloc);
    x->lent = 1;
  } else {
    ddbst__buf_release(&r.tmp);
  }
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
  len = ddbst__len(text, len);
  return compile(NULL, m, entity, kind, text, len, NULL, NULL, out, err);
}

int ddbst_expr_parse_json(const ddbst_model *m, int entity, int kind,
                          const char *json, size_t len, ddbst_expr **out,
                          ddbst_error *err) {
  if (!json)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "no expression JSON");
  len = ddbst__len(json, len);
  return compile(NULL, m, entity, kind, NULL, len, json, NULL, out, err);
}

int ddbst__expr_compile_in(const ddbst__xmem *mem, const ddbst_model *m,
                           int entity, int kind, const char *text, size_t len,
                           const ddbst__jnode *tree, ddbst_expr **out,
                           ddbst_error *err) {
  return tree ? compile(mem, m, entity, kind, NULL, 0, NULL, tree, out, err)
              : compile(mem, m, entity, kind, text, len, NULL, NULL, out, err);
}

void ddbst_expr_free(ddbst_expr *x) {
  if (!x || x->lent) return;
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
  return attach_text(it, DDBST_EXPR_CONDITION, text, ddbst__len(text, len),
                     err);
}

int ddbst_item_update_text(ddbst_item *it, const char *text, size_t len,
                           ddbst_error *err) {
  return attach_text(it, DDBST_EXPR_UPDATE, text, ddbst__len(text, len), err);
}

/* Cuts parameter `slot`'s name and text out of it->ptext, moving the
 * texts after it down. */
static void forget_param_text(ddbst_item *it, int slot) {
  const ddbst__param *old = &it->params[slot];
  size_t from = old->name_off, size = (size_t)old->name_len + old->len + 2;
  memmove(it->ptext.data + from, it->ptext.data + from + size,
          it->ptext.len - from - size + 1); /* with the final NUL */
  it->ptext.len -= size;
  for (int i = 0; i < it->nparams; i++) {
    ddbst__param *p = &it->params[i];
    if (p->name_off > from) {
      p->name_off -= (uint32_t)size;
      p->off -= (uint32_t)size;
    }
  }
}

int ddbst_item_bind(ddbst_item *it, const char *name, const char *text,
                    size_t len, ddbst_error *err) {
  len = ddbst__len(text, len);
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
  if (ddbst__buf_reserve(&it->ptext, nl + len + 2))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  /* A parameter bound again gives up its old text (once the room for the
   * new one is sure): a scan, never reset, binding per page would
   * otherwise grow ptext for ever. */
  if (slot >= 0) forget_param_text(it, slot);
  size_t at = it->ptext.len;
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
