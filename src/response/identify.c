/* Which entity an item of an answer is (its entity attribute, else its
 * key), which declared attribute each of its records is, and the facets a
 * projection left out, recovered from the item's keys. */
#include <string.h>

#include "response/parser.h"

/* The record of known name `id` in the current item, or -1. */
static int32_t rec_of(const ddbst_page *pg, int32_t id) {
  if (id < 0 || pg->seen_gen[id] != pg->gen) return -1;
  return (int32_t)pg->seen_rec[id];
}

static const char *rec_val(const ddbst_page *pg, int32_t rec) {
  return pg->text.data + pg->attrs[rec].val;
}

/* Facets of `t` the item lacks (and that the key holds as written, not
 * lower-cased). */
static int lacks(const ddbst_page *pg, const ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a >= 0 && !t->segs[i].lower && pg->present_gen[a] != pg->gen) return 1;
  }
  return 0;
}

/* Adds the facets of `t` the item lacks, read from the scratch item (which
 * ddbst_item_from_key just filled from the item's key), as records. */
static int recover(ddbst__parser *p, int32_t e, const ddbst__template *t) {
  ddbst_page *pg = p->pg;
  const ddbst__entity *ent = &p->m->entities[e];
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a < 0 || t->segs[i].lower || pg->present_gen[a] == pg->gen) continue;
    size_t vl = 0;
    const char *v = ddbst__item_text(pg->scratch, a, &vl);
    if (!v) continue;
    ddbst__pattr *arr = ddbst__page_grow(
        &p->m->alloc, pg->attrs, &pg->cap_attrs, pg->nattrs + 1, sizeof *arr);
    if (!arr) return nomem(p);
    pg->attrs = arr;
    ddbst__pattr *r = &arr[pg->nattrs];
    memset(r, 0, sizeof *r);
    const char *nm = ent->attrs[a].name;
    if (!keep(p, nm, strlen(nm), &r->name) || !keep(p, v, vl, &r->val))
      return 0;
    r->name_len = (uint32_t)strlen(nm);
    r->val_len = (uint32_t)vl;
    r->name_id = ddbst__page_name_id(pg, nm, r->name_len);
    r->attr = a;
    r->role = DDBST__PA_RECOVERED;
    r->type = (uint8_t)ddbst__av_of_type(ent->attrs[a].type);
    pg->present_gen[a] = pg->gen;
    pg->nattrs++;
  }
  return 1;
}

static int32_t entity_named(const ddbst_model *m, const char *s, size_t n) {
  for (int e = 0; e < m->nentities; e++)
    if (m->entities[e].name_len == n && memcmp(m->entities[e].name, s, n) == 0)
      return e;
  return -1;
}

/* Whether the item lacks a facet of any key template of entity `ent` (its
 * table key's or an index's) that lacks() would find: one pass over the
 * entity's facets, where lacks() takes each template in turn. */
static int lacks_any(const ddbst_page *pg, const ddbst__entity *ent) {
  for (int i = 0; i < ent->nkey_facets; i++)
    if (pg->present_gen[ent->key_facets[i]] != pg->gen) return 1;
  return 0;
}

/* ddbst_item_from_key on the records `pkr`, `skr` (-1: none) into the
 * scratch item: the entity, or a negative code with `e2` filled. */
static int key_entity(ddbst_page *pg, const char *index, int32_t pkr,
                      int32_t skr, ddbst_error *e2) {
  const char *sk = skr >= 0 ? rec_val(pg, skr) : NULL;
  size_t skl = skr >= 0 ? pg->attrs[skr].val_len : 0;
  return ddbst_item_from_key(pg->scratch, index, rec_val(pg, pkr),
                             pg->attrs[pkr].val_len, sk, skl, e2);
}

/* Whether `name` is a key attribute of a native index: an entity's own
 * attribute, of any key type, in a LastEvaluatedKey. */
static int native_key_attr(const ddbst_model *m, const char *name) {
  for (int i = 0; i < m->nindexes; i++) {
    const ddbst__index *ix = &m->indexes[i];
    for (int a = 0; ix->native && a < ix->npk + ix->nsk; a++)
      if (!strcmp(a < ix->npk ? ix->pk_attrs[a] : ix->sk_attrs[a - ix->npk],
                  name))
        return 1;
  }
  return 0;
}

int ddbst__finish_item(ddbst__parser *p) {
  ddbst_page *pg = p->pg;
  const ddbst_model *m = p->m;
  int32_t target = top(p)->target;
  ddbst__pitem *pi = item_at(pg, target);
  pi->count = pg->nattrs - pi->first;
  int up = p->depth - 1; /* the path of the item itself */
  if (target == LEK_TARGET) {
    for (uint32_t k = pi->first; k < pg->nattrs; k++) {
      const ddbst__pattr *r = &pg->attrs[k];
      const char *nm = pg->text.data + r->name;
      if (r->role != DDBST__PA_KEY && native_key_attr(m, nm)) continue;
      if (r->role != DDBST__PA_KEY)
        return ddbst__refuse(
            p, DDBST_EVALUE, up, nm,
            "%s is not a key attribute of the table or its indexes", nm);
      if (r->type != DDBST__AV_S)
        return ddbst__refuse(p, DDBST_EVALUE, up, nm,
                             "key attributes of a ddbst table are strings (S)");
    }
    pg->has_more = pi->count > 0;
    return 1;
  }
  int32_t er = rec_of(pg, pg->entity_id), pkr = rec_of(pg, pg->pk_id),
          skr = rec_of(pg, pg->sk_id);
  int keyed = pkr >= 0 && (skr >= 0 || !m->sk_attr);
  if (keyed && (pg->attrs[pkr].type != DDBST__AV_S ||
                (skr >= 0 && pg->attrs[skr].type != DDBST__AV_S)))
    return ddbst__refuse(p, DDBST_EVALUE, up,
                         pg->attrs[pkr].type != DDBST__AV_S ? m->pk_attr
                                                            : m->sk_attr,
                         "key attributes of a ddbst table are strings (S)");
  int32_t e = -1;
  int from_key = 0;
  ddbst_error e2;
  /* an error's item is told when it can be, kept when not (a guard's) */
  int lenient = p->lenient || pi->where == DDBST__IN_ERROR ||
                pi->where == DDBST__IN_REASON;
  int want = pi->where == DDBST__IN_ATTRS ? pg->want_entity : -1;
  if (er < 0 && !keyed && want >= 0) {
    /* a write's UPDATED_* values: neither keys nor the entity attribute */
    e = want;
  } else if (er >= 0) {
    const ddbst__pattr *r = &pg->attrs[er];
    if (r->type != DDBST__AV_S && lenient) return 1; /* no entity's */
    if (r->type != DDBST__AV_S)
      return ddbst__refuse(p, DDBST_EVALUE, up, m->entity_attr,
                           "the entity attribute is a string (S)");
           e = entity_named(m, rec_val(pg, er), r->val_len);
    if (e < 0) {
      if (lenient) return 1;
      return ddbst__refuse(
          p, DDBST_ENOTFOUND, up, NULL, "%s \"%.*s\" is no entity of the model",
          m->entity_attr, (int)(r->val_len > 64 ? 64 : r->val_len),
          rec_val(pg, er));
    }
  } else if (keyed) {
    int r = key_entity(pg, NULL, pkr, skr, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r < 0) {
      if (lenient) return 1;
      return ddbst__refuse(
          p, r == DDBST_EVALUE ? DDBST_EVALUE : DDBST_ENOTFOUND, up, NULL, "%s",
          r == DDBST_EVALUE ? e2.message
                            : "its key matches no entity's key templates");
    }
    e = r;
    from_key = 1;
  } else {
    if (lenient) return 1;
    return ddbst__refuse(p, DDBST_ENOTFOUND, up, NULL,
                         "the item has neither %s%s%s the table's key, so its "
                         "entity cannot be told",
                         m->entity_attr ? "the entity attribute " : "",
                         m->entity_attr ? m->entity_attr : "",
                         m->entity_attr ? " nor" : "");
  }
  if (want >= 0 && e != want)
    return ddbst__refuse(p, DDBST_EVALUE, up, NULL,
                         "the write was of a %s, and its answer holds a %s",
                         m->entities[want].name, m->entities[e].name);
  pi->entity = e;
  for (uint32_t k = pi->first; k < pg->nattrs; k++) {
    ddbst__pattr *r = &pg->attrs[k];
    if (r->role != DDBST__PA_ATTR || r->name_id < 0) continue;
    r->attr = pg->name_attr[(size_t)e * pg->nnames + (size_t)r->name_id];
    if (r->attr >= 0 && r->type != DDBST__AV_NULL)
      pg->present_gen[r->attr] = pg->gen;
  }
  const ddbst__entity *ent = &m->entities[e];
  /* nearly every item holds its facets: nothing to recover */
  if (!lacks_any(pg, ent)) {
    pi->count = pg->nattrs - pi->first;
    return 1;
  }
  if (keyed && (lacks(pg, &ent->key.pk) || lacks(pg, &ent->key.sk))) {
    int r = from_key ? e : key_entity(pg, NULL, pkr, skr, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r != e) {
      if (lenient) {
        pi->entity = -1;
        return 1;
      }
      return ddbst__refuse(p, DDBST_EVALUE, up, NULL,
                           "%s says %s, but its key %s is not a %s's key",
                           m->entity_attr, ent->name, m->pk_attr, ent->name);
    }
    if (!recover(p, e, &ent->key.pk) || !recover(p, e, &ent->key.sk))
      return 0;
  }
  /* facets of sparse indexes, from those indexes' keys (a projection that
   * leaves them out still carries the keys) */
  for (int j = 0; j < ent->nindexes; j++) {
    const ddbst__ekey *k = &ent->indexes[j];
    const ddbst__index *ix = &m->indexes[k->index];
    if (ix->native) continue; /* its keys are the attributes themselves */
    if (!lacks(pg, &k->pk) && !lacks(pg, &k->sk)) continue;
    int32_t ipk =
        rec_of(pg, ddbst__page_name_id(pg, ix->pk_attr, strlen(ix->pk_attr)));
    int32_t isk = ix->sk_attr
                      ? rec_of(pg, ddbst__page_name_id(pg, ix->sk_attr,
                                                       strlen(ix->sk_attr)))
                      : -1;
    if (ipk < 0 || (ix->sk_attr && isk < 0) ||
        pg->attrs[ipk].type != DDBST__AV_S ||
        (isk >= 0 && pg->attrs[isk].type != DDBST__AV_S))
      continue;
    int r = key_entity(pg, ix->name, ipk, isk, &e2);
    if (r == DDBST_ENOMEM) return nomem(p);
    if (r == e && (!recover(p, e, &k->pk) || !recover(p, e, &k->sk))) return 0;
  }
  pi->count = pg->nattrs - pi->first;
  return 1;
}
