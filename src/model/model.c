/* The compiled model: lookups by name (load-time and caller-side only; the hot
 * path works by index), its description as JSON, and ULID generation. */
#include <string.h>

#include <sodium.h>

#include "model/facet.h"
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

static int put_str(ddbst_buf *b, const char *s) {
  return ddbst__json_string(b, s, strlen(s));
}

static int put_member(ddbst_buf *b, int *first, const char *name) {
  int rc = 0;
  if (!*first) rc = ddbst__buf_putc(b, ',');
  *first = 0;
  if (!rc) rc = put_str(b, name);
  if (!rc) rc = ddbst__buf_putc(b, ':');
  return rc;
}

static int describe_pattern(const ddbst_model *m, const ddbst__pattern *p,
                            ddbst_buf *b) {
  int first = 1, rc = ddbst__buf_putc(b, '{');
  rc = rc ? rc : put_member(b, &first, "op");
  rc = rc ? rc
          : put_str(b, p->op == DDBST__OP_GET     ? "get"
                       : p->op == DDBST__OP_QUERY ? "query"
                                                  : "scan");
  rc = rc ? rc : put_member(b, &first, "entities");
  rc = rc ? rc : ddbst__buf_putc(b, '[');
  for (int i = 0; !rc && i < p->nentities; i++) {
    if (i) rc = ddbst__buf_putc(b, ',');
    rc = rc ? rc : put_str(b, m->entities[p->entities[i]].name);
  }
  rc = rc ? rc : ddbst__buf_putc(b, ']');
  rc = rc ? rc : put_member(b, &first, "index");
  rc = rc ? rc
          : (p->index < 0 ? ddbst__buf_puts(b, "null")
                          : put_str(b, m->indexes[p->index].name));
  if (p->nentities > 0) {
    const ddbst__entity *e = &m->entities[p->entities[0]];
    /* the loader made sure the entity is in the index: never NULL */
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    rc = rc ? rc : put_member(b, &first, "pk");
    rc = rc ? rc : put_str(b, k->pk.source ? k->pk.source : "");
    if (k->sk.nsegs) {
      rc = rc ? rc : put_member(b, &first, "sk");
      rc = rc ? rc : put_str(b, k->sk.source);
    }
    if (p->range >= 0) {
      rc = rc ? rc : put_member(b, &first, "range");
      rc = rc ? rc : put_str(b, e->attrs[p->range].name);
    }
  }
  if (p->op == DDBST__OP_QUERY) {
    rc = rc ? rc : put_member(b, &first, "order");
    rc = rc ? rc : put_str(b, p->descending ? "desc" : "asc");
    char lim[64];
    if (p->limit_default || p->limit_max) {
      rc = rc ? rc : put_member(b, &first, "limit");
      int n = 0;
      if (p->limit_default && p->limit_max)
        n = snprintf(lim, sizeof lim, "{\"default\":%u,\"max\":%u}",
                     p->limit_default, p->limit_max);
      else if (p->limit_default)
        n = snprintf(lim, sizeof lim, "{\"default\":%u}", p->limit_default);
      else
        n = snprintf(lim, sizeof lim, "{\"max\":%u}", p->limit_max);
      rc = rc ? rc : ddbst__buf_append(b, lim, (size_t)n);
    }
  }
  return rc ? rc : ddbst__buf_putc(b, '}');
}

int ddbst_model_patterns_json(const ddbst_model *m, ddbst_buf *out,
                              ddbst_error *err) {
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  size_t start = out->len;
  int first = 1, rc = ddbst__buf_putc(out, '{');
  for (int i = 0; !rc && i < m->npatterns; i++) {
    rc = put_member(out, &first, m->patterns[i].name);
    rc = rc ? rc : describe_pattern(m, &m->patterns[i], out);
  }
  rc = rc ? rc : ddbst__buf_putc(out, '}');
  if (rc) {
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
