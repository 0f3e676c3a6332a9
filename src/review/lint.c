/* The design review of the first seed ("What we check in review") applied to
 * a compiled model: one finding per problem, with the JSON path it is about.
 * docs/review.md explains each rule and how to fix the model. */
#include <stdio.h>
#include <string.h>

#include "item/facet_key.h"
#include "review/lint.h"
#include "review/review.h"

typedef ddbst__linter linter;

static void finding(linter *L, int32_t severity, const char *rule,
                    const char *path, const char *fmt, ...)
    DDBST__PRINTF(5, 6);
static void finding(linter *L, int32_t severity, const char *rule,
                    const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ddbst__lint_vreport(L, severity, rule, path, fmt, ap);
  va_end(ap);
}

const char *ddbst_lint_severity_name(int32_t severity) {
  switch (severity) {
  case DDBST_LINT_NOTE: return "note";
  case DDBST_LINT_WARNING: return "warning";
  case DDBST_LINT_ERROR: return "error";
  default: return NULL;
  }
}

/* Where an entity's key is in the model file and what its attributes are
 * called: "entities.User.key" / "entities.User.indexes.GSI1", and PK / SK or
 * the index's. */
typedef struct key_ref {
  const ddbst__entity *e;
  int entity;
  const ddbst__ekey *k;
  int index; /* -1: the table */
  const char *pk_attr, *sk_attr;
  char path[DDBST_ERROR_PATH_MAX];
} key_ref;

/* Room for a key's path and ".pk" / ".sk". */
enum { FIELD_PATH_CAP = DDBST_ERROR_PATH_MAX + 8 };

static void key_path(const key_ref *r, const char *field,
                     char out[FIELD_PATH_CAP]) {
  snprintf(out, FIELD_PATH_CAP, "%s.%s", r->path, field);
}

/* ---- names ---- */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int equals_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
    if (x != *b) return 0;
  }
  return *a == *b;
}

static int contains_nocase(const char *s, const char *word) {
  size_t n = strlen(s), k = strlen(word);
  for (size_t i = 0; i + k <= n; i++) {
    size_t j = 0;
    while (j < k && (s[i + j] | 0x20) == word[j]) j++;
    if (j == k) return 1;
  }
  return 0;
}

/* Names that usually hold identifiers (userId, user_id, uuid): a UUID v4
 * there orders randomly. camelCase and snake_case only, so that "paid" and
 * "valid" are not taken for ids. */
static int looks_like_id(const char *name) {
  return equals_nocase(name, "id") || ends_with(name, "Id") ||
         ends_with(name, "ID") || ends_with(name, "_id") ||
         contains_nocase(name, "uuid") || contains_nocase(name, "guid");
}

/* Names that usually hold times (createdAt, created_at, ts, eventDate). */
static int looks_like_time(const char *name) {
  static const char *const whole[] = {"ts", "date", "time", "timestamp",
                                      "day"};
  static const char *const suffixes[] = {"At", "_at", "Date", "_date",
                                         "Time", "_time", "Timestamp",
                                         "_ts", "Ts", "Day"};
  for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
    if (equals_nocase(name, whole[i])) return 1;
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
    if (ends_with(name, suffixes[i])) return 1;
  return 0;
}

/* ---- partition keys ---- */

/* Past this many values, writes spread over enough partitions. */
enum { FEW_PARTITIONS = 100 };

static void check_partition_key(linter *L, const key_ref *r) {
  const ddbst_model *m = L->m;
  const ddbst__template *pk = &r->k->pk;
  if (pk->nsegs == 0) return;
  char path[FIELD_PATH_CAP];
  key_path(r, "pk", path);
  char where[300] = "";
  if (r->index >= 0)
    snprintf(where, sizeof where, " of %s", m->indexes[r->index].name);

  if (pk->segs[0].attr >= 0) {
    char upper[64];
    size_t n = 0;
    for (const char *c = r->e->name; *c && n + 1 < sizeof upper; c++)
      upper[n++] = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') : *c;
    upper[n] = '\0';
    finding(L, DDBST_LINT_WARNING, "pk-no-prefix", path,
            "%s = %s starts with a facet, not an entity-type prefix: a stray "
            "item cannot be told by eye, and other entities' keys can share "
            "its partitions; start it with a literal such as %s%s",
            r->pk_attr, pk->source, upper, m->delim);
  }

  if (pk->nfacets == 0) {
    /* A key with no facet at all is one item (settings, a counter): one
     * item cannot be spread anyway. */
    if (r->index < 0 && r->k->sk.nfacets == 0) return;
    if (r->index < 0)
      finding(L, DDBST_LINT_ERROR, "hot-partition", path,
              "%s = %s has no facet: every %s item shares one partition, and "
              "with it one partition's throughput; lead the key with an "
              "identifier facet",
              r->pk_attr, pk->source, r->e->name);
    else
      finding(L, DDBST_LINT_WARNING, "hot-partition", path,
              "%s = %s has no facet: every %s item lands in one partition%s, "
              "capped at about 1,000 writes a second; fine for a small, "
              "slowly changing list, otherwise spread it over a facet or a "
              "shard suffix",
              r->pk_attr, pk->source, r->e->name, where);
    return;
  }

  /* A string named like a date ("day", "createdDate") is how a daily
   * bucket is usually keyed: timestamps here are always the full instant. */
  int all_time = 1, all_few = 1;
  unsigned long long values = 1;
  for (int i = 0; i < pk->nsegs; i++) {
    int a = pk->segs[i].attr;
    if (a < 0) continue;
    const ddbst__attr *at = &r->e->attrs[a];
    if (at->type != DDBST__T_TIMESTAMP &&
        !(at->type == DDBST__T_STRING && looks_like_time(at->name)))
      all_time = 0;
    if (at->type == DDBST__T_ENUM && values <= FEW_PARTITIONS)
      values *= at->nvalues;
    else if (at->type == DDBST__T_BOOLEAN && values <= FEW_PARTITIONS)
      values *= 2;
    else
      all_few = 0;
  }
  if (values > FEW_PARTITIONS) all_few = 0;
  if (all_time)
    finding(L, r->index < 0 ? DDBST_LINT_ERROR : DDBST_LINT_WARNING,
            "date-bucket", path,
            "%s = %s is built only from dates and times: every %s written in "
            "the same period lands in the same partition%s, a hot partition "
            "that moves with the clock; lead with an identifier and keep the "
            "time in the sort key",
            r->pk_attr, pk->source, r->e->name, where);
  if (all_few)
    finding(L, r->index < 0 ? DDBST_LINT_WARNING : DDBST_LINT_NOTE,
            "few-partitions", path,
            "%s = %s takes at most %llu values: every %s item is in one of "
            "%llu partitions%s; fine for a low-traffic view, a hot spot for "
            "a busy one",
            r->pk_attr, pk->source, values, r->e->name, values, where);
}

/* ---- sort keys ---- */

static void check_sort_facet(linter *L, const key_ref *r,
                             const ddbst__pattern *p, int attr) {
  const ddbst__attr *a = &r->e->attrs[attr];
  char path[FIELD_PATH_CAP];
  key_path(r, "sk", path);
  const char *src = r->k->sk.source;
  if (a->type == DDBST__T_INTEGER && a->width == 0)
    finding(L, DDBST_LINT_ERROR, "sort-key-order", path,
            "%s = %s orders %s by %s, an integer without a width: as text 10 "
            "sorts before 9; give %s a width so that it is zero-padded",
            r->sk_attr, src, p->name, a->name, a->name);
  else if (a->type == DDBST__T_STRING && looks_like_id(a->name))
    finding(L, DDBST_LINT_WARNING, "sort-key-order", path,
            "%s = %s orders %s by %s, a string: if it holds UUID v4s the "
            "order is random; make it a ulid, or put a timestamp first",
            r->sk_attr, src, p->name, a->name);
  else if (a->type == DDBST__T_STRING && looks_like_time(a->name))
    finding(L, DDBST_LINT_WARNING, "sort-key-order", path,
            "%s = %s orders %s by %s, a string: times sort only if every "
            "writer uses one ISO-8601 form; declare it a timestamp",
            r->sk_attr, src, p->name, a->name);
}

/* The facets an ordered read relies on: the first one of the sort key, and
 * the one a range names. Each is judged once per key. */
static void check_sort_key(linter *L, const key_ref *r) {
  const ddbst_model *m = L->m;
  const ddbst__template *sk = &r->k->sk;
  int first = -1;
  for (int i = 0; i < sk->nsegs && first < 0; i++)
    if (sk->segs[i].attr >= 0) first = sk->segs[i].attr;
  if (first < 0) return;
  int judged[DDBST__MAX_FACETS + 1];
  int njudged = 0;
  for (int i = 0; i < m->npatterns; i++) {
    const ddbst__pattern *p = &m->patterns[i];
    if (p->op != DDBST__OP_QUERY || !p->ordered ||
        !ddbst__pattern_reads(p, r->entity, r->index))
      continue;
    int facets[2] = {first, p->nentities == 1 ? p->range : -1};
    for (int f = 0; f < 2; f++) {
      if (facets[f] < 0) continue;
      int seen = 0;
      for (int j = 0; j < njudged; j++)
        if (judged[j] == facets[f]) seen = 1;
      if (seen || njudged == DDBST__MAX_FACETS + 1) continue;
      judged[njudged++] = facets[f];
      check_sort_facet(L, r, p, facets[f]);
    }
  }
}

/* ---- indexes ---- */

static int index_used(const ddbst_model *m, int index) {
  for (int i = 0; i < m->npatterns; i++)
    if (m->patterns[i].index == index) return 1;
  return 0;
}

static void check_entity_read_from_index(linter *L, const key_ref *r) {
  const ddbst_model *m = L->m;
  if (!index_used(m, r->index)) return; /* gsi-unused says it all */
  for (int i = 0; i < m->npatterns; i++)
    if (ddbst__pattern_reads(&m->patterns[i], r->entity, r->index)) return;
  const char *ix = m->indexes[r->index].name;
  finding(L, DDBST_LINT_WARNING, "gsi-entity-unread", r->path,
          "%s items are written to %s, but no pattern reads %s from it: each "
          "write pays for a copy nobody reads; drop %s's keys for %s",
          r->e->name, ix, r->e->name, r->e->name, ix);
}

static int entity_declares(const ddbst__entity *e, const char *name) {
  for (int i = 0; i < e->nattrs; i++)
    if (strcmp(e->attrs[i].name, name) == 0) return 1;
  return 0;
}

static void check_index(linter *L, int index) {
  const ddbst_model *m = L->m;
  const ddbst__index *ix = &m->indexes[index];
  char path[DDBST_ERROR_PATH_MAX], proj[DDBST_ERROR_PATH_MAX];
  const char *group = ix->local ? "localIndexes" : "indexes";
  snprintf(path, sizeof path, "table.%s.%s", group, ix->name);
  snprintf(proj, sizeof proj, "table.%s.%s.projection", group, ix->name);

  if (ix->local)
    finding(L, DDBST_LINT_WARNING, "lsi-collection-limit", path,
            "%s is a local index: the items of one partition key value and "
            "their copies in every local index (an item collection) hold at "
            "most 10 GB, and a write past that fails with "
            "ItemCollectionSizeLimitExceededException; bound what one "
            "partition holds, or use a global index",
            ix->name);

  if (ix->projection == DDBST__PROJ_ALL)
    finding(L, DDBST_LINT_WARNING, "gsi-projects-all", proj,
            "%s projects ALL: each write to one of its items copies the whole "
            "item, and the index stores it again; project KEYS_ONLY or the "
            "attributes its patterns read",
            ix->name);
  for (size_t i = 0; i < ix->ninclude; i++) {
    int declared = m->entity_attr && strcmp(m->entity_attr, ix->include[i]) == 0;
    for (int e = 0; e < m->nentities && !declared; e++)
      if (ddbst__entity_key(&m->entities[e], index) &&
          entity_declares(&m->entities[e], ix->include[i]))
        declared = 1;
    if (!declared)
      finding(L, DDBST_LINT_WARNING, "gsi-include-unknown", proj,
              "%s's INCLUDE names %s, which no entity in %s declares: it will "
              "never be in the index; correct or drop the name",
              ix->name, ix->include[i], ix->name);
  }

  if (!index_used(m, index)) {
    finding(L, DDBST_LINT_WARNING, "gsi-unused", path,
            "no access pattern reads %s: every item written to it costs an "
            "index write for nothing; drop it or declare the pattern that "
            "needs it",
            ix->name);
    return;
  }
  int every = m->nentities > 0;
  for (int e = 0; e < m->nentities && every; e++) {
    const ddbst__ekey *k = ddbst__entity_key(&m->entities[e], index);
    if (!k || !ddbst__ekey_always_written(&m->entities[e], k)) every = 0;
  }
  if (every)
    finding(L, DDBST_LINT_NOTE, "gsi-not-sparse", path,
            "every entity writes %s's keys on every item, so %s is a full "
            "copy of the table, not a sparse index; fine while each entity "
            "is read through it",
            ix->name, ix->name);
}

/* ---- ranges before the delimiter (issue 16) ---- */

/* A facet a range reads before the delimiter (compile_ranges.c): its values
 * that would sort below the delimiter are refused in keys, or for an enum
 * the declared values that would; %-escaping orders by the escaped text.
 * "escape": "ordered" keeps every value in order. */
static void check_range_facet(linter *L, const ddbst__entity *e,
                              const ddbst__attr *a, const char *path) {
  const ddbst_model *m = L->m;
  if (!a->range_checked) return;
  if (a->type == DDBST__T_ENUM) {
    for (size_t i = 0; i < a->nvalues; i++) {
      /* as written and as a :lower facet holds it */
      char low[DDBST__PK_MAX + 1];
      size_t n = a->value_lens[i] < DDBST__PK_MAX ? a->value_lens[i]
                                                  : DDBST__PK_MAX;
      for (size_t k = 0; k < n; k++) {
        char c = a->values[i][k];
        low[k] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
      }
      if (ddbst__facet_order_break(m, a->values[i], n) ||
          ddbst__facet_order_break(m, low, n))
        finding(L, DDBST_LINT_ERROR, "range-below-delimiter", path,
                "%s.%s's value '%s' sorts out of place before the key "
                "delimiter '%s' that follows it in a sort key a pattern "
                "ranges on: its keys are refused; choose values that do not "
                "continue one another with a character below '%c'",
                e->name, a->name, a->values[i], m->delim, m->delim[0]);
    }
    return;
  }
  if (a->type != DDBST__T_STRING) return;
  if (a->escape == DDBST__ESCAPE_PERCENT)
    finding(L, DDBST_LINT_WARNING, "range-below-delimiter", path,
            "a range on %s.%s compares its %%-escaped text, which does not "
            "sort as the values do ('%s' is ordered as %%XX), and its "
            "values holding a character below '%c' are refused; \"escape\": "
            "\"ordered\" orders by the values and refuses none",
            e->name, a->name, m->delim, m->delim[0]);
  else
    finding(L, DDBST_LINT_WARNING, "range-below-delimiter", path,
            "a range on %s.%s reads it before the key delimiter '%s', so its "
            "values holding a character below '%c' (a space, '!', '\"', a "
            "control character) are refused in its keys; if they may hold "
            "one, give it \"escape\": \"ordered\"",
            e->name, a->name, m->delim, m->delim[0]);
}

/* ---- entities ---- */

static void check_attributes(linter *L, int entity) {
  const ddbst_model *m = L->m;
  const ddbst__entity *e = &m->entities[entity];
  for (int i = 0; i < e->nattrs; i++) {
    const ddbst__attr *a = &e->attrs[i];
    if (a->implicit) continue;
    char path[DDBST_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "entities.%s.attributes.%s", e->name,
             a->name);
    check_range_facet(L, e, a, path);
    if (a->type == DDBST__T_MAP || a->type == DDBST__T_LIST ||
        a->type == DDBST__T_BINARY)
      finding(L, DDBST_LINT_WARNING, "item-size", path,
              "%s.%s is a %s that nothing bounds: one large value takes "
              "the item past 4 KB, and a read costs a unit per 4 KB; keep "
              "large documents in S3 with their key in the item",
              e->name, a->name, ddbst__type_name(a->type));
    if (a->type == DDBST__T_TTL && !m->ttl_attr)
      finding(L, DDBST_LINT_ERROR, "ttl-not-enabled", path,
              "%s is a ttl attribute, but the table has no ttlAttribute: "
              "DynamoDB never deletes expired %s items; set "
              "table.ttlAttribute to %s",
              a->name, e->name, a->name);
    else if (a->type == DDBST__T_TTL && strcmp(m->ttl_attr, a->name) != 0)
      finding(L, DDBST_LINT_ERROR, "ttl-not-enabled", path,
              "%s is a ttl attribute, but the table's TTL attribute is %s: "
              "DynamoDB deletes items only by %s, so %s items never expire; "
              "name it %s",
              a->name, m->ttl_attr, m->ttl_attr, e->name, m->ttl_attr);
  }
}

static void check_key(linter *L, key_ref *r) {
  /* a native index's keys are values, not templates: only whether it is
   * read applies */
  if (r->index >= 0 && L->m->indexes[r->index].native) {
    check_entity_read_from_index(L, r);
    return;
  }
  check_partition_key(L, r);
  if (r->k->sk.nsegs) check_sort_key(L, r);
  if (r->index >= 0) check_entity_read_from_index(L, r);
}

static void check_entity(linter *L, int entity) {
  const ddbst_model *m = L->m;
  key_ref r;
  memset(&r, 0, sizeof r);
  r.e = &m->entities[entity];
  r.entity = entity;
  r.k = &r.e->key;
  r.index = -1;
  r.pk_attr = m->pk_attr;
  r.sk_attr = m->sk_attr;
  snprintf(r.path, sizeof r.path, "entities.%s.key", r.e->name);
  check_key(L, &r);
  for (int i = 0; i < r.e->nindexes; i++) {
    r.k = &r.e->indexes[i];
    r.index = r.k->index;
    r.pk_attr = ddbst__pk_attr_of(m, r.index);
    r.sk_attr = ddbst__sk_attr_of(m, r.index);
    snprintf(r.path, sizeof r.path, "entities.%s.indexes.%s", r.e->name,
             m->indexes[r.index].name);
    check_key(L, &r);
  }
  check_attributes(L, entity);
}

/* ---- patterns ---- */

static int is_filtered(const ddbst__pattern *p, const ddbst__entity *first,
                       const char *name) {
  for (int i = 0; i < p->nfilter; i++)
    if (strcmp(first->attrs[p->filter[i].attr].name, name) == 0) return 1;
  return 0;
}

static int in_template(const ddbst__entity *e, const ddbst__template *t,
                       const char *name) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr >= 0 && strcmp(e->attrs[t->segs[i].attr].name, name) == 0)
      return 1;
  return 0;
}

/* A filter on a sort-key facet whose earlier facets are all fixed (by the
 * partition key or by equality filters) is work a key condition does for
 * free. */
/* A pattern's own filter runs on every call. An equality on an attribute of
 * few values (an enum, a boolean) that no key of the pattern holds then
 * reads the whole key range each time to keep a share of it: the work a
 * sort key (or an index) keyed on it does by reading only that share. */
static void check_low_cardinality(linter *L, const ddbst__pattern *p,
                                  const ddbst__cond *c) {
  const ddbst_model *m = L->m;
  const ddbst__entity *first = &m->entities[p->entities[0]];
  const ddbst__attr *a = &first->attrs[c->attr];
  if (a->type != DDBST__T_ENUM && a->type != DDBST__T_BOOLEAN) return;
  for (int i = 0; i < p->nentities; i++) {
    const ddbst__entity *e = &m->entities[p->entities[i]];
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    if (k && (in_template(e, &k->pk, a->name) || in_template(e, &k->sk, a->name)))
      return; /* the key holds it: the sort-key rule's case, or a no-op */
  }
  size_t nvalues = a->type == DDBST__T_ENUM ? a->nvalues : 2;
  char path[DDBST_ERROR_PATH_MAX];
  snprintf(path, sizeof path, "patterns.%s.filter.%s", p->name, a->name);
  finding(L, DDBST_LINT_WARNING, "filter-low-cardinality", path,
          "every call of %s filters %s, %s of %zu values, by equality: each "
          "reads every item of its key range and pays for the ones it drops; "
          "put %s in the sort key (or key an index on it) so that a key "
          "condition reads only the matching items",
          p->name, a->name, a->type == DDBST__T_ENUM ? "an enum" : "a boolean",
          nvalues, a->name);
}

static void check_filter(linter *L, const ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  /* A scan's filter is the scan rule's business: no key is fixed there. */
  if (p->nentities == 0 || p->op != DDBST__OP_QUERY) return;
  const ddbst__entity *first = &m->entities[p->entities[0]];
  for (int f = 0; f < p->nfilter; f++) {
    const char *name = first->attrs[p->filter[f].attr].name;
    int keyed_filter = 0;
    for (int i = 0; i < p->nentities; i++) {
      const ddbst__entity *e = &m->entities[p->entities[i]];
      const ddbst__ekey *k = ddbst__entity_key(e, p->index);
      if (!k) continue;
      int keyable = 0;
      for (int s = 0; s < k->sk.nsegs; s++) {
        int a = k->sk.segs[s].attr;
        if (a < 0) continue;
        const char *facet = e->attrs[a].name;
        if (strcmp(facet, name) == 0) {
          keyable = 1;
          break;
        }
        if (!in_template(e, &k->pk, facet) && !is_filtered(p, first, facet))
          break;
      }
      if (!keyable) continue;
      char path[DDBST_ERROR_PATH_MAX];
      snprintf(path, sizeof path, "patterns.%s.filter.%s", p->name, name);
      finding(L, DDBST_LINT_WARNING, "filter-on-sort-key", path,
              "%s is a facet of %s = %s: a key condition reads only the "
              "matching items, while a filter pays for every item it drops; "
              "narrow the query on the sort key instead",
              name, ddbst__sk_attr_of(m, p->index), k->sk.source);
      keyed_filter = 1;
      break;
    }
    if (!keyed_filter) check_low_cardinality(L, p, &p->filter[f]);
  }
}

static void check_pattern(linter *L, const ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  char path[DDBST_ERROR_PATH_MAX];
  if (p->op == DDBST__OP_SCAN) {
    snprintf(path, sizeof path, "patterns.%s.scan", p->name);
    if (p->index < 0)
      finding(L, DDBST_LINT_ERROR, "scan", path,
              "%s reads the whole table with a Scan: no key serves it, so "
              "every call pays for every item; key an index so that a Query "
              "can name the partition it needs",
              p->name);
    else
      finding(L, DDBST_LINT_ERROR, "scan", path,
              "%s reads all of index %s with a Scan: no key serves it, so "
              "every call pays for every item in it; key the index so that a "
              "Query can name the partition it needs",
              p->name, m->indexes[p->index].name);
  }
  /* A Query on a table without a sort key finds one item at most; index
   * keys are not unique, with or without a sort key. */
  int many = p->op == DDBST__OP_SCAN ||
             (p->op == DDBST__OP_QUERY && (p->index >= 0 || m->sk_attr));
  if (many && p->limit_max == 0) {
    snprintf(path, sizeof path, "patterns.%s%s", p->name,
             p->limit_default ? ".limit" : "");
    finding(L, DDBST_LINT_ERROR, "unbounded-list", path,
            "%s can return any number of items in one call: cap it with "
            "limit.max so that every page is bounded",
            p->name);
  }
  check_filter(L, p);
}

int ddbst_model_lint(const ddbst_model *model, ddbst_lint_fn on_finding,
                     void *user, ddbst_error *err) {
  if (!model) return ddbst__fail(err, DDBST_EINVAL, NULL, "model is NULL");
  linter L = {model, on_finding, user, 0};
  for (int i = 0; i < model->nindexes; i++) check_index(&L, i);
  if (model->cursors_unsealed)
    finding(&L, DDBST_LINT_WARNING, "unsealed-cursors", "table.cursors",
            "cursors are unsealed: clients can read the key design from them "
            "and edit them; keep \"sealed\" (the default) outside "
            "development");
  for (int e = 0; e < model->nentities; e++) check_entity(&L, e);
  for (int p = 0; p < model->npatterns; p++)
    check_pattern(&L, &model->patterns[p]);
  ddbst__lint_sort_fit(&L);
  return L.errors;
}
