/* Item internals shared with the key engine and the loader: one value per
 * attribute index, in canonical text, in a buffer the item reuses. */
#ifndef DDBST_ITEM_H
#define DDBST_ITEM_H

#include "model.h"

typedef struct ddbst__val {
  uint32_t off, len; /* into ddbst_item.text */
  int set;
} ddbst__val;

typedef struct ddbst__keyval {
  const char *name;
  uint32_t off, len; /* into ddbst_item.keytext */
} ddbst__keyval;

struct ddbst_item {
  const ddbst_model *m;
  int entity;
  ddbst__val *vals; /* model->max_attrs slots */
  ddbst_buf text;   /* canonical values, each NUL-terminated */
  ddbst_buf keytext;
  ddbst__keyval *keys; /* 3 + 2 * model->nindexes slots */
  int nkeys;
};

/* Canonical text of `in` for attribute `a`, appended to `out`; DDBST_EVALUE
 * with `why` on refusal (then `out` is as it was), DDBST_ENOMEM. */
int ddbst__value_canon(const ddbst__attr *a, const char *in, size_t n,
                       ddbst_buf *out, char *why, size_t why_cap);

/* The value of attribute `attr` of the item (NULL when unset). */
static inline const char *ddbst__item_text(const ddbst_item *it, int attr,
                                           size_t *len) {
  const ddbst__val *v = &it->vals[attr];
  if (!v->set) return NULL;
  *len = v->len;
  return it->text.data + v->off;
}

/* Stores already-canonical text as the value of `attr`. */
int ddbst__item_store(ddbst_item *it, int attr, const char *text, size_t len);

#endif
