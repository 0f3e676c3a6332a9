/* Orphan guards: a unique constraint's guard item (request/guard.c) whose
 * holder item is gone, or no longer holds the value the guard claims,
 * blocks that value for ever. The audit takes the guard items a scan's
 * pages hold, reads their holders back (BatchGetItem by holderKey,
 * strongly consistent) and names each guard that no holder explains. */
#include <stdio.h>
#include <string.h>

#include "item/attribute_value.h"
#include "item/keys.h"
#include "json/tree.h"
#include "response/page.h"

enum { G_PENDING, G_HELD, G_MISSING, G_STALE, G_UNTRACEABLE };
enum { HOLDERS_PER_REQUEST = 100 }; /* BatchGetItem's limit */

typedef struct guard {
  uint32_t key, key_len;         /* into text: the guard's partition key */
  uint32_t hpk, hpk_len, hsk, hsk_len; /* its holderKey */
  int32_t entity, unique;        /* what it claims (unique -1: by its key) */
  int state;
  uint32_t flight;               /* the request that reads its holder */
} guard;

struct ddbst_guard_audit {
  const ddbst_model *m;
  ddbst_buf text;
  guard *g;
  uint32_t n, cap;
  uint32_t flight;   /* the serial of the last request built (0: none) */
  ddbst_page *page;  /* the holders' answer, parsed keeping every item */
  ddbst_item *item;  /* a holder's values */
};

ddbst_guard_audit *ddbst_guard_audit_new(const ddbst_model *m) {
  if (!m || !m->nentities) return NULL;
  ddbst_guard_audit *a = ddbst__malloc(&m->alloc, sizeof *a);
  if (!a) return NULL;
  memset(a, 0, sizeof *a);
  a->m = m;
  ddbst__buf_init(&a->text, &m->alloc);
  a->page = ddbst_page_new(m);
  a->item = ddbst_item_new(m, 0);
  if (!a->page || !a->item) {
    ddbst_guard_audit_free(a);
    return NULL;
  }
  return a;
}

void ddbst_guard_audit_free(ddbst_guard_audit *a) {
  if (!a) return;
  const ddbst_allocator *al = &a->m->alloc;
  ddbst__buf_release(&a->text);
  ddbst__free(al, a->g);
  ddbst_page_free(a->page);
  ddbst_item_free(a->item);
  ddbst__free(al, a);
}

void ddbst_guard_audit_reset(ddbst_guard_audit *a) {
  if (!a) return;
  ddbst_buf_reset(&a->text);
  a->n = 0;
  a->flight = 0;
}

/* The record named `name` of page item `i`, or NULL. */
static const ddbst__pattr *attr_named(const ddbst_page *pg, uint32_t i,
                                      const char *name) {
  const ddbst__pitem *pi = &pg->items[i];
  size_t n = strlen(name);
  for (uint32_t k = pi->first; k < pi->first + pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[k];
    if (r->name_len == n && !memcmp(pg->text.data + r->name, name, n)) return r;
  }
  return NULL;
}

static int text_is(const ddbst_page *pg, const ddbst__pattr *r, const char *s,
                   size_t n) {
  return r && r->type == DDBST__AV_S && r->val_len == n &&
         !memcmp(pg->text.data + r->val, s, n);
}

/* Whether key g (n bytes) is one unique `u` writes. */
static int fits(const ddbst_model *m, const ddbst__unique *u, const char *g,
                size_t n) {
  size_t spans[2 * DDBST__MAX_FACETS];
  return ddbst__template_split(&u->tmpl, g, n, m->delim, m->delim_len, spans);
}

/* What guard item `i` claims: 1 with *e, *u (-1: told by its key when the
 * held value is checked), or 0 when it is no guard. With an entity
 * attribute a guard says "User.email"; without one, a key written twice
 * (PK = SK) that a unique's template fits. */
static int claim(const ddbst_page *pg, uint32_t i, const ddbst__pattr *pk,
                 int32_t *e, int32_t *u) {
  const ddbst_model *m = pg->m;
  const char *g = pg->text.data + pk->val;
  if (m->entity_attr) {
    const ddbst__pattr *t = attr_named(pg, i, m->entity_attr);
    for (int x = 0; t && x < m->nentities; x++)
      for (int k = 0; k < m->entities[x].nuniques; k++) {
        const ddbst__entity *en = &m->entities[x];
        size_t nl = strlen(en->name), ul = strlen(en->uniques[k].name);
        const char *v = pg->text.data + t->val;
        if (t->type == DDBST__AV_S && t->val_len == nl + 1 + ul &&
            !memcmp(v, en->name, nl) && v[nl] == '.' &&
            !memcmp(v + nl + 1, en->uniques[k].name, ul)) {
          *e = x;
          *u = k;
          return 1;
        }
      }
    return 0;
  }
  const ddbst__pattr *sk = m->sk_attr ? attr_named(pg, i, m->sk_attr) : NULL;
  if (m->sk_attr && !text_is(pg, sk, g, pk->val_len)) return 0;
  for (int x = 0; x < m->nentities; x++)
    for (int k = 0; k < m->entities[x].nuniques; k++)
      if (fits(m, &m->entities[x].uniques[k], g, pk->val_len)) {
        *e = x;
        *u = -1;
        return 1;
      }
  return 0;
}

/* holderKey {"M":{"PK":{"S":..},"SK":{"S":..}}} into the guard: 1, or 0
 * when it is not one. */
static int holder_of(ddbst_guard_audit *a, const ddbst_page *pg,
                     const ddbst__pattr *h, guard *gd, int *nomem) {
  const ddbst_model *m = a->m;
  if (!h || h->type != DDBST__AV_M) return 0;
  ddbst__arena ar;
  ddbst__arena_init(&ar, &m->alloc);
  ddbst__jnode *root = NULL;
  ddbst_error e2;
  int ok = 0;
  int rc = ddbst__jtree_parse(&ar, pg->text.data + h->val, h->val_len, &root,
                              &e2);
  if (rc == DDBST_ENOMEM) *nomem = 1;
  const ddbst__jnode *map = rc ? NULL : ddbst__jobj_get(root, "M");
  const ddbst__jnode *pk = map ? ddbst__jobj_get(map, m->pk_attr) : NULL;
  const ddbst__jnode *sk =
      map && m->sk_attr ? ddbst__jobj_get(map, m->sk_attr) : NULL;
  pk = pk ? ddbst__jobj_get(pk, "S") : NULL;
  sk = sk ? ddbst__jobj_get(sk, "S") : NULL;
  if (pk && pk->type == DDBST__J_STRING && pk->len &&
      (!m->sk_attr || (sk && sk->type == DDBST__J_STRING && sk->len)) &&
      map->count == (m->sk_attr ? 2u : 1u)) {
    gd->hpk = (uint32_t)a->text.len;
    gd->hpk_len = (uint32_t)pk->len;
    rc = ddbst__buf_append(&a->text, pk->text, pk->len + 1);
    gd->hsk = (uint32_t)a->text.len;
    gd->hsk_len = sk ? (uint32_t)sk->len : 0;
    rc = rc ? rc : ddbst__buf_append(&a->text, sk ? sk->text : "", gd->hsk_len + 1);
    if (rc) *nomem = 1;
    ok = !rc;
  }
  ddbst__arena_free(&ar);
  return ok;
}

int ddbst_guard_audit_add(ddbst_guard_audit *a, const ddbst_page *pg,
                          ddbst_error *err) {
  if (!a || !pg)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "audit or page is NULL");
  if (pg->m != a->m)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page is of another model");
  if (pg->failed || pg->kind == DDBST__ANSWER_STREAM)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no items: parse a Scan's answer with "
                       "ddbst_page_parse_scan");
  size_t text0 = a->text.len;
  uint32_t n0 = a->n;
  int added = 0, nomem = 0;
  for (uint32_t i = 0; i < pg->nitems && !nomem; i++) {
    const ddbst__pitem *pi = &pg->items[i];
    if (!pi->present || pi->entity >= 0 || pi->where != DDBST__IN_ITEMS)
      continue;
    const ddbst__pattr *pk = attr_named(pg, i, a->m->pk_attr);
    int32_t e, u;
    if (!pk || pk->type != DDBST__AV_S || !claim(pg, i, pk, &e, &u)) continue;
    guard *v = ddbst__page_grow(&a->m->alloc, a->g, &a->cap, a->n + 1,
                                sizeof *v);
    if (!v) {
      nomem = 1;
      break;
    }
    a->g = v;
    guard *gd = &v[a->n];
    memset(gd, 0, sizeof *gd);
    gd->entity = e;
    gd->unique = u;
    gd->key = (uint32_t)a->text.len;
    gd->key_len = pk->val_len;
    if (ddbst__buf_append(&a->text, pg->text.data + pk->val, pk->val_len + 1)) {
      nomem = 1;
      break;
    }
    gd->state = holder_of(a, pg, attr_named(pg, i, "holderKey"), gd, &nomem)
                    ? G_PENDING
                    : G_UNTRACEABLE;
    a->n++;
    added++;
  }
  if (nomem) {
    ddbst_buf_truncate(&a->text, text0);
    a->n = n0;
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return added;
}

static int same_holder(const ddbst_guard_audit *a, const guard *x,
                       const guard *y) {
  const char *t = a->text.data;
  return x->hpk_len == y->hpk_len && x->hsk_len == y->hsk_len &&
         !memcmp(t + x->hpk, t + y->hpk, x->hpk_len) &&
         !memcmp(t + x->hsk, t + y->hsk, x->hsk_len);
}

int ddbst_guard_audit_request(ddbst_guard_audit *a, ddbst_buf *out,
                              ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!a || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "audit or buffer is NULL");
  const ddbst_model *m = a->m;
  uint32_t serial = ++a->flight;
  uint32_t picked[HOLDERS_PER_REQUEST];
  int npicked = 0;
  for (uint32_t i = 0; i < a->n; i++) {
    guard *gd = &a->g[i];
    if (gd->state != G_PENDING) continue;
    int k = 0;
    while (k < npicked && !same_holder(a, &a->g[picked[k]], gd)) k++;
    if (k == npicked) {
      if (npicked == HOLDERS_PER_REQUEST) continue; /* the next request's */
      picked[npicked++] = i;
    }
    gd->flight = serial;
  }
  if (!npicked) return 0;
  const char *t = a->text.data;
  int rc = ddbst__buf_puts(out, "{\"RequestItems\":{");
  rc = rc ? rc : ddbst__json_string(out, m->table_name, strlen(m->table_name));
  rc = rc ? rc : ddbst__buf_puts(out, ":{\"Keys\":[");
  for (int k = 0; !rc && k < npicked; k++) {
    const guard *gd = &a->g[picked[k]];
    rc = ddbst__buf_puts(out, k ? ",{" : "{");
    rc = rc ? rc : ddbst__buf_append(out, m->pk_jname.p, m->pk_jname.n);
    rc = rc ? rc : ddbst__write_s(out, t + gd->hpk, gd->hpk_len);
    if (!rc && m->sk_attr) {
      rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : ddbst__buf_append(out, m->sk_jname.p, m->sk_jname.n);
      rc = rc ? rc : ddbst__write_s(out, t + gd->hsk, gd->hsk_len);
    }
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  /* strongly consistent: a holder written a moment ago is not an orphan's */
  rc = rc ? rc : ddbst__buf_puts(out, "],\"ConsistentRead\":true}}}");
  if (rc) {
    ddbst_buf_reset(out);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return DDBST_OP_BATCH_GET_ITEM;
}

/* Whether the holder, item `i` of the answer, holds guard `gd`: it is of
 * the entity the guard claims, and its values render the guard's key.
 * 1, 0, or DDBST_ENOMEM (never taken for "not held"). */
static int holds(ddbst_guard_audit *a, uint32_t i, const guard *gd) {
  const ddbst_page *pg = a->page;
  if (pg->items[i].entity != gd->entity) return 0;
  ddbst_error e2;
  int rc = ddbst__page_fill(pg, i, a->item, &e2);
  if (rc == DDBST_ENOMEM) return rc;
  if (rc < 0) return 0; /* values the model refuses hold nothing */
  const ddbst__entity *e = &a->m->entities[gd->entity];
  const char *g = a->text.data + gd->key;
  for (int k = 0; k < e->nuniques; k++) {
    const ddbst__unique *u = &e->uniques[k];
    if (gd->unique >= 0 ? k != gd->unique : !fits(a->m, u, g, gd->key_len))
      continue;
    uint32_t off, len;
    size_t limit = a->m->sk_attr ? DDBST__SK_MAX : DDBST__PK_MAX;
    ddbst_buf_reset(&a->item->keytext);
    rc = ddbst__render_into(a->item, &u->tmpl, u->name, limit, &off, &len,
                            &e2);
    if (rc == DDBST_ENOMEM) return rc;
    if (rc == 0 && len == gd->key_len &&
        !memcmp(a->item->keytext.data + off, g, len))
      return 1;
  }
  return 0;
}

int ddbst_guard_audit_answer(ddbst_guard_audit *a, const char *json,
                             size_t len, ddbst_error *err) {
  if (!a) return ddbst__fail(err, DDBST_EINVAL, NULL, "audit is NULL");
  if (!a->flight)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "no request was built: send ddbst_guard_audit_request's "
                       "body first");
  ddbst_page *pg = a->page;
  pg->keep_unknown = 1;
  int rc = ddbst__page_parse(pg, DDBST__ANSWER_BATCH_GET, json,
                             ddbst__len(json, len), err);
  pg->keep_unknown = 0;
  if (rc < 0) return rc;
  const ddbst_model *m = a->m;
  /* a holder DynamoDB left unprocessed is read again; only an answer
   * that left nothing says a holder it does not hold is gone */
  int complete = pg->nspans == 0;
  int resolved = 0;
  for (uint32_t x = 0; x < a->n; x++) {
    guard *gd = &a->g[x];
    if (gd->state != G_PENDING || gd->flight != a->flight) continue;
    int found = -1;
    for (uint32_t i = 0; i < pg->nitems && found < 0; i++) {
      const ddbst__pattr *pk = attr_named(pg, i, m->pk_attr);
      const ddbst__pattr *sk = m->sk_attr ? attr_named(pg, i, m->sk_attr) : NULL;
      if (text_is(pg, pk, a->text.data + gd->hpk, gd->hpk_len) &&
          (!m->sk_attr || text_is(pg, sk, a->text.data + gd->hsk, gd->hsk_len)))
        found = (int)i;
    }
    if (found >= 0) {
      int held = holds(a, (uint32_t)found, gd);
      if (held < 0) /* the guards not decided yet are asked for again */
        return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
      gd->state = held ? G_HELD : G_STALE;
    } else if (complete) {
      gd->state = G_MISSING;
    } else {
      continue;
    }
    resolved++;
  }
  return resolved;
}

/* The k-th guard no holder explains, or NULL. */
static const guard *orphan_at(const ddbst_guard_audit *a, int k) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->g[i].state >= G_MISSING && k-- == 0) return &a->g[i];
  return NULL;
}

static int pending(const ddbst_guard_audit *a) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->g[i].state == G_PENDING) return 1;
  return 0;
}

int ddbst_guard_audit_orphan(const ddbst_guard_audit *a, int k,
                             const char **guard_key, const char **holder_pk,
                             const char **holder_sk, int *entity,
                             const char **unique) {
  if (!a || k < 0 || pending(a)) return DDBST_EINVAL;
  const guard *gd = orphan_at(a, k);
  if (!gd) return DDBST_ENOTFOUND;
  const char *t = a->text.data;
  if (guard_key) *guard_key = t + gd->key;
  if (holder_pk) *holder_pk = gd->state == G_UNTRACEABLE ? NULL : t + gd->hpk;
  if (holder_sk)
    *holder_sk = gd->state == G_UNTRACEABLE || !a->m->sk_attr ? NULL : t + gd->hsk;
  if (entity) *entity = gd->entity;
  if (unique)
    *unique = gd->unique >= 0
                  ? a->m->entities[gd->entity].uniques[gd->unique].name
                  : NULL;
  return gd->state == G_MISSING ? DDBST_GUARD_MISSING
         : gd->state == G_STALE ? DDBST_GUARD_STALE
                                : DDBST_GUARD_UNTRACEABLE;
}

int ddbst_guard_audit_json(const ddbst_guard_audit *a, ddbst_buf *out,
                           ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!a || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "audit or buffer is NULL");
  if (pending(a))
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "holders are still unread: send "
                       "ddbst_guard_audit_request's bodies and give their "
                       "answers to ddbst_guard_audit_answer until it builds "
                       "none");
  static const char *const kinds[] = {NULL, "missing", "stale", "untraceable"};
  const ddbst_model *m = a->m;
  char num[24];
  snprintf(num, sizeof num, "%u", a->n);
  int rc = ddbst__buf_puts(out, "{\"guards\":");
  rc = rc ? rc : ddbst__buf_puts(out, num);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"orphans\":[");
  const char *g, *hpk, *hsk, *u;
  int e, kind;
  for (int k = 0; !rc && (kind = ddbst_guard_audit_orphan(a, k, &g, &hpk, &hsk,
                                                          &e, &u)) > 0;
       k++) {
    rc = ddbst__buf_puts(out, k ? ",{\"kind\":\"" : "{\"kind\":\"");
    rc = rc ? rc : ddbst__buf_puts(out, kinds[kind]);
    rc = rc ? rc : ddbst__buf_puts(out, "\",\"entity\":");
    const char *en = m->entities[e].name;
    rc = rc ? rc : ddbst__json_string(out, en, strlen(en));
    rc = rc ? rc : ddbst__buf_puts(out, ",\"unique\":");
    rc = rc ? rc
            : u ? ddbst__json_string(out, u, strlen(u))
                : ddbst__buf_puts(out, "null");
    rc = rc ? rc : ddbst__buf_puts(out, ",\"guard\":");
    rc = rc ? rc : ddbst__json_string(out, g, strlen(g));
    rc = rc ? rc : ddbst__buf_puts(out, ",\"holder\":");
    if (!rc && !hpk) {
      rc = ddbst__buf_puts(out, "null");
    } else if (!rc) {
      rc = ddbst__buf_putc(out, '{');
      rc = rc ? rc : ddbst__json_string(out, m->pk_attr, strlen(m->pk_attr));
      rc = rc ? rc : ddbst__buf_putc(out, ':');
      rc = rc ? rc : ddbst__json_string(out, hpk, strlen(hpk));
      if (!rc && hsk) {
        rc = ddbst__buf_putc(out, ',');
        rc = rc ? rc : ddbst__json_string(out, m->sk_attr, strlen(m->sk_attr));
        rc = rc ? rc : ddbst__buf_putc(out, ':');
        rc = rc ? rc : ddbst__json_string(out, hsk, strlen(hsk));
      }
      rc = rc ? rc : ddbst__buf_putc(out, '}');
    }
    rc = rc ? rc : ddbst__buf_putc(out, '}');
  }
  rc = rc ? rc : ddbst__buf_puts(out, "]}");
  if (rc) {
    ddbst_buf_reset(out);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}
