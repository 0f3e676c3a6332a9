/* Batches (src/request/batch.c): reads cut into chunks of 100 keys and
 * writes into chunks of 25, in the order given; a key read twice read once,
 * a key written twice refused; entities and items a batch cannot hold
 * refused; the follow-up of unprocessed keys and items; allocation failure
 * at every site. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "base/internal.h"
#include "support.h"

static ddbst_model *saas;
static int user, project;
static ddbst_buf *out;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  user = ddbst_model_entity(saas, "User");
  project = ddbst_model_entity(saas, "Project");
  out = ddbst_buf_new(NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_model_free(saas);
  return 0;
}

static ddbst_item *user_key(const char *org, const char *id) {
  ddbst_item *it = ddbst_item_new(saas, user);
  set(it, "orgId", org);
  set(it, "userId", id);
  return it;
}

static ddbst_item *project_of(int i) {
  char id[16];
  snprintf(id, sizeof id, "p%03d", i);
  ddbst_item *it = ddbst_item_new(saas, project);
  set(it, "orgId", "o1");
  set(it, "projectId", id);
  set(it, "createdAt", "2026-01-02T03:04:05Z");
  set(it, "status", "active");
  return it;
}

/* The number of elements of body's RequestItems.<table>[.Keys], and the
 * first element's PK, checked as JSON. */
static size_t chunk_size(const char *body, int reads, char *first_sk,
                         size_t cap) {
  char why[128];
  yajl_val v = yajl_tree_parse(body, why, sizeof why);
  if (!v) fail_msg("not JSON: %s: %s", why, body);
  const char *get_path[] = {"RequestItems", "saas-api-dev", "Keys", NULL};
  const char *write_path[] = {"RequestItems", "saas-api-dev", NULL};
  yajl_val a = yajl_tree_get(v, reads ? get_path : write_path, yajl_t_array);
  assert_non_null(a);
  size_t n = a->u.array.len;
  if (first_sk && n) {
    yajl_val e = a->u.array.values[0];
    const char *sk_get[] = {"SK", "S", NULL};
    const char *sk_put[] = {"PutRequest", "Item", "SK", "S", NULL};
    const char *sk_del[] = {"DeleteRequest", "Key", "SK", "S", NULL};
    yajl_val sk = yajl_tree_get(e, reads ? sk_get : sk_put, yajl_t_string);
    if (!sk) sk = yajl_tree_get(e, sk_del, yajl_t_string);
    assert_non_null(sk);
    snprintf(first_sk, cap, "%s", sk->u.string);
  }
  yajl_tree_free(v);
  return n;
}

static void reads_in_chunks_of_100(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_batch *b = ddbst_batch_new(saas);
  for (int i = 0; i < 250; i++) {
    char id[16];
    snprintf(id, sizeof id, "u%03d", i);
    ddbst_item *it = user_key("o1", id);
    assert_int_equal(ddbst_batch_get(b, it, &err), 1);
    ddbst_item_free(it);
  }
  assert_int_equal(ddbst_batch_request_count(b), 3);
  static const size_t sizes[] = {100, 100, 50};
  static const char *const firsts[] = {"USER#u000", "USER#u100", "USER#u200"};
  for (int i = 0; i < 3; i++) {
    ddbst_buf_reset(out);
    assert_int_equal(ddbst_batch_request(b, i, 0, out, &err),
                     DDBST_OP_BATCH_GET_ITEM);
    char first[64];
    assert_int_equal(chunk_size(ddbst_buf_data(out), 1, first, sizeof first),
                     sizes[i]);
    assert_string_equal(first, firsts[i]);
    assert_null(strstr(ddbst_buf_data(out), "ConsistentRead"));
  }
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_batch_request(b, 2, DDBST_CONSISTENT_READ, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_non_null(strstr(ddbst_buf_data(out), "],\"ConsistentRead\":true}}}"));
  ddbst_batch_free(b);
}

static void a_key_read_twice_is_read_once(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_buf_reset(out);
  ddbst_batch *b = ddbst_batch_new(saas);
  ddbst_item *a = user_key("o1", "u1"), *a2 = user_key("o1", "u1"),
             *c = user_key("o1", "u2"), *d = user_key("o2", "u1");
  assert_int_equal(ddbst_batch_get(b, a, &err), 1);
  assert_int_equal(ddbst_batch_get(b, a2, &err), 0);
  assert_int_equal(ddbst_batch_get(b, c, &err), 1);
  assert_int_equal(ddbst_batch_get(b, d, &err), 1); /* another partition */
  assert_int_equal(ddbst_batch_get(b, a, &err), 0);
  assert_int_equal(ddbst_batch_request_count(b), 1);
  assert_int_equal(ddbst_batch_request(b, 0, 0, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":["
      "{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"}},"
      "{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u2\"}},"
      "{\"PK\":{\"S\":\"ORG#o2\"},\"SK\":{\"S\":\"USER#u1\"}}]}}}");
  /* after a reset, the keys are new again */
  ddbst_batch_reset(b);
  assert_int_equal(ddbst_batch_request_count(b), 0);
  assert_int_equal(ddbst_batch_get(b, a, &err), 1);
  ddbst_item_free(a);
  ddbst_item_free(a2);
  ddbst_item_free(c);
  ddbst_item_free(d);
  ddbst_batch_free(b);
}

static void writes_in_chunks_of_25_after_reads(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_batch *b = ddbst_batch_new(saas);
  ddbst_item *r = user_key("o1", "u1");
  assert_int_equal(ddbst_batch_get(b, r, &err), 1);
  ddbst_item_free(r);
  for (int i = 0; i < 60; i++) {
    ddbst_item *it = project_of(i);
    int rc = i % 3 ? ddbst_batch_put(b, it, 1767225600000000, &err)
                   : ddbst_batch_delete(b, it, &err);
    if (rc) fail_msg("%d: %s: %s", i, err.path, err.message);
    ddbst_item_free(it);
  }
  assert_int_equal(ddbst_batch_request_count(b), 1 + 3);
  static const size_t sizes[] = {25, 25, 10};
  static const char *const firsts[] = {"PROJECT#2026-01-02T03:04:05Z#p000",
                                       "PROJECT#2026-01-02T03:04:05Z#p025",
                                       "PROJECT#2026-01-02T03:04:05Z#p050"};
  for (int i = 0; i < 3; i++) {
    ddbst_buf_reset(out);
    assert_int_equal(
        ddbst_batch_request(b, 1 + i, DDBST_CONSISTENT_READ, out, &err),
        DDBST_OP_BATCH_WRITE_ITEM);
    char first[64];
    assert_int_equal(chunk_size(ddbst_buf_data(out), 0, first, sizeof first),
                     sizes[i]);
    assert_string_equal(first, firsts[i]);
    /* consistency is for reads */
    assert_null(strstr(ddbst_buf_data(out), "ConsistentRead"));
  }
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_batch_request(b, 4, 0, out, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "request 4 of 4 does not exist");
  assert_int_equal(ddbst_batch_request(b, -1, 0, out, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_batch_free(b);
}

static void what_a_batch_write_refuses(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_batch *b = ddbst_batch_new(saas);
  /* a second write of one key, put or delete */
  ddbst_item *p = project_of(1), *p2 = project_of(1);
  assert_int_equal(ddbst_batch_put(b, p, 1, &err), 0);
  assert_int_equal(ddbst_batch_delete(b, p2, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "batch");
  assert_string_equal(err.message,
                      "the batch already writes this Project; DynamoDB "
                      "refuses two writes of one key in a batch");
  /* the refused write left nothing: one request of one write */
  assert_int_equal(ddbst_batch_request_count(b), 1);
  assert_int_equal(ddbst_batch_request(b, 0, 0, out, &err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  assert_int_equal(chunk_size(ddbst_buf_data(out), 0, NULL, 0), 1);
  /* unique attributes need a transaction's guards */
  ddbst_item *u = user_key("o1", "u1");
  set(u, "email", "a@b.c");
  assert_int_equal(ddbst_batch_put(b, u, 1, &err), DDBST_EINVAL);
  assert_string_equal(err.path, "User");
  assert_non_null(strstr(err.message, "a batch write cannot hold conditions"));
  assert_int_equal(ddbst_batch_delete(b, u, &err), DDBST_EINVAL);
  /* a missing key facet names it */
  ddbst_item *k = ddbst_item_new(saas, project);
  set(k, "orgId", "o1");
  assert_int_equal(ddbst_batch_delete(b, k, &err), DDBST_EMISSING);
  /* reads of another model's item */
  ddbst_model *other = load_example("examples/blog/model.json");
  ddbst_batch *ob = ddbst_batch_new(other);
  assert_int_equal(ddbst_batch_get(ob, p, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "the item belongs to another model");
  assert_int_equal(ddbst_batch_get(NULL, p, &err), DDBST_EINVAL);
  ddbst_batch_free(ob);
  ddbst_model_free(other);
  ddbst_item_free(k);
  ddbst_item_free(u);
  ddbst_item_free(p);
  ddbst_item_free(p2);
  ddbst_batch_free(b);
}

/* What DynamoDB left unprocessed comes back as the next request, in the
 * form the batch writes. */
static void unprocessed_follow_ups(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_page *pg = ddbst_page_new(saas);
  static const char gets[] =
      "{\"Responses\":{\"saas-api-dev\":[]},\"UnprocessedKeys\":{"
      "\"saas-api-dev\":{\"Keys\":[{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"USER#u1\"}}],\"ConsistentRead\":true}}}";
  assert_int_equal(
      ddbst_page_parse(pg, DDBST_OP_BATCH_GET_ITEM, gets, strlen(gets), &err),
      0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(pg, out, &err),
                   DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"RequestItems\":{\"saas-api-dev\":{\"Keys\":[{\"PK\":"
                      "{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"}}],"
                      "\"ConsistentRead\":true}}}");
  static const char writes[] =
      "{\"UnprocessedItems\":{\"saas-api-dev\":[{\"DeleteRequest\":{\"Key\":"
      "{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":\"USER#u1\"}}}}]}}";
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_BATCH_WRITE_ITEM, writes,
                                    strlen(writes), &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(pg, out, &err),
                   DDBST_OP_BATCH_WRITE_ITEM);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"RequestItems\":{\"saas-api-dev\":[{\"DeleteRequest\":"
      "{\"Key\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":{\"S\":"
      "\"USER#u1\"}}}}]}}");
  /* nothing left: no follow-up */
  static const char done[] = "{\"UnprocessedItems\":{}}";
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_BATCH_WRITE_ITEM, done,
                                    strlen(done), &err),
                   0);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_page_followup_request(pg, out, &err), 0);
  assert_int_equal(ddbst_buf_len(out), 0);
  ddbst_page_free(pg);
}

/* Every allocation of a batch failing in turn: DDBST_ENOMEM, no leak, and
 * the batch as it was (its requests unchanged). */
static void allocation_failure_at_every_site(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  for (long fail_at = 1;; fail_at++) {
    counting_alloc ca;
    counting_alloc_init(&ca);
    ddbst_load_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.allocator = &ca.hooks;
    ddbst_model *m;
    assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
    ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(it);
    assert_non_null(b);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    ca.calls = 0;
    ca.fail_at = fail_at;
    ddbst_batch *batch = ddbst_batch_new(m);
    /* the one failure without an error to fill */
    int rc = batch ? 0 : ddbst__fail(&err, DDBST_ENOMEM, NULL, "no batch");
    for (int i = 0; !rc && i < 130; i++) {
      char id[16];
      snprintf(id, sizeof id, "p%03d", i);
      ddbst_item_reset(it, ddbst_model_entity(m, "Project"));
      rc = ddbst_item_set(
          it, ddbst_model_attribute(m, ddbst_item_entity(it), "orgId"), "o1",
          2, &err);
      rc = rc ? rc
              : ddbst_item_set(it,
                               ddbst_model_attribute(m, ddbst_item_entity(it),
                                                     "projectId"),
                               id, strlen(id), &err);
      rc = rc ? rc
              : ddbst_item_set(it,
                               ddbst_model_attribute(m, ddbst_item_entity(it),
                                                     "createdAt"),
                               "2026-01-02T03:04:05Z", 20, &err);
      int r = rc ? rc : ddbst_batch_get(batch, it, &err);
      rc = r < 0 ? r : 0;
      rc = rc ? rc : ddbst_batch_put(batch, it, 1, &err);
    }
    int n = rc ? 0 : ddbst_batch_request_count(batch);
    for (int i = 0; !rc && i < n; i++) {
      int op = ddbst_batch_request(batch, i, 0, b, &err);
      rc = op < 0 ? op : 0;
    }
    ca.fail_at = 0;
    if (rc && (rc != DDBST_ENOMEM || err.code != DDBST_ENOMEM))
      fail_msg("allocation %ld: rc %d, err %d %s: %s", fail_at, rc,
               (int)err.code, err.path, err.message);
    ddbst_batch_free(batch);
    ddbst_buf_free(b);
    ddbst_item_free(it);
    ddbst_model_free(m);
    assert_int_equal(ca.live, 0);
    if (!rc) {
      assert_int_equal(n, 2 + 6);
      break;
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reads_in_chunks_of_100),
      cmocka_unit_test(a_key_read_twice_is_read_once),
      cmocka_unit_test(writes_in_chunks_of_25_after_reads),
      cmocka_unit_test(what_a_batch_write_refuses),
      cmocka_unit_test(unprocessed_follow_ups),
      cmocka_unit_test(allocation_failure_at_every_site),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
