/* The SaaS seed against DynamoDB Local: its seven access patterns return
 * exactly the expected items in the expected order, and its two sparse GSIs
 * hold exactly the items they should as updates add, change and remove
 * facets. Every write and read is a body ddbst built. */
#include <string.h>

#include "fixture.h"

/* ---- the seven access patterns, on one table written once ---- */

/* Two organisations whose partitions both hold an org item, users and
 * projects; events of two projects. Chosen so that every pattern has items
 * it must leave out: the other org's user with the same userId, users whose
 * ids share a prefix (u1, u12, u123), another status, events just outside
 * the range and in another project. */
static int write_seed(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Organisation", "orgId=o1", "name=Acme", "plan=pro",
               "createdAt=2026-01-01T00:00:00Z");
  ITEST_CREATE(f, "Organisation", "orgId=o2", "name=Globex", "plan=free");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u2", "email=di@example.com",
               "role=member", "name=Di");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u123", "email=cy@example.com",
               "role=member", "name=Cy");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u1", "email=Ann@Example.com",
               "role=admin", "name=Ann");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u12", "email=bob@example.com",
               "role=member", "name=Bob");
  ITEST_CREATE(f, "User", "orgId=o2", "userId=u1", "email=eve@example.org",
               "role=admin", "name=Eve");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p1", "name=Apollo",
               "status=active", "createdAt=2026-01-05T09:00:00Z");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p2", "name=Borealis",
               "status=archived", "createdAt=2026-02-10T10:00:00Z");
  /* given with an offset: stored, keyed and sorted as UTC */
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p3", "name=Cygnus",
               "status=active", "createdAt=2026-03-01T09:30:00+01:00");
  ITEST_CREATE(f, "Project", "orgId=o2", "projectId=p4", "name=Draco",
               "status=active", "createdAt=2026-02-20T12:00:00Z");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2025-12-31T23:59:59Z",
               "eventId=01HZ0000000000000000000001", "type=created");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2026-01-01T00:00:00Z",
               "eventId=01HZ0000000000000000000002", "type=opened",
               "payload={\"by\":\"u1\",\"n\":2}");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2026-01-15T12:00:00Z",
               "eventId=01hz0000000000000000000003", "type=edited");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2026-02-01T23:59:59Z",
               "eventId=01HZ0000000000000000000004", "type=closed");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2026-02-02T00:00:00Z",
               "eventId=01HZ0000000000000000000005", "type=reopened");
  ITEST_CREATE(f, "Event", "projectId=p2", "ts=2026-01-10T00:00:00Z",
               "eventId=01HZ0000000000000000000006", "type=elsewhere");
  return 0;
}

static int group_setup(void **state) {
  *state = itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "saas");
  if (!*state) return -1;
  return write_seed(state);
}

static int group_teardown(void **state) { return itest_teardown(state); }

/* 1. Get one organisation by id. */
static void get_organisation(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Organisation", "orgId=o1");
  yajl_val org = itest_get(f);
  itest_expect_attributes(f, org, "PK SK _type orgId name plan createdAt");
  itest_expect_s(org, "PK", "ORG#o1");
  itest_expect_s(org, "SK", "ORG#o1");
  itest_expect_s(org, "_type", "Organisation");
  itest_expect_s(org, "name", "Acme");
  itest_expect_s(org, "plan", "pro");
  itest_expect_s(org, "createdAt", "2026-01-01T00:00:00Z");

  /* createdAt defaulted to the write's instant */
  ITEST_VALUES(f, "Organisation", "orgId=o2");
  org = itest_get(f);
  itest_expect_s(org, "name", "Globex");
  itest_expect_s(org, "createdAt", "2026-03-20T00:00:00Z");

  ITEST_VALUES(f, "Organisation", "orgId=o3");
  assert_null(itest_get(f));
}

/* 2. Get one user by id: the org's user, not the other org's with the same
 * userId; the email as written, lower-cased only in the index key. */
static void get_user(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=u1");
  yajl_val user = itest_get(f);
  itest_expect_attributes(f, user,
                          "PK SK GSI1PK _type orgId userId email role name");
  itest_expect_s(user, "PK", "ORG#o1");
  itest_expect_s(user, "SK", "USER#u1");
  itest_expect_s(user, "GSI1PK", "EMAIL#ann@example.com");
  itest_expect_s(user, "_type", "User");
  itest_expect_s(user, "email", "Ann@Example.com");
  itest_expect_s(user, "name", "Ann");

  ITEST_VALUES(f, "User", "orgId=o2", "userId=u1");
  itest_expect_s(itest_get(f), "name", "Eve");

  ITEST_VALUES(f, "User", "orgId=o1", "userId=u9");
  assert_null(itest_get(f));
}

/* 3. List all users in an organisation: in sort-key order (u1 < u12 < u123 <
 * u2), none of the org item or projects sharing the partition. */
static void list_users(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1");
  yajl_val users = itest_query(f, "listUsers", NULL);
  itest_expect(f, users, "userId", "u1 u12 u123 u2", "listUsers o1");
  itest_expect(f, users, "_type", "User User User User", "listUsers o1 types");
  itest_expect(f, users, "SK", "USER#u1 USER#u12 USER#u123 USER#u2",
               "listUsers o1 keys");

  /* a complete facet ends at its delimiter: u12 is not a prefix of u123 */
  ITEST_VALUES(f, "User", "orgId=o1", "userId=u12");
  itest_expect(f, itest_query(f, "listUsers", NULL), "userId", "u12",
               "listUsers o1 userId = u12");

  ITEST_VALUES(f, "User", "orgId=o2");
  itest_expect(f, itest_query(f, "listUsers", NULL), "name", "Eve",
               "listUsers o2");
  ITEST_VALUES(f, "User", "orgId=o3");
  itest_expect(f, itest_query(f, "listUsers", NULL), "name", "",
               "listUsers o3");
}

/* 4. Look up a user by email (login): any casing finds the one user; the
 * KEYS_ONLY index gives the keys to fetch it with. */
static void user_by_email(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "email=ANN@example.COM");
  yajl_val found = itest_query(f, "userByEmail", NULL);
  itest_expect(f, found, "SK", "USER#u1", "userByEmail ANN@example.COM");
  itest_expect_attributes(f, found->u.array.values[0], "PK SK GSI1PK");
  itest_expect_s(found->u.array.values[0], "PK", "ORG#o1");
  itest_expect_s(found->u.array.values[0], "GSI1PK", "EMAIL#ann@example.com");

  ITEST_VALUES(f, "User", "email=eve@example.org");
  itest_expect(f, itest_query(f, "userByEmail", NULL), "PK", "ORG#o2",
               "userByEmail eve@example.org");
  ITEST_VALUES(f, "User", "email=nobody@example.com");
  itest_expect(f, itest_query(f, "userByEmail", NULL), "SK", "",
               "userByEmail nobody");
}

/* 5. List an organisation's projects, newest first: not its users nor the
 * org item; p3's createdAt, given as +01:00, sorts as 08:30Z. */
static void list_projects(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Project", "orgId=o1");
  yajl_val projects = itest_query(f, "listProjects", NULL);
  itest_expect(f, projects, "name", "Cygnus Borealis Apollo",
               "listProjects o1");
  itest_expect(f, projects, "SK",
               "PROJECT#2026-03-01T08:30:00Z#p3 "
               "PROJECT#2026-02-10T10:00:00Z#p2 "
               "PROJECT#2026-01-05T09:00:00Z#p1",
               "listProjects o1 keys");
  itest_expect_attributes(f, projects->u.array.values[0],
                          "PK SK GSI2PK GSI2SK _type orgId projectId "
                          "createdAt name status");
  itest_expect_s(projects->u.array.values[0], "createdAt",
                 "2026-03-01T08:30:00Z");

  ITEST_VALUES(f, "Project", "orgId=o2");
  itest_expect(f, itest_query(f, "listProjects", NULL), "name", "Draco",
               "listProjects o2");
}

/* 6. List a project's events in a time range: 2026-01-01 through the whole
 * day 2026-02-01, in time order, none of the other project's. */
static void list_events(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Event", "projectId=p1");
  ddbst_query q = itest_condition(f, DDBST_SK_BETWEEN, "ts", "2026-01-01",
                                  "2026-02-01");
  yajl_val events = itest_query(f, "listEvents", &q);
  itest_expect(f, events, "type", "opened edited closed",
               "listEvents p1 2026-01-01..2026-02-01");
  itest_expect(f, events, "SK",
               "EVENT#2026-01-01T00:00:00Z#01HZ0000000000000000000002 "
               "EVENT#2026-01-15T12:00:00Z#01HZ0000000000000000000003 "
               "EVENT#2026-02-01T23:59:59Z#01HZ0000000000000000000004",
               "listEvents keys (ULIDs upper-cased)");
  /* the map payload came back as a map */
  yajl_val opened = events->u.array.values[0];
  const char *by[] = {"payload", "M", "by", "S", NULL};
  const char *n[] = {"payload", "M", "n", "N", NULL};
  assert_string_equal(YAJL_GET_STRING(yajl_tree_get(opened, by, yajl_t_string)),
                      "u1");
  assert_string_equal(YAJL_GET_STRING(yajl_tree_get(opened, n, yajl_t_string)),
                      "2");

  itest_expect(f, itest_query(f, "listEvents", NULL), "type",
               "created opened edited closed reopened", "listEvents p1 all");
}

/* 7. List all projects across orgs by status (admin), newest first. */
static void projects_by_status(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Project", "status=active");
  yajl_val active = itest_query(f, "projectsByStatus", NULL);
  itest_expect(f, active, "name", "Cygnus Draco Apollo", "status active");
  /* the INCLUDE projection: keys, name and status, nothing else */
  itest_expect_attributes(f, active->u.array.values[0],
                          "PK SK GSI2PK GSI2SK name status");
  itest_expect_s(active->u.array.values[1], "PK", "ORG#o2");

  ITEST_VALUES(f, "Project", "status=archived");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name", "Borealis",
               "status archived");
}

/* ---- sparse GSIs: each test on a table of its own ---- */

/* Only users carry GSI1's key and only projects with a status GSI2's: the
 * org, the events and the project without a status are in neither index. */
static void sparse_indexes_hold_only_items_with_facets(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Organisation", "orgId=o1", "name=Acme");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u1", "email=ann@example.com");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p1", "name=Apollo",
               "status=active", "createdAt=2026-01-05T09:00:00Z");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p2", "name=Borealis",
               "createdAt=2026-02-10T10:00:00Z");
  ITEST_CREATE(f, "Event", "projectId=p1", "ts=2026-01-06T00:00:00Z",
               "type=created");

  itest_expect(f, itest_scan_index(f, "GSI1"), "SK", "USER#u1", "GSI1 holds");
  itest_expect(f, itest_scan_index(f, "GSI2"), "SK",
               "PROJECT#2026-01-05T09:00:00Z#p1", "GSI2 holds");
  /* the project without a status is in the table all the same */
  ITEST_VALUES(f, "Project", "orgId=o1");
  itest_expect(f, itest_query(f, "listProjects", NULL), "name",
               "Borealis Apollo", "listProjects");
  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p2",
               "createdAt=2026-02-10T10:00:00Z");
  itest_expect_attributes(f, itest_get(f),
                          "PK SK _type orgId projectId createdAt name");
}

/* REMOVE status: the update removes GSI2's keys with it, so the project
 * leaves the index; setting a status again brings it back. */
static void removing_a_facet_takes_the_item_out(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p1", "name=Apollo",
               "status=active", "createdAt=2026-01-05T09:00:00Z");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p2", "name=Borealis",
               "status=active", "createdAt=2026-02-10T10:00:00Z");
  ITEST_VALUES(f, "Project", "status=active");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name",
               "Borealis Apollo", "active before");

  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z");
  assert_int_equal(ddbst_item_remove(f->item, itest_attr(f, "status")), 0);
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));

  ITEST_VALUES(f, "Project", "status=active");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name", "Borealis",
               "active after REMOVE status");
  itest_expect(f, itest_scan_index(f, "GSI2"), "name", "Borealis",
               "GSI2 after REMOVE status");
  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z");
  yajl_val p1 = itest_get(f);
  itest_expect_attributes(f, p1, "PK SK _type orgId projectId createdAt name");

  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z", "status=archived");
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  ITEST_VALUES(f, "Project", "status=archived");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name", "Apollo",
               "archived after SET status");
  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z");
  p1 = itest_get(f);
  itest_expect_s(p1, "GSI2PK", "STATUS#archived");
  itest_expect_s(p1, "GSI2SK", "2026-01-05T09:00:00Z");
}

/* SET status: GSI2's partition key is rewritten, so the project moves from
 * one status query to the other, keeping its place by createdAt. */
static void changing_status_moves_the_project(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p1", "name=Apollo",
               "status=active", "createdAt=2026-01-05T09:00:00Z");
  ITEST_CREATE(f, "Project", "orgId=o2", "projectId=p2", "name=Borealis",
               "status=active", "createdAt=2026-02-10T10:00:00Z");
  ITEST_CREATE(f, "Project", "orgId=o1", "projectId=p3", "name=Cygnus",
               "status=archived", "createdAt=2026-03-01T08:30:00Z");
  ITEST_CREATE(f, "Project", "orgId=o2", "projectId=p4", "name=Draco",
               "status=archived", "createdAt=2025-12-01T00:00:00Z");
  ITEST_VALUES(f, "Project", "status=active");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name",
               "Borealis Apollo", "active before");
  ITEST_VALUES(f, "Project", "status=archived");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name",
               "Cygnus Draco", "archived before");

  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z", "status=archived");
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));

  ITEST_VALUES(f, "Project", "status=active");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name", "Borealis",
               "active after");
  ITEST_VALUES(f, "Project", "status=archived");
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name",
               "Cygnus Apollo Draco", "archived after");
  ITEST_VALUES(f, "Project", "orgId=o1", "projectId=p1",
               "createdAt=2026-01-05T09:00:00Z");
  yajl_val p1 = itest_get(f);
  itest_expect_s(p1, "status", "archived");
  itest_expect_s(p1, "GSI2PK", "STATUS#archived");
  itest_expect_s(p1, "GSI2SK", "2026-01-05T09:00:00Z");
  itest_expect_s(p1, "name", "Apollo");
}

int main(void) {
  if (itest_should_skip("test_saas")) return ITEST_SKIP;
  const struct CMUnitTest patterns[] = {
      cmocka_unit_test(get_organisation),
      cmocka_unit_test(get_user),
      cmocka_unit_test(list_users),
      cmocka_unit_test(user_by_email),
      cmocka_unit_test(list_projects),
      cmocka_unit_test(list_events),
      cmocka_unit_test(projects_by_status),
  };
  const struct CMUnitTest sparse[] = {
      cmocka_unit_test_setup_teardown(
          sparse_indexes_hold_only_items_with_facets, itest_setup_saas,
          itest_teardown),
      cmocka_unit_test_setup_teardown(removing_a_facet_takes_the_item_out,
                                      itest_setup_saas, itest_teardown),
      cmocka_unit_test_setup_teardown(changing_status_moves_the_project,
                                      itest_setup_saas, itest_teardown),
  };
  int failed = cmocka_run_group_tests(patterns, group_setup, group_teardown);
  failed += cmocka_run_group_tests(sparse, NULL, NULL);
  return failed ? 1 : 0;
}
