/* A put's Item written the short way (request/item_body.c) is the general
 * writer's Item, byte for byte: for the sample items of every example model
 * (review/sample.c: realistic values, shared partitions, every key as a
 * create writes it) under several seeds, and again with a plain string
 * attribute set to text that needs JSON escapes, the Item is written both
 * ways and compared. */
#include <string.h>

#include "request/request.h"
#include "review/sample.h"
#include "support.h"

static const char *const models[] = {
    "examples/saas/model.json",    "examples/blog/model.json",
    "examples/catalog/model.json", "examples/games/model.json",
    "examples/mailbox/model.json", "examples/orgchart/model.json",
    "examples/shop/model.json",
};

static long compared, short_way;

/* The Item both ways; the short way may decline (0), never differ. */
static void compare(ddbst_item *it, ddbst_buf *a, ddbst_buf *b) {
  ddbst_error ea, eb;
  memset(&ea, 0, sizeof ea);
  memset(&eb, 0, sizeof eb);
  ddbst_buf_reset(a);
  ddbst_buf_reset(b);
  int rb = ddbst__write_item(it, b, &eb);
  int ra = ddbst__write_item_simple(it, a, &ea);
  compared++;
  if (ra == 0)
    return;
  short_way++;
  assert_int_equal(ra, 1);
  assert_int_equal(rb, 0);
  assert_int_equal(ddbst_buf_len(a), ddbst_buf_len(b));
  assert_memory_equal(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a));
}

/* A plain string attribute that is no key facet, set to text with a quote,
 * a backslash and a control character: 1 when there was one. */
static int set_escaped(ddbst_item *it, const ddbst_model *m, int entity) {
  const ddbst__entity *e = &m->entities[entity];
  static const char text[] = "say \"hi\"\\\t!";
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    if (at->type != DDBST__T_STRING || at->nvalues)
      continue;
    ddbst_error err;
    if (ddbst_item_set(it, a, text, sizeof text - 1, &err) == 0)
      return 1;
  }
  return 0;
}

static void short_items_are_the_general_ones(void **state) {
  (void)state;
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    ddbst_model *m = load_example(models[i]);
    for (uint64_t seed = 1; seed <= 4; seed++) {
      ddbst__sample s;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      assert_int_equal(ddbst__sample_make(m, seed, &s, &err), 0);
      for (int r = 0; r < s.nrows; r++) {
        ddbst_item *it = s.rows[r].item;
        if (!it)
          continue;
        compare(it, a, b);
        if (set_escaped(it, m, s.rows[r].entity))
          compare(it, a, b);
      }
      ddbst__sample_free(&s);
    }
    ddbst_model_free(m);
  }
  ddbst_buf_free(a);
  ddbst_buf_free(b);
  /* the short way must have been taken, or nothing was compared (105 of
   * 784 when this was written: entities whose keys are simple) */
  print_message("%ld items compared, %ld written the short way\n", compared,
                short_way);
  assert_true(short_way > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(short_items_are_the_general_ones),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
