/* ddbst_update_request's body, `out` emptied and the arguments checked:
 * the commonest update first, an update of one attribute whose whole body
 * its entity's plan made at load (request/update_shape.h), decided and
 * written in one frame; then everything else as before: the unique
 * guards, the stamp, the plan's other way, the one pass and the general
 * writer (update_rest). */
#include "item/itemsize.h"
#include "item/keys.h"
#include "request/request.h"
#include "request/update_shape.h"

/* Everything the whole body's way does not take. Not inlined: its frame
 * would cost the whole bodies' way. */
DDBST__NOINLINE static int update_rest(ddbst_item *it, uint32_t flags,
                                       int64_t now_us, ddbst_buf *out,
                                       ddbst_error *err) {
  now_us = ddbst__now(now_us);
  /* most entities have no unique constraint: no call to learn it */
  if (ddbst__entity_of(it)->nuniques && ddbst__unique_conditions_needed(it))
    return ddbst__unique_write(it, DDBST__W_UPDATE, flags, now_us, out, err);
  size_t start = out->len;
  int rc = ddbst__update_body(it, flags, now_us, out, err);
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_UPDATE_ITEM;
}

/* The plan's way for an update it writes but not as a whole body. */
DDBST__NOINLINE static int request_by_plan(ddbst_item *it, uint32_t flags,
                                           int64_t now_us, ddbst_buf *out,
                                           ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  int rc = ddbst__update_planned(it, e, e->update_plan, out);
  if (rc > 0) return DDBST_OP_UPDATE_ITEM;
  if (rc < 0) return ddbst__abandon(out, out->len, rc, err);
  return update_rest(it, flags, now_us, out, err);
}

/* A whole body that needs the buffer grown first: grown, then written
 * (the decision again, as the buffer is all that changed). */
DDBST__NOINLINE static int shape_grown(ddbst_item *it, uint32_t flags,
                                       int64_t now_us, size_t room,
                                       ddbst_buf *out, ddbst_error *err) {
  if (ddbst__buf_grow(out, room))
    return ddbst__abandon(out, out->len, DDBST_ENOMEM, err);
  return ddbst__update_request(it, flags, now_us, out, err);
}

int ddbst__update_request(ddbst_item *it, uint32_t flags,
                                  int64_t now_us, ddbst_buf *out,
                                  ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__update_plan *p = e->update_plan;
  /* no condition, update actions or parameters (has_exprs), REMOVE, ADD
   * or append, expected version, upsert or return values */
  if (!p ||
      (flags & (DDBST_UPSERT | DDBST_RETURN_MASK |
                DDBST_RETURN_OLD_ON_FAILURE)) ||
      it->has_exprs || it->has_update_ops || it->has_expected_version)
    return update_rest(it, flags, now_us, out, err);
  /* and no unique constraint (first_limit 0) */
  size_t text_len = it->text.len, text_bound = e->key_uses * text_len;
  if (text_len >= p->first_limit)
    return update_rest(it, flags, now_us, out, err);
  uint64_t given = ddbst__given_mask(it->vals, e->nattrs);
  uint64_t assign = given & p->settable;
  /* updatedAt given, or none kept: nothing to stamp */
  if ((assign & ~p->assignable) | (p->updated & ~given))
    return update_rest(it, flags, now_us, out, err);
  const ddbst__ushape *s = ddbst__shape_of(p, given, assign);
  if (!s) return request_by_plan(it, flags, now_us, out, err);
  if (!ddbst__shape_clean(it->vals, s))
    return update_rest(it, flags, now_us, out, err);
  size_t room = ddbst__shape_room(s, text_bound, text_len);
  if (out->cap - out->len <= room)
    return shape_grown(it, flags, now_us, room, out, err);
  ddbst__write_shape(it, s, out);
  return DDBST_OP_UPDATE_ITEM;
}
