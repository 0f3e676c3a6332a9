/* base64url (RFC 4648 §5, no padding) of cursors: see b64url.c for why it
 * is ddbst's own rather than libsodium's. */
#ifndef DDBST_B64URL_H
#define DDBST_B64URL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes ddbst__b64url_decode may write past the decoded ones (its output
 * buffer's slack): it stores six bytes as one word of eight. */
enum { DDBST__B64URL_SLACK = 2 };

/* Writes the text of in[0..n) and a NUL to `out` (4n/3 + 2 bytes);
 * returns the text's length. */
size_t ddbst__b64url_encode(const uint8_t *in, size_t n, char *out);

/* Decodes in[0..n) into `out` (3n/4 + DDBST__B64URL_SLACK bytes). Returns
 * 0; 1 with *bad the offset of a character outside the alphabet; 2 for a
 * length or last character that no whole bytes give. */
int ddbst__b64url_decode(const char *in, size_t n, uint8_t *out,
                         size_t *out_len, size_t *bad);

#endif
