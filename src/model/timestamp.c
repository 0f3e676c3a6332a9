/* Timestamps: ISO-8601 text to one canonical UTC form per precision (so that
 * byte order is time order), instants both ways, and partial values of a
 * sort-key bound. Inputs are (pointer, length) views, never NUL-terminated;
 * nothing here reads past in[n - 1] or allocates. */
#include "model/facet.h"
#include "model/ts_canonical.h"

#include <stdbool.h>
#include <string.h>

#include "base/bytes.h"

#define US_PER_S INT64_C(1000000)
#define S_PER_DAY INT64_C(86400)

static const char TS_SHAPE[] =
    "not an ISO-8601 timestamp: expected YYYY-MM-DDTHH:MM:SS";
static const char TS_RANGE[] = "timestamp outside years 0000-9999 (UTC)";

/* Reads `count` digits at in[pos]; false if they run past n or are not all
 * digits, so callers never index beyond the input. */
static bool digits_at(const char *in, size_t n, size_t pos, int count,
                      int *value) {
  if (pos > n || n - pos < (size_t)count) return false;
  int v = 0;
  for (int k = 0; k < count; k++) {
    char c = in[pos + (size_t)k];
    if (!ddbst__is_digit(c)) return false;
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

int ddbst__ts_late_day(const char *in) {
  static const unsigned char days[13] = {0,  31, 28, 31, 30, 31, 30,
                                         31, 31, 30, 31, 30, 31};
  int month = ddbst__ts_two(in + 5), day = ddbst__ts_two(in + 8);
  if (day < 1) return 0;
  if (day <= 28) return 1;
  if (month != 2) return day <= days[month];
  int y = ddbst__ts_two(in) * 100 + ddbst__ts_two(in + 2);
  int leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return day <= 28 + leap;
}

int ddbst__ts_is_canonical(const char *in, size_t n, int precision) {
  int canonical = ddbst__ts_is_canonical_inline(in, n, precision);
  return canonical < 0 ? ddbst__ts_late_day(in) : canonical;
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
    while (pos < n && ddbst__is_digit(in[pos])) {
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
    if (shape[i] == 'd' ? !ddbst__is_digit(p[i]) : p[i] != shape[i]) return 0;
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
