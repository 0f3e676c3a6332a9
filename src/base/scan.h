/* One pass over a value for what keys and JSON ask of it (keys.c, and
 * item.c, which records the answer with the value when it is cheap). */
#ifndef DDBST_SCAN_H
#define DDBST_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* What a value holds that matters to a key and to JSON: the delimiter's
 * first byte (so perhaps the delimiter), a byte JSON must escape. KNOWN
 * marks an answer recorded with a value (ddbst__val.scan): unset, nobody
 * has looked. */
enum { DDBST__SCAN_DELIM0 = 1, DDBST__SCAN_ESCAPE = 2, DDBST__SCAN_KNOWN = 4 };

static inline unsigned ddbst__scan_word(uint64_t w, unsigned char d0) {
  /* the SWAR zero-byte test on w ^ byte, and w < 0x20 */
  const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
  uint64_t x = w ^ (ones * d0), q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  uint64_t esc =
      ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
  return ((((x - ones) & ~x) & high) ? DDBST__SCAN_DELIM0 : 0) |
         ((esc & high) ? DDBST__SCAN_ESCAPE : 0);
}

#if defined(__SSE2__)
static inline unsigned ddbst__scan_vec(__m128i v, __m128i d0) {
  __m128i esc = _mm_or_si128(
      _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v),
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return (_mm_movemask_epi8(_mm_cmpeq_epi8(v, d0)) ? DDBST__SCAN_DELIM0 : 0) |
         (_mm_movemask_epi8(esc) ? DDBST__SCAN_ESCAPE : 0);
}

static inline unsigned ddbst__scan16(const char *s, __m128i d0) {
  return ddbst__scan_vec(_mm_loadu_si128((const __m128i *)(const void *)s),
                         d0);
}
#endif

/* Both questions in one pass over the short values keys are made of: inline
 * and a word at a time, where a libc memchr per facet and a second scan in
 * the JSON writer cost more than the bytes. Its idea of "JSON must escape"
 * is ddbst__json_string's (test_keys pins the two together). */
static inline unsigned ddbst__scan(const char *s, size_t n, unsigned char d0) {
  unsigned r = 0;
  size_t i = 0;
#if defined(__SSE2__)
  if (n >= 16) {
    __m128i k = _mm_set1_epi8((char)d0);
    for (; i + 16 <= n; i += 16) r |= ddbst__scan16(s + i, k);
    return i < n ? r | ddbst__scan16(s + n - 16, k) : r;
  }
#endif
  uint64_t w;
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      memcpy(&w, s + i, 8);
      r |= ddbst__scan_word(w, d0);
    }
    memcpy(&w, s + n - 8, 8); /* the tail, overlapping checked bytes */
    return r | ddbst__scan_word(w, d0);
  }
  if (n >= 4) {
    uint32_t head, tail;
    memcpy(&head, s, 4);
    memcpy(&tail, s + n - 4, 4);
    return ddbst__scan_word((uint64_t)head << 32 | tail, d0);
  }
  for (; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == d0) r |= DDBST__SCAN_DELIM0;
    if (c < 0x20 || c == '"' || c == '\\') r |= DDBST__SCAN_ESCAPE;
  }
  return r;
}

#endif
