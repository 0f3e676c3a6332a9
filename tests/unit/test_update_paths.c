/* The short UpdateItem writers, the plan's (request/update_plan.c) and the
 * one-pass one (request/update_simple.c), each held to the general one
 * (request.c): for every entity of every example model, with
 * its primary key given and each other attribute alone, each pair, and
 * all of them, in clean text and in text that needs a JSON escape or holds
 * the delimiter, under each flag an update takes, the short way either
 * declines (leaving the buffer and the item as they were) or writes exactly the general
 * writer's body, which then succeeds. The bench's update is one the plan
 * takes. */
#include <stdio.h>
#include <string.h>

#include "item/item.h"
#include "model/update_plan.h"
#include "request/request.h"
#include "support.h"

static const char *const models[] = {
    "examples/saas/model.json",    "examples/blog/model.json",
    "examples/catalog/model.json", "examples/games/model.json",
    "examples/mailbox/model.json", "examples/orgchart/model.json",
    "examples/shop/model.json",
};

enum { MAXA = 64 };

/* A value each attribute takes (NULL: none of the candidates), in one of
 * three flavours for strings: clean, needing an escape, with '#'. */
typedef struct values {
  const char *text[MAXA];
  int n;
} values;

static const char *candidates[] = {
    "2026-03-14T09:00:00Z", "2026-03-14T09:00:00.000Z",
    "2026-03-14T09:00:00.000000Z", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "42",
    "true", "[\"a\",\"b\"]", "{\"k\":1}",
};

static void find_values(ddbst_model *m, int entity, int flavour, values *v) {
  const ddbst__entity *e = &m->entities[entity];
  ddbst_item *it = ddbst_item_new(m, entity);
  assert_non_null(it);
  static char own[3][MAXA][32];
  v->n = e->nattrs < MAXA ? e->nattrs : MAXA;
  for (int a = 0; a < v->n; a++) {
    const ddbst__attr *at = &e->attrs[a];
    v->text[a] = NULL;
    if (at->type == DDBST__T_ENUM) {
      v->text[a] = at->values[at->nvalues - 1];
      continue;
    }
    if (at->type == DDBST__T_STRING) {
      if (flavour == 0) snprintf(own[0][a], sizeof own[0][0], "v-%d", a);
      if (flavour == 1) snprintf(own[1][a], sizeof own[0][0], "say \"hi\" %d", a);
      if (flavour == 2) snprintf(own[2][a], sizeof own[0][0], "a#b%d", a);
      v->text[a] = own[flavour][a];
      continue;
    }
    for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
      ddbst_item_reset(it, entity);
      if (ddbst_item_set(it, a, candidates[c], strlen(candidates[c]), NULL) ==
          0) {
        v->text[a] = candidates[c];
        break;
      }
    }
  }
  ddbst_item_free(it);
}

/* The item: its primary key's facets, and the attributes in `mask` (bit i:
 * the i-th of the others). 0 when a value is refused. */
static int fill(ddbst_item *it, int entity, const values *v, uint64_t mask) {
  const ddbst__entity *e = ddbst__entity_of(it);
  ddbst_item_reset(it, entity);
  int other = 0;
  for (int a = 0; a < v->n; a++) {
    int want = e->attrs[a].primary_facet;
    if (!e->attrs[a].primary_facet) want = (mask >> other++) & 1;
    if (!want || !v->text[a]) continue;
    if (ddbst_item_set(it, a, v->text[a], strlen(v->text[a]), NULL)) return 0;
  }
  return 1;
}

static long taken, declined, planned, unplanned, shaped, requested;

typedef int (*short_writer)(ddbst_item *, uint32_t, int64_t, ddbst_buf *);

/* One short writer against the general writer's body `a` (`general` its
 * return, `err` its error): 1 when it wrote `a`'s bytes, 0 when it declined
 * leaving the buffer and the item as they were. */
static int against(ddbst_item *it, int entity, const values *v, uint64_t mask,
                   uint32_t flags, short_writer w, const char *way, int general,
                   const ddbst_error *err, ddbst_buf *a, ddbst_buf *b) {
  fill(it, entity, v, mask);
  ddbst_buf_reset(b);
  const ddbst__entity *e = ddbst__entity_of(it);
  int stamp_set = e->updated_attr >= 0 && it->vals[e->updated_attr].set;
  size_t text_len = it->text.len;
  int rc = w(it, flags, 1773478800000000, b);
  assert_true(rc == 0 || rc == 1);
  if (!rc) { /* nothing written, the item as it was: no stamp */
    assert_int_equal(ddbst_buf_len(b), 0);
    assert_int_equal(it->text.len, text_len);
    if (e->updated_attr >= 0)
      assert_int_equal(it->vals[e->updated_attr].set, stamp_set);
    return 0;
  }
  if (general != 0)
    fail_msg("%s mask %llx: the %s way wrote a body the general one "
             "refuses: %s", e->name, (unsigned long long)mask, way,
             err->message);
  if (ddbst_buf_len(a) != ddbst_buf_len(b) ||
      memcmp(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a)) != 0)
    fail_msg("%s mask %llx:\n general %s\n %s %s", e->name,
             (unsigned long long)mask, ddbst_buf_data(a), way,
             ddbst_buf_data(b));
  assert_int_equal(ddbst_buf_data(b)[ddbst_buf_len(b)], '\0');
  return 1;
}

static void one(ddbst_item *it, int entity, const values *v, uint64_t mask,
                uint32_t flags, ddbst_buf *a, ddbst_buf *b) {
  if (!fill(it, entity, v, mask)) return;
  ddbst_buf_reset(a);
  ddbst_error err;
  int general = ddbst__update_body_general(it, flags, 1773478800000000, a, &err);
  int s = against(it, entity, v, mask, flags, ddbst__update_body_simple,
                  "short", general, &err, a, b);
  int p = against(it, entity, v, mask, flags, ddbst__update_body_planned,
                  "planned", general, &err, a, b);
  /* the public call, whose first step decides apart (update_request.c):
   * the general writer's body, or its error */
  if (!ddbst__entity_of(it)->nuniques) {
    fill(it, entity, v, mask);
    ddbst_buf_reset(b);
    ddbst_error err2;
    int rc = ddbst_update_request(it, flags, 1773478800000000, b, &err2);
    if (general != 0) {
      assert_int_equal(rc, general);
    } else {
      assert_int_equal(rc, DDBST_OP_UPDATE_ITEM);
      if (ddbst_buf_len(a) != ddbst_buf_len(b) ||
          memcmp(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a)))
        fail_msg("%s mask %llx:\n general %s\n request %s",
                 ddbst__entity_of(it)->name, (unsigned long long)mask,
                 ddbst_buf_data(a), ddbst_buf_data(b));
      requested++;
    }
  }
  /* whether it was a whole body made at load (update_plan.c's test) */
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__update_plan *up = e->update_plan;
  if (p && up && up->shapes) {
    uint64_t given = 0;
    for (int x = 0; x < e->nattrs; x++)
      given |= (uint64_t)it->vals[x].set << x;
    uint64_t one = given & up->settable & ~up->stamp;
    for (int x = 0; x < e->nattrs; x++)
      if (one == (uint64_t)1 << x && up->shapes[x] &&
          up->shapes[x]->assign == (given & up->settable))
        shaped++;
  }
  if (p && !s) fail_msg("%s: the plan took what the short way declined",
                        ddbst__entity_of(it)->name);
  taken += s;
  declined += !s;
  planned += p;
  unplanned += s && !p;
}

static void short_way_as_general(void **state) {
  (void)state;
  static const uint32_t flags[] = {0, DDBST_UPSERT, DDBST_RETURN_ALL_NEW,
                                   DDBST_RETURN_OLD_ON_FAILURE};
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
    ddbst_model *m = load_example(models[mi]);
    long before = taken, planned_before = planned, shaped_before = shaped;
    for (int e = 0; e < m->nentities; e++) {
      ddbst_item *it = ddbst_item_new(m, e);
      assert_non_null(it);
      int others = 0;
      for (int x = 0; x < m->entities[e].nattrs; x++)
        others += !m->entities[e].attrs[x].primary_facet;
      if (others > 40) others = 40;
      for (int flavour = 0; flavour < 3; flavour++) {
        values v;
        find_values(m, e, flavour, &v);
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
          one(it, e, &v, others ? (1ull << others) - 1 : 0, flags[f], a, b);
          for (int i = 0; i < others; i++)
            for (int j = i; j < others; j++)
              one(it, e, &v, (1ull << i) | (1ull << j), flags[f], a, b);
        }
      }
      ddbst_item_free(it);
    }
    if (taken == before) fail_msg("%s: the short way took no update", models[mi]);
    if (planned == planned_before)
      fail_msg("%s: the plan took no update", models[mi]);
    if (shaped == shaped_before)
      fail_msg("%s: no update took a whole body made at load", models[mi]);
    ddbst_model_free(m);
  }
  assert_true(declined > 0);
  assert_true(requested > 0);
  ddbst_buf_free(a);
  ddbst_buf_free(b);
}

/* The bench's update_project_status is the short way's. */
static void bench_update_is_short(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int project = ddbst_model_entity(m, "Project");
  ddbst_item *it = ddbst_item_new(m, project);
  assert_int_equal(ddbst_item_set_by_name(it, "orgId", "acme-7f3a", 9, NULL), 0);
  assert_int_equal(ddbst_item_set_by_name(it, "projectId", "p-0001", 6, NULL), 0);
  assert_int_equal(ddbst_item_set_by_name(it, "createdAt",
                                          "2026-03-14T09:00:00Z", 20, NULL), 0);
  assert_int_equal(ddbst_item_set_by_name(it, "status", "archived", 8, NULL), 0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst__update_body_planned(it, 0, 1773478800000000, b), 1);
  assert_string_equal(
      ddbst_buf_data(b),
      "{\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#acme-7f3a\"},"
      "\"SK\":{\"S\":\"PROJECT#2026-03-14T09:00:00Z#p-0001\"}},"
      "\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1, #n2 = :v2\","
      "\"ConditionExpression\":\"attribute_exists(#n3)\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"status\",\"#n1\":\"GSI2PK\","
      "\"#n2\":\"GSI2SK\",\"#n3\":\"PK\"},\"ExpressionAttributeValues\":{"
      "\":v0\":{\"S\":\"archived\"},\":v1\":{\"S\":\"STATUS#archived\"},"
      "\":v2\":{\"S\":\"2026-03-14T09:00:00Z\"}}}");
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(short_way_as_general),
      cmocka_unit_test(bench_update_is_short),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  printf("updates: %ld the short way (%ld of them by the plan, %ld of those "
         "a whole body made at load; %ld not by the plan), %ld declined\n",
         taken, planned, shaped, unplanned, declined);
  return rc;
}
