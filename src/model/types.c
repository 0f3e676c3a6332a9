/* The type table: one list of the model file's type names, read by the
 * loader, by templates (which types a facet may have) and by messages. */
#include <string.h>

#include "base/suggest.h"
#include "model/types.h"

static const struct {
  const char *name;
  ddbst__type type;
} type_names[] = {
    {"string", DDBST__T_STRING},         {"number", DDBST__T_NUMBER},
    {"integer", DDBST__T_INTEGER},       {"boolean", DDBST__T_BOOLEAN},
    {"timestamp", DDBST__T_TIMESTAMP},   {"ulid", DDBST__T_ULID},
    {"enum", DDBST__T_ENUM},             {"ttl", DDBST__T_TTL},
    {"list", DDBST__T_LIST},             {"map", DDBST__T_MAP},
    {"string_set", DDBST__T_STRING_SET}, {"number_set", DDBST__T_NUMBER_SET},
    {"binary", DDBST__T_BINARY},
};

const char *ddbst__type_name(ddbst__type t) {
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (type_names[i].type == t) return type_names[i].name;
  return "?";
}

int ddbst__type_parse(const char *name, ddbst__type *t) {
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (strcmp(name, type_names[i].name) == 0) {
      *t = type_names[i].type;
      return 1;
    }
  return 0;
}

const char *ddbst__type_suggest(const char *name) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, name);
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    ddbst__suggest_offer(&s, type_names[i].name);
  return ddbst__suggest_best(&s);
}

int ddbst__type_is_key(ddbst__type t) {
  return t == DDBST__T_STRING || t == DDBST__T_INTEGER ||
         t == DDBST__T_BOOLEAN || t == DDBST__T_TIMESTAMP ||
         t == DDBST__T_ULID || t == DDBST__T_ENUM;
}
