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
  if (out) ddbst_buf_reset(out); /* builders replace */
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

/* `to` holds exactly the values of `from` (an item of the same model). */
static int copy_values(ddbst_item *to, const ddbst_item *from,
                       ddbst_error *err) {
  int rc = ddbst_item_reset(to, from->entity);
  for (int a = 0; !rc && a < from->nattrs; a++) {
    size_t n;
    const char *t = ddbst__item_text(from, a, &n);
    if (t && ddbst__item_store(to, a, t, n))
      rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return rc;
}

/* Whether `pattern` (any index; out of range: no) reads a native index. */
static int pattern_native(const ddbst_model *m, int pattern) {
  if (pattern < 0 || pattern >= m->npatterns) return 0;
  int ix = m->patterns[pattern].index;
  return ix >= 0 && m->indexes[ix].native;
}

int ddbst_page_parse_query(ddbst_page *pg, const ddbst_item *values,
                           int pattern, const char *json, size_t len,
                           ddbst_error *err) {
  if (!pg || !values)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "page or values is NULL");
  ddbst__page_clear(pg, 0);
  pg->kind = DDBST__ANSWER_QUERY;
  pg->failed = 1;
  if (values->m != pg->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the values are an item of another model");
  /* the partition, rendered now from a copy of the values: the caller may
   * reuse them (for the page's items, say) before asking for the cursor */
  ddbst_item *sc = pg->scratch;
  int rc = copy_values(sc, values, err);
  ddbst_buf_reset(&pg->q_part);
  if (!rc && pattern_native(pg->m, pattern)) {
    /* a native index's cursor is bound to the partition attributes'
     * values: the page keeps them, in an item made once per page */
    if (!pg->q_values && !(pg->q_values = ddbst_item_new(pg->m, 0)))
      rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    if (!rc) rc = copy_values(pg->q_values, values, err);
  } else if (!rc) {
    rc = ddbst__cursor_partition(sc, pattern, &pg->q_part, err);
  }
  if (rc) return rc;
  int count = ddbst__page_parse(pg, DDBST__ANSWER_QUERY, json,
                                ddbst__len(json, len), err);
  if (count >= 0) {
    pg->q_pattern = pattern;
    pg->q_entity = values->entity;
  }
  return count;
}

int ddbst_page_next_cursor(const ddbst_page *pg, const ddbst_cursor_keys *keys,
                           int64_t now_us, ddbst_buf *out, ddbst_error *err) {
  if (!pg || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "page or buffer is NULL");
  ddbst_buf_reset(out);
  if (pg->failed)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no answer: its last parse failed");
  if (pg->scan_set) return ddbst__page_scan_cursor(pg, keys, now_us, out, err);
  if (pg->q_pattern < 0)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page does not know its query: parse the answer "
                       "with ddbst_page_parse_query");
  if (!pg->has_more) return 0;
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
  int rc =
      pattern_native(pg->m, pg->q_pattern)
          ? ddbst__cursor_seal(keys, pg->q_values, pg->q_pattern, names, vals,
                               lens, (int)pi->count, ddbst__now(now_us), out,
                               err)
          : ddbst__cursor_seal_part(keys, pg->m, pg->q_entity, pg->q_pattern,
                                    pg->q_part.data, pg->q_part.len, names,
                                    vals, lens, (int)pi->count,
                                    ddbst__now(now_us), out, err);
  if (rc) {
    ddbst_buf_reset(out);
    return rc;
  }
  return 1;
}
