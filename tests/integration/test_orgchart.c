/* The org chart of examples/orgchart/model.json on DynamoDB Local: an
 * adjacency list whose edges (ReportsTo MGR#{manager} / EMP#{login}, Member
 * DEPT#{dept} / EMP#{login}) are read from the manager's or department's
 * side on the table, and from the employee's side on Reverse, the inverted
 * index keyed on the table's SK then PK. Employees, reporting lines and
 * memberships are written with ddbst's PutItem bodies and read back through
 * every pattern, with every sort-key condition, paged with sealed cursors
 * against an oracle computed from what was written: each item once, in
 * order. The collection employeeCard reads an employee, their departments
 * and their managers in one query; the keys are written once; a cursor
 * opens only for its own pattern and partition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NEMP = 12, NDEPT = 3 };

static itest_fixture *fixture;
/* line[m][e]: 0 none, 1 solid, 2 dotted (e reports to m) */
static int line[NEMP][NEMP];
/* member[d][e]: 0 none, 1 head, 2 member */
static int member[NDEPT][NEMP];

static unsigned long rng = 1807;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static void login_of(int e, char *out, size_t cap) {
  snprintf(out, cap, "e%02d", e);
}

static int write_items(void **state) {
  fixture = itest_open_sealed(DDBST_SOURCE_DIR "/examples/orgchart/model.json",
                              "org", 7);
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  for (int e = 0; e < NEMP; e++) {
    char login[32], name[32];
    snprintf(login, sizeof login, "login=e%02d", e);
    snprintf(name, sizeof name, "name=Employee %d", e);
    ITEST_CREATE(fixture, "Employee", login, name, "title=engineer",
                 "hiredAt=2024-05-01T09:00:00Z");
  }
  /* a tree of solid lines (each employee but the first under one of
   * lower number), and dotted lines to a few others */
  for (int e = 1; e < NEMP; e++) {
    line[rnd((unsigned)e)][e] = 1;
    for (int m = 0; m < NEMP; m++)
      if (m != e && !line[m][e] && rnd(6) == 0) line[m][e] = 2;
  }
  for (int d = 0; d < NDEPT; d++)
    for (int e = 0; e < NEMP; e++)
      if (rnd(2)) member[d][e] = e % NDEPT == d ? 1 : 2;
  for (int m = 0; m < NEMP; m++)
    for (int e = 0; e < NEMP; e++) {
      if (!line[m][e]) continue;
      char mgr[32], login[32];
      snprintf(mgr, sizeof mgr, "manager=e%02d", m);
      snprintf(login, sizeof login, "login=e%02d", e);
      ITEST_CREATE(fixture, "ReportsTo", mgr, login,
                   line[m][e] == 1 ? "line=solid" : "line=dotted");
    }
  for (int d = 0; d < NDEPT; d++)
    for (int e = 0; e < NEMP; e++) {
      if (!member[d][e]) continue;
      char dept[32], login[32];
      snprintf(dept, sizeof dept, "dept=d%d", d);
      snprintf(login, sizeof login, "login=e%02d", e);
      ITEST_CREATE(fixture, "Member", dept, login,
                   member[d][e] == 1 ? "role=head" : "role=member");
    }
  return 0;
}

/* ---- the oracle ---- */

typedef struct cond {
  int kind; /* DDBST_SK_* */
  const char *v, *v2;
} cond;

static int holds(const char *x, const cond *c) {
  return itest_text_holds(x, c->kind, c->v, c->v2, 0);
}

/* Logins e00..e11: conditions on whole and partial values. */
static const cond conds[] = {
    {DDBST_SK_NONE, NULL, NULL},     {DDBST_SK_GTE, "e04", NULL},
    {DDBST_SK_GT, "e04", NULL},      {DDBST_SK_LT, "e07", NULL},
    {DDBST_SK_LTE, "e07", NULL},     {DDBST_SK_BETWEEN, "e02", "e09"},
    {DDBST_SK_BEGINS, "e1", NULL},   {DDBST_SK_GT, "e0", NULL},
    {DDBST_SK_LTE, "e0", NULL},      {DDBST_SK_BETWEEN, "e", "e05"},
};
enum { NCONDS = sizeof conds / sizeof *conds };

static ddbst_query query_of(itest_fixture *f, const char *attr,
                            const cond *c) {
  ddbst_query q = itest_condition(f, c->kind, attr, c->v, c->v2);
  q.limit = 2; /* many pages */
  return q;
}

/* Appends `word` to the space-separated list `out`. */
static void add(char *out, size_t cap, const char *word) {
  size_t used = strlen(out);
  snprintf(out + used, cap - used, "%s%s", used ? " " : "", word);
}

/* ---- from the table: a manager's reports, a department's members ---- */

static void direct_reports(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int m = 0; m < NEMP; m++)
    for (int c = 0; c < NCONDS; c++) {
      char mgr[32], want[512] = "", what[96], login[8];
      snprintf(mgr, sizeof mgr, "manager=e%02d", m);
      ITEST_VALUES(f, "ReportsTo", mgr);
      ddbst_query q = query_of(f, "login", &conds[c]);
      yajl_val items = itest_query_cursors(f, "directReports", &q, f->keys);
      for (int e = 0; e < NEMP; e++) {
        login_of(e, login, sizeof login);
        if (line[m][e] && holds(login, &conds[c]))
          add(want, sizeof want, login);
      }
      snprintf(what, sizeof what, "directReports of e%02d, condition %d", m, c);
      itest_expect(f, items, "login", want, what);
      for (size_t i = 0; i < items->u.array.len; i++) {
        yajl_val it = items->u.array.values[i];
        itest_expect_s(it, "manager", mgr + strlen("manager="));
        itest_expect_attributes(f, it, "PK SK _type manager login line");
      }
    }
}

static void department_members(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int d = 0; d < NDEPT; d++)
    for (int c = 0; c < NCONDS; c++) {
      char dept[32], want[512] = "", roles[512] = "", login[8];
      snprintf(dept, sizeof dept, "dept=d%d", d);
      ITEST_VALUES(f, "Member", dept);
      ddbst_query q = query_of(f, "login", &conds[c]);
      yajl_val items =
          itest_query_cursors(f, "departmentMembers", &q, f->keys);
      for (int e = 0; e < NEMP; e++) {
        login_of(e, login, sizeof login);
        if (!member[d][e] || !holds(login, &conds[c])) continue;
        add(want, sizeof want, login);
        add(roles, sizeof roles, member[d][e] == 1 ? "head" : "member");
      }
      itest_expect(f, items, "login", want, "departmentMembers");
      itest_expect(f, items, "role", roles, "departmentMembers' roles");
    }
}

/* ---- from the employee's side, on the inverted index ---- */

static void managers_of(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int e = 0; e < NEMP; e++)
    for (int c = 0; c < NCONDS; c++) {
      char login[32], sk[16], want[512] = "", lines[512] = "", mgr[16];
      snprintf(login, sizeof login, "login=e%02d", e);
      snprintf(sk, sizeof sk, "EMP#e%02d", e);
      ITEST_VALUES(f, "ReportsTo", login);
      ddbst_query q = query_of(f, "manager", &conds[c]);
      yajl_val items = itest_query_cursors(f, "managersOf", &q, f->keys);
      for (int m = 0; m < NEMP; m++) {
        snprintf(mgr, sizeof mgr, "MGR#e%02d", m);
        if (!line[m][e] || !holds(mgr + 4, &conds[c])) continue;
        add(want, sizeof want, mgr);
        add(lines, sizeof lines, line[m][e] == 1 ? "solid" : "dotted");
      }
      itest_expect(f, items, "PK", want, "managersOf");
      itest_expect(f, items, "line", lines, "managersOf's lines");
      for (size_t i = 0; i < items->u.array.len; i++) {
        yajl_val it = items->u.array.values[i];
        itest_expect_s(it, "SK", sk);
        /* INCLUDE: the keys and the one projected attribute an edge has
         * (the facets are in the keys) */
        itest_expect_attributes(f, it, "PK SK line");
      }
    }
}

static void departments_of(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int e = 0; e < NEMP; e++) {
    char login[32], want[64] = "", dept[16];
    snprintf(login, sizeof login, "login=e%02d", e);
    ITEST_VALUES(f, "Member", login);
    ddbst_query q = query_of(f, NULL, &conds[0]);
    q.limit = 1;
    yajl_val items = itest_query_cursors(f, "departmentsOf", &q, f->keys);
    for (int d = NDEPT - 1; d >= 0; d--) /* "order": "desc" */
      if (member[d][e]) {
        snprintf(dept, sizeof dept, "DEPT#d%d", d);
        add(want, sizeof want, dept);
      }
    itest_expect(f, items, "PK", want, "departmentsOf");
    for (size_t i = 0; i < items->u.array.len; i++)
      itest_expect_attributes(f, items->u.array.values[i], "PK SK role");
  }
}

/* One query on Reverse's partition EMP#<login>: the employee's departments
 * (DEPT#...), the employee (EMP#...), then their managers (MGR#...), as
 * the index sorts the table's PK. */
static void employee_card(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (int e = 0; e < NEMP; e++) {
    char login[32], pks[1024] = "", types[1024] = "", pk[16];
    snprintf(login, sizeof login, "login=e%02d", e);
    ITEST_VALUES(f, "Employee", login);
    ddbst_query q = query_of(f, NULL, &conds[0]);
    yajl_val items = itest_query_cursors(f, "employeeCard", &q, f->keys);
    for (int d = 0; d < NDEPT; d++)
      if (member[d][e]) {
        snprintf(pk, sizeof pk, "DEPT#d%d", d);
        add(pks, sizeof pks, pk);
        add(types, sizeof types, "Member");
      }
    snprintf(pk, sizeof pk, "EMP#e%02d", e);
    add(pks, sizeof pks, pk);
    add(types, sizeof types, "Employee");
    for (int m = 0; m < NEMP; m++)
      if (line[m][e]) {
        snprintf(pk, sizeof pk, "MGR#e%02d", m);
        add(pks, sizeof pks, pk);
        add(types, sizeof types, "ReportsTo");
      }
    itest_expect(f, items, "PK", pks, "employeeCard");
    /* each item is told by its keys: the index projects no _type */
    ddbst_page *pg = ddbst_page_new(f->model);
    ddbst_item *it = ddbst_item_new(f->model, 0);
    assert_non_null(pg);
    assert_non_null(it);
    q.limit = 50;
    int p = ddbst_model_pattern(f->model, "employeeCard");
    itest_ok(f, ddbst_query_request(f->item, p, &q, itest_body(f), &f->err));
    const char *body = itest_client_body(f->client);
    int n = ddbst_page_parse_query(pg, f->item, p, body, strlen(body), &f->err);
    assert_int_equal(n, (int)items->u.array.len);
    char seen[1024] = "";
    for (int i = 0; i < n; i++) {
      int ent = ddbst_page_item(pg, i, it, &f->err);
      assert_true(ent >= 0);
      add(seen, sizeof seen, ddbst_model_entity_name(f->model, ent));
    }
    assert_string_equal(seen, types);
    ddbst_item_free(it);
    ddbst_page_free(pg);
  }
}

/* Every item holds the table's two keys and nothing written for Reverse. */
static void keys_written_once(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  yajl_val items = itest_scan_table(f);
  int n = NEMP;
  for (int e = 0; e < NEMP; e++) {
    for (int m = 0; m < NEMP; m++) n += line[m][e] != 0;
    for (int d = 0; d < NDEPT; d++) n += member[d][e] != 0;
  }
  assert_int_equal(items->u.array.len, (size_t)n);
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val it = items->u.array.values[i];
    const char *type = itest_s(it, "_type");
    assert_non_null(type);
    itest_expect_attributes(
        f, it,
        !strcmp(type, "Employee")    ? "PK SK _type login name title hiredAt"
        : !strcmp(type, "ReportsTo") ? "PK SK _type manager login line"
                                     : "PK SK _type dept login role");
  }
}

static void cursors_bound(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  /* the employee with the most managers, so that a page of one has more */
  int e = 0, most = 0;
  for (int x = 0; x < NEMP; x++) {
    int n = 0;
    for (int m = 0; m < NEMP; m++) n += line[m][x] != 0;
    if (n > most) most = n, e = x;
  }
  assert_true(most >= 2);
  char login[32], other[32], mgr[32];
  snprintf(login, sizeof login, "login=e%02d", e);
  snprintf(other, sizeof other, "login=e%02d", (e + 1) % NEMP);
  snprintf(mgr, sizeof mgr, "manager=e%02d", e);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  ITEST_VALUES(f, "ReportsTo", login);
  ddbst_query q = query_of(f, NULL, &conds[0]);
  q.limit = 1;
  itest_first_cursor(f, "managersOf", &q, 1, cursor);
  /* another employee's partition of the index */
  ITEST_VALUES(f, "ReportsTo", other);
  itest_cursor_refused(f, "managersOf", cursor, ITEST_MSG_NO_OPEN);
  /* the other patterns of the same partition of Reverse are named */
  ITEST_VALUES(f, "Member", login);
  itest_cursor_refused(f, "departmentsOf", cursor,
                       ITEST_MSG_MADE_FOR("managersOf", "departmentsOf"));
  ITEST_VALUES(f, "Employee", login);
  itest_cursor_refused(f, "employeeCard", cursor,
                       ITEST_MSG_MADE_FOR("managersOf", "employeeCard"));
  /* the table's side: the employee as a manager is another partition
   * (MGR#, not EMP#) */
  ITEST_VALUES(f, "ReportsTo", mgr);
  itest_cursor_refused(f, "directReports", cursor, ITEST_MSG_NO_OPEN);
  ddbst_buf_free(cursor);
}

int main(void) {
  if (itest_should_skip("test_orgchart")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(direct_reports),   cmocka_unit_test(department_members),
      cmocka_unit_test(managers_of),      cmocka_unit_test(departments_of),
      cmocka_unit_test(employee_card),    cmocka_unit_test(keys_written_once),
      cmocka_unit_test(cursors_bound),
  };
  return cmocka_run_group_tests(tests, write_items, itest_teardown);
}
