/* Issue 4 against DynamoDB Local: pagination through ddbst's own sealed
 * cursors instead of a hand-built ExclusiveStartKey, and the answers read
 * back with ddbst's page parser.
 *  1. 1,000 events of one project written with BatchWriteItem bodies
 *     (UnprocessedItems resent through ddbst_page_followup_request), read
 *     by listEvents seven at a time: every event once, in (ts, eventId)
 *     order, in 143 pages; a --gte/--lte range paged the same way; and
 *     projectsByStatus (GSI2) two at a time.
 *  2. Cursors refused with DDBST_ECURSOR and their exact message: another
 *     tenant's, another key's, an unsealed one on a sealed setup.
 *  3. The follow-up of a batch answer listing unprocessed items and keys
 *     (hand-written: DynamoDB Local processes everything) completes it.
 *  4. The KEYS_ONLY email lookup, then the full user by GetItem and
 *     BatchGetItem built from the page's keys.
 *  5. A cancelled unique-email create explained in the model's words.
 *
 * Library bugs found while writing these are asserted as they should be,
 * under #if DDBST_KNOWN_BUG_<NAME> (off unless defined), and described where
 * the guard is. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

/* The server's cursor key of these tests, and another server's: the key
 * 00 01 .. 1f, whose id docs/cursor.md gives (01bd5b96). */
static const uint8_t TEST_KEY[DDBST_CURSOR_KEY_BYTES] = {
    0x6b, 0x1f, 0x93, 0x2a, 0xc4, 0x58, 0x0e, 0xd7, 0x31, 0x9c, 0x42,
    0xa5, 0x7e, 0x13, 0xf0, 0x88, 0x2d, 0x64, 0xb9, 0x05, 0xe2, 0x7a,
    0x4c, 0x91, 0x36, 0xdf, 0x0b, 0x58, 0xa3, 0xc7, 0x1e, 0x62};
static const uint8_t OTHER_KEY[DDBST_CURSOR_KEY_BYTES] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
    0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
#define OTHER_KEY_ID "01bd5b96"

#define MSG_NO_OPEN                                                         \
  "the cursor does not open: it was made for another pattern, index, sort " \
  "order or partition, or it was altered"

/* ---- small helpers ---- */

static yajl_val get_path(yajl_val v, const char *a, const char *b,
                         const char *c) {
  const char *path[] = {a, b, c, NULL};
  return v ? yajl_tree_get(v, path, yajl_t_any) : NULL;
}

static size_t array_len(yajl_val v) {
  return YAJL_IS_ARRAY(v) ? v->u.array.len : 0;
}

static size_t object_len(yajl_val v) {
  return YAJL_IS_OBJECT(v) ? v->u.object.len : 0;
}

static int pattern_of(itest_fixture *f, const char *name) {
  int p = ddbst_model_pattern(f->model, name);
  if (p < 0) fail_msg("no pattern %s", name);
  return p;
}

static int entity_of(itest_fixture *f, const char *name) {
  int e = ddbst_model_entity(f->model, name);
  if (e < 0) fail_msg("no entity %s", name);
  return e;
}

static ddbst_cursor_keys *keyring(const uint8_t *first, const uint8_t *second) {
  ddbst_cursor_keys *k = ddbst_cursor_keys_new(NULL);
  ddbst_error err;
  if (!k) fail_msg("%s", "out of memory");
  if (ddbst_cursor_keys_add(k, first, &err) ||
      (second && ddbst_cursor_keys_add(k, second, &err)))
    fail_msg("cursor key refused: %s", err.message);
  return k;
}

/* ddbst_page_parse of the last answer, which must succeed. */
static int parse_answer(itest_fixture *f, ddbst_page *pg, int op) {
  ddbst_error err;
  int n = ddbst_page_parse(pg, op, itest_client_body(f->client),
                           itest_client_body_len(f->client), &err);
  if (n < 0)
    fail_msg("ddbst_page_parse(%s): %s: %s (path %s)\nanswer: %s\nrequest: %s",
             ddbst_operation_name(op), ddbst_strerror(n), err.message, err.path,
             itest_client_body(f->client), ddbst_buf_data(f->body));
  return n;
}

/* ddbst_page_parse_query of the last answer, to the query f->item made for
 * `pattern`, which must succeed. */
static int parse_query_answer(itest_fixture *f, ddbst_page *pg, int pattern) {
  ddbst_error err;
  int n = ddbst_page_parse_query(pg, f->item, pattern,
                                 itest_client_body(f->client),
                                 itest_client_body_len(f->client), &err);
  if (n < 0)
    fail_msg("ddbst_page_parse_query: %s: %s (path %s)\nanswer: %s\n"
             "request: %s",
             ddbst_strerror(n), err.message, err.path,
             itest_client_body(f->client), ddbst_buf_data(f->body));
  return n;
}

/* ddbst_page_parse of a text the test wrote, which must succeed. */
static int parse_text(ddbst_page *pg, int op, const char *json) {
  ddbst_error err;
  int n = ddbst_page_parse(pg, op, json, strlen(json), &err);
  if (n < 0)
    fail_msg(
        "ddbst_page_parse(%s) of a hand-written answer: %s: %s (path "
        "%s)\nanswer: %s",
        ddbst_operation_name(op), ddbst_strerror(n), err.message, err.path,
        json);
  return n;
}

/* Item `i` of the page as JSON, into `out` (reset first). */
static const char *item_json(ddbst_page *pg, int i, ddbst_buf *out) {
  ddbst_error err;
  ddbst_buf_reset(out);
  int rc = ddbst_page_item_json(pg, i, out, &err);
  if (rc)
    fail_msg("ddbst_page_item_json(%d): %s (%s)", i, err.message, err.path);
  return ddbst_buf_data(out);
}

/* Item `i` of the page into `item`: must be of `entity`. */
static void page_item(ddbst_page *pg, int i, ddbst_item *item, int entity) {
  ddbst_error err;
  int rc = ddbst_page_item(pg, i, item, &err);
  if (rc < 0)
    fail_msg("ddbst_page_item(%d): %s: %s (%s)", i, ddbst_strerror(rc),
             err.message, err.path);
  if (rc != entity)
    fail_msg("item %d is entity %d, expected %d", i, rc, entity);
}

/* The canonical text of attribute `name` of `item`, or NULL when unset. */
static const char *value_of(itest_fixture *f, ddbst_item *item,
                            const char *name) {
  int e = ddbst_item_entity(item);
  int a = ddbst_model_attribute(f->model, e, name);
  if (a < 0) fail_msg("no attribute %s", name);
  const char *text = NULL;
  size_t len = 0;
  int rc = ddbst_item_get(item, a, &text, &len);
  if (rc < 0) fail_msg("ddbst_item_get %s: %d", name, rc);
  return rc ? text : NULL;
}

static void expect_attr(itest_fixture *f, ddbst_item *item, const char *name,
                        const char *expected) {
  const char *got = value_of(f, item, name);
  if (!expected && got) fail_msg("%s should be unset, is '%s'", name, got);
  if (expected && !got) fail_msg("%s should be '%s', is unset", name, expected);
  if (expected && strcmp(got, expected))
    fail_msg("%s should be '%s', is '%s'", name, expected, got);
}

/* A key object ({"PK":{"S":"..."},...}) as sorted "name=value" text, so an
 * ExclusiveStartKey can be compared with the LastEvaluatedKey it repeats. */
static int by_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void key_text(yajl_val key, char *out, size_t cap) {
  char parts[8][512];
  char *order[8];
  size_t n = object_len(key);
  if (n == 0 || n > 8) fail_msg("a key of %zu attributes", n);
  for (size_t i = 0; i < n; i++) {
    yajl_val v = key->u.object.values[i];
    if (object_len(v) != 1 || !YAJL_IS_STRING(v->u.object.values[0]))
      fail_msg("key attribute %s is not a string or number",
               key->u.object.keys[i]);
    snprintf(parts[i], sizeof parts[i], "%s=%s:%s", key->u.object.keys[i],
             v->u.object.keys[0], YAJL_GET_STRING(v->u.object.values[0]));
    order[i] = parts[i];
  }
  qsort(order, n, sizeof *order, by_string);
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    int w = snprintf(out + len, cap - len, "%s%s", i ? " " : "", order[i]);
    if (w < 0 || (size_t)w >= cap - len) fail_msg("%s", "key too long");
    len += (size_t)w;
  }
}

/* ---- writing through batches ---- */

/* How many times a batch answer left something unprocessed. */
static int followups_sent;

/* Sends body `i` of the batch, then whatever the answer leaves unprocessed,
 * each follow-up built by ddbst_page_followup_request, until nothing is
 * left. */
static void send_batch_body(itest_fixture *f, ddbst_batch *b, int i,
                            ddbst_page *pg) {
  int op = ddbst_batch_request(b, i, 0, itest_body(f), &f->err);
  itest_ok(f, op);
  for (int attempt = 0;; attempt++) {
    assert_int_equal(parse_answer(f, pg, op), 0);
    int next = ddbst_page_followup_request(pg, itest_body(f), &f->err);
    if (next < 0) fail_msg("follow-up: %s", f->err.message);
    if (next == 0) {
      assert_int_equal(ddbst_buf_len(f->body), 0);
      return;
    }
    assert_int_equal(next, op);
    if (attempt == 10)
      fail_msg("still unprocessed after %d follow-ups: %s", attempt,
               itest_client_body(f->client));
    followups_sent++;
    struct timespec pause = {0, (long)(5 * 1000 * 1000) << attempt};
    if (pause.tv_nsec >= 1000000000L) pause.tv_nsec = 999999999L;
    nanosleep(&pause, NULL);
    itest_ok(f, next);
  }
}

static void send_batch(itest_fixture *f, ddbst_batch *b, ddbst_page *pg) {
  int n = ddbst_batch_request_count(b);
  for (int i = 0; i < n; i++) send_batch_body(f, b, i, pg);
}

/* ---- the events ---- */

enum { NEVENTS = 1000, NOTHER = 25, PAGE = 7 };

#define PROJECT "p1"
/* 2026-01-01T00:00:00Z */
#define T0 INT64_C(1767225600)

typedef struct event {
  int64_t sec;
  char ts[32];      /* canonical: 2026-01-01T00:00:37Z */
  char written[40]; /* as written: some with an offset */
  char id[27];      /* canonical ULID */
  char id_written[27];
  int n;
  int ttl; /* has expiresAt */
} event;

static event events[NEVENTS]; /* in (ts, eventId) order once sorted */

static void utc_text(int64_t sec, char *out, size_t cap) {
  time_t t = (time_t)sec;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A ULID of 26 Crockford characters from a 64-bit generator. */
static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void make_ulid(char out[27]) {
  static const char crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  memcpy(out, "01J", 3);
  for (int i = 3; i < 26; i++) out[i] = crockford[next_random() % 32];
  out[26] = '\0';
}

static int by_ts_id(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->sec != y->sec) return x->sec < y->sec ? -1 : 1;
  return strcmp(x->id, y->id);
}

/* 1,000 events over 400 distinct seconds (2 or 3 per second, so eventId
 * breaks ties), some written with a +02:00 offset, some ULIDs in lower
 * case: ddbst keys them canonically. */
static void make_events(void) {
  for (int i = 0; i < NEVENTS; i++) {
    event *e = &events[i];
    e->n = i;
    e->sec = T0 + (int64_t)((i * 7919) % 400) * 37;
    utc_text(e->sec, e->ts, sizeof e->ts);
    if (i % 7 == 3) {
      char local[32];
      utc_text(e->sec + 2 * 3600, local, sizeof local);
      local[19] = '\0'; /* drop the Z */
      snprintf(e->written, sizeof e->written, "%s+02:00", local);
    } else {
      memcpy(e->written, e->ts, sizeof e->ts);
    }
    make_ulid(e->id);
    memcpy(e->id_written, e->id, sizeof e->id);
    if (i % 5 == 1)
      for (char *c = e->id_written; *c; c++)
        if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    e->ttl = i % 10 == 0;
  }
  qsort(events, NEVENTS, sizeof *events, by_ts_id);
  for (int i = 1; i < NEVENTS; i++)
    if (!by_ts_id(&events[i - 1], &events[i]))
      fail_msg("%s", "two events with one key");
}

#define EXPIRES "1924992000" /* 2031-01-01: DynamoDB Local keeps it */

static void event_values(itest_fixture *f, const event *e,
                         const char *project) {
  char p[64], ts[64], id[64], type[32], payload[64];
  snprintf(p, sizeof p, "projectId=%s", project);
  snprintf(ts, sizeof ts, "ts=%s", e->written);
  snprintf(id, sizeof id, "eventId=%s", e->id_written);
  snprintf(type, sizeof type, "type=t%03d", e->n);
  snprintf(payload, sizeof payload, "payload={\"n\":%d,\"tag\":\"ev\"}", e->n);
  if (e->ttl)
    ITEST_VALUES(f, "Event", p, ts, id, type, payload, "expiresAt=" EXPIRES);
  else
    ITEST_VALUES(f, "Event", p, ts, id, type, payload);
}

/* What ddbst_page_item_json writes for event `e`. */
static void event_json(const event *e, const char *project, char *out,
                       size_t cap) {
  snprintf(out, cap,
           "{\"entity\":\"Event\",\"item\":{\"projectId\":\"%s\",\"ts\":\"%s\","
           "\"eventId\":\"%s\",\"type\":\"t%03d\",\"payload\":{\"n\":%d,"
           "\"tag\":\"ev\"}%s}}",
           project, e->ts, e->id, e->n, e->n,
           e->ttl ? ",\"expiresAt\":" EXPIRES : "");
}

/* ---- the projects ---- */

enum { NPROJECTS = 31 };

typedef struct proj {
  const char *org;
  char id[16];
  char created[32];
  char name[32];
  const char *status;
} proj;

static proj projects[NPROJECTS];

/* Two tenants; three projects a day, so GSI2SK ({createdAt}) has ties,
 * within one tenant and across the two; every fifth archived. */
static void make_projects(void) {
  for (int j = 0; j < NPROJECTS; j++) {
    proj *p = &projects[j];
    p->org = j % 2 ? "org-a" : "org-b";
    snprintf(p->id, sizeof p->id, "pr%02d", j);
    utc_text(T0 + (int64_t)(j / 3) * 86400 + 9 * 3600, p->created,
             sizeof p->created);
    snprintf(p->name, sizeof p->name, "Project %02d", j);
    p->status = j % 5 == 4 ? "archived" : "active";
  }
}

static void project_values(itest_fixture *f, const proj *p) {
  char o[32], id[32], c[48], n[48], s[32];
  snprintf(o, sizeof o, "orgId=%s", p->org);
  snprintf(id, sizeof id, "projectId=%s", p->id);
  snprintf(c, sizeof c, "createdAt=%s", p->created);
  snprintf(n, sizeof n, "name=%s", p->name);
  snprintf(s, sizeof s, "status=%s", p->status);
  ITEST_VALUES(f, "Project", o, id, c, n, s);
}

static void project_json(const proj *p, char *out, size_t cap) {
  snprintf(out, cap,
           "{\"entity\":\"Project\",\"item\":{\"orgId\":\"%s\",\"projectId\":"
           "\"%s\",\"createdAt\":\"%s\",\"name\":\"%s\",\"status\":\"%s\"}}",
           p->org, p->id, p->created, p->name, p->status);
}

/* ---- paging ---- */

typedef struct paged {
  int pages;
  int items;
  int last_page_items;
  size_t cursor_min, cursor_max;
} paged;

typedef void (*visit_fn)(itest_fixture *f, ddbst_page *pg, int i, int position,
                         void *ctx);

/* Pages through `pattern` with the values in f->item and the options in
 * `q` (its limit set), each next page asked for with the cursor ddbst made
 * from the page before, sealed with `keys`. Checks on every page that the
 * request's ExclusiveStartKey is exactly the LastEvaluatedKey before it
 * and that ddbst_page_has_more agrees with the answer. `visit` sees every
 * item, with its position in the whole read. */
static paged page_through(itest_fixture *f, const char *pattern_name,
                          ddbst_query q, const ddbst_cursor_keys *keys,
                          visit_fn visit, void *ctx) {
  int pattern = pattern_of(f, pattern_name);
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  assert_non_null(pg);
  assert_non_null(cursor);
  static char last_key[4096], start_key[4096];
  paged r = {0, 0, 0, (size_t)-1, 0};
  for (;;) {
    q.cursor = r.pages ? ddbst_buf_data(cursor) : NULL;
    q.cursor_len = r.pages ? ddbst_buf_len(cursor) : 0;
    q.cursor_keys = keys;
    int op = ddbst_query_request(f->item, pattern, &q, itest_body(f), &f->err);
    if (op != DDBST_OP_QUERY)
      fail_msg("%s page %d: the request was not built: %s: %s (%s)",
               pattern_name, r.pages + 1, ddbst_strerror(op), f->err.message,
               f->err.path);
    yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
    yajl_val esk = get_path(body, "ExclusiveStartKey", NULL, NULL);
    if (r.pages == 0 && esk)
      fail_msg("the first page has an ExclusiveStartKey: %s",
               ddbst_buf_data(f->body));
    if (r.pages) {
      if (!esk)
        fail_msg("page %d has no ExclusiveStartKey: %s", r.pages + 1,
                 ddbst_buf_data(f->body));
      key_text(esk, start_key, sizeof start_key);
      if (strcmp(start_key, last_key))
        fail_msg(
            "page %d: the cursor did not give back the "
            "LastEvaluatedKey\n  LastEvaluatedKey:  %s\n  "
            "ExclusiveStartKey: %s",
            r.pages + 1, last_key, start_key);
    }
    yajl_tree_free(body);

    itest_ok(f, op);
    int n = parse_query_answer(f, pg, pattern);
    yajl_val items = get_path(f->response, "Items", NULL, NULL);
    assert_int_equal((size_t)n, array_len(items));
    if ((uint32_t)n > q.limit)
      fail_msg("page %d holds %d items, over the limit %u", r.pages + 1, n,
               q.limit);
    for (int i = 0; i < n; i++) visit(f, pg, i, r.items + i, ctx);
    r.items += n;
    r.pages++;
    r.last_page_items = n;

    yajl_val lek = get_path(f->response, "LastEvaluatedKey", NULL, NULL);
    assert_int_equal(ddbst_page_has_more(pg), lek != NULL);
    ddbst_error err;
    int rc = ddbst_page_next_cursor(pg, keys, DDBST_NOW, cursor, &err);
    if (!lek) {
      /* the last page: no cursor, and no error */
      assert_int_equal(rc, 0);
      assert_int_equal(ddbst_buf_len(cursor), 0);
      break;
    }
    if (rc != 1)
      fail_msg("%s page %d: ddbst_page_next_cursor: %s: %s (%s)\nanswer: %s",
               pattern_name, r.pages, ddbst_strerror(rc), err.message, err.path,
               itest_client_body(f->client));
    key_text(lek, last_key, sizeof last_key);
    size_t len = ddbst_buf_len(cursor);
    if (len < r.cursor_min) r.cursor_min = len;
    if (len > r.cursor_max) r.cursor_max = len;
    if (r.pages > 2000) fail_msg("%s", "more pages than items");
  }
  ddbst_buf_free(cursor);
  ddbst_page_free(pg);
  return r;
}

/* Events expected in order, checked typed and as JSON. */
typedef struct event_run {
  const event *const *want;
  int n;
  ddbst_item *scratch;
  ddbst_buf *json;
} event_run;

static void visit_event(itest_fixture *f, ddbst_page *pg, int i, int position,
                        void *ctx) {
  event_run *run = ctx;
  if (position >= run->n)
    fail_msg("an event more than the %d expected came back: %s", run->n,
             item_json(pg, i, run->json));
  const event *e = run->want[position];
  char want[512];
  event_json(e, PROJECT, want, sizeof want);
  const char *got = item_json(pg, i, run->json);
  if (strcmp(got, want))
    fail_msg("event %d (page item %d)\n  expected: %s\n  got:      %s",
             position, i, want, got);
  page_item(pg, i, run->scratch, entity_of(f, "Event"));
  expect_attr(f, run->scratch, "projectId", PROJECT);
  expect_attr(f, run->scratch, "ts", e->ts);
  expect_attr(f, run->scratch, "eventId", e->id);
  char type[16];
  snprintf(type, sizeof type, "t%03d", e->n);
  expect_attr(f, run->scratch, "type", type);
  expect_attr(f, run->scratch, "expiresAt", e->ttl ? EXPIRES : NULL);
  if (!value_of(f, run->scratch, "payload"))
    fail_msg("event %d: payload unset", position);
}

/* ---- group 1: one table of 1,000 events and 31 projects ---- */

static ddbst_cursor_keys *keys;

static int pages_setup(void **state) {
  *state = itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "pages");
  if (!*state) return -1;
  itest_fixture *f = *state;
  keys = keyring(TEST_KEY, NULL);
  make_events();
  make_projects();
  ddbst_batch *b = ddbst_batch_new(f->model);
  ddbst_page *pg = ddbst_page_new(f->model);
  if (!b || !pg) return -1;
  /* in an order that is not the key order */
  for (int k = 0; k < NEVENTS; k++) {
    event_values(f, &events[(k * 389) % NEVENTS], PROJECT);
    if (ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("batch put event: %s", f->err.message);
  }
  /* another project's events, which no read of p1 may return */
  for (int k = 0; k < NOTHER; k++) {
    event_values(f, &events[k * 37], "p10");
    if (ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("batch put other event: %s", f->err.message);
  }
  for (int j = 0; j < NPROJECTS; j++) {
    project_values(f, &projects[j]);
    if (ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("batch put project: %s", f->err.message);
  }
  /* 1,056 writes: 42 bodies of 25 and one of 6 */
  assert_int_equal(ddbst_batch_request_count(b), 43);
  send_batch(f, b, pg);
  ddbst_page_free(pg);
  ddbst_batch_free(b);
  return 0;
}

static int pages_teardown(void **state) {
  ddbst_cursor_keys_free(keys);
  keys = NULL;
  return itest_teardown(state);
}

/* 1. listEvents, seven at a time: every event once, in order, 143 pages. */
static void events_every_one_once_in_order(void **state) {
  itest_fixture *f = *state;
  static const event *want[NEVENTS];
  for (int i = 0; i < NEVENTS; i++) want[i] = &events[i];
  event_run run = {want, NEVENTS, ddbst_item_new(f->model, 0),
                   ddbst_buf_new(NULL)};
  assert_non_null(run.scratch);
  assert_non_null(run.json);

  ITEST_VALUES(f, "Event", "projectId=" PROJECT);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = PAGE;
  paged r = page_through(f, "listEvents", q, keys, visit_event, &run);
  assert_int_equal(r.items, NEVENTS);
  /* 142 pages of 7 and the last of 6, which has no LastEvaluatedKey */
  assert_int_equal(r.pages, 143);
  assert_int_equal(r.last_page_items, 6);
  /* ts as an integer, eventId as 16 bytes: 91 characters (docs/cursor.md) */
  assert_int_equal(r.cursor_min, 91);
  assert_int_equal(r.cursor_max, 91);
  print_message(
      "listEvents: %d events in %d pages of %d, cursors of %zu "
      "characters; %d follow-ups sent while writing\n",
      r.items, r.pages, PAGE, r.cursor_max, followups_sent);
  ddbst_buf_free(run.json);
  ddbst_item_free(run.scratch);
}

/* 1. A sort-key range (--gte ts=<an hour> --lte ts=<a second>), paged the
 * same way: exactly the events inside it, in order. The upper bound is
 * chosen so the range holds a multiple of 7 events: the last full page
 * still has a LastEvaluatedKey, and the page after it is empty. */
static void events_in_a_range(void **state) {
  itest_fixture *f = *state;
  static const event *want[NEVENTS];
  const int64_t lo = T0 + 3600; /* --gte ts=2026-01-01T01 (partial) */
  int n = 0, hi_index = -1;
  for (int i = 0; i < NEVENTS; i++) {
    if (events[i].sec < lo) continue;
    /* the last of two or more events of one second, after 60 or more */
    int last_of_second = i + 1 == NEVENTS || events[i + 1].sec != events[i].sec;
    int count = 0;
    for (int k = 0; k <= i; k++) count += events[k].sec >= lo;
    if (last_of_second && count >= 60 && count % PAGE == 0 &&
        events[i].sec == events[i - 1].sec) {
      hi_index = i;
      break;
    }
  }
  if (hi_index < 0) fail_msg("%s", "no upper bound gives a multiple of 7");
  for (int i = 0; i <= hi_index; i++)
    if (events[i].sec >= lo) want[n++] = &events[i];

  event_run run = {want, n, ddbst_item_new(f->model, 0), ddbst_buf_new(NULL)};
  ITEST_VALUES(f, "Event", "projectId=" PROJECT);
  ddbst_query q = itest_condition(f, DDBST_SK_BETWEEN, "ts", "2026-01-01T01",
                                  events[hi_index].ts);
  q.limit = PAGE;
  paged r = page_through(f, "listEvents", q, keys, visit_event, &run);
  assert_int_equal(r.items, n);
  assert_int_equal(r.pages, n / PAGE + 1);
  assert_int_equal(r.last_page_items, 0);
  print_message(
      "listEvents --gte ts=2026-01-01T01 --lte ts=%s: %d events "
      "in %d pages, the last one empty\n",
      events[hi_index].ts, r.items, r.pages);
  ddbst_buf_free(run.json);
  ddbst_item_free(run.scratch);
}

/* projectsByStatus (GSI2, newest first), two at a time. */
typedef struct project_run {
  const proj *want[NPROJECTS];
  int n;
  int seen[NPROJECTS];
  char order[1024];
  ddbst_item *scratch;
  ddbst_buf *json;
} project_run;

static void visit_project(itest_fixture *f, ddbst_page *pg, int i, int position,
                          void *ctx) {
  project_run *run = ctx;
  page_item(pg, i, run->scratch, entity_of(f, "Project"));
  const char *org = value_of(f, run->scratch, "orgId");
  const char *id = value_of(f, run->scratch, "projectId");
  if (!org || !id) fail_msg("project %d: orgId or projectId unset", position);
  int k = 0;
  while (k < run->n &&
         (strcmp(run->want[k]->org, org) || strcmp(run->want[k]->id, id)))
    k++;
  if (k == run->n) fail_msg("project %s/%s should not be there", org, id);
  if (run->seen[k]++) fail_msg("project %s/%s came back twice", org, id);
  const proj *p = run->want[k];
  /* newest first; projects of one createdAt in any order */
  if (strcmp(p->created, run->want[position]->created))
    fail_msg("position %d: %s/%s created %s, expected one created %s", position,
             org, id, p->created, run->want[position]->created);
  char want[512];
  project_json(p, want, sizeof want);
  const char *got = item_json(pg, i, run->json);
  if (strcmp(got, want))
    fail_msg("project %d\n  expected: %s\n  got:      %s", position, want, got);
  expect_attr(f, run->scratch, "createdAt", p->created);
  expect_attr(f, run->scratch, "name", p->name);
  expect_attr(f, run->scratch, "status", "active");
  size_t len = strlen(run->order);
  snprintf(run->order + len, sizeof run->order - len, "%s%s", len ? " " : "",
           id);
}

static int by_created_desc(const void *a, const void *b) {
  const proj *x = *(const proj *const *)a, *y = *(const proj *const *)b;
  return strcmp(y->created, x->created);
}

static void projects_by_status_in_pages_of_two(void **state) {
  itest_fixture *f = *state;
  static project_run run;
  memset(&run, 0, sizeof run);
  for (int j = 0; j < NPROJECTS; j++)
    if (!strcmp(projects[j].status, "active")) run.want[run.n++] = &projects[j];
  qsort(run.want, (size_t)run.n, sizeof run.want[0], by_created_desc);
  run.scratch = ddbst_item_new(f->model, 0);
  run.json = ddbst_buf_new(NULL);

  ITEST_VALUES(f, "Project", "status=active");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  paged r = page_through(f, "projectsByStatus", q, keys, visit_project, &run);
  assert_int_equal(run.n, 25);
  assert_int_equal(r.items, 25);
  for (int k = 0; k < run.n; k++)
    if (run.seen[k] != 1)
      fail_msg("project %s/%s came back %d times", run.want[k]->org,
               run.want[k]->id, run.seen[k]);
  assert_int_equal(r.pages, 13);
  assert_int_equal(r.last_page_items, 1);
  /* createdAt (5 bytes), orgId and projectId as text (1 + 5 and 1 + 4
   * bytes), in an array (1), sealed (45): 62 bytes, 83 characters */
  assert_int_equal(r.cursor_min, 83);
  assert_int_equal(r.cursor_max, 83);
  print_message(
      "projectsByStatus active: %d projects in %d pages of 2; "
      "order: %s\n",
      r.items, r.pages, run.order);
  ddbst_buf_free(run.json);
  ddbst_item_free(run.scratch);
}

/* ---- 2. cursors refused ---- */

/* listProjects of `org`, two a page: the first page's answer is left in
 * f->response / the client's body, its cursor (sealed with `ring`, or
 * unsealed when NULL and the page's model allows it) in `cursor`. */
static void first_projects_page(itest_fixture *f, const char *org,
                                ddbst_page *pg, const ddbst_cursor_keys *ring,
                                ddbst_buf *cursor) {
  char o[32];
  snprintf(o, sizeof o, "orgId=%s", org);
  ITEST_VALUES(f, "Project", o);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  int pattern = pattern_of(f, "listProjects");
  itest_ok(f,
           ddbst_query_request(f->item, pattern, &q, itest_body(f), &f->err));
  assert_int_equal(parse_query_answer(f, pg, pattern), 2);
  assert_true(ddbst_page_has_more(pg));
  ddbst_error err;
  int rc = ddbst_page_next_cursor(pg, ring, DDBST_NOW, cursor, &err);
  if (rc != 1) fail_msg("ddbst_page_next_cursor: %s (%s)", err.message, err.path);
}

/* listProjects of `org` from `cursor`, opened with `ring`: the builder's
 * return; f->body holds what it appended. */
static int projects_after(itest_fixture *f, const char *org,
                          const ddbst_cursor_keys *ring, ddbst_buf *cursor) {
  char o[32];
  snprintf(o, sizeof o, "orgId=%s", org);
  ITEST_VALUES(f, "Project", o);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  q.cursor_keys = ring;
  memset(&f->err, 0, sizeof f->err);
  return ddbst_query_request(f->item, pattern_of(f, "listProjects"), &q,
                             itest_body(f), &f->err);
}

static void expect_refused(itest_fixture *f, int rc, int code, const char *path,
                           const char *message) {
  if (rc != code)
    fail_msg("expected %s, got %d (%s)\nrequest: %s", ddbst_strerror(code), rc,
             f->err.message, ddbst_buf_data(f->body));
  assert_int_equal(f->err.code, code);
  assert_string_equal(f->err.path, path);
  assert_string_equal(f->err.message, message);
  /* no request is built */
  assert_int_equal(ddbst_buf_len(f->body), 0);
}

/* The projects of org-a, newest first (listProjects' order), ids
 * space-separated, from position `from`, `n` of them. */
static void org_a_ids(int from, int n, char *out, size_t cap) {
  const proj *list[NPROJECTS];
  int count = 0;
  for (int j = 0; j < NPROJECTS; j++)
    if (!strcmp(projects[j].org, "org-a")) list[count++] = &projects[j];
  /* SK PROJECT#{createdAt}#{projectId}, descending */
  for (int a = 0; a < count; a++)
    for (int b = a + 1; b < count; b++) {
      int c = strcmp(list[a]->created, list[b]->created);
      if (c < 0 || (c == 0 && strcmp(list[a]->id, list[b]->id) < 0)) {
        const proj *t = list[a];
        list[a] = list[b];
        list[b] = t;
      }
    }
  size_t len = 0;
  out[0] = '\0';
  for (int k = from; k < from + n && k < count; k++)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "",
                            list[k]->id);
}

/* The bytes of a base64url text (no padding); their count. */
static size_t base64url_decode(const char *text, uint8_t *out, size_t cap) {
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (const char *c = text; *c; c++) {
    int v = *c >= 'A' && *c <= 'Z'   ? *c - 'A'
            : *c >= 'a' && *c <= 'z' ? *c - 'a' + 26
            : *c >= '0' && *c <= '9' ? *c - '0' + 52
            : *c == '-'              ? 62
            : *c == '_'              ? 63
                                     : -1;
    if (v < 0) fail_msg("'%s' is not base64url", text);
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n == cap) fail_msg("%s", "cursor too long");
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  return n;
}

/* A sealed cursor's nonce: envelope bytes 5..28 (docs/cursor.md). */
static void nonce_of(const char *cursor, uint8_t nonce[24]) {
  uint8_t env[512];
  size_t n = base64url_decode(cursor, env, sizeof env);
  if (n < 5 + 24 + 16) fail_msg("cursor %s too short to be sealed", cursor);
  memcpy(nonce, env + 5, 24);
}

/* A server that loads its keyring and then forks its workers (a pre-fork
 * server) seals cursors in each of them with that one key. The nonce is a
 * random prefix and a counter; this test found that both were inherited by
 * forked workers (XChaCha20-Poly1305 nonce reuse), and now proves they are
 * drawn again in each process. */
static void nonces_unique_across_fork(itest_fixture *f, ddbst_page *pg) {
  ITEST_VALUES(f, "Project", "orgId=org-a");
  int fds[2];
  if (pipe(fds)) fail_msg("%s", "pipe failed");
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) fail_msg("%s", "fork failed");
  if (child == 0) {
    /* the worker: seal one cursor, hand it over, leave at once */
    ddbst_buf *mine = ddbst_buf_new(NULL);
    int rc = mine ? ddbst_page_next_cursor(pg, keys, DDBST_NOW, mine, NULL)
                  : -1;
    size_t len = rc == 1 ? ddbst_buf_len(mine) : 0;
    ssize_t w = len ? write(fds[1], ddbst_buf_data(mine), len) : 0;
    _exit(w == (ssize_t)len && len ? 0 : 1);
  }
  close(fds[1]);
  char theirs[512];
  size_t got = 0;
  for (ssize_t r;
       (r = read(fds[0], theirs + got, sizeof theirs - 1 - got)) > 0;)
    got += (size_t)r;
  close(fds[0]);
  theirs[got] = '\0';
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) || !got)
    fail_msg("%s", "the forked worker did not seal a cursor");
  ddbst_buf *mine = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_page_next_cursor(pg, keys, DDBST_NOW, mine, &f->err),
                   1);
  uint8_t a[24], b[24];
  nonce_of(ddbst_buf_data(mine), a);
  nonce_of(theirs, b);
  assert_memory_not_equal(a, b, sizeof a);
  ddbst_buf_free(mine);
}

static void cursor_nonces_differ_across_fork(void **state) {
  itest_fixture *f = *state;
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  first_projects_page(f, "org-a", pg, keys, cursor);
  nonces_unique_across_fork(f, pg);
  ddbst_buf_free(cursor);
  ddbst_page_free(pg);
}

/* Tenant A's cursor on tenant B's listProjects is refused; on A's own it
 * reads A's next page. */
static void cursor_of_another_tenant_refused(void **state) {
  itest_fixture *f = *state;
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  char want[256];
  first_projects_page(f, "org-a", pg, keys, cursor);
  org_a_ids(0, 2, want, sizeof want);
  itest_expect(f, get_path(f->response, "Items", NULL, NULL), "projectId", want,
               "listProjects org-a page 1");

  /* org-b has projects: a start key inside it would read them */
  expect_refused(f, projects_after(f, "org-b", keys, cursor), DDBST_ECURSOR,
                 "cursor", MSG_NO_OPEN);

  /* the control: on org-a, the page after */
  int op = projects_after(f, "org-a", keys, cursor);
  itest_ok(f, op);
  org_a_ids(2, 2, want, sizeof want);
  itest_expect(f, get_path(f->response, "Items", NULL, NULL), "projectId", want,
               "listProjects org-a page 2");

  /* sealing the same page again gives another text, which opens the same */
  ddbst_buf *again = ddbst_buf_new(NULL);
  ITEST_VALUES(f, "Project", "orgId=org-a");
  assert_int_equal(ddbst_page_next_cursor(pg, keys, DDBST_NOW, again, &f->err),
                   1);
  assert_string_not_equal(ddbst_buf_data(again), ddbst_buf_data(cursor));
  itest_ok(f, projects_after(f, "org-a", keys, again));
  itest_expect(f, get_path(f->response, "Items", NULL, NULL), "projectId", want,
               "listProjects org-a page 2, the cursor sealed again");
  ddbst_buf_free(again);

  /* nor does it open for another pattern of the same partition, and the
   * refusal names the pattern it was made for */
  ITEST_VALUES(f, "User", "orgId=org-a");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  q.cursor_keys = keys;
  expect_refused(f,
                 ddbst_query_request(f->item, pattern_of(f, "listUsers"), &q,
                                     itest_body(f), &f->err),
                 DDBST_ECURSOR, "cursor",
                 "the cursor was made for pattern listProjects, not listUsers: "
                 "send it with the query it came from, or start listUsers from "
                 "its first page");
  ddbst_buf_free(cursor);
  ddbst_page_free(pg);
}

/* Every project of org-a through listProjects (the table, newest first),
 * two a page. */
static void visit_label(itest_fixture *f, ddbst_page *pg, int i, int position,
                        void *ctx) {
  (void)position;
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  page_item(pg, i, scratch, entity_of(f, "Project"));
  expect_attr(f, scratch, "orgId", "org-a");
  char *out = ctx;
  size_t len = strlen(out);
  snprintf(out + len, 1024 - len, "%s%s", len ? " " : "",
           value_of(f, scratch, "projectId"));
  ddbst_item_free(scratch);
}

static void list_projects_in_pages_of_two(void **state) {
  itest_fixture *f = *state;
  static char got[1024], want[1024];
  got[0] = '\0';
  org_a_ids(0, NPROJECTS, want, sizeof want);
  ITEST_VALUES(f, "Project", "orgId=org-a");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  paged r = page_through(f, "listProjects", q, keys, visit_label, got);
  assert_string_equal(got, want);
  assert_int_equal(r.items, 15);
  assert_int_equal(r.pages, 8);
}

/* A cursor sealed with another server's key is refused by this keyring,
 * which names the key's id; a keyring holding that key opens it. */
static void cursor_of_another_key_refused(void **state) {
  itest_fixture *f = *state;
  ddbst_cursor_keys *other = keyring(OTHER_KEY, NULL);
  ddbst_cursor_keys *rotated = keyring(TEST_KEY, OTHER_KEY);
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  first_projects_page(f, "org-a", pg, other, cursor);
  expect_refused(f, projects_after(f, "org-a", keys, cursor), DDBST_ECURSOR,
                 "cursor",
                 "the cursor was sealed with a key this service no longer has "
                 "(key id " OTHER_KEY_ID "): it was made before that key left "
                 "the keyring, or by another service; start again from the "
                 "first page");

  char want[256];
  org_a_ids(2, 2, want, sizeof want);
  itest_ok(f, projects_after(f, "org-a", other, cursor));
  itest_expect(f, get_path(f->response, "Items", NULL, NULL), "projectId", want,
               "listProjects org-a page 2, the other key's keyring");
  /* the old key kept second after a rotation still opens it */
  itest_ok(f, projects_after(f, "org-a", rotated, cursor));
  itest_expect(f, get_path(f->response, "Items", NULL, NULL), "projectId", want,
               "listProjects org-a page 2, the rotated keyring");
  ddbst_buf_free(cursor);
  ddbst_page_free(pg);
  ddbst_cursor_keys_free(rotated);
  ddbst_cursor_keys_free(other);
}

/* The SaaS model with "cursors": "unsealed", on the same table. */
static ddbst_model *unsealed_model(itest_fixture *f) {
  const char *path = DDBST_SOURCE_DIR "/examples/saas/model.json";
  FILE *file = fopen(path, "rb");
  if (!file) fail_msg("cannot read %s", path);
  static char text[16384], edited[16384];
  size_t n = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  text[n] = '\0';
  const char *anchor = "\"table\": {";
  char *at = strstr(text, anchor);
  if (!at) fail_msg("no %s in the model", anchor);
  size_t head = (size_t)(at - text) + strlen(anchor);
  snprintf(edited, sizeof edited, "%.*s \"cursors\": \"unsealed\",%s",
           (int)head, text, text + head);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = f->table;
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load(edited, strlen(edited), &o, &m, &err))
    fail_msg("the unsealed model: %s (%s)", err.message, err.path);
  return m;
}

/* An unsealed cursor (from a development setup) on this sealed setup is
 * refused: a client cannot downgrade. And the other way round. */
static void unsealed_cursor_refused(void **state) {
  itest_fixture *f = *state;
  ddbst_model *dev = unsealed_model(f);
  ddbst_page *dev_page = ddbst_page_new(dev);
  ddbst_item *dev_values =
      ddbst_item_new(dev, ddbst_model_entity(dev, "Project"));
  ddbst_buf *unsealed = ddbst_buf_new(NULL), *sealed = ddbst_buf_new(NULL),
            *dev_body = ddbst_buf_new(NULL);
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_error err;
  assert_non_null(dev_page);
  assert_non_null(dev_values);

  /* the first page, read by the sealed setup; the same answer read by
   * the development setup makes an unsealed cursor */
  first_projects_page(f, "org-a", pg, keys, sealed);
  assert_int_equal(ddbst_item_set_by_name(dev_values, "orgId", "org-a",
                                          DDBST_NUL_TERMINATED, &err),
                   0);
  int pattern = ddbst_model_pattern(dev, "listProjects");
  assert_int_equal(ddbst_page_parse_query(dev_page, dev_values, pattern,
                                          itest_client_body(f->client),
                                          itest_client_body_len(f->client),
                                          &err),
                   2);
  if (ddbst_page_next_cursor(dev_page, NULL, DDBST_NOW, unsealed, &err) != 1)
    fail_msg("unsealed cursor: %s (%s)", err.message, err.path);

  expect_refused(f, projects_after(f, "org-a", keys, unsealed), DDBST_ECURSOR,
                 "cursor",
                 "the cursor is unsealed, but cursor keys are configured: "
                 "only sealed cursors are accepted");
  /* no keys on a sealed model is the server's fault, not the client's */
  expect_refused(f, projects_after(f, "org-a", NULL, unsealed), DDBST_EINVAL,
                 "cursor_keys",
                 "pattern listProjects: the model's cursors are sealed "
                 "(table.cursors) and no cursor keys were given; configure "
                 "keys, or declare \"cursors\": \"unsealed\" for development");

  /* the development setup opens its own cursor, to the same start key the
   * sealed one gives, and refuses the sealed one */
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  q.cursor = ddbst_buf_data(unsealed);
  q.cursor_len = ddbst_buf_len(unsealed);
  int op = ddbst_query_request(dev_values, pattern, &q, dev_body, &err);
  if (op != DDBST_OP_QUERY)
    fail_msg("the unsealed cursor on its own setup: %s", err.message);
  assert_int_equal(projects_after(f, "org-a", keys, sealed), DDBST_OP_QUERY);
  assert_string_equal(ddbst_buf_data(dev_body), ddbst_buf_data(f->body));
  q.cursor = ddbst_buf_data(sealed);
  q.cursor_len = ddbst_buf_len(sealed);
  ddbst_buf_reset(dev_body);
  assert_int_equal(ddbst_query_request(dev_values, pattern, &q, dev_body, &err),
                   DDBST_ECURSOR);
  assert_string_equal(err.message,
                      "the cursor is sealed, but no cursor keys "
                      "are configured to open it");
  assert_int_equal(ddbst_buf_len(dev_body), 0);

  ddbst_page_free(pg);
  ddbst_buf_free(dev_body);
  ddbst_buf_free(sealed);
  ddbst_buf_free(unsealed);
  ddbst_item_free(dev_values);
  ddbst_page_free(dev_page);
  ddbst_model_free(dev);
}

/* ---- 3. follow-ups of batch answers that leave work unprocessed ---- */

/* The follow-up events: project pf, 2026-02-01T00:0i:00Z. */
static event fev[8];

static void make_followup_events(void) {
  for (int i = 0; i < 8; i++) {
    event *e = &fev[i];
    memset(e, 0, sizeof *e);
    e->n = 500 + i;
    e->sec = T0 + 31 * 86400 + i * 60;
    utc_text(e->sec, e->ts, sizeof e->ts);
    memcpy(e->written, e->ts, sizeof e->ts);
    snprintf(e->id, sizeof e->id, "01JF%022d", i);
    memcpy(e->id_written, e->id, sizeof e->id);
    e->ttl = i % 2;
  }
}

/* Event `e` of project `project` as DynamoDB writes an item, by hand:
 * keys, entity attribute and attributes, a map and a TTL number. */
static int av_event(char *out, size_t cap, const event *e,
                    const char *project) {
  return snprintf(
      out, cap,
      "{\"payload\":{\"M\":{\"n\":{\"N\":\"%d\"},\"tag\":{\"S\":\"ev\"}}},"
      "\"SK\":{\"S\":\"EVENT#%s#%s\"},\"type\":{\"S\":\"t%03d\"},"
      "\"PK\":{\"S\":\"PROJECT#%s\"},\"_type\":{\"S\":\"Event\"},"
      "\"projectId\":{\"S\":\"%s\"},\"ts\":{\"S\":\"%s\"},"
      "\"eventId\":{\"S\":\"%s\"}%s}",
      e->n, e->ts, e->id, e->n, project, project, e->ts, e->id,
      e->ttl ? ",\"expiresAt\":{\"N\":\"" EXPIRES "\"}" : "");
}

static int av_key(char *out, size_t cap, const event *e, const char *project) {
  return snprintf(
      out, cap,
      "{\"PK\":{\"S\":\"PROJECT#%s\"},\"SK\":{\"S\":\"EVENT#%s#%s\"}}", project,
      e->ts, e->id);
}

/* GetItem of event `e`, read back with ddbst_page_parse: its JSON, or
 * NULL when there is no such item. */
static const char *read_event(itest_fixture *f, const event *e,
                              const char *project, ddbst_page *pg,
                              ddbst_buf *json) {
  event_values(f, e, project);
  int op =
      ddbst_get_request(f->item, DDBST_CONSISTENT_READ, itest_body(f), &f->err);
  itest_ok(f, op);
  int n = parse_answer(f, pg, op);
  if (n == 0) return NULL;
  assert_int_equal(n, 1);
  return item_json(pg, 0, json);
}

static void expect_event_stored(itest_fixture *f, const event *e,
                                const char *project, ddbst_page *pg,
                                ddbst_buf *json) {
  char want[512];
  event_json(e, project, want, sizeof want);
  const char *got = read_event(f, e, project, pg, json);
  if (!got) fail_msg("event %d of %s is missing", e->n, project);
  if (strcmp(got, want))
    fail_msg("event %d of %s\n  expected: %s\n  got:      %s", e->n, project,
             want, got);
  /* and as stored: keys, entity attribute, attributes, nothing else */
  yajl_val item = get_path(f->response, "Item", NULL, NULL);
  itest_expect_attributes(
      f, item,
      e->ttl ? "PK SK _type projectId ts eventId type payload expiresAt"
             : "PK SK _type projectId ts eventId type payload");
}

/* An organisation whose name needs every kind of JSON escape, as DynamoDB
 * would write it in an answer, and the name it stands for. */
#define ESCAPED_ORG                                                     \
  "{\"PK\":{\"S\":\"ORG#org-esc\"},\"SK\":{\"S\":\"ORG#org-esc\"},"     \
  "\"_type\":{\"S\":\"Organisation\"},\"orgId\":{\"S\":\"org-esc\"},"   \
  "\"name\":{\"S\":\"Q\\\"uote \\\\ back \\/ slash \\u00e9t\\u00e9 "    \
  "\\ud83d\\ude00 tab\\t nl\\n ctl\\u0001\"},\"plan\":{\"S\":\"pro\"}," \
  "\"createdAt\":{\"S\":\"2026-01-01T00:00:00Z\"}}"
#define ESCAPED_NAME                                                       \
  "Q\"uote \\ back / slash \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80 tab\t nl\n " \
  "ctl\x01"

/* A BatchWriteItem answer listing three puts and a delete of one table and
 * a put of another as unprocessed: the follow-up ddbst builds writes them. */
static void followup_completes_a_batch_write(void **state) {
  itest_fixture *f = *state;
  itest_fixture *g =
      itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "pages-f2");
  assert_non_null(g);
  make_followup_events();
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *json = ddbst_buf_new(NULL);
  ddbst_batch *b = ddbst_batch_new(f->model);

  /* event 7 exists; the batch deletes it */
  event_values(f, &fev[7], "pf");
  assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
  send_batch(f, b, pg);
  expect_event_stored(f, &fev[7], "pf", pg, json);

  /* the batch: puts of events 0..4 and the delete of 7. DynamoDB
   * processed 0..2 only; so those are what is sent here */
  ddbst_batch_reset(b);
  for (int i = 0; i < 3; i++) {
    event_values(f, &fev[i], "pf");
    assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
  }
  send_batch(f, b, pg);

  /* and the rest comes back unprocessed, in DynamoDB's documented shape
   * (members in no particular order, ConsumedCapacity and
   * ItemCollectionMetrics beside) */
  static char answer[8192];
  char item3[1024], item4[1024], item5[1024], key7[512];
  av_event(item3, sizeof item3, &fev[3], "pf");
  av_event(item4, sizeof item4, &fev[4], "pf");
  av_event(item5, sizeof item5, &fev[5], "pg");
  av_key(key7, sizeof key7, &fev[7], "pf");
  snprintf(answer, sizeof answer,
           "{\"ConsumedCapacity\":[{\"TableName\":\"%s\",\"CapacityUnits\":"
           "3.0}],\"UnprocessedItems\":{\"%s\":[{\"PutRequest\":{\"Item\":%s}},"
           "{\"DeleteRequest\":{\"Key\":%s}},{\"PutRequest\":{\"Item\":%s}},"
           "{\"PutRequest\":{\"Item\":%s}}],"
           "\"%s\":[{\"PutRequest\":{\"Item\":%s}}]},"
           "\"ItemCollectionMetrics\":{}}",
           f->table, f->table, item3, key7, item4, ESCAPED_ORG, g->table,
           item5);
  assert_int_equal(parse_text(pg, DDBST_OP_BATCH_WRITE_ITEM, answer), 0);
  int op = ddbst_page_followup_request(pg, itest_body(f), &f->err);
  if (op < 0) fail_msg("follow-up: %s (%s)", f->err.message, f->err.path);
  assert_int_equal(op, DDBST_OP_BATCH_WRITE_ITEM);

  /* the body: RequestItems of both tables, the requests as they were */
  yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  if (!body) fail_msg("the follow-up is not JSON: %s", ddbst_buf_data(f->body));
  assert_int_equal(object_len(body), 1);
  yajl_val mine = get_path(body, "RequestItems", f->table, NULL);
  yajl_val theirs = get_path(body, "RequestItems", g->table, NULL);
  assert_int_equal(object_len(get_path(body, "RequestItems", NULL, NULL)), 2);
  assert_int_equal(array_len(mine), 4);
  assert_int_equal(array_len(theirs), 1);
  assert_non_null(
      get_path(mine->u.array.values[0], "PutRequest", "Item", NULL));
  assert_non_null(
      get_path(mine->u.array.values[1], "DeleteRequest", "Key", NULL));
  assert_non_null(
      get_path(mine->u.array.values[2], "PutRequest", "Item", NULL));
  yajl_tree_free(body);

  itest_ok(f, op);
  /* DynamoDB's answer to it leaves nothing: no further follow-up */
  assert_int_equal(parse_answer(f, pg, op), 0);
  ddbst_buf_reset(f->body);
  assert_int_equal(ddbst_page_followup_request(pg, f->body, &f->err), 0);
  assert_int_equal(ddbst_buf_len(f->body), 0);

  for (int i = 0; i < 5; i++) expect_event_stored(f, &fev[i], "pf", pg, json);
  /* the strings written back exactly, escapes and all */
  ITEST_VALUES(f, "Organisation", "orgId=org-esc");
  itest_ok(f, ddbst_get_request(f->item, DDBST_CONSISTENT_READ, itest_body(f),
                                &f->err));
  yajl_val org = get_path(f->response, "Item", NULL, NULL);
  itest_expect_attributes(f, org, "PK SK _type orgId name plan createdAt");
  itest_expect_s(org, "name", ESCAPED_NAME);
  assert_int_equal(parse_answer(f, pg, DDBST_OP_GET_ITEM), 1);
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  page_item(pg, 0, scratch, entity_of(f, "Organisation"));
  expect_attr(f, scratch, "name", ESCAPED_NAME);
  expect_attr(f, scratch, "createdAt", "2026-01-01T00:00:00Z");
  ddbst_item_free(scratch);
  assert_null(read_event(f, &fev[7], "pf", pg, json));
  assert_null(read_event(f, &fev[5], "pf", pg, json));
  /* the other table's put, read with the other table's model */
  ddbst_page *gp = ddbst_page_new(g->model);
  expect_event_stored(g, &fev[5], "pg", gp, json);
  ddbst_page_free(gp);

  ddbst_batch_free(b);
  ddbst_buf_free(json);
  ddbst_page_free(pg);
  assert_int_equal(itest_close(g), 0);
}

/* A BatchGetItem answer with one item and the rest as UnprocessedKeys (one
 * plain, consistent; one with a projection): the follow-ups ddbst builds
 * read the rest, as asked. */
static void followup_completes_a_batch_get(void **state) {
  itest_fixture *f = *state;
  make_followup_events();
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *json = ddbst_buf_new(NULL);
  ddbst_batch *b = ddbst_batch_new(f->model);
  for (int i = 0; i < 8; i++) {
    event_values(f, &fev[i], "pf");
    assert_int_equal(ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err), 0);
  }
  send_batch(f, b, pg);

  /* the answer to a consistent BatchGetItem of events 0..7: event 0 read,
   * 1..7 left */
  static char answer[16384];
  char item0[1024], keys_text[4096];
  av_event(item0, sizeof item0, &fev[0], "pf");
  size_t len = 0;
  for (int i = 1; i < 8; i++) {
    if (i > 1) keys_text[len++] = ',';
    len +=
        (size_t)av_key(keys_text + len, sizeof keys_text - len, &fev[i], "pf");
  }
  snprintf(answer, sizeof answer,
           "{\"Responses\":{\"%s\":[%s]},\"UnprocessedKeys\":{\"%s\":{"
           "\"Keys\":[%s],\"ConsistentRead\":true}}}",
           f->table, item0, f->table, keys_text);
  assert_int_equal(parse_text(pg, DDBST_OP_BATCH_GET_ITEM, answer), 1);
  char want[512];
  event_json(&fev[0], "pf", want, sizeof want);
  assert_string_equal(item_json(pg, 0, json), want);

  /* the follow-up is the BatchGetItem ddbst's batch builder writes for
   * keys 1..7, consistent, byte for byte */
  ddbst_batch_reset(b);
  for (int i = 1; i < 8; i++) {
    event_values(f, &fev[i], "pf");
    assert_int_equal(ddbst_batch_get(b, f->item, &f->err), 1);
  }
  assert_int_equal(
      ddbst_batch_request(b, 0, DDBST_CONSISTENT_READ, itest_body(f), &f->err),
      DDBST_OP_BATCH_GET_ITEM);
  char *built = strdup(ddbst_buf_data(f->body));
  int op = ddbst_page_followup_request(pg, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_BATCH_GET_ITEM);
  assert_string_equal(ddbst_buf_data(f->body), built);
  free(built);
  yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  yajl_val per_table = get_path(body, "RequestItems", f->table, NULL);
  assert_int_equal(array_len(get_path(per_table, "Keys", NULL, NULL)), 7);
  assert_true(YAJL_IS_TRUE(get_path(per_table, "ConsistentRead", NULL, NULL)));
  yajl_tree_free(body);
  itest_ok(f, op);
  int n = parse_answer(f, pg, op);
  assert_int_equal(n, 7);
  int seen[8] = {0};
  ddbst_item *scratch = ddbst_item_new(f->model, 0);
  for (int i = 0; i < n; i++) {
    page_item(pg, i, scratch, entity_of(f, "Event"));
    const char *id = value_of(f, scratch, "eventId");
    int k = 1;
    while (k < 8 && strcmp(fev[k].id, id)) k++;
    if (k == 8 || seen[k]++) fail_msg("event %s unexpected or twice", id);
    event_json(&fev[k], "pf", want, sizeof want);
    assert_string_equal(item_json(pg, i, json), want);
  }
  assert_int_equal(ddbst_buf_len(f->body) > 0, 1);
  ddbst_buf_reset(f->body);
  assert_int_equal(ddbst_page_followup_request(pg, f->body, &f->err), 0);

  /* UnprocessedKeys with the request's ProjectionExpression and names, as
   * DynamoDB hands them back: the follow-up keeps them */
  char key1[512], key2[512];
  av_key(key1, sizeof key1, &fev[1], "pf");
  av_key(key2, sizeof key2, &fev[2], "pf");
  snprintf(answer, sizeof answer,
           "{\"Responses\":{\"%s\":[]},\"UnprocessedKeys\":{\"%s\":{"
           "\"Keys\":[%s,%s],\"ProjectionExpression\":\"#k0, #k1, #t, #y\","
           "\"ExpressionAttributeNames\":{\"#k0\":\"PK\",\"#k1\":\"SK\","
           "\"#t\":\"_type\",\"#y\":\"type\"}}}}",
           f->table, f->table, key1, key2);
  assert_int_equal(parse_text(pg, DDBST_OP_BATCH_GET_ITEM, answer), 0);
  op = ddbst_page_followup_request(pg, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_BATCH_GET_ITEM);
  body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
  per_table = get_path(body, "RequestItems", f->table, NULL);
  assert_string_equal(
      YAJL_GET_STRING(get_path(per_table, "ProjectionExpression", NULL, NULL)),
      "#k0, #k1, #t, #y");
  assert_null(get_path(per_table, "ConsistentRead", NULL, NULL));
  assert_int_equal(
      object_len(get_path(per_table, "ExpressionAttributeNames", NULL, NULL)),
      4);
  yajl_tree_free(body);
  itest_ok(f, op);
  yajl_val got = get_path(f->response, "Responses", f->table, NULL);
  assert_int_equal(array_len(got), 2);
  for (size_t i = 0; i < 2; i++)
    itest_expect_attributes(f, got->u.array.values[i], "PK SK _type type");
  assert_int_equal(parse_answer(f, pg, op), 2);
  for (int i = 0; i < 2; i++) {
    page_item(pg, i, scratch, entity_of(f, "Event"));
    /* the facets come back from the keys */
    const char *id = value_of(f, scratch, "eventId");
    int k = strcmp(id, fev[1].id) ? 2 : 1;
    assert_string_equal(id, fev[k].id);
    expect_attr(f, scratch, "ts", fev[k].ts);
    expect_attr(f, scratch, "projectId", "pf");
    char type[16];
    snprintf(type, sizeof type, "t%03d", fev[k].n);
    expect_attr(f, scratch, "type", type);
    expect_attr(f, scratch, "payload", NULL);
  }

  ddbst_item_free(scratch);
  ddbst_batch_free(b);
  ddbst_buf_free(json);
  ddbst_page_free(pg);
}

/* ---- 4. and 5. users ---- */

static ddbst_cursor_keys *keys_users;

static int users_setup(void **state) {
  keys_users = keyring(TEST_KEY, NULL);
  *state = itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "users");
  if (!*state) return -1;
  itest_fixture *f = *state;
  ITEST_CREATE(f, "User", "orgId=org-a", "userId=u1", "email=Ann@Example.com",
               "role=admin", "name=Ann");
  ITEST_CREATE(f, "User", "orgId=org-a", "userId=u2", "email=bob@example.com",
               "role=member", "name=Bob");
  ITEST_CREATE(f, "User", "orgId=org-b", "userId=u1", "email=Cy@Example.org",
               "role=member", "name=Cy");
  ITEST_CREATE(f, "Organisation", "orgId=org-a", "name=Acme", "plan=pro");
  return 0;
}

static int users_teardown(void **state) {
  ddbst_cursor_keys_free(keys_users);
  keys_users = NULL;
  return itest_teardown(state);
}

static const struct user {
  const char *org, *id, *email, *lookup, *role, *name;
} users[] = {
    {"org-a", "u1", "Ann@Example.com", "ANN@example.COM", "admin", "Ann"},
    {"org-a", "u2", "bob@example.com", "Bob@Example.com", "member", "Bob"},
    {"org-b", "u1", "Cy@Example.org", "cy@example.org", "member", "Cy"},
};

static void user_json(const struct user *u, char *out, size_t cap) {
  snprintf(out, cap,
           "{\"entity\":\"User\",\"item\":{\"orgId\":\"%s\",\"userId\":\"%s\","
           "\"email\":\"%s\",\"role\":\"%s\",\"name\":\"%s\"}}",
           u->org, u->id, u->email, u->role, u->name);
}

/* 4. userByEmail reads GSI1, which projects keys only: the page's item
 * holds the user's key facets (not the email, whose case the index key
 * lost); a GetItem and a BatchGetItem built from them read the whole user. */
static void email_lookup_then_full_read(void **state) {
  itest_fixture *f = *state;
  const int n = (int)(sizeof users / sizeof users[0]);
  int user = entity_of(f, "User");
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *json = ddbst_buf_new(NULL);
  ddbst_batch *b = ddbst_batch_new(f->model);
  ddbst_item *found = ddbst_item_new(f->model, user);
  char want[512];
  for (int k = 0; k < n; k++) {
    const struct user *u = &users[k];
    char e[128];
    snprintf(e, sizeof e, "email=%s", u->lookup);
    ITEST_VALUES(f, "User", e);
    int op = ddbst_query_request(f->item, pattern_of(f, "userByEmail"), NULL,
                                 itest_body(f), &f->err);
    itest_ok(f, op);
    assert_int_equal(op, DDBST_OP_QUERY);
    assert_int_equal(parse_query_answer(f, pg, pattern_of(f, "userByEmail")),
                     1);
    /* as DynamoDB stored it in GSI1: the keys only */
    itest_expect_attributes(
        f, get_path(f->response, "Items", NULL, NULL)->u.array.values[0],
        "PK SK GSI1PK");
    assert_int_equal(ddbst_page_item_entity(pg, 0), user);
    page_item(pg, 0, found, user);
    expect_attr(f, found, "orgId", u->org);
    expect_attr(f, found, "userId", u->id);
    expect_attr(f, found, "email", NULL);
    expect_attr(f, found, "name", NULL);
    /* GSI1 projects keys only: the item says what it cannot hold */
    snprintf(want, sizeof want,
             "{\"entity\":\"User\",\"item\":{\"orgId\":\"%s\",\"userId\":"
             "\"%s\"},\"notProjected\":[\"email\",\"role\",\"name\"]}",
             u->org, u->id);
    assert_string_equal(item_json(pg, 0, json), want);

    /* the lookup is capped at one item, so DynamoDB hands back a
     * LastEvaluatedKey (GSI1PK, PK, SK); the cursor ddbst makes of it
     * reads the page after, which is empty: one user per email */
    assert_true(ddbst_page_has_more(pg));
    {
      ddbst_page *next = ddbst_page_new(f->model);
      ddbst_buf *cursor = ddbst_buf_new(NULL);
      int pattern = pattern_of(f, "userByEmail");
      if (ddbst_page_next_cursor(pg, keys_users, DDBST_NOW, cursor, &f->err) !=
          1)
        fail_msg("userByEmail cursor: %s (%s)", f->err.message, f->err.path);
      ddbst_query q;
      memset(&q, 0, sizeof q);
      q.size = sizeof q;
      q.cursor = ddbst_buf_data(cursor);
      q.cursor_len = ddbst_buf_len(cursor);
      q.cursor_keys = keys_users;
      int op2 =
          ddbst_query_request(f->item, pattern, &q, itest_body(f), &f->err);
      itest_ok(f, op2);
      assert_int_equal(parse_answer(f, next, op2), 0);
      assert_false(ddbst_page_has_more(next));
      ddbst_buf_free(cursor);
      ddbst_page_free(next);
    }

    if (k == 0) {
      /* GetItem from the page's item */
      op = ddbst_get_request(found, 0, itest_body(f), &f->err);
      assert_int_equal(op, DDBST_OP_GET_ITEM);
      itest_ok(f, op);
      itest_expect_attributes(
          f, get_path(f->response, "Item", NULL, NULL),
          "PK SK GSI1PK _type orgId userId email role name");
      assert_int_equal(parse_answer(f, pg, op), 1);
      user_json(u, want, sizeof want);
      assert_string_equal(item_json(pg, 0, json), want);
      page_item(pg, 0, found, user);
      expect_attr(f, found, "email", u->email);
      expect_attr(f, found, "role", u->role);
      expect_attr(f, found, "name", u->name);
    } else {
      assert_int_equal(ddbst_batch_get(b, found, &f->err), 1);
    }
  }
  /* the two others in one BatchGetItem */
  assert_int_equal(ddbst_batch_request_count(b), 1);
  int op = ddbst_batch_request(b, 0, 0, itest_body(f), &f->err);
  assert_int_equal(op, DDBST_OP_BATCH_GET_ITEM);
  itest_ok(f, op);
  int got = parse_answer(f, pg, op);
  assert_int_equal(got, 2);
  ddbst_buf_reset(f->body);
  assert_int_equal(ddbst_page_followup_request(pg, f->body, &f->err), 0);
  int seen[3] = {0};
  for (int i = 0; i < got; i++) {
    page_item(pg, i, found, user);
    const char *org = value_of(f, found, "orgId");
    const char *id = value_of(f, found, "userId");
    int k = 1;
    while (k < n && (strcmp(users[k].org, org) || strcmp(users[k].id, id))) k++;
    if (k == n || seen[k]++)
      fail_msg("user %s/%s unexpected or twice", org, id);
    user_json(&users[k], want, sizeof want);
    assert_string_equal(item_json(pg, i, json), want);
    expect_attr(f, found, "email", users[k].email);
  }

  /* an email nobody has: an empty page, no next one */
  ITEST_VALUES(f, "User", "email=nobody@example.com");
  op = ddbst_query_request(f->item, pattern_of(f, "userByEmail"), NULL,
                           itest_body(f), &f->err);
  itest_ok(f, op);
  assert_int_equal(parse_answer(f, pg, op), 0);
  assert_false(ddbst_page_has_more(pg));

  ddbst_item_free(found);
  ddbst_batch_free(b);
  ddbst_buf_free(json);
  ddbst_page_free(pg);
}

/* The error answer of the last request into `pg`. */
static int parse_error(itest_fixture *f, ddbst_page *pg) {
  ddbst_error err;
  int kind = ddbst_page_parse_error(pg, itest_client_body(f->client),
                                    itest_client_body_len(f->client), &err);
  if (kind <= 0)
    fail_msg("ddbst_page_parse_error: %s (%s)\nanswer: %s", err.message,
             err.path, itest_client_body(f->client));
  return kind;
}

static void explain_item(itest_fixture *f, ddbst_page *pg, int op,
                         uint32_t flags, ddbst_buf *out, int kind,
                         const char *expected) {
  ddbst_error err;
  ddbst_buf_reset(out);
  int rc = ddbst_item_explain(f->item, op, flags, pg, out, &err);
  if (rc < 0) fail_msg("ddbst_item_explain: %s (%s)", err.message, err.path);
  assert_int_equal(rc, kind);
  assert_string_equal(ddbst_buf_data(out), expected);
}

/* 5. A second user with Ann's email in other letter case: the create (a
 * TransactWriteItems of the user and its email guard) is cancelled, and
 * the explanation names User.email. */
static void unique_email_create_explained(void **state) {
  itest_fixture *f = *state;
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;

  ITEST_VALUES(f, "User", "orgId=org-b", "userId=u9", "email=aNN@EXAMPLE.com",
               "role=member", "name=Ann Two");
  int op = ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US, itest_body(f),
                             &f->err);
  assert_int_equal(op, DDBST_OP_TRANSACT_WRITE_ITEMS);
  itest_condition_failed(f, op);

  /* ddbst_page_parse meets the error too */
  assert_int_equal(
      ddbst_page_parse(pg, DDBST_OP_GET_ITEM, itest_client_body(f->client),
                       itest_client_body_len(f->client), &err),
      DDBST_EDYNAMODB);
  assert_string_equal(err.path, "__type");
  assert_int_equal(strncmp(err.message, "TransactionCanceledException: ", 30),
                   0);

  assert_int_equal(parse_error(f, pg), DDBST_DDB_TRANSACTION_CANCELED);
  assert_string_equal(ddbst_page_error_type(pg),
                      "TransactionCanceledException");
  assert_false(ddbst_page_error_retryable(pg));
  assert_int_equal(ddbst_page_reason_count(pg), 2);
  const char *code, *message;
  assert_int_equal(ddbst_page_reason(pg, 0, &code, &message), DDBST_DDB_NONE);
  assert_string_equal(code, "None");
  assert_int_equal(ddbst_page_reason(pg, 1, &code, &message),
                   DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  assert_string_equal(code, "ConditionalCheckFailed");
  /* the messages as the answer has them */
  {
    yajl_val reasons = get_path(f->response, "CancellationReasons", NULL, NULL);
    const char *m1 = YAJL_GET_STRING(
        get_path(reasons->u.array.values[1], "Message", NULL, NULL));
    const char *top =
        YAJL_GET_STRING(get_path(f->response, "Message", NULL, NULL));
    if (!top)
      top = YAJL_GET_STRING(get_path(f->response, "message", NULL, NULL));
    assert_non_null(top);
    assert_non_null(m1);
    assert_string_equal(ddbst_page_error_message(pg), top);
    assert_string_equal(message, m1);
    char whole[DDBST_ERROR_MESSAGE_MAX];
    snprintf(whole, sizeof whole, "TransactionCanceledException: %s", top);
    assert_string_equal(err.message, whole);
  }

  explain_item(f, pg, DDBST_OP_PUT_ITEM, DDBST_CREATE, out, DDBST_FAIL_UNIQUE,
               "TransactItems[1]: unique constraint User.email: another User "
               "already has this email (EMAIL#ann@example.com)\n");

  /* nothing was written */
  ITEST_VALUES(f, "User", "orgId=org-b", "userId=u9");
  assert_null(itest_get(f));

  /* Ann again, under her own key with a new email: the user's Put fails */
  ITEST_VALUES(f, "User", "orgId=org-a", "userId=u1", "email=ann2@example.com",
               "role=member", "name=Ann");
  op = ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US, itest_body(f),
                         &f->err);
  itest_condition_failed(f, op);
  assert_int_equal(parse_error(f, pg), DDBST_DDB_TRANSACTION_CANCELED);
  explain_item(f, pg, DDBST_OP_PUT_ITEM, DDBST_CREATE, out, DDBST_FAIL_EXISTS,
               "TransactItems[0]: User (ORG#org-a / USER#u1) already exists\n");

  /* an organisation (no unique attribute) created twice: a plain
   * conditional PutItem, refused with ConditionalCheckFailedException */
  ITEST_VALUES(f, "Organisation", "orgId=org-a", "name=Acme 2", "plan=free");
  op = ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US, itest_body(f),
                         &f->err);
  assert_int_equal(op, DDBST_OP_PUT_ITEM);
  itest_condition_failed(f, op);
  assert_int_equal(parse_error(f, pg), DDBST_DDB_CONDITIONAL_CHECK_FAILED);
  assert_int_equal(ddbst_page_reason_count(pg), 0);
  explain_item(f, pg, DDBST_OP_PUT_ITEM, DDBST_CREATE, out, DDBST_FAIL_EXISTS,
               "Organisation (ORG#org-a) already exists\n");

  /* a transaction of several items, explained with ddbst_txn_explain:
   * an organisation and its first user, whose email is Bob's */
  ddbst_txn *t = ddbst_txn_new(f->model);
  ITEST_VALUES(f, "Organisation", "orgId=org-c", "name=Initech", "plan=free");
  assert_int_equal(
      ddbst_txn_put(t, f->item, DDBST_CREATE, ITEST_NOW_US, &f->err), 0);
  ITEST_VALUES(f, "User", "orgId=org-c", "userId=u1", "email=BOB@example.com",
               "role=admin", "name=Bob C");
  assert_int_equal(
      ddbst_txn_put(t, f->item, DDBST_CREATE, ITEST_NOW_US, &f->err), 0);
  op = ddbst_txn_request(t, NULL, itest_body(f), &f->err);
  itest_condition_failed(f, op);
  assert_int_equal(parse_error(f, pg), DDBST_DDB_TRANSACTION_CANCELED);
  assert_int_equal(ddbst_page_reason_count(pg), 3);
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_txn_explain(t, pg, out, &err), DDBST_FAIL_UNIQUE);
  assert_string_equal(ddbst_buf_data(out),
                      "TransactItems[2]: unique constraint User.email: "
                      "another User already has this email "
                      "(EMAIL#bob@example.com)\n");
  int index = -2, entity = -2;
  const char *unique = NULL;
  assert_int_equal(ddbst_txn_failure(t, pg, 0, &index, &entity, &unique),
                   DDBST_FAIL_UNIQUE);
  assert_int_equal(index, 2);
  assert_int_equal(entity, entity_of(f, "User"));
  assert_string_equal(unique, "email");
  assert_int_equal(ddbst_txn_failure(t, pg, 1, NULL, NULL, NULL),
                   DDBST_ENOTFOUND);
  ITEST_VALUES(f, "Organisation", "orgId=org-c");
  assert_null(itest_get(f));
  ddbst_txn_free(t);

  ddbst_buf_free(out);
  ddbst_page_free(pg);
}

int main(void) {
  if (itest_should_skip("test_pages")) return ITEST_SKIP;
  const struct CMUnitTest pages[] = {
      cmocka_unit_test(events_every_one_once_in_order),
      cmocka_unit_test(events_in_a_range),
      cmocka_unit_test(projects_by_status_in_pages_of_two),
      cmocka_unit_test(list_projects_in_pages_of_two),
      cmocka_unit_test(cursor_of_another_tenant_refused),
      cmocka_unit_test(cursor_of_another_key_refused),
      cmocka_unit_test(unsealed_cursor_refused),
      cmocka_unit_test(cursor_nonces_differ_across_fork),
  };
  const struct CMUnitTest followups[] = {
      cmocka_unit_test_setup_teardown(followup_completes_a_batch_write,
                                      itest_setup_saas, itest_teardown),
      cmocka_unit_test_setup_teardown(followup_completes_a_batch_get,
                                      itest_setup_saas, itest_teardown),
  };
  const struct CMUnitTest users_tests[] = {
      cmocka_unit_test(email_lookup_then_full_read),
      cmocka_unit_test(unique_email_create_explained),
  };
  int failed =
      cmocka_run_group_tests_name("pages", pages, pages_setup, pages_teardown);
  failed += cmocka_run_group_tests_name("followups", followups, NULL, NULL);
  failed += cmocka_run_group_tests_name("users", users_tests, users_setup,
                                        users_teardown);
  return failed ? 1 : 0;
}
