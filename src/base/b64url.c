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

int ddbst__b64url_simd = 2;

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

#if defined(__SSE2__) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define B64_SIMD 1

/* Characters to bytes many a step, with the byte shuffle of SSSE3 (16 a
 * step) or AVX2 (32), after the method of Muła and Lemire's base64
 * decoders, the tables made here for the URL-safe alphabet. A character is
 * valid when the bits of its low nibble's class and of its high nibble's
 * class share none: bit 5 is set for every low nibble and for the high
 * nibbles no character has; bits 0-4 for the high nibbles 2, 3, 4 and 6,
 * 5, 7, each set in the low nibbles invalid under it. Its value is itself
 * plus an offset looked up by its high nibble; '_' shares 5 with P-Z, so
 * it looks up 13, a nibble no valid character has. Four values (a 32-bit
 * lane) become 24 bits, then three bytes, highest first. */
#define B64_HI_CLASS                                                           \
  0x20, 0x20, 0x01, 0x02, 0x04, 0x08, 0x04, 0x10, 0x20, 0x20, 0x20, 0x20,      \
      0x20, 0x20, 0x20, 0x20
#define B64_LO_CLASS                                                           \
  0x25, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x23, 0x3b,      \
      0x3b, 0x3a, 0x3b, 0x33
#define B64_OFFSET                                                             \
  0, 0, 62 - '-', 52 - '0', -'A', -'A', 26 - 'a', 26 - 'a', 0, 0, 0, 0, 0,     \
      63 - '_', 0, 0
#define B64_ORDER 2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1

/* 16 characters into 12 bytes at out (16 written); 0 when one is outside
 * the alphabet (nothing written then). */
__attribute__((target("ssse3"))) static inline int b64_block16(__m128i c,
                                                               uint8_t *out) {
  const __m128i nibble = _mm_set1_epi8(0x0f);
  __m128i hi = _mm_and_si128(_mm_srli_epi32(c, 4), nibble);
  __m128i lo = _mm_and_si128(c, nibble);
  __m128i bad =
      _mm_and_si128(_mm_shuffle_epi8(_mm_setr_epi8(B64_HI_CLASS), hi),
                    _mm_shuffle_epi8(_mm_setr_epi8(B64_LO_CLASS), lo));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xffff)
    return 0;
  __m128i at = _mm_or_si128(
      hi, _mm_and_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('_')), _mm_set1_epi8(8)));
  __m128i v = _mm_add_epi8(c, _mm_shuffle_epi8(_mm_setr_epi8(B64_OFFSET), at));
  v = _mm_madd_epi16(_mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140)),
                     _mm_set1_epi32(0x00011000));
  _mm_storeu_si128((__m128i *)(void *)out,
                   _mm_shuffle_epi8(v, _mm_setr_epi8(B64_ORDER)));
  return 1;
}

/* The last r characters (0 < r < 16) of u[0..n), n >= 16, as one block:
 * the last 16 loaded, shifted down by 16 - r, and the rest filled with 'A'
 * (value 0), so that the bits a last character leaves over land in the byte
 * after the last whole one (ddbst__b64url_decode checks it is 0). */
__attribute__((target("ssse3"))) static inline int
b64_last(const unsigned char *u, size_t n, size_t r, uint8_t *out) {
  static const signed char shift[32] = {
      0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,
      11,   12,   13,   14,   15,   -128, -128, -128, -128, -128, -128,
      -128, -128, -128, -128, -128, -128, -128, -128, -128, -128};
  static const char pad[32] = {0,   0,   0,   0,   0,   0,   0,   0,
                               0,   0,   0,   0,   0,   0,   0,   0,
                               'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A',
                               'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A'};
  __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(u + n - 16));
  c = _mm_shuffle_epi8(
      c, _mm_loadu_si128((const __m128i *)(const void *)(shift + 16 - r)));
  c = _mm_or_si128(
      c, _mm_loadu_si128((const __m128i *)(const void *)(pad + 16 - r)));
  return b64_block16(c, out);
}

/* The characters of u[0..n), n >= 16, taken 16 a step while they are in
 * the alphabet: how many (n when all), their bytes at out[0..). */
__attribute__((target("ssse3"))) static size_t
b64_decode_ssse3(const unsigned char *u, size_t n, uint8_t *out) {
  size_t i = 0, o = 0;
  for (; i + 16 <= n; i += 16, o += 12)
    if (!b64_block16(_mm_loadu_si128((const __m128i *)(const void *)(u + i)),
                     out + o))
      return i;
  return i == n || b64_last(u, n, n - i, out + o) ? n : i;
}

/* The same, 32 a step, then 16. */
__attribute__((target("avx2"))) static size_t
b64_decode_avx2(const unsigned char *u, size_t n, uint8_t *out) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i hi_class = _mm256_setr_epi8(B64_HI_CLASS, B64_HI_CLASS);
  const __m256i lo_class = _mm256_setr_epi8(B64_LO_CLASS, B64_LO_CLASS);
  const __m256i offset = _mm256_setr_epi8(B64_OFFSET, B64_OFFSET);
  const __m256i order = _mm256_setr_epi8(B64_ORDER, B64_ORDER);
  const __m256i under = _mm256_set1_epi8('_'), eight = _mm256_set1_epi8(8);
  const __m256i pair = _mm256_set1_epi32(0x01400140);
  const __m256i quad = _mm256_set1_epi32(0x00011000);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
  size_t i = 0, o = 0;
  for (; i + 32 <= n; i += 32, o += 24) {
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(u + i));
    __m256i hi = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
    __m256i lo = _mm256_and_si256(c, nibble);
    __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(hi_class, hi),
                                   _mm256_shuffle_epi8(lo_class, lo));
    if (_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(bad, _mm256_setzero_si256())) != -1)
      return i;
    __m256i at = _mm256_or_si256(
        hi, _mm256_and_si256(_mm256_cmpeq_epi8(c, under), eight));
    __m256i v = _mm256_add_epi8(c, _mm256_shuffle_epi8(offset, at));
    v = _mm256_madd_epi16(_mm256_maddubs_epi16(v, pair), quad);
    v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, order), lanes);
    _mm256_storeu_si256((__m256i *)(void *)(out + o), v);
  }
  if (i + 16 <= n) {
    if (!b64_block16(_mm_loadu_si128((const __m128i *)(const void *)(u + i)),
                     out + o))
      return i;
    i += 16;
    o += 12;
  }
  return i == n || b64_last(u, n, n - i, out + o) ? n : i;
}

/* 2 for AVX2, 1 for SSSE3, 0 for neither (or ddbst__b64url_simd's cap). */
static int b64_level(void) {
  int cap = ddbst__b64url_simd;
  if (cap >= 2 && __builtin_cpu_supports("avx2")) return 2;
  return cap >= 1 && __builtin_cpu_supports("ssse3");
}
#endif

int ddbst__b64url_decode(const char *in, size_t n, uint8_t *out,
                         size_t *out_len, size_t *bad) {
  const unsigned char *u = (const unsigned char *)in;
  size_t i = 0, o = 0;
#ifdef B64_SIMD
  if (n >= 16) {
    int level = b64_level();
    i = level == 2   ? b64_decode_avx2(u, n, out)
        : level == 1 ? b64_decode_ssse3(u, n, out)
                     : 0;
    o = i / 4 * 3;
    if (i == n) {
      /* a lone last character, or a last one whose bits left over (in
       * the byte after the last, b64_last) are not zero */
      static const unsigned char extra[4] = {0, 0, 1, 2};
      o += extra[n % 4];
      if (n % 4 == 1 || (n % 4 && out[o])) return 2;
      *out_len = o;
      return 0;
    }
  }
#endif
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

