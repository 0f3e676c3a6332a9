/* A Scan's settings (scan.c), read by the page that parses its answer
 * (response/scan_page.c) for the context its next cursor is bound to. */
#ifndef DDBST_REQUEST_SCAN_H
#define DDBST_REQUEST_SCAN_H

#include "cursor/cursor.h"
#include "item/item.h"

struct ddbst_scan {
  const ddbst_model *m;
  ddbst_item *it;           /* placeholders, and the filter's parameters */
  int index;                /* -1: the table */
  unsigned char *entities;  /* per entity: read (none set: every item) */
  int nentities;            /* how many are set */
  const ddbst_expr *filter; /* a DDBST_EXPR_FILTER of it->entity, or NULL */
  const ddbst__name **proj; /* names to read back (room for m->nnames) */
  int nproj;
  uint32_t segment, total;  /* total 0: no segments */
  /* the context of the last body built (ddbst_scan_request), which the
   * page of its answer seals its next cursor with; `built` 0: none yet */
  ddbst__scan_ctx ctx;
  int built;
};

#endif
