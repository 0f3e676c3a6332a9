/* Unique constraints, transactions and batches: the guard items written and
 * moved with the item, the limits DynamoDB puts on transactions and batches,
 * duplicates removed or refused. */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "support.h"

static ddbst_model *saas;
static ddbst_buf *out;
static const int64_t NOW = 1773478800123456LL;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(saas);
  return 0;
}

static ddbst_item *user(const char *org, const char *id, const char *email) {
  ddbst_item *it = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  set(it, "orgId", org);
  set(it, "userId", id);
  if (email) set(it, "email", email);
  return it;
}

static void assert_json(const char *body) {
  char why[128];
  yajl_val v = yajl_tree_parse(body, why, sizeof why);
  if (!v) fail_msg("not JSON (%s): %s", why, body);
  yajl_tree_free(v);
}

/* every guard here is user 2's of organisation 1, and says so */
#define GUARD_PUT(g)                                                           \
  "{\"Put\":{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"" g     \
  "\"},\"SK\":{\"S\":\"" g "\"},\"_type\":{\"S\":\"User.email\"},"             \
  "\"holderKey\":{\"M\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}}}},"    \
  "\"ConditionExpression\":\"attribute_not_exists(#n0)\","                     \
  "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}}"
#define GUARD_DELETE(g)                                                        \
  "{\"Delete\":{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"" g   \
  "\"},\"SK\":{\"S\":\"" g "\"}}}}"

static void create_claims_unique_email(void **state) {
  (void)state;
  ddbst_item *it = user("1", "2", "Ann@X.com");
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, NOW, out, NULL),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TransactItems\":[{\"Put\":{\"TableName\":\"saas-api-dev\",\"Item\":{"
      "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"GSI1PK\":{\"S\":"
      "\"EMAIL#ann@x.com\"},\"_type\":{\"S\":\"User\"},\"orgId\":{\"S\":\"1\"},"
      "\"userId\":{\"S\":\"2\"},\"email\":{\"S\":\"Ann@X.com\"}},"
      "\"ConditionExpression\":\"attribute_not_exists(#n0)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}}," GUARD_PUT(
          "EMAIL#ann@x.com") "]}");
  assert_json(ddbst_buf_data(out));
  ddbst_buf_reset(out);
  /* a plain put could not keep the guard true */
  ddbst_error err;
  assert_int_equal(ddbst_put_request(it, 0, NOW, out, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "User");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
}

/* The guard's key is taken from the GSI1 key the item's body built with
 * the same template (EMAIL#{email:lower}) only within a guard's own limit:
 * an address that makes a GSI1 partition key DynamoDB takes (up to 2048
 * bytes) but a guard longer than a sort key may be (1024) is refused, as
 * rendering the guard refuses it, and nothing is written. */
static void a_guard_past_its_limit_is_refused(void **state) {
  (void)state;
  char email[1101];
  memset(email, 'a', sizeof email - 1);
  memcpy(email + sizeof email - 7, "@x.com", 7);
  ddbst_item *it = user("1", "2", email);
  ddbst_error err;
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, NOW, out, &err),
                   DDBST_ERANGE);
  assert_string_equal(err.path, "email");
  assert_string_equal(err.message, "email would be 1106 bytes; DynamoDB "
                                   "allows 1024");
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_item_free(it);
}

static void delete_removes_guard(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_item *it = user("1", "2", NULL);
  /* the guard's key needs the email */
  assert_int_equal(ddbst_delete_request(it, 0, out, &err), DDBST_EMISSING);
  assert_int_equal(ddbst_buf_len(out), 0);
  set(it, "email", "ann@x.com");
  assert_int_equal(ddbst_delete_request(it, 0, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TransactItems\":[{\"Delete\":{\"TableName\":\"saas-api-dev\",\"Key\":"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}},"
      /* the guard deleted is this user's: the user must hold that email */
      "\"ConditionExpression\":\"#n0 = :v0\",\"ExpressionAttributeNames\":{"
      "\"#n0\":\"email\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"ann@x.com\"}}}}," GUARD_DELETE(
          "EMAIL#ann@x.com") "]}");
  ddbst_buf_reset(out);
  ddbst_item_free(it);
}

static void update_moves_guard(void **state) {
  (void)state;
  ddbst_error err;
  int email = ddbst_model_attribute(saas, 1, "email");
  ddbst_item *it = user("1", "2", "Bob@X.com");
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "User.email");
  assert_int_equal(ddbst_item_set_previous(it, email, "ann@x.com", 9, &err), 0);
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TransactItems\":[{\"Update\":{\"TableName\":\"saas-api-dev\",\"Key\":"
      "{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"}},"
      "\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1\","
      "\"ConditionExpression\":\"attribute_exists(#n2) AND #n0 = :v2\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"email\",\"#n1\":\"GSI1PK\","
      "\"#n2\":\"PK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"Bob@X.com\"},\":v1\":{\"S\":\"EMAIL#bob@x.com\"},\":v2\":{\"S\":"
      "\"ann@x.com\"}}}}," GUARD_DELETE("EMAIL#ann@x.com") "," GUARD_PUT(
          "EMAIL#bob@x.com") "]}");
  assert_json(ddbst_buf_data(out));
  ddbst_buf_reset(out);
  /* a change of letter case only keeps the same guard: a plain update */
  ddbst_item_reset(it, 1);
  set(it, "orgId", "1");
  set(it, "userId", "2");
  set(it, "email", "ANN@x.com");
  ddbst_item_set_previous(it, email, "ann@x.com", 9, &err);
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  ddbst_buf_reset(out);
  /* leaving email alone: no guard at all */
  ddbst_item_reset(it, 1);
  set(it, "orgId", "1");
  set(it, "userId", "2");
  set(it, "role", "admin");
  assert_int_equal(ddbst_update_request(it, 0, NOW, out, &err),
                   DDBST_OP_UPDATE_ITEM);
  assert_null(strstr(ddbst_buf_data(out), "EMAIL#"));
  ddbst_buf_reset(out);
  ddbst_item_free(it);
}

static void transaction(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_txn *t = ddbst_txn_new(saas);
  ddbst_item *it = user("1", "2", "a@b.c");
  assert_int_equal(ddbst_txn_put(t, it, DDBST_CREATE, NOW, &err), 0);
  assert_int_equal(ddbst_txn_count(t), 2); /* the item and its guard */
  /* the item may be reused at once */
  ddbst_item_reset(it, ddbst_model_entity(saas, "Organisation"));
  set(it, "orgId", "1");
  assert_int_equal(ddbst_txn_check(t, it, &err), 0);
  /* a second operation on one item is refused, and adds nothing */
  assert_int_equal(ddbst_txn_delete(t, it, 0, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "transaction");
  assert_int_equal(ddbst_txn_count(t), 3);
  /* reads and writes do not mix */
  assert_int_equal(ddbst_txn_get(t, it, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_txn_request(t, "retry-1", out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  const char *b = ddbst_buf_data(out);
  assert_non_null(strstr(b, GUARD_PUT("EMAIL#a@b.c") ",{\"ConditionCheck\":{"
                                                     "\"TableName\":\"saas-api-"
                                                     "dev\",\"Key\":{\"PK\":{"
                                                     "\"S\":\"ORG#1\"},\"SK\":{"
                                                     "\"S\":\"ORG#1\"}},"
                                                     "\"ConditionExpression\":"
                                                     "\"attribute_exists(#n0)\""));
  assert_non_null(strstr(b, "],\"ClientRequestToken\":\"retry-1\"}"));
  assert_json(b);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_request(t, "a token far longer than thirty-six "
                                        "characters",
                                     out, &err),
                   DDBST_EVALUE);
  /* at most 100 operations */
  ddbst_txn_reset(t);
  ddbst_item_reset(it, ddbst_model_entity(saas, "Organisation"));
  char id[16];
  for (int i = 0; i < 100; i++) {
    snprintf(id, sizeof id, "o%d", i);
    set(it, "orgId", id);
    assert_int_equal(ddbst_txn_put(t, it, 0, NOW, &err), 0);
  }
  set(it, "orgId", "one-too-many");
  assert_int_equal(ddbst_txn_put(t, it, 0, NOW, &err), DDBST_ERANGE);
  assert_int_equal(ddbst_txn_count(t), 100);
  /* reads */
  ddbst_txn_reset(t);
  assert_int_equal(ddbst_txn_get(t, it, &err), 0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_request(t, NULL, out, &err),
                   DDBST_OP_TRANSACT_GET_ITEMS);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"TransactItems\":[{\"Get\":{\"TableName\":\"saas-api-"
                      "dev\",\"Key\":{\"PK\":{\"S\":\"ORG#one-too-many\"},"
                      "\"SK\":{\"S\":\"ORG#one-too-many\"}}}}]}");
  ddbst_buf_reset(out);
  ddbst_item_free(it);
  ddbst_txn_free(t);
}

/* A key facet with a default (Project's createdAt, "now") is filled before
 * the transaction reads the item's key, as ddbst_put_request fills it: the
 * entry is the plain put's body, byte for byte. */
static void defaults_before_keys(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_item *p = ddbst_item_new(saas, ddbst_model_entity(saas, "Project"));
  set(p, "orgId", "1");
  set(p, "projectId", "p1");
  set(p, "name", "Apollo");
  ddbst_buf *alone = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(p, 0, NOW, alone, &err),
                   DDBST_OP_PUT_ITEM);
  assert_non_null(strstr(ddbst_buf_data(alone),
                         "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p1\"}"));
  ddbst_item_reset(p, ddbst_model_entity(saas, "Project"));
  set(p, "orgId", "1");
  set(p, "projectId", "p1");
  set(p, "name", "Apollo");
  ddbst_txn *t = ddbst_txn_new(saas);
  if (ddbst_txn_put(t, p, 0, NOW, &err))
    fail_msg("%s: %s", err.path, err.message);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_request(t, NULL, out, &err),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  char want[2048];
  snprintf(want, sizeof want, "{\"TransactItems\":[{\"Put\":%s}]}",
           ddbst_buf_data(alone));
  assert_string_equal(ddbst_buf_data(out), want);
  ddbst_txn_free(t);
  ddbst_buf_free(alone);
  ddbst_item_free(p);
}

/* A put in a transaction is the single put's body as a Put entry, whether
 * its entity's plan writes it (every value given) or the general writer (a
 * default filled, a condition, the item asked back on failure). */
static void puts_in_a_transaction_are_single_puts(void **state) {
  (void)state;
  static const struct {
    const char *entity;
    uint32_t flags;
    const char *cond;
  } cases[] = {{"Project", 0, NULL},
               {"Project", DDBST_CREATE, NULL},
               {"Organisation", 0, NULL},
               {"Project", 0, "attribute_not_exists(projectId) or status = "
                              "\"archived\""},
               {"Organisation", DDBST_RETURN_OLD_ON_FAILURE, "plan = \"free\""}};
  ddbst_buf *single = ddbst_buf_new(NULL);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ddbst_item *it[2];
    for (int k = 0; k < 2; k++) {
      it[k] = ddbst_item_new(saas, ddbst_model_entity(saas, cases[i].entity));
      set(it[k], "orgId", "acme");
      set(it[k], "name", "Website");
      if (!strcmp(cases[i].entity, "Project")) {
        set(it[k], "projectId", "p-1");
        set(it[k], "status", "active");
        if (i != 1) set(it[k], "createdAt", "2026-03-14T09:00:00Z");
      } else {
        set(it[k], "plan", "pro");
      }
      if (cases[i].cond)
        assert_int_equal(ddbst_item_condition_text(it[k], cases[i].cond,
                                                   DDBST_NUL_TERMINATED, NULL),
                         0);
    }
    ddbst_error err;
    assert_int_equal(ddbst_put_request(it[0], cases[i].flags, NOW, single, &err),
                     DDBST_OP_PUT_ITEM);
    ddbst_txn *t = ddbst_txn_new(saas);
    assert_int_equal(ddbst_txn_put(t, it[1], cases[i].flags, NOW, &err), 0);
    assert_int_equal(ddbst_txn_request(t, NULL, out, &err),
                     DDBST_OP_TRANSACT_WRITE_ITEMS);
    char want[2048];
    snprintf(want, sizeof want, "{\"TransactItems\":[{\"Put\":%s}]}",
             ddbst_buf_data(single));
    assert_string_equal(ddbst_buf_data(out), want);
    ddbst_txn_free(t);
    ddbst_item_free(it[0]);
    ddbst_item_free(it[1]);
  }
  ddbst_buf_free(single);
}

static void batches(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_batch *b = ddbst_batch_new(saas);
  ddbst_item *it = ddbst_item_new(saas, ddbst_model_entity(saas, "Organisation"));
  char id[16];
  /* 250 reads, each twice: duplicates dropped, three chunks */
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 250; i++) {
      snprintf(id, sizeof id, "o%d", i);
      set(it, "orgId", id);
      assert_int_equal(ddbst_batch_get(b, it, &err), round == 0 ? 1 : 0);
    }
  /* 60 writes: three chunks of at most 25 */
  for (int i = 0; i < 60; i++) {
    snprintf(id, sizeof id, "w%d", i);
    set(it, "orgId", id);
    assert_int_equal(ddbst_batch_put(b, it, NOW, &err), 0);
  }
  /* a second write of one key is refused */
  assert_int_equal(ddbst_batch_delete(b, it, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_batch_request_count(b), 6);
  int keys = 0, writes = 0;
  for (int i = 0; i < 6; i++) {
    ddbst_buf_reset(out);
    int op = ddbst_batch_request(b, i, 0, out, &err);
    assert_int_equal(op, i < 3 ? DDBST_OP_BATCH_GET_ITEM : DDBST_OP_BATCH_WRITE_ITEM);
    const char *body = ddbst_buf_data(out);
    assert_json(body);
    int n = 0;
    for (const char *p = body; (p = strstr(p, i < 3 ? "{\"PK\":" : "PutRequest")); p++)
      n++;
    int want = i < 3 ? (i < 2 ? 100 : 50) : (i < 5 ? 25 : 10);
    assert_int_equal(n, want);
    if (i < 3) keys += n; else writes += n;
  }
  assert_int_equal(keys, 250);
  assert_int_equal(writes, 60);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_batch_request(b, 6, 0, out, &err), DDBST_EINVAL);
  /* entities with unique attributes cannot be batch-written */
  ddbst_item *u = user("1", "2", "a@b.c");
  assert_int_equal(ddbst_batch_put(b, u, NOW, &err), DDBST_EINVAL);
  ddbst_item_free(u);
  /* the first chunk's exact start */
  ddbst_batch_reset(b);
  set(it, "orgId", "x");
  ddbst_batch_get(b, it, &err);
  ddbst_buf_reset(out);
  ddbst_batch_request(b, 0, DDBST_CONSISTENT_READ, out, &err);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":[{\"PK\":"
                      "{\"S\":\"ORG#x\"},\"SK\":{\"S\":\"ORG#x\"}}],"
                      "\"ConsistentRead\":true}}}");
  ddbst_buf_reset(out);
  ddbst_item_free(it);
  ddbst_batch_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_claims_unique_email),
      cmocka_unit_test(a_guard_past_its_limit_is_refused),
      cmocka_unit_test(delete_removes_guard),
      cmocka_unit_test(update_moves_guard),
      cmocka_unit_test(transaction),
      cmocka_unit_test(defaults_before_keys),
      cmocka_unit_test(puts_in_a_transaction_are_single_puts),
      cmocka_unit_test(batches),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
