/* A small C service client for the SaaS model (examples/saas/model.json):
 * ddbst builds every key, request body and pagination cursor; libcurl sends
 * them, signed with CURLOPT_AWS_SIGV4 (dynamo_http.c). It creates a table,
 * writes an organisation with users, projects and events, reads them back
 * through the model's seven access patterns page by page with sealed
 * cursors, and shows DynamoDB refusing a second user with a taken email.
 *
 *   ddbst_example_curl [MODEL]      (default: examples/saas/model.json)
 *
 * Environment: DDBST_ENDPOINT, AWS_REGION (or AWS_DEFAULT_REGION),
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, optionally AWS_SESSION_TOKEN;
 * DDBST_CURSOR_KEY (64 hex characters, newest key first, comma-separated)
 * to seal cursors with a key that outlives the process. Exits 0 on success,
 * 1 on any failure (said on stderr), 77 when DDBST_ENDPOINT is unset. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddbst.h"
#include "dynamo_http.h"

#define EXIT_SKIP 77 /* ctest's SKIP_RETURN_CODE, automake's convention */

typedef struct app {
  dynamo_http *http;
  ddbst_model *model;
  ddbst_cursor_keys *keys; /* seal and open pagination cursors */
  ddbst_item *item;        /* the values of the next request */
  ddbst_item *read;        /* an item read back from an answer */
  ddbst_buf *body;         /* the next request body */
  ddbst_buf *cursor;       /* the cursor of the next page */
  ddbst_buf *text;         /* explanations */
  ddbst_page *page;        /* the last answer, or DynamoDB's error */
  ddbst_error err;
  int table_created;       /* ours to delete at the end */
} app;

/* ---- reporting ---- */

/* Says what failed in ddbst's words: the code, the path of what was wrong
 * ("facet orgId", "cursor") and its message. Returns -1. */
static int ddbst_failed(const char *doing, int rc, const ddbst_error *err) {
  fprintf(stderr, "saas-example: %s: %s", doing, ddbst_strerror(rc));
  if (err && err->path[0]) fprintf(stderr, ": %s", err->path);
  if (err && err->message[0]) fprintf(stderr, ": %s", err->message);
  fputc('\n', stderr);
  return -1;
}

static int failed(const char *doing, const char *why) {
  fprintf(stderr, "saas-example: %s: %s\n", doing, why);
  return -1;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* A list, map or set: shown by its type only, to keep one item a line. */
static int is_document(const char *type) {
  return !strcmp(type, "map") || !strcmp(type, "list") ||
         strstr(type, "_set") != NULL;
}

/* One item on one line: its entity, then every value it holds, name=value,
 * in the model's order. */
static void print_item(const app *a, const ddbst_item *item) {
  int e = ddbst_item_entity(item);
  printf("%s", ddbst_model_entity_name(a->model, e));
  int n = ddbst_model_attribute_count(a->model, e);
  for (int i = 0; i < n; i++) {
    const char *name = ddbst_model_attribute_name(a->model, e, i);
    const char *type = ddbst_model_attribute_type(a->model, e, i);
    const char *text;
    size_t len;
    if (ddbst_item_get(item, i, &text, &len) != 1) continue;
    if (is_document(type)) {
      printf(" %s=(%s)", name, type);
      continue;
    }
    const char *quote = strchr(text, ' ') ? "\"" : "";
    printf(" %s=%s%s%s", name, quote, text, quote);
  }
  putchar('\n');
}

/* ---- values ---- */

/* Makes a->item a fresh item of `entity` holding the "name=value" pairs
 * given, up to a NULL. */
static int values_(app *a, const char *entity, ...) {
  int e = ddbst_model_entity(a->model, entity);
  if (e < 0) return failed(entity, "no such entity in the model");
  ddbst_item_reset(a->item, e);
  va_list ap;
  va_start(ap, entity);
  int rc = 0;
  for (const char *pair; !rc && (pair = va_arg(ap, const char *)) != NULL;) {
    const char *eq = strchr(pair, '=');
    char name[64];
    if (!eq || (size_t)(eq - pair) >= sizeof name) {
      rc = failed(pair, "not name=value");
      break;
    }
    memcpy(name, pair, (size_t)(eq - pair));
    name[eq - pair] = '\0';
    int attr = ddbst_model_attribute(a->model, e, name);
    if (attr < 0) {
      rc = failed(pair, "no such attribute");
      break;
    }
    int set = ddbst_item_set(a->item, attr, eq + 1, strlen(eq + 1), &a->err);
    if (set) rc = ddbst_failed(pair, set, &a->err);
  }
  va_end(ap);
  return rc;
}
#define VALUES(a, ...) values_((a), __VA_ARGS__, (const char *)NULL)

/* ---- sending ---- */

/* Sends a->body as operation `op` (a builder's DDBST_OP_* return).
 * Answers DynamoDB marks retryable (throttling, conflicts, internal errors)
 * are retried with backoff. Throttled and conflicting requests were not
 * applied; after an internal error a write may have been, so a retried
 * conditional write can fail on its own first attempt (the writes here
 * carry no client token, which would make a transaction's retry safe).
 * Returns the HTTP status,
 * or -1 when no answer came or `op` is a builder's error; on a status other
 * than 200, a->page holds DynamoDB's error. */
static long send_body(app *a, int op, const char *doing) {
  if (op < 0) return ddbst_failed(doing, op, &a->err);
  const char *operation = ddbst_operation_name(op);
  for (int attempt = 0;; attempt++) {
    long status = dynamo_http_post(a->http, operation, ddbst_buf_data(a->body),
                                   ddbst_buf_len(a->body));
    const char *answer = dynamo_http_answer(a->http);
    if (status < 0) {
      fprintf(stderr, "saas-example: %s: %s to %s: no answer: %s\n", doing,
              operation, dynamo_http_endpoint(a->http), answer);
      return -1;
    }
    if (status == 200) return status;
    int kind = ddbst_page_parse_error(a->page, answer,
                                      dynamo_http_answer_len(a->http), &a->err);
    if (kind < 0) {
      fprintf(stderr, "saas-example: %s: %s: HTTP %ld, not a DynamoDB error: "
              "%.300s\n", doing, operation, status, answer);
      return -1;
    }
    if (!ddbst_page_error_retryable(a->page) || attempt == 5) return status;
    sleep_ms(50L << attempt);
  }
}

/* send_body that must succeed (HTTP 200). */
static int send_ok(app *a, int op, const char *doing) {
  long status = send_body(a, op, doing);
  if (status == 200) return 0;
  if (status > 0)
    fprintf(stderr, "saas-example: %s: %s: HTTP %ld %s: %s\n", doing,
            ddbst_operation_name(op), status, ddbst_page_error_type(a->page),
            ddbst_page_error_message(a->page));
  return -1;
}

/* The answer just received, parsed into a->page as the answer to `op`:
 * its items (>= 0), or -1. */
static int parse_answer(app *a, int op, const char *doing) {
  int n = ddbst_page_parse(a->page, op, dynamo_http_answer(a->http),
                           dynamo_http_answer_len(a->http), &a->err);
  return n < 0 ? ddbst_failed(doing, n, &a->err) : n;
}

/* The answer to the Query the values in a->item made for `pattern`: the
 * page remembers the query, and seals its own next cursor. */
static int parse_query_answer(app *a, int pattern, const char *doing) {
  int n = ddbst_page_parse_query(a->page, a->item, pattern,
                                 dynamo_http_answer(a->http),
                                 dynamo_http_answer_len(a->http), &a->err);
  return n < 0 ? ddbst_failed(doing, n, &a->err) : n;
}

/* Prints the items of a->page, one a line, after `first` (then indented). */
static int print_items(app *a, const char *first) {
  int n = ddbst_page_count(a->page);
  if (n == 0) printf("%s(no items)\n", first);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(a->page, i, a->read, &a->err);
    if (rc < 0) return ddbst_failed("reading an item", rc, &a->err);
    printf("%s", i == 0 ? first : "           ");
    print_item(a, a->read);
  }
  return 0;
}

/* ---- the table ---- */

/* {"TableName":"..."}: table names are [A-Za-z0-9_.-], nothing to escape. */
static const char *table_body(app *a, char *out, size_t n) {
  snprintf(out, n, "{\"TableName\":\"%s\"}", ddbst_model_table_name(a->model));
  return out;
}

/* POSTs a body written here rather than by ddbst (DescribeTable,
 * DeleteTable). Returns the HTTP status or -1; on another status than 200
 * a->page holds DynamoDB's error, if the answer is one. */
static long post_json(app *a, const char *operation, const char *json) {
  long status = dynamo_http_post(a->http, operation, json, strlen(json));
  if (status > 0 && status != 200)
    ddbst_page_parse_error(a->page, dynamo_http_answer(a->http),
                           dynamo_http_answer_len(a->http), NULL);
  return status;
}

/* Says why post_json's `operation` did not answer 200. Returns -1. */
static int post_failed(app *a, const char *operation, long status) {
  if (status < 0)
    fprintf(stderr, "saas-example: %s: no answer from %s: %s\n", operation,
            dynamo_http_endpoint(a->http), dynamo_http_answer(a->http));
  else
    fprintf(stderr, "saas-example: %s: HTTP %ld: %.300s\n", operation, status,
            dynamo_http_answer(a->http));
  return -1;
}

/* How many times `needle` occurs in `hay`. */
static int occurrences(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
  return n;
}

/* Creates the model's table unless it exists, and waits until it and its
 * indexes are ACTIVE (at once on DynamoDB Local; AWS takes a few seconds).
 * ddbst builds CreateTable; DescribeTable's answer is read by a string
 * search for the two statuses, which is all this needs. */
static int ensure_table(app *a) {
  char describe[300];
  table_body(a, describe, sizeof describe);
  const char *table = ddbst_model_table_name(a->model);
  long status = post_json(a, "DescribeTable", describe);
  if (status != 200) {
    if (status < 0 || ddbst_page_error_kind(a->page) !=
                          DDBST_DDB_RESOURCE_NOT_FOUND)
      return post_failed(a, "DescribeTable", status);
    int op = ddbst_create_table_request(a->model, a->body, &a->err);
    status = send_body(a, op, "CreateTable");
    if (status == 200) {
      a->table_created = 1;
      printf("table %s: created\n", table);
    } else if (status > 0 && ddbst_page_error_type(a->page) &&
               !strcmp(ddbst_page_error_type(a->page),
                       "ResourceInUseException")) {
      printf("table %s: being created by someone else\n", table);
    } else {
      return post_failed(a, "CreateTable", status);
    }
  } else {
    printf("table %s: exists\n", table);
  }
  for (int attempt = 0; attempt < 600; attempt++) {
    status = post_json(a, "DescribeTable", describe);
    if (status != 200) return post_failed(a, "DescribeTable", status);
    const char *answer = dynamo_http_answer(a->http);
    if (strstr(answer, "\"TableStatus\":\"ACTIVE\"") &&
        occurrences(answer, "\"IndexStatus\":\"") ==
            occurrences(answer, "\"IndexStatus\":\"ACTIVE\"")) {
      printf("table %s: ACTIVE\n", table);
      return 0;
    }
    sleep_ms(500);
  }
  return failed(table, "not ACTIVE after 5 minutes");
}

static void delete_table(app *a) {
  char body[300];
  long status = post_json(a, "DeleteTable", table_body(a, body, sizeof body));
  if (status == 200)
    printf("\ntable %s: deleted\n", ddbst_model_table_name(a->model));
  else
    post_failed(a, "DeleteTable", status);
}

/* ---- writing ---- */

/* Creates the item in a->item: a conditional PutItem, or for a User (whose
 * email is unique) a TransactWriteItems with the email's guard item. */
static int create(app *a, const char *what) {
  int op = ddbst_put_request(a->item, DDBST_CREATE, ddbst_now_unix_us(),
                             a->body, &a->err);
  if (send_ok(a, op, what)) return -1;
  printf("   %-20s %s\n", ddbst_operation_name(op), what);
  return 0;
}

/* Sends every BatchWriteItem of `batch`, and what DynamoDB leaves
 * unprocessed again (ddbst_page_followup_request) until nothing is left. */
static int write_batch(app *a, ddbst_batch *batch, const char *what) {
  int n = ddbst_batch_request_count(batch);
  for (int i = 0; i < n; i++) {
    int op = ddbst_batch_request(batch, i, 0, a->body, &a->err);
    for (int attempt = 0; op > 0; attempt++) {
      if (attempt == 10) return failed(what, "items still unprocessed");
      if (attempt) sleep_ms(50L << attempt);
      if (send_ok(a, op, what) || parse_answer(a, op, what) < 0) return -1;
      op = ddbst_page_followup_request(a->page, a->body, &a->err);
    }
    if (op < 0) return ddbst_failed(what, op, &a->err);
  }
  printf("   %-20s %s in %d request%s\n", "BatchWriteItem", what, n,
         n == 1 ? "" : "s");
  return 0;
}

static int write_data(app *a) {
  printf("\n== writing two organisations, 5 users, 6 projects, 14 events\n");
  if (VALUES(a, "Organisation", "orgId=acme", "name=Acme Corp", "plan=pro") ||
      create(a, "Organisation acme") ||
      VALUES(a, "Organisation", "orgId=globex", "name=Globex", "plan=free") ||
      create(a, "Organisation globex"))
    return -1;

  static const char *const users[][4] = {
      {"u1", "ann@acme.example", "admin", "Ann Lee"},
      {"u2", "bob@acme.example", "member", "Bob Stone"},
      {"u3", "chloe@acme.example", "member", "Chloé Martin"},
      {"u4", "dev@acme.example", "member", "Dev Patel"},
      {"u5", "eve@acme.example", "viewer", "Eve Quinn"},
  };
  for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
    char id[64], email[128], role[64], name[128], what[160];
    snprintf(id, sizeof id, "userId=%s", users[i][0]);
    snprintf(email, sizeof email, "email=%s", users[i][1]);
    snprintf(role, sizeof role, "role=%s", users[i][2]);
    snprintf(name, sizeof name, "name=%s", users[i][3]);
    snprintf(what, sizeof what, "User %s %s (and its unique email)",
             users[i][0], users[i][1]);
    if (VALUES(a, "User", "orgId=acme", id, email, role, name) ||
        create(a, what))
      return -1;
  }

  /* Projects and events need no unique guard: plain puts, batched. */
  ddbst_batch *batch = ddbst_batch_new(a->model);
  if (!batch) return failed("ddbst_batch_new", "out of memory");
  static const char *const projects[][5] = {
      {"acme", "p1", "Apollo", "active", "2026-01-05T09:00:00Z"},
      {"acme", "p2", "Borealis", "archived", "2026-01-20T14:30:00Z"},
      /* another zone: stored, and sorted, as 2026-02-11T07:00:00Z */
      {"acme", "p3", "Cygnus", "active", "2026-02-11T08:00:00+01:00"},
      {"acme", "p4", "Draco", "active", "2026-02-28T17:45:00Z"},
      {"acme", "p5", "Eridanus", "active", "2026-03-09T10:15:00Z"},
      {"globex", "p6", "Fornax", "active", "2026-02-01T12:00:00Z"},
  };
  static const char *const events[][4] = {
      {"p1", "2026-03-01T09:00:00Z", "created", NULL},
      {"p1", "2026-03-01T16:20:00Z", "comment", "{\"by\":\"u2\"}"},
      {"p1", "2026-03-02T08:00:00Z", "deploy", "{\"version\":\"1.0.0\"}"},
      {"p1", "2026-03-02T12:30:00Z", "comment", "{\"by\":\"u3\"}"},
      {"p1", "2026-03-03T09:15:00Z", "deploy", "{\"version\":\"1.0.1\"}"},
      {"p1", "2026-03-03T11:00:00Z", "review", NULL},
      {"p1", "2026-03-03T18:00:00Z", "incident", "{\"severity\":2}"},
      {"p1", "2026-03-04T00:00:00Z", "resolved", NULL},
      {"p1", "2026-03-04T23:59:59Z", "deploy", "{\"version\":\"1.0.2\"}"},
      {"p1", "2026-03-05T00:00:00Z", "comment", "{\"by\":\"u1\"}"},
      {"p1", "2026-03-05T10:00:00Z", "deploy", "{\"version\":\"1.1.0\"}"},
      {"p1", "2026-03-06T17:00:00Z", "closed", NULL},
      {"p2", "2026-03-02T10:00:00Z", "archived", NULL},
      {"p6", "2026-03-03T10:00:00Z", "created", NULL},
  };
  int64_t now = ddbst_now_unix_us();
  int rc = 0;
  for (size_t i = 0; !rc && i < sizeof projects / sizeof projects[0]; i++) {
    char org[64], id[64], name[64], status[64], created[64];
    snprintf(org, sizeof org, "orgId=%s", projects[i][0]);
    snprintf(id, sizeof id, "projectId=%s", projects[i][1]);
    snprintf(name, sizeof name, "name=%s", projects[i][2]);
    snprintf(status, sizeof status, "status=%s", projects[i][3]);
    snprintf(created, sizeof created, "createdAt=%s", projects[i][4]);
    rc = VALUES(a, "Project", org, id, name, status, created);
    int added = rc ? 0 : ddbst_batch_put(batch, a->item, now, &a->err);
    if (added < 0) rc = ddbst_failed(id, added, &a->err);
  }
  for (size_t i = 0; !rc && i < sizeof events / sizeof events[0]; i++) {
    char project[64], ts[64], type[64], payload[128];
    snprintf(project, sizeof project, "projectId=%s", events[i][0]);
    snprintf(ts, sizeof ts, "ts=%s", events[i][1]);
    snprintf(type, sizeof type, "type=%s", events[i][2]);
    snprintf(payload, sizeof payload, "payload=%s",
             events[i][3] ? events[i][3] : "{}");
    /* eventId is left out: its default generates a ULID */
    rc = events[i][3] ? VALUES(a, "Event", project, ts, type, payload)
                      : VALUES(a, "Event", project, ts, type);
    int added = rc ? 0 : ddbst_batch_put(batch, a->item, now, &a->err);
    if (added < 0) rc = ddbst_failed(ts, added, &a->err);
  }
  if (!rc) rc = write_batch(a, batch, "6 projects and 14 events");
  ddbst_batch_free(batch);
  return rc;
}

/* ---- reading: the seven access patterns ---- */

static ddbst_query query_options(uint32_t limit) {
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = limit;
  return q;
}

/* GetItem of the item whose key facets `key` holds, printed after
 * `first`. */
static int get(app *a, ddbst_item *key, const char *doing, const char *first) {
  int op = ddbst_get_request(key, 0, a->body, &a->err);
  if (send_ok(a, op, doing) || parse_answer(a, op, doing) < 0) return -1;
  if (ddbst_page_count(a->page) == 0) {
    printf("%snot found\n", first);
    return 0;
  }
  return print_items(a, first);
}

/* Query for `pattern_name` with the values in a->item, page by page: each
 * page's cursor, sealed with a->keys, starts the next request, as a client
 * would hand it back. */
static int query_pages(app *a, const char *pattern_name, ddbst_query q) {
  int pattern = ddbst_model_pattern(a->model, pattern_name);
  if (pattern < 0) return failed(pattern_name, "no such access pattern");
  for (int n = 1;; n++) {
    if (n > 1) {
      q.cursor = ddbst_buf_data(a->cursor);
      q.cursor_len = ddbst_buf_len(a->cursor);
    }
    q.cursor_keys = a->keys;
    int op = ddbst_query_request(a->item, pattern, &q, a->body, &a->err);
    if (send_ok(a, op, pattern_name) ||
        parse_query_answer(a, pattern, pattern_name) < 0)
      return -1;
    char label[32];
    snprintf(label, sizeof label, "   page %d  ", n);
    if (print_items(a, label)) return -1;

    int rc = ddbst_page_next_cursor(a->page, a->keys, DDBST_NOW, a->cursor,
                                    &a->err);
    if (rc < 0) return ddbst_failed("the next page's cursor", rc, &a->err);
    if (rc == 0) return 0; /* the last page */
    if (n == 100) return failed(pattern_name, "more than 100 pages");
    /* its head is the key id and this process's nonce prefix: show the
     * tail, which differs from cursor to cursor */
    size_t len = ddbst_buf_len(a->cursor);
    printf("           next: sealed cursor ...%s (%zu characters)\n",
           ddbst_buf_data(a->cursor) + (len > 16 ? len - 16 : 0), len);
  }
}

/* A cursor of one tenant's listUsers, handed back with another tenant's
 * orgId: the cursor is bound to the partition it was made for, so the
 * request is not even built. */
static int cursor_of_another_tenant(app *a) {
  int pattern = ddbst_model_pattern(a->model, "listUsers");
  ddbst_query q = query_options(2);
  q.cursor_keys = a->keys;
  if (VALUES(a, "User", "orgId=acme")) return -1;
  int op = ddbst_query_request(a->item, pattern, &q, a->body, &a->err);
  if (send_ok(a, op, "listUsers") ||
      parse_query_answer(a, pattern, "listUsers") < 0)
    return -1;
  int rc = ddbst_page_next_cursor(a->page, a->keys, DDBST_NOW, a->cursor,
                                  &a->err);
  if (rc != 1) return ddbst_failed("listUsers cursor", rc, &a->err);

  if (VALUES(a, "User", "orgId=globex")) return -1;
  q.cursor = ddbst_buf_data(a->cursor);
  q.cursor_len = ddbst_buf_len(a->cursor);
  op = ddbst_query_request(a->item, pattern, &q, a->body, &a->err);
  if (op >= 0)
    return failed("listUsers", "acme's cursor was accepted for globex");
  printf("   acme's page-1 cursor, given with orgId=globex: refused\n"
         "   %s: %s: %s\n", ddbst_strerror(op), a->err.path, a->err.message);
  return op == DDBST_ECURSOR ? 0 : -1;
}

static int read_patterns(app *a) {
  printf("\n== 1. getOrganisation orgId=acme\n");
  if (VALUES(a, "Organisation", "orgId=acme") ||
      get(a, a->item, "getOrganisation", "   "))
    return -1;

  printf("\n== 2. getUser orgId=acme userId=u3\n");
  if (VALUES(a, "User", "orgId=acme", "userId=u3") ||
      get(a, a->item, "getUser", "   "))
    return -1;

  printf("\n== 3. listUsers orgId=acme, 2 a page\n");
  if (VALUES(a, "User", "orgId=acme") ||
      query_pages(a, "listUsers", query_options(2)))
    return -1;
  if (cursor_of_another_tenant(a)) return -1;

  /* The index is KEYS_ONLY: it gives the user's key, GetItem the user. Any
   * letter case finds her: the index key holds the email lower-cased. */
  printf("\n== 4. userByEmail email=ANN@Acme.Example\n");
  int pattern = ddbst_model_pattern(a->model, "userByEmail");
  ddbst_query q = query_options(0);
  if (VALUES(a, "User", "email=ANN@Acme.Example")) return -1;
  int op = ddbst_query_request(a->item, pattern, &q, a->body, &a->err);
  if (send_ok(a, op, "userByEmail") || parse_answer(a, op, "userByEmail") < 0)
    return -1;
  if (ddbst_page_count(a->page) != 1)
    return failed("userByEmail", "no user has this email");
  if (print_items(a, "   GSI1      ")) return -1;
  if (get(a, a->read, "getUser", "   GetItem   ")) return -1;

  printf("\n== 5. listProjects orgId=acme, newest first, 2 a page\n");
  if (VALUES(a, "Project", "orgId=acme") ||
      query_pages(a, "listProjects", query_options(2)))
    return -1;

  /* A partial upper bound covers its whole range: 2026-03-04 includes
   * 23:59:59 that day. */
  printf("\n== 6. listEvents projectId=p1, ts from 2026-03-02 through "
         "2026-03-04, 3 a page\n");
  if (VALUES(a, "Event", "projectId=p1")) return -1;
  q = query_options(3);
  q.condition = DDBST_SK_BETWEEN;
  q.attribute = ddbst_model_attribute(a->model, ddbst_item_entity(a->item),
                                      "ts");
  q.value = "2026-03-02";
  q.value_len = strlen(q.value);
  q.value2 = "2026-03-04";
  q.value2_len = strlen(q.value2);
  if (query_pages(a, "listEvents", q)) return -1;

  printf("\n== 7. projectsByStatus status=active (every organisation), "
         "newest first, 2 a page\n");
  if (VALUES(a, "Project", "status=active") ||
      query_pages(a, "projectsByStatus", query_options(2)))
    return -1;
  return 0;
}

/* ---- a refused write ---- */

/* A second user with Ann's email in other letters: the transaction's guard
 * item (EMAIL#ann@acme.example) exists, so DynamoDB cancels the whole
 * transaction, and ddbst_txn_explain says why in the model's words. */
static int duplicate_email(app *a) {
  printf("\n== creating user u6 with email ANN@ACME.example (Ann's, other "
         "case)\n");
  ddbst_txn *txn = ddbst_txn_new(a->model);
  if (!txn) return failed("ddbst_txn_new", "out of memory");
  int rc = VALUES(a, "User", "orgId=acme", "userId=u6",
                  "email=ANN@ACME.example", "role=member", "name=Ann Again");
  if (!rc) {
    rc = ddbst_txn_put(txn, a->item, DDBST_CREATE, ddbst_now_unix_us(),
                       &a->err);
    if (rc) rc = ddbst_failed("ddbst_txn_put", rc, &a->err);
  }
  long status = 0;
  if (!rc) {
    int op = ddbst_txn_request(txn, NULL, a->body, &a->err);
    status = send_body(a, op, "create u6");
    if (status < 0) rc = -1;
  }
  if (!rc && status == 200)
    rc = failed("create u6", "DynamoDB accepted a second user with one email");
  if (!rc) {
    printf("   %s: HTTP %ld %s\n", ddbst_operation_name(
                                        DDBST_OP_TRANSACT_WRITE_ITEMS),
           status, ddbst_page_error_type(a->page));
    int kind = ddbst_txn_explain(txn, a->page, a->text, &a->err);
    if (kind < 0) {
      rc = ddbst_failed("ddbst_txn_explain", kind, &a->err);
    } else {
      printf("   ddbst_txn_explain: %s", ddbst_buf_data(a->text));
      if (kind != DDBST_FAIL_UNIQUE)
        rc = failed("create u6", "refused for another reason than the email");
    }
  }
  ddbst_txn_free(txn);
  if (rc) return rc;

  if (VALUES(a, "User", "orgId=acme", "userId=u6")) return -1;
  return get(a, a->item, "getUser u6",
             "   nothing was written: getUser orgId=acme userId=u6: ");
}

/* ---- setting up ---- */

/* Cursor keys: DDBST_CURSOR_KEY's, so cursors outlive this process (every
 * instance of a service shares them), else a random key for this run. */
static int load_cursor_keys(app *a) {
  a->keys = ddbst_cursor_keys_new(NULL);
  if (!a->keys) return failed("ddbst_cursor_keys_new", "out of memory");
  const char *hex = getenv("DDBST_CURSOR_KEY");
  if (hex && *hex) {
    int rc = ddbst_cursor_keys_add_hex(a->keys, hex, &a->err);
    if (rc) return ddbst_failed("DDBST_CURSOR_KEY", rc, &a->err);
    printf("cursor key: from DDBST_CURSOR_KEY\n");
    return 0;
  }
  uint8_t key[DDBST_CURSOR_KEY_BYTES];
  FILE *random = fopen("/dev/urandom", "rb");
  size_t got = random ? fread(key, 1, sizeof key, random) : 0;
  if (random) fclose(random);
  if (got != sizeof key) return failed("/dev/urandom", "cannot read a key");
  int rc = ddbst_cursor_keys_add(a->keys, key, &a->err);
  /* the keyring has its copy; wipe ours through a volatile pointer, which
   * the compiler cannot drop as a dead store */
  for (volatile uint8_t *v = key; v < key + sizeof key; v++) *v = 0;
  if (rc) return ddbst_failed("cursor key", rc, &a->err);
  printf("cursor key: random, for this run (set DDBST_CURSOR_KEY to keep "
         "cursors valid across runs)\n");
  return 0;
}

static int open_app(app *a, const char *model_path) {
  char why[256];
  a->http = dynamo_http_new(why, sizeof why);
  if (!a->http) return failed("environment", why);

  /* A table of this run's own, so runs never meet each other's items. */
  ddbst_model *probe = NULL;
  int rc = ddbst_model_load_file(model_path, NULL, &probe, &a->err);
  if (rc) return ddbst_failed(model_path, rc, &a->err);
  char table[256];
  snprintf(table, sizeof table, "%.180s-example-%lld-%ld",
           ddbst_model_table_name(probe), (long long)time(NULL),
           (long)getpid());
  ddbst_model_free(probe);
  ddbst_load_options opts;
  memset(&opts, 0, sizeof opts);
  opts.size = sizeof opts;
  opts.table_name = table;
  rc = ddbst_model_load_file(model_path, &opts, &a->model, &a->err);
  if (rc) return ddbst_failed(model_path, rc, &a->err);

  a->item = ddbst_item_new(a->model, 0);
  a->read = ddbst_item_new(a->model, 0);
  a->body = ddbst_buf_new(NULL);
  a->cursor = ddbst_buf_new(NULL);
  a->text = ddbst_buf_new(NULL);
  a->page = ddbst_page_new(a->model);
  if (!a->item || !a->read || !a->body || !a->cursor || !a->text || !a->page)
    return failed("setting up", "out of memory");
  printf("ddbst %s, model %s, DynamoDB at %s (%s)\n", ddbst_version(),
         model_path, dynamo_http_endpoint(a->http),
         dynamo_http_region(a->http));
  return load_cursor_keys(a);
}

static void close_app(app *a) {
  if (a->table_created) delete_table(a);
  ddbst_page_free(a->page);
  ddbst_buf_free(a->text);
  ddbst_buf_free(a->cursor);
  ddbst_buf_free(a->body);
  ddbst_item_free(a->read);
  ddbst_item_free(a->item);
  ddbst_cursor_keys_free(a->keys);
  ddbst_model_free(a->model);
  dynamo_http_free(a->http);
}

int main(int argc, char **argv) {
  const char *model_path = argc > 1 ? argv[1] : "examples/saas/model.json";
  const char *endpoint = getenv("DDBST_ENDPOINT");
  if (!endpoint || !*endpoint) {
    fprintf(stderr, "saas-example: skipped: DDBST_ENDPOINT is not set (run "
            "it under scripts/dynamodb-local, or set it to a DynamoDB "
            "endpoint)\n");
    return EXIT_SKIP;
  }
  app a;
  memset(&a, 0, sizeof a);
  int rc = open_app(&a, model_path);
  if (!rc) rc = ensure_table(&a);
  if (!rc) rc = write_data(&a);
  if (!rc) rc = read_patterns(&a);
  if (!rc) rc = duplicate_email(&a);
  close_app(&a);
  if (rc) {
    fprintf(stderr, "saas-example: failed\n");
    return 1;
  }
  return 0;
}
