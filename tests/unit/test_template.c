/* Key templates: compiling "ORG#{orgId}" into segments, every refusal, and
 * splitting keys back along them. */
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "model.h"

static ddbst__attr attrs[4];
static ddbst__arena arena;
static ddbst_allocator alloc;

static int setup(void **state) {
  (void)state;
  memset(attrs, 0, sizeof attrs);
  attrs[0].name = "orgId";
  attrs[0].type = DDBST__T_STRING;
  attrs[1].name = "createdAt";
  attrs[1].type = DDBST__T_TIMESTAMP;
  attrs[2].name = "payload";
  attrs[2].type = DDBST__T_MAP;
  attrs[3].name = "email";
  attrs[3].type = DDBST__T_STRING;
  ddbst__alloc_init(&alloc, NULL);
  ddbst__arena_init(&arena, &alloc);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst__arena_free(&arena);
  return 0;
}

static int compile(const char *src, ddbst__template *t, char *why) {
  return ddbst__template_compile(&arena, src, attrs, 4, "#", 1, t, why, 200);
}

static void segments(void **state) {
  (void)state;
  ddbst__template t;
  char why[200];
  assert_int_equal(compile("ORG#{orgId}#P#{createdAt}", &t, why), 0);
  assert_int_equal(t.nsegs, 4);
  assert_int_equal(t.nfacets, 2);
  assert_int_equal(t.segs[0].attr, -1);
  assert_int_equal(t.segs[0].len, 4);
  assert_memory_equal(t.segs[0].text, "ORG#", 4);
  assert_int_equal(t.segs[1].attr, 0);
  assert_int_equal(t.segs[2].attr, -1);
  assert_memory_equal(t.segs[2].text, "#P#", 3);
  assert_int_equal(t.segs[3].attr, 1);
  assert_string_equal(t.source, "ORG#{orgId}#P#{createdAt}");

  assert_int_equal(compile("EMAIL#{email:lower}", &t, why), 0);
  assert_int_equal(t.segs[1].attr, 3);
  assert_int_equal(t.segs[1].lower, 1);

  assert_int_equal(compile("{createdAt}", &t, why), 0);
  assert_int_equal(t.nsegs, 1);
  assert_int_equal(compile("BLOG", &t, why), 0);
  assert_int_equal(t.nfacets, 0);
}

static void refusal(const char *src, const char *phrase) {
  ddbst__template t;
  char why[200];
  assert_int_equal(compile(src, &t, why), DDBST_EMODEL);
  if (!strstr(why, phrase))
    fail_msg("'%s': message '%s' lacks '%s'", src, why, phrase);
}

static void refusals(void **state) {
  (void)state;
  refusal("", "may not be empty");
  refusal("ORG#{orgId", "has no matching '}'");
  refusal("ORG#orgId}", "has no matching '{'");
  refusal("ORG#{nope}", "facet 'nope' is not an attribute");
  refusal("ORG#{payload}", "facet 'payload' is of type map");
  refusal("ORG#{orgId:upper}", "unknown facet modifier 'upper'");
  refusal("ORG#{}", "empty or malformed facet");
  refusal("{orgId}{createdAt}", "must be followed by the delimiter");
  refusal("{orgId}-{createdAt}", "must be followed by the delimiter");
  refusal("{orgId}X", "must be followed by the delimiter");
  refusal("A\xff", "UTF-8");
  char many[512] = "";
  for (int i = 0; i < 17; i++) strcat(many, i ? "#{orgId}" : "{orgId}");
  refusal(many, "at most 16 facets");
}

static void split(void **state) {
  (void)state;
  ddbst__template t;
  char why[200];
  size_t spans[2 * DDBST__MAX_FACETS];
  assert_int_equal(compile("ORG#{orgId}#P#{createdAt}", &t, why), 0);
  const char *key = "ORG#acme#P#2026-01-01T00:00:00Z";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 1);
  assert_int_equal(spans[0], 4);
  assert_int_equal(spans[1], 4);
  assert_int_equal(spans[2], 11);
  assert_int_equal(spans[3], 20);
  /* a facet cannot swallow a delimiter, nor be empty */
  key = "ORG#ac#me#P#2026";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 0);
  key = "ORG##P#2026";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 0);
  /* literals must match exactly, and the whole key must be consumed */
  key = "ORG#acme#Q#2026";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 0);
  key = "ORG#acme#P#2026#";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 0);
  key = "ORG";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "#", 1, spans), 0);
}

static void multibyte_delimiter(void **state) {
  (void)state;
  ddbst__template t;
  char why[200];
  size_t spans[2 * DDBST__MAX_FACETS];
  assert_int_equal(ddbst__template_compile(&arena, "A::{orgId}::B", attrs, 4,
                                           "::", 2, &t, why, sizeof why),
                   0);
  const char *key = "A::x:y::B";
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "::", 2, spans), 1);
  assert_int_equal(spans[1], 3); /* "x:y": one ':' is not the delimiter */
  assert_int_equal(ddbst__template_compile(&arena, "A::{orgId}:B", attrs, 4,
                                           "::", 2, &t, why, sizeof why),
                   DDBST_EMODEL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(segments),
      cmocka_unit_test(refusals),
      cmocka_unit_test(split),
      cmocka_unit_test(multibyte_delimiter),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
