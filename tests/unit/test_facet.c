/* Unit tests for model/facet.h: every accept and refuse rule of the facet
 * types, with exact reasons. Inputs are copied into exact-size heap buffers
 * so that AddressSanitizer or valgrind flags any read past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bytes.h"
#include "model/facet.h"

/* A literal with its length, so embedded NUL bytes are kept. */
#define LIT(s) (s), (sizeof(s) - 1)

static char *exact_copy(const char *s, size_t n) {
  char *p = malloc(n ? n : 1);
  assert_non_null(p);
  if (n) memcpy(p, s, n);
  return p;
}

/* ------------------------------------------------------------------ UTF-8 */

static const char *utf8(const char *s, size_t n) {
  char *copy = exact_copy(s, n);
  const char *why = ddbst__utf8_check(copy, n);
  free(copy);
  return why;
}

#define UTF8_OK(lit) assert_null(utf8(LIT(lit)))
#define UTF8_BAD(lit, reason) assert_string_equal(utf8(LIT(lit)), reason)

static void utf8_accepts_well_formed(void **state) {
  (void)state;
  UTF8_OK("");
  UTF8_OK("plain ascii #1");
  UTF8_OK("\xC2\x80");         /* U+0080, smallest 2-byte */
  UTF8_OK("\xC3\xA9");         /* é */
  UTF8_OK("\xDF\xBF");         /* U+07FF */
  UTF8_OK("\xE0\xA0\x80");     /* U+0800, smallest 3-byte */
  UTF8_OK("\xE2\x82\xAC");     /* € */
  UTF8_OK("\xED\x9F\xBF");     /* U+D7FF, just below the surrogates */
  UTF8_OK("\xEE\x80\x80");     /* U+E000, just above */
  UTF8_OK("\xEF\xBF\xBF");     /* U+FFFF */
  UTF8_OK("\xF0\x90\x80\x80"); /* U+10000, smallest 4-byte */
  UTF8_OK("\xF0\x9D\x84\x9E"); /* 𝄞 */
  UTF8_OK("\xF4\x8F\xBF\xBF"); /* U+10FFFF */
  UTF8_OK("a\xC3\xA9" "b\xE2\x82\xAC" "c");
}

/* Every length the word-at-a-time ASCII scan treats differently, with a
 * NUL, a stray continuation byte, a whole two-byte character or a DEL at
 * every position (exact-size copies: ASan sees any read past the end). */
static void utf8_at_every_length_and_position(void **state) {
  (void)state;
  char s[48];
  for (size_t n = 1; n < sizeof s; n++) {
    for (size_t at = 0; at < n; at++) {
      for (size_t i = 0; i < n; i++) s[i] = (char)('a' + i % 26);
      s[at] = '\0';
      assert_string_equal(utf8(s, n), "contains a NUL byte");
      s[at] = '\x80';
      assert_string_equal(utf8(s, n), "invalid UTF-8: stray continuation byte");
      s[at] = '\x7f';
      assert_null(utf8(s, n));
      if (at + 1 < n) {
        s[at] = '\xC3';
        s[at + 1] = '\xA9';
        assert_null(utf8(s, n));
      }
    }
  }
}

static void utf8_refuses_malformed(void **state) {
  (void)state;
  UTF8_BAD("a\0b", "contains a NUL byte");
  UTF8_BAD("\0", "contains a NUL byte");
  UTF8_BAD("\x80", "invalid UTF-8: stray continuation byte");
  UTF8_BAD("a\xBF", "invalid UTF-8: stray continuation byte");
  UTF8_BAD("\xC3\xA9\xA9", "invalid UTF-8: stray continuation byte");
  UTF8_BAD("\xC0\x80", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xC1\xBF", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xE0\x80\x80", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xE0\x9F\xBF", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xF0\x80\x80\x80", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xF0\x8F\xBF\xBF", "invalid UTF-8: overlong encoding");
  UTF8_BAD("\xED\xA0\x80", "invalid UTF-8: surrogate code point");
  UTF8_BAD("\xED\xBF\xBF", "invalid UTF-8: surrogate code point");
  UTF8_BAD("\xF4\x90\x80\x80", "invalid UTF-8: code point above U+10FFFF");
  UTF8_BAD("\xF5\x80\x80\x80", "invalid UTF-8: code point above U+10FFFF");
  UTF8_BAD("\xF7\xBF\xBF\xBF", "invalid UTF-8: code point above U+10FFFF");
  UTF8_BAD("\xF8\x88\x80\x80\x80",
           "invalid UTF-8: byte 0xF8-0xFF never occurs");
  UTF8_BAD("\xFF", "invalid UTF-8: byte 0xF8-0xFF never occurs");
  UTF8_BAD("\xC3", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xE2\x82", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xF0\x9D\x84", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xC3" "A", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xE2\x82" "A", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xF0\x9D\x84" "A", "invalid UTF-8: truncated multi-byte sequence");
  UTF8_BAD("\xE2\xC3\xA9", "invalid UTF-8: truncated multi-byte sequence");
}

/* ------------------------------------------------------------- timestamps */

/* Canonicalises into an exact-size heap buffer; on success `got` holds the
 * NUL-terminated result. */
static const char *ts(const char *in, size_t n, int precision, char *got) {
  char *copy = exact_copy(in, n);
  char *out = malloc(DDBST__TS_MAX);
  assert_non_null(out);
  size_t len = 0;
  const char *why = ddbst__ts_canon(copy, n, precision, out, &len);
  if (!why) {
    assert_true(len <= DDBST__TS_MAX);
    memcpy(got, out, len);
    got[len] = '\0';
  }
  free(out);
  free(copy);
  return why;
}

static void ts_ok(const char *in, size_t n, int precision, const char *want) {
  char got[64];
  const char *why = ts(in, n, precision, got);
  if (why) fail_msg("%s refused: %s", in, why);
  assert_string_equal(got, want);
}

static void ts_bad(const char *in, size_t n, int precision,
                   const char *reason) {
  char got[64];
  const char *why = ts(in, n, precision, got);
  if (!why) fail_msg("%s accepted as %s", in, got);
  assert_string_equal(why, reason);
}

#define TS_OK(lit, prec, want) ts_ok(LIT(lit), prec, want)
#define TS_BAD(lit, prec, reason) ts_bad(LIT(lit), prec, reason)
#define S DDBST__PREC_S
#define MS DDBST__PREC_MS
#define US DDBST__PREC_US

static void ts_normalises_offsets_and_precisions(void **state) {
  (void)state;
  TS_OK("2026-03-14T09:00:00Z", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T10:00:00+01:00", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T10:00:00+0100", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T09:00:00.000Z", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T04:30:00-04:30", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T04:30:00-0430", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T09:00:00+00:00", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T09:00:00-00:00", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T09:00:00.999999999Z", S, "2026-03-14T09:00:00Z");
  TS_OK("2026-03-14T10:00:00.5+01:00", S, "2026-03-14T09:00:00Z");

  TS_OK("2026-03-14T09:00:00Z", MS, "2026-03-14T09:00:00.000Z");
  TS_OK("2026-03-14T09:00:00.000Z", MS, "2026-03-14T09:00:00.000Z");
  TS_OK("2026-03-14T09:00:00.12Z", MS, "2026-03-14T09:00:00.120Z");
  TS_OK("2026-03-14T10:00:00.5+01:00", MS, "2026-03-14T09:00:00.500Z");
  TS_OK("2026-03-14T09:00:00.999999999Z", MS, "2026-03-14T09:00:00.999Z");
  TS_OK("2026-03-14T09:00:00.0019Z", MS, "2026-03-14T09:00:00.001Z");

  TS_OK("2026-03-14T09:00:00Z", US, "2026-03-14T09:00:00.000000Z");
  TS_OK("2026-03-14T09:00:00.12Z", US, "2026-03-14T09:00:00.120000Z");
  TS_OK("2026-03-14T09:00:00.999999999Z", US, "2026-03-14T09:00:00.999999Z");
  TS_OK("2026-03-14T09:00:00.0000019Z", US, "2026-03-14T09:00:00.000001Z");
  TS_OK("2026-03-14T04:30:00.123456-04:30", US,
        "2026-03-14T09:00:00.123456Z");
}

static void ts_crosses_day_month_and_year_lines(void **state) {
  (void)state;
  TS_OK("2026-03-14T00:30:00+01:00", S, "2026-03-13T23:30:00Z");
  TS_OK("2026-03-14T23:30:00-01:00", S, "2026-03-15T00:30:00Z");
  TS_OK("2026-03-01T00:30:00+01:00", S, "2026-02-28T23:30:00Z");
  TS_OK("2024-03-01T00:30:00+01:00", S, "2024-02-29T23:30:00Z");
  TS_OK("2026-04-30T22:00:00-02:00", S, "2026-05-01T00:00:00Z");
  TS_OK("2026-01-01T00:00:00+00:01", S, "2025-12-31T23:59:00Z");
  TS_OK("2025-12-31T23:30:00-01:00", S, "2026-01-01T00:30:00Z");
  TS_OK("2026-01-01T00:00:00.250+23:59", MS, "2025-12-31T00:01:00.250Z");
  TS_OK("2025-12-31T23:59:59.999-23:59", MS, "2026-01-01T23:58:59.999Z");
  TS_OK("2000-02-28T23:00:00-01:00", S, "2000-02-29T00:00:00Z");
  TS_OK("1900-02-28T23:00:00-01:00", S, "1900-03-01T00:00:00Z");
  TS_OK("1970-01-01T00:59:59.999999+01:00", US, "1969-12-31T23:59:59.999999Z");
}

static void ts_checks_calendar(void **state) {
  (void)state;
  TS_OK("2024-02-29T12:00:00Z", S, "2024-02-29T12:00:00Z");
  TS_OK("2000-02-29T12:00:00Z", S, "2000-02-29T12:00:00Z");
  TS_OK("0000-02-29T12:00:00Z", S, "0000-02-29T12:00:00Z");
  TS_OK("2026-12-31T23:59:59Z", S, "2026-12-31T23:59:59Z");
  TS_BAD("2025-02-29T12:00:00Z", S,
         "day 29 does not exist in February of a common year");
  TS_BAD("1900-02-29T12:00:00Z", S,
         "day 29 does not exist in February of a common year");
  TS_BAD("2024-02-30T12:00:00Z", S, "day 30 does not exist in February");
  TS_BAD("2024-02-31T12:00:00Z", S, "day 31 does not exist in February");
  TS_BAD("2025-04-31T12:00:00Z", S, "day 31 does not exist in April");
  TS_BAD("2025-06-31T12:00:00Z", S, "day 31 does not exist in June");
  TS_BAD("2025-09-31T12:00:00Z", S, "day 31 does not exist in September");
  TS_BAD("2025-11-31T12:00:00Z", S, "day 31 does not exist in November");
  TS_BAD("2025-01-00T12:00:00Z", S, "day out of range (01-31)");
  TS_BAD("2025-01-32T12:00:00Z", S, "day out of range (01-31)");
  TS_BAD("2025-00-01T12:00:00Z", S, "month out of range (01-12)");
  TS_BAD("2025-13-01T12:00:00Z", S, "month out of range (01-12)");
  TS_BAD("2025-01-01T24:00:00Z", S, "hour out of range (00-23)");
  TS_BAD("2025-01-01T23:60:00Z", S, "minute out of range (00-59)");
  TS_BAD("2016-12-31T23:59:60Z", S,
         "second out of range (00-59; no leap seconds)");
}

static void ts_keeps_years_0000_to_9999(void **state) {
  (void)state;
  TS_OK("0000-01-01T00:00:00Z", S, "0000-01-01T00:00:00Z");
  TS_OK("9999-12-31T23:59:59.999999Z", US, "9999-12-31T23:59:59.999999Z");
  TS_OK("9999-12-31T23:59:59.9999999Z", US, "9999-12-31T23:59:59.999999Z");
  TS_OK("0000-01-01T00:30:00-01:00", S, "0000-01-01T01:30:00Z");
  TS_OK("9999-12-31T23:30:00+01:00", S, "9999-12-31T22:30:00Z");
  TS_OK("0001-01-01T00:30:00+01:00", S, "0000-12-31T23:30:00Z");
  TS_BAD("0000-01-01T00:30:00+01:00", S,
         "timestamp outside years 0000-9999 (UTC)");
  TS_BAD("9999-12-31T23:30:00-01:00", S,
         "timestamp outside years 0000-9999 (UTC)");
  TS_BAD("0000-01-01T00:00:00.5+00:01", MS,
         "timestamp outside years 0000-9999 (UTC)");
}

static void ts_refuses_other_shapes(void **state) {
  (void)state;
  const char *shape = "not an ISO-8601 timestamp: expected YYYY-MM-DDTHH:MM:SS";
  const char *no_zone = "not an ISO-8601 timestamp: missing time zone";
  const char *bad_off =
      "not an ISO-8601 timestamp: bad time zone offset (+hh:mm or +hhmm)";
  const char *exp_zone = "not an ISO-8601 timestamp: expected time zone (Z, "
                         "+hh:mm or +hhmm) after the time";
  const char *after = "not an ISO-8601 timestamp: text after the time zone";
  TS_BAD("", S, shape);
  TS_BAD("2026", S, shape);
  TS_BAD("2026-03-1", S, shape);
  TS_BAD("26-03-14T09:00:00Z", S, shape);
  TS_BAD("2026-3-14T09:00:00Z", S, shape);
  TS_BAD("2026/03/14T09:00:00Z", S, shape);
  TS_BAD("+2026-03-14T09:00:00Z", S, shape);
  TS_BAD("2026-03-14T09:00Z", S, shape);
  TS_BAD("2026-03-14T9:00:00Z", S, shape);
  TS_BAD("2026-03-14T09:00:0", S, shape);
  TS_BAD("2026-03-14T09", S, shape);
  TS_BAD("2026-03-14X09:00:00Z", S, shape);
  TS_BAD("2026-03-14", S,
         "not an ISO-8601 timestamp: missing time (THH:MM:SS)");
  TS_BAD("2026-03-14 09:00:00Z", S,
         "not an ISO-8601 timestamp: date and time must be separated by "
         "upper-case 'T'");
  TS_BAD("2026-03-14t09:00:00Z", S,
         "not an ISO-8601 timestamp: date and time must be separated by "
         "upper-case 'T'");
  TS_BAD("2026-03-14T09:00:00", S, no_zone);
  TS_BAD("2026-03-14T09:00:00.5", S, no_zone);
  TS_BAD("2026-03-14T09:00:00z", S,
         "not an ISO-8601 timestamp: time zone must be upper-case 'Z'");
  TS_BAD("2026-03-14T09:00:00.Z", S,
         "not an ISO-8601 timestamp: '.' without fraction digits");
  TS_BAD("2026-03-14T09:00:00.", S,
         "not an ISO-8601 timestamp: '.' without fraction digits");
  TS_BAD("2026-03-14T09:00:00,5Z", S, exp_zone);
  TS_BAD("2026-03-14T09:00:00 Z", S, exp_zone);
  TS_BAD("2026-03-14T09:00:000Z", S, exp_zone);
  TS_BAD("2026-03-14T09:00:00UTC", S, exp_zone);
  TS_BAD("2026-03-14T09:00:00+01", S, bad_off);
  TS_BAD("2026-03-14T09:00:00+1:00", S, bad_off);
  TS_BAD("2026-03-14T09:00:00+01:0", S, bad_off);
  TS_BAD("2026-03-14T09:00:00+010", S, bad_off);
  TS_BAD("2026-03-14T09:00:00+", S, bad_off);
  TS_BAD("2026-03-14T09:00:00-", S, bad_off);
  TS_BAD("2026-03-14T09:00:00+01:", S, bad_off);
  TS_BAD("2026-03-14T09:00:00ZZ", S, after);
  TS_BAD("2026-03-14T09:00:00Z ", S, after);
  TS_BAD("2026-03-14T09:00:00+01:00Z", S, after);
  TS_BAD("2026-03-14T09:00:00+01000", S, after);
  TS_BAD("2026-03-14T09:00:00+24:00", S,
         "time zone offset out of range (up to 23:59)");
  TS_BAD("2026-03-14T09:00:00-01:60", S,
         "time zone offset out of range (up to 23:59)");
  TS_BAD("2026-03-14T09:00:00\0Z", S, exp_zone);
  TS_BAD("2026-03-14T09:00:00Z", 1,
         "unsupported timestamp precision (0, 3 or 6 fraction digits)");
  TS_BAD("2026-03-14T09:00:00Z", 9,
         "unsupported timestamp precision (0, 3 or 6 fraction digits)");
}

typedef struct {
  const char *text;
  int64_t unix_us;
} written_ts;

static int cmp_text(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_us(const void *a, const void *b) {
  int64_t x = ((const written_ts *)a)->unix_us;
  int64_t y = ((const written_ts *)b)->unix_us;
  return (x > y) - (x < y);
}

/* The point of canonical text: sorting the key strings sorts the instants,
 * whatever zone and precision the values were written in. */
/* A non-digit in any digit place of the exact shape is refused as a shape,
 * whichever byte it is (the digits are checked a word at a time). */
static void ts_refuses_a_non_digit_in_every_place(void **state) {
  (void)state;
  static const int places[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
  char t[] = "2026-03-14T09:41:07Z";
  for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
    for (int c = 0; c < 256; c++) {
      if (c >= '0' && c <= '9') continue;
      char copy[sizeof t];
      memcpy(copy, t, sizeof t);
      copy[places[p]] = (char)c;
      ts_bad(copy, sizeof t - 1, S,
             "not an ISO-8601 timestamp: expected YYYY-MM-DDTHH:MM:SS");
    }
  }
  TS_OK("2026-03-14T09:41:07Z", S, "2026-03-14T09:41:07Z");
  TS_OK("0000-01-01T00:00:00Z", S, "0000-01-01T00:00:00Z");
  TS_OK("9999-12-31T23:59:59Z", S, "9999-12-31T23:59:59Z");
}

/* ddbst__ts_is_canonical says yes exactly when ddbst__ts_canon gives the
 * text back unchanged. */
static void ts_is_canonical_matches_ts_canon(const char *t, size_t n,
                                             int precision) {
  char *copy = exact_copy(t, n);
  char out[DDBST__TS_MAX];
  size_t len = 0;
  int want = ddbst__ts_canon(copy, n, precision, out, &len) == NULL &&
             len == n && memcmp(out, copy, n) == 0;
  int got = ddbst__ts_is_canonical(copy, n, precision);
  if (got != want)
    fail_msg("'%.*s' at precision %d: fast %d, ts_canon %d", (int)n, t,
             precision, got, want);
  free(copy);
}

static void ts_is_canonical_agrees_everywhere(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int precision;
  } base[] = {{"2026-03-14T09:41:07Z", S},
              {"2024-02-29T23:59:59.999Z", MS},
              {"2000-12-31T00:00:00.000001Z", US},
              {"0000-01-01T00:00:00Z", S},
              {"9999-12-31T23:59:59.999999Z", US}};
  for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
    const char *t = base[b].text;
    size_t n = strlen(t);
    /* every byte in every place, at every precision */
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 256; c++) {
        char m[DDBST__TS_MAX];
        memcpy(m, t, n);
        m[i] = (char)c;
        for (int p = 0; p <= 7; p++) ts_is_canonical_matches_ts_canon(m, n, p);
      }
    /* every length, shorter and longer */
    char longer[DDBST__TS_MAX + 8];
    memcpy(longer, t, n);
    memcpy(longer + n, "Z0000000", 8);
    for (size_t k = 0; k <= n + 8; k++)
      ts_is_canonical_matches_ts_canon(longer, k, base[b].precision);
  }
  /* every month, day, hour, minute and second a digit pair can spell, in
   * common, leap and century years */
  static const char *const years[] = {"1900", "2000", "2023", "2024", "0000"};
  for (size_t y = 0; y < sizeof years / sizeof years[0]; y++)
    for (int mo = 0; mo < 100; mo++)
      for (int d = 0; d < 100; d++) {
        char t[32];
        snprintf(t, sizeof t, "%s-%02d-%02dT%02d:%02d:%02dZ", years[y], mo, d,
                 (mo + d) % 100, (mo * 3 + d) % 100, (d * 7 + mo) % 100);
        ts_is_canonical_matches_ts_canon(t, 20, S);
        snprintf(t, sizeof t, "%s-%02d-%02dT23:59:59.000Z", years[y], mo, d);
        ts_is_canonical_matches_ts_canon(t, 24, MS);
      }
  for (int h = 0; h < 100; h++)
    for (int mi = 0; mi < 100; mi++) {
      char t[32];
      snprintf(t, sizeof t, "2026-01-31T%02d:%02d:%02d.123456Z", h, mi,
               (h + mi) % 100);
      ts_is_canonical_matches_ts_canon(t, 27, US);
    }
}

static void ts_canonical_text_sorts_in_time_order(void **state) {
  (void)state;
  static const int64_t base = INT64_C(1773478800000000); /* 2026-03-14T09Z */
  written_ts in[] = {
      {"2026-03-14T10:00:00.5+01:00", base + 500000},
      {"2026-03-14T04:30:00-04:30", base},
      {"2026-03-14T09:00:00.999999999Z", base + 999999},
      {"2026-03-14T09:00:01+00:00", base + 1000000},
      {"2026-03-14T08:59:59.9991Z", base - 900},
      {"2026-03-14T18:00:00+0900", base},
      {"2026-03-13T23:59:59-09:00", base - 1000000},
      {"2026-03-14T09:00:00.001Z", base + 1000},
      {"2026-03-14T09:00:00.0009Z", base + 900},
      /* 2026-03-14T00:01Z */
      {"2026-03-15T00:00:00+23:59",
       base - (8 * 3600 + 59 * 60) * INT64_C(1000000)},
      {"1969-12-31T23:59:59.5Z", -500000},
      {"0000-01-01T00:00:00Z", INT64_C(-62167219200000000)},
      {"9999-12-31T23:59:59.999999Z", INT64_C(253402300799999999)},
      {"2026-03-14T09:00:00.000001Z", base + 1},
  };
  enum { N = sizeof in / sizeof in[0] };
  static const int precisions[] = {US, MS, S};
  for (size_t p = 0; p < 3; p++) {
    int prec = precisions[p];
    int64_t unit = prec == US ? 1 : prec == MS ? 1000 : 1000000;
    char text[N][64];
    const char *order[N];
    for (size_t i = 0; i < N; i++) {
      const char *why = ts(in[i].text, strlen(in[i].text), prec, text[i]);
      if (why) fail_msg("%s refused: %s", in[i].text, why);
      order[i] = text[i];
      /* The canonical text reads back as the instant floored to the unit. */
      int64_t back = 0;
      assert_null(ddbst__ts_to_unix_us(text[i], strlen(text[i]), &back));
      int64_t floored = in[i].unix_us - ((in[i].unix_us % unit) + unit) % unit;
      if (back != floored)
        fail_msg("%s read back as %lld, want %lld", text[i], (long long)back,
                 (long long)floored);
    }
    qsort(order, N, sizeof order[0], cmp_text);
    written_ts by_time[N];
    memcpy(by_time, in, sizeof in);
    qsort(by_time, N, sizeof by_time[0], cmp_us);
    for (size_t i = 0; i + 1 < N; i++) {
      int64_t a = 0, b = 0;
      assert_null(ddbst__ts_to_unix_us(order[i], strlen(order[i]), &a));
      assert_null(ddbst__ts_to_unix_us(order[i + 1], strlen(order[i + 1]), &b));
      assert_true(a <= b);
      /* Same instant floored to the unit ⇔ same text. */
      assert_true((a == b) == (strcmp(order[i], order[i + 1]) == 0));
    }
    /* And the first/last of the string order are the earliest/latest. */
    int64_t first = 0;
    assert_null(ddbst__ts_to_unix_us(order[0], strlen(order[0]), &first));
    assert_true(first == by_time[0].unix_us);
  }
}

static void from_unix(int64_t us, int prec, const char *want) {
  char *out = malloc(DDBST__TS_MAX);
  assert_non_null(out);
  size_t len = 0;
  const char *why = ddbst__ts_from_unix_us(us, prec, out, &len);
  if (why) fail_msg("%lld refused: %s", (long long)us, why);
  assert_int_equal(len, strlen(want));
  assert_memory_equal(out, want, len);
  free(out);
}

static void ts_from_unix_us_floors(void **state) {
  (void)state;
  char out[DDBST__TS_MAX];
  size_t len = 0;
  from_unix(0, S, "1970-01-01T00:00:00Z");
  from_unix(0, US, "1970-01-01T00:00:00.000000Z");
  from_unix(INT64_C(1773478800120000), MS, "2026-03-14T09:00:00.120Z");
  from_unix(INT64_C(1773478800120000), US, "2026-03-14T09:00:00.120000Z");
  from_unix(INT64_C(1773478800999999), S, "2026-03-14T09:00:00Z");
  from_unix(-1, US, "1969-12-31T23:59:59.999999Z");
  from_unix(-1, MS, "1969-12-31T23:59:59.999Z");
  from_unix(-1, S, "1969-12-31T23:59:59Z");
  from_unix(-1000000, S, "1969-12-31T23:59:59Z");
  from_unix(-1000001, MS, "1969-12-31T23:59:58.999Z");
  from_unix(INT64_C(-86400000000), S, "1969-12-31T00:00:00Z");
  from_unix(INT64_C(-86400000001), S, "1969-12-30T23:59:59Z");
  from_unix(INT64_C(951782400000000), S, "2000-02-29T00:00:00Z");
  from_unix(INT64_C(-62167219200000000), US, "0000-01-01T00:00:00.000000Z");
  from_unix(INT64_C(253402300799999999), US, "9999-12-31T23:59:59.999999Z");
  const char *range = "timestamp outside years 0000-9999 (UTC)";
  assert_string_equal(
      ddbst__ts_from_unix_us(INT64_C(-62167219200000001), US, out, &len),
      range);
  assert_string_equal(
      ddbst__ts_from_unix_us(INT64_C(253402300800000000), S, out, &len), range);
  assert_string_equal(ddbst__ts_from_unix_us(INT64_MIN, S, out, &len), range);
  assert_string_equal(ddbst__ts_from_unix_us(INT64_MAX, S, out, &len), range);
  assert_string_equal(
      ddbst__ts_from_unix_us(0, 2, out, &len),
      "unsupported timestamp precision (0, 3 or 6 fraction digits)");
}

/* Writes `count` decimal digits of v at out (the test's own writer). */
static void ref_digits(char *out, int64_t v, int count) {
  for (int k = count - 1; k >= 0; k--, v /= 10) out[k] = (char)('0' + v % 10);
}

/* The expected text of day y-m-d at second `sod` and microsecond `sub`, at
 * `prec`, written field by field. */
static size_t ref_text(int64_t y, int m, int d, int64_t sod, int64_t sub,
                       int prec, char *out) {
  ref_digits(out, y, 4);
  out[4] = '-';
  ref_digits(out + 5, m, 2);
  out[7] = '-';
  ref_digits(out + 8, d, 2);
  out[10] = 'T';
  ref_digits(out + 11, sod / 3600, 2);
  out[13] = ':';
  ref_digits(out + 14, sod / 60 % 60, 2);
  out[16] = ':';
  ref_digits(out + 17, sod % 60, 2);
  size_t n = 19;
  if (prec) {
    out[n++] = '.';
    int64_t frac = sub;
    for (int k = prec; k < 6; k++) frac /= 10;
    ref_digits(out + n, frac, prec);
    n += (size_t)prec;
  }
  out[n++] = 'Z';
  return n;
}

static void expect_from_unix(int64_t us, int prec, const char *want,
                             size_t want_len) {
  char got[DDBST__TS_MAX];
  size_t len = 0;
  const char *why = ddbst__ts_from_unix_us(us, prec, got, &len);
  if (why) fail_msg("%lld refused: %s", (long long)us, why);
  if (len != want_len || memcmp(got, want, len))
    fail_msg("%lld at precision %d: %.*s, wanted %.*s", (long long)us, prec,
             (int)len, got, (int)want_len, want);
}

/* Every day of years 0000-9999, against a calendar kept by counting days
 * one at a time (no formula shared with the library): a different time of
 * day and fraction each day, midnight and the day's last microsecond in
 * turn, all three precisions; and both sides of every new year. */
static void ts_from_unix_us_every_day(void **state) {
  (void)state;
  static const unsigned char month_days[13] = {0,  31, 28, 31, 30, 31, 30,
                                               31, 31, 30, 31, 30, 31};
  static const int precisions[] = {S, MS, US};
  int64_t y = 0;
  int m = 1, d = 1;
  char want[DDBST__TS_MAX];
  uint64_t x = UINT64_C(0x2545F4914F6CDD1D);
  for (int64_t day = -719528; day < 2932897; day++) {
    int64_t sod, sub;
    switch (day & 3) {
    case 0: sod = 0, sub = 0; break;
    case 1: sod = 86399, sub = 999999; break;
    default:
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      sod = (int64_t)(x % 86400);
      sub = (int64_t)(x >> 20) % 1000000;
    }
    int prec = precisions[(day & 0xff) % 3];
    int64_t us = (day * 86400 + sod) * 1000000 + sub;
    expect_from_unix(us, prec, want, ref_text(y, m, d, sod, sub, prec, want));
    if (m == 1 && d == 1 && y > 0) {
      /* the new year's first microsecond, and the old year's last */
      int64_t midnight = day * 86400 * 1000000;
      expect_from_unix(midnight, US, want, ref_text(y, 1, 1, 0, 0, US, want));
      expect_from_unix(midnight - 1, US, want,
                       ref_text(y - 1, 12, 31, 86399, 999999, US, want));
      expect_from_unix(midnight - 1, MS, want,
                       ref_text(y - 1, 12, 31, 86399, 999999, MS, want));
      expect_from_unix(midnight - 1, S, want,
                       ref_text(y - 1, 12, 31, 86399, 999999, S, want));
    }
    int leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    int last = month_days[m] + (m == 2 && leap);
    if (++d > last) {
      d = 1;
      if (++m > 12) m = 1, y++;
    }
  }
  /* the sweep ended exactly on 10000-01-01 */
  assert_true(y == 10000 && m == 1 && d == 1);
}

/* Leap days and the days around them, at every precision. */
static void ts_from_unix_us_leap_days(void **state) {
  (void)state;
  from_unix(INT64_C(951868799999999), US, "2000-02-29T23:59:59.999999Z");
  from_unix(INT64_C(951868800000000), US, "2000-03-01T00:00:00.000000Z");
  from_unix(INT64_C(-2203891200000000), S, "1900-03-01T00:00:00Z");
  from_unix(INT64_C(-2203891200000001), MS, "1900-02-28T23:59:59.999Z");
  from_unix(INT64_C(4107542400000000), S, "2100-03-01T00:00:00Z");
  from_unix(INT64_C(4107542399000000), S, "2100-02-28T23:59:59Z");
  from_unix(INT64_C(1709164800123456), MS, "2024-02-29T00:00:00.123Z");
  from_unix(INT64_C(-62162121600000000), S, "0000-02-29T00:00:00Z");
  from_unix(INT64_C(-62162121600000001), US, "0000-02-28T23:59:59.999999Z");
  from_unix(INT64_C(253281168000000000), S, "9996-02-29T00:00:00Z");
  from_unix(INT64_C(253402300799000000), S, "9999-12-31T23:59:59Z");
  from_unix(INT64_C(-62135596800000000), US, "0001-01-01T00:00:00.000000Z");
  from_unix(INT64_C(-62135596800000001), US, "0000-12-31T23:59:59.999999Z");
  from_unix(INT64_C(1773478800000001), US, "2026-03-14T09:00:00.000001Z");
  from_unix(INT64_C(1773478800000999), MS, "2026-03-14T09:00:00.000Z");
  from_unix(INT64_C(1773478800001000), MS, "2026-03-14T09:00:00.001Z");
  from_unix(INT64_C(1773478800010000), MS, "2026-03-14T09:00:00.010Z");
  from_unix(INT64_C(1773478800100000), MS, "2026-03-14T09:00:00.100Z");
  from_unix(INT64_C(1773478800909090), US, "2026-03-14T09:00:00.909090Z");
}

static const char *to_unix(const char *in, size_t n, int64_t *us) {
  char *copy = exact_copy(in, n);
  const char *why = ddbst__ts_to_unix_us(copy, n, us);
  free(copy);
  return why;
}

static void ts_to_unix_us_takes_only_canonical_text(void **state) {
  (void)state;
  int64_t us = 0;
  assert_null(to_unix(LIT("2026-03-14T09:00:00Z"), &us));
  assert_true(us == INT64_C(1773478800000000));
  assert_null(to_unix(LIT("2026-03-14T09:00:00.120Z"), &us));
  assert_true(us == INT64_C(1773478800120000));
  assert_null(to_unix(LIT("2026-03-14T09:00:00.000001Z"), &us));
  assert_true(us == INT64_C(1773478800000001));
  assert_null(to_unix(LIT("1969-12-31T23:59:59.999999Z"), &us));
  assert_true(us == -1);
  assert_null(to_unix(LIT("0000-01-01T00:00:00Z"), &us));
  assert_true(us == INT64_C(-62167219200000000));
  assert_null(to_unix(LIT("9999-12-31T23:59:59.999999Z"), &us));
  assert_true(us == INT64_C(253402300799999999));

  const char *nc =
      "not a canonical timestamp (YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z)";
  assert_string_equal(to_unix(LIT(""), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.12Z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.1234Z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.12aZ"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00+00:00"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.000+0000"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.0000000Z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00,000Z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14T09:00:00.000000 "), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14X09:00:00.000000Z"), &us), nc);
  assert_string_equal(to_unix(LIT("2026-03-14 09:00:00Z"), &us),
                      "not an ISO-8601 timestamp: date and time must be "
                      "separated by upper-case 'T'");
  assert_string_equal(to_unix(LIT("2025-02-29T00:00:00Z"), &us),
                      "day 29 does not exist in February of a common year");
  assert_string_equal(to_unix(LIT("2025-02-28T24:00:00Z"), &us),
                      "hour out of range (00-23)");
}

static void ts_round_trips_through_unix_us(void **state) {
  (void)state;
  static const int precisions[] = {S, MS, US};
  uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
  const int64_t lo = INT64_C(-62167219200000000);
  const int64_t span = INT64_C(253402300800000000) - lo;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t us = lo + (int64_t)(x % (uint64_t)span);
    if (i < 6) us = i % 2 ? lo + i : lo + span - 1 - i;
    int prec = precisions[i % 3];
    int64_t unit = prec == US ? 1 : prec == MS ? 1000 : 1000000;
    char text[DDBST__TS_MAX], again[DDBST__TS_MAX];
    size_t len = 0, len2 = 0;
    assert_null(ddbst__ts_from_unix_us(us, prec, text, &len));
    int64_t back = 0;
    assert_null(ddbst__ts_to_unix_us(text, len, &back));
    assert_true(back == us - ((us % unit) + unit) % unit);
    /* Canonical text is a fixed point of ddbst__ts_canon. */
    assert_null(ddbst__ts_canon(text, len, prec, again, &len2));
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
  }
}

static int prefix(const char *p, size_t n, int precision) {
  char *copy = exact_copy(p, n);
  int r = ddbst__ts_is_prefix(copy, n, precision);
  free(copy);
  return r;
}

#define PREFIX(lit, prec, want) assert_int_equal(prefix(LIT(lit), prec), want)

static void ts_is_prefix_checks_shape(void **state) {
  (void)state;
  PREFIX("", S, 0);
  PREFIX("2", S, 1);
  PREFIX("2026", S, 1);
  PREFIX("2026-", S, 1);
  PREFIX("2026-0", S, 1);
  PREFIX("2026-1", S, 1);
  PREFIX("2026-03", S, 1);
  PREFIX("2026-12", S, 1);
  PREFIX("2026-03-1", S, 1);
  PREFIX("2026-03-14", S, 1);
  PREFIX("2026-03-14T", S, 1);
  PREFIX("2026-03-14T09", S, 1);
  PREFIX("2026-03-14T23:59:5", S, 1);
  PREFIX("2026-03-14T09:00:00", S, 1);
  PREFIX("2024-02-29", S, 1);
  PREFIX("2025-02-2", S, 1);
  PREFIX("2026-03-3", S, 1);
  PREFIX("2026-03-31", S, 1);
  PREFIX("0000-01-01T00:00:0", S, 1);
  PREFIX("2026-03-14T09:00:00.", MS, 1);
  PREFIX("2026-03-14T09:00:00.12", MS, 1);
  PREFIX("2026-03-14T09:00:00.123", MS, 1);
  PREFIX("2026-03-14T09:00:00.12345", US, 1);
  PREFIX("2026-03-14T09:00:00.123456", US, 1);

  /* Complete values are not proper prefixes. */
  PREFIX("2026-03-14T09:00:00Z", S, 0);
  PREFIX("2026-03-14T09:00:00.123Z", MS, 0);
  PREFIX("2026-03-14T09:00:00.123456Z", US, 0);
  /* Longer than, or shaped for, another precision. */
  PREFIX("2026-03-14T09:00:00.", S, 0);
  PREFIX("2026-03-14T09:00:00Z", MS, 0);
  PREFIX("2026-03-14T09:00:00.1234", MS, 0);
  PREFIX("2026-03-14T09:00:00.123Z", US, 0);
  /* Wrong characters. */
  PREFIX("X", S, 0);
  PREFIX("20a6", S, 0);
  PREFIX("2026/", S, 0);
  PREFIX("2026-03-14 09", S, 0);
  PREFIX("2026-03-14t09", S, 0);
  PREFIX("2026-03-14T09-", S, 0);
  PREFIX("2026-03-14T09:00:00,", MS, 0);
  PREFIX("-2026", S, 0);
  PREFIX("2026\0", S, 0);
  /* Digits present that no completion can make valid. */
  PREFIX("2026-2", S, 0);
  PREFIX("2026-00", S, 0);
  PREFIX("2026-13", S, 0);
  PREFIX("2026-03-4", S, 0);
  PREFIX("2025-02-3", S, 0);
  PREFIX("2026-03-00", S, 0);
  PREFIX("2026-04-31", S, 0);
  PREFIX("2025-02-29", S, 0);
  PREFIX("2026-03-14T3", S, 0);
  PREFIX("2026-03-14T24", S, 0);
  PREFIX("2026-03-14T09:6", S, 0);
  PREFIX("2026-03-14T09:00:6", S, 0);
  /* Unknown precision. */
  PREFIX("2026", 1, 0);
}

/* --------------------------------------------------------------- integers */

static const char *int_parse(const char *in, size_t n, int64_t *v) {
  char *copy = exact_copy(in, n);
  const char *why = ddbst__int_parse(copy, n, v);
  free(copy);
  return why;
}

#define INT_OK(lit, want)                                                      \
  do {                                                                         \
    int64_t v_ = 0;                                                            \
    assert_null(int_parse(LIT(lit), &v_));                                     \
    assert_true(v_ == (want));                                                 \
  } while (0)
#define INT_BAD(lit, reason)                                                   \
  do {                                                                         \
    int64_t v_ = 0;                                                            \
    assert_string_equal(int_parse(LIT(lit), &v_), reason);                     \
  } while (0)

static void int_parse_is_strict(void **state) {
  (void)state;
  INT_OK("0", 0);
  INT_OK("7", 7);
  INT_OK("42", 42);
  INT_OK("-12", -12);
  INT_OK("-1", -1);
  INT_OK("9223372036854775807", INT64_MAX);
  INT_OK("-9223372036854775808", INT64_MIN);
  INT_OK("-9223372036854775807", -INT64_MAX);
  INT_BAD("", "empty integer");
  INT_BAD("+1", "not an integer: leading '+'");
  INT_BAD("-", "not an integer: '-' without digits");
  INT_BAD("01", "not an integer: leading zero");
  INT_BAD("00", "not an integer: leading zero");
  INT_BAD("-01", "not an integer: leading zero");
  INT_BAD("-0", "not an integer: negative zero");
  INT_BAD(" 1", "not an integer: non-digit character");
  INT_BAD("1 ", "not an integer: non-digit character");
  INT_BAD("1a", "not an integer: non-digit character");
  INT_BAD("0x10", "not an integer: non-digit character");
  INT_BAD("1.0", "not an integer: non-digit character");
  INT_BAD("--1", "not an integer: non-digit character");
  INT_BAD("1\0", "not an integer: non-digit character");
  INT_BAD("9223372036854775808", "integer out of 64-bit range");
  INT_BAD("-9223372036854775809", "integer out of 64-bit range");
  INT_BAD("18446744073709551616", "integer out of 64-bit range");
  INT_BAD("99999999999999999999999999", "integer out of 64-bit range");
  INT_BAD("99999999999999999999x", "not an integer: non-digit character");
}

static const char *int_key(int64_t v, int width, int sortable, char *got) {
  char *out = malloc(DDBST__INT_MAX_TEXT);
  assert_non_null(out);
  size_t len = 0;
  const char *why = ddbst__int_key(v, width, sortable, out, &len);
  if (!why) {
    assert_true(len <= DDBST__INT_MAX_TEXT);
    memcpy(got, out, len);
    got[len] = '\0';
  }
  free(out);
  return why;
}

static const char *int_from_key(const char *in, size_t n, int width,
                                int sortable, int64_t *v) {
  char *copy = exact_copy(in, n);
  const char *why = ddbst__int_from_key(copy, n, width, sortable, v);
  free(copy);
  return why;
}

/* Key text for v, and it must read back as v. */
static void key_ok(int64_t v, int width, int sortable, const char *want) {
  char got[32];
  const char *why = int_key(v, width, sortable, got);
  if (why) fail_msg("%lld refused: %s", (long long)v, why);
  assert_string_equal(got, want);
  int64_t back = 0;
  why = int_from_key(got, strlen(got), width, sortable, &back);
  if (why) fail_msg("%s not read back: %s", got, why);
  assert_true(back == v);
}

static void key_bad(int64_t v, int width, int sortable, const char *reason) {
  char got[32];
  const char *why = int_key(v, width, sortable, got);
  if (!why) fail_msg("%lld accepted as %s", (long long)v, got);
  assert_string_equal(why, reason);
}

static const char *const TOO_WIDE =
    "integer has more digits than the key width";
static const char *const NEG_NOT_ALLOWED =
    "negative integer not allowed in this key (not declared sortable_negative)";
static const char *const NEG_NEEDS_WIDTH =
    "negative integer in a sortable key needs a declared width";
static const char *const BAD_WIDTH =
    "integer key width must be between 0 and 19";

static void int_key_pads_and_complements(void **state) {
  (void)state;
  key_ok(-5, 3, 1, "-995");
  key_ok(-1, 3, 1, "-999");
  key_ok(0, 3, 1, "000");
  key_ok(7, 3, 1, "007");
  key_ok(7, 3, 0, "007");
  key_ok(999, 3, 1, "999");
  key_ok(-999, 3, 1, "-001");
  key_ok(9, 1, 0, "9");
  key_ok(-9, 1, 1, "-1");
  key_bad(1000, 3, 1, TOO_WIDE);
  key_bad(1000, 3, 0, TOO_WIDE);
  key_bad(-1000, 3, 1, TOO_WIDE);
  key_bad(10, 1, 1, TOO_WIDE);
  key_bad(-10, 1, 1, TOO_WIDE);
  key_bad(-1, 3, 0, NEG_NOT_ALLOWED);
  key_bad(INT64_MIN, 19, 0, NEG_NOT_ALLOWED);

  key_ok(0, 0, 0, "0");
  key_ok(42, 0, 0, "42");
  key_ok(-12, 0, 0, "-12");
  key_ok(INT64_MIN, 0, 0, "-9223372036854775808");
  key_ok(INT64_MAX, 0, 0, "9223372036854775807");
  key_ok(42, 0, 1, "42");
  key_bad(-1, 0, 1, NEG_NEEDS_WIDTH);
  key_bad(INT64_MIN, 0, 1, NEG_NEEDS_WIDTH);

  key_ok(INT64_MAX, 19, 0, "9223372036854775807");
  key_ok(INT64_MAX, 19, 1, "9223372036854775807");
  key_ok(0, 19, 1, "0000000000000000000");
  key_ok(-1, 19, 1, "-9999999999999999999");
  key_ok(INT64_MIN, 19, 1, "-0776627963145224192");
  key_ok(INT64_MIN + 1, 19, 1, "-0776627963145224193");
  key_ok(INT64_C(999999999999999999), 18, 1, "999999999999999999");
  key_ok(INT64_C(-999999999999999999), 18, 1, "-000000000000000001");
  key_bad(INT64_C(1000000000000000000), 18, 1, TOO_WIDE);
  key_bad(INT64_C(-1000000000000000000), 18, 1, TOO_WIDE);

  key_bad(1, 20, 0, BAD_WIDTH);
  key_bad(1, -1, 0, BAD_WIDTH);
}

#define FROM_BAD(lit, width, sortable, reason)                                 \
  do {                                                                         \
    int64_t v_ = 0;                                                            \
    assert_string_equal(int_from_key(LIT(lit), width, sortable, &v_), reason); \
  } while (0)

static void int_from_key_refuses_what_int_key_never_writes(void **state) {
  (void)state;
  const char *wrong_len =
      "integer key has the wrong number of digits for its width";
  const char *non_digit = "integer key contains a non-digit";
  FROM_BAD("-000", 3, 1, TOO_WIDE); /* would be -1000 */
  FROM_BAD("-0000000000000000000", 19, 1, TOO_WIDE);
  FROM_BAD("-995", 3, 0, NEG_NOT_ALLOWED);
  FROM_BAD("-", 3, 0, NEG_NOT_ALLOWED);
  FROM_BAD("", 3, 1, wrong_len);
  FROM_BAD("-", 3, 1, wrong_len);
  FROM_BAD("07", 3, 1, wrong_len);
  FROM_BAD("0007", 3, 1, wrong_len);
  FROM_BAD("-99", 3, 1, wrong_len);
  FROM_BAD("-0995", 3, 1, wrong_len);
  FROM_BAD("0a7", 3, 1, non_digit);
  FROM_BAD("+07", 3, 1, non_digit);
  FROM_BAD("--99", 3, 1, non_digit);
  FROM_BAD(" 07", 3, 1, non_digit);
  FROM_BAD("07\0", 3, 1, non_digit);
  FROM_BAD("9999999999999999999", 19, 1, "integer out of 64-bit range");
  FROM_BAD("9223372036854775808", 19, 0, "integer out of 64-bit range");
  FROM_BAD("-0776627963145224191", 19, 1, "integer out of 64-bit range");
  FROM_BAD("-0000000000000000001", 19, 1, "integer out of 64-bit range");
  FROM_BAD("-5", 0, 1, NEG_NEEDS_WIDTH);
  FROM_BAD("007", 0, 0, "not an integer: leading zero");
  FROM_BAD("", 0, 0, "empty integer");
  FROM_BAD("+7", 0, 0, "not an integer: leading '+'");
  FROM_BAD("7", 20, 0, BAD_WIDTH);
  FROM_BAD("7", -1, 0, BAD_WIDTH);
}

/* Byte order of key texts (NUL-terminated, so a shorter prefix sorts first, as
 * in DynamoDB) must equal numeric order, and every key must read back. */
static void int_key_order_is_numeric_order(void **state) {
  (void)state;
  for (int width = 1; width <= 5; width++) {
    int64_t limit = 1;
    for (int k = 0; k < width; k++) limit *= 10;
    char prev[32] = "";
    for (int64_t v = -(limit - 1); v <= limit - 1; v++) {
      char cur[32];
      const char *why = int_key(v, width, 1, cur);
      if (why) fail_msg("%lld width %d refused: %s", (long long)v, width, why);
      int64_t back = 0;
      assert_null(ddbst__int_from_key(cur, strlen(cur), width, 1, &back));
      assert_true(back == v);
      if (v > -(limit - 1) && strcmp(prev, cur) >= 0)
        fail_msg("width %d: %s !< %s", width, prev, cur);
      memcpy(prev, cur, sizeof cur);
    }
    key_bad(-limit, width, 1, TOO_WIDE);
    key_bad(limit, width, 1, TOO_WIDE);
  }

  /* Width 19 over the whole int64 range: boundaries plus random pairs. */
  int64_t samples[64] = {INT64_MIN,
                         INT64_MIN + 1,
                         INT64_C(-1000000000000000000),
                         INT64_C(-999999999999999999),
                         -10, -9, -1, 0, 1, 9, 10,
                         INT64_C(999999999999999999),
                         INT64_C(1000000000000000000),
                         INT64_MAX - 1,
                         INT64_MAX};
  size_t count = 15;
  uint64_t x = UINT64_C(0x2545F4914F6CDD1D);
  while (count < 64) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t v = (int64_t)(x >> (1 + count % 40)); /* varied magnitudes */
    samples[count] = count % 2 ? -v - 1 : v;
    count++;
  }
  for (size_t i = 0; i < count; i++) {
    for (size_t j = 0; j < count; j++) {
      char a[32], b[32];
      assert_null(int_key(samples[i], 19, 1, a));
      assert_null(int_key(samples[j], 19, 1, b));
      int by_text = strcmp(a, b);
      by_text = (by_text > 0) - (by_text < 0);
      int by_value = (samples[i] > samples[j]) - (samples[i] < samples[j]);
      if (by_text != by_value)
        fail_msg("%s vs %s: text %d value %d", a, b, by_text, by_value);
      int64_t back = 0;
      assert_null(ddbst__int_from_key(a, strlen(a), 19, 1, &back));
      assert_true(back == samples[i]);
    }
  }
}

/* ------------------------------------------------------------------- ULID */

static const char *ulid(const char *in, size_t n, char *got) {
  char *copy = exact_copy(in, n);
  char *out = malloc(DDBST__ULID_LEN);
  assert_non_null(out);
  const char *why = ddbst__ulid_canon(copy, n, out);
  if (!why) {
    memcpy(got, out, DDBST__ULID_LEN);
    got[DDBST__ULID_LEN] = '\0';
  }
  free(out);
  free(copy);
  return why;
}

#define ULID_OK(lit, want)                                                     \
  do {                                                                         \
    char got_[32];                                                             \
    assert_null(ulid(LIT(lit), got_));                                         \
    assert_string_equal(got_, want);                                           \
  } while (0)
#define ULID_BAD(lit, reason)                                                  \
  do {                                                                         \
    char got_[32];                                                             \
    assert_string_equal(ulid(LIT(lit), got_), reason);                         \
  } while (0)

static void ulid_canon_uppercases_and_checks(void **state) {
  (void)state;
  ULID_OK("01ARYZ6S41TSV4RRFFQ69G5FAV", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  ULID_OK("01aryz6s41tsv4rrffq69g5fav", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  ULID_OK("01ArYz6S41tSv4RrFfQ69g5FaV", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  ULID_OK("00000000000000000000000000", "00000000000000000000000000");
  ULID_OK("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  ULID_OK("7zzzzzzzzzzzzzzzzzzzzzzzzz", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  const char *len = "ULID must be 26 characters";
  const char *ilou = "ULID may not contain I, L, O or U";
  const char *other = "not a ULID: character outside Crockford base32";
  const char *big = "ULID out of range: first character must be 0-7";
  ULID_BAD("", len);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FA", len);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAVX", len);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAI", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAi", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAL", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAl", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAO", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAo", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAU", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FAu", ilou);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FA-", other);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FA\0", other);
  ULID_BAD("01ARYZ6S41TSV4RRFFQ69G5FA\xC3", other);
  ULID_BAD(" 1ARYZ6S41TSV4RRFFQ69G5FAV", other);
  ULID_BAD("80000000000000000000000000", big);
  ULID_BAD("ZZZZZZZZZZZZZZZZZZZZZZZZZZ", big);
  ULID_BAD("z0000000000000000000000000", big);
}

static void ulid_encode_matches_the_spec(void **state) {
  (void)state;
  char *out = malloc(DDBST__ULID_LEN);
  assert_non_null(out);
  const uint8_t zero[10] = {0};
  ddbst__ulid_encode(UINT64_C(1469918176385), zero, out);
  assert_memory_equal(out, "01ARYZ6S410000000000000000", DDBST__ULID_LEN);

  const uint8_t ramp[10] = {0x00, 0x11, 0x22, 0x33, 0x44,
                            0x55, 0x66, 0x77, 0x88, 0x99};
  ddbst__ulid_encode(UINT64_C(0x0123456789AB), ramp, out);
  assert_memory_equal(out, "014D2PF2DB008J4CT4ANK7F24S", DDBST__ULID_LEN);

  uint8_t ones[10];
  memset(ones, 0xFF, sizeof ones);
  ddbst__ulid_encode(UINT64_C(0xFFFFFFFFFFFF), ones, out);
  assert_memory_equal(out, "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", DDBST__ULID_LEN);
  /* Bits above the 48-bit time field are ignored. */
  ddbst__ulid_encode(UINT64_C(0xFFFF000000000000), zero, out);
  assert_memory_equal(out, "00000000000000000000000000", DDBST__ULID_LEN);

  /* Encoded ULIDs are canonical, and later times sort later. */
  char got[32], earlier[32];
  ddbst__ulid_encode(UINT64_C(1469918176385), ramp, out);
  assert_null(ulid(out, DDBST__ULID_LEN, got));
  assert_memory_equal(got, out, DDBST__ULID_LEN);
  ddbst__ulid_encode(UINT64_C(1469918176384), ones, out);
  memcpy(earlier, out, DDBST__ULID_LEN);
  earlier[DDBST__ULID_LEN] = '\0';
  assert_true(strcmp(earlier, got) < 0);
  free(out);
}

/* ---------------------------------------------------------------- numbers */

static const char *number(const char *in, size_t n) {
  char *copy = exact_copy(in, n);
  const char *why = ddbst__number_check(copy, n);
  free(copy);
  return why;
}

static void number_ok(const char *in, size_t n) {
  const char *why = number(in, n);
  if (why) fail_msg("%s refused: %s", in, why);
}

#define NUM_OK(lit) number_ok(LIT(lit))
#define NUM_BAD(lit, reason) assert_string_equal(number(LIT(lit)), reason)

static void number_accepts_dynamodb_numbers(void **state) {
  (void)state;
  NUM_OK("0");
  NUM_OK("-0");
  NUM_OK("0.000");
  NUM_OK("0e5");
  NUM_OK("0E-999999999999999999999999");
  NUM_OK("00");
  NUM_OK("007");
  NUM_OK("-007.50");
  NUM_OK("1");
  NUM_OK("-1");
  NUM_OK("1.5");
  NUM_OK("1e10");
  NUM_OK("1e+5");
  NUM_OK("1E-0");
  NUM_OK("1E-130");
  NUM_OK("-1E-130");
  NUM_OK("10E-131");
  NUM_OK("0.1E-129");
  NUM_OK("0.01e-128");
  NUM_OK("1.2345E-130");
  NUM_OK("9.9999999999999999999999999999999999999E+125");
  NUM_OK("-9.9999999999999999999999999999999999999E+125");
  NUM_OK("99E+124");
  NUM_OK("0.0000000000000000000000000000000000000001"); /* 1E-40 */
  NUM_OK("12345678901234567890123456789012345678");      /* 38 digits */
  NUM_OK("-1234567890123456789.0123456789012345678");   /* 38 digits */
  NUM_OK("1234567890123456789012345678901234567800000"); /* trailing zeros */
  NUM_OK("1.2345678901234567890123456789012345678000");
  NUM_OK("0.00000000000000000000000000000000000000000012345678901234567890"
         "123456789012345678"); /* leading zeros not counted */
  NUM_OK("000000000000000000000000000000000000000000012345678901234567890"
         "123456789012345678");
}

static void number_refuses_the_rest(void **state) {
  (void)state;
  const char *unexpected = "not a number: unexpected character";
  const char *nan_inf = "not a number: NaN and Infinity are not allowed";
  const char *no_exp = "not a number: exponent without digits";
  const char *too_many = "more than 38 significant digits";
  const char *too_large =
      "number too large (above 9.9999999999999999999999999999999999999E+125)";
  const char *too_small = "number too small (non-zero below 1E-130)";
  NUM_BAD("", "empty number");
  NUM_BAD("+1", "not a number: leading '+'");
  NUM_BAD("-", "not a number: no digits");
  NUM_BAD(".5", "not a number: leading '.'");
  NUM_BAD("-.5", "not a number: leading '.'");
  NUM_BAD("5.", "not a number: no digit after '.'");
  NUM_BAD("5.e3", "not a number: no digit after '.'");
  NUM_BAD("1e", no_exp);
  NUM_BAD("1e+", no_exp);
  NUM_BAD("1E-", no_exp);
  NUM_BAD("1.5e", no_exp);
  NUM_BAD("NaN", nan_inf);
  NUM_BAD("nan", nan_inf);
  NUM_BAD("Infinity", nan_inf);
  NUM_BAD("-Infinity", nan_inf);
  NUM_BAD("inf", nan_inf);
  NUM_BAD(" 1", unexpected);
  NUM_BAD("1 ", unexpected);
  NUM_BAD("- 1", unexpected);
  NUM_BAD("0x1F", unexpected);
  NUM_BAD("1,5", unexpected);
  NUM_BAD("1.2.3", unexpected);
  NUM_BAD("1e5.5", unexpected);
  NUM_BAD("1e+-5", no_exp);
  NUM_BAD("--1", unexpected);
  NUM_BAD("1\0", unexpected);
  NUM_BAD("e5", unexpected);
  NUM_BAD("123456789012345678901234567890123456789", too_many);
  NUM_BAD("1.00000000000000000000000000000000000001", too_many);
  NUM_BAD("0.000123456789012345678901234567890123456789", too_many);
  NUM_BAD("9.99999999999999999999999999999999999999E+125", too_many);
  NUM_BAD("1E+126", too_large);
  NUM_BAD("-1E+126", too_large);
  NUM_BAD("10E+125", too_large);
  NUM_BAD("0.1E+127", too_large);
  NUM_BAD("1e999999999999999999999", too_large);
  NUM_BAD("1E-131", too_small);
  NUM_BAD("-1E-131", too_small);
  NUM_BAD("0.1E-130", too_small);
  NUM_BAD("9.9E-131", too_small);
  NUM_BAD("1e-999999999999999999999", too_small);
}

/* "1" followed by `zeros` zeros, optionally as "0.000…1" instead. */
static const char *power_of_ten(int zeros, int negative_exponent) {
  char text[300];
  size_t n = 0;
  if (negative_exponent) {
    text[n++] = '0';
    text[n++] = '.';
    for (int k = 1; k < zeros; k++) text[n++] = '0';
    text[n++] = '1';
  } else {
    text[n++] = '1';
    for (int k = 0; k < zeros; k++) text[n++] = '0';
  }
  return number(text, n);
}

static void number_magnitude_by_digit_position(void **state) {
  (void)state;
  const char *too_large =
      "number too large (above 9.9999999999999999999999999999999999999E+125)";
  const char *too_small = "number too small (non-zero below 1E-130)";
  assert_null(power_of_ten(0, 0));
  assert_null(power_of_ten(125, 0)); /* 1E+125 written out */
  assert_string_equal(power_of_ten(126, 0), too_large);
  assert_null(power_of_ten(1, 1));   /* 0.1 */
  assert_null(power_of_ten(130, 1)); /* 1E-130 written out */
  assert_string_equal(power_of_ten(131, 1), too_small);
  /* 38 nines then 88 zeros: 9.99…E+125, the largest value. */
  char text[200];
  size_t n = 0;
  for (int k = 0; k < 38; k++) text[n++] = '9';
  for (int k = 0; k < 88; k++) text[n++] = '0';
  assert_null(number(text, n));
  text[n++] = '0';
  assert_string_equal(number(text, n), too_large);
}

/* ----------------------------------------------------------------- base64 */

static const char *b64(const char *in, size_t n) {
  char *copy = exact_copy(in, n);
  const char *why = ddbst__base64_check(copy, n);
  free(copy);
  return why;
}

#define B64_OK(lit) assert_null(b64(LIT(lit)))
#define B64_BAD(lit, reason) assert_string_equal(b64(LIT(lit)), reason)

static void base64_checks_alphabet_length_and_padding(void **state) {
  (void)state;
  B64_OK("");
  B64_OK("QQ==");
  B64_OK("QUI=");
  B64_OK("QUJD");
  B64_OK("AAAAQQ==");
  B64_OK("+/+/");
  B64_OK("QR=="); /* non-zero bits under the padding: accepted */
  const char *len = "not base64: length is not a multiple of 4";
  const char *early = "not base64: '=' padding before the end";
  const char *alpha = "not base64: character outside the standard alphabet";
  B64_BAD("Q", len);
  B64_BAD("QQ", len);
  B64_BAD("QQ=", len);
  B64_BAD("QQ==Q", len);
  B64_BAD("Q===", "not base64: more than two '=' padding characters");
  B64_BAD("====", "not base64: more than two '=' padding characters");
  B64_BAD("QQ=A", early);
  B64_BAD("=QQQ", early);
  B64_BAD("QQ==QQ==", early);
  B64_BAD("QQ-_", "not base64: URL-safe alphabet ('-' or '_')");
  B64_BAD("QQ Q", alpha);
  B64_BAD("QQ\nQ", alpha);
  B64_BAD("QQ\0Q", alpha);
  B64_BAD("QQ\xC3\xA9", alpha);
}

/* ---------------------------------------------------------------- casing */

/* The run ddbst__ascii_copy reports is ASCII without NUL and copied; the
 * UTF-8 check from there gives the verdict on the whole. Every length to
 * past two SSE blocks, a bad byte in every place. */
static void ascii_copy_checks_while_copying(void **state) {
  (void)state;
  static const unsigned char bad[] = {0x00, 0x80, 0xC3, 0xE9, 0xFF, 0x7F};
  for (size_t n = 0; n <= 40; n++)
    for (size_t at = 0; at <= n; at++) /* at == n: none */
      for (size_t b = 0; b < sizeof bad; b++) {
        char *text = malloc(n ? n : 1), *dst = malloc(n + 1);
        assert_true(text && dst);
        for (size_t i = 0; i < n; i++) text[i] = (char)('a' + i % 26);
        if (at < n) text[at] = (char)bad[b];
        char *in = exact_copy(text, n);
        memset(dst, '#', n + 1);
        size_t run = ddbst__ascii_copy(dst, in, n);
        assert_true(run <= n);
        for (size_t i = 0; i < run; i++) {
          assert_true(in[i] != 0 && (unsigned char)in[i] < 0x80);
          assert_int_equal(dst[i], in[i]);
        }
        assert_int_equal(dst[n], '#'); /* nothing past n */
        if (at == n || bad[b] == 0x7F) assert_int_equal(run, n);
        const char *whole = ddbst__utf8_check(in, n);
        const char *rest = ddbst__utf8_check(in + run, n - run);
        if (whole || rest) assert_string_equal(whole, rest);
        free(in);
        free(text);
        free(dst);
      }
}

static void lower_ascii_touches_only_a_to_z(void **state) {
  (void)state;
  char s[] = "AbC-XyZ@[`{#\xC3\x89\xC3\xA9 USER";
  char *copy = exact_copy(s, sizeof s - 1);
  ddbst__lower_ascii(copy, sizeof s - 1);
  assert_memory_equal(copy, "abc-xyz@[`{#\xC3\x89\xC3\xA9 user", sizeof s - 1);
  ddbst__lower_ascii(copy, 0);
  free(copy);

  char all[256], want[256];
  for (int i = 0; i < 256; i++) {
    all[i] = (char)i;
    want[i] = (char)(i >= 'A' && i <= 'Z' ? i + 32 : i);
  }
  ddbst__lower_ascii(all, sizeof all);
  assert_memory_equal(all, want, sizeof all);

  /* every byte beside every other, at every offset of a word, every length */
  for (int b = 0; b < 256; b++) {
    for (size_t n = 0; n <= 24; n++) {
      char *text = malloc(n + 1), *ref = malloc(n + 1);
      assert_true(text && ref);
      for (size_t i = 0; i < n; i++) {
        int c = i % 3 == 0 ? b : (int)((b * 7 + i * 53) & 0xFF);
        text[i] = (char)c;
        ref[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
      }
      ddbst__lower_ascii(text, n);
      if (n) assert_memory_equal(text, ref, n);
      free(text);
      free(ref);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(utf8_accepts_well_formed),
      cmocka_unit_test(utf8_refuses_malformed),
      cmocka_unit_test(utf8_at_every_length_and_position),
      cmocka_unit_test(ts_normalises_offsets_and_precisions),
      cmocka_unit_test(ts_crosses_day_month_and_year_lines),
      cmocka_unit_test(ts_checks_calendar),
      cmocka_unit_test(ts_keeps_years_0000_to_9999),
      cmocka_unit_test(ts_refuses_other_shapes),
      cmocka_unit_test(ts_refuses_a_non_digit_in_every_place),
      cmocka_unit_test(ts_is_canonical_agrees_everywhere),
      cmocka_unit_test(ts_canonical_text_sorts_in_time_order),
      cmocka_unit_test(ts_from_unix_us_floors),
      cmocka_unit_test(ts_from_unix_us_every_day),
      cmocka_unit_test(ts_from_unix_us_leap_days),
      cmocka_unit_test(ts_to_unix_us_takes_only_canonical_text),
      cmocka_unit_test(ts_round_trips_through_unix_us),
      cmocka_unit_test(ts_is_prefix_checks_shape),
      cmocka_unit_test(int_parse_is_strict),
      cmocka_unit_test(int_key_pads_and_complements),
      cmocka_unit_test(int_from_key_refuses_what_int_key_never_writes),
      cmocka_unit_test(int_key_order_is_numeric_order),
      cmocka_unit_test(ulid_canon_uppercases_and_checks),
      cmocka_unit_test(ulid_encode_matches_the_spec),
      cmocka_unit_test(number_accepts_dynamodb_numbers),
      cmocka_unit_test(number_refuses_the_rest),
      cmocka_unit_test(number_magnitude_by_digit_position),
      cmocka_unit_test(base64_checks_alphabet_length_and_padding),
      cmocka_unit_test(ascii_copy_checks_while_copying),
      cmocka_unit_test(lower_ascii_touches_only_a_to_z),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
