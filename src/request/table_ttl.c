/* UpdateTimeToLive of the model's table: enabling expiry on the model's
 * ttlAttribute, or disabling it on an attribute the model no longer
 * declares (DynamoDB names the attribute in both). */
#include <string.h>

#include "model/load.h"
#include "request/request.h"

int ddbst_update_time_to_live_request(const ddbst_model *m,
                                      const char *disable, ddbst_buf *out,
                                      ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
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
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "TableName", m->table_name);
  ddbst__jw_key(&w, "TimeToLiveSpecification");
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "Enabled");
  ddbst__jw_bool(&w, !disable);
  ddbst__jw_pair(&w, "AttributeName", attr);
  ddbst__jw_close(&w, '}');
  ddbst__jw_close(&w, '}');
  return w.rc ? ddbst__abandon(out, start, w.rc, err)
              : DDBST_OP_UPDATE_TIME_TO_LIVE;
}
