/* Streaming JSON output into a ddbst_buf: string escaping. */
#include <string.h>

#include "base/bytes.h"
#include "base/internal.h"
#include "base/utf8.h"

/* Its idea of "needs an escape" is the key scan's: both are bytes.h's. */
size_t ddbst__json_plain_len(const char *s, size_t n) {
  return ddbst__plain_run(s, n);
}

int ddbst__json_string(ddbst_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = ddbst__json_plain_len(s, n);
  if (run == n) { /* the common case: copy it whole */
    if (ddbst__buf_reserve(b, n + 2)) return DDBST_ENOMEM;
    char *o = b->data + b->len;
    *o++ = '"';
    ddbst__copy(o, s, n);
    o[n] = '"';
    b->len += n + 2;
    b->data[b->len] = '\0';
    return 0;
  }
  /* Worst case every byte becomes \u00XX: reserve once, then write freely. */
  if (n > (SIZE_MAX - 2) / 6 || ddbst__buf_reserve(b, n * 6 + 2))
    return DDBST_ENOMEM;
  char *o = b->data + b->len;
  *o++ = '"';
  for (size_t i = 0; i < n;) {
    memcpy(o, s + i, run);
    o += run;
    i += run;
    if (i == n) break;
    unsigned char c = (unsigned char)s[i++];
    *o++ = '\\';
    switch (c) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '\n': *o++ = 'n'; break;
    case '\r': *o++ = 'r'; break;
    case '\t': *o++ = 't'; break;
    case '\b': *o++ = 'b'; break;
    case '\f': *o++ = 'f'; break;
    default:
      *o++ = 'u'; *o++ = '0'; *o++ = '0';
      *o++ = hex[c >> 4]; *o++ = hex[c & 15];
    }
    run = ddbst__json_plain_len(s + i, n - i);
  }
  *o++ = '"';
  b->len = (size_t)(o - b->data);
  b->data[b->len] = '\0';
  return 0;
}

/* A number DynamoDB accepted (ddbst__number_check's grammar) as JSON: its
 * leading zeros dropped ("007" is 7), the rest exactly as written. */
int ddbst__json_number(ddbst_buf *b, const char *s, size_t n) {
  size_t i = n && s[0] == '-' ? 1 : 0, j = i;
  while (j + 1 < n && s[j] == '0' && s[j + 1] >= '0' && s[j + 1] <= '9') j++;
  if (i && ddbst__buf_putc(b, '-')) return DDBST_ENOMEM;
  return ddbst__buf_append(b, s + j, n - j);
}

int ddbst_buf_append_json_string(ddbst_buf *b, const char *s, size_t n) {
  if (!b || (!s && n && n != DDBST_NUL_TERMINATED)) return DDBST_EINVAL;
  n = ddbst__len(s, n);
  if (!s) s = "";
  if (ddbst__utf8_check(s, n)) return DDBST_EVALUE;
  size_t start = b->len;
  int rc = ddbst__json_string(b, s, n);
  if (rc) ddbst__buf_truncate(b, start);
  return rc;
}
