/* A Scan's answer: parsed as a Query's page, but keeping the items of no
 * entity of the model (guard items, items another program or an older
 * model wrote: a migration must see them all), and remembering the scan
 * so that the page seals its own next cursor. */
#include <string.h>

#include "request/scan.h"
#include "response/page.h"

int ddbst_page_parse_scan(ddbst_page *pg, const ddbst_scan *scan,
                          const char *json, size_t len, ddbst_error *err) {
  if (!pg || !scan)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "page or scan is NULL");
  if (scan->m != pg->m || !scan->built) {
    ddbst__page_clear(pg, 0);
    pg->failed = 1;
    return ddbst__fail(err, DDBST_EINVAL, "scan",
                       scan->m != pg->m
                           ? "the scan is of another model"
                           : "the scan has built no request: parse the answer "
                             "to its last ddbst_scan_request");
  }
  pg->keep_unknown = 1;
  int count = ddbst__page_parse(pg, DDBST__ANSWER_QUERY, json,
                                ddbst__len(json, len), err);
  pg->keep_unknown = 0;
  if (count >= 0) {
    pg->scan = scan->ctx;
    pg->scan_set = 1;
  }
  return count;
}

int ddbst__page_scan_cursor(const ddbst_page *pg,
                            const ddbst_cursor_keys *keys, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err) {
  if (!pg->has_more) return 0;
  const ddbst__pitem *pi = &pg->lek;
  ddbst__lek_attr lek[10];
  if (pi->count > 10)
    return ddbst__fail(err, DDBST_EVALUE, "LastEvaluatedKey",
                       "LastEvaluatedKey holds %u attributes; a scan's holds "
                       "at most 10",
                       pi->count);
  for (uint32_t k = 0; k < pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[pi->first + k];
    lek[k].name = pg->text.data + r->name;
    lek[k].type = r->type == DDBST__AV_S   ? 'S'
                  : r->type == DDBST__AV_N ? 'N'
                  : r->type == DDBST__AV_B ? 'B'
                                           : '?';
    lek[k].val = pg->text.data + r->val;
    lek[k].len = r->val_len;
  }
  int rc = ddbst__scan_cursor_seal(keys, pg->m, &pg->scan, lek, (int)pi->count,
                                   ddbst__now(now_us), out, err);
  if (rc) {
    ddbst_buf_reset(out);
    return rc;
  }
  return 1;
}
