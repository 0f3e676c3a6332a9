/* The whole bodies of update plans (model/update_plan.h) written, and the
 * decision whether one applies: shared by the short ways (update_plan.c)
 * and ddbst_update_request's first step (update_request.c), inline in
 * both, as a call here cost what the bodies' writer saved. */
#ifndef DDBST_UPDATE_SHAPE_H
#define DDBST_UPDATE_SHAPE_H

#include <string.h>

#include "base/bytes.h"
#include "item/item.h"
#include "model/update_plan.h"
#include "request/expr.h"

static inline int ddbst__lowest_bit(uint64_t b) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(b);
#else
  int a = 0;
  while (!(b & 1)) b >>= 1, a++;
  return a;
#endif
}

/* The attributes given, as a mask: the first 16 by a jump into fixed
 * loads and shifts (a loop per bit, or per four, cost twice as much for
 * the usual entity of 4 to 16 attributes), the rest by a loop. */
static inline uint64_t ddbst__given_mask(const ddbst__val *vals, int n) {
  uint64_t g = 0;
  for (int i = 16; i < n; i++) g |= (uint64_t)vals[i].set << i;
  switch (n < 16 ? n : 16) {
  case 16: g |= (uint64_t)vals[15].set << 15; /* fall through */
  case 15: g |= (uint64_t)vals[14].set << 14; /* fall through */
  case 14: g |= (uint64_t)vals[13].set << 13; /* fall through */
  case 13: g |= (uint64_t)vals[12].set << 12; /* fall through */
  case 12: g |= (uint64_t)vals[11].set << 11; /* fall through */
  case 11: g |= (uint64_t)vals[10].set << 10; /* fall through */
  case 10: g |= (uint64_t)vals[9].set << 9; /* fall through */
  case 9: g |= (uint64_t)vals[8].set << 8; /* fall through */
  case 8: g |= (uint64_t)vals[7].set << 7; /* fall through */
  case 7: g |= (uint64_t)vals[6].set << 6; /* fall through */
  case 6: g |= (uint64_t)vals[5].set << 5; /* fall through */
  case 5: g |= (uint64_t)vals[4].set << 4; /* fall through */
  case 4: g |= (uint64_t)vals[3].set << 3; /* fall through */
  case 3: g |= (uint64_t)vals[2].set << 2; /* fall through */
  case 2: g |= (uint64_t)vals[1].set << 1; /* fall through */
  case 1: g |= (uint64_t)vals[0].set << 0; /* fall through */
  default: break;
  }
  return g;
}

/* The item as the general writer leaves it: no key list, no records
 * (keytext's bytes left as they were, as the put plan leaves them: with
 * no key listed, nothing reads them, and the next key built starts it
 * again). */
static inline void ddbst__as_general(ddbst_item *it) {
  it->nkeys = 0;
  ddbst__expr_reset(it);
}

/* Whether each value the whole body `s` copies was found clean when set
 * (a key's facet: no delimiter and no escape; a value: no escape). A test
 * a value (folded, the loop was vectorized, which cost four times more for
 * the usual four values). */
static inline int ddbst__shape_clean(const ddbst__val *vals,
                                     const ddbst__ushape *s) {
  for (const ddbst__ucheck *c = s->checks, *end = c + s->nchecks; c < end;
       c++)
    if ((vals[c->attr].scan & c->mask) != DDBST__SCAN_KNOWN) return 0;
  return 1;
}

/* An update of one attribute (and the stamp): its whole body's texts
 * between its values, as a put plan writes a put, the values found clean
 * (ddbst__shape_clean) and the room reserved. */
static inline void ddbst__write_shape(ddbst_item *it, const ddbst__ushape *s,
                                      ddbst_buf *out) {
  ddbst__as_general(it);
  const char *text = it->text.data;
  const ddbst__val *vals = it->vals;
  char *o = out->data + out->len;
  for (const ddbst__ustep *st = s->steps, *end = st + s->nsteps; st < end;
       st++) {
    const ddbst__val *v = &vals[st->attr];
    /* read before the copies, which the compiler must assume may change
     * them (char stores alias everything) */
    const char *t = st->text, *value = text + v->off;
    size_t tn = st->len, vn = v->len;
    ddbst__copy_text64(o, t, tn);
    o += tn;
    ddbst__copy_padded(o, value, vn);
    o += vn;
  }
  ddbst__copy_text64(o, s->end.p, s->end.n);
  o += s->end.n;
  *o = '\0';
  out->len = (size_t)(o - out->data);
}

/* The room a whole body needs: its texts, and the values' with room to
 * spare for the copies' 32 bytes. */
static inline size_t ddbst__shape_room(const ddbst__ushape *s, size_t text_bound,
                                size_t text_len) {
  return s->fixed + text_bound + text_len + 64;
}

/* The whole body an update takes, or NULL: one attribute set (and the
 * stamp), and all the indexes it rewrites need given. */
static inline const ddbst__ushape *ddbst__shape_of(const ddbst__update_plan *p,
                                            uint64_t given, uint64_t assign) {
  uint64_t one = assign & ~p->stamp;
  if (!p->shapes || !one || (one & (one - 1))) return NULL;
  const ddbst__ushape *s = p->shapes[ddbst__lowest_bit(one)];
  return s && s->assign == assign && !(s->need & ~given) ? s : NULL;
}

#endif
