/* UTF-8 as DynamoDB and JSON want it: well-formed, and (for ddbst) without
 * NUL. ASCII runs go a word or a vector at a time (bytes.h); the rest byte by
 * byte. */
#include "base/utf8.h"

#include "base/bytes.h"

/* Follows the Unicode "well-formed UTF-8" table (Table 3-7): the allowed range
 * of the second byte depends on the lead byte, which is what rules out
 * overlongs, surrogates and code points past U+10FFFF in one place. */
const char *ddbst__utf8_check(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = ddbst__ascii_run(s, n);
  while (i < n) {
    unsigned char c = p[i];
    if (c == 0) return "contains a NUL byte";
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0xC0) return "invalid UTF-8: stray continuation byte";
    if (c < 0xC2) return "invalid UTF-8: overlong encoding";
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
      return "invalid UTF-8: code point above U+10FFFF";
    } else {
      return "invalid UTF-8: byte 0xF8-0xFF never occurs";
    }
    if (n - i < len) return "invalid UTF-8: truncated multi-byte sequence";
    unsigned char c1 = p[i + 1];
    if (c1 < 0x80 || c1 > 0xBF)
      return "invalid UTF-8: truncated multi-byte sequence";
    if (c1 < lo) return "invalid UTF-8: overlong encoding";
    if (c1 > hi)
      return c == 0xED ? "invalid UTF-8: surrogate code point"
                       : "invalid UTF-8: code point above U+10FFFF";
    for (size_t k = 2; k < len; k++)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF)
        return "invalid UTF-8: truncated multi-byte sequence";
    i += len;
  }
  return NULL;
}
