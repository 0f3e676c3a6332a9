/* Update actions in the model's terms: SET (a value, another attribute,
 * arithmetic, if_not_exists, list_append), REMOVE, ADD and DELETE on
 * attributes and on paths into map and list ones, typed by their
 * attribute. What keeps the keys true stays with the item's own values:
 * an action never touches a key facet, a unique attribute, a membership
 * condition's attribute or what ddbst maintains itself (version,
 * timestamps), so request.c's index rules see every change to them. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"

/* Why attribute `a` may not be an action's target, or NULL when it may. */
static const char *protected_because(const ddbst_model *m,
                                     const ddbst__entity *e, int a,
                                     char *why, size_t cap) {
  const ddbst__attr *at = &e->attrs[a];
  if (at->primary_facet) {
    snprintf(why, cap,
             "%s.%s is part of the primary key and cannot change; write a "
             "new item and delete this one",
             e->name, at->name);
    return why;
  }
  for (int i = 0; i < e->nindexes; i++) {
    const ddbst__ekey *k = &e->indexes[i];
    const ddbst__template *ts[2] = {&k->pk, &k->sk};
    if (m->indexes[k->index].native) continue; /* no key text to rewrite */
    int uses = 0;
    for (int t = 0; t < 2; t++)
      for (int s = 0; s < ts[t]->nsegs; s++) uses |= ts[t]->segs[s].attr == a;
    for (int w = 0; w < k->nwhen; w++) uses |= k->when[w].attr == a;
    if (uses) {
      snprintf(why, cap,
               "%s.%s decides index %s's keys: set it as a value (not an "
               "action), so ddbst rewrites them",
               e->name, at->name, m->indexes[k->index].name);
      return why;
    }
  }
  for (int u = 0; u < e->nuniques; u++)
    for (int s = 0; s < e->uniques[u].tmpl.nsegs; s++)
      if (e->uniques[u].tmpl.segs[s].attr == a) {
        snprintf(why, cap,
                 "%s.%s is unique: set it as a value, with its previous "
                 "value, so its guard moves with it",
                 e->name, at->name);
        return why;
      }
  if (a == e->version_attr || a == e->updated_attr) {
    snprintf(why, cap,
             "%s.%s is kept by ddbst on every update: %s", e->name, at->name,
             a == e->version_attr ? "use ddbst_item_expect_version"
                                  : "set it as a value to give your own");
    return why;
  }
  return NULL;
}

static int is_value(const ddbst__xnode *n) {
  return n->kind == DDBST__X_VALUE || n->kind == DDBST__X_PARAM;
}

/* A value node of a SET, typed by the target `t` (its attribute `a`, NULL
 * inside a document) and what the value must be: a value of the target
 * (`want` V_DOC: any), a number (arithmetic) or a list (list_append). */
static int type_set_value(ddbst__xres *r, ddbst__xnode *v,
                          const ddbst__attr *a, ddbst__vclass want) {
  const ddbst__entity *e = r->e;
  int rc;
  if (is_value(v)) {
    r->x->nvalues++;
    if (a) return ddbst__xtype_value(r, v, DDBST__U_ATTR, a);
    if (want == DDBST__V_N) return ddbst__xtype_value(r, v, DDBST__U_NUMBER, NULL);
    if (want == DDBST__V_L) return ddbst__xtype_value(r, v, DDBST__U_LIST, NULL);
    return ddbst__xtype_value(r, v, DDBST__U_DOC, NULL);
  }
  switch (v->kind) {
  case DDBST__X_PATH: {
    rc = ddbst__xresolve_path(r, v);
    if (rc) return rc;
    ddbst__vclass c = ddbst__xclass(r, v);
    ddbst__vclass need = a ? ddbst__xclass_of_type(a->type) : want;
    if (c != need && c != DDBST__V_DOC && need != DDBST__V_DOC)
      return ddbst__xfail(r->p, v, DDBST_EVALUE,
                          "%s.%s is %s, where %s is needed", e->name,
                          e->attrs[v->attr].name, ddbst__xclass_name(c),
                          ddbst__xclass_name(need));
    return 0;
  }
  case DDBST__X_PLUS:
  case DDBST__X_MINUS:
    if (want != DDBST__V_N && want != DDBST__V_DOC)
      return ddbst__xfail(r->p, v, DDBST_EVALUE,
                          "%s.%s is %s: + and - make numbers", e->name,
                          a ? a->name : "?", ddbst__xclass_name(want));
    rc = type_set_value(r, v->kids[0], a, DDBST__V_N);
    return rc ? rc : type_set_value(r, v->kids[1], a, DDBST__V_N);
  case DDBST__X_IF_NOT_EXISTS:
    rc = type_set_value(r, v->kids[0], a, want);
    return rc ? rc : type_set_value(r, v->kids[1], a, want);
  case DDBST__X_LIST_APPEND:
    if (want != DDBST__V_L && want != DDBST__V_DOC)
      return ddbst__xfail(r->p, v, DDBST_EVALUE,
                          "%s.%s is %s: list_append makes a list", e->name,
                          a ? a->name : "?", ddbst__xclass_name(want));
    rc = type_set_value(r, v->kids[0], a, DDBST__V_L);
    return rc ? rc : type_set_value(r, v->kids[1], a, DDBST__V_L);
  default:
    return ddbst__xfail(r->p, v, DDBST_EINVAL,
                        "a SET takes a value, an attribute, +, -, "
                        "if_not_exists or list_append");
  }
}

/* Whether paths `a` and `b` overlap (one is the other or inside it). */
static int overlap(const ddbst__xnode *a, const ddbst__xnode *b) {
  if (a->attr != b->attr) return 0;
  int n = a->nsteps < b->nsteps ? a->nsteps : b->nsteps;
  for (int i = 0; i < n; i++) {
    const ddbst__xstep *x = &a->steps[i], *y = &b->steps[i];
    if (!x->name != !y->name) return 0;
    if (x->name ? x->len != y->len || memcmp(x->name, y->name, x->len)
                : x->index != y->index)
      return 0;
  }
  return 1;
}

static int resolve_action(ddbst__xres *r, ddbst__xnode *act) {
  const ddbst__entity *e = r->e;
  ddbst__xnode *t = act->kids[0];
  int rc = ddbst__xresolve_path(r, t);
  if (rc) return rc;
  char why[DDBST_ERROR_MESSAGE_MAX];
  if (protected_because(r->x->m, e, t->attr, why, sizeof why))
    return ddbst__xfail(r->p, t, DDBST_EINVAL, "%s", why);
  const ddbst__attr *a = t->nsteps ? NULL : &e->attrs[t->attr];
  ddbst__vclass c = ddbst__xclass(r, t);
  ddbst__xnode *v = act->nkids > 1 ? act->kids[1] : NULL;
  switch (act->kind) {
  case DDBST__X_SET:
    r->x->has_set = 1;
    return type_set_value(r, v, a, c);
  case DDBST__X_REMOVE:
    r->x->has_remove = 1;
    if (a && a->required)
      return ddbst__xfail(r->p, t, DDBST_EVALUE,
                          "%s.%s is required and cannot be removed", e->name,
                          a->name);
    return 0;
  case DDBST__X_ADD:
    r->x->has_add = 1;
    if (!is_value(v))
      return ddbst__xfail(r->p, v, DDBST_EINVAL, "ADD takes a value");
    r->x->nvalues++;
    if (c == DDBST__V_N || c == DDBST__V_SS || c == DDBST__V_NS)
      return ddbst__xtype_value(r, v, DDBST__U_ATTR, a);
    if (c == DDBST__V_DOC)
      return ddbst__xtype_value(r, v,
                                v->kind == DDBST__X_VALUE &&
                                        v->form == DDBST__L_ARRAY
                                    ? DDBST__U_SET
                                    : DDBST__U_NUMBER,
                                NULL);
    return ddbst__xfail(r->p, t, DDBST_EVALUE,
                        "%s.%s is %s: ADD adds to a number or a set (append to "
                        "a list with list_append)",
                        e->name, a->name, ddbst__xclass_name(c));
  case DDBST__X_DELETE:
    r->x->has_delete = 1;
    if (!is_value(v))
      return ddbst__xfail(r->p, v, DDBST_EINVAL, "DELETE takes a value");
    r->x->nvalues++;
    if (c == DDBST__V_SS || c == DDBST__V_NS)
      return ddbst__xtype_value(r, v, DDBST__U_ATTR, a);
    if (c == DDBST__V_DOC) return ddbst__xtype_value(r, v, DDBST__U_SET, NULL);
    return ddbst__xfail(r->p, t, DDBST_EVALUE,
                        "%s.%s is %s: DELETE takes elements out of a set "
                        "(REMOVE takes an attribute or a list element away)",
                        e->name, a->name, ddbst__xclass_name(c));
  default: return DDBST_EINVAL;
  }
}

int ddbst__xresolve_actions(ddbst__xres *r) {
  for (int i = 0; i < r->x->nactions; i++) {
    ddbst__xnode *act = r->x->actions[i];
    int rc = resolve_action(r, act);
    if (rc) return rc;
    for (int j = 0; j < i; j++)
      if (overlap(r->x->actions[j]->kids[0], act->kids[0]))
        return ddbst__xfail(r->p, act->kids[0], DDBST_EINVAL,
                            "two actions on %s.%s (or inside it): DynamoDB "
                            "refuses overlapping paths in one update",
                            r->e->name, r->e->attrs[act->kids[0]->attr].name);
  }
  return 0;
}

int ddbst__xcheck_overlap(const ddbst_item *it, const ddbst_expr *x,
                          ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  for (int i = 0; i < x->nactions; i++) {
    int a = x->actions[i]->kids[0]->attr;
    const ddbst__val *v = &it->vals[a];
    if (v->set || v->upd != DDBST__UPD_SET) {
      char path[DDBST_ERROR_PATH_MAX];
      snprintf(path, sizeof path, "%s.%s", e->name, e->attrs[a].name);
      return ddbst__fail(err, DDBST_EINVAL, path,
                         "%s.%s is changed twice: by the item's value or mark "
                         "and by update action %d; DynamoDB refuses "
                         "overlapping paths",
                         e->name, e->attrs[a].name, i + 1);
    }
  }
  return 0;
}

int ddbst__xwrite_action(ddbst_item *it, const ddbst_expr *x, int i,
                         ddbst__xkind clause, ddbst_buf *out,
                         ddbst_error *err) {
  if (x->actions[i]->kind != clause) return 0;
  return ddbst__xrun(it, &x->action_progs[i], out, err);
}
