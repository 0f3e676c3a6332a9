/* What the parts of the loader share: the state of one load, reporting a
 * problem at its JSON path, the shape checks of JSON nodes, and each part's
 * entry. load.c reads the file and the table, load_entity.c the entities,
 * load_pattern.c the access patterns, load_overlap.c refuses keys that
 * could not be told apart; compile.h turns the result into hot-path data. */
#ifndef DDBST_LOAD_H
#define DDBST_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "json/tree.h"
#include "model/model.h"

/* Names looked up once per attribute or pattern, hashed once per load
 * (load_names.c). Slots hold an entry's index + 1 (0: free); state 0:
 * not built yet, 1: built, -1: the model outgrew the table (then a walk). */
enum {
  DDBST__KEY_NAMES_MAX = 128,
  DDBST__KEY_SLOTS = 256,
  DDBST__NAME_SLOTS = 1024
};
typedef struct ddbst__key_names {
  int state;
  unsigned n;
  uint16_t slot[DDBST__KEY_SLOTS];
  const char *name[DDBST__KEY_NAMES_MAX];
  size_t len[DDBST__KEY_NAMES_MAX];
  const char *clash[DDBST__KEY_NAMES_MAX];
} ddbst__key_names;
typedef struct ddbst__name_slots {
  int state;
  uint16_t slot[DDBST__NAME_SLOTS];
} ddbst__name_slots;

typedef struct ddbst__loader {
  ddbst_model *m;
  const char *json;
  size_t len;
  ddbst_error *err;
  ddbst_error_fn on_error;
  void *on_error_user;
  int nerrors;
  int nomem;
  char path[DDBST_ERROR_PATH_MAX];
  size_t plen;
  /* Unknown entity and index names already reported: a misspelt
   * declaration is one error, not one per reference to it. */
  const char *unknown_entities[16], *unknown_indexes[16];
  int nunknown_entities, nunknown_indexes;
  /* Fields a misspelt member was taken for ("did you mean"), by object:
   * their "is required" is that same typo. The last 16 are kept. */
  const ddbst__jnode *meant_in[16];
  const char *meant[16];
  unsigned nmeant;
  /* Every key's and guard's overlap signature, made once by
   * ddbst__check_ambiguous_keys for it and the pattern checks after it
   * (load_overlap.c); NULL before, or when out of memory (then every pair
   * is compared). */
  struct ddbst__keysigs *sigs;
  ddbst__key_names keys;
  ddbst__name_slots entities, indexes;
} ddbst__loader;

/* ---- reporting (load_check.c) ---- */

/* A problem at the current path, located at node `at` (line and column;
 * NULL: none). Loading goes on after it, so that one run shows them all:
 * the first fills the caller's ddbst_error, each goes to on_error. */
void ddbst__load_report(ddbst__loader *L, const ddbst__jnode *at,
                        const char *fmt, ...) DDBST__PRINTF(3, 4);
/* The same about member `field` of the current node, path and all. */
void ddbst__load_report_field(ddbst__loader *L, const char *field,
                              const ddbst__jnode *at, const char *fmt, ...)
    DDBST__PRINTF(4, 5);
/* Enters member `name` of the path; returns what ddbst__load_pop takes to
 * leave it. */
size_t ddbst__load_push(ddbst__loader *L, const char *name);
void ddbst__load_pop(ddbst__loader *L, size_t old);

/* A copy of `s` in the model's arena; NULL on allocation failure, with
 * nomem set: the load then ends in DDBST_ENOMEM, its parts stop at the next
 * entity or pattern (load_root), and no check reads the missing copy. */
char *ddbst__load_dup(ddbst__loader *L, const char *s);
/* n zeroed elements in the arena; NULL for none, or with nomem set. */
void *ddbst__load_array(ddbst__loader *L, size_t n, size_t size);

/* ---- shape checks (load_check.c) ---- */

/* "a string", "an object": for messages. */
const char *ddbst__load_jtype_name(ddbst__jtype t);
/* Whether `n` is of type `t`; reports "expected <what>" when not. */
int ddbst__load_expect(ddbst__loader *L, const ddbst__jnode *n, ddbst__jtype t,
                       const char *what);
/* Reports every member of `obj` not in the NULL-terminated `allowed`:
 * a typo in a model must not pass silently. A member one typo away from an
 * allowed field that `obj` lacks is reported as "did you mean" it. */
void ddbst__load_check_fields(ddbst__loader *L, const ddbst__jnode *obj,
                              const char *const *allowed);
/* The same, and got[i] = the member named allowed[i] (NULL when absent;
 * `got` has a slot per allowed field): the one walk of the members the
 * lookups after it read, instead of a search per field. */
void ddbst__load_fields(ddbst__loader *L, const ddbst__jnode *obj,
                        const char *const *allowed, const ddbst__jnode **got);
/* 1 when a member of `obj` was reported as a misspelling of `field`
 * (ddbst__load_check_fields said "did you mean" it): then "'field' is
 * required" is that same typo, and is not reported again. */
int ddbst__load_misspelt(const ddbst__loader *L, const ddbst__jnode *obj,
                         const char *field);
/* 1 the first time an unknown entity (`index` 0) or index (1) name is
 * met, 0 after: later references to it are not reported again. */
int ddbst__load_first_unknown(ddbst__loader *L, int index, const char *name);
/* A string member: NULL when absent (reported when `required`) or not a
 * string (always reported). */
const ddbst__jnode *ddbst__load_string(ddbst__loader *L,
                                       const ddbst__jnode *obj,
                                       const char *field, int required);
/* The same for member `n` of `obj` (named `field`), already looked up. */
const ddbst__jnode *ddbst__load_string_of(ddbst__loader *L,
                                          const ddbst__jnode *obj,
                                          const char *field,
                                          const ddbst__jnode *n, int required);
/* Entity, attribute and pattern names: identifiers. */
int ddbst__is_identifier(const char *s);
/* A literal (default, condition or filter value) for attribute `a`, as
 * canonical text in the arena; NULL when refused (reported) or nomem. */
const char *ddbst__load_literal(ddbst__loader *L, const ddbst__attr *a,
                                const ddbst__jnode *v, size_t *len);

/* The index of attribute `name` of `e`, or of index `name` of the table;
 * -1 when there is none. */
int ddbst__attr_index(const ddbst__entity *e, const char *name);
int ddbst__index_named(const ddbst_model *m, const char *name);

/* What attribute `name` would shadow of the table's keys ("partition key",
 * "sort key", "entity attribute", "index key attribute"), NULL when none;
 * once the table is loaded (load_names.c). */
const char *ddbst__load_key_clash(ddbst__loader *L, const char *name);
/* The entity named `name`, or -1; once every entity is loaded. */
int ddbst__load_entity_named(ddbst__loader *L, const char *name);
/* ddbst__index_named, once the table is loaded. */
int ddbst__load_index_named(ddbst__loader *L, const char *name);

/* ---- the parts ---- */

/* entities.<name> (load_entity.c), once the table is loaded. */
void ddbst__load_entity(ddbst__loader *L, const char *name,
                        const ddbst__jnode *n, ddbst__entity *e);
/* patterns.<name> (load_pattern.c), once every entity is loaded. */
void ddbst__load_pattern(ddbst__loader *L, const char *name,
                         const ddbst__jnode *n, ddbst__pattern *p);
/* Entities (and unique guards) whose keys could be the same, and a query
 * pattern's range that other items can fall in (load_overlap.c): run on a
 * model loaded without errors. */
void ddbst__check_ambiguous_keys(ddbst__loader *L);
void ddbst__check_pattern_range(ddbst__loader *L, ddbst__pattern *p);
/* Frees what the two checks above kept between them. */
void ddbst__overlap_sigs_free(ddbst__loader *L);

/* Native multi-attribute index keys (load_native.c). An index whose
 * partitionKey or sortKey is an array: read as lists into `ix` (1, and
 * ix->native set), or refused where DynamoDB refuses it (1); 0 when both
 * are single names. */
int ddbst__load_native_keys(ddbst__loader *L, const ddbst__jnode *n,
                            ddbst__index *ix);
/* The table's own partitionKey and sortKey as arrays: refused; returns
 * bit 0 (partitionKey) and bit 1 (sortKey) for those that are. */
int ddbst__load_table_key_not_list(ddbst__loader *L, const ddbst__jnode *t);
/* Entity `e`'s membership `x` of native index k->index: no pk, sk or when;
 * k->pk and k->sk list the key attributes as facet-only segments. */
void ddbst__load_native_member(ddbst__loader *L, const ddbst__entity *e,
                               const ddbst__jnode *x, ddbst__ekey *k);
/* Each native index's attribute types (ddbst__index.types), the same in
 * every entity in it; once the entities are loaded. */
void ddbst__check_native_types(ddbst__loader *L);

#endif
