/* The last step of every cursor made (seal.c, native.c): the envelope
 * sealed with the newest key (or checksummed, unsealed) and bound to its
 * context, written as base64url. */
#include <string.h>

#include "base/b64url.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"

int ddbst__cursor_start(const ddbst_cursor_keys *keys, int64_t now_us,
                        uint8_t *env, cw *w, int64_t *issued, int *flags,
                        ddbst_error *err) {
  *issued = -1;
  *flags = 0;
  if (keys && keys->max_age > 0) {
    *issued = ddbst__cursor_now_s(now_us);
    if (*issued < 0)
      return ddbst__fail(err, DDBST_EINVAL, "now_unix_us",
                         "the issue time is before 1970");
    *flags = F_TIME;
  }
  size_t head = keys ? SEALED_HEAD : 1;
  *w = (cw){env + head, 0, ENV_MAX - head - (keys ? TAG_BYTES : CHECK_BYTES),
            0};
  return 0;
}

/* Seals (or checksums) the envelope env[0..) whose payload, w_len bytes,
 * was written after its head, binds it to pattern `p` and partition
 * `part`, and appends it as base64url. */
int ddbst__cursor_finish(const ddbst_cursor_keys *keys, const ddbst_model *m,
                         const ddbst__pattern *p, view part, int flags,
                         uint8_t *env, size_t w_len, ddbst_buf *out,
                         ddbst_error *err) {
  uint8_t ad[AD_MAX]; /* first byte, key id, context */
  size_t ctx_len =
      ddbst__cursor_context(m, p, part.p, part.n, ad + 1 + KEY_ID_BYTES);
  return ddbst__cursor_finish_ctx(keys, ad, ctx_len, flags, env, w_len, out,
                                  err);
}

int ddbst__cursor_finish_ctx(const ddbst_cursor_keys *keys, uint8_t *ad,
                             size_t ctx_len, int flags, uint8_t *env,
                             size_t w_len, ddbst_buf *out, ddbst_error *err) {
  uint8_t *ctx = ad + 1 + KEY_ID_BYTES;
  size_t total;
  env[0] = (uint8_t)(FORMAT << 4 | flags | (keys ? 0 : F_UNSEALED));
  if (keys) {
    memcpy(env + 1, keys->k[0].id, KEY_ID_BYTES);
    uint8_t *nonce = env + 1 + KEY_ID_BYTES;
    uint8_t subkey[crypto_core_hchacha20_OUTPUTBYTES];
    ddbst__cursor_next_nonce((ddbst_cursor_keys *)keys, nonce, subkey);
    memcpy(ad, env, 1 + KEY_ID_BYTES);
    unsigned long long clen =
        ddbst__cursor_seal_aead(env + SEALED_HEAD, env + SEALED_HEAD, w_len, ad,
                                1 + KEY_ID_BYTES + ctx_len, nonce, subkey);
    sodium_memzero(subkey, sizeof subkey);
    total = SEALED_HEAD + (size_t)clen;
  } else {
    total = 1 + w_len;
    ddbst__cursor_check(ctx, ctx_len, env, total, env + total);
    total += CHECK_BYTES;
  }

  if (ddbst__buf_reserve(out, total / 3 * 4 + 4))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  out->len += ddbst__b64url_encode(env, total, out->data + out->len);
  return 0;
}
