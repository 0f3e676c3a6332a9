/* The JSON entry half of ddbst_bench: what the Node and Python bindings pay
 * per call before their own language's cost, one ddbst_json_call (request
 * text in, answer text out, freed) per operation, on a session of the SaaS
 * model with a sealing key. The same operations as the typed rows they are
 * named after (put_project, query_cursor, a page of 100 items parsed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NOW_TEXT "1773478800000000" /* BENCH_NOW */

static struct {
  ddbst_json *session;
  char *page_request; /* {"op":"page",...,"response":"<100 items>"} */
  size_t page_request_len;
  char query_cursor[1024]; /* {"op":"query",...,"cursor":"..."} */
  size_t query_cursor_len;
  const char *cursor; /* the cursor alone, inside query_cursor */
  size_t cursor_len;
  ddbst_prepared *put, *query, *update; /* the same ops prepared (no JSON) */
  /* {"op":"stream","event":"<records>"}: 100 (115 KB: read a slice of
   * records at a time, its text in the arena) and 25 (read whole) */
  char *stream_request, *stream25_request;
  size_t stream_request_len, stream25_request_len;
  ddbst_json *catalog;         /* a session of the catalog model */
  ddbst_prepared *put_documents; /* its Product, with document values */
} J;

/* Project's attributes in index order (orgId, projectId, createdAt, name,
 * status), as a binding packs them for ddbst_prepared_run. */
static const char put_values[] =
    "=" BENCH_ORG "\0=" BENCH_PROJECT_ID "\0=" BENCH_CREATED
    "\0=" BENCH_PROJECT_NAME "\0=active";
/* update_project_status's: the key's facets, status SET, name unset */
static const char update_values[] =
    "=" BENCH_ORG "\0=" BENCH_PROJECT_ID "\0=" BENCH_CREATED "\0\0=archived";
/* The catalog's Product in index order, with a value of each document
 * type (a string set, a number set, a list holding a map, a map holding a
 * list): JSON text each, converted when set. */
static const char product_values[] =
    "=s1\0=k1\0=Hat\0=hats\0=hat\0=published\0=19.5\0=3\0=true\0"
    "=[\"sale\",\"new\"]\0=[1,2.5]\0=[\"front.png\",{\"w\":2,\"at\":[\"a\"]}]\0"
    "={\"colour\":\"red\",\"dims\":{\"w\":1,\"h\":[2,3]}}\0\0"
    "=2026-03-14T09:00:00Z\0\0\0";
/* the pattern's entity is Project: its partition facet, four unset */
static const char query_values[] = "=" BENCH_ORG "\0\0\0\0";

static const char put_request[] =
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"" BENCH_ORG
    "\",\"projectId\":\"" BENCH_PROJECT_ID "\",\"createdAt\":\"" BENCH_CREATED
    "\",\"name\":\"" BENCH_PROJECT_NAME "\",\"status\":\"active\"},\"now\":"
    NOW_TEXT "}";

/* put_conditional's: the condition as text, compiled per call */
static const char put_conditional_request[] =
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"" BENCH_ORG
    "\",\"projectId\":\"" BENCH_PROJECT_ID "\",\"createdAt\":\"" BENCH_CREATED
    "\",\"name\":\"" BENCH_PROJECT_NAME "\",\"status\":\"active\"},\"condition\":"
    "\"attribute_not_exists(projectId) or status = \\\"archived\\\"\",\"now\":"
    NOW_TEXT "}";

/* A condition in the JSON form whose values are lists and maps: compared
 * whole, listed in an IN, looked for with contains */
static const char put_condition_documents_request[] =
    "{\"op\":\"put\",\"entity\":\"Event\",\"values\":{\"projectId\":\""
    BENCH_PROJECT_ID "\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\",\"type\":\"archived\",\"payload\":{"
    "\"tags\":[\"a\",\"b\"],\"by\":{\"user\":\"u-1\"}}},\"condition\":{"
    "\"or\":[{\"attribute_not_exists\":\"eventId\"},{\"and\":["
    "{\"=\":[\"payload.tags\",[\"a\",\"b\"]]},"
    "{\"in\":[\"payload.by\",{\"value\":{\"user\":\"u-1\"}},{\"value\":{"
    "\"user\":\"u-2\",\"role\":\"admin\"}}]},"
    "{\"contains\":[\"payload.history\",{\"value\":{\"at\":1,\"by\":[\"u-1\"]}}]}"
    "]}]},\"now\":" NOW_TEXT "}";

/* A create's cancellation explained: the unique email was taken (the
 * answer DynamoDB Local gives, tests/data/responses) */
static const char explain_request[] =
    "{\"op\":\"explain\",\"request\":{\"op\":\"create\",\"entity\":\"User\","
    "\"values\":{\"orgId\":\"" BENCH_ORG "\",\"userId\":\"u-2\",\"email\":"
    "\"ann.lee@example.com\",\"role\":\"admin\",\"name\":\"Ann\"}},"
    "\"response\":\"{\\\"__type\\\":\\\"com.amazonaws.dynamodb.v20120810#"
    "TransactionCanceledException\\\",\\\"CancellationReasons\\\":[{"
    "\\\"Code\\\":\\\"None\\\"},{\\\"Code\\\":\\\"ConditionalCheckFailed\\\","
    "\\\"Message\\\":\\\"The conditional request failed\\\"}],\\\"Message\\\":"
    "\\\"Transaction cancelled, please refer cancellation reasons for "
    "specific reasons [None, ConditionalCheckFailed]\\\"}\"}";

/* A transaction of four writes: the project archived if active, its
 * organisation's plan changed, an old project removed, an event put if
 * absent */
static const char transact_request[] =
    "{\"op\":\"transact\",\"now\":" NOW_TEXT ",\"token\":\"bench-1\",\"items\":["
    "{\"op\":\"update\",\"entity\":\"Project\",\"values\":{\"orgId\":\""
    BENCH_ORG "\",\"projectId\":\"" BENCH_PROJECT_ID "\",\"createdAt\":\""
    BENCH_CREATED "\"},\"set\":{\"status\":\"archived\"},\"condition\":"
    "\"status = :s\",\"params\":{\"s\":\"active\"}},"
    "{\"op\":\"update\",\"entity\":\"Organisation\",\"values\":{\"orgId\":\""
    BENCH_ORG "\"},\"set\":{\"plan\":\"pro\"}},"
    "{\"op\":\"delete\",\"entity\":\"Project\",\"values\":{\"orgId\":\""
    BENCH_ORG "\",\"projectId\":\"p-0099\",\"createdAt\":"
    "\"2026-03-14T09:39:00Z\"}},"
    "{\"op\":\"put\",\"entity\":\"Event\",\"values\":{\"projectId\":\""
    BENCH_PROJECT_ID "\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\",\"type\":\"archived\"},\"condition\":"
    "\"attribute_not_exists(eventId)\"}]}";

/* A batchWrite of 25 Projects (one BatchWriteItem, DynamoDB's most) */
static char batch_write_request[25 * 256 + 128];
static size_t batch_write_len;

static const char query_request[] =
    "{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{\"orgId\":\""
    BENCH_ORG "\"},\"limit\":25}";

/* One call, its answer freed: an error answer fails the bench (in warm-up). */
static int json_call(const char *request, size_t len) {
  size_t n = 0;
  char *answer = ddbst_json_call(J.session, request, len, &n);
  int rc = n > 9 && !memcmp(answer, "{\"error\":", 9) ? DDBST_EINVAL : 0;
  if (rc) fprintf(stderr, "ddbst_bench: %s\n", answer);
  ddbst_json_free(answer);
  return rc;
}

static int op_json_put(bench_ctx *c) {
  (void)c;
  return json_call(put_request, sizeof put_request - 1);
}

static int op_json_put_conditional(bench_ctx *c) {
  (void)c;
  return json_call(put_conditional_request, sizeof put_conditional_request - 1);
}

static int op_json_put_condition_documents(bench_ctx *c) {
  (void)c;
  return json_call(put_condition_documents_request,
                   sizeof put_condition_documents_request - 1);
}

static int op_json_explain(bench_ctx *c) {
  (void)c;
  return json_call(explain_request, sizeof explain_request - 1);
}

static int op_json_transact(bench_ctx *c) {
  (void)c;
  return json_call(transact_request, sizeof transact_request - 1);
}

static int op_json_batch_write_25(bench_ctx *c) {
  (void)c;
  return json_call(batch_write_request, batch_write_len);
}

static int op_json_stream_100(bench_ctx *c) {
  (void)c;
  return json_call(J.stream_request, J.stream_request_len);
}

static int op_json_stream_25(bench_ctx *c) {
  (void)c;
  return json_call(J.stream25_request, J.stream25_request_len);
}

static int op_json_query(bench_ctx *c) {
  (void)c;
  return json_call(query_request, sizeof query_request - 1);
}

static int op_json_query_cursor(bench_ctx *c) {
  (void)c;
  return json_call(J.query_cursor, J.query_cursor_len);
}

static int op_prepared_put(bench_ctx *c) {
  (void)c;
  int rc = ddbst_prepared_run(J.put, put_values, sizeof put_values, 0, NULL, 0,
                              BENCH_NOW, NULL);
  return rc < 0 ? rc : 0;
}

static int op_prepared_put_documents(bench_ctx *c) {
  (void)c;
  int rc = ddbst_prepared_run(J.put_documents, product_values,
                              sizeof product_values, 0, NULL, 0, BENCH_NOW,
                              NULL);
  return rc < 0 ? rc : 0;
}

static int op_prepared_update(bench_ctx *c) {
  (void)c;
  int rc = ddbst_prepared_run(J.update, update_values, sizeof update_values, 0,
                              NULL, 0, BENCH_NOW, NULL);
  return rc < 0 ? rc : 0;
}

static int op_prepared_query_cursor(bench_ctx *c) {
  (void)c;
  int rc = ddbst_prepared_run(J.query, query_values, sizeof query_values, 25,
                              J.cursor, J.cursor_len, BENCH_NOW, NULL);
  return rc < 0 ? rc : 0;
}

static int op_json_page_100(bench_ctx *c) {
  (void)c;
  return json_call(J.page_request, J.page_request_len);
}

/* `text` as the body of a JSON string (its quotes and backslashes escaped:
 * the generated page holds no control characters). */
static size_t escape_into(char *out, const char *text, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '"' || text[i] == '\\') out[n++] = '\\';
    out[n++] = text[i];
  }
  return n;
}

/* {"op":"stream","event":"<an event of `records`>"}, malloc'd. */
static char *stream_request(int records, size_t *len) {
  size_t event_len;
  char *event = bench_make_stream_event(records, &event_len);
  static const char head[] = "{\"op\":\"stream\",\"event\":\"";
  char *r = malloc(sizeof head + 2 * event_len + 2);
  if (!r) bench_fail("bench_json setup", DDBST_ENOMEM, NULL);
  memcpy(r, head, sizeof head - 1);
  size_t n = sizeof head - 1;
  n += escape_into(r + n, event, event_len);
  memcpy(r + n, "\"}", 3);
  *len = n + 2;
  free(event);
  return r;
}

void bench_json(bench_ctx *c) {
  static const char config[] =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","
      "\"cursorKeys\":\"00112233445566778899aabbccddeeff"
      "0123456789abcdeffedcba9876543210\"}";
  char *error = NULL;
  J.session = ddbst_json_open(config, sizeof config - 1, &bench_allocator,
                              &error);
  if (!J.session) {
    fprintf(stderr, "ddbst_bench: ddbst_json_open: %s\n", error);
    ddbst_json_free(error);
    exit(1);
  }
  size_t page_len;
  int items;
  char *page = bench_make_page(1 << 20, 100, &page_len, &items);
  static const char head[] =
      "{\"op\":\"page\",\"pattern\":\"listProjects\",\"values\":{\"orgId\":\""
      BENCH_ORG "\"},\"now\":" NOW_TEXT ",\"response\":\"";
  J.page_request = page ? malloc(sizeof head + 2 * page_len + 2) : NULL;
  if (!J.page_request || items != 100)
    bench_fail("bench_json setup", DDBST_ENOMEM, NULL);
  memcpy(J.page_request, head, sizeof head - 1);
  size_t n = sizeof head - 1;
  n += escape_into(J.page_request + n, page, page_len);
  memcpy(J.page_request + n, "\"}", 3);
  J.page_request_len = n + 2;
  free(page);

  J.stream_request = stream_request(100, &J.stream_request_len);
  J.stream25_request = stream_request(25, &J.stream25_request_len);

  size_t b = (size_t)snprintf(batch_write_request, sizeof batch_write_request,
                              "{\"op\":\"batchWrite\",\"now\":" NOW_TEXT
                              ",\"items\":[");
  for (int i = 0; i < 25; i++)
    b += (size_t)snprintf(
        batch_write_request + b, sizeof batch_write_request - b,
        "%s{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":"
        "\"" BENCH_ORG "\",\"projectId\":\"p-%04d\",\"createdAt\":"
        "\"2026-03-14T09:%02d:00Z\",\"name\":\"Website relaunch %d\","
        "\"status\":\"active\"}}",
        i ? "," : "", i, i % 60, i);
  b += (size_t)snprintf(batch_write_request + b,
                        sizeof batch_write_request - b, "]}");
  if (b >= sizeof batch_write_request)
    bench_fail("bench_json setup (batch)", DDBST_ERANGE, NULL);
  batch_write_len = b;

  /* The page's cursor, for the query of the next page. */
  size_t alen;
  char *answer = ddbst_json_call(J.session, J.page_request,
                                 J.page_request_len, &alen);
  const char *cur = strstr(answer, "\"cursor\":\"");
  const char *end = cur ? strchr(cur + 10, '"') : NULL;
  int qn = end ? snprintf(J.query_cursor, sizeof J.query_cursor,
                          "{\"op\":\"query\",\"pattern\":\"listProjects\","
                          "\"values\":{\"orgId\":\"" BENCH_ORG "\"},"
                          "\"limit\":25,\"now\":" NOW_TEXT ",\"cursor\":\"%.*s\"}",
                          (int)(end - cur - 10), cur + 10)
               : -1;
  ddbst_json_free(answer);
  if (qn < 0 || (size_t)qn >= sizeof J.query_cursor)
    bench_fail("bench_json: the page's cursor", DDBST_EINVAL, NULL);
  J.query_cursor_len = (size_t)qn;
  J.cursor = strstr(J.query_cursor, "\"cursor\":\"") + 10;
  J.cursor_len = J.query_cursor_len - 2 - (size_t)(J.cursor - J.query_cursor);
  ddbst_error err;
  J.put = ddbst_prepared_new(J.session, DDBST_OP_PUT_ITEM, "Project", 0, &err);
  J.query = ddbst_prepared_new(J.session, DDBST_OP_QUERY, "listProjects", 0,
                               &err);
  J.update =
      ddbst_prepared_new(J.session, DDBST_OP_UPDATE_ITEM, "Project", 0, &err);
  if (!J.put || !J.query || !J.update)
    bench_fail("bench_json: prepare", err.code, &err);
  static const char catalog[] =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/catalog/model.json\"}";
  J.catalog = ddbst_json_open(catalog, sizeof catalog - 1, &bench_allocator,
                              &error);
  if (!J.catalog) {
    fprintf(stderr, "ddbst_bench: ddbst_json_open: %s\n", error);
    ddbst_json_free(error);
    exit(1);
  }
  J.put_documents =
      ddbst_prepared_new(J.catalog, DDBST_OP_PUT_ITEM, "Product", 0, &err);
  if (!J.put_documents) bench_fail("bench_json: prepare", err.code, &err);

  bench_run(c, "json_put", "put_project through ddbst_json_call (text in, out)",
            op_json_put, 5000, 0);
  bench_run(c, "json_put_conditional",
            "put_conditional through ddbst_json_call (its condition as text)",
            op_json_put_conditional, 5000, 0);
  bench_run(c, "json_put_condition_documents",
            "a put whose JSON-form condition compares lists and maps, "
            "ddbst_json_call",
            op_json_put_condition_documents, 5000, 0);
  bench_run(c, "json_explain",
            "create_user's cancellation (the email taken) explained, "
            "ddbst_json_call",
            op_json_explain, 5000, 0);
  bench_run(c, "json_transact",
            "4 writes (2 with conditions) in one TransactWriteItems, "
            "ddbst_json_call",
            op_json_transact, 2000, 0);
  bench_run(c, "json_batch_write_25",
            "25 Project puts in one BatchWriteItem, ddbst_json_call",
            op_json_batch_write_25, 1000, 0);
  bench_run(c, "json_stream_100",
            "a stream event of 100 MODIFYs -> records, ddbst_json_call",
            op_json_stream_100, 100, J.stream_request_len);
  bench_run(c, "json_stream_25",
            "a stream event of 25 MODIFYs -> records, ddbst_json_call",
            op_json_stream_25, 400, J.stream25_request_len);
  bench_run(c, "json_query", "query_first_page through ddbst_json_call",
            op_json_query, 5000, 0);
  bench_run(c, "json_query_cursor", "query_cursor through ddbst_json_call",
            op_json_query_cursor, 2000, 0);
  bench_run(c, "json_page_100",
            "a 100-item Query page -> items + next cursor, ddbst_json_call",
            op_json_page_100, 100, J.page_request_len);
  bench_run(c, "prepared_put",
            "put_project through ddbst_prepared_run (packed values in, body)",
            op_prepared_put, 5000, 0);
  bench_run(c, "prepared_put_documents",
            "a Product with a set of each kind, a list and a map, "
            "through ddbst_prepared_run",
            op_prepared_put_documents, 5000, 0);
  bench_run(c, "prepared_update",
            "update_project_status through ddbst_prepared_run",
            op_prepared_update, 5000, 0);
  bench_run(c, "prepared_query_cursor",
            "query_cursor through ddbst_prepared_run", op_prepared_query_cursor,
            2000, 0);

  ddbst_prepared_free(J.put);
  ddbst_prepared_free(J.query);
  ddbst_prepared_free(J.update);
  ddbst_prepared_free(J.put_documents);
  ddbst_json_close(J.catalog);
  ddbst_json_close(J.session);
  free(J.page_request);
  free(J.stream_request);
  free(J.stream25_request);
}
