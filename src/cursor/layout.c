/* A pattern's cursor layout: shapes, layouts, the carried facets' compact
 * forms and the keys rebuilt from them (layout.h). */
#include "cursor/layout.h"

#include <stdio.h>
#include <string.h>

#include "item/attribute_value.h"
#include "item/facet_key.h"
#include "model/facet.h"

static int split(const ddbst_model *m, const ddbst__template *t, view v,
                 size_t *spans) {
  return ddbst__template_split(t, v.p, v.n, m->delim, m->delim_len, spans);
}

/* The facet texts of the partition value, in template order. */
int ddbst__cursor_partition_facets(const shape *s, const layout *L, view part,
                                   view *fixed) {
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!split(s->m, L->t[0], part, spans))
    return 0;
  for (int f = 0; f < L->nfixed; f++)
    fixed[f] = (view){part.p + spans[2 * f], spans[2 * f + 1]};
  return 1;
}

/* Whether the keys vals[1..] are keys of the layout's entity in the
 * partition vals[0]; fills the carried facets' texts. */
int ddbst__cursor_entity_fits(const shape *s, const layout *L, const view *vals,
                              view *carried) {
  view fixed[DDBST__MAX_FACETS];
  if (!ddbst__cursor_partition_facets(s, L, vals[0], fixed))
    return 0;
  uint64_t have = 0; /* bit k: carried[k] is set */
  _Static_assert(MAX_VALUES <= 64, "one bit per carried value");
  size_t spans[2 * DDBST__MAX_FACETS];
  for (int a = 1; a < s->n; a++) {
    if (!split(s->m, L->t[a], vals[a], spans))
      return 0;
    for (int f = 0; f < L->t[a]->nfacets; f++) {
      view v = {vals[a].p + spans[2 * f], spans[2 * f + 1]};
      int k = L->slot[a - 1][f];
      if (k < 0) {
        if (!view_eq(v, fixed[-1 - k]))
          return 0;
        continue;
      }
      if ((have >> k & 1) && !view_eq(v, carried[k]))
        return 0;
      carried[k] = v;
      have |= UINT64_C(1) << k;
    }
  }
  return 1;
}

/* Whether `v` is a key some entity of the model (or a unique guard) could
 * have written as key attribute `role`. */
int ddbst__cursor_model_fits(const ddbst_model *m, int index, int role,
                             view v) {
  size_t spans[2 * DDBST__MAX_FACETS];
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__template *t =
        ddbst__cursor_template(&m->entities[e], index, role);
    if (t && split(m, t, v, spans))
      return 1;
  }
  if (role == ROLE_PK || role == ROLE_SK)
    for (int e = 0; e < m->nentities; e++)
      for (int u = 0; u < m->entities[e].nuniques; u++)
        if (split(m, &m->entities[e].uniques[u].tmpl, v, spans))
          return 1;
  return 0;
}

static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* Canonical ULID text → its 128 bits. */
static void ulid_to_bytes(const char *s, uint8_t b[16]) {
  memset(b, 0, 16);
  for (int c = 0; c < DDBST__ULID_LEN; c++) {
    unsigned v = (unsigned)(strchr(CROCKFORD, s[c]) - CROCKFORD);
    for (int j = 0; j < 5; j++) {
      int bit = c * 5 + j - 2; /* two leading zero bits */
      if (bit >= 0 && ((v >> (4 - j)) & 1u))
        b[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
    }
  }
}

static int64_t ts_unit(int precision) {
  return precision == DDBST__PREC_S    ? 1000000
         : precision == DDBST__PREC_MS ? 1000
                                       : 1;
}

/* Typed only where the key holds the value as it is (ddbst__seg.as_is,
 * and integers at their width): then the key text is a value's key form
 * exactly when its type's decoder takes it, so the decoders below are the
 * reverse of the facet renderer (tests/fuzz/fuzz_engine.c holds them to
 * it through the cursor's round trip). Lower-cased and escaped text goes
 * as text. */
void ddbst__cursor_put_facet(cw *w, const ddbst__attr *a, int lower, view v) {
  int plain = !a->escape && !lower;
  if (plain && a->type == DDBST__T_TIMESTAMP) {
    /* ts_to_unix_us takes canonical text only, so text of the length of
     * this precision's is canonical at this precision */
    size_t canon_len = 20 + (a->precision ? (size_t)a->precision + 1 : 0);
    int64_t us;
    if (v.n == canon_len && !ddbst__ts_to_unix_us(v.p, v.n, &us)) {
      cw_int(w, us / ts_unit(a->precision));
      return;
    }
  }
  if (plain && a->type == DDBST__T_INTEGER) {
    int64_t x;
    if (!ddbst__int_from_key(v.p, v.n, a->width, a->sortable_negative, &x)) {
      cw_int(w, x);
      return;
    }
  }
  if (plain && a->type == DDBST__T_ULID) {
    char tmp[DDBST__ULID_LEN];
    if (!ddbst__ulid_canon(v.p, v.n, tmp) && !memcmp(tmp, v.p, v.n)) {
      uint8_t b[16];
      ulid_to_bytes(v.p, b);
      cw_bytes(w, b, sizeof b);
      return;
    }
  }
  cw_text(w, v.p, v.n);
}
