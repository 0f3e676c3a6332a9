/* The JSON entry's scratch (src/ffi/session.c): the buffers, the item,
 * the request's arena and its parse's arrays a call leaves for the next. A
 * warm call allocates only its answer, nothing of one request reaches the
 * next (every answer of every kind equals a fresh session's, after failing
 * calls and huge requests too), and what is kept stays bounded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define CONFIG                                                                 \
  "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","          \
  "\"cursorKeys\":\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b"  \
  "1c1d1e1f\"}"

static const char put[] =
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":"
    "\"Website\",\"status\":\"active\"},\"now\":1773478800000000}";

/* Requests whose items carry the most (a condition, parameters, an
 * expected version, previous values, a projection), between plain ones. */
static const char *const requests[] = {
    put,
    "{\"op\":\"update\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"},\"set\":{"
    "\"status\":\"archived\"},\"previous\":{\"status\":\"active\"},"
    "\"condition\":\"name = :n\",\"params\":{\"n\":\"Website\"},"
    "\"now\":1773478800000000}",
    put,
    "{\"op\":\"get\",\"entity\":\"User\",\"values\":{\"orgId\":\"acme\","
    "\"userId\":\"u-1\"},\"project\":[\"email\"]}",
    "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
    "\"acme\"},\"project\":[\"name\"],\"limit\":5}",
    "{\"op\":\"query\",\"pattern\":\"listUsers\",\"values\":{\"orgId\":"
    "\"acme\"}}",
    put,
    "{\"op\":\"get\",\"entity\":\"User\",\"values\":{\"orgId\":\"acme\","
    "\"userId\":\"u-1\"}}",
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\"}}",
    put,
    /* every other kind */
    "{\"op\":\"create\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
    "\"userId\":\"9\",\"email\":\"A@b.c\",\"role\":\"admin\",\"name\":"
    "\"Ann\"},\"now\":1773478800000000}",
    "{\"op\":\"delete\",\"entity\":\"Organisation\",\"values\":{"
    "\"orgId\":\"1\"},\"ifExists\":true}",
    "{\"op\":\"transact\",\"token\":\"t-1\",\"items\":[{\"op\":"
    "\"check\",\"entity\":\"Organisation\",\"values\":{\"orgId\":\"1\"}},"
    "{\"op\":\"delete\",\"entity\":\"Project\",\"values\":{\"orgId\":"
    "\"1\",\"projectId\":\"p1\",\"createdAt\":\"2026-03-14T09:00:00Z\"}}]}",
    "{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":"
    "\"Organisation\",\"values\":{\"orgId\":\"1\"}},{\"op\":\"get\","
    "\"entity\":\"User\",\"values\":{\"orgId\":\"1\",\"userId\":\"2\"}}]}",
    "{\"op\":\"batchWrite\",\"now\":1773478800000000,\"items\":[{\"op\":"
    "\"put\",\"entity\":\"Organisation\",\"values\":{\"orgId\":"
    "\"1\",\"name\":\"A\",\"plan\":\"pro\"}},{\"op\":\"delete\","
    "\"entity\":\"Organisation\",\"values\":{\"orgId\":\"2\"}}]}",
    "{\"op\":\"parse\",\"pk\":\"ORG#1\",\"sk\":\"USER#9\"}",
    "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":\"123\","
    "\"userId\":\"9\",\"email\":\"Ann@Example.com\",\"role\":\"admin\","
    "\"name\":\"Ann\"}}",
    "{\"op\":\"itemSize\",\"entity\":\"User\",\"values\":{\"orgId\":"
    "\"1\",\"userId\":\"9\",\"email\":\"a@b.c\",\"role\":\"admin\","
    "\"name\":\"Ann\"}}",
    "{\"op\":\"check\"}",
    "{\"op\":\"patterns\"}",
    "{\"op\":\"createTable\"}",
    "{\"op\":\"describeTable\"}",
    "{\"op\":\"scan\",\"entity\":\"User\",\"limit\":10}",
    "{\"op\":\"version\"}",
    /* expressions, compiled into the call's memory: a condition with a
     * literal and a parameter, one in the JSON form, a filter, conditions
     * in a transaction, update actions on paths into a map */
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":"
    "\"Website\",\"status\":\"active\"},\"condition\":\"attribute_not_exists("
    "name) OR (status = \\\"archived\\\" AND name <> :n)\",\"params\":{\"n\":"
    "\"Old\"},\"now\":1773478800000000}",
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":"
    "\"Website\",\"status\":\"active\"},\"condition\":{\"or\":[{"
    "\"attribute_not_exists\":\"name\"},{\"=\":[\"status\",\"archived\"]}]},"
    "\"now\":1773478800000000}",
    "{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{\"orgId\":"
    "\"acme\"},\"filter\":\"status = \\\"active\\\"\",\"limit\":5}",
    "{\"op\":\"transact\",\"now\":1773478800000000,\"items\":[{\"op\":"
    "\"update\",\"entity\":\"Project\",\"values\":{\"orgId\":\"acme\","
    "\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"},\"set\":{"
    "\"status\":\"archived\"},\"condition\":\"status = :s\",\"params\":{"
    "\"s\":\"active\"}},{\"op\":\"put\",\"entity\":\"Organisation\","
    "\"values\":{\"orgId\":\"acme\",\"name\":\"Acme\",\"plan\":\"pro\"},"
    "\"condition\":\"attribute_not_exists(plan)\"}]}",
    "{\"op\":\"update\",\"entity\":\"Event\",\"values\":{\"projectId\":"
    "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\"},\"update\":\"SET payload.count = "
    "payload.count + :one, payload.tags = list_append(payload.tags, :t)\","
    "\"params\":{\"one\":1,\"t\":[\"x\"]},\"condition\":\"payload.owner = "
    "\\\"ann\\\"\",\"now\":1773478800000000}",
    /* lists and maps: a put of document values (the answer's "values"
     * read back through the call's kept parse), conditions and a filter
     * whose literals are lists and maps, in both forms (compiled in the
     * call's memory, converted on the stack) */
    "{\"op\":\"put\",\"entity\":\"Event\",\"values\":{\"projectId\":"
    "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\",\"type\":\"x\",\"payload\":{\"a\":{"
    "\"b\":[{\"c\":[1,\"two\"]}]},\"tags\":[\"x\"]}},"
    "\"now\":1773478800000000}",
    "{\"op\":\"put\",\"entity\":\"Event\",\"values\":{\"projectId\":"
    "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\",\"type\":\"x\"},\"condition\":{\"or\":["
    "{\"=\":[\"payload.tags\",[\"x\",\"y\"]]},{\"in\":[\"payload.by\","
    "{\"value\":{\"user\":\"u-1\"}},[1,[2]]]},{\"contains\":["
    "\"payload.history\",{\"value\":{\"at\":1,\"by\":[\"u-1\"]}}]}]},"
    "\"now\":1773478800000000}",
    "{\"op\":\"update\",\"entity\":\"Event\",\"values\":{\"projectId\":"
    "\"p1\",\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":"
    "\"01J0000000000000000000000A\"},\"set\":{\"type\":\"y\"},\"condition\":"
    "\"payload.tags = [\\\"x\\\"] or payload.by in ({\\\"user\\\": 1}, [2]) or "
    "payload.m = :m\",\"params\":{\"m\":{\"k\":[1,{\"j\":null}]}},"
    "\"now\":1773478800000000}",
    "{\"op\":\"query\",\"pattern\":\"listEvents\",\"values\":{"
    "\"projectId\":\"p1\"},\"filter\":{\"and\":[{\"in\":[\"payload.tags\","
    "[\"a\"],[\"b\",\"c\"]]},{\"<>\":[\"payload.by\",{\"value\":{\"u\":"
    "[1]}}]}]},\"limit\":5}",
    /* pages of other operations after a query's page, on the kept page */
    "{\"op\":\"page\",\"operation\":\"GetItem\",\"response\":\"{\\\"Item\\\":"
    "{\\\"PK\\\":{\\\"S\\\":\\\"ORG#acme\\\"},\\\"SK\\\":{\\\"S\\\":"
    "\\\"ORG#acme\\\"},\\\"_type\\\":{\\\"S\\\":\\\"Organisation\\\"},"
    "\\\"orgId\\\":{\\\"S\\\":\\\"acme\\\"}}}\"}",
    "{\"op\":\"page\",\"response\":\"{\\\"Items\\\":[],\\\"Count\\\":0,"
    "\\\"ScannedCount\\\":0}\"}",
    "{\"op\":\"page\",\"operation\":\"PutItem\",\"response\":\"{\\\"__type\\\":"
    "\\\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\\\","
    "\\\"message\\\":\\\"The conditional request failed\\\"}\"}",
    /* failing calls: malformed, unknown, refused at a path, too deep, a
     * name twice, not text */
    "{\"op\":\"put\",",
    "{\"op\":\"scna\"}",
    "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":1}}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "{\"op\":\"put\",\"op\":\"get\"}",
    "{\"op\":\"put\",\"entity\":\"Pro\xffject\"}",
    put,
};

/* The answer, copied, with each cursor's text masked: a cursor is sealed
 * with a random nonce, so two sessions never seal the same one. */
static char *answer_of(ddbst_json *s, const char *request, size_t len) {
  char *a = ddbst_json_call(s, request, len, NULL);
  size_t n = strlen(a) + 1;
  char *copy = malloc(n);
  memcpy(copy, a, n);
  ddbst_json_free(a);
  for (char *c = strstr(copy, "\"cursor\":\""); c;
       c = strstr(c + 1, "\"cursor\":\"")) {
    for (c += 10; *c && *c != '"'; c++) *c = '#';
  }
  return copy;
}

/* `text` in `head`...`tail`, malloc'd; `quote` writes it as a JSON string. */
static char *wrap(const char *head, const char *text, size_t len, int quote,
                  const char *tail, size_t *out_len) {
  size_t hn = strlen(head), tn = strlen(tail);
  char *r = malloc(hn + 2 * len + 2 + tn + 1);
  size_t n = 0;
  memcpy(r, head, hn);
  n += hn;
  if (quote) r[n++] = '"';
  for (size_t i = 0; i < len; i++) {
    if (quote && (text[i] == '"' || text[i] == '\\')) r[n++] = '\\';
    if (quote && text[i] == '\n') {
      r[n++] = ' ';
      continue;
    }
    r[n++] = text[i];
  }
  if (quote) r[n++] = '"';
  memcpy(r + n, tail, tn + 1);
  *out_len = n + tn;
  return r;
}

/* Requests that carry a response (a page, a stream event, errors to
 * explain: req[0..2], req[8], req[9]; a large stream event, req[10]) and
 * huge ones (a 2 MB string with escapes, 200,000 elements,
 * a batch of 3,000 writes),
 * each malloc'd; returns how many. */
enum { BIG_REQUESTS = 11 };
static int big_requests(char *req[BIG_REQUESTS], size_t len[BIG_REQUESTS]) {
  size_t n;
  char *page = read_response("local-query-users-page1.json", &n);
  req[0] = wrap("{\"op\":\"page\",\"pattern\":\"listUsers\",\"values\":"
                "{\"orgId\":\"1\"},\"now\":1773478800000000,\"response\":",
                page, n, 1, "}", &len[0]);
  free(page);
  char *event = read_response("local-stream-event.json", &n);
  req[1] = wrap("{\"op\":\"stream\",\"failed\":[1],\"event\":", event, n,
                1, "}", &len[1]);
  free(event);
  char *error = read_response("local-error-cancel-unique.json", &n);
  req[2] = wrap("{\"op\":\"explain\",\"request\":{\"op\":\"create\","
                "\"entity\":\"User\",\"values\":{\"orgId\":\"1\",\"userId\":"
                "\"3\",\"email\":\"ann@x.com\",\"role\":\"admin\",\"name\":"
                "\"Ann\"}},\"response\":",
                error, n, 1, "}", &len[2]);
  /* and a transaction's (its second entry's condition) */
  req[8] = wrap("{\"op\":\"explain\",\"request\":{\"op\":\"transact\","
                "\"items\":[{\"op\":\"delete\",\"entity\":\"Organisation\","
                "\"values\":{\"orgId\":\"1\"}},{\"op\":\"put\",\"entity\":"
                "\"Project\",\"values\":{\"orgId\":\"1\",\"projectId\":\"p-1\","
                "\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":\"W\",\"status\":"
                "\"active\"},\"condition\":\"status = \\\"archived\\\"\"}]},"
                "\"response\":",
                error, n, 1, "}", &len[8]);
  free(error);
  /* a single write's refused condition, explained */
  error = read_response("local-error-conditional.json", &n);
  req[9] = wrap("{\"op\":\"explain\",\"request\":{\"op\":\"put\",\"entity\":"
                "\"Project\",\"values\":{\"orgId\":\"1\",\"projectId\":\"p-1\","
                "\"createdAt\":\"2026-03-14T09:00:00Z\",\"name\":\"W\",\"status\":"
                "\"active\"},\"condition\":{\"in\":[\"status\",\"archived\","
                "\"active\"]}},\"response\":",
                error, n, 1, "}", &len[9]);
  free(error);
  /* a name of 2 MB, with escapes: too big for an item, but read whole */
  size_t big = 2u << 20;
  char *name = malloc(big);
  for (size_t i = 0; i < big; i++) name[i] = i % 64 ? 'a' + i % 26 : '"';
  req[3] = wrap("{\"op\":\"put\",\"entity\":\"Project\",\"values\":{"
                "\"orgId\":\"acme\",\"projectId\":\"p-1\",\"createdAt\":"
                "\"2026-03-14T09:00:00Z\",\"status\":\"active\",\"name\":",
                name, big, 1, "},\"now\":1773478800000000}", &len[3]);
  free(name);
  /* 200,000 names to project, in one array */
  size_t count = 200000, cap = count * 8 + 64;
  char *names = malloc(cap);
  size_t k = 0;
  names[k++] = '[';
  for (size_t i = 0; i < count; i++)
    k += (size_t)snprintf(names + k, cap - k, "%s\"n%zu\"", i ? "," : "",
                          i % 1000);
  names[k++] = ']';
  req[4] = wrap("{\"op\":\"get\",\"entity\":\"User\",\"values\":{"
                "\"orgId\":\"acme\",\"userId\":\"u-1\"},\"project\":",
                names, k, 0, "}", &len[4]);
  free(names);
  /* 4,000 members at each of three levels */
  size_t mcap = 3 * 4000 * 16 + 256, m = 0;
  char *members = malloc(mcap);
  for (int level = 0; level < 3; level++) {
    m += (size_t)snprintf(members + m, mcap - m, "{");
    for (int i = 0; i < 4000; i++)
      m += (size_t)snprintf(members + m, mcap - m, "\"m%d\":%d,", i, i);
  }
  m += (size_t)snprintf(members + m, mcap - m, "\"x\":1}}}");
  req[5] = wrap("{\"op\":\"keys\",\"entity\":\"User\",\"values\":",
                members, m, 0, "}", &len[5]);
  free(members);
  req[6] = wrap("", put, strlen(put), 0, "", &len[6]);
  /* a batch of 3,000 deletes: its buffers, spans and key set outgrow what
   * the scratch keeps */
  size_t dcap = 3000 * 80 + 64, d = 0;
  char *deletes = malloc(dcap);
  for (int i = 0; i < 3000; i++)
    d += (size_t)snprintf(deletes + d, dcap - d,
                          "%s{\"op\":\"delete\",\"entity\":\"Organisation\","
                          "\"values\":{\"orgId\":\"o%d\"}}",
                          i ? "," : "", i);
  req[7] = wrap("{\"op\":\"batchWrite\",\"items\":[", deletes, d, 0, "]}",
                &len[7]);
  free(deletes);
  /* a stream event of 132 records (the event's 11, twelve times): read a
   * slice at a time, its text kept by the arena */
  event = read_response("local-stream-event.json", &n);
  char *open = strchr(event, '['), *close = strrchr(event, ']');
  size_t inner = (size_t)(close - open - 1), e = 0;
  char *records = malloc(12 * (inner + 1) + 16);
  e += (size_t)sprintf(records, "{\"Records\":[");
  for (int i = 0; i < 12; i++) {
    if (i) records[e++] = ',';
    memcpy(records + e, open + 1, inner);
    e += inner;
  }
  e += (size_t)sprintf(records + e, "]}");
  req[10] = wrap("{\"op\":\"stream\",\"event\":", records, e, 1, "}",
                 &len[10]);
  free(records);
  free(event);
  return BIG_REQUESTS;
}

static void same_as_fresh(ddbst_json *warm, const char *request, size_t len,
                          const char *what, size_t i) {
  ddbst_json *fresh = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
  assert_non_null(fresh);
  char *want = answer_of(fresh, request, len);
  char *got = answer_of(warm, request, len);
  if (strcmp(got, want))
    fail_msg("%s %zu\n  got:  %.300s\n  want: %.300s", what, i, got, want);
  free(got);
  free(want);
  ddbst_json_close(fresh);
}

static void nothing_carries_over(void **state) {
  (void)state;
  ddbst_json *warm = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
  assert_non_null(warm);
  char *big[BIG_REQUESTS];
  size_t big_len[BIG_REQUESTS];
  int nbig = big_requests(big, big_len);
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
      same_as_fresh(warm, requests[i], strlen(requests[i]), "request", i);
    for (int i = 0; i < nbig; i++)
      same_as_fresh(warm, big[i], big_len[i], "big request", (size_t)i);
  }
  for (int i = 0; i < nbig; i++) free(big[i]);
  ddbst_json_close(warm);
}

static long calls_of(ddbst_json *s, counting_alloc *ca, const char *request,
                     size_t len) {
  long before = ca->calls;
  char *a = ddbst_json_call(s, request, len, NULL);
  ddbst_json_free(a);
  return ca->calls - before;
}

/* Once warm, each kind's call allocates its answer and nothing else: the
 * request's arena, its tree's arrays, the reader's blocks, the builders'
 * buffers and the item all come from the session's scratch, after a
 * failing call as after a good one. */
static void warm_calls_allocate_only_the_answer(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &ca.hooks, NULL);
  assert_non_null(s);
  char *big[BIG_REQUESTS];
  size_t big_len[BIG_REQUESTS];
  int nbig = big_requests(big, big_len);
  /* a cold put: the scratch, the item, the buffers, the parse */
  long cold = calls_of(s, &ca, put, strlen(put));
  if (cold < 10) fail_msg("a cold put made %ld allocations", cold);
  for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
    (void)calls_of(s, &ca, requests[i], strlen(requests[i])); /* warms */
    long warm = calls_of(s, &ca, requests[i], strlen(requests[i]));
    /* the answer alone: expressions are compiled into the call's memory,
     * and the transaction, the batch and the stream reader are the
     * scratch's */
    if (warm != 1)
      fail_msg("request %zu: %ld allocations once warm", i, warm);
    assert_int_equal(calls_of(s, &ca, put, strlen(put)), 1);
  }
  /* a page of users: the page object is the scratch's too; a stream
   * event (a string over half an arena block: the rewound blocks serve
   * it); explanations (the page the error is read into is the scratch's,
   * and a single write's entries are written in its buffers) */
  static const int responses[] = {0, 1, 2, 8, 9};
  static const char *const answers[] = {
      "{\"items\":[", "{\"records\":[{", "{\"dynamodb\":{",
      "{\"dynamodb\":{", "{\"dynamodb\":{"};
  for (size_t k = 0; k < sizeof responses / sizeof responses[0]; k++) {
    int i = responses[k];
    (void)calls_of(s, &ca, big[i], big_len[i]);
    long warm = calls_of(s, &ca, big[i], big_len[i]);
    if (warm != 1)
      fail_msg("big request %d: %ld allocations once warm", i, warm);
    char *a = ddbst_json_call(s, big[i], big_len[i], NULL);
    if (strncmp(a, answers[k], strlen(answers[k])))
      fail_msg("big request %d: %.200s", i, a);
    if (i >= 2 && !strstr(a, "\"explanation\":"))
      fail_msg("big request %d explains nothing: %.300s", i, a);
    ddbst_json_free(a);
  }
  for (int i = 0; i < nbig; i++) {
    (void)calls_of(s, &ca, big[i], big_len[i]);
    /* after any request, however big, a put is warm again: at once, or
     * (when the request's item held megabytes, and was not kept) at the
     * next */
    (void)calls_of(s, &ca, put, strlen(put));
    assert_int_equal(calls_of(s, &ca, put, strlen(put)), 1);
  }
  for (int i = 0; i < nbig; i++) free(big[i]);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

/* An allocator that counts the bytes live, for the bound on what the
 * scratch keeps. */
typedef struct byte_count {
  size_t live, peak;
} byte_count;

static void *bytes_malloc(void *user, size_t n) {
  byte_count *b = user;
  size_t *p = malloc(sizeof(max_align_t) + n);
  if (!p) return NULL;
  *p = n;
  b->live += n;
  if (b->live > b->peak) b->peak = b->live;
  return (char *)p + sizeof(max_align_t);
}
static void bytes_free(void *user, void *ptr) {
  if (!ptr) return;
  byte_count *b = user;
  size_t *p = (size_t *)((char *)ptr - sizeof(max_align_t));
  b->live -= *p;
  free(p);
}
static void *bytes_realloc(void *user, void *ptr, size_t n) {
  if (!ptr) return bytes_malloc(user, n);
  byte_count *b = user;
  size_t *p = (size_t *)((char *)ptr - sizeof(max_align_t));
  size_t old = *p;
  size_t *q = realloc(p, sizeof(max_align_t) + n);
  if (!q) return NULL;
  *q = n;
  b->live = b->live - old + n;
  if (b->live > b->peak) b->peak = b->live;
  return (char *)q + sizeof(max_align_t);
}

/* A huge request's memory is not kept for the session's life: what the
 * scratch holds after it (each buffer, the arena's block, the tree's
 * arrays, the reader's blocks: at most 64 KiB each) is bounded however
 * big the requests were; each of these made the session hold megabytes
 * while it ran. */
static void huge_requests_are_not_kept(void **state) {
  (void)state;
  byte_count bc = {0, 0};
  ddbst_allocator hooks = {bytes_malloc, bytes_realloc, bytes_free, &bc};
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &hooks, NULL);
  assert_non_null(s);
  char *a = ddbst_json_call(s, put, strlen(put), NULL);
  ddbst_json_free(a);
  size_t warm = bc.live;
  char *big[BIG_REQUESTS];
  size_t big_len[BIG_REQUESTS];
  int nbig = big_requests(big, big_len);
  for (int i = 0; i < nbig; i++) {
    bc.peak = bc.live;
    a = ddbst_json_call(s, big[i], big_len[i], NULL);
    ddbst_json_free(a);
    if (bc.live > warm + 5 * 64 * 1024)
      fail_msg("big request %d: %zu bytes kept after it (%zu warm, %zu at "
               "its peak)",
               i, bc.live, warm, bc.peak);
    if (i == 3 && bc.peak < warm + (2u << 20))
      fail_msg("the 2 MB request peaked at %zu bytes", bc.peak);
  }
  for (int i = 0; i < nbig; i++) free(big[i]);
  /* and the model's whole doc, a big answer */
  a = ddbst_json_call(s, "{\"op\":\"doc\"}", DDBST_NUL_TERMINATED, NULL);
  ddbst_json_free(a);
  assert_true(bc.live <= warm + 5 * 64 * 1024);
  ddbst_json_close(s);
  assert_int_equal(bc.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nothing_carries_over),
      cmocka_unit_test(warm_calls_allocate_only_the_answer),
      cmocka_unit_test(huge_requests_are_not_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
