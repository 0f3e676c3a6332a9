/* What a page leaves for the next request: the cursor for LastEvaluatedKey,
 * and the follow-up BatchGetItem or BatchWriteItem of the entries DynamoDB
 * did not process. */
#include <string.h>

#include "cursor/cursor.h"
#include "response/page.h"

int ddbst_page_has_more(const ddbst_page *pg) {
  return pg && pg->has_more ? 1 : 0;
}

int ddbst_page_followup_request(const ddbst_page *pg, ddbst_buf *out,
                                ddbst_error *err) {
  if (!pg || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "page or buffer is NULL");
  int is_get = pg->kind == DDBST__ANSWER_BATCH_GET;
  if (pg->nspans == 0 || (!is_get && pg->kind != DDBST__ANSWER_BATCH_WRITE))
    return 0;
  size_t start = out->len;
  const char *text = pg->text.data;
  int rc = ddbst__buf_puts(out, "{\"RequestItems\":{");
  int first = 1;
  for (uint32_t g = 0; !rc && g < pg->ngroups; g++) {
    const ddbst__pgroup *gr = &pg->groups[g];
    if (!gr->count) continue;
    if (!first) rc = ddbst__buf_putc(out, ',');
    first = 0;
    rc = rc ? rc : ddbst__json_string(out, text + gr->table, gr->table_len);
    rc = rc ? rc : ddbst__buf_puts(out, is_get ? ":{\"Keys\":[" : ":[");
    for (uint32_t k = gr->first; !rc && k < gr->first + gr->count; k++) {
      if (k > gr->first) rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc
              : ddbst__buf_append(out, text + pg->spans[k].off,
                                  pg->spans[k].len);
    }
    rc = rc ? rc : ddbst__buf_putc(out, ']');
    if (!is_get) continue;
    /* the read's own settings, as DynamoDB handed them back */
    if (!rc && gr->consistent == 1)
      rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
    if (!rc && gr->proj_len) {
      rc = ddbst__buf_puts(out, ",\"ProjectionExpression\":");
      rc = rc ? rc : ddbst__json_string(out, text + gr->proj, gr->proj_len);
    }
    if (!rc && gr->names_len) {
      rc = ddbst__buf_puts(out, ",\"ExpressionAttributeNames\":");
      rc = rc ? rc : ddbst__buf_append(out, text + gr->names, gr->names_len);
    }
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  rc = rc ? rc : ddbst__buf_puts(out, "}}");
  if (rc) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return is_get ? DDBST_OP_BATCH_GET_ITEM : DDBST_OP_BATCH_WRITE_ITEM;
}

int ddbst_page_cursor(const ddbst_page *pg, const ddbst_cursor_keys *keys,
                      ddbst_item *values, int pattern, int64_t now_us,
                      ddbst_buf *out, ddbst_error *err) {
  if (!pg || !values || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "page, values or buffer is NULL");
  if (!pg->has_more)
    return ddbst__fail(err, DDBST_ENOTFOUND, "LastEvaluatedKey",
                       "the page is the last one: there is no cursor");
  enum { MAX_KEYS = 10 }; /* the table's two and a native index's eight */
  const char *names[MAX_KEYS], *vals[MAX_KEYS];
  size_t lens[MAX_KEYS];
  const ddbst__pitem *pi = &pg->lek;
  if (pi->count > MAX_KEYS)
    return ddbst__fail(err, DDBST_EVALUE, "LastEvaluatedKey",
                       "LastEvaluatedKey holds %u attributes; a query's holds "
                       "at most 10",
                       pi->count);
  for (uint32_t k = 0; k < pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[pi->first + k];
    names[k] = pg->text.data + r->name;
    vals[k] = pg->text.data + r->val;
    lens[k] = r->val_len;
  }
  return ddbst__cursor_seal(keys, values, pattern, names, vals, lens,
                            (int)pi->count, now_us, out, err);
}
