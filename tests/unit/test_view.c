/* The design view (src/review/sample.c, view.c, view_eval.c, view_data.c):
 * sample items are what a create writes (their keys the library's own),
 * the same seed gives the same bytes, every pattern of the examples has a
 * request and rows; the evaluator reads each sort-key condition and filter
 * ddbst writes as DynamoDB does (checked against a direct comparison of
 * the keys); the data lines are BatchWriteItem bodies of at most 25 puts;
 * allocation failure anywhere is DDBST_ENOMEM with nothing appended. The
 * browser test (tests/view) holds the rows against DynamoDB Local. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/view.h"
#include "support.h"

static const uint64_t SEED = 1;

static char *view_of(const ddbst_model *m, uint64_t seed) {
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int rc = ddbst_model_view_json(m, seed, b, &err);
  if (rc) fail_msg("view: %d %s: %s", rc, err.path, err.message);
  size_t n = ddbst_buf_len(b);
  char *copy = malloc(n + 1);
  memcpy(copy, ddbst_buf_data(b), n + 1);
  ddbst_buf_free(b);
  return copy;
}

/* Every sample row is in the body a create of its item writes: the
 * item itself, and each unique guard (TransactWriteItems). */
static void rows_are_what_a_create_writes(void **state) {
  (void)state;
  const char *const models[] = {"examples/saas/model.json",
                                "examples/blog/model.json"};
  for (int k = 0; k < 2; k++) {
    ddbst_model *m = load_example(models[k]);
    ddbst__sample s;
    ddbst_error err;
    assert_int_equal(ddbst__sample_make(m, SEED, &s, &err), 0);
    assert_true(s.nrows > 10);
    ddbst_buf *b = ddbst_buf_new(NULL);
    int guards = 0;
    for (int r = 0; r < s.nrows; r++) {
      const ddbst__sample_row *row = &s.rows[r];
      const ddbst__sample_row *owner = row->item ? row : &s.rows[row->owner];
      ddbst_buf_reset(b);
      int op = ddbst_put_request(owner->item, DDBST_CREATE, s.now_us, b, &err);
      if (op < 0) fail_msg("%s: %s", err.path, err.message);
      char *want = malloc(row->len + 16);
      snprintf(want, row->len + 16, "\"Item\":%.*s", (int)row->len, row->json);
      if (!strstr(ddbst_buf_data(b), want))
        fail_msg("row %d (%s) is not in its create:\n%s\n%s", r,
                 m->entities[row->entity].name, want, ddbst_buf_data(b));
      free(want);
      guards += row->unique >= 0;
    }
    /* every User has its email guard; every Blog and Service its slug's */
    assert_true(guards > 0);
    ddbst_buf_free(b);
    ddbst__sample_free(&s);
    ddbst_model_free(m);
  }
}

static void a_seed_gives_the_same_bytes(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  char *a = view_of(m, SEED), *b = view_of(m, SEED), *c = view_of(m, 2);
  assert_string_equal(a, b);
  assert_string_not_equal(a, c);
  free(a);
  free(b);
  free(c);
  ddbst_model_free(m);
}

/* Every pattern of both examples has a request and reads some rows; the
 * SaaS listEvents shows a range with a partial upper bound. */
static void every_pattern_reads_rows(void **state) {
  (void)state;
  const char *const models[] = {"examples/saas/model.json",
                                "examples/blog/model.json"};
  for (int k = 0; k < 2; k++) {
    ddbst_model *m = load_example(models[k]);
    char *view = view_of(m, SEED);
    ddbst__arena ar;
    ddbst__arena_init(&ar, &m->alloc);
    ddbst__jnode *root;
    ddbst_error err;
    assert_int_equal(ddbst__jtree_parse(&ar, view, strlen(view), &root, &err), 0);
    const ddbst__jnode *ps = ddbst__jobj_get(root, "patterns");
    assert_int_equal(ps->count, (size_t)ddbst_model_pattern_count(m));
    for (size_t i = 0; i < ps->count; i++) {
      const ddbst__jnode *p = ps->items[i];
      const ddbst__jnode *reads = ddbst__jobj_get(p, "reads");
      if (!reads || reads->count == 0)
        fail_msg("%s: %s reads nothing", models[k],
                 ddbst__jobj_get(p, "name")->text);
      assert_int_equal(ddbst__jobj_get(p, "request")->type, DDBST__J_OBJECT);
    }
    if (k == 0) {
      const ddbst__jnode *events = ps->items[5];
      assert_string_equal(ddbst__jobj_get(events, "name")->text, "listEvents");
      assert_non_null(strstr(ddbst__jobj_get(events, "keyCondition")->text,
                             "SK BETWEEN \"EVENT#2026-"));
    }
    /* the table holds every row; an index fewer */
    const ddbst__jnode *views = ddbst__jobj_get(root, "views");
    size_t all = ddbst__jobj_get(root, "items")->count;
    assert_int_equal(ddbst__jobj_get(views->items[0], "rows")->count, all);
    for (size_t v = 1; v < views->count; v++)
      assert_true(ddbst__jobj_get(views->items[v], "rows")->count < all);
    ddbst__arena_free(&ar);
    free(view);
    ddbst_model_free(m);
  }
}

/* The rows whose keys meet the query, by a plain comparison here, in the
 * evaluator's order: each condition the query builder writes. */
static void expect_reads(ddbst__sample *s, ddbst_item *values, int pattern,
                         const ddbst_query *q, int want_desc) {
  const ddbst_model *m = s->m;
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int op = ddbst_query_request(values, pattern, q, b, &err);
  if (op < 0) fail_msg("query: %s: %s", err.path, err.message);
  ddbst__arena ar;
  ddbst__arena_init(&ar, &m->alloc);
  ddbst__jnode *body;
  assert_int_equal(ddbst__jtree_parse(&ar, ddbst_buf_data(b), ddbst_buf_len(b),
                                      &body, &err), 0);
  const ddbst__jnode *v = ddbst__jobj_get(body, "ExpressionAttributeValues");
  const char *pk = ddbst__jobj_get(ddbst__jobj_get(v, ":v0"), "S")->text;
  const ddbst__jnode *v1 = ddbst__jobj_get(ddbst__jobj_get(v, ":v1"), "S");
  const ddbst__jnode *v2 = ddbst__jobj_get(ddbst__jobj_get(v, ":v2"), "S");
  const char *kce = ddbst__jobj_get(body, "KeyConditionExpression")->text;
  ddbst__view_read r;
  assert_int_equal(ddbst__view_reads(s, op, body, &r, &err), 0);
  int want[256], n = 0;
  for (int i = 0; i < s->nrows; i++) {
    size_t a, c;
    const char *p = ddbst__sample_s(&s->rows[i], "PK", &a);
    const char *k = ddbst__sample_s(&s->rows[i], "SK", &c);
    if (!p || strcmp(p, pk) != 0) continue;
    int ok = 1;
    if (strstr(kce, "BETWEEN"))
      ok = strcmp(k, v1->text) >= 0 && strcmp(k, v2->text) <= 0;
    else if (strstr(kce, "begins_with"))
      ok = strncmp(k, v1->text, v1->len) == 0;
    else if (strstr(kce, ">="))
      ok = strcmp(k, v1->text) >= 0;
    else if (strstr(kce, "<="))
      ok = strcmp(k, v1->text) <= 0;
    else if (strstr(kce, ">"))
      ok = strcmp(k, v1->text) > 0;
    else if (strstr(kce, "<"))
      ok = strcmp(k, v1->text) < 0;
    if (ok) want[n++] = i;
  }
  /* the sample's SKs of one partition were made in key order */
  if (want_desc)
    for (int i = 0; i < n / 2; i++) {
      int t = want[i];
      want[i] = want[n - 1 - i];
      want[n - 1 - i] = t;
    }
  assert_true(n > 0);
  assert_int_equal(r.nrows, n);
  for (int i = 0; i < n; i++) assert_int_equal(r.rows[i], want[i]);
  ddbst__view_read_free(m, &r);
  ddbst__arena_free(&ar);
  ddbst_buf_free(b);
}

static void every_condition_is_read_as_dynamodb_reads_it(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst__sample s;
  ddbst_error err;
  assert_int_equal(ddbst__sample_make(m, SEED, &s, &err), 0);
  int ev = ddbst_model_entity(m, "Event"), pr = ddbst_model_entity(m, "Project");
  ddbst_item *values = ddbst_item_new(m, ev);
  int ts = ddbst_model_attribute(m, ev, "ts");
  assert_int_equal(ddbst_item_set(values, ddbst_model_attribute(m, ev, "projectId"),
                                  "p1", 2, &err), 0);
  /* the third of p1's four events: its timestamp, whole and by day */
  const char *third = NULL;
  for (int i = 0, k = 0; i < s.nrows && !third; i++)
    if (s.rows[i].entity == ev && s.rows[i].item && k++ == 2)
      ddbst_item_get(s.rows[i].item, ts, &third, NULL);
  assert_non_null(third);
  char day[11];
  snprintf(day, sizeof day, "%s", third);
  const int conds[] = {DDBST_SK_GT, DDBST_SK_GTE, DDBST_SK_LT, DDBST_SK_LTE,
                       DDBST_SK_BEGINS};
  int listEvents = ddbst_model_pattern(m, "listEvents");
  for (int c = 0; c < 5; c++)
    for (int partial = 0; partial < 2; partial++) {
      ddbst_query q;
      memset(&q, 0, sizeof q);
      q.size = sizeof q;
      q.condition = conds[c];
      q.attribute = ts;
      q.value = partial ? day : third;
      q.value_len = strlen(q.value);
      expect_reads(&s, values, listEvents, &q, 0);
    }
  /* newest first, the whole partition */
  ddbst_item_reset(values, pr);
  ddbst_item_set(values, ddbst_model_attribute(m, pr, "orgId"), "globex", 6,
                 &err);
  expect_reads(&s, values, ddbst_model_pattern(m, "listProjects"), NULL, 1);
  ddbst_item_free(values);

  /* an expression ddbst does not write is refused, not guessed at */
  ddbst__arena ar;
  ddbst__arena_init(&ar, &m->alloc);
  const char bad[] = "{\"KeyConditionExpression\":\"#n0 = :v0 OR x\","
                     "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"},"
                     "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"x\"}}}";
  ddbst__jnode *body;
  assert_int_equal(ddbst__jtree_parse(&ar, bad, strlen(bad), &body, &err), 0);
  ddbst__view_read r;
  assert_int_equal(ddbst__view_reads(&s, DDBST_OP_QUERY, body, &r, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "KeyConditionExpression");
  ddbst__view_read_free(m, &r);
  ddbst__arena_free(&ar);
  ddbst__sample_free(&s);
  ddbst_model_free(m);
}

/* A filter (a model's, and the entity type's) is applied after Limit
 * counted the items, as DynamoDB applies it. */
static void filters_apply_after_the_limit(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"things\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\"},\"entities\":{"
      "\"Team\":{\"attributes\":{\"teamId\":\"string\"},"
      "\"key\":{\"pk\":\"TEAM#{teamId}\",\"sk\":\"TEAM\"}},"
      "\"Member\":{\"attributes\":{\"teamId\":\"string\",\"memberId\":"
      "\"string\",\"role\":{\"type\":\"enum\",\"values\":[\"admin\","
      "\"member\"]}},\"key\":{\"pk\":\"TEAM#{teamId}\",\"sk\":"
      "\"M#{memberId}\"}}},\"patterns\":{\"admins\":{\"query\":\"Member\","
      "\"filter\":{\"role\":\"admin\"},\"limit\":{\"default\":3}}}}");
  char *view = view_of(m, SEED);
  ddbst__arena ar;
  ddbst__arena_init(&ar, &m->alloc);
  ddbst__jnode *root;
  ddbst_error err;
  assert_int_equal(ddbst__jtree_parse(&ar, view, strlen(view), &root, &err), 0);
  const ddbst__jnode *p = ddbst__jobj_get(root, "patterns")->items[0];
  const ddbst__jnode *items = ddbst__jobj_get(root, "items");
  assert_string_equal(ddbst__jobj_get(p, "filter")->text, "role = \"admin\"");
  /* the first three members of the partition were read; the admins among
   * them are shown */
  const ddbst__jnode *reads = ddbst__jobj_get(p, "reads");
  for (size_t i = 0; i < reads->count; i++) {
    long r = strtol(reads->items[i]->text, NULL, 10);
    const ddbst__jnode *item = ddbst__jobj_get(items->items[r], "item");
    assert_string_equal(
        ddbst__jobj_get(ddbst__jobj_get(item, "role"), "S")->text, "admin");
  }
  assert_true(ddbst__jobj_get(p, "more")->boolean);
  ddbst__arena_free(&ar);
  free(view);
  ddbst_model_free(m);
}

static void data_is_batch_writes_of_every_row(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_model_view_data(m, SEED, b, &err), 0);
  ddbst__sample s;
  assert_int_equal(ddbst__sample_make(m, SEED, &s, &err), 0);
  const char *p = ddbst_buf_data(b);
  int lines = 0, puts = 0;
  for (const char *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
    assert_true(strncmp(p, "{\"RequestItems\":{\"saas-api-dev\":[", 33) == 0);
    int here = 0;
    for (const char *q = p; q < nl && (q = strstr(q, "\"PutRequest\"")) && q < nl;
         q++)
      here++;
    assert_true(here >= 1 && here <= 25);
    puts += here;
    lines++;
  }
  assert_int_equal(*p, '\0');
  assert_int_equal(puts, s.nrows);
  assert_int_equal(lines, (s.nrows + 24) / 25);
  for (int r = 0; r < s.nrows; r++) {
    char want[2048];
    snprintf(want, sizeof want, "{\"PutRequest\":{\"Item\":%.*s}}",
             (int)s.rows[r].len, s.rows[r].json);
    assert_non_null(strstr(ddbst_buf_data(b), want));
  }
  ddbst__sample_free(&s);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* A small model with a GSI, a unique attribute and both kinds of pattern:
 * every allocation of the view and of its data fails in turn. */
static const char SMALL[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"people\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"indexes\":{\"GSI1\":{\"partitionKey\":\"G1PK\"}},"
    "\"entityAttribute\":\"_type\"},\"entities\":{\"Person\":{\"attributes\":"
    "{\"personId\":\"string\",\"email\":{\"type\":\"string\",\"required\":true}},"
    "\"key\":{\"pk\":\"P#{personId}\",\"sk\":\"P\"},\"indexes\":{\"GSI1\":"
    "{\"pk\":\"E#{email:lower}\"}},\"unique\":{\"email\":\"E#{email:lower}\"}}},"
    "\"patterns\":{\"get\":{\"get\":\"Person\"},\"byEmail\":{\"query\":"
    "\"Person\",\"index\":\"GSI1\"}}}";

static void allocation_failures(void **state) {
  (void)state;
  for (int data = 0; data < 2; data++) {
    counting_alloc ca;
    counting_alloc_init(&ca);
    ddbst_load_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.allocator = &ca.hooks;
    ddbst_model *m;
    ddbst_error err;
    assert_int_equal(ddbst_model_load(SMALL, strlen(SMALL), &o, &m, &err), 0);
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    ddbst_buf_reset(b);
    long base = ca.live, step;
    for (step = 1; step < 20000; step++) {
      ca.fail_at = ca.calls + step;
      int rc = (data ? ddbst_model_view_data : ddbst_model_view_json)(m, SEED,
                                                                     b, &err);
      ca.fail_at = 0;
      if (rc == 0) break;
      if (rc != DDBST_ENOMEM)
        fail_msg("allocation %ld failing: %d %s: %s", step, rc, err.path,
                 err.message);
      assert_int_equal(ddbst_buf_len(b), 0);
      /* the buffer may have grown; nothing else is left */
      if (ca.live > base + 1) fail_msg("allocation %ld: %ld live", step, ca.live);
    }
    assert_true(step > 10 && step < 20000);
    assert_true(ddbst_buf_len(b) > 0);
    ddbst_buf_free(b);
    ddbst_model_free(m);
    assert_int_equal(ca.live, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rows_are_what_a_create_writes),
      cmocka_unit_test(a_seed_gives_the_same_bytes),
      cmocka_unit_test(every_pattern_reads_rows),
      cmocka_unit_test(every_condition_is_read_as_dynamodb_reads_it),
      cmocka_unit_test(filters_apply_after_the_limit),
      cmocka_unit_test(data_is_batch_writes_of_every_row),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
