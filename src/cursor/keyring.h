/* The cursor keyring (keyring.c) and the sealing it does (aead.c):
 * internal to src/cursor/. */
#ifndef DDBST_CURSOR_KEYRING_H
#define DDBST_CURSOR_KEYRING_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/forksafe.h"
#include "cursor/envelope.h"

typedef struct ring_key {
  uint8_t id[KEY_ID_BYTES];
  uint8_t key[DDBST_CURSOR_KEY_BYTES];
} ring_key;

/* The HChaCha20 subkey of key k[key] and a nonce prefix, as 32-bit words
 * read without a lock (aead.c): word 0 is key + 1 (0: unused), then the
 * prefix's four and the subkey's eight. */
enum { SUBKEY_WORDS = 1 + 16 / 4 + crypto_core_hchacha20_OUTPUTBYTES / 4 };
typedef struct open_subkey {
  _Atomic uint32_t w[SUBKEY_WORDS];
} open_subkey;

struct ddbst_cursor_keys {
  ddbst_allocator alloc;
  /* Nonces: 16 random bytes and a counter that starts at a random value,
   * both drawn again in every process that uses the keyring (a server that
   * loads it and then forks workers must not seal with its parent's
   * nonces). A system call for every cursor (randombytes_buf, then
   * getpid) cost more than the sealing itself; the counter keeps nonces
   * unique within a process, the fresh random prefix across processes. */
  pthread_mutex_t nonce_lock;
  unsigned long nonce_gen; /* ddbst__fork_generation when drawn; 0: none */
  uint8_t nonce_prefix[16];
  uint64_t nonce_counter;
  /* HChaCha20 of the first key and the prefix: see ddbst__cursor_seal_aead */
  uint8_t seal_subkey[crypto_core_hchacha20_OUTPUTBYTES];
  /* Opening's subkeys, for the nonce prefixes of the processes whose
   * cursors came back lately (this one's, its siblings'): see
   * ddbst__cursor_open_aead. Read without a lock under a sequence count
   * (odd while a writer changes them; writers hold open_lock). Replaced in
   * turn; wiped with the keys on free. */
  pthread_mutex_t open_lock;
  _Atomic unsigned open_seq;
  open_subkey open[OPEN_SUBKEYS];
  unsigned open_next;
  /* both locks, held across fork() (forksafe.h) */
  ddbst__fork_lock fork_nonce, fork_open;
  int n;
  int64_t max_age; /* seconds; 0: none */
  ring_key k[MAX_KEYS];
};

/* A fresh nonce for sealing with the first key, and its HChaCha20 subkey
 * (aead.c). */
void ddbst__cursor_next_nonce(
    ddbst_cursor_keys *keys, uint8_t nonce[24],
    uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES]);

/* XChaCha20-Poly1305 of m[0..mlen) with associated data ad[0..adlen) into
 * c, with the subkey next_nonce gave for `nonce`; returns the length. */
unsigned long long ddbst__cursor_seal_aead(uint8_t *c, const uint8_t *m,
                                           size_t mlen, const uint8_t *ad,
                                           size_t adlen,
                                           const uint8_t nonce[24],
                                           const uint8_t *subkey);

/* Opens c[0..clen) with key k[key] of the keyring into m; 0 when the tag
 * verifies. */
int ddbst__cursor_open_aead(const ddbst_cursor_keys *keys, int key, uint8_t *m,
                            unsigned long long *mlen, const uint8_t *c,
                            size_t clen, const uint8_t *ad, size_t adlen,
                            const uint8_t nonce[24]);

/* Whether pattern `p` (NULL: a scan) may make or open a cursor with `keys`
 * (NULL: none): 0, or DDBST_EINVAL with path "cursor_keys". */
int ddbst__cursor_need_keys(const ddbst_model *m, const ddbst__pattern *p,
                            const ddbst_cursor_keys *keys, ddbst_error *err);

#endif
