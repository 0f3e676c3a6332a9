/* The block cache of a JSON parse (blocks.h). */
#include "json/blocks.h"

union ddbst__json_block {
  struct {
    ddbst__json_block *next;
    size_t cap;
    int live;
  } h;
  max_align_t align; /* keeps the memory after the header aligned */
};

void *ddbst__json_block_get(ddbst__json_run *r, size_t n) {
  ddbst__json_block *best = NULL;
  /* best fit, so that each of a parse's requests finds its block again */
  for (ddbst__json_block *b = r->cache->blocks; b; b = b->h.next)
    if (!b->h.live && b->h.cap >= n && (!best || b->h.cap < best->h.cap))
      best = b;
  if (!best) {
    if (n > SIZE_MAX / 2 - sizeof *best) return NULL;
    size_t cap = n < 64 ? 64 : (n + 63) / 64 * 64;
    best = ddbst__malloc(r->alloc, sizeof *best + cap);
    if (!best) return NULL;
    best->h.cap = cap;
    best->h.next = r->cache->blocks;
    r->cache->blocks = best;
  }
  best->h.live = 1;
  return best + 1;
}

void *ddbst__json_block_grow(ddbst__json_run *r, void *p, size_t n) {
  if (!p) return ddbst__json_block_get(r, n);
  ddbst__json_block *b = (ddbst__json_block *)p - 1;
  if (b->h.cap >= n) return p;
  /* grow geometrically, in place, so a deep document does not leave a
   * trail of outgrown blocks behind */
  size_t cap = b->h.cap > SIZE_MAX / 4 ? n : b->h.cap * 2;
  if (cap < n) cap = n;
  if (cap > SIZE_MAX / 2 - sizeof *b) return NULL;
  ddbst__json_block **link = &r->cache->blocks;
  while (*link != b) link = &(*link)->h.next;
  ddbst__json_block *q = ddbst__realloc(r->alloc, b, sizeof *b + cap);
  if (!q) return NULL; /* b is still whole and linked */
  *link = q;
  q->h.cap = cap;
  return q + 1;
}

void ddbst__json_block_put(void *p) {
  if (p) ((ddbst__json_block *)p - 1)->h.live = 0;
}

void ddbst__json_blocks_done(ddbst__json_run *r) {
  if (r->cache == &r->own) {
    ddbst__json_cache_release(&r->own, r->alloc);
    return;
  }
  for (ddbst__json_block *b = r->cache->blocks; b; b = b->h.next)
    b->h.live = 0;
}

void ddbst__json_cache_release(ddbst__json_cache *cache,
                               const ddbst_allocator *a) {
  while (cache->blocks) {
    ddbst__json_block *next = cache->blocks->h.next;
    ddbst__free(a, cache->blocks);
    cache->blocks = next;
  }
}

void ddbst__json_cache_trim(ddbst__json_cache *cache, const ddbst_allocator *a,
                            size_t budget) {
  for (;;) {
    size_t total = 0;
    ddbst__json_block **largest = NULL;
    for (ddbst__json_block **link = &cache->blocks; *link;
         link = &(*link)->h.next) {
      total += (*link)->h.cap;
      if (!largest || (*link)->h.cap > (*largest)->h.cap) largest = link;
    }
    if (total <= budget) return;
    ddbst__json_block *b = *largest;
    *largest = b->h.next;
    ddbst__free(a, b);
  }
}
