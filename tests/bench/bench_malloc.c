/* Counts every heap allocation in the process, so the bench can show that
 * nothing allocates behind the ddbst_allocator hooks (a dependency calling
 * malloc itself would). glibc lets a program define malloc and friends and
 * forward to its __libc_* entry points; the bench is single-threaded. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *ptr);

static uint64_t process_allocs;

uint64_t bench_process_allocs(void);
uint64_t bench_process_allocs(void) { return process_allocs; }

void *malloc(size_t size) {
  process_allocs++;
  return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
  process_allocs++;
  return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size) {
  process_allocs++;
  return __libc_realloc(ptr, size);
}

void free(void *ptr) { __libc_free(ptr); }

void *aligned_alloc(size_t align, size_t size) {
  process_allocs++;
  return __libc_memalign(align, size);
}

void *memalign(size_t align, size_t size) {
  process_allocs++;
  return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size) {
  process_allocs++;
  void *p = __libc_memalign(align, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
