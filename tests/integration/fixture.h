/* What the integration test programs share: a table of their own in DynamoDB
 * Local, created from ddbst's CreateTable body; requests built by ddbst and
 * sent by the libcurl client; responses read back with YAJL's tree API; and
 * assertions on exactly which items came back, in which order.
 *
 * Every request goes through itest_send, whatever the operation, so tests of
 * other writes (TransactWriteItems for unique constraints, BatchWriteItem
 * chunks) need no new plumbing: build the body into itest_body(f), pass the
 * builder's return to itest_ok or itest_refused, and read f->response (for
 * example its CancellationReasons). */
#ifndef DDBST_ITEST_FIXTURE_H
#define DDBST_ITEST_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "client.h"
#include "ddbst.h"

/* The instant of every write (2026-03-20T00:00:00Z): defaults such as
 * createdAt "now" and updatedAt are the same on every run. */
#define ITEST_NOW_US INT64_C(1773964800000000)

typedef struct itest_fixture {
  itest_client *client;
  ddbst_model *model;
  ddbst_item *item;   /* the values of the next request */
  ddbst_buf *body;    /* the last request body */
  ddbst_error err;    /* the last builder's error */
  long status;        /* the last HTTP status */
  yajl_val response;  /* the last response body, parsed (NULL if not JSON) */
  /* the pages of the last Query or Scan, and their Items in one array */
  yajl_val pages[32];
  size_t npages;
  struct yajl_val_s *items;
  ddbst_cursor_keys *keys; /* itest_open_sealed's keyring, or NULL */
  char table[128];    /* this fixture's own table */
  char text[8192];    /* what itest_labels returns */
} itest_fixture;

/* 1 when DDBST_ENDPOINT is unset, after saying so on stderr: main() then
 * returns ITEST_SKIP, which ctest reports as skipped, not failed. */
int itest_should_skip(const char *program);

/* Loads `model_file` (a path under the source tree) with the table name
 * overridden to a name no other program or fixture uses
 * ("ddbst-it-<tag>-<pid>-<n>"), creates that table from
 * ddbst_create_table_request and waits until it and its indexes are
 * ACTIVE. NULL, with the reason on stderr, on failure. */
itest_fixture *itest_open(const char *model_file, const char *tag);

/* itest_open, with f->keys a keyring of one key made from `seed` (a
 * program's own, so that no other program's cursor opens) to seal the
 * cursors of the test's pages. */
itest_fixture *itest_open_sealed(const char *model_file, const char *tag,
                                 uint8_t seed);

/* Deletes the table and frees the fixture and its keyring (NULL is
 * ignored). 0, or -1 when DynamoDB did not delete the table. */
int itest_close(itest_fixture *f);

/* cmocka setup and teardown that give each test a table of its own, for
 * tests that change data others read. */
int itest_setup_saas(void **state);
int itest_setup_blog(void **state);
int itest_teardown(void **state);

/* cmocka gives a group setup's state to every test of the group, over the
 * tests' own initial_state: a group whose tests carry their case there
 * keeps its fixture with itest_group_fixture (which returns `f`) and
 * shares itest_group_teardown, which closes it. One at a time. */
itest_fixture *itest_group_fixture(itest_fixture *f);
int itest_group_teardown(void **state);

/* ---- values ---- */

/* snprintf into `out` (`cap` bytes) that fails the test when the text does
 * not fit, rather than sending a key or value cut short (gcc cannot bound a
 * string read from an element of an array of structs, and warns of the
 * unchecked snprintf). ITEST_FORMAT takes `out`'s size itself: an array. */
void itest_format(char *out, size_t cap, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
#define ITEST_FORMAT(out, ...) itest_format((out), sizeof(out), __VA_ARGS__)

/* Makes f->item a fresh item of `entity` holding the "name=value" pairs
 * given (ITEST_VALUES adds the NULL that ends the list); fails the test when
 * the entity or a value is refused. Returns f->item. */
ddbst_item *itest_values_(itest_fixture *f, const char *entity, ...);
#define ITEST_VALUES(f, ...) itest_values_((f), __VA_ARGS__, (const char *)0)

/* The index of attribute `name` of f->item's entity; fails the test when
 * there is none. */
int itest_attr(itest_fixture *f, const char *name);

/* A sort-key condition on attribute `name` of f->item's entity: `value2` is
 * BETWEEN's upper bound (NULL otherwise). DDBST_SK_NONE: no condition
 * (`name` unused). */
ddbst_query itest_condition(itest_fixture *f, int condition, const char *name,
                            const char *value, const char *value2);

/* The oracle of a condition on text: whether `x` is in the range
 * `condition` (DDBST_SK_*, NONE: always) with `value` and `value2` says, as
 * DynamoDB compares strings (byte by byte). With `partial`, a bound stands
 * for every value it begins (a partial timestamp, "2026-02", takes the
 * whole month); without it, bounds are whole values. */
int itest_text_holds(const char *x, int condition, const char *value,
                     const char *value2, int partial);

/* ---- requests ---- */

/* Empties and returns the body buffer, for a builder to write into. */
ddbst_buf *itest_body(itest_fixture *f);

/* Sends the body a builder just wrote: `op` is that builder's return (a
 * DDBST_OP_* code; a negative code fails the test with the builder's error).
 * Returns the HTTP status; f->response is the parsed answer. */
long itest_send(itest_fixture *f, int op);

/* Sends `body`, a JSON text the test wrote itself (not a ddbst builder's:
 * a GetItem of a guard item, the UnprocessedItems of a BatchWriteItem sent
 * again), as DynamoDB_20120810.`operation`. f->body is left as it was.
 * Returns the HTTP status; f->response is the parsed answer. */
long itest_send_json(itest_fixture *f, const char *operation,
                     const char *body);

/* itest_send that DynamoDB must accept (HTTP 200). */
void itest_ok(itest_fixture *f, int op);

/* itest_send that DynamoDB must refuse: HTTP 400 with `exception`
 * ("ConditionalCheckFailedException") as the error's __type. */
void itest_refused(itest_fixture *f, int op, const char *exception);

/* itest_send that DynamoDB must refuse because a condition of the write did
 * not hold: ConditionalCheckFailedException for a single write; for a
 * TransactWriteItems (the shape of writes guarded by unique constraints),
 * TransactionCanceledException with a ConditionalCheckFailed reason. */
void itest_condition_failed(itest_fixture *f, int op);

/* PutItem with DDBST_CREATE of the pairs given, which must succeed. */
void itest_create_(itest_fixture *f, const char *entity, ...);
#define ITEST_CREATE(f, ...) itest_create_((f), __VA_ARGS__, (const char *)0)

/* ---- reads ---- */

/* GetItem (consistent) of the item whose key facets f->item holds: its Item,
 * or NULL when there is no such item. Valid until the next request. */
yajl_val itest_get(itest_fixture *f);

/* Query for `pattern` with the values in f->item and condition `q` (NULL:
 * the whole key space). Fails the test unless DynamoDB answers 200. Follows
 * LastEvaluatedKey to the last page, so that "exactly these items" is never
 * "the first page of them" (a pattern capped at one item, such as a lookup
 * by email, still gets a LastEvaluatedKey with its one item). Returns the
 * Items of every page in order, valid until the next Query or Scan. */
yajl_val itest_query(itest_fixture *f, const char *pattern,
                     const ddbst_query *q);

/* itest_query that asks for each next page with the cursor ddbst made from
 * the page before (ddbst_page_next_cursor, sealed with `keys`; NULL for a model
 * with unsealed cursors), checking that each request's ExclusiveStartKey is
 * exactly the LastEvaluatedKey before it. Returns the Items of every page in
 * order, as itest_query does. */
yajl_val itest_query_cursors(itest_fixture *f, const char *pattern,
                             const ddbst_query *q,
                             const ddbst_cursor_keys *keys);

/* Sends the first page of `pattern` for the values in f->item (condition
 * `q`, NULL: none) and seals its next cursor into `cursor` with f->keys.
 * Fails the test unless the page holds exactly `count` items and has a
 * next one. Returns the pattern's index. */
int itest_first_cursor(itest_fixture *f, const char *pattern,
                       const ddbst_query *q, int count, ddbst_buf *cursor);

/* A Query of `pattern` for the values in f->item starting after `cursor`
 * must be refused: DDBST_ECURSOR at "cursor" with exactly `message`, and
 * no body. */
void itest_cursor_refused(itest_fixture *f, const char *pattern,
                          const ddbst_buf *cursor, const char *message);

/* Every item of a secondary index: the one way to prove an item is absent
 * from a sparse index. A Scan is hand-written here on purpose: an oracle
 * that owes nothing to ddbst's own Scan builder (test_scan.c tests that).
 * Returns Items, as itest_query does. */
yajl_val itest_scan_index(itest_fixture *f, const char *index);

/* Every item of the table itself (a Scan of the base table, all pages): the
 * one way to prove that a write left nothing else behind, guard items
 * included. Returns Items, as itest_query does. */
yajl_val itest_scan_table(itest_fixture *f);

/* ---- assertions ---- */

/* The string value ("S") of attribute `name` of a DynamoDB item, or NULL. */
const char *itest_s(yajl_val item, const char *name);
/* The text of a number value ("N"), or NULL. */
const char *itest_n(yajl_val item, const char *name);

/* Attribute `name` of each item, joined by spaces ("C1 C2 D"): what the
 * tests compare, so that a failure shows the items and their order. An item
 * without it shows as "<SK of the item>". Valid until the next call. */
const char *itest_labels(itest_fixture *f, yajl_val items, const char *name);

/* The labels of `items` must be exactly `expected`, in that order; `what`
 * names the check in the failure message, which shows the request body. */
void itest_expect(itest_fixture *f, yajl_val items, const char *name,
                  const char *expected, const char *what);

/* `item` must have exactly the attributes named in `names` (space-separated,
 * any order): no key, index key or attribute more or less. */
void itest_expect_attributes(itest_fixture *f, yajl_val item,
                             const char *names);

/* The string attribute `name` of `item` must be `expected` (NULL: absent). */
void itest_expect_s(yajl_val item, const char *name, const char *expected);
/* The number attribute `name` of `item` must be `expected` (NULL: absent). */
void itest_expect_n(yajl_val item, const char *name, const char *expected);

/* What ddbst says of a cursor made for another partition (which it cannot
 * tell from an altered one), and of one made for another pattern. */
#define ITEST_MSG_NO_OPEN                                                   \
  "the cursor does not open: it was made for another pattern, index, sort " \
  "order or partition, or it was altered"
#define ITEST_MSG_MADE_FOR(made, asked)                                     \
  "the cursor was made for pattern " made ", not " asked ": send it with " \
  "the query it came from, or start " asked " from its first page"

#endif
