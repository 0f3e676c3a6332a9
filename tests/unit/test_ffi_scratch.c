/* The JSON entry's scratch (src/ffi/session.c): the buffers and the item a
 * call leaves for the next. A warm call allocates only for its request's
 * parse and its answer, and nothing of one request reaches the next: every
 * answer equals a fresh session's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define CONFIG                                                                 \
  "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","          \
  "\"cursorKeys\":\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b"  \
  "1c1d1e1f\"}"

static const char put[] =
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":"
    "\"Website\",\"status\":\"active\"},\"now\":1773478800000000}";

/* Requests whose items carry the most (a condition, parameters, an
 * expected version, previous values, a projection), between plain ones. */
static const char *const requests[] = {
    put,
    "{\"op\":\"update\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"},\"set\":{"
    "\"status\":\"archived\"},\"previous\":{\"status\":\"active\"},"
    "\"condition\":\"name = :n\",\"params\":{\"n\":\"Website\"},"
    "\"now\":1773478800000000}",
    put,
    "{\"op\":\"get\",\"entity\":\"User\",\"values\":{\"orgId\":\"acme\","
    "\"userId\":\"u-1\"},\"project\":[\"email\"]}",
    "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
    "\"acme\"},\"project\":[\"name\"],\"limit\":5}",
    "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
    "\"acme\"}}",
    put,
    "{\"op\":\"get\",\"entity\":\"User\",\"values\":{\"orgId\":\"acme\","
    "\"userId\":\"u-1\"}}",
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\"}}",
    put,
};

static char *answer_of(ddbst_json *s, const char *request) {
  char *a = ddbst_json_call(s, request, strlen(request), NULL);
  size_t n = strlen(a) + 1;
  char *copy = malloc(n);
  memcpy(copy, a, n);
  ddbst_json_free(a);
  return copy;
}

static void nothing_carries_over(void **state) {
  (void)state;
  ddbst_json *warm = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
  assert_non_null(warm);
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
      ddbst_json *fresh = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
      char *want = answer_of(fresh, requests[i]);
      char *got = answer_of(warm, requests[i]);
      if (strcmp(got, want))
        fail_msg("request %zu\n  got:  %s\n  want: %s", i, got, want);
      free(got);
      free(want);
      ddbst_json_close(fresh);
    }
  }
  ddbst_json_close(warm);
}

static long calls_of(ddbst_json *s, counting_alloc *ca, const char *request) {
  long before = ca->calls;
  char *a = ddbst_json_call(s, request, strlen(request), NULL);
  ddbst_json_free(a);
  return ca->calls - before;
}

static void warm_calls_allocate_less(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &ca.hooks, NULL);
  assert_non_null(s);
  long cold = calls_of(s, &ca, put);
  long warm = calls_of(s, &ca, put);
  /* at this commit 22 and 9: the item (7 blocks and 2 growths), the
   * builder's and the answer's buffers (3 growths: a planned put reserves
   * its body once) and the scratch itself are no longer made per call;
   * what is left is the request's parse and the answer, which is the
   * caller's */
  if (warm > cold - 13) fail_msg("cold %ld, warm %ld", cold, warm);
  assert_int_equal(calls_of(s, &ca, put), warm);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

/* A big answer's buffer is not kept for the session's life. */
static void big_buffers_are_not_kept(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &ca.hooks, NULL);
  long base = ca.live;
  (void)calls_of(s, &ca, put);
  long small = ca.live - base;
  (void)calls_of(s, &ca, "{\"op\":\"doc\"}"); /* the model's whole doc */
  assert_true(ca.live - base <= small + 2);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nothing_carries_over),
      cmocka_unit_test(warm_calls_allocate_less),
      cmocka_unit_test(big_buffers_are_not_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
