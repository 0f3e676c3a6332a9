/* The scalar texts DynamoDB checks itself, checked first so that a request
 * is refused with a path instead of by the service: numbers (N, with its
 * limits on digits and magnitude) and binary (B, standard base64). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/facet.h"

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
  while (i < n && ddbst__is_digit(in[i])) i++;
  size_t int_end = i;
  if (int_end == int_start)
    return i < n ? "not a number: unexpected character"
                 : "not a number: no digits";
  size_t frac_start = i, frac_end = i;
  if (i < n && in[i] == '.') {
    frac_start = ++i;
    while (i < n && ddbst__is_digit(in[i])) i++;
    frac_end = i;
    if (frac_end == frac_start) return "not a number: no digit after '.'";
  }
  int64_t exp = 0;
  if (i < n && (in[i] == 'e' || in[i] == 'E')) {
    i++;
    bool exp_neg = false;
    if (i < n && (in[i] == '+' || in[i] == '-')) exp_neg = in[i++] == '-';
    size_t exp_start = i;
    while (i < n && ddbst__is_digit(in[i])) {
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

static bool is_b64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || ddbst__is_digit(c) ||
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

size_t ddbst__number_key(const char *in, size_t n, char *out) {
  /* checked text: [-]digits[.digits][e[+-]digits] */
  size_t i = 0, o = 0;
  int neg = n > 0 && in[0] == '-';
  if (neg) i = 1;
  size_t int_start = i;
  while (i < n && ddbst__is_digit(in[i])) i++;
  size_t int_len = i - int_start, frac_start = i, frac_len = 0;
  if (i < n && in[i] == '.') {
    frac_start = ++i;
    while (i < n && ddbst__is_digit(in[i])) i++;
    frac_len = i - frac_start;
  }
  int64_t exp = 0;
  if (i < n && (in[i] == 'e' || in[i] == 'E')) {
    i++;
    int exp_neg = 0;
    if (i < n && (in[i] == '+' || in[i] == '-')) exp_neg = in[i++] == '-';
    while (i < n && ddbst__is_digit(in[i])) {
      if (exp < EXP_CLAMP) exp = exp * 10 + (in[i] - '0');
      i++;
    }
    if (exp_neg) exp = -exp;
  }
  size_t total = int_len + frac_len, first = total, last = 0;
  for (size_t k = 0; k < total; k++) {
    char c = k < int_len ? in[int_start + k] : in[frac_start + k - int_len];
    if (c != '0') {
      if (first == total) first = k;
      last = k;
    }
  }
  if (first == total) { /* zero, in any spelling, and -0 with it */
    out[0] = '0';
    return 1;
  }
  if (neg) out[o++] = '-';
  for (size_t k = first; k <= last && o < 40; k++)
    out[o++] = k < int_len ? in[int_start + k] : in[frac_start + k - int_len];
  int64_t msd = clamp_size(int_len) - 1 - clamp_size(first) + exp;
  o += (size_t)snprintf(out + o, DDBST__NUMBER_KEY_MAX - o, "e%lld",
                        (long long)msd);
  return o;
}
