/* ddbst's locks across fork(). A child inherits every mutex as it was at
 * the fork, and one that another thread of the parent held then stays
 * locked for good in the child, whose only thread is the one that forked.
 * A server that loads its model and cursor keys and then forks workers is
 * supported (docs/security.md), so every lock such a worker may take (a
 * keyring's, a model's ULID state) is registered here: a pthread_atfork
 * handler takes them all before fork() and releases them on both sides
 * after, so the child starts with each one free and its state whole. */
#ifndef DDBST_FORKSAFE_H
#define DDBST_FORKSAFE_H

#include <pthread.h>

/* A registered lock; lives in its owner, so registering never allocates. */
typedef struct ddbst__fork_lock {
  pthread_mutex_t *mutex;
  struct ddbst__fork_lock *prev, *next;
} ddbst__fork_lock;

/* Registers `mutex` (initialised, not held by the caller) through `node`;
 * DDBST_ENOMEM when the fork handlers could not be installed. */
int ddbst__fork_lock_add(ddbst__fork_lock *node, pthread_mutex_t *mutex);

/* Unregisters `node`; before its mutex is destroyed. A node never added,
 * or already removed, is ignored. */
void ddbst__fork_lock_remove(ddbst__fork_lock *node);

/* Which process this is, as a count of fork()s the handlers saw: state
 * that must differ between processes (nonce prefixes, ULID randomness)
 * is drawn again when it changes, without a getpid() system call per use.
 * A child of _Fork() or a raw clone runs no handlers and is not covered
 * (docs/security.md, "Not defended"). */
unsigned long ddbst__fork_generation(void);

/* How many locks are registered: for tests. */
int ddbst__fork_lock_count(void);

#endif
