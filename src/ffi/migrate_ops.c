/* The JSON entry's migration ops, on a session of the new model with the
 * old one given as for "diff" ("old" or "oldFile", "oldTable"):
 * "migratePlan" (the plan), "migrateStep" (the writes a Scan answer's
 * items need), "migrateVerify" (the problems of a Scan answer's items),
 * "migrateWrite" (a service's write during the migration). */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

static const char *const plan_fields[] = {"op",     "old",    "oldFile",
                                          "oldTable", "unsafe", "format",
                                          NULL};
static const char *const page_fields[] = {"op",      "old",    "oldFile",
                                          "oldTable", "unsafe", "response",
                                          "now",     NULL};

/* The migration from the request's old model to the session's. */
static int open_migration(call *c, const ddbst__jnode *req, ddbst_model **old,
                          ddbst_migration **m) {
  *m = NULL;
  int unsafe = 0;
  if (ddbst__ffi_get_bool(c, req, "unsafe", &unsafe) ||
      ddbst__ffi_load_older(c, req, "old", "oldFile", "oldTable", old))
    return c->err.code;
  if (!*old)
    return ddbst__ffi_fail(c, DDBST_EMISSING, "oldFile",
                           "a migration needs the older model: \"old\" (its "
                           "text) or \"oldFile\" (a path)");
  return ddbst_migration_new(*old, c->m, unsafe ? DDBST_MIGRATE_UNSAFE : 0, m,
                             &c->err);
}

/* {"op":"migratePlan",...,"format":"json"|"text"}: the plan
 * (ddbst_migration_plan), or {"text":"..."}. */
int ddbst__ffi_op_migrate_plan(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "migratePlan", plan_fields)) return c->err.code;
  const char *format = NULL;
  if (ddbst__ffi_get_string(c, req, "format", 0, &format, NULL))
    return c->err.code;
  int text = format && !strcmp(format, "text");
  if (format && !text && strcmp(format, "json"))
    return ddbst__ffi_fail(c, DDBST_EINVAL, "format",
                           "format %s: expected \"json\" or \"text\"", format);
  ddbst_model *old = NULL;
  ddbst_migration *m = NULL;
  int rc = open_migration(c, req, &old, &m);
  if (!rc)
    rc = ddbst_migration_plan(m, text ? DDBST_DIFF_TEXT : 0, &c->tmp, &c->err);
  if (!rc && text) {
    ddbst__jw_open(&c->w, '{');
    ddbst__jw_key(&c->w, "text");
    ddbst__jw_strn(&c->w, c->tmp.data, c->tmp.len);
    ddbst__jw_close(&c->w, '}');
    rc = c->w.rc;
  } else if (!rc) {
    rc = ddbst__ffi_append(c, 0);
  }
  ddbst_migration_free(m);
  ddbst_model_free(old);
  return rc;
}

/* The request's "response" (a Scan answer of the whole table) parsed into
 * a new page, for the migration. */
static int read_page(call *c, const ddbst__jnode *req, ddbst_migration *m,
                     ddbst_scan **scan, ddbst_page **pg) {
  const char *body;
  size_t len;
  *scan = NULL;
  *pg = NULL;
  if (ddbst__ffi_get_string(c, req, "response", 1, &body, &len))
    return c->err.code;
  *scan = ddbst_scan_new(c->m);
  *pg = *scan ? ddbst_page_new(c->m) : NULL;
  if (!*pg) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  /* the answer is to a Scan of the whole table: the page checks it so */
  int rc = ddbst_scan_request(*scan, 0, 0, NULL, 0, NULL, DDBST_NOW, &c->tmp,
                              &c->err);
  if (rc >= 0) rc = ddbst_page_parse_scan(*pg, *scan, body, len, &c->err);
  if (rc < 0) return ddbst__ffi_prefix_path(c, "response");
  rc = ddbst_migration_page(m, *pg, &c->err);
  return rc < 0 ? rc : 0;
}

static const char *const outcome_names[] = {"",        "write",   "skip",
                                            "guard",   "refused", "foreign"};

/* {"op":"migrateStep",...,"response":"<Scan answer>"}:
 * {"items":[{"index":0,"outcome":"write","operation":"UpdateItem",
 *  "target":"...","body":{...}},{"index":1,"outcome":"skip"},
 *  {"index":2,"outcome":"refused","report":{...}}],"writes":1,...} */
int ddbst__ffi_op_migrate_step(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "migrateStep", page_fields)) return c->err.code;
  ddbst_model *old = NULL;
  ddbst_migration *m = NULL;
  ddbst_scan *scan = NULL;
  ddbst_page *pg = NULL;
  int rc = open_migration(c, req, &old, &m);
  if (!rc) rc = read_page(c, req, m, &scan, &pg);
  int counts[6] = {0};
  ddbst__jw *w = &c->w;
  if (!rc) {
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "items");
    ddbst__jw_open(w, '[');
    int op, r = 0;
    while (!w->rc && (r = ddbst_migration_next(m, &op, &c->tmp, &c->err)) > 0) {
      counts[r]++;
      if (r == DDBST_MIGRATE_WRITE) {
        ddbst__ffi_open_request(c, op);
      } else {
        ddbst__jw_open(w, '{');
        if (ddbst_buf_len(&c->tmp)) {
          ddbst__jw_key(w, "report");
          ddbst__jw_json(w, c->tmp.data, c->tmp.len);
        }
      }
      ddbst__jw_key(w, "index");
      ddbst__jw_int(w, ddbst_migration_item_index(m));
      ddbst__jw_pair(w, "outcome", outcome_names[r]);
      ddbst__jw_close(w, '}');
      rc = 0;
    }
    if (!w->rc && r < 0) rc = r;
    ddbst__jw_close(w, ']');
    static const char *const totals[] = {"", "writes", "skipped", "guards",
                                         "refused", "foreign"};
    for (int k = 1; k <= 5; k++) {
      ddbst__jw_key(w, totals[k]);
      ddbst__jw_int(w, counts[k]);
    }
    ddbst__jw_close(w, '}');
    if (!rc) rc = w->rc;
  }
  ddbst_page_free(pg);
  ddbst_scan_free(scan);
  ddbst_migration_free(m);
  ddbst_model_free(old);
  return rc;
}

/* {"op":"migrateVerify",...,"response":"<Scan answer>"}:
 * {"problems":[{"key":{...},"entity":"Post","problem":"..."}],"count":1} */
int ddbst__ffi_op_migrate_verify(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "migrateVerify", page_fields))
    return c->err.code;
  ddbst_model *old = NULL;
  ddbst_migration *m = NULL;
  ddbst_scan *scan = NULL;
  ddbst_page *pg = NULL;
  int rc = open_migration(c, req, &old, &m);
  if (!rc) rc = read_page(c, req, m, &scan, &pg);
  int n = rc ? rc : ddbst_migration_verify(m, pg, &c->tmp, &c->err);
  if (n >= 0) {
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "problems");
    ddbst__jw_open(w, '[');
    /* one JSON object a line: the lines are the array's elements */
    const char *p = c->tmp.data, *end = p ? p + c->tmp.len : p;
    while (p && p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      if (!nl) nl = end;
      ddbst__jw_json(w, p, (size_t)(nl - p));
      p = nl + 1;
    }
    ddbst__jw_close(w, ']');
    ddbst__jw_key(w, "count");
    ddbst__jw_int(w, n);
    ddbst__jw_close(w, '}');
    rc = w->rc;
  } else {
    rc = n;
  }
  ddbst_page_free(pg);
  ddbst_scan_free(scan);
  ddbst_migration_free(m);
  ddbst_model_free(old);
  return rc;
}

/* {"op":"migrateWrite",...,"write":"create"|"put"|"delete","entity",
 * "values","now"}: the writer protocol's request for a write under the new
 * model during the migration (ddbst_migration_write_request), and whether
 * the entity moves: {"operation","target","body","moves":true}. */
int ddbst__ffi_op_migrate_write(call *c, const ddbst__jnode *req) {
  static const char *const fields[] = {"op",     "old",    "oldFile",
                                       "oldTable", "unsafe", "write",
                                       "entity", "values", "now",
                                       NULL};
  if (ddbst__ffi_only(c, req, "migrateWrite", fields)) return c->err.code;
  const char *write;
  if (ddbst__ffi_get_string(c, req, "write", 1, &write, NULL))
    return c->err.code;
  int op = !strcmp(write, "delete") ? DDBST_OP_DELETE_ITEM
                                    : DDBST_OP_PUT_ITEM;
  uint32_t flags = !strcmp(write, "create") ? DDBST_CREATE : 0;
  if (strcmp(write, "delete") && strcmp(write, "create") &&
      strcmp(write, "put"))
    return ddbst__ffi_fail(c, DDBST_EINVAL, "write",
                           "write %s: expected \"create\", \"put\" or "
                           "\"delete\" (an update is the new model's own, "
                           "see docs/evolution.md)",
                           write);
  int rc;
  int64_t now = ddbst__ffi_now_of(c, req, &rc);
  if (rc) return rc;
  ddbst_model *old = NULL;
  ddbst_migration *m = NULL;
  ddbst_item *it = NULL;
  rc = open_migration(c, req, &old, &m);
  if (!rc) rc = ddbst__ffi_read_item(c, req, &it);
  if (!rc) {
    rc = ddbst_migration_write_request(m, it, op, flags,
                                       op == DDBST_OP_DELETE_ITEM ? 0 : now,
                                       &c->tmp, &c->err);
    if (rc >= 0) {
      ddbst__ffi_open_request(c, rc);
      ddbst__jw_key(&c->w, "moves");
      ddbst__jw_bool(&c->w, ddbst_migration_moves(
                                m, ddbst_model_entity_name(c->m,
                                                           ddbst_item_entity(it))) == 1);
      ddbst__jw_close(&c->w, '}');
      rc = c->w.rc;
    }
  }
  ddbst__ffi_item_free(c, it);
  ddbst_migration_free(m);
  ddbst_model_free(old);
  return rc;
}
