/* MAP_ANONYMOUS, sysconf: POSIX and BSD, not C11. */
#define _DEFAULT_SOURCE
#include "support.h"
#include "item/item.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

ddbst_model *load_example(const char *rel) {
  return load_example_with(rel, NULL);
}

ddbst_model *load_example_with(const char *rel, const ddbst_allocator *alloc) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, rel);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = alloc;
  ddbst_model *m = NULL;
  ddbst_error err;
  int rc = ddbst_model_load_file(path, &o, &m, &err);
  if (rc) fail_msg("%s: %s: %s", rel, err.path, err.message);
  return m;
}

char *read_source(const char *rel, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
    fail_msg("cannot read %s", path);
  fclose(f);
  b[n] = '\0';
  while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r')) b[--n] = '\0';
  *len = (size_t)n;
  return b;
}

char *read_response(const char *name, size_t *len) {
  char rel[512];
  snprintf(rel, sizeof rel, "tests/data/responses/%s", name);
  return read_source(rel, len);
}

ddbst_model *load_text(const char *json) {
  ddbst_model *m = NULL;
  ddbst_error err;
  int rc = ddbst_model_load(json, strlen(json), NULL, &m, &err);
  if (rc) fail_msg("model did not load: %s: %s", err.path, err.message);
  return m;
}

int load_fails(const char *json, ddbst_error *err) {
  ddbst_model *m = NULL;
  int rc = ddbst_model_load(json, strlen(json), NULL, &m, err);
  if (rc == 0) {
    ddbst_model_free(m);
    fail_msg("the model loaded but should not have");
  }
  assert_null(m);
  return rc;
}

int try_set(ddbst_item *item, const char *name, const char *value,
            ddbst_error *err) {
  const ddbst_model *m = item->m; /* tests may look inside (item.h) */
  int a = ddbst_model_attribute(m, ddbst_item_entity(item), name);
  if (a < 0) fail_msg("no attribute %s", name);
  return ddbst_item_set(item, a, value, strlen(value), err);
}

void set(ddbst_item *item, const char *name, const char *value) {
  ddbst_error err;
  if (try_set(item, name, value, &err))
    fail_msg("setting %s=%s: %s: %s", name, value, err.path, err.message);
}

static void *c_malloc(void *user, size_t n) {
  counting_alloc *c = user;
  c->calls++;
  if (c->fail_at && c->calls == c->fail_at) return NULL;
  void *p = malloc(n);
  if (p) c->live++;
  return p;
}
static void *c_realloc(void *user, void *p, size_t n) {
  counting_alloc *c = user;
  c->calls++;
  if (c->fail_at && c->calls == c->fail_at) return NULL;
  void *q = realloc(p, n);
  if (q && !p) c->live++;
  return q;
}
static void c_free(void *user, void *p) {
  counting_alloc *c = user;
  if (p) c->live--;
  free(p);
}

void counting_alloc_init(counting_alloc *c) {
  memset(c, 0, sizeof *c);
  c->hooks.malloc = c_malloc;
  c->hooks.realloc = c_realloc;
  c->hooks.free = c_free;
  c->hooks.user = c;
}

/* Live guard mappings, so that guard_free needs only the pointer. */
enum { GUARDS_MAX = 64 };
static struct {
  char *user, *map;
  size_t len;
} guards[GUARDS_MAX];

char *guard_copy(const void *s, size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t data = (n + page - 1) / page * page;
  size_t len = data + page;
  char *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) fail_msg("guard_copy: mmap of %zu bytes", len);
  if (mprotect(map + data, page, PROT_NONE))
    fail_msg("guard_copy: mprotect");
  char *user = map + data - n;
  if (n) memcpy(user, s, n);
  for (int i = 0; i < GUARDS_MAX; i++)
    if (!guards[i].map) {
      guards[i].user = user;
      guards[i].map = map;
      guards[i].len = len;
      return user;
    }
  fail_msg("guard_copy: more than %d live copies", GUARDS_MAX);
  return NULL;
}

void guard_free(char *p) {
  if (!p) return;
  for (int i = 0; i < GUARDS_MAX; i++)
    if (guards[i].user == p && guards[i].map) {
      munmap(guards[i].map, guards[i].len);
      guards[i].map = NULL;
      return;
    }
  fail_msg("guard_free: %p is no guard copy", (void *)p);
}
