/* Hashing for the library's lookup tables: FNV-1a, and one small
 * open-addressing set that finds entries by a string key. */
#ifndef DDBST_BASE_HASH_H
#define DDBST_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/internal.h"

/* FNV-1a, 32 bits: keys here are short (attribute names, item keys) and a
 * table takes its index from the low bits. */
static inline uint32_t ddbst__fnv1a(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

/* A set of entries (uint32 indices into storage its owner keeps) found by a
 * string key the owner keeps too, so the set holds no text: linear probing
 * over a power-of-two table kept at most half full. A slot is taken when
 * its stamp is the set's: ddbst__strset_clear empties the set by moving to
 * the next stamp, so a set emptied per item costs nothing per item. */
typedef struct ddbst__strslot {
  uint32_t stamp;
  uint32_t entry;
} ddbst__strslot;

typedef struct ddbst__strset {
  ddbst__strslot *slots;
  uint32_t cap;   /* a power of two, or 0 before the first reserve */
  uint32_t count; /* entries since the last clear */
  uint32_t stamp; /* of the taken slots; never 0 */
} ddbst__strset;

/* The key of an entry, from its owner. */
typedef struct ddbst__strkey {
  const char *s;
  size_t n;
} ddbst__strkey;
typedef ddbst__strkey (*ddbst__strset_key_fn)(const void *owner,
                                              uint32_t entry);

/* An empty set with no table. */
static inline void ddbst__strset_init(ddbst__strset *set) {
  memset(set, 0, sizeof *set);
  set->stamp = 1;
}

/* Grows the table for `count` entries (ddbst__strset_reserve). */
int ddbst__strset_grow(ddbst__strset *set, const ddbst_allocator *a,
                       uint32_t count, uint32_t min_cap,
                       ddbst__strset_key_fn key_of, const void *owner);

/* Room for `count` entries: the table grows to keep them at most half of
 * it, starting at `min_cap` (a power of two), and the entries move into
 * the new table. 0, or DDBST_ENOMEM with the set as it was. */
static inline int ddbst__strset_reserve(ddbst__strset *set,
                                        const ddbst_allocator *a,
                                        uint32_t count, uint32_t min_cap,
                                        ddbst__strset_key_fn key_of,
                                        const void *owner) {
  if (count <= set->cap / 2) return 0;
  return ddbst__strset_grow(set, a, count, min_cap, key_of, owner);
}

void ddbst__strset_release(ddbst__strset *set, const ddbst_allocator *a);

static inline int ddbst__strset_taken(const ddbst__strset *set,
                                      const ddbst__strslot *slot) {
  return slot->stamp == set->stamp;
}

/* The slot of the entry whose key is s[0..n), or the free slot where it
 * would go (not ddbst__strset_taken); NULL when the set has no table.
 * Inline, with `key_of` a function the compiler sees: lookups on the hot
 * path (every attribute of a response) then make no call. */
static inline ddbst__strslot *ddbst__strset_find(const ddbst__strset *set,
                                                 const char *s, size_t n,
                                                 ddbst__strset_key_fn key_of,
                                                 const void *owner) {
  if (!set->cap) return NULL;
  uint32_t mask = set->cap - 1;
  for (uint32_t i = ddbst__fnv1a(s, n) & mask;; i = (i + 1) & mask) {
    ddbst__strslot *slot = &set->slots[i];
    if (slot->stamp != set->stamp) return slot;
    ddbst__strkey k = key_of(owner, slot->entry);
    if (k.n == n && memcmp(k.s, s, n) == 0) return slot;
  }
}

/* Takes free `slot` (from ddbst__strset_find) for `entry`; the caller has
 * reserved room for it. */
static inline void ddbst__strset_put(ddbst__strset *set, ddbst__strslot *slot,
                                     uint32_t entry) {
  slot->stamp = set->stamp;
  slot->entry = entry;
  set->count++;
}

/* Frees taken `slot`, moving the entries probed past it so that each is
 * still found. */
void ddbst__strset_remove(ddbst__strset *set, ddbst__strslot *slot,
                          ddbst__strset_key_fn key_of, const void *owner);

/* Forgets every entry, keeping the table. */
static inline void ddbst__strset_clear(ddbst__strset *set) {
  set->count = 0;
  if (++set->stamp == 0) { /* stamps start again: no old slot may match */
    if (set->slots) memset(set->slots, 0, set->cap * sizeof *set->slots);
    set->stamp = 1;
  }
}

#endif
