/* Conditions and filters resolved and typed: every comparison one that can
 * hold on what its attributes hold, every value typed by the operand it
 * meets (cond_values.c). */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"

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

int ddbst__xresolve_cond(ddbst__xres *r, ddbst__xnode *n) {
  int rc = 0;
  const ddbst__attr *a;
  switch (n->kind) {
  case DDBST__X_OR:
  case DDBST__X_AND:
  case DDBST__X_NOT:
    for (int i = 0; !rc && i < n->nkids; i++) rc = ddbst__xresolve_cond(r, n->kids[i]);
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

