/* Unit tests for the loader (model/load*.c, compile_*.c): one test per class
 * of model-file error, each pinning the return code, the exact error path
 * and the key phrase of the message; the examples; the error callback;
 * allocation failure; a model file ending at a guard page.
 *
 * Models are written with ' for " so that they read like JSON; q() turns them
 * back. Broken variants are derived from one small valid model with edit(),
 * which replaces exactly one occurrence of a fragment.
 *
 * Several tests here first found loader bugs (key attributes shared between
 * indexes, implicit attributes shadowing keys, overlapping key templates,
 * syntax errors missed by on_error, YAJL crashing on a failed allocation);
 * they now guard the fixes. */
#define _GNU_SOURCE /* dladdr, for telling YAJL's allocations apart */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#if defined(__GLIBC__)
#include <dlfcn.h>
#include <execinfo.h>
#define HAVE_BACKTRACE 1
#else
#define HAVE_BACKTRACE 0
#endif

#include "ddbst.h"
#include "support.h"

/* snprintf into an array, failing the test rather than truncating. */
#define FMT(buf, ...)                                                          \
  do {                                                                         \
    int w_ = snprintf((buf), sizeof(buf), __VA_ARGS__);                        \
    if (w_ < 0 || (size_t)w_ >= sizeof(buf))                                   \
      fail_msg("%s:%d: text too long", __FILE__, __LINE__);                    \
  } while (0)

/* ------------------------------------------------------------ model text */

enum { RING = 8, SLOT = 32768 };
static char ring[RING][SLOT];
static int ring_next;

static char *slot(void) {
  char *s = ring[ring_next];
  ring_next = (ring_next + 1) % RING;
  return s;
}

/* The model text with every ' turned into ". */
static const char *q(const char *s) {
  size_t n = strlen(s);
  if (n >= SLOT) fail_msg("model text longer than %d bytes", SLOT);
  char *out = slot();
  for (size_t i = 0; i <= n; i++) out[i] = s[i] == '\'' ? '"' : s[i];
  return out;
}

/* `base` with its one occurrence of `from` replaced by `to`. */
static const char *edit(const char *base, const char *from, const char *to) {
  const char *at = strstr(base, from);
  if (!at) fail_msg("edit: '%s' is not in the model", from);
  if (strstr(at + 1, from)) fail_msg("edit: '%s' occurs twice", from);
  size_t head = (size_t)(at - base), fl = strlen(from), tl = strlen(to);
  if (strlen(base) - fl + tl >= SLOT) fail_msg("edit: result too long");
  char *out = slot();
  memcpy(out, base, head);
  memcpy(out + head, to, tl);
  strcpy(out + head + tl, at + fl);
  return out;
}

/* A small valid model: a table with a sort key and two GSIs (one without a
 * sort key), two entities sharing a partition, two patterns. */
static const char BASE[] =
    "{'ddbst':1,"
    "'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
    "'indexes':{'GSI1':{'partitionKey':'GSI1PK','sortKey':'GSI1SK'},"
    "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'}},"
    "'entityAttribute':'_type','ttlAttribute':'expiresAt'},"
    "'entities':{"
    "'Org':{'attributes':{'orgId':'string','name':'string'},"
    "'key':{'pk':'ORG#{orgId}','sk':'ORG'}},"
    "'User':{'attributes':{'orgId':'string','userId':'string',"
    "'email':'string','status':{'type':'enum','values':['active','banned']},"
    "'expiresAt':'ttl'},"
    "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
    "'indexes':{'GSI1':{'pk':'STATUS#{status}','sk':'{userId}'},"
    "'GSI2':{'pk':'EMAIL#{email:lower}'}}}},"
    "'patterns':{'getUser':{'get':'User'},"
    "'listUsers':{'query':'User','limit':{'default':25,'max':100}}}}";

/* A model with one entity whose attributes and key are given: for attribute
 * and template tests. The table has a sort key and GSI1 (with a sort key). */
static const char *one_entity(const char *attributes, const char *key) {
  char text[SLOT];
  FMT(text,
      "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK',"
      "'sortKey':'SK','indexes':{'GSI1':{'partitionKey':'GSI1PK',"
      "'sortKey':'GSI1SK'}},'entityAttribute':'_type',"
      "'ttlAttribute':'expiresAt'},"
      "'entities':{'Thing':{'attributes':{%s},'key':{%s}}}}",
      attributes, key);
  char *out = slot();
  strcpy(out, text);
  return out;
}

/* One entity with attributes `a` (string) and `attrs`, keyed on a. */
static const char *with_attrs(const char *attrs) {
  char text[SLOT];
  FMT(text, "'a':'string',%s", attrs);
  return one_entity(text, "'pk':'T#{a}','sk':'T'");
}

/* --------------------------------------------------------------- asserts */

static void assert_message_has(const ddbst_error *e, const char *phrase,
                               const char *file, int line) {
  if (!strstr(e->message, phrase))
    fail_msg("%s:%d: message \"%s\" (path \"%s\") lacks \"%s\"", file, line,
             e->message, e->path, phrase);
}

/* Loading `model` (' form) fails with `code`, the exact path, and a message
 * holding `phrase`. */
#define EXPECT_ERROR(model, code_, path_, phrase)                              \
  do {                                                                         \
    ddbst_error e_;                                                            \
    memset(&e_, 0, sizeof e_);                                                 \
    int rc_ = load_fails(q(model), &e_);                                       \
    if (rc_ != (code_))                                                        \
      fail_msg("expected code %d, got %d: %s: %s", (code_), rc_, e_.path,      \
               e_.message);                                                    \
    assert_int_equal(e_.code, (code_));                                        \
    assert_string_equal(e_.path, (path_));                                     \
    assert_message_has(&e_, (phrase), __FILE__, __LINE__);                     \
  } while (0)

#define EXPECT_MODEL_ERROR(model, path_, phrase)                               \
  EXPECT_ERROR(model, DDBST_EMODEL, path_, phrase)

/* Loading `model` (' form) succeeds; the model is freed. */
static void loads(const char *model) { ddbst_model_free(load_text(q(model))); }

/* ------------------------------------------------------------ JSON level */

static void base_model_loads(void **state) {
  (void)state;
  ddbst_model *m = load_text(q(BASE));
  assert_string_equal(ddbst_model_table_name(m), "app-dev");
  assert_int_equal(ddbst_model_entity_count(m), 2);
  assert_int_equal(ddbst_model_pattern_count(m), 2);
  ddbst_model_free(m);
}

static void malformed_json_gives_line_and_column(void **state) {
  (void)state;
  ddbst_error e;
  /* The column is where YAJL stopped: the byte just past the offending '@'
   * (which is itself at column 12). */
  assert_int_equal(load_fails("{\n  \"ddbst\": 1,\n  \"table\": @\n}", &e),
                   DDBST_ESYNTAX);
  assert_int_equal(e.code, DDBST_ESYNTAX);
  assert_string_equal(e.path, "");
  assert_int_equal(e.line, 3);
  assert_int_equal(e.column, 13);
  assert_int_equal(e.offset, 28);
  assert_non_null(strstr(e.message, "invalid char"));
  assert_non_null(strstr(e.message, "(line 3, column 13)"));

  /* A trailing comma before '}' on line 3. */
  assert_int_equal(
      load_fails("{\n  \"ddbst\": 1,\n  \"table\": {\"name\": \"x\",}\n}", &e),
      DDBST_ESYNTAX);
  assert_int_equal(e.line, 3);
  assert_non_null(strstr(e.message, "invalid object key"));

  assert_int_equal(load_fails("", &e), DDBST_ESYNTAX);
  assert_non_null(strstr(e.message, "premature EOF"));
  assert_int_equal(e.line, 1);
  assert_int_equal(e.column, 1);

  assert_int_equal(load_fails("{\"ddbst\": 1} x", &e), DDBST_ESYNTAX);
  assert_non_null(strstr(e.message, "trailing garbage"));
}

static void duplicate_key_is_a_syntax_error(void **state) {
  (void)state;
  ddbst_error e;
  assert_int_equal(
      load_fails("{\n  \"ddbst\": 1,\n  \"table\": {\"name\": \"x\",\n"
                 "  \"name\": \"y\"}\n}",
                 &e),
      DDBST_ESYNTAX);
  /* the model's own path, as its other errors have */
  assert_string_equal(e.path, "table.name");
  assert_string_equal(e.message, "name given twice");
  /* Just past the second "name". */
  assert_int_equal(e.line, 4);
  assert_int_equal(e.column, 9);
}

static void nul_in_a_string_or_name_is_refused(void **state) {
  (void)state;
  ddbst_error e;
  assert_int_equal(load_fails("{\"ddbst\": 1, \"x\": \"a\\u0000b\"}", &e),
                   DDBST_ESYNTAX);
  assert_string_equal(e.path, "x");
  assert_string_equal(e.message, "contains a NUL byte (\\u0000)");
  assert_int_equal(e.line, 1);
  assert_int_equal(e.column, 29);

  assert_int_equal(load_fails("{\"a\\u0000\": 1}", &e), DDBST_ESYNTAX);
  assert_string_equal(e.path, "");
  assert_string_equal(e.message, "a member name contains a NUL byte (\\u0000)");
}

static void nesting_deeper_than_64_is_refused(void **state) {
  (void)state;
  char deep[2 * 65 + 1];
  for (int i = 0; i < 65; i++) {
    deep[i] = '[';
    deep[65 + i] = ']';
  }
  deep[130] = '\0';
  ddbst_error e;
  assert_int_equal(load_fails(deep, &e), DDBST_ESYNTAX);
  assert_int_equal(strlen(e.path), 64 * 3); /* [0] 64 times */
  assert_string_equal(e.message, "nesting deeper than 64 levels");
  assert_int_equal(e.column, 66);

  /* 64 levels parse; the model is then wrong, not the JSON. */
  char ok[2 * 64 + 1];
  for (int i = 0; i < 64; i++) {
    ok[i] = '[';
    ok[64 + i] = ']';
  }
  ok[128] = '\0';
  assert_int_equal(load_fails(ok, &e), DDBST_EMODEL);
  assert_string_equal(e.path, "");
  assert_non_null(strstr(e.message, "expected a JSON object at the top"));
}

/* ------------------------------------------------------------- root level */

static void format_version_is_required_and_checked(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'ddbst':1,", ""), "",
                     "'ddbst': 1 is required");
  EXPECT_MODEL_ERROR(edit(BASE, "'ddbst':1,", "'ddbst':2,"), "ddbst",
                     "reads model format 1; the file says 2");
  EXPECT_MODEL_ERROR(edit(BASE, "'ddbst':1,", "'ddbst':1.0,"), "ddbst",
                     "the file says 1.0");
  EXPECT_MODEL_ERROR(edit(BASE, "'ddbst':1,", "'ddbst':true,"), "ddbst",
                     "the file says a boolean");
}

/* A string "1" is refused, and the message says why. */
static void format_version_as_string_says_so(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'ddbst':1,", "'ddbst':'1',"), "ddbst",
                     "write 1, not a string");
}

static void root_must_be_an_object_with_table_and_entities(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR("[]", "", "expected a JSON object at the top");
  EXPECT_MODEL_ERROR("{'ddbst':1,'entities':{}}", "table",
                     "'table' is required");
  EXPECT_MODEL_ERROR("{'ddbst':1,'table':{'name':'abc','partitionKey':'PK'}}",
                     "entities", "'entities' is required");
  EXPECT_MODEL_ERROR(
      "{'ddbst':1,'table':{'name':'abc','partitionKey':'PK'},'entities':{}}",
      "entities", "declare at least one entity");
}

/* ---------------------------------------------------------- unknown fields */

static void unknown_fields_are_errors_everywhere(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "{'ddbst':1,", "{'ddbst':1,'tables':{},"),
                     "tables",
                     "unknown field 'tables' (expected one of: $schema, "
                     "ddbst, description, table, entities, patterns)");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'name':'app-dev',", "'name':'app-dev','rcu':5,"), "table.rcu",
      "unknown field 'rcu'");
  EXPECT_MODEL_ERROR(edit(BASE, "'projection':'KEYS_ONLY'",
                          "'projection':'KEYS_ONLY','hash':1"),
                     "table.indexes.GSI2.hash",
                     "unknown field 'hash' (expected one of: partitionKey, "
                     "sortKey, projection, onDemandThroughput, warmThroughput, "
                     "contributorInsights)");
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'owner':1,"),
                     "entities.Org.owner", "unknown field 'owner'");
  EXPECT_MODEL_ERROR(edit(BASE, "'type':'enum',", "'type':'enum','colour':1,"),
                     "entities.User.attributes.status.colour",
                     "unknown field 'colour'");
  EXPECT_MODEL_ERROR(edit(BASE, "'sk':'ORG'}", "'sk':'ORG','gsi1pk':'X'}"),
                     "entities.Org.key.gsi1pk",
                     "unknown field 'gsi1pk' (expected one of: pk, sk)");
  EXPECT_MODEL_ERROR(edit(BASE, "'pk':'EMAIL#{email:lower}'",
                          "'pk':'EMAIL#{email:lower}','filter':1"),
                     "entities.User.indexes.GSI2.filter",
                     "unknown field 'filter' (expected one of: pk, sk, when)");
  EXPECT_MODEL_ERROR(edit(BASE, "{'get':'User'}", "{'get':'User','cache':1}"),
                     "patterns.getUser.cache", "unknown field 'cache'");
  EXPECT_MODEL_ERROR(edit(BASE, "'max':100", "'max':100,'min':1"),
                     "patterns.listUsers.limit.min",
                     "unknown field 'min' (expected one of: default, max)");
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'timestamps':{'made':'m'},"),
                     "entities.Org.timestamps.made", "unknown field 'made'");
}

static void description_is_allowed_where_documented(void **state) {
  (void)state;
  const char *m = edit(BASE, "{'ddbst':1,", "{'ddbst':1,'description':'d',");
  m = edit(m, "'Org':{", "'Org':{'description':'d',");
  m = edit(m, "'name':'string'}",
           "'name':{'type':'string','description':'d'}}");
  m = edit(m, "{'get':'User'}", "{'get':'User','description':'d'}");
  loads(m);
}

/* ------------------------------------------------------------------ table */

static void table_name_and_partition_key_are_required(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'name':'app-dev',", ""), "table.name",
                     "'name' is required");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'name':'app-dev','partitionKey':'PK',", "'name':'app-dev',"),
      "table.partitionKey", "'partitionKey' is required");
  EXPECT_MODEL_ERROR(edit(BASE, "'partitionKey':'PK',", "'partitionKey':'',"),
                     "table.partitionKey",
                     "a key attribute name is 1 to 255 bytes");
  EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'SK',", "'sortKey':7,"),
                     "table.sortKey", "expected a string, found a number");
}

static void table_name_is_checked(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'name':'app-dev',", "'name':'ab',"),
                     "table.name", "a table name is 3 to 255 of");
  EXPECT_MODEL_ERROR(edit(BASE, "'name':'app-dev',", "'name':'app dev',"),
                     "table.name", "a table name is 3 to 255 of");
  loads(edit(BASE, "'name':'app-dev',", "'name':'App_1.dev-2',"));
}

static void table_name_can_be_overridden_at_load(void **state) {
  (void)state;
  const char *text = q(BASE);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = "app-prod";
  ddbst_model *m = NULL;
  ddbst_error e;
  assert_int_equal(ddbst_model_load(text, strlen(text), &o, &m, &e), 0);
  assert_string_equal(ddbst_model_table_name(m), "app-prod");
  ddbst_model_free(m);

  o.table_name = "bad name!";
  m = (ddbst_model *)&o; /* must come back NULL */
  assert_int_equal(ddbst_model_load(text, strlen(text), &o, &m, &e),
                   DDBST_EMODEL);
  assert_null(m);
  assert_string_equal(e.path, "table.name");
  assert_non_null(
      strstr(e.message, "the table name given at load ('bad name!')"));
}

static void delimiter_is_checked(void **state) {
  (void)state;
  static const char *const bad[] = {"''",  "'-'",  "':'",     "'.'",
                                    "'+'", "'%'",  "'{'",     "'x'",
                                    "'1'", "'# '", "'#####'", "5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char repl[64];
    FMT(repl, "'sortKey':'SK','delimiter':%s,", bad[i]);
    if (strcmp(bad[i], "5") == 0)
      EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'SK',", repl), "table.delimiter",
                         "expected a string, found a number");
    else
      EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'SK',", repl), "table.delimiter",
                         "a delimiter is 1 to 4 ASCII punctuation characters");
  }
}

static const char PIPE_MODEL[] =
    "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK',"
    "'sortKey':'SK','delimiter':'|'},"
    "'entities':{'User':{'attributes':{'orgId':'string','userId':'string'},"
    "'key':{'pk':'ORG|{orgId}','sk':'USER|{userId}'}}}}";

static void custom_delimiter_is_used_in_keys(void **state) {
  (void)state;
  ddbst_model *m = load_text(q(PIPE_MODEL));
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  assert_non_null(it);
  set(it, "orgId", "a#1"); /* '#' is an ordinary character now */
  set(it, "userId", "9");
  ddbst_error e;
  assert_int_equal(ddbst_item_build_keys(it, &e), 2);
  const char *name, *value;
  assert_int_equal(ddbst_item_key(it, 0, &name, &value, NULL), 0);
  assert_string_equal(name, "PK");
  assert_string_equal(value, "ORG|a#1");
  assert_int_equal(ddbst_item_key(it, 1, &name, &value, NULL), 0);
  assert_string_equal(name, "SK");
  assert_string_equal(value, "USER|9");

  set(it, "orgId", "a|1");
  assert_int_equal(ddbst_item_build_keys(it, &e), DDBST_EVALUE);
  assert_string_equal(e.path, "facet orgId");
  assert_non_null(strstr(e.message, "delimiter '|'"));
  ddbst_item_free(it);
  ddbst_model_free(m);

  /* A facet must be followed by the delimiter in force, not by '#'. */
  EXPECT_MODEL_ERROR(
      edit(PIPE_MODEL, "'sk':'USER|{userId}'", "'sk':'USER|{orgId}#{userId}'"),
      "entities.User.key.sk",
      "facet 'orgId' must be followed by the delimiter '|'");
}

static void stream_values(void **state) {
  (void)state;
  static const char *const ok[] = {"'KEYS_ONLY'", "'NEW_IMAGE'", "'OLD_IMAGE'",
                                   "'NEW_AND_OLD_IMAGES'", "false"};
  static const char *const bad[] = {"true", "'NEW'", "'new_image'", "1",
                                    "null"};
  char repl[64];
  for (size_t i = 0; i < 5; i++) {
    FMT(repl, "'sortKey':'SK','stream':%s,", ok[i]);
    loads(edit(BASE, "'sortKey':'SK',", repl));
  }
  for (size_t i = 0; i < 5; i++) {
    FMT(repl, "'sortKey':'SK','stream':%s,", bad[i]);
    EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'SK',", repl), "table.stream",
                       "expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, "
                       "NEW_AND_OLD_IMAGES or false");
  }
}

static void projection_forms(void **state) {
  (void)state;
  static const char from[] = "'projection':'KEYS_ONLY'";
  loads(edit(BASE, from, "'projection':'ALL'"));
  loads(edit(BASE, from, "'projection':['email','status']"));
  loads(edit(BASE, ",'projection':'KEYS_ONLY'", "")); /* absent: ALL */
  EXPECT_MODEL_ERROR(edit(BASE, from, "'projection':'NONE'"),
                     "table.indexes.GSI2.projection",
                     "expected \"ALL\", \"KEYS_ONLY\" or an array of "
                     "attribute names (INCLUDE)");
  EXPECT_MODEL_ERROR(edit(BASE, from, "'projection':'include'"),
                     "table.indexes.GSI2.projection", "expected \"ALL\"");
  EXPECT_MODEL_ERROR(edit(BASE, from, "'projection':[]"),
                     "table.indexes.GSI2.projection",
                     "an INCLUDE projection lists 1 to 100 attributes");
  EXPECT_MODEL_ERROR(edit(BASE, from, "'projection':['email',7]"),
                     "table.indexes.GSI2.projection",
                     "element 1: expected an attribute name");
  EXPECT_MODEL_ERROR(edit(BASE, from, "'projection':['e mail']"),
                     "table.indexes.GSI2.projection",
                     "element 0: expected an attribute name");
}

static void index_names_and_keys_are_checked(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(
      edit(BASE, "'GSI2':{'partitionKey'", "'G2':{'partitionKey'"),
      "table.indexes.G2", "an index name is 3 to 255 of");
  EXPECT_MODEL_ERROR(edit(BASE, "'partitionKey':'GSI2PK',", ""),
                     "table.indexes.GSI2.partitionKey",
                     "'partitionKey' is required");
  EXPECT_MODEL_ERROR(
      edit(BASE,
           "'indexes':{'GSI1':{'partitionKey':'GSI1PK','sortKey':'GSI1SK'},"
           "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'}}",
           "'indexes':[]"),
      "table.indexes", "expected an object of indexes, found an array");
}

static void key_attribute_names_have_one_role(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'SK',", "'sortKey':'PK',"), "table",
                     "'PK' is both the table's partition key and the table's "
                     "sort key");
  /* An index keyed on the table's sort key (an inverted index) shares it:
   * it holds every item, so every entity declares it, and its entities
   * give no template for it, as it is written once. */
  EXPECT_MODEL_ERROR(
      edit(BASE, "'partitionKey':'GSI2PK'", "'partitionKey':'SK'"),
      "entities.Org",
      "every Org item is in GSI2, which is keyed on the table's own keys: "
      "declare \"GSI2\": {} under Org's indexes");
  EXPECT_MODEL_ERROR(
      edit(edit(BASE, "'partitionKey':'GSI2PK'", "'partitionKey':'SK'"),
           "'key':{'pk':'ORG#{orgId}','sk':'ORG'}}",
           "'key':{'pk':'ORG#{orgId}','sk':'ORG'},'indexes':{'GSI2':{}}}"),
      "entities.User.indexes.GSI2.pk",
      "GSI2's partition key is the table's SK: it is the entity's key.sk, "
      "written once; leave 'pk' out");
  /* keyed as the table is: refused */
  EXPECT_MODEL_ERROR(
      edit(BASE, "'partitionKey':'GSI1PK','sortKey':'GSI1SK'",
           "'partitionKey':'PK','sortKey':'SK'"),
      "table.indexes.GSI1",
      "GSI1 is keyed as the table is (PK, SK): it would hold the table again; "
      "key it on another attribute");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'entityAttribute':'_type'", "'entityAttribute':'GSI1SK'"),
      "table",
      "'GSI1SK' is both GSI1's sort key and the entity "
      "attribute");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'ttlAttribute':'expiresAt'", "'ttlAttribute':'PK'"), "table",
      "'PK' is both the table's partition key and the TTL "
      "attribute");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'entityAttribute':'_type'", "'entityAttribute':'1type'"),
      "table.entityAttribute", "expected an attribute name");
  /* Two indexes may not share key attributes: each writes its own. */
  EXPECT_MODEL_ERROR(
      edit(BASE, "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'}",
           "'GSI2':{'partitionKey':'GSI2PK'},"
           "'GSI3':{'partitionKey':'GSI1PK','sortKey':'GSI1SK'}"),
      "table", "'GSI1PK' is both GSI1's partition key and GSI3's partition key");
}

/* An index whose sortKey equals its own partitionKey, GSI1's partition key
 * reused as GSI2's sort key, two indexes sharing a partition key: each would
 * make one key attribute hold two keys. */
static void index_key_attributes_are_not_shared(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'sortKey':'GSI1SK'", "'sortKey':'GSI1PK'"),
                     "table", "'GSI1PK' is both");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'}",
           "'GSI2':{'partitionKey':'GSI2PK','sortKey':'GSI1PK'}"),
      "table", "'GSI1PK' is both");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'}",
           "'GSI2':{'partitionKey':'GSI1PK','sortKey':'GSI2SK'}"),
      "table", "'GSI1PK' is both");
}

/* A table with `n` indexes GSI1..GSIn and one entity in none of them. */
static const char *with_indexes(int n) {
  char idx[4096] = "";
  size_t used = 0;
  for (int i = 1; i <= n; i++) {
    int w = snprintf(idx + used, sizeof idx - used,
                     "%s'GSI%d':{'partitionKey':'G%dPK'}", i > 1 ? "," : "",
                     i, i);
    if (w < 0 || (size_t)w >= sizeof idx - used) fail_msg("too many indexes");
    used += (size_t)w;
  }
  char *out = slot();
  int w = snprintf(out, SLOT,
                   "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK',"
                   "'indexes':{%s}},'entities':{'A':{'attributes':{'a':"
                   "'string'},'key':{'pk':'A#{a}'}}}}",
                   idx);
  if (w < 0 || w >= SLOT) fail_msg("model too long");
  return out;
}

static void at_most_20_indexes(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_indexes(21), "table.indexes",
                     "DynamoDB allows at most 20 global secondary indexes");
  loads(with_indexes(20));
}

/* ------------------------------------------------------------- attributes */

static void attribute_types(void **state) {
  (void)state;
  static const char *const types[] = {
      "string", "number", "integer", "boolean",    "timestamp",  "ulid",
      "ttl",    "list",   "map",     "string_set", "number_set", "binary"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    char attrs[128];
    FMT(attrs, "'b':'%s','c':{'type':'%s'}", types[i], types[i]);
    ddbst_model *m = load_text(q(with_attrs(attrs)));
    assert_string_equal(ddbst_model_attribute_type(m, 0, 1), types[i]);
    assert_string_equal(ddbst_model_attribute_type(m, 0, 2), types[i]);
    ddbst_model_free(m);
  }
  loads(with_attrs("'b':{'type':'enum','values':['x']}"));
}

static void unknown_attribute_type(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':'float'"), "entities.Thing.attributes.b",
                     "unknown type (expected string, number, integer");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'float'}"),
                     "entities.Thing.attributes.b.type", "unknown type");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'String'}"),
                     "entities.Thing.attributes.b.type", "unknown type");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'required':true}"),
                     "entities.Thing.attributes.b", "'type' is required");
  EXPECT_MODEL_ERROR(with_attrs("'b':7"), "entities.Thing.attributes.b",
                     "expected a type name or an object, found a number");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'string','required':'yes'}"),
                     "entities.Thing.attributes.b.required",
                     "expected true or false");
}

static void enum_values_are_checked(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':'enum'"), "entities.Thing.attributes.b",
                     "an enum needs its values");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'enum'}"),
                     "entities.Thing.attributes.b.values",
                     "an enum needs 'values'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'enum','values':[]}"),
                     "entities.Thing.attributes.b.values",
                     "an enum needs at least one value");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'enum','values':'x'}"),
                     "entities.Thing.attributes.b.values",
                     "expected an array of strings, found a string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'enum','values':['x','']}"),
                     "entities.Thing.attributes.b.values",
                     "element 1: expected a non-empty string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'enum','values':['x','y','x']}"),
                     "entities.Thing.attributes.b.values",
                     "'x' is listed twice");
}

static void options_only_some_types_take(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','precision':'s'}"),
                     "entities.Thing.attributes.b.precision",
                     "attribute has no 'precision'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'string','width':3}"),
                     "entities.Thing.attributes.b.width",
                     "a string attribute has no 'width'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'number','negative':'sortable'}"),
                     "entities.Thing.attributes.b.negative",
                     "a number attribute has no 'negative'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'ulid','escape':true}"),
                     "entities.Thing.attributes.b.escape",
                     "a ulid attribute has no 'escape'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'string','values':['x']}"),
                     "entities.Thing.attributes.b.values",
                     "a string attribute has no 'values'");
  loads(with_attrs("'b':{'type':'timestamp','precision':'us'},"
                   "'c':{'type':'integer','width':4,'negative':'sortable'},"
                   "'d':{'type':'string','escape':true},"
                   "'e':{'type':'integer','negative':'refuse'}"));
}

static void precision_width_and_negative_values(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'timestamp','precision':'ns'}"),
                     "entities.Thing.attributes.b.precision",
                     "expected \"s\", \"ms\" or \"us\"");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','width':0}"),
                     "entities.Thing.attributes.b.width",
                     "expected a digit count from 1 to 19");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','width':20}"),
                     "entities.Thing.attributes.b.width",
                     "expected a digit count from 1 to 19");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','width':'3'}"),
                     "entities.Thing.attributes.b.width",
                     "expected a digit count from 1 to 19");
  loads(with_attrs("'b':{'type':'integer','width':1},"
                   "'c':{'type':'integer','width':19}"));
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','negative':'sortable'}"),
                     "entities.Thing.attributes.b.negative",
                     "sortable negative integers need a 'width'");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','negative':'allow'}"),
                     "entities.Thing.attributes.b.negative",
                     "expected \"refuse\" or \"sortable\"");
}

/* ---------------------------------------------------------------- defaults */

static void defaults_are_canonical_values(void **state) {
  (void)state;
  ddbst_model *m = load_text(q(with_attrs(
      "'s':{'type':'string','default':'x y'},"
      "'n':{'type':'number','default':1.50},"
      "'i':{'type':'integer','default':-7},"
      "'w':{'type':'integer','width':3,'default':42},"
      "'b':{'type':'boolean','default':true},"
      "'t':{'type':'timestamp','default':'2026-01-15T10:00:00.9+01:00'},"
      "'tm':{'type':'timestamp','precision':'ms','default':'2026-01-15T09:00:"
      "00Z'},"
      "'u':{'type':'ulid','default':'01arz3ndektsv4rrffq69g5fav'},"
      "'e':{'type':'enum','values':['on','off'],'default':'off'},"
      "'x':{'type':'ttl','default':1700000000}")));
  ddbst_item *it = ddbst_item_new(m, 0);
  assert_non_null(it);
  ddbst_error e;
  assert_int_equal(ddbst_item_apply_defaults(it, 0, &e), 0);
  static const char *const want[][2] = {
      {"s", "x y"},
      {"n", "1.50"},
      {"i", "-7"},
      {"w", "42"},
      {"b", "true"},
      {"t", "2026-01-15T09:00:00Z"}, /* UTC, at second precision */
      {"tm", "2026-01-15T09:00:00.000Z"},
      {"u", "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
      {"e", "off"},
      {"x", "1700000000"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int a = ddbst_model_attribute(m, 0, want[i][0]);
    assert_true(a >= 0);
    const char *text = NULL;
    size_t len = 0;
    assert_int_equal(ddbst_item_get(it, a, &text, &len), 1);
    assert_string_equal(text, want[i][1]);
  }
  /* Attributes without a default stay unset. */
  assert_int_equal(
      ddbst_item_get(it, ddbst_model_attribute(m, 0, "a"), NULL, NULL), 0);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static void now_and_generate_defaults(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      q(with_attrs("'t':{'type':'timestamp','precision':'ms','default':'now'},"
                   "'u':{'type':'ulid','default':'generate'}")));
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_error e;
  /* 2026-01-01T00:00:00.123456Z */
  assert_int_equal(ddbst_item_apply_defaults(it, 1767225600123456, &e), 0);
  const char *text;
  size_t len;
  assert_int_equal(ddbst_item_get(it, 1, &text, &len), 1);
  assert_string_equal(text, "2026-01-01T00:00:00.123Z");
  assert_int_equal(ddbst_item_get(it, 2, &text, &len), 1);
  assert_int_equal(len, 26);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static void invalid_defaults(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','default':'7'}"),
                     "entities.Thing.attributes.b.default",
                     "attribute does not take a string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','default':1.5}"),
                     "entities.Thing.attributes.b.default",
                     "not a valid integer");
  EXPECT_MODEL_ERROR(
      with_attrs("'b':{'type':'integer','width':3,'default':1000}"),
      "entities.Thing.attributes.b.default", "more digits than the key width");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'number','default':'1'}"),
                     "entities.Thing.attributes.b.default",
                     "a number attribute does not take a string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'boolean','default':'true'}"),
                     "entities.Thing.attributes.b.default",
                     "a boolean attribute does not take a string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'string','default':5}"),
                     "entities.Thing.attributes.b.default",
                     "a string attribute does not take a number");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'string','default':null}"),
                     "entities.Thing.attributes.b.default",
                     "expected a string, number or boolean");
  EXPECT_MODEL_ERROR(
      with_attrs("'b':{'type':'timestamp','default':'2026-13-01T00:00:00Z'}"),
      "entities.Thing.attributes.b.default",
      "not a valid timestamp: month out of range");
  EXPECT_MODEL_ERROR(
      with_attrs("'b':{'type':'timestamp','default':'2026-01-01T00:00:00'}"),
      "entities.Thing.attributes.b.default", "not a valid timestamp");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'ulid','default':'01ARZ3'}"),
                     "entities.Thing.attributes.b.default", "not a valid ulid");
  EXPECT_MODEL_ERROR(
      with_attrs("'b':{'type':'enum','values':['on','off'],'default':'maybe'}"),
      "entities.Thing.attributes.b.default",
      "not a valid enum: 'maybe' is not one of the enum's values");
}

static void now_and_generate_belong_to_their_types(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'integer','default':'now'}"),
                     "entities.Thing.attributes.b.default",
                     "does not take a string");
  EXPECT_MODEL_ERROR(with_attrs("'b':{'type':'ulid','default':'now'}"),
                     "entities.Thing.attributes.b.default", "not a valid ulid");
  EXPECT_MODEL_ERROR(
      with_attrs("'b':{'type':'timestamp','default':'generate'}"),
      "entities.Thing.attributes.b.default", "not a valid timestamp");
  /* On a string, "now" and "generate" are ordinary literals (see report). */
  loads(with_attrs("'b':{'type':'string','default':'now'}"));
}

static void containers_take_no_default(void **state) {
  (void)state;
  static const char *const types[] = {"list", "map", "string_set", "number_set",
                                      "binary"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    char attrs[128];
    FMT(attrs, "'b':{'type':'%s','default':'{}'}", types[i]);
    char phrase[64];
    FMT(phrase, "a %s attribute takes no default", types[i]);
    EXPECT_MODEL_ERROR(with_attrs(attrs), "entities.Thing.attributes.b.default",
                       phrase);
  }
}

/* ------------------------------------------------ attributes vs. the table */

static void attribute_may_not_shadow_a_key_attribute(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'PK':'string'"),
                     "entities.Thing.attributes.PK",
                     "'PK' is the table's partition key; ddbst writes it");
  EXPECT_MODEL_ERROR(with_attrs("'SK':'string'"),
                     "entities.Thing.attributes.SK",
                     "'SK' is the table's sort key");
  EXPECT_MODEL_ERROR(with_attrs("'GSI1PK':'string'"),
                     "entities.Thing.attributes.GSI1PK",
                     "'GSI1PK' is the table's index key attribute");
  EXPECT_MODEL_ERROR(with_attrs("'GSI1SK':'string'"),
                     "entities.Thing.attributes.GSI1SK", "index key attribute");
  EXPECT_MODEL_ERROR(with_attrs("'_type':'string'"),
                     "entities.Thing.attributes._type",
                     "'_type' is the table's entity attribute");
}

/* Was a bug: the version attribute and the automatic timestamps are added by
 * implicit_attr (model_load.c), which never calls check_not_key_attr: a
 * model with "version": "PK" or "timestamps": {"createdAt": "SK"} loads, and
 * writing the item would overwrite the key with a number or a time. */
static void
implicit_attribute_may_not_shadow_a_key_attribute(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'version':'PK',"),
                     "entities.Org.version", "partition key");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'Org':{", "'Org':{'timestamps':{'createdAt':'GSI1SK'},"),
      "entities.Org.timestamps", "index key attribute");
}

static void ttl_attribute_type(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(with_attrs("'expiresAt':'timestamp'"),
                     "entities.Thing.attributes.expiresAt",
                     "'expiresAt' is the table's TTL attribute: declare it as "
                     "ttl or integer");
  EXPECT_MODEL_ERROR(with_attrs("'expiresAt':'string'"),
                     "entities.Thing.attributes.expiresAt",
                     "the table's TTL attribute");
  loads(with_attrs("'expiresAt':'ttl'"));
  loads(with_attrs("'expiresAt':'integer'"));
}

/* -------------------------------------------------------------- templates */

static void template_errors(void **state) {
  (void)state;
  static const char attrs[] =
      "'a':'string','b':'string','m':'map','i':{'type':'integer','width':3}";
  static const struct {
    const char *pk, *phrase;
  } cases[] = {
      {"'T#{zz}'",
       "facet 'zz' is not an attribute of the entity; declare it under "
       "attributes"},
      {"'T#{m}'", "facet 'm' is of type map, which cannot be part of a key"},
      {"'T#{a}{b}'", "facet 'a' must be followed by the delimiter '#'"},
      {"'T#{a}X'", "facet 'a' must be followed by the delimiter '#' or end"},
      {"'T#{a'", "'{' at offset 2 has no matching '}'"},
      {"'T}#{a}'", "'}' at offset 1 has no matching '{'"},
      {"'T#{a:upper}'", "unknown facet modifier 'upper' (the only one is "
                        "'lower')"},
      {"''", "a key template may not be empty"},
      {"'T#{}'", "empty or malformed facet at offset 2"},
      {"'T#{:lower}'", "empty or malformed facet"},
      {"7", "expected a key template string, found a number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char key[128];
    FMT(key, "'pk':%s,'sk':'T'", cases[i].pk);
    EXPECT_MODEL_ERROR(one_entity(attrs, key), "entities.Thing.key.pk",
                       cases[i].phrase);
  }
  loads(one_entity(attrs, "'pk':'T#{a:lower}#{i}','sk':'{b}'"));
}

static void at_most_16_facets(void **state) {
  (void)state;
  char attrs[2048] = "", tmpl[2048] = "";
  size_t ua = 0, ut = 0;
  for (int i = 0; i < 17; i++) {
    ua += (size_t)snprintf(attrs + ua, sizeof attrs - ua, "%s'f%d':'string'",
                           i ? "," : "", i);
    ut += (size_t)snprintf(tmpl + ut, sizeof tmpl - ut, "%s{f%d}", i ? "#" : "",
                           i);
  }
  char key[2200];
  FMT(key, "'pk':'%s','sk':'T'", tmpl);
  EXPECT_MODEL_ERROR(one_entity(attrs, key), "entities.Thing.key.pk",
                     "a key template holds at most 16 facets");
  /* 16 are fine. */
  *strstr(tmpl, "#{f16}") = '\0';
  FMT(key, "'pk':'%s','sk':'T'", tmpl);
  loads(one_entity(attrs, key));
}

static void sort_key_must_match_the_table(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(one_entity("'a':'string'", "'pk':'T#{a}'"),
                     "entities.Thing.key",
                     "'sk' is required: the table has a sort key");
  EXPECT_MODEL_ERROR(one_entity("'a':'string'", "'sk':'T'"),
                     "entities.Thing.key", "'pk' is required");
  EXPECT_MODEL_ERROR(
      "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK'},"
      "'entities':{'A':{'attributes':{'a':'string'},"
      "'key':{'pk':'A#{a}','sk':'A'}}}}",
      "entities.A.key.sk", "the table has no sort key");
  EXPECT_MODEL_ERROR(
      edit(BASE,
           "'Org':{'attributes':{'orgId':'string','name':'string'},"
           "'key':{'pk':'ORG#{orgId}','sk':'ORG'}}",
           "'Org':{'attributes':{'orgId':'string'}}"),
      "entities.Org.key", "'key' is required");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'Org':{'attributes':{'orgId':'string','name':'string'},",
           "'Org':{"),
      "entities.Org.attributes", "'attributes' is required");
}

/* -------------------------------------------------------- entity indexes */

static void entity_index_keys(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'pk':'EMAIL#{email:lower}'",
                          "'pk':'EMAIL#{email:lower}','sk':'X'"),
                     "entities.User.indexes.GSI2.sk",
                     "index GSI2 has no sort key");
  EXPECT_MODEL_ERROR(edit(BASE, "'pk':'STATUS#{status}','sk':'{userId}'",
                          "'pk':'STATUS#{status}'"),
                     "entities.User.indexes.GSI1",
                     "'sk' is required: index GSI1 has a sort key");
  EXPECT_MODEL_ERROR(edit(BASE, "'GSI2':{'pk':'EMAIL", "'GSI9':{'pk':'EMAIL"),
                     "entities.User.indexes.GSI9",
                     "entity User is keyed on index GSI9, which the table "
                     "does not declare");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'pk':'EMAIL#{email:lower}'", "'pk':'EMAIL#{mail}'"),
      "entities.User.indexes.GSI2.pk", "facet 'mail' is not an attribute");
}

static void when_conditions(void **state) {
  (void)state;
  static const char from[] = "'pk':'STATUS#{status}','sk':'{userId}'";
  loads(edit(BASE, from,
             "'pk':'ORG#{orgId}','sk':'{userId}','when':{'status':'active'}"));
  loads(edit(BASE, from,
             "'pk':'ORG#{orgId}','sk':'{userId}','when':{'status':['active','"
             "banned']}"));
  EXPECT_MODEL_ERROR(
      edit(BASE, from,
           "'pk':'ORG#{orgId}','sk':'{userId}','when':{'state':'active'}"),
      "entities.User.indexes.GSI1.when.state",
      "'state' is not an attribute of User");
  EXPECT_MODEL_ERROR(
      edit(BASE, from,
           "'pk':'ORG#{orgId}','sk':'{userId}','when':{'status':'gone'}"),
      "entities.User.indexes.GSI1.when.status",
      "not a valid enum: 'gone' is not one of the enum's values");
  EXPECT_MODEL_ERROR(
      edit(BASE, from,
           "'pk':'ORG#{orgId}','sk':'{userId}','when':{'status':[]}"),
      "entities.User.indexes.GSI1.when.status", "give at least one value");
  EXPECT_MODEL_ERROR(
      edit(BASE, from,
           "'pk':'ORG#{orgId}','sk':'{userId}','when':{'expiresAt':'soon'}"),
      "entities.User.indexes.GSI1.when.expiresAt",
      "a ttl attribute does not take a string");
  EXPECT_MODEL_ERROR(
      edit(BASE, from, "'pk':'ORG#{orgId}','sk':'{userId}','when':['status']"),
      "entities.User.indexes.GSI1.when",
      "expected an object of attribute: value");
}

static void unique_constraints(void **state) {
  (void)state;
  static const char from[] = "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},";
  loads(edit(BASE, from,
             "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
             "'unique':{'email':'EMAIL#{email:lower}'},"));
  EXPECT_MODEL_ERROR(edit(BASE, from,
                          "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
                          "'unique':{'email':'EMAIL'},"),
                     "entities.User.unique.email",
                     "a unique constraint's template needs a facet");
  EXPECT_MODEL_ERROR(edit(BASE, from,
                          "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
                          "'unique':{'email':'EMAIL#{mail}'},"),
                     "entities.User.unique.email",
                     "facet 'mail' is not an attribute");
}

/* ------------------------------------------- version and timestamps */

static void version_attribute(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'version':'name',"),
                     "entities.Org.version",
                     "'name' must be declared as integer");
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'version':'1v',"),
                     "entities.Org.version", "expected an attribute name");
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'version':true,"),
                     "entities.Org.version", "expected an attribute name");

  /* Implicit: appended after the declared attributes. */
  ddbst_model *m =
      load_text(q(edit(BASE, "'Org':{", "'Org':{'version':'rev',")));
  int org = ddbst_model_entity(m, "Org");
  assert_int_equal(ddbst_model_attribute_count(m, org), 3);
  assert_int_equal(ddbst_model_attribute(m, org, "rev"), 2);
  assert_string_equal(ddbst_model_attribute_type(m, org, 2), "integer");
  ddbst_model_free(m);

  /* Declared: used as it is, nothing added. */
  m = load_text(q(edit(BASE, "'Org':{'attributes':{'orgId':'string',",
                       "'Org':{'version':'rev','attributes':{'orgId':'string',"
                       "'rev':'integer',")));
  org = ddbst_model_entity(m, "Org");
  assert_int_equal(ddbst_model_attribute_count(m, org), 3);
  assert_int_equal(ddbst_model_attribute(m, org, "rev"), 1);
  ddbst_model_free(m);
}

static void automatic_timestamps(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      q(edit(BASE, "'Org':{", "'Org':{'timestamps':true,'version':'v',")));
  int org = ddbst_model_entity(m, "Org");
  assert_int_equal(ddbst_model_attribute_count(m, org), 5);
  static const char *const names[] = {"orgId", "name", "v", "createdAt",
                                      "updatedAt"};
  static const char *const types[] = {"string", "string", "integer",
                                      "timestamp", "timestamp"};
  for (int i = 0; i < 5; i++) {
    assert_string_equal(ddbst_model_attribute_name(m, org, i), names[i]);
    assert_string_equal(ddbst_model_attribute_type(m, org, i), types[i]);
  }
  /* Filled by apply_defaults, at millisecond precision. */
  ddbst_item *it = ddbst_item_new(m, org);
  ddbst_error e;
  assert_int_equal(ddbst_item_apply_defaults(it, 1767225600123456, &e), 0);
  const char *text;
  size_t len;
  assert_int_equal(ddbst_item_get(it, 3, &text, &len), 1);
  assert_string_equal(text, "2026-01-01T00:00:00.123Z");
  assert_int_equal(ddbst_item_get(it, 4, &text, &len), 1);
  assert_string_equal(text, "2026-01-01T00:00:00.123Z");
  assert_int_equal(ddbst_item_get(it, 2, &text, &len),
                   0); /* version: no default */
  ddbst_item_free(it);
  ddbst_model_free(m);

  /* Renamed, only one of them. */
  m = load_text(
      q(edit(BASE, "'Org':{", "'Org':{'timestamps':{'updatedAt':'touched'},")));
  org = ddbst_model_entity(m, "Org");
  assert_int_equal(ddbst_model_attribute_count(m, org), 3);
  assert_string_equal(ddbst_model_attribute_type(m, org, 2), "timestamp");
  assert_int_equal(ddbst_model_attribute(m, org, "createdAt"), DDBST_ENOTFOUND);
  ddbst_model_free(m);

  loads(edit(BASE, "'Org':{", "'Org':{'timestamps':false,"));
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org':{'timestamps':'yes',"),
                     "entities.Org.timestamps",
                     "expected true, or {\"createdAt\": name");
  EXPECT_MODEL_ERROR(
      edit(BASE, "'Org':{", "'Org':{'timestamps':{'createdAt':'name'},"),
      "entities.Org.timestamps", "'name' must be declared as timestamp");
}

/* -------------------------------------------------------- ambiguous keys */

static void keys_of_the_same_shape_are_refused(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(
      "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK'}"
      ","
      "'entities':{'Alpha':{'attributes':{'a':'string'},'key':{'pk':'X#{a}','"
      "sk':'S'}},"
      "'Beta':{'attributes':{'b':'integer'},'key':{'pk':'X#{b}','sk':'S'}}}}",
      "entities.Beta",
      "Alpha and Beta can have the same key in the table");
  EXPECT_MODEL_ERROR(
      "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
      "'indexes':{'GSI1':{'partitionKey':'G'}}},"
      "'entities':{'Alpha':{'attributes':{'a':'string'},'key':{'pk':'A#{a}','"
      "sk':'S'},"
      "'indexes':{'GSI1':{'pk':'E#{a}'}}},"
      "'Beta':{'attributes':{'b':'string'},'key':{'pk':'B#{b}','sk':'S'},"
      "'indexes':{'GSI1':{'pk':'E#{b}'}}}}}",
      "entities.Beta", "Alpha and Beta can have the same key in GSI1");
}

/* Was a bug: check_ambiguous_keys (load_overlap.c) only compared templates of
 * identical shape. A facet in one template can stand for a literal in the
 * other: Alpha's SK "{kind}#{a}" with kind = "USER" is Beta's "USER#{a}", so
 * `ddbst parse` reads Beta's key X#1 / USER#1 back as an Alpha. */
static void keys_that_overlap_are_refused(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(
      "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK'}"
      ","
      "'entities':{'Alpha':{'attributes':{'a':'string','kind':'string'},"
      "'key':{'pk':'X#{a}','sk':'{kind}#{a}'}},"
      "'Beta':{'attributes':{'a':'string'},'key':{'pk':'X#{a}','sk':'USER#{a}'}"
      "}}}",
      "entities.Beta", "Alpha and Beta");
}

/* --------------------------------------------------------------- patterns */

static const char PATTERNS[] =
    "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
    "'indexes':{'GSI1':{'partitionKey':'GSI1PK','sortKey':'GSI1SK'},"
    "'GSI2':{'partitionKey':'GSI2PK'}}},"
    "'entities':{"
    "'Org':{'attributes':{'orgId':'string'},'key':{'pk':'ORG#{orgId}','sk':'"
    "ORG'}},"
    "'User':{'attributes':{'orgId':'string','userId':'string','email':'string'}"
    ","
    "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
    "'indexes':{'GSI2':{'pk':'EMAIL#{email}'}}},"
    "'Log':{'attributes':{'day':'string','n':'string'},"
    "'key':{'pk':'LOG#{day}','sk':'N#{n}'}}},"
    "'patterns':{@}}";

/* PATTERNS with `p` as the patterns object's body. */
static const char *pattern(const char *p) { return edit(PATTERNS, "@", p); }

static void pattern_get_or_query(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(pattern("'p':{}"), "patterns.p",
                     "give exactly one of 'get' (an entity) or 'query'");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':'User','query':'User'}"), "patterns.p",
                     "give exactly one of 'get'");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':'Nope'}"), "patterns.p.get",
                     "'Nope' is not an entity of the model");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'Nope'}"), "patterns.p.query",
                     "'Nope' is not an entity of the model");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':['User']}"), "patterns.p.get",
                     "expected an entity name");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':7}"), "patterns.p.query",
                     "expected an entity name or a list of them");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':[]}"), "patterns.p.query",
                     "a collection lists at least one entity");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':'User','index':'GSI2'}"),
                     "patterns.p.index",
                     "GetItem reads only the table; query an index instead");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':'User','limit':{'max':1}}"),
                     "patterns.p",
                     "'range', 'order' and 'limit' apply to queries only");
  EXPECT_MODEL_ERROR(pattern("'p':{'get':'User','order':'desc'}"), "patterns.p",
                     "apply to queries only");
  EXPECT_MODEL_ERROR(edit(PATTERNS, "{@}", "[]"), "patterns",
                     "expected an object of access patterns, found an array");
  loads(edit(PATTERNS, ",'patterns':{@}", ""));
}

static void pattern_index(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','index':'GSI9'}"),
                     "patterns.p.index", "the table declares no index GSI9");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'Org','index':'GSI2'}"),
                     "patterns.p.index",
                     "pattern p queries index GSI2, but entity Org is not in "
                     "it (entities.Org.indexes)");
  loads(pattern("'p':{'query':'User','index':'GSI2'}"));
}

static void pattern_collections(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(pattern("'p':{'query':['Org','Log']}"), "patterns.p.query",
                     "a collection reads one partition, but Log's partition "
                     "key LOG#{day} differs from Org's ORG#{orgId}");
  ddbst_model *m = load_text(q(pattern("'p':{'query':['Org','User']}")));
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_model_patterns_json(m, b, NULL), 0);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"p\":{\"op\":\"query\",\"entities\":[\"Org\",\"User\"],"
      "\"index\":null,\"pk\":\"ORG#{orgId}\",\"sk\":\"ORG\","
      "\"order\":\"asc\"}}");
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

static void pattern_range(void **state) {
  (void)state;
  loads(pattern("'p':{'query':'User','range':'userId'}"));
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','range':'email'}"),
                     "patterns.p.range",
                     "'email' is not a facet of User's sort key USER#{userId}");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','range':'nope'}"),
                     "patterns.p.range", "'nope' is not a facet of User's");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':['Org','User'],'range':'userId'}"),
                     "patterns.p.range",
                     "a range applies to one entity's sort key, not a "
                     "collection");
  EXPECT_MODEL_ERROR(
      pattern("'p':{'query':'User','index':'GSI2','range':'email'}"),
      "patterns.p.range", "a key without a sort key has no range");
}

static void pattern_order_and_limit(void **state) {
  (void)state;
  loads(pattern(
      "'p':{'query':'User','order':'desc','limit':{'default':1,'max':1}}"));
  loads(pattern("'p':{'query':'User','order':'asc','limit':{'max':1000000}}"));
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','order':'up'}"),
                     "patterns.p.order", "expected \"asc\" or \"desc\"");
  EXPECT_MODEL_ERROR(
      pattern("'p':{'query':'User','limit':{'default':50,'max':10}}"),
      "patterns.p.limit", "the default limit 50 is above the maximum 10");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','limit':{'default':0}}"),
                     "patterns.p.limit.default",
                     "expected a whole number from 1 to 1000000");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','limit':{'max':0}}"),
                     "patterns.p.limit.max", "expected a whole number");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','limit':{'max':1000001}}"),
                     "patterns.p.limit.max", "expected a whole number");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','limit':{'default':2.5}}"),
                     "patterns.p.limit.default", "expected a whole number");
  EXPECT_MODEL_ERROR(pattern("'p':{'query':'User','limit':25}"),
                     "patterns.p.limit",
                     "expected {\"default\": n, \"max\": n}, found a number");
}

/* ----------------------------------------------------------------- names */

static void names_are_identifiers(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'Org x':{"), "entities.Org x",
                     "an entity name starts with a letter or '_'");
  EXPECT_MODEL_ERROR(edit(BASE, "'Org':{", "'9Org':{"), "entities.9Org",
                     "an entity name starts with a letter");
  EXPECT_MODEL_ERROR(with_attrs("'1b':'string'"),
                     "entities.Thing.attributes.1b",
                     "an attribute name starts with a letter or '_'");
  EXPECT_MODEL_ERROR(with_attrs("'b.c':'string'"),
                     "entities.Thing.attributes.b.c",
                     "an attribute name starts with a letter");
  EXPECT_MODEL_ERROR(edit(BASE, "'getUser':", "'get user':"),
                     "patterns.get user",
                     "a pattern name starts with a letter or '_'");
  loads(
      edit(edit(BASE, "'Org':{", "'_Org-2':{"), "'getUser':", "'get_user-2':"));
}

/* ---------------------------------------------------- every error at once */

static const char ALL_WRONG[] =
    "{'ddbst':2,'extra':1,"
    "'table':{'name':'x','partitionKey':'','sortKey':5,'delimiter':'-',"
    "'stream':true,'entityAttribute':'1x','ttlAttribute':'2y','rcu':1,"
    "'indexes':{'G':{'partitionKey':'','projection':'NONE','hash':1}}},"
    "'entities':{'bad entity':{'attributes':{'1a':'float','b':{'type':'enum'},"
    "'c':{'type':'string','width':3},'d':{'type':'map','default':'{}'}},"
    "'key':{'pk':'','sk':'{zz}','gsi':1},'indexes':{'GSI9':{'pk':'x'}},"
    "'unique':{'u':'CONST'},'version':'b','timestamps':'yes','owner':1}},"
    "'patterns':{'bad pattern':{'get':'Nope','query':'Nope'},"
    "'p2':{'query':'Nope','order':'up','limit':{'default':0}}}}";

typedef struct collected {
  int count;
  ddbst_error first;
} collected;

static void collect(void *user, const ddbst_error *e) {
  collected *c = user;
  if (c->count++ == 0) c->first = *e;
}

static void on_error_receives_every_error(void **state) {
  (void)state;
  const char *text = q(ALL_WRONG);
  collected c;
  memset(&c, 0, sizeof c);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.on_error = collect;
  o.on_error_user = &c;
  ddbst_model *m = NULL;
  ddbst_error e;
  assert_int_equal(ddbst_model_load(text, strlen(text), &o, &m, &e),
                   DDBST_EMODEL);
  assert_null(m);
  assert_true(c.count > 10);
  /* The first error the callback saw is the one `err` holds. */
  assert_int_equal(c.first.code, e.code);
  assert_string_equal(c.first.path, e.path);
  assert_string_equal(c.first.message, e.message);
  assert_int_equal(c.first.line, e.line);
  assert_int_equal(c.first.column, e.column);
  assert_int_equal(c.first.offset, e.offset);
  /* In document order: the root's unknown field comes first. */
  assert_string_equal(e.path, "extra");

  /* Without the callback, the same first error. */
  ddbst_error e2;
  assert_int_equal(load_fails(text, &e2), DDBST_EMODEL);
  assert_string_equal(e2.path, e.path);
  assert_string_equal(e2.message, e.message);

  /* A syntax error reaches the callback too. */
  memset(&c, 0, sizeof c);
  assert_int_equal(ddbst_model_load("{", 1, &o, &m, &e), DDBST_ESYNTAX);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.first.message, e.message);
}

/* Was a bug: ddbst_model_load (model_load.c, after ddbst__jtree_parse fails) calls
 * on_error only when `err` is not NULL, so a caller that passes err = NULL
 * and relies on the callback never hears about a syntax error. Model errors
 * reach the callback either way. */
static void on_error_hears_syntax_errors_without_err(void **state) {
  (void)state;
  collected c;
  memset(&c, 0, sizeof c);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.on_error = collect;
  o.on_error_user = &c;
  ddbst_model *m = NULL;
  assert_int_equal(ddbst_model_load("{", 1, &o, &m, NULL), DDBST_ESYNTAX);
  assert_int_equal(c.count, 1);
  assert_int_equal(c.first.code, DDBST_ESYNTAX);
}

static void load_arguments(void **state) {
  (void)state;
  ddbst_model *m = NULL;
  ddbst_error e;
  assert_int_equal(ddbst_model_load("{}", 2, NULL, NULL, &e), DDBST_EINVAL);
  assert_int_equal(ddbst_model_load(NULL, 3, NULL, &m, &e), DDBST_EINVAL);
  ddbst_load_options o;
  memset(&o, 0, sizeof o); /* size not set */
  assert_int_equal(ddbst_model_load("{}", 2, &o, &m, &e), DDBST_EINVAL);
  assert_non_null(strstr(e.message, "size"));
  /* Not NUL-terminated: only `len` bytes are read. */
  const char *text = q(BASE);
  size_t n = strlen(text);
  char *copy = malloc(n);
  assert_non_null(copy);
  memcpy(copy, text, n);
  assert_int_equal(ddbst_model_load(copy, n, NULL, &m, &e), 0);
  ddbst_model_free(m);
  free(copy);
  assert_int_equal(
      ddbst_model_load_file("/nonexistent/model.json", NULL, &m, &e),
      DDBST_EIO);
  assert_null(m);
}

/* ---------------------------------------------------------------- examples */

static void assert_names(const ddbst_model *m, int entity,
                         const char *const *names, const char *const *types,
                         int n) {
  assert_int_equal(ddbst_model_attribute_count(m, entity), n);
  for (int i = 0; i < n; i++) {
    assert_string_equal(ddbst_model_attribute_name(m, entity, i), names[i]);
    assert_string_equal(ddbst_model_attribute_type(m, entity, i), types[i]);
  }
}

static void saas_example_loads(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  assert_string_equal(ddbst_model_table_name(m), "saas-api-dev");
  static const char *const entities[] = {"Organisation", "User", "Project",
                                         "Event"};
  assert_int_equal(ddbst_model_entity_count(m), 4);
  for (int i = 0; i < 4; i++) {
    assert_string_equal(ddbst_model_entity_name(m, i), entities[i]);
    assert_int_equal(ddbst_model_entity(m, entities[i]), i);
  }
  assert_int_equal(ddbst_model_entity(m, "Nope"), DDBST_ENOTFOUND);
  assert_null(ddbst_model_entity_name(m, 4));

  static const char *const org[] = {"orgId", "name", "plan", "createdAt"};
  static const char *const org_t[] = {"string", "string", "string",
                                      "timestamp"};
  assert_names(m, 0, org, org_t, 4);
  static const char *const user[] = {"orgId", "userId", "email", "role",
                                     "name"};
  static const char *const user_t[] = {"string", "string", "string", "string",
                                       "string"};
  assert_names(m, 1, user, user_t, 5);
  static const char *const project[] = {"orgId", "projectId", "createdAt",
                                        "name", "status"};
  static const char *const project_t[] = {"string", "string", "timestamp",
                                          "string", "enum"};
  assert_names(m, 2, project, project_t, 5);
  static const char *const event[] = {"projectId", "ts",      "eventId",
                                      "type",      "payload", "expiresAt"};
  static const char *const event_t[] = {"string", "timestamp", "ulid",
                                        "string", "map",       "ttl"};
  assert_names(m, 3, event, event_t, 6);
  assert_int_equal(ddbst_model_attribute(m, 1, "email"), 2);
  assert_int_equal(ddbst_model_attribute(m, 1, "nope"), DDBST_ENOTFOUND);

  static const char *const patterns[] = {
      "getOrganisation", "getUser",    "listUsers",       "userByEmail",
      "listProjects",    "listEvents", "projectsByStatus"};
  assert_int_equal(ddbst_model_pattern_count(m), 7);
  for (int i = 0; i < 7; i++) {
    assert_string_equal(ddbst_model_pattern_name(m, i), patterns[i]);
    assert_int_equal(ddbst_model_pattern(m, patterns[i]), i);
  }
  assert_int_equal(ddbst_model_pattern(m, "nope"), DDBST_ENOTFOUND);
  ddbst_model_free(m);
}

static void blog_example_loads(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/blog/model.json");
  assert_string_equal(ddbst_model_table_name(m), "site-content");
  assert_int_equal(ddbst_model_entity_count(m), 2);
  assert_string_equal(ddbst_model_entity_name(m, 0), "Blog");
  assert_string_equal(ddbst_model_entity_name(m, 1), "Service");

  /* Blog declares ten attributes; version and updatedAt are implicit. */
  static const char *const blog[] = {
      "blogId", "slug",   "title",       "summary",   "body",    "category",
      "tags",   "status", "publishedAt", "createdAt", "version", "updatedAt"};
  static const char *const blog_t[] = {
      "ulid",       "string", "string",    "string",    "string",  "string",
      "string_set", "enum",   "timestamp", "timestamp", "integer", "timestamp"};
  assert_names(m, 0, blog, blog_t, 12);
  static const char *const service[] = {"serviceId", "slug",     "name",
                                        "summary",   "position", "createdAt"};
  static const char *const service_t[] = {"ulid",   "string",  "string",
                                          "string", "integer", "timestamp"};
  assert_names(m, 1, service, service_t, 6);

  static const char *const patterns[] = {
      "getBlog",    "listBlogs",    "blogBySlug",   "publishedInCategory",
      "getService", "listServices", "serviceBySlug"};
  assert_int_equal(ddbst_model_pattern_count(m), 7);
  for (int i = 0; i < 7; i++)
    assert_string_equal(ddbst_model_pattern_name(m, i), patterns[i]);
  ddbst_model_free(m);
}

/* A model is read from the caller's memory and nothing past `len`: each
 * file, copied to end right at a PROT_NONE page, loads, and the model
 * holds nothing of it; every shorter prefix is refused, never read past.
 * The third file has what the examples lack: UTF-8 and escapes, numbers
 * and literals at the very end. */
static void model_files_end_at_a_guard_page(void **state) {
  (void)state;
  static const char edges[] =
      "{'ddbst':1,'description':'caf\xc3\xa9 \\u00e9\\n\\ud83d\\ude00',"
      "'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
      "'stream':false},"
      "'entities':{'Cafe':{'description':'\xe2\x82\xac',"
      "'attributes':{'n':{'type':'integer','width':3,'default':7},"
      "'ok':{'type':'boolean','default':true},'t':'string'},"
      "'key':{'pk':'CAF\xc3\x89#{t}','sk':'N#{n}'}}},"
      "'patterns':{'all':{'query':'Cafe','limit':{'max':1000}}}}";
  const char *texts[3];
  size_t lens[3];
  char *files[2];
  files[0] = read_source("examples/saas/model.json", &lens[0]);
  files[1] = read_source("examples/blog/model.json", &lens[1]);
  texts[0] = files[0];
  texts[1] = files[1];
  texts[2] = q(edges);
  lens[2] = strlen(texts[2]);
  for (int f = 0; f < 3; f++) {
    size_t n = lens[f];
    ddbst_model *m = NULL, *ref = NULL;
    ddbst_error err;
    if (ddbst_model_load(texts[f], n, NULL, &ref, &err))
      fail_msg("file %d: %s: %s", f, err.path, err.message);
    char *at = guard_copy(texts[f], n);
    assert_int_equal(ddbst_model_load(at, n, NULL, &m, &err), 0);
    memset(at, 'x', n); /* the model holds nothing of its text */
    guard_free(at);
    ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
    assert_int_equal(ddbst_model_patterns_json(m, a, NULL), 0);
    assert_int_equal(ddbst_model_patterns_json(ref, b, NULL), 0);
    assert_string_equal(ddbst_buf_data(a), ddbst_buf_data(b));
    ddbst_buf_free(a);
    ddbst_buf_free(b);
    ddbst_model_free(m);
    ddbst_model_free(ref);
    for (size_t len = 0; len < n; len++) {
      at = guard_copy(texts[f], len);
      m = NULL;
      int rc = ddbst_model_load(at, len, NULL, &m, &err);
      guard_free(at);
      if (rc >= 0 || m)
        fail_msg("file %d cut at %zu of %zu: loaded (%d)", f, len, n, rc);
      assert_true(err.offset <= len);
    }
  }
  free(files[0]);
  free(files[1]);
}

static void saas_patterns_json(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(b);
  ddbst_error e;
  assert_int_equal(ddbst_model_patterns_json(m, b, &e), 0);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"getOrganisation\":{\"op\":\"get\",\"entities\":[\"Organisation\"],"
      "\"index\":null,\"pk\":\"ORG#{orgId}\",\"sk\":\"ORG#{orgId}\"},"
      "\"getUser\":{\"op\":\"get\",\"entities\":[\"User\"],\"index\":null,"
      "\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#{userId}\"},"
      "\"listUsers\":{\"op\":\"query\",\"entities\":[\"User\"],\"index\":null,"
      "\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#{userId}\",\"order\":\"asc\","
      "\"limit\":{\"default\":25,\"max\":100}},"
      "\"userByEmail\":{\"op\":\"query\",\"entities\":[\"User\"],"
      "\"index\":\"GSI1\",\"pk\":\"EMAIL#{email:lower}\",\"order\":\"asc\","
      "\"limit\":{\"default\":1,\"max\":1}},"
      "\"listProjects\":{\"op\":\"query\",\"entities\":[\"Project\"],"
      "\"index\":null,\"pk\":\"ORG#{orgId}\","
      "\"sk\":\"PROJECT#{createdAt}#{projectId}\",\"order\":\"desc\","
      "\"limit\":{\"default\":25,\"max\":100}},"
      "\"listEvents\":{\"op\":\"query\",\"entities\":[\"Event\"],"
      "\"index\":null,\"pk\":\"PROJECT#{projectId}\","
      "\"sk\":\"EVENT#{ts}#{eventId}\",\"range\":\"ts\",\"order\":\"asc\","
      "\"limit\":{\"default\":100,\"max\":1000}},"
      "\"projectsByStatus\":{\"op\":\"query\",\"entities\":[\"Project\"],"
      "\"index\":\"GSI2\",\"pk\":\"STATUS#{status}\",\"sk\":\"{createdAt}\","
      "\"order\":\"desc\",\"limit\":{\"default\":25,\"max\":100}}}");
  /* Replaces: a second call writes the same text again, alone. */
  size_t once = ddbst_buf_len(b);
  char *first = strdup(ddbst_buf_data(b));
  assert_int_equal(ddbst_model_patterns_json(m, b, &e), 0);
  assert_int_equal(ddbst_buf_len(b), once);
  assert_string_equal(ddbst_buf_data(b), first);
  free(first);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* ------------------------------------------------------- allocation failure */

/* YAJL 2.1 dereferences the NULL its allocator returns (yajl_alloc, its byte
 * stack and buffers), so failing one of YAJL's own allocations crashes inside
 * YAJL. The loop below therefore fails every allocation except those YAJL
 * requests itself; yajl_allocations_crash (a BUG test) is the loop without
 * that exception.
 *
 * YAJL's own requests are told apart by the stack: between our hook and the
 * innermost libyajl frame sit only ddbst__malloc/ddbst__realloc and
 * json_tree.c's y_malloc/y_realloc, whereas ddbst's own allocations during a
 * parse come from its callbacks, further away. The depth is learnt from the
 * first allocation made with YAJL on the stack: that one is in yajl_alloc,
 * which runs no callbacks. */
typedef struct oom_alloc {
  counting_alloc c;
  ddbst_allocator hooks;
  int learn;      /* calibration run: note where YAJL sits */
  int spare_yajl; /* let YAJL's allocations through */
  int spared;     /* this run's Nth allocation was YAJL's */
} oom_alloc;

static int yajl_depth = -1; /* frames from the check to YAJL; -1: unknown */

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* The index of the innermost libyajl frame on the stack, or -1. */
static NOINLINE int yajl_frame(void) {
#if HAVE_BACKTRACE
  void *frames[64];
  int n = backtrace(frames, 64);
  for (int i = 0; i < n; i++) {
    Dl_info info;
    if (dladdr(frames[i], &info) && info.dli_fname &&
        strstr(info.dli_fname, "libyajl"))
      return i;
  }
#endif
  return -1;
}

static NOINLINE void before_alloc(oom_alloc *o) {
  if (o->learn) {
    if (yajl_depth < 0) yajl_depth = yajl_frame();
    return;
  }
  if (o->spare_yajl && o->c.fail_at && o->c.calls + 1 == o->c.fail_at &&
      yajl_depth >= 0 && yajl_frame() == yajl_depth) {
    o->c.fail_at = 0;
    o->spared = 1;
  }
}
static NOINLINE void *oom_malloc(void *user, size_t n) {
  oom_alloc *o = user;
  before_alloc(o);
  return o->c.hooks.malloc(o->c.hooks.user, n);
}
static NOINLINE void *oom_realloc(void *user, void *p, size_t n) {
  oom_alloc *o = user;
  before_alloc(o);
  return o->c.hooks.realloc(o->c.hooks.user, p, n);
}
static void oom_free(void *user, void *p) {
  oom_alloc *o = user;
  o->c.hooks.free(o->c.hooks.user, p);
}

static int oom_load(oom_alloc *o, const char *text, ddbst_model **m,
                    ddbst_error *e) {
  o->hooks.malloc = oom_malloc;
  o->hooks.realloc = oom_realloc;
  o->hooks.free = oom_free;
  o->hooks.user = o;
  ddbst_load_options opts;
  memset(&opts, 0, sizeof opts);
  opts.size = sizeof opts;
  opts.allocator = &o->hooks;
  return ddbst_model_load(text, strlen(text), &opts, m, e);
}

/* Fails allocation N = 1, 2, ... of loading `text` until a load succeeds
 * with no failure injected. Every failed run must be DDBST_ENOMEM with *out
 * NULL and nothing left allocated. Returns how many runs spared YAJL. */
static long oom_loop(const char *text, int spare_yajl, long *failed_runs) {
  long spared = 0;
  *failed_runs = 0;
  if (spare_yajl && yajl_depth < 0) {
    oom_alloc cal;
    memset(&cal, 0, sizeof cal);
    counting_alloc_init(&cal.c);
    cal.learn = 1;
    ddbst_model *m = NULL;
    ddbst_error e;
    assert_int_equal(oom_load(&cal, text, &m, &e), 0);
    ddbst_model_free(m);
    if (yajl_depth < 0) fail_msg("could not find YAJL's frames on the stack");
  }
  for (long n = 1; n < 100000; n++) {
    oom_alloc o;
    memset(&o, 0, sizeof o);
    counting_alloc_init(&o.c);
    o.c.fail_at = n;
    o.spare_yajl = spare_yajl;
    ddbst_model *m = (ddbst_model *)&o; /* must be overwritten */
    ddbst_error e;
    int rc = oom_load(&o, text, &m, &e);
    if (rc == 0) {
      assert_non_null(m);
      ddbst_model_free(m);
      assert_int_equal(o.c.live, 0);
      if (o.spared) {
        spared++;
        continue;
      }
      return spared;
    }
    if (rc != DDBST_ENOMEM)
      fail_msg("allocation %ld failed: expected DDBST_ENOMEM, got %d (%s: %s)",
               n, rc, e.path, e.message);
    assert_int_equal(e.code, DDBST_ENOMEM);
    assert_null(m);
    if (o.c.live != 0)
      fail_msg("allocation %ld failed: %ld blocks leaked", n, o.c.live);
    (*failed_runs)++;
  }
  fail_msg("the load never succeeded");
  return spared;
}

static char *read_example(const char *rel) {
  char path[1024];
  FMT(path, "%s/%s", DDBST_SOURCE_DIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

static void allocation_failure_saas(void **state) {
  (void)state;
  long failed = 0;
  /* json/read.c reads a well-formed model (YAJL only tells what is wrong
   * with a malformed one): no allocation is spared. */
  long spared = oom_loop(read_example("examples/saas/model.json"), 0, &failed);
  print_message("%ld allocation failures handled\n", failed);
  assert_int_equal(spared, 0);
  /* the tree's levels keep their arrays and the compile steps allocate in
   * the arena: the load made 39 allocations when this was written */
  assert_true(failed > 30);
}

/* Was a bug (YAJL): the same loop without sparing YAJL crashes: yajl_alloc and
 * yajl_parse (Debian's 2.1.0-3+deb12u2) dereference a NULL allocation at
 * N = 2..6 and once more later in the parse (N = 138 for the SaaS model).
 * json_tree.c now runs YAJL in a session that turns a failed allocation into
 * DDBST_ENOMEM, so every N fails cleanly. */
static void yajl_allocations_crash(void **state) {
  (void)state;
  long failed = 0;
  oom_loop(read_example("examples/saas/model.json"), 0, &failed);
}

/* Was a bug: when an arena allocation fails in the middle of an entity, the loader
 * records nomem and carries on with a NULL attribute name; compiling the key
 * template then calls strlen(NULL) in find_attr (src/template.c:12) and
 * crashes (attr_index in model_load.c would strcmp it too). Seen with entities
 * large enough that an attribute name's copy opens a new 8 KB arena block. */
static void allocation_failure_large_model(void **state) {
  (void)state;
  static char text[SLOT];
  size_t used = (size_t)snprintf(
      text, sizeof text,
      "{\"ddbst\":1,\"table\":{\"name\":\"abc\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\"},\"entities\":{");
  for (int e = 0; e < 3; e++) {
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "%s\"E%d\":{\"attributes\":{", e ? "," : "", e);
    for (int a = 0; a < 300; a++)
      used +=
          (size_t)snprintf(text + used, sizeof text - used,
                           "%s\"attribute%03d\":\"string\"", a ? "," : "", a);
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "},\"key\":{\"pk\":\"E%d#{attribute000}\","
                             "\"sk\":\"{attribute001}#{attribute299}\"}}",
                             e);
  }
  if (used + 3 > sizeof text) fail_msg("model too long");
  memcpy(text + used, "}}", 3);
  long failed = 0;
  oom_loop(text, 0, &failed);
}


/* A query on an index filters only on what the index projects: DynamoDB
 * refuses a filter on anything else, so neither the entity type filter
 * nor a declared one may name an attribute a KEYS_ONLY or INCLUDE index
 * leaves out. */
#define PROJECTED_MODEL(projection, patterns)                                  \
  "{'ddbst':1,'table':{'name':'things','partitionKey':'PK','sortKey':'SK',"    \
  "'entityAttribute':'_type','indexes':{'GSI1':{'partitionKey':'G1PK',"       \
  "'sortKey':'G1SK','projection':" projection "}}},'entities':{"              \
  "'Task':{'attributes':{'id':'string','list':'string'},'key':{'pk':'T#{id}'," \
  "'sk':'T'},'indexes':{'GSI1':{'pk':'L#{list}','sk':'I#{id}'}}},"            \
  "'Note':{'attributes':{'id':'string','list':'string'},'key':{'pk':'N#{id}',"  \
  "'sk':'N'},'indexes':{'GSI1':{'pk':'L#{list}','sk':'I#N#{id}'}}}},"         \
  "'patterns':{" patterns "}}"

static void index_filters_read_what_it_projects(void **state) {
  (void)state;
  EXPECT_MODEL_ERROR(
      PROJECTED_MODEL("'KEYS_ONLY'",
                      "'itemsOfList':{'query':'Task','index':'GSI1'}"),
      "patterns.itemsOfList",
      "itemsOfList reads index GSI1, which does not project _type "
      "(KEYS_ONLY): DynamoDB refuses the filter on it that keeps Note items "
      "out of its range; add _type to the index's projection");
  EXPECT_MODEL_ERROR(
      PROJECTED_MODEL("['list']",
                      "'itemsOfList':{'query':'Task','index':'GSI1'}"),
      "patterns.itemsOfList", "(not in its INCLUDE list)");
  loads(PROJECTED_MODEL("['_type']",
                        "'itemsOfList':{'query':'Task','index':'GSI1'}"));
  EXPECT_MODEL_ERROR(
      PROJECTED_MODEL("['_type']", "'notesOfList':{'query':'Note','index':"
                                   "'GSI1','filter':{'list':'x'}}"),
      "patterns.notesOfList",
      "notesOfList reads index GSI1, which does not project list (not in its "
      "INCLUDE list): DynamoDB refuses the filter on it that the pattern "
      "declares; add list to the index's projection");
  loads(PROJECTED_MODEL("'ALL'", "'notesOfList':{'query':'Note','index':"
                                 "'GSI1','filter':{'list':'x'}}"));
}

int main(void) {
#if HAVE_BACKTRACE
  { /* backtrace() loads libgcc_s on first use: do it outside any test. */
    void *warm[2];
    backtrace(warm, 2);
  }
#endif
  /* clang-format off */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(base_model_loads),
      cmocka_unit_test(malformed_json_gives_line_and_column),
      cmocka_unit_test(duplicate_key_is_a_syntax_error),
      cmocka_unit_test(nul_in_a_string_or_name_is_refused),
      cmocka_unit_test(nesting_deeper_than_64_is_refused),
      cmocka_unit_test(format_version_is_required_and_checked),
      cmocka_unit_test(format_version_as_string_says_so),
      cmocka_unit_test(root_must_be_an_object_with_table_and_entities),
      cmocka_unit_test(unknown_fields_are_errors_everywhere),
      cmocka_unit_test(description_is_allowed_where_documented),
      cmocka_unit_test(table_name_and_partition_key_are_required),
      cmocka_unit_test(table_name_is_checked),
      cmocka_unit_test(table_name_can_be_overridden_at_load),
      cmocka_unit_test(delimiter_is_checked),
      cmocka_unit_test(custom_delimiter_is_used_in_keys),
      cmocka_unit_test(stream_values),
      cmocka_unit_test(projection_forms),
      cmocka_unit_test(index_names_and_keys_are_checked),
      cmocka_unit_test(key_attribute_names_have_one_role),
      cmocka_unit_test(index_key_attributes_are_not_shared),
      cmocka_unit_test(at_most_20_indexes),
      cmocka_unit_test(attribute_types),
      cmocka_unit_test(unknown_attribute_type),
      cmocka_unit_test(enum_values_are_checked),
      cmocka_unit_test(options_only_some_types_take),
      cmocka_unit_test(precision_width_and_negative_values),
      cmocka_unit_test(defaults_are_canonical_values),
      cmocka_unit_test(now_and_generate_defaults),
      cmocka_unit_test(invalid_defaults),
      cmocka_unit_test(now_and_generate_belong_to_their_types),
      cmocka_unit_test(containers_take_no_default),
      cmocka_unit_test(attribute_may_not_shadow_a_key_attribute),
      cmocka_unit_test(implicit_attribute_may_not_shadow_a_key_attribute),
      cmocka_unit_test(ttl_attribute_type),
      cmocka_unit_test(template_errors),
      cmocka_unit_test(at_most_16_facets),
      cmocka_unit_test(sort_key_must_match_the_table),
      cmocka_unit_test(entity_index_keys),
      cmocka_unit_test(when_conditions),
      cmocka_unit_test(unique_constraints),
      cmocka_unit_test(version_attribute),
      cmocka_unit_test(automatic_timestamps),
      cmocka_unit_test(keys_of_the_same_shape_are_refused),
      cmocka_unit_test(keys_that_overlap_are_refused),
      cmocka_unit_test(pattern_get_or_query),
      cmocka_unit_test(pattern_index),
      cmocka_unit_test(pattern_collections),
      cmocka_unit_test(pattern_range),
      cmocka_unit_test(pattern_order_and_limit),
      cmocka_unit_test(names_are_identifiers),
      cmocka_unit_test(on_error_receives_every_error),
      cmocka_unit_test(on_error_hears_syntax_errors_without_err),
      cmocka_unit_test(load_arguments),
      cmocka_unit_test(saas_example_loads),
      cmocka_unit_test(model_files_end_at_a_guard_page),
      cmocka_unit_test(blog_example_loads),
      cmocka_unit_test(saas_patterns_json),
      cmocka_unit_test(index_filters_read_what_it_projects),
      cmocka_unit_test(allocation_failure_saas),
      cmocka_unit_test(yajl_allocations_crash),
      cmocka_unit_test(allocation_failure_large_model),
  };
  /* clang-format on */
  return cmocka_run_group_tests(tests, NULL, NULL);
}
