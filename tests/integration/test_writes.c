/* Writes beyond one item, against DynamoDB Local, every one read back:
 *  - unique constraints: User.email kept unique by guard items
 *    (EMAIL#{email:lower}) written, moved and deleted in the same
 *    TransactWriteItems as the user;
 *  - batches: BatchWriteItem in chunks of 25 and BatchGetItem in chunks of
 *    100 (duplicate keys dropped), UnprocessedItems/Keys sent again;
 *  - transactions of several items: ConditionCheck, ClientRequestToken,
 *    cancellation that applies nothing, TransactGetItems in order.
 * Tables hold exactly the items asserted: a Scan of the whole table proves
 * that a refused write left nothing behind, guard items included. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_gen.h>

#include "fixture.h"

/* ---- JSON ---- */

static yajl_val get_path(yajl_val v, const char *a, const char *b,
                         const char *c) {
  const char *path[] = {a, b, c, NULL};
  return v ? yajl_tree_get(v, path, yajl_t_any) : NULL;
}

static size_t array_len(yajl_val v) {
  return YAJL_IS_ARRAY(v) ? v->u.array.len : 0;
}

static size_t object_len(yajl_val v) {
  return YAJL_IS_OBJECT(v) ? v->u.object.len : 0;
}

static void gen_tree(yajl_gen g, yajl_val v) {
  yajl_gen_status s = yajl_gen_status_ok;
  if (!v) fail_msg("%s", "no JSON value to write");
  switch (v->type) {
    case yajl_t_string:
      s = yajl_gen_string(g, (const unsigned char *)v->u.string,
                          strlen(v->u.string));
      break;
    case yajl_t_number: /* the text as DynamoDB wrote it */
      s = yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r));
      break;
    case yajl_t_object:
      s = yajl_gen_map_open(g);
      for (size_t i = 0; s == yajl_gen_status_ok && i < v->u.object.len; i++) {
        const char *k = v->u.object.keys[i];
        s = yajl_gen_string(g, (const unsigned char *)k, strlen(k));
        gen_tree(g, v->u.object.values[i]);
      }
      if (s == yajl_gen_status_ok) s = yajl_gen_map_close(g);
      break;
    case yajl_t_array:
      s = yajl_gen_array_open(g);
      for (size_t i = 0; s == yajl_gen_status_ok && i < v->u.array.len; i++)
        gen_tree(g, v->u.array.values[i]);
      if (s == yajl_gen_status_ok) s = yajl_gen_array_close(g);
      break;
    case yajl_t_true:
    case yajl_t_false:
      s = yajl_gen_bool(g, v->type == yajl_t_true);
      break;
    case yajl_t_null:
      s = yajl_gen_null(g);
      break;
    default:
      fail_msg("%s", "unknown JSON value");
  }
  if (s != yajl_gen_status_ok) fail_msg("yajl_gen failed (%d)", (int)s);
}

static void gen_str(yajl_gen g, const char *s) {
  if (yajl_gen_string(g, (const unsigned char *)s, strlen(s)) !=
      yajl_gen_status_ok)
    fail_msg("%s", "yajl_gen_string failed");
}

/* The generator's text, copied (free it), and the generator freed. */
static char *gen_finish(yajl_gen g) {
  const unsigned char *text;
  size_t len;
  if (yajl_gen_get_buf(g, &text, &len) != yajl_gen_status_ok)
    fail_msg("%s", "yajl_gen_get_buf failed");
  char *copy = malloc(len + 1);
  if (!copy) fail_msg("%s", "out of memory");
  memcpy(copy, text, len);
  copy[len] = '\0';
  yajl_gen_free(g);
  return copy;
}

/* ---- reads the library has no builder for ---- */

/* GetItem (consistent) of the item with PK `pk` and SK `sk`: guard items
 * belong to no entity, so no ddbst builder reads them. The Item or NULL. */
static yajl_val get_key(itest_fixture *f, const char *pk, const char *sk) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (!g) fail_msg("%s", "out of memory");
  yajl_gen_map_open(g);
  gen_str(g, "TableName");
  gen_str(g, f->table);
  gen_str(g, "Key");
  yajl_gen_map_open(g);
  gen_str(g, "PK");
  yajl_gen_map_open(g);
  gen_str(g, "S");
  gen_str(g, pk);
  yajl_gen_map_close(g);
  gen_str(g, "SK");
  yajl_gen_map_open(g);
  gen_str(g, "S");
  gen_str(g, sk);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  gen_str(g, "ConsistentRead");
  yajl_gen_bool(g, 1);
  yajl_gen_map_close(g);
  char *body = gen_finish(g);
  long status = itest_send_json(f, "GetItem", body);
  if (status != 200)
    fail_msg("GetItem: HTTP %ld: %s\nrequest: %s", status,
             itest_client_body(f->client), body);
  free(body);
  yajl_val item = get_path(f->response, "Item", NULL, NULL);
  return YAJL_IS_OBJECT(item) ? item : NULL;
}

/* The guard of email `lower` exists and is exactly a guard: its key (the
 * same text as PK and SK), whose it is, and the key of the user that holds
 * it (organisation `org`, user `user`), which a GetItem finds. */
static void expect_guard(itest_fixture *f, const char *lower, const char *org,
                         const char *user) {
  char key[256], hpk[64], hsk[64];
  snprintf(key, sizeof key, "EMAIL#%s", lower);
  snprintf(hpk, sizeof hpk, "ORG#%s", org);
  snprintf(hsk, sizeof hsk, "USER#%s", user);
  yajl_val guard = get_key(f, key, key);
  if (!guard) fail_msg("the guard %s is missing", key);
  itest_expect_attributes(f, guard, "PK SK _type holderKey");
  itest_expect_s(guard, "PK", key);
  itest_expect_s(guard, "SK", key);
  itest_expect_s(guard, "_type", "User.email");
  const char *pk_at[] = {"holderKey", "M", "PK", "S", NULL};
  const char *sk_at[] = {"holderKey", "M", "SK", "S", NULL};
  const char *p = YAJL_GET_STRING(yajl_tree_get(guard, pk_at, yajl_t_string));
  const char *s = YAJL_GET_STRING(yajl_tree_get(guard, sk_at, yajl_t_string));
  if (!p || !s || strcmp(p, hpk) || strcmp(s, hsk))
    fail_msg("the guard %s names another holder than %s %s", key, hpk, hsk);
  /* and the holder is there, holding this email */
  yajl_val holder = get_key(f, hpk, hsk);
  if (!holder) fail_msg("the holder %s %s of guard %s is missing", hpk, hsk, key);
  const char *held = itest_s(holder, "GSI1PK");
  if (!held || strcmp(held, key))
    fail_msg("the holder %s %s has %s, not %s", hpk, hsk, held ? held : "-",
             key);
}

static void expect_no_guard(itest_fixture *f, const char *lower) {
  char key[256];
  snprintf(key, sizeof key, "EMAIL#%s", lower);
  if (get_key(f, key, key)) fail_msg("the guard %s should not exist", key);
}

/* ---- the whole table ---- */

static int by_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Space-separated words, sorted, into out. */
static void sorted_words(char *const *words, size_t n, char *out,
                         size_t cap) {
  char **copy = calloc(n ? n : 1, sizeof *copy);
  if (!copy) fail_msg("%s", "out of memory");
  memcpy(copy, words, n * sizeof *copy);
  qsort(copy, n, sizeof *copy, by_string);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    int w = snprintf(out + len, cap - len, "%s%s", i ? " " : "", copy[i]);
    if (w < 0 || (size_t)w >= cap - len) fail_msg("%s", "too many items");
    len += (size_t)w;
  }
  free(copy);
}

/* The table holds exactly the items whose "PK|SK" are the space-separated
 * `expected` (in any order): nothing more, nothing less. */
static void expect_table(itest_fixture *f, const char *expected,
                         const char *what) {
  enum { MAX = 128 };
  static char want_text[8192], got_text[8192], copy[8192], keys[MAX][300];
  char *words[MAX];
  size_t n = 0;
  snprintf(copy, sizeof copy, "%s", expected);
  for (char *save = NULL, *t = strtok_r(copy, " ", &save); t;
       t = strtok_r(NULL, " ", &save)) {
    if (n == MAX) fail_msg("%s", "too many expected items");
    words[n++] = t;
  }
  sorted_words(words, n, want_text, sizeof want_text);

  yajl_val items = itest_scan_table(f);
  n = 0;
  for (size_t i = 0; i < array_len(items); i++) {
    if (n == MAX) fail_msg("%s", "too many items in the table");
    yajl_val it = items->u.array.values[i];
    const char *pk = itest_s(it, "PK"), *sk = itest_s(it, "SK");
    snprintf(keys[n], sizeof keys[n], "%s|%s", pk ? pk : "?", sk ? sk : "?");
    words[n] = keys[n];
    n++;
  }
  sorted_words(words, n, got_text, sizeof got_text);
  if (strcmp(want_text, got_text))
    fail_msg("%s: the table\n  expected: [%s]\n  got:      [%s]", what,
             want_text, got_text);
}

/* ---- transactions: what was sent, and why it was cancelled ---- */

/* Entry `i` of the TransactItems of the body just built must be a `kind`
 * ("Put", "Update", "Delete", "ConditionCheck") of the item `pk`/`sk`. */
static void expect_entry(itest_fixture *f, size_t i, const char *kind,
                         const char *pk, const char *sk) {
  char why[128];
  yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), why, sizeof why);
  if (!body) fail_msg("the body is not JSON: %s", why);
  yajl_val items = get_path(body, "TransactItems", NULL, NULL);
  if (i >= array_len(items))
    fail_msg("TransactItems has no entry %zu: %s", i, ddbst_buf_data(f->body));
  yajl_val e = get_path(items->u.array.values[i], kind, NULL, NULL);
  const char *where = !strcmp(kind, "Put") ? "Item" : "Key";
  const char *gpk = YAJL_GET_STRING(get_path(e, where, "PK", "S"));
  const char *gsk = YAJL_GET_STRING(get_path(e, where, "SK", "S"));
  if (!gpk || !gsk || strcmp(gpk, pk) || strcmp(gsk, sk))
    fail_msg("TransactItems[%zu] should be a %s of %s|%s: %s", i, kind, pk, sk,
             ddbst_buf_data(f->body));
  yajl_tree_free(body);
}

static size_t body_entries(itest_fixture *f) {
  yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  size_t n = array_len(get_path(body, "TransactItems", NULL, NULL));
  yajl_tree_free(body);
  return n;
}

/* The Code of each CancellationReason of the last answer, in order,
 * space-separated ("None ConditionalCheckFailed"). */
static const char *reason_codes(itest_fixture *f) {
  static char text[512];
  size_t len = 0;
  text[0] = '\0';
  yajl_val reasons = get_path(f->response, "CancellationReasons", NULL, NULL);
  for (size_t i = 0; i < array_len(reasons); i++) {
    const char *code = YAJL_GET_STRING(
        get_path(reasons->u.array.values[i], "Code", NULL, NULL));
    int w = snprintf(text + len, sizeof text - len, "%s%s", i ? " " : "",
                     code ? code : "?");
    if (w < 0 || (size_t)w >= sizeof text - len) break;
    len += (size_t)w;
  }
  return text;
}

static void expect_reasons(itest_fixture *f, const char *expected) {
  const char *got = reason_codes(f);
  if (strcmp(got, expected))
    fail_msg("CancellationReasons\n  expected: [%s]\n  got:      [%s]\n"
             "  answer:   %s\n  request:  %s",
             expected, got, itest_client_body(f->client),
             ddbst_buf_data(f->body));
}

/* ---- users ---- */

static void set_previous(itest_fixture *f, const char *name,
                         const char *value) {
  ddbst_error err;
  if (ddbst_item_set_previous(f->item, itest_attr(f, name), value,
                              strlen(value), &err))
    fail_msg("set_previous %s: %s", name, err.message);
}

/* The user org/user is exactly: its keys, GSI1PK from the lower-cased
 * email, the email as written, its name and role. */
static void expect_user(itest_fixture *f, const char *org, const char *user,
                        const char *email, const char *lower,
                        const char *name, const char *role) {
  char o[64], u[64], pk[64], sk[64], gsi[256];
  snprintf(o, sizeof o, "orgId=%s", org);
  snprintf(u, sizeof u, "userId=%s", user);
  snprintf(pk, sizeof pk, "ORG#%s", org);
  snprintf(sk, sizeof sk, "USER#%s", user);
  snprintf(gsi, sizeof gsi, "EMAIL#%s", lower);
  ITEST_VALUES(f, "User", o, u);
  yajl_val it = itest_get(f);
  if (!it) fail_msg("the user %s/%s is missing", org, user);
  itest_expect_attributes(f, it,
                          "PK SK GSI1PK _type orgId userId email role name");
  itest_expect_s(it, "PK", pk);
  itest_expect_s(it, "SK", sk);
  itest_expect_s(it, "GSI1PK", gsi);
  itest_expect_s(it, "_type", "User");
  itest_expect_s(it, "orgId", org);
  itest_expect_s(it, "userId", user);
  itest_expect_s(it, "email", email);
  itest_expect_s(it, "name", name);
  itest_expect_s(it, "role", role);
}

static void expect_no_user(itest_fixture *f, const char *org,
                           const char *user) {
  char o[64], u[64];
  snprintf(o, sizeof o, "orgId=%s", org);
  snprintf(u, sizeof u, "userId=%s", user);
  ITEST_VALUES(f, "User", o, u);
  if (itest_get(f)) fail_msg("the user %s/%s should not exist", org, user);
}

/* userByEmail finds exactly the users whose SKs are `expected`. */
static void expect_by_email(itest_fixture *f, const char *email,
                            const char *expected) {
  char e[256], what[300];
  snprintf(e, sizeof e, "email=%s", email);
  snprintf(what, sizeof what, "userByEmail %s", email);
  ITEST_VALUES(f, "User", e);
  itest_expect(f, itest_query(f, "userByEmail", NULL), "SK", expected, what);
}

/* ==== 1. uniqueness: one table, the steps in order ==== */

#define A_ITEM "ORG#o1|USER#a"
#define B_ITEM "ORG#o2|USER#b"
#define C_ITEM "ORG#o1|USER#c"
#define GUARD(e) "EMAIL#" e "|EMAIL#" e

/* Creating A writes the user and its guard, the guard's key lower-cased. */
static void unique_create_writes_the_guard(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=a", "email=Ann@Example.com",
               "role=admin", "name=Ann");
  int op = ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                             itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_int_equal(body_entries(f), 2);
  expect_entry(f, 0, "Put", "ORG#o1", "USER#a");
  expect_entry(f, 1, "Put", "EMAIL#ann@example.com", "EMAIL#ann@example.com");
  itest_ok(f, op);

  expect_user(f, "o1", "a", "Ann@Example.com", "ann@example.com", "Ann",
              "admin");
  expect_guard(f, "ann@example.com", "o1", "a");
  expect_table(f, A_ITEM " " GUARD("ann@example.com"), "after creating A");
  /* the guard is in no index: GSI1 holds the user only */
  itest_expect(f, itest_scan_index(f, "GSI1"), "SK", "USER#a", "GSI1");
}

/* B with the same email in other letter case, in another organisation: the
 * guard's Put fails its condition, so the transaction writes nothing. */
static void unique_duplicate_is_refused(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o2", "userId=b", "email=ANN@example.COM",
               "role=member", "name=Bea");
  int op = ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                             itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  expect_entry(f, 0, "Put", "ORG#o2", "USER#b");
  expect_entry(f, 1, "Put", "EMAIL#ann@example.com", "EMAIL#ann@example.com");
  itest_condition_failed(f, op);
  /* the user's own Put could have applied; the guard's could not */
  expect_reasons(f, "None ConditionalCheckFailed");

  expect_no_user(f, "o2", "b");
  expect_user(f, "o1", "a", "Ann@Example.com", "ann@example.com", "Ann",
              "admin");
  expect_guard(f, "ann@example.com", "o1", "a");
  expect_table(f, A_ITEM " " GUARD("ann@example.com"),
               "after the refused duplicate");
}

/* A's email changes: one transaction updates the user (conditional on the
 * previous email), deletes the old guard and claims the new one. */
static void unique_update_moves_the_guard(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=a", "email=bob@example.com");
  set_previous(f, "email", "Ann@Example.com");
  int op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_int_equal(body_entries(f), 3);
  expect_entry(f, 0, "Update", "ORG#o1", "USER#a");
  expect_entry(f, 1, "Delete", "EMAIL#ann@example.com",
               "EMAIL#ann@example.com");
  expect_entry(f, 2, "Put", "EMAIL#bob@example.com", "EMAIL#bob@example.com");
  itest_ok(f, op);

  expect_user(f, "o1", "a", "bob@example.com", "bob@example.com", "Ann",
              "admin");
  expect_no_guard(f, "ann@example.com");
  expect_guard(f, "bob@example.com", "o1", "a");
  expect_table(f, A_ITEM " " GUARD("bob@example.com"), "after the update");
  expect_by_email(f, "bob@example.com", "USER#a");
  expect_by_email(f, "BOB@Example.COM", "USER#a");
  expect_by_email(f, "Ann@Example.com", "");
  itest_expect(f, itest_scan_index(f, "GSI1"), "GSI1PK",
               "EMAIL#bob@example.com", "GSI1 after the update");
}

/* The old email is free again: B takes it. C, with an email of its own, is
 * there for the delete below. */
static void unique_old_value_is_free(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "User", "orgId=o2", "userId=b", "email=ann@example.com",
               "role=member", "name=Bea");
  ITEST_CREATE(f, "User", "orgId=o1", "userId=c", "email=Cy@example.com",
               "role=member", "name=Cy");
  expect_user(f, "o2", "b", "ann@example.com", "ann@example.com", "Bea",
              "member");
  expect_guard(f, "ann@example.com", "o2", "b");
  expect_guard(f, "cy@example.com", "o1", "c");
  expect_table(f,
               A_ITEM " " GUARD("bob@example.com") " " B_ITEM " " GUARD(
                   "ann@example.com") " " C_ITEM " " GUARD("cy@example.com"),
               "after B and C");
  expect_by_email(f, "ann@example.com", "USER#b");
}

/* An update of A whose previous value is wrong — and is B's email, so the
 * unconditional Delete of the "old" guard would take B's guard — is
 * refused by the Update's condition, and nothing changes. */
static void unique_wrong_previous_is_refused(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=a", "email=dee@example.com");
  set_previous(f, "email", "Ann@Example.com");
  int op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  expect_entry(f, 1, "Delete", "EMAIL#ann@example.com",
               "EMAIL#ann@example.com");
  itest_condition_failed(f, op);
  expect_reasons(f, "ConditionalCheckFailed None None");

  expect_user(f, "o1", "a", "bob@example.com", "bob@example.com", "Ann",
              "admin");
  expect_guard(f, "ann@example.com", "o2", "b"); /* B's, untouched */
  expect_guard(f, "bob@example.com", "o1", "a");
  expect_no_guard(f, "dee@example.com");
  expect_table(f,
               A_ITEM " " GUARD("bob@example.com") " " B_ITEM " " GUARD(
                   "ann@example.com") " " C_ITEM " " GUARD("cy@example.com"),
               "after the refused update");
}

/* Deleting A (its email given) removes the user and its guard; a delete
 * without the email cannot name the guard and is not built. */
static void unique_delete_removes_the_guard(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=a");
  assert_int_equal(ddbst_delete_request(f->item, 0, itest_body(f), &f->err),
                   DDBST_EMISSING);
  assert_int_equal(ddbst_buf_len(f->body), 0);

  ITEST_VALUES(f, "User", "orgId=o1", "userId=a", "email=bob@example.com");
  int op = ddbst_delete_request(f->item, 0, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_int_equal(body_entries(f), 2);
  expect_entry(f, 0, "Delete", "ORG#o1", "USER#a");
  expect_entry(f, 1, "Delete", "EMAIL#bob@example.com",
               "EMAIL#bob@example.com");
  itest_ok(f, op);

  expect_no_user(f, "o1", "a");
  expect_no_guard(f, "bob@example.com");
  expect_table(f,
               B_ITEM " " GUARD("ann@example.com") " " C_ITEM " " GUARD(
                   "cy@example.com"),
               "after deleting A");
  expect_by_email(f, "bob@example.com", "");
}

/* A delete of B given C's email would delete C's guard; the Delete of B is
 * conditional on B holding that email, so nothing is deleted. */
static void unique_delete_with_wrong_email_is_refused(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o2", "userId=b", "email=Cy@example.com");
  int op = ddbst_delete_request(f->item, 0, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  expect_entry(f, 1, "Delete", "EMAIL#cy@example.com", "EMAIL#cy@example.com");
  itest_condition_failed(f, op);
  expect_reasons(f, "ConditionalCheckFailed None");

  expect_user(f, "o2", "b", "ann@example.com", "ann@example.com", "Bea",
              "member");
  expect_guard(f, "ann@example.com", "o2", "b");
  expect_user(f, "o1", "c", "Cy@example.com", "cy@example.com", "Cy", "member");
  expect_guard(f, "cy@example.com", "o1", "c");
  expect_table(f,
               B_ITEM " " GUARD("ann@example.com") " " C_ITEM " " GUARD(
                   "cy@example.com"),
               "after the refused delete");
}

/* A change of letter case only keeps the guard's key: a plain UpdateItem,
 * still conditional on the previous value, that is not refused as a
 * duplicate of the user's own guard. */
static void unique_case_only_change_keeps_the_guard(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "User", "orgId=o1", "userId=c", "email=CY@EXAMPLE.COM");
  set_previous(f, "email", "Cy@example.com");
  int op = ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                &f->err);
  assert_int_equal(op, DDBST_OP_UPDATE_ITEM);
  itest_ok(f, op);
  expect_user(f, "o1", "c", "CY@EXAMPLE.COM", "cy@example.com", "Cy",
              "member");
  expect_guard(f, "cy@example.com", "o1", "c");
  expect_table(f,
               B_ITEM " " GUARD("ann@example.com") " " C_ITEM " " GUARD(
                   "cy@example.com"),
               "after the change of case");

  /* and with a wrong previous value it is refused like any update */
  ITEST_VALUES(f, "User", "orgId=o1", "userId=c", "email=cy@example.com");
  set_previous(f, "email", "Cy@example.com");
  itest_condition_failed(f, ddbst_update_request(f->item, 0, ITEST_NOW_US,
                                                 itest_body(f), &f->err));
  expect_user(f, "o1", "c", "CY@EXAMPLE.COM", "cy@example.com", "Cy",
              "member");
}

/* ==== 2. batches ==== */

enum { NORGS = 60, NEVENTS = 30, NMISSING = 20, NDUPS = 20 };

static void org_key(itest_fixture *f, int i) {
  char o[32];
  snprintf(o, sizeof o, "orgId=org%02d", i);
  ITEST_VALUES(f, "Organisation", o);
}

static void org_values(itest_fixture *f, int i) {
  char o[32], n[32], c[64];
  snprintf(o, sizeof o, "orgId=org%02d", i);
  snprintf(n, sizeof n, "name=Org %02d", i);
  snprintf(c, sizeof c, "createdAt=2026-01-%02dT10:00:00Z", i % 28 + 1);
  /* every third org takes its createdAt from the default (the write's
   * instant), the others from the value given */
  if (i % 3 == 0)
    ITEST_VALUES(f, "Organisation", o, n, i % 2 ? "plan=pro" : "plan=free");
  else
    ITEST_VALUES(f, "Organisation", o, n, i % 2 ? "plan=pro" : "plan=free", c);
}

static void event_key_text(int i, char *p, char *ts, char *id, size_t cap) {
  snprintf(p, cap, "projectId=p%d", i % 3);
  snprintf(ts, cap, "ts=2026-02-01T00:%02d:00Z", i);
  snprintf(id, cap, "eventId=01HZ%022d", i);
}

static void event_key(itest_fixture *f, int i) {
  char p[64], ts[64], id[64];
  event_key_text(i, p, ts, id, sizeof p);
  ITEST_VALUES(f, "Event", p, ts, id);
}

static void event_values(itest_fixture *f, int i) {
  char p[64], ts[64], id[64], type[64], payload[64];
  event_key_text(i, p, ts, id, sizeof p);
  snprintf(type, sizeof type, "type=t%02d", i);
  snprintf(payload, sizeof payload, "payload={\"n\":%d,\"tag\":\"x\"}", i);
  ITEST_VALUES(f, "Event", p, ts, id, type, payload);
}

/* How many times DynamoDB Local answered with unprocessed requests. */
static int resends;

/* {"RequestItems": <unprocessed>}: what to send again. */
static char *request_items_body(yajl_val unprocessed) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (!g) fail_msg("%s", "out of memory");
  yajl_gen_map_open(g);
  gen_str(g, "RequestItems");
  gen_tree(g, unprocessed);
  yajl_gen_map_close(g);
  return gen_finish(g);
}

/* Answers kept (BatchGetItem's Responses live in them). */
typedef struct kept {
  yajl_val trees[64];
  size_t n;
} kept;

static void keep_response(itest_fixture *f, kept *k) {
  if (!k) return;
  if (k->n == sizeof k->trees / sizeof k->trees[0])
    fail_msg("%s", "too many answers to keep");
  k->trees[k->n++] = f->response;
  f->response = NULL; /* kept: not freed by the next request */
}

static void release(kept *k) {
  for (size_t i = 0; i < k->n; i++) yajl_tree_free(k->trees[i]);
  k->n = 0;
}

/* Sends the batch body just built, then whatever DynamoDB leaves
 * unprocessed (UnprocessedItems of a BatchWriteItem, UnprocessedKeys of a
 * BatchGetItem), with a growing pause, until nothing is left. Each answer
 * is kept in `k` when it is not NULL. */
static void send_batch(itest_fixture *f, int op, kept *k) {
  const char *field =
      op == DDBST_OP_BATCH_GET_ITEM ? "UnprocessedKeys" : "UnprocessedItems";
  itest_ok(f, op);
  for (int attempt = 0;; attempt++) {
    yajl_val left = get_path(f->response, field, NULL, NULL);
    /* DynamoDB always answers with the field, {} when all was done */
    if (!YAJL_IS_OBJECT(left))
      fail_msg("%s: no %s in %s", ddbst_operation_name(op), field,
               itest_client_body(f->client));
    if (object_len(left) == 0) {
      keep_response(f, k);
      return;
    }
    if (attempt == 10)
      fail_msg("%s: still unprocessed after %d attempts: %s",
               ddbst_operation_name(op), attempt, itest_client_body(f->client));
    resends++;
    char *body = request_items_body(left);
    keep_response(f, k); /* `left` lives in it: build the body first */
    struct timespec pause = {0, (long)(5 * 1000 * 1000) << attempt};
    if (pause.tv_nsec >= 1000000000L) pause.tv_nsec = 999999999L;
    nanosleep(&pause, NULL);
    long status = itest_send_json(f, ddbst_operation_name(op), body);
    if (status != 200)
      fail_msg("%s again: HTTP %ld: %s\nrequest: %s", ddbst_operation_name(op),
               status, itest_client_body(f->client), body);
    free(body);
  }
}

/* The requests of the batch body just built: their count, each checked to
 * be `kind` ("PutRequest", "DeleteRequest"; NULL for the Keys of a get). */
static size_t batch_entries(itest_fixture *f, const char *kind) {
  yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  yajl_val per_table = get_path(body, "RequestItems", f->table, NULL);
  if (object_len(get_path(body, "RequestItems", NULL, NULL)) != 1)
    fail_msg("the batch should name one table: %s", ddbst_buf_data(f->body));
  yajl_val list = kind ? per_table : get_path(per_table, "Keys", NULL, NULL);
  if (!YAJL_IS_ARRAY(list))
    fail_msg("no requests for %s in %s", f->table, ddbst_buf_data(f->body));
  for (size_t i = 0; kind && i < list->u.array.len; i++)
    if (!get_path(list->u.array.values[i], kind, NULL, NULL))
      fail_msg("request %zu is not a %s: %s", i, kind, ddbst_buf_data(f->body));
  if (!kind && !YAJL_IS_TRUE(get_path(per_table, "ConsistentRead", NULL, NULL)))
    fail_msg("the read is not consistent: %s", ddbst_buf_data(f->body));
  size_t n = list->u.array.len;
  yajl_tree_free(body);
  return n;
}

/* Builds and sends every body of a write batch: `sizes` are the expected
 * requests per body ("25 25 25 15"). */
static void send_write_batch(itest_fixture *f, ddbst_batch *b,
                             const char *kind, const char *sizes) {
  char got[256] = "";
  size_t len = 0;
  int n = ddbst_batch_request_count(b);
  for (int i = 0; i < n; i++) {
    int op = ddbst_batch_request(b, i, 0, itest_body(f), &f->err);
    assert_int_equal(op, DDBST_OP_BATCH_WRITE_ITEM);
    size_t count = batch_entries(f, kind);
    if (count == 0 || count > 25)
      fail_msg("body %d holds %zu writes", i, count);
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%zu", i ? " " : "",
                            count);
    send_batch(f, op, NULL);
  }
  assert_string_equal(got, sizes);
}

/* The one item of `items` with key pk/sk: fails when there is none or more
 * than one. */
static yajl_val find_once(yajl_val *items, size_t n, const char *pk,
                          const char *sk) {
  yajl_val found = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *p = itest_s(items[i], "PK"), *s = itest_s(items[i], "SK");
    if (!p || !s || strcmp(p, pk) || strcmp(s, sk)) continue;
    if (found) fail_msg("%s|%s came back twice", pk, sk);
    found = items[i];
  }
  if (!found) fail_msg("%s|%s did not come back", pk, sk);
  return found;
}

static void expect_org(itest_fixture *f, yajl_val it, int i) {
  char id[32], pk[32], name[32], created[64];
  snprintf(id, sizeof id, "org%02d", i);
  snprintf(pk, sizeof pk, "ORG#org%02d", i);
  snprintf(name, sizeof name, "Org %02d", i);
  if (i % 3 == 0)
    snprintf(created, sizeof created, "2026-03-20T00:00:00Z");
  else
    snprintf(created, sizeof created, "2026-01-%02dT10:00:00Z", i % 28 + 1);
  itest_expect_attributes(f, it, "PK SK _type orgId name plan createdAt");
  itest_expect_s(it, "PK", pk);
  itest_expect_s(it, "SK", pk);
  itest_expect_s(it, "_type", "Organisation");
  itest_expect_s(it, "orgId", id);
  itest_expect_s(it, "name", name);
  itest_expect_s(it, "plan", i % 2 ? "pro" : "free");
  itest_expect_s(it, "createdAt", created);
}

static void event_pk_sk(int i, char *pk, size_t pk_cap, char *sk,
                        size_t sk_cap) {
  snprintf(pk, pk_cap, "PROJECT#p%d", i % 3);
  snprintf(sk, sk_cap, "EVENT#2026-02-01T00:%02d:00Z#01HZ%022d", i, i);
}

static void expect_event(itest_fixture *f, yajl_val it, int i) {
  char pk[64], sk[128], p[32], ts[64], id[64], type[32], n[32];
  event_pk_sk(i, pk, sizeof pk, sk, sizeof sk);
  snprintf(p, sizeof p, "p%d", i % 3);
  snprintf(ts, sizeof ts, "2026-02-01T00:%02d:00Z", i);
  snprintf(id, sizeof id, "01HZ%022d", i);
  snprintf(type, sizeof type, "t%02d", i);
  snprintf(n, sizeof n, "%d", i);
  itest_expect_attributes(f, it,
                          "PK SK _type projectId ts eventId type payload");
  itest_expect_s(it, "PK", pk);
  itest_expect_s(it, "SK", sk);
  itest_expect_s(it, "_type", "Event");
  itest_expect_s(it, "projectId", p);
  itest_expect_s(it, "ts", ts);
  itest_expect_s(it, "eventId", id);
  itest_expect_s(it, "type", type);
  yajl_val m = get_path(it, "payload", "M", NULL);
  if (object_len(m) != 2) fail_msg("event %d: payload is not a map of two", i);
  itest_expect_n(m, "n", n);
  itest_expect_s(m, "tag", "x");
}

/* 60 organisations and 30 events written in BatchWriteItem chunks of 25,
 * read back with 130 gets (90 of them the items, 20 keys of no item, 20
 * duplicates: 110 distinct keys, BatchGetItem chunks of 100), then deleted
 * in chunks of 25. */
static void batch_write_read_delete(void **state) {
  itest_fixture *f = *state;
  ddbst_batch *b = ddbst_batch_new(f->model);
  assert_non_null(b);

  for (int i = 0; i < NORGS; i++) {
    org_values(f, i);
    if (ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("batch put org %d: %s", i, f->err.message);
  }
  for (int i = 0; i < NEVENTS; i++) {
    event_values(f, i);
    if (ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("batch put event %d: %s", i, f->err.message);
  }
  /* a second write of one key is refused, not sent */
  org_values(f, 7);
  assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_batch_request_count(b), 4);
  send_write_batch(f, b, "PutRequest", "25 25 25 15");

  /* the resend path, proven even when DynamoDB Local processes everything:
   * body 0's RequestItems, parsed and written back as send_batch would send
   * UnprocessedItems (the puts are idempotent) */
  assert_int_equal(ddbst_batch_request(b, 0, 0, itest_body(f), &f->err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  yajl_val parsed = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  char *again =
      request_items_body(get_path(parsed, "RequestItems", NULL, NULL));
  yajl_tree_free(parsed);
  if (itest_send_json(f, "BatchWriteItem", again) != 200)
    fail_msg("a resent body was refused: %s\nrequest: %s",
             itest_client_body(f->client), again);
  free(again);

  /* ---- read back ---- */
  ddbst_batch_reset(b);
  int added = 0, calls = 0;
  for (int i = 0; i < NORGS; i++, calls++) {
    org_key(f, i);
    added += ddbst_batch_get(b, f->item, &f->err);
  }
  for (int i = 0; i < NEVENTS; i++, calls++) {
    event_key(f, i);
    added += ddbst_batch_get(b, f->item, &f->err);
  }
  for (int i = 0; i < NMISSING; i++, calls++) {
    char o[32];
    snprintf(o, sizeof o, "orgId=missing%02d", i);
    ITEST_VALUES(f, "Organisation", o);
    added += ddbst_batch_get(b, f->item, &f->err);
  }
  /* duplicates: 14 organisations as given before; 6 events whose key is
   * given in another spelling (an offset, a lower-case ULID) that ddbst
   * canonicalises to the same key */
  for (int i = 0; i < NDUPS; i++, calls++) {
    int rc;
    if (i < 14) {
      org_key(f, i * 4);
      rc = ddbst_batch_get(b, f->item, &f->err);
    } else {
      int e = (i - 14) * 5;
      char p[64], ts[64], id[64];
      snprintf(p, sizeof p, "projectId=p%d", e % 3);
      snprintf(ts, sizeof ts, "ts=2026-02-01T01:%02d:00+01:00", e);
      snprintf(id, sizeof id, "eventId=01hz%022d", e);
      ITEST_VALUES(f, "Event", p, ts, id);
      rc = ddbst_batch_get(b, f->item, &f->err);
    }
    if (rc != 0)
      fail_msg("duplicate %d was added (%d): %s", i, rc, f->err.message);
  }
  assert_int_equal(calls, 130);
  assert_int_equal(added, NORGS + NEVENTS + NMISSING);
  assert_int_equal(ddbst_batch_request_count(b), 2);

  kept answers = {0};
  size_t keys_sent = 0;
  for (int i = 0; i < 2; i++) {
    int op = ddbst_batch_request(b, i, DDBST_CONSISTENT_READ, itest_body(f),
                                 &f->err);
    assert_int_equal(op, DDBST_OP_BATCH_GET_ITEM);
    size_t n = batch_entries(f, NULL);
    assert_int_equal(n, i == 0 ? 100 : 10);
    keys_sent += n;
    send_batch(f, op, &answers);
  }
  assert_int_equal(keys_sent, 110);

  static yajl_val items[256];
  size_t nitems = 0;
  for (size_t a = 0; a < answers.n; a++) {
    yajl_val got = get_path(answers.trees[a], "Responses", f->table, NULL);
    for (size_t i = 0; i < array_len(got); i++) {
      if (nitems == sizeof items / sizeof items[0])
        fail_msg("%s", "too many items came back");
      items[nitems++] = got->u.array.values[i];
    }
  }
  /* every item once, none of the missing keys */
  assert_int_equal(nitems, NORGS + NEVENTS);
  for (int i = 0; i < NORGS; i++) {
    char pk[32];
    snprintf(pk, sizeof pk, "ORG#org%02d", i);
    expect_org(f, find_once(items, nitems, pk, pk), i);
  }
  for (int i = 0; i < NEVENTS; i++) {
    char pk[64], sk[128];
    event_pk_sk(i, pk, sizeof pk, sk, sizeof sk);
    expect_event(f, find_once(items, nitems, pk, sk), i);
  }
  release(&answers);

  /* ---- delete them all ---- */
  ddbst_batch_reset(b);
  for (int i = 0; i < NORGS; i++) {
    org_key(f, i);
    if (ddbst_batch_delete(b, f->item, &f->err))
      fail_msg("batch delete org %d: %s", i, f->err.message);
  }
  for (int i = 0; i < NEVENTS; i++) {
    event_key(f, i);
    if (ddbst_batch_delete(b, f->item, &f->err))
      fail_msg("batch delete event %d: %s", i, f->err.message);
  }
  assert_int_equal(ddbst_batch_request_count(b), 4);
  send_write_batch(f, b, "DeleteRequest", "25 25 25 15");
  ddbst_batch_free(b);

  for (int i = 0; i < NORGS; i++) {
    org_key(f, i);
    if (itest_get(f)) fail_msg("org %d is still there", i);
  }
  for (int i = 0; i < NEVENTS; i++) {
    event_key(f, i);
    if (itest_get(f)) fail_msg("event %d is still there", i);
  }
  expect_table(f, "", "after the batch delete");
  if (resends)
    print_message("DynamoDB Local left requests unprocessed %d times\n",
                  resends);
}

/* Users have a unique email: a batch cannot hold the guard's condition. */
static void batch_refuses_unique_entities(void **state) {
  itest_fixture *f = *state;
  ddbst_batch *b = ddbst_batch_new(f->model);
  assert_non_null(b);
  ITEST_VALUES(f, "User", "orgId=o1", "userId=u1", "email=a@example.com");
  assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_batch_delete(b, f->item, &f->err), DDBST_EINVAL);
  assert_int_equal(ddbst_batch_request_count(b), 0);
  ddbst_batch_free(b);
}

/* ==== 3. transactions of several items ==== */

#define TEMPLATE_ITEM "ORG#o0|PROJECT#2026-01-01T00:00:00Z#template"
#define O1_ITEM "ORG#o1|ORG#o1"
#define U1_ITEM "ORG#o1|USER#u1"

static int txn_setup(void **state) {
  if (itest_setup_saas(state)) return -1;
  itest_fixture *f = *state;
  /* the project every onboarding checks for */
  ITEST_VALUES(f, "Project", "orgId=o0", "projectId=template",
               "createdAt=2026-01-01T00:00:00Z", "name=Template",
               "status=active");
  return itest_send(f, ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                                         itest_body(f), &f->err)) == 200
             ? 0
             : -1;
}

/* Onboarding as one transaction: create the organisation, create its first
 * user (with the email guard), check the template project exists. */
static void build_onboarding(itest_fixture *f, ddbst_txn *t, const char *org,
                             const char *email, const char *project) {
  char o[32], e[128], p[64];
  snprintf(o, sizeof o, "orgId=%s", org);
  snprintf(e, sizeof e, "email=%s", email);
  snprintf(p, sizeof p, "projectId=%s", project);
  ddbst_txn_reset(t);
  ITEST_VALUES(f, "Organisation", o, "name=Acme", "plan=pro");
  if (ddbst_txn_put(t, f->item, DDBST_CREATE, ITEST_NOW_US, &f->err))
    fail_msg("txn put org: %s", f->err.message);
  ITEST_VALUES(f, "User", o, "userId=u1", e, "role=admin", "name=Ann");
  if (ddbst_txn_put(t, f->item, DDBST_CREATE, ITEST_NOW_US, &f->err))
    fail_msg("txn put user: %s", f->err.message);
  ITEST_VALUES(f, "Project", "orgId=o0", p, "createdAt=2026-01-01T00:00:00Z");
  if (ddbst_txn_check(t, f->item, &f->err))
    fail_msg("txn check: %s", f->err.message);
  assert_int_equal(ddbst_txn_count(t), 4);
}

static void expect_template(itest_fixture *f, yajl_val it) {
  itest_expect_attributes(f, it,
                          "PK SK GSI2PK GSI2SK _type orgId projectId "
                          "createdAt name status");
  itest_expect_s(it, "PK", "ORG#o0");
  itest_expect_s(it, "SK", "PROJECT#2026-01-01T00:00:00Z#template");
  itest_expect_s(it, "name", "Template");
  itest_expect_s(it, "status", "active");
}

static void expect_o1(itest_fixture *f, yajl_val it) {
  itest_expect_attributes(f, it, "PK SK _type orgId name plan createdAt");
  itest_expect_s(it, "PK", "ORG#o1");
  itest_expect_s(it, "SK", "ORG#o1");
  itest_expect_s(it, "_type", "Organisation");
  itest_expect_s(it, "orgId", "o1");
  itest_expect_s(it, "name", "Acme");
  itest_expect_s(it, "plan", "pro");
  itest_expect_s(it, "createdAt", "2026-03-20T00:00:00Z");
}

static void expect_onboarded(itest_fixture *f) {
  ITEST_VALUES(f, "Organisation", "orgId=o1");
  expect_o1(f, itest_get(f));
  expect_user(f, "o1", "u1", "Ann@Example.com", "ann@example.com", "Ann",
              "admin");
  expect_guard(f, "ann@example.com", "o1", "u1");
  ITEST_VALUES(f, "Project", "orgId=o0", "projectId=template",
               "createdAt=2026-01-01T00:00:00Z");
  expect_template(f, itest_get(f));
  expect_table(f,
               TEMPLATE_ITEM " " O1_ITEM " " U1_ITEM " " GUARD(
                   "ann@example.com"),
               "after onboarding o1");
}

/* A ClientRequestToken of this run only. Tokens are not scoped to a table:
 * DynamoDB Local remembers them for 10 minutes across every table, so a
 * fixed token reused by a second run (ctest --repeat, two programs on one
 * DynamoDB Local) with another TableName in the body is refused with
 * IdempotentParameterMismatchException. The table's name is unique. */
static const char *run_token(itest_fixture *f) {
  static char token[37];
  const char *tail = f->table + strlen("ddbst-it-");
  snprintf(token, sizeof token, "ob-%s", tail);
  if (strlen(tail) + 3 > 36) fail_msg("table name %s too long", f->table);
  return token;
}

/* The three writes and the check apply together; the same transaction sent
 * again with its ClientRequestToken is accepted and changes nothing. */
static void txn_applies_all_and_is_idempotent(void **state) {
  itest_fixture *f = *state;
  ddbst_txn *t = ddbst_txn_new(f->model);
  assert_non_null(t);
  const char *token = run_token(f);
  build_onboarding(f, t, "o1", "Ann@Example.com", "template");
  int op = ddbst_txn_request(t, token, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  expect_entry(f, 0, "Put", "ORG#o1", "ORG#o1");
  expect_entry(f, 1, "Put", "ORG#o1", "USER#u1");
  expect_entry(f, 2, "Put", "EMAIL#ann@example.com", "EMAIL#ann@example.com");
  expect_entry(f, 3, "ConditionCheck", "ORG#o0",
               "PROJECT#2026-01-01T00:00:00Z#template");
  char *first = strdup(ddbst_buf_data(f->body));
  assert_non_null(first);
  itest_ok(f, op);
  expect_onboarded(f);

  /* a retry, as after a lost answer: the same body, the same token.
   * DynamoDB (and DynamoDB Local) return success without writing: were the
   * transaction run again, its creates would fail their conditions. */
  op = ddbst_txn_request(t, token, itest_body(f), &f->err);
  assert_string_equal(ddbst_buf_data(f->body), first);
  itest_ok(f, op);
  expect_onboarded(f);

  /* the control: without the token the same transaction does run again,
   * and is refused by the creates' conditions */
  op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  itest_condition_failed(f, op);
  expect_reasons(f,
                 "ConditionalCheckFailed ConditionalCheckFailed "
                 "ConditionalCheckFailed None");
  expect_onboarded(f);

  /* the token with other parameters within its 10 minutes is an error */
  build_onboarding(f, t, "o1", "Ann@Example.com", "other");
  op = ddbst_txn_request(t, token, itest_body(f), &f->err);
  itest_refused(f, op, "IdempotentParameterMismatchException");
  expect_onboarded(f);

  free(first);
  ddbst_txn_free(t);
}

/* The ConditionCheck's project does not exist: the transaction is
 * cancelled and none of its writes, guard included, is applied. */
static void txn_failed_check_applies_nothing(void **state) {
  itest_fixture *f = *state;
  ddbst_txn *t = ddbst_txn_new(f->model);
  assert_non_null(t);
  build_onboarding(f, t, "o2", "bea@example.com", "missing");
  int op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  itest_condition_failed(f, op);
  expect_reasons(f, "None None None ConditionalCheckFailed");
  ddbst_txn_free(t);

  ITEST_VALUES(f, "Organisation", "orgId=o2");
  assert_null(itest_get(f));
  expect_no_user(f, "o2", "u1");
  expect_no_guard(f, "bea@example.com");
  expect_onboarded(f);
}

/* TransactGetItems answers in the order of the gets, not of the keys. */
static void txn_gets_in_order(void **state) {
  itest_fixture *f = *state;
  ddbst_txn *t = ddbst_txn_new(f->model);
  assert_non_null(t);
  ITEST_VALUES(f, "Project", "orgId=o0", "projectId=template",
               "createdAt=2026-01-01T00:00:00Z");
  assert_int_equal(ddbst_txn_get(t, f->item, &f->err), 0);
  ITEST_VALUES(f, "User", "orgId=o1", "userId=u1");
  assert_int_equal(ddbst_txn_get(t, f->item, &f->err), 0);
  ITEST_VALUES(f, "Organisation", "orgId=o1");
  assert_int_equal(ddbst_txn_get(t, f->item, &f->err), 0);
  int op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_GET_ITEMS);
  itest_ok(f, op);
  ddbst_txn_free(t);

  yajl_val r = get_path(f->response, "Responses", NULL, NULL);
  assert_int_equal(array_len(r), 3);
  expect_template(f, get_path(r->u.array.values[0], "Item", NULL, NULL));
  yajl_val user = get_path(r->u.array.values[1], "Item", NULL, NULL);
  itest_expect_attributes(f, user,
                          "PK SK GSI1PK _type orgId userId email role name");
  itest_expect_s(user, "SK", "USER#u1");
  itest_expect_s(user, "email", "Ann@Example.com");
  expect_o1(f, get_path(r->u.array.values[2], "Item", NULL, NULL));
}

int main(void) {
  if (itest_should_skip("test_writes")) return ITEST_SKIP;
  /* steps of one story on one table: each starts from the state the one
   * before left */
  const struct CMUnitTest uniqueness[] = {
      cmocka_unit_test(unique_create_writes_the_guard),
      cmocka_unit_test(unique_duplicate_is_refused),
      cmocka_unit_test(unique_update_moves_the_guard),
      cmocka_unit_test(unique_old_value_is_free),
      cmocka_unit_test(unique_wrong_previous_is_refused),
      cmocka_unit_test(unique_delete_removes_the_guard),
      cmocka_unit_test(unique_delete_with_wrong_email_is_refused),
      cmocka_unit_test(unique_case_only_change_keeps_the_guard),
  };
  const struct CMUnitTest batches[] = {
      cmocka_unit_test_setup_teardown(batch_write_read_delete,
                                      itest_setup_saas, itest_teardown),
      cmocka_unit_test_setup_teardown(batch_refuses_unique_entities,
                                      itest_setup_saas, itest_teardown),
  };
  const struct CMUnitTest transactions[] = {
      cmocka_unit_test(txn_applies_all_and_is_idempotent),
      cmocka_unit_test(txn_failed_check_applies_nothing),
      cmocka_unit_test(txn_gets_in_order),
  };
  int failed = cmocka_run_group_tests_name("uniqueness", uniqueness,
                                           itest_setup_saas, itest_teardown);
  failed += cmocka_run_group_tests_name("batches", batches, NULL, NULL);
  failed += cmocka_run_group_tests_name("transactions", transactions,
                                        txn_setup, itest_teardown);
  return failed ? 1 : 0;
}
