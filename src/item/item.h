/* Item internals shared with the key engine and the loader: one value per
 * attribute index, in canonical text, in a buffer the item reuses. */
#ifndef DDBST_ITEM_H
#define DDBST_ITEM_H

#include "model/model.h"
#include "model/value_canon.h"

/* What an update does with an attribute. */
typedef enum {
  DDBST__UPD_SET,    /* the value (or nothing, when unset) */
  DDBST__UPD_REMOVE, /* REMOVE it */
  DDBST__UPD_ADD,    /* ADD the value: a number delta or set elements */
  DDBST__UPD_APPEND  /* append the value (a list) to the list */
} ddbst__upd;

typedef struct ddbst__val {
  uint32_t off, len; /* into ddbst_item.text */
  ddbst__upd upd;
  unsigned char set;
  /* DDBST__SCAN_* (bytes.h) of the text, recorded when setting it was the
   * cheap moment to know; 0: keys and writers scan it themselves. Exactly
   * DDBST__SCAN_KNOWN says all a simple key asks (keys.c, render_simple):
   * set, by value (not a delta), not empty, and clean; whatever changes a
   * value keeps it so. */
  unsigned char scan;
} ddbst__val;

/* An expression placeholder's value: an attribute's, a key built into
 * keytext, or a literal number or string. */
typedef enum {
  DDBST__REF_ATTR,
  DDBST__REF_KEY,
  DDBST__REF_PLAIN_KEY, /* a key known to need no JSON escape */
  DDBST__REF_NUMBER,
  DDBST__REF_STRING,
  DDBST__REF_RAW, /* an AttributeValue written as is: {"L":[]} */
  DDBST__REF_PREV, /* the previous value of attr */
  DDBST__REF_LIT,  /* canonical text `lit`, typed as attribute `attr` of
                      entity `off` (model filters) */
  DDBST__REF_TEXT, /* an AttributeValue at off, len in the item's pvals: a
                      bound parameter, typed where the expression uses it */
  DDBST__REF_KEY_AV /* canonical text at off, len in keytext, typed as
                       attribute `attr` of the item's entity (a native
                       index's key condition) */
} ddbst__refkind;

typedef struct ddbst__vref {
  ddbst__refkind kind;
  int attr;          /* REF_ATTR */
  uint32_t off, len; /* keys: into keytext; literals: into text */
  const char *lit;   /* literals held by the model or static */
} ddbst__vref;

/* Parameters a request binds (ddbst_item_bind) and a compiled expression
 * reads (":qty"): the name and the value's text, both in ptext. */
enum { DDBST__MAX_PARAMS = 16 };
typedef struct ddbst__param {
  uint32_t name_off, name_len, off, len;
} ddbst__param;

/* Expressions (request/cond.h) an item carries into its next write. The
 * item layer only holds them: the request layer made them, and frees the
 * ones it made for the item (`drop`, set with them). */
struct ddbst_expr;

typedef struct ddbst__keyval {
  const char *name;
  const ddbst__jtext *jname; /* "name": */
  uint32_t off, len;         /* into ddbst_item.keytext */
  int plain;                 /* needs no JSON escape */
} ddbst__keyval;

struct ddbst_item {
  const ddbst_model *m;
  unsigned char delim0; /* m->delim[0]: every string set scans for it */
  int entity;
  /* entity's attributes, kept with it: every set looks its attribute up */
  const ddbst__attr *attrs;
  int nattrs;
  ddbst__val *vals; /* model->max_attrs slots */
  ddbst__val *prev; /* values before an update, for unique guards */
  int has_previous; /* some prev slot is set: reset must clear them */
  /* Some slot may hold a REMOVE, ADD or append (set by those, cleared by
   * reset): a put need not look for them otherwise. */
  int has_update_ops;
  ddbst_buf text;   /* canonical values, each NUL-terminated */
  ddbst_buf keytext;
  ddbst__keyval *keys; /* 3 + 2 * model->nindexes slots */
  int nkeys;
  unsigned char *projected; /* per attribute: read back by get/query */
  int nprojected;
  int has_expected_version;
  int64_t expected_version;
  /* Placeholder bookkeeping for expressions, sized once at creation so that
   * building a request never allocates. */
  const ddbst__name **names;
  ddbst__vref *refs;
  int nnames, nrefs, cap_refs;
  int base_refs; /* what ddbst's own expressions need: cap_refs at creation */
  char scratch[64]; /* literal numbers of the request being built */
  size_t scratch_len;
  /* The user's condition and update actions (ddbst_item_condition,
   * ddbst_item_update), cleared by reset; owned[] are those the *_text
   * conveniences compiled, which reset frees through `drop`. */
  const struct ddbst_expr *cond, *update;
  int has_exprs; /* cond, update or a parameter is set: reset clears them */
  struct ddbst_expr *owned[2];
  void (*drop)(struct ddbst_expr *x);
  /* Bound parameters' names and text (ptext), and the AttributeValues the
   * request being built rendered from them (pvals, DDBST__REF_TEXT);
   * allocated on first use, kept by reset. */
  ddbst_buf ptext, pvals;
  ddbst__param params[DDBST__MAX_PARAMS];
  int nparams;
};

/* The entity the item holds values of. */
static inline const ddbst__entity *ddbst__entity_of(const ddbst_item *it) {
  return &it->m->entities[it->entity];
}

/* The value of attribute `attr` of the item (NULL when unset). */
static inline const char *ddbst__item_text(const ddbst_item *it, int attr,
                                           size_t *len) {
  const ddbst__val *v = &it->vals[attr];
  if (!v->set) return NULL;
  *len = v->len;
  return it->text.data + v->off;
}

/* Whether any attribute carries an update-only operation (REMOVE, ADD,
 * append): puts and key building refuse those. Fills `err` when so. */
int ddbst__item_check_plain(const ddbst_item *it, ddbst_error *err);

/* Stores already-canonical text as the value of `attr`. */
int ddbst__item_store(ddbst_item *it, int attr, const char *text, size_t len);

/* ddbst_item_set of a parsed answer's value: text already held to JSON's
 * text rule (well-formed UTF-8, no NUL), of an attribute of the item's
 * entity; only the model's checks are made (item.c says which). */
int ddbst__item_set_parsed(ddbst_item *it, int attr, const char *text,
                           size_t len, ddbst_error *err);

#endif
