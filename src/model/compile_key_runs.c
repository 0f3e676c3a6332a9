/* Key runs (ddbst__jrun): a pair of simple key templates as the members of
 * the keys object, literal JSON text between the facets, so that a simple
 * entity's keys are written straight from its values (keys.c,
 * keys_json_simple); and the same pair as members of an Item, in
 * AttributeValue form (item_body.c). */
#include <stdint.h>
#include <string.h>

#include "model/compile.h"

/* The text of a run (ddbst__jrun) up to the next facet (or the end), into
 * the arena: the run's head, or the last piece's text after its facet. */
static int end_text(ddbst_model *m, ddbst_buf *pending, ddbst__jrun *out) {
  const char *text =
      ddbst__arena_strndup(&m->arena, pending->data, pending->len);
  if (!text) return DDBST_ENOMEM;
  out->text_len += (uint32_t)pending->len;
  if (out->npieces == 0) {
    out->head = text;
    out->head_len = (uint32_t)pending->len;
  } else {
    out->pieces[out->npieces - 1].lit = text;
    out->pieces[out->npieces - 1].lit_len = (uint32_t)pending->len;
  }
  ddbst_buf_reset(pending);
  return 0;
}

/* `ek`'s keys, named `pk_jname` and `sk_jname` (NULL: no sort key), as one
 * run of the keys object (ddbst__jrun), or with `av` of an Item: each value
 * between `{"S":"` and `"}` rather than quotes. */
static int make_jrun(ddbst_model *m, ddbst_buf *pending, const ddbst__ekey *ek,
                     const ddbst__jtext *pk_jname, const ddbst__jtext *sk_jname,
                     int av, ddbst__jrun *out) {
  const char *open = av ? "{\"S\":\"" : "\"", *close = av ? "\"}," : "\",";
  memset(out, 0, sizeof *out);
  const ddbst__template *ts[2] = {&ek->pk, &ek->sk};
  const ddbst__jtext *names[2] = {pk_jname, sk_jname};
  int nkeys = sk_jname ? 2 : 1;
  /* no pk_jname: a local index's, whose partition key the table's run
   * writes; the run is its sort key alone */
  int first = pk_jname ? 0 : 1;
  if ((!first && !ek->pk.simple) || (sk_jname && !ek->sk.simple)) return 0;
  out->pieces =
      ddbst__arena_alloc(&m->arena, (size_t)(ek->pk.nfacets + ek->sk.nfacets) *
                                        sizeof *out->pieces);
  if (!out->pieces) return DDBST_ENOMEM;
  ddbst_buf_reset(pending);
  for (int k = first; k < nkeys; k++) {
    const ddbst__template *t = ts[k];
    out->lits[k] = t->literal_len;
    out->names_raw += names[k]->raw_len;
    if (ddbst__buf_append(pending, names[k]->p, names[k]->n) ||
        ddbst__buf_puts(pending, open))
      return DDBST_ENOMEM;
    for (int g = 0; g < t->nsegs; g++) {
      if (t->segs[g].attr < 0) {
        if (ddbst__buf_append(pending, t->segs[g].text, t->segs[g].len))
          return DDBST_ENOMEM;
        continue;
      }
      /* a facet: the text so far is the head, or the last piece's */
      if (end_text(m, pending, out)) return DDBST_ENOMEM;
      out->pieces[out->npieces++] = (ddbst__jpiece){NULL, 0, t->segs[g].attr,
                                                    k};
    }
    if (ddbst__buf_puts(pending, close)) return DDBST_ENOMEM;
  }
  return end_text(m, pending, out);
}

/* Each pair of simple keys of each entity as a run of the keys object
 * (ddbst__jrun); an entity's keys are simple when every pair has its run. */
int ddbst__compile_key_runs(ddbst_model *m) {
  ddbst_buf tmp;
  ddbst__buf_init(&tmp, &m->alloc);
  int rc = 0;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    for (int av = 0; !rc && av < 2; av++)
      rc = make_jrun(m, &tmp, &en->key, &m->pk_jname,
                     m->sk_attr ? &m->sk_jname : NULL, av,
                     av ? &en->key.avrun : &en->key.jrun);
    en->keys_simple = en->key.jrun.head != NULL;
    en->item_fixed = en->key.avrun.text_len + en->type_av.n;
    for (int i = 0; !rc && i < en->nindexes; i++) {
      ddbst__ekey *k = &en->indexes[i];
      const ddbst__index *ix = &m->indexes[k->index];
      /* no keys of its own: native, or both the table's */
      if (!ddbst__index_own_pk(ix) && !ddbst__index_own_sk(ix)) continue;
      for (int av = 0; !rc && av < 2; av++)
        rc = make_jrun(m, &tmp, k,
                       ddbst__index_own_pk(ix) ? &ix->pk_jname : NULL,
                       ddbst__index_own_sk(ix) ? &ix->sk_jname : NULL, av,
                       av ? &k->avrun : &k->jrun);
      en->keys_simple &= k->jrun.head != NULL;
      en->item_fixed += k->avrun.text_len;
    }
    for (int a = 0; a < en->nattrs; a++)
      en->item_fixed += en->attrs[a].s_member.n + 3; /* and `"},` */
  }
  ddbst__buf_release(&tmp);
  return rc;
}
