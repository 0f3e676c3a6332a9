/* The integration tests' DynamoDB client: libcurl with CURLOPT_AWS_SIGV4,
 * one reused easy handle (so one kept-alive connection), bodies in memory. */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

struct itest_client {
  CURL *curl;
  char url[512];
  char sigv4[128];   /* "aws:amz:<region>:dynamodb" */
  char userpwd[512]; /* "<access key>:<secret>" */
  char *body;
  size_t len, cap;
  char curl_error[CURL_ERROR_SIZE];
};

const char *itest_endpoint(void) {
  const char *e = getenv("DDBST_ENDPOINT");
  return e && *e ? e : NULL;
}

static void say(char *why, size_t n, const char *text) {
  if (why && n) snprintf(why, n, "%s", text);
}

static int append(itest_client *c, const char *data, size_t n) {
  if (c->len + n + 1 > c->cap) {
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < c->len + n + 1) cap *= 2;
    char *p = realloc(c->body, cap);
    if (!p) return -1;
    c->body = p;
    c->cap = cap;
  }
  memcpy(c->body + c->len, data, n);
  c->len += n;
  c->body[c->len] = '\0';
  return 0;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *user) {
  size_t n = size * nmemb;
  /* 0 makes libcurl stop with CURLE_WRITE_ERROR */
  return append(user, data, n) ? 0 : n;
}

itest_client *itest_client_new(char *why, size_t why_len) {
  const char *endpoint = itest_endpoint();
  const char *key = getenv("AWS_ACCESS_KEY_ID");
  const char *secret = getenv("AWS_SECRET_ACCESS_KEY");
  const char *region = getenv("AWS_REGION");
  if (!endpoint || !key || !secret || !region) {
    say(why, why_len, "DDBST_ENDPOINT, AWS_ACCESS_KEY_ID, "
        "AWS_SECRET_ACCESS_KEY and AWS_REGION must all be set "
        "(scripts/dynamodb-local sets them)");
    return NULL;
  }
  itest_client *c = calloc(1, sizeof *c);
  if (!c) {
    say(why, why_len, "out of memory");
    return NULL;
  }
  int n1 = snprintf(c->url, sizeof c->url, "%s", endpoint);
  int n2 = snprintf(c->sigv4, sizeof c->sigv4, "aws:amz:%s:dynamodb", region);
  int n3 = snprintf(c->userpwd, sizeof c->userpwd, "%s:%s", key, secret);
  if (n1 < 0 || (size_t)n1 >= sizeof c->url || n2 < 0 ||
      (size_t)n2 >= sizeof c->sigv4 || n3 < 0 ||
      (size_t)n3 >= sizeof c->userpwd) {
    say(why, why_len, "endpoint, region or credentials too long");
    free(c);
    return NULL;
  }
  /* reference-counted by libcurl: every client pairs it with a cleanup */
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

void itest_client_free(itest_client *c) {
  if (!c) return;
  curl_easy_cleanup(c->curl);
  curl_global_cleanup();
  free(c->body);
  free(c);
}

long itest_client_send(itest_client *c, const char *operation,
                       const char *body, size_t len) {
  char target[128];
  snprintf(target, sizeof target, "X-Amz-Target: DynamoDB_20120810.%s",
           operation);
  struct curl_slist *headers = NULL, *h;
  /* "Expect:" turns off libcurl's 100-continue for bodies over 1 kB, which
   * would otherwise wait for an answer the server need not send */
  const char *lines[] = {"Content-Type: application/x-amz-json-1.0", target,
                         "Expect:"};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    h = curl_slist_append(headers, lines[i]);
    if (!h) {
      curl_slist_free_all(headers);
      return -1;
    }
    headers = h;
  }
  c->len = 0;
  if (c->body) c->body[0] = '\0';
  c->curl_error[0] = '\0';

  CURL *k = c->curl;
  curl_easy_reset(k);
  curl_easy_setopt(k, CURLOPT_URL, c->url);
  curl_easy_setopt(k, CURLOPT_AWS_SIGV4, c->sigv4);
  curl_easy_setopt(k, CURLOPT_USERPWD, c->userpwd);
  curl_easy_setopt(k, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(k, CURLOPT_POST, 1L);
  curl_easy_setopt(k, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(k, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(k, CURLOPT_WRITEDATA, c);
  curl_easy_setopt(k, CURLOPT_ERRORBUFFER, c->curl_error);
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

const char *itest_client_body(const itest_client *c) {
  return c && c->body ? c->body : "";
}

size_t itest_client_body_len(const itest_client *c) { return c ? c->len : 0; }
