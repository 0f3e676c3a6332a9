/* Shared pieces of the request builders (request.c, query.c). */
#ifndef DDBST_REQUEST_H
#define DDBST_REQUEST_H

#include "item/keys.h"


/* {"TableName":"..." — the start of every body. */
static inline int ddbst__begin(ddbst_buf *out, const ddbst_model *m) {
  return ddbst__buf_append(out, m->begin.p, m->begin.n);
}

/* {"PK":{"S":...},"SK":{"S":...}} of the item's primary key. */
int ddbst__write_key(ddbst_item *it, ddbst_buf *out, ddbst_error *err);
/* The same, with the key's size as DynamoDB counts it (names and values)
 * in *bytes. */
int ddbst__write_key_sized(ddbst_item *it, ddbst_buf *out, size_t *bytes,
                           ddbst_error *err);

/* The whole item as an AttributeValue map: keys, then attributes. */
int ddbst__write_item(ddbst_item *it, ddbst_buf *out, ddbst_error *err);

/* ddbst__write_item the short way (item_body.c), for an entity whose keys
 * are simple: 1 written, 0 nothing written (ddbst__write_item must), or an
 * error. The item's key list is left empty. */
int ddbst__write_item_simple(ddbst_item *it, ddbst_buf *out,
                             ddbst_error *err);

/* A PutItem body from the entity's plan (put_plan.c), defaults and all:
 * 1 written, 0 nothing written (ddbst__put_body must: an uncommon shape),
 * or an error of ddbst__prepare_write's or DDBST_ENOMEM. */
int ddbst__put_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err);

/* Whether ddbst__prepare_write would find nothing to do: every default's
 * attribute and every required one set, no version to write. Then a plan
 * need not call it (its loops, through two exported functions). */
int ddbst__write_prepared(const ddbst_item *it, const ddbst__entity *e);

/* The TransactWriteItems of a create of an entity with unique
 * constraints from its plan (create_plan.c): 1 written, 0 nothing written
 * (ddbst__unique_write must: an uncommon shape), or an error of
 * ddbst__prepare_write's or DDBST_ENOMEM. */
int ddbst__create_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                          ddbst_buf *out, ddbst_error *err);
/* The first way ddbst__create_planned tries, alone (its tests): the
 * plan's flat create (ddbst__cflat). 1 written, 0 nothing written (not its
 * shape), or an error of ddbst__prepare_write's or DDBST_ENOMEM. */
int ddbst__create_flat(ddbst_item *it, int64_t now_us, ddbst_buf *out,
                       ddbst_error *err);

/* DDBST_ERANGE: the item would pass DynamoDB's 400 KB (`size` bytes). */
int ddbst__item_too_big(const ddbst__entity *e, size_t size,
                        ddbst_error *err);

/* Defaults, version and required attributes of a whole-item write. */
int ddbst__prepare_write(ddbst_item *it, int create, int64_t now_us,
                         ddbst_error *err);

/* Inner bodies, shared by the single requests and transactions: each writes
 * one body ({"TableName":...}) or fails, leaving truncation to the caller. */
int ddbst__get_body(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                    ddbst_error *err);
int ddbst__put_body(ddbst_item *it, uint32_t flags, int64_t now_us,
                    ddbst_buf *out, ddbst_error *err);
int ddbst__delete_body(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                       ddbst_error *err);
int ddbst__update_body(ddbst_item *it, uint32_t flags, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err);
/* ddbst__update_body's two ways: the one-pass writer of the commonest
 * update (update_plan.c: 1 written, 0 not its case and `out` as it was,
 * DDBST_ENOMEM), and the general writer, which takes every update and says
 * what is wrong with one. The same bytes where both write. */
int ddbst__update_body_simple(ddbst_item *it, uint32_t flags, int64_t now_us,
                              ddbst_buf *out);
/* The one-pass writer's first way: an update of the commonest shape from
 * its entity's plan `p` (update_plan.c), with the same returns. */
struct ddbst__update_plan;
int ddbst__update_planned(ddbst_item *it, const ddbst__entity *e,
                          const struct ddbst__update_plan *p, ddbst_buf *out);
/* Its second way (update_simple.c): the assignments decided on the stack,
 * with the same returns. */
int ddbst__update_one_pass(ddbst_item *it, ddbst_buf *out);
/* ddbst__update_body_simple through the plan alone (tests hold it to the
 * general writer): 1 written, 0 not its case, DDBST_ENOMEM. */
int ddbst__update_body_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                               ddbst_buf *out);
int ddbst__update_body_general(ddbst_item *it, uint32_t flags, int64_t now_us,
                               ddbst_buf *out, ddbst_error *err);
/* ddbst_update_request's body, `out` emptied and the arguments checked
 * (update_request.c). */
int ddbst__update_request(ddbst_item *it, uint32_t flags, int64_t now_us,
                          ddbst_buf *out, ddbst_error *err);
/* An update's updatedAt (when the entity keeps one and it is not given):
 * stored as the time of the update, before anything reads the values. */
int ddbst__update_stamp(ddbst_item *it, int64_t now_us, ddbst_error *err);

/* ---- unique constraints (transact.c) ---- */

typedef enum { DDBST__W_PUT, DDBST__W_UPDATE, DDBST__W_DELETE } ddbst__write;

/* A write of an entity with unique constraints, as one TransactWriteItems:
 * the item's operation and the guard items' Puts and Deletes. Returns the
 * op code or an error, appending nothing on error. */
int ddbst__unique_write(ddbst_item *it, ddbst__write w, uint32_t flags,
                        int64_t now_us, ddbst_buf *out, ddbst_error *err);

/* Whether an update changes a unique attribute (so its guard must move). */
int ddbst__unique_conditions_needed(const ddbst_item *it);

/* " AND #email = :old" for each unique attribute the update moves (with
 * `and` 0 the first has no AND). */
int ddbst__unique_conditions(ddbst_item *it, int and, ddbst_buf *out);

/* ,"ProjectionExpression":"..." of the attributes marked with
 * ddbst_item_project, the `keys` (NULLs skipped) first; nothing when none
 * is marked. */
int ddbst__write_projection(ddbst_item *it, const char *const *keys,
                            int nkeys, ddbst_buf *out);

/* Cuts `out` back to `start` and reports `rc`. */
int ddbst__abandon(ddbst_buf *out, size_t start, int rc, ddbst_error *err);

#endif
