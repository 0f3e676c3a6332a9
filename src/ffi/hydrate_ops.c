/* "hydrate": a projected index's Query answer into the BatchGetItem
 * requests of its full items, and — given the answers to them — the full
 * items in the page's order. The entry keeps no state between calls, so the
 * answers come back in one call, each with the request (chunk) it answers. */
#include <stdio.h>

#include "ffi/ffi.h"

/* The attributes to read: a list of names, or none (whole items). */
static int attribute_list(call *c, const ddbst__jnode *req,
                          const char ***names, size_t *n) {
  const ddbst__jnode *v = ddbst__jobj_get(req, "attributes");
  *names = NULL;
  *n = 0;
  if (!v || v->type == DDBST__J_NULL) return 0;
  if (v->type != DDBST__J_ARRAY)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "attributes",
                           "expected a list of attribute names");
  *names = ddbst__arena_alloc(&c->ar, (v->count ? v->count : 1) * sizeof **names);
  if (!*names) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  for (size_t i = 0; i < v->count; i++) {
    if (v->items[i]->type != DDBST__J_STRING) {
      char path[48];
      snprintf(path, sizeof path, "attributes[%zu]", i);
      return ddbst__ffi_fail(c, DDBST_EINVAL, path, "expected a name");
    }
    (*names)[i] = v->items[i]->text;
  }
  *n = v->count;
  return 0;
}

/* Reads answers[i], {"chunk":k,"response":"<body>"}, into the hydrator. */
static int read_answer(call *c, ddbst_hydrate *h, ddbst_page *answer,
                       const ddbst__jnode *a) {
  static const char *const f[] = {"chunk", "response", NULL};
  const char *body;
  size_t len;
  int given;
  int64_t chunk;
  if (a->type != DDBST__J_OBJECT)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "",
                           "expected {\"chunk\": <request>, \"response\": "
                           "\"<BatchGetItem answer>\"}");
  if (ddbst__ffi_only(c, a, "answer", f) ||
      ddbst__ffi_get_int(c, a, "chunk", 0, INT32_MAX, &given, &chunk) ||
      ddbst__ffi_get_string(c, a, "response", 1, &body, &len))
    return c->err.code;
  if (!given)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "chunk",
                           "missing: the request this answers");
  int rc = ddbst_page_parse(answer, DDBST_OP_BATCH_GET_ITEM, body, len, &c->err);
  if (rc >= 0) rc = ddbst_hydrate_read(h, (int)chunk, answer, &c->err);
  return rc < 0 ? rc : 0;
}

/* "missing":[i,...] or "pending":[...]: the page's items in those states. */
static void indices(call *c, ddbst_hydrate *h, const char *key, int a, int b) {
  ddbst__jw *w = &c->w;
  ddbst__jw_key(w, key);
  ddbst__jw_open(w, '[');
  for (int i = 0; i < ddbst_page_count(ddbst_hydrate_page(h)); i++) {
    int s = ddbst_hydrate_state(h, i);
    if (s == a || s == b) ddbst__jw_int(w, i);
  }
  ddbst__jw_close(w, ']');
}

int ddbst__ffi_op_hydrate(call *c, const ddbst__jnode *req) {
  static const char *const f[] = {"op",         "response", "attributes",
                                  "consistent", "answers",  NULL};
  if (ddbst__ffi_only(c, req, "hydrate", f)) return c->err.code;
  const char *body;
  size_t len, nnames;
  const char **names;
  int consistent = 0;
  if (ddbst__ffi_get_string(c, req, "response", 1, &body, &len) ||
      ddbst__ffi_get_bool(c, req, "consistent", &consistent) ||
      attribute_list(c, req, &names, &nnames))
    return c->err.code;
  const ddbst__jnode *answers = ddbst__jobj_get(req, "answers");
  if (answers && answers->type != DDBST__J_NULL &&
      answers->type != DDBST__J_ARRAY)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "answers",
                           "expected a list of {\"chunk\", \"response\"}");
  ddbst_page *page = ddbst_page_new(c->m);
  ddbst_page *answer = ddbst_page_new(c->m);
  ddbst_hydrate *h = ddbst_hydrate_new(c->m);
  int rc = page && answer && h ? 0 : ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
  if (!rc) {
    rc = ddbst_page_parse(page, DDBST_OP_QUERY, body, len, &c->err);
    if (rc < 0) ddbst__ffi_prefix_path(c, "response");
  }
  int chunks = rc < 0 ? rc : ddbst_hydrate_begin(h, page, names, nnames, &c->err);
  rc = chunks < 0 ? chunks : 0;
  for (size_t i = 0; !rc && answers && answers->type == DDBST__J_ARRAY &&
                     i < answers->count;
       i++) {
    rc = read_answer(c, h, answer, answers->items[i]);
    if (rc) {
      char prefix[48];
      snprintf(prefix, sizeof prefix, "answers[%zu]", i);
      ddbst__ffi_prefix_path(c, prefix);
    }
  }
  ddbst__jw *w = &c->w;
  if (!rc) {
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "requests");
    ddbst__jw_open(w, '[');
    for (int k = 0; k < chunks && !w->rc; k++) {
      int op = ddbst_hydrate_request(h, k, consistent ? DDBST_CONSISTENT_READ : 0,
                                     &c->tmp, &c->err);
      if (ddbst__jw_status(w, op < 0 ? op : 0)) break;
      ddbst__ffi_open_request(c, op);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
    if (answers && answers->type == DDBST__J_ARRAY) {
      const ddbst_page *full = ddbst_hydrate_page(h);
      ddbst__jw_key(w, "items");
      ddbst__jw_open(w, '[');
      for (int i = 0; i < ddbst_page_count(full); i++)
        if (ddbst__jw_value(w))
          ddbst__jw_status(w, ddbst_page_item_json_append(full, i, w->b,
                                                          &c->err));
      ddbst__jw_close(w, ']');
      indices(c, h, "missing", DDBST_HYDRATE_MISSING, DDBST_HYDRATE_MISSING);
      indices(c, h, "pending", DDBST_HYDRATE_UNREAD, DDBST_HYDRATE_UNPROCESSED);
    }
    ddbst__jw_close(w, '}');
    rc = w->rc;
  }
  ddbst_hydrate_free(h);
  ddbst_page_free(answer);
  ddbst_page_free(page);
  return rc;
}
