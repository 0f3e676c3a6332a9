/* The floor under opening a sealed cursor: libsodium's ChaCha20-Poly1305
 * (IETF) decryption alone, of a payload and associated data the size of
 * the benchmark's own cursor's. It is what ddbst__cursor_open calls once
 * the keyring holds the sealer's HChaCha20 subkey, so it is the part of
 * query_cursor that no change to ddbst can take out (docs/performance.md).
 * Not ddbst's code: libsodium directly, with a fixed key and nonce. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "bench.h"

/* docs/cursor.md: first byte and key id, then a 24-byte nonce, the
 * payload, a 16-byte tag. */
enum { ENV_HEAD = 1 + 4 + 24, TAG = 16, MAX_PAYLOAD = 256 };

static struct {
  unsigned char key[crypto_aead_chacha20poly1305_ietf_KEYBYTES];
  unsigned char nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
  unsigned char ad[64];
  size_t ad_len;
  unsigned char sealed[MAX_PAYLOAD], tag[TAG], opened[MAX_PAYLOAD];
  size_t len;
} F;

static int op_aead_open_floor(bench_ctx *c) {
  (void)c;
  return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
             F.opened, NULL, F.sealed, F.len, F.tag, F.ad, F.ad_len, F.nonce,
             F.key) == 0
             ? 0
             : DDBST_EINVAL;
}

/* One batch of `n` calls of fn: nanoseconds a call. */
static double batch(bench_ctx *c, bench_fn fn, int n) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++) fn(c);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
          (double)(t1.tv_nsec - t0.tv_nsec)) / n;
}

/* "pair<TAB>i<TAB>opened ns<TAB>floor ns", batches of 500 calls each. */
static void pairs(bench_ctx *c, bench_fn opened, long n) {
  for (int i = 0; i < 20000; i++) opened(c), op_aead_open_floor(c);
  for (long i = 0; i < n; i++) {
    double a = batch(c, opened, 500), b = batch(c, op_aead_open_floor, 500);
    printf("pair\t%ld\t%.1f\t%.1f\n", i, a, b);
  }
}

void bench_floor(bench_ctx *c, bench_fn opened, const char *cursor, size_t cursor_len,
                 const char *pattern, const char *partition) {
  unsigned char env[4 * MAX_PAYLOAD];
  size_t n = 0;
  if (sodium_init() < 0 ||
      sodium_base642bin(env, sizeof env, cursor, cursor_len, NULL, &n, NULL,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      n < ENV_HEAD + TAG || n - ENV_HEAD - TAG > MAX_PAYLOAD)
    bench_fail("bench_floor: the cursor", DDBST_EINVAL, NULL);
  F.len = n - ENV_HEAD - TAG;
  /* byte 0, key id, and the context [pattern, null, true, partition]:
   * four CBOR items with one-byte heads for these short texts */
  F.ad_len = 5 + 1 + (1 + strlen(pattern)) + 1 + 1 + (1 + strlen(partition));
  if (F.ad_len > sizeof F.ad)
    bench_fail("bench_floor: the context", DDBST_EINVAL, NULL);
  memset(F.key, 7, sizeof F.key);
  memset(F.sealed, 'x', F.len);
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(
      F.sealed, F.tag, NULL, F.sealed, F.len, F.ad, F.ad_len, NULL, F.nonce,
      F.key);
  char what[128];
  snprintf(what, sizeof what,
           "libsodium alone: ChaCha20-Poly1305 open of %zu + %zu AD bytes",
           F.len, F.ad_len);
  const char *npairs = getenv("DDBST_BENCH_PAIRS");
  if (npairs) pairs(c, opened, atol(npairs));
  bench_run(c, "aead_open_floor", what, op_aead_open_floor, 10000, 0);
}
