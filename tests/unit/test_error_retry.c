/* Which of DynamoDB's error answers are worth sending again: each __type
 * of DynamoDB's error reference and of the common errors every AWS
 * service answers with, its kind, and ddbst_page_error_retryable. */
#include "support.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *type; /* as the body's __type names it */
  int kind;
  int retryable;
} errors[] = {
    /* HTTP 400 that DynamoDB's reference says to retry */
    {"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
     DDBST_DDB_THROTTLED, 1},
    {"com.amazonaws.dynamodb.v20120810#RequestLimitExceeded",
     DDBST_DDB_THROTTLED, 1},
    {"com.amazon.coral.availability#ThrottlingException", DDBST_DDB_THROTTLED,
     1},
    {"com.amazonaws.dynamodb.v20120810#LimitExceededException",
     DDBST_DDB_THROTTLED, 1},
    {"com.amazonaws.dynamodb.v20120810#TransactionConflictException",
     DDBST_DDB_TRANSACTION_CONFLICT, 1},
    {"com.amazonaws.dynamodb.v20120810#ReplicatedWriteConflictException",
     DDBST_DDB_TRANSACTION_CONFLICT, 1},
    {"com.amazonaws.dynamodb.v20120810#TransactionInProgressException",
     DDBST_DDB_TRANSACTION_IN_PROGRESS, 1},
    /* HTTP 500 and 503: DynamoDB's names and the common errors' */
    {"com.amazonaws.dynamodb.v20120810#InternalServerError",
     DDBST_DDB_INTERNAL, 1},
    {"com.amazon.coral.service#InternalFailure", DDBST_DDB_INTERNAL, 1},
    {"com.amazon.coral.availability#ServiceUnavailable", DDBST_DDB_INTERNAL, 1},
    {"ServiceUnavailableException", DDBST_DDB_INTERNAL, 1},
    /* the request itself is wrong: sending it again fails again */
    {"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
     DDBST_DDB_CONDITIONAL_CHECK_FAILED, 0},
    {"com.amazon.coral.validate#ValidationException", DDBST_DDB_VALIDATION, 0},
    {"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
     DDBST_DDB_RESOURCE_NOT_FOUND, 0},
    {"com.amazonaws.dynamodb.v20120810#ItemCollectionSizeLimitExceededException",
     DDBST_DDB_ITEM_COLLECTION_SIZE_LIMIT, 0},
    {"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException",
     DDBST_DDB_IDEMPOTENT_PARAMETER_MISMATCH, 0},
    {"com.amazon.coral.service#AccessDeniedException", DDBST_DDB_ACCESS_DENIED,
     0},
    {"com.amazon.coral.service#InvalidSignatureException",
     DDBST_DDB_ACCESS_DENIED, 0},
    /* an exception ddbst does not know: not retried blindly */
    {"com.amazonaws.dynamodb.v20120810#ResourceInUseException", DDBST_DDB_OTHER,
     0},
};

static void each_type_its_kind_and_retry(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_page *page = ddbst_page_new(m);
  assert_non_null(page);
  ddbst_error err;
  char body[256];
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
    int n = snprintf(body, sizeof body,
                     "{\"__type\":\"%s\",\"message\":\"try later\"}",
                     errors[i].type);
    assert_true(n > 0 && (size_t)n < sizeof body);
    int kind = ddbst_page_parse_error(page, body, (size_t)n, &err);
    if (kind != errors[i].kind || ddbst_page_error_retryable(page) !=
                                      errors[i].retryable)
      fail_msg("%s: kind %d retryable %d", errors[i].type, kind,
               ddbst_page_error_retryable(page));
    /* the same answer given to a Query's parse: EDYNAMODB, kind kept */
    assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, body, (size_t)n,
                                      &err),
                     DDBST_EDYNAMODB);
    assert_int_equal(ddbst_page_error_kind(page), errors[i].kind);
    assert_int_equal(ddbst_page_error_retryable(page), errors[i].retryable);
  }
  ddbst_page_free(page);
  ddbst_model_free(m);
}

/* A cancellation is retried only when contention alone caused it. */
static void cancellations(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_page *page = ddbst_page_new(m);
  static const struct {
    const char *reasons;
    int retryable;
  } cases[] = {
      {"{\"Code\":\"None\"},{\"Code\":\"TransactionConflict\"}", 1},
      {"{\"Code\":\"ThrottlingError\"},{\"Code\":\"ProvisionedThroughputExceeded\"}", 1},
      {"{\"Code\":\"TransactionConflict\"},{\"Code\":\"ConditionalCheckFailed\"}", 0},
      {"{\"Code\":\"None\"},{\"Code\":\"ValidationError\"}", 0},
      {"{\"Code\":\"None\"},{\"Code\":\"None\"}", 0},
  };
  ddbst_error err;
  char body[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int n = snprintf(body, sizeof body,
                     "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
                     "TransactionCanceledException\",\"CancellationReasons\":"
                     "[%s]}",
                     cases[i].reasons);
    assert_int_equal(ddbst_page_parse_error(page, body, (size_t)n, &err),
                     DDBST_DDB_TRANSACTION_CANCELED);
    if (ddbst_page_error_retryable(page) != cases[i].retryable)
      fail_msg("[%s]: retryable %d", cases[i].reasons,
               ddbst_page_error_retryable(page));
  }
  /* no error held: nothing to retry; a body that is no error body (a
   * proxy's 503 page) is refused and leaves none */
  static const char proxy[] = "<html>503 Service Temporarily Unavailable</html>";
  assert_true(ddbst_page_parse_error(page, proxy, strlen(proxy), &err) < 0);
  assert_int_equal(ddbst_page_error_kind(page), DDBST_DDB_NONE);
  assert_int_equal(ddbst_page_error_retryable(page), 0);
  assert_int_equal(ddbst_page_error_retryable(NULL), 0);
  ddbst_page_free(page);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_type_its_kind_and_retry),
      cmocka_unit_test(cancellations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
