/* Streaming JSON output into a ddbst_buf: string escaping. */
#include <string.h>

#include "base/internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define ONES UINT64_C(0x0101010101010101)

/* Whether any of the eight bytes in `w` needs an escape: '"', '\\' or a
 * control character (the usual SWAR byte tests). */
static int needs_escape(uint64_t w) {
  uint64_t quote = w ^ (ONES * '"'), slash = w ^ (ONES * '\\');
  uint64_t hit = ((quote - ONES) & ~quote) | ((slash - ONES) & ~slash) |
                 ((w - ONES * 0x20) & ~w);
  return (hit & ONES * 0x80) != 0;
}

#if defined(__SSE2__)
/* The same test on sixteen bytes: one compare per kind of byte. */
static int needs_escape16(const char *s) {
  __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
  __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
  __m128i hit = _mm_or_si128(
      ctl, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                        _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return _mm_movemask_epi8(hit) != 0;
}
#endif

/* Length of the leading run of s[0..n) that needs no escape. Many bytes at
 * a time, since keys and values are mostly plain text and this runs on every
 * string of every body; never reads outside s[0..n). */
size_t ddbst__json_plain_len(const char *s, size_t n) {
  size_t i = 0;
  uint64_t w;
#if defined(__SSE2__)
  if (n >= 16) {
    for (; i + 16 <= n; i += 16)
      if (needs_escape16(s + i)) goto bytewise;
    /* the tail, overlapping checked bytes */
    if (i == n || !needs_escape16(s + n - 16)) return n;
    goto bytewise;
  }
#endif
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      memcpy(&w, s + i, 8);
      if (needs_escape(w)) goto bytewise;
    }
    memcpy(&w, s + n - 8, 8); /* the tail, overlapping checked bytes */
    if (!needs_escape(w)) return n;
  } else if (n >= 4) { /* short names and values: the first and last four */
    uint32_t head, tail;
    memcpy(&head, s, 4);
    memcpy(&tail, s + n - 4, 4);
    if (!needs_escape((uint64_t)head << 32 | tail)) return n;
  }
bytewise:
  while (i < n && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
    i++;
  return i;
}

int ddbst__json_string(ddbst_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = ddbst__json_plain_len(s, n);
  if (run == n) { /* the common case: copy it whole */
    if (ddbst__buf_reserve(b, n + 2)) return DDBST_ENOMEM;
    char *o = b->data + b->len;
    *o++ = '"';
    ddbst__copy(o, s, n);
    o[n] = '"';
    b->len += n + 2;
    b->data[b->len] = '\0';
    return 0;
  }
  /* Worst case every byte becomes \u00XX: reserve once, then write freely. */
  if (n > (SIZE_MAX - 2) / 6 || ddbst__buf_reserve(b, n * 6 + 2))
    return DDBST_ENOMEM;
  char *o = b->data + b->len;
  *o++ = '"';
  for (size_t i = 0; i < n;) {
    memcpy(o, s + i, run);
    o += run;
    i += run;
    if (i == n) break;
    unsigned char c = (unsigned char)s[i++];
    *o++ = '\\';
    switch (c) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '\n': *o++ = 'n'; break;
    case '\r': *o++ = 'r'; break;
    case '\t': *o++ = 't'; break;
    case '\b': *o++ = 'b'; break;
    case '\f': *o++ = 'f'; break;
    default:
      *o++ = 'u'; *o++ = '0'; *o++ = '0';
      *o++ = hex[c >> 4]; *o++ = hex[c & 15];
    }
    run = ddbst__json_plain_len(s + i, n - i);
  }
  *o++ = '"';
  b->len = (size_t)(o - b->data);
  b->data[b->len] = '\0';
  return 0;
}

/* A number DynamoDB accepted (ddbst__number_check's grammar) as JSON: its
 * leading zeros dropped ("007" is 7), the rest exactly as written. */
int ddbst__json_number(ddbst_buf *b, const char *s, size_t n) {
  size_t i = n && s[0] == '-' ? 1 : 0, j = i;
  while (j + 1 < n && s[j] == '0' && s[j + 1] >= '0' && s[j + 1] <= '9') j++;
  if (i && ddbst__buf_putc(b, '-')) return DDBST_ENOMEM;
  return ddbst__buf_append(b, s + j, n - j);
}
