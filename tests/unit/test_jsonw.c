/* The JSON writer: every string it writes parses back with YAJL to the exact
 * bytes it was given: quotes, backslashes, every control character and
 * multi-byte UTF-8. */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "support.h"
#include "base/internal.h"

static void round_trip(const char *s, size_t n) {
  ddbst_buf b;
  ddbst__buf_init(&b, NULL);
  assert_int_equal(ddbst__buf_puts(&b, "{\"k\":"), 0);
  assert_int_equal(ddbst__json_string(&b, s, n), 0);
  assert_int_equal(ddbst__buf_putc(&b, '}'), 0);
  char why[128];
  yajl_val v = yajl_tree_parse(b.data, why, sizeof why);
  if (!v) fail_msg("YAJL refused %s: %s", b.data, why);
  const char *path[] = {"k", NULL};
  yajl_val k = yajl_tree_get(v, path, yajl_t_string);
  assert_non_null(k);
  /* YAJL's tree stops strings at NUL; ddbst never writes NUL (values with
   * NUL are refused before they reach the writer), so compare as C strings */
  assert_int_equal(strlen(k->u.string), n);
  assert_memory_equal(k->u.string, s, n);
  yajl_tree_free(v);
  ddbst__buf_release(&b);
}

static void every_control_character(void **state) {
  (void)state;
  char s[40];
  for (int c = 1; c < 0x20; c++) {
    int n = snprintf(s, sizeof s, "a%cb", c);
    round_trip(s, (size_t)n);
  }
  round_trip("\x7f", 1);
}

static void quotes_backslashes_unicode(void **state) {
  (void)state;
  const char *cases[] = {"", "\"", "\\", "\\\"", "say \"hi\"\\n",
                         "caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x98\x80",
                         "</script>", "\xf4\x8f\xbf\xbf"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    round_trip(cases[i], strlen(cases[i]));
}

static void exact_escapes(void **state) {
  (void)state;
  ddbst_buf b;
  ddbst__buf_init(&b, NULL);
  ddbst__json_string(&b, "\"\\\n\r\t\b\f\x01\x1f", 9);
  assert_string_equal(b.data, "\"\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\"");
  ddbst__buf_release(&b);
}

/* The writer byte by byte, to hold the fast scans to. */
static void reference(ddbst_buf *b, const char *s, size_t n) {
  ddbst__buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char e[8];
    if (c == '"' || c == '\\') {
      e[0] = '\\';
      e[1] = (char)c;
      ddbst__buf_append(b, e, 2);
    } else if (c < 0x20) {
      const char *named = c == '\n'   ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : NULL;
      if (named) ddbst__buf_puts(b, named);
      else {
        snprintf(e, sizeof e, "\\u%04x", c);
        ddbst__buf_puts(b, e);
      }
    } else {
      ddbst__buf_putc(b, (char)c);
    }
  }
  ddbst__buf_putc(b, '"');
}

/* Every length the word-at-a-time scans treat differently (short, 4-7,
 * 8-15, 16 and more, with tails), with one byte that needs an escape at
 * every position, and bytes that must pass (0x7f, 0x80 and up). */
static void every_length_and_position(void **state) {
  (void)state;
  const unsigned char specials[] = {'"', '\\', 0x01, 0x1f, '\n', 0x20,
                                    0x7f, 0x80, 0xff, '!', '#', ']'};
  char s[72];
  ddbst_buf got, want;
  ddbst__buf_init(&got, NULL);
  ddbst__buf_init(&want, NULL);
  for (size_t n = 0; n <= sizeof s; n++) {
    for (size_t at = 0; at <= n; at++) {
      for (size_t k = 0; k < sizeof specials; k++) {
        for (size_t i = 0; i < n; i++) s[i] = (char)('a' + i % 26);
        if (at < n) s[at] = (char)specials[k];
        ddbst_buf_reset(&got);
        ddbst_buf_reset(&want);
        assert_int_equal(ddbst__json_string(&got, s, n), 0);
        reference(&want, s, n);
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
          fail_msg("length %zu, byte 0x%02x at %zu: wrote %s, want %s", n,
                   specials[k], at, got.data, want.data);
        if (at == n) break;
      }
    }
  }
  ddbst__buf_release(&got);
  ddbst__buf_release(&want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_control_character),
      cmocka_unit_test(quotes_backslashes_unicode),
      cmocka_unit_test(exact_escapes),
      cmocka_unit_test(every_length_and_position),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
