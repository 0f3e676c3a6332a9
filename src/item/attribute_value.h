/* DynamoDB AttributeValues of an attribute's canonical text: what request
 * bodies, cursors and pages write for a value. Inline: they are most of a
 * request body's members. */
#ifndef DDBST_ITEM_ATTRIBUTE_VALUE_H
#define DDBST_ITEM_ATTRIBUTE_VALUE_H

#include "model/model.h"

/* Writes {"S":"v"} and a NUL at `o`, which has room for n + 9 bytes, for
 * text known to need no JSON escape (a key rendered plain, a string just
 * checked); returns the end (the NUL). */
static inline char *ddbst__put_s(char *o, const char *v, size_t n) {
  memcpy(o, "{\"S\":\"", 6);
  ddbst__copy(o + 6, v, n);
  memcpy(o + 6 + n, "\"}", 3);
  return o + 8 + n;
}

/* ddbst__put_s for `v` in a ddbst_buf or the model's arena (padded, see
 * ddbst__copy_padded) and `o` in a ddbst_buf's reserved room. */
static inline char *ddbst__put_s_padded(char *o, const char *v, size_t n) {
  memcpy(o, "{\"S\":\"", 6);
  ddbst__copy_padded(o + 6, v, n);
  memcpy(o + 6 + n, "\"}", 3);
  return o + 8 + n;
}

/* {"S":"..."} of a string. */
static inline int ddbst__write_s(ddbst_buf *b, const char *v, size_t n) {
  if (ddbst__json_plain_len(v, n) == n) { /* the common case: one reservation */
    if (ddbst__buf_reserve(b, n + 8)) return DDBST_ENOMEM;
    b->len = (size_t)(ddbst__put_s(b->data + b->len, v, n) - b->data);
    return 0;
  }
  int rc = ddbst__buf_append(b, "{\"S\":", 5);
  if (!rc) rc = ddbst__json_string(b, v, n);
  if (!rc) rc = ddbst__buf_putc(b, '}');
  return rc;
}

/* The DynamoDB AttributeValue of canonical text `v` of attribute `a`:
 * {"S":"..."}, {"N":"..."}, {"BOOL":true}, {"B":"..."}, or the stored
 * {"L":...} / {"M":...} / {"SS":...} / {"NS":...} form. */
static inline int ddbst__write_av(ddbst_buf *b, const ddbst__attr *a, const char *v,
                    size_t n) {
  int rc;
  switch (a->type) {
  case DDBST__T_STRING:
  case DDBST__T_TIMESTAMP:
  case DDBST__T_ULID:
  case DDBST__T_ENUM:
    return ddbst__write_s(b, v, n);
  case DDBST__T_NUMBER:
  case DDBST__T_INTEGER:
  case DDBST__T_TTL:
    /* validated number text: nothing in it needs escaping */
    rc = ddbst__buf_append(b, "{\"N\":\"", 6);
    if (!rc) rc = ddbst__buf_append(b, v, n);
    if (!rc) rc = ddbst__buf_append(b, "\"}", 2);
    return rc;
  case DDBST__T_BOOLEAN:
    rc = ddbst__buf_append(b, "{\"BOOL\":", 8);
    if (!rc) rc = ddbst__buf_append(b, v, n);
    if (!rc) rc = ddbst__buf_putc(b, '}');
    return rc;
  case DDBST__T_BINARY:
    rc = ddbst__buf_append(b, "{\"B\":\"", 6);
    if (!rc) rc = ddbst__buf_append(b, v, n);
    if (!rc) rc = ddbst__buf_append(b, "\"}", 2);
    return rc;
  case DDBST__T_LIST:
  case DDBST__T_MAP:
  case DDBST__T_STRING_SET:
  case DDBST__T_NUMBER_SET:
    return ddbst__buf_append(b, v, n);
  }
  return DDBST_EINVAL;
}

#endif
