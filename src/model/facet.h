/* Typed facet values: validation, canonical text and the sortable key forms of
 * each attribute type, one file per type (timestamp.c, integer.c, ulid.c,
 * number.c; UTF-8 is base/utf8.h's). Pure functions over caller buffers: no
 * allocation, no global state. Each returns NULL on success or a static
 * reason a person can act on ("not an ISO-8601 timestamp"); callers add the
 * attribute's path. */
#ifndef DDBST_FACET_H
#define DDBST_FACET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

static inline int ddbst__is_digit(char c) { return c >= '0' && c <= '9'; }

/* Timestamp precisions, in digits after the seconds. */
enum { DDBST__PREC_S = 0, DDBST__PREC_MS = 3, DDBST__PREC_US = 6 };

/* Longest canonical timestamp: "9999-12-31T23:59:59.999999Z". */
#define DDBST__TS_MAX 28
#define DDBST__ULID_LEN 26
/* "-" and 19 digits, or 20 digits for an unpadded INT64_MIN. */
#define DDBST__INT_MAX_TEXT 21

/* ---- timestamps (timestamp.c) ---- */

/* Whether in[0..n) is already the canonical text ddbst__ts_canon gives at
 * `precision`: its fast case, for callers that can then copy it as it is. */
int ddbst__ts_is_canonical(const char *in, size_t n, int precision);

/* ISO-8601 date-time with a zone ("Z", "+hh:mm", "-hh:mm", "+hhmm"), any number
 * of fraction digits → UTC at `precision` (DDBST__PREC_*), fraction truncated,
 * e.g. "2026-03-14T10:00:00.5+01:00" at s → "2026-03-14T09:00:00Z". out must
 * hold DDBST__TS_MAX bytes; *out_len receives the length (no NUL written).
 * Refuses impossible dates (Feb 30), leap seconds, years outside 0000–9999 after
 * conversion, and text without a zone. */
const char *ddbst__ts_canon(const char *in, size_t n, int precision, char *out,
                            size_t *out_len);

/* Microseconds since the Unix epoch → canonical UTC text at `precision`. */
const char *ddbst__ts_from_unix_us(int64_t us, int precision, char *out,
                                   size_t *out_len);

/* Canonical timestamp text → microseconds since the epoch. */
const char *ddbst__ts_to_unix_us(const char *in, size_t n, int64_t *us);

/* Whether `p` is a proper prefix of some canonical timestamp at `precision`
 * ("2026", "2026-03-1", "2026-03-14T09"): its characters match the canonical
 * shape position by position. Used for partial sort-key values. */
int ddbst__ts_is_prefix(const char *p, size_t n, int precision);

/* ---- integers (integer.c) ---- */

/* Decimal integer text ("-12", "0", "42"; no '+', no spaces, no leading zeros
 * except "0") → int64. */
const char *ddbst__int_parse(const char *in, size_t n, int64_t *v);

/* The key form of an integer: `width` == 0 → plain decimal. Otherwise
 * zero-padded to `width` digits; a value with more digits is refused. Negative
 * values are refused unless `sortable_negative`, then written as '-' followed by
 * the `width`-digit ten's complement (10^width + v), so that byte order equals
 * numeric order: -5 → "-995", -1 → "-999", 0 → "000", 7 → "007" for width 3.
 * out must hold DDBST__INT_MAX_TEXT bytes. */
const char *ddbst__int_key(int64_t v, int width, int sortable_negative,
                           char *out, size_t *out_len);

/* The reverse of ddbst__int_key; refuses any text ddbst__int_key would not have
 * produced for these settings. */
const char *ddbst__int_from_key(const char *in, size_t n, int width,
                                int sortable_negative, int64_t *v);

/* ---- ULIDs (ulid.c) ---- */

/* ULID text in either case → canonical upper-case Crockford base32 (26 chars,
 * first one 0–7; I, L, O and U refused). out must hold 26 bytes. */
const char *ddbst__ulid_canon(const char *in, size_t n, char *out);

/* 48-bit millisecond time and 80 random bits → canonical ULID text. */
void ddbst__ulid_encode(uint64_t ms, const uint8_t rnd[10], char *out);

/* ---- DynamoDB's numbers and binary (number.c) ---- */

/* DynamoDB number text: optional '-', digits with optional '.', optional
 * exponent; at most 38 significant digits; magnitude 0 or within 1E-130 to
 * 9.9999999999999999999999999999999999999E+125. No '+' sign, no NaN/Infinity,
 * no leading '.', no trailing '.' or 'e'. */
const char *ddbst__number_check(const char *in, size_t n);

/* The value of a number that ddbst__number_check passed, as text two
 * spellings of one value share ("1", "1.0", "10e-1" → "1e0"; every zero →
 * "0"): its significant digits and the exponent of the first. Writes at
 * most DDBST__NUMBER_KEY_MAX bytes to `out`, no NUL; returns the length. */
enum { DDBST__NUMBER_KEY_MAX = 64 };
size_t ddbst__number_key(const char *in, size_t n, char *out);

/* Standard base64 with padding (DynamoDB's B form). */
const char *ddbst__base64_check(const char *in, size_t n);

#endif
