/* DynamoDB AttributeValues of canonical text (attribute_value.c). */
#ifndef DDBST_ITEM_ATTRIBUTE_VALUE_H
#define DDBST_ITEM_ATTRIBUTE_VALUE_H

#include "model/model.h"

/* The DynamoDB AttributeValue of canonical text `v` of attribute `a`:
 * {"S":"..."}, {"N":"..."}, {"BOOL":true}, {"B":"..."}, or the stored
 * {"L":...} / {"M":...} / {"SS":...} / {"NS":...} form. */
int ddbst__write_av(ddbst_buf *b, const ddbst__attr *a, const char *v,
                    size_t n);

/* {"S":"..."} of a string. */
int ddbst__write_s(ddbst_buf *b, const char *v, size_t n);

/* Writes {"S":"v"} and a NUL at `o`, which has room for n + 9 bytes, for
 * text known to need no JSON escape (a key rendered plain, a string just
 * checked); returns the end (the NUL). */
static inline char *ddbst__put_s(char *o, const char *v, size_t n) {
  memcpy(o, "{\"S\":\"", 6);
  ddbst__copy(o + 6, v, n);
  memcpy(o + 6 + n, "\"}", 3);
  return o + 8 + n;
}

#endif
