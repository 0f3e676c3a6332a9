/* Each query pattern's cursor shape and its entities' layouts, made once at
 * load (cursor_layout.h): opening a cursor found them per call, a tenth of
 * what it cost beyond the decryption (docs/performance.md). */
#include "model/cursor_layout.h"

#include <string.h>

#include "model/compile.h"

static void shape_push(ddbst__cshape *s, const char *name,
                       const ddbst__jtext *jname, int role, size_t limit) {
  for (int i = 0; i < s->n; i++)
    if (s->name[i][0] == name[0] && !strcmp(s->name[i], name)) return;
  s->name[s->n] = name;
  s->jname[s->n] = jname;
  s->role[s->n] = role;
  s->limit[s->n] = limit;
  s->n++;
}

void ddbst__cursor_shape(const ddbst_model *m, int index, ddbst__cshape *s) {
  s->m = m;
  s->index = index;
  s->n = 0;
  if (index >= 0) {
    const ddbst__index *ix = &m->indexes[index];
    shape_push(s, ix->pk_attr, &ix->pk_jname, DDBST__ROLE_IX_PK,
               DDBST__PK_MAX);
    if (ix->sk_attr)
      shape_push(s, ix->sk_attr, &ix->sk_jname, DDBST__ROLE_IX_SK,
                 DDBST__SK_MAX);
  }
  shape_push(s, m->pk_attr, &m->pk_jname, DDBST__ROLE_PK, DDBST__PK_MAX);
  if (m->sk_attr)
    shape_push(s, m->sk_attr, &m->sk_jname, DDBST__ROLE_SK, DDBST__SK_MAX);
}

const ddbst__template *ddbst__cursor_template(const ddbst__entity *e, int index,
                                              int role) {
  int table = role == DDBST__ROLE_PK || role == DDBST__ROLE_SK;
  const ddbst__ekey *k = ddbst__entity_key(e, table ? -1 : index);
  if (!k) return NULL;
  const ddbst__template *t =
      role == DDBST__ROLE_IX_PK || role == DDBST__ROLE_PK ? &k->pk : &k->sk;
  return t->nsegs ? t : NULL;
}

static int find_fkey(const ddbst__cfkey *list, int n, const ddbst__seg *seg) {
  for (int i = 0; i < n; i++)
    if (list[i].attr == seg->attr && list[i].lower == seg->lower) return i;
  return -1;
}

int ddbst__cursor_layout(const ddbst__cshape *s, int entity, ddbst__clayout *L,
                         ddbst__cfkey *carried) {
  const ddbst__entity *e = &s->m->entities[entity];
  ddbst__cfkey fixed[DDBST__MAX_FACETS];
  L->e = NULL;
  L->carried = NULL;
  L->nfixed = L->ncarried = 0;
  for (int a = 0; a < s->n; a++)
    if (!(L->t[a] = ddbst__cursor_template(e, s->index, s->role[a])))
      return -1;
  L->e = e;
  for (int i = 0; i < L->t[0]->nsegs; i++) {
    const ddbst__seg *seg = &L->t[0]->segs[i];
    if (seg->attr >= 0) fixed[L->nfixed++] = (ddbst__cfkey){seg->attr, seg->lower};
  }
  for (int a = 1; a < s->n; a++) {
    int f = 0;
    for (int i = 0; i < L->t[a]->nsegs; i++) {
      const ddbst__seg *seg = &L->t[a]->segs[i];
      if (seg->attr < 0) continue;
      int k = find_fkey(fixed, L->nfixed, seg);
      if (k >= 0) {
        L->slot[a - 1][f++] = (signed char)(-1 - k);
        continue;
      }
      k = find_fkey(carried, L->ncarried, seg);
      if (k < 0) {
        k = L->ncarried++;
        carried[k] = (ddbst__cfkey){seg->attr, seg->lower};
      }
      L->slot[a - 1][f++] = (signed char)k;
    }
  }
  return 0;
}

/* The bytes of [pattern name, index name or null, descending, ...: the
 * context's head, as ddbst__cursor_context writes it. Names are
 * identifiers of at most 255 bytes (the loader's check). */
static size_t context_head_size(const ddbst_model *m, const ddbst__pattern *p) {
  const char *ix = p->index >= 0 ? m->indexes[p->index].name : NULL;
  return 1 + 3 + strlen(p->name) + 3 + (ix ? strlen(ix) : 0) + 1;
}

/* Writes the head at `h`: its length. */
static size_t context_head(const ddbst_model *m, const ddbst__pattern *p,
                           uint8_t *h) {
  const char *ix = p->index >= 0 ? m->indexes[p->index].name : NULL;
  size_t pn = strlen(p->name), xn = ix ? strlen(ix) : 0;
  size_t n = 0;
  h[n++] = 0x84; /* array of 4 */
  n += ddbst__cbor_text_head(h + n, pn);
  memcpy(h + n, p->name, pn);
  n += pn;
  if (ix) {
    n += ddbst__cbor_text_head(h + n, xn);
    memcpy(h + n, ix, xn);
    n += xn;
  } else {
    h[n++] = 0xf6; /* null */
  }
  h[n++] = p->descending ? 0xf5 : 0xf4; /* true, false */
  return n;
}

/* The shape of index `index` (-1: the table), made once for every query of
 * it. */
static const ddbst__cshape *shared_shape(ddbst_model *m, ddbst__cshape **shapes,
                                         int index) {
  ddbst__cshape **s = &shapes[index + 1];
  if (!*s && (*s = ddbst__arena_alloc(&m->arena, sizeof **s)))
    ddbst__cursor_shape(m, index, *s);
  return *s;
}

/* Pattern p's plan in one block: the plan and its layouts, the carried
 * facets of each, the context's head. The layouts are made twice, first
 * to count their carried facets, rather than kept in a scratch buffer. */
static int make_plan(ddbst_model *m, ddbst__pattern *p, const ddbst__cshape *s) {
  ddbst__clayout L;
  ddbst__cfkey carried[DDBST__CURSOR_MAX_VALUES];
  size_t ncarried = 0;
  for (int j = 0; j < p->nentities; j++)
    if (ddbst__cursor_layout(s, p->entities[j], &L, carried) == 0)
      ncarried += L.ncarried;
  size_t head = sizeof(ddbst__cursor_plan) +
                (size_t)p->nentities * sizeof(ddbst__clayout);
  size_t facets = ncarried * sizeof *carried;
  char *block =
      ddbst__arena_alloc(&m->arena, head + facets + context_head_size(m, p));
  if (!block) return DDBST_ENOMEM;
  ddbst__cursor_plan *c = (ddbst__cursor_plan *)(void *)block;
  ddbst__cfkey *own = (ddbst__cfkey *)(void *)(block + head);
  for (int j = 0; j < p->nentities; j++) {
    ddbst__clayout *lj = &c->layouts[j];
    if (ddbst__cursor_layout(s, p->entities[j], lj, own) < 0 || !lj->ncarried)
      continue;
    lj->carried = own;
    own += lj->ncarried;
  }
  uint8_t *h = (uint8_t *)block + head + facets;
  c->shape = s;
  c->ctx_head = h;
  c->ctx_head_len = context_head(m, p, h);
  p->cursor = c;
  return 0;
}

int ddbst__compile_cursor_layouts(ddbst_model *m) {
  /* in the arena: a few pointers, where a scratch allocation would be one
   * more of the load's */
  ddbst__cshape **shapes =
      ddbst__arena_alloc(&m->arena, ((size_t)m->nindexes + 1) * sizeof *shapes);
  if (!shapes) return DDBST_ENOMEM;
  for (int i = 0; i < m->npatterns; i++) {
    ddbst__pattern *p = &m->patterns[i];
    if (p->op != DDBST__OP_QUERY) continue;
    const ddbst__cshape *s = shared_shape(m, shapes, p->index);
    int rc = s ? make_plan(m, p, s) : DDBST_ENOMEM;
    if (rc) return rc;
  }
  return 0;
}
