/* The compiled model: lookups by name (load-time and caller-side only; the hot
 * path works by index), its description as JSON, and ULID generation. */
#include <string.h>

#include <sodium.h>

#include "model/facet.h"
#include "json/jw.h"
#include "model/model.h"

void ddbst_model_free(ddbst_model *m) {
  if (!m) return;
  if (m->ulid) {
    ddbst__fork_lock_remove(&m->ulid->fork);
    pthread_mutex_destroy(&m->ulid->lock);
  }
  ddbst_allocator a = m->alloc;
  ddbst__arena_free(&m->arena);
  ddbst__free(&a, m);
}

const char *ddbst_model_table_name(const ddbst_model *m) {
  return m ? m->table_name : NULL;
}

int ddbst_model_entity_count(const ddbst_model *m) {
  return m ? m->nentities : DDBST_EINVAL;
}

int ddbst_model_entity(const ddbst_model *m, const char *name) {
  if (!m || !name) return DDBST_EINVAL;
  for (int i = 0; i < m->nentities; i++)
    if (strcmp(m->entities[i].name, name) == 0) return i;
  return DDBST_ENOTFOUND;
}

const char *ddbst_model_entity_name(const ddbst_model *m, int e) {
  return m && e >= 0 && e < m->nentities ? m->entities[e].name : NULL;
}

int ddbst_model_attribute_count(const ddbst_model *m, int e) {
  return m && e >= 0 && e < m->nentities ? m->entities[e].nattrs
                                         : DDBST_EINVAL;
}

int ddbst_model_attribute(const ddbst_model *m, int e, const char *name) {
  if (!m || e < 0 || e >= m->nentities || !name) return DDBST_EINVAL;
  const ddbst__entity *ent = &m->entities[e];
  for (int i = 0; i < ent->nattrs; i++)
    if (strcmp(ent->attrs[i].name, name) == 0) return i;
  return DDBST_ENOTFOUND;
}

const char *ddbst_model_attribute_name(const ddbst_model *m, int e, int a) {
  if (!m || e < 0 || e >= m->nentities) return NULL;
  const ddbst__entity *ent = &m->entities[e];
  return a >= 0 && a < ent->nattrs ? ent->attrs[a].name : NULL;
}

const char *ddbst_model_attribute_type(const ddbst_model *m, int e, int a) {
  if (!m || e < 0 || e >= m->nentities) return NULL;
  const ddbst__entity *ent = &m->entities[e];
  return a >= 0 && a < ent->nattrs ? ddbst__type_name(ent->attrs[a].type)
                                   : NULL;
}

int ddbst_model_pattern_count(const ddbst_model *m) {
  return m ? m->npatterns : DDBST_EINVAL;
}

int ddbst_model_pattern(const ddbst_model *m, const char *name) {
  if (!m || !name) return DDBST_EINVAL;
  for (int i = 0; i < m->npatterns; i++)
    if (strcmp(m->patterns[i].name, name) == 0) return i;
  return DDBST_ENOTFOUND;
}

const char *ddbst_model_pattern_name(const ddbst_model *m, int p) {
  return m && p >= 0 && p < m->npatterns ? m->patterns[p].name : NULL;
}

int ddbst_model_pattern_entity(const ddbst_model *m, int p, int i) {
  if (!m || p < 0 || p >= m->npatterns) return DDBST_EINVAL;
  if (i < 0 || i >= m->patterns[p].nentities) return DDBST_ENOTFOUND;
  return m->patterns[p].entities[i];
}

int ddbst_model_pattern_is_query(const ddbst_model *m, int p) {
  if (!m || p < 0 || p >= m->npatterns) return DDBST_EINVAL;
  return m->patterns[p].op == DDBST__OP_QUERY;
}

/* ---- description ---- */

static void describe_pattern(const ddbst_model *m, const ddbst__pattern *p,
                             ddbst__jw *w) {
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "op",
                 p->op == DDBST__OP_GET     ? "get"
                 : p->op == DDBST__OP_QUERY ? "query"
                                            : "scan");
  ddbst__jw_key(w, "entities");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < p->nentities; i++)
    ddbst__jw_str(w, m->entities[p->entities[i]].name);
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "index");
  if (p->index < 0)
    ddbst__jw_null(w);
  else
    ddbst__jw_str(w, m->indexes[p->index].name);
  if (p->nentities > 0) {
    const ddbst__entity *e = &m->entities[p->entities[0]];
    /* the loader made sure the entity is in the index: never NULL */
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    ddbst__jw_pair(w, "pk", k->pk.source ? k->pk.source : "");
    if (k->sk.nsegs) ddbst__jw_pair(w, "sk", k->sk.source);
    if (p->range >= 0) ddbst__jw_pair(w, "range", e->attrs[p->range].name);
  }
  if (p->op == DDBST__OP_QUERY) {
    ddbst__jw_pair(w, "order", p->descending ? "desc" : "asc");
    if (p->limit_default || p->limit_max) {
      ddbst__jw_key(w, "limit");
      ddbst__jw_open(w, '{');
      if (p->limit_default) {
        ddbst__jw_key(w, "default");
        ddbst__jw_int(w, p->limit_default);
      }
      if (p->limit_max) {
        ddbst__jw_key(w, "max");
        ddbst__jw_int(w, p->limit_max);
      }
      ddbst__jw_close(w, '}');
    }
  }
  ddbst__jw_close(w, '}');
}

int ddbst_model_patterns_json(const ddbst_model *m, ddbst_buf *out,
                              ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  for (int i = 0; i < m->npatterns; i++) {
    ddbst__jw_key(&w, m->patterns[i].name);
    describe_pattern(m, &m->patterns[i], &w);
  }
  ddbst__jw_close(&w, '}');
  if (w.rc) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}

/* ---- ULIDs ---- */

/* Monotonic within the model: in the same millisecond (or if the clock steps
 * back) the previous random part is incremented, so ULIDs from one process
 * sort in creation order. */
int ddbst__model_next_ulid(const ddbst_model *m, uint64_t now_ms,
                           char out[26]) {
  struct ddbst__ulid_state *s = m->ulid;
  if (sodium_init() < 0) return DDBST_ENOMEM;
  pthread_mutex_lock(&s->lock);
  unsigned long gen = ddbst__fork_generation();
  if (now_ms > s->ms || s->gen != gen) {
    /* a new millisecond, or a forked child: fresh randomness (a child
     * counting on from its parent's would repeat the parent's ULIDs) */
    s->ms = now_ms > s->ms ? now_ms : s->ms;
    s->gen = gen;
    randombytes_buf(s->rand, sizeof s->rand);
  } else {
    int i = (int)sizeof s->rand - 1;
    while (i >= 0 && ++s->rand[i] == 0) i--;
    if (i < 0) {
      /* 2^80 ULIDs in one millisecond: move to the next one. */
      s->ms++;
      randombytes_buf(s->rand, sizeof s->rand);
    }
  }
  uint64_t ms = s->ms;
  uint8_t rnd[10];
  memcpy(rnd, s->rand, sizeof rnd);
  pthread_mutex_unlock(&s->lock);
  ddbst__ulid_encode(ms & 0xFFFFFFFFFFFFull, rnd, out);
  return 0;
}
