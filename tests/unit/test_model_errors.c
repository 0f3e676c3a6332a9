/* What a person reads when a model file is wrong (model/load*.c): "did you
 * mean" for misspelt fields, types, facets, entities, indexes and ranges;
 * one error per typo, not a cascade of what follows from it; and the line
 * and column of the member the error is about, for FILE:LINE:COLUMN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { MAX_ERRORS = 16 };

typedef struct collected {
  int count;
  ddbst_error e[MAX_ERRORS];
} collected;

static void collect(void *user, const ddbst_error *err) {
  collected *c = user;
  if (c->count < MAX_ERRORS) c->e[c->count] = *err;
  c->count++;
}

/* `json` with every ' turned into ", loaded with every error collected. */
static collected load_all(const char *json) {
  size_t n = strlen(json);
  char *text = malloc(n + 1);
  assert_non_null(text);
  memcpy(text, json, n + 1);
  for (char *p = text; *p; p++)
    if (*p == '\'') *p = '"';
  collected c;
  memset(&c, 0, sizeof c);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.on_error = collect;
  o.on_error_user = &c;
  ddbst_model *m = NULL;
  ddbst_error first;
  int rc = ddbst_model_load(text, strlen(text), &o, &m, &first);
  ddbst_model_free(m);
  free(text);
  if (c.count) {
    assert_int_equal(rc, DDBST_EMODEL);
    assert_string_equal(first.path, c.e[0].path);
  } else {
    assert_int_equal(rc, 0);
  }
  return c;
}

/* Exactly one error, at `path`, with `message`. */
#define ONE_ERROR(json, want_path, want_message)                               \
  do {                                                                         \
    collected c_ = load_all(json);                                             \
    for (int i_ = 0; c_.count != 1 && i_ < c_.count && i_ < MAX_ERRORS; i_++)  \
      print_message("  error %d: %s: %s\n", i_, c_.e[i_].path,                 \
                    c_.e[i_].message);                                         \
    assert_int_equal(c_.count, 1);                                             \
    assert_string_equal(c_.e[0].path, want_path);                              \
    assert_string_equal(c_.e[0].message, want_message);                        \
  } while (0)

/* A valid model, one line per part, so that positions are easy to state. */
#define TABLE                                                                  \
  "{'ddbst': 1,\n"                                                             \
  " 'table': {'name': 'app', 'partitionKey': 'PK', 'sortKey': 'SK',\n"         \
  "           'indexes': {'GSI1': {'partitionKey': 'G1PK'}}},\n"
#define USER_ATTRS                                                             \
  "'attributes': {'orgId': 'string', 'userId': 'string', 'email': "            \
  "'string', 'ts': {'type': 'timestamp'}}"
#define USER_KEY "'key': {'pk': 'ORG#{orgId}', 'sk': 'USER#{userId}#{ts}'}"
#define USER_INDEX "'indexes': {'GSI1': {'pk': 'EMAIL#{email}'}}"

static void a_valid_model_has_no_error(void **state) {
  (void)state;
  collected c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS
                               ", " USER_KEY "}}}");
  assert_int_equal(c.count, 0);
}

static void a_misspelt_required_field_is_one_error(void **state) {
  (void)state;
  /* not also "'attributes' is required", nor every facet "not an
   * attribute" */
  ONE_ERROR(TABLE " 'entities': {'User': {'atributes': {'orgId': 'string', "
                  "'userId': 'string', 'email': 'string', 'ts': 'timestamp'}, "
                  USER_KEY ", " USER_INDEX "}},\n"
                  " 'patterns': {'listUsers': {'query': 'User', 'range': "
                  "'ts'}}}",
            "entities.User.atributes",
            "unknown field 'atributes'; did you mean attributes?");
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS
                  ", 'kye': {'pk': 'ORG#{orgId}', 'sk': 'USER#{userId}'}}}}",
            "entities.User.kye", "unknown field 'kye'; did you mean key?");
  ONE_ERROR("{'ddbst': 1, 'table': {'name': 'app', 'partitionKy': 'PK'},"
            " 'entities': {'A': {'attributes': {'a': 'string'}, 'key': "
            "{'pk': 'A#{a}'}}}}",
            "table.partitionKy",
            "unknown field 'partitionKy'; did you mean partitionKey?");
  ONE_ERROR("{'ddbts': 1, 'table': {'name': 'app', 'partitionKey': 'PK'},"
            " 'entities': {'A': {'attributes': {'a': 'string'}, 'key': "
            "{'pk': 'A#{a}'}}}}",
            "ddbts", "unknown field 'ddbts'; did you mean ddbst?");
  ONE_ERROR(TABLE " 'entities': {'User': {'attributes': {'orgId': "
                  "{'typ': 'string'}, 'userId': 'string', 'email': 'string',"
                  " 'ts': 'timestamp'}, " USER_KEY "}}}",
            "entities.User.attributes.orgId.typ",
            "unknown field 'typ'; did you mean type?");
  /* a field given as well is not what a stray one meant: the list */
  collected c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS ", "
                               USER_KEY ", 'Key': {}}}}");
  assert_int_equal(c.count, 1);
  assert_string_equal(c.e[0].path, "entities.User.Key");
  assert_non_null(strstr(c.e[0].message, "unknown field 'Key' (expected one "
                                         "of: attributes, key, indexes,"));
}

static void misspelt_names_are_suggested(void **state) {
  (void)state;
  ONE_ERROR(TABLE " 'entities': {'User': {'attributes': {'orgId': 'strng', "
                  "'userId': 'string', 'email': 'string', 'ts': 'timestamp'},"
                  " " USER_KEY "}}}",
            "entities.User.attributes.orgId",
            "unknown type 'strng'; did you mean string?");
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS
                  ", 'key': {'pk': 'ORG#{orgID}', 'sk': 'USER#{userId}'}}}}",
            "entities.User.key.pk",
            "facet 'orgID' is not an attribute of the entity; did you mean "
            "orgId?");
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY ", "
                  "'indexes': {'GSI1': {'pk': 'E#{email}', 'when': "
                  "{'emial': 'x'}}}}}}",
            "entities.User.indexes.GSI1.when.emial",
            "'emial' is not an attribute of User; did you mean email?");
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY "}},\n"
                  " 'patterns': {'listUsers': {'query': 'User', 'range': "
                  "'tss'}}}",
            "patterns.listUsers.range",
            "'tss' is not a facet of User's sort key USER#{userId}#{ts}; did "
            "you mean ts?");
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY "}},\n"
                  " 'patterns': {'byEmail': {'query': 'User', 'filter': "
                  "{'Email': 'x'}}}}",
            "patterns.byEmail.filter.Email",
            "'Email' is not an attribute of User; did you mean email?");
  /* nothing close: no suggestion */
  ONE_ERROR(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY "}},\n"
                  " 'patterns': {'p': {'get': 'Widget'}}}",
            "patterns.p.get", "'Widget' is not an entity of the model");
}

static void an_unknown_name_is_reported_where_first_named(void **state) {
  (void)state;
  /* the entity declared as Usr, three patterns naming User: one typo */
  ONE_ERROR(TABLE " 'entities': {'Usr': {" USER_ATTRS ", " USER_KEY "}},\n"
                  " 'patterns': {'getUser': {'get': 'User'}, 'listUsers': "
                  "{'query': 'User'}, 'others': {'query': ['User']}}}",
            "patterns.getUser.get",
            "'User' is not an entity of the model; did you mean Usr?");
  /* the index declared as GSI9, an entity and a pattern naming GSI1 */
  ONE_ERROR("{'ddbst': 1,\n"
            " 'table': {'name': 'app', 'partitionKey': 'PK', 'sortKey': "
            "'SK', 'indexes': {'GSI9': {'partitionKey': 'G1PK'}}},\n"
            " 'entities': {'User': {" USER_ATTRS ", " USER_KEY ", "
            USER_INDEX "}},\n"
            " 'patterns': {'byEmail': {'query': 'User', 'index': 'GSI1'}}}",
            "entities.User.indexes.GSI1",
            "entity User is keyed on index GSI1, which the table does not "
            "declare (table.indexes); did you mean GSI9?");
  /* two different unknown names are two errors */
  collected c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS ", "
                               USER_KEY "}},\n 'patterns': {'a': {'get': "
                               "'Usr'}, 'b': {'get': 'Team'}, 'c': {'get': "
                               "'Usr'}}}");
  assert_int_equal(c.count, 2);
  assert_string_equal(c.e[0].message,
                      "'Usr' is not an entity of the model; did you mean "
                      "User?");
  assert_string_equal(c.e[1].path, "patterns.b.get");
}

static void errors_point_at_the_member_they_are_about(void **state) {
  (void)state;
  /* line 4, column 24: the quote that opens "atributes" */
  collected c = load_all(TABLE " 'entities': {'User': {'atributes': {}, "
                               USER_KEY "}}}");
  assert_int_equal(c.count, 1);
  assert_int_equal(c.e[0].line, 4);
  assert_int_equal(c.e[0].column, 24);
  assert_int_equal(c.e[0].offset, strlen(TABLE) + 23);
  /* a value with an escaped quote in it: still the member's name */
  c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY
                     ", 'x': 'a\\'b'}}}");
  assert_int_equal(c.count, 1);
  assert_string_equal(c.e[0].path, "entities.User.x");
  assert_int_equal(c.e[0].line, 4);
  const char *line4 = " 'entities': {'User': {" USER_ATTRS ", " USER_KEY ", ";
  assert_int_equal(c.e[0].column, strlen(line4) + 1);
  /* a number, after a line break */
  c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY
                     ",\n   'version':\n     7}}}");
  assert_int_equal(c.count, 1);
  assert_string_equal(c.e[0].path, "entities.User.version");
  assert_int_equal(c.e[0].line, 5);
  assert_int_equal(c.e[0].column, 4);
  /* an element of an array: the element itself */
  c = load_all(TABLE " 'entities': {'User': {" USER_ATTRS ", " USER_KEY
                     "}},\n 'patterns': {'p': {'query': ['User',\n"
                     "    'Nobody']}}}");
  assert_int_equal(c.count, 1);
  assert_string_equal(c.e[0].path, "patterns.p.query");
  assert_int_equal(c.e[0].line, 6);
  assert_int_equal(c.e[0].column, 5);
}

#define SMALL                                                                  \
  "'ddbst': 1, 'table': {'name': 'app', 'partitionKey': 'PK'}, 'entities': "   \
  "{'A': {'attributes': {'a': 'string'}, 'key': {'pk': 'A#{a}'}}}}"

static void a_schema_reference_is_accepted(void **state) {
  (void)state;
  collected c = load_all("{'$schema': './ddbst.schema.json', " SMALL);
  assert_int_equal(c.count, 0);
  ONE_ERROR("{'$schema': 5, " SMALL, "$schema",
            "expected a string, found a number");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_valid_model_has_no_error),
      cmocka_unit_test(a_misspelt_required_field_is_one_error),
      cmocka_unit_test(misspelt_names_are_suggested),
      cmocka_unit_test(an_unknown_name_is_reported_where_first_named),
      cmocka_unit_test(errors_point_at_the_member_they_are_about),
      cmocka_unit_test(a_schema_reference_is_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
