/* Texts the compile steps keep once (compile.h): a model of 1,000
 * patterns wrote the same query head, key condition and ",\"Limit\":25"
 * for hundreds of them, each a copy the load touched. */
#include <string.h>

#include "model/compile.h"

static ddbst__strkey pooled(const void *owner, uint32_t entry) {
  const ddbst__text_pool *tp = owner;
  return (ddbst__strkey){tp->texts[entry].p, tp->texts[entry].n};
}

void ddbst__text_pool_init(ddbst__text_pool *tp, ddbst_model *m) {
  memset(tp, 0, sizeof *tp);
  tp->m = m;
  ddbst__strset_init(&tp->set);
}

int ddbst__text_pool_keep(ddbst__text_pool *tp, const char *s, size_t n,
                          ddbst__jtext *out) {
  const ddbst_allocator *a = &tp->m->alloc;
  if (tp->n == tp->cap) {
    uint32_t cap = tp->cap ? tp->cap * 2 : 64;
    ddbst__jtext *t = ddbst__realloc(a, tp->texts, cap * sizeof *t);
    if (!t) return DDBST_ENOMEM;
    tp->texts = t;
    tp->cap = cap;
  }
  if (ddbst__strset_reserve(&tp->set, a, tp->n + 1, 64, pooled, tp))
    return DDBST_ENOMEM;
  ddbst__strslot *slot = ddbst__strset_find(&tp->set, s, n, pooled, tp);
  if (!ddbst__strset_taken(&tp->set, slot)) {
    const char *p = ddbst__arena_strndup(&tp->m->arena, s, n);
    if (!p) return DDBST_ENOMEM;
    tp->texts[tp->n] = (ddbst__jtext){p, (uint32_t)n, 0};
    ddbst__strset_put(&tp->set, slot, tp->n++);
  }
  out->p = tp->texts[slot->entry].p;
  out->n = (uint32_t)n;
  out->raw_len = 0;
  return 0;
}

void ddbst__text_pool_release(ddbst__text_pool *tp) {
  ddbst__strset_release(&tp->set, &tp->m->alloc);
  ddbst__free(&tp->m->alloc, tp->texts);
  tp->texts = NULL;
  tp->n = tp->cap = 0;
}
