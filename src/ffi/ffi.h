/* What the files of the JSON entry share: the call being answered, the
 * request readers, the answer pieces and the item kinds. session.c is the
 * entry; read.c reads requests; answer.c writes answer pieces; each
 * file named for a group of ops (item_ops.c, ...) maps them onto the typed
 * API. */
#ifndef DDBST_FFI_H
#define DDBST_FFI_H

#include <string.h>

#include "base/internal.h"
#include "json/jw.h"
#include "json/tree.h"

/* One call: the request tree, the answer being written (through `w`, the
 * sticky writer on `out`), scratch text. */
/* 1 when the page holds a Select COUNT answer (response/returns.c). */
int ddbst__page_count_only(const ddbst_page *pg);

typedef struct call {
  const ddbst_allocator *alloc;
  const ddbst_model *m;
  const ddbst_cursor_keys *keys;
  ddbst__arena ar;       /* the request's tree, rewound after the call */
  ddbst__jtree_kept tree; /* the request parse's arrays (session.c) */
  ddbst_buf out;
  ddbst__jw w;
  ddbst_buf tmp;
  ddbst_error err;
  uint32_t txn_flags; /* a transact request's flags for every write in it */
  ddbst_item *spare;  /* an item kept from call to call (session.c) */
  ddbst_page *spare_page; /* and a page */
  ddbst_txn *spare_txn;   /* a transaction, a batch, a stream reader */
  ddbst_batch *spare_batch;
  ddbst_stream *spare_stream;
  ddbst_buf xtmp, xwork;  /* what compiling an expression works in */
} call;

/* An item of `entity` for this call: the session's spare one, reset, when
 * there is one (no allocation), else a new one; NULL when out of memory.
 * ddbst__ffi_item_free gives it back as the spare, or frees it. */
ddbst_item *ddbst__ffi_item_new(call *c, int entity);
void ddbst__ffi_item_free(call *c, ddbst_item *it);

/* A page for this call: the session's spare one when there is one (a
 * parse forgets what it held), else a new one; NULL when out of memory.
 * ddbst__ffi_page_free gives it back as the spare, or frees it. */
ddbst_page *ddbst__ffi_page_new(call *c);
void ddbst__ffi_page_free(call *c, ddbst_page *pg);

/* Likewise a transaction, a batch (each emptied when taken) and a stream
 * reader (spares.c). */
ddbst_txn *ddbst__ffi_txn_new(call *c);
void ddbst__ffi_txn_free(call *c, ddbst_txn *t);
ddbst_batch *ddbst__ffi_batch_new(call *c);
void ddbst__ffi_batch_free(call *c, ddbst_batch *b);
ddbst_stream *ddbst__ffi_stream_new(call *c);
void ddbst__ffi_stream_free(call *c, ddbst_stream *s);
/* The stream op's answer, {"records":[...]}, for an event of 32 KiB or
 * more read into `s` a slice of records at a time (stream_slices.c):
 * returns 0 when it is written, 1 when the event is to be read whole (any
 * shape but {"Records":[...]}, or a slice refused: nothing is written, and
 * the whole parse tells the error). */
int ddbst__ffi_stream_sliced(call *c, ddbst_stream *s, const char *event,
                             size_t len);

/* A session's allocator, model and cursor keys (NULL: none), for the
 * prepared operations (prepared.c) built on it. */
const ddbst_allocator *ddbst__json_alloc(const ddbst_json *s);
const ddbst_model *ddbst__json_model(const ddbst_json *s);
const ddbst_cursor_keys *ddbst__json_keys(const ddbst_json *s);

/* ---- reading the request (read.c) ---- */

/* Fills c->err and returns `code`. */
int ddbst__ffi_fail(call *c, int code, const char *path, const char *fmt, ...)
    DDBST__PRINTF(4, 5);
/* Puts `prefix` before the path of the error in c->err ("items[2]."). */
int ddbst__ffi_prefix_path(call *c, const char *prefix);
/* The refusal of a moved unique guard naming "previous", not the typed
 * API (a prepared operation's: that it cannot carry it). */
void ddbst__ffi_name_previous(ddbst_error *e, int prepared);
/* The typed API's cursor_keys is the session's cursorKeys. */
void ddbst__ffi_keys_path(call *c);

/* Refuses members of `obj` not in `allowed` (NULL-terminated). */
int ddbst__ffi_only(call *c, const ddbst__jnode *obj, const char *what,
                    const char *const *allowed);
/* The member `key` of `obj` into *s (NULL when absent or null), the others
 * likewise; each returns 0 or the error (in c->err). */
int ddbst__ffi_get_string(call *c, const ddbst__jnode *obj, const char *key,
                          int required, const char **s, size_t *n);
int ddbst__ffi_get_bool(call *c, const ddbst__jnode *obj, const char *key,
                        int *b);
int ddbst__ffi_get_int(call *c, const ddbst__jnode *obj, const char *key,
                       int64_t lo, int64_t hi, int *given, int64_t *x);

/* Types whose values the item holds as DynamoDB JSON ({"M":...}), and the
 * types a JSON number is given for: the two sides of the entry agree on
 * them. */
static inline int ddbst__ffi_is_document(const char *type) {
  return !strcmp(type, "list") || !strcmp(type, "map") ||
         !strcmp(type, "string_set") || !strcmp(type, "number_set");
}
static inline int ddbst__ffi_is_numeric(const char *type) {
  return !strcmp(type, "integer") || !strcmp(type, "number") ||
         !strcmp(type, "ttl");
}

/* The attribute `name` of the item's entity, or DDBST_ENOTFOUND at
 * field.name. */
int ddbst__ffi_attribute(call *c, ddbst_item *it, const char *field,
                         const char *name);
/* "remove" and "project": arrays of attribute names, each given to `fn`. */
int ddbst__ffi_apply_names(call *c, ddbst_item *it, const ddbst__jnode *req,
                           const char *field, int (*fn)(ddbst_item *, int));
/* The expression in `field` (a string: the text form; an object or array:
 * the JSON form), compiled for `entity` into *out (NULL when absent). */
int ddbst__ffi_read_expr(call *c, const ddbst__jnode *req, const char *field,
                         int entity, int kind, ddbst_expr **out);
/* "params": each bound on the item (ddbst_item_bind). */
int ddbst__ffi_read_params(call *c, ddbst_item *it, const ddbst__jnode *req);
/* A new item of the request's entity holding everything it gives, its
 * condition, update actions and parameters included. */
int ddbst__ffi_read_item(call *c, const ddbst__jnode *req, ddbst_item **out);
/* The request's "now", or the clock's. */
int64_t ddbst__ffi_now_of(call *c, const ddbst__jnode *req, int *rc);
/* The request's pattern into *pattern (-1 when it names none and may not);
 * returns 0 or the error. */
int ddbst__ffi_pattern_of(call *c, const ddbst__jnode *req, int required,
                          int *pattern);
/* The values of a pattern's (first) entity, for its key facets. */
int ddbst__ffi_pattern_values(call *c, const ddbst__jnode *req, int pattern,
                              ddbst_item **out);

/* ---- answer pieces (answer.c), written through c->w ---- */

/* After a builder `rc` wrote into c->tmp (builders replace their buffer):
 * c->tmp appended to the answer as it is, or `rc` when it failed. */
int ddbst__ffi_append(call *c, int rc);

/* {"code":...,"name":...,"path":...,"message":...} */
void ddbst__ffi_put_error(ddbst__jw *w, const ddbst_error *e);
/* A request's JSON value back to text (for list, map and set values). */
void ddbst__ffi_write_json(ddbst__jw *w, const ddbst__jnode *v);
/* The item's values as a JSON object typed by the model. */
void ddbst__ffi_put_values(call *c, const ddbst_item *it);
/* {"operation":...,"target":...,"body":<c->tmp>, left open for the
 * caller's members and its '}'. */
void ddbst__ffi_open_request(call *c, int op);
/* A page answer's "items" (`n` of them), "count", "hasMore", a Select
 * COUNT's "matched" and "scanned", and "scanned" of any page with
 * `scanned_always` (a scan's); into c->w, inside the caller's object. */
void ddbst__ffi_page_members(call *c, ddbst_page *pg, int n,
                             int scanned_always);
/* "cursor": the next page's, sealed with c->keys at `now`; a failure is
 * c->w's error (cursor_keys named cursorKeys). */
void ddbst__ffi_page_cursor(call *c, ddbst_page *pg, int64_t now);

/* ---- item requests (item_ops.c) ---- */

/* K_CHECK only as an element of a transaction. */
typedef enum { K_GET, K_PUT, K_CREATE, K_UPDATE, K_DELETE, K_CHECK } item_kind;

/* The kind an op name ("get", "put", ...) asks for, or -1. */
int ddbst__ffi_item_kind_of(const char *op);
/* The fields each kind takes: alone, or as an element of a batch or a
 * transaction, whose request gives "now" and "consistent" for them all. */
const char *const *ddbst__ffi_fields_of(item_kind k, int element);
/* DDBST_CONSISTENT_READ, DDBST_UPSERT, ... as the request asks. */
uint32_t ddbst__ffi_flags_of(call *c, const ddbst__jnode *req, item_kind k,
                             int *rc);
/* The transaction of a "transact" request, built into the call's
 * transaction (batch_ops.c); give it back with ddbst__ffi_txn_free. */
int ddbst__ffi_build_txn(call *c, const ddbst__jnode *req, ddbst_txn **out);

/* ---- the ops: each reads its request and writes its answer ---- */

int ddbst__ffi_op_check(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_patterns(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_create_table(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_table(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_cloudformation(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_lint(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_diff(call *c, const ddbst__jnode *req);
/* migratePlan, migrateStep, migrateVerify, migrateWrite (migrate_ops.c) */
int ddbst__ffi_op_migrate_plan(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_migrate_step(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_migrate_verify(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_migrate_write(call *c, const ddbst__jnode *req);
/* An older model from the request's `text_field` (its text) or
 * `file_field` (a path), its table name overridden by `table_field` when
 * given, into *out (NULL when neither is given; free it with
 * ddbst_model_free); errors at the field's path (evolve_ops.c). */
int ddbst__ffi_load_older(call *c, const ddbst__jnode *req,
                          const char *text_field, const char *file_field,
                          const char *table_field, ddbst_model **out);
int ddbst__ffi_op_doc(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_version(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_view(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_view_data(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_keys(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_item_size(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_parse(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_hydrate(call *c, const ddbst__jnode *req); /* hydrate_ops.c */
int ddbst__ffi_op_item(call *c, const ddbst__jnode *req, item_kind k,
                       const char *name);
int ddbst__ffi_op_query(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_batch(call *c, const ddbst__jnode *req, int reads);
int ddbst__ffi_op_transact(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_page(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_explain(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_stream(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_scan(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_scan_page(call *c, const ddbst__jnode *req);
int ddbst__ffi_op_guards(call *c, const ddbst__jnode *req);

#endif
