/* Unicode normalisation by utf8proc into caller memory: decomposed into
 * code points on the stack, then composed and encoded back in place; ASCII
 * text without going through utf8proc. */
#include "base/normalize.h"

#include <string.h>

#include <utf8proc.h>

#include "base/bytes.h"

long ddbst__normalize(int form, const char *v, size_t n, char *out) {
  /* ASCII is its own NFC and NFKC, and holds no default ignorable code
   * point: only case folding changes it (A-Z to a-z). utf8proc spent about
   * 4,500 instructions on a 19-byte e-mail address, twice per create of a
   * user (its key and its guard's); test_normalize holds this path to
   * utf8proc's for every ASCII byte and pair of bytes. */
  if (ddbst__ascii_run(v, n) == n) {
    if (n > DDBST__NORM_MAX) return -1;
    memcpy(out, v, n);
    if (form == DDBST__NORM_NFKC_CASEFOLD) ddbst__lower_ascii(out, n);
    return (long)n;
  }
  return ddbst__normalize_utf8proc(form, v, n, out);
}

long ddbst__normalize_utf8proc(int form, const char *v, size_t n, char *out) {
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
