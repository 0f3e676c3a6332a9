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

/* A block of `cap` bytes; the pad past cap lets ddbst__copy_padded read
 * whole words, zeroed so that what it reads there is defined. */
static ddbst__arena_block *new_block(ddbst__arena *ar, size_t cap) {
  ddbst__arena_block *b =
      ddbst__malloc(ar->alloc, sizeof(ddbst__arena_block) + cap + DDBST__PAD);
  if (b) memset((char *)b->data + cap, 0, DDBST__PAD);
  return b;
}

/* `n` bytes at an offset of the current block that is a multiple of
 * `align`. What does not fit there and takes more than half a block gets a
 * block of its own, linked behind the current one, which goes on serving
 * the small allocations after it: a large array leaves no block half
 * used. */
static char *bump(ddbst__arena *ar, size_t n, size_t align) {
  size_t at = (ar->used + align - 1) & ~(align - 1);
  if (ar->head && at <= ar->cap && ar->cap - at >= n) {
    ar->used = at + n;
    return (char *)ar->head->data + at;
  }
  if (n > ARENA_BLOCK / 2) {
    ddbst__arena_block *b = new_block(ar, n);
    if (!b) return NULL;
    if (ar->head) {
      b->next = ar->head->next;
      ar->head->next = b;
    } else {
      b->next = NULL;
      ar->head = b;
      ar->used = ar->cap = n;
    }
    return (char *)b->data;
  }
  ddbst__arena_block *b = new_block(ar, ARENA_BLOCK);
  if (!b) return NULL;
  b->next = ar->head;
  ar->head = b;
  ar->used = n;
  ar->cap = ARENA_BLOCK;
  return (char *)b->data;
}

void *ddbst__arena_alloc(ddbst__arena *ar, size_t n) {
  char *p = bump(ar, n ? n : 1, sizeof(max_align_t));
  if (p) memset(p, 0, n);
  return p;
}

/* Text needs no alignment: names and key parts, most of them under 16
 * bytes, are packed one after the other. */
char *ddbst__arena_strndup(ddbst__arena *ar, const char *s, size_t n) {
  char *p = bump(ar, n + 1, 1);
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
