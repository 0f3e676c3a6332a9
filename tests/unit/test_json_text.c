/* Issue 16's property: every JSON input decodes a string to exactly what the
 * JSON text means, or refuses it. Random strings made of raw ASCII, raw
 * UTF-8 (well-formed and not), control bytes, simple escapes, \u escapes
 * of every kind of code point, surrogate pairs in order and their halves
 * alone or joined with the wrong partner, are decoded by a reference
 * written here from RFC 8259 and the Unicode standard's definition of
 * UTF-8 (decode, then check: independent of base/utf8.c's table), and by
 * each reader of the library: the parser adapter itself (json/parse.h), the
 * tree of model files and requests (json/tree.h) as a value and as a name,
 * the response parser (an S value and an attribute name of an item), and
 * the JSON entry (a value given in "values"). Each must give the
 * reference's bytes or refuse; every escape of the Basic Multilingual
 * Plane is tried alone besides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "base/bytes.h"
#include "json/parse.h"
#include "json/text.h"
#include "json/tree.h"

#include <yajl/yajl_tree.h>

enum { MAXS = 512 };

/* ---- the reference: what a JSON string's text means ---- */

typedef struct decoded {
  int ok;
  char s[MAXS * 4];
  size_t n;
  int has_nul;
  int ends_early; /* a raw '"' ends the string before its text does */
} decoded;

static void put_utf8(decoded *d, unsigned long cp) {
  char *o = d->s + d->n;
  if (cp < 0x80) {
    o[0] = (char)cp;
    d->n += 1;
  } else if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3F));
    d->n += 2;
  } else if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    d->n += 3;
  } else {
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    d->n += 4;
  }
  if (cp == 0) d->has_nul = 1;
}

static int hexdigit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static long read_u(const unsigned char *s, size_t n, size_t i) {
  if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u') return -1;
  long v = 0;
  for (int k = 2; k < 6; k++) {
    int h = hexdigit(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* The contents of a JSON string (between its quotes) decoded, or ok = 0. */
static void reference(const unsigned char *s, size_t n, decoded *d) {
  memset(d, 0, sizeof *d);
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c == '"' || c < 0x20) { /* never unescaped in a string */
      d->ends_early = c == '"';
      return;
    }
    if (c == '\\') {
      if (i + 1 >= n) return;
      const char *simple = strchr("\"\\/bfnrt", s[i + 1]);
      if (simple && s[i + 1]) {
        static const char out[] = "\"\\/\b\f\n\r\t";
        d->s[d->n++] = out[simple - "\"\\/bfnrt"];
        i += 2;
        continue;
      }
      long cp = read_u(s, n, i);
      if (cp < 0) return;
      i += 6;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return; /* a low half first */
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        long lo = read_u(s, n, i);
        if (lo < 0xDC00 || lo > 0xDFFF) return; /* a high half alone */
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      }
      put_utf8(d, (unsigned long)cp);
      continue;
    }
    if (c < 0x80) {
      d->s[d->n++] = (char)c;
      i++;
      continue;
    }
    /* decode the sequence, then judge the code point */
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!len || c >= 0xF8 || i + len > n) return;
    unsigned long cp = c & (0x3F >> (len - 1));
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return;
      cp = cp << 6 | (s[i + k] & 0x3F);
    }
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return;
    memcpy(d->s + d->n, s + i, len);
    d->n += len;
    i += len;
  }
  d->ok = 1;
}

/* ---- random strings ---- */

static unsigned long rng = 0x16u;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static size_t put_u(char *o, unsigned cp, int upper) {
  return (size_t)snprintf(o, 8, upper ? "\\u%04X" : "\\u%04x", cp);
}

/* A random string's contents (at most about MAXS bytes) into `o`. */
static size_t random_text(char *o) {
  size_t n = 0;
  unsigned pieces = 1 + rnd(10);
  for (unsigned p = 0; p < pieces && n < MAXS - 32; p++) {
    unsigned kind = rnd(14);
    int up = (int)rnd(2);
    switch (kind) {
    case 0: /* printable ASCII */
    case 1: {
      unsigned k = 1 + rnd(4);
      while (k--) {
        char c = (char)(0x20 + rnd(0x5F));
        o[n++] = c == '"' || c == '\\' ? 'q' : c;
      }
      break;
    }
    case 2: { /* a simple escape */
      static const char e[] = "\"\\/bfnrt";
      o[n++] = '\\';
      o[n++] = e[rnd(8)];
      break;
    }
    case 3: { /* \u of a code point that is no surrogate, ASCII and NUL too */
      static const unsigned lo[] = {0, 0x20, 0x80, 0x800, 0xE000, 0xFFF0};
      static const unsigned span[] = {0x20, 0x60, 0x780, 0xD000, 0x1000,
                                      0x10};
      unsigned r = rnd(6);
      n += put_u(o + n, lo[r] + rnd(span[r]), up);
      break;
    }
    case 4: /* a pair in order */
      n += put_u(o + n, 0xD800 + rnd(0x400), up);
      n += put_u(o + n, 0xDC00 + rnd(0x400), up);
      break;
    case 5: /* a high half, then whatever the next piece is */
      n += put_u(o + n, rnd(2) ? 0xD800 : 0xDBFF - rnd(0x400), up);
      break;
    case 6: /* a low half */
      n += put_u(o + n, rnd(2) ? 0xDFFF : 0xDC00 + rnd(0x400), up);
      break;
    case 7: /* a high half joined with the wrong escape */
      n += put_u(o + n, 0xD800 + rnd(0x400), up);
      n += put_u(o + n, rnd(2) ? 0x41 : rnd(2) ? 0xD83D : 0xE000, up);
      break;
    case 8: { /* raw well-formed UTF-8 */
      static const unsigned long lo[] = {0x80, 0x800, 0xE000, 0x10000,
                                         0x10FFF0};
      static const unsigned long span[] = {0x780, 0xD000, 0x2000, 0xF0000,
                                           0x10};
      unsigned r = rnd(5);
      decoded tmp;
      tmp.n = 0;
      put_utf8(&tmp, lo[r] + rnd((unsigned)span[r]));
      memcpy(o + n, tmp.s, tmp.n);
      n += tmp.n;
      break;
    }
    case 9: { /* raw UTF-8 that is not well-formed */
      static const char *const bad[] = {
          "\xc0\xaf",         "\xc1\xbf",         "\xe0\x80\xaf",
          "\xed\xa0\x80",     "\xed\xbf\xbf",     "\xf0\x80\x80\xaf",
          "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8",
          "\xff",             "\x80",             "\xbf",
          "\xe2\x82",         "\xc3",             "\xf0\x9f\x98",
          "\xe2\x28\xa1"};
      const char *b = bad[rnd(sizeof bad / sizeof *bad)];
      memcpy(o + n, b, strlen(b));
      n += strlen(b);
      break;
    }
    case 10: /* a raw control byte */
      if (rnd(4) == 0) o[n++] = (char)(1 + rnd(0x1F));
      break;
    case 11: { /* a raw byte of any value */
      if (rnd(3) == 0) {
        char c = (char)(1 + rnd(255));
        o[n++] = c == '"' ? 'q' : c;
      }
      break;
    }
    case 12: /* a malformed escape */
      if (rnd(4) == 0) {
        static const char *const bad[] = {"\\x", "\\u12", "\\uZZZZ", "\\U0041"};
        const char *b = bad[rnd(4)];
        memcpy(o + n, b, strlen(b));
        n += strlen(b);
      }
      break;
    default: /* a raw four-byte character, as a JavaScript string has it */
      memcpy(o + n, "\xf0\x9f\x98\x80", 4);
      n += 4;
      break;
    }
  }
  /* a lone backslash at the end would escape the closing quote */
  size_t tail = 0;
  while (tail < n && o[n - 1 - tail] == '\\') tail++;
  if (tail % 2) o[n++] = '\\';
  return n;
}

/* ---- the readers ---- */

typedef struct seen {
  char s[MAXS * 4];
  size_t n;
  int strings;
} seen;

static int on_string(void *ctx, const unsigned char *s, size_t n) {
  seen *v = ctx;
  if (n <= sizeof v->s) memcpy(v->s, s, n);
  v->n = n;
  v->strings++;
  return 1;
}

static ddbst_allocator std_alloc;
static ddbst__json_cache parse_cache; /* warm: no allocation a parse */

/* The adapter: the decoded bytes the callback sees, or a refusal. */
static void check_adapter(const char *text, size_t tn, const decoded *want) {
  char json[MAXS + 8];
  size_t n = (size_t)snprintf(json, sizeof json, "[\"%.*s\"]", (int)tn, text);
  static const ddbst__json_callbacks cb = {.on_string = on_string};
  seen v = {.n = 0, .strings = 0};
  ddbst__json_run r;
  assert_int_equal(
      ddbst__json_parse(&r, &cb, &v, json, n, &std_alloc, &parse_cache), 0);
  int ok = r.status == DDBST__JSON_OK;
  if (ok != want->ok || (ok && (v.strings != 1 || v.n != want->n ||
                                memcmp(v.s, want->s, v.n))))
    fail_msg("adapter: %s: status %d (%s), %d strings of %zu bytes; the "
             "reference says %s, %zu bytes",
             json, r.status, r.msg, v.strings, v.n,
             want->ok ? "text" : "no text", want->n);
  /* a refusal of ours stops before the string: the callback never saw it */
}

/* The tree, the string as a value and as a member name: NUL is refused
 * too, and a refusal of the text names where it was. */
static void check_tree(const char *text, size_t tn, const decoded *want) {
  char json[MAXS + 16];
  ddbst__arena ar;
  ddbst__arena_init(&ar, &std_alloc);
  for (int as_name = 0; as_name < 2; as_name++) {
    size_t n = (size_t)snprintf(json, sizeof json,
                                as_name ? "{\"v\":{\"%.*s\":1}}"
                                        : "{\"v\":{\"k\":\"%.*s\"}}",
                                (int)tn, text);
    ddbst__jnode *root = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst__jtree_parse(&ar, json, n, &root, &err);
    int ok = want->ok && !want->has_nul;
    if ((rc == 0) != ok)
      fail_msg("tree: %s: %d %s: %s; the reference says %s", json, rc,
               err.path, err.message, ok ? "text" : "no text");
    if (ok) {
      const ddbst__jnode *v = ddbst__jobj_get(root, "v");
      const char *got = as_name ? v->keys[0] : v->items[0]->text;
      size_t got_n = as_name ? v->key_lens[0] : v->items[0]->len;
      if (got_n != want->n || memcmp(got, want->s, got_n))
        fail_msg("tree: %s: other bytes than the reference's", json);
    } else if (!want->ends_early && strncmp(err.message, "parse error", 11) &&
               strncmp(err.message, "lexical error", 13)) {
      /* ours: at the value, or at the object whose name it is */
      if (strcmp(err.path, as_name ? "v" : "v.k"))
        fail_msg("tree: %s: %s: %s", json, err.path, err.message);
    }
  }
  ddbst__arena_free(&ar);
}

static ddbst_model *saas;
static ddbst_page *page;
static ddbst_item *typed;
static ddbst_json *entry;

#define USER_KEYS                                                              \
  "\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"USER#2\"},\"_type\":{\"S\":"     \
  "\"User\"}"

/* The response parser: an item's S value read back typed, and a name. */
static void check_response(const char *text, size_t tn, const decoded *want) {
  char json[MAXS + 128];
  ddbst_error err;
  int ok = want->ok && !want->has_nul;
  size_t n = (size_t)snprintf(
      json, sizeof json, "{\"Item\":{" USER_KEYS ",\"name\":{\"S\":\"%.*s\"}}}",
      (int)tn, text);
  int rc = ddbst_page_parse(page, DDBST_OP_GET_ITEM, json, n, &err);
  if ((rc == 1) != ok)
    fail_msg("response: %s: %d %s: %s; the reference says %s", json, rc,
             err.path, err.message, ok ? "text" : "no text");
  if (ok) {
    assert_true(ddbst_page_item(page, 0, typed, &err) >= 0);
    const char *v;
    size_t vn;
    int a = ddbst_model_attribute(saas, ddbst_model_entity(saas, "User"),
                                  "name");
    assert_int_equal(ddbst_item_get(typed, a, &v, &vn), 1);
    if (vn != want->n || memcmp(v, want->s, vn))
      fail_msg("response: %s: other bytes than the reference's", json);
  } else if (rc == DDBST_ESYNTAX && err.path[0] && !want->ends_early) {
    assert_string_equal(err.path, "Item.name.S");
  }
  /* as the name of an attribute the model does not know */
  n = (size_t)snprintf(json, sizeof json,
                       "{\"Item\":{" USER_KEYS ",\"x%.*s\":{\"S\":\"a\"}}}",
                       (int)tn, text);
  rc = ddbst_page_parse(page, DDBST_OP_GET_ITEM, json, n, &err);
  if ((rc == 1) != ok)
    fail_msg("response name: %s: %d %s: %s", json, rc, err.path,
             err.message);
}

/* The JSON entry: a value given in "values" and handed back in "item". */
static void check_entry(const char *text, size_t tn, const decoded *want) {
  char json[MAXS + 128];
  if (want->ok && want->n == 0) return; /* "" is another matter */
  size_t n = (size_t)snprintf(
      json, sizeof json,
      "{\"op\":\"keys\",\"entity\":\"Organisation\",\"values\":{\"orgId\":"
      "\"o1\",\"name\":\"%.*s\"}}",
      (int)tn, text);
  size_t alen;
  char *answer = ddbst_json_call(entry, json, n, &alen);
  yajl_val root = yajl_tree_parse(answer, NULL, 0);
  assert_non_null(root);
  const char *item_name[] = {"item", "name", NULL};
  const char *error_path[] = {"error", "path", NULL};
  yajl_val got = yajl_tree_get(root, item_name, yajl_t_string);
  yajl_val path = yajl_tree_get(root, error_path, yajl_t_string);
  int ok = want->ok && !want->has_nul;
  if (!got != !ok)
    fail_msg("entry: %s: %s; the reference says %s", json, answer,
             ok ? "text" : "no text");
  /* the answer is the library's own JSON, well-formed: YAJL reads it right */
  /* yajl_tree_get with yajl_t_string gives strings only */
  const char *name = got ? got->u.string : NULL;
  if (ok && name &&
      (strlen(name) != want->n || memcmp(name, want->s, want->n)))
    fail_msg("entry: %s: answered %s", json, answer);
  const char *at = path ? path->u.string : NULL;
  if (!ok && at && at[0] && !want->ends_early)
    assert_string_equal(at, "values.name");
  yajl_tree_free(root);
  ddbst_json_free(answer);
}

static void check_all(const char *text, size_t n) {
  decoded want;
  reference((const unsigned char *)text, n, &want);
  check_adapter(text, n, &want);
  check_tree(text, n, &want);
  check_response(text, n, &want);
  check_entry(text, n, &want);
}

static int setup(void **state) {
  (void)state;
  ddbst__alloc_init(&std_alloc, NULL);
  saas = load_example("examples/saas/model.json");
  page = ddbst_page_new(saas);
  typed = ddbst_item_new(saas, ddbst_model_entity(saas, "User"));
  char cfg[1024];
  snprintf(cfg, sizeof cfg, "{\"modelFile\":\"%s/examples/saas/model.json\"}",
           DDBST_SOURCE_DIR);
  char *error = NULL;
  entry = ddbst_json_open(cfg, strlen(cfg), NULL, &error);
  if (!entry) fail_msg("ddbst_json_open: %s", error);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  ddbst__json_cache_release(&parse_cache, &std_alloc);
  ddbst_json_close(entry);
  ddbst_item_free(typed);
  ddbst_page_free(page);
  ddbst_model_free(saas);
  return 0;
}

/* ---- the tests ---- */

static void random_strings(void **state) {
  (void)state;
  const char *env = getenv("DDBST_PROPERTY_RUNS");
  long runs = env ? strtol(env, NULL, 10) : 4000;
  int kinds[2] = {0, 0};
  char text[MAXS + 64];
  for (long i = 0; i < runs; i++) {
    size_t n = random_text(text);
    decoded want;
    reference((const unsigned char *)text, n, &want);
    kinds[want.ok]++;
    check_all(text, n);
  }
  /* both outcomes were tried many times */
  assert_true(kinds[0] > runs / 10 && kinds[1] > runs / 10);
}

/* Every \u escape of the Basic Multilingual Plane, alone and before 'A', and
 * each half of a pair with the other half's every boundary. */
static void every_escape(void **state) {
  (void)state;
  char text[32];
  for (unsigned cp = 0; cp <= 0xFFFF; cp++) {
    decoded want;
    size_t n = put_u(text, cp, cp & 1);
    reference((const unsigned char *)text, n, &want);
    assert_int_equal(want.ok, cp < 0xD800 || cp > 0xDFFF);
    check_adapter(text, n, &want);
    text[n++] = 'A';
    reference((const unsigned char *)text, n, &want);
    check_adapter(text, n, &want);
  }
  static const unsigned edges[] = {0x0041, 0xD7FF, 0xD800, 0xDBFF, 0xDC00,
                                   0xDFFF, 0xE000, 0xFFFF};
  for (size_t a = 0; a < 8; a++)
    for (size_t b = 0; b < 8; b++) {
      size_t n = put_u(text, edges[a], 0);
      n += put_u(text + n, edges[b], 1);
      check_all(text, n);
    }
}

/* The examples of the issue, exactly. */
static void the_issue(void **state) {
  (void)state;
  decoded d;
  reference((const unsigned char *)"x\\ud800y", 8, &d);
  assert_false(d.ok); /* not "x?y" */
  reference((const unsigned char *)"\\ud800\\u0041", 12, &d);
  assert_false(d.ok); /* not U+10041 */
  reference((const unsigned char *)"\\ud83d\\ude00", 12, &d);
  assert_true(d.ok);
  assert_int_equal(d.n, 4);
  assert_memory_equal(d.s, "\xf0\x9f\x98\x80", 4);
  check_all("x\\ud800y", 8);
  check_all("\\ud800\\u0041", 12);
  check_all("Caf\xc3\xa9 \\ud83d", 13); /* 'Café 😀'.slice(0, 6) */
  check_all("\\ud83d\\ude00", 12);
  /* a refusal stops before the string: no callback has seen it */
  static const ddbst__json_callbacks cb = {.on_string = on_string};
  seen v = {.n = 0, .strings = 0};
  ddbst__json_run r;
  assert_int_equal(ddbst__json_parse(&r, &cb, &v, "[\"a\",\"b\\udc00\"]", 15,
                                     &std_alloc, NULL),
                   0);
  assert_int_equal(r.status, DDBST__JSON_TEXT);
  assert_int_equal(v.strings, 1);
  assert_int_equal(r.at, 7);
  assert_false(r.in_name);
  /* the rule's own offsets: where the escape starts */
  ddbst__json_fault f;
  assert_int_equal(ddbst__json_text_fault("[\"ab\\ud800\"]", 12, &f), 1);
  assert_int_equal(f.at, 4);
  assert_true(f.escape);
  assert_int_equal(ddbst__json_text_fault("[\"ab\\\\ud800\"]", 13, &f), 0);
}

/* The rule's check in both forms of its scan (base/bytes.h: the AVX2 one
 * where the build has it and the CPU runs it, and the build's own) gives
 * the same answer on the same texts: the random strings behind a plain run
 * of every length up to two wide steps and more, so that each fault falls
 * at every place of a step. */
static void wide_and_narrow(void **state) {
  (void)state;
  char text[MAXS + 64], buf[160 + MAXS + 64];
  int wide = 0;
#if defined(DDBST__HAVE_AVX2)
  wide = ddbst__cpu_avx2();
#endif
  for (long i = 0; i < 400; i++) {
    size_t n = random_text(text);
    for (size_t pad = 0; pad <= 160; pad += 1 + (size_t)(i % 3)) {
      memset(buf, 'x', pad);
      memcpy(buf + pad, text, n);
      ddbst__json_fault fn, fw;
      memset(&fn, 0, sizeof fn);
      memset(&fw, 0, sizeof fw);
      int rn = ddbst__json_text_fault_with(buf, pad + n, &fn, 0);
      int rw = ddbst__json_text_fault_with(buf, pad + n, &fw, wide);
      assert_int_equal(rn, rw);
      assert_int_equal(rn, ddbst__json_text_fault(buf, pad + n, &fw));
      if (rn) {
        assert_int_equal(fn.at, fw.at);
        assert_ptr_equal(fn.why, fw.why);
        assert_int_equal(fn.escape, fw.escape);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_issue),
      cmocka_unit_test(every_escape),
      cmocka_unit_test(random_strings),
      cmocka_unit_test(wide_and_narrow),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
