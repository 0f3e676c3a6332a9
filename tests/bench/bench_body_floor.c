/* The body floor rows' startup check (bench_body_floor.h). */
#include "bench_body_floor.h"

#include <stdio.h>
#include <stdlib.h>

void bench_floor_check(bench_ctx *c, bench_template *t, const char *name,
                       bench_fn floor, const char *body, const char *row_name,
                       bench_fn row) {
  for (int k = 0; k < t->nfixed; k++)
    t->len[k] = strlen(t->fixed + (size_t)k * t->slot);
  ddbst_buf_reset(c->out);
  if (row(c) < 0) bench_fail(row_name, -1, NULL);
  size_t len = ddbst_buf_len(c->out);
  char *want = malloc(len + 1);
  if (!want) bench_fail(name, DDBST_ENOMEM, NULL);
  memcpy(want, ddbst_buf_data(c->out), len);
  want[len] = '\0';
  int got = floor(c);
  if (got < 0 || (size_t)got != len || memcmp(want, body, len) != 0) {
    fprintf(stderr, "%s: not %s's body:\n%s\n%s\n", name, row_name, want,
            got < 0 ? "(refused)" : body);
    exit(1);
  }
  free(want);
}
