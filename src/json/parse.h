/* The one JSON parse: every parse of JSON in the library runs through here
 * (json/read.c reads, YAJL 2.1 words a malformed text's error). Callbacks
 * are called by the reader directly, with nothing in between; its memory
 * comes from the caller's allocator, and a failed allocation ends the
 * parse with DDBST_ENOMEM. */
#ifndef DDBST_JSON_PARSE_H
#define DDBST_JSON_PARSE_H

#include <setjmp.h>
#include <stddef.h>

#include "base/internal.h"

/* What the parser found, token by token. Each returns nonzero to go on and
 * 0 to stop the parse (DDBST__JSON_STOPPED). A number is its exact text;
 * strings and keys are unescaped, validated UTF-8, not NUL-terminated, and
 * may hold NUL. Their signatures are the parser's own, so that it calls
 * them with no adapter between. A NULL callback skips its tokens. */
typedef struct ddbst__json_callbacks {
  int (*on_null)(void *ctx);
  int (*on_bool)(void *ctx, int value);
  int (*on_number)(void *ctx, const char *s, size_t n);
  int (*on_string)(void *ctx, const unsigned char *s, size_t n);
  int (*on_start_map)(void *ctx);
  int (*on_key)(void *ctx, const unsigned char *key, size_t n);
  int (*on_end_map)(void *ctx);
  int (*on_start_array)(void *ctx);
  int (*on_end_array)(void *ctx);
  /* Optional: where the reader decodes a string or member name with
   * escapes that is too long for its stack (json/read.h), n bytes, for the
   * on_string or on_key called next to receive there (its length may be
   * less than n only for a text that breaks json/text.h's rule, which no
   * reader is given); NULL ends the parse as DDBST_ENOMEM. A caller that
   * keeps the text (the tree, in its arena) then copies nothing, and the
   * reader takes no block for it. NULL callback: the reader's own block. */
  char *(*string_room)(void *ctx, size_t n);
} ddbst__json_callbacks;

/* The blocks the parser freed, kept for the next parse by the same owner
 * (a page), so that a warm owner parses without allocating. All zero is
 * empty. */
typedef union ddbst__json_block ddbst__json_block;
typedef struct ddbst__json_cache {
  ddbst__json_block *blocks;
} ddbst__json_cache;

/* Frees every block kept; the cache is then empty. */
void ddbst__json_cache_release(ddbst__json_cache *cache,
                               const ddbst_allocator *a);
/* Frees the blocks kept past `budget` bytes, the largest first. */
void ddbst__json_cache_trim(ddbst__json_cache *cache, const ddbst_allocator *a,
                            size_t budget);

typedef enum {
  DDBST__JSON_OK,
  DDBST__JSON_STOPPED, /* a callback returned 0 */
  DDBST__JSON_SYNTAX,  /* not well-formed JSON; see msg */
  DDBST__JSON_TEXT     /* a string that is not text (json/text.h): invalid
                          UTF-8 or a lone surrogate escape; see msg, and
                          in_name. The callbacks have seen every token before
                          that string, none of it or after. */
} ddbst__json_status;

/* One parse: how it ended, and the parser's state. Lives in the caller's
 * memory (a failed allocation jumps back into ddbst__json_parse, so nothing
 * a parse changes may be one of its locals); a callback may ask it for the
 * offset reached. */
typedef struct ddbst__json_run {
  ddbst__json_status status;
  size_t at;     /* the byte offset where the parse stopped (len at the end) */
  char msg[160]; /* DDBST__JSON_SYNTAX: the parser's message, one line;
                    DDBST__JSON_TEXT: what is wrong with the string */
  int in_name;   /* DDBST__JSON_TEXT: the string is a member name */
  /* the parser's own (parse.c) */
  const ddbst_allocator *alloc;
  ddbst__json_cache *cache;
  ddbst__json_cache own; /* when the caller keeps no cache */
  void *handle;
  jmp_buf fail;
} ddbst__json_run;

/* Parses json[0..len), calling `cb` with `ctx`, once the text meets the rule
 * of json/text.h (a text that does not ends as DDBST__JSON_TEXT, at the
 * string that breaks it); the parser allocates with
 * `alloc` and keeps the blocks it frees in `cache` for the next parse
 * (NULL: released when the parse ends). 0 with r->status, r->at and r->msg
 * telling how the parse ended, or DDBST_ENOMEM when the parser could not
 * allocate (then callbacks may have run). */
int ddbst__json_parse(ddbst__json_run *r, const ddbst__json_callbacks *cb,
                      void *ctx, const char *json, size_t len,
                      const ddbst_allocator *alloc, ddbst__json_cache *cache);

/* A reader: ddbst__json_read (json/read.h), or a caller's own copy of its
 * loop (json/read_loop.h) whose callbacks are compiled in; it gets the
 * callbacks given to ddbst__json_parse_with, and must call those. */
typedef int (*ddbst__json_reader)(ddbst__json_run *r,
                                  const ddbst__json_callbacks *cb, void *ctx,
                                  const char *json, size_t len, int partial);

/* ddbst__json_parse, reading with `read`. */
int ddbst__json_parse_with(ddbst__json_reader read, ddbst__json_run *r,
                           const ddbst__json_callbacks *cb, void *ctx,
                           const char *json, size_t len,
                           const ddbst_allocator *alloc,
                           ddbst__json_cache *cache);

/* Inside a callback: the bytes of the input the parser has consumed, that
 * is the offset just past the token being reported. */
size_t ddbst__json_offset(const ddbst__json_run *r);

/* 1-based line and column of byte `offset` in `text`. */
void ddbst__text_position(const char *text, size_t len, size_t offset,
                          unsigned *line, unsigned *column);

#endif
