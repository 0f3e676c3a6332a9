/* The values of one item, by attribute index, in canonical text. An item is
 * reused between requests: reset keeps its memory, so a warm item does not
 * allocate. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"
#include "model/facet.h"
#include "model/ts_canonical.h"
#include "item/item.h"
#include "model/value_canon.h"

/* ---- the item ---- */

ddbst_item *ddbst_item_new(const ddbst_model *m, int entity) {
  if (!m || entity < 0 || entity >= m->nentities) return NULL;
  ddbst_item *it = ddbst__malloc(&m->alloc, sizeof *it);
  if (!it) return NULL;
  memset(it, 0, sizeof *it);
  it->m = m;
  it->delim0 = (unsigned char)m->delim[0];
  it->entity = entity;
  it->attrs = m->entities[entity].attrs;
  it->nattrs = m->entities[entity].nattrs;
  ddbst__buf_init(&it->text, &m->alloc);
  ddbst__buf_init(&it->keytext, &m->alloc);
  ddbst__buf_init(&it->ptext, &m->alloc);
  ddbst__buf_init(&it->pvals, &m->alloc);
  size_t nvals = m->max_attrs ? (size_t)m->max_attrs : 1;
  /* in pairs: reset clears two at a time */
  it->vals = ddbst__malloc(&m->alloc, (nvals + 1) / 2 * 2 * sizeof *it->vals);
  it->prev = ddbst__malloc(&m->alloc, nvals * sizeof *it->prev);
  it->projected = ddbst__malloc(&m->alloc, nvals);
  it->keys = ddbst__malloc(&m->alloc,
                           (3 + 2 * (size_t)m->nindexes) * sizeof *it->keys);
  /* Every attribute and key may appear in one expression, plus a few
   * literals (version, counters, entity type). */
  it->cap_refs = 2 * (int)nvals + 4 * m->nindexes + 16;
  it->base_refs = it->cap_refs;
  it->names = ddbst__malloc(&m->alloc, (size_t)it->cap_refs * sizeof *it->names);
  it->refs = ddbst__malloc(&m->alloc, (size_t)it->cap_refs * sizeof *it->refs);
  /* Reserving now lets a typical item be filled without growing. */
  if (!it->vals || !it->prev || !it->projected || !it->keys || !it->names ||
      !it->refs ||
      ddbst__buf_reserve(&it->text, 512) ||
      ddbst__buf_reserve(&it->keytext, 256)) {
    ddbst_item_free(it);
    return NULL;
  }
  memset(it->vals, 0, (nvals + 1) / 2 * 2 * sizeof *it->vals);
  memset(it->prev, 0, nvals * sizeof *it->prev);
  memset(it->projected, 0, nvals);
  return it;
}

/* Forgets the expressions and parameters of the last write; frees the
 * expressions the item was given as text. */
static void drop_expressions(ddbst_item *it) {
  for (int i = 0; i < 2; i++)
    if (it->owned[i]) {
      it->drop(it->owned[i]);
      it->owned[i] = NULL;
    }
  it->cond = it->update = NULL;
  it->has_exprs = 0;
  it->nparams = 0;
  ddbst_buf_reset(&it->ptext);
  ddbst_buf_reset(&it->pvals);
}

void ddbst_item_free(ddbst_item *it) {
  if (!it) return;
  const ddbst_allocator *a = &it->m->alloc;
  drop_expressions(it);
  ddbst__buf_release(&it->ptext);
  ddbst__buf_release(&it->pvals);
  ddbst__buf_release(&it->text);
  ddbst__buf_release(&it->keytext);
  ddbst__free(a, it->vals);
  ddbst__free(a, it->prev);
  ddbst__free(a, it->projected);
  ddbst__free(a, it->keys);
  ddbst__free(a, it->names);
  ddbst__free(a, it->refs);
  ddbst__free(a, it);
}

/* Clears vals[0..n): inline, two slots a vector pair at a time (the slots
 * are allocated in pairs), where a call to memset gave the reset a frame
 * and cost more than the few slots an entity has. */
static inline void clear_slots(ddbst__val *vals, size_t n) {
  _Static_assert(sizeof *vals == 16, "a slot is one vector");
#if defined(__SSE2__)
  char *p = (char *)vals, *end = p + n * sizeof *vals;
  const __m128i zero = _mm_setzero_si128();
  for (; p < end; p += 2 * sizeof *vals) {
    _mm_storeu_si128((__m128i *)(void *)p, zero);
    _mm_storeu_si128((__m128i *)(void *)(p + sizeof *vals), zero);
  }
#else
  memset(vals, 0, n * sizeof *vals);
#endif
}

/* What a reset clears that a request rarely sets: previous values,
 * projections, expressions. Apart, so that the usual reset calls nothing
 * and needs no frame. */
DDBST__NOINLINE static int reset_rare(ddbst_item *it) {
  if (it->has_previous)
    memset(it->prev, 0, (size_t)it->m->max_attrs * sizeof *it->prev);
  if (it->nprojected) memset(it->projected, 0, (size_t)it->m->max_attrs);
  it->has_previous = 0;
  it->nprojected = 0;
  if (it->has_exprs) drop_expressions(it);
  return 0;
}

int ddbst_item_reset(ddbst_item *it, int entity) {
  if (!it || (unsigned)entity >= (unsigned)it->m->nentities)
    return DDBST_EINVAL;
  /* Only the slots of the entity the item held can have been set (every
   * slot is written by an attribute's index, checked against its entity;
   * ddbst_item_new cleared them all): the others are still clear. */
  clear_slots(it->vals, (size_t)it->nattrs);
  const ddbst__entity *e = &it->m->entities[entity];
  it->entity = entity;
  it->attrs = e->attrs;
  it->nattrs = e->nattrs;
  it->has_update_ops = 0;
  /* both buffers were reserved by ddbst_item_new: data is never NULL */
  it->text.len = 0;
  it->text.data[0] = '\0';
  it->keytext.len = 0;
  it->keytext.data[0] = '\0';
  it->nkeys = 0;
  it->has_expected_version = 0;
  if (it->has_previous | it->nprojected | it->has_exprs) return reset_rare(it);
  return 0;
}

int ddbst_item_entity(const ddbst_item *it) {
  return it ? it->entity : DDBST_EINVAL;
}

static const ddbst__attr *attr_of(const ddbst_item *it, int attr) {
  return attr >= 0 && attr < it->nattrs ? &it->attrs[attr] : NULL;
}

/* Values are named "Entity.attribute" in errors. */
static void attr_path(char *path, size_t cap, const ddbst_item *it,
                      const ddbst__attr *a) {
  snprintf(path, cap, "%s.%s", it->m->entities[it->entity].name, a->name);
}

/* ---- setting values ----
 *
 * The values nearly every request sets (short strings, enum values, ULIDs,
 * timestamps already canonical) are checked while copied to the end of the
 * text buffer and committed there. Each type has its own small function,
 * reached by a tail call, so that the common case runs without a frame;
 * whatever it does not take (a long or non-ASCII string, text to
 * canonicalise, a refusal) goes to set_canon, whose errors are therefore the
 * only ones there are. */

/* Commits the n bytes just written at the end of the text buffer as the
 * value of attr, with what is known of them (`scan`, DDBST__SCAN_*); the
 * caller made sure of room for them and two NULs. */
static inline int commit(ddbst_item *it, int attr, size_t n, unsigned scan) {
  size_t start = it->text.len;
  char *dst = it->text.data + start;
  dst[n] = '\0';     /* the value's */
  dst[n + 1] = '\0'; /* the buffer's */
  it->text.len = start + n + 1;
  it->vals[attr] = (ddbst__val){
      .off = (uint32_t)start,
      .len = (uint32_t)n,
      .upd = DDBST__UPD_SET,
      .set = 1,
      .scan = n ? (unsigned char)scan : 0, /* an empty value is never clean */
  };
  it->nkeys = 0; /* keys built before no longer describe the item */
  return 0;
}

int ddbst__item_store(ddbst_item *it, int attr, const char *text, size_t len) {
  if (ddbst__buf_reserve(&it->text, len + 1)) return DDBST_ENOMEM;
  ddbst__copy(it->text.data + it->text.len, text, len);
  return commit(it, attr, len, 0);
}

/* The setters below take ddbst_item_set's arguments in its order, with
 * the attribute last: the jump from ddbst_item_set moves no register. */

/* Any value: canonicalise after the current end, then commit, so that on
 * refusal the old value stays. Not inlined: its frame (a reason, a path)
 * would cost the fast paths on every call. */
DDBST__NOINLINE static int set_canon(ddbst_item *it, int attr,
                                     const char *text, size_t len,
                                     ddbst_error *err, const ddbst__attr *a) {
  size_t start = it->text.len;
  it->text.data[start] = '\0'; /* a fast path may have written past it */
  char why[160];
  int rc = ddbst__value_canon(a, text, len, &it->text, why, sizeof why);
  if (rc == 0) rc = ddbst__buf_putc(&it->text, '\0');
  if (rc) {
    ddbst__buf_truncate(&it->text, start);
    char path[DDBST_ERROR_PATH_MAX];
    attr_path(path, sizeof path, it, a);
    if (rc == DDBST_ENOMEM)
      return ddbst__fail(err, rc, path, "out of memory");
    return ddbst__fail(err, rc, path, "%s: %s", a->name, why);
  }
  it->vals[attr] = (ddbst__val){
      .off = (uint32_t)start,
      .len = (uint32_t)(it->text.len - start - 1),
      .upd = DDBST__UPD_SET,
      .set = 1,
      .scan = 0,
  };
  it->nkeys = 0;
  return 0;
}

/* A string that is not all ASCII without NUL (or too short for the word
 * at a time paths): its ASCII run copied, the rest checked as UTF-8. */
DDBST__NOINLINE static int set_utf8_string(ddbst_item *it, int attr,
                                           const char *in, size_t n,
                                           ddbst_error *err,
                                           const ddbst__attr *a) {
  char *dst = it->text.data + it->text.len;
  size_t i = ddbst__ascii_copy(dst, in, n);
  if (i == n) /* below 4 bytes, ASCII: scanned as the others are */
    return commit(it, attr, n,
                  n ? DDBST__SCAN_KNOWN | ddbst__scan(dst, n, it->delim0)
                    : 0);
  /* from a character's start, so the same verdict as on the whole */
  if (ddbst__utf8_check(in + i, n - i))
    return set_canon(it, attr, in, n, err, a);
  memcpy(dst + i, in + i, n - i);
  return commit(it, attr, n, 0);
}

/* ASCII strings, nearly all: copied and scanned in one pass for what keys
 * and JSON ask of them (the delimiter, an escape), so that no writer scans
 * them again. Past 16 bytes (an e-mail address, a title) a loop of its own,
 * whose registers would give the short ones (IDs, names) a frame. */
DDBST__NOINLINE static int set_long_string(ddbst_item *it, int attr,
                                           const char *in, size_t n,
                                           ddbst_error *err,
                                           const ddbst__attr *a) {
  unsigned scan = ddbst__copy_scan_long(it->text.data + it->text.len, in, n,
                                        it->delim0);
  if (scan) return commit(it, attr, n, scan);
  return set_utf8_string(it, attr, in, n, err, a);
}

DDBST__NOINLINE static int set_string(ddbst_item *it, int attr,
                                      const char *in, size_t n,
                                      ddbst_error *err, const ddbst__attr *a) {
  if (n >= 4 && n <= 16) {
    unsigned scan = ddbst__copy_scan_short(it->text.data + it->text.len, in,
                                           n, it->delim0);
    if (scan) return commit(it, attr, n, scan);
  } else if (n > 16) {
    return set_long_string(it, attr, in, n, err, a);
  }
  return set_utf8_string(it, attr, in, n, err, a);
}

/* An enum value: a listed value is text the model checked, compared as it
 * is (the length first: most lists have few values of one length), then
 * copied from the model's copy (in the arena: padded). */
DDBST__NOINLINE static int set_enum_any(ddbst_item *it, int attr,
                                        const char *in, size_t n,
                                        ddbst_error *err,
                                        const ddbst__attr *a) {
  for (size_t i = 0; i < a->nvalues; i++)
    if (a->value_lens[i] == n && ddbst__same_bytes(in, a->values[i], n)) {
      ddbst__copy_padded(it->text.data + it->text.len, a->values[i], n);
      return commit(it, attr, n, a->value_scans[i]);
    }
  return set_canon(it, attr, in, n, err, a);
}

/* Values of 4 to 16 bytes, nearly all: the two overlapping words the input
 * is read as are read from each listed value too, and compared in one
 * vector. Apart from set_enum_any, whose call to memcmp would give this
 * loop a frame. */
DDBST__NOINLINE static int set_enum(ddbst_item *it, int attr, const char *in,
                                    size_t n, ddbst_error *err,
                                    const ddbst__attr *a) {
#if defined(__SSE2__)
  if (n >= 4 && n <= 16) {
    __m128i want = ddbst__load_ends(in, n);
    for (size_t i = 0; i < a->nvalues; i++)
      if (a->value_lens[i] == n &&
          _mm_movemask_epi8(_mm_cmpeq_epi8(
              want, ddbst__load_ends(a->values[i], n))) == 0xFFFF) {
        ddbst__copy_padded(it->text.data + it->text.len, a->values[i], n);
        return commit(it, attr, n, a->value_scans[i]);
      }
    return set_canon(it, attr, in, n, err, a);
  }
#endif
  return set_enum_any(it, attr, in, n, err, a);
}

/* A canonical timestamp's text into the item: 20 to 27 bytes, two
 * overlapping 16-byte moves, not a call to memcpy. */
static inline int commit_timestamp(ddbst_item *it, int attr, const char *in,
                                   size_t n) {
  char *dst = it->text.data + it->text.len;
  memcpy(dst, in, 16);
  memcpy(dst + n - 16, in + n - 16, 16);
  return commit(it, attr, n, it->m->ts_scan);
}

/* A timestamp whose day is past 28, or that is not canonical: apart, so
 * that the common one costs set_timestamp no frame. */
DDBST__NOINLINE static int set_timestamp_rare(ddbst_item *it, int attr,
                                              const char *in, size_t n,
                                              ddbst_error *err,
                                              const ddbst__attr *a,
                                              int canonical) {
  if (!canonical || !ddbst__ts_late_day(in))
    return set_canon(it, attr, in, n, err, a);
  return commit_timestamp(it, attr, in, n);
}

DDBST__NOINLINE static int set_timestamp(ddbst_item *it, int attr,
                                         const char *in, size_t n,
                                         ddbst_error *err,
                                         const ddbst__attr *a) {
  int canonical = ddbst__ts_is_canonical_inline(in, n, a->precision);
  if (canonical <= 0)
    return set_timestamp_rare(it, attr, in, n, err, a, canonical);
  return commit_timestamp(it, attr, in, n);
}

DDBST__NOINLINE static int set_ulid(ddbst_item *it, int attr, const char *in,
                                    size_t n, ddbst_error *err,
                                    const ddbst__attr *a) {
  /* Crockford digits are ASCII: the UTF-8 check could not have refused */
  if (ddbst__ulid_canon(in, n, it->text.data + it->text.len))
    return set_canon(it, attr, in, n, err, a);
  return commit(it, attr, n, it->m->ulid_scan);
}

/* Each type's fast path, or set_canon: one indexed jump from
 * ddbst_item_set, where a switch was a chain of compares and a second
 * function. Sixteen slots, so that a type masked to four bits is always
 * in the table. */
typedef int (*setter)(ddbst_item *it, int attr, const char *text, size_t len,
                      ddbst_error *err, const ddbst__attr *a);
_Static_assert(DDBST__T_BINARY < 16, "a type indexes a table of 16");
static const setter fast_setter[16] = {
    [DDBST__T_STRING] = set_string,        [DDBST__T_NUMBER] = set_canon,
    [DDBST__T_INTEGER] = set_canon,        [DDBST__T_BOOLEAN] = set_canon,
    [DDBST__T_TIMESTAMP] = set_timestamp,  [DDBST__T_ULID] = set_ulid,
    [DDBST__T_ENUM] = set_enum,            [DDBST__T_TTL] = set_canon,
    [DDBST__T_LIST] = set_canon,           [DDBST__T_MAP] = set_canon,
    [DDBST__T_STRING_SET] = set_canon,     [DDBST__T_NUMBER_SET] = set_canon,
    [DDBST__T_BINARY] = set_canon,         [13] = set_canon,
    [14] = set_canon,                      [15] = set_canon,
};

/* A checked value to its type's fast path, or to set_canon. Only tail
 * calls: the common set runs without a frame of its own. */
static inline int set_checked(ddbst_item *it, int attr, const char *text,
                              size_t len, ddbst_error *err,
                              const ddbst__attr *a) {
  /* The fast paths write in place: room for the value, its NUL and the
   * buffer's, which a warm item has. */
  if (it->text.cap - it->text.len > len + 1)
    return fast_setter[(unsigned)a->type & 15](it, attr, text, len, err, a);
  return set_canon(it, attr, text, len, err, a);
}

/* A refusal of ddbst_item_set's arguments, or text to take after all (a
 * NULL text of no length). */
DDBST__NOINLINE static int set_refused(ddbst_item *it, int attr,
                                       const char *text, size_t len,
                                       ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  const ddbst__attr *a = attr_of(it, attr);
  if (!a)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "attribute index %d is not an attribute of %s", attr,
                       it->m->entities[it->entity].name);
  len = ddbst__len(text, len);
  if (!text && len)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "text is NULL");
  if (len > UINT32_MAX / 2)
    return ddbst__fail(err, DDBST_ERANGE, NULL, "value too large");
  if (!text) text = "";
  return set_checked(it, attr, text, len, err, a);
}

/* Everything ddbst_item_set's common call is not: a NUL-terminated text
 * (its strlen would give the caller a frame; the by-name setters pass
 * one), or a refusal. */
DDBST__NOINLINE static int set_uncommon(ddbst_item *it, int attr,
                                        const char *text, size_t len,
                                        ddbst_error *err) {
  if (it && (unsigned)attr < (unsigned)it->nattrs && text &&
      len == DDBST_NUL_TERMINATED) {
    len = strlen(text);
    if (len <= UINT32_MAX / 2)
      return set_checked(it, attr, text, len, err, &it->attrs[attr]);
  }
  return set_refused(it, attr, text, len, err);
}

int ddbst_item_set(ddbst_item *it, int attr, const char *text, size_t len,
                   ddbst_error *err) {
  /* the common call: an item, an attribute of it, text with its length
   * (DDBST_NUL_TERMINATED is past the bound) */
  if (!it || (unsigned)attr >= (unsigned)it->nattrs)
    return set_uncommon(it, attr, text, len, err);
  if (!text || len > UINT32_MAX / 2)
    return set_uncommon(it, attr, text, len, err);
  return set_checked(it, attr, text, len, err, &it->attrs[attr]);
}

int ddbst_item_set_int(ddbst_item *it, int attr, int64_t value,
                       ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  const ddbst__attr *a = attr_of(it, attr);
  if (a && a->type != DDBST__T_INTEGER && a->type != DDBST__T_NUMBER &&
      a->type != DDBST__T_TTL)
    return ddbst__fail(err, DDBST_EVALUE, NULL,
                       "%s is of type %s, not a number", a->name,
                       ddbst__type_name(a->type));
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)value);
  return ddbst_item_set(it, attr, tmp, (size_t)n, err);
}

int ddbst_item_set_bool(ddbst_item *it, int attr, int value, ddbst_error *err) {
  return value ? ddbst_item_set(it, attr, "true", 4, err)
               : ddbst_item_set(it, attr, "false", 5, err);
}

int ddbst_item_unset(ddbst_item *it, int attr) {
  if (!it || !attr_of(it, attr)) return DDBST_EINVAL;
  it->vals[attr].set = 0;
  it->vals[attr].scan = 0;
  it->vals[attr].upd = DDBST__UPD_SET;
  it->nkeys = 0;
  return 0;
}

int ddbst_item_remove(ddbst_item *it, int attr) {
  if (!it || !attr_of(it, attr)) return DDBST_EINVAL;
  it->vals[attr].set = 0;
  it->vals[attr].scan = 0;
  it->vals[attr].upd = DDBST__UPD_REMOVE;
  it->has_update_ops = 1;
  it->nkeys = 0;
  return 0;
}

/* ADD and append values: a number delta, set elements, list elements. */
static int set_update_value(ddbst_item *it, int attr, const char *text,
                            size_t len, ddbst__upd upd, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  len = ddbst__len(text, len);
  const ddbst__attr *a = attr_of(it, attr);
  if (!a) return ddbst__fail(err, DDBST_EINVAL, NULL, "bad attribute index");
  char path[DDBST_ERROR_PATH_MAX];
  attr_path(path, sizeof path, it, a);
  int ok = upd == DDBST__UPD_APPEND
               ? a->type == DDBST__T_LIST
               : a->type == DDBST__T_INTEGER || a->type == DDBST__T_NUMBER ||
                     a->type == DDBST__T_STRING_SET ||
                     a->type == DDBST__T_NUMBER_SET;
  if (!ok)
    return ddbst__fail(err, DDBST_EVALUE, path,
                       upd == DDBST__UPD_APPEND
                           ? "%s is of type %s; only lists take an append"
                           : "%s is of type %s; ADD takes numbers and sets",
                       a->name, ddbst__type_name(a->type));
  /* The delta of an integer with a key width need not fit the width. */
  ddbst__attr plain = *a;
  plain.width = 0;
  plain.sortable_negative = 0;
  size_t start = it->text.len;
  char why[160];
  int rc = ddbst__value_canon(&plain, text ? text : "", len, &it->text, why,
                              sizeof why);
  if (rc == 0) rc = ddbst__buf_putc(&it->text, '\0');
  if (rc) {
    ddbst__buf_truncate(&it->text, start);
    if (rc == DDBST_ENOMEM) return ddbst__fail(err, rc, path, "out of memory");
    return ddbst__fail(err, rc, path, "%s: %s", a->name, why);
  }
  it->vals[attr].off = (uint32_t)start;
  it->vals[attr].len = (uint32_t)(it->text.len - start - 1);
  it->vals[attr].set = 1;
  it->vals[attr].scan = 0;
  it->vals[attr].upd = upd;
  it->has_update_ops = 1;
  it->nkeys = 0;
  return 0;
}

int ddbst_item_add(ddbst_item *it, int attr, const char *text, size_t len,
                   ddbst_error *err) {
  return set_update_value(it, attr, text, len, DDBST__UPD_ADD, err);
}

int ddbst_item_append(ddbst_item *it, int attr, const char *json, size_t len,
                      ddbst_error *err) {
  return set_update_value(it, attr, json, len, DDBST__UPD_APPEND, err);
}

int ddbst_item_set_previous(ddbst_item *it, int attr, const char *text,
                            size_t len, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  len = ddbst__len(text, len);
  /* canonicalise as a value, then move it to the previous slot */
  ddbst__val keep = it->vals[attr < 0 || attr >= it->m->max_attrs ? 0 : attr];
  int rc = ddbst_item_set(it, attr, text, len, err);
  if (rc) return rc;
  it->prev[attr] = it->vals[attr];
  it->has_previous = 1;
  it->vals[attr] = keep;
  return 0;
}

int ddbst_item_project(ddbst_item *it, int attr) {
  if (!it || !attr_of(it, attr)) return DDBST_EINVAL;
  if (!it->projected[attr]) it->nprojected++;
  it->projected[attr] = 1;
  return 0;
}

int ddbst_item_expect_version(ddbst_item *it, int64_t version) {
  if (!it) return DDBST_EINVAL;
  if (it->m->entities[it->entity].version_attr < 0) return DDBST_EINVAL;
  if (version < 1 || version == INT64_MAX) return DDBST_ERANGE;
  it->has_expected_version = 1;
  it->expected_version = version;
  return 0;
}

int ddbst__item_check_plain(const ddbst_item *it, ddbst_error *err) {
  if (!it->has_update_ops) return 0; /* the usual put: nothing to look for */
  const ddbst__entity *e = &it->m->entities[it->entity];
  for (int i = 0; i < e->nattrs; i++)
    if (it->vals[i].upd != DDBST__UPD_SET) {
      char path[DDBST_ERROR_PATH_MAX];
      attr_path(path, sizeof path, it, &e->attrs[i]);
      return ddbst__fail(err, DDBST_EVALUE, path,
                         "%s has a REMOVE, ADD or append, which only an "
                         "update can carry",
                         e->attrs[i].name);
    }
  return 0;
}

int ddbst_item_get(const ddbst_item *it, int attr, const char **text,
                   size_t *len) {
  if (!it || !attr_of(it, attr)) return DDBST_EINVAL;
  size_t l = 0;
  const char *t = ddbst__item_text(it, attr, &l);
  if (!t) return 0;
  if (text) *text = t;
  if (len) *len = l;
  return 1;
}

int64_t ddbst_now_unix_us(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The default of unset attribute `i`. */
static int apply_default(ddbst_item *it, int i, int64_t now_us,
                         ddbst_error *err) {
  const ddbst__entity *e = &it->m->entities[it->entity];
  const ddbst__attr *a = &e->attrs[i];
  char tmp[DDBST__TS_MAX];
  size_t tlen = 0;
  int rc = 0;
  int is_auto_time = i == e->created_attr || i == e->updated_attr;
  /* what ddbst_item_set would record of the same text (commit's scan),
   * so that the plans take a default as they take a value given */
  unsigned char scan = 0;
  if (a->def == DDBST__DEF_VALUE) {
    rc = ddbst__item_store(it, i, a->def_text, a->def_len);
    scan = a->def_scan;
  } else if (a->def == DDBST__DEF_NOW || is_auto_time) {
    const char *bad = ddbst__ts_from_unix_us(now_us, a->precision, tmp, &tlen);
    if (bad)
      return ddbst__fail(err, DDBST_ERANGE, NULL, "%s: %s", a->name, bad);
    rc = ddbst__item_store(it, i, tmp, tlen);
    if (a->type == DDBST__T_TIMESTAMP) scan = it->m->ts_scan;
  } else if (a->def == DDBST__DEF_GENERATE) {
    uint64_t ms = now_us < 0 ? 0 : (uint64_t)now_us / 1000;
    rc = ddbst__model_next_ulid(it->m, ms, tmp);
    if (rc == 0) rc = ddbst__item_store(it, i, tmp, DDBST__ULID_LEN);
    if (a->type == DDBST__T_ULID) scan = it->m->ulid_scan;
  }
  if (rc) return ddbst__fail(err, rc, NULL, "out of memory");
  it->vals[i].scan = scan;
  return 0;
}

/* The defaults from the k-th on. Apart from the search below, as is
 * missing(): their frames would cost every write that needs neither. */
DDBST__NOINLINE static int apply_defaults_from(ddbst_item *it, int k,
                                               int64_t now_us,
                                               ddbst_error *err) {
  const ddbst__entity *e = &it->m->entities[it->entity];
  for (; k < e->ndefaults; k++) {
    int i = e->default_attrs[k];
    if (it->vals[i].set) continue;
    int rc = apply_default(it, i, now_us, err);
    if (rc) return rc;
  }
  return 0;
}

int ddbst_item_apply_defaults(ddbst_item *it, int64_t now_us,
                              ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  now_us = ddbst__now(now_us);
  const ddbst__entity *e = &it->m->entities[it->entity];
  for (int k = 0; k < e->ndefaults; k++)
    if (!it->vals[e->default_attrs[k]].set)
      return apply_defaults_from(it, k, now_us, err);
  return 0;
}

DDBST__NOINLINE static int missing(const ddbst_item *it, int i,
                                   ddbst_error *err) {
  const ddbst__entity *e = &it->m->entities[it->entity];
  const ddbst__attr *a = &e->attrs[i];
  char path[DDBST_ERROR_PATH_MAX];
  attr_path(path, sizeof path, it, a);
  return ddbst__fail(err, DDBST_EMISSING, path, "%s.%s is required", e->name,
                     a->name);
}

int ddbst_item_check_required(const ddbst_item *it, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  const ddbst__entity *e = &it->m->entities[it->entity];
  for (int k = 0; k < e->nrequired; k++) {
    int i = e->required_attrs[k];
    if (!it->vals[i].set) return missing(it, i, err);
  }
  return 0;
}

/* ddbst_item_set for a parsed answer's value (response/items.c): the
 * attribute is the item's entity's and the text is well-formed UTF-8
 * without NUL (json/text.h's rule, checked before the parse, and the
 * parser's refusal of \u0000), so neither is checked again; every check of
 * the model (enum values, timestamps, ULIDs, numbers, ...) is made as
 * ddbst_item_set makes it, with the same errors. */
int ddbst__item_set_parsed(ddbst_item *it, int attr, const char *text,
                           size_t len, ddbst_error *err) {
  const ddbst__attr *a = &it->attrs[attr];
  if (it->text.cap - it->text.len > len + 1) {
    switch (a->type) {
    case DDBST__T_STRING:
      if (len <= 16) return set_string(it, attr, text, len, err, a);
      /* what set_utf8_string does once its UTF-8 check has passed */
      memcpy(it->text.data + it->text.len, text, len);
      return commit(it, attr, len, 0);
    case DDBST__T_ENUM: return set_enum(it, attr, text, len, err, a);
    case DDBST__T_TIMESTAMP: return set_timestamp(it, attr, text, len, err, a);
    case DDBST__T_ULID: return set_ulid(it, attr, text, len, err, a);
    default: break;
    }
  }
  return ddbst_item_set(it, attr, text, len, err);
}
