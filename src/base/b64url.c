/* base64url of cursors, both ways, many characters a step.
 *
 * RFC 4648 §5 without padding, written here rather than taken from
 * libsodium (which DESIGN.md names): its constant-time coder spent about 80
 * instructions a character, a third of opening a cursor, and constant time
 * protects nothing here, since a cursor's text is public and its secret is
 * the key. Decoding stays strict: the alphabet only (no padding, no
 * spaces, no byte from 0x80 up), and no length or last character that whole
 * bytes cannot give. */
#include <string.h>

#include "base/b64url.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define B64_WORDS 1
/* Every two characters, by the 12 bits they encode, as the 16-bit word a
 * little-endian store writes them with: a group of three bytes is two loads
 * and one store. (Written out by the preprocessor: 8 KiB of constants.) */
#define B64_CHAR(x)                                                            \
  ((x) < 26   ? 'A' + (x)                                                      \
   : (x) < 52 ? 'a' + (x) - 26                                                 \
   : (x) < 62 ? '0' + (x) - 52                                                 \
   : (x) == 62 ? '-'                                                           \
               : '_')
#define B64_PAIR(h, l) (uint16_t)(B64_CHAR(h) | B64_CHAR(l) << 8)
#define B64_P4(h, l)                                                           \
  B64_PAIR(h, l), B64_PAIR(h, l + 1), B64_PAIR(h, l + 2), B64_PAIR(h, l + 3)
#define B64_P16(h, l)                                                          \
  B64_P4(h, l), B64_P4(h, l + 4), B64_P4(h, l + 8), B64_P4(h, l + 12)
#define B64_P64(h) B64_P16(h, 0), B64_P16(h, 16), B64_P16(h, 32), B64_P16(h, 48)
#define B64_H4(h) B64_P64(h), B64_P64(h + 1), B64_P64(h + 2), B64_P64(h + 3)
#define B64_H16(h) B64_H4(h), B64_H4(h + 4), B64_H4(h + 8), B64_H4(h + 12)
static const uint16_t b64_pairs[4096] = {B64_H16(0), B64_H16(16), B64_H16(32),
                                         B64_H16(48)};
#endif

size_t ddbst__b64url_encode(const uint8_t *in, size_t n, char *out) {
  char *o = out;
  size_t i = 0;
#ifdef B64_WORDS
  /* six bytes (read as a word of eight) give eight characters */
  for (; i + 8 <= n; i += 6, o += 8) {
    uint64_t x;
    memcpy(&x, in + i, 8);
    x = __builtin_bswap64(x); /* bytes i .. i+5 in the high 48 bits */
    uint64_t chars = (uint64_t)b64_pairs[x >> 52] |
                     (uint64_t)b64_pairs[x >> 40 & 0xfff] << 16 |
                     (uint64_t)b64_pairs[x >> 28 & 0xfff] << 32 |
                     (uint64_t)b64_pairs[x >> 16 & 0xfff] << 48;
    memcpy(o, &chars, 8);
  }
  for (; i + 3 <= n; i += 3, o += 4) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    uint32_t chars = (uint32_t)b64_pairs[v >> 12] |
                     (uint32_t)b64_pairs[v & 0xfff] << 16;
    memcpy(o, &chars, 4);
  }
#else
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    *o++ = b64_alphabet[v >> 18];
    *o++ = b64_alphabet[v >> 12 & 63];
    *o++ = b64_alphabet[v >> 6 & 63];
    *o++ = b64_alphabet[v & 63];
  }
#endif
  if (n - i == 1) {
    *o++ = b64_alphabet[in[i] >> 2];
    *o++ = b64_alphabet[(in[i] & 3) << 4];
  } else if (n - i == 2) {
    uint32_t v = (uint32_t)in[i] << 8 | in[i + 1];
    *o++ = b64_alphabet[v >> 10];
    *o++ = b64_alphabet[v >> 4 & 63];
    *o++ = b64_alphabet[(v & 15) << 2];
  }
  *o = '\0';
  return (size_t)(o - out);
}

/* The value of byte c as a base64url character, -1 for none. */
#define B64_VALUE(c)                                                           \
  ((c) >= 'A' && (c) <= 'Z'   ? (c) - 'A'                                      \
   : (c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 26                                 \
   : (c) >= '0' && (c) <= '9' ? (c) - '0' + 52                                 \
   : (c) == '-'               ? 62                                             \
   : (c) == '_'               ? 63                                             \
                              : -1)
/* Each byte's 6 bits shifted to where they go in a group of four characters
 * (table 0 for the first, the highest bits), or bit 31 for a byte outside
 * the alphabet: a group is four loads and three ORs. */
#define B64_AT(c, shift)                                                       \
  (B64_VALUE(c) < 0 ? UINT32_C(0x80000000) : (uint32_t)B64_VALUE(c) << (shift))
#define B64_4(c, s)                                                            \
  B64_AT(c, s), B64_AT(c + 1, s), B64_AT(c + 2, s), B64_AT(c + 3, s)
#define B64_16(c, s)                                                           \
  B64_4(c, s), B64_4(c + 4, s), B64_4(c + 8, s), B64_4(c + 12, s)
#define B64_64(c, s)                                                           \
  B64_16(c, s), B64_16(c + 16, s), B64_16(c + 32, s), B64_16(c + 48, s)
#define B64_256(s) B64_64(0, s), B64_64(64, s), B64_64(128, s), B64_64(192, s)
static const uint32_t b64_bits[4][256] = {
    {B64_256(18)}, {B64_256(12)}, {B64_256(6)}, {B64_256(0)}};

static uint32_t b64_group(const unsigned char *u) {
  return b64_bits[0][u[0]] | b64_bits[1][u[1]] | b64_bits[2][u[2]] |
         b64_bits[3][u[3]];
}

int ddbst__b64url_decode(const char *in, size_t n, uint8_t *out,
                         size_t *out_len, size_t *bad) {
  const unsigned char *u = (const unsigned char *)in;
  size_t i = 0, o = 0;
#ifdef B64_WORDS
  /* two groups of four characters: six bytes, stored as one word */
  for (; i + 8 <= n; i += 8, o += 6) {
    uint32_t v = b64_group(u + i), w = b64_group(u + i + 4);
    if ((v | w) >> 31) break; /* the loops below find which */
    uint64_t six = __builtin_bswap64((uint64_t)v << 40 | (uint64_t)w << 16);
    memcpy(out + o, &six, 8);
  }
#endif
  /* whole groups of four characters: three bytes */
  for (; i + 4 <= n; i += 4) {
    uint32_t v = b64_group(u + i);
    if (v >> 31) break; /* the loop below finds which */
    out[o++] = (uint8_t)(v >> 16);
    out[o++] = (uint8_t)(v >> 8);
    out[o++] = (uint8_t)v;
  }
  uint32_t acc = 0;
  int bits = 0;
  for (; i < n; i++) {
    uint32_t v = b64_bits[3][u[i]];
    if (v >> 31) {
      *bad = i;
      return 1;
    }
    acc = acc << 6 | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  /* a lone last character, or bits of no byte that are not zero */
  if (bits >= 6 || (acc & ((1u << bits) - 1)) != 0) return 2;
  *out_len = o;
  return 0;
}

