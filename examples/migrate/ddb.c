/* The connection of one thread, and how its requests are retried. */
#define _POSIX_C_SOURCE 200809L
#include "ddb.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json_walk.h"

void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int ddbst_failed(const char *doing, int rc, const ddbst_error *err) {
  fprintf(stderr, "migrate: %s: %s", doing, ddbst_strerror(rc));
  if (err && err->path[0]) fprintf(stderr, ": %s", err->path);
  if (err && err->message[0]) fprintf(stderr, ": %s", err->message);
  fputc('\n', stderr);
  return -1;
}

int ddb_open(ddb *c, const ddbst_model *model, char *why, size_t why_len) {
  c->http = dynamo_http_new(why, why_len);
  if (!c->http) return -1;
  c->error = ddbst_page_new(model);
  if (!c->error) {
    snprintf(why, why_len, "out of memory");
    dynamo_http_free(c->http);
    c->http = NULL;
    return -1;
  }
  return 0;
}

void ddb_close(ddb *c) {
  free(c->measured);
  c->measured = NULL;
  c->measured_cap = 0;
  ddbst_page_free(c->error);
  dynamo_http_free(c->http);
  c->error = NULL;
  c->http = NULL;
}

const char *ddb_answer(const ddb *c) { return dynamo_http_answer(c->http); }
size_t ddb_answer_len(const ddb *c) { return dynamo_http_answer_len(c->http); }

long ddb_send(ddb *c, const char *operation, const char *body, size_t len) {
  /* 50 ms doubling to 3.2 s, then 3.2 s a try: about a minute in all */
  for (int attempt = 0;; attempt++) {
    long status = dynamo_http_post(c->http, operation, body, len);
    if (status < 0) {
      fprintf(stderr, "migrate: %s to %s: no answer: %s\n", operation,
              dynamo_http_endpoint(c->http), dynamo_http_answer(c->http));
      return -1;
    }
    if (status == 200) return status;
    int parsed = ddbst_page_parse_error(c->error, ddb_answer(c),
                                        ddb_answer_len(c), NULL) > 0;
    /* an HTTP 5xx is the service's failure, whatever its type says (as the
     * AWS SDKs retry it): DynamoDB Local answers InternalFailure, which
     * ddbst_page_error_retryable does not know */
    int retry = status >= 500 || (parsed && ddbst_page_error_retryable(c->error));
    if (!retry || attempt == 24) return status;
    sleep_ms(50L << (attempt < 6 ? attempt : 6));
  }
}

int ddb_failed(const ddb *c, const char *doing, long status) {
  if (status < 0) return -1; /* ddb_send said it */
  const char *type = ddbst_page_error_type(c->error);
  if (type)
    fprintf(stderr, "migrate: %s: HTTP %ld %s: %s\n", doing, status, type,
            ddbst_page_error_message(c->error));
  else
    fprintf(stderr, "migrate: %s: HTTP %ld: %.300s\n", doing, status,
            ddb_answer(c));
  return -1;
}

/* The CapacityUnits of ConsumedCapacity: one object (a single-table
 * request) or an array of them (a transaction, a batch). */
static double consumed(const ddb *c) {
  const char *answer = ddb_answer(c), *end = answer + ddb_answer_len(c);
  const char *v, *v_end;
  if (!json_member(answer, end, "ConsumedCapacity", &v, &v_end)) return 0;
  if (*v == '{') return json_member_double(v, v_end, "CapacityUnits");
  double sum = 0;
  for (v++; v < v_end;) {
    v = json_skip_ws(v, v_end);
    const char *el_end = json_skip_value(v, v_end);
    if (!el_end || *v != '{') break;
    sum += json_member_double(v, el_end, "CapacityUnits");
    v = json_skip_ws(el_end, v_end);
    if (v >= v_end || *v != ',') break;
    v++;
  }
  return sum;
}

long ddb_send_measured(ddb *c, const char *operation, const char *body,
                       size_t len, double *units) {
  static const char field[] = "\"ReturnConsumedCapacity\":\"TOTAL\"";
  /* every body ddbst builds is an object with members: {"TableName":... */
  if (len < 2 || body[0] != '{') return ddb_send(c, operation, body, len);
  size_t need = len + sizeof field + 1;
  if (need > c->measured_cap) {
    char *grown = realloc(c->measured, need);
    if (!grown) return ddb_send(c, operation, body, len);
    c->measured = grown, c->measured_cap = need;
  }
  size_t n = 0;
  c->measured[n++] = '{';
  memcpy(c->measured + n, field, sizeof field - 1);
  n += sizeof field - 1;
  c->measured[n++] = ',';
  memcpy(c->measured + n, body + 1, len - 1);
  n += len - 1;
  long status = ddb_send(c, operation, c->measured, n);
  if (status == 200) *units += consumed(c);
  return status;
}
