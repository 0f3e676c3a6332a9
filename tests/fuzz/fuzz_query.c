/* libFuzzer: query bounds from API clients. Input: a byte choosing the
 * pattern and condition, then the partition value, a NUL, the bound, a NUL,
 * the second bound. A query body is built or refused with a message. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_models.h"

static const char *next(const char **p, const char *end, size_t *n) {
  const char *s = *p;
  const char *nul = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
  *n = nul ? (size_t)(nul - s) : (size_t)(end > s ? end - s : 0);
  *p = s + *n + 1;
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  ddbst_model *m = fuzz_model(0);
  static const struct {
    const char *pattern, *pk, *facet;
  } cases[] = {{"listEvents", "projectId", "ts"},
               {"projectsByStatus", "status", "createdAt"},
               {"listUsers", "orgId", "userId"},
               {"listProjects", "orgId", "createdAt"}};
  int c = data[0] & 3;
  int p = ddbst_model_pattern(m, cases[c].pattern);
  int e = ddbst_model_pattern_entity(m, p, 0);
  ddbst_item *it = ddbst_item_new(m, e);
  ddbst_buf *b = ddbst_buf_new(NULL);
  if (!it || !b) goto done;
  const char *s = (const char *)data + 1, *end = (const char *)data + size;
  size_t n1, n2, n3;
  const char *v1 = next(&s, end, &n1);
  const char *v2 = next(&s, end, &n2);
  const char *v3 = next(&s, end, &n3);
  ddbst_item_set(it, ddbst_model_attribute(m, e, cases[c].pk), v1, n1, NULL);
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.condition = (data[0] >> 2) % 7;
  q.attribute = ddbst_model_attribute(m, e, cases[c].facet);
  q.value = v2;
  q.value_len = n2;
  q.value2 = v3;
  q.value2_len = n3;
  q.limit = data[0] >> 5;
  ddbst_error err;
  if (ddbst_query_request(it, p, &q, b, &err) < 0 && err.message[0] == '\0')
    __builtin_trap();
done:
  ddbst_buf_free(b);
  ddbst_item_free(it);
  return 0;
}
