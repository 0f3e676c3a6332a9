/* What a write's answer and a count carry: the item an error body holds
 * (ReturnValuesOnConditionCheckFailure) and a Query's Count (Select
 * COUNT). A write's Attributes are parsed by parse.c
 * (ddbst_page_parse_write). */
#include "response/page.h"

int64_t ddbst_page_query_count(const ddbst_page *pg, int64_t *scanned) {
  if (scanned) *scanned = pg && !pg->failed ? pg->qscanned : -1;
  return pg && !pg->failed && pg->kind == DDBST__ANSWER_QUERY ? pg->qcount
                                                               : -1;
}

int ddbst__page_count_only(const ddbst_page *pg) {
  return pg && !pg->failed && pg->count_only;
}

int ddbst_page_error_item(const ddbst_page *pg, int reason, ddbst_item *item,
                          ddbst_error *err) {
  if (!pg || !item)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "page or item is NULL");
  if (item->m != pg->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item belongs to another model");
  if (pg->error_kind == DDBST_DDB_NONE)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no DynamoDB error");
  if (reason < -1 || (reason >= 0 && (uint32_t)reason >= pg->nreasons))
    return ddbst__fail(err, DDBST_EINVAL, "reason",
                       "reason %d of %u does not exist", reason,
                       (unsigned)pg->nreasons);
  int32_t at = reason < 0 ? pg->error_item : pg->reasons[reason].item;
  if (at < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND, reason < 0 ? "Item" : "reason",
                       "the answer carries no item there: the item did not "
                       "exist, or the write did not ask for it "
                       "(DDBST_RETURN_OLD_ON_FAILURE)");
  return ddbst__page_fill(pg, (uint32_t)at, item, err);
}
