/* entities.<name>: attributes (types, options, defaults), the keys of the
 * table and of each index the entity is in, membership conditions, unique
 * constraints, the version and automatic timestamps; and what a write then
 * visits (defaults, required attributes). */
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "model/facet.h"
#include "model/load.h"
#include "model/suggest.h"

/* ---- attributes ---- */

static int parse_type(ddbst__loader *L, const ddbst__jnode *n, ddbst__type *t) {
  if (n->type == DDBST__J_STRING && ddbst__type_parse(n->text, t)) return 1;
  const char *meant =
      n->type == DDBST__J_STRING ? ddbst__type_suggest(n->text) : NULL;
  if (meant) {
    ddbst__load_report(L, n, "unknown type '%s'; did you mean %s?", n->text,
                       meant);
    return 0;
  }
  ddbst__load_report(
      L, n,
      "unknown type (expected string, number, integer, boolean, timestamp, "
      "ulid, enum, ttl, list, map, string_set, number_set or binary)");
  return 0;
}

static int get_bool(ddbst__loader *L, const ddbst__jnode *n,
                    const char *field) {
  if (!n) return 0;
  if (n->type != DDBST__J_BOOL) {
    ddbst__load_report_field(L, field, n, "expected true or false");
    return 0;
  }
  return n->boolean;
}

/* An option that only some types take: `n`, member `field`. */
static int type_takes(ddbst__loader *L, const ddbst__jnode *n,
                      const char *field, const ddbst__attr *a, int allowed) {
  if (!n) return 0;
  if (!allowed) {
    ddbst__load_report_field(L, field, n, "a %s attribute has no '%s'",
                             ddbst__type_name(a->type), field);
    return 0;
  }
  return 1;
}

static void load_attribute(ddbst__loader *L, const char *name,
                           const ddbst__jnode *n, ddbst__attr *a) {
  static const char *const fields[] = {
      "type",  "required", "default", "precision",   "width",
      "negative", "values", "escape", "description", "normalize", NULL};
  enum { F_TYPE, F_REQUIRED, F_DEFAULT, F_PRECISION, F_WIDTH, F_NEGATIVE,
         F_VALUES, F_ESCAPE, F_DESCRIPTION, F_NORMALIZE, NFIELDS };
  a->name = ddbst__load_dup(L, name);
  if (!a->name) return;
  a->precision = DDBST__PREC_S;
  if (!ddbst__is_identifier(name))
    ddbst__load_report(
        L, n,
        "an attribute name starts with a letter or '_' and holds only "
        "letters, digits, '_' and '-'");
  if (n->type == DDBST__J_STRING) {
    parse_type(L, n, &a->type);
    if (a->type == DDBST__T_ENUM)
      ddbst__load_report(L, n,
                         "an enum needs its values: {\"type\": \"enum\", "
                         "\"values\": [...]}");
    return;
  }
  if (!ddbst__load_expect(L, n, DDBST__J_OBJECT, "a type name or an object"))
    return;
  const ddbst__jnode *got[NFIELDS];
  ddbst__load_fields(L, n, fields, got);
  const ddbst__jnode *note =
      ddbst__load_string_of(L, n, "description", got[F_DESCRIPTION], 0);
  if (note) a->description = ddbst__load_dup(L, note->text);
  const ddbst__jnode *t = got[F_TYPE];
  if (!t) {
    if (!ddbst__load_misspelt(L, n, "type"))
      ddbst__load_report(L, n, "'type' is required");
    return;
  }
  size_t old = ddbst__load_push(L, "type");
  int typed = parse_type(L, t, &a->type);
  ddbst__load_pop(L, old);
  if (!typed) return;
  a->required = get_bool(L, got[F_REQUIRED], "required");

  if (type_takes(L, got[F_PRECISION], "precision", a,
                 a->type == DDBST__T_TIMESTAMP)) {
    const ddbst__jnode *p = got[F_PRECISION];
    if (p->type == DDBST__J_STRING && strcmp(p->text, "s") == 0)
      a->precision = DDBST__PREC_S;
    else if (p->type == DDBST__J_STRING && strcmp(p->text, "ms") == 0)
      a->precision = DDBST__PREC_MS;
    else if (p->type == DDBST__J_STRING && strcmp(p->text, "us") == 0)
      a->precision = DDBST__PREC_US;
    else
      ddbst__load_report_field(L, "precision", p,
                               "expected \"s\", \"ms\" or \"us\"");
  }
  if (type_takes(L, got[F_WIDTH], "width", a, a->type == DDBST__T_INTEGER)) {
    const ddbst__jnode *w = got[F_WIDTH];
    int64_t v = 0;
    if (w->type != DDBST__J_NUMBER || ddbst__int_parse(w->text, w->len, &v) ||
        v < 1 || v > 19)
      ddbst__load_report_field(L, "width", w,
                               "expected a digit count from 1 to 19");
    else
      a->width = (int)v;
  }
  if (type_takes(L, got[F_NEGATIVE], "negative", a,
                 a->type == DDBST__T_INTEGER)) {
    const ddbst__jnode *g = got[F_NEGATIVE];
    if (g->type == DDBST__J_STRING && strcmp(g->text, "refuse") == 0)
      a->sortable_negative = 0;
    else if (g->type == DDBST__J_STRING && strcmp(g->text, "sortable") == 0)
      a->sortable_negative = 1;
    else
      ddbst__load_report_field(L, "negative", g,
                               "expected \"refuse\" or \"sortable\"");
    if (a->sortable_negative && !a->width)
      ddbst__load_report_field(L, "negative", g,
                               "sortable negative integers need a 'width'");
  }
  if (type_takes(L, got[F_ESCAPE], "escape", a, a->type == DDBST__T_STRING)) {
    const ddbst__jnode *x = got[F_ESCAPE];
    if (x->type == DDBST__J_STRING && strcmp(x->text, "ordered") == 0)
      a->escape = DDBST__ESCAPE_ORDERED;
    else if (x->type == DDBST__J_BOOL)
      a->escape = x->boolean ? DDBST__ESCAPE_PERCENT : DDBST__ESCAPE_NONE;
    else
      ddbst__load_report_field(L, "escape", x,
                               "expected true (%%-escapes), false or "
                               "\"ordered\" (escapes that keep the values' "
                               "order)");
  }
  if (type_takes(L, got[F_NORMALIZE], "normalize", a,
                 a->type == DDBST__T_STRING)) {
    const ddbst__jnode *x = got[F_NORMALIZE];
    if (x->type == DDBST__J_STRING && strcmp(x->text, "NFC") == 0)
      a->normalize = DDBST__NORM_NFC;
    else if (x->type == DDBST__J_STRING &&
             strcmp(x->text, "NFKC_Casefold") == 0)
      a->normalize = DDBST__NORM_NFKC_CASEFOLD;
    else
      ddbst__load_report_field(L, "normalize", x,
                               "expected \"NFC\" or \"NFKC_Casefold\"");
  }
  if (a->type == DDBST__T_ENUM) {
    const ddbst__jnode *vs = got[F_VALUES];
    size_t o2 = ddbst__load_push(L, "values");
    if (!vs) {
      ddbst__load_report(L, n, "an enum needs 'values'");
    } else if (ddbst__load_expect(L, vs, DDBST__J_ARRAY,
                                  "an array of strings")) {
      if (vs->count == 0)
        ddbst__load_report(L, vs, "an enum needs at least one value");
      a->values = ddbst__load_array(L, vs->count, sizeof *a->values);
      a->value_lens = ddbst__load_array(L, vs->count, sizeof *a->value_lens);
      for (size_t i = 0; i < vs->count && a->values && a->value_lens; i++) {
        const ddbst__jnode *v = vs->items[i];
        if (v->type != DDBST__J_STRING || v->len == 0) {
          ddbst__load_report(L, v, "element %zu: expected a non-empty string",
                             i);
          continue;
        }
        for (size_t j = 0; j < a->nvalues; j++)
          if (strcmp(a->values[j], v->text) == 0)
            ddbst__load_report(L, v, "'%s' is listed twice", v->text);
        const char *text = ddbst__load_dup(L, v->text);
        if (!text) break;
        a->values[a->nvalues] = text;
        a->value_lens[a->nvalues++] = v->len;
      }
    }
    ddbst__load_pop(L, o2);
  } else {
    type_takes(L, got[F_VALUES], "values", a, 0);
  }

  const ddbst__jnode *d = got[F_DEFAULT];
  if (d) {
    size_t o3 = ddbst__load_push(L, "default");
    if (d->type == DDBST__J_STRING && strcmp(d->text, "now") == 0 &&
        a->type == DDBST__T_TIMESTAMP) {
      a->def = DDBST__DEF_NOW;
    } else if (d->type == DDBST__J_STRING && strcmp(d->text, "generate") == 0 &&
               a->type == DDBST__T_ULID) {
      a->def = DDBST__DEF_GENERATE;
    } else if (a->type == DDBST__T_LIST || a->type == DDBST__T_MAP ||
               a->type == DDBST__T_STRING_SET ||
               a->type == DDBST__T_NUMBER_SET || a->type == DDBST__T_BINARY) {
      ddbst__load_report(L, d, "a %s attribute takes no default",
                         ddbst__type_name(a->type));
    } else {
      size_t len = 0;
      a->def_text = ddbst__load_literal(L, a, d, &len);
      a->def_len = len;
      if (a->def_text) a->def = DDBST__DEF_VALUE;
    }
    ddbst__load_pop(L, o3);
  }
}

/* ---- entities ---- */

static void compile(ddbst__loader *L, const ddbst__entity *e,
                    const ddbst__jnode *n, ddbst__template *t) {
  if (e->attrs_unread) return; /* its facets could not be checked */
  if (!ddbst__load_expect(L, n, DDBST__J_STRING, "a key template string"))
    return;
  char why[200];
  int rc = ddbst__template_compile(&L->m->arena, n->text, e->attrs, e->nattrs,
                                   L->m->delim, L->m->delim_len, t, why,
                                   sizeof why);
  if (rc == DDBST_ENOMEM)
    L->nomem = 1;
  else if (rc)
    ddbst__load_report(L, n, "%s", why);
}

/* Compiles {"pk": ..., "sk": ...}; `has_sk` says whether the key has a sort
 * key. */
static void load_key_pair(ddbst__loader *L, const ddbst__entity *e,
                          const ddbst__jnode *n, int has_sk, const char *where,
                          ddbst__ekey *k) {
  const ddbst__jnode *pk = ddbst__jobj_get(n, "pk");
  const ddbst__jnode *sk = ddbst__jobj_get(n, "sk");
  if (!pk) {
    if (!ddbst__load_misspelt(L, n, "pk"))
      ddbst__load_report(L, n, "'pk' is required");
  } else {
    size_t old = ddbst__load_push(L, "pk");
    compile(L, e, pk, &k->pk);
    ddbst__load_pop(L, old);
  }
  if (has_sk && !sk) {
    if (!ddbst__load_misspelt(L, n, "sk"))
      ddbst__load_report(L, n, "'sk' is required: %s has a sort key", where);
  } else if (!has_sk && sk) {
    ddbst__load_report_field(L, "sk", sk, "%s has no sort key", where);
  } else if (sk) {
    size_t old = ddbst__load_push(L, "sk");
    compile(L, e, sk, &k->sk);
    ddbst__load_pop(L, old);
  }
}

/* An entity's keys in a local index: the partition key is the table's,
 * compiled again from key.pk (`key`) so that the index's key is a template
 * of its own; only "sk" is given. */
static void load_local_key(ddbst__loader *L, const ddbst__entity *e,
                           const ddbst__jnode *n, const ddbst__jnode *key,
                           const char *where, ddbst__ekey *k) {
  const ddbst__jnode *pk = ddbst__jobj_get(n, "pk");
  if (pk)
    ddbst__load_report_field(L, "pk", pk,
                             "%s is a local secondary index: its partition "
                             "key is the table's (the entity's key.pk); give "
                             "only 'sk'",
                             where);
  const ddbst__jnode *tpk =
      key && key->type == DDBST__J_OBJECT ? ddbst__jobj_get(key, "pk") : NULL;
  if (tpk && tpk->type == DDBST__J_STRING && !e->attrs_unread) {
    /* its errors were reported at key.pk already */
    char why[200];
    if (ddbst__template_compile(&L->m->arena, tpk->text, e->attrs, e->nattrs,
                                L->m->delim, L->m->delim_len, &k->pk, why,
                                sizeof why) == DDBST_ENOMEM)
      L->nomem = 1;
  }
  const ddbst__jnode *sk = ddbst__jobj_get(n, "sk");
  if (!sk) {
    if (!ddbst__load_misspelt(L, n, "sk"))
      ddbst__load_report(L, n, "'sk' is required: %s has a sort key", where);
  } else {
    size_t old = ddbst__load_push(L, "sk");
    compile(L, e, sk, &k->sk);
    ddbst__load_pop(L, old);
  }
}

/* The table's key.pk (`which` 1) or key.sk (2) of entity `e`, compiled
 * again as a key of an index that shares that attribute; its errors were
 * reported at key already. */
static void table_template(ddbst__loader *L, const ddbst__entity *e,
                           const ddbst__jnode *key, int which,
                           ddbst__template *t) {
  const ddbst__jnode *src =
      key && key->type == DDBST__J_OBJECT
          ? ddbst__jobj_get(key, which == 1 ? "pk" : "sk")
          : NULL;
  if (!src || src->type != DDBST__J_STRING || e->attrs_unread) return;
  char why[200];
  if (ddbst__template_compile(&L->m->arena, src->text, e->attrs, e->nattrs,
                              L->m->delim, L->m->delim_len, t, why,
                              sizeof why) == DDBST_ENOMEM)
    L->nomem = 1;
}

/* An entity's keys in a global index that shares the table's key
 * attributes (ddbst__index.pk_shared, sk_shared): a shared key is the
 * entity's own key.pk or key.sk, and is not given again; an own key is
 * given as for any index. */
static void load_shared_key(ddbst__loader *L, const ddbst__entity *e,
                            const ddbst__jnode *n, const ddbst__jnode *key,
                            const ddbst__index *ix, const char *where,
                            ddbst__ekey *k) {
  static const char *const fields[2] = {"pk", "sk"};
  const int shared[2] = {ix->pk_shared, ix->sk_shared};
  ddbst__template *ts[2] = {&k->pk, &k->sk};
  for (int i = 0; i < 2; i++) {
    const ddbst__jnode *t = ddbst__jobj_get(n, fields[i]);
    if (shared[i]) {
      if (t)
        ddbst__load_report_field(
            L, fields[i], t,
            "%s's %s key is the table's %s: it is the entity's key.%s, "
            "written once; leave '%s' out",
            ix->name, i ? "sort" : "partition",
            shared[i] == 1 ? L->m->pk_attr : L->m->sk_attr,
            shared[i] == 1 ? "pk" : "sk", fields[i]);
      table_template(L, e, key, shared[i], ts[i]);
    } else if (i == 1 && !ix->sk_attr) {
      if (t) ddbst__load_report_field(L, "sk", t, "%s has no sort key", where);
    } else if (!t) {
      if (!ddbst__load_misspelt(L, n, fields[i]))
        ddbst__load_report(L, n, "'%s' is required", fields[i]);
    } else {
      size_t old = ddbst__load_push(L, fields[i]);
      compile(L, e, t, ts[i]);
      ddbst__load_pop(L, old);
    }
  }
}

static void load_when(ddbst__loader *L, const ddbst__entity *e,
                      const ddbst__jnode *w, ddbst__ekey *k) {
  if (e->attrs_unread) return;
  size_t old = ddbst__load_push(L, "when");
  if (!ddbst__load_expect(L, w, DDBST__J_OBJECT,
                          "an object of attribute: value (or [values])")) {
    ddbst__load_pop(L, old);
    return;
  }
  k->when = ddbst__load_array(L, w->count, sizeof *k->when);
  for (size_t i = 0; i < w->count && k->when; i++) {
    size_t o2 = ddbst__load_push(L, w->keys[i]);
    int a = ddbst__attr_index(e, w->keys[i]);
    const ddbst__jnode *v = w->items[i];
    if (a < 0) {
      char tail[DDBST__TAIL_CAP];
      ddbst__load_report(L, v, "'%s' is not an attribute of %s%s", w->keys[i],
                         e->name,
                         ddbst__suggest_tail(
                             ddbst__suggest_attribute(e, w->keys[i]), tail,
                             sizeof tail));
      ddbst__load_pop(L, o2);
      continue;
    }
    ddbst__cond *c = &k->when[k->nwhen++];
    c->attr = a;
    size_t nv = v->type == DDBST__J_ARRAY ? v->count : 1;
    if (nv == 0) ddbst__load_report(L, v, "give at least one value");
    c->values = ddbst__load_array(L, nv, sizeof *c->values);
    c->lens = ddbst__load_array(L, nv, sizeof *c->lens);
    for (size_t j = 0; j < nv && c->values && c->lens; j++) {
      const ddbst__jnode *x = v->type == DDBST__J_ARRAY ? v->items[j] : v;
      size_t len = 0;
      const char *t = ddbst__load_literal(L, &e->attrs[a], x, &len);
      if (!t) continue;
      c->values[c->nvalues] = t;
      c->lens[c->nvalues++] = len;
    }
    ddbst__load_pop(L, o2);
  }
  ddbst__load_pop(L, old);
}

static void check_not_key_attr(ddbst__loader *L, const ddbst__attr *a,
                               const ddbst__jnode *at);

/* Adds an attribute the model implies (version, automatic timestamps) unless
 * declared; a declared one must have the right type. */
static int implicit_attr(ddbst__loader *L, ddbst__entity *e, const char *name,
                         ddbst__type type, const ddbst__jnode *at) {
  int i = ddbst__attr_index(e, name);
  if (i >= 0) {
    if (e->attrs[i].type != type)
      ddbst__load_report(L, at, "'%s' must be declared as %s", name,
                         ddbst__type_name(type));
    return i;
  }
  if (!ddbst__is_identifier(name)) {
    ddbst__load_report(L, at, "expected an attribute name");
    return -1;
  }
  ddbst__attr *a = &e->attrs[e->nattrs];
  memset(a, 0, sizeof *a);
  a->name = ddbst__load_dup(L, name);
  if (!a->name) return -1;
  a->type = type;
  a->precision = DDBST__PREC_MS;
  a->implicit = 1;
  check_not_key_attr(L, a, at);
  return e->nattrs++;
}

static void load_timestamps(ddbst__loader *L, ddbst__entity *e,
                            const ddbst__jnode *t) {
  e->created_attr = e->updated_attr = -1;
  if (!t) return;
  size_t old = ddbst__load_push(L, "timestamps");
  const char *created = NULL, *updated = NULL;
  if (t->type == DDBST__J_BOOL) {
    if (t->boolean) created = "createdAt", updated = "updatedAt";
  } else if (ddbst__load_expect(
                 L, t, DDBST__J_OBJECT,
                 "true, or {\"createdAt\": name, \"updatedAt\": name}")) {
    static const char *const fields[] = {"createdAt", "updatedAt", NULL};
    ddbst__load_check_fields(L, t, fields);
    const ddbst__jnode *c = ddbst__load_string(L, t, "createdAt", 0);
    const ddbst__jnode *u = ddbst__load_string(L, t, "updatedAt", 0);
    created = c ? c->text : NULL;
    updated = u ? u->text : NULL;
  }
  if (created)
    e->created_attr = implicit_attr(L, e, created, DDBST__T_TIMESTAMP, t);
  if (updated)
    e->updated_attr = implicit_attr(L, e, updated, DDBST__T_TIMESTAMP, t);
  ddbst__load_pop(L, old);
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
static void check_not_key_attr(ddbst__loader *L, const ddbst__attr *a,
                               const ddbst__jnode *at) {
  const ddbst_model *m = L->m;
  const char *clash = ddbst__load_key_clash(L, a->name);
  if (clash)
    ddbst__load_report(
        L, at, "'%s' is the table's %s; ddbst writes it from the key templates",
        a->name, clash);
  if (m->ttl_attr && strcmp(a->name, m->ttl_attr) == 0 &&
      a->type != DDBST__T_TTL && a->type != DDBST__T_INTEGER)
    ddbst__load_report(
        L, at,
        "'%s' is the table's TTL attribute: declare it as ttl or integer "
        "(epoch seconds)",
        a->name);
}

/* The attributes ddbst_item_apply_defaults and ddbst_item_check_required
 * look at, once all are known and the key's facets marked. */
static void list_write_attrs(ddbst__loader *L, ddbst__entity *e) {
  size_t n = (size_t)e->nattrs;
  e->default_attrs = ddbst__load_array(L, n, sizeof *e->default_attrs);
  e->required_attrs = ddbst__load_array(L, n, sizeof *e->required_attrs);
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

void ddbst__load_entity(ddbst__loader *L, const char *name,
                        const ddbst__jnode *n, ddbst__entity *e) {
  static const char *const fields[] = {"attributes", "key",     "indexes",
                                       "unique",     "version", "timestamps",
                                       "description", NULL};
  enum { F_ATTRIBUTES, F_KEY, F_INDEXES, F_UNIQUE, F_VERSION, F_TIMESTAMPS,
         F_DESCRIPTION, NFIELDS };
  ddbst_model *m = L->m;
  e->name = ddbst__load_dup(L, name);
  if (!e->name) return; /* out of memory: the load ends here */
  e->name_len = strlen(name);
  e->version_attr = e->created_attr = e->updated_attr = -1;
  e->key.index = -1;
  if (!ddbst__is_identifier(name))
    ddbst__load_report(
        L, n,
        "an entity name starts with a letter or '_' and holds only "
        "letters, digits, '_' and '-'");
  if (!ddbst__load_expect(L, n, DDBST__J_OBJECT, "an object")) return;
  const ddbst__jnode *got[NFIELDS];
  ddbst__load_fields(L, n, fields, got);
  const ddbst__jnode *desc =
      ddbst__load_string_of(L, n, "description", got[F_DESCRIPTION], 0);
  if (desc) e->description = ddbst__load_dup(L, desc->text);

  const ddbst__jnode *attrs = got[F_ATTRIBUTES];
  size_t old = ddbst__load_push(L, "attributes");
  size_t declared = 0;
  e->attrs_unread = 1;
  if (!attrs) {
    if (!ddbst__load_misspelt(L, n, "attributes"))
      ddbst__load_report(L, n, "'attributes' is required");
  } else if (ddbst__load_expect(L, attrs, DDBST__J_OBJECT,
                                "an object of attributes")) {
    declared = attrs->count;
    e->attrs_unread = 0;
  }
  /* Room for the declared ones and the implicit ones the entity may add:
   * its version, and its timestamps' two (at least one slot, so that a
   * model without attributes still goes on to its keys' checks). */
  size_t implicit = (got[F_VERSION] ? 1 : 0) + (got[F_TIMESTAMPS] ? 2 : 0);
  e->attrs = ddbst__load_array(L, declared + implicit ? declared + implicit : 1,
                               sizeof *e->attrs);
  if (!e->attrs) {
    ddbst__load_pop(L, old);
    return;
  }
  for (size_t i = 0; i < declared && !L->nomem; i++) {
    size_t o2 = ddbst__load_push(L, attrs->keys[i]);
    ddbst__attr *a = &e->attrs[e->nattrs++];
    load_attribute(L, attrs->keys[i], attrs->items[i], a);
    if (a->name) check_not_key_attr(L, a, attrs->items[i]);
    ddbst__load_pop(L, o2);
  }
  ddbst__load_pop(L, old);
  if (L->nomem) return; /* an attribute may lack its name */

  const ddbst__jnode *ver = got[F_VERSION];
  if (ver) {
    size_t o2 = ddbst__load_push(L, "version");
    if (ddbst__load_expect(L, ver, DDBST__J_STRING, "an attribute name"))
      e->version_attr = implicit_attr(L, e, ver->text, DDBST__T_INTEGER, ver);
    ddbst__load_pop(L, o2);
  }
  load_timestamps(L, e, got[F_TIMESTAMPS]);

  const ddbst__jnode *key = got[F_KEY];
  old = ddbst__load_push(L, "key");
  if (!key) {
    if (!ddbst__load_misspelt(L, n, "key"))
      ddbst__load_report(L, n, "'key' is required");
  } else if (ddbst__load_expect(L, key, DDBST__J_OBJECT,
                                "{\"pk\": ..., \"sk\": ...}")) {
    static const char *const kf[] = {"pk", "sk", NULL};
    ddbst__load_check_fields(L, key, kf);
    load_key_pair(L, e, key, m->sk_attr != NULL, "the table", &e->key);
    mark_primary(e, &e->key.pk);
    mark_primary(e, &e->key.sk);
  }
  ddbst__load_pop(L, old);

  const ddbst__jnode *ixs = got[F_INDEXES];
  if (ixs) {
    old = ddbst__load_push(L, "indexes");
    if (ddbst__load_expect(L, ixs, DDBST__J_OBJECT,
                           "an object of index keys")) {
      e->indexes = ddbst__load_array(L, ixs->count, sizeof *e->indexes);
      for (size_t i = 0; i < ixs->count && e->indexes; i++) {
        size_t o2 = ddbst__load_push(L, ixs->keys[i]);
        const ddbst__jnode *x = ixs->items[i];
        int ix = ddbst__load_index_named(L, ixs->keys[i]);
        if (ix < 0) {
          char tail[DDBST__TAIL_CAP];
          if (ddbst__load_first_unknown(L, 1, ixs->keys[i]))
            ddbst__load_report(
                L, x,
                "entity %s is keyed on index %s, which the table does not "
                "declare (table.indexes)%s",
                e->name, ixs->keys[i],
                ddbst__suggest_tail(ddbst__suggest_index(m, ixs->keys[i]),
                                    tail, sizeof tail));
        } else if (ddbst__load_expect(
                       L, x, DDBST__J_OBJECT,
                       "{\"pk\": ..., \"sk\": ..., \"when\": ...}")) {
          static const char *const xf[] = {"pk", "sk", "when", NULL};
          ddbst__load_check_fields(L, x, xf);
          ddbst__ekey *k = &e->indexes[e->nindexes++];
          k->index = ix;
          /* "index NAME" for messages: a copy, not a format, as every
           * entity of a large model makes one per index it is in */
          char where[300];
          size_t wn = strlen(ixs->keys[i]);
          if (wn > sizeof where - 7) wn = sizeof where - 7;
          memcpy(where, "index ", 6);
          memcpy(where + 6, ixs->keys[i], wn);
          where[6 + wn] = '\0';
          if (m->indexes[ix].native)
            ddbst__load_native_member(L, e, x, k);
          else if (m->indexes[ix].local)
            load_local_key(L, e, x, key, where, k);
          else if (m->indexes[ix].pk_shared || m->indexes[ix].sk_shared)
            load_shared_key(L, e, x, key, &m->indexes[ix], where, k);
          else
            load_key_pair(L, e, x, m->indexes[ix].sk_attr != NULL, where, k);
          const ddbst__jnode *w = ddbst__jobj_get(x, "when");
          if (w) load_when(L, e, w, k);
        }
        ddbst__load_pop(L, o2);
      }
    }
    ddbst__load_pop(L, old);
  }
  /* an index keyed on the table's keys alone holds every item: each
   * entity says so, so that what its patterns may read is known */
  for (int i = 0; !e->attrs_unread && i < m->nindexes; i++)
    if (ddbst__index_all_shared(&m->indexes[i]) && !ddbst__entity_key(e, i))
      ddbst__load_report(L, n,
                         "every %s item is in %s, which is keyed on the "
                         "table's own keys: declare \"%s\": {} under %s's "
                         "indexes",
                         e->name, m->indexes[i].name, m->indexes[i].name,
                         e->name);
  for (int i = 0; i < e->nindexes; i++)
    e->indexes[i].has_own_facets =
        has_own(e, &e->indexes[i].pk) || has_own(e, &e->indexes[i].sk);

  const ddbst__jnode *uq = got[F_UNIQUE];
  if (uq) {
    old = ddbst__load_push(L, "unique");
    if (ddbst__load_expect(L, uq, DDBST__J_OBJECT,
                           "an object of name: key template")) {
      e->uniques = ddbst__load_array(L, uq->count, sizeof *e->uniques);
      for (size_t i = 0; i < uq->count && e->uniques; i++) {
        size_t o2 = ddbst__load_push(L, uq->keys[i]);
        ddbst__unique *u = &e->uniques[e->nuniques++];
        u->name = ddbst__load_dup(L, uq->keys[i]);
        compile(L, e, uq->items[i], &u->tmpl);
        if (u->tmpl.nsegs && u->tmpl.nfacets == 0)
          ddbst__load_report(
              L, uq->items[i],
              "a unique constraint's template needs a facet, or every "
              "item would claim the same value");
        ddbst__load_pop(L, o2);
      }
    }
    ddbst__load_pop(L, old);
  }
  list_write_attrs(L, e);
  if (e->nattrs > m->max_attrs) m->max_attrs = e->nattrs;
}
