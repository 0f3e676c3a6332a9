/* Model file (JSON) → compiled model. Every problem is reported with its JSON
 * path; loading goes on after an error so that one run shows them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/facet.h"
#include "json/tree.h"
#include "model/model.h"
#include "model/value_canon.h"
#include "base/bytes.h"

typedef struct loader {
  ddbst_model *m;
  const char *json;
  size_t len;
  ddbst_error *err;
  ddbst_error_fn on_error;
  void *on_error_user;
  int nerrors;
  int nomem;
  char path[DDBST_ERROR_PATH_MAX];
  size_t plen;
} loader;

/* ---- reporting ---- */

static void vreport(loader *L, const ddbst__jnode *at, const char *fmt,
                    va_list ap) DDBST__PRINTF(3, 0);
static void vreport(loader *L, const ddbst__jnode *at, const char *fmt,
                    va_list ap) {
  ddbst_error e;
  ddbst__vfail(&e, DDBST_EMODEL, L->path, fmt, ap);
  if (at) {
    unsigned line, col;
    ddbst__text_position(L->json, L->len, at->offset, &line, &col);
    e.offset = at->offset;
    e.line = line;
    e.column = col;
  }
  if (L->nerrors++ == 0 && L->err) *L->err = e;
  if (L->on_error) L->on_error(L->on_error_user, &e);
}

static void report(loader *L, const ddbst__jnode *at, const char *fmt, ...)
    DDBST__PRINTF(3, 4);
static void report(loader *L, const ddbst__jnode *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(L, at, fmt, ap);
  va_end(ap);
}

static size_t push(loader *L, const char *name) {
  size_t old = L->plen;
  int w = snprintf(L->path + L->plen, sizeof L->path - L->plen, "%s%s",
                   L->plen ? "." : "", name);
  if (w > 0) L->plen += (size_t)w;
  if (L->plen >= sizeof L->path) L->plen = sizeof L->path - 1;
  return old;
}

static void pop(loader *L, size_t old) {
  L->plen = old;
  L->path[old] = '\0';
}

/* Reports about `node`'s member `field`, path and all. */
static void report_field(loader *L, const char *field, const ddbst__jnode *at,
                         const char *fmt, ...) DDBST__PRINTF(4, 5);
static void report_field(loader *L, const char *field, const ddbst__jnode *at,
                         const char *fmt, ...) {
  size_t old = push(L, field);
  va_list ap;
  va_start(ap, fmt);
  vreport(L, at, fmt, ap);
  va_end(ap);
  pop(L, old);
}

/* Never NULL: on allocation failure the load is already lost (nomem), but
 * the checks that still run must not trip over a missing name. */
static char *dup(loader *L, const char *s) {
  static char empty[1];
  char *p = ddbst__arena_strndup(&L->m->arena, s, strlen(s));
  if (!p) L->nomem = 1;
  return p ? p : empty;
}

static void *alloc_array(loader *L, size_t n, size_t size) {
  if (n == 0) return NULL;
  void *p = ddbst__arena_alloc(&L->m->arena, n * size);
  if (!p) L->nomem = 1;
  return p;
}

/* ---- shape checks ---- */

static const char *jtype_name(ddbst__jtype t) {
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

static int expect(loader *L, const ddbst__jnode *n, ddbst__jtype t,
                  const char *what) {
  if (n->type == t) return 1;
  report(L, n, "expected %s, found %s", what, jtype_name(n->type));
  return 0;
}

/* Unknown fields are errors: a typo in a model must not pass silently. */
static void check_fields(loader *L, const ddbst__jnode *obj,
                         const char *const *allowed) {
  for (size_t i = 0; i < obj->count; i++) {
    int ok = 0;
    for (const char *const *a = allowed; *a; a++)
      if (strcmp(obj->keys[i], *a) == 0) ok = 1;
    if (ok) continue;
    char list[160];
    size_t used = 0;
    list[0] = '\0';
    for (const char *const *a = allowed; *a; a++) {
      int w = snprintf(list + used, sizeof list - used, "%s%s",
                       used ? ", " : "", *a);
      if (w < 0 || (size_t)w >= sizeof list - used) break;
      used += (size_t)w;
    }
    report_field(L, obj->keys[i], obj->items[i],
                 "unknown field '%s' (expected one of: %s)", obj->keys[i],
                 list);
  }
}

/* A string member: NULL when absent (reported when `required`) or not a
 * string (always reported). */
static const ddbst__jnode *get_string(loader *L, const ddbst__jnode *obj,
                                      const char *field, int required) {
  const ddbst__jnode *n = ddbst__jobj_get(obj, field);
  if (!n) {
    if (required) report_field(L, field, obj, "'%s' is required", field);
    return NULL;
  }
  if (n->type != DDBST__J_STRING) {
    report_field(L, field, n, "expected a string, found %s",
                 jtype_name(n->type));
    return NULL;
  }
  return n;
}

/* Entity, attribute and pattern names: identifiers, so that they read the
 * same in templates, messages and generated code. */
static int is_identifier(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 255) return 0;
  if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
        s[0] == '_'))
    return 0;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

/* DynamoDB's rule for table and index names: 3–255 of [A-Za-z0-9_.-]. */
static int is_table_name(const char *s) {
  size_t n = strlen(s);
  if (n < 3 || n > 255) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
      return 0;
  }
  return 1;
}

/* Key attribute names: 1–255 bytes, no control characters. */
static int is_key_attr_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 255) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
  return 1;
}

static const char *key_attr(loader *L, const ddbst__jnode *obj,
                            const char *field, int required) {
  const ddbst__jnode *n = get_string(L, obj, field, required);
  if (!n) return NULL;
  if (!is_key_attr_name(n->text)) {
    report_field(L, field, n,
                 "a key attribute name is 1 to 255 bytes without control "
                 "characters");
    return NULL;
  }
  return dup(L, n->text);
}

/* ---- table ---- */

static void load_index(loader *L, const ddbst__jnode *n, ddbst__index *ix) {
  static const char *const fields[] = {"partitionKey", "sortKey", "projection",
                                       NULL};
  if (!expect(L, n, DDBST__J_OBJECT, "an object")) return;
  check_fields(L, n, fields);
  ix->pk_attr = key_attr(L, n, "partitionKey", 1);
  ix->sk_attr = key_attr(L, n, "sortKey", 0);
  ix->projection = DDBST__PROJ_ALL;
  const ddbst__jnode *p = ddbst__jobj_get(n, "projection");
  if (!p) return;
  size_t old = push(L, "projection");
  if (p->type == DDBST__J_STRING && strcmp(p->text, "ALL") == 0) {
    ix->projection = DDBST__PROJ_ALL;
  } else if (p->type == DDBST__J_STRING && strcmp(p->text, "KEYS_ONLY") == 0) {
    ix->projection = DDBST__PROJ_KEYS_ONLY;
  } else if (p->type == DDBST__J_ARRAY) {
    ix->projection = DDBST__PROJ_INCLUDE;
    if (p->count == 0 || p->count > 100)
      report(L, p, "an INCLUDE projection lists 1 to 100 attributes");
    ix->include = alloc_array(L, p->count, sizeof *ix->include);
    for (size_t i = 0; i < p->count && ix->include; i++) {
      const ddbst__jnode *a = p->items[i];
      if (a->type != DDBST__J_STRING || !is_identifier(a->text)) {
        report(L, a, "element %zu: expected an attribute name", i);
        continue;
      }
      ix->include[ix->ninclude++] = dup(L, a->text);
    }
  } else {
    report(L, p,
           "expected \"ALL\", \"KEYS_ONLY\" or an array of attribute names "
           "(INCLUDE)");
  }
  pop(L, old);
}

static void load_delimiter(loader *L, const ddbst__jnode *t) {
  L->m->delim = "#";
  L->m->delim_len = 1;
  const ddbst__jnode *d = get_string(L, t, "delimiter", 0);
  if (!d) return;
  /* Characters that canonical timestamps, numbers and ULIDs contain would
   * make every such facet illegal; letters and digits would make keys
   * unreadable. */
  int ok = d->len >= 1 && d->len <= 4;
  for (size_t i = 0; ok && i < d->len; i++) {
    unsigned char c = (unsigned char)d->text[i];
    if (c <= 0x20 || c >= 0x7f || (c >= '0' && c <= '9') ||
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        strchr("-:.+{}%", c))
      ok = 0;
  }
  if (!ok) {
    report_field(L, "delimiter", d,
                 "a delimiter is 1 to 4 ASCII punctuation characters, none of "
                 "- : . + { } %% (they occur in timestamps, numbers and "
                 "escapes)");
    return;
  }
  L->m->delim = dup(L, d->text);
  L->m->delim_len = d->len;
}

/* "cursors": "sealed" (the default) or "unsealed", for development. */
static void load_cursors(loader *L, const ddbst__jnode *t) {
  const ddbst__jnode *c = get_string(L, t, "cursors", 0);
  if (!c) return;
  if (strcmp(c->text, "unsealed") == 0)
    L->m->cursors_unsealed = 1;
  else if (strcmp(c->text, "sealed") != 0)
    report_field(L, "cursors", c, "expected \"sealed\" or \"unsealed\"");
}

static void load_table(loader *L, const ddbst__jnode *t,
                       const char *name_override) {
  static const char *const fields[] = {
      "name",          "partitionKey", "sortKey",   "indexes",
      "entityAttribute", "ttlAttribute", "delimiter", "stream",
      "cursors",       NULL};
  ddbst_model *m = L->m;
  if (!expect(L, t, DDBST__J_OBJECT, "an object")) return;
  check_fields(L, t, fields);

  const ddbst__jnode *name = get_string(L, t, "name", 1);
  if (name && !is_table_name(name->text))
    report_field(L, "name", name,
                 "a table name is 3 to 255 of A-Z a-z 0-9 _ - .");
  if (name_override) {
    if (!is_table_name(name_override))
      report_field(L, "name", NULL,
                   "the table name given at load ('%.64s') is not 3 to 255 of "
                   "A-Z a-z 0-9 _ - .",
                   name_override);
    m->table_name = dup(L, name_override);
  } else if (name) {
    m->table_name = dup(L, name->text);
  }
  m->pk_attr = key_attr(L, t, "partitionKey", 1);
  m->sk_attr = key_attr(L, t, "sortKey", 0);
  load_delimiter(L, t);
  load_cursors(L, t);

  const ddbst__jnode *ea = get_string(L, t, "entityAttribute", 0);
  if (ea) {
    if (is_identifier(ea->text))
      m->entity_attr = dup(L, ea->text);
    else
      report_field(L, "entityAttribute", ea, "expected an attribute name");
  }
  const ddbst__jnode *ttl = get_string(L, t, "ttlAttribute", 0);
  if (ttl) {
    if (is_identifier(ttl->text))
      m->ttl_attr = dup(L, ttl->text);
    else
      report_field(L, "ttlAttribute", ttl, "expected an attribute name");
  }

  const ddbst__jnode *st = ddbst__jobj_get(t, "stream");
  if (st) {
    static const char *const views[] = {NULL, "KEYS_ONLY", "NEW_IMAGE",
                                        "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};
    int found = st->type == DDBST__J_BOOL && !st->boolean;
    for (int i = 1; i < 5 && st->type == DDBST__J_STRING; i++)
      if (strcmp(st->text, views[i]) == 0) {
        m->stream = (ddbst__stream)i;
        found = 1;
      }
    if (!found)
      report_field(L, "stream", st,
                   "expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, "
                   "NEW_AND_OLD_IMAGES or false");
  }

  const ddbst__jnode *ixs = ddbst__jobj_get(t, "indexes");
  if (ixs) {
    size_t old = push(L, "indexes");
    if (expect(L, ixs, DDBST__J_OBJECT, "an object of indexes")) {
      if (ixs->count > 20)
        report(L, ixs, "DynamoDB allows at most 20 global secondary indexes");
      m->indexes = alloc_array(L, ixs->count, sizeof *m->indexes);
      for (size_t i = 0; i < ixs->count && m->indexes; i++) {
        size_t o2 = push(L, ixs->keys[i]);
        ddbst__index *ix = &m->indexes[m->nindexes++];
        ix->name = dup(L, ixs->keys[i]);
        if (!is_table_name(ixs->keys[i]))
          report(L, ixs->items[i],
                 "an index name is 3 to 255 of A-Z a-z 0-9 _ - .");
        load_index(L, ixs->items[i], ix);
        pop(L, o2);
      }
    }
    pop(L, old);
  }

  /* Every key attribute has one role: a name used twice would make one key
   * overwrite another (an index sharing the table's or another index's key
   * attributes is not supported). */
  const char *names[2 + 2 * 20 + 2];
  char roles[sizeof names / sizeof names[0]][300];
  int n = 0;
  names[n] = m->pk_attr;
  snprintf(roles[n++], sizeof roles[0], "the table's partition key");
  names[n] = m->sk_attr;
  snprintf(roles[n++], sizeof roles[0], "the table's sort key");
  for (int i = 0; i < m->nindexes && i < 20; i++) {
    names[n] = m->indexes[i].pk_attr;
    snprintf(roles[n++], sizeof roles[0], "%s's partition key",
             m->indexes[i].name);
    names[n] = m->indexes[i].sk_attr;
    snprintf(roles[n++], sizeof roles[0], "%s's sort key", m->indexes[i].name);
  }
  names[n] = m->entity_attr;
  snprintf(roles[n++], sizeof roles[0], "the entity attribute");
  names[n] = m->ttl_attr;
  snprintf(roles[n++], sizeof roles[0], "the TTL attribute");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (names[i] && names[j] && strcmp(names[i], names[j]) == 0)
        report(L, t, "'%s' is both %s and %s", names[i], roles[j], roles[i]);
}

/* ---- attributes ---- */

static int parse_type(loader *L, const ddbst__jnode *n, ddbst__type *t) {
  if (n->type == DDBST__J_STRING && ddbst__type_parse(n->text, t)) return 1;
  report(L, n,
         "unknown type (expected string, number, integer, boolean, timestamp, "
         "ulid, enum, ttl, list, map, string_set, number_set or binary)");
  return 0;
}

/* Canonicalises a literal (default or condition value) for attribute `a`
 * into the arena. */
static const char *canon_literal(loader *L, const ddbst__attr *a,
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
    report(L, v, "expected a string, number or boolean for a %s attribute",
           ddbst__type_name(a->type));
    return NULL;
  }
  if ((v->type == DDBST__J_STRING) !=
      (a->type != DDBST__T_INTEGER && a->type != DDBST__T_NUMBER &&
       a->type != DDBST__T_BOOLEAN && a->type != DDBST__T_TTL)) {
    report(L, v, "a %s attribute does not take %s", ddbst__type_name(a->type),
           jtype_name(v->type));
    return NULL;
  }
  ddbst_buf b;
  ddbst__buf_init(&b, &L->m->alloc);
  int rc = ddbst__value_canon(a, text, n, &b, why, sizeof why);
  const char *out = NULL;
  if (rc == DDBST_ENOMEM) {
    L->nomem = 1;
  } else if (rc) {
    report(L, v, "not a valid %s: %s", ddbst__type_name(a->type), why);
  } else {
    out = ddbst__arena_strndup(&L->m->arena, b.data ? b.data : "", b.len);
    if (!out) L->nomem = 1;
    *len = b.len;
  }
  ddbst__buf_release(&b);
  return out;
}

static int get_bool(loader *L, const ddbst__jnode *obj, const char *field) {
  const ddbst__jnode *n = ddbst__jobj_get(obj, field);
  if (!n) return 0;
  if (n->type != DDBST__J_BOOL) {
    report_field(L, field, n, "expected true or false");
    return 0;
  }
  return n->boolean;
}

/* An option that only some types take. */
static int type_takes(loader *L, const ddbst__jnode *obj, const char *field,
                      const ddbst__attr *a, int allowed) {
  const ddbst__jnode *n = ddbst__jobj_get(obj, field);
  if (!n) return 0;
  if (!allowed) {
    report_field(L, field, n, "a %s attribute has no '%s'",
                 ddbst__type_name(a->type), field);
    return 0;
  }
  return 1;
}

static void load_attribute(loader *L, const char *name, const ddbst__jnode *n,
                           ddbst__attr *a) {
  static const char *const fields[] = {
      "type",  "required", "default", "precision",   "width",
      "negative", "values", "escape", "description", NULL};
  a->name = dup(L, name);
  a->precision = DDBST__PREC_S;
  if (!is_identifier(name))
    report(L, n,
           "an attribute name starts with a letter or '_' and holds only "
           "letters, digits, '_' and '-'");
  if (n->type == DDBST__J_STRING) {
    parse_type(L, n, &a->type);
    if (a->type == DDBST__T_ENUM)
      report(L, n, "an enum needs its values: {\"type\": \"enum\", "
                   "\"values\": [...]}");
    return;
  }
  if (!expect(L, n, DDBST__J_OBJECT, "a type name or an object")) return;
  check_fields(L, n, fields);
  const ddbst__jnode *t = ddbst__jobj_get(n, "type");
  if (!t) {
    report(L, n, "'type' is required");
    return;
  }
  size_t old = push(L, "type");
  int typed = parse_type(L, t, &a->type);
  pop(L, old);
  if (!typed) return;
  a->required = get_bool(L, n, "required");

  if (type_takes(L, n, "precision", a, a->type == DDBST__T_TIMESTAMP)) {
    const ddbst__jnode *p = ddbst__jobj_get(n, "precision");
    if (p->type == DDBST__J_STRING && strcmp(p->text, "s") == 0)
      a->precision = DDBST__PREC_S;
    else if (p->type == DDBST__J_STRING && strcmp(p->text, "ms") == 0)
      a->precision = DDBST__PREC_MS;
    else if (p->type == DDBST__J_STRING && strcmp(p->text, "us") == 0)
      a->precision = DDBST__PREC_US;
    else
      report_field(L, "precision", p, "expected \"s\", \"ms\" or \"us\"");
  }
  if (type_takes(L, n, "width", a, a->type == DDBST__T_INTEGER)) {
    const ddbst__jnode *w = ddbst__jobj_get(n, "width");
    int64_t v = 0;
    if (w->type != DDBST__J_NUMBER || ddbst__int_parse(w->text, w->len, &v) ||
        v < 1 || v > 19)
      report_field(L, "width", w, "expected a digit count from 1 to 19");
    else
      a->width = (int)v;
  }
  if (type_takes(L, n, "negative", a, a->type == DDBST__T_INTEGER)) {
    const ddbst__jnode *g = ddbst__jobj_get(n, "negative");
    if (g->type == DDBST__J_STRING && strcmp(g->text, "refuse") == 0)
      a->sortable_negative = 0;
    else if (g->type == DDBST__J_STRING && strcmp(g->text, "sortable") == 0)
      a->sortable_negative = 1;
    else
      report_field(L, "negative", g, "expected \"refuse\" or \"sortable\"");
    if (a->sortable_negative && !a->width)
      report_field(L, "negative", g,
                   "sortable negative integers need a 'width'");
  }
  if (type_takes(L, n, "escape", a, a->type == DDBST__T_STRING))
    a->escape = get_bool(L, n, "escape");
  if (a->type == DDBST__T_ENUM) {
    const ddbst__jnode *vs = ddbst__jobj_get(n, "values");
    size_t o2 = push(L, "values");
    if (!vs) {
      report(L, n, "an enum needs 'values'");
    } else if (expect(L, vs, DDBST__J_ARRAY, "an array of strings")) {
      if (vs->count == 0) report(L, vs, "an enum needs at least one value");
      a->values = alloc_array(L, vs->count, sizeof *a->values);
      a->value_lens = alloc_array(L, vs->count, sizeof *a->value_lens);
      for (size_t i = 0; i < vs->count && a->values && a->value_lens; i++) {
        const ddbst__jnode *v = vs->items[i];
        if (v->type != DDBST__J_STRING || v->len == 0) {
          report(L, v, "element %zu: expected a non-empty string", i);
          continue;
        }
        for (size_t j = 0; j < a->nvalues; j++)
          if (strcmp(a->values[j], v->text) == 0)
            report(L, v, "'%s' is listed twice", v->text);
        const char *text = dup(L, v->text);
        a->values[a->nvalues] = text;
        a->value_lens[a->nvalues++] = text ? strlen(text) : 0;
      }
    }
    pop(L, o2);
  } else {
    type_takes(L, n, "values", a, 0);
  }

  const ddbst__jnode *d = ddbst__jobj_get(n, "default");
  if (d) {
    size_t o3 = push(L, "default");
    if (d->type == DDBST__J_STRING && strcmp(d->text, "now") == 0 &&
        a->type == DDBST__T_TIMESTAMP) {
      a->def = DDBST__DEF_NOW;
    } else if (d->type == DDBST__J_STRING && strcmp(d->text, "generate") == 0 &&
               a->type == DDBST__T_ULID) {
      a->def = DDBST__DEF_GENERATE;
    } else if (a->type == DDBST__T_LIST || a->type == DDBST__T_MAP ||
               a->type == DDBST__T_STRING_SET ||
               a->type == DDBST__T_NUMBER_SET || a->type == DDBST__T_BINARY) {
      report(L, d, "a %s attribute takes no default",
             ddbst__type_name(a->type));
    } else {
      size_t len = 0;
      a->def_text = canon_literal(L, a, d, &len);
      a->def_len = len;
      if (a->def_text) a->def = DDBST__DEF_VALUE;
    }
    pop(L, o3);
  }
}

/* ---- entities ---- */

typedef struct raw_entity {
  const ddbst__jnode *node;
} raw_entity;

static int attr_index(const ddbst__entity *e, const char *name) {
  for (int i = 0; i < e->nattrs; i++)
    if (strcmp(e->attrs[i].name, name) == 0) return i;
  return -1;
}

static void compile(loader *L, const ddbst__entity *e, const ddbst__jnode *n,
                    ddbst__template *t) {
  if (!expect(L, n, DDBST__J_STRING, "a key template string")) return;
  char why[200];
  int rc = ddbst__template_compile(&L->m->arena, n->text, e->attrs, e->nattrs,
                                   L->m->delim, L->m->delim_len, t, why,
                                   sizeof why);
  if (rc == DDBST_ENOMEM)
    L->nomem = 1;
  else if (rc)
    report(L, n, "%s", why);
}

/* Compiles {"pk": ..., "sk": ...}; `has_sk` says whether the key has a sort
 * key. */
static void load_key_pair(loader *L, const ddbst__entity *e,
                          const ddbst__jnode *n, int has_sk,
                          const char *where, ddbst__ekey *k) {
  const ddbst__jnode *pk = ddbst__jobj_get(n, "pk");
  const ddbst__jnode *sk = ddbst__jobj_get(n, "sk");
  if (!pk) {
    report(L, n, "'pk' is required");
  } else {
    size_t old = push(L, "pk");
    compile(L, e, pk, &k->pk);
    pop(L, old);
  }
  if (has_sk && !sk) {
    report(L, n, "'sk' is required: %s has a sort key", where);
  } else if (!has_sk && sk) {
    report_field(L, "sk", sk, "%s has no sort key", where);
  } else if (sk) {
    size_t old = push(L, "sk");
    compile(L, e, sk, &k->sk);
    pop(L, old);
  }
}

static void load_when(loader *L, const ddbst__entity *e, const ddbst__jnode *w,
                      ddbst__ekey *k) {
  size_t old = push(L, "when");
  if (!expect(L, w, DDBST__J_OBJECT,
              "an object of attribute: value (or [values])")) {
    pop(L, old);
    return;
  }
  k->when = alloc_array(L, w->count, sizeof *k->when);
  for (size_t i = 0; i < w->count && k->when; i++) {
    size_t o2 = push(L, w->keys[i]);
    int a = attr_index(e, w->keys[i]);
    const ddbst__jnode *v = w->items[i];
    if (a < 0) {
      report(L, v, "'%s' is not an attribute of %s", w->keys[i], e->name);
      pop(L, o2);
      continue;
    }
    ddbst__cond *c = &k->when[k->nwhen++];
    c->attr = a;
    size_t nv = v->type == DDBST__J_ARRAY ? v->count : 1;
    if (nv == 0) report(L, v, "give at least one value");
    c->values = alloc_array(L, nv, sizeof *c->values);
    c->lens = alloc_array(L, nv, sizeof *c->lens);
    for (size_t j = 0; j < nv && c->values && c->lens; j++) {
      const ddbst__jnode *x = v->type == DDBST__J_ARRAY ? v->items[j] : v;
      size_t len = 0;
      const char *t = canon_literal(L, &e->attrs[a], x, &len);
      if (!t) continue;
      c->values[c->nvalues] = t;
      c->lens[c->nvalues++] = len;
    }
    pop(L, o2);
  }
  pop(L, old);
}

static int find_index(const ddbst_model *m, const char *name) {
  for (int i = 0; i < m->nindexes; i++)
    if (m->indexes[i].name && strcmp(m->indexes[i].name, name) == 0) return i;
  return -1;
}

static void check_not_key_attr(loader *L, const ddbst__attr *a,
                               const ddbst__jnode *at);

/* Adds an attribute the model implies (version, automatic timestamps) unless
 * declared; a declared one must have the right type. */
static int implicit_attr(loader *L, ddbst__entity *e, const char *name,
                         ddbst__type type, const ddbst__jnode *at) {
  int i = attr_index(e, name);
  if (i >= 0) {
    if (e->attrs[i].type != type)
      report(L, at, "'%s' must be declared as %s", name,
             ddbst__type_name(type));
    return i;
  }
  if (!is_identifier(name)) {
    report(L, at, "expected an attribute name");
    return -1;
  }
  ddbst__attr *a = &e->attrs[e->nattrs];
  memset(a, 0, sizeof *a);
  a->name = dup(L, name);
  a->type = type;
  a->precision = DDBST__PREC_MS;
  a->implicit = 1;
  check_not_key_attr(L, a, at);
  return e->nattrs++;
}

static void load_timestamps(loader *L, ddbst__entity *e,
                            const ddbst__jnode *t) {
  e->created_attr = e->updated_attr = -1;
  if (!t) return;
  size_t old = push(L, "timestamps");
  const char *created = NULL, *updated = NULL;
  if (t->type == DDBST__J_BOOL) {
    if (t->boolean) created = "createdAt", updated = "updatedAt";
  } else if (expect(L, t, DDBST__J_OBJECT,
                    "true, or {\"createdAt\": name, \"updatedAt\": name}")) {
    static const char *const fields[] = {"createdAt", "updatedAt", NULL};
    check_fields(L, t, fields);
    const ddbst__jnode *c = get_string(L, t, "createdAt", 0);
    const ddbst__jnode *u = get_string(L, t, "updatedAt", 0);
    created = c ? c->text : NULL;
    updated = u ? u->text : NULL;
  }
  if (created)
    e->created_attr = implicit_attr(L, e, created, DDBST__T_TIMESTAMP, t);
  if (updated)
    e->updated_attr = implicit_attr(L, e, updated, DDBST__T_TIMESTAMP, t);
  pop(L, old);
}

static void mark_primary(ddbst__entity *e, const ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr >= 0) e->attrs[t->segs[i].attr].primary_facet = 1;
}

static int has_own(const ddbst__entity *e, const ddbst__template *t) {
  for (int i = 0; i < t->nsegs; i++)
    if (t->segs[i].attr >= 0 && !e->attrs[t->segs[i].attr].primary_facet)
      return 1;
  return 0;
}

/* An attribute may not shadow a key attribute: writing it would overwrite
 * the key ddbst builds. */
static void check_not_key_attr(loader *L, const ddbst__attr *a,
                               const ddbst__jnode *at) {
  const ddbst_model *m = L->m;
  const char *clash = NULL;
  if (m->pk_attr && strcmp(a->name, m->pk_attr) == 0) clash = "partition key";
  if (m->sk_attr && strcmp(a->name, m->sk_attr) == 0) clash = "sort key";
  if (m->entity_attr && strcmp(a->name, m->entity_attr) == 0)
    clash = "entity attribute";
  for (int i = 0; i < m->nindexes; i++)
    if ((m->indexes[i].pk_attr && strcmp(a->name, m->indexes[i].pk_attr) == 0) ||
        (m->indexes[i].sk_attr && strcmp(a->name, m->indexes[i].sk_attr) == 0))
      clash = "index key attribute";
  if (clash)
    report(L, at,
           "'%s' is the table's %s; ddbst writes it from the key templates",
           a->name, clash);
  if (m->ttl_attr && strcmp(a->name, m->ttl_attr) == 0 &&
      a->type != DDBST__T_TTL && a->type != DDBST__T_INTEGER)
    report(L, at,
           "'%s' is the table's TTL attribute: declare it as ttl or integer "
           "(epoch seconds)",
           a->name);
}

/* The attributes ddbst_item_apply_defaults and ddbst_item_check_required
 * look at, once all are known and the key's facets marked. */
static void list_write_attrs(loader *L, ddbst__entity *e) {
  size_t n = (size_t)e->nattrs;
  e->default_attrs = alloc_array(L, n, sizeof *e->default_attrs);
  e->required_attrs = alloc_array(L, n, sizeof *e->required_attrs);
  if (!e->default_attrs || !e->required_attrs) return;
  for (int i = 0; i < e->nattrs; i++) {
    const ddbst__attr *a = &e->attrs[i];
    if (a->def != DDBST__DEF_NONE || i == e->created_attr ||
        i == e->updated_attr)
      e->default_attrs[e->ndefaults++] = i;
    if (a->required || a->primary_facet)
      e->required_attrs[e->nrequired++] = i;
  }
}

static void load_entity(loader *L, const char *name, const ddbst__jnode *n,
                        ddbst__entity *e) {
  static const char *const fields[] = {"attributes", "key",     "indexes",
                                       "unique",     "version", "timestamps",
                                       "description", NULL};
  ddbst_model *m = L->m;
  e->name = dup(L, name);
  e->name_len = strlen(name);
  e->version_attr = e->created_attr = e->updated_attr = -1;
  e->key.index = -1;
  if (!is_identifier(name))
    report(L, n,
           "an entity name starts with a letter or '_' and holds only "
           "letters, digits, '_' and '-'");
  if (!expect(L, n, DDBST__J_OBJECT, "an object")) return;
  check_fields(L, n, fields);

  const ddbst__jnode *attrs = ddbst__jobj_get(n, "attributes");
  size_t old = push(L, "attributes");
  size_t declared = 0;
  if (!attrs)
    report(L, n, "'attributes' is required");
  else if (expect(L, attrs, DDBST__J_OBJECT, "an object of attributes"))
    declared = attrs->count;
  /* Room for the declared ones and up to three implicit ones. */
  e->attrs = alloc_array(L, declared + 3, sizeof *e->attrs);
  if (!e->attrs) {
    pop(L, old);
    return;
  }
  for (size_t i = 0; i < declared; i++) {
    size_t o2 = push(L, attrs->keys[i]);
    ddbst__attr *a = &e->attrs[e->nattrs++];
    load_attribute(L, attrs->keys[i], attrs->items[i], a);
    if (a->name) check_not_key_attr(L, a, attrs->items[i]);
    pop(L, o2);
  }
  pop(L, old);

  const ddbst__jnode *ver = ddbst__jobj_get(n, "version");
  if (ver) {
    size_t o2 = push(L, "version");
    if (expect(L, ver, DDBST__J_STRING, "an attribute name"))
      e->version_attr = implicit_attr(L, e, ver->text, DDBST__T_INTEGER, ver);
    pop(L, o2);
  }
  load_timestamps(L, e, ddbst__jobj_get(n, "timestamps"));

  const ddbst__jnode *key = ddbst__jobj_get(n, "key");
  old = push(L, "key");
  if (!key) {
    report(L, n, "'key' is required");
  } else if (expect(L, key, DDBST__J_OBJECT, "{\"pk\": ..., \"sk\": ...}")) {
    static const char *const kf[] = {"pk", "sk", NULL};
    check_fields(L, key, kf);
    load_key_pair(L, e, key, m->sk_attr != NULL, "the table", &e->key);
    mark_primary(e, &e->key.pk);
    mark_primary(e, &e->key.sk);
  }
  pop(L, old);

  const ddbst__jnode *ixs = ddbst__jobj_get(n, "indexes");
  if (ixs) {
    old = push(L, "indexes");
    if (expect(L, ixs, DDBST__J_OBJECT, "an object of index keys")) {
      e->indexes = alloc_array(L, ixs->count, sizeof *e->indexes);
      for (size_t i = 0; i < ixs->count && e->indexes; i++) {
        size_t o2 = push(L, ixs->keys[i]);
        const ddbst__jnode *x = ixs->items[i];
        int ix = find_index(m, ixs->keys[i]);
        if (ix < 0) {
          report(L, x,
                 "entity %s is keyed on index %s, which the table does not "
                 "declare (table.indexes)",
                 e->name, ixs->keys[i]);
        } else if (expect(L, x, DDBST__J_OBJECT,
                          "{\"pk\": ..., \"sk\": ..., \"when\": ...}")) {
          static const char *const xf[] = {"pk", "sk", "when", NULL};
          check_fields(L, x, xf);
          ddbst__ekey *k = &e->indexes[e->nindexes++];
          k->index = ix;
          char where[300];
          snprintf(where, sizeof where, "index %s", ixs->keys[i]);
          load_key_pair(L, e, x, m->indexes[ix].sk_attr != NULL, where, k);
          const ddbst__jnode *w = ddbst__jobj_get(x, "when");
          if (w) load_when(L, e, w, k);
        }
        pop(L, o2);
      }
    }
    pop(L, old);
  }
  for (int i = 0; i < e->nindexes; i++)
    e->indexes[i].has_own_facets =
        has_own(e, &e->indexes[i].pk) || has_own(e, &e->indexes[i].sk);

  const ddbst__jnode *uq = ddbst__jobj_get(n, "unique");
  if (uq) {
    old = push(L, "unique");
    if (expect(L, uq, DDBST__J_OBJECT, "an object of name: key template")) {
      e->uniques = alloc_array(L, uq->count, sizeof *e->uniques);
      for (size_t i = 0; i < uq->count && e->uniques; i++) {
        size_t o2 = push(L, uq->keys[i]);
        ddbst__unique *u = &e->uniques[e->nuniques++];
        u->name = dup(L, uq->keys[i]);
        compile(L, e, uq->items[i], &u->tmpl);
        if (u->tmpl.nsegs && u->tmpl.nfacets == 0)
          report(L, uq->items[i],
                 "a unique constraint's template needs a facet, or every "
                 "item would claim the same value");
        pop(L, o2);
      }
    }
    pop(L, old);
  }
  list_write_attrs(L, e);
  if (e->nattrs > m->max_attrs) m->max_attrs = e->nattrs;
}

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

/* A sort key template that is absent matches only the absent sort key. */
static int may_share(const ddbst_model *m, const ddbst__ekey *a,
                     const ddbst__template *a_sk, const ddbst__ekey *b,
                     const ddbst__template *b_sk) {
  return ddbst__templates_may_share(&a->pk, &b->pk, m->delim, m->delim_len) &&
         ddbst__templates_may_share(a_sk, b_sk, m->delim, m->delim_len);
}

/* Keys must say which entity an item is: two entities (or an entity and a
 * unique guard) whose templates could produce the same key are refused. */
static void check_ambiguous_keys(loader *L) {
  const ddbst_model *m = L->m;
  for (int ix = -1; ix < m->nindexes; ix++)
    for (int i = 0; i < m->nentities; i++) {
      const ddbst__entity *ei = &m->entities[i];
      const ddbst__ekey *a = ddbst__entity_key(ei, ix);
      if (!a || !a->pk.nsegs) continue;
      for (int j = 0; j < i; j++) {
        const ddbst__entity *ej = &m->entities[j];
        const ddbst__ekey *b = ddbst__entity_key(ej, ix);
        if (!b || !b->pk.nsegs || !may_share(m, a, &a->sk, b, &b->sk)) continue;
        size_t old = push(L, "entities");
        size_t o2 = push(L, ei->name);
        report(L, NULL,
               "%s and %s can have the same key in %s (%s / %s and %s / %s): "
               "a key could not tell them apart; give them different literals",
               ej->name, ei->name, ix < 0 ? "the table" : m->indexes[ix].name,
               b->pk.source, b->sk.nsegs ? b->sk.source : "-", a->pk.source,
               a->sk.nsegs ? a->sk.source : "-");
        pop(L, o2);
        pop(L, old);
      }
      /* unique guards live in the table, keyed by their template twice */
      for (int j = 0; ix < 0 && j < m->nentities; j++)
        for (int u = 0; u < m->entities[j].nuniques; u++) {
          const ddbst__unique *g = &m->entities[j].uniques[u];
          ddbst__ekey gk;
          memset(&gk, 0, sizeof gk);
          gk.pk = g->tmpl;
          const ddbst__template empty = {.source = NULL};
          if (!may_share(m, a, &a->sk, &gk, m->sk_attr ? &g->tmpl : &empty))
            continue;
          size_t old = push(L, "entities");
          size_t o2 = push(L, m->entities[j].name);
          size_t o3 = push(L, "unique");
          size_t o4 = push(L, g->name);
          report(L, NULL,
                 "the guard items of %s.%s (%s) can have the same key as %s "
                 "items; give the guard template its own literal",
                 m->entities[j].name, g->name, g->tmpl.source, ei->name);
          pop(L, o4);
          pop(L, o3);
          pop(L, o2);
          pop(L, old);
        }
    }
}

/* Whether items that are not the pattern's can fall in its key range: an
 * entity outside it (or a unique guard) whose keys may share its partition
 * and start with the sort-key text the pattern reads. Such a pattern filters
 * on the entity attribute; without one the model is refused. */
static void check_pattern_range(loader *L, ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  if (p->op != DDBST__OP_QUERY || p->nentities == 0) return;
  const ddbst__entity *first = &m->entities[p->entities[0]];
  const ddbst__ekey *k = ddbst__entity_key(first, p->index);
  if (!k) return;
  /* the literal start every entity of the pattern shares */
  char q[DDBST__SK_MAX];
  size_t qn = 0;
  const ddbst__seg *s0 = k->sk.nsegs ? &k->sk.segs[0] : NULL;
  if (s0 && s0->attr < 0 && s0->len <= sizeof q) {
    memcpy(q, s0->text, s0->len);
    qn = s0->len;
  }
  for (int i = 1; i < p->nentities; i++) {
    const ddbst__ekey *o =
        ddbst__entity_key(&m->entities[p->entities[i]], p->index);
    const ddbst__seg *t0 = o && o->sk.nsegs ? &o->sk.segs[0] : NULL;
    size_t l = t0 && t0->attr < 0 ? t0->len : 0, n = 0;
    while (n < qn && n < l && q[n] == t0->text[n]) n++;
    qn = n;
  }
  const char *intruder = NULL;
  for (int e = 0; e < m->nentities && !intruder; e++) {
    int mine = 0;
    for (int i = 0; i < p->nentities; i++) mine |= p->entities[i] == e;
    const ddbst__ekey *o = ddbst__entity_key(&m->entities[e], p->index);
    if (mine || !o) continue;
    if (ddbst__templates_may_share(&k->pk, &o->pk, m->delim, m->delim_len) &&
        (!o->sk.nsegs ||
         ddbst__template_may_start_with(&o->sk, q, qn, m->delim, m->delim_len)))
      intruder = m->entities[e].name;
  }
  for (int e = 0; p->index < 0 && e < m->nentities && !intruder; e++)
    for (int u = 0; u < m->entities[e].nuniques && !intruder; u++) {
      const ddbst__template *g = &m->entities[e].uniques[u].tmpl;
      if (ddbst__templates_may_share(&k->pk, g, m->delim, m->delim_len) &&
          ddbst__template_may_start_with(g, q, qn, m->delim, m->delim_len))
        intruder = "a unique guard";
    }
  if (!intruder) return;
  if (m->entity_attr) {
    p->type_filter = 1;
    return;
  }
  report(L, NULL,
         "%s items can fall in the key range %s reads (its sort keys start "
         "with '%.*s'); give them different literals, or declare "
         "table.entityAttribute so the query can filter them out",
         intruder, p->name, (int)qn, q);
}

/* ---- patterns ---- */


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

static uint32_t get_limit(loader *L, const ddbst__jnode *lim,
                          const char *field) {
  const ddbst__jnode *v = ddbst__jobj_get(lim, field);
  if (!v) return 0;
  int64_t x = 0;
  if (v->type != DDBST__J_NUMBER || ddbst__int_parse(v->text, v->len, &x) ||
      x < 1 || x > 1000000) {
    report_field(L, field, v, "expected a whole number from 1 to 1000000");
    return 0;
  }
  return (uint32_t)x;
}

/* "filter": {"attribute": value or [values]}, conditions applied after the
 * read. Every entity of the pattern must declare the attribute; values are
 * canonical for the first entity's type. */
static void load_pattern_filter(loader *L, const ddbst__jnode *f,
                                ddbst__pattern *p) {
  const ddbst_model *m = L->m;
  size_t old = push(L, "filter");
  if (!expect(L, f, DDBST__J_OBJECT,
              "an object of attribute: value (or [values])")) {
    pop(L, old);
    return;
  }
  if (f->count == 0) report(L, f, "give at least one attribute");
  p->filter = alloc_array(L, f->count, sizeof *p->filter);
  for (size_t i = 0; i < f->count && p->filter && p->nentities; i++) {
    size_t o2 = push(L, f->keys[i]);
    const ddbst__jnode *v = f->items[i];
    int a = -1, ok = 1;
    for (int j = 0; j < p->nentities; j++) {
      const ddbst__entity *e = &m->entities[p->entities[j]];
      int here = attr_index(e, f->keys[i]);
      if (here < 0) {
        report(L, v, "'%s' is not an attribute of %s", f->keys[i], e->name);
        ok = 0;
      } else if (j == 0) {
        a = here;
      }
    }
    const ddbst__entity *first = &m->entities[p->entities[0]];
    if (ok && !ddbst__type_is_key(first->attrs[a].type) &&
        first->attrs[a].type != DDBST__T_NUMBER) {
      report(L, v, "a filter compares a scalar: '%s' is a %s", f->keys[i],
             ddbst__type_name(first->attrs[a].type));
      ok = 0;
    }
    size_t nv = v->type == DDBST__J_ARRAY ? v->count : 1;
    if (ok && nv == 0) {
      report(L, v, "give at least one value");
      ok = 0;
    }
    if (ok) {
      ddbst__cond *c = &p->filter[p->nfilter++];
      c->attr = a;
      c->values = alloc_array(L, nv, sizeof *c->values);
      c->lens = alloc_array(L, nv, sizeof *c->lens);
      for (size_t j = 0; j < nv && c->values && c->lens; j++) {
        const ddbst__jnode *x = v->type == DDBST__J_ARRAY ? v->items[j] : v;
        size_t len = 0;
        const char *text = canon_literal(L, &first->attrs[a], x, &len);
        if (!text) continue;
        c->values[c->nvalues] = text;
        c->lens[c->nvalues++] = len;
      }
    }
    pop(L, o2);
  }
  pop(L, old);
}

/* What lint and doc read beyond the request shape: whether the pattern
 * relies on order, the filter, the description; and what a scan refuses. */
static void load_pattern_review(loader *L, const ddbst__jnode *n,
                                ddbst__pattern *p) {
  if (p->op == DDBST__OP_SCAN &&
      (ddbst__jobj_get(n, "range") || ddbst__jobj_get(n, "order")))
    report(L, n, "a scan has no key order: 'range' and 'order' do not apply");
  p->ordered = ddbst__jobj_get(n, "order") || ddbst__jobj_get(n, "range");
  const ddbst__jnode *f = ddbst__jobj_get(n, "filter");
  if (f && p->op == DDBST__OP_GET)
    report_field(L, "filter", f, "GetItem reads one item: it takes no filter");
  else if (f)
    load_pattern_filter(L, f, p);
  const ddbst__jnode *d = get_string(L, n, "description", 0);
  if (d) p->description = dup(L, d->text);
}

static void load_pattern(loader *L, const char *name, const ddbst__jnode *n,
                         ddbst__pattern *p) {
  static const char *const fields[] = {"get",   "query", "scan",
                                       "index", "range", "order",
                                       "limit", "filter", "description",
                                       NULL};
  ddbst_model *m = L->m;
  p->name = dup(L, name);
  p->index = -1;
  p->range = -1;
  if (!is_identifier(name))
    report(L, n,
           "a pattern name starts with a letter or '_' and holds only "
           "letters, digits, '_' and '-'");
  if (!expect(L, n, DDBST__J_OBJECT, "an object")) return;
  check_fields(L, n, fields);
  const ddbst__jnode *get = ddbst__jobj_get(n, "get");
  const ddbst__jnode *query = ddbst__jobj_get(n, "query");
  const ddbst__jnode *scan = ddbst__jobj_get(n, "scan");
  if (!!get + !!query + !!scan != 1) {
    report(L, n, "give exactly one of 'get' (an entity) or 'query' (an "
                 "entity or a list of entities), or 'scan' (the same, read "
                 "without a key)");
    return;
  }
  p->op = get ? DDBST__OP_GET : query ? DDBST__OP_QUERY : DDBST__OP_SCAN;
  const ddbst__jnode *what = get ? get : query ? query : scan;
  const char *field = get ? "get" : query ? "query" : "scan";
  size_t old = push(L, field);
  size_t count = what->type == DDBST__J_ARRAY ? what->count : 1;
  if (get && what->type != DDBST__J_STRING) {
    report(L, what, "expected an entity name");
    count = 0;
  } else if (what->type != DDBST__J_STRING && what->type != DDBST__J_ARRAY) {
    report(L, what, "expected an entity name or a list of them");
    count = 0;
  } else if (count == 0) {
    report(L, what, "a collection lists at least one entity");
  }
  p->entities = alloc_array(L, count, sizeof *p->entities);
  for (size_t i = 0; i < count && p->entities; i++) {
    const ddbst__jnode *x = what->type == DDBST__J_ARRAY ? what->items[i] : what;
    int e = -1;
    if (x->type == DDBST__J_STRING)
      for (int j = 0; j < m->nentities; j++)
        if (m->entities[j].name && strcmp(m->entities[j].name, x->text) == 0)
          e = j;
    if (e < 0) {
      report(L, x, "'%s' is not an entity of the model",
             x->type == DDBST__J_STRING ? x->text : "?");
      continue;
    }
    p->entities[p->nentities++] = e;
  }
  pop(L, old);

  const ddbst__jnode *ixn = get_string(L, n, "index", 0);
  if (ixn) {
    if (get)
      report_field(L, "index", ixn,
                   "GetItem reads only the table; query an index instead");
    p->index = find_index(m, ixn->text);
    if (p->index < 0)
      report_field(L, "index", ixn, "the table declares no index %s",
                   ixn->text);
  }
  if (get && (ddbst__jobj_get(n, "range") || ddbst__jobj_get(n, "order") ||
              ddbst__jobj_get(n, "limit")))
    report(L, n, "'range', 'order' and 'limit' apply to queries only");
  load_pattern_review(L, n, p);

  int has_sk = p->index < 0 ? m->sk_attr != NULL
                            : m->indexes[p->index].sk_attr != NULL;
  const ddbst__entity *first = NULL;
  const ddbst__ekey *first_key = NULL;
  for (int i = 0; i < p->nentities; i++) {
    const ddbst__entity *e = &m->entities[p->entities[i]];
    const ddbst__ekey *k = ddbst__entity_key(e, p->index);
    if (!k) {
      report_field(L, "index", ixn,
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
      report_field(L, field, what,
                   "a collection reads one partition, but %s's partition key "
                   "%s differs from %s's %s",
                   e->name, k->pk.source, first->name, first_key->pk.source);
    }
  }

  const ddbst__jnode *range = get_string(L, n, "range", 0);
  if (range && first_key) {
    if (!has_sk) {
      report_field(L, "range", range, "a key without a sort key has no range");
    } else if (p->nentities > 1) {
      report_field(L, "range", range,
                   "a range applies to one entity's sort key, not a "
                   "collection");
    } else {
      int a = attr_index(first, range->text);
      int in_sk = 0;
      for (int i = 0; a >= 0 && i < first_key->sk.nsegs; i++)
        if (first_key->sk.segs[i].attr == a) in_sk = 1;
      if (!in_sk)
        report_field(L, "range", range,
                     "'%s' is not a facet of %s's sort key %s", range->text,
                     first->name, first_key->sk.source);
      else
        p->range = a;
    }
  }

  const ddbst__jnode *order = get_string(L, n, "order", 0);
  if (order) {
    if (strcmp(order->text, "desc") == 0)
      p->descending = 1;
    else if (strcmp(order->text, "asc") != 0)
      report_field(L, "order", order, "expected \"asc\" or \"desc\"");
  }
  const ddbst__jnode *lim = ddbst__jobj_get(n, "limit");
  if (lim && !get) {
    old = push(L, "limit");
    if (expect(L, lim, DDBST__J_OBJECT, "{\"default\": n, \"max\": n}")) {
      static const char *const lf[] = {"default", "max", NULL};
      check_fields(L, lim, lf);
      p->limit_default = get_limit(L, lim, "default");
      p->limit_max = get_limit(L, lim, "max");
      if (p->limit_default && p->limit_max && p->limit_default > p->limit_max)
        report(L, lim, "the default limit %u is above the maximum %u",
               p->limit_default, p->limit_max);
    }
    pop(L, old);
  }
}

/* ---- the whole file ---- */

static void load_root(loader *L, const ddbst__jnode *root,
                      const char *name_override) {
  static const char *const fields[] = {"ddbst", "description", "table",
                                       "entities", "patterns", NULL};
  ddbst_model *m = L->m;
  if (!expect(L, root, DDBST__J_OBJECT, "a JSON object at the top")) return;
  check_fields(L, root, fields);

  const ddbst__jnode *v = ddbst__jobj_get(root, "ddbst");
  if (!v)
    report(L, root, "'ddbst': %d is required (the model format version)",
           DDBST_MODEL_FORMAT);
  else if (v->type == DDBST__J_STRING)
    report_field(L, "ddbst", v,
                 "the format version is a number: write %d, not a string",
                 DDBST_MODEL_FORMAT);
  else if (v->type != DDBST__J_NUMBER || strcmp(v->text, "1") != 0)
    report_field(L, "ddbst", v,
                 "this library reads model format %d; the file says %s",
                 DDBST_MODEL_FORMAT, v->text ? v->text : jtype_name(v->type));

  const ddbst__jnode *desc = get_string(L, root, "description", 0);
  if (desc) m->description = dup(L, desc->text);

  const ddbst__jnode *t = ddbst__jobj_get(root, "table");
  size_t old = push(L, "table");
  if (!t)
    report(L, root, "'table' is required");
  else
    load_table(L, t, name_override);
  pop(L, old);
  if (!m->delim) {
    m->delim = "#";
    m->delim_len = 1;
  }

  const ddbst__jnode *es = ddbst__jobj_get(root, "entities");
  old = push(L, "entities");
  if (!es) {
    report(L, root, "'entities' is required");
  } else if (expect(L, es, DDBST__J_OBJECT, "an object of entities")) {
    if (es->count == 0) report(L, es, "declare at least one entity");
    m->entities = alloc_array(L, es->count, sizeof *m->entities);
    for (size_t i = 0; i < es->count && m->entities; i++) {
      size_t o2 = push(L, es->keys[i]);
      load_entity(L, es->keys[i], es->items[i], &m->entities[m->nentities++]);
      pop(L, o2);
    }
  }
  pop(L, old);
  if (L->nerrors == 0) check_ambiguous_keys(L);

  const ddbst__jnode *ps = ddbst__jobj_get(root, "patterns");
  if (ps) {
    old = push(L, "patterns");
    if (expect(L, ps, DDBST__J_OBJECT, "an object of access patterns")) {
      m->patterns = alloc_array(L, ps->count, sizeof *m->patterns);
      for (size_t i = 0; i < ps->count && m->patterns; i++) {
        size_t o2 = push(L, ps->keys[i]);
        load_pattern(L, ps->keys[i], ps->items[i],
                     &m->patterns[m->npatterns++]);
        if (L->nerrors == 0) check_pattern_range(L, &m->patterns[m->npatterns - 1]);
        pop(L, o2);
      }
    }
    pop(L, old);
  }
}

/* One piece of JSON text fixed at load: `prefix` then `name` as a JSON
 * string then `suffix`, copied into the model's arena. */
static int fixed_json(ddbst_model *m, ddbst_buf *tmp, const char *prefix,
                      const char *name, const char *suffix, ddbst__jtext *out) {
  if (!name) return 0;
  ddbst_buf_reset(tmp);
  if (ddbst__buf_puts(tmp, prefix) ||
      ddbst__json_string(tmp, name, strlen(name)) ||
      ddbst__buf_puts(tmp, suffix))
    return DDBST_ENOMEM;
  out->p = ddbst__arena_strndup(&m->arena, tmp->data, tmp->len);
  out->n = (uint32_t)tmp->len;
  out->raw_len = (uint32_t)strlen(name);
  return out->p ? 0 : DDBST_ENOMEM;
}

/* A ddbst__name and its JSON text, laid out one after the other. */
static size_t name_entry_size(size_t len, size_t json_len) {
  size_t n = sizeof(ddbst__name) + len + 1 + json_len;
  return (n + _Alignof(ddbst__name) - 1) / _Alignof(ddbst__name) *
         _Alignof(ddbst__name);
}

/* Interns the names expressions write (see ddbst_model.names_lo): one entry
 * per distinct name, in one block, and every name field re-pointed at its
 * entry's text. */
static int intern_names(ddbst_model *m, ddbst_buf *tmp) {
  size_t cap = 3 + 2 * (size_t)m->nindexes;
  for (int e = 0; e < m->nentities; e++) cap += (size_t)m->entities[e].nattrs;
  const char ***slots = ddbst__malloc(&m->alloc, cap * sizeof *slots);
  if (!slots) return DDBST_ENOMEM;
  size_t n = 0;
  slots[n++] = &m->pk_attr;
  slots[n++] = &m->sk_attr;
  slots[n++] = &m->entity_attr;
  for (int i = 0; i < m->nindexes; i++) {
    slots[n++] = &m->indexes[i].pk_attr;
    slots[n++] = &m->indexes[i].sk_attr;
  }
  for (int e = 0; e < m->nentities; e++)
    for (int a = 0; a < m->entities[e].nattrs; a++)
      slots[n++] = &m->entities[e].attrs[a].name;

  /* room for an entry per slot: repeated names over-count a little */
  int rc = 0;
  size_t bytes = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    if (!*slots[i]) continue;
    size_t len = strlen(*slots[i]);
    ddbst_buf_reset(tmp);
    rc = ddbst__json_string(tmp, *slots[i], len);
    bytes += name_entry_size(len, tmp->len);
  }
  char *block = rc ? NULL : ddbst__arena_alloc(&m->arena, bytes);
  m->name_list = block ? ddbst__arena_alloc(&m->arena, n * sizeof *m->name_list)
                       : NULL;
  if (!m->name_list) rc = DDBST_ENOMEM;
  char *at = block;
  for (size_t i = 0; !rc && i < n; i++) {
    const char *name = *slots[i];
    if (!name) continue;
    const ddbst__name *found = NULL;
    for (int j = 0; !found && j < m->nnames; j++)
      if (strcmp(m->name_list[j]->text, name) == 0) found = m->name_list[j];
    if (!found) {
      size_t len = strlen(name);
      ddbst_buf_reset(tmp);
      rc = ddbst__json_string(tmp, name, len);
      if (rc) break;
      ddbst__name *nm = (ddbst__name *)(void *)at;
      memcpy(nm->text, name, len + 1);
      char *json = nm->text + len + 1;
      memcpy(json, tmp->data, tmp->len);
      nm->json.p = json;
      nm->json.n = (uint32_t)tmp->len;
      nm->json.raw_len = (uint32_t)len;
      at += name_entry_size(len, tmp->len);
      m->name_list[m->nnames++] = found = nm;
    }
    *slots[i] = found->text;
  }
  m->names_lo = block;
  m->names_hi = at;
  ddbst__free(&m->alloc, slots);
  return rc;
}

/* The start of each query pattern's body and its collection's common sort
 * key start: what ddbst_query_request would otherwise derive per call. */
static int prepare_queries(ddbst_model *m) {
  ddbst_buf tmp;
  ddbst__buf_init(&tmp, &m->alloc);
  int rc = 0;
  for (int i = 0; !rc && i < m->npatterns; i++) {
    ddbst__pattern *p = &m->patterns[i];
    if (p->op != DDBST__OP_QUERY) continue;
    ddbst_buf_reset(&tmp);
    rc = ddbst__buf_append(&tmp, m->begin.p, m->begin.n);
    if (!rc && p->index >= 0) {
      const char *ix = m->indexes[p->index].name;
      rc = ddbst__buf_puts(&tmp, ",\"IndexName\":");
      rc = rc ? rc : ddbst__json_string(&tmp, ix, strlen(ix));
    }
    rc = rc ? rc
            : ddbst__buf_puts(&tmp, ",\"KeyConditionExpression\":\"#n0 = :v0");
    if (rc) break;
    p->query_head.p = ddbst__arena_strndup(&m->arena, tmp.data, tmp.len);
    p->query_head.n = (uint32_t)tmp.len;
    if (!p->query_head.p) rc = DDBST_ENOMEM;

    const char *sk_attr = p->index >= 0 ? m->indexes[p->index].sk_attr
                                        : m->sk_attr;
    if (p->nentities < 2 || !sk_attr) continue;
    const ddbst__seg *s0 = NULL;
    size_t common = 0;
    for (int j = 0; j < p->nentities; j++) {
      const ddbst__entity *o = &m->entities[p->entities[j]];
      const ddbst__ekey *k = ddbst__entity_key(o, p->index); /* never NULL */
      const ddbst__seg *t0 = &k->sk.segs[0];
      size_t l = t0->attr < 0 ? t0->len : 0;
      if (!s0) {
        s0 = t0;
        common = l;
        continue;
      }
      size_t c = 0;
      while (c < common && c < l && s0->text[c] == t0->text[c]) c++;
      common = c;
    }
    p->sk_common = common ? s0->text : NULL;
    p->sk_common_len = (uint32_t)common;
  }
  ddbst__buf_release(&tmp);
  return rc;
}

/* The scan (ddbst__scan, bytes.h) a value of an alphabet gets without
 * looking at it: nothing to escape, and no delimiter when the alphabet lacks
 * its first byte; else 0, unknown, for an exotic delimiter ("-", a digit)
 * that only the value itself can say it holds. */
static unsigned char alphabet_scan(const char *alphabet, unsigned char d0) {
  return ddbst__scan(alphabet, strlen(alphabet), d0) ? 0 : DDBST__SCAN_KNOWN;
}

/* What keys and JSON ask of the values whose text load already knows (enum
 * values) or whose alphabet is fixed (canonical timestamps, ULIDs), for this
 * model's delimiter: setting them then records it for free. */
static int note_scans(ddbst_model *m) {
  unsigned char d0 = (unsigned char)m->delim[0];
  m->ts_scan = alphabet_scan("0123456789-:.TZ", d0);
  m->ulid_scan = alphabet_scan("0123456789ABCDEFGHJKMNPQRSTVWXYZ", d0);
  for (int e = 0; e < m->nentities; e++)
    for (int i = 0; i < m->entities[e].nattrs; i++) {
      ddbst__attr *a = &m->entities[e].attrs[i];
      if (a->type != DDBST__T_ENUM || !a->nvalues) continue;
      a->value_scans = ddbst__arena_alloc(&m->arena, a->nvalues);
      if (!a->value_scans) return DDBST_ENOMEM;
      for (size_t v = 0; v < a->nvalues; v++)
        a->value_scans[v] =
            (unsigned char)(DDBST__SCAN_KNOWN |
                            ddbst__scan(a->values[v], a->value_lens[v], d0));
    }
  return 0;
}

/* The text of a run (ddbst__jrun) up to the next facet (or the end), into
 * the arena: the run's head, or the last piece's text after its facet. */
static int end_text(ddbst_model *m, ddbst_buf *pending, ddbst__jrun *out) {
  const char *text =
      ddbst__arena_strndup(&m->arena, pending->data, pending->len);
  if (!text) return DDBST_ENOMEM;
  if (out->npieces == 0) {
    out->head = text;
    out->head_len = (uint32_t)pending->len;
  } else {
    out->pieces[out->npieces - 1].lit = text;
    out->pieces[out->npieces - 1].lit_len = (uint32_t)pending->len;
  }
  ddbst_buf_reset(pending);
  return 0;
}

/* `ek`'s keys, named `pk_jname` and `sk_jname` (NULL: no sort key), as one
 * run of the keys object (ddbst__jrun). */
static int make_jrun(ddbst_model *m, ddbst_buf *pending, const ddbst__ekey *ek,
                     const ddbst__jtext *pk_jname, const ddbst__jtext *sk_jname,
                     ddbst__jrun *out) {
  memset(out, 0, sizeof *out);
  const ddbst__template *ts[2] = {&ek->pk, &ek->sk};
  const ddbst__jtext *names[2] = {pk_jname, sk_jname};
  int nkeys = sk_jname ? 2 : 1;
  if (!ek->pk.simple || (sk_jname && !ek->sk.simple)) return 0;
  out->pieces = ddbst__arena_alloc(
      &m->arena, (size_t)(ek->pk.nfacets + ek->sk.nfacets) * sizeof *out->pieces);
  if (!out->pieces) return DDBST_ENOMEM;
  ddbst_buf_reset(pending);
  for (int k = 0; k < nkeys; k++) {
    const ddbst__template *t = ts[k];
    out->lits[k] = t->literal_len;
    if (ddbst__buf_append(pending, names[k]->p, names[k]->n) ||
        ddbst__buf_putc(pending, '"'))
      return DDBST_ENOMEM;
    for (int g = 0; g < t->nsegs; g++) {
      if (t->segs[g].attr < 0) {
        if (ddbst__buf_append(pending, t->segs[g].text, t->segs[g].len))
          return DDBST_ENOMEM;
        continue;
      }
      /* a facet: the text so far is the head, or the last piece's */
      if (end_text(m, pending, out)) return DDBST_ENOMEM;
      out->pieces[out->npieces++] = (ddbst__jpiece){NULL, 0, t->segs[g].attr,
                                                    k};
    }
    if (ddbst__buf_append(pending, "\",", 2)) return DDBST_ENOMEM;
  }
  return end_text(m, pending, out);
}

/* Each entity's bound on the text of its keys (ddbst__entity.keys_fixed):
 * the templates of its table key and of each index it is in; and each
 * pair of simple keys as a run of the keys object (ddbst__jrun). */
static int size_keys(ddbst_model *m) {
  ddbst_buf tmp;
  ddbst__buf_init(&tmp, &m->alloc);
  int rc = 0;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    rc = make_jrun(m, &tmp, &en->key, &m->pk_jname,
                   m->sk_attr ? &m->sk_jname : NULL, &en->key.jrun);
    en->keys_simple = en->key.jrun.head != NULL;
    for (int i = 0; !rc && i < en->nindexes; i++) {
      ddbst__ekey *k = &en->indexes[i];
      const ddbst__index *ix = &m->indexes[k->index];
      rc = make_jrun(m, &tmp, k, &ix->pk_jname,
                     ix->sk_attr ? &ix->sk_jname : NULL, &k->jrun);
      en->keys_simple &= k->jrun.head != NULL;
    }
  }
  ddbst__buf_release(&tmp);
  if (rc) return rc;
  /* one scratch count per attribute, for every entity in turn */
  size_t nuses = m->max_attrs ? (size_t)m->max_attrs : 1;
  int *uses = ddbst__malloc(&m->alloc, nuses * sizeof *uses);
  if (!uses) return DDBST_ENOMEM;
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    memset(uses, 0, nuses * sizeof *uses);
    en->keys_fixed = en->name_len + 1;
    for (int k = -1; k < en->nindexes; k++) {
      const ddbst__ekey *ek = k < 0 ? &en->key : &en->indexes[k];
      const ddbst__template *ts[2] = {&ek->pk, &ek->sk};
      for (int i = 0; i < 2; i++) {
        if (ts[i]->nsegs == 0) continue;
        en->keys_fixed += ts[i]->literal_len + 1;
        for (int g = 0; g < ts[i]->nsegs; g++)
          if (ts[i]->segs[g].attr >= 0) uses[ts[i]->segs[g].attr]++;
      }
    }
    int n = 0;
    for (int a = 0; a < en->nattrs; a++) n += uses[a] > 0;
    en->key_facets = ddbst__arena_alloc(&m->arena, 2 * (size_t)n * sizeof(int));
    if (!en->key_facets) {
      rc = DDBST_ENOMEM;
      break;
    }
    en->key_facet_uses = en->key_facets + n;
    for (int a = 0; a < en->nattrs; a++)
      if (uses[a]) {
        en->key_facets[en->nkey_facets] = a;
        en->key_facet_uses[en->nkey_facets++] = uses[a];
        en->key_uses += (size_t)uses[a];
      }
  }
  ddbst__free(&m->alloc, uses);
  return rc;
}

/* The names request bodies write, as ready JSON text. */
static int fix_json_names(ddbst_model *m) {
  ddbst_buf tmp, owner; /* owner: "User.email" of a unique guard */
  ddbst__buf_init(&tmp, &m->alloc);
  ddbst__buf_init(&owner, &m->alloc);
  int rc = intern_names(m, &tmp);
  rc = rc ? rc
          : fixed_json(m, &tmp, "{\"TableName\":", m->table_name, "",
                       &m->begin);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->pk_attr, ":", &m->pk_jname);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->sk_attr, ":", &m->sk_jname);
  rc = rc ? rc : fixed_json(m, &tmp, "", m->entity_attr, ":", &m->entity_jname);
  m->keys_json_names = 2 + m->pk_jname.n + m->sk_jname.n +
                       m->entity_jname.n + 3 * 3;
  for (int i = 0; !rc && i < m->nindexes; i++) {
    ddbst__index *ix = &m->indexes[i];
    rc = fixed_json(m, &tmp, "", ix->pk_attr, ":", &ix->pk_jname);
    rc = rc ? rc : fixed_json(m, &tmp, "", ix->sk_attr, ":", &ix->sk_jname);
    m->keys_json_names += ix->pk_jname.n + ix->sk_jname.n + 3 * 2;
  }
  for (int e = 0; !rc && e < m->nentities; e++) {
    ddbst__entity *en = &m->entities[e];
    for (int a = 0; !rc && a < en->nattrs; a++)
      rc = fixed_json(m, &tmp, "", en->attrs[a].name, ":", &en->attrs[a].jname);
    if (!rc && m->entity_attr)
      rc = fixed_json(m, &tmp, m->entity_jname.p, en->name, ",",
                      &en->type_json);
    for (int u = 0; !rc && u < en->nuniques; u++) {
      ddbst_buf_reset(&owner);
      if (ddbst__buf_puts(&owner, en->name) || ddbst__buf_putc(&owner, '.') ||
          ddbst__buf_puts(&owner, en->uniques[u].name))
        rc = DDBST_ENOMEM;
      rc = rc ? rc
              : fixed_json(m, &tmp, "{\"S\":", owner.data, "}",
                           &en->uniques[u].owner);
    }
  }
  ddbst__buf_release(&tmp);
  ddbst__buf_release(&owner);
  return rc;
}

int ddbst_model_load(const char *json, size_t len,
                     const ddbst_load_options *opts, ddbst_model **out,
                     ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "out is NULL");
  *out = NULL;
  if (!json && len) return ddbst__fail(err, DDBST_EINVAL, NULL, "json is NULL");
  if (opts && opts->size < sizeof(uint32_t) * 2)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "ddbst_load_options.size is not set");
  /* Fields past what the caller's struct holds read as zero. */
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  if (opts)
    memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);

  ddbst_allocator alloc;
  ddbst__alloc_init(&alloc, o.allocator);
  ddbst_model *m = ddbst__malloc(&alloc, sizeof *m);
  if (!m) return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(m, 0, sizeof *m);
  m->alloc = alloc;
  ddbst__arena_init(&m->arena, &m->alloc);

  ddbst__arena tree;
  ddbst__arena_init(&tree, &m->alloc);
  ddbst__jnode *root = NULL;
  ddbst_error syntax;
  int rc = ddbst__jtree_parse(&tree, json ? json : "", len, &root, &syntax);
  if (rc) {
    if (err) *err = syntax;
    if (rc != DDBST_ENOMEM && o.on_error) o.on_error(o.on_error_user, &syntax);
    ddbst__arena_free(&tree);
    ddbst_model_free(m);
    return rc;
  }

  loader L;
  memset(&L, 0, sizeof L);
  L.m = m;
  L.json = json;
  L.len = len;
  L.err = err;
  L.on_error = o.on_error;
  L.on_error_user = o.on_error_user;
  load_root(&L, root, o.table_name);
  ddbst__arena_free(&tree);

  if (!L.nomem && L.nerrors == 0 && fix_json_names(m)) L.nomem = 1;
  if (!L.nomem && L.nerrors == 0 && note_scans(m)) L.nomem = 1;
  if (!L.nomem && L.nerrors == 0 && size_keys(m)) L.nomem = 1;
  if (!L.nomem && L.nerrors == 0 && prepare_queries(m)) L.nomem = 1;
  if (!L.nomem && L.nerrors == 0) {
    m->ulid = ddbst__arena_alloc(&m->arena, sizeof *m->ulid);
    if (m->ulid) memset(m->ulid, 0, sizeof *m->ulid);
    if (!m->ulid || pthread_mutex_init(&m->ulid->lock, NULL) != 0) {
      m->ulid = NULL;
      L.nomem = 1;
    } else if (ddbst__fork_lock_add(&m->ulid->fork, &m->ulid->lock)) {
      L.nomem = 1; /* ddbst_model_free undoes both */
    }
  }
  if (L.nomem) {
    ddbst_model_free(m);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  if (L.nerrors) {
    ddbst_model_free(m);
    return DDBST_EMODEL;
  }
  *out = m;
  return 0;
}

int ddbst_model_load_file(const char *path, const ddbst_load_options *opts,
                          ddbst_model **out, ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "out is NULL");
  *out = NULL;
  if (!path) return ddbst__fail(err, DDBST_EINVAL, NULL, "path is NULL");
  ddbst_allocator alloc;
  ddbst__alloc_init(&alloc, opts && opts->size >= offsetof(ddbst_load_options,
                                                           on_error)
                                ? opts->allocator
                                : NULL);
  FILE *f = fopen(path, "rb");
  if (!f)
    return ddbst__fail(err, DDBST_EIO, path, "cannot open %s", path);
  ddbst_buf b;
  ddbst__buf_init(&b, &alloc);
  char chunk[8192];
  size_t n;
  int rc = 0;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (ddbst__buf_append(&b, chunk, n)) {
      rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
      break;
    }
  if (!rc && ferror(f)) rc = ddbst__fail(err, DDBST_EIO, path, "cannot read %s", path);
  fclose(f);
  if (!rc) rc = ddbst_model_load(b.data ? b.data : "", b.len, opts, out, err);
  ddbst__buf_release(&b);
  return rc;
}
