/* What one stored item needs to be an item of the new model: which entity
 * it is (by its entity attribute, else its keys, under either model), the
 * item the new model writes from its values, and the difference — the
 * attributes to set, the stale ones to remove, a primary key that moves,
 * guards that move with it. Items the new model cannot take are refused
 * with the reason; none is ever dropped. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"
#include "evolve/migrate.h"
#include "item/attribute_value.h"

int ddbst__mig_check_page(const ddbst_migration *m, const ddbst_page *pg,
                          ddbst_error *err) {
  if (!pg) return ddbst__fail(err, DDBST_EINVAL, "page", "page is NULL");
  const ddbst_model *pm = pg->m;
  if (strcmp(pm->table_name, m->nw->table_name) != 0 ||
      strcmp(pm->pk_attr, m->nw->pk_attr) != 0 ||
      (!pm->sk_attr) != (!m->nw->sk_attr) ||
      (pm->sk_attr && strcmp(pm->sk_attr, m->nw->sk_attr) != 0))
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page is of table %s, the migration of %s",
                       pm->table_name, m->nw->table_name);
  if (pg->failed)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page's last parse failed: it holds no items");
  if (pg->kind != DDBST__ANSWER_QUERY && pg->kind != DDBST__ANSWER_GET_ITEM &&
      pg->kind != DDBST__ANSWER_BATCH_GET &&
      pg->kind != DDBST__ANSWER_TRANSACT_GET)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "the page holds no items of a read (a Scan, Query or "
                       "GetItem answer)");
  if (pg->scan_set) {
    if (pg->scan.index >= 0)
      return ddbst__fail(err, DDBST_EINVAL, "page",
                         "the page is of a scan of index %s: the migration "
                         "scans the table, where every item is",
                         pm->indexes[pg->scan.index].name);
    uint8_t bare[DDBST__SCAN_DIGEST];
    ddbst__scan_digest(pm->begin.p, pm->begin.n, bare);
    if (memcmp(bare, pg->scan.digest, sizeof bare) != 0)
      return ddbst__fail(err, DDBST_EINVAL, "page",
                         "the page is of a scan with a filter, entity filter "
                         "or projection: the migration must read every item "
                         "whole");
  }
  return 0;
}

int ddbst__mig_raw_av(ddbst_buf *b, const ddbst__mraw *r) {
  int rc;
  switch (r->type) {
  case DDBST__AV_S: return ddbst__write_s(b, r->val, r->len);
  case DDBST__AV_NULL: return ddbst__buf_puts(b, "{\"NULL\":true}");
  case DDBST__AV_BOOL:
    rc = ddbst__buf_puts(b, "{\"BOOL\":");
    rc = rc ? rc : ddbst__buf_append(b, r->val, r->len);
    return rc ? rc : ddbst__buf_putc(b, '}');
  case DDBST__AV_N:
  case DDBST__AV_B:
    /* number text and base64: nothing in them needs an escape */
    rc = ddbst__buf_puts(b, r->type == DDBST__AV_N ? "{\"N\":\"" : "{\"B\":\"");
    rc = rc ? rc : ddbst__buf_append(b, r->val, r->len);
    return rc ? rc : ddbst__buf_puts(b, "\"}");
  default: return ddbst__buf_append(b, r->val, r->len);
  }
}

static int raw_find(const ddbst_migration *m, const char *name) {
  for (int i = 0; i < m->nraw; i++)
    if (strcmp(m->raw[i].name, name) == 0) return i;
  return -1;
}

int ddbst__mig_key_json(const ddbst_migration *m, ddbst_buf *b) {
  int rc = ddbst__buf_putc(b, '{');
  const char *names[2] = {m->nw->pk_attr, m->nw->sk_attr};
  int at[2] = {m->raw_pk, m->raw_sk};
  int n = 0;
  for (int k = 0; k < 2 && !rc; k++) {
    if (!names[k] || at[k] < 0) continue;
    const ddbst__mraw *r = &m->raw[at[k]];
    if (n++) rc = ddbst__buf_putc(b, ',');
    rc = rc ? rc : ddbst__json_string(b, names[k], strlen(names[k]));
    rc = rc ? rc : ddbst__buf_putc(b, ':');
    rc = rc ? rc
            : (r->type == DDBST__AV_S ? ddbst__json_string(b, r->val, r->len)
                                      : ddbst__buf_append(b, r->val, r->len));
  }
  return rc ? rc : ddbst__buf_putc(b, '}');
}

/* The stored attributes of the item (recovered facets are not stored). */
static int load_raw(ddbst_migration *m, const ddbst_page *pg, uint32_t slot) {
  const ddbst__pitem *pi = &pg->items[slot];
  m->nraw = m->nremoves = m->nsets = 0;
  m->raw_pk = m->raw_sk = m->version_raw = -1;
  m->oe = m->ne = -1;
  m->moved = m->guards_move = m->guard = 0;
  m->reason[0] = '\0';
  if ((int)pi->count > m->cap_raw) {
    int cap = (int)pi->count + 8;
    ddbst__mraw *r = ddbst__realloc(&m->alloc, m->raw, (size_t)cap * sizeof *r);
    if (!r) return DDBST_ENOMEM;
    m->raw = r;
    int *rm = ddbst__realloc(&m->alloc, m->removes, (size_t)cap * sizeof *rm);
    if (!rm) return DDBST_ENOMEM;
    m->removes = rm;
    m->cap_raw = cap;
  }
  for (uint32_t k = pi->first; k < pi->first + pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[k];
    if (r->role == DDBST__PA_RECOVERED) continue;
    ddbst__mraw *w = &m->raw[m->nraw];
    *w = (ddbst__mraw){pg->text.data + r->name, r->type,
                       pg->text.data + r->val, r->val_len};
    if (strcmp(w->name, m->nw->pk_attr) == 0) m->raw_pk = m->nraw;
    if (m->nw->sk_attr && strcmp(w->name, m->nw->sk_attr) == 0)
      m->raw_sk = m->nraw;
    m->nraw++;
  }
  return 0;
}

/* Whether `v` names a unique constraint's guard items ("User.email") of
 * model `mm`. */
static int guard_type(const ddbst_model *mm, const char *v) {
  for (int e = 0; e < mm->nentities; e++) {
    const ddbst__entity *en = &mm->entities[e];
    size_t n = strlen(en->name);
    if (strncmp(v, en->name, n) != 0 || v[n] != '.') continue;
    for (int u = 0; u < en->nuniques; u++)
      if (strcmp(v + n + 1, en->uniques[u].name) == 0) return 1;
  }
  return 0;
}

static const char *raw_string(const ddbst_migration *m, const char *name) {
  int i = name ? raw_find(m, name) : -1;
  return i >= 0 && m->raw[i].type == DDBST__AV_S ? m->raw[i].val : NULL;
}

/* Sets m->oe and m->ne; 0, or an outcome for an item that is no entity. */
static int identify(ddbst_migration *m) {
  const char *type = raw_string(m, m->nw->entity_attr);
  if (!type) type = raw_string(m, m->old->entity_attr);
  if (type) {
    if (guard_type(m->nw, type) || guard_type(m->old, type)) {
      m->guard = 1;
      return DDBST_MIGRATE_GUARD;
    }
    m->ne = ddbst__diff_entity_of(m->nw, type);
    m->oe = ddbst__diff_entity_of(m->old, type);
    if (m->ne < 0 && m->oe < 0) {
      snprintf(m->reason, sizeof m->reason,
               "its entity attribute names %.80s, an entity of neither model",
               type);
      return DDBST_MIGRATE_FOREIGN;
    }
  } else {
    int h = raw_find(m, "holderKey");
    if (h >= 0 && m->raw[h].type == DDBST__AV_M) {
      m->guard = 1;
      return DDBST_MIGRATE_GUARD;
    }
    const ddbst__mraw *pk = m->raw_pk >= 0 ? &m->raw[m->raw_pk] : NULL;
    const ddbst__mraw *sk = m->raw_sk >= 0 ? &m->raw[m->raw_sk] : NULL;
    if (pk && pk->type == DDBST__AV_S && (!sk || sk->type == DDBST__AV_S)) {
      int rc = ddbst_item_from_key(m->newit, NULL, pk->val, pk->len,
                                   sk ? sk->val : NULL, sk ? sk->len : 0,
                                   NULL);
      if (rc == DDBST_ENOMEM) return rc;
      if (rc >= 0) {
        m->ne = rc;
        m->oe = m->old_of_new[rc];
      } else {
        rc = ddbst_item_from_key(m->oldit, NULL, pk->val, pk->len,
                                 sk ? sk->val : NULL, sk ? sk->len : 0, NULL);
        if (rc == DDBST_ENOMEM) return rc;
        if (rc >= 0) {
          m->oe = rc;
          m->ne = m->new_of_old[rc];
        }
      }
    }
    if (m->ne < 0 && m->oe < 0) {
      snprintf(m->reason, sizeof m->reason,
               "it has no entity attribute and its keys match no template "
               "of either model");
      return DDBST_MIGRATE_FOREIGN;
    }
  }
  if (m->ne < 0) {
    snprintf(m->reason, sizeof m->reason,
             "%s is not in the new model: its items stay until you delete "
             "them",
             m->old->entities[m->oe].name);
    return DDBST_MIGRATE_REFUSED;
  }
  return 0;
}

static int refuse(ddbst_migration *m, const char *what, const char *why) {
  snprintf(m->reason, sizeof m->reason, "%s%s%s", what ? what : "",
           what ? ": " : "", why);
  ddbst__trim_partial_utf8(m->reason);
  return DDBST_MIGRATE_REFUSED;
}

/* The item as the new model writes it, from the stored values. */
static int build_target(ddbst_migration *m, int64_t now_us) {
  ddbst_item *it = m->newit;
  const ddbst__entity *e = &m->nw->entities[m->ne];
  ddbst_error e2;
  int rc = ddbst_item_reset(it, m->ne);
  for (int i = 0; i < m->nraw && !rc; i++) {
    const ddbst__mraw *r = &m->raw[i];
    int a = ddbst__diff_attr_of(e, r->name);
    if (a < 0 || r->type == DDBST__AV_NULL) continue;
    int want = ddbst__av_of_type(e->attrs[a].type);
    if (r->type != want) {
      snprintf(e2.message, sizeof e2.message,
               "stored as %s; the new model has %s.%s of type %s",
               ddbst__av_tag(r->type), e->name, r->name,
               ddbst__type_name(e->attrs[a].type));
      return refuse(m, r->name, e2.message);
    }
    if (ddbst__av_is_container(r->type)) {
      rc = ddbst__item_store(it, a, r->val, r->len);
      continue;
    }
    rc = ddbst_item_set(it, a, r->val, r->len, &e2);
    if (rc && rc != DDBST_ENOMEM) return refuse(m, NULL, e2.message);
  }
  if (rc) return rc;
  rc = ddbst_item_apply_defaults(it, now_us, &e2);
  if (!rc && e->version_attr >= 0 && !it->vals[e->version_attr].set)
    rc = ddbst_item_set_int(it, e->version_attr, 1, &e2);
  if (!rc) rc = ddbst_item_check_required(it, &e2);
  if (!rc) rc = ddbst_item_build_keys(it, &e2);
  if (rc == DDBST_ENOMEM) return rc;
  if (rc < 0) return refuse(m, NULL, e2.message);
  return 0;
}

static int same_s(const ddbst__mraw *r, const char *v, size_t n) {
  return r->type == DDBST__AV_S && r->len == n && memcmp(r->val, v, n) == 0;
}

/* Whether the stored attribute `ri` holds the new item's value of `a`. */
static int same_value(ddbst_migration *m, int ri, const ddbst__attr *a,
                      const char *v, size_t n, int *rc) {
  if (ri < 0) return 0;
  ddbst_buf_reset(&m->a);
  ddbst_buf_reset(&m->b);
  *rc = ddbst__write_av(&m->a, a, v, n);
  if (!*rc) *rc = ddbst__mig_raw_av(&m->b, &m->raw[ri]);
  return !*rc && m->a.len == m->b.len &&
         memcmp(m->a.data, m->b.data, m->a.len) == 0;
}

/* Whether stored attribute `name` is one the new item leaves behind: a key
 * attribute it does not write, the old entity attribute, an attribute the
 * new model removed from the entity. */
static int stale(const ddbst_migration *m, const char *name) {
  for (int k = 0; k < m->nkey_names; k++)
    if (strcmp(m->key_names[k], name) == 0) return 1;
  if (m->old->entity_attr && strcmp(name, m->old->entity_attr) == 0 &&
      (!m->nw->entity_attr || strcmp(name, m->nw->entity_attr) != 0))
    return 1;
  if (m->oe >= 0 &&
      ddbst__diff_attr_of(&m->old->entities[m->oe], name) >= 0 &&
      ddbst__diff_attr_of(&m->nw->entities[m->ne], name) < 0)
    return 1;
  return 0;
}

static int in_target(const ddbst_migration *m, const char *name, int nkeys) {
  for (int i = 0; i < nkeys; i++) {
    const char *kn;
    ddbst_item_key(m->newit, i, &kn, NULL, NULL);
    if (strcmp(kn, name) == 0) return 1;
  }
  const ddbst__entity *e = &m->nw->entities[m->ne];
  int a = ddbst__diff_attr_of(e, name);
  return a >= 0 && m->newit->vals[a].set;
}

static int diff_item(ddbst_migration *m, int nkeys) {
  const ddbst_model *nw = m->nw;
  const ddbst__entity *e = &nw->entities[m->ne];
  int rc = 0;
  for (int i = 0; i < nkeys; i++) {
    const char *name, *v;
    size_t n;
    ddbst_item_key(m->newit, i, &name, &v, &n);
    int ri = raw_find(m, name);
    int same = ri >= 0 && same_s(&m->raw[ri], v, n);
    if (name == nw->pk_attr || name == nw->sk_attr ||
        strcmp(name, nw->pk_attr) == 0 ||
        (nw->sk_attr && strcmp(name, nw->sk_attr) == 0)) {
      if (!same) m->moved = 1;
    } else if (!same) {
      m->sets[m->nsets++] = (ddbst__mset){name, -1, i};
    }
  }
  for (int a = 0; a < e->nattrs; a++) {
    size_t n;
    const char *v = ddbst__item_text(m->newit, a, &n);
    if (!v) continue;
    int ri = raw_find(m, e->attrs[a].name);
    if (!same_value(m, ri, &e->attrs[a], v, n, &rc) && m->nsets < m->cap_sets)
      m->sets[m->nsets++] = (ddbst__mset){e->attrs[a].name, a, -1};
    if (rc) return rc;
  }
  for (int i = 0; i < m->nraw; i++) {
    const char *name = m->raw[i].name;
    if (i == m->raw_pk || i == m->raw_sk || in_target(m, name, nkeys))
      continue;
    if (stale(m, name)) m->removes[m->nremoves++] = i;
  }
  if (e->nuniques && (m->moved || m->unique_changes[m->ne]))
    m->guards_move = 1;
  if (m->oe >= 0) {
    const ddbst__entity *oe = &m->old->entities[m->oe];
    if (oe->version_attr >= 0) {
      int vi = raw_find(m, oe->attrs[oe->version_attr].name);
      if (vi >= 0 && m->raw[vi].type == DDBST__AV_N) m->version_raw = vi;
    }
  }
  return 0;
}

int ddbst__mig_analyse(ddbst_migration *m, const ddbst_page *pg,
                       uint32_t slot, int64_t now_us) {
  int rc = load_raw(m, pg, slot);
  if (rc) return rc;
  if (!pg->items[slot].present) {
    snprintf(m->reason, sizeof m->reason, "no item: the read found nothing");
    return DDBST_MIGRATE_FOREIGN;
  }
  if (m->raw_pk < 0 || (m->nw->sk_attr && m->raw_sk < 0)) {
    snprintf(m->reason, sizeof m->reason,
             "the item lacks the table's key attributes: read it whole");
    return DDBST_MIGRATE_FOREIGN;
  }
  rc = identify(m);
  if (rc) return rc;
  rc = build_target(m, now_us);
  if (rc) return rc;
  int nkeys = m->newit->nkeys;
  rc = diff_item(m, nkeys);
  if (rc) return rc;
  if (!m->moved && !m->nsets && !m->nremoves && !m->guards_move)
    return DDBST_MIGRATE_SKIP;
  return DDBST_MIGRATE_WRITE;
}
