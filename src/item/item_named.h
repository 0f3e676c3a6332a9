/* The JSON entry's way of reading an object of values onto an item, shared
 * by ddbst_item_set_json and the entry itself (src/ffi). */
#ifndef DDBST_ITEM_NAMED_H
#define DDBST_ITEM_NAMED_H

#include "item/item.h"
#include "json/tree.h"

typedef int (*ddbst__item_setter)(ddbst_item *, int, const char *, size_t,
                                  ddbst_error *);

/* The index of attribute `name` of the item's entity, or DDBST_ENOTFOUND
 * at "field.name" ("name" when `field` is "", "Entity.name" when NULL), with a
 * "did you mean" when a name is close. */
int ddbst__item_attribute_named(const ddbst_item *it, const char *field,
                                const char *name, ddbst_error *err);

/* Applies each member of the JSON object `obj` (NULL or null: nothing)
 * with `fn`: a JSON string is the value's text as ddbst_item_set reads
 * it; a number only for numeric attributes and true/false only for
 * booleans (a typed language's 42 must not quietly become the string
 * "42"); arrays and objects as their JSON text (written through `tmp`);
 * null leaves the attribute alone. Errors at "field.name" ("name" when
 * `field` is ""), or fn's own. */
int ddbst__item_apply_json(ddbst_item *it, const ddbst__jnode *obj,
                           const char *field, ddbst__item_setter fn,
                           ddbst_buf *tmp, ddbst_error *err);

#endif
