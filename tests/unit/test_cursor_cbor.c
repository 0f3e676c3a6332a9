/* The cursor payload's reader (src/cursor/envelope.c ddbst__cursor_decode)
 * against libcbor's streaming decoder, which it replaced: the reference
 * below is that decoder's use as it was, and both must give the same answer
 * (the same items, or the same refusal word for word) on hand-made payloads
 * of every CBOR major type and head width, and on 300,000 random ones
 * biased towards CBOR heads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>

#include "cursor/envelope.h"
#include "support.h"

/* ---- the reference: libcbor's streaming decoder, as ddbst used it ---- */

typedef struct ref {
  citem it[MAX_ITEMS];
  int n;
  size_t expect;
  int started, bad;
} ref;

static void r_add(ref *d, int kind, uint64_t u, const uint8_t *p, size_t n) {
  if (!d->started || d->n == MAX_ITEMS) {
    d->bad = 1;
    return;
  }
  d->it[d->n++] = (citem){kind, u, p, n};
}
static void r_u8(void *c, uint8_t v) { r_add(c, K_UINT, v, NULL, 0); }
static void r_u16(void *c, uint16_t v) { r_add(c, K_UINT, v, NULL, 0); }
static void r_u32(void *c, uint32_t v) { r_add(c, K_UINT, v, NULL, 0); }
static void r_u64(void *c, uint64_t v) { r_add(c, K_UINT, v, NULL, 0); }
static void r_n8(void *c, uint8_t v) { r_add(c, K_NEGINT, v, NULL, 0); }
static void r_n16(void *c, uint16_t v) { r_add(c, K_NEGINT, v, NULL, 0); }
static void r_n32(void *c, uint32_t v) { r_add(c, K_NEGINT, v, NULL, 0); }
static void r_n64(void *c, uint64_t v) { r_add(c, K_NEGINT, v, NULL, 0); }
static void r_text(void *c, cbor_data p, size_t n) { r_add(c, K_TEXT, 0, p, n); }
static void r_bytes(void *c, cbor_data p, size_t n) {
  r_add(c, K_BYTES, 0, p, n);
}
static void r_array(void *c, size_t n) {
  ref *d = c;
  if (d->started) d->bad = 1;
  d->started = 1;
  d->expect = n;
}
static void r_bad(void *c) { ((ref *)c)->bad = 1; }
static void r_bad_size(void *c, size_t n) { (void)n; r_bad(c); }
static void r_bad_u64(void *c, uint64_t v) { (void)v; r_bad(c); }
static void r_bad_float(void *c, float v) { (void)v; r_bad(c); }
static void r_bad_double(void *c, double v) { (void)v; r_bad(c); }
static void r_bad_bool(void *c, bool v) { (void)v; r_bad(c); }

static const struct cbor_callbacks reference_callbacks = {
    .uint8 = r_u8, .uint16 = r_u16, .uint32 = r_u32, .uint64 = r_u64,
    .negint64 = r_n64, .negint32 = r_n32, .negint16 = r_n16, .negint8 = r_n8,
    .byte_string_start = r_bad, .byte_string = r_bytes, .string = r_text,
    .string_start = r_bad, .indef_array_start = r_bad, .array_start = r_array,
    .indef_map_start = r_bad, .map_start = r_bad_size, .tag = r_bad_u64,
    .float2 = r_bad_float, .float4 = r_bad_float, .float8 = r_bad_double,
    .undefined = r_bad, .null = r_bad, .boolean = r_bad_bool,
    .indef_break = r_bad,
};

/* The old ddbst__cursor_decode's answer: "" (the items in d) or its
 * message. */
static void reference(const uint8_t *p, size_t n, ref *d, char *msg,
                      size_t cap) {
  memset(d, 0, sizeof *d);
  msg[0] = '\0';
  size_t off = 0;
  do {
    struct cbor_decoder_result r =
        cbor_stream_decode(p + off, n - off, &reference_callbacks, d);
    if (r.status != CBOR_DECODER_FINISHED) {
      snprintf(msg, cap, "the cursor's contents are malformed: %s",
               r.status == CBOR_DECODER_NEDATA ? "they end early" : "not CBOR");
      return;
    }
    if (d->bad) {
      snprintf(msg, cap, "the cursor's contents are malformed: an item that "
                         "is no cursor value");
      return;
    }
    off += r.read;
    if (d->expect > MAX_ITEMS) {
      snprintf(msg, cap, "the cursor's contents are malformed: %zu values",
               d->expect);
      return;
    }
  } while ((size_t)d->n < d->expect);
  if (off != n)
    snprintf(msg, cap,
             "the cursor's contents are malformed: %zu bytes after its values",
             n - off);
}

static long agreed_ok, agreed_refused;

static void same_answer(const uint8_t *p, size_t n) {
  static ref r;
  static dec d;
  char want[256];
  reference(p, n, &r, want, sizeof want);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst__cursor_decode(p, n, &d, &err);
  if (strcmp(rc ? err.message : "", want) != 0) {
    char hex[3 * 64 + 1] = "";
    for (size_t i = 0; i < n && i < 64; i++)
      snprintf(hex + 3 * i, 4, "%02x ", p[i]);
    fail_msg("payload %s: reader says \"%s\", libcbor \"%s\"", hex,
             rc ? err.message : "", want);
  }
  if (rc) {
    assert_int_equal(rc, DDBST_ECURSOR);
    agreed_refused++;
    return;
  }
  assert_int_equal(d.n, r.n);
  for (int i = 0; i < d.n; i++) {
    assert_int_equal(d.it[i].kind, r.it[i].kind);
    assert_true(d.it[i].u == r.it[i].u);
    assert_int_equal(d.it[i].n, r.it[i].n);
    if (d.it[i].n) assert_ptr_equal(d.it[i].p, r.it[i].p);
  }
  agreed_ok++;
}

/* Every one-byte head, alone and as the array's first item, with its
 * argument bytes cut at every length. */
static void every_head(void **state) {
  (void)state;
  uint8_t b[32];
  for (int h = 0; h < 256; h++) {
    for (size_t len = 1; len <= 10; len++) {
      memset(b, 0x01, sizeof b);
      b[0] = (uint8_t)h;
      same_answer(b, len);
      b[0] = 0x81;
      b[1] = (uint8_t)h;
      same_answer(b, len + 1);
      b[0] = 0x82;
      b[1] = 0x00;
      b[2] = (uint8_t)h;
      same_answer(b, len + 2);
    }
  }
  /* an empty payload, an empty array, the most values and one more */
  same_answer(b, 0);
  b[0] = 0x80;
  same_answer(b, 1);
  uint8_t many[2 + MAX_ITEMS + 2];
  for (int extra = 0; extra <= 1; extra++) {
    size_t count = MAX_ITEMS + (size_t)extra;
    many[0] = 0x98;
    many[1] = (uint8_t)count;
    memset(many + 2, 0x05, count);
    same_answer(many, 2 + count);
  }
  assert_true(agreed_ok > 0 && agreed_refused > 0);
}

/* Random payloads: heads of every type and width, lengths near what is
 * left, arrays in arrays. */
static void random_payloads(void **state) {
  (void)state;
  static const uint8_t heads[] = {0x80, 0x81, 0x82, 0x83, 0x98, 0x9f, 0x00,
                                  0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f,
                                  0x20, 0x38, 0x3b, 0x40, 0x41, 0x58, 0x5f,
                                  0x60, 0x61, 0x62, 0x78, 0x79, 0x7a, 0x7b,
                                  0x7f, 0xa0, 0xa1, 0xc1, 0xd8, 0xf4, 0xf6,
                                  0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xff};
  uint8_t b[48];
  srand(22);
  long before = agreed_ok;
  for (int round = 0; round < 300000; round++) {
    size_t n = (size_t)(rand() % (int)sizeof b);
    for (size_t i = 0; i < n; i++)
      b[i] = rand() % 3 ? heads[rand() % (int)sizeof heads]
                        : (uint8_t)(rand() % 8);
    if (n && rand() % 2) b[0] = (uint8_t)(0x80 + rand() % 6);
    same_answer(b, n);
  }
  assert_true(agreed_ok > before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_head),
      cmocka_unit_test(random_payloads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
