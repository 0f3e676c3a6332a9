/* The overlap check (model/overlap.c): whether two key templates can
 * produce one and the same key, and whether a template can produce a key
 * that starts with given text. The loader refuses entities whose keys could
 * not be told apart with the first and finds the query ranges other items
 * can fall in with the second; a "no" that is wrong lets one entity's items
 * be read as another's, so beside the exact answers every "no" is checked
 * against the keys the templates really render. */
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
  attrs[0].name = "a";
  attrs[1].name = "b";
  attrs[2].name = "kind";
  attrs[3].name = "n";
  for (int i = 0; i < 4; i++) attrs[i].type = DDBST__T_STRING;
  ddbst__alloc_init(&alloc, NULL);
  ddbst__arena_init(&arena, &alloc);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst__arena_free(&arena);
  return 0;
}

/* `src` compiled for delimiter `d`; "" is the absent template (a key
 * without a sort key). */
static ddbst__template tmpl(const char *src, const char *d) {
  ddbst__template t;
  memset(&t, 0, sizeof t);
  if (!*src) return t;
  char why[200];
  int rc = ddbst__template_compile(&arena, src, attrs, 4, d, strlen(d), &t,
                                   why, sizeof why);
  if (rc) fail_msg("%s: %s", src, why);
  return t;
}

static int share(const char *a, const char *b, const char *d) {
  ddbst__template ta = tmpl(a, d), tb = tmpl(b, d);
  int ab = ddbst__templates_may_share(&ta, &tb, d, strlen(d));
  int ba = ddbst__templates_may_share(&tb, &ta, d, strlen(d));
  if (ab != ba) fail_msg("%s / %s: %d one way, %d the other", a, b, ab, ba);
  return ab;
}

static int starts(const char *t, const char *q, const char *d) {
  ddbst__template tt = tmpl(t, d);
  return ddbst__template_may_start_with(&tt, q, strlen(q), d, strlen(d));
}

#define SHARE(a, b) assert_int_equal(share(a, b, "#"), 1)
#define APART(a, b) assert_int_equal(share(a, b, "#"), 0)

static void templates_that_can_share_a_key(void **state) {
  (void)state;
  SHARE("X#{a}", "X#{b}");           /* one shape */
  SHARE("ORG#{a}", "ORG#{a}");
  SHARE("{kind}#{a}", "USER#{a}");   /* kind = USER */
  SHARE("{a}", "{b}");
  SHARE("{a}", "USER");
  SHARE("U{a}", "USER");             /* a = SER */
  SHARE("U{a}", "UV{b}");            /* a = Vx, b = x */
  SHARE("A#B#C", "A#B#C");
  SHARE("{a}#{b}", "X#{n}");
  SHARE("", "");                     /* both without a sort key */
}

static void templates_that_cannot(void **state) {
  (void)state;
  APART("USER#{a}", "ORG#{a}");      /* literals differ */
  APART("USER#{a}", "USER#{a}#X");   /* a facet never holds the delimiter */
  APART("{a}", "{a}#{b}");
  APART("U{a}", "V{b}");
  APART("U{a}", "U");                /* a facet is never empty */
  APART("A#B", "A#C");
  APART("A#B", "A#BB");
  APART("X{a}#Y", "X{b}#Z");         /* the last parts differ */
  APART("", "S");                    /* no sort key is not sort key "S" */
  APART("", "{a}");
}

/* The delimiter is what the parts are cut at: with "||", "#" is text.
 * With a delimiter longer than a byte, a facet could complete one begun by
 * the literal beside it: "A|{x}" with x = "|2" would render "A||2", a key
 * of "A||{y}" too. The overlap check assumes a facet never forms a
 * delimiter with its neighbours, and keys make that so: they refuse such a
 * value (item/keys.c, render_general; test_facet_key's longer_delimiter
 * and the case below). */
static void longer_delimiters(void **state) {
  (void)state;
  assert_int_equal(share("X||{a}", "X||{b}", "||"), 1);
  assert_int_equal(share("X||{a}", "X#||{a}", "||"), 0);
  assert_int_equal(share("X#{a}", "X#1", "||"), 1); /* a = 1 after "X#" */
  assert_int_equal(share("A||{a}", "A||B||C", "||"), 0);
  assert_int_equal(starts("USER||{a}", "USER||12", "||"), 1);
  assert_int_equal(starts("USER||{a}", "USER||12||", "||"), 0);
  assert_int_equal(share("A|{a}", "A||{b}", "||"), 0);
  /* ... which holds because the facet that would join the "|" before it
   * into a delimiter is refused */
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"overlap\",\"partitionKey\":"
      "\"PK\",\"sortKey\":\"SK\",\"delimiter\":\"||\"},\"entities\":{"
      "\"Alpha\":{\"attributes\":{\"id\":\"string\",\"x\":\"string\"},"
      "\"key\":{\"pk\":\"P||{id}\",\"sk\":\"A|{x}\"}},"
      "\"Beta\":{\"attributes\":{\"id\":\"string\",\"y\":\"string\"},"
      "\"key\":{\"pk\":\"P||{id}\",\"sk\":\"A||{y}\"}}},"
      "\"patterns\":{}}");
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Alpha"));
  assert_non_null(it);
  set(it, "id", "1");
  set(it, "x", "|2");
  ddbst_error err;
  assert_int_equal(ddbst_item_build_keys(it, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "facet x");
  ddbst_item_free(it);
  ddbst_model_free(m);
}

static void may_start_with(void **state) {
  (void)state;
  assert_int_equal(starts("USER#{a}", "", "#"), 1);
  assert_int_equal(starts("USER#{a}", "US", "#"), 1);
  assert_int_equal(starts("USER#{a}", "USER#", "#"), 1);
  assert_int_equal(starts("USER#{a}", "USER#12", "#"), 1);
  assert_int_equal(starts("USER#{a}", "USER#12#", "#"), 0);
  assert_int_equal(starts("USER#{a}", "ORG", "#"), 0);
  assert_int_equal(starts("USER#{a}", "USERS", "#"), 0);
  assert_int_equal(starts("PROJECT#{a}#{b}", "PROJECT#2026-01#", "#"), 1);
  assert_int_equal(starts("{kind}#{a}", "USER#", "#"), 1);
  assert_int_equal(starts("U{a}", "U", "#"), 1);
  assert_int_equal(starts("U{a}", "UX", "#"), 1);
  assert_int_equal(starts("U{a}", "V", "#"), 0);
  assert_int_equal(starts("ORG", "OR", "#"), 1);
  assert_int_equal(starts("ORG", "ORG", "#"), 1);
  assert_int_equal(starts("ORG", "ORGX", "#"), 0);
  assert_int_equal(starts("ORG", "ORG#", "#"), 0);
}

/* ---- against the keys themselves ---- */

/* Facet values to render with: none holds the delimiter, and some equal
 * the templates' literals or their pieces. */
static const char *const VALUES[] = {"1", "12", "U", "USER", "SER", "X",
                                     "Vx", "x", "B", "S", "ORG", "A"};
#define NVALUES (sizeof VALUES / sizeof VALUES[0])

static const char *const TEMPLATES[] = {
    "X#{a}", "X#{b}", "ORG#{a}", "{kind}#{a}", "USER#{a}", "{a}", "USER",
    "U{a}", "UV{b}", "A#B#C", "{a}#{b}", "X#{n}", "USER#{a}#X", "V{b}",
    "U", "A#B", "A#C", "A#BB", "X{a}#Y", "X{b}#Z", "S", "{a}#B#{b}",
    "A#{a}#C", "ORG#{a}#USER#{b}", "US{a}#{b}"};
#define NTEMPLATES (sizeof TEMPLATES / sizeof TEMPLATES[0])

/* Every key of `t` whose facets take values from VALUES (one value per
 * facet, combinations of up to three facets), into keys[]. */
static int render_all(const ddbst__template *t, char keys[][64], int cap) {
  int nf = t->nfacets, total = 1;
  for (int f = 0; f < nf; f++) total *= (int)NVALUES;
  int n = 0;
  for (int c = 0; c < total && n < cap; c++) {
    int pick = c, o = 0;
    for (int s = 0; s < t->nsegs; s++) {
      const char *text = t->segs[s].text;
      size_t len = t->segs[s].len;
      if (t->segs[s].attr >= 0) {
        text = VALUES[pick % (int)NVALUES];
        len = strlen(text);
        pick /= (int)NVALUES;
      }
      memcpy(keys[n] + o, text, len);
      o += (int)len;
    }
    keys[n][o] = '\0';
    n++;
  }
  return n;
}

static char keys_a[NVALUES * NVALUES * NVALUES][64];
static char keys_b[NVALUES * NVALUES * NVALUES][64];

/* A "no" from either question is a promise about every key: checked here
 * against every key the templates render with VALUES. */
static void every_no_is_true(void **state) {
  (void)state;
  const int cap = (int)(NVALUES * NVALUES * NVALUES);
  int saw_no = 0, saw_start_no = 0;
  for (size_t i = 0; i < NTEMPLATES; i++) {
    ddbst__template ta = tmpl(TEMPLATES[i], "#");
    int na = render_all(&ta, keys_a, cap);
    for (size_t j = 0; j < NTEMPLATES; j++) {
      ddbst__template tb = tmpl(TEMPLATES[j], "#");
      int nb = render_all(&tb, keys_b, cap);
      if (!ddbst__templates_may_share(&ta, &tb, "#", 1)) {
        saw_no++;
        for (int x = 0; x < na; x++)
          for (int y = 0; y < nb; y++)
            if (strcmp(keys_a[x], keys_b[y]) == 0)
              fail_msg("%s and %s both render %s, yet may_share says no",
                       TEMPLATES[i], TEMPLATES[j], keys_a[x]);
      }
      /* every prefix of some keys of b, as the start a query reads */
      for (int y = 0; y < nb; y += nb / 16 + 1)
        for (size_t qn = 0; qn <= strlen(keys_b[y]); qn++) {
          if (ddbst__template_may_start_with(&ta, keys_b[y], qn, "#", 1))
            continue;
          saw_start_no++;
          for (int x = 0; x < na; x++)
            if (strncmp(keys_a[x], keys_b[y], qn) == 0)
              fail_msg("%s renders %s, which starts with %.*s, yet "
                       "may_start_with says no",
                       TEMPLATES[i], keys_a[x], (int)qn, keys_b[y]);
        }
    }
  }
  /* and the check is not "yes" to everything: it tells most apart */
  assert_true(saw_no > (int)(NTEMPLATES * NTEMPLATES) / 2);
  assert_true(saw_start_no > 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(templates_that_can_share_a_key),
      cmocka_unit_test(templates_that_cannot),
      cmocka_unit_test(longer_delimiters),
      cmocka_unit_test(may_start_with),
      cmocka_unit_test(every_no_is_true),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
