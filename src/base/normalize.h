/* Unicode normalisation of key text ("normalize" on a string attribute),
 * by utf8proc (Debian's libutf8proc): NFC, or NFKC with case folding
 * (Unicode's NFKC_Casefold). The only file that includes <utf8proc.h>. */
#ifndef DDBST_BASE_NORMALIZE_H
#define DDBST_BASE_NORMALIZE_H

#include <stddef.h>

enum {
  DDBST__NORM_NONE,
  DDBST__NORM_NFC,          /* canonical composition: é as one code point */
  DDBST__NORM_NFKC_CASEFOLD /* and compatibility forms and case folded */
};

/* The longest normalised text a key facet may have: a key holds at most
 * 2048 bytes (DDBST__PK_MAX). */
enum { DDBST__NORM_MAX = 2048 };

/* Writes the `form` of valid UTF-8 v[0..n) into out (DDBST__NORM_MAX
 * bytes): its length, or -1 when it would be longer than that (the key it
 * would make is too long for DynamoDB) or utf8proc refuses the text. No
 * allocation: the work is in a buffer on the stack. */
long ddbst__normalize(int form, const char *v, size_t n, char *out);

/* The same through utf8proc whatever the text (ddbst__normalize takes
 * ASCII without it): for the test that holds the two to one answer. */
long ddbst__normalize_utf8proc(int form, const char *v, size_t n, char *out);

#endif
