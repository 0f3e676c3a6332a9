/* Prepared operations (src/ffi/prepared.c): the same bodies as the JSON
 * entry for the same requests, byte for byte; errors with the typed API's
 * codes and paths; packed values read exactly as documented; no allocation
 * once warm; every allocation failure of ddbst_prepared_new an ENOMEM with
 * nothing leaked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry_member.h"
#include "support.h"

#define NOW 1773478800000000LL /* 2026-03-14T09:00:00Z */
#define NOW_TEXT "1773478800000000"
#define KEY_HEX "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define CONFIG                                                                 \
  "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\","          \
  "\"cursorKeys\":\"" KEY_HEX "\"}"

/* Project: orgId, projectId, createdAt, name, status (index order). */
static const char project[] =
    "=acme\0=p-1\0=2026-03-14T09:00:00Z\0=Website\0=active";

static ddbst_json *open_config(const char *config,
                               const ddbst_allocator *alloc) {
  char *error = NULL;
  ddbst_json *s = ddbst_json_open(config, strlen(config), alloc, &error);
  if (!s) fail_msg("open: %s", error);
  return s;
}

static ddbst_json *open_session(const ddbst_allocator *alloc) {
  return open_config(CONFIG, alloc);
}

/* The catalog's Product: a version attribute, numbers, sets and lists,
 * what an update's marks act on. Its attributes by index: shopId, sku,
 * name, category, slug, status, price, stock, featured, tags, sizes,
 * images, details, barcode, releasedAt, batchId, version, updatedAt. */
#define CATALOG                                                                \
  "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/catalog/model.json\"}"
/* name SET, category REMOVEd (and its index keys with it), stock ADDed 2,
 * tags ADDed "sale", images appended, version 3 expected */
static const char product_update[] =
    "=s1\0=k1\0=Hat\0-\0\0\0\0+2\0\0+[\"sale\"]\0\0>[\"front.png\"]\0\0\0\0\0"
    "?3\0";
#define PRODUCT_UPDATE_JSON                                                    \
  "\"entity\":\"Product\",\"values\":{\"shopId\":\"s1\",\"sku\":\"k1\",\"name\":"  \
  "\"Hat\"},\"remove\":[\"category\"],\"add\":{\"stock\":2,\"tags\":[\"sale\"]},"   \
  "\"append\":{\"images\":[\"front.png\"]},\"expectVersion\":3,\"now\":" NOW_TEXT

/* The "body" member of the JSON entry's answer to `request`, malloc'd: the
 * entry copies the builder's text into its answer as it is. */
static char *entry_body(ddbst_json *s, const char *request) {
  char *answer = ddbst_json_call(s, request, strlen(request), NULL);
  char *out = entry_member(answer, "body");
  ddbst_json_free(answer);
  return out;
}

static void put_is_the_entrys(void **state) {
  (void)state;
  ddbst_json *s = open_session(NULL);
  ddbst_error err;
  ddbst_prepared *p = ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Project", 0,
                                         &err);
  assert_non_null(p);
  assert_int_equal(ddbst_prepared_entity(p), 2);
  assert_int_equal(ddbst_prepared_run(p, project, sizeof project, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_OP_PUT_ITEM);
  size_t len;
  const char *body = ddbst_prepared_body(p, &len);
  assert_int_equal(strlen(body), len);
  assert_string_equal(
      body,
      "{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"ORG#acme\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p-1\"},\"GSI2PK\":{\"S\":"
      "\"STATUS#active\"},\"GSI2SK\":{\"S\":\"2026-03-14T09:00:00Z\"},"
      "\"_type\":{\"S\":\"Project\"},\"orgId\":{\"S\":\"acme\"},\"projectId\":"
      "{\"S\":\"p-1\"},\"createdAt\":{\"S\":\"2026-03-14T09:00:00Z\"},"
      "\"name\":{\"S\":\"Website\"},\"status\":{\"S\":\"active\"}}}");
  char *want = entry_body(
      s, "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{\"orgId\":"
         "\"acme\",\"projectId\":\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\","
         "\"name\":\"Website\",\"status\":\"active\"},\"now\":" NOW_TEXT "}");
  assert_string_equal(body, want);
  free(want);

  /* NUL-terminated segments read the same; an empty segment is unset, and
   * the default of createdAt ("now") fills it as the entry does */
  static const char no_created[] = "=acme\0=p-1\0\0=Website\0=active";
  assert_int_equal(ddbst_prepared_run(p, no_created, DDBST_NUL_TERMINATED, 0,
                                      NULL, 0, NOW, &err),
                   DDBST_OP_PUT_ITEM);
  want = entry_body(s, "{\"op\":\"put\",\"entity\":\"Project\",\"values\":{"
                       "\"orgId\":\"acme\",\"projectId\":\"p-1\",\"name\":"
                       "\"Website\",\"status\":\"active\"},\"now\":" NOW_TEXT
                       "}");
  assert_string_equal(ddbst_prepared_body(p, NULL), want);
  assert_non_null(strstr(want, "\"createdAt\":{\"S\":\"2026-03-14T09:00:00Z\"}"));
  free(want);

  /* a unique entity's create is a transaction, as the entry builds it */
  ddbst_prepared *c =
      ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "User", DDBST_CREATE, &err);
  assert_non_null(c);
  /* User: orgId, userId, email, role, name */
  static const char user[] = "=acme\0=u-1\0=Ann@Example.com\0=admin\0";
  assert_int_equal(ddbst_prepared_run(c, user, sizeof user, 0, NULL, 0, NOW,
                                      &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  want = entry_body(s, "{\"op\":\"create\",\"entity\":\"User\",\"values\":{"
                       "\"orgId\":\"acme\",\"userId\":\"u-1\",\"email\":"
                       "\"Ann@Example.com\",\"role\":\"admin\"},\"now\":" NOW_TEXT
                       "}");
  assert_string_equal(ddbst_prepared_body(c, NULL), want);
  free(want);
  ddbst_prepared_free(c);
  ddbst_prepared_free(p);
  ddbst_json_close(s);
}

/* The cursor of the first page of listProjects, from the entry's "page". */
static char *first_cursor(ddbst_json *s) {
  static const char req[] =
      "{\"op\":\"page\",\"pattern\":\"listProjects\",\"values\":{\"orgId\":"
      "\"acme\"},\"now\":" NOW_TEXT ",\"response\":\"{\\\"Items\\\":[],"
      "\\\"Count\\\":0,\\\"ScannedCount\\\":0,\\\"LastEvaluatedKey\\\":{"
      "\\\"PK\\\":{\\\"S\\\":\\\"ORG#acme\\\"},\\\"SK\\\":{\\\"S\\\":"
      "\\\"PROJECT#2026-03-14T09:00:00Z#p-1\\\"}}}\"}";
  char *answer = ddbst_json_call(s, req, sizeof req - 1, NULL);
  char *out = entry_member(answer, "cursor");
  ddbst_json_free(answer);
  return out;
}

static void query_is_the_entrys(void **state) {
  (void)state;
  ddbst_json *s = open_session(NULL);
  ddbst_error err;
  ddbst_prepared *q =
      ddbst_prepared_new(s, DDBST_OP_QUERY, "listProjects", 0, &err);
  assert_non_null(q);
  char *cursor = first_cursor(s);
  assert_int_equal(ddbst_prepared_run(q, "=acme\0\0\0\0", DDBST_NUL_TERMINATED, 25,
                                      cursor, DDBST_NUL_TERMINATED, NOW, &err),
                   DDBST_OP_QUERY);
  char req[1024];
  snprintf(req, sizeof req,
           "{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{"
           "\"orgId\":\"acme\"},\"limit\":25,\"now\":" NOW_TEXT
           ",\"cursor\":\"%s\"}",
           cursor);
  char *want = entry_body(s, req);
  assert_string_equal(ddbst_prepared_body(q, NULL), want);
  assert_non_null(strstr(want, "\"ExclusiveStartKey\":{\"PK\":{\"S\":"
                               "\"ORG#acme\"},\"SK\":{\"S\":\"PROJECT#"
                               "2026-03-14T09:00:00Z#p-1\"}}"));
  free(want);

  /* a bad cursor: ECURSOR at "cursor", and no body */
  assert_int_equal(ddbst_prepared_run(q, "=acme\0\0\0\0", DDBST_NUL_TERMINATED, 0,
                                      "AAAA", 4, NOW, &err),
                   DDBST_ECURSOR);
  assert_string_equal(err.path, "cursor");
  assert_string_equal(ddbst_prepared_body(q, NULL), "");

  /* no partition value: EMISSING, as the entry says it */
  assert_int_equal(
      ddbst_prepared_run(q, NULL, 0, 0, NULL, 0, NOW, &err), DDBST_EMISSING);
  free(cursor);

  /* consistent get, and delete */
  ddbst_prepared *g = ddbst_prepared_new(s, DDBST_OP_GET_ITEM, "Project",
                                         DDBST_CONSISTENT_READ, &err);
  assert_non_null(g);
  assert_int_equal(ddbst_prepared_run(g, project, sizeof project, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_OP_GET_ITEM);
  want = entry_body(s, "{\"op\":\"get\",\"entity\":\"Project\",\"consistent\":"
                       "true,\"values\":{\"orgId\":\"acme\",\"projectId\":"
                       "\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"}}");
  assert_string_equal(ddbst_prepared_body(g, NULL), want);
  free(want);
  ddbst_prepared *d = ddbst_prepared_new(s, DDBST_OP_DELETE_ITEM, "Project",
                                         DDBST_IF_EXISTS, &err);
  assert_int_equal(ddbst_prepared_run(d, project, sizeof project, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_OP_DELETE_ITEM);
  want = entry_body(s, "{\"op\":\"delete\",\"entity\":\"Project\",\"ifExists\":"
                       "true,\"values\":{\"orgId\":\"acme\",\"projectId\":"
                       "\"p-1\",\"createdAt\":\"2026-03-14T09:00:00Z\"}}");
  assert_string_equal(ddbst_prepared_body(d, NULL), want);
  free(want);
  ddbst_prepared_free(d);
  ddbst_prepared_free(g);
  ddbst_prepared_free(q);
  ddbst_json_close(s);
}

static void update_is_the_entrys(void **state) {
  (void)state;
  ddbst_json *s = open_config(CATALOG, NULL);
  ddbst_error err;
  ddbst_prepared *u =
      ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product", 0, &err);
  assert_non_null(u);
  assert_int_equal(ddbst_prepared_version_attribute(u), 16);
  assert_int_equal(ddbst_prepared_version_attribute(NULL), DDBST_EINVAL);
  assert_int_equal(ddbst_prepared_run(u, product_update, sizeof product_update,
                                      0, NULL, 0, NOW, &err),
                   DDBST_OP_UPDATE_ITEM);
  size_t len;
  const char *body = ddbst_prepared_body(u, &len);
  assert_int_equal(strlen(body), len);
  assert_string_equal(
      body,
      "{\"TableName\":\"catalog\",\"Key\":{\"PK\":{\"S\":\"SHOP#s1\"},\"SK\":"
      "{\"S\":\"PRODUCT#k1\"}},\"UpdateExpression\":\"SET #n0 = :v0, #n1 = "
      "list_append(if_not_exists(#n1, :v1), :v2), #n2 = :v3, #n3 = :v4 "
      "REMOVE #n4, #n5, #n6 ADD #n7 :v5, #n8 :v6\",\"ConditionExpression\":"
      "\"attribute_exists(#n9) AND #n3 = :v7\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"name\",\"#n1\":\"images\",\"#n2\":\"updatedAt\",\"#n3\":"
      "\"version\",\"#n4\":\"category\",\"#n5\":\"GSI1PK\",\"#n6\":\"GSI1SK\","
      "\"#n7\":\"stock\",\"#n8\":\"tags\",\"#n9\":\"PK\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Hat\"},\":v1\":{\"L\":[]},"
      "\":v2\":{\"L\":[{\"S\":\"front.png\"}]},\":v3\":{\"S\":"
      "\"2026-03-14T09:00:00.000Z\"},\":v4\":{\"N\":\"4\"},\":v5\":{\"N\":"
      "\"2\"},\":v6\":{\"SS\":[\"sale\"]},\":v7\":{\"N\":\"3\"}}}");
  char *want =
      entry_body(s, "{\"op\":\"update\"," PRODUCT_UPDATE_JSON "}");
  assert_string_equal(body, want);
  free(want);
  /* NUL-terminated, the same */
  assert_int_equal(ddbst_prepared_run(u, product_update, DDBST_NUL_TERMINATED,
                                      0, NULL, 0, NOW, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_string_equal(ddbst_prepared_body(u, NULL), body);
  ddbst_prepared_free(u);

  /* an upsert answering with the item as it is now */
  u = ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product",
                         DDBST_UPSERT | DDBST_RETURN_ALL_NEW |
                             DDBST_RETURN_OLD_ON_FAILURE,
                         &err);
  assert_non_null(u);
  static const char price[] =
      "=s1\0=k1\0=Hat\0\0\0=published\0=19.5\0\0\0\0\0\0\0\0\0\0\0";
  assert_int_equal(ddbst_prepared_run(u, price, sizeof price, 0, NULL, 0, NOW,
                                      &err),
                   DDBST_OP_UPDATE_ITEM);
  want = entry_body(s, "{\"op\":\"update\",\"entity\":\"Product\",\"upsert\":"
                       "true,\"return\":\"ALL_NEW\",\"returnOnFailure\":true,"
                       "\"values\":{\"shopId\":\"s1\",\"sku\":\"k1\","
                       "\"name\":\"Hat\",\"status\":\"published\",\"price\":19.5},\"now\":" NOW_TEXT
                       "}");
  assert_string_equal(ddbst_prepared_body(u, NULL), want);
  assert_non_null(strstr(want, "\"ReturnValues\":\"ALL_NEW\""));
  free(want);
  ddbst_prepared_free(u);
  ddbst_json_close(s);

  /* saas: a Project's status SET and its name REMOVEd, UPDATED_NEW */
  s = open_session(NULL);
  u = ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Project",
                         DDBST_RETURN_UPDATED_NEW, &err);
  assert_int_equal(ddbst_prepared_version_attribute(u), -1);
  static const char archive[] =
      "=acme\0=p-1\0=2026-03-14T09:00:00Z\0-\0=archived";
  assert_int_equal(ddbst_prepared_run(u, archive, sizeof archive, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_OP_UPDATE_ITEM);
  want = entry_body(s, "{\"op\":\"update\",\"entity\":\"Project\",\"return\":"
                       "\"UPDATED_NEW\",\"values\":{\"orgId\":\"acme\","
                       "\"projectId\":\"p-1\",\"createdAt\":"
                       "\"2026-03-14T09:00:00Z\",\"status\":\"archived\"},"
                       "\"remove\":[\"name\"],\"now\":" NOW_TEXT "}");
  assert_string_equal(ddbst_prepared_body(u, NULL), want);
  free(want);
  ddbst_prepared_free(u);
  ddbst_json_close(s);
}

/* a segments literal and its bytes, its last NUL included */
#define SEG(text) text, sizeof text

static void update_refusals(void **state) {
  (void)state;
  ddbst_json *s = open_config(CATALOG, NULL);
  ddbst_error err;
  /* flags: a put's create, and ReturnValues that are none of the four */
  assert_null(ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product",
                                 DDBST_CREATE, &err));
  assert_string_equal(err.path, "flags");
  assert_string_equal(err.message, "flags 0x2 are not UpdateItem's");
  assert_null(ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product",
                                 DDBST_RETURN_MASK, &err));
  assert_int_equal(err.code, DDBST_EINVAL);
  assert_string_equal(err.path, "flags");
  ddbst_prepared *u =
      ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product", 0, &err);
  static const struct {
    const char *values;
    size_t len;
    int code;
    const char *path, *message;
  } cases[] = {
      {SEG("=s1\0=k1\0\0-x\0"), DDBST_EINVAL, "values",
       "segment 3 (category): '-' (REMOVE) takes no text, 1 bytes follow it"},
      {SEG("=s1\0=k1\0?3\0"), DDBST_EINVAL, "values",
       "segment 2 (name): '?' (the version expected) is for Product's "
       "version attribute only"},
      {SEG("=s1\0=k1\0*x\0"), DDBST_EINVAL, "values",
       "segment 2 (name) starts with none of '=', '-', '+', '>', '?' or NUL"},
      {SEG("=s1\0=k1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0?x\0\0"), DDBST_EINVAL,
       "values",
       "segment 16 (version): '?' takes the expected version, an integer "
       "from 1, not 'x'"},
      {SEG("=s1\0=k1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0?0\0\0"), DDBST_ERANGE,
       "values",
       "segment 16 (version): version 0 is outside 1 to INT64_MAX - 1"},
      {SEG("=s1\0=k1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0?\0\0"), DDBST_EINVAL,
       "values",
       "segment 16 (version): '?' takes the expected version, an integer "
       "from 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    /* each case's text ends after the segment at fault: it is refused
     * before the count of segments is */
    assert_int_equal(ddbst_prepared_run(u, cases[i].values, cases[i].len, 0,
                                        NULL, 0, NOW, &err),
                     cases[i].code);
    assert_string_equal(err.path, cases[i].path);
    assert_string_equal(err.message, cases[i].message);
    assert_string_equal(ddbst_prepared_body(u, NULL), "");
  }
  /* the typed API's own refusals: ADD on text, REMOVE of a key facet */
  static const char add_name[] =
      "=s1\0=k1\0+x\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
  assert_int_equal(ddbst_prepared_run(u, add_name, sizeof add_name, 0, NULL,
                                      0, NOW, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Product.name");
  static const char remove_sku[] =
      "=s1\0-\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
  assert_int_equal(ddbst_prepared_run(u, remove_sku, sizeof remove_sku, 0,
                                      NULL, 0, NOW, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Product.sku");
  assert_string_equal(ddbst_prepared_body(u, NULL), "");
  ddbst_prepared_free(u);

  /* an update's marks are refused by the other operations, by name */
  ddbst_prepared *p = ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Product", 0,
                                         &err);
  assert_int_equal(ddbst_prepared_run(p, SEG("=s1\0=k1\0\0-\0"), 0, NULL, 0,
                                      NOW, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "segment 3 (category): '-' is an update's "
                                   "mark; PutItem takes '=' or an empty "
                                   "segment");
  ddbst_prepared_free(p);
  ddbst_json_close(s);
}

/* An update that changes a unique attribute needs the previous value,
 * which segments do not carry: refused at the attribute, nothing built. */
static void update_of_a_unique_is_refused(void **state) {
  (void)state;
  ddbst_json *s = open_session(NULL);
  ddbst_error err;
  ddbst_prepared *p =
      ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "User", DDBST_UPSERT, &err);
  assert_non_null(p);
  /* User: orgId, userId, email, role, name */
  assert_int_equal(ddbst_prepared_run(p,
                                      SEG("=acme\0=u-1\0=new@example.com\0\0"),
                                      0, NULL, 0, NOW, &err),
                   DDBST_EMISSING);
  assert_string_equal(err.path, "User.email");
  /* the typed API's ddbst_item_set_previous is none of this caller's */
  assert_string_equal(err.message,
                      "changing User.email moves its unique guard email: its "
                      "previous value is needed, which a prepared update "
                      "cannot carry (the JSON entry's previous.email can)");
  size_t len = 1;
  assert_string_equal(ddbst_prepared_body(p, &len), "");
  assert_int_equal(len, 0);
  ddbst_prepared_free(p);
  ddbst_json_close(s);
}

static void refusals(void **state) {
  (void)state;
  ddbst_json *s = open_session(NULL);
  ddbst_error err;
  assert_null(ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Projet", 0, &err));
  assert_int_equal(err.code, DDBST_ENOTFOUND);
  assert_string_equal(err.path, "entity");
  assert_string_equal(err.message,
                      "the model has no entity Projet; did you mean Project?");
  assert_null(ddbst_prepared_new(s, DDBST_OP_QUERY, "listProject", 0, &err));
  assert_int_equal(err.code, DDBST_ENOTFOUND);
  assert_string_equal(err.path, "pattern");
  assert_null(ddbst_prepared_new(s, DDBST_OP_QUERY, "getUser", 0, &err));
  assert_int_equal(err.code, DDBST_EINVAL);
  assert_string_equal(err.path, "pattern");
  assert_null(ddbst_prepared_new(s, DDBST_OP_BATCH_GET_ITEM, "Project", 0,
                                 &err));
  assert_string_equal(err.path, "op");
  assert_null(ddbst_prepared_new(s, DDBST_OP_GET_ITEM, "Project",
                                 DDBST_CREATE, &err));
  assert_int_equal(err.code, DDBST_EINVAL);
  assert_string_equal(err.path, "flags");
  assert_string_equal(err.message, "flags 0x2 are not GetItem's");
  assert_null(ddbst_prepared_new(NULL, DDBST_OP_GET_ITEM, "Project", 0, &err));
  assert_string_equal(err.path, "session");
  assert_null(ddbst_prepared_new(s, DDBST_OP_GET_ITEM, NULL, 0, &err));
  assert_int_equal(ddbst_prepared_entity(NULL), DDBST_EINVAL);
  assert_int_equal(ddbst_prepared_run(NULL, NULL, 0, 0, NULL, 0, 0, &err),
                   DDBST_EINVAL);
  assert_string_equal(ddbst_prepared_body(NULL, NULL), "");

  ddbst_prepared *p =
      ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Project", 0, &err);
  /* a value the model refuses: the typed API's path; the body stays empty
   * though the run before built one */
  assert_true(ddbst_prepared_run(p, project, sizeof project, 0, NULL, 0, NOW,
                                 &err) > 0);
  static const char bad_status[] = "=acme\0=p-1\0\0\0=gone";
  assert_int_equal(ddbst_prepared_run(p, bad_status, sizeof bad_status, 0,
                                      NULL, 0, NOW, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Project.status");
  assert_string_equal(ddbst_prepared_body(p, NULL), "");
  /* only a query takes a limit or a cursor */
  assert_int_equal(ddbst_prepared_run(p, project, sizeof project, 25, NULL, 0,
                                      NOW, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "limit");
  assert_int_equal(ddbst_prepared_run(p, project, sizeof project, 0, "c", 1,
                                      NOW, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "cursor");
  /* text that is not segments */
  static const char no_mark[] = "acme\0\0\0\0\0";
  assert_int_equal(ddbst_prepared_run(p, no_mark, sizeof no_mark, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "values");
  assert_string_equal(err.message,
                      "segment 0 (orgId) starts with neither '=' nor NUL");
  /* too few: the length ends inside segment 3 */
  assert_int_equal(ddbst_prepared_run(p, project, 20, 0, NULL, 0, NOW, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message, "5 segments, each ending in NUL, "
                                   "expected; the text ends in segment 2");
  /* too many */
  static const char six[] = "=a\0=b\0\0\0\0=x";
  assert_int_equal(ddbst_prepared_run(p, six, sizeof six, 0, NULL, 0, NOW,
                                      &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "3 bytes after the 5 segments expected");
  assert_int_equal(ddbst_prepared_run(p, NULL, 3, 0, NULL, 0, NOW, &err),
                   DDBST_EINVAL);
  /* a required value missing: the builder's error */
  assert_int_equal(ddbst_prepared_run(p, NULL, 0, 0, NULL, 0, NOW, &err),
                   DDBST_EMISSING);
  /* the run after a failure starts from nothing: the last values only */
  assert_int_equal(ddbst_prepared_run(p, project, sizeof project, 0, NULL, 0,
                                      NOW, &err),
                   DDBST_OP_PUT_ITEM);
  ddbst_prepared_free(p);
  ddbst_prepared_free(NULL);
  ddbst_json_close(s);
}

static void no_allocation_once_warm(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = open_session(&ca.hooks);
  ddbst_error err;
  ddbst_prepared *p =
      ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Project", 0, &err);
  ddbst_prepared *q =
      ddbst_prepared_new(s, DDBST_OP_QUERY, "listProjects", 0, &err);
  char *cursor = first_cursor(s);
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    for (int i = 0; i < 50; i++) {
      assert_int_equal(ddbst_prepared_run(p, project, sizeof project, 0, NULL,
                                          0, NOW, &err),
                       DDBST_OP_PUT_ITEM);
      assert_int_equal(ddbst_prepared_run(q, "=acme\0\0\0\0", DDBST_NUL_TERMINATED, 25,
                                          cursor, DDBST_NUL_TERMINATED, NOW,
                                          &err),
                       DDBST_OP_QUERY);
    }
    if (round) assert_int_equal(ca.calls, before);
  }
  free(cursor);
  ddbst_prepared_free(q);
  ddbst_prepared_free(p);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);

  /* an update of scalars: SET, REMOVE, a number ADDed, the version
   * expected (set and list elements are JSON text, whose parse allocates
   * as ddbst_item_set's does) */
  static const char scalars[] =
      "=s1\0=k1\0=Hat\0-\0\0\0=19.5\0+2\0=true\0\0\0\0\0\0\0\0?3\0";
  s = open_config(CATALOG, &ca.hooks);
  ddbst_prepared *u =
      ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product", 0, &err);
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    for (int i = 0; i < 50; i++)
      assert_int_equal(ddbst_prepared_run(u, scalars, sizeof scalars, 0,
                                          NULL, 0, NOW, &err),
                       DDBST_OP_UPDATE_ITEM);
    if (round) assert_int_equal(ca.calls, before);
  }
  ddbst_prepared_free(u);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

/* Product with a value of each document type: sets of strings and of
 * numbers, a list holding a map, a map holding a list. */
static const char product_put[] =
    "=s1\0=k1\0=Hat\0=hats\0=hat\0=published\0=19.5\0=3\0=true\0"
    "=[\"sale\",\"new\"]\0=[1,2.5]\0=[\"front.png\",{\"w\":2,\"at\":[\"a\"]}]\0"
    "={\"colour\":\"red\",\"dims\":{\"w\":1,\"h\":[2,3]}}\0\0"
    "=2026-03-14T09:00:00Z\0\0\0";
#define PRODUCT_PUT_JSON                                                       \
  "{\"op\":\"put\",\"entity\":\"Product\",\"values\":{\"shopId\":\"s1\","        \
  "\"sku\":\"k1\",\"name\":\"Hat\",\"category\":\"hats\",\"slug\":\"hat\","      \
  "\"status\":\"published\",\"price\":19.5,\"stock\":3,\"featured\":true,"      \
  "\"tags\":[\"sale\",\"new\"],\"sizes\":[1,2.5],\"images\":[\"front.png\","    \
  "{\"w\":2,\"at\":[\"a\"]}],\"details\":{\"colour\":\"red\",\"dims\":{\"w\":1," \
  "\"h\":[2,3]}},\"releasedAt\":\"2026-03-14T09:00:00Z\"},\"now\":" NOW_TEXT "}"

/* Lists, maps and sets are JSON text converted when set: once warm, that
 * takes no allocation either (json/read_loop.h's local stack, the
 * converter's local records: model/json_value.c), for a put and for an
 * update's ADD to a set and append to a list. */
static void documents_allocate_nothing_once_warm(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = open_config(CATALOG, &ca.hooks);
  ddbst_error err;
  ddbst_prepared *p =
      ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Product", 0, &err);
  ddbst_prepared *u =
      ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product", 0, &err);
  assert_non_null(p);
  assert_non_null(u);
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    for (int i = 0; i < 50; i++) {
      assert_int_equal(ddbst_prepared_run(p, product_put, sizeof product_put,
                                          0, NULL, 0, NOW, &err),
                       DDBST_OP_PUT_ITEM);
      assert_int_equal(ddbst_prepared_run(u, product_update,
                                          sizeof product_update, 0, NULL, 0,
                                          NOW, &err),
                       DDBST_OP_UPDATE_ITEM);
    }
    if (round && ca.calls != before)
      fail_msg("round %d: %ld allocations in 100 runs", round,
               ca.calls - before);
  }
  /* the same body as the entry's, which reads the values as JSON */
  assert_int_equal(ddbst_prepared_run(p, product_put, sizeof product_put, 0,
                                      NULL, 0, NOW, &err),
                   DDBST_OP_PUT_ITEM);
  char *want = entry_body(s, PRODUCT_PUT_JSON);
  assert_string_equal(ddbst_prepared_body(p, NULL), want);
  free(want);
  ddbst_prepared_free(u);
  ddbst_prepared_free(p);
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

/* The packed values of Product with `tags` and `details` given. */
static size_t product_with(char *out, size_t cap, const char *tags,
                           const char *details) {
  int n = snprintf(out, cap, "=s1\1=k1\1=Hat\1\1\1\1\1\1\1=%s\1\1\1=%s\1\1\1\1\1\1",
                   tags, details);
  assert_true(n > 0 && (size_t)n < cap);
  for (int i = 0; i < n; i++)
    if (out[i] == '\1') out[i] = '\0';
  return (size_t)n;
}

/* A duplicate is refused however many elements come before it: past the
 * first 32 the converter's records move from the stack to a hash set. */
static void duplicates_past_the_local_records(void **state) {
  (void)state;
  ddbst_json *s = open_config(CATALOG, NULL);
  ddbst_error err;
  ddbst_prepared *p =
      ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Product", 0, &err);
  char tags[1024], details[1024], values[4096];
  for (int count = 2; count <= 80; count += 13) {
    size_t t = 0, d = 0;
    tags[t++] = '[';
    details[d++] = '{';
    for (int i = 0; i < count; i++) {
      t += (size_t)snprintf(tags + t, sizeof tags - t, "%s\"t%d\"",
                            i ? "," : "", i);
      d += (size_t)snprintf(details + d, sizeof details - d, "%s\"m%d\":%d",
                            i ? "," : "", i, i);
    }
    snprintf(tags + t, sizeof tags - t, "]");
    snprintf(details + d, sizeof details - d, "}");
    size_t n = product_with(values, sizeof values, tags, details);
    assert_int_equal(
        ddbst_prepared_run(p, values, n, 0, NULL, 0, NOW, &err),
        DDBST_OP_PUT_ITEM);
    /* the first element again, last */
    snprintf(tags + t, sizeof tags - t, ",\"t0\"]");
    n = product_with(values, sizeof values, tags, details);
    assert_int_equal(
        ddbst_prepared_run(p, values, n, 0, NULL, 0, NOW, &err),
        DDBST_EVALUE);
    assert_string_equal(err.path, "Product.tags");
    assert_string_equal(err.message,
                        "tags: \"t0\" is given twice in the set: DynamoDB "
                        "refuses a set with duplicate elements");
    snprintf(tags + t, sizeof tags - t, "]");
    snprintf(details + d, sizeof details - d, ",\"m0\":0}");
    n = product_with(values, sizeof values, tags, details);
    assert_int_equal(
        ddbst_prepared_run(p, values, n, 0, NULL, 0, NOW, &err),
        DDBST_EVALUE);
    assert_string_equal(err.path, "Product.details");
    assert_string_equal(err.message,
                        "details: \"m0\" is given twice in one object: a map "
                        "holds one value per name");
  }
  ddbst_prepared_free(p);
  ddbst_json_close(s);
}

static void allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = open_session(&ca.hooks);
  long base = ca.live;
  ddbst_error err;
  for (long n = 1;; n++) {
    ca.calls = 0;
    ca.fail_at = n;
    ddbst_prepared *p =
        ddbst_prepared_new(s, DDBST_OP_PUT_ITEM, "Project", 0, &err);
    int rc = p ? ddbst_prepared_run(p, project, sizeof project, 0, NULL, 0,
                                    NOW, &err)
               : err.code;
    ca.fail_at = 0;
    ddbst_prepared_free(p);
    assert_int_equal(ca.live, base);
    if (rc == DDBST_OP_PUT_ITEM) break;
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_true(n < 100);
  }
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

static void update_allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = open_config(CATALOG, &ca.hooks);
  long base = ca.live;
  ddbst_error err;
  for (long n = 1;; n++) {
    ca.calls = 0;
    ca.fail_at = n;
    ddbst_prepared *u =
        ddbst_prepared_new(s, DDBST_OP_UPDATE_ITEM, "Product", 0, &err);
    int rc = u ? ddbst_prepared_run(u, product_update, sizeof product_update,
                                    0, NULL, 0, NOW, &err)
               : err.code;
    if (rc < 0) assert_string_equal(ddbst_prepared_body(u, NULL), "");
    ca.fail_at = 0;
    ddbst_prepared_free(u);
    assert_int_equal(ca.live, base);
    if (rc == DDBST_OP_UPDATE_ITEM) break;
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_true(n < 100);
  }
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(put_is_the_entrys),
      cmocka_unit_test(query_is_the_entrys),
      cmocka_unit_test(update_is_the_entrys),
      cmocka_unit_test(update_refusals),
      cmocka_unit_test(update_of_a_unique_is_refused),
      cmocka_unit_test(refusals),
      cmocka_unit_test(no_allocation_once_warm),
      cmocka_unit_test(documents_allocate_nothing_once_warm),
      cmocka_unit_test(duplicates_past_the_local_records),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(update_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
