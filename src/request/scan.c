/* Scan bodies: the table or an index, an entity filter and the user's
 * filter through the condition machinery (cond.h), projection, parallel
 * segments, and the next page's sealed cursor (cursor/scan_cursor.c). */
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "model/load.h"
#include "model/suggest.h"
#include "request/cond.h"
#include "request/request.h"
#include "request/scan.h"

ddbst_scan *ddbst_scan_new(const ddbst_model *m) {
  if (!m || m->nentities == 0) return NULL;
  ddbst_scan *s = ddbst__malloc(&m->alloc, sizeof *s);
  if (!s) return NULL;
  memset(s, 0, sizeof *s);
  s->m = m;
  s->index = -1;
  s->it = ddbst_item_new(m, 0);
  s->entities = ddbst__malloc(&m->alloc, (size_t)m->nentities);
  s->proj = ddbst__malloc(&m->alloc, (size_t)(m->nnames ? m->nnames : 1) *
                                         sizeof *s->proj);
  if (!s->it || !s->entities || !s->proj) goto nomem;
  memset(s->entities, 0, (size_t)m->nentities);
  /* room for every placeholder a body of this scan can hold besides the
   * filter's: the keys, every name projected, every entity's value */
  int want = 16 + m->nnames + m->nentities;
  if (s->it->base_refs < want) s->it->base_refs = want;
  if (ddbst__xreserve(s->it, NULL)) goto nomem;
  return s;
nomem:
  ddbst_scan_free(s);
  return NULL;
}

void ddbst_scan_free(ddbst_scan *s) {
  if (!s) return;
  const ddbst_allocator *a = &s->m->alloc;
  ddbst_item_free(s->it);
  ddbst__free(a, s->entities);
  ddbst__free(a, (void *)s->proj);
  ddbst__free(a, s);
}

int ddbst_scan_index(ddbst_scan *s, const char *index, ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "scan is NULL");
  if (!index) {
    s->index = -1;
    return 0;
  }
  int ix = ddbst__index_named(s->m, index);
  if (ix < 0) {
    const char *names[DDBST__MAX_INDEXES];
    for (int i = 0; i < s->m->nindexes; i++) names[i] = s->m->indexes[i].name;
    int near = ddbst_suggest(index, names, (size_t)s->m->nindexes);
    return ddbst__fail(err, DDBST_ENOTFOUND, "index",
                       "the table declares no index %.100s%s%.100s%s", index,
                       near >= 0 ? "; did you mean " : "",
                       near >= 0 ? names[near] : "", near >= 0 ? "?" : "");
  }
  s->index = ix;
  return 0;
}

static int need_entity_attr(const ddbst_scan *s, const char *what,
                            ddbst_error *err) {
  if (s->m->entity_attr) return 0;
  return ddbst__fail(err, DDBST_EINVAL, NULL,
                     "%s needs the model's table.entityAttribute: without it "
                     "a scan cannot tell entities apart before it reads "
                     "them; scan every item and keep those of the entity "
                     "(ddbst_page_item_entity)",
                     what);
}

int ddbst_scan_entity(ddbst_scan *s, int entity, ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "scan is NULL");
  if (entity < 0 || entity >= s->m->nentities)
    return ddbst__fail(err, DDBST_EINVAL, "entity",
                       "entity index %d is out of range", entity);
  int rc = need_entity_attr(s, "an entity filter", err);
  if (rc) return rc;
  if (s->filter && s->filter->entity != entity)
    return ddbst__fail(err, DDBST_EINVAL, "entity",
                       "the scan's filter reads %s's attributes: it reads "
                       "no other entity",
                       s->m->entities[s->filter->entity].name);
  if (!s->entities[entity]) s->nentities++;
  s->entities[entity] = 1;
  return 0;
}

/* Whether index `ix` holds attribute `name` of its items: every attribute
 * (ALL, or a local index, which reads the rest from the table), or one
 * its INCLUDE list names. */
static int index_holds(const ddbst__index *ix, const char *name) {
  if (ix->local || ix->projection == DDBST__PROJ_ALL) return 1;
  for (size_t i = 0; ix->projection == DDBST__PROJ_INCLUDE && i < ix->ninclude;
       i++)
    if (!strcmp(ix->include[i], name)) return 1;
  return 0;
}

/* Whether the index read projects every attribute filter `f` names. */
static int filter_fits(const ddbst_scan *s, const ddbst_expr *f,
                       ddbst_error *err) {
  const ddbst_model *m = s->m;
  const ddbst__entity *e = &m->entities[f->entity];
  for (int a = 0; s->index >= 0 && a < e->nattrs; a++)
    if (f->uses[a] && !index_holds(&m->indexes[s->index], e->attrs[a].name))
      return ddbst__fail(err, DDBST_EINVAL, "filter",
                         "index %s does not project %s: DynamoDB refuses a "
                         "filter on it; project it in the model, or scan the "
                         "table",
                         m->indexes[s->index].name, e->attrs[a].name);
  return 0;
}

int ddbst_scan_filter(ddbst_scan *s, const ddbst_expr *f, ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "scan is NULL");
  if (!f) {
    s->filter = NULL;
    return 0;
  }
  const ddbst_model *m = s->m;
  if (f->m != m || f->kind != DDBST_EXPR_FILTER)
    return ddbst__fail(err, DDBST_EINVAL, "filter",
                       "the filter must be a DDBST_EXPR_FILTER of the scan's "
                       "model");
  int rc = need_entity_attr(s, "a filter", err);
  if (rc) return rc;
  for (int e = 0; e < m->nentities; e++)
    if (s->entities[e] && e != f->entity)
      return ddbst__fail(err, DDBST_EINVAL, "filter",
                         "the scan reads %s too: a filter on %s's attributes "
                         "would drop its items; scan each entity with its own "
                         "filter",
                         m->entities[e].name, m->entities[f->entity].name);
  rc = filter_fits(s, f, err);
  if (rc) return rc;
  if (ddbst_item_reset(s->it, f->entity) || ddbst__xreserve(s->it, f))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (!s->entities[f->entity]) s->nentities++;
  s->entities[f->entity] = 1;
  s->filter = f;
  return 0;
}

int ddbst_scan_bind(ddbst_scan *s, const char *param, const char *text,
                    size_t len, ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "scan is NULL");
  return ddbst_item_bind(s->it, param, text, len, err);
}

int ddbst_scan_project(ddbst_scan *s, const char *name, ddbst_error *err) {
  if (!s || !name)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "scan or name is NULL");
  const ddbst_model *m = s->m;
  const ddbst__name *nm = NULL;
  for (int e = 0; e < m->nentities && !nm; e++) {
    int a = ddbst__attr_index(&m->entities[e], name);
    if (a >= 0) nm = ddbst__name_of(m, m->entities[e].attrs[a].name);
  }
  if (!nm) {
    char path[DDBST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "project.%.200s", name);
    const char *near = NULL;
    for (int e = 0; e < m->nentities && !near; e++)
      near = ddbst__suggest_attribute(&m->entities[e], name);
    return ddbst__fail(err, DDBST_ENOTFOUND, path,
                       "no entity of the model declares %.100s%s%.100s%s",
                       name, near ? "; did you mean " : "", near ? near : "",
                       near ? "?" : "");
  }
  for (int i = 0; i < s->nproj; i++)
    if (s->proj[i] == nm) return 0;
  s->proj[s->nproj++] = nm;
  return 0;
}

int ddbst_scan_segment(ddbst_scan *s, uint32_t segment, uint32_t total,
                       ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "scan is NULL");
  if (total > 1000000)
    return ddbst__fail(err, DDBST_ERANGE, "total_segments",
                       "%u segments: DynamoDB takes 1 to 1000000", total);
  if (total ? segment >= total : segment != 0)
    return ddbst__fail(err, DDBST_ERANGE, "segment",
                       "segment %u of %u: segments are numbered 0 to %u",
                       segment, total, total ? total - 1 : 0);
  s->segment = segment;
  s->total = total;
  return 0;
}

/* ,"FilterExpression":"..." of the entity filter and the user's. */
static int write_filter(ddbst_scan *s, ddbst_buf *out, ddbst_error *err) {
  const ddbst_model *m = s->m;
  ddbst_item *it = s->it;
  if (!s->nentities) return 0;
  int rc = ddbst__buf_puts(out, ",\"FilterExpression\":\"");
  rc = rc ? rc : ddbst__expr_name(it, m->entity_attr, out);
  rc = rc ? rc : ddbst__buf_puts(out, s->nentities == 1 ? " = " : " IN (");
  for (int e = 0, k = 0; !rc && e < m->nentities; e++) {
    if (!s->entities[e]) continue;
    if (k++) rc = ddbst__buf_puts(out, ", ");
    rc = rc ? rc : ddbst__expr_string(it, m->entities[e].name, out);
  }
  if (!rc && s->nentities != 1) rc = ddbst__buf_putc(out, ')');
  if (!rc && s->filter) {
    rc = ddbst__buf_puts(out, " AND (");
    rc = rc ? rc : ddbst__xwrite_cond(it, s->filter, out, err);
    rc = rc ? rc : ddbst__buf_putc(out, ')');
  }
  return rc ? rc : ddbst__buf_putc(out, '"');
}

/* ,"ProjectionExpression":"..." : the keys that identify an item and
 * continue the scan, the entity attribute, then the names asked for. */
static int write_projection(ddbst_scan *s, ddbst_buf *out, ddbst_error *err) {
  const ddbst_model *m = s->m;
  if (!s->nproj) return 0;
  const ddbst__index *ix = s->index >= 0 ? &m->indexes[s->index] : NULL;
  const char *keys[3 + 8] = {m->pk_attr, m->sk_attr, m->entity_attr};
  int nk = 3;
  if (ix && ix->native) {
    for (int i = 0; i < ix->npk + ix->nsk; i++)
      keys[nk++] = i < ix->npk ? ix->pk_attrs[i] : ix->sk_attrs[i - ix->npk];
  } else if (ix) {
    keys[nk++] = ix->pk_attr;
    if (ix->sk_attr) keys[nk++] = ix->sk_attr;
  }
  for (int i = 0; ix && i < s->nproj; i++)
    if (!index_holds(ix, s->proj[i]->text)) {
      int key = 0;
      for (int k = 0; k < nk; k++) key |= keys[k] && !strcmp(keys[k], s->proj[i]->text);
      if (!key)
        return ddbst__fail(err, DDBST_EINVAL, "project",
                           "index %s does not project %s: DynamoDB refuses to "
                           "read it from the index; scan the table",
                           ix->name, s->proj[i]->text);
    }
  int rc = ddbst__buf_puts(out, ",\"ProjectionExpression\":\"");
  int first = 1;
  for (int k = 0; !rc && k < nk; k++) {
    if (!keys[k]) continue;
    const ddbst__name *nm = ddbst__name_of(m, keys[k]);
    int dup = 0;
    for (int j = 0; j < k; j++) dup |= keys[j] && !strcmp(keys[j], keys[k]);
    if (dup) continue;
    if (!first) rc = ddbst__buf_puts(out, ", ");
    first = 0;
    rc = rc ? rc
            : nm ? ddbst__expr_entry(s->it, nm, out)
                 : ddbst__expr_name(s->it, keys[k], out);
  }
  for (int i = 0; !rc && i < s->nproj; i++) {
    int dup = 0;
    for (int k = 0; k < nk; k++) dup |= keys[k] && !strcmp(keys[k], s->proj[i]->text);
    if (dup) continue;
    rc = ddbst__buf_puts(out, ", ");
    rc = rc ? rc : ddbst__expr_entry(s->it, s->proj[i], out);
  }
  return rc ? rc : ddbst__buf_putc(out, '"');
}

/* Decimal digits of v by hand (snprintf costs a tenth of a body). */
static int put_uint(ddbst_buf *out, const char *member, uint32_t v) {
  char tmp[16];
  int n = (int)sizeof tmp;
  do {
    tmp[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  int rc = ddbst__buf_puts(out, member);
  return rc ? rc : ddbst__buf_append(out, tmp + n, sizeof tmp - (size_t)n);
}

int ddbst_scan_request(ddbst_scan *s, uint32_t flags, uint32_t limit,
                       const char *cursor, size_t cursor_len,
                       const ddbst_cursor_keys *keys, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!s || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "scan or buffer is NULL");
  const ddbst_model *m = s->m;
  const ddbst__index *ix = s->index >= 0 ? &m->indexes[s->index] : NULL;
  if ((flags & DDBST_CONSISTENT_READ) && ix && !ix->local)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "index %s is a global secondary index: it cannot be "
                       "read consistently",
                       ix->name);
  if ((flags & DDBST_QUERY_COUNT) && s->nproj)
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a count (select COUNT, --count, DDBST_QUERY_COUNT) "
                       "returns no attributes: it takes no projection");
  if (flags & ~(DDBST_CONSISTENT_READ | DDBST_QUERY_COUNT))
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "a scan takes DDBST_CONSISTENT_READ and "
                       "DDBST_QUERY_COUNT only");
  if (s->filter && ix) {
    int rc = filter_fits(s, s->filter, err);
    if (rc) return rc;
  }
  ddbst_item *it = s->it;
  ddbst__expr_reset(it);
  s->built = 0;
  int rc = ddbst__buf_append(out, m->begin.p, m->begin.n);
  if (!rc && ix) {
    rc = ddbst__buf_puts(out, ",\"IndexName\":");
    rc = rc ? rc : ddbst__json_string(out, ix->name, strlen(ix->name));
  }
  if (!rc) rc = write_filter(s, out, err);
  if (!rc) rc = write_projection(s, out, err);
  if (!rc) rc = ddbst__expr_emit(it, out);
  if (!rc) {
    /* what the scan reads, as its body says it: its cursors are bound to
     * it (the segment and the total are bound apart, to be named) */
    s->ctx.index = s->index;
    s->ctx.segment = s->segment;
    s->ctx.total = s->total;
    ddbst__scan_digest(out->data, out->len, s->ctx.digest);
  }
  if (!rc && s->total) {
    rc = put_uint(out, ",\"Segment\":", s->segment);
    rc = rc ? rc : put_uint(out, ",\"TotalSegments\":", s->total);
  }
  if (!rc && (flags & DDBST_QUERY_COUNT))
    rc = ddbst__buf_puts(out, ",\"Select\":\"COUNT\"");
  if (!rc && limit) rc = put_uint(out, ",\"Limit\":", limit);
  if (!rc && (flags & DDBST_CONSISTENT_READ))
    rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
  if (!rc && cursor) {
    rc = ddbst__buf_puts(out, ",\"ExclusiveStartKey\":");
    rc = rc ? rc
            : ddbst__scan_cursor_open(keys, m, &s->ctx, cursor,
                                      ddbst__len(cursor, cursor_len),
                                      ddbst__now(now_us), out, err);
  }
  if (!rc) rc = ddbst__buf_putc(out, '}');
  if (rc) return ddbst__abandon(out, 0, rc, err);
  s->built = 1;
  return DDBST_OP_SCAN;
}
