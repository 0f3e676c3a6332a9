/* A server loads its model and cursor keys, then forks workers while its
 * own threads go on: a lock another thread held at the fork must be free in
 * the child, and what must differ between processes (ULID randomness) must
 * differ. Each case holds a lock on purpose while it forks, so the outcome
 * does not depend on timing. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/forksafe.h"
#include "model/model.h"
#include "support.h"

#define NOW 1773478800000000LL

/* A thread that takes `mutex`, says so, holds it 100 ms and lets go: a
 * fork() started meanwhile must wait for it (forksafe.c), not copy it held. */
typedef struct holder {
  pthread_mutex_t *mutex;
  pthread_mutex_t state;
  pthread_cond_t taken_cond;
  int taken;
  pthread_t thread;
} holder;

static void *hold(void *arg) {
  holder *h = arg;
  pthread_mutex_lock(h->mutex);
  pthread_mutex_lock(&h->state);
  h->taken = 1;
  pthread_cond_signal(&h->taken_cond);
  pthread_mutex_unlock(&h->state);
  struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, NULL);
  pthread_mutex_unlock(h->mutex);
  return NULL;
}

static void start_holding(holder *h, pthread_mutex_t *mutex) {
  memset(h, 0, sizeof *h);
  h->mutex = mutex;
  pthread_mutex_init(&h->state, NULL);
  pthread_cond_init(&h->taken_cond, NULL);
  assert_int_equal(pthread_create(&h->thread, NULL, hold, h), 0);
  pthread_mutex_lock(&h->state);
  while (!h->taken) pthread_cond_wait(&h->taken_cond, &h->state);
  pthread_mutex_unlock(&h->state);
}

static void stop_holding(holder *h) {
  pthread_join(h->thread, NULL);
  pthread_cond_destroy(&h->taken_cond);
  pthread_mutex_destroy(&h->state);
}

/* The child's exit status; a child stuck for 5 s is killed and fails. */
static int child_status(pid_t pid) {
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static void registered_lock_is_free_in_the_child(void **state) {
  (void)state;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  ddbst__fork_lock node;
  memset(&node, 0, sizeof node);
  int before = ddbst__fork_lock_count();
  assert_int_equal(ddbst__fork_lock_add(&node, &mutex), 0);
  assert_int_equal(ddbst__fork_lock_count(), before + 1);
  holder h;
  start_holding(&h, &mutex);
  pid_t pid = fork();
  if (pid == 0) _exit(pthread_mutex_trylock(&mutex) == 0 ? 0 : 1);
  assert_int_equal(child_status(pid), 0);
  stop_holding(&h);
  ddbst__fork_lock_remove(&node);
  ddbst__fork_lock_remove(&node); /* a second time: ignored */
  assert_int_equal(ddbst__fork_lock_count(), before);
  pthread_mutex_destroy(&mutex);
}

/* Models and keyrings register their locks, and take them back on free. */
static void models_and_keyrings_register(void **state) {
  (void)state;
  int before = ddbst__fork_lock_count();
  ddbst_model *m = load_example("examples/saas/model.json");
  assert_int_equal(ddbst__fork_lock_count(), before + 1); /* ULIDs */
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  assert_non_null(keys);
  assert_int_equal(ddbst__fork_lock_count(), before + 3); /* nonces, opening */
  ddbst_cursor_keys_free(keys);
  ddbst_model_free(m);
  assert_int_equal(ddbst__fork_lock_count(), before);
}

/* A Put of an Event generates its eventId: the ULID of `now_us`. */
static void new_ulid(ddbst_model *m, ddbst_item *it, char out[27]) {
  ddbst_item_reset(it, ddbst_model_entity(m, "Event"));
  set(it, "projectId", "p1");
  set(it, "ts", "2026-03-14T09:00:00Z");
  ddbst_buf *body = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_put_request(it, 0, NOW, body, NULL),
                   DDBST_OP_PUT_ITEM);
  ddbst_buf_free(body);
  const char *v;
  size_t n;
  assert_int_equal(ddbst_item_get(it, ddbst_model_attribute(m, 3, "eventId"),
                                  &v, &n),
                   1);
  assert_int_equal(n, 26);
  memcpy(out, v, 27);
}

static void ulids_in_a_child_while_a_thread_makes_one(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_item *it = ddbst_item_new(m, ddbst_model_entity(m, "Event"));
  char parent_first[27], parent_next[27], child_next[27];
  new_ulid(m, it, parent_first);
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  holder h; /* another thread in the middle of making a ULID */
  start_holding(&h, &m->ulid->lock);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(5);
    char u[27];
    new_ulid(m, it, u); /* the same millisecond as the parent's */
    _exit(write(fds[1], u, 26) == 26 ? 0 : 1);
  }
  assert_int_equal(child_status(pid), 0);
  stop_holding(&h);
  assert_int_equal(read(fds[0], child_next, 26), 26);
  child_next[26] = '\0';
  close(fds[0]);
  close(fds[1]);
  new_ulid(m, it, parent_next);
  /* the parent counts on in its millisecond; the child drew anew, so the
   * two never make the same ULID */
  assert_string_not_equal(child_next, parent_next);
  assert_string_not_equal(child_next, parent_first);
  assert_true(strcmp(parent_next, parent_first) > 0);
  assert_memory_equal(child_next, parent_first, 10); /* same time part */
  ddbst_item_free(it);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(registered_lock_is_free_in_the_child),
      cmocka_unit_test(models_and_keyrings_register),
      cmocka_unit_test(ulids_in_a_child_while_a_thread_makes_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
