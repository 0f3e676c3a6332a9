/* libFuzzer: a Scan's cursors coming back from clients, opened through
 * ddbst_scan_request (segment 1 of 4 of the SaaS table, or of index GSI2).
 * Input: a mode byte, then the bytes the mode makes a cursor of:
 *   0  the bytes are the cursor text, as a client sends it;
 *   1  the bytes are the payload of an envelope sealed here with the scan's
 *      own context and key: the CBOR decoder and the checks see anything;
 *   2  XORed over a real cursor's envelope (made by ddbst_page_next_cursor
 *      from a real LastEvaluatedKey).
 * Mode bit 3 picks the index. A cursor is refused with DDBST_ECURSOR (path
 * "cursor") and an empty body, or accepted and the body is JSON with an
 * ExclusiveStartKey; the real envelope, altered in any bit, is refused,
 * and unaltered gives back the exact body it was made from. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <yajl/yajl_tree.h>

#include "ddbst.h"

static const uint8_t KEY[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
#define ENV_MAX 8192

static ddbst_model *model;
static ddbst_cursor_keys *keys;
static ddbst_scan *scans[2];
static ddbst_buf *body;
static uint8_t key_id[4];
static uint8_t real_env[2][ENV_MAX];
static size_t real_len[2];
static char real_body[2][1024];

static void setup(void) {
  ddbst_error err;
  if (ddbst_model_load_file(DDBST_SOURCE_DIR "/examples/saas/model.json", NULL,
                            &model, &err))
    abort();
  keys = ddbst_cursor_keys_new(NULL);
  body = ddbst_buf_new(NULL);
  if (!keys || !body || ddbst_cursor_keys_add(keys, KEY, &err)) abort();
  static const char *const lek[2] = {
      "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,\"LastEvaluatedKey\":{"
      "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}}",
      "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,\"LastEvaluatedKey\":{"
      "\"GSI2PK\":{\"S\":\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026\"},"
      "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026#p\"}}}"};
  ddbst_page *pg = ddbst_page_new(model);
  ddbst_buf *c = ddbst_buf_new(NULL);
  for (int i = 0; i < 2; i++) {
    scans[i] = ddbst_scan_new(model);
    if (!scans[i] || ddbst_scan_segment(scans[i], 1, 4, &err) ||
        (i && ddbst_scan_index(scans[i], "GSI2", &err)) ||
        ddbst_scan_request(scans[i], 0, 10, NULL, 0, keys, 0, body, &err) < 0 ||
        ddbst_page_parse_scan(pg, scans[i], lek[i], strlen(lek[i]), &err) < 0 ||
        ddbst_page_next_cursor(pg, keys, 0, c, &err) != 1 ||
        sodium_base642bin(real_env[i], ENV_MAX, ddbst_buf_data(c),
                          ddbst_buf_len(c), NULL, &real_len[i], NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) ||
        ddbst_scan_request(scans[i], 0, 10, ddbst_buf_data(c),
                           ddbst_buf_len(c), keys, 0, body, &err) < 0)
      abort();
    snprintf(real_body[i], sizeof real_body[i], "%s", ddbst_buf_data(body));
  }
  memcpy(key_id, real_env[0] + 1, 4);
  ddbst_buf_free(c);
  ddbst_page_free(pg);
}

/* An envelope sealed with the scan's context (["scan", table, index]). */
static size_t seal(int ix, const uint8_t *pl, size_t pn, uint8_t *env) {
  static const uint8_t ctx_table[] = "\x83\x64scan\x6csaas-api-dev\xf6";
  static const uint8_t ctx_gsi2[] = "\x83\x64scan\x6csaas-api-dev\x64GSI2";
  const uint8_t *ctx = ix ? ctx_gsi2 : ctx_table;
  size_t ctx_len = ix ? sizeof ctx_gsi2 - 1 : sizeof ctx_table - 1;
  env[0] = 0x10;
  memcpy(env + 1, key_id, 4);
  memset(env + 5, 0x5a, 24);
  uint8_t ad[5 + 64];
  memcpy(ad, env, 5);
  memcpy(ad + 5, ctx, ctx_len);
  unsigned long long cl;
  crypto_aead_xchacha20poly1305_ietf_encrypt(env + 29, &cl, pl, pn, ad,
                                             5 + ctx_len, NULL, env + 5, KEY);
  return 29 + (size_t)cl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!model) setup();
  if (size < 1) return 0;
  int mode = data[0] % 3, ix = (data[0] >> 3) & 1;
  const uint8_t *in = data + 1;
  size_t n = size - 1;
  if (n > ENV_MAX - 64) return 0;
  static uint8_t env[ENV_MAX];
  static char text[ENV_MAX * 2];
  size_t env_len = 0;
  int altered = 0;
  if (mode == 0) {
    memcpy(text, in, n);
    text[n] = '\0';
  } else {
    if (mode == 1) {
      env_len = seal(ix, in, n, env);
    } else {
      memcpy(env, real_env[ix], real_len[ix]);
      env_len = real_len[ix];
      for (size_t i = 0; i < n; i++) {
        if (i < env_len) {
          altered |= in[i] != 0;
          env[i] ^= in[i];
        } else {
          env[env_len++] = in[i];
          altered = 1;
        }
      }
    }
    sodium_bin2base64(text, sizeof text, env, env_len,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  }
  size_t len = mode ? strlen(text) : n;
  char *cursor = malloc(len ? len : 1); /* exactly its length, for ASan */
  if (!cursor) abort();
  memcpy(cursor, text, len);
  ddbst_error err;
  int rc = ddbst_scan_request(scans[ix], 0, 10, cursor, len, keys, 0, body,
                              &err);
  free(cursor);
  if (rc < 0) {
    if (ddbst_buf_len(body) != 0) abort();
    if (rc != DDBST_ECURSOR || strcmp(err.path, "cursor")) abort();
    if (mode == 2 && !altered) abort();
    return 0;
  }
  if (rc != DDBST_OP_SCAN) abort();
  if (mode == 2 && altered) abort();
  if (mode == 2 && strcmp(ddbst_buf_data(body), real_body[ix])) abort();
  char ebuf[128];
  yajl_val v = yajl_tree_parse(ddbst_buf_data(body), ebuf, sizeof ebuf);
  if (!v || !yajl_tree_get(v, (const char *[]){"ExclusiveStartKey", 0},
                           yajl_t_object))
    abort();
  yajl_tree_free(v);
  return 0;
}
