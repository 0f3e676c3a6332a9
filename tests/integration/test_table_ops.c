/* UpdateTable, DescribeTable and DeleteTable on DynamoDB Local (issue 18):
 * a table made from tests/integration/models/games_v1.json (examples/games
 * without its Leaderboard index) holds scores; ddbst's UpdateTable built
 * from examples/games/model.json adds Leaderboard to the live table, and
 * once DescribeTable says it is ACTIVE the new pattern returns the items
 * that were there before, with no key written for it (a multi-attribute
 * index is backfilled from the attributes themselves). Removing it again
 * and deleting the table go through ddbst's bodies too. UpdateTimeToLive
 * enables expiry on the SaaS model's ttlAttribute, and a model without it
 * disables it again, each read back with DescribeTimeToLive. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

static const char *index_status(itest_fixture *f, const char *index) {
  const char *path[] = {"Table", "GlobalSecondaryIndexes", NULL};
  yajl_val list = yajl_tree_get(f->response, path, yajl_t_array);
  for (size_t i = 0; list && i < list->u.array.len; i++) {
    yajl_val ix = list->u.array.values[i];
    const char *np[] = {"IndexName", NULL}, *sp[] = {"IndexStatus", NULL};
    yajl_val n = yajl_tree_get(ix, np, yajl_t_string);
    yajl_val s = yajl_tree_get(ix, sp, yajl_t_string);
    const char *name = n ? YAJL_GET_STRING(n) : NULL;
    if (name && !strcmp(name, index))
      return s ? YAJL_GET_STRING(s) : "";
  }
  return NULL;
}

/* DescribeTable (ddbst's body) until `index` is `want` (NULL: gone). */
static void wait_index(itest_fixture *f, const char *index, const char *want) {
  for (int i = 0; i < 300; i++) {
    itest_ok(f, ddbst_describe_table_request(f->model, itest_body(f), &f->err));
    const char *st = index_status(f, index);
    if (want ? st && !strcmp(st, want) : !st) return;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fail_msg("index %s never became %s", index, want ? want : "gone");
}

static void add_index_to_a_live_table(void **state) {
  (void)state;
  itest_fixture *f = itest_open(
      DDBST_SOURCE_DIR "/tests/integration/models/games_v1.json", "tops");
  assert_non_null(f);
  ITEST_CREATE(f, "Score", "playerId=p1", "gameId=g1", "region=eu",
               "score=900", "playedAt=2026-01-01T10:00:00Z", "mode=solo");
  ITEST_CREATE(f, "Score", "playerId=p2", "gameId=g1", "region=eu",
               "score=1000", "playedAt=2026-01-02T10:00:00Z", "mode=solo");
  ITEST_CREATE(f, "Score", "playerId=p3", "gameId=g1", "region=eu",
               "score=1000", "playedAt=2026-01-03T10:00:00Z", "mode=duo");
  ITEST_CREATE(f, "Score", "playerId=p1", "gameId=g1", "region=us",
               "score=5000", "playedAt=2026-01-04T10:00:00Z", "mode=solo");
  ITEST_CREATE(f, "Score", "playerId=p4", "gameId=g1", "score=7000",
               "playedAt=2026-01-05T10:00:00Z", "mode=solo");

  /* the model with the index, on this table */
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = f->table;
  ddbst_model *v2 = NULL, *v1 = f->model;
  ddbst_error err;
  assert_int_equal(ddbst_model_load_file(DDBST_SOURCE_DIR
                                         "/examples/games/model.json",
                                         &o, &v2, &err),
                   0);
  /* a local index cannot be added; an unknown one is no index */
  assert_int_equal(ddbst_update_table_add_index_request(v2, "Nope", itest_body(f),
                                                        &f->err),
                   DDBST_ENOTFOUND);
  assert_int_equal(ddbst_buf_len(f->body), 0);

  /* the fixture's values are of its model: an item of v2's now */
  ddbst_item *v1_item = f->item;
  f->model = v2;
  f->item = ddbst_item_new(v2, 0);
  itest_ok(f, ddbst_update_table_add_index_request(v2, "Leaderboard",
                                                   itest_body(f), &f->err));
  wait_index(f, "Leaderboard", "ACTIVE");

  ITEST_VALUES(f, "Score", "gameId=g1", "region=eu");
  yajl_val items = itest_query(f, "topScores", NULL);
  itest_expect(f, items, "playerId", "p3 p2 p1",
               "topScores g1/eu after UpdateTable");
  ITEST_VALUES(f, "Score", "gameId=g1", "region=us");
  itest_expect(f, itest_query(f, "topScores", NULL), "playerId", "p1",
               "topScores g1/us after UpdateTable");

  /* and away again: the model without it removes it */
  ddbst_item_free(f->item);
  f->item = v1_item;
  f->model = v1;
  assert_int_equal(ddbst_update_table_remove_index_request(
                       v2, "Leaderboard", itest_body(f), &f->err),
                   DDBST_EINVAL);
  itest_ok(f, ddbst_update_table_remove_index_request(v1, "Leaderboard",
                                                      itest_body(f), &f->err));
  wait_index(f, "Leaderboard", NULL);
  ddbst_model_free(v2);

  /* DeleteTable: then DescribeTable finds no table */
  itest_ok(f, ddbst_delete_table_request(f->model, itest_body(f), &f->err));
  for (int i = 0; i < 100; i++) {
    int op = ddbst_describe_table_request(f->model, itest_body(f), &f->err);
    if (itest_send(f, op) == 400) break;
  }
  itest_refused(f, ddbst_describe_table_request(f->model, itest_body(f), &f->err),
                "ResourceNotFoundException");
  f->table[0] = '\0'; /* deleted: itest_close has nothing to delete */
  assert_int_equal(itest_close(f), 0);
}

/* DescribeTimeToLive of f's table (a body written here: ddbst builds no
 * DescribeTimeToLive), as "STATUS ATTRIBUTE". */
static const char *ttl_status(itest_fixture *f, char *out, size_t cap) {
  char body[256];
  snprintf(body, sizeof body, "{\"TableName\":\"%s\"}", f->table);
  assert_int_equal(itest_send_json(f, "DescribeTimeToLive", body), 200);
  const char *sp[] = {"TimeToLiveDescription", "TimeToLiveStatus", NULL};
  const char *ap[] = {"TimeToLiveDescription", "AttributeName", NULL};
  yajl_val st = yajl_tree_get(f->response, sp, yajl_t_string);
  yajl_val at = yajl_tree_get(f->response, ap, yajl_t_string);
  snprintf(out, cap, "%s %s", st ? YAJL_GET_STRING(st) : "-",
           at ? YAJL_GET_STRING(at) : "-");
  return out;
}

static void time_to_live_on_and_off(void **state) {
  (void)state;
  itest_fixture *f =
      itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "ttl");
  assert_non_null(f);
  char status[160];
  assert_string_equal(ttl_status(f, status, sizeof status), "DISABLED -");
  itest_ok(f, ddbst_update_time_to_live_request(f->model, NULL, itest_body(f),
                                                &f->err));
  assert_string_equal(ttl_status(f, status, sizeof status),
                      "ENABLED expiresAt");

  /* the model without ttlAttribute (the blog's) turns it off */
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = f->table;
  ddbst_model *next = NULL;
  ddbst_error err;
  assert_int_equal(ddbst_model_load_file(DDBST_SOURCE_DIR
                                         "/examples/blog/model.json",
                                         &o, &next, &err),
                   0);
  assert_int_equal(ddbst_update_time_to_live_request(
                       f->model, "expiresAt", itest_body(f), &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(f->body), 0);
  /* DynamoDB wants the attribute it was enabled on */
  itest_refused(f, ddbst_update_time_to_live_request(next, "validUntil",
                                                     itest_body(f), &f->err),
                "ValidationException");
  itest_ok(f, ddbst_update_time_to_live_request(next, "expiresAt",
                                                itest_body(f), &f->err));
  assert_string_equal(ttl_status(f, status, sizeof status), "DISABLED -");
  ddbst_model_free(next);
  assert_int_equal(itest_close(f), 0);
}

int main(void) {
  if (itest_should_skip("test_table_ops")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(add_index_to_a_live_table),
      cmocka_unit_test(time_to_live_on_and_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
