/* The JSON writer of cold paths (CloudFormation, CreateTable, docs, the
 * JSON entry's answers): the first error sticks and every call after it does
 * nothing, so a writer reads top to bottom and checks once, at the end.
 * Request bodies do not use it: they return early, for speed. */
#ifndef DDBST_JSON_JW_H
#define DDBST_JSON_JW_H

#include <stddef.h>

#include "base/internal.h"

/* Deeper than anything written with it: a parsed tree nests at most 64
 * (json/tree.h), an answer wraps it in a few more. Deeper is DDBST_ERANGE. */
enum { DDBST__JW_DEPTH = 80 };

typedef struct ddbst__jw {
  ddbst_buf *b;
  int rc;        /* the first error; 0 while all went well */
  int depth;
  int after_key; /* the next value follows a key: no comma */
  unsigned char has_items[DDBST__JW_DEPTH];
} ddbst__jw;

/* A writer appending to `b`, at the top level. */
void ddbst__jw_init(ddbst__jw *w, ddbst_buf *b);

/* Text as it is: no comma, no quotes (markdown, or JSON written by hand). */
void ddbst__jw_raw(ddbst__jw *w, const char *s, size_t n);
void ddbst__jw_puts(ddbst__jw *w, const char *s);
/* printf into the output; a result over 511 bytes is cut there. */
void ddbst__jw_printf(ddbst__jw *w, const char *fmt, ...) DDBST__PRINTF(2, 3);

/* Structure: '{' or '[' and its closing byte; a member's key. Commas go
 * before every member or element but the first of its container. */
void ddbst__jw_open(ddbst__jw *w, char c);
void ddbst__jw_close(ddbst__jw *w, char c);
void ddbst__jw_key(ddbst__jw *w, const char *k);
void ddbst__jw_keyn(ddbst__jw *w, const char *k, size_t n);

/* Values. */
void ddbst__jw_strn(ddbst__jw *w, const char *s, size_t n);
void ddbst__jw_str(ddbst__jw *w, const char *s);
void ddbst__jw_bool(ddbst__jw *w, int v);
void ddbst__jw_null(ddbst__jw *w);
void ddbst__jw_int(ddbst__jw *w, long long x);
/* A number text DynamoDB accepts, as ddbst__json_number writes it. */
void ddbst__jw_number(ddbst__jw *w, const char *s, size_t n);
/* A value that is JSON text already (a request body, a parsed answer). */
void ddbst__jw_json(ddbst__jw *w, const char *s, size_t n);
/* "k":"v", the most common member. */
void ddbst__jw_pair(ddbst__jw *w, const char *k, const char *v);

/* For a value another writer appends to w->b itself: writes the comma it
 * needs and says whether to go on (1: no error so far). Give that writer's
 * status to ddbst__jw_status. */
int ddbst__jw_value(ddbst__jw *w);
/* Makes `rc` the writer's error unless one stuck already; returns w->rc. */
int ddbst__jw_status(ddbst__jw *w, int rc);

#endif
