/* The hydrator's state, shared by hydrate.c (the page's keys, the
 * BatchGetItem requests) and hydrate_read.c (the answers, back into the
 * page's order). */
#ifndef DDBST_RESPONSE_HYDRATE_H
#define DDBST_RESPONSE_HYDRATE_H

#include "base/hash.h"
#include "response/page.h"

enum { DDBST__HYDRATE_CHUNK = 100 }; /* BatchGetItem's keys per request */

/* One distinct primary key of the page: its identity (the table's key
 * values, length-prefixed) and its JSON key map, both in `text`. */
typedef struct ddbst__hkey {
  uint32_t id, id_len;
  uint32_t json, json_len;
  uint8_t state;  /* DDBST_HYDRATE_* */
  /* once FOUND: its entity and records in `full` (shared by its slots) */
  int32_t entity;
  uint32_t first, count;
} ddbst__hkey;

struct ddbst_hydrate {
  const ddbst_model *m;
  ddbst_buf text;        /* identities and key maps */
  ddbst__hkey *keys;
  uint32_t nkeys, cap_keys;
  uint32_t *slot_key;    /* per item of the page: its key */
  uint32_t nslots, cap_slots;
  ddbst__strset ids;     /* identity -> key */
  ddbst_buf proj;        /* ,"ProjectionExpression":...,"ExpressionAttributeNames":{...} */
  ddbst_page full;       /* the items read, in the page's order */
  /* ddbst_hydrate_read's scratch: per answer item its key, per key its
   * state in the answer */
  uint32_t *found;
  uint32_t cap_found;
  uint8_t *mark;
  uint32_t cap_mark;
  ddbst_buf id;          /* an identity being looked up */
  ddbst__arena arena;    /* UnprocessedKeys' key maps, read as trees */
};

/* The identity of a key of the table's values `pk` and `sk` (sk NULL when
 * the table has none) into `out` (replacing): 0 or DDBST_ENOMEM. */
int ddbst__hydrate_identity(ddbst_buf *out, const char *pk, size_t pk_len,
                            const char *sk, size_t sk_len);

/* The key of identity `id`, or -1. */
int32_t ddbst__hydrate_find(const ddbst_hydrate *h, const char *id, size_t n);

#endif
