/* Scans on DynamoDB Local: a few thousand items of every SaaS entity, their
 * unique guards and an item of no entity, read in 4 parallel segments a
 * small page at a time, each page continued from the sealed cursor of the
 * one before (kept as text between pages, as a driver that resumes would):
 * every item is seen exactly once. Then orphan guards: a holder deleted
 * and another's email changed by raw writes that leave their guards, and
 * the audit names exactly those two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { ORGS = 20, USERS = 150, PROJECTS = 900, EVENTS = 1800, SEGMENTS = 4 };

static ddbst_cursor_keys *keys;

/* Every key written, "PK\tSK", for the oracle. */
static char **written;
static size_t nwritten, capwritten;

static void remember(const char *pk, const char *sk) {
  if (nwritten == capwritten) {
    capwritten = capwritten ? 2 * capwritten : 1024;
    written = realloc(written, capwritten * sizeof *written);
    assert_non_null(written);
  }
  size_t n = strlen(pk) + strlen(sk) + 2;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "%s\t%s", pk, sk);
  written[nwritten++] = s;
}

/* The item's table keys, remembered. */
static void remember_item(ddbst_item *it) {
  ddbst_error err;
  int n = ddbst_item_build_keys(it, &err);
  assert_true(n >= 2);
  const char *name, *pk = NULL, *sk = NULL;
  for (int i = 0; i < n; i++) {
    const char *v;
    assert_int_equal(ddbst_item_key(it, i, &name, &v, NULL), 0);
    if (!strcmp(name, "PK")) pk = v;
    if (!strcmp(name, "SK")) sk = v;
  }
  remember(pk, sk);
}

static int by_text(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* f->item: a fresh item of `entity` with the name, value pairs of `kv`
 * (NULL-terminated). */
static ddbst_item *make(itest_fixture *f, const char *entity,
                        const char *const *kv) {
  ddbst_item *it = f->item;
  assert_int_equal(ddbst_item_reset(it, ddbst_model_entity(f->model, entity)), 0);
  for (int i = 0; kv[i]; i += 2)
    if (ddbst_item_set_by_name(it, kv[i], kv[i + 1], DDBST_NUL_TERMINATED,
                               &f->err))
      fail_msg("%s: %s", f->err.path, f->err.message);
  return it;
}
#define MAKE(f, entity, ...) make((f), (entity), (const char *const[]){__VA_ARGS__, NULL})

static void batch_flush(itest_fixture *f, ddbst_batch *b) {
  int n = ddbst_batch_request_count(b);
  for (int i = 0; i < n; i++) {
    int op = ddbst_batch_request(b, i, 0, itest_body(f), &f->err);
    itest_ok(f, op);
    yajl_val un = yajl_tree_get(f->response, (const char *[]){"UnprocessedItems", 0},
                                yajl_t_object);
    assert_true(!un || YAJL_GET_OBJECT(un)->len == 0);
  }
  ddbst_batch_reset(b);
}

static void fill(itest_fixture *f) {
  ddbst_model *m = f->model;
  ddbst_batch *b = ddbst_batch_new(m);
  char id[64], ts[64];
  int queued = 0;
  for (int o = 0; o < ORGS; o++) {
    snprintf(id, sizeof id, "o%d", o);
    MAKE(f, "Organisation", "orgId", id, "name", "Org", "plan", "pro");
    assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
    remember_item(f->item);
    queued++;
  }
  for (int p = 0; p < PROJECTS; p++) {
    char org[16];
    snprintf(org, sizeof org, "o%d", p % ORGS);
    snprintf(id, sizeof id, "p%d", p);
    snprintf(ts, sizeof ts, "2026-01-%02dT10:00:%02dZ", 1 + p % 28, p % 60);
    MAKE(f, "Project", "orgId", org, "projectId", id, "createdAt", ts,
                 "name", "Site", "status", p % 3 ? "active" : "archived");
    assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
    remember_item(f->item);
    if (++queued % 500 == 0) batch_flush(f, b);
  }
  for (int e = 0; e < EVENTS; e++) {
    char proj[16], eid[32];
    snprintf(proj, sizeof proj, "p%d", e % 50);
    snprintf(ts, sizeof ts, "2026-02-%02dT11:%02d:00Z", 1 + e % 28, e % 60);
    snprintf(eid, sizeof eid, "01J0000000000000000000%04d", e);
    MAKE(f, "Event", "projectId", proj, "ts", ts, "eventId", eid,
                 "type", "click");
    assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
    remember_item(f->item);
    if (++queued % 500 == 0) batch_flush(f, b);
  }
  batch_flush(f, b);
  ddbst_batch_free(b);
  /* users one by one: each create is a transaction with its email's guard */
  for (int u = 0; u < USERS; u++) {
    char org[16], email[64];
    snprintf(org, sizeof org, "o%d", u % ORGS);
    snprintf(id, sizeof id, "u%d", u);
    snprintf(email, sizeof email, "User%d@Example.com", u);
    MAKE(f, "User", "orgId", org, "userId", id, "email", email, "role",
                 "member", "name", "N");
    remember_item(f->item);
    char guard[80];
    snprintf(guard, sizeof guard, "EMAIL#user%d@example.com", u);
    remember(guard, guard);
    MAKE(f, "User", "orgId", org, "userId", id, "email", email, "role",
                 "member", "name", "N");
    itest_ok(f, ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                                  itest_body(f), &f->err));
  }
}

/* PutItem of an item of no entity, in the fixture's table. */
static void put_legacy(itest_fixture *f) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"TableName\":\"%s\",\"Item\":{\"PK\":{\"S\":\"LEGACY#1\"},"
           "\"SK\":{\"S\":\"INVOICE#7\"},\"_type\":{\"S\":\"Invoice\"},"
           "\"total\":{\"N\":\"12.50\"}}}",
           f->table);
  assert_int_equal(itest_send_json(f, "PutItem", body), 200);
  remember("LEGACY#1", "INVOICE#7");
}

static void every_item_once_in_four_segments(void **state) {
  itest_fixture *f = *state;
  ddbst_model *m = f->model;
  fill(f);
  put_legacy(f);

  ddbst_scan *seg[SEGMENTS];
  char *cursor[SEGMENTS] = {NULL};
  int done[SEGMENTS] = {0}, pages = 0, unknown = 0;
  for (int s = 0; s < SEGMENTS; s++) {
    seg[s] = ddbst_scan_new(m);
    assert_int_equal(ddbst_scan_segment(seg[s], (uint32_t)s, SEGMENTS, &f->err), 0);
  }
  ddbst_page *pg = ddbst_page_new(m);
  ddbst_buf *next = ddbst_buf_new(NULL);
  char **seen = malloc((nwritten + 16) * sizeof *seen);
  size_t nseen = 0;
  /* the segments in turn, a page each, as parallel workers would */
  for (int left = SEGMENTS; left;) {
    for (int s = 0; s < SEGMENTS; s++) {
      if (done[s]) continue;
      int op = ddbst_scan_request(seg[s], 0, 97, cursor[s],
                                  DDBST_NUL_TERMINATED, keys, DDBST_NOW,
                                  itest_body(f), &f->err);
      itest_ok(f, op);
      const char *answer = itest_client_body(f->client);
      int n = ddbst_page_parse_scan(pg, seg[s], answer, strlen(answer), &f->err);
      if (n < 0) fail_msg("page: %s: %s", f->err.path, f->err.message);
      pages++;
      yajl_val items = yajl_tree_get(f->response, (const char *[]){"Items", 0},
                                     yajl_t_array);
      assert_int_equal(YAJL_GET_ARRAY(items)->len, (size_t)n);
      for (int i = 0; i < n; i++) {
        yajl_val it = YAJL_GET_ARRAY(items)->values[i];
        const char *pk = itest_s(it, "PK"), *sk = itest_s(it, "SK");
        size_t len = strlen(pk) + strlen(sk) + 2;
        seen[nseen] = malloc(len);
        snprintf(seen[nseen++], len, "%s\t%s", pk, sk);
        int e = ddbst_page_item_entity(pg, i);
        const char *type = itest_s(it, "_type");
        if (e < 0) {
          unknown++;
          assert_true(!strcmp(type, "User.email") || !strcmp(type, "Invoice"));
        } else {
          assert_string_equal(ddbst_model_entity_name(m, e), type);
        }
      }
      free(cursor[s]);
      cursor[s] = NULL;
      int more = ddbst_page_next_cursor(pg, keys, DDBST_NOW, next, &f->err);
      assert_true(more >= 0);
      if (more) {
        cursor[s] = malloc(ddbst_buf_len(next) + 1);
        memcpy(cursor[s], ddbst_buf_data(next), ddbst_buf_len(next) + 1);
      } else {
        done[s] = 1;
        left--;
      }
    }
  }
  /* exactly the oracle: nothing missed, nothing twice */
  assert_int_equal(nseen, nwritten);
  qsort(seen, nseen, sizeof *seen, by_text);
  qsort(written, nwritten, sizeof *written, by_text);
  for (size_t i = 0; i < nseen; i++) assert_string_equal(seen[i], written[i]);
  assert_int_equal(unknown, USERS + 1);
  assert_true(pages > 4 * SEGMENTS);
  for (size_t i = 0; i < nseen; i++) free(seen[i]);
  free(seen);

  /* orphans: a holder deleted, another's email changed, both raw */
  char body[512];
  snprintf(body, sizeof body,
           "{\"TableName\":\"%s\",\"Key\":{\"PK\":{\"S\":\"ORG#o7\"},\"SK\":{"
           "\"S\":\"USER#u7\"}}}",
           f->table);
  assert_int_equal(itest_send_json(f, "DeleteItem", body), 200);
  snprintf(body, sizeof body,
           "{\"TableName\":\"%s\",\"Key\":{\"PK\":{\"S\":\"ORG#o12\"},\"SK\":"
           "{\"S\":\"USER#u12\"}},\"UpdateExpression\":\"SET email = :e\","
           "\"ExpressionAttributeValues\":{\":e\":{\"S\":\"new@example.com\"}}}",
           f->table);
  assert_int_equal(itest_send_json(f, "UpdateItem", body), 200);

  /* a whole-table scan, page by page, into the audit; a page's holders
   * read before the next page */
  ddbst_scan *all = ddbst_scan_new(m);
  ddbst_guard_audit *a = ddbst_guard_audit_new(m);
  char *c = NULL;
  int guards = 0, requests = 0;
  for (;;) {
    itest_ok(f, ddbst_scan_request(all, 0, 500, c, DDBST_NUL_TERMINATED, keys,
                                   DDBST_NOW, itest_body(f), &f->err));
    const char *answer = itest_client_body(f->client);
    assert_true(ddbst_page_parse_scan(pg, all, answer, strlen(answer), &f->err) >= 0);
    int g = ddbst_guard_audit_add(a, pg, &f->err);
    assert_true(g >= 0);
    guards += g;
    free(c);
    c = NULL;
    if (!ddbst_page_next_cursor(pg, keys, DDBST_NOW, next, &f->err)) break;
    c = malloc(ddbst_buf_len(next) + 1);
    memcpy(c, ddbst_buf_data(next), ddbst_buf_len(next) + 1);
  }
  assert_int_equal(guards, USERS);
  ddbst_buf *req = ddbst_buf_new(NULL);
  int op;
  while ((op = ddbst_guard_audit_request(a, req, &f->err)) > 0) {
    assert_int_equal(op, DDBST_OP_BATCH_GET_ITEM);
    assert_int_equal(itest_send_json(f, "BatchGetItem", ddbst_buf_data(req)), 200);
    const char *answer = itest_client_body(f->client);
    assert_true(ddbst_guard_audit_answer(a, answer, strlen(answer), &f->err) >= 0);
    requests++;
  }
  assert_int_equal(op, 0);
  assert_true(requests >= 2); /* 150 holders: at least two requests */
  /* exactly the two, in the order the scan met their guards */
  int missing = 0, stale = 0, k, kind, entity;
  const char *g, *hpk, *hsk, *u;
  for (k = 0; (kind = ddbst_guard_audit_orphan(a, k, &g, &hpk, &hsk, &entity,
                                               &u)) > 0;
       k++) {
    assert_string_equal(ddbst_model_entity_name(m, entity), "User");
    assert_string_equal(u, "email");
    if (kind == DDBST_GUARD_MISSING) {
      missing++;
      assert_string_equal(g, "EMAIL#user7@example.com");
      assert_string_equal(hpk, "ORG#o7");
      assert_string_equal(hsk, "USER#u7");
    } else {
      stale++;
      assert_int_equal(kind, DDBST_GUARD_STALE);
      assert_string_equal(g, "EMAIL#user12@example.com");
      assert_string_equal(hpk, "ORG#o12");
      assert_string_equal(hsk, "USER#u12");
    }
  }
  assert_int_equal(kind, DDBST_ENOTFOUND);
  assert_int_equal(missing, 1);
  assert_int_equal(stale, 1);
  ddbst_buf_free(req);
  ddbst_guard_audit_free(a);
  ddbst_scan_free(all);
  ddbst_buf_free(next);
  ddbst_page_free(pg);
  for (int s = 0; s < SEGMENTS; s++) {
    free(cursor[s]);
    ddbst_scan_free(seg[s]);
  }
  for (size_t i = 0; i < nwritten; i++) free(written[i]);
  free(written);
}

int main(void) {
  if (itest_should_skip("test_scan")) return ITEST_SKIP;
  keys = ddbst_cursor_keys_new(NULL);
  ddbst_error err;
  if (ddbst_cursor_keys_add_hex(
          keys,
          "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
          &err))
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(every_item_once_in_four_segments,
                                      itest_setup_saas, itest_teardown),
  };
  int failed = cmocka_run_group_tests_name("scan", tests, NULL, NULL);
  ddbst_cursor_keys_free(keys);
  return failed;
}
