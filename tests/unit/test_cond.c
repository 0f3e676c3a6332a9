/* Conditions, filters and update actions (src/request/cond*.c,
 * update_actions.c): every operator and function of both forms written as
 * DynamoDB reads it, the two forms giving the same bytes, every refusal
 * with its code, path, message and character, parameters typed where they
 * are used, ddbst's own conditions kept apart from the user's, and a warm
 * item that builds without allocating. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define NOW_US INT64_C(1773964800000000)

static ddbst_model *catalog;
static ddbst_buf *out;

static int setup(void **state) {
  (void)state;
  catalog = load_example("examples/catalog/model.json");
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(catalog);
  return 0;
}

static ddbst_expr *compile(int kind, const char *text) {
  ddbst_expr *x = NULL;
  ddbst_error err;
  int rc = ddbst_expr_parse(catalog, 0, kind, text, strlen(text), &x, &err);
  if (rc) fail_msg("%s: %d %s: %s", text, rc, err.path, err.message);
  return x;
}

/* A product with its key and name, the values of every request below. */
static ddbst_item *product(void) {
  ddbst_item *it = ddbst_item_new(catalog, 0);
  set(it, "shopId", "s1");
  set(it, "sku", "k1");
  return it;
}

/* The body from `from` on (its tail: the expressions and their
 * placeholders), for comparing what a condition made. */
static const char *tail(const char *from) {
  const char *t = strstr(ddbst_buf_data(out), from);
  if (!t) fail_msg("no %s in %s", from, ddbst_buf_data(out));
  return t;
}

/* ---- conditions: one row per operator and function ---- */

static const struct {
  const char *text, *tail;
} conditions[] = {
    {"status = \"draft\"",
     ",\"ConditionExpression\":\"#n0 = :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"status\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"}}}"},
    {"status <> \"draft\"",
     ",\"ConditionExpression\":\"#n0 <> :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"status\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"}}}"},
    {"stock < 3",
     ",\"ConditionExpression\":\"#n0 < :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"}}}"},
    {"stock <= 3",
     ",\"ConditionExpression\":\"#n0 <= :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"}}}"},
    {"stock > 3",
     ",\"ConditionExpression\":\"#n0 > :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"}}}"},
    {"stock >= 3",
     ",\"ConditionExpression\":\"#n0 >= :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"}}}"},
    {"price between 1.5 and 10",
     ",\"ConditionExpression\":\"#n0 BETWEEN :v0 AND :v1\",\"ExpressionAttributeNames\":{\"#n0\":\"price\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"1.5\"},\":v1\":{\"N\":\"10\"}}}"},
    {"status in (\"draft\", \"published\")",
     ",\"ConditionExpression\":\"#n0 IN (:v0, :v1)\",\"ExpressionAttributeNames\":{\"#n0\":\"status\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"},\":v1\":{\"S\":\"published\"}}}"},
    {"attribute_exists(category)",
     ",\"ConditionExpression\":\"attribute_exists(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":\"category\"}}"},
    {"attribute_not_exists(details.color)",
     ",\"ConditionExpression\":\"attribute_not_exists(#n0.#n1)\",\"ExpressionAttributeNames\":{\"#n0\":\"details\",\"#n1\":\"color\"}}"},
    {"attribute_type(details, \"M\")",
     ",\"ConditionExpression\":\"attribute_type(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"details\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"M\"}}}"},
    {"begins_with(name, \"Hat\")",
     ",\"ConditionExpression\":\"begins_with(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"name\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Hat\"}}}"},
    {"contains(name, \"at\")",
     ",\"ConditionExpression\":\"contains(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"name\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"at\"}}}"},
    {"contains(tags, \"new\")",
     ",\"ConditionExpression\":\"contains(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"tags\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"new\"}}}"},
    {"contains(sizes, 42)",
     ",\"ConditionExpression\":\"contains(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"sizes\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"42\"}}}"},
    {"contains(images, \"a.png\")",
     ",\"ConditionExpression\":\"contains(#n0, :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"images\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"a.png\"}}}"},
    {"size(tags) < 10",
     ",\"ConditionExpression\":\"size(#n0) < :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"tags\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"10\"}}}"},
    {"status = \"draft\" and (stock > 3 or not featured = true)",
     ",\"ConditionExpression\":\"#n0 = :v0 AND (#n1 > :v1 OR NOT #n2 = :v2)\",\"ExpressionAttributeNames\":{\"#n0\":\"status\",\"#n1\":\"stock\",\"#n2\":\"featured\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"},\":v1\":{\"N\":\"3\"},\":v2\":{\"BOOL\":true}}}"},
    {"releasedAt >= \"2026-03-01T10:00:00+01:00\"",
     ",\"ConditionExpression\":\"#n0 >= :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"releasedAt\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"2026-03-01T09:00:00Z\"}}}"},
    {"batchId = \"01hz0000000000000000000010\"",
     ",\"ConditionExpression\":\"#n0 = :v0\",\"ExpressionAttributeNames\":{\"#n0\":\"batchId\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"01HZ0000000000000000000010\"}}}"},
    {"details.dims.w > 2 and images[0] = \"a.png\"",
     ",\"ConditionExpression\":\"#n0.#n1.#n2 > :v0 AND #n3[0] = :v1\",\"ExpressionAttributeNames\":{\"#n0\":\"details\",\"#n1\":\"dims\",\"#n2\":\"w\",\"#n3\":\"images\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"2\"},\":v1\":{\"S\":\"a.png\"}}}"},
    {"price < stock",
     ",\"ConditionExpression\":\"#n0 < #n1\",\"ExpressionAttributeNames\":{\"#n0\":\"price\",\"#n1\":\"stock\"}}"},
};

/* A put that replaces (ddbst adds no condition of its own), so the
 * condition is exactly the user's. */
static void every_operator_and_function(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++) {
    ddbst_expr *x = compile(DDBST_EXPR_CONDITION, conditions[i].text);
    ddbst_item *it = product();
    set(it, "name", "Hat");
    ddbst_error err;
    assert_int_equal(ddbst_item_condition(it, x, &err), 0);
    ddbst_buf_reset(out);
    assert_int_equal(ddbst_put_request(it, 0, NOW_US, out, &err),
                     DDBST_OP_PUT_ITEM);
    if (strcmp(tail(",\"ConditionExpression\""), conditions[i].tail))
      fail_msg("%s:\n got  %s\n want %s", conditions[i].text,
               tail(",\"ConditionExpression\""), conditions[i].tail);
    ddbst_item_free(it);
    ddbst_expr_free(x);
  }
}

/* ---- refusals of the text form ---- */

static const struct {
  const char *text;
  int code;
  const char *path, *message;
  uint64_t offset;
} refused[] = {
    {"status = \"lost\"", -5, "condition",
     "at character 10: Product.status: 'lost' is not one of the enum's values", 9},
    {"statuss = \"draft\"", -7, "condition",
     "at character 1: Product has no attribute statuss; did you mean status?", 0},
    {"Status = \"draft\"", -7, "condition",
     "at character 1: Product has no attribute Status; did you mean status?", 0},
    {"zzz = 1", -7, "condition",
     "at character 1: Product has no attribute zzz", 0},
    {"PK = \"x\"", -1, "condition",
     "at character 1: PK is the table's partition key, which ddbst writes from the entity's attributes: name the attributes it is made of", 0},
    {"_type = \"Product\"", -1, "condition",
     "at character 1: _type is the entity attribute, which ddbst writes from the entity's attributes: name the attributes it is made of", 0},
    {"GSI1PK = \"x\"", -1, "condition",
     "at character 1: GSI1PK is a key of an index, which ddbst writes from the entity's attributes: name the attributes it is made of", 0},
    {"featured < true", -5, "condition",
     "at character 10: Product.featured is a boolean: only strings, numbers and binary are ordered, so this can never hold", 9},
    {"tags[0] = \"a\"", -5, "condition",
     "at character 1: Product.tags is a string set: a path goes inside maps and lists only", 0},
    {"details[0] = 1", -5, "condition",
     "at character 1: Product.details is a map: its members are .name, not [index]", 0},
    {"images.a = 1", -5, "condition",
     "at character 1: Product.images is a list: its elements are [index], not .name", 0},
    {"size(stock) > 2", -5, "condition",
     "at character 1: Product.stock is a number: size() measures strings, binary, lists, maps and sets", 0},
    {"3 = 4", -1, "condition",
     "at character 3: both sides are values: compare an attribute with a value or another attribute", 2},
    {"stock = name", -5, "condition",
     "at character 7: one side is a number, the other a string: they are never equal or ordered", 6},
    {"stock = \"x\"", -5, "condition",
     "at character 9: Product.stock: not an integer: non-digit character", 8},
    {"name = 3", -5, "condition",
     "at character 8: Product.name: a string attribute's value is given as a string, not a number", 7},
    {"featured = \"yes\"", -5, "condition",
     "at character 12: Product.featured: expected true or false", 11},
    {"releasedAt < \"2026-03\"", -5, "condition",
     "at character 14: Product.releasedAt: '2026-03' is the start of a timestamp, not one: compare with a complete one (2026-03-01T00:00:00Z), or use begins_with", 13},
    {"begins_with(status, \"x\")", -5, "condition",
     "at character 21: Product.status: no value of the enum starts with 'x', so this can never hold", 20},
    {"begins_with(stock, \"1\")", -5, "condition",
     "at character 1: Product.stock is a number: begins_with cannot hold on it", 0},
    {"begins_with(releasedAt, \"2026-13\")", -5, "condition",
     "at character 25: Product.releasedAt: '2026-13' is not the start of a canonical UTC timestamp (2026, 2026-03, 2026-03-14T09, ...)", 24},
    {"contains(status, \"zz\")", -5, "condition",
     "at character 18: Product.status: no value of the enum contains 'zz', so this can never hold", 17},
    {"contains(featured, true)", -5, "condition",
     "at character 1: Product.featured is a boolean: contains cannot hold on it", 0},
    {"attribute_type(details, \"MAP\")", -5, "condition",
     "at character 25: attribute_type takes one of S SS N NS B BS BOOL NULL L M", 24},
    {"status = null", -5, "condition",
     "at character 10: Product.status: null is no value of this enum attribute: test attribute_not_exists instead", 9},
    {"stock between 1", -3, "condition",
     "at character 16: expected AND and BETWEEN's upper bound, found the end", 15},
    {"stock in ()", -3, "condition",
     "at character 11: expected an attribute or a value, found ')'", 10},
    {"(status = \"draft\"", -3, "condition",
     "at character 18: expected ')', found the end", 17},
    {"status =", -3, "condition",
     "at character 9: expected an attribute or a value, found the end", 8},
    {"status = \"draft\" or", -3, "condition",
     "at character 20: expected an attribute or a value, found the end", 19},
    {"nosuch(x)", -3, "condition",
     "at character 1: unknown function nosuch (a condition takes attribute_exists, attribute_not_exists, attribute_type, begins_with, contains and size)", 0},
    {"status = \"dr\\qaft\"", -3, "condition",
     "at character 13: unknown escape '\\q'", 12},
    {"status = \"unterminated", -3, "condition",
     "at character 10: a string does not end (a '\"' is missing)", 9},
    {"`` = 1", -3, "condition",
     "at character 1: an empty name", 0},
    {"stock > 3 stock", -3, "condition",
     "at character 11: expected the end, AND or OR, found 'stock'", 10},
    {"status = \"draft\" and", -3, "condition",
     "at character 21: expected an attribute or a value, found the end", 20},
    {"name = \"Hat\" and releasedAt = \"2026-03-01T00:00:00Z\" or size(images) = [1]", -5, "condition",
     "at character 72: expected a number", 71},
};

static void refusals_point_at_the_character(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    ddbst_expr *x = (ddbst_expr *)1;
    ddbst_error err;
    int rc = ddbst_expr_parse(catalog, 0, DDBST_EXPR_CONDITION, refused[i].text,
                              strlen(refused[i].text), &x, &err);
    if (rc != refused[i].code || strcmp(err.path, refused[i].path) ||
        strcmp(err.message, refused[i].message) ||
        err.offset != refused[i].offset)
      fail_msg("%s:\n got  %d %s: %s (%llu)\n want %d %s: %s (%llu)",
               refused[i].text, rc, err.path, err.message,
               (unsigned long long)err.offset, refused[i].code,
               refused[i].path, refused[i].message,
               (unsigned long long)refused[i].offset);
    assert_null(x);
    assert_int_equal(err.code, rc);
    /* the column is the character's, one-based, for the text form */
    assert_int_equal(err.column, refused[i].offset + 1);
  }
}

/* A column counts characters, not bytes. */
static void columns_count_characters(void **state) {
  (void)state;
  const char *text = "name = \"h\xc3\xa9\" and zork = 1";
  ddbst_expr *x;
  ddbst_error err;
  assert_int_equal(ddbst_expr_parse(catalog, 0, DDBST_EXPR_CONDITION, text,
                                    strlen(text), &x, &err),
                   DDBST_ENOTFOUND);
  assert_int_equal(err.offset, 17); /* bytes before it: é is two */
  assert_int_equal(err.column, 17); /* characters before it, plus one */
  assert_string_equal(err.message,
                      "at character 17: Product has no attribute zork");
  /* text that is not UTF-8 is refused before it is read */
  assert_int_equal(ddbst_expr_parse(catalog, 0, DDBST_EXPR_CONDITION,
                                    "name = \"\xff\"", 10, &x, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.path, "condition");
}

/* ---- the JSON form: the same meaning, the same bytes ---- */

static const struct {
  const char *text, *json;
} both_forms[] = {
    {"status = \"draft\" and size(tags) < 10",
     "{\"and\": [{\"=\": [\"status\", \"draft\"]}, {\"<\": [{\"size\": "
     "\"tags\"}, 10]}]}"},
    {"status <> \"draft\" or stock >= 3 or not (featured = true)",
     "{\"or\": [{\"<>\": [\"status\", \"draft\"]}, {\">=\": [\"stock\", 3]}, "
     "{\"not\": {\"=\": [\"featured\", true]}}]}"},
    {"stock < 3 and stock <= 3 and stock > 1 and stock >= 1",
     "{\"and\": [{\"<\": [\"stock\", 3]}, {\"<=\": [\"stock\", 3]}, "
     "{\">\": [\"stock\", 1]}, {\">=\": [\"stock\", 1]}]}"},
    {"price between 1.5 and 10", "{\"between\": [\"price\", 1.5, 10]}"},
    {"status in (\"draft\", \"published\")",
     "{\"in\": [\"status\", \"draft\", \"published\"]}"},
    {"attribute_exists(category) and attribute_not_exists(details.color)",
     "{\"and\": [{\"attribute_exists\": \"category\"}, "
     "{\"attribute_not_exists\": {\"path\": \"details.color\"}}]}"},
    {"attribute_type(details, \"M\")",
     "{\"attribute_type\": [\"details\", \"M\"]}"},
    {"begins_with(name, \"Hat\") and contains(tags, \"new\")",
     "{\"and\": [{\"begins_with\": [\"name\", \"Hat\"]}, {\"contains\": "
     "[\"tags\", \"new\"]}]}"},
    {"contains(sizes, 42) and contains(images, {\"url\": \"a.png\"})",
     "{\"and\": [{\"contains\": [\"sizes\", 42]}, {\"contains\": "
     "[\"images\", {\"url\": \"a.png\"}]}]}"},
    {"details.dims.w > 2 and images[0] = \"a.png\"",
     "{\"and\": [{\">\": [\"details.dims.w\", 2]}, {\"=\": [\"images[0]\", "
     "\"a.png\"]}]}"},
    {"price < stock", "{\"<\": [\"price\", {\"path\": \"stock\"}]}"},
    {"3 < stock", "{\"<\": [3, {\"path\": \"stock\"}]}"},
    {"stock > :n", "{\">\": [\"stock\", {\"param\": \"n\"}]}"},
    {"details = {\"path\": 1}",
     "{\"=\": [\"details\", {\"value\": {\"path\": 1}}]}"},
    {"`status` = \"draft\"", "{\"=\": [\"`status`\", \"draft\"]}"},
};

static void both_forms_give_the_same_bytes(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof both_forms / sizeof both_forms[0]; i++) {
    char bodies[2][2048];
    for (int f = 0; f < 2; f++) {
      const char *src = f ? both_forms[i].json : both_forms[i].text;
      ddbst_expr *x = NULL;
      ddbst_error err;
      int rc = f ? ddbst_expr_parse_json(catalog, 0, DDBST_EXPR_CONDITION, src,
                                         strlen(src), &x, &err)
                 : ddbst_expr_parse(catalog, 0, DDBST_EXPR_CONDITION, src,
                                    strlen(src), &x, &err);
      if (rc) fail_msg("%s: %s: %s", src, err.path, err.message);
      ddbst_item *it = product();
      assert_int_equal(ddbst_item_bind(it, "n", "5", 1, &err), 0);
      assert_int_equal(ddbst_item_condition(it, x, &err), 0);
      ddbst_buf_reset(out);
      assert_int_equal(ddbst_delete_request(it, 0, out, &err),
                       DDBST_OP_DELETE_ITEM);
      snprintf(bodies[f], sizeof bodies[f], "%s", ddbst_buf_data(out));
      ddbst_item_free(it);
      ddbst_expr_free(x);
    }
    if (strcmp(bodies[0], bodies[1]))
      fail_msg("%s:\n text %s\n json %s", both_forms[i].text, bodies[0],
               bodies[1]);
  }
}

static const struct {
  const char *json;
  int code;
  const char *path, *message;
} json_refused[] = {
    {"{\"and\": [{\"=\": [\"statuss\", \"draft\"]}]}", DDBST_ENOTFOUND,
     "condition.and[0].=[0]",
     "Product has no attribute statuss; did you mean status?"},
    {"{\"=\": [\"stock\", \"x\"]}", DDBST_EVALUE, "condition.=[1]",
     "Product.stock: not an integer: non-digit character"},
    {"{\"=\": [\"details..color\", \"red\"]}", DDBST_ESYNTAX, "condition.=[0]",
     "at character 9 of the path: expected a name after '.', found '.'"},
    {"{\"=\": [\"status\"]}", DDBST_EINVAL, "condition.=",
     "expected [operand, operand]"},
    {"{\"=\": [3, \"stock\"]}", DDBST_EINVAL, "condition",
     "both sides are values: compare an attribute with a value or another "
     "attribute"},
    {"{\"near\": [\"stock\", 3]}", DDBST_EINVAL, "condition",
     "unknown operator 'near' (expected and, or, not, = <> < <= > >=, "
     "between, in, attribute_exists, attribute_not_exists, attribute_type, "
     "begins_with or contains)"},
    {"{\"=\": [\"status\", \"draft\"], \"<\": [\"stock\", 3]}", DDBST_EINVAL,
     "condition",
     "expected a condition: an object of one operator, {\"=\": [\"status\", "
     "\"draft\"]}"},
    {"{\"or\": []}", DDBST_EINVAL, "condition.or", "expected an array of conditions"},
    {"{\"=\": [{\"+\": [\"stock\", 1]}, 3]}", DDBST_EINVAL, "condition.=[0]",
     "+ is an update action's value, not a condition's"},
    {"{\"=\": [\"status\", \"draft\"]", DDBST_ESYNTAX, "", NULL},
};

static void json_refusals_name_the_json_path(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof json_refused / sizeof json_refused[0]; i++) {
    ddbst_expr *x;
    ddbst_error err;
    const char *j = json_refused[i].json;
    int rc = ddbst_expr_parse_json(catalog, 0, DDBST_EXPR_CONDITION, j, strlen(j),
                                   &x, &err);
    if (rc != json_refused[i].code || strcmp(err.path, json_refused[i].path) ||
        (json_refused[i].message &&
         strcmp(err.message, json_refused[i].message)))
      fail_msg("%s:\n got  %d %s: %s\n want %d %s: %s", j, rc, err.path,
               err.message, json_refused[i].code, json_refused[i].path,
               json_refused[i].message ? json_refused[i].message : "");
  }
}

/* ---- with ddbst's own conditions ---- */

static void combined_with_ddbsts_own(void **state) {
  (void)state;
  ddbst_expr *x = compile(DDBST_EXPR_CONDITION, "status = \"draft\" or stock > 3");
  ddbst_item *it = product();
  ddbst_error err;
  /* an update: the item exists, at the version expected, and the user's */
  assert_int_equal(ddbst_item_expect_version(it, 7), 0);
  set(it, "status", "published");
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, NOW_US, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_string_equal(
      tail(",\"ConditionExpression\""),
      ",\"ConditionExpression\":\"(attribute_exists(#n3) AND #n2 = :v3) AND "
      "(#n0 = :v4 OR #n4 > :v5)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"status\",\"#n1\":\"updatedAt\",\"#n2\":\"version\",\"#n3\":\"PK\","
      "\"#n4\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"published\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":"
      "{\"N\":\"8\"},\":v3\":{\"N\":\"7\"},\":v4\":{\"S\":\"draft\"},\":v5\":"
      "{\"N\":\"3\"}}}");
  /* an upsert adds nothing of its own: the user's condition alone */
  ddbst_item_free(it);
  it = product();
  set(it, "name", "Mug");
  set(it, "status", "published");
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, DDBST_UPSERT, NOW_US, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"ConditionExpression\":\"#n1 = :v6 OR #n5 > :v7\""));
  /* a put at a version: ddbst's, then the user's */
  ddbst_item_free(it);
  it = product();
  set(it, "name", "Hat");
  assert_int_equal(ddbst_item_expect_version(it, 2), 0);
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(it, 0, NOW_US, out, &err),
                   DDBST_OP_PUT_ITEM);
  assert_string_equal(
      tail(",\"ConditionExpression\""),
      ",\"ConditionExpression\":\"(#n0 = :v0) AND (#n1 = :v1 OR #n2 > :v2)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"version\",\"#n1\":\"status\","
      "\"#n2\":\"stock\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":"
      "\"2\"},\":v1\":{\"S\":\"draft\"},\":v2\":{\"N\":\"3\"}}}");
  /* a delete that must find the item */
  ddbst_item_free(it);
  it = product();
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_delete_request(it, DDBST_IF_EXISTS, out, &err),
                   DDBST_OP_DELETE_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"catalog\",\"Key\":{\"PK\":{\"S\":\"SHOP#s1\"},\"SK\":{"
      "\"S\":\"PRODUCT#k1\"}},\"ConditionExpression\":\"(attribute_exists("
      "#n0)) AND (#n1 = :v0 OR #n2 > :v1)\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"PK\",\"#n1\":\"status\",\"#n2\":\"stock\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"draft\"},\":v1\":{"
      "\"N\":\"3\"}}}");
  /* a create refuses it: no item is there to hold it */
  ddbst_item_free(it);
  it = product();
  set(it, "name", "Hat");
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, NOW_US, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "Product");
  assert_string_equal(err.message,
                      "a create writes only where no item is, so a condition "
                      "on its attributes could never hold: use a put with "
                      "the condition");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
  ddbst_expr_free(x);
}

/* A transaction's ConditionCheck, and the item's own entry of a write that
 * moves a unique guard, carry the user's condition too. */
static void in_transactions(void **state) {
  (void)state;
  ddbst_model *saas = load_example("examples/saas/model.json");
  int user = ddbst_model_entity(saas, "User");
  ddbst_expr *x;
  ddbst_error err;
  assert_int_equal(ddbst_expr_parse(saas, user, DDBST_EXPR_CONDITION,
                                    "role = \"admin\"", 14, &x, &err),
                   0);
  ddbst_item *it = ddbst_item_new(saas, user);
  set(it, "orgId", "o1");
  set(it, "userId", "u1");
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  ddbst_txn *t = ddbst_txn_new(saas);
  assert_int_equal(ddbst_txn_check(t, it, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_request(t, NULL, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TransactItems\":[{\"ConditionCheck\":{\"TableName\":"
      "\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"USER#u1\"}},\"ConditionExpression\":\"(attribute_exists(#n0)) AND "
      "(#n1 = :v0)\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":"
      "\"role\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"admin\"}}}}]}");
  /* an email change: the update entry holds exists, the old email and
   * the user's condition */
  set(it, "email", "new@x.com");
  assert_int_equal(ddbst_item_set_previous(it, ddbst_model_attribute(saas, user,
                                                                     "email"),
                                           "old@x.com", 9, &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, NOW_US, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_non_null(strstr(ddbst_buf_data(out),
                         "\"ConditionExpression\":\"(attribute_exists(#n2) AND "
                         "#n0 = :v2) AND (#n3 = :v3)\""));
  ddbst_txn_free(t);
  ddbst_item_free(it);
  ddbst_expr_free(x);
  ddbst_model_free(saas);
}

/* ---- parameters ---- */

static void parameters_are_typed_where_used(void **state) {
  (void)state;
  ddbst_expr *x = compile(DDBST_EXPR_CONDITION,
                          "stock >= :n and releasedAt < :at and details.k = :d "
                          "and details.s = :s");
  ddbst_item *it = product();
  ddbst_error err;
  assert_int_equal(ddbst_item_condition(it, x, &err), 0);
  /* unbound: the builder says which */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_delete_request(it, 0, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "params.n");
  assert_string_equal(err.message,
                      "the expression uses :n: give its value "
                      "(ddbst_item_bind)");
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(ddbst_item_bind(it, ":n", "3", 1, &err), 0);
  assert_int_equal(ddbst_item_bind(it, "at", "2026-03-01T10:00:00+01:00", 25,
                                   &err),
                   0);
  assert_int_equal(ddbst_item_bind(it, "d", "[1, 2]", 6, &err), 0);
  assert_int_equal(ddbst_item_bind(it, "s", "plain", 5, &err), 0);
  assert_int_equal(ddbst_delete_request(it, 0, out, &err),
                   DDBST_OP_DELETE_ITEM);
  assert_string_equal(
      tail(",\"ConditionExpression\""),
      ",\"ConditionExpression\":\"#n0 >= :v0 AND #n1 < :v1 AND #n2.#n3 = :v2 "
      "AND #n2.#n4 = :v3\",\"ExpressionAttributeNames\":{\"#n0\":\"stock\","
      "\"#n1\":\"releasedAt\",\"#n2\":\"details\",\"#n3\":\"k\",\"#n4\":"
      "\"s\"},\"ExpressionAttributeValues\":{\":v0\":{\"N\":\"3\"},\":v1\":{"
      "\"S\":\"2026-03-01T09:00:00Z\"},\":v2\":{\"L\":[{\"N\":\"1\"},{\"N\":"
      "\"2\"}]},\":v3\":{\"S\":\"plain\"}}}");
  /* a value its attribute refuses */
  assert_int_equal(ddbst_item_bind(it, "n", "many", 4, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_delete_request(it, 0, out, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "params.n");
  assert_string_equal(err.message,
                      "Product.stock: not an integer: non-digit character");
  assert_int_equal(ddbst_buf_len(out), 0);
  /* names */
  assert_int_equal(ddbst_item_bind(it, "1x", "1", 1, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "params");
  assert_int_equal(ddbst_item_bind(it, "x", "\xff", 1, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "params.x");
  char name[8];
  for (int i = 0; i < 12; i++) {
    snprintf(name, sizeof name, "p%d", i);
    assert_int_equal(ddbst_item_bind(it, name, "1", 1, &err), 0);
  }
  assert_int_equal(ddbst_item_bind(it, "one_more", "1", 1, &err), DDBST_ERANGE);
  /* a reset forgets them, with the condition */
  ddbst_item_reset(it, 0);
  set(it, "shopId", "s1");
  set(it, "sku", "k1");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_delete_request(it, 0, out, &err),
                   DDBST_OP_DELETE_ITEM);
  assert_null(strstr(ddbst_buf_data(out), "ConditionExpression"));
  ddbst_item_free(it);
  ddbst_expr_free(x);
}

/* ---- update actions ---- */

static const struct {
  const char *text, *tail;
} actions[] = {
    {"set status = \"published\"",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"status\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"published\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set stock = stock + 1",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = #n2 + :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"stock\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"1\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set stock = stock - 2",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = #n2 - :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"stock\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"2\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set price = if_not_exists(price, 9.5)",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = if_not_exists(#n2, :v2), #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"price\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"9.5\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set images = list_append(images, [\"b.png\"])",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = list_append(#n2, :v2), #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"images\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"L\":[{\"S\":\"b.png\"}]},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set images = list_append([\"a.png\"], images)",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = list_append(:v2, #n2), #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"images\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"L\":[{\"S\":\"a.png\"}]},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set images = list_append(if_not_exists(images, []), [\"c.png\"])",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = list_append(if_not_exists(#n2, :v2), :v3), #n3 = :v4, #n4 = if_not_exists(#n4, :v5) + :v6\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"images\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"L\":[]},\":v3\":{\"L\":[{\"S\":\"c.png\"}]},\":v4\":{\"S\":\"Product\"},\":v5\":{\"N\":\"0\"},\":v6\":{\"N\":\"1\"}}}"},
    {"set name = slug",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = #n2, #n3 = :v1, #n4 = if_not_exists(#n4, :v2) + :v3\",\"ExpressionAttributeNames\":{\"#n0\":\"updatedAt\",\"#n1\":\"name\",\"#n2\":\"slug\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v1\":{\"S\":\"Product\"},\":v2\":{\"N\":\"0\"},\":v3\":{\"N\":\"1\"}}}"},
    {"set details.color = \"red\", details.dims.w = 3",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2.#n3 = :v2, #n2.#n4.#n5 = :v3, #n6 = :v4, #n7 = if_not_exists(#n7, :v5) + :v6\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"details\",\"#n3\":\"color\",\"#n4\":\"dims\",\"#n5\":\"w\",\"#n6\":\"_type\",\"#n7\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"red\"},\":v3\":{\"N\":\"3\"},\":v4\":{\"S\":\"Product\"},\":v5\":{\"N\":\"0\"},\":v6\":{\"N\":\"1\"}}}"},
    {"set images[2] = \"x.png\"",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2[2] = :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"images\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"x.png\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set stock = if_not_exists(stock, 0) + 5",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = if_not_exists(#n2, :v2) + :v3, #n3 = :v4, #n4 = if_not_exists(#n4, :v5) + :v6\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"stock\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"0\"},\":v3\":{\"N\":\"5\"},\":v4\":{\"S\":\"Product\"},\":v5\":{\"N\":\"0\"},\":v6\":{\"N\":\"1\"}}}"},
    {"remove featured, details.color, images[1]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 REMOVE #n4, #n5.#n6, #n7[1]\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"featured\",\"#n5\":\"details\",\"#n6\":\"color\",\"#n7\":\"images\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"}}}"},
    {"add stock 3, tags [\"new\", \"sale\"]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 ADD #n4 :v5, #n5 :v6\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"stock\",\"#n5\":\"tags\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"},\":v5\":{\"N\":\"3\"},\":v6\":{\"SS\":[\"new\",\"sale\"]}}}"},
    {"add sizes [40, 42]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 ADD #n4 :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"sizes\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"},\":v5\":{\"NS\":[\"40\",\"42\"]}}}"},
    {"delete tags [\"old\"]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 DELETE #n4 :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"tags\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"},\":v5\":{\"SS\":[\"old\"]}}}"},
    {"delete sizes [40]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 DELETE #n4 :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"sizes\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"},\":v5\":{\"NS\":[\"40\"]}}}"},
    {"add details.count 1",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = if_not_exists(#n3, :v3) + :v4 ADD #n4.#n5 :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"_type\",\"#n3\":\"version\",\"#n4\":\"details\",\"#n5\":\"count\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set details.n = details.n + 1",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2.#n3 = #n2.#n3 + :v2, #n4 = :v3, #n5 = if_not_exists(#n5, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"details\",\"#n3\":\"n\",\"#n4\":\"_type\",\"#n5\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"1\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set status = \"published\" remove featured add stock -1 delete tags [\"old\"]",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5 REMOVE #n5 ADD #n6 :v6 DELETE #n7 :v7\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"status\",\"#n3\":\"_type\",\"#n4\":\"version\",\"#n5\":\"featured\",\"#n6\":\"stock\",\"#n7\":\"tags\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"published\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"},\":v6\":{\"N\":\"-1\"},\":v7\":{\"SS\":[\"old\"]}}}"},
    {"remove featured set status = \"published\"",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5 REMOVE #n5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"status\",\"#n3\":\"_type\",\"#n4\":\"version\",\"#n5\":\"featured\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"published\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
    {"set images[0] = 1, images[1] = 2",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2[0] = :v2, #n2[1] = :v3, #n3 = :v4, #n4 = if_not_exists(#n4, :v5) + :v6\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"images\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"1\"},\":v3\":{\"N\":\"2\"},\":v4\":{\"S\":\"Product\"},\":v5\":{\"N\":\"0\"},\":v6\":{\"N\":\"1\"}}}"},
    {"set stock = price",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = #n3, #n4 = :v2, #n5 = if_not_exists(#n5, :v3) + :v4\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"stock\",\"#n3\":\"price\",\"#n4\":\"_type\",\"#n5\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"S\":\"Product\"},\":v3\":{\"N\":\"0\"},\":v4\":{\"N\":\"1\"}}}"},
    {"set stock = stock -1",
     ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = #n2 - :v2, #n3 = :v3, #n4 = if_not_exists(#n4, :v4) + :v5\",\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"updatedAt\",\"#n2\":\"stock\",\"#n3\":\"_type\",\"#n4\":\"version\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Mug\"},\":v1\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v2\":{\"N\":\"1\"},\":v3\":{\"S\":\"Product\"},\":v4\":{\"N\":\"0\"},\":v5\":{\"N\":\"1\"}}}"},
};

/* An upsert, so that the actions stand alone (no condition of ddbst's); it
 * may create the item, so it gives the required name (or its action does). */
static void every_update_action(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
    ddbst_expr *x = compile(DDBST_EXPR_UPDATE, actions[i].text);
    ddbst_item *it = product();
    if (!strstr(actions[i].text, "set name")) set(it, "name", "Mug");
    ddbst_error err;
    assert_int_equal(ddbst_item_update(it, x, &err), 0);
    ddbst_buf_reset(out);
    int op = ddbst_update_request(it, DDBST_UPSERT, NOW_US, out, &err);
    if (op != DDBST_OP_UPDATE_ITEM)
      fail_msg("%s: %d %s: %s", actions[i].text, op, err.path, err.message);
    if (strcmp(tail(",\"UpdateExpression\""), actions[i].tail))
      fail_msg("%s:\n got  %s\n want %s", actions[i].text,
               tail(",\"UpdateExpression\""), actions[i].tail);
    ddbst_item_free(it);
    ddbst_expr_free(x);
  }
}

static const struct {
  const char *text;
  int code;
  const char *path, *message;
  uint64_t offset;
} actions_refused[] = {
    {"set category = \"hats\"", -1, "update",
     "at character 5: Product.category decides index GSI1's keys: set it as a value (not an action), so ddbst rewrites them", 4},
    {"set releasedAt = \"2026-03-01T00:00:00Z\"", -1, "update",
     "at character 5: Product.releasedAt decides index GSI1's keys: set it as a value (not an action), so ddbst rewrites them", 4},
    {"set slug = \"x\"", -1, "update",
     "at character 5: Product.slug decides index GSI2's keys: set it as a value (not an action), so ddbst rewrites them", 4},
    {"set sku = \"x\"", -1, "update",
     "at character 5: Product.sku is part of the primary key and cannot change; write a new item and delete this one", 4},
    {"set version = 3", -1, "update",
     "at character 5: Product.version is kept by ddbst on every update: use ddbst_item_expect_version", 4},
    {"set updatedAt = \"2026-03-01T00:00:00Z\"", -1, "update",
     "at character 5: Product.updatedAt is kept by ddbst on every update: set it as a value to give your own", 4},
    {"remove name", -5, "update",
     "at character 8: Product.name is required and cannot be removed", 7},
    {"set name = name + 1", -5, "update",
     "at character 17: Product.name is a string: + and - make numbers", 16},
    {"set stock = \"many\"", -5, "update",
     "at character 13: Product.stock: not an integer: non-digit character", 12},
    {"set tags = list_append(tags, [\"x\"])", -5, "update",
     "at character 12: Product.tags is a string set: list_append makes a list", 11},
    {"add name \"x\"", -5, "update",
     "at character 5: Product.name is a string: ADD adds to a number or a set (append to a list with list_append)", 4},
    {"delete stock 1", -5, "update",
     "at character 8: Product.stock is a number: DELETE takes elements out of a set (REMOVE takes an attribute or a list element away)", 7},
    {"add status \"x\"", -5, "update",
     "at character 5: Product.status is a string: ADD adds to a number or a set (append to a list with list_append)", 4},
    {"set details.a = 1, details = {}", -1, "update",
     "at character 20: two actions on Product.details (or inside it): DynamoDB refuses overlapping paths in one update", 19},
    {"set stock = stock * 2", -3, "update",
     "at character 19: expected ',' or the next clause (SET, REMOVE, ADD, DELETE), found '*'", 18},
    {"set stock", -3, "update",
     "at character 10: expected '=' and the value to set, found the end", 9},
    {"remove", -3, "update",
     "at character 7: expected an attribute, found the end", 6},
    {"set details.a.b = 1, details.a = {}", -1, "update",
     "at character 22: two actions on Product.details (or inside it): DynamoDB refuses overlapping paths in one update", 21},
    {"set stock = name", -5, "update",
     "at character 13: Product.name is a string, where a number is needed", 12},
};

static void update_refusals(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof actions_refused / sizeof actions_refused[0];
       i++) {
    ddbst_expr *x;
    ddbst_error err;
    const char *t = actions_refused[i].text;
    int rc = ddbst_expr_parse(catalog, 0, DDBST_EXPR_UPDATE, t, strlen(t), &x,
                              &err);
    if (rc != actions_refused[i].code ||
        strcmp(err.path, actions_refused[i].path) ||
        strcmp(err.message, actions_refused[i].message) ||
        err.offset != actions_refused[i].offset)
      fail_msg("%s:\n got  %d %s: %s (%llu)\n want %d %s: %s", t, rc,
               err.path, err.message, (unsigned long long)err.offset,
               actions_refused[i].code, actions_refused[i].path,
               actions_refused[i].message);
  }
}

/* Actions come after the item's own values, removes, adds and appends, in
 * one clause each; an attribute changed by both is refused. */
static void actions_with_the_items_own_values(void **state) {
  (void)state;
  ddbst_expr *x = compile(DDBST_EXPR_UPDATE,
                          "set stock = stock - 1 remove details.old "
                          "add sizes [42] delete tags [\"x\"]");
  ddbst_item *it = product();
  ddbst_error err;
  set(it, "name", "Hat");
  assert_int_equal(ddbst_item_remove(it, ddbst_model_attribute(catalog, 0,
                                                               "featured")),
                   0);
  assert_int_equal(ddbst_item_append(it, ddbst_model_attribute(catalog, 0,
                                                               "images"),
                                     "[\"a\"]", 5, &err),
                   0);
  assert_int_equal(ddbst_item_update(it, x, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, NOW_US, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_string_equal(
      tail(",\"UpdateExpression\""),
      ",\"UpdateExpression\":\"SET #n0 = :v0, #n1 = list_append(if_not_exists("
      "#n1, :v1), :v2), #n2 = :v3, #n3 = #n3 - :v4, #n4 = if_not_exists(#n4, "
      ":v5) + :v6 REMOVE #n5, #n6.#n7 ADD #n8 :v7 DELETE #n9 :v8\","
      "\"ConditionExpression\":\"attribute_exists(#n10)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"name\",\"#n1\":\"images\","
      "\"#n2\":\"updatedAt\",\"#n3\":\"stock\",\"#n4\":\"version\",\"#n5\":"
      "\"featured\",\"#n6\":\"details\",\"#n7\":\"old\",\"#n8\":\"sizes\","
      "\"#n9\":\"tags\",\"#n10\":\"PK\"},\"ExpressionAttributeValues\":{"
      "\":v0\":{\"S\":\"Hat\"},\":v1\":{\"L\":[]},\":v2\":{\"L\":[{\"S\":"
      "\"a\"}]},\":v3\":{\"S\":\"2026-03-20T00:00:00.000Z\"},\":v4\":{\"N\":"
      "\"1\"},\":v5\":{\"N\":\"0\"},\":v6\":{\"N\":\"1\"},\":v7\":{\"NS\":["
      "\"42\"]},\":v8\":{\"SS\":[\"x\"]}}}");
  /* the same attribute as a value and in an action */
  set(it, "stock", "4");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_update_request(it, 0, NOW_US, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "Product.stock");
  assert_string_equal(err.message,
                      "Product.stock is changed twice: by the item's value or "
                      "mark and by update action 1; DynamoDB refuses "
                      "overlapping paths");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
  ddbst_expr_free(x);
}

/* The JSON form of actions gives the text form's bytes. */
static void update_actions_json(void **state) {
  (void)state;
  static const struct {
    const char *text, *json;
  } pairs[] = {
      {"set stock = stock + 1, status = \"published\" remove details.color, "
       "images[1] add sizes [42] delete tags [\"old\"]",
       "[{\"set\": [\"stock\", {\"+\": [\"stock\", 1]}]}, {\"set\": "
       "[\"status\", \"published\"]}, {\"remove\": [\"details.color\", "
       "\"images[1]\"]}, {\"add\": [\"sizes\", [42]]}, {\"delete\": [\"tags\", "
       "[\"old\"]]}]"},
      {"set images = list_append([\"a\"], if_not_exists(images, []))",
       "[{\"set\": [\"images\", {\"list_append\": [[\"a\"], {\"if_not_exists\": "
       "[\"images\", []]}]}]}]"},
      {"set price = if_not_exists(price, 9.5), stock = stock - :n",
       "[{\"set\": [\"price\", {\"if_not_exists\": [\"price\", 9.5]}]}, "
       "{\"set\": [\"stock\", {\"-\": [\"stock\", {\"param\": \"n\"}]}]}]"},
      {"set name = slug", "[{\"set\": [\"name\", {\"path\": \"slug\"}]}]"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char bodies[2][2048];
    for (int f = 0; f < 2; f++) {
      const char *src = f ? pairs[i].json : pairs[i].text;
      ddbst_expr *x;
      ddbst_error err;
      int rc = f ? ddbst_expr_parse_json(catalog, 0, DDBST_EXPR_UPDATE, src,
                                         strlen(src), &x, &err)
                 : ddbst_expr_parse(catalog, 0, DDBST_EXPR_UPDATE, src,
                                    strlen(src), &x, &err);
      if (rc) fail_msg("%s: %s: %s", src, err.path, err.message);
      ddbst_item *it = product();
      assert_int_equal(ddbst_item_bind(it, "n", "2", 1, &err), 0);
      assert_int_equal(ddbst_item_update(it, x, &err), 0);
      ddbst_buf_reset(out);
      assert_int_equal(ddbst_update_request(it, 0, NOW_US, out, &err),
                       DDBST_OP_UPDATE_ITEM);
      snprintf(bodies[f], sizeof bodies[f], "%s", ddbst_buf_data(out));
      ddbst_item_free(it);
      ddbst_expr_free(x);
    }
    if (strcmp(bodies[0], bodies[1]))
      fail_msg("%s:\n text %s\n json %s", pairs[i].text, bodies[0], bodies[1]);
  }
  ddbst_expr *x;
  ddbst_error err;
  assert_int_equal(ddbst_expr_parse_json(catalog, 0, DDBST_EXPR_UPDATE,
                                         "[{\"move\": [\"a\", \"b\"]}]", 22,
                                         &x, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "update[0]");
  assert_int_equal(ddbst_expr_parse_json(catalog, 0, DDBST_EXPR_UPDATE,
                                         "[{\"set\": [\"category\", \"x\"]}]",
                                         28, &x, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "update[0].set[0]");
}

/* ---- filters ---- */

static void filters_on_queries(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(catalog, 0);
  set(it, "shopId", "s1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter_text = "stock > 3 and contains(tags, \"new\")";
  q.filter_text_len = strlen(q.filter_text);
  ddbst_error err;
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(catalog,
                                                               "listProducts"),
                                       &q, out, &err),
                   DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"catalog\",\"KeyConditionExpression\":\"#n0 = :v0 AND "
      "begins_with(#n1, :v1)\",\"FilterExpression\":\"#n2 > :v2 AND "
      "contains(#n3, :v3)\",\"ExpressionAttributeNames\":{\"#n0\":\"PK\","
      "\"#n1\":\"SK\",\"#n2\":\"stock\",\"#n3\":\"tags\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"SHOP#s1\"},\":v1\":{"
      "\"S\":\"PRODUCT#\"},\":v2\":{\"N\":\"3\"},\":v3\":{\"S\":\"new\"}},"
      "\"Limit\":50}");
  ddbst_item_free(it);
}


/* A pattern's own filter (and the entity type's) first, the user's after
 * them in parentheses. */
static const char tasks_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tasks\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\"},"
    "\"entities\":{\"Task\":{\"attributes\":{\"listId\":\"string\","
    "\"taskId\":\"string\",\"state\":{\"type\":\"enum\",\"values\":[\"open\","
    "\"done\"]},\"n\":\"integer\"},\"key\":{\"pk\":\"L#{listId}\","
    "\"sk\":\"T#{taskId}\"}},"
    "\"Note\":{\"attributes\":{\"listId\":\"string\",\"noteId\":\"string\"},"
    "\"key\":{\"pk\":\"L#{listId}\",\"sk\":\"T#N#{noteId}\"}}},"
    "\"patterns\":{\"openTasks\":{\"query\":\"Task\",\"filter\":{\"state\":"
    "\"open\"}},\"everything\":{\"query\":[\"Task\",\"Note\"]}}}";

static void filters_after_the_patterns_own(void **state) {
  (void)state;
  ddbst_model *m = load_text(tasks_json);
  ddbst_item *it = ddbst_item_new(m, 0);
  set(it, "listId", "l1");
  ddbst_expr *x;
  ddbst_error err;
  const char *f = "n > 1 or n < 0";
  assert_int_equal(
      ddbst_expr_parse(m, 0, DDBST_EXPR_FILTER, f, strlen(f), &x, &err), 0);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter = x;
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(m, "openTasks"),
                                       &q, out, &err),
                   DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"tasks\",\"KeyConditionExpression\":\"#n0 = :v0 AND "
      "begins_with(#n1, :v1)\",\"FilterExpression\":\"#n2 = :v2 AND #n3 = :v3 "
      "AND (#n4 > :v4 OR #n4 < :v5)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\",\"#n1\":\"SK\",\"#n2\":\"state\",\"#n3\":\"_type\",\"#n4\":"
      "\"n\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"L#l1\"},\":v1\":"
      "{\"S\":\"T#\"},\":v2\":{\"S\":\"open\"},\":v3\":{\"S\":\"Task\"},"
      "\":v4\":{\"N\":\"1\"},\":v5\":{\"N\":\"0\"}}}");
  /* on a collection a filter on one entity's attributes would drop the
   * others' items */
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(m,
                                                               "everything"),
                                       &q, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "filter");
  assert_string_equal(err.message,
                      "everything reads a collection of entities: a filter on "
                      "Task's attributes would drop every other entity's "
                      "items");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
  ddbst_expr_free(x);
  ddbst_model_free(m);
}

/* An index that does not project an attribute cannot filter on it:
 * DynamoDB refuses the body. */
static void filters_on_what_the_index_projects(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(catalog, 0);
  set(it, "shopId", "s1");
  set(it, "category", "hats");
  set(it, "slug", "red-hat");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  ddbst_error err;
  static const struct {
    const char *pattern, *filter, *message;
  } cases[] = {
      {"productsInCategory", "stock > 0 and price < 10", NULL},
      {"productsInCategory", "stock > 0 and featured = true",
       "productsInCategory reads index GSI1, which does not project featured "
       "(not in its INCLUDE list): DynamoDB refuses a filter on it; project "
       "it in the model, or read the table"},
      {"productBySlug", "attribute_exists(name)",
       "productBySlug reads index GSI2, which does not project name "
       "(KEYS_ONLY): DynamoDB refuses a filter on it; project it in the "
       "model, or read the table"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    q.filter_text = cases[i].filter;
    q.filter_text_len = strlen(cases[i].filter);
    ddbst_buf_reset(out);
    int rc = ddbst_query_request(it, ddbst_model_pattern(catalog, cases[i].pattern),
                                 &q, out, &err);
    if (!cases[i].message) {
      assert_int_equal(rc, DDBST_OP_QUERY);
      continue;
    }
    assert_int_equal(rc, DDBST_EINVAL);
    assert_string_equal(err.path, "filter");
    assert_string_equal(err.message, cases[i].message);
    assert_int_equal(ddbst_buf_len(out), 0);
  }
  /* a filter given twice, or of the wrong kind */
  ddbst_expr *c = compile(DDBST_EXPR_CONDITION, "stock > 0");
  q.filter = c;
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(catalog,
                                                               "listProducts"),
                                       &q, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "give the filter compiled or as text, not both");
  q.filter_text = NULL;
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(catalog,
                                                               "listProducts"),
                                       &q, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the filter must be a DDBST_EXPR_FILTER compiled for "
                      "Product");
  /* a filter's syntax error, from its text */
  q.filter = NULL;
  q.filter_text = "stock >";
  q.filter_text_len = 7;
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(catalog,
                                                               "listProducts"),
                                       &q, out, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.path, "filter");
  assert_int_equal(err.column, 8);
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_expr_free(c);
  ddbst_item_free(it);
}

/* Requests that cannot carry a condition or update actions say so. */
static void requests_that_refuse_them(void **state) {
  (void)state;
  ddbst_expr *c = compile(DDBST_EXPR_CONDITION, "stock > 0");
  ddbst_expr *u = compile(DDBST_EXPR_UPDATE, "set stock = stock + 1");
  ddbst_expr *f = compile(DDBST_EXPR_FILTER, "stock > 0");
  ddbst_item *it = product();
  ddbst_error err;
  /* the kind and entity must fit */
  assert_int_equal(ddbst_item_condition(it, u, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the expression is update actions, not a condition");
  assert_int_equal(ddbst_item_update(it, f, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the expression is a filter, not update actions");
  ddbst_model *saas = load_example("examples/saas/model.json");
  ddbst_item *user = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  assert_int_equal(ddbst_item_condition(user, c, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "the expression was compiled for another model, the "
                      "item is a User");
  ddbst_item_free(user);
  ddbst_model_free(saas);
  /* a get */
  assert_int_equal(ddbst_item_condition(it, c, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_get_request(it, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "a get takes no condition (a query takes a filter)");
  /* a batch write */
  ddbst_batch *b = ddbst_batch_new(catalog);
  set(it, "name", "Hat");
  assert_int_equal(ddbst_batch_put(b, it, NOW_US, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "a batch write holds no condition; use single writes or "
                      "a transaction");
  ddbst_batch_free(b);
  /* a query's values */
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  assert_int_equal(ddbst_query_request(it, ddbst_model_pattern(catalog,
                                                               "listProducts"),
                                       &q, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "a query takes a filter (ddbst_query.filter), not a "
                      "condition or update actions");
  /* a put or a delete with update actions */
  ddbst_item_reset(it, 0);
  set(it, "shopId", "s1");
  set(it, "sku", "k1");
  set(it, "name", "Hat");
  assert_int_equal(ddbst_item_update(it, u, &err), 0);
  assert_int_equal(ddbst_put_request(it, 0, NOW_US, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "update actions are for an update, not a put");
  assert_int_equal(ddbst_delete_request(it, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "update actions are for an update, not a delete");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
  ddbst_expr_free(c);
  ddbst_expr_free(u);
  ddbst_expr_free(f);
}

/* Arguments that are not expressions at all. */
static void bad_arguments(void **state) {
  (void)state;
  ddbst_expr *x = (ddbst_expr *)1;
  ddbst_error err;
  assert_int_equal(ddbst_expr_parse(NULL, 0, 1, "a = 1", 5, &x, &err),
                   DDBST_EINVAL);
  assert_null(x);
  assert_int_equal(ddbst_expr_parse(catalog, 9, 1, "a = 1", 5, &x, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "entity");
  assert_int_equal(ddbst_expr_parse(catalog, 0, 7, "a = 1", 5, &x, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "kind");
  assert_int_equal(ddbst_expr_parse(catalog, 0, 1, NULL, 0, &x, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_expr_parse(catalog, 0, 1, "", 0, &x, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.message,
                      "at character 1: expected a condition, found the end");
  assert_int_equal(ddbst_expr_parse(catalog, 0, DDBST_EXPR_UPDATE, "  ", 2, &x,
                                    &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.message,
                      "at character 3: expected SET, REMOVE, ADD or DELETE, "
                      "found the end");
  assert_int_equal(ddbst_item_condition(NULL, NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_item_bind(NULL, "a", "1", 1, &err), DDBST_EINVAL);
  ddbst_expr_free(NULL);
}

/* Nesting past the limit is refused, in both forms, not recursed into. */
static void deep_nesting(void **state) {
  (void)state;
  char text[512], json[2048];
  size_t n = 0, j = 0;
  for (int i = 0; i < 40; i++) text[n++] = '(';
  n += (size_t)snprintf(text + n, sizeof text - n, "stock > 1");
  for (int i = 0; i < 40; i++) text[n++] = ')';
  ddbst_expr *x;
  ddbst_error err;
  assert_int_equal(ddbst_expr_parse(catalog, 0, 1, text, n, &x, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.message,
                      "at character 33: conditions nested past 32 levels");
  for (int i = 0; i < 40; i++)
    j += (size_t)snprintf(json + j, sizeof json - j, "{\"not\":");
  j += (size_t)snprintf(json + j, sizeof json - j, "{\">\":[\"stock\",1]}");
  for (int i = 0; i < 40; i++) json[j++] = '}';
  assert_int_equal(ddbst_expr_parse_json(catalog, 0, 1, json, j, &x, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "conditions nested past 32 levels");
}

/* ---- ownership and allocation ---- */

static counting_alloc ca;

static ddbst_model *counted_catalog(void) {
  counting_alloc_init(&ca);
  size_t len;
  char *text = read_source("examples/catalog/model.json", &len);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load(text, len, &o, &m, &err))
    fail_msg("%s: %s", err.path, err.message);
  free(text);
  return m;
}

/* The text conveniences: the item owns what they compiled, and a reset
 * frees it. */
static void conveniences_are_owned_by_the_item(void **state) {
  (void)state;
  ddbst_model *m = counted_catalog();
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  long live = ca.live;
  ddbst_error err;
  set(it, "shopId", "s1");
  set(it, "sku", "k1");
  assert_int_equal(ddbst_item_condition_text(it, "stock > :n", 10, &err), 0);
  assert_int_equal(ddbst_item_update_text(it, "set stock = stock - :n", 22,
                                          &err),
                   0);
  /* a second one replaces the first */
  assert_int_equal(ddbst_item_update_text(it, "set stock = stock - :n", 22,
                                          &err),
                   0);
  assert_int_equal(ddbst_item_bind(it, "n", "2", 1, &err), 0);
  assert_int_equal(ddbst_update_request(it, 0, NOW_US, b, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_non_null(strstr(ddbst_buf_data(b),
                         "\"ConditionExpression\":\"(attribute_exists(#n3)) "
                         "AND (#n1 > :v4)\""));
  /* a syntax error attaches nothing and keeps what was there */
  assert_int_equal(ddbst_item_condition_text(it, "stock >", 7, &err),
                   DDBST_ESYNTAX);
  ddbst_item_reset(it, 0);
  /* what is left is what the item keeps for its next request: its
   * buffers, which reset never frees */
  assert_true(ca.live <= live + 3);
  ddbst_item_free(it);
  ddbst_buf_free(b);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

/* A warm item builds a conditional update and a filtered query without
 * allocating. */
static void warm_requests_do_not_allocate(void **state) {
  (void)state;
  ddbst_model *m = counted_catalog();
  ddbst_error err;
  ddbst_expr *c, *u, *f;
  const char *ct = "stock >= :n and status = \"published\"";
  const char *ut = "set stock = stock - :n add sizes [42]";
  const char *ft = "price < :p and contains(tags, \"new\")";
  assert_int_equal(ddbst_expr_parse(m, 0, 1, ct, strlen(ct), &c, &err), 0);
  assert_int_equal(ddbst_expr_parse(m, 0, 3, ut, strlen(ut), &u, &err), 0);
  assert_int_equal(ddbst_expr_parse(m, 0, 2, ft, strlen(ft), &f, &err), 0);
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.filter = f;
  int pattern = ddbst_model_pattern(m, "listProducts");
  long calls = 0;
  for (int round = 0; round < 3; round++) {
    if (round == 2) calls = ca.calls;
    ddbst_item_reset(it, 0);
    set(it, "shopId", "s1");
    set(it, "sku", "k1");
    assert_int_equal(ddbst_item_condition(it, c, &err), 0);
    assert_int_equal(ddbst_item_update(it, u, &err), 0);
    assert_int_equal(ddbst_item_bind(it, "n", "3", 1, &err), 0);
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_update_request(it, 0, NOW_US, b, &err),
                     DDBST_OP_UPDATE_ITEM);
    ddbst_item_reset(it, 0);
    set(it, "shopId", "s1");
    assert_int_equal(ddbst_item_bind(it, "p", "9.5", 3, &err), 0);
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_query_request(it, pattern, &q, b, &err),
                     DDBST_OP_QUERY);
  }
  assert_int_equal(ca.calls, calls);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_expr_free(c);
  ddbst_expr_free(u);
  ddbst_expr_free(f);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

/* Allocation failure at every step of compiling (both forms), attaching
 * and building: DDBST_ENOMEM, nothing left allocated, nothing written. */
static void allocation_failures(void **state) {
  (void)state;
  ddbst_model *m = counted_catalog();
  const char *text = "status = \"draft\" and details.a.b = [1, {\"c\": 2}] "
                     "and contains(tags, :t)";
  const char *json = "{\"and\": [{\"=\": [\"status\", \"draft\"]}, {\"=\": "
                     "[\"details.a.b\", [1, {\"c\": 2}]]}]}";
  const char *upd = "set stock = stock - :n, details.x = {\"y\": [1]} "
                    "remove details.z";
  for (int form = 0; form < 3; form++) {
    long step;
    for (step = 1; step < 5000; step++) {
      long base = ca.live;
      ca.fail_at = ca.calls + step;
      ddbst_expr *x = NULL;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      int rc = form == 0   ? ddbst_expr_parse(m, 0, 1, text, strlen(text), &x,
                                              &err)
               : form == 1 ? ddbst_expr_parse_json(m, 0, 1, json, strlen(json),
                                                   &x, &err)
                           : ddbst_expr_parse(m, 0, 3, upd, strlen(upd), &x,
                                              &err);
      ca.fail_at = 0;
      if (rc == 0) {
        ddbst_expr_free(x);
        break;
      }
      if (rc != DDBST_ENOMEM || err.code != DDBST_ENOMEM)
        fail_msg("form %d, allocation %ld failing: %d %s", form, step, rc,
                 err.message);
      assert_null(x);
      assert_int_equal(ca.live, base);
    }
    assert_true(step > 1 && step < 5000);
  }
  /* attach, bind and build on a cold item */
  long step;
  for (step = 1; step < 5000; step++) {
    ddbst_expr *x, *u;
    ddbst_error err;
    long base = ca.live;
    assert_int_equal(ddbst_expr_parse(m, 0, 1, text, strlen(text), &x, &err),
                     0);
    assert_int_equal(ddbst_expr_parse(m, 0, 3, upd, strlen(upd), &u, &err), 0);
    ca.fail_at = ca.calls + step;
    ddbst_item *it = ddbst_item_new(m, 0);
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    int rc = it && b ? 0 : DDBST_ENOMEM;
    rc = rc ? rc : try_set(it, "shopId", "s1", &err);
    rc = rc ? rc : try_set(it, "sku", "k1", &err);
    rc = rc ? rc : ddbst_item_condition(it, x, &err);
    rc = rc ? rc : ddbst_item_update(it, u, &err);
    rc = rc ? rc : ddbst_item_bind(it, "t", "new", 3, &err);
    rc = rc ? rc : ddbst_item_bind(it, "n", "1", 1, &err);
    int op = rc ? rc : ddbst_update_request(it, 0, NOW_US, b, &err);
    ca.fail_at = 0;
    if (op < 0 && op != DDBST_ENOMEM)
      fail_msg("allocation %ld failing: %d %s", step, op, err.message);
    if (op < 0 && b) assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
    ddbst_item_free(it);
    ddbst_expr_free(x);
    ddbst_expr_free(u);
    assert_int_equal(ca.live, base);
    if (op == DDBST_OP_UPDATE_ITEM) break;
  }
  assert_true(step > 1 && step < 5000);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_operator_and_function),
      cmocka_unit_test(refusals_point_at_the_character),
      cmocka_unit_test(columns_count_characters),
      cmocka_unit_test(both_forms_give_the_same_bytes),
      cmocka_unit_test(json_refusals_name_the_json_path),
      cmocka_unit_test(combined_with_ddbsts_own),
      cmocka_unit_test(in_transactions),
      cmocka_unit_test(parameters_are_typed_where_used),
      cmocka_unit_test(every_update_action),
      cmocka_unit_test(update_refusals),
      cmocka_unit_test(actions_with_the_items_own_values),
      cmocka_unit_test(update_actions_json),
      cmocka_unit_test(filters_on_queries),
      cmocka_unit_test(filters_after_the_patterns_own),
      cmocka_unit_test(filters_on_what_the_index_projects),
      cmocka_unit_test(requests_that_refuse_them),
      cmocka_unit_test(bad_arguments),
      cmocka_unit_test(deep_nesting),
      cmocka_unit_test(conveniences_are_owned_by_the_item),
      cmocka_unit_test(warm_requests_do_not_allocate),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
