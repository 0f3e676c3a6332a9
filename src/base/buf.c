/* The caller-reusable output buffer. It only grows, so a warm buffer never
 * allocates. */
#include <string.h>

#include "base/internal.h"

static char empty_text[1];

void ddbst__buf_init(ddbst_buf *b, const ddbst_allocator *alloc) {
  ddbst__alloc_init(&b->alloc, alloc);
  b->data = NULL;
  b->len = b->cap = 0;
}

void ddbst__buf_release(ddbst_buf *b) {
  ddbst__free(&b->alloc, b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

int ddbst__buf_grow(ddbst_buf *b, size_t extra) {
  if (extra > SIZE_MAX / 2 - b->len) return DDBST_ENOMEM;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap *= 2;
  /* the pad past cap lets ddbst__copy_padded write and read whole words */
  char *p = ddbst__realloc(&b->alloc, b->data, cap + DDBST__PAD);
  if (!p) return DDBST_ENOMEM;
  b->data = p;
  b->cap = cap;
  return 0;
}

void ddbst__buf_truncate(ddbst_buf *b, size_t len) {
  if (len < b->len) {
    b->len = len;
    b->data[len] = '\0';
  }
}

ddbst_buf *ddbst_buf_new(const ddbst_allocator *alloc) {
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  ddbst_buf *b = ddbst__malloc(&a, sizeof *b);
  if (!b) return NULL;
  ddbst__buf_init(b, &a);
  return b;
}

void ddbst_buf_free(ddbst_buf *b) {
  if (!b) return;
  ddbst_allocator a = b->alloc;
  ddbst__buf_release(b);
  ddbst__free(&a, b);
}

void ddbst_buf_reset(ddbst_buf *b) {
  if (!b) return;
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

const char *ddbst_buf_data(const ddbst_buf *b) {
  return b && b->data ? b->data : empty_text;
}

size_t ddbst_buf_len(const ddbst_buf *b) { return b ? b->len : 0; }

int ddbst_buf_append(ddbst_buf *b, const char *data, size_t len) {
  if (!b || (!data && len && len != DDBST_NUL_TERMINATED)) return DDBST_EINVAL;
  len = ddbst__len(data, len);
  return len ? ddbst__buf_append(b, data, len) : 0;
}

void ddbst_buf_truncate(ddbst_buf *b, size_t len) {
  if (b) ddbst__buf_truncate(b, len);
}

int ddbst_buf_reserve(ddbst_buf *b, size_t extra) {
  if (!b) return DDBST_EINVAL;
  return ddbst__buf_reserve(b, extra);
}
