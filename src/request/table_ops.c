/* The table requests other than CreateTable (table.c): DescribeTable and
 * DeleteTable of the model's table, and UpdateTable adding or removing one
 * global secondary index. */
#include <stdio.h>
#include <string.h>

#include "request/request.h"
#include "request/table.h"

static int table_only(const ddbst_model *m, ddbst_buf *out, int op,
                      ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "TableName", m->table_name);
  ddbst__jw_close(&w, '}');
  return w.rc ? ddbst__abandon(out, start, w.rc, err) : op;
}

int ddbst_describe_table_request(const ddbst_model *m, ddbst_buf *out,
                                 ddbst_error *err) {
  return table_only(m, out, DDBST_OP_DESCRIBE_TABLE, err);
}

int ddbst_delete_table_request(const ddbst_model *m, ddbst_buf *out,
                               ddbst_error *err) {
  return table_only(m, out, DDBST_OP_DELETE_TABLE, err);
}

int ddbst_update_table_add_index_request(const ddbst_model *m,
                                         const char *index, ddbst_buf *out,
                                         ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out || !index)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "model, index or buffer is NULL");
  int ix = -1;
  for (int i = 0; i < m->nindexes; i++)
    if (!strcmp(m->indexes[i].name, index)) ix = i;
  if (ix < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND, "index",
                       "the model declares no index named %.64s", index);
  if (m->indexes[ix].local)
    return ddbst__fail(err, DDBST_EINVAL, "index",
                       "%s is a local secondary index: DynamoDB creates those "
                       "with the table only (a new table, CreateTable)",
                       index);
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "TableName", m->table_name);
  ddbst__table_attribute_definitions_of(&w, m, ix);
  ddbst__jw_key(&w, "GlobalSecondaryIndexUpdates");
  ddbst__jw_open(&w, '[');
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "Create");
  ddbst__table_index(&w, &m->indexes[ix]);
  ddbst__jw_close(&w, '}');
  ddbst__jw_close(&w, ']');
  ddbst__jw_close(&w, '}');
  return w.rc ? ddbst__abandon(out, start, w.rc, err) : DDBST_OP_UPDATE_TABLE;
}

/* DynamoDB's rule for index names: 3 to 255 of [A-Za-z0-9_.-]. */
static int is_index_name(const char *s) {
  size_t n = strlen(s);
  if (n < 3 || n > 255) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
          s[i] == '.'))
      return 0;
  return 1;
}

int ddbst_update_table_remove_index_request(const ddbst_model *m,
                                            const char *index, ddbst_buf *out,
                                            ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out || !index)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "model, index or buffer is NULL");
  if (!is_index_name(index))
    return ddbst__fail(err, DDBST_EINVAL, "index",
                       "an index name is 3 to 255 of A-Z a-z 0-9 _ - .");
  for (int i = 0; i < m->nindexes; i++)
    if (!strcmp(m->indexes[i].name, index))
      return ddbst__fail(err, DDBST_EINVAL, "index",
                         "the model still declares %s: remove it from the "
                         "model first, so that no write keeps its keys",
                         index);
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "TableName", m->table_name);
  ddbst__jw_key(&w, "GlobalSecondaryIndexUpdates");
  ddbst__jw_open(&w, '[');
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "Delete");
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "IndexName", index);
  ddbst__jw_close(&w, '}');
  ddbst__jw_close(&w, '}');
  ddbst__jw_close(&w, ']');
  ddbst__jw_close(&w, '}');
  return w.rc ? ddbst__abandon(out, start, w.rc, err) : DDBST_OP_UPDATE_TABLE;
}
