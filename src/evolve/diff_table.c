/* The diff of the table's own settings and of its indexes: what DynamoDB
 * can change in place (UpdateTable, UpdateTimeToLive), what items must be
 * written again for, and what needs a new table. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"
#include "request/table.h"

static int same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Every entity of `m` and every pattern: a change to the whole table. */
static void scope_all(ddbst__differ *d, const ddbst_model *m) {
  for (int e = 0; e < m->nentities; e++)
    ddbst__diff_entity(d, m->entities[e].name);
  for (int p = 0; p < m->npatterns; p++)
    ddbst__diff_pattern(d, m->patterns[p].name);
}

static const char *stream_name(ddbst__stream s) {
  const char *view = ddbst__stream_view_name(s);
  return view ? view : "none";
}

static void key_schema(ddbst__differ *d) {
  const ddbst_model *o = d->old, *n = d->next;
  if (strcmp(o->pk_attr, n->pk_attr) != 0) {
    scope_all(d, n);
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, "table.partitionKey",
                       "the table's partition key attribute %s becomes %s: "
                       "DynamoDB cannot change a table's key schema; create "
                       "a new table and copy every item into it",
                       o->pk_attr, n->pk_attr);
  }
  if (!same_str(o->sk_attr, n->sk_attr)) {
    scope_all(d, n);
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, "table.sortKey",
                       "the table's sort key attribute %s becomes %s: "
                       "DynamoDB cannot change a table's key schema; create "
                       "a new table and copy every item into it",
                       o->sk_attr ? o->sk_attr : "(none)",
                       n->sk_attr ? n->sk_attr : "(none)");
  }
}

void ddbst__diff_table(ddbst__differ *d) {
  const ddbst_model *o = d->old, *n = d->next;
  if (strcmp(o->table_name, n->table_name) != 0) {
    scope_all(d, n);
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, "table.name",
                       "the table %s becomes %s: DynamoDB cannot rename a "
                       "table; create %s and copy every item into it (or, "
                       "when only the stage's name changed, keep the model's "
                       "name and override it at load)",
                       o->table_name, n->table_name, n->table_name);
  }
  key_schema(d);
  if (o->delim_len != n->delim_len ||
      memcmp(o->delim, n->delim, n->delim_len) != 0) {
    scope_all(d, n);
    snprintf(d->check, sizeof d->check,
             "no key facet of a stored item holds \"%s\", and the keys of "
             "escaped facets are written again",
             n->delim);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, "table.delimiter",
                       "the key delimiter \"%s\" becomes \"%s\": facet "
                       "values that hold \"%s\" were accepted and can no "
                       "longer be written or read back, and escaped facets "
                       "change their key text",
                       o->delim, n->delim, n->delim);
  }
  if (!same_str(o->entity_attr, n->entity_attr)) {
    scope_all(d, n);
    if (!o->entity_attr)
      ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, "table.entityAttribute",
                         "items are now written with their entity's name in "
                         "%s; items already stored lack it: backfill it on "
                         "each (its entity is known from its key)",
                         n->entity_attr);
    else if (!n->entity_attr)
      ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, "table.entityAttribute",
                         "items are no longer written with %s: it stays on "
                         "items already stored until removed",
                         o->entity_attr);
    else
      ddbst__diff_report(d, DDBST_CHANGE_REWRITE, "table.entityAttribute",
                         "the entity attribute %s becomes %s: every item is "
                         "written with %s and %s removed, or items already "
                         "stored are told apart by their keys alone",
                         o->entity_attr, n->entity_attr, n->entity_attr,
                         o->entity_attr);
  }
  if (!same_str(o->ttl_attr, n->ttl_attr)) {
    scope_all(d, n);
    if (n->ttl_attr) {
      snprintf(d->check, sizeof d->check,
               "no item that must be kept holds a time in the past in %s",
               n->ttl_attr);
      ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, "table.ttlAttribute",
                         "time to live %s %s (UpdateTimeToLive): DynamoDB "
                         "deletes every item already stored whose %s is in "
                         "the past, within days of the change%s",
                         o->ttl_attr ? "moves from" : "is enabled",
                         o->ttl_attr ? o->ttl_attr : "on", n->ttl_attr,
                         o->ttl_attr ? ", and items stop expiring by the "
                                       "old attribute"
                                     : "");
    } else {
      ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, "table.ttlAttribute",
                         "time to live on %s is disabled (UpdateTimeToLive): "
                         "items no longer expire, and %s stays on them until "
                         "removed",
                         o->ttl_attr, o->ttl_attr);
    }
  }
  if (o->stream != n->stream)
    ddbst__diff_report(d, DDBST_CHANGE_FREE, "table.stream",
                       "the stream %s becomes %s (UpdateTable): no item "
                       "changes; a new view type is a new stream, which its "
                       "consumers must be pointed at",
                       stream_name(o->stream), stream_name(n->stream));
  if (o->cursors_unsealed != n->cursors_unsealed)
    ddbst__diff_report(d, DDBST_CHANGE_FREE, "table.cursors",
                       "cursors become %s: no item changes; cursors given "
                       "out before the change are refused after it",
                       n->cursors_unsealed ? "unsealed" : "sealed");
  ddbst__diff_table_settings(d);
  if (!same_str(o->description, n->description))
    ddbst__diff_report(d, DDBST_CHANGE_FREE, "description",
                       "the model's description changed: no item changes");
}

/* ---- indexes ---- */

/* The entities of `m` in index `ix` and the patterns that read it. */
static void scope_index(ddbst__differ *d, const ddbst_model *m, int ix) {
  for (int e = 0; e < m->nentities; e++)
    if (ddbst__entity_key(&m->entities[e], ix))
      ddbst__diff_entity(d, m->entities[e].name);
  for (int p = 0; p < m->npatterns; p++)
    if (m->patterns[p].index == ix) ddbst__diff_pattern(d, m->patterns[p].name);
}

static void index_path(char out[DDBST__REASON_MAX], const ddbst__index *ix) {
  snprintf(out, DDBST__REASON_MAX, "table.%s.%s",
           ix->local ? "localIndexes" : "indexes", ix->name);
}

/* Whether DynamoDB fills the index from attributes items already hold (its
 * keys are the entities' own, or the table's), so no item is written. */
static int fills_itself(const ddbst__index *ix) {
  return ix->native || ix->pk_shared;
}

static int same_key_schema(const ddbst__index *a, const ddbst__index *b) {
  if (a->npk != b->npk || a->nsk != b->nsk || a->native != b->native ||
      a->pk_shared != b->pk_shared || a->sk_shared != b->sk_shared ||
      !same_str(a->pk_attr, b->pk_attr) || !same_str(a->sk_attr, b->sk_attr))
    return 0;
  for (int i = 0; i < a->npk; i++)
    if (!same_str(a->pk_attrs[i], b->pk_attrs[i])) return 0;
  for (int i = 0; i < a->nsk; i++)
    if (!same_str(a->sk_attrs[i], b->sk_attrs[i])) return 0;
  return 1;
}

static int has_name(const char **list, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return 1;
  return 0;
}

static int same_projection(const ddbst__index *a, const ddbst__index *b) {
  if (a->projection != b->projection || a->ninclude != b->ninclude) return 0;
  for (size_t i = 0; i < a->ninclude; i++)
    if (!has_name(b->include, b->ninclude, a->include[i])) return 0;
  return 1;
}

static void index_added(ddbst__differ *d, int i) {
  const ddbst__index *ix = &d->next->indexes[i];
  char path[DDBST__REASON_MAX];
  index_path(path, ix);
  scope_index(d, d->next, i);
  if (ix->local) {
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, path,
                       "a new local index %s: DynamoDB creates local indexes "
                       "only with the table; create a new table and copy "
                       "every item into it",
                       ix->name);
    return;
  }
  d->add_index = ix->name;
  if (fills_itself(ix))
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "a new index %s, keyed on attributes items already "
                       "hold: create it with UpdateTable "
                       "(ddbst_update_table_add_index_request) and DynamoDB "
                       "backfills it; its patterns may run once it is ACTIVE",
                       ix->name);
  else
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "a new index %s: create it with UpdateTable "
                       "(ddbst_update_table_add_index_request), then write "
                       "%s%s%s on every item already stored that belongs in "
                       "it; until then its patterns miss those items",
                       ix->name, ix->pk_attr,
                       ddbst__index_own_sk(ix) ? " and " : "",
                       ddbst__index_own_sk(ix) ? ix->sk_attr : "");
}

static void index_removed(ddbst__differ *d, int i) {
  const ddbst__index *ix = &d->old->indexes[i];
  char path[DDBST__REASON_MAX];
  index_path(path, ix);
  scope_index(d, d->old, i);
  if (ix->local) {
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, path,
                       "the local index %s is removed: DynamoDB cannot "
                       "delete a local index; it stays until the table is "
                       "replaced (a new table and a copy)",
                       ix->name);
    return;
  }
  d->remove_index = ix->name;
  if (fills_itself(ix))
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, path,
                       "the index %s is removed: delete it with UpdateTable "
                       "(ddbst_update_table_remove_index_request); its keys "
                       "are the items' own attributes, which stay",
                       ix->name);
  else
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, path,
                       "the index %s is removed: delete it with UpdateTable "
                       "(ddbst_update_table_remove_index_request); %s%s%s "
                       "stay on items until removed",
                       ix->name, ix->pk_attr,
                       ddbst__index_own_sk(ix) ? " and " : "",
                       ddbst__index_own_sk(ix) ? ix->sk_attr : "");
}

static void index_changed(ddbst__differ *d, int oi, int ni) {
  const ddbst__index *a = &d->old->indexes[oi], *b = &d->next->indexes[ni];
  char path[DDBST__REASON_MAX];
  index_path(path, b);
  if (a->local != b->local) {
    scope_index(d, d->next, ni);
    ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, path,
                       "%s becomes a %s index: DynamoDB creates local "
                       "indexes only with the table and cannot delete them; "
                       "create a new table and copy every item into it",
                       b->name, b->local ? "local" : "global");
    return;
  }
  if (!same_key_schema(a, b)) {
    scope_index(d, d->next, ni);
    if (b->local)
      ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, path,
                         "the key of the local index %s changes: DynamoDB "
                         "cannot change a local index; create a new table "
                         "and copy every item into it",
                         b->name);
    else {
      d->add_index = b->name;
      d->remove_index = a->name;
      /* keyed on what items hold already: no item is written, DynamoDB
       * refills the index */
      ddbst__diff_report(
          d, fills_itself(b) ? DDBST_CHANGE_BACKFILL : DDBST_CHANGE_REWRITE,
          path,
          "the key attributes of %s change: DynamoDB cannot "
          "change an index's key schema; delete it and create "
          "it again (UpdateTable, twice)%s",
          b->name,
          fills_itself(b) ? ", and DynamoDB backfills it"
                          : ", and write every item of it "
                            "under the new key attributes");
    }
    return;
  }
  if (!same_projection(a, b)) {
    scope_index(d, d->next, ni);
    if (b->local) {
      ddbst__diff_report(d, DDBST_CHANGE_IMPOSSIBLE, path,
                         "the projection of the local index %s changes: "
                         "DynamoDB cannot change a local index; create a new "
                         "table and copy every item into it",
                         b->name);
    } else {
      d->add_index = b->name;
      d->remove_index = a->name;
      ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                         "the projection of %s changes: DynamoDB cannot "
                         "change it in place; delete the index and create it "
                         "again (UpdateTable, twice), and DynamoDB backfills "
                         "it from the items; its patterns wait meanwhile",
                         b->name);
    }
    return; /* created again: its settings come with the Create */
  }
  ddbst__diff_index_settings(d, oi, ni);
}

void ddbst__diff_indexes(ddbst__differ *d) {
  for (int i = 0; i < d->next->nindexes; i++) {
    int oi = ddbst__diff_index_of(d->old, d->next->indexes[i].name);
    if (oi < 0)
      index_added(d, i);
    else
      index_changed(d, oi, i);
  }
  for (int i = 0; i < d->old->nindexes; i++)
    if (ddbst__diff_index_of(d->next, d->old->indexes[i].name) < 0)
      index_removed(d, i);
}
