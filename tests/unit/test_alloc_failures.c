/* Allocation failure at every allocation site of every public operation that
 * allocates: the 1st, 2nd, ... Nth allocation fails until the operation
 * succeeds. Each failure must be DDBST_ENOMEM (NULL for a constructor), leave
 * no block allocated once the objects are freed, and leave no half-written
 * output behind (a cold output buffer stays empty). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "support.h"

#define NOW_US (INT64_C(1773478800) * 1000000)
#define MAX_STEPS 20000

static const uint8_t KEY_A[32] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20};

static counting_alloc ca;

/* The SaaS model through the counting allocator (which it resets). */
static ddbst_model *counted_model(void) {
  counting_alloc_init(&ca);
  return load_example_with("examples/saas/model.json", &ca.hooks);
}

/* Arms the allocator: the n-th allocation from now fails. */
static void arm(long n) { ca.fail_at = ca.calls + n; }
static void disarm(void) { ca.fail_at = 0; }

static void expect_enomem(const char *what, long step, int rc,
                          const ddbst_error *err) {
  if (rc != DDBST_ENOMEM)
    fail_msg("%s, allocation %ld failing: wanted DDBST_ENOMEM, got %d (%s: %s)",
             what, step, rc, err->path, err->message);
  if (err->code != DDBST_ENOMEM)
    fail_msg("%s, allocation %ld failing: err.code %d", what, step,
             (int)err->code);
}

static void expect_cold_empty(const char *what, long step, const ddbst_buf *b) {
  if (b && (ddbst_buf_len(b) != 0 || ddbst_buf_data(b)[0] != 0))
    fail_msg("%s, allocation %ld failing: the buffer holds %zu bytes \"%s\"",
             what, step, ddbst_buf_len(b), ddbst_buf_data(b));
}

static void expect_live(const char *what, long step, long baseline) {
  if (ca.live != baseline)
    fail_msg("%s, allocation %ld failing: %ld blocks live, wanted %ld", what,
             step, ca.live, baseline);
}

static void done(const char *what, long step) {
  if (step >= MAX_STEPS) fail_msg("%s never succeeded", what);
  /* every failure point was tried: at least one allocation happened */
  assert_true(step > 1);
}

/* ---- models ---- */

static void model_load(void **state) {
  (void)state;
  size_t len;
  char *text = read_source("examples/saas/model.json", &len);
  long step;
  for (step = 1; step < MAX_STEPS; step++) {
    counting_alloc_init(&ca);
    arm(step);
    ddbst_load_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.allocator = &ca.hooks;
    ddbst_model *m = (ddbst_model *)&o; /* must come back NULL */
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst_model_load(text, len, &o, &m, &err);
    if (rc == 0) {
      assert_non_null(m);
      ddbst_model_free(m);
      expect_live("ddbst_model_load", step, 0);
      break;
    }
    expect_enomem("ddbst_model_load", step, rc, &err);
    assert_null(m);
    expect_live("ddbst_model_load", step, 0);
  }
  free(text);
  done("ddbst_model_load", step);
}

/* ---- the loader's copies of long texts ---- */

/* Fails the n-th allocation of at least LONG_ALLOC bytes, counting only
 * those: a text longer than half an arena block gets a block of its own,
 * so each copy the loader keeps of a long text is one such allocation. */
enum { LONG_TEXT = 5000, LONG_ALLOC = LONG_TEXT };
static struct {
  long big, fail_big, live;
} lc;
static void *lc_malloc(void *user, size_t n) {
  (void)user;
  if (n >= LONG_ALLOC && ++lc.big == lc.fail_big) return NULL;
  void *p = malloc(n);
  if (p) lc.live++;
  return p;
}
static void *lc_realloc(void *user, void *p, size_t n) {
  (void)user;
  if (n >= LONG_ALLOC && ++lc.big == lc.fail_big) return NULL;
  void *q = realloc(p, n);
  if (q && !p) lc.live++;
  return q;
}
static void lc_free(void *user, void *p) {
  (void)user;
  if (p) lc.live--;
  free(p);
}

/* Every copy of a long text the loader keeps (descriptions, an enum value)
 * failing in turn: DDBST_ENOMEM, no model, nothing left allocated; then
 * the model loads and keeps the value whole. */
static void model_load_long_texts(void **state) {
  (void)state;
  char *t = malloc(LONG_TEXT + 1);
  assert_non_null(t);
  memset(t, 'x', LONG_TEXT);
  t[LONG_TEXT] = '\0';
  char *json = malloc(6 * LONG_TEXT + 1024);
  assert_non_null(json);
  sprintf(json,
          "{\"ddbst\": 1, \"description\": \"%s\", \"table\": {\"name\": "
          "\"tab1\", \"partitionKey\": \"PK\", \"sortKey\": \"SK\"},"
          " \"entities\": {\"A\": {\"description\": \"%s\", \"attributes\": "
          "{\"id\": \"string\", \"s\": {\"type\": \"enum\", \"description\": "
          "\"%s\", \"values\": [\"on\", \"%s\"]}}, \"key\": {\"pk\": "
          "\"A#{id}\", \"sk\": \"A\"}}}, \"patterns\": {\"getA\": {\"get\": "
          "\"A\", \"description\": \"%s\"}}}",
          t, t, t, t, t);
  ddbst_allocator hooks = {lc_malloc, lc_realloc, lc_free, NULL};
  long step, fails = 0;
  for (step = 1; step < 100; step++) {
    memset(&lc, 0, sizeof lc);
    lc.fail_big = step;
    ddbst_load_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.allocator = &hooks;
    ddbst_model *m = (ddbst_model *)&o; /* must come back NULL */
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst_model_load(json, strlen(json), &o, &m, &err);
    if (rc == 0) {
      lc.fail_big = 0;
      ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "A"));
      assert_non_null(it);
      if (try_set(it, "s", t, &err) != 0)
        fail_msg("the long enum value: %s: %s", err.path, err.message);
      ddbst_item_free(it);
      ddbst_model_free(m);
      assert_int_equal(lc.live, 0);
      break;
    }
    fails++;
    expect_enomem("ddbst_model_load (a long text's copy)", step, rc, &err);
    assert_null(m);
    if (lc.live != 0)
      fail_msg("a long text's copy failing (%ld): %ld blocks live", step,
               lc.live);
  }
  /* five texts, each read into the tree and then kept by the model */
  assert_true(fails >= 10);
  free(json);
  free(t);
}

/* ---- a model with errors, an allocation failing ---- */

#define PROJECTED(table, patterns)                                             \
  "{'ddbst':1,'table':{'name':'things','partitionKey':'PK','sortKey':'SK',"    \
  table "'indexes':{'GSI1':{'partitionKey':'G1PK','sortKey':'G1SK',"         \
  "'projection':'KEYS_ONLY'}}},'entities':{"                                  \
  "'Task':{'attributes':{'id':'string','list':'string'},'key':{'pk':'T#{id}'," \
  "'sk':'T'},'indexes':{'GSI1':{'pk':'L#{list}','sk':'I#{id}'}}},"            \
  "'Note':{'attributes':{'id':'string','list':'string'},'key':{'pk':'N#{id}',"  \
  "'sk':'N'},'indexes':{'GSI1':{'pk':'L#{list}','sk':'I#N#{id}'}}}},"         \
  "'patterns':{" patterns "}}"

/* Models each with errors whose messages name parts of the model
 * (entities, indexes, attributes, patterns, guards): ' for ". */
static const char *const WRONG_MODELS[] = {
    /* the table's indexes; an entity's index, when and facets; patterns */
    "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
    "'indexes':{'GSI1':{'partitionKey':'PK','sortKey':'SK'},"
    "'GSI2':{'partitionKey':'GSI2PK','projection':'KEYS_ONLY'},"
    "'GSI3':{'partitionKey':'GSI2PK'}},"
    "'entityAttribute':'_type','ttlAttribute':'expiresAt'},"
    "'entities':{'Org':{'attributes':{'orgId':'string','name':'string'},"
    "'key':{'pk':'ORG#{orgId}','sk':'ORG'}},"
    "'User':{'attributes':{'orgId':'string','userId':'string',"
    "'email':'string','status':{'type':'enum','values':['active','banned']},"
    "'expiresAt':'ttl','_type':'string'},"
    "'key':{'pk':'ORG#{orgId}','sk':'USER#{userId}'},"
    "'indexes':{'GSI1':{'pk':'ORG#{orgId}','sk':'{userId}',"
    "'when':{'state':'active'}},'GSI9':{'pk':'EMAIL#{mail}'}}},"
    "'Log':{'attributes':{'logId':'string'},'key':{'pk':'LOG#{logId}',"
    "'sk':'LOG'}}},"
    "'patterns':{'p':{'query':'Org','index':'GSI2'},"
    "'r':{'query':'User','range':'nope'},'c':{'query':['Org','Log']},"
    "'f':{'query':'User','filter':{'zz':'x'}}}}",
    /* two entities of one key shape, in the table and in an index */
    "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK',"
    "'indexes':{'GSI1':{'partitionKey':'G'}}},"
    "'entities':{'Alpha':{'attributes':{'a':'string'},"
    "'key':{'pk':'X#{a}','sk':'S'},'indexes':{'GSI1':{'pk':'E#{a}'}}},"
    "'Beta':{'attributes':{'b':'string'},'key':{'pk':'X#{b}','sk':'S'},"
    "'indexes':{'GSI1':{'pk':'E#{b}'}}}}}",
    /* a guard item keyed as another entity's items */
    "{'ddbst':1,'table':{'name':'app-dev','partitionKey':'PK','sortKey':'SK'},"
    "'entities':{'User':{'attributes':{'id':'string','email':'string'},"
    "'key':{'pk':'U#{id}','sk':'U#{id}'},'unique':{'byEmail':'U#{email}'}}}}",
    /* native keys: an undeclared attribute, a boolean, one type per index */
    "{'ddbst':1,'table':{'name':'app','partitionKey':'PK','sortKey':'SK',"
    "'indexes':{'Board':{'partitionKey':['g','zz'],'sortKey':['pts']},"
    "'Flags':{'partitionKey':['ok']}}},"
    "'entities':{'A':{'attributes':{'g':'string','pts':'integer',"
    "'ok':'boolean'},'key':{'pk':'A#{g}','sk':'A'},"
    "'indexes':{'Board':{},'Flags':{}}},"
    "'B':{'attributes':{'g':'string','pts':'string','zz':'string'},"
    "'key':{'pk':'B#{g}','sk':'B'},'indexes':{'Board':{'pk':'{g}'}}}}}",
    /* a query's range that other items fall in; one on an index that
     * cannot run the filter that would keep them out */
    PROJECTED("", "'itemsOfList':{'query':'Task','index':'GSI1'}"),
    PROJECTED("'entityAttribute':'_type',",
              "'notesOfList':{'query':'Note','index':'GSI1',"
              "'filter':{'list':'x'}}"),
};

/* What a load with errors reports while its allocations fail: `failed`
 * says whether the armed allocation has failed yet. */
typedef struct error_watch {
  int (*failed)(void);
  long step, seen;
} error_watch;

/* Every message is whole, names no missing part (glibc prints a NULL string
 * as "(null)"), and comes before any allocation failed: after one, a part
 * of the model cut short would make a message false. */
static void check_message(void *user, const ddbst_error *e) {
  error_watch *w = user;
  w->seen++;
  if (memchr(e->message, '\0', sizeof e->message) == NULL ||
      memchr(e->path, '\0', sizeof e->path) == NULL)
    fail_msg("allocation %ld failing: a message without its NUL", w->step);
  if (strstr(e->message, "(null)") || strstr(e->path, "(null)"))
    fail_msg("allocation %ld failing: a NULL name in \"%s: %s\"", w->step,
             e->path, e->message);
  if (e->code != DDBST_EMODEL || e->message[0] == '\0')
    fail_msg("allocation %ld failing: error %d \"%s\"", w->step, (int)e->code,
             e->message);
  if (w->failed())
    fail_msg("allocation %ld failing: reported after it failed: \"%s: %s\"",
             w->step, e->path, e->message);
}

/* `model` with ' for ", and a root "description" of `pad` bytes first. */
static char *wrong_model(const char *model, size_t pad, size_t *len) {
  static const char head[] = "{'ddbst':1,";
  size_t hn = sizeof head - 1, n = strlen(model);
  assert_true(n > hn && memcmp(model, head, hn) == 0);
  char *json = malloc(n + pad + 32);
  assert_non_null(json);
  *len = (size_t)sprintf(json, "%s'description':'%*s',%s", head, (int)pad, "",
                         model + hn);
  for (char *c = json; *c; c++)
    if (*c == '\'') *c = '"';
  return json;
}

/* Loads `json` through `hooks`, its armed allocation failing, the errors
 * watched by `w`: 1 when that allocation was never reached (the model's
 * errors, all of them), else 0 (DDBST_ENOMEM). */
static int load_wrong(const char *json, size_t len,
                      const ddbst_allocator *hooks, error_watch *w,
                      long (*live)(void)) {
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = hooks;
  o.on_error = check_message;
  o.on_error_user = w;
  w->seen = 0;
  ddbst_model *m = (ddbst_model *)&o; /* must come back NULL */
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = ddbst_model_load(json, len, &o, &m, &err);
  assert_null(m);
  if (live() != 0)
    fail_msg("a model with errors, allocation %ld failing: %ld blocks live",
             w->step, live());
  if (!w->failed()) {
    if (rc != DDBST_EMODEL || w->seen == 0)
      fail_msg("a model with errors: %d, %ld errors", rc, w->seen);
    return 1;
  }
  expect_enomem("ddbst_model_load (a model with errors)", w->step, rc, &err);
  return 0;
}

static int ca_failed(void) { return ca.fail_at && ca.calls >= ca.fail_at; }
static long ca_live(void) { return ca.live; }

/* Each allocation failing in turn. */
static void model_load_with_errors(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof WRONG_MODELS / sizeof *WRONG_MODELS; i++) {
    size_t len;
    char *json = wrong_model(WRONG_MODELS[i], 0, &len);
    error_watch w = {ca_failed, 0, 0};
    for (w.step = 1; w.step < MAX_STEPS; w.step++) {
      counting_alloc_init(&ca);
      arm(w.step);
      if (load_wrong(json, len, &ca.hooks, &w, ca_live)) break;
    }
    free(json);
    done("ddbst_model_load (a model with errors)", w.step);
  }
}

/* lc's allocator fails the n-th allocation of LONG_ALLOC bytes or more:
 * an arena block (8 KiB, alloc.c) is one. */
enum { BLOCK = 8192 };
static int lc_failed(void) { return lc.fail_big && lc.big >= lc.fail_big; }
static long lc_live(void) { return lc.live; }

/* The model's copies (its names among them) fail only when the arena
 * takes a block: a description of 0 to 4095 bytes, copied first, moves
 * every copy after it across a block's end in turn, and each block failing
 * in turn fails each copy. (Was: a message after the failure, false.) */
static void model_load_with_errors_each_copy(void **state) {
  (void)state;
  ddbst_allocator hooks = {lc_malloc, lc_realloc, lc_free, NULL};
  for (size_t i = 0; i < sizeof WRONG_MODELS / sizeof *WRONG_MODELS; i++)
    for (size_t pad = 0; pad < BLOCK / 2; pad++) {
      size_t len;
      char *json = wrong_model(WRONG_MODELS[i], pad, &len);
      error_watch w = {lc_failed, 0, 0};
      for (w.step = 1; w.step < 100; w.step++) {
        memset(&lc, 0, sizeof lc);
        lc.fail_big = w.step;
        if (load_wrong(json, len, &hooks, &w, lc_live)) break;
      }
      free(json);
      assert_true(w.step > 1 && w.step < 100);
    }
}

/* ---- items and buffers ---- */

static void item_new(void **state) {
  (void)state;
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  int user = ddbst_model_entity(m, "User");
  for (step = 1; step < MAX_STEPS; step++) {
    arm(step);
    ddbst_item *it = ddbst_item_new(m, user);
    disarm();
    if (it) {
      ddbst_item_free(it);
      expect_live("ddbst_item_new", step, base);
      break;
    }
    expect_live("ddbst_item_new", step, base);
  }
  assert_true(step < MAX_STEPS);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void buf_new(void **state) {
  (void)state;
  long step;
  for (step = 1; step < MAX_STEPS; step++) {
    counting_alloc_init(&ca);
    arm(step);
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    disarm();
    if (b) {
      assert_int_equal(ddbst_buf_len(b), 0);
      ddbst_buf_free(b);
      expect_live("ddbst_buf_new", step, 0);
      break;
    }
    expect_live("ddbst_buf_new", step, 0);
  }
  assert_true(step < MAX_STEPS);
}

static ddbst_item *user_item(ddbst_model *m) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  assert_non_null(it);
  set(it, "orgId", "1");
  set(it, "userId", "2");
  set(it, "email", "Ann@X.com");
  set(it, "name", "Ann");
  return it;
}

static ddbst_item *project_item(ddbst_model *m, const char *id) {
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Project"));
  assert_non_null(it);
  set(it, "orgId", "1");
  set(it, "projectId", id);
  set(it, "createdAt", "2026-03-14T09:00:00Z");
  set(it, "name", "Apollo");
  set(it, "status", "active");
  return it;
}

enum { OP_KEYS, OP_PUT, OP_UPDATE, OP_QUERY };

static int run_op(int op, ddbst_model *m, ddbst_item *it, ddbst_buf *b,
                  ddbst_error *err) {
  switch (op) {
  case OP_KEYS: return ddbst_item_keys_json(it, b, err);
  case OP_PUT: return ddbst_put_request(it, 0, NOW_US, b, err);
  case OP_UPDATE: return ddbst_update_request(it, 0, NOW_US, b, err);
  default: {
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.condition = DDBST_SK_BEGINS;
    q.attribute = ddbst_model_attribute(m, ddbst_item_entity(it), "createdAt");
    q.value = "2026-03";
    q.value_len = 7;
    return ddbst_query_request(it, ddbst_model_pattern(m, "listProjects"), &q,
                               b, err);
  }
  }
}

/* An operation on a cold item (new, values set) and a cold buffer. */
static void cold_op(int op, const char *what) {
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_item *it = op == OP_KEYS ? user_item(m) : project_item(m, "p1");
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = run_op(op, m, it, b, &err);
    disarm();
    if (rc >= 0) {
      assert_true(ddbst_buf_len(b) > 0);
      ddbst_item_free(it);
      ddbst_buf_free(b);
      expect_live(what, step, base);
      break;
    }
    expect_enomem(what, step, rc, &err);
    expect_cold_empty(what, step, b);
    ddbst_item_free(it);
    ddbst_buf_free(b);
    expect_live(what, step, base);
  }
  done(what, step);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void keys_json(void **state) {
  (void)state;
  cold_op(OP_KEYS, "ddbst_item_keys_json");
}
static void put_request(void **state) {
  (void)state;
  cold_op(OP_PUT, "ddbst_put_request");
}
static void update_request(void **state) {
  (void)state;
  cold_op(OP_UPDATE, "ddbst_update_request");
}
static void query_request(void **state) {
  (void)state;
  cold_op(OP_QUERY, "ddbst_query_request");
}

/* ---- transactions and batches ---- */

static void txn(void **state) {
  (void)state;
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_item *it = project_item(m, "p1");
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = DDBST_ENOMEM;
    ddbst_txn *t = ddbst_txn_new(m);
    if (t) {
      rc = ddbst_txn_put(t, it, DDBST_CREATE, NOW_US, &err);
      if (rc == 0) {
        assert_int_equal(ddbst_txn_count(t), 1);
        rc = ddbst_txn_request(t, "token-1", b, &err);
      } else {
        assert_int_equal(ddbst_txn_count(t), 0);
      }
    } else {
      err.code = DDBST_ENOMEM;
    }
    disarm();
    int ok = rc == DDBST_OP_TRANSACT_WRITE_ITEMS;
    if (!ok) {
      expect_enomem("ddbst_txn", step, rc, &err);
      expect_cold_empty("ddbst_txn_request", step, b);
    }
    ddbst_txn_free(t);
    ddbst_item_free(it);
    ddbst_buf_free(b);
    expect_live("ddbst_txn", step, base);
    if (ok) break;
  }
  done("ddbst_txn", step);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void batch(void **state) {
  (void)state;
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  int project = ddbst_model_entity(m, "Project");
  int pid = ddbst_model_attribute(m, project, "projectId");
  ddbst_item *it = project_item(m, "p000");
  long item_live = ca.live;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = DDBST_ENOMEM, ok = 0, requests = 0;
    ddbst_batch *bt = ddbst_batch_new(m);
    if (bt) {
      rc = 0;
      for (int i = 0; i < 150 && rc >= 0; i++) {
        char id[8];
        snprintf(id, sizeof id, "p%03d", i);
        rc = ddbst_item_set(it, pid, id, 4, &err);
        if (rc == 0) {
          rc = ddbst_batch_get(bt, it, &err);
          if (rc >= 0) assert_int_equal(rc, 1);
        }
      }
      if (rc >= 0) {
        requests = ddbst_batch_request_count(bt);
        assert_int_equal(requests, 2);
        for (int i = 0; i < requests && rc >= 0; i++) {
          size_t before = ddbst_buf_len(b);
          rc = ddbst_batch_request(bt, i, 0, b, &err);
          if (rc < 0 && ddbst_buf_len(b) != before)
            fail_msg("ddbst_batch_request %d, allocation %ld failing: the "
                     "buffer changed", i, step);
        }
        ok = rc == DDBST_OP_BATCH_GET_ITEM;
      }
    } else {
      err.code = DDBST_ENOMEM;
    }
    disarm();
    if (!ok) {
      expect_enomem("ddbst_batch", step, rc, &err);
      if (!bt || requests == 0) expect_cold_empty("ddbst_batch", step, b);
    }
    ddbst_batch_free(bt);
    ddbst_buf_free(b);
    expect_live("ddbst_batch", step, item_live);
    if (ok) break;
  }
  done("ddbst_batch", step);
  ddbst_item_free(it);
  expect_live("ddbst_batch", step, base);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

/* ---- pages, cursors, streams ---- */

static void page_parse(void **state) {
  (void)state;
  size_t len;
  char *json = read_source("tests/data/responses/local-query-users-page1.json",
                         &len);
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = DDBST_ENOMEM;
    ddbst_page *p = ddbst_page_new(m);
    if (p) {
      rc = ddbst_page_parse(p, DDBST_OP_QUERY, json, len, &err);
      if (rc < 0) {
        assert_int_equal(ddbst_page_count(p), 0);
        assert_int_equal(ddbst_page_has_more(p), 0);
      }
    } else {
      err.code = DDBST_ENOMEM;
    }
    disarm();
    int ok = rc == 1;
    if (!ok) expect_enomem("ddbst_page_parse", step, rc, &err);
    else assert_int_equal(ddbst_page_has_more(p), 1);
    ddbst_page_free(p);
    expect_live("ddbst_page_parse", step, base);
    if (ok) break;
  }
  done("ddbst_page_parse", step);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
  free(json);
}

static void cursor_keys(void **state) {
  (void)state;
  long step;
  for (step = 1; step < MAX_STEPS; step++) {
    counting_alloc_init(&ca);
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    ddbst_cursor_keys *k = ddbst_cursor_keys_new(&ca.hooks);
    int rc = k ? ddbst_cursor_keys_add(k, KEY_A, &err) : DDBST_ENOMEM;
    disarm();
    if (k) assert_int_equal(rc, 0); /* adding never allocates */
    ddbst_cursor_keys_free(k);
    expect_live("ddbst_cursor_keys_new", step, 0);
    if (k) break;
  }
  assert_true(step < MAX_STEPS);
}

static void page_cursor(void **state) {
  (void)state;
  size_t len;
  char *json = read_source("tests/data/responses/local-query-users-page1.json",
                         &len);
  ddbst_model *m = counted_model();
  ddbst_error err;
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(&ca.hooks);
  assert_non_null(keys);
  assert_int_equal(ddbst_cursor_keys_add(keys, KEY_A, &err), 0);
  ddbst_item *values = ddbst_item_new(m, ddbst_model_entity(m, "User"));
  set(values, "orgId", "1");
  int pattern = ddbst_model_pattern(m, "listUsers");
  /* a cold page that remembers its query: every allocation of the parse */
  long base = ca.live, step;
  ddbst_page *p = NULL;
  for (step = 1; step < MAX_STEPS; step++) {
    p = ddbst_page_new(m);
    assert_non_null(p);
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = ddbst_page_parse_query(p, values, pattern, json, len, &err);
    disarm();
    if (rc == 1) break;
    expect_enomem("ddbst_page_parse_query", step, rc, &err);
    assert_int_equal(ddbst_page_count(p), 0);
    assert_int_equal(ddbst_page_next_cursor(p, keys, NOW_US, NULL, &err),
                     DDBST_EINVAL);
    ddbst_page_free(p);
    p = NULL;
    expect_live("ddbst_page_parse_query", step, base);
  }
  done("ddbst_page_parse_query", step);
  /* the values are not needed any more */
  ddbst_item_free(values);
  base = ca.live;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = ddbst_page_next_cursor(p, keys, NOW_US, b, &err);
    disarm();
    if (rc == 1) {
      assert_true(ddbst_buf_len(b) > 0);
      ddbst_buf_free(b);
      expect_live("ddbst_page_next_cursor", step, base);
      break;
    }
    expect_enomem("ddbst_page_next_cursor", step, rc, &err);
    expect_cold_empty("ddbst_page_next_cursor", step, b);
    ddbst_buf_free(b);
    expect_live("ddbst_page_next_cursor", step, base);
  }
  done("ddbst_page_next_cursor", step);
  ddbst_page_free(p);
  ddbst_cursor_keys_free(keys);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
  free(json);
}

static void stream_parse(void **state) {
  (void)state;
  size_t len;
  char *json = read_source("tests/data/responses/local-stream-event.json", &len);
  ddbst_model *m = counted_model();
  long base = ca.live, step;
  for (step = 1; step < MAX_STEPS; step++) {
    ddbst_error err;
    memset(&err, 0, sizeof err);
    arm(step);
    int rc = DDBST_ENOMEM;
    ddbst_stream *s = ddbst_stream_new(m);
    if (s) {
      rc = ddbst_stream_parse(s, json, len, &err);
      if (rc < 0) assert_int_equal(ddbst_stream_count(s), 0);
    } else {
      err.code = DDBST_ENOMEM;
    }
    disarm();
    int ok = rc > 0;
    if (!ok) expect_enomem("ddbst_stream_parse", step, rc, &err);
    ddbst_stream_free(s);
    expect_live("ddbst_stream_parse", step, base);
    if (ok) break;
  }
  done("ddbst_stream_parse", step);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
  free(json);
}

/* ---- the JSON entry ---- */

/* An answer that is the ENOMEM error and nothing else. */
static void expect_enomem_answer(const char *what, long step, const char *a) {
  if (!a || strncmp(a, "{\"error\":{\"code\":-2,\"name\":\"ENOMEM\"", 35) != 0)
    fail_msg("%s, allocation %ld failing: answer %s", what, step,
             a ? a : "(null)");
}

static char *json_config(void) {
  static char config[1200];
  snprintf(config, sizeof config,
           "{\"modelFile\":\"%s/examples/saas/model.json\",\"cursorKeys\":"
           "\"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
           "\"}",
           DDBST_SOURCE_DIR);
  return config;
}

static void json_open(void **state) {
  (void)state;
  const char *config = json_config();
  long step;
  for (step = 1; step < MAX_STEPS; step++) {
    counting_alloc_init(&ca);
    arm(step);
    char *error = NULL;
    ddbst_json *s = ddbst_json_open(config, strlen(config), &ca.hooks, &error);
    disarm();
    if (s) {
      assert_null(error);
      ddbst_json_close(s);
      expect_live("ddbst_json_open", step, 0);
      break;
    }
    expect_enomem_answer("ddbst_json_open", step, error);
    ddbst_json_free(error);
    expect_live("ddbst_json_open", step, 0);
  }
  done("ddbst_json_open", step);
}

/* One request of each kind that allocates differently. */
static void json_call(void **state) {
  (void)state;
  size_t len;
  char *page = read_source("tests/data/responses/local-query-users-page1.json",
                         &len);
  char *quoted = malloc(len * 2 + 3), *o = quoted;
  *o++ = '"';
  for (size_t i = 0; i < len; i++) {
    if (page[i] == '"' || page[i] == '\\') *o++ = '\\';
    if (page[i] != '\n') *o++ = page[i];
  }
  *o++ = '"';
  *o = 0;
  char *page_req = malloc(strlen(quoted) + 200);
  sprintf(page_req, "{\"op\":\"page\",\"pattern\":\"listUsers\",\"values\":{"
                    "\"orgId\":\"1\"},\"response\":%s}", quoted);
  const char *requests[] = {
      "{\"op\":\"keys\",\"entity\":\"Event\",\"values\":{\"projectId\":\"p1\","
      "\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":\"01J0000000000000000000000A\","
      "\"type\":\"deploy\",\"payload\":{\"a\":"
      "[1,null]}}}",
      "{\"op\":\"create\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
      "\"userId\":\"9\",\"email\":\"a@b.c\",\"role\":\"admin\",\"name\":"
      "\"Ann\"},\"now\":1773478800000000}",
      "{\"op\":\"query\",\"pattern\":\"listProjects\",\"values\":{\"orgId\":"
      "\"1\"},\"condition\":{\"createdAt\":{\"begins\":\"2026\"}}}",
      "{\"op\":\"transact\",\"items\":[{\"op\":\"check\",\"entity\":"
      "\"Organisation\",\"values\":{\"orgId\":\"1\"}},{\"op\":\"delete\","
      "\"entity\":\"Organisation\",\"values\":{\"orgId\":\"2\"}}]}",
      "{\"op\":\"batchGet\",\"items\":[{\"op\":\"get\",\"entity\":"
      "\"Organisation\",\"values\":{\"orgId\":\"1\"}}]}",
      "{\"op\":\"lint\"}",
      page_req,
  };
  counting_alloc_init(&ca);
  const char *config = json_config();
  ddbst_json *s = ddbst_json_open(config, strlen(config), &ca.hooks, NULL);
  assert_non_null(s);
  for (size_t r = 0; r < sizeof requests / sizeof requests[0]; r++) {
    /* what the request answers with memory to spare: a failure that was
     * swallowed would show as another answer */
    char *want = ddbst_json_call(s, requests[r], strlen(requests[r]), NULL);
    assert_true(strncmp(want, "{\"error\":", 9) != 0);
    long base = ca.live, step;
    for (step = 1; step < MAX_STEPS; step++) {
      arm(step);
      char *a = ddbst_json_call(s, requests[r], strlen(requests[r]), NULL);
      disarm();
      int ok = strncmp(a, "{\"error\":", 9) != 0;
      if (!ok) expect_enomem_answer(requests[r], step, a);
      /* a page's cursor is sealed with a fresh nonce: compare its length */
      if (ok && (requests[r] == page_req ? strlen(a) != strlen(want)
                                         : strcmp(a, want) != 0))
        fail_msg("%s, allocation %ld failing: answered %s", requests[r], step,
                 a);
      ddbst_json_free(a);
      expect_live(requests[r], step, base);
      if (ok) break;
    }
    done(requests[r], step);
    ddbst_json_free(want);
  }
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
  free(page_req);
  free(quoted);
  free(page);
}

/* A stream request whose event, and the names in it, are long strings
 * with escapes: the request's text is decoded straight into the session's
 * arena (json/tree.c's string_room), the event read a slice at a time. */
static char *long_escapes_request(size_t *len) {
  static const char piece[] = "\\\"\xc3\xa9\\u20AC\\ud83d\\ude00\\n/";
  size_t cap = 1 << 17, n = 0;
  char *event = malloc(cap);
  assert_non_null(event);
  n += (size_t)snprintf(event, cap, "{\"Records\":[");
  for (int r = 0; r < 4; r++) {
    n += (size_t)snprintf(
        event + n, cap - n,
        "%s{\"eventName\":\"MODIFY\",\"dynamodb\":{\"Keys\":{\"PK\":{\"S\":"
        "\"ORG#%d\"},\"SK\":{\"S\":\"ORG#%d\"}},\"NewImage\":{\"_type\":{"
        "\"S\":\"Organisation\"},\"orgId\":{\"S\":\"%d\"},\"name\":{\"S\":\"",
        r ? "," : "", r, r, r);
    for (int k = 0; k < 300; k++)
      n += (size_t)snprintf(event + n, cap - n, "%s", piece);
    n += (size_t)snprintf(event + n, cap - n, "\"}},\"SequenceNumber\":\"1\"}}");
  }
  n += (size_t)snprintf(event + n, cap - n, "]}");
  char *req = malloc(2 * n + 64), *o = req;
  assert_non_null(req);
  o += sprintf(o, "{\"op\":\"stream\",\"event\":\"");
  for (size_t i = 0; i < n; i++) {
    if (event[i] == '"' || event[i] == '\\') *o++ = '\\';
    *o++ = event[i];
  }
  o += sprintf(o, "\"}");
  free(event);
  *len = (size_t)(o - req);
  return req;
}

/* That request on a cold session, each allocation failing in turn (the
 * arena's room for the event among them): the ENOMEM answer, or where a
 * failure is borne (the tree's kept frames) the whole answer, and nothing
 * left once the session is closed; until the call allocates less than
 * the step. */
static void json_call_long_escapes(void **state) {
  (void)state;
  size_t len;
  char *req = long_escapes_request(&len);
  assert_true(len > 32 * 1024); /* the event is read in slices */
  const char *config = json_config();
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(config, strlen(config), &ca.hooks, NULL);
  assert_non_null(s);
  char *want = ddbst_json_call(s, req, len, NULL);
  if (strncmp(want, "{\"records\":[{\"eventName\":\"MODIFY\"", 33))
    fail_msg("%.300s", want);
  ddbst_json_close(s);
  long step;
  for (step = 1; step < MAX_STEPS; step++) {
    counting_alloc_init(&ca);
    s = ddbst_json_open(config, strlen(config), &ca.hooks, NULL);
    assert_non_null(s);
    arm(step);
    char *a = ddbst_json_call(s, req, len, NULL);
    int failed = ca.calls >= ca.fail_at;
    disarm();
    if (strncmp(a, "{\"error\":", 9) == 0)
      expect_enomem_answer("a stream of long escaped strings", step, a);
    else if (strcmp(a, want) != 0)
      fail_msg("allocation %ld failing: answered %.300s", step, a);
    ddbst_json_free(a);
    ddbst_json_close(s);
    expect_live("a stream of long escaped strings", step, 0);
    if (!failed) break;
  }
  done("a stream of long escaped strings", step);
  ddbst_json_free(want);
  free(req);
}

int main(void) {
  if (sodium_init() < 0) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(model_load),   cmocka_unit_test(model_load_long_texts),
      cmocka_unit_test(model_load_with_errors),
      cmocka_unit_test(model_load_with_errors_each_copy),
      cmocka_unit_test(item_new),
      cmocka_unit_test(buf_new),      cmocka_unit_test(keys_json),
      cmocka_unit_test(put_request),  cmocka_unit_test(update_request),
      cmocka_unit_test(query_request), cmocka_unit_test(txn),
      cmocka_unit_test(batch),        cmocka_unit_test(page_parse),
      cmocka_unit_test(cursor_keys),  cmocka_unit_test(page_cursor),
      cmocka_unit_test(stream_parse), cmocka_unit_test(json_open),
      cmocka_unit_test(json_call),    cmocka_unit_test(json_call_long_escapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
