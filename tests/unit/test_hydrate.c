/* Hydration of a projected index's page: the exact BatchGetItem bodies
 * (chunks of 100 keys in the page's order, one per distinct key, the
 * projection), answers read back into the page's order whatever order
 * DynamoDB gives, missing and unprocessed keys told apart, every bad answer
 * refused with nothing changed, and items that say what their index does
 * not project. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static ddbst_model *model;
static int member;

enum { N = 250 };

static int setup(void **state) {
  (void)state;
  model = load_example("tests/integration/models/hydrate.json");
  member = ddbst_model_entity(model, "Member");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(model);
  return 0;
}

/* Appends printf text to a malloc'd string. */
static void add(char **s, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(char **s, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[1024];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  *s = realloc(*s, *len + (size_t)n + 1);
  memcpy(*s + *len, tmp, (size_t)n + 1);
  *len += (size_t)n;
}

/* Member i's primary key, as the table holds it. */
static void key_av(char **s, size_t *len, int i) {
  add(s, len, "{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"MEMBER#m%03d\"}}", i);
}

/* A GSI1 (KEYS_ONLY) Query answer of members `ids` (n of them). */
static char *index_page(const int *ids, int n) {
  char *s = NULL;
  size_t len = 0;
  add(&s, &len, "{\"Count\":%d,\"ScannedCount\":%d,\"Items\":[", n, n);
  for (int k = 0; k < n; k++)
    add(&s, &len,
        "%s{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"MEMBER#m%03d\"},"
        "\"GSI1PK\":{\"S\":\"TEAM#t1\"},\"GSI1SK\":{\"S\":"
        "\"2026-01-01T00:00:00Z#m%03d\"}}",
        k ? "," : "", ids[k], ids[k]);
  add(&s, &len, "]}");
  return s;
}

/* A BatchGetItem answer holding members `found` (whole items) and leaving
 * `unprocessed` unprocessed. */
static char *batch_answer(const char *table, const int *found, int nf,
                          const int *unprocessed, int nu) {
  char *s = NULL;
  size_t len = 0;
  add(&s, &len, "{\"Responses\":{\"%s\":[", table);
  for (int k = 0; k < nf; k++) {
    int i = found[k];
    add(&s, &len,
        "%s{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"MEMBER#m%03d\"},"
        "\"_type\":{\"S\":\"Member\"},\"orgId\":{\"S\":\"o1\"},"
        "\"memberId\":{\"S\":\"m%03d\"},\"teamId\":{\"S\":\"t1\"},"
        "\"joinedAt\":{\"S\":\"2026-01-01T00:00:00Z\"},"
        "\"name\":{\"S\":\"Name %d\"},\"score\":{\"N\":\"%d\"},"
        "\"GSI1PK\":{\"S\":\"TEAM#t1\"},\"GSI1SK\":{\"S\":"
        "\"2026-01-01T00:00:00Z#m%03d\"}}",
        k ? "," : "", i, i, i, i * 10, i);
  }
  add(&s, &len, "]},\"UnprocessedKeys\":{");
  if (nu) {
    add(&s, &len, "\"%s\":{\"Keys\":[", table);
    for (int k = 0; k < nu; k++) {
      if (k) add(&s, &len, ",");
      key_av(&s, &len, unprocessed[k]);
    }
    add(&s, &len, "]}");
  }
  add(&s, &len, "}}");
  return s;
}

/* An attribute's text, or NULL when unset. */
static const char *get(const ddbst_item *it, const char *name) {
  const char *t = NULL;
  size_t n;
  return ddbst_item_get_by_name(it, name, &t, &n) == 1 ? t : NULL;
}

/* Parses a GSI1 page of members `ids` into `page`, as its query. */
static void parse_index_page(ddbst_page *page, const int *ids, int n) {
  ddbst_item *values = ddbst_item_new(model, member);
  set(values, "teamId", "t1");
  char *json = index_page(ids, n);
  ddbst_error err;
  int rc = ddbst_page_parse_query(page, values,
                                  ddbst_model_pattern(model, "membersOfTeam"),
                                  json, strlen(json), &err);
  if (rc != n) fail_msg("page: %d %s: %s", rc, err.path, err.message);
  free(json);
  ddbst_item_free(values);
}

static void parse_answer(ddbst_page *answer, const char *json) {
  ddbst_error err;
  int rc = ddbst_page_parse(answer, DDBST_OP_BATCH_GET_ITEM, json,
                            strlen(json), &err);
  if (rc < 0) fail_msg("answer: %s: %s", err.path, err.message);
}

/* The keys of members ids[from .. to) as a Keys list. */
static char *keys_of(const int *ids, int from, int to) {
  char *s = NULL;
  size_t len = 0;
  add(&s, &len, "[");
  for (int k = from; k < to; k++) {
    if (k > from) add(&s, &len, ",");
    key_av(&s, &len, ids[k]);
  }
  add(&s, &len, "]");
  return s;
}

static void test_chunks_in_page_order(void **state) {
  (void)state;
  int ids[N];
  for (int k = 0; k < N; k++) ids[k] = (k * 7) % N; /* not sorted */
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, N);
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 3);
  assert_int_equal(ddbst_hydrate_request_count(h), 3);
  int sizes[3] = {100, 100, 50};
  for (int c = 0; c < 3; c++) {
    char *keys = keys_of(ids, c * 100, c * 100 + sizes[c]);
    char want[40000];
    snprintf(want, sizeof want, "{\"RequestItems\":{\"hydrate\":{\"Keys\":%s}}}",
             keys);
    assert_int_equal(ddbst_hydrate_request(h, c, 0, out, &err),
                     DDBST_OP_BATCH_GET_ITEM);
    assert_string_equal(ddbst_buf_data(out), want);
    snprintf(want, sizeof want,
             "{\"RequestItems\":{\"hydrate\":{\"Keys\":%s,"
             "\"ConsistentRead\":true}}}",
             keys);
    assert_int_equal(
        ddbst_hydrate_request(h, c, DDBST_CONSISTENT_READ, out, &err),
        DDBST_OP_BATCH_GET_ITEM);
    assert_string_equal(ddbst_buf_data(out), want);
    free(keys);
  }
  assert_int_equal(ddbst_hydrate_request(h, 3, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "chunk");
  assert_string_equal(err.message, "request 3 of 3 does not exist");
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(ddbst_hydrate_request(h, 0, 1u << 9, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "flags");
  ddbst_buf_free(out);
  ddbst_hydrate_free(h);
  ddbst_page_free(page);
}

/* Chunk 0 of 3 answered backwards, one key missing and one unprocessed;
 * its follow-up answered; the rest unread. */
static void test_answers_back_in_order(void **state) {
  (void)state;
  int ids[N];
  for (int k = 0; k < N; k++) ids[k] = N - 1 - k;
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, N);
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_page *answer = ddbst_page_new(model);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_item *it = ddbst_item_new(model, member);
  ddbst_error err;
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 3);
  /* page items 0..99; 5 was deleted since, 7 is unprocessed */
  int found[100], nf = 0;
  for (int k = 99; k >= 0; k--)
    if (k != 5 && k != 7) found[nf++] = ids[k];
  int unprocessed[1] = {ids[7]};
  char *json = batch_answer("hydrate", found, nf, unprocessed, 1);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), 1);
  assert_int_equal(ddbst_hydrate_state(h, 0), DDBST_HYDRATE_FOUND);
  assert_int_equal(ddbst_hydrate_state(h, 5), DDBST_HYDRATE_MISSING);
  assert_int_equal(ddbst_hydrate_state(h, 7), DDBST_HYDRATE_UNPROCESSED);
  assert_int_equal(ddbst_hydrate_state(h, 100), DDBST_HYDRATE_UNREAD);
  assert_int_equal(ddbst_hydrate_state(h, N), DDBST_EINVAL);
  assert_int_equal(ddbst_hydrate_pending(h), 1 + 150);
  const ddbst_page *full = ddbst_hydrate_page(h);
  assert_int_equal(ddbst_page_count(full), N);
  for (int k = 0; k < 100; k++) {
    if (k == 5 || k == 7) continue;
    assert_int_equal(ddbst_page_item(full, k, it, &err), member);
    char want[32];
    snprintf(want, sizeof want, "m%03d", ids[k]);
    assert_string_equal(get(it, "memberId"), want);
    snprintf(want, sizeof want, "Name %d", ids[k]);
    assert_string_equal(get(it, "name"), want);
  }
  assert_int_equal(ddbst_page_item(full, 5, it, &err), DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Items[5]");
  assert_int_equal(ddbst_page_item_entity(full, 7), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_page_item_json(full, 5, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out), "null");
  assert_int_equal(ddbst_page_item_json(full, 1, out, &err), 0);
  char want[512];
  snprintf(want, sizeof want,
           "{\"entity\":\"Member\",\"item\":{\"orgId\":\"o1\",\"memberId\":"
           "\"m%03d\",\"teamId\":\"t1\",\"joinedAt\":\"2026-01-01T00:00:00Z\","
           "\"name\":\"Name %d\",\"score\":%d}}",
           ids[1], ids[1], ids[1] * 10);
  assert_string_equal(ddbst_buf_data(out), want);

  /* the follow-up is the unprocessed key alone */
  assert_int_equal(ddbst_page_followup_request(answer, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  snprintf(want, sizeof want,
           "{\"RequestItems\":{\"hydrate\":{\"Keys\":[{\"PK\":{\"S\":"
           "\"ORG#o1\"},\"SK\":{\"S\":\"MEMBER#m%03d\"}}]}}}",
           ids[7]);
  assert_string_equal(ddbst_buf_data(out), want);
  json = batch_answer("hydrate", unprocessed, 1, NULL, 0);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), 0);
  assert_int_equal(ddbst_hydrate_state(h, 7), DDBST_HYDRATE_FOUND);
  assert_int_equal(ddbst_hydrate_state(h, 5), DDBST_HYDRATE_MISSING);
  assert_int_equal(ddbst_page_item(full, 7, it, &err), member);
  assert_int_equal(ddbst_hydrate_pending(h), 150);

  /* the other chunks, every item there */
  for (int c = 1; c < 3; c++) {
    int last = c == 2 ? N : (c + 1) * 100;
    json = batch_answer("hydrate", ids + c * 100, last - c * 100, NULL, 0);
    parse_answer(answer, json);
    free(json);
    assert_int_equal(ddbst_hydrate_read(h, c, answer, &err), 0);
  }
  assert_int_equal(ddbst_hydrate_pending(h), 0);
  assert_int_equal(ddbst_page_item(full, N - 1, it, &err), member);
  snprintf(want, sizeof want, "m%03d", ids[N - 1]);
  assert_string_equal(get(it, "memberId"), want);

  /* a second begin forgets the first */
  int two[2] = {3, 4};
  parse_index_page(page, two, 2);
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 1);
  assert_int_equal(ddbst_page_count(full), 2);
  assert_int_equal(ddbst_hydrate_state(h, 0), DDBST_HYDRATE_UNREAD);
  assert_int_equal(ddbst_page_item_entity(full, 0), DDBST_ENOTFOUND);

  ddbst_item_free(it);
  ddbst_buf_free(out);
  ddbst_page_free(answer);
  ddbst_hydrate_free(h);
  ddbst_page_free(page);
}

static void test_bad_answers_change_nothing(void **state) {
  (void)state;
  int ids[150];
  for (int k = 0; k < 150; k++) ids[k] = k;
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, 150);
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_page *answer = ddbst_page_new(model);
  ddbst_error err;
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 2);

  /* an item of chunk 1 in an answer read as chunk 0's */
  int f[2] = {3, 120};
  char *json = batch_answer("hydrate", f, 2, NULL, 0);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Responses.hydrate[1]");
  assert_string_equal(err.message,
                      "its key is not one that request 0 asked for (another "
                      "request's: read each answer with the chunk of its "
                      "request)");
  assert_int_equal(ddbst_hydrate_state(h, 3), DDBST_HYDRATE_UNREAD);
  assert_int_equal(ddbst_page_item_entity(ddbst_hydrate_page(h), 3),
                   DDBST_ENOTFOUND);

  /* a key no request asked for, in UnprocessedKeys */
  int u[1] = {400};
  json = batch_answer("hydrate", f, 1, u, 1);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "UnprocessedKeys.hydrate.Keys[0]");
  assert_string_equal(err.message,
                      "its key is not one that request 0 asked for (nor any "
                      "other of the hydration)");
  assert_int_equal(ddbst_hydrate_state(h, 3), DDBST_HYDRATE_UNREAD);

  /* another table's items */
  json = batch_answer("other", f, 1, NULL, 0);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Responses.other[0]");
  assert_string_equal(err.message, "an item of another table than hydrate");

  /* one answer read twice */
  json = batch_answer("hydrate", f, 1, NULL, 0);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), 0);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Responses.hydrate[0]");
  assert_string_equal(err.message,
                      "this item was read already (an answer read twice?)");
  assert_int_equal(ddbst_hydrate_state(h, 3), DDBST_HYDRATE_FOUND);
  assert_int_equal(ddbst_hydrate_state(h, 4), DDBST_HYDRATE_MISSING);

  /* not an answer of BatchGetItem; chunks that do not exist */
  assert_int_equal(ddbst_hydrate_read(h, 0, page, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "answer");
  assert_int_equal(ddbst_hydrate_read(h, 2, answer, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "chunk");
  assert_int_equal(ddbst_hydrate_read(h, -1, answer, &err), DDBST_EINVAL);

  ddbst_page_free(answer);
  ddbst_hydrate_free(h);
  ddbst_page_free(page);
}

/* Two items of one key: read once, both filled. */
static void test_duplicate_keys_read_once(void **state) {
  (void)state;
  int ids[3] = {8, 9, 8};
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, 3);
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 1);
  assert_int_equal(ddbst_hydrate_request(h, 0, 0, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"RequestItems\":{\"hydrate\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#o1\"},"
      "\"SK\":{\"S\":\"MEMBER#m008\"}},{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{"
      "\"S\":\"MEMBER#m009\"}}]}}}");
  ddbst_page *answer = ddbst_page_new(model);
  int f[2] = {9, 8};
  char *json = batch_answer("hydrate", f, 2, NULL, 0);
  parse_answer(answer, json);
  free(json);
  assert_int_equal(ddbst_hydrate_read(h, 0, answer, &err), 0);
  const ddbst_page *full = ddbst_hydrate_page(h);
  ddbst_buf *a = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_page_item_json(full, 0, out, &err), 0);
  assert_int_equal(ddbst_page_item_json(full, 2, a, &err), 0);
  assert_string_equal(ddbst_buf_data(out), ddbst_buf_data(a));
  assert_non_null(strstr(ddbst_buf_data(out), "\"memberId\":\"m008\""));
  assert_int_equal(ddbst_hydrate_state(h, 2), DDBST_HYDRATE_FOUND);
  ddbst_buf_free(a);
  ddbst_page_free(answer);
  ddbst_buf_free(out);
  ddbst_hydrate_free(h);
  ddbst_page_free(page);
}

static void test_projection(void **state) {
  (void)state;
  int ids[2] = {1, 2};
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, 2);
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  const char *names[] = {"name", "score"};
  assert_int_equal(ddbst_hydrate_begin(h, page, names, 2, &err), 1);
  assert_int_equal(ddbst_hydrate_request(h, 0, DDBST_CONSISTENT_READ, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"RequestItems\":{\"hydrate\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#o1\"},"
      "\"SK\":{\"S\":\"MEMBER#m001\"}},{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{"
      "\"S\":\"MEMBER#m002\"}}],\"ConsistentRead\":true,"
      "\"ProjectionExpression\":\"#p0, #p1, #p2, #p3, #p4\","
      "\"ExpressionAttributeNames\":{\"#p0\":\"PK\",\"#p1\":\"SK\",\"#p2\":"
      "\"_type\",\"#p3\":\"name\",\"#p4\":\"score\"}}}}");
  const char *bad[] = {"name", "nope"};
  assert_int_equal(ddbst_hydrate_begin(h, page, bad, 2, &err), DDBST_ENOTFOUND);
  assert_string_equal(err.path, "attributes[1]");
  assert_string_equal(err.message,
                      "no entity of the page declares an attribute nope");
  assert_int_equal(ddbst_hydrate_request_count(h), 0);
  assert_int_equal(ddbst_page_count(ddbst_hydrate_page(h)), 0);
  const char *twice[] = {"name", "name"};
  assert_int_equal(ddbst_hydrate_begin(h, page, twice, 2, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "attributes[1]");
  assert_string_equal(err.message, "name is given twice");
  ddbst_buf_free(out);
  ddbst_hydrate_free(h);
  ddbst_page_free(page);
}

static void test_refused_pages(void **state) {
  (void)state;
  ddbst_hydrate *h = ddbst_hydrate_new(model);
  ddbst_page *page = ddbst_page_new(model);
  ddbst_error err;
  assert_int_equal(ddbst_hydrate_begin(h, NULL, NULL, 0, &err), DDBST_EINVAL);
  const char *w = "{\"UnprocessedItems\":{}}";
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_BATCH_WRITE_ITEM, w,
                                    strlen(w), &err), 0);
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "page");
  const char *bad = "{\"Items\":[";
  assert_true(ddbst_page_parse(page, DDBST_OP_QUERY, bad, strlen(bad), &err) < 0);
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), DDBST_EINVAL);
  /* an empty page: nothing to read */
  const char *none = "{\"Items\":[],\"Count\":0,\"ScannedCount\":0}";
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, none, strlen(none),
                                    &err), 0);
  assert_int_equal(ddbst_hydrate_begin(h, page, NULL, 0, &err), 0);
  assert_int_equal(ddbst_hydrate_pending(h), 0);
  /* a page of another model */
  ddbst_model *other = load_example("examples/saas/model.json");
  ddbst_page *op = ddbst_page_new(other);
  assert_int_equal(ddbst_hydrate_begin(h, op, NULL, 0, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "the page is of another model");
  ddbst_page_free(op);
  ddbst_model_free(other);
  ddbst_page_free(page);
  ddbst_hydrate_free(h);
}

/* Items of a KEYS_ONLY or INCLUDE page say what the index leaves out. */
static void test_not_projected(void **state) {
  (void)state;
  int ids[1] = {4};
  ddbst_page *page = ddbst_page_new(model);
  parse_index_page(page, ids, 1);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  int a_member = ddbst_model_attribute(model, member, "memberId");
  int a_name = ddbst_model_attribute(model, member, "name");
  int a_role = ddbst_model_attribute(model, member, "role");
  int a_team = ddbst_model_attribute(model, member, "teamId");
  assert_int_equal(ddbst_page_projects(page, member, a_member), 1);
  assert_int_equal(ddbst_page_projects(page, member, a_team), 1);
  assert_int_equal(ddbst_page_projects(page, member, a_name), 0);
  assert_int_equal(ddbst_page_projects(page, member, 99), DDBST_EINVAL);
  assert_int_equal(ddbst_page_item_json(page, 0, out, &err), 0);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"entity\":\"Member\",\"item\":{\"orgId\":\"o1\",\"memberId\":"
      "\"m004\",\"teamId\":\"t1\",\"joinedAt\":\"2026-01-01T00:00:00Z\"},"
      "\"notProjected\":[\"role\",\"name\",\"email\",\"score\",\"tags\","
      "\"profile\"]}");

  /* GSI2 projects name and email; role is lower-cased in its key */
  ddbst_item *values = ddbst_item_new(model, member);
  set(values, "role", "Admin");
  const char *json =
      "{\"Count\":1,\"ScannedCount\":1,\"Items\":[{\"PK\":{\"S\":\"ORG#o1\"},"
      "\"SK\":{\"S\":\"MEMBER#m004\"},\"GSI2PK\":{\"S\":\"ROLE#admin\"},"
      "\"GSI2SK\":{\"S\":\"m004\"},\"_type\":{\"S\":\"Member\"},"
      "\"name\":{\"S\":\"Ann\"}}]}";
  assert_int_equal(ddbst_page_parse_query(page, values,
                                          ddbst_model_pattern(model,
                                                              "membersByRole"),
                                          json, strlen(json), &err),
                   1);
  assert_int_equal(ddbst_page_projects(page, member, a_name), 1);
  assert_int_equal(ddbst_page_projects(page, member, a_role), 0);
  assert_int_equal(ddbst_page_item_json(page, 0, out, &err), 0);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"entity\":\"Member\",\"item\":{\"orgId\":\"o1\",\"memberId\":"
      "\"m004\",\"name\":\"Ann\"},\"notProjected\":[\"teamId\",\"joinedAt\","
      "\"role\",\"score\",\"tags\",\"profile\"]}");
  /* a page that does not know its query says nothing of projections */
  assert_int_equal(ddbst_page_parse(page, DDBST_OP_QUERY, json, strlen(json),
                                    &err), 1);
  assert_int_equal(ddbst_page_projects(page, member, a_role), 1);
  assert_int_equal(ddbst_page_item_json(page, 0, out, &err), 0);
  assert_null(strstr(ddbst_buf_data(out), "notProjected"));
  ddbst_item_free(values);
  ddbst_buf_free(out);
  ddbst_page_free(page);
}

/* Every allocation failing in turn: DDBST_ENOMEM, nothing half-done, no
 * leak. */
static void test_allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  size_t len;
  char *text = read_source("tests/integration/models/hydrate.json", &len);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m = NULL;
  ddbst_error err;
  assert_int_equal(ddbst_model_load(text, len, &o, &m, &err), 0);
  free(text);
  int ids[120];
  for (int k = 0; k < 120; k++) ids[k] = k;
  char *page_json = index_page(ids, 120);
  int u[1] = {7};
  char *answer_json = batch_answer("hydrate", ids, 5, u, 1);
  ddbst_item *values = ddbst_item_new(m, member);
  ddbst_error e2;
  ddbst_item_set_by_name(values, "teamId", "t1", 2, &e2);
  int done = 0;
  for (long step = 1; !done && step < 20000; step++) {
    ddbst_page *page = ddbst_page_new(m);
    ddbst_page *answer = ddbst_page_new(m);
    assert_int_equal(ddbst_page_parse_query(page, values,
                                            ddbst_model_pattern(m, "membersOfTeam"),
                                            page_json, strlen(page_json), &err),
                     120);
    assert_true(ddbst_page_parse(answer, DDBST_OP_BATCH_GET_ITEM, answer_json,
                                 strlen(answer_json), &err) >= 0);
    ddbst_buf *out = ddbst_buf_new(&ca.hooks);
    const char *names[] = {"name"};
    ca.fail_at = ca.calls + step;
    ddbst_hydrate *h = ddbst_hydrate_new(m);
    int rc = h ? ddbst_hydrate_begin(h, page, names, 1, &err) : DDBST_ENOMEM;
    if (rc >= 0) rc = ddbst_hydrate_request(h, 1, 0, out, &err);
    if (rc >= 0) rc = ddbst_hydrate_read(h, 0, answer, &err);
    ca.fail_at = 0;
    if (rc >= 0) {
      assert_int_equal(rc, 1);
      assert_int_equal(ddbst_hydrate_state(h, 4), DDBST_HYDRATE_FOUND);
      done = 1;
    } else {
      assert_int_equal(rc, DDBST_ENOMEM);
      if (h) {
        /* whatever failed left nothing half-done */
        int s = ddbst_hydrate_state(h, 4);
        assert_true(s == DDBST_EINVAL || s == DDBST_HYDRATE_UNREAD);
      }
    }
    ddbst_hydrate_free(h);
    ddbst_buf_free(out);
    ddbst_page_free(answer);
    ddbst_page_free(page);
  }
  assert_true(done);
  free(page_json);
  free(answer_json);
  ddbst_item_free(values);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

/* A JSON string of `text` (no character of it needs more than \"). */
static void quoted(char **s, size_t *len, const char *text) {
  add(s, len, "\"");
  for (const char *p = text; *p; p++) add(s, len, *p == '"' ? "\\\"" : "%c", *p);
  add(s, len, "\"");
}

/* The JSON entry: requests first, then the answers back in order. */
static void test_json_entry(void **state) {
  (void)state;
  char *error = NULL;
  const char *config = "{\"modelFile\":\"" DDBST_SOURCE_DIR
                       "/tests/integration/models/hydrate.json\"}";
  ddbst_json *session = ddbst_json_open(config, strlen(config), NULL, &error);
  assert_non_null(session);
  int ids[3] = {2, 1, 3};
  char *page = index_page(ids, 3);
  char *req = NULL;
  size_t len = 0;
  add(&req, &len, "{\"op\":\"hydrate\",\"consistent\":true,"
                  "\"attributes\":[\"name\"],\"response\":");
  quoted(&req, &len, page);
  add(&req, &len, "}");
  char *answer = ddbst_json_call(session, req, strlen(req), NULL);
  assert_string_equal(
      answer,
      "{\"requests\":[{\"operation\":\"BatchGetItem\",\"target\":"
      "\"DynamoDB_20120810.BatchGetItem\",\"body\":{\"RequestItems\":{"
      "\"hydrate\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"MEMBER#m002\"}},{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"MEMBER#m001\"}},{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"MEMBER#m003\"}}],\"ConsistentRead\":true,\"ProjectionExpression\":"
      "\"#p0, #p1, #p2, #p3\",\"ExpressionAttributeNames\":{\"#p0\":\"PK\","
      "\"#p1\":\"SK\",\"#p2\":\"_type\",\"#p3\":\"name\"}}}}}]}");
  ddbst_json_free(answer);
  /* answers: 3 and 2 found (backwards), 1 unprocessed; then 1 gone */
  int found[2] = {3, 2}, unprocessed[1] = {1};
  char *a1 = batch_answer("hydrate", found, 2, unprocessed, 1);
  char *a2 = batch_answer("hydrate", NULL, 0, NULL, 0);
  len = strlen(req) - 1;
  req[len] = '\0';
  add(&req, &len, ",\"answers\":[{\"chunk\":0,\"response\":");
  quoted(&req, &len, a1);
  add(&req, &len, "}]}");
  answer = ddbst_json_call(session, req, strlen(req), NULL);
  assert_non_null(strstr(answer, "\"missing\":[],\"pending\":[1]}"));
  assert_non_null(strstr(answer, "\"items\":[{\"entity\":\"Member\",\"item\":"
                                 "{\"orgId\":\"o1\",\"memberId\":\"m002\","));
  assert_non_null(strstr(answer, "},null,{\"entity\":\"Member\",\"item\":"
                                 "{\"orgId\":\"o1\",\"memberId\":\"m003\","));
  ddbst_json_free(answer);
  len = strlen(req) - 2;
  req[len] = '\0';
  add(&req, &len, ",{\"chunk\":0,\"response\":");
  quoted(&req, &len, a2);
  add(&req, &len, "}]}");
  answer = ddbst_json_call(session, req, strlen(req), NULL);
  assert_non_null(strstr(answer, "\"missing\":[1],\"pending\":[]}"));
  ddbst_json_free(answer);
  /* a wrong chunk: the answer's path says which */
  const char *bad = "{\"op\":\"hydrate\",\"response\":\"{\\\"Items\\\":[]}\","
                    "\"answers\":[{\"chunk\":2,\"response\":"
                    "\"{\\\"Responses\\\":{}}\"}]}";
  answer = ddbst_json_call(session, bad, strlen(bad), NULL);
  assert_non_null(strstr(answer, "\"path\":\"answers[0].chunk\""));
  ddbst_json_free(answer);
  free(a1);
  free(a2);
  free(req);
  free(page);
  ddbst_json_close(session);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chunks_in_page_order),
      cmocka_unit_test(test_answers_back_in_order),
      cmocka_unit_test(test_bad_answers_change_nothing),
      cmocka_unit_test(test_duplicate_keys_read_once),
      cmocka_unit_test(test_projection),
      cmocka_unit_test(test_refused_pages),
      cmocka_unit_test(test_not_projected),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_json_entry),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
