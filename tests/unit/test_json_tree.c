/* The JSON tree (json/tree.c on the parser adapter json/parse.c): every kind
 * of value with numbers kept exactly as written, every refusal (NUL in
 * strings and names, duplicate keys, nesting past 64 levels, more than 4096
 * members, a document of 4 GiB or more, malformed JSON) with its offset,
 * line and column, allocation failure at every site, and inputs that end
 * at a guard page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "json/tree.h"

static counting_alloc ca;
static ddbst__arena ar;

static int fresh(void **state) {
  (void)state;
  counting_alloc_init(&ca);
  ddbst__arena_init(&ar, &ca.hooks);
  return 0;
}

/* The arena gives everything back, and nothing else is left. */
static int released(void **state) {
  (void)state;
  ddbst__arena_free(&ar);
  return ca.live == 0 ? 0 : -1;
}

static ddbst__jnode *parse_ok(const char *json) {
  ddbst__jnode *root = NULL;
  ddbst_error err;
  int rc = ddbst__jtree_parse(&ar, json, strlen(json), &root, &err);
  if (rc) fail_msg("%s: %d %s", json, rc, err.message);
  assert_non_null(root);
  return root;
}

static const ddbst__jnode *member(const ddbst__jnode *obj, const char *key) {
  const ddbst__jnode *n = ddbst__jobj_get(obj, key);
  if (!n) fail_msg("no member %s", key);
  return n;
}

static void every_kind_of_value(void **state) {
  (void)state;
  static const char doc[] =
      "{\"null\": null, \"t\": true, \"f\": false,\n"
      " \"ints\": [0, -0, 12345678901234567890123, -7],\n"
      " \"reals\": [1.50e+3, 0.1, -2E-5],\n"
      " \"s\": \"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\n\",\n"
      " \"empty\": {}, \"none\": [], \"\": \"the empty name\"}";
  const ddbst__jnode *root = parse_ok(doc);
  assert_int_equal(root->type, DDBST__J_OBJECT);
  assert_int_equal(root->count, 9);
  /* members in document order */
  static const char *const keys[] = {"null", "t",     "f",    "ints", "reals",
                                     "s",    "empty", "none", ""};
  for (size_t i = 0; i < 9; i++) {
    assert_string_equal(root->keys[i], keys[i]);
    assert_int_equal(root->key_lens[i], strlen(keys[i]));
  }
  assert_int_equal(member(root, "null")->type, DDBST__J_NULL);
  assert_int_equal(member(root, "t")->type, DDBST__J_BOOL);
  assert_int_equal(member(root, "t")->boolean, 1);
  assert_int_equal(member(root, "f")->boolean, 0);
  /* numbers are their text, exactly: no rounding, no normalising */
  const ddbst__jnode *ints = member(root, "ints");
  assert_int_equal(ints->type, DDBST__J_ARRAY);
  assert_int_equal(ints->count, 4);
  static const char *const itext[] = {"0", "-0", "12345678901234567890123",
                                      "-7"};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(ints->items[i]->type, DDBST__J_NUMBER);
    assert_string_equal(ints->items[i]->text, itext[i]);
    assert_int_equal(ints->items[i]->len, strlen(itext[i]));
  }
  const ddbst__jnode *reals = member(root, "reals");
  assert_string_equal(reals->items[0]->text, "1.50e+3");
  assert_string_equal(reals->items[1]->text, "0.1");
  assert_string_equal(reals->items[2]->text, "-2E-5");
  /* strings unescaped, as UTF-8 */
  const ddbst__jnode *s = member(root, "s");
  assert_int_equal(s->type, DDBST__J_STRING);
  assert_string_equal(s->text, "a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80\n");
  assert_int_equal(s->len, 13);
  assert_int_equal(member(root, "empty")->type, DDBST__J_OBJECT);
  assert_int_equal(member(root, "empty")->count, 0);
  assert_int_equal(member(root, "none")->type, DDBST__J_ARRAY);
  assert_int_equal(member(root, "none")->count, 0);
  assert_string_equal(member(root, "")->text, "the empty name");
  /* lookups */
  assert_null(ddbst__jobj_get(root, "nope"));
  assert_null(ddbst__jobj_get(root, "nul")); /* a prefix is no match */
  assert_null(ddbst__jobj_get(ints, "0"));   /* not an object */
  assert_null(ddbst__jobj_get(NULL, "t"));
  /* each node knows where it is: just past its first token, so errors about
   * it point into the file */
  assert_int_equal(root->offset, 1);
  const char *t_at = strstr(doc, "true");
  assert_int_equal(member(root, "t")->offset, (size_t)(t_at - doc) + 4);
  const char *r_at = strstr(doc, "1.50e+3");
  assert_int_equal(reals->items[0]->offset, (size_t)(r_at - doc) + 7);
  /* a scalar alone is a document too */
  const ddbst__jnode *alone = parse_ok("  \"x\" ");
  assert_int_equal(alone->type, DDBST__J_STRING);
  assert_string_equal(alone->text, "x");
}

/* The same name in two objects is no duplicate. */
static void names_repeat_across_objects(void **state) {
  (void)state;
  const ddbst__jnode *root =
      parse_ok("{\"a\": {\"a\": 1, \"b\": {\"a\": 2}}, \"b\": [{\"a\": 3}]}");
  assert_string_equal(member(member(root, "a"), "a")->text, "1");
  assert_string_equal(member(member(member(root, "a"), "b"), "a")->text, "2");
  assert_string_equal(member(member(root, "b")->items[0], "a")->text, "3");
}

typedef struct refusal {
  const char *json;
  int code;
  const char *path;    /* NULL: none, and the message ends with the position */
  const char *message; /* whole, before any " (line L, column C)" */
  size_t offset;
  unsigned line, column;
} refusal;

static const refusal refusals[] = {
    /* our own: at the value's path, the position in the fields only */
    {"{\"a\":\"x\\u0000y\"}", DDBST_ESYNTAX, "a",
     "contains a NUL byte (\\u0000)", 15, 1, 16},
    {"[1, \"a\\u0000\"]", DDBST_ESYNTAX, "[1]",
     "contains a NUL byte (\\u0000)", 13, 1, 14},
    {"{\"a\\u0000\":1}", DDBST_ESYNTAX, "",
     "a member name contains a NUL byte (\\u0000)", 10, 1, 11},
    {"{\"a\":1,\"b\":2,\"a\":3}", DDBST_ESYNTAX, "a", "a given twice", 16, 1,
     17},
    {"{\"v\":{\"orgId\":\"1\",\"orgId\":\"2\"}}", DDBST_ESYNTAX, "v.orgId",
     "orgId given twice", 25, 1, 26},
    {"  \n\n  {\"x\": \"y\\u0000\"}", DDBST_ESYNTAX, "x",
     "contains a NUL byte (\\u0000)", 21, 3, 18},
    {"{\"l\":[{\"m\":[0,{\"k\":\"\\u0000\"}]}]}", DDBST_ESYNTAX, "l[0].m[1].k",
     "contains a NUL byte (\\u0000)", 27, 1, 28},
    /* text that is not text (json/text.h), at the string's path */
    {"{\"v\":{\"orgId\":\"x\\ud800y\"}}", DDBST_ESYNTAX, "v.orgId",
     "\\ud800 is the high half of a surrogate pair, with no low half "
     "(\\udc00-\\udfff) after it",
     16, 1, 17},
    {"[\"\\ud800\\u0041\"]", DDBST_ESYNTAX, "[0]",
     "\\ud800 is the high half of a surrogate pair, with no low half "
     "(\\udc00-\\udfff) after it",
     2, 1, 3},
    {"[1,\"ok\",\"\\uDC00\"]", DDBST_ESYNTAX, "[2]",
     "\\uDC00 is the low half of a surrogate pair, with no high half "
     "(\\ud800-\\udbff) before it",
     9, 1, 10},
    {"{\"a\":{\"\\ud83d\":1}}", DDBST_ESYNTAX, "a",
     "a member name: \\ud83d is the high half of a surrogate pair, with no "
     "low half (\\udc00-\\udfff) after it",
     7, 1, 8},
    {"\"\xff\"", DDBST_ESYNTAX, "",
     "invalid UTF-8: byte 0xF8-0xFF never occurs", 1, 1, 2},
    {"{\"e\":\"caf\xc3\"}", DDBST_ESYNTAX, "e",
     "invalid UTF-8: truncated multi-byte sequence", 9, 1, 10},
    {"{\"e\":\"\xed\xa0\x80\"}", DDBST_ESYNTAX, "e",
     "invalid UTF-8: surrogate code point", 6, 1, 7},
    {"{\"e\":\"\xc0\xaf\"}", DDBST_ESYNTAX, "e",
     "invalid UTF-8: overlong encoding", 6, 1, 7},
    /* YAJL's, first line only, with the position */
    {"{\"a\":1,}", DDBST_ESYNTAX, NULL,
     "parse error: invalid object key (must be a string)", 8, 1, 9},
    {"[1 2]", DDBST_ESYNTAX, NULL,
     "parse error: after array element, I expect ',' or ']'", 4, 1, 5},
    {"", DDBST_ESYNTAX, NULL, "parse error: premature EOF", 0, 1, 1},
    {"{\"a\":[1", DDBST_ESYNTAX, NULL, "parse error: premature EOF", 7, 1, 8},
    {"{\"a\":tru}", DDBST_ESYNTAX, NULL,
     "lexical error: invalid string in json text.", 8, 1, 9},
    {"{} x", DDBST_ESYNTAX, NULL, "parse error: trailing garbage", 4, 1, 5},
    /* YAJL took this one (its lexer waits for the string's end, and the
     * end of the parse does not ask); json/read.c refuses it */
    {"{} \"abc", DDBST_ESYNTAX, NULL, "parse error: trailing garbage", 3, 1,
     4},
    {"{\n  \"k\": [1,\n   2,, 3]}", DDBST_ESYNTAX, NULL,
     "parse error: unallowed token at this point in JSON text", 19, 3, 7},
    /* a syntax error before a fault is the one reported */
    {"[1,,\"\\ud800\"]", DDBST_ESYNTAX, NULL,
     "parse error: unallowed token at this point in JSON text", 4, 1, 5},
};

/* Past 16 members an object's names are found by hash (tree.c): every
 * name is still there, and a name given again is refused wherever it
 * comes, the first repeat of any earlier name. */
static void large_objects_refuse_repeated_names(void **state) {
  (void)state;
  char json[8192];
  for (int total = 15; total <= 200; total += 37) {
    size_t n = (size_t)snprintf(json, sizeof json, "{");
    for (int i = 0; i < total; i++)
      n += (size_t)snprintf(json + n, sizeof json - n, "%s\"m%d\":%d",
                            i ? "," : "", i, i);
    snprintf(json + n, sizeof json - n, "}");
    const ddbst__jnode *root = parse_ok(json);
    assert_int_equal(root->count, total);
    for (int i = 0; i < total; i++) {
      char key[16];
      snprintf(key, sizeof key, "m%d", i);
      char value[16];
      snprintf(value, sizeof value, "%d", i);
      assert_string_equal(member(root, key)->text, value);
    }
    /* then each earlier name again, at the end */
    for (int again = 0; again < total; again += 7) {
      snprintf(json + n, sizeof json - n, ",\"m%d\":0}", again);
      ddbst__jnode *bad = NULL;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      assert_int_equal(ddbst__jtree_parse(&ar, json, strlen(json), &bad, &err),
                       DDBST_ESYNTAX);
      char want[64];
      snprintf(want, sizeof want, "m%d given twice", again);
      assert_string_equal(err.message, want);
    }
  }
}

/* Escapes and what they decode to, cycled through a long text: each
 * kind the reader decodes, of 1 to 4 bytes, and plain bytes. */
static const struct {
  const char *escaped, *decoded;
} units[] = {
    {"\\\"", "\""},       {"x", "x"},           {"\\\\", "\\"},
    {"\\/", "/"},         {"\\b", "\b"},        {"\\f", "\f"},
    {"\\n", "\n"},        {"\\r", "\r"},        {"\\t", "\t"},
    {"\\u0041", "A"},     {"\\u00e9", "\xc3\xa9"},
    {"\\u20AC", "\xe2\x82\xac"},                {"\xc3\xa9", "\xc3\xa9"},
    {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},     {"yz", "yz"},
};

/* A JSON string's inside of at least `raw` bytes, written from `units`
 * starting at `first`, into esc; its decoded text into dec. */
static void escaped_text(size_t raw, size_t first, char *esc, size_t *esc_len,
                         char *dec, size_t *dec_len) {
  size_t e = 0, d = 0;
  for (size_t u = first; e < raw; u++) {
    size_t k = u % (sizeof units / sizeof units[0]);
    size_t el = strlen(units[k].escaped), dl = strlen(units[k].decoded);
    memcpy(esc + e, units[k].escaped, el);
    memcpy(dec + d, units[k].decoded, dl);
    e += el;
    d += dl;
  }
  *esc_len = e;
  *dec_len = d;
}

/* Strings and names with escapes on both sides of the 256 bytes the reader
 * decodes on its stack: past them they are decoded straight into the
 * arena (string_room), not into a block of the reader's first. The text is
 * exact either way, NUL-terminated, and a NUL or a name given twice is
 * refused as before. */
static void long_escaped_strings(void **state) {
  (void)state;
  static char doc[16384], key[4096], keyd[4096], val[8192], vald[8192];
  for (size_t raw = 240; raw <= 6000; raw += raw < 280 ? 1 : 997) {
    size_t kl, kdl, vl, vdl;
    escaped_text(raw / 2, raw % 5, key, &kl, keyd, &kdl);
    escaped_text(raw, raw % 7, val, &vl, vald, &vdl);
    int n = snprintf(doc, sizeof doc, "{\"%.*s\":[\"%.*s\",\"%.*s\"]}",
                     (int)kl, key, (int)vl, val, (int)kl, key);
    ddbst__jtree_kept kept;
    memset(&kept, 0, sizeof kept);
    ddbst__jnode *root = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst__jtree_parse_kept(&ar, &kept, doc, (size_t)n, &root, &err);
    if (rc) fail_msg("%zu bytes: %d %s", raw, rc, err.message);
    assert_int_equal(root->count, 1);
    assert_int_equal(root->key_lens[0], kdl);
    assert_memory_equal(root->keys[0], keyd, kdl);
    assert_int_equal(root->keys[0][kdl], '\0');
    const ddbst__jnode *list = root->items[0];
    assert_int_equal(list->count, 2);
    assert_int_equal(list->items[0]->len, vdl);
    assert_memory_equal(list->items[0]->text, vald, vdl);
    assert_int_equal(list->items[0]->text[vdl], '\0');
    assert_int_equal(list->items[1]->len, kdl);
    assert_memory_equal(list->items[1]->text, keyd, kdl);
    /* the reader took no block: every string was on its stack or in the
     * arena */
    assert_null(kept.reader.blocks);
    ddbst__jtree_kept_release(&kept, &ca.hooks);
  }
  /* refusals of a text decoded in the arena: a NUL in it, a name given
   * twice (at their paths, as for short ones) */
  size_t vl, vdl;
  escaped_text(600, 0, val, &vl, vald, &vdl);
  int n = snprintf(doc, sizeof doc, "{\"a\":{\"b\":\"%.*s\\u0000\"}}",
                   (int)vl, val);
  ddbst__jnode *root = NULL;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(ddbst__jtree_parse(&ar, doc, (size_t)n, &root, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.path, "a.b");
  assert_string_equal(err.message, "contains a NUL byte (\\u0000)");
  n = snprintf(doc, sizeof doc, "{\"%.*s\":1,\"%.*s\":2}", (int)vl, val,
               (int)vl, val);
  memset(&err, 0, sizeof err);
  assert_int_equal(ddbst__jtree_parse(&ar, doc, (size_t)n, &root, &err),
                   DDBST_ESYNTAX);
  /* "<name> given twice", cut at the message's size */
  assert_true(strlen(err.message) > 200);
  assert_memory_equal(err.message, vald, strlen(err.message));
}

static void refusals_say_where(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const refusal *r = &refusals[i];
    ddbst__jnode *root = (ddbst__jnode *)1; /* untouched on failure */
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst__jtree_parse(&ar, r->json, strlen(r->json), &root, &err);
    char want[DDBST_ERROR_MESSAGE_MAX];
    if (r->path)
      snprintf(want, sizeof want, "%s", r->message);
    else
      snprintf(want, sizeof want, "%s (line %u, column %u)", r->message,
               r->line, r->column);
    if (rc != r->code || strcmp(err.message, want) ||
        strcmp(err.path, r->path ? r->path : "") || err.offset != r->offset ||
        err.line != r->line || err.column != r->column)
      fail_msg("%s\n  got %d at %zu (%u:%u): %s: %s\n  want %d at %zu: %s: %s",
               r->json, rc, (size_t)err.offset, err.line, err.column, err.path,
               err.message, r->code, r->offset, r->path ? r->path : "", want);
    assert_int_equal(err.code, r->code);
    assert_ptr_equal(root, (ddbst__jnode *)1);
  }
  /* err may be NULL */
  ddbst__jnode *root = NULL;
  assert_int_equal(ddbst__jtree_parse(&ar, "[", 1, &root, NULL), DDBST_ESYNTAX);
  assert_null(root);
}

/* `levels` nested arrays around 1, on `lines` lines. */
static char *nested(int levels) {
  char *s = malloc(2 * (size_t)levels + 2);
  memset(s, '[', (size_t)levels);
  s[levels] = '1';
  memset(s + levels + 1, ']', (size_t)levels);
  s[2 * levels + 1] = '\0';
  return s;
}

static void nesting_and_members_are_bounded(void **state) {
  (void)state;
  char *ok = nested(64);
  const ddbst__jnode *n = parse_ok(ok);
  for (int i = 0; i < 63; i++) n = n->items[0];
  assert_string_equal(n->items[0]->text, "1");
  free(ok);
  char *deep = nested(65);
  ddbst__jnode *root = NULL;
  ddbst_error err;
  assert_int_equal(ddbst__jtree_parse(&ar, deep, strlen(deep), &root, &err),
                   DDBST_ESYNTAX);
  assert_string_equal(err.message, "nesting deeper than 64 levels");
  /* the path of the 65th array: 64 times [0] */
  assert_int_equal(strlen(err.path), 64 * 3);
  assert_int_equal(err.line, 1);
  assert_int_equal(err.column, 66);
  assert_int_equal(err.offset, 65); /* just past the 65th '[' */
  free(deep);
  /* objects count too */
  char obj[64 * 6 + 64 + 8] = "";
  for (int i = 0; i < 65; i++) strcat(obj, "{\"k\":");
  strcat(obj, "1");
  for (int i = 0; i < 65; i++) strcat(obj, "}");
  assert_int_equal(ddbst__jtree_parse(&ar, obj, strlen(obj), &root, &err),
                   DDBST_ESYNTAX);
  assert_non_null(strstr(err.message, "nesting deeper than 64 levels"));

  /* 4096 members in one object, and not one more */
  for (int count = 4096; count <= 4097; count++) {
    size_t cap = (size_t)count * 16 + 8;
    char *big = malloc(cap);
    size_t len = 0;
    big[len++] = '{';
    for (int i = 0; i < count; i++)
      len += (size_t)snprintf(big + len, cap - len, "%s\"m%d\":%d",
                              i ? "," : "", i, i);
    big[len++] = '}';
    int rc = ddbst__jtree_parse(&ar, big, len, &root, &err);
    if (count == 4096) {
      assert_int_equal(rc, 0);
      assert_int_equal(root->count, 4096);
      assert_string_equal(ddbst__jobj_get(root, "m4095")->text, "4095");
    } else {
      assert_int_equal(rc, DDBST_ESYNTAX);
      assert_non_null(strstr(err.message, "more than 4096 members"));
      /* the 4097th name is where it stopped */
      const char *at = strstr(big, "\"m4096\"");
      assert_int_equal(err.offset, (size_t)(at - big) + 7);
    }
    free(big);
  }

  /* a node's lengths and offsets are 32 bits: a document of 4 GiB or more
   * is refused before a byte of it is read (this one is 2 bytes long) */
  root = NULL;
  assert_int_equal(ddbst__jtree_parse(&ar, "{}", (size_t)UINT32_MAX, &root,
                                      &err),
                   DDBST_ERANGE);
  assert_string_equal(err.message, "a JSON document of 4 GiB or more");
  assert_null(root);
  assert_int_equal(ddbst__jtree_parse(&ar, "{}", 2, &root, &err), 0);
}

static void text_positions(void **state) {
  (void)state;
  static const char t[] = "ab\ncd\n\nx";
  static const struct {
    size_t offset;
    unsigned line, column;
  } at[] = {{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3},
            {6, 3, 1}, {7, 4, 1}, {8, 4, 2}, {100, 4, 2}};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    unsigned line = 0, column = 0;
    ddbst__text_position(t, strlen(t), at[i].offset, &line, &column);
    assert_int_equal(line, at[i].line);
    assert_int_equal(column, at[i].column);
  }
}

/* A document that makes every buffer grow: long strings (YAJL's lexer
 * buffer), deep nesting (its state stack, the tree's frames), many members
 * (the frames' arrays) and many nodes (arena blocks). */
static char *big_document(size_t *len) {
  size_t cap = 1 << 17, n = 0;
  char *d = malloc(cap);
  n += (size_t)snprintf(d + n, cap - n, "{\"long\":\"");
  for (int i = 0; i < 5000; i++) d[n++] = (char)('a' + i % 26);
  n += (size_t)snprintf(d + n, cap - n, "\\u00e9\",\"deep\":");
  for (int i = 0; i < 60; i++) d[n++] = '[';
  for (int i = 0; i < 60; i++) d[n++] = ']';
  n += (size_t)snprintf(d + n, cap - n, ",\"many\":{");
  for (int i = 0; i < 300; i++)
    n += (size_t)snprintf(d + n, cap - n, "%s\"k%d\":[%d,\"v%d\",null]",
                          i ? "," : "", i, i, i);
  n += (size_t)snprintf(d + n, cap - n, "}}");
  *len = n;
  return d;
}

static void allocation_failure_at_every_site(void **state) {
  (void)state;
  size_t len;
  char *doc = big_document(&len);
  long step;
  for (step = 1; step < 100000; step++) {
    ddbst__arena a2;
    counting_alloc_init(&ca);
    ddbst__arena_init(&a2, &ca.hooks);
    ca.fail_at = step;
    ddbst__jnode *root = NULL;
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst__jtree_parse(&a2, doc, len, &root, &err);
    ca.fail_at = 0;
    if (rc == 0) {
      assert_int_equal(root->count, 3);
      assert_int_equal(ddbst__jobj_get(root, "long")->len, 5002);
      assert_int_equal(ddbst__jobj_get(root, "many")->count, 300);
      ddbst__arena_free(&a2);
      assert_int_equal(ca.live, 0);
      break;
    }
    if (rc != DDBST_ENOMEM || strcmp(err.message, "out of memory"))
      fail_msg("allocation %ld failing: %d %s", step, rc, err.message);
    assert_null(root);
    ddbst__arena_free(&a2);
    if (ca.live) fail_msg("allocation %ld failing: %ld blocks leak", step,
                          ca.live);
  }
  assert_true(step > 20); /* the parser, the frames and the arena all failed */
  free(doc);
}

/* Every prefix of a document, and the document, ending at a page no byte of
 * may be read: the parser never reads past `len`. The tree keeps copies:
 * overwriting the input changes nothing in it. */
static void no_over_read(void **state) {
  (void)state;
  static const char doc[] =
      "{\"a\": [1, -2.5e3, true, false, null], \"s\": \"\\u00e9x\\n\","
      " \"o\": {\"k\": {}}, \"n\": 12345678901234567890}";
  size_t n = strlen(doc);
  for (size_t len = 0; len <= n; len++) {
    char *at = guard_copy(doc, len);
    ddbst__jnode *root = NULL;
    ddbst_error err;
    int rc = ddbst__jtree_parse(&ar, at, len, &root, &err);
    if (len < n)
      assert_int_equal(rc, DDBST_ESYNTAX);
    else
      assert_int_equal(rc, 0);
    guard_free(at);
  }
  /* numbers at the very end of the input are where a lexer looks ahead */
  for (size_t k = 0; k < 3; k++) {
    static const char *const tails[] = {"12345", "-0.5e+7", "[1,22]"};
    size_t tl = strlen(tails[k]);
    char *at = guard_copy(tails[k], tl);
    ddbst__jnode *root = NULL;
    ddbst_error err;
    assert_int_equal(ddbst__jtree_parse(&ar, at, tl, &root, &err), 0);
    guard_free(at);
  }
  char *at = guard_copy(doc, n);
  ddbst__jnode *root = NULL;
  ddbst_error err;
  assert_int_equal(ddbst__jtree_parse(&ar, at, n, &root, &err), 0);
  memset(at, 'x', n);
  assert_string_equal(member(root, "s")->text, "\xc3\xa9x\n");
  assert_string_equal(member(root, "n")->text, "12345678901234567890");
  assert_string_equal(root->keys[2], "o");
  guard_free(at);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(every_kind_of_value, fresh, released),
      cmocka_unit_test_setup_teardown(names_repeat_across_objects, fresh,
                                      released),
      cmocka_unit_test_setup_teardown(refusals_say_where, fresh, released),
      cmocka_unit_test_setup_teardown(long_escaped_strings, fresh, released),
      cmocka_unit_test_setup_teardown(nesting_and_members_are_bounded, fresh,
                                      released),
      cmocka_unit_test(text_positions),
      cmocka_unit_test_setup_teardown(large_objects_refuse_repeated_names,
                                      fresh, released),
      cmocka_unit_test_setup_teardown(allocation_failure_at_every_site, fresh,
                                      released),
      cmocka_unit_test_setup_teardown(no_over_read, fresh, released),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
