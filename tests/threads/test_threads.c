/* One loaded model shared by 8 threads that build keys and request bodies
 * and generate ULIDs at once: every thread gets exactly the bodies one
 * thread alone gets, and no two ULIDs are equal. Then one JSON session
 * shared the same way, each thread parsing a page, sealing its cursor and
 * opening it again. Run under ThreadSanitizer by the tsan preset. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { THREADS = 8, ROUNDS = 300 };

static ddbst_model *model;
static char expected_put[4096], expected_query[4096], expected_update[4096],
    expected_create[4096];
static char ulids[THREADS][ROUNDS][27];

/* 2026-03-14T09:00:00Z */
static const int64_t NOW = 1773478800000000LL;

/* Builds the four bodies (a Project's put, update and query, a User's
 * create with its unique guard: each written from a plan compiled at load,
 * read by every thread) into the given buffers. */
static void build(ddbst_item *it, ddbst_buf *b, char *put, char *query,
                  char *update, char *create) {
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
  ddbst_item_reset(it, ddbst_model_entity(m, "User"));
  set(it, "orgId", "acme");
  set(it, "userId", "u1");
  set(it, "email", "Ann@Example.com");
  set(it, "role", "admin");
  set(it, "name", "Ann");
  ddbst_buf_reset(b);
  if (ddbst_put_request(it, DDBST_CREATE, NOW, b, NULL) < 0) abort();
  snprintf(create, 4096, "%s", ddbst_buf_data(b));
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
  static char put[THREADS][4096], query[THREADS][4096], update[THREADS][4096],
      create[THREADS][4096];
  int bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    build(it, b, put[t], query[t], update[t], create[t]);
    bad |= strcmp(put[t], expected_put) != 0;
    bad |= strcmp(query[t], expected_query) != 0;
    bad |= strcmp(update[t], expected_update) != 0;
    bad |= strcmp(create[t], expected_create) != 0;
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

/* Runs `fn` on THREADS threads at once (each given its number); every one
 * must return 0. */
static void run_threads(void *(*fn)(void *)) {
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t), 0);
  int bad = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    bad |= (int)(intptr_t)r;
  }
  assert_int_equal(bad, 0);
}

static int compare_ulids(const void *a, const void *b) {
  return strcmp(a, b);
}

static void shared_model(void **state) {
  (void)state;
  model = load_example("examples/saas/model.json");
  ddbst_item *it = ddbst_item_new(model, 0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  build(it, b, expected_put, expected_query, expected_update, expected_create);
  assert_non_null(strstr(expected_create, "\"TransactItems\""));
  ddbst_buf_free(b);
  ddbst_item_free(it);

  run_threads(worker);
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

/* ---- one JSON session, many threads ---- */

static ddbst_json *session;
static char *page_request;
static char expected_next[4096];
/* a create through the session's spare item, from the model's create plan */
static const char create_request[] =
    "{\"op\":\"create\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
    "\"userId\":\"2\",\"email\":\"Ann@X.com\",\"role\":\"admin\","
    "\"name\":\"Ann\"},\"now\":1773478800000000}";
static char expected_created[4096];
/* A transaction with a compiled condition and a batch: their objects and
 * the expression's memory come from the session's scratch (ffi/spares.c) */
static const char txn_request[] =
    "{\"op\":\"transact\",\"now\":1773478800000000,\"items\":[{\"op\":"
    "\"update\",\"entity\":\"Project\",\"values\":{\"orgId\":\"1\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"},\"set\":{"
    "\"status\":\"archived\"},\"condition\":\"status = :s\",\"params\":{"
    "\"s\":\"active\"}},{\"op\":\"delete\",\"entity\":\"Organisation\","
    "\"values\":{\"orgId\":\"2\"}}]}";
static const char batch_request[] =
    "{\"op\":\"batchWrite\",\"now\":1773478800000000,\"items\":[{\"op\":"
    "\"put\",\"entity\":\"Organisation\",\"values\":{\"orgId\":\"1\","
    "\"name\":\"A\",\"plan\":\"pro\"}},{\"op\":\"delete\",\"entity\":"
    "\"Organisation\",\"values\":{\"orgId\":\"2\"}}]}";
static char expected_txn[4096], expected_batch[4096];

/* The answer to `req` into `out` (cap 4096); aborts on an error answer. */
static void ask(const char *req, char *out) {
  size_t n;
  char *a = ddbst_json_call(session, req, strlen(req), &n);
  if (strncmp(a, "{\"error\":", 9) == 0 || n >= 4096) {
    fprintf(stderr, "%s\n", a);
    abort();
  }
  memcpy(out, a, n + 1);
  ddbst_json_free(a);
}

/* Parses the page, seals its cursor, opens it in the next page's query. */
static void next_page(char *out) {
  char page[4096], req[4096];
  ask(page_request, page);
  const char *c = strstr(page, "\"cursor\":\"");
  if (!c) abort();
  c += 10;
  int n = (int)(strchr(c, '"') - c);
  snprintf(req, sizeof req,
           "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
           "\"1\"},\"cursor\":\"%.*s\"}",
           n, c);
  ask(req, out);
}

static void *json_worker(void *arg) {
  (void)arg;
  char next[4096], created[4096];
  int bad = 0;
  for (int r = 0; r < ROUNDS / 3; r++) {
    next_page(next);
    bad |= strcmp(next, expected_next) != 0;
    ask(create_request, created);
    bad |= strcmp(created, expected_created) != 0;
    ask(r % 2 ? txn_request : batch_request, next);
    bad |= strcmp(next, r % 2 ? expected_txn : expected_batch) != 0;
  }
  return (void *)(intptr_t)bad;
}

static void shared_json_session(void **state) {
  (void)state;
  const char config[] =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","
      "\"cursorKeys\":\"000102030405060708090a0b0c0d0e0f101112131415161718191a"
      "1b1c1d1e1f\"}";
  session = ddbst_json_open(config, sizeof config - 1, NULL, NULL);
  assert_non_null(session);
  page_request =
      "{\"op\":\"page\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":\"1\"},"
      "\"response\":\"{\\\"Items\\\":[{\\\"SK\\\":{\\\"S\\\":\\\"USER#2\\\"},"
      "\\\"_type\\\":{\\\"S\\\":\\\"User\\\"},\\\"PK\\\":{\\\"S\\\":\\\"ORG#1\\\"},"
      "\\\"userId\\\":{\\\"S\\\":\\\"2\\\"},\\\"orgId\\\":{\\\"S\\\":\\\"1\\\"}}],"
      "\\\"LastEvaluatedKey\\\":{\\\"SK\\\":{\\\"S\\\":\\\"USER#2\\\"},\\\"PK\\\":"
      "{\\\"S\\\":\\\"ORG#1\\\"}}}\"}";
  next_page(expected_next);
  assert_non_null(strstr(expected_next, "\"ExclusiveStartKey\":{\"PK\":{\"S\":"
                                        "\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}"));
  ask(create_request, expected_created);
  assert_non_null(strstr(expected_created, "\"TransactWriteItems\""));
  ask(txn_request, expected_txn);
  ask(batch_request, expected_batch);
  run_threads(json_worker);
  ddbst_json_close(session);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(shared_model),
                                     cmocka_unit_test(shared_json_session)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
