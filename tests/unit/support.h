/* Helpers shared by the unit tests: loading models, an allocator that fails
 * on demand and counts what is still allocated, and guard-page copies. */
#ifndef DDBST_TEST_SUPPORT_H
#define DDBST_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ddbst.h"

/* A model from a file under the source tree ("examples/saas/model.json");
 * fails the test when it does not load. */
ddbst_model *load_example(const char *relative_path);
/* The same through allocator `alloc` (NULL: malloc's). */
ddbst_model *load_example_with(const char *relative_path,
                               const ddbst_allocator *alloc);

/* The contents of a file under the source tree, NUL-terminated, trailing
 * newlines dropped (captured bodies end with one that is no part of them);
 * malloc'd. Fails the test when it cannot be read. */
char *read_source(const char *relative_path, size_t *len);
/* read_source of tests/data/responses/<name>: DynamoDB's captured answers. */
char *read_response(const char *name, size_t *len);

/* A model from JSON text; fails the test when it does not load. */
ddbst_model *load_text(const char *json);

/* Loading `json` must fail: returns the code and fills `err`. */
int load_fails(const char *json, ddbst_error *err);

/* Sets attribute `name` of `item` from text; fails the test on error. */
void set(ddbst_item *item, const char *name, const char *value);
/* The same, returning the status and filling `err`. */
int try_set(ddbst_item *item, const char *name, const char *value,
            ddbst_error *err);

/* Counting allocator: fail_at = N makes the Nth allocation from now fail
 * (0: never). live counts blocks not yet freed. */
typedef struct counting_alloc {
  ddbst_allocator hooks;
  long calls;
  long fail_at;
  long live;
} counting_alloc;
void counting_alloc_init(counting_alloc *c);

/* Over-read traps (picohttpparser's way): a copy of s[0..n) that ends
 * exactly where a PROT_NONE page begins, so reading one byte past its end
 * faults. `n` may be 0 (the pointer is then the guard page itself). Free
 * with guard_free; fails the test when the pages cannot be had. */
char *guard_copy(const void *s, size_t n);
void guard_free(char *p);

#endif
