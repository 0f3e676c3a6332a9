/* Prepared operations: the JSON entry's session with its values passed as
 * flat text instead of a JSON request, for bindings whose cost per call is
 * the JSON around it (Node through koffi: docs/performance.md, "Item 4,
 * second pass"). The operation and its entity or pattern are resolved
 * once; each run fills a reused item from the packed values and builds the
 * body into a reused buffer, so a warm run does not allocate. */
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "ffi/ffi.h"
#include "model/model.h"
#include "model/suggest.h"

struct ddbst_prepared {
  ddbst_allocator alloc;
  const ddbst_model *m;
  const ddbst_cursor_keys *keys;
  int op;         /* DDBST_OP_GET_ITEM, _PUT_ITEM, _UPDATE_ITEM,
                     _DELETE_ITEM or _QUERY */
  int pattern;    /* a query's, else -1 */
  uint32_t flags; /* the builder's */
  int attributes; /* how many segments `values` holds */
  ddbst_item *item;
  ddbst_buf body;
};

/* The flags each operation's builder takes. */
static uint32_t flags_allowed(int op) {
  switch (op) {
  case DDBST_OP_GET_ITEM: return DDBST_CONSISTENT_READ;
  case DDBST_OP_PUT_ITEM:
    return DDBST_CREATE | DDBST_RETURN_ALL_OLD | DDBST_RETURN_OLD_ON_FAILURE;
  case DDBST_OP_UPDATE_ITEM:
    return DDBST_UPSERT | DDBST_RETURN_MASK | DDBST_RETURN_OLD_ON_FAILURE;
  case DDBST_OP_DELETE_ITEM:
    return DDBST_IF_EXISTS | DDBST_RETURN_ALL_OLD |
           DDBST_RETURN_OLD_ON_FAILURE;
  default: return DDBST_CONSISTENT_READ | DDBST_QUERY_COUNT;
  }
}

/* The entity of `name` (an item operation) or of pattern `name`'s first
 * entity (a query), with the pattern in p->pattern. */
static int resolve(ddbst_prepared *p, const char *name, ddbst_error *err) {
  char tail[DDBST__TAIL_CAP];
  if (p->op != DDBST_OP_QUERY) {
    int e = ddbst_model_entity(p->m, name);
    if (e < 0)
      return ddbst__fail(err, DDBST_ENOTFOUND, "entity",
                         "the model has no entity %s%s", name,
                         ddbst__suggest_tail(ddbst__suggest_entity(p->m, name),
                                             tail, sizeof tail));
    return e;
  }
  p->pattern = ddbst_model_pattern(p->m, name);
  if (p->pattern < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND, "pattern",
                       "the model has no pattern %s%s", name,
                       ddbst__suggest_tail(ddbst__suggest_pattern(p->m, name),
                                           tail, sizeof tail));
  if (ddbst_model_pattern_is_query(p->m, p->pattern) != 1)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern %s is a get: prepare a get of its entity",
                       name);
  int e = ddbst_model_pattern_entity(p->m, p->pattern, 0);
  if (e < 0)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern %s reads no entity", name);
  return e;
}

ddbst_prepared *ddbst_prepared_new(const ddbst_json *session, int op,
                                   const char *name, uint32_t flags,
                                   ddbst_error *err) {
  if (!session) {
    ddbst__fail(err, DDBST_EINVAL, "session",
                "no session: open one with ddbst_json_open");
    return NULL;
  }
  if (op != DDBST_OP_GET_ITEM && op != DDBST_OP_PUT_ITEM &&
      op != DDBST_OP_UPDATE_ITEM && op != DDBST_OP_DELETE_ITEM &&
      op != DDBST_OP_QUERY) {
    ddbst__fail(err, DDBST_EINVAL, "op",
                "expected DDBST_OP_GET_ITEM, DDBST_OP_PUT_ITEM, "
                "DDBST_OP_UPDATE_ITEM, DDBST_OP_DELETE_ITEM or "
                "DDBST_OP_QUERY, not %d",
                op);
    return NULL;
  }
  if (flags & ~flags_allowed(op)) {
    ddbst__fail(err, DDBST_EINVAL, "flags", "flags 0x%x are not %s's",
                (unsigned)(flags & ~flags_allowed(op)),
                ddbst_operation_name(op));
    return NULL;
  }
  /* ReturnValues is one of four, not any bits of the mask */
  if ((flags & DDBST_RETURN_MASK) > DDBST_RETURN_UPDATED_NEW) {
    ddbst__fail(err, DDBST_EINVAL, "flags",
                "return flags 0x%x are none of DDBST_RETURN_ALL_OLD, "
                "_UPDATED_OLD, _ALL_NEW, _UPDATED_NEW",
                (unsigned)(flags & DDBST_RETURN_MASK));
    return NULL;
  }
  if (!name) {
    ddbst__fail(err, DDBST_EINVAL, op == DDBST_OP_QUERY ? "pattern" : "entity",
                "no name given");
    return NULL;
  }
  const ddbst_allocator *a = ddbst__json_alloc(session);
  ddbst_prepared *p = ddbst__malloc(a, sizeof *p);
  if (!p) {
    ddbst__fail(err, DDBST_ENOMEM, "", NULL);
    return NULL;
  }
  memset(p, 0, sizeof *p);
  p->alloc = *a;
  p->m = ddbst__json_model(session);
  p->keys = ddbst__json_keys(session);
  p->op = op;
  p->pattern = -1;
  p->flags = flags;
  ddbst__buf_init(&p->body, &p->alloc);
  int entity = resolve(p, name, err);
  if (entity >= 0) {
    p->attributes = ddbst_model_attribute_count(p->m, entity);
    p->item = ddbst_item_new(p->m, entity);
    if (!p->item) entity = ddbst__fail(err, DDBST_ENOMEM, "", NULL);
  }
  if (entity < 0) {
    ddbst_prepared_free(p);
    return NULL;
  }
  return p;
}

void ddbst_prepared_free(ddbst_prepared *p) {
  if (!p) return;
  ddbst_allocator a = p->alloc;
  ddbst_item_free(p->item);
  ddbst__buf_release(&p->body);
  ddbst__free(&a, p);
}

int ddbst_prepared_entity(const ddbst_prepared *p) {
  return p ? ddbst_item_entity(p->item) : DDBST_EINVAL;
}

int ddbst_prepared_version_attribute(const ddbst_prepared *p) {
  if (!p) return DDBST_EINVAL;
  return p->m->entities[ddbst_item_entity(p->item)].version_attr;
}

/* One segment's mark applied to attribute `a`: '=' sets it (any op); an
 * update also takes '-' (REMOVE, nothing after it), '+' (ADD: a number
 * delta or a set's elements), '>' (a list append) and, on the version
 * attribute, '?' (the version expected). */
static int apply_mark(ddbst_prepared *p, int a, const char *s, size_t n,
                      ddbst_error *err) {
  const char *text = s + 1;
  size_t len = n - 1;
  if (s[0] == '=') return ddbst_item_set(p->item, a, text, len, err);
  /* the rest is rarer: names looked up for their messages only here */
  int entity = ddbst_item_entity(p->item);
  const char *name = ddbst_model_attribute_name(p->m, entity, a);
  if (p->op != DDBST_OP_UPDATE_ITEM) {
    if (s[0] == '-' || s[0] == '+' || s[0] == '>' || s[0] == '?')
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "segment %d (%s): '%c' is an update's mark; %s "
                         "takes '=' or an empty segment",
                         a, name, s[0], ddbst_operation_name(p->op));
    return ddbst__fail(err, DDBST_EINVAL, "values",
                       "segment %d (%s) starts with neither '=' nor NUL", a,
                       name);
  }
  switch (s[0]) {
  case '-':
    if (len)
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "segment %d (%s): '-' (REMOVE) takes no text, "
                         "%zu bytes follow it",
                         a, name, len);
    return ddbst_item_remove(p->item, a);
  case '+': return ddbst_item_add(p->item, a, text, len, err);
  case '>': return ddbst_item_append(p->item, a, text, len, err);
  case '?': {
    /* versions count from 1, and the update stores the next one */
    char digits[24];
    char *end;
    if (!len || len >= sizeof digits)
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "segment %d (%s): '?' takes the expected version, "
                         "an integer from 1",
                         a, name);
    memcpy(digits, text, len);
    digits[len] = '\0';
    long long v = strtoll(digits, &end, 10);
    if (*end || digits[0] < '0' || digits[0] > '9')
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "segment %d (%s): '?' takes the expected version, "
                         "an integer from 1, not '%s'",
                         a, name, digits);
    if (p->m->entities[entity].version_attr != a)
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "segment %d (%s): '?' (the version expected) is "
                         "for %s's version attribute only",
                         a, name, ddbst_model_entity_name(p->m, entity));
    if (ddbst_item_expect_version(p->item, v))
      return ddbst__fail(err, DDBST_ERANGE, "values",
                         "segment %d (%s): version %s is outside 1 to "
                         "INT64_MAX - 1",
                         a, name, digits);
    return 0;
  }
  default:
    return ddbst__fail(err, DDBST_EINVAL, "values",
                       "segment %d (%s) starts with none of '=', '-', '+', "
                       "'>', '?' or NUL",
                       a, name);
  }
}

/* The packed values onto the (reset) item: one segment per attribute,
 * each to its NUL; "" leaves the attribute unset, a mark and its text
 * applies it (apply_mark). */
static int fill(ddbst_prepared *p, const char *values, size_t len,
                ddbst_error *err) {
  int bounded = len != DDBST_NUL_TERMINATED;
  if (!values) {
    if (bounded && len)
      return ddbst__fail(err, DDBST_EINVAL, "values", "NULL with a length");
    return 0;
  }
  const char *s = values, *end = bounded ? values + len : NULL;
  for (int a = 0; a < p->attributes; a++) {
    const char *nul = bounded ? memchr(s, '\0', (size_t)(end - s)) : NULL;
    if (bounded && !nul)
      return ddbst__fail(err, DDBST_EINVAL, "values",
                         "%d segments, each ending in NUL, expected; the "
                         "text ends in segment %d",
                         p->attributes, a);
    size_t n = bounded ? (size_t)(nul - s) : strlen(s);
    if (n) {
      int rc = apply_mark(p, a, s, n, err);
      if (rc) return rc;
    }
    s += n + 1;
  }
  if (bounded && s != end)
    return ddbst__fail(err, DDBST_EINVAL, "values",
                       "%zu bytes after the %d segments expected",
                       (size_t)(end - s), p->attributes);
  return 0;
}

int ddbst_prepared_run(ddbst_prepared *p, const char *values, size_t len,
                       uint32_t limit, const char *cursor, size_t cursor_len,
                       int64_t now_unix_us, ddbst_error *err) {
  if (!p) return ddbst__fail(err, DDBST_EINVAL, "prepared", "NULL");
  ddbst_buf_reset(&p->body);
  if (p->op != DDBST_OP_QUERY && (limit || cursor))
    return ddbst__fail(err, DDBST_EINVAL, limit ? "limit" : "cursor",
                       "only a query takes a limit and a cursor");
  int rc = ddbst_item_reset(p->item, ddbst_item_entity(p->item));
  rc = rc ? ddbst__fail(err, rc, "", NULL) : fill(p, values, len, err);
  if (rc) return rc;
  switch (p->op) {
  case DDBST_OP_GET_ITEM:
    return ddbst_get_request(p->item, p->flags, &p->body, err);
  case DDBST_OP_PUT_ITEM:
    return ddbst_put_request(p->item, p->flags, now_unix_us, &p->body, err);
  case DDBST_OP_UPDATE_ITEM:
    rc = ddbst_update_request(p->item, p->flags, now_unix_us, &p->body, err);
    /* segments carry no previous value: the message says so */
    if (rc < 0 && err) ddbst__ffi_name_previous(err, 1);
    return rc;
  case DDBST_OP_DELETE_ITEM:
    return ddbst_delete_request(p->item, p->flags, &p->body, err);
  default: {
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.flags = p->flags;
    q.limit = limit;
    q.cursor = cursor;
    q.cursor_len = cursor ? ddbst__len(cursor, cursor_len) : 0;
    q.cursor_keys = p->keys;
    q.now_unix_us = now_unix_us;
    rc = ddbst_query_request(p->item, p->pattern, &q, &p->body, err);
    /* the typed API's cursor_keys is the session's cursorKeys */
    if (rc < 0 && err && !strcmp(err->path, "cursor_keys"))
      memcpy(err->path, "cursorKeys", sizeof "cursorKeys");
    return rc;
  }
  }
}

const char *ddbst_prepared_body(const ddbst_prepared *p, size_t *len) {
  if (len) *len = p ? p->body.len : 0;
  return p && p->body.len ? p->body.data : "";
}
