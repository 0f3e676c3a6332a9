/* The answer parser's shared core (parser.h): the path of the value being
 * read, refusals, and the members of objects of a known shape. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "response/parser.h"

static void path_add(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    DDBST__PRINTF(4, 5);
static void path_add(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
  if (*n >= cap - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
  va_end(ap);
  if (w > 0) *n += (size_t)w < cap - *n ? (size_t)w : cap - *n - 1;
}

/* The path to the value being read inside frames [0, upto). */
static void build_path(const ddbst__parser *p, int upto, char *buf,
                       size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  const char *text = p->pg->text.data;
  for (int i = 0; i < upto; i++) {
    const ddbst__frame *f = &p->st[i];
    if (is_array(f->kind)) {
      if (f->index) path_add(buf, cap, &n, "[%u]", f->index - 1);
      continue;
    }
    const char *dot = n ? "." : "";
    if (f->key_src == K_LIT)
      path_add(buf, cap, &n, "%s%s", dot, f->key_lit);
    else if (f->key_src == K_RAW)
      path_add(buf, cap, &n, "%s%.*s", dot,
               (int)(f->key_len > 80 ? 80 : f->key_len), text + f->key_off);
    else if (f->key_src == K_ESC && f->key_len >= 2)
      path_add(buf, cap, &n, "%s%.*s", dot,
               (int)(f->key_len - 2 > 80 ? 80 : f->key_len - 2),
               text + f->key_off + 1);
  }
}

int ddbst__refuse(ddbst__parser *p, int code, int upto, const char *member,
                  const char *fmt, ...) {
  if (p->code) return 0;
  p->code = code;
  build_path(p, upto, p->path, sizeof p->path);
  if (member) {
    size_t n = strlen(p->path);
    path_add(p->path, sizeof p->path, &n, "%s%s", n ? "." : "", member);
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->msg, sizeof p->msg, fmt, ap);
  va_end(ap);
  return 0;
}

int ddbst__member(ddbst__parser *p, int x, const char *name) {
  ddbst__frame *f = top(p);
  f->key_src = K_LIT;
  f->key_lit = name;
  uint64_t bit = 1ull << x;
  /* "message" and "Message" are one member, by two spellings */
  if ((f->seen & bit) && x != X_EMSG)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "the member appears twice");
  f->seen |= bit;
  p->pending = x;
  return 1;
}

int ddbst__shape_key(ddbst__parser *p, const ddbst__shape_member *table,
                     size_t count, const char *k, size_t n,
                     const ddbst__shape_member **found) {
  ddbst__frame *f = top(p);
  for (size_t i = 0; i < count; i++)
    if (table[i].frame == f->kind && key_is(k, n, table[i].name)) {
      *found = &table[i];
      return ddbst__member(p, table[i].x, table[i].name);
    }
  *found = NULL;
  f->key_src = K_NONE;
  p->pending = X_SKIP;
  return 1;
}
