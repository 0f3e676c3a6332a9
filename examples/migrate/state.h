/* The driver's state file: which step of the plan is under way and, for a
 * scan or verify pass, each segment's last sealed cursor and counts. It is
 * what lets a killed driver resume where its last finished page left off.
 * Written whole each time, atomically (a temporary file, fsync, rename,
 * fsync of the directory): after a crash the file is the old state or the
 * new one, never a mix. */
#ifndef MIGRATE_STATE_H
#define MIGRATE_STATE_H

#include <stddef.h>
#include <stdint.h>

#define STATE_MAX_SEGMENTS 64
#define STATE_CURSOR_MAX 8192 /* a scan cursor is at most ~6 KB of base64url */

/* How far one segment of the pass under way has gone. */
typedef struct segment_state {
  int done;                      /* its last page is processed */
  char cursor[STATE_CURSOR_MAX]; /* "" before its first page */
  /* counts of the pages whose cursor is saved */
  int64_t scanned, migrated, skipped, refused, problems, redone;
  /* capacity units DynamoDB said its requests consumed */
  double read_units, write_units;
} segment_state;

typedef struct migrate_state {
  char plan[17];  /* digest of the plan (16 hex digits): refuse another's */
  int step;       /* index of the step under way; those before are done */
  int segments;   /* of the pass under way */
  segment_state seg[STATE_MAX_SEGMENTS];
} migrate_state;

/* Reads `path` into *s: 1 when read, 0 when there is no such file (*s is
 * then zeroed), -1 with a message in `why` when it is unreadable or not a
 * state file. */
int state_load(const char *path, migrate_state *s, char *why, size_t why_len);

/* Writes *s to `path` atomically. 0, or -1 with the reason in `why`. */
int state_save(const char *path, const migrate_state *s, char *why,
               size_t why_len);

/* Starts step `step` with `segments` segments, each from its first page. */
void state_begin_step(migrate_state *s, int step, int segments);

#endif
