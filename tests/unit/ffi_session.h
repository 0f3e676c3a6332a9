/* The JSON entry's tests' session on the SaaS example (with cursor keys)
 * and their ways of asking it: the exact answer, its start, or an error
 * with exactly this code, path and message. Shared by test_ffi.c and
 * test_ffi_previous.c: cmocka's group setup and teardown open and close
 * it. */
#ifndef DDBST_TEST_FFI_SESSION_H
#define DDBST_TEST_FFI_SESSION_H

#include <stdio.h>
#include <string.h>

#include "support.h"

#define NOW "1773478800000000" /* 2026-03-14T09:00:00Z in microseconds */
#define KEY_HEX "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static ddbst_json *session;
static char answer[1 << 16];

static inline ddbst_json *open_config(const char *config, char **error) {
  return ddbst_json_open(config, strlen(config), NULL, error);
}

static inline int setup(void **state) {
  (void)state;
  char *error = NULL;
  session = open_config("{\"modelFile\":\"" DDBST_SOURCE_DIR
                        "/examples/saas/model.json\",\"cursorKeys\":\"" KEY_HEX
                        "\"}",
                        &error);
  if (!session) fail_msg("open: %s", error);
  return 0;
}

static inline int teardown(void **state) {
  (void)state;
  ddbst_json_close(session);
  return 0;
}

/* The answer to `request`, copied into `answer`. */
static inline const char *ask(const char *request) {
  size_t len = 0;
  char *a = ddbst_json_call(session, request, strlen(request), &len);
  assert_non_null(a);
  assert_int_equal(strlen(a), len);
  if (len >= sizeof answer) fail_msg("answer too long: %zu", len);
  memcpy(answer, a, len + 1);
  ddbst_json_free(a);
  return answer;
}

static inline void expect(const char *request, const char *want) {
  const char *got = ask(request);
  if (strcmp(got, want) != 0)
    fail_msg("request %s\n  got:  %s\n  want: %s", request, got, want);
}

static inline void expect_prefix(const char *request, const char *want) {
  const char *got = ask(request);
  if (strncmp(got, want, strlen(want)) != 0)
    fail_msg("request %s\n  got:  %s\n  want: %s...", request, got, want);
}

/* An error answer with exactly this code, path and message. */
static inline void expect_error(const char *request, int code,
                                const char *name, const char *path,
                                const char *message) {
  char want[1024];
  snprintf(want, sizeof want,
           "{\"error\":{\"code\":%d,\"name\":\"%s\",\"path\":\"%s\","
           "\"message\":\"%s\"}}",
           code, name, path, message);
  expect(request, want);
}

#endif
