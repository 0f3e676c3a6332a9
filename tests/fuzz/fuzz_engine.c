/* libFuzzer: the one key engine, differentially. Every consumer of the facet
 * renderer (src/item/facet_key.c) is held to an independent statement of
 * what it must do, for every kind of facet (plain, :lower, %-escaped, both,
 * ordered escaping with and without :lower, integers with sortable
 * negatives, timestamps, ULIDs and enums, each also lower-cased, text in
 * NFC, also lower-cased, and in NFKC_Casefold, the normal forms computed by
 * utf8proc's own whole-string functions), with a one- and a two-byte
 * delimiter, on the table, a global index, a local index and an inverted
 * index (on the table's SK and PK):
 *
 *   keys      the keys object equals the key list, and each key is its
 *             literals and each facet's key form as this file computes it;
 *             the inverted index has no key attribute of its own; a
 *             normal form that is empty or holds the delimiter is refused;
 *   bounds    every sort-key condition of docs/queries.md, every pair of
 *             bounds (gt or gte with lt or lte) among them (complete and
 *             partial values, the facet followed by another or ending the
 *             key) selects exactly the items whose facet satisfies it, by
 *             the table of conditions evaluated here on the values;
 *   cursors   a LastEvaluatedKey sealed into a cursor opens back into
 *             exactly the same ExclusiveStartKey, in the same partition
 *             (the inverted index's is the item's sort key);
 *   guards    a unique guard's key is its literal and the facet's key form;
 *   order     (issue 16) the facet is one a range reads before the
 *             delimiter: a value whose key text would sort below it there
 *             (some proper prefix of the text, then the delimiter, not
 *             below the text, then the delimiter) is refused, in an item's
 *             keys and in a condition; ordered escaping refuses nothing,
 *             and its conditions are held to the values' own order.
 *
 * Input: a byte choosing the model, facet kind and index; a byte choosing
 * the condition and how its values are made; then up to eight item values
 * and two condition values, drawn from the bytes that follow: string values
 * hold any printable ASCII (the bytes below the delimiter and the
 * delimiter's own included), control bytes and multi-byte UTF-8. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>
#include <yajl/yajl_tree.h>

#include "ddbst.h"

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "fuzz_engine: %s failed at line %d\n", #c, __LINE__);    \
      __builtin_trap();                                                        \
    }                                                                          \
  } while (0)

/* ---- the models: one entity per facet kind ---- */

enum {
  K_STR,
  K_LOW,
  K_ESC,
  K_ESCLOW,
  K_ORD,
  K_ORDLOW,
  K_INT,
  K_TS,
  K_TSLOW,
  K_ULID,
  K_ULIDLOW,
  K_ENUM,
  K_ENUMLOW,
  K_NFC,
  K_NFCLOW,
  K_NFKC,
  NKINDS
};

static const struct {
  const char *attr; /* the facet attribute's declaration */
  int lower, escape; /* escape: 1 %-escaping, 2 ordered */
  const char *unique; /* NULL, or the guard's literal */
  int normalize;      /* 1 NFC, 2 NFKC_Casefold */
} KINDS[NKINDS] = {
    [K_STR] = {"\"string\"", 0, 0, NULL},
    [K_LOW] = {"\"string\"", 1, 0, "U1"},
    [K_ESC] = {"{\"type\":\"string\",\"escape\":true}", 0, 1, "U2"},
    [K_ESCLOW] = {"{\"type\":\"string\",\"escape\":true}", 1, 1, NULL},
    [K_ORD] = {"{\"type\":\"string\",\"escape\":\"ordered\"}", 0, 2, "U3"},
    [K_ORDLOW] = {"{\"type\":\"string\",\"escape\":\"ordered\"}", 1, 2,
                  NULL},
    [K_INT] = {"{\"type\":\"integer\",\"width\":5,\"negative\":\"sortable\"}",
               0, 0, NULL},
    [K_TS] = {"{\"type\":\"timestamp\",\"precision\":\"ms\"}", 0, 0, NULL},
    [K_TSLOW] = {"{\"type\":\"timestamp\",\"precision\":\"s\"}", 1, 0, NULL},
    [K_ULID] = {"\"ulid\"", 0, 0, NULL},
    [K_ULIDLOW] = {"\"ulid\"", 1, 0, NULL},
    [K_ENUM] = {"{\"type\":\"enum\",\"values\":[\"Alpha\",\"alpine\",\"Beta\","
                "\"beta2\",\"Gamma\"]}",
                0, 0, NULL},
    [K_ENUMLOW] = {"{\"type\":\"enum\",\"values\":[\"Alpha\",\"alpine\","
                   "\"Beta\",\"beta2\",\"Gamma\"]}",
                   1, 0, NULL},
    [K_NFC] = {"{\"type\":\"string\",\"normalize\":\"NFC\"}", 0, 0, NULL,
               1},
    [K_NFCLOW] = {"{\"type\":\"string\",\"normalize\":\"NFC\"}", 1, 0,
                  NULL, 1},
    [K_NFKC] = {"{\"type\":\"string\",\"normalize\":\"NFKC_Casefold\"}", 0,
                0, "U4", 2},
};

static const char *const ENUM_VALUES[] = {"Alpha", "alpine", "Beta", "beta2",
                                          "Gamma"};

static const char *const DELIMS[2] = {"#", "$$"};

typedef struct world {
  ddbst_model *m;
  const char *d;
  size_t dn;
  int entity[NKINDS], p[NKINDS], f[NKINDS], id[NKINDS];
  int table[NKINDS], index[NKINDS], local[NKINDS],
      inverted[NKINDS]; /* the patterns */
} world;

static world worlds[2];
static ddbst_cursor_keys *keyring;

/* Entity E<k>: table key P<d>{p} / K<k><d>{f}<d>{id} (the facet followed by
 * another), index key G<k><d>{p} / {f} (the facet is the whole key), local
 * index key L<k><d>{f} (the table's partition), and the inverted index INV
 * on the table's own keys (SK / PK, nothing written for it). */
static void load_world(int w) {
  static char json[16384];
  const char *d = DELIMS[w];
  size_t n = (size_t)snprintf(
      json, sizeof json,
      "{\"ddbst\":1,\"table\":{\"name\":\"engine\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"delimiter\":\"%s\",\"indexes\":{\"GIX\":{"
      "\"partitionKey\":\"GPK\",\"sortKey\":\"GSK\"},\"INV\":{"
      "\"partitionKey\":\"SK\",\"sortKey\":\"PK\"}},\"localIndexes\":{"
      "\"LIX\":{\"sortKey\":\"LSK\"}}},\"entities\":{",
      d);
  for (int k = 0; k < NKINDS; k++) {
    n += (size_t)snprintf(
        json + n, sizeof json - n,
        "%s\"E%d\":{\"attributes\":{\"p\":\"string\",\"id\":\"string\","
        "\"f\":%s},\"key\":{\"pk\":\"P%s{p}\",\"sk\":\"K%d%s{f%s}%s{id}\"},"
        "\"indexes\":{\"GIX\":{\"pk\":\"G%d%s{p}\",\"sk\":\"{f%s}\"},"
        "\"LIX\":{\"sk\":\"L%d%s{f%s}\"},\"INV\":{}}",
        k ? "," : "", k, KINDS[k].attr, d, k, d, KINDS[k].lower ? ":lower" : "",
        d, k, d, KINDS[k].lower ? ":lower" : "", k, d,
        KINDS[k].lower ? ":lower" : "");
    if (KINDS[k].unique)
      n += (size_t)snprintf(json + n, sizeof json - n,
                            ",\"unique\":{\"f\":\"%s%s{f%s}\"}",
                            KINDS[k].unique, d, KINDS[k].lower ? ":lower" : "");
    n += (size_t)snprintf(json + n, sizeof json - n, "}");
  }
  n += (size_t)snprintf(json + n, sizeof json - n, "},\"patterns\":{");
  for (int k = 0; k < NKINDS; k++)
    n += (size_t)snprintf(
        json + n, sizeof json - n,
        "%s\"t%d\":{\"query\":\"E%d\",\"range\":\"f\"},\"g%d\":{\"query\":"
        "\"E%d\",\"index\":\"GIX\",\"range\":\"f\"},\"l%d\":{\"query\":"
        "\"E%d\",\"index\":\"LIX\",\"range\":\"f\"},\"v%d\":{\"query\":"
        "\"E%d\",\"index\":\"INV\"}",
        k ? "," : "", k, k, k, k, k, k, k, k);
  n += (size_t)snprintf(json + n, sizeof json - n, "}}");
  CHECK(n < sizeof json);
  world *W = &worlds[w];
  ddbst_error err;
  if (ddbst_model_load(json, n, NULL, &W->m, &err)) {
    fprintf(stderr, "fuzz_engine: model: %s: %s\n%s\n", err.path, err.message,
            json);
    abort();
  }
  W->d = d;
  W->dn = strlen(d);
  for (int k = 0; k < NKINDS; k++) {
    char name[16];
    snprintf(name, sizeof name, "E%d", k);
    W->entity[k] = ddbst_model_entity(W->m, name);
    W->p[k] = ddbst_model_attribute(W->m, W->entity[k], "p");
    W->f[k] = ddbst_model_attribute(W->m, W->entity[k], "f");
    W->id[k] = ddbst_model_attribute(W->m, W->entity[k], "id");
    snprintf(name, sizeof name, "t%d", k);
    W->table[k] = ddbst_model_pattern(W->m, name);
    snprintf(name, sizeof name, "g%d", k);
    W->index[k] = ddbst_model_pattern(W->m, name);
    snprintf(name, sizeof name, "l%d", k);
    W->local[k] = ddbst_model_pattern(W->m, name);
    snprintf(name, sizeof name, "v%d", k);
    W->inverted[k] = ddbst_model_pattern(W->m, name);
    CHECK(W->entity[k] >= 0 && W->f[k] >= 0 && W->table[k] >= 0 &&
          W->index[k] >= 0 && W->local[k] >= 0 && W->inverted[k] >= 0);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  load_world(0);
  load_world(1);
  static const uint8_t key[DDBST_CURSOR_KEY_BYTES] = {1, 2, 3};
  keyring = ddbst_cursor_keys_new(NULL);
  if (!keyring || ddbst_cursor_keys_add(keyring, key, NULL))
    abort();
  return 0;
}

/* ---- the input ---- */

typedef struct src {
  const uint8_t *p, *end;
} src;

static unsigned take(src *s) { return s->p < s->end ? *s->p++ : 0; }

/* A value for facet kind k from the input, as a caller would type it (not
 * always canonical: zones, fraction digits and letter case vary). */
static size_t make_value(src *s, int k, char *out, size_t cap) {
  size_t n = 0;
  switch (k) {
  case K_INT: {
    unsigned hi = take(s), mid = take(s), lo = take(s);
    int64_t v = (int64_t)(hi << 16 | mid << 8 | lo) % 200000 -
                100000; /* -100000 is past the width: refused */
    return (size_t)snprintf(out, cap, "%lld", (long long)v);
  }
  case K_TS:
  case K_TSLOW: {
    unsigned y = 1990 + take(s) % 60, mo = 1 + take(s) % 12,
             da = 1 + take(s) % 28, h = take(s) % 24, mi = take(s) % 60,
             se = take(s) % 60, fr = take(s) % 1000, z = take(s) % 4;
    if (z == 0)
      return (size_t)snprintf(out, cap, "%04u-%02u-%02uT%02u:%02u:%02uZ", y, mo,
                              da, h, mi, se);
    if (z == 1)
      return (size_t)snprintf(out, cap, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ",
                              y, mo, da, h, mi, se, fr);
    return (size_t)snprintf(
        out, cap, "%04u-%02u-%02uT%02u:%02u:%02u.%u%s%02u:00", y, mo, da, h, mi,
        se, fr, z == 2 ? "+" : "-", take(s) % 12);
  }
  case K_ULID:
  case K_ULIDLOW: {
    static const char crock[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    out[n++] = crock[take(s) % 8];
    for (int i = 1; i < 26; i++) {
      unsigned b = take(s);
      char c = crock[b % 32];
      out[n++] = (b & 0x80) && c >= 'A' ? (char)(c + 32) : c;
    }
    return n;
  }
  case K_ENUM:
  case K_ENUMLOW: {
    const char *v = ENUM_VALUES[take(s) % 5];
    return (size_t)snprintf(out, cap, "%s", v);
  }
  default: { /* strings: 1 to 8 characters */
    /* é É 日 😀 DEL, and what normalisation changes: e + combining acute,
     * a lone combining acute, fullwidth A and #, the fi ligature, a soft
     * hyphen (ignorable), sharp s, the Kelvin sign */
    static const char *const multi[] = {
        "\xc3\xa9",     "\xc3\x89",     "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
        "\x7f",         "e\xcc\x81",    "\xcc\x81",     "\xef\xbc\xa1",
        "\xef\xbc\x83", "\xef\xac\x81", "\xc2\xad",     "\xc3\x9f",
        "\xe2\x84\xaa"};
    size_t len = 1 + take(s) % 8;
    for (size_t i = 0; i < len && n + 4 < cap; i++) {
      unsigned b = take(s);
      if (b >= 0xF0) {
        const char *mb = multi[b % (sizeof multi / sizeof *multi)];
        memcpy(out + n, mb, strlen(mb));
        n += strlen(mb);
        continue;
      }
      /* printable ASCII, now and then a control byte */
      char c = b >= 0xE8 ? (char)(1 + b % 0x1F) : (char)(0x20 + b % 0x5F);
      out[n++] = c;
    }
    return n;
  }
  }
}

/* ---- the statement: key forms and conditions, independently ---- */

/* A normalised kind's value in its normal form, by utf8proc's whole-string
 * functions (ddbst itself decomposes and re-encodes into its own memory);
 * else the value as it is. Into out (1024 bytes). */
static size_t normal_text(int k, const char *v, size_t n, char *out) {
  if (!KINDS[k].normalize) {
    memcpy(out, v, n);
    return n;
  }
  char z[512];
  CHECK(n < sizeof z);
  memcpy(z, v, n);
  z[n] = '\0';
  utf8proc_uint8_t *f = KINDS[k].normalize == 1
                            ? utf8proc_NFC((const utf8proc_uint8_t *)z)
                            : utf8proc_NFKC_Casefold((const utf8proc_uint8_t *)z);
  if (!f) { /* a bound cut inside a character: ddbst refuses it as it is */
    memcpy(out, v, n);
    return n;
  }
  size_t fn = strlen((const char *)f);
  CHECK(fn < 1024);
  memcpy(out, f, fn);
  free(f);
  return fn;
}

/* A string facet's key text: in its normal form where the attribute asks,
 * lower-cased (ASCII) where the template says, then %-escaped ('%' and the
 * delimiter's bytes as %XX) or escaped in order (every byte up to the
 * delimiter's first, and the byte just above it, as that byte and XX)
 * where the attribute does. */
static size_t key_text(int k, const char *d, const char *v, size_t n,
                       char *out) {
  static const char hex[] = "0123456789ABCDEF";
  char normal[1024];
  n = normal_text(k, v, n, normal);
  v = normal;
  unsigned char d0 = (unsigned char)d[0], e = (unsigned char)(d0 + 1);
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if (KINDS[k].lower && c >= 'A' && c <= 'Z')
      c = (unsigned char)(c + 32);
    int percent = KINDS[k].escape == 1 && (c == '%' || memchr(d, c, strlen(d)));
    int ordered = KINDS[k].escape == 2 && (c <= d0 || c == e);
    if (percent || ordered) {
      out[o++] = percent ? '%' : (char)e;
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    } else {
      out[o++] = (char)c;
    }
  }
  return o;
}

/* What a condition's order is on: the key text, except that ordered
 * escaping is held to the values' own order (lower-cased where the key
 * is). */
static size_t order_of(int k, const char *d, const char *v, size_t n,
                       char *out) {
  if (KINDS[k].escape != 2)
    return key_text(k, d, v, n, out);
  for (size_t i = 0; i < n; i++)
    out[i] = KINDS[k].lower && v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] + 32)
                                                          : v[i];
  return n;
}

/* Whether text t holds the delimiter d anywhere. */
static int holds(const char *t, size_t n, const char *d, size_t dn) {
  for (size_t i = 0; i + dn <= n; i++)
    if (!memcmp(t + i, d, dn))
      return 1;
  return 0;
}

/* Whether key text t, followed by the delimiter, sorts out of place: some
 * proper prefix of it (another value's text), then the delimiter, does not
 * sort below it, then the delimiter. Stated as the definition, by
 * comparing the two keys. */
static int misplaced(const char *d, const char *t, size_t n) {
  size_t dn = strlen(d);
  char a[1100], b[1100];
  if (n + dn > sizeof a) return 0;
  memcpy(b, t, n);
  memcpy(b + n, d, dn);
  for (size_t i = 1; i < n; i++) {
    memcpy(a, t, i);
    memcpy(a + i, d, dn);
    size_t m = i + dn < n + dn ? i + dn : n + dn;
    /* the rest of each key is anything: a tie is no order either */
    if (memcmp(a, b, m) >= 0) return 1;
  }
  return 0;
}

/* The kinds whose facet a range reads before the delimiter (the table's
 * sort key has {id} after {f}) and whose length varies: every string kind
 * but the ordered ones, and the enums. */
static int order_checked(int k) {
  return k == K_STR || k == K_LOW || k == K_ESC || k == K_ESCLOW ||
         k == K_ENUM || k == K_ENUMLOW || k == K_NFC || k == K_NFCLOW ||
         k == K_NFKC;
}

/* The kinds whose attribute is a string: a bound typed for them is taken
 * as it is, never canonicalised to a stored value. */
static int is_string(int k) {
  return k == K_STR || k == K_LOW || k == K_ESC || k == K_ESCLOW ||
         k == K_ORD || k == K_ORDLOW || k == K_NFC || k == K_NFCLOW ||
         k == K_NFKC;
}

/* An integer's key form at width 5 with sortable negatives: the ten's
 * complement, so that byte order is numeric order. */
static size_t int_key_text(int64_t v, char *out) {
  if (v >= 0)
    return (size_t)snprintf(out, 8, "%05lld", (long long)v);
  return (size_t)snprintf(out, 8, "-%05lld", (long long)(100000 + v));
}

static size_t facet_key_text(int k, const char *d, const char *v, size_t n,
                             char *out) {
  if (k == K_INT)
    return int_key_text(strtoll(v, NULL, 10), out);
  return key_text(k, d, v, n, out);
}

typedef struct text {
  const char *p;
  size_t n;
} text;

static int cmp(text a, text b) {
  size_t n = a.n < b.n ? a.n : b.n;
  int c = memcmp(a.p, b.p, n);
  return c ? c : (a.n > b.n) - (a.n < b.n);
}

static int starts(text x, text p) {
  return x.n >= p.n && memcmp(x.p, p.p, p.n) == 0;
}

/* The table of conditions (DESIGN.md, docs/queries.md) on facet text x:
 * the lower end by v (partial or not), the upper end by v2. */
static int lower_holds(int cond, text x, text v, int partial) {
  switch (cond) {
  case DDBST_SK_GTE:
  case DDBST_SK_BETWEEN:
  case DDBST_SK_GTE_LT:
    return cmp(x, v) >= 0;
  case DDBST_SK_GT:
  case DDBST_SK_GT_LT:
  case DDBST_SK_GT_LTE:
    return partial ? cmp(x, v) > 0 && !starts(x, v) : cmp(x, v) > 0;
  default:
    return 1;
  }
}

static int upper_holds(int cond, text x, text v, int partial) {
  switch (cond) {
  case DDBST_SK_LTE:
  case DDBST_SK_BETWEEN:
  case DDBST_SK_GT_LTE:
    return cmp(x, v) <= 0 || (partial && starts(x, v));
  case DDBST_SK_LT:
  case DDBST_SK_GT_LT:
  case DDBST_SK_GTE_LT:
    return cmp(x, v) < 0;
  default:
    return 1;
  }
}

/* A condition with two bounds: its upper one is value2. */
static int is_pair(int cond) {
  return cond == DDBST_SK_BETWEEN || cond == DDBST_SK_GT_LT ||
         cond == DDBST_SK_GT_LTE || cond == DDBST_SK_GTE_LT;
}

/* ---- reading ddbst's answers back ---- */

static yajl_val at(yajl_val v, const char *k1, const char *k2, const char *k3) {
  const char *path[] = {k1, k2, k3, NULL};
  return yajl_tree_get(v, path, yajl_t_any);
}

/* The S text of member `name` of an AttributeValue map. */
static const char *s_of(yajl_val map, const char *name) {
  yajl_val v = at(map, name, "S", NULL);
  return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

/* Whether a sort key `sk` satisfies the body's KeyConditionExpression (the
 * partition key checked by the caller). */
static int key_condition_holds(yajl_val body, text sk) {
  yajl_val e = at(body, "KeyConditionExpression", NULL, NULL);
  CHECK(YAJL_IS_STRING(e));
  const char *x = YAJL_GET_STRING(e);
  yajl_val vals = at(body, "ExpressionAttributeValues", NULL, NULL);
  const char *v1s = s_of(vals, ":v1"), *v2s = s_of(vals, ":v2");
  text v1 = {v1s, v1s ? strlen(v1s) : 0}, v2 = {v2s, v2s ? strlen(v2s) : 0};
  if (!strstr(x, " AND "))
    return 1;
  CHECK(v1s);
  if (strstr(x, "begins_with(#n1, :v1)"))
    return starts(sk, v1);
  if (strstr(x, "#n1 BETWEEN :v1 AND :v2"))
    return v2s && cmp(sk, v1) >= 0 && cmp(sk, v2) <= 0;
  if (strstr(x, "#n1 >= :v1"))
    return cmp(sk, v1) >= 0;
  if (strstr(x, "#n1 > :v1"))
    return cmp(sk, v1) > 0;
  if (strstr(x, "#n1 <= :v1"))
    return cmp(sk, v1) <= 0;
  if (strstr(x, "#n1 < :v1"))
    return cmp(sk, v1) < 0;
  if (strstr(x, "#n1 = :v1"))
    return cmp(sk, v1) == 0;
  CHECK(!"a key condition this file does not know");
  return 0;
}

/* ---- one run ---- */

enum { MAX_ITEMS = 8 };

typedef struct item_keys {
  char pk[256], sk[256], gpk[256], gsk[256], lsk[256];
  char f[256]; /* the facet's canonical value, as ddbst_item_get gives it */
  size_t fn;
  int64_t num; /* integers: the value */
  int ok;
} item_keys;

/* The facet's text for the order: its key form computed here, or for
 * ordered escaping its value. */
static text order_text(int k, const char *d, const item_keys *ik, char *buf) {
  if (k == K_INT)
    return (text){buf, int_key_text(ik->num, buf)};
  return (text){buf, order_of(k, d, ik->f, ik->fn, buf)};
}

/* Checks the keys of one item against their statement, and keeps them. */
static void keys_of(world *W, int k, ddbst_item *it, ddbst_buf *b,
                    item_keys *ik) {
  ddbst_error e1, e2;
  ddbst_buf_reset(b);
  int r1 = ddbst_item_keys_json(it, b, &e1);
  int n = ddbst_item_build_keys(it, &e2);
  CHECK((r1 < 0) == (n < 0));
  /* order: refused where the statement says a range would misplace it;
   * ordered escaping refuses no string */
  const char *fv;
  size_t fvl;
  if (ddbst_item_get(it, W->f[k], &fv, &fvl) == 1 && fvl < 256) {
    char fk[1024];
    size_t fkl = key_text(k, W->d, fv, fvl, fk);
    if (order_checked(k) && misplaced(W->d, fk, fkl))
      CHECK(n < 0);
    /* a normal form that is empty (ignorables only) or holds the
     * delimiter (fullwidth # is # in NFKC) makes no key */
    if (KINDS[k].normalize) {
      char nt[1024];
      size_t nl = normal_text(k, fv, fvl, nt);
      if (nl == 0 || holds(nt, nl, W->d, W->dn))
        CHECK(n < 0);
    }
    if (KINDS[k].escape == 2)
      CHECK(n >= 0);
  }
  if (n < 0)
    return;
  yajl_val obj = yajl_tree_parse(ddbst_buf_data(b), NULL, 0);
  CHECK(YAJL_IS_OBJECT(obj) && (int)obj->u.object.len == n);
  const char *v;
  size_t vl;
  CHECK(ddbst_item_get(it, W->f[k], &v, &vl) == 1 && vl < sizeof ik->f);
  memcpy(ik->f, v, vl);
  ik->f[vl] = '\0';
  ik->fn = vl;
  if (k == K_INT)
    ik->num = strtoll(ik->f, NULL, 10);
  const char *p, *id;
  size_t pl, idl;
  CHECK(ddbst_item_get(it, W->p[k], &p, &pl) == 1);
  CHECK(ddbst_item_get(it, W->id[k], &id, &idl) == 1);
  char fk[1024];
  size_t fkl = facet_key_text(k, W->d, ik->f, ik->fn, fk);
  /* the keys as the statement has them */
  char want_sk[2048], want_gsk[1024], want_lsk[1100];
  snprintf(want_sk, sizeof want_sk, "K%d%s%.*s%s%.*s", k, W->d, (int)fkl, fk,
           W->d, (int)idl, id);
  snprintf(want_gsk, sizeof want_gsk, "%.*s", (int)fkl, fk);
  snprintf(want_lsk, sizeof want_lsk, "L%d%s%.*s", k, W->d, (int)fkl, fk);
  for (int i = 0; i < n; i++) {
    const char *name, *value;
    size_t len;
    CHECK(ddbst_item_key(it, i, &name, &value, &len) == 0);
    CHECK(obj->u.object.keys[i] && strcmp(obj->u.object.keys[i], name) == 0);
    yajl_val jv = obj->u.object.values[i];
    CHECK(YAJL_IS_STRING(jv) && strlen(YAJL_GET_STRING(jv)) == len &&
          memcmp(YAJL_GET_STRING(jv), value, len) == 0);
    char *dst = !strcmp(name, "PK")    ? ik->pk
                : !strcmp(name, "SK")  ? ik->sk
                : !strcmp(name, "GPK") ? ik->gpk
                : !strcmp(name, "GSK") ? ik->gsk
                : !strcmp(name, "LSK") ? ik->lsk
                                       : NULL;
    /* the inverted index reads the table's keys: nothing of its own */
    CHECK(dst);
    CHECK(len < 256);
    memcpy(dst, value, len);
    dst[len] = '\0';
  }
  yajl_tree_free(obj);
  CHECK(strcmp(ik->sk, want_sk) == 0);
  CHECK(strcmp(ik->gsk, want_gsk) == 0);
  CHECK(strcmp(ik->lsk, want_lsk) == 0);
  CHECK(n == 5);
  ik->ok = 1;
}

/* s as a JSON string's contents into out (room for 6 bytes a byte). */
static const char *jesc(const char *s, char *out) {
  static const char hex[] = "0123456789abcdef";
  char *o = out;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = (char)c;
    } else if (c < 0x20) {
      memcpy(o, "\\u00", 4);
      o[4] = hex[c >> 4];
      o[5] = hex[c & 15];
      o += 6;
    } else {
      *o++ = (char)c;
    }
  }
  *o = '\0';
  return out;
}

/* Where a query reads: the table, the global index GIX, the local index
 * LIX, the inverted index INV (keyed on SK, then PK). */
enum { AT_TABLE, AT_GLOBAL, AT_LOCAL, AT_INVERTED };

/* A sealed cursor of a LastEvaluatedKey at this item opens to the same
 * keys. */
static void cursor_round_trip(world *W, int k, int pattern, int where,
                              const item_keys *ik, ddbst_item *values,
                              ddbst_page *pg, ddbst_buf *b, ddbst_buf *cur) {
  static char page[8192], e1[1600], e2[1600], e3[1600], e4[1600];
  int indexed = where == AT_GLOBAL;
  if (indexed)
    snprintf(page, sizeof page,
             "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,"
             "\"LastEvaluatedKey\":{\"GPK\":{\"S\":\"%s\"},\"GSK\":{\"S\":"
             "\"%s\"},\"PK\":{\"S\":\"%s\"},\"SK\":{\"S\":\"%s\"}}}",
             jesc(ik->gpk, e1), jesc(ik->gsk, e2), jesc(ik->pk, e3),
             jesc(ik->sk, e4));
  else if (where == AT_LOCAL)
    snprintf(page, sizeof page,
             "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,"
             "\"LastEvaluatedKey\":{\"LSK\":{\"S\":\"%s\"},\"PK\":{\"S\":"
             "\"%s\"},\"SK\":{\"S\":\"%s\"}}}",
             jesc(ik->lsk, e1), jesc(ik->pk, e3), jesc(ik->sk, e4));
  else if (where == AT_INVERTED)
    snprintf(page, sizeof page,
             "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,"
             "\"LastEvaluatedKey\":{\"SK\":{\"S\":\"%s\"},\"PK\":{\"S\":"
             "\"%s\"}}}",
             jesc(ik->sk, e4), jesc(ik->pk, e3));
  else
    snprintf(page, sizeof page,
             "{\"Items\":[],\"Count\":0,\"ScannedCount\":0,"
             "\"LastEvaluatedKey\":{\"PK\":{\"S\":\"%s\"},\"SK\":{\"S\":"
             "\"%s\"}}}",
             jesc(ik->pk, e3), jesc(ik->sk, e4));
  ddbst_error err;
  CHECK(ddbst_page_parse_query(pg, values, pattern, page, strlen(page), &err) >=
        0);
  int rc = ddbst_page_next_cursor(pg, keyring, DDBST_NOW, cur, &err);
  if (rc != 1) {
    fprintf(stderr, "fuzz_engine: cursor of %s: %s: %s\n", page, err.path,
            err.message);
    CHECK(rc == 1);
  }
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = ddbst_buf_data(cur);
  q.cursor_len = ddbst_buf_len(cur);
  q.cursor_keys = keyring;
  ddbst_buf_reset(b);
  rc = ddbst_query_request(values, pattern, &q, b, &err);
  if (rc != DDBST_OP_QUERY)
    fprintf(stderr, "fuzz_engine: opening: %s: %s\n", err.path, err.message);
  CHECK(rc == DDBST_OP_QUERY);
  yajl_val body = yajl_tree_parse(ddbst_buf_data(b), NULL, 0);
  yajl_val esk = at(body, "ExclusiveStartKey", NULL, NULL);
  CHECK(YAJL_IS_OBJECT(esk));
  /* the query reads the partition the cursor was made in */
  const char *part = s_of(at(body, "ExpressionAttributeValues", NULL, NULL),
                          ":v0");
  CHECK(part && !strcmp(part, indexed              ? ik->gpk
                              : where == AT_INVERTED ? ik->sk
                                                     : ik->pk));
  CHECK(s_of(esk, "PK") && !strcmp(s_of(esk, "PK"), ik->pk));
  CHECK(s_of(esk, "SK") && !strcmp(s_of(esk, "SK"), ik->sk));
  if (indexed) {
    CHECK(s_of(esk, "GPK") && !strcmp(s_of(esk, "GPK"), ik->gpk));
    CHECK(s_of(esk, "GSK") && !strcmp(s_of(esk, "GSK"), ik->gsk));
  }
  if (where == AT_LOCAL)
    CHECK(s_of(esk, "LSK") && !strcmp(s_of(esk, "LSK"), ik->lsk));
  CHECK(esk->u.object.len ==
        (indexed ? 4u : where == AT_LOCAL ? 3u : 2u));
  yajl_tree_free(body);
  (void)W;
  (void)k;
}

/* The create's guard item is keyed by the guard's literal and the facet's
 * key form. */
static void guard_key(world *W, int k, ddbst_item *it, const item_keys *ik,
                      ddbst_buf *b) {
  ddbst_buf_reset(b);
  ddbst_error err;
  int rc = ddbst_put_request(it, DDBST_CREATE, 1, b, &err);
  CHECK(rc == DDBST_OP_TRANSACT_WRITE_ITEMS);
  yajl_val body = yajl_tree_parse(ddbst_buf_data(b), NULL, 0);
  yajl_val items = at(body, "TransactItems", NULL, NULL);
  CHECK(YAJL_IS_ARRAY(items) && items->u.array.len == 2);
  yajl_val guard = at(items->u.array.values[1], "Put", "Item", NULL);
  char fk[1024], want[1100];
  size_t fkl = key_text(k, W->d, ik->f, ik->fn, fk);
  snprintf(want, sizeof want, "%s%s%.*s", KINDS[k].unique, W->d, (int)fkl, fk);
  CHECK(s_of(guard, "PK") && !strcmp(s_of(guard, "PK"), want));
  CHECK(s_of(guard, "SK") && !strcmp(s_of(guard, "SK"), want));
  yajl_tree_free(body);
}

/* The condition's value: raw input, an item's value as typed or as stored,
 * or a proper prefix of one (a partial value for timestamps, ULIDs and
 * enums). *stated: the statement knows its meaning (partial or not, and its
 * key text), else only "built or refused" is checked. */
static size_t make_bound(src *s, int k, world *W,
                         const item_keys *items, char typed[][256],
                         const size_t *typed_len, int nitems, char *out,
                         text *order, char *order_buf, int *partial,
                         int *stated) {
  unsigned mode = take(s), i = take(s) % (unsigned)nitems;
  *partial = 0;
  *stated = 0;
  if (mode % 4 == 0 || !items[i].ok) {
    size_t n = make_value(s, k, out, 256);
    return n;
  }
  const item_keys *ik = &items[i];
  size_t n;
  if (mode % 4 == 1) { /* as the caller typed it */
    n = typed_len[i];
    memcpy(out, typed[i], n);
  } else {
    n = ik->fn;
    memcpy(out, ik->f, n);
  }
  *stated = 1;
  if (k == K_INT) {
    n = (size_t)snprintf(out, 32, "%lld", (long long)ik->num);
    *order = (text){order_buf, int_key_text(ik->num, order_buf)};
    return n;
  }
  if (mode % 4 == 3 && ik->fn > 1) { /* a proper prefix of the canonical */
    size_t cut = 1 + (mode >> 2) % (ik->fn - 1);
    /* never inside a UTF-8 character */
    while (cut > 1 && ((unsigned char)ik->f[cut] & 0xC0) == 0x80)
      cut--;
    memcpy(out, ik->f, cut);
    n = cut;
    int typed_prefix = k == K_TS || k == K_TSLOW || k == K_ULID ||
                       k == K_ULIDLOW || k == K_ENUM || k == K_ENUMLOW;
    if (typed_prefix) {
      *partial = 1;
      for (int e = 0; e < 5 && (k == K_ENUM || k == K_ENUMLOW); e++)
        if (strlen(ENUM_VALUES[e]) == n && !memcmp(ENUM_VALUES[e], out, n))
          *partial = 0; /* a value of its own */
    }
  }
  *order = (text){order_buf, order_of(k, W->d, out, n, order_buf)};
  if (mode % 4 == 1 && !is_string(k))
    /* typed values canonicalise to the stored one */
    *order = (text){order_buf, order_of(k, W->d, ik->f, ik->fn, order_buf)};
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  src s = {data, data + size};
  unsigned b0 = take(&s), b1 = take(&s);
  world *W = &worlds[b0 & 1];
  int k = (int)((b0 >> 1) % NKINDS);
  int where = (int)(b1 % 3); /* AT_TABLE, AT_GLOBAL or AT_LOCAL */
  int cond = (int)((b1 / 3) % 10);
  int pattern = where == AT_GLOBAL  ? W->index[k]
                : where == AT_LOCAL ? W->local[k]
                                    : W->table[k];
  int e = W->entity[k];

  ddbst_item *it = ddbst_item_new(W->m, e);
  ddbst_item *values = ddbst_item_new(W->m, e);
  ddbst_buf *b = ddbst_buf_new(NULL), *cur = ddbst_buf_new(NULL);
  ddbst_page *pg = ddbst_page_new(W->m);
  CHECK(it && values && b && cur && pg);

  /* the items: one partition, ids in order, and one in another partition */
  static item_keys items[MAX_ITEMS];
  static char typed[MAX_ITEMS][256];
  size_t typed_len[MAX_ITEMS];
  int nitems = 1 + (int)(take(&s) % MAX_ITEMS);
  for (int i = 0; i < nitems; i++) {
    memset(&items[i], 0, sizeof items[i]);
    typed_len[i] = make_value(&s, k, typed[i], 256);
    ddbst_item_reset(it, e);
    char id[8];
    snprintf(id, sizeof id, "i%d", i);
    ddbst_error err;
    if (ddbst_item_set(it, W->p[k], i == nitems - 1 && i ? "q" : "p", 1,
                       &err) ||
        ddbst_item_set(it, W->id[k], id, strlen(id), &err))
      CHECK(0);
    if (ddbst_item_set(it, W->f[k], typed[i], typed_len[i], &err)) {
      CHECK(err.message[0]);
      continue;
    }
    keys_of(W, k, it, b, &items[i]);
    if (!items[i].ok)
      continue;
    if (KINDS[k].unique)
      guard_key(W, k, it, &items[i], b);
    ddbst_item_reset(values, e);
    CHECK(!ddbst_item_set(values, W->p[k], i == nitems - 1 && i ? "q" : "p", 1,
                          NULL));
    cursor_round_trip(W, k, pattern, where, &items[i], values, pg, b, cur);
    /* the inverted index: the item's whole sort key is the partition */
    ddbst_item_reset(values, e);
    CHECK(!ddbst_item_set(values, W->f[k], typed[i], typed_len[i], NULL) &&
          !ddbst_item_set(values, W->id[k], id, strlen(id), NULL));
    cursor_round_trip(W, k, W->inverted[k], AT_INVERTED, &items[i], values, pg,
                      b, cur);
  }

  /* the condition */
  char v1[256], v2[256], o1[1024], o2[1024];
  text t1 = {NULL, 0}, t2 = {NULL, 0};
  int p1 = 0, p2 = 0, s1 = 0, s2 = 0;
  size_t n1 = make_bound(&s, k, W, items, typed, typed_len, nitems,
                         v1, &t1, o1, &p1, &s1);
  size_t n2 = make_bound(&s, k, W, items, typed, typed_len, nitems,
                         v2, &t2, o2, &p2, &s2);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = cond;
  q.attribute = W->f[k];
  q.value = v1;
  q.value_len = n1;
  q.value2 = v2;
  q.value2_len = n2;
  q.limit = 1;
  ddbst_item_reset(values, e);
  CHECK(!ddbst_item_set(values, W->p[k], "p", 1, NULL));
  ddbst_buf_reset(b);
  ddbst_error err;
  int rc = ddbst_query_request(values, pattern, &q, b, &err);
  int stated =
      cond == DDBST_SK_NONE || (s1 && (!is_pair(cond) || s2));
  /* order: a condition whose value no item may hold is refused */
  if (cond != DDBST_SK_NONE && order_checked(k)) {
    char ck[1024];
    int bad = misplaced(W->d, ck, key_text(k, W->d, v1, n1, ck));
    if (is_pair(cond))
      bad |= misplaced(W->d, ck, key_text(k, W->d, v2, n2, ck));
    if (bad)
      CHECK(rc < 0);
  }
  if (rc < 0) {
    CHECK(err.message[0]);
    /* refused as empty: then nothing may satisfy it */
    if (stated && rc == DDBST_ERANGE)
      for (int i = 0; i < nitems; i++) {
        if (!items[i].ok)
          continue;
        char buf[1024];
        text x = order_text(k, W->d, &items[i], buf);
        CHECK(!(lower_holds(cond, x, t1, p1) &&
                upper_holds(cond, x, is_pair(cond) ? t2 : t1,
                            is_pair(cond) ? p2 : p1) &&
                (cond != DDBST_SK_BEGINS || starts(x, t1))));
      }
  } else if (stated) {
    CHECK(rc == DDBST_OP_QUERY);
    yajl_val body = yajl_tree_parse(ddbst_buf_data(b), NULL, 0);
    CHECK(body);
    const char *pk =
        s_of(at(body, "ExpressionAttributeValues", NULL, NULL), ":v0");
    CHECK(pk);
    for (int i = 0; i < nitems; i++) {
      if (!items[i].ok)
        continue;
      const item_keys *ik = &items[i];
      const char *ipk = where == AT_GLOBAL ? ik->gpk : ik->pk;
      const char *isk = where == AT_GLOBAL  ? ik->gsk
                        : where == AT_LOCAL ? ik->lsk
                                            : ik->sk;
      int got = !strcmp(ipk, pk) &&
                key_condition_holds(body, (text){isk, strlen(isk)});
      char buf[1024];
      text x = order_text(k, W->d, ik, buf);
      int want = !strcmp(ipk, pk);
      if (cond == DDBST_SK_BEGINS)
        want = want && starts(x, t1);
      else if (cond != DDBST_SK_NONE)
        want = want && lower_holds(cond, x, t1, p1) &&
               upper_holds(cond, x, is_pair(cond) ? t2 : t1,
                           is_pair(cond) ? p2 : p1);
      if (got != want) {
        fprintf(stderr,
                "fuzz_engine: kind %d %s, condition %d (%.*s%s, %.*s%s): "
                "item %s / %s is %s\nbody: %s\n",
                k, where == AT_GLOBAL  ? "global index"
                   : where == AT_LOCAL ? "local index"
                                       : "table",
                cond, (int)n1, v1,
                p1 ? " partial" : "", (int)n2, v2, p2 ? " partial" : "", ipk,
                isk, got ? "returned" : "missed", ddbst_buf_data(b));
        CHECK(got == want);
      }
    }
    yajl_tree_free(body);
  }
  ddbst_page_free(pg);
  ddbst_buf_free(cur);
  ddbst_buf_free(b);
  ddbst_item_free(values);
  ddbst_item_free(it);
  return 0;
}
