/* The cursor's envelope: the context it is bound to, the unsealed
 * checksum, and the payload decoded by libcbor's streaming decoder (no
 * allocation: views of the plaintext). */
#include "cursor/envelope.h"

#include <stdio.h>

#include <cbor.h>

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
size_t ddbst__cursor_context(const ddbst_model *m, const ddbst__pattern *p,
                             const char *part, size_t part_len, uint8_t *ctx) {
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
  return n + put_context_text(ctx + n, part, part_len);
}

void ddbst__cursor_check(const uint8_t *ctx, size_t ctx_len, const uint8_t *env,
                         size_t len, uint8_t out[CHECK_BYTES]) {
  crypto_generichash_state st;
  uint8_t h[crypto_generichash_BYTES_MIN];
  crypto_generichash_init(&st, NULL, 0, sizeof h);
  crypto_generichash_update(&st, ctx, ctx_len);
  crypto_generichash_update(&st, env, len);
  crypto_generichash_final(&st, h, sizeof h);
  memcpy(out, h, CHECK_BYTES);
}

int ddbst__cursor_refuse(ddbst_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = ddbst__vfail(err, DDBST_ECURSOR, "cursor", fmt, ap);
  va_end(ap);
  return rc;
}

int ddbst__cursor_lek_fail(ddbst_error *err, const char *attr, const char *fmt,
                           ...) {
  char path[DDBST_ERROR_PATH_MAX];
  snprintf(path, sizeof path, "LastEvaluatedKey%s%s", attr ? "." : "",
           attr ? attr : "");
  va_list ap;
  va_start(ap, fmt);
  int rc = ddbst__vfail(err, DDBST_EVALUE, path, fmt, ap);
  va_end(ap);
  return rc;
}

int ddbst__cursor_number_text(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789+-.eE", p[i])) return 0;
  return n > 0;
}

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
  if (d->started)
    d->bad = 1;
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

int ddbst__cursor_decode(const uint8_t *p, size_t n, dec *d, ddbst_error *err) {
  /* not the items: only the first d->n are ever read */
  d->n = 0;
  d->expect = 0;
  d->started = d->bad = 0;
  size_t off = 0;
  do {
    struct cbor_decoder_result r =
        cbor_stream_decode(p + off, n - off, &decoder, d);
    if (r.status != CBOR_DECODER_FINISHED)
      return ddbst__cursor_refuse(
          err, "the cursor's contents are malformed: %s",
          r.status == CBOR_DECODER_NEDATA ? "they end early" : "not CBOR");
    if (d->bad)
      return ddbst__cursor_refuse(
          err, "the cursor's contents are malformed: an item "
               "that is no cursor value");
    off += r.read;
    if (d->expect > MAX_ITEMS)
      return ddbst__cursor_refuse(
          err, "the cursor's contents are malformed: %zu values", d->expect);
  } while ((size_t)d->n < d->expect);
  if (off != n)
    return ddbst__cursor_refuse(
        err,
        "the cursor's contents are malformed: %zu bytes "
        "after its values",
        n - off);
  return 0;
}
