/* Values in conditions and update actions, typed by where they stand: the
 * attribute they are compared with or written to decides their
 * AttributeValue (an enum value checked, a timestamp made canonical, a
 * number written as N so DynamoDB compares it numerically). The one
 * function for literals at compile time and parameters at build time. */
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "model/json_value.h"
#include "model/value_canon.h"
#include "request/cond.h"

ddbst__vclass ddbst__xclass_of_type(ddbst__type t) {
  switch (t) {
  case DDBST__T_STRING:
  case DDBST__T_TIMESTAMP:
  case DDBST__T_ULID:
  case DDBST__T_ENUM: return DDBST__V_S;
  case DDBST__T_NUMBER:
  case DDBST__T_INTEGER:
  case DDBST__T_TTL: return DDBST__V_N;
  case DDBST__T_BOOLEAN: return DDBST__V_BOOL;
  case DDBST__T_BINARY: return DDBST__V_B;
  case DDBST__T_LIST: return DDBST__V_L;
  case DDBST__T_MAP: return DDBST__V_M;
  case DDBST__T_STRING_SET: return DDBST__V_SS;
  case DDBST__T_NUMBER_SET: return DDBST__V_NS;
  }
  return DDBST__V_DOC;
}

ddbst__vclass ddbst__xclass(const ddbst__xres *r, const ddbst__xnode *path) {
  if (path->nsteps) return DDBST__V_DOC;
  return ddbst__xclass_of_type(r->e->attrs[path->attr].type);
}

const char *ddbst__xclass_name(ddbst__vclass c) {
  static const char *const names[] = {"a string",  "a number", "binary",
                                      "a boolean", "a list",   "a map",
                                      "a string set", "a number set",
                                      "a value inside a document"};
  return names[c];
}

static int refuse(char *why, size_t cap, const char *fmt, ...)
    DDBST__PRINTF(3, 4);
static int refuse(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
  return DDBST_EVALUE;
}

/* {"N":"..."} of number text already checked, in one reservation. */
static int put_checked_number(ddbst_buf *out, const char *s, size_t n) {
  if (ddbst__buf_reserve(out, n + 8)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  memcpy(o, "{\"N\":\"", 6);
  memcpy(o + 6, s, n);
  memcpy(o + 6 + n, "\"}", 3);
  out->len += n + 8;
  return 0;
}

/* {"N":"..."} of number text DynamoDB takes. */
static int put_number(ddbst_buf *out, const char *s, size_t n, char *why,
                      size_t cap) {
  const char *bad = ddbst__number_check(s, n);
  if (bad) return refuse(why, cap, "%s", bad);
  return put_checked_number(out, s, n);
}

/* UTF-8 checks of text a parameter was bound with: ddbst_item_bind made
 * them already. */
static const char *text_check(ddbst__lform form, const char *s, size_t n) {
  return form == DDBST__L_BOUND ? NULL : ddbst__utf8_check(s, n);
}

/* Values this long are wrapped on the stack: the converter keeps its own
 * records there up to 2 KiB too, so a literal of that size (a condition's
 * list or map, a parameter's) converts without allocating. */
enum { WRAP_ON_STACK = 2048 };

/* One JSON value (the text of an array, an object, or a parameter's bound
 * JSON) as the AttributeValue DynamoDB stores it: converted as the one
 * element of a list, which is then unwrapped. */
static int put_json(ddbst_buf *out, const char *s, size_t n, char *why,
                    size_t cap) {
  size_t start = out->len;
  char local[WRAP_ON_STACK];
  char *wrap = n + 2 <= sizeof local ? local : ddbst__malloc(&out->alloc, n + 2);
  if (!wrap) return DDBST_ENOMEM;
  wrap[0] = '[';
  memcpy(wrap + 1, s, n);
  wrap[n + 1] = ']';
  int rc = ddbst__json_to_attribute_value(wrap, n + 2, DDBST__JV_LIST, out,
                                          why, cap);
  if (wrap != local) ddbst__free(&out->alloc, wrap);
  if (rc) return rc;
  /* {"L":[X]} with exactly one element X */
  const char *av = out->data + start;
  size_t len = out->len - start;
  int depth = 0, elems = 0, in_string = 0;
  for (size_t i = 6; i + 2 < len; i++) {
    char c = av[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = 0;
      continue;
    }
    if (c == '"') in_string = 1;
    else if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') depth--;
    else if (c == ',' && depth == 0) elems++;
  }
  if (len <= 8 || elems) {
    ddbst__buf_truncate(out, start);
    return refuse(why, cap, "expected one JSON value");
  }
  memmove(out->data + start, av + 6, len - 8);
  ddbst__buf_truncate(out, start + len - 8);
  return 0;
}

static int is_string_form(ddbst__lform f) {
  return f == DDBST__L_STRING || f == DDBST__L_BOUND;
}

/* A value of attribute `a`, read as ddbst_item_set reads it: canonical
 * text first, then its AttributeValue in its place. */
static int put_typed(ddbst_buf *out, const ddbst__attr *a, ddbst__lform form,
                     const char *s, size_t n, char *why, size_t cap) {
  const char *tn = ddbst__type_name(a->type);
  ddbst__vclass cl = ddbst__xclass_of_type(a->type);
  switch (form) {
  case DDBST__L_NUMBER:
    if (cl != DDBST__V_N)
      return refuse(why, cap,
                    "a %s attribute's value is given as a string, not a "
                    "number",
                    tn);
    break;
  case DDBST__L_BOOL:
    if (cl != DDBST__V_BOOL)
      return refuse(why, cap,
                    "true and false are a boolean's values; this attribute is "
                    "a %s",
                    tn);
    break;
  case DDBST__L_NULL:
    return refuse(why, cap,
                  "null is no value of this %s attribute: test "
                  "attribute_not_exists instead",
                  tn);
  case DDBST__L_ARRAY:
    if (cl != DDBST__V_L && cl != DDBST__V_SS && cl != DDBST__V_NS)
      return refuse(why, cap, "a list for a %s attribute", tn);
    break;
  case DDBST__L_OBJECT:
    if (cl != DDBST__V_M)
      return refuse(why, cap, "a map for a %s attribute", tn);
    break;
  default: break;
  }
  size_t start = out->len;
  int rc = ddbst__value_canon(a, s, n, out, why, cap);
  if (rc == DDBST_EVALUE) {
    char reason[200];
    snprintf(reason, sizeof reason, "%s", why);
    if (a->type == DDBST__T_TIMESTAMP && ddbst__ts_is_prefix(s, n, a->precision))
      return refuse(why, cap,
                    "'%.*s' is the start of a timestamp, not one: compare "
                    "with a complete one (2026-03-01T00:00:00Z), or use "
                    "begins_with",
                    (int)(n > 40 ? 40 : n), s);
    return refuse(why, cap, "%s", reason);
  }
  if (rc) return rc;
  size_t clen = out->len - start;
  /* the AttributeValue is written after the text, then moved down over
   * it: room first, so the text does not move while it is read */
  if (ddbst__buf_reserve(out, 6 * clen + 16)) {
    ddbst__buf_truncate(out, start);
    return DDBST_ENOMEM;
  }
  rc = ddbst__write_av(out, a, out->data + start, clen);
  if (rc) {
    ddbst__buf_truncate(out, start);
    return rc;
  }
  size_t avlen = out->len - start - clen;
  memmove(out->data + start, out->data + start + clen, avlen);
  ddbst__buf_truncate(out, start + avlen);
  return 0;
}

/* Whether `part` is in any of the enum's values (at its start, when
 * `prefix`). */
static int enum_has(const ddbst__attr *a, const char *s, size_t n, int prefix) {
  for (size_t i = 0; i < a->nvalues; i++) {
    const char *v = a->values[i];
    size_t l = a->value_lens[i];
    if (n > l) continue;
    if (prefix) {
      if (!memcmp(v, s, n)) return 1;
      continue;
    }
    for (size_t j = 0; j + n <= l; j++)
      if (!memcmp(v + j, s, n)) return 1;
  }
  return 0;
}

/* A string for begins_with or contains on attribute `a` (NULL: inside a
 * document): the text as it is, but for what the type says it can never
 * hold; a ULID prefix is read in either case, as ULIDs are. */
static int put_part(ddbst_buf *out, ddbst__use use, const ddbst__attr *a,
                    ddbst__lform form, const char *s, size_t n, char *why,
                    size_t cap) {
  if (!is_string_form(form))
    return refuse(why, cap, "%s takes a string",
                  use == DDBST__U_PREFIX ? "begins_with" : "contains");
  const char *bad = text_check(form, s, n);
  if (bad) return refuse(why, cap, "%s", bad);
  char ulid[DDBST__ULID_LEN];
  if (a && a->type == DDBST__T_ENUM && !enum_has(a, s, n, use == DDBST__U_PREFIX))
    return refuse(why, cap,
                  "no value of the enum %s '%.*s', so this can never hold",
                  use == DDBST__U_PREFIX ? "starts with" : "contains",
                  (int)(n > 40 ? 40 : n), s);
  if (a && a->type == DDBST__T_TIMESTAMP && use == DDBST__U_PREFIX &&
      !ddbst__ts_is_prefix(s, n, a->precision) &&
      !ddbst__ts_is_canonical(s, n, a->precision))
    return refuse(why, cap,
                  "'%.*s' is not the start of a canonical UTC timestamp "
                  "(2026, 2026-03, 2026-03-14T09, ...)",
                  (int)(n > 40 ? 40 : n), s);
  if (a && a->type == DDBST__T_ULID && use == DDBST__U_PREFIX) {
    char full[DDBST__ULID_LEN];
    if (n > DDBST__ULID_LEN)
      return refuse(why, cap, "longer than a ULID");
    memset(full, '0', sizeof full);
    memcpy(full, s, n);
    if ((bad = ddbst__ulid_canon(full, sizeof full, ulid)))
      return refuse(why, cap, "%s", bad);
    s = ulid;
  }
  return ddbst__write_s(out, s, n);
}

int ddbst__xliteral(const ddbst_model *m, ddbst__use use, const ddbst__attr *a,
                    ddbst__lform form, const char *s, size_t n, ddbst_buf *out,
                    char *why, size_t cap) {
  (void)m;
  static const char *const types[] = {"S", "SS", "N",    "NS", "B",
                                      "BS", "BOOL", "NULL", "L",  "M"};
  const char *bad;
  switch (use) {
  case DDBST__U_ATTR:
    return put_typed(out, a, form, s, n, why, cap);
  case DDBST__U_DOC:
    switch (form) {
    case DDBST__L_STRING:
      if ((bad = ddbst__utf8_check(s, n))) return refuse(why, cap, "%s", bad);
      return ddbst__write_s(out, s, n);
    case DDBST__L_NUMBER: return put_number(out, s, n, why, cap);
    case DDBST__L_BOOL:
      return ddbst__buf_puts(out, s[0] == 't' ? "{\"BOOL\":true}"
                                              : "{\"BOOL\":false}");
    case DDBST__L_NULL: return ddbst__buf_puts(out, "{\"NULL\":true}");
    case DDBST__L_BOUND: {
      /* a parameter's text inside a document: JSON when it is JSON (3,
       * true, [1], "3"), else the string it is. Scalars without the
       * parser: a request binds them on the hot path. */
      if (n && !ddbst__number_check(s, n)) return put_checked_number(out, s, n);
      if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)))
        return ddbst__buf_puts(out, s[0] == 't' ? "{\"BOOL\":true}"
                                                : "{\"BOOL\":false}");
      if (n == 4 && !memcmp(s, "null", 4))
        return ddbst__buf_puts(out, "{\"NULL\":true}");
      if (n && s[0] != '[' && s[0] != '{' && s[0] != '"')
        return ddbst__write_s(out, s, n);
      int rc = put_json(out, s, n, why, cap);
      if (rc != DDBST_EVALUE) return rc;
      return ddbst__write_s(out, s, n);
    }
    default: return put_json(out, s, n, why, cap);
    }
  case DDBST__U_NUMBER:
    if (form != DDBST__L_NUMBER && !is_string_form(form))
      return refuse(why, cap, "expected a number");
    return put_number(out, s, n, why, cap);
  case DDBST__U_PREFIX:
  case DDBST__U_PART:
    return put_part(out, use, a, form, s, n, why, cap);
  case DDBST__U_ELEMENT:
    if (a->type == DDBST__T_NUMBER_SET) {
      if (form != DDBST__L_NUMBER && !is_string_form(form))
        return refuse(why, cap, "a number set's element is a number");
      return put_number(out, s, n, why, cap);
    }
    if (!is_string_form(form))
      return refuse(why, cap, "a string set's element is a string");
    if ((bad = text_check(form, s, n))) return refuse(why, cap, "%s", bad);
    return ddbst__write_s(out, s, n);
  case DDBST__U_TYPE:
    if (is_string_form(form))
      for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i]) == n && !memcmp(types[i], s, n))
          return ddbst__write_s(out, s, n);
    return refuse(why, cap,
                  "attribute_type takes one of S SS N NS B BS BOOL NULL L M");
  case DDBST__U_SET:
  case DDBST__U_LIST: {
    if (form != DDBST__L_ARRAY && form != DDBST__L_BOUND)
      return refuse(why, cap, use == DDBST__U_SET
                                  ? "expected a set, as an array of strings "
                                    "or of numbers"
                                  : "expected a list, as an array");
    if (use == DDBST__U_LIST)
      return ddbst__json_to_attribute_value(s, n, DDBST__JV_LIST, out, why,
                                            cap);
    int rc = ddbst__json_to_attribute_value(s, n, DDBST__JV_STRING_SET, out,
                                            why, cap);
    if (rc == DDBST_EVALUE)
      rc = ddbst__json_to_attribute_value(s, n, DDBST__JV_NUMBER_SET, out, why,
                                          cap);
    if (rc == DDBST_EVALUE)
      return refuse(why, cap,
                    "expected a set: a non-empty array of strings or of "
                    "numbers");
    return rc;
  }
  }
  return refuse(why, cap, "no such use of a value");
}

int ddbst__xtype_value(ddbst__xres *r, ddbst__xnode *v, ddbst__use use,
                       const ddbst__attr *a) {
  v->use = use;
  v->uattr = a;
  if (v->kind == DDBST__X_PARAM) return 0;
  if (v->kind != DDBST__X_VALUE)
    return ddbst__xfail(r->p, v, DDBST_EINVAL, "expected a value here");
  char why[200];
  ddbst_buf_reset(&r->tmp);
  int rc = ddbst__xliteral(r->x->m, use, a, v->form, v->text, v->len, &r->tmp,
                           why, sizeof why);
  if (rc == DDBST_EVALUE) {
    if (a)
      return ddbst__xfail(r->p, v, rc, "%s.%s: %s", r->e->name, a->name, why);
    return ddbst__xfail(r->p, v, rc, "%s", why);
  }
  if (rc) return rc;
  v->av = ddbst__arena_strndup(&r->x->ar, r->tmp.data, r->tmp.len);
  v->av_len = (uint32_t)r->tmp.len;
  return v->av ? 0 : DDBST_ENOMEM;
}
