/* An UpdateItem of one entity as fixed texts, made at load
 * (compile_update_plans.c) and written by request/update_plan.c: the body
 * up to `"UpdateExpression":"SET` is steps of a text then a primary-key
 * facet; each attribute the update sets has its names-map member made
 * whole (`,"#n0":"status"`, the digit patched per request); each index
 * knows, as bitmasks over the attributes, which values given rewrite its
 * keys and which it then needs. The placeholders stay numbered by their
 * place in the request, as the general writer numbers them: a text's
 * digit is one byte written, and the bodies stay the same bytes. */
#ifndef DDBST_UPDATE_PLAN_H
#define DDBST_UPDATE_PLAN_H

#include <stdint.h>

#include "model/model.h"

/* An index key the update rewrites: its names-map member and template. */
typedef struct ddbst__ukey {
  ddbst__jtext member; /* `,"#n0":"GSI2PK"`: digit at 4 */
  const ddbst__template *t; /* simple: pieces and tail */
} ddbst__ukey;

/* An index the entity is in, as an update decides it (request.c's
 * index_action for an update with no REMOVE, ADD or append): untouched when
 * no value in `touch` is given; else rewritten, needing every value in
 * `need` and its "when" conditions holding. */
typedef struct ddbst__uindex {
  uint64_t touch, need;
  const ddbst__ekey *k;
  ddbst__ukey keys[2];
  int nkeys;
  int plannable; /* simple templates, names of their own: else declined */
} ddbst__uindex;

/* A text, then attribute `attr`'s value. */
typedef struct ddbst__ustep {
  const char *text; /* in the arena: padded */
  uint32_t len;
  int attr;
} ddbst__ustep;

/* A value a whole body copies, whose scan (DDBST__SCAN_*) under `mask`
 * must be exactly DDBST__SCAN_KNOWN: a key's facet takes no delimiter and
 * no escape (mask 7), a value no escape (mask 6). */
typedef struct ddbst__ucheck {
  uint8_t attr, mask;
} ddbst__ucheck;

/* The whole body of an update that sets one attribute (with the entity's
 * updatedAt stamp, when it keeps one): the Key object, the expression,
 * condition, names map and the values map's texts run together between
 * the values, as the put plan writes a put. `assign` is the values it
 * sets; `need` what the indexes it rewrites need given. */
typedef struct ddbst__ushape {
  uint64_t assign, need;
  const ddbst__ustep *steps;
  int nsteps;
  int nchecks;
  const ddbst__ucheck *checks; /* each value it copies once, checked before any
                            is copied */
  ddbst__jtext end; /* after the last value: `"}}}` or the version's */
  size_t fixed;     /* every text's bytes */
} ddbst__ushape;

typedef struct ddbst__update_plan {
  const ddbst__ustep *steps; /* `{"TableName":..,"Key":{"PK":{"S":"ORG#`,
                                facet.. */
  int nsteps;
  ddbst__jtext key_end; /* `"}},"UpdateExpression":"SET` */
  uint64_t settable;   /* attributes an update SETs: not a primary facet or
                          the version */
  uint64_t assignable; /* of those, the ones the plan writes: a string's
                          AttributeValue, a name of its own */
  const ddbst__jtext *members; /* per attribute: `,"#n0":"status"` */
  ddbst__uindex *indexes;
  int nindexes;
  ddbst__jtext version; /* `,"#n0":"version"`; p NULL: the entity has none */
  ddbst__jtext pk_end; /* `,"#n0":"PK"},"ExpressionAttributeValues":` */
  uint64_t facets;     /* the primary key's facets */
  uint64_t stamp;      /* updatedAt's bit, 0 when the entity keeps none */
  /* per attribute: its update's whole body (NULL: none, see make_shape) */
  const ddbst__ushape *const *shapes;
  size_t fixed;        /* every text's bytes: with the values', the room */
  size_t size_fixed;   /* the item size's names and key literals, at most */
  uint32_t key_literal_max; /* the longest key template's literal bytes */
  /* The values' text (ddbst_item.text's length) the plan takes, below:
   * every key is at most its literals and key_uses times that text, so
   * under the sort key's limit no key passes its own, and the item's size
   * is under size_fixed, the text and its key_uses copies: both bounds as
   * one compare (compile_update_plans.c's text_limit). */
  size_t text_limit;
  /* text_limit for ddbst_update_request's first step (update_request.c),
   * 0 when the entity has unique constraints: that step leaves them to
   * the guards' writer without asking. */
  size_t first_limit;
  uint64_t updated; /* updatedAt's bit, 0 when the entity keeps none */
} ddbst__update_plan;

#endif
