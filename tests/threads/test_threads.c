/* One loaded model shared by 8 threads that build keys and request bodies
 * and generate ULIDs at once: every thread gets exactly the bodies one
 * thread alone gets, and no two ULIDs are equal. Run under ThreadSanitizer
 * by the tsan preset. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { THREADS = 8, ROUNDS = 300 };

static ddbst_model *model;
static char expected_put[4096], expected_query[4096], expected_update[4096];
static char ulids[THREADS][ROUNDS][27];

/* 2026-03-14T09:00:00Z */
static const int64_t NOW = 1773478800000000LL;

/* Builds the three bodies for project `i` into the given buffers. */
static void build(ddbst_item *it, ddbst_buf *b, char *put, char *query,
                  char *update) {
  const ddbst_model *m = model;
  int project = ddbst_model_entity(m, "Project");
  ddbst_item_reset(it, project);
  set(it, "orgId", "acme");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T10:00:00+01:00");
  set(it, "status", "active");
  set(it, "name", "Website");
  ddbst_buf_reset(b);
  if (ddbst_put_request(it, DDBST_CREATE, NOW, b, NULL) < 0) abort();
  snprintf(put, 4096, "%s", ddbst_buf_data(b));
  ddbst_buf_reset(b);
  ddbst_item_unset(it, ddbst_model_attribute(m, project, "name"));
  if (ddbst_update_request(it, 0, NOW, b, NULL) < 0) abort();
  snprintf(update, 4096, "%s", ddbst_buf_data(b));
  ddbst_item_reset(it, project);
  set(it, "orgId", "acme");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_BETWEEN;
  q.attribute = ddbst_model_attribute(m, project, "createdAt");
  q.value = "2026-01";
  q.value_len = 7;
  q.value2 = "2026-03-14";
  q.value2_len = 10;
  ddbst_buf_reset(b);
  if (ddbst_query_request(it, ddbst_model_pattern(m, "listProjects"), &q, b,
                          NULL) < 0)
    abort();
  snprintf(query, 4096, "%s", ddbst_buf_data(b));
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  ddbst_item *it = ddbst_item_new(model, 0);
  ddbst_item *ev = ddbst_item_new(model, ddbst_model_entity(model, "Event"));
  ddbst_buf *b = ddbst_buf_new(NULL);
  static char put[THREADS][4096], query[THREADS][4096], update[THREADS][4096];
  int bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    build(it, b, put[t], query[t], update[t]);
    bad |= strcmp(put[t], expected_put) != 0;
    bad |= strcmp(query[t], expected_query) != 0;
    bad |= strcmp(update[t], expected_update) != 0;
    /* the ULID generator is the model's one shared, locked state */
    ddbst_item_reset(ev, ddbst_model_entity(model, "Event"));
    if (ddbst_item_apply_defaults(ev, NOW, NULL)) abort();
    const char *u;
    size_t n;
    if (ddbst_item_get(ev, ddbst_model_attribute(model, 3, "eventId"), &u, &n) != 1)
      abort();
    memcpy(ulids[t][r], u, 27);
  }
  ddbst_buf_free(b);
  ddbst_item_free(ev);
  ddbst_item_free(it);
  return (void *)(intptr_t)bad;
}

static int compare_ulids(const void *a, const void *b) {
  return strcmp(a, b);
}

static void shared_model(void **state) {
  (void)state;
  model = load_example("examples/saas/model.json");
  ddbst_item *it = ddbst_item_new(model, 0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  build(it, b, expected_put, expected_query, expected_update);
  ddbst_buf_free(b);
  ddbst_item_free(it);

  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
  int bad = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    bad |= (int)(intptr_t)r;
  }
  assert_int_equal(bad, 0);
  /* every ULID distinct, and each thread's own sequence increasing */
  for (int t = 0; t < THREADS; t++)
    for (int r = 1; r < ROUNDS; r++)
      assert_true(strcmp(ulids[t][r - 1], ulids[t][r]) < 0);
  qsort(ulids, THREADS * ROUNDS, 27, compare_ulids);
  const char *flat = (const char *)ulids;
  for (int i = 1; i < THREADS * ROUNDS; i++)
    assert_true(strcmp(flat + (size_t)(i - 1) * 27, flat + (size_t)i * 27) != 0);
  ddbst_model_free(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(shared_model)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
