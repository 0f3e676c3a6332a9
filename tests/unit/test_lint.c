/* The review rules: every tests/lint model gives exactly its finding (with
 * its rule name), both examples lint without errors, the edges of each rule,
 * and the model fields the linter reads (scan, filter, cursors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

typedef struct collected {
  char text[8192];
  size_t len;
  char rules[512];
  int calls;
} collected;

static void collect(void *user, int32_t severity, const char *rule,
                    const char *path, const char *message) {
  collected *c = user;
  c->calls++;
  int n = snprintf(c->text + c->len, sizeof c->text - c->len, "%s %s: %s\n",
                   ddbst_lint_severity_name(severity), path, message);
  if (n > 0 && (size_t)n < sizeof c->text - c->len) c->len += (size_t)n;
  size_t r = strlen(c->rules);
  snprintf(c->rules + r, sizeof c->rules - r, "%s%s", r ? " " : "", rule);
}

/* Lints `m`: the findings as `ddbst lint` prints them; *errors gets the
 * return value. */
static collected *lint(const ddbst_model *m, int *errors) {
  static collected c;
  memset(&c, 0, sizeof c);
  *errors = ddbst_model_lint(m, collect, &c, NULL);
  return &c;
}

static char *read_text(const char *relative) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, relative);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

static int count_errors(const char *text) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, "error ")) != NULL; p++)
    if (p == text || p[-1] == '\n') n++;
  return n;
}

/* Each bad model of tests/lint, the rule it must trip, alone. */
static const struct {
  const char *model;
  const char *rule;
} bad_models[] = {
    {"clean", ""},
    {"scan", "scan"},
    {"unbounded-list", "unbounded-list"},
    {"hot-partition-table", "hot-partition"},
    {"hot-partition-index", "hot-partition"},
    {"date-bucket-table", "date-bucket"},
    {"date-bucket-index", "date-bucket"},
    {"date-bucket-string", "date-bucket"},
    {"few-partitions-table", "few-partitions"},
    {"few-partitions-index", "few-partitions"},
    {"gsi-projects-all", "gsi-projects-all"},
    {"gsi-include-unknown", "gsi-include-unknown"},
    {"gsi-unused", "gsi-unused"},
    {"gsi-entity-unread", "gsi-entity-unread"},
    {"gsi-not-sparse", "gsi-not-sparse"},
    {"sort-key-order-integer", "sort-key-order"},
    {"sort-key-order-uuid", "sort-key-order"},
    {"sort-key-order-time", "sort-key-order"},
    {"pk-no-prefix", "pk-no-prefix"},
    {"filter-on-sort-key", "filter-on-sort-key"},
    {"filter-low-cardinality", "filter-low-cardinality"},
    {"unsealed-cursors", "unsealed-cursors"},
    {"item-size", "item-size"},
    {"ttl-not-enabled", "ttl-not-enabled"},
    {"ttl-not-enabled-other-name", "ttl-not-enabled"},
    {"range-below-delimiter", "range-below-delimiter"},
    {"sort-key-fit-native", "sort-key-fit"},
    {"sort-key-fit-identified", "sort-key-fit"},
    {"sort-key-fit-partition", "sort-key-fit"},
};

static void every_rule_model(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad_models / sizeof bad_models[0]; i++) {
    char rel[256];
    snprintf(rel, sizeof rel, "tests/lint/%s.json", bad_models[i].model);
    ddbst_model *m = load_example(rel);
    int errors;
    collected *c = lint(m, &errors);
    snprintf(rel, sizeof rel, "tests/lint/%s.expected", bad_models[i].model);
    const char *expected = read_text(rel);
    if (strcmp(c->text, expected) != 0)
      fail_msg("%s:\n  got:    %s\n  wanted: %s", bad_models[i].model,
               c->text, expected);
    assert_string_equal(c->rules, bad_models[i].rule);
    assert_int_equal(c->calls, bad_models[i].rule[0] ? 1 : 0);
    assert_int_equal(errors, count_errors(expected));
    ddbst_model_free(m);
  }
}

static void examples_have_no_errors(void **state) {
  (void)state;
  int errors;
  ddbst_model *m = load_example("examples/saas/model.json");
  collected *c = lint(m, &errors);
  assert_int_equal(errors, 0);
  assert_string_equal(c->rules, "few-partitions item-size");
  assert_string_equal(c->text, read_text("tests/lint/examples/saas.expected"));
  ddbst_model_free(m);

  m = load_example("examples/blog/model.json");
  c = lint(m, &errors);
  assert_int_equal(errors, 0);
  assert_string_equal(c->rules,
                      "gsi-projects-all gsi-not-sparse hot-partition "
                      "hot-partition");
  assert_string_equal(c->text, read_text("tests/lint/examples/blog.expected"));
  ddbst_model_free(m);
}

static void api(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(ddbst_model_lint(NULL, collect, NULL, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "model is NULL");
  /* Without a callback the errors are still counted. */
  ddbst_model *m = load_example("tests/lint/scan.json");
  assert_int_equal(ddbst_model_lint(m, NULL, NULL, NULL), 1);
  ddbst_model_free(m);
  assert_string_equal(ddbst_lint_severity_name(DDBST_LINT_ERROR), "error");
  assert_string_equal(ddbst_lint_severity_name(DDBST_LINT_WARNING), "warning");
  assert_string_equal(ddbst_lint_severity_name(DDBST_LINT_NOTE), "note");
  assert_null(ddbst_lint_severity_name(3));
  assert_null(ddbst_lint_severity_name(-1));
}

/* A model of one entity, with `extra_attrs`, `key`, and `patterns`. */
static ddbst_model *one_entity(const char *table_extra, const char *attrs,
                               const char *key, const char *patterns) {
  static char text[4096];
  snprintf(text, sizeof text,
           "{\"ddbst\":1,\"table\":{\"name\":\"edge\",\"partitionKey\":\"PK\""
           "%s},\"entities\":{\"E\":{\"attributes\":{%s},\"key\":{%s}}},"
           "\"patterns\":{%s}}",
           table_extra, attrs, key, patterns);
  return load_text(text);
}

static const char *rules_of(ddbst_model *m) {
  static char out[sizeof ((collected *)0)->rules];
  int errors;
  memcpy(out, lint(m, &errors)->rules, sizeof out);
  ddbst_model_free(m);
  return out;
}

static void rule_edges(void **state) {
  (void)state;
  /* One item with a constant key (settings): nothing to spread. */
  assert_string_equal(rules_of(one_entity(",\"sortKey\":\"SK\"", "\"v\":\"string\"",
                                          "\"pk\":\"CONFIG\",\"sk\":\"CONFIG\"",
                                          "")),
                      "");
  /* No sort key: a Query finds one item at most, no cap needed. */
  assert_string_equal(rules_of(one_entity("", "\"id\":\"string\"",
                                          "\"pk\":\"E#{id}\"",
                                          "\"one\":{\"query\":\"E\"}")),
                      "");
  /* A limit with a default but no max points at the limit. */
  ddbst_model *m = one_entity(",\"sortKey\":\"SK\"",
                              "\"id\":\"string\",\"n\":\"integer\"",
                              "\"pk\":\"E#{id}\",\"sk\":\"N#{n}\"",
                              "\"list\":{\"query\":\"E\",\"limit\":{"
                              "\"default\":10}}");
  int errors;
  assert_string_equal(lint(m, &errors)->text,
                      "error patterns.list.limit: list can return any number "
                      "of items in one call: cap it with limit.max so that "
                      "every page is bounded\n");
  ddbst_model_free(m);
  /* Unpadded integers in a sort key matter only to a pattern that relies on
   * order: "order": "asc" says it does, no "order" says it does not. */
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"n\":\"integer\"",
                          "\"pk\":\"E#{id}\",\"sk\":\"N#{n}\"",
                          "\"list\":{\"query\":\"E\",\"limit\":{\"max\":9}}")),
      "");
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"n\":\"integer\"",
                          "\"pk\":\"E#{id}\",\"sk\":\"N#{n}\"",
                          "\"list\":{\"query\":\"E\",\"order\":\"asc\","
                          "\"limit\":{\"max\":9}}")),
      "sort-key-order");
  /* "paid" and "valid" are not ids; "orderId" and "order_id" are. */
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"paid\":\"string\"",
                          "\"pk\":\"E#{id}\",\"sk\":\"P#{paid}\"",
                          "\"list\":{\"query\":\"E\",\"order\":\"desc\","
                          "\"limit\":{\"max\":9}}")),
      "");
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"order_id\":\"string\"",
                          "\"pk\":\"E#{id}\",\"sk\":\"O#{order_id}\"",
                          "\"list\":{\"query\":\"E\",\"order\":\"desc\","
                          "\"limit\":{\"max\":9}}")),
      "sort-key-order");
  /* A filter on the second sort-key facet is a key condition's work when
   * the first is fixed by the partition key, and not otherwise. */
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":{\"type\":\"string\",\"escape\":"
                          "\"ordered\"},\"kind\":{\"type\":\"string\","
                          "\"escape\":\"ordered\"},\"ts\":{\"type\":"
                          "\"timestamp\"}",
                          "\"pk\":\"E#{id}\",\"sk\":\"{id}#{kind}#{ts}\"",
                          "\"list\":{\"query\":\"E\",\"filter\":{\"kind\":"
                          "[\"a\",\"b\"]},\"limit\":{\"max\":9}}")),
      "filter-on-sort-key");
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"kind\":\"string\","
                          "\"ts\":{\"type\":\"timestamp\"}",
                          "\"pk\":\"E#{id}\",\"sk\":\"T#{ts}#{kind}\"",
                          "\"list\":{\"query\":\"E\",\"filter\":{\"kind\":"
                          "\"a\"},\"limit\":{\"max\":9}}")),
      "");
  /* An equality filter of the pattern's own, on every call: a finding on an
   * enum or a boolean no key holds; not on a string, and an enum facet of
   * the sort key is filter-on-sort-key's alone. */
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"done\":\"boolean\","
                          "\"ts\":{\"type\":\"timestamp\"}",
                          "\"pk\":\"E#{id}\",\"sk\":\"T#{ts}\"",
                          "\"list\":{\"query\":\"E\",\"filter\":{\"done\":"
                          "false},\"limit\":{\"max\":9}}")),
      "filter-low-cardinality");
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"owner\":\"string\","
                          "\"ts\":{\"type\":\"timestamp\"}",
                          "\"pk\":\"E#{id}\",\"sk\":\"T#{ts}\"",
                          "\"list\":{\"query\":\"E\",\"filter\":{\"owner\":"
                          "\"ann\"},\"limit\":{\"max\":9}}")),
      "");
  assert_string_equal(
      rules_of(one_entity(",\"sortKey\":\"SK\"",
                          "\"id\":\"string\",\"state\":{\"type\":\"enum\","
                          "\"values\":[\"a\",\"b\"]},\"ts\":{\"type\":"
                          "\"timestamp\"}",
                          "\"pk\":\"E#{id}\",\"sk\":\"{state}#{ts}\"",
                          "\"list\":{\"query\":\"E\",\"filter\":{\"state\":"
                          "\"a\"},\"limit\":{\"max\":9}}")),
      "filter-on-sort-key");
  /* Issue 16: a range facet the delimiter follows is named, each way it is
   * kept or refused; an enum only for the values it would refuse. */
  m = one_entity(",\"sortKey\":\"SK\"",
                 "\"id\":\"string\",\"c\":{\"type\":\"string\",\"escape\":"
                 "true},\"e\":{\"type\":\"enum\",\"values\":[\"a\",\"a b\","
                 "\"ab\"]},\"f\":{\"type\":\"enum\",\"values\":[\"x\",\"xy\"]},"
                 "\"g\":{\"type\":\"string\",\"escape\":\"ordered\"}",
                 "\"pk\":\"E#{id}\",\"sk\":\"{c}#{e}#{f}#{g}#{id}\"",
                 "\"list\":{\"query\":\"E\",\"limit\":{\"max\":9}}");
  assert_string_equal(
      lint(m, &errors)->text,
      "warning entities.E.attributes.c: a range on E.c compares its "
      "%-escaped text, which does not sort as the values do ('#' is ordered "
      "as %XX), and its values holding a character below '#' are refused; "
      "\"escape\": \"ordered\" orders by the values and refuses none\n"
      "error entities.E.attributes.e: E.e's value 'a b' sorts out of place "
      "before the key delimiter '#' that follows it in a sort key a pattern "
      "ranges on: its keys are refused; choose values that do not continue "
      "one another with a character below '#'\n");
  assert_int_equal(errors, 1);
  ddbst_model_free(m);
  /* A scan of an index names the index. */
  m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"edge\",\"partitionKey\":\"PK\","
      "\"indexes\":{\"GSI\":{\"partitionKey\":\"GPK\",\"projection\":"
      "\"KEYS_ONLY\"}}},\"entities\":{\"E\":{\"attributes\":{\"id\":"
      "\"string\",\"t\":\"string\"},\"key\":{\"pk\":\"E#{id}\"},\"indexes\":"
      "{\"GSI\":{\"pk\":\"T#{t}\"}}}},\"patterns\":{\"all\":{\"scan\":\"E\","
      "\"index\":\"GSI\",\"limit\":{\"max\":5}}}}");
  assert_string_equal(lint(m, &errors)->text,
                      "error patterns.all.scan: all reads all of index GSI with "
                      "a Scan: no key serves it, so every call pays for every "
                      "item in it; key the index so that a Query can name the "
                      "partition it needs\n");
  assert_int_equal(errors, 1);
  ddbst_model_free(m);
  /* A membership condition makes an index sparse. */
  assert_string_equal(
      rules_of(load_text(
          "{\"ddbst\":1,\"table\":{\"name\":\"edge\",\"partitionKey\":\"PK\","
          "\"indexes\":{\"GSI\":{\"partitionKey\":\"GPK\",\"projection\":"
          "\"KEYS_ONLY\"}}},\"entities\":{\"E\":{\"attributes\":{\"id\":"
          "\"string\",\"s\":{\"type\":\"enum\",\"values\":[\"a\",\"b\"],"
          "\"default\":\"a\"}},\"key\":{\"pk\":\"E#{id}\"},\"indexes\":{\"GSI\":"
          "{\"pk\":\"E#{id}\",\"when\":{\"s\":\"b\"}}}}},\"patterns\":{\"q\":"
          "{\"query\":\"E\",\"index\":\"GSI\",\"limit\":{\"max\":5}}}}")),
      "");
}

/* The fields the review reads are checked like every other field. */
/* sort-key-fit on the table's own key: what comes before the range. */
static void sort_key_fit_edges(void **state) {
  (void)state;
  static const char *const table = ",\"sortKey\":\"SK\"";
  static const char *const attrs =
      "\"owner\":\"string\",\"kind\":{\"type\":\"enum\",\"values\":"
      "[\"a\",\"b\"]},\"n\":{\"type\":\"integer\",\"width\":4},"
      "\"at\":\"timestamp\"";
  static const char *const by_at =
      "\"list\":{\"query\":\"E\",\"range\":\"at\",\"limit\":{\"max\":9}}";
  /* nothing before the range, an enum before it, a facet the partition
   * key fixes before it: all fine */
  assert_string_equal(rules_of(one_entity(table, attrs,
                                          "\"pk\":\"E#{owner}\",\"sk\":"
                                          "\"T#{at}#{kind}\"",
                                          by_at)),
                      "");
  assert_string_equal(rules_of(one_entity(table, attrs,
                                          "\"pk\":\"E#{owner}\",\"sk\":"
                                          "\"{kind}#{at}\"",
                                          by_at)),
                      "");
  assert_string_equal(rules_of(one_entity(table, attrs,
                                          "\"pk\":\"E#{owner}\",\"sk\":"
                                          "\"{owner}#{at}\"",
                                          by_at)),
                      "");
  /* an integer before it, after the enum: the warning, once */
  ddbst_model *m = one_entity(table, attrs,
                              "\"pk\":\"E#{owner}\",\"sk\":"
                              "\"{kind}#{n}#{at}\"",
                              by_at);
  int errors;
  assert_string_equal(
      lint(m, &errors)->text,
      "warning patterns.list.range: list ranges on at, but n comes before it "
      "in SK = {kind}#{n}#{at}: every query must give n exactly, and n "
      "(integer) takes about one value per item, which leaves the range "
      "almost nothing to read; put at before n, or range on n\n");
  assert_int_equal(errors, 0);
  ddbst_model_free(m);
  /* a pattern with no range, or on a collection: not judged */
  assert_string_equal(rules_of(one_entity(table, attrs,
                                          "\"pk\":\"E#{owner}\",\"sk\":"
                                          "\"{n}#{at}\"",
                                          "\"list\":{\"query\":\"E\","
                                          "\"limit\":{\"max\":9}}")),
                      "");
}

static void review_fields_in_the_model(void **state) {
  (void)state;
  ddbst_error err;
#define BASE_START                                                           \
  "{\"ddbst\":1,\"table\":{\"name\":\"edge\",\"partitionKey\":\"PK\","       \
  "\"sortKey\":\"SK\""
#define BASE_END                                                             \
  "},\"entities\":{\"E\":{\"attributes\":{\"id\":\"string\",\"n\":"         \
  "\"integer\",\"doc\":\"map\"},\"key\":{\"pk\":\"E#{id}\",\"sk\":"          \
  "\"E\"}},\"F\":{\"attributes\":{\"id\":\"string\"},\"key\":{\"pk\":"      \
  "\"F#{id}\",\"sk\":\"F\"}}},\"patterns\":{"
  assert_int_equal(load_fails(BASE_START ",\"cursors\":\"open\"" BASE_END "}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "table.cursors");
  assert_string_equal(err.message, "expected \"sealed\" or \"unsealed\"");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"scan\":\"E\",\"query\":\"E\"}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "patterns.p");
  assert_non_null(strstr(err.message, "or 'scan' (the same, read without a "
                                      "key)"));

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"scan\":\"E\",\"order\":\"desc\"}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.message,
                      "a scan has no key order: 'range' and 'order' do not "
                      "apply");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"get\":\"E\",\"filter\":{\"n\":1}}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "patterns.p.filter");
  assert_string_equal(err.message, "GetItem reads one item: it takes no filter");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":\"E\",\"filter\":{\"m\":1}}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "patterns.p.filter.m");
  assert_string_equal(err.message, "'m' is not an attribute of E");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":\"E\",\"filter\":{\"n\":"
                              "\"x\"}}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "patterns.p.filter.n");
  assert_string_equal(err.message, "a integer attribute does not take a string");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":\"E\",\"filter\":{\"doc\":"
                              "1}}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.message, "a filter compares a scalar: 'doc' is a map");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":\"E\",\"filter\":{}}}}", &err),
                   DDBST_EMODEL);
  assert_string_equal(err.message, "give at least one attribute");

  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":\"E\",\"description\":1}}}",
                              &err),
                   DDBST_EMODEL);
  assert_string_equal(err.path, "patterns.p.description");

  /* A scan reads anything: the entities of one need not share a partition,
   * unlike a query's collection. */
  ddbst_model *m = load_text(BASE_START ",\"cursors\":\"sealed\"" BASE_END
                             "\"p\":{\"scan\":[\"E\",\"F\"],\"filter\":{"
                             "\"id\":\"x\"},\"limit\":{\"max\":5}}}}");
  ddbst_model_free(m);
  assert_int_equal(load_fails(BASE_START BASE_END
                              "\"p\":{\"query\":[\"E\",\"F\"]}}}",
                              &err),
                   DDBST_EMODEL);
  assert_non_null(strstr(err.message, "a collection reads one partition"));
#undef BASE_START
#undef BASE_END
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_rule_model),
      cmocka_unit_test(examples_have_no_errors),
      cmocka_unit_test(api),
      cmocka_unit_test(rule_edges),
      cmocka_unit_test(sort_key_fit_edges),
      cmocka_unit_test(review_fields_in_the_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
