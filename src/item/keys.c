/* Keys from items and items from keys: the primary key, the sparse index keys
 * and the entity-type attribute, and the reverse parse. */
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "item/keys.h"
#include "base/bytes.h"

static const ddbst__entity *entity_of(const ddbst_item *it) {
  return &it->m->entities[it->entity];
}

/* Percent-escaping for attributes that opt in: '%' and every byte of the
 * delimiter become %XX, so the facet can never hold the delimiter and the
 * original comes back exactly. */
static int needs_escape(unsigned char c, const char *d, size_t dn) {
  return c == '%' || memchr(d, c, dn) != NULL;
}

static int append_facet(ddbst_buf *out, const ddbst__attr *a,
                        const ddbst__seg *s, const char *v, size_t n,
                        const ddbst_model *m) {
  static const char hex[] = "0123456789ABCDEF";
  size_t start = out->len;
  int rc;
  if (a->type == DDBST__T_INTEGER) {
    int64_t x;
    char tmp[DDBST__INT_MAX_TEXT];
    size_t tl;
    /* The item holds validated decimal text; this cannot fail for values
     * the item accepted, but a width refusal still reads as a value error. */
    if (ddbst__int_parse(v, n, &x) ||
        ddbst__int_key(x, a->width, a->sortable_negative, tmp, &tl))
      return DDBST_EVALUE;
    rc = ddbst__buf_append(out, tmp, tl);
  } else if (a->escape) {
    rc = ddbst__buf_reserve(out, n * 3);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)v[i];
      if (needs_escape(c, m->delim, m->delim_len)) {
        char e[3] = {'%', hex[c >> 4], hex[c & 15]};
        ddbst__buf_append(out, e, 3);
      } else {
        ddbst__buf_putc(out, (char)c);
      }
    }
    rc = 0;
  } else {
    rc = ddbst__buf_append(out, v, n);
  }
  if (rc == 0 && s->lower) ddbst__lower_ascii(out->data + start, out->len - start);
  return rc;
}

/* "facet orgId": formatted only when an error needs it, never on the hot
 * path. */
static const char *facet_path(char *buf, size_t cap, const ddbst__attr *a) {
  snprintf(buf, cap, "facet %s", a->name);
  return buf;
}

/* Why facet `s` of the item cannot go into a key (unset, a delta, empty), as
 * the error; kept out of the hot loop, which only asks whether it can. */
static int facet_refused(const ddbst_item *it, const ddbst__template *t,
                         const ddbst__seg *s, const char *key_attr,
                         ddbst_error *err) {
  const ddbst__entity *e = entity_of(it);
  const ddbst__attr *a = &e->attrs[s->attr];
  const ddbst__val *val = &it->vals[s->attr];
  char path[DDBST_ERROR_PATH_MAX];
  if (!val->set)
    return ddbst__fail(err, DDBST_EMISSING, facet_path(path, sizeof path, a),
                       "%s.%s is needed for %s = %s", e->name, a->name,
                       key_attr, t->source);
  if (val->upd != DDBST__UPD_SET)
    return ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                       "%s.%s is a key facet: it takes a value, never an ADD "
                       "or append (the key would be built from the delta)",
                       e->name, a->name);
  if (val->len == 0)
    return ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                       "%s.%s is empty; a key facet needs a value", e->name,
                       a->name);
  return 0;
}

/* Whether v, whose bytes include the delimiter's first, holds all of it.
 * Rare (a facet holding the delimiter's first byte): kept out of render. */
DDBST__NOINLINE static int holds_delim(const ddbst_model *m, const char *v,
                                       size_t n) {
  return m->delim_len == 1 ||
         ddbst__find_delim(v, n, m->delim, m->delim_len) != NULL;
}

static int delim_refused(const ddbst_item *it, const ddbst__seg *s,
                         ddbst_error *err) {
  const ddbst__entity *e = entity_of(it);
  const ddbst__attr *a = &e->attrs[s->attr];
  char path[DDBST_ERROR_PATH_MAX];
  return ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                     "%s.%s contains the key delimiter '%s', which would "
                     "forge another key",
                     e->name, a->name, it->m->delim);
}

/* The key of a simple template (ddbst__template.simple) whose values were
 * scanned when set and are clean (ddbst__val.scan is exactly
 * DDBST__SCAN_KNOWN): its literals and values as they are, written at `o`,
 * where the caller made room for them (literal_len plus its facets'
 * lengths) and DDBST__PAD more. Returns the end of the key, or NULL when the
 * general path must look (a value unset, a delta, empty, unscanned or not
 * clean; a key past `limit`): it says why. */
static inline char *render_simple(const ddbst_item *it,
                                  const ddbst__template *t, size_t limit,
                                  char *restrict o) {
  const char *text = it->text.data, *start = o;
  for (const ddbst__piece *p = t->pieces, *end = p + t->nfacets; p < end;
       p++) {
    const ddbst__val *val = &it->vals[p->attr];
    if (val->scan != DDBST__SCAN_KNOWN) return NULL;
    ddbst__copy_padded(o, p->lit, p->lit_len);
    o += p->lit_len;
    ddbst__copy_padded(o, text + val->off, val->len);
    o += val->len;
  }
  ddbst__copy_padded(o, t->tail, t->tail_len);
  o += t->tail_len;
  return (size_t)(o - start) <= limit ? o : NULL;
}

/* Any key, with every check and its error; not inlined, so that its frame
 * is not paid by the simple keys. */
DDBST__NOINLINE static int render_general(const ddbst_item *it,
                                          const ddbst__template *t,
                                          const char *key_attr, size_t limit,
                                          ddbst_buf *out, int *plain,
                                          ddbst_error *err) {
  const ddbst_model *m = it->m;
  size_t start = out->len;
  unsigned found = t->literals_plain ? 0 : DDBST__SCAN_ESCAPE;
  int rc = 0;
  for (const ddbst__seg *s = t->segs, *end = s + t->nsegs; s < end; s++) {
    if (s->attr < 0) {
      if (ddbst__buf_append(out, s->text, s->len)) goto nomem;
      continue;
    }
    const ddbst__val *val = &it->vals[s->attr];
    if (!val->set || val->upd != DDBST__UPD_SET || val->len == 0) {
      rc = facet_refused(it, t, s, key_attr, err);
      goto refused;
    }
    const char *v = it->text.data + val->off;
    size_t n = val->len;
    /* %-escaping and integer forms keep a plain value plain */
    unsigned seen = val->scan ? val->scan
                              : ddbst__scan(v, n, (unsigned char)m->delim[0]);
    found |= seen;
    /* an escaped facet cannot hold the delimiter: it is %-escaped */
    const ddbst__attr *a = s->as_is ? NULL : &entity_of(it)->attrs[s->attr];
    if ((seen & DDBST__SCAN_DELIM0) && !(a && a->escape) &&
        holds_delim(m, v, n)) {
      rc = delim_refused(it, s, err);
      goto refused;
    }
    if (s->as_is) {
      if (ddbst__buf_append(out, v, n)) goto nomem;
      continue;
    }
    rc = append_facet(out, a, s, v, n, m);
    if (rc == DDBST_ENOMEM) goto nomem;
    if (rc) {
      char path[DDBST_ERROR_PATH_MAX];
      const ddbst__entity *e = entity_of(it);
      rc = ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                       "%s.%s does not fit its key width", e->name, a->name);
      goto refused;
    }
  }
  if (out->len - start > limit) {
    size_t got = out->len - start;
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ERANGE, key_attr,
                       "%s would be %zu bytes; DynamoDB allows %zu", key_attr,
                       got, limit);
  }
  if (plain) *plain = !(found & DDBST__SCAN_ESCAPE);
  return 0;
refused:
  ddbst__buf_truncate(out, start);
  return rc;
nomem:
  ddbst__buf_truncate(out, start);
  return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
}

int ddbst__render(const ddbst_item *it, const ddbst__template *t,
                  const char *key_attr, size_t limit, ddbst_buf *out,
                  int *plain, ddbst_error *err) {
  if (t->simple) {
    size_t room = t->literal_len;
    for (int i = 0; i < t->nsegs; i++)
      if (t->segs[i].attr >= 0) room += it->vals[t->segs[i].attr].len;
    if (ddbst__buf_reserve(out, room))
      return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    char *end = render_simple(it, t, limit, out->data + out->len);
    if (end) {
      *end = '\0';
      out->len = (size_t)(end - out->data);
      if (plain) *plain = 1;
      return 0;
    }
  }
  return render_general(it, t, key_attr, limit, out, plain, err);
}

int ddbst__render_key(const ddbst_item *it, const ddbst__template *t,
                      const char *key_attr, size_t limit, ddbst_buf *out,
                      ddbst_error *err) {
  return ddbst__render(it, t, key_attr, limit, out, NULL, err);
}

int ddbst__cond_holds(const ddbst_item *it, const ddbst__cond *c) {
  size_t n = 0;
  const char *v = ddbst__item_text(it, c->attr, &n);
  if (!v) return 0;
  for (size_t i = 0; i < c->nvalues; i++)
    if (c->lens[i] == n && memcmp(c->values[i], v, n) == 0) return 1;
  return 0;
}

/* Lists the unset facets of `t` into `out` ("a, b"), skipping duplicates. */
static void list_missing(const ddbst_item *it, const ddbst__template *t,
                         char *out, size_t cap, size_t *used) {
  const ddbst__entity *e = entity_of(it);
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a < 0 || it->vals[a].set) continue;
    const char *name = e->attrs[a].name;
    size_t nl = strlen(name);
    int dup = 0;
    for (size_t j = 0; j + nl <= *used; j++)
      if (memcmp(out + j, name, nl) == 0 && (j + nl == *used || out[j + nl] == ',') &&
          (j == 0 || out[j - 1] == ' '))
        dup = 1;
    if (dup) continue;
    int w = snprintf(out + *used, cap - *used, "%s%s", *used ? ", " : "", name);
    if (w > 0 && (size_t)w < cap - *used) *used += (size_t)w;
  }
}

static int count_own_present(const ddbst_item *it, const ddbst__template *t) {
  const ddbst__entity *e = entity_of(it);
  int n = 0;
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    if (a >= 0 && !e->attrs[a].primary_facet && it->vals[a].set) n++;
  }
  return n;
}

static int all_present(const ddbst_item *it, const ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr >= 0 && !it->vals[t->segs[i].attr].set) return 0;
  return 1;
}

int ddbst__index_applies(const ddbst_item *it, const ddbst__ekey *k,
                         ddbst_error *err) {
  for (int i = 0; i < k->nwhen; i++)
    if (!ddbst__cond_holds(it, &k->when[i])) return 0;
  if (all_present(it, &k->pk) && all_present(it, &k->sk)) return 1;
  /* Only facets the primary key does not already demand say whether the
   * caller meant the item to be in the index: none of them → sparse, out. */
  if (count_own_present(it, &k->pk) + count_own_present(it, &k->sk) == 0)
    return 0;
  char missing[DDBST_ERROR_MESSAGE_MAX / 2];
  size_t used = 0;
  missing[0] = '\0';
  list_missing(it, &k->pk, missing, sizeof missing, &used);
  list_missing(it, &k->sk, missing, sizeof missing, &used);
  const ddbst__entity *e = entity_of(it);
  const char *index = it->m->indexes[k->index].name;
  char path[DDBST_ERROR_PATH_MAX];
  snprintf(path, sizeof path, "%s.indexes.%s", e->name, index);
  ddbst__fail(err, DDBST_EMISSING, path,
              "%s is partly given for index %s: also give %s, or none of its "
              "facets to leave the item out of the index",
              e->name, index, missing);
  return -1;
}

static void note_key(ddbst_item *it, const char *name,
                     const ddbst__jtext *jname, size_t off, size_t len,
                     int plain) {
  ddbst__keyval *kv = &it->keys[it->nkeys++];
  kv->name = name;
  kv->jname = jname;
  kv->off = (uint32_t)off;
  kv->len = (uint32_t)len;
  kv->plain = plain;
}

/* add_key's way for a key render_simple does not take: checked, escaped,
 * refused with its error. Then makes `room` again, which the key may have
 * used up. */
DDBST__NOINLINE static int add_key_general(ddbst_item *it, const char *name,
                                           const ddbst__jtext *jname,
                                           const ddbst__template *t,
                                           size_t limit, size_t room,
                                           ddbst_error *err) {
  size_t off = it->keytext.len;
  int plain;
  int rc = render_general(it, t, name, limit, &it->keytext, &plain, err);
  if (rc) return rc;
  size_t len = it->keytext.len - off;
  if (ddbst__buf_putc(&it->keytext, '\0') ||
      ddbst__buf_reserve(&it->keytext, room))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  note_key(it, name, jname, off, len, plain);
  return 0;
}

/* Renders one key, and its NUL, into the item's key list, where `room`
 * bytes (and the pad) are free: every key still to come fits in them. */
static inline int add_key(ddbst_item *it, const char *name,
                          const ddbst__jtext *jname, const ddbst__template *t,
                          size_t limit, size_t room, ddbst_error *err) {
  ddbst_buf *kt = &it->keytext;
  char *end = t->simple ? render_simple(it, t, limit, kt->data + kt->len)
                        : NULL;
  if (!end)
    return add_key_general(it, name, jname, t, limit, room, err);
  *end = '\0';
  size_t off = kt->len, len = (size_t)(end - kt->data) - off;
  kt->len = off + len + 1;
  note_key(it, name, jname, off, len, 1);
  return 0;
}

/* An index's keys when render_simple takes both: every facet is then set,
 * so the item is in the index unless a condition says otherwise. Returns 1
 * when added, 0 when ddbst__index_applies and add_key must decide. */
static inline int add_index_simple(ddbst_item *it, const ddbst__ekey *k) {
  const ddbst_model *m = it->m;
  const ddbst__index *ix = &m->indexes[k->index];
  if (k->nwhen || !k->pk.simple || (ix->sk_attr && !k->sk.simple)) return 0;
  ddbst_buf *kt = &it->keytext;
  char *pk = kt->data + kt->len;
  char *pk_end = render_simple(it, &k->pk, DDBST__PK_MAX, pk);
  if (!pk_end) return 0;
  char *sk_end = pk_end;
  if (ix->sk_attr) {
    sk_end = render_simple(it, &k->sk, DDBST__SK_MAX, pk_end + 1);
    if (!sk_end) return 0;
    *sk_end = '\0';
  }
  *pk_end = '\0';
  size_t off = kt->len;
  note_key(it, ix->pk_attr, &ix->pk_jname, off, (size_t)(pk_end - pk), 1);
  if (ix->sk_attr)
    note_key(it, ix->sk_attr, &ix->sk_jname, off + (size_t)(pk_end - pk) + 1,
             (size_t)(sk_end - pk_end) - 1, 1);
  kt->len = (size_t)(sk_end - kt->data) + 1;
  return 1;
}

int ddbst_item_build_keys(ddbst_item *it, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  const ddbst_model *m = it->m;
  const ddbst__entity *e = entity_of(it);
  it->nkeys = 0;
  ddbst_buf_reset(&it->keytext);
  /* Room for every key the entity may have, made once: its literals and
   * NULs, and each facet's value as often as the templates use it; for a
   * small item, all of its text as often as the templates use facets. */
  size_t room = e->keys_fixed, text_bound = e->key_uses * it->text.len;
  if (text_bound <= 4096) {
    room += text_bound;
  } else {
    for (int i = 0; i < e->nkey_facets; i++)
      room += (size_t)e->key_facet_uses[i] * it->vals[e->key_facets[i]].len;
  }
  if (ddbst__buf_reserve(&it->keytext, room))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  int rc = add_key(it, m->pk_attr, &m->pk_jname, &e->key.pk, DDBST__PK_MAX,
                   room, err);
  if (!rc && m->sk_attr)
    rc = add_key(it, m->sk_attr, &m->sk_jname, &e->key.sk, DDBST__SK_MAX,
                 room, err);
  for (int i = 0; !rc && i < e->nindexes; i++) {
    const ddbst__ekey *k = &e->indexes[i];
    if (add_index_simple(it, k)) continue;
    int in = ddbst__index_applies(it, k, err);
    if (in < 0) {
      rc = err ? err->code : DDBST_EMISSING;
      break;
    }
    if (!in) continue;
    const ddbst__index *ix = &m->indexes[k->index];
    rc = add_key(it, ix->pk_attr, &ix->pk_jname, &k->pk, DDBST__PK_MAX, room,
                 err);
    if (!rc && ix->sk_attr)
      rc = add_key(it, ix->sk_attr, &ix->sk_jname, &k->sk, DDBST__SK_MAX,
                   room, err);
  }
  if (!rc && m->entity_attr) {
    size_t off = it->keytext.len; /* the name and its NUL: in the room */
    ddbst__copy_padded(it->keytext.data + off, e->name, e->name_len + 1);
    it->keytext.len += e->name_len + 1;
    /* an identifier: nothing to escape */
    note_key(it, m->entity_attr, &m->entity_jname, off, e->name_len, 1);
  }
  if (rc) {
    it->nkeys = 0;
    ddbst_buf_reset(&it->keytext);
    return rc;
  }
  return it->nkeys;
}

int ddbst_item_key(const ddbst_item *it, int i, const char **name,
                   const char **value, size_t *value_len) {
  if (!it || i < 0 || i >= it->nkeys) return DDBST_EINVAL;
  const ddbst__keyval *kv = &it->keys[i];
  if (name) *name = kv->name;
  if (value) *value = it->keytext.data + kv->off;
  if (value_len) *value_len = kv->len;
  return 0;
}

/* A key pair's members (`"PK":"ORG#1","SK":"USER#9",`) at `o`, from their
 * run (made at load), when their values are clean as render_simple asks
 * and each key is within its limit; NULL if not. */
static inline char *put_run(const ddbst_item *it, char *restrict o,
                            const ddbst__jrun *run) {
  const char *text = it->text.data;
  const ddbst__val *vals = it->vals;
  size_t len[2] = {run->lits[0], run->lits[1]};
  ddbst__copy_padded(o, run->head, run->head_len);
  o += run->head_len;
  for (const ddbst__jpiece *p = run->pieces, *end = p + run->npieces;
       p < end; p++) {
    const ddbst__val *val = &vals[p->attr];
    if (val->scan != DDBST__SCAN_KNOWN) return NULL;
    ddbst__copy_padded(o, text + val->off, val->len);
    o += val->len;
    len[p->key] += val->len;
    ddbst__copy_padded(o, p->lit, p->lit_len);
    o += p->lit_len;
  }
  return len[0] <= DDBST__PK_MAX && len[1] <= DDBST__SK_MAX ? o : NULL;
}

/* Whether the item is out of index `k` by what build_keys would decide,
 * given that some facet's value did not come the short way: its
 * conditions do not all hold, or a facet is unset and none of the index's
 * own facets is set. Otherwise (in it, or partly given: an error) the
 * general way must say. */
static int index_left_out(const ddbst_item *it, const ddbst__ekey *k) {
  for (int i = 0; i < k->nwhen; i++)
    if (!ddbst__cond_holds(it, &k->when[i])) return 1;
  if (all_present(it, &k->pk) && all_present(it, &k->sk)) return 0;
  return count_own_present(it, &k->pk) + count_own_present(it, &k->sk) == 0;
}

/* The keys object straight from the values, when every key the item has
 * comes the short way (render_simple): no key list, no second copy.
 * Returns 1 when written, 0 when nothing was kept and the general way must
 * build it, or DDBST_ENOMEM. */
static int keys_json_simple(const ddbst_item *it, ddbst_buf *out) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = entity_of(it);
  if (!e->keys_simple) return 0;
  /* room: every key name there is, and keys no longer than build_keys's
   * bound for them */
  size_t text_bound = e->key_uses * it->text.len;
  if (text_bound > 4096) return 0;
  if (ddbst__buf_reserve(out, m->keys_json_names + e->type_json.n +
                                  e->keys_fixed + text_bound))
    return DDBST_ENOMEM;
  char *o = out->data + out->len;
  *o++ = '{';
  o = put_run(it, o, &e->key.jrun);
  for (int i = 0; o && i < e->nindexes; i++) {
    const ddbst__ekey *k = &e->indexes[i];
    char *at = o;
    int in = 1;
    for (int c = 0; in && c < k->nwhen; c++)
      in = ddbst__cond_holds(it, &k->when[c]);
    if (!in) continue;
    o = put_run(it, o, &k->jrun);
    if (!o && index_left_out(it, k)) o = at;
  }
  if (!o) {
    out->data[out->len] = '\0'; /* what was written is past the end */
    return 0;
  }
  if (m->entity_attr) {
    ddbst__copy_padded(o, e->type_json.p, e->type_json.n);
    o += e->type_json.n;
  }
  o[-1] = '}'; /* the last comma: the partition key is always there */
  *o = '\0';
  out->len = (size_t)(o - out->data);
  return 1;
}

int ddbst_item_keys_json(ddbst_item *it, ddbst_buf *out, ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "buffer is NULL");
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  int done = keys_json_simple(it, out);
  if (done == 1) return 0;
  if (done < 0) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  /* The general way, through the key list; the item's own list is left as
   * it was (rebuilt to the same keys, or forgotten again). */
  int had_keys = it->nkeys > 0;
  int n = ddbst_item_build_keys(it, err);
  if (n < 0) return n;
  if (!had_keys) it->nkeys = 0;
  /* One reservation for the worst case (every key name there is, every
   * byte of the values escaped as \u00XX), then plain stores. */
  if (ddbst__buf_reserve(out, it->m->keys_json_names + 6 * it->keytext.len))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  char *o = out->data + out->len;
  *o++ = '{';
  for (int i = 0; i < n; i++) {
    const ddbst__keyval *kv = &it->keys[i];
    const char *v = it->keytext.data + kv->off;
    /* names (the model's arena) and values (keytext) are padded */
    ddbst__copy_padded(o, kv->jname->p, kv->jname->n);
    o += kv->jname->n;
    if (kv->plain) {
      *o++ = '"';
      ddbst__copy_padded(o, v, kv->len);
      o += kv->len;
      *o++ = '"';
    } else { /* fits: reserved above */
      out->len = (size_t)(o - out->data);
      ddbst__json_string(out, v, kv->len);
      o = out->data + out->len;
    }
    *o++ = ',';
  }
  if (n) o--; /* the last comma */
  *o++ = '}';
  out->len = (size_t)(o - out->data);
  *o = '\0';
  return 0;
}

/* ---- the reverse: key → entity and facets ---- */

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Undoes append_facet's escaping into `out`; 0 when `s` is not something the
 * escaping could have produced. */
static int unescape(const char *s, size_t n, const ddbst_model *m,
                    ddbst_buf *out) {
  /* The caller reserved room for n bytes: appends cannot fail. */
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      ddbst__buf_putc(out, s[i]);
      continue;
    }
    if (n - i < 3) return 0;
    int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
    if (h < 0 || l < 0) return 0;
    unsigned char c = (unsigned char)(h * 16 + l);
    if (!needs_escape(c, m->delim, m->delim_len)) return 0;
    ddbst__buf_putc(out, (char)c);
    i += 2;
  }
  return 1;
}

/* The facet value key text `s` stands for, stored into the item. Returns 0,
 * DDBST_EVALUE with `why` when `s` is not a canonical key form, or
 * DDBST_ENOMEM. A facet seen twice (ORG#{orgId} in PK and SK) must agree. The
 * item's key buffer is the scratch space, so a warm item does not allocate. */
static int take_facet(ddbst_item *it, const ddbst__seg *seg, const char *s,
                      size_t n, char *why, size_t cap) {
  const ddbst_model *m = it->m;
  const ddbst__attr *a = &entity_of(it)->attrs[seg->attr];
  ddbst_buf *sc = &it->keytext;
  ddbst_buf_reset(sc);
  /* Room for the unescaped text (never longer than n) and its canonical
   * form (never longer than n or a timestamp), so nothing moves below. */
  if (ddbst__buf_reserve(sc, 2 * n + DDBST__TS_MAX + 2)) return DDBST_ENOMEM;
  const char *text = s;
  size_t len = n;
  char num[DDBST__INT_MAX_TEXT + 2];
  if (a->type == DDBST__T_INTEGER) {
    int64_t v;
    const char *bad =
        ddbst__int_from_key(s, n, a->width, a->sortable_negative, &v);
    if (bad) {
      snprintf(why, cap, "%s: %s", a->name, bad);
      return DDBST_EVALUE;
    }
    len = (size_t)snprintf(num, sizeof num, "%lld", (long long)v);
    text = num;
  } else if (a->escape) {
    if (!unescape(s, n, m, sc)) {
      snprintf(why, cap, "%s: malformed %%-escape", a->name);
      return DDBST_EVALUE;
    }
    text = sc->data;
    len = sc->len;
  }
  size_t mark = sc->len;
  char reason[128];
  int rc = ddbst__value_canon(a, text, len, sc, reason, sizeof reason);
  if (rc == DDBST_ENOMEM) return rc;
  if (rc || sc->len - mark != len ||
      memcmp(sc->data + mark, text, len) != 0) {
    snprintf(why, cap, "%s: '%.*s' is not a canonical %s", a->name,
             (int)(len > 64 ? 64 : len), text, ddbst__type_name(a->type));
    return DDBST_EVALUE;
  }
  size_t have_len;
  const char *have = ddbst__item_text(it, seg->attr, &have_len);
  if (have) {
    if (have_len != len || memcmp(have, text, len) != 0) {
      snprintf(why, cap, "%s differs between the keys", a->name);
      return DDBST_EVALUE;
    }
    return 0;
  }
  return ddbst__item_store(it, seg->attr, text, len) ? DDBST_ENOMEM : 0;
}

/* Matches one template against `key`, storing facets. 1 match, 0 not this
 * template, DDBST_EVALUE / DDBST_ENOMEM. */
static int match_one(ddbst_item *it, const ddbst__template *t, const char *key,
                     size_t len, char *why, size_t cap) {
  size_t spans[2 * DDBST__MAX_FACETS];
  if (!ddbst__template_split(t, key, len, it->m->delim, it->m->delim_len,
                             spans))
    return 0;
  int f = 0;
  for (int i = 0; i < t->nsegs; i++) {
    if (t->segs[i].attr < 0) continue;
    int r = take_facet(it, &t->segs[i], key + spans[2 * f], spans[2 * f + 1],
                       why, cap);
    if (r) return r;
    f++;
  }
  return 1;
}

int ddbst_item_from_key(ddbst_item *it, const char *index, const char *pk,
                        size_t pk_len, const char *sk, size_t sk_len,
                        ddbst_error *err) {
  if (!it || !pk) return ddbst__fail(err, DDBST_EINVAL, NULL, "item or pk is NULL");
  const ddbst_model *m = it->m;
  int ix = -1;
  if (index) {
    for (int i = 0; i < m->nindexes; i++)
      if (strcmp(m->indexes[i].name, index) == 0) ix = i;
    if (ix < 0)
      return ddbst__fail(err, DDBST_ENOTFOUND, "index",
                         "the table has no index named %s", index);
  }
  char why[320] = "";
  int rc = DDBST_ENOTFOUND;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    const ddbst__ekey *k = NULL;
    if (ix < 0) {
      k = &ent->key;
    } else {
      for (int j = 0; j < ent->nindexes; j++)
        if (ent->indexes[j].index == ix) k = &ent->indexes[j];
    }
    if (!k) continue;
    int has_sk = k->sk.nsegs > 0;
    if (has_sk != (sk != NULL)) continue;
    ddbst_item_reset(it, e);
    char here[200];
    int r = match_one(it, &k->pk, pk, pk_len, here, sizeof here);
    if (r == 1 && has_sk)
      r = match_one(it, &k->sk, sk, sk_len, here, sizeof here);
    if (r == 1) {
      ddbst_buf_reset(&it->keytext);
      return e;
    }
    if (r == DDBST_ENOMEM) {
      rc = r;
      break;
    }
    if (r == DDBST_EVALUE && rc == DDBST_ENOTFOUND) {
      rc = DDBST_EVALUE;
      snprintf(why, sizeof why, "%s: %s", ent->name, here);
    }
  }
  ddbst_item_reset(it, it->entity);
  if (rc == DDBST_ENOMEM)
    return ddbst__fail(err, rc, NULL, "out of memory");
  if (rc == DDBST_EVALUE)
    return ddbst__fail(err, rc, "key", "the key has the shape of %s", why);
  return ddbst__fail(err, DDBST_ENOTFOUND, "key",
                     "no entity's %s key template matches this key",
                     index ? index : "primary");
}
