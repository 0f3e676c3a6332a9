/* The edit distance behind "did you mean" (suggest.h): optimal string
 * alignment distance on ASCII-folded bytes, with a case-only difference
 * ranked just above an exact match so that customerID finds customerId
 * before customerIp. */
#include <stdio.h>
#include <string.h>

#include "base/internal.h"
#include "base/suggest.h"

/* Longer names are compared for case only: a misspelling is short. */
enum { MAX_NAME = 64 };

static unsigned char fold(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static unsigned min3(unsigned a, unsigned b, unsigned c) {
  unsigned m = a < b ? a : b;
  return m < c ? m : c;
}

/* The distance between a[0..n) and b[0..m), case folded; both at most
 * MAX_NAME bytes. Three rows: the swap of neighbours looks two back. */
static unsigned distance(const char *a, size_t n, const char *b, size_t m) {
  unsigned rows[3][MAX_NAME + 1];
  unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= m; j++) prev[j] = (unsigned)j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = (unsigned)i;
    unsigned char x = fold((unsigned char)a[i - 1]);
    for (size_t j = 1; j <= m; j++) {
      unsigned char y = fold((unsigned char)b[j - 1]);
      unsigned d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y));
      if (i > 1 && j > 1 && x == fold((unsigned char)b[j - 2]) &&
          fold((unsigned char)a[i - 2]) == y && prev2[j - 2] + 1 < d)
        d = prev2[j - 2] + 1;
      cur[j] = d;
    }
    unsigned *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}

static unsigned allowed(size_t len) {
  unsigned most = len <= 4 ? 1 : len <= 8 ? 2 : 3;
  return len <= most ? (unsigned)(len ? len - 1 : 0) : most;
}

void ddbst__suggest_init(ddbst__suggest *s, const char *word) {
  s->word = word ? word : "";
  s->len = strlen(s->word);
  s->best = NULL;
  s->score = 0;
}

void ddbst__suggest_offer(ddbst__suggest *s, const char *candidate) {
  if (!candidate || !s->len || strcmp(candidate, s->word) == 0) return;
  size_t m = strlen(candidate);
  unsigned d;
  if (s->len > MAX_NAME || m > MAX_NAME) {
    if (m != s->len) return;
    for (size_t i = 0; i < m; i++)
      if (fold((unsigned char)candidate[i]) != fold((unsigned char)s->word[i]))
        return;
    d = 0;
  } else {
    d = distance(s->word, s->len, candidate, m);
  }
  if (d > allowed(s->len)) return;
  /* the same letters in another case rank between 0 and 1 */
  unsigned score = 2 * d + (d == 0);
  if (!s->best || score < s->score) {
    s->best = candidate;
    s->score = score;
  }
}

const char *ddbst__suggest_best(const ddbst__suggest *s) { return s->best; }

const char *ddbst__suggest_tail(const char *best, char *out, size_t cap) {
  if (!cap) return "";
  out[0] = '\0';
  if (best) snprintf(out, cap, "; did you mean %s?", best);
  return out;
}

int ddbst_suggest(const char *word, const char *const *candidates,
                  size_t count) {
  if (!word || (!candidates && count)) return DDBST_EINVAL;
  ddbst__suggest s;
  ddbst__suggest_init(&s, word);
  int found = DDBST_ENOTFOUND;
  for (size_t i = 0; i < count; i++)
    if (candidates[i] && strcmp(candidates[i], word) == 0) return (int)i;
  for (size_t i = 0; i < count; i++) {
    const char *before = s.best;
    ddbst__suggest_offer(&s, candidates[i]);
    if (s.best != before) found = (int)i;
  }
  return found;
}
