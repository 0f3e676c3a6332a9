/* A tiny DynamoDB client for the integration tests: one POST per request to
 * $DDBST_ENDPOINT, signed by libcurl's CURLOPT_AWS_SIGV4 — how a C service
 * sends the bodies ddbst builds. It knows nothing of ddbst. */
#ifndef DDBST_ITEST_CLIENT_H
#define DDBST_ITEST_CLIENT_H

#include <stddef.h>

/* What a test program's main() returns when there is no DynamoDB to talk to:
 * ctest's SKIP_RETURN_CODE for these tests (and automake's convention). */
#define ITEST_SKIP 77

typedef struct itest_client itest_client;

/* $DDBST_ENDPOINT, or NULL when it is unset or empty. */
const char *itest_endpoint(void);

/* A client for $DDBST_ENDPOINT, signing with AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_REGION. NULL when the environment lacks one
 * of them or libcurl cannot start; `why` (may be NULL) then says which.
 * Free with itest_client_free. Not thread-safe: one client per thread. */
itest_client *itest_client_new(char *why, size_t why_len);
void itest_client_free(itest_client *c);

/* Sends `body` (`len` bytes) as DynamoDB_20120810.`operation` ("PutItem",
 * "Query", "DescribeTable", ...). Returns the HTTP status, or -1 when no
 * answer came (the body then holds libcurl's message). The response body is
 * NUL-terminated and valid until the next call. */
long itest_client_send(itest_client *c, const char *operation,
                       const char *body, size_t len);
const char *itest_client_body(const itest_client *c);
size_t itest_client_body_len(const itest_client *c);

#endif
