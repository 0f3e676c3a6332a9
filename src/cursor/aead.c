/* Sealing and opening cursors: XChaCha20-Poly1305 in libsodium's own two
 * steps, so that the HChaCha20 subkey of a process's nonce prefix is
 * derived once (docs/performance.md), with the nonces and kept subkeys of
 * the keyring behind their locks. */
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
  uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES];
  int hit = 0;
  pthread_mutex_lock(&keys->open_lock);
  for (int i = 0; i < OPEN_SUBKEYS && !hit; i++) {
    const open_subkey *e = &keys->open[i];
    if (e->key == key && !memcmp(e->prefix, nonce, sizeof e->prefix)) {
      memcpy(subkey, e->subkey, sizeof subkey);
      hit = 1;
    }
  }
  pthread_mutex_unlock(&keys->open_lock);
  if (!hit)
    crypto_core_hchacha20(subkey, nonce, keys->k[key].key, NULL);
  uint8_t npub[crypto_aead_chacha20poly1305_ietf_NPUBBYTES] = {0};
  memcpy(npub + 4, nonce + crypto_core_hchacha20_INPUTBYTES, 8);
  int rc = crypto_aead_chacha20poly1305_ietf_decrypt(m, mlen, NULL, c, clen, ad,
                                                     adlen, npub, subkey);
  if (rc == 0 && !hit) {
    pthread_mutex_lock(&keys->open_lock);
    open_subkey *e = &keys->open[keys->open_next++ % OPEN_SUBKEYS];
    e->key = key;
    memcpy(e->prefix, nonce, sizeof e->prefix);
    memcpy(e->subkey, subkey, sizeof subkey);
    pthread_mutex_unlock(&keys->open_lock);
  }
  sodium_memzero(subkey, sizeof subkey);
  return rc;
}
