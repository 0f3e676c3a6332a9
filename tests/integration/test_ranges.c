/* Issue 16 on DynamoDB Local: a sort-key range on a string facet is exact
 * for every valid value. tests/integration/models/ranges.json keys Product
 * "CAT#{category}#{sku}" (the facet followed by the delimiter) and Tag
 * "TAG#{label:lower}" (the facet ending the key), both with "escape":
 * "ordered". Random strings of every byte from 0x01 to 0x2F (space, '!',
 * '"', '#' itself, ...), the escape byte '$', letters and multi-byte UTF-8
 * are written, and every gt/gte/lt/lte/between/begins on random and stored
 * values, and every pair of a lower and an upper bound, ascending and
 * descending, paged with sealed cursors, returns
 * exactly what the oracle computes from the values' own order. Shelf's
 * plain aisle (no escaping) refuses such values instead: never a silently
 * wrong range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NPRODUCTS = 40, NTAGS = 24, NVALUES = 14, MAXV = 32 };

static itest_fixture *fixture;
static char categories[NPRODUCTS][MAXV];
static char labels[NTAGS][MAXV];

static unsigned long rng = 16;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

/* A random value: 1 to 5 pieces, each a byte from 0x01 to 0x2F, '$', a
 * letter, DEL or a multi-byte character. */
static void random_value(char *out) {
  static const char *const multi[] = {"\xc3\xa9", "\xc3\x89", "\xe6\x97\xa5",
                                      "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
                                      "\x7f"};
  static const char letters[] = "abtoAB$%09";
  size_t n = 0;
  unsigned pieces = 1 + rnd(5);
  for (unsigned i = 0; i < pieces; i++) {
    unsigned kind = rnd(10);
    if (kind < 5) {
      out[n++] = (char)(1 + rnd(0x2F));
    } else if (kind < 8) {
      out[n++] = letters[rnd(sizeof letters - 1)];
    } else {
      const char *m = multi[rnd(sizeof multi / sizeof *multi)];
      memcpy(out + n, m, strlen(m));
      n += strlen(m);
    }
  }
  out[n] = '\0';
}

static void lower(const char *s, char *out) {
  size_t i = 0;
  for (; s[i]; i++)
    out[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
  out[i] = '\0';
}

static int seen_before(char (*vals)[MAXV], int n, const char *v, int low) {
  char a[MAXV], b[MAXV];
  lower(v, a);
  for (int i = 0; i < n; i++) {
    lower(vals[i], b);
    if (low ? !strcmp(a, b) : !strcmp(vals[i], v)) return 1;
  }
  return 0;
}

static int write_items(void **state) {
  fixture = itest_open_sealed(
      DDBST_SOURCE_DIR "/tests/integration/models/ranges.json", "rng", 16);
  *state = fixture; /* itest_teardown drops its table and keyring */
  if (!fixture) return -1;
  itest_fixture *f = fixture;
  /* the example first */
  static const char *const fixed[] = {"tool", "tool s", "tool!", "too",
                                      "tool$", "tool#2"};
  for (int i = 0; i < NPRODUCTS; i++) {
    if (i < (int)(sizeof fixed / sizeof *fixed))
      snprintf(categories[i], MAXV, "%s", fixed[i]);
    else
      do random_value(categories[i]);
      while (seen_before(categories, i, categories[i], 0));
    char cat[MAXV + 16];
    snprintf(cat, sizeof cat, "category=%.*s", MAXV, categories[i]);
    ITEST_CREATE(f, "Product", "shop=s1", cat, "sku=k1");
    ITEST_CREATE(f, "Product", "shop=s1", cat, "sku=k2");
  }
  for (int i = 0; i < NTAGS; i++) {
    do random_value(labels[i]);
    while (seen_before(labels, i, labels[i], 1));
    char label[MAXV + 16];
    snprintf(label, sizeof label, "label=%.*s", MAXV, labels[i]);
    ITEST_CREATE(f, "Tag", "shop=s1", label);
  }
  /* the same in another partition: never returned */
  ITEST_CREATE(f, "Product", "shop=s2", "category=tool s", "sku=k1");
  ITEST_CREATE(f, "Tag", "shop=s2", "label=tool s");
  return 0;
}

/* ---- the oracle: the values' own order ---- */

static int holds(int cond, const char *x, const char *v, const char *v2) {
  switch (cond) {
  case DDBST_SK_GTE: return strcmp(x, v) >= 0;
  case DDBST_SK_GT: return strcmp(x, v) > 0;
  case DDBST_SK_LTE: return strcmp(x, v) <= 0;
  case DDBST_SK_LT: return strcmp(x, v) < 0;
  case DDBST_SK_BEGINS: return strncmp(x, v, strlen(v)) == 0;
  case DDBST_SK_BETWEEN: return strcmp(x, v) >= 0 && strcmp(x, v2) <= 0;
  case DDBST_SK_GT_LT: return strcmp(x, v) > 0 && strcmp(x, v2) < 0;
  case DDBST_SK_GT_LTE: return strcmp(x, v) > 0 && strcmp(x, v2) <= 0;
  case DDBST_SK_GTE_LT: return strcmp(x, v) >= 0 && strcmp(x, v2) < 0;
  default: return 1;
  }
}

static int by_bytes(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The values that hold, sorted (strcmp compares bytes as unsigned char:
 * UTF-8's order, DynamoDB's), each `times` times, reversed when `desc`. */
static size_t oracle(char (*vals)[MAXV], int n, int low, int cond,
                     const char *v, const char *v2, int times, int desc,
                     const char **out) {
  static char lowered[64][MAXV];
  const char *sorted[64];
  char lv[MAXV] = "", lv2[MAXV] = "";
  lower(v ? v : "", lv);
  lower(v2 ? v2 : "", lv2);
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    const char *x = vals[i];
    if (low) {
      lower(vals[i], lowered[i]);
      x = lowered[i];
    }
    if (holds(cond, x, low ? lv : v, low ? lv2 : v2)) sorted[k++] = x;
  }
  qsort(sorted, k, sizeof *sorted, by_bytes);
  size_t m = 0;
  for (size_t i = 0; i < k; i++)
    for (int t = 0; t < times; t++) out[m++] = sorted[desc ? k - 1 - i : i];
  return m;
}

/* ---- the queries ---- */

static void show(const char *s, char *out, size_t cap) {
  size_t o = 0;
  for (; *s && o + 8 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x21 || c >= 0x7f)
      o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    else
      out[o++] = (char)c;
  }
  out[o] = '\0';
}

static void expect(const char *what, yajl_val items, const char *attr, int low,
                   const char **want, size_t nwant) {
  size_t n = items->u.array.len;
  int same = n == nwant;
  char got_l[MAXV];
  for (size_t i = 0; same && i < n; i++) {
    const char *got = itest_s(items->u.array.values[i], attr);
    if (!got) fail_msg("%s: an item without %s", what, attr);
    lower(got, got_l);
    same = !strcmp(low ? got_l : got, want[i]);
  }
  if (same) return;
  char a[64], b[64];
  for (size_t i = 0; i < n || i < nwant; i++) {
    show(i < n ? itest_s(items->u.array.values[i], attr) : "-", a, sizeof a);
    show(i < nwant ? want[i] : "-", b, sizeof b);
    fprintf(stderr, "  %2zu  got %-28s want %s\n", i, a, b);
  }
  fail_msg("%s: %zu items, the oracle says %zu\n  last request: %s", what, n,
           nwant, ddbst_buf_data(fixture->body));
}

/* A condition value: a stored value, a proper prefix of one (at a character
 * boundary), or a random one. */
static void condition_value(char (*vals)[MAXV], int n, char *out) {
  unsigned mode = rnd(3);
  if (mode == 2) {
    random_value(out);
    return;
  }
  const char *v = vals[rnd((unsigned)n)];
  size_t len = strlen(v);
  if (mode == 1 && len > 1) {
    size_t cut = 1 + rnd((unsigned)(len - 1));
    while (cut > 0 && ((unsigned char)v[cut] & 0xC0) == 0x80) cut--;
    if (cut) len = cut; /* one character: the value itself */
  }
  memcpy(out, v, len);
  out[len] = '\0';
}

static const int conditions[] = {
    DDBST_SK_GT,      DDBST_SK_GTE,   DDBST_SK_LT,     DDBST_SK_LTE,
    DDBST_SK_BEGINS,  DDBST_SK_BETWEEN, DDBST_SK_GT_LT, DDBST_SK_GT_LTE,
    DDBST_SK_GTE_LT};
static const char *const condition_names[] = {
    "gt", "gte", "lt", "lte", "begins", "between", "gt-lt", "gt-lte", "gte-lt"};

static int pair(int cond) {
  return cond == DDBST_SK_BETWEEN || cond == DDBST_SK_GT_LT ||
         cond == DDBST_SK_GT_LTE || cond == DDBST_SK_GTE_LT;
}

/* Every condition on `values` values of the entity, against the oracle. */
static void random_ranges(const char *entity, const char *pattern,
                          const char *attr, char (*vals)[MAXV], int n,
                          int low, int times, int desc) {
  itest_fixture *f = fixture;
  const char *want[2 * NPRODUCTS];
  for (int r = 0; r < NVALUES; r++)
    for (size_t c = 0; c < sizeof conditions / sizeof *conditions; c++) {
      char v[MAXV], v2[MAXV] = "";
      condition_value(vals, n, v);
      int cond = conditions[c];
      if (pair(cond)) {
        condition_value(vals, n, v2);
        char lv[MAXV], lv2[MAXV];
        lower(v, lv);
        lower(v2, lv2);
        if (strcmp(low ? lv : v, low ? lv2 : v2) > 0) { /* lo <= hi */
          char t[MAXV];
          memcpy(t, v, MAXV);
          memcpy(v, v2, MAXV);
          memcpy(v2, t, MAXV);
        }
      }
      ITEST_VALUES(f, entity, "shop=s1");
      ddbst_query q =
          itest_condition(f, cond, attr, v, pair(cond) ? v2 : NULL);
      size_t nwant = oracle(vals, n, low, cond, v, v2, times, desc, want);
      /* a range that can hold nothing is refused, never sent */
      int op = ddbst_query_request(f->item, ddbst_model_pattern(f->model,
                                                                 pattern),
                                   &q, itest_body(f), &f->err);
      if (op < 0) {
        if (op != DDBST_ERANGE || nwant)
          fail_msg("%s %s: refused (%s: %s), the oracle has %zu items",
                   pattern, condition_names[c], f->err.path, f->err.message,
                   nwant);
        continue;
      }
      char what[160], sv[64], sv2[64];
      show(v, sv, sizeof sv);
      show(v2, sv2, sizeof sv2);
      snprintf(what, sizeof what, "%s %s %s %s", pattern, condition_names[c],
               sv, sv2);
      expect(what, itest_query_cursors(f, pattern, &q, f->keys), attr, low, want,
             nwant);
    }
}

static void products(void **state) {
  (void)state;
  random_ranges("Product", "productsByCategory", "category", categories,
                NPRODUCTS, 0, 2, 0);
}

static void products_descending(void **state) {
  (void)state;
  random_ranges("Product", "productsByCategoryDesc", "category", categories,
                NPRODUCTS, 0, 2, 1);
}

static void tags(void **state) {
  (void)state;
  random_ranges("Tag", "tagsByLabel", "label", labels, NTAGS, 1, 1, 0);
}

/* The example, exactly: "tool s" and "tool!" sort after "tool". */
static void the_example(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  const char *want[2 * NPRODUCTS];
  static const struct {
    int cond;
    const char *name;
  } rows[] = {{DDBST_SK_GT, "gt tool"}, {DDBST_SK_LTE, "lte tool"}};
  for (size_t r = 0; r < 2; r++) {
    ITEST_VALUES(f, "Product", "shop=s1");
    ddbst_query q = itest_condition(f, rows[r].cond, "category", "tool", NULL);
    yajl_val items = itest_query_cursors(f, "productsByCategory", &q, f->keys);
    size_t nwant = oracle(categories, NPRODUCTS, 0, rows[r].cond, "tool",
                          NULL, 2, 0, want);
    expect(rows[r].name, items, "category", 0, want, nwant);
    /* and spelled out */
    int has_tool_s = 0, has_tool = 0;
    for (size_t i = 0; i < items->u.array.len; i++) {
      const char *c = itest_s(items->u.array.values[i], "category");
      has_tool_s |= !strcmp(c, "tool s") || !strcmp(c, "tool!");
      has_tool |= !strcmp(c, "tool");
    }
    assert_int_equal(has_tool_s, rows[r].cond == DDBST_SK_GT);
    assert_int_equal(has_tool, rows[r].cond == DDBST_SK_LTE);
  }
  /* the key holds the ordered escapes */
  ITEST_VALUES(f, "Product", "shop=s1", "category=tool s", "sku=k1");
  assert_int_equal(ddbst_item_build_keys(f->item, &f->err), 3);
  const char *sk;
  assert_int_equal(ddbst_item_key(f->item, 1, NULL, &sk, NULL), 0);
  assert_string_equal(sk, "CAT#tool$20s#k1");
  /* without escaping, such a value is refused: Shelf's aisle */
  ITEST_VALUES(f, "Shelf", "shop=s1", "aisle=tool s", "shelfId=1");
  assert_int_equal(ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                                     itest_body(f), &f->err),
                   DDBST_EVALUE);
  assert_string_equal(f->err.path, "facet aisle");
  assert_string_equal(
      f->err.message,
      "Shelf.aisle holds ' ' (U+0020), which sorts below the key delimiter "
      "'#' after it: a range on aisle would misplace it; \"escape\": "
      "\"ordered\" keeps such values");
  assert_int_equal(ddbst_buf_len(f->body), 0);
}

int main(void) {
  if (itest_should_skip("test_ranges")) return ITEST_SKIP;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_example),
      cmocka_unit_test(products),
      cmocka_unit_test(products_descending),
      cmocka_unit_test(tags),
  };
  return cmocka_run_group_tests_name("ranges", tests, write_items, itest_teardown);
}
