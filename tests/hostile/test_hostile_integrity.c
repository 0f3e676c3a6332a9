/* Hostile input, issue 16: nothing a caller gives is ever silently changed.
 * Each row is a case as a user meets it, with its exact code, path and a
 * key phrase of its message (tests/hostile/test_hostile.c holds the other
 * kinds of input). Text that is not text (invalid UTF-8, a lone surrogate
 * escape) through every JSON input: the JSON entry, responses, stream
 * events, model files; values a range would misplace. Run under ASan/UBSan
 * and valgrind by scripts/test like every unit test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "support.h"

static int print_mode;
static ddbst_model *saas;
static ddbst_json *entry;

static void check(const char *name, int rc, const char *path,
                  const char *message, int code, const char *want_path,
                  const char *phrase) {
  if (print_mode) {
    printf("%-44s %d | %s | %s\n", name, rc, path, message);
    return;
  }
  if (rc != code)
    fail_msg("%s: wanted code %d, got %d (%s: %s)", name, code, rc, path,
             message);
  if (strcmp(path, want_path))
    fail_msg("%s: wanted path \"%s\", got \"%s\" (%s)", name, want_path, path,
             message);
  if (!strstr(message, phrase))
    fail_msg("%s: wanted \"%s\" in the message \"%s\"", name, phrase,
             message);
}

static const char HIGH[] = "is the high half of a surrogate pair, with no "
                           "low half (\\udc00-\\udfff) after it";
static const char LOW[] = "is the low half of a surrogate pair, with no high "
                          "half (\\ud800-\\udbff) before it";

/* ---- the JSON entry (and so the CLI and every binding) ---- */

typedef struct entry_case {
  const char *name;
  const char *request;
  int code;
  const char *path;
  const char *phrase;
} entry_case;

#define ORG_KEYS "{\"op\":\"keys\",\"entity\":\"Organisation\",\"values\":"

static const entry_case ENTRY[] = {
    {"lone high surrogate in a value", ORG_KEYS "{\"orgId\":\"x\\ud800y\"}}",
     DDBST_ESYNTAX, "values.orgId", "\\ud800 is the high half"},
    {"high surrogate joined with \\u0041", ORG_KEYS "{\"orgId\":\"\\ud800\\u0041\"}}",
     DDBST_ESYNTAX, "values.orgId", HIGH},
    {"high surrogate before a plain character",
     ORG_KEYS "{\"orgId\":\"\\uD83DA\"}}", DDBST_ESYNTAX, "values.orgId",
     "\\uD83D is the high half"},
    {"two high halves", ORG_KEYS "{\"orgId\":\"\\ud83d\\ud83d\\ude00\"}}",
     DDBST_ESYNTAX, "values.orgId", HIGH},
    {"lone low surrogate", ORG_KEYS "{\"orgId\":\"\\udc00\"}}", DDBST_ESYNTAX,
     "values.orgId", LOW},
    {"pair in the wrong order", ORG_KEYS "{\"orgId\":\"\\ude00\\ud83d\"}}",
     DDBST_ESYNTAX, "values.orgId", "\\ude00 is the low half"},
    {"a JavaScript string cut inside an emoji",
     ORG_KEYS "{\"orgId\":\"o1\",\"name\":\"Caf\xc3\xa9 \\ud83d\"}}",
     DDBST_ESYNTAX, "values.name", "\\ud83d is the high half"},
    {"lone surrogate in a name of the values",
     ORG_KEYS "{\"org\\ud800\":\"1\"}}", DDBST_ESYNTAX, "values",
     "a member name: \\ud800 is the high half"},
    {"lone surrogate in a request field", "{\"op\":\"ke\\udfffys\"}",
     DDBST_ESYNTAX, "op", LOW},
    {"lone surrogate in a batch item",
     "{\"op\":\"batchWrite\",\"items\":[{\"op\":\"put\",\"entity\":"
     "\"Organisation\",\"values\":{\"orgId\":\"o1\"}},{\"op\":\"put\","
     "\"entity\":\"Organisation\",\"values\":{\"orgId\":\"\\udbff\"}}]}",
     DDBST_ESYNTAX, "items[1].values.orgId", "\\udbff is the high half"},
    {"raw UTF-16 surrogate bytes", ORG_KEYS "{\"orgId\":\"x\xed\xa0\x80y\"}}",
     DDBST_ESYNTAX, "values.orgId", "invalid UTF-8: surrogate code point"},
    {"overlong '#'", ORG_KEYS "{\"orgId\":\"1\xc0\xa3USER\"}}", DDBST_ESYNTAX,
     "values.orgId", "invalid UTF-8: overlong encoding"},
    {"byte 0xFF", ORG_KEYS "{\"orgId\":\"\xff\"}}", DDBST_ESYNTAX,
     "values.orgId", "invalid UTF-8: byte 0xF8-0xFF never occurs"},
    {"truncated sequence", ORG_KEYS "{\"orgId\":\"caf\xc3\"}}", DDBST_ESYNTAX,
     "values.orgId", "invalid UTF-8: truncated multi-byte sequence"},
    {"past U+10FFFF", ORG_KEYS "{\"orgId\":\"\xf4\x90\x80\x80\"}}",
     DDBST_ESYNTAX, "values.orgId", "invalid UTF-8: code point above U+10FFFF"},
    {"NUL in a value", ORG_KEYS "{\"orgId\":\"a\\u0000b\"}}", DDBST_ESYNTAX,
     "values.orgId", "contains a NUL byte"},
    {"orgId given twice", ORG_KEYS "{\"orgId\":\"t1\",\"orgId\":\"t2\"}}",
     DDBST_ESYNTAX, "values.orgId", "orgId given twice"},
    {"an email NFKC folds into the delimiter",
     "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":\"o1\","
     "\"userId\":\"u1\",\"email\":\"a\xef\xbc\x83" "b@x.com\"}}",
     DDBST_EVALUE, "facet email",
     "User.email contains the key delimiter '#', which would forge another "
     "key"},
    {"an email of nothing but default ignorables",
     "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":\"o1\","
     "\"userId\":\"u1\",\"email\":\"\\u00ad\\u200b\"}}",
     DDBST_EVALUE, "facet email",
     "User.email is empty once normalised; a key facet needs a value"},
    {"a list value with a lone surrogate",
     "{\"op\":\"keys\",\"entity\":\"Event\",\"values\":{\"projectId\":\"p\","
     "\"ts\":\"2026-03-14T09:00:00Z\",\"payload\":{\"a\":[\"ok\",\"\\ud800\"]}}}",
     DDBST_ESYNTAX, "values.payload.a[1]", "\\ud800 is the high half"},
};

/* The answer's error, or code 0 when it is none. */
static int answer_error(const char *answer, char *path, char *message) {
  yajl_val root = yajl_tree_parse(answer, NULL, 0);
  assert_non_null(root);
  const char *code_at[] = {"error", "code", NULL};
  const char *path_at[] = {"error", "path", NULL};
  const char *msg_at[] = {"error", "message", NULL};
  yajl_val code = yajl_tree_get(root, code_at, yajl_t_number);
  yajl_val p = yajl_tree_get(root, path_at, yajl_t_string);
  yajl_val m = yajl_tree_get(root, msg_at, yajl_t_string);
  int rc = code ? (int)YAJL_GET_INTEGER(code) : 0;
  snprintf(path, DDBST_ERROR_PATH_MAX, "%s", p ? YAJL_GET_STRING(p) : "");
  snprintf(message, DDBST_ERROR_MESSAGE_MAX, "%s",
           m ? YAJL_GET_STRING(m) : "");
  yajl_tree_free(root);
  return rc;
}

static void json_entry(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ENTRY / sizeof *ENTRY; i++) {
    const entry_case *c = &ENTRY[i];
    char *answer = ddbst_json_call(entry, c->request, strlen(c->request), NULL);
    char path[DDBST_ERROR_PATH_MAX], message[DDBST_ERROR_MESSAGE_MAX];
    int rc = answer_error(answer, path, message);
    check(c->name, rc, path, message, c->code, c->path, c->phrase);
    ddbst_json_free(answer);
  }
  /* café typed in NFD keys as café in NFC, and in fullwidth capitals too */
  static const char *const cafe[] = {"cafe\\u0301@example.com",
                                     "\\uff23\\uff21\\uff26\\u00c9@example.com"};
  for (int i = 0; i < 2; i++) {
    char req[512];
    snprintf(req, sizeof req,
             "{\"op\":\"keys\",\"entity\":\"User\",\"values\":{\"orgId\":"
             "\"o1\",\"userId\":\"u1\",\"email\":\"%s\"}}",
             cafe[i]);
    char *keys = ddbst_json_call(entry, req, strlen(req), NULL);
    if (!print_mode)
      assert_non_null(
          strstr(keys, "\"GSI1PK\":\"EMAIL#caf\xc3\xa9@example.com\""));
    ddbst_json_free(keys);
  }
  /* a pair in order is one character: U+1F600, exactly */
  const char *ok = ORG_KEYS "{\"orgId\":\"\\ud83d\\ude00\"}}";
  char *answer = ddbst_json_call(entry, ok, strlen(ok), NULL);
  if (!print_mode)
    assert_non_null(strstr(answer, "\"PK\":\"ORG#\xf0\x9f\x98\x80\""));
  ddbst_json_free(answer);
}

/* ---- DynamoDB's answers and stream events ---- */

typedef struct body_case {
  const char *name;
  int stream; /* a stream event rather than a Query answer */
  const char *json;
  int code;
  const char *path;
  const char *phrase;
} body_case;

#define USER_KEYS                                                              \
  "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"     \
  "\"User\"}"
#define RECORD(image)                                                          \
  "{\"Records\":[{\"eventID\":\"1\",\"eventName\":\"INSERT\",\"dynamodb\":{"   \
  "\"Keys\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}},"           \
  "\"NewImage\":{" image "},\"SequenceNumber\":\"1\"}}]}"

static const body_case BODIES[] = {
    {"response: lone surrogate in a value", 0,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"x\\ud800y\"}}]}",
     DDBST_ESYNTAX, "Items[0].name.S", "\\ud800 is the high half"},
    {"response: surrogate joined with \\u0041", 0,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"\\ud800\\u0041\"}}]}",
     DDBST_ESYNTAX, "Items[0].name.S", HIGH},
    {"response: lone low surrogate in a name", 0,
     "{\"Items\":[{" USER_KEYS ",\"n\\udc00\":{\"S\":\"a\"}}]}", DDBST_ESYNTAX,
     "Items[0]", "a member name: \\udc00 is the low half"},
    {"response: in a set element", 0,
     "{\"Items\":[{" USER_KEYS ",\"tags\":{\"SS\":[\"a\",\"\\ud83d\"]}}]}",
     DDBST_ESYNTAX, "Items[0].tags.SS[1]", "\\ud83d is the high half"},
    {"response: in LastEvaluatedKey", 0,
     "{\"Items\":[],\"LastEvaluatedKey\":{\"PK\":{\"S\":\"ORG#\\ud800\"}}}",
     DDBST_ESYNTAX, "LastEvaluatedKey.PK.S", HIGH},
    {"response: overlong bytes", 0,
     "{\"Items\":[{" USER_KEYS ",\"name\":{\"S\":\"\xc0\xa3\"}}]}",
     DDBST_ESYNTAX, "Items[0].name.S", "invalid UTF-8: overlong encoding"},
    {"stream: lone surrogate in an image", 1,
     RECORD(USER_KEYS ",\"name\":{\"S\":\"\\ud800\"}"), DDBST_ESYNTAX,
     "Records[0].dynamodb.NewImage.name.S", HIGH},
    {"stream: surrogate bytes in an image", 1,
     RECORD(USER_KEYS ",\"name\":{\"S\":\"\xed\xbf\xbf\"}"), DDBST_ESYNTAX,
     "Records[0].dynamodb.NewImage.name.S",
     "invalid UTF-8: surrogate code point"},
};

static void bodies(void **state) {
  (void)state;
  ddbst_page *page = ddbst_page_new(saas);
  ddbst_stream *stream = ddbst_stream_new(saas);
  for (size_t i = 0; i < sizeof BODIES / sizeof *BODIES; i++) {
    const body_case *c = &BODIES[i];
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = c->stream
                 ? ddbst_stream_parse(stream, c->json, strlen(c->json), &err)
                 : ddbst_page_parse(page, DDBST_OP_QUERY, c->json,
                                    strlen(c->json), &err);
    check(c->name, rc, err.path, err.message, c->code, c->path, c->phrase);
    if (!print_mode) {
      assert_int_equal(err.code, c->code);
      /* where, for those who want it */
      assert_int_equal(err.line, 1);
      assert_true(err.offset > 0);
      assert_int_equal(c->stream ? ddbst_stream_count(stream)
                                 : ddbst_page_count(page),
                       0);
    }
  }
  ddbst_stream_free(stream);
  ddbst_page_free(page);
}

/* ---- model files ---- */

static void model_files(void **state) {
  (void)state;
  static const struct {
    const char *name, *json, *path, *phrase;
  } cases[] = {
      {"model: lone surrogate in a template",
       "{\"ddbst\":1,\"table\":{\"name\":\"t\",\"partitionKey\":\"PK\"},"
       "\"entities\":{\"A\":{\"attributes\":{\"i\":\"string\"},"
       "\"key\":{\"pk\":\"A\\ud800#{i}\"}}},\"patterns\":{}}",
       "entities.A.key.pk", HIGH},
      {"model: lone surrogate in an attribute name",
       "{\"ddbst\":1,\"table\":{\"name\":\"t\",\"partitionKey\":\"PK\"},"
       "\"entities\":{\"A\":{\"attributes\":{\"i\\udc00\":\"string\"},"
       "\"key\":{\"pk\":\"A#{i}\"}}},\"patterns\":{}}",
       "entities.A.attributes", "a member name: \\udc00 is the low half"},
      {"model: a name given twice",
       "{\"ddbst\":1,\"table\":{\"name\":\"t\",\"partitionKey\":\"PK\","
       "\"partitionKey\":\"P\"}}",
       "table.partitionKey", "partitionKey given twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ddbst_model *m = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst_model_load(cases[i].json, strlen(cases[i].json), NULL, &m,
                              &err);
    check(cases[i].name, rc, err.path, err.message, DDBST_ESYNTAX,
          cases[i].path, cases[i].phrase);
    ddbst_model_free(m);
  }
}

/* ---- values a range would misplace ---- */

/* category: plain, which a range reads before '#'; label: the same with
 * "escape": "ordered"; dd: plain, with the delimiter "$$". */
static const char *RANGE_MODEL =
    "{\"ddbst\":1,\"table\":{\"name\":\"ranges\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},\"entities\":{\"Product\":{\"attributes\":{"
    "\"shop\":\"string\",\"category\":\"string\",\"label\":{\"type\":"
    "\"string\",\"escape\":\"ordered\"},\"sku\":\"string\"},"
    "\"key\":{\"pk\":\"SHOP#{shop}\",\"sk\":\"CAT#{category}#{label}#{sku}\"}}},"
    "\"patterns\":{\"products\":{\"query\":\"Product\"}}}";

static void ranges(void **state) {
  (void)state;
  ddbst_model *m = load_text(RANGE_MODEL);
  int e = ddbst_model_entity(m, "Product");
  static const struct {
    const char *name, *category, *label;
    int code;
    const char *path, *phrase;
  } cases[] = {
      {"space after the first character", "tool s", "x", DDBST_EVALUE,
       "facet category",
       "Product.category holds ' ' (U+0020), which sorts below the key "
       "delimiter '#' after it: a range on category would misplace it; "
       "\"escape\": \"ordered\" keeps such values"},
      {"'!'", "tool!", "x", DDBST_EVALUE, "facet category",
       "holds '!' (U+0021)"},
      {"'\"'", "to\"ol", "x", DDBST_EVALUE, "facet category",
       "holds '\"' (U+0022)"},
      {"a control character", "a\x01", "x", DDBST_EVALUE, "facet category",
       "holds U+0001"},
      {"a space first sorts in place", " tool", "x", 0, "", ""},
      {"ordered escaping keeps it", "tool", "tool s!\"#$", 0, "", ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ddbst_item *it = ddbst_item_new(m, e);
    set(it, "shop", "s1");
    set(it, "sku", "k1");
    set(it, "category", cases[i].category);
    set(it, "label", cases[i].label);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    ddbst_buf *b = ddbst_buf_new(NULL);
    int rc = ddbst_put_request(it, 0, 0, b, &err);
    if (rc > 0) rc = 0;
    check(cases[i].name, rc, err.path, err.message, cases[i].code,
          cases[i].path, cases[i].phrase);
    if (!print_mode && rc) assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
    ddbst_item_free(it);
  }
  /* a condition whose value no item may hold is refused, never sent */
  ddbst_item *v = ddbst_item_new(m, e);
  set(v, "shop", "s1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_GT;
  q.attribute = ddbst_model_attribute(m, e, "category");
  q.value = "tool s";
  q.value_len = 6;
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int rc = ddbst_query_request(v, ddbst_model_pattern(m, "products"), &q, b,
                               &err);
  check("gt on a value no item may hold", rc, err.path, err.message,
        DDBST_EVALUE, "facet category",
        "category holds ' ' (U+0020), which sorts below the key delimiter");
  if (!print_mode) assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_buf_free(b);
  ddbst_item_free(v);
  ddbst_model_free(m);
}

/* ---- what DynamoDB would refuse of a write: sets, and an update's size ---- */

static void sets_and_sizes(void **state) {
  (void)state;
  char cfg[1024];
  snprintf(cfg, sizeof cfg,
           "{\"modelFile\":\"%s/examples/catalog/model.json\"}",
           DDBST_SOURCE_DIR);
  ddbst_json *cat = ddbst_json_open(cfg, strlen(cfg), NULL, NULL);
  assert_non_null(cat);
#define PRODUCT "\"entity\":\"Product\",\"values\":{\"shopId\":\"s1\",\"sku\":\"k1\","
  static const entry_case cases[] = {
      {"a string set with an element twice",
       "{\"op\":\"put\"," PRODUCT "\"name\":\"n\",\"tags\":[\"a\",\"a\"]}}",
       DDBST_EVALUE, "Product.tags",
       "tags: \"a\" is given twice in the set: DynamoDB refuses a set with "
       "duplicate elements"},
      {"a number set with one number twice",
       "{\"op\":\"put\"," PRODUCT "\"name\":\"n\",\"sizes\":[1,1.0]}}",
       DDBST_EVALUE, "Product.sizes",
       "sizes: 1 and 1.0 are one number, given twice in the set"},
      {"a map value with a name twice",
       "{\"op\":\"put\"," PRODUCT "\"name\":\"n\",\"details\":{\"a\":1,"
       "\"b\":{\"a\":1},\"a\":2}}}",
       DDBST_ESYNTAX, "values.details.a", "a given twice"},
      {"a map value as text with a name twice",
       "{\"op\":\"put\"," PRODUCT "\"name\":\"n\",\"details\":\"{\\\"a\\\":1,"
       "\\\"a\\\":2}\"}}",
       DDBST_EVALUE, "Product.details",
       "details: \"a\" is given twice in one object: a map holds one value "
       "per name"},
      {"an ADD of a set with an element twice",
       "{\"op\":\"update\"," PRODUCT "\"name\":\"n\"},"
       "\"add\":{\"sizes\":[10,1e1]}}",
       DDBST_EVALUE, "Product.sizes",
       "10 and 1e1 are one number, given twice in the set"},
      {"an upsert without a required attribute",
       "{\"op\":\"update\"," PRODUCT "\"price\":3},\"upsert\":true}",
       DDBST_EMISSING, "Product.name",
       "Product.name is required, and an upsert creates the item when there "
       "is none: give name, or update without upsert"},
      {"update actions adding a set with an element twice",
       "{\"op\":\"update\"," PRODUCT "\"name\":\"n\"},"
       "\"update\":\"add tags [\\\"b\\\", \\\"b\\\"]\"}",
       DDBST_EVALUE, "update",
       "Product.tags: \"b\" is given twice in the set"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const entry_case *c = &cases[i];
    char *answer = ddbst_json_call(cat, c->request, strlen(c->request), NULL);
    char path[DDBST_ERROR_PATH_MAX], message[DDBST_ERROR_MESSAGE_MAX];
    int rc = answer_error(answer, path, message);
    check(c->name, rc, path, message, c->code, c->path, c->phrase);
    ddbst_json_free(answer);
  }
  /* the example: an update whose SET value alone is 410,000 bytes */
  size_t n = 410000;
  char *req = malloc(n + 200);
  int at = snprintf(req, n + 200, "{\"op\":\"update\"," PRODUCT "\"name\":\"");
  memset(req + at, 'x', n);
  snprintf(req + at + n, 200, "\"}}");
  char *answer = ddbst_json_call(cat, req, strlen(req), NULL);
  char path[DDBST_ERROR_PATH_MAX], message[DDBST_ERROR_MESSAGE_MAX];
  int rc = answer_error(answer, path, message);
  check("an update whose SET value alone is 410,000 bytes", rc, path, message,
        DDBST_ERANGE, "Product",
        "the Product would be at least 410058 bytes after this update (its "
        "key and the values it writes); DynamoDB stores at most 409600 per "
        "item");
  ddbst_json_free(answer);
  free(req);
#undef PRODUCT
  ddbst_json_close(cat);
}

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  char cfg[1024];
  snprintf(cfg, sizeof cfg, "{\"modelFile\":\"%s/examples/saas/model.json\"}",
           DDBST_SOURCE_DIR);
  entry = ddbst_json_open(cfg, strlen(cfg), NULL, NULL);
  assert_non_null(entry);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_json_close(entry);
  ddbst_model_free(saas);
  return 0;
}

int main(int argc, char **argv) {
  /* --print: every case's code, path and message, for writing the table */
  print_mode = argc > 1 && !strcmp(argv[1], "--print");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(json_entry),
      cmocka_unit_test(bodies),
      cmocka_unit_test(model_files),
      cmocka_unit_test(ranges),
      cmocka_unit_test(sets_and_sizes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
