/* The fork handlers and the registry of locks they hold across fork(): see
 * forksafe.h. The one process-wide state of the library, and it only ever
 * describes the process. */
#include <stdatomic.h>

#include "base/forksafe.h"
#include "base/internal.h"

static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static ddbst__fork_lock *first; /* every registered lock, newest first */
static atomic_ulong generation = 1;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_failed;

/* Before fork(): every registered lock, in list order. No ddbst call holds
 * one of these while it waits for another, so the order cannot deadlock. */
static void before_fork(void) {
  pthread_mutex_lock(&registry);
  for (ddbst__fork_lock *l = first; l; l = l->next)
    pthread_mutex_lock(l->mutex);
}

static void release_all(void) {
  for (ddbst__fork_lock *l = first; l; l = l->next)
    pthread_mutex_unlock(l->mutex);
  pthread_mutex_unlock(&registry);
}

static void after_fork_in_child(void) {
  atomic_fetch_add(&generation, 1);
  release_all(); /* the forking thread took them, and it is this one */
}

static void install(void) {
  install_failed =
      pthread_atfork(before_fork, release_all, after_fork_in_child) != 0;
}

int ddbst__fork_lock_add(ddbst__fork_lock *node, pthread_mutex_t *mutex) {
  pthread_once(&install_once, install);
  if (install_failed) return DDBST_ENOMEM;
  node->mutex = mutex;
  pthread_mutex_lock(&registry);
  node->prev = NULL;
  node->next = first;
  if (first) first->prev = node;
  first = node;
  pthread_mutex_unlock(&registry);
  return 0;
}

void ddbst__fork_lock_remove(ddbst__fork_lock *node) {
  if (!node->mutex) return;
  pthread_mutex_lock(&registry);
  if (node->prev)
    node->prev->next = node->next;
  else
    first = node->next;
  if (node->next) node->next->prev = node->prev;
  pthread_mutex_unlock(&registry);
  node->mutex = NULL;
  node->prev = node->next = NULL;
}

unsigned long ddbst__fork_generation(void) {
  pthread_once(&install_once, install);
  return atomic_load(&generation);
}

int ddbst__fork_lock_count(void) {
  int n = 0;
  pthread_mutex_lock(&registry);
  for (const ddbst__fork_lock *l = first; l; l = l->next) n++;
  pthread_mutex_unlock(&registry);
  return n;
}
