/* The cursor's envelope: the context it is bound to, the unsealed
 * checksum, and the payload read back (no allocation: views of the
 * plaintext). */
#include "cursor/envelope.h"

#include <stdio.h>

#include "model/cursor_layout.h"

/* Text of at most 65535 bytes, with the head libcbor's encoder writes
 * (the shortest), written here: a third of the cost of the context. */
static size_t put_context_text(uint8_t *at, const char *s, size_t n) {
  size_t head = ddbst__cbor_text_head(at, n);
  ddbst__copy((char *)at + head, s, n);
  return head + n;
}

/* The CBOR array [pattern name, index name or null, descending, partition
 * value] into ctx (CONTEXT_MAX bytes); returns its length. It goes into the
 * associated data as it is: CBOR's length prefixes already keep its parts
 * apart, and hashing it first (BLAKE2b) bought nothing for a tenth of the
 * time of a seal and an open. Its first three members were written at
 * load (the plan's ctx_head): only the partition is written per call. */
size_t ddbst__cursor_context(const ddbst_model *m, const ddbst__pattern *p,
                             const char *part, size_t part_len, uint8_t *ctx) {
  size_t n = 0;
  if (p->cursor) {
    n = p->cursor->ctx_head_len;
    ddbst__copy((char *)ctx, (const char *)p->cursor->ctx_head, n);
    n += ddbst__cbor_text_head(ctx + n, part_len);
    ddbst__copy((char *)ctx + n, part, part_len);
    return n + part_len;
  }
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

/* The payload's reader: the one shape a cursor's payload has, a definite
 * array of unsigned and negative integers, text and byte strings, read in
 * place (views of the plaintext). libcbor's streaming decoder did this
 * through a callback per item, a tenth of what opening cost beyond the
 * decryption; this reader takes exactly what that decoder took for this
 * shape and refuses the rest with the same messages (test_cursor_cbor.c
 * compares the two on every input of its corpus and on random ones). The
 * payload of a sealed cursor is authenticated before it is read; an
 * unsealed cursor's is not, so every length is checked against what is
 * left before anything is read. */

/* An item at p[*at..n): its major type and argument, and past it (a
 * string's bytes too: a string is whole before it is looked at, as
 * libcbor's decoder has it). 0; 1 when the bytes end early; 2 when it is
 * no CBOR (additional information 28-30, or an indefinite length where
 * CBOR has none); 3 for an indefinite string, array or map, or a break. */
static int read_item(const uint8_t *p, size_t n, size_t *pat, int *pmajor,
                     uint64_t *parg) {
  size_t at = *pat;
  if (at >= n) return 1;
  unsigned b = p[at++];
  int major = (int)(b >> 5);
  unsigned ai = b & 31u;
  /* what libcbor's decoder called no CBOR: tags 6-20 and the simple
   * values other than false, true, null and undefined */
  if (b >= 0xc0 && ((major == 6 && ai >= 6 && ai <= 20) ||
                    (major == 7 && (ai < 20 || ai == 24))))
    return 2;
  uint64_t arg = ai;
  if (ai >= 24) {
    if (ai >= 28) return ai == 31 && major != 0 && major != 1 && major != 6 ? 3 : 2;
    size_t len = (size_t)1 << (ai - 24); /* 1, 2, 4, 8 bytes */
    if (n - at < len) return 1;
    const uint8_t *q = p + at;
    if (len == 1) {
      arg = q[0];
    } else if (len == 2) {
      arg = (uint64_t)q[0] << 8 | q[1];
    } else if (len == 4) {
      arg = (uint64_t)q[0] << 24 | (uint64_t)q[1] << 16 | (uint64_t)q[2] << 8 |
            q[3];
    } else { /* written out: the compiler makes it one load and a swap */
      arg = (uint64_t)q[0] << 56 | (uint64_t)q[1] << 48 | (uint64_t)q[2] << 40 |
            (uint64_t)q[3] << 32 | (uint64_t)q[4] << 24 | (uint64_t)q[5] << 16 |
            (uint64_t)q[6] << 8 | q[7];
    }
    at += len;
  }
  if (major == 2 || major == 3) {
    if (arg > n - at) return 1;
    at += (size_t)arg;
  }
  *pat = at;
  *pmajor = major;
  *parg = arg;
  return 0;
}

static int malformed(ddbst_error *err, int why) {
  return ddbst__cursor_refuse(
      err, "the cursor's contents are malformed: %s",
      why == 1   ? "they end early"
      : why == 2 ? "not CBOR"
                 : "an item that is no cursor value");
}

int ddbst__cursor_decode(const uint8_t *p, size_t n, dec *d, ddbst_error *err) {
  /* not the items: only the first d->n are ever read */
  d->n = 0;
  size_t at = 0;
  int major;
  uint64_t count;
  int rc = read_item(p, n, &at, &major, &count);
  if (rc) return malformed(err, rc);
  /* the first item is the array; a simple value or a float is no CBOR
   * head only where its additional information is reserved */
  if (major != 4) return malformed(err, 4);
  if (count > MAX_ITEMS)
    return ddbst__cursor_refuse(
        err, "the cursor's contents are malformed: %llu values",
        (unsigned long long)count);
  for (int i = 0; i < (int)count; i++) {
    uint64_t arg;
    rc = read_item(p, n, &at, &major, &arg);
    if (rc) return malformed(err, rc);
    citem *c = &d->it[d->n++];
    c->u = arg;
    c->p = NULL;
    c->n = 0;
    switch (major) {
    case 0: c->kind = K_UINT; break;
    case 1: c->kind = K_NEGINT; break;
    case 2:
    case 3: /* read_item went past its bytes */
      c->kind = major == 2 ? K_BYTES : K_TEXT;
      c->u = 0;
      c->n = (size_t)arg;
      c->p = p + at - c->n;
      break;
    default: /* a map, an array in the array, a tag, a simple value */
      return malformed(err, 4);
    }
  }
  if (at != n)
    return ddbst__cursor_refuse(
        err,
        "the cursor's contents are malformed: %zu bytes "
        "after its values",
        n - at);
  return 0;
}
