/* Sealing and opening cursors: XChaCha20-Poly1305 in libsodium's own two
 * steps, so that the HChaCha20 subkey of a process's nonce prefix is
 * derived once (docs/performance.md): the nonces behind their lock, the
 * kept subkeys read without one (a seqlock) and written behind theirs. */
#include "cursor/keyring.h"

/* A fresh nonce for sealing with the first key, and the HChaCha20 subkey
 * that goes with it. The keyring is read-only to callers; its nonce state
 * and opening's subkeys (ddbst__cursor_open_aead) are the internal exceptions,
 * each behind its own lock. (The first key never changes once there is one:
 * keys are only appended.) */
void ddbst__cursor_next_nonce(
    ddbst_cursor_keys *keys, uint8_t nonce[24],
    uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES]) {
  pthread_mutex_lock(&keys->nonce_lock);
  unsigned long gen = ddbst__fork_generation();
  if (keys->nonce_gen != gen) {
    randombytes_buf(keys->nonce_prefix, sizeof keys->nonce_prefix);
    randombytes_buf(&keys->nonce_counter, sizeof keys->nonce_counter);
    crypto_core_hchacha20(keys->seal_subkey, keys->nonce_prefix, keys->k[0].key,
                          NULL);
    keys->nonce_gen = gen;
  }
  uint64_t c = keys->nonce_counter++;
  memcpy(nonce, keys->nonce_prefix, sizeof keys->nonce_prefix);
  memcpy(subkey, keys->seal_subkey, sizeof keys->seal_subkey);
  pthread_mutex_unlock(&keys->nonce_lock);
  for (int b = 0; b < 8; b++)
    nonce[16 + b] = (uint8_t)(c >> (8 * b));
}

/* crypto_aead_xchacha20poly1305_ietf_encrypt, in the two libsodium steps it
 * takes itself (draft-irtf-cfrg-xchacha): HChaCha20 of the key and the
 * nonce's first 16 bytes gives a subkey, then ChaCha20-Poly1305 (IETF) with
 * that subkey and the nonce's last 8 bytes. The first 16 bytes are the
 * keyring's prefix, fixed per process, so ddbst__cursor_next_nonce derives the
 * subkey once instead of per cursor (a sixth of a seal). The bytes are the
 * same: the unit tests open with the one-step call. */
unsigned long long ddbst__cursor_seal_aead(uint8_t *c, const uint8_t *m,
                                           size_t mlen, const uint8_t *ad,
                                           size_t adlen,
                                           const uint8_t nonce[24],
                                           const uint8_t *subkey) {
  uint8_t npub[crypto_aead_chacha20poly1305_ietf_NPUBBYTES] = {0};
  memcpy(npub + 4, nonce + crypto_core_hchacha20_INPUTBYTES, 8);
  unsigned long long clen = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(c, &clen, m, mlen, ad, adlen, NULL,
                                            npub, subkey);
  return clen;
}

/* The kept subkey of key `key` and the nonce's prefix into `subkey`: 1, or
 * 0 when none is kept or a writer changed the kept ones meanwhile (then
 * the caller derives it). A seqlock: the words are read as relaxed atomics
 * between two reads of the sequence count, so a reader never waits and
 * never takes a lock. */
static int kept_subkey(ddbst_cursor_keys *keys, int key, const uint8_t *nonce,
                       uint32_t k[8]) {
  unsigned seq = atomic_load_explicit(&keys->open_seq, memory_order_acquire);
  if (seq & 1u) return 0;
  uint32_t want[1 + 4];
  want[0] = (uint32_t)key + 1;
  memcpy(want + 1, nonce, 16);
  for (int i = 0; i < OPEN_SUBKEYS; i++) {
    const _Atomic uint32_t *w = keys->open[i].w;
#define WORD(j) atomic_load_explicit(&w[j], memory_order_relaxed)
    /* written out: a loop of atomic loads is not unrolled, and costs more
     * than the lock it replaces */
    if (WORD(0) != want[0] || WORD(1) != want[1] || WORD(2) != want[2] ||
        WORD(3) != want[3] || WORD(4) != want[4])
      continue;
    k[0] = WORD(5);
    k[1] = WORD(6);
    k[2] = WORD(7);
    k[3] = WORD(8);
    k[4] = WORD(9);
    k[5] = WORD(10);
    k[6] = WORD(11);
    k[7] = WORD(12);
#undef WORD
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&keys->open_seq, memory_order_relaxed) == seq;
  }
  return 0;
}

/* Keeps the subkey of a cursor that opened, replacing the oldest. */
static void keep_subkey(ddbst_cursor_keys *keys, int key, const uint8_t *nonce,
                        const uint8_t *subkey) {
  uint32_t w[SUBKEY_WORDS];
  w[0] = (uint32_t)key + 1;
  memcpy(w + 1, nonce, 16);
  memcpy(w + 5, subkey, crypto_core_hchacha20_OUTPUTBYTES);
  pthread_mutex_lock(&keys->open_lock);
  unsigned seq = atomic_load_explicit(&keys->open_seq, memory_order_relaxed);
  atomic_store_explicit(&keys->open_seq, seq + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  open_subkey *e = &keys->open[keys->open_next++ % OPEN_SUBKEYS];
  for (int j = 0; j < SUBKEY_WORDS; j++)
    atomic_store_explicit(&e->w[j], w[j], memory_order_relaxed);
  atomic_store_explicit(&keys->open_seq, seq + 2, memory_order_release);
  pthread_mutex_unlock(&keys->open_lock);
  sodium_memzero(w, sizeof w);
}

/* Wipes a subkey's copy on the stack: stores the compiler must keep (the
 * empty asm may read them), a few instructions where sodium_memzero's call
 * into explicit_bzero took 23 an open. */
static void wipe_subkey(uint32_t w[8]) {
#if defined(__GNUC__) || defined(__clang__)
  memset(w, 0, 8 * sizeof *w);
  __asm__ __volatile__("" : : "r"(w) : "memory");
#else
  sodium_memzero(w, 8 * sizeof *w);
#endif
}

/* crypto_aead_xchacha20poly1305_ietf_decrypt with key k[key], in the same
 * two steps as ddbst__cursor_seal_aead. The nonce's first 16 bytes are the
 * sealing process's prefix, so the subkeys of the last few prefixes are kept: a
 * service mostly opens cursors of its own and a few sibling processes, and
 * HChaCha20 was a quarter of the decryption. A kept subkey saves only
 * that: the tag is verified in full either way. Only a cursor that opened
 * adds its prefix, so forged ones cannot push real ones out. Returns 0
 * when the tag verifies. */
int ddbst__cursor_open_aead(const ddbst_cursor_keys *ckeys, int key, uint8_t *m,
                            unsigned long long *mlen, const uint8_t *c,
                            size_t clen, const uint8_t *ad, size_t adlen,
                            const uint8_t nonce[24]) {
  ddbst_cursor_keys *keys = (ddbst_cursor_keys *)ckeys;
  uint32_t words[crypto_core_hchacha20_OUTPUTBYTES / 4];
  uint8_t *subkey = (uint8_t *)words;
  int hit = kept_subkey(keys, key, nonce, words);
  if (!hit) crypto_core_hchacha20(subkey, nonce, keys->k[key].key, NULL);
  uint8_t npub[crypto_aead_chacha20poly1305_ietf_NPUBBYTES] = {0};
  memcpy(npub + 4, nonce + crypto_core_hchacha20_INPUTBYTES, 8);
  /* the detached call, which the combined one wraps: the tag is the last
   * 16 bytes */
  size_t tag = crypto_aead_chacha20poly1305_ietf_ABYTES;
  int rc = clen < tag ? -1
                      : crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                            m, NULL, c, clen - tag, c + clen - tag, ad, adlen,
                            npub, subkey);
  *mlen = rc == 0 ? clen - tag : 0;
  if (rc == 0 && !hit) keep_subkey(keys, key, nonce, subkey);
  wipe_subkey(words);
  return rc;
}
