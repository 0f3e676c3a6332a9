/* The setters' short ways held to the general ones (item/item.c):
 *  - a timestamp taken as it is (ddbst__ts_is_canonical_inline) is exactly
 *    what ddbst__ts_canon would have made of it, for every month and day
 *    (29 to 31 included, leap and common years, 1900 and 2000), hour and
 *    precision;
 *  - a string set the short way records what ddbst__scan finds in it
 *    (delimiter, JSON escapes) at every length from 1 to 80 with the
 *    telling byte at every position, and non-ASCII text records nothing
 *    (a NUL is refused either way);
 *  - a guard item written in one reservation (ddbst__holder.plain) is the
 *    general writer's, for every unique of every example model and keys of
 *    every length to 40 (request/guard.c). */
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "item/item.h"
#include "model/facet.h"
#include "model/ts_canonical.h"
#include "request/guard.h"
#include "support.h"

static long checked;

static void one_timestamp(const char *s, size_t n, int precision) {
  char out[DDBST__TS_MAX];
  size_t out_len = 0;
  int general = ddbst__ts_canon(s, n, precision, out, &out_len) == NULL &&
                out_len == n && memcmp(out, s, n) == 0;
  int fast = ddbst__ts_is_canonical_inline(s, n, precision);
  if (fast < 0) fast = ddbst__ts_late_day(s); /* a day past 28 */
  if (fast != general)
    fail_msg("'%.*s' at %d: the short way says %d, ddbst__ts_canon %d",
             (int)n, s, precision, fast, general);
  assert_int_equal(ddbst__ts_is_canonical(s, n, precision), fast);
  checked++;
}

static void timestamps_as_ts_canon(void **state) {
  (void)state;
  static const int years[] = {0, 1900, 1999, 2000, 2023, 2024, 2100, 9999};
  static const int precisions[] = {DDBST__PREC_S, DDBST__PREC_MS,
                                   DDBST__PREC_US};
  static const char *const tails[] = {"Z", ".000Z", ".123Z", ".000000Z",
                                      ".999999Z", ".5Z"};
  for (size_t y = 0; y < sizeof years / sizeof years[0]; y++)
    for (int mo = 0; mo <= 13; mo++)
      for (int d = 0; d <= 32; d++)
        for (int h = 22; h <= 24; h++)
          for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
            for (size_t p = 0; p < 3; p++) {
              char s[64];
              int n = snprintf(s, sizeof s, "%04d-%02d-%02dT%02d:59:58%s",
                               years[y], mo, d, h, tails[t]);
              one_timestamp(s, (size_t)n, precisions[p]);
            }
  /* every byte of a canonical one replaced */
  static const char base[] = "2024-02-29T23:59:59.123456Z";
  for (size_t p = 0; p < 3; p++)
    for (size_t i = 0; i < sizeof base - 1; i++)
      for (int c = 0; c < 256; c++) {
        char s[sizeof base];
        memcpy(s, base, sizeof base);
        s[i] = (char)c;
        size_t n = precisions[p] == DDBST__PREC_US ? 27 : 20;
        if (precisions[p] == DDBST__PREC_MS) {
          memcpy(s + 19, ".123Z", 5);
          n = 24;
          if (i < 24) s[i] = (char)c;
        } else if (precisions[p] == DDBST__PREC_S) {
          s[19] = 'Z';
          if (i < 20) s[i] = (char)c;
        }
        one_timestamp(s, n, precisions[p]);
      }
  assert_true(checked > 100000);
}

/* A string attribute of the saas model's User (no enum, no format). */
static int plain_string(const ddbst_model *m, int entity) {
  const ddbst__entity *e = &m->entities[entity];
  for (int a = 0; a < e->nattrs; a++)
    if (e->attrs[a].type == DDBST__T_STRING && !e->attrs[a].nvalues &&
        !e->attrs[a].primary_facet)
      return a;
  return -1;
}

static void strings_scanned_as_ddbst_scan(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int user = ddbst_model_entity(m, "User");
  assert_true(user >= 0);
  int a = plain_string(m, user);
  assert_true(a >= 0);
  ddbst_item *it = ddbst_item_new(m, user);
  unsigned char d0 = (unsigned char)m->delim[0];
  const char telling[] = {'a', '"', '\\', '\t', 0x1f, 0x7f, '#', '\0',
                          (char)d0};
  for (size_t n = 1; n <= 80; n++)
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < sizeof telling; k++) {
        char s[81];
        memset(s, 'x', n);
        s[i] = telling[k];
        ddbst_item_reset(it, user);
        ddbst_error err;
        int rc = ddbst_item_set(it, a, s, n, &err);
        if (telling[k] == '\0') { /* refused, whichever way it went */
          assert_int_equal(rc, DDBST_EVALUE);
          continue;
        }
        if (rc)
          fail_msg("%zu bytes, byte %d at %zu: %s", n, telling[k], i,
                   err.message);
        const ddbst__val *v = &it->vals[a];
        assert_int_equal(v->len, n);
        assert_memory_equal(it->text.data + v->off, s, n);
        assert_int_equal(v->scan, DDBST__SCAN_KNOWN | ddbst__scan(s, n, d0));
      }
  /* non-ASCII: valid UTF-8 kept, nothing recorded */
  static const char utf8[] = "caf\xc3\xa9 au lait, s'il vous pla\xc3\xaet";
  ddbst_item_reset(it, user);
  assert_int_equal(ddbst_item_set(it, a, utf8, sizeof utf8 - 1, NULL), 0);
  assert_int_equal(it->vals[a].scan, 0);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static void guard_items_plain_as_general(void **state) {
  (void)state;
  static const char *const models[] = {
      "examples/saas/model.json",    "examples/blog/model.json",
      "examples/catalog/model.json", "examples/games/model.json",
      "examples/mailbox/model.json", "examples/orgchart/model.json",
      "examples/shop/model.json",
  };
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  long guards = 0;
  for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
    ddbst_model *m = load_example(models[mi]);
    for (int e = 0; e < m->nentities; e++)
      for (int u = 0; u < m->entities[e].nuniques; u++)
        for (size_t n = 1; n <= 40; n += 3) {
          char g[41], pk[41], sk[41];
          for (size_t i = 0; i < n; i++) {
            g[i] = (char)('a' + i % 26);
            pk[i] = (char)('A' + i % 26);
            sk[i] = (char)('0' + i % 10);
          }
          ddbst__holder plain = {pk, sk, n, n / 2 + 1, 1};
          ddbst__holder general = plain;
          general.plain = 0;
          ddbst_buf_reset(a);
          ddbst_buf_reset(b);
          const ddbst__unique *un = &m->entities[e].uniques[u];
          assert_int_equal(ddbst__guard_item(m, un, g, n, &plain, a), 0);
          assert_int_equal(ddbst__guard_item(m, un, g, n, &general, b), 0);
          assert_int_equal(ddbst_buf_len(a), ddbst_buf_len(b));
          assert_memory_equal(ddbst_buf_data(a), ddbst_buf_data(b),
                              ddbst_buf_len(a));
          assert_int_equal(ddbst_buf_data(a)[ddbst_buf_len(a)], '\0');
          guards++;
        }
    ddbst_model_free(m);
  }
  assert_true(guards > 0);
  ddbst_buf_free(a);
  ddbst_buf_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timestamps_as_ts_canon),
      cmocka_unit_test(strings_scanned_as_ddbst_scan),
      cmocka_unit_test(guard_items_plain_as_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
