/* The string-keyed set's cold paths (hash.h): growing its table and
 * removing an entry. */
#include "base/hash.h"

/* Puts `entry` into `slots` (a table of `cap` with no entry of that key). */
static void place(ddbst__strslot *slots, uint32_t cap, uint32_t stamp,
                  uint32_t entry, ddbst__strset_key_fn key_of,
                  const void *owner) {
  ddbst__strkey k = key_of(owner, entry);
  uint32_t mask = cap - 1, i = ddbst__fnv1a(k.s, k.n) & mask;
  while (slots[i].stamp == stamp) i = (i + 1) & mask;
  slots[i].stamp = stamp;
  slots[i].entry = entry;
}

int ddbst__strset_grow(ddbst__strset *set, const ddbst_allocator *a,
                       uint32_t count, uint32_t min_cap,
                       ddbst__strset_key_fn key_of, const void *owner) {
  if (count > UINT32_MAX / 4) return DDBST_ENOMEM;
  uint32_t cap = set->cap ? set->cap : min_cap;
  while (cap / 2 < count) cap *= 2;
  ddbst__strslot *slots = ddbst__malloc(a, (size_t)cap * sizeof *slots);
  if (!slots) return DDBST_ENOMEM;
  memset(slots, 0, (size_t)cap * sizeof *slots);
  /* stamp 1 in the new table; the old one's taken slots move over */
  for (uint32_t i = 0; i < set->cap; i++)
    if (set->slots[i].stamp == set->stamp)
      place(slots, cap, 1, set->slots[i].entry, key_of, owner);
  ddbst__free(a, set->slots);
  set->slots = slots;
  set->cap = cap;
  set->stamp = 1;
  return 0;
}

void ddbst__strset_release(ddbst__strset *set, const ddbst_allocator *a) {
  ddbst__free(a, set->slots);
  ddbst__strset_init(set);
}

void ddbst__strset_remove(ddbst__strset *set, ddbst__strslot *slot,
                          ddbst__strset_key_fn key_of, const void *owner) {
  uint32_t mask = set->cap - 1, i = (uint32_t)(slot - set->slots);
  slot->stamp = 0;
  set->count--;
  /* the rest of the cluster goes in again: a lookup stops at the first free
   * slot, which may now stand before an entry's place */
  for (uint32_t j = (i + 1) & mask; set->slots[j].stamp == set->stamp;
       j = (j + 1) & mask) {
    uint32_t moved = set->slots[j].entry;
    set->slots[j].stamp = 0;
    place(set->slots, set->cap, set->stamp, moved, key_of, owner);
  }
}
