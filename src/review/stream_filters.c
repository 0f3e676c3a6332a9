/* Lambda stream filters that let through one entity's records: the key
 * prefixes that no other item of the table (another entity, a uniqueness
 * item) can have, written as the template's Metadata. */
#include <stdio.h>
#include <string.h>

#include "review/cloudformation.h"

enum { EV_INSERT = 1, EV_MODIFY = 2, EV_REMOVE = 4 };

/* "Project" or "Project:INSERT,MODIFY" → entity index and event mask. */
static int parse_filter_spec(const ddbst_model *m, const char *spec,
                             size_t which, int *entity, int *events,
                             ddbst_error *err) {
  char path[64];
  snprintf(path, sizeof path, "stream_filters[%zu]", which);
  if (!spec)
    return ddbst__fail(err, DDBST_EINVAL, path, "the stream filter is NULL");
  const char *colon = strchr(spec, ':');
  size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
  *entity = -1;
  for (int e = 0; e < m->nentities; e++)
    if (strlen(m->entities[e].name) == name_len &&
        memcmp(m->entities[e].name, spec, name_len) == 0)
      *entity = e;
  if (*entity < 0)
    return ddbst__fail(err, DDBST_ENOTFOUND, path,
                       "'%.*s' is not an entity of the model (expected "
                       "ENTITY or ENTITY:INSERT,MODIFY,REMOVE)",
                       (int)(name_len > 64 ? 64 : name_len), spec);
  if (!colon) {
    *events = EV_INSERT | EV_MODIFY | EV_REMOVE;
    return 0;
  }
  *events = 0;
  const char *p = colon + 1;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    int bit = n == 6 && memcmp(p, "INSERT", 6) == 0   ? EV_INSERT
              : n == 6 && memcmp(p, "MODIFY", 6) == 0 ? EV_MODIFY
              : n == 6 && memcmp(p, "REMOVE", 6) == 0 ? EV_REMOVE
                                                      : 0;
    if (!bit)
      return ddbst__fail(err, DDBST_EINVAL, path,
                         "'%.*s' is not a stream event name (expected "
                         "INSERT, MODIFY or REMOVE)",
                         (int)(n > 32 ? 32 : n), p);
    *events |= bit;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* A key of some item in the table: an entity's primary key, or the key of a
 * uniqueness item (PK and SK both the constraint's template). */
typedef struct shape {
  const ddbst__entity *owner;
  const ddbst__template *key[2]; /* [0] sort key (NULL: none), [1] partition */
} shape;

enum { KEY_SK = 0, KEY_PK = 1 };

/* What every value of a facet begins with, when its type says: the first
 * characters a canonical value can have, or the whole values of an enum or a
 * boolean. 0 when anything goes (strings). */
static size_t facet_starts(const ddbst__attr *a, const char *const **out) {
  static const char *const digits[] = {"0", "1", "2", "3", "4",
                                       "5", "6", "7", "8", "9", "-"};
  static const char *const booleans[] = {"true", "false"};
  switch (a->type) {
  case DDBST__T_ULID: *out = digits; return 8; /* 48-bit time: 0-7 first */
  case DDBST__T_TIMESTAMP: *out = digits; return 10;
  case DDBST__T_INTEGER:
    *out = digits;
    return a->sortable_negative ? 11 : 10;
  case DDBST__T_BOOLEAN: *out = booleans; return 2;
  case DDBST__T_ENUM: *out = a->values; return a->nvalues;
  default: return 0;
  }
}

static int has_delim(const char *s, size_t n, const ddbst_model *m) {
  return ddbst__find_delim(s, n, m->delim, m->delim_len) != NULL;
}

static char lower_ascii(char c, int lower) {
  return lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether a value of facet attribute `a` can be v[0..n) (`whole`) or begin
 * with it. */
static int value_allowed(const ddbst__attr *a, int lower, const char *v,
                         size_t n, int whole) {
  const char *const *starts;
  size_t ns = facet_starts(a, &starts);
  if (ns == 0) return 1;
  int whole_values = a->type == DDBST__T_ENUM || a->type == DDBST__T_BOOLEAN;
  for (size_t i = 0; i < ns; i++) {
    if (!whole_values) {
      if (lower_ascii(starts[i][0], lower) == v[0]) return 1;
      continue;
    }
    size_t sl = strlen(starts[i]);
    if (whole ? n != sl : n > sl) continue;
    size_t j = 0;
    while (j < n && lower_ascii(starts[i][j], lower) == v[j]) j++;
    if (j == n) return 1;
  }
  return 0;
}

/* Whether some key rendered by `t` (segments from `seg` on) could begin with
 * p[0..n) — or, with `exact`, be exactly it. Conservative: "could" errs
 * towards yes, so a filter built on a "no" never lets another item through. */
static int may_render(const ddbst_model *m, const ddbst__entity *owner,
                      const ddbst__template *t, int seg, const char *p,
                      size_t n, int exact) {
  if (n == 0) return !exact || seg == t->nsegs;
  if (seg == t->nsegs) return 0;
  const ddbst__seg *s = &t->segs[seg];
  if (s->attr < 0) {
    size_t k = s->len < n ? s->len : n;
    if (memcmp(s->text, p, k) != 0) return 0;
    if (k == n) return !exact || (k == s->len && seg + 1 == t->nsegs);
    return may_render(m, owner, t, seg + 1, p + k, n - k, exact);
  }
  /* A facet: a non-empty value without the delimiter, of its type. */
  const ddbst__attr *a = &owner->attrs[s->attr];
  for (size_t k = 1; k <= n; k++) {
    if (has_delim(p, k, m)) break;
    int last = k == n;
    if (!value_allowed(a, s->lower, p, k, !last || exact)) continue;
    if (last) {
      if (!exact || seg + 1 == t->nsegs) return 1;
      continue;
    }
    if (may_render(m, owner, t, seg + 1, p + k, n - k, exact)) return 1;
  }
  return 0;
}

enum { MAX_PREFIXES = 32, PREFIX_CAP = DDBST__PK_MAX + 64 };

/* One way to pick out an entity's key values: a literal, or a literal
 * followed by each possible start of the first facet. */
typedef struct prefix_set {
  int usable;
  int exact; /* the template is all literal: match it whole */
  size_t n;
  char text[MAX_PREFIXES][PREFIX_CAP];
  size_t len[MAX_PREFIXES];
} prefix_set;

/* level 0: the leading literal; level 1: refined by the first facet's type. */
static void build_prefixes(const ddbst__entity *e,
                           const ddbst__template *t, int level,
                           prefix_set *ps) {
  memset(ps, 0, offsetof(prefix_set, text));
  if (!t || t->nsegs == 0) return;
  const char *lit;
  size_t lit_len = ddbst__template_prefix(t, &lit);
  if (lit_len >= PREFIX_CAP) return;
  int next = lit_len ? 1 : 0;
  if (next == t->nsegs) {
    /* All literal: one value, matched exactly, at level 0 only. */
    if (level != 0) return;
    ps->exact = 1;
    memcpy(ps->text[0], lit, lit_len);
    ps->len[0] = lit_len;
    ps->n = 1;
    ps->usable = 1;
    return;
  }
  if (level == 0) {
    if (lit_len == 0) return; /* an empty prefix tells nothing apart */
    memcpy(ps->text[0], lit, lit_len);
    ps->len[0] = lit_len;
    ps->n = 1;
    ps->usable = 1;
    return;
  }
  const ddbst__seg *f = &t->segs[next];
  const char *const *starts;
  size_t ns = facet_starts(&e->attrs[f->attr], &starts);
  if (ns == 0 || ns > MAX_PREFIXES) return;
  for (size_t i = 0; i < ns; i++) {
    size_t sl = strlen(starts[i]);
    if (lit_len + sl >= PREFIX_CAP) return;
    memcpy(ps->text[i], lit, lit_len);
    memcpy(ps->text[i] + lit_len, starts[i], sl);
    for (size_t j = lit_len; j < lit_len + sl; j++)
      ps->text[i][j] = lower_ascii(ps->text[i][j], f->lower);
    ps->len[i] = lit_len + sl;
  }
  ps->n = ns;
  ps->usable = 1;
}

static int set_may_match(const ddbst_model *m, const shape *x, int key,
                         const prefix_set *ps) {
  const ddbst__template *t = x->key[key];
  if (!t || t->nsegs == 0) return 1;
  for (size_t i = 0; i < ps->n; i++)
    if (may_render(m, x->owner, t, 0, ps->text[i], ps->len[i], ps->exact))
      return 1;
  return 0;
}

typedef struct filter_choice {
  prefix_set sets[2]; /* by KEY_SK / KEY_PK; usable ones are used */
  const shape *clash; /* when no choice works: a shape nothing excludes */
} filter_choice;

/* Collects the keys of every item in the table. The caller frees *out. */
static int collect_shapes(const ddbst_model *m, shape **out, size_t *n) {
  size_t cap = 0;
  for (int e = 0; e < m->nentities; e++)
    cap += 1 + (size_t)m->entities[e].nuniques;
  shape *s = ddbst__malloc(&m->alloc, cap * sizeof *s);
  if (!s) return DDBST_ENOMEM;
  size_t k = 0;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    s[k].owner = ent;
    s[k].key[KEY_PK] = &ent->key.pk;
    s[k].key[KEY_SK] = m->sk_attr ? &ent->key.sk : NULL;
    k++;
    for (int u = 0; u < ent->nuniques; u++) {
      s[k].owner = ent;
      s[k].key[KEY_PK] = &ent->uniques[u].tmpl;
      s[k].key[KEY_SK] = m->sk_attr ? &ent->uniques[u].tmpl : NULL;
      k++;
    }
  }
  *out = s;
  *n = k;
  return 0;
}

/* The first of: sort-key literal, sort key refined by its first facet,
 * the same for the partition key, then both keys together, that no other
 * item's key can match. 0 found, 1 none works. */
static int choose_filter(const ddbst_model *m, int entity, const shape *shapes,
                         size_t nshapes, filter_choice *fc) {
  static const struct {
    int sk_level, pk_level; /* -1: that key is not used */
  } tries[] = {{0, -1}, {1, -1}, {-1, 0}, {-1, 1}, {0, 0}, {1, 1}};
  const ddbst__entity *e = &m->entities[entity];
  const shape *own = NULL;
  for (size_t i = 0; i < nshapes; i++)
    if (shapes[i].owner == e && shapes[i].key[KEY_PK] == &e->key.pk)
      own = &shapes[i];
  fc->clash = NULL;
  for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
    const int levels[2] = {tries[t].sk_level, tries[t].pk_level};
    int usable = 1;
    for (int key = 0; key < 2; key++) {
      if (levels[key] < 0) {
        memset(&fc->sets[key], 0, offsetof(prefix_set, text));
        continue;
      }
      build_prefixes(e, own->key[key], levels[key], &fc->sets[key]);
      if (!fc->sets[key].usable) usable = 0;
    }
    if (!usable) continue;
    const shape *clash = NULL;
    for (size_t i = 0; i < nshapes && !clash; i++) {
      if (&shapes[i] == own) continue;
      int matches = 1;
      for (int key = 0; key < 2 && matches; key++)
        if (fc->sets[key].usable && !set_may_match(m, &shapes[i], key,
                                                   &fc->sets[key]))
          matches = 0;
      if (matches) clash = &shapes[i];
    }
    if (!clash) return 0;
    if (!fc->clash) fc->clash = clash;
  }
  return 1;
}

static void filter_key(ddbst__jw *w, const char *attr, const prefix_set *ps) {
  ddbst__jw_key(w, attr);
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "S");
  ddbst__jw_open(w, '[');
  for (size_t i = 0; i < ps->n; i++) {
    if (ps->exact) {
      ddbst__jw_strn(w, ps->text[i], ps->len[i]);
      continue;
    }
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "prefix");
    ddbst__jw_strn(w, ps->text[i], ps->len[i]);
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
}

static void filter_pattern(ddbst__jw *w, const ddbst_model *m, int events,
                           const filter_choice *fc) {
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "eventName");
  ddbst__jw_open(w, '[');
  if (events & EV_INSERT) ddbst__jw_str(w, "INSERT");
  if (events & EV_MODIFY) ddbst__jw_str(w, "MODIFY");
  if (events & EV_REMOVE) ddbst__jw_str(w, "REMOVE");
  ddbst__jw_close(w, ']');
  ddbst__jw_key(w, "dynamodb");
  ddbst__jw_open(w, '{');
  /* Keys are in every record, whatever the stream's view type. */
  ddbst__jw_key(w, "Keys");
  ddbst__jw_open(w, '{');
  if (fc->sets[KEY_PK].usable) filter_key(w, m->pk_attr, &fc->sets[KEY_PK]);
  if (fc->sets[KEY_SK].usable) filter_key(w, m->sk_attr, &fc->sets[KEY_SK]);
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
}

int ddbst__cfn_stream_filters(ddbst__jw *w, const ddbst_model *m,
                              const char *const *specs, size_t nspecs,
                              ddbst_error *err) {
  if (nspecs == 0) return 0;
  if (!specs)
    return ddbst__fail(err, DDBST_EINVAL, "stream_filters",
                       "stream_filters is NULL but nfilters is %zu", nspecs);
  if (m->stream == DDBST__STREAM_NONE)
    return ddbst__fail(err, DDBST_EINVAL, "table.stream",
                       "stream filters need a stream: set table.stream in the "
                       "model");
  shape *shapes = NULL;
  size_t nshapes = 0;
  filter_choice *fc = ddbst__malloc(&m->alloc, sizeof *fc);
  if (!fc || collect_shapes(m, &shapes, &nshapes)) {
    ddbst__free(&m->alloc, fc);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  int rc = 0;
  /* Metadata is the part of a template CloudFormation keeps as given: the
   * entries are for a function's filterPatterns, which the template cannot
   * hold without naming the function. */
  ddbst__jw_key(w, "Metadata");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "ddbst");
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "filterPatterns");
  ddbst__jw_open(w, '[');
  for (size_t i = 0; i < nspecs && !rc; i++) {
    int entity = -1, events = 0;
    rc = parse_filter_spec(m, specs[i], i, &entity, &events, err);
    if (rc) break;
    if (choose_filter(m, entity, shapes, nshapes, fc)) {
      char path[64];
      snprintf(path, sizeof path, "stream_filters[%zu]", i);
      const shape *c = fc->clash;
      const ddbst__template *csk = c->key[KEY_SK];
      rc = ddbst__fail(
          err, DDBST_EMODEL, path,
          "no key prefix tells %s's records apart from %s%s (%s = %s%s%s): "
          "give %s's sort key a literal of its own",
          m->entities[entity].name, c->owner->name,
          c->key[KEY_PK] == &c->owner->key.pk ? "'s" : "'s uniqueness items",
          m->pk_attr, c->key[KEY_PK]->source, csk ? ", SK = " : "",
          csk ? csk->source : "", m->entities[entity].name);
      break;
    }
    filter_pattern(w, m, events, fc);
  }
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
  ddbst__jw_close(w, '}');
  ddbst__free(&m->alloc, shapes);
  ddbst__free(&m->alloc, fc);
  return rc;
}
