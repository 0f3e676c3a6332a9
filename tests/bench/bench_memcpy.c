/* The floor under building a request body: copying its bytes. For a body
 * operation, memcpy_<op> times one memcpy of the very body <op> built (its
 * length, from one buffer to another), so that compare can say how many
 * copies of its own bytes a body costs (issue 22, item 3: within 15). Not
 * ddbst's code: libc's memcpy alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static struct {
  char *src, *dst;
  size_t len;
} M;

static int op_memcpy(bench_ctx *c) {
  (void)c;
  memcpy(M.dst, M.src, M.len);
  /* the copy is the work: keep the compiler from dropping or merging it */
  __asm__ volatile("" : : "r"(M.dst) : "memory");
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
  M.src = malloc(M.len + 1);
  M.dst = malloc(M.len + 1);
  if (!M.src || !M.dst) bench_fail(name, DDBST_ENOMEM, NULL);
  memcpy(M.src, ddbst_buf_data(c->out), M.len);
  snprintf(what, sizeof what, "memcpy of %s's body: %zu bytes", op, M.len);
  bench_run(c, name, what, op_memcpy, iters, 0);
  free(M.src);
  free(M.dst);
}
