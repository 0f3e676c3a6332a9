/* One connection to DynamoDB for one thread: the signed HTTP client of
 * examples/curl and a ddbst page to read DynamoDB's error answers with.
 * Requests DynamoDB calls retryable (throttling, conflicts, internal
 * errors) are sent again with a capped exponential backoff. */
#ifndef MIGRATE_DDB_H
#define MIGRATE_DDB_H

#include <stddef.h>

#include "ddbst.h"
#include "dynamo_http.h"

typedef struct ddb {
  dynamo_http *http;
  ddbst_page *error; /* DynamoDB's last error answer */
  char *measured;    /* the last body sent by ddb_send_measured */
  size_t measured_cap;
} ddb;

/* Opens a connection (environment as dynamo_http_new reads it); `model`
 * serves the error page. 0, or -1 with the reason in `why`. Call from one
 * thread before starting the others: libcurl's global set-up is not
 * thread-safe on older libcurl. */
int ddb_open(ddb *c, const ddbst_model *model, char *why, size_t why_len);
void ddb_close(ddb *c);

/* POSTs `body` as `operation`. Returns the HTTP status (retryable errors
 * sent again first, up to about a minute of backoff), or -1 when no answer
 * came (a message on stderr). On a status other than 200 c->error holds
 * DynamoDB's error when the answer is one. */
long ddb_send(ddb *c, const char *operation, const char *body, size_t len);

/* ddb_send of `body` with "ReturnConsumedCapacity":"TOTAL" added: *units
 * (added to) is what DynamoDB says the request consumed, its indexes
 * included. An error answer says nothing of it (AWS still charges a
 * failed conditional write: at least one unit). */
long ddb_send_measured(ddb *c, const char *operation, const char *body,
                       size_t len, double *units);

/* The answer to the last request, and its length. */
const char *ddb_answer(const ddb *c);
size_t ddb_answer_len(const ddb *c);

/* Says on stderr why a request answered `status`: DynamoDB's error type and
 * message. Returns -1. */
int ddb_failed(const ddb *c, const char *doing, long status);

/* Says a ddbst error on stderr: what was being done, the code, the path
 * and the message. Returns -1. */
int ddbst_failed(const char *doing, int rc, const ddbst_error *err);

void sleep_ms(long ms);

#endif
