/* Key templates: compiling "ORG#{orgId}" into segments, every refusal, and
 * splitting keys back along them. */
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "model/model.h"

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

/* Literals of every length the word compares take (1 to 3, 4 to 7, 8 to
 * 16, longer): equal, a byte altered anywhere, or cut short. */
static void literals_of_every_length(void **state) {
  (void)state;
  char why[200];
  size_t spans[2 * DDBST__MAX_FACETS];
  for (size_t k = 1; k <= 40; k++) {
    char src[64], key[64];
    for (size_t i = 0; i < k; i++) src[i] = (char)('A' + (i * 7) % 26);
    strcpy(src + k, "{orgId}");
    ddbst__template t;
    assert_int_equal(compile(src, &t, why), 0);
    memcpy(key, src, k);
    strcpy(key + k, "v1");
    assert_int_equal(ddbst__template_split(&t, key, k + 2, "#", 1, spans), 1);
    assert_int_equal(spans[0], k);
    assert_int_equal(spans[1], 2);
    for (size_t j = 0; j < k; j++) {
      key[j] ^= 0x20;
      assert_int_equal(ddbst__template_split(&t, key, k + 2, "#", 1, spans), 0);
      key[j] ^= 0x20;
    }
    /* the literal cut short: nothing past `len` is read */
    for (size_t n = 0; n < k; n++)
      assert_int_equal(ddbst__template_split(&t, key, n, "#", 1, spans), 0);
  }
}

/* ddbst__template_split as its comment states it, a byte at a time. */
static int split_by_the_book(const ddbst__template *t, const char *key,
                             size_t len, const char *d, size_t dn,
                             size_t *spans) {
  size_t at = 0;
  int f = 0;
  for (int i = 0; i < t->nsegs; i++) {
    const ddbst__seg *s = &t->segs[i];
    if (s->attr < 0) {
      if (len - at < s->len || memcmp(key + at, s->text, s->len)) return 0;
      at += s->len;
      continue;
    }
    size_t end = at;
    while (end < len && !(len - end >= dn && !memcmp(key + end, d, dn))) end++;
    if (end == at) return 0;
    spans[2 * f] = at;
    spans[2 * f + 1] = end - at;
    f++;
    at = end;
  }
  return at == len;
}

/* With a one-byte delimiter, a key written from its template with facets
 * that are non-empty and free of the delimiter splits back into exactly
 * those facets: what lets cursor.c skip splitting the keys it builds. And
 * on any key, split agrees with the byte-at-a-time reading. */
static void keys_of_clean_facets_split_back(void **state) {
  (void)state;
  static const char *const delims[] = {"#", "|", "~"};
  static const char *const shapes[] = {
      "ORG{d}{orgId}", "{orgId}", "P{d}{orgId}{d}{createdAt}",
      "{orgId}{d}{createdAt}{d}X", "A{d}{d}{orgId}{d}{d}{email}",
      "{orgId}{d}{email}{d}{createdAt}"};
  static const char alphabet[] = "ab#|~-:.Z09 ";
  uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
  char why[200];
  for (size_t di = 0; di < 3; di++) {
    const char *d = delims[di];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      char src[128] = "";
      for (const char *c = shapes[si]; *c; c++) {
        if (!strncmp(c, "{d}", 3)) {
          strcat(src, d);
          c += 2;
        } else {
          strncat(src, c, 1);
        }
      }
      ddbst__template t;
      assert_int_equal(ddbst__template_compile(&arena, src, attrs, 4, d, 1, &t,
                                               why, sizeof why),
                       0);
      for (int round = 0; round < 3000; round++) {
        char key[256], facet[DDBST__MAX_FACETS][16];
        size_t flen[DDBST__MAX_FACETS], n = 0;
        int f = 0, clean = 1;
        for (int i = 0; i < t.nsegs; i++) {
          const ddbst__seg *seg = &t.segs[i];
          if (seg->attr < 0) {
            memcpy(key + n, seg->text, seg->len);
            n += seg->len;
            continue;
          }
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          flen[f] = x % 6; /* empty now and then */
          for (size_t k = 0; k < flen[f]; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            facet[f][k] = alphabet[x % (sizeof alphabet - 1)];
          }
          clean &= flen[f] > 0 && !memchr(facet[f], d[0], flen[f]);
          memcpy(key + n, facet[f], flen[f]);
          n += flen[f];
          f++;
        }
        size_t spans[2 * DDBST__MAX_FACETS], book[2 * DDBST__MAX_FACETS];
        int got = ddbst__template_split(&t, key, n, d, 1, spans);
        int want = split_by_the_book(&t, key, n, d, 1, book);
        assert_int_equal(got, want);
        if (got)
          assert_memory_equal(spans, book, sizeof spans[0] * 2 * (size_t)f);
        if (!clean) continue;
        assert_int_equal(got, 1);
        for (int k = 0; k < f; k++) {
          assert_int_equal(spans[2 * k + 1], flen[k]);
          assert_memory_equal(key + spans[2 * k], facet[k], flen[k]);
        }
      }
    }
  }
}

/* Why cursor.c still splits keys when the delimiter is longer: a facet
 * free of "||" can end with '|' and make one with the literal after it. */
static void longer_delimiters_can_straddle(void **state) {
  (void)state;
  ddbst__template t;
  char why[200];
  size_t spans[2 * DDBST__MAX_FACETS];
  assert_int_equal(ddbst__template_compile(&arena, "N||{orgId}||{email}", attrs,
                                           4, "||", 2, &t, why, sizeof why),
                   0);
  const char *key = "N||a|||b"; /* orgId "a|", email "b" */
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "||", 2, spans),
                   1);
  assert_int_equal(spans[1], 1); /* "a", not "a|" */
  key = "N||a||||"; /* orgId "a|", email "|" */
  assert_int_equal(ddbst__template_split(&t, key, strlen(key), "||", 2, spans),
                   0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(segments),
      cmocka_unit_test(refusals),
      cmocka_unit_test(split),
      cmocka_unit_test(multibyte_delimiter),
      cmocka_unit_test(literals_of_every_length),
      cmocka_unit_test(keys_of_clean_facets_split_back),
      cmocka_unit_test(longer_delimiters_can_straddle),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
