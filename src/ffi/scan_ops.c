/* The JSON entry's scans: "scan" (a Scan body), "scanPage" (its answer:
 * every item, items of no entity too, and the next cursor) and "guards"
 * (the orphan-guard audit, replayed from the scan pages and the holders'
 * answers a caller has so far: the next request to send, or the
 * orphans). */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"
#include "request/scan.h"

static const char *const scan_fields[] = {
    "op",     "index",  "entities", "filter",  "params",   "project",
    "segment", "totalSegments", "limit", "consistent", "select", "cursor",
    "now",    "response", NULL};

/* ddbst_scan_request names its flags word; the request has a field for
 * each flag: "consistent" on a global index, else "select" COUNT with a
 * projection. */
static void flags_path(call *c, const ddbst_scan *s, int consistent) {
  if (strcmp(c->err.path, "flags") != 0) return;
  const ddbst__index *ix = s->index >= 0 ? &c->m->indexes[s->index] : NULL;
  snprintf(c->err.path, sizeof c->err.path, "%s",
           consistent && ix && !ix->local ? "consistent" : "select");
}

/* A scan as the request gives it (`req`'s scan fields), its body built
 * into c->tmp: the op, or an error in c->err. */
static int build_scan(call *c, const ddbst__jnode *req, ddbst_scan **out) {
  *out = NULL;
  ddbst_scan *s = ddbst_scan_new(c->m);
  if (!s) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  *out = s;
  const char *ix = NULL, *select = NULL, *cursor = NULL;
  size_t cursor_len = 0;
  int given, consistent = 0, seg_given = 0, total_given = 0;
  int64_t segment = 0, total = 0, limit = 0, now = 0;
  int rc = ddbst__ffi_get_string(c, req, "index", 0, &ix, NULL);
  if (!rc && ix && ddbst_scan_index(s, ix, &c->err)) rc = c->err.code;
  const ddbst__jnode *ents = ddbst__jobj_get(req, "entities");
  int one = -1;
  if (!rc && ents && ents->type != DDBST__J_NULL) {
    if (ents->type != DDBST__J_ARRAY)
      rc = ddbst__ffi_fail(c, DDBST_EINVAL, "entities",
                           "expected an array of entity names");
    for (size_t i = 0; !rc && i < ents->count; i++) {
      const ddbst__jnode *e = ents->items[i];
      int x = e->type == DDBST__J_STRING ? ddbst_model_entity(c->m, e->text)
                                         : DDBST_ENOTFOUND;
      if (x < 0)
        rc = ddbst__ffi_fail(c, DDBST_ENOTFOUND, "entities",
                             "the model has no entity %s",
                             e->type == DDBST__J_STRING ? e->text : "(not a name)");
      else if (ddbst_scan_entity(s, x, &c->err))
        rc = c->err.code;
      one = ents->count == 1 ? x : -1;
    }
  }
  ddbst_expr *filter = NULL;
  if (!rc && ddbst__jobj_get(req, "filter") &&
      ddbst__jobj_get(req, "filter")->type != DDBST__J_NULL && one < 0)
    rc = ddbst__ffi_fail(c, DDBST_EINVAL, "filter",
                         "a filter reads one entity's attributes: give that "
                         "entity alone in \"entities\"");
  rc = rc ? rc
          : ddbst__ffi_read_expr(c, req, "filter", one, DDBST_EXPR_FILTER,
                                 &filter);
  if (!rc && filter && ddbst_scan_filter(s, filter, &c->err)) rc = c->err.code;
  rc = rc ? rc : ddbst__ffi_read_params(c, s->it, req);
  const ddbst__jnode *proj = ddbst__jobj_get(req, "project");
  if (!rc && proj && proj->type != DDBST__J_NULL) {
    if (proj->type != DDBST__J_ARRAY)
      rc = ddbst__ffi_fail(c, DDBST_EINVAL, "project",
                           "expected an array of attribute names");
    for (size_t i = 0; !rc && i < proj->count; i++)
      if (proj->items[i]->type != DDBST__J_STRING)
        rc = ddbst__ffi_fail(c, DDBST_EINVAL, "project",
                             "expected an array of attribute names");
      else if (ddbst_scan_project(s, proj->items[i]->text, &c->err))
        rc = c->err.code;
  }
  rc = rc ? rc
          : ddbst__ffi_get_int(c, req, "segment", 0, 999999, &seg_given,
                               &segment);
  rc = rc ? rc
          : ddbst__ffi_get_int(c, req, "totalSegments", 1, 1000000,
                               &total_given, &total);
  if (!rc && seg_given != total_given)
    rc = ddbst__ffi_fail(c, DDBST_EINVAL,
                         seg_given ? "totalSegments" : "segment",
                         "a parallel scan gives segment and totalSegments");
  if (!rc && total_given &&
      ddbst_scan_segment(s, (uint32_t)segment, (uint32_t)total, &c->err))
    rc = c->err.code;
  rc = rc ? rc
          : ddbst__ffi_get_int(c, req, "limit", 1, UINT32_MAX, &given, &limit);
  rc = rc ? rc : ddbst__ffi_get_int(c, req, "now", 0, INT64_MAX, &given, &now);
  rc = rc ? rc : ddbst__ffi_get_bool(c, req, "consistent", &consistent);
  rc = rc ? rc : ddbst__ffi_get_string(c, req, "select", 0, &select, NULL);
  if (!rc && select && strcmp(select, "COUNT") && strcmp(select, "ALL"))
    rc = ddbst__ffi_fail(c, DDBST_EINVAL, "select",
                         "expected COUNT (the number of items, not the "
                         "items) or ALL");
  rc = rc ? rc
          : ddbst__ffi_get_string(c, req, "cursor", 0, &cursor, &cursor_len);
  uint32_t flags = (consistent ? DDBST_CONSISTENT_READ : 0) |
                   (select && !strcmp(select, "COUNT") ? DDBST_QUERY_COUNT : 0);
  int op = rc ? rc
              : ddbst_scan_request(s, flags, (uint32_t)limit, cursor,
                                   cursor_len, c->keys, now, &c->tmp, &c->err);
  if (op < 0) {
    ddbst_expr_free(filter);
    ddbst__ffi_keys_path(c);
    flags_path(c, s, consistent);
    return op;
  }
  s->filter = NULL; /* the body is built; nothing reads the filter again */
  ddbst_expr_free(filter);
  return op;
}

int ddbst__ffi_op_scan(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "scan", scan_fields)) return c->err.code;
  if (ddbst__jobj_get(req, "response"))
    return ddbst__ffi_fail(c, DDBST_EINVAL, "response",
                           "a scan's answer goes to \"scanPage\"");
  ddbst_scan *s;
  int op = build_scan(c, req, &s);
  if (op >= 0) {
    ddbst__ffi_open_request(c, op);
    ddbst__jw_close(&c->w, '}');
    op = c->w.rc;
  }
  ddbst_scan_free(s);
  return op < 0 ? op : 0;
}

int ddbst__ffi_op_scan_page(call *c, const ddbst__jnode *req) {
  if (ddbst__ffi_only(c, req, "scanPage", scan_fields)) return c->err.code;
  const char *body;
  size_t len;
  int given;
  int64_t now = 0;
  if (ddbst__ffi_get_string(c, req, "response", 1, &body, &len) ||
      ddbst__ffi_get_int(c, req, "now", 0, INT64_MAX, &given, &now))
    return c->err.code;
  ddbst_scan *s;
  int rc = build_scan(c, req, &s);
  ddbst_page *pg = rc < 0 ? NULL : ddbst_page_new(c->m);
  if (rc >= 0 && !pg) rc = ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  int n = rc < 0 ? rc : ddbst_page_parse_scan(pg, s, body, len, &c->err);
  ddbst__jw *w = &c->w;
  if (n < 0) {
    rc = n;
  } else {
    ddbst__jw_open(w, '{');
    ddbst__ffi_page_members(c, pg, n, 1);
    if (!w->rc && ddbst_page_has_more(pg))
      ddbst__ffi_page_cursor(c, pg, given ? now : DDBST_NOW);
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst_page_free(pg);
  ddbst_scan_free(s);
  return rc < 0 ? rc : 0;
}

/* An array of strings in `field` (required): its nodes. */
static int strings(call *c, const ddbst__jnode *req, const char *field,
                   int required, const ddbst__jnode **out) {
  const ddbst__jnode *v = ddbst__jobj_get(req, field);
  *out = NULL;
  if (!v || v->type == DDBST__J_NULL) {
    if (!required) return 0;
    return ddbst__ffi_fail(c, DDBST_EMISSING, field, "%s is required", field);
  }
  for (size_t i = 0; v->type == DDBST__J_ARRAY && i < v->count; i++)
    if (v->items[i]->type != DDBST__J_STRING) v = NULL;
  if (!v || v->type != DDBST__J_ARRAY)
    return ddbst__ffi_fail(c, DDBST_EINVAL, field,
                           "expected an array of DynamoDB answers (strings)");
  *out = v;
  return 0;
}

int ddbst__ffi_op_guards(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op", "pages", "holders", NULL};
  if (ddbst__ffi_only(c, req, "guards", f)) return c->err.code;
  const ddbst__jnode *pages, *holders;
  if (strings(c, req, "pages", 1, &pages) ||
      strings(c, req, "holders", 0, &holders))
    return c->err.code;
  ddbst_scan *s = ddbst_scan_new(c->m);
  ddbst_page *pg = ddbst_page_new(c->m);
  ddbst_guard_audit *a = ddbst_guard_audit_new(c->m);
  int rc = s && pg && a ? 0 : ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  /* the pages of any scan: their items are read, not their cursors */
  if (!rc && ddbst_scan_request(s, 0, 0, NULL, 0, c->keys, 0, &c->tmp, &c->err) < 0)
    rc = c->err.code;
  char path[64];
  for (size_t i = 0; !rc && i < pages->count; i++) {
    const ddbst__jnode *p = pages->items[i];
    if (ddbst_page_parse_scan(pg, s, p->text, p->len, &c->err) < 0 ||
        ddbst_guard_audit_add(a, pg, &c->err) < 0) {
      snprintf(path, sizeof path, "pages[%zu]", i);
      rc = ddbst__ffi_prefix_path(c, path);
    }
  }
  /* the holders' answers, each to the request the audit built before it */
  int op = 0;
  size_t nh = holders ? holders->count : 0;
  for (size_t i = 0; !rc; i++) {
    op = ddbst_guard_audit_request(a, &c->tmp, &c->err);
    if (op < 0) rc = op;
    if (op <= 0 || i == nh) break;
    const ddbst__jnode *h = holders->items[i];
    if (ddbst_guard_audit_answer(a, h->text, h->len, &c->err) < 0) {
      snprintf(path, sizeof path, "holders[%zu]", i);
      rc = ddbst__ffi_prefix_path(c, path);
    }
  }
  ddbst__jw *w = &c->w;
  if (!rc && op > 0) {
    /* {"request":{operation,target,body}}: send it, then call again with
     * its answer appended to "holders" */
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "request");
    ddbst__ffi_open_request(c, op);
    ddbst__jw_close(w, '}');
    ddbst__jw_close(w, '}');
    rc = w->rc;
  } else if (!rc) {
    rc = ddbst_guard_audit_json(a, &c->tmp, &c->err);
    if (!rc) ddbst__jw_raw(w, c->tmp.data, c->tmp.len);
    rc = rc ? rc : w->rc;
  }
  ddbst_guard_audit_free(a);
  ddbst_page_free(pg);
  ddbst_scan_free(s);
  return rc;
}
