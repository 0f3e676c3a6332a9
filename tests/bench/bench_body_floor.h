/* What the floor rows share (bench_put_floor.c, bench_create_floor.c): a
 * body written from a template made by hand for it (fixed texts, each in
 * its own padded slot, and value slots between them, each one copy), and
 * the startup check that the template writes its row's body byte for
 * byte. Not ddbst's code: the lower bound a writer of a body could reach. */
#ifndef BENCH_BODY_FLOOR_H
#define BENCH_BODY_FLOOR_H

#include <stddef.h>
#include <string.h>

#include "bench.h"

/* A template: nfixed texts (text k at fixed + k * slot, a NUL-ended
 * string), and before text k + 1 the value slot_value[k]. */
typedef struct bench_template {
  const char *fixed;
  size_t slot;
  int nfixed;
  const int *slot_value;
  size_t len[32]; /* the texts' lengths, set by bench_floor_check */
} bench_template;

/* A copy of n bytes, a fixed 32 when n is at most that: the source and
 * the destination have 32 bytes to spare. */
static inline char *bench_copy32(char *o, const char *s, size_t n) {
  if (n <= 32)
    memcpy(o, s, 32);
  else
    memcpy(o, s, n);
  return o + n;
}

/* The template's body at o, with values v (n their lengths); the end, a
 * NUL written there. Its texts, slot and slots as constants (not read from
 * `t`), so that the row's loop is what a hand-written one would be. */
static inline char *bench_floor_write(const char *fixed, size_t slot,
                                      int nfixed, const int *slot_value,
                                      const size_t *len, char *o,
                                      const char *const *v, const size_t *n) {
  for (int k = 0; k < nfixed - 1; k++) {
    o = bench_copy32(o, fixed + (size_t)k * slot, len[k]);
    o = bench_copy32(o, v[slot_value[k]], n[slot_value[k]]);
  }
  o = bench_copy32(o, fixed + (size_t)(nfixed - 1) * slot, len[nfixed - 1]);
  *o = '\0';
  return o;
}

/* Sets the template's lengths, then checks that `floor` (writing into
 * `body`) writes `row`'s body (`row_name`'s, into ctx->out) byte for byte;
 * exits with both bodies shown when not. */
void bench_floor_check(bench_ctx *c, bench_template *t, const char *name,
                       bench_fn floor, const char *body, const char *row_name,
                       bench_fn row);

#endif
