/* base/hash.h: FNV-1a, and the string-keyed set the page's name table, the
 * page's per-item set of unknown names and the batch's key sets share:
 * lookups, growth, O(1) clearing (stamp wrap included), removal inside a
 * probe cluster, allocation failure; and the batch's use of removal (a key
 * whose write failed may be written again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "base/hash.h"

/* The owner of the entries: keys by index. */
typedef struct keys {
  char text[512][16];
} keys;

static ddbst__strkey key_of(const void *owner, uint32_t entry) {
  const keys *k = owner;
  ddbst__strkey r = {k->text[entry], strlen(k->text[entry])};
  return r;
}

static counting_alloc ca;
static const ddbst_allocator *const A = &ca.hooks;

static int fresh(void **state) {
  (void)state;
  counting_alloc_init(&ca);
  return 0;
}

/* No block left behind. */
static int none_live(void **state) {
  (void)state;
  return ca.live == 0 ? 0 : -1;
}

/* `count` keys named after `prefix` whose home in a table of `cap` is
 * `home`, into k->text[first...]. */
static void homed(keys *k, uint32_t first, uint32_t count, const char *prefix,
                  uint32_t cap, uint32_t home) {
  uint32_t found = 0;
  for (uint32_t i = 0; found < count && i < 10000000; i++) {
    char t[16];
    snprintf(t, sizeof t, "%s%u", prefix, i);
    if ((ddbst__fnv1a(t, strlen(t)) & (cap - 1)) == home)
      memcpy(k->text[first + found++], t, sizeof t);
  }
  assert_int_equal(found, count);
}

static ddbst__strslot *find(ddbst__strset *s, const keys *k, const char *key) {
  return ddbst__strset_find(s, key, strlen(key), key_of, k);
}

static int has(ddbst__strset *s, const keys *k, const char *key) {
  ddbst__strslot *slot = find(s, k, key);
  return slot && ddbst__strset_taken(s, slot);
}

static void add(ddbst__strset *s, const ddbst_allocator *a, keys *k,
                uint32_t entry) {
  assert_int_equal(
      ddbst__strset_reserve(s, a, s->count + 1, 16, key_of, k), 0);
  ddbst__strslot *slot = find(s, k, k->text[entry]);
  assert_false(ddbst__strset_taken(s, slot));
  ddbst__strset_put(s, slot, entry);
}

static void fnv1a_known_values(void **state) {
  (void)state;
  /* the published FNV-1a 32-bit test vectors */
  assert_int_equal(ddbst__fnv1a("", 0), 0x811c9dc5u);
  assert_int_equal(ddbst__fnv1a("a", 1), 0xe40c292cu);
  assert_int_equal(ddbst__fnv1a("foobar", 6), 0xbf9cf968u);
  /* bytes, not chars: a high byte is not sign-extended */
  assert_int_equal(ddbst__fnv1a("\xff", 1), (0x811c9dc5u ^ 0xffu) * 16777619u);
}

static void finds_what_it_holds(void **state) {
  (void)state;
  static keys k;
  ddbst__strset s;
  ddbst__strset_init(&s);
  assert_null(find(&s, &k, "x")); /* no table yet */
  for (uint32_t i = 0; i < 300; i++) {
    snprintf(k.text[i], sizeof k.text[i], "name%u", i);
    add(&s, A, &k, i);
    assert_true(s.cap >= 2 * s.count); /* at most half full */
  }
  assert_int_equal(s.count, 300);
  for (uint32_t i = 0; i < 300; i++) {
    ddbst__strslot *slot = find(&s, &k, k.text[i]);
    assert_true(ddbst__strset_taken(&s, slot));
    assert_int_equal(slot->entry, i);
  }
  assert_false(has(&s, &k, "name300"));
  assert_false(has(&s, &k, "name")); /* a prefix is another key */
  assert_false(has(&s, &k, ""));
  ddbst__strset_release(&s, A);
}

static void clear_forgets_in_place(void **state) {
  (void)state;
  static keys k;
  ddbst__strset s;
  ddbst__strset_init(&s);
  for (uint32_t i = 0; i < 20; i++) {
    snprintf(k.text[i], sizeof k.text[i], "k%u", i);
    add(&s, A, &k, i);
  }
  ddbst__strslot *table = s.slots;
  ddbst__strset_clear(&s);
  assert_int_equal(s.count, 0);
  assert_ptr_equal(s.slots, table); /* the memory stays */
  for (uint32_t i = 0; i < 20; i++) assert_false(has(&s, &k, k.text[i]));
  add(&s, A, &k, 3);
  assert_true(has(&s, &k, "k3"));
  assert_false(has(&s, &k, "k4"));
  /* the stamp wraps: slots of every earlier round are free again */
  s.stamp = UINT32_MAX;
  for (uint32_t i = 0; i < 20; i++) add(&s, A, &k, i);
  ddbst__strset_clear(&s);
  assert_int_equal(s.stamp, 1);
  for (uint32_t i = 0; i < 20; i++) assert_false(has(&s, &k, k.text[i]));
  ddbst__strset_release(&s, A);
}

/* Removal from one long probe cluster (every key has the same home): what
 * was probed past the removed slot is still found, the removed key is not,
 * and it can come back. */
static void remove_keeps_the_cluster(void **state) {
  (void)state;
  static keys k;
  enum { N = 12 };
  ddbst__strset s;
  ddbst__strset_init(&s);
  assert_int_equal(ddbst__strset_reserve(&s, A, N, 16, key_of, &k), 0);
  homed(&k, 0, N, "c", s.cap, 5);
  for (uint32_t i = 0; i < N; i++) add(&s, A, &k, i);
  for (uint32_t gone = 0; gone < N; gone++) {
    ddbst__strset_remove(&s, find(&s, &k, k.text[gone]), key_of, &k);
    assert_int_equal(s.count, N - 1);
    for (uint32_t i = 0; i < N; i++)
      assert_int_equal(has(&s, &k, k.text[i]), i != gone);
    add(&s, A, &k, gone);
    for (uint32_t i = 0; i < N; i++) assert_true(has(&s, &k, k.text[i]));
  }
  ddbst__strset_release(&s, A);
}

/* A cluster that wraps past the table's end, removed from its start. */
static void remove_wraps_round_the_table(void **state) {
  (void)state;
  static keys k;
  ddbst__strset s;
  ddbst__strset_init(&s);
  assert_int_equal(ddbst__strset_reserve(&s, A, 8, 16, key_of, &k), 0);
  homed(&k, 0, 3, "w", s.cap, s.cap - 1); /* home: the last slot */
  for (uint32_t i = 0; i < 3; i++) add(&s, A, &k, i);
  ddbst__strset_remove(&s, find(&s, &k, k.text[0]), key_of, &k);
  assert_false(has(&s, &k, k.text[0]));
  assert_true(has(&s, &k, k.text[1]));
  assert_true(has(&s, &k, k.text[2]));
  ddbst__strset_release(&s, A);
}

static void growth_failure_leaves_the_set(void **state) {
  (void)state;
  static keys k;
  ddbst__strset s;
  ddbst__strset_init(&s);
  for (uint32_t i = 0; i < 8; i++) {
    snprintf(k.text[i], sizeof k.text[i], "g%u", i);
    add(&s, A, &k, i);
  }
  uint32_t cap = s.cap;
  ca.fail_at = ca.calls + 1;
  assert_int_equal(ddbst__strset_reserve(&s, A, cap, 16, key_of, &k),
                   DDBST_ENOMEM);
  assert_int_equal(s.cap, cap);
  for (uint32_t i = 0; i < 8; i++) assert_true(has(&s, &k, k.text[i]));
  ca.fail_at = 0;
  assert_int_equal(ddbst__strset_reserve(&s, A, cap, 16, key_of, &k), 0);
  assert_true(s.cap >= 2 * cap);
  for (uint32_t i = 0; i < 8; i++) assert_true(has(&s, &k, k.text[i]));
  ddbst__strset_release(&s, A);
  assert_int_equal(ca.live, 0);
}

/* The batch forgets the key of a write that failed (the set's removal), so
 * the same item can be added again, once. */
static void batch_retries_a_failed_write(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = A;
  ddbst_model *m = NULL;
  ddbst_error err;
  assert_int_equal(ddbst_model_load_file(path, &o, &m, &err), 0);
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Organisation"));
  set(it, "orgId", "o1");
  set(it, "name", "Acme");
  /* the nth allocation of a put fails, for each size of batch before it
   * (so that every buffer and the key set grow at some point) */
  int failures = 0;
  for (int before = 0; before < 140; before += 3)
    for (long step = 1; step <= 4; step++) {
      ddbst_batch *b = ddbst_batch_new(m);
      assert_non_null(b);
      for (int i = 0; i < before; i++) {
        char id[8];
        snprintf(id, sizeof id, "x%03d", i);
        set(it, "orgId", id);
        assert_int_equal(ddbst_batch_put(b, it, 0, &err), 0);
      }
      set(it, "orgId", "o1");
      ca.fail_at = ca.calls + step;
      int rc = ddbst_batch_put(b, it, 0, &err);
      ca.fail_at = 0;
      if (rc == DDBST_ENOMEM) {
        failures++;
        assert_int_equal(ddbst_batch_put(b, it, 0, &err), 0);
      } else {
        assert_int_equal(rc, 0);
      }
      /* written once: a second write of the key is refused */
      assert_int_equal(ddbst_batch_put(b, it, 0, &err), DDBST_EINVAL);
      ddbst_batch_free(b);
    }
  assert_true(failures > 0);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fnv1a_known_values),
      cmocka_unit_test_setup_teardown(finds_what_it_holds, fresh, none_live),
      cmocka_unit_test_setup_teardown(clear_forgets_in_place, fresh,
                                      none_live),
      cmocka_unit_test_setup_teardown(remove_keeps_the_cluster, fresh,
                                      none_live),
      cmocka_unit_test_setup_teardown(remove_wraps_round_the_table, fresh,
                                      none_live),
      cmocka_unit_test_setup_teardown(growth_failure_leaves_the_set, fresh,
                                      none_live),
      cmocka_unit_test_setup_teardown(batch_retries_a_failed_write, fresh,
                                      none_live),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
