/* What the answers of "page" and "scanPage" share: a page's items, its
 * counts, and the cursor of the page after it. */
#include "ffi/ffi.h"

void ddbst__ffi_page_members(call *c, ddbst_page *pg, int n,
                             int scanned_always) {
  ddbst__jw *w = &c->w;
  ddbst__jw_key(w, "items");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < n; i++)
    if (ddbst__jw_value(w))
      ddbst__jw_status(w, ddbst_page_item_json_append(pg, i, w->b, &c->err));
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "count");
  ddbst__jw_int(w, n);
  ddbst__jw_key(w, "hasMore");
  ddbst__jw_bool(w, ddbst_page_has_more(pg));
  int64_t scanned, matched = ddbst_page_query_count(pg, &scanned);
  int count_only = ddbst__page_count_only(pg);
  /* with "select": "COUNT", the items it matched */
  if (count_only && matched >= 0) {
    ddbst__jw_key(w, "matched");
    ddbst__jw_int(w, matched);
  }
  if ((count_only || scanned_always) && scanned >= 0) {
    ddbst__jw_key(w, "scanned");
    ddbst__jw_int(w, scanned);
  }
}

void ddbst__ffi_page_cursor(call *c, ddbst_page *pg, int64_t now) {
  ddbst__jw *w = &c->w;
  int bad = ddbst_page_next_cursor(pg, c->keys, now, &c->tmp, &c->err);
  if (bad < 0) ddbst__ffi_keys_path(c);
  ddbst__jw_status(w, bad < 0 ? bad : 0);
  ddbst__jw_key(w, "cursor");
  ddbst__jw_strn(w, c->tmp.data, c->tmp.len);
}
