/* Unit tests for src/base/bytes.h: every primitive, in each form the build
 * has (the SWAR twin always, the SSE2 one where the build has SSE2; the
 * `portable` preset runs this without), at every length 0..40 with every
 * byte value at every place, against a byte-at-a-time reference. Inputs end
 * at a PROT_NONE page, so a read past them faults. The forms are called by
 * name (P_swar, P_sse2); P is one of them, chosen by the build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/bytes.h"
#include "support.h"

enum { MAXN = 40 };

/* Two places that end at a PROT_NONE page (support.c's guard_copy), each
 * with room for MAXN bytes: inputs are copied to end at the first, outputs
 * written to end at the second. */
typedef struct guard_page {
  char *mem; /* room bytes, the guard right after */
  size_t room;
} guard_page;

static guard_page guard, guard2;

/* Copies s[0..n) so that it ends right at the guard; returns its start. */
static char *guard_page_place(guard_page *g, const void *s, size_t n) {
  char *at = g->mem + g->room - n;
  if (n) memcpy(at, s, n);
  return at;
}

static int setup(void **state) {
  (void)state;
  static const char room[MAXN];
  guard.mem = guard_copy(room, MAXN);
  guard2.mem = guard_copy(room, MAXN);
  guard.room = guard2.room = MAXN;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  guard_free(guard.mem);
  guard_free(guard2.mem);
  return 0;
}

/* Bytes that sit on the edges of what the primitives ask: NUL, the
 * controls' end, the quote and backslash, the delimiters tested, DEL, the
 * high bit, letters' edges. Pairs of them are tried at every two places;
 * single bytes are tried with every value. */
static const unsigned char EDGES[] = {0x00, 0x01, 0x1F, 0x20, 0x21, '"', '#',
                                      '/',  '@',  'A',  'Z',  '[',  '\\', '`',
                                      'a',  'z',  '{',  '|',  0x7E, 0x7F, 0x80,
                                      0xC3, 0xFE, 0xFF};
#define NEDGES (sizeof EDGES / sizeof EDGES[0])

/* The delimiters' first bytes a scan is asked about: the usual one, the
 * JSON specials (a model may choose them), and bytes no model can have,
 * which the primitive must still answer for. */
static const unsigned char DELIMS[] = {'#', '"', '\\', 0x00, 0xFF};
#define NDELIMS (sizeof DELIMS / sizeof DELIMS[0])

/* Calls `check(s, n, user)` on every input the tests try: for each length
 * from..to (every_input: 0..MAXN), the plain text of lower-case letters,
 * that text with each byte value at each place, and with pairs of edge
 * bytes side by side and a word apart. `s` ends at the guard page. */
typedef void (*input_fn)(const char *s, size_t n, void *user);

static void inputs_of(input_fn check, void *user, size_t from, size_t to) {
  char text[MAXN] = {0};
  for (size_t n = from; n <= to; n++) {
    for (size_t i = 0; i < n; i++) text[i] = (char)('a' + i % 26);
    check(guard_page_place(&guard, text, n), n, user);
    for (size_t at = 0; at < n; at++)
      for (int c = 0; c < 256; c++) {
        char keep = text[at];
        text[at] = (char)c;
        check(guard_page_place(&guard, text, n), n, user);
        text[at] = keep;
      }
    /* pairs of edge bytes side by side, and a word apart: where the
     * borrows of the SWAR tests could mislead */
    for (size_t a = 0; a < n; a++)
      for (size_t gap = 1; gap <= 8; gap += 7) {
        size_t b = a + gap;
        if (b >= n) break;
        for (size_t x = 0; x < NEDGES; x++)
          for (size_t y = 0; y < NEDGES; y += 6) {
            char ka = text[a], kb = text[b];
            text[a] = (char)EDGES[x];
            text[b] = (char)EDGES[(y + x) % NEDGES];
            check(guard_page_place(&guard, text, n), n, user);
            text[a] = ka;
            text[b] = kb;
          }
      }
  }
}

static void every_input(input_fn check, void *user) {
  inputs_of(check, user, 0, MAXN);
}

static void show(char *out, size_t cap, const char *s, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n && o + 4 < cap; i++)
    o += (size_t)snprintf(out + o, cap - o, "%02x", (unsigned char)s[i]);
  out[o] = '\0';
}

#define FAIL_ON(cond, s, n, ...)                                               \
  do {                                                                         \
    if (cond) {                                                                \
      char what_[160], hex_[2 * MAXN + 8];                                     \
      snprintf(what_, sizeof what_, __VA_ARGS__);                              \
      show(hex_, sizeof hex_, (s), (n));                                       \
      fail_msg("n=%zu [%s]: %s", (size_t)(n), hex_, what_);                    \
    }                                                                          \
  } while (0)

/* ------------------------------------------------------- references */

static int ref_not_ascii(unsigned char c) { return c == 0 || c >= 0x80; }

static size_t ref_ascii_run(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && !ref_not_ascii((unsigned char)s[i])) i++;
  return i;
}

static int ref_needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

static size_t ref_plain_run(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && !ref_needs_escape((unsigned char)s[i])) i++;
  return i;
}

/* json/text.c's run: ASCII without a backslash (NUL is ASCII here). */
static size_t ref_text_run(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (unsigned char)s[i] < 0x80 && s[i] != '\\') i++;
  return i;
}

static unsigned ref_scan(const char *s, size_t n, unsigned char d0) {
  unsigned r = 0;
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)s[i] == d0) r |= DDBST__SCAN_DELIM0;
    if (ref_needs_escape((unsigned char)s[i])) r |= DDBST__SCAN_ESCAPE;
  }
  return r;
}

/* ------------------------------------------------------- words */

/* The word tests, on the eight bytes of every input of eight. */
static void check_words(const char *s, size_t n, void *user) {
  (void)user;
  uint64_t w;
  memcpy(&w, s, 8);
  FAIL_ON(ddbst__word_not_ascii(w) != (ref_ascii_run(s, 8) < 8), s, n,
          "word_not_ascii");
  FAIL_ON(ddbst__word_needs_escape(w) != (ref_plain_run(s, 8) < 8), s, n,
          "word_needs_escape");
  for (size_t d = 0; d < NDELIMS; d++)
    FAIL_ON(ddbst__scan_word(w, DELIMS[d]) != ref_scan(s, 8, DELIMS[d]), s, n,
            "scan_word, delimiter 0x%02x", DELIMS[d]);
  char lower[8];
  memcpy(lower, s, 8);
  uint64_t l = ddbst__lower_word(w);
  for (int i = 0; i < 8; i++) {
    unsigned char c = (unsigned char)s[i];
    lower[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  FAIL_ON(memcmp(&l, lower, 8) != 0, s, n, "lower_word");
}

static void words(void **state) {
  (void)state;
  inputs_of(check_words, NULL, 8, 8);
  for (int c = 0; c < 256; c++)
    assert_int_equal(ddbst__byte_needs_escape((unsigned char)c),
                     ref_needs_escape((unsigned char)c));
}

/* ------------------------------------------------------- short copies */

static void check_copies(const char *s, size_t n, void *user) {
  (void)user;
  /* ddbst__copy: the bytes, none past n (the destination ends at the
   * second guard page) */
  char *d = guard2.mem + guard2.room - n;
  memset(guard2.mem + guard2.room - MAXN, 0x55, MAXN);
  ddbst__copy(d, s, n);
  FAIL_ON(memcmp(d, s, n) != 0, s, n, "copy");
  FAIL_ON(n < MAXN && guard2.mem[guard2.room - n - 1] != 0x55, s, n,
          "copy wrote before its destination");
  /* ddbst__copy_padded: 32 bytes past each end may be moved */
  char src[MAXN + DDBST__PAD], dst[MAXN + DDBST__PAD];
  memset(src, 0x33, sizeof src);
  memcpy(src, s, n);
  ddbst__copy_padded(dst, src, n);
  FAIL_ON(memcmp(dst, s, n) != 0, s, n, "copy_padded");
  /* ddbst__copy_chunks, each form: 32-byte chunks, the same pad */
  memset(dst, 0, sizeof dst);
  ddbst__copy_chunks_swar(dst, src, n);
  FAIL_ON(memcmp(dst, s, n) != 0, s, n, "copy_chunks_swar");
#if defined(__SSE2__)
  memset(dst, 0, sizeof dst);
  ddbst__copy_chunks_sse2(dst, src, n);
  FAIL_ON(memcmp(dst, s, n) != 0, s, n, "copy_chunks_sse2");
#endif
  /* ddbst__same_bytes against the plain text of the same length */
  char plain[MAXN];
  for (size_t i = 0; i < n; i++) plain[i] = (char)('a' + i % 26);
  const char *p = guard_page_place(&guard2, plain, n);
  FAIL_ON(ddbst__same_bytes(s, p, n) != (memcmp(s, p, n) == 0), s, n,
          "same_bytes");
  FAIL_ON(ddbst__same_bytes(p, s, n) != (memcmp(s, p, n) == 0), s, n,
          "same_bytes, swapped");
}

static void short_copies(void **state) {
  (void)state;
  every_input(check_copies, NULL);
}

/* ------------------------------------------------------- ASCII runs */

/* What every form of the run must say: never more than the run, n when
 * all of it is ASCII (from 4 bytes: below, 0 is allowed). */
static void check_run(const char *what, size_t got, const char *s, size_t n,
                      size_t min_exact) {
  size_t want = ref_ascii_run(s, n);
  FAIL_ON(got > want, s, n, "%s: %zu, but the run is %zu", what, got, want);
  FAIL_ON(n >= min_exact && want == n && got != n, s, n,
          "%s: %zu of an all-ASCII text", what, got);
}

/* What every form of the copy must do besides: the reported run copied,
 * nothing written past n. */
static void check_copy(const char *what, size_t (*copy)(char *, const char *,
                                                        size_t),
                       const char *s, size_t n, size_t min_exact) {
  char *d = guard2.mem + guard2.room - n;
  memset(guard2.mem + guard2.room - MAXN, 0x55, MAXN);
  size_t got = copy(d, s, n);
  check_run(what, got, s, n, min_exact);
  FAIL_ON(memcmp(d, s, got) != 0, s, n, "%s: the run is not copied", what);
  FAIL_ON(n < MAXN && guard2.mem[guard2.room - n - 1] != 0x55, s, n,
          "%s wrote before its destination", what);
}

static size_t copy_any(char *d, const char *s, size_t n) {
  return ddbst__ascii_copy(d, s, n);
}
static size_t copy_long_swar(char *d, const char *s, size_t n) {
  return ddbst__ascii_copy_long_swar(d, s, n);
}
#if defined(__SSE2__)
static size_t copy_long_sse2(char *d, const char *s, size_t n) {
  return ddbst__ascii_copy_long_sse2(d, s, n);
}
#endif

static void check_ascii(const char *s, size_t n, void *user) {
  (void)user;
  check_run("ascii_run_swar", ddbst__ascii_run_swar(s, n), s, n, 4);
#if defined(__SSE2__)
  check_run("ascii_run_sse2", ddbst__ascii_run_sse2(s, n), s, n, 4);
#endif
  /* below 4 bytes the copy is exact */
  check_copy("ascii_copy", copy_any, s, n, 0);
  if (n < 4)
    FAIL_ON(ddbst__ascii_copy(guard2.mem, s, n) != ref_ascii_run(s, n), s, n,
            "ascii_copy below 4 bytes is exact");
  if (n >= 8) check_copy("ascii_copy_long_swar", copy_long_swar, s, n, 8);
#if defined(__SSE2__)
  if (n >= 16) check_copy("ascii_copy_long_sse2", copy_long_sse2, s, n, 16);
#endif
}

static void ascii_runs_and_copies(void **state) {
  (void)state;
  every_input(check_ascii, NULL);
}

/* ------------------------------------------------------- JSON escapes */

static void check_plain(const char *s, size_t n, void *user) {
  (void)user;
  size_t want = ref_plain_run(s, n);
  FAIL_ON(ddbst__plain_run_swar(s, n) != want, s, n, "plain_run_swar");
#if defined(__SSE2__)
  FAIL_ON(ddbst__plain_run_sse2(s, n) != want, s, n, "plain_run_sse2");
  if (n >= 16) {
    __m128i hit = ddbst__vec_escapes(ddbst__load16(s + n - 16));
    int want16 = ref_plain_run(s + n - 16, 16) < 16;
    FAIL_ON((_mm_movemask_epi8(hit) != 0) != want16, s, n, "vec_escapes");
  }
#endif
}

static void plain_runs(void **state) {
  (void)state;
  every_input(check_plain, NULL);
}

/* ------------------------------------------------------- JSON text runs */

static void check_text_run(const char *s, size_t n, void *user) {
  (void)user;
  size_t want = ref_text_run(s, n);
  FAIL_ON(ddbst__text_run_swar(s, n) != want, s, n, "text_run_swar");
#if defined(__SSE2__)
  FAIL_ON(ddbst__text_run_sse2(s, n) != want, s, n, "text_run_sse2");
#endif
#if defined(DDBST__HAVE_AVX2)
  if (ddbst__cpu_avx2())
    FAIL_ON(ddbst__text_run_avx2(s, n) != want, s, n, "text_run_avx2");
#endif
  if (n == 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    FAIL_ON(ddbst__word_text_stop(w) != (want < 8), s, n, "word_text_stop");
  }
}

static void text_runs(void **state) {
  (void)state;
  every_input(check_text_run, NULL);
}

/* The wide form's 64-byte steps, past every_input's lengths: each length
 * around one and two steps, each edge byte at each place, every form
 * against the reference (the input ends at a guard page). */
enum { LONG_MIN = 56, LONG_MAX = 136 };

static void text_runs_long(void **state) {
  (void)state;
  static const char room[LONG_MAX];
  char *mem = guard_copy(room, LONG_MAX), text[LONG_MAX];
  for (size_t n = LONG_MIN; n <= LONG_MAX; n++)
    for (size_t at = 0; at <= n; at++)
      for (size_t e = 0; e < NEDGES; e++) {
        for (size_t i = 0; i < n; i++) text[i] = (char)('a' + i % 26);
        if (at < n) text[at] = (char)EDGES[e];
        char *s = mem + LONG_MAX - n;
        memcpy(s, text, n);
        size_t want = ref_text_run(s, n);
        assert_int_equal(ddbst__text_run_swar(s, n), want);
#if defined(__SSE2__)
        assert_int_equal(ddbst__text_run_sse2(s, n), want);
#endif
#if defined(DDBST__HAVE_AVX2)
        if (ddbst__cpu_avx2()) assert_int_equal(ddbst__text_run_avx2(s, n), want);
#endif
        if (at == n) break; /* no byte placed: once */
      }
  guard_free(mem);
}

/* ------------------------------------------------------- the key scan */

static void check_scan(const char *s, size_t n, void *user) {
  (void)user;
  for (size_t d = 0; d < NDELIMS; d++) {
    unsigned char d0 = DELIMS[d];
    unsigned want = ref_scan(s, n, d0);
    FAIL_ON(ddbst__scan_swar(s, n, d0) != want, s, n, "scan_swar, 0x%02x",
            d0);
#if defined(__SSE2__)
    FAIL_ON(ddbst__scan_sse2(s, n, d0) != want, s, n, "scan_sse2, 0x%02x",
            d0);
#endif
    if (n < 4 || n > 16) continue;
    /* the copy and the scan at once: the scan, or 0 for text that is not
     * ASCII without NUL; the bytes copied when it says yes */
    unsigned short_want =
        ref_ascii_run(s, n) == n ? DDBST__SCAN_KNOWN | want : 0;
    unsigned (*forms[])(char *, const char *, size_t, unsigned char) = {
        ddbst__copy_scan_short_swar,
#if defined(__SSE2__)
        ddbst__copy_scan_short_sse2,
#endif
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
      char *dst = guard2.mem + guard2.room - n;
      memset(guard2.mem + guard2.room - MAXN, 0x55, MAXN);
      unsigned got = forms[f](dst, s, n, d0);
      FAIL_ON(got != short_want, s, n, "copy_scan_short form %zu, 0x%02x: %u",
              f, d0, got);
      FAIL_ON(got && memcmp(dst, s, n) != 0, s, n,
              "copy_scan_short form %zu: not copied", f);
      FAIL_ON(guard2.mem[guard2.room - n - 1] != 0x55, s, n,
              "copy_scan_short form %zu wrote before its destination", f);
    }
  }
}

static void key_scan(void **state) {
  (void)state;
  every_input(check_scan, NULL);
}

/* ------------------------------------------------ digits against a shape */

/* The definition: each byte of p XOR shape no greater than its limit. With
 * shape '0' and limit 9 that is a digit; with limit 0, shape's own byte. */
static int ref_fits16(const char *p, const char *shape,
                      const unsigned char *upto) {
  for (int i = 0; i < 16; i++)
    if (((unsigned char)p[i] ^ (unsigned char)shape[i]) > upto[i]) return 0;
  return 1;
}

/* Every byte value at every place of a text that fits. */
static void check_fits16(const char *shape, const unsigned char *upto,
                         const char *fits) {
  char text[16];
  memcpy(text, fits, 16);
  assert_true(ref_fits16(fits, shape, upto));
  for (int at = -1; at < 16; at++)
    for (int c = 0; c < 256; c++) {
      if (at >= 0) text[at] = (char)c;
      const char *p = guard_page_place(&guard, text, 16);
      int want = ref_fits16(p, shape, upto);
      FAIL_ON(ddbst__fits16_swar(p, shape, upto) != want, p, 16,
              "fits16_swar");
#if defined(__SSE2__)
      FAIL_ON(ddbst__fits16_sse2(p, shape, upto) != want, p, 16,
              "fits16_sse2");
#endif
      if (at >= 0) text[at] = fits[at];
      if (at < 0) break;
    }
}

static void fits16_both_forms(void **state) {
  (void)state;
  /* the timestamp shapes (model/timestamp.c), and every limit 0..9 and up */
  static const unsigned char head[16] = {9, 9, 9, 9, 0, 1, 9, 0,
                                         3, 9, 0, 2, 9, 0, 5, 9};
  check_fits16("0000-00-00T00:00", head, "2026-03-14T09:30");
  check_fits16("0000-00-00T00:00", head, "9999-19-39T29:59");
  check_fits16("0000-00-00T00:00", head, "0000-00-00T00:00");
  static const unsigned char every[16] = {1, 2, 3, 4, 5, 6, 7, 8,
                                          9, 0, 0x7F, 1, 0, 0x30, 9, 1};
  check_fits16("00000000000Z0000", every, "00000000000Z0000");
  check_fits16("00000000000Z0000", every, "12345678900Z0\x10" "91");
  static const unsigned char none[16] = {0};
  check_fits16("literal text 16!", none, "literal text 16!");
}

static int ref_digits(const char *p, const unsigned char *mask) {
  for (int i = 0; i < 8; i++)
    if (mask[i] && (p[i] < '0' || p[i] > '9')) return 0;
  return 1;
}

static void digits_in_word(void **state) {
  (void)state;
  static const unsigned char masks[][8] = {
      {255, 255, 255, 255, 0, 255, 255, 0},
      {255, 255, 0, 255, 255, 0, 255, 255},
      {255, 255, 255, 255, 255, 255, 255, 255},
      {0, 0, 0, 0, 0, 0, 0, 0},
      {0, 255, 0, 255, 0, 255, 0, 255},
  };
  char text[8];
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
    for (int at = 0; at < 8; at++)
      for (int c = 0; c < 256; c++)
        for (int other = 0; other < 3; other++) {
          /* the other bytes: digits, or a digit's neighbours */
          static const char fill[3] = {'5', '/', ':'};
          memset(text, other == 0 ? '0' : fill[other], 8);
          text[(at + 3) % 8] = '9';
          text[at] = (char)c;
          const char *p = guard_page_place(&guard, text, 8);
          FAIL_ON(ddbst__digits_in_word(p, masks[m]) != ref_digits(p, masks[m]),
                  p, 8, "digits_in_word, mask %zu", m);
        }
}

/* ------------------------------------------------------- lower case */

static void check_lower(const char *s, size_t n, void *user) {
  (void)user;
  char got[MAXN], want[MAXN];
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    want[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  /* in place, ending at the guard */
  char *at = guard_page_place(&guard2, s, n);
  ddbst__lower_ascii(at, n);
  memcpy(got, at, n);
  FAIL_ON(memcmp(got, want, n) != 0, s, n, "lower_ascii");
}

/* Upper-case text with each byte at each place: letters either side of
 * the A-Z edges, and UTF-8 bytes whose low seven bits are letters. */
static void lower_ascii(void **state) {
  (void)state;
  char text[MAXN] = {0};
  for (size_t n = 0; n <= MAXN; n++) {
    for (size_t i = 0; i < n; i++) text[i] = (char)('A' + i % 26);
    check_lower(guard_page_place(&guard, text, n), n, NULL);
    for (size_t at = 0; at < n; at++)
      for (int c = 0; c < 256; c++) {
        char keep = text[at];
        text[at] = (char)c;
        check_lower(guard_page_place(&guard, text, n), n, NULL);
        text[at] = keep;
      }
  }
}

/* The marks of '"', '\\', '{' and '}' in 64 bytes: both forms agree with
 * the plain reading, each of them at every position among other bytes
 * (their neighbours in ASCII, bytes past it); and the prefix XOR. */
static void json_marks(void **state) {
  (void)state;
  static const char marked[] = "\"\\{}";
  static const char others[] = "a[]:,\x7a\x7c\x5b\x5d\x21\x23 \x80\xff\x01";
  char s[64];
  for (unsigned pos = 0; pos < 64; pos++)
    for (size_t k = 0; k < 4 * (sizeof others - 1); k++) {
      for (unsigned i = 0; i < 64; i++)
        s[i] = others[(k + i) % (sizeof others - 1)];
      s[pos] = marked[k % 4];
      s[(pos * 7 + k) % 64] = marked[(k + 1) % 4];
      ddbst__json_marks want = {0, 0, 0, 0}, got;
      for (unsigned i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        if (s[i] == '"') want.quotes |= bit;
        if (s[i] == '\\') want.slashes |= bit;
        if (s[i] == '{') want.opens |= bit;
        if (s[i] == '}') want.closes |= bit;
      }
      ddbst__json_marks_bytes(s, &got);
      assert_memory_equal(&got, &want, sizeof want);
#if defined(__SSE2__)
      ddbst__json_marks_sse2(s, &got);
      assert_memory_equal(&got, &want, sizeof want);
#endif
    }
  uint64_t x = 0x8000000100000021u, want = 0;
  int odd = 0;
  for (unsigned i = 0; i < 64; i++) {
    odd ^= (int)(x >> i & 1);
    want |= (uint64_t)odd << i;
  }
  assert_true(ddbst__prefix_xor(x) == want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(words),
      cmocka_unit_test(short_copies),
      cmocka_unit_test(ascii_runs_and_copies),
      cmocka_unit_test(plain_runs),
      cmocka_unit_test(text_runs),
      cmocka_unit_test(text_runs_long),
      cmocka_unit_test(key_scan),
      cmocka_unit_test(fits16_both_forms),
      cmocka_unit_test(digits_in_word),
      cmocka_unit_test(lower_ascii),
      cmocka_unit_test(json_marks),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
