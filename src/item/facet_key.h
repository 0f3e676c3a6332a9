/* The key form of one facet: the only place that turns an attribute's value
 * into the bytes a key holds, and reads those bytes back. Keys, sort-key
 * bounds, cursors and unique guards all go through it; the fast paths that
 * skip it (a facet copied as it is: ddbst__seg.as_is, decided at load) are
 * fuzzed against it (tests/fuzz/fuzz_engine.c). */
#ifndef DDBST_ITEM_FACET_KEY_H
#define DDBST_ITEM_FACET_KEY_H

#include "base/bytes.h"
#include "item/item.h"
#include "model/facet.h"

/* Why a value has no key form: callers word the error for their context
 * ("a condition needs a value", "%s.%s is empty; a key facet needs a
 * value"), so the reason is a code. */
typedef enum {
  DDBST__FK_OK,
  DDBST__FK_EMPTY,   /* a key facet is never empty */
  DDBST__FK_DELIM,   /* holds the delimiter: it would forge another key */
  DDBST__FK_DELIM_END, /* ends with the start of a longer delimiter, so the
                          delimiter after it would be found early */
  DDBST__FK_DELIM_START, /* starts with the end of a longer delimiter whose
                            start ends the text before it */
  DDBST__FK_WIDTH,   /* an integer its width cannot hold (why: the reason) */
  DDBST__FK_PARTIAL, /* a partial value of a type that has none (integers) */
  DDBST__FK_BELOW,   /* the key text of a facet a range reads before the
                        delimiter (ddbst__attr.range_checked) would sort
                        below it: ddbst__facet_order_break says where */
  DDBST__FK_NOMEM,
  DDBST__FK_LONG /* its normal form is longer than any key may be */
} ddbst__fk_why;

/* The key form of `v`, the canonical text of attribute `a` (what
 * ddbst__value_canon makes), or with `partial` a proper prefix of one (a
 * sort-key bound such as "2026-03"): an integer at its width, negatives as
 * ten's complements where sortable; text in the attribute's Unicode normal
 * form ("normalize": NFC or NFKC_Casefold, by utf8proc; a prefix's form is
 * a prefix of its completions' unless it ends where a combining mark would
 * join it); then ASCII lower-casing where the
 * template says (`lower`); then the attribute's escaping (ddbst__attr.escape:
 * %XX of '%' and the delimiter's bytes, or the ordered E XX of every byte up
 * to the delimiter's first and of E). Each step maps a prefix of a value to
 * a prefix of its key form, so a partial value's key form starts every key
 * its completions have. The key text of a facet a range reads before the
 * delimiter (range_checked) must keep its order there: else
 * DDBST__FK_BELOW, with the text written all the same (the reverse reads
 * such keys, written before the rule, back). `scan` is what is known of `v` (ddbst__val.scan,
 * base/scan.h), or 0: with DDBST__SCAN_KNOWN and no DDBST__SCAN_DELIM0 the
 * delimiter need not be looked for.
 *
 * Written at `dst`, which has room for ddbst__facet_key_room(a, n) bytes;
 * *len is its length. Returns DDBST__FK_OK, or the reason (for
 * DDBST__FK_WIDTH `*why`, when `why` is not NULL, is the integer's reason).
 * Inline for the facets of most keys (text as it is, perhaps lower-cased);
 * integers and escaped text take ddbst__facet_key_coded. */
ddbst__fk_why ddbst__facet_key_coded(const ddbst_model *m, const ddbst__attr *a,
                                     int lower, int partial, const char *v,
                                     size_t n, char *dst, size_t *len,
                                     const char **why);

/* Whether text v[0..n), followed in a key by the delimiter, keeps the key
 * splitting back at that delimiter: DDBST__FK_DELIM when it holds the
 * delimiter, DDBST__FK_DELIM_END when it ends with the delimiter's first k
 * bytes and the delimiter repeats itself after k bytes ("a$" before "$$"
 * reads "a$$$": the delimiter one byte early), else DDBST__FK_OK. */
static inline ddbst__fk_why ddbst__facet_delim(const ddbst_model *m,
                                               const char *v, size_t n) {
  const char *d = m->delim;
  size_t dn = m->delim_len;
  if (ddbst__find_delim(v, n, d, dn)) return DDBST__FK_DELIM;
  for (size_t k = 1; k < dn && k <= n; k++)
    if (memcmp(v + n - k, d, k) == 0 && memcmp(d + k, d, dn - k) == 0)
      return DDBST__FK_DELIM_END;
  return DDBST__FK_OK;
}

/* Whether the key text k[0..kn), whose facet starts at `at`, holds the
 * delimiter across that start: a delimiter of more than one byte can begin
 * in the text before a facet and end in the facet. */
static inline int ddbst__facet_delim_before(const ddbst_model *m,
                                            const char *k, size_t at,
                                            size_t kn) {
  const char *d = m->delim;
  size_t dn = m->delim_len;
  for (size_t j = 1; j < dn && j <= at; j++)
    if (at - j + dn <= kn && memcmp(k + at - j, d, dn) == 0) return 1;
  return 0;
}

/* Where key text k[0..n), followed by the delimiter, would sort in the
 * wrong place: the first offset i >= 1 at which what follows, then the
 * delimiter, is not above the delimiter itself ("tool s" before "#": ' ' is
 * below '#', so "tool s#" sorts before "tool#" though "tool s" is after
 * "tool"); 0 when there is none. */
static inline size_t ddbst__facet_order_break(const ddbst_model *m,
                                              const char *k, size_t n) {
  const unsigned char *d = (const unsigned char *)m->delim;
  size_t dn = m->delim_len;
  for (size_t i = 1; i < n; i++) {
    if ((unsigned char)k[i] > d[0]) continue; /* nearly every byte */
    for (size_t j = 0; j < dn; j++) {
      /* the byte j places on: the text's, then the delimiter's */
      unsigned char c = i + j < n ? (unsigned char)k[i + j] : d[i + j - n];
      if (c != d[j]) {
        if (c < d[j]) return i;
        break;
      }
      if (j + 1 == dn) return i; /* the delimiter itself: found early */
    }
  }
  return 0;
}

/* The byte that starts an ordered escape: the one just above the
 * delimiter's first (facet_key.c says why). */
static inline unsigned char ddbst__ordered_escape_byte(const ddbst_model *m) {
  return (unsigned char)(m->delim[0] + 1);
}

/* The byte that starts an escape (two upper-case hex digits follow) in the
 * key text of `a`, or 0 when it has none. */
static inline unsigned char ddbst__facet_escape_byte(const ddbst_model *m,
                                                     const ddbst__attr *a) {
  return a->escape == DDBST__ESCAPE_PERCENT   ? (unsigned char)'%'
         : a->escape == DDBST__ESCAPE_ORDERED ? ddbst__ordered_escape_byte(m)
                                              : 0;
}

static inline size_t ddbst__facet_key_room(const ddbst__attr *a, size_t n) {
  /* normalised text is at most DDBST__NORM_MAX bytes (or refused) */
  if (a->normalize && n < DDBST__NORM_MAX) n = DDBST__NORM_MAX;
  return a->escape ? 3 * n : n > DDBST__INT_MAX_TEXT ? n : DDBST__INT_MAX_TEXT;
}

static inline ddbst__fk_why
ddbst__facet_key_at(const ddbst_model *m, const ddbst__attr *a, int lower,
                    int partial, const char *v, size_t n, unsigned scan,
                    char *dst, size_t *len, const char **why) {
  if (a->type == DDBST__T_INTEGER || a->escape || a->range_checked ||
      a->normalize || n == 0)
    return ddbst__facet_key_coded(m, a, lower, partial, v, n, dst, len, why);
  /* lower-casing cannot make the delimiter: it holds no letter
   * (model/model_load.c, load_delimiter) */
  if (!(scan & DDBST__SCAN_KNOWN) || (scan & DDBST__SCAN_DELIM0)) {
    ddbst__fk_why w = ddbst__facet_delim(m, v, n);
    if (w != DDBST__FK_OK) return w;
  }
  ddbst__copy(dst, v, n);
  if (lower)
    ddbst__lower_ascii(dst, n);
  *len = n;
  return DDBST__FK_OK;
}

/* ddbst__facet_key_at appended to `out` (and a NUL after it); `out` is as
 * it was unless DDBST__FK_OK. */
static inline ddbst__fk_why ddbst__facet_key(const ddbst_model *m,
                                             const ddbst__attr *a, int lower,
                                             int partial, const char *v,
                                             size_t n, unsigned scan,
                                             ddbst_buf *out, const char **why) {
  if (ddbst__buf_reserve(out, ddbst__facet_key_room(a, n)))
    return DDBST__FK_NOMEM;
  size_t len = 0;
  ddbst__fk_why w = ddbst__facet_key_at(m, a, lower, partial, v, n, scan,
                                        out->data + out->len, &len, why);
  if (w == DDBST__FK_OK)
    out->len += len;
  out->data[out->len] = '\0';
  return w;
}

/* The refusal of DDBST__FK_BELOW for value v[0..n) of `a` ("Entity.attr"
 * in `what`), at `path`: the character that would sort below the delimiter,
 * and the way to keep such values. Returns DDBST_EVALUE. */
int ddbst__facet_order_refused(const ddbst_model *m, const ddbst__attr *a,
                               const char *what, const char *v, size_t n,
                               const char *path, ddbst_error *err);

/* The reverse: appends to `out` a canonical value of `a` whose key form is
 * exactly k[0..kn) (for a lower-cased facet, one of the values that share
 * it: the text as the key holds it when that is a value, else the value
 * with ASCII upper-cased, the form timestamps and enums are declared in).
 * Returns 0, DDBST_EVALUE with `why` (a reason naming the attribute) when
 * no value has this key form, or DDBST_ENOMEM; `out` is as it was on
 * error. */
int ddbst__facet_from_key(const ddbst_model *m, const ddbst__attr *a, int lower,
                          const char *k, size_t kn, ddbst_buf *out, char *why,
                          size_t why_cap);

#endif
