/* The page parser reads an item's {"S":"text"} or {"N":"1"} in one step
 * when it is written as DynamoDB writes it (response/parse.c,
 * item_scalar_whole), and leaves every other form to the reader's loop and
 * the handlers. The two ways must agree: every answer here is parsed as
 * written and again with a space after each '{' (which no one-step reading
 * takes), and the pages must read back the same, item by item, typed and
 * as JSON, and fail with the same code, path and message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../spaced.h"
#include "support.h"

static ddbst_model *saas;
static ddbst_page *a, *b;
static ddbst_item *ia, *ib;
static ddbst_buf *ja, *jb;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  a = ddbst_page_new(saas);
  b = ddbst_page_new(saas);
  ia = ddbst_item_new(saas, 0);
  ib = ddbst_item_new(saas, 0);
  ja = ddbst_buf_new(NULL);
  jb = ddbst_buf_new(NULL);
  return a && b && ia && ib && ja && jb ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(jb);
  ddbst_buf_free(ja);
  ddbst_item_free(ib);
  ddbst_item_free(ia);
  ddbst_page_free(b);
  ddbst_page_free(a);
  ddbst_model_free(saas);
  return 0;
}

/* spaced (../spaced.h) into memory of its own, NUL-terminated. */
static char *spaced_copy(const char *json, size_t n, size_t *out_len) {
  char *o = malloc(2 * n + 1);
  assert_non_null(o);
  *out_len = spaced(json, n, o);
  o[*out_len] = '\0';
  return o;
}

/* Item i of both pages reads back the same, typed and as JSON. */
static void same_item(int i) {
  ddbst_error ea, eb;
  ddbst_buf_reset(ja);
  ddbst_buf_reset(jb);
  int ra = ddbst_page_item_json_append(a, i, ja, &ea);
  int rb = ddbst_page_item_json_append(b, i, jb, &eb);
  assert_int_equal(ra, rb);
  if (ra < 0) {
    assert_string_equal(ea.path, eb.path);
    assert_string_equal(ea.message, eb.message);
  } else {
    assert_string_equal(ddbst_buf_data(ja), ddbst_buf_data(jb));
  }
  ra = ddbst_page_item_entity(a, i);
  assert_int_equal(ra, ddbst_page_item_entity(b, i));
  if (ra < 0) return;
  ddbst_item_reset(ia, ra);
  ddbst_item_reset(ib, ra);
  ra = ddbst_page_item(a, i, ia, &ea);
  rb = ddbst_page_item(b, i, ib, &eb);
  assert_int_equal(ra, rb);
  if (ra < 0) {
    assert_string_equal(ea.path, eb.path);
    assert_string_equal(ea.message, eb.message);
    return;
  }
  /* every value the typed items hold */
  int entity = ddbst_item_entity(ia);
  assert_int_equal(entity, ddbst_item_entity(ib));
  for (int k = 0; k < ddbst_model_attribute_count(saas, entity); k++) {
    const char *va, *vb;
    size_t la, lb;
    ra = ddbst_item_get(ia, k, &va, &la);
    assert_int_equal(ra, ddbst_item_get(ib, k, &vb, &lb));
    if (ra != 1) continue;
    assert_int_equal(la, lb);
    assert_memory_equal(va, vb, la);
  }
}

/* Parses json as written into `a` and spaced into `b`: both agree. Returns
 * the count. */
static int both_ways(int op, const char *json, size_t n) {
  size_t sn;
  char *s = spaced_copy(json, n, &sn);
  ddbst_error ea, eb;
  int ra = ddbst_page_parse(a, op, json, n, &ea);
  int rb = ddbst_page_parse(b, op, s, sn, &eb);
  free(s);
  assert_int_equal(ra, rb);
  if (ra < 0) {
    assert_int_equal(ea.code, eb.code);
    assert_string_equal(ea.path, eb.path);
    if (ra != DDBST_ESYNTAX) /* a syntax error's message says where */
      assert_string_equal(ea.message, eb.message);
    return ra;
  }
  assert_int_equal(ddbst_page_has_more(a), ddbst_page_has_more(b));
  for (int i = 0; i < ra; i++) same_item(i);
  return ra;
}

static void answers_on_file(void **state) {
  (void)state;
  static const struct {
    int op;
    const char *name;
  } files[] = {
      {DDBST_OP_QUERY, "local-query-projects.json"},
      {DDBST_OP_QUERY, "local-query-projects-by-status.json"},
      {DDBST_OP_QUERY, "local-query-events.json"},
      {DDBST_OP_QUERY, "local-query-user-by-email.json"},
      {DDBST_OP_QUERY, "local-query-users-page1.json"},
      {DDBST_OP_GET_ITEM, "local-get-user.json"},
      {DDBST_OP_GET_ITEM, "local-get-missing.json"},
      {DDBST_OP_BATCH_GET_ITEM, "local-batch-get.json"},
      {DDBST_OP_BATCH_GET_ITEM, "local-batch-get-hydrate.json"},
      {DDBST_OP_TRANSACT_GET_ITEMS, "local-transact-get.json"},
  };
  int items = 0;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    size_t n;
    char *body = read_response(files[f].name, &n);
    int rc = both_ways(files[f].op, body, n);
    free(body);
    if (rc < 0) fail_msg("%s: %d", files[f].name, rc);
    items += rc;
  }
  assert_true(items > 10);
}

/* Values the one step must leave to the loop, and what the loop makes of
 * them: each parses the same both ways. */
static void forms_left_to_the_loop(void **state) {
  (void)state;
  static const struct {
    const char *json;
    int code; /* what the parse returns */
  } cases[] = {
      /* read in one step */
      {"{\"Item\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"},"
       "\"_type\":{\"S\":\"User\"},\"orgId\":{\"S\":\"o1\"},"
       "\"userId\":{\"S\":\"u1\"},\"email\":{\"S\":\"a@b.co\"},"
       "\"loginCount\":{\"N\":\"12\"},\"x\":{\"S\":\"\"}}}",
       1},
      /* escapes, whitespace, other types, containers */
      {"{\"Item\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"},"
       "\"_type\":{\"S\":\"User\"},\"orgId\":{\"S\":\"o1\"},"
       "\"userId\":{\"S\":\"u1\"},\"email\":{\"S\":\"a\\\"@b.co\"},"
       "\"n\":{\"N\" :\"1\"},\"b\":{\"BOOL\":true},\"z\":{\"NULL\":true},"
       "\"l\":{\"L\":[{\"S\":\"x\"},{\"N\":\"2\"}]},"
       "\"m\":{\"M\":{\"k\":{\"S\":\"v\"}}},\"t\":{\"S\":\"caf\xc3\xa9\"}}}",
       1},
      /* refused by the handlers, at the same path with the same words */
      {"{\"Item\":{\"n\":{\"N\":\"abc\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"N\":\"\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"S\":\"a\",\"N\":\"1\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"S\":1}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"SS\":\"a\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"S\":\"a\\u0000b\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"S\":\"a\"},\"n\":{\"S\":\"b\"}}}", DDBST_EVALUE},
      {"{\"Item\":{\"n\":{\"S\":\"\xff\"}}}", DDBST_ESYNTAX},
      {"{\"Item\":{\"n\":{\"S\":\"a\"}", DDBST_ESYNTAX},
      {"{\"Item\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"}}}}",
       DDBST_ESYNTAX},
      {"{\"Item\":{\"n\":{\"S\":\"a\"}}}", DDBST_ENOTFOUND},
      {"{\"Item\":{\"n\":{\"S\":\"a\"", DDBST_ESYNTAX},
      {"{\"Item\":{\"n\":{\"S\":\"a\n\"}}}", DDBST_ESYNTAX},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int rc = both_ways(DDBST_OP_GET_ITEM, cases[c].json, strlen(cases[c].json));
    if (cases[c].code > 0 ? rc != cases[c].code : rc != cases[c].code)
      fail_msg("case %zu: %d, expected %d", c, rc, cases[c].code);
  }
}

/* A long string read typed is the text as parsed, byte for byte, whether
 * written raw or escaped (ddbst_page_item does not check its UTF-8 again:
 * the text's rule did). */
static void long_text_typed(void **state) {
  (void)state;
  static const char body[] =
      "{\"Item\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"PROJECT#2026-03-14T09:00:00Z#p1\"},\"_type\":{\"S\":\"Project\"},"
      "\"orgId\":{\"S\":\"o1\"},\"projectId\":{\"S\":\"p1\"},"
      "\"createdAt\":{\"S\":\"2026-03-14T09:00:00Z\"},"
      "\"name\":{\"S\":\"\xc3\x9c""berarbeitung caf\\u00e9 \xe6\x97\xa5"
      "\\ud83d\\ude00\"}}}";
  static const char want[] = "\xc3\x9c""berarbeitung caf\xc3\xa9 \xe6\x97\xa5"
                             "\xf0\x9f\x98\x80";
  ddbst_error err;
  assert_int_equal(both_ways(DDBST_OP_GET_ITEM, body, sizeof body - 1), 1);
  int project = ddbst_page_item_entity(a, 0);
  assert_true(project >= 0);
  ddbst_item_reset(ia, project);
  assert_int_equal(ddbst_page_item(a, 0, ia, &err), project);
  const char *v;
  size_t n;
  assert_int_equal(ddbst_item_get_by_name(ia, "name", &v, &n), 1);
  assert_int_equal(n, sizeof want - 1);
  assert_memory_equal(v, want, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_on_file),
      cmocka_unit_test(forms_left_to_the_loop),
      cmocka_unit_test(long_text_typed),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
