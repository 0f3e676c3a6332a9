/* The integration tests' shared fixture: a private table per program or per
 * test, ddbst's request builders on one side of the wire, DynamoDB Local on
 * the other, and assertions on the exact items that come back. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- small JSON helpers ---- */

static yajl_val at(yajl_val v, const char *a, const char *b, const char *c) {
  const char *path[] = {a, b, c, NULL};
  return v ? yajl_tree_get(v, path, yajl_t_any) : NULL;
}

const char *itest_s(yajl_val item, const char *name) {
  return YAJL_GET_STRING(at(item, name, "S", NULL));
}

const char *itest_n(yajl_val item, const char *name) {
  return YAJL_GET_STRING(at(item, name, "N", NULL));
}

/* DynamoDB's error type without its namespace:
 * "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException". */
static const char *error_type(yajl_val response) {
  const char *t = YAJL_GET_STRING(at(response, "__type", NULL, NULL));
  if (!t) return "";
  const char *hash = strrchr(t, '#');
  return hash ? hash + 1 : t;
}

/* ---- the fixture ---- */

/* Frees the pages of the last Query or Scan. */
static void release_pages(itest_fixture *f) {
  for (size_t i = 0; i < f->npages; i++) yajl_tree_free(f->pages[i]);
  f->npages = 0;
  if (f->items) free(f->items->u.array.values);
  free(f->items);
  f->items = NULL;
}

int itest_should_skip(const char *program) {
  if (itest_endpoint()) return 0;
  fprintf(stderr,
          "%s: skipped: DDBST_ENDPOINT is not set; run under "
          "scripts/dynamodb-local (e.g. scripts/dynamodb-local ctest "
          "--preset default -L integration)\n",
          program);
  return 1;
}

/* Sends a body the fixture wrote itself (table administration, Scan). */
static long send_raw(itest_fixture *f, const char *operation,
                     const char *body) {
  yajl_tree_free(f->response);
  f->response = NULL;
  f->status = itest_client_send(f->client, operation, body, strlen(body));
  f->response = yajl_tree_parse(itest_client_body(f->client), NULL, 0);
  return f->status;
}

static int table_body(char *out, size_t n, const char *table) {
  /* the names are ours: [a-z0-9-] only, nothing to escape */
  int len = snprintf(out, n, "{\"TableName\":\"%s\"}", table);
  return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* DescribeTable until the table and every index is ACTIVE (DynamoDB Local
 * creates them at once; AWS takes seconds, and the loop costs nothing). */
static int wait_active(itest_fixture *f) {
  char body[256];
  if (table_body(body, sizeof body, f->table)) return -1;
  for (int attempt = 0; attempt < 500; attempt++) {
    if (send_raw(f, "DescribeTable", body) != 200) return -1;
    int active = 1;
    const char *s =
        YAJL_GET_STRING(at(f->response, "Table", "TableStatus", NULL));
    if (!s || strcmp(s, "ACTIVE")) active = 0;
    yajl_val ix = at(f->response, "Table", "GlobalSecondaryIndexes", NULL);
    for (size_t i = 0; active && YAJL_IS_ARRAY(ix) && i < ix->u.array.len;
         i++) {
      s = YAJL_GET_STRING(at(ix->u.array.values[i], "IndexStatus", NULL, NULL));
      if (!s || strcmp(s, "ACTIVE")) active = 0;
    }
    if (active) return 0;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return -1;
}

itest_fixture *itest_open(const char *model_file, const char *tag) {
  static unsigned serial; /* fixtures of one program: one table each */
  itest_fixture *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  char why[256];
  snprintf(f->table, sizeof f->table, "ddbst-it-%s-%ld-%u", tag,
           (long)getpid(), serial++);
  f->client = itest_client_new(why, sizeof why);
  if (!f->client) {
    fprintf(stderr, "itest_open: %s\n", why);
    free(f);
    return NULL;
  }
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = f->table;
  ddbst_error err;
  if (ddbst_model_load_file(model_file, &o, &f->model, &err)) {
    fprintf(stderr, "itest_open: %s: %s: %s\n", model_file, err.path,
            err.message);
    itest_client_free(f->client);
    free(f);
    return NULL;
  }
  f->item = ddbst_item_new(f->model, 0);
  f->body = ddbst_buf_new(NULL);
  int op = f->item && f->body
               ? ddbst_create_table_request(f->model, f->body, &err)
               : DDBST_ENOMEM;
  if (op < 0) {
    fprintf(stderr, "itest_open: CreateTable body: %s\n",
            op == DDBST_ENOMEM ? "out of memory" : err.message);
    f->table[0] = '\0'; /* nothing to delete */
    itest_close(f);
    return NULL;
  }
  long status = send_raw(f, ddbst_operation_name(op), ddbst_buf_data(f->body));
  if (status != 200 || wait_active(f)) {
    fprintf(stderr, "itest_open: creating table %s: HTTP %ld: %s\nbody: %s\n",
            f->table, f->status, itest_client_body(f->client),
            ddbst_buf_data(f->body));
    if (status != 200) f->table[0] = '\0';
    itest_close(f);
    return NULL;
  }
  return f;
}

int itest_close(itest_fixture *f) {
  if (!f) return 0;
  int rc = 0;
  char body[256];
  if (f->table[0] && !table_body(body, sizeof body, f->table) &&
      send_raw(f, "DeleteTable", body) != 200) {
    fprintf(stderr, "itest_close: DeleteTable %s: HTTP %ld: %s\n", f->table,
            f->status, itest_client_body(f->client));
    rc = -1;
  }
  ddbst_cursor_keys_free(f->keys);
  yajl_tree_free(f->response);
  release_pages(f);
  ddbst_buf_free(f->body);
  ddbst_item_free(f->item);
  ddbst_model_free(f->model);
  itest_client_free(f->client);
  free(f);
  return rc;
}

itest_fixture *itest_open_sealed(const char *model_file, const char *tag,
                                 uint8_t seed) {
  itest_fixture *f = itest_open(model_file, tag);
  if (!f) return NULL;
  const uint8_t key[32] = {seed, 0x5e, 0xa1};
  f->keys = ddbst_cursor_keys_new(NULL);
  if (!f->keys || ddbst_cursor_keys_add(f->keys, key, NULL)) {
    fprintf(stderr, "itest_open_sealed: no keyring\n");
    itest_close(f);
    return NULL;
  }
  return f;
}

int itest_setup_saas(void **state) {
  *state = itest_open(DDBST_SOURCE_DIR "/examples/saas/model.json", "saas-t");
  return *state ? 0 : -1;
}

int itest_setup_blog(void **state) {
  *state = itest_open(DDBST_SOURCE_DIR "/examples/blog/model.json", "blog-t");
  return *state ? 0 : -1;
}

int itest_teardown(void **state) {
  int rc = itest_close(*state);
  *state = NULL;
  return rc;
}

static itest_fixture *group_fixture;

itest_fixture *itest_group_fixture(itest_fixture *f) {
  group_fixture = f;
  return f;
}

int itest_group_teardown(void **state) {
  (void)state;
  int rc = itest_close(group_fixture);
  group_fixture = NULL;
  return rc;
}

/* ---- values ---- */

void itest_format(char *out, size_t cap, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(out, cap, format, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= cap)
    fail_msg("'%s' needs %d bytes, not %zu", format, n + 1, cap);
}

static ddbst_item *values_v(itest_fixture *f, const char *entity, va_list ap) {
  int e = ddbst_model_entity(f->model, entity);
  if (e < 0) fail_msg("no entity %s in the model", entity);
  assert_int_equal(ddbst_item_reset(f->item, e), 0);
  for (const char *pair; (pair = va_arg(ap, const char *)) != NULL;) {
    const char *eq = strchr(pair, '=');
    if (!eq) fail_msg("'%s' is not name=value", pair);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - pair), pair);
    int a = itest_attr(f, name);
    ddbst_error err;
    if (ddbst_item_set(f->item, a, eq + 1, strlen(eq + 1), &err))
      fail_msg("%s.%s = '%s' refused: %s", entity, name, eq + 1, err.message);
  }
  return f->item;
}

ddbst_item *itest_values_(itest_fixture *f, const char *entity, ...) {
  va_list ap;
  va_start(ap, entity);
  ddbst_item *it = values_v(f, entity, ap);
  va_end(ap);
  return it;
}

int itest_attr(itest_fixture *f, const char *name) {
  int e = ddbst_item_entity(f->item);
  int a = ddbst_model_attribute(f->model, e, name);
  if (a < 0)
    fail_msg("no attribute %s in %s", name,
             ddbst_model_entity_name(f->model, e));
  return a;
}

ddbst_query itest_condition(itest_fixture *f, int condition, const char *name,
                            const char *value, const char *value2) {
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  if (condition == DDBST_SK_NONE) return q;
  q.condition = condition;
  q.attribute = itest_attr(f, name);
  q.value = value;
  q.value_len = value ? strlen(value) : 0;
  q.value2 = value2;
  q.value2_len = value2 ? strlen(value2) : 0;
  return q;
}

int itest_text_holds(const char *x, int condition, const char *value,
                     const char *value2, int partial) {
  size_t n = partial && value ? strlen(value) : (size_t)-1;
  size_t n2 = partial && value2 ? strlen(value2) : (size_t)-1;
  int lo = value ? strncmp(x, value, n) : 0;
  switch (condition) {
  case DDBST_SK_GTE: return lo >= 0;
  case DDBST_SK_GT: return lo > 0;
  case DDBST_SK_LTE: return lo <= 0;
  case DDBST_SK_LT: return lo < 0;
  case DDBST_SK_BETWEEN: return lo >= 0 && strncmp(x, value2, n2) <= 0;
  case DDBST_SK_BEGINS: return !strncmp(x, value, strlen(value));
  default: return 1;
  }
}

/* ---- requests ---- */

ddbst_buf *itest_body(itest_fixture *f) {
  ddbst_buf_reset(f->body);
  return f->body;
}

long itest_send(itest_fixture *f, int op) {
  if (op < 0)
    fail_msg("the request was not built: %s: %s (%s)", ddbst_strerror(op),
             f->err.message, f->err.path);
  const char *name = ddbst_operation_name(op);
  if (!name) fail_msg("builder returned unknown operation %d", op);
  return send_raw(f, name, ddbst_buf_data(f->body));
}

long itest_send_json(itest_fixture *f, const char *operation,
                     const char *body) {
  return send_raw(f, operation, body);
}

void itest_ok(itest_fixture *f, int op) {
  long status = itest_send(f, op);
  if (status != 200)
    fail_msg("%s: HTTP %ld: %s\nrequest: %s", ddbst_operation_name(op), status,
             itest_client_body(f->client), ddbst_buf_data(f->body));
}

void itest_refused(itest_fixture *f, int op, const char *exception) {
  long status = itest_send(f, op);
  if (status != 400 || strcmp(error_type(f->response), exception))
    fail_msg("%s: expected HTTP 400 %s, got HTTP %ld: %s\nrequest: %s",
             ddbst_operation_name(op), exception, status,
             itest_client_body(f->client), ddbst_buf_data(f->body));
}

void itest_condition_failed(itest_fixture *f, int op) {
  if (op != DDBST_OP_TRANSACT_WRITE_ITEMS) {
    itest_refused(f, op, "ConditionalCheckFailedException");
    return;
  }
  itest_refused(f, op, "TransactionCanceledException");
  yajl_val reasons = at(f->response, "CancellationReasons", NULL, NULL);
  for (size_t i = 0; YAJL_IS_ARRAY(reasons) && i < reasons->u.array.len; i++) {
    const char *code =
        YAJL_GET_STRING(at(reasons->u.array.values[i], "Code", NULL, NULL));
    if (code && !strcmp(code, "ConditionalCheckFailed")) return;
  }
  fail_msg("the transaction was cancelled for another reason: %s\nrequest: %s",
           itest_client_body(f->client), ddbst_buf_data(f->body));
}

void itest_create_(itest_fixture *f, const char *entity, ...) {
  va_list ap;
  va_start(ap, entity);
  values_v(f, entity, ap);
  va_end(ap);
  itest_ok(f, ddbst_put_request(f->item, DDBST_CREATE, ITEST_NOW_US,
                                itest_body(f), &f->err));
}

/* ---- reads ---- */

yajl_val itest_get(itest_fixture *f) {
  itest_ok(f, ddbst_get_request(f->item, DDBST_CONSISTENT_READ, itest_body(f),
                                &f->err));
  yajl_val item = at(f->response, "Item", NULL, NULL);
  return YAJL_IS_OBJECT(item) ? item : NULL;
}

/* Appends `s` to out[*len..cap) as a JSON string. */
static void json_string(char *out, size_t cap, size_t *len, const char *s) {
  static const char hex[] = "0123456789abcdef";
  if (*len + 2 >= cap) fail_msg("%s", "LastEvaluatedKey too long");
  out[(*len)++] = '"';
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (*len + 8 >= cap) fail_msg("%s", "LastEvaluatedKey too long");
    if (c == '"' || c == '\\') {
      out[(*len)++] = '\\';
      out[(*len)++] = (char)c;
    } else if (c < 0x20) {
      memcpy(out + *len, "\\u00", 4);
      out[*len + 4] = hex[c >> 4];
      out[*len + 5] = hex[c & 15];
      *len += 6;
    } else {
      out[(*len)++] = (char)c;
    }
  }
  out[(*len)++] = '"';
}

/* The request for the next page: `first` (a JSON object) with
 * "ExclusiveStartKey" set to `key`, a LastEvaluatedKey whose values are
 * {"S": ...} or {"N": ...}. Hand-built until ddbst's cursors carry it. */
static void next_page_body(char *out, size_t cap, const char *first,
                           yajl_val key) {
  size_t len = strlen(first);
  if (len < 2 || first[len - 1] != '}' || len + 64 >= cap)
    fail_msg("cannot add ExclusiveStartKey to %s", first);
  memcpy(out, first, len - 1);
  len--;
  const char *start = ",\"ExclusiveStartKey\":{";
  memcpy(out + len, start, strlen(start));
  len += strlen(start);
  for (size_t i = 0; YAJL_IS_OBJECT(key) && i < key->u.object.len; i++) {
    yajl_val v = key->u.object.values[i];
    if (!YAJL_IS_OBJECT(v) || v->u.object.len != 1 ||
        !YAJL_IS_STRING(v->u.object.values[0]))
      fail_msg("%s", "LastEvaluatedKey holds a value that is not S or N");
    if (i) out[len++] = ',';
    json_string(out, cap, &len, key->u.object.keys[i]);
    out[len++] = ':';
    out[len++] = '{';
    json_string(out, cap, &len, v->u.object.keys[0]);
    out[len++] = ':';
    json_string(out, cap, &len, YAJL_GET_STRING(v->u.object.values[0]));
    out[len++] = '}';
    if (len + 4 >= cap) fail_msg("%s", "LastEvaluatedKey too long");
  }
  memcpy(out + len, "}}", 3);
}

/* Keeps the last answer as a page of the current read; its Items count. */
static size_t keep_page(itest_fixture *f, const char *operation,
                        const char *body) {
  yajl_val items = at(f->response, "Items", NULL, NULL);
  if (!YAJL_IS_ARRAY(items))
    fail_msg("%s: no Items array in %s\nrequest: %s", operation,
             itest_client_body(f->client), body);
  if (f->npages == sizeof f->pages / sizeof f->pages[0])
    fail_msg("%s", "more pages than the test data can fill");
  f->pages[f->npages++] = f->response;
  f->response = NULL; /* the page owns it now */
  return items->u.array.len;
}

/* The Items of every kept page as one array (f->items). */
static yajl_val join_pages(itest_fixture *f, size_t total) {
  f->items = calloc(1, sizeof *f->items);
  yajl_val *values = calloc(total ? total : 1, sizeof *values);
  if (!f->items || !values) {
    free(values);
    fail_msg("%s", "out of memory");
  }
  f->items->type = yajl_t_array;
  f->items->u.array.values = values;
  for (size_t p = 0; p < f->npages; p++) {
    yajl_val items = at(f->pages[p], "Items", NULL, NULL);
    for (size_t i = 0; i < items->u.array.len; i++)
      values[f->items->u.array.len++] = items->u.array.values[i];
  }
  return f->items;
}

/* Sends `operation` with `body` and every following page, keeping each
 * page's tree; returns their Items as one array. */
static yajl_val all_pages(itest_fixture *f, const char *operation,
                          const char *body) {
  release_pages(f);
  static char next[16384]; /* static: too big for the stack of a test */
  const char *current = body;
  size_t total = 0;
  for (;;) {
    if (send_raw(f, operation, current) != 200)
      fail_msg("%s: HTTP %ld: %s\nrequest: %s", operation, f->status,
               itest_client_body(f->client), current);
    total += keep_page(f, operation, current);
    yajl_val key = at(f->pages[f->npages - 1], "LastEvaluatedKey", NULL, NULL);
    if (!key) break;
    next_page_body(next, sizeof next, body, key);
    current = next;
  }
  return join_pages(f, total);
}

/* A key map ({"PK":{"S":"a"},...}) as sorted "name=type:value" lines, so
 * that two maps compare whatever their members' order. */
static void key_lines(yajl_val key, char *out, size_t cap) {
  const char *lines[8];
  char buf[8][1200];
  size_t n = 0;
  for (size_t i = 0; YAJL_IS_OBJECT(key) && i < key->u.object.len && n < 8;
       i++, n++) {
    yajl_val v = key->u.object.values[i];
    const char *type = YAJL_IS_OBJECT(v) && v->u.object.len == 1
                           ? v->u.object.keys[0]
                           : "?";
    const char *text = YAJL_IS_OBJECT(v) && v->u.object.len == 1
                           ? YAJL_GET_STRING(v->u.object.values[0])
                           : NULL;
    snprintf(buf[n], sizeof buf[n], "%s=%s:%s", key->u.object.keys[i], type,
             text ? text : "?");
    lines[n] = buf[n];
  }
  for (size_t i = 1; i < n; i++) /* insertion sort: at most a few keys */
    for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
      const char *t = lines[j];
      lines[j] = lines[j - 1];
      lines[j - 1] = t;
    }
  size_t len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "\n" : "",
                            lines[i]);
}

yajl_val itest_query_cursors(itest_fixture *f, const char *pattern,
                             const ddbst_query *q,
                             const ddbst_cursor_keys *keys) {
  int p = ddbst_model_pattern(f->model, pattern);
  if (p < 0) fail_msg("no pattern %s in the model", pattern);
  release_pages(f);
  ddbst_query next = *q;
  ddbst_page *pg = ddbst_page_new(f->model);
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  if (!pg || !cursor) fail_msg("%s", "out of memory");
  static char last_key[8192], start_key[8192];
  size_t total = 0;
  for (;;) {
    next.cursor_keys = keys;
    int op = ddbst_query_request(f->item, p, &next, itest_body(f), &f->err);
    if (op < 0)
      fail_msg("%s page %zu: the request was not built: %s: %s (%s)", pattern,
               f->npages + 1, ddbst_strerror(op), f->err.message, f->err.path);
    if (f->npages) {
      yajl_val body = yajl_tree_parse(ddbst_buf_data(f->body), NULL, 0);
      key_lines(at(body, "ExclusiveStartKey", NULL, NULL), start_key,
                sizeof start_key);
      yajl_tree_free(body);
      if (strcmp(start_key, last_key))
        fail_msg("%s page %zu: the cursor did not give back the "
                 "LastEvaluatedKey\n  LastEvaluatedKey:\n%s\n  "
                 "ExclusiveStartKey:\n%s",
                 pattern, f->npages + 1, last_key, start_key);
    }
    if (send_raw(f, ddbst_operation_name(op), ddbst_buf_data(f->body)) != 200)
      fail_msg("%s: HTTP %ld: %s\nrequest: %s", pattern, f->status,
               itest_client_body(f->client), ddbst_buf_data(f->body));
    ddbst_error err;
    if (ddbst_page_parse_query(pg, f->item, p, itest_client_body(f->client),
                               itest_client_body_len(f->client), &err) < 0)
      fail_msg("%s: ddbst_page_parse_query: %s (%s)\nanswer: %s", pattern,
               err.message, err.path, itest_client_body(f->client));
    total += keep_page(f, pattern, ddbst_buf_data(f->body));
    yajl_val lek = at(f->pages[f->npages - 1], "LastEvaluatedKey", NULL, NULL);
    int more = ddbst_page_next_cursor(pg, keys, DDBST_NOW, cursor, &err);
    if (more < 0)
      fail_msg("%s page %zu: ddbst_page_next_cursor: %s (%s)\nanswer: %s",
               pattern, f->npages, err.message, err.path,
               itest_client_body(f->client));
    /* a cursor exactly when DynamoDB said there is more */
    if (more != (lek != NULL))
      fail_msg("%s page %zu: ddbst_page_next_cursor returned %d, the answer "
               "%s a LastEvaluatedKey",
               pattern, f->npages, more, lek ? "has" : "has no");
    if (!lek) break;
    key_lines(lek, last_key, sizeof last_key);
    next.cursor = ddbst_buf_data(cursor);
    next.cursor_len = ddbst_buf_len(cursor);
  }
  ddbst_page_free(pg);
  /* the body of the last request stays in f->body, for messages; the
   * cursor it points to is no longer needed */
  ddbst_buf_free(cursor);
  return join_pages(f, total);
}

yajl_val itest_query(itest_fixture *f, const char *pattern,
                     const ddbst_query *q) {
  int p = ddbst_model_pattern(f->model, pattern);
  if (p < 0) fail_msg("no pattern %s in the model", pattern);
  int op = ddbst_query_request(f->item, p, q, itest_body(f), &f->err);
  if (op < 0)
    fail_msg("the request was not built: %s: %s (%s)", ddbst_strerror(op),
             f->err.message, f->err.path);
  return all_pages(f, ddbst_operation_name(op), ddbst_buf_data(f->body));
}

int itest_first_cursor(itest_fixture *f, const char *pattern,
                       const ddbst_query *q, int count, ddbst_buf *cursor) {
  int p = ddbst_model_pattern(f->model, pattern);
  if (p < 0) fail_msg("no pattern %s in the model", pattern);
  ddbst_query first;
  memset(&first, 0, sizeof first);
  first.size = sizeof first;
  if (q) first = *q;
  first.cursor = NULL;
  first.cursor_len = 0;
  itest_ok(f, ddbst_query_request(f->item, p, &first, itest_body(f), &f->err));
  ddbst_page *pg = ddbst_page_new(f->model);
  assert_non_null(pg);
  ddbst_error err;
  const char *body = itest_client_body(f->client);
  int n = ddbst_page_parse_query(pg, f->item, p, body, strlen(body), &err);
  if (n != count || !ddbst_page_has_more(pg))
    fail_msg("%s: the first page holds %d items%s, not %d and more (%s)",
             pattern, n, ddbst_page_has_more(pg) ? " and more" : "", count,
             n < 0 ? err.message : body);
  if (ddbst_page_next_cursor(pg, f->keys, DDBST_NOW, cursor, &err) != 1)
    fail_msg("ddbst_page_next_cursor: %s (%s)", err.message, err.path);
  ddbst_page_free(pg);
  return p;
}

void itest_cursor_refused(itest_fixture *f, const char *pattern,
                          const ddbst_buf *cursor, const char *message) {
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.cursor = ddbst_buf_data(cursor);
  q.cursor_len = ddbst_buf_len(cursor);
  q.cursor_keys = f->keys;
  memset(&f->err, 0, sizeof f->err);
  int rc = ddbst_query_request(f->item, ddbst_model_pattern(f->model, pattern),
                               &q, itest_body(f), &f->err);
  if (rc != DDBST_ECURSOR)
    fail_msg("%s: expected the cursor refused, got %d (%s)", pattern, rc,
             f->err.message);
  assert_string_equal(f->err.path, "cursor");
  assert_string_equal(f->err.message, message);
  assert_int_equal(ddbst_buf_len(f->body), 0);
}

yajl_val itest_scan_index(itest_fixture *f, const char *index) {
  char body[512];
  int n = snprintf(body, sizeof body,
                   "{\"TableName\":\"%s\",\"IndexName\":\"%s\"}", f->table,
                   index);
  assert_true(n > 0 && (size_t)n < sizeof body);
  /* so that failure messages show the Scan, not the request before it */
  ddbst_buf_reset(f->body);
  return all_pages(f, "Scan", body);
}

yajl_val itest_scan_table(itest_fixture *f) {
  char body[256];
  if (table_body(body, sizeof body, f->table))
    fail_msg("%s", "table name too long");
  ddbst_buf_reset(f->body);
  return all_pages(f, "Scan", body);
}

/* ---- assertions ---- */

static void put_text(itest_fixture *f, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > sizeof f->text) fail_msg("%s", "too many labels");
  memcpy(f->text + *len, s, n + 1);
  *len += n;
}

const char *itest_labels(itest_fixture *f, yajl_val items, const char *name) {
  size_t len = 0;
  f->text[0] = '\0';
  for (size_t i = 0; YAJL_IS_ARRAY(items) && i < items->u.array.len; i++) {
    yajl_val item = items->u.array.values[i];
    if (i) put_text(f, &len, " ");
    const char *label = itest_s(item, name);
    if (label) {
      put_text(f, &len, label);
      continue;
    }
    /* not an item the test wrote with a label: show what it is */
    put_text(f, &len, "<");
    int first = 1;
    for (size_t k = 0; YAJL_IS_OBJECT(item) && k < item->u.object.len; k++) {
      const char *s = itest_s(item, item->u.object.keys[k]);
      if (!s) continue;
      if (!first) put_text(f, &len, ",");
      first = 0;
      put_text(f, &len, item->u.object.keys[k]);
      put_text(f, &len, "=");
      put_text(f, &len, s);
    }
    put_text(f, &len, ">");
  }
  return f->text;
}

void itest_expect(itest_fixture *f, yajl_val items, const char *name,
                  const char *expected, const char *what) {
  const char *got = itest_labels(f, items, name);
  if (strcmp(got, expected))
    fail_msg("%s\n  expected: [%s]\n  got:      [%s]\n  request:  %s", what,
             expected, got,
             ddbst_buf_len(f->body) ? ddbst_buf_data(f->body) : "a Scan");
}

static void check_value(yajl_val item, const char *name, const char *type,
                        const char *got, const char *expected) {
  /* absent means no value of any type, not merely no value of this one */
  if (!expected && at(item, name, NULL, NULL))
    fail_msg("attribute %s should be absent, holds %s", name,
             got ? got : "a value of another type");
  if (expected && !got)
    fail_msg("attribute %s (%s) should be '%s', is absent", name, type,
             expected);
  if (expected && strcmp(got, expected))
    fail_msg("attribute %s (%s) should be '%s', is '%s'", name, type, expected,
             got);
}

void itest_expect_s(yajl_val item, const char *name, const char *expected) {
  if (!YAJL_IS_OBJECT(item)) fail_msg("no item to read %s from", name);
  check_value(item, name, "S", itest_s(item, name), expected);
}

void itest_expect_n(yajl_val item, const char *name, const char *expected) {
  if (!YAJL_IS_OBJECT(item)) fail_msg("no item to read %s from", name);
  check_value(item, name, "N", itest_n(item, name), expected);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, space-separated names into f->text. */
static const char *sorted_names(itest_fixture *f, const char **names,
                                size_t n) {
  qsort(names, n, sizeof *names, by_name);
  size_t len = 0;
  f->text[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    if (i) put_text(f, &len, " ");
    put_text(f, &len, names[i]);
  }
  return f->text;
}

void itest_expect_attributes(itest_fixture *f, yajl_val item,
                             const char *names) {
  if (!YAJL_IS_OBJECT(item))
    fail_msg("no item to check the attributes of (%s)", names);
  enum { MAX = 64 };
  const char *want[MAX], *have[MAX];
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", names);
  size_t nwant = 0;
  for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && nwant < MAX;
       t = strtok_r(NULL, " ", &save))
    want[nwant++] = t;
  size_t nhave = item->u.object.len < MAX ? item->u.object.len : MAX;
  for (size_t i = 0; i < nhave; i++) have[i] = item->u.object.keys[i];
  char expected[8192]; /* as large as sorted_names' result */
  snprintf(expected, sizeof expected, "%s", sorted_names(f, want, nwant));
  const char *got = sorted_names(f, have, nhave);
  if (strcmp(expected, got))
    fail_msg("attributes\n  expected: [%s]\n  got:      [%s]", expected, got);
}
