/* libFuzzer: the JSON entry. Input: a byte choosing the session (the SaaS
 * or the blog example, sealed cursors) or the configuration path, then the
 * request (or configuration) text. Every answer is one JSON object: an
 * error with a code, a name and a message, or an answer without "error";
 * and a request that is not JSON text (fuzz_text.h) is an error. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_text.h"

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

static ddbst_json *session(int which) {
  static ddbst_json *sessions[2];
  if (!sessions[which]) {
    char config[1024];
    snprintf(config, sizeof config,
             "{\"modelFile\":\"%s/examples/%s/model.json\",\"cursorKeys\":"
             "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e"
             "1f\"}",
             DDBST_SOURCE_DIR, which ? "blog" : "saas");
    sessions[which] = ddbst_json_open(config, strlen(config), NULL, NULL);
    if (!sessions[which]) abort();
  }
  return sessions[which];
}

/* An error answer names its code and says something; no op may return
 * without an answer. */
static void check_answer(const char *a, size_t len) {
  if (!a || strlen(a) != len || len < 2 || a[0] != '{' || a[len - 1] != '}')
    __builtin_trap();
  /* unescaped quotes come only from ddbst, never from echoed input */
  if (strstr(a, "\"path\":\"\",\"message\":\"no answer was written"))
    __builtin_trap();
  if (strncmp(a, "{\"error\":", 9) == 0 &&
      (!strstr(a, "\"code\":-") || strstr(a, "\"message\":\"\"")))
    __builtin_trap();
}

static int contains(const char *s, size_t n, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(s + i, word, w) == 0) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  if ((data[0] & 3) == 3) {
    /* a configuration: never a file of the fuzzer's choosing (nor a name
     * spelled with escapes) */
    if (contains(text, len, "modelFile") || contains(text, len, "\\u"))
      return 0;
    char *error = NULL;
    ddbst_json *s = ddbst_json_open(text, len, NULL, &error);
    if (!s == !error) __builtin_trap();
    if (error) check_answer(error, strlen(error));
    ddbst_json_free(error);
    ddbst_json_close(s);
    return 0;
  }
  size_t alen = 0;
  char *a = ddbst_json_call(session(data[0] & 1), text, len, &alen);
  check_answer(a, alen);
  if (!fuzz_maybe_json_text(text, len) && strncmp(a, "{\"error\":", 9) != 0)
    __builtin_trap();
  ddbst_json_free(a);
  return 0;
}
