/* A migration on DynamoDB Local: a few hundred customers (with unique
 * email guards) and orders written under tests/integration/models/
 * migrate_v1.json are carried to migrate_v2.json — (a) a sparse index of
 * pro customers, (b) sort keys rewritten (a new literal; milliseconds),
 * (c) an index removed, (d) a default — by ddbst's plan and the writes
 * ddbst_migration_next gives for every Scan page, in two segments. Between
 * reading the first page and writing it, other writers change items of it:
 * an old-model update, a versioned old-model update, and a delete and a
 * create by the writer protocol; each migration write they make stale is
 * refused by DynamoDB and redone after a re-read. Then every pattern of the
 * new model returns exactly the oracle's items, a second pass writes
 * nothing, and verify finds no problem. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

enum { CUSTOMERS = 120, ORDERS = 240, SEGMENTS = 2, PAGE = 40 };

typedef struct customer {
  char id[16], email[40], name[24];
  int pro, deleted;
} customer;
typedef struct order {
  int customer;
  char id[16], placed[32], status[8];
} order;

static customer customers[CUSTOMERS + 1]; /* and the one created midway */
static order orders[ORDERS];
static int ncustomers;

static ddbst_model *v2;
static ddbst_migration *mig;
static ddbst_cursor_keys *keys; /* the scans' cursors, sealed */

static void set(ddbst_item *it, const char *name, const char *value) {
  ddbst_error err;
  if (ddbst_item_set_by_name(it, name, value, DDBST_NUL_TERMINATED, &err))
    fail_msg("%s: %s", err.path, err.message);
}

/* What the pass did. */
typedef struct tally {
  int writes, skips, guards, refused, redos, gone;
} tally;

static void write_old_items(itest_fixture *f) {
  for (int i = 0; i < CUSTOMERS; i++) {
    customer *c = &customers[i];
    snprintf(c->id, sizeof c->id, "c%03d", i);
    snprintf(c->email, sizeof c->email, "User%03d@Example.com", i);
    snprintf(c->name, sizeof c->name, "Name %d", i);
    c->pro = i % 3 == 0;
    char kv[4][64];
    ITEST_FORMAT(kv[0], "customerId=%s", c->id);
    ITEST_FORMAT(kv[1], "email=%s", c->email);
    ITEST_FORMAT(kv[2], "name=%s", c->name);
    snprintf(kv[3], sizeof kv[3], "tier=%s", c->pro ? "pro" : "free");
    ITEST_CREATE(f, "Customer", kv[0], kv[1], kv[2], kv[3]);
  }
  ncustomers = CUSTOMERS;
  for (int i = 0; i < ORDERS; i++) {
    order *o = &orders[i];
    o->customer = (i * 7) % CUSTOMERS;
    snprintf(o->id, sizeof o->id, "o%03d", i);
    /* second precision under v1: v2 keeps milliseconds */
    snprintf(o->placed, sizeof o->placed, "2026-02-%02dT%02d:%02d:%02dZ",
             1 + i % 28, i % 24, (i * 13) % 60, (i * 31) % 60);
    snprintf(o->status, sizeof o->status, "%s", i % 2 ? "shipped" : "open");
    char kv[6][64];
    snprintf(kv[0], sizeof kv[0], "customerId=%s", customers[o->customer].id);
    snprintf(kv[1], sizeof kv[1], "orderId=%s", o->id);
    snprintf(kv[2], sizeof kv[2], "placedAt=%s", o->placed);
    snprintf(kv[3], sizeof kv[3], "status=%s", o->status);
    snprintf(kv[4], sizeof kv[4], "total=%d.50", i);
    snprintf(kv[5], sizeof kv[5], "lines=[\"line %d\",{\"qty\":2}]", i);
    ITEST_CREATE(f, "Order", kv[0], kv[1], kv[2], kv[3], kv[4], kv[5]);
  }
}

static const char *index_status(itest_fixture *f, const char *index) {
  const char *path[] = {"Table", "GlobalSecondaryIndexes", NULL};
  yajl_val list = yajl_tree_get(f->response, path, yajl_t_array);
  for (size_t i = 0; list && i < list->u.array.len; i++) {
    yajl_val ix = list->u.array.values[i];
    const char *np[] = {"IndexName", NULL}, *sp[] = {"IndexStatus", NULL};
    yajl_val n = yajl_tree_get(ix, np, yajl_t_string);
    yajl_val s = yajl_tree_get(ix, sp, yajl_t_string);
    const char *name = n ? YAJL_GET_STRING(n) : NULL;
    if (name && !strcmp(name, index))
      return s ? YAJL_GET_STRING(s) : "";
  }
  return NULL;
}

/* The plan's UpdateTable step `i`, then DescribeTable until its index is
 * ACTIVE (added) or gone (removed). */
static void run_index_step(itest_fixture *f, int i) {
  const char *index;
  int kind = ddbst_migration_step(mig, i, &index);
  itest_ok(f, ddbst_migration_step_request(mig, i, itest_body(f), &f->err));
  for (int t = 0; t < 300; t++) {
    itest_ok(f, ddbst_describe_table_request(f->model, itest_body(f), &f->err));
    const char *st = index_status(f, index);
    if (kind == DDBST_STEP_ADD_INDEX ? st && !strcmp(st, "ACTIVE") : !st)
      return;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fail_msg("index %s never became %s", index,
           kind == DDBST_STEP_ADD_INDEX ? "ACTIVE" : "gone");
}

/* Sends the write the migration gave; on refusal asks it what to do, and
 * re-reads and redoes as it says. */
static void send_write(itest_fixture *f, int op, ddbst_buf *body, tally *t) {
  ddbst_buf *report = ddbst_buf_new(NULL);
  for (int attempt = 0; attempt < 5; attempt++) {
    long st = itest_send_json(f, ddbst_operation_name(op), ddbst_buf_data(body));
    if (st == 200) {
      t->writes++;
      ddbst_buf_free(report);
      return;
    }
    const char *answer = itest_client_body(f->client);
    int what = ddbst_migration_failed(mig, answer, strlen(answer), report,
                                      &f->err);
    if (what == DDBST_MIGRATE_RETRY) continue;
    if (what != DDBST_MIGRATE_REDO)
      fail_msg("write refused (%d): %s %s\n%s", what, f->err.message,
               ddbst_buf_data(report), ddbst_buf_data(body));
    t->redos++;
    assert_int_equal(ddbst_migration_reread_request(mig, body, &f->err),
                     DDBST_OP_GET_ITEM);
    assert_int_equal(itest_send_json(f, "GetItem", ddbst_buf_data(body)), 200);
    answer = itest_client_body(f->client);
    int there = ddbst_migration_reread(mig, answer, strlen(answer), &f->err);
    assert_true(there >= 0);
    if (!there) {
      t->gone++;
      break;
    }
    /* the item as it is now: its step comes first */
    int r = ddbst_migration_next(mig, &op, body, &f->err);
    if (r != DDBST_MIGRATE_WRITE) {
      if (r == DDBST_MIGRATE_SKIP) t->skips++;
      break;
    }
  }
  ddbst_buf_free(report);
}

static int find(const char *id) {
  for (int i = 0; i < ncustomers; i++)
    if (!strcmp(customers[i].id, id)) return i;
  return -1;
}

/* Other writers, between the read of `page` and its writes: an update
 * under the old model (a customer's name), a versioned one (an order's
 * status), a delete and a create by the writer protocol. */
static int change_under_the_pass(itest_fixture *f, ddbst_model *v1,
                                 const ddbst_page *page) {
  int cust[2] = {-1, -1}, ord = -1, ncust = 0;
  ddbst_item *nv = ddbst_item_new(v2, 0);
  for (int i = 0; i < ddbst_page_count(page); i++) {
    int e;
    int r = ddbst_migration_identify(mig, page, i, nv, &e, &f->err);
    if (r != DDBST_MIGRATE_WRITE) continue;
    const char *name = ddbst_model_entity_name(v2, e);
    const char *id;
    if (!strcmp(name, "Customer") && ncust < 2) {
      ddbst_item_get_by_name(nv, "customerId", &id, NULL);
      cust[ncust++] = find(id);
    } else if (!strcmp(name, "Order") && ord < 0) {
      ddbst_item_get_by_name(nv, "orderId", &id, NULL);
      ord = atoi(id + 1);
    }
  }
  if (ncust < 2 || ord < 0) {
    ddbst_item_free(nv);
    return 0;
  }
  ddbst_item *ov = ddbst_item_new(v1, ddbst_model_entity(v1, "Customer"));
  /* 1. a service still on v1 renames a customer */
  customer *c = &customers[cust[0]];
  set(ov, "customerId", c->id);
  set(ov, "name", "Renamed midway");
  snprintf(c->name, sizeof c->name, "Renamed midway");
  itest_ok(f, ddbst_update_request(ov, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  /* 2. and ships an order, holding its version */
  order *o = &orders[ord];
  ddbst_item_reset(ov, ddbst_model_entity(v1, "Order"));
  set(ov, "customerId", customers[o->customer].id);
  set(ov, "orderId", o->id);
  set(ov, "placedAt", o->placed);
  set(ov, "status", strcmp(o->status, "open") ? "open" : "shipped");
  snprintf(o->status, sizeof o->status, "%s",
           strcmp(o->status, "open") ? "open" : "shipped");
  assert_int_equal(ddbst_item_expect_version(ov, 1), 0);
  itest_ok(f, ddbst_update_request(ov, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  /* 3. a service on v2 deletes a customer not yet migrated: both keys */
  customer *d = &customers[cust[1]];
  ddbst_item_reset(nv, ddbst_model_entity(v2, "Customer"));
  set(nv, "customerId", d->id);
  set(nv, "email", d->email);
  itest_ok(f, ddbst_migration_write_request(mig, nv, DDBST_OP_DELETE_ITEM, 0, 0,
                                            itest_body(f), &f->err));
  d->deleted = 1;
  /* 4. and creates one: no item may hold its old key either */
  customer *n = &customers[ncustomers++];
  snprintf(n->id, sizeof n->id, "c%03d", 999);
  snprintf(n->email, sizeof n->email, "new@example.com");
  snprintf(n->name, sizeof n->name, "Newcomer");
  n->pro = 1;
  ddbst_item_reset(nv, ddbst_model_entity(v2, "Customer"));
  set(nv, "customerId", n->id);
  set(nv, "email", n->email);
  set(nv, "name", n->name);
  set(nv, "tier", "pro");
  int op = ddbst_migration_write_request(mig, nv, DDBST_OP_PUT_ITEM,
                                         DDBST_CREATE, ITEST_NOW_US,
                                         itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  assert_non_null(strstr(ddbst_buf_data(f->body), "\"ConditionCheck\""));
  itest_ok(f, op);
  ddbst_item_free(ov);
  ddbst_item_free(nv);
  return 1;
}

/* One segment of the pass: every page, each continued from the cursor of
 * the page before. `change`: make the concurrent changes on a page. */
static void pass_segment(itest_fixture *f, ddbst_model *v1, int segment,
                         int *change, tally *t) {
  ddbst_scan *scan = ddbst_scan_new(v2);
  ddbst_page *page = ddbst_page_new(v2);
  ddbst_buf *body = ddbst_buf_new(NULL), *cursor = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_scan_segment(scan, (uint32_t)segment, SEGMENTS,
                                      &f->err),
                   0);
  int more = 1, first = 1;
  while (more) {
    assert_int_equal(ddbst_scan_request(scan, DDBST_CONSISTENT_READ, PAGE,
                                        first ? NULL : ddbst_buf_data(cursor),
                                        DDBST_NUL_TERMINATED, keys, DDBST_NOW,
                                        body, &f->err),
                     DDBST_OP_SCAN);
    first = 0;
    assert_int_equal(itest_send_json(f, "Scan", ddbst_buf_data(body)), 200);
    const char *answer = itest_client_body(f->client);
    int n = ddbst_page_parse_scan(page, scan, answer, strlen(answer), &f->err);
    if (n < 0) fail_msg("%s: %s", f->err.path, f->err.message);
    assert_int_equal(ddbst_migration_page(mig, page, &f->err), n);
    if (*change && change_under_the_pass(f, v1, page)) *change = 0;
    int op, r;
    while ((r = ddbst_migration_next(mig, &op, body, &f->err)) > 0) {
      if (r == DDBST_MIGRATE_WRITE) send_write(f, op, body, t);
      if (r == DDBST_MIGRATE_SKIP) t->skips++;
      if (r == DDBST_MIGRATE_GUARD) t->guards++;
      if (r == DDBST_MIGRATE_REFUSED || r == DDBST_MIGRATE_FOREIGN) {
        t->refused++;
        fprintf(stderr, "reported: %s\n", ddbst_buf_data(body));
      }
    }
    assert_int_equal(r, 0);
    more = ddbst_page_next_cursor(page, keys, DDBST_NOW, cursor, &f->err);
    assert_true(more >= 0);
  }
  ddbst_buf_free(cursor);
  ddbst_buf_free(body);
  ddbst_page_free(page);
  ddbst_scan_free(scan);
}

/* Every page of the table through ddbst_migration_verify: problems. */
static int verify_all(itest_fixture *f) {
  ddbst_migration *vm;
  assert_int_equal(ddbst_migration_new(f->model, v2, 0, &vm, &f->err), 0);
  ddbst_scan *scan = ddbst_scan_new(v2);
  ddbst_page *page = ddbst_page_new(v2);
  ddbst_buf *body = ddbst_buf_new(NULL), *cursor = ddbst_buf_new(NULL),
            *out = ddbst_buf_new(NULL);
  int more = 1, first = 1, problems = 0;
  while (more) {
    assert_int_equal(ddbst_scan_request(scan, DDBST_CONSISTENT_READ, 100,
                                        first ? NULL : ddbst_buf_data(cursor),
                                        DDBST_NUL_TERMINATED, keys, DDBST_NOW,
                                        body, &f->err),
                     DDBST_OP_SCAN);
    first = 0;
    assert_int_equal(itest_send_json(f, "Scan", ddbst_buf_data(body)), 200);
    const char *answer = itest_client_body(f->client);
    assert_true(ddbst_page_parse_scan(page, scan, answer, strlen(answer),
                                      &f->err) >= 0);
    int n = ddbst_migration_verify(vm, page, out, &f->err);
    assert_true(n >= 0);
    if (n) fprintf(stderr, "%s", ddbst_buf_data(out));
    problems += n;
    more = ddbst_page_next_cursor(page, keys, DDBST_NOW, cursor, &f->err);
  }
  ddbst_buf_free(out);
  ddbst_buf_free(cursor);
  ddbst_buf_free(body);
  ddbst_page_free(page);
  ddbst_scan_free(scan);
  ddbst_migration_free(vm);
  return problems;
}

static int by_placed(const void *a, const void *b) {
  const order *x = *(const order *const *)a, *y = *(const order *const *)b;
  int c = strcmp(x->placed, y->placed);
  return c ? c : strcmp(x->id, y->id);
}

/* Every pattern of v2 against the oracle. */
static void check_patterns(itest_fixture *f) {
  char expect[8192];
  for (int i = 0; i < ncustomers; i++) {
    customer *c = &customers[i];
    char kv[64], sk[64];
    ITEST_FORMAT(kv, "customerId=%s", c->id);
    ITEST_FORMAT(sk, "PROFILE#%s", c->id);
    ITEST_VALUES(f, "Customer", kv);
    yajl_val item = itest_get(f);
    if (c->deleted) {
      assert_null(item);
      continue;
    }
    assert_non_null(item);
    assert_string_equal(itest_s(item, "name"), c->name);
    assert_string_equal(itest_s(item, "region"), "eu");
    assert_string_equal(itest_s(item, "SK"), sk);
    assert_string_equal(itest_s(item, "tier"), c->pro ? "pro" : "free");
  }
  /* listOrders: each customer's orders, by placedAt at milliseconds */
  for (int i = 0; i < CUSTOMERS; i++) {
    const order *mine[ORDERS];
    int n = 0;
    for (int k = 0; k < ORDERS; k++)
      if (orders[k].customer == i) mine[n++] = &orders[k];
    qsort(mine, (size_t)n, sizeof *mine, by_placed);
    expect[0] = '\0';
    for (int k = 0; k < n; k++) {
      strcat(expect, k ? " " : "");
      strcat(expect, mine[k]->id);
    }
    char kv[64];
    ITEST_FORMAT(kv, "customerId=%s", customers[i].id);
    ITEST_VALUES(f, "Order", kv);
    itest_expect(f, itest_query(f, "listOrders", NULL), "orderId", expect,
                 "listOrders after the migration");
  }
  /* proCustomers: the sparse index holds exactly the pro customers alive */
  expect[0] = '\0';
  for (int i = 0; i < ncustomers; i++)
    if (customers[i].pro && !customers[i].deleted) {
      strcat(expect, expect[0] ? " " : "");
      strcat(expect, customers[i].id);
    }
  ITEST_VALUES(f, "Customer", "tier=pro");
  itest_expect(f, itest_query(f, "proCustomers", NULL), "customerId", expect,
               "proCustomers after the migration");
}

/* The table holds no old key, no stale index attribute, one guard per
 * customer alive naming its new key, and one item per order. */
static void check_table(itest_fixture *f) {
  yajl_val items = itest_scan_table(f);
  int alive = 0, guards = 0, custs = 0, ords = 0;
  for (int i = 0; i < ncustomers; i++) alive += !customers[i].deleted;
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val it = items->u.array.values[i];
    const char *sk = itest_s(it, "SK"), *type = itest_s(it, "_type");
    assert_null(itest_s(it, "GSI1PK"));
    assert_null(itest_s(it, "GSI1SK"));
    if (!strcmp(type, "Customer.email")) {
      const char *path[] = {"holderKey", "M", "SK", "S", NULL};
      yajl_val h = yajl_tree_get(it, path, yajl_t_string);
      assert_non_null(h);
      assert_memory_equal(YAJL_GET_STRING(h), "PROFILE#", 8);
      guards++;
    } else if (!strcmp(type, "Customer")) {
      assert_memory_equal(sk, "PROFILE#", 8);
      custs++;
    } else {
      assert_string_equal(type, "Order");
      assert_int_equal(strlen(sk), strlen("ORDER#2026-02-01T00:00:00.000Z#o000"));
      ords++;
    }
  }
  assert_int_equal(custs, alive);
  assert_int_equal(guards, alive);
  assert_int_equal(ords, ORDERS);
}

static void migrate_under_writers(void **state) {
  (void)state;
  itest_fixture *f = itest_open(
      DDBST_SOURCE_DIR "/tests/integration/models/migrate_v1.json", "migrate");
  assert_non_null(f);
  ddbst_model *v1 = f->model;
  keys = ddbst_cursor_keys_new(NULL);
  assert_int_equal(
      ddbst_cursor_keys_add_hex(
          keys,
          "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100",
          &f->err),
      0);
  write_old_items(f);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = f->table;
  assert_int_equal(ddbst_model_load_file(DDBST_SOURCE_DIR
                                         "/tests/integration/models/"
                                         "migrate_v2.json",
                                         &o, &v2, &f->err),
                   0);
  assert_int_equal(ddbst_migration_new(v1, v2, 0, &mig, &f->err), 0);
  assert_int_equal(ddbst_migration_step_count(mig), 4);

  run_index_step(f, 0); /* GSI2 */
  assert_int_equal(ddbst_migration_step(mig, 1, NULL), DDBST_STEP_SCAN);
  tally t = {0};
  int change = 1;
  for (int s = 0; s < SEGMENTS; s++) pass_segment(f, v1, s, &change, &t);
  assert_int_equal(change, 0);
  /* every customer and order written once, but the deleted customer;
   * the three items changed under the pass redone, the deleted one gone */
  assert_int_equal(t.refused, 0);
  assert_int_equal(t.redos, 3);
  assert_int_equal(t.gone, 1);
  assert_int_equal(t.writes, CUSTOMERS - 1 + ORDERS);

  /* a second pass writes nothing */
  tally again = {0};
  int no_change = 0;
  for (int s = 0; s < SEGMENTS; s++) pass_segment(f, v1, s, &no_change, &again);
  assert_int_equal(again.writes, 0);
  assert_int_equal(again.redos, 0);
  assert_int_equal(again.skips, CUSTOMERS + ORDERS); /* 1 deleted, 1 new */
  assert_int_equal(again.guards, CUSTOMERS);

  assert_int_equal(verify_all(f), 0);
  run_index_step(f, 3); /* GSI1 */

  f->model = v2;
  ddbst_item_free(f->item);
  f->item = ddbst_item_new(v2, 0);
  check_patterns(f);
  check_table(f);
  ddbst_item_free(f->item);
  f->item = ddbst_item_new(v1, 0);
  f->model = v1;
  ddbst_migration_free(mig);
  ddbst_model_free(v2);
  ddbst_cursor_keys_free(keys);
  assert_int_equal(itest_close(f), 0);
}

int main(void) {
  if (itest_should_skip("test_migrate")) return ITEST_SKIP;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(migrate_under_writers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
