/* Writing a compiled condition, filter or update action into a request
 * body. At compile time the tree is flattened into a program of fixed text,
 * names and values (its text exactly what the tree says, parentheses where
 * precedence needs them); a request runs the program, numbering the
 * placeholders in the order written and typing the bound parameters. The
 * hot path of a conditional write: nothing is looked up but parameters,
 * and a warm item allocates nothing. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"

/* ---- the program, made at compile time ---- */

typedef struct emitter {
  ddbst__xres *r;
  ddbst__xop ops[256];
  int n;
  int full; /* more ops than fit: DDBST_ERANGE */
} emitter;

static ddbst__xop *push(emitter *e, ddbst__xop_kind kind) {
  if (e->n == (int)(sizeof e->ops / sizeof e->ops[0])) {
    e->full = 1;
    return NULL;
  }
  ddbst__xop *op = &e->ops[e->n++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  return op;
}

/* Fixed text; one op with the text before it when that is text too. */
static int text(emitter *e, const char *s) {
  size_t n = strlen(s);
  ddbst__xop *last = e->n ? &e->ops[e->n - 1] : NULL;
  if (last && last->kind == DDBST__XOP_TEXT) {
    char *joined = ddbst__arena_alloc(&e->r->x->ar, last->len + n + 1);
    if (!joined) return DDBST_ENOMEM;
    memcpy(joined, last->text, last->len);
    memcpy(joined + last->len, s, n + 1);
    last->text = joined;
    last->len += (uint32_t)n;
    return 0;
  }
  ddbst__xop *op = push(e, DDBST__XOP_TEXT);
  if (!op) return 0;
  op->text = s; /* static text, or the arena's */
  op->len = (uint32_t)n;
  return 0;
}

static int emit_path(emitter *e, const ddbst__xnode *n) {
  const ddbst_model *m = e->r->x->m;
  ddbst__xop *op = push(e, DDBST__XOP_NAME);
  if (op) op->nm = ddbst__name_of(m, e->r->e->attrs[n->attr].name);
  for (int i = 0; i < n->nsteps; i++) {
    const ddbst__xstep *st = &n->steps[i];
    int rc;
    if (st->nm) {
      rc = text(e, ".");
      ddbst__xop *k = push(e, DDBST__XOP_NAME);
      if (k) k->nm = st->nm;
    } else {
      char idx[16];
      snprintf(idx, sizeof idx, "[%u]", (unsigned)st->index);
      char *s = ddbst__arena_strndup(&e->r->x->ar, idx, strlen(idx));
      rc = s ? text(e, s) : DDBST_ENOMEM;
    }
    if (rc) return rc;
  }
  return 0;
}

static int emit_operand(emitter *e, const ddbst__xnode *n);

/* "f(a, b)" of two operands (b may be NULL). */
static int emit_call(emitter *e, const char *f, const ddbst__xnode *a,
                     const ddbst__xnode *b) {
  int rc = text(e, f);
  rc = rc ? rc : emit_operand(e, a);
  if (!rc && b) {
    rc = text(e, ", ");
    rc = rc ? rc : emit_operand(e, b);
  }
  return rc ? rc : text(e, ")");
}

static int emit_operand(emitter *e, const ddbst__xnode *n) {
  ddbst__xop *op;
  int rc;
  switch (n->kind) {
  case DDBST__X_PATH: return emit_path(e, n);
  case DDBST__X_VALUE:
    op = push(e, DDBST__XOP_VALUE);
    if (op) {
      op->text = n->av;
      op->len = n->av_len;
    }
    return 0;
  case DDBST__X_PARAM:
    op = push(e, DDBST__XOP_PARAM);
    if (op) op->param = n;
    return 0;
  case DDBST__X_SIZE: return emit_call(e, "size(", n->kids[0], NULL);
  case DDBST__X_IF_NOT_EXISTS:
    return emit_call(e, "if_not_exists(", n->kids[0], n->kids[1]);
  case DDBST__X_LIST_APPEND:
    return emit_call(e, "list_append(", n->kids[0], n->kids[1]);
  case DDBST__X_PLUS:
  case DDBST__X_MINUS:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, n->kind == DDBST__X_PLUS ? " + " : " - ");
    return rc ? rc : emit_operand(e, n->kids[1]);
  default: return DDBST_EINVAL;
  }
}

static int emit_cond(emitter *e, const ddbst__xnode *n);

/* A kid of AND or NOT, in parentheses when it binds more loosely. */
static int emit_kid(emitter *e, const ddbst__xnode *k, int looser) {
  if (!looser) return emit_cond(e, k);
  int rc = text(e, "(");
  rc = rc ? rc : emit_cond(e, k);
  return rc ? rc : text(e, ")");
}

static int emit_cond(emitter *e, const ddbst__xnode *n) {
  static const char *const ops[] = {" = ", " <> ", " < ",
                                    " <= ", " > ", " >= "};
  int rc = 0;
  switch (n->kind) {
  case DDBST__X_OR:
  case DDBST__X_AND:
    for (int i = 0; !rc && i < n->nkids; i++) {
      if (i) rc = text(e, n->kind == DDBST__X_OR ? " OR " : " AND ");
      const ddbst__xnode *k = n->kids[i];
      rc = rc ? rc
              : emit_kid(e, k, n->kind == DDBST__X_AND && k->kind == DDBST__X_OR);
    }
    return rc;
  case DDBST__X_NOT:
    rc = text(e, "NOT ");
    return rc ? rc
              : emit_kid(e, n->kids[0],
                         n->kids[0]->kind == DDBST__X_AND ||
                             n->kids[0]->kind == DDBST__X_OR);
  case DDBST__X_CMP:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, ops[n->op]);
    return rc ? rc : emit_operand(e, n->kids[1]);
  case DDBST__X_BETWEEN:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, " BETWEEN ");
    rc = rc ? rc : emit_operand(e, n->kids[1]);
    rc = rc ? rc : text(e, " AND ");
    return rc ? rc : emit_operand(e, n->kids[2]);
  case DDBST__X_IN:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, " IN (");
    for (int i = 1; !rc && i < n->nkids; i++) {
      if (i > 1) rc = text(e, ", ");
      rc = rc ? rc : emit_operand(e, n->kids[i]);
    }
    return rc ? rc : text(e, ")");
  case DDBST__X_EXISTS:
    return emit_call(e, "attribute_exists(", n->kids[0], NULL);
  case DDBST__X_NOT_EXISTS:
    return emit_call(e, "attribute_not_exists(", n->kids[0], NULL);
  case DDBST__X_TYPE:
    return emit_call(e, "attribute_type(", n->kids[0], n->kids[1]);
  case DDBST__X_BEGINS:
    return emit_call(e, "begins_with(", n->kids[0], n->kids[1]);
  case DDBST__X_CONTAINS:
    return emit_call(e, "contains(", n->kids[0], n->kids[1]);
  /* update actions: the clause's item ("#n1 = #n1 + :v2") */
  case DDBST__X_SET:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, " = ");
    return rc ? rc : emit_operand(e, n->kids[1]);
  case DDBST__X_REMOVE: return emit_operand(e, n->kids[0]);
  case DDBST__X_ADD:
  case DDBST__X_DELETE:
    rc = emit_operand(e, n->kids[0]);
    rc = rc ? rc : text(e, " ");
    return rc ? rc : emit_operand(e, n->kids[1]);
  default: return DDBST_EINVAL;
  }
}

int ddbst__xcompile_prog(ddbst__xres *r, const ddbst__xnode *n,
                         ddbst__xprog *out) {
  const ddbst_allocator *a = &r->x->m->alloc;
  /* lent memory (a buffer's, aligned as malloc's is) or its own */
  emitter *e = NULL;
  if (r->work) {
    ddbst_buf_reset(r->work);
    if (!ddbst__buf_reserve(r->work, sizeof *e)) e = (emitter *)r->work->data;
  } else {
    e = ddbst__malloc(a, sizeof *e);
  }
  if (!e) return DDBST_ENOMEM;
  e->r = r;
  e->n = 0;
  e->full = 0;
  int rc = emit_cond(e, n);
  if (!rc && e->full)
    rc = ddbst__xfail(r->p, n, DDBST_ERANGE,
                      "the expression is too long: it would write more than "
                      "%d names, values and pieces of text",
                      (int)(sizeof e->ops / sizeof e->ops[0]));
  if (!rc) {
    out->ops = ddbst__arena_alloc(&r->x->ar, (size_t)e->n * sizeof *out->ops);
    if (!out->ops) rc = DDBST_ENOMEM;
    else memcpy(out->ops, e->ops, (size_t)e->n * sizeof *out->ops);
    out->nops = e->n;
  }
  if (!r->work) ddbst__free(a, e);
  return rc;
}

/* ---- running it, per request ---- */

/* A parameter's value as the AttributeValue its use asks, rendered into
 * the item's pvals. */
static int write_param(ddbst_item *it, const ddbst__xnode *n, ddbst_buf *out,
                       ddbst_error *err) {
  const ddbst__param *pr = NULL;
  for (int i = 0; i < it->nparams && !pr; i++)
    if (it->params[i].name_len == n->len &&
        !memcmp(it->ptext.data + it->params[i].name_off, n->text, n->len))
      pr = &it->params[i];
  char path[DDBST_ERROR_PATH_MAX];
  if (!pr) {
    snprintf(path, sizeof path, "params.%s", n->text);
    return ddbst__fail(err, DDBST_EMISSING, path,
                       "the expression uses :%s: give its value "
                       "(ddbst_item_bind)",
                       n->text);
  }
  char why[200];
  uint32_t off = (uint32_t)it->pvals.len;
  int rc = ddbst__xliteral(it->m, n->use, n->uattr, DDBST__L_BOUND,
                           it->ptext.data + pr->off, pr->len, &it->pvals, why,
                           sizeof why);
  if (rc == DDBST_EVALUE) {
    snprintf(path, sizeof path, "params.%s", n->text);
    if (n->uattr)
      return ddbst__fail(err, rc, path, "%s.%s: %s", ddbst__entity_of(it)->name,
                         n->uattr->name, why);
    return ddbst__fail(err, rc, path, "%s", why);
  }
  if (rc) return rc;
  ddbst__vref r = {DDBST__REF_TEXT, -1, off, (uint32_t)(it->pvals.len - off),
                   NULL};
  return ddbst__expr_value(it, r, out);
}

int ddbst__xrun(ddbst_item *it, const ddbst__xprog *p, ddbst_buf *out,
                ddbst_error *err) {
  int rc = 0;
  for (int i = 0; !rc && i < p->nops; i++) {
    const ddbst__xop *op = &p->ops[i];
    switch (op->kind) {
    case DDBST__XOP_TEXT:
      rc = ddbst__buf_append(out, op->text, op->len);
      break;
    case DDBST__XOP_NAME:
      rc = ddbst__expr_entry(it, op->nm, out);
      break;
    case DDBST__XOP_VALUE: {
      ddbst__vref r = {DDBST__REF_RAW, -1, 0, op->len, op->text};
      rc = ddbst__expr_value(it, r, out);
      break;
    }
    case DDBST__XOP_PARAM:
      rc = write_param(it, op->param, out, err);
      break;
    }
  }
  return rc;
}

int ddbst__xwrite_cond(ddbst_item *it, const ddbst_expr *x, ddbst_buf *out,
                       ddbst_error *err) {
  return ddbst__xrun(it, &x->prog, out, err);
}
