/* Keys from items: templates rendered (the fast simple form and the general
 * one), the primary key, the sparse index keys and the entity-type
 * attribute, as the item's key list or straight as the keys object. The
 * reverse is key_parse.c. */
#include <stdio.h>
#include <string.h>

#include "model/facet.h"
#include "item/facet_key.h"
#include "item/keys.h"
#include "base/bytes.h"

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
  const ddbst__entity *e = ddbst__entity_of(it);
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

/* Why v, whose bytes include the delimiter's first, cannot be a facet
 * (facet_key.h, ddbst__facet_delim), or DDBST__FK_OK. Rare (a facet
 * holding the delimiter's first byte): kept out of render. */
DDBST__NOINLINE static ddbst__fk_why holds_delim(const ddbst_model *m,
                                                 const char *v, size_t n) {
  return m->delim_len == 1 ? DDBST__FK_DELIM : ddbst__facet_delim(m, v, n);
}

static int delim_refused(const ddbst_item *it, const ddbst__seg *s,
                         ddbst__fk_why why, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__attr *a = &e->attrs[s->attr];
  char path[DDBST_ERROR_PATH_MAX];
  if (why == DDBST__FK_DELIM_START)
    return ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                       "%s.%s starts with the end of the key delimiter '%s', "
                       "which would join the text before it and forge "
                       "another key",
                       e->name, a->name, it->m->delim);
  if (why == DDBST__FK_DELIM_END)
    return ddbst__fail(err, DDBST_EVALUE, facet_path(path, sizeof path, a),
                       "%s.%s ends with the start of the key delimiter '%s', "
                       "which would join the delimiter after it and forge "
                       "another key",
                       e->name, a->name, it->m->delim);
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
    const ddbst__attr *a =
        s->as_is ? NULL : &ddbst__entity_of(it)->attrs[s->attr];
    ddbst__fk_why dw = DDBST__FK_OK;
    if ((seen & DDBST__SCAN_DELIM0) && !(a && a->escape) &&
        (dw = holds_delim(m, v, n)) != DDBST__FK_OK) {
      rc = delim_refused(it, s, dw, err);
      goto refused;
    }
    size_t at = out->len;
    if (s->as_is) { /* the key form is the value (facet_key.h) */
      if (ddbst__buf_append(out, v, n)) goto nomem;
    } else {
      ddbst__fk_why why =
          ddbst__facet_key(m, a, s->lower, 0, v, n, seen | DDBST__SCAN_KNOWN,
                           out, NULL);
      if (why == DDBST__FK_NOMEM) goto nomem;
      /* a normal form can make a byte to escape (NFKC: U+FF02 is '"') */
      if (why == DDBST__FK_OK && a->normalize &&
          ddbst__json_plain_len(out->data + at, out->len - at) !=
              out->len - at)
        found |= DDBST__SCAN_ESCAPE;
      if (why == DDBST__FK_DELIM || why == DDBST__FK_DELIM_END) {
        rc = delim_refused(it, s, why, err);
        goto refused;
      }
      if (why == DDBST__FK_BELOW) {
        char path[DDBST_ERROR_PATH_MAX], what[DDBST_ERROR_PATH_MAX];
        const ddbst__entity *e = ddbst__entity_of(it);
        snprintf(what, sizeof what, "%s.%s", e->name, a->name);
        rc = ddbst__facet_order_refused(m, a, what, v, n,
                                        facet_path(path, sizeof path, a), err);
        goto refused;
      }
      if (why != DDBST__FK_OK) {
        char path[DDBST_ERROR_PATH_MAX];
        const ddbst__entity *e = ddbst__entity_of(it);
        rc = why == DDBST__FK_EMPTY
                 ? ddbst__fail(err, DDBST_EVALUE,
                               facet_path(path, sizeof path, a),
                               "%s.%s is empty once normalised; a key facet "
                               "needs a value",
                               e->name, a->name)
             : why == DDBST__FK_LONG
                 ? ddbst__fail(err, DDBST_ERANGE,
                               facet_path(path, sizeof path, a),
                               "%s.%s is longer than a key may be once "
                               "normalised",
                               e->name, a->name)
                 : ddbst__fail(err, DDBST_EVALUE,
                               facet_path(path, sizeof path, a),
                               "%s.%s does not fit its key width", e->name,
                               a->name);
        goto refused;
      }
    }
    /* a longer delimiter can also form across the text before the facet
     * and its start ("A|" then "|2" with "||") */
    if (m->delim_len > 1 &&
        ddbst__facet_delim_before(m, out->data + start, at - start,
                                  out->len - start)) {
      rc = delim_refused(it, s, DDBST__FK_DELIM_START, err);
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
    for (int f = 0; f < t->nfacets; f++)
      room += it->vals[t->pieces[f].attr].len;
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

/* ---- a key into the item's key text, for the request builders ---- */

int ddbst__render_into(ddbst_item *it, const ddbst__template *t,
                       const char *name, size_t limit, uint32_t *off,
                       uint32_t *len, ddbst_error *err) {
  size_t start = it->keytext.len;
  int rc = ddbst__render_key(it, t, name, limit, &it->keytext, err);
  if (rc) return rc;
  *off = (uint32_t)start;
  *len = (uint32_t)(it->keytext.len - start);
  return 0;
}

int ddbst__render_primary(ddbst_item *it, uint32_t *po, uint32_t *pl,
                          uint32_t *so, uint32_t *sl, ddbst_error *err) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  *so = *sl = 0;
  int rc = ddbst__render_into(it, &e->key.pk, m->pk_attr, DDBST__PK_MAX, po,
                              pl, err);
  if (!rc && m->sk_attr)
    rc = ddbst__render_into(it, &e->key.sk, m->sk_attr, DDBST__SK_MAX, so, sl,
                            err);
  return rc;
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
  const ddbst__entity *e = ddbst__entity_of(it);
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
  const ddbst__entity *e = ddbst__entity_of(it);
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
  const ddbst__entity *e = ddbst__entity_of(it);
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
  /* keys shared with the table: add_key's way, or none */
  if (ix->pk_shared || ix->sk_shared || ix->native) return 0;
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
  const ddbst__entity *e = ddbst__entity_of(it);
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
    /* a native index's keys are the item's own attributes; an inverted
     * index's, the table's */
    if (!ddbst__index_own_pk(&m->indexes[k->index]) &&
        !ddbst__index_own_sk(&m->indexes[k->index]))
      continue;
    if (add_index_simple(it, k)) continue;
    int in = ddbst__index_applies(it, k, err);
    if (in < 0) {
      rc = err ? err->code : DDBST_EMISSING;
      break;
    }
    if (!in) continue;
    const ddbst__index *ix = &m->indexes[k->index];
    /* a local index's partition key is the table's, written above */
    if (ddbst__index_own_pk(ix))
      rc = add_key(it, ix->pk_attr, &ix->pk_jname, &k->pk, DDBST__PK_MAX,
                   room, err);
    if (!rc && ddbst__index_own_sk(ix))
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

/* A key pair's members (`"PK":"ORG#1","SK":"USER#9",`, or in an Item's
 * form) at `o`, from their run (made at load), when their values are clean
 * as render_simple asks and each key is within its limit; NULL if not. Adds
 * the keys' size, as DynamoDB counts it, to *size (when not NULL). */
static DDBST__INLINE char *put_run(const ddbst_item *it, char *restrict o,
                            const ddbst__jrun *run, size_t *size) {
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
  if (size) *size += run->names_raw + len[0] + len[1];
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

/* Every key member of the item from the runs (`av`: an Item's), the entity
 * type's last, each with its comma; NULL when a key does not come the
 * short way (the caller's room then holds garbage past its length). */
static DDBST__INLINE char *put_runs(const ddbst_item *it, char *restrict o,
                                    int av, size_t *size) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  o = put_run(it, o, av ? &e->key.avrun : &e->key.jrun, size);
  for (int i = 0; o && i < e->nindexes; i++) {
    const ddbst__ekey *k = &e->indexes[i];
    if (!ddbst__index_own_pk(&m->indexes[k->index]) &&
        !ddbst__index_own_sk(&m->indexes[k->index]))
      continue; /* no keys of its own */
    char *at = o;
    size_t before = size ? *size : 0;
    int in = 1;
    for (int c = 0; in && c < k->nwhen; c++)
      in = ddbst__cond_holds(it, &k->when[c]);
    if (!in) continue;
    o = put_run(it, o, av ? &k->avrun : &k->jrun, size);
    if (!o && index_left_out(it, k)) {
      o = at;
      if (size) *size = before;
    }
  }
  if (o && m->entity_attr) {
    const ddbst__jtext *t = av ? &e->type_av : &e->type_json;
    ddbst__copy_padded(o, t->p, t->n);
    o += t->n;
    if (size) *size += m->entity_jname.raw_len + e->name_len;
  }
  return o;
}

char *ddbst__keys_av_simple(const ddbst_item *it, char *o, size_t *size) {
  return ddbst__entity_of(it)->keys_simple ? put_runs(it, o, 1, size) : NULL;
}

int ddbst__primary_av_simple(const ddbst_item *it, ddbst_buf *out,
                             size_t *size) {
  const ddbst__jrun *run = &ddbst__entity_of(it)->key.avrun;
  if (!run->head) return 0;
  size_t room = 2 + run->text_len;
  for (int i = 0; i < run->npieces; i++)
    room += it->vals[run->pieces[i].attr].len;
  if (ddbst__buf_reserve(out, room)) return DDBST_ENOMEM;
  char *o = out->data + out->len;
  *o = '{';
  size_t got = 0;
  char *end = put_run(it, o + 1, run, &got);
  if (!end) {
    *o = '\0'; /* what was written is past the end */
    return 0;
  }
  end[-1] = '}'; /* the run's last comma */
  *end = '\0';
  out->len = (size_t)(end - out->data);
  *size = got;
  return 1;
}

/* The keys object straight from the values, when every key the item has
 * comes the short way (render_simple): no key list, no second copy.
 * Returns 1 when written, 0 when nothing was kept and the general way must
 * build it, or DDBST_ENOMEM. */
static int keys_json_simple(const ddbst_item *it, ddbst_buf *out) {
  const ddbst_model *m = it->m;
  const ddbst__entity *e = ddbst__entity_of(it);
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
  o = put_runs(it, o, 0, NULL);
  if (!o) {
    out->data[out->len] = '\0'; /* what was written is past the end */
    return 0;
  }
  o[-1] = '}'; /* the last comma: the partition key is always there */
  *o = '\0';
  out->len = (size_t)(o - out->data);
  return 1;
}

int ddbst_item_keys_json(ddbst_item *it, ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  return ddbst_item_keys_json_append(it, out, err);
}

int ddbst_item_keys_json_append(ddbst_item *it, ddbst_buf *out,
                                ddbst_error *err) {
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
