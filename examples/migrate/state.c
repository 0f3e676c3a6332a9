/* The state file, one line per fact:
 *   ddbst-migrate-state 1
 *   plan 3f2a9c0d1e4b5a67
 *   step 1
 *   segments 4
 *   segment 0 open 1200 700 500 0 0 3 150.0 2810.5 <cursor>
 *   segment 1 done 1187 690 497 0 0 1 148.5 2790.0 -
 * (a segment: done or open, its counts — scanned, migrated, skipped,
 * refused, problems, redone —, the read and write units consumed, and its
 * last sealed cursor, "-" for none). */
#define _POSIX_C_SOURCE 200809L
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATE_MAGIC "ddbst-migrate-state 1"

static int say(char *why, size_t n, const char *what, const char *path) {
  snprintf(why, n, "%s: %s", path, what);
  return -1;
}

void state_begin_step(migrate_state *s, int step, int segments) {
  s->step = step;
  s->segments = segments;
  memset(s->seg, 0, sizeof s->seg);
}

static int parse_segment(migrate_state *s, const char *line) {
  int i, n = 0;
  char open[8];
  int64_t c[6];
  double units[2];
  if (sscanf(line,
             "segment %d %7s %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
             " %" SCNd64 " %" SCNd64 " %lf %lf %n",
             &i, open, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &units[0],
             &units[1], &n) != 10 ||
      n == 0 || i < 0 || i >= s->segments)
    return -1;
  segment_state *g = &s->seg[i];
  if (!strcmp(open, "done"))
    g->done = 1;
  else if (strcmp(open, "open"))
    return -1;
  g->scanned = c[0], g->migrated = c[1], g->skipped = c[2];
  g->refused = c[3], g->problems = c[4], g->redone = c[5];
  g->read_units = units[0], g->write_units = units[1];
  const char *cursor = line + n;
  size_t len = strcspn(cursor, "\n");
  if (len >= sizeof g->cursor) return -1;
  if (!(len == 1 && cursor[0] == '-')) {
    memcpy(g->cursor, cursor, len);
    g->cursor[len] = '\0';
  }
  return 0;
}

int state_load(const char *path, migrate_state *s, char *why,
               size_t why_len) {
  memset(s, 0, sizeof *s);
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 0;
    return say(why, why_len, strerror(errno), path);
  }
  static char line[STATE_CURSOR_MAX + 256];
  int rc = 0, lines = 0;
  while (!rc && fgets(line, sizeof line, f)) {
    lines++;
    if (lines == 1)
      rc = strncmp(line, STATE_MAGIC "\n", sizeof STATE_MAGIC) ? -1 : 0;
    else if (!strncmp(line, "plan ", 5))
      rc = sscanf(line, "plan %16s", s->plan) == 1 ? 0 : -1;
    else if (!strncmp(line, "step ", 5))
      rc = sscanf(line, "step %d", &s->step) == 1 && s->step >= 0 ? 0 : -1;
    else if (!strncmp(line, "segments ", 9))
      rc = sscanf(line, "segments %d", &s->segments) == 1 &&
                   s->segments >= 0 && s->segments <= STATE_MAX_SEGMENTS
               ? 0
               : -1;
    else if (!strncmp(line, "segment ", 8))
      rc = parse_segment(s, line);
    else
      rc = -1;
  }
  int read_error = ferror(f);
  fclose(f);
  if (read_error) return say(why, why_len, "cannot be read", path);
  if (rc || lines < 4 || !s->plan[0])
    return say(why, why_len,
               "not a state file of this driver (or damaged): remove it to "
               "start again",
               path);
  return 1;
}

/* fsync of the directory holding `path`, so that the rename is on disk. */
static int sync_dir(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) {
    strcpy(dir, ".");
  } else if ((size_t)(slash - path) >= sizeof dir) {
    return -1;
  } else {
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash == path ? 1 : slash - path] = '\0';
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

int state_save(const char *path, const migrate_state *s, char *why,
               size_t why_len) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return say(why, why_len, "path too long", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return say(why, why_len, strerror(errno), tmp);
  fprintf(f, STATE_MAGIC "\nplan %s\nstep %d\nsegments %d\n", s->plan,
          s->step, s->segments);
  for (int i = 0; i < s->segments; i++) {
    const segment_state *g = &s->seg[i];
    fprintf(f,
            "segment %d %s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
            " %" PRId64 " %" PRId64 " %.1f %.1f %s\n",
            i, g->done ? "done" : "open", g->scanned, g->migrated, g->skipped,
            g->refused, g->problems, g->redone, g->read_units, g->write_units,
            g->cursor[0] ? g->cursor : "-");
  }
  /* the data on disk before the name points at it */
  int rc = fflush(f) || fsync(fileno(f)) ? -1 : 0;
  if (fclose(f)) rc = -1;
  if (rc || rename(tmp, path)) {
    int e = errno;
    unlink(tmp);
    return say(why, why_len, strerror(e), path);
  }
  if (sync_dir(path)) return say(why, why_len, strerror(errno), path);
  return 0;
}
