/* The parallel pass: one thread per segment, each with its own connection,
 * ddbst_scan, page and ddbst_migration (none of them is shared), and one
 * mutex for what they share: the state and the output. */
#define _POSIX_C_SOURCE 200809L
#include "pass.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddb.h"

static volatile sig_atomic_t stop_requested;

void pass_request_stop(void) { stop_requested = 1; }

void pass_totals(const migrate_state *s, segment_state *sum) {
  memset(sum, 0, sizeof *sum);
  for (int i = 0; i < s->segments; i++) {
    const segment_state *g = &s->seg[i];
    sum->scanned += g->scanned, sum->migrated += g->migrated;
    sum->skipped += g->skipped, sum->refused += g->refused;
    sum->problems += g->problems, sum->redone += g->redone;
    sum->read_units += g->read_units, sum->write_units += g->write_units;
  }
}

/* What the threads share. */
typedef struct shared {
  const pass_config *cfg;
  pthread_mutex_t lock; /* the state, the state file, stdout */
  atomic_int failed;
  /* this run's counts, item by item, for the progress line */
  _Atomic int64_t scanned, migrated, skipped, refused, problems, redone;
} shared;

typedef struct worker {
  shared *sh;
  int segment;
  pthread_t thread;
  ddb conn;
  ddbst_scan *scan;
  ddbst_page *page;
  ddbst_migration *m;
  ddbst_buf *body;    /* the Scan, then each write */
  ddbst_buf *reread;  /* a re-read's GetItem */
  ddbst_buf *report;  /* refusals, problems */
  ddbst_buf *cursor;  /* the next page's */
  segment_state page_counts; /* of the page under way */
} worker;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Report lines (a refused item, verify problems: one JSON object a line),
 * each on stdout after `kind`, whole. */
static void say_report(worker *w, const char *kind, const ddbst_buf *report) {
  pthread_mutex_lock(&w->sh->lock);
  const char *text = ddbst_buf_data(report), *end = text + ddbst_buf_len(report);
  while (text < end) {
    const char *nl = memchr(text, '\n', (size_t)(end - text));
    size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
    if (len) printf("%s %.*s\n", kind, (int)len, text);
    text += len + 1;
  }
  fflush(stdout);
  pthread_mutex_unlock(&w->sh->lock);
}

/* Sends the write the migration gave (in w->body, `op`): 0 when done or
 * settled (re-read, or refused and reported), -1 on a failure. */
static int write_item(worker *w, int op) {
  ddbst_error err;
  shared *sh = w->sh;
  for (int attempt = 0;; attempt++) {
    long status = ddb_send_measured(&w->conn, ddbst_operation_name(op),
                                    ddbst_buf_data(w->body),
                                    ddbst_buf_len(w->body),
                                    &w->page_counts.write_units);
    if (status == 200) {
      w->page_counts.migrated++, sh->migrated++;
      return 0;
    }
    if (status < 0) return -1;
    int kind = ddbst_migration_failed(w->m, ddb_answer(&w->conn),
                                      ddb_answer_len(&w->conn), w->report,
                                      &err);
    if (kind == DDBST_MIGRATE_RETRY && attempt < 5) {
      sleep_ms(1000L << attempt);
      continue;
    }
    if (kind == DDBST_MIGRATE_REFUSED) {
      w->page_counts.refused++, sh->refused++;
      say_report(w, "refused", w->report);
      return 0;
    }
    if (kind != DDBST_MIGRATE_REDO) {
      if (kind < 0) ddbst_failed("a migration write", kind, &err);
      return ddb_failed(&w->conn, ddbst_operation_name(op), status);
    }
    /* the item changed since it was read (a writer got there first): read
     * it again; the migration gives its step before the page's next item */
    w->page_counts.redone++, sh->redone++;
    int get = ddbst_migration_reread_request(w->m, w->reread, &err);
    if (get < 0) return ddbst_failed("re-reading an item", get, &err);
    status = ddb_send_measured(&w->conn, ddbst_operation_name(get),
                               ddbst_buf_data(w->reread),
                               ddbst_buf_len(w->reread),
                               &w->page_counts.read_units);
    if (status != 200) return ddb_failed(&w->conn, "re-reading an item", status);
    int there = ddbst_migration_reread(w->m, ddb_answer(&w->conn),
                                       ddb_answer_len(&w->conn), &err);
    return there < 0 ? ddbst_failed("re-reading an item", there, &err) : 0;
  }
}

/* Every item of the page just parsed through the migration. */
static int migrate_page(worker *w) {
  ddbst_error err;
  shared *sh = w->sh;
  int rc = ddbst_migration_page(w->m, w->page, &err);
  if (rc < 0) return ddbst_failed("stepping a page", rc, &err);
  for (;;) {
    int op = 0;
    int what = ddbst_migration_next(w->m, &op, w->body, &err);
    if (what == 0) return 0;
    if (what < 0) return ddbst_failed("stepping a page", what, &err);
    switch (what) {
    case DDBST_MIGRATE_WRITE:
      if (write_item(w, op)) return -1;
      break;
    case DDBST_MIGRATE_SKIP:
    case DDBST_MIGRATE_GUARD:
      w->page_counts.skipped++, sh->skipped++;
      break;
    default: /* REFUSED, FOREIGN: reported, never written, never dropped */
      w->page_counts.refused++, sh->refused++;
      say_report(w, what == DDBST_MIGRATE_FOREIGN ? "foreign" : "refused",
                 w->body);
      break;
    }
  }
}

static int verify_page(worker *w) {
  ddbst_error err;
  int problems = ddbst_migration_verify(w->m, w->page, w->report, &err);
  if (problems < 0) return ddbst_failed("verifying a page", problems, &err);
  if (problems) say_report(w, "problem", w->report);
  w->page_counts.problems += problems, w->sh->problems += problems;
  return 0;
}

/* Saves the segment's next cursor and its page's counts: the page is done.
 * `more` 0: the segment is. */
static int save_page(worker *w, int more) {
  shared *sh = w->sh;
  const pass_config *cfg = sh->cfg;
  char why[512];
  pthread_mutex_lock(&sh->lock);
  segment_state *g = &cfg->state->seg[w->segment];
  const segment_state *c = &w->page_counts;
  g->scanned += c->scanned, g->migrated += c->migrated;
  g->skipped += c->skipped, g->refused += c->refused;
  g->problems += c->problems, g->redone += c->redone;
  g->read_units += c->read_units, g->write_units += c->write_units;
  g->done = !more;
  size_t len = more ? ddbst_buf_len(w->cursor) : 0;
  int rc = len < sizeof g->cursor ? 0 : -1;
  if (!rc) {
    memcpy(g->cursor, ddbst_buf_data(w->cursor), len);
    g->cursor[len] = '\0';
    rc = state_save(cfg->state_path, cfg->state, why, sizeof why);
    if (rc) fprintf(stderr, "migrate: saving the state: %s\n", why);
  } else {
    fprintf(stderr, "migrate: a cursor of %zu bytes: too long to save\n", len);
  }
  pthread_mutex_unlock(&sh->lock);
  memset(&w->page_counts, 0, sizeof w->page_counts);
  return rc;
}

static int run_segment(worker *w) {
  ddbst_error err;
  shared *sh = w->sh;
  const pass_config *cfg = sh->cfg;
  const segment_state *g = &cfg->state->seg[w->segment];
  /* the cursor saved by the last run, or none: the first page */
  ddbst_buf_reset(w->cursor);
  if (g->cursor[0] && ddbst_buf_append(w->cursor, g->cursor, strlen(g->cursor)))
    return ddbst_failed("the saved cursor", DDBST_ENOMEM, NULL);
  int have_cursor = g->cursor[0] != '\0';
  while (!g->done) {
    if (stop_requested || sh->failed) return 1;
    int op = ddbst_scan_request(
        w->scan, DDBST_CONSISTENT_READ, cfg->page_limit,
        have_cursor ? ddbst_buf_data(w->cursor) : NULL,
        have_cursor ? ddbst_buf_len(w->cursor) : 0, cfg->keys, DDBST_NOW,
        w->body, &err);
    if (op < 0) return ddbst_failed("the Scan of a page", op, &err);
    long status = ddb_send_measured(&w->conn, "Scan", ddbst_buf_data(w->body),
                                    ddbst_buf_len(w->body),
                                    &w->page_counts.read_units);
    if (status != 200) return ddb_failed(&w->conn, "Scan", status);
    int n = ddbst_page_parse_scan(w->page, w->scan, ddb_answer(&w->conn),
                                  ddb_answer_len(&w->conn), &err);
    if (n < 0) return ddbst_failed("reading a Scan page", n, &err);
    w->page_counts.scanned += n, sh->scanned += n;
    if (cfg->verify ? verify_page(w) : migrate_page(w)) return -1;
    int more = ddbst_page_next_cursor(w->page, cfg->keys, DDBST_NOW,
                                      w->cursor, &err);
    if (more < 0) return ddbst_failed("the next page's cursor", more, &err);
    if (save_page(w, more)) return -1;
    have_cursor = more;
  }
  return 0;
}

static void *segment_thread(void *arg) {
  worker *w = arg;
  int rc = run_segment(w);
  if (rc < 0) w->sh->failed = 1;
  return NULL;
}

static void worker_free(worker *w) {
  ddbst_migration_free(w->m);
  ddbst_page_free(w->page);
  ddbst_scan_free(w->scan);
  ddbst_buf_free(w->body);
  ddbst_buf_free(w->reread);
  ddbst_buf_free(w->report);
  ddbst_buf_free(w->cursor);
  ddb_close(&w->conn);
}

static int worker_init(worker *w, shared *sh, int segment) {
  const pass_config *cfg = sh->cfg;
  ddbst_error err;
  char why[512];
  memset(w, 0, sizeof *w);
  w->sh = sh;
  w->segment = segment;
  if (ddb_open(&w->conn, cfg->new_model, why, sizeof why)) {
    fprintf(stderr, "migrate: %s\n", why);
    return -1;
  }
  int rc = ddbst_migration_new(cfg->old_model, cfg->new_model,
                               cfg->migration_flags, &w->m, &err);
  if (rc) return ddbst_failed("the migration", rc, &err);
  w->scan = ddbst_scan_new(cfg->new_model);
  w->page = ddbst_page_new(cfg->new_model);
  w->body = ddbst_buf_new(NULL), w->reread = ddbst_buf_new(NULL);
  w->report = ddbst_buf_new(NULL), w->cursor = ddbst_buf_new(NULL);
  if (!w->scan || !w->page || !w->body || !w->reread || !w->report ||
      !w->cursor)
    return ddbst_failed("a segment", DDBST_ENOMEM, NULL);
  if (cfg->state->segments > 1) {
    rc = ddbst_scan_segment(w->scan, (uint32_t)segment,
                            (uint32_t)cfg->state->segments, &err);
    if (rc) return ddbst_failed("a segment", rc, &err);
  }
  return 0;
}

/* One progress line: this run's counts on top of what the state held when
 * it began, the rate of this run, and the time left at that rate for the
 * items DescribeTable counts. */
static void progress(shared *sh, const segment_state *before, double started,
                     const char *end) {
  const pass_config *cfg = sh->cfg;
  int64_t scanned = before->scanned + sh->scanned;
  double elapsed = now_seconds() - started;
  double rate = elapsed > 0 ? (double)sh->scanned / elapsed : 0;
  pthread_mutex_lock(&sh->lock);
  printf("%s: %" PRId64 " items scanned", cfg->verify ? "verify" : "migrate",
         scanned);
  if (cfg->item_count > 0)
    printf(" of ~%" PRId64 " (%d%%)", cfg->item_count,
           (int)(scanned * 100 / (cfg->item_count > scanned ? cfg->item_count
                                                            : scanned)));
  if (cfg->verify)
    printf(", %" PRId64 " problems", before->problems + sh->problems);
  else
    printf(", %" PRId64 " migrated, %" PRId64 " skipped, %" PRId64
           " refused, %" PRId64 " redone",
           before->migrated + sh->migrated, before->skipped + sh->skipped,
           before->refused + sh->refused, before->redone + sh->redone);
  printf("; %.0f items/s", rate);
  if (rate > 0 && cfg->item_count > scanned)
    printf(", ~%.0f s left", (double)(cfg->item_count - scanned) / rate);
  printf("%s\n", end);
  fflush(stdout);
  pthread_mutex_unlock(&sh->lock);
}

int pass_run(const pass_config *cfg) {
  int n = cfg->state->segments;
  shared sh = {.cfg = cfg};
  pthread_mutex_init(&sh.lock, NULL);
  worker *workers = calloc((size_t)n, sizeof *workers);
  if (!workers) return ddbst_failed("the segments", DDBST_ENOMEM, NULL);
  segment_state before;
  pass_totals(cfg->state, &before);
  int rc = 0, started_threads = 0;
  /* every connection opened here, before any thread starts */
  for (int i = 0; i < n && !rc; i++) rc = worker_init(&workers[i], &sh, i);
  double started = now_seconds();
  for (int i = 0; i < n && !rc; i++, started_threads++)
    if (pthread_create(&workers[i].thread, NULL, segment_thread, &workers[i])) {
      fprintf(stderr, "migrate: cannot start a thread\n");
      sh.failed = 1;
      rc = -1;
    }
  double last = started;
  for (int running = started_threads; running;) {
    sleep_ms(100);
    pthread_mutex_lock(&sh.lock);
    running = 0;
    for (int i = 0; i < n; i++)
      running += !cfg->state->seg[i].done;
    pthread_mutex_unlock(&sh.lock);
    if (sh.failed || stop_requested) break;
    if (now_seconds() - last >= cfg->progress_seconds) {
      progress(&sh, &before, started, "");
      last = now_seconds();
    }
  }
  for (int i = 0; i < started_threads; i++)
    pthread_join(workers[i].thread, NULL);
  for (int i = 0; i < n; i++) worker_free(&workers[i]);
  free(workers);
  progress(&sh, &before, started, sh.failed || stop_requested ? " (stopped)"
                                                              : " (done)");
  pthread_mutex_destroy(&sh.lock);
  if (rc || sh.failed) return -1;
  return stop_requested ? 1 : 0;
}
