/* A migration from one model to the next (docs/evolution.md, "Migrating"):
 * the plan (migrate_plan.c), what each stored item needs (migrate_item.c),
 * the write bodies that carry it over (migrate_body.c), stepping pages
 * (migrate_page.c) and the writer protocol's requests (migrate_writer.c). */
#ifndef DDBST_EVOLVE_MIGRATE_H
#define DDBST_EVOLVE_MIGRATE_H

#include "response/page.h"

typedef struct ddbst__mstep {
  int kind; /* DDBST_STEP_* */
  const char *index;
} ddbst__mstep;

/* A stored attribute of the item being stepped: its name, its
 * AttributeValue type (ddbst__avtype) and value as the page keeps it (S, N,
 * B text; "true"/"false"; the AttributeValue JSON of L, M and sets), all
 * in the page's text, NUL-terminated. */
typedef struct ddbst__mraw {
  const char *name;
  int type;
  const char *val;
  size_t len;
} ddbst__mraw;

/* What the write sets: a value of the new item (`attr` >= 0), or one of
 * its keys (`key`, an index for ddbst_item_key). */
typedef struct ddbst__mset {
  const char *name;
  int attr, key;
} ddbst__mset;

/* Kinds of the entries of a transaction the pass writes, so that a
 * cancellation's reasons say what failed. */
enum {
  DDBST__ME_ITEM_PUT,   /* the item under its new key */
  DDBST__ME_ITEM_OLD,   /* its Update, or the Delete of its old key */
  DDBST__ME_GUARD_PUT,  /* a guard under its new key, or held anew */
  DDBST__ME_GUARD_DEL   /* a guard the item no longer holds */
};
enum { DDBST__MIG_MAX_ENTRIES = 100 };

/* The expression placeholders of one body: names (#n0...) kept once each,
 * values (:v0...) numbered as written. */
typedef struct ddbst__mexpr {
  ddbst_buf *names, *values;
  const char **nm;
  int nnames, cap;
  int nvalues;
} ddbst__mexpr;

struct ddbst_migration {
  const ddbst_model *old, *nw;
  ddbst_allocator alloc;
  uint32_t flags;
  int worst;
  /* entities by name across the models: -1 when the other has none */
  int *old_of_new, *new_of_old;
  int *moves;          /* per new entity: its primary key changes */
  int *unique_changes; /* per new entity: a guard key that changes form */
  /* names of key attributes either model writes, but the table's own */
  const char **key_names;
  int nkey_names;
  ddbst__mstep steps[2 * DDBST__MAX_INDEXES + 2];
  int nsteps;
  /* the pass's work and the plan's notes, as JSON members and as text */
  ddbst_buf work, work_text, notes, notes_text;
  int nwork, nnotes;

  /* stepping */
  const ddbst_page *page;
  int next_i, count;
  int cur;        /* the item last given (-1: the re-read one, or none) */
  int given;      /* an item was given: reread_request has its key */
  int wrote;      /* it was given a write: failed() may read its answer */
  ddbst_page *reread_page, *err_page;
  int reread_pending;
  ddbst_item *newit, *oldit;
  /* the item being stepped */
  ddbst__mraw *raw;
  int nraw, cap_raw;
  int raw_pk, raw_sk; /* indices in raw, -1 when absent */
  int oe, ne;         /* its entity in the old and the new model, or -1 */
  int guard;
  ddbst__mset *sets;
  int nsets, cap_sets;
  int *removes; /* indices in raw */
  int nremoves;
  int version_raw; /* raw index of the version the write checks, or -1 */
  int moved;       /* its primary key changes */
  int guards_move; /* its unique guards' keys or holder change */
  char reason[DDBST_ERROR_MESSAGE_MAX * 2];
  /* entries of the last write (a transaction), for failed() */
  unsigned char entries[DDBST__MIG_MAX_ENTRIES];
  int nentries;
  /* scratch */
  ddbst_buf a, b, names, values, expr, cond, keys;
  const char **nm;
  int cap_nm;
};

/* ---- migrate_item.c ---- */

/* Reads item `slot` of page `pg` into m->raw and decides what it needs:
 * DDBST_MIGRATE_SKIP (in the new shape), _WRITE (m->sets, m->removes,
 * m->moved, m->guards_move say what), _GUARD, _REFUSED or _FOREIGN
 * (m->reason says why), or DDBST_ENOMEM. m->newit holds the item as the new
 * model writes it (for SKIP and WRITE). `now_us` for defaults. */
int ddbst__mig_analyse(ddbst_migration *m, const ddbst_page *pg,
                       uint32_t slot, int64_t now_us);

/* Whether `pg` is a page the migration may step (same table; a scan of
 * the whole table, unfiltered): 0 or DDBST_EINVAL. */
int ddbst__mig_check_page(const ddbst_migration *m, const ddbst_page *pg,
                          ddbst_error *err);

/* The AttributeValue of stored attribute `r`, appended to `b`. */
int ddbst__mig_raw_av(ddbst_buf *b, const ddbst__mraw *r);

/* {"PK":"...","SK":"..."} of the item being stepped, appended to `b`. */
int ddbst__mig_key_json(const ddbst_migration *m, ddbst_buf *b);

/* ---- migrate_body.c ---- */

/* The write of the item analysed into `out` (replaced): the op code
 * (DDBST_OP_UPDATE_ITEM or DDBST_OP_TRANSACT_WRITE_ITEMS), or an error
 * with `out` empty. Records the transaction's entries. */
int ddbst__mig_write(ddbst_migration *m, ddbst_buf *out, ddbst_error *err);

/* A placeholder for a name (written once into the names map) and for a
 * value (its AttributeValue appended by the caller after "":vN":"). */
int ddbst__mexpr_name(ddbst__mexpr *x, const char *name, ddbst_buf *out);
int ddbst__mexpr_value(ddbst__mexpr *x, ddbst_buf *out);
void ddbst__mexpr_init(ddbst_migration *m, ddbst__mexpr *x);
/* ,"ExpressionAttributeNames":{...},"ExpressionAttributeValues":{...} */
int ddbst__mexpr_emit(const ddbst__mexpr *x, ddbst_buf *out);

/* ,"Key":{...} of the item being stepped, as it was read. */
int ddbst__mig_key_of_read(const ddbst_migration *m, ddbst_buf *out);

/* {"M":{"PK":{"S":pk},"SK":{"S":sk}}}: a guard's holderKey. */
int ddbst__mig_holder_av(const ddbst_model *mm, const char *pk, size_t pkl,
                         const char *sk, size_t skl, ddbst_buf *b);

/* ---- migrate_page.c ---- */

/* A report line for the item being stepped: {"key":{...},"entity":...,
 * "<member>":"<text>"} into `out` (replacing). */
int ddbst__mig_report(const ddbst_migration *m, const char *member,
                      const char *text, ddbst_buf *out);

#endif
