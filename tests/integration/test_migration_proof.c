/* The proof of issue 19 on DynamoDB Local: 20,000 items of three entities
 * written under an OLD model
 * (tests/integration/models/migration_proof_old.json),
 * migrated by the driver (examples/migrate) to a NEW one that (a) adds a
 * sparse GSI3 and its pattern, (b) keys orders at millisecond precision,
 * (c) removes GSI2, (d) gives a new attribute of accounts a default —
 * while a second process (migrate_writer.c) writes, updates and deletes
 * items under the NEW model throughout. The driver is killed once
 * (SIGKILL) in the middle of its scan pass and run again: it resumes from
 * the sealed cursors of its state file. At the end every pattern of NEW
 * returns exactly the oracle's items (the initial items and the writer's
 * log), the table holds each item once as NEW writes it (no old key, no
 * stale index attribute), the driver's and our own verify report no
 * problem, and a second run of the whole plan writes nothing.
 *
 *   integration_test_migration_proof DRIVER       (the ddbst_example_migrate binary)
 *   DDBST_MIGRATE_ACCOUNTS=N               40 items an account (default 500;
 *                                          100 under AddressSanitizer) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "migrate_checks.h"
#include "migrate_data.h"
#include "migrate_writer.h"
#include "state.h"

#define OLD_MODEL MIG_OLD_MODEL
#define NEW_MODEL MIG_NEW_MODEL

static const char *driver_path;
static const char *self_path;
static char dir[64]; /* the run's files: key, state, logs */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void path_of(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/%s", dir, name);
}

/* Prints a file (the driver's or the writer's output) on failure. */
static void show(const char *name) {
  char p[128], line[4096];
  path_of(p, sizeof p, name);
  FILE *f = fopen(p, "r");
  if (!f) return;
  fprintf(stderr, "---- %s\n", name);
  while (fgets(line, sizeof line, f)) fputs(line, stderr);
  fclose(f);
}

/* Whether the file `name` has a line holding `text` (and `also`, when
 * not NULL). */
static int has_lines(const char *name, const char *text, const char *also) {
  char p[128], line[4096];
  path_of(p, sizeof p, name);
  FILE *f = fopen(p, "r");
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    found = strstr(line, text) && (!also || strstr(line, also));
  if (f) fclose(f);
  return found;
}
#define has_line(name, text) has_lines((name), (text), NULL)

static size_t lines_of(const char *name) {
  char p[128];
  path_of(p, sizeof p, name);
  FILE *f = fopen(p, "r");
  size_t n = 0;
  for (int c; f && (c = fgetc(f)) != EOF;) n += c == '\n';
  if (f) fclose(f);
  return n;
}

/* Runs argv with stdout and stderr into the file `out`. The child's pid. */
static pid_t spawn(char *const argv[], const char *out) {
  char p[128];
  path_of(p, sizeof p, out);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
    execv(argv[0], argv);
    _exit(127);
  }
  return pid;
}

static int exit_status(pid_t pid) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The driver on the proof's table, its output into `out`. */
static pid_t start_driver(itest_fixture *f, const char *state,
                          const char *out) {
  char state_path[128], key_path[128];
  path_of(state_path, sizeof state_path, state);
  path_of(key_path, sizeof key_path, "cursor.key");
  char *argv[] = {(char *)driver_path, OLD_MODEL, NEW_MODEL,
                  "--table", f->table, "--state", state_path,
                  "--cursor-key-file", key_path, "--segments", "4",
                  "--page-size", "100", "--progress", "2", NULL};
  return spawn(argv, out);
}

/* ---- the load ---- */

static void load(itest_fixture *f, int accounts) {
  ddbst_batch *b = ddbst_batch_new(f->model);
  assert_non_null(b);
  char json[512];
  int total = accounts * MIG_PER_ACCOUNT;
  for (int i = 0; i < total; i++) {
    const char *entity = mig_initial(i, json, sizeof json);
    ddbst_item_reset(f->item, ddbst_model_entity(f->model, entity));
    if (ddbst_item_set_json(f->item, json, strlen(json), &f->err) ||
        ddbst_batch_put(b, f->item, ITEST_NOW_US, &f->err))
      fail_msg("item %d: %s", i, f->err.message);
    if (ddbst_batch_request_count(b) == 40 || i + 1 == total) {
      /* every chunk, and what DynamoDB left unprocessed, until none */
      ddbst_page *page = ddbst_page_new(f->model);
      for (int c = 0; c < ddbst_batch_request_count(b); c++) {
        int op = ddbst_batch_request(b, c, 0, itest_body(f), &f->err);
        while (op > 0) {
          itest_ok(f, op);
          const char *answer = itest_client_body(f->client);
          assert_true(ddbst_page_parse(page, op, answer, strlen(answer),
                                       &f->err) >= 0);
          op = ddbst_page_followup_request(page, itest_body(f), &f->err);
        }
        assert_int_equal(op, 0);
      }
      ddbst_page_free(page);
      ddbst_batch_reset(b);
    }
  }
  ddbst_batch_free(b);
}

/* ---- the diff of the pair ---- */

static void check_diff(const ddbst_model *old_model,
                       const ddbst_model *new_model) {
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error err;
  int worst = ddbst_model_diff(old_model, new_model, 0, out, &err);
  assert_int_equal(worst, DDBST_CHANGE_REWRITE);
  /* the class of each change the proof is made of, in the diff's order */
  static const char *const expected[] = {
      "\"class\":\"backfill\",\"what\":\"table.indexes.GSI3\"",
      "\"class\":\"cleanup\",\"what\":\"table.indexes.GSI2\"",
      "\"class\":\"backfill\",\"what\":\"entities.Account.attributes.region\"",
      ("\"class\":\"rewrite\",\"what\":\"entities.Order.attributes.placedAt."
       "precision\""),
      "\"class\":\"rewrite\",\"what\":\"entities.Order.key.sk\"",
      "\"class\":\"rewrite\",\"what\":\"entities.Order.indexes.GSI1.sk\"",
      "\"class\":\"backfill\",\"what\":\"patterns.openTicketsByAssignee\"",
      "\"class\":\"free\",\"what\":\"patterns.ticketsByPriority\"",
  };
  const char *at = ddbst_buf_data(out);
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    const char *found = strstr(at, expected[i]);
    if (!found)
      fail_msg("the diff lacks %s (in this order): %s", expected[i],
               ddbst_buf_data(out));
    at = found;
  }
  /* and nothing else but the description */
  size_t changes = 0;
  for (const char *p = ddbst_buf_data(out); (p = strstr(p, "\"class\":")); p++)
    changes++;
  assert_int_equal(changes, 9);
  ddbst_buf_free(out);
}

/* ---- the run ---- */

static int scan_step(const ddbst_model *old_model,
                     const ddbst_model *new_model) {
  ddbst_migration *m = NULL;
  ddbst_error err;
  assert_int_equal(ddbst_migration_new(old_model, new_model, 0, &m, &err), 0);
  int step = -1;
  for (int i = 0; i < ddbst_migration_step_count(m); i++)
    if (ddbst_migration_step(m, i, NULL) == DDBST_STEP_SCAN) step = i;
  ddbst_migration_free(m);
  assert_true(step >= 0);
  return step;
}

/* Runs the driver until a third of the items are scanned, kills it
 * (SIGKILL: no chance to save anything more) and checks its state file is
 * whole. */
static void run_and_kill(itest_fixture *f, int scan, int64_t items) {
  char state_path[128], why[256];
  path_of(state_path, sizeof state_path, "migrate.state");
  static migrate_state st;
  pid_t pid = start_driver(f, "migrate.state", "driver1.out");
  double deadline = now_s() + 300;
  for (;;) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    int done = waitpid(pid, NULL, WNOHANG);
    if (done == pid) {
      show("driver1.out");
      fail_msg("%s", "the driver ended before it could be killed");
    }
    if (state_load(state_path, &st, why, sizeof why) == 1 && st.step == scan) {
      int64_t scanned = 0;
      for (int s = 0; s < st.segments; s++) scanned += st.seg[s].scanned;
      if (scanned >= items / 3) break;
    }
    if (now_s() > deadline) {
      kill(pid, SIGKILL);
      show("driver1.out");
      fail_msg("%s", "the driver did not get a third through in 5 minutes");
    }
  }
  assert_int_equal(kill(pid, SIGKILL), 0);
  assert_int_equal(exit_status(pid), 128 + SIGKILL);
  if (state_load(state_path, &st, why, sizeof why) != 1)
    fail_msg("after the kill: %s", why);
  int64_t scanned = 0, open = 0;
  for (int s = 0; s < st.segments; s++)
    scanned += st.seg[s].scanned, open += !st.seg[s].done;
  printf("driver killed at step %d: %lld items scanned, %lld of %d segments "
         "open\n",
         st.step + 1, (long long)scanned, (long long)open, st.segments);
  assert_int_equal(st.step, scan);
  assert_true(open > 0);
}

static void finish(itest_fixture *f, const char *state, const char *out) {
  pid_t pid = start_driver(f, state, out);
  int rc = exit_status(pid);
  if (rc != 0) {
    show(out);
    fail_msg("the driver exited %d", rc);
  }
}

static void test_migration(void **state) {
  (void)state;
  int accounts = mig_accounts();
  int64_t items = (int64_t)accounts * MIG_PER_ACCOUNT;
  itest_fixture *f = itest_open(OLD_MODEL, "migrate");
  assert_non_null(f);
  ddbst_model *old_model = f->model, *new_model = NULL;
  ddbst_load_options o = {.size = sizeof o, .table_name = f->table};
  assert_int_equal(
      ddbst_model_load_file(NEW_MODEL, &o, &new_model, &f->err), 0);
  check_diff(old_model, new_model);

  double t0 = now_s();
  load(f, accounts);
  printf("loaded %lld items under the OLD model in %.1f s\n",
         (long long)items, now_s() - t0);

  snprintf(dir, sizeof dir, "/tmp/ddbst-migrate-XXXXXX");
  assert_non_null(mkdtemp(dir));
  char p[128];
  path_of(p, sizeof p, "cursor.key");
  FILE *key = fopen(p, "w");
  assert_non_null(key);
  fputs("1b2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809\n",
        key);
  fclose(key);

  /* the service, writing under the NEW model from now on */
  char log_path[128], seed[32];
  path_of(log_path, sizeof log_path, "writer.log");
  snprintf(seed, sizeof seed, "%ld", (long)getpid());
  char *writer_argv[] = {(char *)self_path, "writer", f->table, log_path, seed,
                         NULL};
  pid_t writer = spawn(writer_argv, "writer.out");
  while (lines_of("writer.log") < 20) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (waitpid(writer, NULL, WNOHANG) == writer) {
      show("writer.out");
      fail_msg("%s", "the writer stopped");
    }
  }

  t0 = now_s();
  run_and_kill(f, scan_step(old_model, new_model), items);
  size_t writes_before_resume = lines_of("writer.log");
  finish(f, "migrate.state", "driver2.out");
  double took = now_s() - t0;
  if (!has_line("driver2.out", "resuming from") ||
      !has_lines("driver2.out", "scan pass done: ", " refused=0 ") ||
      !has_lines("driver2.out", "verify pass done: ", " problems=0") ||
      !has_line("driver2.out", "migration done")) {
    show("driver2.out");
    fail_msg("%s", "the resumed driver did not say it resumed and finished "
                   "with no refusal and no problem");
  }

  kill(writer, SIGTERM);
  int wrc = exit_status(writer);
  show("writer.out");
  if (wrc != 0) fail_msg("the writer exited %d", wrc);
  size_t writes = lines_of("writer.log");
  printf("migrated in %.1f s (killed once) while the writer made %zu writes "
         "(%zu before the resume)\n",
         took, writes, writes_before_resume);
  show("driver2.out");

  /* the oracle: the initial items and the writer's log */
  mig_store *oracle = mig_store_new(new_model, accounts);
  assert_non_null(oracle);
  FILE *log = fopen(log_path, "r");
  assert_non_null(log);
  char line[4096], why[512];
  while (fgets(line, sizeof line, log))
    if (mig_store_apply(oracle, line, why, sizeof why))
      fail_msg("the writer's log: %s", why);
  fclose(log);

  f->model = new_model; /* what is read now is read by the NEW model */
  ddbst_item_free(f->item);
  f->item = ddbst_item_new(new_model, 0);
  mig_check_table(f, oracle);
  mig_check_patterns(f, oracle);
  assert_int_equal(mig_verify_all(f, old_model), 0);
  printf("verify: no problem\n");

  /* GSI2 is gone */
  char describe[256];
  snprintf(describe, sizeof describe, "{\"TableName\":\"%s\"}", f->table);
  assert_int_equal(itest_send_json(f, "DescribeTable", describe), 200);
  assert_null(strstr(itest_client_body(f->client), "\"GSI2\""));
  assert_non_null(strstr(itest_client_body(f->client), "\"GSI3\""));

  /* the plan run again from the start writes nothing */
  finish(f, "again.state", "driver3.out");
  if (!has_lines("driver3.out", "scan pass done: ", " migrated=0 ")) {
    show("driver3.out");
    fail_msg("%s", "a second run of the plan wrote items");
  }
  printf("a second run of the plan: nothing to write\n");

  mig_store_free(oracle);
  f->model = old_model;
  ddbst_item_free(f->item);
  f->item = ddbst_item_new(old_model, 0);
  ddbst_model_free(new_model);
  assert_int_equal(itest_close(f), 0);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "writer"))
    return mig_writer_main(argv[2], argv[3], strtoull(argv[4], NULL, 10));
  if (itest_should_skip(argv[0])) return ITEST_SKIP;
  if (argc != 2) {
    fprintf(stderr, "usage: %s DRIVER (ddbst_example_migrate)\n", argv[0]);
    return 2;
  }
  driver_path = argv[1];
  self_path = "/proc/self/exe";
  static char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) self[n] = '\0', self_path = self;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_migration)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
