/* Every row of the sort-key condition table (DESIGN.md "Key semantics",
 * docs/queries.md) proved against DynamoDB Local on boundary data, for three
 * shapes of sort key: a facet followed by another (Event
 * EVENT#{ts}#{eventId}), the same with other entities in the partition
 * (Project PROJECT#{createdAt}#... beside the Organisation and its Users),
 * and a facet that is the whole sort key (Project on GSI2, {createdAt}). Each test asserts the exact items, in
 * order: those that must be in, and none of those that must not. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"

/* ---- boundary data ----
 *
 * One timeline for all three shapes, labelled so that failures read
 * plainly. V = 2026-02-01T00:00:00Z is the complete bound; the partial
 * bounds are the day 2026-02-01, its hour 00, and the month 2026-02.
 *
 *   A   2026-01-15T08:00:00Z   well before
 *   B   2026-01-31T23:59:59Z   one second before V, last second before the day
 *   C*  2026-02-01T00:00:00Z   exactly V: events C1 C2 C3 (three ULIDs, written
 *                              out of order); projects C1 and C2 (C2 archived)
 *   D   2026-02-01T00:00:01Z   one second after V
 *   E   2026-02-01T12:00:00Z   inside the day, after its hour 00
 *   F   2026-02-01T23:59:59Z   the day's last second
 *   G*  2026-02-02T00:00:00Z   the next day's first second (events G1 G2)
 *   H   2026-02-28T23:59:59Z   the month's last second
 *   I   2026-03-01T00:00:00Z   the next month's first second
 *   J   2026-03-15T10:00:00Z   well after (the project archived)
 *
 * Items that must never come back: an event at V in another project; in the
 * projects' partition the Organisation (SK ORG#oc, below PROJECT#) and two
 * Users (SK USER#..., above it); a project at V in another organisation;
 * on GSI2, the archived projects C2 and J (partition STATUS#archived). */

#define V "2026-02-01T00:00:00Z"

typedef struct timeline_entry {
  const char *label;
  const char *time;
  const char *ulid;   /* the event's id: ordered as the labels */
  const char *status; /* the project's */
} timeline_entry;

static const timeline_entry timeline[] = {
    {"A", "2026-01-15T08:00:00Z", "01HZ0000000000000000000010", "active"},
    {"B", "2026-01-31T23:59:59Z", "01HZ0000000000000000000020", "active"},
    /* C3 before C1 and C2: the order must come from the key, not the write */
    {"C3", V, "01HZ0000000000000000000033", NULL},
    {"C1", V, "01HZ0000000000000000000031", "active"},
    {"C2", V, "01HZ0000000000000000000032", "archived"},
    {"D", "2026-02-01T00:00:01Z", "01HZ0000000000000000000040", "active"},
    {"E", "2026-02-01T12:00:00Z", "01HZ0000000000000000000050", "active"},
    {"F", "2026-02-01T23:59:59Z", "01HZ0000000000000000000060", "active"},
    {"G2", "2026-02-02T00:00:00Z", "01HZ0000000000000000000072", NULL},
    {"G1", "2026-02-02T00:00:00Z", "01HZ0000000000000000000071", NULL},
    {"G", "2026-02-02T00:00:00Z", NULL, "active"},
    {"H", "2026-02-28T23:59:59Z", "01HZ0000000000000000000080", "active"},
    {"I", "2026-03-01T00:00:00Z", "01HZ0000000000000000000090", "active"},
    {"J", "2026-03-15T10:00:00Z", "01HZ00000000000000000000A0", "archived"},
};

static itest_fixture *fixture;

static int write_timeline(void **state) {
  (void)state; /* the cases are the tests' states */
  fixture = itest_group_fixture(
      itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "cond"));
  if (!fixture) return -1;
  itest_fixture *f = fixture;
  char ts[64], id[64], created[64], name[64], project[64], status[64];
  for (size_t i = 0; i < sizeof timeline / sizeof timeline[0]; i++) {
    const timeline_entry *t = &timeline[i];
    if (t->ulid) {
      snprintf(ts, sizeof ts, "ts=%s", t->time);
      snprintf(id, sizeof id, "eventId=%s", t->ulid);
      snprintf(name, sizeof name, "type=%s", t->label);
      ITEST_CREATE(f, "Event", "projectId=pc", ts, id, name);
    }
    if (t->status) {
      snprintf(created, sizeof created, "createdAt=%s", t->time);
      snprintf(project, sizeof project, "projectId=%s", t->label);
      snprintf(name, sizeof name, "name=%s", t->label);
      snprintf(status, sizeof status, "status=%s", t->status);
      ITEST_CREATE(f, "Project", "orgId=oc", project, created, name, status);
    }
  }
  ITEST_CREATE(f, "Event", "projectId=px", "ts=" V,
               "eventId=01HZ0000000000000000000030", "type=other-project");
  ITEST_CREATE(f, "Organisation", "orgId=oc", "name=ORG", "createdAt=" V);
  ITEST_CREATE(f, "User", "orgId=oc", "userId=a", "email=a@example.com",
               "name=USER-a");
  ITEST_CREATE(f, "User", "orgId=oc", "userId=z", "email=z@example.com",
               "name=USER-z");
  ITEST_CREATE(f, "Project", "orgId=od", "projectId=X", "createdAt=" V,
               "name=other-org", "status=archived");
  return 0;
}

/* ---- the rows ---- */

/* The three shapes, in the order of the expected columns below. */
typedef struct shape {
  const char *name;
  const char *entity, *partition, *pattern, *facet, *label;
} shape;

static const shape shapes[] = {
    {"event", "Event", "projectId=pc", "listEvents", "ts", "type"},
    {"project", "Project", "orgId=oc", "listProjects", "createdAt", "name"},
    {"gsi2", "Project", "status=active", "projectsByStatus", "createdAt",
     "name"},
};

typedef struct row {
  const char *name; /* the table's row: "gt v", "lte p", ... */
  int condition;
  const char *value, *value2;
  /* labels in the order returned: listEvents ascending, listProjects and
   * projectsByStatus newest first */
  const char *expected[3];
} row;

#define GTE DDBST_SK_GTE
#define GT DDBST_SK_GT
#define LTE DDBST_SK_LTE
#define LT DDBST_SK_LT
#define BEGINS DDBST_SK_BEGINS
#define BETWEEN DDBST_SK_BETWEEN

static const row rows[] = {
    /* no condition: the entity's whole key space, nothing else */
    {"all", DDBST_SK_NONE, NULL, NULL,
     {"A B C1 C2 C3 D E F G1 G2 H I J", "J I H G F E D C2 C1 B A",
      "I H G F E D C1 B A"}},

    /* gte v: from v, items at v included */
    {"gte v", GTE, V, NULL,
     {"C1 C2 C3 D E F G1 G2 H I J", "J I H G F E D C2 C1", "I H G F E D C1"}},
    {"gte v (as +01:00)", GTE, "2026-02-01T01:00:00+01:00", NULL,
     {"C1 C2 C3 D E F G1 G2 H I J", "J I H G F E D C2 C1", "I H G F E D C1"}},
    /* gte p: from the start of p's range */
    {"gte p", GTE, "2026-02-01", NULL,
     {"C1 C2 C3 D E F G1 G2 H I J", "J I H G F E D C2 C1", "I H G F E D C1"}},
    {"gte p", GTE, "2026-02-02", NULL, {"G1 G2 H I J", "J I H G", "I H G"}},

    /* gt v: no item whose facet is v */
    {"gt v", GT, V, NULL,
     {"D E F G1 G2 H I J", "J I H G F E D", "I H G F E D"}},
    {"gt v", GT, "2026-02-01T23:59:59Z", NULL,
     {"G1 G2 H I J", "J I H G", "I H G"}},
    /* gt p: after every value that starts with p */
    {"gt p", GT, "2026-02-01", NULL, {"G1 G2 H I J", "J I H G", "I H G"}},
    {"gt p", GT, "2026-02-01T00", NULL,
     {"E F G1 G2 H I J", "J I H G F E", "I H G F E"}},
    {"gt p", GT, "2026-02", NULL, {"I J", "J I", "I"}},

    /* lte v: items at v included */
    {"lte v", LTE, V, NULL, {"A B C1 C2 C3", "C2 C1 B A", "C1 B A"}},
    {"lte v", LTE, "2026-02-01T23:59:59Z", NULL,
     {"A B C1 C2 C3 D E F", "F E D C2 C1 B A", "F E D C1 B A"}},
    /* lte p: through the end of p's range (23:59:59 of the day, not the
     * next day's 00:00:00) */
    {"lte p", LTE, "2026-02-01", NULL,
     {"A B C1 C2 C3 D E F", "F E D C2 C1 B A", "F E D C1 B A"}},
    {"lte p", LTE, "2026-02", NULL,
     {"A B C1 C2 C3 D E F G1 G2 H", "H G F E D C2 C1 B A",
      "H G F E D C1 B A"}},

    /* lt v: before v, nothing at v */
    {"lt v", LT, V, NULL, {"A B", "B A", "B A"}},
    {"lt v", LT, "2026-02-01T00:00:01Z", NULL,
     {"A B C1 C2 C3", "C2 C1 B A", "C1 B A"}},
    /* lt p: before every value that starts with p */
    {"lt p", LT, "2026-02-01", NULL, {"A B", "B A", "B A"}},
    {"lt p", LT, "2026-02-02", NULL,
     {"A B C1 C2 C3 D E F", "F E D C2 C1 B A", "F E D C1 B A"}},

    /* begins: starts with the value */
    {"begins v", BEGINS, V, NULL, {"C1 C2 C3", "C2 C1", "C1"}},
    {"begins p", BEGINS, "2026-02-01", NULL,
     {"C1 C2 C3 D E F", "F E D C2 C1", "F E D C1"}},
    {"begins p", BEGINS, "2026-02-01T00:00:0", NULL,
     {"C1 C2 C3 D", "D C2 C1", "D C1"}},
    {"begins p", BEGINS, "2026-02", NULL,
     {"C1 C2 C3 D E F G1 G2 H", "H G F E D C2 C1", "H G F E D C1"}},

    /* between a and b: gte a and lte b, each complete or partial */
    {"between v v", BETWEEN, V, V, {"C1 C2 C3", "C2 C1", "C1"}},
    {"between v v", BETWEEN, V, "2026-02-01T23:59:59Z",
     {"C1 C2 C3 D E F", "F E D C2 C1", "F E D C1"}},
    {"between v p", BETWEEN, "2026-02-01T00:00:01Z", "2026-02-01",
     {"D E F", "F E D", "F E D"}},
    {"between p v", BETWEEN, "2026-02-01", "2026-02-02T00:00:00Z",
     {"C1 C2 C3 D E F G1 G2", "G F E D C2 C1", "G F E D C1"}},
    {"between p p", BETWEEN, "2026-02-01", "2026-02-01",
     {"C1 C2 C3 D E F", "F E D C2 C1", "F E D C1"}},
    {"between p p", BETWEEN, "2026-01", "2026-02-01",
     {"A B C1 C2 C3 D E F", "F E D C2 C1 B A", "F E D C1 B A"}},
    {"between p p", BETWEEN, "2026-02-01", "2026-02",
     {"C1 C2 C3 D E F G1 G2 H", "H G F E D C2 C1", "H G F E D C1"}},
};

#define NROWS (sizeof rows / sizeof rows[0])
#define NSHAPES (sizeof shapes / sizeof shapes[0])

typedef struct test_case {
  const shape *shape;
  const row *row;
  int column;
  char name[160];
} test_case;

static void run_case(void **state) {
  const test_case *c = *state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, c->shape->entity, c->shape->partition);
  ddbst_query q = itest_condition(f, c->row->condition, c->shape->facet,
                                  c->row->value, c->row->value2);
  itest_expect(f, itest_query(f, c->shape->pattern, &q), c->shape->label,
               c->row->expected[c->column], c->name);
}

/* Leading sort-key facets given as values, not as a condition, match by
 * equality up to the delimiter after them: every item at exactly V (not
 * only those whose key starts with V's text), and with the next facet too,
 * the one item. */
static void facets_by_equality(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Event", "projectId=pc", "ts=" V);
  itest_expect(f, itest_query(f, "listEvents", NULL), "type", "C1 C2 C3",
               "listEvents ts = V");
  ITEST_VALUES(f, "Event", "projectId=pc", "ts=" V,
               "eventId=01hz0000000000000000000032");
  itest_expect(f, itest_query(f, "listEvents", NULL), "type", "C2",
               "listEvents ts = V, eventId = C2's (lower-case)");
  ITEST_VALUES(f, "Project", "orgId=oc", "createdAt=" V);
  itest_expect(f, itest_query(f, "listProjects", NULL), "name", "C2 C1",
               "listProjects createdAt = V");
  ITEST_VALUES(f, "Project", "orgId=oc", "createdAt=" V, "projectId=C1");
  itest_expect(f, itest_query(f, "listProjects", NULL), "name", "C1",
               "listProjects createdAt = V, projectId = C1");
  ITEST_VALUES(f, "Project", "status=active", "createdAt=" V);
  itest_expect(f, itest_query(f, "projectsByStatus", NULL), "name", "C1",
               "projectsByStatus createdAt = V");
}

int main(void) {
  if (itest_should_skip("test_conditions")) return ITEST_SKIP;
  static test_case cases[NSHAPES * NROWS];
  static struct CMUnitTest tests[NSHAPES * NROWS + 1];
  size_t n = 0;
  for (size_t s = 0; s < NSHAPES; s++)
    for (size_t r = 0; r < NROWS; r++, n++) {
      test_case *c = &cases[n];
      c->shape = &shapes[s];
      c->row = &rows[r];
      c->column = (int)s;
      if (rows[r].value2)
        snprintf(c->name, sizeof c->name, "%s %s: %s %s, %s", shapes[s].name,
                 shapes[s].facet, rows[r].name, rows[r].value, rows[r].value2);
      else if (rows[r].value)
        snprintf(c->name, sizeof c->name, "%s %s: %s %s", shapes[s].name,
                 shapes[s].facet, rows[r].name, rows[r].value);
      else
        snprintf(c->name, sizeof c->name, "%s %s: %s", shapes[s].name,
                 shapes[s].facet, rows[r].name);
      tests[n].name = c->name;
      tests[n].test_func = run_case;
      tests[n].initial_state = c;
    }
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(facets_by_equality);
  /* one group: the table is written once and read by every case */
  return _cmocka_run_group_tests("sort-key conditions", tests, n,
                                 write_timeline, itest_group_teardown)
             ? 1
             : 0;
}
