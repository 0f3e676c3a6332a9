/* Pagination cursors: a page's LastEvaluatedKey as a small CBOR envelope,
 * sealed with XChaCha20-Poly1305 and written as base64url; and back, every
 * byte checked, into the next request's ExclusiveStartKey. docs/cursor.md
 * specifies the bytes. Everything works in stack buffers: warm calls never
 * allocate, and libcbor is used only through its allocation-free encoders
 * and its streaming decoder. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cbor.h>
#include <sodium.h>

#include "cursor/cursor.h"
#include "base/b64url.h"
#include "model/facet.h"
#include "base/forksafe.h"
#include "item/keys.h"
#include "item/attribute_value.h"

/* ---- the envelope ---- */

enum {
  FORMAT = 1, /* the high nibble of the first byte */
  F_UNSEALED = 0x01,
  F_TIME = 0x02, /* the payload starts with the issue time */
  F_RAW = 0x04,  /* whole key strings, not facets of the pattern's entity */
  F_RESERVED = 0x08,
  KEY_ID_BYTES = 4,
  NONCE_BYTES = 24,
  TAG_BYTES = 16,
  CHECK_BYTES = 4, /* an unsealed cursor's checksum */
  SEALED_HEAD = 1 + KEY_ID_BYTES + NONCE_BYTES,
  NAME_MAX_BYTES = 255, /* pattern (identifier) and index names */
  /* the context: [pattern, index or null, descending, partition] */
  CONTEXT_MAX = 1 + 2 * (2 + NAME_MAX_BYTES) + 1 + 3 + DDBST__PK_MAX,
  AD_MAX = 1 + KEY_ID_BYTES + CONTEXT_MAX,
  ENV_MAX = 4608, /* envelope bytes: DDBST__CURSOR_MAX_CHARS in base64url */
  MAX_KEYS = 16,
  OPEN_SUBKEYS = 8,                   /* nonce prefixes opening keeps */
  FUTURE_SKEW_S = 300,                /* clocks of two servers may disagree */
  MAX_VALUES = 4 * DDBST__MAX_FACETS, /* facets of four key templates */
  MAX_ITEMS = MAX_VALUES + 2          /* and the issue time, the entity */
};

_Static_assert(NONCE_BYTES == crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
               "XChaCha20 nonce size");
_Static_assert(TAG_BYTES == crypto_aead_xchacha20poly1305_ietf_ABYTES,
               "Poly1305 tag size");
_Static_assert(DDBST_CURSOR_KEY_BYTES ==
                   crypto_aead_xchacha20poly1305_ietf_KEYBYTES,
               "key size");
_Static_assert(crypto_core_hchacha20_INPUTBYTES + 8 == NONCE_BYTES &&
                   crypto_aead_chacha20poly1305_ietf_NPUBBYTES == 4 + 8 &&
                   crypto_aead_chacha20poly1305_ietf_ABYTES == TAG_BYTES,
               "XChaCha20-Poly1305 as HChaCha20 and ChaCha20-Poly1305-IETF");
_Static_assert(DDBST__CURSOR_MAX_CHARS / 4 * 3 == ENV_MAX,
               "the longest text decodes to the largest envelope");
_Static_assert(DDBST__PK_MAX <= 65535 && NAME_MAX_BYTES <= 65535,
               "a context text's head is at most 3 bytes (put_context_text)");

/* ---- the keyring ---- */

typedef struct ring_key {
  uint8_t id[KEY_ID_BYTES];
  uint8_t key[DDBST_CURSOR_KEY_BYTES];
} ring_key;

/* The HChaCha20 subkey of key k[key] and a nonce prefix. */
typedef struct open_subkey {
  int key; /* -1: unused */
  uint8_t prefix[crypto_core_hchacha20_INPUTBYTES];
  uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES];
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
  /* HChaCha20 of the first key and the prefix: see seal_xchacha */
  uint8_t seal_subkey[crypto_core_hchacha20_OUTPUTBYTES];
  /* Opening's subkeys, for the nonce prefixes of the processes whose
   * cursors came back lately (this one's, its siblings'): see
   * open_xchacha. Replaced in turn; wiped with the keys on free. */
  pthread_mutex_t open_lock;
  open_subkey open[OPEN_SUBKEYS];
  unsigned open_next;
  /* both locks, held across fork() (forksafe.h) */
  ddbst__fork_lock fork_nonce, fork_open;
  int n;
  int64_t max_age; /* seconds; 0: none */
  ring_key k[MAX_KEYS];
};

/* The key's id: keyed BLAKE2b of a fixed label, so that it names the key
 * without configuration and reveals nothing of it. */
static void key_id(const uint8_t *key, uint8_t id[KEY_ID_BYTES]) {
  static const char label[] = "ddbst cursor key id";
  uint8_t h[crypto_generichash_BYTES_MIN];
  crypto_generichash(h, sizeof h, (const uint8_t *)label, sizeof label - 1, key,
                     DDBST_CURSOR_KEY_BYTES);
  memcpy(id, h, KEY_ID_BYTES);
}

/* A fresh nonce for sealing with the first key, and the HChaCha20 subkey
 * that goes with it. The keyring is read-only to callers; its nonce state
 * and opening's subkeys (open_xchacha) are the internal exceptions, each
 * behind its own lock. (The first key never changes once there is one:
 * keys are only appended.) */
static void next_nonce(ddbst_cursor_keys *keys, uint8_t nonce[24],
                       uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES]) {
  pthread_mutex_lock(&keys->nonce_lock);
  unsigned long gen = ddbst__fork_generation();
  if (keys->nonce_gen != gen) {
    randombytes_buf(keys->nonce_prefix, sizeof keys->nonce_prefix);
    randombytes_buf(&keys->nonce_counter, sizeof keys->nonce_counter);
    crypto_core_hchacha20(keys->seal_subkey, keys->nonce_prefix,
                          keys->k[0].key, NULL);
    keys->nonce_gen = gen;
  }
  uint64_t c = keys->nonce_counter++;
  memcpy(nonce, keys->nonce_prefix, sizeof keys->nonce_prefix);
  memcpy(subkey, keys->seal_subkey, sizeof keys->seal_subkey);
  pthread_mutex_unlock(&keys->nonce_lock);
  for (int b = 0; b < 8; b++) nonce[16 + b] = (uint8_t)(c >> (8 * b));
}

/* crypto_aead_xchacha20poly1305_ietf_encrypt, in the two libsodium steps it
 * takes itself (draft-irtf-cfrg-xchacha): HChaCha20 of the key and the
 * nonce's first 16 bytes gives a subkey, then ChaCha20-Poly1305 (IETF) with
 * that subkey and the nonce's last 8 bytes. The first 16 bytes are the
 * keyring's prefix, fixed per process, so next_nonce derives the subkey
 * once instead of per cursor (a sixth of a seal). The bytes are the same:
 * the unit tests open with the one-step call. */
static unsigned long long seal_xchacha(uint8_t *c, const uint8_t *m,
                                       size_t mlen, const uint8_t *ad,
                                       size_t adlen, const uint8_t nonce[24],
                                       const uint8_t *subkey) {
  uint8_t npub[crypto_aead_chacha20poly1305_ietf_NPUBBYTES] = {0};
  memcpy(npub + 4, nonce + crypto_core_hchacha20_INPUTBYTES, 8);
  unsigned long long clen = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(c, &clen, m, mlen, ad, adlen,
                                            NULL, npub, subkey);
  return clen;
}

/* crypto_aead_xchacha20poly1305_ietf_decrypt with key k[key], in the same
 * two steps as seal_xchacha. The nonce's first 16 bytes are the sealing
 * process's prefix, so the subkeys of the last few prefixes are kept: a
 * service mostly opens cursors of its own and a few sibling processes, and
 * HChaCha20 was a quarter of the decryption. A kept subkey saves only
 * that: the tag is verified in full either way. Only a cursor that opened
 * adds its prefix, so forged ones cannot push real ones out. Returns 0
 * when the tag verifies. */
static int open_xchacha(const ddbst_cursor_keys *ckeys, int key, uint8_t *m,
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
  if (!hit) crypto_core_hchacha20(subkey, nonce, keys->k[key].key, NULL);
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

ddbst_cursor_keys *ddbst_cursor_keys_new(const ddbst_allocator *alloc) {
  if (sodium_init() < 0) return NULL;
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  ddbst_cursor_keys *keys = ddbst__malloc(&a, sizeof *keys);
  if (!keys) return NULL;
  memset(keys, 0, sizeof *keys);
  keys->alloc = a;
  for (int i = 0; i < OPEN_SUBKEYS; i++) keys->open[i].key = -1;
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
  if (!keys) return;
  ddbst__fork_lock_remove(&keys->fork_nonce);
  ddbst__fork_lock_remove(&keys->fork_open);
  pthread_mutex_destroy(&keys->nonce_lock);
  pthread_mutex_destroy(&keys->open_lock);
  ddbst_allocator a = keys->alloc;
  sodium_memzero(keys, sizeof *keys);
  ddbst__free(&a, keys);
}

void ddbst_cursor_keys_set_max_age(ddbst_cursor_keys *keys, int64_t seconds) {
  if (keys) keys->max_age = seconds > 0 ? seconds : 0;
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
    while (s < end && is_space(*s)) s++;
    while (end > s && is_space(end[-1])) end--;
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
    if (!comma) break;
    s = comma + 1;
  }
  if (!rc) rc = add_keys(keys, parsed, count, "cursor_keys", err);
  sodium_memzero(parsed, sizeof parsed);
  return rc;
}

/* ---- what a pattern's LastEvaluatedKey holds ---- */

/* A query's LastEvaluatedKey holds the key attributes of the last item it
 * read: the table's partition and sort key, and for an index query the
 * index's too. The first is the partition the query fixes. */
enum { ROLE_IX_PK, ROLE_IX_SK, ROLE_PK, ROLE_SK };

typedef struct shape {
  const ddbst_model *m;
  const ddbst__pattern *p;
  const char *name[4];
  const ddbst__jtext *jname[4]; /* "PK": */
  int role[4];
  size_t limit[4];
  int n;
} shape;

static void shape_push(shape *s, const char *name, const ddbst__jtext *jname,
                       int role, size_t limit) {
  for (int i = 0; i < s->n; i++)
    if (s->name[i][0] == name[0] && !strcmp(s->name[i], name)) return;
  s->name[s->n] = name;
  s->jname[s->n] = jname;
  s->role[s->n] = role;
  s->limit[s->n] = limit;
  s->n++;
}

static void shape_of(const ddbst_model *m, const ddbst__pattern *p, shape *s) {
  s->m = m;
  s->p = p;
  s->n = 0;
  if (p->index >= 0) {
    const ddbst__index *ix = &m->indexes[p->index];
    shape_push(s, ix->pk_attr, &ix->pk_jname, ROLE_IX_PK, DDBST__PK_MAX);
    if (ix->sk_attr)
      shape_push(s, ix->sk_attr, &ix->sk_jname, ROLE_IX_SK, DDBST__SK_MAX);
  }
  shape_push(s, m->pk_attr, &m->pk_jname, ROLE_PK, DDBST__PK_MAX);
  if (m->sk_attr)
    shape_push(s, m->sk_attr, &m->sk_jname, ROLE_SK, DDBST__SK_MAX);
}

/* The template an entity writes key attribute `role` with, or NULL. */
static const ddbst__template *template_of(const ddbst__entity *e, int index,
                                          int role) {
  const ddbst__ekey *k = NULL;
  if (role == ROLE_PK || role == ROLE_SK) {
    k = &e->key;
  } else {
    for (int i = 0; i < e->nindexes; i++)
      if (e->indexes[i].index == index) k = &e->indexes[i];
  }
  if (!k) return NULL;
  const ddbst__template *t =
      role == ROLE_IX_PK || role == ROLE_PK ? &k->pk : &k->sk;
  return t->nsegs ? t : NULL;
}

/* A facet as a key holds it: the attribute, and whether the template
 * lower-cases it (the same attribute may appear both ways). */
typedef struct fkey {
  int attr, lower;
} fkey;

/* How one entity's keys become cursor values: the facets of the partition
 * template are fixed by the query; every other facet of the remaining
 * templates is carried once, in order of first appearance. */
typedef struct layout {
  const ddbst__entity *e;
  const ddbst__template *t[4];
  fkey fixed[DDBST__MAX_FACETS];
  int nfixed;
  fkey carried[MAX_VALUES];
  int ncarried;
  /* Where facet f of template t[a] (a >= 1) comes from: carried value k
   * (slot k), or fixed facet k (slot -1 - k). Found here once, so building
   * and splitting keys never searches the lists again. */
  signed char slot[4][DDBST__MAX_FACETS];
} layout;

_Static_assert(MAX_VALUES <= 127 && DDBST__MAX_FACETS <= 128,
               "layout slots fit a signed char");

static int find_fkey(const fkey *list, int n, const ddbst__seg *seg) {
  for (int i = 0; i < n; i++)
    if (list[i].attr == seg->attr && list[i].lower == seg->lower) return i;
  return -1;
}

static int layout_of(const shape *s, int entity, layout *L) {
  const ddbst__entity *e = &s->m->entities[entity];
  L->e = e;
  L->nfixed = L->ncarried = 0;
  for (int a = 0; a < s->n; a++)
    if (!(L->t[a] = template_of(e, s->p->index, s->role[a]))) return -1;
  for (int i = 0; i < L->t[0]->nsegs; i++) {
    const ddbst__seg *seg = &L->t[0]->segs[i];
    if (seg->attr >= 0) L->fixed[L->nfixed++] = (fkey){seg->attr, seg->lower};
  }
  for (int a = 1; a < s->n; a++) {
    int f = 0;
    for (int i = 0; i < L->t[a]->nsegs; i++) {
      const ddbst__seg *seg = &L->t[a]->segs[i];
      if (seg->attr < 0) continue;
      int k = find_fkey(L->fixed, L->nfixed, seg);
      if (k >= 0) {
        L->slot[a][f++] = (signed char)(-1 - k);
        continue;
      }
      k = find_fkey(L->carried, L->ncarried, seg);
      if (k < 0) {
        k = L->ncarried++;
        L->carried[k] = (fkey){seg->attr, seg->lower};
      }
      L->slot[a][f++] = (signed char)k;
    }
  }
  return 0;
}

typedef struct view {
  const char *p;
  size_t n;
} view;

static int view_eq(view a, view b) {
  return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n));
}

static int split(const ddbst_model *m, const ddbst__template *t, view v,
                 size_t *spans) {
  return ddbst__template_split(t, v.p, v.n, m->delim, m->delim_len, spans);
}

/* The facet texts of the partition value, in template order. */
static int partition_facets(const shape *s, const layout *L, view part,
                            view *fixed) {
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!split(s->m, L->t[0], part, spans)) return 0;
  for (int f = 0; f < L->nfixed; f++)
    fixed[f] = (view){part.p + spans[2 * f], spans[2 * f + 1]};
  return 1;
}

/* Whether the keys vals[1..] are keys of the layout's entity in the
 * partition vals[0]; fills the carried facets' texts. */
static int entity_fits(const shape *s, const layout *L, const view *vals,
                       view *carried) {
  view fixed[DDBST__MAX_FACETS];
  if (!partition_facets(s, L, vals[0], fixed)) return 0;
  uint64_t have = 0; /* bit k: carried[k] is set */
  _Static_assert(MAX_VALUES <= 64, "one bit per carried value");
  size_t spans[2 * DDBST__MAX_FACETS];
  for (int a = 1; a < s->n; a++) {
    if (!split(s->m, L->t[a], vals[a], spans)) return 0;
    for (int f = 0; f < L->t[a]->nfacets; f++) {
      view v = {vals[a].p + spans[2 * f], spans[2 * f + 1]};
      int k = L->slot[a][f];
      if (k < 0) {
        if (!view_eq(v, fixed[-1 - k])) return 0;
        continue;
      }
      if ((have >> k & 1) && !view_eq(v, carried[k])) return 0;
      carried[k] = v;
      have |= UINT64_C(1) << k;
    }
  }
  return 1;
}

/* Whether `v` is a key some entity of the model (or a unique guard) could
 * have written as key attribute `role`. */
static int model_fits(const ddbst_model *m, int index, int role, view v) {
  size_t spans[2 * DDBST__MAX_FACETS];
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__template *t = template_of(&m->entities[e], index, role);
    if (t && split(m, t, v, spans)) return 1;
  }
  if (role == ROLE_PK || role == ROLE_SK)
    for (int e = 0; e < m->nentities; e++)
      for (int u = 0; u < m->entities[e].nuniques; u++)
        if (split(m, &m->entities[e].uniques[u].tmpl, v, spans)) return 1;
  return 0;
}

/* ---- CBOR out, into a fixed buffer ---- */

typedef struct cw {
  uint8_t *p;
  size_t len, cap;
  int full;
} cw;

static void cw_took(cw *w, size_t n) {
  if (n == 0) w->full = 1;
  w->len += n;
}

static void put_uint(cw *w, uint64_t v) {
  if (!w->full) cw_took(w, cbor_encode_uint(v, w->p + w->len, w->cap - w->len));
}

static void put_int(cw *w, int64_t v) {
  if (w->full) return;
  cw_took(w, v >= 0
                 ? cbor_encode_uint((uint64_t)v, w->p + w->len, w->cap - w->len)
                 : cbor_encode_negint((uint64_t)(-1 - v), w->p + w->len,
                                      w->cap - w->len));
}

static void put_array(cw *w, size_t n) {
  if (!w->full)
    cw_took(w, cbor_encode_array_start(n, w->p + w->len, w->cap - w->len));
}

static void put_raw(cw *w, const void *p, size_t n) {
  if (w->full) return;
  if (w->cap - w->len < n) {
    w->full = 1;
    return;
  }
  memcpy(w->p + w->len, p, n);
  w->len += n;
}

static void put_text(cw *w, const char *s, size_t n) {
  if (w->full) return;
  cw_took(w, cbor_encode_string_start(n, w->p + w->len, w->cap - w->len));
  put_raw(w, s, n);
}

static void put_bytes(cw *w, const uint8_t *b, size_t n) {
  if (w->full) return;
  cw_took(w, cbor_encode_bytestring_start(n, w->p + w->len, w->cap - w->len));
  put_raw(w, b, n);
}

/* ---- facet values in their compact forms ---- */

static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* Canonical ULID text → its 128 bits. */
static void ulid_to_bytes(const char *s, uint8_t b[16]) {
  memset(b, 0, 16);
  for (int c = 0; c < DDBST__ULID_LEN; c++) {
    unsigned v = (unsigned)(strchr(CROCKFORD, s[c]) - CROCKFORD);
    for (int j = 0; j < 5; j++) {
      int bit = c * 5 + j - 2; /* two leading zero bits */
      if (bit >= 0 && ((v >> (4 - j)) & 1u))
        b[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
    }
  }
}

static int64_t ts_unit(int precision) {
  return precision == DDBST__PREC_S    ? 1000000
         : precision == DDBST__PREC_MS ? 1000
                                       : 1;
}

/* A facet's key text as a typed value when it is the canonical key form of
 * its type (timestamps as units since the epoch, integers as integers,
 * ULIDs as 16 bytes), else as text. */
static void put_facet(cw *w, const ddbst__attr *a, int lower, view v) {
  int plain = !a->escape && !lower; /* the key holds the canonical text */
  if (plain && a->type == DDBST__T_TIMESTAMP) {
    /* ts_to_unix_us takes canonical text only, so text of the length of
     * this precision's is canonical at this precision */
    size_t canon_len = 20 + (a->precision ? (size_t)a->precision + 1 : 0);
    int64_t us;
    if (v.n == canon_len && !ddbst__ts_to_unix_us(v.p, v.n, &us)) {
      put_int(w, us / ts_unit(a->precision));
      return;
    }
  }
  if (plain && a->type == DDBST__T_INTEGER) {
    int64_t x;
    if (!ddbst__int_from_key(v.p, v.n, a->width, a->sortable_negative, &x)) {
      put_int(w, x);
      return;
    }
  }
  if (plain && a->type == DDBST__T_ULID) {
    char tmp[DDBST__ULID_LEN];
    if (!ddbst__ulid_canon(v.p, v.n, tmp) && !memcmp(tmp, v.p, v.n)) {
      uint8_t b[16];
      ulid_to_bytes(v.p, b);
      put_bytes(w, b, sizeof b);
      return;
    }
  }
  put_text(w, v.p, v.n);
}

/* ---- the context: what the cursor is bound to ---- */

/* Text of at most 65535 bytes, with the head libcbor's encoder writes
 * (the shortest), written here: a third of the cost of the context. */
static size_t put_context_text(uint8_t *at, const char *s, size_t n) {
  size_t head = 1;
  if (n < 24) {
    at[0] = (uint8_t)(0x60 | n);
  } else if (n < 256) {
    at[0] = 0x78;
    at[1] = (uint8_t)n;
    head = 2;
  } else {
    at[0] = 0x79;
    at[1] = (uint8_t)(n >> 8);
    at[2] = (uint8_t)n;
    head = 3;
  }
  ddbst__copy((char *)at + head, s, n);
  return head + n;
}

/* The CBOR array [pattern name, index name or null, descending, partition
 * value] into ctx (CONTEXT_MAX bytes); returns its length. It goes into the
 * associated data as it is: CBOR's length prefixes already keep its parts
 * apart, and hashing it first (BLAKE2b) bought nothing for a tenth of the
 * time of a seal and an open. */
static size_t context_of(const ddbst_model *m, const ddbst__pattern *p,
                         view part, uint8_t *ctx) {
  size_t n = 0;
  ctx[n++] = 0x84; /* array of 4 */
  n += put_context_text(ctx + n, p->name, strlen(p->name));
  if (p->index >= 0) {
    const char *ix = m->indexes[p->index].name;
    n += put_context_text(ctx + n, ix, strlen(ix));
  } else {
    ctx[n++] = 0xf6; /* null */
  }
  ctx[n++] = p->descending ? 0xf5 : 0xf4; /* true, false */
  return n + put_context_text(ctx + n, part.p, part.n);
}

static void unsealed_check(const uint8_t *ctx, size_t ctx_len,
                           const uint8_t *env, size_t len,
                           uint8_t out[CHECK_BYTES]) {
  crypto_generichash_state st;
  uint8_t h[crypto_generichash_BYTES_MIN];
  crypto_generichash_init(&st, NULL, 0, sizeof h);
  crypto_generichash_update(&st, ctx, ctx_len);
  crypto_generichash_update(&st, env, len);
  crypto_generichash_final(&st, h, sizeof h);
  memcpy(out, h, CHECK_BYTES);
}

static int need_keys(const ddbst_model *m, const ddbst__pattern *p,
                     const ddbst_cursor_keys *keys, ddbst_error *err) {
  if (!keys && !m->cursors_unsealed)
    return ddbst__fail(err, DDBST_EINVAL, "cursor_keys",
                       "pattern %s: the model's cursors are sealed "
                       "(table.cursors) and no cursor keys were given; "
                       "configure keys, or declare \"cursors\": \"unsealed\" "
                       "for development",
                       p->name);
  if (keys && keys->n == 0)
    return ddbst__fail(err, DDBST_EINVAL, "cursor_keys",
                       "the cursor keyring holds no key");
  return 0;
}

static int64_t now_seconds(int64_t now_us) {
  int64_t us = now_us > 0 ? now_us : ddbst_now_unix_us();
  return us / 1000000;
}

/* ---- sealing ---- */

static int lek_fail(ddbst_error *err, const char *attr, const char *fmt, ...)
    DDBST__PRINTF(3, 4);
static int lek_fail(ddbst_error *err, const char *attr, const char *fmt, ...) {
  char path[DDBST_ERROR_PATH_MAX];
  if (attr)
    snprintf(path, sizeof path, "LastEvaluatedKey.%s", attr);
  else
    snprintf(path, sizeof path, "LastEvaluatedKey");
  va_list ap;
  va_start(ap, fmt);
  int rc = ddbst__vfail(err, DDBST_EVALUE, path, fmt, ap);
  va_end(ap);
  return rc;
}

int ddbst__cursor_seal(const ddbst_cursor_keys *keys, ddbst_item *it,
                       int pattern, const char *const *names,
                       const char *const *vals, const size_t *lens, int n,
                       int64_t now_us, ddbst_buf *out, ddbst_error *err) {
  if (!it || !out || n < 0 || (n > 0 && (!names || !vals || !lens)))
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "values, buffer or LastEvaluatedKey is NULL");
  const ddbst_model *m = it->m;
  if (pattern < 0 || pattern >= m->npatterns)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern index %d is out of range", pattern);
  const ddbst__pattern *p = &m->patterns[pattern];
  int reads = 0;
  for (int i = 0; i < p->nentities; i++) reads |= p->entities[i] == it->entity;
  if (p->op != DDBST__OP_QUERY || !reads)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "%s is not a query of entity %s", p->name,
                       ddbst__entity_of(it)->name);
  int rc = need_keys(m, p, keys, err);
  if (rc) return rc;

  shape s;
  shape_of(m, p, &s);
  const ddbst__template *pt =
      template_of(ddbst__entity_of(it), p->index, s.role[0]);
  if (!pt)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "entity %s has no key in the index pattern %s reads",
                       ddbst__entity_of(it)->name, p->name);
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  uint32_t po, pl;
  rc = ddbst__render_into(it, pt, s.name[0], DDBST__PK_MAX, &po, &pl, err);
  if (rc) return rc;
  view part = {it->keytext.data + po, pl};

  /* the LastEvaluatedKey: exactly the pattern's key attributes */
  view v[4];
  int seen[4] = {0};
  for (int i = 0; i < n; i++) {
    int a = 0;
    while (a < s.n && (names[i][0] != s.name[a][0] ||
                       strcmp(names[i], s.name[a])))
      a++;
    if (a == s.n)
      return lek_fail(err, names[i],
                      "%s is not a key attribute of pattern %s's "
                      "LastEvaluatedKey",
                      names[i], p->name);
    if (seen[a]) return lek_fail(err, names[i], "%s appears twice", names[i]);
    seen[a] = 1;
    v[a] = (view){vals[i], lens[i]};
    if (!vals[i] || lens[i] == 0 || lens[i] > s.limit[a] ||
        ddbst__utf8_check(vals[i], lens[i]))
      return lek_fail(err, names[i],
                      "%s is not a key value DynamoDB could return (empty, "
                      "too long or not UTF-8)",
                      names[i]);
  }
  for (int a = 0; a < s.n; a++)
    if (!seen[a])
      return lek_fail(err, s.name[a], "%s is missing (pattern %s)", s.name[a],
                      p->name);
  if (!view_eq(v[0], part))
    return lek_fail(err, s.name[0],
                    "%s is not the partition this query read (pattern %s)",
                    s.name[0], p->name);

  /* entity form when the keys are an entity's of the pattern, else whole
   * keys for a pattern whose range other items can fall into */
  int flags = 0, pos = -1;
  layout L;
  L.ncarried = 0;
  view carried[MAX_VALUES];
  for (int j = 0; j < p->nentities && pos < 0; j++)
    if (layout_of(&s, p->entities[j], &L) == 0 &&
        entity_fits(&s, &L, v, carried))
      pos = j;
  if (pos < 0) {
    int known = p->type_filter;
    for (int a = 1; known && a < s.n; a++)
      known = model_fits(m, p->index, s.role[a], v[a]);
    if (!known)
      return lek_fail(err, NULL,
                      "the LastEvaluatedKey is no key of pattern %s's "
                      "entities%s",
                      p->name,
                      p->type_filter ? " nor of any entity of the model" : "");
    flags |= F_RAW;
  }
  int64_t issued = -1;
  if (keys && keys->max_age > 0) {
    issued = now_seconds(now_us);
    if (issued < 0)
      return ddbst__fail(err, DDBST_EINVAL, "now_unix_us",
                         "the issue time is before 1970");
    flags |= F_TIME;
  }

  uint8_t env[ENV_MAX];
  size_t head = keys ? SEALED_HEAD : 1;
  cw w = {env + head, 0, ENV_MAX - head - (keys ? TAG_BYTES : CHECK_BYTES), 0};
  int with_entity = pos >= 0 && p->nentities > 1;
  size_t count = (issued >= 0) + (size_t)with_entity +
                 (size_t)(pos >= 0 ? L.ncarried : s.n - 1);
  put_array(&w, count);
  if (issued >= 0) put_uint(&w, (uint64_t)issued);
  if (with_entity) put_uint(&w, (uint64_t)pos);
  if (pos >= 0) {
    for (int i = 0; i < L.ncarried; i++)
      put_facet(&w, &L.e->attrs[L.carried[i].attr], L.carried[i].lower,
                carried[i]);
  } else {
    for (int a = 1; a < s.n; a++) put_text(&w, v[a].p, v[a].n);
  }
  if (w.full)
    return ddbst__fail(err, DDBST_ERANGE, "LastEvaluatedKey",
                       "the cursor would pass %d characters",
                       DDBST__CURSOR_MAX_CHARS);

  uint8_t ad[AD_MAX]; /* first byte, key id, context */
  uint8_t *ctx = ad + 1 + KEY_ID_BYTES;
  size_t ctx_len = context_of(m, p, part, ctx);
  size_t total;
  env[0] = (uint8_t)(FORMAT << 4 | flags | (keys ? 0 : F_UNSEALED));
  if (keys) {
    memcpy(env + 1, keys->k[0].id, KEY_ID_BYTES);
    uint8_t *nonce = env + 1 + KEY_ID_BYTES;
    uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES];
    next_nonce((ddbst_cursor_keys *)keys, nonce, subkey);
    memcpy(ad, env, 1 + KEY_ID_BYTES);
    unsigned long long clen =
        seal_xchacha(env + SEALED_HEAD, env + SEALED_HEAD, w.len, ad,
                     1 + KEY_ID_BYTES + ctx_len, nonce, subkey);
    sodium_memzero(subkey, sizeof subkey);
    total = SEALED_HEAD + (size_t)clen;
  } else {
    total = 1 + w.len;
    unsealed_check(ctx, ctx_len, env, total, env + total);
    total += CHECK_BYTES;
  }

  if (ddbst__buf_reserve(out, total / 3 * 4 + 4))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  out->len += ddbst__b64url_encode(env, total, out->data + out->len);
  return 0;
}

/* ---- opening ---- */

static int refuse(ddbst_error *err, const char *fmt, ...) DDBST__PRINTF(2, 3);
static int refuse(ddbst_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = ddbst__vfail(err, DDBST_ECURSOR, "cursor", fmt, ap);
  va_end(ap);
  return rc;
}

static int refuse_count(ddbst_error *err, int got, const char *pattern,
                        int want) {
  return refuse(err,
                "the cursor holds %d value%s, where pattern %s's cursor "
                "holds %d",
                got, got == 1 ? "" : "s", pattern, want);
}

/* The payload, decoded by libcbor's streaming decoder into views of the
 * plaintext: one definite array of integers, text and byte strings. */
enum { K_UINT, K_NEGINT, K_TEXT, K_BYTES };

typedef struct citem {
  int kind;
  uint64_t u; /* K_NEGINT: the value is -1 - u */
  const uint8_t *p;
  size_t n;
} citem;

typedef struct dec {
  citem it[MAX_ITEMS];
  int n;
  size_t expect;
  int started;
  int bad;
} dec;

static void d_add(dec *d, int kind, uint64_t u, const uint8_t *p, size_t n) {
  if (!d->started || d->n == MAX_ITEMS) {
    d->bad = 1;
    return;
  }
  d->it[d->n++] = (citem){kind, u, p, n};
}
static void d_u8(void *c, uint8_t v) { d_add(c, K_UINT, v, NULL, 0); }
static void d_u16(void *c, uint16_t v) { d_add(c, K_UINT, v, NULL, 0); }
static void d_u32(void *c, uint32_t v) { d_add(c, K_UINT, v, NULL, 0); }
static void d_u64(void *c, uint64_t v) { d_add(c, K_UINT, v, NULL, 0); }
static void d_n8(void *c, uint8_t v) { d_add(c, K_NEGINT, v, NULL, 0); }
static void d_n16(void *c, uint16_t v) { d_add(c, K_NEGINT, v, NULL, 0); }
static void d_n32(void *c, uint32_t v) { d_add(c, K_NEGINT, v, NULL, 0); }
static void d_n64(void *c, uint64_t v) { d_add(c, K_NEGINT, v, NULL, 0); }
static void d_text(void *c, cbor_data p, size_t n) {
  d_add(c, K_TEXT, 0, p, n);
}
static void d_bytes(void *c, cbor_data p, size_t n) {
  d_add(c, K_BYTES, 0, p, n);
}
static void d_array(void *c, size_t n) {
  dec *d = c;
  if (d->started) d->bad = 1;
  d->started = 1;
  d->expect = n;
}
static void d_bad(void *c) { ((dec *)c)->bad = 1; }
static void d_bad_size(void *c, size_t n) {
  (void)n;
  d_bad(c);
}
static void d_bad_u64(void *c, uint64_t v) {
  (void)v;
  d_bad(c);
}
static void d_bad_float(void *c, float v) {
  (void)v;
  d_bad(c);
}
static void d_bad_double(void *c, double v) {
  (void)v;
  d_bad(c);
}
static void d_bad_bool(void *c, bool v) {
  (void)v;
  d_bad(c);
}

static const struct cbor_callbacks decoder = {
    .uint8 = d_u8,
    .uint16 = d_u16,
    .uint32 = d_u32,
    .uint64 = d_u64,
    .negint64 = d_n64,
    .negint32 = d_n32,
    .negint16 = d_n16,
    .negint8 = d_n8,
    .byte_string_start = d_bad,
    .byte_string = d_bytes,
    .string = d_text,
    .string_start = d_bad,
    .indef_array_start = d_bad,
    .array_start = d_array,
    .indef_map_start = d_bad,
    .map_start = d_bad_size,
    .tag = d_bad_u64,
    .float2 = d_bad_float,
    .float4 = d_bad_float,
    .float8 = d_bad_double,
    .undefined = d_bad,
    .null = d_bad,
    .boolean = d_bad_bool,
    .indef_break = d_bad,
};

static int decode_payload(const uint8_t *p, size_t n, dec *d,
                          ddbst_error *err) {
  /* not the items: only the first d->n are ever read */
  d->n = 0;
  d->expect = 0;
  d->started = d->bad = 0;
  size_t off = 0;
  do {
    struct cbor_decoder_result r =
        cbor_stream_decode(p + off, n - off, &decoder, d);
    if (r.status != CBOR_DECODER_FINISHED)
      return refuse(err, "the cursor's contents are malformed: %s",
                    r.status == CBOR_DECODER_NEDATA ? "they end early"
                                                    : "not CBOR");
    if (d->bad)
      return refuse(err, "the cursor's contents are malformed: an item "
                         "that is no cursor value");
    off += r.read;
    if (d->expect > MAX_ITEMS)
      return refuse(err, "the cursor's contents are malformed: %zu values",
                    d->expect);
  } while ((size_t)d->n < d->expect);
  if (off != n)
    return refuse(err,
                  "the cursor's contents are malformed: %zu bytes "
                  "after its values",
                  n - off);
  return 0;
}

static int64_t ipow10(int k) {
  static const int64_t small[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  if (k >= 0 && k < 7) return small[k];
  int64_t x = 1;
  while (k-- > 0) x *= 10;
  return x;
}

static int has_delim(const ddbst_model *m, view v) {
  return ddbst__find_delim(v.p, v.n, m->delim, m->delim_len) != NULL;
}

/* A carried facet from its cursor value: its key text, into scratch.
 * *clean says whether the text is known to be non-empty and free of a
 * one-byte delimiter (build_key then need not split the key back). */
static int facet_text(const ddbst_model *m, const ddbst__attr *a, int lower,
                      const citem *c, char *scratch, size_t *used, view *out,
                      int *clean, ddbst_error *err) {
  char *dst = scratch + *used;
  size_t n = 0;
  const char *bad = NULL;
  if (c->kind == K_TEXT) {
    out->p = (const char *)c->p;
    out->n = c->n;
    if (c->n == 0) return refuse(err, "the cursor's %s is empty", a->name);
    if ((bad = ddbst__utf8_check(out->p, out->n)))
      return refuse(err, "the cursor's %s %s", a->name,
                    strcmp(bad, "contains a NUL byte") ? "is not valid UTF-8"
                                                       : bad);
    if (has_delim(m, *out))
      return refuse(err, "the cursor's %s contains the key delimiter", a->name);
    for (size_t i = 0; lower && i < out->n; i++)
      if (out->p[i] >= 'A' && out->p[i] <= 'Z')
        return refuse(err,
                      "the cursor's %s is not lower-case, as its key "
                      "holds it",
                      a->name);
    *clean = 1; /* non-empty, and has_delim found no delimiter */
    return 0;
  }
  int plain = !a->escape && !lower;
  int typed_int =
      plain && (a->type == DDBST__T_TIMESTAMP || a->type == DDBST__T_INTEGER);
  if ((c->kind == K_UINT || c->kind == K_NEGINT) && typed_int) {
    if (c->u > (uint64_t)INT64_MAX)
      return refuse(err, "the cursor's %s is out of range", a->name);
    int64_t x = c->kind == K_UINT ? (int64_t)c->u : -1 - (int64_t)c->u;
    if (a->type == DDBST__T_TIMESTAMP) {
      int64_t unit = ipow10(6 - a->precision);
      if (x > INT64_MAX / unit || x < INT64_MIN / unit)
        return refuse(err, "the cursor's %s is out of range", a->name);
      bad = ddbst__ts_from_unix_us(x * unit, a->precision, dst, &n);
    } else {
      bad = ddbst__int_key(x, a->width, a->sortable_negative, dst, &n);
    }
    if (bad) return refuse(err, "the cursor's %s: %s", a->name, bad);
  } else if (c->kind == K_BYTES && plain && a->type == DDBST__T_ULID &&
             c->n == 16) {
    uint64_t ms = 0;
    for (int k = 0; k < 6; k++) ms = ms << 8 | c->p[k];
    ddbst__ulid_encode(ms, c->p + 6, dst);
    n = DDBST__ULID_LEN;
  } else {
    return refuse(err, "the cursor's value for %s is of the wrong type",
                  a->name);
  }
  out->p = dst;
  out->n = n;
  *used += n;
  /* a typed form's alphabet may hold the delimiter ('-', ':', a digit) */
  *clean = n > 0 && m->delim_len == 1 && !memchr(dst, m->delim[0], n);
  return 0;
}

/* Appends `{` (first) or `,`, then "name":{"S":"v"}. Text that needs no
 * JSON escape (nearly every key) goes in with one reservation. */
static int write_key(ddbst_buf *out, int first, const ddbst__jtext *name,
                     view v) {
  if (ddbst__json_plain_len(v.p, v.n) == v.n) {
    if (ddbst__buf_reserve(out, 1 + (size_t)name->n + v.n + 8))
      return DDBST_ENOMEM;
    char *o = out->data + out->len;
    *o++ = first ? '{' : ',';
    ddbst__copy(o, name->p, name->n);
    out->len = (size_t)(ddbst__put_s(o + name->n, v.p, v.n) - out->data);
    return 0;
  }
  int rc = ddbst__buf_putc(out, first ? '{' : ',');
  rc = rc ? rc : ddbst__buf_append(out, name->p, name->n);
  return rc ? rc : ddbst__write_s(out, v.p, v.n);
}

/* Builds key attribute `a` from its template, the partition's facets and
 * the carried ones, into kbuf; checks it splits back.
 *
 * With a one-byte delimiter, a key whose every facet is non-empty and free
 * of the delimiter splits back by construction: literals match where they
 * were written, a facet's run ends where the next literal (which starts
 * with the delimiter: ddbst__template_compile) begins, or at the end. The
 * partition's facets are such (ddbst__template_split cut them at the
 * delimiter), and so are carried values whose bit in `unclean` is clear;
 * only other keys are split again. (A longer delimiter could straddle a
 * facet's end and the literal after it, so those keys are always split.) */
static int build_key(const shape *s, const layout *L, int a, const view *fixed,
                     const view *carried, uint64_t unclean, char *kbuf,
                     view *key, ddbst_error *err) {
  const ddbst__template *t = L->t[a];
  size_t n = 0, limit = s->limit[a];
  int f = 0, clean = s->m->delim_len == 1;
  for (int i = 0; i < t->nsegs; i++) {
    const ddbst__seg *seg = &t->segs[i];
    view part;
    if (seg->attr < 0) {
      part = (view){seg->text, seg->len};
    } else {
      int k = L->slot[a][f++];
      if (k < 0) {
        part = fixed[-1 - k];
      } else {
        part = carried[k];
        clean &= !(unclean >> k & 1);
      }
    }
    if (part.n > limit - n)
      return refuse(err, "the cursor would make %s longer than %zu bytes",
                    s->name[a], s->limit[a]);
    ddbst__copy(kbuf + n, part.p, part.n);
    n += part.n;
  }
  *key = (view){kbuf, n};
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!clean && !split(s->m, t, *key, spans))
    return refuse(err, "the cursor's %s is outside entity %s's key space (%s)",
                  s->name[a], L->e->name, t->source);
  return 0;
}

int ddbst__cursor_open(const ddbst_cursor_keys *keys, const ddbst_model *m,
                       int pattern, const char *partition, size_t partition_len,
                       const char *cursor, size_t len, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err) {
  if (!m || !out || !partition || (!cursor && len))
    return ddbst__fail(err, DDBST_EINVAL, NULL, "an argument is NULL");
  if (pattern < 0 || pattern >= m->npatterns)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern index %d is out of range", pattern);
  const ddbst__pattern *p = &m->patterns[pattern];
  int rc = need_keys(m, p, keys, err);
  if (rc) return rc;
  if (len == 0) return refuse(err, "the cursor is empty");
  if (len > DDBST__CURSOR_MAX_CHARS)
    return refuse(err,
                  "the cursor is %zu characters long; a cursor has at "
                  "most %d",
                  len, DDBST__CURSOR_MAX_CHARS);

  uint8_t env[ENV_MAX + DDBST__B64URL_SLACK];
  size_t elen = 0, bad = 0;
  int b64 = ddbst__b64url_decode(cursor, len, env, &elen, &bad);
  if (b64 == 1) {
    rc = refuse(err,
                "the cursor is not base64url: character %zu is not one "
                "of A-Z a-z 0-9 - _ (no padding, no spaces)",
                bad + 1);
    if (err) err->offset = bad;
    return rc;
  }
  if (b64)
    return refuse(err, "the cursor is not base64url: it does not end on a "
                       "whole byte (cut short, or its last character "
                       "altered)");

  uint8_t h = env[0];
  if (h >> 4 != FORMAT)
    return refuse(err,
                  "the cursor's format is %u; this library reads format "
                  "%d",
                  (unsigned)(h >> 4), FORMAT);
  if (h & F_RESERVED)
    return refuse(err, "the cursor sets a flag this library does not know");
  int unsealed = h & F_UNSEALED;
  if (unsealed && keys)
    return refuse(err, "the cursor is unsealed, but cursor keys are "
                       "configured: only sealed cursors are accepted");
  if (!unsealed && !keys)
    return refuse(err, "the cursor is sealed, but no cursor keys are "
                       "configured to open it");

  view part = {partition, partition_len};
  if (partition_len > DDBST__PK_MAX)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "the partition is too long");
  uint8_t ad[AD_MAX]; /* first byte, key id, context */
  uint8_t *ctx = ad + 1 + KEY_ID_BYTES;
  size_t ctx_len = context_of(m, p, part, ctx);
  uint8_t plain[ENV_MAX];
  size_t plen = 0;
  if (!unsealed) {
    size_t least = SEALED_HEAD + 1 + TAG_BYTES;
    if (elen < least)
      return refuse(err,
                    "the cursor is truncated: %zu bytes, where a sealed "
                    "cursor has at least %zu",
                    elen, least);
    memcpy(ad, env, 1 + KEY_ID_BYTES);
    int known = 0, opened = 0;
    for (int i = 0; i < keys->n && !opened; i++) {
      if (memcmp(keys->k[i].id, env + 1, KEY_ID_BYTES)) continue;
      known = 1;
      unsigned long long ml = 0;
      opened = open_xchacha(keys, i, plain, &ml, env + SEALED_HEAD,
                            elen - SEALED_HEAD, ad, 1 + KEY_ID_BYTES + ctx_len,
                            env + 1 + KEY_ID_BYTES) == 0;
      plen = (size_t)ml;
    }
    if (!known)
      return refuse(err,
                    "the cursor was sealed with a key that is not in the "
                    "keyring (key id %02x%02x%02x%02x)",
                    env[1], env[2], env[3], env[4]);
    if (!opened)
      return refuse(err, "the cursor does not open: it was made for another "
                         "pattern, index, sort order or partition, or it was "
                         "altered");
  } else {
    size_t least = 1 + 1 + CHECK_BYTES;
    if (elen < least)
      return refuse(err,
                    "the cursor is truncated: %zu bytes, where an "
                    "unsealed cursor has at least %zu",
                    elen, least);
    uint8_t check[CHECK_BYTES];
    unsealed_check(ctx, ctx_len, env, elen - CHECK_BYTES, check);
    if (memcmp(check, env + elen - CHECK_BYTES, CHECK_BYTES))
      return refuse(err, "the unsealed cursor does not fit this query: it was "
                         "made for another pattern, index, sort order or "
                         "partition, or it was altered");
    plen = elen - 1 - CHECK_BYTES;
    memcpy(plain, env + 1, plen);
  }

  dec d;
  rc = decode_payload(plain, plen, &d, err);
  if (rc) return rc;
  int at = 0;
  if (h & F_TIME) {
    if (d.n == 0 || d.it[0].kind != K_UINT)
      return refuse(err, "the cursor's contents are malformed: no issue time");
    at++;
  }
  if (keys && keys->max_age > 0) {
    if (!(h & F_TIME))
      return refuse(err,
                    "the cursor carries no issue time, and cursors older "
                    "than %lld s are refused",
                    (long long)keys->max_age);
    int64_t now = now_seconds(now_us);
    uint64_t issued = d.it[0].u;
    if (issued > (uint64_t)now + FUTURE_SKEW_S)
      return refuse(err, "the cursor was issued %llu s in the future",
                    (unsigned long long)(issued - (uint64_t)now));
    if (now - (int64_t)issued > keys->max_age)
      return refuse(err,
                    "the cursor expired: issued %lld s ago, and cursors "
                    "older than %lld s are refused",
                    (long long)(now - (int64_t)issued),
                    (long long)keys->max_age);
  }

  shape s;
  shape_of(m, p, &s);
  if (write_key(out, 1, s.jname[0], part))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  char kbuf[DDBST__PK_MAX];
  if (h & F_RAW) {
    if (!p->type_filter)
      return refuse(err,
                    "the cursor holds whole keys, which pattern %s never "
                    "makes: no other items share its key range",
                    p->name);
    if (d.n - at != s.n - 1)
      return refuse_count(err, d.n - at, p->name, s.n - 1);
    for (int a = 1; a < s.n; a++) {
      const citem *c = &d.it[at + a - 1];
      view v = {(const char *)c->p, c->n};
      if (c->kind != K_TEXT || c->n == 0 || c->n > s.limit[a] ||
          ddbst__utf8_check(v.p, v.n))
        return refuse(err,
                      "the cursor's %s is no key value (a non-empty "
                      "UTF-8 string of at most %zu bytes)",
                      s.name[a], s.limit[a]);
      if (!model_fits(m, p->index, s.role[a], v))
        return refuse(err, "the cursor's %s is no key of the model", s.name[a]);
      if (write_key(out, 0, s.jname[a], v))
        return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    }
  } else {
    int pos = 0;
    if (p->nentities > 1) {
      if (at >= d.n || d.it[at].kind != K_UINT ||
          d.it[at].u >= (uint64_t)p->nentities)
        return refuse(err, "the cursor names no entity of pattern %s", p->name);
      pos = (int)d.it[at++].u;
    }
    layout L;
    view fixed[DDBST__MAX_FACETS], carried[MAX_VALUES];
    if (layout_of(&s, p->entities[pos], &L) ||
        !partition_facets(&s, &L, part, fixed))
      return refuse(err, "the cursor's entity does not fit this query's "
                         "partition");
    if (d.n - at != L.ncarried)
      return refuse_count(err, d.n - at, p->name, L.ncarried);
    char scratch[MAX_VALUES * DDBST__TS_MAX];
    size_t used = 0;
    uint64_t unclean = 0; /* bit i: carried[i] may hold the delimiter */
    for (int i = 0; i < L.ncarried; i++) {
      int clean = 0;
      rc = facet_text(m, &L.e->attrs[L.carried[i].attr], L.carried[i].lower,
                      &d.it[at + i], scratch, &used, &carried[i], &clean, err);
      if (rc) return rc;
      if (!clean) unclean |= UINT64_C(1) << i;
    }
    for (int a = 1; a < s.n; a++) {
      view key;
      rc = build_key(&s, &L, a, fixed, carried, unclean, kbuf, &key, err);
      if (rc) return rc;
      if (write_key(out, 0, s.jname[a], key))
        return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    }
  }
  if (ddbst__buf_putc(out, '}'))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}
