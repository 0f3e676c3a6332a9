/* The setters' short ways held to the general ones (item/item.c):
 *  - a timestamp taken as it is (ddbst__ts_is_canonical_inline) is exactly
 *    what ddbst__ts_canon would have made of it, for every month and day
 *    (29 to 31 included, leap and common years, 1900 and 2000), hour and
 *    precision;
 *  - a string set the short way records what ddbst__scan finds in it
 *    (delimiter, JSON escapes) at every length from 1 to 80 with the
 *    telling byte at every position, and non-ASCII text records nothing
 *    (a NUL is refused either way). */
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "item/item.h"
#include "model/facet.h"
#include "model/ts_canonical.h"
#include "support.h"

static long checked;

static void one_timestamp(const char *s, size_t n, int precision) {
  char out[DDBST__TS_MAX];
  size_t out_len = 0;
  int general = ddbst__ts_canon(s, n, precision, out, &out_len) == NULL &&
                out_len == n && memcmp(out, s, n) == 0;
  int fast = ddbst__ts_is_canonical_inline(s, n, precision);
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timestamps_as_ts_canon),
      cmocka_unit_test(strings_scanned_as_ddbst_scan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
