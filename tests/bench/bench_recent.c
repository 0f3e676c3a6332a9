/* The rows of what the later issues added (issue 22 item 6): conditions on
 * a put and a filtered scan, scan pages and their cursors, hydration of a
 * page by BatchGetItem, and a page of a multi-attribute index read back
 * with its cursor. Built with DDBST_BENCH_PAGES (it parses pages). Each
 * row, like every other, must allocate nothing once warm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static struct {
  ddbst_expr *put_condition, *user_filter;
  ddbst_scan *scan, *users;
  ddbst_page *page, *answer, *scores;
  ddbst_hydrate *hydrate;
  ddbst_cursor_keys *keys;
  ddbst_item *typed, *score_typed, *score_values;
  ddbst_buf *scan_cursor, *score_cursor;
  char *page100; /* a Query answer of 100 Projects */
  size_t page100_len;
  char *batch100; /* the BatchGetItem answer of its 100 keys */
  size_t batch100_len;
  char *scores100; /* a Query answer of 100 Scores on Leaderboard */
  size_t scores100_len;
} R;

/* A put that must not replace a live Project: a condition on the stored
 * item, compiled once. */
static int op_put_conditional(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  BENCH_SET(c->item, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(c->item, c->p_created, BENCH_CREATED);
  BENCH_SET(c->item, c->p_name, BENCH_PROJECT_NAME);
  BENCH_SET(c->item, c->p_status, "active");
  ddbst_item_condition(c->item, R.put_condition, NULL);
  ddbst_buf_reset(c->out);
  return ddbst_put_request(c->item, 0, BENCH_NOW, c->out, NULL);
}

/* A scan of Users with a filter and a bound value. */
static int op_scan_filtered(bench_ctx *c) {
  ddbst_scan_bind(R.users, "role", "admin", 5, NULL);
  return ddbst_scan_request(R.users, 0, 100, NULL, 0, NULL, 0, c->out, NULL);
}

/* A Scan's page of 100 items parsed, each read typed. */
static int op_scan_page_100(bench_ctx *c) {
  (void)c;
  int n = ddbst_page_parse_scan(R.page, R.scan, R.page100, R.page100_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(R.page, i, R.typed, NULL);
    if (rc < 0) return rc;
  }
  return n;
}

/* The scan's next page: its sealed cursor opened into the Scan body. */
static int op_scan_cursor(bench_ctx *c) {
  return ddbst_scan_request(R.scan, 0, 100, ddbst_buf_data(R.scan_cursor),
                            ddbst_buf_len(R.scan_cursor), R.keys, BENCH_NOW,
                            c->out, NULL);
}

/* A page of 100 items to hydrate: its keys, and the BatchGetItem body. */
static int op_hydrate_begin_100(bench_ctx *c) {
  int n = ddbst_hydrate_begin(R.hydrate, R.page, NULL, 0, NULL);
  if (n != 1) return n < 0 ? n : DDBST_EINVAL;
  return ddbst_hydrate_request(R.hydrate, 0, 0, c->out, NULL);
}

/* The same, and its answer of 100 items parsed and read into the page's
 * slots: one whole hydration of a page, less the round trip. */
static int op_hydrate_read_100(bench_ctx *c) {
  int rc = op_hydrate_begin_100(c);
  if (rc < 0) return rc;
  rc = ddbst_page_parse(R.answer, DDBST_OP_BATCH_GET_ITEM, R.batch100,
                        R.batch100_len, NULL);
  if (rc < 0) return rc;
  rc = ddbst_hydrate_read(R.hydrate, 0, R.answer, NULL);
  return rc < 0 ? rc : ddbst_hydrate_pending(R.hydrate) == 0 ? 0 : DDBST_EINVAL;
}

/* 100 Scores of a multi-attribute index's partition, typed, and the
 * next page's cursor from the index's own attributes. */
static int op_parse_scores_100(bench_ctx *c) {
  int n = ddbst_page_parse_query(R.scores, R.score_values, c->top_scores,
                                 R.scores100, R.scores100_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(R.scores, i, R.score_typed, NULL);
    if (rc < 0) return rc;
  }
  return n < 0 ? n
               : ddbst_page_next_cursor(R.scores, R.keys, BENCH_NOW,
                                        R.score_cursor, NULL);
}

/* topScores' next page: the cursor of a multi-attribute index opened. */
static int op_query_leaderboard_cursor(bench_ctx *c) {
  ddbst_item_reset(c->score, 1);
  BENCH_SET(c->score, c->s_game, "g-7");
  BENCH_SET(c->score, c->s_region, "eu");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 25;
  q.cursor = ddbst_buf_data(R.score_cursor);
  q.cursor_len = ddbst_buf_len(R.score_cursor);
  q.cursor_keys = R.keys;
  q.now_unix_us = BENCH_NOW;
  ddbst_buf_reset(c->out);
  return ddbst_query_request(c->score, c->top_scores, &q, c->out, NULL);
}

/* {"Responses":{"saas-api-dev":[<the page's items>]}}: every key found. */
static char *batch_answer(const char *page, size_t *len) {
  const char *items = strchr(page, '[');
  const char *end = strstr(page, "],\"Count\"");
  static const char head[] = "{\"Responses\":{\"saas-api-dev\":";
  size_t n = items && end ? (size_t)(end - items) + 1 : 0;
  char *out = n ? malloc(sizeof head + n + 2) : NULL;
  if (!out) return NULL;
  memcpy(out, head, sizeof head - 1);
  memcpy(out + sizeof head - 1, items, n);
  memcpy(out + sizeof head - 1 + n, "}}", 3);
  *len = sizeof head - 1 + n + 2;
  return out;
}

/* A Leaderboard partition's page of 100 Scores, best first, with the
 * LastEvaluatedKey of the index (its four attributes and the table's). */
static char *scores_page(size_t *len) {
  size_t cap = 100 * 400 + 1024, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  n += (size_t)snprintf(buf, cap, "{\"Items\":[");
  int score = 0, last = 0;
  for (int i = 0; i < 100; i++) {
    score = 99000 - i * 7;
    n += (size_t)snprintf(
        buf + n, cap - n,
        "%s{\"PK\":{\"S\":\"PLAYER#p-%04d\"},\"SK\":{\"S\":\"SCORE#g-7#"
        "2026-03-14T09:00:00.000000Z\"},\"_type\":{\"S\":\"Score\"},"
        "\"gameId\":{\"S\":\"g-7\"},\"region\":{\"S\":\"eu\"},\"score\":"
        "{\"N\":\"%d\"},\"playedAt\":{\"S\":\"2026-03-14T09:00:00.000000Z\"},"
        "\"playerId\":{\"S\":\"p-%04d\"},\"mode\":{\"S\":\"solo\"}}",
        i ? "," : "", i, score, i);
    last = i;
  }
  n += (size_t)snprintf(
      buf + n, cap - n,
      "],\"Count\":100,\"ScannedCount\":100,\"LastEvaluatedKey\":{\"PK\":"
      "{\"S\":\"PLAYER#p-%04d\"},\"SK\":{\"S\":\"SCORE#g-7#"
      "2026-03-14T09:00:00.000000Z\"},\"gameId\":{\"S\":\"g-7\"},\"region\":"
      "{\"S\":\"eu\"},\"score\":{\"N\":\"%d\"},\"playedAt\":{\"S\":"
      "\"2026-03-14T09:00:00.000000Z\"}}}",
      last, score);
  *len = n;
  return buf;
}

/* A fixed sealing key, as bench_pages.c's. */
static const uint8_t recent_key[DDBST_CURSOR_KEY_BYTES] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
    0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
    0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};

static void check(const char *what, int rc, const ddbst_error *err) {
  if (rc < 0) bench_fail(what, rc, err);
}

void bench_recent(bench_ctx *c) {
  ddbst_error err;
  memset(&err, 0, sizeof err);
  static const char cond[] =
      "attribute_not_exists(projectId) or status = \"archived\"";
  static const char filter[] = "role = :role and attribute_exists(name)";
  check("ddbst_expr_parse (put)",
        ddbst_expr_parse(c->model, c->project, DDBST_EXPR_CONDITION, cond,
                         sizeof cond - 1, &R.put_condition, &err),
        &err);
  check("ddbst_expr_parse (scan filter)",
        ddbst_expr_parse(c->model, c->user, DDBST_EXPR_FILTER, filter,
                         sizeof filter - 1, &R.user_filter, &err),
        &err);
  R.scan = ddbst_scan_new(c->model);
  R.users = ddbst_scan_new(c->model);
  R.page = ddbst_page_new(c->model);
  R.answer = ddbst_page_new(c->model);
  R.scores = ddbst_page_new(c->games);
  R.hydrate = ddbst_hydrate_new(c->model);
  R.keys = ddbst_cursor_keys_new(&bench_allocator);
  R.typed = ddbst_item_new(c->model, c->project);
  R.score_typed = ddbst_item_new(c->games, 1);
  R.score_values = ddbst_item_new(c->games, 1);
  R.scan_cursor = ddbst_buf_new(&bench_allocator);
  R.score_cursor = ddbst_buf_new(&bench_allocator);
  int items = 0;
  R.page100 = bench_make_page(1 << 20, 100, &R.page100_len, &items);
  R.batch100 = R.page100 ? batch_answer(R.page100, &R.batch100_len) : NULL;
  R.scores100 = scores_page(&R.scores100_len);
  if (!R.scan || !R.users || !R.page || !R.answer || !R.scores || !R.hydrate || !R.keys ||
      !R.typed || !R.score_typed || !R.score_values ||
      !R.scan_cursor || !R.score_cursor || !R.batch100 || !R.scores100 ||
      items != 100)
    bench_fail("bench_recent setup", DDBST_ENOMEM, NULL);
  check("ddbst_cursor_keys_add", ddbst_cursor_keys_add(R.keys, recent_key, &err),
        &err);
  check("ddbst_scan_filter", ddbst_scan_filter(R.users, R.user_filter, &err),
        &err);
  /* The scan's first body, its page, and that page's cursor. */
  check("ddbst_scan_request",
        ddbst_scan_request(R.scan, 0, 100, NULL, 0, R.keys, 0, c->out, &err),
        &err);
  check("ddbst_page_parse_scan",
        ddbst_page_parse_scan(R.page, R.scan, R.page100, R.page100_len, &err),
        &err);
  if (ddbst_page_next_cursor(R.page, R.keys, BENCH_NOW, R.scan_cursor, &err) != 1)
    bench_fail("ddbst_page_next_cursor (scan)", DDBST_EINVAL, &err);
  BENCH_SET(R.score_values, c->s_game, "g-7");
  BENCH_SET(R.score_values, c->s_region, "eu");
  check("ddbst_page_parse_query (scores)",
        ddbst_page_parse_query(R.scores, R.score_values, c->top_scores,
                               R.scores100, R.scores100_len, &err),
        &err);
  if (ddbst_page_next_cursor(R.scores, R.keys, BENCH_NOW, R.score_cursor,
                             &err) != 1)
    bench_fail("ddbst_page_next_cursor (scores)", DDBST_EINVAL, &err);

  bench_run(c, "put_conditional",
            "put_project, if absent or archived: a compiled condition",
            op_put_conditional, 10000, 0);
  bench_run(c, "scan_filtered", "Scan of Users, a filter with a bound value",
            op_scan_filtered, 10000, 0);
  bench_run(c, "scan_page_100", "a Scan page of 100 Projects -> typed items",
            op_scan_page_100, 500, R.page100_len);
  bench_run(c, "scan_cursor", "the scan's next page: its sealed cursor opened",
            op_scan_cursor, 5000, 0);
  /* the scan page stays parsed in R.page: hydrate it */
  check("ddbst_page_parse_scan",
        ddbst_page_parse_scan(R.page, R.scan, R.page100, R.page100_len, &err),
        &err);
  bench_run(c, "hydrate_begin_100",
            "a page of 100 items -> their BatchGetItem body",
            op_hydrate_begin_100, 1000, 0);
  bench_run(c, "hydrate_read_100",
            "the same + its 100-item answer parsed and read back",
            op_hydrate_read_100, 200, R.batch100_len);
  bench_run(c, "parse_scores_100",
            "100 Scores of a multi-attribute GSI -> typed + next cursor",
            op_parse_scores_100, 500, R.scores100_len);
  bench_run(c, "query_leaderboard_cursor",
            "query_leaderboard's next page: a multi-attribute cursor opened",
            op_query_leaderboard_cursor, 5000, 0);

  ddbst_expr_free(R.put_condition);
  ddbst_expr_free(R.user_filter);
  ddbst_scan_free(R.scan);
  ddbst_scan_free(R.users);
  ddbst_page_free(R.page);
  ddbst_page_free(R.answer);
  ddbst_page_free(R.scores);
  ddbst_hydrate_free(R.hydrate);
  ddbst_cursor_keys_free(R.keys);
  ddbst_item_free(R.typed);
  ddbst_item_free(R.score_typed);
  ddbst_item_free(R.score_values);
  ddbst_buf_free(R.scan_cursor);
  ddbst_buf_free(R.score_cursor);
  free(R.page100);
  free(R.batch100);
  free(R.scores100);
}
