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

/* ---- entities and indexes ---- */

/* The name of entry i of a name table, NULL when it has none. */
typedef const char *(*name_of_fn)(const ddbst_model *m, int i);

static const char *entity_name(const ddbst_model *m, int i) {
  return m->entities[i].name;
}
static const char *index_name(const ddbst_model *m, int i) {
  return m->indexes[i].name;
}

/* The first of `n` entries named `name`, or -1: by the table, built at the
 * first lookup (the entries are all loaded by then), or by a walk when
 * they outgrow it. */
static int named(const ddbst_model *m, ddbst__name_slots *t, int n,
                 name_of_fn name_of, const char *name) {
  uint32_t mask = DDBST__NAME_SLOTS - 1;
  if (!t->state) {
    t->state = n > DDBST__NAME_SLOTS / 2 ? -1 : 1;
    for (int j = 0; t->state > 0 && j < n; j++) {
      const char *s = name_of(m, j);
      if (!s) continue;
      size_t len = strlen(s);
      uint32_t i = ddbst__fnv1a(s, len) & mask;
      for (; t->slot[i]; i = (i + 1) & mask)
        if (strcmp(name_of(m, t->slot[i] - 1), s) == 0) break;
      if (!t->slot[i]) t->slot[i] = (uint16_t)(j + 1); /* the first wins */
    }
  }
  if (t->state < 0) {
    for (int j = 0; j < n; j++)
      if (name_of(m, j) && strcmp(name_of(m, j), name) == 0) return j;
    return -1;
  }
  for (uint32_t i = ddbst__fnv1a(name, strlen(name)) & mask; t->slot[i];
       i = (i + 1) & mask)
    if (strcmp(name_of(m, t->slot[i] - 1), name) == 0) return t->slot[i] - 1;
  return -1;
}

int ddbst__load_entity_named(ddbst__loader *L, const char *name) {
  return named(L->m, &L->entities, L->m->nentities, entity_name, name);
}

int ddbst__load_index_named(ddbst__loader *L, const char *name) {
  return named(L->m, &L->indexes, L->m->nindexes, index_name, name);
}
