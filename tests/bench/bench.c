/* ddbst_bench: what one service request costs in ddbst — keys, request
 * bodies, cursors, response parsing, model load — as the median ns/op of
 * many fixed-size timed batches after warm-up, with the heap allocations per
 * operation counted through the allocator hooks (and, as a cross-check,
 * every malloc of the process). Public API only. tests/bench/compare runs it
 * beside the same operations in ElectroDB and @aws-sdk/util-dynamodb.
 *
 *   ddbst_bench [--tsv] [--quick] [--only NAME] [--model PATH]
 *               [--write-page PATH] [--write-model ENTITIES PATH] [--show]
 *               [--load-memory ENTITIES]
 *
 * --tsv prints, per operation: name, median ns/op, MB/s (or -), allocations
 * per call through the hooks, mallocs per call in the process, the fastest
 * and the slowest batch's ns/op, and what it does. --show prints the body
 * one call builds; --write-page writes the generated 1 MiB Query page;
 * --write-model the generated model of that many entities (bench_scale.c);
 * --load-memory what loading it touches (bench_load_memory.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

/* ---- counting allocator -------------------------------------------------- */

bench_counts bench_hooks;

static void *count_malloc(void *user, size_t n) {
  (void)user;
  void *p = malloc(n);
  if (p) {
    bench_hooks.hook_allocs++;
    bench_hooks.hook_live++;
  }
  return p;
}

static void *count_realloc(void *user, void *p, size_t n) {
  (void)user;
  void *q = realloc(p, n);
  if (q) {
    bench_hooks.hook_allocs++;
    if (!p) bench_hooks.hook_live++;
  }
  return q;
}

static void count_free(void *user, void *p) {
  (void)user;
  if (!p) return;
  bench_hooks.hook_frees++;
  bench_hooks.hook_live--;
  free(p);
}

const ddbst_allocator bench_allocator = {count_malloc, count_realloc,
                                         count_free, NULL};

#ifdef DDBST_BENCH_NO_MALLOC_COUNT
/* Under a sanitizer, whose runtime owns malloc: the hooks only. */
uint64_t bench_process_allocs(void) { return 0; }
#endif

/* ---- options and output ------------------------------------------------- */

static struct {
  int tsv, quick, show;
  const char *only;
} opt;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_fail(const char *op, int rc, const ddbst_error *err) {
  fprintf(stderr, "ddbst_bench: %s failed: %s (%d)", op, ddbst_strerror(rc), rc);
  if (err && err->code)
    fprintf(stderr, ": %s%s%s", err->path, err->path[0] ? ": " : "",
            err->message);
  fputc('\n', stderr);
  exit(1);
}

void bench_set_failed(ddbst_item *item, int attribute, const char *text,
                      size_t len, int rc) {
  ddbst_error err; /* again, for the message */
  memset(&err, 0, sizeof err);
  ddbst_item_set(item, attribute, text, len, &err);
  bench_fail("ddbst_item_set", rc, &err);
}

enum { MAX_BATCHES = 101 };

int bench_skips(const char *name) {
  return opt.only && strcmp(opt.only, name) != 0;
}

/* DDBST_BENCH_SWEEP=1: the row's batches with the stack moved down by 0,
 * 16, ... 4080 bytes (alloca) before the calls, interleaved over rounds,
 * the fastest batch per offset: whether where the row's stack buffers
 * fall within a 4 KiB page decides its speed (docs/performance.md). */
#include <alloca.h>
__attribute__((noinline)) static double sweep_at(bench_ctx *ctx, bench_fn fn,
                                                 int iters, size_t off) {
  volatile char *pad = alloca(off + 16);
  pad[0] = 0;
  int64_t t0 = now_ns();
  for (int i = 0; i < iters; i++) fn(ctx);
  return (double)(now_ns() - t0) / iters + pad[0];
}

static void sweep(bench_ctx *ctx, const char *name, bench_fn fn) {
  enum { OFFSETS = 256, ROUNDS = 9 };
  static double best[OFFSETS];
  for (int k = 0; k < OFFSETS; k++) best[k] = 1e18;
  for (int i = 0; i < 20000; i++) fn(ctx);
  for (int r = 0; r < ROUNDS; r++)
    for (int k = 0; k < OFFSETS; k++) {
      double t = sweep_at(ctx, fn, 500, (size_t)k * 16);
      if (t < best[k]) best[k] = t;
    }
  for (int k = 0; k < OFFSETS; k++)
    printf("%s\t%d\t%.1f\n", name, k * 16, best[k]);
}

void bench_run(bench_ctx *ctx, const char *name, const char *what,
               bench_fn fn, int iters, size_t bytes) {
  if (bench_skips(name)) return;
  if (getenv("DDBST_BENCH_SWEEP")) {
    sweep(ctx, name, fn);
    return;
  }
  if (opt.show) {
    /* the body of one call, to compare with peers.js --show */
    ddbst_buf_reset(ctx->out);
    int rc = fn(ctx);
    if (rc < 0) bench_fail(name, rc, NULL);
    printf("%s: %s\n", name,
           ddbst_buf_len(ctx->out) ? ddbst_buf_data(ctx->out) : "(no body)");
    return;
  }
  int batches = opt.quick ? 5 : 51;
  if (opt.quick) iters = iters / 8 > 0 ? iters / 8 : 1;
  int warm = bytes ? 10 : iters * 2;
  for (int i = 0; i < warm; i++) {
    int rc = fn(ctx);
    if (rc < 0) bench_fail(name, rc, NULL);
  }
  double per_op[MAX_BATCHES];
  uint64_t hooks0 = bench_hooks.hook_allocs;
  uint64_t proc0 = bench_process_allocs();
  for (int b = 0; b < batches; b++) {
    int64_t t0 = now_ns();
    for (int i = 0; i < iters; i++) fn(ctx);
    int64_t t1 = now_ns();
    per_op[b] = (double)(t1 - t0) / iters;
  }
  double calls = (double)batches * iters;
  double hook_allocs = (double)(bench_hooks.hook_allocs - hooks0) / calls;
  double proc_allocs = (double)(bench_process_allocs() - proc0) / calls;
#ifdef DDBST_BENCH_NO_MALLOC_COUNT
  proc_allocs = hook_allocs;
#endif
  qsort(per_op, (size_t)batches, sizeof per_op[0], cmp_double);
  double median = per_op[batches / 2];
  double mbs = bytes ? (double)bytes / median * 1e3 : 0; /* 10^6 B/s */
  char mbs_text[32] = "-";
  if (bytes) snprintf(mbs_text, sizeof mbs_text, "%.1f", mbs);
  if (opt.tsv)
    printf("%s\t%.1f\t%s\t%.3g\t%.3g\t%.1f\t%.1f\t%s\n", name, median, mbs_text,
           hook_allocs, proc_allocs, per_op[0], per_op[batches - 1], what);
  else
    printf("%-22s %12.1f %10s %10.3g %10.3g   %s\n", name, median, mbs_text,
           hook_allocs, proc_allocs, what);
  fflush(stdout);
}

/* ---- the generated Query page --------------------------------------------- */

/* xorshift32: the same page on every run and every machine. */
static uint32_t rng_state = 0x9e3779b9u;
static uint32_t rng(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

static const char *const words[] = {
    "Website",  "relaunch",      "Mobile",   "app",     "Billing",
    "migration", "Q3",           "roadmap",  "Customer", "portal",
    "Data",     "warehouse",     "Überarbeitung", "café", "Onboarding",
    "flow",     "\\\"Phoenix\\\"", "Search", "index",   "rebuild",
    "Security", "audit",         "Design",   "system",  "Partner",
    "API",      "日本語",         "Analytics", "v2",     "Internal",
};

/* "2026-03-14T09:00:00Z" minus `minutes`. */
static void timestamp_before(int minutes, char out[21]) {
  time_t t = (time_t)(BENCH_NOW / 1000000) - (time_t)minutes * 60;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *bench_make_page(size_t max_bytes, int max_items, size_t *len,
                      int *items) {
  size_t cap = max_bytes + 4096;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  rng_state = 0x9e3779b9u;
  size_t n = (size_t)snprintf(buf, cap, "{\"Items\":[");
  const size_t tail_room = 200; /* Count, ScannedCount, LastEvaluatedKey */
  char last_ts[21] = "", last_id[16] = "";
  int count = 0;
  for (; count < max_items; count++) {
    char ts[21], id[16], name[160];
    timestamp_before(count * 7, ts);
    snprintf(id, sizeof id, "p-%04d", count + 1);
    size_t nl = 0;
    int nwords = 2 + (int)(rng() % 4);
    for (int w = 0; w < nwords; w++)
      nl += (size_t)snprintf(name + nl, sizeof name - nl, "%s%s", w ? " " : "",
                             words[rng() % (sizeof words / sizeof words[0])]);
    uint32_t kind = rng() % 8;
    const char *status = kind < 5 ? "active" : kind < 7 ? "archived" : NULL;
    char item[768];
    int il;
    if (status)
      il = snprintf(item, sizeof item,
                    "%s{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":{\"S\":"
                    "\"PROJECT#%s#%s\"},\"GSI2PK\":{\"S\":\"STATUS#%s\"},"
                    "\"GSI2SK\":{\"S\":\"%s\"},\"_type\":{\"S\":\"Project\"},"
                    "\"orgId\":{\"S\":\"" BENCH_ORG "\"},\"projectId\":{\"S\":"
                    "\"%s\"},\"createdAt\":{\"S\":\"%s\"},\"name\":{\"S\":"
                    "\"%s\"},\"status\":{\"S\":\"%s\"}}",
                    count ? "," : "", ts, id, status, ts, id, ts, name, status);
    else /* no status: not in the sparse GSI2 */
      il = snprintf(item, sizeof item,
                    "%s{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":{\"S\":"
                    "\"PROJECT#%s#%s\"},\"_type\":{\"S\":\"Project\"},"
                    "\"orgId\":{\"S\":\"" BENCH_ORG "\"},\"projectId\":{\"S\":"
                    "\"%s\"},\"createdAt\":{\"S\":\"%s\"},\"name\":{\"S\":"
                    "\"%s\"}}",
                    count ? "," : "", ts, id, id, ts, name);
    if (n + (size_t)il + tail_room > max_bytes) break;
    memcpy(buf + n, item, (size_t)il);
    n += (size_t)il;
    memcpy(last_ts, ts, sizeof ts);
    memcpy(last_id, id, sizeof id);
  }
  n += (size_t)snprintf(buf + n, cap - n,
                        "],\"Count\":%d,\"ScannedCount\":%d,\"LastEvaluatedKey\":"
                        "{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":{\"S\":"
                        "\"PROJECT#%s#%s\"}}}",
                        count, count, last_ts, last_id);
  *len = n;
  *items = count;
  return buf;
}

/* ---- the operations ------------------------------------------------------- */

/* Each one does what a service does per request: fill a reused item from the
 * request's values (typed and checked by the model), build, into a reused
 * buffer. */

static int op_keys_project(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  BENCH_SET(c->item, c->p_status, "active");
  ddbst_buf_reset(c->out);
  return ddbst_item_keys_json(c->item, c->out, NULL);
}

static int op_query_first_page(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 25;
  ddbst_buf_reset(c->out);
  return ddbst_query_request(c->item, c->list_projects, &q, c->out, NULL);
}

static int op_put_project(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  BENCH_SET(c->item, c->p_name, BENCH_PROJECT_NAME);
  BENCH_SET(c->item, c->p_status, "active");
  ddbst_buf_reset(c->out);
  return ddbst_put_request(c->item, 0, BENCH_NOW, c->out, NULL);
}

static int op_create_user(bench_ctx *c) {
  ddbst_item_reset(c->item, c->user);
  BENCH_SET(c->item, c->u_org, BENCH_ORG);
  BENCH_SET(c->item, c->u_id, BENCH_USER_ID);
  BENCH_SET(c->item, c->u_email, BENCH_EMAIL);
  BENCH_SET(c->item, c->u_role, BENCH_ROLE);
  BENCH_SET(c->item, c->u_name, BENCH_USER_NAME);
  ddbst_buf_reset(c->out);
  return ddbst_put_request(c->item, DDBST_CREATE, BENCH_NOW, c->out, NULL);
}

static int op_update_project_status(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  BENCH_SET(c->item, c->p_status, "archived");
  ddbst_buf_reset(c->out);
  return ddbst_update_request(c->item, 0, BENCH_NOW, c->out, NULL);
}

/* An update with a condition and two actions, their values bound per
 * request: compiled once, so the request writes them without parsing. */
static int op_update_conditional(bench_ctx *c) {
  ddbst_item_reset(c->item, c->event);
  BENCH_SET(c->item, c->e_project, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->e_ts, BENCH_CREATED);
  BENCH_SET(c->item, c->e_id, BENCH_EVENT_ID);
  ddbst_item_condition(c->item, c->event_condition, NULL);
  ddbst_item_update(c->item, c->event_actions, NULL);
  ddbst_item_bind(c->item, "max", "100", 3, NULL);
  ddbst_item_bind(c->item, "n", "1", 1, NULL);
  ddbst_item_bind(c->item, "exp", "1800000000", 10, NULL);
  ddbst_buf_reset(c->out);
  return ddbst_update_request(c->item, 0, BENCH_NOW, c->out, NULL);
}

/* query_first_page with a filter of two tests, one of a bound value. */
static int op_query_filtered(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  ddbst_item_bind(c->item, "prefix", "Web", 3, NULL);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 25;
  q.filter = c->project_filter;
  ddbst_buf_reset(c->out);
  return ddbst_query_request(c->item, c->list_projects, &q, c->out, NULL);
}

/* A parallel scan's page of Users: segment 3 of 8, entity filter,
 * projection (a migration's inner loop, less the cursor). */
static ddbst_scan *scan_users;
static int op_scan_segment(bench_ctx *c) {
  return ddbst_scan_request(scan_users, 0, 100, NULL, 0, NULL, 0, c->out,
                            NULL);
}

/* put_project's twin on a model whose indexes are keyed on the entity's
 * own attributes (examples/games): nothing synthetic to build. */
static int op_put_score(bench_ctx *c) {
  ddbst_item_reset(c->score, 1);
  BENCH_SET(c->score, c->s_player, "p-0042");
  BENCH_SET(c->score, c->s_game, "g-7");
  BENCH_SET(c->score, c->s_region, "eu");
  BENCH_SET(c->score, c->s_points, "12500");
  BENCH_SET(c->score, c->s_played, BENCH_CREATED);
  BENCH_SET(c->score, c->s_mode, "solo");
  ddbst_buf_reset(c->out);
  return ddbst_put_request(c->score, 0, BENCH_NOW, c->out, NULL);
}

/* query_first_page's twin: a game and region's leaderboard from a score
 * up, on the multi-attribute Leaderboard index. */
static int op_query_leaderboard(bench_ctx *c) {
  ddbst_item_reset(c->score, 1);
  BENCH_SET(c->score, c->s_game, "g-7");
  BENCH_SET(c->score, c->s_region, "eu");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 25;
  q.condition = DDBST_SK_GTE;
  q.attribute = c->s_points;
  q.value = "1000";
  q.value_len = 4;
  ddbst_buf_reset(c->out);
  return ddbst_query_request(c->score, c->top_scores, &q, c->out, NULL);
}

/* The five values of put_project set by index, and the same by name: what
 * the name form costs (a scan of the entity's attributes per value). */
static int op_set_by_index(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  BENCH_SET(c->item, c->p_name, BENCH_PROJECT_NAME);
  return BENCH_SET(c->item, c->p_status, "active");
}

/* update_project_status's four values and nothing built: the part of that
 * row no body writer can take off (docs/performance.md, "Fourth pass"). */
static int op_update_values(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  return BENCH_SET(c->item, c->p_status, "archived");
}

static int op_set_by_name(bench_ctx *c) {
  ddbst_item *it = c->item;
  ddbst_item_reset(it, c->project);
  int rc = ddbst_item_set_by_name(it, "orgId", BENCH_ORG,
                                  DDBST_NUL_TERMINATED, NULL);
  rc |= ddbst_item_set_by_name(it, "projectId", BENCH_PROJECT_ID,
                               DDBST_NUL_TERMINATED, NULL);
  rc |= ddbst_item_set_by_name(it, "createdAt", BENCH_CREATED,
                               DDBST_NUL_TERMINATED, NULL);
  rc |= ddbst_item_set_by_name(it, "name", BENCH_PROJECT_NAME,
                               DDBST_NUL_TERMINATED, NULL);
  rc |= ddbst_item_set_by_name(it, "status", "active", DDBST_NUL_TERMINATED,
                               NULL);
  return rc ? DDBST_EVALUE : 0;
}

/* The same five values from one JSON object (ddbst_item_set_json). */
static int op_set_json(bench_ctx *c) {
  static const char json[] =
      "{\"orgId\":\"" BENCH_ORG "\",\"projectId\":\"" BENCH_PROJECT_ID
      "\",\"createdAt\":\"" BENCH_CREATED "\",\"name\":\""
      BENCH_PROJECT_NAME "\",\"status\":\"active\"}";
  ddbst_item_reset(c->item, c->project);
  return ddbst_item_set_json(c->item, json, sizeof json - 1, NULL);
}

static int op_model_load(bench_ctx *c) {
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &bench_allocator;
  ddbst_model *m = NULL;
  int rc = ddbst_model_load(c->model_json, c->model_len, &o, &m, NULL);
  ddbst_model_free(m);
  return rc;
}

/* ---- setup ---------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (buf) *len = n;
  return buf;
}

static int attr(const bench_ctx *c, int entity, const char *name) {
  int a = ddbst_model_attribute(c->model, entity, name);
  if (a < 0) bench_fail(name, a, NULL);
  return a;
}

int main(int argc, char **argv) {
  const char *model_path = DDBST_SOURCE_DIR "/examples/saas/model.json";
  const char *write_page = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tsv")) opt.tsv = 1;
    else if (!strcmp(argv[i], "--quick")) opt.quick = 1;
    else if (!strcmp(argv[i], "--show")) opt.show = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) opt.only = argv[++i];
    else if (!strcmp(argv[i], "--model") && i + 1 < argc) model_path = argv[++i];
    else if (!strcmp(argv[i], "--write-page") && i + 1 < argc)
      write_page = argv[++i];
    else if (!strcmp(argv[i], "--write-model") && i + 2 < argc)
      return bench_scale_write(atoi(argv[i + 1]), argv[i + 2]);
    else if (!strcmp(argv[i], "--load-memory") && i + 1 < argc) {
      bench_gen_shape s = bench_scale_shape(atoi(argv[i + 1]));
      return bench_load_memory(&s);
    } else {
      fprintf(stderr,
              "usage: ddbst_bench [--tsv] [--quick] [--only NAME] [--show] "
              "[--model PATH] [--write-page PATH] "
              "[--write-model ENTITIES PATH] [--load-memory ENTITIES]\n");
      return 2;
    }
  }

  bench_ctx c;
  memset(&c, 0, sizeof c);
  c.page = bench_make_page(1 << 20, 1 << 30, &c.page_len, &c.page_items);
  c.small_page = bench_make_page(1 << 20, 25, &c.small_page_len, &(int){0});
  if (!c.page || !c.small_page) bench_fail("bench_make_page", DDBST_ENOMEM, NULL);
  if (write_page) {
    FILE *f = fopen(write_page, "wb");
    if (!f || fwrite(c.page, 1, c.page_len, f) != c.page_len || fclose(f)) {
      fprintf(stderr, "ddbst_bench: cannot write %s\n", write_page);
      return 1;
    }
    return 0;
  }

  char *model_json = read_file(model_path, &c.model_len);
  if (!model_json) {
    fprintf(stderr, "ddbst_bench: cannot read %s\n", model_path);
    return 1;
  }
  c.model_json = model_json;
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &bench_allocator;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_model_load(c.model_json, c.model_len, &o, &c.model, &err);
  if (rc < 0) bench_fail("ddbst_model_load", rc, &err);
  c.project = ddbst_model_entity(c.model, "Project");
  c.user = ddbst_model_entity(c.model, "User");
  c.list_projects = ddbst_model_pattern(c.model, "listProjects");
  if (c.project < 0 || c.user < 0 || c.list_projects < 0)
    bench_fail("the SaaS model", DDBST_ENOTFOUND, NULL);
  c.p_org = attr(&c, c.project, "orgId");
  c.p_id = attr(&c, c.project, "projectId");
  c.p_created = attr(&c, c.project, "createdAt");
  c.p_name = attr(&c, c.project, "name");
  c.p_status = attr(&c, c.project, "status");
  c.u_org = attr(&c, c.user, "orgId");
  c.u_id = attr(&c, c.user, "userId");
  c.u_email = attr(&c, c.user, "email");
  c.u_role = attr(&c, c.user, "role");
  c.u_name = attr(&c, c.user, "name");
  c.event = ddbst_model_entity(c.model, "Event");
  if (c.event < 0) bench_fail("the SaaS model", DDBST_ENOTFOUND, NULL);
  c.e_project = attr(&c, c.event, "projectId");
  c.e_ts = attr(&c, c.event, "ts");
  c.e_id = attr(&c, c.event, "eventId");
  static const char cond[] = "type = \"deploy\" and payload.count < :max";
  static const char acts[] =
      "set payload.count = payload.count + :n, expiresAt = :exp";
  static const char filter[] =
      "status = \"active\" and begins_with(name, :prefix)";
  rc = ddbst_expr_parse(c.model, c.event, DDBST_EXPR_CONDITION, cond,
                        sizeof cond - 1, &c.event_condition, &err);
  if (!rc)
    rc = ddbst_expr_parse(c.model, c.event, DDBST_EXPR_UPDATE, acts,
                          sizeof acts - 1, &c.event_actions, &err);
  if (!rc)
    rc = ddbst_expr_parse(c.model, c.project, DDBST_EXPR_FILTER, filter,
                          sizeof filter - 1, &c.project_filter, &err);
  if (rc < 0) bench_fail("ddbst_expr_parse", rc, &err);
  c.item = ddbst_item_new(c.model, c.project);
  c.out = ddbst_buf_new(&bench_allocator);
  if (!c.item || !c.out) bench_fail("setup", DDBST_ENOMEM, NULL);
  rc = ddbst_model_load_file(DDBST_SOURCE_DIR "/examples/games/model.json", &o,
                             &c.games, &err);
  if (rc < 0) bench_fail("examples/games", rc, &err);
  if (ddbst_model_entity(c.games, "Score") != 1)
    bench_fail("the games model", DDBST_ENOTFOUND, NULL);
  c.s_player = ddbst_model_attribute(c.games, 1, "playerId");
  c.s_game = ddbst_model_attribute(c.games, 1, "gameId");
  c.s_region = ddbst_model_attribute(c.games, 1, "region");
  c.s_points = ddbst_model_attribute(c.games, 1, "score");
  c.s_played = ddbst_model_attribute(c.games, 1, "playedAt");
  c.s_mode = ddbst_model_attribute(c.games, 1, "mode");
  c.top_scores = ddbst_model_pattern(c.games, "topScores");
  c.score = ddbst_item_new(c.games, 1);
  if (!c.score || c.s_mode < 0 || c.top_scores < 0)
    bench_fail("the games model", DDBST_ENOTFOUND, NULL);

  if (!opt.tsv && !opt.show)
    printf("%-22s %12s %10s %10s %10s   %s\n", "operation", "ns/op", "MB/s",
           "allocs/op", "malloc/op", "what (allocs: hooks; malloc: process)");
  /* Iterations per batch are fixed: a batch takes about 1-5 ms. */
  bench_run(&c, "keys_project", "Project PK/SK + GSI2PK/SK as JSON",
            op_keys_project, 10000, 0);
  bench_run(&c, "query_first_page", "Query listProjects, newest first, no cursor",
            op_query_first_page, 10000, 0);
#ifdef DDBST_BENCH_PAGES
  bench_pages(&c); /* query_cursor, cursor_*, parse_* */
#endif
  bench_run(&c, "put_project", "PutItem of a Project with its GSI2 keys",
            op_put_project, 10000, 0);
  bench_run(&c, "create_user", "create User + unique email: TransactWriteItems",
            op_create_user, 5000, 0);
  bench_run(&c, "update_project_status", "UpdateItem of status, GSI2 rewritten",
            op_update_project_status, 10000, 0);
  /* the floor of each body: a memcpy of its bytes (bench_memcpy.c) */
  bench_memcpy(&c, "put_project", op_put_project, 10000);
  bench_memcpy(&c, "create_user", op_create_user, 10000);
  bench_create_floor(&c, op_create_user);
  bench_put_floor(&c, op_put_project);
  bench_memcpy(&c, "update_project_status", op_update_project_status, 10000);
  bench_run(&c, "update_conditional",
            "UpdateItem of an Event: a condition and two actions",
            op_update_conditional, 10000, 0);
  bench_run(&c, "query_filtered", "query_first_page with a filter of two tests",
            op_query_filtered, 10000, 0);
  scan_users = ddbst_scan_new(c.model);
  if (!scan_users || ddbst_scan_segment(scan_users, 3, 8, NULL) ||
      ddbst_scan_entity(scan_users, c.user, NULL) ||
      ddbst_scan_project(scan_users, "email", NULL))
    return 1;
  bench_run(&c, "scan_segment", "Scan of Users: segment 3 of 8, projected",
            op_scan_segment, 10000, 0);
  ddbst_scan_free(scan_users);
  bench_run(&c, "put_score", "PutItem of a Score in two multi-attribute GSIs",
            op_put_score, 10000, 0);
  bench_run(&c, "query_leaderboard",
            "Query a multi-attribute GSI: 2 partition attrs, score >= N",
            op_query_leaderboard, 10000, 0);
  bench_run(&c, "set_by_index", "the 5 values of put_project, by index",
            op_set_by_index, 10000, 0);
  bench_run(&c, "update_values", "update_project_status's 4 values alone",
            op_update_values, 10000, 0);
  bench_run(&c, "set_by_name", "the same 5 values by name (ddbst_item_set_by_name)",
            op_set_by_name, 10000, 0);
  bench_run(&c, "set_json", "the same 5 values from one JSON object",
            op_set_json, 10000, 0);
  bench_run(&c, "model_load", "load + free examples/saas/model.json",
            op_model_load, 100, 0);
#ifdef DDBST_BENCH_PAGES
  bench_recent(&c); /* put_conditional, scan_*, hydrate_*, parse_scores_100 */
  bench_migrate(&c); /* migrate_*: a migration pass over a Scan page */
  bench_answers(&c); /* parse_stream_100, parse_get_item, parse_batch_*, ... */
#endif
  bench_json(&c); /* json_*: through ddbst_json_call */
  bench_scale(&c, op_put_project, op_query_first_page);

  ddbst_item_free(c.item);
  ddbst_item_free(c.score);
  ddbst_model_free(c.games);
  ddbst_buf_free(c.out);
  ddbst_expr_free(c.event_condition);
  ddbst_expr_free(c.event_actions);
  ddbst_expr_free(c.project_filter);
  ddbst_model_free(c.model);
  free(model_json);
  free(c.page);
  free(c.small_page);
  if (bench_hooks.hook_live != 0) {
    fprintf(stderr, "ddbst_bench: %lld blocks still allocated at exit\n",
            (long long)bench_hooks.hook_live);
    return 1;
  }
  return 0;
}
