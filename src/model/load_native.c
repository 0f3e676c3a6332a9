/* Global indexes keyed natively on the entities' own attributes (DynamoDB's
 * multi-attribute keys, ddbst__index.native): the index's attribute lists
 * (table.indexes.<name>.partitionKey / sortKey as arrays), each entity's
 * membership ({} under its "indexes"), and the attribute types the index's
 * AttributeDefinitions declare, alike in every entity in it. */
#include <stdio.h>
#include <string.h>

#include "model/load.h"

/* Key attribute lists: 1 to 4 attribute names (an empty sort key list is
 * no sort key, and refused as such: leave sortKey out). */
static int load_list(ddbst__loader *L, const ddbst__jnode *n,
                     const char *field, const char **out) {
  size_t old = ddbst__load_push(L, field);
  int count = 0;
  if (n->count == 0 || n->count > 4) {
    ddbst__load_report(L, n,
                       "a multi-attribute %s key has 1 to 4 attributes; "
                       "DynamoDB refuses %zu",
                       strcmp(field, "partitionKey") ? "sort" : "partition",
                       (size_t)n->count);
  }
  for (size_t i = 0; i < n->count && i < 4; i++) {
    const ddbst__jnode *a = n->items[i];
    if (a->type != DDBST__J_STRING || !ddbst__is_identifier(a->text)) {
      ddbst__load_report(L, a, "element %zu: expected an attribute name", i);
      continue;
    }
    for (int j = 0; j < count; j++)
      if (strcmp(out[j], a->text) == 0)
        ddbst__load_report(L, a,
                           "'%s' is named twice: a key schema names an "
                           "attribute once",
                           a->text);
    if (!(out[count] = ddbst__load_dup(L, a->text))) break;
    count++;
  }
  ddbst__load_pop(L, old);
  return count;
}

int ddbst__load_native_keys(ddbst__loader *L, const ddbst__jnode *n,
                            ddbst__index *ix) {
  const ddbst__jnode *pk = ddbst__jobj_get(n, "partitionKey");
  const ddbst__jnode *sk = ddbst__jobj_get(n, "sortKey");
  int pk_list = pk && pk->type == DDBST__J_ARRAY;
  int sk_list = sk && sk->type == DDBST__J_ARRAY;
  if (!pk_list && !sk_list) return 0;
  if (ix->local) {
    ddbst__load_report(L, pk_list ? pk : sk,
                       "a local secondary index has one sort key attribute: "
                       "multi-attribute keys are for global secondary "
                       "indexes only");
    return 1;
  }
  if (!pk_list) {
    ddbst__load_report_field(
        L, "partitionKey", pk,
        "a multi-attribute sort key needs a partition key list too: give "
        "partitionKey as an array of 1 to 4 attribute names");
    return 1;
  }
  if (sk && !sk_list) {
    ddbst__load_report_field(
        L, "sortKey", sk,
        "with a multi-attribute partition key the sort key is a list too: "
        "an array of 1 to 4 attribute names");
    return 1;
  }
  ix->native = 1;
  ix->npk = load_list(L, pk, "partitionKey", ix->pk_attrs);
  if (sk) ix->nsk = load_list(L, sk, "sortKey", ix->sk_attrs);
  for (int i = 0; i < ix->npk; i++)
    for (int j = 0; j < ix->nsk; j++)
      if (strcmp(ix->pk_attrs[i], ix->sk_attrs[j]) == 0)
        ddbst__load_report(L, n,
                           "'%s' is both in %s's partition key and its sort "
                           "key",
                           ix->pk_attrs[i], ix->name);
  ix->pk_attr = ix->npk ? ix->pk_attrs[0] : "";
  ix->sk_attr = ix->nsk ? ix->sk_attrs[0] : NULL;
  return 1;
}

int ddbst__load_table_key_not_list(ddbst__loader *L, const ddbst__jnode *t) {
  static const char *const fields[] = {"partitionKey", "sortKey"};
  int lists = 0;
  for (int i = 0; i < 2; i++) {
    const ddbst__jnode *k = ddbst__jobj_get(t, fields[i]);
    if (k && k->type == DDBST__J_ARRAY) {
      ddbst__load_report_field(L, fields[i], k,
                               "the table's key is one attribute: "
                               "multi-attribute keys are for global "
                               "secondary indexes only");
      lists |= 1 << i;
    }
  }
  return lists;
}

/* The AttributeValue type a key attribute of type `t` is written as, or 0
 * when DynamoDB keys cannot hold it. */
static char key_type(ddbst__type t) {
  switch (t) {
  case DDBST__T_INTEGER:
  case DDBST__T_NUMBER:
  case DDBST__T_TTL: return 'N';
  case DDBST__T_BINARY: return 'B';
  case DDBST__T_STRING:
  case DDBST__T_TIMESTAMP:
  case DDBST__T_ULID:
  case DDBST__T_ENUM: return 'S';
  default: return 0;
  }
}

/* A facet-only template of the attributes `names` of entity `e`. */
static void attr_list(ddbst__loader *L, const ddbst__entity *e,
                      const char *const *names, int n, const char *where,
                      ddbst__template *t) {
  memset(t, 0, sizeof *t);
  if (n == 0) return;
  t->segs = ddbst__load_array(L, (size_t)n, sizeof *t->segs);
  if (!t->segs) return;
  char src[4 * 260] = "";
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    int a = ddbst__attr_index(e, names[i]);
    if (a < 0) {
      ddbst__load_report(L, NULL,
                         "%s is keyed on its attribute '%s' in %s, which %s "
                         "does not declare",
                         e->name, names[i], where, e->name);
      continue;
    }
    if (!key_type(e->attrs[a].type))
      ddbst__load_report(L, NULL,
                         "%s.%s is a %s: a key attribute is a string, number "
                         "or binary (%s keys on it)",
                         e->name, names[i], ddbst__type_name(e->attrs[a].type),
                         where);
    t->segs[t->nsegs++] = (ddbst__seg){NULL, 0, a, 0, 1};
    t->nfacets++;
    used += (size_t)snprintf(src + used, sizeof src - used, "%s{%s}",
                             i ? ", " : "", names[i]);
  }
  t->source = ddbst__load_dup(L, src);
}

void ddbst__load_native_member(ddbst__loader *L, const ddbst__entity *e,
                               const ddbst__jnode *x, ddbst__ekey *k) {
  const ddbst__index *ix = &L->m->indexes[k->index];
  static const char *const fields[] = {"pk", "sk", "when"};
  for (int i = 0; i < 3; i++) {
    const ddbst__jnode *f = ddbst__jobj_get(x, fields[i]);
    if (f)
      ddbst__load_report_field(
          L, fields[i], f,
          "%s is keyed on the entities' own attributes (%s): its members "
          "give no '%s'; an item is in it exactly when it has every key "
          "attribute",
          ix->name, ix->pk_attrs[0], fields[i]);
  }
  if (e->attrs_unread) return;
  attr_list(L, e, ix->pk_attrs, ix->npk, ix->name, &k->pk);
  attr_list(L, e, ix->sk_attrs, ix->nsk, ix->name, &k->sk);
}

void ddbst__check_native_types(ddbst__loader *L) {
  ddbst_model *m = L->m;
  for (int i = 0; i < m->nindexes; i++) {
    ddbst__index *ix = &m->indexes[i];
    if (!ix->native) continue;
    const char *by[8] = {NULL};
    for (int e = 0; e < m->nentities; e++) {
      const ddbst__entity *en = &m->entities[e];
      const ddbst__ekey *k = ddbst__entity_key(en, i);
      if (!k) continue;
      for (int a = 0; a < ix->npk + ix->nsk && a < 8; a++) {
        const ddbst__template *t = a < ix->npk ? &k->pk : &k->sk;
        int s = a < ix->npk ? a : a - ix->npk;
        if (s >= t->nsegs) continue;
        char ty = key_type(en->attrs[t->segs[s].attr].type);
        if (!ty) continue;
        const char *name = a < ix->npk ? ix->pk_attrs[a]
                                       : ix->sk_attrs[a - ix->npk];
        if (!ix->types[a]) {
          ix->types[a] = ty;
          by[a] = en->name;
        } else if (ix->types[a] != ty) {
          size_t old = ddbst__load_push(L, "table");
          size_t o2 = ddbst__load_push(L, "indexes");
          size_t o3 = ddbst__load_push(L, ix->name);
          ddbst__load_report(L, NULL,
                             "'%s' is a key attribute of %s: %s writes it as "
                             "%c and %s as %c, and one attribute has one "
                             "type in the index",
                             name, ix->name, by[a], ix->types[a], en->name, ty);
          ddbst__load_pop(L, o3);
          ddbst__load_pop(L, o2);
          ddbst__load_pop(L, old);
        }
      }
    }
    /* an index no entity is in keys strings */
    for (int a = 0; a < ix->npk + ix->nsk && a < 8; a++)
      if (!ix->types[a]) ix->types[a] = 'S';
  }
}
