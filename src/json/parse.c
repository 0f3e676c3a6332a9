/* parse.h: the text's rule checked (json/text.h), then the reader
 * (json/read.h) calls the callbacks. A malformed text, the cold path, is
 * read again by YAJL 2.1 without callbacks, for the message and offset
 * ddbst has always given (tests and documents quote them). The only file
 * of the library that includes YAJL. */
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "json/blocks.h"
#include "json/parse.h"
#include "json/read.h"
#include "json/text.h"

/* ---- YAJL, for the messages of malformed texts ---- */

/* YAJL 2.1 uses what its allocator returns without checking for NULL, so a
 * failed allocation jumps back to where the parse started and reports
 * DDBST_ENOMEM. */
static void *yb_malloc(void *ctx, size_t n) {
  ddbst__json_run *r = ctx;
  void *p = ddbst__json_block_get(r, n);
  if (!p) longjmp(r->fail, 1);
  return p;
}

static void *yb_realloc(void *ctx, void *p, size_t n) {
  ddbst__json_run *r = ctx;
  void *q = ddbst__json_block_grow(r, p, n);
  if (!q) longjmp(r->fail, 1);
  return q;
}

static void yb_free(void *ctx, void *p) {
  (void)ctx;
  ddbst__json_block_put(p);
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

/* YAJL's reading of json[0..len) (cut short at a fault when `partial`)
 * into r->msg and r->at: a text the reader found malformed. */
static int yajl_diagnose(ddbst__json_run *r, const char *json, size_t len,
                         int partial) {
  static const yajl_callbacks none;
  r->handle = NULL;
  if (setjmp(r->fail)) {
    ddbst__json_blocks_done(r);
    return DDBST_ENOMEM;
  }
  yajl_alloc_funcs af = {yb_malloc, yb_realloc, yb_free, r};
  yajl_handle h = yajl_alloc(&none, &af, NULL);
  if (!h) {
    ddbst__json_blocks_done(r);
    return DDBST_ENOMEM;
  }
  r->handle = h;
  yajl_status st = yajl_parse(h, (const unsigned char *)json, len);
  size_t at = r->at;
  r->at = yajl_get_bytes_consumed(h);
  if (st == yajl_status_ok && !partial) {
    st = yajl_complete_parse(h);
    if (st != yajl_status_ok) r->at = len;
  }
  if (st == yajl_status_error) {
    syntax_message(h, json, len, r->msg, sizeof r->msg);
  } else {
    /* the reader refused what YAJL takes (read.c says which): the
     * reader's offset, and its words when it gave some */
    r->at = at;
    if (!r->msg[0]) snprintf(r->msg, sizeof r->msg, "malformed JSON");
  }
  yajl_free(h);
  r->handle = NULL;
  ddbst__json_blocks_done(r);
  return 0;
}

int ddbst__json_parse(ddbst__json_run *r, const ddbst__json_callbacks *cb,
                      void *ctx, const char *json, size_t len,
                      const ddbst_allocator *alloc, ddbst__json_cache *cache) {
  return ddbst__json_parse_with(ddbst__json_read, r, cb, ctx, json, len, alloc,
                                cache);
}

int ddbst__json_parse_with(ddbst__json_reader read, ddbst__json_run *r,
                           const ddbst__json_callbacks *cb, void *ctx,
                           const char *json, size_t len,
                           const ddbst_allocator *alloc,
                           ddbst__json_cache *cache) {
  r->status = DDBST__JSON_OK;
  r->at = 0;
  r->msg[0] = '\0';
  r->in_name = 0;
  r->alloc = alloc;
  r->own.blocks = NULL;
  r->cache = cache ? cache : &r->own;
  r->handle = NULL;
  /* A text that breaks the rule is read up to the fault only: the
   * callbacks see every token before the string that holds it, and none
   * of that string, so a caller names the string's place as it would name
   * any value's. */
  ddbst__json_fault f;
  int faulty = ddbst__json_text_fault(json, len, &f);
  size_t upto = faulty ? f.at : len;
  int rc = read(r, cb, ctx, json, upto, faulty);
  ddbst__json_blocks_done(r);
  if (rc) return rc;
  if (r->status == DDBST__JSON_SYNTAX)
    return yajl_diagnose(r, json, upto, faulty);
  if (r->status == DDBST__JSON_OK && faulty) {
    r->status = DDBST__JSON_TEXT;
    r->at = f.at;
    r->in_name = ddbst__json_fault_in_name(json, len, f.at);
    if (f.escape)
      snprintf(r->msg, sizeof r->msg, "\\%.5s is %s", json + f.at + 1,
               f.why);
    else
      snprintf(r->msg, sizeof r->msg, "%s", f.why);
  }
  return 0;
}

size_t ddbst__json_offset(const ddbst__json_run *r) { return r->at; }

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
