/* The transaction, batch and stream reader an op takes from the call's
 * scratch (kept in the session by session.c, as the item and the page
 * are), so that a warm transact, batchGet, batchWrite or stream call
 * allocates only its answer. Each is emptied when taken: what it held
 * belongs to the request that filled it. */
#include "ffi/ffi.h"

ddbst_txn *ddbst__ffi_txn_new(call *c) {
  ddbst_txn *t = c->spare_txn;
  c->spare_txn = NULL;
  if (!t) return ddbst_txn_new(c->m);
  ddbst_txn_reset(t);
  return t;
}

void ddbst__ffi_txn_free(call *c, ddbst_txn *t) {
  if (t && !c->spare_txn)
    c->spare_txn = t;
  else
    ddbst_txn_free(t);
}

ddbst_batch *ddbst__ffi_batch_new(call *c) {
  ddbst_batch *b = c->spare_batch;
  c->spare_batch = NULL;
  if (!b) return ddbst_batch_new(c->m);
  ddbst_batch_reset(b);
  return b;
}

void ddbst__ffi_batch_free(call *c, ddbst_batch *b) {
  if (b && !c->spare_batch)
    c->spare_batch = b;
  else
    ddbst_batch_free(b);
}

ddbst_stream *ddbst__ffi_stream_new(call *c) {
  ddbst_stream *s = c->spare_stream;
  c->spare_stream = NULL;
  return s ? s : ddbst_stream_new(c->m); /* each parse forgets the last */
}

void ddbst__ffi_stream_free(call *c, ddbst_stream *s) {
  if (s && !c->spare_stream)
    c->spare_stream = s;
  else
    ddbst_stream_free(s);
}
