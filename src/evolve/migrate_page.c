/* Stepping a page through a migration: each item's outcome and write, what
 * a failed write means, the re-read of one item, reading items of both
 * models, and verifying a page against the new model. */
#include <stdio.h>
#include <string.h>

#include "evolve/migrate.h"
#include "json/jw.h"

int ddbst__mig_report(const ddbst_migration *m, const char *member,
                      const char *text, ddbst_buf *out) {
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "key");
  if (ddbst__jw_value(&w)) ddbst__jw_status(&w, ddbst__mig_key_json(m, out));
  ddbst__jw_key(&w, "entity");
  const char *e = m->ne >= 0   ? m->nw->entities[m->ne].name
                  : m->oe >= 0 ? m->old->entities[m->oe].name
                               : NULL;
  if (e)
    ddbst__jw_str(&w, e);
  else
    ddbst__jw_null(&w);
  ddbst__jw_pair(&w, member, text);
  ddbst__jw_close(&w, '}');
  return w.rc;
}

int ddbst_migration_page(ddbst_migration *m, const ddbst_page *page,
                         ddbst_error *err) {
  if (!m) return ddbst__fail(err, DDBST_EINVAL, NULL, "migration is NULL");
  int rc = ddbst__mig_check_page(m, page, err);
  if (rc) return rc;
  m->page = page;
  m->next_i = 0;
  m->count = page->count;
  m->given = m->wrote = 0;
  m->cur = -1;
  return page->count;
}

/* The outcome of the item analysed into `out`: the write, a report, or
 * nothing. */
static int give(ddbst_migration *m, int outcome, int *op, ddbst_buf *out,
                ddbst_error *err) {
  if (outcome < 0) return ddbst__fail(err, outcome, NULL, NULL);
  m->given = outcome != DDBST_MIGRATE_FOREIGN || m->raw_pk >= 0;
  if (outcome == DDBST_MIGRATE_WRITE) {
    int rc = ddbst__mig_write(m, out, err);
    if (rc == DDBST_ERANGE) {
      snprintf(m->reason, sizeof m->reason, "%s", err ? err->message : "");
      outcome = DDBST_MIGRATE_REFUSED;
    } else if (rc < 0) {
      return rc;
    } else {
      *op = rc;
      m->wrote = 1;
      return outcome;
    }
  }
  if (outcome == DDBST_MIGRATE_REFUSED || outcome == DDBST_MIGRATE_FOREIGN) {
    int rc = ddbst__mig_report(m, "reason", m->reason, out);
    if (rc) {
      ddbst_buf_reset(out);
      return ddbst__fail(err, rc, NULL, NULL);
    }
  }
  return outcome;
}

int ddbst_migration_next(ddbst_migration *m, int *op, ddbst_buf *out,
                         ddbst_error *err) {
  if (op) *op = 0;
  if (out) ddbst_buf_reset(out);
  if (!m || !op || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "migration, op and out must not be NULL");
  m->wrote = 0;
  if (m->reread_pending) {
    int outcome = ddbst__mig_analyse(m, m->reread_page, 0, DDBST_NOW);
    if (outcome == DDBST_ENOMEM) return ddbst__fail(err, outcome, NULL, NULL);
    m->reread_pending = 0;
    m->cur = -1;
    return give(m, outcome, op, out, err);
  }
  if (!m->page)
    return ddbst__fail(err, DDBST_EINVAL, "page",
                       "no page: give one with ddbst_migration_page");
  if (m->next_i >= m->count) return 0;
  uint32_t slot = ddbst__page_slot(m->page, m->next_i);
  int outcome = ddbst__mig_analyse(m, m->page, slot, DDBST_NOW);
  if (outcome == DDBST_ENOMEM) return ddbst__fail(err, outcome, NULL, NULL);
  m->cur = m->next_i++;
  return give(m, outcome, op, out, err);
}

int ddbst_migration_item_index(const ddbst_migration *m) {
  return m ? m->cur : DDBST_EINVAL;
}

int ddbst_migration_failed(ddbst_migration *m, const char *answer, size_t len,
                           ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "migration or out is NULL");
  if (!m->wrote)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "no write was given: ddbst_migration_failed reads the "
                       "answer to the last write ddbst_migration_next gave");
  ddbst_page *pg = m->err_page;
  int kind = ddbst_page_parse_error(pg, answer, ddbst__len(answer, len), err);
  if (kind < 0) return kind == DDBST_EVALUE ? DDBST_ESYNTAX : kind;
  if (kind == DDBST_DDB_CONDITIONAL_CHECK_FAILED) return DDBST_MIGRATE_REDO;
  if (kind == DDBST_DDB_TRANSACTION_CANCELED) {
    int n = ddbst_page_reason_count(pg);
    int redo = 0, taken = -1;
    for (int i = 0; i < n && i < m->nentries; i++) {
      int rk = ddbst_page_reason(pg, i, NULL, NULL);
      if (rk == DDBST_DDB_NONE) continue;
      if (rk != DDBST_DDB_CONDITIONAL_CHECK_FAILED)
        return ddbst_page_error_retryable(pg) ? DDBST_MIGRATE_RETRY
                                              : DDBST_EDYNAMODB;
      if (m->entries[i] == DDBST__ME_ITEM_OLD)
        redo = 1;
      else if (taken < 0)
        taken = m->entries[i];
    }
    /* the item changed: whatever else failed is read again with it */
    if (redo || taken < 0) return DDBST_MIGRATE_REDO;
    const char *why =
        taken == DDBST__ME_ITEM_PUT
            ? "its new primary key is held by another item (two items of the "
              "old model make one key of the new: one would overwrite the "
              "other)"
            : "its unique value is held by another item under the new model "
              "(a duplicate the new constraint refuses)";
    int rc = ddbst__mig_report(m, "reason", why, out);
    if (rc) return ddbst__fail(err, rc, NULL, NULL);
    m->wrote = 0;
    return DDBST_MIGRATE_REFUSED;
  }
  if (ddbst_page_error_retryable(pg)) return DDBST_MIGRATE_RETRY;
  return ddbst__fail(err, DDBST_EDYNAMODB, "__type", "%s: %s",
                     ddbst_page_error_type(pg), ddbst_page_error_message(pg));
}

int ddbst_migration_reread_request(ddbst_migration *m, ddbst_buf *out,
                                   ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "migration or out is NULL");
  if (!m->given || m->raw_pk < 0)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "no item was given: the re-read is of the last item "
                       "ddbst_migration_next gave");
  /* its key as read: the only key the pass ever writes an item from */
  int rc = ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n);
  rc = rc ? rc : ddbst__mig_key_of_read(m, out);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"ConsistentRead\":true}");
  if (rc) {
    ddbst_buf_reset(out);
    return ddbst__fail(err, rc, NULL, NULL);
  }
  return DDBST_OP_GET_ITEM;
}

int ddbst_migration_reread(ddbst_migration *m, const char *json, size_t len,
                           ddbst_error *err) {
  if (!m) return ddbst__fail(err, DDBST_EINVAL, NULL, "migration is NULL");
  ddbst_page *pg = m->reread_page;
  m->reread_pending = 0;
  /* an item the new model has no entity for is stepped as well (refused
   * or foreign), so the parse keeps it */
  pg->keep_unknown = 1;
  int n = ddbst__page_parse(pg, DDBST__ANSWER_GET_ITEM, json,
                            ddbst__len(json, len), err);
  pg->keep_unknown = 0;
  if (n < 0) return n;
  m->reread_pending = n > 0;
  m->wrote = 0;
  return m->reread_pending;
}

int ddbst_migration_identify(ddbst_migration *m, const ddbst_page *page,
                             int i, ddbst_item *item, int *entity_out,
                             ddbst_error *err) {
  if (entity_out) *entity_out = -1;
  if (!m) return ddbst__fail(err, DDBST_EINVAL, NULL, "migration is NULL");
  int rc = ddbst__mig_check_page(m, page, err);
  if (rc) return rc;
  if (i < 0 || i >= page->count)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item %d of %d does not exist",
                       i, page->count);
  if (item && item->m != m->nw)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item is not of the new model");
  int outcome =
      ddbst__mig_analyse(m, page, ddbst__page_slot(page, i), DDBST_NOW);
  if (outcome < 0) return ddbst__fail(err, outcome, NULL, NULL);
  if (m->page == page) m->given = 0; /* the stepping goes on as it was */
  if (outcome != DDBST_MIGRATE_SKIP && outcome != DDBST_MIGRATE_WRITE)
    return outcome;
  if (entity_out) *entity_out = m->ne;
  if (item) {
    rc = ddbst_item_reset(item, m->ne);
    const ddbst__entity *e = &m->nw->entities[m->ne];
    for (int a = 0; a < e->nattrs && !rc; a++) {
      size_t n;
      const char *v = ddbst__item_text(m->newit, a, &n);
      if (v) rc = ddbst__item_store(item, a, v, n);
    }
    if (rc) return ddbst__fail(err, rc, NULL, NULL);
  }
  return outcome;
}

/* One problem line of the item being verified. */
static int problem(ddbst_migration *m, ddbst_buf *out, const char *fmt, ...)
    DDBST__PRINTF(3, 4);
static int problem(ddbst_migration *m, ddbst_buf *out, const char *fmt, ...) {
  char text[DDBST_ERROR_MESSAGE_MAX * 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  ddbst__trim_partial_utf8(text);
  ddbst_buf_reset(&m->b);
  int rc = ddbst__mig_report(m, "problem", text, &m->b);
  rc = rc ? rc : ddbst__buf_append(out, m->b.data, m->b.len);
  return rc ? rc : ddbst__buf_putc(out, '\n');
}

/* The problems of the item analysed (outcome WRITE, REFUSED, FOREIGN). */
static int item_problems(ddbst_migration *m, int outcome, ddbst_buf *out,
                         int *count) {
  if (outcome != DDBST_MIGRATE_WRITE) {
    (*count)++;
    return problem(m, out, "%s", m->reason);
  }
  int rc = 0;
  if (m->moved) {
    (*count)++;
    rc = problem(m, out,
                 "an item of the old model's shape: its primary key is not "
                 "the one the new model makes from its facets");
  }
  const ddbst__entity *e = &m->nw->entities[m->ne];
  for (int s = 0; s < m->nsets && !rc; s++) {
    const ddbst__mset *st = &m->sets[s];
    const char *v;
    size_t n;
    int stored = 0;
    for (int i = 0; i < m->nraw; i++)
      if (strcmp(m->raw[i].name, st->name) == 0) stored = 1;
    if (st->key >= 0)
      ddbst_item_key(m->newit, st->key, NULL, &v, &n);
    else
      v = ddbst__item_text(m->newit, st->attr, &n);
    (*count)++;
    rc = problem(m, out, "%s %s: the new model writes %.*s%s", st->name,
                 stored ? "differs" : "is missing", n > 120 ? 120 : (int)n, v,
                 st->key < 0 && e->attrs[st->attr].def != DDBST__DEF_NONE &&
                         !stored
                     ? " (its default)"
                     : "");
  }
  for (int r = 0; r < m->nremoves && !rc; r++) {
    (*count)++;
    rc = problem(m, out,
                 "%s is stale: the new model does not write it on this item",
                 m->raw[m->removes[r]].name);
  }
  return rc;
}

int ddbst_migration_verify(ddbst_migration *m, const ddbst_page *page,
                           ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "migration or out is NULL");
  int rc = ddbst_migration_page(m, page, err);
  if (rc < 0) return rc;
  int count = 0;
  for (int i = 0; i < page->count; i++) {
    int outcome = ddbst__mig_analyse(m, page, ddbst__page_slot(page, i),
                                     DDBST_NOW);
    if (outcome < 0) {
      rc = outcome;
      break;
    }
    if (outcome == DDBST_MIGRATE_SKIP || outcome == DDBST_MIGRATE_GUARD)
      continue;
    /* guards alone cannot be seen from the item: not a problem */
    if (outcome == DDBST_MIGRATE_WRITE && !m->moved && !m->nsets &&
        !m->nremoves)
      continue;
    rc = item_problems(m, outcome, out, &count);
    if (rc) break;
  }
  m->page = NULL;
  m->given = 0;
  if (rc < 0) {
    ddbst_buf_reset(out);
    return ddbst__fail(err, rc, NULL, NULL);
  }
  return count;
}
