/* How the parts of a model diff report a change: what it applies to (its
 * scope), and its class, path and reason handed to the walk's receiver. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

void ddbst__diff_scope(ddbst__differ *d) {
  d->nents = d->npats = 0;
  d->add_index = d->remove_index = NULL;
  d->check[0] = '\0';
}

static void add_name(const char **list, int *n, int cap, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp(list[i], name) == 0) return;
  if (*n < cap) list[(*n)++] = name;
}

void ddbst__diff_entity(ddbst__differ *d, const char *name) {
  add_name(d->ents, &d->nents, d->ents_cap, name);
}

void ddbst__diff_pattern(ddbst__differ *d, const char *name) {
  add_name(d->pats, &d->npats, d->pats_cap, name);
}

void ddbst__diff_readers(ddbst__differ *d, const ddbst_model *m, int entity,
                         int index) {
  for (int p = 0; p < m->npatterns; p++) {
    const ddbst__pattern *pt = &m->patterns[p];
    for (int i = 0; i < pt->nentities; i++)
      if (pt->entities[i] == entity && (index == -2 || pt->index == index))
        ddbst__diff_pattern(d, pt->name);
  }
}

void ddbst__diff_report(ddbst__differ *d, int cls, const char *what,
                        const char *fmt, ...) {
  if (d->rc) return;
  char reason[DDBST__REASON_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  ddbst__trim_partial_utf8(reason);
  ddbst__change c = {
      cls,          what,
      reason,       cls == DDBST_CHANGE_UNSAFE && d->check[0] ? d->check : NULL,
      d->add_index, d->remove_index,
      d->ents,      d->nents,
      d->pats,      d->npats};
  if (cls > d->worst) d->worst = cls;
  if (d->fn) {
    int rc = d->fn(d->user, &c);
    if (rc < 0) d->rc = rc;
  }
  ddbst__diff_scope(d);
}

int ddbst__diff_index_of(const ddbst_model *m, const char *name) {
  for (int i = 0; i < m->nindexes; i++)
    if (strcmp(m->indexes[i].name, name) == 0) return i;
  return -1;
}

int ddbst__diff_entity_of(const ddbst_model *m, const char *name) {
  for (int i = 0; i < m->nentities; i++)
    if (strcmp(m->entities[i].name, name) == 0) return i;
  return -1;
}

int ddbst__diff_attr_of(const ddbst__entity *e, const char *name) {
  for (int i = 0; i < e->nattrs; i++)
    if (strcmp(e->attrs[i].name, name) == 0) return i;
  return -1;
}
