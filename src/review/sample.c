/* Sample items of a model (sample.h). Values are made per attribute from
 * its type and, for strings, its name (an email looks like one, a slug like
 * one); partition facets an entity shares with the entity that owns them
 * are copied from one of its items, so the sample fills the partitions the
 * design means to share. Everything comes from one seeded generator and
 * one clock that only moves forward, so a seed always gives the same bytes
 * and no two timestamps or ULIDs are equal (an index's sort order is then
 * the one DynamoDB gives: no ties). */
#include <stdio.h>
#include <string.h>

#include "item/keys.h"
#include "model/facet.h"
#include "request/guard.h"
#include "request/request.h"
#include "review/review.h"
#include "review/sample.h"
#include "review/sample_words.h"

/* ---- the generator and the clock ---- */

typedef struct gen {
  uint64_t state;
  int64_t clock_us; /* the last timestamp handed out */
} gen;

/* splitmix64: small, fast, and the same everywhere */
static uint64_t next(gen *g) {
  uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static unsigned below(gen *g, unsigned n) {
  return n ? (unsigned)(next(g) % n) : 0;
}

/* The next instant: 2 to 40 hours on, at a whole second unless the
 * attribute keeps more (a fraction it keeps tells its items apart). */
static int64_t tick(gen *g, int precision) {
  /* one draw a statement: the order of an expression's operands is the
   * compiler's, and a seed must give the same bytes with any */
  int64_t hours = 2 + below(g, 38);
  int64_t seconds = below(g, 3600);
  int64_t step = hours * 3600 * 1000000 + seconds * 1000000;
  if (precision == DDBST__PREC_MS) step += (int64_t)below(g, 1000) * 1000;
  if (precision == DDBST__PREC_US) step += below(g, 1000000);
  g->clock_us += step;
  return g->clock_us;
}

/* 2026-01-05T09:00:00Z: where every sample's clock starts. */
static const int64_t CLOCK_START_US = 1767603600ll * 1000000;

/* ---- names ---- */

static int has_word(const char *name, const char *word) {
  size_t n = strlen(name), k = strlen(word);
  for (size_t i = 0; i + k <= n; i++) {
    size_t j = 0;
    while (j < k && (name[i + j] | 0x20) == word[j]) j++;
    if (j == k) return 1;
  }
  return 0;
}

static int ends_id(const char *name) {
  size_t n = strlen(name);
  return (n == 2 && (name[0] | 0x20) == 'i' && (name[1] | 0x20) == 'd') ||
         (n > 2 && name[n - 2] == 'I' && (name[n - 1] == 'd' || name[n - 1] == 'D')) ||
         (n > 3 && !strcmp(name + n - 3, "_id"));
}

static int entity_is(const ddbst__entity *e, const char *const *words) {
  for (; *words; words++)
    if (has_word(e->name, *words)) return 1;
  return 0;
}

static const char *const ORG_WORDS[] = {"org", "compan", "tenant", "team",
                                        "account", "workspace", NULL};
static const char *const PERSON_WORDS[] = {"user",   "member",  "person",
                                           "author", "customer", "employee",
                                           "contact", "owner",   NULL};

/* ---- which entity owns a shared facet ---- */

/* Whether attribute `a` of `e` is a facet of template `t`. */
static int in_template(const ddbst__template *t, int a) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr == a) return 1;
  return 0;
}

/* Whether every facet of `f`'s primary key is a facet of `e`'s partition
 * key, by name: `e`'s items live in the partitions of `f`'s (a Team keyed
 * TEAM#{teamId} / TEAM, its Members TEAM#{teamId} / M#{memberId}). */
static int keyed_within(const ddbst_model *m, int e, int f) {
  const ddbst__entity *ef = &m->entities[f], *ee = &m->entities[e];
  const ddbst__template *ts[2] = {&ef->key.pk, &ef->key.sk};
  int facets = 0;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++) {
      int a = ts[t]->segs[i].attr;
      if (a < 0) continue;
      int mine = ddbst_model_attribute(m, e, ef->attrs[a].name);
      if (mine < 0 || !in_template(&ee->key.pk, mine)) return 0;
      facets++;
    }
  return facets > 0;
}

/* The entity whose items a primary-key facet named `name` of entity `e`
 * comes from: another entity that tells its items apart by it — it is in
 * its sort key (Organisation's ORG#{orgId}, Project's
 * PROJECT#{createdAt}#{projectId}), or its whole key is within `e`'s
 * partition key — and whose own partition does not come from `e`; the
 * first declared, -1 for none. */
static int owner_of(const ddbst_model *m, int e, const char *name,
                    const int *parent_of) {
  for (int f = 0; f < m->nentities; f++) {
    if (f == e) continue;
    const ddbst__entity *ef = &m->entities[f];
    int a = ddbst_model_attribute(m, f, name);
    if (a < 0 || !(in_template(&ef->key.sk, a) ||
                   (in_template(&ef->key.pk, a) && keyed_within(m, e, f))))
      continue;
    int up = f, hops = 0;
    while (up >= 0 && up != e && hops++ < m->nentities) up = parent_of[up];
    if (up == e) continue;
    return f;
  }
  return -1;
}

/* The entity each entity's partition comes from (-1: its own), by the
 * facets of its partition key that another entity owns. */
static void find_parents(const ddbst_model *m, int *parent_of) {
  for (int e = 0; e < m->nentities; e++) parent_of[e] = -1;
  for (int e = 0; e < m->nentities; e++) {
    const ddbst__entity *ent = &m->entities[e];
    const ddbst__template *pk = &ent->key.pk;
    for (int i = 0; i < pk->nsegs && parent_of[e] < 0; i++) {
      int a = pk->segs[i].attr;
      if (a < 0 || in_template(&ent->key.sk, a)) continue;
      parent_of[e] = owner_of(m, e, ent->attrs[a].name, parent_of);
    }
  }
}

/* ---- values ---- */

typedef struct maker {
  const ddbst_model *m;
  gen g;
  ddbst__sample *s;
  int *parent_of;
  int *count;   /* items made so far, by entity */
  int *offset;  /* where each entity starts in the word lists */
  char text[512];
} maker;

static void lowercase(char *s) {
  for (; *s; s++)
    if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

/* "One table for everything" → "one-table-for-everything" */
static void slugify(const char *in, char *out, size_t cap) {
  size_t n = 0;
  int dash = 0;
  for (; *in && n + 2 < cap; in++) {
    char c = *in;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
        (c >= 'A' && c <= 'Z')) {
      if (dash && n) out[n++] = '-';
      out[n++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
      dash = 0;
    } else {
      dash = 1;
    }
  }
  out[n] = '\0';
}

#define PICK(list, k) ((list)[(unsigned)(k) % (sizeof(list) / sizeof *(list))])
#define COUNT(list) (sizeof(list) / sizeof *(list))

/* A string by what its name says it holds; `seq` is the item's number in
 * its entity, so that one item's name, title and slug agree. */
static const char *string_value(maker *k, const ddbst__entity *e,
                                const ddbst__attr *a, int seq,
                                const ddbst_item *it) {
  const char *n = a->name;
  unsigned t = (unsigned)(seq + k->offset[it->entity]);
  char *out = k->text;
  size_t cap = sizeof k->text;
  if (ends_id(n)) {
    if (entity_is(e, ORG_WORDS) && seq < (int)COUNT(SAMPLE_COMPANIES))
      snprintf(out, cap, "%s", PICK(SAMPLE_COMPANIES, t));
    else
      snprintf(out, cap, "%c%d", (char)(e->name[0] | 0x20), seq + 1);
    lowercase(out);
  } else if (has_word(n, "email")) {
    /* as people type them: a key that lower-cases it shows that it does */
    snprintf(out, cap, "%s.%s@%s.example", PICK(SAMPLE_FIRST, t),
             PICK(SAMPLE_LAST, t / COUNT(SAMPLE_FIRST) + t),
             PICK(SAMPLE_COMPANIES, below(&k->g, 3)));
  } else if (has_word(n, "slug")) {
    slugify(PICK(SAMPLE_TITLES, t), out, cap);
  } else if (has_word(n, "title") || has_word(n, "subject")) {
    snprintf(out, cap, "%s", PICK(SAMPLE_TITLES, t));
  } else if (has_word(n, "name")) {
    if (entity_is(e, PERSON_WORDS))
      snprintf(out, cap, "%s %s", PICK(SAMPLE_FIRST, t),
               PICK(SAMPLE_LAST, t / COUNT(SAMPLE_FIRST) + t));
    else if (entity_is(e, ORG_WORDS))
      snprintf(out, cap, "%s Corp", PICK(SAMPLE_COMPANIES, t));
    else
      snprintf(out, cap, "%s", PICK(SAMPLE_STARS, t));
    if (out[0] >= 'a' && out[0] <= 'z') out[0] = (char)(out[0] - 'a' + 'A');
  } else if (has_word(n, "summary") || has_word(n, "description") ||
             has_word(n, "body") || has_word(n, "text") ||
             has_word(n, "content") || has_word(n, "note")) {
    snprintf(out, cap, "%s", PICK(SAMPLE_SENTENCES, below(&k->g, 1000)));
  } else if (has_word(n, "url") || has_word(n, "link") ||
             has_word(n, "website")) {
    char slug[128];
    slugify(PICK(SAMPLE_TITLES, t), slug, sizeof slug);
    snprintf(out, cap, "https://example.com/%s", slug);
  } else if (has_word(n, "phone")) {
    snprintf(out, cap, "+44 20 7946 0%03u", below(&k->g, 1000));
  } else {
    const char *const *vocab = sample_vocabulary(n);
    size_t nv = 0;
    while (vocab[nv]) nv++;
    snprintf(out, cap, "%s", vocab[below(&k->g, (unsigned)nv)]);
  }
  return out;
}

static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* A ULID of the clock's next millisecond and 80 random bits. */
static const char *ulid_value(maker *k) {
  uint64_t ms = (uint64_t)(tick(&k->g, DDBST__PREC_MS) / 1000);
  uint64_t hi = next(&k->g), lo = next(&k->g);
  char *out = k->text;
  for (int i = 9; i >= 0; i--) {
    out[i] = CROCKFORD[ms & 31];
    ms >>= 5;
  }
  for (int i = 10; i < 26; i++) {
    uint64_t *w = i < 18 ? &hi : &lo;
    out[i] = CROCKFORD[*w & 31];
    *w >>= 5;
  }
  out[26] = '\0';
  return out;
}

static const char *timestamp_value(maker *k, int precision) {
  int64_t us = tick(&k->g, precision);
  int64_t secs = us / 1000000, frac = us % 1000000;
  /* days since the epoch to a civil date (Howard Hinnant's algorithm) */
  int64_t days = secs / 86400, rem = secs % 86400;
  int64_t z = days + 719468, era = z / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
  int64_t mo = mp < 10 ? mp + 3 : mp - 9;
  if (mo <= 2) y++;
  snprintf(k->text, sizeof k->text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%06lldZ",
           (long long)y, (long long)mo, (long long)d, (long long)(rem / 3600),
           (long long)(rem / 60 % 60), (long long)(rem % 60), (long long)frac);
  return k->text;
}

/* Whether attribute `a` of `e` is a facet of one of its index keys, and
 * the condition of a sparse index it is read by, if any: the sample puts
 * most items in each index, so that an index's view and its queries hold
 * enough to show, and leaves some out, so that a sparse one shows it. */
static int index_facet(const ddbst__entity *e, int a) {
  for (int i = 0; i < e->nindexes; i++)
    if (in_template(&e->indexes[i].pk, a) || in_template(&e->indexes[i].sk, a))
      return 1;
  return 0;
}

static const ddbst__cond *condition_on(const ddbst__entity *e, int a) {
  for (int i = 0; i < e->nindexes; i++)
    for (int c = 0; c < e->indexes[i].nwhen; c++)
      if (e->indexes[i].when[c].attr == a) return &e->indexes[i].when[c];
  return NULL;
}

/* The text to set attribute `a` from (ddbst_item_set reads it), or NULL to
 * leave it unset. */
static const char *value_of(maker *k, const ddbst_item *it, int a, int seq) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__attr *at = &e->attrs[a];
  char *out = k->text;
  size_t cap = sizeof k->text;
  switch (at->type) {
  case DDBST__T_STRING:
    return string_value(k, e, at, seq, it);
  case DDBST__T_INTEGER: {
    long long most = 999;
    if (at->width > 0 && at->width < 3) most = at->width == 1 ? 9 : 99;
    long long v = has_word(at->name, "position") || has_word(at->name, "rank") ||
                          has_word(at->name, "order")
                      ? seq + 1
                      : 1 + (long long)below(&k->g, (unsigned)most);
    snprintf(out, cap, "%lld", v > most ? most : v);
    return out;
  }
  case DDBST__T_NUMBER: {
    unsigned whole = 1 + below(&k->g, 200);
    unsigned cents = below(&k->g, 100);
    snprintf(out, cap, "%u.%02u", whole, cents);
    return out;
  }
  case DDBST__T_BOOLEAN:
    return below(&k->g, 2) ? "true" : "false";
  case DDBST__T_TIMESTAMP:
    return timestamp_value(k, at->precision);
  case DDBST__T_ULID:
    return ulid_value(k);
  case DDBST__T_ENUM: {
    /* two items in three meet an index's condition on it */
    const ddbst__cond *c = condition_on(e, a);
    if (c && c->nvalues && below(&k->g, 3) != 0)
      return c->values[below(&k->g, (unsigned)c->nvalues)];
    return at->nvalues ? at->values[below(&k->g, (unsigned)at->nvalues)] : NULL;
  }
  case DDBST__T_TTL:
    snprintf(out, cap, "%lld",
             (long long)(k->g.clock_us / 1000000 + 90 * 86400));
    return out;
  case DDBST__T_LIST: {
    unsigned word = below(&k->g, 100);
    unsigned n = below(&k->g, 10);
    snprintf(out, cap, "[\"%s\", %u]", PICK(SAMPLE_WORDS, word), n);
    return out;
  }
  case DDBST__T_MAP: {
    unsigned who = below(&k->g, 100);
    unsigned ok = below(&k->g, 2);
    snprintf(out, cap, "{\"by\": \"%s\", \"ok\": %s}",
             PICK(SAMPLE_FIRST, who), ok ? "true" : "false");
    lowercase(out);
    return out;
  }
  case DDBST__T_STRING_SET: {
    unsigned i = below(&k->g, (unsigned)COUNT(SAMPLE_TAGS));
    snprintf(out, cap, "[\"%s\", \"%s\"]", PICK(SAMPLE_TAGS, i),
             PICK(SAMPLE_TAGS, i + 1));
    return out;
  }
  case DDBST__T_NUMBER_SET: {
    unsigned lo = below(&k->g, 50);
    unsigned hi = 50 + below(&k->g, 50);
    snprintf(out, cap, "[%u, %u]", lo, hi);
    return out;
  }
  case DDBST__T_BINARY:
    return "3q2+7w==";
  }
  return NULL;
}

/* ---- items ---- */

/* Whether the item's key text equals an earlier row's (a key twice would
 * be one item in DynamoDB). */
static int key_taken(const ddbst__sample *s, const char *pk, size_t pkl,
                     const char *sk, size_t skl) {
  const ddbst_model *m = s->m;
  for (int r = 0; r < s->nrows; r++) {
    size_t a, b;
    const char *p = ddbst__sample_s(&s->rows[r], m->pk_attr, &a);
    if (!p || a != pkl || memcmp(p, pk, pkl)) continue;
    if (!m->sk_attr) return 1;
    const char *q = ddbst__sample_s(&s->rows[r], m->sk_attr, &b);
    if (q && b == skl && !memcmp(q, sk, skl)) return 1;
  }
  return 0;
}

static int add_row(ddbst__sample *s, int entity, int unique, int owner,
                   ddbst_item *it, const ddbst_buf *json, ddbst_error *err) {
  const ddbst_allocator *a = &s->m->alloc;
  if ((s->nrows & (s->nrows - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
    size_t cap = s->nrows ? 2 * (size_t)s->nrows : 1;
    ddbst__sample_row *rows = ddbst__realloc(a, s->rows, cap * sizeof *rows);
    if (!rows) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    s->rows = rows;
  }
  char *text = ddbst__arena_strndup(&s->ar, json->data, json->len);
  if (!text) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  ddbst__jnode *node = NULL;
  int rc = ddbst__jtree_parse(&s->ar, text, json->len, &node, err);
  if (rc) return rc;
  ddbst__sample_row *r = &s->rows[s->nrows++];
  r->entity = entity;
  r->unique = unique;
  r->owner = owner;
  r->item = it;
  r->json = text;
  r->len = json->len;
  r->node = node;
  return 0;
}

/* Sets the facets of index key `k` that the item lacks when it holds some
 * of them: a sparse index takes all of its facets or none. */
static int complete_index(maker *k, ddbst_item *it, const ddbst__ekey *key,
                          int seq, ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  const ddbst__template *ts[2] = {&key->pk, &key->sk};
  int given = 0, missing = 0;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++) {
      int a = ts[t]->segs[i].attr;
      if (a < 0 || e->attrs[a].primary_facet) continue;
      if (it->vals[a].set)
        given++;
      else
        missing++;
    }
  for (int t = 0; given && missing && t < 2; t++)
    for (int i = 0; i < ts[t]->nsegs; i++) {
      int a = ts[t]->segs[i].attr;
      if (a < 0 || it->vals[a].set) continue;
      const char *v = value_of(k, it, a, seq);
      int rc = v ? ddbst_item_set(it, a, v, strlen(v), err) : 0;
      if (rc) return rc;
    }
  return 0;
}

/* One attempt at an item of `entity` (its partition from `parent`, when
 * not NULL): the values, then what a create writes, then its guards. 1
 * when its key or a guard's is taken (try again), 0 when added. */
static int try_item(maker *k, ddbst_item *it, const ddbst_item *parent,
                    int seq, ddbst_buf *buf, ddbst_error *err) {
  ddbst__sample *s = k->s;
  const ddbst_model *m = k->m;
  const ddbst__entity *e = ddbst__entity_of(it);
  int entity = it->entity;
  int rc = ddbst_item_reset(it, entity);
  for (int a = 0; !rc && a < e->nattrs; a++) {
    const ddbst__attr *at = &e->attrs[a];
    if (at->implicit) continue; /* the version, timestamps: the write's */
    size_t len;
    const char *v = NULL;
    int pa = parent ? ddbst_model_attribute(m, parent->entity, at->name) : -1;
    if (pa >= 0 && in_template(&e->key.pk, a))
      v = ddbst__item_text(parent, pa, &len);
    /* optional attributes are left out of a quarter of the items, index
     * facets out of one in eight */
    /* a unique constraint's facets too: its guard needs them */
    int always = ddbst__attr_always_set(at);
    for (int u = 0; u < e->nuniques; u++)
      always |= in_template(&e->uniques[u].tmpl, a);
    unsigned odds = index_facet(e, a) ? 8 : 4;
    if (!v && (always || below(&k->g, odds) != 0)) v = value_of(k, it, a, seq);
    if (v) rc = ddbst_item_set(it, a, v, strlen(v), err);
  }
  for (int i = 0; !rc && i < e->nindexes; i++)
    rc = complete_index(k, it, &e->indexes[i], seq, err);
  if (!rc) rc = ddbst__prepare_write(it, 1, s->now_us, err);
  ddbst_buf_reset(buf);
  if (!rc) rc = ddbst__write_item(it, buf, err);
  if (rc) return rc;
  /* the keys the write built are the item's first keys */
  const char *pk = it->keytext.data + it->keys[0].off;
  size_t pkl = it->keys[0].len;
  const char *sk = m->sk_attr ? it->keytext.data + it->keys[1].off : "";
  size_t skl = m->sk_attr ? it->keys[1].len : 0;
  /* copied: the guards' keys are rendered after them, into the same text */
  char hpk[DDBST__PK_MAX], hsk[DDBST__SK_MAX];
  memcpy(hpk, pk, pkl);
  if (skl) memcpy(hsk, sk, skl);
  ddbst__holder holder = {hpk, hsk, pkl, skl, 0};
  if (key_taken(s, pk, pkl, sk, skl)) return 1;
  int row = s->nrows;
  rc = add_row(s, entity, -1, -1, it, buf, err);
  for (int u = 0; !rc && u < e->nuniques; u++) {
    uint32_t off, len;
    rc = ddbst__guard_key(it, &e->uniques[u], 0, &off, &len, err);
    if (rc) break;
    char g[DDBST__PK_MAX + 1];
    memcpy(g, it->keytext.data + off, len);
    if (key_taken(s, g, len, g, m->sk_attr ? len : 0)) {
      /* a unique value twice: take the item back and try another */
      s->nrows = row;
      return 1;
    }
    ddbst_buf_reset(buf);
    rc = ddbst__guard_item(m, &e->uniques[u], g, len, &holder, buf);
    if (rc) rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
    if (!rc) rc = add_row(s, entity, u, row, NULL, buf, err);
  }
  /* nothing half-added: the caller frees the item on an error */
  if (rc) s->nrows = row;
  return rc;
}

static int make_item(maker *k, int entity, const ddbst_item *parent,
                     ddbst_buf *buf, ddbst_error *err) {
  ddbst_item *it = ddbst_item_new(k->m, entity);
  if (!it) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  int seq = k->count[entity], rc = 1;
  for (int attempt = 0; rc == 1 && attempt < 16; attempt++)
    rc = try_item(k, it, parent, seq + attempt * 7, buf, err);
  if (rc == 1)
    rc = ddbst__fail(err, DDBST_EVALUE, k->m->entities[entity].name,
                     "no sample %s with a key of its own after 16 tries",
                     k->m->entities[entity].name);
  if (rc) {
    ddbst_item_free(it);
    return rc;
  }
  k->count[entity]++;
  return 0;
}

/* Items of an entity alone in its partitions, of one whose partitions
 * others share, and of one in another's partitions (per item of it). */
enum { ROOT_ALONE = 6, ROOT_SHARED = 2, PER_PARENT = 3, PER_PARENT_LEAF = 4,
       MOST_PER_ENTITY = 16 };

static int has_children(const ddbst_model *m, const int *parent_of, int e) {
  for (int f = 0; f < m->nentities; f++)
    if (parent_of[f] == e) return 1;
  return 0;
}

static int make_entity(maker *k, int e, ddbst_buf *buf, ddbst_error *err) {
  const ddbst_model *m = k->m;
  int parent = k->parent_of[e], rc = 0;
  int children = has_children(m, k->parent_of, e);
  if (parent < 0) {
    for (int i = 0; !rc && i < (children ? ROOT_SHARED : ROOT_ALONE); i++)
      rc = make_item(k, e, NULL, buf, err);
    return rc;
  }
  int per = children ? PER_PARENT : PER_PARENT_LEAF;
  int rows = k->s->nrows; /* the parents made so far: rows grow below */
  for (int r = 0; !rc && r < rows; r++) {
    const ddbst__sample_row *p = &k->s->rows[r];
    if (p->entity != parent || !p->item) continue;
    for (int i = 0; !rc && i < per && k->count[e] < MOST_PER_ENTITY; i++)
      rc = make_item(k, e, k->s->rows[r].item, buf, err);
  }
  return rc;
}

int ddbst__sample_make(const ddbst_model *m, uint64_t seed, ddbst__sample *s,
                       ddbst_error *err) {
  memset(s, 0, sizeof *s);
  s->m = m;
  ddbst__arena_init(&s->ar, &m->alloc);
  /* 2026-06-01T12:00:00Z: when the sample is written (updatedAt) */
  s->now_us = 1780315200ll * 1000000;
  size_t n = (size_t)m->nentities;
  int *ints = ddbst__malloc(&m->alloc, 4 * n * sizeof *ints + 1);
  if (!ints) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(ints, 0, 4 * n * sizeof *ints);
  maker k;
  memset(&k, 0, sizeof k);
  k.m = m;
  k.s = s;
  k.g.state = seed;
  k.g.clock_us = CLOCK_START_US;
  k.parent_of = ints;
  k.count = ints + n;
  k.offset = ints + 2 * n;
  int *done = ints + 3 * n;
  find_parents(m, k.parent_of);
  for (size_t e = 0; e < n; e++) k.offset[e] = (int)below(&k.g, 64);
  ddbst_buf buf;
  ddbst__buf_init(&buf, &m->alloc);
  int rc = 0;
  /* parents first: each pass makes the entities whose parent is made */
  for (int pass = 0; !rc && pass < m->nentities; pass++)
    for (int e = 0; !rc && e < m->nentities; e++) {
      int p = k.parent_of[e];
      if (done[e] || (p >= 0 && !done[p])) continue;
      rc = make_entity(&k, e, &buf, err);
      done[e] = 1;
    }
  ddbst__buf_release(&buf);
  ddbst__free(&m->alloc, ints);
  return rc;
}

void ddbst__sample_free(ddbst__sample *s) {
  if (!s->m) return;
  for (int r = 0; r < s->nrows; r++) ddbst_item_free(s->rows[r].item);
  ddbst__free(&s->m->alloc, s->rows);
  ddbst__arena_free(&s->ar);
  memset(s, 0, sizeof *s);
}

const char *ddbst__sample_s(const ddbst__sample_row *r, const char *name,
                            size_t *len) {
  const ddbst__jnode *av = ddbst__jobj_get(r->node, name);
  const ddbst__jnode *v = ddbst__jobj_get(av, "S");
  if (!v || v->type != DDBST__J_STRING) return NULL;
  *len = v->len;
  return v->text;
}
