/* Values by attribute name, and a whole item from a JSON object: the rules
 * the JSON entry's "values" reads by (src/ffi calls the same code), so a C
 * caller and a binding are refused alike. The index forms (item.c) stay the
 * fast path; these look the name up first. */
#include <stdio.h>
#include <string.h>

#include "item/item.h"
#include "item/item_named.h"
#include "base/suggest.h"
#include "json/jw.h"
#include "model/suggest.h"

int ddbst__item_attribute_named(const ddbst_item *it, const char *field,
                                const char *name, ddbst_error *err) {
  const ddbst__entity *ent = ddbst__entity_of(it);
  /* the first byte before a call to strcmp: most names differ there */
  for (int i = 0; i < ent->nattrs; i++)
    if (ent->attrs[i].name[0] == name[0] &&
        strcmp(ent->attrs[i].name, name) == 0)
      return i;
  char path[DDBST_ERROR_PATH_MAX];
  if (!field)
    snprintf(path, sizeof path, "%s.%s", ent->name, name);
  else if (field[0])
    snprintf(path, sizeof path, "%s.%s", field, name);
  else
    snprintf(path, sizeof path, "%s", name);
  char tail[DDBST__TAIL_CAP];
  return ddbst__fail(
      err, DDBST_ENOTFOUND, path, "%s has no attribute %s%s", ent->name, name,
      ddbst__suggest_tail(ddbst__suggest_attribute(ent, name), tail,
                          sizeof tail));
}

static int named(const ddbst_item *it, const char *name, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  if (!name) return ddbst__fail(err, DDBST_EINVAL, NULL, "name is NULL");
  return ddbst__item_attribute_named(it, NULL, name, err);
}

int ddbst_item_set_by_name(ddbst_item *it, const char *name, const char *text,
                           size_t len, ddbst_error *err) {
  int a = named(it, name, err);
  return a < 0 ? a : ddbst_item_set(it, a, text, len, err);
}

int ddbst_item_set_int_by_name(ddbst_item *it, const char *name,
                               int64_t value, ddbst_error *err) {
  int a = named(it, name, err);
  return a < 0 ? a : ddbst_item_set_int(it, a, value, err);
}

int ddbst_item_set_bool_by_name(ddbst_item *it, const char *name, int value,
                                ddbst_error *err) {
  int a = named(it, name, err);
  return a < 0 ? a : ddbst_item_set_bool(it, a, value, err);
}

int ddbst_item_get_by_name(const ddbst_item *it, const char *name,
                           const char **text, size_t *len) {
  if (!it || !name) return DDBST_EINVAL;
  int a = ddbst__item_attribute_named(it, NULL, name, NULL);
  return a < 0 ? a : ddbst_item_get(it, a, text, len);
}

/* ---- a whole object of values ---- */

static int is_numeric(ddbst__type t) {
  return t == DDBST__T_INTEGER || t == DDBST__T_NUMBER || t == DDBST__T_TTL;
}

/* "field.name" (or "name"), into `path`: the path of a refused value. */
static const char *value_path(char path[DDBST_ERROR_PATH_MAX],
                              const char *field, const char *name) {
  if (field && field[0])
    snprintf(path, DDBST_ERROR_PATH_MAX, "%s.%s", field, name);
  else
    snprintf(path, DDBST_ERROR_PATH_MAX, "%s", name);
  return path;
}

int ddbst__item_apply_json(ddbst_item *it, const ddbst__jnode *obj,
                           const char *field, ddbst__item_setter fn,
                           ddbst_buf *tmp, ddbst_error *err) {
  if (!obj || obj->type == DDBST__J_NULL) return 0;
  if (obj->type != DDBST__J_OBJECT)
    return ddbst__fail(err, DDBST_EINVAL, field,
                       "expected an object of attributes");
  for (size_t i = 0; i < obj->count; i++) {
    const ddbst__jnode *v = obj->items[i];
    int a = ddbst__item_attribute_named(it, field, obj->keys[i], err);
    if (a < 0) return a;
    const ddbst__attr *at = &it->attrs[a];
    const char *type = ddbst__type_name(at->type);
    char path[DDBST_ERROR_PATH_MAX]; /* written only for an error */
    const char *text = v->text;
    size_t n = v->len;
    if (v->type == DDBST__J_NULL) continue;
    if (v->type == DDBST__J_NUMBER && !is_numeric(at->type))
      return ddbst__fail(err, DDBST_EVALUE, value_path(path, field, obj->keys[i]),
                         "%s is of type %s: give it as a JSON string",
                         obj->keys[i], type);
    if (v->type == DDBST__J_BOOL) {
      if (at->type != DDBST__T_BOOLEAN)
        return ddbst__fail(err, DDBST_EVALUE,
                           value_path(path, field, obj->keys[i]),
                           "%s is of type %s, not boolean", obj->keys[i],
                           type);
      text = v->boolean ? "true" : "false";
      n = strlen(text);
    } else if (v->type == DDBST__J_ARRAY || v->type == DDBST__J_OBJECT) {
      ddbst__jw json;
      ddbst_buf_reset(tmp);
      ddbst__jw_init(&json, tmp);
      ddbst__jtree_write(&json, v);
      if (json.rc) return ddbst__fail(err, DDBST_ENOMEM, "", "out of memory");
      text = tmp->data;
      n = tmp->len;
    }
    if (fn(it, a, text, n, err)) return err ? err->code : DDBST_EVALUE;
  }
  return 0;
}

static int item_set(ddbst_item *it, int a, const char *t, size_t n,
                    ddbst_error *e) {
  return ddbst_item_set(it, a, t, n, e);
}

int ddbst_item_set_json(ddbst_item *it, const char *json, size_t len,
                        ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  if (!json && len)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "json is NULL");
  len = ddbst__len(json, len);
  const ddbst_allocator *alloc = &it->text.alloc;
  ddbst__arena ar;
  ddbst__arena_init(&ar, alloc);
  ddbst__jnode *root = NULL;
  ddbst_error local;
  ddbst_error *e = err ? err : &local;
  int rc = ddbst__jtree_parse(&ar, json ? json : "", len, &root, e);
  if (!rc && root->type != DDBST__J_OBJECT)
    rc = ddbst__fail(e, DDBST_EINVAL, "", "expected a JSON object of values");
  /* all or nothing: the values as they were, restored on a refusal (the
   * text buffer only grows, so the old values are still in it) */
  ddbst__val *saved = NULL;
  size_t text_len = it->text.len;
  int nkeys = it->nkeys;
  if (!rc) {
    saved = ddbst__arena_alloc(&ar, sizeof *saved * (size_t)it->nattrs + 1);
    if (!saved) rc = ddbst__fail(e, DDBST_ENOMEM, "", "out of memory");
  }
  ddbst_buf tmp;
  ddbst__buf_init(&tmp, alloc);
  if (!rc) {
    memcpy(saved, it->vals, sizeof *saved * (size_t)it->nattrs);
    rc = ddbst__item_apply_json(it, root, "", item_set, &tmp, e);
    if (rc) {
      memcpy(it->vals, saved, sizeof *saved * (size_t)it->nattrs);
      ddbst__buf_truncate(&it->text, text_len);
      it->nkeys = nkeys;
    }
  }
  ddbst__buf_release(&tmp);
  ddbst__arena_free(&ar);
  return rc;
}
