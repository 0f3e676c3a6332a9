/* Hydration, first half: the primary keys of a page's items (each distinct
 * key once, in the page's order) and the BatchGetItem requests of them, 100
 * keys each, with an optional projection that always keeps what matches an
 * answer to its item (the table's keys) and identifies it (the entity
 * attribute). hydrate_read.c reads the answers back. */
#include <stdio.h>
#include <string.h>

#include "response/hydrate.h"

static ddbst__strkey id_of(const void *owner, uint32_t k) {
  const ddbst_hydrate *h = owner;
  ddbst__strkey key = {h->text.data + h->keys[k].id, h->keys[k].id_len};
  return key;
}

/* A 4-byte length before the partition key's value: no value can make two
 * keys one identity. */
int ddbst__hydrate_identity(ddbst_buf *out, const char *pk, size_t pk_len,
                            const char *sk, size_t sk_len) {
  ddbst_buf_reset(out);
  unsigned char n[4] = {(unsigned char)(pk_len >> 24),
                        (unsigned char)(pk_len >> 16),
                        (unsigned char)(pk_len >> 8), (unsigned char)pk_len};
  int rc = ddbst__buf_append(out, n, sizeof n);
  rc = rc ? rc : ddbst__buf_append(out, pk, pk_len);
  if (!rc && sk) rc = ddbst__buf_append(out, sk, sk_len);
  return rc ? DDBST_ENOMEM : 0;
}

int32_t ddbst__hydrate_find(const ddbst_hydrate *h, const char *id,
                            size_t n) {
  const ddbst__strslot *slot = ddbst__strset_find(&h->ids, id, n, id_of, h);
  return slot && ddbst__strset_taken(&h->ids, slot) ? (int32_t)slot->entry
                                                    : -1;
}

ddbst_hydrate *ddbst_hydrate_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_hydrate *h = ddbst__malloc(&m->alloc, sizeof *h);
  if (!h) return NULL;
  memset(h, 0, sizeof *h);
  h->m = m;
  ddbst__buf_init(&h->text, &m->alloc);
  ddbst__buf_init(&h->proj, &m->alloc);
  ddbst__buf_init(&h->id, &m->alloc);
  ddbst__strset_init(&h->ids);
  ddbst__arena_init(&h->arena, &m->alloc);
  if (ddbst__page_init(&h->full, m)) {
    ddbst__free(&m->alloc, h);
    return NULL;
  }
  h->full.kind = DDBST__ANSWER_BATCH_GET;
  return h;
}

void ddbst_hydrate_free(ddbst_hydrate *h) {
  if (!h) return;
  const ddbst_allocator *a = &h->m->alloc;
  ddbst__buf_release(&h->text);
  ddbst__buf_release(&h->proj);
  ddbst__buf_release(&h->id);
  ddbst__free(a, h->keys);
  ddbst__free(a, h->slot_key);
  ddbst__free(a, h->found);
  ddbst__free(a, h->mark);
  ddbst__strset_release(&h->ids, a);
  ddbst__arena_free(&h->arena);
  ddbst__page_release(&h->full);
  ddbst__free(a, h);
}

/* Forgets the hydration: no keys, no requests, an empty page. */
static void empty(ddbst_hydrate *h) {
  ddbst_buf_reset(&h->text);
  ddbst_buf_reset(&h->proj);
  h->nkeys = h->nslots = 0;
  ddbst__strset_clear(&h->ids);
  ddbst__page_clear(&h->full, 0);
  h->full.kind = DDBST__ANSWER_BATCH_GET;
  h->full.failed = 0;
}

/* The record of name id `id` among item `pi`'s, or NULL. */
static const ddbst__pattr *record(const ddbst_page *pg, const ddbst__pitem *pi,
                                  int32_t id) {
  for (uint32_t k = pi->first; id >= 0 && k < pi->first + pi->count; k++)
    if (pg->attrs[k].name_id == id && pg->attrs[k].role == DDBST__PA_KEY)
      return &pg->attrs[k];
  return NULL;
}

/* {"PK":{"S":"..."},"SK":{"S":"..."}} into h->text. */
static int key_json(ddbst_hydrate *h, const ddbst_page *pg,
                    const ddbst__pattr *pk, const ddbst__pattr *sk) {
  const ddbst_model *m = h->m;
  int rc = ddbst__buf_putc(&h->text, '{');
  rc = rc ? rc : ddbst__json_string(&h->text, m->pk_attr, strlen(m->pk_attr));
  rc = rc ? rc : ddbst__buf_puts(&h->text, ":{\"S\":");
  rc = rc ? rc : ddbst__json_string(&h->text, pg->text.data + pk->val, pk->val_len);
  if (sk) {
    rc = rc ? rc : ddbst__buf_puts(&h->text, "},");
    rc = rc ? rc : ddbst__json_string(&h->text, m->sk_attr, strlen(m->sk_attr));
    rc = rc ? rc : ddbst__buf_puts(&h->text, ":{\"S\":");
    rc = rc ? rc : ddbst__json_string(&h->text, pg->text.data + sk->val, sk->val_len);
  }
  return rc ? rc : ddbst__buf_puts(&h->text, "}}");
}

/* Item `i` of the page: its key, added once. */
static int add_item(ddbst_hydrate *h, const ddbst_page *pg, uint32_t i,
                    ddbst_error *err) {
  const ddbst_model *m = h->m;
  const ddbst__pitem *pi = &pg->items[i];
  char path[DDBST_ERROR_PATH_MAX];
  ddbst__page_item_path(pg, i, path, sizeof path);
  if (!pi->present) {
    path[strcspn(path, ".")] = '\0';
    return ddbst__fail(err, DDBST_EINVAL, path,
                       "an empty slot (the Get found nothing) has no key to "
                       "read");
  }
  const ddbst__pattr *pk = record(pg, pi, pg->pk_id);
  const ddbst__pattr *sk = m->sk_attr ? record(pg, pi, pg->sk_id) : NULL;
  if (!pk || (m->sk_attr && !sk) || pk->type != DDBST__AV_S ||
      (sk && sk->type != DDBST__AV_S))
    return ddbst__fail(err, DDBST_EVALUE, path,
                       "the item holds no primary key (%s%s%s, strings) to "
                       "read it by",
                       m->pk_attr, m->sk_attr ? ", " : "",
                       m->sk_attr ? m->sk_attr : "");
  if (ddbst__hydrate_identity(&h->id, pg->text.data + pk->val, pk->val_len,
                              sk ? pg->text.data + sk->val : NULL,
                              sk ? sk->val_len : 0))
    return DDBST_ENOMEM;
  int32_t k = ddbst__hydrate_find(h, h->id.data, h->id.len);
  if (k < 0) {
    ddbst__hkey *v = ddbst__page_grow(&m->alloc, h->keys, &h->cap_keys,
                                      h->nkeys + 1, sizeof *v);
    if (!v) return DDBST_ENOMEM;
    h->keys = v;
    if (ddbst__strset_reserve(&h->ids, &m->alloc, h->nkeys + 1, 64, id_of, h))
      return DDBST_ENOMEM;
    ddbst__hkey *key = &v[h->nkeys];
    memset(key, 0, sizeof *key);
    key->entity = -1;
    key->id = (uint32_t)h->text.len;
    key->id_len = (uint32_t)h->id.len;
    if (ddbst__buf_append(&h->text, h->id.data, h->id.len)) return DDBST_ENOMEM;
    key->json = (uint32_t)h->text.len;
    if (key_json(h, pg, pk, sk)) return DDBST_ENOMEM;
    key->json_len = (uint32_t)(h->text.len - key->json);
    ddbst__strset_put(&h->ids,
                      ddbst__strset_find(&h->ids, h->text.data + key->id,
                                         key->id_len, id_of, h),
                      h->nkeys);
    k = (int32_t)h->nkeys++;
  }
  h->slot_key[i] = (uint32_t)k;
  return 0;
}

/* Whether an entity that the page holds declares `name`. */
static int page_declares(const ddbst_page *pg, const char *name) {
  const ddbst_model *m = pg->m;
  for (int e = 0; e < m->nentities; e++) {
    int held = 0;
    for (uint32_t i = 0; !held && i < (uint32_t)pg->count; i++)
      held = pg->items[i].entity == e;
    if (!held) continue;
    for (int a = 0; a < m->entities[e].nattrs; a++)
      if (!strcmp(m->entities[e].attrs[a].name, name)) return 1;
  }
  return 0;
}

static int put_name(ddbst_buf *b, int n, const char *name, int *rc) {
  char ph[16];
  snprintf(ph, sizeof ph, "\"#p%d\":", n);
  if (!*rc && n) *rc = ddbst__buf_putc(b, ',');
  if (!*rc) *rc = ddbst__buf_puts(b, ph);
  if (!*rc) *rc = ddbst__json_string(b, name, strlen(name));
  return n + 1;
}

/* ,"ProjectionExpression":"#p0, #p1, ...","ExpressionAttributeNames":{...}
 * of the table's keys, the entity attribute and `names`, into h->proj. */
static int projection(ddbst_hydrate *h, const ddbst_page *pg,
                      const char *const *names, size_t n, ddbst_error *err) {
  const ddbst_model *m = h->m;
  for (size_t i = 0; i < n; i++) {
    char path[48];
    snprintf(path, sizeof path, "attributes[%zu]", i);
    if (!names[i])
      return ddbst__fail(err, DDBST_EINVAL, path, "the name is NULL");
    for (size_t j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return ddbst__fail(err, DDBST_EINVAL, path, "%s is given twice",
                           names[i]);
    if (!page_declares(pg, names[i]))
      return ddbst__fail(err, DDBST_ENOTFOUND, path,
                         "no entity of the page declares an attribute %.64s",
                         names[i]);
  }
  if (!n) return 0; /* whole items */
  size_t total = 1 + (m->sk_attr ? 1 : 0) + (m->entity_attr ? 1 : 0) + n;
  ddbst_buf *b = &h->proj;
  int rc = ddbst__buf_puts(b, ",\"ProjectionExpression\":\"");
  for (size_t i = 0; !rc && i < total; i++) {
    char ph[24];
    snprintf(ph, sizeof ph, "%s#p%zu", i ? ", " : "", i);
    rc = ddbst__buf_puts(b, ph);
  }
  rc = rc ? rc : ddbst__buf_puts(b, "\",\"ExpressionAttributeNames\":{");
  int k = put_name(b, 0, m->pk_attr, &rc);
  if (m->sk_attr) k = put_name(b, k, m->sk_attr, &rc);
  if (m->entity_attr) k = put_name(b, k, m->entity_attr, &rc);
  for (size_t i = 0; i < n; i++) k = put_name(b, k, names[i], &rc);
  rc = rc ? rc : ddbst__buf_putc(b, '}');
  return rc ? ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory") : 0;
}

int ddbst_hydrate_begin(ddbst_hydrate *h, const ddbst_page *pg,
                        const char *const *names, size_t n,
                        ddbst_error *err) {
  if (!h || !pg)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "hydrator or page is NULL");
  empty(h);
  if (pg->m != h->m)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page is of another model");
  if (pg->failed || pg->kind == DDBST__ANSWER_STREAM ||
      pg->kind == DDBST__ANSWER_ERROR || pg->kind == DDBST__ANSWER_WRITE ||
      pg->kind == DDBST__ANSWER_BATCH_WRITE)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no items of a read (a Query, GetItem, "
                       "BatchGetItem or TransactGetItems answer parsed "
                       "without error)");
  if (n && !names)
    return ddbst__fail(err, DDBST_EINVAL, "attributes",
                       "attributes is NULL, and nattributes is %zu", n);
  const ddbst_allocator *a = &h->m->alloc;
  uint32_t count = (uint32_t)pg->count;
  int rc = projection(h, pg, names, n, err);
  uint32_t *sk = rc ? NULL
                    : ddbst__page_grow(a, h->slot_key, &h->cap_slots,
                                       count, sizeof *sk);
  if (!rc && !sk && count) rc = DDBST_ENOMEM;
  if (sk) h->slot_key = sk;
  for (uint32_t i = 0; !rc && i < count; i++) rc = add_item(h, pg, i, err);
  ddbst_page *full = &h->full;
  ddbst__pitem *items =
      rc ? NULL
         : ddbst__page_grow(a, full->items, &full->cap_items, count,
                            sizeof *items);
  if (!rc && !items && count) rc = DDBST_ENOMEM;
  if (rc) {
    if (rc == DDBST_ENOMEM) ddbst__fail(err, rc, NULL, "out of memory");
    empty(h);
    return rc;
  }
  if (items) full->items = items;
  for (uint32_t i = 0; i < count; i++) {
    memset(&full->items[i], 0, sizeof full->items[i]);
    full->items[i].entity = -1;
    full->items[i].ordinal = i;
    full->items[i].where = DDBST__IN_ITEMS;
  }
  full->nitems = count;
  full->count = (int)count;
  h->nslots = count;
  return ddbst_hydrate_request_count(h);
}

int ddbst_hydrate_request_count(const ddbst_hydrate *h) {
  if (!h) return 0;
  return (int)((h->nkeys + DDBST__HYDRATE_CHUNK - 1) / DDBST__HYDRATE_CHUNK);
}

int ddbst_hydrate_request(const ddbst_hydrate *h, int chunk, uint32_t flags,
                          ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!h || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "hydrator or buffer is NULL");
  int n = ddbst_hydrate_request_count(h);
  if (chunk < 0 || chunk >= n)
    return ddbst__fail(err, DDBST_EINVAL, "chunk",
                       "request %d of %d does not exist", chunk, n);
  if (flags & ~(uint32_t)DDBST_CONSISTENT_READ)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a BatchGetItem takes DDBST_CONSISTENT_READ only");
  const ddbst_model *m = h->m;
  uint32_t first = (uint32_t)chunk * DDBST__HYDRATE_CHUNK;
  uint32_t last = first + DDBST__HYDRATE_CHUNK < h->nkeys
                      ? first + DDBST__HYDRATE_CHUNK
                      : h->nkeys;
  int rc = ddbst__buf_puts(out, "{\"RequestItems\":{");
  rc = rc ? rc : ddbst__json_string(out, m->table_name, strlen(m->table_name));
  rc = rc ? rc : ddbst__buf_puts(out, ":{\"Keys\":[");
  for (uint32_t k = first; !rc && k < last; k++) {
    if (k > first) rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc
            : ddbst__buf_append(out, h->text.data + h->keys[k].json,
                                h->keys[k].json_len);
  }
  rc = rc ? rc : ddbst__buf_putc(out, ']');
  if (!rc && (flags & DDBST_CONSISTENT_READ))
    rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
  if (!rc && h->proj.len)
    rc = ddbst__buf_append(out, h->proj.data, h->proj.len);
  rc = rc ? rc : ddbst__buf_puts(out, "}}}");
  if (rc) {
    ddbst_buf_reset(out);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return DDBST_OP_BATCH_GET_ITEM;
}

int ddbst_hydrate_state(const ddbst_hydrate *h, int i) {
  if (!h || i < 0 || (uint32_t)i >= h->nslots) return DDBST_EINVAL;
  return h->keys[h->slot_key[i]].state;
}

int ddbst_hydrate_pending(const ddbst_hydrate *h) {
  if (!h) return 0;
  int n = 0;
  for (uint32_t i = 0; i < h->nslots; i++) {
    int s = h->keys[h->slot_key[i]].state;
    n += s != DDBST_HYDRATE_FOUND && s != DDBST_HYDRATE_MISSING;
  }
  return n;
}

const ddbst_page *ddbst_hydrate_page(const ddbst_hydrate *h) {
  return h ? &h->full : NULL;
}
