/* Which sample rows a request reads, worked out from the request body
 * itself (the very body the view shows and the browser test sends to
 * DynamoDB Local): its key condition and filter, in the grammar ddbst's
 * builders write, applied the way DynamoDB applies them — the partition
 * key equal, the sort key compared as UTF-8 bytes, key order (reversed
 * when ScanIndexForward is false), Limit counting the items the key
 * condition reads before the filter drops any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/view.h"

/* ---- reading the expression ---- */

typedef struct cursor {
  const char *p, *end;
  const ddbst__jnode *names, *values; /* ExpressionAttribute{Names,Values} */
  int bad;
} cursor;

static void spaces(cursor *c) {
  while (c->p < c->end && *c->p == ' ') c->p++;
}

static int word(cursor *c, const char *w) {
  spaces(c);
  size_t n = strlen(w);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return 0;
  c->p += n;
  return 1;
}

/* A placeholder (#n0, :v1) looked up in its map; NULL (and bad) if none. */
static const ddbst__jnode *placeholder(cursor *c, char sigil) {
  spaces(c);
  const char *s = c->p;
  if (c->p < c->end && *c->p == sigil) c->p++;
  while (c->p < c->end &&
         ((*c->p >= '0' && *c->p <= '9') || (*c->p >= 'a' && *c->p <= 'z') ||
          (*c->p >= 'A' && *c->p <= 'Z') || *c->p == '_'))
    c->p++;
  char key[64];
  size_t n = (size_t)(c->p - s);
  const ddbst__jnode *v = NULL;
  if (n > 1 && n < sizeof key) {
    memcpy(key, s, n);
    key[n] = '\0';
    v = ddbst__jobj_get(sigil == '#' ? c->names : c->values, key);
  }
  if (!v) c->bad = 1;
  return v;
}

static const char *name_of(cursor *c) {
  const ddbst__jnode *n = placeholder(c, '#');
  return n && n->type == DDBST__J_STRING ? n->text : "";
}

/* ---- comparing values ---- */

/* DynamoDB's order of strings: their UTF-8 bytes. */
static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

/* The value of a scalar AttributeValue ({"S": ...}, {"N": ...},
 * {"B": ...}) and its type letter, or NULL. */
static const ddbst__jnode *scalar_of(const ddbst__jnode *av, char *type) {
  if (!av || av->type != DDBST__J_OBJECT || av->count != 1) return NULL;
  const char *t = av->keys[0];
  const ddbst__jnode *v = av->items[0];
  if (t[1] || (t[0] != 'S' && t[0] != 'N' && t[0] != 'B') ||
      v->type != DDBST__J_STRING)
    return NULL;
  *type = t[0];
  return v;
}

int ddbst__view_av_cmp(const ddbst__jnode *a, const ddbst__jnode *b) {
  char ta = 0, tb = 0;
  const ddbst__jnode *x = scalar_of(a, &ta), *y = scalar_of(b, &tb);
  if (!x || !y || ta != tb) return (x != NULL) - (y != NULL);
  if (ta == 'N') {
    double p = strtod(x->text, NULL), q = strtod(y->text, NULL);
    return (p > q) - (p < q);
  }
  return bytes_cmp(x->text, x->len, y->text, y->len);
}

/* Two AttributeValues of one scalar type and equal text (ddbst writes
 * numbers in one canonical form, so text equality is number equality). */
static int av_equal(const ddbst__jnode *a, const ddbst__jnode *b) {
  if (!a || !b || a->type != DDBST__J_OBJECT || b->type != DDBST__J_OBJECT ||
      a->count != 1 || b->count != 1 || strcmp(a->keys[0], b->keys[0]) != 0)
    return 0;
  const ddbst__jnode *x = a->items[0], *y = b->items[0];
  if (x->type != y->type) return 0;
  if (x->type == DDBST__J_BOOL) return x->boolean == y->boolean;
  return x->text && y->text && x->len == y->len &&
         memcmp(x->text, y->text, x->len) == 0;
}

/* ---- the sort-key condition ---- */

typedef enum { SK_ANY, SK_EQ, SK_LT, SK_LE, SK_GT, SK_GE, SK_BETWEEN,
               SK_BEGINS } sk_op;

/* A key condition: the partition attributes by equality, then those of
 * the sort key (one on a template key; on a multi-attribute key, the
 * leading ones by equality and one condition after them). */
enum { MAX_TERMS = 8 };
typedef struct term {
  const char *name;
  sk_op op;
  const ddbst__jnode *lo, *hi; /* AttributeValues */
} term;
typedef struct keycond {
  term t[MAX_TERMS];
  int n;
} keycond;

static void read_term(cursor *c, term *t) {
  if (word(c, "begins_with(")) {
    t->op = SK_BEGINS;
    t->name = name_of(c);
    if (!word(c, ",")) c->bad = 1;
    t->lo = placeholder(c, ':');
    if (!word(c, ")")) c->bad = 1;
    return;
  }
  t->name = name_of(c);
  static const struct {
    const char *w;
    sk_op op;
  } ops[] = {{"BETWEEN", SK_BETWEEN}, {"<=", SK_LE}, {">=", SK_GE},
             {"<", SK_LT},            {">", SK_GT},  {"=", SK_EQ}};
  size_t i = 0;
  while (i < sizeof ops / sizeof ops[0] && !word(c, ops[i].w)) i++;
  if (i == sizeof ops / sizeof ops[0]) c->bad = 1;
  else t->op = ops[i].op;
  t->lo = placeholder(c, ':');
  if (t->op == SK_BETWEEN) {
    if (!word(c, "AND")) c->bad = 1;
    t->hi = placeholder(c, ':');
  }
}

static int read_keycond(cursor *c, keycond *k) {
  memset(k, 0, sizeof *k);
  do
    read_term(c, &k->t[k->n++]);
  while (!c->bad && k->n < MAX_TERMS && word(c, "AND"));
  spaces(c);
  if (c->p != c->end || k->t[0].op != SK_EQ) c->bad = 1;
  return !c->bad;
}

static int term_holds(const term *t, const ddbst__jnode *av) {
  char type;
  if (!av || !scalar_of(av, &type)) return 0;
  int lo = ddbst__view_av_cmp(av, t->lo);
  switch (t->op) {
  case SK_EQ: return lo == 0;
  case SK_LT: return lo < 0;
  case SK_LE: return lo <= 0;
  case SK_GT: return lo > 0;
  case SK_GE: return lo >= 0;
  case SK_BETWEEN: return lo >= 0 && ddbst__view_av_cmp(av, t->hi) <= 0;
  case SK_BEGINS: {
    char tl;
    const ddbst__jnode *x = scalar_of(av, &type), *p = scalar_of(t->lo, &tl);
    return p && tl == type && x->len >= p->len &&
           !memcmp(x->text, p->text, p->len);
  }
  default: return 0;
  }
}

/* ---- the filter ---- */

/* Whether the row passes FilterExpression `f` (conditions joined by AND:
 * #n = :v, #n IN (:a, :b)); sets c->bad on anything else. */
static int filter_holds(cursor *c, const ddbst__jnode *row) {
  int ok = 1;
  do {
    const ddbst__jnode *have = ddbst__jobj_get(row, name_of(c));
    if (word(c, "=")) {
      ok &= av_equal(have, placeholder(c, ':'));
    } else if (word(c, "IN") && word(c, "(")) {
      int any = 0;
      do
        any |= av_equal(have, placeholder(c, ':'));
      while (word(c, ","));
      if (!word(c, ")")) c->bad = 1;
      ok &= any;
    } else {
      c->bad = 1;
    }
  } while (!c->bad && word(c, "AND"));
  spaces(c);
  if (c->p != c->end) c->bad = 1;
  return ok;
}

/* ---- a query ---- */

typedef struct hit {
  int row;
  const ddbst__jnode *sk[4]; /* the index's sort attributes, in order */
  int nsk;
} hit;

/* Key order; rows in the order they were made where there is no sort key
 * (DynamoDB promises no order there: the view says so). */
static int by_key(const void *x, const void *y) {
  const hit *a = x, *b = y;
  for (int i = 0; i < a->nsk && i < b->nsk; i++) {
    int c = ddbst__view_av_cmp(a->sk[i], b->sk[i]);
    if (c) return c;
  }
  return (a->row > b->row) - (a->row < b->row);
}

static const char *string_member(const ddbst__jnode *obj, const char *key) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, key);
  return v && v->type == DDBST__J_STRING ? v->text : NULL;
}

int ddbst__view_reads(const ddbst__sample *s, int op, const ddbst__jnode *body,
                      ddbst__view_read *r, ddbst_error *err) {
  const ddbst_model *m = s->m;
  memset(r, 0, sizeof r[0]);
  r->rows = ddbst__malloc(&m->alloc, ((size_t)s->nrows + 1) * sizeof *r->rows);
  if (!r->rows) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (op == DDBST_OP_GET_ITEM) {
    const ddbst__jnode *key = ddbst__jobj_get(body, "Key");
    for (int i = 0; i < s->nrows; i++) {
      int same = key && key->count > 0;
      for (size_t k = 0; same && k < key->count; k++)
        same = av_equal(key->items[k],
                        ddbst__jobj_get(s->rows[i].node, key->keys[k]));
      if (same) r->rows[r->nrows++] = i;
    }
    r->ordered = 1;
    return 0;
  }
  cursor c = {0};
  c.names = ddbst__jobj_get(body, "ExpressionAttributeNames");
  c.values = ddbst__jobj_get(body, "ExpressionAttributeValues");
  const char *kce = string_member(body, "KeyConditionExpression");
  keycond k;
  if (kce) {
    c.p = kce;
    c.end = kce + strlen(kce);
  }
  if (!kce || !read_keycond(&c, &k))
    return ddbst__fail(err, DDBST_EINVAL, "KeyConditionExpression",
                       "the view reads only the key conditions ddbst writes");
  const ddbst__jnode *forward = ddbst__jobj_get(body, "ScanIndexForward");
  const ddbst__jnode *limit = ddbst__jobj_get(body, "Limit");
  const char *index = string_member(body, "IndexName");
  hit *hits = ddbst__malloc(&m->alloc, ((size_t)s->nrows + 1) * sizeof *hits);
  if (!hits) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  size_t nhits = 0;
  /* the sort attributes of the index read, for the order */
  int ix = -1;
  for (int i = 0; index && i < m->nindexes; i++)
    if (!strcmp(m->indexes[i].name, index)) ix = i;
  const char *sk_names[4] = {index ? (ix >= 0 ? m->indexes[ix].sk_attr : NULL)
                                   : m->sk_attr};
  int nsk = sk_names[0] != NULL;
  if (ix >= 0 && m->indexes[ix].native) {
    nsk = m->indexes[ix].nsk;
    for (int i = 0; i < nsk; i++) sk_names[i] = m->indexes[ix].sk_attrs[i];
  }
  for (int i = 0; i < s->nrows; i++) {
    /* an index holds the items that have its key attributes */
    int in = 1;
    for (int t = 0; in && t < k.n; t++)
      in = term_holds(&k.t[t], ddbst__jobj_get(s->rows[i].node, k.t[t].name));
    if (!in) continue;
    hit h = {i, {NULL}, nsk};
    for (int a = 0; a < nsk; a++)
      h.sk[a] = ddbst__jobj_get(s->rows[i].node, sk_names[a]);
    hits[nhits++] = h;
  }
  const char *sk_attr = sk_names[0];
  r->ordered = sk_attr != NULL;
  qsort(hits, nhits, sizeof *hits, by_key);
  if (forward && forward->type == DDBST__J_BOOL && !forward->boolean)
    for (size_t i = 0; i < nhits / 2; i++) {
      hit t = hits[i];
      hits[i] = hits[nhits - 1 - i];
      hits[nhits - 1 - i] = t;
    }
  size_t most = nhits;
  if (limit && limit->type == DDBST__J_NUMBER) {
    long n = strtol(limit->text, NULL, 10);
    if (n > 0 && (size_t)n < nhits) most = (size_t)n;
  }
  r->more = most < nhits;
  r->read = (int)most;
  const char *filter = string_member(body, "FilterExpression");
  for (size_t i = 0; i < most; i++) {
    if (filter) {
      cursor f = c;
      f.p = filter;
      f.end = filter + strlen(filter);
      f.bad = 0;
      int keep = filter_holds(&f, s->rows[hits[i].row].node);
      if (f.bad) {
        ddbst__free(&m->alloc, hits);
        return ddbst__fail(err, DDBST_EINVAL, "FilterExpression",
                           "the view reads only the filters ddbst writes");
      }
      if (!keep) continue;
    }
    r->rows[r->nrows++] = hits[i].row;
  }
  ddbst__free(&m->alloc, hits);
  return 0;
}

void ddbst__view_read_free(const ddbst_model *m, ddbst__view_read *r) {
  ddbst__free(&m->alloc, r->rows);
  r->rows = NULL;
}

/* ---- spelling the condition out ---- */

static int put_av(ddbst_buf *out, const ddbst__jnode *av) {
  const ddbst__jnode *v = av && av->type == DDBST__J_OBJECT && av->count == 1
                              ? av->items[0]
                              : NULL;
  if (!v) return ddbst__buf_puts(out, "?");
  if (v->type == DDBST__J_BOOL)
    return ddbst__buf_puts(out, v->boolean ? "true" : "false");
  int quoted = !strcmp(av->keys[0], "S");
  int rc = quoted ? ddbst__buf_putc(out, '"') : 0;
  rc = rc ? rc : ddbst__buf_append(out, v->text ? v->text : "", v->len);
  return rc ? rc : quoted ? ddbst__buf_putc(out, '"') : 0;
}

int ddbst__view_spell(const ddbst__jnode *body, const char *field,
                      ddbst_buf *out) {
  const char *e = string_member(body, field);
  if (!e) return 0;
  const ddbst__jnode *names = ddbst__jobj_get(body, "ExpressionAttributeNames");
  const ddbst__jnode *values =
      ddbst__jobj_get(body, "ExpressionAttributeValues");
  int rc = 0;
  for (const char *p = e; *p && !rc;) {
    if (*p != '#' && *p != ':') {
      rc = ddbst__buf_putc(out, *p++);
      continue;
    }
    const char *s = p++;
    while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
           (*p >= 'A' && *p <= 'Z') || *p == '_')
      p++;
    char key[64];
    size_t n = (size_t)(p - s) < sizeof key ? (size_t)(p - s) : 0;
    memcpy(key, s, n);
    key[n] = '\0';
    const ddbst__jnode *v = ddbst__jobj_get(*s == '#' ? names : values, key);
    if (*s == '#')
      rc = ddbst__buf_puts(out, v && v->text ? v->text : key);
    else
      rc = put_av(out, v);
  }
  return rc;
}
