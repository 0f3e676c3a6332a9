/* ddbst_migration_*: the plan of each pair of tests/evolve models, the
 * exact write each kind of stored item gets (backfill, cleanup, rewrite in
 * place, a move to a new key, guards), what is skipped, refused or
 * foreign, and bad input. The run against DynamoDB Local is
 * tests/integration/test_migrate.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

typedef struct fixture {
  ddbst_model *old, *nw;
  ddbst_migration *m;
  ddbst_scan *scan;
  ddbst_page *page;
  ddbst_buf *out;
} fixture;

static void open_pair(fixture *f, const char *pair, uint32_t flags) {
  char a[128], b[128];
  snprintf(a, sizeof a, "tests/evolve/%s.old.json", pair);
  snprintf(b, sizeof b, "tests/evolve/%s.new.json", pair);
  f->old = load_example(a);
  f->nw = load_example(b);
  ddbst_error err;
  int rc = ddbst_migration_new(f->old, f->nw, flags, &f->m, &err);
  if (rc) fail_msg("%s: %s", err.path, err.message);
  f->scan = ddbst_scan_new(f->nw);
  f->page = ddbst_page_new(f->nw);
  f->out = ddbst_buf_new(NULL);
}

static void close_pair(fixture *f) {
  ddbst_migration_free(f->m);
  ddbst_scan_free(f->scan);
  ddbst_page_free(f->page);
  ddbst_buf_free(f->out);
  ddbst_model_free(f->old);
  ddbst_model_free(f->nw);
}

/* A Scan page of `items` (AttributeValue maps, comma-separated), given to
 * the migration. */
static void give_page(fixture *f, const char *items) {
  ddbst_error err;
  assert_int_equal(ddbst_scan_request(f->scan, DDBST_CONSISTENT_READ, 0, NULL,
                                      0, NULL, DDBST_NOW, f->out, &err),
                   DDBST_OP_SCAN);
  size_t n = strlen(items) + 64;
  char *answer = malloc(n);
  snprintf(answer, n, "{\"Items\":[%s],\"Count\":1,\"ScannedCount\":1}",
           items);
  int count = ddbst_page_parse_scan(f->page, f->scan, answer, strlen(answer),
                                    &err);
  free(answer);
  if (count < 0) fail_msg("%s: %s", err.path, err.message);
  assert_int_equal(ddbst_migration_page(f->m, f->page, &err), count);
}

/* The next item's outcome must be `want`, with `body` in out (or the
 * report). */
static void expect_next(fixture *f, int want, int want_op, const char *body) {
  int op = -1;
  ddbst_error err;
  int rc = ddbst_migration_next(f->m, &op, f->out, &err);
  if (rc < 0) fail_msg("%d %s: %s", rc, err.path, err.message);
  assert_int_equal(rc, want);
  assert_int_equal(op, want_op);
  assert_string_equal(ddbst_buf_data(f->out), body);
}

#define AUTHOR_A1                                                              \
  "{\"PK\":{\"S\":\"AUTHOR#a1\"},\"SK\":{\"S\":\"AUTHOR#a1\"},\"_type\":{"    \
  "\"S\":\"Author\"},\"authorId\":{\"S\":\"a1\"},\"email\":{\"S\":"            \
  "\"ann@x.com\"},\"name\":{\"S\":\"Ann\"}}"
#define AUTHOR_A2                                                              \
  "{\"PK\":{\"S\":\"AUTHOR#a2\"},\"SK\":{\"S\":\"AUTHOR#a2\"},\"_type\":{"    \
  "\"S\":\"Author\"},\"authorId\":{\"S\":\"a2\"},\"name\":{\"S\":\"Bob\"},"   \
  "\"role\":{\"S\":\"editor\"}}"
#define POST_P1                                                                \
  "{\"PK\":{\"S\":\"AUTHOR#a1\"},\"SK\":{\"S\":"                               \
  "\"POST#2026-01-02T03:04:05Z#p1\"},\"_type\":{\"S\":\"Post\"},"              \
  "\"authorId\":{\"S\":\"a1\"},\"postId\":{\"S\":\"p1\"},\"publishedAt\":{"   \
  "\"S\":\"2026-01-02T03:04:05Z\"},\"status\":{\"S\":\"published\"},"         \
  "\"title\":{\"S\":\"Hi\"},\"views\":{\"N\":\"3\"},\"GSI1PK\":{\"S\":"       \
  "\"STATUS#published\"},\"GSI1SK\":{\"S\":\"2026-01-02T03:04:05Z#p1\"}}"

/* A new index and a new default: the plan creates the index first; an
 * author with an email gets GSI2PK and the default role in one update,
 * conditional on every attribute as read and on what it sets being absent;
 * one with no email and a role already is skipped. */
static void backfill(void **state) {
  (void)state;
  fixture f;
  open_pair(&f, "backfill-index", 0);
  ddbst_error err;
  assert_int_equal(ddbst_migration_step_count(f.m), 3);
  const char *ix;
  assert_int_equal(ddbst_migration_step(f.m, 0, &ix), DDBST_STEP_ADD_INDEX);
  assert_string_equal(ix, "GSI2");
  assert_int_equal(ddbst_migration_step(f.m, 1, &ix), DDBST_STEP_SCAN);
  assert_null(ix);
  assert_int_equal(ddbst_migration_step(f.m, 2, NULL), DDBST_STEP_VERIFY);
  assert_int_equal(ddbst_migration_step(f.m, 3, NULL), DDBST_EINVAL);
  assert_int_equal(ddbst_migration_step_request(f.m, 0, f.out, &err),
                   DDBST_OP_UPDATE_TABLE);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"TableName\":\"blog-dev\",\"AttributeDefinitions\":[{"
      "\"AttributeName\":\"GSI2PK\",\"AttributeType\":\"S\"}],"
      "\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"GSI2\","
      "\"KeySchema\":[{\"AttributeName\":\"GSI2PK\",\"KeyType\":\"HASH\"}],"
      "\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"}}}]}");
  assert_int_equal(ddbst_migration_step_request(f.m, 1, f.out, &err), 0);
  assert_string_equal(ddbst_buf_data(f.out), "");

  give_page(&f, AUTHOR_A1 "," AUTHOR_A2);
  expect_next(
      &f, DDBST_MIGRATE_WRITE, DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"blog-dev\",\"Key\":{\"PK\":{\"S\":\"AUTHOR#a1\"},"
      "\"SK\":{\"S\":\"AUTHOR#a1\"}},\"UpdateExpression\":\"SET #n0 = :v0, "
      "#n1 = :v1\",\"ConditionExpression\":\"attribute_exists(#n2) AND #n3 = "
      ":v2 AND #n4 = :v3 AND #n5 = :v4 AND #n6 = :v5 AND "
      "attribute_not_exists(#n0) AND attribute_not_exists(#n1)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"GSI2PK\",\"#n1\":\"role\","
      "\"#n2\":\"PK\",\"#n3\":\"_type\",\"#n4\":\"authorId\",\"#n5\":"
      "\"email\",\"#n6\":\"name\"},\"ExpressionAttributeValues\":{\":v0\":{"
      "\"S\":\"EMAIL#ann@x.com\"},\":v1\":{\"S\":\"writer\"},\":v2\":{\"S\":"
      "\"Author\"},\":v3\":{\"S\":\"a1\"},\":v4\":{\"S\":\"ann@x.com\"},"
      "\":v5\":{\"S\":\"Ann\"}}}");
  assert_int_equal(ddbst_migration_item_index(f.m), 0);
  expect_next(&f, DDBST_MIGRATE_SKIP, 0, "");
  assert_int_equal(ddbst_migration_item_index(f.m), 1);
  expect_next(&f, 0, 0, "");

  /* verify names each problem by the item's key */
  assert_int_equal(ddbst_migration_verify(f.m, f.page, f.out, &err), 2);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"key\":{\"PK\":\"AUTHOR#a1\",\"SK\":\"AUTHOR#a1\"},\"entity\":"
      "\"Author\",\"problem\":\"GSI2PK is missing: the new model writes "
      "EMAIL#ann@x.com\"}\n{\"key\":{\"PK\":\"AUTHOR#a1\",\"SK\":"
      "\"AUTHOR#a1\"},\"entity\":\"Author\",\"problem\":\"role is missing: "
      "the new model writes writer (its default)\"}\n");
  close_pair(&f);
}

/* A removed index and attribute: the stale attributes are removed, and
 * the index is deleted last. */
static void cleanup(void **state) {
  (void)state;
  fixture f;
  open_pair(&f, "cleanup", 0);
  ddbst_error err;
  assert_int_equal(ddbst_migration_plan(f.m, DDBST_DIFF_TEXT, f.out, &err), 0);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "1. scan the table (parallel segments, consistent reads); send the "
      "writes ddbst_migration_next gives for every page (the writer protocol "
      "in force)\n     cleanup table.indexes.GSI1\n     cleanup "
      "entities.Post.attributes.views\n2. scan the table again: "
      "ddbst_migration_verify finds no problem\n3. UpdateTable: delete index "
      "GSI1\n");
  assert_int_equal(ddbst_migration_plan(f.m, 0, f.out, &err), 0);
  assert_string_equal(
      ddbst_buf_data(f.out),
      "{\"table\":\"blog-dev\",\"worst\":\"cleanup\",\"steps\":[{\"step\":"
      "\"scan\",\"work\":[{\"class\":\"cleanup\",\"what\":"
      "\"table.indexes.GSI1\",\"reason\":\"the index GSI1 is removed: delete "
      "it with UpdateTable (ddbst_update_table_remove_index_request); GSI1PK "
      "and GSI1SK stay on items until removed\"},{\"class\":\"cleanup\","
      "\"what\":\"entities.Post.attributes.views\",\"reason\":\"views of "
      "Post is removed: its values stay on items already stored until "
      "removed (an UpdateItem REMOVE per item)\"}]},{\"step\":\"verify\"},{"
      "\"step\":\"removeIndex\",\"index\":\"GSI1\",\"request\":{"
      "\"operation\":\"UpdateTable\",\"body\":{\"TableName\":\"blog-dev\","
      "\"GlobalSecondaryIndexUpdates\":[{\"Delete\":{\"IndexName\":\"GSI1\"}"
      "}]}}}],\"notes\":[]}");
  give_page(&f, POST_P1);
  expect_next(
      &f, DDBST_MIGRATE_WRITE, DDBST_OP_UPDATE_ITEM,
      "{\"TableName\":\"blog-dev\",\"Key\":{\"PK\":{\"S\":\"AUTHOR#a1\"},"
      "\"SK\":{\"S\":\"POST#2026-01-02T03:04:05Z#p1\"}},\"UpdateExpression\":"
      "\"REMOVE #n0, #n1, #n2\",\"ConditionExpression\":\"attribute_exists(#"
      "n3) AND #n4 = :v0 AND #n5 = :v1 AND #n6 = :v2 AND #n7 = :v3 AND #n8 = "
      ":v4 AND #n9 = :v5 AND #n0 = :v6 AND #n1 = :v7 AND #n2 = :v8\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"views\",\"#n1\":\"GSI1PK\","
      "\"#n2\":\"GSI1SK\",\"#n3\":\"PK\",\"#n4\":\"_type\",\"#n5\":"
      "\"authorId\",\"#n6\":\"postId\",\"#n7\":\"publishedAt\",\"#n8\":"
      "\"status\",\"#n9\":\"title\"},\"ExpressionAttributeValues\":{\":v0\":{"
      "\"S\":\"Post\"},\":v1\":{\"S\":\"a1\"},\":v2\":{\"S\":\"p1\"},\":v3\":{"
      "\"S\":\"2026-01-02T03:04:05Z\"},\":v4\":{\"S\":\"published\"},\":v5\":"
      "{\"S\":\"Hi\"},\":v6\":{\"N\":\"3\"},\":v7\":{\"S\":"
      "\"STATUS#published\"},\":v8\":{\"S\":\"2026-01-02T03:04:05Z#p1\"}}}");
  close_pair(&f);
}

/* A changed primary key: Put under the new key (free), Delete of the old
 * (as read), one transaction; an attribute neither model declares goes
 * along as it was; items of no entity are reported, never written. */
static void rewrite_moves(void **state) {
  (void)state;
  fixture f;
  open_pair(&f, "rewrite-key", 0);
  give_page(&f,
            "{\"PK\":{\"S\":\"AUTHOR#a1\"},\"SK\":{\"S\":\"AUTHOR#a1\"},"
            "\"_type\":{\"S\":\"Author\"},\"authorId\":{\"S\":\"a1\"},"
            "\"name\":{\"S\":\"Ann\"},\"legacy\":{\"M\":{\"x\":{\"N\":\"1\"}}}"
            "},{\"PK\":{\"S\":\"X\"},\"SK\":{\"S\":\"Y\"},\"_type\":{\"S\":"
            "\"Invoice\"}}");
  assert_int_equal(ddbst_migration_moves(f.m, "Author"), 1);
  assert_int_equal(ddbst_migration_moves(f.m, "Nobody"), DDBST_ENOTFOUND);
  expect_next(
      &f, DDBST_MIGRATE_WRITE, DDBST_OP_TRANSACT_WRITE_ITEMS,
      "{\"TransactItems\":[{\"Put\":{\"TableName\":\"blog-dev\",\"Item\":{"
      "\"PK\":{\"S\":\"A#a1\"},\"SK\":{\"S\":\"A#a1\"},\"_type\":{\"S\":"
      "\"Author\"},\"authorId\":{\"S\":\"a1\"},\"name\":{\"S\":\"Ann\"},"
      "\"legacy\":{\"M\":{\"x\":{\"N\":\"1\"}}}},\"ConditionExpression\":"
      "\"attribute_not_exists(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\"}}},{\"Delete\":{\"TableName\":\"blog-dev\",\"Key\":{\"PK\":{"
      "\"S\":\"AUTHOR#a1\"},\"SK\":{\"S\":\"AUTHOR#a1\"}},"
      "\"ConditionExpression\":\"attribute_exists(#n0) AND #n1 = :v0 AND #n2 "
      "= :v1 AND #n3 = :v2 AND #n4 = :v3 AND attribute_not_exists(#n5)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"PK\",\"#n1\":\"_type\",\"#n2\":"
      "\"authorId\",\"#n3\":\"name\",\"#n4\":\"legacy\",\"#n5\":\"email\"},"
      "\"ExpressionAttributeValues\":{\":v0\":{\"S\":\"Author\"},\":v1\":{"
      "\"S\":\"a1\"},\":v2\":{\"S\":\"Ann\"},\":v3\":{\"M\":{\"x\":{\"N\":"
      "\"1\"}}}}}}]}");
  expect_next(&f, DDBST_MIGRATE_FOREIGN, 0,
              "{\"key\":{\"PK\":\"X\",\"SK\":\"Y\"},\"entity\":null,"
              "\"reason\":\"its entity attribute names Invoice, an entity of "
              "neither model\"}");
  expect_next(&f, 0, 0, "");

  /* the moved item, as the pass wrote it, is skipped: a run again does
   * nothing */
  give_page(&f, "{\"PK\":{\"S\":\"A#a1\"},\"SK\":{\"S\":\"A#a1\"},\"_type\":{"
                "\"S\":\"Author\"},\"authorId\":{\"S\":\"a1\"},\"name\":{"
                "\"S\":\"Ann\"}}");
  expect_next(&f, DDBST_MIGRATE_SKIP, 0, "");
  close_pair(&f);
}

/* Changes no migration may take: impossible ones, unsafe ones without the
 * flag, models of two tables. */
static void refusals(void **state) {
  (void)state;
  const char *pairs[] = {"impossible-lsi", "impossible-key", "unsafe",
                         "delimiter"};
  const char *paths[] = {"table.localIndexes.LSI1", "table.partitionKey",
                         "entities.Author.unique.email", "table.delimiter"};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char a[128], b[128];
    snprintf(a, sizeof a, "tests/evolve/%s.old.json", pairs[i]);
    snprintf(b, sizeof b, "tests/evolve/%s.new.json", pairs[i]);
    ddbst_model *o = load_example(a), *n = load_example(b);
    ddbst_migration *m = (ddbst_migration *)1;
    ddbst_error err;
    assert_int_equal(ddbst_migration_new(o, n, 0, &m, &err), DDBST_EINVAL);
    assert_null(m);
    assert_string_equal(err.path, paths[i]);
    ddbst_model_free(o);
    ddbst_model_free(n);
  }
  ddbst_model *o = load_example("tests/evolve/unsafe.old.json");
  ddbst_model *n = load_example("tests/evolve/unsafe.new.json");
  ddbst_migration *m;
  ddbst_error err;
  assert_int_equal(ddbst_migration_new(o, n, 0, &m, &err), DDBST_EINVAL);
  assert_string_equal(
      err.message,
      "unsafe (accept it with --unsafe, \"unsafe\": true or "
      "DDBST_MIGRATE_UNSAFE); check first: "
      "no two items of Author already stored share EMAIL#{email:lower}; then "
      "write a guard item for each");
  assert_int_equal(ddbst_migration_new(o, n, DDBST_MIGRATE_UNSAFE, &m, &err),
                   0);
  ddbst_migration_free(m);
  assert_int_equal(ddbst_migration_new(o, n, 0x80, &m, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "flags");
  assert_int_equal(ddbst_migration_new(NULL, n, 0, &m, &err), DDBST_EINVAL);
  ddbst_model *saas = load_example("examples/saas/model.json");
  assert_int_equal(ddbst_migration_new(o, saas, 0, &m, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "table.name");
  assert_string_equal(err.message,
                      "the models are of different tables (blog-dev and "
                      "saas-api-dev): a migration carries one table's items "
                      "from a model to the next");
  ddbst_model_free(saas);
  ddbst_model_free(o);
  ddbst_model_free(n);
}

/* The JSON entry's ops on a session of the new model: the plan, a page's
 * steps, verify, and what they refuse. */
static char *call(ddbst_json *s, const char *req) {
  return ddbst_json_call(s, req, strlen(req), NULL);
}

static void json_entry(void **state) {
  (void)state;
  char cfg[256];
  snprintf(cfg, sizeof cfg, "{\"modelFile\":\"%s/tests/evolve/cleanup.new.json\"}",
           DDBST_SOURCE_DIR);
  char *err = NULL;
  ddbst_json *s = ddbst_json_open(cfg, strlen(cfg), NULL, &err);
  if (!s) fail_msg("%s", err);
  char req[4096];
  snprintf(req, sizeof req,
           "{\"op\":\"migratePlan\",\"oldFile\":\"%s/tests/evolve/"
           "cleanup.old.json\",\"format\":\"text\"}",
           DDBST_SOURCE_DIR);
  char *a = call(s, req);
  assert_non_null(strstr(a, "{\"text\":\"1. scan the table"));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateStep\",\"oldFile\":\"%s/tests/evolve/"
           "cleanup.old.json\",\"response\":\"{\\\"Items\\\":[{"
           "\\\"PK\\\":{\\\"S\\\":\\\"AUTHOR#a1\\\"},\\\"SK\\\":{"
           "\\\"S\\\":\\\"AUTHOR#a1\\\"},\\\"_type\\\":{\\\"S\\\":"
           "\\\"Author\\\"},\\\"authorId\\\":{\\\"S\\\":\\\"a1\\\"}}]}\"}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_string_equal(a, "{\"items\":[{\"index\":0,\"outcome\":\"skip\"}],"
                         "\"writes\":0,\"skipped\":1,\"guards\":0,"
                         "\"refused\":0,\"foreign\":0}");
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateVerify\",\"oldFile\":\"%s/tests/evolve/"
           "cleanup.old.json\",\"response\":\"{\\\"Items\\\":[]}\"}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_string_equal(a, "{\"problems\":[],\"count\":0}");
  ddbst_json_free(a);
  /* refusals */
  a = call(s, "{\"op\":\"migratePlan\"}");
  assert_non_null(strstr(a, "\"path\":\"oldFile\",\"message\":\"a migration "
                            "needs the older model"));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateStep\",\"oldFile\":\"%s/tests/evolve/"
           "cleanup.old.json\"}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_non_null(strstr(a, "\"path\":\"response\""));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migrateStep\",\"oldFile\":\"%s/tests/evolve/"
           "cleanup.old.json\",\"response\":\"{\\\"Items\\\":7}\"}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_non_null(strstr(a, "\"error\":{\"code\":-5"));
  assert_non_null(strstr(a, "\"path\":\"response.Items\""));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migratePlan\",\"oldFile\":\"%s/examples/saas/"
           "model.json\",\"unsafe\":true,\"colour\":1}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_non_null(strstr(a, "colour"));
  ddbst_json_free(a);
  snprintf(req, sizeof req,
           "{\"op\":\"migratePlan\",\"oldFile\":\"%s/examples/saas/"
           "model.json\"}",
           DDBST_SOURCE_DIR);
  a = call(s, req);
  assert_non_null(strstr(a, "\"path\":\"table.name\""));
  ddbst_json_free(a);
  ddbst_json_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(backfill),
      cmocka_unit_test(cleanup),
      cmocka_unit_test(rewrite_moves),
      cmocka_unit_test(refusals),
      cmocka_unit_test(json_entry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
