/* The page an op parses a response into: the call's spare one (kept in
 * the session's scratch by session.c), so that a warm call makes none. */
#include "ffi/ffi.h"

ddbst_page *ddbst__ffi_page_new(call *c) {
  ddbst_page *pg = c->spare_page;
  c->spare_page = NULL;
  return pg ? pg : ddbst_page_new(c->m);
}

void ddbst__ffi_page_free(call *c, ddbst_page *pg) {
  if (pg && !c->spare_page)
    c->spare_page = pg; /* every parse forgets what the last one held */
  else
    ddbst_page_free(pg);
}
