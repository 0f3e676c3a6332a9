/* The floor under building a request body: copying its bytes. For a body
 * operation, memcpy_<op> times one memcpy of the very body <op> built (its
 * length), so that compare can say how many copies of its own bytes a body
 * costs (issue 22, item 3: within 15). Not ddbst's code: libc's memcpy
 * alone.
 *
 * Where the two blocks lie decides what a copy costs: on this machine a
 * copy of 714 bytes took 5.1 ns between blocks whose offsets agree modulo
 * 64 and 5.8-6.1 ns when they do not. Two malloc'ed blocks (as this row
 * used) fell wherever the bench's earlier allocations left them, so the
 * floor moved by 20-50% from one build to the next with nothing of the
 * body's changing (docs/performance.md, "The memcpy floor, placed"). So
 * the blocks are placed here, never allocated: the source at the start of
 * a page, the destination just past it (the source's length rounded up to
 * 64) and, call by call, at each of the four 16-byte alignments malloc can
 * give a block. The row is the mean copy between two blocks as malloc
 * places them, and the same on every run. DDBST_BENCH_MEMCPY_AT=0, 16, 32
 * or 48 holds the destination at that one alignment instead, to show what
 * each costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { SPAN = 16384 }; /* room for the longest body and its copy */

static _Alignas(4096) char blocks[2 * SPAN];
static struct {
  size_t len, gap; /* the destination's distance, before its alignment */
  unsigned turn, step; /* step 1: each alignment in turn; 0: one */
} M;

static int op_memcpy(bench_ctx *c) {
  (void)c;
  char *dst = blocks + M.gap + 16 * ((M.turn += M.step) & 3);
  memcpy(dst, blocks, M.len);
  /* the copy is the work: keep the compiler from dropping or merging it */
  __asm__ volatile("" : : "r"(dst) : "memory");
  return 0;
}

void bench_memcpy(bench_ctx *c, const char *op, bench_fn build, int iters) {
  char name[64], what[96];
  snprintf(name, sizeof name, "memcpy_%s", op);
  if (bench_skips(name)) return;
  ddbst_buf_reset(c->out);
  int rc = build(c);
  if (rc < 0) bench_fail(op, rc, NULL);
  M.len = ddbst_buf_len(c->out);
  if (M.len > SPAN - 64) bench_fail(name, DDBST_ENOMEM, NULL);
  M.gap = (M.len + 63) & ~(size_t)63;
  M.turn = 0;
  M.step = 1;
  const char *at = getenv("DDBST_BENCH_MEMCPY_AT");
  if (at && !*at) at = NULL;
  if (at) {
    static const char *const aligns[] = {"0", "16", "32", "48"};
    int k = 0;
    while (k < 4 && strcmp(at, aligns[k]) != 0) k++;
    if (k == 4) {
      fprintf(stderr, "ddbst_bench: DDBST_BENCH_MEMCPY_AT: 0, 16, 32 or 48\n");
      exit(2);
    }
    M.turn = (unsigned)k;
    M.step = 0;
  }
  memcpy(blocks, ddbst_buf_data(c->out), M.len);
  snprintf(what, sizeof what, "memcpy of %s's body: %zu bytes%s%s", op,
           M.len, at ? ", destination at +" : "", at ? at : "");
  bench_run(c, name, what, op_memcpy, iters, 0);
}
