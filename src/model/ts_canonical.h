/* Whether a timestamp's text is already canonical, inline: setting a
 * timestamp value asks it on every write, and a call into timestamp.c gave
 * the setter a frame that cost as much as the check. timestamp.c exports
 * it as ddbst__ts_is_canonical for the other callers. */
#ifndef DDBST_TS_CANONICAL_H
#define DDBST_TS_CANONICAL_H

#include <stddef.h>

#include "base/bytes.h"
#include "model/facet.h"

static inline int ddbst__ts_two(const char *p) {
  return (p[0] - '0') * 10 + (p[1] - '0');
}

/* Whether the day of "YYYY-MM-DD..." (digits, the month 01 to 12) is in
 * its month (timestamp.c). */
int ddbst__ts_late_day(const char *in);

/* Two bytes as one number, the first high: ordered as the text is. */
static inline unsigned ddbst__ts_pair(const char *p) {
  return (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
}

/* ddbst__ts_canon's fast case without its fallbacks: the shape of
 * "YYYY-MM-DDTHH:MM:SS", then 'Z', or '.', `precision` digits and 'Z', as
 * two overlapping 16-byte checks, the first bytes and the last. 1: it is;
 * 0: it is not; -1: it is if ddbst__ts_late_day says so (a day past 28,
 * left to a call so that the common day costs the setter no frame). */
static inline int ddbst__ts_is_canonical_inline(const char *in, size_t n,
                                                int precision) {
  /* The first 16 bytes of every canonical timestamp, and the last 16 of one
   * at each precision (the shapes and limits of ddbst__fits16). */
  static const char head[16] = "0000-00-00T00:00";
  static const unsigned char head_upto[16] = {9, 9, 9, 9, 0, 1, 9, 0,
                                                        3, 9, 0, 2, 9, 0, 5, 9};
  static const char tail_s[16] = "-00-00T00:00:00Z";
  static const unsigned char tail_s_upto[16] = {
      0, 1, 9, 0, 3, 9, 0, 2, 9, 0, 5, 9, 0, 5, 9, 0};
  static const char tail_ms[16] = "00T00:00:00.000Z";
  static const unsigned char tail_ms_upto[16] = {
      3, 9, 0, 2, 9, 0, 5, 9, 0, 5, 9, 0, 9, 9, 9, 0};
  static const char tail_us[16] = "00:00:00.000000Z";
  static const unsigned char tail_us_upto[16] = {
      2, 9, 0, 5, 9, 0, 5, 9, 0, 9, 9, 9, 9, 9, 9, 0};
  const char *tail;
  const unsigned char *tail_upto;
  switch (precision) {
  case DDBST__PREC_S:
    if (n != 20) return 0;
    tail = tail_s, tail_upto = tail_s_upto;
    break;
  case DDBST__PREC_MS:
    if (n != 24) return 0;
    tail = tail_ms, tail_upto = tail_ms_upto;
    break;
  case DDBST__PREC_US:
    if (n != 27) return 0;
    tail = tail_us, tail_upto = tail_us_upto;
    break;
  default:
    return 0;
  }
  if (!ddbst__fits16(in, head, head_upto) ||
      !ddbst__fits16(in + n - 16, tail, tail_upto))
    return 0;
  /* The tens digits are in range; what remains is the month, the hour, and
   * the day against the month, compared as two-byte texts (the shapes are
   * digits, so "09" < "10" as numbers are). */
  unsigned month_text = ddbst__ts_pair(in + 5), day_text = ddbst__ts_pair(in + 8);
  if (month_text - ddbst__ts_pair("01") > ddbst__ts_pair("12") - ddbst__ts_pair("01") ||
      ddbst__ts_pair(in + 11) > ddbst__ts_pair("23"))
    return 0;
  if (day_text - ddbst__ts_pair("01") <= ddbst__ts_pair("28") - ddbst__ts_pair("01"))
    return 1;
  return -1; /* ask ddbst__ts_late_day */
}

#endif
