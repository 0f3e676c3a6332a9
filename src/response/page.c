/* The page: its storage (kept between parses), the names the model knows
 * hashed once, and the public life of a page (new, count, free). */
#include <string.h>

#include "response/page.h"

static int32_t name_add(ddbst_page *pg, const char *s, uint8_t role) {
  size_t n = strlen(s);
  ddbst__strslot *slot =
      ddbst__strset_find(&pg->name_set, s, n, ddbst__page_name_key, pg);
  if (ddbst__strset_taken(&pg->name_set, slot)) return (int32_t)slot->entry;
  int32_t id = (int32_t)pg->nnames++;
  pg->names[id] = s;
  pg->name_lens[id] = (uint32_t)n;
  pg->name_role[id] = role;
  ddbst__strset_put(&pg->name_set, slot, (uint32_t)id);
  return id;
}

int ddbst__page_init(ddbst_page *pg, const ddbst_model *m) {
  memset(pg, 0, sizeof *pg);
  pg->m = m;
  pg->gen = 1;
  pg->error_kind = DDBST_DDB_NONE;
  pg->want_entity = pg->error_item = -1;
  pg->qcount = pg->qscanned = -1;
  ddbst__strset_init(&pg->name_set);
  ddbst__strset_init(&pg->others);
  ddbst__buf_init(&pg->text, &m->alloc);
  ddbst__buf_init(&pg->plain, &m->alloc);
  ddbst__buf_init(&pg->q_part, &m->alloc);
  pg->q_pattern = -1;
  const ddbst_allocator *a = &m->alloc;
  size_t most = 3 + 2 * (size_t)m->nindexes;
  for (int e = 0; e < m->nentities; e++) most += (size_t)m->entities[e].nattrs;
  size_t nattr_slots = m->max_attrs ? (size_t)m->max_attrs : 1;
  pg->names = ddbst__malloc(a, most * sizeof *pg->names);
  pg->name_lens = ddbst__malloc(a, most * sizeof *pg->name_lens);
  pg->name_role = ddbst__malloc(a, most);
  pg->seen_gen = ddbst__malloc(a, most * sizeof *pg->seen_gen);
  pg->seen_rec = ddbst__malloc(a, most * sizeof *pg->seen_rec);
  pg->present_gen = ddbst__malloc(a, nattr_slots * sizeof *pg->present_gen);
  pg->name_next = ddbst__malloc(a, (most + 2) * sizeof *pg->name_next);
  pg->scratch = m->nentities ? ddbst_item_new(m, 0) : NULL;
  if (!pg->names || !pg->name_lens || !pg->name_role || !pg->seen_gen ||
      !pg->seen_rec || !pg->present_gen || !pg->name_next || !pg->scratch ||
      ddbst__strset_reserve(&pg->name_set, a, (uint32_t)most, 16,
                            ddbst__page_name_key, pg))
    goto nomem;
  memset(pg->seen_gen, 0, most * sizeof *pg->seen_gen);
  memset(pg->present_gen, 0, nattr_slots * sizeof *pg->present_gen);
  for (size_t i = 0; i < most + 2; i++) pg->name_next[i] = -1;
  pg->pk_id = name_add(pg, m->pk_attr, DDBST__PA_KEY);
  pg->sk_id = m->sk_attr ? name_add(pg, m->sk_attr, DDBST__PA_KEY) : -1;
  for (int i = 0; i < m->nindexes; i++) {
    /* a native index's key attributes are the entities' own */
    if (m->indexes[i].native) continue;
    name_add(pg, m->indexes[i].pk_attr, DDBST__PA_KEY);
    if (m->indexes[i].sk_attr)
      name_add(pg, m->indexes[i].sk_attr, DDBST__PA_KEY);
  }
  pg->entity_id =
      m->entity_attr ? name_add(pg, m->entity_attr, DDBST__PA_ENTITY) : -1;
  for (int e = 0; e < m->nentities; e++)
    for (int i = 0; i < m->entities[e].nattrs; i++)
      name_add(pg, m->entities[e].attrs[i].name, DDBST__PA_ATTR);
  size_t nmap = (size_t)(m->nentities ? m->nentities : 1) * pg->nnames;
  pg->name_attr = ddbst__malloc(a, nmap * sizeof *pg->name_attr);
  if (!pg->name_attr) goto nomem;
  for (size_t i = 0; i < nmap; i++) pg->name_attr[i] = -1;
  for (int e = 0; e < m->nentities; e++)
    for (int i = 0; i < m->entities[e].nattrs; i++) {
      const char *nm = m->entities[e].attrs[i].name;
      int32_t id = ddbst__page_name_id(pg, nm, strlen(nm));
      pg->name_attr[(size_t)e * pg->nnames + (size_t)id] = i;
    }
  return 0;
nomem:
  ddbst__page_release(pg);
  return DDBST_ENOMEM;
}

void ddbst__page_release(ddbst_page *pg) {
  const ddbst_allocator *a = &pg->m->alloc;
  ddbst__buf_release(&pg->text);
  ddbst__buf_release(&pg->plain);
  ddbst__buf_release(&pg->q_part);
  ddbst__free(a, pg->attrs);
  ddbst__free(a, pg->items);
  ddbst__free(a, pg->groups);
  ddbst__free(a, pg->spans);
  ddbst__free(a, pg->reasons);
  ddbst__free(a, pg->records);
  ddbst__free(a, pg->names);
  ddbst__free(a, pg->name_lens);
  ddbst__free(a, pg->name_role);
  ddbst__free(a, pg->name_attr);
  ddbst__strset_release(&pg->name_set, a);
  ddbst__free(a, pg->seen_gen);
  ddbst__free(a, pg->seen_rec);
  ddbst__free(a, pg->present_gen);
  ddbst__free(a, pg->name_next);
  ddbst__strset_release(&pg->others, a);
  ddbst_item_free(pg->scratch);
  ddbst_item_free(pg->q_values);
  ddbst__json_cache_release(&pg->parser_blocks, a);
  memset(pg, 0, sizeof *pg);
}

/* Forgets the previous parse, keeping every buffer's memory. */
void ddbst__page_clear(ddbst_page *pg, int keep_error) {
  ddbst_buf_reset(&pg->plain);
  pg->nattrs = pg->nitems = pg->ngroups = pg->nspans = pg->nrecords = 0;
  pg->count = 0;
  pg->has_more = 0;
  pg->qcount = pg->qscanned = -1;
  pg->count_only = 0;
  pg->error_item = -1;
  pg->q_pattern = -1;
  pg->scan_set = 0;
  memset(&pg->lek, 0, sizeof pg->lek);
  if (!keep_error) {
    ddbst_buf_reset(&pg->text);
    pg->error_kind = DDBST_DDB_NONE;
    pg->nreasons = 0;
    pg->nthrottles = 0;
    pg->etype = pg->etype_len = pg->emsg = pg->emsg_len = 0;
  }
}

ddbst_page *ddbst_page_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_page *pg = ddbst__malloc(&m->alloc, sizeof *pg);
  if (!pg) return NULL;
  if (ddbst__page_init(pg, m)) {
    ddbst__free(&m->alloc, pg);
    return NULL;
  }
  return pg;
}

void ddbst_page_free(ddbst_page *pg) {
  if (!pg) return;
  const ddbst_model *m = pg->m;
  ddbst__page_release(pg);
  ddbst__free(&m->alloc, pg);
}

int ddbst_page_count(const ddbst_page *pg) { return pg ? pg->count : 0; }
