/* The cursor keyring: keys (rotation: the first seals, every one opens),
 * their ids, and the maximum age. */
#include "cursor/keyring.h"

#include <string.h>

/* The key's id: keyed BLAKE2b of a fixed label, so that it names the key
 * without configuration and reveals nothing of it. */
static void key_id(const uint8_t *key, uint8_t id[KEY_ID_BYTES]) {
  static const char label[] = "ddbst cursor key id";
  uint8_t h[crypto_generichash_BYTES_MIN];
  crypto_generichash(h, sizeof h, (const uint8_t *)label, sizeof label - 1, key,
                     DDBST_CURSOR_KEY_BYTES);
  memcpy(id, h, KEY_ID_BYTES);
}

ddbst_cursor_keys *ddbst_cursor_keys_new(const ddbst_allocator *alloc) {
  if (sodium_init() < 0)
    return NULL;
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  ddbst_cursor_keys *keys = ddbst__malloc(&a, sizeof *keys);
  if (!keys)
    return NULL;
  memset(keys, 0, sizeof *keys);
  keys->alloc = a; /* every kept subkey unused: word 0 is 0 */
  if (pthread_mutex_init(&keys->nonce_lock, NULL) != 0) {
    ddbst__free(&a, keys);
    return NULL;
  }
  if (pthread_mutex_init(&keys->open_lock, NULL) != 0) {
    pthread_mutex_destroy(&keys->nonce_lock);
    ddbst__free(&a, keys);
    return NULL;
  }
  if (ddbst__fork_lock_add(&keys->fork_nonce, &keys->nonce_lock) ||
      ddbst__fork_lock_add(&keys->fork_open, &keys->open_lock)) {
    ddbst_cursor_keys_free(keys);
    return NULL;
  }
  return keys;
}

void ddbst_cursor_keys_free(ddbst_cursor_keys *keys) {
  if (!keys)
    return;
  ddbst__fork_lock_remove(&keys->fork_nonce);
  ddbst__fork_lock_remove(&keys->fork_open);
  pthread_mutex_destroy(&keys->nonce_lock);
  pthread_mutex_destroy(&keys->open_lock);
  ddbst_allocator a = keys->alloc;
  sodium_memzero(keys, sizeof *keys);
  ddbst__free(&a, keys);
}

void ddbst_cursor_keys_set_max_age(ddbst_cursor_keys *keys, int64_t seconds) {
  if (keys)
    keys->max_age = seconds > 0 ? seconds : 0;
}

/* Adds `count` keys, all or none; messages number them from 1. */
static int add_keys(ddbst_cursor_keys *keys,
                    uint8_t (*add)[DDBST_CURSOR_KEY_BYTES], int count,
                    const char *path, ddbst_error *err) {
  if (keys->n + count > MAX_KEYS)
    return ddbst__fail(err, DDBST_ERANGE, path,
                       "a keyring holds at most %d keys; it has %d and %d "
                       "more were given",
                       MAX_KEYS, keys->n, count);
  static const uint8_t zero[DDBST_CURSOR_KEY_BYTES];
  for (int i = 0; i < count; i++) {
    if (sodium_memcmp(add[i], zero, sizeof zero) == 0)
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "cursor key %d is all zero bytes: a placeholder, "
                         "not a key",
                         i + 1);
    int dup = 0;
    for (int j = 0; j < keys->n; j++)
      dup |= sodium_memcmp(add[i], keys->k[j].key, DDBST_CURSOR_KEY_BYTES) == 0;
    for (int j = 0; j < i; j++)
      dup |= sodium_memcmp(add[i], add[j], DDBST_CURSOR_KEY_BYTES) == 0;
    if (dup)
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "cursor key %d is already in the keyring", i + 1);
  }
  for (int i = 0; i < count; i++) {
    ring_key *k = &keys->k[keys->n++];
    memcpy(k->key, add[i], DDBST_CURSOR_KEY_BYTES);
    key_id(k->key, k->id);
  }
  return 0;
}

int ddbst_cursor_keys_add(ddbst_cursor_keys *keys,
                          const uint8_t key[DDBST_CURSOR_KEY_BYTES],
                          ddbst_error *err) {
  if (!keys || !key)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "keyring or key is NULL");
  uint8_t one[1][DDBST_CURSOR_KEY_BYTES];
  memcpy(one[0], key, DDBST_CURSOR_KEY_BYTES);
  int rc = add_keys(keys, one, 1, "cursor_keys", err);
  sodium_memzero(one, sizeof one);
  return rc;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int ddbst_cursor_keys_add_hex(ddbst_cursor_keys *keys, const char *hex,
                              ddbst_error *err) {
  if (!keys || !hex)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "keyring or text is NULL");
  uint8_t parsed[MAX_KEYS][DDBST_CURSOR_KEY_BYTES];
  int count = 0, rc = 0;
  const char *s = hex;
  for (;;) {
    const char *comma = strchr(s, ',');
    const char *end = comma ? comma : s + strlen(s);
    while (s < end && is_space(*s))
      s++;
    while (end > s && is_space(end[-1]))
      end--;
    size_t n = (size_t)(end - s);
    if (count == MAX_KEYS) {
      rc = ddbst__fail(err, DDBST_ERANGE, "cursor_keys",
                       "more than %d keys: a keyring holds at most %d",
                       MAX_KEYS, MAX_KEYS);
      break;
    }
    size_t bin_len = 0;
    const char *hex_end = NULL;
    if (n == 0) {
      rc = ddbst__fail(err, DDBST_EVALUE, "cursor_keys",
                       "cursor key %d is empty: expected 64 hex characters",
                       count + 1);
      break;
    }
    if (n != 2 * DDBST_CURSOR_KEY_BYTES) {
      rc = ddbst__fail(err, DDBST_EVALUE, "cursor_keys",
                       "cursor key %d has %zu characters: expected 64 hex "
                       "characters (32 bytes)",
                       count + 1, n);
      break;
    }
    if (sodium_hex2bin(parsed[count], DDBST_CURSOR_KEY_BYTES, s, n, NULL,
                       &bin_len, &hex_end) != 0 ||
        bin_len != DDBST_CURSOR_KEY_BYTES || hex_end != end) {
      rc = ddbst__fail(err, DDBST_EVALUE, "cursor_keys",
                       "cursor key %d is not hexadecimal", count + 1);
      break;
    }
    count++;
    if (!comma)
      break;
    s = comma + 1;
  }
  if (!rc)
    rc = add_keys(keys, parsed, count, "cursor_keys", err);
  sodium_memzero(parsed, sizeof parsed);
  return rc;
}

int ddbst__cursor_need_keys(const ddbst_model *m, const ddbst__pattern *p,
                            const ddbst_cursor_keys *keys, ddbst_error *err) {
  if (!keys && !m->cursors_unsealed)
    return ddbst__fail(err, DDBST_EINVAL, "cursor_keys",
                       "%s%s%sthe model's cursors are sealed "
                       "(table.cursors) and no cursor keys were given; "
                       "configure keys, or declare \"cursors\": \"unsealed\" "
                       "for development",
                       p ? "pattern " : "", p ? p->name : "", p ? ": " : "");
  if (keys && keys->n == 0)
    return ddbst__fail(err, DDBST_EINVAL, "cursor_keys",
                       "the cursor keyring holds no key");
  return 0;
}
