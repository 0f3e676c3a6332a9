/* The handlers of handlers.h. Each handler is its request's ddbst calls,
 * in order, with the HTTP plumbing (sending, error answers, the query
 * string) in the helpers at the top. */
#include "handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- plumbing: no ddbst decisions here ---- */

/* {"error":"<message>"} with `status` (one line: a trailing newline, as
 * ddbst's explanations end, dropped). */
static int answer_error(ddbst_buf *answer, int status, const char *message) {
  size_t n = strlen(message);
  ddbst_buf_reset(answer);
  ddbst_buf_append(answer, "{\"error\":", DDBST_NUL_TERMINATED);
  ddbst_buf_append_json_string(answer, message,
                               n && message[n - 1] == '\n' ? n - 1 : n);
  ddbst_buf_append(answer, "}", 1);
  return status;
}

/* A refusal of ddbst's: the client's input (400) or ours (500). */
static int answer_refusal(ddbst_buf *answer, int rc, const ddbst_error *err) {
  char message[DDBST_ERROR_PATH_MAX + DDBST_ERROR_MESSAGE_MAX + 4];
  snprintf(message, sizeof message, "%s%s%s", err->path,
           err->path[0] ? ": " : "", err->message);
  int client = rc == DDBST_EVALUE || rc == DDBST_EMISSING ||
               rc == DDBST_ENOTFOUND || rc == DDBST_ESYNTAX ||
               rc == DDBST_ERANGE || rc == DDBST_ECURSOR || rc == DDBST_EINVAL;
  return answer_error(answer, client ? 400 : 500, message);
}

/* Sends w->body as operation `op`: DynamoDB's HTTP status (-1: no answer).
 * On another status than 200 w->page holds DynamoDB's error. */
static long send_body(worker *w, int op) {
  long status = dynamo_http_post(w->http, ddbst_operation_name(op),
                                 ddbst_buf_data(w->body),
                                 ddbst_buf_len(w->body));
  if (status > 0 && status != 200)
    ddbst_page_parse_error(w->page, dynamo_http_answer(w->http),
                           dynamo_http_answer_len(w->http), NULL);
  return status;
}

/* The value of `name` in "a=1&b=2" (no percent-decoding: cursors are
 * base64url), or NULL. */
static const char *query_param(const char *qs, const char *name, size_t *len) {
  size_t n = strlen(name);
  for (const char *p = qs; p && *p; p = strchr(p, '&'), p = p ? p + 1 : p)
    if (!strncmp(p, name, n) && p[n] == '=') {
      *len = strcspn(p + n + 1, "&");
      return p + n + 1;
    }
  return NULL;
}

/* {"name":"value",...} of the item's values of `names` (NULL-terminated). */
static int answer_values(ddbst_buf *answer, int status, const ddbst_item *item,
                         const char *const *names) {
  ddbst_buf_reset(answer);
  for (size_t i = 0; names[i]; i++) {
    const char *text = NULL;
    size_t len = 0;
    ddbst_item_get_by_name(item, names[i], &text, &len);
    ddbst_buf_append(answer, i ? "," : "{", 1);
    ddbst_buf_append_json_string(answer, names[i], DDBST_NUL_TERMINATED);
    ddbst_buf_append(answer, ":", 1);
    ddbst_buf_append_json_string(answer, text, len);
  }
  ddbst_buf_append(answer, "}", 1);
  return status;
}

/* ---- set-up ---- */

int service_open(service *svc, const char *model_path, const char *table,
                 const char *cursor_keys_hex, ddbst_error *err) {
  memset(svc, 0, sizeof *svc);
  ddbst_load_options o = {.size = sizeof o, .table_name = table};
  int rc = ddbst_model_load_file(model_path, &o, &svc->model, err);
  svc->keys = rc ? NULL : ddbst_cursor_keys_new(NULL);
  if (!rc && !svc->keys) rc = DDBST_ENOMEM;
  if (!rc) rc = ddbst_cursor_keys_add_hex(svc->keys, cursor_keys_hex, err);
  svc->user = ddbst_model_entity(svc->model, "User");
  svc->project = ddbst_model_entity(svc->model, "Project");
  svc->list_projects = ddbst_model_pattern(svc->model, "listProjects");
  if (!rc)
    rc = ddbst_expr_parse(svc->model, svc->project, DDBST_EXPR_CONDITION,
                          "status = \"active\"", DDBST_NUL_TERMINATED,
                          &svc->still_active, err);
  return rc;
}

void service_close(service *svc) {
  ddbst_expr_free(svc->still_active);
  ddbst_cursor_keys_free(svc->keys);
  ddbst_model_free(svc->model);
}

int worker_open(worker *w, const service *svc, dynamo_http *http) {
  w->svc = svc;
  w->http = http;
  w->item = ddbst_item_new(svc->model, svc->user);
  w->page = ddbst_page_new(svc->model);
  w->body = ddbst_buf_new(NULL);
  w->text = ddbst_buf_new(NULL);
  return w->item && w->page && w->body && w->text ? 0 : DDBST_ENOMEM;
}

void worker_close(worker *w) {
  ddbst_buf_free(w->text);
  ddbst_buf_free(w->body);
  ddbst_page_free(w->page);
  ddbst_item_free(w->item);
}

/* ---- the handlers ---- */

/* POST /orgs/{org}/users {"userId":"u1","email":"Ann@x.example",...}: a
 * create, refused when the id or the email (in any letter case) is taken. */
int create_user(worker *w, const char *org, const char *json,
                ddbst_buf *answer) {
  static const char *const ids[] = {"orgId", "userId", NULL};
  ddbst_error err = {0};
  ddbst_item_reset(w->item, w->svc->user);
  int rc = ddbst_item_set_json(w->item, json, DDBST_NUL_TERMINATED, &err);
  if (rc == 0) /* after the body: the path's org wins over one it names */
    rc = ddbst_item_set_by_name(w->item, "orgId", org, DDBST_NUL_TERMINATED,
                                &err);
  int op = rc ? rc
              : ddbst_put_request(w->item, DDBST_CREATE, DDBST_NOW, w->body,
                                  &err);
  if (op < 0) return answer_refusal(answer, op, &err);
  long status = send_body(w, op);
  if (status != 200 &&
      ddbst_page_error_kind(w->page) == DDBST_DDB_TRANSACTION_CANCELED) {
    /* cancelled: which check failed, in the model's words */
    int why = ddbst_item_explain(w->item, DDBST_OP_PUT_ITEM, DDBST_CREATE,
                                 w->page, w->text, &err);
    if (why == DDBST_FAIL_UNIQUE || why == DDBST_FAIL_EXISTS)
      return answer_error(answer, 409, ddbst_buf_data(w->text));
  }
  if (status != 200) return answer_error(answer, 502, "DynamoDB failed");
  return answer_values(answer, 201, w->item, ids);
}

/* GET /orgs/{org}/projects?limit=N&cursor=C: one page, newest first, and
 * the cursor of the next one (null on the last page). */
int list_projects(worker *w, const char *org, const char *query_string,
                  ddbst_buf *answer) {
  ddbst_error err = {0};
  size_t n = 0;
  const char *limit = query_param(query_string, "limit", &n);
  ddbst_query q = {.size = sizeof q, .cursor_keys = w->svc->keys};
  q.limit = limit ? (uint32_t)strtoul(limit, NULL, 10) : 0;
  q.cursor = query_param(query_string, "cursor", &q.cursor_len);
  ddbst_item_reset(w->item, w->svc->project);
  int rc = ddbst_item_set_by_name(w->item, "orgId", org, DDBST_NUL_TERMINATED,
                                  &err);
  int op = rc ? rc
              : ddbst_query_request(w->item, w->svc->list_projects, &q,
                                    w->body, &err);
  if (op < 0) return answer_refusal(answer, op, &err);
  if (send_body(w, op) != 200)
    return answer_error(answer, 502, "DynamoDB failed");
  int count = ddbst_page_parse_query(w->page, w->item, w->svc->list_projects,
                                     dynamo_http_answer(w->http),
                                     dynamo_http_answer_len(w->http), &err);
  int more = count < 0 ? count
                       : ddbst_page_next_cursor(w->page, w->svc->keys,
                                                DDBST_NOW, w->text, &err);
  if (more < 0) return answer_error(answer, 502, err.message);
  ddbst_buf_reset(answer);
  ddbst_buf_append(answer, "{\"items\":[", DDBST_NUL_TERMINATED);
  for (int i = 0; i < count && rc == 0; i++) {
    if (i) ddbst_buf_append(answer, ",", 1);
    rc = ddbst_page_item_json_append(w->page, i, answer, &err);
  }
  ddbst_buf_append(answer, "],\"next\":", DDBST_NUL_TERMINATED);
  if (more)
    ddbst_buf_append_json_string(answer, ddbst_buf_data(w->text),
                                 ddbst_buf_len(w->text));
  ddbst_buf_append(answer, more ? "}" : "null}", DDBST_NUL_TERMINATED);
  return rc ? answer_refusal(answer, rc, &err) : 200;
}

/* POST /orgs/{org}/projects/{createdAt}/{id}/archive: status becomes
 * "archived" (and the project moves in GSI2), only while it is active. */
int archive_project(worker *w, const char *org, const char *created_at,
                    const char *project_id, ddbst_buf *answer) {
  static const char *const ids[] = {"orgId", "projectId", "status", NULL};
  ddbst_error err = {0};
  ddbst_item *it = w->item;
  ddbst_item_reset(it, w->svc->project);
  /* by name, each from the path: never pasted into JSON text */
  int rc = ddbst_item_set_by_name(it, "orgId", org, DDBST_NUL_TERMINATED, &err);
  if (rc == 0)
    rc = ddbst_item_set_by_name(it, "createdAt", created_at,
                                DDBST_NUL_TERMINATED, &err);
  if (rc == 0)
    rc = ddbst_item_set_by_name(it, "projectId", project_id,
                                DDBST_NUL_TERMINATED, &err);
  if (rc == 0)
    rc = ddbst_item_set_by_name(it, "status", "archived", DDBST_NUL_TERMINATED,
                                &err);
  if (rc == 0) rc = ddbst_item_condition(it, w->svc->still_active, &err);
  int op = rc ? rc
              : ddbst_update_request(w->item, DDBST_RETURN_OLD_ON_FAILURE,
                                     DDBST_NOW, w->body, &err);
  if (op < 0) return answer_refusal(answer, op, &err);
  long status = send_body(w, op);
  if (status != 200 &&
      ddbst_page_error_kind(w->page) == DDBST_DDB_CONDITIONAL_CHECK_FAILED) {
    /* not active, or not there: the item DynamoDB sends back tells */
    int why = ddbst_item_explain(w->item, DDBST_OP_UPDATE_ITEM,
                                 DDBST_RETURN_OLD_ON_FAILURE, w->page, w->text,
                                 &err);
    return answer_error(answer, why == DDBST_FAIL_MISSING ? 404 : 409,
                        ddbst_buf_data(w->text));
  }
  if (status != 200) return answer_error(answer, 502, "DynamoDB failed");
  return answer_values(answer, 200, w->item, ids);
}
