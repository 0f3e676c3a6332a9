/* Request text for the JSON entry, built from argv and stdin: the command's
 * arguments become JSON strings, escaped here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_text_free(cli_text *t) {
  free(t->data);
  memset(t, 0, sizeof *t);
}

void cli_add_n(cli_text *t, const char *raw, size_t n) {
  if (t->nomem || !n) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + n + 1) cap *= 2;
    char *p = realloc(t->data, cap);
    if (!p) {
      t->nomem = 1;
      return;
    }
    t->data = p;
    t->cap = cap;
  }
  memcpy(t->data + t->len, raw, n);
  t->len += n;
  t->data[t->len] = '\0';
}

void cli_add(cli_text *t, const char *raw) { cli_add_n(t, raw, strlen(raw)); }

void cli_add_string(cli_text *t, const char *s, size_t n) {
  cli_add(t, "\"");
  size_t run = 0; /* bytes that go as they are, written in one piece */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    cli_add_n(t, s + run, i - run);
    char esc[8];
    if (c == '"' || c == '\\')
      snprintf(esc, sizeof esc, "\\%c", c);
    else
      snprintf(esc, sizeof esc, "\\u%04x", c);
    cli_add(t, esc);
    run = i + 1;
  }
  cli_add_n(t, s + run, n - run);
  cli_add(t, "\"");
}

void cli_add_field(cli_text *t, const char *key, const char *value) {
  cli_add(t, ",\"");
  cli_add(t, key);
  cli_add(t, "\":");
  cli_add_string(t, value, strlen(value));
}

int cli_add_assignment(cli_text *members, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq) {
    fprintf(stderr, "ddbst: %s: expected NAME=VALUE\n", arg);
    return 2;
  }
  if (members->len) cli_add(members, ",");
  cli_add_string(members, arg, (size_t)(eq - arg));
  cli_add(members, ":");
  cli_add_string(members, eq + 1, strlen(eq + 1));
  return 0;
}

void cli_add_element(cli_text *elements, const char *s) {
  if (elements->len) cli_add(elements, ",");
  cli_add_string(elements, s, strlen(s));
}

void cli_add_group(cli_text *t, const char *key, char open,
                   const cli_text *items) {
  if (items->nomem) t->nomem = 1;
  if (!items->len) return;
  cli_add(t, ",\"");
  cli_add(t, key);
  cli_add(t, open == '{' ? "\":{" : "\":[");
  cli_add_n(t, items->data, items->len);
  cli_add(t, open == '{' ? "}" : "]");
}

char *cli_read_stdin(size_t *len) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, stdin);
    if (n < cap) break;
    char *more = realloc(buf, cap * 2);
    if (!more) free(buf);
    buf = more;
    cap *= 2;
  }
  if (!buf || ferror(stdin)) {
    fprintf(stderr, "ddbst: cannot read stdin\n");
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

void cli_wipe(void *p, size_t n) {
  /* through a volatile pointer: a plain memset of memory about to be freed
   * or to go out of scope is a dead store the compiler may drop */
  volatile unsigned char *v = p;
  while (n--) *v++ = 0;
}
