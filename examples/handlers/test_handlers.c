/* The handlers of handlers.c on DynamoDB Local (or DynamoDB): each called
 * as an HTTP server would call it, its status and answer checked exactly,
 * and what it wrote read back with GetItem bodies written here by hand, not
 * by ddbst. A table of its own per run (deleted at the end).
 *
 *   test_handlers MODEL     (examples/saas/model.json)
 *
 * Exits 0, 1 on a failure (said on stderr), 77 when DDBST_ENDPOINT is
 * unset. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers.h"

static int failures;
static dynamo_http *http;
static char table[64];

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "test_handlers:%d: ", __LINE__);              \
      fprintf(stderr, __VA_ARGS__);                                 \
      fputc('\n', stderr);                                          \
      failures++;                                                   \
    }                                                               \
  } while (0)

/* A handler's status and answer must be these exactly. */
static void expect(const char *what, int status, const ddbst_buf *answer,
                   int want_status, const char *want) {
  CHECK(status == want_status, "%s: status %d, wanted %d (%s)", what, status,
        want_status, ddbst_buf_data(answer));
  if (want)
    CHECK(!strcmp(ddbst_buf_data(answer), want),
          "%s: answer\n  %s\nwanted\n  %s", what, ddbst_buf_data(answer), want);
}

/* GetItem of PK/SK, written by hand: the raw answer. */
static const char *get_raw(const char *pk, const char *sk) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"TableName\":\"%s\",\"ConsistentRead\":true,\"Key\":{\"PK\":"
           "{\"S\":\"%s\"},\"SK\":{\"S\":\"%s\"}}}",
           table, pk, sk);
  long status = dynamo_http_post(http, "GetItem", body, strlen(body));
  CHECK(status == 200, "GetItem %s %s: HTTP %ld %s", pk, sk, status,
        dynamo_http_answer(http));
  return dynamo_http_answer(http);
}

/* The stored item holds each of `parts` ("\"name\":{\"S\":\"v\"}"). */
static void expect_stored(const char *pk, const char *sk,
                          const char *const *parts) {
  const char *got = get_raw(pk, sk);
  for (size_t i = 0; parts[i]; i++)
    CHECK(strstr(got, parts[i]) != NULL, "%s %s: no %s in %s", pk, sk,
          parts[i], got);
}

/* The projectId values of a list answer, comma-separated, in order. */
static void ids_of(const char *answer, char *out, size_t cap) {
  out[0] = '\0';
  size_t n = 0;
  for (const char *p = answer; (p = strstr(p, "\"projectId\":\"")) != NULL;) {
    p += 13;
    size_t len = strcspn(p, "\"");
    n += (size_t)snprintf(out + n, cap - n, "%s%.*s", n ? "," : "", (int)len,
                          p);
  }
}

/* The "next" cursor of a list answer into `out` ("" when null). */
static void next_of(const char *answer, char *out, size_t cap) {
  const char *p = strstr(answer, "\"next\":\"");
  out[0] = '\0';
  if (p) snprintf(out, cap, "%.*s", (int)strcspn(p + 8, "\""), p + 8);
}

int main(int argc, char **argv) {
  if (!getenv("DDBST_ENDPOINT")) {
    fprintf(stderr, "test_handlers: DDBST_ENDPOINT is unset: skipped\n");
    return 77;
  }
  char why[256];
  http = dynamo_http_new(why, sizeof why);
  if (!http) {
    fprintf(stderr, "test_handlers: %s\n", why);
    return 1;
  }
  snprintf(table, sizeof table, "handlers-%ld", (long)getpid());
  service svc;
  worker w;
  ddbst_error err = {0};
  int rc = service_open(&svc, argc > 1 ? argv[1] : "examples/saas/model.json",
                        table,
                        "000102030405060708090a0b0c0d0e0f"
                        "101112131415161718191a1b1c1d1e1f",
                        &err);
  if (rc == 0) rc = worker_open(&w, &svc, http);
  if (rc) {
    fprintf(stderr, "test_handlers: set-up: %s: %s\n", err.path, err.message);
    return 1;
  }
  ddbst_buf *answer = ddbst_buf_new(NULL);
  ddbst_buf *body = ddbst_buf_new(NULL);
  int op = ddbst_create_table_request(svc.model, body, &err);
  long st = dynamo_http_post(http, ddbst_operation_name(op),
                             ddbst_buf_data(body), ddbst_buf_len(body));
  if (st != 200) {
    fprintf(stderr, "test_handlers: CreateTable: %ld %s\n", st,
            dynamo_http_answer(http));
    return 1;
  }

  /* ---- create with uniqueness ---- */
  int s = create_user(&w, "acme",
                      "{\"userId\":\"u1\",\"email\":\"Ann@Acme.example\","
                      "\"name\":\"Ann\",\"role\":\"admin\",\"orgId\":\"evil\"}",
                      answer);
  expect("create u1", s, answer, 201, "{\"orgId\":\"acme\",\"userId\":\"u1\"}");
  expect_stored("ORG#acme", "USER#u1",
                (const char *const[]){"\"email\":{\"S\":\"Ann@Acme.example\"}",
                                      "\"GSI1PK\":{\"S\":\"EMAIL#ann@acme.example\"}",
                                      "\"orgId\":{\"S\":\"acme\"}",
                                      "\"_type\":{\"S\":\"User\"}", NULL});
  /* the org in the body went nowhere */
  CHECK(!strcmp(get_raw("ORG#evil", "USER#u1"), "{}"),
        "a user was written to org evil");
  /* the guard of the unique email */
  expect_stored("EMAIL#ann@acme.example", "EMAIL#ann@acme.example",
                (const char *const[]){"\"PK\":{\"S\":\"EMAIL#ann@acme.example\"}",
                                      NULL});
  s = create_user(&w, "acme",
                  "{\"userId\":\"u2\",\"email\":\"ANN@acme.EXAMPLE\"}", answer);
  expect("the same email in another case", s, answer, 409,
         "{\"error\":\"TransactItems[1]: unique constraint User.email: "
         "another User already has this email (EMAIL#ann@acme.example)\"}");
  CHECK(!strcmp(get_raw("ORG#acme", "USER#u2"), "{}"), "u2 was written");
  s = create_user(&w, "acme", "{\"userId\":\"u1\",\"email\":\"bo@acme.example\"}",
                  answer);
  expect("the same user again", s, answer, 409,
         "{\"error\":\"TransactItems[0]: User (ORG#acme / USER#u1) already "
         "exists\"}");
  s = create_user(&w, "acme", "{\"userId\":\"u3\",\"emial\":\"x@y.z\"}", answer);
  expect("a misspelt attribute", s, answer, 400,
         "{\"error\":\"emial: User has no attribute emial; did you mean "
         "email?\"}");
  s = create_user(&w, "acme", "{\"userId\":\"u3\"}", answer);
  expect("no email", s, answer, 400,
         "{\"error\":\"User.email: User.email is required\"}");
  s = create_user(&w, "acme", "{\"userId\":\"u3\",", answer);
  CHECK(s == 400 && strstr(ddbst_buf_data(answer), "parse error"),
        "malformed JSON: %d %s", s, ddbst_buf_data(answer));

  /* ---- list with a cursor from a query string ---- */
  static const char *const created[] = {
      "2026-01-05T09:00:00Z", "2026-02-01T12:30:00Z", "2026-03-14T08:00:00Z",
      "2026-03-20T10:15:00Z", "2026-04-02T16:45:00Z"};
  for (int i = 0; i < 5; i++) {
    ddbst_item *p = ddbst_item_new(svc.model, svc.project);
    char id[8];
    snprintf(id, sizeof id, "p%d", i + 1);
    ddbst_item_set_by_name(p, "orgId", "acme", DDBST_NUL_TERMINATED, NULL);
    ddbst_item_set_by_name(p, "projectId", id, DDBST_NUL_TERMINATED, NULL);
    ddbst_item_set_by_name(p, "createdAt", created[i], DDBST_NUL_TERMINATED,
                           NULL);
    ddbst_item_set_by_name(p, "name", "Apollo", DDBST_NUL_TERMINATED, NULL);
    ddbst_item_set_by_name(p, "status", "active", DDBST_NUL_TERMINATED, NULL);
    op = ddbst_put_request(p, 0, DDBST_NOW, body, &err);
    st = op < 0 ? -1 : dynamo_http_post(http, ddbst_operation_name(op),
                                        ddbst_buf_data(body),
                                        ddbst_buf_len(body));
    CHECK(st == 200, "put p%d: %ld %s", i + 1, st, err.message);
    ddbst_item_free(p);
  }
  char qs[8192], ids[256], all[256] = "", cursor[8000], first_cursor[8000] = "";
  int pages = 0;
  snprintf(qs, sizeof qs, "limit=2");
  for (;;) {
    s = list_projects(&w, "acme", qs, answer);
    expect("list page", s, answer, 200, NULL);
    if (s != 200) break;
    pages++;
    ids_of(ddbst_buf_data(answer), ids, sizeof ids);
    snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
             all[0] ? "|" : "", ids);
    next_of(ddbst_buf_data(answer), cursor, sizeof cursor);
    if (pages == 1) snprintf(first_cursor, sizeof first_cursor, "%s", cursor);
    if (!cursor[0] || pages > 5) break;
    CHECK(!strstr(ddbst_buf_data(answer), "\"next\":null"), "next twice");
    snprintf(qs, sizeof qs, "cursor=%s&limit=2", cursor);
  }
  CHECK(!strcmp(all, "p5,p4|p3,p2|p1"), "the pages: %s", all);
  CHECK(pages == 3, "%d pages", pages);
  CHECK(strstr(ddbst_buf_data(answer), "],\"next\":null}") != NULL,
        "the last page's next: %s", ddbst_buf_data(answer));
  /* the first page exactly */
  s = list_projects(&w, "acme", "limit=1", answer);
  next_of(ddbst_buf_data(answer), cursor, sizeof cursor);
  char want[8192];
  snprintf(want, sizeof want,
           "{\"items\":[{\"entity\":\"Project\",\"item\":{\"orgId\":\"acme\","
           "\"projectId\":\"p5\",\"createdAt\":\"2026-04-02T16:45:00Z\","
           "\"name\":\"Apollo\",\"status\":\"active\"}}],\"next\":\"%s\"}",
           cursor);
  expect("the first page", s, answer, 200, want);
  /* a cursor of acme's is refused for another org, and a made-up one */
  snprintf(qs, sizeof qs, "limit=2&cursor=%s", first_cursor);
  s = list_projects(&w, "globex", qs, answer);
  expect("acme's cursor for globex", s, answer, 400,
         "{\"error\":\"cursor: the cursor does not open: it was made for "
         "another pattern, index, sort order or partition, or it was "
         "altered\"}");
  s = list_projects(&w, "acme", "cursor=AAAAAAAAAAAAAAAAAAAAAAAA", answer);
  CHECK(s == 400 && strstr(ddbst_buf_data(answer), "\"error\":\"cursor: "),
        "a forged cursor: %d %s", s, ddbst_buf_data(answer));

  /* ---- conditional update ---- */
  s = archive_project(&w, "acme", "2026-02-01T12:30:00Z", "p2", answer);
  expect("archive p2", s, answer, 200,
         "{\"orgId\":\"acme\",\"projectId\":\"p2\",\"status\":\"archived\"}");
  expect_stored("ORG#acme", "PROJECT#2026-02-01T12:30:00Z#p2",
                (const char *const[]){"\"status\":{\"S\":\"archived\"}",
                                      "\"GSI2PK\":{\"S\":\"STATUS#archived\"}",
                                      "\"name\":{\"S\":\"Apollo\"}", NULL});
  s = archive_project(&w, "acme", "2026-02-01T12:30:00Z", "p2", answer);
  expect("archive p2 again", s, answer, 409,
         "{\"error\":\"Project (ORG#acme / PROJECT#2026-02-01T12:30:00Z#p2): "
         "the condition failed: status is archived\"}");
  s = archive_project(&w, "acme", "2026-02-01T12:30:00Z", "p9", answer);
  expect("archive a project that is not there", s, answer, 404,
         "{\"error\":\"Project (ORG#acme / PROJECT#2026-02-01T12:30:00Z#p9) "
         "does not exist\"}");
  CHECK(!strcmp(get_raw("ORG#acme", "PROJECT#2026-02-01T12:30:00Z#p9"), "{}"),
        "archiving p9 wrote it");
  s = archive_project(&w, "acme", "yesterday", "p2", answer);
  CHECK(s == 400 && strstr(ddbst_buf_data(answer), "Project.createdAt: "),
        "a bad timestamp: %d %s", s, ddbst_buf_data(answer));

  char del[128];
  snprintf(del, sizeof del, "{\"TableName\":\"%s\"}", table);
  dynamo_http_post(http, "DeleteTable", del, strlen(del));
  ddbst_buf_free(body);
  ddbst_buf_free(answer);
  worker_close(&w);
  service_close(&svc);
  dynamo_http_free(http);
  if (failures) fprintf(stderr, "test_handlers: %d failures\n", failures);
  else printf("test_handlers: every handler answered as expected\n");
  return failures ? 1 : 0;
}
