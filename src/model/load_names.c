/* The loader's lookups by name, hashed once per load instead of a walk
 * with strcmp per lookup: the table's key attributes (every attribute is
 * checked against them) and the entities (every pattern names some). The
 * tables live in the loader, on the stack: no allocation, so nothing to
 * fail; a model too large for them is looked up by the walk. */
#include <string.h>

#include "base/hash.h"
#include "model/load.h"

/* ---- the table's key attributes ---- */

static void add_key(ddbst__key_names *k, const char *name, const char *clash) {
  if (!name || k->state < 0) return;
  size_t n = strlen(name);
  uint32_t mask = DDBST__KEY_SLOTS - 1;
  for (uint32_t i = ddbst__fnv1a(name, n) & mask;; i = (i + 1) & mask) {
    if (!k->slot[i]) {
      if (k->n == DDBST__KEY_NAMES_MAX) {
        k->state = -1;
        return;
      }
      k->name[k->n] = name;
      k->len[k->n] = n;
      k->clash[k->n] = clash;
      k->slot[i] = (uint16_t)++k->n;
      return;
    }
    unsigned e = k->slot[i] - 1u;
    if (k->len[e] == n && memcmp(k->name[e], name, n) == 0) {
      k->clash[e] = clash; /* the later kind wins, as in the walk */
      return;
    }
  }
}

/* The kinds in the order the walk below tries them: a later one wins. */
static void build_keys(const ddbst_model *m, ddbst__key_names *k) {
  k->state = 1;
  add_key(k, m->pk_attr, "partition key");
  add_key(k, m->sk_attr, "sort key");
  add_key(k, m->entity_attr, "entity attribute");
  for (int i = 0; i < m->nindexes; i++)
    if (ddbst__index_written(&m->indexes[i])) {
      add_key(k, m->indexes[i].pk_attr, "index key attribute");
      add_key(k, m->indexes[i].sk_attr, "index key attribute");
    }
}

static const char *walk_keys(const ddbst_model *m, const char *name) {
  const char *clash = NULL;
  if (m->pk_attr && strcmp(name, m->pk_attr) == 0) clash = "partition key";
  if (m->sk_attr && strcmp(name, m->sk_attr) == 0) clash = "sort key";
  if (m->entity_attr && strcmp(name, m->entity_attr) == 0)
    clash = "entity attribute";
  for (int i = 0; i < m->nindexes; i++)
    if (ddbst__index_written(&m->indexes[i]) &&
        ((m->indexes[i].pk_attr && strcmp(name, m->indexes[i].pk_attr) == 0) ||
         (m->indexes[i].sk_attr && strcmp(name, m->indexes[i].sk_attr) == 0)))
      clash = "index key attribute";
  return clash;
}

const char *ddbst__load_key_clash(ddbst__loader *L, const char *name) {
  ddbst__key_names *k = &L->keys;
  if (!k->state) build_keys(L->m, k);
  if (k->state < 0) return walk_keys(L->m, name);
  size_t n = strlen(name);
  uint32_t mask = DDBST__KEY_SLOTS - 1;
  for (uint32_t i = ddbst__fnv1a(name, n) & mask; k->slot[i];
       i = (i + 1) & mask) {
    unsigned e = k->slot[i] - 1u;
    if (k->len[e] == n && memcmp(k->name[e], name, n) == 0) return k->clash[e];
  }
  return NULL;
}

/* ---- entities ---- */

static void build_entities(const ddbst_model *m, ddbst__entity_names *t) {
  if (m->nentities > DDBST__ENTITY_SLOTS / 2) {
    t->state = -1;
    return;
  }
  t->state = 1;
  uint32_t mask = DDBST__ENTITY_SLOTS - 1;
  for (int j = 0; j < m->nentities; j++) {
    const ddbst__entity *e = &m->entities[j];
    if (!e->name) continue;
    uint32_t i = ddbst__fnv1a(e->name, e->name_len) & mask;
    while (t->slot[i]) i = (i + 1) & mask; /* names are unique (JSON keys) */
    t->slot[i] = (uint16_t)(j + 1);
  }
}

int ddbst__load_entity_named(ddbst__loader *L, const char *name) {
  const ddbst_model *m = L->m;
  ddbst__entity_names *t = &L->entities;
  if (!t->state) build_entities(m, t);
  if (t->state < 0) {
    for (int j = 0; j < m->nentities; j++)
      if (m->entities[j].name && strcmp(m->entities[j].name, name) == 0)
        return j;
    return -1;
  }
  size_t n = strlen(name);
  uint32_t mask = DDBST__ENTITY_SLOTS - 1;
  for (uint32_t i = ddbst__fnv1a(name, n) & mask; t->slot[i];
       i = (i + 1) & mask) {
    const ddbst__entity *e = &m->entities[t->slot[i] - 1];
    if (e->name_len == n && memcmp(e->name, name, n) == 0)
      return t->slot[i] - 1;
  }
  return -1;
}
