/* libFuzzer: pagination cursors coming back from clients, opened through
 * ddbst_query_request. Input: a mode byte, a target byte (which pattern and
 * partition), then the bytes the mode makes a cursor of:
 *   0  the bytes are the cursor text, as a client sends it;
 *   1  the bytes are the envelope (base64url-encoded here);
 *   2  the bytes are the payload of an unsealed envelope, checksummed here;
 *   3  the bytes are the payload of a sealed envelope, sealed here with the
 *      fixed key: the CBOR decoder and the facet checks see anything;
 *   4  XORed over a real sealed envelope (made by ddbst_page_next_cursor from a
 *      real LastEvaluatedKey), extra bytes appended;
 *   5  XORed over that envelope's payload, then sealed again;
 *   6  XORed over the real unsealed envelope.
 * Mode byte bits 3, 4, 7 flip the first byte's R, T and reserved bits (modes
 * 2, 3); bits 5-6 choose the keys: the fixed key, the same with a maximum
 * age, none (unsealed), or a rotated ring. The clock is fixed, nonces are
 * fixed (modes 3-5): a run is reproducible.
 * A cursor is refused with DDBST_ECURSOR (path "cursor"), or DDBST_EINVAL
 * (path "cursor_keys") for no keys on a sealed model, with a message and no
 * body; or accepted, and the body is JSON with an ExclusiveStartKey. A
 * sealed envelope altered in any bit is refused; unaltered, it gives back
 * the exact ExclusiveStartKey it was made from. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <yajl/yajl_tree.h>

#include "ddbst.h"
#include "fuzz_models.h"

static const uint8_t KEY_A[32] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};
static const uint8_t KEY_B[32] = {
    0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
    0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};

/* 2026-03-14T09:00:00Z, the clock of every run */
#define NOW_S INT64_C(1773478800)
#define NOW_US (NOW_S * 1000000)
#define MAX_AGE 3600

#define MODES 7
#define ENV_MAX 8192
/* first byte, key id, nonce; then the payload and the tag */
#define SEALED_HEAD 29
#define TAG 16
#define CTX_MAX 1024

/* Models beyond the two examples: the SaaS model with unsealed cursors and
 * a collection pattern, and one whose pattern can read foreign items. */
#define SAAS 0
#define BLOG 1
#define SAAS_DEV 2
#define FOREIGN 3

static const char FOREIGN_MODEL[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\",\"cursors\":"
    "\"unsealed\"},\"entities\":{"
    "\"User\":{\"attributes\":{\"orgId\":\"string\",\"userId\":\"string\"},"
    "\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#{userId}\"}},"
    "\"Invite\":{\"attributes\":{\"orgId\":\"string\",\"inviteId\":"
    "\"string\"},\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":"
    "\"USER#INVITE#{inviteId}\"}}},"
    "\"patterns\":{\"listUsers\":{\"query\":\"User\"}}}";

/* A query and the LastEvaluatedKey of its first page, in the fixed order
 * ExclusiveStartKey is written in (so it is also the expected one). */
typedef struct target {
  int model;
  const char *pattern, *facet, *value;
  const char *index; /* as the cursor's context names it */
  int desc;
  const char *partition; /* the partition key's text */
  const char *lek;
} target;

static const target TARGETS[] = {
    {SAAS, "listProjects", "orgId", "123", NULL, 1, "ORG#123",
     "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#"
     "abc\"}}"},
    {SAAS, "listEvents", "projectId", "abc", NULL, 0, "PROJECT#abc",
     "{\"PK\":{\"S\":\"PROJECT#abc\"},\"SK\":{\"S\":\"EVENT#2026-03-14T09:00:"
     "00Z#01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"},
    {SAAS, "listUsers", "orgId", "123", NULL, 0, "ORG#123",
     "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"USER#u1\"}}"},
    {SAAS, "projectsByStatus", "status", "active", "GSI2", 1, "STATUS#active",
     "{\"GSI2PK\":{\"S\":\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:"
     "00:00Z\"},\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-"
     "14T09:00:00Z#abc\"}}"},
    {SAAS, "userByEmail", "email", "Ann@Example.com", "GSI1", 0,
     "EMAIL#ann@example.com",
     "{\"GSI1PK\":{\"S\":\"EMAIL#ann@example.com\"},\"PK\":{\"S\":\"ORG#123\"},"
     "\"SK\":{\"S\":\"USER#u1\"}}"},
    {SAAS_DEV, "orgItems", "orgId", "123", NULL, 0, "ORG#123",
     "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#"
     "abc\"}}"},
    {SAAS_DEV, "orgItems", "orgId", "123", NULL, 0, "ORG#123",
     "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"ORG#123\"}}"},
    {SAAS_DEV, "projectsByStatus", "status", "active", "GSI2", 1,
     "STATUS#active",
     "{\"GSI2PK\":{\"S\":\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:"
     "00:00Z\"},\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-"
     "14T09:00:00Z#abc\"}}"},
    {SAAS_DEV, "listEvents", "projectId", "abc", NULL, 0, "PROJECT#abc",
     "{\"PK\":{\"S\":\"PROJECT#abc\"},\"SK\":{\"S\":\"EVENT#2026-03-14T09:00:"
     "00Z#01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"},
    {BLOG, "listServices", "name", "Design", "gsi1", 0, "SERVICE",
     "{\"gsi1pk\":{\"S\":\"SERVICE\"},\"gsi1sk\":{\"S\":\"0042#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"pk\":{\"S\":\"SERVICE#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"sk\":{\"S\":\"SERVICE#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"},
    {BLOG, "listBlogs", "title", "Hello", "gsi1", 1, "BLOG",
     "{\"gsi1pk\":{\"S\":\"BLOG\"},\"gsi1sk\":{\"S\":\"2026-03-14T09:00:00."
     "123Z#01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"pk\":{\"S\":\"BLOG#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"sk\":{\"S\":\"BLOG#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"},
    {BLOG, "publishedInCategory", "category", "news", "gsi3", 1,
     "BLOG#CATEGORY#news",
     "{\"gsi3pk\":{\"S\":\"BLOG#CATEGORY#news\"},\"gsi3sk\":{\"S\":\"2026-03-"
     "14T09:00:00Z#01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"pk\":{\"S\":\"BLOG#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"sk\":{\"S\":\"BLOG#"
     "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"},
    {FOREIGN, "listUsers", "orgId", "1", NULL, 0, "ORG#1",
     "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#INVITE#i9\"}}"},
    {FOREIGN, "listUsers", "orgId", "1", NULL, 0, "ORG#1",
     "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#u1\"}}"},
};
#define NTARGETS ((int)(sizeof TARGETS / sizeof *TARGETS))

/* Keys choices (mode byte bits 5-6). */
#define KEYS_A 0
#define KEYS_AGED 1
#define KEYS_NONE 2
#define KEYS_ROTATED 3 /* B seals, A still opens */

/* What one target needs at every run, made once. */
typedef struct prepared {
  ddbst_model *m;
  int pattern, sealed_model;
  ddbst_item *values;
  /* the context as the associated data and the checksum take it: the CBOR
   * array [pattern, index, descending, partition] (docs/cursor.md) */
  uint8_t ctx[CTX_MAX];
  size_t ctx_len;
  /* the payload ddbst_page_next_cursor wrote, without and with an issue time */
  uint8_t head[2], payload[2][512];
  size_t payload_len[2];
  char esk[1024]; /* ,"ExclusiveStartKey":{...} */
} prepared;

static ddbst_model *models[4];
static ddbst_cursor_keys *rings[4];
static prepared prep[NTARGETS];
static uint8_t key_id_a[4];

/* ---- the envelope, from docs/cursor.md ---- */

static size_t cbor_text(uint8_t *b, const char *s) {
  size_t n = strlen(s), h = 0;
  if (n < 24) {
    b[h++] = (uint8_t)(0x60 | n);
  } else if (n < 256) {
    b[h++] = 0x78;
    b[h++] = (uint8_t)n;
  } else {
    abort(); /* no partition of the targets is that long */
  }
  memcpy(b + h, s, n);
  return h + n;
}

/* The CBOR array [pattern, index or null, descending, partition] a cursor
 * is bound to; returns its length. */
static size_t context_cbor(const target *t, uint8_t *b) {
  size_t n = 0;
  b[n++] = 0x84;
  n += cbor_text(b + n, t->pattern);
  if (t->index)
    n += cbor_text(b + n, t->index);
  else
    b[n++] = 0xf6;
  b[n++] = t->desc ? 0xf5 : 0xf4;
  return n + cbor_text(b + n, t->partition);
}

static void key_id(const uint8_t key[32], uint8_t id[4]) {
  static const char label[] = "ddbst cursor key id";
  uint8_t h[16];
  crypto_generichash(h, sizeof h, (const uint8_t *)label, sizeof label - 1,
                     key, 32);
  memcpy(id, h, 4);
}

/* A sealed envelope of `pl` under KEY_A, with a nonce fixed by the payload
 * length so that runs repeat. Returns its length. */
static size_t seal(const prepared *p, uint8_t head, const uint8_t *pl,
                   size_t pn, uint8_t *env) {
  env[0] = head;
  memcpy(env + 1, key_id_a, 4);
  memset(env + 5, 0x5a, 24);
  memcpy(env + 5, &pn, sizeof pn);
  uint8_t ad[5 + CTX_MAX];
  memcpy(ad, env, 5);
  memcpy(ad + 5, p->ctx, p->ctx_len);
  unsigned long long cl;
  crypto_aead_xchacha20poly1305_ietf_encrypt(env + SEALED_HEAD, &cl, pl, pn,
                                             ad, 5 + p->ctx_len, NULL, env + 5,
                                             KEY_A);
  return SEALED_HEAD + (size_t)cl;
}

/* An unsealed envelope of `pl`: first byte, payload, 4-byte checksum. */
static size_t unsealed(const prepared *p, uint8_t head, const uint8_t *pl,
                       size_t pn, uint8_t *env) {
  env[0] = head;
  memcpy(env + 1, pl, pn);
  uint8_t h[16];
  crypto_generichash_state st;
  crypto_generichash_init(&st, NULL, 0, 16);
  crypto_generichash_update(&st, p->ctx, p->ctx_len);
  crypto_generichash_update(&st, env, 1 + pn);
  crypto_generichash_final(&st, h, 16);
  memcpy(env + 1 + pn, h, 4);
  return 1 + pn + 4;
}

/* The cursor text of an envelope, in a block of exactly its length so that
 * ASan sees any read past it. */
static char *text_of(const uint8_t *env, size_t n, size_t *len) {
  static char b64[ENV_MAX * 4 / 3 + 8];
  sodium_bin2base64(b64, sizeof b64, env, n,
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  *len = strlen(b64);
  char *t = malloc(*len ? *len : 1);
  if (!t) abort();
  memcpy(t, b64, *len);
  return t;
}

/* ---- set-up: each target's real cursor, taken apart ---- */

static ddbst_model *saas_dev(void) {
  FILE *f = fopen(DDBST_SOURCE_DIR "/examples/saas/model.json", "rb");
  if (!f) abort();
  static char text[32768], edited[33000];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  if (n == sizeof text - 1) abort(); /* grew past the buffer */
  text[n] = 0;
  static const char *const from[] = {"\"table\": {", "\"patterns\": {"};
  static const char *const to[] = {
      "\"table\": { \"cursors\": \"unsealed\",",
      "\"patterns\": { \"orgItems\": { \"query\": [\"Organisation\", \"User\", "
      "\"Project\"] },"};
  for (int i = 0; i < 2; i++) {
    char *hit = strstr(text, from[i]);
    if (!hit) abort();
    int w = snprintf(edited, sizeof edited, "%.*s%s%s", (int)(hit - text),
                     text, to[i], hit + strlen(from[i]));
    if (w < 0 || (size_t)w >= sizeof text) abort();
    memcpy(text, edited, (size_t)w + 1);
  }
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load(text, strlen(text), NULL, &m, &err)) {
    fprintf(stderr, "saas (unsealed): %s: %s\n", err.path, err.message);
    abort();
  }
  return m;
}

static void die(const target *t, const char *what, const ddbst_error *err) {
  fprintf(stderr, "fuzz_cursor set-up, %s %s: %s: %s: %s\n", t->pattern,
          t->lek, what, err ? err->path : "", err ? err->message : "");
  abort();
}

static void prepare(int i) {
  const target *t = &TARGETS[i];
  prepared *p = &prep[i];
  ddbst_error err;
  p->m = models[t->model];
  p->sealed_model = t->model == SAAS || t->model == BLOG;
  p->pattern = ddbst_model_pattern(p->m, t->pattern);
  if (p->pattern < 0) die(t, "no such pattern", NULL);
  p->values =
      ddbst_item_new(p->m, ddbst_model_pattern_entity(p->m, p->pattern, 0));
  if (!p->values) die(t, "no values", NULL);
  if (ddbst_item_set(p->values,
                     ddbst_model_attribute(
                         p->m, ddbst_model_pattern_entity(p->m, p->pattern, 0),
                         t->facet),
                     t->value, strlen(t->value), &err))
    die(t, "setting the partition facet", &err);
  uint8_t cbor[CTX_MAX];
  size_t cbor_len = context_cbor(t, cbor);
  snprintf(p->esk, sizeof p->esk, ",\"ExclusiveStartKey\":%s", t->lek);

  char response[2048];
  snprintf(response, sizeof response,
           "{\"Items\":[],\"Count\":0,\"ScannedCount\":5,"
           "\"LastEvaluatedKey\":%s}",
           t->lek);
  ddbst_page *page = ddbst_page_new(p->m);
  ddbst_buf *cur = ddbst_buf_new(NULL);
  if (!page || !cur) abort();
  if (ddbst_page_parse_query(page, p->values, p->pattern, response,
                             strlen(response), &err) < 0)
    die(t, "parsing the page", &err);
  for (int aged = 0; aged < 2; aged++) {
    if (ddbst_page_next_cursor(page, rings[aged ? KEYS_AGED : KEYS_A], NOW_US,
                               cur, &err) != 1)
      die(t, "making the cursor", &err);
    /* opened here as docs/cursor.md says: the context is right */
    uint8_t env[ENV_MAX], ad[5 + CTX_MAX];
    size_t n = 0;
    if (sodium_base642bin(env, sizeof env, ddbst_buf_data(cur),
                          ddbst_buf_len(cur), NULL, &n, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) ||
        n < SEALED_HEAD + TAG || memcmp(env + 1, key_id_a, 4))
      die(t, "decoding the cursor", NULL);
    memcpy(ad, env, 5);
    unsigned long long pl = 0;
    memcpy(p->ctx, cbor, cbor_len);
    p->ctx_len = cbor_len;
    memcpy(ad + 5, p->ctx, p->ctx_len);
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            p->payload[aged], &pl, NULL, env + SEALED_HEAD, n - SEALED_HEAD,
            ad, 5 + p->ctx_len, env + 5, KEY_A) != 0)
      die(t, "opening the cursor with the documented context", NULL);
    p->head[aged] = env[0];
    p->payload_len[aged] = (size_t)pl;
  }
  ddbst_buf_free(cur);
  ddbst_page_free(page);
}

static void setup(void) {
  if (sodium_init() < 0) abort();
  models[SAAS] = fuzz_model(0);
  models[BLOG] = fuzz_model(1);
  models[SAAS_DEV] = saas_dev();
  ddbst_error err;
  if (ddbst_model_load(FOREIGN_MODEL, sizeof FOREIGN_MODEL - 1, NULL,
                       &models[FOREIGN], &err)) {
    fprintf(stderr, "foreign model: %s: %s\n", err.path, err.message);
    abort();
  }
  rings[KEYS_A] = ddbst_cursor_keys_new(NULL);
  rings[KEYS_AGED] = ddbst_cursor_keys_new(NULL);
  rings[KEYS_ROTATED] = ddbst_cursor_keys_new(NULL);
  if (!rings[KEYS_A] || !rings[KEYS_AGED] || !rings[KEYS_ROTATED] ||
      ddbst_cursor_keys_add(rings[KEYS_A], KEY_A, &err) ||
      ddbst_cursor_keys_add(rings[KEYS_AGED], KEY_A, &err) ||
      ddbst_cursor_keys_add(rings[KEYS_ROTATED], KEY_B, &err) ||
      ddbst_cursor_keys_add(rings[KEYS_ROTATED], KEY_A, &err))
    abort();
  ddbst_cursor_keys_set_max_age(rings[KEYS_AGED], MAX_AGE);
  key_id(KEY_A, key_id_a);
  for (int i = 0; i < NTARGETS; i++) prepare(i);
}

/* ---- one run ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ddbst_buf *body;
  if (!body) {
    setup();
    body = ddbst_buf_new(NULL);
    if (!body) abort();
  }
  if (size < 2) return 0;
  int mode = (data[0] & 7) % MODES;
  uint8_t flip = (uint8_t)(((data[0] >> 1) & 0x04) | ((data[0] >> 3) & 0x02) |
                           ((data[0] >> 4) & 0x08));
  int keys_choice = (data[0] >> 5) & 3;
  const prepared *p = &prep[data[1] % NTARGETS];
  const uint8_t *in = data + 2;
  size_t n = size - 2;
  if (n > ENV_MAX - 64) return 0;
  int aged = keys_choice == KEYS_AGED;
  const uint8_t *real = p->payload[aged];
  size_t real_len = p->payload_len[aged];

  static uint8_t env[ENV_MAX], pl[ENV_MAX];
  size_t env_len = 0;
  int altered = 0; /* modes 4 and 5: did the input change anything? */
  switch (mode) {
  case 0:
    break;
  case 1:
    memcpy(env, in, n);
    env_len = n;
    break;
  case 2:
    env_len = unsealed(p, (uint8_t)(0x11 ^ flip), in, n, env);
    break;
  case 3:
    env_len = seal(p, (uint8_t)(0x10 ^ flip), in, n, env);
    break;
  case 4:
  case 5:
  case 6: {
    const uint8_t *base;
    size_t base_len;
    if (mode == 5) {
      memcpy(pl, real, real_len);
      base = pl;
      base_len = real_len;
    } else {
      base_len = mode == 4 ? seal(p, p->head[aged], real, real_len, env)
                           : unsealed(p, (uint8_t)(p->head[aged] | 1), real,
                                      real_len, env);
      base = env;
    }
    uint8_t *dst = (uint8_t *)base;
    size_t len = n > base_len ? n : base_len;
    for (size_t k = 0; k < len; k++) {
      uint8_t b = k < n ? in[k] : 0;
      dst[k] = (uint8_t)((k < base_len ? base[k] : 0) ^ b);
      if (b || k >= base_len) altered = 1;
    }
    if (mode == 5)
      env_len = seal(p, p->head[aged], pl, len, env);
    else
      env_len = len;
    break;
  }
  }
  size_t cursor_len;
  char *cursor;
  if (mode == 0) {
    cursor_len = n;
    cursor = malloc(n ? n : 1);
    if (!cursor) abort();
    memcpy(cursor, in, n);
  } else {
    cursor = text_of(env, env_len, &cursor_len);
  }

  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = cursor;
  q.cursor_len = cursor_len;
  q.cursor_keys = rings[keys_choice];
  q.now_unix_us = NOW_US;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  ddbst_buf_reset(body);
  int rc = ddbst_query_request(p->values, p->pattern, &q, body, &err);
  free(cursor);

  if (rc == DDBST_OP_QUERY) {
    const char *b = ddbst_buf_data(body);
    /* no cursor text is a first page: nothing to start after */
    if (cursor_len && !strstr(b, ",\"ExclusiveStartKey\":{")) __builtin_trap();
    yajl_val v = yajl_tree_parse(b, NULL, 0);
    if (!v) __builtin_trap();
    yajl_tree_free(v);
  } else {
    if (err.message[0] == '\0' || ddbst_buf_len(body) != 0) __builtin_trap();
    if (rc == DDBST_ECURSOR) {
      if (strcmp(err.path, "cursor")) __builtin_trap();
    } else if (rc == DDBST_EINVAL && !q.cursor_keys && p->sealed_model) {
      if (strcmp(err.path, "cursor_keys")) __builtin_trap();
    } else {
      __builtin_trap();
    }
  }
  /* a real sealed cursor opens, exactly, and opens only unaltered */
  if ((mode == 4 || mode == 5) && keys_choice != KEYS_NONE) {
    if (altered && mode == 4 && rc != DDBST_ECURSOR) __builtin_trap();
    if (!altered) {
      if (rc != DDBST_OP_QUERY) __builtin_trap();
      if (!strstr(ddbst_buf_data(body), p->esk)) __builtin_trap();
    }
  }
  return 0;
}
