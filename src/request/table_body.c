/* What every table request's body shares: the builder's contract (the
 * buffer replaced, NULL arguments refused, nothing half-written), the
 * {"TableName":... that opens it, and the model's global index by name. */
#include <string.h>

#include "request/request.h"
#include "request/table.h"

int ddbst__table_args(const ddbst_model *m, ddbst_buf *out,
                      ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  return 0;
}

void ddbst__table_body_open(ddbst__jw *w, const ddbst_model *m,
                            ddbst_buf *out) {
  ddbst__jw_init(w, out);
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "TableName", m->table_name);
}

int ddbst__table_body_close(ddbst__jw *w, ddbst_buf *out, int op,
                            ddbst_error *err) {
  ddbst__jw_close(w, '}');
  /* the buffer was emptied by ddbst__table_args: the body starts at 0 */
  return w->rc ? ddbst__abandon(out, 0, w->rc, err) : op;
}

int ddbst__table_global_index(const ddbst_model *m, const char *name,
                              const char *why_not_local, ddbst_error *err) {
  for (int i = 0; i < m->nindexes; i++) {
    if (strcmp(m->indexes[i].name, name) != 0) continue;
    if (!m->indexes[i].local) return i;
    return ddbst__fail(err, DDBST_EINVAL, "index", "%s is a local %s", name,
                       why_not_local);
  }
  return ddbst__fail(err, DDBST_ENOTFOUND, "index",
                     "the model declares no index named %.64s", name);
}

void ddbst__table_time_to_live(ddbst__jw *w, const char *attr, int enabled) {
  ddbst__jw_key(w, "TimeToLiveSpecification");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "AttributeName", attr);
  ddbst__jw_key(w, "Enabled");
  ddbst__jw_bool(w, enabled);
  ddbst__jw_close(w, '}');
}
