/* UpdateTimeToLive of the model's table: enabling expiry on the model's
 * ttlAttribute, or disabling it on an attribute the model no longer
 * declares (DynamoDB names the attribute in both). */
#include <string.h>

#include "model/load.h"
#include "request/request.h"
#include "request/table.h"

int ddbst_update_time_to_live_request(const ddbst_model *m,
                                      const char *disable, ddbst_buf *out,
                                      ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (rc) return rc;
  const char *attr = disable ? disable : m->ttl_attr;
  if (!disable && !attr)
    return ddbst__fail(err, DDBST_ENOTFOUND, "ttlAttribute",
                       "the model declares no ttlAttribute to enable; to "
                       "disable time to live, name the attribute it expires "
                       "by");
  if (disable && !ddbst__is_identifier(disable))
    return ddbst__fail(err, DDBST_EINVAL, "disable",
                       "expected the attribute name time to live expires by");
  if (disable && m->ttl_attr && !strcmp(disable, m->ttl_attr))
    return ddbst__fail(err, DDBST_EINVAL, "disable",
                       "the model still declares %s as its ttlAttribute: "
                       "remove it from the model first, so that no write "
                       "keeps setting it",
                       disable);
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  ddbst__table_time_to_live(&w, attr, !disable);
  return ddbst__table_body_close(&w, out, DDBST_OP_UPDATE_TIME_TO_LIVE, err);
}
