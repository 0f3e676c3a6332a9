/* What a transaction or a batch holds, for an owner that keeps one from
 * use to use (the JSON entry's scratch, ffi/session.c) and frees it rather
 * than keep what one huge request made it grow to. */
#ifndef DDBST_REQUEST_HELD_H
#define DDBST_REQUEST_HELD_H

#include "base/internal.h"

/* The bytes of the largest piece of memory it holds (a buffer, an array,
 * a set's slots). */
size_t ddbst__txn_held(const ddbst_txn *t);
size_t ddbst__batch_held(const ddbst_batch *b);

#endif
