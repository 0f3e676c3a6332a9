/* Pieces every answer of the JSON entry is made of: an item's values as
 * plain JSON typed by the model, and a request as operation, target and
 * body. */
#include <stdio.h>
#include <string.h>

#include "ffi/ffi.h"

static const char *code_name(int code) {
  switch (code) {
  case DDBST_EINVAL: return "EINVAL";
  case DDBST_ENOMEM: return "ENOMEM";
  case DDBST_ESYNTAX: return "ESYNTAX";
  case DDBST_EMODEL: return "EMODEL";
  case DDBST_EVALUE: return "EVALUE";
  case DDBST_EMISSING: return "EMISSING";
  case DDBST_ENOTFOUND: return "ENOTFOUND";
  case DDBST_ERANGE: return "ERANGE";
  case DDBST_EIO: return "EIO";
  case DDBST_ENOSPC: return "ENOSPC";
  case DDBST_ECURSOR: return "ECURSOR";
  case DDBST_EDYNAMODB: return "EDYNAMODB";
  default: return "EUNKNOWN";
  }
}

void ddbst__ffi_put_error(ddbst__jw *w, const ddbst_error *e) {
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "code");
  ddbst__jw_int(w, e->code);
  ddbst__jw_pair(w, "name", code_name(e->code));
  ddbst__jw_pair(w, "path", e->path);
  ddbst__jw_pair(w, "message", e->message);
  if (e->line) {
    ddbst__jw_key(w, "offset");
    ddbst__jw_int(w, (long long)e->offset);
    ddbst__jw_key(w, "line");
    ddbst__jw_int(w, e->line);
    ddbst__jw_key(w, "column");
    ddbst__jw_int(w, e->column);
  }
  ddbst__jw_close(w, '}');
}

/* A JSON value back to text, for list, map and set attributes. */
void ddbst__ffi_write_json(ddbst__jw *w, const ddbst__jnode *v) {
  ddbst__jtree_write(w, v);
}

/* DynamoDB JSON (as ddbst_item_get gives lists, maps and sets) as plain
 * JSON: {"L":[{"N":"1"}]} → [1]. 0, or -1 for a value of another shape.
 * ddbst wrote the value (from plain JSON, or from a response its parser
 * checked), but this writer reads it again and trusts nothing: a map's
 * member names read from an array would be NULL. */
static int write_plain(ddbst__jw *w, const ddbst__jnode *av) {
  if (av->type != DDBST__J_OBJECT || av->count != 1) return -1;
  const char *t = av->keys[0];
  const ddbst__jnode *v = av->items[0];
  if (!strcmp(t, "N") || !strcmp(t, "S") || !strcmp(t, "B")) {
    if (v->type != DDBST__J_STRING) return -1;
    if (t[0] == 'N')
      ddbst__jw_number(w, v->text, v->len);
    else
      ddbst__jw_strn(w, v->text, v->len);
  } else if (!strcmp(t, "BOOL")) {
    if (v->type != DDBST__J_BOOL) return -1;
    ddbst__ffi_write_json(w, v);
  } else if (!strcmp(t, "NULL")) {
    ddbst__jw_null(w);
  } else if (!strcmp(t, "SS") || !strcmp(t, "NS") || !strcmp(t, "BS")) {
    if (v->type != DDBST__J_ARRAY) return -1;
    ddbst__jw_open(w, '[');
    for (size_t i = 0; i < v->count; i++) {
      const ddbst__jnode *e = v->items[i];
      if (e->type != DDBST__J_STRING) return -1;
      if (t[0] == 'N')
        ddbst__jw_number(w, e->text, e->len);
      else
        ddbst__jw_strn(w, e->text, e->len);
    }
    ddbst__jw_close(w, ']');
  } else if (!strcmp(t, "M") || !strcmp(t, "L")) {
    int is_map = t[0] == 'M';
    if (v->type != (is_map ? DDBST__J_OBJECT : DDBST__J_ARRAY)) return -1;
    ddbst__jw_open(w, is_map ? '{' : '[');
    for (size_t i = 0; i < v->count; i++) {
      if (is_map) ddbst__jw_keyn(w, v->keys[i], v->key_lens[i]);
      if (write_plain(w, v->items[i])) return -1;
    }
    ddbst__jw_close(w, is_map ? '}' : ']');
  } else {
    return -1;
  }
  return 0;
}

/* The item's values as a JSON object typed by the model: numbers and
 * booleans bare, lists, maps and sets as plain JSON, the rest strings. */
void ddbst__ffi_put_values(call *c, const ddbst_item *it) {
  ddbst__jw *w = &c->w;
  int entity = ddbst_item_entity(it);
  ddbst__jw_open(w, '{');
  for (int a = 0; a < ddbst_model_attribute_count(c->m, entity) && !w->rc;
       a++) {
    const char *v, *type = ddbst_model_attribute_type(c->m, entity, a);
    size_t n;
    if (ddbst_item_get(it, a, &v, &n) != 1) continue;
    ddbst__jw_key(w, ddbst_model_attribute_name(c->m, entity, a));
    if (ddbst__ffi_is_numeric(type)) {
      ddbst__jw_number(w, v, n);
    } else if (!strcmp(type, "boolean")) {
      ddbst__jw_json(w, v, n);
    } else if (ddbst__ffi_is_document(type)) { /* held as DynamoDB JSON */
      /* the request's parse is done: its kept arrays serve this one */
      ddbst__jnode *av;
      if (!ddbst__jw_status(w, ddbst__jtree_parse_kept(&c->ar, &c->tree, v, n,
                                                       &av, &c->err)) &&
          write_plain(w, av))
        ddbst__jw_status(
            w, ddbst__fail(&c->err, DDBST_EINVAL,
                           ddbst_model_attribute_name(c->m, entity, a),
                           "not DynamoDB JSON of the shape ddbst writes (a "
                           "bug in ddbst)"));
    } else {
      ddbst__jw_strn(w, v, n);
    }
  }
  ddbst__jw_close(w, '}');
}

/* {"operation":"PutItem","target":"DynamoDB_20120810.PutItem","body":...
 * with the body in c->tmp; the object stays open for the caller's members
 * and its '}'. */
void ddbst__ffi_open_request(call *c, int op) {
  ddbst__jw *w = &c->w;
  const char *name = ddbst_operation_name(op);
  char target[64];
  snprintf(target, sizeof target, "DynamoDB_20120810.%s", name);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "operation", name);
  ddbst__jw_pair(w, "target", target);
  ddbst__jw_key(w, "body");
  ddbst__jw_json(w, c->tmp.data, c->tmp.len);
}

int ddbst__ffi_append(call *c, int rc) {
  if (rc < 0) return rc;
  if (ddbst__buf_append(c->w.b, c->tmp.data, c->tmp.len))
    return ddbst__fail(&c->err, DDBST_ENOMEM, "", "out of memory");
  return 0;
}
