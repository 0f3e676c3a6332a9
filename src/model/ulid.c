/* ULIDs: text in either case to canonical upper-case Crockford base32, and
 * a time and randomness to its text. */
#include <stdint.h>

#include "model/facet.h"

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
