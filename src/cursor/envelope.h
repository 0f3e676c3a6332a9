/* The cursor's envelope (docs/cursor.md): its format and limits, the CBOR
 * the payload is written in, the context a cursor is bound to, and the
 * payload read back. Internal to src/cursor/. */
#ifndef DDBST_CURSOR_ENVELOPE_H
#define DDBST_CURSOR_ENVELOPE_H

#include <stdint.h>
#include <string.h>

#include <cbor.h>
#include <sodium.h>

#include "cursor/cursor.h"

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

/* ---- CBOR out, into a fixed buffer: the first that does not fit sets
 * `full`, and everything after it is a no-op ---- */

typedef struct cw {
  uint8_t *p;
  size_t len, cap;
  int full;
} cw;

static inline void cw_took(cw *w, size_t n) {
  if (n == 0)
    w->full = 1;
  w->len += n;
}

static inline void cw_uint(cw *w, uint64_t v) {
  if (!w->full)
    cw_took(w, cbor_encode_uint(v, w->p + w->len, w->cap - w->len));
}

static inline void cw_int(cw *w, int64_t v) {
  if (w->full)
    return;
  cw_took(w, v >= 0
                 ? cbor_encode_uint((uint64_t)v, w->p + w->len, w->cap - w->len)
                 : cbor_encode_negint((uint64_t)(-1 - v), w->p + w->len,
                                      w->cap - w->len));
}

static inline void cw_array(cw *w, size_t n) {
  if (!w->full)
    cw_took(w, cbor_encode_array_start(n, w->p + w->len, w->cap - w->len));
}

static inline void cw_raw(cw *w, const void *p, size_t n) {
  if (w->full)
    return;
  if (w->cap - w->len < n) {
    w->full = 1;
    return;
  }
  memcpy(w->p + w->len, p, n);
  w->len += n;
}

static inline void cw_text(cw *w, const char *s, size_t n) {
  if (w->full)
    return;
  cw_took(w, cbor_encode_string_start(n, w->p + w->len, w->cap - w->len));
  cw_raw(w, s, n);
}

static inline void cw_bytes(cw *w, const uint8_t *b, size_t n) {
  if (w->full)
    return;
  cw_took(w, cbor_encode_bytestring_start(n, w->p + w->len, w->cap - w->len));
  cw_raw(w, b, n);
}

/* ---- the payload read back ---- */

/* The payload, read into views of the plaintext (envelope.c): one
 * definite array of integers, text and byte strings. */
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
} dec;

/* Decodes the payload p[0..n) into `d`: views of the plaintext. 0, or
 * DDBST_ECURSOR with a message. */
int ddbst__cursor_decode(const uint8_t *p, size_t n, dec *d, ddbst_error *err);

/* ---- the context, and what every cursor call checks first ---- */

/* The CBOR array [pattern name, index name or null, descending, partition
 * value] of pattern `p` and partition `part` into ctx (CONTEXT_MAX bytes);
 * returns its length. */
size_t ddbst__cursor_context(const ddbst_model *m, const ddbst__pattern *p,
                             const char *part, size_t part_len, uint8_t *ctx);

/* An unsealed cursor's checksum of its context and envelope. */
void ddbst__cursor_check(const uint8_t *ctx, size_t ctx_len, const uint8_t *env,
                         size_t len, uint8_t out[CHECK_BYTES]);

static inline int64_t ddbst__cursor_now_s(int64_t now_us) {
  int64_t us = now_us > 0 ? now_us : ddbst_now_unix_us();
  return us / 1000000;
}

/* DDBST_ECURSOR with path "cursor" and the message. */
int ddbst__cursor_refuse(ddbst_error *err, const char *fmt, ...)
    DDBST__PRINTF(2, 3);

/* DDBST_EVALUE with path "LastEvaluatedKey" or "LastEvaluatedKey.<attr>"
 * and the message: a LastEvaluatedKey refused by sealing. */
int ddbst__cursor_lek_fail(ddbst_error *err, const char *attr, const char *fmt,
                           ...) DDBST__PRINTF(3, 4);

/* Whether p[0..n) is a number as DynamoDB writes one: non-empty, of
 * digits, sign, point and exponent. */
int ddbst__cursor_number_text(const char *p, size_t n);

#endif
