/* What a pattern's cursor holds and how: the key attributes of its
 * LastEvaluatedKey (the shape), how one entity's keys split into the facets
 * the query fixes and those the cursor carries (the layout), the carried
 * facets' compact forms, and the keys rebuilt from them. Every facet's key
 * text goes through the one facet renderer (item/facet_key.h). Internal to
 * src/cursor/. */
#ifndef DDBST_CURSOR_LAYOUT_H
#define DDBST_CURSOR_LAYOUT_H

#include "base/b64url.h"
#include "cursor/envelope.h"
#include "model/cursor_layout.h"

typedef struct view {
  const char *p;
  size_t n;
} view;

static inline int view_eq(view a, view b) {
  return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n));
}

/* The shape and layouts are compiled at load (model/cursor_layout.h);
 * these are their names here. */
enum {
  ROLE_IX_PK = DDBST__ROLE_IX_PK,
  ROLE_IX_SK = DDBST__ROLE_IX_SK,
  ROLE_PK = DDBST__ROLE_PK,
  ROLE_SK = DDBST__ROLE_SK
};
typedef ddbst__cshape shape;
typedef ddbst__cfkey fkey;
typedef ddbst__clayout layout;

_Static_assert((int)MAX_VALUES == (int)DDBST__CURSOR_MAX_VALUES,
               "a layout carries what a cursor holds");

/* Pattern `p`'s shape, and its layout for entities[j] (NULL when that
 * entity has no key in the index the pattern reads). `p` is a query. */
static inline const shape *ddbst__cursor_plan_shape(const ddbst__pattern *p) {
  return p->cursor->shape;
}
static inline const layout *ddbst__cursor_plan_layout(const ddbst__pattern *p,
                                                      int j) {
  const layout *L = &p->cursor->layouts[j];
  return L->e ? L : NULL;
}

/* The facet texts of the partition value `part`, in template order: 1, or
 * 0 when it is no partition of the layout's entity. */
int ddbst__cursor_partition_facets(const shape *s, const layout *L, view part,
                                   view *fixed);

/* Whether the keys vals[1..] are keys of the layout's entity in the
 * partition vals[0] (they split along its templates, and a facet written
 * twice agrees); fills the carried facets' texts. Opening checks each
 * carried text again (ddbst__cursor_facet_text). */
int ddbst__cursor_entity_fits(const shape *s, const layout *L, const view *vals,
                              view *carried);

/* Whether `v` is a key some entity of the model (or a unique guard) could
 * have written as key attribute `role`. */
int ddbst__cursor_model_fits(const ddbst_model *m, int index, int role, view v);

/* A carried facet's compact form: a timestamp, integer or ULID whose key
 * text is a value's key form as a number or 16 bytes, else the text. */
void ddbst__cursor_put_facet(cw *w, const ddbst__attr *a, int lower, view v);

/* Seals the envelope env[0..) whose payload (w_len bytes after the head)
 * is written, bound to pattern `p` and partition `part`; appends it as
 * base64url (seal.c). */
int ddbst__cursor_finish(const ddbst_cursor_keys *keys, const ddbst_model *m,
                         const ddbst__pattern *p, view part, int flags,
                         uint8_t *env, size_t w_len, ddbst_buf *out,
                         ddbst_error *err);

/* Starts a cursor's payload in env (ENV_MAX bytes): `w` is the writer of
 * its values, after the head the keys make room for, and leaves room for
 * the tag or checksum; with a keyring that sets a maximum age, *issued is
 * the issue time (else -1) and *flags holds F_TIME. 0, or DDBST_EINVAL for
 * an issue time before 1970. */
int ddbst__cursor_start(const ddbst_cursor_keys *keys, int64_t now_us,
                        uint8_t *env, cw *w, int64_t *issued, int *flags,
                        ddbst_error *err);

/* The same with the context already written at ad + 1 + KEY_ID_BYTES
 * (ctx_len bytes): what a scan's cursor is bound to (scan_cursor.c). */
int ddbst__cursor_finish_ctx(const ddbst_cursor_keys *keys, uint8_t *ad,
                             size_t ctx_len, int flags, uint8_t *env,
                             size_t w_len, ddbst_buf *out, ddbst_error *err);

/* A cursor opened (unwrap.c): its envelope, its first byte, the plaintext
 * and its decoded payload, and where its values start (past the issue
 * time). */
typedef struct unwrapped {
  uint8_t env[ENV_MAX + DDBST__B64URL_SLACK];
  size_t elen;
  uint8_t h;
  int unsealed, key_at;
  uint8_t plain[ENV_MAX];
  size_t plen;
  dec d;
  int at;
} unwrapped;

/* Opens `cursor` against the context written at ad + 1 + KEY_ID_BYTES
 * (ctx_len bytes; `ad` has AD_MAX bytes): 0 and `u` filled; 1 when it
 * does not open against that context (the caller says what it was made
 * for); DDBST_ECURSOR with a message for anything else (base64url, format,
 * an unknown key, a malformed payload, its age). */
int ddbst__cursor_unwrap(const ddbst_cursor_keys *keys, const char *cursor,
                         size_t len, uint8_t *ad, size_t ctx_len, int64_t now_us,
                         unwrapped *u, ddbst_error *err);

/* Whether the cursor `u` (which did not open) opens against another
 * context, written at ad + 1 + KEY_ID_BYTES (ctx_len bytes). */
int ddbst__cursor_fits(const ddbst_cursor_keys *keys, const unwrapped *u,
                       uint8_t *ad, size_t ctx_len);

/* A native index's cursor (native.c): the LastEvaluatedKey's table keys
 * and sort attributes carried as text, bound to the partition attributes'
 * values (ddbst__native_partition); and opened back into the
 * ExclusiveStartKey, each attribute typed as the index declares it. */
int ddbst__native_cursor_seal(const ddbst_cursor_keys *keys, ddbst_item *it,
                              const ddbst__pattern *p,
                              const char *const *names,
                              const char *const *vals, const size_t *lens,
                              int n, int64_t now_us, ddbst_buf *out,
                              ddbst_error *err);
int ddbst__native_cursor_keys(const ddbst_model *m, const ddbst__pattern *p,
                              view part, const dec *d, int at, ddbst_buf *out,
                              ddbst_error *err);

#endif
