/* The walker of json_walk.h. */
#define _POSIX_C_SOURCE 200809L
#include "json_walk.h"

#include <stdlib.h>
#include <string.h>

const char *json_skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* The end of the JSON value at `p`, or NULL when it is cut short. */
const char *json_skip_value(const char *p, const char *end) {
  p = json_skip_ws(p, end);
  if (p >= end) return NULL;
  if (*p == '"') {
    for (p++; p < end; p++) {
      if (*p == '\\') p++;
      else if (*p == '"') return p + 1;
    }
    return NULL;
  }
  if (*p == '{' || *p == '[') {
    int depth = 0;
    for (; p < end; p++) {
      if (*p == '"') {
        p = json_skip_value(p, end);
        if (!p) return NULL;
        p--;
      } else if (*p == '{' || *p == '[') {
        depth++;
      } else if ((*p == '}' || *p == ']') && --depth == 0) {
        return p + 1;
      }
    }
    return NULL;
  }
  while (p < end && !strchr(",}] \n\r\t", *p)) p++;
  return p;
}

/* The value of member `name` of the object at `p` (its span in *v, *v_end),
 * 1; 0 when it has none or `p` is no object. */
int json_member(const char *p, const char *end, const char *name,
                  const char **v, const char **v_end) {
  size_t name_len = strlen(name);
  p = json_skip_ws(p, end);
  if (p >= end || *p != '{') return 0;
  for (p++;;) {
    p = json_skip_ws(p, end);
    if (p >= end || *p != '"') return 0;
    const char *key = p + 1, *key_end = json_skip_value(p, end);
    if (!key_end) return 0;
    p = json_skip_ws(key_end, end);
    if (p >= end || *p != ':') return 0;
    const char *value = json_skip_ws(p + 1, end), *value_end = json_skip_value(value, end);
    if (!value_end) return 0;
    if ((size_t)(key_end - 1 - key) == name_len &&
        !memcmp(key, name, name_len)) {
      *v = value, *v_end = value_end;
      return 1;
    }
    p = json_skip_ws(value_end, end);
    if (p >= end || *p != ',') return 0;
    p++;
  }
}

/* A string member's text (no escapes expected in these fields). */
int json_member_text(const char *p, const char *end, const char *name,
                       char *out, size_t n) {
  const char *v, *v_end;
  if (!json_member(p, end, name, &v, &v_end) || *v != '"' || v_end - v < 2 ||
      (size_t)(v_end - v - 2) >= n)
    return 0;
  memcpy(out, v + 1, (size_t)(v_end - v - 2));
  out[v_end - v - 2] = '\0';
  return 1;
}

int64_t json_member_int(const char *p, const char *end, const char *name) {
  const char *v, *v_end;
  if (!json_member(p, end, name, &v, &v_end)) return -1;
  return strtoll(v, NULL, 10);
}

double json_member_double(const char *p, const char *end, const char *name) {
  const char *v, *v_end;
  if (!json_member(p, end, name, &v, &v_end)) return 0;
  return strtod(v, NULL);
}
