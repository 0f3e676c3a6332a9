/* What a page read from a KEYS_ONLY or INCLUDE index can hold: an attribute
 * it does not project is unknown on its items, not absent, and they say so
 * ("notProjected" in their JSON, ddbst_page_projects). */
#include <string.h>

#include "response/page.h"

static int facet_of(const ddbst__template *t, int attr) {
  for (int i = 0; i < t->nsegs; i++)
    if (!t->segs[i].text && t->segs[i].attr == attr && !t->segs[i].lower)
      return 1;
  return 0;
}

/* Whether index `index` (-1: the table) projects attribute `attr` of entity
 * `e`: ALL, an INCLUDE name, or a facet read back from the table's or the
 * index's keys, which every projection carries. */
static int projects(const ddbst_model *m, int index, int e, int attr) {
  if (index < 0) return 1;
  const ddbst__index *ix = &m->indexes[index];
  if (ix->projection == DDBST__PROJ_ALL) return 1;
  const ddbst__entity *ent = &m->entities[e];
  const char *name = ent->attrs[attr].name;
  for (size_t i = 0; i < ix->ninclude; i++)
    if (!strcmp(ix->include[i], name)) return 1;
  if (facet_of(&ent->key.pk, attr) || facet_of(&ent->key.sk, attr)) return 1;
  for (int j = 0; j < ent->nindexes; j++)
    if (ent->indexes[j].index == index &&
        (facet_of(&ent->indexes[j].pk, attr) ||
         facet_of(&ent->indexes[j].sk, attr)))
      return 1; /* a native index's key attributes are facet segments too */
  return 0;
}

/* The index the page read: -1 for the table, or a page that does not know. */
static int page_index(const ddbst_page *pg) {
  if (pg->failed || pg->q_pattern < 0 || pg->q_pattern >= pg->m->npatterns)
    return -1;
  return pg->m->patterns[pg->q_pattern].index;
}

int ddbst_page_projects(const ddbst_page *pg, int entity, int attr) {
  if (!pg || entity < 0 || entity >= pg->m->nentities || attr < 0 ||
      attr >= pg->m->entities[entity].nattrs)
    return DDBST_EINVAL;
  return projects(pg->m, page_index(pg), entity, attr);
}

int ddbst__page_json_unprojected(const ddbst_page *pg, uint32_t i,
                                 ddbst_buf *out) {
  const ddbst__pitem *pi = &pg->items[i];
  int index = page_index(pg);
  if (index < 0 || pi->entity < 0 ||
      pg->m->indexes[index].projection == DDBST__PROJ_ALL)
    return 0;
  const ddbst__entity *ent = &pg->m->entities[pi->entity];
  int rc = 0, first = 1;
  for (int a = 0; !rc && a < ent->nattrs; a++) {
    if (projects(pg->m, index, pi->entity, a)) continue;
    rc = ddbst__buf_puts(out, first ? ",\"notProjected\":[" : ",");
    first = 0;
    rc = rc ? rc
            : ddbst__json_string(out, ent->attrs[a].name,
                                 strlen(ent->attrs[a].name));
  }
  if (!rc && !first) rc = ddbst__buf_putc(out, ']');
  return rc;
}
