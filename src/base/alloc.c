/* Allocation through the caller's hooks, and the arena a model lives in. */
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static void *std_malloc(void *user, size_t n) {
  (void)user;
  return malloc(n);
}
static void *std_realloc(void *user, void *p, size_t n) {
  (void)user;
  return realloc(p, n);
}
static void std_free(void *user, void *p) {
  (void)user;
  free(p);
}

void ddbst__alloc_init(ddbst_allocator *dst, const ddbst_allocator *src) {
  if (src && src->malloc && src->realloc && src->free) {
    *dst = *src;
  } else {
    dst->malloc = std_malloc;
    dst->realloc = std_realloc;
    dst->free = std_free;
    dst->user = NULL;
  }
}

void *ddbst__malloc(const ddbst_allocator *a, size_t n) {
  return a->malloc(a->user, n ? n : 1);
}
void *ddbst__realloc(const ddbst_allocator *a, void *p, size_t n) {
  return a->realloc(a->user, p, n ? n : 1);
}
void ddbst__free(const ddbst_allocator *a, void *p) {
  if (p) a->free(a->user, p);
}

/* ---- arena ---- */

struct ddbst__arena_block {
  ddbst__arena_block *next;
  /* max_align_t keeps the data after the header aligned for any type. */
  max_align_t data[];
};

enum { ARENA_BLOCK = 8192 };

void ddbst__arena_init(ddbst__arena *ar, const ddbst_allocator *alloc) {
  ar->alloc = alloc;
  ar->head = NULL;
  ar->used = ar->cap = 0;
}

void ddbst__arena_free(ddbst__arena *ar) {
  ddbst__arena_block *b = ar->head;
  while (b) {
    ddbst__arena_block *next = b->next;
    ddbst__free(ar->alloc, b);
    b = next;
  }
  ar->head = NULL;
  ar->used = ar->cap = 0;
}

void *ddbst__arena_alloc(ddbst__arena *ar, size_t n) {
  const size_t align = sizeof(max_align_t);
  n = (n + align - 1) / align * align;
  if (n == 0) n = align;
  if (!ar->head || ar->cap - ar->used < n) {
    size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
    /* the pad past cap lets ddbst__copy_padded read whole words; zeroed, so
     * what it reads there is defined */
    ddbst__arena_block *b =
        ddbst__malloc(ar->alloc, sizeof(ddbst__arena_block) + cap + DDBST__PAD);
    if (!b) return NULL;
    memset((char *)b->data + cap, 0, DDBST__PAD);
    b->next = ar->head;
    ar->head = b;
    ar->used = 0;
    ar->cap = cap;
  }
  char *p = (char *)ar->head->data + ar->used;
  ar->used += n;
  memset(p, 0, n);
  return p;
}

char *ddbst__arena_strndup(ddbst__arena *ar, const char *s, size_t n) {
  char *p = ddbst__arena_alloc(ar, n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void ddbst__arena_rewind(ddbst__arena *ar, size_t keep) {
  ddbst__arena_block *newest = ar->head;
  if (!newest) return;
  ddbst__arena_block *older = newest->next;
  if (ar->cap > keep) {
    older = newest;
    newest = NULL;
  }
  while (older) {
    ddbst__arena_block *next = older->next;
    ddbst__free(ar->alloc, older);
    older = next;
  }
  ar->head = newest;
  if (newest) newest->next = NULL;
  ar->used = 0;
  if (!newest) ar->cap = 0;
}
