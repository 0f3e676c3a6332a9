/* The query bodies fixed at load (model/compile_query_bodies.c) are what
 * the general path writes, byte for byte: for every query pattern of every
 * example model and each entity it reads, with the partition's facets set
 * (plainly, and to text that needs a JSON escape), with and without the
 * sort key's facets, a limit, ConsistentRead, a count and a projection, the
 * body is built with the fixed bodies and again with them off. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "request/query_fixed.h"
#include "support.h"

static const char *const models[] = {
    "examples/saas/model.json",     "examples/blog/model.json",
    "examples/catalog/model.json",  "examples/games/model.json",
    "examples/mailbox/model.json",  "examples/orgchart/model.json",
    "examples/shop/model.json",
};

/* Sets attribute a to the first candidate its type takes: 1 when set. */
static int set_any(ddbst_item *it, const ddbst__attr *a, int escaped) {
  const char *cands[] = {escaped ? "q\"v\\w" : "Val-1",
                         "val-2",
                         "7",
                         "2026-01-02T03:04:05Z",
                         "2026-01-02T03:04:05.123Z",
                         "2026-01-02T03:04:05.123456Z",
                         "01ARZ3NDEKTSV4RRFFQ69G5FAV",
                         "true",
                         a->nvalues ? a->values[0] : "x"};
  ddbst_error err;
  for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
    if (try_set(it, a->name, cands[i], &err) == 0) return 1;
  return 0;
}

static long compared, fixed_used;

/* The body both ways, for one item and one set of options. */
static void compare(ddbst_item *it, int pattern, const ddbst_query *q,
                    ddbst_buf *a, ddbst_buf *b) {
  ddbst_error ea, eb;
  memset(&ea, 0, sizeof ea);
  memset(&eb, 0, sizeof eb);
  ddbst__query_fixed_off = 0;
  int ra = ddbst_query_request(it, pattern, q, a, &ea);
  ddbst__query_fixed_off = 1;
  int rb = ddbst_query_request(it, pattern, q, b, &eb);
  ddbst__query_fixed_off = 0;
  assert_int_equal(ra, rb);
  assert_string_equal(ea.message, eb.message);
  assert_int_equal(ddbst_buf_len(a), ddbst_buf_len(b));
  assert_memory_equal(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a));
  compared++;
}

static void one_model(const char *path) {
  ddbst_model *m = load_example(path);
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (int p = 0; p < m->npatterns; p++) {
    const ddbst__pattern *pt = &m->patterns[p];
    if (pt->op != DDBST__OP_QUERY) continue;
    for (int j = 0; j < pt->nentities; j++) {
      const ddbst__entity *e = &m->entities[pt->entities[j]];
      const ddbst__ekey *k = ddbst__entity_key(e, pt->index);
      ddbst_item *it = ddbst_item_new(m, pt->entities[j]);
      assert_non_null(it);
      for (int variant = 0; variant < 6; variant++) {
        ddbst_item_reset(it, pt->entities[j]);
        int ok = 1;
        for (int s = 0; k && s < k->pk.nsegs; s++)
          if (k->pk.segs[s].attr >= 0)
            ok &= set_any(it, &e->attrs[k->pk.segs[s].attr], variant == 1);
        if (!ok) continue;
        /* variant 2: the sort key's first facet; 3: all of them */
        for (int s = 0; k && variant >= 2 && variant <= 3 && s < k->sk.nsegs;
             s++) {
          if (k->sk.segs[s].attr < 0) continue;
          set_any(it, &e->attrs[k->sk.segs[s].attr], 0);
          if (variant == 2) break;
        }
        /* variant 5: a projection */
        if (variant == 5 && e->nattrs)
          ddbst_item_project(it, e->nattrs - 1);
        ddbst_query q;
        memset(&q, 0, sizeof q);
        q.size = sizeof q;
        q.limit = variant == 4 ? 7 : 0;
        q.flags = variant == 4 ? DDBST_QUERY_COUNT : 0;
        if (variant == 4 && pt->index < 0) q.flags |= DDBST_CONSISTENT_READ;
        if (!pt->fixed_open.n) {
          compare(it, p, &q, a, b);
          continue;
        }
        ddbst__query_fixed_off = 0;
        compare(it, p, &q, a, b);
        if (variant <= 1 || variant == 4) fixed_used++;
      }
      ddbst_item_free(it);
    }
  }
  ddbst_buf_free(a);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void fixed_bodies_are_the_general_ones(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
    one_model(models[i]);
  /* the comparison is not vacuous: fixed bodies were made and taken */
  assert_true(compared > 100);
  assert_true(fixed_used > 20);
}

/* The exact body of the bench's listing, with and without a limit. */
static void saas_listing(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int pattern = ddbst_model_pattern(m, "listProjects");
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
  ddbst_buf *out = ddbst_buf_new(NULL);
  assert_true(m->patterns[pattern].fixed_open.n > 0);
  set(it, "orgId", "acme");
  assert_int_equal(ddbst_query_request(it, pattern, NULL, out, NULL),
                   DDBST_OP_QUERY);
  assert_string_equal(
      ddbst_buf_data(out),
      "{\"TableName\":\"saas-api-dev\",\"KeyConditionExpression\":\"#n0 = :v0 "
      "AND begins_with(#n1, :v1)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\",\"#n1\":\"SK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"ORG#acme\"},\":v1\":{\"S\":\"PROJECT#\"}},\"ScanIndexForward\":false,"
      "\"Limit\":25}");
  ddbst_buf_free(out);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixed_bodies_are_the_general_ones),
      cmocka_unit_test(saas_listing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
