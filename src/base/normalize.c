/* Unicode normalisation by utf8proc into caller memory: decomposed into
 * code points on the stack, then composed and encoded back in place. */
#include "base/normalize.h"

#include <string.h>

#include <utf8proc.h>

long ddbst__normalize(int form, const char *v, size_t n, char *out) {
  /* a code point is at least one byte of UTF-8 out, so more than
   * DDBST__NORM_MAX of them never fit; +1 to tell "too long" apart */
  utf8proc_int32_t cp[DDBST__NORM_MAX + 1];
  utf8proc_option_t opt = UTF8PROC_STABLE | UTF8PROC_COMPOSE;
  if (form == DDBST__NORM_NFKC_CASEFOLD)
    opt |= UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE;
  utf8proc_ssize_t k = utf8proc_decompose((const utf8proc_uint8_t *)v,
                                          (utf8proc_ssize_t)n, cp,
                                          DDBST__NORM_MAX + 1, opt);
  if (k < 0 || k > DDBST__NORM_MAX) return -1;
  /* composes, then writes UTF-8 over the code points it has read */
  utf8proc_ssize_t len = utf8proc_reencode(cp, k, opt);
  if (len < 0 || len > DDBST__NORM_MAX) return -1;
  memcpy(out, cp, (size_t)len);
  return (long)len;
}
