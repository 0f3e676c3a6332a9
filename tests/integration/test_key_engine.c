/* One key engine on DynamoDB Local: sort-key ranges on a lower-cased facet
 * (tests/integration/models/members.json: Member "M#{name:lower}", the facet
 * ending the key, and Badge "B#{name:lower}#{badgeId}", a facet followed by
 * another) return exactly what an oracle computes from the names, paged
 * with ddbst's sealed cursors. Names are written in mixed case and asked
 * for in mixed case: the key holds them lower-cased, so every condition is
 * on the lower-cased text (docs/queries.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static const char *const names[] = {
    "a",   "AA",  "Ab",    "abc", "ABD", "Abz", "ac",
    "B",   "b2",  "Bob",   "ZED", "zz",  "\xc3\x89mile" /* Émile */,
};
#define NNAMES (sizeof names / sizeof names[0])
/* every name has two badges, written in the order below */
static const char *const badges[] = {"k2", "k1"};

static itest_fixture *fixture;

static int write_members(void **state) {
  (void)state; /* the rows are the tests' states */
  fixture = itest_group_fixture(itest_open_sealed(
      DDBST_SOURCE_DIR "/tests/integration/models/members.json", "keng", 7));
  if (!fixture) return -1;
  itest_fixture *f = fixture;
  char name[64], badge[64];
  ITEST_CREATE(f, "Team", "teamId=t1", "title=T");
  for (size_t i = 0; i < NNAMES; i++) {
    snprintf(name, sizeof name, "name=%s", names[i]);
    ITEST_CREATE(f, "Member", "teamId=t1", name);
    for (size_t b = 0; b < 2; b++) {
      snprintf(badge, sizeof badge, "badgeId=%s", badges[b]);
      ITEST_CREATE(f, "Badge", "teamId=t1", name, badge);
    }
  }
  /* the same names in another partition: never returned */
  ITEST_CREATE(f, "Member", "teamId=t2", "name=Ab");
  ITEST_CREATE(f, "Badge", "teamId=t2", "name=Ab", "badgeId=k1");
  return 0;
}

/* ---- the oracle: the conditions of docs/queries.md on lower-cased text */

static void lower(const char *s, char *out, size_t cap) {
  size_t i = 0;
  for (; s[i] && i + 1 < cap; i++)
    out[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
  out[i] = '\0';
}

static int starts(const char *s, const char *p) {
  return strncmp(s, p, strlen(p)) == 0;
}

static int holds(int cond, const char *x, const char *v, const char *v2) {
  switch (cond) {
  case DDBST_SK_GTE: return strcmp(x, v) >= 0;
  case DDBST_SK_GT: return strcmp(x, v) > 0;
  case DDBST_SK_LTE: return strcmp(x, v) <= 0;
  case DDBST_SK_LT: return strcmp(x, v) < 0;
  case DDBST_SK_BEGINS: return starts(x, v);
  case DDBST_SK_BETWEEN: return strcmp(x, v) >= 0 && strcmp(x, v2) <= 0;
  case DDBST_SK_GT_LT: return strcmp(x, v) > 0 && strcmp(x, v2) < 0;
  case DDBST_SK_GT_LTE: return strcmp(x, v) > 0 && strcmp(x, v2) <= 0;
  case DDBST_SK_GTE_LT: return strcmp(x, v) >= 0 && strcmp(x, v2) < 0;
  default: return 1;
  }
}

static int by_lower(const void *a, const void *b) {
  char x[64], y[64];
  lower(*(const char *const *)a, x, sizeof x);
  lower(*(const char *const *)b, y, sizeof y);
  return strcmp(x, y);
}

/* The expected labels: names (as written) in the order of their lower-cased
 * text, each twice with its badges for badges ("Ab/k1 Ab/k2"). */
static void oracle(int cond, const char *value, const char *value2,
                   int with_badges, char *out, size_t cap) {
  const char *sorted[NNAMES];
  memcpy(sorted, names, sizeof sorted);
  qsort(sorted, NNAMES, sizeof sorted[0], by_lower);
  char v[64] = "", v2[64] = "", x[64];
  if (value) lower(value, v, sizeof v);
  if (value2) lower(value2, v2, sizeof v2);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < NNAMES; i++) {
    lower(sorted[i], x, sizeof x);
    if (!holds(cond, x, v, v2)) continue;
    if (with_badges)
      len += (size_t)snprintf(out + len, cap - len, "%s%s/k1 %s/k2",
                              len ? " " : "", sorted[i], sorted[i]);
    else
      len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "",
                              sorted[i]);
  }
}

/* "name/badgeId" of each badge, in the order returned. */
static const char *badge_labels(yajl_val items) {
  static char out[4096];
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val it = items->u.array.values[i];
    len += (size_t)snprintf(out + len, sizeof out - len, "%s%s/%s",
                            len ? " " : "", itest_s(it, "name"),
                            itest_s(it, "badgeId"));
  }
  return out;
}

typedef struct row {
  const char *name;
  int condition;
  const char *value, *value2;
} row;

static const row rows[] = {
    {"all", DDBST_SK_NONE, NULL, NULL},
    {"begins AB", DDBST_SK_BEGINS, "AB", NULL},
    {"begins b", DDBST_SK_BEGINS, "b", NULL},
    {"begins Z", DDBST_SK_BEGINS, "Z", NULL},
    {"lt B", DDBST_SK_LT, "B", NULL},
    {"lte ab", DDBST_SK_LTE, "ab", NULL},
    {"lte AB", DDBST_SK_LTE, "AB", NULL},
    {"gt ABC", DDBST_SK_GT, "ABC", NULL},
    {"gt a", DDBST_SK_GT, "a", NULL},
    {"gte Bo", DDBST_SK_GTE, "Bo", NULL},
    {"between AA AC", DDBST_SK_BETWEEN, "AA", "AC"},
    {"between b Z", DDBST_SK_BETWEEN, "b", "Z"},
    {"lte ZZ", DDBST_SK_LTE, "ZZ", NULL},
    {"gte \xc3\x89", DDBST_SK_GTE, "\xc3\x89", NULL},
    {"gt Ab lt B", DDBST_SK_GT_LT, "Ab", "B"},
    {"gt a lte abd", DDBST_SK_GT_LTE, "a", "abd"},
    {"gte AB lt bob", DDBST_SK_GTE_LT, "AB", "bob"},
    {"gt a lt b2", DDBST_SK_GT_LT, "a", "b2"},
    {"gte aa lte ZZ", DDBST_SK_GTE_LTE, "aa", "ZZ"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void members(void **state) {
  const row *r = *state;
  itest_fixture *f = fixture;
  char want[4096];
  oracle(r->condition, r->value, r->value2, 0, want, sizeof want);
  ITEST_VALUES(f, "Member", "teamId=t1");
  ddbst_query q = itest_condition(f, r->condition, "name", r->value, r->value2);
  itest_expect(f, itest_query_cursors(f, "membersByName", &q, f->keys), "name",
               want, r->name);
}

static void badges_of(void **state) {
  const row *r = *state;
  itest_fixture *f = fixture;
  char want[4096];
  oracle(r->condition, r->value, r->value2, 1, want, sizeof want);
  ITEST_VALUES(f, "Badge", "teamId=t1");
  ddbst_query q = itest_condition(f, r->condition, "name", r->value, r->value2);
  const char *got =
      badge_labels(itest_query_cursors(f, "badgesByName", &q, f->keys));
  if (strcmp(got, want))
    fail_msg("badgesByName %s\n  expected: %s\n  got:      %s\n  last "
             "request: %s",
             r->name, want, got, ddbst_buf_data(f->body));
}

/* The example, spelled out, so that the oracle itself is checked. */
static void the_example(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Member", "teamId=t1");
  ddbst_query q = itest_condition(f, DDBST_SK_BEGINS, "name", "Ab", NULL);
  itest_expect(f, itest_query_cursors(f, "membersByName", &q, f->keys), "name",
               "Ab abc ABD Abz", "begins Ab");
  q = itest_condition(f, DDBST_SK_LT, "name", "B", NULL);
  itest_expect(f, itest_query_cursors(f, "membersByName", &q, f->keys), "name",
               "a AA Ab abc ABD Abz ac", "lt B");
}

int main(void) {
  if (itest_should_skip("test_key_engine")) return ITEST_SKIP;
  static struct CMUnitTest tests[2 * NROWS + 1];
  static char titles[2 * NROWS][96];
  size_t n = 0;
  for (size_t r = 0; r < NROWS; r++)
    for (int b = 0; b < 2; b++, n++) {
      snprintf(titles[n], sizeof titles[n], "%s: %s",
               b ? "badgesByName" : "membersByName", rows[r].name);
      tests[n].name = titles[n];
      tests[n].test_func = b ? badges_of : members;
      tests[n].initial_state = (void *)&rows[r];
    }
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(the_example);
  return _cmocka_run_group_tests("key engine", tests, n, write_members,
                                 itest_group_teardown)
             ? 1
             : 0;
}
