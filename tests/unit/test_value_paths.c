/* The values' short ways held to the general ones (item/item.c), where the
 * other setters are held in test_set_paths.c:
 *  - an enum value found by the vector compare (4 to 16 bytes) or the
 *    general loop is exactly what ddbst__value_canon accepts, with the same
 *    text, the model's scan, and on refusal the same error, for every
 *    listed value with each of its bytes replaced by every byte value, and
 *    cut or lengthened by one, the input ending at a guard page;
 *  - a reset clears every value, whichever entity the item held before,
 *    and the rarely used slots (previous values, projections) too. */
#include <stdio.h>
#include <string.h>

#include "item/item.h"
#include "model/value_canon.h"
#include "support.h"

static const char model_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\"},\"entities\":{"
    "\"Wide\":{\"attributes\":{\"id\":\"string\",\"kind\":{\"type\":\"enum\","
    "\"values\":[\"a\",\"ab\",\"abc\",\"abcd\",\"abce\",\"ebcd\",\"a#cd\","
    "\"a\\\"cd\",\"abcdefg\",\"abcdefgh\",\"abcdefgi\",\"xbcdefgh\","
    "\"abcdefghijkl\",\"abcdefghijklmnop\",\"abcdefghijklmnoq\","
    "\"Abcdefghijklmnop\",\"abcdefghijklmnopq\","
    "\"abcdefghijklmnopqrstuvwxyz0123456789\",\"caf\\u00e9 noir\"]},"
    "\"b\":\"string\",\"c\":\"string\",\"d\":\"string\",\"e\":\"string\","
    "\"f\":\"string\"},\"key\":{\"pk\":\"W#{id}\",\"sk\":\"W\"}},"
    "\"Narrow\":{\"attributes\":{\"id\":\"string\",\"g\":\"string\"},"
    "\"key\":{\"pk\":\"N#{id}\",\"sk\":\"N\"}}}}";

static long compared;

/* Setting s[0..n) must do what ddbst__value_canon says of it. */
static void one_enum(ddbst_item *it, int attr, const char *s, size_t n) {
  const ddbst__attr *a = &it->attrs[attr];
  ddbst_buf *want = ddbst_buf_new(NULL);
  char why[160];
  int want_rc = ddbst__value_canon(a, s, n, want, why, sizeof why);
  char *in = guard_copy(s, n);
  ddbst_item_reset(it, it->entity);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_item_set(it, attr, in, n, &err);
  if (rc != want_rc)
    fail_msg("'%.*s' (%zu bytes): set says %d, ddbst__value_canon %d",
             (int)n, s, n, rc, want_rc);
  if (rc == 0) {
    const ddbst__val *v = &it->vals[attr];
    assert_int_equal(v->len, ddbst_buf_len(want));
    assert_memory_equal(it->text.data + v->off, ddbst_buf_data(want), n);
    assert_int_equal(it->text.data[v->off + n], '\0');
    size_t i = 0;
    while (a->value_lens[i] != n || memcmp(a->values[i], s, n) != 0) i++;
    assert_int_equal(v->scan, a->value_scans[i]);
  } else {
    char message[sizeof err.message];
    snprintf(message, sizeof message, "%s: %s", a->name, why);
    assert_string_equal(err.message, message);
    assert_string_equal(err.path, "Wide.kind");
    assert_false(it->vals[attr].set);
  }
  guard_free(in);
  ddbst_buf_free(want);
  compared++;
}

static void enums_as_value_canon(void **state) {
  (void)state;
  ddbst_model *m = load_text(model_json);
  int wide = ddbst_model_entity(m, "Wide");
  ddbst_item *it = ddbst_item_new(m, wide);
  int attr = ddbst_model_attribute(m, wide, "kind");
  assert_true(attr >= 0);
  const ddbst__attr *a = &it->attrs[attr];
  assert_true(a->nvalues > 10);
  for (size_t v = 0; v < a->nvalues; v++) {
    char s[64];
    size_t n = a->value_lens[v];
    assert_true(n + 1 < sizeof s);
    memcpy(s, a->values[v], n);
    one_enum(it, attr, s, n);
    /* each byte replaced by every byte value */
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 256; c++) {
        s[i] = (char)c;
        one_enum(it, attr, s, n);
        s[i] = a->values[v][i];
      }
    /* one byte short, one byte more */
    one_enum(it, attr, s, n - 1);
    s[n] = 'x';
    one_enum(it, attr, s, n + 1);
  }
  one_enum(it, attr, "", 0);
  assert_true(compared > 10000);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static int nset(const ddbst_item *it) {
  int k = 0;
  for (int i = 0; i < it->m->max_attrs; i++) k += it->vals[i].set;
  return k;
}

static void resets_clear_every_value(void **state) {
  (void)state;
  ddbst_model *m = load_text(model_json);
  int wide = ddbst_model_entity(m, "Wide");
  int narrow = ddbst_model_entity(m, "Narrow");
  ddbst_item *it = ddbst_item_new(m, narrow);
  for (int round = 0; round < 3; round++) {
    /* every attribute of the wider entity, then the narrower's */
    assert_int_equal(ddbst_item_reset(it, wide), 0);
    assert_int_equal(nset(it), 0);
    int nwide = m->entities[wide].nattrs;
    for (int i = 0; i < nwide; i++)
      if (i != ddbst_model_attribute(m, wide, "kind"))
        assert_int_equal(ddbst_item_set(it, i, "v", 1, NULL), 0);
    assert_int_equal(nset(it), nwide - 1);
    int b = ddbst_model_attribute(m, wide, "b");
    assert_int_equal(ddbst_item_set_previous(it, b, "prev", 4, NULL), 0);
    assert_int_equal(ddbst_item_project(it, 0), 0);
    assert_int_equal(ddbst_item_reset(it, narrow), 0);
    assert_int_equal(nset(it), 0);
    for (int i = 0; i < it->m->max_attrs; i++) {
      assert_false(it->prev[i].set);
      assert_false(it->projected[i]);
    }
    assert_int_equal(it->text.len, 0);
    assert_int_equal(ddbst_item_set(it, 0, "n-1", 3, NULL), 0);
    assert_int_equal(ddbst_item_set(it, 1, "g", 1, NULL), 0);
    /* the same entity again */
    assert_int_equal(ddbst_item_reset(it, narrow), 0);
    assert_int_equal(nset(it), 0);
    assert_int_equal(ddbst_item_set(it, 1, "g", 1, NULL), 0);
  }
  assert_int_equal(ddbst_item_reset(it, 2), DDBST_EINVAL);
  assert_int_equal(ddbst_item_reset(it, -1), DDBST_EINVAL);
  assert_int_equal(ddbst_item_reset(NULL, 0), DDBST_EINVAL);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(enums_as_value_canon),
      cmocka_unit_test(resets_clear_every_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
