/* What a model's load touches (issue 22, item 5): on this VM a page fault
 * costs about as much as a load's own work per page, so a 200-entity load
 * is as fast as the memory it touches lets it be. Figures that do not move
 * with the machine's load, for one generated model:
 *
 *   ddbst_bench --load-memory 200
 *
 * prints, for the first load in this (fresh) process with the default
 * allocator, its minor page faults and its time; then, through counting
 * hooks, the bytes the load had allocated at its peak, the bytes the loaded
 * model holds, and the allocations it made; then what touching as many
 * fresh pages as the peak spans costs in this process (an anonymous
 * mapping of the peak's size, each page written once), so that the first
 * load reads as its work plus its faults times the cost of one. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include "bench.h"
#include "gen_model.h"

/* Live bytes through the hooks: each block carries its size before it. */
typedef struct sized {
  size_t n;
  max_align_t data[];
} sized;

static size_t live, peak, allocs;

static sized *head_of(void *p) {
  return (sized *)(void *)((char *)p - offsetof(sized, data));
}

static void *peak_malloc(void *user, size_t n) {
  (void)user;
  sized *s = malloc(sizeof *s + n);
  if (!s) return NULL;
  s->n = n;
  live += n;
  allocs++;
  if (live > peak) peak = live;
  return s->data;
}

static void peak_free(void *user, void *p) {
  (void)user;
  if (!p) return;
  sized *s = head_of(p);
  live -= s->n;
  free(s);
}

static void *peak_realloc(void *user, void *p, size_t n) {
  if (!p) return peak_malloc(user, n);
  sized *s = head_of(p);
  size_t old = s->n;
  sized *t = realloc(s, sizeof *t + n);
  if (!t) return NULL;
  t->n = n;
  live = live - old + n;
  allocs++;
  if (live > peak) peak = live;
  return t->data;
}

static long minor_faults(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Touches the pages of a fresh anonymous mapping of `bytes`, one write
 * each: the faults that took and their time, or -1 when it cannot map. */
static int touch_fresh_pages(size_t bytes, long *faults, double *ms) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t len = (bytes + page - 1) / page * page;
  volatile char *p =
      mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == (volatile char *)MAP_FAILED) return -1;
  long f0 = minor_faults();
  double t0 = now_ms();
  for (size_t at = 0; at < len; at += page) p[at] = 1;
  *ms = now_ms() - t0;
  *faults = minor_faults() - f0;
  munmap((void *)p, len);
  return 0;
}

int bench_load_memory(const bench_gen_shape *shape) {
  size_t len;
  char *json = bench_gen_model(shape, &len, NULL);
  if (!json) return 1;
  ddbst_model *m = NULL;
  long f0 = minor_faults();
  double t0 = now_ms();
  int rc = ddbst_model_load(json, len, NULL, &m, NULL);
  double t1 = now_ms();
  long f1 = minor_faults();
  ddbst_model_free(m);

  static const ddbst_allocator counting = {peak_malloc, peak_realloc,
                                           peak_free, NULL};
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &counting;
  m = NULL;
  if (!rc) rc = ddbst_model_load(json, len, &o, &m, NULL);
  size_t held = live;
  ddbst_model_free(m);
  free(json);
  if (rc) {
    fprintf(stderr, "ddbst_bench: the generated model does not load (%d)\n", rc);
    return 1;
  }
  printf("load of %d entities (%zu bytes of JSON): first load in the process "
         "%ld page faults, %.2f ms; peak %zu bytes allocated, model %zu bytes, "
         "%zu allocations\n",
         shape->entities, len, f1 - f0, t1 - t0, peak, held, allocs);
  /* the median of five mappings: one is at the mercy of a busy machine */
  enum { ROUNDS = 5 };
  long tf = 0;
  double each[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    if (touch_fresh_pages(peak, &tf, &each[r]) || tf <= 0) {
      fprintf(stderr, "ddbst_bench: cannot time fresh pages\n");
      return 1;
    }
    for (int i = r; i > 0 && each[i] < each[i - 1]; i--) {
      double t = each[i];
      each[i] = each[i - 1];
      each[i - 1] = t;
    }
  }
  double tms = each[ROUNDS / 2];
  double per = tms * 1e3 / (double)tf;
  double paid = per * (double)(f1 - f0) / 1e3;
  printf("fresh pages here: %ld faults touching %zu bytes, %.2f ms (median of "
         "5), %.2f us a fault; so the first load = %.2f ms of faults (%ld x "
         "%.2f us) + %.2f ms of work\n",
         tf, peak, tms, per, paid, f1 - f0, per, (t1 - t0) - paid);
  return live != 0;
}
