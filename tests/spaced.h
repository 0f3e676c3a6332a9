/* The page parser's two ways of reading a value, made to meet: `json` with
 * a space after every '{' outside a string is, where the text is
 * well-formed, the same answer, whose items' {"S":"..."} the parser cannot
 * read in one step (src/response/parse.c) and so reads in its loop.
 * Shared by tests/unit/test_page_whole.c and tests/fuzz/fuzz_response.c. */
#ifndef DDBST_TEST_SPACED_H
#define DDBST_TEST_SPACED_H

#include <stddef.h>

/* `json` (n bytes) spaced into `o`, which has room for 2 * n; returns the
 * length written (no NUL added). */
static inline size_t spaced(const char *json, size_t n, char *o) {
  size_t k = 0;
  int in_string = 0;
  for (size_t i = 0; i < n; i++) {
    char c = json[i];
    o[k++] = c;
    if (in_string) {
      if (c == '\\' && i + 1 < n) o[k++] = json[++i];
      else if (c == '"') in_string = 0;
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '{') {
      o[k++] = ' ';
    }
  }
  return k;
}

#endif
