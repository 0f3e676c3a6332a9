/* The memory of a JSON parse (json/parse.h): blocks from the caller's
 * allocator, kept in the run's cache when the parse frees them, so that an
 * owner that parses again (a page) finds them there and allocates nothing.
 * Each returns NULL when the allocator does; nothing jumps. */
#ifndef DDBST_JSON_BLOCKS_H
#define DDBST_JSON_BLOCKS_H

#include "json/parse.h"

/* A block of at least n bytes, aligned as malloc's, live until put back. */
void *ddbst__json_block_get(ddbst__json_run *r, size_t n);

/* Block p (or NULL: a new one) with room for n bytes, its bytes kept; NULL
 * when out of memory, p then still whole. */
void *ddbst__json_block_grow(ddbst__json_run *r, void *p, size_t n);

/* p is free again (NULL: nothing). */
void ddbst__json_block_put(void *p);

/* The parse is over: every block is free for the next one, or released
 * when the caller keeps no cache. */
void ddbst__json_blocks_done(ddbst__json_run *r);

#endif
