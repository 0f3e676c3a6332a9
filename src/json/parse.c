/* YAJL 2.1 behind parse.h: its allocations from a block cache, a parse run
 * with the caller's callbacks, and its error text and offset. The only file
 * of the library that includes YAJL. */
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "json/parse.h"
#include "json/text.h"

/* ---- YAJL's memory: a block cache ---- */

/* YAJL 2.1 uses what its allocator returns without checking for NULL, so a
 * failed allocation jumps back to where the parse started and reports
 * DDBST_ENOMEM. Blocks YAJL frees are kept in the cache until the parse
 * ends, or for the cache owner's next parse: a warm page parses without
 * allocating. */
union ddbst__json_block {
  struct {
    ddbst__json_block *next;
    size_t cap;
    int live;
  } h;
  max_align_t align; /* keeps the memory after the header aligned */
};

static void *yb_malloc(void *ctx, size_t n) {
  ddbst__json_run *r = ctx;
  ddbst__json_block *best = NULL;
  /* best fit, so that each of a parse's requests finds its block again */
  for (ddbst__json_block *b = r->cache->blocks; b; b = b->h.next)
    if (!b->h.live && b->h.cap >= n && (!best || b->h.cap < best->h.cap))
      best = b;
  if (!best) {
    if (n > SIZE_MAX / 2 - sizeof *best) longjmp(r->fail, 1);
    size_t cap = n < 64 ? 64 : (n + 63) / 64 * 64;
    best = ddbst__malloc(r->alloc, sizeof *best + cap);
    if (!best) longjmp(r->fail, 1);
    best->h.cap = cap;
    best->h.next = r->cache->blocks;
    r->cache->blocks = best;
  }
  best->h.live = 1;
  return best + 1;
}

static void *yb_realloc(void *ctx, void *p, size_t n) {
  if (!p) return yb_malloc(ctx, n);
  ddbst__json_run *r = ctx;
  ddbst__json_block *b = (ddbst__json_block *)p - 1;
  if (b->h.cap >= n) return p;
  /* grow geometrically, in place, so a deep document does not leave a
   * trail of outgrown blocks behind */
  size_t cap = b->h.cap > SIZE_MAX / 4 ? n : b->h.cap * 2;
  if (cap < n) cap = n;
  if (cap > SIZE_MAX / 2 - sizeof *b) longjmp(r->fail, 1);
  ddbst__json_block **link = &r->cache->blocks;
  while (*link != b) link = &(*link)->h.next;
  ddbst__json_block *q = ddbst__realloc(r->alloc, b, sizeof *b + cap);
  if (!q) longjmp(r->fail, 1); /* b is still whole and linked */
  *link = q;
  q->h.cap = cap;
  return q + 1;
}

static void yb_free(void *ctx, void *p) {
  (void)ctx;
  if (p) ((ddbst__json_block *)p - 1)->h.live = 0;
}

/* The parse is over: every block is free for the next one, or released
 * when nobody keeps them. */
static void yb_done(ddbst__json_run *r) {
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

/* ---- a parse ---- */

/* YAJL's error text without its verbose excerpt: "lexical error: invalid char
 * in json text." → the part a person needs. */
static void syntax_message(yajl_handle h, const char *json, size_t len,
                           char *out, size_t cap) {
  unsigned char *msg = yajl_get_error(h, 0, (const unsigned char *)json, len);
  if (msg) {
    size_t n = strcspn((const char *)msg, "\n");
    snprintf(out, cap, "%.*s", (int)n, (const char *)msg);
    yajl_free_error(h, msg);
  } else {
    snprintf(out, cap, "malformed JSON");
  }
}

int ddbst__json_parse(ddbst__json_run *r, const ddbst__json_callbacks *cb,
                      void *ctx, const char *json, size_t len,
                      const ddbst_allocator *alloc, ddbst__json_cache *cache) {
  /* set before setjmp and never changed after it, so still good when a
   * failed allocation jumps back */
  const yajl_callbacks ycb = {
      .yajl_null = cb->on_null,
      .yajl_boolean = cb->on_bool,
      .yajl_number = cb->on_number,
      .yajl_string = cb->on_string,
      .yajl_start_map = cb->on_start_map,
      .yajl_map_key = cb->on_key,
      .yajl_end_map = cb->on_end_map,
      .yajl_start_array = cb->on_start_array,
      .yajl_end_array = cb->on_end_array,
  };
  r->status = DDBST__JSON_OK;
  r->at = 0;
  r->msg[0] = '\0';
  r->in_name = 0;
  r->alloc = alloc;
  r->own.blocks = NULL;
  r->cache = cache ? cache : &r->own;
  r->handle = NULL;
  if (setjmp(r->fail)) {
    yb_done(r);
    return DDBST_ENOMEM;
  }
  yajl_alloc_funcs af = {yb_malloc, yb_realloc, yb_free, r};
  yajl_handle h = yajl_alloc(&ycb, &af, ctx);
  if (!h) {
    yb_done(r);
    return DDBST_ENOMEM;
  }
  r->handle = h;
  /* A text that breaks the rule is parsed up to the fault only: the
   * callbacks see every token before the string that holds it, and none
   * of that string, so a caller names the string's place as it would name
   * any value's. */
  ddbst__json_fault f;
  int faulty = ddbst__json_text_fault(json, len, &f);
  yajl_status st =
      yajl_parse(h, (const unsigned char *)json, faulty ? f.at : len);
  r->at = yajl_get_bytes_consumed(h);
  if (st == yajl_status_ok && faulty) {
    r->status = DDBST__JSON_TEXT;
    r->at = f.at;
    r->in_name = ddbst__json_fault_in_name(json, len, f.at);
    if (f.escape)
      snprintf(r->msg, sizeof r->msg, "\\%.5s is %s", json + f.at + 1,
               f.why);
    else
      snprintf(r->msg, sizeof r->msg, "%s", f.why);
  } else if (st == yajl_status_ok) {
    st = yajl_complete_parse(h);
    if (st != yajl_status_ok) r->at = len;
  }
  if (st == yajl_status_error) {
    r->status = DDBST__JSON_SYNTAX;
    syntax_message(h, json, len, r->msg, sizeof r->msg);
  } else if (st == yajl_status_client_canceled) {
    r->status = DDBST__JSON_STOPPED;
  }
  yajl_free(h);
  r->handle = NULL;
  yb_done(r);
  return 0;
}

size_t ddbst__json_offset(const ddbst__json_run *r) {
  return yajl_get_bytes_consumed(r->handle);
}

void ddbst__text_position(const char *text, size_t len, size_t offset,
                          unsigned *line, unsigned *column) {
  unsigned l = 1, c = 1;
  if (offset > len) offset = len;
  for (size_t i = 0; i < offset; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *column = c;
}
