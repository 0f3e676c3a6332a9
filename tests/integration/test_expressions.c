/* Conditions, filters and update actions (docs/conditions.md) against
 * DynamoDB Local, on the catalogue model (examples/catalog/model.json):
 *  - every operator and function as a write's condition, once where it
 *    holds (the write happens) and once where it does not (DynamoDB
 *    refuses it and nothing changes);
 *  - every one as a query's filter, returning exactly the products the
 *    table below says, in key order;
 *  - every update action, the item read back;
 *  - the refusals: what ddbst refuses before sending is what DynamoDB
 *    would refuse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* ---- the catalogue ----
 *
 *       name          status     price stock featured tags       sizes
 *   p1  Red hat       published  12.5  5     true     new sale   40 42
 *   p2  Blue cap      draft      8     0     false    old        38
 *   p3  Green scarf   retired    30    12    -        -          -
 *   p4  Red scarf     published  2.5   3     -        new        -
 *   p5  Hat rack      published  100   1     false    sale       -
 *
 *       images           details                    category releasedAt
 *   p1  a.png b.png      {color: red, dims: {w: 3}} hats     2026-03-01T10:00:00Z
 *   p2  (empty)          {color: blue}              hats     2026-02-01T00:00:00Z
 *   p3  -                -                          scarves  2026-01-15T00:00:00Z
 *   p4  c.png            {color: red}               -        -
 *   p5  -                -                          -        -
 */

static itest_fixture *fixture;

static void write_catalogue(itest_fixture *f) {
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p1", "name=Red hat",
               "status=published", "price=12.5", "stock=5", "featured=true",
               "tags=[\"new\",\"sale\"]", "sizes=[40,42]",
               "images=[\"a.png\",\"b.png\"]",
               "details={\"color\":\"red\",\"dims\":{\"w\":3}}",
               "category=hats", "releasedAt=2026-03-01T10:00:00Z",
               "slug=red-hat", "batchId=01HZ0000000000000000000010");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p2", "name=Blue cap",
               "status=draft", "price=8", "stock=0", "featured=false",
               "tags=[\"old\"]", "sizes=[38]", "images=[]",
               "details={\"color\":\"blue\"}", "category=hats",
               "releasedAt=2026-02-01T00:00:00Z");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p3", "name=Green scarf",
               "status=retired", "price=30", "stock=12", "category=scarves",
               "releasedAt=2026-01-15T00:00:00Z");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p4", "name=Red scarf",
               "status=published", "price=2.5", "stock=3", "tags=[\"new\"]",
               "images=[\"c.png\"]", "details={\"color\":\"red\"}");
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p5", "name=Hat rack",
               "status=published", "price=100", "stock=1", "featured=false",
               "tags=[\"sale\"]");
}

static int setup(void **state) {
  fixture = itest_open(DDBST_SOURCE_DIR "/examples/catalog/model.json", "expr");
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  write_catalogue(fixture);
  return 0;
}

/* The product's version (each write that happens moves it on). */
static long version_of(itest_fixture *f, const char *sku) {
  char k[32];
  snprintf(k, sizeof k, "sku=%s", sku);
  ITEST_VALUES(f, "Product", "shopId=s1", k);
  yajl_val item = itest_get(f);
  const char *v = itest_n(item, "version");
  if (!v) fail_msg("%s has no version", sku);
  return strtol(v, NULL, 10);
}

/* ---- conditions ---- */

static const struct {
  const char *condition;
  int holds; /* on p1 */
} conditions[] = {
    {"status = \"published\"", 1},
    {"status = \"draft\"", 0},
    {"status <> \"draft\"", 1},
    {"status <> \"published\"", 0},
    {"stock < 6", 1},
    {"stock < 5", 0},
    {"stock <= 5", 1},
    {"stock <= 4", 0},
    {"stock > 4", 1},
    {"stock > 5", 0},
    {"stock >= 5", 1},
    {"stock >= 6", 0},
    /* numbers compare as numbers: as strings "12.5" is below "9" */
    {"price > 9", 1},
    {"price < 9", 0},
    {"price between 12 and 13", 1},
    {"price between 1 and 12", 0},
    {"status in (\"draft\", \"published\")", 1},
    {"status in (\"draft\", \"retired\")", 0},
    {"attribute_exists(details.color)", 1},
    {"attribute_exists(details.size)", 0},
    {"attribute_not_exists(details.size)", 1},
    {"attribute_not_exists(category)", 0},
    {"attribute_type(details, \"M\")", 1},
    {"attribute_type(details, \"L\")", 0},
    {"begins_with(name, \"Red\")", 1},
    {"begins_with(name, \"Blue\")", 0},
    {"contains(name, \"hat\")", 1},
    {"contains(name, \"cap\")", 0},
    {"contains(tags, \"new\")", 1},
    {"contains(tags, \"old\")", 0},
    {"contains(sizes, 42)", 1},
    {"contains(sizes, 44)", 0},
    {"contains(images, \"a.png\")", 1},
    {"contains(images, \"z.png\")", 0},
    {"size(tags) = 2", 1},
    {"size(tags) > 2", 0},
    {"size(name) between 5 and 10", 1},
    {"size(images) = 3", 0},
    {"details.dims.w = 3", 1},
    {"details.dims.w > 3", 0},
    {"images[1] = \"b.png\"", 1},
    {"images[0] = \"b.png\"", 0},
    {"featured = true", 1},
    {"featured = false", 0},
    /* timestamps are made canonical: 11:00+01:00 is p1's 10:00Z */
    {"releasedAt >= \"2026-03-01T11:00:00+01:00\"", 1},
    {"releasedAt > \"2026-03-01T10:00:00Z\"", 0},
    /* ULIDs too: lower case is the same ULID */
    {"batchId = \"01hz0000000000000000000010\"", 1},
    {"batchId = \"01hz0000000000000000000011\"", 0},
    {"not status = \"draft\"", 1},
    {"not status = \"published\"", 0},
    {"status = \"draft\" or stock > 4", 1},
    {"status = \"draft\" or stock > 5", 0},
    {"(status = \"published\" and stock = 5) and featured = true", 1},
    {"status = \"published\" and stock = 4", 0},
    {"stock < price", 1},
    {"price < stock", 0},
};

/* An update of p1 with the condition: it happens (its version moves on)
 * or DynamoDB refuses it (the version stays). */
static void conditions_on_writes(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++) {
    long before = version_of(f, "p1");
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
    const char *c = conditions[i].condition;
    if (ddbst_item_condition_text(f->item, c, strlen(c), &f->err))
      fail_msg("%s: %s", c, f->err.message);
    int op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                  &f->err);
    long status = itest_send(f, op);
    if (conditions[i].holds != (status == 200))
      fail_msg("%s: expected it to %s, got HTTP %ld: %s\nrequest: %s", c,
               conditions[i].holds ? "hold" : "fail", status,
               itest_client_body(f->client), ddbst_buf_data(f->body));
    if (!conditions[i].holds) {
      const char *type = YAJL_GET_STRING(
          yajl_tree_get(f->response, (const char *[]){"__type", NULL},
                        yajl_t_string));
      if (!type || !strstr(type, "ConditionalCheckFailedException"))
        fail_msg("%s: refused for another reason: %s", c,
                 itest_client_body(f->client));
    }
    assert_int_equal(version_of(f, "p1"), before + conditions[i].holds);
  }
}

/* The JSON form, a parameter, a put, a delete and a transaction's
 * ConditionCheck, each both ways. */
static void conditions_in_every_write(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ddbst_expr *x;
  const char *json = "{\"and\": [{\"=\": [\"status\", \"published\"]}, "
                     "{\">=\": [\"stock\", {\"param\": \"n\"}]}]}";
  if (ddbst_expr_parse_json(f->model, 0, DDBST_EXPR_CONDITION, json,
                            strlen(json), &x, &f->err))
    fail_msg("%s", f->err.message);
  static const char *const ns[] = {"5", "6"};
  for (int i = 0; i < 2; i++) {
    long before = version_of(f, "p1");
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p1");
    assert_int_equal(ddbst_item_condition(f->item, x, &f->err), 0);
    assert_int_equal(ddbst_item_bind(f->item, "n", ns[i], 1, &f->err), 0);
    int op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                  &f->err);
    if (i == 0) itest_ok(f, op);
    else itest_condition_failed(f, op);
    assert_int_equal(version_of(f, "p1"), before + (i == 0));
  }
  ddbst_expr_free(x);

  /* a put that replaces p4 only while it is published */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p4", "name=Red scarf",
               "status=published", "price=2.5", "stock=3", "tags=[\"new\"]",
               "images=[\"c.png\"]", "details={\"color\":\"red\"}");
  assert_int_equal(ddbst_item_condition_text(f->item, "status = \"draft\"", 16,
                                             &f->err),
                   0);
  itest_condition_failed(f, ddbst_put_request(f->item, 0, ITEST_NOW_US,
                                              itest_body(f), &f->err));
  assert_int_equal(ddbst_item_condition_text(f->item, "status = \"published\"",
                                             20, &f->err),
                   0);
  itest_ok(f, ddbst_put_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                &f->err));

  /* a delete of a product that does not exist: ddbst's own condition and
   * the user's, each in its parentheses, both must hold */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p9");
  assert_int_equal(ddbst_item_condition_text(f->item,
                                             "attribute_not_exists(name)", 26,
                                             &f->err),
                   0);
  itest_condition_failed(f, ddbst_delete_request(f->item, DDBST_IF_EXISTS,
                                                 itest_body(f), &f->err));
  /* without IF_EXISTS the user's condition alone holds on no item */
  itest_ok(f, ddbst_delete_request(f->item, 0, itest_body(f), &f->err));

  /* a transaction's ConditionCheck */
  ddbst_txn *t = ddbst_txn_new(f->model);
  for (int i = 0; i < 2; i++) {
    ddbst_txn_reset(t);
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p3");
    const char *c = i == 0 ? "stock > 10" : "stock > 20";
    assert_int_equal(ddbst_item_condition_text(f->item, c, strlen(c), &f->err),
                     0);
    assert_int_equal(ddbst_txn_check(t, f->item, &f->err), 0);
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p5");
    int a = itest_attr(f, "stock");
    assert_int_equal(ddbst_item_add(f->item, a, "1", 1, &f->err), 0);
    assert_int_equal(ddbst_txn_update(t, f->item, 0, ITEST_NOW_US, &f->err),
                     0);
    int op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
    if (i == 0) itest_ok(f, op);
    else itest_condition_failed(f, op);
  }
  ddbst_txn_free(t);
  /* p5's stock moved once: only the transaction whose check held */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p5");
  itest_expect_n(itest_get(f), "stock", "2");
  /* put it back for the filters */
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p5");
  assert_int_equal(ddbst_item_add(f->item, itest_attr(f, "stock"), "-1", 2,
                                  &f->err),
                   0);
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
}

/* ---- filters ---- */

static const struct {
  const char *filter, *skus;
} filters[] = {
    {"status = \"published\"", "p1 p4 p5"},
    {"status <> \"published\"", "p2 p3"},
    {"stock < 3", "p2 p5"},
    {"stock <= 3", "p2 p4 p5"},
    {"stock > 3", "p1 p3"},
    {"stock >= 3", "p1 p3 p4"},
    {"price between 8 and 30", "p1 p2 p3"},
    {"price > 9", "p1 p3 p5"},
    {"status in (\"draft\", \"retired\")", "p2 p3"},
    {"attribute_exists(featured)", "p1 p2 p5"},
    {"attribute_not_exists(tags)", "p3"},
    {"attribute_type(details, \"M\")", "p1 p2 p4"},
    {"begins_with(name, \"Red\")", "p1 p4"},
    {"contains(name, \"at\")", "p1 p5"},
    {"contains(tags, \"new\")", "p1 p4"},
    {"contains(sizes, 40)", "p1"},
    {"contains(images, \"c.png\")", "p4"},
    {"size(tags) >= 1", "p1 p2 p4 p5"},
    {"size(images) = 0", "p2"},
    {"details.color = \"red\"", "p1 p4"},
    {"details.dims.w >= 3", "p1"},
    {"images[0] = \"a.png\"", "p1"},
    {"featured = false", "p2 p5"},
    {"releasedAt < \"2026-02-15T00:00:00Z\"", "p2 p3"},
    {"not (status = \"published\")", "p2 p3"},
    {"status = \"published\" and stock < 4", "p4 p5"},
    {"status = \"draft\" or price > 50", "p2 p5"},
    {"stock < price", "p1 p2 p3 p5"},
    {"price < :p", "p2 p4"},
    {"attribute_exists(details.size) or size(name) = 8", "p2 p5"},
};

static void filters_on_queries(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
    ITEST_VALUES(f, "Product", "shopId=s1");
    assert_int_equal(ddbst_item_bind(f->item, "p", "10", 2, &f->err), 0);
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.filter_text = filters[i].filter;
    q.filter_text_len = strlen(q.filter_text);
    yajl_val items = itest_query(f, "listProducts", &q);
    itest_expect(f, items, "sku", filters[i].skus, filters[i].filter);
  }
}

/* On an index, a filter of what it projects; the JSON form. */
static void filters_on_an_index(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ddbst_expr *x;
  const char *json = "{\">\": [\"stock\", 0]}";
  if (ddbst_expr_parse_json(f->model, 0, DDBST_EXPR_FILTER, json, strlen(json),
                            &x, &f->err))
    fail_msg("%s", f->err.message);
  ITEST_VALUES(f, "Product", "shopId=s1", "category=hats");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter = x;
  /* newest first: p1 (2026-03) then p2, whose stock is 0 */
  itest_expect(f, itest_query(f, "productsInCategory", &q), "name", "Red hat",
               "stock > 0 on GSI1");
  q.filter = NULL;
  itest_expect(f, itest_query(f, "productsInCategory", &q), "name",
               "Red hat Blue cap", "no filter on GSI1");
  ddbst_expr_free(x);
}

/* What ddbst refuses is what DynamoDB refuses: the filter on an attribute
 * the index does not project, sent by hand. */
static void refusals_are_dynamodbs(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Product", "shopId=s1", "category=hats");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter_text = "featured = true";
  q.filter_text_len = strlen(q.filter_text);
  int p = ddbst_model_pattern(f->model, "productsInCategory");
  assert_int_equal(ddbst_query_request(f->item, p, &q, itest_body(f), &f->err),
                   DDBST_EINVAL);
  assert_string_equal(f->err.path, "filter");
  /* the same body with the filter written in by hand */
  q.filter_text = "stock > 0";
  q.filter_text_len = strlen(q.filter_text);
  assert_int_equal(ddbst_query_request(f->item, p, &q, itest_body(f), &f->err),
                   DDBST_OP_QUERY);
  char body[2048];
  snprintf(body, sizeof body, "%s", ddbst_buf_data(f->body));
  char *stock = strstr(body, "\"stock\"");
  assert_non_null(stock);
  memmove(stock + 10, stock + 7, strlen(stock + 7) + 1);
  memcpy(stock, "\"featured\"", 10);
  long status = itest_send_json(f, "Query", body);
  if (status != 400)
    fail_msg("HTTP %ld: %s\nrequest: %s", status, itest_client_body(f->client),
             body);
  const char *message = YAJL_GET_STRING(yajl_tree_get(
      f->response, (const char *[]){"Message", NULL}, yajl_t_string));
  if (!message || !strstr(message, "does not project"))
    fail_msg("DynamoDB said: %s", itest_client_body(f->client));
}

/* ---- update actions ---- */

/* A fresh p6 for each action. */
static void fresh_p6(itest_fixture *f) {
  ITEST_CREATE(f, "Product", "shopId=s1", "sku=p6", "name=Test", "slug=t-6",
               "status=draft", "stock=5", "featured=true",
               "tags=[\"new\",\"sale\"]", "sizes=[40,42]",
               "images=[\"a.png\",\"b.png\"]",
               "details={\"color\":\"red\",\"dims\":{\"w\":3}}");
}

static void drop_p6(itest_fixture *f) {
  ITEST_VALUES(f, "Product", "shopId=s1", "sku=p6");
  itest_ok(f, ddbst_delete_request(f->item, 0, itest_body(f), &f->err));
}

/* Whether AttributeValues `a` and `b` are equal: maps by member and sets
 * by element, whatever order DynamoDB answers them in. */
static int same_value(yajl_val a, yajl_val b, int unordered) {
  if (!a || !b || a->type != b->type) return 0;
  if (YAJL_IS_STRING(a)) return !strcmp(a->u.string, b->u.string);
  if (YAJL_IS_NUMBER(a)) return !strcmp(a->u.number.r, b->u.number.r);
  if (YAJL_IS_OBJECT(a)) {
    if (a->u.object.len != b->u.object.len) return 0;
    for (size_t i = 0; i < a->u.object.len; i++) {
      const char *k = a->u.object.keys[i];
      yajl_val bv = yajl_tree_get(b, (const char *[]){k, NULL}, yajl_t_any);
      int set = !strcmp(k, "SS") || !strcmp(k, "NS") || !strcmp(k, "BS");
      if (!same_value(a->u.object.values[i], bv, set)) return 0;
    }
    return 1;
  }
  if (YAJL_IS_ARRAY(a)) {
    if (a->u.array.len != b->u.array.len) return 0;
    for (size_t i = 0; i < a->u.array.len; i++) {
      int found = 0;
      for (size_t j = unordered ? 0 : i;
           !found && j < (unordered ? b->u.array.len : i + 1); j++)
        found = same_value(a->u.array.values[i], b->u.array.values[j], 0);
      if (!found) return 0;
    }
    return 1;
  }
  return 1; /* true, false, null */
}

static const struct {
  const char *actions, *attribute, *after;
} updates[] = {
    {"set status = \"published\"", "status", "{\"S\":\"published\"}"},
    {"set stock = stock + 2", "stock", "{\"N\":\"7\"}"},
    {"set stock = stock - 6", "stock", "{\"N\":\"-1\"}"},
    {"set price = if_not_exists(price, 9.5)", "price", "{\"N\":\"9.5\"}"},
    {"set stock = if_not_exists(stock, 0) + 1", "stock", "{\"N\":\"6\"}"},
    {"set name = slug", "name", "{\"S\":\"t-6\"}"},
    {"set images = list_append(images, [\"z.png\"])", "images",
     "{\"L\":[{\"S\":\"a.png\"},{\"S\":\"b.png\"},{\"S\":\"z.png\"}]}"},
    {"set images = list_append([\"first.png\"], images)", "images",
     "{\"L\":[{\"S\":\"first.png\"},{\"S\":\"a.png\"},{\"S\":\"b.png\"}]}"},
    {"set details.color = \"green\"", "details",
     "{\"M\":{\"color\":{\"S\":\"green\"},\"dims\":{\"M\":{\"w\":{\"N\":"
     "\"3\"}}}}}"},
    {"set details.dims.w = details.dims.w + 1", "details",
     "{\"M\":{\"color\":{\"S\":\"red\"},\"dims\":{\"M\":{\"w\":{\"N\":"
     "\"4\"}}}}}"},
    {"set images[0] = \"new.png\"", "images",
     "{\"L\":[{\"S\":\"new.png\"},{\"S\":\"b.png\"}]}"},
    {"remove featured", "featured", "absent"},
    {"remove details.color", "details",
     "{\"M\":{\"dims\":{\"M\":{\"w\":{\"N\":\"3\"}}}}}"},
    {"remove images[0]", "images", "{\"L\":[{\"S\":\"b.png\"}]}"},
    {"add stock 5", "stock", "{\"N\":\"10\"}"},
    {"add stock -1", "stock", "{\"N\":\"4\"}"},
    {"add tags [\"x\"]", "tags", "{\"SS\":[\"new\",\"sale\",\"x\"]}"},
    {"add sizes [44]", "sizes", "{\"NS\":[\"40\",\"42\",\"44\"]}"},
    {"add details.count 1", "details",
     "{\"M\":{\"color\":{\"S\":\"red\"},\"count\":{\"N\":\"1\"},\"dims\":{"
     "\"M\":{\"w\":{\"N\":\"3\"}}}}}"},
    {"delete tags [\"sale\"]", "tags", "{\"SS\":[\"new\"]}"},
    {"delete sizes [40]", "sizes", "{\"NS\":[\"42\"]}"},
};

static void every_update_action_read_back(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  for (size_t i = 0; i < sizeof updates / sizeof updates[0]; i++) {
    fresh_p6(f);
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p6");
    const char *a = updates[i].actions;
    if (ddbst_item_update_text(f->item, a, strlen(a), &f->err))
      fail_msg("%s: %s", a, f->err.message);
    itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                     &f->err));
    ITEST_VALUES(f, "Product", "shopId=s1", "sku=p6");
    yajl_val item = itest_get(f);
    yajl_val got = yajl_tree_get(
        item, (const char *[]){updates[i].attribute, NULL}, yajl_t_any);
    char why[128];
    yajl_val want = strcmp(updates[i].after, "absent")
                        ? yajl_tree_parse(updates[i].after, why, sizeof why)
                        : NULL;
    if (want ? !same_value(want, got, 0) : got != NULL)
      fail_msg("%s: %s is not %s: %s", a, updates[i].attribute,
               updates[i].after, itest_client_body(f->client));
    yajl_tree_free(want);
    drop_p6(f);
  }
}

int main(void) {
  if (itest_should_skip("integration_test_expressions")) return ITEST_SKIP;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(conditions_on_writes),
      cmocka_unit_test(conditions_in_every_write),
      cmocka_unit_test(filters_on_queries),
      cmocka_unit_test(filters_on_an_index),
      cmocka_unit_test(refusals_are_dynamodbs),
      cmocka_unit_test(every_update_action_read_back),
  };
  return cmocka_run_group_tests(tests, setup, itest_teardown);
}
