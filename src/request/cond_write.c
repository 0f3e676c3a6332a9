/* Writing a compiled condition, filter or update value into a request
 * body: names and values through the item's placeholders, numbered in the
 * order written, parameters typed as the expression says. The hot path of
 * a conditional write: nothing is looked up, and a warm item allocates
 * nothing. */
#include <stdio.h>
#include <string.h>

#include "request/cond.h"

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

static int write_path(ddbst_item *it, const ddbst__xnode *n, ddbst_buf *out) {
  int rc = ddbst__expr_name(it, ddbst__entity_of(it)->attrs[n->attr].name, out);
  for (int i = 0; !rc && i < n->nsteps; i++) {
    const ddbst__xstep *st = &n->steps[i];
    if (st->nm) {
      rc = ddbst__buf_putc(out, '.');
      rc = rc ? rc : ddbst__expr_entry(it, st->nm, out);
      continue;
    }
    char tmp[16];
    int len = snprintf(tmp, sizeof tmp, "[%u]", (unsigned)st->index);
    rc = ddbst__buf_append(out, tmp, (size_t)len);
  }
  return rc;
}

/* "f(a, b)" of two operands. */
static int write_call(ddbst_item *it, const char *f, const ddbst__xnode *a,
                      const ddbst__xnode *b, ddbst_buf *out, ddbst_error *err) {
  int rc = ddbst__buf_puts(out, f);
  rc = rc ? rc : ddbst__xwrite_operand(it, a, out, err);
  if (!rc && b) {
    rc = ddbst__buf_puts(out, ", ");
    rc = rc ? rc : ddbst__xwrite_operand(it, b, out, err);
  }
  return rc ? rc : ddbst__buf_putc(out, ')');
}

int ddbst__xwrite_operand(ddbst_item *it, const ddbst__xnode *n,
                          ddbst_buf *out, ddbst_error *err) {
  int rc;
  switch (n->kind) {
  case DDBST__X_PATH: return write_path(it, n, out);
  case DDBST__X_VALUE: {
    ddbst__vref r = {DDBST__REF_RAW, -1, 0, n->av_len, n->av};
    return ddbst__expr_value(it, r, out);
  }
  case DDBST__X_PARAM: return write_param(it, n, out, err);
  case DDBST__X_SIZE: return write_call(it, "size(", n->kids[0], NULL, out, err);
  case DDBST__X_IF_NOT_EXISTS:
    return write_call(it, "if_not_exists(", n->kids[0], n->kids[1], out, err);
  case DDBST__X_LIST_APPEND:
    return write_call(it, "list_append(", n->kids[0], n->kids[1], out, err);
  case DDBST__X_PLUS:
  case DDBST__X_MINUS:
    rc = ddbst__xwrite_operand(it, n->kids[0], out, err);
    rc = rc ? rc
            : ddbst__buf_puts(out, n->kind == DDBST__X_PLUS ? " + " : " - ");
    return rc ? rc : ddbst__xwrite_operand(it, n->kids[1], out, err);
  default: return DDBST_EINVAL;
  }
}

static int write_cond(ddbst_item *it, const ddbst__xnode *n, ddbst_buf *out,
                      ddbst_error *err);

/* A kid of AND or NOT, in parentheses when it binds more loosely. */
static int write_kid(ddbst_item *it, const ddbst__xnode *k, int looser,
                     ddbst_buf *out, ddbst_error *err) {
  if (!looser) return write_cond(it, k, out, err);
  int rc = ddbst__buf_putc(out, '(');
  rc = rc ? rc : write_cond(it, k, out, err);
  return rc ? rc : ddbst__buf_putc(out, ')');
}

static int write_cond(ddbst_item *it, const ddbst__xnode *n, ddbst_buf *out,
                      ddbst_error *err) {
  static const char *const ops[] = {" = ", " <> ", " < ",
                                    " <= ", " > ", " >= "};
  int rc = 0;
  switch (n->kind) {
  case DDBST__X_OR:
  case DDBST__X_AND:
    for (int i = 0; !rc && i < n->nkids; i++) {
      if (i) rc = ddbst__buf_puts(out, n->kind == DDBST__X_OR ? " OR " : " AND ");
      const ddbst__xnode *k = n->kids[i];
      rc = rc ? rc
              : write_kid(it, k, n->kind == DDBST__X_AND && k->kind == DDBST__X_OR,
                          out, err);
    }
    return rc;
  case DDBST__X_NOT:
    rc = ddbst__buf_puts(out, "NOT ");
    return rc ? rc
              : write_kid(it, n->kids[0],
                          n->kids[0]->kind == DDBST__X_AND ||
                              n->kids[0]->kind == DDBST__X_OR,
                          out, err);
  case DDBST__X_CMP:
    rc = ddbst__xwrite_operand(it, n->kids[0], out, err);
    rc = rc ? rc : ddbst__buf_puts(out, ops[n->op]);
    return rc ? rc : ddbst__xwrite_operand(it, n->kids[1], out, err);
  case DDBST__X_BETWEEN:
    rc = ddbst__xwrite_operand(it, n->kids[0], out, err);
    rc = rc ? rc : ddbst__buf_puts(out, " BETWEEN ");
    rc = rc ? rc : ddbst__xwrite_operand(it, n->kids[1], out, err);
    rc = rc ? rc : ddbst__buf_puts(out, " AND ");
    return rc ? rc : ddbst__xwrite_operand(it, n->kids[2], out, err);
  case DDBST__X_IN:
    rc = ddbst__xwrite_operand(it, n->kids[0], out, err);
    rc = rc ? rc : ddbst__buf_puts(out, " IN (");
    for (int i = 1; !rc && i < n->nkids; i++) {
      if (i > 1) rc = ddbst__buf_puts(out, ", ");
      rc = rc ? rc : ddbst__xwrite_operand(it, n->kids[i], out, err);
    }
    return rc ? rc : ddbst__buf_putc(out, ')');
  case DDBST__X_EXISTS:
    return write_call(it, "attribute_exists(", n->kids[0], NULL, out, err);
  case DDBST__X_NOT_EXISTS:
    return write_call(it, "attribute_not_exists(", n->kids[0], NULL, out, err);
  case DDBST__X_TYPE:
    return write_call(it, "attribute_type(", n->kids[0], n->kids[1], out, err);
  case DDBST__X_BEGINS:
    return write_call(it, "begins_with(", n->kids[0], n->kids[1], out, err);
  case DDBST__X_CONTAINS:
    return write_call(it, "contains(", n->kids[0], n->kids[1], out, err);
  default: return DDBST_EINVAL;
  }
}

int ddbst__xwrite_cond(ddbst_item *it, const ddbst_expr *x, ddbst_buf *out,
                       ddbst_error *err) {
  return write_cond(it, x->root, out, err);
}
