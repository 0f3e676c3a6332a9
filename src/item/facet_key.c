/* The key form of one facet and its reverse (see facet_key.h): integers at
 * their width, ASCII lower-casing, %-escaping or ordered escaping, the
 * delimiter refused, and text a range would misplace refused. */
#include "item/facet_key.h"

#include <stdio.h>
#include <string.h>

#include "model/facet.h"

static const char HEX[] = "0123456789ABCDEF";

/* '%' and every byte of the delimiter: what %-escaping rewrites, so that an
 * escaped facet never holds the delimiter and its value comes back. */
static int escaped_byte(const ddbst_model *m, unsigned char c) {
  return c == '%' || memchr(m->delim, c, m->delim_len) != NULL;
}

/* Ordered escaping ("escape": "ordered"): E is the byte just above the
 * delimiter's first (d0), and every byte from 0x01 to d0, and E itself,
 * becomes E and its two upper-case hex digits. What is left as it is lies
 * above E, so every byte of the key text is above d0: a value continued by
 * anything sorts after it, whatever delimiter follows. And byte order is
 * kept: the escapes sort by their hex digits, among themselves as their
 * bytes do and all below the bytes left as they are (nothing lies between
 * d0 and E), so key text sorts as the values do. With '#', E is '$':
 * "tool s" is "tool$20s", "a#b" is "a$23b", "$5" is "$245". */
static int ordered_escaped(const ddbst_model *m, unsigned char c) {
  return c <= (unsigned char)m->delim[0] || c == ddbst__ordered_escape_byte(m);
}

static unsigned char lower_byte(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

ddbst__fk_why ddbst__facet_key_coded(const ddbst_model *m, const ddbst__attr *a,
                                     int lower, int partial, const char *v,
                                     size_t n, char *dst, size_t *len,
                                     const char **why) {
  if (n == 0)
    return DDBST__FK_EMPTY;
  char normal[DDBST__NORM_MAX];
  if (a->normalize) {
    /* the form the key holds; the item keeps the value as written */
    long k = ddbst__normalize(a->normalize, v, n, normal);
    if (k < 0) return DDBST__FK_LONG;
    if (k == 0) return DDBST__FK_EMPTY; /* nothing but ignorables */
    v = normal;
    n = (size_t)k;
  }
  if (a->type == DDBST__T_INTEGER) {
    /* a prefix of "12" is no bound on 12's key form "012" */
    if (partial)
      return DDBST__FK_PARTIAL;
    int64_t x;
    const char *bad = ddbst__int_parse(v, n, &x);
    if (!bad)
      bad = ddbst__int_key(x, a->width, a->sortable_negative, dst, len);
    if (bad) {
      if (why)
        *why = bad;
      return DDBST__FK_WIDTH;
    }
    /* digits and '-': nothing to lower-case, escape or find a delimiter in
     * (delimiters hold neither); unpadded, "1" is continued by "12" */
    return a->range_checked && ddbst__facet_order_break(m, dst, *len)
               ? DDBST__FK_BELOW
               : DDBST__FK_OK;
  }
  if (a->escape == DDBST__ESCAPE_ORDERED) {
    /* lower-cased first, so the escapes' hex digits stay upper-case */
    char *o = dst;
    unsigned char e = ddbst__ordered_escape_byte(m);
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)v[i];
      if (lower) c = lower_byte(c);
      if (ordered_escaped(m, c)) {
        *o++ = (char)e;
        *o++ = HEX[c >> 4];
        *o++ = HEX[c & 15];
      } else {
        *o++ = (char)c;
      }
    }
    *len = (size_t)(o - dst);
    return DDBST__FK_OK; /* every byte above the delimiter's first */
  }
  if (a->escape == DDBST__ESCAPE_PERCENT) {
    /* lower-cased first, so the escapes' hex digits stay upper-case and
     * the key reads back (facet_unescape takes upper-case only) */
    char *o = dst;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)v[i];
      if (lower)
        c = lower_byte(c);
      if (escaped_byte(m, c)) {
        *o++ = '%';
        *o++ = HEX[c >> 4];
        *o++ = HEX[c & 15];
      } else {
        *o++ = (char)c;
      }
    }
    *len = (size_t)(o - dst);
  } else {
    /* text as it is, perhaps lower-cased: the inline form, less the order
     * check that sent it here */
    ddbst__fk_why w = ddbst__facet_delim(m, v, n);
    if (w != DDBST__FK_OK)
      return w;
    ddbst__copy(dst, v, n);
    if (lower)
      ddbst__lower_ascii(dst, n);
    *len = n;
  }
  return a->range_checked && ddbst__facet_order_break(m, dst, *len)
             ? DDBST__FK_BELOW
             : DDBST__FK_OK;
}

int ddbst__facet_order_refused(const ddbst_model *m, const ddbst__attr *a,
                               const char *what, const char *v, size_t n,
                               const char *path, ddbst_error *err) {
  /* the first character after the first that is not above the delimiter's
   * first byte: the one to name (for a longer delimiter, perhaps one that
   * merely starts it) */
  unsigned char c = (unsigned char)m->delim[0];
  for (size_t i = 1; i < n; i++)
    if ((unsigned char)v[i] <= (unsigned char)m->delim[0]) {
      c = (unsigned char)v[i];
      break;
    }
  char shown[16];
  if (c < 0x20 || c == 0x7F)
    snprintf(shown, sizeof shown, "U+%04X", c);
  else
    snprintf(shown, sizeof shown, "'%c' (U+%04X)", c, c);
  const char *fix = a->type == DDBST__T_STRING
                        ? "\"escape\": \"ordered\" keeps such values"
                    : a->type == DDBST__T_INTEGER
                        ? "give it a \"width\""
                        : "no enum value may continue another with it";
  return ddbst__fail(err, DDBST_EVALUE, path,
                     "%s holds %s, which sorts below the key delimiter '%s' "
                     "after it: a range on %s would misplace it; %s",
                     what, shown, m->delim, a->name, fix);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Undoes the %-escaping of k[0..kn) into dst (room for kn bytes) and
 * returns the length; -1 when `k` is not text the escaping makes (a lone
 * '%', lower-case hex, an escape of a byte that is never escaped). */
static long facet_unescape(const ddbst_model *m, const char *k, size_t kn,
                           char *dst) {
  char *o = dst;
  for (size_t i = 0; i < kn; i++) {
    if (k[i] != '%') {
      *o++ = k[i];
      continue;
    }
    if (kn - i < 3)
      return -1;
    int h = hexval(k[i + 1]), l = hexval(k[i + 2]);
    if (h < 0 || l < 0)
      return -1;
    unsigned char c = (unsigned char)(h * 16 + l);
    if (!escaped_byte(m, c))
      return -1;
    *o++ = (char)c;
    i += 2;
  }
  return (long)(o - dst);
}

/* Undoes the ordered escaping of k[0..kn) into dst (room for kn bytes) and
 * returns the length; -1 when `k` is not text the escaping makes (a byte it
 * would have escaped left as it is, a malformed escape, an escape of a byte
 * it leaves as it is). */
static long ordered_unescape(const ddbst_model *m, const char *k, size_t kn,
                             char *dst) {
  unsigned char e = ddbst__ordered_escape_byte(m);
  char *o = dst;
  for (size_t i = 0; i < kn; i++) {
    unsigned char c = (unsigned char)k[i];
    if (c != e) {
      if (ordered_escaped(m, c))
        return -1;
      *o++ = (char)c;
      continue;
    }
    if (kn - i < 3)
      return -1;
    int h = hexval(k[i + 1]), l = hexval(k[i + 2]);
    if (h < 0 || l < 0)
      return -1;
    c = (unsigned char)(h * 16 + l);
    if (c == 0 || !ordered_escaped(m, c))
      return -1;
    *o++ = (char)c;
    i += 2;
  }
  return (long)(o - dst);
}

/* Appends the canonical form of candidate c[0..cn) when its key form is
 * exactly k[0..kn): 1; else 0 with `out` as it was; DDBST_ENOMEM. Neither
 * `c` nor `k` points into `out`. */
static int try_value(const ddbst_model *m, const ddbst__attr *a, int lower,
                     const char *c, size_t cn, const char *k, size_t kn,
                     ddbst_buf *out) {
  size_t mark = out->len;
  char reason[128];
  int rc = ddbst__value_canon(a, c, cn, out, reason, sizeof reason);
  if (rc)
    return rc == DDBST_ENOMEM ? rc : 0;
  size_t vn = out->len - mark;
  /* room for the key form (at most three bytes a byte, or an integer's
   * text) before taking pointers into `out` */
  if (ddbst__buf_reserve(out, 3 * vn + DDBST__INT_MAX_TEXT)) {
    ddbst__buf_truncate(out, mark);
    return DDBST_ENOMEM;
  }
  /* text a range would misplace is still read back: keys written before
   * the rule (facet_key.h) */
  size_t fl = 0;
  ddbst__fk_why w = ddbst__facet_key_at(m, a, lower, 0, out->data + mark, vn,
                                        0, out->data + mark + vn, &fl, NULL);
  int same = (w == DDBST__FK_OK || w == DDBST__FK_BELOW) && fl == kn &&
             memcmp(out->data + mark + vn, k, kn) == 0;
  ddbst__buf_truncate(out, same ? mark + vn : mark);
  out->data[out->len] = '\0'; /* the key form written past it */
  return same;
}

int ddbst__facet_from_key(const ddbst_model *m, const ddbst__attr *a, int lower,
                          const char *k, size_t kn, ddbst_buf *out, char *why,
                          size_t why_cap) {
  /* key facets are never longer than a partition key */
  char text_buf[DDBST__PK_MAX + 1];
  const char *text = k;
  size_t len = kn;
  if (kn > DDBST__PK_MAX) {
    snprintf(why, why_cap, "%s: longer than any key", a->name);
    return DDBST_EVALUE;
  }
  if (a->type == DDBST__T_INTEGER) {
    int64_t v;
    const char *bad =
        ddbst__int_from_key(k, kn, a->width, a->sortable_negative, &v);
    if (bad) {
      snprintf(why, why_cap, "%s: %s", a->name, bad);
      return DDBST_EVALUE;
    }
    len = (size_t)snprintf(text_buf, sizeof text_buf, "%lld", (long long)v);
    text = text_buf;
  } else if (a->escape) {
    long ul = a->escape == DDBST__ESCAPE_ORDERED
                  ? ordered_unescape(m, k, kn, text_buf)
                  : facet_unescape(m, k, kn, text_buf);
    if (ul < 0) {
      snprintf(why, why_cap, "%s: malformed %s", a->name,
               a->escape == DDBST__ESCAPE_ORDERED ? "ordered escape"
                                                  : "%-escape");
      return DDBST_EVALUE;
    }
    len = (size_t)ul;
    text = text_buf;
  }
  int r = 0;
  if (a->type == DDBST__T_ENUM) {
    /* the declared value whose key form it is: lower-casing may have
     * folded its case */
    for (size_t i = 0; !r && i < a->nvalues; i++)
      r = try_value(m, a, lower, a->values[i], a->value_lens[i], k, kn, out);
  } else {
    r = try_value(m, a, lower, text, len, k, kn, out);
    if (!r && lower) {
      /* a timestamp's 'T' and 'Z', a ULID's letters: canonical upper-case */
      char up[DDBST__PK_MAX + 1];
      for (size_t i = 0; i < len; i++)
        up[i] =
            text[i] >= 'a' && text[i] <= 'z' ? (char)(text[i] - 32) : text[i];
      r = try_value(m, a, lower, up, len, k, kn, out);
    }
  }
  if (r < 0)
    return DDBST_ENOMEM;
  if (!r) {
    snprintf(why, why_cap, "%s: '%.*s' is not a canonical %s", a->name,
             (int)(len > 64 ? 64 : len), text, ddbst__type_name(a->type));
    return DDBST_EVALUE;
  }
  return 0;
}
