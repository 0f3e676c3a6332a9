/* base64url (RFC 4648 §5, no padding) of cursors: see b64url.c for why it
 * is ddbst's own rather than libsodium's. */
#ifndef DDBST_B64URL_H
#define DDBST_B64URL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes ddbst__b64url_decode may write past the decoded ones (its output
 * buffer's slack): it stores 24 bytes as 32, the last 1 to 11 as 16, and 6
 * as 8. */
enum { DDBST__B64URL_SLACK = 16 };

/* The widest SIMD ddbst__b64url_decode may use where the CPU has it: 2
 * (AVX2, the default), 1 (SSSE3) or 0 (the portable path). For the unit
 * tests, which hold each to the portable one; not to be changed while
 * another thread decodes. */
extern int ddbst__b64url_simd;

/* Writes the text of in[0..n) and a NUL to `out` (4n/3 + 2 bytes);
 * returns the text's length. */
size_t ddbst__b64url_encode(const uint8_t *in, size_t n, char *out);

/* Decodes in[0..n) into `out` (3n/4 + DDBST__B64URL_SLACK bytes). Returns
 * 0; 1 with *bad the offset of a character outside the alphabet; 2 for a
 * length or last character that no whole bytes give. */
int ddbst__b64url_decode(const char *in, size_t n, uint8_t *out,
                         size_t *out_len, size_t *bad);

#endif
