/* UTF-8 validity: the check every text from a caller passes before it goes
 * into a key or a request body. */
#ifndef DDBST_UTF8_H
#define DDBST_UTF8_H

#include <stddef.h>

/* Well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF) and
 * no NUL byte: NULL, or a static reason ("invalid UTF-8: overlong
 * encoding"). */
const char *ddbst__utf8_check(const char *s, size_t n);

#endif
