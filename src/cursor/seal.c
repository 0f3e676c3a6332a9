/* Sealing a page's LastEvaluatedKey into a cursor: checked against the
 * pattern's shape, the facets carried in their compact forms, the envelope
 * sealed (or checksummed) and written as base64url. */
#include <stdio.h>
#include <string.h>

#include "base/b64url.h"
#include "cursor/keyring.h"
#include "cursor/layout.h"
#include "item/keys.h"
#include "model/facet.h"

/* The pattern `pattern` as a query of entity `entity`, or DDBST_EINVAL. */
static int query_of(const ddbst_model *m, int entity, int pattern,
                    const ddbst__pattern **out, ddbst_error *err) {
  if (pattern < 0 || pattern >= m->npatterns)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "pattern index %d is out of range", pattern);
  const ddbst__pattern *p = &m->patterns[pattern];
  int reads = 0;
  for (int i = 0; i < p->nentities; i++)
    reads |= p->entities[i] == entity;
  if (p->op != DDBST__OP_QUERY || !reads)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "%s is not a query of entity %s", p->name,
                       m->entities[entity].name);
  *out = p;
  return 0;
}

/* The partition key the query reads, rendered into it->keytext. */
static int render_part(ddbst_item *it, const ddbst__pattern *p, view *part,
                       ddbst_error *err) {
  const shape *s = ddbst__cursor_plan_shape(p);
  const ddbst__template *pt =
      ddbst__cursor_template(ddbst__entity_of(it), p->index, s->role[0]);
  if (!pt)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "entity %s has no key in the index pattern %s reads",
                       ddbst__entity_of(it)->name, p->name);
  ddbst_buf_reset(&it->keytext);
  it->nkeys = 0;
  uint32_t po, pl;
  int rc = ddbst__render_into(it, pt, s->name[0], DDBST__PK_MAX, &po, &pl, err);
  if (rc)
    return rc;
  *part = (view){it->keytext.data + po, pl};
  return 0;
}

int ddbst__cursor_partition(ddbst_item *it, int pattern, ddbst_buf *out,
                            ddbst_error *err) {
  if (!it || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "values or buffer is NULL");
  const ddbst__pattern *p;
  int rc = query_of(it->m, it->entity, pattern, &p, err);
  if (rc)
    return rc;
  view part;
  rc = render_part(it, p, &part, err);
  if (!rc && ddbst__buf_append(out, part.p, part.n))
    rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  return rc;
}

int ddbst__cursor_seal(const ddbst_cursor_keys *keys, ddbst_item *it,
                       int pattern, const char *const *names,
                       const char *const *vals, const size_t *lens, int n,
                       int64_t now_us, ddbst_buf *out, ddbst_error *err) {
  if (!it || !out || n < 0 || (n > 0 && (!names || !vals || !lens)))
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "values, buffer or LastEvaluatedKey is NULL");
  const ddbst__pattern *p;
  int rc = query_of(it->m, it->entity, pattern, &p, err);
  if (rc)
    return rc;
  rc = ddbst__cursor_need_keys(it->m, p, keys, err);
  if (rc)
    return rc;
  if (p->index >= 0 && it->m->indexes[p->index].native)
    return ddbst__native_cursor_seal(keys, it, p, names, vals, lens, n, now_us,
                                     out, err);
  view part;
  rc = render_part(it, p, &part, err);
  if (rc)
    return rc;
  return ddbst__cursor_seal_part(keys, it->m, it->entity, pattern, part.p,
                                 part.n, names, vals, lens, n, now_us, out,
                                 err);
}

int ddbst__cursor_seal_part(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, int entity, int pattern,
                            const char *part_text, size_t part_len,
                            const char *const *names, const char *const *vals,
                            const size_t *lens, int n, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err) {
  if (!out || n < 0 || (n > 0 && (!names || !vals || !lens)))
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "buffer or LastEvaluatedKey is NULL");
  const ddbst__pattern *p;
  int rc = query_of(m, entity, pattern, &p, err);
  if (rc)
    return rc;
  rc = ddbst__cursor_need_keys(m, p, keys, err);
  if (rc)
    return rc;
  if (p->index >= 0 && m->indexes[p->index].native)
    return ddbst__fail(err, DDBST_EINVAL, "pattern",
                       "%s reads a native index: its cursor is sealed from "
                       "the query's values",
                       p->name);
  const shape *s = ddbst__cursor_plan_shape(p);
  view part = {part_text, part_len};

  /* the LastEvaluatedKey: exactly the pattern's key attributes */
  view v[4];
  int seen[4] = {0};
  for (int i = 0; i < n; i++) {
    int a = 0;
    while (a < s->n &&
           (names[i][0] != s->name[a][0] || strcmp(names[i], s->name[a])))
      a++;
    if (a == s->n)
      return ddbst__cursor_lek_fail(err, names[i],
                      "%s is not a key attribute of pattern %s's "
                      "LastEvaluatedKey",
                      names[i], p->name);
    if (seen[a])
      return ddbst__cursor_lek_fail(err, names[i], "%s appears twice", names[i]);
    seen[a] = 1;
    v[a] = (view){vals[i], lens[i]};
    if (!vals[i] || lens[i] == 0 || lens[i] > s->limit[a] ||
        ddbst__utf8_check(vals[i], lens[i]))
      return ddbst__cursor_lek_fail(err, names[i],
                      "%s is not a key value DynamoDB could return (empty, "
                      "too long or not UTF-8)",
                      names[i]);
  }
  for (int a = 0; a < s->n; a++)
    if (!seen[a])
      return ddbst__cursor_lek_fail(err, s->name[a], "%s is missing (pattern %s)", s->name[a],
                      p->name);
  if (!view_eq(v[0], part))
    return ddbst__cursor_lek_fail(err, s->name[0],
                    "%s is not the partition this query read (pattern %s)",
                    s->name[0], p->name);

  /* entity form when the keys are an entity's of the pattern, else whole
   * keys for a pattern whose range other items can fall into */
  int raw = 0, pos = -1;
  const layout *L = NULL;
  view carried[MAX_VALUES];
  for (int j = 0; j < p->nentities && pos < 0; j++)
    if ((L = ddbst__cursor_plan_layout(p, j)) &&
        ddbst__cursor_entity_fits(s, L, v, carried))
      pos = j;
  if (pos < 0) {
    int known = p->type_filter;
    for (int a = 1; known && a < s->n; a++)
      known = ddbst__cursor_model_fits(m, p->index, s->role[a], v[a]);
    if (!known)
      return ddbst__cursor_lek_fail(err, NULL,
                      "the LastEvaluatedKey is no key of pattern %s's "
                      "entities%s",
                      p->name,
                      p->type_filter ? " nor of any entity of the model" : "");
    raw = F_RAW;
  }
  int flags;
  int64_t issued;
  uint8_t env[ENV_MAX];
  cw w;
  rc = ddbst__cursor_start(keys, now_us, env, &w, &issued, &flags, err);
  if (rc) return rc;
  flags |= raw;
  int with_entity = pos >= 0 && p->nentities > 1;
  size_t count = (issued >= 0) + (size_t)with_entity +
                 (size_t)(pos >= 0 ? L->ncarried : s->n - 1);
  cw_array(&w, count);
  if (issued >= 0)
    cw_uint(&w, (uint64_t)issued);
  if (with_entity)
    cw_uint(&w, (uint64_t)pos);
  if (pos >= 0) {
    for (int i = 0; i < L->ncarried; i++)
      ddbst__cursor_put_facet(&w, &L->e->attrs[L->carried[i].attr],
                              L->carried[i].lower, carried[i]);
  } else {
    for (int a = 1; a < s->n; a++)
      cw_text(&w, v[a].p, v[a].n);
  }
  if (w.full)
    return ddbst__fail(err, DDBST_ERANGE, "LastEvaluatedKey",
                       "the cursor would pass %d characters",
                       DDBST__CURSOR_MAX_CHARS);

  return ddbst__cursor_finish(keys, m, p, part, flags, env, w.len, out, err);
}
