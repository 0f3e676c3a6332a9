/* Plain JSON values of list, map and set attributes as DynamoDB
 * AttributeValue JSON (json_value.c), for the canonical form of a value
 * (value_canon.c). */
#ifndef DDBST_MODEL_JSON_VALUE_H
#define DDBST_MODEL_JSON_VALUE_H

#include <stddef.h>

#include "base/internal.h"

/* What a JSON value given for a list, map or set attribute must be. */
typedef enum {
  DDBST__JV_LIST,       /* an array */
  DDBST__JV_MAP,        /* an object */
  DDBST__JV_STRING_SET, /* a non-empty array of strings */
  DDBST__JV_NUMBER_SET  /* a non-empty array of numbers */
} ddbst__jvkind;

/* Converts `json`, one such value, to its DynamoDB AttributeValue JSON,
 * appended to `out`: [1, "a"] → {"L":[{"N":"1"},{"S":"a"}]}, {"a": true} →
 * {"M":{"a":{"BOOL":true}}}, a string set → {"SS":["a","b"]}. Refuses what
 * DynamoDB would: nesting past 32 levels, numbers outside its range, empty
 * sets, NUL in strings. Returns 0, DDBST_EVALUE with `why` (then `out` is as
 * it was), or DDBST_ENOMEM. */
int ddbst__json_to_attribute_value(const char *json, size_t len,
                                   ddbst__jvkind kind, ddbst_buf *out,
                                   char *why, size_t why_cap);

#endif
