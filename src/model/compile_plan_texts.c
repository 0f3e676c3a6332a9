/* The texts the put and create plans share (compile_put_plans.c,
 * compile_create_plans.c): an Item's member before its value, and the
 * condition a create's Put carries, made here once so that the two plans
 * cannot write them two ways; and the maker every plan makes its texts
 * with, which keeps each text once (plan_texts.h). */
#include <string.h>

#include "model/compile.h"
#include "model/plan_texts.h"

/* ddbst__plan_members into mt[0..nattrs] (zeroed). */
static int fill_members(ddbst__plan_maker *k, const ddbst__entity *e,
                        ddbst__jtext *mt, size_t *bytes) {
  ddbst_buf *t = &k->pending;
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__jtext *s = &e->attrs[a].s_member;
    if (!s->p) continue; /* not a string: written the general way */
    /* `"}` closes the value before it, then `,"name":{"S":"` */
    ddbst_buf_reset(t);
    if (ddbst__buf_append(t, "\"},", 3) || ddbst__buf_append(t, s->p, s->n))
      return DDBST_ENOMEM;
    const char *kept = ddbst__plan_keep_text(k, t->data, t->len);
    if (!kept) return DDBST_ENOMEM;
    mt[a] = (ddbst__jtext){kept, (uint32_t)t->len, 0};
    *bytes += t->len;
  }
  ddbst_buf_reset(t);
  return 0;
}

const ddbst__jtext *ddbst__plan_members(ddbst__plan_maker *k,
                                        const ddbst__entity *e, size_t *bytes) {
  size_t size = (size_t)(e->nattrs + 1) * sizeof(ddbst__jtext);
  ddbst__jtext own[128];
  if (size <= sizeof own) { /* made here and kept: entities alike share */
    memset(own, 0, size);
    if (fill_members(k, e, own, bytes)) return NULL;
    return ddbst__plan_keep(k, own, size);
  }
  ddbst__jtext *mt = ddbst__arena_alloc(&k->m->arena, size);
  if (!mt || fill_members(k, e, mt, bytes)) return NULL;
  return mt;
}

int ddbst__plan_not_exists(const ddbst_model *m, ddbst_buf *t) {
  static const char cond[] =
      ",\"ConditionExpression\":\"attribute_not_exists(#n0)\","
      "\"ExpressionAttributeNames\":{\"#n0\":";
  int rc = ddbst__buf_append(t, cond, sizeof cond - 1);
  /* the key's name as its JSON text, less the ':' after it */
  rc = rc ? rc : ddbst__buf_append(t, m->pk_jname.p, m->pk_jname.n - 1);
  return rc ? rc : ddbst__buf_append(t, "}", 1);
}

/* ---- the maker: texts and arrays kept once ---- */

void ddbst__plan_maker_init(ddbst__plan_maker *k, ddbst_model *m) {
  memset(k, 0, sizeof *k);
  k->m = m;
  ddbst__buf_init(&k->pending, &m->alloc);
  k->kept = k->first;
  k->cap = sizeof k->first / sizeof k->first[0];
}

void ddbst__plan_maker_release(ddbst__plan_maker *k) {
  ddbst__buf_release(&k->pending);
  if (k->kept != k->first) ddbst__free(&k->m->alloc, k->kept);
  k->kept = NULL;
  k->cap = k->count = 0;
}

/* Twice the slots, every kept entry moved. */
static int grow(ddbst__plan_maker *k) {
  size_t cap = k->cap * 2;
  ddbst__kept *slots = ddbst__malloc(&k->m->alloc, cap * sizeof *slots);
  if (!slots) return DDBST_ENOMEM;
  memset(slots, 0, cap * sizeof *slots);
  for (size_t i = 0; i < k->cap; i++) {
    if (!k->kept[i].hash) continue;
    size_t j = k->kept[i].hash & (cap - 1);
    while (slots[j].hash) j = (j + 1) & (cap - 1);
    slots[j] = k->kept[i];
  }
  if (k->kept != k->first) ddbst__free(&k->m->alloc, k->kept);
  k->kept = slots;
  k->cap = cap;
  return 0;
}

/* A hash of p[0..n), eight bytes a step (FNV's byte a step cost more than
 * making the texts: they run to 300 bytes); the last eight bytes overlap
 * the ones before them. */
static uint32_t hash_bytes(const char *p, size_t n) {
  uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ n, w = 0;
  size_t i = 0;
  for (; i + 8 < n; i += 8) {
    memcpy(&w, p + i, 8);
    h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 32;
  }
  if (n >= 8) {
    memcpy(&w, p + n - 8, 8);
  } else {
    w = 0;
    for (size_t j = 0; j < n; j++) w = w << 8 | (unsigned char)p[j];
  }
  h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
  return (uint32_t)(h ^ h >> 32);
}

/* The kept copy of p[0..n) (`text`: a text, NUL after and unaligned; else
 * an array, aligned), made when there is none. */
static const char *keep(ddbst__plan_maker *k, const void *p, size_t n,
                        int text) {
  if (2 * (k->count + 1) > k->cap && grow(k)) return NULL;
  /* a text and an array of the same bytes are told apart by the hash */
  uint32_t h = (hash_bytes((const char *)p, n) << 1 | (uint32_t)text) | 2;
  size_t i = h & (k->cap - 1);
  /* n 0: p may be NULL (the pending text before it held anything), which
   * memcmp may not be given even for 0 bytes */
  for (; k->kept[i].hash; i = (i + 1) & (k->cap - 1))
    if (k->kept[i].hash == h && k->kept[i].n == n &&
        (n == 0 || memcmp(k->kept[i].p, p, n) == 0))
      return k->kept[i].p;
  char *copy;
  if (text) {
    copy = ddbst__arena_strndup(&k->m->arena, (const char *)p, n);
  } else {
    copy = ddbst__arena_alloc(&k->m->arena, n);
    if (copy && n) memcpy(copy, p, n);
  }
  if (!copy) return NULL;
  k->kept[i] = (ddbst__kept){copy, (uint32_t)n, h};
  k->count++;
  return copy;
}

const char *ddbst__plan_keep_text(ddbst__plan_maker *k, const char *s,
                                  size_t n) {
  return keep(k, s, n, 1);
}

const void *ddbst__plan_keep(ddbst__plan_maker *k, const void *p, size_t n) {
  return keep(k, p, n, 0);
}

int ddbst__plan_take(ddbst__plan_maker *k, ddbst__jtext *t) {
  const char *p = keep(k, k->pending.data, k->pending.len, 1);
  if (!p) return DDBST_ENOMEM;
  *t = (ddbst__jtext){p, (uint32_t)k->pending.len, 0};
  if (k->fixed) *k->fixed += k->pending.len;
  ddbst_buf_reset(&k->pending);
  return 0;
}
