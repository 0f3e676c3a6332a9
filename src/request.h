/* Shared pieces of the request builders (request.c, query.c). */
#ifndef DDBST_REQUEST_H
#define DDBST_REQUEST_H

#include "item.h"

const ddbst__entity *ddbst__entity_of(const ddbst_item *it);

/* {"TableName":"..." — the start of every body. */
int ddbst__begin(ddbst_buf *out, const ddbst_model *m);

/* Renders template `t` into the item's keytext; *off and *len say where. */
int ddbst__render_into(ddbst_item *it, const ddbst__template *t,
                       const char *name, size_t limit, uint32_t *off,
                       uint32_t *len, ddbst_error *err);

/* {"PK":{"S":...},"SK":{"S":...}} of the item's primary key. */
int ddbst__write_key(ddbst_item *it, ddbst_buf *out, ddbst_error *err);

/* The whole item as an AttributeValue map: keys, then attributes. */
int ddbst__write_item(ddbst_item *it, ddbst_buf *out, ddbst_error *err);

/* Defaults, version and required attributes of a whole-item write. */
int ddbst__prepare_write(ddbst_item *it, int create, int64_t now_us,
                         ddbst_error *err);

/* Cuts `out` back to `start` and reports `rc`. */
int ddbst__abandon(ddbst_buf *out, size_t start, int rc, ddbst_error *err);

#endif
