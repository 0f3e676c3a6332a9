/* A member of an answer of the JSON entry (ddbst_json_call), copied out for
 * a test to compare or to hand to the next call: a request's "body", a
 * page's "cursor". */
#ifndef DDBST_TEST_ENTRY_MEMBER_H
#define DDBST_TEST_ENTRY_MEMBER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The value of the first member `name` of `answer`, malloc'd: a string's
 * text without its quotes, an object's text to its matching brace. Fails
 * the test when there is none. The answers read this way hold no escaped
 * quote in that string and no brace inside the object's strings. */
static inline char *entry_member(const char *answer, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *b = strstr(answer, key);
  if (!b) fail_msg("no %s in %s", name, answer);
  b += strlen(key);
  const char *e;
  if (*b == '"') {
    e = strchr(++b, '"');
  } else if (*b == '{') {
    int depth = 0;
    for (e = b; *e && (e == b || depth); e++)
      depth += (*e == '{') - (*e == '}');
    if (depth) e = NULL;
  } else {
    e = NULL;
  }
  if (!e) fail_msg("%s is no whole string or object in %s", name, answer);
  size_t n = (size_t)(e - b);
  char *out = malloc(n + 1);
  if (!out) fail_msg("%s", "out of memory");
  memcpy(out, b, n);
  out[n] = '\0';
  return out;
}

#endif
