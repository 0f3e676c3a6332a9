/* What bench.c and bench_pages.c share: the timing loop, the counting
 * allocator, the data every operation uses, and the generated Query page. */
#ifndef DDBST_BENCH_H
#define DDBST_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ddbst.h"
#include "gen_model.h"

/* Allocations seen through the ddbst_allocator hooks (every allocation of
 * the model, its items, pages and buffers), and every malloc of the whole
 * process (bench_malloc.c), which catches anything that would bypass them. */
typedef struct bench_counts {
  uint64_t hook_allocs; /* malloc + realloc through the hooks */
  uint64_t hook_frees;
  int64_t hook_live;    /* blocks not yet freed */
} bench_counts;

extern bench_counts bench_hooks;
extern const ddbst_allocator bench_allocator;
/* malloc, calloc, realloc and aligned allocations by anyone in the process. */
uint64_t bench_process_allocs(void);

/* 2026-03-14T09:00:00Z: every timestamp default uses this instant. */
#define BENCH_NOW 1773478800000000LL

/* The data, the same in peers.js. */
#define BENCH_ORG "acme-7f3a"
#define BENCH_PROJECT_ID "p-0001"
#define BENCH_CREATED "2026-03-14T09:00:00Z"
#define BENCH_PROJECT_NAME "Website relaunch"
#define BENCH_USER_ID "u-0042"
#define BENCH_EMAIL "Ann.Lee@Example.com"
#define BENCH_ROLE "admin"
#define BENCH_USER_NAME "Ann Lee"
#define BENCH_EVENT_ID "01JPA0000000000000000000AB"

/* Everything an operation needs, set up once before timing. */
typedef struct bench_ctx {
  ddbst_model *model;
  int project, user;                       /* entity indexes */
  int p_org, p_id, p_created, p_name, p_status;
  int u_org, u_id, u_email, u_role, u_name;
  int list_projects;                        /* pattern index */
  int event, e_project, e_ts, e_id;         /* Event and its key facets */
  /* compiled once, as a service does at start-up (docs/conditions.md) */
  ddbst_expr *event_condition, *event_actions, *project_filter;
  ddbst_item *item;
  ddbst_buf *out;
  /* examples/games: Score in two multi-attribute (native) indexes */
  ddbst_model *games;
  ddbst_item *score;
  int s_player, s_game, s_region, s_points, s_played, s_mode, top_scores;
  const char *model_json;
  size_t model_len;
  /* A Query response of Projects of about 1 MiB with a LastEvaluatedKey,
   * and the first 25 of its items as a page of the listing. */
  char *page;
  size_t page_len;
  int page_items;
  char *small_page;
  size_t small_page_len;
} bench_ctx;

/* One operation: returns >= 0, or a negative DDBST_E* code (the bench
 * stops: a benchmark of a failing call measures nothing). */
typedef int (*bench_fn)(bench_ctx *ctx);

/* Runs `fn` `warm` times, then `batches` batches of `iters` calls, and prints
 * the median ns/op (and MB/s when `bytes` is the input size of one call) with
 * the allocations per call over all timed batches. */
void bench_run(bench_ctx *ctx, const char *name, const char *what,
               bench_fn fn, int iters, size_t bytes);

/* Whether --only names another operation than `name`. */
int bench_skips(const char *name);

/* memcpy_<op>: one memcpy of the body `build` writes, its floor
 * (bench_memcpy.c). */
void bench_memcpy(bench_ctx *ctx, const char *op, bench_fn build, int iters);

/* put_floor: put_project's values set and its body copied from a template
 * made for it, checked against `put_project`'s (bench_put_floor.c). */
void bench_put_floor(bench_ctx *ctx, bench_fn put_project);

/* create_floor: create_user's values set and its body copied from a
 * template made for it, checked against `create_user`'s
 * (bench_create_floor.c). */
void bench_create_floor(bench_ctx *ctx, bench_fn create_user);

/* Exits with the error ddbst_item_set gives for these arguments. */
void bench_set_failed(ddbst_item *item, int attribute, const char *text,
                      size_t len, int rc);
/* Sets an attribute from text, exiting with the error on failure. Values
 * come with their lengths, as they do from a parsed request. Inline, with
 * the failure out of line: the harness's own cost is not ddbst's. */
static inline int bench_set(ddbst_item *item, int attribute, const char *text,
                            size_t len) {
  int rc = ddbst_item_set(item, attribute, text, len, NULL);
  if (rc < 0) bench_set_failed(item, attribute, text, len, rc);
  return rc;
}
#define BENCH_SET(item, attribute, literal) \
  bench_set((item), (attribute), (literal), sizeof(literal) - 1)
/* Exits with a message naming the operation and the error. */
void bench_fail(const char *op, int rc, const ddbst_error *err);

/* Writes a Query response of Projects of the listing (newest first) into a
 * new malloc'd buffer: as many items as fit in `max_bytes`, or `max_items`
 * when that is smaller, followed by Count, ScannedCount and the
 * LastEvaluatedKey of the last item. Deterministic. */
char *bench_make_page(size_t max_bytes, int max_items, size_t *len,
                      int *items);
/* A DynamoDB Streams event as Lambda delivers it (bench_answers.c):
 * `records` MODIFYs of Projects with new and old images, malloc'd. */
char *bench_make_stream_event(int records, size_t *len);

/* What a model's size costs (bench_scale.c): generated models loaded and
 * linted, and put_project / query_first_page (given, to check the bodies
 * are the same) on the largest one's Project. */
void bench_scale(bench_ctx *ctx, bench_fn put_project, bench_fn query_first_page);
/* Writes the generated model of `entities` entities bench_scale loads. */
int bench_scale_write(int entities, const char *path);
/* The shape bench_scale generates for `entities` entities. */
bench_gen_shape bench_scale_shape(int entities);
/* Prints what loading that model touches (bench_load_memory.c): a first
 * load's page faults, the bytes allocated at the peak and held. */
int bench_load_memory(const bench_gen_shape *shape);

/* The JSON entry's calls (bench_json.c): what a binding pays per call. */
void bench_json(bench_ctx *ctx);

#ifdef DDBST_BENCH_PAGES
/* The response and cursor operations (bench_pages.c). */
void bench_pages(bench_ctx *ctx);
/* Conditions, scans, hydration, multi-attribute pages (bench_recent.c). */
void bench_recent(bench_ctx *ctx);
/* Stream events, GetItem, BatchGetItem and transaction answers
 * (bench_answers.c). */
void bench_answers(bench_ctx *ctx);
/* A migration's pass over a Scan page (bench_migrate.c). */
void bench_migrate(bench_ctx *ctx);
/* libsodium's decryption alone, sized as `cursor`'s of `pattern` over
 * `partition` (bench_floor.c): the floor under opening it. */
/* With DDBST_BENCH_PAIRS=N set, bench_floor also prints N pairs of
 * batches, `opened`'s and the floor's one after the other in the same
 * process: whether the two slow down together (docs/performance.md). */
void bench_floor(bench_ctx *ctx, bench_fn opened, const char *cursor, size_t cursor_len,
                 const char *pattern, const char *partition);
#endif

#endif
