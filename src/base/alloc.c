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
  size_t cap; /* the bytes of data (the pad past them aside) */
  /* max_align_t keeps the data after the header aligned for any type. */
  max_align_t data[];
};

enum { ARENA_BLOCK = 8192 };

void ddbst__arena_init(ddbst__arena *ar, const ddbst_allocator *alloc) {
  ar->alloc = alloc;
  ar->head = NULL;
  ar->used = ar->cap = 0;
  ar->spare = NULL;
}

static void free_chain(const ddbst_allocator *a, ddbst__arena_block *b) {
  while (b) {
    ddbst__arena_block *next = b->next;
    ddbst__free(a, b);
    b = next;
  }
}

void ddbst__arena_free(ddbst__arena *ar) {
  free_chain(ar->alloc, ar->head);
  free_chain(ar->alloc, ar->spare);
  ar->head = ar->spare = NULL;
  ar->used = ar->cap = 0;
}

/* A block of at least `cap` bytes: the smallest rewound one that holds
 * them, else a new one. The pad past its bytes lets ddbst__copy_padded
 * read whole words, zeroed so that what it reads there is defined. */
static ddbst__arena_block *new_block(ddbst__arena *ar, size_t cap) {
  ddbst__arena_block **best = NULL;
  for (ddbst__arena_block **p = &ar->spare; *p; p = &(*p)->next)
    if ((*p)->cap >= cap && (!best || (*p)->cap < (*best)->cap)) best = p;
  if (best) {
    ddbst__arena_block *b = *best;
    *best = b->next;
    return b;
  }
  ddbst__arena_block *b =
      ddbst__malloc(ar->alloc, sizeof(ddbst__arena_block) + cap + DDBST__PAD);
  if (b) {
    b->cap = cap;
    memset((char *)b->data + cap, 0, DDBST__PAD);
  }
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
      ar->used = n;
      ar->cap = b->cap;
    }
    return (char *)b->data;
  }
  ddbst__arena_block *b = new_block(ar, ARENA_BLOCK);
  if (!b) return NULL;
  b->next = ar->head;
  ar->head = b;
  ar->used = n;
  ar->cap = b->cap;
  return (char *)b->data;
}

void *ddbst__arena_alloc(ddbst__arena *ar, size_t n) {
  char *p = bump(ar, n ? n : 1, sizeof(max_align_t));
  if (p) memset(p, 0, n);
  return p;
}

void *ddbst__arena_alloc_words(ddbst__arena *ar, size_t n) {
  char *p = bump(ar, n ? n : 1, sizeof(void *));
  if (p) memset(p, 0, n);
  return p;
}

/* Text needs no alignment: names and key parts, most of them under 16
 * bytes, are packed one after the other. */
char *ddbst__arena_text_room(ddbst__arena *ar, size_t n) {
  char *p = bump(ar, n + 1, 1);
  if (p) p[n] = '\0';
  return p;
}

char *ddbst__arena_strndup(ddbst__arena *ar, const char *s, size_t n) {
  char *p = ddbst__arena_text_room(ar, n);
  if (p && n) memcpy(p, s, n);
  return p;
}

void ddbst__arena_rewind(ddbst__arena *ar, size_t keep) {
  /* the blocks in use join the spare ones; past `keep` bytes they go */
  ddbst__arena_block *b = ar->head, *kept = NULL;
  size_t total = 0;
  for (int chain = 0; chain < 2; chain++, b = ar->spare) {
    while (b) {
      ddbst__arena_block *next = b->next;
      if (b->cap <= keep - total) {
        total += b->cap;
        b->next = kept;
        kept = b;
      } else {
        ddbst__free(ar->alloc, b);
      }
      b = next;
    }
  }
  ar->spare = kept;
  ar->head = NULL;
  ar->used = ar->cap = 0;
}
