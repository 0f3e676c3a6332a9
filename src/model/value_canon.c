/* Canonical text of a value by its attribute's type: the one check every
 * value passes (set on an item, a model's default or condition literal). */
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "model/json_value.h"
#include "model/value_canon.h"

static int refuse(char *why, size_t cap, const char *reason) {
  snprintf(why, cap, "%s", reason);
  return DDBST_EVALUE;
}

int ddbst__value_canon(const ddbst__attr *a, const char *in, size_t n,
                       ddbst_buf *out, char *why, size_t why_cap) {
  const char *bad = ddbst__utf8_check(in, n);
  if (bad) return refuse(why, why_cap, bad);
  char tmp[DDBST__TS_MAX > DDBST__INT_MAX_TEXT ? DDBST__TS_MAX
                                               : DDBST__INT_MAX_TEXT];
  size_t tlen = 0;
  int64_t v;

  switch (a->type) {
  case DDBST__T_STRING:
    return ddbst__buf_append(out, in, n);
  case DDBST__T_NUMBER:
    if ((bad = ddbst__number_check(in, n))) return refuse(why, why_cap, bad);
    return ddbst__buf_append(out, in, n);
  case DDBST__T_INTEGER:
    if ((bad = ddbst__int_parse(in, n, &v))) return refuse(why, why_cap, bad);
    /* A width only matters in keys, but a value that cannot be keyed is
     * better refused when it is set than when the key is built. */
    if (a->width &&
        (bad = ddbst__int_key(v, a->width, a->sortable_negative, tmp, &tlen)))
      return refuse(why, why_cap, bad);
    return ddbst__buf_append(out, in, n);
  case DDBST__T_BOOLEAN:
    if ((n == 4 && memcmp(in, "true", 4) == 0) ||
        (n == 5 && memcmp(in, "false", 5) == 0))
      return ddbst__buf_append(out, in, n);
    return refuse(why, why_cap, "expected true or false");
  case DDBST__T_TIMESTAMP:
    if ((bad = ddbst__ts_canon(in, n, a->precision, tmp, &tlen)))
      return refuse(why, why_cap, bad);
    return ddbst__buf_append(out, tmp, tlen);
  case DDBST__T_ULID:
    if ((bad = ddbst__ulid_canon(in, n, tmp))) return refuse(why, why_cap, bad);
    return ddbst__buf_append(out, tmp, DDBST__ULID_LEN);
  case DDBST__T_ENUM:
    for (size_t i = 0; i < a->nvalues; i++)
      if (a->value_lens[i] == n && memcmp(a->values[i], in, n) == 0)
        return ddbst__buf_append(out, in, n);
    snprintf(why, why_cap, "'%.*s' is not one of the enum's values",
             (int)(n > 64 ? 64 : n), in);
    return DDBST_EVALUE;
  case DDBST__T_TTL: {
    /* Epoch seconds as DynamoDB's TTL reads them; a timestamp is converted. */
    if (n > 0 && in[0] >= '0' && in[0] <= '9' && !memchr(in, '-', n)) {
      if ((bad = ddbst__int_parse(in, n, &v)))
        return refuse(why, why_cap, bad);
    } else {
      int64_t us;
      if ((bad = ddbst__ts_canon(in, n, DDBST__PREC_S, tmp, &tlen)) ||
          (bad = ddbst__ts_to_unix_us(tmp, tlen, &us)))
        return refuse(why, why_cap,
                      "expected epoch seconds or an ISO-8601 timestamp");
      v = us / 1000000;
    }
    if (v < 0) return refuse(why, why_cap, "a TTL is never before 1970");
    int len = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    return ddbst__buf_append(out, tmp, (size_t)len);
  }
  case DDBST__T_BINARY:
    if ((bad = ddbst__base64_check(in, n))) return refuse(why, why_cap, bad);
    return ddbst__buf_append(out, in, n);
  case DDBST__T_LIST:
  case DDBST__T_MAP:
  case DDBST__T_STRING_SET:
  case DDBST__T_NUMBER_SET: {
    static const ddbst__jvkind kinds[] = {
        [DDBST__T_LIST] = DDBST__JV_LIST,
        [DDBST__T_MAP] = DDBST__JV_MAP,
        [DDBST__T_STRING_SET] = DDBST__JV_STRING_SET,
        [DDBST__T_NUMBER_SET] = DDBST__JV_NUMBER_SET,
    };
    return ddbst__json_to_attribute_value(in, n, kinds[a->type], out, why,
                                          why_cap);
  }
  }
  return refuse(why, why_cap, "unknown attribute type");
}
