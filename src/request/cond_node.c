/* The nodes both parsers make and everything after them reads, and how an
 * error at one is told: at the character of the text form, at the JSON
 * path of the JSON form. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "request/cond.h"

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
                    const char *fmt, va_list ap) DDBST__PRINTF(4, 0);
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

