/* Markdown a reviewer reads before the first deploy: the entity and key
 * table, the indexes and the access patterns laid out as the first seed lays
 * them out, and a Mermaid diagram of who shares which partition. */
#include <stdio.h>
#include <string.h>

#include "json/jw.h"
#include "review/review.h"

/* The document and the scratch text of one code span, each through the
 * sticky writer, so the layout code reads top to bottom. */
typedef struct md {
  ddbst__jw out;
  ddbst__jw scratch;
  ddbst_buf scratch_buf;
  const ddbst_model *m;
} md;

static void put_n(md *w, const char *s, size_t n) {
  ddbst__jw_raw(&w->out, s, n);
}
static void put(md *w, const char *s) { ddbst__jw_puts(&w->out, s); }
#define putf(w, ...) ddbst__jw_printf(&(w)->out, __VA_ARGS__)

/* Table cell text: a '|' would end the cell. */
static void put_cell_text(md *w, const char *s, size_t n) {
  size_t from = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '|') {
      put_n(w, s + from, i - from);
      put(w, "\\|");
      from = i + 1;
    }
  put_n(w, s + from, n - from);
}

/* The scratch text as a code span inside a table cell: a fence longer than
 * any run of backticks in it, padded when it starts or ends with one. */
static void put_scratch_code(md *w) {
  const char *s = w->scratch_buf.data ? w->scratch_buf.data : "";
  size_t n = w->scratch_buf.len, run = 0, longest = 0;
  for (size_t i = 0; i < n; i++) {
    run = s[i] == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  int pad = n && (s[0] == '`' || s[n - 1] == '`');
  for (size_t i = 0; i <= longest; i++) put(w, "`");
  if (pad) put(w, " ");
  put_cell_text(w, s, n);
  if (pad) put(w, " ");
  for (size_t i = 0; i <= longest; i++) put(w, "`");
}

static void scratch_reset(md *w) { ddbst_buf_reset(&w->scratch_buf); }
static void scratch_n(md *w, const char *s, size_t n) {
  ddbst__jw_raw(&w->scratch, s, n);
}
static void scratch(md *w, const char *s) { ddbst__jw_puts(&w->scratch, s); }

/* A template as the seed writes keys: ORG#<orgId>, EMAIL#<lowercased email>.
 * Segments [0, upto) only; `range` (a facet index or -1) is written as
 * <name `range_word`>. */
static void scratch_template(md *w, const ddbst__entity *e,
                             const ddbst__template *t, int upto, int range,
                             const char *range_word) {
  for (int i = 0; i < upto && i < t->nsegs; i++) {
    const ddbst__seg *s = &t->segs[i];
    if (s->attr < 0) {
      scratch_n(w, s->text, s->len);
      continue;
    }
    scratch(w, "<");
    if (s->lower) scratch(w, "lowercased ");
    scratch(w, e->attrs[s->attr].name);
    if (s->attr == range) {
      scratch(w, " ");
      scratch(w, range_word);
    }
    scratch(w, ">");
  }
}

static void put_template_code(md *w, const ddbst__entity *e,
                              const ddbst__template *t) {
  scratch_reset(w);
  scratch_template(w, e, t, t->nsegs, -1, NULL);
  put_scratch_code(w);
}

/* "status = published" or "status = draft or published". */
static void put_conditions(md *w, const ddbst__entity *e,
                           const ddbst__cond *c, int n, const char *joiner) {
  for (int i = 0; i < n; i++) {
    if (i) put(w, joiner);
    put(w, e->attrs[c[i].attr].name);
    put(w, " = ");
    for (size_t j = 0; j < c[i].nvalues; j++) {
      if (j) put(w, " or ");
      scratch_reset(w);
      scratch_n(w, c[i].values[j], c[i].lens[j]);
      put_scratch_code(w);
    }
  }
}

/* ---- entities and keys ---- */

/* Index key attributes, each once: indexes may share a pair of attributes. */
typedef struct key_columns {
  const char *name[2 * DDBST__MAX_INDEXES];
  int index[2 * DDBST__MAX_INDEXES];
  int is_sk[2 * DDBST__MAX_INDEXES];
  int n;
} key_columns;

static void collect_columns(const ddbst_model *m, key_columns *c) {
  c->n = 0;
  for (int i = 0; i < m->nindexes && c->n < 2 * DDBST__MAX_INDEXES; i++) {
    /* a local index's partition key is the table's: no column of its own;
     * a native index's attributes are the entities' own: none at all */
    if (m->indexes[i].native) continue;
    const char *attrs[2] = {ddbst__index_own_pk(&m->indexes[i])
                                ? m->indexes[i].pk_attr
                                : NULL,
                            ddbst__index_own_sk(&m->indexes[i])
                                ? m->indexes[i].sk_attr
                                : NULL};
    for (int k = 0; k < 2; k++) {
      if (!attrs[k]) continue;
      int seen = 0;
      for (int j = 0; j < c->n; j++)
        if (strcmp(c->name[j], attrs[k]) == 0) seen = 1;
      if (seen) continue;
      c->name[c->n] = attrs[k];
      c->index[c->n] = i;
      c->is_sk[c->n] = k;
      c->n++;
    }
  }
}

static void entity_row(md *w, const key_columns *cols, int entity) {
  const ddbst_model *m = w->m;
  const ddbst__entity *e = &m->entities[entity];
  put(w, "| ");
  put_cell_text(w, e->name, strlen(e->name));
  put(w, " | ");
  put_template_code(w, e, &e->key.pk);
  if (m->sk_attr) {
    put(w, " | ");
    put_template_code(w, e, &e->key.sk);
  }
  for (int c = 0; c < cols->n; c++) {
    put(w, " | ");
    const char *attr = cols->name[c];
    for (int i = 0; i < e->nindexes; i++) {
      const ddbst__ekey *k = &e->indexes[i];
      const ddbst__index *ix = &m->indexes[k->index];
      int is_pk = ddbst__index_own_pk(ix) && strcmp(ix->pk_attr, attr) == 0;
      int is_sk = ddbst__index_own_sk(ix) && strcmp(ix->sk_attr, attr) == 0;
      if (!is_pk && !is_sk) continue;
      put_template_code(w, e, is_pk ? &k->pk : &k->sk);
      if ((is_pk || ix->local) && k->nwhen) {
        put(w, " when ");
        put_conditions(w, e, k->when, k->nwhen, " and ");
      }
      break;
    }
  }
  put(w, " | ");
  int first = 1;
  for (int a = 0; a < e->nattrs; a++) {
    if (e->attrs[a].primary_facet) continue;
    if (!first) put(w, ", ");
    first = 0;
    put(w, e->attrs[a].name);
  }
  put(w, " |\n");
}

/* A uniqueness item: PK and SK both the constraint's key. */
static void unique_row(md *w, const key_columns *cols, int entity, int u) {
  const ddbst_model *m = w->m;
  const ddbst__entity *e = &m->entities[entity];
  const ddbst__unique *q = &e->uniques[u];
  put(w, "| ");
  put_cell_text(w, e->name, strlen(e->name));
  put(w, " (unique ");
  put_cell_text(w, q->name, strlen(q->name));
  put(w, ") | ");
  put_template_code(w, e, &q->tmpl);
  if (m->sk_attr) {
    put(w, " | ");
    put_template_code(w, e, &q->tmpl);
  }
  /* No index keys; what else the item holds is the writer's business. */
  for (int c = 0; c < cols->n + 1; c++) put(w, " | ");
  put(w, " |\n");
}

static void entities_section(md *w) {
  const ddbst_model *m = w->m;
  key_columns cols;
  collect_columns(m, &cols);
  put(w, "## Entities and keys\n\n| Entity | ");
  put(w, m->pk_attr);
  if (m->sk_attr) {
    put(w, " | ");
    put(w, m->sk_attr);
  }
  for (int c = 0; c < cols.n; c++) {
    put(w, " | ");
    put(w, cols.name[c]);
  }
  put(w, " | Other attributes |\n|");
  int ncols = 3 + (m->sk_attr ? 1 : 0) + cols.n;
  for (int c = 0; c < ncols; c++) put(w, " --- |");
  put(w, "\n");
  for (int e = 0; e < m->nentities; e++) {
    entity_row(w, &cols, e);
    for (int u = 0; u < m->entities[e].nuniques; u++)
      unique_row(w, &cols, e, u);
  }
  if (m->entity_attr || m->ttl_attr) put(w, "\n");
  if (m->entity_attr) {
    put(w, "Every item also carries `");
    put(w, m->entity_attr);
    put(w, m->ttl_attr ? "`, its entity's name. " : "`, its entity's name.\n");
  }
  if (m->ttl_attr) {
    put(w, "`");
    put(w, m->ttl_attr);
    put(w, "` is the table's TTL attribute: DynamoDB deletes an item some "
           "time after the epoch second it holds.\n");
  }
  put(w, "\n");
}

/* ---- indexes ---- */

/* What sets an index apart from a template-keyed global one, or NULL. */
static const char *index_kind(const ddbst__index *ix) {
  if (ix->local) return "local";
  if (ix->native) return "multi-attribute";
  if (ix->pk_shared == 2) return "inverted";
  if (ix->pk_shared == 1) return "on the table's partition key";
  return NULL;
}

static void indexes_section(md *w) {
  const ddbst_model *m = w->m;
  if (m->nindexes == 0) return;
  put(w, "## Indexes\n\n| Index | Partition key | Sort key | Projection | "
         "Written by |\n| --- | --- | --- | --- | --- |\n");
  for (int i = 0; i < m->nindexes; i++) {
    const ddbst__index *ix = &m->indexes[i];
    put(w, "| ");
    put(w, ix->name);
    if (index_kind(ix)) putf(w, " (%s)", index_kind(ix));
    put(w, " | ");
    for (int a = 0; a < (ix->native ? ix->npk : 1); a++) {
      const char *n = ix->native ? ix->pk_attrs[a] : ix->pk_attr;
      if (a) put(w, ", ");
      put_cell_text(w, n, strlen(n));
    }
    put(w, " | ");
    for (int a = 0; a < (ix->native ? ix->nsk : !!ix->sk_attr); a++) {
      const char *n = ix->native ? ix->sk_attrs[a] : ix->sk_attr;
      if (a) put(w, ", ");
      put_cell_text(w, n, strlen(n));
    }
    put(w, " | ");
    if (ix->projection == DDBST__PROJ_ALL) put(w, "ALL");
    if (ix->projection == DDBST__PROJ_KEYS_ONLY) put(w, "KEYS_ONLY");
    if (ix->projection == DDBST__PROJ_INCLUDE) {
      put(w, "INCLUDE ");
      for (size_t j = 0; j < ix->ninclude; j++) {
        if (j) put(w, ", ");
        put(w, ix->include[j]);
      }
    }
    put(w, " | ");
    int first = 1;
    for (int e = 0; e < m->nentities; e++) {
      const ddbst__entity *ent = &m->entities[e];
      const ddbst__ekey *k = ddbst__entity_key(ent, i);
      if (!k) continue;
      if (!first) put(w, ", ");
      first = 0;
      put(w, ent->name);
      if (k->nwhen) {
        put(w, " when ");
        put_conditions(w, ent, k->when, k->nwhen, " and ");
      }
    }
    put(w, " |\n");
  }
  put(w, "\n");
}

/* ---- access patterns ---- */

/* A native index's condition: each partition attribute by equality, the
 * sort attributes before the range's too, then the range's. */
static void native_condition(md *w, const ddbst__index *ix,
                             const ddbst__pattern *p) {
  for (int a = 0; a < ix->npk; a++)
    putf(w, "%s%s = `<%s>`", a ? " AND " : "", ix->pk_attrs[a],
         ix->pk_attrs[a]);
  if (p->range < 0) return;
  const char *range = w->m->entities[p->entities[0]].attrs[p->range].name;
  for (int a = 0; a < ix->nsk; a++) {
    if (strcmp(ix->sk_attrs[a], range) == 0) {
      putf(w, " AND %s BETWEEN `<%s from>` AND `<%s to>`", range, range,
           range);
      return;
    }
    putf(w, " AND %s = `<%s>`", ix->sk_attrs[a], ix->sk_attrs[a]);
  }
}

static void key_condition(md *w, const ddbst__pattern *p) {
  const ddbst_model *m = w->m;
  if (p->nentities == 0) return;
  const ddbst__entity *e = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(e, p->index);
  const char *pk_attr = ddbst__pk_attr_of(m, p->index);
  const char *sk_attr = ddbst__sk_attr_of(m, p->index);
  if (!k) return;
  if (p->op == DDBST__OP_QUERY && p->index >= 0 && m->indexes[p->index].native) {
    native_condition(w, &m->indexes[p->index], p);
    return;
  }
  if (p->op == DDBST__OP_SCAN) {
    put(w, "none: every item is read");
  } else {
    putf(w, "%s = ", pk_attr);
    put_template_code(w, e, &k->pk);
  }
  if (p->op == DDBST__OP_GET && sk_attr) {
    putf(w, " AND %s = ", sk_attr);
    put_template_code(w, e, &k->sk);
  }
  if (p->op == DDBST__OP_QUERY && sk_attr && p->range >= 0) {
    int upto = 0;
    while (upto < k->sk.nsegs && k->sk.segs[upto].attr != p->range) upto++;
    putf(w, " AND %s BETWEEN ", sk_attr);
    scratch_reset(w);
    scratch_template(w, e, &k->sk, upto + 1, p->range, "from");
    put_scratch_code(w);
    put(w, " AND ");
    scratch_reset(w);
    scratch_template(w, e, &k->sk, upto + 1, p->range, "to");
    put_scratch_code(w);
  } else if (p->op == DDBST__OP_QUERY && sk_attr && p->nentities == 1) {
    const char *lit;
    size_t n = ddbst__template_prefix(&k->sk, &lit);
    /* A key all literal is one item: begins_with would be the key itself. */
    if (n && k->sk.nfacets) {
      putf(w, " AND begins_with(%s, ", sk_attr);
      scratch_reset(w);
      scratch_n(w, lit, n);
      put_scratch_code(w);
      put(w, ")");
    }
  }
  if (p->nfilter) {
    put(w, ", then filter ");
    put_conditions(w, e, p->filter, p->nfilter, " and ");
  }
}

static void patterns_section(md *w) {
  const ddbst_model *m = w->m;
  if (m->npatterns == 0) return;
  put(w, "## Access patterns\n\n| # | Pattern | Operation | Index | Key "
         "condition | Order | Limit |\n| --- | --- | --- | --- | --- | --- | "
         "--- |\n");
  for (int i = 0; i < m->npatterns; i++) {
    const ddbst__pattern *p = &m->patterns[i];
    putf(w, "| %d | ", i + 1);
    put(w, p->name);
    if (p->description) {
      put(w, ": ");
      put_cell_text(w, p->description, strlen(p->description));
    }
    put(w, p->op == DDBST__OP_GET     ? " | GetItem "
           : p->op == DDBST__OP_QUERY ? " | Query "
                                      : " | Scan ");
    for (int j = 0; j < p->nentities; j++) {
      if (j) put(w, ", ");
      put(w, m->entities[p->entities[j]].name);
    }
    put(w, " | ");
    put(w, p->index < 0 ? "table" : m->indexes[p->index].name);
    put(w, " | ");
    key_condition(w, p);
    if (p->op == DDBST__OP_QUERY)
      put(w, p->descending ? " | desc | " : " | asc | ");
    else
      put(w, " | - | ");
    if (p->op == DDBST__OP_GET)
      put(w, "-");
    else if (p->limit_default && p->limit_max)
      putf(w, "%u (max %u)", p->limit_default, p->limit_max);
    else if (p->limit_max)
      putf(w, "max %u", p->limit_max);
    else if (p->limit_default)
      putf(w, "%u, no max", p->limit_default);
    else
      put(w, "none");
    put(w, " |\n");
  }
  put(w, "\n");
}

/* ---- the diagram ---- */

/* Mermaid label text inside double quotes: a quote is written as an entity
 * code; braces, '#' and ':' are safe there. */
static void put_label(md *w, const char *s) {
  for (; *s; s++) {
    if (*s == '"')
      put(w, "#quot;");
    else
      put_n(w, s, 1);
  }
}

/* Partition nodes are numbered in order of appearance; one node per distinct
 * partition template within the table or one index. */
typedef struct partition {
  const char *source;
  int group; /* -1 table, else index */
} partition;

typedef struct partitions {
  partition *p;
  int n;
} partitions;

/* The node of a partition template; collect_partitions sized the array for
 * every template the model has, so adding never overflows. */
static int partition_node(partitions *ps, int group, const char *source) {
  for (int i = 0; i < ps->n; i++)
    if (ps->p[i].group == group && strcmp(ps->p[i].source, source) == 0)
      return i;
  ps->p[ps->n].source = source;
  ps->p[ps->n].group = group;
  return ps->n++;
}

static int collect_partitions(const ddbst_model *m,
                              const ddbst_allocator *alloc, partitions *ps) {
  size_t most = 0;
  for (int e = 0; e < m->nentities; e++)
    most += 1 + (size_t)m->entities[e].nuniques +
            (size_t)m->entities[e].nindexes;
  ps->n = 0;
  ps->p = ddbst__malloc(alloc, (most ? most : 1) * sizeof *ps->p);
  if (!ps->p) return DDBST_ENOMEM;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    partition_node(ps, -1, ent->key.pk.source);
    for (int u = 0; u < ent->nuniques; u++)
      partition_node(ps, -1, ent->uniques[u].tmpl.source);
  }
  for (int i = 0; i < m->nindexes; i++)
    for (int e = 0; e < m->nentities; e++) {
      const ddbst__ekey *k = ddbst__entity_key(&m->entities[e], i);
      if (k) partition_node(ps, i, k->pk.source);
    }
  return 0;
}

static void put_group(md *w, const partitions *ps, int group) {
  const ddbst_model *m = w->m;
  const char *attr = ddbst__pk_attr_of(m, group);
  for (int i = 0; i < ps->n; i++) {
    if (ps->p[i].group != group) continue;
    putf(w, "    P%d[\"", i);
    const ddbst__index *ix = group >= 0 ? &m->indexes[group] : NULL;
    if (ix && ix->native) {
      /* the entities' own attributes, each its value */
      for (int a = 0; a < ix->npk; a++) {
        put(w, a ? ", " : "");
        put_label(w, ix->pk_attrs[a]);
        put(w, " = {");
        put_label(w, ix->pk_attrs[a]);
        put(w, "}");
      }
    } else {
      put_label(w, attr);
      put(w, " = ");
      put_label(w, ps->p[i].source);
    }
    put(w, "\"]\n");
  }
}

static void diagram_section(md *w) {
  const ddbst_model *m = w->m;
  partitions ps;
  if (collect_partitions(m, &w->out.b->alloc, &ps)) {
    ddbst__jw_status(&w->out, DDBST_ENOMEM);
    return;
  }
  put(w, "## Partitions\n\nAn arrow goes from an entity to the partitions "
         "it writes, in the table and in each index; a dotted one to the "
         "partitions of its uniqueness items. Entities that point at one "
         "node share those partitions.\n\n```mermaid\nflowchart LR\n");
  for (int e = 0; e < m->nentities; e++) {
    putf(w, "  E%d[\"", e);
    put_label(w, m->entities[e].name);
    put(w, "\"]\n");
  }
  put(w, "  subgraph T[\"table ");
  put_label(w, m->table_name);
  put(w, "\"]\n");
  put_group(w, &ps, -1);
  put(w, "  end\n");
  for (int i = 0; i < m->nindexes; i++) {
    const ddbst__index *ix = &m->indexes[i];
    putf(w, "  subgraph X%d[\"", i);
    put_label(w, ix->name);
    if (index_kind(ix)) putf(w, ", %s", index_kind(ix));
    put(w, ix->projection == DDBST__PROJ_ALL         ? ", ALL"
           : ix->projection == DDBST__PROJ_KEYS_ONLY ? ", KEYS_ONLY"
                                                     : ", INCLUDE");
    put(w, "\"]\n");
    put_group(w, &ps, i);
    put(w, "  end\n");
  }
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    putf(w, "  E%d --> P%d\n", e,
         partition_node(&ps, -1, ent->key.pk.source));
    for (int u = 0; u < ent->nuniques; u++)
      putf(w, "  E%d -. unique %s .-> P%d\n", e, ent->uniques[u].name,
           partition_node(&ps, -1, ent->uniques[u].tmpl.source));
    for (int i = 0; i < ent->nindexes; i++)
      putf(w, "  E%d --> P%d\n", e,
           partition_node(&ps, ent->indexes[i].index,
                          ent->indexes[i].pk.source));
  }
  put(w, "```\n");
  ddbst__free(&w->out.b->alloc, ps.p);
}

int ddbst_model_doc(const ddbst_model *model, ddbst_buf *out,
                    ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!model || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  md w;
  ddbst__jw_init(&w.out, out);
  ddbst__buf_init(&w.scratch_buf, &out->alloc);
  ddbst__jw_init(&w.scratch, &w.scratch_buf);
  w.m = model;
  size_t start = out->len;
  put(&w, "# ");
  put(&w, model->table_name);
  put(&w, "\n\n");
  if (model->description) {
    put(&w, model->description);
    put(&w, "\n\n");
  }
  entities_section(&w);
  indexes_section(&w);
  patterns_section(&w);
  diagram_section(&w);
  ddbst__buf_release(&w.scratch_buf);
  if (w.out.rc || w.scratch.rc) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}
