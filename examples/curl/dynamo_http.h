/* The HTTP side of the example: one signed POST per DynamoDB request, with
 * libcurl's CURLOPT_AWS_SIGV4. It knows nothing of ddbst: ddbst builds the
 * bodies, this sends them. Copy it as it is. */
#ifndef DYNAMO_HTTP_H
#define DYNAMO_HTTP_H

#include <stddef.h>

typedef struct dynamo_http dynamo_http;

/* A client configured from the environment:
 *   DDBST_ENDPOINT         http://127.0.0.1:8000, or
 *                          https://dynamodb.eu-west-1.amazonaws.com
 *   AWS_REGION             (else AWS_DEFAULT_REGION) the signing region
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 *   AWS_SESSION_TOKEN      optional: temporary credentials (STS, SSO, Lambda)
 * NULL when one is missing or libcurl cannot start; `why` then says which.
 * One client per thread: it keeps one easy handle, so one kept-alive
 * connection. Free with dynamo_http_free (NULL is ignored). */
dynamo_http *dynamo_http_new(char *why, size_t why_len);
void dynamo_http_free(dynamo_http *c);

/* The endpoint and region in use (for messages). */
const char *dynamo_http_endpoint(const dynamo_http *c);
const char *dynamo_http_region(const dynamo_http *c);

/* POSTs `body` (`len` bytes) as X-Amz-Target: DynamoDB_20120810.<operation>
 * ("Query", "TransactWriteItems", "DescribeTable", ...). Returns the HTTP
 * status, or -1 when no answer came: the answer body then holds libcurl's
 * message. The answer body is NUL-terminated and valid until the next
 * call. */
long dynamo_http_post(dynamo_http *c, const char *operation, const char *body,
                      size_t len);
const char *dynamo_http_answer(const dynamo_http *c);
size_t dynamo_http_answer_len(const dynamo_http *c);

#endif
