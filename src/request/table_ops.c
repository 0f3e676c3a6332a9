/* The table requests other than CreateTable (table.c): DescribeTable and
 * DeleteTable of the model's table, and UpdateTable adding or removing one
 * global secondary index. */
#include <stdio.h>
#include <string.h>

#include "request/request.h"
#include "request/table.h"

static int table_only(const ddbst_model *m, ddbst_buf *out, int op,
                      ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (rc) return rc;
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  return ddbst__table_body_close(&w, out, op, err);
}

int ddbst_describe_table_request(const ddbst_model *m, ddbst_buf *out,
                                 ddbst_error *err) {
  return table_only(m, out, DDBST_OP_DESCRIBE_TABLE, err);
}

int ddbst_delete_table_request(const ddbst_model *m, ddbst_buf *out,
                               ddbst_error *err) {
  return table_only(m, out, DDBST_OP_DELETE_TABLE, err);
}

/* "GlobalSecondaryIndexUpdates":[{"<action>":{...: the caller writes the
 * action's members and closes two objects and the array. */
static void index_update(ddbst__jw *w, const char *action) {
  ddbst__jw_key(w, "GlobalSecondaryIndexUpdates");
  ddbst__jw_open(w, '[');
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, action);
}

static void index_update_end(ddbst__jw *w) {
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, ']');
}

int ddbst_update_table_add_index_request(const ddbst_model *m,
                                         const char *index, ddbst_buf *out,
                                         ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (!rc && !index)
    rc = ddbst__fail(err, DDBST_EINVAL, NULL, "model, index or buffer is NULL");
  if (rc) return rc;
  int ix = ddbst__table_global_index(
      m, index,
      "secondary index: DynamoDB creates those with the table only (a new "
      "table, CreateTable)",
      err);
  if (ix < 0) return ix;
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  ddbst__table_attribute_definitions_of(&w, m, ix);
  index_update(&w, "Create");
  ddbst__table_index(&w, &m->indexes[ix]);
  index_update_end(&w);
  return ddbst__table_body_close(&w, out, DDBST_OP_UPDATE_TABLE, err);
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
  int rc = ddbst__table_args(m, out, err);
  if (!rc && !index)
    rc = ddbst__fail(err, DDBST_EINVAL, NULL, "model, index or buffer is NULL");
  if (rc) return rc;
  if (!is_index_name(index))
    return ddbst__fail(err, DDBST_EINVAL, "index",
                       "an index name is 3 to 255 of A-Z a-z 0-9 _ - .");
  for (int i = 0; i < m->nindexes; i++)
    if (!strcmp(m->indexes[i].name, index))
      return ddbst__fail(err, DDBST_EINVAL, "index",
                         "the model still declares %s: remove it from the "
                         "model first, so that no write keeps its keys",
                         index);
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  index_update(&w, "Delete");
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "IndexName", index);
  ddbst__jw_close(&w, '}');
  index_update_end(&w);
  return ddbst__table_body_close(&w, out, DDBST_OP_UPDATE_TABLE, err);
}
