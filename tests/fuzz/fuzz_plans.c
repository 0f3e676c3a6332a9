/* libFuzzer: the bodies written from plans compiled at load against the
 * general writers they stand in for, on values from end users. Input: a
 * byte choosing the model (the SaaS and blog examples, and two of this
 * folder: plans_kinds.json, facets of every transform under unique
 * constraints with no entity attribute; plans_pk_only.json, a table of a
 * partition key alone), a byte choosing the entity, a byte choosing the
 * write (put, create, update) and which attributes to unset again after
 * setting them (their text stays in the item), then NUL-separated values
 * given to the entity's attributes in order. Two items get the same values;
 * one is written the short way (request/put_plan.c, create_plan.c and
 * its flat create alone on a third, update_simple.c), the other the
 * general way (ddbst__put_body,
 * ddbst__unique_write, ddbst__update_body_general). Where the short way
 * writes, the bytes are the general way's; where it does not, the buffer
 * holds what it held before and the general way still writes what it would
 * have; where it fails, the error is the general way's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_models.h"
#include "item/item.h"
#include "request/request.h"

#define NOW_US INT64_C(1773478800000000)

static ddbst_model *model(int which) {
  static ddbst_model *models[2];
  if (which < 2) return fuzz_model(which);
  ddbst_model **m = &models[which - 2];
  if (!*m) {
    const char *path = which == 2 ? DDBST_SOURCE_DIR "/tests/fuzz/plans_kinds.json"
                                  : DDBST_SOURCE_DIR "/tests/fuzz/plans_pk_only.json";
    if (ddbst_model_load_file(path, NULL, m, NULL)) {
      fprintf(stderr, "cannot load %s\n", path);
      abort();
    }
  }
  return *m;
}

/* Text both buffers hold before the write: the inner bodies append. */
static const char prefix[] = "[{\"x\":";

static void same_bytes(const ddbst_buf *a, const ddbst_buf *b) {
  if (ddbst_buf_len(a) != ddbst_buf_len(b) ||
      memcmp(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a)) != 0)
    __builtin_trap();
}

static void only_prefix(const ddbst_buf *b) {
  if (ddbst_buf_len(b) != sizeof prefix - 1 ||
      strcmp(ddbst_buf_data(b), prefix) != 0)
    __builtin_trap();
}

/* The short way's result `rs` against the general way's `rg`: 1 and the
 * same bytes, 0 and the buffer untouched, or the same error. */
static void agree(int rs, const ddbst_error *es, const ddbst_buf *bs, int rg,
                  const ddbst_error *eg, const ddbst_buf *bg) {
  if (rs == 1) {
    if (rg != 0) __builtin_trap();
    same_bytes(bs, bg);
  } else if (rs == 0) {
    only_prefix(bs);
  } else if (rs != rg || es->code != eg->code ||
             strcmp(es->message, eg->message) != 0 ||
             strcmp(es->path, eg->path) != 0) {
    __builtin_trap();
  }
}

enum { PUT, CREATE, UPDATE };

/* ddbst_update_request on `q` (its own first step, update_request.c)
 * against the general way's `rg`: the same body (`body`, the general
 * way's without the prefix), or the same error. */
static void request_agrees(ddbst_item *q, int rg, const ddbst_error *eg,
                           const char *body, size_t len) {
  ddbst_buf *bq = ddbst_buf_new(NULL);
  ddbst_error eq;
  memset(&eq, 0, sizeof eq);
  if (!bq) return;
  ddbst_buf_append(bq, prefix, sizeof prefix - 1); /* replaced */
  int rq = ddbst_update_request(q, 0, NOW_US, bq, &eq);
  if (rg == 0) {
    if (rq != DDBST_OP_UPDATE_ITEM || ddbst_buf_len(bq) != len ||
        memcmp(ddbst_buf_data(bq), body, len) != 0)
      __builtin_trap();
  } else if (rq != rg || eq.code != eg->code ||
             strcmp(eq.message, eg->message) != 0) {
    __builtin_trap();
  }
  ddbst_buf_free(bq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  ddbst_model *m = model(data[0] & 3);
  int entity = data[1] % ddbst_model_entity_count(m);
  int write = (data[2] & 3) % 3;
  unsigned unset = data[2] >> 2; /* attributes 0 to 5 */
  ddbst_item *s = ddbst_item_new(m, entity), *g = ddbst_item_new(m, entity),
             *q = ddbst_item_new(m, entity);
  ddbst_buf *bs = ddbst_buf_new(NULL), *bg = ddbst_buf_new(NULL);
  if (!s || !g || !q || !bs || !bg) goto done;
  const char *p = (const char *)data + 3, *end = (const char *)data + size;
  int nattrs = ddbst_model_attribute_count(m, entity);
  for (int a = 0; a < nattrs && p <= end; a++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
    int r1 = ddbst_item_set(s, a, p, n, NULL);
    int r2 = ddbst_item_set(g, a, p, n, NULL);
    if (r1 != r2 || ddbst_item_set(q, a, p, n, NULL) != r1) __builtin_trap();
    if (a < 6 && (unset >> a & 1)) {
      ddbst_item_unset(s, a);
      ddbst_item_unset(g, a);
      ddbst_item_unset(q, a);
    }
    p += n + 1;
  }
  /* A generated default (a ULID) is new at each generation, and a put's
   * or create's items are written apart: each is given the same one. */
  const ddbst__entity *e = ddbst__entity_of(s);
  for (int a = 0; write != UPDATE && a < e->nattrs; a++)
    if (e->attrs[a].def == DDBST__DEF_GENERATE && !s->vals[a].set) {
      static const char ulid[] = "01KKNS5TM0Y6R6HAGWFE7C0VKC";
      ddbst_item_set(s, a, ulid, sizeof ulid - 1, NULL);
      ddbst_item_set(g, a, ulid, sizeof ulid - 1, NULL);
      ddbst_item_set(q, a, ulid, sizeof ulid - 1, NULL);
    }
  ddbst_buf_append(bs, prefix, sizeof prefix - 1);
  ddbst_buf_append(bg, prefix, sizeof prefix - 1);
  ddbst_error es, eg;
  memset(&es, 0, sizeof es);
  memset(&eg, 0, sizeof eg);
  int has_uniques = ddbst__entity_of(s)->nuniques > 0;
  int rs, rg;
  if (write == UPDATE) {
    if (ddbst__unique_conditions_needed(s)) goto done;
    rs = ddbst__update_body_simple(s, 0, NOW_US, bs);
    if (rs == 0) {
      /* declined: the item as given, so the general way on it writes
       * what it writes on the other */
      only_prefix(bs);
      ddbst_buf_truncate(bs, 0);
      ddbst_buf_truncate(bg, 0);
      int r1 = ddbst__update_body_general(s, 0, NOW_US, bs, &es);
      int r2 = ddbst__update_body_general(g, 0, NOW_US, bg, &eg);
      if (r1 != r2) __builtin_trap();
      if (r1 == 0) same_bytes(bs, bg);
      else if (es.code != eg.code || strcmp(es.message, eg.message) != 0)
        __builtin_trap();
      request_agrees(q, r2, &eg, ddbst_buf_data(bg), ddbst_buf_len(bg));
      goto done;
    }
    rg = ddbst__update_body_general(g, 0, NOW_US, bg, &eg);
    if (rg == 0)
      request_agrees(q, rg, &eg, ddbst_buf_data(bg) + sizeof prefix - 1,
                     ddbst_buf_len(bg) - (sizeof prefix - 1));
  } else if (has_uniques) {
    if (write != CREATE) goto done; /* a put of it has no plan */
    rs = ddbst__create_planned(s, DDBST_CREATE, NOW_US, bs, &es);
    rg = ddbst__unique_write(g, DDBST__W_PUT, DDBST_CREATE, NOW_US, bg, &eg);
    if (rg > 0) rg = 0; /* the op code */
    /* the plan's flat create alone, on the third item: written, the same
     * bytes; declined, the buffer as it was */
    ddbst_buf *bf = ddbst_buf_new(NULL);
    if (bf) {
      ddbst_error ef;
      memset(&ef, 0, sizeof ef);
      ddbst_buf_append(bf, prefix, sizeof prefix - 1);
      int rf = ddbst__create_flat(q, NOW_US, bf, &ef);
      agree(rf, &ef, bf, rg, &eg, bg);
      ddbst_buf_free(bf);
    }
  } else {
    uint32_t flags = write == CREATE ? DDBST_CREATE : 0;
    rs = ddbst__put_planned(s, flags, NOW_US, bs, &es);
    rg = ddbst__put_body(g, flags, NOW_US, bg, &eg);
  }
  agree(rs, &es, bs, rg, &eg, bg);
done:
  ddbst_buf_free(bs);
  ddbst_buf_free(bg);
  ddbst_item_free(s);
  ddbst_item_free(g);
  ddbst_item_free(q);
  return 0;
}
