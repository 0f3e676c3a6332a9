/* Error codes, their texts, and filling the caller's ddbst_error. */
#include <stdio.h>
#include <string.h>

#include "base/internal.h"

const char *ddbst_version(void) { return DDBST_VERSION_STRING; }

const char *ddbst_strerror(int code) {
  switch (code) {
  case DDBST_OK: return "success";
  case DDBST_EINVAL: return "invalid argument";
  case DDBST_ENOMEM: return "out of memory";
  case DDBST_ESYNTAX: return "malformed JSON";
  case DDBST_EMODEL: return "invalid model";
  case DDBST_EVALUE: return "invalid value";
  case DDBST_EMISSING: return "missing value";
  case DDBST_ENOTFOUND: return "not found";
  case DDBST_ERANGE: return "out of range";
  case DDBST_EIO: return "cannot read file";
  case DDBST_ENOSPC: return "buffer too small";
  case DDBST_ECURSOR: return "cursor refused";
  case DDBST_EDYNAMODB: return "DynamoDB answered with an error";
  default: return "unknown error";
  }
}

/* A text cut at a byte limit may end inside a UTF-8 sequence; drops that
 * partial character so that the text stays valid UTF-8 (JSON answers and
 * other languages' strings are made from it). Cheap: it looks at the last
 * four bytes. */
void ddbst__trim_partial_utf8(char *s) {
  size_t n = strlen(s), lead = n;
  while (lead > 0 && n - lead < 4 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
    lead--;
  if (lead == 0) return;
  unsigned char c = (unsigned char)s[lead - 1];
  size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (n - (lead - 1) < want) s[lead - 1] = '\0';
}

int ddbst__vfail(ddbst_error *err, int code, const char *path, const char *fmt,
                 va_list ap) {
  if (!err) return code;
  memset(err, 0, sizeof *err);
  err->code = code;
  /* paths and messages may have been cut before, by their makers */
  if (path) snprintf(err->path, sizeof err->path, "%s", path);
  ddbst__trim_partial_utf8(err->path);
  if (fmt)
    vsnprintf(err->message, sizeof err->message, fmt, ap);
  else
    snprintf(err->message, sizeof err->message, "%s", ddbst_strerror(code));
  ddbst__trim_partial_utf8(err->message);
  return code;
}

int ddbst__fail(ddbst_error *err, int code, const char *path, const char *fmt,
                ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__vfail(err, code, path, fmt, ap);
  va_end(ap);
  return code;
}
