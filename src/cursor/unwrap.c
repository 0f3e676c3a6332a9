/* The steps every cursor opened goes through, a query's or a scan's:
 * base64url, the format byte, the seal (or an unsealed cursor's checksum)
 * against the context the caller binds it to, the payload decoded, and
 * the issue time checked against the keyring's maximum age. */
#include <string.h>

#include "base/b64url.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"

int ddbst__cursor_unwrap(const ddbst_cursor_keys *keys, const char *cursor,
                         size_t len, uint8_t *ad, size_t ctx_len, int64_t now_us,
                         unwrapped *u, ddbst_error *err) {
  if (len == 0) return ddbst__cursor_refuse(err, "the cursor is empty");
  if (len > DDBST__CURSOR_MAX_CHARS)
    return ddbst__cursor_refuse(
        err, "the cursor is %zu characters long; a cursor has at most %d", len,
        DDBST__CURSOR_MAX_CHARS);
  size_t bad = 0;
  u->elen = 0;
  int b64 = ddbst__b64url_decode(cursor, len, u->env, &u->elen, &bad);
  if (b64 == 1) {
    int rc = ddbst__cursor_refuse(
        err,
        "not a ddbst cursor: character %zu is not one of A-Z a-z 0-9 - _ "
        "(a cursor is base64url, with no padding or spaces)",
        bad + 1);
    if (err) err->offset = bad;
    return rc;
  }
  if (b64)
    return ddbst__cursor_refuse(
        err, "not a ddbst cursor: its base64url text does not end on a "
             "whole byte (cut short, or its last character altered)");
  const uint8_t *env = u->env;
  size_t elen = u->elen;
  uint8_t h = u->h = env[0];
  if (h >> 4 != FORMAT)
    return ddbst__cursor_refuse(
        err,
        "not a ddbst cursor: its first byte says format %u, and ddbst "
        "makes and reads format %d",
        (unsigned)(h >> 4), FORMAT);
  if (h & F_RESERVED)
    return ddbst__cursor_refuse(
        err, "the cursor sets a flag this library does not know");
  int unsealed = u->unsealed = h & F_UNSEALED;
  if (unsealed && keys)
    return ddbst__cursor_refuse(err,
                                "the cursor is unsealed, but cursor keys are "
                                "configured: only sealed cursors are accepted");
  if (!unsealed && !keys)
    return ddbst__cursor_refuse(err,
                                "the cursor is sealed, but no cursor keys are "
                                "configured to open it");
  uint8_t *ctx = ad + 1 + KEY_ID_BYTES;
  u->plen = 0;
  u->key_at = 0;
  if (!unsealed) {
    size_t least = SEALED_HEAD + 1 + TAG_BYTES;
    if (elen < least)
      return ddbst__cursor_refuse(
          err,
          "not a ddbst cursor, or one cut short: %zu bytes, where a sealed "
          "cursor has at least %zu",
          elen, least);
    memcpy(ad, env, 1 + KEY_ID_BYTES);
    int known = 0, opened = 0;
    for (int i = 0; i < keys->n && !opened; i++) {
      if (memcmp(keys->k[i].id, env + 1, KEY_ID_BYTES)) continue;
      known = 1;
      u->key_at = i;
      unsigned long long ml = 0;
      opened = ddbst__cursor_open_aead(keys, i, u->plain, &ml,
                                       env + SEALED_HEAD, elen - SEALED_HEAD,
                                       ad, 1 + KEY_ID_BYTES + ctx_len,
                                       env + 1 + KEY_ID_BYTES) == 0;
      u->plen = (size_t)ml;
    }
    if (!known)
      return ddbst__cursor_refuse(
          err,
          "the cursor was sealed with a key this service no longer has "
          "(key id %02x%02x%02x%02x): it was made before that key left the "
          "keyring, or by another service; start again from the first page",
          env[1], env[2], env[3], env[4]);
    if (!opened) return 1;
  } else {
    size_t least = 1 + 1 + CHECK_BYTES;
    if (elen < least)
      return ddbst__cursor_refuse(
          err,
          "not a ddbst cursor, or one cut short: %zu bytes, where an "
          "unsealed cursor has at least %zu",
          elen, least);
    uint8_t check[CHECK_BYTES];
    ddbst__cursor_check(ctx, ctx_len, env, elen - CHECK_BYTES, check);
    if (memcmp(check, env + elen - CHECK_BYTES, CHECK_BYTES)) return 1;
    u->plen = elen - 1 - CHECK_BYTES;
    memcpy(u->plain, env + 1, u->plen);
  }

  int rc = ddbst__cursor_decode(u->plain, u->plen, &u->d, err);
  if (rc) return rc;
  u->at = 0;
  if (h & F_TIME) {
    if (u->d.n == 0 || u->d.it[0].kind != K_UINT)
      return ddbst__cursor_refuse(
          err, "the cursor's contents are malformed: no issue time");
    u->at++;
  }
  if (keys && keys->max_age > 0) {
    if (!(h & F_TIME))
      return ddbst__cursor_refuse(
          err,
          "the cursor carries no issue time, and cursors older "
          "than %lld s are refused",
          (long long)keys->max_age);
    int64_t now = ddbst__cursor_now_s(now_us);
    uint64_t issued = u->d.it[0].u;
    if (issued > (uint64_t)now + FUTURE_SKEW_S)
      return ddbst__cursor_refuse(err,
                                  "the cursor was issued %llu s in the future",
                                  (unsigned long long)(issued - (uint64_t)now));
    if (now - (int64_t)issued > keys->max_age)
      return ddbst__cursor_refuse(
          err,
          "the cursor expired: issued %lld s ago, and cursors "
          "older than %lld s are refused",
          (long long)(now - (int64_t)issued), (long long)keys->max_age);
  }
  return 0;
}

/* Whether the envelope opens against the context at ad (ctx_len bytes):
 * sealed with key k[key_at], or, unsealed, by its checksum. For the
 * diagnosis of a cursor that did not open against its own context. */
int ddbst__cursor_fits(const ddbst_cursor_keys *keys, const unwrapped *u,
                       uint8_t *ad, size_t ctx_len) {
  const uint8_t *env = u->env;
  if (u->unsealed) {
    uint8_t check[CHECK_BYTES];
    ddbst__cursor_check(ad + 1 + KEY_ID_BYTES, ctx_len, env,
                        u->elen - CHECK_BYTES, check);
    return !memcmp(check, env + u->elen - CHECK_BYTES, CHECK_BYTES);
  }
  uint8_t plain[ENV_MAX];
  unsigned long long ml = 0;
  memcpy(ad, env, 1 + KEY_ID_BYTES);
  int ok = ddbst__cursor_open_aead(keys, u->key_at, plain, &ml,
                                   env + SEALED_HEAD, u->elen - SEALED_HEAD, ad,
                                   1 + KEY_ID_BYTES + ctx_len,
                                   env + 1 + KEY_ID_BYTES) == 0;
  sodium_memzero(plain, sizeof plain);
  return ok;
}
