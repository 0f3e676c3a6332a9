/* Expression placeholders and typed attribute values for request bodies.
 * Every attribute name goes through ExpressionAttributeNames and every value
 * through ExpressionAttributeValues, numbered in order of first use, so the
 * same call always gives the same bytes. */
#ifndef DDBST_EXPR_H
#define DDBST_EXPR_H

#include "item/attribute_value.h"
#include "item/item.h"

/* Forgets the placeholders of the previous request (inline: the plans'
 * writers end with it, and a call cost more than its four stores). */
static inline void ddbst__expr_reset(ddbst_item *it) {
  it->nnames = 0;
  it->nrefs = 0;
  it->scratch_len = 0;
  it->pvals.len = 0; /* the values rendered from parameters, made anew */
}

/* Writes "#nK" for attribute name `name`, one of the model's name fields
 * (the same name gets the same placeholder). */
int ddbst__expr_name(ddbst_item *it, const char *name, ddbst_buf *out);

/* The placeholder numbers ddbst__expr_name and ddbst__expr_value would
 * write, without writing them: for text the model prepared ("#n0 = :v0").
 * A negative code on failure. */
int ddbst__expr_add_name(ddbst_item *it, const char *name);
/* The same for a name entry itself (a map key an expression interned). */
int ddbst__expr_add_entry(ddbst_item *it, const ddbst__name *nm);
int ddbst__expr_entry(ddbst_item *it, const ddbst__name *nm, ddbst_buf *out);
int ddbst__expr_add_value(ddbst_item *it, ddbst__vref ref);

/* Writes ":vK" for a new value placeholder. */
int ddbst__expr_value(ddbst_item *it, ddbst__vref ref, ddbst_buf *out);
int ddbst__expr_attr_value(ddbst_item *it, int attr, ddbst_buf *out);
/* Writes the first lead_len bytes of `lead`, an array of 8 ("SET ", ", "
 * padded), and "#nK = :vJ" for the
 * name and a new value: an update's commonest action in one reservation,
 * the same bytes as ddbst__expr_name, " = " and ddbst__expr_value. */
int ddbst__expr_assign(ddbst_item *it, const char *lead, size_t lead_len,
                       const char *name, ddbst__vref ref, ddbst_buf *out);
int ddbst__expr_number(ddbst_item *it, const char *lit, ddbst_buf *out);
int ddbst__expr_string(ddbst_item *it, const char *lit, ddbst_buf *out);
/* A literal AttributeValue, e.g. {"L":[]}. */
int ddbst__expr_raw(ddbst_item *it, const char *av, ddbst_buf *out);

/* Appends ,"ExpressionAttributeNames":{...},"ExpressionAttributeValues":{...}
 * for the placeholders used (each part only when not empty). Inline: a put
 * has none, and then costs no call. */
int ddbst__expr_emit_maps(const ddbst_item *it, ddbst_buf *out);
static inline int ddbst__expr_emit(const ddbst_item *it, ddbst_buf *out) {
  return it->nnames || it->nrefs ? ddbst__expr_emit_maps(it, out) : 0;
}

#endif
