/* Issue 16 on DynamoDB Local: what ddbst refuses of a write is what
 * DynamoDB refuses, to the byte and to the element.
 *  - an update is held to 400 KB as a put is: an upsert that leaves an item
 *    of exactly 409,600 bytes is built and stored; one byte more is refused
 *    by ddbst, and the same body with that one byte more, sent by hand, is
 *    refused by DynamoDB;
 *  - a set with an element twice (numbers by their value: 1 and 1.0, 10 and
 *    1e1, 0 and -0.0) is refused by ddbst, and sent by hand, by DynamoDB;
 *    distinct spellings of distinct numbers are stored as written;
 *  - the SaaS example's email guard holds the address's NFKC_Casefold form:
 *    café in NFC, in NFD and in fullwidth capitals is one guard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static itest_fixture *fixture;

static int open_table(void **state) {
  fixture = itest_open(
      DDBST_SOURCE_DIR "/tests/integration/models/integrity.json", "int");
  *state = fixture; /* itest_teardown drops its table */
  return fixture ? 0 : -1;
}

static void refused_by_dynamodb(itest_fixture *f, const char *operation,
                                const char *body, const char *message) {
  long status = itest_send_json(f, operation, body);
  const char *path[] = {"message", NULL};
  yajl_val m = f->response ? yajl_tree_get(f->response, path, yajl_t_string)
                           : NULL;
  if (!m) {
    const char *path2[] = {"Message", NULL};
    m = f->response ? yajl_tree_get(f->response, path2, yajl_t_string) : NULL;
  }
  const char *text = m ? YAJL_GET_STRING(m) : NULL;
  if (status != 400 || !text || !strstr(text, message))
    fail_msg("%s: expected HTTP 400 with \"%s\", got HTTP %ld: %s", operation,
             message, status, text ? text : "(no message)");
}

/* The item an upsert of Thing id=1 leaves: PK "T#1" 2 + 3, SK "T" 2 + 1,
 * _type "Thing" 5 + 5, s 1 + n (id is in the key only). */
enum { EDGE = 409600 - 19 };

static void an_update_at_the_limit(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  char *big = malloc(EDGE + 2);
  memset(big, 'x', EDGE + 1);
  big[EDGE] = '\0';
  ddbst_item *it = ITEST_VALUES(f, "Thing", "id=1");
  assert_int_equal(ddbst_item_set(it, itest_attr(f, "s"), big, EDGE, &f->err),
                   0);
  itest_ok(f, ddbst_update_request(it, DDBST_UPSERT, ITEST_NOW_US,
                                   itest_body(f), &f->err));
  yajl_val got = itest_get(f);
  assert_non_null(got);
  assert_int_equal(strlen(itest_s(got, "s")), EDGE);
  itest_expect_attributes(f, got, "PK SK _type s");

  /* one byte more: ddbst refuses it before any body ... */
  big[EDGE] = 'x';
  big[EDGE + 1] = '\0';
  it = ITEST_VALUES(f, "Thing", "id=2");
  assert_int_equal(
      ddbst_item_set(it, itest_attr(f, "s"), big, EDGE + 1, &f->err), 0);
  ddbst_buf *b = itest_body(f);
  assert_int_equal(ddbst_update_request(it, DDBST_UPSERT, ITEST_NOW_US, b,
                                        &f->err),
                   DDBST_ERANGE);
  assert_string_equal(f->err.message,
                      "the Thing would be at least 409601 bytes after this "
                      "update (its key and the values it writes); DynamoDB "
                      "stores at most 409600 per item");
  assert_int_equal(ddbst_buf_len(b), 0);
  /* ... and DynamoDB refuses the body with that byte more */
  it = ITEST_VALUES(f, "Thing", "id=2");
  assert_int_equal(ddbst_item_set(it, itest_attr(f, "s"), big, EDGE, &f->err),
                   0);
  assert_int_equal(ddbst_update_request(it, DDBST_UPSERT, ITEST_NOW_US,
                                        itest_body(f), &f->err),
                   DDBST_OP_UPDATE_ITEM);
  const char *body = ddbst_buf_data(f->body);
  const char *run = strstr(body, "xxxx");
  assert_non_null(run);
  size_t len = strlen(body), at = (size_t)(run - body);
  char *more = malloc(len + 2);
  memcpy(more, body, at);
  more[at] = 'x';
  memcpy(more + at + 1, body + at, len - at + 1);
  refused_by_dynamodb(f, "UpdateItem", more,
                      "Item size to update has exceeded the maximum allowed "
                      "size");
  /* and the edge itself is stored: the same body as sent by ddbst */
  itest_ok(f, DDBST_OP_UPDATE_ITEM);
  free(more);
  free(big);
}

static void sets_with_an_element_twice(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  static const struct {
    const char *attr, *json, *av, *message;
  } cases[] = {
      {"tags", "[\"a\",\"a\"]", "{\"SS\":[\"a\",\"a\"]}",
       "tags: \"a\" is given twice in the set"},
      {"nums", "[1,1.0]", "{\"NS\":[\"1\",\"1.0\"]}",
       "nums: 1 and 1.0 are one number, given twice in the set"},
      {"nums", "[10,1e1]", "{\"NS\":[\"10\",\"1e1\"]}",
       "nums: 10 and 1e1 are one number"},
      {"nums", "[0,-0.0]", "{\"NS\":[\"0\",\"-0.0\"]}",
       "nums: 0 and -0.0 are one number"},
      {"nums", "[0.5,50E-2]", "{\"NS\":[\"0.5\",\"50E-2\"]}",
       "nums: 0.5 and 50E-2 are one number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ddbst_item *it = ITEST_VALUES(f, "Thing", "id=3");
    int rc = ddbst_item_set(it, itest_attr(f, cases[i].attr), cases[i].json,
                            strlen(cases[i].json), &f->err);
    assert_int_equal(rc, DDBST_EVALUE);
    if (!strstr(f->err.message, cases[i].message))
      fail_msg("%s: wanted \"%s\", got \"%s\"", cases[i].json,
               cases[i].message, f->err.message);
    char body[512];
    snprintf(body, sizeof body,
             "{\"TableName\":\"%s\",\"Item\":{\"PK\":{\"S\":\"T#3\"},"
             "\"SK\":{\"S\":\"T\"},\"%s\":%s}}",
             f->table, cases[i].attr, cases[i].av);
    refused_by_dynamodb(f, "PutItem", body, "contains duplicates");
  }
  /* distinct numbers in any spelling are kept, as written */
  ITEST_CREATE(f, "Thing", "id=4", "nums=[1,10,0.1,-1,1.5e1]",
               "tags=[\"a\",\"A\",\"a \"]");
  yajl_val got = itest_get(f);
  assert_non_null(got);
  const char *path[] = {"nums", "NS", NULL};
  yajl_val ns = yajl_tree_get(got, path, yajl_t_array);
  assert_non_null(ns);
  assert_int_equal(ns->u.array.len, 5);
}

/* The SaaS example's email guard ("normalize": "NFKC_Casefold"): café in
 * NFC, then in NFD (e and U+0301) in another organisation, then in
 * fullwidth capitals. One guard; the second and third creates are
 * cancelled and leave nothing; the lookup by email finds the first user
 * whichever way the address is typed; the user keeps it as typed. */
#define CAFE_NFC "caf\xc3\xa9@example.com"
#define CAFE_NFD "cafe\xcc\x81@example.com"
#define CAFE_WIDE "\xef\xbc\xa3\xef\xbc\xa1\xef\xbc\xa6\xc3\x89@Example.com"

static void saas_email_forms_collide(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "User", "orgId=o1", "userId=u1", "email=" CAFE_NFC,
               "name=Ann");
  static const char *const others[] = {"email=" CAFE_NFD, "email=" CAFE_WIDE};
  for (int i = 0; i < 2; i++) {
    ddbst_item *it = ITEST_VALUES(f, "User", "orgId=o2", "userId=u2",
                                  others[i], "name=Bo");
    itest_condition_failed(f, ddbst_put_request(it, DDBST_CREATE, ITEST_NOW_US,
                                                itest_body(f), &f->err));
  }
  /* exactly the first user and its one guard, which names whose it is */
  yajl_val all = itest_scan_table(f);
  assert_int_equal(all->u.array.len, 2);
  /* a Scan's order is the table's hash order: each found by its type */
  int g = !strcmp(itest_s(all->u.array.values[0], "_type"), "User.email") ? 0
                                                                          : 1;
  yajl_val guard = all->u.array.values[g], user = all->u.array.values[1 - g];
  itest_expect_s(guard, "_type", "User.email");
  itest_expect_s(guard, "PK", "EMAIL#" CAFE_NFC);
  itest_expect_s(user, "_type", "User");
  itest_expect_s(user, "email", CAFE_NFC);
  itest_expect_s(user, "GSI1PK", "EMAIL#" CAFE_NFC);
  /* found by any of its forms */
  static const char *const typed[] = {"email=" CAFE_NFC, "email=" CAFE_NFD,
                                      "email=" CAFE_WIDE};
  for (int i = 0; i < 3; i++) {
    ITEST_VALUES(f, "User", typed[i]);
    itest_expect(f, itest_query(f, "userByEmail", NULL), "SK", "USER#u1",
                 "userByEmail, the address typed another way");
  }
  /* a user whose address was typed in NFD keeps it so */
  ITEST_CREATE(f, "User", "orgId=o3", "userId=u3",
               "email=jos" "e\xcc\x81" "@example.com", "name=Jo");
  ITEST_VALUES(f, "User", "orgId=o3", "userId=u3");
  yajl_val jo = itest_get(f);
  assert_non_null(jo);
  itest_expect_s(jo, "email", "jos" "e\xcc\x81" "@example.com");
  itest_expect_s(jo, "GSI1PK", "EMAIL#jos\xc3\xa9@example.com");
}

int main(void) {
  if (itest_should_skip("test_integrity")) return ITEST_SKIP;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(an_update_at_the_limit),
      cmocka_unit_test(sets_with_an_element_twice),
  };
  const struct CMUnitTest saas[] = {
      cmocka_unit_test_setup_teardown(saas_email_forms_collide,
                                      itest_setup_saas, itest_teardown),
  };
  int failed = cmocka_run_group_tests_name("integrity", tests, open_table,
                                           itest_teardown);
  return failed + cmocka_run_group_tests_name("integrity (saas)", saas, NULL,
                                              NULL);
}
