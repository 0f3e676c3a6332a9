/* The blog seed against DynamoDB Local: its access patterns (list every item
 * of an entity on gsi1, slug lookups on gsi2, published posts by category on
 * gsi3, written only while status = published) return exactly the expected
 * items in order; updates keep gsi3 true; and optimistic locking refuses a
 * stale version. Every write and read is a body ddbst built. */
#include <string.h>

#include "fixture.h"

#define B1 "01HX0000000000000000000001"
#define B2 "01HX0000000000000000000002"
#define B3 "01HX0000000000000000000003"
#define B4 "01HX0000000000000000000004"
#define B5 "01HX0000000000000000000005"
#define B6 "01HX0000000000000000000006"
#define S1 "01HY0000000000000000000001"
#define S2 "01HY0000000000000000000002"
#define S3 "01HY0000000000000000000003"

/* ---- the access patterns, on one table written once ---- */

/* Posts in two categories: published ones, a draft, and a scheduled draft
 * that already holds both of gsi3's facets (category and publishedAt) but
 * not its membership condition. Services with positions 1, 2 and 10, which
 * sort as numbers only because the key pads them (0001, 0002, 0010). */
static int write_seed(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=hello-world", "title=Hello",
               "summary=The first post", "category=news", "status=published",
               "tags=[\"intro\",\"news\"]", "publishedAt=2026-01-10T09:00:00Z",
               "createdAt=2026-01-09T08:00:00.000Z");
  ITEST_CREATE(f, "Blog", "blogId=" B2, "slug=second", "title=Second",
               "category=news", "status=published",
               "publishedAt=2026-02-01T00:00:00Z",
               "createdAt=2026-01-20T10:00:00.000Z");
  ITEST_CREATE(f, "Blog", "blogId=" B3, "slug=draft-news", "title=Draft",
               "category=news", "createdAt=2026-02-05T00:00:00.000Z");
  ITEST_CREATE(f, "Blog", "blogId=" B4, "slug=tips", "title=Tips",
               "category=howto", "status=published",
               "publishedAt=2026-01-25T00:00:00Z",
               "createdAt=2026-01-24T00:00:00.000Z");
  ITEST_CREATE(f, "Blog", "blogId=" B5, "slug=late", "title=Late",
               "category=news", "status=published",
               "publishedAt=2026-02-01T23:59:59Z",
               "createdAt=2026-02-02T00:00:00.000Z");
  ITEST_CREATE(f, "Blog", "blogId=" B6, "slug=scheduled", "title=Scheduled",
               "category=news", "status=draft",
               "publishedAt=2026-01-31T00:00:00Z",
               "createdAt=2026-01-30T00:00:00.123Z");
  ITEST_CREATE(f, "Service", "serviceId=" S1, "slug=consulting",
               "name=Consulting", "position=2");
  ITEST_CREATE(f, "Service", "serviceId=" S2, "slug=training",
               "name=Training", "position=1");
  ITEST_CREATE(f, "Service", "serviceId=" S3, "slug=audit", "name=Audit",
               "position=10");
  return 0;
}

static int group_setup(void **state) {
  *state = itest_open(DDBST_SOURCE_DIR "/examples/blog/model.json", "blog");
  if (!*state) return -1;
  return write_seed(state);
}

static int group_teardown(void **state) { return itest_teardown(state); }

/* getBlog: the whole item, with every index key a published post has, the
 * version it was created with and updatedAt at the write's instant. */
static void get_blog(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  yajl_val blog = itest_get(f);
  itest_expect_attributes(f, blog,
                          "pk sk gsi1pk gsi1sk gsi2pk gsi3pk gsi3sk entity "
                          "blogId slug title summary category tags status "
                          "publishedAt createdAt version updatedAt");
  itest_expect_s(blog, "pk", "BLOG#" B1);
  itest_expect_s(blog, "sk", "BLOG#" B1);
  itest_expect_s(blog, "gsi1pk", "BLOG");
  itest_expect_s(blog, "gsi1sk", "2026-01-09T08:00:00.000Z#" B1);
  itest_expect_s(blog, "gsi2pk", "BLOG#SLUG#hello-world");
  itest_expect_s(blog, "gsi3pk", "BLOG#CATEGORY#news");
  itest_expect_s(blog, "gsi3sk", "2026-01-10T09:00:00Z#" B1);
  itest_expect_s(blog, "entity", "Blog");
  itest_expect_s(blog, "status", "published");
  itest_expect_n(blog, "version", "1");
  itest_expect_s(blog, "updatedAt", "2026-03-20T00:00:00.000Z");
  const char *ss[] = {"tags", "SS", NULL};
  yajl_val tags = yajl_tree_get(blog, ss, yajl_t_array);
  assert_non_null(tags);
  assert_int_equal(tags->u.array.len, 2);

  /* a draft: default status, and no gsi3 keys */
  ITEST_VALUES(f, "Blog", "blogId=" B3);
  blog = itest_get(f);
  itest_expect_s(blog, "status", "draft");
  itest_expect_s(blog, "gsi3pk", NULL);
  itest_expect_s(blog, "gsi3sk", NULL);

  ITEST_VALUES(f, "Blog", "blogId=01HX0000000000000000000099");
  assert_null(itest_get(f));
}

/* listBlogs (gsi1): every post, drafts too, newest first; no services. */
static void list_blogs(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Blog");
  itest_expect(f, itest_query(f, "listBlogs", NULL), "slug",
               "draft-news late scheduled tips second hello-world",
               "listBlogs");
}

/* blogBySlug (gsi2, KEYS_ONLY): the one post, as keys to fetch it with. */
static void blog_by_slug(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Blog", "slug=second");
  yajl_val found = itest_query(f, "blogBySlug", NULL);
  itest_expect(f, found, "pk", "BLOG#" B2, "blogBySlug second");
  itest_expect_attributes(f, found->u.array.values[0], "pk sk gsi2pk");
  ITEST_VALUES(f, "Blog", "slug=Second"); /* no lower-casing asked for */
  itest_expect(f, itest_query(f, "blogBySlug", NULL), "pk", "",
               "blogBySlug Second");
  ITEST_VALUES(f, "Blog", "slug=consulting"); /* a service's slug */
  itest_expect(f, itest_query(f, "blogBySlug", NULL), "pk", "",
               "blogBySlug consulting");
}

/* publishedInCategory (gsi3): published posts of the category only, newest
 * first; not the draft, not the scheduled draft, not the other category. */
static void published_in_category(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Blog", "category=news");
  yajl_val news = itest_query(f, "publishedInCategory", NULL);
  itest_expect(f, news, "slug", "late second hello-world", "news");
  /* the INCLUDE projection: keys, title, slug, summary, publishedAt */
  itest_expect_attributes(f, news->u.array.values[0],
                          "pk sk gsi3pk gsi3sk title slug publishedAt");
  itest_expect_attributes(f, news->u.array.values[2],
                          "pk sk gsi3pk gsi3sk title slug summary "
                          "publishedAt");
  ITEST_VALUES(f, "Blog", "category=howto");
  itest_expect(f, itest_query(f, "publishedInCategory", NULL), "slug", "tips",
               "howto");
  ITEST_VALUES(f, "Blog", "category=News");
  itest_expect(f, itest_query(f, "publishedInCategory", NULL), "slug", "",
               "News");
}

/* The same with ranges on publishedAt, the first of two facets of gsi3sk. */
static void published_in_category_ranges(void **state) {
  itest_fixture *f = *state;
  static const struct {
    int condition;
    const char *value, *value2, *expected;
  } cases[] = {
      {DDBST_SK_GTE, "2026-02", NULL, "late second"},
      {DDBST_SK_LTE, "2026-02-01", NULL, "late second hello-world"},
      {DDBST_SK_LT, "2026-02-01", NULL, "hello-world"},
      {DDBST_SK_GT, "2026-02-01T00:00:00Z", NULL, "late"},
      {DDBST_SK_LTE, "2026-02-01T00:00:00Z", NULL, "second hello-world"},
      {DDBST_SK_BEGINS, "2026-02-01", NULL, "late second"},
      {DDBST_SK_BETWEEN, "2026-01", "2026-01-31", "hello-world"},
      /* pairs of bounds, each end by its own rule */
      {DDBST_SK_GT_LT, "2026-01", "2026-02-02", "late second"},
      {DDBST_SK_GT_LT, "2026-01", "2026-02-01T00:00:00Z", ""},
      {DDBST_SK_GT_LTE, "2026-01-10T09:00:00Z", "2026-02-01", "late second"},
      {DDBST_SK_GT_LTE, "2025", "2026-02-01T00:00:00Z", "second hello-world"},
      {DDBST_SK_GTE_LT, "2026-01-10T09:00:00Z", "2026-02-01T23:59:59Z",
       "second hello-world"},
      {DDBST_SK_GTE_LT, "2026-01-10", "2026-02", "hello-world"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ITEST_VALUES(f, "Blog", "category=news");
    ddbst_query q = itest_condition(f, cases[i].condition, "publishedAt",
                                    cases[i].value, cases[i].value2);
    itest_expect(f, itest_query(f, "publishedInCategory", &q), "slug",
                 cases[i].expected, cases[i].value);
  }
}

/* getService, listServices (gsi1, by position), serviceBySlug (gsi2). */
static void services(void **state) {
  itest_fixture *f = *state;
  ITEST_VALUES(f, "Service", "serviceId=" S3);
  yajl_val audit = itest_get(f);
  itest_expect_attributes(f, audit,
                          "pk sk gsi1pk gsi1sk gsi2pk entity serviceId slug "
                          "name position createdAt");
  itest_expect_s(audit, "pk", "SERVICE#" S3);
  itest_expect_s(audit, "gsi1sk", "0010#" S3);
  itest_expect_n(audit, "position", "10");
  itest_expect_s(audit, "createdAt", "2026-03-20T00:00:00.000Z");

  ITEST_VALUES(f, "Service");
  yajl_val all = itest_query(f, "listServices", NULL);
  itest_expect(f, all, "slug", "training consulting audit", "listServices");
  itest_expect(f, all, "gsi1sk", "0001#" S2 " 0002#" S1 " 0010#" S3,
               "listServices keys");

  ITEST_VALUES(f, "Service", "slug=audit");
  itest_expect(f, itest_query(f, "serviceBySlug", NULL), "pk", "SERVICE#" S3,
               "serviceBySlug audit");
  ITEST_VALUES(f, "Service", "slug=second"); /* a post's slug */
  itest_expect(f, itest_query(f, "serviceBySlug", NULL), "pk", "",
               "serviceBySlug second");
}

/* Conditions on a facet that ends the sort key after a non-empty prefix:
 * listBlogs (gsi1, {createdAt}#{blogId}) with createdAt given, on blogId.
 * Its exclusive bounds must become inclusive ones inside the BETWEEN (gt:
 * just above v; lt: the largest key below v that fits 1024 bytes), and the
 * posts a millisecond before and after createdAt must never come back. */
static void last_facet_after_a_prefix(void **state) {
  itest_fixture *f = *state;
#define AT "createdAt=2026-03-14T10:00:00.000Z"
  ITEST_CREATE(f, "Blog", "blogId=" B2, "slug=k2", "title=K", AT);
  ITEST_CREATE(f, "Blog", "blogId=01HX0000000000000000000010", "slug=k10",
               "title=K", AT);
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=k1", "title=K", AT);
  ITEST_CREATE(f, "Blog", "blogId=" B3, "slug=k3", "title=K", AT);
  ITEST_CREATE(f, "Blog", "blogId=" B5, "slug=before", "title=K",
               "createdAt=2026-03-14T09:59:59.999Z");
  ITEST_CREATE(f, "Blog", "blogId=" B4, "slug=after", "title=K",
               "createdAt=2026-03-14T10:00:00.001Z");
  /* p: a ULID prefix that k1, k2 and k3 start with, and k10 does not */
  const char *p = "01HX000000000000000000000";
  const struct {
    int condition;
    const char *value, *value2, *expected;
  } cases[] = {
      {DDBST_SK_NONE, NULL, NULL, "k10 k3 k2 k1"},
      {DDBST_SK_GT, B2, NULL, "k10 k3"},
      {DDBST_SK_GTE, B2, NULL, "k10 k3 k2"},
      {DDBST_SK_LT, B2, NULL, "k1"},
      {DDBST_SK_LTE, B2, NULL, "k2 k1"},
      {DDBST_SK_BEGINS, p, NULL, "k3 k2 k1"},
      {DDBST_SK_GT, p, NULL, "k10"},
      {DDBST_SK_GTE, p, NULL, "k10 k3 k2 k1"},
      {DDBST_SK_LTE, p, NULL, "k3 k2 k1"},
      {DDBST_SK_LT, "01HX0000000000000000000010", NULL, "k3 k2 k1"},
      {DDBST_SK_BETWEEN, B2, "01HX0000000000000000000010", "k10 k3 k2"},
      {DDBST_SK_GT_LT, B1, B3, "k2"},
      {DDBST_SK_GT_LT, p, "01HX0000000000000000000011", "k10"},
      {DDBST_SK_GT_LTE, B2, p, "k3"},
      {DDBST_SK_GTE_LT, B2, "01HX0000000000000000000010", "k3 k2"},
      {DDBST_SK_GTE_LT, "01HX", p, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ITEST_VALUES(f, "Blog", AT);
    ddbst_query q = itest_condition(f, cases[i].condition, "blogId",
                                    cases[i].value, cases[i].value2);
    itest_expect(f, itest_query(f, "listBlogs", &q), "slug", cases[i].expected,
                 cases[i].value ? cases[i].value : "no condition");
  }
#undef AT
}

/* ---- gsi3's membership under updates: a table per test ---- */

static void news_in_gsi3(itest_fixture *f, const char *expected,
                         const char *what) {
  ITEST_VALUES(f, "Blog", "category=news");
  itest_expect(f, itest_query(f, "publishedInCategory", NULL), "slug",
               expected, what);
}

/* The builders on f->item, writing into f's body; their return goes to
 * itest_ok, itest_condition_failed or an assertion on the error code. */
static int update_op(itest_fixture *f) {
  return ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                              &f->err);
}

static int create_op(itest_fixture *f) {
  return ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US, itest_body(f),
                           &f->err);
}

static int delete_op(itest_fixture *f, uint32_t flags) {
  return ddbst_delete_request(f->item, flags, itest_body(f), &f->err);
}

static void update(itest_fixture *f) { itest_ok(f, update_op(f)); }

/* Publishing (status, publishedAt and category together) writes gsi3's
 * keys; going back to draft, or removing the category, removes them. */
static void publishing_enters_and_leaves_gsi3(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=one", "title=One",
               "category=news");
  ITEST_CREATE(f, "Blog", "blogId=" B2, "slug=two", "title=Two",
               "category=news", "status=published",
               "publishedAt=2026-01-01T00:00:00Z");
  news_in_gsi3(f, "two", "before");

  ITEST_VALUES(f, "Blog", "blogId=" B1, "status=published", "category=news",
               "publishedAt=2026-02-01T00:00:00Z");
  update(f);
  news_in_gsi3(f, "one two", "after publishing one");
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  itest_expect_s(itest_get(f), "gsi3sk", "2026-02-01T00:00:00Z#" B1);

  ITEST_VALUES(f, "Blog", "blogId=" B2, "status=draft");
  update(f);
  news_in_gsi3(f, "one", "after two went back to draft");
  ITEST_VALUES(f, "Blog", "blogId=" B2);
  yajl_val two = itest_get(f);
  itest_expect_s(two, "gsi3pk", NULL);
  itest_expect_s(two, "gsi3sk", NULL);
  itest_expect_s(two, "category", "news");

  ITEST_VALUES(f, "Blog", "blogId=" B1);
  assert_int_equal(ddbst_item_remove(f->item, itest_attr(f, "category")), 0);
  update(f);
  news_in_gsi3(f, "", "after one lost its category");
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  yajl_val one = itest_get(f);
  itest_expect_s(one, "status", "published");
  itest_expect_s(one, "category", NULL);
  itest_expect_s(one, "gsi3pk", NULL);

  /* every post is still listed on gsi1 */
  ITEST_VALUES(f, "Blog");
  itest_expect(f, itest_query(f, "listBlogs", NULL), "slug", "two one",
               "listBlogs");
}

/* Changing the category (with status and publishedAt, which ddbst demands to
 * rebuild the keys) moves the post from one category's query to the other. */
static void changing_category_moves_the_post(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=one", "title=One",
               "category=news", "status=published",
               "publishedAt=2026-01-01T00:00:00Z");
  ITEST_VALUES(f, "Blog", "blogId=" B1, "category=howto");
  /* refused: without status ddbst cannot tell whether the post stays */
  assert_int_equal(update_op(f), DDBST_EMISSING);
  assert_string_equal(f->err.path, "Blog.indexes.gsi3");

  ITEST_VALUES(f, "Blog", "blogId=" B1, "category=howto", "status=published",
               "publishedAt=2026-01-01T00:00:00Z");
  update(f);
  news_in_gsi3(f, "", "news after the move");
  ITEST_VALUES(f, "Blog", "category=howto");
  itest_expect(f, itest_query(f, "publishedInCategory", NULL), "slug", "one",
               "howto after the move");
}

/* Setting status = published on a post that already holds category and
 * publishedAt (a scheduled draft going live; or a form that re-sends the
 * status of a published post with its new title). The item then meets
 * gsi3's condition and has every facet, so it belongs in gsi3; ddbst cannot
 * see the stored facets, so the update must be refused with DDBST_EMISSING
 * naming what it needs to rebuild gsi3's keys. (At commit 2b16572 it
 * REMOVEd gsi3pk and gsi3sk instead: the published post silently left its
 * category's list.) Given the facets, the post goes live in its place. */
static void publishing_without_facets_keeps_gsi3_true(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B6, "slug=scheduled", "title=Scheduled",
               "category=news", "publishedAt=2026-01-31T00:00:00Z");
  ITEST_CREATE(f, "Blog", "blogId=" B2, "slug=live", "title=Live",
               "category=news", "status=published",
               "publishedAt=2026-01-01T00:00:00Z");
  /* sparse by condition: the draft has both facets and is not in gsi3 */
  news_in_gsi3(f, "live", "before");
  ITEST_VALUES(f, "Blog", "blogId=" B6);
  itest_expect_s(itest_get(f), "gsi3pk", NULL);

  ITEST_VALUES(f, "Blog", "blogId=" B6, "status=published");
  assert_int_equal(update_op(f), DDBST_EMISSING);
  assert_string_equal(f->err.path, "Blog.indexes.gsi3");
  ITEST_VALUES(f, "Blog", "blogId=" B2, "status=published",
               "title=Live, edited");
  assert_int_equal(update_op(f), DDBST_EMISSING);
  assert_string_equal(f->err.path, "Blog.indexes.gsi3");

  ITEST_VALUES(f, "Blog", "blogId=" B6, "status=published", "category=news",
               "publishedAt=2026-01-31T00:00:00Z");
  update(f);
  news_in_gsi3(f, "scheduled live", "after going live");
}

/* ---- optimistic locking ---- */

/* A version-checked update succeeds once per version: a second writer
 * holding the same version is refused and changes nothing. */
static void stale_version_is_refused(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=one", "title=v1");

  ITEST_VALUES(f, "Blog", "blogId=" B1, "title=first writer");
  assert_int_equal(ddbst_item_expect_version(f->item, 1), 0);
  update(f);

  ITEST_VALUES(f, "Blog", "blogId=" B1, "title=second writer");
  assert_int_equal(ddbst_item_expect_version(f->item, 1), 0);
  itest_condition_failed(f, update_op(f));

  ITEST_VALUES(f, "Blog", "blogId=" B1);
  yajl_val blog = itest_get(f);
  itest_expect_n(blog, "version", "2");
  itest_expect_s(blog, "title", "first writer");

  /* with the current version it goes through, and the version moves on */
  ITEST_VALUES(f, "Blog", "blogId=" B1, "title=second writer, retried");
  assert_int_equal(ddbst_item_expect_version(f->item, 2), 0);
  update(f);
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  blog = itest_get(f);
  itest_expect_n(blog, "version", "3");
  itest_expect_s(blog, "title", "second writer, retried");
  itest_expect_s(blog, "slug", "one");
}

/* A delete with an expected version is refused when it is stale and goes
 * through when it is current. (A whole-item put cannot carry one here: Blog
 * has a unique slug, and ddbst refuses plain puts of such entities.) The
 * slug is given because the delete removes the slug's guard item too. */
static void stale_version_delete(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=one", "title=v1");
  ITEST_VALUES(f, "Blog", "blogId=" B1, "title=v2");
  assert_int_equal(ddbst_item_expect_version(f->item, 1), 0);
  update(f);

  ITEST_VALUES(f, "Blog", "blogId=" B1, "slug=one");
  assert_int_equal(ddbst_item_expect_version(f->item, 1), 0);
  itest_condition_failed(f, delete_op(f, 0));
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  itest_expect_s(itest_get(f), "title", "v2");

  ITEST_VALUES(f, "Blog", "blogId=" B1, "slug=one");
  assert_int_equal(ddbst_item_expect_version(f->item, 2), 0);
  itest_ok(f, delete_op(f, 0));
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  assert_null(itest_get(f));
}

/* The conditions that come with every write: create refuses an existing
 * key, update refuses a missing item (unless DDBST_UPSERT), delete with
 * DDBST_IF_EXISTS refuses a missing item. */
static void write_conditions(void **state) {
  itest_fixture *f = *state;
  ITEST_CREATE(f, "Blog", "blogId=" B1, "slug=one", "title=original");
  ITEST_VALUES(f, "Blog", "blogId=" B1, "slug=one", "title=clobber");
  itest_condition_failed(f, create_op(f));
  ITEST_VALUES(f, "Blog", "blogId=" B1);
  itest_expect_s(itest_get(f), "title", "original");

  ITEST_VALUES(f, "Blog", "blogId=" B2, "title=ghost");
  itest_condition_failed(f, update_op(f));
  ITEST_VALUES(f, "Blog", "blogId=" B2);
  assert_null(itest_get(f));

  ITEST_VALUES(f, "Blog", "blogId=" B2, "slug=two");
  itest_condition_failed(f, delete_op(f, DDBST_IF_EXISTS));
}

int main(void) {
  if (itest_should_skip("test_blog")) return ITEST_SKIP;
  const struct CMUnitTest patterns[] = {
      cmocka_unit_test(get_blog),
      cmocka_unit_test(list_blogs),
      cmocka_unit_test(blog_by_slug),
      cmocka_unit_test(published_in_category),
      cmocka_unit_test(published_in_category_ranges),
      cmocka_unit_test(services),
  };
  const struct CMUnitTest writes[] = {
      cmocka_unit_test_setup_teardown(last_facet_after_a_prefix,
                                      itest_setup_blog, itest_teardown),
      cmocka_unit_test_setup_teardown(publishing_enters_and_leaves_gsi3,
                                      itest_setup_blog, itest_teardown),
      cmocka_unit_test_setup_teardown(changing_category_moves_the_post,
                                      itest_setup_blog, itest_teardown),
      cmocka_unit_test_setup_teardown(
          publishing_without_facets_keeps_gsi3_true, itest_setup_blog,
          itest_teardown),
      cmocka_unit_test_setup_teardown(stale_version_is_refused,
                                      itest_setup_blog, itest_teardown),
      cmocka_unit_test_setup_teardown(stale_version_delete,
                                      itest_setup_blog, itest_teardown),
      cmocka_unit_test_setup_teardown(write_conditions, itest_setup_blog,
                                      itest_teardown),
  };
  int failed = cmocka_run_group_tests(patterns, group_setup, group_teardown);
  failed += cmocka_run_group_tests(writes, NULL, NULL);
  return failed ? 1 : 0;
}
