/* Signed DynamoDB requests with libcurl: CURLOPT_AWS_SIGV4 does the SigV4
 * signature, so the whole client is one reused easy handle and a buffer. */
#include "dynamo_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

struct dynamo_http {
  CURL *curl;
  char endpoint[512];
  char region[64];
  char sigv4[128];          /* "aws:amz:<region>:dynamodb" */
  char userpwd[512];        /* "<access key id>:<secret access key>" */
  char token_header[4096];  /* "X-Amz-Security-Token: ...", or "" */
  char *answer;
  size_t len, cap;
  char curl_error[CURL_ERROR_SIZE];
};

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static void say(char *why, size_t n, const char *text) {
  if (why && n) snprintf(why, n, "%s", text);
}

/* snprintf that reports truncation: 0 when `out` holds all of it. */
static int format(char *out, size_t n, const char *prefix, const char *a,
                  const char *sep, const char *b) {
  int w = snprintf(out, n, "%s%s%s%s", prefix, a, sep, b);
  return w < 0 || (size_t)w >= n ? -1 : 0;
}

dynamo_http *dynamo_http_new(char *why, size_t why_len) {
  const char *endpoint = env("DDBST_ENDPOINT");
  const char *region = env("AWS_REGION");
  if (!region) region = env("AWS_DEFAULT_REGION");
  const char *key = env("AWS_ACCESS_KEY_ID");
  const char *secret = env("AWS_SECRET_ACCESS_KEY");
  const char *token = env("AWS_SESSION_TOKEN");
  if (!endpoint) {
    say(why, why_len, "DDBST_ENDPOINT is not set");
    return NULL;
  }
  if (!region || !key || !secret) {
    say(why, why_len,
        "AWS_REGION (or AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY must be set");
    return NULL;
  }
  dynamo_http *c = calloc(1, sizeof *c);
  if (!c) {
    say(why, why_len, "out of memory");
    return NULL;
  }
  if (format(c->endpoint, sizeof c->endpoint, "", endpoint, "", "") ||
      format(c->region, sizeof c->region, "", region, "", "") ||
      format(c->sigv4, sizeof c->sigv4, "aws:amz:", region, ":", "dynamodb") ||
      format(c->userpwd, sizeof c->userpwd, "", key, ":", secret) ||
      (token && format(c->token_header, sizeof c->token_header,
                       "X-Amz-Security-Token: ", token, "", ""))) {
    say(why, why_len, "the endpoint, region or a credential is too long");
    free(c);
    return NULL;
  }
  /* reference-counted by libcurl: paired with the cleanup in _free */
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    say(why, why_len, "curl_global_init failed");
    free(c);
    return NULL;
  }
  c->curl = curl_easy_init();
  if (!c->curl) {
    say(why, why_len, "curl_easy_init failed");
    curl_global_cleanup();
    free(c);
    return NULL;
  }
  return c;
}

void dynamo_http_free(dynamo_http *c) {
  if (!c) return;
  curl_easy_cleanup(c->curl);
  curl_global_cleanup();
  free(c->answer);
  free(c);
}

const char *dynamo_http_endpoint(const dynamo_http *c) { return c->endpoint; }
const char *dynamo_http_region(const dynamo_http *c) { return c->region; }

static int append(dynamo_http *c, const char *data, size_t n) {
  if (c->len + n + 1 > c->cap) {
    size_t cap = c->cap ? c->cap : 16384;
    while (cap < c->len + n + 1) cap *= 2;
    char *p = realloc(c->answer, cap);
    if (!p) return -1;
    c->answer = p;
    c->cap = cap;
  }
  memcpy(c->answer + c->len, data, n);
  c->len += n;
  c->answer[c->len] = '\0';
  return 0;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *user) {
  size_t n = size * nmemb;
  return append(user, data, n) ? 0 : n; /* 0: libcurl stops, WRITE_ERROR */
}

long dynamo_http_post(dynamo_http *c, const char *operation, const char *body,
                      size_t len) {
  char target[128];
  snprintf(target, sizeof target, "X-Amz-Target: DynamoDB_20120810.%s",
           operation);
  /* "Expect:" turns off libcurl's 100-continue wait for bodies over 1 kB */
  const char *lines[] = {"Content-Type: application/x-amz-json-1.0", target,
                         "Expect:", c->token_header};
  struct curl_slist *headers = NULL;
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    if (!lines[i][0]) continue;
    struct curl_slist *h = curl_slist_append(headers, lines[i]);
    if (!h) {
      curl_slist_free_all(headers);
      c->len = 0;
      append(c, "out of memory", 13);
      return -1;
    }
    headers = h;
  }
  c->len = 0;
  if (c->answer) c->answer[0] = '\0';
  c->curl_error[0] = '\0';

  CURL *k = c->curl;
  curl_easy_reset(k); /* keeps the connection, forgets the last options */
  curl_easy_setopt(k, CURLOPT_URL, c->endpoint);
  curl_easy_setopt(k, CURLOPT_AWS_SIGV4, c->sigv4);
  curl_easy_setopt(k, CURLOPT_USERPWD, c->userpwd);
  curl_easy_setopt(k, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(k, CURLOPT_POST, 1L);
  curl_easy_setopt(k, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(k, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(k, CURLOPT_WRITEDATA, c);
  curl_easy_setopt(k, CURLOPT_ERRORBUFFER, c->curl_error);
  curl_easy_setopt(k, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(k, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(k);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    const char *msg = c->curl_error[0] ? c->curl_error : curl_easy_strerror(rc);
    c->len = 0;
    append(c, msg, strlen(msg));
    return -1;
  }
  long status = 0;
  curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

const char *dynamo_http_answer(const dynamo_http *c) {
  return c->answer ? c->answer : "";
}

size_t dynamo_http_answer_len(const dynamo_http *c) { return c->len; }
