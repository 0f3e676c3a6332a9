/* Hydration, second half: BatchGetItem answers (and those of their
 * follow-ups) back into the page's order. BatchGetItem answers in any order
 * and says nothing of a key it has no item of: a key of the chunk neither
 * in Responses nor in UnprocessedKeys is missing (deleted since the page
 * was read). An answer is checked whole before anything changes. */
#include <stdio.h>
#include <string.h>

#include "json/tree.h"
#include "response/hydrate.h"

enum { MARK_NONE, MARK_FOUND, MARK_UNPROCESSED };

/* The value of `key`'s {"S": ...} in a key map, or NULL. */
static const ddbst__jnode *key_string(const ddbst__jnode *map,
                                      const char *key) {
  const ddbst__jnode *av = ddbst__jobj_get(map, key);
  const ddbst__jnode *s = av && av->type == DDBST__J_OBJECT && av->count == 1
                              ? ddbst__jobj_get(av, "S")
                              : NULL;
  return s && s->type == DDBST__J_STRING ? s : NULL;
}

/* The key of the chunk [first, last) that identity h->id names: its index,
 * or a DDBST_EVALUE at `path`. */
static int32_t chunk_key(const ddbst_hydrate *h, int chunk, uint32_t first,
                         uint32_t last, const char *path, ddbst_error *err) {
  int32_t k = ddbst__hydrate_find(h, h->id.data, h->id.len);
  if (k < 0 || (uint32_t)k < first || (uint32_t)k >= last)
    return ddbst__fail(err, DDBST_EVALUE, path,
                       "its key is not one that request %d asked for%s", chunk,
                       k < 0 ? " (nor any other of the hydration)"
                             : " (another request's: read each answer with "
                               "the chunk of its request)");
  return k;
}

/* The answer's items: each one's key, into h->found. */
static int match_items(ddbst_hydrate *h, const ddbst_page *ans, int chunk,
                       uint32_t first, uint32_t last, ddbst_error *err) {
  const ddbst_model *m = h->m;
  size_t tlen = strlen(m->table_name);
  for (uint32_t i = 0; i < ans->nitems; i++) {
    const ddbst__pitem *pi = &ans->items[i];
    char path[DDBST_ERROR_PATH_MAX];
    ddbst__page_item_path(ans, i, path, sizeof path);
    if (pi->table_len != tlen ||
        memcmp(ans->text.data + pi->table, m->table_name, tlen) != 0)
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "an item of another table than %s", m->table_name);
    const ddbst__pattr *pk = NULL, *sk = NULL;
    for (uint32_t r = pi->first; r < pi->first + pi->count; r++) {
      const ddbst__pattr *a = &ans->attrs[r];
      if (a->role != DDBST__PA_KEY || a->type != DDBST__AV_S) continue;
      if (a->name_id == ans->pk_id) pk = a;
      if (a->name_id == ans->sk_id && ans->sk_id >= 0) sk = a;
    }
    if (!pk || (m->sk_attr && !sk))
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "the item holds no primary key to match it by");
    if (ddbst__hydrate_identity(&h->id, ans->text.data + pk->val, pk->val_len,
                                sk ? ans->text.data + sk->val : NULL,
                                sk ? sk->val_len : 0))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    int32_t k = chunk_key(h, chunk, first, last, path, err);
    if (k < 0) return k;
    if (h->keys[k].state == DDBST_HYDRATE_FOUND ||
        h->mark[k - first] == MARK_FOUND)
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "this item was read already (an answer read twice?)");
    h->mark[k - first] = MARK_FOUND;
    h->found[i] = (uint32_t)k;
  }
  return 0;
}

/* The answer's UnprocessedKeys: each one's key, marked. */
static int match_unprocessed(ddbst_hydrate *h, const ddbst_page *ans,
                             int chunk, uint32_t first, uint32_t last,
                             ddbst_error *err) {
  const ddbst_model *m = h->m;
  for (uint32_t g = 0; g < ans->ngroups; g++) {
    const ddbst__pgroup *gr = &ans->groups[g];
    const char *table = ans->text.data + gr->table;
    int tl = (int)(gr->table_len > 100 ? 100 : gr->table_len);
    if (strlen(m->table_name) != gr->table_len ||
        memcmp(table, m->table_name, gr->table_len) != 0)
      return ddbst__fail(err, DDBST_EVALUE, NULL,
                         "UnprocessedKeys.%.*s: keys of another table than %s",
                         tl, table, m->table_name);
    for (uint32_t j = 0; j < gr->count; j++) {
      char path[DDBST_ERROR_PATH_MAX];
      snprintf(path, sizeof path, "UnprocessedKeys.%.*s.Keys[%u]", tl, table,
               j);
      const ddbst__pspan *sp = &ans->spans[gr->first + j];
      ddbst__jnode *map = NULL;
      ddbst_error e2;
      int rc = ddbst__jtree_parse(&h->arena, ans->text.data + sp->off,
                                  sp->len, &map, &e2);
      if (rc == DDBST_ENOMEM)
        return ddbst__fail(err, rc, NULL, "out of memory");
      const ddbst__jnode *pk = rc ? NULL : key_string(map, m->pk_attr);
      const ddbst__jnode *sk =
          rc || !m->sk_attr ? NULL : key_string(map, m->sk_attr);
      if (!pk || (m->sk_attr && !sk))
        return ddbst__fail(err, DDBST_EVALUE, path,
                           "the key holds no %s%s%s (strings)", m->pk_attr,
                           m->sk_attr ? " and " : "",
                           m->sk_attr ? m->sk_attr : "");
      if (ddbst__hydrate_identity(&h->id, pk->text, pk->len,
                                  sk ? sk->text : NULL, sk ? sk->len : 0))
        return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
      int32_t k = chunk_key(h, chunk, first, last, path, err);
      if (k < 0) return k;
      if (h->mark[k - first] == MARK_FOUND)
        return ddbst__fail(err, DDBST_EVALUE, path,
                           "the answer holds this key's item too");
      h->mark[k - first] = MARK_UNPROCESSED;
    }
  }
  return 0;
}

/* Item `i` of the answer, its records copied into the full page. */
static int copy_item(ddbst_hydrate *h, const ddbst_page *ans, uint32_t i) {
  ddbst_page *full = &h->full;
  const ddbst__pitem *pi = &ans->items[i];
  ddbst__pattr *v = ddbst__page_grow(&h->m->alloc, full->attrs,
                                     &full->cap_attrs,
                                     full->nattrs + pi->count, sizeof *v);
  if (!v) return DDBST_ENOMEM;
  full->attrs = v;
  ddbst__hkey *key = &h->keys[h->found[i]];
  key->first = full->nattrs;
  key->count = pi->count;
  key->entity = pi->entity;
  for (uint32_t r = pi->first; r < pi->first + pi->count; r++) {
    const ddbst__pattr *a = &ans->attrs[r];
    ddbst__pattr *b = &v[full->nattrs];
    *b = *a;
    b->name = (uint32_t)full->text.len;
    if (ddbst__buf_append(&full->text, ans->text.data + a->name,
                          (size_t)a->name_len + 1))
      return DDBST_ENOMEM;
    b->val = (uint32_t)full->text.len;
    if (ddbst__buf_append(&full->text, ans->text.data + a->val,
                          (size_t)a->val_len + 1))
      return DDBST_ENOMEM;
    b->plain = (uint32_t)full->plain.len;
    if (a->plain_len && ddbst__buf_append(&full->plain,
                                          ans->plain.data + a->plain,
                                          a->plain_len))
      return DDBST_ENOMEM;
    full->nattrs++;
  }
  return 0;
}

int ddbst_hydrate_read(ddbst_hydrate *h, int chunk, const ddbst_page *ans,
                       ddbst_error *err) {
  if (!h || !ans)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "hydrator or answer is NULL");
  const ddbst_allocator *a = &h->m->alloc;
  if (ans->m != h->m)
    return ddbst__fail(err, DDBST_EINVAL, "answer",
                       "the answer is a page of another model");
  if (ans->failed || ans->kind != DDBST__ANSWER_BATCH_GET)
    return ddbst__fail(err, DDBST_EINVAL, "answer",
                       "not a BatchGetItem answer: parse it with "
                       "ddbst_page_parse and DDBST_OP_BATCH_GET_ITEM");
  int n = ddbst_hydrate_request_count(h);
  if (chunk < 0 || chunk >= n)
    return ddbst__fail(err, DDBST_EINVAL, "chunk",
                       "request %d of %d does not exist", chunk, n);
  uint32_t first = (uint32_t)chunk * DDBST__HYDRATE_CHUNK;
  uint32_t last = first + DDBST__HYDRATE_CHUNK < h->nkeys
                      ? first + DDBST__HYDRATE_CHUNK
                      : h->nkeys;
  uint8_t *mark = ddbst__page_grow(a, h->mark, &h->cap_mark,
                                   DDBST__HYDRATE_CHUNK, 1);
  uint32_t *found = mark ? ddbst__page_grow(a, h->found, &h->cap_found,
                                            ans->nitems ? ans->nitems : 1,
                                            sizeof *found)
                         : NULL;
  if (mark) h->mark = mark;
  if (found) h->found = found;
  if (!mark || !found)
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(h->mark, MARK_NONE, DDBST__HYDRATE_CHUNK);
  int rc = match_items(h, ans, chunk, first, last, err);
  if (!rc) rc = match_unprocessed(h, ans, chunk, first, last, err);
  ddbst__arena_free(&h->arena);
  ddbst__arena_init(&h->arena, a);
  if (rc) return rc;
  /* copied all, or none */
  ddbst_page *full = &h->full;
  size_t text0 = full->text.len, plain0 = full->plain.len;
  uint32_t attrs0 = full->nattrs;
  for (uint32_t i = 0; !rc && i < ans->nitems; i++) rc = copy_item(h, ans, i);
  if (rc) {
    ddbst__buf_truncate(&full->text, text0);
    ddbst__buf_truncate(&full->plain, plain0);
    full->nattrs = attrs0;
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  int unprocessed = 0;
  for (uint32_t k = first; k < last; k++) {
    ddbst__hkey *key = &h->keys[k];
    switch (h->mark[k - first]) {
    case MARK_FOUND: key->state = DDBST_HYDRATE_FOUND; break;
    case MARK_UNPROCESSED:
      if (key->state != DDBST_HYDRATE_FOUND) {
        key->state = DDBST_HYDRATE_UNPROCESSED;
        unprocessed++;
      }
      break;
    default:
      if (key->state != DDBST_HYDRATE_FOUND)
        key->state = DDBST_HYDRATE_MISSING;
    }
  }
  /* the page's slots of the keys just found */
  for (uint32_t s = 0; s < h->nslots; s++) {
    uint32_t k = h->slot_key[s];
    if (k < first || k >= last || h->mark[k - first] != MARK_FOUND) continue;
    ddbst__pitem *pi = &full->items[s];
    pi->entity = h->keys[k].entity;
    pi->first = h->keys[k].first;
    pi->count = h->keys[k].count;
    pi->present = 1;
  }
  return unprocessed;
}
