/* An inverted index on DynamoDB Local (issue 18, the adjacency list):
 * tests/integration/models/inverted.json keys Membership ORG#{orgId} /
 * USER#{userId} and reads it from the other side through INV, whose
 * partition key is the table's SK and whose sort key is its PK: the keys
 * are written once. Memberships are written with ddbst's bodies and read
 * back through both patterns, with every sort-key condition, ascending and
 * descending, paged with sealed cursors against an oracle; a user's own
 * item, in the same INV partition, is never on a page of memberships; a
 * cursor does not open for another user or for the table's pattern. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NUSERS = 6, NORGS = 9 };

static itest_fixture *fixture;
static const ddbst_cursor_keys *keys; /* the fixture's */
static int member[NORGS][NUSERS];

static unsigned long rng = 1804;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static int write_items(void **state) {
  fixture = itest_open_sealed(
      DDBST_SOURCE_DIR "/tests/integration/models/inverted.json", "inv", 4);
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  keys = fixture->keys;
  for (int u = 0; u < NUSERS; u++) {
    char uid[32];
    snprintf(uid, sizeof uid, "userId=u%d", u);
    ITEST_CREATE(fixture, "User", uid, "name=someone");
  }
  for (int o = 0; o < NORGS; o++)
    for (int u = 0; u < NUSERS; u++) {
      if (rnd(3) == 0) continue;
      member[o][u] = 1;
      char oid[32], uid[32];
      snprintf(oid, sizeof oid, "orgId=o%d", o);
      snprintf(uid, sizeof uid, "userId=u%d", u);
      ITEST_CREATE(fixture, "Membership", oid, uid,
                   u == 0 ? "role=owner" : "role=member");
    }
  return 0;
}

typedef struct cond {
  int kind;
  const char *v, *v2;
} cond;

static int holds(const char *x, const cond *c) {
  return itest_text_holds(x, c->kind, c->v, c->v2, 0);
}

static const cond conds[] = {
    {DDBST_SK_NONE, NULL, NULL}, {DDBST_SK_GTE, "o3", NULL},
    {DDBST_SK_GT, "o3", NULL},   {DDBST_SK_LT, "o5", NULL},
    {DDBST_SK_LTE, "o5", NULL},  {DDBST_SK_BETWEEN, "o2", "o6"},
    {DDBST_SK_BEGINS, "o", NULL},
};

static ddbst_query query_of(itest_fixture *f, const char *attr,
                            const cond *c) {
  return itest_condition(f, c->kind, attr, c->v, c->v2);
}

static void orgs_of_each_user(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int u = 0; u < NUSERS; u++)
    for (size_t c = 0; c < sizeof conds / sizeof *conds; c++)
      for (int desc = 0; desc < 2; desc++) {
        char uid[32], want[512] = "", what[128];
        snprintf(uid, sizeof uid, "userId=u%d", u);
        ITEST_VALUES(f, "Membership", uid);
        ddbst_query q = query_of(f, "orgId", &conds[c]);
        yajl_val items = itest_query_cursors(
            f, desc ? "orgsOfUserDesc" : "orgsOfUser", &q, keys);
        size_t used = 0;
        for (int i = 0; i < NORGS; i++) {
          int o = desc ? NORGS - 1 - i : i;
          char name[8];
          snprintf(name, sizeof name, "o%d", o);
          if (member[o][u] && holds(name, &conds[c]))
            used += (size_t)snprintf(want + used, sizeof want - used, "%s%s",
                                     used ? " " : "", name);
        }
        snprintf(what, sizeof what, "orgsOfUser%s u%d, condition %zu",
                 desc ? "Desc" : "", u, c);
        itest_expect(f, items, "orgId", want, what);
        for (size_t i = 0; i < items->u.array.len; i++) {
          char sk[16];
          snprintf(sk, sizeof sk, "USER#u%d", u);
          itest_expect_s(items->u.array.values[i], "SK", sk);
          itest_expect_s(items->u.array.values[i], "_type", "Membership");
        }
      }
}

static void members_of_each_org(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  static const cond uconds[] = {{DDBST_SK_NONE, NULL, NULL},
                                {DDBST_SK_GTE, "u2", NULL},
                                {DDBST_SK_BETWEEN, "u1", "u4"}};
  for (int o = 0; o < NORGS; o++)
    for (size_t c = 0; c < sizeof uconds / sizeof *uconds; c++) {
      char oid[32], want[512] = "";
      snprintf(oid, sizeof oid, "orgId=o%d", o);
      ITEST_VALUES(f, "Membership", oid);
      ddbst_query q = query_of(f, "userId", &uconds[c]);
      yajl_val items = itest_query_cursors(f, "membersOfOrg", &q, keys);
      size_t used = 0;
      for (int u = 0; u < NUSERS; u++) {
        char name[8];
        snprintf(name, sizeof name, "u%d", u);
        if (member[o][u] && holds(name, &uconds[c]))
          used += (size_t)snprintf(want + used, sizeof want - used, "%s%s",
                                   used ? " " : "", name);
      }
      itest_expect(f, items, "userId", want, "membersOfOrg");
    }
}

/* The items hold the table's two keys and nothing for INV. */
static void keys_written_once(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  yajl_val items = itest_scan_table(f);
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val it = items->u.array.values[i];
    const char *type = itest_s(it, "_type");
    assert_non_null(type);
    itest_expect_attributes(f, it,
                            !strcmp(type, "User")
                                ? "PK SK _type userId name"
                                : "PK SK _type orgId userId role");
  }
}

static void cursors_bound(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  int u = 0;
  int n = 0;
  for (int o = 0; o < NORGS; o++) n += member[o][u];
  assert_true(n > 3); /* a second page */
  ITEST_VALUES(f, "Membership", "userId=u0");
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  itest_first_cursor(f, "orgsOfUser", NULL, 3, cursor);
  /* another partition gets the general refusal; another pattern of the
   * same partition is named */
  ITEST_VALUES(f, "Membership", "userId=u1");
  itest_cursor_refused(f, "orgsOfUser", cursor, ITEST_MSG_NO_OPEN);
  ITEST_VALUES(f, "Membership", "userId=u0");
  itest_cursor_refused(f, "orgsOfUserDesc", cursor,
                       ITEST_MSG_MADE_FOR("orgsOfUser", "orgsOfUserDesc"));
  /* the table's pattern, whose partition is an org (ORG#o1, not USER#u0) */
  ITEST_VALUES(f, "Membership", "orgId=o1");
  itest_cursor_refused(f, "membersOfOrg", cursor, ITEST_MSG_NO_OPEN);
  ddbst_buf_free(cursor);
}

int main(void) {
  if (itest_should_skip("test_inverted")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orgs_of_each_user),
      cmocka_unit_test(members_of_each_org),
      cmocka_unit_test(keys_written_once),
      cmocka_unit_test(cursors_bound),
  };
  return cmocka_run_group_tests(tests, write_items, itest_teardown);
}
