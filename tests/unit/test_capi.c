/* The C API a service author reaches for (issue 23): values by name, texts
 * that end at their NUL, a whole item from JSON, the buffer functions, one
 * meaning of `now`, pages that seal their own next cursor, and builders
 * that replace their buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

typedef struct fx {
  ddbst_model *m;
  ddbst_item *project, *user, *event;
  ddbst_buf *out;
  ddbst_error err;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  f->m = load_example("examples/saas/model.json");
  f->project = ddbst_item_new(f->m, ddbst_model_entity(f->m, "Project"));
  f->user = ddbst_item_new(f->m, ddbst_model_entity(f->m, "User"));
  f->event = ddbst_item_new(f->m, ddbst_model_entity(f->m, "Event"));
  f->out = ddbst_buf_new(NULL);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  ddbst_item_free(f->project);
  ddbst_item_free(f->user);
  ddbst_item_free(f->event);
  ddbst_buf_free(f->out);
  ddbst_model_free(f->m);
  free(f);
  return 0;
}

static const char *get(const ddbst_item *it, const char *name) {
  const char *t = NULL;
  size_t n = 0;
  return ddbst_item_get_by_name(it, name, &t, &n) == 1 ? t : NULL;
}

/* ---- values by name ---- */

static void by_name(void **state) {
  fx *f = *state;
  ddbst_item *p = f->project;
  ddbst_item_reset(p, ddbst_item_entity(p));
  assert_int_equal(ddbst_item_set_by_name(p, "orgId", "acme",
                                          DDBST_NUL_TERMINATED, &f->err),
                   0);
  assert_int_equal(ddbst_item_set_by_name(p, "createdAt",
                                          "2026-03-14T10:00:00+01:00",
                                          DDBST_NUL_TERMINATED, &f->err),
                   0);
  assert_string_equal(get(p, "orgId"), "acme");
  assert_string_equal(get(p, "createdAt"), "2026-03-14T09:00:00Z");
  /* the same as the index form */
  const char *t;
  size_t n;
  int a = ddbst_model_attribute(f->m, ddbst_item_entity(p), "createdAt");
  assert_int_equal(ddbst_item_get(p, a, &t, &n), 1);
  assert_string_equal(t, "2026-03-14T09:00:00Z");
  assert_int_equal(n, 20);
  /* an explicit length still reads only that much */
  assert_int_equal(ddbst_item_set_by_name(p, "name", "Website relaunch", 7,
                                          &f->err),
                   0);
  assert_string_equal(get(p, "name"), "Website");

  /* an unknown name: the entity's path and the name meant */
  memset(&f->err, 0, sizeof f->err);
  assert_int_equal(ddbst_item_set_by_name(p, "orgID", "x",
                                          DDBST_NUL_TERMINATED, &f->err),
                   DDBST_ENOTFOUND);
  assert_string_equal(f->err.path, "Project.orgID");
  assert_string_equal(f->err.message,
                      "Project has no attribute orgID; did you mean orgId?");
  assert_string_equal(get(p, "orgId"), "acme");
  /* a refused value names the attribute and keeps the old one */
  assert_int_equal(ddbst_item_set_by_name(p, "status", "lost",
                                          DDBST_NUL_TERMINATED, &f->err),
                   DDBST_EVALUE);
  assert_string_equal(f->err.path, "Project.status");
  assert_null(get(p, "status"));
  assert_int_equal(ddbst_item_set_by_name(NULL, "orgId", "x", 1, &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_item_set_by_name(p, NULL, "x", 1, &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_item_get_by_name(p, "nope", &t, &n), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_item_get_by_name(NULL, "orgId", &t, &n),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_item_get_by_name(p, "status", &t, &n), 0);

  /* ints and booleans by name, with the index forms' type checks */
  ddbst_item *e = f->event;
  assert_int_equal(ddbst_item_set_int_by_name(e, "expiresAt", 1800000000,
                                              &f->err),
                   0);
  assert_string_equal(get(e, "expiresAt"), "1800000000");
  assert_int_equal(ddbst_item_set_int_by_name(e, "type", 3, &f->err),
                   DDBST_EVALUE);
  assert_int_equal(ddbst_item_set_int_by_name(e, "nope", 3, &f->err),
                   DDBST_ENOTFOUND);
  assert_int_equal(ddbst_item_set_bool_by_name(e, "type", 1, &f->err), 0);
  assert_string_equal(get(e, "type"), "true"); /* a string takes "true" */
  assert_int_equal(ddbst_item_set_bool_by_name(e, "nope", 1, &f->err),
                   DDBST_ENOTFOUND);
}

/* ---- DDBST_NUL_TERMINATED wherever text is taken with a length ---- */

static void nul_terminated(void **state) {
  fx *f = *state;
  ddbst_item *p = f->project;
  ddbst_item_reset(p, ddbst_item_entity(p));
  int org = ddbst_model_attribute(f->m, ddbst_item_entity(p), "orgId");
  assert_int_equal(ddbst_item_set(p, org, "acme", DDBST_NUL_TERMINATED,
                                  &f->err),
                   0);
  assert_string_equal(get(p, "orgId"), "acme");
  /* NULL with DDBST_NUL_TERMINATED is "" */
  assert_int_equal(ddbst_item_set(p, org, NULL, DDBST_NUL_TERMINATED, &f->err),
                   0);
  assert_string_equal(get(p, "orgId"), "");
  /* keys read back */
  assert_int_equal(ddbst_item_from_key(p, NULL, "ORG#acme",
                                       DDBST_NUL_TERMINATED,
                                       "PROJECT#2026-03-14T09:00:00Z#p-1",
                                       DDBST_NUL_TERMINATED, &f->err),
                   ddbst_item_entity(p));
  assert_string_equal(get(p, "projectId"), "p-1");
  /* expressions, parameters */
  ddbst_expr *x = NULL;
  assert_int_equal(ddbst_expr_parse(f->m, ddbst_item_entity(p),
                                    DDBST_EXPR_CONDITION, "status = :s",
                                    DDBST_NUL_TERMINATED, &x, &f->err),
                   0);
  ddbst_expr_free(x);
  assert_int_equal(ddbst_expr_parse_json(f->m, ddbst_item_entity(p),
                                         DDBST_EXPR_CONDITION,
                                         "{\"=\":[\"status\",\"active\"]}",
                                         DDBST_NUL_TERMINATED, &x, &f->err),
                   0);
  ddbst_expr_free(x);
  assert_int_equal(ddbst_item_condition_text(p, "status = :s",
                                             DDBST_NUL_TERMINATED, &f->err),
                   0);
  assert_int_equal(ddbst_item_bind(p, "s", "active", DDBST_NUL_TERMINATED,
                                   &f->err),
                   0);
  ddbst_item_set_by_name(p, "name", "Renamed", DDBST_NUL_TERMINATED, NULL);
  assert_int_equal(ddbst_update_request(p, 0, 1773478800000000LL, f->out,
                                        &f->err),
                   DDBST_OP_UPDATE_ITEM);
  assert_non_null(strstr(ddbst_buf_data(f->out), "{\"S\":\"active\"}"));
  /* a query's bound */
  ddbst_item_reset(p, ddbst_item_entity(p));
  ddbst_item_set_by_name(p, "orgId", "acme", DDBST_NUL_TERMINATED, NULL);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = DDBST_SK_BEGINS;
  q.attribute = ddbst_model_attribute(f->m, ddbst_item_entity(p), "createdAt");
  q.value = "2026-03";
  q.value_len = DDBST_NUL_TERMINATED;
  ddbst_buf *b = ddbst_buf_new(NULL);
  q.value_len = 7;
  assert_int_equal(ddbst_query_request(p, ddbst_model_pattern(f->m,
                                                             "listProjects"),
                                       &q, b, &f->err),
                   DDBST_OP_QUERY);
  q.value_len = DDBST_NUL_TERMINATED;
  assert_int_equal(ddbst_query_request(p, ddbst_model_pattern(f->m,
                                                             "listProjects"),
                                       &q, f->out, &f->err),
                   DDBST_OP_QUERY);
  assert_string_equal(ddbst_buf_data(f->out), ddbst_buf_data(b));
  ddbst_buf_free(b);
  /* the condition's facet by name, the same request */
  q.attribute = 0;
  q.attribute_name = "createdAt";
  ddbst_buf *by_name = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_query_request(p, ddbst_model_pattern(f->m,
                                                             "listProjects"),
                                       &q, by_name, &f->err),
                   DDBST_OP_QUERY);
  assert_string_equal(ddbst_buf_data(by_name), ddbst_buf_data(f->out));
  q.attribute_name = "createdAT";
  assert_int_equal(ddbst_query_request(p, ddbst_model_pattern(f->m,
                                                             "listProjects"),
                                       &q, by_name, &f->err),
                   DDBST_ENOTFOUND);
  assert_string_equal(f->err.path, "Project.createdAT");
  assert_int_equal(ddbst_buf_len(by_name), 0);
  ddbst_buf_free(by_name);
  /* a model file and a page */
  ddbst_model *m = NULL;
  assert_int_equal(ddbst_model_load("{", DDBST_NUL_TERMINATED, NULL, &m,
                                    &f->err),
                   DDBST_ESYNTAX);
  ddbst_page *pg = ddbst_page_new(f->m);
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_QUERY, "{\"Items\":[]}",
                                    DDBST_NUL_TERMINATED, &f->err),
                   0);
  ddbst_page_free(pg);
}

/* ---- a whole item from a JSON object ---- */

static void set_json(void **state) {
  fx *f = *state;
  ddbst_item *e = f->event;
  ddbst_item_reset(e, ddbst_item_entity(e));
  assert_int_equal(
      ddbst_item_set_json(e,
                          "{\"projectId\":\"p-1\",\"ts\":\"2026-03-14T10:00:"
                          "00+01:00\",\"type\":\"deploy\",\"payload\":{\"n\":"
                          "1,\"tags\":[\"a\"]},\"expiresAt\":1800000000,"
                          "\"eventId\":null}",
                          DDBST_NUL_TERMINATED, &f->err),
      0);
  assert_string_equal(get(e, "projectId"), "p-1");
  assert_string_equal(get(e, "ts"), "2026-03-14T09:00:00Z");
  assert_string_equal(get(e, "expiresAt"), "1800000000");
  assert_null(get(e, "eventId")); /* null leaves it alone */
  assert_non_null(get(e, "payload"));

  /* each refusal leaves every value as it was: all or nothing */
  static const struct {
    const char *json;
    int code;
    const char *path;
    const char *message;
  } bad[] = {
      {"{\"type\":\"x\",\"projectID\":\"p-2\"}", DDBST_ENOTFOUND, "projectID",
       "Event has no attribute projectID; did you mean projectId?"},
      {"{\"type\":\"x\",\"projectId\":7}", DDBST_EVALUE, "projectId",
       "projectId is of type string: give it as a JSON string"},
      {"{\"type\":\"x\",\"projectId\":true}", DDBST_EVALUE, "projectId",
       "projectId is of type string, not boolean"},
      {"{\"type\":\"x\",\"ts\":\"yesterday\"}", DDBST_EVALUE, "Event.ts",
       NULL},
      {"{\"type\":\"x\",\"type\":\"y\"}", DDBST_ESYNTAX, "type",
       "type given twice"},
      {"{\"type\":\"x\\ud800\"}", DDBST_ESYNTAX, "type", NULL},
      {"[1]", DDBST_EINVAL, "", "expected a JSON object of values"},
      {"{\"type\":", DDBST_ESYNTAX, "", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&f->err, 0, sizeof f->err);
    assert_int_equal(ddbst_item_set_json(e, bad[i].json, strlen(bad[i].json),
                                         &f->err),
                     bad[i].code);
    assert_int_equal(f->err.code, bad[i].code);
    assert_string_equal(f->err.path, bad[i].path);
    if (bad[i].message) assert_string_equal(f->err.message, bad[i].message);
    assert_string_equal(get(e, "type"), "deploy");
    assert_string_equal(get(e, "projectId"), "p-1");
  }
  assert_int_equal(ddbst_item_set_json(NULL, "{}", 2, &f->err), DDBST_EINVAL);
  assert_int_equal(ddbst_item_set_json(e, NULL, 2, &f->err), DDBST_EINVAL);
  /* keys built before the refusal still stand */
  assert_int_equal(ddbst_item_build_keys(e, &f->err) > 0 ||
                       f->err.code == DDBST_EMISSING,
                   1);
}

/* The same object through the JSON entry: the same refusals, "values."
 * before the path. */
static void set_json_as_the_entry(void **state) {
  fx *f = *state;
  ddbst_json *s = ddbst_json_open("{\"modelFile\":\"" DDBST_SOURCE_DIR
                                  "/examples/saas/model.json\"}",
                                  DDBST_NUL_TERMINATED, NULL, NULL);
  assert_non_null(s);
  char *a = ddbst_json_call(
      s,
      "{\"op\":\"keys\",\"entity\":\"Event\",\"values\":{\"projectID\":\"p\"}}",
      DDBST_NUL_TERMINATED, NULL);
  assert_non_null(strstr(a, "\"path\":\"values.projectID\""));
  assert_non_null(strstr(a, "did you mean projectId?"));
  ddbst_json_free(a);
  memset(&f->err, 0, sizeof f->err);
  assert_int_equal(ddbst_item_set_json(f->event, "{\"projectID\":\"p\"}",
                                       DDBST_NUL_TERMINATED, &f->err),
                   DDBST_ENOTFOUND);
  assert_string_equal(f->err.path, "projectID");
  ddbst_json_close(s);
}

/* ---- buffers ---- */

static void buffer_functions(void **state) {
  (void)state;
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_buf_append(b, "{\"TableName\":", DDBST_NUL_TERMINATED),
                   0);
  assert_int_equal(ddbst_buf_append_json_string(b, "a\"b\\c\n\x01",
                                                DDBST_NUL_TERMINATED),
                   0);
  assert_int_equal(ddbst_buf_append(b, "}xyz", 1), 0);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"a\\\"b\\\\c\\n\\u0001\"}");
  size_t mark = ddbst_buf_len(b);
  assert_int_equal(ddbst_buf_append(b, ",more", 5), 0);
  ddbst_buf_truncate(b, mark);
  assert_string_equal(ddbst_buf_data(b),
                      "{\"TableName\":\"a\\\"b\\\\c\\n\\u0001\"}");
  ddbst_buf_truncate(b, 1000); /* past the end: nothing */
  assert_int_equal(ddbst_buf_len(b), mark);
  /* not UTF-8: refused, the buffer as it was */
  assert_int_equal(ddbst_buf_append_json_string(b, "\xff", 1), DDBST_EVALUE);
  assert_int_equal(ddbst_buf_len(b), mark);
  assert_int_equal(ddbst_buf_append(b, NULL, 0), 0);
  assert_int_equal(ddbst_buf_append(b, NULL, DDBST_NUL_TERMINATED), 0);
  assert_int_equal(ddbst_buf_append(b, NULL, 3), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_append(NULL, "x", 1), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_append_json_string(NULL, "x", 1), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_append_json_string(b, NULL, 1), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_reserve(NULL, 1), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_reserve(b, 1 << 16), 0);
  assert_int_equal(ddbst_buf_len(b), mark);
  ddbst_buf_truncate(NULL, 0);
  ddbst_buf_free(b);
}

/* ---- one meaning of now ---- */

static void now_is_the_clock(void **state) {
  fx *f = *state;
  ddbst_item *p = f->project;
  ddbst_item_reset(p, ddbst_item_entity(p));
  ddbst_item_set_json(p, "{\"orgId\":\"acme\",\"projectId\":\"p-1\"}",
                      DDBST_NUL_TERMINATED, NULL);
  int64_t before = ddbst_now_unix_us() / 1000000;
  assert_int_equal(ddbst_put_request(p, 0, DDBST_NOW, f->out, &f->err),
                   DDBST_OP_PUT_ITEM);
  int64_t after = ddbst_now_unix_us() / 1000000;
  /* createdAt is the clock's, not 1970's */
  const char *c = get(p, "createdAt");
  assert_non_null(c);
  assert_int_equal(strncmp(c, "1970", 4) != 0, 1);
  char lo[32], hi[32];
  time_t tb = (time_t)before, ta = (time_t)after;
  strftime(lo, sizeof lo, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tb));
  strftime(hi, sizeof hi, "%Y-%m-%dT%H:%M:%SZ", gmtime(&ta));
  assert_true(strcmp(c, lo) >= 0 && strcmp(c, hi) <= 0);
  /* the same for the defaults themselves, a transaction and a batch */
  ddbst_item_reset(p, ddbst_item_entity(p));
  assert_int_equal(ddbst_item_apply_defaults(p, DDBST_NOW, &f->err), 0);
  assert_int_equal(strncmp(get(p, "createdAt"), "1970", 4) != 0, 1);
  ddbst_item *org = ddbst_item_new(f->m, ddbst_model_entity(f->m,
                                                            "Organisation"));
  ddbst_item_set_json(org, "{\"orgId\":\"acme\"}", DDBST_NUL_TERMINATED,
                      NULL);
  ddbst_txn *t = ddbst_txn_new(f->m);
  assert_int_equal(ddbst_txn_put(t, org, 0, DDBST_NOW, &f->err), 0);
  assert_int_equal(strncmp(get(org, "createdAt"), "1970", 4) != 0, 1);
  ddbst_txn_free(t);
  ddbst_item_free(org);
  ddbst_item_reset(p, ddbst_item_entity(p));
  ddbst_item_set_json(p, "{\"orgId\":\"acme\",\"projectId\":\"p-1\"}",
                      DDBST_NUL_TERMINATED, NULL);
  ddbst_batch *bt = ddbst_batch_new(f->m);
  assert_int_equal(ddbst_batch_put(bt, p, DDBST_NOW, &f->err), 0);
  assert_int_equal(strncmp(get(p, "createdAt"), "1970", 4) != 0, 1);
  ddbst_batch_free(bt);
  /* an instant given is used as it is */
  ddbst_item_reset(p, ddbst_item_entity(p));
  assert_int_equal(ddbst_item_apply_defaults(p, 1, &f->err), 0);
  assert_string_equal(get(p, "createdAt"), "1970-01-01T00:00:00Z");
}

/* ---- builders replace; only _append appends ---- */

static void builders_replace(void **state) {
  fx *f = *state;
  ddbst_item *p = f->project;
  ddbst_item_reset(p, ddbst_item_entity(p));
  assert_int_equal(ddbst_item_set_json(p,
                                       "{\"orgId\":\"acme\",\"projectId\":"
                                       "\"p-1\",\"createdAt\":\"2026-03-14T09:"
                                       "00:00Z\"}",
                                       DDBST_NUL_TERMINATED, &f->err),
                   0);
  ddbst_buf *alone = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_get_request(p, 0, alone, &f->err), DDBST_OP_GET_ITEM);
  /* one buffer, two requests, no reset between: the second body alone */
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(p, 0, 1, b, &f->err), DDBST_OP_PUT_ITEM);
  assert_int_equal(ddbst_get_request(p, 0, b, &f->err), DDBST_OP_GET_ITEM);
  assert_string_equal(ddbst_buf_data(b), ddbst_buf_data(alone));
  /* a refusal leaves the buffer empty, never the body before */
  ddbst_item_unset(p, ddbst_model_attribute(f->m, ddbst_item_entity(p),
                                            "projectId"));
  assert_int_equal(ddbst_delete_request(p, 0, b, &f->err), DDBST_EMISSING);
  assert_int_equal(ddbst_buf_len(b), 0);
  assert_string_equal(ddbst_buf_data(b), "");
  /* every kind of writer: keys, queries, transactions, batches, models */
  ddbst_item_set_by_name(p, "projectId", "p-1", DDBST_NUL_TERMINATED, NULL);
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_item_keys_json(p, b, &f->err), 0);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_query_request(p, ddbst_model_pattern(f->m,
                                                             "listProjects"),
                                       NULL, b, &f->err),
                   DDBST_OP_QUERY);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_txn *t = ddbst_txn_new(f->m);
  assert_int_equal(ddbst_txn_put(t, p, 0, 1, &f->err), 0);
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_txn_request(t, NULL, b, &f->err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_txn_free(t);
  ddbst_batch *bt = ddbst_batch_new(f->m);
  assert_int_equal(ddbst_batch_put(bt, p, 1, &f->err), 0);
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_batch_request(bt, 0, 0, b, &f->err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_batch_free(bt);
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_create_table_request(f->m, b, &f->err),
                   DDBST_OP_CREATE_TABLE);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_model_patterns_json(f->m, b, &f->err), 0);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_buf_append(b, "junk", 4);
  assert_int_equal(ddbst_model_cloudformation(f->m, NULL, 0, b, &f->err), 0);
  assert_int_equal(ddbst_buf_data(b)[0], '{');

  /* _append: after what is there, and as it was on failure */
  ddbst_buf_reset(b);
  ddbst_buf_append(b, "[", 1);
  assert_int_equal(ddbst_item_keys_json_append(p, b, &f->err), 0);
  ddbst_buf_append(b, ",", 1);
  assert_int_equal(ddbst_item_keys_json_append(p, b, &f->err), 0);
  ddbst_buf_append(b, "]", 1);
  ddbst_buf *one = ddbst_buf_new(NULL);
  ddbst_item_keys_json(p, one, NULL);
  char want[1024];
  snprintf(want, sizeof want, "[%s,%s]", ddbst_buf_data(one),
           ddbst_buf_data(one));
  assert_string_equal(ddbst_buf_data(b), want);
  ddbst_item_unset(p, ddbst_model_attribute(f->m, ddbst_item_entity(p),
                                            "projectId"));
  assert_int_equal(ddbst_item_keys_json_append(p, b, &f->err),
                   DDBST_EMISSING);
  assert_string_equal(ddbst_buf_data(b), want);
  ddbst_page *pg = ddbst_page_new(f->m);
  static const char two[] =
      "{\"Items\":[{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#"
      "2026-01-05T09:00:00Z#p1\"},\"_type\":{\"S\":\"Project\"}},{\"PK\":"
      "{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-02-01T12:30:00Z#p2\"},"
      "\"_type\":{\"S\":\"Project\"}}]}";
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_QUERY, two,
                                    DDBST_NUL_TERMINATED, &f->err),
                   2);
  ddbst_buf_reset(b);
  for (int i = 0; i < 2; i++) {
    ddbst_buf_append(b, i ? "," : "[", 1);
    assert_int_equal(ddbst_page_item_json_append(pg, i, b, &f->err), 0);
  }
  ddbst_buf_append(b, "]", 1);
  assert_string_equal(
      ddbst_buf_data(b),
      "[{\"entity\":\"Project\",\"item\":{\"orgId\":\"1\",\"projectId\":"
      "\"p1\",\"createdAt\":\"2026-01-05T09:00:00Z\"}},{\"entity\":"
      "\"Project\",\"item\":{\"orgId\":\"1\",\"projectId\":\"p2\","
      "\"createdAt\":\"2026-02-01T12:30:00Z\"}}]");
  assert_int_equal(ddbst_page_item_json(pg, 1, b, &f->err), 0);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_page_free(pg);
  ddbst_buf_free(one);
  ddbst_buf_free(b);
  ddbst_buf_free(alone);
}

/* ---- allocation failure at every step of the new functions ---- */

static counting_alloc ca;

static ddbst_model *counted_model(void) {
  counting_alloc_init(&ca);
  size_t len;
  char *text = read_source("examples/saas/model.json", &len);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m = NULL;
  int rc = ddbst_model_load(text, len, &o, &m, NULL);
  free(text);
  assert_int_equal(rc, 0);
  return m;
}

static void set_json_enomem(void **state) {
  (void)state;
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  for (step = 1; step < 10000; step++) {
    ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Event"));
    assert_non_null(it);
    assert_int_equal(ddbst_item_set_by_name(it, "type", "old",
                                            DDBST_NUL_TERMINATED, NULL),
                     0);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    ca.fail_at = ca.calls + step;
    int rc = ddbst_item_set_json(it,
                                 "{\"type\":\"deploy\",\"payload\":{\"a\":"
                                 "[1,2,{\"b\":\"c\"}]},\"projectId\":\"p\"}",
                                 DDBST_NUL_TERMINATED, &err);
    ca.fail_at = 0;
    if (rc == 0) {
      assert_string_equal(get(it, "type"), "deploy");
      ddbst_item_free(it);
      assert_int_equal(ca.live, base);
      break;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_int_equal(err.code, DDBST_ENOMEM);
    /* nothing of the object was set */
    assert_string_equal(get(it, "type"), "old");
    assert_null(get(it, "payload"));
    assert_null(get(it, "projectId"));
    ddbst_item_free(it);
    assert_int_equal(ca.live, base);
  }
  assert_true(step > 1 && step < 10000);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void buf_enomem(void **state) {
  (void)state;
  counting_alloc_init(&ca);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  assert_non_null(b);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_buf_append(b, "abc", 3), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(b), 0);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_buf_append_json_string(b, "abc", 3), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(b), 0);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_buf_reserve(b, 100), DDBST_ENOMEM);
  ca.fail_at = 0;
  assert_int_equal(ddbst_buf_append(b, "abc", 3), 0);
  /* a growth that fails keeps what was there */
  char big[1000];
  memset(big, 'x', sizeof big);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_buf_append_json_string(b, big, sizeof big),
                   DDBST_ENOMEM);
  assert_string_equal(ddbst_buf_data(b), "abc");
  assert_int_equal(ddbst_buf_reserve(b, SIZE_MAX), DDBST_ENOMEM);
  ca.fail_at = 0;
  /* reserved room: appending it does not allocate */
  assert_int_equal(ddbst_buf_reserve(b, 4096), 0);
  long calls = ca.calls;
  for (int i = 0; i < 4; i++)
    assert_int_equal(ddbst_buf_append(b, big, sizeof big), 0);
  assert_int_equal(ca.calls, calls);
  ddbst_buf_free(b);
  assert_int_equal(ca.live, 0);

  /* an _append whose growth fails leaves what was there; a replacing
   * writer leaves the buffer empty */
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_item *p = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
  ddbst_item_set_json(p,
                      "{\"orgId\":\"acme\",\"projectId\":\"p-1\","
                      "\"createdAt\":\"2026-03-14T09:00:00Z\"}",
                      DDBST_NUL_TERMINATED, NULL);
  counting_alloc_init(&ca);
  b = ddbst_buf_new(&ca.hooks);
  memset(big, 'x', 250);
  assert_int_equal(ddbst_buf_append(b, big, 250), 0);
  ddbst_error err;
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_item_keys_json_append(p, b, &err), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(b), 250);
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst_item_keys_json(p, b, &err), DDBST_ENOMEM);
  assert_int_equal(ddbst_buf_len(b), 0);
  ca.fail_at = 0;
  assert_int_equal(ddbst_item_keys_json(p, b, &err), 0);
  assert_int_equal(ddbst_buf_data(b)[0], '{');
  ddbst_buf_free(b);
  ddbst_item_free(p);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(by_name),
      cmocka_unit_test(nul_terminated),
      cmocka_unit_test(set_json),
      cmocka_unit_test(set_json_as_the_entry),
      cmocka_unit_test(buffer_functions),
      cmocka_unit_test(now_is_the_clock),
      cmocka_unit_test(builders_replace),
      cmocka_unit_test(set_json_enomem),
      cmocka_unit_test(buf_enomem),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
