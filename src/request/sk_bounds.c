/* Sort-key conditions that stay inside the entity's key space by
 * construction: a terminator after every complete facet and successor
 * bounds, inside one BETWEEN or comparison (the table of conditions and
 * expressions is docs/queries.md). Every bound's facet text comes from the
 * facet renderer (item/facet_key.h). */
#include <stdio.h>
#include <string.h>

#include "item/facet_key.h"
#include "model/facet.h"
#include "request/sk_bounds.h"

/* ---- UTF-8 successors and predecessors ---- */

/* Decodes the last code point of s[0..n): its start offset and value. The
 * text is valid UTF-8 (keys are checked), so this never runs off. */
static size_t last_cp(const unsigned char *s, size_t n, uint32_t *cp) {
  size_t i = n - 1;
  while (i > 0 && (s[i] & 0xC0) == 0x80)
    i--;
  uint32_t c = s[i];
  size_t len = n - i;
  if (len == 1)
    *cp = c;
  else if (len == 2)
    *cp = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
  else if (len == 3)
    *cp = ((c & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) |
          (s[i + 2] & 0x3F);
  else
    *cp = ((c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
          ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
  return i;
}

static int put_cp(ddbst_buf *b, uint32_t cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return ddbst__buf_append(b, u, n);
}

/* Appends the smallest string greater than every string that starts with
 * s[0..n): s with its last code point incremented (a maximal last code point
 * is dropped and the one before it incremented). DDBST_ERANGE when there is
 * none (s is all U+10FFFF), DDBST_ENOMEM. */
static int append_successor(ddbst_buf *b, const char *s, size_t n) {
  while (n > 0) {
    uint32_t cp;
    size_t at = last_cp((const unsigned char *)s, n, &cp);
    if (cp < 0x10FFFF) {
      uint32_t next = cp + 1 == 0xD800 ? 0xE000 : cp + 1;
      int rc = ddbst__buf_append(b, s, at);
      return rc ? rc : put_cp(b, next);
    }
    n = at;
  }
  return DDBST_ERANGE;
}

/* Appends the largest valid UTF-8 string of at most `room` bytes: every
 * string of at most `room` bytes sorts at or below it. */
static int append_maxfill(ddbst_buf *b, size_t room) {
  int rc = 0;
  for (; !rc && room >= 4; room -= 4)
    rc = put_cp(b, 0x10FFFF);
  if (!rc && room == 3)
    rc = put_cp(b, 0xFFFF);
  if (!rc && room == 2)
    rc = put_cp(b, 0x7FF);
  if (!rc && room == 1)
    rc = put_cp(b, 0x7F);
  return rc;
}

/* ---- bounds ---- */

typedef struct bound {
  int present;
  int inclusive;
  uint32_t off, len; /* into item keytext */
} bound;

typedef struct sk_ctx {
  ddbst_item *it;
  const ddbst__ekey *k;
  const char *sk_attr;
  size_t limit;          /* the sort key's byte limit */
  uint32_t p_off, p_len; /* the prefix P: literals and facets before R */
  int terminated;       /* the condition's facet is followed by the delimiter */
  int range_seg;        /* segment index of the condition's facet */
  const ddbst__attr *a; /* the condition's facet, for errors */
  ddbst_error *err;
} sk_ctx;

static const char *key_at(const ddbst_item *it, uint32_t off) {
  return it->keytext.data + off;
}

/* "facet ts", formatted only when an error is reported. */
static const char *fpath(char *buf, size_t cap, const ddbst__attr *a) {
  snprintf(buf, cap, "facet %s", a->name);
  return buf;
}

/* A bound that could not be made: its error (out of memory is left to the
 * request, which cuts its body back). */
static int bounds_failed(int rc, const ddbst__attr *a, ddbst_error *err) {
  char path[DDBST_ERROR_PATH_MAX];
  if (rc == DDBST_EVALUE)
    return ddbst__fail(err, rc, fpath(path, sizeof path, a), "empty value");
  if (rc == DDBST_ERANGE)
    return ddbst__fail(err, rc, fpath(path, sizeof path, a),
                       "no key sorts after every key the condition allows");
  return rc; /* out of memory: the request reports it */
}

/* Starts a new string in keytext that begins with P. */
static int start_with_prefix(sk_ctx *c, uint32_t *off) {
  ddbst_buf *kt = &c->it->keytext;
  *off = (uint32_t)kt->len;
  /* P lives in kt too: reserve first so copying from it stays valid */
  if (ddbst__buf_reserve(kt, c->p_len + 1))
    return DDBST_ENOMEM;
  return ddbst__buf_append(kt, kt->data + c->p_off, c->p_len);
}

static void finish(sk_ctx *c, uint32_t off, bound *b, int inclusive) {
  b->present = 1;
  b->inclusive = inclusive;
  b->off = off;
  b->len = (uint32_t)(c->it->keytext.len - off);
}

/* P + text (+ the delimiter's successor). */
enum { END_NONE, END_DELIM_SUCC };

static int make_bound_text(sk_ctx *c, const char *text, size_t n, int succ,
                           int end, int inclusive, bound *b) {
  uint32_t off;
  ddbst_buf *kt = &c->it->keytext;
  int rc = start_with_prefix(c, &off);
  if (rc)
    return rc;
  if (succ) {
    if (n == 0)
      return DDBST_EVALUE; /* no value: refused before this */
    rc = append_successor(kt, text, n);
    if (rc)
      return rc;
  } else {
    rc = ddbst__buf_append(kt, text, n);
  }
  if (!rc && end == END_DELIM_SUCC) {
    const ddbst_model *m = c->it->m;
    rc = append_successor(kt, m->delim, m->delim_len);
  }
  if (rc)
    return rc;
  finish(c, off, b, inclusive);
  return 0;
}

/* make_bound_text, its failure reported on the condition's facet. */
static int make_bound(sk_ctx *c, const char *text, size_t n, int succ, int end,
                      int inclusive, bound *b) {
  int rc = make_bound_text(c, text, n, succ, end, inclusive, b);
  return rc ? bounds_failed(rc, c->a, c->err) : 0;
}

/* Whether `s` could be a key of the entity: then an exclusive bound equal to
 * it cannot be used as an inclusive one. Each facet must be the key form of
 * some value (item/facet_key.h). */
static int could_be_key(sk_ctx *c, const char *s, size_t n) {
  const ddbst_model *m = c->it->m;
  size_t spans[2 * DDBST__MAX_FACETS];
  /* `s` may be in keytext, which the checks below use as scratch */
  char copy[DDBST__SK_MAX + 4];
  if (n > sizeof copy)
    return 0;
  memcpy(copy, s, n);
  if (!ddbst__template_split(&c->k->sk, copy, n, m->delim, m->delim_len, spans))
    return 0;
  const ddbst__entity *e = ddbst__entity_of(c->it);
  ddbst_buf *kt = &c->it->keytext;
  size_t mark = kt->len;
  int f = 0, fits = 1;
  for (int i = 0; fits && i < c->k->sk.nsegs; i++) {
    const ddbst__seg *seg = &c->k->sk.segs[i];
    if (seg->attr < 0)
      continue;
    char why[160];
    /* out of memory: "could be", the answer that is always safe */
    fits = ddbst__facet_from_key(m, &e->attrs[seg->attr], seg->lower,
                                 copy + spans[2 * f], spans[2 * f + 1], kt, why,
                                 sizeof why) != DDBST_EVALUE;
    ddbst__buf_truncate(kt, mark);
    f++;
  }
  return fits;
}

/* An exclusive upper bound as an inclusive one: itself when no key of the
 * entity can equal it, else the largest string below it that fits a key. */
static int make_inclusive(sk_ctx *c, bound *b) {
  if (b->inclusive)
    return 0;
  if (!could_be_key(c, key_at(c->it, b->off), b->len)) {
    b->inclusive = 1;
    return 0;
  }
  /* could_be_key may have grown keytext: the bound is read again */
  ddbst_buf *kt = &c->it->keytext;
  const char *s = key_at(c->it, b->off);
  uint32_t cp;
  size_t at = last_cp((const unsigned char *)s, b->len, &cp);
  uint32_t off = (uint32_t)kt->len;
  if (ddbst__buf_reserve(kt, c->limit + 4))
    return DDBST_ENOMEM;
  s = key_at(c->it, b->off); /* the reserve may have moved it */
  ddbst__buf_append(kt, s, at);
  if (cp > 1) {
    put_cp(kt, cp - 1 == 0xDFFF ? 0xD7FF : cp - 1);
    size_t used = kt->len - off;
    if (used < c->limit)
      append_maxfill(kt, c->limit - used);
  }
  finish(c, off, b, 1);
  return 0;
}

/* ---- the condition's value ---- */

/* Canonical text of the condition's value in `buf`: complete (*partial 0),
 * or a proper prefix of a canonical value (*partial 1: "2026-03", "01HZ",
 * an enum value's start); strings are always complete. Returns the text, or
 * NULL with `err` filled. */
static const char *condition_canon(const ddbst__attr *a, const char *v,
                                   size_t n, char *buf, size_t *len,
                                   int *partial, ddbst_error *err) {
  char path[DDBST_ERROR_PATH_MAX];
  const char *bad;
  *partial = 0;
  *len = n;
  switch (a->type) {
  case DDBST__T_TIMESTAMP:
    if (!ddbst__ts_canon(v, n, a->precision, buf, len))
      return buf;
    if (ddbst__ts_is_prefix(v, n, a->precision)) {
      *partial = 1;
      *len = n;
      return v;
    }
    ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                "%s: '%.*s' is neither a timestamp nor the start of "
                "one in UTC (2026, 2026-03, 2026-03-14T09, ...)",
                a->name, (int)(n > 64 ? 64 : n), v);
    return NULL;
  case DDBST__T_ULID: {
    /* a prefix: its characters canonicalised as a whole ULID's would be */
    char full[DDBST__ULID_LEN];
    if (n > DDBST__ULID_LEN) {
      ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                  "%s: too long for a ULID", a->name);
      return NULL;
    }
    memset(full, '0', sizeof full);
    memcpy(full, v, n);
    if ((bad = ddbst__ulid_canon(full, sizeof full, buf))) {
      ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a), "%s: %s",
                  a->name, bad);
      return NULL;
    }
    *partial = n < DDBST__ULID_LEN;
    return buf;
  }
  case DDBST__T_INTEGER: {
    int64_t x;
    if ((bad = ddbst__int_parse(v, n, &x))) {
      ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a), "%s: %s",
                  a->name, bad);
      return NULL;
    }
    return v; /* ddbst__int_parse takes canonical decimal text only */
  }
  case DDBST__T_ENUM: {
    int exact = 0, prefix = 0;
    for (size_t i = 0; i < a->nvalues; i++) {
      size_t l = a->value_lens[i];
      if (l == n && !memcmp(a->values[i], v, n))
        exact = 1;
      if (l > n && !memcmp(a->values[i], v, n))
        prefix = 1;
    }
    if (!exact && !prefix) {
      ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                  "%s: '%.*s' is not one of the enum's values nor the "
                  "start of one",
                  a->name, (int)(n > 64 ? 64 : n), v);
      return NULL;
    }
    *partial = !exact;
    return v;
  }
  case DDBST__T_BOOLEAN:
    if (!(n == 4 && !memcmp(v, "true", 4)) &&
        !(n == 5 && !memcmp(v, "false", 5))) {
      ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                  "%s: expected true or false", a->name);
      return NULL;
    }
    return v;
  default:
    return v;
  }
}

/* The key text of value `v` for the condition's facet (segment `seg`),
 * complete or partial (*partial), through the one facet renderer
 * (item/facet_key.h): lower-cased, escaped or padded as the key holds it.
 * Written into keytext at *off. */
static int condition_value(sk_ctx *c, const ddbst__seg *seg,
                           const ddbst__attr *a, const char *v, size_t n,
                           uint32_t *off, uint32_t *len, int *partial,
                           ddbst_error *err) {
  const ddbst_model *m = c->it->m;
  ddbst_buf *kt = &c->it->keytext;
  char path[DDBST_ERROR_PATH_MAX];
  const char *bad = ddbst__utf8_check(v, n);
  if (bad)
    return ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a), "%s: %s",
                       a->name, bad);
  if (n == 0)
    return ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                       "%s: a condition needs a value", a->name);
  char buf[DDBST__TS_MAX > DDBST__ULID_LEN ? DDBST__TS_MAX : DDBST__ULID_LEN];
  size_t cn;
  const char *cv = condition_canon(a, v, n, buf, &cn, partial, err);
  if (!cv)
    return DDBST_EVALUE;
  *off = (uint32_t)kt->len;
  const char *why = NULL;
  switch (ddbst__facet_key(m, a, seg->lower, *partial, cv, cn, 0, kt, &why)) {
  case DDBST__FK_OK:
    break;
  case DDBST__FK_DELIM:
    return ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                       "%s contains the key delimiter '%s'", a->name, m->delim);
  case DDBST__FK_DELIM_END:
    return ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a),
                       "%s ends with the start of the key delimiter '%s'",
                       a->name, m->delim);
  case DDBST__FK_NOMEM:
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  case DDBST__FK_BELOW:
    /* no item can hold it: its keys are refused the same way */
    return ddbst__facet_order_refused(m, a, a->name, cv, cn,
                                      fpath(path, sizeof path, a), err);
  case DDBST__FK_LONG:
    return ddbst__fail(err, DDBST_ERANGE, fpath(path, sizeof path, a),
                       "%s is longer than a key may be once normalised",
                       a->name);
  default: /* an integer its width cannot hold (never partial) */
    return ddbst__fail(err, DDBST_EVALUE, fpath(path, sizeof path, a), "%s: %s",
                       a->name, why ? why : "no key form");
  }
  *len = (uint32_t)(kt->len - *off);
  if (*len + c->p_len > c->limit)
    return ddbst__fail(err, DDBST_ERANGE, fpath(path, sizeof path, a),
                       "the condition's key would pass %zu bytes", c->limit);
  return 0;
}

/* ---- the key condition ---- */

/* A condition's two ends: DDBST_SK_GT or _GTE for its lower end, _LT or
 * _LTE for its upper end, 0 where it has none. A pair (both ends) takes
 * its lower bound from value and its upper bound from value2. */
static int lower_end(int cond) {
  switch (cond) {
  case DDBST_SK_GTE:
  case DDBST_SK_BETWEEN:
  case DDBST_SK_GTE_LT:
    return DDBST_SK_GTE;
  case DDBST_SK_GT:
  case DDBST_SK_GT_LT:
  case DDBST_SK_GT_LTE:
    return DDBST_SK_GT;
  }
  return 0;
}

static int upper_end(int cond) {
  switch (cond) {
  case DDBST_SK_LTE:
  case DDBST_SK_BETWEEN:
  case DDBST_SK_GT_LTE:
    return DDBST_SK_LTE;
  case DDBST_SK_LT:
  case DDBST_SK_GT_LT:
  case DDBST_SK_GTE_LT:
    return DDBST_SK_LT;
  }
  return 0;
}

/* The lower bound of `end` (gt or gte) on key text v, partial or not. */
static int lower_bound(sk_ctx *c, int end, const char *v, uint32_t n,
                       int partial, bound *lo) {
  if (end == DDBST_SK_GTE)
    return make_bound(c, v, n, 0, END_NONE, 1, lo);
  if (partial) /* after every value that starts with v */
    return make_bound(c, v, n, 1, END_NONE, 1, lo);
  /* a complete value: every key above P+v, which itself is excluded */
  return c->terminated ? make_bound(c, v, n, 0, END_DELIM_SUCC, 1, lo)
                       : make_bound(c, v, n, 0, END_NONE, 0, lo);
}

/* The upper bound of `end` (lt or lte) on key text v, partial or not. */
static int upper_bound(sk_ctx *c, int end, const char *v, uint32_t n,
                       int partial, bound *hi) {
  if (end == DDBST_SK_LT) /* before v: before every value starting with it */
    return make_bound(c, v, n, 0, END_NONE, 0, hi);
  if (partial) /* through the end of the prefix's range */
    return make_bound(c, v, n, 1, END_NONE, 0, hi);
  return c->terminated ? make_bound(c, v, n, 0, END_DELIM_SUCC, 0, hi)
                       : make_bound(c, v, n, 0, END_NONE, 1, hi);
}

/* The bounds of a condition on the facet at segment c->range_seg. */
static int condition_bounds(sk_ctx *c, int cond, const ddbst__attr *a,
                            const ddbst_query *q, bound *lo, bound *hi,
                            ddbst_error *err) {
  uint32_t v1o = 0, v1l = 0, v2o = 0, v2l = 0;
  int p1 = 0, p2 = 0;
  int le = lower_end(cond), ue = upper_end(cond), pair = le && ue;
  const ddbst__seg *seg = &c->k->sk.segs[c->range_seg];
  int rc =
      condition_value(c, seg, a, q->value, q->value_len, &v1o, &v1l, &p1, err);
  if (!rc && pair)
    rc = condition_value(c, seg, a, q->value2, q->value2_len, &v2o, &v2l, &p2,
                         err);
  if (rc)
    return rc;
  /* the values live in keytext, which grows below: copy them out */
  char v1[DDBST__SK_MAX + 1], v2[DDBST__SK_MAX + 1];
  memcpy(v1, key_at(c->it, v1o), v1l);
  if (pair)
    memcpy(v2, key_at(c->it, v2o), v2l);
  if (le && (rc = lower_bound(c, le, v1, v1l, p1, lo)))
    return rc;
  if (ue)
    return pair ? upper_bound(c, ue, v2, v2l, p2, hi)
                : upper_bound(c, ue, v1, v1l, p1, hi);
  return 0;
}

static int compare_bounds(const ddbst_item *it, const bound *lo,
                          const bound *hi) {
  size_t n = lo->len < hi->len ? lo->len : hi->len;
  int c = memcmp(key_at(it, lo->off), key_at(it, hi->off), n);
  if (c)
    return c;
  return lo->len < hi->len ? -1 : lo->len > hi->len;
}

/* Writes the sort-key part of KeyConditionExpression (" AND ..."), or
 * nothing for the whole partition. */
int ddbst__sort_condition(ddbst_item *it, const ddbst__pattern *p,
                          const ddbst__ekey *k, const char *sk_attr,
                          const ddbst_query *q, ddbst_buf *out,
                          ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  int cond = q ? q->condition : DDBST_SK_NONE;
  const ddbst__template *t = &k->sk;
  sk_ctx c = {it, k, sk_attr, DDBST__SK_MAX, 0, 0, 0, -1, NULL, err};
  ddbst_buf *kt = &it->keytext;
  char path[DDBST_ERROR_PATH_MAX];

  if (cond != DDBST_SK_NONE) {
    if (q->attribute < 0 || q->attribute >= e->nattrs)
      return ddbst__fail(err, DDBST_EINVAL, "query.attribute",
                         "the condition's attribute index is out of range");
    for (int i = 0; i < t->nsegs; i++)
      if (t->segs[i].attr == q->attribute)
        c.range_seg = i;
    if (c.range_seg < 0)
      return ddbst__fail(err, DDBST_EVALUE,
                         fpath(path, sizeof path, &e->attrs[q->attribute]),
                         "%s is not a facet of the sort key %s",
                         e->attrs[q->attribute].name, t->source);
    if (p->range >= 0 && q->attribute != p->range)
      return ddbst__fail(err, DDBST_EVALUE,
                         fpath(path, sizeof path, &e->attrs[q->attribute]),
                         "pattern %s takes a range on %s only", p->name,
                         e->attrs[p->range].name);
  }

  /* P: every segment before the condition's facet (or before the first
   * facet not given), facets by equality. */
  c.p_off = (uint32_t)kt->len;
  int stop = cond != DDBST_SK_NONE ? c.range_seg : t->nsegs;
  int complete = 1, p_plain = t->literals_plain;
  for (int i = 0; i < stop; i++) {
    const ddbst__seg *s = &t->segs[i];
    if (s->attr < 0 && s->len <= DDBST__SK_MAX) {
      /* a literal: nothing to render or check (one past the limit goes
       * through ddbst__render below, which refuses it by name) */
      if (ddbst__buf_append(kt, s->text, s->len))
        return DDBST_ENOMEM;
      continue;
    }
    if (s->attr >= 0 && !it->vals[s->attr].set) {
      if (cond != DDBST_SK_NONE)
        return ddbst__fail(err, DDBST_EMISSING, "facet",
                           "%s.%s is needed: a "
                           "condition on %s fixes the facets before it",
                           e->name, e->attrs[s->attr].name,
                           e->attrs[q->attribute].name);
      /* a facet after the gap could not be matched: say so, rather than
       * ignore it */
      for (int j = i + 1; j < t->nsegs; j++)
        if (t->segs[j].attr >= 0 && it->vals[t->segs[j].attr].set)
          return ddbst__fail(err, DDBST_EMISSING, "facet",
                             "%s.%s is given but %s before it is not: a sort "
                             "key is matched from its start",
                             e->name, e->attrs[t->segs[j].attr].name,
                             e->attrs[s->attr].name);
      complete = 0;
      break;
    }
    ddbst__template one = {.source = t->source,
                           .segs = (ddbst__seg *)s,
                           .nsegs = 1,
                           .nfacets = s->attr >= 0,
                           .literals_plain = t->literals_plain};
    int plain;
    int rc = ddbst__render(it, &one, sk_attr, DDBST__SK_MAX, kt, &plain, err);
    if (rc)
      return rc;
    p_plain &= plain;
  }
  c.p_len = (uint32_t)(kt->len - c.p_off);
  if (cond == DDBST_SK_NONE) {
    if (c.p_len == 0)
      return 0; /* the whole partition */
    ddbst__vref r = ddbst__plain_key_ref(c.p_off, c.p_len, p_plain);
    if (complete && stop == t->nsegs)
      return ddbst__sk_expr(it, sk_attr, " AND #n1 = :v1", r, NULL, out);
    return ddbst__sk_expr(it, sk_attr, " AND begins_with(#n1, :v1)", r, NULL,
                          out);
  }

  c.terminated = c.range_seg + 1 < t->nsegs;
  const ddbst__attr *a = &e->attrs[q->attribute];
  c.a = a;
  if (cond == DDBST_SK_BEGINS) {
    uint32_t vo, vl;
    int partial;
    int rc = condition_value(&c, &t->segs[c.range_seg], a, q->value,
                             q->value_len, &vo, &vl, &partial, err);
    if (rc)
      return rc;
    /* P is right before the value in keytext only if nothing came between:
     * build P + value afresh */
    char v[DDBST__SK_MAX + 1];
    memcpy(v, key_at(it, vo), vl);
    bound b;
    rc = make_bound(&c, v, vl, 0, END_NONE, 1, &b);
    if (rc)
      return rc;
    return ddbst__sk_expr(it, sk_attr, " AND begins_with(#n1, :v1)",
                          ddbst__key_ref(b.off, b.len), NULL, out);
  }
  if (!lower_end(cond) && !upper_end(cond))
    return ddbst__fail(err, DDBST_EINVAL, "query.condition",
                       "unknown sort-key condition %d", cond);

  bound lo = {0}, hi = {0};
  int rc = condition_bounds(&c, cond, a, q, &lo, &hi, err);
  if (rc)
    return rc;
  /* the entity's key space: everything that starts with P */
  if (c.p_len > 0) {
    if (!lo.present) {
      lo.present = lo.inclusive = 1;
      lo.off = c.p_off;
      lo.len = c.p_len;
    }
    if (!hi.present) {
      char pcopy[DDBST__SK_MAX + 1];
      memcpy(pcopy, key_at(it, c.p_off), c.p_len);
      uint32_t off = (uint32_t)kt->len;
      rc = append_successor(kt, pcopy, c.p_len);
      if (rc)
        return bounds_failed(rc, a, err);
      /* no key of the entity equals it: every one starts with P */
      finish(&c, off, &hi, 1);
    }
  }
  if (lo.present && hi.present) {
    /* [lo, hi) with hi exclusive is empty when lo >= hi: say so rather than
     * send a query that can only come back empty */
    if (!hi.inclusive && compare_bounds(it, &lo, &hi) >= 0)
      return ddbst__fail(err, DDBST_ERANGE,
                         fpath(path, sizeof path, &e->attrs[q->attribute]),
                         "the condition selects nothing: its lower bound is "
                         "not below its upper bound");
    if (!lo.inclusive) {
      /* facets hold no NUL, so P+v+"\x01" is the smallest key above P+v */
      char lcopy[DDBST__SK_MAX + 2];
      memcpy(lcopy, key_at(it, lo.off), lo.len);
      lcopy[lo.len] = '\x01';
      uint32_t off = (uint32_t)kt->len;
      if (ddbst__buf_append(kt, lcopy, lo.len + 1))
        return DDBST_ENOMEM;
      finish(&c, off, &lo, 1);
    }
    rc = make_inclusive(&c, &hi);
    if (rc)
      return rc;
    if (compare_bounds(it, &lo, &hi) > 0)
      return ddbst__fail(err, DDBST_ERANGE,
                         fpath(path, sizeof path, &e->attrs[q->attribute]),
                         "the condition selects nothing: its lower bound is "
                         "above its upper bound");
    ddbst__vref h = ddbst__key_ref(hi.off, hi.len);
    return ddbst__sk_expr(it, sk_attr, " AND #n1 BETWEEN :v1 AND :v2",
                          ddbst__key_ref(lo.off, lo.len), &h, out);
  }
  if (lo.present)
    return ddbst__sk_expr(it, sk_attr,
                          lo.inclusive ? " AND #n1 >= :v1" : " AND #n1 > :v1",
                          ddbst__key_ref(lo.off, lo.len), NULL, out);
  return ddbst__sk_expr(it, sk_attr,
                        hi.inclusive ? " AND #n1 <= :v1" : " AND #n1 < :v1",
                        ddbst__key_ref(hi.off, hi.len), NULL, out);
}
