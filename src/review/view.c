/* The design view of a model as JSON (ddbst_model_view_json), which the
 * `ddbst view` page draws: the sample items (sample.c) as the table and
 * each index hold them, in the order DynamoDB keeps them; every access
 * pattern with a request ddbst builds for the sample, its expressions
 * spelled out, a sentence on what it reads, and the rows it reads, in
 * order (view_eval.c); the lint findings; the model's descriptions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/jw.h"
#include "review/review.h"
#include "review/view.h"

typedef struct viewer {
  const ddbst_model *m;
  ddbst__sample s;
  ddbst__jw *w;
  ddbst_buf body; /* a request being built */
  ddbst_buf text; /* a sentence being written */
  ddbst__arena ar; /* request trees */
  ddbst_error *err;
  int rc; /* the first error that is not the writer's */
} viewer;

/* The key attribute names of `index` (-1: the table) into `names`: the
 * partition key's (returned: how many), then the sort key's
 * (key_names_sk: how many). A multi-attribute key has up to four a side. */
static int key_names(const ddbst_model *m, int index, const char **names) {
  const ddbst__index *ix = index >= 0 ? &m->indexes[index] : NULL;
  int native = ix && ix->native;
  int npk = native ? ix->npk : 1;
  const char *sk = ddbst__sk_attr_of(m, index);
  for (int i = 0; i < npk; i++)
    names[i] = native ? ix->pk_attrs[i] : ddbst__pk_attr_of(m, index);
  int nsk = native ? ix->nsk : sk != NULL;
  for (int i = 0; i < nsk; i++) names[npk + i] = native ? ix->sk_attrs[i] : sk;
  return npk;
}

static int key_names_sk(const ddbst_model *m, int index) {
  const ddbst__index *ix = index >= 0 ? &m->indexes[index] : NULL;
  return ix && ix->native ? ix->nsk : ddbst__sk_attr_of(m, index) != NULL;
}

/* ---- the model ---- */

static void put_template(ddbst__jw *w, const char *key,
                         const ddbst__template *t) {
  ddbst__jw_key(w, key);
  if (t->nsegs)
    ddbst__jw_str(w, t->source);
  else
    ddbst__jw_null(w);
}

static void put_opt(ddbst__jw *w, const char *key, const char *v) {
  ddbst__jw_key(w, key);
  if (v)
    ddbst__jw_str(w, v);
  else
    ddbst__jw_null(w);
}

static void put_model(viewer *v) {
  const ddbst_model *m = v->m;
  ddbst__jw *w = v->w;
  ddbst__jw_key(w, "table");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "name", m->table_name);
  ddbst__jw_pair(w, "partitionKey", m->pk_attr);
  put_opt(w, "sortKey", m->sk_attr);
  put_opt(w, "entityAttribute", m->entity_attr);
  put_opt(w, "ttlAttribute", m->ttl_attr);
  ddbst__jw_pair(w, "delimiter", m->delim);
  put_opt(w, "description", m->description);
  ddbst__jw_close(w, '}');

  ddbst__jw_key(w, "indexes");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < m->nindexes; i++) {
    const ddbst__index *ix = &m->indexes[i];
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "name", ix->name);
    ddbst__jw_pair(w, "partitionKey", ix->pk_attr);
    put_opt(w, "sortKey", ix->sk_attr);
    /* every key attribute: a multi-attribute key has up to four a side */
    const char *names[8];
    int npk = key_names(m, i, names);
    ddbst__jw_key(w, "partitionKeys");
    ddbst__jw_open(w, '[');
    for (int k = 0; k < npk; k++) ddbst__jw_str(w, names[k]);
    ddbst__jw_close(w, ']');
    ddbst__jw_key(w, "sortKeys");
    ddbst__jw_open(w, '[');
    for (int k = npk; k < npk + key_names_sk(m, i); k++)
      ddbst__jw_str(w, names[k]);
    ddbst__jw_close(w, ']');
    ddbst__jw_key(w, "projection");
    if (ix->projection == DDBST__PROJ_INCLUDE) {
      ddbst__jw_open(w, '[');
      for (size_t k = 0; k < ix->ninclude; k++)
        ddbst__jw_str(w, ix->include[k]);
      ddbst__jw_close(w, ']');
    } else {
      ddbst__jw_str(w, ix->projection == DDBST__PROJ_ALL ? "ALL" : "KEYS_ONLY");
    }
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');

  ddbst__jw_key(w, "entities");
  ddbst__jw_open(w, '[');
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "name", ent->name);
    put_opt(w, "description", ent->description);
    ddbst__jw_key(w, "attributes");
    ddbst__jw_open(w, '[');
    for (int a = 0; a < ent->nattrs; a++) {
      const ddbst__attr *at = &ent->attrs[a];
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "name", at->name);
      ddbst__jw_pair(w, "type", ddbst__type_name(at->type));
      if (at->description) ddbst__jw_pair(w, "description", at->description);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
    ddbst__jw_key(w, "key");
    ddbst__jw_open(w, '{');
    put_template(w, "pk", &ent->key.pk);
    put_template(w, "sk", &ent->key.sk);
    ddbst__jw_close(w, '}');
    ddbst__jw_key(w, "indexes");
    ddbst__jw_open(w, '{');
    for (int i = 0; i < ent->nindexes; i++) {
      const ddbst__ekey *k = &ent->indexes[i];
      ddbst__jw_key(w, m->indexes[k->index].name);
      ddbst__jw_open(w, '{');
      put_template(w, "pk", &k->pk);
      put_template(w, "sk", &k->sk);
      ddbst__jw_key(w, "sparse");
      ddbst__jw_bool(w, !ddbst__ekey_always_written(ent, k));
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, '}');
    ddbst__jw_key(w, "unique");
    ddbst__jw_open(w, '{');
    for (int u = 0; u < ent->nuniques; u++)
      ddbst__jw_pair(w, ent->uniques[u].name, ent->uniques[u].tmpl.source);
    ddbst__jw_close(w, '}');
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
}

/* ---- the items, and each index's view of them ---- */

static void put_items(viewer *v) {
  ddbst__jw *w = v->w;
  ddbst__jw_key(w, "items");
  ddbst__jw_open(w, '[');
  for (int r = 0; r < v->s.nrows; r++) {
    const ddbst__sample_row *row = &v->s.rows[r];
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "entity", v->m->entities[row->entity].name);
    if (row->unique >= 0) {
      ddbst__jw_pair(w, "guard",
                     v->m->entities[row->entity].uniques[row->unique].name);
      ddbst__jw_key(w, "owner");
      ddbst__jw_int(w, row->owner);
    }
    ddbst__jw_key(w, "item");
    ddbst__jw_json(w, row->json, row->len);
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
}

/* A row of an index's view: its keys there, and the table's. */
typedef struct keyed {
  int row;
  const ddbst__jnode *k[10]; /* AttributeValues */
  int n;
} keyed;

static int by_keys(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  for (int i = 0; i < a->n; i++) {
    int c = ddbst__view_av_cmp(a->k[i], b->k[i]);
    if (c) return c;
  }
  return (a->row > b->row) - (a->row < b->row);
}

/* Whether `row` has every key attribute of `index` (-1: the table): then
 * the index holds it. Fills `k` with them, then the table's keys. */
static int index_row(const viewer *v, int index, int row, keyed *k) {
  const ddbst_model *m = v->m;
  const char *names[8];
  int n = key_names(m, index, names) + key_names_sk(m, index);
  k->row = row;
  k->n = 0;
  for (int i = 0; i < n; i++) {
    k->k[k->n] = ddbst__jobj_get(v->s.rows[row].node, names[i]);
    if (!k->k[k->n++]) return 0;
  }
  k->k[k->n++] = ddbst__jobj_get(v->s.rows[row].node, m->pk_attr);
  k->k[k->n++] =
      m->sk_attr ? ddbst__jobj_get(v->s.rows[row].node, m->sk_attr) : NULL;
  return 1;
}

/* Whether two rows are in one partition of `index`: equal partition key
 * attributes. */
static int same_partition(const viewer *v, int index, int a, int b) {
  const char *names[8];
  int n = key_names(v->m, index, names);
  for (int i = 0; i < n; i++) {
    const ddbst__jnode *x = ddbst__jobj_get(v->s.rows[a].node, names[i]);
    const ddbst__jnode *y = ddbst__jobj_get(v->s.rows[b].node, names[i]);
    if (!x || !y || ddbst__view_av_cmp(x, y)) return 0;
  }
  return 1;
}

/* The rows `index` (-1: the table) holds, in its key order: an index holds
 * the items that have its key attributes (a sparse index, fewer). */
static void put_view(viewer *v, int index, keyed *rows) {
  const ddbst_model *m = v->m;
  size_t n = 0;
  for (int r = 0; r < v->s.nrows; r++)
    if (index_row(v, index, r, &rows[n])) n++;
  qsort(rows, n, sizeof *rows, by_keys);
  ddbst__jw *w = v->w;
  ddbst__jw_open(w, '{');
  put_opt(w, "index", index < 0 ? NULL : m->indexes[index].name);
  ddbst__jw_key(w, "rows");
  ddbst__jw_open(w, '[');
  for (size_t i = 0; i < n; i++) ddbst__jw_int(w, rows[i].row);
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
}

/* ---- the access patterns ---- */

/* The row of `entity` in the middle of the biggest partition of the index
 * a pattern reads: the sample's most telling query. */
static int pick_partition(viewer *v, const ddbst__pattern *p, int *best_size) {
  int best = -1;
  *best_size = 0;
  keyed k;
  for (int r = 0; r < v->s.nrows; r++) {
    const ddbst__sample_row *row = &v->s.rows[r];
    if (!row->item || row->entity != p->entities[0] ||
        !index_row(v, p->index, r, &k))
      continue;
    int size = 0;
    for (int q = 0; q < v->s.nrows; q++)
      size += same_partition(v, p->index, r, q);
    if (size > *best_size) {
      *best_size = size;
      best = r;
    }
  }
  return best;
}

/* Copies the facets of template `t` from the row's item into `values`. */
static int copy_facets(ddbst_item *values, const ddbst_item *from,
                       const ddbst__template *t, ddbst_error *err) {
  for (int i = 0; i < t->nsegs; i++) {
    int a = t->segs[i].attr;
    size_t len;
    const char *text = a >= 0 ? ddbst__item_text(from, a, &len) : NULL;
    if (!text) continue;
    int rc = ddbst_item_set(values, a, text, len, err);
    if (rc) return rc;
  }
  return 0;
}

static int by_text(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int by_number(const void *x, const void *y) {
  double a = strtod(*(const char *const *)x, NULL);
  double b = strtod(*(const char *const *)y, NULL);
  return (a > b) - (a < b);
}

/* A range over the sample's values of the pattern's range facet in the
 * partition of `from`: from the value a quarter in to the one three
 * quarters in; a timestamp's by day, so that the view shows a partial
 * upper bound taking the whole of its day. 0 when the partition holds
 * fewer than two items. */
static int pick_range(viewer *v, const ddbst__pattern *p, const ddbst_item *from,
                      const ddbst__ekey *k, ddbst_query *q, char *lo,
                      char *hi, size_t cap) {
  const ddbst__entity *e = &v->m->entities[p->entities[0]];
  const char *texts[64];
  int n = 0, at = -1;
  for (int r = 0; r < v->s.nrows && at < 0; r++)
    if (v->s.rows[r].item == from) at = r;
  for (int r = 0; at >= 0 && r < v->s.nrows && n < 64; r++) {
    const ddbst__sample_row *row = &v->s.rows[r];
    size_t len;
    if (!row->item || row->entity != p->entities[0] ||
        !same_partition(v, p->index, at, r))
      continue;
    /* the sort-key facets before the range facet must be the same */
    int same = 1;
    for (int i = 0; i < k->sk.nsegs && k->sk.segs[i].attr != p->range; i++) {
      int a = k->sk.segs[i].attr;
      size_t x, y;
      const char *t1 = a >= 0 ? ddbst__item_text(row->item, a, &x) : NULL;
      const char *t2 = a >= 0 ? ddbst__item_text(from, a, &y) : NULL;
      if (a >= 0 && (!t1 || !t2 || x != y || memcmp(t1, t2, x))) same = 0;
    }
    const char *t = ddbst__item_text(row->item, p->range, &len);
    if (same && t) texts[n++] = t;
  }
  if (n < 2) return 0;
  ddbst__type t = e->attrs[p->range].type;
  qsort(texts, (size_t)n, sizeof *texts,
        t == DDBST__T_INTEGER || t == DDBST__T_NUMBER || t == DDBST__T_TTL
            ? by_number
            : by_text);
  int day = e->attrs[p->range].type == DDBST__T_TIMESTAMP;
  snprintf(lo, cap, "%.*s", day ? 10 : (int)cap, texts[n / 4]);
  snprintf(hi, cap, "%.*s", day ? 10 : (int)cap, texts[(3 * n - 1) / 4]);
  q->condition = DDBST_SK_BETWEEN;
  q->attribute = p->range;
  q->value = lo;
  q->value_len = strlen(lo);
  q->value2 = hi;
  q->value2_len = strlen(hi);
  return 1;
}

/* What the request reads, in a sentence. */
static void put_meaning(viewer *v, const ddbst__pattern *p, int op,
                        const ddbst_query *q, const ddbst__jnode *body,
                        const ddbst__view_read *r) {
  const ddbst_model *m = v->m;
  const ddbst__entity *e = &m->entities[p->entities[0]];
  char s[1024];
  size_t n = 0;
#define SAY(...)                                                               \
  do {                                                                         \
    int w_ = snprintf(s + n, sizeof s - n, __VA_ARGS__);                       \
    if (w_ > 0) n = n + (size_t)w_ < sizeof s ? n + (size_t)w_ : sizeof s - 1; \
  } while (0)
  if (op == DDBST_OP_GET_ITEM) {
    SAY("GetItem reads the one %s whose primary key is given.", e->name);
  } else {
    SAY("Query reads one partition of %s", p->index < 0 ? "the table"
                                                       : m->indexes[p->index].name);
    if (p->nentities > 1)
      SAY(", the items of the collection's %d entities", p->nentities);
    else if (q->condition == DDBST_SK_BETWEEN)
      SAY(", the %s items with %s from %s through %s (a bound that is a "
          "prefix of the canonical form, like a day of a timestamp, takes "
          "every value that starts with it)",
          e->name, e->attrs[q->attribute].name, q->value, q->value2);
    else
      SAY(", every %s item in it", e->name);
    if (!r->ordered)
      SAY(", in no particular order (%s has no sort key)",
          p->index < 0 ? "the table" : m->indexes[p->index].name);
    else
      SAY(", in sort-key order%s", p->descending ? ", last first" : "");
    const ddbst__jnode *limit = ddbst__jobj_get(body, "Limit");
    if (limit && limit->type == DDBST__J_NUMBER)
      SAY(". Limit %s: %s", limit->text,
          r->more ? "this is the first page; its cursor reads on"
                  : "one page holds them all");
    SAY(".");
  }
  ddbst__jw_pair(v->w, "meaning", s);
#undef SAY
}

/* The pattern's request for the sample, what it reads and why. */
static void put_pattern(viewer *v, int pi, ddbst_item *values) {
  const ddbst_model *m = v->m;
  const ddbst__pattern *p = &m->patterns[pi];
  ddbst__jw *w = v->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "name", p->name);
  ddbst__jw_pair(w, "op", p->op == DDBST__OP_GET     ? "get"
                          : p->op == DDBST__OP_QUERY ? "query"
                                                     : "scan");
  ddbst__jw_key(w, "entities");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < p->nentities; i++)
    ddbst__jw_str(w, m->entities[p->entities[i]].name);
  ddbst__jw_close(w, ']');
  put_opt(w, "index", p->index < 0 ? NULL : m->indexes[p->index].name);
  put_opt(w, "description", p->description);
  int size = 0, row = p->op == DDBST__OP_SCAN ? -1 : pick_partition(v, p, &size);
  if (row < 0 || v->rc) {
    ddbst__jw_key(w, "request");
    ddbst__jw_null(w);
    ddbst__jw_close(w, '}');
    return;
  }
  const ddbst__entity *e = &m->entities[p->entities[0]];
  const ddbst_item *from = v->s.rows[row].item;
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  char lo[128], hi[128];
  int rc = ddbst_item_reset(values, p->entities[0]);
  int op = DDBST_OP_GET_ITEM;
  ddbst_buf_reset(&v->body);
  if (!rc && p->op == DDBST__OP_GET) {
    rc = copy_facets(values, from, &e->key.pk, v->err);
    rc = rc ? rc : copy_facets(values, from, &e->key.sk, v->err);
    rc = rc ? rc : ddbst_get_request(values, 0, &v->body, v->err);
  } else if (!rc) {
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    rc = copy_facets(values, from, &k->pk, v->err);
    if (!rc && p->range >= 0 && pick_range(v, p, from, k, &q, lo, hi, sizeof lo))
      for (int i = 0; !rc && i < k->sk.nsegs && k->sk.segs[i].attr != p->range;
           i++) {
        ddbst__template one = k->sk;
        one.segs = &k->sk.segs[i];
        one.nsegs = 1;
        rc = copy_facets(values, from, &one, v->err);
      }
    rc = rc ? rc : ddbst_query_request(values, pi, &q, &v->body, v->err);
    op = DDBST_OP_QUERY;
  }
  const ddbst__jnode *body = NULL;
  if (rc >= 0)
    rc = ddbst__jtree_parse(&v->ar, v->body.data, v->body.len,
                            (ddbst__jnode **)&body, v->err);
  ddbst__view_read r;
  memset(&r, 0, sizeof r);
  if (rc >= 0) rc = ddbst__view_reads(&v->s, op, body, &r, v->err);
  if (rc < 0) {
    if (!v->rc) v->rc = rc;
    ddbst__view_read_free(m, &r);
    ddbst__jw_close(w, '}');
    return;
  }
  ddbst__jw_key(w, "request");
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "operation", ddbst_operation_name(op));
  ddbst__jw_key(w, "body");
  ddbst__jw_json(w, v->body.data, v->body.len);
  ddbst__jw_close(w, '}');
  static const char *const spelled[] = {"KeyConditionExpression",
                                        "FilterExpression"};
  for (int i = 0; i < 2; i++) {
    ddbst_buf_reset(&v->text);
    if (ddbst__view_spell(body, spelled[i], &v->text)) v->w->rc = DDBST_ENOMEM;
    ddbst__jw_key(w, i ? "filter" : "keyCondition");
    if (v->text.len)
      ddbst__jw_strn(w, v->text.data, v->text.len);
    else
      ddbst__jw_null(w);
  }
  put_meaning(v, p, op, &q, body, &r);
  ddbst__jw_key(w, "reads");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < r.nrows; i++) ddbst__jw_int(w, r.rows[i]);
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "ordered");
  ddbst__jw_bool(w, r.ordered);
  ddbst__jw_key(w, "more");
  ddbst__jw_bool(w, r.more);
  ddbst__view_read_free(m, &r);
  ddbst__jw_close(w, '}');
}

/* ---- lint ---- */

static void on_finding(void *user, int32_t severity, const char *rule,
                       const char *path, const char *message) {
  ddbst__jw *w = user;
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "severity", ddbst_lint_severity_name(severity));
  ddbst__jw_pair(w, "rule", rule);
  ddbst__jw_pair(w, "path", path);
  ddbst__jw_pair(w, "message", message);
  ddbst__jw_close(w, '}');
}

/* ---- the whole view ---- */

int ddbst_model_view_json(const ddbst_model *m, uint64_t seed, ddbst_buf *out,
                          ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  viewer v;
  memset(&v, 0, sizeof v);
  v.m = m;
  v.err = err;
  ddbst__buf_init(&v.body, &m->alloc);
  ddbst__buf_init(&v.text, &m->alloc);
  ddbst__arena_init(&v.ar, &m->alloc);
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  v.w = &w;
  int rc = ddbst__sample_make(m, seed, &v.s, err);
  keyed *rows = rc ? NULL
                   : ddbst__malloc(&m->alloc,
                                   ((size_t)v.s.nrows + 1) * sizeof *rows);
  ddbst_item *values = rc ? NULL : ddbst_item_new(m, 0);
  if (!rc && (!rows || !values))
    rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (!rc) {
    ddbst__jw_open(&w, '{');
    char seed_text[24];
    int n = snprintf(seed_text, sizeof seed_text, "%llu",
                     (unsigned long long)seed);
    ddbst__jw_key(&w, "seed");
    ddbst__jw_number(&w, seed_text, (size_t)n);
    put_model(&v);
    put_items(&v);
    ddbst__jw_key(&w, "views");
    ddbst__jw_open(&w, '[');
    for (int i = -1; i < m->nindexes; i++) put_view(&v, i, rows);
    ddbst__jw_close(&w, ']');
    ddbst__jw_key(&w, "patterns");
    ddbst__jw_open(&w, '[');
    for (int p = 0; p < m->npatterns; p++) put_pattern(&v, p, values);
    ddbst__jw_close(&w, ']');
    ddbst__jw_key(&w, "findings");
    ddbst__jw_open(&w, '[');
    if (!w.rc) ddbst_model_lint(m, on_finding, &w, NULL);
    ddbst__jw_close(&w, ']');
    ddbst__jw_close(&w, '}');
    rc = v.rc ? v.rc : w.rc ? ddbst__fail(err, DDBST_ENOMEM, NULL,
                                          "out of memory")
                            : 0;
  }
  if (rc) {
    out->len = start;
    if (out->data) out->data[start] = '\0';
  }
  ddbst_item_free(values);
  ddbst__free(&m->alloc, rows);
  ddbst__sample_free(&v.s);
  ddbst__arena_free(&v.ar);
  ddbst__buf_release(&v.body);
  ddbst__buf_release(&v.text);
  return rc;
}
