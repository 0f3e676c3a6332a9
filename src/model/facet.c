/* Typed facet values: the checks and canonical forms that make a key's byte
 * order equal the attribute's order. Inputs are (pointer, length) views, never
 * NUL-terminated; nothing here reads past in[n - 1] or allocates. */
#include "model/facet.h"

#include <stdbool.h>
#include <string.h>

#include "base/bytes.h"

/* ------------------------------------------------------------------ UTF-8 */

/* Follows the Unicode "well-formed UTF-8" table (Table 3-7): the allowed range
 * of the second byte depends on the lead byte, which is what rules out
 * overlongs, surrogates and code points past U+10FFFF in one place. */
const char *ddbst__utf8_check(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = ddbst__ascii_run(s, n);
  while (i < n) {
    unsigned char c = p[i];
    if (c == 0) return "contains a NUL byte";
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0xC0) return "invalid UTF-8: stray continuation byte";
    if (c < 0xC2) return "invalid UTF-8: overlong encoding";
    if (c < 0xE0) {
      len = 2;
    } else if (c < 0xF0) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c < 0xF5) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else if (c < 0xF8) {
      return "invalid UTF-8: code point above U+10FFFF";
    } else {
      return "invalid UTF-8: byte 0xF8-0xFF never occurs";
    }
    if (n - i < len) return "invalid UTF-8: truncated multi-byte sequence";
    unsigned char c1 = p[i + 1];
    if (c1 < 0x80 || c1 > 0xBF)
      return "invalid UTF-8: truncated multi-byte sequence";
    if (c1 < lo) return "invalid UTF-8: overlong encoding";
    if (c1 > hi)
      return c == 0xED ? "invalid UTF-8: surrogate code point"
                       : "invalid UTF-8: code point above U+10FFFF";
    for (size_t k = 2; k < len; k++)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF)
        return "invalid UTF-8: truncated multi-byte sequence";
    i += len;
  }
  return NULL;
}

/* ------------------------------------------------------------- timestamps */

#define US_PER_S INT64_C(1000000)
#define S_PER_DAY INT64_C(86400)

static const char TS_SHAPE[] =
    "not an ISO-8601 timestamp: expected YYYY-MM-DDTHH:MM:SS";
static const char TS_RANGE[] = "timestamp outside years 0000-9999 (UTC)";

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads `count` digits at in[pos]; false if they run past n or are not all
 * digits, so callers never index beyond the input. */
static bool digits_at(const char *in, size_t n, size_t pos, int count,
                      int *value) {
  if (pos > n || n - pos < (size_t)count) return false;
  int v = 0;
  for (int k = 0; k < count; k++) {
    char c = in[pos + (size_t)k];
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

static bool char_at(const char *in, size_t n, size_t pos, char c) {
  return pos < n && in[pos] == c;
}

static bool is_leap(int64_t y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in_month(int64_t y, int m) {
  static const unsigned char days[13] = {0,  31, 28, 31, 30, 31, 30,
                                         31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m];
}

/* Howard Hinnant's days_from_civil: proleptic Gregorian date → days since
 * 1970-01-01, exact for negative years too; no libc time functions, which
 * depend on TZ and locale. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Static reasons cannot carry the numbers, so the impossible days are spelled
 * out: there are only a handful. */
static const char *day_reason(int64_t y, int m, int d) {
  static const char *const day31[13] = {
      NULL, NULL, "day 31 does not exist in February", NULL,
      "day 31 does not exist in April", NULL,
      "day 31 does not exist in June", NULL, NULL,
      "day 31 does not exist in September", NULL,
      "day 31 does not exist in November", NULL};
  if (m < 1 || m > 12) return "month out of range (01-12)";
  if (d < 1 || d > 31) return "day out of range (01-31)";
  if (d <= days_in_month(y, m)) return NULL;
  if (d == 29) return "day 29 does not exist in February of a common year";
  if (d == 30) return "day 30 does not exist in February";
  return day31[m];
}

typedef struct {
  int64_t year;
  int month, day, hour, minute, second;
} civil_time;

/* The "YYYY-MM-DDTHH:MM:SS" part shared by the lenient parser and the
 * canonical one: shape first, then every field's range. */
static const char *time_ranges(const civil_time *t) {
  const char *why = day_reason(t->year, t->month, t->day);
  if (why) return why;
  if (t->hour > 23) return "hour out of range (00-23)";
  if (t->minute > 59) return "minute out of range (00-59)";
  if (t->second > 59) return "second out of range (00-59; no leap seconds)";
  return NULL;
}

static int two(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }

static const char *parse_date_time(const char *in, size_t n, civil_time *t) {
  /* Nearly every timestamp has the exact shape: its digits checked three
   * words at a time; anything else takes the field-by-field path below,
   * which says what is wrong. */
  static const unsigned char date[8] = {255, 255, 255, 255, 0, 255, 255, 0};
  static const unsigned char day_hm[8] = {255, 255, 0, 255, 255, 0, 255, 255};
  if (n >= 19 && in[4] == '-' && in[7] == '-' && in[10] == 'T' &&
      in[13] == ':' && in[16] == ':' && ddbst__digits_in_word(in, date) &&
      ddbst__digits_in_word(in + 8, day_hm) &&
      ddbst__digits_in_word(in + 11, day_hm)) {
    t->year = two(in) * 100 + two(in + 2);
    t->month = two(in + 5);
    t->day = two(in + 8);
    t->hour = two(in + 11);
    t->minute = two(in + 14);
    t->second = two(in + 17);
    return time_ranges(t);
  }
  int y;
  if (!digits_at(in, n, 0, 4, &y) || !char_at(in, n, 4, '-') ||
      !digits_at(in, n, 5, 2, &t->month) || !char_at(in, n, 7, '-') ||
      !digits_at(in, n, 8, 2, &t->day))
    return TS_SHAPE;
  t->year = y;
  if (n == 10) return "not an ISO-8601 timestamp: missing time (THH:MM:SS)";
  if (in[10] == ' ' || in[10] == 't')
    return "not an ISO-8601 timestamp: date and time must be separated by "
           "upper-case 'T'";
  if (in[10] != 'T' || !digits_at(in, n, 11, 2, &t->hour) ||
      !char_at(in, n, 13, ':') || !digits_at(in, n, 14, 2, &t->minute) ||
      !char_at(in, n, 16, ':') || !digits_at(in, n, 17, 2, &t->second))
    return TS_SHAPE;
  return time_ranges(t);
}

static int64_t civil_to_unix_s(const civil_time *t) {
  return days_from_civil(t->year, t->month, t->day) * S_PER_DAY +
         t->hour * 3600 + t->minute * 60 + t->second;
}

static bool valid_precision(int precision) {
  return precision == DDBST__PREC_S || precision == DDBST__PREC_MS ||
         precision == DDBST__PREC_US;
}

static const char BAD_PRECISION[] =
    "unsupported timestamp precision (0, 3 or 6 fraction digits)";

static void put_digits(char *out, uint64_t v, int count) {
  for (int k = count - 1; k >= 0; k--) {
    out[k] = (char)('0' + v % 10);
    v /= 10;
  }
}

/* The first 16 bytes of every canonical timestamp, and the last 16 of one
 * at each precision. */
static const char TS_HEAD[16] = "0000-00-00T00:00";
static const unsigned char TS_HEAD_UPTO[16] = {9, 9, 9, 9, 0, 1, 9, 0,
                                               3, 9, 0, 2, 9, 0, 5, 9};
static const char TS_TAIL_S[16] = "-00-00T00:00:00Z";
static const unsigned char TS_TAIL_S_UPTO[16] = {0, 1, 9, 0, 3, 9, 0, 2,
                                                 9, 0, 5, 9, 0, 5, 9, 0};
static const char TS_TAIL_MS[16] = "00T00:00:00.000Z";
static const unsigned char TS_TAIL_MS_UPTO[16] = {3, 9, 0, 2, 9, 0, 5, 9,
                                                  0, 5, 9, 0, 9, 9, 9, 0};
static const char TS_TAIL_US[16] = "00:00:00.000000Z";
static const unsigned char TS_TAIL_US_UPTO[16] = {2, 9, 0, 5, 9, 0, 5, 9,
                                                  0, 9, 9, 9, 9, 9, 9, 0};

int ddbst__ts_is_canonical(const char *in, size_t n, int precision) {
  /* ddbst__ts_canon's fast case without its fallbacks: the shape of
   * "YYYY-MM-DDTHH:MM:SS", then 'Z', or '.', `precision` digits and 'Z',
   * as two overlapping 16-byte checks, the first bytes and the last. */
  const char *tail;
  const unsigned char *tail_upto;
  switch (precision) {
  case DDBST__PREC_S:
    if (n != 20) return 0;
    tail = TS_TAIL_S, tail_upto = TS_TAIL_S_UPTO;
    break;
  case DDBST__PREC_MS:
    if (n != 24) return 0;
    tail = TS_TAIL_MS, tail_upto = TS_TAIL_MS_UPTO;
    break;
  case DDBST__PREC_US:
    if (n != 27) return 0;
    tail = TS_TAIL_US, tail_upto = TS_TAIL_US_UPTO;
    break;
  default:
    return 0;
  }
  if (!ddbst__fits16(in, TS_HEAD, TS_HEAD_UPTO) ||
      !ddbst__fits16(in + n - 16, tail, tail_upto))
    return 0;
  /* The tens digits are in range; what remains is the month, the hour, and
   * the day against the month. */
  int month = two(in + 5), day = two(in + 8);
  if (month < 1 || month > 12 || day < 1 || two(in + 11) > 23) return 0;
  return day <= 28 || day <= days_in_month(two(in) * 100 + two(in + 2), month);
}

const char *ddbst__ts_canon(const char *in, size_t n, int precision, char *out,
                            size_t *out_len) {
  if (!valid_precision(precision)) return BAD_PRECISION;
  civil_time t;
  const char *why = parse_date_time(in, n, &t);
  if (why) return why;

  size_t pos = 19;
  int64_t frac_us = 0; /* first six fraction digits; the rest only truncate */
  size_t digits = 0;
  if (char_at(in, n, pos, '.')) {
    size_t start = ++pos;
    while (pos < n && is_digit(in[pos])) {
      if (pos - start < 6) frac_us = frac_us * 10 + (in[pos] - '0');
      pos++;
    }
    if (pos == start)
      return "not an ISO-8601 timestamp: '.' without fraction digits";
    digits = pos - start;
    for (size_t k = digits; k < 6; k++) frac_us *= 10;
  }
  /* Already canonical (UTC, exactly `precision` digits): it is its own
   * canonical form, without the round trip through an instant. */
  if (pos + 1 == n && in[pos] == 'Z' && digits == (size_t)precision) {
    memcpy(out, in, n);
    *out_len = n;
    return NULL;
  }

  if (pos == n) return "not an ISO-8601 timestamp: missing time zone";
  int offset_min = 0;
  char z = in[pos];
  if (z == 'Z') {
    pos++;
  } else if (z == 'z') {
    return "not an ISO-8601 timestamp: time zone must be upper-case 'Z'";
  } else if (z == '+' || z == '-') {
    int oh, om;
    if (!digits_at(in, n, pos + 1, 2, &oh))
      return "not an ISO-8601 timestamp: bad time zone offset (+hh:mm or "
             "+hhmm)";
    if (char_at(in, n, pos + 3, ':')) {
      if (!digits_at(in, n, pos + 4, 2, &om))
        return "not an ISO-8601 timestamp: bad time zone offset (+hh:mm or "
               "+hhmm)";
      pos += 6;
    } else {
      if (!digits_at(in, n, pos + 3, 2, &om))
        return "not an ISO-8601 timestamp: bad time zone offset (+hh:mm or "
               "+hhmm)";
      pos += 5;
    }
    if (oh > 23 || om > 59)
      return "time zone offset out of range (up to 23:59)";
    offset_min = (oh * 60 + om) * (z == '-' ? -1 : 1);
  } else {
    return "not an ISO-8601 timestamp: expected time zone (Z, +hh:mm or "
           "+hhmm) after the time";
  }
  if (pos != n) return "not an ISO-8601 timestamp: text after the time zone";

  /* Offsets are whole minutes, so flooring the UTC instant to the precision
   * (in ddbst__ts_from_unix_us) is the same as truncating the written
   * fraction first. Years 0000-9999 keep this far inside int64. */
  int64_t us = (civil_to_unix_s(&t) - (int64_t)offset_min * 60) * US_PER_S +
               frac_us;
  return ddbst__ts_from_unix_us(us, precision, out, out_len);
}

/* "00" to "99": timestamps are written two digits at a time. */
static const char TWO_DIGITS[] =
    "000102030405060708091011121314151617181920212223242526272829"
    "303132333435363738394041424344454647484950515253545556575859"
    "606162636465666768697071727374757677787980818283848586878889"
    "90919293949596979899";

static void put_two(char *out, uint32_t v) {
  memcpy(out, TWO_DIGITS + 2 * v, 2);
}

/* Years 0000-9999 as microseconds since 1970: the range of a timestamp. The
 * test ts_from_unix_us_every_day pins both. */
#define TS_MIN_US (INT64_C(-719528) * S_PER_DAY * US_PER_S)
#define TS_END_US (INT64_C(2932897) * S_PER_DAY * US_PER_S)

/* The civil date of day `n` counted from 0000-03-01 (so that the leap day
 * ends a year), n < 2^30: Neri and Schneider's Euclidean affine functions
 * ("Euclidean affine functions and their application to calendar
 * algorithms", 2022), in 32-bit unsigned arithmetic where every division is
 * by a constant. The year is counted from 0000 and may be one past it for
 * January and February. */
static void civil_from_march_days(uint32_t n, uint32_t *y, uint32_t *m,
                                  uint32_t *d) {
  uint32_t n1 = 4 * n + 3;
  uint32_t century = n1 / 146097;
  uint32_t n2 = (n1 % 146097) | 3;
  uint64_t p2 = (uint64_t)2939745 * n2;
  uint32_t year_of_century = (uint32_t)(p2 >> 32);
  uint32_t day_of_year = (uint32_t)p2 / 2939745 / 4;
  uint32_t n3 = 2141 * day_of_year + 197913;
  uint32_t month = n3 >> 16; /* 3 (March) to 14 (February) */
  uint32_t jan_feb = day_of_year >= 306;
  *y = 100 * century + year_of_century + jan_feb;
  *m = jan_feb ? month - 12 : month;
  *d = (n3 & 0xFFFF) / 2141 + 1;
}

const char *ddbst__ts_from_unix_us(int64_t us, int precision, char *out,
                                   size_t *out_len) {
  if (!valid_precision(precision)) return BAD_PRECISION;
  /* 0000-01-01T00:00:00Z inclusive to 10000-01-01T00:00:00Z exclusive. */
  if (us < TS_MIN_US || us >= TS_END_US) return TS_RANGE;

  /* Counted from 0000-01-01, the instant is never negative, so unsigned
   * division floors: -1 us is 1969-12-31T23:59:59.999999Z. */
  uint64_t since0 = (uint64_t)(us - TS_MIN_US);
  uint64_t secs = since0 / (uint64_t)US_PER_S;
  uint32_t sub = (uint32_t)(since0 % (uint64_t)US_PER_S);
  uint32_t days = (uint32_t)(secs / (uint64_t)S_PER_DAY);
  uint32_t sod = (uint32_t)(secs % (uint64_t)S_PER_DAY);
  /* 0000-03-01 is day 60 of the leap year 0000; January and February of
   * 0000 fall before it, so count from 400 years (146097 days) earlier. */
  uint32_t y, m, d;
  civil_from_march_days(days + 146097 - 60, &y, &m, &d);
  y -= 400;

  put_two(out, y / 100);
  put_two(out + 2, y % 100);
  out[4] = '-';
  put_two(out + 5, m);
  out[7] = '-';
  put_two(out + 8, d);
  out[10] = 'T';
  put_two(out + 11, sod / 3600);
  out[13] = ':';
  put_two(out + 14, sod / 60 % 60);
  out[16] = ':';
  put_two(out + 17, sod % 60);
  size_t len = 19;
  if (precision == DDBST__PREC_MS) {
    uint32_t ms = sub / 1000;
    out[19] = '.';
    out[20] = (char)('0' + ms / 100);
    put_two(out + 21, ms % 100);
    len = 23;
  } else if (precision == DDBST__PREC_US) {
    out[19] = '.';
    put_two(out + 20, sub / 10000);
    put_two(out + 22, sub / 100 % 100);
    put_two(out + 24, sub % 100);
    len = 26;
  }
  out[len++] = 'Z';
  *out_len = len;
  return NULL;
}

static const char NOT_CANONICAL_TS[] =
    "not a canonical timestamp (YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z)";

/* Only the three exact canonical shapes: anything else would mean a key was
 * written by something other than ddbst__ts_canon. */
const char *ddbst__ts_to_unix_us(const char *in, size_t n, int64_t *us) {
  int frac_digits;
  if (n == 20)
    frac_digits = 0;
  else if (n == 24)
    frac_digits = 3;
  else if (n == 27)
    frac_digits = 6;
  else
    return NOT_CANONICAL_TS;
  civil_time t;
  const char *why = parse_date_time(in, n, &t);
  if (why) return why == TS_SHAPE ? NOT_CANONICAL_TS : why;
  int64_t frac = 0;
  if (frac_digits > 0) {
    int f;
    if (in[19] != '.' || !digits_at(in, n, 20, frac_digits, &f))
      return NOT_CANONICAL_TS;
    frac = f;
    for (int k = frac_digits; k < 6; k++) frac *= 10;
  }
  if (in[n - 1] != 'Z') return NOT_CANONICAL_TS;
  *us = civil_to_unix_s(&t) * US_PER_S + frac;
  return NULL;
}

/* Position by position against the canonical shape. Where the digits present
 * already rule out every completion (month 13, hour 24, "2025-02-3") the
 * prefix is refused too: a bound built from it would be a typo, not a range. */
int ddbst__ts_is_prefix(const char *p, size_t n, int precision) {
  static const char shape_s[] = "dddd-dd-ddTdd:dd:ddZ";
  static const char shape_ms[] = "dddd-dd-ddTdd:dd:dd.dddZ";
  static const char shape_us[] = "dddd-dd-ddTdd:dd:dd.ddddddZ";
  const char *shape;
  size_t full;
  switch (precision) {
  case DDBST__PREC_S: shape = shape_s; full = sizeof shape_s - 1; break;
  case DDBST__PREC_MS: shape = shape_ms; full = sizeof shape_ms - 1; break;
  case DDBST__PREC_US: shape = shape_us; full = sizeof shape_us - 1; break;
  default: return 0;
  }
  if (n == 0 || n >= full) return 0;
  for (size_t i = 0; i < n; i++) {
    if (shape[i] == 'd' ? !is_digit(p[i]) : p[i] != shape[i]) return 0;
  }
  int v = 0;
  int64_t year = 0;
  if (n >= 4 && digits_at(p, n, 0, 4, &v)) year = v;
  if (n > 5 && p[5] > '1') return 0;
  int month = 0;
  if (n > 6) {
    digits_at(p, n, 5, 2, &month);
    if (month < 1 || month > 12) return 0;
  }
  if (n > 8) {
    int tens = p[8] - '0';
    int lowest = tens == 0 ? 1 : tens * 10;
    if (lowest > days_in_month(year, month)) return 0;
  }
  if (n > 9) {
    digits_at(p, n, 8, 2, &v);
    if (v < 1 || v > days_in_month(year, month)) return 0;
  }
  if (n > 11 && p[11] > '2') return 0;
  if (n > 12 && digits_at(p, n, 11, 2, &v) && v > 23) return 0;
  if (n > 14 && p[14] > '5') return 0;
  if (n > 17 && p[17] > '5') return 0;
  return 1;
}

/* --------------------------------------------------------------- integers */

#define INT64_MAX_MAG UINT64_C(9223372036854775807)

static const char INT_RANGE[] = "integer out of 64-bit range";

/* Accumulates the magnitude in uint64 and checks against 2^63 - 1 or 2^63
 * before converting, so INT64_MIN parses without signed overflow. */
const char *ddbst__int_parse(const char *in, size_t n, int64_t *v) {
  if (n == 0) return "empty integer";
  size_t i = 0;
  bool neg = false;
  if (in[0] == '+') return "not an integer: leading '+'";
  if (in[0] == '-') {
    neg = true;
    i = 1;
    if (n == 1) return "not an integer: '-' without digits";
  }
  if (in[i] == '0' && n - i > 1) {
    if (is_digit(in[i + 1])) return "not an integer: leading zero";
  }
  uint64_t limit = neg ? INT64_MAX_MAG + 1 : INT64_MAX_MAG;
  uint64_t mag = 0;
  for (; i < n; i++) {
    if (!is_digit(in[i])) return "not an integer: non-digit character";
    unsigned d = (unsigned)(in[i] - '0');
    if (mag > (limit - d) / 10) {
      /* Keep scanning so "12x…" reports the bad character, not overflow. */
      for (size_t k = i + 1; k < n; k++)
        if (!is_digit(in[k])) return "not an integer: non-digit character";
      return INT_RANGE;
    }
    mag = mag * 10 + d;
  }
  if (neg && mag == 0) return "not an integer: negative zero";
  if (!neg)
    *v = (int64_t)mag;
  else if (mag == INT64_MAX_MAG + 1)
    *v = INT64_MIN;
  else
    *v = -(int64_t)mag;
  return NULL;
}

static const char BAD_WIDTH[] = "integer key width must be between 0 and 19";
static const char TOO_WIDE[] = "integer has more digits than the key width";
static const char NEG_NOT_ALLOWED[] =
    "negative integer not allowed in this key (not declared sortable_negative)";
static const char NEG_NEEDS_WIDTH[] =
    "negative integer in a sortable key needs a declared width";

static uint64_t pow10_u64(int w) {
  uint64_t p = 1;
  while (w-- > 0) p *= 10;
  return p;
}

static int count_digits(uint64_t v) {
  int k = 1;
  while (v >= 10) {
    v /= 10;
    k++;
  }
  return k;
}

/* Width 0 is plain decimal, negatives included, unless sortable_negative was
 * asked for: a ten's complement needs a width, and "-5" < "-6" bytewise, so
 * that request cannot be honoured without one. */
const char *ddbst__int_key(int64_t v, int width, int sortable_negative,
                           char *out, size_t *out_len) {
  if (width < 0 || width > 19) return BAD_WIDTH;
  bool neg = v < 0;
  /* -(v + 1) cannot overflow, even for INT64_MIN. */
  uint64_t mag = neg ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
  if (width == 0) {
    if (neg && sortable_negative) return NEG_NEEDS_WIDTH;
    size_t len = 0;
    if (neg) out[len++] = '-';
    int k = count_digits(mag);
    put_digits(out + len, mag, k);
    *out_len = len + (size_t)k;
    return NULL;
  }
  if (neg && !sortable_negative) return NEG_NOT_ALLOWED;
  uint64_t limit = pow10_u64(width); /* 10^19 still fits in uint64 */
  if (mag >= limit) return TOO_WIDE;
  if (!neg) {
    put_digits(out, mag, width);
    *out_len = (size_t)width;
  } else {
    out[0] = '-';
    put_digits(out + 1, limit - mag, width);
    *out_len = (size_t)width + 1;
  }
  return NULL;
}

const char *ddbst__int_from_key(const char *in, size_t n, int width,
                                int sortable_negative, int64_t *v) {
  if (width < 0 || width > 19) return BAD_WIDTH;
  if (width == 0) {
    int64_t parsed;
    const char *why = ddbst__int_parse(in, n, &parsed);
    if (why) return why;
    if (parsed < 0 && sortable_negative) return NEG_NEEDS_WIDTH;
    *v = parsed;
    return NULL;
  }
  bool neg = n > 0 && in[0] == '-';
  if (neg && !sortable_negative) return NEG_NOT_ALLOWED;
  size_t start = neg ? 1 : 0;
  if (n - start != (size_t)width)
    return "integer key has the wrong number of digits for its width";
  uint64_t digits = 0;
  for (size_t i = start; i < n; i++) {
    if (!is_digit(in[i])) return "integer key contains a non-digit";
    digits = digits * 10 + (unsigned)(in[i] - '0'); /* < 10^19, no wrap */
  }
  if (!neg) {
    if (digits > INT64_MAX_MAG) return INT_RANGE;
    *v = (int64_t)digits;
    return NULL;
  }
  uint64_t mag = pow10_u64(width) - digits;
  if (digits == 0) return TOO_WIDE; /* "-000" would be -1000 */
  if (mag > INT64_MAX_MAG + 1) return INT_RANGE;
  *v = mag == INT64_MAX_MAG + 1 ? INT64_MIN : -(int64_t)mag;
  return NULL;
}

/* ------------------------------------------------------------------- ULID */

static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* One more than the value of each byte as a Crockford digit in either case,
 * 0 for every other byte: a lookup per character instead of a search. */
#define DIGIT(c, v) [c] = (v) + 1
#define LETTER(c, v) [c] = (v) + 1, [(c) - 'A' + 'a'] = (v) + 1
static const unsigned char CROCKFORD_PLUS1[256] = {
    DIGIT('0', 0),   DIGIT('1', 1),   DIGIT('2', 2),   DIGIT('3', 3),
    DIGIT('4', 4),   DIGIT('5', 5),   DIGIT('6', 6),   DIGIT('7', 7),
    DIGIT('8', 8),   DIGIT('9', 9),   LETTER('A', 10), LETTER('B', 11),
    LETTER('C', 12), LETTER('D', 13), LETTER('E', 14), LETTER('F', 15),
    LETTER('G', 16), LETTER('H', 17), LETTER('J', 18), LETTER('K', 19),
    LETTER('M', 20), LETTER('N', 21), LETTER('P', 22), LETTER('Q', 23),
    LETTER('R', 24), LETTER('S', 25), LETTER('T', 26), LETTER('V', 27),
    LETTER('W', 28), LETTER('X', 29), LETTER('Y', 30), LETTER('Z', 31)};
#undef DIGIT
#undef LETTER

/* Value of a Crockford digit in either case, -1 if it is not one. */
static int crockford_value(char c) {
  return (int)CROCKFORD_PLUS1[(unsigned char)c] - 1;
}

const char *ddbst__ulid_canon(const char *in, size_t n, char *out) {
  if (n != DDBST__ULID_LEN) return "ULID must be 26 characters";
  for (size_t i = 0; i < n; i++) {
    char c = in[i];
    if (crockford_value(c) >= 0) continue;
    switch (c) {
    case 'I': case 'i': case 'L': case 'l':
    case 'O': case 'o': case 'U': case 'u':
      return "ULID may not contain I, L, O or U";
    default:
      return "not a ULID: character outside Crockford base32";
    }
  }
  /* 26 x 5 = 130 bits for a 128-bit value: the first digit carries 3. */
  if (crockford_value(in[0]) > 7)
    return "ULID out of range: first character must be 0-7";
  for (size_t i = 0; i < n; i++) out[i] = CROCKFORD[crockford_value(in[i])];
  return NULL;
}

/* Only the low 48 bits of ms are used (the ULID time field is 48 bits wide).
 * The 128-bit value is ms << 80 | rnd, written 5 bits at a time from the top:
 * 10 characters of time, 16 of randomness. */
void ddbst__ulid_encode(uint64_t ms, const uint8_t rnd[10], char *out) {
  uint8_t b[16];
  for (int k = 0; k < 6; k++) b[k] = (uint8_t)(ms >> (8 * (5 - k)));
  for (int k = 0; k < 10; k++) b[6 + k] = rnd[k];
  /* Bit i of the 130-bit string (two leading zero bits) is bit i-2 of b. */
  for (int c = 0; c < DDBST__ULID_LEN; c++) {
    unsigned v = 0;
    for (int j = 0; j < 5; j++) {
      int bit = c * 5 + j - 2;
      unsigned set = bit < 0 ? 0u : (b[bit / 8] >> (7 - bit % 8)) & 1u;
      v = v << 1 | set;
    }
    out[c] = CROCKFORD[v];
  }
}

/* ---------------------------------------------------------------- numbers */

/* Far beyond any exponent that can matter, small enough that sums of two of
 * them cannot overflow int64. */
#define EXP_CLAMP INT64_C(1000000000000000)

static int64_t clamp_size(size_t v) {
  return v > (size_t)EXP_CLAMP ? EXP_CLAMP : (int64_t)v;
}

/* DynamoDB's limits are on the normalised value, so the digit count ignores
 * leading and trailing zeros ("0.000123", "1000" have 3 and 1) and the
 * magnitude test uses the exponent of the most significant digit:
 * 1E-130 <= |v| < 1E+126 is exactly -130 <= msd <= 125 with <= 38 digits. */
const char *ddbst__number_check(const char *in, size_t n) {
  if (n == 0) return "empty number";
  size_t i = 0;
  if (in[0] == '+') return "not a number: leading '+'";
  if (in[0] == '-') i = 1;
  if (i < n && (in[i] == 'N' || in[i] == 'n' || in[i] == 'I' || in[i] == 'i'))
    return "not a number: NaN and Infinity are not allowed";
  if (i < n && in[i] == '.') return "not a number: leading '.'";

  size_t int_start = i;
  while (i < n && is_digit(in[i])) i++;
  size_t int_end = i;
  if (int_end == int_start)
    return i < n ? "not a number: unexpected character"
                 : "not a number: no digits";
  size_t frac_start = i, frac_end = i;
  if (i < n && in[i] == '.') {
    frac_start = ++i;
    while (i < n && is_digit(in[i])) i++;
    frac_end = i;
    if (frac_end == frac_start) return "not a number: no digit after '.'";
  }
  int64_t exp = 0;
  if (i < n && (in[i] == 'e' || in[i] == 'E')) {
    i++;
    bool exp_neg = false;
    if (i < n && (in[i] == '+' || in[i] == '-')) exp_neg = in[i++] == '-';
    size_t exp_start = i;
    while (i < n && is_digit(in[i])) {
      if (exp < EXP_CLAMP) exp = exp * 10 + (in[i] - '0');
      i++;
    }
    if (i == exp_start) return "not a number: exponent without digits";
    if (exp > EXP_CLAMP) exp = EXP_CLAMP;
    if (exp_neg) exp = -exp;
  }
  if (i != n) return "not a number: unexpected character";

  /* Mantissa digits are int part then fraction part; find the first and last
   * non-zero digit across both. */
  size_t int_len = int_end - int_start, frac_len = frac_end - frac_start;
  size_t total = int_len + frac_len;
  size_t first = total, last = 0;
  for (size_t k = 0; k < total; k++) {
    char c = k < int_len ? in[int_start + k] : in[frac_start + k - int_len];
    if (c != '0') {
      if (first == total) first = k;
      last = k;
    }
  }
  if (first == total) return NULL; /* zero, in any spelling */
  if (last - first + 1 > 38) return "more than 38 significant digits";
  /* Digit k of the mantissa has decimal exponent int_len - 1 - k. */
  int64_t msd = clamp_size(int_len) - 1 - clamp_size(first) + exp;
  if (msd > 125)
    return "number too large (above "
           "9.9999999999999999999999999999999999999E+125)";
  if (msd < -130) return "number too small (non-zero below 1E-130)";
  return NULL;
}

/* ----------------------------------------------------------------- base64 */

static bool is_b64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) ||
         c == '+' || c == '/';
}

/* Checked by hand rather than with sodium_base642bin: that needs an output
 * buffer, and only the text's shape is checked here (alphabet, length, where
 * '=' may stand), so non-zero bits under the padding ("QR==") pass. Empty text
 * is empty binary; refusing empty facets is the caller's rule. */
const char *ddbst__base64_check(const char *in, size_t n) {
  if (n % 4 != 0) return "not base64: length is not a multiple of 4";
  size_t pad = 0;
  if (n >= 1 && in[n - 1] == '=') pad = 1;
  if (n >= 2 && pad == 1 && in[n - 2] == '=') pad = 2;
  if (n >= 3 && pad == 2 && in[n - 3] == '=')
    return "not base64: more than two '=' padding characters";
  for (size_t i = 0; i < n - pad; i++) {
    char c = in[i];
    if (is_b64(c)) continue;
    if (c == '=') return "not base64: '=' padding before the end";
    if (c == '-' || c == '_')
      return "not base64: URL-safe alphabet ('-' or '_')";
    return "not base64: character outside the standard alphabet";
  }
  return NULL;
}
