/* The attribute types a model declares: their names as the model file spells
 * them, and which of them may be a facet of a key. */
#ifndef DDBST_TYPES_H
#define DDBST_TYPES_H

#include <stddef.h>

typedef enum {
  DDBST__T_STRING,
  DDBST__T_NUMBER,
  DDBST__T_INTEGER,
  DDBST__T_BOOLEAN,
  DDBST__T_TIMESTAMP,
  DDBST__T_ULID,
  DDBST__T_ENUM,
  DDBST__T_TTL, /* epoch seconds, as DynamoDB's TTL wants them */
  DDBST__T_LIST,
  DDBST__T_MAP,
  DDBST__T_STRING_SET,
  DDBST__T_NUMBER_SET,
  DDBST__T_BINARY
} ddbst__type;

/* Whether the type's AttributeValue is {"S":...}: its canonical text is
 * the string itself. */
static inline int ddbst__type_is_string(ddbst__type t) {
  return t == DDBST__T_STRING || t == DDBST__T_TIMESTAMP ||
         t == DDBST__T_ULID || t == DDBST__T_ENUM;
}

/* The model file's name of the type ("timestamp"), "?" for none. */
const char *ddbst__type_name(ddbst__type t);
/* The type the model file's name `name` stands for: 1, or 0 when none. */
int ddbst__type_parse(const char *name, ddbst__type *t);
/* The type name closest to a misspelt one ("strng"), or NULL. */
const char *ddbst__type_suggest(const char *name);
/* Whether an attribute of this type may be a key facet. */
int ddbst__type_is_key(ddbst__type t);

#endif
