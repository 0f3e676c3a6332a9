/* A driver of ddbst migrations: runs the plan ddbst makes from an OLD and
 * a NEW model against a live DynamoDB table — UpdateTable steps and the
 * wait for DynamoDB to do them, a scan pass in N parallel segments writing
 * what ddbst says each item needs, a verify pass — and resumes after being
 * killed from the state file it keeps. ddbst builds every request and
 * decides every write; this program sends them (libcurl, signed with
 * CURLOPT_AWS_SIGV4) and keeps track.
 *
 *   ddbst_example_migrate OLD.json NEW.json [options]
 *     --table NAME           the table (else the models' table.name)
 *     --state FILE           where to keep the progress (default
 *                            migrate.state): run again with the same file
 *                            to resume
 *     --segments N           parallel segments, a thread each (default 4,
 *                            at most 64; a resumed pass keeps its own)
 *     --page-size N          items a Scan page (default 100)
 *     --cursor-key-file FILE the cursor keys, else DDBST_CURSOR_KEY
 *     --progress SECONDS     between progress lines (default 1)
 *     --unsafe               accept changes ddbst classes unsafe (items
 *                            the new model refuses are reported)
 *     --plan                 print the plan and its cost, change nothing
 *
 * Environment: DDBST_ENDPOINT, AWS_REGION (or AWS_DEFAULT_REGION),
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (optional),
 * DDBST_CURSOR_KEY. Exit status: 0 the migration is done and verified;
 * 1 a failure (said on stderr); 2 a bad argument; 3 done, but items were
 * refused or the verify pass found problems (listed on stdout: the indexes
 * the new model drops are then left in place); 130 stopped by a signal
 * (run again to resume); 77 DDBST_ENDPOINT unset. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddb.h"
#include "pass.h"
#include "state.h"
#include "table.h"

#define EXIT_SKIP 77

typedef struct options {
  const char *old_file, *new_file, *table, *state, *key_file;
  int segments;
  uint32_t page_size;
  double progress;
  uint32_t flags;
  int plan_only;
} options;

static int usage(const char *why) {
  fprintf(stderr,
          "migrate: %s\nusage: ddbst_example_migrate OLD.json NEW.json "
          "[--table NAME] [--state FILE] [--segments N] [--page-size N] "
          "[--cursor-key-file FILE] [--progress SECONDS] [--unsafe] "
          "[--plan]\n",
          why);
  return 2;
}

static int parse_options(int argc, char **argv, options *o) {
  *o = (options){.state = "migrate.state", .segments = 4, .page_size = 100,
                 .progress = 1.0};
  int files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--unsafe")) {
      o->flags |= DDBST_MIGRATE_UNSAFE;
    } else if (!strcmp(a, "--plan")) {
      o->plan_only = 1;
    } else if (!strncmp(a, "--", 2)) {
      if (!v) return usage("an option without its value");
      i++;
      if (!strcmp(a, "--table")) o->table = v;
      else if (!strcmp(a, "--state")) o->state = v;
      else if (!strcmp(a, "--cursor-key-file")) o->key_file = v;
      else if (!strcmp(a, "--segments")) o->segments = atoi(v);
      else if (!strcmp(a, "--page-size")) o->page_size = (uint32_t)atol(v);
      else if (!strcmp(a, "--progress")) o->progress = atof(v);
      else return usage("unknown option");
    } else if (files < 2) {
      *(files++ ? &o->new_file : &o->old_file) = a;
    } else {
      return usage("more than two models");
    }
  }
  if (files != 2) return usage("give the OLD and the NEW model");
  if (o->segments < 1 || o->segments > STATE_MAX_SEGMENTS)
    return usage("--segments: 1 to 64");
  if (o->page_size < 1) return usage("--page-size: at least 1");
  if (!(o->progress > 0)) return usage("--progress: seconds above 0");
  return 0;
}

/* The cursor keys from --cursor-key-file, else DDBST_CURSOR_KEY: without
 * them the state file's cursors could be altered or read. */
static ddbst_cursor_keys *cursor_keys(const options *o) {
  char text[4096] = "";
  ddbst_error err;
  if (o->key_file) {
    FILE *f = fopen(o->key_file, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    if (!f || n == 0) {
      fprintf(stderr, "migrate: --cursor-key-file %s: cannot be read\n",
              o->key_file);
      return NULL;
    }
    text[n] = '\0';
    text[strcspn(text, "\r\n")] = '\0';
  } else if (getenv("DDBST_CURSOR_KEY")) {
    snprintf(text, sizeof text, "%s", getenv("DDBST_CURSOR_KEY"));
  } else {
    fprintf(stderr, "migrate: no cursor key: give --cursor-key-file or "
                    "DDBST_CURSOR_KEY (64 hex characters, docs/cursor.md)\n");
    return NULL;
  }
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  int rc = keys ? ddbst_cursor_keys_add_hex(keys, text, &err) : DDBST_ENOMEM;
  if (rc) {
    ddbst_failed(o->key_file ? o->key_file : "DDBST_CURSOR_KEY", rc, &err);
    ddbst_cursor_keys_free(keys);
    return NULL;
  }
  return keys;
}

/* 16 hex digits of FNV-1a over the plan's JSON: a state file made for
 * another plan (other models, another table) is refused. */
static void plan_digest(const ddbst_buf *plan, char out[17]) {
  uint64_t h = 0xcbf29ce484222325u;
  const unsigned char *p = (const unsigned char *)ddbst_buf_data(plan);
  for (size_t i = 0; i < ddbst_buf_len(plan); i++)
    h = (h ^ p[i]) * 0x100000001b3u;
  snprintf(out, 17, "%016" PRIx64, h);
}

/* What a migration of this table costs, estimated from DescribeTable's
 * figures (docs/evolution.md, "What it costs"); each pass prints what
 * DynamoDB says it consumed, to hold the estimate against. */
static void print_cost(const table_info *t, const ddbst_migration *m,
                       const ddbst_model *new_model, uint32_t page_size) {
  if (t->item_count <= 0 || t->size_bytes < 0) return;
  int64_t avg = t->size_bytes / t->item_count;
  int64_t kb = (avg + 1023) / 1024; /* write units an item, a KB each */
  if (kb < 1) kb = 1;
  /* a consistent Scan page costs a unit per 4 KB it read, rounded up */
  int64_t pages = (t->item_count + page_size - 1) / page_size;
  int64_t page_bytes = t->item_count < page_size ? t->size_bytes
                                                  : avg * page_size;
  int64_t reads = pages * ((page_bytes + 4095) / 4096);
  printf("cost: the table holds %" PRId64 " items, %" PRId64 " bytes, %" PRId64
         " an item (DescribeTable's figures, which AWS refreshes about every "
         "six hours)\n",
         t->item_count, t->size_bytes, avg);
  printf("cost: reads: about %" PRId64 " read units a pass (%" PRId64
         " consistent Scan pages of %u items, a unit per 4 KB of each); the "
         "scan and verify passes: about %" PRId64 "\n",
         reads, pages, page_size, 2 * reads);
  printf("cost: writes: one at most per item, %" PRId64 " write unit%s a write "
         "of it (a unit per KB): an item updated in place %" PRId64
         ", an item moved to a new key %" PRId64
         " (its Put and Delete, doubled in a transaction), and each index "
         "the write changes 1 more (2 when the item's index key changes)\n",
         kb, kb == 1 ? "" : "s", kb, 4 * kb);
  int moving = 0;
  for (int e = 0; e < ddbst_model_entity_count(new_model); e++)
    if (ddbst_migration_moves(m, ddbst_model_entity_name(new_model, e)) == 1) {
      printf("cost: items of %s move to a new key\n",
             ddbst_model_entity_name(new_model, e));
      moving++;
    }
  printf("cost: writes to the table: at most %" PRId64 " write units (every "
         "item %s), before the indexes\n",
         t->item_count * (moving ? 4 : 1) * kb,
         moving ? "moved" : "updated in place");
}

static void on_signal(int sig) {
  (void)sig;
  pass_request_stop();
}

static void print_totals(const char *pass, const migrate_state *s) {
  segment_state t;
  pass_totals(s, &t);
  printf("%s pass done: scanned=%" PRId64 " migrated=%" PRId64
         " skipped=%" PRId64 " refused=%" PRId64 " redone=%" PRId64
         " problems=%" PRId64 " read_units=%.1f write_units=%.1f\n",
         pass, t.scanned, t.migrated, t.skipped, t.refused, t.redone,
         t.problems, t.read_units, t.write_units);
  fflush(stdout);
}

typedef struct driver {
  options o;
  ddbst_model *old_model, *new_model;
  ddbst_migration *m;
  ddbst_cursor_keys *keys;
  ddb conn;
  migrate_state *state;
  table_info table;
  int reported; /* refused items or verify problems */
} driver;

/* One step of the plan, from where the state says it is. 0 when done,
 * 1 stopped by a signal, -1 failed, 3 verify found problems. */
static int run_step(driver *d, int step) {
  const char *index = NULL;
  char why[512];
  int kind = ddbst_migration_step(d->m, step, &index);
  if (kind == DDBST_STEP_ADD_INDEX || kind == DDBST_STEP_REMOVE_INDEX)
    return table_index_step(&d->conn, d->new_model, d->m, step, index,
                            kind == DDBST_STEP_ADD_INDEX);
  if (kind != DDBST_STEP_SCAN && kind != DDBST_STEP_VERIFY) {
    fprintf(stderr, "migrate: step %d: a kind this driver does not know\n",
            step + 1);
    return -1;
  }
  int verify = kind == DDBST_STEP_VERIFY;
  if (d->state->segments == 0) { /* a pass starting: save how it is cut */
    state_begin_step(d->state, step, d->o.segments);
    if (state_save(d->o.state, d->state, why, sizeof why))
      return fprintf(stderr, "migrate: %s\n", why), -1;
  }
  printf("step %d: %s pass, %d segments%s\n", step + 1,
         verify ? "verify" : "scan", d->state->segments,
         d->state->seg[0].scanned || d->state->seg[0].cursor[0] ? ", resumed"
                                                                : "");
  fflush(stdout);
  pass_config cfg = {.old_model = d->old_model, .new_model = d->new_model,
                     .migration_flags = d->o.flags, .keys = d->keys,
                     .verify = verify, .page_limit = d->o.page_size,
                     .state_path = d->o.state, .state = d->state,
                     .item_count = d->table.item_count,
                     .progress_seconds = d->o.progress};
  int rc = pass_run(&cfg);
  if (rc) return rc;
  print_totals(verify ? "verify" : "scan", d->state);
  segment_state t;
  pass_totals(d->state, &t);
  if (t.refused || t.problems) d->reported = 1;
  return verify && t.problems ? 3 : 0;
}

static int run(driver *d) {
  ddbst_error err;
  char why[512];
  ddbst_load_options lo = {.size = sizeof lo, .table_name = d->o.table};
  int rc = ddbst_model_load_file(d->o.old_file, &lo, &d->old_model, &err);
  if (rc) return ddbst_failed(d->o.old_file, rc, &err);
  rc = ddbst_model_load_file(d->o.new_file, &lo, &d->new_model, &err);
  if (rc) return ddbst_failed(d->o.new_file, rc, &err);
  rc = ddbst_migration_new(d->old_model, d->new_model, d->o.flags, &d->m,
                           &err);
  if (rc) return ddbst_failed("the migration", rc, &err);
  if (!(d->keys = cursor_keys(&d->o))) return -1;

  ddbst_buf *plan = ddbst_buf_new(NULL);
  char digest[17];
  rc = plan ? ddbst_migration_plan(d->m, 0, plan, &err) : DDBST_ENOMEM;
  if (!rc) plan_digest(plan, digest);
  if (!rc) rc = ddbst_migration_plan(d->m, DDBST_DIFF_TEXT, plan, &err);
  if (!rc) printf("%s", ddbst_buf_data(plan));
  ddbst_buf_free(plan);
  if (rc) return ddbst_failed("the plan", rc, &err);

  if (ddb_open(&d->conn, d->new_model, why, sizeof why))
    return fprintf(stderr, "migrate: %s\n", why), -1;
  if (table_describe(&d->conn, d->new_model, &d->table)) return -1;
  print_cost(&d->table, d->m, d->new_model, d->o.page_size);
  fflush(stdout);
  if (d->o.plan_only) return 0;

  if (!(d->state = malloc(sizeof *d->state)))
    return ddbst_failed("the state", DDBST_ENOMEM, NULL);
  int found = state_load(d->o.state, d->state, why, sizeof why);
  if (found < 0) return fprintf(stderr, "migrate: %s\n", why), -1;
  if (found && strcmp(d->state->plan, digest)) {
    fprintf(stderr, "migrate: %s: the state of another plan (other models "
            "or another table): remove it to start this one\n", d->o.state);
    return 2;
  }
  if (!found) memcpy(d->state->plan, digest, sizeof digest);
  int steps = ddbst_migration_step_count(d->m);
  if (found)
    printf("resuming from %s: step %d of %d\n", d->o.state,
           d->state->step + 1, steps);
  for (int step = d->state->step; step < steps; step++) {
    rc = run_step(d, step);
    if (rc == 3)
      printf("the verify pass found problems: the steps after it are not "
             "run; migrate the items named, then run again with a new "
             "--state\n");
    if (rc) return rc;
    state_begin_step(d->state, step + 1, 0);
    if (state_save(d->o.state, d->state, why, sizeof why))
      return fprintf(stderr, "migrate: %s\n", why), -1;
  }
  printf("migration done: %d steps\n", steps);
  return d->reported ? 3 : 0;
}

int main(int argc, char **argv) {
  driver d = {0};
  int rc = parse_options(argc, argv, &d.o);
  if (rc) return rc;
  const char *endpoint = getenv("DDBST_ENDPOINT");
  if (!endpoint || !*endpoint) {
    fprintf(stderr, "migrate: DDBST_ENDPOINT is not set: nothing to migrate\n");
    return EXIT_SKIP;
  }
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  setvbuf(stdout, NULL, _IOLBF, 0);
  rc = run(&d);
  free(d.state);
  ddb_close(&d.conn);
  ddbst_cursor_keys_free(d.keys);
  ddbst_migration_free(d.m);
  ddbst_model_free(d.new_model);
  ddbst_model_free(d.old_model);
  if (rc == 1) return 130;
  return rc < 0 ? 1 : rc;
}
