/* Opening a cursor into the next query's ExclusiveStartKey: every byte
 * checked (base64url, format, seal or checksum against this query's
 * context, age, payload) and the keys rebuilt through the pattern's
 * layout. */
#include <stdio.h>
#include <string.h>

#include "base/b64url.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"
#include "item/attribute_value.h"
#include "item/facet_key.h"
#include "model/facet.h"

static int64_t ipow10(int k) {
  static const int64_t small[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  if (k >= 0 && k < 7)
    return small[k];
  int64_t x = 1;
  while (k-- > 0)
    x *= 10;
  return x;
}

/* The x for which x * 10^k fits int64, from a table where k < 7 (two
 * divisions by a variable took longer than the rest of the check): 10^k,
 * k > 0, does not divide 2^63, so INT64_MIN / 10^k is -(INT64_MAX / 10^k). */
static void unit_bounds(int k, int64_t unit, int64_t *most, int64_t *least) {
  static const int64_t top[7] = {INT64_MAX,          INT64_MAX / 10,
                                 INT64_MAX / 100,    INT64_MAX / 1000,
                                 INT64_MAX / 10000,  INT64_MAX / 100000,
                                 INT64_MAX / 1000000};
  if (k >= 0 && k < 7) {
    *most = top[k];
    *least = k ? -top[k] : INT64_MIN;
  } else {
    *most = INT64_MAX / unit;
    *least = INT64_MIN / unit;
  }
}

/* The key text of a typed cursor value: its canonical value (a timestamp
 * from units since the epoch, an integer's decimal text, a ULID from its
 * 16 bytes) rendered by the facet renderer into scratch[*used..]. */
static int typed_text(const ddbst_model *m, const ddbst__attr *a, int lower,
                      const citem *c, char *scratch, size_t *used, view *out,
                      ddbst_error *err) {
  char canon[DDBST__TS_MAX > DDBST__INT_MAX_TEXT ? DDBST__TS_MAX
                                                 : DDBST__INT_MAX_TEXT];
  size_t n = 0;
  const char *bad;
  int typed_int = a->type == DDBST__T_TIMESTAMP || a->type == DDBST__T_INTEGER;
  /* typed forms are only made where the key holds the value as it is */
  if (a->escape || lower) {
    n = 0;
  } else if ((c->kind == K_UINT || c->kind == K_NEGINT) && typed_int) {
    if (c->u > (uint64_t)INT64_MAX)
      return ddbst__cursor_refuse(err, "the cursor's %s is out of range",
                                  a->name);
    int64_t x = c->kind == K_UINT ? (int64_t)c->u : -1 - (int64_t)c->u;
    if (a->type == DDBST__T_TIMESTAMP) {
      int64_t unit = ipow10(6 - a->precision), most, least;
      unit_bounds(6 - a->precision, unit, &most, &least);
      if (x > most || x < least)
        return ddbst__cursor_refuse(err, "the cursor's %s is out of range",
                                    a->name);
      if ((bad = ddbst__ts_from_unix_us(x * unit, a->precision, canon, &n)))
        return ddbst__cursor_refuse(err, "the cursor's %s: %s", a->name, bad);
    } else {
      n = (size_t)snprintf(canon, sizeof canon, "%lld", (long long)x);
    }
  } else if (c->kind == K_BYTES && a->type == DDBST__T_ULID && c->n == 16) {
    uint64_t ms = 0;
    for (int k = 0; k < 6; k++)
      ms = ms << 8 | c->p[k];
    ddbst__ulid_encode(ms, c->p + 6, canon);
    n = DDBST__ULID_LEN;
  }
  if (n == 0)
    return ddbst__cursor_refuse(
        err, "the cursor's value for %s is of the wrong type", a->name);
  /* canonical timestamps and ULIDs hold no delimiter (their alphabets
   * are fixed: ddbst_model.ts_scan, ulid_scan) */
  unsigned scan = a->type == DDBST__T_TIMESTAMP ? m->ts_scan
                  : a->type == DDBST__T_ULID    ? m->ulid_scan
                                                : 0;
  char *dst = scratch + *used;
  size_t kn = 0;
  const char *why = NULL;
  ddbst__fk_why w =
      ddbst__facet_key_at(m, a, lower, 0, canon, n, scan, dst, &kn, &why);
  /* a key DynamoDB gave back is rebuilt as it was, even one the rule on
   * ranges (facet_key.h) would refuse to write now */
  if (w != DDBST__FK_OK && w != DDBST__FK_BELOW)
    return ddbst__cursor_refuse(err, "the cursor's %s: %s", a->name,
                                why ? why : "no key form");
  *out = (view){dst, kn};
  *used += kn;
  return 0;
}

static int facet_text(const ddbst_model *m, const ddbst__attr *a, int lower,
                      const citem *c, char *scratch, size_t *used, view *out,
                      int *clean, int *plain, ddbst_error *err) {
  if (c->kind != K_TEXT) {
    int rc = typed_text(m, a, lower, c, scratch, used, out, err);
    if (rc)
      return rc;
    /* a typed form's alphabet may hold the delimiter ('-', ':', a digit:
     * then the model's ts_scan or ulid_scan is not KNOWN, and its text is
     * searched), and never a byte JSON escapes (digits, letters, "-:.TZ") */
    unsigned scan = a->type == DDBST__T_TIMESTAMP ? m->ts_scan
                    : a->type == DDBST__T_ULID    ? m->ulid_scan
                                                  : 0;
    *clean =
        out->n > 0 && m->delim_len == 1 &&
        (scan == DDBST__SCAN_KNOWN || !memchr(out->p, m->delim[0], out->n));
    *plain = 1;
    return 0;
  }
  view v = {(const char *)c->p, c->n};
  *out = v;
  /* Key text as the LastEvaluatedKey held it, not a value: it goes back as
   * it came, so keys written before ddbst or by hand (not the key form of
   * any value) still page on; it must only keep the key splitting back
   * into the same facets and within the template's key space. */
  if (v.n == 0)
    return ddbst__cursor_refuse(err, "the cursor's %s is empty", a->name);
  /* the usual text, ASCII with no byte JSON escapes (so no NUL) and no
   * delimiter of one byte, in two inline passes: valid UTF-8, clean and
   * plain, as the checks below would find at thrice the cost */
  int fast = m->delim_len == 1 && ddbst__ascii_run(v.p, v.n) == v.n &&
             !ddbst__scan(v.p, v.n, (unsigned char)m->delim[0]);
  if (!fast && ddbst__utf8_check(v.p, v.n))
    return ddbst__cursor_refuse(err, "the cursor's %s %s", a->name,
                                memchr(v.p, '\0', v.n) ? "contains a NUL byte"
                                                       : "is not valid UTF-8");
  if (!fast && ddbst__find_delim(v.p, v.n, m->delim, m->delim_len))
    return ddbst__cursor_refuse(
        err, "the cursor's %s contains the key delimiter", a->name);
  /* lower-case but for an escape's hex digits ("%2F", ordered "$2F") */
  unsigned char esc = ddbst__facet_escape_byte(m, a);
  for (size_t i = 0; lower && i < v.n; i++) {
    if (esc && (unsigned char)v.p[i] == esc) {
      i += 2;
      continue;
    }
    if (v.p[i] >= 'A' && v.p[i] <= 'Z')
      return ddbst__cursor_refuse(
          err, "the cursor's %s is not lower-case, as its key holds it",
          a->name);
  }
  *clean = 1; /* non-empty, and no delimiter in it */
  *plain = fast || ddbst__plain_run(v.p, v.n) == v.n; /* inline: short texts */
  return 0;
}

/* Appends `{` (first) or `,`, then "name":{"S":"v"}. Text that needs no
 * JSON escape (nearly every key; `plain`: known to need none) goes in with
 * one reservation. */
static int write_key(ddbst_buf *out, int first, const ddbst__jtext *name,
                     view v, int plain) {
  if (plain || ddbst__json_plain_len(v.p, v.n) == v.n) {
    if (ddbst__buf_reserve(out, 1 + (size_t)name->n + v.n + 8))
      return DDBST_ENOMEM;
    char *o = out->data + out->len;
    *o++ = first ? '{' : ',';
    ddbst__copy(o, name->p, name->n);
    out->len = (size_t)(ddbst__put_s(o + name->n, v.p, v.n) - out->data);
    return 0;
  }
  int rc = ddbst__buf_putc(out, first ? '{' : ',');
  rc = rc ? rc : ddbst__buf_append(out, name->p, name->n);
  return rc ? rc : ddbst__write_s(out, v.p, v.n);
}

/* Builds key attribute `a` from its template, the partition's facets and
 * the carried ones, into kbuf (room for the key attribute's limit); checks
 * it splits back.
 *
 * With a one-byte delimiter, a key whose every facet is non-empty and free
 * of the delimiter splits back by construction: literals match where they
 * were written, a facet's run ends where the next literal (which starts
 * with the delimiter: ddbst__template_compile) begins, or at the end. The
 * partition's facets are such (ddbst__template_split cut them at the
 * delimiter), and so are carried values whose bit in `unclean` is clear;
 * only other keys are split again. (A longer delimiter could straddle a
 * facet's end and the literal after it, so those keys are always split.) */
static int build_key(const shape *s, const layout *L, int a, const view *fixed,
                     const view *carried, const uint64_t dirty[3], char *kbuf,
                     view *key, int *plain, ddbst_error *err) {
  const ddbst__template *t = L->t[a];
  size_t n = 0, limit = s->limit[a];
  uint64_t unclean = dirty[0], unplain = dirty[1];
  int f = 0, clean = s->m->delim_len == 1;
  int json_plain = t->literals_plain;
  for (int i = 0; i < t->nsegs; i++) {
    const ddbst__seg *seg = &t->segs[i];
    view part;
    if (seg->attr < 0) {
      part = (view){seg->text, seg->len};
    } else {
      int k = L->slot[a - 1][f++];
      if (k < 0) {
        part = fixed[-1 - k];
        json_plain &= !dirty[2];
      } else {
        part = carried[k];
        clean &= !(unclean >> k & 1);
        json_plain &= !(unplain >> k & 1);
      }
    }
    if (part.n > limit - n)
      return ddbst__cursor_refuse(
          err, "the cursor would make %s longer than %zu bytes", s->name[a],
          s->limit[a]);
    ddbst__copy(kbuf + n, part.p, part.n);
    n += part.n;
  }
  *key = (view){kbuf, n};
  *plain = json_plain;
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!clean && !ddbst__template_split(t, key->p, key->n, s->m->delim,
                                       s->m->delim_len, spans))
    return ddbst__cursor_refuse(
        err, "the cursor's %s is outside entity %s's key space (%s)",
        s->name[a], L->e->name, t->source);
  return 0;
}

/* Appends ,"name":{"S":"key"} of key attribute `a`, the key built by
 * build_key straight into `out` (no copy of it, no second pass), and
 * written the general way only in the rare case that it needs a JSON
 * escape. */
static int put_built_key(const shape *s, const layout *L, int a,
                         const view *fixed, const view *carried,
                         const uint64_t dirty[3], ddbst_buf *out,
                         ddbst_error *err) {
  const ddbst__jtext *name = s->jname[a];
  if (ddbst__buf_reserve(out, 1 + (size_t)name->n + 6 + s->limit[a] + 3))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  size_t start = out->len;
  char *o = out->data + start;
  *o++ = ',';
  ddbst__copy(o, name->p, name->n);
  o += name->n;
  memcpy(o, "{\"S\":\"", 6);
  o += 6;
  view key = {o, 0};
  int plain = 0;
  int rc = build_key(s, L, a, fixed, carried, dirty, o, &key, &plain, err);
  if (rc) {
    out->data[start] = '\0';
    return rc;
  }
  if (plain || ddbst__json_plain_len(key.p, key.n) == key.n) {
    memcpy(o + key.n, "\"}", 3); /* and the NUL */
    out->len = (size_t)(o - out->data) + key.n + 2;
    return 0;
  }
  char kbuf[DDBST__PK_MAX];
  memcpy(kbuf, key.p, key.n);
  out->data[start] = '\0';
  if (write_key(out, 0, name, (view){kbuf, key.n}, 0))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}

static int refuse_count(ddbst_error *err, int got, const char *pattern,
                        int want) {
  return ddbst__cursor_refuse(
      err,
      "the cursor holds %d value%s, where pattern %s's cursor "
      "holds %d",
      got, got == 1 ? "" : "s", pattern, want);
}

/* The other pattern of the model whose context the cursor fits, with the
 * same partition: its index, or -1. Only when the cursor was refused, so a
 * client that mixed up two queries is told which query it came from. */
static int made_for(const ddbst_cursor_keys *keys, const unwrapped *u,
                    const ddbst_model *m, int pattern, view part) {
  uint8_t ad[AD_MAX];
  for (int q = 0; q < m->npatterns; q++) {
    if (q == pattern || m->patterns[q].op != DDBST__OP_QUERY)
      continue;
    size_t ctx_len = ddbst__cursor_context(m, &m->patterns[q], part.p, part.n,
                                           ad + 1 + KEY_ID_BYTES);
    if (ddbst__cursor_fits(keys, u, ad, ctx_len))
      return q;
  }
  return -1;
}

static int refuse_other_pattern(ddbst_error *err, const ddbst_model *m,
                                int other, int pattern) {
  return ddbst__cursor_refuse(
      err,
      "the cursor was made for pattern %s, not %s: send it with the query "
      "it came from, or start %s from its first page",
      m->patterns[other].name, m->patterns[pattern].name,
      m->patterns[pattern].name);
}

int ddbst__cursor_open(const ddbst_cursor_keys *keys, const ddbst_model *m,
                       int pattern, const ddbst__cursor_part *qpart,
                       const char *cursor, size_t len, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err) {
  if (!m || !out || !qpart || !qpart->p || (!cursor && len))
    return ddbst__fail(err, DDBST_EINVAL, NULL, "an argument is NULL");
  if (pattern < 0 || pattern >= m->npatterns)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern index %d is out of range", pattern);
  const ddbst__pattern *p = &m->patterns[pattern];
  int rc = ddbst__cursor_need_keys(m, p, keys, err);
  if (rc)
    return rc;
  view part = {qpart->p, qpart->n};
  if (part.n > DDBST__PK_MAX)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "the partition is too long");
  uint8_t ad[AD_MAX]; /* first byte, key id, context */
  size_t ctx_len =
      ddbst__cursor_context(m, p, part.p, part.n, ad + 1 + KEY_ID_BYTES);
  unwrapped u;
  rc = ddbst__cursor_unwrap(keys, cursor, len, ad, ctx_len, now_us, &u, err);
  if (rc == 1) {
    int other = made_for(keys, &u, m, pattern, part);
    if (other >= 0)
      return refuse_other_pattern(err, m, other, pattern);
    return ddbst__cursor_refuse(
        err, u.unsealed ? "the unsealed cursor does not fit this query: it was "
                          "made for another pattern, index, sort order or "
                          "partition, or it was altered"
                        : "the cursor does not open: it was made for another "
                          "pattern, index, sort order or partition, or it was "
                          "altered");
  }
  if (rc)
    return rc;
  int at = u.at;
  uint8_t h = u.h;
  if (p->index >= 0 && m->indexes[p->index].native)
    return ddbst__native_cursor_keys(m, p, part, &u.d, at, out, err);
  const shape *s = ddbst__cursor_plan_shape(p);
  if (write_key(out, 1, s->jname[0], part, qpart->plain))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (h & F_RAW) {
    if (!p->type_filter)
      return ddbst__cursor_refuse(
          err,
          "the cursor holds whole keys, which pattern %s never "
          "makes: no other items share its key range",
          p->name);
    if (u.d.n - at != s->n - 1)
      return refuse_count(err, u.d.n - at, p->name, s->n - 1);
    for (int a = 1; a < s->n; a++) {
      const citem *c = &u.d.it[at + a - 1];
      view v = {(const char *)c->p, c->n};
      if (c->kind != K_TEXT || c->n == 0 || c->n > s->limit[a] ||
          ddbst__utf8_check(v.p, v.n))
        return ddbst__cursor_refuse(
            err,
            "the cursor's %s is no key value (a non-empty "
            "UTF-8 string of at most %zu bytes)",
            s->name[a], s->limit[a]);
      if (!ddbst__cursor_model_fits(m, p->index, s->role[a], v))
        return ddbst__cursor_refuse(
            err, "the cursor's %s is no key of the model", s->name[a]);
      if (write_key(out, 0, s->jname[a], v, 0))
        return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    }
  } else {
    int pos = 0;
    if (p->nentities > 1) {
      if (at >= u.d.n || u.d.it[at].kind != K_UINT ||
          u.d.it[at].u >= (uint64_t)p->nentities)
        return ddbst__cursor_refuse(
            err, "the cursor names no entity of pattern %s", p->name);
      pos = (int)u.d.it[at++].u;
    }
    const layout *L = ddbst__cursor_plan_layout(p, pos);
    view fixed[DDBST__MAX_FACETS], carried[MAX_VALUES];
    if (L && qpart->t == L->t[0]) /* the query split it as it rendered it */
      for (int f = 0; f < L->nfixed; f++)
        fixed[f] =
            (view){part.p + qpart->spans[2 * f], qpart->spans[2 * f + 1]};
    else if (!L || !ddbst__cursor_partition_facets(s, L, part, fixed))
      return ddbst__cursor_refuse(
          err, "the cursor's entity does not fit this query's "
               "partition");
    if (u.d.n - at != L->ncarried)
      return refuse_count(err, u.d.n - at, p->name, L->ncarried);
    char scratch[MAX_VALUES * DDBST__TS_MAX];
    size_t used = 0;
    /* [0] bit i: carried[i] may hold the delimiter; [1] bit i: it may need
     * a JSON escape; [2]: the fixed facets may */
    uint64_t dirty[3] = {0, 0, !qpart->plain};
    _Static_assert(MAX_VALUES <= 64, "a bit per carried value");
    for (int i = 0; i < L->ncarried; i++) {
      int clean = 0, plain = 0;
      rc = facet_text(m, &L->e->attrs[L->carried[i].attr], L->carried[i].lower,
                      &u.d.it[at + i], scratch, &used, &carried[i], &clean,
                      &plain, err);
      if (rc)
        return rc;
      if (!clean)
        dirty[0] |= UINT64_C(1) << i;
      if (!plain)
        dirty[1] |= UINT64_C(1) << i;
    }
    for (int a = 1; a < s->n; a++) {
      rc = put_built_key(s, L, a, fixed, carried, dirty, out, err);
      if (rc)
        return rc;
    }
  }
  if (ddbst__buf_putc(out, '}'))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}
