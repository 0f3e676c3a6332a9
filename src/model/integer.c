/* Integers: strict decimal text to int64, and the key form that makes byte
 * order numeric order (zero-padded to a width, negatives as a ten's
 * complement when the model asks). */
#include <stdbool.h>
#include <stdint.h>

#include "model/facet.h"

static void put_digits(char *out, uint64_t v, int count) {
  for (int k = count - 1; k >= 0; k--) {
    out[k] = (char)('0' + v % 10);
    v /= 10;
  }
}

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
    if (ddbst__is_digit(in[i + 1])) return "not an integer: leading zero";
  }
  uint64_t limit = neg ? INT64_MAX_MAG + 1 : INT64_MAX_MAG;
  uint64_t mag = 0;
  for (; i < n; i++) {
    if (!ddbst__is_digit(in[i])) return "not an integer: non-digit character";
    unsigned d = (unsigned)(in[i] - '0');
    if (mag > (limit - d) / 10) {
      /* Keep scanning so "12x…" reports the bad character, not overflow. */
      for (size_t k = i + 1; k < n; k++)
        if (!ddbst__is_digit(in[k])) return "not an integer: non-digit character";
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
    if (!ddbst__is_digit(in[i])) return "integer key contains a non-digit";
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
