/* patterns.<name>: the access patterns (get, query, scan; index, range,
 * order, limits, filter) and what makes a collection one partition. */
#include <stdint.h>
#include <string.h>

#include "base/suggest.h"
#include "model/facet.h"
#include "model/load.h"
#include "model/suggest.h"

/* Two templates have one shape when they have equal literals at equal
 * places and facets at equal places. */
static int same_shape(const ddbst__template *a, const ddbst__template *b) {
  if (a->nsegs != b->nsegs) return 0;
  for (int i = 0; i < a->nsegs; i++) {
    const ddbst__seg *x = &a->segs[i], *y = &b->segs[i];
    if ((x->attr < 0) != (y->attr < 0)) return 0;
    if (x->attr < 0 && (x->len != y->len || memcmp(x->text, y->text, x->len)))
      return 0;
  }
  return 1;
}

/* Partition templates of a collection must be the same text with facets of
 * the same names, or one partition value could not serve them all. */
static int same_partition(const ddbst__entity *ea, const ddbst__template *a,
                          const ddbst__entity *eb, const ddbst__template *b) {
  if (!same_shape(a, b)) return 0;
  for (int i = 0; i < a->nsegs; i++)
    if (a->segs[i].attr >= 0 &&
        (strcmp(ea->attrs[a->segs[i].attr].name,
                eb->attrs[b->segs[i].attr].name) != 0 ||
         a->segs[i].lower != b->segs[i].lower))
      return 0;
  return 1;
}

static uint32_t get_limit(ddbst__loader *L, const ddbst__jnode *v,
                          const char *field) {
  if (!v) return 0;
  int64_t x = 0;
  if (v->type != DDBST__J_NUMBER || ddbst__int_parse(v->text, v->len, &x) ||
      x < 1 || x > 1000000) {
    ddbst__load_report_field(L, field, v,
                             "expected a whole number from 1 to 1000000");
    return 0;
  }
  return (uint32_t)x;
}

/* "filter": {"attribute": value or [values]}, conditions applied after the
 * read. Every entity of the pattern must declare the attribute; values are
 * canonical for the first entity's type. */
static void load_pattern_filter(ddbst__loader *L, const ddbst__jnode *f,
                                ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  size_t old = ddbst__load_push(L, "filter");
  if (!ddbst__load_expect(L, f, DDBST__J_OBJECT,
                          "an object of attribute: value (or [values])")) {
    ddbst__load_pop(L, old);
    return;
  }
  if (f->count == 0) ddbst__load_report(L, f, "give at least one attribute");
  p->filter = ddbst__load_array(L, f->count, sizeof *p->filter);
  for (size_t i = 0; i < f->count && p->filter && p->nentities; i++) {
    size_t o2 = ddbst__load_push(L, f->keys[i]);
    const ddbst__jnode *v = f->items[i];
    int a = -1, ok = 1;
    for (int j = 0; j < p->nentities; j++) {
      const ddbst__entity *e = &m->entities[p->entities[j]];
      int here = ddbst__attr_index(e, f->keys[i]);
      if (here < 0) {
        char tail[DDBST__TAIL_CAP];
        if (!e->attrs_unread)
          ddbst__load_report(L, v, "'%s' is not an attribute of %s%s",
                             f->keys[i], e->name,
                             ddbst__suggest_tail(
                                 ddbst__suggest_attribute(e, f->keys[i]),
                                 tail, sizeof tail));
        ok = 0;
      } else if (j == 0) {
        a = here;
      }
    }
    const ddbst__entity *first = &m->entities[p->entities[0]];
    if (ok && !ddbst__type_is_key(first->attrs[a].type) &&
        first->attrs[a].type != DDBST__T_NUMBER) {
      ddbst__load_report(L, v, "a filter compares a scalar: '%s' is a %s",
                         f->keys[i], ddbst__type_name(first->attrs[a].type));
      ok = 0;
    }
    size_t nv = v->type == DDBST__J_ARRAY ? v->count : 1;
    if (ok && nv == 0) {
      ddbst__load_report(L, v, "give at least one value");
      ok = 0;
    }
    if (ok) {
      ddbst__cond *c = &p->filter[p->nfilter++];
      c->attr = a;
      c->values = ddbst__load_array(L, nv, sizeof *c->values);
      c->lens = ddbst__load_array(L, nv, sizeof *c->lens);
      for (size_t j = 0; j < nv && c->values && c->lens; j++) {
        const ddbst__jnode *x = v->type == DDBST__J_ARRAY ? v->items[j] : v;
        size_t len = 0;
        const char *text = ddbst__load_literal(L, &first->attrs[a], x, &len);
        if (!text) continue;
        c->values[c->nvalues] = text;
        c->lens[c->nvalues++] = len;
      }
    }
    ddbst__load_pop(L, o2);
  }
  ddbst__load_pop(L, old);
}

/* A pattern's fields, and their slots in what ddbst__load_fields finds. */
static const char *const fields[] = {"get",   "query", "scan",
                                     "index", "range", "order",
                                     "limit", "filter", "description",
                                     NULL};
enum { F_GET, F_QUERY, F_SCAN, F_INDEX, F_RANGE, F_ORDER, F_LIMIT, F_FILTER,
       F_DESCRIPTION, NFIELDS };

/* What lint and doc read beyond the request shape: whether the pattern
 * relies on order, the filter, the description; and what a scan refuses. */
static void load_pattern_review(ddbst__loader *L, const ddbst__jnode *n,
                                const ddbst__jnode *const *got,
                                ddbst__pattern *p) {
  if (p->op == DDBST__OP_SCAN && (got[F_RANGE] || got[F_ORDER]))
    ddbst__load_report(
        L, n, "a scan has no key order: 'range' and 'order' do not apply");
  p->ordered = got[F_ORDER] || got[F_RANGE];
  const ddbst__jnode *f = got[F_FILTER];
  if (f && p->op == DDBST__OP_GET)
    ddbst__load_report_field(L, "filter", f,
                             "GetItem reads one item: it takes no filter");
  else if (f)
    load_pattern_filter(L, f, p);
  const ddbst__jnode *d =
      ddbst__load_string_of(L, n, "description", got[F_DESCRIPTION], 0);
  if (d) p->description = ddbst__load_dup(L, d->text);
}

void ddbst__load_pattern(ddbst__loader *L, const char *name,
                         const ddbst__jnode *n, ddbst__pattern *p) {
  ddbst_model *m = L->m;
  p->name = ddbst__load_dup(L, name);
  if (!p->name) return; /* out of memory: the load ends here */
  p->index = -1;
  p->range = -1;
  if (!ddbst__is_identifier(name))
    ddbst__load_report(
        L, n,
        "a pattern name starts with a letter or '_' and holds only "
        "letters, digits, '_' and '-'");
  if (!ddbst__load_expect(L, n, DDBST__J_OBJECT, "an object")) return;
  const ddbst__jnode *got[NFIELDS];
  ddbst__load_fields(L, n, fields, got);
  const ddbst__jnode *get = got[F_GET];
  const ddbst__jnode *query = got[F_QUERY];
  const ddbst__jnode *scan = got[F_SCAN];
  if (!!get + !!query + !!scan != 1) {
    ddbst__load_report(
        L, n,
        "give exactly one of 'get' (an entity) or 'query' (an "
        "entity or a list of entities), or 'scan' (the same, read "
        "without a key)");
    return;
  }
  p->op = get ? DDBST__OP_GET : query ? DDBST__OP_QUERY : DDBST__OP_SCAN;
  const ddbst__jnode *what = get ? get : query ? query : scan;
  const char *field = get ? "get" : query ? "query" : "scan";
  size_t old = ddbst__load_push(L, field);
  size_t count = what->type == DDBST__J_ARRAY ? what->count : 1;
  if (get && what->type != DDBST__J_STRING) {
    ddbst__load_report(L, what, "expected an entity name");
    count = 0;
  } else if (what->type != DDBST__J_STRING && what->type != DDBST__J_ARRAY) {
    ddbst__load_report(L, what, "expected an entity name or a list of them");
    count = 0;
  } else if (count == 0) {
    ddbst__load_report(L, what, "a collection lists at least one entity");
  }
  p->entities = ddbst__load_array(L, count, sizeof *p->entities);
  for (size_t i = 0; i < count && p->entities; i++) {
    const ddbst__jnode *x =
        what->type == DDBST__J_ARRAY ? what->items[i] : what;
    int e = x->type == DDBST__J_STRING ? ddbst__load_entity_named(L, x->text)
                                       : -1;
    if (e < 0) {
      char tail[DDBST__TAIL_CAP];
      if (x->type != DDBST__J_STRING)
        ddbst__load_report(L, x, "expected an entity name");
      else if (ddbst__load_first_unknown(L, 0, x->text))
        ddbst__load_report(L, x, "'%s' is not an entity of the model%s",
                           x->text,
                           ddbst__suggest_tail(
                               ddbst__suggest_entity(m, x->text), tail,
                               sizeof tail));
      continue;
    }
    p->entities[p->nentities++] = e;
  }
  ddbst__load_pop(L, old);

  const ddbst__jnode *ixn = ddbst__load_string_of(L, n, "index", got[F_INDEX], 0);
  if (ixn) {
    if (get)
      ddbst__load_report_field(
          L, "index", ixn,
          "GetItem reads only the table; query an index instead");
    p->index = ddbst__load_index_named(L, ixn->text);
    char tail[DDBST__TAIL_CAP];
    if (p->index < 0 && ddbst__load_first_unknown(L, 1, ixn->text))
      ddbst__load_report_field(
          L, "index", ixn, "the table declares no index %s%s", ixn->text,
          ddbst__suggest_tail(ddbst__suggest_index(m, ixn->text), tail,
                              sizeof tail));
  }
  if (get && (got[F_RANGE] || got[F_ORDER] || got[F_LIMIT]))
    ddbst__load_report(L, n,
                       "'range', 'order' and 'limit' apply to queries only");
  load_pattern_review(L, n, got, p);

  int has_sk = p->index < 0 ? m->sk_attr != NULL
                            : m->indexes[p->index].sk_attr != NULL;
  const ddbst__entity *first = NULL;
  const ddbst__ekey *first_key = NULL;
  for (int i = 0; i < p->nentities; i++) {
    const ddbst__entity *e = &m->entities[p->entities[i]];
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    if (!k) {
      ddbst__load_report_field(
          L, "index", ixn,
          "pattern %s queries index %s, but entity %s is not in it "
          "(entities.%s.indexes)",
          p->name, m->indexes[p->index].name, e->name, e->name);
      continue;
    }
    if (!first) {
      first = e;
      first_key = k;
    } else if (p->op != DDBST__OP_SCAN && first_key->pk.nsegs &&
               k->pk.nsegs &&
               !same_partition(first, &first_key->pk, e, &k->pk)) {
      ddbst__load_report_field(
          L, field, what,
          "a collection reads one partition, but %s's partition key "
          "%s differs from %s's %s",
          e->name, k->pk.source, first->name, first_key->pk.source);
    }
  }

  const ddbst__jnode *range = ddbst__load_string_of(L, n, "range", got[F_RANGE], 0);
  if (range && first_key && !first->attrs_unread) {
    if (!has_sk) {
      ddbst__load_report_field(L, "range", range,
                               "a key without a sort key has no range");
    } else if (p->nentities > 1) {
      ddbst__load_report_field(
          L, "range", range,
          "a range applies to one entity's sort key, not a "
          "collection");
    } else {
      int a = ddbst__attr_index(first, range->text);
      int in_sk = 0;
      for (int i = 0; i < first_key->sk.nsegs; i++)
        if (a >= 0 && first_key->sk.segs[i].attr == a) in_sk = 1;
      if (in_sk) {
        p->range = a;
      } else {
        /* the edit distances only for the message */
        ddbst__suggest s;
        ddbst__suggest_init(&s, range->text);
        for (int i = 0; i < first_key->sk.nsegs; i++) {
          int f = first_key->sk.segs[i].attr;
          if (f >= 0) ddbst__suggest_offer(&s, first->attrs[f].name);
        }
        char tail[DDBST__TAIL_CAP];
        ddbst__load_report_field(
            L, "range", range, "'%s' is not a facet of %s's sort key %s%s",
            range->text, first->name, first_key->sk.source,
            ddbst__suggest_tail(ddbst__suggest_best(&s), tail, sizeof tail));
      }
    }
  }

  const ddbst__jnode *order = ddbst__load_string_of(L, n, "order", got[F_ORDER], 0);
  if (order) {
    if (strcmp(order->text, "desc") == 0)
      p->descending = 1;
    else if (strcmp(order->text, "asc") != 0)
      ddbst__load_report_field(L, "order", order,
                               "expected \"asc\" or \"desc\"");
  }
  const ddbst__jnode *lim = got[F_LIMIT];
  if (lim && !get) {
    old = ddbst__load_push(L, "limit");
    if (ddbst__load_expect(L, lim, DDBST__J_OBJECT,
                           "{\"default\": n, \"max\": n}")) {
      static const char *const lf[] = {"default", "max", NULL};
      const ddbst__jnode *lgot[2];
      ddbst__load_fields(L, lim, lf, lgot);
      p->limit_default = get_limit(L, lgot[0], "default");
      p->limit_max = get_limit(L, lgot[1], "max");
      if (p->limit_default && p->limit_max && p->limit_default > p->limit_max)
        ddbst__load_report(L, lim,
                           "the default limit %u is above the maximum %u",
                           p->limit_default, p->limit_max);
    }
    ddbst__load_pop(L, old);
  }
}
