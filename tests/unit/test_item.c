/* Item values: each type's canonical text and refusals, defaults, required
 * attributes, monotonic ULIDs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "item/item.h"
#include "support.h"

static const char model_json[] =
    "{\"ddbst\":1,\"table\":{\"name\":\"tbl\",\"partitionKey\":\"PK\","
    "\"sortKey\":\"SK\",\"ttlAttribute\":\"expires\"},"
    "\"entities\":{\"Thing\":{\"attributes\":{"
    "\"id\":\"string\",\"n\":\"number\",\"i\":\"integer\",\"b\":\"boolean\","
    "\"ts\":{\"type\":\"timestamp\",\"precision\":\"ms\"},"
    "\"tus\":{\"type\":\"timestamp\",\"precision\":\"us\"},"
    "\"u\":\"ulid\",\"e\":{\"type\":\"enum\",\"values\":[\"red\",\"blue\"]},"
    "\"expires\":\"ttl\",\"l\":\"list\",\"m\":\"map\",\"ss\":\"string_set\","
    "\"ns\":\"number_set\",\"bin\":\"binary\","
    "\"must\":{\"type\":\"string\",\"required\":true},"
    "\"colour\":{\"type\":\"enum\",\"values\":[\"red\",\"blue\"],"
    "\"default\":\"blue\"},"
    "\"count\":{\"type\":\"integer\",\"default\":0},"
    "\"made\":{\"type\":\"timestamp\",\"default\":\"now\"},"
    "\"gen\":{\"type\":\"ulid\",\"default\":\"generate\"}},"
    "\"key\":{\"pk\":\"T#{id}\",\"sk\":\"T\"},"
    "\"version\":\"rev\",\"timestamps\":true}}}";

static ddbst_model *model;
static ddbst_item *item;

static int setup(void **state) {
  (void)state;
  model = load_text(model_json);
  item = ddbst_item_new(model, 0);
  return item ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ddbst_item_free(item);
  ddbst_model_free(model);
  return 0;
}

static const char *get(const char *name) {
  const char *v;
  size_t n;
  int a = ddbst_model_attribute(model, 0, name);
  assert_true(a >= 0);
  int rc = ddbst_item_get(item, a, &v, &n);
  assert_true(rc >= 0);
  assert_true(rc == 0 || strlen(v) == n);
  return rc == 1 ? v : NULL;
}

/* Sets `in` and expects `want` back, or a refusal when want is NULL. */
static void check_value(const char *name, const char *in, const char *want) {
  ddbst_error err;
  int rc = try_set(item, name, in, &err);
  if (!want) {
    if (rc != DDBST_EVALUE)
      fail_msg("%s=%s: expected a refusal, got %d", name, in, rc);
    char path[300];
    snprintf(path, sizeof path, "Thing.%s", name);
    assert_string_equal(err.path, path);
    assert_int_equal(err.code, DDBST_EVALUE);
    return;
  }
  if (rc) fail_msg("%s=%s: %s", name, in, err.message);
  assert_string_equal(get(name), want);
}

static void canonical_values(void **state) {
  (void)state;
  check_value("id", "Ünïcode stays as written", "Ünïcode stays as written");
  check_value("id", "", "");
  check_value("id", "bad \xff utf8", NULL);
  check_value("id", "overlong \xc0\xaf", NULL);
  check_value("n", "-12.50E+3", "-12.50E+3"); /* exactly as given */
  check_value("n", "123456789012345678901234567890123456789", NULL);
  check_value("n", "1E+126", NULL);
  check_value("n", "NaN", NULL);
  check_value("n", "+1", NULL);
  check_value("n", "1e", NULL);
  check_value("i", "-42", "-42");
  check_value("i", "4.2", NULL);
  check_value("i", "9223372036854775808", NULL);
  check_value("b", "true", "true");
  check_value("b", "yes", NULL);
  check_value("ts", "2026-03-14T10:00:00+01:00", "2026-03-14T09:00:00.000Z");
  check_value("ts", "2026-03-14T09:00:00.123456Z", "2026-03-14T09:00:00.123Z");
  check_value("ts", "2026-03-14 09:00:00Z", NULL);
  check_value("ts", "2026-03-14T09:00:00", NULL); /* no zone */
  check_value("tus", "2026-03-14T09:00:00.1Z", "2026-03-14T09:00:00.100000Z");
  check_value("u", "01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  check_value("u", "01ARZ3NDEKTSV4RRFFQ69G5FAL", NULL); /* L is not Crockford */
  check_value("u", "81ARZ3NDEKTSV4RRFFQ69G5FAV", NULL); /* overflows 128 bits */
  check_value("e", "red", "red");
  check_value("e", "Red", NULL);
  check_value("expires", "1767225600", "1767225600");
  check_value("expires", "2026-01-01T00:00:00Z", "1767225600");
  check_value("expires", "2026-01-01T01:00:00+01:00", "1767225600");
  check_value("expires", "-5", NULL);
  check_value("l", "[1, \"a\", {\"b\": null}, [false]]",
              "{\"L\":[{\"N\":\"1\"},{\"S\":\"a\"},{\"M\":{\"b\":{\"NULL\":true}}},"
              "{\"L\":[{\"BOOL\":false}]}]}");
  check_value("l", "{}", NULL);
  check_value("l", "[1e999]", NULL); /* not a DynamoDB number */
  check_value("m", "{\"a\": [true], \"q\\\"\": \"x\\n\"}",
              "{\"M\":{\"a\":{\"L\":[{\"BOOL\":true}]},\"q\\\"\":{\"S\":\"x\\n\"}}}");
  check_value("m", "{}", "{\"M\":{}}");
  check_value("m", "[]", NULL);
  check_value("m", "{\"a\": ", NULL);
  /* DynamoDB nests at most 32 levels */
  char deep[128] = "";
  for (int i = 0; i < 33; i++) strcat(deep, "[");
  for (int i = 0; i < 33; i++) strcat(deep, "]");
  check_value("l", deep, NULL);
  check_value("ss", "[\"a\", \"b\"]", "{\"SS\":[\"a\",\"b\"]}");
  check_value("ss", "[]", NULL); /* DynamoDB has no empty sets */
  check_value("ss", "[1]", NULL);
  check_value("ns", "[1, 2.5]", "{\"NS\":[\"1\",\"2.5\"]}");
  check_value("ns", "[[1]]", NULL);
  check_value("ns", "[\"1\"]", NULL);
  /* a map holds one value per name; the same name in two maps is two */
  check_value("m", "{\"a\": 1, \"b\": 2, \"a\": 3}", NULL);
  check_value("m", "{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}",
              "{\"M\":{\"a\":{\"M\":{\"a\":{\"N\":\"1\"}}},\"b\":{\"L\":["
              "{\"M\":{\"a\":{\"N\":\"2\"}}},{\"M\":{\"a\":{\"N\":\"3\"}}}]}}}");
  check_value("l", "[{\"x\": 1, \"x\": 1}]", NULL);
  /* DynamoDB refuses a set with an element twice; numbers by their value */
  check_value("ss", "[\"a\", \"a\"]", NULL);
  check_value("ss", "[\"a\", \"A\", \"a \"]",
              "{\"SS\":[\"a\",\"A\",\"a \"]}");
  check_value("ns", "[1, 1.0]", NULL);
  check_value("ns", "[0, -0.0]", NULL);
  check_value("ns", "[10, 1e1]", NULL);
  check_value("ns", "[0.5, 5e-1]", NULL);
  check_value("ns", "[1, 10, 0.1, -1, 100e-1]", NULL);
  check_value("ns", "[1, 10, 0.1, -1, 11]",
              "{\"NS\":[\"1\",\"10\",\"0.1\",\"-1\",\"11\"]}");
  check_value("bin", "aGVsbG8=", "aGVsbG8=");
  check_value("bin", "aGVsbG8", NULL);
}

/* The refusal of a duplicate names the attribute and both spellings. */
static void duplicate_set_elements(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(try_set(item, "ns", "[2, 1, 1.00]", &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Thing.ns");
  assert_string_equal(err.message,
                      "ns: 1 and 1.00 are one number, given twice in the set: "
                      "DynamoDB refuses a set with duplicate elements");
  assert_int_equal(try_set(item, "ss", "[\"x\", \"\\u00e9\", \"\xc3\xa9\"]",
                           &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Thing.ss");
  assert_string_equal(err.message,
                      "ss: \"\xc3\xa9\" is given twice in the set: DynamoDB "
                      "refuses a set with duplicate elements");
  /* thousands of elements: each looked up once */
  char big[80000];
  size_t n = 0;
  big[n++] = '[';
  for (int i = 0; i < 5000; i++)
    n += (size_t)snprintf(big + n, sizeof big - n, "%s%d", i ? "," : "", i);
  snprintf(big + n, sizeof big - n, ",4999.0]");
  assert_int_equal(try_set(item, "ns", big, &err), DDBST_EVALUE);
  assert_string_equal(err.message,
                      "ns: 4999 and 4999.0 are one number, given twice in the "
                      "set: DynamoDB refuses a set with duplicate elements");
  big[n] = ']';
  big[n + 1] = '\0';
  assert_int_equal(try_set(item, "ns", big, &err), 0);
}

/* A refused value leaves the previous one in place. */
static void refusal_keeps_old_value(void **state) {
  (void)state;
  check_value("e", "blue", "blue");
  check_value("e", "green", NULL);
  assert_string_equal(get("e"), "blue");
}

static void nul_in_value_refused(void **state) {
  (void)state;
  ddbst_error err;
  int a = ddbst_model_attribute(model, 0, "id");
  assert_int_equal(ddbst_item_set(item, a, "a\0b", 3, &err), DDBST_EVALUE);
  assert_string_equal(err.path, "Thing.id");
}

static void typed_setters(void **state) {
  (void)state;
  ddbst_error err;
  int i = ddbst_model_attribute(model, 0, "i");
  assert_int_equal(ddbst_item_set_int(item, i, INT64_MIN, &err), 0);
  assert_string_equal(get("i"), "-9223372036854775808");
  int b = ddbst_model_attribute(model, 0, "b");
  assert_int_equal(ddbst_item_set_bool(item, b, 0, &err), 0);
  assert_string_equal(get("b"), "false");
  int id = ddbst_model_attribute(model, 0, "id");
  assert_int_equal(ddbst_item_set_int(item, id, 1, &err), DDBST_EVALUE);
  assert_int_equal(ddbst_item_set(item, 999, "x", 1, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_item_get(item, 999, NULL, NULL), DDBST_EINVAL);
  assert_int_equal(ddbst_item_unset(item, i), 0);
  assert_null(get("i"));
}

/* A default records what setting its text records (its scan, which the
 * plans read): the same as ddbst_item_set of that text on a fresh item. */
static void same_scan_as_set(const char *name) {
  int a = ddbst_model_attribute(model, 0, name);
  const char *t;
  size_t n;
  assert_int_equal(ddbst_item_get(item, a, &t, &n), 1);
  ddbst_item *other = ddbst_item_new(model, 0);
  assert_non_null(other);
  assert_int_equal(ddbst_item_set(other, a, t, n, NULL), 0);
  if (item->vals[a].scan != other->vals[a].scan)
    fail_msg("%s: a default's scan %u, a set's %u", name, item->vals[a].scan,
             other->vals[a].scan);
  ddbst_item_free(other);
}

static void defaults(void **state) {
  (void)state;
  assert_int_equal(ddbst_item_reset(item, 0), 0);
  /* 2026-03-14T09:00:00.123456Z */
  int64_t now = 1773478800123456LL;
  assert_int_equal(ddbst_item_apply_defaults(item, now, NULL), 0);
  assert_string_equal(get("colour"), "blue");
  assert_string_equal(get("count"), "0");
  assert_string_equal(get("made"), "2026-03-14T09:00:00Z");
  /* timestamps: true adds createdAt/updatedAt at ms precision */
  assert_string_equal(get("createdAt"), "2026-03-14T09:00:00.123Z");
  assert_string_equal(get("updatedAt"), "2026-03-14T09:00:00.123Z");
  const char *u = get("gen");
  assert_non_null(u);
  assert_int_equal(strlen(u), 26);
  /* the ULID's time part is the same instant: 1773478800123 ms */
  assert_memory_equal(u, "01KKNS5TQV", 10);
  static const char *const defaulted[] = {"colour", "count", "made",
                                          "createdAt", "updatedAt", "gen"};
  for (size_t k = 0; k < sizeof defaulted / sizeof *defaulted; k++)
    same_scan_as_set(defaulted[k]);
  /* given values are kept */
  check_value("colour", "red", "red");
  assert_int_equal(ddbst_item_apply_defaults(item, now, NULL), 0);
  assert_string_equal(get("colour"), "red");
  /* nothing without a default is invented */
  assert_null(get("id"));
  assert_null(get("rev"));
  assert_string_equal(ddbst_model_attribute_type(model, 0,
                          ddbst_model_attribute(model, 0, "rev")),
                      "integer");
}

static void ulids_are_monotonic(void **state) {
  (void)state;
  char prev[27] = "";
  int64_t now = 1773478800123456LL;
  for (int i = 0; i < 1000; i++) {
    ddbst_item_reset(item, 0);
    /* the same millisecond every time, and once a step back in time */
    assert_int_equal(ddbst_item_apply_defaults(item, i == 500 ? now - 5000 : now,
                                               NULL),
                     0);
    const char *u = get("gen");
    assert_true(strcmp(u, prev) > 0);
    memcpy(prev, u, 27);
  }
}

static void required(void **state) {
  (void)state;
  ddbst_item_reset(item, 0);
  ddbst_error err;
  /* the primary-key facet first, then the declared required attribute */
  assert_int_equal(ddbst_item_check_required(item, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "Thing.id");
  check_value("id", "x", "x");
  assert_int_equal(ddbst_item_check_required(item, &err), DDBST_EMISSING);
  assert_string_equal(err.path, "Thing.must");
  assert_string_equal(err.message, "Thing.must is required");
  check_value("must", "y", "y");
  assert_int_equal(ddbst_item_check_required(item, &err), 0);
}

/* ddbst_item_set takes the common values on fast paths; each verdict must be
 * the general path's (ddbst__value_canon): the same code, text, path and
 * message, and on refusal the old value kept. */
static void same_as_value_canon(const char *name, const char *text, size_t n) {
  int attr = ddbst_model_attribute(model, 0, name);
  assert_true(attr >= 0);
  ddbst_item_reset(item, 0);
  int other = ddbst_model_attribute(model, 0, "must");
  assert_int_equal(ddbst_item_set(item, other, "kept", 4, NULL), 0);
  char *in = malloc(n ? n : 1); /* exact size: ASan sees any over-read */
  assert_non_null(in);
  if (n) memcpy(in, text, n);

  ddbst_buf *want = ddbst_buf_new(NULL);
  char why[160];
  int want_rc = ddbst__value_canon(&model->entities[0].attrs[attr], in, n,
                                   want, why, sizeof why);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_item_set(item, attr, in, n, &err);
  if (rc != want_rc)
    fail_msg("%s = '%.*s': %d, value_canon %d", name, (int)n, text, rc,
             want_rc);
  const char *v;
  size_t vn;
  if (rc == 0) {
    assert_int_equal(ddbst_item_get(item, attr, &v, &vn), 1);
    assert_int_equal(vn, ddbst_buf_len(want));
    assert_memory_equal(v, ddbst_buf_data(want), vn);
    assert_int_equal(v[vn], '\0');
  } else {
    char path[300], msg[sizeof err.message];
    snprintf(path, sizeof path, "Thing.%s", name);
    snprintf(msg, sizeof msg, "%s: %s", name, why);
    assert_int_equal(err.code, want_rc);
    assert_string_equal(err.path, path);
    assert_string_equal(err.message, msg);
    assert_int_equal(ddbst_item_get(item, attr, NULL, NULL), 0);
  }
  assert_int_equal(ddbst_item_get(item, other, &v, &vn), 1);
  assert_string_equal(v, "kept");
  ddbst_buf_free(want);
  free(in);
}

static void fast_paths_agree_with_value_canon(void **state) {
  (void)state;
  char t[700] = {0};
  /* strings at every length past two SSE blocks and past the room a fresh
   * item has, with a bad byte or a two-byte character in every place */
  static const char *const odd[] = {"\x00", "\x80", "\xC3", "\xFF", "\xC3\xA9",
                                    "\xED\xA0\x80", "\x7F"};
  for (size_t n = 0; n <= 40; n++) {
    for (size_t i = 0; i < n; i++) t[i] = (char)('!' + (i * 7) % 90);
    same_as_value_canon("id", t, n);
    for (size_t at = 0; at < n; at++)
      for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        char m[64];
        memcpy(m, t, n);
        size_t ol = k == 0 ? 1 : strlen(odd[k]);
        memcpy(m + at, odd[k], at + ol <= n ? ol : n - at);
        same_as_value_canon("id", m, n);
      }
  }
  memset(t, 'x', sizeof t);
  same_as_value_canon("id", t, 600);
  t[599] = '\x80';
  same_as_value_canon("id", t, 600);

  /* enum values, near misses at every place, and other lengths */
  static const char *const enums[] = {"red", "blue", "Red", "blu", "bluee",
                                      "", "r\xC3\xA9", "redredredredredred"};
  for (size_t k = 0; k < sizeof enums / sizeof enums[0]; k++) {
    size_t n = strlen(enums[k]);
    same_as_value_canon("e", enums[k], n);
    for (size_t at = 0; at < n; at++)
      for (int c = 0; c < 256; c += 17) {
        memcpy(t, enums[k], n);
        t[at] = (char)c;
        same_as_value_canon("e", t, n);
      }
  }

  /* ULIDs in either case, each place given each kind of wrong character */
  static const char ulid[] = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  static const char wrong[] = {'I', 'l', 'O', 'u', '8', 'z', '#', 0, '\x80'};
  same_as_value_canon("u", ulid, 26);
  same_as_value_canon("u", "01arz3ndektsv4rrffq69g5fav", 26);
  same_as_value_canon("u", ulid, 25);
  same_as_value_canon("u", "01ARZ3NDEKTSV4RRFFQ69G5FAVX", 27);
  for (size_t at = 0; at < 26; at++)
    for (size_t k = 0; k < sizeof wrong; k++) {
      memcpy(t, ulid, 26);
      t[at] = wrong[k];
      same_as_value_canon("u", t, 26);
    }

  /* timestamps at each attribute's precision and the others, each place
   * given each kind of wrong character */
  static const struct {
    const char *name, *text;
  } ts[] = {{"ts", "2024-02-29T23:59:59.999Z"},
            {"ts", "2023-02-28T00:00:00.000Z"},
            {"ts", "2026-03-14T09:00:00Z"},
            {"ts", "2026-03-14T10:00:00.123+01:00"},
            {"tus", "2026-12-31T23:59:59.123456Z"},
            {"tus", "2026-03-14T09:00:00.123Z"},
            {"made", "2026-03-14T09:00:00Z"},
            {"made", "2026-03-14T09:00:00.000Z"}};
  static const char digit_wrong[] = {'/', ':', '9', '3', 'x', 0, '\x80', 'Z'};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    size_t n = strlen(ts[k].text);
    same_as_value_canon(ts[k].name, ts[k].text, n);
    same_as_value_canon(ts[k].name, ts[k].text, n - 1);
    for (size_t at = 0; at < n; at++)
      for (size_t c = 0; c < sizeof digit_wrong; c++) {
        memcpy(t, ts[k].text, n);
        t[at] = digit_wrong[c];
        same_as_value_canon(ts[k].name, t, n);
      }
  }
}

/* A put refuses REMOVE, ADD and append; a reset forgets them. */
static void put_refuses_update_only_operations(void **state) {
  (void)state;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  int n = ddbst_model_attribute(model, 0, "n");
  for (int round = 0; round < 2; round++) {
    ddbst_item_reset(item, 0);
    check_value("id", "x", "x");
    check_value("must", "y", "y");
    int64_t now = 1773478800123456LL;
    assert_true(ddbst_put_request(item, 0, now, out, &err) >= 0);
    if (round == 0)
      assert_int_equal(ddbst_item_remove(item, n), 0);
    else
      assert_int_equal(ddbst_item_add(item, n, "2", 1, &err), 0);
    assert_int_equal(ddbst_put_request(item, 0, now, out, &err), DDBST_EVALUE);
    assert_string_equal(err.path, "Thing.n");
    assert_string_equal(err.message, "n has a REMOVE, ADD or append, which "
                                     "only an update can carry");
    check_value("n", "1", "1"); /* a plain value again */
    assert_true(ddbst_put_request(item, 0, now, out, &err) >= 0);
  }
  ddbst_buf_free(out);
}

static void bad_handles(void **state) {
  (void)state;
  assert_null(ddbst_item_new(model, 5));
  assert_null(ddbst_item_new(model, -1));
  assert_null(ddbst_item_new(NULL, 0));
  assert_int_equal(ddbst_item_reset(item, 3), DDBST_EINVAL);
  assert_int_equal(ddbst_item_entity(NULL), DDBST_EINVAL);
  ddbst_item_free(NULL);
}

/* Every allocation of item creation may fail: NULL, and nothing leaks. */
static void item_new_allocation_failures(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca.hooks;
  ddbst_model *m;
  assert_int_equal(ddbst_model_load(model_json, strlen(model_json), &o, &m,
                                    NULL),
                   0);
  long base_live = ca.live;
  for (long n = 1;; n++) {
    ca.calls = 0;
    ca.fail_at = n;
    ddbst_item *it = ddbst_item_new(m, 0);
    ca.fail_at = 0;
    if (it) {
      ddbst_item_free(it);
      break;
    }
    assert_int_equal(ca.live, base_live);
    assert_true(n < 50);
  }
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(canonical_values),
      cmocka_unit_test(duplicate_set_elements),
      cmocka_unit_test(refusal_keeps_old_value),
      cmocka_unit_test(nul_in_value_refused),
      cmocka_unit_test(typed_setters),
      cmocka_unit_test(defaults),
      cmocka_unit_test(ulids_are_monotonic),
      cmocka_unit_test(required),
      cmocka_unit_test(fast_paths_agree_with_value_canon),
      cmocka_unit_test(put_refuses_update_only_operations),
      cmocka_unit_test(bad_handles),
      cmocka_unit_test(item_new_allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
