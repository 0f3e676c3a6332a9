/* Key templates: "ORG#{orgId}" compiled once into literal and facet segments,
 * and keys split back along them. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "base/suggest.h"
#include "model/facet.h"
#include "model/model.h"

static int find_attr(const ddbst__attr *attrs, int nattrs, const char *name,
                     size_t len) {
  /* the first byte spares most strlens: an entity's names differ early */
  for (int i = 0; i < nattrs; i++)
    if (attrs[i].name[0] == name[0] && strlen(attrs[i].name) == len &&
        memcmp(attrs[i].name, name, len) == 0)
      return i;
  return -1;
}

static int starts_with(const char *s, size_t n, const char *p, size_t pn) {
  return n >= pn && memcmp(s, p, pn) == 0;
}

int ddbst__template_compile(ddbst__arena *ar, const char *src,
                            const ddbst__attr *attrs, int nattrs,
                            const char *delim, size_t delim_len,
                            ddbst__template *out, char *why, size_t why_cap) {
  size_t n = strlen(src);
  memset(out, 0, sizeof *out);
  if (n == 0) {
    snprintf(why, why_cap, "a key template may not be empty");
    return DDBST_EMODEL;
  }
  const char *bad = ddbst__utf8_check(src, n);
  if (bad) {
    snprintf(why, why_cap, "%s", bad);
    return DDBST_EMODEL;
  }
  /* Upper bound on segments: each '{' opens a facet and may follow a literal. */
  int max = 1;
  for (size_t i = 0; i < n; i++)
    if (src[i] == '{') max += 2;
  ddbst__seg *segs = ddbst__arena_alloc(ar, (size_t)max * sizeof *segs);
  out->source = ddbst__arena_strndup(ar, src, n);
  if (!segs || !out->source) return DDBST_ENOMEM;

  int ns = 0, nf = 0, lits_escaped = 0, all_as_is = 1;
  uint32_t lits = 0;
  size_t i = 0;
  while (i < n) {
    if (src[i] == '{') {
      const char *close = memchr(src + i + 1, '}', n - i - 1);
      if (!close) {
        snprintf(why, why_cap, "'{' at offset %zu has no matching '}'", i);
        return DDBST_EMODEL;
      }
      const char *name = src + i + 1;
      size_t name_len = (size_t)(close - name);
      int lower = 0;
      const char *colon = memchr(name, ':', name_len);
      if (colon) {
        size_t mod_len = name_len - (size_t)(colon - name) - 1;
        if (mod_len == 5 && memcmp(colon + 1, "lower", 5) == 0) {
          lower = 1;
        } else {
          snprintf(why, why_cap,
                   "unknown facet modifier '%.*s' (the only one is 'lower')",
                   (int)mod_len, colon + 1);
          return DDBST_EMODEL;
        }
        name_len = (size_t)(colon - name);
      }
      if (name_len == 0 || memchr(name, '{', name_len)) {
        snprintf(why, why_cap, "empty or malformed facet at offset %zu", i);
        return DDBST_EMODEL;
      }
      int a = find_attr(attrs, nattrs, name, name_len);
      if (a < 0) {
        char wanted[256];
        snprintf(wanted, sizeof wanted, "%.*s", (int)name_len, name);
        ddbst__suggest s;
        ddbst__suggest_init(&s, wanted);
        for (int k = 0; k < nattrs; k++)
          ddbst__suggest_offer(&s, attrs[k].name);
        if (ddbst__suggest_best(&s))
          snprintf(why, why_cap,
                   "facet '%s' is not an attribute of the entity; did you "
                   "mean %s?",
                   wanted, ddbst__suggest_best(&s));
        else
          snprintf(why, why_cap,
                   "facet '%s' is not an attribute of the entity; declare it "
                   "under attributes",
                   wanted);
        return DDBST_EMODEL;
      }
      if (!ddbst__type_is_key(attrs[a].type)) {
        snprintf(why, why_cap,
                 "facet '%s' is of type %s, which cannot be part of a key (key "
                 "facets are string, integer, boolean, timestamp, ulid or enum)",
                 attrs[a].name, ddbst__type_name(attrs[a].type));
        return DDBST_EMODEL;
      }
      size_t after = (size_t)(close - src) + 1;
      if (after < n && !starts_with(src + after, n - after, delim, delim_len)) {
        snprintf(why, why_cap,
                 "facet '%s' must be followed by the delimiter '%s' or end the "
                 "template, or its key could not be split back unambiguously",
                 attrs[a].name, delim);
        return DDBST_EMODEL;
      }
      if (nf == DDBST__MAX_FACETS) {
        snprintf(why, why_cap, "a key template holds at most %d facets",
                 DDBST__MAX_FACETS);
        return DDBST_EMODEL;
      }
      segs[ns].text = NULL;
      segs[ns].len = 0;
      segs[ns].attr = a;
      segs[ns].lower = lower;
      segs[ns].as_is = !lower && !attrs[a].escape && !attrs[a].normalize &&
                       attrs[a].type != DDBST__T_INTEGER;
      all_as_is &= segs[ns].as_is;
      ns++;
      nf++;
      i = after;
    } else {
      size_t j = i;
      while (j < n && src[j] != '{') {
        if (src[j] == '}') {
          snprintf(why, why_cap, "'}' at offset %zu has no matching '{'", j);
          return DDBST_EMODEL;
        }
        j++;
      }
      segs[ns].text = out->source + i;
      segs[ns].len = (uint32_t)(j - i);
      segs[ns].attr = -1;
      segs[ns].lower = 0;
      segs[ns].as_is = 0;
      lits += (uint32_t)(j - i);
      for (size_t k = i; k < j; k++)
        if (ddbst__byte_needs_escape((unsigned char)src[k]))
          lits_escaped = 1;
      ns++;
      i = j;
    }
  }
  out->segs = segs;
  out->nsegs = ns;
  out->nfacets = nf;
  out->literals_plain = !lits_escaped;
  out->literal_len = lits;
  /* a key of simple text needs no look at its facets' values, which a
   * delimiter of more than one byte could form with the text next to them
   * (render_general in item/keys.c checks for that) */
  out->simple = !lits_escaped && all_as_is && delim_len == 1;
  /* The pieces: each facet with the literal before it. The empty literals
   * point at the source, so that padded copies read inside the arena. */
  out->pieces = ddbst__arena_alloc(ar, (size_t)nf * sizeof *out->pieces);
  if (!out->pieces) return DDBST_ENOMEM;
  const char *lit = out->source;
  uint32_t lit_len = 0;
  int np = 0;
  for (int k = 0; k < ns; k++) {
    if (segs[k].attr < 0) {
      lit = segs[k].text;
      lit_len = segs[k].len;
      continue;
    }
    out->pieces[np++] = (ddbst__piece){lit, lit_len, segs[k].attr};
    lit = out->source;
    lit_len = 0;
  }
  out->tail = lit;
  out->tail_len = lit_len;
  return 0;
}

int ddbst__template_split(const ddbst__template *t, const char *key,
                          size_t len, const char *delim, size_t delim_len,
                          size_t *spans) {
  size_t at = 0;
  int f = 0;
  for (int i = 0; i < t->nsegs; i++) {
    const ddbst__seg *s = &t->segs[i];
    if (s->attr < 0) {
      if (len - at < s->len ||
          !ddbst__same_bytes(key + at, s->text, s->len))
        return 0;
      at += s->len;
    } else {
      /* a one-byte delimiter (nearly every model's) is found by memchr
       * alone */
      const char *d;
      if (delim_len == 1)
        d = at < len ? memchr(key + at, delim[0], len - at) : NULL;
      else
        d = ddbst__find_delim(key + at, len - at, delim, delim_len);
      size_t end = d ? (size_t)(d - key) : len;
      /* A facet is never empty, so an empty run cannot be one. */
      if (end == at) return 0;
      spans[2 * f] = at;
      spans[2 * f + 1] = end - at;
      f++;
      at = end;
    }
  }
  return at == len;
}
