/* Where a model path is in the model file, for lint findings reported as
 * FILE:LINE:COLUMN (and in SARIF): the library names what a finding is
 * about by its path in the model; the command reads the file it was given
 * and finds that member in the text, with the span scanner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_locate(cli_span text, const char *path, unsigned *line,
                unsigned *column) {
  const char *at = text.p;
  cli_span here = text;
  for (const char *rest = path; here.p && *rest;) {
    /* the longest name of the path's next segments that is a member */
    size_t n = strlen(rest);
    cli_span found = {NULL, 0};
    const char *name = NULL;
    while (n > 0) {
      found = cli_member_n(here, rest, n, &name);
      if (found.p) break;
      while (n > 0 && rest[n - 1] != '.') n--;
      if (n > 0) n--; /* before the dot */
    }
    if (!found.p) break;
    at = name;
    here = found;
    rest += n;
    if (*rest == '.') rest++;
  }
  unsigned l = 1, c = 1;
  for (const char *p = text.p; at && p < at; p++) {
    if (*p == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *column = c;
}

char *cli_read_file(const char *file, size_t *len) {
  FILE *f = fopen(file, "rb");
  char *buf = NULL;
  size_t n = 0, cap = 0;
  while (f) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 65536;
      char *more = realloc(buf, cap);
      if (!more) break;
      buf = more;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) break;
      fclose(f);
      buf[n] = '\0';
      *len = n;
      return buf;
    }
  }
  fprintf(stderr, "ddbst: %s: cannot read the file\n", file);
  if (f) fclose(f);
  free(buf);
  return NULL;
}
