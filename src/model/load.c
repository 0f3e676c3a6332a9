/* Model file (JSON) → compiled model: the entry points, the file's top
 * level and the table. Every problem is reported with its JSON path;
 * loading goes on after an error so that one run shows them all (load.h
 * lists the other parts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/tree.h"
#include "model/compile.h"
#include "model/load.h"
#include "model/model.h"
#include "model/table_settings.h"

/* ---- table ---- */

/* Key attribute names: 1–255 bytes, no control characters. */
static int is_key_attr_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 255) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
  return 1;
}

static const char *key_attr(ddbst__loader *L, const ddbst__jnode *obj,
                            const char *field, int required) {
  const ddbst__jnode *n = ddbst__load_string(L, obj, field, required);
  if (!n) return NULL;
  if (!is_key_attr_name(n->text)) {
    ddbst__load_report_field(
        L, field, n,
        "a key attribute name is 1 to 255 bytes without control "
        "characters");
    return NULL;
  }
  return ddbst__load_dup(L, n->text);
}

/* A local index's keys (table.localIndexes.<name>): the table's partition
 * key, which it may name again, and a sort key of its own, both as
 * DynamoDB's CreateTable demands them (its reasons, in its words). */
static void load_local_keys(ddbst__loader *L, const ddbst__jnode *n,
                            ddbst__index *ix) {
  ddbst_model *m = L->m;
  const char *pk = key_attr(L, n, "partitionKey", 0);
  if (pk && m->pk_attr && strcmp(pk, m->pk_attr) != 0)
    ddbst__load_report_field(
        L, "partitionKey", ddbst__jobj_get(n, "partitionKey"),
        "Index KeySchema does not have the same leading hash key as table "
        "KeySchema for index: %s (a local index's partition key is the "
        "table's, '%s')",
        ix->name, m->pk_attr);
  ix->pk_attr = m->pk_attr;
  ix->pk_shared = 1;
  ix->sk_attr = key_attr(L, n, "sortKey", 0);
  if (!ix->sk_attr && !ddbst__jobj_get(n, "sortKey") &&
      !ddbst__load_misspelt(L, n, "sortKey"))
    ddbst__load_report(L, n,
                       "Index KeySchema does not have a range key for index: "
                       "%s (a local index is its own sort order: 'sortKey' "
                       "is required)",
                       ix->name);
  if (m->pk_attr && !m->sk_attr)
    ddbst__load_report(L, n,
                       "Table KeySchema does not have a range key, which is "
                       "required when specifying a LocalSecondaryIndex "
                       "(table.sortKey)");
}

/* Which of a global index's keys are the table's own attributes: an
 * inverted index (partitionKey the table's sortKey, sortKey its
 * partitionKey), or one on the table's partition key. Such a key is
 * written once, as the table's. */
static int table_key_of(const ddbst_model *m, const char *attr) {
  if (!attr) return 0;
  if (m->pk_attr && !strcmp(attr, m->pk_attr)) return 1;
  if (m->sk_attr && !strcmp(attr, m->sk_attr)) return 2;
  return 0;
}

static void shared_keys(ddbst__loader *L, const ddbst__jnode *n,
                        ddbst__index *ix) {
  ix->pk_shared = table_key_of(L->m, ix->pk_attr);
  ix->sk_shared = table_key_of(L->m, ix->sk_attr);
  if (ix->pk_shared == 1 && (ix->sk_shared == 2 || (!ix->sk_attr && !L->m->sk_attr)))
    ddbst__load_report(L, n,
                       "%s is keyed as the table is (%s%s%s): it would hold "
                       "the table again; key it on another attribute",
                       ix->name, ix->pk_attr, ix->sk_attr ? ", " : "",
                       ix->sk_attr ? ix->sk_attr : "");
}

static void load_index(ddbst__loader *L, const ddbst__jnode *n,
                       ddbst__index *ix) {
  static const char *const fields[] = {
      "partitionKey",   "sortKey",        "projection",
      "onDemandThroughput", "warmThroughput", "contributorInsights", NULL};
  if (!ddbst__load_expect(L, n, DDBST__J_OBJECT, "an object")) return;
  ddbst__load_check_fields(L, n, fields);
  if (ddbst__load_native_keys(L, n, ix)) {
    /* lists: the entities' own attributes (load_native.c) */
  } else if (ix->local) {
    load_local_keys(L, n, ix);
  } else {
    ix->pk_attr = key_attr(L, n, "partitionKey", 1);
    ix->sk_attr = key_attr(L, n, "sortKey", 0);
    shared_keys(L, n, ix);
  }
  ddbst__load_index_settings(L, n, ix);
  ix->projection = DDBST__PROJ_ALL;
  const ddbst__jnode *p = ddbst__jobj_get(n, "projection");
  if (!p) return;
  size_t old = ddbst__load_push(L, "projection");
  if (p->type == DDBST__J_STRING && strcmp(p->text, "ALL") == 0) {
    ix->projection = DDBST__PROJ_ALL;
  } else if (p->type == DDBST__J_STRING && strcmp(p->text, "KEYS_ONLY") == 0) {
    ix->projection = DDBST__PROJ_KEYS_ONLY;
  } else if (p->type == DDBST__J_ARRAY) {
    ix->projection = DDBST__PROJ_INCLUDE;
    if (p->count == 0 || p->count > 100)
      ddbst__load_report(L, p,
                         "an INCLUDE projection lists 1 to 100 attributes");
    ix->include = ddbst__load_array(L, p->count, sizeof *ix->include);
    for (size_t i = 0; i < p->count && ix->include; i++) {
      const ddbst__jnode *a = p->items[i];
      if (a->type != DDBST__J_STRING || !ddbst__is_identifier(a->text)) {
        ddbst__load_report(L, a, "element %zu: expected an attribute name", i);
        continue;
      }
      const char *name = ddbst__load_dup(L, a->text);
      if (!name) break;
      ix->include[ix->ninclude++] = name;
    }
  } else {
    ddbst__load_report(
        L, p,
        "expected \"ALL\", \"KEYS_ONLY\" or an array of attribute names "
        "(INCLUDE)");
  }
  ddbst__load_pop(L, old);
}

static void load_delimiter(ddbst__loader *L, const ddbst__jnode *t) {
  L->m->delim = "#";
  L->m->delim_len = 1;
  const ddbst__jnode *d = ddbst__load_string(L, t, "delimiter", 0);
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
    ddbst__load_report_field(
        L, "delimiter", d,
        "a delimiter is 1 to 4 ASCII punctuation characters, none of "
        "- : . + { } %% (they occur in timestamps, numbers and "
        "escapes)");
    return;
  }
  const char *delim = ddbst__load_dup(L, d->text);
  if (!delim) return;
  L->m->delim = delim;
  L->m->delim_len = d->len;
}

/* "cursors": "sealed" (the default) or "unsealed", for development. */
static void load_cursors(ddbst__loader *L, const ddbst__jnode *t) {
  const ddbst__jnode *c = ddbst__load_string(L, t, "cursors", 0);
  if (!c) return;
  if (strcmp(c->text, "unsealed") == 0)
    L->m->cursors_unsealed = 1;
  else if (strcmp(c->text, "sealed") != 0)
    ddbst__load_report_field(L, "cursors", c,
                             "expected \"sealed\" or \"unsealed\"");
}

/* table.indexes (global) and table.localIndexes, into one array: the
 * global ones first, each local one marked (ddbst__index.local). */
static void load_indexes(ddbst__loader *L, const ddbst__jnode *t) {
  ddbst_model *m = L->m;
  const ddbst__jnode *g = ddbst__jobj_get(t, "indexes");
  const ddbst__jnode *l = ddbst__jobj_get(t, "localIndexes");
  const ddbst__jnode *lists[2] = {g, l};
  static const char *const fields[2] = {"indexes", "localIndexes"};
  size_t total = 0;
  for (int k = 0; k < 2; k++)
    if (lists[k] && lists[k]->type == DDBST__J_OBJECT)
      total += lists[k]->count;
  if (total) {
    m->indexes = ddbst__load_array(L, total, sizeof *m->indexes);
    if (!m->indexes) return;
  }
  size_t included = 0;
  for (int k = 0; k < 2; k++) {
    const ddbst__jnode *ixs = lists[k];
    if (!ixs) continue;
    size_t old = ddbst__load_push(L, fields[k]);
    if (ddbst__load_expect(L, ixs, DDBST__J_OBJECT, "an object of indexes")) {
      if (k == 0 && ixs->count > DDBST__MAX_GSI)
        ddbst__load_report(
            L, ixs, "DynamoDB allows at most 20 global secondary indexes");
      if (k == 1 && ixs->count > DDBST__MAX_LSI)
        ddbst__load_report(
            L, ixs,
            "Number of LocalSecondaryIndexes exceeds per-table limit of 5 "
            "(DynamoDB allows at most 5 local secondary indexes, created "
            "with the table)");
      for (size_t i = 0; i < ixs->count; i++) {
        size_t o2 = ddbst__load_push(L, ixs->keys[i]);
        ddbst__index *ix = &m->indexes[m->nindexes++];
        ix->name = ddbst__load_dup(L, ixs->keys[i]);
        if (!ix->name) { /* out of memory: the load ends here */
          m->nindexes--;
          ddbst__load_pop(L, o2);
          ddbst__load_pop(L, old);
          return;
        }
        ix->local = k == 1;
        if (!ddbst__is_table_name(ixs->keys[i]))
          ddbst__load_report(L, ixs->items[i],
                             "an index name is 3 to 255 of A-Z a-z 0-9 _ - .");
        for (int j = 0; j + 1 < m->nindexes; j++)
          if (m->indexes[j].name && strcmp(m->indexes[j].name, ix->name) == 0)
            ddbst__load_report(L, ixs->items[i],
                               "Duplicate index name: %s (a local and a "
                               "global index share one namespace)",
                               ix->name);
        load_index(L, ixs->items[i], ix);
        included += ix->ninclude;
        ddbst__load_pop(L, o2);
      }
    }
    ddbst__load_pop(L, old);
  }
  if (included > 100)
    ddbst__load_report(L, l ? l : g,
                       "the INCLUDE projections of all indexes list %zu "
                       "attributes; DynamoDB allows at most 100 in all",
                       included);
}

static void load_table(ddbst__loader *L, const ddbst__jnode *t,
                       const char *name_override) {
  static const char *const fields[] = {
      "name",          "partitionKey", "sortKey",   "indexes",
      "entityAttribute", "ttlAttribute", "delimiter", "stream",
      "cursors",       "localIndexes",
      "onDemandThroughput", "warmThroughput", "deletionProtection",
      "pointInTimeRecovery", "tableClass", "contributorInsights", "tags",
      "resourcePolicy", NULL};
  ddbst_model *m = L->m;
  if (!ddbst__load_expect(L, t, DDBST__J_OBJECT, "an object")) return;
  ddbst__load_check_fields(L, t, fields);

  const ddbst__jnode *name = ddbst__load_string(L, t, "name", 1);
  if (name && !ddbst__table_name_part(name->text))
    ddbst__load_report_field(L, "name", name,
                             "a table name is 3 to 255 of A-Z a-z 0-9 _ - . "
                             "(or the table's ARN, "
                             "arn:aws:dynamodb:REGION:ACCOUNT:table/NAME)");
  const char *given = name ? name->text : NULL;
  if (name_override) {
    if (!ddbst__table_name_part(name_override))
      ddbst__load_report_field(
          L, "name", NULL,
          "the table name given at load ('%.64s') is not 3 to 255 of "
          "A-Z a-z 0-9 _ - . nor a table's ARN",
          name_override);
    given = name_override;
  }
  if (given && (m->table_name = ddbst__load_dup(L, given))) {
    const char *plain = ddbst__table_name_part(m->table_name);
    m->table_plain_name = plain ? plain : m->table_name;
  }
  ddbst__load_table_settings(L, t);
  int lists = ddbst__load_table_key_not_list(L, t);
  if (!(lists & 1)) m->pk_attr = key_attr(L, t, "partitionKey", 1);
  if (!(lists & 2)) m->sk_attr = key_attr(L, t, "sortKey", 0);
  load_delimiter(L, t);
  load_cursors(L, t);

  const ddbst__jnode *ea = ddbst__load_string(L, t, "entityAttribute", 0);
  if (ea) {
    if (ddbst__is_identifier(ea->text))
      m->entity_attr = ddbst__load_dup(L, ea->text);
    else
      ddbst__load_report_field(L, "entityAttribute", ea,
                               "expected an attribute name");
  }
  const ddbst__jnode *ttl = ddbst__load_string(L, t, "ttlAttribute", 0);
  if (ttl) {
    if (ddbst__is_identifier(ttl->text))
      m->ttl_attr = ddbst__load_dup(L, ttl->text);
    else
      ddbst__load_report_field(L, "ttlAttribute", ttl,
                               "expected an attribute name");
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
      ddbst__load_report_field(L, "stream", st,
                               "expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, "
                               "NEW_AND_OLD_IMAGES or false");
  }

  load_indexes(L, t);

  /* Every key attribute has one role: a name used twice would make one key
   * overwrite another (an index sharing the table's or another index's key
   * attributes is not supported). */
  const char *names[2 + 2 * DDBST__MAX_INDEXES + 2];
  char roles[sizeof names / sizeof names[0]][300];
  int n = 0;
  names[n] = m->pk_attr;
  snprintf(roles[n++], sizeof roles[0], "the table's partition key");
  names[n] = m->sk_attr;
  snprintf(roles[n++], sizeof roles[0], "the table's sort key");
  for (int i = 0; i < m->nindexes && i < DDBST__MAX_INDEXES; i++) {
    /* a local index's partition key is the table's: one role, not two;
     * a native index's attributes are the entities' own (checked below) */
    names[n] = ddbst__index_own_pk(&m->indexes[i]) ? m->indexes[i].pk_attr
                                                   : NULL;
    snprintf(roles[n++], sizeof roles[0], "%s's partition key",
             m->indexes[i].name);
    names[n] = ddbst__index_own_sk(&m->indexes[i]) ? m->indexes[i].sk_attr
                                                   : NULL;
    snprintf(roles[n++], sizeof roles[0], "%s's sort key", m->indexes[i].name);
  }
  names[n] = m->entity_attr;
  snprintf(roles[n++], sizeof roles[0], "the entity attribute");
  names[n] = m->ttl_attr;
  snprintf(roles[n++], sizeof roles[0], "the TTL attribute");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (names[i] && names[j] && strcmp(names[i], names[j]) == 0)
        ddbst__load_report(L, t, "'%s' is both %s and %s", names[i], roles[j],
                           roles[i]);
  /* a native index's attributes are ordinary ones: never a key ddbst
   * writes (several native indexes may share them, as DynamoDB allows) */
  for (int i = 0; i < m->nindexes && i < DDBST__MAX_INDEXES; i++) {
    const ddbst__index *ix = &m->indexes[i];
    for (int a = 0; ix->native && a < ix->npk + ix->nsk; a++) {
      const char *an = a < ix->npk ? ix->pk_attrs[a] : ix->sk_attrs[a - ix->npk];
      for (int j = 0; j < n; j++)
        if (names[j] && strcmp(names[j], an) == 0)
          ddbst__load_report(L, t, "'%s' is both %s and a key attribute of %s",
                             an, roles[j], ix->name);
    }
  }
}

/* ---- the whole file ---- */

static void load_root(ddbst__loader *L, const ddbst__jnode *root,
                      const char *name_override) {
  /* "$schema": the JSON Schema an editor checks the file with (ddbst
   * schema); the loader has its own checks and only lets it be. */
  static const char *const fields[] = {"$schema",  "ddbst",    "description",
                                       "table",    "entities", "patterns",
                                       NULL};
  ddbst_model *m = L->m;
  if (!ddbst__load_expect(L, root, DDBST__J_OBJECT, "a JSON object at the top"))
    return;
  ddbst__load_check_fields(L, root, fields);

  const ddbst__jnode *v = ddbst__jobj_get(root, "ddbst");
  if (!v) {
    if (!ddbst__load_misspelt(L, root, "ddbst"))
      ddbst__load_report(L, root,
                         "'ddbst': %d is required (the model format version)",
                         DDBST_MODEL_FORMAT);
  } else if (v->type == DDBST__J_STRING) {
    ddbst__load_report_field(
        L, "ddbst", v, "the format version is a number: write %d, not a string",
        DDBST_MODEL_FORMAT);
  } else if (v->type != DDBST__J_NUMBER || strcmp(v->text, "1") != 0) {
    ddbst__load_report_field(
        L, "ddbst", v, "this library reads model format %d; the file says %s",
        DDBST_MODEL_FORMAT,
        v->text ? v->text : ddbst__load_jtype_name(v->type));
  }

  ddbst__load_string(L, root, "$schema", 0);
  const ddbst__jnode *desc = ddbst__load_string(L, root, "description", 0);
  if (desc) m->description = ddbst__load_dup(L, desc->text);

  const ddbst__jnode *t = ddbst__jobj_get(root, "table");
  size_t old = ddbst__load_push(L, "table");
  if (!t && !ddbst__load_misspelt(L, root, "table"))
    ddbst__load_report(L, root, "'table' is required");
  else if (t)
    load_table(L, t, name_override);
  ddbst__load_pop(L, old);
  /* Out of memory: the load is DDBST_ENOMEM whatever else it would find,
   * and a part cut short may lack a name the checks after it read. */
  if (L->nomem) return;
  if (!m->delim) {
    m->delim = "#";
    m->delim_len = 1;
  }

  const ddbst__jnode *es = ddbst__jobj_get(root, "entities");
  old = ddbst__load_push(L, "entities");
  if (!es) {
    if (!ddbst__load_misspelt(L, root, "entities"))
      ddbst__load_report(L, root, "'entities' is required");
  } else if (ddbst__load_expect(L, es, DDBST__J_OBJECT,
                                "an object of entities")) {
    if (es->count == 0)
      ddbst__load_report(L, es, "declare at least one entity");
    m->entities = ddbst__load_array(L, es->count, sizeof *m->entities);
    for (size_t i = 0; i < es->count && m->entities && !L->nomem; i++) {
      size_t o2 = ddbst__load_push(L, es->keys[i]);
      ddbst__load_entity(L, es->keys[i], es->items[i],
                         &m->entities[m->nentities++]);
      ddbst__load_pop(L, o2);
    }
  }
  ddbst__load_pop(L, old);
  if (L->nomem) return;
  ddbst__check_native_types(L);
  if (L->nerrors == 0) ddbst__check_ambiguous_keys(L);

  const ddbst__jnode *ps = ddbst__jobj_get(root, "patterns");
  if (ps) {
    old = ddbst__load_push(L, "patterns");
    if (ddbst__load_expect(L, ps, DDBST__J_OBJECT,
                           "an object of access patterns")) {
      m->patterns = ddbst__load_array(L, ps->count, sizeof *m->patterns);
      for (size_t i = 0; i < ps->count && m->patterns && !L->nomem; i++) {
        size_t o2 = ddbst__load_push(L, ps->keys[i]);
        ddbst__load_pattern(L, ps->keys[i], ps->items[i],
                            &m->patterns[m->npatterns++]);
        if (L->nerrors == 0 && !L->nomem)
          ddbst__check_pattern_range(L, &m->patterns[m->npatterns - 1]);
        ddbst__load_pop(L, o2);
      }
    }
    ddbst__load_pop(L, old);
  }
}

/* ---- compiling ---- */

/* The hot-path data of a model that loaded without errors (compile.h), in
 * the order they build on each other: names first, then what copies them. */
static int compile(ddbst_model *m) {
  int rc = ddbst__compile_names(m);
  rc = rc ? rc : ddbst__compile_scans(m);
  rc = rc ? rc : ddbst__compile_ranges(m);
  rc = rc ? rc : ddbst__compile_key_runs(m);
  rc = rc ? rc : ddbst__compile_put_plans(m);
  rc = rc ? rc : ddbst__compile_guards(m);
  rc = rc ? rc : ddbst__compile_create_plans(m);
  rc = rc ? rc : ddbst__compile_key_sizes(m);
  rc = rc ? rc : ddbst__compile_update_plans(m);
  rc = rc ? rc : ddbst__compile_queries(m);
  rc = rc ? rc : ddbst__compile_query_bodies(m);
  rc = rc ? rc : ddbst__compile_cursor_layouts(m);
  return rc;
}

int ddbst_model_load(const char *json, size_t len,
                     const ddbst_load_options *opts, ddbst_model **out,
                     ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "out is NULL");
  *out = NULL;
  if (!json && len && len != DDBST_NUL_TERMINATED)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "json is NULL");
  len = ddbst__len(json, len);
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

  ddbst__loader L;
  memset(&L, 0, sizeof L);
  L.m = m;
  L.json = json;
  L.len = len;
  L.err = err;
  L.on_error = o.on_error;
  L.on_error_user = o.on_error_user;
  load_root(&L, root, o.table_name);
  ddbst__overlap_sigs_free(&L);
  ddbst__arena_free(&tree);

  if (!L.nomem && L.nerrors == 0 && compile(m)) L.nomem = 1;
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
  if (!rc && ferror(f))
    rc = ddbst__fail(err, DDBST_EIO, path, "cannot read %s", path);
  fclose(f);
  if (!rc) rc = ddbst_model_load(b.data ? b.data : "", b.len, opts, out, err);
  ddbst__buf_release(&b);
  return rc;
}
