/* The CloudFormation output parsed back: the JSON with YAJL, its structure
 * asserted path by path; the YAML form (as `ddbst cloudformation --yaml`
 * writes it) with libyaml's parser, and found equal to the JSON value for
 * value, type for type. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>
#include <yaml.h>

#include "json_yaml.h"
#include "support.h"

/* ---- JSON ---- */

static yajl_val parse_json(const char *text) {
  char why[256];
  yajl_val v = yajl_tree_parse(text, why, sizeof why);
  if (!v) fail_msg("not JSON: %s", why);
  return v;
}

/* The value at a path of object keys and array indexes ("#2"), or NULL. */
static yajl_val at(yajl_val v, const char *path) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", path);
  for (char *part = strtok(copy, "/"); part && v; part = strtok(NULL, "/")) {
    if (part[0] == '#') {
      size_t i = (size_t)atoi(part + 1);
      v = YAJL_IS_ARRAY(v) && i < v->u.array.len ? v->u.array.values[i] : NULL;
      continue;
    }
    yajl_val next = NULL;
    for (size_t i = 0; YAJL_IS_OBJECT(v) && i < v->u.object.len; i++)
      if (strcmp(v->u.object.keys[i], part) == 0) next = v->u.object.values[i];
    v = next;
  }
  return v;
}

static void require_string(yajl_val root, const char *path, const char *want) {
  yajl_val v = at(root, path);
  if (!v || !YAJL_IS_STRING(v)) fail_msg("%s: not a string", path);
  if (strcmp(v->u.string, want) != 0)
    fail_msg("%s: '%s', wanted '%s'", path, v->u.string, want);
}

static void require_true(yajl_val root, const char *path) {
  yajl_val v = at(root, path);
  if (!v || !YAJL_IS_TRUE(v)) fail_msg("%s: not the boolean true", path);
}

/* The strings of an array, joined by spaces: "PK SK GSI1PK". */
static const char *strings_at(yajl_val root, const char *path,
                              const char *member) {
  static char out[1024];
  out[0] = '\0';
  yajl_val v = at(root, path);
  if (!v || !YAJL_IS_ARRAY(v)) fail_msg("%s: not an array", path);
  for (size_t i = 0; i < v->u.array.len; i++) {
    yajl_val e = v->u.array.values[i];
    if (member) e = at(e, member);
    if (!e || !YAJL_IS_STRING(e)) fail_msg("%s[%zu]: not a string", path, i);
    size_t n = strlen(out);
    snprintf(out + n, sizeof out - n, "%s%s", n ? " " : "", e->u.string);
  }
  return out;
}

static size_t length_at(yajl_val root, const char *path) {
  yajl_val v = at(root, path);
  if (v && YAJL_IS_ARRAY(v)) return v->u.array.len;
  if (v && YAJL_IS_OBJECT(v)) return v->u.object.len;
  fail_msg("%s: not a container", path);
  return 0;
}

static char *template_of(const ddbst_model *m, const char *const *filters,
                         size_t n) {
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  if (ddbst_model_cloudformation(m, filters, n, b, &err))
    fail_msg("%s: %s", err.path, err.message);
  size_t len = ddbst_buf_len(b);
  char *text = malloc(len + 1);
  assert_non_null(text);
  memcpy(text, ddbst_buf_data(b), len + 1);
  ddbst_buf_free(b);
  return text;
}

/* ---- YAML ---- */

/* How a YAML 1.1 reader types a plain scalar. */
typedef enum { Y_STRING, Y_NULL, Y_BOOL, Y_NUMBER } ytype;

static int all_digits(const char *s, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static ytype plain_type(const char *s) {
  static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
  static const char *const bools[] = {
      "y",   "Y",   "yes", "Yes", "YES",  "n",    "N",    "no",    "No",
      "NO",  "true", "True", "TRUE", "false", "False", "FALSE", "on",
      "On",  "ON",  "off", "Off", "OFF"};
  for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
    if (strcmp(s, nulls[i]) == 0) return Y_NULL;
  for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
    if (strcmp(s, bools[i]) == 0) return Y_BOOL;
  /* Numbers: [-+]digits[.digits][e[-+]digits]; dates resolve as timestamps,
   * which are not strings either. */
  const char *p = s + (*s == '-' || *s == '+');
  size_t d = strspn(p, "0123456789");
  if (d && (p[d] == '\0' || p[d] == '.' || p[d] == 'e' || p[d] == 'E'))
    return Y_NUMBER;
  if (strlen(s) >= 10 && all_digits(s, 4) && s[4] == '-') return Y_NUMBER;
  if (*s == '.') return Y_NUMBER;
  return Y_STRING;
}

/* Whether YAML node `n` holds the same value as JSON value `v`, with the
 * same types; on a difference, `where` says where. */
static int same(yaml_document_t *doc, yaml_node_t *n, yajl_val v, char *where,
                size_t cap) {
  if (YAJL_IS_OBJECT(v)) {
    if (n->type != YAML_MAPPING_NODE) {
      snprintf(where, cap, "not a mapping");
      return 0;
    }
    size_t count = (size_t)(n->data.mapping.pairs.top -
                            n->data.mapping.pairs.start);
    if (count != v->u.object.len) {
      snprintf(where, cap, "%zu members, wanted %zu", count, v->u.object.len);
      return 0;
    }
    for (size_t i = 0; i < count; i++) {
      yaml_node_pair_t *pair = &n->data.mapping.pairs.start[i];
      yaml_node_t *k = yaml_document_get_node(doc, pair->key);
      if (k->type != YAML_SCALAR_NODE ||
          strcmp((char *)k->data.scalar.value, v->u.object.keys[i]) != 0) {
        snprintf(where, cap, "key %zu is not %s", i, v->u.object.keys[i]);
        return 0;
      }
      if (!same(doc, yaml_document_get_node(doc, pair->value),
                v->u.object.values[i], where, cap)) {
        char inner[512];
        snprintf(inner, sizeof inner, "%s", where);
        snprintf(where, cap, "%s/%s", v->u.object.keys[i], inner);
        return 0;
      }
    }
    return 1;
  }
  if (YAJL_IS_ARRAY(v)) {
    if (n->type != YAML_SEQUENCE_NODE) {
      snprintf(where, cap, "not a sequence");
      return 0;
    }
    size_t count =
        (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count != v->u.array.len) {
      snprintf(where, cap, "%zu elements, wanted %zu", count, v->u.array.len);
      return 0;
    }
    for (size_t i = 0; i < count; i++)
      if (!same(doc,
                yaml_document_get_node(doc, n->data.sequence.items.start[i]),
                v->u.array.values[i], where, cap)) {
        char inner[512];
        snprintf(inner, sizeof inner, "%s", where);
        snprintf(where, cap, "#%zu/%s", i, inner);
        return 0;
      }
    return 1;
  }
  if (n->type != YAML_SCALAR_NODE) {
    snprintf(where, cap, "not a scalar");
    return 0;
  }
  const char *text = (const char *)n->data.scalar.value;
  int plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  ytype t = plain ? plain_type(text) : Y_STRING;
  int ok;
  if (YAJL_IS_STRING(v))
    ok = t == Y_STRING && strcmp(text, v->u.string) == 0;
  else if (YAJL_IS_NUMBER(v))
    ok = t == Y_NUMBER && strcmp(text, v->u.number.r) == 0;
  else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
    ok = t == Y_BOOL && strcmp(text, YAJL_IS_TRUE(v) ? "true" : "false") == 0;
  else
    ok = t == Y_NULL;
  if (!ok) snprintf(where, cap, "scalar '%s' (%s)", text, plain ? "plain" : "quoted");
  return ok;
}

/* Converts `json` to YAML the way the command does, parses the YAML back and
 * requires the same value. Returns the YAML (free it). */
static char *yaml_round_trip(const char *json) {
  char *yaml = NULL, why[300];
  size_t len = 0;
  if (cli_json_to_yaml(json, &yaml, &len, why, sizeof why))
    fail_msg("to YAML: %s", why);
  assert_int_equal(strlen(yaml), len);
  yaml_parser_t parser;
  yaml_document_t doc;
  assert_true(yaml_parser_initialize(&parser));
  yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
  if (!yaml_parser_load(&parser, &doc))
    fail_msg("YAML does not parse: %s (line %zu)\n%s", parser.problem,
             parser.problem_mark.line + 1, yaml);
  yajl_val v = parse_json(json);
  char where[1024] = "";
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root || !same(&doc, root, v, where, sizeof where))
    fail_msg("YAML differs from JSON at %s\n%s", where, yaml);
  yajl_tree_free(v);
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  return yaml;
}

/* ---- the tests ---- */

static void saas_json_structure(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  const char *const filters[] = {"Project:INSERT,MODIFY", "User:REMOVE"};
  char *text = template_of(m, filters, 2);
  yajl_val t = parse_json(text);
  require_string(t, "Resources/AppTable/Type", "AWS::DynamoDB::Table");
  require_string(t, "Resources/AppTable/DeletionPolicy", "Retain");
  require_string(t, "Resources/AppTable/UpdateReplacePolicy", "Retain");
  /* The name is a parameter, the model's by default, with a stage suffix
   * when one is given. */
  require_string(t, "Parameters/TableName/Default", "saas-api-dev");
  require_string(t, "Parameters/TableName/Type", "String");
  require_string(t, "Parameters/Stage/Default", "");
  require_string(t, "Resources/AppTable/Properties/TableName/Fn::If/#0",
                 "HasStage");
  require_string(t, "Resources/AppTable/Properties/TableName/Fn::If/#1/"
                    "Fn::Join/#0", "-");
  require_string(t, "Resources/AppTable/Properties/TableName/Fn::If/#1/"
                    "Fn::Join/#1/#1/Ref", "Stage");
  require_string(t, "Resources/AppTable/Properties/TableName/Fn::If/#2/Ref",
                 "TableName");
  require_string(t, "Conditions/HasStage/Fn::Not/#0/Fn::Equals/#0/Ref",
                 "Stage");
  require_string(t, "Outputs/TableName/Value/Ref", "AppTable");
  assert_string_equal(strings_at(t, "Outputs/TableArn/Value/Fn::GetAtt", NULL),
                      "AppTable Arn");
  assert_string_equal(strings_at(t, "Outputs/StreamArn/Value/Fn::GetAtt", NULL),
                      "AppTable StreamArn");
  require_string(t, "Outputs/StreamArn/Export/Name/Fn::Join/#1/#0/Ref",
                 "AWS::StackName");
  require_string(t, "Outputs/StreamArn/Export/Name/Fn::Join/#1/#1",
                 "StreamArn");
  require_string(t, "Resources/AppTable/Properties/BillingMode",
                "PAY_PER_REQUEST");
  assert_string_equal(strings_at(t,
                                 "Resources/AppTable/Properties/"
                                 "AttributeDefinitions",
                                 "AttributeName"),
                      "PK SK GSI1PK GSI2PK GSI2SK");
  assert_string_equal(strings_at(t,
                                 "Resources/AppTable/Properties/"
                                 "AttributeDefinitions",
                                 "AttributeType"),
                      "S S S S S");
  assert_string_equal(strings_at(t, "Resources/AppTable/Properties/KeySchema",
                                 "KeyType"),
                      "HASH RANGE");
  const char *gsis = "Resources/AppTable/Properties/GlobalSecondaryIndexes";
  assert_int_equal(length_at(t, gsis), 2);
  assert_string_equal(strings_at(t, gsis, "IndexName"), "GSI1 GSI2");
  assert_string_equal(strings_at(t, gsis, "Projection/ProjectionType"),
                      "KEYS_ONLY INCLUDE");
  assert_string_equal(
      strings_at(t,
                 "Resources/AppTable/Properties/GlobalSecondaryIndexes/#1/"
                 "Projection/NonKeyAttributes",
                 NULL),
      "name status");
  assert_string_equal(
      strings_at(t,
                 "Resources/AppTable/Properties/GlobalSecondaryIndexes/#1/"
                 "KeySchema",
                 "AttributeName"),
      "GSI2PK GSI2SK");
  require_string(t,
                "Resources/AppTable/Properties/StreamSpecification/"
                "StreamViewType",
                "NEW_AND_OLD_IMAGES");
  require_true(t,
              "Resources/AppTable/Properties/PointInTimeRecoverySpecification/"
              "PointInTimeRecoveryEnabled");
  require_true(t, "Resources/AppTable/Properties/SSESpecification/SSEEnabled");
  require_string(t,
                "Resources/AppTable/Properties/TimeToLiveSpecification/"
                "AttributeName",
                "expiresAt");
  require_true(t,
              "Resources/AppTable/Properties/TimeToLiveSpecification/Enabled");

  const char *stmt = "Resources/AppTableAccess/Properties/PolicyDocument/"
                     "Statement/#0";
  char path[256];
  require_string(t, "Resources/AppTableAccess/Type", "AWS::IAM::ManagedPolicy");
  require_string(t,
                "Resources/AppTableAccess/Properties/PolicyDocument/Version",
                "2012-10-17");
  snprintf(path, sizeof path, "%s/Effect", stmt);
  require_string(t, path, "Allow");
  snprintf(path, sizeof path, "%s/Action", stmt);
  assert_string_equal(strings_at(t, path, NULL),
                      "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem "
                      "dynamodb:DeleteItem dynamodb:Query "
                      "dynamodb:BatchGetItem");
  snprintf(path, sizeof path, "%s/Resource/#0/Fn::GetAtt", stmt);
  assert_string_equal(strings_at(t, path, NULL), "AppTable Arn");
  snprintf(path, sizeof path, "%s/Resource/#1/Fn::Join/#1/#1", stmt);
  require_string(t, path, "/index/*");
  snprintf(path, sizeof path, "%s/Resource/#1/Fn::Join/#1/#0/Fn::GetAtt", stmt);
  assert_string_equal(strings_at(t, path, NULL), "AppTable Arn");

  const char *fp = "Metadata/ddbst/filterPatterns";
  assert_int_equal(length_at(t, fp), 2);
  assert_string_equal(strings_at(t, "Metadata/ddbst/filterPatterns/#0/eventName",
                                 NULL),
                      "INSERT MODIFY");
  assert_string_equal(strings_at(t,
                                 "Metadata/ddbst/filterPatterns/#0/dynamodb/"
                                 "Keys/SK/S",
                                 "prefix"),
                      "PROJECT#");
  assert_int_equal(length_at(t, "Metadata/ddbst/filterPatterns/#0/dynamodb/Keys"),
                   1);
  assert_string_equal(strings_at(t, "Metadata/ddbst/filterPatterns/#1/eventName",
                                 NULL),
                      "REMOVE");
  assert_string_equal(strings_at(t,
                                 "Metadata/ddbst/filterPatterns/#1/dynamodb/"
                                 "Keys/SK/S",
                                 "prefix"),
                      "USER#");
  /* Only the sections a template may have. */
  assert_int_equal(length_at(t, ""), 5);
  assert_non_null(at(t, "Resources"));
  assert_non_null(at(t, "Parameters"));
  assert_non_null(at(t, "Conditions"));
  assert_non_null(at(t, "Outputs"));
  assert_non_null(at(t, "Metadata"));
  yajl_tree_free(t);
  free(text);
  ddbst_model_free(m);
}

static void saas_yaml_equals_json(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  const char *const filters[] = {"Project:INSERT,MODIFY"};
  char *json = template_of(m, filters, 1);
  char *yaml = yaml_round_trip(json);
  /* It pastes under `resources:` of a serverless.yml: Resources first, block
   * style, the seed's flow-style key lists, the policy version quoted (a
   * plain 2012-10-17 would be read as a date). */
  assert_int_equal(strncmp(yaml, "Resources:\n  AppTable:\n", 23), 0);
  assert_non_null(strstr(yaml, "      KeySchema:\n"
                               "      - {AttributeName: PK, KeyType: HASH}\n"
                               "      - {AttributeName: SK, KeyType: RANGE}\n"));
  assert_non_null(strstr(yaml, "          NonKeyAttributes: [name, status]\n"));
  assert_non_null(strstr(yaml, "        Version: '2012-10-17'\n"));
  assert_non_null(strstr(yaml, "        PointInTimeRecoveryEnabled: true\n"));
  assert_non_null(strstr(yaml, "    - eventName: [INSERT, MODIFY]\n"));
  /* No "${...}": serverless.yml would take it for a variable. */
  assert_null(strstr(yaml, "${"));
  free(yaml);
  free(json);
  ddbst_model_free(m);
}

static void blog_yaml_equals_json(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/blog/model.json");
  char *json = template_of(m, NULL, 0);
  yajl_val t = parse_json(json);
  assert_null(at(t, "Metadata"));
  assert_null(at(t, "Resources/AppTable/Properties/StreamSpecification"));
  assert_null(at(t, "Resources/AppTable/Properties/TimeToLiveSpecification"));
  assert_string_equal(strings_at(t,
                                 "Resources/AppTable/Properties/"
                                 "GlobalSecondaryIndexes",
                                 "Projection/ProjectionType"),
                      "ALL KEYS_ONLY INCLUDE");
  assert_string_equal(strings_at(t,
                                 "Resources/AppTableAccess/Properties/"
                                 "PolicyDocument/Statement/#0/Action",
                                 NULL),
                      "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem "
                      "dynamodb:DeleteItem dynamodb:Query "
                      "dynamodb:BatchGetItem");
  yajl_tree_free(t);
  free(yaml_round_trip(json));
  free(json);
  ddbst_model_free(m);
}

/* Strings that YAML would read as something else, or that need quoting or
 * escaping, come back as the same strings; numbers, booleans and null keep
 * their types. */
static void tricky_scalars_round_trip(void **state) {
  (void)state;
  free(yaml_round_trip(
      "{\"t\":\"true\",\"yes\":\"no\",\"n\":\"1\",\"neg\":\"-1\",\"f\":\"1.5\","
      "\"e\":\"\",\"nul\":\"null\",\"tilde\":\"~\",\"date\":\"2026-03-14\","
      "\"dot\":\".inf\",\"colon\":\"a: b\",\"hash\":\"#x\",\"sharp\":"
      "\"PROJECT#\",\"star\":\"*x\",\"amp\":\"&y\",\"bang\":\"!GetAtt\","
      "\"quote\":\"it's \\\"q\\\"\",\"nl\":\"two\\nlines\",\"tab\":\"a\\tb\","
      "\"utf8\":\"\xc3\xa9t\xc3\xa9\",\"lead\":\" space\",\"trail\":\"space \","
      "\"dash\":\"- x\",\"brace\":\"{a}\",\"num\":42,\"real\":-0.5e3,"
      "\"yes_bool\":true,\"no_bool\":false,\"none\":null,"
      "\"empty\":{},\"list\":[],\"nested\":[{\"a\":[1,\"2\"]},[true]],"
      "\"true\":\"key that is a boolean word\"}"));
}

static void malformed_json_is_refused(void **state) {
  (void)state;
  char *out = (char *)1, why[300];
  size_t len = 0;
  assert_int_equal(cli_json_to_yaml("{\"a\":", &out, &len, why, sizeof why),
                   -1);
  assert_null(out);
  assert_int_equal(strncmp(why, "not JSON: ", 10), 0);
  assert_int_equal(cli_json_indent("[1,", &out, &len, why, sizeof why), -1);
  assert_null(out);
  assert_int_equal(cli_json_indent("{\"a\":[1,true]}", &out, &len, why,
                                   sizeof why),
                   0);
  assert_string_equal(out, "{\n  \"a\": [\n    1,\n    true\n  ]\n}\n");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(saas_json_structure),
      cmocka_unit_test(saas_yaml_equals_json),
      cmocka_unit_test(blog_yaml_equals_json),
      cmocka_unit_test(tricky_scalars_round_trip),
      cmocka_unit_test(malformed_json_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
