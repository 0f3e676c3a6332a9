/* Whether two key templates can produce the same key, and whether a
 * template can produce a key that starts with given text. The loader uses
 * them to refuse entities that could not be told apart, and to find the
 * patterns whose key range other entities' items can fall into.
 *
 * A facet is one or more bytes holding no delimiter, so a key has exactly as
 * many delimiters as its template's literals: keys are compared part by part
 * between delimiters. A part that is pure text is matched exactly against
 * the other; two parts that both hold facets are taken to overlap when their
 * literal starts and ends agree, which errs on the side of "may overlap". */
#include <string.h>

#include "base/hash.h"
#include "model/model.h"

enum { MAX_TOKENS = 64, MAX_PARTS = 64 };

typedef struct token {
  const char *text; /* NULL for a facet */
  size_t len;
} token;

typedef struct part {
  token *t;
  int n;
  int has_facet;
} part;

typedef struct split {
  token tokens[MAX_TOKENS];
  part parts[MAX_PARTS];
  int nparts;
  int ok; /* 0: too many pieces to judge; callers then assume overlap */
} split;

static void add_token(split *s, int *nt, const char *text, size_t len) {
  if (*nt == MAX_TOKENS || s->nparts == 0) {
    s->ok = 0;
    return;
  }
  part *p = &s->parts[s->nparts - 1];
  if (!p->t) p->t = &s->tokens[*nt];
  s->tokens[(*nt)++] = (token){text, len};
  p->n++;
  if (!text) p->has_facet = 1;
}

static void new_part(split *s) {
  if (s->nparts == MAX_PARTS) {
    s->ok = 0;
    return;
  }
  s->parts[s->nparts++] = (part){NULL, 0, 0};
}

/* Cuts a template (or plain text, as one literal) into delimiter-separated
 * parts of tokens. */
static void cut(split *s, const ddbst__template *t, const char *text,
                size_t tlen, const char *d, size_t dn) {
  /* not memset: a split is 2 KB, and only what is filled in is read */
  s->nparts = 0;
  s->ok = 1;
  int nt = 0;
  new_part(s);
  int nsegs = t ? t->nsegs : 1;
  for (int i = 0; i < nsegs && s->ok; i++) {
    const char *lit = t ? t->segs[i].text : text;
    size_t len = t ? t->segs[i].len : tlen;
    if (t && t->segs[i].attr >= 0) {
      add_token(s, &nt, NULL, 0);
      continue;
    }
    while (s->ok) {
      const char *at = ddbst__find_delim(lit, len, d, dn);
      size_t piece = at ? (size_t)(at - lit) : len;
      if (piece) add_token(s, &nt, lit, piece);
      if (!at) break;
      new_part(s);
      lit = at + dn;
      len -= piece + dn;
    }
  }
}

/* Can part `p` (tokens from index i on) produce exactly s[0..n), or, with
 * `prefix`, a string that starts with it? */
static int glob(const token *p, int np, const char *s, size_t n, int prefix) {
  if (np == 0) return n == 0;
  if (p->text) {
    size_t k = p->len < n ? p->len : n;
    if (memcmp(p->text, s, k)) return 0;
    if (n <= p->len) return prefix || (n == p->len && glob(p + 1, np - 1, "", 0, 0));
    return glob(p + 1, np - 1, s + p->len, n - p->len, prefix);
  }
  /* a facet: one byte or more */
  if (n == 0) return prefix;
  for (size_t k = 1; k <= n; k++)
    if (glob(p + 1, np - 1, s + k, n - k, prefix)) return 1;
  return prefix; /* the facet can run past the end of s */
}

static int literal_text(const part *p, char *buf, size_t cap, size_t *n) {
  *n = 0;
  for (int i = 0; i < p->n; i++) {
    if (*n + p->t[i].len > cap) return 0;
    memcpy(buf + *n, p->t[i].text, p->t[i].len);
    *n += p->t[i].len;
  }
  return 1;
}

/* Two parts that may produce the same text. */
static int parts_may_match(const part *a, const part *b) {
  char buf[DDBST__PK_MAX];
  size_t n;
  if (!a->has_facet && !b->has_facet) {
    size_t m;
    char other[DDBST__PK_MAX];
    if (!literal_text(a, buf, sizeof buf, &n) ||
        !literal_text(b, other, sizeof other, &m))
      return 1;
    return n == m && !memcmp(buf, other, n);
  }
  if (!a->has_facet || !b->has_facet) {
    const part *lit = a->has_facet ? b : a, *pat = a->has_facet ? a : b;
    if (!literal_text(lit, buf, sizeof buf, &n)) return 1;
    return glob(pat->t, pat->n, buf, n, 0);
  }
  /* both hold facets: their literal starts, and their literal ends, must
   * agree as far as both go */
  const token *fa = &a->t[0], *fb = &b->t[0];
  if (fa->text && fb->text) {
    size_t k = fa->len < fb->len ? fa->len : fb->len;
    if (memcmp(fa->text, fb->text, k)) return 0;
  }
  const token *la = &a->t[a->n - 1], *lb = &b->t[b->n - 1];
  if (la->text && lb->text) {
    size_t k = la->len < lb->len ? la->len : lb->len;
    if (memcmp(la->text + la->len - k, lb->text + lb->len - k, k)) return 0;
  }
  return 1;
}

int ddbst__templates_may_share(const ddbst__template *a,
                               const ddbst__template *b, const char *d,
                               size_t dn) {
  split sa, sb;
  cut(&sa, a, NULL, 0, d, dn);
  cut(&sb, b, NULL, 0, d, dn);
  if (!sa.ok || !sb.ok) return 1;
  if (sa.nparts != sb.nparts) return 0;
  for (int i = 0; i < sa.nparts; i++)
    if (!parts_may_match(&sa.parts[i], &sb.parts[i])) return 0;
  return 1;
}

int ddbst__template_may_start_with(const ddbst__template *t, const char *q,
                                   size_t qn, const char *d, size_t dn) {
  split st, sq;
  cut(&st, t, NULL, 0, d, dn);
  cut(&sq, NULL, q, qn, d, dn);
  if (!st.ok || !sq.ok) return 1;
  if (st.nparts < sq.nparts) return 0;
  char buf[DDBST__PK_MAX];
  size_t n;
  for (int i = 0; i < sq.nparts; i++) {
    if (!literal_text(&sq.parts[i], buf, sizeof buf, &n)) return 1;
    int last = i == sq.nparts - 1;
    if (!glob(st.parts[i].t, st.parts[i].n, buf, n, last)) return 0;
  }
  return 1;
}

/* Part 0's literal text hashed, when part 0 is literal text. */
static void head_of(const split *s, ddbst__tsig *sig) {
  char buf[DDBST__PK_MAX];
  size_t n;
  sig->nparts = s->nparts;
  sig->head_known = !s->parts[0].has_facet &&
                    literal_text(&s->parts[0], buf, sizeof buf, &n);
  sig->head = sig->head_known ? ddbst__fnv1a(buf, n) : 0;
}

void ddbst__template_sig(const ddbst__template *t, const char *d, size_t dn,
                         ddbst__tsig *sig) {
  split st;
  cut(&st, t, NULL, 0, d, dn);
  sig->known = st.ok;
  if (st.ok) head_of(&st, sig);
}

void ddbst__text_sig(const char *q, size_t qn, const char *d, size_t dn,
                     ddbst__tsig *sig) {
  split sq;
  cut(&sq, NULL, q, qn, d, dn);
  sig->known = sq.ok;
  if (sq.ok) head_of(&sq, sig);
}
