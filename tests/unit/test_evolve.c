/* ddbst_model_diff, ddbst_model_lint_since and the JSON entry's diff op:
 * exact changes on small models, bad input, and allocation failure. The
 * golden pairs per class are tests/evolve/ (run.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* A table of one entity; OLD_* pieces are spliced to make each version. */
#define MODEL(table, sk, attrs, extra)                                         \
  "{\"ddbst\":1,\"table\":{\"name\":\"" table "\",\"partitionKey\":\"PK\","    \
  "\"sortKey\":\"SK\"},\"entities\":{\"Event\":{\"attributes\":{"              \
  "\"id\":\"string\",\"at\":{\"type\":\"timestamp\",\"precision\":\"ms\"},"    \
  "\"kind\":{\"type\":\"enum\",\"values\":[\"a\",\"b\"]}" attrs "},"           \
  "\"key\":{\"pk\":\"EVENT#{id}\",\"sk\":\"" sk "\"}" extra "}},"              \
  "\"patterns\":{\"listEvents\":{\"query\":\"Event\",\"limit\":{\"max\":"      \
  "10}}}}"

static const char *const base_text = MODEL("tbl", "AT#{at}", "", "");

/* The same model with its members in another order and other spacing. */
static const char *const reordered_text =
    "{ \"patterns\": { \"listEvents\": { \"limit\": { \"max\": 10 }, "
    "\"query\": \"Event\" } },\n \"entities\": { \"Event\": { \"key\": { "
    "\"sk\": \"AT#{at}\", \"pk\": \"EVENT#{id}\" }, \"attributes\": { "
    "\"kind\": { \"values\": [\"a\", \"b\"], \"type\": \"enum\" }, \"at\": "
    "{ \"precision\": \"ms\", \"type\": \"timestamp\" }, \"id\": \"string\" "
    "} } },\n \"table\": { \"sortKey\": \"SK\", \"partitionKey\": \"PK\", "
    "\"name\": \"tbl\" }, \"ddbst\": 1 }";

static int diff(const char *old_text, const char *new_text, uint32_t flags,
                ddbst_buf *out, ddbst_error *err) {
  ddbst_model *a = load_text(old_text), *b = load_text(new_text);
  int rc = ddbst_model_diff(a, b, flags, out, err);
  ddbst_model_free(a);
  ddbst_model_free(b);
  return rc;
}

static void no_change(void **state) {
  (void)state;
  ddbst_buf *out = ddbst_buf_new(NULL);
  assert_int_equal(diff(base_text, reordered_text, 0, out, NULL),
                   DDBST_CHANGE_NONE);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"table\":\"tbl\",\"changes\":[],\"worst\":\"none\"}");
  assert_int_equal(diff(base_text, reordered_text, DDBST_DIFF_TEXT, out, NULL),
                   DDBST_CHANGE_NONE);
  assert_string_equal(ddbst_buf_data(out), "no change\n");
  ddbst_buf_free(out);
}

/* A second-precision sort key facet where it was milliseconds: items that
 * differed below the second would share a key, so unsafe, with the check;
 * and the stored values lose digits. */
static void precision_lowered(void **state) {
  (void)state;
  ddbst_buf *out = ddbst_buf_new(NULL);
  const char *lowered =
      "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\"},\"entities\":{\"Event\":{\"attributes\":{"
      "\"id\":\"string\",\"at\":{\"type\":\"timestamp\",\"precision\":\"s\"},"
      "\"kind\":{\"type\":\"enum\",\"values\":[\"a\",\"b\"]}},"
      "\"key\":{\"pk\":\"EVENT#{id}\",\"sk\":\"AT#{at}\"}}},"
      "\"patterns\":{\"listEvents\":{\"query\":\"Event\",\"limit\":{\"max\":"
      "10}}}}";
  assert_int_equal(diff(base_text, lowered, 0, out, NULL), DDBST_CHANGE_UNSAFE);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"table\":\"tbl\",\"changes\":["
      "{\"class\":\"unsafe\",\"what\":\"entities.Event.attributes.at."
      "precision\",\"reason\":\"at of Event is kept at s, not ms: values "
      "already stored lose their digits below the s when rewritten\","
      "\"entities\":[\"Event\"],\"patterns\":[\"listEvents\"],\"check\":"
      "\"no stored value of at of Event has digits below the s (they would "
      "be cut) or, when it is a key facet, that cutting them makes no two "
      "items' keys equal\"},"
      "{\"class\":\"unsafe\",\"what\":\"entities.Event.key.sk\",\"reason\":"
      "\"in AT#{at}, at: precision ms becomes s: every item of Event moves "
      "to a new SK, and items whose keys differed may now share one\","
      "\"entities\":[\"Event\"],\"patterns\":[\"listEvents\"],\"check\":"
      "\"no two items of Event get the same new key (in AT#{at}, at: "
      "precision ms becomes s), or one overwrites the other when they "
      "move\"}],\"worst\":\"unsafe\"}");
  ddbst_buf_free(out);
}

/* Facet order: a new key for every item, nothing merged. */
static void facet_order(void **state) {
  (void)state;
  ddbst_buf *out = ddbst_buf_new(NULL);
  assert_int_equal(diff(MODEL("tbl", "AT#{at}#{kind}", "", ""),
                        MODEL("tbl", "{kind}#AT#{at}", "", ""), DDBST_DIFF_TEXT,
                        out, NULL),
                   DDBST_CHANGE_REWRITE);
  assert_string_equal(
      ddbst_buf_data(out),
      "rewrite entities.Event.key.sk: AT#{at}#{kind} becomes {kind}#AT#{at}: "
      "every item of Event moves to a new SK (a Put under the new key and a "
      "Delete of the old, in one transaction per item)\n"
      "  entities: Event; patterns: listEvents\n"
      "\n1 change, the worst: rewrite\n");
  ddbst_buf_free(out);
}

/* A native multi-attribute index keyed in another order: DynamoDB cannot
 * change the key schema, but it refills the index from the items' own
 * attributes, so nothing is written: a backfill, with both UpdateTable
 * steps in order. */
static void native_index_rekeyed(void **state) {
  (void)state;
  size_t n;
  char *text = read_source("examples/games/model.json", &n);
  const char *from = "\"partitionKey\": [\"gameId\", \"region\"]";
  char *at = strstr(text, from);
  assert_non_null(at);
  memcpy(at, "\"partitionKey\": [\"region\", \"gameId\"]", strlen(from));
  ddbst_model *a = load_example("examples/games/model.json");
  ddbst_model *b = load_text(text);
  ddbst_buf *out = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_model_diff(a, b, 0, out, NULL), DDBST_CHANGE_BACKFILL);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "{\"class\":\"backfill\",\"what\":\"table.indexes."
                         "Leaderboard\",\"reason\":\"the key attributes of "
                         "Leaderboard change: DynamoDB cannot change an "
                         "index's key schema; delete it and create it again "
                         "(UpdateTable, twice), and DynamoDB backfills it\","
                         "\"entities\":[\"Score\"],\"patterns\":[\"topScores\","
                         "\"scoresFromLowest\"],\"updateTable\":[{"
                         "\"removeIndex\":\"Leaderboard\"},{\"addIndex\":"
                         "\"Leaderboard\"}]}"));
  ddbst_buf_free(out);
  ddbst_model_free(b);
  ddbst_model_free(a);
  free(text);
}

/* The longest names a model takes (255 bytes each) make the longest path
 * of a change, entities.<entity>.indexes.<index>.when: whole, never cut. */
static void longest_path_whole(void **state) {
  (void)state;
  char entity[256], index[256], models[2][2048], want[700];
  memset(entity, 'E', 255);
  entity[255] = 0;
  memset(index, 'I', 255);
  index[255] = 0;
  for (int i = 0; i < 2; i++)
    snprintf(models[i], sizeof models[i],
             "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":"
             "\"PK\",\"sortKey\":\"SK\",\"indexes\":{\"%s\":{"
             "\"partitionKey\":\"GSI1PK\"}}},\"entities\":{\"%s\":{"
             "\"attributes\":{\"id\":\"string\",\"status\":{\"type\":"
             "\"enum\",\"values\":[\"a\",\"b\"]}},\"key\":{\"pk\":"
             "\"E#{id}\",\"sk\":\"E#{id}\"},\"indexes\":{\"%s\":{\"pk\":"
             "\"S#{status}\",\"when\":{\"status\":\"%s\"}}}}}}",
             index, entity, index, i ? "b" : "a");
  ddbst_buf *out = ddbst_buf_new(NULL);
  assert_int_equal(diff(models[0], models[1], 0, out, NULL),
                   DDBST_CHANGE_BACKFILL);
  snprintf(want, sizeof want, "\"what\":\"entities.%s.indexes.%s.when\"",
           entity, index);
  if (!strstr(ddbst_buf_data(out), want))
    fail_msg("no %s in %s", want, ddbst_buf_data(out));
  ddbst_buf_free(out);
}

static void bad_input(void **state) {
  (void)state;
  ddbst_model *m = load_text(base_text);
  ddbst_model *other = load_text(MODEL("other", "AT#{at}", "", ""));
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_buf_append(out, "junk", 4), 0);
  assert_int_equal(ddbst_model_diff(NULL, m, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "the old model is NULL");
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(ddbst_model_diff(m, NULL, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "the new model is NULL");
  assert_int_equal(ddbst_model_diff(m, m, 0, NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_model_diff(m, m, 0x80, out, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "flags");
  /* two tables: refused, unless the caller says it is a rename */
  assert_int_equal(ddbst_buf_append(out, "junk", 4), 0);
  assert_int_equal(ddbst_model_diff(m, other, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "table.name");
  assert_non_null(strstr(err.message, "different tables (tbl and other)"));
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(
      ddbst_model_diff(m, other, DDBST_DIFF_TABLE_RENAMED, out, &err),
      DDBST_CHANGE_IMPOSSIBLE);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"what\":\"table.name\",\"reason\":\"the table tbl "
                         "becomes other: DynamoDB cannot rename a table"));
  /* the buffer's old contents are replaced */
  assert_int_equal(ddbst_model_diff(m, m, 0, out, &err), DDBST_CHANGE_NONE);
  assert_int_equal(strncmp(ddbst_buf_data(out), "{\"table\"", 8), 0);
  ddbst_buf_free(out);
  ddbst_model_free(other);
  ddbst_model_free(m);
}

static void class_names(void **state) {
  (void)state;
  static const char *const names[] = {
      "none", "free", "cleanup", "backfill", "rewrite", "unsafe", "impossible"};
  for (int i = 0; i <= DDBST_CHANGE_IMPOSSIBLE; i++)
    assert_string_equal(ddbst_change_class_name(i), names[i]);
  assert_null(ddbst_change_class_name(7));
  assert_null(ddbst_change_class_name(-1));
}

/* Every allocation of a diff may fail: DDBST_ENOMEM, an empty buffer and
 * nothing leaked, in both forms. */
static void allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_model *a = load_text(base_text);
  ddbst_model *b =
      load_text(MODEL("tbl", "{kind}#AT#{at}", ",\"note\":\"string\"", ""));
  for (uint32_t flags = 0; flags <= DDBST_DIFF_TEXT; flags++) {
    int failures = 0;
    for (long n = 1;; n++) {
      ddbst_buf *out = ddbst_buf_new(&ca.hooks);
      assert_non_null(out);
      ca.calls = 0;
      ca.fail_at = n;
      ddbst_error err;
      int rc = ddbst_model_diff(a, b, flags, out, &err);
      ca.fail_at = 0;
      if (rc >= 0) {
        assert_int_equal(rc, DDBST_CHANGE_REWRITE);
        assert_non_null(strstr(ddbst_buf_data(out), "entities.Event.key.sk"));
        ddbst_buf_free(out);
        break;
      }
      assert_int_equal(rc, DDBST_ENOMEM);
      assert_int_equal(err.code, DDBST_ENOMEM);
      assert_int_equal(ddbst_buf_len(out), 0);
      ddbst_buf_free(out);
      assert_int_equal(ca.live, 0);
      failures++;
    }
    assert_true(failures >= 2); /* the name lists, the buffer's growth */
  }
  ddbst_model_free(b);
  ddbst_model_free(a);
}

/* ---- lint --since ---- */

typedef struct seen {
  int n;
  char rules[8][32], paths[8][128], messages[8][1024];
} seen;

static void on_finding(void *user, int32_t severity, const char *rule,
                       const char *path, const char *message) {
  seen *s = user;
  if (strncmp(rule, "change-", 7) != 0) return; /* the lint's own */
  assert_int_equal(severity, DDBST_LINT_ERROR);
  if (s->n >= 8) return;
  snprintf(s->rules[s->n], sizeof s->rules[0], "%s", rule);
  snprintf(s->paths[s->n], sizeof s->paths[0], "%s", path);
  snprintf(s->messages[s->n], sizeof s->messages[0], "%s", message);
  s->n++;
}

static void lint_since(void **state) {
  (void)state;
  ddbst_model *old = load_text(base_text);
  /* a removed enum value (unsafe), a new optional attribute (free: no
   * finding), a new local index (impossible) */
  ddbst_model *now = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"localIndexes\":{\"LSI1\":{\"sortKey\":"
      "\"LSI1SK\"}}},\"entities\":{\"Event\":{\"attributes\":{"
      "\"id\":\"string\",\"at\":{\"type\":\"timestamp\",\"precision\":\"ms\"},"
      "\"kind\":{\"type\":\"enum\",\"values\":[\"a\"]},\"note\":\"string\"},"
      "\"key\":{\"pk\":\"EVENT#{id}\",\"sk\":\"AT#{at}\"},\"indexes\":{"
      "\"LSI1\":{\"sk\":\"KIND#{kind}\"}}}},"
      "\"patterns\":{\"listEvents\":{\"query\":\"Event\",\"limit\":{\"max\":"
      "10}}}}");
  int lint_errors = ddbst_model_lint(now, NULL, NULL, NULL);
  assert_true(lint_errors >= 0);
  seen s = {0};
  ddbst_error err;
  assert_int_equal(ddbst_model_lint_since(now, old, on_finding, &s, &err),
                   lint_errors + 2);
  int unsafe = -1, impossible = -1;
  for (int i = 0; i < s.n; i++) {
    if (!strcmp(s.rules[i], "change-unsafe")) unsafe = i;
    if (!strcmp(s.rules[i], "change-impossible")) impossible = i;
  }
  assert_true(impossible >= 0 && unsafe > impossible);
  assert_string_equal(s.paths[impossible], "table.localIndexes.LSI1");
  assert_string_equal(s.paths[unsafe], "entities.Event.attributes.kind.values");
  assert_string_equal(s.messages[unsafe],
                      "kind of Event no longer takes b: items that hold it "
                      "are refused when read back and cannot be updated; "
                      "check first: no item of Event holds kind = b (a Scan "
                      "with a filter on kind finds them); rewrite or delete "
                      "those that do");
  /* since itself: nothing changed, only the lint's own findings */
  assert_int_equal(ddbst_model_lint_since(now, now, NULL, NULL, &err),
                   lint_errors);
  assert_int_equal(ddbst_model_lint_since(NULL, old, NULL, NULL, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_model_lint_since(now, NULL, NULL, NULL, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "since is NULL");
  ddbst_model_free(now);
  ddbst_model_free(old);
}

static void lint_since_allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *old, *now;
  const char *changed = MODEL("tbl", "AT#{at}", "",
                              ",\"unique\":{\"id\":"
                              "\"ID#{id}\"}");
  assert_int_equal(
      ddbst_model_load(base_text, strlen(base_text), &o, &old, NULL), 0);
  assert_int_equal(ddbst_model_load(changed, strlen(changed), &o, &now, NULL),
                   0);
  long baseline = ca.live;
  int failures = 0;
  for (long n = 1;; n++) {
    ca.calls = 0;
    ca.fail_at = n;
    int rc = ddbst_model_lint_since(now, old, NULL, NULL, NULL);
    ca.fail_at = 0;
    assert_int_equal(ca.live, baseline);
    if (rc >= 0) {
      assert_true(rc >= 1); /* the unique constraint added */
      break;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    failures++;
  }
  assert_true(failures >= 1);
  ddbst_model_free(now);
  ddbst_model_free(old);
  assert_int_equal(ca.live, 0);
}

/* ---- the JSON entry ---- */

static char *ask(ddbst_json *s, const char *request) {
  char *a = ddbst_json_call(s, request, strlen(request), NULL);
  assert_non_null(a);
  return a;
}

static void json_entry(void **state) {
  (void)state;
  const char *config =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/tests/evolve/cleanup.new.json\"}";
  char *error = NULL;
  ddbst_json *s = ddbst_json_open(config, strlen(config), NULL, &error);
  if (!s) fail_msg("open: %s", error);

  size_t n;
  char *want = read_source("tests/evolve/cleanup.expected.json", &n);
  char *a = ask(s, "{\"op\":\"diff\",\"oldFile\":\"" DDBST_SOURCE_DIR
                   "/tests/evolve/cleanup.old.json\"}");
  assert_string_equal(a, want);
  ddbst_json_free(a);
  free(want);

  /* the older model as text, and the text form */
  char *old = read_source("tests/evolve/cleanup.old.json", &n);
  char *req = malloc(n * 2 + 100), *o = req;
  o += sprintf(o, "{\"op\":\"diff\",\"format\":\"text\",\"old\":\"");
  for (const char *p = old; *p; p++) {
    if (*p == '"' || *p == '\\') *o++ = '\\';
    if (*p == '\n') {
      *o++ = '\\';
      *o++ = 'n';
      continue;
    }
    *o++ = *p;
  }
  strcpy(o, "\"}");
  a = ask(s, req);
  assert_non_null(strstr(a, "{\"text\":\"cleanup table.indexes.GSI1: the "
                            "index GSI1 is removed"));
  assert_non_null(strstr(a, "\\n3 changes, the worst: cleanup\\n\","
                            "\"worst\":\"cleanup\"}"));
  ddbst_json_free(a);
  free(req);
  free(old);

  a = ask(s, "{\"op\":\"diff\"}");
  assert_string_equal(a, "{\"error\":{\"code\":-6,\"name\":\"EMISSING\","
                         "\"path\":\"oldFile\",\"message\":\"diff needs the "
                         "older model: \\\"old\\\" (its text) or "
                         "\\\"oldFile\\\" (a path)\"}}");
  ddbst_json_free(a);
  a = ask(s, "{\"op\":\"diff\",\"old\":\"{\\\"ddbst\\\":1}\"}");
  assert_non_null(strstr(a, "\"name\":\"EMODEL\",\"path\":\"old."));
  ddbst_json_free(a);
  a = ask(s, "{\"op\":\"diff\",\"oldFile\":\"/nonexistent.json\"}");
  assert_non_null(strstr(a, "\"name\":\"EIO\",\"path\":\"oldFile\""));
  ddbst_json_free(a);
  a = ask(s, "{\"op\":\"diff\",\"oldFile\":\"x\",\"old\":\"y\"}");
  assert_non_null(strstr(a, "\"path\":\"old\",\"message\":\"give"));
  ddbst_json_free(a);
  a = ask(s, "{\"op\":\"diff\",\"oldFile\":\"" DDBST_SOURCE_DIR
             "/examples/saas/model.json\"}");
  assert_non_null(strstr(a, "\"path\":\"table.name\""));
  ddbst_json_free(a);
  a = ask(
      s,
      "{\"op\":\"diff\",\"tableRenamed\":true,\"oldFile\":\"" DDBST_SOURCE_DIR
      "/examples/saas/model.json\"}");
  assert_non_null(strstr(a, "\"worst\":\"impossible\"}"));
  ddbst_json_free(a);
  /* the old model's table name in force, as the session's "table" */
  a = ask(s, "{\"op\":\"diff\",\"oldTable\":\"blog-prod\",\"oldFile\":"
             "\"" DDBST_SOURCE_DIR "/tests/evolve/cleanup.old.json\"}");
  assert_non_null(strstr(a, "different tables (blog-prod and blog-dev)"));
  ddbst_json_free(a);
  a = ask(s, "{\"op\":\"diff\",\"format\":\"yaml\",\"oldFile\":\"x\"}");
  assert_non_null(strstr(a, "\"path\":\"format\""));
  ddbst_json_free(a);

  /* lint since the older model: the removal is a cleanup, no finding */
  a = ask(s, "{\"op\":\"lint\",\"sinceFile\":\"" DDBST_SOURCE_DIR
             "/tests/evolve/cleanup.old.json\"}");
  char *plain = ask(s, "{\"op\":\"lint\"}");
  assert_string_equal(a, plain);
  ddbst_json_free(plain);
  ddbst_json_free(a);
  ddbst_json_close(s);

  config =
      "{\"modelFile\":\"" DDBST_SOURCE_DIR "/tests/evolve/unsafe.new.json\"}";
  s = ddbst_json_open(config, strlen(config), NULL, &error);
  if (!s) fail_msg("open: %s", error);
  a = ask(s, "{\"op\":\"lint\",\"sinceFile\":\"" DDBST_SOURCE_DIR
             "/tests/evolve/unsafe.old.json\"}");
  assert_non_null(strstr(a, "{\"severity\":\"error\",\"rule\":"
                            "\"change-unsafe\",\"path\":"
                            "\"entities.Post.attributes.status.values\""));
  assert_non_null(strstr(a, "\"errors\":3}"));
  ddbst_json_free(a);
  ddbst_json_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_change),
      cmocka_unit_test(precision_lowered),
      cmocka_unit_test(facet_order),
      cmocka_unit_test(native_index_rekeyed),
      cmocka_unit_test(longest_path_whole),
      cmocka_unit_test(bad_input),
      cmocka_unit_test(class_names),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(lint_since),
      cmocka_unit_test(lint_since_allocation_failures),
      cmocka_unit_test(json_entry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
