/* The design view's sample items as DynamoDB takes them
 * (ddbst_model_view_data): BatchWriteItem bodies of 25 PutRequests each,
 * one a line, to load into DynamoDB Local the very items the view shows. */
#include <stdio.h>
#include <string.h>

#include "review/sample.h"

enum { WRITES_PER_BATCH = 25 };

int ddbst_model_view_data(const ddbst_model *m, uint64_t seed, ddbst_buf *out,
                          ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  ddbst__sample s;
  int rc = ddbst__sample_make(m, seed, &s, err);
  size_t start = out->len;
  ddbst_buf table;
  ddbst__buf_init(&table, &m->alloc);
  /* "saas-api-dev": the table name as a JSON string */
  int nomem = !rc && ddbst__json_string(&table, m->table_name,
                                              strlen(m->table_name));
  for (int r = 0; !rc && !nomem && r < s.nrows; r++) {
    int first = r % WRITES_PER_BATCH == 0;
    int last = r % WRITES_PER_BATCH == WRITES_PER_BATCH - 1 || r == s.nrows - 1;
    if (first) {
      nomem |= ddbst__buf_puts(out, "{\"RequestItems\":{");
      nomem |= ddbst__buf_append(out, table.data, table.len);
      nomem |= ddbst__buf_puts(out, ":[");
    } else {
      nomem |= ddbst__buf_putc(out, ',');
    }
    nomem |= ddbst__buf_puts(out, "{\"PutRequest\":{\"Item\":");
    nomem |= ddbst__buf_append(out, s.rows[r].json, s.rows[r].len);
    nomem |= ddbst__buf_puts(out, "}}");
    if (last) nomem |= ddbst__buf_puts(out, "]}}\n");
  }
  if (nomem) rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (rc) {
    out->len = start;
    if (out->data) out->data[start] = '\0';
  }
  ddbst__buf_release(&table);
  ddbst__sample_free(&s);
  return rc;
}
