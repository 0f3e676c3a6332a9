/* A put written from its entity's plan (request/put_plan.c) is the general
 * writer's body (ddbst__put_body), byte for byte: for every entity of every
 * example model, on sample items (review/sample.c) as they are, with each
 * attribute in turn left out, and with a value that needs a JSON escape;
 * as a put and as a create. The plan must also be taken: the common shapes
 * (saas's Project among them) are counted. And the same for a create of an
 * entity with unique constraints (request/create_plan.c) against
 * ddbst__unique_write, with each attribute also set to text its key
 * transforms change (letter case, NFKC_Casefold's compatibility forms). */
#include <stdio.h>
#include <string.h>

#include "item/item.h"
#include "request/request.h"
#include "review/sample.h"
#include "support.h"

enum { NOW = 1773478800 };

static long planned, general_only, cplanned, cgeneral, cflat;

static const char *const models[] = {
    "examples/saas/model.json",    "examples/blog/model.json",
    "examples/catalog/model.json", "examples/games/model.json",
    "examples/mailbox/model.json", "examples/orgchart/model.json",
    "examples/shop/model.json",
};

/* The plan's answer `ra` (body in `a`, error `ea`) against the general
 * writer's `rb` (`b`, `eb`), which returns `written` when it writes: 0
 * (the plan not taken) counted in *general with nothing written; an error
 * the same error; else the same bytes, counted in *planned. */
static void same_answer(const ddbst_item *it, int ra, const ddbst_error *ea,
                        const ddbst_buf *a, int rb, const ddbst_error *eb,
                        const ddbst_buf *b, int written, long *planned_n,
                        long *general_n) {
  if (ra == 0) {
    (*general_n)++;
    assert_int_equal(ddbst_buf_len(a), 0);
    return;
  }
  if (ra < 0) { /* the same error */
    assert_int_equal(ra, rb);
    assert_string_equal(ea->message, eb->message);
    return;
  }
  assert_int_equal(rb, written);
  (*planned_n)++;
  if (ddbst_buf_len(a) != ddbst_buf_len(b) ||
      memcmp(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a)) != 0)
    fail_msg("%s:\n  plan:    %s\n  general: %s",
             ddbst__entity_of(it)->name, ddbst_buf_data(a),
             ddbst_buf_data(b));
  assert_int_equal(ddbst_buf_data(a)[ddbst_buf_len(a)], '\0');
}

/* The item `it` as a put with `flags`, both ways, compared. */
static void one(ddbst_item *it, uint32_t flags, ddbst_buf *a, ddbst_buf *b) {
  ddbst_error ea, eb;
  memset(&ea, 0, sizeof ea);
  memset(&eb, 0, sizeof eb);
  ddbst_buf_reset(a);
  ddbst_buf_reset(b);
  int rb = ddbst__put_body(it, flags, (int64_t)NOW * 1000000, b, &eb);
  int ra = ddbst__put_planned(it, flags, (int64_t)NOW * 1000000, a, &ea);
  same_answer(it, ra, &ea, a, rb, &eb, b, 0, &planned, &general_only);
}

/* A fresh item of the row's entity with the row's values, less `skip`
 * (-1: none), `escaped` (-1: none) set to text with a quote. */
static const char *odd_text = "a \"b\"";

static ddbst_item *copy_of(const ddbst_model *m, const ddbst__sample_row *r,
                           int skip, int escaped) {
  ddbst_item *it = ddbst_item_new(m, r->entity);
  assert_non_null(it);
  for (int a = 0; a < ddbst__entity_of(it)->nattrs; a++) {
    const char *t;
    size_t n;
    if (a == skip || ddbst_item_get(r->item, a, &t, &n) != 1) continue;
    if (a == escaped) {
      if (ddbst_item_set(it, a, odd_text, strlen(odd_text), NULL) == 0)
        continue;
    }
    /* a value the setter does not take back as text (a list, a map) is
     * left out: both writers then see the same item */
    (void)ddbst_item_set(it, a, t, n, NULL);
  }
  return it;
}

static void plans_as_general(void **state) {
  (void)state;
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  int saw_project = 0;
  for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
    ddbst_model *m = load_example(models[mi]);
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ddbst__sample s;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      int rc = ddbst__sample_make(m, seed, &s, &err);
      if (rc) fail_msg("%s: %s", models[mi], err.message);
      for (int i = 0; i < s.nrows; i++) {
        const ddbst__sample_row *r = &s.rows[i];
        if (!r->item) continue;
        int nattrs = m->entities[r->entity].nattrs;
        for (int skip = -1; skip < nattrs; skip++)
          for (uint32_t flags = 0; flags <= DDBST_CREATE;
               flags += DDBST_CREATE) {
            long before = planned;
            ddbst_item *it = copy_of(m, r, skip, -1);
            one(it, flags, a, b);
            ddbst_item_free(it);
            if (planned > before &&
                strcmp(m->entities[r->entity].name, "Project") == 0)
              saw_project = 1;
            /* a value to escape: the general writer's */
            if (skip >= 0) {
              it = copy_of(m, r, -1, skip);
              one(it, flags, a, b);
              ddbst_item_free(it);
            }
          }
      }
      ddbst__sample_free(&s);
    }
    ddbst_model_free(m);
  }
  printf("planned %ld, general %ld\n", planned, general_only);
  assert_true(saw_project);
  assert_true(planned > 100);
  assert_true(general_only > 0);
  ddbst_buf_free(a);
  ddbst_buf_free(b);
}

/* The item `it` as a create, from the create plan and from
 * ddbst__unique_write, compared (as `one` does); the plan's answer. */
static int one_create(ddbst_item *it, ddbst_buf *a, ddbst_buf *b) {
  ddbst_error ea, eb;
  memset(&ea, 0, sizeof ea);
  memset(&eb, 0, sizeof eb);
  ddbst_buf_reset(a);
  ddbst_buf_reset(b);
  int64_t now = (int64_t)NOW * 1000000;
  int rb = ddbst__unique_write(it, DDBST__W_PUT, DDBST_CREATE, now, b, &eb);
  int ra = ddbst__create_planned(it, DDBST_CREATE, now, a, &ea);
  same_answer(it, ra, &ea, a, rb, &eb, b, DDBST_OP_TRANSACT_WRITE_ITEMS,
              &cplanned, &cgeneral);
  /* the flat create alone: when it writes, the same bytes again */
  long not_flat = 0;
  ddbst_buf *f = ddbst_buf_new(NULL);
  int rf = ddbst__create_flat(it, now, f, &ea);
  same_answer(it, rf, &ea, f, rb, &eb, b, DDBST_OP_TRANSACT_WRITE_ITEMS,
              &cflat, &not_flat);
  ddbst_buf_free(f);
  return ra;
}

static void create_plans_as_general(void **state) {
  (void)state;
  /* text a key's transform changes: upper case, a ligature and a
   * full-width letter NFKC_Casefold maps to ASCII, and one it maps to a
   * quote; then text that needs an escape as it is */
  static const char *const odd[] = {"Ann.LEE@Example.COM",
                                    "\xef\xac\x81le\xef\xbc\xa1@x.org",
                                    "q\xef\xbc\x82q@x.org", "a \"b\""};
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  int saw_user = 0;
  for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
    ddbst_model *m = load_example(models[mi]);
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ddbst__sample s;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      int rc = ddbst__sample_make(m, seed, &s, &err);
      if (rc) fail_msg("%s: %s", models[mi], err.message);
      for (int i = 0; i < s.nrows; i++) {
        const ddbst__sample_row *r = &s.rows[i];
        if (!r->item || !m->entities[r->entity].nuniques) continue;
        int nattrs = m->entities[r->entity].nattrs;
        for (int skip = -1; skip < nattrs; skip++) {
          long before = cplanned;
          ddbst_item *it = copy_of(m, r, skip, -1);
          one_create(it, a, b);
          ddbst_item_free(it);
          if (cplanned > before &&
              strcmp(m->entities[r->entity].name, "User") == 0)
            saw_user = 1;
          for (size_t k = 0; skip >= 0 && k < sizeof odd / sizeof *odd;
               k++) {
            odd_text = odd[k];
            it = copy_of(m, r, -1, skip);
            one_create(it, a, b);
            ddbst_item_free(it);
          }
          odd_text = "a \"b\"";
        }
      }
      ddbst__sample_free(&s);
    }
    ddbst_model_free(m);
  }
  printf("create: planned %ld (flat %ld), general %ld\n", cplanned, cflat,
         cgeneral);
  assert_true(saw_user);
  assert_true(cplanned > 10);
  assert_true(cflat > 10 && cflat < cplanned);
  assert_true(cgeneral > 0);
  ddbst_buf_free(a);
  ddbst_buf_free(b);
}

/* A normal form can make a byte to escape: NFKC_Casefold maps a
 * full-width quote (U+FF02) to '"'. The key, its guard's and the JSON stay
 * whole (the plan leaves such a key to the general writer). */
static void normal_form_quote_escaped(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int user = ddbst_model_entity(m, "User");
  ddbst_item *it = ddbst_item_new(m, user);
  static const char *const names[] = {"orgId", "userId", "email"};
  static const char *const values[] = {"acme", "u1", "q\xef\xbc\x82q@x.org"};
  for (int i = 0; i < 3; i++)
    assert_int_equal(ddbst_item_set(it, ddbst_model_attribute(m, user,
                                                              names[i]),
                                    values[i], strlen(values[i]), NULL),
                     0);
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(it, DDBST_CREATE, 0, b, NULL),
                   DDBST_OP_TRANSACT_WRITE_ITEMS);
  const char *body = ddbst_buf_data(b);
  assert_non_null(strstr(body, "\"GSI1PK\":{\"S\":\"EMAIL#q\\\"q@x.org\"}"));
  assert_non_null(strstr(body, "\"Item\":{\"PK\":{\"S\":\"EMAIL#q\\\"q@x.org\"},"
                               "\"SK\":{\"S\":\"EMAIL#q\\\"q@x.org\"}"));
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_model_free(m);
}

/* A model with unique constraints and no entity attribute: the create
 * plan writes no type member and no guard's owner (the plan once copied
 * a type text that was not there), the guard's key rendered from its own
 * template, a sparse index left out or in, each body the general writer's.
 * Also the first model the plan serves whose table has no sort key. */
static void create_without_entity_attribute(void **state) {
  (void)state;
  static const char *const models_text[] = {
      "{\"ddbst\":1,\"table\":{\"name\":\"users\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"indexes\":{\"GSI1\":{\"partitionKey\":"
      "\"GSI1PK\"}}},\"entities\":{\"User\":{\"attributes\":{\"orgId\":"
      "\"string\",\"userId\":\"string\",\"email\":{\"type\":\"string\","
      "\"required\":true,\"normalize\":\"NFKC_Casefold\"},\"nick\":"
      "\"string\"},\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":\"USER#{userId}\"},"
      "\"indexes\":{\"GSI1\":{\"pk\":\"NICK#{nick}\"}},\"unique\":{"
      "\"email\":\"EMAIL#{email:lower}\"}}}}",
      "{\"ddbst\":1,\"table\":{\"name\":\"users\",\"partitionKey\":\"PK\"},"
      "\"entities\":{\"User\":{\"attributes\":{\"userId\":\"string\","
      "\"email\":{\"type\":\"string\",\"required\":true}},\"key\":{"
      "\"pk\":\"USER#{userId}\"},\"unique\":{\"email\":"
      "\"EMAIL#{email:lower}\"}}}}",
  };
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (size_t mi = 0; mi < 2; mi++) {
    ddbst_model *m = load_text(models_text[mi]);
    assert_non_null(m);
    assert_null(m->entity_attr);
    int user = ddbst_model_entity(m, "User");
    assert_non_null(m->entities[user].create_plan);
    /* with the index's facet, without it (sparse: out), with an e-mail
     * NFKC_Casefold changes (the general writer's then) */
    static const char *const nicks[] = {"ann", NULL, "bo"};
    static const char *const emails[] = {"Ann@X.org", "ann@x.org",
                                         "\xef\xbc\xa1nn@x.org"};
    for (int v = 0; v < 3; v++) {
      ddbst_item *it = ddbst_item_new(m, user);
      static const char *const names[] = {"orgId", "userId", "email", "nick"};
      const char *values[] = {"acme", "u1", emails[v], nicks[v]};
      for (int i = 0; i < 4; i++) {
        int at = ddbst_model_attribute(m, user, names[i]);
        if (at >= 0 && values[i])
          assert_int_equal(ddbst_item_set(it, at, values[i],
                                          strlen(values[i]), NULL),
                           0);
      }
      /* planned for ASCII; text the setter does not scan (not ASCII) is
       * the general writer's, compared all the same */
      int got = one_create(it, a, b);
      if (v < 2 && got != 1)
        fail_msg("model %zu, values %d: not planned", mi, v);
      const char *body = got == 1 ? ddbst_buf_data(a) : ddbst_buf_data(b);
      /* no type, no owner: no "_type" anywhere */
      assert_null(strstr(body, "_type"));
      /* NFKC_Casefold maps the full-width A to 'a'; `:lower` alone not */
      if (mi == 0 || v < 2)
        assert_non_null(strstr(body, "\"EMAIL#ann@x.org\""));
      ddbst_item_free(it);
    }
    ddbst_model_free(m);
  }
  ddbst_buf_free(a);
  ddbst_buf_free(b);
}

/* The flat create takes the common User (bench.c's create_user), with
 * its optional attributes unset too, and leaves each other change to the
 * plan's longer way: an e-mail NFKC_Casefold maps past ASCII, the
 * required e-mail unset, a value needing a JSON escape, a facet with the
 * delimiter. Whichever way writes, the bytes are ddbst__unique_write's
 * (or its error). */
static void flat_create_and_its_fallbacks(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  int user = ddbst_model_entity(m, "User");
  assert_non_null(m->entities[user].create_plan);
  const ddbst__cflat *flat = m->entities[user].create_plan->flat;
  assert_non_null(flat);
  /* the floor's layout (bench_create_floor.c): 12 values between 13
   * texts; five attributes, the e-mail's key form made from one */
  assert_int_equal(flat->nsteps, 12);
  assert_int_equal(flat->nchecks, 5);
  assert_int_equal(flat->nderives, 1);
  static const char *const names[] = {"orgId", "userId", "email", "role",
                                      "name"};
  static const struct {
    const char *values[5];
    int flat; /* the flat create writes it */
  } cases[] = {
      {{"acme-7f3a", "u-0042", "Ann.Lee@Example.com", "admin", "Ann Lee"}, 1},
      {{"acme", "u1", "ANN@X.ORG", "member", "A"}, 1},
      /* U+FB01 (fi) and a full-width A: NFKC_Casefold's, rendered */
      {{"acme", "u1", "\xef\xac\x81le\xef\xbc\xa1@x.org", "admin", "A"},
       0},
      /* optional attributes unset: their members cut */
      {{"acme", "u1", "ann@x.org", "admin", NULL}, 1},
      {{"acme", "u1", "ann@x.org", NULL, "A"}, 1},
      {{"acme", "u1", "ann@x.org", NULL, NULL}, 1},
      /* a required one unset: the plan's way, which says so */
      {{"acme", "u1", NULL, "admin", "A"}, 0},
      {{"acme", "u1", "ann@x.org", "admin", "a \"b\""}, 0}, /* escape */
      {{"acme", "u#1", "ann@x.org", "admin", "A"}, 0},  /* delimiter */
      {{"acme", "u1", "a\\n@x.org", "admin", "A"}, 0},  /* escape, a key */
  };
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ddbst_item *it = ddbst_item_new(m, user);
    for (int i = 0; i < 5; i++)
      if (cases[c].values[i])
        assert_int_equal(
            ddbst_item_set(it, ddbst_model_attribute(m, user, names[i]),
                           cases[c].values[i], strlen(cases[c].values[i]),
                           NULL),
            0);
    long flat_before = cflat;
    int ra = one_create(it, a, b); /* every way against the general's */
    assert_true(ra == 1 || ra == 0 || ra == DDBST_EMISSING);
    if ((cflat > flat_before) != cases[c].flat)
      fail_msg("case %zu: the flat create %s it", c,
               cases[c].flat ? "did not write" : "wrote");
    ddbst_item_free(it);
  }
  ddbst_buf_free(a);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* Defaults filled by the flat create as the plan fills them (a string's
 * and `now`'s), on an item given only its keys and required e-mail; the
 * body is ddbst__unique_write's on an item given the same. A required
 * attribute unset is ddbst__prepare_write's error either way. */
static void flat_create_fills_defaults(void **state) {
  (void)state;
  ddbst_model *m = load_text(
      "{\"ddbst\":1,\"table\":{\"name\":\"users\",\"partitionKey\":\"PK\","
      "\"sortKey\":\"SK\",\"entityAttribute\":\"_type\"},\"entities\":{"
      "\"User\":{\"attributes\":{\"orgId\":\"string\",\"userId\":"
      "\"string\",\"email\":{\"type\":\"string\",\"required\":true},"
      "\"role\":{\"type\":\"string\",\"default\":\"member\"},"
      "\"createdAt\":{\"type\":\"timestamp\",\"precision\":\"s\","
      "\"default\":\"now\"}},\"key\":{\"pk\":\"ORG#{orgId}\",\"sk\":"
      "\"USER#{userId}\"},\"unique\":{\"email\":"
      "\"EMAIL#{email:lower}\"}}}}");
  assert_non_null(m);
  int user = ddbst_model_entity(m, "User");
  assert_non_null(m->entities[user].create_plan);
  assert_non_null(m->entities[user].create_plan->flat);
  static const char *const names[] = {"orgId", "userId", "email"};
  static const char *const values[] = {"acme", "u1", "Ann@X.org"};
  ddbst_buf *a = ddbst_buf_new(NULL), *b = ddbst_buf_new(NULL);
  for (int given = 2; given <= 3; given++) { /* the e-mail left out, given */
    ddbst_item *f = ddbst_item_new(m, user), *g = ddbst_item_new(m, user);
    for (int i = 0; i < given; i++) {
      int at = ddbst_model_attribute(m, user, names[i]);
      assert_int_equal(
          ddbst_item_set(f, at, values[i], strlen(values[i]), NULL), 0);
      assert_int_equal(
          ddbst_item_set(g, at, values[i], strlen(values[i]), NULL), 0);
    }
    ddbst_error ef, eg;
    memset(&ef, 0, sizeof ef);
    memset(&eg, 0, sizeof eg);
    ddbst_buf_reset(a);
    ddbst_buf_reset(b);
    int64_t now = (int64_t)NOW * 1000000;
    int rf = ddbst__create_flat(f, now, a, &ef);
    int rg = ddbst__unique_write(g, DDBST__W_PUT, DDBST_CREATE, now, b, &eg);
    if (given == 2) {
      assert_int_equal(rf, DDBST_EMISSING);
      assert_int_equal(rg, DDBST_EMISSING);
      assert_string_equal(ef.message, eg.message);
    } else {
      assert_int_equal(rf, 1);
      assert_int_equal(rg, DDBST_OP_TRANSACT_WRITE_ITEMS);
      assert_string_equal(ddbst_buf_data(a), ddbst_buf_data(b));
      assert_non_null(strstr(ddbst_buf_data(a),
                             "\"role\":{\"S\":\"member\"}"));
      assert_non_null(
          strstr(ddbst_buf_data(a), "\"createdAt\":{\"S\":\"2026-"));
    }
    ddbst_item_free(f);
    ddbst_item_free(g);
  }
  ddbst_buf_free(a);
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(plans_as_general),
      cmocka_unit_test(create_plans_as_general),
      cmocka_unit_test(normal_form_quote_escaped),
      cmocka_unit_test(create_without_entity_attribute),
      cmocka_unit_test(flat_create_and_its_fallbacks),
      cmocka_unit_test(flat_create_fills_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
