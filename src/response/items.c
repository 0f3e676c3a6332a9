/* A page's items read into ddbst_item values, with the path of each item in
 * the answer for errors. */
#include <stdio.h>
#include <string.h>

#include "response/page.h"

void ddbst__page_item_path(const ddbst_page *pg, uint32_t i, char *buf,
                           size_t cap) {
  const ddbst__pitem *pi = &pg->items[i];
  unsigned o = pi->ordinal;
  switch (pi->where) {
  case DDBST__IN_ITEM: snprintf(buf, cap, "Item"); break;
  case DDBST__IN_ITEMS: snprintf(buf, cap, "Items[%u]", o); break;
  case DDBST__IN_BATCH:
    snprintf(buf, cap, "Responses.%.*s[%u]",
             (int)(pi->table_len > 100 ? 100 : pi->table_len),
             pg->text.data + pi->table, o);
    break;
  case DDBST__IN_TXN: snprintf(buf, cap, "Responses[%u].Item", o); break;
  case DDBST__IN_KEYS: snprintf(buf, cap, "Records[%u].dynamodb.Keys", o); break;
  case DDBST__IN_NEW:
    snprintf(buf, cap, "Records[%u].dynamodb.NewImage", o);
    break;
  case DDBST__IN_OLD:
    snprintf(buf, cap, "Records[%u].dynamodb.OldImage", o);
    break;
  case DDBST__IN_ATTRS: snprintf(buf, cap, "Attributes"); break;
  case DDBST__IN_ERROR: snprintf(buf, cap, "Item"); break;
  case DDBST__IN_REASON:
    snprintf(buf, cap, "CancellationReasons[%u].Item", o);
    break;
  default: snprintf(buf, cap, "LastEvaluatedKey");
  }
}

/* The path of item i's attribute `name` (NULL: the item's own), made only
 * when an error needs it: a page of thousands of items is filled without a
 * single snprintf. */
static const char *fill_path(const ddbst_page *pg, uint32_t i,
                             const char *name, char *buf, size_t cap) {
  ddbst__page_item_path(pg, i, buf, cap);
  if (name) {
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, ".%s", name);
  }
  return buf;
}

int ddbst__page_fill(const ddbst_page *pg, uint32_t i, ddbst_item *item,
                     ddbst_error *err) {
  const ddbst__pitem *pi = &pg->items[i];
  char path[DDBST_ERROR_PATH_MAX];
  if (!pi->present) {
    fill_path(pg, i, NULL, path, sizeof path);
    path[strcspn(path, ".")] = '\0'; /* "Responses[1]": it has no Item */
    return ddbst__fail(err, DDBST_ENOTFOUND, path,
                       "no such item: the Get found nothing");
  }
  if (pi->entity < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND,
                       fill_path(pg, i, NULL, path, sizeof path),
                       "not an item of an entity of the model (a unique "
                       "guard, or an item another program wrote)");
  const ddbst__entity *ent = &pg->m->entities[pi->entity];
  ddbst_item_reset(item, pi->entity);
  for (uint32_t k = pi->first; k < pi->first + pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[k];
    if (r->attr < 0 || r->type == DDBST__AV_NULL ||
        (r->role != DDBST__PA_ATTR && r->role != DDBST__PA_RECOVERED))
      continue;
    const ddbst__attr *a = &ent->attrs[r->attr];
    const char *v = pg->text.data + r->val;
    int want_av = ddbst__av_of_type(a->type);
    if (r->type != want_av)
      return ddbst__fail(err, DDBST_EVALUE,
                         fill_path(pg, i, a->name, path, sizeof path),
                         "%s.%s is of type %s, stored as %s; the item holds %s",
                         ent->name, a->name, ddbst__type_name(a->type),
                         ddbst__av_tag(want_av), ddbst__av_tag(r->type));
    int rc;
    if (r->role == DDBST__PA_RECOVERED || ddbst__av_is_container(r->type)) {
      /* canonical already: read back from a key, or written by the parser
       * in the form the item keeps */
      rc = ddbst__item_store(item, r->attr, v, r->val_len);
      if (rc) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    } else {
      ddbst_error e2;
      rc = ddbst__item_set_parsed(item, r->attr, v, r->val_len, &e2);
      if (rc == DDBST_ENOMEM)
        return ddbst__fail(err, rc, NULL, "out of memory");
      if (rc)
        return ddbst__fail(err, DDBST_EVALUE,
                           fill_path(pg, i, a->name, path, sizeof path), "%s",
                           e2.message);
    }
  }
  return pi->entity;
}

int ddbst__page_check_index(const ddbst_page *pg, int i, ddbst_error *err) {
  if (!pg) return ddbst__fail(err, DDBST_EINVAL, NULL, "page is NULL");
  if (i < 0 || i >= pg->count || pg->kind == DDBST__ANSWER_STREAM)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "item %d of %d does not exist", i, pg->count);
  return 0;
}

int ddbst_page_item(const ddbst_page *pg, int i, ddbst_item *item,
                    ddbst_error *err) {
  int rc = ddbst__page_check_index(pg, i, err);
  if (rc) return rc;
  if (!item) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  if (item->m != pg->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item belongs to another model");
  return ddbst__page_fill(pg, ddbst__page_slot(pg, i), item, err);
}

int ddbst_page_item_entity(const ddbst_page *pg, int i) {
  if (ddbst__page_check_index(pg, i, NULL)) return DDBST_EINVAL;
  const ddbst__pitem *pi = &pg->items[ddbst__page_slot(pg, i)];
  return pi->present && pi->entity >= 0 ? pi->entity : DDBST_ENOTFOUND;
}
