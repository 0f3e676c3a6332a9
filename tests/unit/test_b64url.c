/* base64url of cursors (src/base/b64url.c): every length encodes as
 * libsodium's URL-safe, unpadded encoder does and decodes back; every
 * refusal names its offset; no read past the input or write past the
 * output's slack (both end at a PROT_NONE page). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "base/b64url.h"
#include "support.h"

enum { MAX_LEN = 300 };

static void fill(uint8_t *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    b[i] = (uint8_t)(seed * 131u + i * 197u + (i >> 3));
}

/* Encodes the input ending at a guard page; returns the text (malloc'd). */
static char *encode_guarded(const uint8_t *in, size_t n, size_t *len) {
  char *g = guard_copy(in, n);
  char *text = malloc(4 * n / 3 + 3);
  *len = ddbst__b64url_encode((const uint8_t *)g, n, text);
  guard_free(g);
  return text;
}

static void every_length_matches_libsodium(void **state) {
  (void)state;
  uint8_t in[MAX_LEN] = {0}; /* length 0 passes it unwritten */
  for (size_t n = 0; n <= MAX_LEN; n++) {
    for (unsigned seed = 0; seed < 4; seed++) {
      fill(in, n, seed + (unsigned)n);
      if (seed == 3) memset(in, 0xff, n); /* every bit set: '_' runs */
      size_t len;
      char *text = encode_guarded(in, n, &len);
      char want[4 * MAX_LEN / 3 + 4];
      sodium_bin2base64(want, sizeof want, in, n,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING);
      assert_int_equal(len, strlen(want));
      assert_string_equal(text, want);
      assert_int_equal(text[len], '\0');
      free(text);
    }
  }
}

/* The text ends at a guard page, and so does the output buffer, sized as
 * b64url.h says: 3n/4 + DDBST__B64URL_SLACK. */
static int decode_guarded(const char *text, size_t n, uint8_t *got,
                          size_t *got_len, size_t *bad) {
  char *in = guard_copy(text, n);
  size_t cap = 3 * n / 4 + DDBST__B64URL_SLACK;
  uint8_t zeros[MAX_LEN + DDBST__B64URL_SLACK] = {0};
  char *out = guard_copy(zeros, cap);
  int rc = ddbst__b64url_decode(in, n, (uint8_t *)out, got_len, bad);
  if (rc == 0) memcpy(got, out, *got_len);
  guard_free(out);
  guard_free(in);
  return rc;
}

static void every_length_decodes_back(void **state) {
  (void)state;
  /* zeroed: length 0 hands `in` to libsodium before anything is written
   * into it (gcc -O2: -Wmaybe-uninitialized) */
  uint8_t in[MAX_LEN] = {0}, got[MAX_LEN + 8];
  for (size_t n = 0; n <= MAX_LEN; n++) {
    fill(in, n, (unsigned)n);
    char text[4 * MAX_LEN / 3 + 4];
    sodium_bin2base64(text, sizeof text, in, n,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t got_len = 12345, bad = 0;
    assert_int_equal(decode_guarded(text, strlen(text), got, &got_len, &bad),
                     0);
    assert_int_equal(got_len, n);
    if (n) assert_memory_equal(got, in, n);
  }
}

/* One byte outside the alphabet at every offset of texts of every valid
 * length: refused as 1 with exactly that offset. */
static void every_bad_character_at_every_offset(void **state) {
  (void)state;
  static const char bad_bytes[] = {
      '=', ' ', '+', '/', '.', '\n', '\0', (char)0x80, (char)0xc3, (char)0xff};
  uint8_t in[64], got[80];
  for (size_t n = 1; n <= 48; n++) {
    fill(in, n, 7);
    char text[80];
    sodium_bin2base64(text, sizeof text, in, n,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t len = strlen(text);
    for (size_t at = 0; at < len; at++)
      for (size_t b = 0; b < sizeof bad_bytes; b++) {
        char copy[80];
        memcpy(copy, text, len);
        copy[at] = bad_bytes[b];
        size_t got_len = 0, where = 999;
        int rc = decode_guarded(copy, len, got, &got_len, &where);
        if (rc != 1 || where != at)
          fail_msg("length %zu, byte 0x%02x at %zu: rc %d, offset %zu", len,
                   (unsigned char)bad_bytes[b], at, rc, where);
      }
  }
}

/* Lengths and last characters no whole bytes give: 2. */
static void lengths_and_last_bits_refused(void **state) {
  (void)state;
  uint8_t got[64];
  size_t got_len, bad;
  /* one character alone in its group: 1, 5, 9, ... characters */
  for (size_t n = 1; n < 40; n += 4) {
    char text[64];
    memset(text, 'A', n);
    assert_int_equal(decode_guarded(text, n, got, &got_len, &bad), 2);
  }
  /* two characters give one byte: the second's low four bits must be 0 */
  assert_int_equal(decode_guarded("AA", 2, got, &got_len, &bad), 0);
  assert_int_equal(got_len, 1);
  assert_int_equal(decode_guarded("AQ", 2, got, &got_len, &bad), 0);
  assert_int_equal(got[0], 1);
  assert_int_equal(decode_guarded("AB", 2, got, &got_len, &bad), 2);
  assert_int_equal(decode_guarded("AP", 2, got, &got_len, &bad), 2);
  /* three give two bytes: the third's low two bits must be 0 */
  assert_int_equal(decode_guarded("AAE", 3, got, &got_len, &bad), 0);
  assert_int_equal(got_len, 2);
  assert_int_equal(decode_guarded("AAB", 3, got, &got_len, &bad), 2);
  assert_int_equal(decode_guarded("AAD", 3, got, &got_len, &bad), 2);
  /* the same after whole groups, on the word-at-a-time path too */
  assert_int_equal(decode_guarded("AAAAAAAAAAAB", 12, got, &got_len, &bad), 0);
  assert_int_equal(decode_guarded("AAAAAAAAAAAAAB", 14, got, &got_len, &bad),
                   2);
  assert_int_equal(decode_guarded("AAAAAAAAAAAAAAB", 15, got, &got_len, &bad),
                   2);
}

/* Decodes with SIMD up to `level` (ddbst__b64url_simd), then back to the
 * default. */
static int decode_at(int level, int guarded, const char *text, size_t n,
                     uint8_t *got, size_t *got_len, size_t *bad) {
  ddbst__b64url_simd = level;
  int rc = guarded ? decode_guarded(text, n, got, got_len, bad)
                   : ddbst__b64url_decode(text, n, got, got_len, bad);
  ddbst__b64url_simd = 2;
  return rc;
}

/* The SIMD paths (AVX2, 32 characters a step, and SSSE3, 16, where the CPU
 * has them) against the portable one: every valid text of every length up
 * to MAX_LEN and its last three cuts, and every byte value at every offset
 * of a text of several steps, give the same answer, offset and bytes. */
static void simd_as_portable(void **state) {
  (void)state;
  uint8_t in[MAX_LEN], a[MAX_LEN + 8], b[MAX_LEN + 8];
  char text[4 * MAX_LEN / 3 + 4];
  for (int level = 1; level <= 2; level++) {
    for (size_t n = 0; n <= MAX_LEN; n++) {
      fill(in, n, (unsigned)n * 3u);
      if (n % 7 == 3) memset(in, 0xff, n); /* '_' in every place */
      sodium_bin2base64(text, sizeof text, in, n,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING);
      size_t len = strlen(text);
      for (size_t cut = len > 3 ? len - 3 : 0; cut <= len; cut++) {
        size_t la = 1, lb = 2, ba = 3, bb = 4;
        int ra = decode_at(level, 1, text, cut, a, &la, &ba);
        int rb = decode_at(0, 1, text, cut, b, &lb, &bb);
        assert_int_equal(ra, rb);
        if (ra == 0) {
          assert_int_equal(la, lb);
          if (la) assert_memory_equal(a, b, la);
        }
      }
    }
    fill(in, 72, 11);
    sodium_bin2base64(text, sizeof text, in, 72,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t len = strlen(text); /* 96: three steps of 32, six of 16 */
    for (size_t at = 0; at < len; at++)
      for (unsigned c = 0; c < 256; c++) {
        char copy[96];
        memcpy(copy, text, len);
        copy[at] = (char)c;
        size_t la = 0, lb = 0, ba = 999, bb = 998;
        /* unguarded: 24,576 texts each way */
        int ra = decode_at(level, 0, copy, len, a, &la, &ba);
        int rb = decode_at(0, 0, copy, len, b, &lb, &bb);
        int valid = c != 0 && strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "abcdefghijklmnopqrstuvwxyz0123456789-_",
                                     (int)c) != NULL;
        if (ra != rb || ra != (valid ? 0 : 1) || (!valid && ba != at) ||
            (!valid && bb != at))
          fail_msg("level %d, byte 0x%02x at %zu: simd %d (offset %zu), "
                   "portable %d (offset %zu)",
                   level, c, at, ra, ba, rb, bb);
        if (valid) {
          assert_int_equal(la, lb);
          assert_memory_equal(a, b, la);
        }
      }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_length_matches_libsodium),
      cmocka_unit_test(every_length_decodes_back),
      cmocka_unit_test(every_bad_character_at_every_offset),
      cmocka_unit_test(lengths_and_last_bits_refused),
      cmocka_unit_test(simd_as_portable),
  };
  if (sodium_init() < 0) return 1;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
