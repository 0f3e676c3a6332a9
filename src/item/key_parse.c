/* Items from keys: which entity's template a key fits, and the facet values
 * it stands for, read back through the facet renderer's reverse
 * (facet_key.h), so a key parses only if it is what the renderer writes. */
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "item/facet_key.h"
#include "item/keys.h"
#include "model/suggest.h"

/* The facet value key text `s` stands for, stored into the item. Returns 0,
 * DDBST_EVALUE with `why` when `s` is no key form of a value, or
 * DDBST_ENOMEM. A facet seen twice (ORG#{orgId} in PK and SK) must agree. The
 * item's key buffer is the scratch space, so a warm item does not allocate. */
static int take_facet(ddbst_item *it, const ddbst__seg *seg, const char *s,
                      size_t n, char *why, size_t cap) {
  const ddbst__attr *a = &ddbst__entity_of(it)->attrs[seg->attr];
  ddbst_buf *sc = &it->keytext;
  ddbst_buf_reset(sc);
  int rc = ddbst__facet_from_key(it->m, a, seg->lower, s, n, sc, why, cap);
  if (rc) return rc;
  const char *text = sc->data;
  size_t len = sc->len;
  size_t have_len;
  const char *have = ddbst__item_text(it, seg->attr, &have_len);
  if (have) {
    if (have_len != len || memcmp(have, text, len) != 0) {
      snprintf(why, cap, "%s differs between the keys", a->name);
      return DDBST_EVALUE;
    }
    return 0;
  }
  return ddbst__item_store(it, seg->attr, text, len) ? DDBST_ENOMEM : 0;
}

/* Matches one template against `key`, storing facets. 1 match, 0 not this
 * template, DDBST_EVALUE / DDBST_ENOMEM. */
static int match_one(ddbst_item *it, const ddbst__template *t, const char *key,
                     size_t len, char *why, size_t cap) {
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!ddbst__template_split(t, key, len, it->m->delim, it->m->delim_len,
                             spans))
    return 0;
  int f = 0;
  for (int i = 0; i < t->nsegs; i++) {
    if (t->segs[i].attr < 0) continue;
    int r = take_facet(it, &t->segs[i], key + spans[2 * f], spans[2 * f + 1],
                       why, cap);
    if (r) return r;
    f++;
  }
  return 1;
}

int ddbst_item_from_key(ddbst_item *it, const char *index, const char *pk,
                        size_t pk_len, const char *sk, size_t sk_len,
                        ddbst_error *err) {
  if (!it || !pk) return ddbst__fail(err, DDBST_EINVAL, NULL, "item or pk is NULL");
  pk_len = ddbst__len(pk, pk_len);
  sk_len = ddbst__len(sk, sk_len);
  const ddbst_model *m = it->m;
  int ix = -1;
  if (index) {
    for (int i = 0; i < m->nindexes; i++)
      if (strcmp(m->indexes[i].name, index) == 0) ix = i;
    char tail[DDBST__TAIL_CAP];
    if (ix < 0)
      return ddbst__fail(
          err, DDBST_ENOTFOUND, "index", "the table has no index named %s%s",
          index,
          ddbst__suggest_tail(ddbst__suggest_index(m, index), tail,
                              sizeof tail));
    if (m->indexes[ix].native)
      return ddbst__fail(err, DDBST_EINVAL, "index",
                         "index %s is keyed on the entities' own attributes: "
                         "its keys are values, not key text to parse",
                         index);
  }
  char why[320] = "";
  int rc = DDBST_ENOTFOUND;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    const ddbst__ekey *k = ddbst__entity_key(ent, ix);
    if (!k) continue;
    int has_sk = k->sk.nsegs > 0;
    if (has_sk != (sk != NULL)) continue;
    ddbst_item_reset(it, e);
    char here[200];
    int r = match_one(it, &k->pk, pk, pk_len, here, sizeof here);
    if (r == 1 && has_sk)
      r = match_one(it, &k->sk, sk, sk_len, here, sizeof here);
    if (r == 1) {
      ddbst_buf_reset(&it->keytext);
      return e;
    }
    if (r == DDBST_ENOMEM) {
      rc = r;
      break;
    }
    if (r == DDBST_EVALUE && rc == DDBST_ENOTFOUND) {
      rc = DDBST_EVALUE;
      snprintf(why, sizeof why, "%s: %s", ent->name, here);
    }
  }
  ddbst_item_reset(it, it->entity);
  if (rc == DDBST_ENOMEM)
    return ddbst__fail(err, rc, NULL, "out of memory");
  if (rc == DDBST_EVALUE)
    return ddbst__fail(err, rc, "key", "the key has the shape of %s", why);
  return ddbst__fail(err, DDBST_ENOTFOUND, "key",
                     "no entity's %s key template matches this key",
                     index ? index : "primary");
}
