/* What a query pattern's cursor holds, compiled at load
 * (compile_cursor_layouts.c) so that sealing and opening a cursor look
 * nothing up: the key attributes of the pattern's LastEvaluatedKey (the
 * shape), and for each entity it reads how that entity's keys split into
 * the facets the query fixes and those the cursor carries (the layout).
 * src/cursor/ reads them (cursor/layout.h). */
#ifndef DDBST_MODEL_CURSOR_LAYOUT_H
#define DDBST_MODEL_CURSOR_LAYOUT_H

#include "model/model.h"

/* A query's LastEvaluatedKey holds the key attributes of the last item it
 * read: the table's partition and sort key, and for an index query the
 * index's too. The first is the partition the query fixes. */
enum { DDBST__ROLE_IX_PK, DDBST__ROLE_IX_SK, DDBST__ROLE_PK, DDBST__ROLE_SK };

/* Facets of four key templates: the most a cursor carries. */
enum { DDBST__CURSOR_MAX_VALUES = 4 * DDBST__MAX_FACETS };

/* One per index (and one for the table) that query patterns read, shared
 * by those patterns: 801 queries of a 1,000-pattern model held 26
 * different shapes. */
typedef struct ddbst__cshape {
  const ddbst_model *m;
  int index; /* the index the query reads, -1: the table */
  const char *name[4];
  const ddbst__jtext *jname[4]; /* "PK": */
  int role[4];
  size_t limit[4];
  int n;
} ddbst__cshape;

/* A facet as a key holds it: the attribute, and whether the template
 * lower-cases it (the same attribute may appear both ways). */
typedef struct ddbst__cfkey {
  int attr, lower;
} ddbst__cfkey;

/* How one entity's keys become cursor values: the facets of the partition
 * template are fixed by the query; every other facet of the remaining
 * templates is carried once, in order of first appearance. Kept per
 * (pattern, entity) for the life of the model, so only what opening and
 * sealing read is kept, the carried facets in an array of their own size:
 * a generated model of 1,000 patterns made the load's memory, and with it
 * its page faults, grow by 650 KB with both lists at their maximum. */
typedef struct ddbst__clayout {
  const ddbst__entity *e; /* NULL: no key in the index the pattern reads */
  const ddbst__template *t[4];
  const ddbst__cfkey *carried; /* ncarried, in the plan's block */
  int nfixed, ncarried;
  /* Where facet f of template t[a] (a >= 1) comes from (slot[a - 1][f]):
   * carried value k (k), or fixed facet k (-1 - k). */
  signed char slot[3][DDBST__MAX_FACETS];
} ddbst__clayout;

_Static_assert(DDBST__CURSOR_MAX_VALUES <= 127 && DDBST__MAX_FACETS <= 128,
               "layout slots fit a signed char");

/* A query pattern's cursor: its shape (its index's), and a layout per
 * entity it reads (layouts[j] for entities[j]); one block in the arena
 * with the carried facets and the context's head after the layouts. */
struct ddbst__cursor_plan {
  const ddbst__cshape *shape;
  /* The cursor context's head (cursor/envelope.c): the CBOR array's first
   * byte, the pattern's name, the index's name or null, and the order, so
   * that sealing and opening write only the partition after it. */
  const uint8_t *ctx_head;
  size_t ctx_head_len;
  ddbst__clayout layouts[];
};

/* The head of a CBOR text string of n < 65536 bytes at `at` (the shortest,
 * as libcbor's encoder writes it): its length, 1 to 3. */
static inline size_t ddbst__cbor_text_head(uint8_t *at, size_t n) {
  if (n < 24) {
    at[0] = (uint8_t)(0x60 | n);
    return 1;
  }
  if (n < 256) {
    at[0] = 0x78;
    at[1] = (uint8_t)n;
    return 2;
  }
  at[0] = 0x79;
  at[1] = (uint8_t)(n >> 8);
  at[2] = (uint8_t)n;
  return 3;
}

/* The key attributes of the LastEvaluatedKey of a query of index `index`
 * (-1: the table), the query's partition first. */
void ddbst__cursor_shape(const ddbst_model *m, int index, ddbst__cshape *s);

/* The template entity `e` writes key attribute `role` with, or NULL. */
const ddbst__template *ddbst__cursor_template(const ddbst__entity *e, int index,
                                              int role);

/* Entity `entity`'s layout for shape `s`, its carried facets written to
 * `carried` (room for DDBST__CURSOR_MAX_VALUES; L->carried is left for the
 * caller to point at a copy): 0, or -1 (and L->e NULL) when the entity has
 * no key in the index the pattern reads. */
int ddbst__cursor_layout(const ddbst__cshape *s, int entity, ddbst__clayout *L,
                         ddbst__cfkey *carried);

#endif
