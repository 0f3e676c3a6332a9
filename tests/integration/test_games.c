/* Native multi-attribute GSI keys on DynamoDB Local 3.3 (issue 18),
 * through examples/games/model.json: Score is in Leaderboard, keyed on its
 * own gameId + region (partition) and score (N) + playedAt (sort), and in
 * ByPlayer on playerId / playedAt (KEYS_ONLY). No synthetic key attribute
 * is written; a score without a region is in ByPlayer only. Scores are
 * written with ddbst's PutItem bodies and read back through every pattern
 * with every sort-key condition (on score, and on playedAt after score by
 * equality), paged with sealed cursors, against an oracle; cursors do not
 * open for another partition, pattern or order; an update moves an item
 * in the index with no key rewriting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NPLAYERS = 5, NSCORES = 60 };

typedef struct score {
  char player[8], game[8], region[8];
  long points;
  char played[24];
  int removed; /* deleted by a test */
} score;

static itest_fixture *fixture;
static const ddbst_cursor_keys *keys; /* the fixture's */
static score scores[NSCORES];

static unsigned long rng = 1811;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static void write_score(itest_fixture *f, const score *s) {
  char pl[32], g[32], r[32], pt[32], at[48];
  snprintf(pl, sizeof pl, "playerId=%s", s->player);
  snprintf(g, sizeof g, "gameId=%s", s->game);
  snprintf(r, sizeof r, "region=%s", s->region);
  snprintf(pt, sizeof pt, "score=%ld", s->points);
  snprintf(at, sizeof at, "playedAt=%s", s->played);
  if (s->region[0])
    ITEST_CREATE(f, "Score", pl, g, r, pt, at, "mode=solo");
  else
    ITEST_CREATE(f, "Score", pl, g, pt, at, "mode=duo");
}

static int write_items(void **state) {
  fixture = itest_open_sealed(DDBST_SOURCE_DIR "/examples/games/model.json",
                              "games", 2);
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  keys = fixture->keys;
  for (int p = 0; p < NPLAYERS; p++) {
    char id[32], name[32];
    snprintf(id, sizeof id, "playerId=p%d", p);
    snprintf(name, sizeof name, "name=player %d", p);
    ITEST_CREATE(fixture, "Player", id, name, "region=eu");
  }
  for (int i = 0; i < NSCORES; i++) {
    score *s = &scores[i];
    snprintf(s->player, sizeof s->player, "p%u", rnd(NPLAYERS));
    snprintf(s->game, sizeof s->game, "g%u", 1 + rnd(2));
    unsigned r = rnd(5);
    snprintf(s->region, sizeof s->region, "%s",
             r == 0 ? "" : r < 3 ? "eu" : "us");
    /* few distinct scores, so that playedAt orders the ties; 900 and
     * 1000 apart in digits, so that text order would be wrong */
    static const long points[] = {900, 1000, 1000, 1250, 5000, 12000};
    s->points = points[rnd(6)];
    /* distinct instants: one a day and hour */
    snprintf(s->played, sizeof s->played, "2026-0%d-%02dT%02d:00:00Z",
             1 + i % 3, 1 + i / 3 % 28, i / 3 / 28 + 8);
    write_score(fixture, s);
  }
  return 0;
}

/* ---- the oracle ---- */

typedef struct cond {
  int kind;         /* DDBST_SK_* */
  const char *attr; /* "score" or "playedAt" */
  const char *v, *v2;
  const char *eq_score; /* score by equality first (a condition on playedAt) */
} cond;

static int cmp_field(const score *s, const char *attr, const char *v) {
  if (!strcmp(attr, "score")) {
    long x = strtol(v, NULL, 10);
    return s->points < x ? -1 : s->points > x;
  }
  /* a partial timestamp compares with the start of each: a range takes
   * every instant it begins */
  int c = strncmp(s->played, v, strlen(v));
  return c < 0 ? -1 : c > 0;
}

static int holds(const score *s, const cond *c) {
  if (c->eq_score && s->points != strtol(c->eq_score, NULL, 10)) return 0;
  switch (c->kind) {
  case DDBST_SK_GTE: return cmp_field(s, c->attr, c->v) >= 0;
  case DDBST_SK_GT: return cmp_field(s, c->attr, c->v) > 0;
  case DDBST_SK_LTE: return cmp_field(s, c->attr, c->v) <= 0;
  case DDBST_SK_LT: return cmp_field(s, c->attr, c->v) < 0;
  case DDBST_SK_BETWEEN:
    return cmp_field(s, c->attr, c->v) >= 0 && cmp_field(s, c->attr, c->v2) <= 0;
  case DDBST_SK_BEGINS: return !strncmp(s->played, c->v, strlen(c->v));
  default: return 1;
  }
}

static int by_points;
static int score_cmp(const void *pa, const void *pb) {
  const score *a = *(const score *const *)pa, *b = *(const score *const *)pb;
  if (by_points && a->points != b->points) return a->points < b->points ? -1 : 1;
  return strcmp(a->played, b->played);
}

/* SKs of the scores in partition (game, region) of Leaderboard, or of
 * player `player` in ByPlayer, that `c` holds for, in index order. */
static void oracle(const char *game, const char *region, const char *player,
                   const cond *c, int desc, char *out, size_t cap) {
  const score *list[NSCORES];
  int n = 0;
  for (int i = 0; i < NSCORES; i++) {
    const score *s = &scores[i];
    if (s->removed) continue;
    if (player ? strcmp(s->player, player)
               : strcmp(s->game, game) || strcmp(s->region, region))
      continue;
    if (holds(s, c)) list[n++] = s;
  }
  by_points = player == NULL;
  qsort(list, (size_t)n, sizeof *list, score_cmp);
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    const score *s = list[desc ? n - 1 - i : i];
    used += (size_t)snprintf(out + used, cap - used, "%sSCORE#%s#%s",
                             used ? " " : "", s->game, s->played);
  }
}

static ddbst_query query_of(itest_fixture *f, const cond *c) {
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  if (c->kind != DDBST_SK_NONE)
    q = itest_condition(f, c->kind, c->attr, c->v, c->v2);
  q.limit = 4; /* many pages */
  return q;
}

static void check_leaderboard(const char *pattern, int desc, const cond *c) {
  itest_fixture *f = fixture;
  static const char *const games[] = {"g1", "g2"}, *const regions[] = {"eu", "us"};
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < 2; r++) {
      char gv[32], rv[32], sv[32], want[8192], what[256];
      snprintf(gv, sizeof gv, "gameId=%s", games[g]);
      snprintf(rv, sizeof rv, "region=%s", regions[r]);
      if (c->eq_score) {
        snprintf(sv, sizeof sv, "score=%s", c->eq_score);
        ITEST_VALUES(f, "Score", gv, rv, sv);
      } else {
        ITEST_VALUES(f, "Score", gv, rv);
      }
      ddbst_query q = query_of(f, c);
      yajl_val items = itest_query_cursors(f, pattern, &q, keys);
      oracle(games[g], regions[r], NULL, c, desc, want, sizeof want);
      snprintf(what, sizeof what, "%s %s/%s, %s%s condition %d on %s %s %s",
               pattern, games[g], regions[r], c->eq_score ? "score = " : "",
               c->eq_score ? c->eq_score : "", c->kind, c->attr ? c->attr : "-",
               c->v ? c->v : "", c->v2 ? c->v2 : "");
      itest_expect(f, items, "SK", want, what);
      for (size_t i = 0; i < items->u.array.len; i++) {
        yajl_val it = items->u.array.values[i];
        /* the index's attributes are the item's own, and INCLUDE's */
        itest_expect_s(it, "gameId", games[g]);
        itest_expect_s(it, "region", regions[r]);
        itest_expect_attributes(
            f, it, "PK SK gameId region score playedAt playerId mode");
      }
    }
}

static const cond score_conds[] = {
    {DDBST_SK_NONE, NULL, NULL, NULL, NULL},
    {DDBST_SK_GTE, "score", "1000", NULL, NULL},
    {DDBST_SK_GT, "score", "1000", NULL, NULL},
    {DDBST_SK_LT, "score", "1250", NULL, NULL},
    {DDBST_SK_LTE, "score", "1250", NULL, NULL},
    {DDBST_SK_BETWEEN, "score", "950", "5000", NULL},
    /* playedAt after score by equality */
    {DDBST_SK_NONE, NULL, NULL, NULL, "1000"},
    {DDBST_SK_GT, "playedAt", "2026-02-10T08:00:00Z", NULL, "1000"},
    {DDBST_SK_LTE, "playedAt", "2026-02-10T08:00:00Z", NULL, "1000"},
    {DDBST_SK_BETWEEN, "playedAt", "2026-01-05T00:00:00Z",
     "2026-03-20T00:00:00Z", "1000"},
    {DDBST_SK_BEGINS, "playedAt", "2026-02", NULL, "1000"},
    /* partial timestamps, as on a template key */
    {DDBST_SK_GT, "playedAt", "2026-02", NULL, "1000"},
    {DDBST_SK_LTE, "playedAt", "2026-02-1", NULL, "1000"},
    {DDBST_SK_BETWEEN, "playedAt", "2026-01-10", "2026-02", "1000"},
};

static void leaderboards(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof score_conds / sizeof *score_conds; i++) {
    check_leaderboard("topScores", 1, &score_conds[i]);
    check_leaderboard("scoresFromLowest", 0, &score_conds[i]);
  }
}

static void recent_scores_keys_only(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  static const cond conds[] = {
      {DDBST_SK_NONE, NULL, NULL, NULL, NULL},
      {DDBST_SK_BEGINS, "playedAt", "2026-03", NULL, NULL},
      {DDBST_SK_GTE, "playedAt", "2026-02-01T00:00:00Z", NULL, NULL},
      {DDBST_SK_LT, "playedAt", "2026-02-01T00:00:00+01:00", NULL, NULL},
      {DDBST_SK_LTE, "playedAt", "2026-02", NULL, NULL},
  };
  for (int p = 0; p < NPLAYERS; p++)
    for (size_t c = 0; c < sizeof conds / sizeof *conds; c++) {
      char pid[32], player[8], want[8192];
      snprintf(player, sizeof player, "p%d", p);
      snprintf(pid, sizeof pid, "playerId=%s", player);
      ITEST_VALUES(f, "Score", pid);
      ddbst_query q = query_of(f, &conds[c]);
      yajl_val items = itest_query_cursors(f, "recentScores", &q, keys);
      cond oc = conds[c];
      /* the oracle compares UTC text */
      if (c == 3) oc.v = "2026-01-31T23:00:00Z";
      oracle(NULL, NULL, player, &oc, 1, want, sizeof want);
      itest_expect(f, items, "SK", want, "recentScores");
      for (size_t i = 0; i < items->u.array.len; i++)
        itest_expect_attributes(f, items->u.array.values[i],
                                "PK SK playerId playedAt");
    }
}

static void no_synthetic_keys(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  const score *s = &scores[0];
  char pl[32], g[32], at[48];
  snprintf(pl, sizeof pl, "playerId=%s", s->player);
  snprintf(g, sizeof g, "gameId=%s", s->game);
  snprintf(at, sizeof at, "playedAt=%s", s->played);
  ITEST_VALUES(f, "Score", pl, g, at);
  yajl_val item = itest_get(f);
  assert_non_null(item);
  itest_expect_attributes(f, item,
                          s->region[0]
                              ? "PK SK _type playerId gameId region score "
                                "playedAt mode"
                              : "PK SK _type playerId gameId score playedAt "
                                "mode");
  itest_expect_n(item, "score", s->points == 900    ? "900"
                                : s->points == 1000 ? "1000"
                                : s->points == 1250 ? "1250"
                                : s->points == 5000 ? "5000"
                                                    : "12000");
}

static int first_cursor(itest_fixture *f, const char *game, const char *region,
                        ddbst_buf *cursor) {
  char gv[32], rv[32];
  snprintf(gv, sizeof gv, "gameId=%s", game);
  snprintf(rv, sizeof rv, "region=%s", region);
  ITEST_VALUES(f, "Score", gv, rv);
  int p = ddbst_model_pattern(f->model, "topScores");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  itest_ok(f, ddbst_query_request(f->item, p, &q, itest_body(f), &f->err));
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_error err;
  const char *body = itest_client_body(f->client);
  assert_int_equal(ddbst_page_parse_query(pg, f->item, p, body,
                                          strlen(body), &err),
                   2);
  /* the page's items are Scores, with their values */
  ddbst_item *it = ddbst_item_new(f->model, 0);
  assert_int_equal(ddbst_page_item(pg, 0, it, &err),
                   ddbst_model_entity(f->model, "Score"));
  assert_int_equal(ddbst_item_entity(it),
                   ddbst_model_entity(f->model, "Score"));
  ddbst_item_free(it);
  assert_true(ddbst_page_has_more(pg));
  if (ddbst_page_next_cursor(pg, keys, DDBST_NOW, cursor, &err) != 1)
    fail_msg("ddbst_page_next_cursor: %s (%s)", err.message, err.path);
  ddbst_page_free(pg);
  return p;
}

static void expect_refused(itest_fixture *f, const char *pattern,
                           const char *game, const char *region,
                           ddbst_buf *cursor, const char *message) {
  char gv[32], rv[32];
  snprintf(gv, sizeof gv, "gameId=%s", game);
  snprintf(rv, sizeof rv, "region=%s", region);
  ITEST_VALUES(f, "Score", gv, rv, "playerId=p1");
  itest_cursor_refused(f, pattern, cursor, message);
}

static void cursors_bound(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  first_cursor(f, "g1", "eu", cursor);
  /* another partition is not told apart from an altered cursor; another
   * pattern of the same partition is named */
  expect_refused(f, "topScores", "g1", "us", cursor, ITEST_MSG_NO_OPEN);
  expect_refused(f, "topScores", "g2", "eu", cursor, ITEST_MSG_NO_OPEN);
  expect_refused(f, "scoresFromLowest", "g1", "eu", cursor,
                 ITEST_MSG_MADE_FOR("topScores", "scoresFromLowest"));
  /* another index, keyed on the player: another partition */
  expect_refused(f, "recentScores", "g1", "eu", cursor, ITEST_MSG_NO_OPEN);
  ddbst_buf_free(cursor);
}

static void refusals(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  int p = ddbst_model_pattern(f->model, "topScores");
  ITEST_VALUES(f, "Score", "gameId=g1", "region=eu");
  ddbst_query q = itest_condition(f, DDBST_SK_BEGINS, "score", "12", NULL);
  assert_int_equal(ddbst_query_request(f->item, p, &q, itest_body(f), &f->err),
                   DDBST_EINVAL);
  assert_string_equal(f->err.message, "score is a number in index "
                                      "Leaderboard: begins_with takes a "
                                      "string or binary attribute");
  q = itest_condition(f, DDBST_SK_GT, "playedAt", "2026-01-01T00:00:00Z", NULL);
  assert_int_equal(ddbst_query_request(f->item, p, &q, itest_body(f), &f->err),
                   DDBST_EMISSING);
  assert_string_equal(f->err.path, "Score.score");
  ITEST_VALUES(f, "Score", "gameId=g1");
  assert_int_equal(ddbst_query_request(f->item, p, NULL, itest_body(f), &f->err),
                   DDBST_EMISSING);
  assert_string_equal(f->err.path, "Score.region");
}

/* A score changes and another loses its region: an UpdateItem of the
 * attributes alone, and the leaderboard follows. */
static void updates_move_items(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  score *a = NULL, *b = NULL;
  for (int i = 0; i < NSCORES; i++) {
    if (!scores[i].region[0]) continue;
    if (!a) a = &scores[i];
    else if (!b) b = &scores[i];
  }
  char pl[32], g[32], at[48];
  snprintf(pl, sizeof pl, "playerId=%s", a->player);
  snprintf(g, sizeof g, "gameId=%s", a->game);
  snprintf(at, sizeof at, "playedAt=%s", a->played);
  ITEST_VALUES(f, "Score", pl, g, at, "score=99999");
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  assert_null(strstr(ddbst_buf_data(f->body), "REMOVE"));
  a->points = 99999;

  snprintf(pl, sizeof pl, "playerId=%s", b->player);
  snprintf(g, sizeof g, "gameId=%s", b->game);
  snprintf(at, sizeof at, "playedAt=%s", b->played);
  ITEST_VALUES(f, "Score", pl, g, at);
  assert_int_equal(ddbst_item_remove(f->item, itest_attr(f, "region")), 0);
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  b->region[0] = '\0';

  cond none = {DDBST_SK_NONE, NULL, NULL, NULL, NULL};
  check_leaderboard("topScores", 1, &none);
  cond top = {DDBST_SK_GTE, "score", "99999", NULL, NULL};
  check_leaderboard("topScores", 1, &top);
}

int main(void) {
  if (itest_should_skip("test_games")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(leaderboards),
      cmocka_unit_test(recent_scores_keys_only),
      cmocka_unit_test(no_synthetic_keys),
      cmocka_unit_test(cursors_bound),
      cmocka_unit_test(refusals),
      cmocka_unit_test(updates_move_items),
  };
  return cmocka_run_group_tests(tests, write_items, itest_teardown);
}
