/* The key engine: exact key strings for every entity of both examples,
 * injection and length refusals, sparse indexes, and key → entity. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "support.h"

static ddbst_model *saas, *blog;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  blog = load_example("examples/blog/model.json");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst_model_free(saas);
  ddbst_model_free(blog);
  return 0;
}

static ddbst_item *item_of(ddbst_model *m, const char *entity) {
  int e = ddbst_model_entity(m, entity);
  assert_true(e >= 0);
  ddbst_item *it = ddbst_item_new(m, e);
  assert_non_null(it);
  return it;
}

/* The item's keys as JSON, or the error's "path: message". */
static char *keys_of(ddbst_item *it) {
  static char out[4096];
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  if (ddbst_item_keys_json(it, b, &err) == 0)
    snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  else
    snprintf(out, sizeof out, "error %d %s: %s", err.code, err.path,
             err.message);
  ddbst_buf_free(b);
  return out;
}

static void saas_keys(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Organisation");
  set(it, "orgId", "123");
  assert_string_equal(keys_of(it),
                      "{\"PK\":\"ORG#123\",\"SK\":\"ORG#123\",\"_type\":"
                      "\"Organisation\"}");

  ddbst_item_reset(it, ddbst_model_entity(saas, "User"));
  set(it, "orgId", "123");
  set(it, "userId", "9");
  set(it, "email", "Ann.Lee@Example.COM");
  assert_string_equal(keys_of(it),
                      "{\"PK\":\"ORG#123\",\"SK\":\"USER#9\",\"GSI1PK\":"
                      "\"EMAIL#ann.lee@example.com\",\"_type\":\"User\"}");
  /* Lower-casing is for the key only: the attribute keeps its case. */
  const char *v;
  size_t n;
  assert_int_equal(ddbst_item_get(it, ddbst_model_attribute(saas, 1, "email"),
                                  &v, &n),
                   1);
  assert_string_equal(v, "Ann.Lee@Example.COM");

  ddbst_item_reset(it, ddbst_model_entity(saas, "Project"));
  set(it, "orgId", "123");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T04:30:00.999-04:30");
  set(it, "status", "archived");
  assert_string_equal(keys_of(it),
                      "{\"PK\":\"ORG#123\",\"SK\":\"PROJECT#2026-03-14T09:00:"
                      "00Z#p1\",\"GSI2PK\":\"STATUS#archived\",\"GSI2SK\":"
                      "\"2026-03-14T09:00:00Z\",\"_type\":\"Project\"}");

  ddbst_item_reset(it, ddbst_model_entity(saas, "Event"));
  set(it, "projectId", "p1");
  set(it, "ts", "2026-03-14T09:00:00Z");
  set(it, "eventId", "01arz3ndektsv4rrffq69g5fav");
  assert_string_equal(keys_of(it),
                      "{\"PK\":\"PROJECT#p1\",\"SK\":\"EVENT#2026-03-14T09:00:"
                      "00Z#01ARZ3NDEKTSV4RRFFQ69G5FAV\",\"_type\":\"Event\"}");
  ddbst_item_free(it);
}

/* Keys read through the typed accessors, not only as JSON. */
static void typed_key_access(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "User");
  set(it, "orgId", "o");
  set(it, "userId", "u");
  set(it, "email", "E@x");
  assert_int_equal(ddbst_item_build_keys(it, NULL), 4);
  const char *name, *value;
  size_t len;
  assert_int_equal(ddbst_item_key(it, 2, &name, &value, &len), 0);
  assert_string_equal(name, "GSI1PK");
  assert_string_equal(value, "EMAIL#e@x");
  assert_int_equal(len, 9);
  assert_int_equal(ddbst_item_key(it, 4, &name, &value, &len), DDBST_EINVAL);
  assert_int_equal(ddbst_item_key(it, -1, NULL, NULL, NULL), DDBST_EINVAL);
  /* Changing a value forgets the keys built from the old one. */
  set(it, "userId", "v");
  assert_int_equal(ddbst_item_key(it, 0, &name, &value, &len), DDBST_EINVAL);
  ddbst_item_free(it);
}

static void injection_refused(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "User");
  set(it, "orgId", "1#USER#admin");
  set(it, "userId", "9");
  set(it, "email", "a@b.c");
  assert_string_equal(keys_of(it),
                      "error -5 facet orgId: User.orgId contains the key "
                      "delimiter '#', which would forge another key");
  /* The same through the sort key and through a lower-cased GSI facet. */
  set(it, "orgId", "1");
  set(it, "userId", "9#x");
  assert_non_null(strstr(keys_of(it), "error -5 facet userId"));
  set(it, "userId", "9");
  set(it, "email", "a#b@c");
  assert_non_null(strstr(keys_of(it), "error -5 facet email"));
  ddbst_item_free(it);
}

static void empty_facet_refused(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Organisation");
  set(it, "orgId", "");
  assert_string_equal(keys_of(it), "error -5 facet orgId: Organisation.orgId "
                                   "is empty; a key facet needs a value");
  ddbst_item_free(it);
}

static void missing_facet(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "1");
  set(it, "projectId", "p");
  assert_string_equal(keys_of(it),
                      "error -6 facet createdAt: Project.createdAt is needed "
                      "for SK = PROJECT#{createdAt}#{projectId}");
  ddbst_item_free(it);
}

static char *repeat(char c, size_t n) {
  char *s = malloc(n + 1);
  memset(s, c, n);
  s[n] = '\0';
  return s;
}

static void key_length_limits(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "User");
  /* PK = "ORG#" + orgId: 2048 bytes fit, 2049 do not. */
  char *org = repeat('o', 2044);
  set(it, "orgId", org);
  set(it, "userId", "u");
  set(it, "email", "e");
  assert_non_null(strstr(keys_of(it), "\"PK\":\"ORG#oooo"));
  char *org2 = repeat('o', 2045);
  set(it, "orgId", org2);
  assert_string_equal(keys_of(it), "error -8 PK: PK would be 2049 bytes; "
                                   "DynamoDB allows 2048");
  /* SK = "USER#" + userId: 1024 fit, 1025 do not. */
  set(it, "orgId", "1");
  char *user = repeat('u', 1019);
  set(it, "userId", user);
  assert_non_null(strstr(keys_of(it), "\"SK\":\"USER#uuu"));
  char *user2 = repeat('u', 1020);
  set(it, "userId", user2);
  assert_string_equal(keys_of(it), "error -8 SK: SK would be 1025 bytes; "
                                   "DynamoDB allows 1024");
  /* Multi-byte characters count as bytes: 510 × "é" (2 bytes) = 1020. */
  char *accents = malloc(2 * 510 + 1);
  for (int i = 0; i < 510; i++) memcpy(accents + 2 * i, "\xc3\xa9", 2);
  accents[1020] = '\0';
  set(it, "userId", accents);
  assert_non_null(strstr(keys_of(it), "error -8 SK: SK would be 1025 bytes"));
  free(org), free(org2), free(user), free(user2), free(accents);
  ddbst_item_free(it);
}

/* The index is written with all of its facets, left out with none, and an
 * error names what is missing when only some are given. */
static void sparse_index(void **state) {
  (void)state;
  ddbst_item *it = item_of(blog, "Blog");
  set(it, "blogId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "slug", "hello");
  set(it, "title", "Hello");
  set(it, "createdAt", "2026-01-02T03:04:05.678Z");
  set(it, "status", "published");
  /* none of gsi3's own facets (category, publishedAt): not in gsi3 */
  assert_string_equal(
      keys_of(it),
      "{\"pk\":\"BLOG#01ARYZ6S41TSV4RRFFQ69G5FAV\",\"sk\":\"BLOG#"
      "01ARYZ6S41TSV4RRFFQ69G5FAV\",\"gsi1pk\":\"BLOG\",\"gsi1sk\":\"2026-01-"
      "02T03:04:05.678Z#01ARYZ6S41TSV4RRFFQ69G5FAV\",\"gsi2pk\":\"BLOG#SLUG#"
      "hello\",\"entity\":\"Blog\"}");
  /* some: an error naming the missing facet */
  set(it, "category", "news");
  assert_string_equal(keys_of(it),
                      "error -6 Blog.indexes.gsi3: Blog is partly given for "
                      "index gsi3: also give publishedAt, or none of its "
                      "facets to leave the item out of the index");
  /* all: written */
  set(it, "publishedAt", "2026-01-05T10:00:00+02:00");
  assert_non_null(strstr(keys_of(it),
                         "\"gsi3pk\":\"BLOG#CATEGORY#news\",\"gsi3sk\":\"2026-"
                         "01-05T08:00:00Z#01ARYZ6S41TSV4RRFFQ69G5FAV\""));
  /* membership condition false: out of gsi3 even with every facet */
  set(it, "status", "draft");
  assert_null(strstr(keys_of(it), "gsi3"));
  assert_null(strstr(keys_of(it), "error"));
  /* condition attribute unset: the condition does not hold */
  ddbst_item_unset(it, ddbst_model_attribute(blog, 0, "status"));
  assert_null(strstr(keys_of(it), "gsi3"));
  ddbst_item_free(it);
}

/* An index whose facets all come from the primary key is always written;
 * GSI2's own facet (status) decides for Project. */
static void sparse_index_own_facets(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Project");
  set(it, "orgId", "1");
  set(it, "projectId", "p");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  assert_null(strstr(keys_of(it), "GSI2"));
  set(it, "status", "active");
  assert_non_null(strstr(keys_of(it), "\"GSI2PK\":\"STATUS#active\""));
  ddbst_item_free(it);
}

static void padded_integers(void **state) {
  (void)state;
  ddbst_item *it = item_of(blog, "Service");
  set(it, "serviceId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "slug", "s");
  set(it, "name", "S");
  set(it, "position", "7");
  assert_non_null(
      strstr(keys_of(it), "\"gsi1sk\":\"0007#01ARYZ6S41TSV4RRFFQ69G5FAV\""));
  ddbst_error err;
  assert_int_equal(try_set(it, "position", "10000", &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Service.position");
  assert_int_equal(try_set(it, "position", "-1", &err), DDBST_EVALUE);
  /* the refused values left the old one in place */
  assert_non_null(strstr(keys_of(it), "\"gsi1sk\":\"0007#"));
  ddbst_item_free(it);
}

static const char escape_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_t\"},"
    "\"entities\":{\"File\":{\"attributes\":{\"path\":{\"type\":\"string\","
    "\"escape\":true},\"n\":{\"type\":\"integer\",\"width\":3,"
    "\"negative\":\"sortable\"},\"flag\":\"boolean\"},"
    "\"key\":{\"pk\":\"FILE#{path}\",\"sk\":\"N#{n}#{flag}\"}}}}";

/* Enum values' scans are made at load (model/compile_scans.c), short
 * strings' when set: a value JSON must escape, or that holds the delimiter,
 * must still be escaped or refused, in keys and in bodies. */
static const char enum_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"delimiter\":\"|\"},"
    "\"entities\":{\"Tag\":{\"attributes\":{\"kind\":{\"type\":\"enum\","
    "\"values\":[\"plain\",\"q\\\"uote\",\"back\\\\slash\",\"x|y\"]},"
    "\"id\":\"string\"},"
    "\"key\":{\"pk\":\"KIND|{kind}\",\"sk\":\"ID|{id}\"}}}}";

static void recorded_scans_escape_and_refuse(void **state) {
  (void)state;
  ddbst_model *m = load_text(enum_model);
  ddbst_item *it = item_of(m, "Tag");
  ddbst_buf *body = ddbst_buf_new(NULL);
  set(it, "kind", "q\"uote");
  set(it, "id", "a\"b\\c");
  assert_string_equal(keys_of(it), "{\"PK\":\"KIND|q\\\"uote\",\"SK\":"
                                   "\"ID|a\\\"b\\\\c\"}");
  assert_int_equal(ddbst_put_request(it, 0, 0, body, NULL), DDBST_OP_PUT_ITEM);
  assert_string_equal(
      ddbst_buf_data(body),
      "{\"TableName\":\"tbl\",\"Item\":{\"PK\":{\"S\":\"KIND|q\\\"uote\"},"
      "\"SK\":{\"S\":\"ID|a\\\"b\\\\c\"},\"kind\":{\"S\":\"q\\\"uote\"},"
      "\"id\":{\"S\":\"a\\\"b\\\\c\"}}}");
  set(it, "kind", "back\\slash");
  assert_string_equal(keys_of(it), "{\"PK\":\"KIND|back\\\\slash\",\"SK\":"
                                   "\"ID|a\\\"b\\\\c\"}");
  set(it, "kind", "x|y"); /* a listed value, but it holds the delimiter */
  assert_non_null(strstr(keys_of(it), "Tag.kind contains the key delimiter"));
  set(it, "kind", "plain");
  set(it, "id", "p|q"); /* a short string: scanned when set */
  assert_non_null(strstr(keys_of(it), "Tag.id contains the key delimiter"));
  set(it, "id", "p");
  assert_string_equal(keys_of(it), "{\"PK\":\"KIND|plain\",\"SK\":\"ID|p\"}");
  ddbst_buf_free(body);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* Keys whose literals and values go in as they are take a short way
 * (keys.c, render_simple); every other key the general one. Both in one
 * item, in either order, with the item small or large enough that the room
 * for its keys is counted facet by facet. */
static const char mixed_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_t\",\"indexes\":{\"GSI1\":"
    "{\"partitionKey\":\"G1PK\",\"sortKey\":\"G1SK\"}}},"
    "\"entities\":{\"Doc\":{\"attributes\":{\"path\":{\"type\":\"string\","
    "\"escape\":true},\"id\":\"string\",\"kind\":\"string\","
    "\"body\":\"string\"},"
    "\"key\":{\"pk\":\"DOC#{path}\",\"sk\":\"ID#{id}\"},"
    "\"indexes\":{\"GSI1\":{\"pk\":\"KIND#{kind}\",\"sk\":\"{id}#{kind}\"}}}}}";

static void simple_and_general_keys_together(void **state) {
  (void)state;
  ddbst_model *m = load_text(mixed_model);
  ddbst_item *it = item_of(m, "Doc");
  const char *want = "{\"PK\":\"DOC#a%23b\",\"SK\":\"ID#x1\",\"G1PK\":"
                     "\"KIND#k\",\"G1SK\":\"x1#k\",\"_t\":\"Doc\"}";
  char *body = repeat('b', 5000);
  for (int large = 0; large < 2; large++) {
    ddbst_item_reset(it, 0);
    if (large) set(it, "body", body);
    set(it, "path", "a#b"); /* escaped: the general way */
    set(it, "id", "x1");
    set(it, "kind", "k");
    assert_string_equal(keys_of(it), want);
    /* the general way after the short one: a facet JSON escapes */
    set(it, "kind", "q\"");
    assert_string_equal(keys_of(it),
                        "{\"PK\":\"DOC#a%23b\",\"SK\":\"ID#x1\",\"G1PK\":"
                        "\"KIND#q\\\"\",\"G1SK\":\"x1#q\\\"\",\"_t\":\"Doc\"}");
    /* the index's partition key the short way, its sort key refused */
    set(it, "kind", "k");
    set(it, "id", "x#1");
    assert_non_null(strstr(keys_of(it), "Doc.id contains the key delimiter"));
    /* a facet unset, removed or emptied after a clean value */
    set(it, "id", "x1");
    ddbst_item_unset(it, ddbst_model_attribute(m, 0, "id"));
    assert_non_null(strstr(keys_of(it), "Doc.id is needed"));
    set(it, "id", "x1");
    ddbst_item_remove(it, ddbst_model_attribute(m, 0, "id"));
    assert_non_null(strstr(keys_of(it), "Doc.id is needed"));
    set(it, "id", "");
    assert_non_null(strstr(keys_of(it), "Doc.id is empty"));
    set(it, "id", "x1");
    assert_string_equal(keys_of(it), want);
  }
  free(body);
  ddbst_item_free(it);
  ddbst_model_free(m);

  /* A key past DynamoDB's limit by its literal: the short way hands it to
   * the general one, which says so. */
  char model[5000], *lit = repeat('L', 2040), *slit = repeat('S', 1016);
  snprintf(model, sizeof model,
           "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":"
           "\"PK\",\"sortKey\":\"SK\"},\"entities\":{\"Long\":{\"attributes\":"
           "{\"a\":\"string\",\"b\":\"string\"},\"key\":{\"pk\":\"%s#{a}\","
           "\"sk\":\"%s#{b}\"}},\"Wide\":{\"attributes\":{\"a\":\"string\","
           "\"b\":\"string\"},\"key\":{\"pk\":\"W#{a}\",\"sk\":\"%s#{b}\"}}}}",
           lit, slit, slit);
  m = load_text(model);
  /* the sort key past its limit, the partition key short */
  it = item_of(m, "Wide");
  set(it, "a", "1");
  set(it, "b", "7654321");
  assert_non_null(strstr(keys_of(it), "#7654321\"}"));
  set(it, "b", "87654321");
  assert_string_equal(keys_of(it), "error -8 SK: SK would be 1025 bytes; "
                                   "DynamoDB allows 1024");
  ddbst_item_free(it);
  it = item_of(m, "Long");
  set(it, "a", "1234567"); /* 2048 bytes */
  set(it, "b", "7654321"); /* 1024 bytes */
  assert_non_null(strstr(keys_of(it), "#1234567\",\"SK\":\"SSS"));
  assert_non_null(strstr(keys_of(it), "#7654321\"}"));
  set(it, "b", "87654321");
  assert_string_equal(keys_of(it), "error -8 SK: SK would be 1025 bytes; "
                                   "DynamoDB allows 1024");
  set(it, "b", "7654321");
  set(it, "a", "12345678");
  assert_string_equal(keys_of(it), "error -8 PK: PK would be 2049 bytes; "
                                   "DynamoDB allows 2048");
  free(lit);
  free(slit);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* The keys object as the key list says it: each key's name and value from
 * ddbst_item_build_keys and ddbst_item_key, through the escaping writer;
 * or the error, as keys_of gives it. */
static void keys_from_list(ddbst_item *it, char *out, size_t cap) {
  ddbst_error err;
  int n = ddbst_item_build_keys(it, &err);
  if (n < 0) {
    snprintf(out, cap, "error %d %s: %s", err.code, err.path, err.message);
    return;
  }
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst__buf_putc(b, '{');
  for (int i = 0; i < n; i++) {
    const char *name, *value;
    size_t len;
    assert_int_equal(ddbst_item_key(it, i, &name, &value, &len), 0);
    if (i) ddbst__buf_putc(b, ',');
    ddbst__json_string(b, name, strlen(name));
    ddbst__buf_putc(b, ':');
    ddbst__json_string(b, value, len);
  }
  ddbst__buf_putc(b, '}');
  snprintf(out, cap, "%s", ddbst_buf_data(b));
  ddbst_buf_free(b);
}

/* ddbst_item_keys_json writes the object straight from the values when it
 * can (keys.c, keys_json_simple) and from the key list when it cannot: for
 * items filled at random from values of every kind (clean, unscanned, with
 * the delimiter or a byte JSON escapes, empty, unset, removed, over the
 * room bound), in every entity of both examples and of a model with
 * escaped, integer and lower-cased facets, both must say the same, and
 * the item's key list must be left as it was. */
static const char every_way_model[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"entityAttribute\":\"_t\",\"indexes\":{\"GS1\":"
    "{\"partitionKey\":\"G1PK\",\"sortKey\":\"G1SK\"},\"GS2\":{\"partitionKey\":"
    "\"G2PK\"}}},\"entities\":{\"Doc\":{\"attributes\":{\"path\":{\"type\":"
    "\"string\",\"escape\":true},\"id\":\"string\",\"kind\":\"string\","
    "\"n\":{\"type\":\"integer\",\"width\":4},\"tag\":\"string\"},"
    "\"key\":{\"pk\":\"DOC#{id}\",\"sk\":\"K#{kind}\"},\"indexes\":{\"GS1\":"
    "{\"pk\":\"P#{path}\",\"sk\":\"{n}#{id}\"},\"GS2\":{\"pk\":"
    "\"TAG#{tag:lower}#{kind}\"}}}}}";

static void keys_json_matches_the_key_list(void **state) {
  (void)state;
  char *long_text = repeat('L', 1500);
  const char *pool[] = {
      "", "a", "7", "-5", "42", "true", "acme-7f3a", "p-0001", "x#y", "q\"",
      "back\\s", "tab\there", "0123456789abcdefXYZ", "\xc3\x9c" "ber",
      "2026-03-14T09:00:00Z", "2026-03-14T09:00:00.123Z",
      "2026-03-14T10:00:00+01:00", "01ARYZ6S41TSV4RRFFQ69G5FAV", "active",
      "archived", "draft", "published", "MiXeD", "A#B%C", long_text};
  const size_t npool = sizeof pool / sizeof pool[0];
  /* mostly values of the attribute's own type, so that keys get built */
  const struct {
    const char *type;
    size_t from, to; /* pool[from..to) */
  } typed[] = {{"integer", 2, 5},    {"boolean", 5, 6},
               {"string", 6, 14},    {"timestamp", 14, 17},
               {"ulid", 17, 18},     {"enum", 18, 22}};
  ddbst_model *every = load_text(every_way_model);
  ddbst_model *models[] = {saas, blog, every};
  ddbst_buf *b = ddbst_buf_new(NULL);
  static char want[8192], got[8192];
  uint32_t x = 0x2545f491u;
  int compared = 0, written = 0;
  for (size_t mi = 0; mi < 3; mi++) {
    ddbst_model *m = models[mi];
    for (int e = 0; e < ddbst_model_entity_count(m); e++) {
      ddbst_item *it = ddbst_item_new(m, e);
      int na = ddbst_model_attribute_count(m, e);
      for (int round = 0; round < 1500; round++) {
        ddbst_item_reset(it, e);
        for (int a = 0; a < na; a++) {
          x ^= x << 13, x ^= x >> 17, x ^= x << 5;
          uint32_t pick = x % (uint32_t)(npool + 6);
          const char *type = ddbst_model_attribute_type(m, e, a);
          for (size_t t = 0; t < sizeof typed / sizeof typed[0]; t++)
            if ((x >> 24) % 4 && strcmp(type, typed[t].type) == 0)
              pick = (uint32_t)(typed[t].from +
                                (x >> 8) % (typed[t].to - typed[t].from));
          if (pick < npool) {
            const char *v = pool[pick];
            ddbst_item_set(it, a, v, strlen(v), NULL);
          } else if (pick == npool) {
            ddbst_item_unset(it, a);
          } else if (pick == npool + 1) {
            ddbst_item_set(it, a, "v1", 2, NULL);
            ddbst_item_remove(it, a);
          } /* else: left as it is */
        }
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int built_before = x & 1;
        if (built_before) ddbst_item_build_keys(it, NULL);
        const char *name0;
        int before = ddbst_item_key(it, 0, &name0, NULL, NULL) == 0;
        ddbst_buf_reset(b);
        ddbst__buf_append(b, "[", 1); /* the object goes after what is there */
        ddbst_error err;
        if (ddbst_item_keys_json_append(it, b, &err) == 0) {
          snprintf(got, sizeof got, "%s", ddbst_buf_data(b) + 1);
          written++;
        } else {
          assert_string_equal(ddbst_buf_data(b), "[");
          snprintf(got, sizeof got, "error %d %s: %s", err.code, err.path,
                   err.message);
        }
        int after = ddbst_item_key(it, 0, &name0, NULL, NULL) == 0;
        assert_int_equal(before, after);
        keys_from_list(it, want, sizeof want);
        if (strcmp(got, want) != 0)
          fail_msg("%s: keys_json %s\nkey list %s",
                   ddbst_model_entity_name(m, e), got, want);
        compared++;
      }
      ddbst_item_free(it);
    }
  }
  assert_true(written > compared / 10); /* not all refusals */
  ddbst_buf_free(b);
  ddbst_model_free(every);
  free(long_text);
}

/* Opting in to escaping keeps the delimiter out of the key reversibly. */
static void escaped_facets_round_trip(void **state) {
  (void)state;
  ddbst_model *m = load_text(escape_model);
  ddbst_item *it = item_of(m, "File");
  set(it, "path", "a#b%c");
  set(it, "n", "-5");
  set(it, "flag", "true");
  assert_string_equal(keys_of(it), "{\"PK\":\"FILE#a%23b%25c\",\"SK\":\"N#-995#"
                                   "true\",\"_t\":\"File\"}");
  ddbst_item *back = ddbst_item_new(m, 0);
  ddbst_error err;
  assert_int_equal(ddbst_item_from_key(back, NULL, "FILE#a%23b%25c", 14,
                                       "N#-995#true", 11, &err),
                   0);
  const char *v;
  size_t n;
  assert_int_equal(ddbst_item_get(back, 0, &v, &n), 1);
  assert_string_equal(v, "a#b%c");
  assert_int_equal(ddbst_item_get(back, 1, &v, &n), 1);
  assert_string_equal(v, "-5");
  assert_int_equal(ddbst_item_get(back, 2, &v, &n), 1);
  assert_string_equal(v, "true");
  /* An escape the writer could not have produced is refused. */
  assert_int_equal(ddbst_item_from_key(back, NULL, "FILE#a%41", 9, "N#-995#true",
                                       11, &err),
                   DDBST_EVALUE);
  assert_non_null(strstr(err.message, "malformed %-escape"));
  ddbst_item_free(back);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* Facet values of every length the word-at-a-time scans treat differently,
 * with a byte at every position: '#' (the delimiter) is refused, bytes JSON
 * must escape come out escaped, others as they are. */
static void facet_bytes_at_every_position(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Organisation");
  const char specials[] = {'#', '"', '\\', '\n', '\x7f', '!', '$'};
  char v[41], want[512], esc[16];
  for (size_t n = 1; n < sizeof v; n++) {
    for (size_t at = 0; at < n; at++) {
      for (size_t k = 0; k < sizeof specials; k++) {
        for (size_t i = 0; i < n; i++) v[i] = (char)('a' + i % 26);
        v[at] = specials[k];
        v[n] = '\0';
        ddbst_item_reset(it, ddbst_model_entity(saas, "Organisation"));
        set(it, "orgId", v);
        const char *got = keys_of(it);
        if (specials[k] == '#') {
          assert_non_null(strstr(got, "contains the key delimiter"));
          continue;
        }
        char c = specials[k];
        snprintf(esc, sizeof esc, "%s",
                 c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                                                                   : (char[2]){c, 0});
        char key[128];
        snprintf(key, sizeof key, "ORG#%.*s%s%s", (int)at, v, esc, v + at + 1);
        snprintf(want, sizeof want,
                 "{\"PK\":\"%s\",\"SK\":\"%s\",\"_type\":\"Organisation\"}",
                 key, key);
        if (strcmp(got, want) != 0)
          fail_msg("length %zu, 0x%02x at %zu: %s, want %s", n,
                   (unsigned char)c, at, got, want);
      }
    }
  }
  ddbst_item_free(it);
}

/* Keys decide "needs no JSON escape" with their own scan (keys.c), the
 * writers with theirs (jsonw.c): for every ASCII byte at every place of
 * values of every length the scans take in different ways, and for the
 * key's bodies, the keys' JSON must be what the escaping writer makes of
 * the same text. */
static void keys_escape_exactly_as_the_json_writer(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Organisation");
  ddbst_buf *ref = ddbst_buf_new(NULL);
  ddbst_buf *body = ddbst_buf_new(NULL);
  char v[34], key[64];
  for (int c = 1; c < 0x80; c++) {
    if (c == '#') continue; /* the delimiter: refused, tested above */
    for (size_t n = 1; n < sizeof v; n++)
      for (size_t at = 0; at < n; at++) {
        for (size_t i = 0; i < n; i++) v[i] = (char)('a' + i % 26);
        v[at] = (char)c;
        ddbst_item_reset(it, ddbst_model_entity(saas, "Organisation"));
        assert_int_equal(ddbst_item_set(it, ddbst_model_attribute(saas, 0,
                                                                  "orgId"),
                                        v, n, NULL),
                         0);
        int kl = snprintf(key, sizeof key, "ORG#%.*s", (int)n, v);
        ddbst_buf_reset(ref);
        assert_int_equal(ddbst__buf_append(ref, "{\"PK\":", 6), 0);
        assert_int_equal(ddbst__json_string(ref, key, (size_t)kl), 0);
        assert_int_equal(ddbst__buf_append(ref, ",\"SK\":", 6), 0);
        assert_int_equal(ddbst__json_string(ref, key, (size_t)kl), 0);
        assert_int_equal(
            ddbst__buf_append(ref, ",\"_type\":\"Organisation\"}", 24), 0);
        ddbst_buf_reset(body);
        assert_int_equal(ddbst_item_keys_json(it, body, NULL), 0);
        if (strcmp(ddbst_buf_data(body), ddbst_buf_data(ref)) != 0)
          fail_msg("0x%02x at %zu of %zu: %s, want %s", c, at, n,
                   ddbst_buf_data(body), ddbst_buf_data(ref));
        /* and the Put body's members, written by the request writer */
        ddbst_buf_reset(body);
        assert_int_equal(ddbst_put_request(it, 0, 0, body, NULL),
                         DDBST_OP_PUT_ITEM);
        ddbst_buf_reset(ref);
        assert_int_equal(ddbst__buf_append(ref, "\"PK\":{\"S\":", 11), 0);
        assert_int_equal(ddbst__json_string(ref, key, (size_t)kl), 0);
        if (!strstr(ddbst_buf_data(body), ddbst_buf_data(ref)))
          fail_msg("0x%02x at %zu of %zu: %s lacks %s", c, at, n,
                   ddbst_buf_data(body), ddbst_buf_data(ref));
      }
  }
  ddbst_buf_free(body);
  ddbst_buf_free(ref);
  ddbst_item_free(it);
}

/* Case-insensitive comparison of n bytes (lower-cased facets come back
 * lower-cased). */
static int same_ignoring_case(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
  return 1;
}

/* Builds the keys of `it`, parses the table's or `index`'s key back into a
 * fresh item and checks that every facet value comes back. Key attribute
 * names are found by position: the table's come first, then each index's in
 * the order the entity lists them, so the test names them explicitly. */
static void round_trip(ddbst_model *m, ddbst_item *it, const char *index,
                       const char *pk_attr, const char *sk_attr) {
  int n = ddbst_item_build_keys(it, NULL);
  assert_true(n > 0);
  char pk[4096] = "", sk[4096] = "";
  int have_pk = 0, have_sk = 0;
  for (int i = 0; i < n; i++) {
    const char *name, *value;
    ddbst_item_key(it, i, &name, &value, NULL);
    if (strcmp(name, pk_attr) == 0) have_pk = snprintf(pk, sizeof pk, "%s", value) >= 0;
    if (sk_attr && strcmp(name, sk_attr) == 0)
      have_sk = snprintf(sk, sizeof sk, "%s", value) >= 0;
  }
  assert_true(have_pk);
  assert_true(have_sk == (sk_attr != NULL));
  ddbst_item *back = ddbst_item_new(m, 0);
  ddbst_error err;
  int e = ddbst_item_from_key(back, index, pk, strlen(pk),
                              sk_attr ? sk : NULL, strlen(sk), &err);
  if (e < 0) fail_msg("%s: %s", err.path, err.message);
  assert_int_equal(e, ddbst_item_entity(it));
  int recovered = 0;
  for (int a = 0; a < ddbst_model_attribute_count(m, e); a++) {
    const char *got, *want;
    size_t gl, wl;
    if (ddbst_item_get(back, a, &got, &gl) != 1) continue;
    recovered++;
    assert_int_equal(ddbst_item_get(it, a, &want, &wl), 1);
    assert_int_equal(gl, wl);
    assert_true(same_ignoring_case(got, want, gl));
  }
  assert_true(recovered > 0);
  ddbst_item_free(back);
}

static void every_entity_round_trips(void **state) {
  (void)state;
  ddbst_item *it = item_of(saas, "Organisation");
  set(it, "orgId", "acme-01");
  round_trip(saas, it, NULL, "PK", "SK");

  ddbst_item_reset(it, ddbst_model_entity(saas, "User"));
  set(it, "orgId", "acme-01");
  set(it, "userId", "u\xc3\xa9-9");
  set(it, "email", "Ann@Example.com");
  round_trip(saas, it, NULL, "PK", "SK");
  round_trip(saas, it, "GSI1", "GSI1PK", NULL);

  ddbst_item_reset(it, ddbst_model_entity(saas, "Project"));
  set(it, "orgId", "acme-01");
  set(it, "projectId", "p1");
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  set(it, "status", "active");
  round_trip(saas, it, NULL, "PK", "SK");
  round_trip(saas, it, "GSI2", "GSI2PK", "GSI2SK");

  ddbst_item_reset(it, ddbst_model_entity(saas, "Event"));
  set(it, "projectId", "p1");
  set(it, "ts", "2026-03-14T09:00:00Z");
  set(it, "eventId", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  round_trip(saas, it, NULL, "PK", "SK");
  ddbst_item_free(it);

  it = item_of(blog, "Blog");
  set(it, "blogId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "slug", "hello-world");
  set(it, "title", "Hello");
  set(it, "category", "news");
  set(it, "status", "published");
  set(it, "publishedAt", "2026-01-05T08:00:00Z");
  set(it, "createdAt", "2026-01-02T03:04:05.678Z");
  round_trip(blog, it, NULL, "pk", "sk");
  round_trip(blog, it, "gsi1", "gsi1pk", "gsi1sk");
  round_trip(blog, it, "gsi2", "gsi2pk", NULL);
  round_trip(blog, it, "gsi3", "gsi3pk", "gsi3sk");

  ddbst_item_reset(it, ddbst_model_entity(blog, "Service"));
  set(it, "serviceId", "01ARYZ6S41TSV4RRFFQ69G5FAV");
  set(it, "slug", "audits");
  set(it, "name", "Audits");
  set(it, "position", "12");
  round_trip(blog, it, NULL, "pk", "sk");
  round_trip(blog, it, "gsi1", "gsi1pk", "gsi1sk");
  round_trip(blog, it, "gsi2", "gsi2pk", NULL);
  ddbst_item_free(it);
}

static void parse_refusals(void **state) {
  (void)state;
  ddbst_item *it = ddbst_item_new(saas, 0);
  ddbst_error err;
  /* no entity has this shape */
  assert_int_equal(ddbst_item_from_key(it, NULL, "TEAM#1", 6, "TEAM#1", 6, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "key");
  /* a facet that holds the delimiter cannot be one facet */
  assert_int_equal(
      ddbst_item_from_key(it, NULL, "ORG#1#2", 7, "USER#9", 6, &err),
      DDBST_ENOTFOUND);
  /* Organisation's two orgIds disagree */
  assert_int_equal(ddbst_item_from_key(it, NULL, "ORG#1", 5, "ORG#2", 5, &err),
                   DDBST_EVALUE);
  assert_non_null(strstr(err.message, "orgId differs between the keys"));
  /* right shape, but not a canonical timestamp or ULID */
  const char *sk = "PROJECT#2026-03-14T10:00:00+01:00#p1";
  assert_int_equal(
      ddbst_item_from_key(it, NULL, "ORG#1", 5, sk, strlen(sk), &err),
      DDBST_EVALUE);
  assert_non_null(strstr(err.message, "is not a canonical timestamp"));
  sk = "EVENT#2026-03-14T09:00:00Z#01arz3ndektsv4rrffq69g5fav";
  assert_int_equal(
      ddbst_item_from_key(it, NULL, "PROJECT#p", 9, sk, strlen(sk), &err),
      DDBST_EVALUE);
  /* a sort key where the table needs one is missing */
  assert_int_equal(ddbst_item_from_key(it, NULL, "ORG#1", 5, NULL, 0, &err),
                   DDBST_ENOTFOUND);
  /* enum values are checked */
  assert_int_equal(ddbst_item_from_key(it, "GSI2", "STATUS#gone", 11,
                                       "2026-03-14T09:00:00Z", 20, &err),
                   DDBST_EVALUE);
  assert_int_equal(ddbst_item_from_key(it, "NOPE", "X", 1, NULL, 0, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "index");
  ddbst_item_free(it);
}

/* Items and key building allocate nothing once warm. */
static void warm_item_does_not_allocate(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m;
  assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    ddbst_item_reset(it, ddbst_model_entity(m, "Project"));
    set(it, "orgId", "123");
    set(it, "projectId", "p1");
    set(it, "createdAt", "2026-03-14T10:00:00+01:00");
    set(it, "status", "active");
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_item_keys_json(it, b, NULL), 0);
    /* parsing a key back into a warm item does not allocate either */
    const char *sk = "PROJECT#2026-03-14T09:00:00Z#p1";
    assert_int_equal(ddbst_item_from_key(it, NULL, "ORG#123", 7, sk,
                                         strlen(sk), NULL),
                     ddbst_model_entity(m, "Project"));
    if (round > 0) assert_int_equal(ca.calls, before);
  }
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(saas_keys),
      cmocka_unit_test(typed_key_access),
      cmocka_unit_test(injection_refused),
      cmocka_unit_test(empty_facet_refused),
      cmocka_unit_test(missing_facet),
      cmocka_unit_test(key_length_limits),
      cmocka_unit_test(sparse_index),
      cmocka_unit_test(sparse_index_own_facets),
      cmocka_unit_test(padded_integers),
      cmocka_unit_test(escaped_facets_round_trip),
      cmocka_unit_test(facet_bytes_at_every_position),
      cmocka_unit_test(keys_escape_exactly_as_the_json_writer),
      cmocka_unit_test(recorded_scans_escape_and_refuse),
      cmocka_unit_test(simple_and_general_keys_together),
      cmocka_unit_test(keys_json_matches_the_key_list),
      cmocka_unit_test(every_entity_round_trips),
      cmocka_unit_test(parse_refusals),
      cmocka_unit_test(warm_item_does_not_allocate),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
