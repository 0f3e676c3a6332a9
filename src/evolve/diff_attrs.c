/* The diff of an entity's attributes: what items already stored hold that
 * the new model reads differently, refuses, or lacks. Key forms are the
 * keys' business (diff_entity.c): here only what the stored values are. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

int ddbst__diff_in_key(const ddbst__entity *e, const char *name) {
  if (ddbst__diff_has_facet(e, &e->key.pk, name) ||
      ddbst__diff_has_facet(e, &e->key.sk, name))
    return 1;
  for (int i = 0; i < e->nindexes; i++)
    if (ddbst__diff_has_facet(e, &e->indexes[i].pk, name) ||
        ddbst__diff_has_facet(e, &e->indexes[i].sk, name))
      return 1;
  for (int i = 0; i < e->nuniques; i++)
    if (ddbst__diff_has_facet(e, &e->uniques[i].tmpl, name)) return 1;
  return 0;
}

typedef struct attr_ref {
  ddbst__differ *d;
  int oe, ne;
  const ddbst__entity *eo, *en;
  const ddbst__attr *a, *b;
  char path[DDBST__REASON_MAX];
} attr_ref;

/* Scopes the next change to the entity and every pattern reading it. */
static void scope(attr_ref *r) {
  ddbst__diff_entity(r->d, r->en->name);
  ddbst__diff_readers(r->d, r->d->next, r->ne, -2);
}

static void path_of(attr_ref *r, const char *field, char *out) {
  snprintf(out, DDBST__REASON_MAX, "%s%s%s", r->path, field ? "." : "",
           field ? field : "");
}

static const char *default_words(const ddbst__attr *a) {
  switch (a->def) {
  case DDBST__DEF_NOW: return "the time of the write";
  case DDBST__DEF_GENERATE: return "a generated ULID";
  default: return "its default";
  }
}

/* An attribute the model adds itself: the version, or a timestamp it
 * fills on writes. Items already stored lack it. */
static void added_implicit(attr_ref *r) {
  ddbst__differ *d = r->d;
  int ix = (int)(r->b - r->en->attrs);
  int version = ix == r->en->version_attr;
  char path[DDBST__REASON_MAX];
  snprintf(path, sizeof path, "entities.%s.%s", r->en->name,
           version ? "version" : "timestamps");
  scope(r);
  if (version)
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "%s now keeps its version in %s: items already "
                       "stored have none, so a write that expects one is "
                       "refused for them until each is given its first (1)",
                       r->en->name, r->b->name);
  else
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "%s of %s is filled on writes from now: items already "
                       "stored lack it until it is written on them",
                       r->b->name, r->en->name);
}

static void added(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *b = r->b;
  if (b->implicit) {
    added_implicit(r);
    return;
  }
  scope(r);
  if (b->def != DDBST__DEF_NONE) {
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, r->path,
                       "a new attribute %s of %s with a default: items "
                       "written from now get %s, items already stored lack "
                       "it until it is written on them",
                       b->name, r->en->name, default_words(b));
  } else if (b->required && !ddbst__diff_in_key(r->en, b->name)) {
    snprintf(d->check, sizeof d->check,
             "every item of %s already stored is given a value for %s "
             "before code relies on it",
             r->en->name, b->name);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, r->path,
                       "a new required attribute %s of %s: items already "
                       "stored have none, and nothing fills it",
                       b->name, r->en->name);
  } else {
    ddbst__diff_report(d, DDBST_CHANGE_FREE, r->path,
                       "a new optional attribute %s of %s: items already "
                       "stored simply have none",
                       b->name, r->en->name);
  }
}

/* A type that reads every value of type `from` as it is stored. */
static int widens(ddbst__type from, ddbst__type to) {
  return (from == DDBST__T_INTEGER && to == DDBST__T_NUMBER) ||
         (to == DDBST__T_STRING &&
          (from == DDBST__T_ENUM || from == DDBST__T_ULID ||
           from == DDBST__T_TIMESTAMP));
}

static int has_value(const ddbst__attr *a, const char *v) {
  for (size_t i = 0; i < a->nvalues; i++)
    if (strcmp(a->values[i], v) == 0) return 1;
  return 0;
}

static void type_changed(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *a = r->a, *b = r->b;
  char path[DDBST__REASON_MAX];
  path_of(r, "type", path);
  scope(r);
  if (widens(a->type, b->type)) {
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "%s of %s becomes %s from %s: every value stored "
                       "reads as one",
                       a->name, r->en->name, ddbst__type_name(b->type),
                       ddbst__type_name(a->type));
    return;
  }
  if (b->type == DDBST__T_ENUM) {
    char *c = d->check;
    size_t n = (size_t)snprintf(c, sizeof d->check,
                                "every stored value of %s of %s is one of",
                                a->name, r->en->name);
    for (size_t i = 0; i < b->nvalues && n < sizeof d->check; i++)
      n += (size_t)snprintf(c + n, sizeof d->check - n, "%s %s", i ? "," : "",
                            b->values[i]);
  } else {
    snprintf(d->check, sizeof d->check,
             "every stored value of %s of %s is a valid %s (items whose "
             "value is not are refused when read, or must be rewritten)",
             a->name, r->en->name, ddbst__type_name(b->type));
  }
  ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                     "%s of %s becomes %s from %s: values already stored "
                     "were checked as %s only",
                     a->name, r->en->name, ddbst__type_name(b->type),
                     ddbst__type_name(a->type), ddbst__type_name(a->type));
}

static void enum_values(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *a = r->a, *b = r->b;
  char gone[DDBST__REASON_MAX] = "", fresh[DDBST__REASON_MAX] = "";
  size_t ng = 0, nf = 0;
  for (size_t i = 0; i < a->nvalues; i++)
    if (!has_value(b, a->values[i]) && ng < sizeof gone)
      ng += (size_t)snprintf(gone + ng, sizeof gone - ng, "%s%s",
                             ng ? ", " : "", a->values[i]);
  for (size_t i = 0; i < b->nvalues; i++)
    if (!has_value(a, b->values[i]) && nf < sizeof fresh)
      nf += (size_t)snprintf(fresh + nf, sizeof fresh - nf, "%s%s",
                             nf ? ", " : "", b->values[i]);
  char path[DDBST__REASON_MAX];
  path_of(r, "values", path);
  if (ng) {
    scope(r);
    snprintf(
        d->check, sizeof d->check,
        "no item of %s holds %s = %.300s (a Scan with a filter on %s finds "
        "them); rewrite or delete those that do",
        r->en->name, a->name, gone, a->name);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                       "%s of %s no longer takes %s: items that hold it are "
                       "refused when read back and cannot be updated",
                       a->name, r->en->name, gone);
  }
  if (nf) {
    scope(r);
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "%s of %s also takes %s: every value stored is still "
                       "one it takes",
                       a->name, r->en->name, fresh);
  }
}

static void precision(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *a = r->a, *b = r->b;
  char path[DDBST__REASON_MAX];
  path_of(r, "precision", path);
  const char *from = ddbst__diff_precision_name(a->precision);
  const char *to = ddbst__diff_precision_name(b->precision);
  scope(r);
  if (b->precision > a->precision) {
    ddbst__diff_report(d, DDBST_CHANGE_REWRITE, path,
                       "%s of %s is kept at %s, not %s: values already "
                       "stored (and the keys that hold them) are written "
                       "again at %s, or their order breaks (a mix of :05Z "
                       "and :05.000Z does not sort)",
                       a->name, r->en->name, to, from, to);
    return;
  }
  snprintf(d->check, sizeof d->check,
           "no stored value of %s of %s has digits below the %s (they "
           "would be cut) "
           "or, when it is a key facet, that cutting them makes no two "
           "items' keys equal",
           a->name, r->en->name, to);
  ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                     "%s of %s is kept at %s, not %s: values already stored "
                     "lose their digits below the %s when rewritten",
                     a->name, r->en->name, to, from, to);
}

static void width(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *a = r->a, *b = r->b;
  char path[DDBST__REASON_MAX];
  path_of(r, "width", path);
  if (b->width && (!a->width || b->width < a->width)) {
    scope(r);
    snprintf(d->check, sizeof d->check,
             "no stored value of %s of %s has more than %d digits", a->name,
             r->en->name, b->width);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                       "%s of %s takes at most %d digits (it took %s): "
                       "items holding a longer value are refused",
                       a->name, r->en->name, b->width,
                       a->width ? "more" : "any number");
  } else if (!ddbst__diff_in_key(r->en, a->name)) {
    scope(r);
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "%s of %s is in no key: its width changes nothing "
                       "stored",
                       a->name, r->en->name);
  }
}

static void required(attr_ref *r) {
  ddbst__differ *d = r->d;
  const ddbst__attr *a = r->a, *b = r->b;
  char path[DDBST__REASON_MAX];
  path_of(r, "required", path);
  scope(r);
  if (!b->required) {
    ddbst__diff_report(d, DDBST_CHANGE_FREE, path,
                       "%s of %s is no longer required", a->name, r->en->name);
  } else if (b->def != DDBST__DEF_NONE) {
    ddbst__diff_report(d, DDBST_CHANGE_BACKFILL, path,
                       "%s of %s is required, with a default: items "
                       "already stored without it get it only when written "
                       "again",
                       a->name, r->en->name);
  } else {
    snprintf(d->check, sizeof d->check,
             "every item of %s already stored has a value for %s", r->en->name,
             a->name);
    ddbst__diff_report(d, DDBST_CHANGE_UNSAFE, path,
                       "%s of %s becomes required: items already stored "
                       "without it break the rule",
                       a->name, r->en->name);
  }
}

static void defaults(attr_ref *r) {
  const ddbst__attr *a = r->a, *b = r->b;
  if (a->def == b->def && (a->def != DDBST__DEF_VALUE ||
                           (a->def_len == b->def_len &&
                            memcmp(a->def_text, b->def_text, a->def_len) == 0)))
    return;
  char path[DDBST__REASON_MAX];
  path_of(r, "default", path);
  scope(r);
  if (a->def == DDBST__DEF_NONE)
    ddbst__diff_report(r->d, DDBST_CHANGE_BACKFILL, path,
                       "%s of %s gets a default: items written from now get "
                       "%s; items already stored without %s keep none until "
                       "it is written on them",
                       a->name, r->en->name, default_words(b), a->name);
  else
    ddbst__diff_report(r->d, DDBST_CHANGE_FREE, path,
                       "the default of %s of %s %s: items already stored "
                       "keep the value they were written with",
                       a->name, r->en->name,
                       b->def == DDBST__DEF_NONE ? "is removed" : "changes");
}

/* Properties that only shape a key's text: the keys report them; an
 * attribute in no key changes nothing stored. */
static void key_only(attr_ref *r) {
  const ddbst__attr *a = r->a, *b = r->b;
  if (a->sortable_negative == b->sortable_negative && a->escape == b->escape &&
      a->normalize == b->normalize)
    return;
  if (ddbst__diff_in_key(r->en, a->name) || ddbst__diff_in_key(r->eo, a->name))
    return;
  scope(r);
  ddbst__diff_report(r->d, DDBST_CHANGE_FREE, r->path,
                     "%s of %s is in no key: how its key text is written "
                     "changes nothing stored",
                     a->name, r->en->name);
}

static void changed(attr_ref *r) {
  const ddbst__attr *a = r->a, *b = r->b;
  if (a->type != b->type) {
    type_changed(r);
  } else {
    if (a->type == DDBST__T_ENUM) enum_values(r);
    if (a->type == DDBST__T_TIMESTAMP && a->precision != b->precision)
      precision(r);
    if (a->width != b->width) width(r);
    key_only(r);
  }
  if (a->required != b->required) required(r);
  defaults(r);
  if ((a->description == NULL) != (b->description == NULL) ||
      (a->description && strcmp(a->description, b->description) != 0)) {
    char path[DDBST__REASON_MAX];
    path_of(r, "description", path);
    ddbst__diff_report(r->d, DDBST_CHANGE_FREE, path,
                       "the description of %s of %s changed: no item "
                       "changes",
                       a->name, r->en->name);
  }
}

void ddbst__diff_attributes(ddbst__differ *d, int oe, int ne) {
  attr_ref r = {d,    oe,   ne, &d->old->entities[oe], &d->next->entities[ne],
                NULL, NULL, ""};
  for (int i = 0; i < r.en->nattrs; i++) {
    r.b = &r.en->attrs[i];
    int j = ddbst__diff_attr_of(r.eo, r.b->name);
    r.a = j < 0 ? NULL : &r.eo->attrs[j];
    snprintf(r.path, sizeof r.path, "entities.%s.attributes.%s", r.en->name,
             r.b->name);
    if (!r.a)
      added(&r);
    else
      changed(&r);
  }
  for (int i = 0; i < r.eo->nattrs; i++) {
    const ddbst__attr *a = &r.eo->attrs[i];
    if (ddbst__diff_attr_of(r.en, a->name) >= 0) continue;
    snprintf(r.path, sizeof r.path, "entities.%s.attributes.%s", r.eo->name,
             a->name);
    ddbst__diff_entity(d, r.en->name);
    ddbst__diff_readers(d, d->old, oe, -2);
    ddbst__diff_report(d, DDBST_CHANGE_CLEANUP, r.path,
                       "%s of %s is removed: its values stay on items "
                       "already stored until removed (an UpdateItem REMOVE "
                       "per item)",
                       a->name, r.eo->name);
  }
}
