/* Members of the entry's answers printed as the entry wrote them: a scanner
 * that finds where a JSON value ends, without a tree, so the bytes on
 * stdout are the library's own. Answers are well-formed JSON; the scanner
 * only has to skip strings (with their escapes) and nested brackets. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *skip_space(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* Just past the value that starts at `p`. */
static const char *value_end(const char *p, const char *end) {
  if (p < end && *p == '"') {
    for (p++; p < end && *p != '"'; p++)
      if (*p == '\\' && p + 1 < end) p++;
    return p < end ? p + 1 : end;
  }
  if (p < end && (*p == '{' || *p == '[')) {
    int depth = 0;
    while (p < end) {
      if (*p == '"') {
        p = value_end(p, end);
        continue;
      }
      if (*p == '{' || *p == '[') depth++;
      if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
      p++;
    }
    return end;
  }
  while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' &&
         *p != '\t' && *p != '\n' && *p != '\r')
    p++;
  return p;
}

cli_span cli_span_of(const char *json) {
  cli_span s = {json, json ? strlen(json) : 0};
  return s;
}

cli_span cli_member(cli_span obj, const char *key) {
  return cli_member_n(obj, key, strlen(key), NULL);
}

cli_span cli_member_n(cli_span obj, const char *key, size_t klen,
                      const char **name) {
  cli_span none = {NULL, 0};
  const char *end = obj.p + obj.n;
  const char *p = obj.p ? skip_space(obj.p, end) : end;
  if (p == end || *p != '{') return none;
  for (p = skip_space(p + 1, end); p < end && *p == '"';) {
    const char *k = p + 1, *kend = value_end(p, end) - 1;
    p = skip_space(kend + 1, end);
    if (p == end || *p != ':') return none;
    p = skip_space(p + 1, end);
    cli_span v = {p, (size_t)(value_end(p, end) - p)};
    if ((size_t)(kend - k) == klen && !memcmp(k, key, klen)) {
      if (name) *name = k - 1;
      return v;
    }
    p = skip_space(p + v.n, end);
    if (p < end && *p == ',') p = skip_space(p + 1, end);
  }
  return none;
}

int cli_next(cli_span arr, cli_span *elem) {
  const char *end = arr.p + arr.n, *p;
  if (!arr.p) return 0;
  if (!elem->p) {
    p = skip_space(arr.p, end);
    if (p == end || *p != '[') return 0;
    p++;
  } else {
    p = elem->p + elem->n;
  }
  p = skip_space(p, end);
  if (elem->p && p < end && *p == ',') p = skip_space(p + 1, end);
  if (p == end || *p == ']') return 0;
  elem->p = p;
  elem->n = (size_t)(value_end(p, end) - p);
  return 1;
}

void cli_print_span(cli_span s) {
  if (s.n) fwrite(s.p, 1, s.n, stdout);
  fputc('\n', stdout);
}

void cli_print_request(cli_span request) {
  /* an operation name is a bare word: printed without its quotes */
  cli_span op = cli_member(request, "operation");
  if (op.n >= 2) fwrite(op.p + 1, 1, op.n - 2, stdout);
  fputc('\t', stdout);
  cli_print_span(cli_member(request, "body"));
}
