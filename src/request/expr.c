/* Expression placeholders and typed AttributeValues (see expr.h). */
#include <stdio.h>
#include <string.h>

#include "request/expr.h"

/* The rare placeholder past 9: its decimal suffix by hand, no printf. */
static char *put_long_placeholder(char *o, int k) {
  char digits[12];
  int d = 0;
  do {
    digits[d++] = (char)('0' + k % 10);
    k /= 10;
  } while (k);
  while (d) *o++ = digits[--d];
  return o;
}

/* Writes "#n12" / ":v3" at `o`, which has room for 12 bytes; returns the
 * end. */
static inline char *put_placeholder(char *o, const char *prefix, int k) {
  o[0] = prefix[0];
  o[1] = prefix[1];
  if (k < 10) { /* nearly always: a body has a handful of placeholders */
    o[2] = (char)('0' + k);
    return o + 3;
  }
  return put_long_placeholder(o + 2, k);
}

static inline int append_placeholder(ddbst_buf *out, const char *prefix,
                                     int k) {
  if (ddbst__buf_reserve(out, 12)) return DDBST_ENOMEM;
  char *o = put_placeholder(out->data + out->len, prefix, k);
  *o = '\0';
  out->len = (size_t)(o - out->data);
  return 0;
}

static inline int add_entry(ddbst_item *it, const ddbst__name *nm) {
  /* interned: one address per name */
  for (int i = 0; i < it->nnames; i++)
    if (it->names[i] == nm) return i;
  if (it->nnames == it->cap_refs) return DDBST_ERANGE;
  it->names[it->nnames] = nm;
  return it->nnames++;
}

/* A name that is not one of the model's fields itself (its text is): a
 * slow path no builder takes today, apart so that its strcmp does not
 * give the common lookup a frame. */
DDBST__NOINLINE static int add_name_by_text(ddbst_item *it, const char *name) {
  const ddbst_model *m = it->m;
  for (int i = 0; i < m->nnames; i++)
    if (strcmp(m->name_list[i]->text, name) == 0)
      return add_entry(it, m->name_list[i]);
  return DDBST_EINVAL;
}

static inline int add_name(ddbst_item *it, const char *name) {
  const ddbst__name *nm = ddbst__name_of(it->m, name);
  return nm ? add_entry(it, nm) : add_name_by_text(it, name);
}

int ddbst__expr_add_name(ddbst_item *it, const char *name) {
  return add_name(it, name);
}

int ddbst__expr_add_entry(ddbst_item *it, const ddbst__name *nm) {
  return add_entry(it, nm);
}

static inline int add_value(ddbst_item *it, const ddbst__vref *ref) {
  if (it->nrefs == it->cap_refs) return DDBST_ERANGE;
  it->refs[it->nrefs] = *ref;
  return it->nrefs++;
}

int ddbst__expr_add_value(ddbst_item *it, ddbst__vref ref) {
  return add_value(it, &ref);
}

int ddbst__expr_name(ddbst_item *it, const char *name, ddbst_buf *out) {
  int k = add_name(it, name);
  return k < 0 ? k : append_placeholder(out, "#n", k);
}

int ddbst__expr_entry(ddbst_item *it, const ddbst__name *nm, ddbst_buf *out) {
  int k = ddbst__expr_add_entry(it, nm);
  return k < 0 ? k : append_placeholder(out, "#n", k);
}

int ddbst__expr_value(ddbst_item *it, ddbst__vref ref, ddbst_buf *out) {
  int k = add_value(it, &ref);
  return k < 0 ? k : append_placeholder(out, ":v", k);
}

int ddbst__expr_assign(ddbst_item *it, const char *lead, size_t lead_len,
                       const char *name, ddbst__vref ref, ddbst_buf *out) {
  int k = add_name(it, name);
  if (k < 0) return k;
  int v = add_value(it, &ref);
  if (v < 0) return v;
  /* the lead, two placeholders of at most 12 bytes, " = ", the NUL */
  if (ddbst__buf_reserve(out, 8 + 12 + 3 + 12 + 1)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  memcpy(o, lead, 8); /* one move: the lead is an array of 8 */
  o = put_placeholder(o + lead_len, "#n", k);
  memcpy(o, " = ", 3);
  o = put_placeholder(o + 3, ":v", v);
  *o = '\0';
  out->len = (size_t)(o - out->data);
  return 0;
}

int ddbst__expr_attr_value(ddbst_item *it, int attr, ddbst_buf *out) {
  ddbst__vref r = {DDBST__REF_ATTR, attr, 0, 0, NULL};
  return ddbst__expr_value(it, r, out);
}

int ddbst__expr_number(ddbst_item *it, const char *lit, ddbst_buf *out) {
  ddbst__vref r = {DDBST__REF_NUMBER, -1, 0, 0, lit};
  return ddbst__expr_value(it, r, out);
}

int ddbst__expr_string(ddbst_item *it, const char *lit, ddbst_buf *out) {
  ddbst__vref r = {DDBST__REF_STRING, -1, 0, 0, lit};
  return ddbst__expr_value(it, r, out);
}

int ddbst__expr_raw(ddbst_item *it, const char *av, ddbst_buf *out) {
  ddbst__vref r = {DDBST__REF_RAW, -1, 0, 0, av};
  return ddbst__expr_value(it, r, out);
}

static int write_ref(const ddbst_item *it, const ddbst__vref *r,
                     ddbst_buf *out) {
  const ddbst__entity *e = &it->m->entities[it->entity];
  size_t n;
  const char *v;
  switch (r->kind) {
  case DDBST__REF_ATTR: {
    const ddbst__val *val = &it->vals[r->attr];
    v = it->text.data + val->off;
    n = val->len;
    /* a string setting scanned clean needs no second look */
    if (ddbst__type_is_string(e->attrs[r->attr].type) &&
        val->scan & DDBST__SCAN_KNOWN && !(val->scan & DDBST__SCAN_ESCAPE)) {
      if (ddbst__buf_reserve(out, n + 8)) return DDBST_ENOMEM;
      out->len = (size_t)(ddbst__put_s(out->data + out->len, v, n) - out->data);
      return 0;
    }
    return ddbst__write_av(out, &e->attrs[r->attr], v, n);
  }
  case DDBST__REF_KEY:
  case DDBST__REF_PLAIN_KEY: /* ddbst__expr_emit writes these itself */
    return ddbst__write_s(out, it->keytext.data + r->off, r->len);
  case DDBST__REF_NUMBER: {
    int rc = ddbst__buf_append(out, "{\"N\":\"", 6);
    if (!rc) rc = ddbst__buf_puts(out, r->lit);
    if (!rc) rc = ddbst__buf_append(out, "\"}", 2);
    return rc;
  }
  case DDBST__REF_STRING:
    return ddbst__write_s(out, r->lit, strlen(r->lit));
  case DDBST__REF_RAW:
    return r->len ? ddbst__buf_append(out, r->lit, r->len)
                  : ddbst__buf_puts(out, r->lit);
  case DDBST__REF_TEXT:
    return ddbst__buf_append(out, it->pvals.data + r->off, r->len);
  case DDBST__REF_LIT:
    return ddbst__write_av(out, &it->m->entities[r->off].attrs[r->attr],
                           r->lit, r->len);
  case DDBST__REF_KEY_AV:
    return ddbst__write_av(out, &e->attrs[r->attr], it->keytext.data + r->off,
                           r->len);
  case DDBST__REF_PREV:
    v = it->text.data + it->prev[r->attr].off;
    n = it->prev[r->attr].len;
    return ddbst__write_av(out, &e->attrs[r->attr], v, n);
  }
  return DDBST_EINVAL;
}

/* A placeholder map's member starts: the separator ('{' for the first,
 * ',' after), then "#n0": or ":v0":, the digit replaced. */
static const char name_first[8] = "{\"#n0\":", name_next[8] = ",\"#n0\":",
                  value_first[8] = "{\":v0\":", value_next[8] = ",\":v0\":";

/* Writes member start `start` (one of the four above) for placeholder k at
 * `o` (room for 16 bytes). */
static inline char *put_member(char *o, const char start[8], int k) {
  if (k < 10) { /* nearly always: one move and the digit */
    memcpy(o, start, 8);
    o[4] = (char)('0' + k);
    return o + 7;
  }
  *o++ = start[0];
  *o++ = '"';
  o = put_placeholder(o, start + 2, k);
  *o++ = '"';
  *o++ = ':';
  return o;
}

int ddbst__expr_emit_maps(const ddbst_item *it, ddbst_buf *out) {
  int rc = 0;
  if (it->nnames) rc = ddbst__buf_puts(out, ",\"ExpressionAttributeNames\":");
  for (int i = 0; !rc && i < it->nnames; i++) {
    /* each name's JSON text was made at load: one reservation, one copy */
    const ddbst__jtext *j = &it->names[i]->json;
    if (ddbst__buf_reserve(out, 16 + j->n)) return DDBST_ENOMEM;
    char *o = put_member(out->data + out->len, i ? name_next : name_first, i);
    ddbst__copy_padded(o, j->p, j->n); /* the arena's: padded */
    o += j->n;
    *o = '\0';
    out->len = (size_t)(o - out->data);
  }
  if (!rc && it->nnames) rc = ddbst__buf_putc(out, '}');
  if (!rc && it->nrefs)
    rc = ddbst__buf_puts(out, ",\"ExpressionAttributeValues\":");
  for (int i = 0; !rc && i < it->nrefs; i++) {
    const ddbst__vref *r = &it->refs[i];
    int plain = r->kind == DDBST__REF_PLAIN_KEY;
    if (ddbst__buf_reserve(out, 16 + (plain ? (size_t)r->len + 8 : 0)))
      return DDBST_ENOMEM;
    char *o = put_member(out->data + out->len, i ? value_next : value_first, i);
    /* a plain key, the most common value of all, in the same reservation */
    if (plain) o = ddbst__put_s(o, it->keytext.data + r->off, r->len);
    *o = '\0';
    out->len = (size_t)(o - out->data);
    if (!plain) rc = write_ref(it, r, out);
  }
  if (!rc && it->nrefs) rc = ddbst__buf_putc(out, '}');
  return rc;
}
