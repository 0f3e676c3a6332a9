/* A scan's cursors: the LastEvaluatedKey of a Scan page, carried whole
 * (a scan meets items of no entity, whose keys no template explains), in
 * the same envelope, sealing and checks as a query's (envelope.h,
 * unwrap.c). Bound by the associated data to the table and the index
 * read, and by the sealed payload to the segment, the total of segments
 * and the digest of the scan's body (its filter and projection), so that
 * a refusal can say which of them differs. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"

/* The LastEvaluatedKey of a scan of `index` (-1: the table): its key
 * attributes' names, AttributeValue types and longest values, in the order
 * the cursor carries them. */
typedef struct scan_shape {
  const char *name[10];
  char type[10];
  size_t limit[10];
  int n;
} scan_shape;

static void push(scan_shape *s, const char *name, char type, size_t limit) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->name[i], name)) return;
  s->name[s->n] = name;
  s->type[s->n] = type;
  s->limit[s->n++] = limit;
}

static void shape_of(const ddbst_model *m, int index, scan_shape *s) {
  s->n = 0;
  const ddbst__index *ix = index >= 0 ? &m->indexes[index] : NULL;
  if (ix && ix->native) {
    for (int i = 0; i < ix->npk; i++)
      push(s, ix->pk_attrs[i], ix->types[i], DDBST__PK_MAX);
  } else if (ix) {
    push(s, ix->pk_attr, 'S', DDBST__PK_MAX);
    if (ix->sk_attr) push(s, ix->sk_attr, 'S', DDBST__SK_MAX);
  }
  push(s, m->pk_attr, 'S', DDBST__PK_MAX);
  if (m->sk_attr) push(s, m->sk_attr, 'S', DDBST__SK_MAX);
  for (int i = 0; ix && ix->native && i < ix->nsk; i++)
    push(s, ix->sk_attrs[i], ix->types[ix->npk + i], DDBST__SK_MAX);
}

/* The associated data's context: the CBOR array ["scan", table, index or
 * null], at ctx (CONTEXT_MAX bytes). Three members where a query's has
 * four, so neither kind of cursor ever opens as the other. */
static size_t scan_context(const ddbst_model *m, int index, uint8_t *ctx) {
  cw w = {ctx, 0, CONTEXT_MAX, 0};
  cw_array(&w, 3);
  cw_text(&w, "scan", 4);
  cw_text(&w, m->table_name, strlen(m->table_name));
  if (index >= 0) {
    const char *ix = m->indexes[index].name;
    cw_text(&w, ix, strlen(ix));
  } else {
    cw_raw(&w, "\xf6", 1); /* null */
  }
  return w.len;
}

int ddbst__scan_cursor_seal(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, const ddbst__scan_ctx *c,
                            const ddbst__lek_attr *lek, int n, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err) {
  int rc = ddbst__cursor_need_keys(m, NULL, keys, err);
  if (rc) return rc;
  scan_shape s;
  shape_of(m, c->index, &s);
  const ddbst__lek_attr *at[10] = {NULL};
  for (int i = 0; i < n; i++) {
    int a = 0;
    while (a < s.n && strcmp(lek[i].name, s.name[a])) a++;
    if (a == s.n)
      return ddbst__cursor_lek_fail(err, lek[i].name,
                      "%s is not a key attribute of this scan's "
                      "LastEvaluatedKey",
                      lek[i].name);
    if (at[a]) return ddbst__cursor_lek_fail(err, lek[i].name, "%s appears twice", lek[i].name);
    at[a] = &lek[i];
    if (lek[i].type != s.type[a])
      return ddbst__cursor_lek_fail(err, lek[i].name, "%s is of type %c; the key's is %c",
                      lek[i].name, lek[i].type, s.type[a]);
    if (!lek[i].val || lek[i].len == 0 || lek[i].len > s.limit[a] ||
        ddbst__utf8_check(lek[i].val, lek[i].len))
      return ddbst__cursor_lek_fail(err, lek[i].name,
                      "%s is not a key value DynamoDB could return (empty, "
                      "too long or not UTF-8)",
                      lek[i].name);
  }
  for (int a = 0; a < s.n; a++)
    if (!at[a]) return ddbst__cursor_lek_fail(err, s.name[a], "%s is missing", s.name[a]);

  int flags;
  int64_t issued;
  uint8_t env[ENV_MAX];
  cw w;
  rc = ddbst__cursor_start(keys, now_us, env, &w, &issued, &flags, err);
  if (rc) return rc;
  cw_array(&w, (size_t)(issued >= 0) + 3 + (size_t)s.n);
  if (issued >= 0) cw_uint(&w, (uint64_t)issued);
  cw_uint(&w, c->segment);
  cw_uint(&w, c->total);
  cw_bytes(&w, c->digest, sizeof c->digest);
  for (int a = 0; a < s.n; a++) cw_text(&w, at[a]->val, at[a]->len);
  if (w.full)
    return ddbst__fail(err, DDBST_ERANGE, "LastEvaluatedKey",
                       "the cursor would pass %d characters",
                       DDBST__CURSOR_MAX_CHARS);
  uint8_t ad[AD_MAX];
  size_t ctx_len = scan_context(m, c->index, ad + 1 + KEY_ID_BYTES);
  return ddbst__cursor_finish_ctx(keys, ad, ctx_len, flags, env, w.len, out,
                                  err);
}

void ddbst__scan_digest(const char *body, size_t len,
                        uint8_t digest[DDBST__SCAN_DIGEST]) {
  crypto_generichash(digest, DDBST__SCAN_DIGEST, (const uint8_t *)body, len,
                     NULL, 0);
}

/* "a scan of the table" or "a scan of index GSI1", for messages. */
static const char *target_name(const ddbst_model *m, int index, char *buf,
                               size_t cap) {
  if (index < 0) return "a scan of the table";
  snprintf(buf, cap, "a scan of index %.200s", m->indexes[index].name);
  return buf;
}

/* A cursor that did not open for this scan: the table or index it does
 * open for, when it is a scan cursor of this model's table. */
static int refuse_target(const ddbst_cursor_keys *keys, const unwrapped *u,
                         const ddbst_model *m, int index, ddbst_error *err) {
  uint8_t ad[AD_MAX];
  char a[256], b[256];
  for (int i = -1; i < m->nindexes; i++) {
    if (i == index) continue;
    size_t ctx_len = scan_context(m, i, ad + 1 + KEY_ID_BYTES);
    if (ddbst__cursor_fits(keys, u, ad, ctx_len))
      return ddbst__cursor_refuse(
          err, "the cursor was made for %s, not %s: start this scan from its "
               "first page",
          target_name(m, i, a, sizeof a), target_name(m, index, b, sizeof b));
  }
  return ddbst__cursor_refuse(
      err, "the cursor does not open: it was made for a scan of another "
           "table, or for a query, or it was altered");
}

/* `{` (first) or `,`, then "name":{"T":"value"}. */
static int put_key(ddbst_buf *out, int first, const char *name, char type,
                   const uint8_t *v, size_t n) {
  char tag[8] = {'"', type, '"', ':', '\0'};
  int rc = ddbst__buf_putc(out, first ? '{' : ',');
  rc = rc ? rc : ddbst__json_string(out, name, strlen(name));
  rc = rc ? rc : ddbst__buf_puts(out, ":{");
  rc = rc ? rc : ddbst__buf_puts(out, tag);
  rc = rc ? rc : ddbst__json_string(out, (const char *)v, n);
  return rc ? rc : ddbst__buf_putc(out, '}');
}

int ddbst__scan_cursor_open(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, const ddbst__scan_ctx *c,
                            const char *cursor, size_t len, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err) {
  if (!cursor && len)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "the cursor is NULL");
  int rc = ddbst__cursor_need_keys(m, NULL, keys, err);
  if (rc) return rc;
  uint8_t ad[AD_MAX];
  size_t ctx_len = scan_context(m, c->index, ad + 1 + KEY_ID_BYTES);
  unwrapped u;
  rc = ddbst__cursor_unwrap(keys, cursor, len, ad, ctx_len, now_us, &u, err);
  if (rc == 1) return refuse_target(keys, &u, m, c->index, err);
  if (rc) return rc;
  scan_shape s;
  shape_of(m, c->index, &s);
  const citem *it = &u.d.it[u.at];
  int n = u.d.n - u.at;
  if (n != 3 + s.n || it[0].kind != K_UINT || it[1].kind != K_UINT ||
      it[2].kind != K_BYTES || it[2].n != sizeof c->digest)
    return ddbst__cursor_refuse(err,
                                "the cursor's contents are malformed: not a "
                                "scan's cursor of this table");
  if (it[0].u != c->segment || it[1].u != c->total) {
    if (it[1].u == 0 || c->total == 0)
      return ddbst__cursor_refuse(
          err, "the cursor was made for a scan %s segments, and this scan "
               "has %s",
          it[1].u ? "in" : "without", c->total ? "them" : "none");
    return ddbst__cursor_refuse(
        err,
        "the cursor was made for segment %llu of %llu, and this scan is "
        "segment %u of %u: give each segment its own cursors",
        (unsigned long long)it[0].u, (unsigned long long)it[1].u,
        (unsigned)c->segment, (unsigned)c->total);
  }
  if (memcmp(it[2].p, c->digest, sizeof c->digest))
    return ddbst__cursor_refuse(
        err, "the cursor was made for a scan with another filter, entity "
             "filter, parameters or projection: resume a scan with the "
             "settings it started with");
  for (int a = 0; a < s.n; a++) {
    const citem *v = &it[3 + a];
    if (v->kind != K_TEXT || v->n == 0 || v->n > s.limit[a] ||
        ddbst__utf8_check((const char *)v->p, v->n) ||
        (s.type[a] == 'N' && !ddbst__cursor_number_text((const char *)v->p, v->n)))
      return ddbst__cursor_refuse(err, "the cursor's %s is no key value",
                                  s.name[a]);
    if (put_key(out, a == 0, s.name[a], s.type[a], v->p, v->n))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  if (ddbst__buf_putc(out, '}'))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return 0;
}
