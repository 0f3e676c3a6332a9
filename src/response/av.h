/* Reading AttributeValues ({"S": "text"}, {"L": [...]}, ...) inside the
 * answer parser: a record's type and value, and documents (L, M, sets)
 * re-written as AttributeValue JSON and as plain JSON. Static inline, and
 * included by parse.c only: the parser calls these for nearly every token. */
#ifndef DDBST_RESPONSE_AV_H
#define DDBST_RESPONSE_AV_H

#include "model/facet.h"
#include "response/parser.h"

/* ---- AttributeValues ---- */

/* The AttributeValue type named k[0..n), or -1. */
static inline int av_type_of(const char *k, size_t n) {
  if (n == 1)
    return k[0] == 'S'   ? DDBST__AV_S
           : k[0] == 'N' ? DDBST__AV_N
           : k[0] == 'B' ? DDBST__AV_B
           : k[0] == 'L' ? DDBST__AV_L
           : k[0] == 'M' ? DDBST__AV_M
                         : -1;
  if (n == 2 && k[1] == 'S')
    return k[0] == 'S'   ? DDBST__AV_SS
           : k[0] == 'N' ? DDBST__AV_NS
           : k[0] == 'B' ? DDBST__AV_BS
                         : -1;
  if (n == 4 && memcmp(k, "BOOL", 4) == 0) return DDBST__AV_BOOL;
  if (n == 4 && memcmp(k, "NULL", 4) == 0) return DDBST__AV_NULL;
  return -1;
}

/* The type name of an AttributeValue: {"S": ...} → state 1. */
PAGE_HOT int av_key(ddbst__parser *p, const char *k, size_t n) {
  ddbst__frame *f = top(p);
  if (f->state != 0)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth - 1, NULL,
                         "an AttributeValue holds exactly one type");
  int type = av_type_of(k, n);
  if (type < 0)
    return ddbst__refuse(
        p, DDBST_EVALUE, p->depth - 1, NULL,
        "'%.*s' is not an AttributeValue type (S, N, B, BOOL, NULL, "
        "L, M, SS, NS, BS)",
        (int)(n > 32 ? 32 : n), k);
  f->key_src = K_LIT;
  f->key_lit = ddbst__av_tag(type);
  f->avtype = (uint8_t)type;
  f->state = 1;
  p->pending = X_AV_VALUE;
  if (f->mode == M_TOP) {
    ddbst__pattr *r = &p->pg->attrs[f->target];
    r->type = (uint8_t)type;
    r->val = (uint32_t)p->pg->text.len;
    r->plain = (uint32_t)p->pg->plain.len;
    if (!ddbst__av_is_container(type)) return 1;
  }
  /* {"TAG": */
  return put_text(p, "{\"", 2) && put_text(p, k, n) && put_text(p, "\":", 2);
}

/* A scalar AttributeValue's value, checked and written. */
PAGE_HOT int av_scalar(ddbst__parser *p, int vt, const char *s, size_t n,
                            int b) {
  ddbst__frame *f = top(p);
  int t = f->avtype;
  const char *bad = NULL;
  if (t == DDBST__AV_S || t == DDBST__AV_N || t == DDBST__AV_B) {
    if (vt != V_STRING)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "%s",
                           t == DDBST__AV_N ? "expected the number as a string"
                                            : "expected a string");
    if (!no_nul(p, s, n, "a string")) return 0;
    if (t == DDBST__AV_N) bad = ddbst__number_check(s, n);
    if (t == DDBST__AV_B) bad = ddbst__base64_check(s, n);
    if (bad) return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "%s", bad);
  } else if (t == DDBST__AV_BOOL) {
    if (vt != V_BOOL)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "expected true or false");
    s = b ? "true" : "false";
    n = b ? 4 : 5;
  } else { /* NULL */
    if (vt != V_BOOL || !b)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "a NULL AttributeValue is {\"NULL\": true}");
           s = "";
           n = 0;
  }
  f->state = 2;
  if (f->mode == M_TOP) {
    ddbst__pattr *r = &p->pg->attrs[f->target];
    uint32_t off;
    if (!keep(p, s, n, &off)) return 0;
    r->val = off;
    r->val_len = (uint32_t)n;
    return 1;
  }
  ddbst_buf *plain = f->mode == M_DOC ? &p->pg->plain : NULL;
  int rc = 0;
  switch (t) {
  case DDBST__AV_S:
    rc = ddbst__json_string(&p->pg->text, s, n);
    if (!rc && plain) rc = ddbst__json_string(plain, s, n);
    break;
  case DDBST__AV_N:
  case DDBST__AV_B: /* number and base64 text need no escaping */
    rc = ddbst__buf_putc(&p->pg->text, '"');
    if (!rc) rc = ddbst__buf_append(&p->pg->text, s, n);
    if (!rc) rc = ddbst__buf_putc(&p->pg->text, '"');
    if (!rc && plain && t == DDBST__AV_N) rc = ddbst__json_number(plain, s, n);
    if (!rc && plain && t == DDBST__AV_B) rc = ddbst__json_string(plain, s, n);
    break;
  case DDBST__AV_BOOL:
    rc = ddbst__buf_append(&p->pg->text, s, n);
    if (!rc && plain) rc = ddbst__buf_append(plain, s, n);
    break;
  default:
    rc = ddbst__buf_puts(&p->pg->text, "true");
    if (!rc && plain) rc = ddbst__buf_puts(plain, "null");
  }
  return rc ? nomem(p) : 1;
}

/* L, M or a set begins inside the AttributeValue on top. */
static inline int av_container(ddbst__parser *p, int is_map) {
  ddbst__frame *f = top(p);
  int t = f->avtype;
  int want_map = t == DDBST__AV_M;
  if (is_map != want_map)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "expected %s",
                         want_map ? "an object" : "a list");
  int mode = f->mode == M_RAW ? M_RAW : M_DOC;
  int depth = f->doc_depth;
  int kind = t == DDBST__AV_L ? F_LIST : t == DDBST__AV_M ? F_MAP : F_SET;
  if (kind != F_SET && ++depth > MAX_DOC_DEPTH)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "nested deeper than DynamoDB's 32 levels");
  f->state = 2;
  const char *open = is_map ? "{" : "[";
  if (!put_text(p, open, 1)) return 0;
  if (mode == M_DOC && !put_plain(p, open, 1)) return 0;
  if (!push(p, kind, mode, -1)) return 0;
  top(p)->avtype = (uint8_t)t;
  top(p)->doc_depth = (uint16_t)depth;
  return 1;
}

/* A separator before an element of a list, set or map on top. */
static inline int separate(ddbst__parser *p) {
  ddbst__frame *f = top(p);
  if (!f->first) {
    if (!put_text(p, ",", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, ",", 1)) return 0;
  }
  f->first = 0;
  return 1;
}

/* A member name of M or of a re-written map. */
static inline int doc_key(ddbst__parser *p, const char *k, size_t n) {
  ddbst__frame *f = top(p);
  f->key_src = K_NONE;
  if (!no_nul(p, k, n, "a name")) return 0;
  if (!separate(p)) return 0;
  f->key_src = K_ESC;
  f->key_off = (uint32_t)p->pg->text.len;
  if (!put_text_string(p, k, n)) return 0;
  f->key_len = (uint32_t)(p->pg->text.len - f->key_off);
  if (!put_text(p, ":", 1)) return 0;
  if (f->mode == M_DOC && (ddbst__json_string(&p->pg->plain, k, n) ||
                           ddbst__buf_putc(&p->pg->plain, ':')))
    return nomem(p);
  p->pending = X_AV;
  return 1;
}

/* A set's element. */
static inline int set_elem(ddbst__parser *p, int vt, const char *s, size_t n) {
  ddbst__frame *f = top(p);
  int t = f->avtype;
  if (vt != V_STRING)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "%s",
                         t == DDBST__AV_NS
                             ? "a number set holds numbers as strings"
                             : "a set holds strings");
  if (!no_nul(p, s, n, "a string")) return 0;
  const char *bad = t == DDBST__AV_NS   ? ddbst__number_check(s, n)
                    : t == DDBST__AV_BS ? ddbst__base64_check(s, n)
                                        : NULL;
  if (bad) return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "%s", bad);
  if (!separate(p)) return 0;
  if (!put_text_string(p, s, n)) return 0;
  if (f->mode != M_DOC) return 1;
  int rc = t == DDBST__AV_NS ? ddbst__json_number(&p->pg->plain, s, n)
                             : ddbst__json_string(&p->pg->plain, s, n);
  return rc ? nomem(p) : 1;
}

#endif
