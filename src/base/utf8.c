/* UTF-8 as DynamoDB and JSON want it: well-formed, and (for ddbst) without
 * NUL. ASCII runs go a word or a vector at a time (bytes.h); the rest byte by
 * byte. */
#include "base/utf8.h"

#include <stdint.h>
#include <string.h>

#include "base/bytes.h"

/* Follows the Unicode "well-formed UTF-8" table (Table 3-7): the allowed range
 * of the second byte depends on the lead byte, which is what rules out
 * overlongs, surrogates and code points past U+10FFFF in one place. */
size_t ddbst__utf8_sequence(const unsigned char *p, size_t avail,
                            const char **why) {
  unsigned char c = p[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
  if (c < 0xC0) {
    *why = "invalid UTF-8: stray continuation byte";
    return 0;
  }
  if (c < 0xC2) {
    *why = "invalid UTF-8: overlong encoding";
    return 0;
  }
  if (c < 0xE0) {
    len = 2;
  } else if (c < 0xF0) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c < 0xF5) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else if (c < 0xF8) {
    *why = "invalid UTF-8: code point above U+10FFFF";
    return 0;
  } else {
    *why = "invalid UTF-8: byte 0xF8-0xFF never occurs";
    return 0;
  }
  *why = "invalid UTF-8: truncated multi-byte sequence";
  if (avail < len) return 0;
  unsigned char c1 = p[1];
  if (c1 < 0x80 || c1 > 0xBF) return 0;
  if (c1 < lo) {
    *why = "invalid UTF-8: overlong encoding";
    return 0;
  }
  if (c1 > hi) {
    *why = c == 0xED ? "invalid UTF-8: surrogate code point"
                     : "invalid UTF-8: code point above U+10FFFF";
    return 0;
  }
  for (size_t k = 2; k < len; k++)
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  *why = NULL;
  return len;
}

const char *ddbst__utf8_check(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = ddbst__ascii_run(s, n);
  while (i < n) {
    unsigned char c = p[i];
    if (c == 0) return "contains a NUL byte";
    if (c < 0x80) {
      /* eight bytes a step again where they are ASCII: text with a few
       * accented letters is mostly ASCII between them (a failed look at a
       * word costs a few instructions, not a pass) */
      uint64_t w;
      if (n - i >= 8) {
        memcpy(&w, p + i, 8);
        if (!ddbst__word_not_ascii(w)) {
          i += 8;
          continue;
        }
      }
      i++;
      continue;
    }
    const char *why;
    size_t len = ddbst__utf8_sequence(p + i, n - i, &why);
    if (!len) return why;
    i += len;
  }
  return NULL;
}
