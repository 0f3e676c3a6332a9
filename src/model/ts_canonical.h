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

/* ddbst__ts_canon's fast case without its fallbacks: the shape of
 * "YYYY-MM-DDTHH:MM:SS", then 'Z', or '.', `precision` digits and 'Z', as
 * two overlapping 16-byte checks, the first bytes and the last. */
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
   * the day against the month. */
  int month = ddbst__ts_two(in + 5), day = ddbst__ts_two(in + 8);
  if (month < 1 || month > 12 || day < 1 || ddbst__ts_two(in + 11) > 23)
    return 0;
  if (day <= 28) return 1;
  static const unsigned char days[13] = {0,  31, 28, 31, 30, 31, 30,
                                         31, 31, 30, 31, 30, 31};
  if (month != 2) return day <= days[month];
  int y = ddbst__ts_two(in) * 100 + ddbst__ts_two(in + 2);
  int leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return day <= 28 + leap;
}

#endif
