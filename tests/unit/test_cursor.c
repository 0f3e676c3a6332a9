/* Cursors: sealed and unsealed round trips through ddbst_query_request for
 * table and index patterns; the envelope read back by an independent
 * implementation of docs/cursor.md; every refusal with its exact code and
 * message; key rotation; what a sealed cursor does not reveal; allocation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cursor/cursor.h"
#include "support.h"

static const uint8_t KEY_A[32] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};
static const uint8_t KEY_B[32] = {
    0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
    0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};

/* 2026-03-14T09:00:00Z */
#define NOW_S INT64_C(1773478800)
#define NOW_US (NOW_S * 1000000)

#define MSG_NO_OPEN                                                            \
  "the cursor does not open: it was made for another pattern, index, sort "    \
  "order or partition, or it was altered"

static ddbst_model *saas, *saas_dev;
static ddbst_buf *out, *cur;
static ddbst_cursor_keys *ring_a;

static char *read_text(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot read %s", path);
  static char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *copy = malloc(n + 1);
  memcpy(copy, buf, n + 1);
  return copy;
}

/* The SaaS model with each from[i] replaced by to[i] (every occurrence). */
static ddbst_model *saas_edited(int n, const char *const *from,
                                const char *const *to) {
  char *text = read_text("examples/saas/model.json");
  for (int i = 0; i < n; i++) {
    char *res = malloc(strlen(text) * 2 + 4096);
    res[0] = 0;
    const char *s = text, *hit;
    int hits = 0;
    while ((hit = strstr(s, from[i]))) {
      strncat(res, s, (size_t)(hit - s));
      strcat(res, to[i]);
      s = hit + strlen(from[i]);
      hits++;
    }
    strcat(res, s);
    if (!hits) fail_msg("%s is not in the SaaS model", from[i]);
    free(text);
    text = res;
  }
  ddbst_model *m = load_text(text);
  free(text);
  return m;
}

static ddbst_model *saas_variant(const char *from, const char *to) {
  return saas_edited(1, &from, &to);
}

static ddbst_cursor_keys *ring(const uint8_t *k1, const uint8_t *k2) {
  ddbst_cursor_keys *k = ddbst_cursor_keys_new(NULL);
  assert_non_null(k);
  ddbst_error err;
  if (k1) assert_int_equal(ddbst_cursor_keys_add(k, k1, &err), 0);
  if (k2) assert_int_equal(ddbst_cursor_keys_add(k, k2, &err), 0);
  return k;
}

static int setup(void **state) {
  (void)state;
  if (sodium_init() < 0) return -1;
  saas = load_example("examples/saas/model.json");
  saas_dev =
      saas_variant("\"table\": {", "\"table\": { \"cursors\": \"unsealed\",");
  out = ddbst_buf_new(NULL);
  cur = ddbst_buf_new(NULL);
  ring_a = ring(KEY_A, NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_cursor_keys_free(ring_a);
  ddbst_buf_free(cur);
  ddbst_buf_free(out);
  ddbst_model_free(saas_dev);
  ddbst_model_free(saas);
  return 0;
}

/* ---- LastEvaluatedKeys and the ExclusiveStartKeys they come back as ---- */

typedef struct lek {
  const char *pattern;
  const char *facet, *value; /* the partition facet of the query */
  int n;
  const char *names[4], *vals[4];
  const char *esk; /* what the next query must carry */
} lek;

static const lek LIST_PROJECTS = {
    "listProjects",
    "orgId",
    "123",
    2,
    {"PK", "SK"},
    {"ORG#123", "PROJECT#2026-03-14T09:00:00Z#abc"},
    "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#"
    "abc\"}}"};

/* in DynamoDB's order, whatever that is: the cursor does not care */
static const lek LIST_EVENTS = {
    "listEvents",
    "projectId",
    "abc",
    2,
    {"SK", "PK"},
    {"EVENT#2026-03-14T09:00:00Z#01JP4R5X8QZ3N2M7K6W9T0V1YB", "PROJECT#abc"},
    "{\"PK\":{\"S\":\"PROJECT#abc\"},\"SK\":{\"S\":\"EVENT#2026-03-14T09:00:"
    "00Z#"
    "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"};

static const lek LIST_USERS = {
    "listUsers",
    "orgId",
    "123",
    2,
    {"PK", "SK"},
    {"ORG#123", "USER#u1"},
    "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"USER#u1\"}}"};

static const lek BY_STATUS = {
    "projectsByStatus",
    "status",
    "active",
    4,
    {"SK", "GSI2SK", "PK", "GSI2PK"},
    {"PROJECT#2026-03-14T09:00:00Z#abc", "2026-03-14T09:00:00Z", "ORG#123",
     "STATUS#active"},
    "{\"GSI2PK\":{\"S\":\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:"
    "00:00Z\"},\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"PROJECT#2026-03-"
    "14T09:"
    "00:00Z#abc\"}}"};

/* GSI1 has no sort key: the table's keys are the rest of the key */
static const lek BY_EMAIL = {
    "userByEmail",
    "email",
    "Ann@Example.com",
    3,
    {"GSI1PK", "PK", "SK"},
    {"EMAIL#ann@example.com", "ORG#123", "USER#u1"},
    "{\"GSI1PK\":{\"S\":\"EMAIL#ann@example.com\"},\"PK\":{\"S\":\"ORG#123\"},"
    "\"SK\":{\"S\":\"USER#u1\"}}"};

static ddbst_item *values_for(ddbst_model *m, const lek *l, const char *value,
                              int *pattern) {
  *pattern = ddbst_model_pattern(m, l->pattern);
  assert_true(*pattern >= 0);
  ddbst_item *it =
      ddbst_item_new(m, ddbst_model_pattern_entity(m, *pattern, 0));
  assert_non_null(it);
  set(it, l->facet, value ? value : l->value);
  return it;
}

static int seal_with(ddbst_model *m, const ddbst_cursor_keys *keys,
                     const lek *l, const char *value, int64_t now_us,
                     ddbst_buf *dst, ddbst_error *err) {
  int p;
  ddbst_item *it = values_for(m, l, value, &p);
  size_t lens[4];
  for (int i = 0; i < l->n; i++) lens[i] = strlen(l->vals[i]);
  ddbst_buf_reset(dst);
  int rc = ddbst__cursor_seal(keys, it, p, l->names, l->vals, lens, l->n,
                              now_us, dst, err);
  ddbst_item_free(it);
  return rc;
}

/* Seals, failing the test on error; the cursor is in `cur`. */
static const char *seal(ddbst_model *m, const ddbst_cursor_keys *keys,
                        const lek *l) {
  ddbst_error err;
  int rc = seal_with(m, keys, l, NULL, NOW_US, cur, &err);
  if (rc) fail_msg("sealing %s: %s: %s", l->pattern, err.path, err.message);
  return ddbst_buf_data(cur);
}

/* The next query with `cursor`; the body is in `out`. */
static int query_with(ddbst_model *m, const ddbst_cursor_keys *keys,
                      const lek *l, const char *value, const char *cursor,
                      size_t len, int64_t now_us, ddbst_error *err) {
  int p;
  ddbst_item *it = values_for(m, l, value, &p);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = cursor;
  q.cursor_len = len;
  q.cursor_keys = keys;
  q.now_unix_us = now_us;
  ddbst_buf_reset(out);
  memset(err, 0, sizeof *err);
  int rc = ddbst_query_request(it, p, &q, out, err);
  ddbst_item_free(it);
  return rc;
}

static void expect_esk(const lek *l) {
  char want[1024];
  snprintf(want, sizeof want, ",\"ExclusiveStartKey\":%s}", l->esk);
  const char *body = ddbst_buf_data(out);
  size_t bl = strlen(body), wl = strlen(want);
  if (bl < wl || strcmp(body + bl - wl, want))
    fail_msg("%s: wanted the body to end with %s; it is %s", l->pattern, want,
             body);
}

static void round_trip(ddbst_model *m, const ddbst_cursor_keys *keys,
                       const lek *l) {
  const char *c = seal(m, keys, l);
  ddbst_error err;
  int rc = query_with(m, keys, l, NULL, c, strlen(c), NOW_US, &err);
  if (rc != DDBST_OP_QUERY)
    fail_msg("%s: %s: %s (cursor %s)", l->pattern, err.path, err.message, c);
  expect_esk(l);
}

static void expect_refused(int rc, const ddbst_error *err, const char *msg) {
  if (rc != DDBST_ECURSOR || strcmp(err->path, "cursor") ||
      (msg && strcmp(err->message, msg)))
    fail_msg("wanted DDBST_ECURSOR \"%s\", got %d %s: %s", msg ? msg : "", rc,
             err->path, err->message);
  /* nothing of the refused body is left behind */
  assert_int_equal(ddbst_buf_len(out), 0);
}

/* Opens `c` for `l` on `m` and expects the refusal `msg` (NULL: any). */
static void refused(ddbst_model *m, const ddbst_cursor_keys *keys, const lek *l,
                    const char *value, const char *c, size_t len,
                    int64_t now_us, const char *msg) {
  ddbst_error err;
  int rc = query_with(m, keys, l, value, c, len, now_us, &err);
  expect_refused(rc, &err, msg);
}

/* ---- an independent reading of docs/cursor.md ---- */

static size_t cbor_head(uint8_t *b, int major, uint64_t v) {
  uint8_t mt = (uint8_t)(major << 5);
  if (v < 24) {
    b[0] = mt | (uint8_t)v;
    return 1;
  }
  if (v < 256) {
    b[0] = mt | 24;
    b[1] = (uint8_t)v;
    return 2;
  }
  if (v < 65536) {
    b[0] = mt | 25;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)v;
    return 3;
  }
  b[0] = mt | 26;
  for (int i = 0; i < 4; i++) b[1 + i] = (uint8_t)(v >> (24 - 8 * i));
  return 5;
}

static size_t cbor_text(uint8_t *b, const char *s, size_t n) {
  size_t h = cbor_head(b, 3, n);
  memcpy(b + h, s, n);
  return h + n;
}

static void doc_key_id(const uint8_t key[32], uint8_t id[4]) {
  static const char label[] = "ddbst cursor key id";
  uint8_t h[16];
  crypto_generichash(h, sizeof h, (const uint8_t *)label, sizeof label - 1, key,
                     32);
  memcpy(id, h, 4);
}

/* The CBOR array [pattern, index or null, descending, partition] into b
 * (4096 bytes); returns its length. */
static size_t doc_context(const char *pattern, const char *index, int desc,
                          const char *partition, uint8_t *b) {
  size_t n = 0;
  b[n++] = 0x84;
  n += cbor_text(b + n, pattern, strlen(pattern));
  if (index)
    n += cbor_text(b + n, index, strlen(index));
  else
    b[n++] = 0xf6;
  b[n++] = desc ? 0xf5 : 0xf4;
  n += cbor_text(b + n, partition, strlen(partition));
  return n;
}

typedef struct target {
  const char *pattern, *index;
  int desc;
  const char *partition;
} target;

static const target LP_TARGET = {"listProjects", NULL, 1, "ORG#123"};

/* A sealed cursor with first byte `head`, the id of `id_key` and `nonce`,
 * and CBOR payload `pl` encrypted with `key`. */
static void forge_as(const uint8_t id_key[32], const uint8_t key[32],
                     uint8_t head, const target *t, const uint8_t nonce[24],
                     const uint8_t *pl, size_t pn, char *text, size_t cap) {
  uint8_t env[8192];
  env[0] = head;
  doc_key_id(id_key, env + 1);
  memcpy(env + 5, nonce, 24);
  uint8_t ad[5 + 4096];
  memcpy(ad, env, 5);
  size_t an = 5 + doc_context(t->pattern, t->index, t->desc, t->partition, ad + 5);
  unsigned long long cl;
  crypto_aead_xchacha20poly1305_ietf_encrypt(env + 29, &cl, pl, pn, ad, an,
                                             NULL, env + 5, key);
  sodium_bin2base64(text, cap, env, 29 + (size_t)cl,
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/* A sealed cursor with first byte `head` and CBOR payload `pl`, as any
 * holder of `key` could make one. */
static void forge_sealed(const uint8_t key[32], uint8_t head, const target *t,
                         const uint8_t *pl, size_t pn, char *text, size_t cap) {
  uint8_t nonce[24];
  randombytes_buf(nonce, sizeof nonce);
  forge_as(key, key, head, t, nonce, pl, pn, text, cap);
}

static size_t decode(const char *text, uint8_t *bin, size_t cap) {
  size_t n = 0;
  assert_int_equal(sodium_base642bin(bin, cap, text, strlen(text), NULL, &n,
                                     NULL,
                                     sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                   0);
  return n;
}

static void encode(const uint8_t *bin, size_t n, char *text, size_t cap) {
  sodium_bin2base64(text, cap, bin, n,
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/* ---- round trips ---- */

static void sealed_round_trips(void **state) {
  (void)state;
  round_trip(saas, ring_a, &LIST_PROJECTS);
  round_trip(saas, ring_a, &LIST_EVENTS);
  round_trip(saas, ring_a, &LIST_USERS);
  round_trip(saas, ring_a, &BY_STATUS);
  round_trip(saas, ring_a, &BY_EMAIL);
  /* a fresh nonce each time: two cursors of one key differ */
  char first[256];
  snprintf(first, sizeof first, "%s", seal(saas, ring_a, &LIST_PROJECTS));
  assert_string_not_equal(first, seal(saas, ring_a, &LIST_PROJECTS));
}

static void unsealed_round_trips(void **state) {
  (void)state;
  round_trip(saas_dev, NULL, &LIST_PROJECTS);
  round_trip(saas_dev, NULL, &LIST_EVENTS);
  round_trip(saas_dev, NULL, &BY_STATUS);
  round_trip(saas_dev, NULL, &BY_EMAIL);
  /* keys may still seal on a model that allows unsealed cursors */
  round_trip(saas_dev, ring_a, &BY_STATUS);
  /* unsealed cursors are deterministic */
  char first[256];
  snprintf(first, sizeof first, "%s", seal(saas_dev, NULL, &LIST_PROJECTS));
  assert_string_equal(first, seal(saas_dev, NULL, &LIST_PROJECTS));
}

/* The library's bytes are the documented ones: decrypted and recomputed
 * here from docs/cursor.md alone. */
static void envelope_as_documented(void **state) {
  (void)state;
  static const uint8_t payload[] = {0x82, 0x1a, 0x69, 0xb5, 0x23,
                                    0x90, 0x63, 'a',  'b',  'c'};
  uint8_t env[512], plain[512];
  size_t n = decode(seal(saas, ring_a, &LIST_PROJECTS), env, sizeof env);
  assert_int_equal(n, 1 + 4 + 24 + sizeof payload + 16);
  assert_int_equal(env[0], 0x10);
  uint8_t id[4];
  doc_key_id(KEY_A, id);
  assert_memory_equal(env + 1, id, 4);
  uint8_t ad[5 + 4096];
  memcpy(ad, env, 5);
  size_t an = 5 + doc_context("listProjects", NULL, 1, "ORG#123", ad + 5);
  /* the documented example: 84 6c "listProjects" f6 f5 67 "ORG#123" */
  assert_int_equal(an, 5 + 1 + 13 + 1 + 1 + 8);
  unsigned long long pl = 0;
  assert_int_equal(
      crypto_aead_xchacha20poly1305_ietf_decrypt(
          plain, &pl, NULL, env + 29, n - 29, ad, an, env + 5, KEY_A),
      0);
  assert_int_equal(pl, sizeof payload);
  assert_memory_equal(plain, payload, sizeof payload);

  /* unsealed: the first byte, the same payload, a 4-byte checksum */
  n = decode(seal(saas_dev, NULL, &LIST_PROJECTS), env, sizeof env);
  assert_int_equal(n, 1 + sizeof payload + 4);
  assert_int_equal(env[0], 0x11);
  assert_memory_equal(env + 1, payload, sizeof payload);
  uint8_t ctx[4096], h[16];
  size_t cn = doc_context("listProjects", NULL, 1, "ORG#123", ctx);
  crypto_generichash_state st;
  crypto_generichash_init(&st, NULL, 0, 16);
  crypto_generichash_update(&st, ctx, cn);
  crypto_generichash_update(&st, env, n - 4);
  crypto_generichash_final(&st, h, 16);
  assert_memory_equal(env + n - 4, h, 4);

  /* an index pattern: [createdAt, orgId, projectId], each facet once */
  static const uint8_t by_status[] = {0x83, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x63,
                                      '1',  '2',  '3',  0x63, 'a',  'b',  'c'};
  n = decode(seal(saas_dev, NULL, &BY_STATUS), env, sizeof env);
  assert_int_equal(n, 1 + sizeof by_status + 4);
  assert_memory_equal(env + 1, by_status, sizeof by_status);

  /* a ULID facet is its 16 bytes */
  n = decode(seal(saas_dev, NULL, &LIST_EVENTS), env, sizeof env);
  assert_int_equal(n, 1 + 1 + 5 + 1 + 16 + 4);
  assert_int_equal(env[1], 0x82);
  assert_int_equal(env[7], 0x50);
}

/* Compact: smaller than the first seed's base64(JSON.stringify(LEK)). */
static void sizes(void **state) {
  (void)state;
  static const struct {
    const lek *l;
    const char *json;
    size_t sealed, sealed_aged, unsealed;
  } rows[] = {
      {&LIST_PROJECTS,
       "{\"PK\":\"ORG#123\",\"SK\":\"PROJECT#2026-03-14T09:00:00Z#abc\"}", 74,
       80, 20},
      {&LIST_EVENTS,
       "{\"PK\":\"PROJECT#abc\",\"SK\":\"EVENT#2026-03-14T09:00:00Z#"
       "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}",
       91, 98, 38},
      {&BY_STATUS,
       "{\"GSI2PK\":\"STATUS#active\",\"GSI2SK\":\"2026-03-14T09:00:00Z\","
       "\"PK\":"
       "\"ORG#123\",\"SK\":\"PROJECT#2026-03-14T09:00:00Z#abc\"}",
       79, 86, 26},
  };
  ddbst_cursor_keys *aged = ring(KEY_A, NULL);
  ddbst_cursor_keys_set_max_age(aged, 3600);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char seed[512];
    sodium_bin2base64(seed, sizeof seed, (const uint8_t *)rows[i].json,
                      strlen(rows[i].json), sodium_base64_VARIANT_ORIGINAL);
    size_t s = strlen(seal(saas, ring_a, rows[i].l));
    size_t sa = strlen(seal(saas, aged, rows[i].l));
    size_t u = strlen(seal(saas_dev, NULL, rows[i].l));
    print_message("%-16s seed %3zu  sealed %3zu  with max age %3zu  "
                  "unsealed %3zu\n",
                  rows[i].l->pattern, strlen(seed), s, sa, u);
    assert_int_equal(s, rows[i].sealed);
    assert_int_equal(sa, rows[i].sealed_aged);
    assert_int_equal(u, rows[i].unsealed);
    assert_true(s < strlen(seed));
  }
  ddbst_cursor_keys_free(aged);
}

/* Collections say which entity the key is of; typed facets (zero-padded
 * integers, ULIDs, millisecond timestamps) come back exactly. */
static void collections_and_typed_facets(void **state) {
  (void)state;
  ddbst_model *m = saas_variant(
      "\"patterns\": {",
      "\"patterns\": { \"orgItems\": { \"query\": [\"Organisation\", \"User\", "
      "\"Project\"] },");
  static const lek project = {"orgItems",
                              "orgId",
                              "123",
                              2,
                              {"PK", "SK"},
                              {"ORG#123", "PROJECT#2026-03-14T09:00:00Z#abc"},
                              "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":"
                              "\"PROJECT#2026-03-14T09:00:00Z#"
                              "abc\"}}"};
  static const lek org = {
      "orgItems",
      "orgId",
      "123",
      2,
      {"PK", "SK"},
      {"ORG#123", "ORG#123"},
      "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"ORG#123\"}}"};
  round_trip(m, ring_a, &project);
  round_trip(m, ring_a, &org);
  /* [entity 2 (Project), createdAt, projectId] */
  uint8_t env[256];
  uint8_t pl[] = {0x83, 0x07, 0x1a, 0x69, 0xb5, 0x23,
                  0x90, 0x63, 'a',  'b',  'c'};
  char text[512];
  target t = {"orgItems", NULL, 0, "ORG#123"};
  forge_sealed(KEY_A, 0x10, &t, pl, sizeof pl, text, sizeof text);
  refused(m, ring_a, &project, NULL, text, strlen(text), NOW_US,
          "the cursor names no entity of pattern orgItems");
  pl[1] = 0x02;
  forge_sealed(KEY_A, 0x10, &t, pl, sizeof pl, text, sizeof text);
  ddbst_error err;
  assert_int_equal(
      query_with(m, ring_a, &project, NULL, text, strlen(text), NOW_US, &err),
      DDBST_OP_QUERY);
  expect_esk(&project);
  /* the organisation's key: its only facet is the partition's */
  size_t n = decode(seal(m, ring_a, &org), env, sizeof env);
  assert_int_equal(n, 29 + 2 + 16);
  ddbst_model_free(m);

  ddbst_model *blog = load_example("examples/blog/model.json");
  static const lek services = {
      "listServices",
      "name",
      "Design",
      4,
      {"gsi1pk", "gsi1sk", "pk", "sk"},
      {"SERVICE", "0042#01JP4R5X8QZ3N2M7K6W9T0V1YB",
       "SERVICE#01JP4R5X8QZ3N2M7K6W9T0V1YB",
       "SERVICE#01JP4R5X8QZ3N2M7K6W9T0V1YB"},
      "{\"gsi1pk\":{\"S\":\"SERVICE\"},\"gsi1sk\":{\"S\":\"0042#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"pk\":{\"S\":\"SERVICE#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"sk\":{\"S\":\"SERVICE#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"};
  static const lek blogs = {
      "listBlogs",
      "title",
      "Hello",
      4,
      {"gsi1pk", "gsi1sk", "pk", "sk"},
      {"BLOG", "2026-03-14T09:00:00.123Z#01JP4R5X8QZ3N2M7K6W9T0V1YB",
       "BLOG#01JP4R5X8QZ3N2M7K6W9T0V1YB", "BLOG#01JP4R5X8QZ3N2M7K6W9T0V1YB"},
      "{\"gsi1pk\":{\"S\":\"BLOG\"},\"gsi1sk\":{\"S\":\"2026-03-14T09:00:00."
      "123Z#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"pk\":{\"S\":\"BLOG#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"},\"sk\":{\"S\":\"BLOG#"
      "01JP4R5X8QZ3N2M7K6W9T0V1YB\"}}"};
  round_trip(blog, ring_a, &services);
  round_trip(blog, ring_a, &blogs);
  /* [position 42, the ULID's 16 bytes]: the ULID is carried once */
  n = decode(seal(blog, ring_a, &services), env, sizeof env);
  assert_int_equal(n, 29 + 1 + 2 + 17 + 16);
  ddbst_model_free(blog);
}

/* Where other entities' items share a pattern's range, the last key read
 * may be one of theirs: the cursor carries whole keys then. */
static void foreign_last_key(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\"},\"entities\":{"
      "\"User\":{\"attributes\":{\"orgId\":\"string\",\"userId\":\"string\"},"
      "\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#{userId}\"}},"
      "\"Invite\":{\"attributes\":{\"orgId\":\"string\",\"inviteId\":"
      "\"string\"},"
      "\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#INVITE#{inviteId}\"}}},"
      "\"patterns\":{\"listUsers\":{\"query\":\"User\"}}}");
  static const lek invite = {
      "listUsers",
      "orgId",
      "1",
      2,
      {"PK", "SK"},
      {"ORG#1", "USER#INVITE#i9"},
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#INVITE#i9\"}}"};
  static const lek user = {
      "listUsers",
      "orgId",
      "1",
      2,
      {"PK", "SK"},
      {"ORG#1", "USER#u1"},
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#u1\"}}"};
  round_trip(m, ring_a, &invite);
  round_trip(m, ring_a, &user);
  uint8_t env[256];
  size_t n = decode(seal(m, ring_a, &invite), env, sizeof env);
  assert_int_equal(env[0], 0x14);
  assert_int_equal(n, 29 + 1 + 1 + 14 + 16);
  /* whole keys must still be keys of the model */
  uint8_t pl[] = {0x81, 0x64, 'N', 'O', 'P', 'E'};
  char text[256];
  target t = {"listUsers", NULL, 0, "ORG#1"};
  forge_sealed(KEY_A, 0x14, &t, pl, sizeof pl, text, sizeof text);
  refused(m, ring_a, &user, NULL, text, strlen(text), NOW_US,
          "the cursor's SK is no key of the model");
  ddbst_error err;
  static const lek stranger = {"listUsers",  "orgId",           "1", 2,
                               {"PK", "SK"}, {"ORG#1", "NOPE"}, ""};
  assert_int_equal(seal_with(m, ring_a, &stranger, NULL, NOW_US, cur, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "LastEvaluatedKey");
  assert_string_equal(err.message, "the LastEvaluatedKey is no key of pattern "
                                   "listUsers's entities nor of any entity of "
                                   "the model");
  ddbst_model_free(m);
}

/* ---- refusals: where a cursor was made ---- */

static void other_pattern_index_order_partition(void **state) {
  (void)state;
  /* a pattern that differs from listProjects only in its name */
  ddbst_model *twin =
      saas_variant("\"patterns\": {",
                   "\"patterns\": { \"recentProjects\": { \"query\": "
                   "\"Project\", \"order\": "
                   "\"desc\", \"limit\": { \"default\": 25, \"max\": 100 } },");
  lek recent = LIST_PROJECTS;
  recent.pattern = "recentProjects";
  round_trip(twin, ring_a, &recent);
  /* the refusal names the pattern the cursor was made for, the one other
   * pattern of the model whose context it fits */
  const char *c = seal(twin, ring_a, &LIST_PROJECTS);
  refused(twin, ring_a, &recent, NULL, c, strlen(c), NOW_US,
          "the cursor was made for pattern listProjects, not recentProjects: "
          "send it with the query it came from, or start recentProjects from "
          "its first page");
  /* and another pattern of the same partition */
  c = seal(saas, ring_a, &LIST_PROJECTS);
  refused(saas, ring_a, &LIST_USERS, NULL, c, strlen(c), NOW_US,
          "the cursor was made for pattern listProjects, not listUsers: send "
          "it with the query it came from, or start listUsers from its first "
          "page");
  /* on another partition as well: no pattern of the model fits it */
  refused(saas, ring_a, &LIST_USERS, "456", c, strlen(c), NOW_US, MSG_NO_OPEN);
  ddbst_model_free(twin);

  /* the same pattern, partition and order on another index */
  static const char *const from[] = {"\"GSI2\":", "\"index\": \"GSI2\""};
  static const char *const to[] = {"\"GSI9\":", "\"index\": \"GSI9\""};
  ddbst_model *gsi9 = saas_edited(2, from, to);
  round_trip(gsi9, ring_a, &BY_STATUS);
  c = seal(saas, ring_a, &BY_STATUS);
  refused(gsi9, ring_a, &BY_STATUS, NULL, c, strlen(c), NOW_US, MSG_NO_OPEN);
  ddbst_model_free(gsi9);

  /* the same pattern in the other sort order */
  ddbst_model *asc = saas_variant(
      "\"listProjects\": { \"query\": \"Project\", \"order\": \"desc\"",
      "\"listProjects\": { \"query\": \"Project\", \"order\": \"asc\"");
  round_trip(asc, ring_a, &LIST_PROJECTS);
  c = seal(saas, ring_a, &LIST_PROJECTS);
  refused(asc, ring_a, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US, MSG_NO_OPEN);
  c = seal(asc, ring_a, &LIST_PROJECTS);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US,
          MSG_NO_OPEN);
  ddbst_model_free(asc);

  /* tenant 123's cursor on tenant 456's query, sealed and unsealed */
  c = seal(saas, ring_a, &LIST_PROJECTS);
  refused(saas, ring_a, &LIST_PROJECTS, "456", c, strlen(c), NOW_US,
          MSG_NO_OPEN);
  c = seal(saas, ring_a, &BY_STATUS);
  refused(saas, ring_a, &BY_STATUS, "archived", c, strlen(c), NOW_US,
          MSG_NO_OPEN);
  c = seal(saas_dev, NULL, &LIST_PROJECTS);
  refused(saas_dev, NULL, &LIST_PROJECTS, "456", c, strlen(c), NOW_US,
          "the unsealed cursor does not fit this query: it was made for "
          "another pattern, index, sort order or partition, or it was "
          "altered");
  c = seal(saas_dev, NULL, &LIST_PROJECTS);
  refused(saas_dev, NULL, &LIST_USERS, NULL, c, strlen(c), NOW_US,
          "the cursor was made for pattern listProjects, not listUsers: send "
          "it with the query it came from, or start listUsers from its first "
          "page");
}

static void other_key_and_rotation(void **state) {
  (void)state;
  ddbst_cursor_keys *ring_b = ring(KEY_B, NULL);
  ddbst_cursor_keys *rotated = ring(KEY_B, KEY_A); /* new first */
  uint8_t id_a[4], id_b[4], env[256];
  doc_key_id(KEY_A, id_a);
  doc_key_id(KEY_B, id_b);
  char want[256];
  snprintf(want, sizeof want,
           "the cursor was sealed with a key this service no longer has (key "
           "id %02x%02x%02x%02x): it was made before that key left the "
           "keyring, or by another service; start again from the first page",
           id_a[0], id_a[1], id_a[2], id_a[3]);

  const char *c = seal(saas, ring_a, &LIST_PROJECTS);
  refused(saas, ring_b, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US, want);
  /* after rotation the old key still opens its cursors ... */
  ddbst_error err;
  assert_int_equal(query_with(saas, rotated, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US, &err),
                   DDBST_OP_QUERY);
  expect_esk(&LIST_PROJECTS);
  /* ... and the new one seals */
  c = seal(saas, rotated, &LIST_PROJECTS);
  assert_int_equal(decode(c, env, sizeof env), 55);
  assert_memory_equal(env + 1, id_b, 4);
  assert_int_equal(query_with(saas, rotated, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US, &err),
                   DDBST_OP_QUERY);
  expect_esk(&LIST_PROJECTS);
  assert_int_equal(query_with(saas, ring_b, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US, &err),
                   DDBST_OP_QUERY);
  snprintf(want, sizeof want,
           "the cursor was sealed with a key this service no longer has (key "
           "id %02x%02x%02x%02x): it was made before that key left the "
           "keyring, or by another service; start again from the first page",
           id_b[0], id_b[1], id_b[2], id_b[3]);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US, want);
  ddbst_cursor_keys_free(ring_b);
  ddbst_cursor_keys_free(rotated);
}

/* ---- the subkeys a keyring keeps for opening ---- */

/* the payload of listProjects' worked example (docs/cursor.md) */
static const uint8_t LP_PAYLOAD[] = {0x82, 0x1a, 0x69, 0xb5, 0x23,
                                     0x90, 0x63, 'a',  'b',  'c'};

static void opens(const ddbst_cursor_keys *keys, const char *c) {
  ddbst_error err;
  int rc = query_with(saas, keys, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US,
                      &err);
  if (rc != DDBST_OP_QUERY)
    fail_msg("%s: %s (cursor %s)", err.path, err.message, c);
  expect_esk(&LIST_PROJECTS);
}

/* Cursors of more processes than the keyring keeps subkeys for (keyrings
 * of one key, each with its own nonce prefix) open in any order, again and
 * again, and beside the keyring's own. */
static void subkeys_of_many_sealers(void **state) {
  (void)state;
  enum { SEALERS = 20 };
  static char c[SEALERS][128];
  for (int i = 0; i < SEALERS; i++) {
    ddbst_cursor_keys *k = ring(KEY_A, NULL);
    snprintf(c[i], sizeof c[i], "%s", seal(saas, k, &LIST_PROJECTS));
    ddbst_cursor_keys_free(k);
  }
  char own[128];
  snprintf(own, sizeof own, "%s", seal(saas, ring_a, &LIST_PROJECTS));
  ddbst_cursor_keys *opener = ring(KEY_A, NULL);
  for (int pass = 0; pass < 4; pass++)
    for (int j = 0; j < SEALERS; j++) {
      int i = pass % 2 ? SEALERS - 1 - j : j;
      opens(opener, c[i]);
      opens(opener, c[i]);
      opens(opener, c[pass]);
      opens(opener, own);
    }
  ddbst_cursor_keys_free(opener);
}

/* A kept subkey opens only what its key sealed for this query. */
static void kept_subkeys_check_everything(void **state) {
  (void)state;
  ddbst_cursor_keys *rotated = ring(KEY_B, KEY_A);
  ddbst_cursor_keys *ring_b = ring(KEY_B, NULL);
  uint8_t nonce[24];
  randombytes_buf(nonce, sizeof nonce);
  char by_a[256], by_b[256], forged[256], altered[256];
  forge_as(KEY_A, KEY_A, 0x10, &LP_TARGET, nonce, LP_PAYLOAD,
           sizeof LP_PAYLOAD, by_a, sizeof by_a);
  /* the same prefix with the other key: a subkey is per key and prefix */
  forge_as(KEY_B, KEY_B, 0x10, &LP_TARGET, nonce, LP_PAYLOAD,
           sizeof LP_PAYLOAD, by_b, sizeof by_b);
  for (int i = 0; i < 3; i++) {
    opens(rotated, by_a);
    opens(rotated, by_b);
    opens(ring_a, by_a);
    opens(ring_b, by_b);
  }
  /* B's cursor under A's id, with A's subkey for that prefix kept */
  forge_as(KEY_A, KEY_B, 0x10, &LP_TARGET, nonce, LP_PAYLOAD,
           sizeof LP_PAYLOAD, forged, sizeof forged);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, forged, strlen(forged), NOW_US,
          MSG_NO_OPEN);
  refused(saas, rotated, &LIST_PROJECTS, NULL, forged, strlen(forged), NOW_US,
          MSG_NO_OPEN);
  /* another partition, and an altered tag, with the subkey kept */
  refused(saas, ring_a, &LIST_PROJECTS, "456", by_a, strlen(by_a), NOW_US,
          MSG_NO_OPEN);
  uint8_t env[256];
  size_t n = decode(by_a, env, sizeof env);
  env[n - 1] ^= 1;
  encode(env, n, altered, sizeof altered);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, altered, strlen(altered), NOW_US,
          MSG_NO_OPEN);
  /* and still opens after the refusals */
  opens(ring_a, by_a);
  opens(rotated, by_b);
  ddbst_cursor_keys_free(ring_b);
  ddbst_cursor_keys_free(rotated);
}

/* One keyring, threads opening the cursors of more sealers than it keeps
 * subkeys for: every body is the one a single thread gets. (No cmocka
 * assertion off the main thread: a worker returns whether it failed.) */
enum { OPEN_THREADS = 4, OPEN_SEALERS = 12, OPEN_ROUNDS = 150 };
static char open_cursors[OPEN_SEALERS][128];
static char open_expected[4096];
static ddbst_cursor_keys *open_shared;

static void *open_worker(void *arg) {
  int t = (int)(intptr_t)arg, bad = 0;
  int p = ddbst_model_pattern(saas, "listProjects");
  int e = ddbst_model_pattern_entity(saas, p, 0);
  ddbst_item *it = ddbst_item_new(saas, e);
  ddbst_buf *body = ddbst_buf_new(NULL);
  if (!it || !body) return (void *)1;
  for (int r = 0; r < OPEN_ROUNDS; r++) {
    const char *c = open_cursors[(r * (t + 1) + t) % OPEN_SEALERS];
    ddbst_item_reset(it, e);
    bad |= ddbst_item_set(it, ddbst_model_attribute(saas, e, "orgId"), "123",
                          3, NULL) != 0;
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.cursor = c;
    q.cursor_len = strlen(c);
    q.cursor_keys = open_shared;
    q.now_unix_us = NOW_US;
    ddbst_buf_reset(body);
    bad |= ddbst_query_request(it, p, &q, body, NULL) != DDBST_OP_QUERY ||
           strcmp(ddbst_buf_data(body), open_expected) != 0;
  }
  ddbst_buf_free(body);
  ddbst_item_free(it);
  return (void *)(intptr_t)bad;
}

static void kept_subkeys_shared_between_threads(void **state) {
  (void)state;
  for (int i = 0; i < OPEN_SEALERS; i++) {
    ddbst_cursor_keys *k = ring(KEY_A, NULL);
    snprintf(open_cursors[i], sizeof open_cursors[i], "%s",
             seal(saas, k, &LIST_PROJECTS));
    ddbst_cursor_keys_free(k);
  }
  open_shared = ring(KEY_A, NULL);
  ddbst_error err;
  assert_int_equal(query_with(saas, open_shared, &LIST_PROJECTS, NULL,
                              open_cursors[0], strlen(open_cursors[0]), NOW_US,
                              &err),
                   DDBST_OP_QUERY);
  expect_esk(&LIST_PROJECTS);
  snprintf(open_expected, sizeof open_expected, "%s", ddbst_buf_data(out));
  pthread_t th[OPEN_THREADS];
  for (int t = 0; t < OPEN_THREADS; t++)
    assert_int_equal(
        pthread_create(&th[t], NULL, open_worker, (void *)(intptr_t)t), 0);
  for (int t = 0; t < OPEN_THREADS; t++) {
    void *bad;
    assert_int_equal(pthread_join(th[t], &bad), 0);
    assert_null(bad);
  }
  ddbst_cursor_keys_free(open_shared);
}

/* ---- refusals: what a client can do to the text ---- */

static void every_byte_altered(void **state) {
  (void)state;
  const lek *leks[] = {&LIST_PROJECTS, &BY_STATUS};
  for (size_t k = 0; k < 2; k++) {
    uint8_t env[512], bad[512];
    char text[1024];
    size_t n = decode(seal(saas, ring_a, leks[k]), env, sizeof env);
    for (size_t i = 0; i < n; i++)
      for (int bit = 0; bit < 8; bit++) {
        memcpy(bad, env, n);
        bad[i] ^= (uint8_t)(1u << bit);
        encode(bad, n, text, sizeof text);
        ddbst_error err;
        int rc = query_with(saas, ring_a, leks[k], NULL, text, strlen(text),
                            NOW_US, &err);
        if (rc != DDBST_ECURSOR)
          fail_msg("byte %zu bit %d altered: %d %s", i, bit, rc, err.message);
        if (i >= 5) assert_string_equal(err.message, MSG_NO_OPEN);
        if (i >= 1 && i < 5)
          assert_true(strstr(err.message, "no longer has") != NULL);
        expect_refused(rc, &err, NULL);
      }
  }
  /* unsealed cursors are not secret, but still checked */
  uint8_t env[512];
  char text[1024];
  size_t n = decode(seal(saas_dev, NULL, &BY_STATUS), env, sizeof env);
  for (size_t i = 0; i < n; i++) {
    env[i] ^= 0x20;
    encode(env, n, text, sizeof text);
    refused(saas_dev, NULL, &BY_STATUS, NULL, text, strlen(text), NOW_US, NULL);
    env[i] ^= 0x20;
  }
}

static void every_truncation(void **state) {
  (void)state;
  char c[256];
  snprintf(c, sizeof c, "%s", seal(saas, ring_a, &LIST_PROJECTS));
  size_t len = strlen(c);
  for (size_t i = 0; i < len; i++)
    refused(saas, ring_a, &LIST_PROJECTS, NULL, c, i, NOW_US, NULL);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, c, 0, NOW_US,
          "the cursor is empty");
  /* cut at every byte, then re-encoded: too short, or does not open */
  uint8_t env[256];
  char text[512];
  size_t n = decode(c, env, sizeof env);
  for (size_t i = 1; i < n; i++) {
    encode(env, i, text, sizeof text);
    char want[256];
    snprintf(want, sizeof want,
             "not a ddbst cursor, or one cut short: %zu bytes, where a sealed cursor has "
             "at least 46",
             i);
    refused(saas, ring_a, &LIST_PROJECTS, NULL, text, strlen(text), NOW_US,
            i < 46 ? want : MSG_NO_OPEN);
  }
  snprintf(c, sizeof c, "%s", seal(saas_dev, NULL, &LIST_PROJECTS));
  n = decode(c, env, sizeof env);
  for (size_t i = 1; i < n; i++) {
    encode(env, i, text, sizeof text);
    refused(saas_dev, NULL, &LIST_PROJECTS, NULL, text, strlen(text), NOW_US,
            NULL);
  }
}

static void oversized_and_not_base64url(void **state) {
  (void)state;
  static char big[DDBST__CURSOR_MAX_CHARS + 2];
  memset(big, 'A', sizeof big - 1);
  big[sizeof big - 1] = 0;
  refused(saas, ring_a, &LIST_PROJECTS, NULL, big, DDBST__CURSOR_MAX_CHARS + 1,
          NOW_US,
          "the cursor is 6145 characters long; a cursor has at most 6144");
  refused(saas, ring_a, &LIST_PROJECTS, NULL, big, 100000, NOW_US,
          "the cursor is 100000 characters long; a cursor has at most 6144");
  /* the longest text is decoded, and refused for what it holds */
  refused(saas, ring_a, &LIST_PROJECTS, NULL, big, DDBST__CURSOR_MAX_CHARS,
          NOW_US, "not a ddbst cursor: its first byte says format 0, and ddbst makes and reads format 1");

  char c[256];
  snprintf(c, sizeof c, "%s", seal(saas, ring_a, &LIST_PROJECTS));
  /* '\x80' and up: Debian's libsodium 1.0.18 would decode them */
  static const char bad[] = {'+', '/',  '=',    ' ',    '\n',
                             '.', '\0', '\x80', '\xc3', '\xff'};
  for (size_t i = 0; i < sizeof bad; i++) {
    char t[256];
    memcpy(t, c, sizeof t);
    t[10] = bad[i];
    ddbst_error err;
    int rc = query_with(saas, ring_a, &LIST_PROJECTS, NULL, t, strlen(c),
                        NOW_US, &err);
    expect_refused(rc, &err,
                   "not a ddbst cursor: character 11 is not one of A-Z a-z 0-9 - _ "
                   "(a cursor is base64url, with no padding or spaces)");
    assert_int_equal(err.offset, 10);
  }
  /* padding, as standard base64 would add it */
  char padded[300];
  snprintf(padded, sizeof padded, "%s==", c);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, padded, strlen(padded), NOW_US,
          "not a ddbst cursor: character 75 is not one of A-Z a-z 0-9 - _ "
          "(a cursor is base64url, with no padding or spaces)");
  /* a last character with bits past the last byte, a length no bytes have */
  char t[256];
  snprintf(t, sizeof t, "%s", c);
  assert_int_equal(strlen(t) % 4, 2);
  t[strlen(t) - 1] = 'B';
  refused(saas, ring_a, &LIST_PROJECTS, NULL, t, strlen(t), NOW_US,
          "not a ddbst cursor: its base64url text does not end on a whole "
          "byte (cut short, or its last character altered)");
  refused(saas, ring_a, &LIST_PROJECTS, NULL, "AAAAA", 5, NOW_US,
          "not a ddbst cursor: its base64url text does not end on a whole "
          "byte (cut short, or its last character altered)");
}

/* Cursors of every length (every remainder of the base64url groups, both
 * word loops): the library's text is libsodium's encoding of the same
 * bytes, it opens, and a foreign character anywhere is found where it is. */
static void base64url_at_every_length(void **state) {
  (void)state;
  for (size_t len = 1; len <= 64; len++) {
    char sk[128], esk[256];
    int n = snprintf(sk, sizeof sk, "PROJECT#2026-03-14T09:00:00Z#");
    for (size_t i = 0; i < len; i++) sk[n++] = (char)('a' + i % 26);
    sk[n] = 0;
    snprintf(esk, sizeof esk, "{\"PK\":{\"S\":\"ORG#123\"},\"SK\":{\"S\":\"%s\"}}",
             sk);
    lek l = LIST_PROJECTS;
    l.vals[1] = sk;
    l.esk = esk;
    for (int sealed = 0; sealed < 2; sealed++) {
      ddbst_model *m = sealed ? saas : saas_dev;
      const ddbst_cursor_keys *k = sealed ? ring_a : NULL;
      round_trip(m, k, &l);
      char c[256], again[256];
      snprintf(c, sizeof c, "%s", seal(m, k, &l));
      uint8_t env[256];
      size_t bytes = decode(c, env, sizeof env);
      encode(env, bytes, again, sizeof again);
      assert_string_equal(c, again);
      size_t clen = strlen(c);
      for (size_t i = 0; i < clen; i += sealed ? 1 : 3) {
        char t[256], want[160];
        memcpy(t, c, clen + 1);
        t[i] = '.';
        ddbst_error err;
        int rc = query_with(m, k, &l, NULL, t, clen, NOW_US, &err);
        snprintf(want, sizeof want,
                 "not a ddbst cursor: character %zu is not one of A-Z a-z 0-9 "
                 "- _ (a cursor is base64url, with no padding or spaces)",
                 i + 1);
        expect_refused(rc, &err, want);
        assert_int_equal(err.offset, i);
      }
    }
  }
}

/* Keys as the ExclusiveStartKey writes them: text that needs JSON escapes
 * (in the partition and in a carried facet) is escaped, as before. */
static void keys_written_as_json(void **state) {
  (void)state;
  static const uint8_t pl[] = {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x64,
                               'p',  '"',  '\\', '\t'};
  target t = {"listProjects", NULL, 1, "ORG#o\"1"};
  char text[512];
  forge_sealed(KEY_A, 0x10, &t, pl, sizeof pl, text, sizeof text);
  ddbst_error err;
  int rc = query_with(saas, ring_a, &LIST_PROJECTS, "o\"1", text, strlen(text),
                      NOW_US, &err);
  if (rc != DDBST_OP_QUERY) fail_msg("%d %s", rc, err.message);
  const char *want =
      ",\"ExclusiveStartKey\":{\"PK\":{\"S\":\"ORG#o\\\"1\"},\"SK\":{\"S\":"
      "\"PROJECT#2026-03-14T09:00:00Z#p\\\"\\\\\\t\"}}}";
  const char *body = ddbst_buf_data(out);
  size_t bl = strlen(body), wl = strlen(want);
  if (bl < wl || strcmp(body + bl - wl, want))
    fail_msg("wanted the body to end with %s; it is %s", want, body);
}

/* A delimiter of two bytes: a facet free of it can still end with its first
 * byte, so the key built from the cursor is split back along its template
 * and refused when it does not split. */
static void two_byte_delimiter_keys_split_back(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\": 1, \"table\": {\"name\": \"notes\", \"partitionKey\": \"PK\", \"sortKey\": "
      "\"SK\", \"delimiter\": \"||\"},"
      " \"entities\": {\"Note\": {\"attributes\": {\"orgId\": \"string\", "
      "\"tag\": \"string\", \"noteId\": \"string\"},"
      " \"key\": {\"pk\": \"ORG||{orgId}\", \"sk\": "
      "\"NOTE||{tag}||{noteId}\"}}},"
      " \"patterns\": {\"listNotes\": {\"query\": \"Note\"}}}");
  const lek notes = {
      "listNotes",
      "orgId",
      "o1",
      2,
      {"PK", "SK"},
      {"ORG||o1", "NOTE||t||n"},
      "{\"PK\":{\"S\":\"ORG||o1\"},\"SK\":{\"S\":\"NOTE||t||n\"}}"};
  round_trip(m, ring_a, &notes);
  target t = {"listNotes", NULL, 0, "ORG||o1"};
  char text[512];
  /* tag "a|", noteId "b": splits (as tag "a", noteId "|b"), so it opens */
  static const uint8_t splits[] = {0x82, 0x62, 'a', '|', 0x61, 'b'};
  forge_sealed(KEY_A, 0x10, &t, splits, sizeof splits, text, sizeof text);
  ddbst_error err;
  int rc = query_with(m, ring_a, &notes, NULL, text, strlen(text), NOW_US, &err);
  if (rc != DDBST_OP_QUERY) fail_msg("%d %s", rc, err.message);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"SK\":{\"S\":\"NOTE||a|||b\"}}}"));
  /* tag "a|", noteId "|": the last facet would be empty */
  static const uint8_t stuck[] = {0x82, 0x62, 'a', '|', 0x61, '|'};
  forge_sealed(KEY_A, 0x10, &t, stuck, sizeof stuck, text, sizeof text);
  refused(m, ring_a, &notes, NULL, text, strlen(text), NOW_US,
          "the cursor's SK is outside entity Note's key space "
          "(NOTE||{tag}||{noteId})");
  /* the delimiter itself, whole, is refused before any key is built */
  static const uint8_t holds[] = {0x82, 0x63, 'a', '|', '|', 0x61, 'b'};
  forge_sealed(KEY_A, 0x10, &t, holds, sizeof holds, text, sizeof text);
  refused(m, ring_a, &notes, NULL, text, strlen(text), NOW_US,
          "the cursor's tag contains the key delimiter");
  ddbst_model_free(m);
}

/* ---- refusals: age and mode ---- */

static void maximum_age(void **state) {
  (void)state;
  ddbst_cursor_keys *aged = ring(KEY_A, NULL);
  ddbst_cursor_keys_set_max_age(aged, 3600);
  ddbst_error err;
  assert_int_equal(
      seal_with(saas, aged, &LIST_PROJECTS, NULL, NOW_US, cur, &err), 0);
  char c[256];
  snprintf(c, sizeof c, "%s", ddbst_buf_data(cur));
  int64_t s = 1000000;
  assert_int_equal(query_with(saas, aged, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US + 3600 * s, &err),
                   DDBST_OP_QUERY);
  expect_esk(&LIST_PROJECTS);
  refused(saas, aged, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US + 3601 * s,
          "the cursor expired: issued 3601 s ago, and cursors older than 3600 "
          "s are refused");
  refused(saas, aged, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US - 301 * s,
          "the cursor was issued 301 s in the future");
  assert_int_equal(query_with(saas, aged, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US - 300 * s, &err),
                   DDBST_OP_QUERY);
  /* the clock, when no time is given: a cursor of 2026-03-14 is old by
   * the time anyone runs this, or will be within the hour */
  assert_int_equal(seal_with(saas, aged, &LIST_PROJECTS, NULL, 0, cur, &err),
                   0);
  assert_int_equal(query_with(saas, aged, &LIST_PROJECTS, NULL,
                              ddbst_buf_data(cur), ddbst_buf_len(cur), 0, &err),
                   DDBST_OP_QUERY);
  /* the issue time is the payload's first value, under the seal: a client
   * cannot refresh an old cursor */
  uint8_t env[256], plainbuf[64];
  size_t n = decode(c, env, sizeof env);
  assert_int_equal(n, 60);
  assert_int_equal(env[0], 0x12);
  uint8_t ad[5 + 4096];
  memcpy(ad, env, 5);
  size_t an = 5 + doc_context("listProjects", NULL, 1, "ORG#123", ad + 5);
  unsigned long long pl = 0;
  assert_int_equal(
      crypto_aead_xchacha20poly1305_ietf_decrypt(
          plainbuf, &pl, NULL, env + 29, n - 29, ad, an, env + 5, KEY_A),
      0);
  static const uint8_t aged_payload[] = {0x83, 0x1a, 0x69, 0xb5, 0x23,
                                         0x90, 0x1a, 0x69, 0xb5, 0x23,
                                         0x90, 0x63, 'a',  'b',  'c'};
  assert_int_equal(pl, sizeof aged_payload);
  assert_memory_equal(plainbuf, aged_payload, sizeof aged_payload);
  char text[256];
  env[33] ^= 0x01; /* the time's last byte, as a client would try */
  encode(env, n, text, sizeof text);
  refused(saas, aged, &LIST_PROJECTS, NULL, text, strlen(text), NOW_US,
          MSG_NO_OPEN);
  /* made without a maximum age: no issue time to check */
  const char *plain = seal(saas, ring_a, &LIST_PROJECTS);
  refused(saas, aged, &LIST_PROJECTS, NULL, plain, strlen(plain), NOW_US,
          "the cursor carries no issue time, and cursors older than 3600 s "
          "are refused");
  /* 0 or less: no limit */
  ddbst_cursor_keys_set_max_age(aged, -5);
  assert_int_equal(query_with(saas, aged, &LIST_PROJECTS, NULL, c, strlen(c),
                              NOW_US + 9999999 * s, &err),
                   DDBST_OP_QUERY);
  ddbst_cursor_keys_free(aged);
}

static void sealed_and_unsealed_modes(void **state) {
  (void)state;
  ddbst_error err;
  /* a client cannot downgrade to an unsealed cursor */
  const char *c = seal(saas_dev, NULL, &LIST_PROJECTS);
  refused(saas_dev, ring_a, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US,
          "the cursor is unsealed, but cursor keys are configured: only "
          "sealed cursors are accepted");
  refused(saas, ring_a, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US,
          "the cursor is unsealed, but cursor keys are configured: only "
          "sealed cursors are accepted");
  /* nor open a sealed one where the server has no keys */
  c = seal(saas_dev, ring_a, &LIST_PROJECTS);
  refused(saas_dev, NULL, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US,
          "the cursor is sealed, but no cursor keys are configured to open "
          "it");
  /* a model whose cursors are sealed (the default) needs keys: a server
   * without them is misconfigured, and says so */
  static const char *const need =
      "pattern listProjects: the model's cursors are sealed (table.cursors) "
      "and no cursor keys were given; configure keys, or declare "
      "\"cursors\": \"unsealed\" for development";
  assert_int_equal(
      query_with(saas, NULL, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US, &err),
      DDBST_EINVAL);
  assert_string_equal(err.path, "cursor_keys");
  assert_string_equal(err.message, need);
  assert_int_equal(
      seal_with(saas, NULL, &LIST_PROJECTS, NULL, NOW_US, cur, &err),
      DDBST_EINVAL);
  assert_string_equal(err.message, need);
  assert_int_equal(ddbst_buf_len(cur), 0);
  /* an empty keyring neither seals nor opens */
  ddbst_cursor_keys *empty = ddbst_cursor_keys_new(NULL);
  assert_int_equal(
      seal_with(saas, empty, &LIST_PROJECTS, NULL, NOW_US, cur, &err),
      DDBST_EINVAL);
  assert_string_equal(err.message, "the cursor keyring holds no key");
  assert_int_equal(
      query_with(saas, empty, &LIST_PROJECTS, NULL, c, strlen(c), NOW_US, &err),
      DDBST_EINVAL);
  ddbst_cursor_keys_free(empty);
  /* no cursor: the query is as before */
  assert_int_equal(
      query_with(saas, NULL, &LIST_PROJECTS, NULL, NULL, 0, NOW_US, &err),
      DDBST_OP_QUERY);
  assert_null(strstr(ddbst_buf_data(out), "ExclusiveStartKey"));
}

/* ---- refusals: contents, from a holder of the key ---- */

static void contents_that_do_not_fit(void **state) {
  (void)state;
  static const struct {
    uint8_t head;
    uint8_t pl[48];
    size_t n;
    const char *msg;
  } rows[] = {
      {0x10,
       {0x81, 0x1a, 0x69, 0xb5, 0x23, 0x90},
       6,
       "the cursor holds 1 value, where pattern listProjects's cursor holds 2"},
      {0x10,
       {0x83, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x61, 'a', 0x61, 'b'},
       10,
       "the cursor holds 3 values, where pattern listProjects's cursor holds "
       "2"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x63, 'a', '#', 'b'},
       10,
       "the cursor's projectId contains the key delimiter"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x62, 0xc3, 0x28},
       9,
       "the cursor's projectId is not valid UTF-8"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x61, 0x00},
       8,
       "the cursor's projectId contains a NUL byte"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x60},
       7,
       "the cursor's projectId is empty"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x05},
       7,
       "the cursor's value for projectId is of the wrong type"},
      {0x10,
       {0x82, 0x41, 0x00, 0x61, 'a'},
       5,
       "the cursor's value for createdAt is of the wrong type"},
      {0x10,
       {0x82, 0x1b, 0x00, 0x00, 0x00, 0x40, 0, 0, 0, 0, 0x61, 'a'},
       12,
       "the cursor's createdAt: timestamp outside years 0000-9999 (UTC)"},
      {0x10,
       {0x82, 0x1b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x61, 'a'},
       12,
       "the cursor's createdAt is out of range"},
      {0x10,
       {0x82, 0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x61, 'a'},
       12,
       "the cursor's createdAt is out of range"},
      {0x10,
       {0xa1, 0x61, 'a', 0x61, 'b'},
       5,
       "the cursor's contents are malformed: an item that is no cursor value"},
      {0x10,
       {0x82, 0x82, 0x01, 0x02},
       4,
       "the cursor's contents are malformed: an item that is no cursor value"},
      {0x10,
       {0x9f, 0x01, 0xff},
       3,
       "the cursor's contents are malformed: an item that is no cursor value"},
      {0x10,
       {0x82, 0xc1, 0x01, 0x61, 'a'},
       5,
       "the cursor's contents are malformed: an item that is no cursor value"},
      {0x10,
       {0x82, 0xf6, 0x61, 'a'},
       4,
       "the cursor's contents are malformed: an item that is no cursor value"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90},
       6,
       "the cursor's contents are malformed: they end early"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x61, 'a', 0x00},
       9,
       "the cursor's contents are malformed: 1 bytes after its values"},
      {0x10,
       {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x7a, 0xff, 0xff, 0xff, 0xff},
       11,
       "the cursor's contents are malformed: they end early"},
      {0x10,
       {0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
       9,
       "the cursor's contents are malformed: 18446744073709551615 values"},
      {0x10, {0x1c}, 1, "the cursor's contents are malformed: not CBOR"},
      {0x14,
       {0x81, 0x61, 'a'},
       3,
       "the cursor holds whole keys, which pattern listProjects never makes: "
       "no other items share its key range"},
      {0x12,
       {0x82, 0x61, 'a', 0x61, 'b'},
       5,
       "the cursor's contents are malformed: no issue time"},
      {0x20,
       {0x80},
       1,
       "not a ddbst cursor: its first byte says format 2, and ddbst makes and reads format 1"},
      {0x18, {0x80}, 1, "the cursor sets a flag this library does not know"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char text[512];
    forge_sealed(KEY_A, rows[i].head, &LP_TARGET, rows[i].pl, rows[i].n, text,
                 sizeof text);
    ddbst_error err;
    int rc = query_with(saas, ring_a, &LIST_PROJECTS, NULL, text, strlen(text),
                        NOW_US, &err);
    if (rc != DDBST_ECURSOR ||
        (rows[i].msg && strcmp(err.message, rows[i].msg)))
      fail_msg("row %zu: %d %s", i, rc, err.message);
    expect_refused(rc, &err, rows[i].msg);
  }
  /* a sort key past DynamoDB's 1024 bytes */
  static uint8_t pl[1200];
  size_t n = 0;
  pl[n++] = 0x82;
  n += cbor_head(pl + n, 0, (uint64_t)NOW_S);
  n += cbor_head(pl + n, 3, 1100);
  memset(pl + n, 'x', 1100);
  n += 1100;
  char text[2048];
  forge_sealed(KEY_A, 0x10, &LP_TARGET, pl, n, text, sizeof text);
  refused(saas, ring_a, &LIST_PROJECTS, NULL, text, strlen(text), NOW_US,
          "the cursor would make SK longer than 1024 bytes");
  /* a ULID facet as 15 bytes */
  uint8_t ev[] = {0x82, 0x1a, 0x69, 0xb5, 0x23, 0x90, 0x4f, 0, 0, 0, 0,
                  0,    0,    0,    0,    0,    0,    0,    0, 0, 0, 0};
  target t = {"listEvents", NULL, 0, "PROJECT#abc"};
  forge_sealed(KEY_A, 0x10, &t, ev, sizeof ev, text, sizeof text);
  refused(saas, ring_a, &LIST_EVENTS, NULL, text, strlen(text), NOW_US,
          "the cursor's value for eventId is of the wrong type");
  /* text facets that are not canonical still page on (legacy keys) */
  uint8_t legacy[] = {0x82, 0x64, 'l', 'a', 't', 'e', 0x61, 'a'};
  forge_sealed(KEY_A, 0x10, &LP_TARGET, legacy, sizeof legacy, text,
               sizeof text);
  ddbst_error err;
  assert_int_equal(query_with(saas, ring_a, &LIST_PROJECTS, NULL, text,
                              strlen(text), NOW_US, &err),
                   DDBST_OP_QUERY);
  assert_non_null(
      strstr(ddbst_buf_data(out), "\"SK\":{\"S\":\"PROJECT#late#a\"}}}"));
}

/* What sealing refuses: a LastEvaluatedKey this query cannot return. */
static void seal_refusals(void **state) {
  (void)state;
  static const struct {
    lek l;
    const char *path, *msg;
  } rows[] = {
      {{"listProjects", "orgId", "123", 1, {"PK"}, {"ORG#123"}, ""},
       "LastEvaluatedKey.SK",
       "SK is missing (pattern listProjects)"},
      {{"listProjects",
        "orgId",
        "123",
        3,
        {"PK", "SK", "GSI2PK"},
        {"ORG#123", "PROJECT#2026-03-14T09:00:00Z#abc", "STATUS#active"},
        ""},
       "LastEvaluatedKey.GSI2PK",
       "GSI2PK is not a key attribute of pattern listProjects's "
       "LastEvaluatedKey"},
      {{"listProjects",
        "orgId",
        "123",
        3,
        {"PK", "SK", "PK"},
        {"ORG#123", "PROJECT#2026-03-14T09:00:00Z#abc", "ORG#123"},
        ""},
       "LastEvaluatedKey.PK",
       "PK appears twice"},
      {{"listProjects",
        "orgId",
        "123",
        2,
        {"PK", "SK"},
        {"ORG#999", "PROJECT#2026-03-14T09:00:00Z#abc"},
        ""},
       "LastEvaluatedKey.PK",
       "PK is not the partition this query read (pattern listProjects)"},
      {{"listProjects",
        "orgId",
        "123",
        2,
        {"PK", "SK"},
        {"ORG#123", "USER#u1"},
        ""},
       "LastEvaluatedKey",
       "the LastEvaluatedKey is no key of pattern listProjects's entities"},
      {{"listProjects", "orgId", "123", 2, {"PK", "SK"}, {"ORG#123", ""}, ""},
       "LastEvaluatedKey.SK",
       "SK is not a key value DynamoDB could return (empty, too long or not "
       "UTF-8)"},
      {{"projectsByStatus",
        "status",
        "active",
        4,
        {"GSI2PK", "GSI2SK", "PK", "SK"},
        {"STATUS#active", "2026-03-15T09:00:00Z", "ORG#123",
         "PROJECT#2026-03-14T09:00:00Z#abc"},
        ""},
       "LastEvaluatedKey",
       "the LastEvaluatedKey is no key of pattern projectsByStatus's "
       "entities"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    ddbst_error err;
    int rc = seal_with(saas, ring_a, &rows[i].l, NULL, NOW_US, cur, &err);
    if (rc != DDBST_EVALUE || strcmp(err.path, rows[i].path) ||
        strcmp(err.message, rows[i].msg))
      fail_msg("row %zu: %d %s: %s", i, rc, err.path, err.message);
    assert_int_equal(ddbst_buf_len(cur), 0);
  }
  /* values of another entity, a get pattern, a pattern out of range */
  ddbst_error err;
  ddbst_item *org =
      ddbst_item_new(saas, ddbst_model_entity(saas, "Organisation"));
  set(org, "orgId", "123");
  const char *n[] = {"PK"}, *v[] = {"ORG#123"};
  size_t l[] = {7};
  assert_int_equal(ddbst__cursor_seal(ring_a, org,
                                      ddbst_model_pattern(saas, "listProjects"),
                                      n, v, l, 1, NOW_US, cur, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "listProjects is not a query of entity Organisation");
  assert_int_equal(
      ddbst__cursor_seal(ring_a, org,
                         ddbst_model_pattern(saas, "getOrganisation"), n, v, l,
                         1, NOW_US, cur, &err),
      DDBST_EINVAL);
  assert_string_equal(err.message,
                      "getOrganisation is not a query of entity Organisation");
  assert_int_equal(
      ddbst__cursor_seal(ring_a, org, 99, n, v, l, 1, NOW_US, cur, &err),
      DDBST_EINVAL);
  assert_int_equal(
      ddbst__cursor_seal(ring_a, NULL, 0, n, v, l, 1, NOW_US, cur, &err),
      DDBST_EINVAL);
  ddbst_item_free(org);
  /* the partition's facets must be set */
  int p = ddbst_model_pattern(saas, "listProjects");
  ddbst_item *none = ddbst_item_new(saas, ddbst_model_entity(saas, "Project"));
  assert_int_equal(ddbst__cursor_seal(ring_a, none, p, LIST_PROJECTS.names,
                                      LIST_PROJECTS.vals, (size_t[]){7, 32}, 2,
                                      NOW_US, cur, &err),
                   DDBST_EMISSING);
  ddbst_item_free(none);
}

/* ---- what a sealed cursor does not reveal ---- */

static int contains(const uint8_t *h, size_t hn, const char *needle) {
  size_t nn = strlen(needle);
  for (size_t i = 0; i + nn <= hn; i++)
    if (!memcmp(h + i, needle, nn)) return 1;
  return 0;
}

static void reveals_nothing(void **state) {
  (void)state;
  static const char *const needles[] = {
      "PK",  "SK",  "GSI2",   "ORG#", "PROJECT#",      "STATUS#",
      "abc", "123", "active", "2026", "2026-03-14T09", "Project"};
  enum { N = sizeof needles / sizeof needles[0], TRIES = 16 };
  /* the envelope's first 5 + 24 bytes; the base64url characters from the
   * 40th on encode only bytes after them */
  enum { FIXED_BYTES = 5 + 24, FIXED_CHARS = 40 };
  const lek *leks[] = {&LIST_PROJECTS, &BY_STATUS};
  for (size_t k = 0; k < 2; k++) {
    int hits[N] = {0}, short_hits[N] = {0};
    for (int t = 0; t < TRIES; t++) {
      uint8_t env[256];
      const char *c = seal(saas, ring_a, leks[k]);
      size_t n = decode(c, env, sizeof env);
      assert_true(n > FIXED_BYTES);
      for (int i = 0; i < N; i++) {
        hits[i] += contains(env, n, needles[i]);
        hits[i] += contains((const uint8_t *)c, strlen(c), needles[i]);
        /* what differs from one cursor to the next, in both forms */
        short_hits[i] += contains(env + FIXED_BYTES, n - FIXED_BYTES,
                                  needles[i]) ||
                         contains((const uint8_t *)c + FIXED_CHARS,
                                  strlen(c) - FIXED_CHARS, needles[i]);
      }
    }
    /* Random bytes may hold a short needle by chance, never every time; a
     * long one never. The first bytes are the same in every cursor of this
     * process (header, key id, the nonce's random prefix): a short needle
     * there would be there every time, so those count for long ones only. */
    for (int i = 0; i < N; i++)
      if (strlen(needles[i]) >= 5 ? hits[i] > 0 : short_hits[i] >= TRIES)
        fail_msg("%s: a sealed cursor shows '%s'", leks[k]->pattern,
                 needles[i]);
  }
  /* the check can see: an unsealed cursor shows its values */
  uint8_t env[256];
  size_t n = decode(seal(saas_dev, NULL, &BY_STATUS), env, sizeof env);
  assert_true(contains(env, n, "abc"));
  assert_true(contains(env, n, "123"));
}

/* ---- allocation ---- */

static void warm_calls_do_not_allocate(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_load_options opts;
  memset(&opts, 0, sizeof opts);
  opts.size = sizeof opts;
  opts.allocator = &ca.hooks;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_model *m = NULL;
  ddbst_error err;
  assert_int_equal(ddbst_model_load_file(path, &opts, &m, &err), 0);
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(&ca.hooks);
  assert_int_equal(ddbst_cursor_keys_add(keys, KEY_A, &err), 0);
  ddbst_buf *c = ddbst_buf_new(&ca.hooks), *body = ddbst_buf_new(&ca.hooks);
  const lek *l = &BY_STATUS;
  int p = ddbst_model_pattern(m, l->pattern);
  ddbst_item *it = ddbst_item_new(m, ddbst_model_pattern_entity(m, p, 0));
  set(it, l->facet, l->value);
  size_t lens[4];
  for (int i = 0; i < l->n; i++) lens[i] = strlen(l->vals[i]);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor_keys = keys;
  q.now_unix_us = NOW_US;
  long calls = 0;
  for (int round = 0; round < 3; round++) {
    if (round == 2) calls = ca.calls;
    ddbst_buf_reset(c);
    ddbst_buf_reset(body);
    assert_int_equal(ddbst__cursor_seal(keys, it, p, l->names, l->vals, lens,
                                        l->n, NOW_US, c, &err),
                     0);
    q.cursor = ddbst_buf_data(c);
    q.cursor_len = ddbst_buf_len(c);
    assert_int_equal(ddbst_query_request(it, p, &q, body, &err),
                     DDBST_OP_QUERY);
    /* and a refusal does not allocate either */
    q.cursor_len--;
    assert_int_equal(ddbst_query_request(it, p, &q, body, &err), DDBST_ECURSOR);
  }
  assert_int_equal(ca.calls, calls);
  ddbst_item_free(it);
  ddbst_buf_free(c);
  ddbst_buf_free(body);
  ddbst_cursor_keys_free(keys);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void keyring_allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_cursor_keys *keys = NULL;
  for (long n = 1; !keys; n++) {
    assert_true(n < 10);
    ca.calls = 0;
    ca.fail_at = n;
    keys = ddbst_cursor_keys_new(&ca.hooks);
    if (!keys) assert_int_equal(ca.live, 0);
  }
  /* one allocation, at creation; adding keys never allocates */
  assert_int_equal(ca.calls, 1);
  ca.fail_at = ca.calls + 1;
  ddbst_error err;
  assert_int_equal(ddbst_cursor_keys_add(keys, KEY_A, &err), 0);
  assert_int_equal(
      ddbst_cursor_keys_add_hex(
          keys,
          "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacb"
          "cccdcecf",
          &err),
      0);
  assert_int_equal(ca.calls, 1);
  ddbst_cursor_keys_free(keys);
  assert_int_equal(ca.live, 0);
  ddbst_cursor_keys_free(NULL);
}

/* ---- the keyring's own checks ---- */

static void keyring_checks(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_cursor_keys *k = ddbst_cursor_keys_new(NULL);
  assert_int_equal(ddbst_cursor_keys_add(NULL, KEY_A, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_cursor_keys_add(k, NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_cursor_keys_add_hex(k, NULL, &err), DDBST_EINVAL);
  static const uint8_t zero[32];
  assert_int_equal(ddbst_cursor_keys_add(k, zero, &err), DDBST_EVALUE);
  assert_string_equal(
      err.message, "cursor key 1 is all zero bytes: a placeholder, not a key");
  assert_int_equal(ddbst_cursor_keys_add(k, KEY_A, &err), 0);
  assert_int_equal(ddbst_cursor_keys_add(k, KEY_A, &err), DDBST_EVALUE);
  assert_string_equal(err.message, "cursor key 1 is already in the keyring");

  static const char hex_b[] =
      "B0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECF";
  static const struct {
    const char *text;
    int code;
    const char *msg;
  } rows[] = {
      {"", DDBST_EVALUE, "cursor key 1 is empty: expected 64 hex characters"},
      {"abc", DDBST_EVALUE,
       "cursor key 1 has 3 characters: expected 64 hex characters (32 bytes)"},
      {"B0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECF,",
       DDBST_EVALUE, "cursor key 2 is empty: expected 64 hex characters"},
      {"B0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCEXX",
       DDBST_EVALUE, "cursor key 1 is not hexadecimal"},
      {"B0B1B2B3B4B5B6B7B8B9BABB BCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCEC",
       DDBST_EVALUE, "cursor key 1 is not hexadecimal"},
      {"0101010101010101010101010101010101010101010101010101010101010101,"
       "0101010101010101010101010101010101010101010101010101010101010101",
       DDBST_EVALUE, "cursor key 2 is already in the keyring"},
      {"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
       DDBST_EVALUE, "cursor key 1 is already in the keyring"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int rc = ddbst_cursor_keys_add_hex(k, rows[i].text, &err);
    if (rc != rows[i].code || strcmp(err.message, rows[i].msg) ||
        strcmp(err.path, "cursor_keys"))
      fail_msg("row %zu: %d %s: %s", i, rc, err.path, err.message);
  }
  /* all or none: nothing of the refused texts was added, so B is new */
  char spaced[160];
  snprintf(spaced, sizeof spaced, "  %s \n", hex_b);
  assert_int_equal(ddbst_cursor_keys_add_hex(k, spaced, &err), 0);
  ddbst_cursor_keys_free(k);

  /* 16 keys at most */
  k = ddbst_cursor_keys_new(NULL);
  char many[17 * 65 + 1] = "";
  for (int i = 0; i < 17; i++) {
    char one[66];
    snprintf(one, sizeof one, "%s%02x%062x", i ? "," : "", i + 1, 0);
    strcat(many, one);
  }
  assert_int_equal(ddbst_cursor_keys_add_hex(k, many, &err), DDBST_ERANGE);
  assert_string_equal(err.message,
                      "more than 16 keys: a keyring holds at most 16");
  many[16 * 65 - 1] = 0; /* the first 16 */
  assert_int_equal(ddbst_cursor_keys_add_hex(k, many, &err), 0);
  assert_int_equal(ddbst_cursor_keys_add(k, KEY_A, &err), DDBST_ERANGE);
  assert_string_equal(err.message, "a keyring holds at most 16 keys; it has "
                                   "16 and 1 more were given");
  /* the newest (first) seals, the oldest still opens */
  round_trip(saas, k, &LIST_PROJECTS);
  ddbst_cursor_keys_free(k);
  ddbst_cursor_keys_set_max_age(NULL, 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sealed_round_trips),
      cmocka_unit_test(unsealed_round_trips),
      cmocka_unit_test(envelope_as_documented),
      cmocka_unit_test(sizes),
      cmocka_unit_test(collections_and_typed_facets),
      cmocka_unit_test(foreign_last_key),
      cmocka_unit_test(other_pattern_index_order_partition),
      cmocka_unit_test(other_key_and_rotation),
      cmocka_unit_test(subkeys_of_many_sealers),
      cmocka_unit_test(kept_subkeys_check_everything),
      cmocka_unit_test(kept_subkeys_shared_between_threads),
      cmocka_unit_test(every_byte_altered),
      cmocka_unit_test(every_truncation),
      cmocka_unit_test(oversized_and_not_base64url),
      cmocka_unit_test(base64url_at_every_length),
      cmocka_unit_test(keys_written_as_json),
      cmocka_unit_test(two_byte_delimiter_keys_split_back),
      cmocka_unit_test(maximum_age),
      cmocka_unit_test(sealed_and_unsealed_modes),
      cmocka_unit_test(contents_that_do_not_fit),
      cmocka_unit_test(seal_refusals),
      cmocka_unit_test(reveals_nothing),
      cmocka_unit_test(warm_calls_do_not_allocate),
      cmocka_unit_test(keyring_allocation_failures),
      cmocka_unit_test(keyring_checks),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
