/* Shared internals: allocation through the caller's hooks, the load-time arena,
 * error reporting and the growable byte buffer every writer appends to. */
#ifndef DDBST_INTERNAL_H
#define DDBST_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "ddbst.h"

#if defined(__GNUC__)
#define DDBST__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DDBST__NOINLINE __attribute__((noinline))
/* for a helper whose callers pass constants that remove its branches */
#define DDBST__INLINE inline __attribute__((always_inline))
#else
#define DDBST__PRINTF(f, a)
#define DDBST__NOINLINE
#define DDBST__INLINE inline
#endif

/* ---- allocation ---- */

/* The hooks in force: the caller's, or malloc/realloc/free. */
void ddbst__alloc_init(ddbst_allocator *dst, const ddbst_allocator *src);
void *ddbst__malloc(const ddbst_allocator *a, size_t n);
void *ddbst__realloc(const ddbst_allocator *a, void *p, size_t n);
void ddbst__free(const ddbst_allocator *a, void *p);

/* A bump allocator for what lives exactly as long as a model: everything is
 * released at once, so the loader never frees piecemeal. */
typedef struct ddbst__arena_block ddbst__arena_block;
typedef struct ddbst__arena {
  const ddbst_allocator *alloc;
  ddbst__arena_block *head;
  size_t used, cap;
  ddbst__arena_block *spare; /* rewound blocks, each used again before a
                                new one is allocated */
} ddbst__arena;

void ddbst__arena_init(ddbst__arena *ar, const ddbst_allocator *alloc);
void ddbst__arena_free(ddbst__arena *ar);
/* Empties the arena for reuse by an owner that allocates per call (the
 * JSON entry): its blocks are kept for the next allocations, as many as
 * hold at most `keep` bytes in all (the rest freed), so that a request
 * the size of the last one allocates nothing. */
void ddbst__arena_rewind(ddbst__arena *ar, size_t keep);
/* Zeroed, max-aligned memory, or NULL. */
void *ddbst__arena_alloc(ddbst__arena *ar, size_t n);
/* Zeroed memory aligned for pointers and 32-bit words only, or NULL: what
 * holds nothing wider packs tighter (the JSON tree's 24-byte scalar
 * nodes would take 32 at max_align_t). */
void *ddbst__arena_alloc_words(ddbst__arena *ar, size_t n);
/* A NUL-terminated copy of s[0..n), or NULL: packed, not aligned. */
char *ddbst__arena_strndup(ddbst__arena *ar, const char *s, size_t n);
/* Room for a text of up to n bytes and its NUL, packed as
 * ddbst__arena_strndup's copies, for a caller that writes the text there
 * itself (p[n] is '\0'; a shorter text puts its own NUL), or NULL. */
char *ddbst__arena_text_room(ddbst__arena *ar, size_t n);

/* A length of the API: DDBST_NUL_TERMINATED is the text's own. */
static inline size_t ddbst__len(const char *s, size_t n) {
  return n == DDBST_NUL_TERMINATED ? (s ? strlen(s) : 0) : n;
}

/* An instant of the API: DDBST_NOW (0) reads the clock. */
static inline int64_t ddbst__now(int64_t now_us) {
  return now_us ? now_us : ddbst_now_unix_us();
}

/* ---- errors ---- */

/* Fills `err` (when not NULL) and returns `code`, so callers can write
 * `return ddbst__fail(err, DDBST_EVALUE, "facet orgId", "...")`. */
int ddbst__fail(ddbst_error *err, int code, const char *path, const char *fmt,
                ...) DDBST__PRINTF(4, 5);
int ddbst__vfail(ddbst_error *err, int code, const char *path, const char *fmt,
                 va_list ap) DDBST__PRINTF(4, 0);
/* Drops a partial UTF-8 character that a cut at a byte limit left at the
 * end of `s`. */
void ddbst__trim_partial_utf8(char *s);

/* ---- the growable buffer ---- */

struct ddbst_buf {
  ddbst_allocator alloc;
  char *data;
  size_t len, cap;
};

void ddbst__buf_init(ddbst_buf *b, const ddbst_allocator *alloc);
void ddbst__buf_release(ddbst_buf *b);
/* The slow half of ddbst__buf_reserve: grows the buffer. */
int ddbst__buf_grow(ddbst_buf *b, size_t extra);

/* The appends below are inline: request bodies are made of many short ones,
 * and a call per '{' cost more than the copy. */

/* Makes room for `extra` more bytes plus the NUL; DDBST_ENOMEM leaves the
 * buffer unchanged. */
static inline int ddbst__buf_reserve(ddbst_buf *b, size_t extra) {
  if (b->cap - b->len > extra) return 0; /* cap > len once data exists */
  return ddbst__buf_grow(b, extra);
}

static inline int ddbst__buf_append(ddbst_buf *b, const void *p, size_t n) {
  if (ddbst__buf_reserve(b, n)) return DDBST_ENOMEM;
  ddbst__copy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

static inline int ddbst__buf_puts(ddbst_buf *b, const char *s) {
  return ddbst__buf_append(b, s, strlen(s));
}

static inline int ddbst__buf_putc(ddbst_buf *b, char c) {
  if (ddbst__buf_reserve(b, 1)) return DDBST_ENOMEM;
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
  return 0;
}

/* Cuts the buffer back to `len` bytes (to undo a half-written document). */
void ddbst__buf_truncate(ddbst_buf *b, size_t len);

/* ---- JSON output ---- */

/* A JSON string literal, quotes included, escaping '"', '\\' and every
 * control character. The bytes must already be valid UTF-8. */
int ddbst__json_string(ddbst_buf *b, const char *s, size_t n);
/* How many leading bytes of s[0..n) a JSON string holds as they are: n when
 * nothing needs an escape. */
size_t ddbst__json_plain_len(const char *s, size_t n);
/* A number text that ddbst__number_check accepts, as a JSON number. */
int ddbst__json_number(ddbst_buf *b, const char *s, size_t n);

#endif
