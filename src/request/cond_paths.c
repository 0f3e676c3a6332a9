/* Names in expressions resolved against the entity: an attribute, or a
 * path into a map or list one; an unknown name is an error that says which
 * was meant, a key attribute ddbst writes one that says why not. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "request/cond.h"

/* Edits between a and b (insertions, deletions, substitutions and swaps of
 * two neighbours), letter case ignored; stops counting past 3. */
static int distance(const char *a, size_t n, const char *b, size_t m) {
  enum { MAXN = 64 };
  if (n >= MAXN || m >= MAXN) return 99;
  int d[MAXN + 1][MAXN + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      char x = a[i - 1], y = b[j - 1];
      if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
      int best = d[i - 1][j - 1] + (x != y);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* The attribute of the entity closest to `name`, when close enough to be
 * what was meant (at most two edits, and fewer than half its letters). */
static const char *meant(const ddbst__entity *e, const char *name,
                         size_t len) {
  const char *best = NULL;
  int bd = 3;
  for (int a = 0; a < e->nattrs; a++) {
    const char *cand = e->attrs[a].name;
    int d = distance(name, len, cand, strlen(cand));
    if (d < bd && (size_t)d * 2 <= len) {
      bd = d;
      best = cand;
    }
  }
  return best;
}

/* Whether `name` is an attribute only ddbst writes: a key of the table or
 * an index, or the entity attribute. */
static const char *key_role(const ddbst_model *m, const char *name) {
  if (m->pk_attr && !strcmp(name, m->pk_attr)) return "the table's partition key";
  if (m->sk_attr && !strcmp(name, m->sk_attr)) return "the table's sort key";
  if (m->entity_attr && !strcmp(name, m->entity_attr))
    return "the entity attribute";
  for (int i = 0; i < m->nindexes; i++)
    if (!strcmp(name, m->indexes[i].pk_attr) ||
        (m->indexes[i].sk_attr && !strcmp(name, m->indexes[i].sk_attr)))
      return "a key of an index";
  return NULL;
}

/* The interned entry for a map key `s`: the model's own when it names
 * one (so one name gets one placeholder), else a new one in the
 * expression's arena, laid out as the model's are (compile_names.c). */
static const ddbst__name *name_entry(ddbst__xres *r, const char *s,
                                     uint32_t len) {
  const ddbst_model *m = r->x->m;
  for (int i = 0; i < m->nnames; i++)
    if (m->name_list[i]->json.raw_len == len &&
        !memcmp(m->name_list[i]->text, s, len))
      return m->name_list[i];
  for (int i = 0; i < r->nkeys; i++)
    if (r->keys[i]->json.raw_len == len && !memcmp(r->keys[i]->text, s, len))
      return r->keys[i];
  if (r->nkeys == r->cap_keys) {
    int cap = r->cap_keys ? 2 * r->cap_keys : 8;
    const ddbst__name **k = ddbst__arena_alloc(&r->x->ar, (size_t)cap * sizeof *k);
    if (!k) return NULL;
    if (r->nkeys) memcpy(k, r->keys, (size_t)r->nkeys * sizeof *k);
    r->keys = k;
    r->cap_keys = cap;
  }
  ddbst_buf_reset(&r->tmp);
  if (ddbst__json_string(&r->tmp, s, len)) return NULL;
  ddbst__name *nm =
      ddbst__arena_alloc(&r->x->ar, sizeof *nm + len + 1 + r->tmp.len);
  if (!nm) return NULL;
  memcpy(nm->text, s, len);
  nm->text[len] = '\0';
  char *json = nm->text + len + 1;
  memcpy(json, r->tmp.data, r->tmp.len);
  nm->json.p = json;
  nm->json.n = (uint32_t)r->tmp.len;
  nm->json.raw_len = len;
  r->keys[r->nkeys++] = nm;
  return nm;
}

int ddbst__xresolve_path(ddbst__xres *r, ddbst__xnode *n) {
  const ddbst__entity *e = r->e;
  const char *bad;
  if ((bad = ddbst__utf8_check(n->name, n->name_len)))
    return ddbst__xfail(r->p, n, DDBST_ESYNTAX, "%s", bad);
  int a = -1;
  for (int i = 0; i < e->nattrs && a < 0; i++)
    if (strlen(e->attrs[i].name) == n->name_len &&
        !memcmp(e->attrs[i].name, n->name, n->name_len))
      a = i;
  if (a < 0) {
    const char *role = key_role(r->x->m, n->name);
    if (role)
      return ddbst__xfail(
          r->p, n, DDBST_EINVAL,
          "%s is %s, which ddbst writes from the entity's attributes: %s",
          n->name, role,
          r->x->kind == DDBST_EXPR_FILTER
              ? "a query's key is its values and sort-key condition, never a "
                "filter"
              : "name the attributes it is made of");
    const char *guess = meant(e, n->name, n->name_len);
    if (guess)
      return ddbst__xfail(r->p, n, DDBST_ENOTFOUND,
                          "%s has no attribute %s; did you mean %s?", e->name,
                          n->name, guess);
    return ddbst__xfail(r->p, n, DDBST_ENOTFOUND, "%s has no attribute %s",
                        e->name, n->name);
  }
  n->attr = a;
  r->x->uses[a] = 1;
  r->x->nnames++;
  const ddbst__attr *at = &e->attrs[a];
  if (n->nsteps && at->type != DDBST__T_MAP && at->type != DDBST__T_LIST)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is %s: a path goes inside maps and lists only",
                        e->name, at->name,
                        ddbst__xclass_name(ddbst__xclass_of_type(at->type)));
  if (n->nsteps && at->type == DDBST__T_MAP && !n->steps[0].name)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is a map: its members are .name, not [index]",
                        e->name, at->name);
  if (n->nsteps && at->type == DDBST__T_LIST && n->steps[0].name)
    return ddbst__xfail(r->p, n, DDBST_EVALUE,
                        "%s.%s is a list: its elements are [index], not .name",
                        e->name, at->name);
  for (int i = 0; i < n->nsteps; i++) {
    ddbst__xstep *st = &n->steps[i];
    if (!st->name) continue;
    if ((bad = ddbst__utf8_check(st->name, st->len)))
      return ddbst__xfail(r->p, n, DDBST_ESYNTAX, "%s", bad);
    st->nm = name_entry(r, st->name, st->len);
    if (!st->nm) return DDBST_ENOMEM;
    r->x->nnames++;
  }
  return 0;
}

