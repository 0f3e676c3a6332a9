/* Hydration on DynamoDB Local (issue 18, projections):
 * tests/integration/models/hydrate.json keys Member in a KEYS_ONLY index by
 * team and join date. 230 members of one team (and 20 of another) are
 * written with ddbst's PutItem bodies, the team is read through the index
 * 150 keys a page, and each page is hydrated: BatchGetItem requests of 100
 * keys and 50, sent as built, their follow-ups sent until nothing is left,
 * and the answers read back. Every full item must be exactly the member
 * written at that place of the index's order (an oracle of the values
 * written); a member deleted between the query and the hydration is
 * reported missing; a projection reads only what it names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NTEAM = 230, NOTHER = 20, PAGE = 150 };

static itest_fixture *fixture;
static int deleted[NTEAM + NOTHER];

/* Member i's join date: not in memberId order, so the index's order is not
 * the table's. */
static void joined_at(int i, char *out, size_t cap) {
  int m = (i * 37) % NTEAM;
  snprintf(out, cap, "2026-01-01T%02d:%02d:00Z", m / 60, m % 60);
}

/* What ddbst_page_item_json must say of member i, written from the values
 * the test wrote, in the model's declaration order. */
static void oracle(int i, char *out, size_t cap) {
  char at[32];
  joined_at(i, at, sizeof at);
  char email[48] = "";
  if (i % 5) snprintf(email, sizeof email, ",\"email\":\"m%d@example.com\"", i);
  snprintf(out, cap,
           "{\"entity\":\"Member\",\"item\":{\"orgId\":\"o1\",\"memberId\":"
           "\"m%03d\",\"teamId\":\"%s\",\"joinedAt\":\"%s\",\"role\":\"%s\","
           "\"name\":\"Member %d\"%s,\"score\":%d,\"tags\":[\"t%d\"],"
           "\"profile\":{\"level\":%d}}}",
           i, i < NTEAM ? "t1" : "t2", at, i % 3 ? "dev" : "Admin", i, email,
           i * 10 - 7, i % 4, i % 9);
}

static void write_member(itest_fixture *f, int i) {
  char id[32], team[32], at[48], role[32], name[32], email[48], score[32],
      tags[32], profile[48], when[32];
  joined_at(i, when, sizeof when);
  snprintf(id, sizeof id, "memberId=m%03d", i);
  snprintf(team, sizeof team, "teamId=%s", i < NTEAM ? "t1" : "t2");
  snprintf(at, sizeof at, "joinedAt=%s", when);
  snprintf(role, sizeof role, "role=%s", i % 3 ? "dev" : "Admin");
  snprintf(name, sizeof name, "name=Member %d", i);
  snprintf(email, sizeof email, "email=m%d@example.com", i);
  snprintf(score, sizeof score, "score=%d", i * 10 - 7);
  snprintf(tags, sizeof tags, "tags=[\"t%d\"]", i % 4);
  snprintf(profile, sizeof profile, "profile={\"level\":%d}", i % 9);
  if (i % 5)
    ITEST_CREATE(f, "Member", "orgId=o1", id, team, at, role, name, email,
                 score, tags, profile);
  else
    ITEST_CREATE(f, "Member", "orgId=o1", id, team, at, role, name, score,
                 tags, profile);
}

static int write_members(void **state) {
  fixture = itest_open_sealed(
      DDBST_SOURCE_DIR "/tests/integration/models/hydrate.json", "hydrate", 18);
  *state = fixture; /* itest_teardown drops its table and keyring */
  if (!fixture) return -1;
  for (int i = 0; i < NTEAM + NOTHER; i++) write_member(fixture, i);
  return 0;
}

/* The member number of a page's item i (its memberId "m042": 42). */
static int member_of(const ddbst_page *page, int i, ddbst_item *it) {
  ddbst_error err;
  if (ddbst_page_item(page, i, it, &err) < 0)
    fail_msg("page item %d: %s: %s", i, err.path, err.message);
  const char *t;
  size_t n;
  assert_int_equal(ddbst_item_get_by_name(it, "memberId", &t, &n), 1);
  return atoi(t + 1);
}

/* Sends request `chunk` of `h` and every follow-up, reading each answer. */
static void hydrate_chunk(itest_fixture *f, ddbst_hydrate *h, int chunk,
                          uint32_t flags, ddbst_page *answer, int *followups) {
  int op = ddbst_hydrate_request(h, chunk, flags, itest_body(f), &f->err);
  for (;;) {
    itest_ok(f, op);
    if (ddbst_page_parse(answer, DDBST_OP_BATCH_GET_ITEM,
                         itest_client_body(f->client),
                         itest_client_body_len(f->client), &f->err) < 0)
      fail_msg("answer: %s: %s", f->err.path, f->err.message);
    if (ddbst_hydrate_read(h, chunk, answer, &f->err) < 0)
      fail_msg("read: %s: %s", f->err.path, f->err.message);
    op = ddbst_page_followup_request(answer, itest_body(f), &f->err);
    if (op == 0) break;
    (*followups)++;
  }
}

/* Reads team t1 through GSI1 page by page, hydrates each page, and checks
 * every full item against the oracle, in the index's order. */
static void keys_only_pages_hydrated(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  int pattern = ddbst_model_pattern(f->model, "membersOfTeam");
  int member = ddbst_model_entity(f->model, "Member");
  ddbst_page *page = ddbst_page_new(f->model);
  ddbst_page *answer = ddbst_page_new(f->model);
  ddbst_hydrate *h = ddbst_hydrate_new(f->model);
  ddbst_item *it = ddbst_item_new(f->model, member);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  ddbst_buf *json = ddbst_buf_new(NULL);
  /* the index's order, from the oracle: by join date */
  int order[NTEAM];
  for (int i = 0; i < NTEAM; i++) order[(i * 37) % NTEAM] = i;
  int seen = 0, pages = 0, followups = 0, missing = 0;
  do {
    ITEST_VALUES(f, "Member", "teamId=t1");
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.limit = PAGE;
    q.cursor = ddbst_buf_len(cursor) ? ddbst_buf_data(cursor) : NULL;
    q.cursor_len = ddbst_buf_len(cursor);
    q.cursor_keys = f->keys;
    itest_ok(f, ddbst_query_request(f->item, pattern, &q, itest_body(f),
                                    &f->err));
    int n = ddbst_page_parse_query(page, f->item, pattern,
                                   itest_client_body(f->client),
                                   itest_client_body_len(f->client), &f->err);
    if (n < 0) fail_msg("page: %s: %s", f->err.path, f->err.message);
    assert_int_equal(n, pages == 0 ? PAGE : NTEAM - PAGE);
    /* the index holds keys only: each item says what it lacks */
    assert_int_equal(ddbst_page_projects(page, member,
                                         ddbst_model_attribute(f->model,
                                                               member, "name")),
                     0);
    /* on the second page, one member is deleted after the query */
    int gone = -1;
    if (pages == 1) {
      gone = member_of(page, 3, it);
      itest_ok(f, ddbst_delete_request(it, 0, itest_body(f), &f->err));
      deleted[gone] = 1;
    }
    int chunks = ddbst_hydrate_begin(h, page, NULL, 0, &f->err);
    assert_int_equal(chunks, (n + 99) / 100);
    for (int c = 0; c < chunks; c++)
      hydrate_chunk(f, h, c, pages ? DDBST_CONSISTENT_READ : 0, answer,
                    &followups);
    assert_int_equal(ddbst_hydrate_pending(h), 0);
    const ddbst_page *full = ddbst_hydrate_page(h);
    assert_int_equal(ddbst_page_count(full), n);
    for (int i = 0; i < n; i++) {
      int want = order[seen + i];
      assert_int_equal(member_of(page, i, it), want);
      assert_int_equal(ddbst_page_item_json(full, i, json, &f->err), 0);
      if (deleted[want]) {
        assert_int_equal(ddbst_hydrate_state(h, i), DDBST_HYDRATE_MISSING);
        assert_string_equal(ddbst_buf_data(json), "null");
        assert_int_equal(ddbst_page_item(full, i, it, &f->err),
                         DDBST_ENOTFOUND);
        missing++;
        continue;
      }
      char expect[512];
      oracle(want, expect, sizeof expect);
      assert_int_equal(ddbst_hydrate_state(h, i), DDBST_HYDRATE_FOUND);
      assert_string_equal(ddbst_buf_data(json), expect);
      /* and typed, as the model reads it */
      assert_int_equal(ddbst_page_item(full, i, it, &f->err), member);
    }
    seen += n;
    pages++;
    int more = ddbst_page_next_cursor(page, f->keys, DDBST_NOW, cursor, &f->err);
    assert_true(more >= 0);
  } while (ddbst_buf_len(cursor));
  assert_int_equal(seen, NTEAM);
  assert_int_equal(pages, 2);
  assert_int_equal(missing, 1);
  fprintf(stderr, "hydrated %d items in %d pages (%d follow-ups)\n", seen,
          pages, followups);
  ddbst_buf_free(json);
  ddbst_buf_free(cursor);
  ddbst_item_free(it);
  ddbst_hydrate_free(h);
  ddbst_page_free(answer);
  ddbst_page_free(page);
}

/* A projection reads what it names, the keys and the entity attribute:
 * the facets come back from the key. */
static void projection_reads_what_it_names(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  int pattern = ddbst_model_pattern(f->model, "membersOfTeam");
  ddbst_page *page = ddbst_page_new(f->model);
  ddbst_page *answer = ddbst_page_new(f->model);
  ddbst_hydrate *h = ddbst_hydrate_new(f->model);
  ddbst_buf *json = ddbst_buf_new(NULL);
  ITEST_VALUES(f, "Member", "teamId=t2");
  itest_ok(f, ddbst_query_request(f->item, pattern, NULL, itest_body(f),
                                  &f->err));
  int n = ddbst_page_parse_query(page, f->item, pattern,
                                 itest_client_body(f->client),
                                 itest_client_body_len(f->client), &f->err);
  assert_int_equal(n, NOTHER);
  const char *names[] = {"name", "score"};
  assert_int_equal(ddbst_hydrate_begin(h, page, names, 2, &f->err), 1);
  int followups = 0;
  hydrate_chunk(f, h, 0, 0, answer, &followups);
  const ddbst_page *full = ddbst_hydrate_page(h);
  /* t2's order in the index: by join date, computed from the values */
  int order[NOTHER];
  for (int k = 0; k < NOTHER; k++) order[k] = NTEAM + k;
  for (int a = 1; a < NOTHER; a++)
    for (int b = a; b > 0 && (order[b] * 37) % NTEAM <
                                 (order[b - 1] * 37) % NTEAM; b--) {
      int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  for (int i = 0; i < n; i++) {
    int want = order[i];
    assert_int_equal(ddbst_hydrate_state(h, i), DDBST_HYDRATE_FOUND);
    assert_int_equal(ddbst_page_item_json(full, i, json, &f->err), 0);
    char expect[256];
    snprintf(expect, sizeof expect,
             "{\"entity\":\"Member\",\"item\":{\"orgId\":\"o1\",\"memberId\":"
             "\"m%03d\",\"name\":\"Member %d\",\"score\":%d}}",
             want, want, want * 10 - 7);
    assert_string_equal(ddbst_buf_data(json), expect);
  }
  ddbst_buf_free(json);
  ddbst_hydrate_free(h);
  ddbst_page_free(answer);
  ddbst_page_free(page);
}

int main(void) {
  if (itest_should_skip("test_hydrate")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keys_only_pages_hydrated),
      cmocka_unit_test(projection_reads_what_it_names),
  };
  return cmocka_run_group_tests(tests, write_members, itest_teardown);
}
