/* Every byte trick of the library, in one place: SSE2 vectors and SWAR
 * words (eight bytes in a uint64_t), each beside its portable twin. The
 * `portable` preset builds without SSE2 (-U__SSE2__); tests/unit/test_bytes.c
 * checks both twins against a byte-at-a-time reference, at every length and
 * every byte value. None of it knows what the bytes mean to DynamoDB: only
 * ASCII's and JSON's rules.
 *
 * Naming: a primitive P with two forms has P_swar (every build) and
 * P_sse2 (SSE2 builds), and P, which is the one the build has. All are
 * inline: they run per value on the hot path, where a call costs as much as
 * the bytes. Inputs are (pointer, length) views; nothing reads outside
 * s[0..n) unless its comment says so (ddbst__copy_padded). */
#ifndef DDBST_BYTES_H
#define DDBST_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 0x01 in every byte: times b, b in every byte. */
#define DDBST__ONES UINT64_C(0x0101010101010101)
/* the high bit of every byte */
#define DDBST__HIGHS (DDBST__ONES * 0x80)

#if defined(__SSE2__)
static inline __m128i ddbst__load16(const void *p) {
  return _mm_loadu_si128((const __m128i *)p);
}
#endif

/* ------------------------------------------------------- short copies */

/* memcpy for the short copies bodies are made of (names, IDs, key parts):
 * a call into libc and its size dispatch cost more than copying 20 bytes as
 * two overlapping words. */
static inline void ddbst__copy(char *d, const void *src, size_t n) {
  const char *s = (const char *)src;
  if (n >= 8 && n <= 16) {
    uint64_t head, tail;
    memcpy(&head, s, 8);
    memcpy(&tail, s + n - 8, 8);
    memcpy(d, &head, 8);
    memcpy(d + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t head, tail;
    memcpy(&head, s, 4);
    memcpy(&tail, s + n - 4, 4);
    memcpy(d, &head, 4);
    memcpy(d + n - 4, &tail, 4);
  } else if (n > 16) {
    memcpy(d, s, n);
  } else if (n) { /* 1 to 3 */
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  }
}

/* Every ddbst_buf and every block of the model's arena is allocated with
 * DDBST__PAD bytes past its capacity, so that a copy between them may move a
 * fixed 32 bytes when the text is shorter: key parts and names, nearly all
 * under 32 bytes, then cost two loads and two stores. */
enum { DDBST__PAD = 32 };

/* ddbst__copy for `s` and `d` inside a ddbst_buf's data or the model's arena
 * (never the caller's memory, which has no pad): the bytes past n that it
 * writes are garbage the writer overwrites or leaves past the buffer's
 * length. */
static inline void ddbst__copy_padded(char *d, const char *s, size_t n) {
  if (n <= 32)
    memcpy(d, s, 32);
  else
    memcpy(d, s, n);
}

/* ddbst__copy_padded for the plans' texts (put_plan.c, update_plan.c):
 * up to 64 bytes in one or two fixed copies (a body's head,
 * `{"TableName":"t","Item":{"PK":{"S":"ORG#`, is one), longer ones by
 * libc; the bytes read and written past n stay within the 32 of the pad. */
static inline void ddbst__copy_text64(char *d, const char *s, size_t n) {
  if (n <= 32) {
    memcpy(d, s, 32);
  } else if (n <= 64) {
    memcpy(d, s, 32);
    memcpy(d + 32, s + 32, 32);
  } else {
    memcpy(d, s, n);
  }
}

/* ddbst__copy_padded for text of any length in fixed 32-byte copies, no
 * call into libc (a plan's texts: a guard item's end is 95 bytes): reads
 * and writes up to 31 bytes past n, and 32 when n is 0. Each 32 bytes are read before any is
 * written, as `s` may lie before `d` in the same buffer (a key copied from
 * earlier in a body): the bytes a copy changes are past s + n. */
static inline void ddbst__copy_chunks_swar(char *d, const char *s,
                                           size_t n) {
  size_t i = 0;
  do { /* nearly every text is one chunk */
    char w[32];
    memcpy(w, s + i, 32);
    memcpy(d + i, w, 32);
    i += 32;
  } while (i < n);
}

#if defined(__SSE2__)
/* The same in two registers: in a writer with many values live, the
 * portable form's 32-byte temporary was given a place on the stack, a
 * store and a load more per chunk. */
static inline void ddbst__copy_chunks_sse2(char *d, const char *s,
                                           size_t n) {
  /* the first chunk unconditionally: one compare for the usual text */
  __m128i a = ddbst__load16(s), b = ddbst__load16(s + 16);
  _mm_storeu_si128((__m128i *)(void *)d, a);
  _mm_storeu_si128((__m128i *)(void *)(d + 16), b);
  for (size_t i = 32; i < n; i += 32) {
    a = ddbst__load16(s + i);
    b = ddbst__load16(s + i + 16);
    _mm_storeu_si128((__m128i *)(void *)(d + i), a);
    _mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
  }
}
#endif

static inline void ddbst__copy_chunks(char *d, const char *s, size_t n) {
#if defined(__SSE2__)
  ddbst__copy_chunks_sse2(d, s, n);
#else
  ddbst__copy_chunks_swar(d, s, n);
#endif
}

/* memcmp(a, b, n) == 0 for the short texts compared per request (enum
 * values, key literals): two overlapping words, not a call into libc. */
static inline int ddbst__same_bytes(const char *a, const char *b, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + n - 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, a, 4);
    memcpy(&a1, a + n - 4, 4);
    memcpy(&b0, b, 4);
    memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n < 4) {
    for (size_t i = 0; i < n; i++)
      if (a[i] != b[i]) return 0;
    return 1;
  }
  return memcmp(a, b, n) == 0;
}

/* ------------------------------------------ ASCII without NUL: the run */

/* Whether the eight bytes of `w` hold a NUL or a byte from 0x80 up: the
 * high bit, or the zero-byte test ((w - 1) & ~w per byte: exact for "is
 * there one", whatever the borrows do to the bytes above it). */
static inline int ddbst__word_not_ascii(uint64_t w) {
  return ((w | ((w - DDBST__ONES) & ~w)) & DDBST__HIGHS) != 0;
}

#if defined(__SSE2__)
static inline int ddbst__vec_not_ascii(__m128i v) {
  return _mm_movemask_epi8(
             _mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128()))) != 0;
}
#endif

/* A leading run of s[0..n) that is ASCII without NUL: n when all of it is,
 * else a length no longer than the run (0 below 4 bytes; the start of the
 * block that holds the first bad byte above), from which a byte-at-a-time
 * check (ddbst__utf8_check) takes over. Whole words first, the tail as an
 * overlapping word: most values are all ASCII. */
static inline size_t ddbst__ascii_run_swar(const char *s, size_t n) {
  size_t i = 0;
  uint64_t w;
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      memcpy(&w, s + i, 8);
      if (ddbst__word_not_ascii(w)) return i;
    }
    memcpy(&w, s + n - 8, 8);
    return ddbst__word_not_ascii(w) ? i : n;
  }
  if (n >= 4) {
    uint32_t head, tail;
    memcpy(&head, s, 4);
    memcpy(&tail, s + n - 4, 4);
    return ddbst__word_not_ascii((uint64_t)head << 32 | tail) ? 0 : n;
  }
  return 0;
}

#if defined(__SSE2__)
static inline size_t ddbst__ascii_run_sse2(const char *s, size_t n) {
  if (n < 16) return ddbst__ascii_run_swar(s, n);
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    if (ddbst__vec_not_ascii(ddbst__load16(s + i))) return i;
  return i == n || !ddbst__vec_not_ascii(ddbst__load16(s + n - 16)) ? n : i;
}
#endif

static inline size_t ddbst__ascii_run(const char *s, size_t n) {
#if defined(__SSE2__)
  return ddbst__ascii_run_sse2(s, n);
#else
  return ddbst__ascii_run_swar(s, n);
#endif
}

/* ------------------------------------------ ASCII without NUL: the copy */

/* Copies the leading run of src[0..n) that is ASCII without NUL to dst and
 * returns its length (n when all of it is). As with ddbst__ascii_run, a
 * shorter run may be reported than there is: the rest is for
 * ddbst__utf8_check to judge from there. dst has room for n bytes; nothing
 * is written past dst[n - 1]. The _long forms take n >= 8 (_swar) and
 * n >= 16 (_sse2). */
static inline size_t ddbst__ascii_copy_long_swar(char *dst, const char *src,
                                                 size_t n) {
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, src + i, 8);
    if (ddbst__word_not_ascii(w)) return i;
    memcpy(dst + i, &w, 8);
  }
  if (i < n) { /* the tail, overlapping copied bytes */
    memcpy(&w, src + n - 8, 8);
    if (ddbst__word_not_ascii(w)) return i;
    memcpy(dst + n - 8, &w, 8);
  }
  return n;
}

#if defined(__SSE2__)
static inline size_t ddbst__ascii_copy_long_sse2(char *dst, const char *src,
                                                 size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v = ddbst__load16(src + i);
    if (ddbst__vec_not_ascii(v)) return i;
    _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
  }
  if (i < n) { /* the tail, overlapping copied bytes */
    __m128i v = ddbst__load16(src + n - 16);
    if (ddbst__vec_not_ascii(v)) return i;
    _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), v);
  }
  return n;
}
#endif

/* n > 16: ddbst__ascii_copy copies shorter runs itself. */
static inline size_t ddbst__ascii_copy_long(char *dst, const char *src,
                                            size_t n) {
#if defined(__SSE2__)
  return ddbst__ascii_copy_long_sse2(dst, src, n);
#else
  return ddbst__ascii_copy_long_swar(dst, src, n);
#endif
}

/* Up to 16 bytes, the length of most IDs and names, as at most two
 * overlapping words: all or nothing from 4 bytes up (0 or n), byte by byte
 * below. */
static inline size_t ddbst__ascii_copy(char *dst, const char *src, size_t n) {
  if (n > 16) return ddbst__ascii_copy_long(dst, src, n);
  if (n >= 8) { /* two words, overlapping when n < 16 */
    uint64_t head, tail;
    memcpy(&head, src, 8);
    memcpy(&tail, src + n - 8, 8);
    if (ddbst__word_not_ascii(head) | ddbst__word_not_ascii(tail)) return 0;
    memcpy(dst, &head, 8);
    memcpy(dst + n - 8, &tail, 8);
    return n;
  }
  if (n >= 4) {
    uint32_t head, tail;
    memcpy(&head, src, 4);
    memcpy(&tail, src + n - 4, 4);
    if (ddbst__word_not_ascii((uint64_t)head << 32 | tail)) return 0;
    memcpy(dst, &head, 4);
    memcpy(dst + n - 4, &tail, 4);
    return n;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    if (c == 0 || c >= 0x80) return i;
    dst[i] = (char)c;
  }
  return n;
}

/* ---------------------------------------------- needs a JSON escape */

/* The one definition, in each form: '"', '\\' and every control character
 * (below 0x20) need an escape in a JSON string; every other byte of valid
 * UTF-8 goes as it is. The JSON writer (ddbst__json_string) and the key
 * scan (ddbst__scan) both ask it here. */
static inline int ddbst__byte_needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

/* Whether any of the eight bytes in `w` needs one: the zero-byte test on
 * w ^ '"' and on w ^ '\\', and w - 0x20 borrowing (w < 0x20). */
static inline int ddbst__word_needs_escape(uint64_t w) {
  uint64_t q = w ^ (DDBST__ONES * '"'), b = w ^ (DDBST__ONES * '\\');
  uint64_t hit = ((q - DDBST__ONES) & ~q) | ((b - DDBST__ONES) & ~b) |
                 ((w - DDBST__ONES * 0x20) & ~w);
  return (hit & DDBST__HIGHS) != 0;
}

#if defined(__SSE2__)
/* 0xFF in each byte of `v` that needs one. x = v ^ 0x02 is at most 0x20
 * (min(x, 0x20) == x, unsigned) exactly for a control character (0x00-0x1F
 * stay below 0x20) and for '"' (0x22 becomes 0x20; no other byte falls to
 * 0x20 or below): one compare for both, and one for '\\'. */
static inline __m128i ddbst__vec_escapes(__m128i v) {
  __m128i x = _mm_xor_si128(v, _mm_set1_epi8(0x02));
  __m128i ctl_quote = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x20)), x);
  return _mm_or_si128(ctl_quote, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
}
#endif

/* Length of the leading run of s[0..n) that needs no escape, exactly (n
 * when nothing does): many bytes at a time, since keys and values are
 * mostly plain text and the writer asks it of every string of every body;
 * from the block that holds an escape, byte by byte. */
static inline size_t ddbst__plain_run_bytes(const char *s, size_t i,
                                            size_t n) {
  while (i < n && !ddbst__byte_needs_escape((unsigned char)s[i])) i++;
  return i;
}

static inline size_t ddbst__plain_run_swar(const char *s, size_t n) {
  size_t i = 0;
  uint64_t w;
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      memcpy(&w, s + i, 8);
      if (ddbst__word_needs_escape(w)) return ddbst__plain_run_bytes(s, i, n);
    }
    memcpy(&w, s + n - 8, 8); /* the tail, overlapping checked bytes */
    if (!ddbst__word_needs_escape(w)) return n;
  } else if (n >= 4) { /* short names and values: the first and last four */
    uint32_t head, tail;
    memcpy(&head, s, 4);
    memcpy(&tail, s + n - 4, 4);
    if (!ddbst__word_needs_escape((uint64_t)head << 32 | tail)) return n;
  }
  return ddbst__plain_run_bytes(s, i, n);
}

#if defined(__SSE2__)
static inline size_t ddbst__plain_run_sse2(const char *s, size_t n) {
  if (n < 16) return ddbst__plain_run_swar(s, n);
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    if (_mm_movemask_epi8(ddbst__vec_escapes(ddbst__load16(s + i))))
      return ddbst__plain_run_bytes(s, i, n);
  /* the tail, overlapping checked bytes */
  if (i == n ||
      !_mm_movemask_epi8(ddbst__vec_escapes(ddbst__load16(s + n - 16))))
    return n;
  return ddbst__plain_run_bytes(s, i, n);
}
#endif

static inline size_t ddbst__plain_run(const char *s, size_t n) {
#if defined(__SSE2__)
  return ddbst__plain_run_sse2(s, n);
#else
  return ddbst__plain_run_swar(s, n);
#endif
}

/* ------------------------------- JSON text: ASCII without a backslash */

/* Whether any of the eight bytes of `w` is 0x80 or above or a backslash:
 * the high bit, and the zero-byte test on w ^ '\\'. */
static inline int ddbst__word_text_stop(uint64_t w) {
  uint64_t b = w ^ (DDBST__ONES * '\\');
  return ((w | ((b - DDBST__ONES) & ~b)) & DDBST__HIGHS) != 0;
}

/* Length of the leading run of s[0..n) that is ASCII without a backslash,
 * exactly (n when all of it is): what a JSON text's check (json/text.c)
 * skips before it looks at an escape or a multi-byte character. A whole
 * document goes through it before every parse, so it takes 16 bytes a
 * step where it can. */
static inline size_t ddbst__text_run_bytes(const char *s, size_t i, size_t n) {
  while (i < n && (unsigned char)s[i] < 0x80 && s[i] != '\\') i++;
  return i;
}

static inline size_t ddbst__text_run_swar(const char *s, size_t n) {
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    if (ddbst__word_text_stop(w)) break;
  }
  return ddbst__text_run_bytes(s, i, n);
}

#if defined(__SSE2__)
/* The run from s[i], 16 bytes a step, then a byte at a time. */
static inline size_t ddbst__text_run_sse2_16(const char *s, size_t i,
                                             size_t n) {
  const __m128i bs = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    __m128i a = ddbst__load16(s + i);
    if (_mm_movemask_epi8(_mm_or_si128(a, _mm_cmpeq_epi8(a, bs)))) break;
  }
  return ddbst__text_run_bytes(s, i, n);
}

static inline size_t ddbst__text_run_sse2(const char *s, size_t n) {
  size_t i = 0;
  const __m128i bs = _mm_set1_epi8('\\');
  for (; i + 32 <= n; i += 32) {
    __m128i a = ddbst__load16(s + i), b = ddbst__load16(s + i + 16);
    __m128i stop = _mm_or_si128(_mm_or_si128(a, b),
                                _mm_or_si128(_mm_cmpeq_epi8(a, bs),
                                             _mm_cmpeq_epi8(b, bs)));
    if (_mm_movemask_epi8(stop)) break;
  }
  return ddbst__text_run_sse2_16(s, i, n);
}
#endif

static inline size_t ddbst__text_run(const char *s, size_t n) {
#if defined(__SSE2__)
  return ddbst__text_run_sse2(s, n);
#else
  return ddbst__text_run_swar(s, n);
#endif
}

/* The one twin chosen at run time: a whole document goes through the text
 * run, long enough to pay for asking the CPU once a document
 * (ddbst__cpu_avx2). 64 bytes a step in two AVX2 registers; from the step
 * that holds a stop, the SSE2 form, so exact as it is. Built where the
 * compiler can make AVX2 code for one function (x86-64, GCC or Clang) and
 * the build has SSE2; json/text.c calls it, and tests/unit/test_bytes.c and
 * test_json_text.c run it beside the narrow forms on the same inputs. */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#define DDBST__HAVE_AVX2 1
#include <immintrin.h>

__attribute__((target("avx2"))) static inline size_t
ddbst__text_run_avx2(const char *s, size_t n) {
  size_t i = 0;
  const __m256i bs = _mm256_set1_epi8('\\');
  /* 32 bytes first: a stop in them (escapes or multi-byte text close
   * together, as in a stream event sent as one escaped string) is found
   * in 16-byte steps from the start, no dearer than the SSE2 form */
  if (n >= 32) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
    if (_mm256_movemask_epi8(_mm256_or_si256(a, _mm256_cmpeq_epi8(a, bs))))
      return ddbst__text_run_sse2_16(s, 0, n);
    i = 32;
  }
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
    __m256i b =
        _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
    __m256i stop =
        _mm256_or_si256(_mm256_or_si256(a, b),
                        _mm256_or_si256(_mm256_cmpeq_epi8(a, bs),
                                        _mm256_cmpeq_epi8(b, bs)));
    if (_mm256_movemask_epi8(stop)) break;
  }
  return i + ddbst__text_run_sse2(s + i, n - i);
}

/* Whether this CPU runs AVX2 code: a load and a test (the compiler's
 * runtime fills what it asks at load). */
static inline int ddbst__cpu_avx2(void) {
  return __builtin_cpu_supports("avx2");
}
#endif

/* ------------------------------------------------------- the key scan */

/* What a value holds that matters to a key and to JSON, in one pass: the
 * delimiter's first byte (so perhaps the delimiter), a byte JSON must
 * escape. KNOWN marks an answer recorded with a value (ddbst__val.scan):
 * unset, nobody has looked. */
enum { DDBST__SCAN_DELIM0 = 1, DDBST__SCAN_ESCAPE = 2, DDBST__SCAN_KNOWN = 4 };

static inline unsigned ddbst__scan_word(uint64_t w, unsigned char d0) {
  uint64_t x = w ^ (DDBST__ONES * d0); /* zero where w holds d0 */
  return ((((x - DDBST__ONES) & ~x) & DDBST__HIGHS) ? DDBST__SCAN_DELIM0 : 0) |
         (ddbst__word_needs_escape(w) ? DDBST__SCAN_ESCAPE : 0);
}

#if defined(__SSE2__)
/* `d0` holds the delimiter's first byte in every lane. */
static inline unsigned ddbst__scan_vec(__m128i v, __m128i d0) {
  return (_mm_movemask_epi8(_mm_cmpeq_epi8(v, d0)) ? DDBST__SCAN_DELIM0 : 0) |
         (_mm_movemask_epi8(ddbst__vec_escapes(v)) ? DDBST__SCAN_ESCAPE : 0);
}
#endif

/* Both questions in one pass over the short values keys are made of: inline
 * and a word at a time, where a libc memchr per facet and a second scan in
 * the JSON writer cost more than the bytes. */
static inline unsigned ddbst__scan_swar(const char *s, size_t n,
                                        unsigned char d0) {
  unsigned r = 0;
  size_t i = 0;
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
    if (ddbst__byte_needs_escape(c)) r |= DDBST__SCAN_ESCAPE;
  }
  return r;
}

#if defined(__SSE2__)
static inline unsigned ddbst__scan_sse2(const char *s, size_t n,
                                        unsigned char d0) {
  if (n < 16) return ddbst__scan_swar(s, n, d0);
  unsigned r = 0;
  size_t i = 0;
  __m128i k = _mm_set1_epi8((char)d0);
  for (; i + 16 <= n; i += 16) r |= ddbst__scan_vec(ddbst__load16(s + i), k);
  return i < n ? r | ddbst__scan_vec(ddbst__load16(s + n - 16), k) : r;
}
#endif

static inline unsigned ddbst__scan(const char *s, size_t n, unsigned char d0) {
#if defined(__SSE2__)
  return ddbst__scan_sse2(s, n, d0);
#else
  return ddbst__scan_swar(s, n, d0);
#endif
}

#if defined(__SSE2__)
/* s[0..n), 4 <= n <= 16, in one vector as the short copies read it: the
 * first and the last eight bytes (n >= 8), or the first and the last four
 * twice. Two texts of one length are equal when their vectors are. */
static inline __m128i ddbst__load_ends(const char *s, size_t n) {
  if (n >= 8) {
    uint64_t head, tail;
    memcpy(&head, s, 8);
    memcpy(&tail, s + n - 8, 8);
    return _mm_set_epi64x((long long)tail, (long long)head);
  }
  uint32_t head, tail;
  memcpy(&head, s, 4);
  memcpy(&tail, s + n - 4, 4);
  return _mm_set_epi32((int)tail, (int)head, (int)tail, (int)head);
}
#endif

/* Copies in[0..n), 4 <= n <= 16, to dst and scans it (ddbst__scan) in the
 * same pass: DDBST__SCAN_KNOWN and what the scan found, or 0 when a byte is
 * NUL or not ASCII (dst then holds anything). The SSE2 form puts the two
 * overlapping words it copies in one vector. */
static inline unsigned ddbst__copy_scan_short_swar(char *dst, const char *in,
                                                   size_t n,
                                                   unsigned char d0) {
  if (ddbst__ascii_copy(dst, in, n) != n) return 0;
  return DDBST__SCAN_KNOWN | ddbst__scan_swar(dst, n, d0);
}

#if defined(__SSE2__)
static inline unsigned ddbst__copy_scan_short_sse2(char *dst, const char *in,
                                                   size_t n,
                                                   unsigned char d0) {
  __m128i v;
  if (n >= 8) {
    uint64_t head, tail;
    memcpy(&head, in, 8);
    memcpy(&tail, in + n - 8, 8);
    memcpy(dst, &head, 8);
    memcpy(dst + n - 8, &tail, 8);
    v = _mm_set_epi64x((long long)tail, (long long)head);
  } else {
    uint32_t head, tail;
    memcpy(&head, in, 4);
    memcpy(&tail, in + n - 4, 4);
    memcpy(dst, &head, 4);
    memcpy(dst + n - 4, &tail, 4);
    v = _mm_set_epi32((int)tail, (int)head, (int)tail, (int)head);
  }
  /* one mask for the common case (ASCII, nothing to note), then each
   * question apart */
  __m128i bad = _mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128()));
  __m128i delim = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)d0));
  __m128i esc = ddbst__vec_escapes(v);
  if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(bad, delim), esc)))
    return DDBST__SCAN_KNOWN;
  if (_mm_movemask_epi8(bad)) return 0;
  return DDBST__SCAN_KNOWN |
         (_mm_movemask_epi8(delim) ? DDBST__SCAN_DELIM0 : 0) |
         (_mm_movemask_epi8(esc) ? DDBST__SCAN_ESCAPE : 0);
}
#endif

static inline unsigned ddbst__copy_scan_short(char *dst, const char *in,
                                              size_t n, unsigned char d0) {
#if defined(__SSE2__)
  return ddbst__copy_scan_short_sse2(dst, in, n, d0);
#else
  return ddbst__copy_scan_short_swar(dst, in, n, d0);
#endif
}

/* ddbst__copy_scan_short for n >= 16 (e-mail addresses, titles): one pass
 * where the copy and the scan were two, 16 bytes a step and the tail as an
 * overlapping vector. The same answer: DDBST__SCAN_KNOWN and what the scan
 * found, or 0 when a byte is NUL or not ASCII (dst then holds anything). The
 * portable form is the two passes. */
static inline unsigned ddbst__copy_scan_long_swar(char *dst, const char *in,
                                                  size_t n,
                                                  unsigned char d0) {
  if (ddbst__ascii_copy(dst, in, n) != n) return 0;
  return DDBST__SCAN_KNOWN | ddbst__scan_swar(dst, n, d0);
}

#if defined(__SSE2__)
static inline unsigned ddbst__copy_scan_long_sse2(char *dst, const char *in,
                                                  size_t n,
                                                  unsigned char d0) {
  const __m128i k = _mm_set1_epi8((char)d0), zero = _mm_setzero_si128();
  __m128i bad = zero, delim = zero, esc = zero;
  size_t i = 0;
  for (;; i += 16) {
    if (i + 16 > n) i = n - 16; /* the tail, overlapping copied bytes */
    __m128i v = ddbst__load16(in + i);
    _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
    bad = _mm_or_si128(bad, _mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
    delim = _mm_or_si128(delim, _mm_cmpeq_epi8(v, k));
    esc = _mm_or_si128(esc, ddbst__vec_escapes(v));
    if (i + 16 == n) break;
  }
  if (_mm_movemask_epi8(bad)) return 0;
  return DDBST__SCAN_KNOWN |
         (_mm_movemask_epi8(delim) ? DDBST__SCAN_DELIM0 : 0) |
         (_mm_movemask_epi8(esc) ? DDBST__SCAN_ESCAPE : 0);
}
#endif

static inline unsigned ddbst__copy_scan_long(char *dst, const char *in,
                                             size_t n, unsigned char d0) {
#if defined(__SSE2__)
  return ddbst__copy_scan_long_sse2(dst, in, n, d0);
#else
  return ddbst__copy_scan_long_swar(dst, in, n, d0);
#endif
}

/* ---------------------------------------------- digits against a shape */

/* Whether the bytes of p[0..8) where `mask` is 0xFF are all ASCII digits:
 * high nibble 3, and still 3 after adding 6 (no byte carries into the
 * next). The other bytes are not looked at. */
static inline int ddbst__digits_in_word(const char *p,
                                        const unsigned char mask[8]) {
  uint64_t w, m;
  memcpy(&w, p, 8);
  memcpy(&m, mask, 8);
  uint64_t d = w & m, hi = DDBST__ONES * 0xF0 & m,
           three = DDBST__ONES * 0x30 & m;
  return (d & hi) == three && ((d + (DDBST__ONES * 0x06 & m)) & hi) == three;
}

/* Whether each byte of p[0..16) equals `shape`'s where `upto` has 0, and
 * where `upto` has a limit (at most 0x7F) is a digit no greater than it:
 * "0000-00-" with 9,9,9,9,0,1,9,0 is a year, '-', a month's tens (0-1) and
 * units, '-'. x = p ^ shape holds each digit's value (a byte that is not a
 * digit comes out above 9); x <= limit is max(x, limit) == limit. */
static inline int ddbst__fits16_swar(const char *p, const char shape[16],
                                     const unsigned char upto[16]) {
  /* a byte of x past its limit, or with its high bit set, sets that bit of
   * the sum (no byte carries into the next) */
  for (int h = 0; h < 16; h += 8) {
    uint64_t w, sh, u;
    memcpy(&w, p + h, 8);
    memcpy(&sh, shape + h, 8);
    memcpy(&u, upto + h, 8);
    uint64_t x = w ^ sh, add = DDBST__ONES * 0x7F - u;
    if ((x | ((x & DDBST__ONES * 0x7F) + add)) & DDBST__HIGHS) return 0;
  }
  return 1;
}

#if defined(__SSE2__)
static inline int ddbst__fits16_sse2(const char *p, const char shape[16],
                                     const unsigned char upto[16]) {
  __m128i x = _mm_xor_si128(ddbst__load16(p), ddbst__load16(shape));
  __m128i u = ddbst__load16(upto);
  return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, u), u)) == 0xFFFF;
}
#endif

static inline int ddbst__fits16(const char *p, const char shape[16],
                                const unsigned char upto[16]) {
#if defined(__SSE2__)
  return ddbst__fits16_sse2(p, shape, upto);
#else
  return ddbst__fits16_swar(p, shape, upto);
#endif
}

/* ---------------------------------------------------- ASCII lower case */

/* Eight bytes at a time (lower-cased facets are e-mail addresses, run on
 * every write of a user): in each byte below 0x80, bit 7 of (b & 0x7F) +
 * (0x80 - 'A') says b >= 'A' and of (b & 0x7F) + (0x7F - 'Z') says b > 'Z';
 * where exactly the first holds, 0x20 is added. No byte carries into the
 * next, and bytes from 0x80 up (UTF-8) are left alone. */
static inline uint64_t ddbst__lower_word(uint64_t w) {
  uint64_t low7 = w & DDBST__ONES * 0x7F;
  uint64_t ge_a = low7 + DDBST__ONES * (0x80 - 'A'),
           gt_z = low7 + DDBST__ONES * (0x7F - 'Z');
  uint64_t upper = (ge_a ^ gt_z) & ~w & DDBST__HIGHS;
  return w | upper >> 2;
}

/* s[0..n) copied to d, A-Z to a-z when `fold`, in words: whether every
 * byte is ASCII (below 0x80). No byte is read or written past n: the last
 * word overlaps the one before it. For an ASCII value, its NFC is itself
 * and its NFKC_Casefold is this (normalize.c; test_normalize holds both to
 * utf8proc for every ASCII code point). */
static inline int ddbst__lower_copy(char *d, const char *s, size_t n,
                                    int fold) {
  uint64_t seen = 0, w;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      memcpy(&w, s + i, 8);
      seen |= w;
      if (fold) w = ddbst__lower_word(w);
      memcpy(d + i, &w, 8);
    }
    memcpy(&w, s + n - 8, 8);
    seen |= w;
    if (fold) w = ddbst__lower_word(w);
    memcpy(d + n - 8, &w, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    seen = a | b;
    if (fold) {
      a = (uint32_t)ddbst__lower_word(a);
      b = (uint32_t)ddbst__lower_word(b);
    }
    memcpy(d, &a, 4);
    memcpy(d + n - 4, &b, 4);
  } else {
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      seen |= c;
      d[i] = (char)(fold && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  return (seen & DDBST__HIGHS) == 0;
}

/* ASCII A-Z to a-z in s[0..n), other bytes unchanged (multi-byte UTF-8
 * untouched). */
static inline void ddbst__lower_ascii(char *s, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    w = ddbst__lower_word(w);
    memcpy(s + i, &w, 8);
  }
  for (; i < n; i++)
    if (s[i] >= 'A' && s[i] <= 'Z') s[i] = (char)(s[i] - 'A' + 'a');
}

/* ---------------------------------- JSON structure: quotes and braces */

/* Where s[0..64) holds '"', '\\', '{' and '}': bit k of each mask for s[k].
 * All that finding where an object ends has to look at
 * (ffi/stream_slices.c): strings are told from the quotes' bits as a
 * whole, so that a brace inside one costs nothing. */
typedef struct ddbst__json_marks {
  uint64_t quotes, slashes, opens, closes;
} ddbst__json_marks;

static inline void ddbst__json_marks_bytes(const char *s, ddbst__json_marks *m) {
  m->quotes = m->slashes = m->opens = m->closes = 0;
  for (unsigned k = 0; k < 64; k++) {
    uint64_t bit = (uint64_t)1 << k;
    if (s[k] == '"') m->quotes |= bit;
    if (s[k] == '\\') m->slashes |= bit;
    if (s[k] == '{') m->opens |= bit;
    if (s[k] == '}') m->closes |= bit;
  }
}

#if defined(__SSE2__)
static inline void ddbst__json_marks_sse2(const char *s, ddbst__json_marks *m) {
  const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'),
                o = _mm_set1_epi8('{'), c = _mm_set1_epi8('}');
  m->quotes = m->slashes = m->opens = m->closes = 0;
  for (unsigned k = 0; k < 4; k++) {
    __m128i v = ddbst__load16(s + 16 * k);
    unsigned at = 16 * k;
    m->quotes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) << at;
    m->slashes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b)) << at;
    m->opens |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, o)) << at;
    m->closes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c)) << at;
  }
}
#endif

static inline void ddbst__json_marks_of(const char *s, ddbst__json_marks *m) {
#if defined(__SSE2__)
  ddbst__json_marks_sse2(s, m);
#else
  ddbst__json_marks_bytes(s, m);
#endif
}

/* Bit k set when an odd number of bits at 0..k are: from the quotes' bits
 * (none escaped), the bytes inside strings, each opening quote with them. */
static inline uint64_t ddbst__prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

#endif
