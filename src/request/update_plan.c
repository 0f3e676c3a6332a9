/* An UpdateItem of the commonest shape from its entity's plan
 * (ddbst__update_plan, compiled at load): values set by value, each a
 * string scanned clean when set, every index the change touches rewritten
 * with all it needs given and its templates simple. The decision is
 * bitmasks: the values given, those the update sets, and per index those
 * that touch it and those it needs. The sizes of the body's three regions
 * (expression and condition, names map, values map) are then known from
 * the count of assignments and their names' lengths, so one pass writes
 * each assignment's three parts at their places, from the plan's texts.
 * The checks are where they were: at set time (UTF-8, enum, timestamp
 * form, the delimiter and JSON-escape scan), and bounds here that keep
 * every key under its limit and the item under 400 KB; anything else goes
 * to the one-pass writer (update_simple.c) and then the general one, which
 * say what is wrong. The bytes are the general writer's
 * (tests/unit/test_update_paths.c). */
#include <string.h>

#include "base/bytes.h"
#include "item/itemsize.h"
#include "item/keys.h"
#include "model/update_plan.h"
#include "request/expr.h"
#include "request/request.h"
#include "request/update_shape.h"

/* Placeholders #n0..#n9 and :v0..:v9 are one digit: with the version's
 * name and two values and the condition's name, eight assignments. */
enum { MAX_ASSIGN = 8 };

/* The expression's parts, padded to a fixed store, and the digits' places
 * (the version's from its start). */
static const char assign_text[16] = " #n0 = :v0,",
                  value_head[16] = ",\":v0\":{\"S\":\"",
                  version_set[48] = " #n0 = if_not_exists(#n0, :v0) + :v1,",
                  version_values[32] =
                      ",\":v0\":{\"N\":\"0\"},\":v1\":{\"N\":\"1\"}",
                  condition[80] =
                      "\",\"ConditionExpression\":\"attribute_exists(#n0)\","
                      "\"ExpressionAttributeNames\":";
enum {
  ASSIGN_LEN = 11, HEAD_LEN = 13, VERSION_LEN = 37, CONDITION_LEN = 75,
  CONDITION_DIGIT = 44
};

/* Exactly n bytes, n at least 32: the two copies overlap rather than
 * spill (the names map's end, after which the values are written). */
static inline void copy_exact(char *d, const char *s, size_t n) {
  if (n <= 64) {
    memcpy(d, s, 32);
    memcpy(d + n - 32, s + n - 32, 32);
  } else {
    memcpy(d, s, n);
  }
}

/* An index key's value, `{"S":"` to `"}`, from its template's pieces at
 * `o` (padded room); NULL when a facet was not scanned clean. */
static char *put_key(const ddbst_item *it, char *o, const ddbst__template *t) {
  const char *text = it->text.data;
  for (int i = 0; i < t->nfacets; i++) {
    const ddbst__piece *pc = &t->pieces[i];
    const ddbst__val *v = &it->vals[pc->attr];
    if (v->scan != DDBST__SCAN_KNOWN) return NULL;
    ddbst__copy_padded(o, pc->lit, pc->lit_len);
    o += pc->lit_len;
    ddbst__copy_padded(o, text + v->off, v->len);
    o += v->len;
  }
  ddbst__copy_padded(o, t->tail, t->tail_len);
  o += t->tail_len;
  memcpy(o, "\"}", 2);
  return o + 2;
}

/* The three places an assignment writes to, moving on as it writes. */
typedef struct cursors {
  char *x, *names, *values;
} cursors;

/* `#nK = :vK` with its names member: the value's part is the caller's. */
static inline void put_assignment(cursors *c, const ddbst__jtext *member,
                                  int k) {
  char d = (char)('0' + k);
  memcpy(c->x, assign_text, 16);
  c->x[3] = c->x[9] = d;
  c->x += ASSIGN_LEN;
  ddbst__copy_text64(c->names, member->p, member->n);
  c->names[4] = d;
  c->names += member->n;
  memcpy(c->values, value_head, 16);
  c->values[4] = d;
  c->values += HEAD_LEN;
}

/* Nothing kept: what was written is past the buffer's length. */
static int left(ddbst_buf *out) {
  out->data[out->len] = '\0';
  return 0;
}

/* Two or more assignments, or one without its whole body: the body's
 * three regions written side by side from the plan's members. Not inlined:
 * its frame would cost the whole bodies' way on every call. */
DDBST__NOINLINE static int write_plan(ddbst_item *it,
                                      const ddbst__update_plan *p,
                                      uint64_t given, uint64_t assign,
                                      size_t text_bound, ddbst_buf *out) {
  const ddbst__val *vals = it->vals;
  size_t text_len = it->text.len;
  int n = 0;
  size_t names_len = p->pk_end.n;
  for (uint64_t b = assign; b; b &= b - 1) {
    int a = ddbst__lowest_bit(b);
    if ((vals[a].scan & (DDBST__SCAN_KNOWN | DDBST__SCAN_ESCAPE)) !=
        DDBST__SCAN_KNOWN)
      return 0;
    names_len += p->members[a].n;
    n++;
  }
  /* request.c's index_action for an update with no REMOVE: untouched, or
   * rewritten with all it needs; the rest is the general writer's */
  uint64_t rewritten = 0;
  for (int i = 0; i < p->nindexes; i++) {
    const ddbst__uindex *u = &p->indexes[i];
    if (!(given & u->touch)) continue;
    if ((u->need & ~given) || !u->plannable) return 0;
    for (int c = 0; c < u->k->nwhen; c++)
      if (!ddbst__cond_holds(it, &u->k->when[c])) return 0;
    rewritten |= (uint64_t)1 << i;
    for (int j = 0; j < u->nkeys; j++) names_len += u->keys[j].member.n;
    n += u->nkeys;
  }
  int version = p->version.p != NULL;
  if (version) names_len += p->version.n;
  if ((n == 0 && !version) || n > MAX_ASSIGN) return 0;
  if (ddbst__buf_reserve(out, p->fixed + text_bound + text_len +
                                  (ASSIGN_LEN + HEAD_LEN + 2) * (size_t)n +
                                  sizeof version_set + sizeof version_values +
                                  sizeof condition + 4))
    return DDBST_ENOMEM;
  const char *text = it->text.data;
  char *o = out->data + out->len;
  for (const ddbst__ustep *s = p->steps, *end = s + p->nsteps; s < end;
       s++) {
    const ddbst__val *v = &vals[s->attr];
    if (v->scan != DDBST__SCAN_KNOWN) return left(out);
    /* the texts (the arena) and the values (the item's text) are padded */
    ddbst__copy_text64(o, s->text, s->len);
    o += s->len;
    ddbst__copy_padded(o, text + v->off, v->len);
    o += v->len;
  }
  ddbst__copy_text64(o, p->key_end.p, p->key_end.n);
  o += p->key_end.n;
  /* Each region's start: the expression's assignments each end in a comma
   * that the next part (the version's, the condition) writes over. Each
   * part's store past its end lands on a part written after it. */
  cursors c;
  c.x = o;
  c.names = o + ASSIGN_LEN * (size_t)n + (version ? VERSION_LEN : 0) - 1 +
            CONDITION_LEN;
  c.values = c.names + names_len;
  char *names_start = c.names, *values_start = c.values;
  int k = 0;
  for (uint64_t b = assign; b; b &= b - 1, k++) {
    int a = ddbst__lowest_bit(b);
    const ddbst__val *v = &vals[a];
    put_assignment(&c, &p->members[a], k);
    ddbst__copy_padded(c.values, text + v->off, v->len);
    c.values += v->len;
    memcpy(c.values, "\"}", 2);
    c.values += 2;
  }
  for (uint64_t b = rewritten; b; b &= b - 1) {
    const ddbst__uindex *u = &p->indexes[ddbst__lowest_bit(b)];
    for (int j = 0; j < u->nkeys; j++, k++) {
      put_assignment(&c, &u->keys[j].member, k);
      c.values = put_key(it, c.values, u->keys[j].t);
      if (!c.values) return left(out);
    }
  }
  if (version) { /* #nK = if_not_exists(#nK, :vK) + :vK+1 */
    memcpy(c.x, version_set, sizeof version_set);
    c.x[3] = c.x[23] = c.x[28] = (char)('0' + k);
    c.x[35] = (char)('0' + k + 1);
    c.x += VERSION_LEN;
    ddbst__copy_text64(c.names, p->version.p, p->version.n);
    c.names[4] = (char)('0' + k);
    c.names += p->version.n;
    memcpy(c.values, version_values, sizeof version_values);
    c.values[4] = (char)('0' + k);
    c.values[20] = (char)('0' + k + 1);
    c.values += sizeof version_values;
    k++;
  }
  /* exact: the names follow the condition, the values the names' end */
  memcpy(c.x - 1, condition, 64); /* then its last 16, overlapping */
  memcpy(c.x - 1 + CONDITION_LEN - 16, condition + CONDITION_LEN - 16, 16);
  c.x[CONDITION_DIGIT - 1] = (char)('0' + k);
  copy_exact(c.names, p->pk_end.p, p->pk_end.n);
  c.names[4] = (char)('0' + k);
  *names_start = '{';
  *values_start = '{';
  memcpy(c.values, "}}", 3);
  out->len = (size_t)(c.values + 2 - out->data);
  ddbst__as_general(it);
  return 1;
}

/* request.h */
int ddbst__update_planned(ddbst_item *it, const ddbst__entity *e,
                          const struct ddbst__update_plan *p, ddbst_buf *out) {
  /* no key past its limit, the item under 400 KB (text_limit) */
  size_t text_len = it->text.len, text_bound = e->key_uses * text_len;
  if (text_len >= p->text_limit)
    return 0;
  uint64_t given = ddbst__given_mask(it->vals, e->nattrs);
  uint64_t assign = given & p->settable;
  if (assign & ~p->assignable) return 0;
  const ddbst__ushape *s = ddbst__shape_of(p, given, assign);
  if (!s) return write_plan(it, p, given, assign, text_bound, out);
  if (!ddbst__shape_clean(it->vals, s)) return 0;
  if (ddbst__buf_reserve(out, ddbst__shape_room(s, text_bound, text_len)))
    return DDBST_ENOMEM;
  ddbst__write_shape(it, s, out);
  return 1;
}

/* Not the short way: the item as it was given (the stamp taken back). */
static int decline(ddbst_item *it, const ddbst__val *before, size_t text_len) {
  it->vals[ddbst__entity_of(it)->updated_attr] = *before;
  it->text.len = text_len;
  it->text.data[text_len] = '\0';
  return 0;
}

/* Both short ways: the plan's first, then, unless `plan_only`, the one
 * pass (update_simple.c). */
static inline int update_short(ddbst_item *it, uint32_t flags, int64_t now_us,
                               ddbst_buf *out, int plan_only) {
  const ddbst__entity *e = ddbst__entity_of(it);
  if (flags & (DDBST_UPSERT | DDBST_RETURN_MASK | DDBST_RETURN_OLD_ON_FAILURE) ||
      it->update || it->cond || it->has_update_ops ||
      it->has_expected_version || !e->key.avrun.head ||
      (e->nuniques && ddbst__unique_conditions_needed(it)))
    return 0;
  const ddbst__update_plan *p = e->update_plan;
  /* as the general writer does first: an update says when it was made
   * (taken back if the general writer is to do it, so that an error leaves
   * the item as it would have) */
  int u = e->updated_attr;
  if (u < 0 || it->vals[u].set) { /* nothing to stamp, nothing to take back */
    int done = p ? ddbst__update_planned(it, e, p, out) : 0;
    return done || plan_only ? done : ddbst__update_one_pass(it, out);
  }
  ddbst__val before = it->vals[u];
  size_t text_len = it->text.len;
  if (ddbst__update_stamp(it, now_us, NULL)) return 0;
  int done = p ? ddbst__update_planned(it, e, p, out) : 0;
  if (!done && !plan_only) done = ddbst__update_one_pass(it, out);
  return done ? done : decline(it, &before, text_len);
}

int ddbst__update_body_simple(ddbst_item *it, uint32_t flags, int64_t now_us,
                              ddbst_buf *out) {
  return update_short(it, flags, now_us, out, 0);
}

int ddbst__update_body_planned(ddbst_item *it, uint32_t flags, int64_t now_us,
                               ddbst_buf *out) {
  return update_short(it, flags, now_us, out, 1);
}

