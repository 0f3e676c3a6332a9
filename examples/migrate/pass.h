/* A scan pass of the plan: N segments of one parallel Scan, a thread each,
 * every page's items brought to the new model (the scan step) or checked
 * against it (the verify step). Each segment's last sealed cursor and
 * counts go to the state file once its page's writes are done, so a
 * driver killed at any moment resumes from the first page it had not
 * finished; the writes are conditional on the items being as read, so a
 * page done twice does nothing more the second time. */
#ifndef MIGRATE_PASS_H
#define MIGRATE_PASS_H

#include <stdint.h>

#include "ddbst.h"
#include "state.h"

typedef struct pass_config {
  const ddbst_model *old_model, *new_model;
  uint32_t migration_flags;        /* ddbst_migration_new's */
  const ddbst_cursor_keys *keys;   /* seal and open the segments' cursors */
  int verify;                      /* 1: check items; 0: migrate them */
  uint32_t page_limit;             /* Limit of each Scan page */
  const char *state_path;
  migrate_state *state;            /* the step and segments under way */
  int64_t item_count;              /* DescribeTable's, for the time left */
  double progress_seconds;         /* between two progress lines */
} pass_config;

/* Runs the pass from where cfg->state says each segment is, to the end.
 * 0 when every segment is done, -1 on a failure (said on stderr; the
 * state file holds the pages finished), 1 when stopped by SIGINT or
 * SIGTERM (the same). */
int pass_run(const pass_config *cfg);

/* Sums of the segments' counts, as saved in the state. */
void pass_totals(const migrate_state *s, segment_state *sum);

/* Asks running passes to stop after their current page (a signal
 * handler may call it). */
void pass_request_stop(void);

#endif
