/* The bodies written from plans compiled at load (request/put_plan.c,
 * request/create_plan.c, request/update_simple.c) at their edges: every
 * allocation failing in turn (a create with unique constraints and an update
 * whose values need an AttributeValue writer of their own, which neither
 * test_alloc_failures nor test_put_plan reaches), a buffer that held
 * something before (builders replace it), values unset after being set
 * (their text is still in the item), and values at the sizes where a plan
 * gives up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "item/item.h"
#include "model/plan_texts.h"
#include "request/request.h"

#define NOW_US (INT64_C(1773478800) * 1000000)
#define MAX_STEPS 20000
#define ULID "01HZZZZZZZZZZZZZZZZZZZZZZZ"

static counting_alloc ca;

static ddbst_model *counted(const char *path) {
  counting_alloc_init(&ca);
  return load_example_with(path, &ca.hooks);
}

static ddbst_item *user(ddbst_model *m) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  assert_non_null(it);
  set(it, "orgId", "1");
  set(it, "userId", "2");
  set(it, "email", "Ann@X.com");
  set(it, "role", "admin");
  set(it, "name", "Ann");
  return it;
}

static ddbst_item *project(ddbst_model *m) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
  assert_non_null(it);
  set(it, "orgId", "1");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  set(it, "name", "Apollo");
  set(it, "status", "active");
  return it;
}

/* A Blog update: a version to move on, a string set (its own writer) and
 * strings, none of them the unique slug. */
static ddbst_item *blog_update(ddbst_model *m) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Blog"));
  assert_non_null(it);
  set(it, "blogId", ULID);
  set(it, "title", "Title");
  set(it, "tags", "[\"a\",\"b\"]");
  set(it, "summary", "short");
  return it;
}

enum { CREATE_USER, PUT_PROJECT, UPDATE_PROJECT, UPDATE_BLOG };

static const char *const op_names[] = {"create User", "put Project",
                                       "update Project", "update Blog"};

static ddbst_item *item_for(int op, ddbst_model *m) {
  switch (op) {
  case CREATE_USER: return user(m);
  case PUT_PROJECT:
  case UPDATE_PROJECT: return project(m);
  default: return blog_update(m);
  }
}

static int run(int op, ddbst_item *it, ddbst_buf *b, ddbst_error *err) {
  switch (op) {
  case CREATE_USER: return ddbst_put_request(it, DDBST_CREATE, NOW_US, b, err);
  case PUT_PROJECT: return ddbst_put_request(it, 0, NOW_US, b, err);
  default: return ddbst_update_request(it, 0, NOW_US, b, err);
  }
}

static const char *model_of(int op) {
  return op == UPDATE_BLOG ? "examples/blog/model.json"
                           : "examples/saas/model.json";
}

/* The body of `op` with no allocation failing, malloc'd. */
static char *reference_body(int op) {
  ddbst_model *m = load_example(model_of(op));
  ddbst_item *it = item_for(op, m);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int rc = run(op, it, b, &err);
  if (rc < 0) fail_msg("%s: %s: %s", op_names[op], err.path, err.message);
  char *body = malloc(ddbst_buf_len(b) + 1);
  assert_non_null(body);
  memcpy(body, ddbst_buf_data(b), ddbst_buf_len(b) + 1);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_model_free(m);
  return body;
}

/* Every allocation of `op`, from a cold item and buffer, failing in turn:
 * DDBST_ENOMEM with err filled, the buffer empty, nothing leaked; then the
 * body as written with no failure. */
static void cold_failures(int op) {
  char *want = reference_body(op);
  ddbst_model *m = counted(model_of(op));
  long base = ca.live, step;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_item *it = item_for(op, m);
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    ca.fail_at = ca.calls + step;
    int rc = run(op, it, b, &err);
    ca.fail_at = 0;
    if (rc >= 0) {
      assert_string_equal(ddbst_buf_data(b), want);
      ddbst_item_free(it);
      ddbst_buf_free(b);
      break;
    }
    if (rc != DDBST_ENOMEM || err.code != DDBST_ENOMEM)
      fail_msg("%s, allocation %ld failing: %d (%s: %s)", op_names[op], step,
               rc, err.path, err.message);
    if (ddbst_buf_len(b) != 0 || ddbst_buf_data(b)[0] != '\0')
      fail_msg("%s, allocation %ld failing: the buffer holds \"%s\"",
               op_names[op], step, ddbst_buf_data(b));
    ddbst_item_free(it);
    ddbst_buf_free(b);
    if (ca.live != base)
      fail_msg("%s, allocation %ld failing: %ld blocks live, wanted %ld",
               op_names[op], step, ca.live, base);
  }
  if (step >= MAX_STEPS) fail_msg("%s never succeeded", op_names[op]);
  assert_true(step > 1); /* at least one allocation was made to fail */
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
  free(want);
}

static void create_user_failures(void **state) {
  (void)state;
  cold_failures(CREATE_USER);
}
static void update_blog_failures(void **state) {
  (void)state;
  cold_failures(UPDATE_BLOG);
}

/* A buffer that held a longer text before: the body replaces it, and is
 * the body a new buffer gets. */
static void builders_replace(void **state) {
  (void)state;
  for (int op = CREATE_USER; op <= UPDATE_BLOG; op++) {
    char *want = reference_body(op);
    ddbst_model *m = load_example(model_of(op));
    ddbst_item *it = item_for(op, m);
    ddbst_buf *b = ddbst_buf_new(NULL);
    char junk[5000];
    memset(junk, 'x', sizeof junk);
    assert_int_equal(ddbst_buf_append(b, junk, sizeof junk), 0);
    ddbst_error err;
    int rc = run(op, it, b, &err);
    if (rc < 0) fail_msg("%s: %s", op_names[op], err.message);
    assert_string_equal(ddbst_buf_data(b), want);
    assert_int_equal(ddbst_buf_len(b), strlen(want));
    ddbst_buf_free(b);
    ddbst_item_free(it);
    ddbst_model_free(m);
    free(want);
  }
}

/* A facet set, then unset: its text stays in the item's buffer, and no
 * body may carry it. The put of a Project without its status leaves GSI2
 * (STATUS#{status}) out; a create of a User without its email is refused,
 * naming it, with the buffer empty. */
static void unset_after_set(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_item *it = project(m);
  set(it, "status", "archived");
  int entity = ddbst_model_entity(m, "Project");
  assert_int_equal(
      ddbst_item_unset(it, ddbst_model_attribute(m, entity, "status")), 0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  assert_int_equal(ddbst_put_request(it, 0, NOW_US, b, &err),
                   DDBST_OP_PUT_ITEM);
  assert_null(strstr(ddbst_buf_data(b), "archived"));
  assert_null(strstr(ddbst_buf_data(b), "GSI2"));
  assert_non_null(strstr(ddbst_buf_data(b), "\"name\":{\"S\":\"Apollo\"}"));
  ddbst_item_free(it);

  it = user(m);
  int u = ddbst_model_entity(m, "User");
  assert_int_equal(ddbst_item_unset(it, ddbst_model_attribute(m, u, "email")),
                   0);
  memset(&err, 0, sizeof err);
  int rc = ddbst_put_request(it, DDBST_CREATE, NOW_US, b, &err);
  assert_true(rc < 0);
  assert_int_equal(err.code, rc);
  assert_non_null(strstr(err.path, "email"));
  assert_int_equal(ddbst_buf_len(b), 0);
  assert_string_equal(ddbst_buf_data(b), "");
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* A key facet whose normal form is longer than the value as given (U+FDFA,
 * 3 bytes, is 33 under NFKC_Casefold): the create's guard and GSI1 key
 * hold the normal form, whole; one whose key passes DynamoDB's limit is
 * refused, naming the email, and nothing is written. */
static void normal_form_longer(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_item *it = user(m);
  char email[400];
  size_t n = 0;
  for (int i = 0; i < 20; i++) {
    memcpy(email + n, "\xef\xb7\xba", 3); /* U+FDFA */
    n += 3;
  }
  memcpy(email + n, "@x.com", 7);
  set(it, "email", email);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  int rc = ddbst_put_request(it, DDBST_CREATE, NOW_US, b, &err);
  if (rc < 0) fail_msg("%s: %s", err.path, err.message);
  assert_int_equal(rc, DDBST_OP_TRANSACT_WRITE_ITEMS);
  /* 20 normal forms of 33 bytes each, in the GSI1 key, the guard's PK and
   * SK: three times */
  const char *body = ddbst_buf_data(b);
  int keys = 0;
  for (const char *p = body; (p = strstr(p, "EMAIL#")) != NULL; p++) {
    const char *at = strstr(p, "@x.com");
    assert_non_null(at);
    assert_int_equal((size_t)(at - p), 6 + 20 * 33);
    keys++;
  }
  assert_int_equal(keys, 3);
  ddbst_item_free(it);

  /* 40 of them: a guard's sort key of 1,332 bytes, past DynamoDB's 1,024 */
  it = user(m);
  n = 0;
  for (int i = 0; i < 40; i++) {
    memcpy(email + n, "\xef\xb7\xba", 3);
    n += 3;
  }
  memcpy(email + n, "@x.com", 7);
  set(it, "email", email);
  memset(&err, 0, sizeof err);
  rc = ddbst_put_request(it, DDBST_CREATE, NOW_US, b, &err);
  assert_true(rc < 0);
  assert_non_null(strstr(err.path, "email"));
  assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* The general writer's verdict on a Project update whose name is `n` bytes:
 * 0 written, or its error code. */
static int general_update(ddbst_model *m, const char *name, size_t n,
                          ddbst_buf *b) {
  ddbst_item *it = project(m);
  int entity = ddbst_model_entity(m, "Project");
  ddbst_error err;
  assert_int_equal(ddbst_item_set(it, ddbst_model_attribute(m, entity, "name"),
                                  name, n, &err),
                   0);
  ddbst_buf_reset(b);
  int rc = ddbst__update_body_general(it, 0, NOW_US, b, &err);
  ddbst_item_free(it);
  return rc;
}

/* An update at DynamoDB's 400 KB: the one-pass writer (update_simple.c)
 * writes what the general writer writes at the largest name it takes, and
 * one byte more is the general writer's refusal, not a body. */
static void update_at_item_limit(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int entity = ddbst_model_entity(m, "Project");
  size_t cap = 400 * 1024;
  char *name = malloc(cap);
  assert_non_null(name);
  memset(name, 'n', cap);
  ddbst_buf *want = ddbst_buf_new(NULL), *got = ddbst_buf_new(NULL);
  /* the largest name the general writer takes */
  size_t lo = 1, hi = cap;
  assert_int_equal(general_update(m, name, lo, want), 0);
  assert_int_not_equal(general_update(m, name, hi, want), 0);
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (general_update(m, name, mid, want) == 0)
      lo = mid;
    else
      hi = mid;
  }
  for (size_t n = lo; n <= hi; n++) {
    int general = general_update(m, name, n, want);
    ddbst_item *it = project(m);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(ddbst_item_set(it, ddbst_model_attribute(m, entity, "name"),
                                    name, n, &err),
                     0);
    /* the one-pass writer itself: it writes at lo, declines past it */
    ddbst_item *twin = project(m);
    assert_int_equal(
        ddbst_item_set(twin, ddbst_model_attribute(m, entity, "name"), name, n,
                       &err),
        0);
    ddbst_buf_reset(got);
    assert_int_equal(ddbst__update_body_simple(twin, 0, NOW_US, got),
                     n == lo ? 1 : 0);
    ddbst_item_free(twin);
    int rc = ddbst_update_request(it, 0, NOW_US, got, &err);
    if (n == lo) {
      assert_int_equal(general, 0);
      assert_int_equal(rc, DDBST_OP_UPDATE_ITEM);
      assert_int_equal(ddbst_buf_len(got), ddbst_buf_len(want));
      assert_memory_equal(ddbst_buf_data(got), ddbst_buf_data(want),
                          ddbst_buf_len(want));
    } else {
      assert_int_equal(rc, general);
      assert_int_equal(rc, DDBST_ERANGE);
      assert_int_equal(err.code, DDBST_ERANGE);
      assert_int_equal(ddbst_buf_len(got), 0);
    }
    ddbst_item_free(it);
  }
  ddbst_buf_free(want);
  ddbst_buf_free(got);
  free(name);
  ddbst_model_free(m);
}

/* The maker keeps an empty text before its scratch buffer has held
 * anything (its data still NULL) and an empty array given as NULL: each
 * is kept once, as "" with its NUL, and no memcmp or memcpy is handed a
 * NULL pointer (undefined even for 0 bytes; UBSan's nonnull-attribute
 * check sees it). */
static void maker_keeps_empty_texts(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst__plan_maker *k = malloc(sizeof *k);
  assert_non_null(k);
  ddbst__plan_maker_init(k, m);
  size_t fixed = 0;
  k->fixed = &fixed;
  ddbst__jtext a, b;
  assert_null(k->pending.data);
  assert_int_equal(ddbst__plan_take(k, &a), 0);
  assert_null(k->pending.data);
  assert_int_equal(ddbst__plan_take(k, &b), 0); /* found: compared */
  assert_ptr_equal(a.p, b.p);
  assert_int_equal(a.n, 0);
  assert_string_equal(a.p, "");
  assert_int_equal(fixed, 0);
  const void *x = ddbst__plan_keep(k, NULL, 0);
  const void *y = ddbst__plan_keep(k, NULL, 0);
  assert_non_null(x);
  assert_ptr_equal(x, y);
  assert_ptr_not_equal(x, a.p); /* an array and a text are kept apart */
  assert_ptr_equal(ddbst__plan_keep_text(k, NULL, 0), a.p);
  ddbst__plan_maker_release(k);
  free(k);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_user_failures),
      cmocka_unit_test(maker_keeps_empty_texts),
      cmocka_unit_test(update_blog_failures),
      cmocka_unit_test(builders_replace),
      cmocka_unit_test(unset_after_set),
      cmocka_unit_test(normal_form_longer),
      cmocka_unit_test(update_at_item_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
