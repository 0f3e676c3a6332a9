/* ThrottlingReasons of an error body: why DynamoDB throttled a request
 * and which table or index it was, read back and put in words for the
 * explanations (explain.c). */
#include <stdio.h>
#include <string.h>

#include "response/page.h"

int ddbst_page_throttling_reason_count(const ddbst_page *pg) {
  return pg && pg->error_kind != DDBST_DDB_NONE ? (int)pg->nthrottles : 0;
}

int ddbst_page_throttling_reason(const ddbst_page *pg, int i,
                                 const char **reason, const char **resource) {
  if (i < 0 || i >= ddbst_page_throttling_reason_count(pg))
    return DDBST_EINVAL;
  const ddbst__pthrottle *t = &pg->throttles[i];
  if (reason) *reason = pg->text.data + t->reason;
  if (resource) *resource = t->resource_len ? pg->text.data + t->resource : "";
  return 0;
}

/* The reason's last part (ResourceType + OperationType + LimitType), in
 * words; NULL for one DynamoDB may add later. */
static const char *limit_words(const char *r, size_t n) {
  static const struct {
    const char *limit, *words;
  } limits[] = {
      {"ProvisionedThroughputExceeded", "above its provisioned capacity"},
      {"AccountLimitExceeded",
       "above the account's per-table quota (ask AWS for more)"},
      {"KeyRangeThroughputExceeded",
       "too much on one partition's key range (a hot partition: spread the "
       "partition key)"},
      {"MaxOnDemandThroughputExceeded",
       "above the on-demand maximum the table declares (onDemandThroughput)"},
  };
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    size_t l = strlen(limits[i].limit);
    if (n > l && memcmp(r + n - l, limits[i].limit, l) == 0)
      return limits[i].words;
  }
  return NULL;
}

void ddbst__throttling_say(const ddbst_page *pg, char *out, size_t cap) {
  size_t used = strlen(out);
  for (uint32_t i = 0; i < pg->nthrottles && used + 1 < cap; i++) {
    const ddbst__pthrottle *t = &pg->throttles[i];
    const char *r = pg->text.data + t->reason;
    const char *what = limit_words(r, t->reason_len);
    int wrote = snprintf(out + used, cap - used, "%s%.*s%s%s%s",
                         i ? "; " : "; throttled: ",
                         t->reason_len > 100 ? 100 : (int)t->reason_len, r,
                         what ? " (" : "", what ? what : "", what ? ")" : "");
    if (wrote < 0) return;
    used += (size_t)wrote;
    if (used >= cap) return;
    if (t->resource_len && used + 1 < cap) {
      wrote = snprintf(out + used, cap - used, " on %.*s",
                       t->resource_len > 300 ? 300 : (int)t->resource_len,
                       pg->text.data + t->resource);
      if (wrote < 0) return;
      used += (size_t)wrote;
    }
    if (used >= cap) return;
  }
}
