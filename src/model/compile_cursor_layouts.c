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

void ddbst__cursor_shape(const ddbst_model *m, const ddbst__pattern *p,
                         ddbst__cshape *s) {
  s->m = m;
  s->p = p;
  s->n = 0;
  if (p->index >= 0) {
    const ddbst__index *ix = &m->indexes[p->index];
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
    if (!(L->t[a] = ddbst__cursor_template(e, s->p->index, s->role[a])))
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
        L->slot[a][f++] = (signed char)(-1 - k);
        continue;
      }
      k = find_fkey(carried, L->ncarried, seg);
      if (k < 0) {
        k = L->ncarried++;
        carried[k] = (ddbst__cfkey){seg->attr, seg->lower};
      }
      L->slot[a][f++] = (signed char)k;
    }
  }
  return 0;
}

/* [pattern name, index name or null, descending, ...: the context's
 * head, as ddbst__cursor_context writes it, into the arena. Names are
 * identifiers of at most 255 bytes (the loader's check). */
static int context_head(ddbst_model *m, const ddbst__pattern *p,
                        ddbst__cursor_plan *c) {
  const char *ix = p->index >= 0 ? m->indexes[p->index].name : NULL;
  size_t pn = strlen(p->name), xn = ix ? strlen(ix) : 0;
  uint8_t *h = ddbst__arena_alloc(&m->arena, 1 + 3 + pn + 3 + xn + 1);
  if (!h) return DDBST_ENOMEM;
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
  c->ctx_head = h;
  c->ctx_head_len = n;
  return 0;
}

int ddbst__compile_cursor_layouts(ddbst_model *m) {
  for (int i = 0; i < m->npatterns; i++) {
    ddbst__pattern *p = &m->patterns[i];
    if (p->op != DDBST__OP_QUERY) continue;
    ddbst__cursor_plan *c = ddbst__arena_alloc(&m->arena, sizeof *c);
    if (!c) return DDBST_ENOMEM;
    ddbst__cursor_shape(m, p, &c->shape);
    int rc = context_head(m, p, c);
    if (rc) return rc;
    if (p->nentities) {
      c->layouts =
          ddbst__arena_alloc(&m->arena, (size_t)p->nentities * sizeof *c->layouts);
      if (!c->layouts) return DDBST_ENOMEM;
    }
    for (int j = 0; j < p->nentities; j++) {
      ddbst__clayout *L = &c->layouts[j];
      ddbst__cfkey carried[DDBST__CURSOR_MAX_VALUES];
      if (ddbst__cursor_layout(&c->shape, p->entities[j], L, carried) < 0 ||
          !L->ncarried)
        continue;
      ddbst__cfkey *own =
          ddbst__arena_alloc(&m->arena, (size_t)L->ncarried * sizeof *own);
      if (!own) return DDBST_ENOMEM;
      memcpy(own, carried, (size_t)L->ncarried * sizeof *own);
      L->carried = own;
    }
    p->cursor = c;
  }
  return 0;
}
