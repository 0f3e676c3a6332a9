/* A migration's plan: the diff of the two models, refused when it holds a
 * change no migration can make, then its steps in order — indexes added,
 * the pass, the verify pass, indexes removed — as JSON or text. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"
#include "evolve/migrate.h"
#include "json/jw.h"

/* What the diff walk hands the plan. */
typedef struct planner {
  ddbst_migration *m;
  int refused_cls; /* the first change that refuses the migration */
  char what[DDBST_ERROR_PATH_MAX];
  char why[DDBST_ERROR_MESSAGE_MAX];
  const char *adds[DDBST__MAX_INDEXES], *removes[DDBST__MAX_INDEXES];
  const char *recreated[DDBST__MAX_INDEXES];
  int nadds, nremoves, nrecreated;
} planner;

static int add_note(ddbst_migration *m, const char *text) {
  ddbst__jw w;
  ddbst__jw_init(&w, &m->notes);
  if (m->nnotes) ddbst__jw_raw(&w, ",", 1);
  ddbst__jw_str(&w, text);
  ddbst__jw_init(&w, &m->notes_text);
  ddbst__jw_printf(&w, "  note: %s\n", text);
  m->nnotes++;
  return w.rc;
}

/* The model's own name for an index of the change (`name` lives only
 * during the callback). */
static const char *index_name(const ddbst_model *a, const ddbst_model *b,
                              const char *name) {
  for (int i = 0; i < a->nindexes; i++)
    if (strcmp(a->indexes[i].name, name) == 0) return a->indexes[i].name;
  for (int i = 0; i < b->nindexes; i++)
    if (strcmp(b->indexes[i].name, name) == 0) return b->indexes[i].name;
  return NULL;
}

static int on_change(void *user, const ddbst__change *c) {
  planner *p = user;
  ddbst_migration *m = p->m;
  int refuse = c->cls == DDBST_CHANGE_IMPOSSIBLE ||
               (c->cls == DDBST_CHANGE_UNSAFE &&
                !(m->flags & DDBST_MIGRATE_UNSAFE));
  if (refuse && (!p->refused_cls || c->cls > p->refused_cls)) {
    p->refused_cls = c->cls;
    snprintf(p->what, sizeof p->what, "%s", c->what);
    if (c->cls == DDBST_CHANGE_IMPOSSIBLE)
      snprintf(p->why, sizeof p->why, "impossible in place: %s", c->reason);
    else
      snprintf(p->why, sizeof p->why,
               "unsafe (accept it with --unsafe, \"unsafe\": true or "
               "DDBST_MIGRATE_UNSAFE); check first: %s",
               c->check ? c->check : c->reason);
    ddbst__trim_partial_utf8(p->why);
  }
  const char *add = c->add_index ? index_name(m->nw, m->old, c->add_index)
                                 : NULL;
  const char *rem = c->remove_index
                        ? index_name(m->old, m->nw, c->remove_index)
                        : NULL;
  if (add && rem) {
    if (p->nrecreated < DDBST__MAX_INDEXES) p->recreated[p->nrecreated++] = add;
  } else if (add) {
    if (p->nadds < DDBST__MAX_INDEXES) p->adds[p->nadds++] = add;
  } else if (rem) {
    if (p->nremoves < DDBST__MAX_INDEXES) p->removes[p->nremoves++] = rem;
  }
  if (strcmp(c->what, "table.ttlAttribute") == 0) {
    int rc = add_note(m, c->cls == DDBST_CHANGE_CLEANUP
                             ? "the TTL attribute is gone from the model: "
                               "send UpdateTimeToLive disabling it"
                             : "the TTL attribute is set or moved: once the "
                               "pass is done and checked, send "
                               "UpdateTimeToLive enabling it");
    if (rc) return rc;
  }
  if (c->cls < DDBST_CHANGE_CLEANUP) return 0;
  ddbst__jw w;
  ddbst__jw_init(&w, &m->work);
  if (m->nwork) ddbst__jw_raw(&w, ",", 1);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "class", ddbst_change_class_name(c->cls));
  ddbst__jw_pair(&w, "what", c->what);
  ddbst__jw_pair(&w, "reason", c->reason);
  ddbst__jw_close(&w, '}');
  ddbst__jw_init(&w, &m->work_text);
  ddbst__jw_printf(&w, "     %s %s\n", ddbst_change_class_name(c->cls),
                   c->what);
  m->nwork++;
  return w.rc;
}

/* Per entity of the new model: the old one of its name, whether its
 * primary key moves, whether a unique guard's key changes form. */
static void match_entities(ddbst_migration *m) {
  char how[DDBST__REASON_MAX];
  int narrows;
  for (int o = 0; o < m->old->nentities; o++) m->new_of_old[o] = -1;
  for (int n = 0; n < m->nw->nentities; n++) {
    const ddbst__entity *ne = &m->nw->entities[n];
    int o = ddbst__diff_entity_of(m->old, ne->name);
    m->old_of_new[n] = o;
    m->moves[n] = m->unique_changes[n] = 0;
    if (o < 0) continue;
    m->new_of_old[o] = n;
    const ddbst__entity *oe = &m->old->entities[o];
    m->moves[n] = ddbst__diff_template(oe, &oe->key.pk, ne, &ne->key.pk, how,
                                       sizeof how, &narrows) ||
                  ddbst__diff_template(oe, &oe->key.sk, ne, &ne->key.sk, how,
                                       sizeof how, &narrows);
    for (int u = 0; u < ne->nuniques; u++) {
      const ddbst__unique *ou = NULL;
      for (int k = 0; k < oe->nuniques; k++)
        if (strcmp(oe->uniques[k].name, ne->uniques[u].name) == 0)
          ou = &oe->uniques[k];
      if (!ou || ddbst__diff_template(oe, &ou->tmpl, ne, &ne->uniques[u].tmpl,
                                      how, sizeof how, &narrows))
        m->unique_changes[n] = 1;
    }
  }
}

static void add_key_name(ddbst_migration *m, const char *name) {
  for (int i = 0; i < m->nkey_names; i++)
    if (strcmp(m->key_names[i], name) == 0) return;
  m->key_names[m->nkey_names++] = name;
}

/* The key attributes either model writes besides the table's: a stored
 * one the new model does not write for an item is stale. */
static void collect_key_names(ddbst_migration *m) {
  const ddbst_model *ms[2] = {m->old, m->nw};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < ms[k]->nindexes; i++) {
      const ddbst__index *ix = &ms[k]->indexes[i];
      if (ddbst__index_own_pk(ix)) add_key_name(m, ix->pk_attr);
      if (ddbst__index_own_sk(ix)) add_key_name(m, ix->sk_attr);
    }
}

static void make_steps(ddbst_migration *m, const planner *p) {
  /* an index made again (a new projection) goes first: the pass writes
   * the keys it is made of, and it cannot exist twice */
  for (int i = 0; i < p->nrecreated; i++) {
    m->steps[m->nsteps++] = (ddbst__mstep){DDBST_STEP_REMOVE_INDEX,
                                           p->recreated[i]};
    m->steps[m->nsteps++] = (ddbst__mstep){DDBST_STEP_ADD_INDEX,
                                           p->recreated[i]};
  }
  for (int i = 0; i < p->nadds; i++)
    m->steps[m->nsteps++] = (ddbst__mstep){DDBST_STEP_ADD_INDEX, p->adds[i]};
  if (m->worst >= DDBST_CHANGE_CLEANUP) {
    m->steps[m->nsteps++] = (ddbst__mstep){DDBST_STEP_SCAN, NULL};
    m->steps[m->nsteps++] = (ddbst__mstep){DDBST_STEP_VERIFY, NULL};
  }
  for (int i = 0; i < p->nremoves; i++)
    m->steps[m->nsteps++] =
        (ddbst__mstep){DDBST_STEP_REMOVE_INDEX, p->removes[i]};
}

static int alloc_tables(ddbst_migration *m) {
  const ddbst_allocator *a = &m->alloc;
  size_t nn = (size_t)m->nw->nentities, no = (size_t)m->old->nentities;
  m->old_of_new = ddbst__malloc(a, (nn * 3 + no + 1) * sizeof(int));
  m->key_names = ddbst__malloc(
      a, (size_t)(m->old->nindexes + m->nw->nindexes + 1) * 2 *
             sizeof *m->key_names);
  m->cap_sets = m->nw->max_attrs + 4 + 2 * m->nw->nindexes;
  m->sets = ddbst__malloc(a, (size_t)m->cap_sets * sizeof *m->sets);
  m->newit = ddbst_item_new(m->nw, 0);
  m->oldit = ddbst_item_new(m->old, 0);
  m->reread_page = ddbst_page_new(m->nw);
  m->err_page = ddbst_page_new(m->nw);
  if (!m->old_of_new || !m->key_names || !m->sets || !m->newit ||
      !m->oldit || !m->reread_page || !m->err_page)
    return DDBST_ENOMEM;
  m->moves = m->old_of_new + nn;
  m->unique_changes = m->moves + nn;
  m->new_of_old = m->unique_changes + nn;
  return 0;
}

static void init_bufs(ddbst_migration *m) {
  ddbst_buf *bufs[] = {&m->work, &m->work_text, &m->notes, &m->notes_text,
                       &m->a,    &m->b,         &m->names, &m->values,
                       &m->expr, &m->cond,      &m->keys};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    ddbst__buf_init(bufs[i], &m->alloc);
}

void ddbst_migration_free(ddbst_migration *m) {
  if (!m) return;
  ddbst_buf *bufs[] = {&m->work, &m->work_text, &m->notes, &m->notes_text,
                       &m->a,    &m->b,         &m->names, &m->values,
                       &m->expr, &m->cond,      &m->keys};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    ddbst__buf_release(bufs[i]);
  const ddbst_allocator a = m->alloc;
  ddbst__free(&a, m->old_of_new);
  ddbst__free(&a, m->key_names);
  ddbst__free(&a, m->sets);
  ddbst__free(&a, m->removes);
  ddbst__free(&a, m->raw);
  ddbst__free(&a, m->nm);
  ddbst_item_free(m->newit);
  ddbst_item_free(m->oldit);
  ddbst_page_free(m->reread_page);
  ddbst_page_free(m->err_page);
  ddbst__free(&a, m);
}

static int same_table(const ddbst_model *o, const ddbst_model *n,
                      ddbst_error *err) {
  if (strcmp(o->table_name, n->table_name) != 0)
    return ddbst__fail(err, DDBST_EINVAL, "table.name",
                       "the models are of different tables (%s and %s): a "
                       "migration carries one table's items from a model to "
                       "the next",
                       o->table_name, n->table_name);
  if (strcmp(o->pk_attr, n->pk_attr) != 0 ||
      (!o->sk_attr) != (!n->sk_attr) ||
      (o->sk_attr && strcmp(o->sk_attr, n->sk_attr) != 0))
    return ddbst__fail(err, DDBST_EINVAL, "table.partitionKey",
                       "the table's key attributes differ between the models: "
                       "impossible in place (a new table and a copy)");
  return 0;
}

int ddbst_migration_new(const ddbst_model *old_model,
                        const ddbst_model *new_model, uint32_t flags,
                        ddbst_migration **out, ddbst_error *err) {
  if (out) *out = NULL;
  if (!old_model || !new_model || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "old_model, new_model and out must not be NULL");
  if (flags & ~DDBST_MIGRATE_UNSAFE)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a migration takes DDBST_MIGRATE_UNSAFE only");
  int rc = same_table(old_model, new_model, err);
  if (rc) return rc;
  ddbst_migration *m = ddbst__malloc(&new_model->alloc, sizeof *m);
  if (!m) return ddbst__fail(err, DDBST_ENOMEM, NULL, NULL);
  memset(m, 0, sizeof *m);
  m->old = old_model;
  m->nw = new_model;
  m->alloc = new_model->alloc;
  m->flags = flags;
  m->cur = -1;
  init_bufs(m);
  planner *p = NULL;
  rc = alloc_tables(m);
  if (!rc) {
    p = ddbst__malloc(&m->alloc, sizeof *p);
    if (!p) rc = DDBST_ENOMEM;
  }
  if (rc) {
    ddbst_migration_free(m);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, NULL);
  }
  memset(p, 0, sizeof *p);
  p->m = m;
  rc = ddbst__diff_walk(old_model, new_model, 0, &m->alloc, on_change, p,
                        err);
  if (rc >= 0 && p->refused_cls)
    rc = ddbst__fail(err, DDBST_EINVAL, p->what, "%s", p->why);
  else if (rc == DDBST_ENOMEM)
    ddbst__fail(err, rc, NULL, NULL);
  if (rc >= 0) {
    m->worst = rc;
    match_entities(m);
    collect_key_names(m);
    make_steps(m, p);
    rc = 0;
  }
  ddbst__free(&m->alloc, p);
  if (rc) {
    ddbst_migration_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

int ddbst_migration_step_count(const ddbst_migration *m) {
  return m ? m->nsteps : DDBST_EINVAL;
}

int ddbst_migration_step(const ddbst_migration *m, int i, const char **index) {
  if (index) *index = NULL;
  if (!m || i < 0 || i >= m->nsteps) return DDBST_EINVAL;
  if (index) *index = m->steps[i].index;
  return m->steps[i].kind;
}

int ddbst_migration_step_request(const ddbst_migration *m, int i,
                                 ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !out || i < 0 || i >= m->nsteps)
    return ddbst__fail(err, DDBST_EINVAL, "step",
                       "no step %d: the plan has %d", i, m ? m->nsteps : 0);
  const ddbst__mstep *s = &m->steps[i];
  if (s->kind == DDBST_STEP_ADD_INDEX)
    return ddbst_update_table_add_index_request(m->nw, s->index, out, err);
  if (s->kind == DDBST_STEP_REMOVE_INDEX) {
    /* an index made again is removed as the old model has it */
    int again = ddbst__diff_index_of(m->nw, s->index) >= 0;
    if (!again)
      return ddbst_update_table_remove_index_request(m->nw, s->index, out,
                                                     err);
    if (ddbst__buf_append(out, m->nw->begin.p, m->nw->begin.n) ||
        ddbst__buf_puts(out, ",\"GlobalSecondaryIndexUpdates\":[{\"Delete\":"
                             "{\"IndexName\":") ||
        ddbst__json_string(out, s->index, strlen(s->index)) ||
        ddbst__buf_puts(out, "}}]}")) {
      ddbst_buf_reset(out);
      return ddbst__fail(err, DDBST_ENOMEM, NULL, NULL);
    }
    return DDBST_OP_UPDATE_TABLE;
  }
  return 0;
}

int ddbst_migration_moves(const ddbst_migration *m, const char *name) {
  if (!m || !name) return DDBST_EINVAL;
  int n = ddbst__diff_entity_of(m->nw, name);
  return n < 0 ? DDBST_ENOTFOUND : m->moves[n];
}

static const char *const step_names[] = {"", "addIndex", "scan", "verify",
                                         "removeIndex"};

static void plan_json(const ddbst_migration *m, ddbst__jw *w, ddbst_buf *body,
                      ddbst_error *err) {
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "table", m->nw->table_name);
  ddbst__jw_pair(w, "worst", ddbst_change_class_name(m->worst));
  ddbst__jw_key(w, "steps");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < m->nsteps && !w->rc; i++) {
    const ddbst__mstep *s = &m->steps[i];
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "step", step_names[s->kind]);
    if (s->index) {
      ddbst__jw_pair(w, "index", s->index);
      int op = ddbst_migration_step_request(m, i, body, err);
      if (op < 0) {
        ddbst__jw_status(w, op);
        break;
      }
      ddbst__jw_key(w, "request");
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "operation", ddbst_operation_name(op));
      ddbst__jw_key(w, "body");
      ddbst__jw_json(w, ddbst_buf_data(body), ddbst_buf_len(body));
      ddbst__jw_close(w, '}');
      if (s->kind == DDBST_STEP_ADD_INDEX)
        ddbst__jw_pair(w, "then",
                       "wait until DescribeTable says its IndexStatus is "
                       "ACTIVE");
    } else if (s->kind == DDBST_STEP_SCAN) {
      ddbst__jw_key(w, "work");
      ddbst__jw_value(w);
      ddbst__jw_raw(w, "[", 1);
      ddbst__jw_raw(w, m->work.data ? m->work.data : "", m->work.len);
      ddbst__jw_raw(w, "]", 1);
    }
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "notes");
  ddbst__jw_value(w);
  ddbst__jw_raw(w, "[", 1);
  ddbst__jw_raw(w, m->notes.data ? m->notes.data : "", m->notes.len);
  ddbst__jw_raw(w, "]}", 2);
}

static const char *const step_text[] = {
    "",
    "UpdateTable: create index ",
    /* one text in two literals: the parentheses say so to clang */
    ("scan the table (parallel segments, consistent reads); send the writes "
     "ddbst_migration_next gives for every page (the writer protocol in force)"),
    "scan the table again: ddbst_migration_verify finds no problem",
    "UpdateTable: delete index "};

static void plan_text(const ddbst_migration *m, ddbst__jw *w) {
  if (!m->nsteps) {
    ddbst__jw_printf(w, "nothing to migrate: every change is free (%s)\n",
                     ddbst_change_class_name(m->worst));
  }
  for (int i = 0; i < m->nsteps; i++) {
    const ddbst__mstep *s = &m->steps[i];
    ddbst__jw_printf(w, "%d. ", i + 1);
    ddbst__jw_puts(w, step_text[s->kind]);
    if (s->index) ddbst__jw_puts(w, s->index);
    if (s->kind == DDBST_STEP_ADD_INDEX)
      ddbst__jw_puts(w, ", then wait until it is ACTIVE");
    ddbst__jw_raw(w, "\n", 1);
    if (s->kind == DDBST_STEP_SCAN)
      ddbst__jw_raw(w, m->work_text.data ? m->work_text.data : "",
                    m->work_text.len);
  }
  ddbst__jw_raw(w, m->notes_text.data ? m->notes_text.data : "",
                m->notes_text.len);
}

int ddbst_migration_plan(const ddbst_migration *m, uint32_t flags,
                         ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out);
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "migration or out is NULL");
  if (flags & ~DDBST_DIFF_TEXT)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a plan takes DDBST_DIFF_TEXT only");
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  if (flags & DDBST_DIFF_TEXT) {
    plan_text(m, &w);
  } else {
    ddbst_buf body;
    ddbst__buf_init(&body, &m->alloc);
    plan_json(m, &w, &body, err);
    ddbst__buf_release(&body);
  }
  if (w.rc) {
    ddbst_buf_reset(out);
    if (w.rc == DDBST_ENOMEM) ddbst__fail(err, w.rc, NULL, NULL);
    return w.rc;
  }
  return 0;
}
