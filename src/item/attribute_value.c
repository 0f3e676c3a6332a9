/* DynamoDB AttributeValues of an attribute's canonical text: what request
 * bodies, cursors and pages write for a value. */
#include "item/attribute_value.h"

int ddbst__write_s(ddbst_buf *b, const char *v, size_t n) {
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

int ddbst__write_av(ddbst_buf *b, const ddbst__attr *a, const char *v,
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
