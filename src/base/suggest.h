/* "Did you mean": the known name closest to a misspelt one, by one rule for
 * every error that names something unknown (fields, types, entities,
 * attributes, indexes, patterns, verbs, options), so suggestions agree. */
#ifndef DDBST_SUGGEST_H
#define DDBST_SUGGEST_H

#include <stddef.h>

/* Offer candidates one by one; the best so far is kept. Never allocates. */
typedef struct ddbst__suggest {
  const char *word;
  size_t len;
  const char *best; /* NULL: no candidate close enough yet */
  unsigned score;   /* twice the edit distance, plus one for a case change */
} ddbst__suggest;

void ddbst__suggest_init(ddbst__suggest *s, const char *word);
/* Considers `candidate` (NULL and the word itself are ignored). The first
 * of equally close candidates is kept. */
void ddbst__suggest_offer(ddbst__suggest *s, const char *candidate);
/* The closest candidate offered, or NULL when none is close enough: an edit
 * distance (insertions, deletions, substitutions, swaps of neighbours; case
 * aside) of at most 1 for names up to 4 bytes, 2 up to 8, 3 beyond, and
 * less than the name's length. */
const char *ddbst__suggest_best(const ddbst__suggest *s);

/* "; did you mean X?" for `best`, or "" when it is NULL, into out[cap]: the
 * tail every such message ends with. */
const char *ddbst__suggest_tail(const char *best, char *out, size_t cap);

#endif
