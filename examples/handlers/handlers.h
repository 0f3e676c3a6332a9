/* Three HTTP handlers of a small SaaS service (examples/saas/model.json),
 * written the way README.md recommends: the model, the cursor keys and the
 * expressions set up once at start-up and shared; one item, page and pair
 * of buffers per worker thread; values given by name or as the client's
 * JSON; every DynamoDB error explained in the model's words.
 *
 *   create_user     POST  /orgs/{org}/users             body: the user
 *   list_projects   GET   /orgs/{org}/projects?limit=2&cursor=...
 *   archive_project POST  /orgs/{org}/projects/{createdAt}/{id}/archive
 *                         (only while the project is active)
 *
 * Each returns the HTTP status and writes its JSON answer into `answer`.
 * The HTTP server around them is yours; dynamo_http (examples/curl) sends
 * the requests. test_handlers.c runs them on DynamoDB Local. */
#ifndef HANDLERS_H
#define HANDLERS_H

#include "ddbst.h"
#include "dynamo_http.h"

/* What every worker shares: read-only after service_open. */
typedef struct service {
  ddbst_model *model;
  ddbst_cursor_keys *keys;
  ddbst_expr *still_active; /* 'status = "active"', compiled once */
  int user, project, list_projects;
} service;

/* What one worker thread owns. */
typedef struct worker {
  const service *svc;
  dynamo_http *http;
  ddbst_item *item;
  ddbst_page *page;
  ddbst_buf *body, *text;
} worker;

/* Loads the model (with `table` as its table name, NULL: the model's) and
 * sets up the keys (hex, the DDBST_CURSOR_KEY format) and expressions.
 * 0, or the failing call's code with `err` filled. */
int service_open(service *svc, const char *model_path, const char *table,
                 const char *cursor_keys_hex, ddbst_error *err);
void service_close(service *svc);
int worker_open(worker *w, const service *svc, dynamo_http *http);
void worker_close(worker *w);

int create_user(worker *w, const char *org, const char *json,
                ddbst_buf *answer);
int list_projects(worker *w, const char *org, const char *query_string,
                  ddbst_buf *answer);
int archive_project(worker *w, const char *org, const char *created_at,
                    const char *project_id, ddbst_buf *answer);

#endif
