/* The end of the migration proof: what the table holds, read back from
 * DynamoDB Local, against the oracle (the initial items and the writer's
 * log). Items are told by their identity (migrate_data.h), read from
 * their keys by the NEW model: a key it cannot read is an old key left
 * behind. */
#include "migrate_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static yajl_val member(yajl_val obj, const char *name) {
  const char *path[] = {name, NULL};
  return yajl_tree_get(obj, path, yajl_t_any);
}

/* The identity of a raw item read back (from its table keys), into `id`;
 * fails the test when the NEW model cannot read them. */
static void identity_of(itest_fixture *f, yajl_val raw, ddbst_item *scratch,
                        char *id, size_t cap) {
  const char *pk = itest_s(raw, "PK"), *sk = itest_s(raw, "SK");
  ddbst_error err;
  if (!pk || !sk)
    fail_msg("an item without PK or SK: %s", itest_labels(f, raw, "PK"));
  int rc = ddbst_item_from_key(scratch, NULL, pk, strlen(pk), sk, strlen(sk),
                               &err);
  if (rc < 0)
    fail_msg("%s / %s: not a key of the NEW model (an old key left "
             "behind?): %s",
             pk, sk, err.message);
  if (mig_identity(f->model, scratch, id, cap))
    fail_msg("%s / %s: no id", pk, sk);
}

/* One AttributeValue as "type:text" (S and N: the models hold no other). */
static void av_text(yajl_val av, char *out, size_t cap) {
  if (!YAJL_IS_OBJECT(av) || av->u.object.len != 1) {
    snprintf(out, cap, "(not an AttributeValue)");
    return;
  }
  yajl_val v = av->u.object.values[0];
  snprintf(out, cap, "%s:%s", av->u.object.keys[0],
           YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "(not text)");
}

/* `got` must hold exactly the attributes of `want`, with their values. */
static void expect_item(const char *id, yajl_val got, yajl_val want) {
  char a[1024], b[1024];
  for (size_t i = 0; i < want->u.object.len; i++) {
    const char *name = want->u.object.keys[i];
    yajl_val g = member(got, name);
    av_text(want->u.object.values[i], a, sizeof a);
    if (!g) fail_msg("%s: %s missing (expected %s)", id, name, a);
    av_text(g, b, sizeof b);
    if (strcmp(a, b)) fail_msg("%s: %s is %s, expected %s", id, name, b, a);
  }
  for (size_t i = 0; i < got->u.object.len; i++)
    if (!member(want, got->u.object.keys[i]))
      fail_msg("%s: %s should not be there (a stale attribute)", id,
               got->u.object.keys[i]);
}

/* The item a put of the NEW model writes for `r`: a tree to free, and in
 * *item its Item. */
static yajl_val expected_item(itest_fixture *f, mig_record *r, yajl_val *item) {
  ddbst_error err;
  int op = ddbst_put_request(r->item, 0, ITEST_NOW_US, f->body, &err);
  if (op < 0) fail_msg("%s: the oracle's put: %s", r->id, err.message);
  char why[256];
  yajl_val tree = yajl_tree_parse(ddbst_buf_data(f->body), why, sizeof why);
  if (!tree || !(*item = member(tree, "Item")))
    fail_msg("%s: the oracle's put body: %s", r->id, why);
  return tree;
}

void mig_check_table(itest_fixture *f, mig_store *oracle) {
  size_t n = mig_store_count(oracle), live = 0;
  char *seen = calloc(n ? n : 1, 1);
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  assert_non_null(seen);
  assert_non_null(scratch);
  yajl_val items = itest_scan_table(f);
  char id[64];
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val raw = items->u.array.values[i];
    identity_of(f, raw, scratch, id, sizeof id);
    mig_record *r = mig_store_find(oracle, id);
    if (!r || !r->live)
      fail_msg("%s (%s / %s) is in the table, and %s", id, itest_s(raw, "PK"),
               itest_s(raw, "SK"),
               r ? "the writer deleted it" : "was never written");
    size_t k = (size_t)(r - mig_store_record(oracle, 0));
    if (seen[k]++)
      fail_msg("%s is in the table twice (%s / %s)", id, itest_s(raw, "PK"),
               itest_s(raw, "SK"));
    yajl_val want;
    yajl_val tree = expected_item(f, r, &want);
    expect_item(id, raw, want);
    yajl_tree_free(tree);
  }
  for (size_t k = 0; k < n; k++) {
    mig_record *r = mig_store_record(oracle, k);
    if (r->live && !seen[k]) fail_msg("%s is lost: not in the table", r->id);
    live += r->live;
  }
  assert_int_equal(items->u.array.len, live);
  printf("table: %zu items, each exactly the oracle's\n", live);
  ddbst_item_free(scratch);
  free(seen);
}

/* ---- patterns ---- */

/* A query pattern, the key attributes it reads, the facet of its
 * partition key (the only value a query of the whole partition is given:
 * a sort-key facet would narrow it) and its order. */
typedef struct pattern_spec {
  const char *pattern, *entity, *index, *pk, *sk, *facet;
  int desc;
} pattern_spec;

static const pattern_spec specs[] = {
    {"accountsByPlan", "Account", "GSI1", "GSI1PK", "GSI1SK", "plan", 0},
    {"listOrders", "Order", NULL, "PK", "SK", "accountId", 1},
    {"ordersByStatus", "Order", "GSI1", "GSI1PK", "GSI1SK", "status", 1},
    {"listTickets", "Ticket", NULL, "PK", "SK", "accountId", 0},
    {"openTicketsByAssignee", "Ticket", "GSI3", "GSI3PK", "GSI3SK", "assignee",
     0},
};

typedef struct entry {
  char pk[128], sk[160];
  mig_record *r;
} entry;

static int desc_order;
static int by_key(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->pk, y->pk);
  if (c) return c;
  c = strcmp(x->sk, y->sk);
  return desc_order ? -c : c;
}

/* The key attribute `name` the NEW model gives `r`, into `out`: 1, or 0
 * when the item has none (not in that index). */
static int key_of(mig_record *r, const char *name, char *out, size_t cap) {
  ddbst_error err;
  int n = ddbst_item_build_keys(r->item, &err);
  if (n < 0) fail_msg("%s: its keys: %s", r->id, err.message);
  for (int i = 0; i < n; i++) {
    const char *k, *v;
    ddbst_item_key(r->item, i, &k, &v, NULL);
    if (!strcmp(k, name)) {
      snprintf(out, cap, "%s", v);
      return 1;
    }
  }
  return 0;
}

/* f->item: the values of `r` (only `facet`'s when not NULL). */
static void values_from(itest_fixture *f, mig_record *r, const char *facet) {
  ddbst_error err;
  ddbst_item_reset(f->item, r->entity);
  int n = ddbst_model_attribute_count(f->model, r->entity);
  for (int a = 0; a < n; a++) {
    const char *text;
    size_t len;
    if (facet && strcmp(ddbst_model_attribute_name(f->model, r->entity, a),
                        facet))
      continue;
    if (ddbst_item_get(r->item, a, &text, &len) == 1 &&
        ddbst_item_set(f->item, a, text, len, &err))
      fail_msg("%s: %s", r->id, err.message);
  }
}

/* The ids of `items`, space-separated, into `out`. */
static void ids_of(itest_fixture *f, yajl_val items, char *out, size_t cap) {
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < items->u.array.len && len + 64 < cap; i++) {
    char id[64];
    identity_of(f, items->u.array.values[i], scratch, id, sizeof id);
    len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", id);
  }
  ddbst_item_free(scratch);
}

static void check_pattern(itest_fixture *f, mig_store *oracle,
                          const pattern_spec *p, size_t *queries) {
  size_t n = mig_store_count(oracle), count = 0;
  entry *e = calloc(n ? n : 1, sizeof *e);
  assert_non_null(e);
  int entity = ddbst_model_entity(f->model, p->entity);
  for (size_t k = 0; k < n; k++) {
    mig_record *r = mig_store_record(oracle, k);
    if (!r->live || r->entity != entity) continue;
    if (!key_of(r, p->pk, e[count].pk, sizeof e[count].pk)) continue;
    key_of(r, p->sk, e[count].sk, sizeof e[count].sk);
    e[count++].r = r;
  }
  desc_order = p->desc;
  qsort(e, count, sizeof *e, by_key);
  static char want[1 << 20], got[1 << 20];
  size_t members = 0;
  if (p->index) { /* the index holds exactly these items, no stale one */
    yajl_val all = itest_scan_index(f, p->index);
    for (size_t i = 0; i < all->u.array.len; i++)
      members += !strcmp(itest_s(all->u.array.values[i], "_type"), p->entity);
    if (members != count)
      fail_msg("index %s holds %zu items of %s; the oracle says %zu",
               p->index, members, p->entity, count);
  }
  for (size_t i = 0; i < count;) {
    size_t j = i, len = 0;
    want[0] = '\0';
    for (; j < count && !strcmp(e[j].pk, e[i].pk); j++)
      len += (size_t)snprintf(want + len, sizeof want - len, "%s%s",
                              j > i ? " " : "", e[j].r->id);
    values_from(f, e[i].r, p->facet);
    yajl_val items = itest_query(f, p->pattern, NULL);
    ids_of(f, items, got, sizeof got);
    if (strcmp(want, got))
      fail_msg("%s of %s: got\n  %s\nexpected\n  %s", p->pattern, e[i].pk,
               got, want);
    (*queries)++;
    i = j;
  }
  printf("%s: %zu items in their order%s\n", p->pattern, count,
         p->index ? ", and the index holds no other" : "");
  free(e);
}

static void check_gets(itest_fixture *f, mig_store *oracle, const char *entity,
                       size_t every) {
  int e = ddbst_model_entity(f->model, entity);
  size_t n = mig_store_count(oracle), gets = 0, seen = 0;
  char id[64];
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  for (size_t k = 0; k < n; k++) {
    mig_record *r = mig_store_record(oracle, k);
    if (!r->live || r->entity != e || seen++ % every) continue;
    values_from(f, r, NULL);
    yajl_val item = itest_get(f);
    if (!item) fail_msg("%s: GetItem finds nothing", r->id);
    identity_of(f, item, scratch, id, sizeof id);
    assert_string_equal(id, r->id);
    gets++;
  }
  printf("get%s: %zu items found (every %zu%s)\n", entity, gets, every,
         every == 1 ? "" : "th");
  ddbst_item_free(scratch);
}

void mig_check_patterns(itest_fixture *f, mig_store *oracle) {
  size_t queries = 0;
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
    check_pattern(f, oracle, &specs[i], &queries);
  check_gets(f, oracle, "Account", 1);
  check_gets(f, oracle, "Ticket", 5);
  printf("patterns: %zu queries\n", queries);
}

int mig_verify_all(itest_fixture *f, const ddbst_model *old_model) {
  ddbst_error err;
  ddbst_migration *m = NULL;
  assert_int_equal(ddbst_migration_new(old_model, f->model, 0, &m, &err), 0);
  ddbst_scan *scan = ddbst_scan_new(f->model);
  ddbst_page *page = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL), *out = ddbst_buf_new(NULL);
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  const uint8_t key[32] = {0x19, 0x4d};
  assert_int_equal(ddbst_cursor_keys_add(keys, key, &err), 0);
  int problems = 0, more = 0;
  do {
    int op = ddbst_scan_request(scan, DDBST_CONSISTENT_READ, 0,
                                more ? ddbst_buf_data(cursor) : NULL,
                                more ? ddbst_buf_len(cursor) : 0, keys,
                                DDBST_NOW, itest_body(f), &err);
    itest_ok(f, op);
    const char *answer = itest_client_body(f->client);
    int n = ddbst_page_parse_scan(page, scan, answer, strlen(answer), &err);
    if (n < 0) fail_msg("a scan page: %s", err.message);
    int p = ddbst_migration_verify(m, page, out, &err);
    if (p < 0) fail_msg("ddbst_migration_verify: %s", err.message);
    if (p) printf("%s", ddbst_buf_data(out));
    problems += p;
    more = ddbst_page_next_cursor(page, keys, DDBST_NOW, cursor, &err);
    if (more < 0) fail_msg("the next cursor: %s", err.message);
  } while (more);
  ddbst_cursor_keys_free(keys);
  ddbst_buf_free(out);
  ddbst_buf_free(cursor);
  ddbst_page_free(page);
  ddbst_scan_free(scan);
  ddbst_migration_free(m);
  return problems;
}
