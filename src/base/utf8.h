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

/* The one multi-byte sequence that starts at p[0] (a byte from 0x80 up),
 * with `avail` bytes readable from p: its length, or 0 with *why the static
 * reason it is not well-formed. */
size_t ddbst__utf8_sequence(const unsigned char *p, size_t avail,
                            const char **why);

#endif
