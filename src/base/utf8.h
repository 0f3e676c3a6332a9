/* UTF-8 validity: the check every text from a caller passes before it goes
 * into a key or a request body, and the one every JSON text passes before it
 * is parsed (json/text.c). */
#ifndef DDBST_UTF8_H
#define DDBST_UTF8_H

#include <stddef.h>

/* Well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF) and
 * no NUL byte: NULL, or a static reason ("invalid UTF-8: overlong
 * encoding"). */
const char *ddbst__utf8_check(const char *s, size_t n);

/* Characters in s[0..n) of valid UTF-8 (bytes that start one): the
 * character an offset points at, for messages. */
static inline size_t ddbst__utf8_chars(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

/* The one multi-byte sequence that starts at p[0] (a byte from 0x80 up),
 * with `avail` bytes readable from p: its length, or 0 with *why the static
 * reason it is not well-formed. */
size_t ddbst__utf8_sequence(const unsigned char *p, size_t avail,
                            const char **why);

#endif
