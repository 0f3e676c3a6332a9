/* The values' short ways held to the general ones (item/item.c), where the
 * other setters are held in test_set_paths.c:
 *  - an enum value found by the vector compare (4 to 16 bytes) or the
 *    general loop is exactly what ddbst__value_canon accepts, with the same
 *    text, the model's scan, and on refusal the same error, for every
 *    listed value with each of its bytes replaced by every byte value, and
 *    cut or lengthened by one, the input ending at a guard page;
 *  - a reset clears every value, whichever entity the item held before,
 *    and the rarely used slots (previous values, projections) too;
 *  - the one-pass copy and scan of strings past 16 bytes
 *    (ddbst__copy_scan_long, both forms) answers what the two passes did,
 *    at every length from 16 to 48 with every byte value at every place,
 *    the input ending at a guard page, nothing written outside dst[0..n);
 *  - ddbst__utf8_check, which goes back to a word at a time after each
 *    multi-byte character, gives a byte-at-a-time reference's verdict
 *    (and reason) for ASCII, two- to four-byte characters and every bad
 *    byte at every place, lengths 0 to 40. */
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "base/utf8.h"
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

/* s[0..n), n <= 64, copied to end where a PROT_NONE page begins: one
 * mapping for the whole run (a mapping per input cost a minute). */
enum { GUARDED = 64 };
static char *guarded;
static const char *at_guard(const char *s, size_t n) {
  assert_true(n <= GUARDED);
  if (!guarded) {
    char zeros[GUARDED] = {0};
    guarded = guard_copy(zeros, GUARDED);
  }
  char *in = guarded + GUARDED - n;
  if (n) memmove(in, s, n);
  return in;
}

/* Setting s[0..n) must do what ddbst__value_canon says of it. */
static void one_enum(ddbst_item *it, int attr, const char *s, size_t n) {
  const ddbst__attr *a = &it->attrs[attr];
  ddbst_buf *want = ddbst_buf_new(NULL);
  char why[160];
  int want_rc = ddbst__value_canon(a, s, n, want, why, sizeof why);
  const char *in = at_guard(s, n);
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

/* ------------------------------------- the long copy and scan, one pass */

static unsigned ref_copy_scan(const char *s, size_t n, unsigned char d0) {
  unsigned r = DDBST__SCAN_KNOWN;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0 || c >= 0x80) return 0;
    if (c == d0) r |= DDBST__SCAN_DELIM0;
    if (c < 0x20 || c == '"' || c == '\\') r |= DDBST__SCAN_ESCAPE;
  }
  return r;
}

static void one_copy_scan(const char *s, size_t n, unsigned char d0) {
  unsigned want = ref_copy_scan(s, n, d0);
  unsigned (*forms[])(char *, const char *, size_t, unsigned char) = {
      ddbst__copy_scan_long_swar,
#if defined(__SSE2__)
      ddbst__copy_scan_long_sse2,
#endif
  };
  const char *in = at_guard(s, n);
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    char out[64 + 2];
    memset(out, 0x55, sizeof out);
    unsigned got = forms[f](out + 1, in, n, d0);
    if (got != want)
      fail_msg("form %zu, %zu bytes, delimiter 0x%02x: %u, want %u", f, n, d0,
               got, want);
    if (got) assert_memory_equal(out + 1, s, n);
    assert_int_equal((unsigned char)out[0], 0x55);
    assert_int_equal((unsigned char)out[n + 1], 0x55);
  }
  compared++;
}

static void long_strings_one_pass(void **state) {
  (void)state;
  static const unsigned char delims[] = {'#', '|', 0x01, 0xC3};
  for (size_t n = 16; n <= 48; n++)
    for (size_t d = 0; d < sizeof delims; d++) {
      char s[64];
      for (size_t i = 0; i < n; i++) s[i] = (char)('a' + i % 26);
      one_copy_scan(s, n, delims[d]);
      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 256; c += d ? 7 : 1) {
          s[i] = (char)c;
          one_copy_scan(s, n, delims[d]);
          s[i] = (char)('a' + i % 26);
        }
    }
  assert_true(compared > 100000);
}

/* -------------------------------------------- UTF-8, a byte at a time */

static const char *ref_utf8(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    if (p[i] == 0) return "contains a NUL byte";
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    const char *why;
    size_t len = ddbst__utf8_sequence(p + i, n - i, &why);
    if (!len) return why;
    i += len;
  }
  return NULL;
}

static void one_utf8(const char *s, size_t n) {
  const char *in = at_guard(s, n);
  const char *want = ref_utf8(in, n), *got = ddbst__utf8_check(in, n);
  if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0))
    fail_msg("%zu bytes: '%s', want '%s'", n, got ? got : "(valid)",
             want ? want : "(valid)");
  compared++;
}

static void utf8_as_byte_at_a_time(void **state) {
  (void)state;
  /* ASCII with characters of each length between, and bytes that break
   * them */
  static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac",
                                      "\xf0\x9f\x98\x80", "a"};
  static const unsigned char bad[] = {0x00, 0x80, 0xBF, 0xC0, 0xC1, 0xC2,
                                      0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF,
                                      0x7F, 'x'};
  for (size_t n = 0; n <= 40; n++)
    for (size_t k = 0; k < sizeof chars / sizeof chars[0]; k++)
      for (size_t every = 1; every <= 9; every += 4) {
        /* ASCII, and the character after every `every` ASCII bytes */
        char s[48];
        size_t len = 0;
        while (len < n) {
          size_t cl = strlen(chars[k]);
          if (len % (every + cl) == every && len + cl <= n) {
            memcpy(s + len, chars[k], cl);
            len += cl;
          } else {
            s[len] = (char)('a' + len % 26);
            len++;
          }
        }
        one_utf8(s, n);
        for (size_t i = 0; i < n; i++)
          for (size_t b = 0; b < sizeof bad; b++) {
            char keep = s[i];
            s[i] = (char)bad[b];
            one_utf8(s, n);
            s[i] = keep;
          }
      }
  assert_true(compared > 10000);
}

/* ------------------------------------ ddbst_item_set's own refusals */

static void refusals_as_before(void **state) {
  (void)state;
  ddbst_model *m = load_text(model_json);
  int wide = ddbst_model_entity(m, "Wide");
  ddbst_item *it = ddbst_item_new(m, wide);
  ddbst_error err;
  assert_int_equal(ddbst_item_set(NULL, 0, "x", 1, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "item is NULL");
  assert_int_equal(ddbst_item_set(it, 99, "x", 1, &err), DDBST_EINVAL);
  assert_string_equal(err.message,
                      "attribute index 99 is not an attribute of Wide");
  assert_int_equal(ddbst_item_set(it, -1, "x", DDBST_NUL_TERMINATED, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.message,
                      "attribute index -1 is not an attribute of Wide");
  assert_int_equal(ddbst_item_set(it, 0, NULL, 3, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "text is NULL");
  assert_int_equal(ddbst_item_set(it, 0, "x", (size_t)UINT32_MAX, &err),
                   DDBST_ERANGE);
  assert_string_equal(err.message, "value too large");
  /* taken: a NUL-terminated text, a NULL text of no length (empty) */
  const char *t;
  size_t n;
  assert_int_equal(
      ddbst_item_set(it, 2, "a NUL-terminated text, 38 bytes long!!",
                     DDBST_NUL_TERMINATED, &err),
      0);
  assert_int_equal(ddbst_item_get(it, 2, &t, &n), 1);
  assert_int_equal(n, 38);
  assert_int_equal(ddbst_item_set(it, 0, NULL, 0, &err), 0);
  assert_int_equal(ddbst_item_get(it, 0, &t, &n), 1);
  assert_int_equal(n, 0);
  assert_int_equal(ddbst_item_set(it, 0, NULL, DDBST_NUL_TERMINATED, &err),
                   0);
  /* by name: the first byte alike is not enough */
  assert_int_equal(ddbst_item_set_by_name(it, "kind", "abcd",
                                          DDBST_NUL_TERMINATED, &err),
                   0);
  assert_int_equal(ddbst_item_set_by_name(it, "k", "abcd", 4, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Wide.k");
  assert_int_equal(ddbst_item_set_by_name(it, "", "abcd", 4, &err),
                   DDBST_ENOTFOUND);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(enums_as_value_canon),
      cmocka_unit_test(resets_clear_every_value),
      cmocka_unit_test(long_strings_one_pass),
      cmocka_unit_test(utf8_as_byte_at_a_time),
      cmocka_unit_test(refusals_as_before),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
