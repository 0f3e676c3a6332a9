/* Every answer kind through the page parser (issue 22 target 1 and 6): a
 * DynamoDB Streams event of 100 records with both images, a GetItem answer,
 * a BatchGetItem answer of 100 items, a TransactGetItems answer and a
 * cancelled TransactWriteItems (the unique email taken). Inputs are Projects
 * and Users of the SaaS model, generated here; each row checks what it
 * parsed before it is timed, and allocates nothing once warm. Built with
 * DDBST_BENCH_PAGES. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { RECORDS = 100, BATCH_ITEMS = 100, TRANSACT_GETS = 4 };

static struct {
  ddbst_page *page;
  ddbst_stream *stream;
  ddbst_item *project, *user;
  char *stream_event, *get_answer, *batch_answer, *transact_answer,
      *canceled_answer;
  size_t stream_len, get_len, batch_len, transact_len, canceled_len;
} A;

/* A growing text: the inputs are built once, outside timing. */
typedef struct text {
  char *data;
  size_t len, cap;
} text;

__attribute__((format(printf, 2, 3)))
static void put(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) bench_fail("bench_answers input", DDBST_EINVAL, NULL);
    if ((size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap * 2 + (size_t)n + 1;
    t->data = realloc(t->data, t->cap);
    if (!t->data) bench_fail("bench_answers input", DDBST_ENOMEM, NULL);
  }
}

/* Project `i` as DynamoDB stores it, keys and entity attribute included. */
static void project_image(text *t, int i, const char *status) {
  put(t,
      "{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":{\"S\":\"PROJECT#"
      "2026-03-14T09:%02d:00Z#p-%04d\"},\"GSI2PK\":{\"S\":\"STATUS#%s\"},"
      "\"GSI2SK\":{\"S\":\"2026-03-14T09:%02d:00Z\"},\"_type\":{\"S\":"
      "\"Project\"},\"orgId\":{\"S\":\"" BENCH_ORG "\"},\"projectId\":{\"S\":"
      "\"p-%04d\"},\"createdAt\":{\"S\":\"2026-03-14T09:%02d:00Z\"},\"name\":"
      "{\"S\":\"Website relaunch %d\"},\"status\":{\"S\":\"%s\"}}",
      i % 60, i, status, i % 60, i, i % 60, i, status);
}

static void user_image(text *t) {
  put(t,
      "{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":{\"S\":\"USER#" BENCH_USER_ID
      "\"},\"GSI1PK\":{\"S\":\"EMAIL#ann.lee@example.com\"},\"_type\":{\"S\":"
      "\"User\"},\"orgId\":{\"S\":\"" BENCH_ORG "\"},\"userId\":{\"S\":\""
      BENCH_USER_ID "\"},\"email\":{\"S\":\"ann.lee@example.com\"},\"role\":"
      "{\"S\":\"" BENCH_ROLE "\"},\"name\":{\"S\":\"" BENCH_USER_NAME "\"}}");
}

/* What Lambda hands a handler: MODIFYs, each archiving a Project. */
char *bench_make_stream_event(int records, size_t *len) {
  text t = {0};
  put(&t, "{\"Records\":[");
  for (int i = 0; i < records; i++) {
    put(&t,
        "%s{\"eventID\":\"c4ca4238a0b923820dcc509a6f75%04d\",\"eventName\":"
        "\"MODIFY\",\"eventVersion\":\"1.1\",\"eventSource\":\"aws:dynamodb\","
        "\"awsRegion\":\"eu-west-1\",\"dynamodb\":{\"ApproximateCreationDateTime"
        "\":1773478800,\"Keys\":{\"PK\":{\"S\":\"ORG#" BENCH_ORG "\"},\"SK\":"
        "{\"S\":\"PROJECT#2026-03-14T09:%02d:00Z#p-%04d\"}},\"NewImage\":",
        i ? "," : "", i, i % 60, i);
    project_image(&t, i, "archived");
    put(&t, ",\"OldImage\":");
    project_image(&t, i, "active");
    put(&t,
        ",\"SequenceNumber\":\"4000000000000%08d\",\"SizeBytes\":412,"
        "\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"},\"eventSourceARN\":"
        "\"arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev/stream/"
        "2026-03-14T09:00:00.000\"}",
        i);
  }
  put(&t, "]}");
  *len = t.len;
  return t.data;
}

static void make_answers(void) {
  text t = {0};
  put(&t, "{\"Item\":");
  project_image(&t, 1, "active");
  put(&t, "}");
  A.get_answer = t.data;
  A.get_len = t.len;

  t = (text){0};
  put(&t, "{\"Responses\":{\"saas-api-dev\":[");
  for (int i = 0; i < BATCH_ITEMS; i++) {
    if (i) put(&t, ",");
    project_image(&t, i, i % 3 ? "active" : "archived");
  }
  put(&t, "]},\"UnprocessedKeys\":{}}");
  A.batch_answer = t.data;
  A.batch_len = t.len;

  /* A Project, its owner, one that is gone (an empty slot), another. */
  t = (text){0};
  put(&t, "{\"Responses\":[{\"Item\":");
  project_image(&t, 1, "active");
  put(&t, "},{\"Item\":");
  user_image(&t);
  put(&t, "},{},{\"Item\":");
  project_image(&t, 2, "archived");
  put(&t, "}]}");
  A.transact_answer = t.data;
  A.transact_len = t.len;

  /* create_user's transaction refused: the email's guard item is taken. */
  t = (text){0};
  put(&t,
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
      "TransactionCanceledException\",\"CancellationReasons\":[{\"Code\":"
      "\"None\"},{\"Code\":\"ConditionalCheckFailed\",\"Message\":"
      "\"The conditional request failed\"}],\"Message\":\"Transaction "
      "cancelled, please refer cancellation reasons for specific reasons "
      "[None, ConditionalCheckFailed]\"}");
  A.canceled_answer = t.data;
  A.canceled_len = t.len;
}

/* Each record's new and old image read typed: what a handler does. */
static int op_parse_stream_100(bench_ctx *c) {
  (void)c;
  int n = ddbst_stream_parse(A.stream, A.stream_event, A.stream_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_stream_image(A.stream, i, DDBST_IMAGE_NEW, A.project, NULL);
    if (rc < 0) return rc;
    rc = ddbst_stream_image(A.stream, i, DDBST_IMAGE_OLD, A.project, NULL);
    if (rc < 0) return rc;
  }
  return n;
}

static int op_parse_get_item(bench_ctx *c) {
  (void)c;
  int n = ddbst_page_parse(A.page, DDBST_OP_GET_ITEM, A.get_answer, A.get_len,
                           NULL);
  return n == 1 ? ddbst_page_item(A.page, 0, A.project, NULL) : n;
}

static int op_parse_batch_get_100(bench_ctx *c) {
  (void)c;
  int n = ddbst_page_parse(A.page, DDBST_OP_BATCH_GET_ITEM, A.batch_answer,
                           A.batch_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(A.page, i, A.project, NULL);
    if (rc < 0) return rc;
  }
  return n;
}

static int op_parse_transact_get(bench_ctx *c) {
  int n = ddbst_page_parse(A.page, DDBST_OP_TRANSACT_GET_ITEMS,
                           A.transact_answer, A.transact_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(A.page, i,
                             ddbst_page_item_entity(A.page, i) == c->user
                                 ? A.user
                                 : A.project,
                             NULL);
    if (rc < 0 && rc != DDBST_ENOTFOUND) return rc;
  }
  return n;
}

/* The error body and the reason of the operation that failed. */
static int op_parse_transact_canceled(bench_ctx *c) {
  (void)c;
  int kind = ddbst_page_parse_error(A.page, A.canceled_answer, A.canceled_len,
                                    NULL);
  if (kind < 0) return kind;
  return ddbst_page_reason(A.page, 1, NULL, NULL);
}

/* Exits unless `attribute` of `item` reads `want`. */
static void expect_value(const char *row, ddbst_item *item, int attribute,
                         const char *want) {
  const char *got = NULL;
  size_t len = 0;
  if (ddbst_item_get(item, attribute, &got, &len) != 1 || strcmp(got, want)) {
    fprintf(stderr, "ddbst_bench: %s read \"%s\", not \"%s\"\n", row,
            got ? got : "(unset)", want);
    exit(1);
  }
}

static void expect(const char *row, int got, int want) {
  if (got != want) {
    fprintf(stderr, "ddbst_bench: %s gave %d, not %d\n", row, got, want);
    exit(1);
  }
}

/* Every row's answer parsed and read back once, checked, before timing. */
static void check_rows(bench_ctx *c) {
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_stream_parse(A.stream, A.stream_event, A.stream_len, &err);
  if (rc < 0) bench_fail("ddbst_stream_parse", rc, &err);
  expect("parse_stream_100 (records)", rc, RECORDS);
  expect("parse_stream_100 (event)", ddbst_stream_event(A.stream, 99),
         DDBST_STREAM_MODIFY);
  rc = ddbst_stream_image(A.stream, 99, DDBST_IMAGE_NEW, A.project, &err);
  if (rc < 0) bench_fail("ddbst_stream_image", rc, &err);
  expect("parse_stream_100 (entity)", rc, c->project);
  expect_value("parse_stream_100 (new)", A.project, c->p_status, "archived");
  expect_value("parse_stream_100 (new)", A.project, c->p_name,
               "Website relaunch 99");
  rc = ddbst_stream_image(A.stream, 99, DDBST_IMAGE_OLD, A.project, &err);
  if (rc < 0) bench_fail("ddbst_stream_image", rc, &err);
  expect_value("parse_stream_100 (old)", A.project, c->p_status, "active");

  rc = ddbst_page_parse(A.page, DDBST_OP_GET_ITEM, A.get_answer, A.get_len,
                        &err);
  if (rc < 0) bench_fail("ddbst_page_parse (GetItem)", rc, &err);
  expect("parse_get_item (items)", rc, 1);
  expect("parse_get_item (entity)", op_parse_get_item(c), c->project);
  expect_value("parse_get_item", A.project, c->p_id, "p-0001");

  rc = ddbst_page_parse(A.page, DDBST_OP_BATCH_GET_ITEM, A.batch_answer,
                        A.batch_len, &err);
  if (rc < 0) bench_fail("ddbst_page_parse (BatchGetItem)", rc, &err);
  expect("parse_batch_get_100 (items)", op_parse_batch_get_100(c),
         BATCH_ITEMS);
  expect_value("parse_batch_get_100", A.project, c->p_name,
               "Website relaunch 99");
  expect("parse_batch_get_100 (unprocessed)",
         ddbst_page_followup_request(A.page, c->out, NULL), 0);

  rc = ddbst_page_parse(A.page, DDBST_OP_TRANSACT_GET_ITEMS,
                        A.transact_answer, A.transact_len, &err);
  if (rc < 0) bench_fail("ddbst_page_parse (TransactGetItems)", rc, &err);
  expect("parse_transact_get (slots)", op_parse_transact_get(c),
         TRANSACT_GETS);
  expect("parse_transact_get (slot 1)", ddbst_page_item_entity(A.page, 1),
         c->user);
  expect("parse_transact_get (slot 2)", ddbst_page_item_entity(A.page, 2),
         DDBST_ENOTFOUND);
  expect_value("parse_transact_get", A.user, c->u_email,
               "ann.lee@example.com");

  rc = ddbst_page_parse_error(A.page, A.canceled_answer, A.canceled_len, &err);
  if (rc < 0) bench_fail("ddbst_page_parse_error", rc, &err);
  expect("parse_transact_canceled (kind)", rc, DDBST_DDB_TRANSACTION_CANCELED);
  expect("parse_transact_canceled (reasons)", ddbst_page_reason_count(A.page),
         2);
  expect("parse_transact_canceled (reason 1)", op_parse_transact_canceled(c),
         DDBST_DDB_CONDITIONAL_CHECK_FAILED);
}

void bench_answers(bench_ctx *c) {
  A.page = ddbst_page_new(c->model);
  A.stream = ddbst_stream_new(c->model);
  A.project = ddbst_item_new(c->model, c->project);
  A.user = ddbst_item_new(c->model, c->user);
  if (!A.page || !A.stream || !A.project || !A.user)
    bench_fail("bench_answers setup", DDBST_ENOMEM, NULL);
  A.stream_event = bench_make_stream_event(RECORDS, &A.stream_len);
  make_answers();
  check_rows(c);

  bench_run(c, "parse_stream_100",
            "a stream event of 100 MODIFYs -> new + old images typed",
            op_parse_stream_100, 200, A.stream_len);
  bench_run(c, "parse_get_item", "a GetItem answer -> a typed Project",
            op_parse_get_item, 10000, 0);
  bench_run(c, "parse_batch_get_100",
            "a BatchGetItem answer of 100 Projects -> typed items",
            op_parse_batch_get_100, 500, A.batch_len);
  bench_run(c, "parse_transact_get",
            "a TransactGetItems answer of 4 slots (1 empty) -> typed",
            op_parse_transact_get, 10000, 0);
  bench_run(c, "parse_transact_canceled",
            "create_user's TransactionCanceledException + its reason",
            op_parse_transact_canceled, 10000, 0);

  ddbst_page_free(A.page);
  ddbst_stream_free(A.stream);
  ddbst_item_free(A.project);
  ddbst_item_free(A.user);
  free(A.stream_event);
  free(A.get_answer);
  free(A.batch_answer);
  free(A.transact_answer);
  free(A.canceled_answer);
}
