/* What a model's size costs (issue 22, item 5): loading generated models of
 * 4 to 200 entities, linting the largest, and a PutItem and a Query on its
 * Project, the same entity as examples/saas/model.json's, whose bodies are
 * checked byte for byte against the SaaS model's before anything is timed:
 * a request must cost the same whatever else the model holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gen_model.h"

/* The sizes measured: entities, then indexes and patterns grow with them
 * up to 20 global and 5 local indexes (the loader's limits, DynamoDB's
 * default quotas) and 1,000 patterns. */
static const int sizes[] = {4, 25, 50, 100, 200};
enum { NSIZES = sizeof sizes / sizeof sizes[0], LARGEST = NSIZES - 1 };

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

bench_gen_shape bench_scale_shape(int entities) {
  bench_gen_shape s = {entities, clamp(entities / 10, 2, 20),
                       clamp(entities / 40, 1, 5), 5 * entities};
  return s;
}

static struct {
  char *json[NSIZES];
  size_t len[NSIZES];
  ddbst_model *big;
  ddbst_item *item;
  int project, p_org, p_id, p_created, p_name, p_status, list_projects;
  long findings;
} S;

static int load(int at) {
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &bench_allocator;
  ddbst_model *m = NULL;
  int rc = ddbst_model_load(S.json[at], S.len[at], &o, &m, NULL);
  ddbst_model_free(m);
  return rc;
}

/* One function per row: callgrind (tests/bench/instructions) collects
 * inside op_NAME. */
static int op_scale_load_4(bench_ctx *c) { (void)c; return load(0); }
static int op_scale_load_25(bench_ctx *c) { (void)c; return load(1); }
static int op_scale_load_50(bench_ctx *c) { (void)c; return load(2); }
static int op_scale_load_100(bench_ctx *c) { (void)c; return load(3); }
static int op_scale_load_200(bench_ctx *c) { (void)c; return load(4); }

static void count_finding(void *user, int32_t severity, const char *rule,
                          const char *path, const char *message) {
  (void)user, (void)severity, (void)rule, (void)path, (void)message;
  S.findings++;
}

static int op_scale_lint_200(bench_ctx *c) {
  (void)c;
  int rc = ddbst_model_lint(S.big, count_finding, NULL, NULL);
  return rc < 0 ? rc : 0; /* >= 0: the count of errors found, not a failure */
}

/* put_project and query_first_page (bench.c), on the big model's Project. */
static int op_scale_put_project(bench_ctx *c) {
  ddbst_item_reset(S.item, S.project);
  BENCH_SET(S.item, S.p_org, BENCH_ORG);
  BENCH_SET(S.item, S.p_id, BENCH_PROJECT_ID);
  BENCH_SET(S.item, S.p_created, BENCH_CREATED);
  BENCH_SET(S.item, S.p_name, BENCH_PROJECT_NAME);
  BENCH_SET(S.item, S.p_status, "active");
  ddbst_buf_reset(c->out);
  return ddbst_put_request(S.item, 0, BENCH_NOW, c->out, NULL);
}

static int op_scale_query_projects(bench_ctx *c) {
  ddbst_item_reset(S.item, S.project);
  BENCH_SET(S.item, S.p_org, BENCH_ORG);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 25;
  ddbst_buf_reset(c->out);
  return ddbst_query_request(S.item, S.list_projects, &q, c->out, NULL);
}

static int big_attr(const char *name) {
  int a = ddbst_model_attribute(S.big, S.project, name);
  if (a < 0) bench_fail(name, a, NULL);
  return a;
}

/* The body `big` builds must be the one `saas` builds, byte for byte. */
static void same_body(bench_ctx *c, const char *what, bench_fn saas,
                      bench_fn big) {
  ddbst_buf *want = ddbst_buf_new(&bench_allocator);
  if (!want) bench_fail("setup", DDBST_ENOMEM, NULL);
  int rc = saas(c);
  if (rc < 0) bench_fail(what, rc, NULL);
  if (ddbst_buf_append(want, ddbst_buf_data(c->out), ddbst_buf_len(c->out)) < 0)
    bench_fail("setup", DDBST_ENOMEM, NULL);
  rc = big(c);
  if (rc < 0) bench_fail(what, rc, NULL);
  if (ddbst_buf_len(want) != ddbst_buf_len(c->out) ||
      memcmp(ddbst_buf_data(want), ddbst_buf_data(c->out), ddbst_buf_len(want))) {
    fprintf(stderr, "ddbst_bench: %s: the generated model's body differs from "
                    "the SaaS model's:\n%s\n%s\n",
            what, ddbst_buf_data(want), ddbst_buf_data(c->out));
    exit(1);
  }
  ddbst_buf_free(want);
}

int bench_scale_write(int entities, const char *path) {
  bench_gen_shape s = bench_scale_shape(entities);
  size_t len;
  int made;
  char *json = bench_gen_model(&s, &len, &made);
  FILE *f = json ? fopen(path, "wb") : NULL;
  int ok = f && fwrite(json, 1, len, f) == len;
  if (f && fclose(f)) ok = 0;
  free(json);
  if (!ok) fprintf(stderr, "ddbst_bench: cannot write %s\n", path);
  else
    fprintf(stderr, "%s: %d entities, %d global and %d local indexes, %d "
                    "patterns, %zu bytes\n",
            path, s.entities, s.gsis, s.lsis, made, len);
  return ok ? 0 : 1;
}

void bench_scale(bench_ctx *c, bench_fn put_saas, bench_fn query_saas) {
  for (int i = 0; i < NSIZES; i++) {
    bench_gen_shape s = bench_scale_shape(sizes[i]);
    S.json[i] = bench_gen_model(&s, &S.len[i], NULL);
    if (!S.json[i]) bench_fail("bench_gen_model", DDBST_ENOMEM, NULL);
  }
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &bench_allocator;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_model_load(S.json[LARGEST], S.len[LARGEST], &o, &S.big, &err);
  if (rc < 0) bench_fail("the generated model", rc, &err);
  S.project = ddbst_model_entity(S.big, "Project");
  S.list_projects = ddbst_model_pattern(S.big, "listProjects");
  if (S.project < 0 || S.list_projects < 0)
    bench_fail("the generated model", DDBST_ENOTFOUND, NULL);
  S.p_org = big_attr("orgId");
  S.p_id = big_attr("projectId");
  S.p_created = big_attr("createdAt");
  S.p_name = big_attr("name");
  S.p_status = big_attr("status");
  S.item = ddbst_item_new(S.big, S.project);
  if (!S.item) bench_fail("setup", DDBST_ENOMEM, NULL);
  same_body(c, "scale_put_project", put_saas, op_scale_put_project);
  same_body(c, "scale_query_projects", query_saas, op_scale_query_projects);

  /* Iterations per batch: about 1-5 ms each on an idle machine. */
  bench_run(c, "scale_load_4", "load + free a generated model: 4 entities, "
            "2+1 indexes, 20 patterns", op_scale_load_4, 50, 0);
  bench_run(c, "scale_load_25", "the same: 25 entities, 2+1 indexes, 125 "
            "patterns", op_scale_load_25, 10, 0);
  bench_run(c, "scale_load_50", "the same: 50 entities, 5+1 indexes, 250 "
            "patterns", op_scale_load_50, 5, 0);
  bench_run(c, "scale_load_100", "the same: 100 entities, 10+2 indexes, 500 "
            "patterns", op_scale_load_100, 2, 0);
  bench_run(c, "scale_load_200", "the same: 200 entities, 20+5 indexes, "
            "1000 patterns", op_scale_load_200, 1, 0);
  bench_run(c, "scale_lint_200", "ddbst_model_lint of the 200-entity model",
            op_scale_lint_200, 1, 0);
  bench_run(c, "scale_put_project", "put_project on the 200-entity model's "
            "Project", op_scale_put_project, 10000, 0);
  bench_run(c, "scale_query_projects", "query_first_page on the 200-entity "
            "model's Project", op_scale_query_projects, 10000, 0);

  ddbst_item_free(S.item);
  ddbst_model_free(S.big);
  for (int i = 0; i < NSIZES; i++) free(S.json[i]);
}
