/* The names request bodies write, fixed at load: each distinct name once
 * (so placeholders are told apart by address) with its JSON string text,
 * and the JSON pieces bodies copy instead of escaping names per call
 * ("PK":, {"TableName":"t", "_type":"User", the guards' owners). */
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "model/compile.h"

/* One piece of JSON text fixed at load: `prefix` then `name` as a JSON
 * string then `suffix`, copied into the model's arena. */
static int fixed_json(ddbst_model *m, ddbst_buf *tmp, const char *prefix,
                      const char *name, const char *suffix, ddbst__jtext *out) {
  if (!name) return 0;
  ddbst_buf_reset(tmp);
  if (ddbst__buf_puts(tmp, prefix) ||
      ddbst__json_string(tmp, name, strlen(name)) ||
      ddbst__buf_puts(tmp, suffix))
    return DDBST_ENOMEM;
  out->p = ddbst__arena_strndup(&m->arena, tmp->data, tmp->len);
  out->n = (uint32_t)tmp->len;
  out->raw_len = (uint32_t)strlen(name);
  return out->p ? 0 : DDBST_ENOMEM;
}

/* What follows a name's JSON string in its interned entry: the entry's
 * text is `"name":{"S":"`, so an attribute's jname (`"name":`) and
 * s_member are prefixes of it, shared by every attribute of that name (a
 * model of 200 entities has 2,393 attributes and 213 distinct names). */
static const char S_MEMBER[] = ":{\"S\":\"";
enum { S_MEMBER_LEN = sizeof S_MEMBER - 1 };

/* A ddbst__name, its text and its JSON text, laid out one after the
 * other. */
static size_t name_entry_size(size_t len, size_t json_len) {
  size_t n = sizeof(ddbst__name) + len + 1 + json_len + S_MEMBER_LEN + 1;
  return (n + _Alignof(ddbst__name) - 1) / _Alignof(ddbst__name) *
         _Alignof(ddbst__name);
}

/* Slot `entry`'s name: the set holds the first slot of each name. */
static ddbst__strkey slot_key(const void *owner, uint32_t entry) {
  const char *t = *((const char **const *)owner)[entry];
  return (ddbst__strkey){t, strlen(t)};
}

/* Interns the names expressions write (see ddbst_model.names_lo): one entry
 * per distinct name, in one block of exactly their size, and every name
 * field re-pointed at its entry's text. */
static int intern_names(ddbst_model *m, ddbst_buf *tmp) {
  size_t cap = 3 + 2 * (size_t)m->nindexes;
  for (int e = 0; e < m->nentities; e++) cap += (size_t)m->entities[e].nattrs;
  const char ***slots = ddbst__malloc(&m->alloc, cap * sizeof *slots);
  if (!slots) return DDBST_ENOMEM;
  size_t n = 0;
  slots[n++] = &m->pk_attr;
  slots[n++] = &m->sk_attr;
  slots[n++] = &m->entity_attr;
  for (int i = 0; i < m->nindexes; i++) {
    slots[n++] = &m->indexes[i].pk_attr;
    slots[n++] = &m->indexes[i].sk_attr;
  }
  for (int e = 0; e < m->nentities; e++)
    for (int a = 0; a < m->entities[e].nattrs; a++)
      slots[n++] = &m->entities[e].attrs[a].name;

  /* found by hash: a model of hundreds of entities has hundreds of
   * distinct names, and comparing each with all before it was quadratic */
  ddbst__strset set;
  ddbst__strset_init(&set);
  int rc = 0;
  if (ddbst__strset_reserve(&set, &m->alloc, (uint32_t)n, 16, slot_key, slots))
    rc = DDBST_ENOMEM;
  /* first the distinct names and their size, then their block */
  size_t bytes = 0, distinct = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (!*slots[i]) continue;
    size_t len = strlen(*slots[i]);
    ddbst__strslot *slot = ddbst__strset_find(&set, *slots[i], len, slot_key,
                                              slots);
    if (ddbst__strset_taken(&set, slot)) continue;
    ddbst__strset_put(&set, slot, (uint32_t)i);
    ddbst_buf_reset(tmp);
    rc = ddbst__json_string(tmp, *slots[i], len);
    bytes += name_entry_size(len, tmp->len);
    distinct++;
  }
  char *block = rc || !distinct ? NULL : ddbst__arena_alloc(&m->arena, bytes);
  m->name_list =
      block ? ddbst__arena_alloc(&m->arena, distinct * sizeof *m->name_list)
            : NULL;
  if (!rc && distinct && !m->name_list) rc = DDBST_ENOMEM;
  char *at = block;
  for (size_t i = 0; !rc && i < n; i++) {
    const char *name = *slots[i];
    if (!name) continue;
    size_t len = strlen(name);
    uint32_t first =
        ddbst__strset_find(&set, name, len, slot_key, slots)->entry;
    if (first != i) { /* its entry is made: the first slot points at it */
      *slots[i] = *slots[first];
      continue;
    }
    ddbst_buf_reset(tmp);
    rc = ddbst__json_string(tmp, name, len);
    if (rc) break;
    ddbst__name *nm = (ddbst__name *)(void *)at;
    memcpy(nm->text, name, len + 1);
    char *json = nm->text + len + 1;
    memcpy(json, tmp->data, tmp->len);
    memcpy(json + tmp->len, S_MEMBER, S_MEMBER_LEN + 1);
    nm->json.p = json;
    nm->json.n = (uint32_t)tmp->len;
    nm->json.raw_len = (uint32_t)len;
    at += name_entry_size(len, tmp->len);
    m->name_list[m->nnames++] = nm;
    *slots[i] = nm->text;
  }
  ddbst__strset_release(&set, &m->alloc);
  m->names_lo = block;
  m->names_hi = at;
  ddbst__free(&m->alloc, slots);
  return rc;
}

/* An attribute's `"name":` and `"name":{"S":"`: prefixes of its interned
 * name's JSON text. */
static void attr_json(const ddbst_model *m, ddbst__attr *at) {
  const ddbst__name *nm = ddbst__name_of(m, at->name);
  at->jname = (ddbst__jtext){nm->json.p, nm->json.n + 1, nm->json.raw_len};
  if (ddbst__type_is_string(at->type))
    at->s_member = (ddbst__jtext){nm->json.p, nm->json.n + S_MEMBER_LEN,
                                  nm->json.raw_len};
}

/* The names request bodies write, interned and as ready JSON text. */
int ddbst__compile_names(ddbst_model *m) {
  ddbst_buf tmp, owner; /* owner: "User.email" of a unique guard, or a prefix */
  ddbst__buf_init(&tmp, &m->alloc);
  ddbst__buf_init(&owner, &m->alloc);
  int rc = intern_names(m, &tmp);
  rc = rc ? rc
          : fixed_json(m, &tmp, "{\"TableName\":", m->table_name, "",
                       &m->begin);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->pk_attr, ":", &m->pk_jname);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->sk_attr, ":", &m->sk_jname);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->entity_attr, ":", &m->entity_jname);
  m->keys_json_names = 2 + m->pk_jname.n + m->sk_jname.n +
                       m->entity_jname.n + 3 * 3;
  for (int i = 0; !rc && i < m->nindexes; i++) {
    ddbst__index *ix = &m->indexes[i];
    rc = fixed_json(m, &tmp, "", ix->pk_attr, ":", &ix->pk_jname);
    rc = rc ? rc : fixed_json(m, &tmp, "", ix->sk_attr, ":", &ix->sk_jname);
    m->keys_json_names += ix->pk_jname.n + ix->sk_jname.n + 3 * 2;
  }
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    for (int a = 0; a < en->nattrs; a++) attr_json(m, &en->attrs[a]);
    if (!rc && m->entity_attr)
      rc = fixed_json(m, &tmp, m->entity_jname.p, en->name, ",",
                      &en->type_json);
    if (!rc && m->entity_attr) {
      ddbst_buf_reset(&owner); /* the prefix: "_type":{"S": */
      if (ddbst__buf_append(&owner, m->entity_jname.p, m->entity_jname.n) ||
          ddbst__buf_puts(&owner, "{\"S\":"))
        rc = DDBST_ENOMEM;
      rc = rc ? rc : fixed_json(m, &tmp, owner.data, en->name, "},",
                                &en->type_av);
    }
    for (int u = 0; !rc && u < en->nuniques; u++) {
      ddbst_buf_reset(&owner);
      if (ddbst__buf_puts(&owner, en->name) || ddbst__buf_putc(&owner, '.') ||
          ddbst__buf_puts(&owner, en->uniques[u].name))
        rc = DDBST_ENOMEM;
      rc = rc ? rc
              : fixed_json(m, &tmp, "{\"S\":", owner.data, "}",
                           &en->uniques[u].owner);
    }
  }
  ddbst__buf_release(&tmp);
  ddbst__buf_release(&owner);
  return rc;
}
