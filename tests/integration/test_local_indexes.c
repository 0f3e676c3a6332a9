/* Local secondary indexes on DynamoDB Local (issue 18):
 * tests/integration/models/local_indexes.json keys Order in the table by
 * USER#{userId} / ORDER#{orderId} and in two local indexes sharing that
 * partition key: LSI1 "PLACED#{placedAt}#{orderId}" (ALL) and LSI2
 * "TOTAL#{total}#{orderId}" (KEYS_ONLY; an order without a total is not in
 * it). Orders are written with ddbst's PutItem bodies and read back
 * through every pattern on the local indexes, with each sort-key condition,
 * ascending and descending, paged with sealed cursors, against an oracle
 * computed from the values written. A cursor does not open for another
 * index or partition; ConsistentRead is taken on a local index and refused
 * on a global one; updates keep the local keys true without touching the
 * table's partition key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NUSERS = 3, NORDERS = 14 };

typedef struct order {
  char user[8];
  char id[8];
  char placed[24]; /* canonical: 2026-MM-DDTHH:00:00Z */
  long total;      /* -1: none (not in LSI2) */
} order;

static itest_fixture *fixture;
static const ddbst_cursor_keys *keys; /* the fixture's */
static order orders[NUSERS * NORDERS];

static unsigned long rng = 18;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static void random_time(char *out, size_t cap) {
  /* few distinct instants, so that orders share one and the order id
   * decides */
  snprintf(out, cap, "2026-%02u-%02uT%02u:00:00Z", 1 + rnd(3), 1 + rnd(4),
           rnd(3) * 8);
}

static void write_order(itest_fixture *f, const order *o) {
  char u[32], i[32], p[48], t[32];
  ITEST_FORMAT(u, "userId=%s", o->user);
  ITEST_FORMAT(i, "orderId=%s", o->id);
  ITEST_FORMAT(p, "placedAt=%s", o->placed);
  snprintf(t, sizeof t, "total=%ld", o->total);
  if (o->total >= 0)
    ITEST_CREATE(f, "Order", u, i, p, t, "status=open");
  else
    ITEST_CREATE(f, "Order", u, i, p, "status=open");
}

static int write_items(void **state) {
  fixture = itest_open_sealed(
      DDBST_SOURCE_DIR "/tests/integration/models/local_indexes.json", "lsi", 1);
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  keys = fixture->keys;
  for (int u = 0; u < NUSERS; u++) {
    char name[32], uid[32];
    snprintf(uid, sizeof uid, "userId=u%d", u + 1);
    snprintf(name, sizeof name, "name=user %d", u + 1);
    /* in the same partition, in no local index: never on their pages */
    ITEST_CREATE(fixture, "Profile", uid, name);
    for (int k = 0; k < NORDERS; k++) {
      order *o = &orders[u * NORDERS + k];
      snprintf(o->user, sizeof o->user, "u%d", u + 1);
      snprintf(o->id, sizeof o->id, "o%02d", k);
      random_time(o->placed, sizeof o->placed);
      o->total = rnd(4) == 0 ? -1 : (long)(1 + rnd(5)) * 1000 + rnd(3);
      write_order(fixture, o);
    }
  }
  return 0;
}

/* ---- the oracle ---- */

typedef struct cond {
  int kind; /* DDBST_SK_* */
  const char *v, *v2;
} cond;

/* -1, 0, 1 as a compares to b, for the facet the index sorts on first */
static int facet_cmp(int by_total, const order *a, const char *b) {
  if (by_total) {
    long x = strtol(b, NULL, 10);
    return a->total < x ? -1 : a->total > x;
  }
  int c = strcmp(a->placed, b);
  return c < 0 ? -1 : c > 0;
}

static int holds(int by_total, const order *o, const cond *c) {
  switch (c->kind) {
  case DDBST_SK_GTE: return facet_cmp(by_total, o, c->v) >= 0;
  case DDBST_SK_GT: return facet_cmp(by_total, o, c->v) > 0;
  case DDBST_SK_LTE: return facet_cmp(by_total, o, c->v) <= 0;
  case DDBST_SK_LT: return facet_cmp(by_total, o, c->v) < 0;
  case DDBST_SK_BETWEEN:
    return facet_cmp(by_total, o, c->v) >= 0 &&
           facet_cmp(by_total, o, c->v2) <= 0;
  case DDBST_SK_BEGINS: return !strncmp(o->placed, c->v, strlen(c->v));
  default: return 1;
  }
}

static int sort_by_total;
static int order_cmp(const void *pa, const void *pb) {
  const order *a = *(const order *const *)pa, *b = *(const order *const *)pb;
  if (sort_by_total && a->total != b->total) return a->total < b->total ? -1 : 1;
  if (!sort_by_total) {
    int c = strcmp(a->placed, b->placed);
    if (c) return c;
  }
  return strcmp(a->id, b->id);
}

/* The SKs ("ORDER#o03 ORDER#o01 ...") of `user`'s orders in the index, in
 * the index's order (reversed when `desc`), that `c` holds for. */
static void oracle(const char *user, int by_total, const cond *c, int desc,
                   char *out, size_t cap) {
  const order *list[NORDERS];
  int n = 0;
  for (int i = 0; i < NUSERS * NORDERS; i++) {
    const order *o = &orders[i];
    if (strcmp(o->user, user) || (by_total && o->total < 0)) continue;
    if (holds(by_total, o, c)) list[n++] = o;
  }
  sort_by_total = by_total;
  qsort(list, (size_t)n, sizeof *list, order_cmp);
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    const order *o = list[desc ? n - 1 - i : i];
    used += (size_t)snprintf(out + used, cap - used, "%sORDER#%s",
                             used ? " " : "", o->id);
  }
}

/* ---- the queries ---- */

static ddbst_query condition(itest_fixture *f, const char *attr,
                             const cond *c) {
  if (c->kind == DDBST_SK_NONE) {
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    return q;
  }
  return itest_condition(f, c->kind, attr, c->v, c->v2);
}

static void check_pattern(const char *pattern, int by_total, int desc,
                          const cond *c) {
  itest_fixture *f = fixture;
  for (int u = 0; u < NUSERS; u++) {
    char uid[32], user[8], want[2048], what[256];
    snprintf(user, sizeof user, "u%d", u + 1);
    snprintf(uid, sizeof uid, "userId=%s", user);
    ITEST_VALUES(f, "Order", uid);
    ddbst_query q = condition(f, by_total ? "total" : "placedAt", c);
    yajl_val items = itest_query_cursors(f, pattern, &q, keys);
    oracle(user, by_total, c, desc, want, sizeof want);
    snprintf(what, sizeof what, "%s of %s, condition %d %s %s", pattern, user,
             c->kind, c->v ? c->v : "", c->v2 ? c->v2 : "");
    itest_expect(f, items, "SK", want, what);
    /* each item of its own partition; on the KEYS_ONLY index, its keys */
    for (size_t i = 0; i < items->u.array.len; i++) {
      yajl_val it = items->u.array.values[i];
      char pk[32];
      snprintf(pk, sizeof pk, "USER#%s", user);
      assert_string_equal(itest_s(it, "PK"), pk);
      if (by_total) /* KEYS_ONLY: the keys and nothing else */
        itest_expect_attributes(f, it, "PK SK LSI2SK");
    }
  }
}

static const cond date_conds[] = {
    {DDBST_SK_NONE, NULL, NULL},
    {DDBST_SK_GTE, "2026-02-03T08:00:00Z", NULL},
    {DDBST_SK_GT, "2026-02-03T08:00:00Z", NULL},
    {DDBST_SK_LT, "2026-02-02T16:00:00Z", NULL},
    {DDBST_SK_LTE, "2026-02-02T16:00:00Z", NULL},
    {DDBST_SK_BETWEEN, "2026-01-02T00:00:00Z", "2026-03-01T16:00:00Z"},
    {DDBST_SK_BEGINS, "2026-02", NULL},
};

static const cond total_conds[] = {
    {DDBST_SK_NONE, NULL, NULL},    {DDBST_SK_GTE, "3000", NULL},
    {DDBST_SK_GT, "3001", NULL},    {DDBST_SK_LT, "2002", NULL},
    {DDBST_SK_LTE, "2002", NULL},   {DDBST_SK_BETWEEN, "2000", "4001"},
};

static void orders_by_date(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof date_conds / sizeof *date_conds; i++) {
    check_pattern("ordersByDate", 0, 0, &date_conds[i]);
    check_pattern("ordersByDateDesc", 0, 1, &date_conds[i]);
  }
}

static void orders_by_total_keys_only(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof total_conds / sizeof *total_conds; i++)
    check_pattern("ordersByTotal", 1, 0, &total_conds[i]);
}

/* The first page's cursor of ordersByDate for u1. */
static void first_cursor(itest_fixture *f, ddbst_buf *cursor) {
  ITEST_VALUES(f, "Order", "userId=u1");
  int p = ddbst_model_pattern(f->model, "ordersByDate");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  itest_ok(f, ddbst_query_request(f->item, p, &q, itest_body(f), &f->err));
  ddbst_page *pg = ddbst_page_new(f->model);
  assert_non_null(pg);
  ddbst_error err;
  const char *body = itest_client_body(f->client);
  assert_int_equal(ddbst_page_parse_query(pg, f->item, p, body,
                                          strlen(body), &err),
                   3);
  assert_true(ddbst_page_has_more(pg));
  if (ddbst_page_next_cursor(pg, keys, DDBST_NOW, cursor, &err) != 1)
    fail_msg("ddbst_page_next_cursor: %s (%s)", err.message, err.path);
  ddbst_page_free(pg);
}

static void expect_cursor_refused(itest_fixture *f, const char *pattern,
                                  const char *user, ddbst_buf *cursor,
                                  const char *message) {
  char uid[32];
  snprintf(uid, sizeof uid, "userId=%s", user);
  ITEST_VALUES(f, "Order", uid);
  itest_cursor_refused(f, pattern, cursor, message);
}

static void cursor_bound_to_index_and_partition(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  first_cursor(f, cursor);
  /* another local index of the same partition, the same index of another
   * partition, the same index in the other order */
  /* another pattern of the same partition is named (the message of issue
   * 16); another partition is not told apart from an altered cursor */
  expect_cursor_refused(f, "ordersByTotal", "u1", cursor,
                        ITEST_MSG_MADE_FOR("ordersByDate", "ordersByTotal"));
  expect_cursor_refused(f, "ordersByDate", "u2", cursor, ITEST_MSG_NO_OPEN);
  expect_cursor_refused(f, "ordersByDateDesc", "u1", cursor,
                        ITEST_MSG_MADE_FOR("ordersByDate", "ordersByDateDesc"));
  /* the control: it opens where it was made, and reads the next page */
  ITEST_VALUES(f, "Order", "userId=u1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  q.cursor_keys = keys;
  itest_ok(f, ddbst_query_request(f->item,
                                  ddbst_model_pattern(f->model, "ordersByDate"),
                                  &q, itest_body(f), &f->err));
  char want[2048];
  cond none = {DDBST_SK_NONE, NULL, NULL};
  oracle("u1", 0, &none, 0, want, sizeof want);
  /* the second page: the oracle's 4th to 6th */
  char *p = want;
  for (int i = 0; i < 3; i++) p = strchr(p, ' ') + 1;
  char *end = p;
  for (int i = 0; i < 3 && end; i++) end = strchr(end + 1, ' ');
  if (end) *end = '\0';
  const char *path[] = {"Items", NULL};
  itest_expect(f, yajl_tree_get(f->response, path, yajl_t_array), "SK", p,
               "ordersByDate of u1, the page after the cursor");
  ddbst_buf_free(cursor);
}

static void consistent_reads(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Order", "userId=u2");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.flags = DDBST_CONSISTENT_READ;
  yajl_val items = itest_query_cursors(f, "ordersByDate", &q, keys);
  assert_non_null(strstr(ddbst_buf_data(f->body), "\"ConsistentRead\":true"));
  char want[2048];
  cond none = {DDBST_SK_NONE, NULL, NULL};
  oracle("u2", 0, &none, 0, want, sizeof want);
  itest_expect(f, items, "SK", want, "ordersByDate of u2, consistent");

  ITEST_VALUES(f, "Order", "status=open");
  memset(&f->err, 0, sizeof f->err);
  int rc = ddbst_query_request(f->item,
                               ddbst_model_pattern(f->model, "ordersByStatus"),
                               &q, itest_body(f), &f->err);
  assert_int_equal(rc, DDBST_EINVAL);
  assert_string_equal(f->err.message,
                      "a global secondary index cannot be read consistently");
}

/* An order of u3 loses its total (it leaves LSI2: LSI2SK removed, PK kept) and
 * moves in time (LSI1SK rewritten); the pages follow. */
static void updates_keep_local_keys(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  order *o = &orders[2 * NORDERS];
  while (o->total < 0) o++; /* one that is in LSI2 */
  char oid[32];
  snprintf(oid, sizeof oid, "orderId=%s", o->id);
  ITEST_VALUES(f, "Order", "userId=u3", oid, "placedAt=2026-03-31T23:00:00Z",
               "status=open");
  assert_int_equal(ddbst_item_remove(f->item, itest_attr(f, "total")), 0);
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  const char *body = ddbst_buf_data(f->body);
  if (!strstr(body, "REMOVE"))
    fail_msg("no REMOVE in %s", body);
  snprintf(o->placed, sizeof o->placed, "2026-03-31T23:00:00Z");
  o->total = -1;

  ITEST_VALUES(f, "Order", "userId=u3", oid);
  yajl_val item = itest_get(f);
  assert_non_null(item);
  itest_expect_s(item, "PK", "USER#u3");
  char lsi1[64];
  snprintf(lsi1, sizeof lsi1, "PLACED#2026-03-31T23:00:00Z#%s", o->id);
  itest_expect_s(item, "LSI1SK", lsi1);
  itest_expect_s(item, "LSI2SK", NULL);
  itest_expect_n(item, "total", NULL);

  cond none = {DDBST_SK_NONE, NULL, NULL};
  check_pattern("ordersByDate", 0, 0, &none);
  check_pattern("ordersByDateDesc", 0, 1, &none);
  check_pattern("ordersByTotal", 1, 0, &none);
}

int main(void) {
  if (itest_should_skip("test_local_indexes")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orders_by_date),
      cmocka_unit_test(orders_by_total_keys_only),
      cmocka_unit_test(cursor_bound_to_index_and_partition),
      cmocka_unit_test(consistent_reads),
      cmocka_unit_test(updates_keep_local_keys),
  };
  return cmocka_run_group_tests(tests, write_items, itest_teardown);
}
