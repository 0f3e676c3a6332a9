/* Streaming JSON output into a ddbst_buf: string escaping. */
#include <string.h>

#include "internal.h"

int ddbst__json_string(ddbst_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  /* Worst case every byte becomes \u00XX: reserve once, then write freely. */
  if (n > (SIZE_MAX - 2) / 6 || ddbst__buf_reserve(b, n * 6 + 2))
    return DDBST_ENOMEM;
  char *o = b->data + b->len;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    /* most text needs no escape: copy the run up to the next byte that does */
    size_t run = i;
    while (run < n && (unsigned char)s[run] >= 0x20 && s[run] != '"' &&
           s[run] != '\\')
      run++;
    if (run > i) {
      memcpy(o, s + i, run - i);
      o += run - i;
      i = run;
      if (i == n) break;
    }
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = (char)c;
    } else if (c >= 0x20) {
      *o++ = (char)c;
    } else {
      *o++ = '\\';
      switch (c) {
      case '\n': *o++ = 'n'; break;
      case '\r': *o++ = 'r'; break;
      case '\t': *o++ = 't'; break;
      case '\b': *o++ = 'b'; break;
      case '\f': *o++ = 'f'; break;
      default:
        *o++ = 'u'; *o++ = '0'; *o++ = '0';
        *o++ = hex[c >> 4]; *o++ = hex[c & 15];
      }
    }
  }
  *o++ = '"';
  b->len = (size_t)(o - b->data);
  b->data[b->len] = '\0';
  return 0;
}
