/* The key engine's internal entry points, for the request builders. */
#ifndef DDBST_KEYS_H
#define DDBST_KEYS_H

#include "item/item.h"

/* Appends template `t` rendered with the item's values to `out`: each facet in
 * its key form (padded integers, lower-cased where the template says,
 * %-escaped where the attribute opts in). `key_attr` names the key in errors
 * ("PK", "GSI1SK") and `limit` is its byte limit. Errors: DDBST_EMISSING (a
 * facet unset), DDBST_EVALUE (a facet empty or holding the delimiter),
 * DDBST_ERANGE (the key passes `limit`), DDBST_ENOMEM. On error `out` is as it
 * was. */
int ddbst__render_key(const ddbst_item *it, const ddbst__template *t,
                      const char *key_attr, size_t limit, ddbst_buf *out,
                      ddbst_error *err);

/* ddbst__render_key that also says whether the key needs no JSON escape
 * (`*plain` = 1), so that writers can copy it without scanning it again. */
int ddbst__render(const ddbst_item *it, const ddbst__template *t,
                  const char *key_attr, size_t limit, ddbst_buf *out,
                  int *plain, ddbst_error *err);

/* Whether the item's value of the condition's attribute is one of its
 * values (an unset attribute: no). */
int ddbst__cond_holds(const ddbst_item *it, const ddbst__cond *c);

/* Whether the item belongs in index key `k`: -1 error (filled), 0 not in it
 * (its own facets all absent, or its membership condition false), 1 in it. */
int ddbst__index_applies(const ddbst_item *it, const ddbst__ekey *k,
                         ddbst_error *err);

/* Renders template `t` into the item's keytext; *off and *len say where. */
int ddbst__render_into(ddbst_item *it, const ddbst__template *t,
                       const char *name, size_t limit, uint32_t *off,
                       uint32_t *len, ddbst_error *err);

/* The item's primary key rendered into its (reset) keytext: PK at *po, *pl
 * bytes, SK at *so, *sl (0 when the table has none). */
int ddbst__render_primary(ddbst_item *it, uint32_t *po, uint32_t *pl,
                          uint32_t *so, uint32_t *sl, ddbst_error *err);

/* Every key member of an Item (`"PK":{"S":"ORG#1"},` ... the entity type's
 * `"_type":{"S":"User"},` last, each with its comma) written at `o` straight
 * from the values, when the entity's keys are simple and each comes the
 * short way (values scanned clean when set, within the key limits, an
 * index's facets all set or none of its own); adds their size, as
 * DynamoDB counts it, to *size. The caller made room for the entity's
 * item_fixed plus key_uses times the text's length, and DDBST__PAD more.
 * NULL when the general way (ddbst_item_build_keys) must decide. */
char *ddbst__keys_av_simple(const ddbst_item *it, char *o, size_t *size);

/* The primary key as a Key object ({"PK":{"S":"ORG#1"},"SK":{"S":"..."}})
 * appended to `out` from its run, on the same terms; *size is its size as
 * DynamoDB counts it. 1 written, 0 nothing kept (render it the general
 * way), DDBST_ENOMEM. */
int ddbst__primary_av_simple(const ddbst_item *it, ddbst_buf *out,
                             size_t *size);

#endif
