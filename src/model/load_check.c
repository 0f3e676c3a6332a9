/* The loader's common ground: a problem reported at its JSON path (with
 * line and column), the arena copies every part makes, and the checks of a
 * node's shape that every part of the model file needs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "model/load.h"
#include "model/value_canon.h"

/* ---- reporting ---- */

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The opening quote of the string whose closing quote is at `close`: the
 * first quote before it not escaped by an odd run of backslashes. */
static size_t string_start(const char *json, size_t close) {
  for (size_t i = close; i-- > 0;) {
    if (json[i] != '"') continue;
    size_t slashes = 0;
    while (slashes < i && json[i - 1 - slashes] == '\\') slashes++;
    if (slashes % 2 == 0) return i;
  }
  return 0;
}

/* Where a problem is shown: the start of the member `"name": value` when
 * `at` is an object's member (an editor then marks the name), else the
 * start of the value. A node's offset is just past its first token (what
 * the parser had read); the document parsed, so the text around it is
 * well-formed JSON and can be read backwards. */
static size_t node_start(const char *json, size_t off) {
  size_t p = off;
  while (p > 0 && is_space(json[p - 1])) p--;
  if (p == 0) return 0;
  char c = json[p - 1];
  if (c == '"')
    p = string_start(json, p - 1);
  else if (c == '{' || c == '[')
    p--;
  else
    while (p > 0 && !is_space(json[p - 1]) && !strchr(",:[{", json[p - 1]))
      p--;
  size_t q = p;
  while (q > 0 && is_space(json[q - 1])) q--;
  if (q == 0 || json[q - 1] != ':') return p; /* an element, or the root */
  q--;
  while (q > 0 && is_space(json[q - 1])) q--;
  return q > 0 && json[q - 1] == '"' ? string_start(json, q - 1) : p;
}

static void vreport(ddbst__loader *L, const ddbst__jnode *at, const char *fmt,
                    va_list ap) DDBST__PRINTF(3, 0);
static void vreport(ddbst__loader *L, const ddbst__jnode *at, const char *fmt,
                    va_list ap) {
  /* After an allocation failure the load is DDBST_ENOMEM, and a part cut
   * short (a name not copied, an index half read) would make a message
   * false, or print a NULL name: nothing more is reported. */
  if (L->nomem) return;
  ddbst_error e;
  ddbst__vfail(&e, DDBST_EMODEL, L->path, fmt, ap);
  if (at) {
    unsigned line, col;
    size_t start = node_start(L->json, at->offset);
    ddbst__text_position(L->json, L->len, start, &line, &col);
    e.offset = start;
    e.line = line;
    e.column = col;
  }
  if (L->nerrors++ == 0 && L->err) *L->err = e;
  if (L->on_error) L->on_error(L->on_error_user, &e);
}

void ddbst__load_report(ddbst__loader *L, const ddbst__jnode *at,
                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(L, at, fmt, ap);
  va_end(ap);
}

size_t ddbst__load_push(ddbst__loader *L, const char *name) {
  /* what snprintf(path + plen, "%s%s", "." or "", name) did, without
   * formatting: a path is pushed for every member of the model */
  size_t old = L->plen, room = sizeof L->path - 1 - old;
  size_t dot = old ? 1 : 0, n = strlen(name);
  char *at = L->path + old;
  if (dot && room) *at++ = '.', room--;
  size_t k = n < room ? n : room;
  memcpy(at, name, k);
  at[k] = '\0';
  L->plen = old + dot + n < sizeof L->path ? old + dot + n : sizeof L->path - 1;
  return old;
}

void ddbst__load_pop(ddbst__loader *L, size_t old) {
  L->plen = old;
  L->path[old] = '\0';
}

void ddbst__load_report_field(ddbst__loader *L, const char *field,
                              const ddbst__jnode *at, const char *fmt, ...) {
  size_t old = ddbst__load_push(L, field);
  va_list ap;
  va_start(ap, fmt);
  vreport(L, at, fmt, ap);
  va_end(ap);
  ddbst__load_pop(L, old);
}

char *ddbst__load_dup(ddbst__loader *L, const char *s) {
  char *p = ddbst__arena_strndup(&L->m->arena, s, strlen(s));
  if (!p) L->nomem = 1;
  return p;
}

void *ddbst__load_array(ddbst__loader *L, size_t n, size_t size) {
  if (n == 0) return NULL;
  void *p = ddbst__arena_alloc(&L->m->arena, n * size);
  if (!p) L->nomem = 1;
  return p;
}

/* ---- shape checks ---- */

const char *ddbst__load_jtype_name(ddbst__jtype t) {
  switch (t) {
  case DDBST__J_NULL: return "null";
  case DDBST__J_BOOL: return "a boolean";
  case DDBST__J_NUMBER: return "a number";
  case DDBST__J_STRING: return "a string";
  case DDBST__J_ARRAY: return "an array";
  case DDBST__J_OBJECT: return "an object";
  }
  return "?";
}

int ddbst__load_expect(ddbst__loader *L, const ddbst__jnode *n, ddbst__jtype t,
                       const char *what) {
  if (n->type == t) return 1;
  ddbst__load_report(L, n, "expected %s, found %s", what,
                     ddbst__load_jtype_name(n->type));
  return 0;
}

/* The allowed field that member `key` of `obj` misspells: one `obj`
 * lacks, close enough by the "did you mean" rule; NULL when none. */
static const char *misspelt(const ddbst__jnode *obj, const char *key,
                            const char *const *allowed) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, key);
  for (const char *const *a = allowed; *a; a++)
    if (!ddbst__jobj_get(obj, *a)) ddbst__suggest_offer(&s, *a);
  return ddbst__suggest_best(&s);
}

void ddbst__load_check_fields(ddbst__loader *L, const ddbst__jnode *obj,
                              const char *const *allowed) {
  ddbst__load_fields(L, obj, allowed, NULL);
}

void ddbst__load_fields(ddbst__loader *L, const ddbst__jnode *obj,
                        const char *const *allowed, const ddbst__jnode **got) {
  if (got)
    for (const char *const *a = allowed; *a; a++) got[a - allowed] = NULL;
  for (size_t i = 0; i < obj->count; i++) {
    const char *key = obj->keys[i];
    const char *const *f = allowed; /* the first byte spares most strcmps */
    while (*f && ((*f)[0] != key[0] || strcmp(*f, key) != 0)) f++;
    if (*f) {
      if (got) got[f - allowed] = obj->items[i];
      continue;
    }
    const char *meant = misspelt(obj, obj->keys[i], allowed);
    if (meant) {
      L->meant_in[L->nmeant % 16] = obj;
      L->meant[L->nmeant++ % 16] = meant;
      ddbst__load_report_field(L, obj->keys[i], obj->items[i],
                               "unknown field '%s'; did you mean %s?",
                               obj->keys[i], meant);
      continue;
    }
    char list[160];
    size_t used = 0;
    list[0] = '\0';
    for (const char *const *a = allowed; *a; a++) {
      int w = snprintf(list + used, sizeof list - used, "%s%s",
                       used ? ", " : "", *a);
      if (w < 0 || (size_t)w >= sizeof list - used) break;
      used += (size_t)w;
    }
    ddbst__load_report_field(L, obj->keys[i], obj->items[i],
                             "unknown field '%s' (expected one of: %s)",
                             obj->keys[i], list);
  }
}

int ddbst__load_misspelt(const ddbst__loader *L, const ddbst__jnode *obj,
                         const char *field) {
  for (unsigned i = 0; i < 16 && i < L->nmeant; i++)
    if (L->meant_in[i] == obj && strcmp(L->meant[i], field) == 0) return 1;
  return 0;
}

int ddbst__load_first_unknown(ddbst__loader *L, int index, const char *name) {
  const char **seen = index ? L->unknown_indexes : L->unknown_entities;
  int *n = index ? &L->nunknown_indexes : &L->nunknown_entities;
  for (int i = 0; i < *n; i++)
    if (strcmp(seen[i], name) == 0) return 0;
  if (*n < 16) seen[(*n)++] = name;
  return 1;
}

const ddbst__jnode *ddbst__load_string(ddbst__loader *L,
                                       const ddbst__jnode *obj,
                                       const char *field, int required) {
  return ddbst__load_string_of(L, obj, field, ddbst__jobj_get(obj, field),
                               required);
}

const ddbst__jnode *ddbst__load_string_of(ddbst__loader *L,
                                          const ddbst__jnode *obj,
                                          const char *field,
                                          const ddbst__jnode *n,
                                          int required) {
  if (!n) {
    if (required && !ddbst__load_misspelt(L, obj, field))
      ddbst__load_report_field(L, field, obj, "'%s' is required", field);
    return NULL;
  }
  if (n->type != DDBST__J_STRING) {
    ddbst__load_report_field(L, field, n, "expected a string, found %s",
                             ddbst__load_jtype_name(n->type));
    return NULL;
  }
  return n;
}

/* Entity, attribute and pattern names: identifiers, so that they read the
 * same in templates, messages and generated code. */
int ddbst__is_identifier(const char *s) {
  /* one pass, no strlen: every name of a model comes through here */
  unsigned char c = (unsigned char)s[0];
  if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_')) return 0;
  size_t n = 1;
  for (; (c = (unsigned char)s[n]) != '\0'; n++)
    if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return 0;
  return n <= 255;
}

/* ---- literals and names ---- */

const char *ddbst__load_literal(ddbst__loader *L, const ddbst__attr *a,
                                const ddbst__jnode *v, size_t *len) {
  char why[160];
  const char *text;
  size_t n;
  if (v->type == DDBST__J_STRING || v->type == DDBST__J_NUMBER) {
    text = v->text;
    n = v->len;
  } else if (v->type == DDBST__J_BOOL) {
    text = v->boolean ? "true" : "false";
    n = strlen(text);
  } else {
    ddbst__load_report(
        L, v, "expected a string, number or boolean for a %s attribute",
        ddbst__type_name(a->type));
    return NULL;
  }
  if ((v->type == DDBST__J_STRING) !=
      (a->type != DDBST__T_INTEGER && a->type != DDBST__T_NUMBER &&
       a->type != DDBST__T_BOOLEAN && a->type != DDBST__T_TTL)) {
    ddbst__load_report(L, v, "a %s attribute does not take %s",
                       ddbst__type_name(a->type),
                       ddbst__load_jtype_name(v->type));
    return NULL;
  }
  ddbst_buf b;
  ddbst__buf_init(&b, &L->m->alloc);
  int rc = ddbst__value_canon(a, text, n, &b, why, sizeof why);
  const char *out = NULL;
  if (rc == DDBST_ENOMEM) {
    L->nomem = 1;
  } else if (rc) {
    ddbst__load_report(L, v, "not a valid %s: %s", ddbst__type_name(a->type),
                       why);
  } else {
    out = ddbst__arena_strndup(&L->m->arena, b.data ? b.data : "", b.len);
    if (!out) L->nomem = 1;
    *len = b.len;
  }
  ddbst__buf_release(&b);
  return out;
}

int ddbst__attr_index(const ddbst__entity *e, const char *name) {
  for (int i = 0; i < e->nattrs; i++)
    if (strcmp(e->attrs[i].name, name) == 0) return i;
  return -1;
}

int ddbst__index_named(const ddbst_model *m, const char *name) {
  for (int i = 0; i < m->nindexes; i++)
    if (m->indexes[i].name && strcmp(m->indexes[i].name, name) == 0) return i;
  return -1;
}
