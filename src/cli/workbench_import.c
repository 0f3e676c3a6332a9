/* workbench --import FILE: a NoSQL Workbench data model as a starting ddbst
 * model. What the format says is taken as it is (the table, its keys, the
 * GSIs and their projections, one entity per facet with its attributes);
 * what it does not say is inferred from the table's data where the data
 * shows it (an attribute naming each item's facet is the entity attribute;
 * ISO-8601 texts are timestamps, ULIDs ulids, whole numbers integers; an
 * index key or a guard item whose text is made of an item's values gives
 * its template), and everything else is written down in the note on stderr
 * for the designer to settle. The model is checked by loading it. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbench.h"

typedef struct importer {
  yajl_val table, data, facets, attrs; /* the first DataModel table */
  const char *pk, *sk, *type_attr;
  cli_text note;
  int nnotes;
} importer;

static void note(importer *im, const char *line) {
  cli_add(&im->note, "  - ");
  cli_add(&im->note, line);
  cli_add(&im->note, "\n");
  im->nnotes++;
}

static size_t count(yajl_val arr) {
  return YAJL_IS_ARRAY(arr) ? arr->u.array.len : 0;
}
static yajl_val at(yajl_val arr, size_t i) { return arr->u.array.values[i]; }

/* The scalar text of an AttributeValue ({"S": "x"}, {"N": "1"}), or NULL. */
static const char *av_text(yajl_val av) {
  const char *s = wb_str(av, "S");
  if (s) return s;
  return wb_str(av, "N");
}

/* ---- entities of the data ---- */

static const char *facet_name(yajl_val f) { return wb_str(f, "FacetName"); }

/* The attribute each item names its facet in: present in the data, and
 * every value of it a facet's name (or a guard's, "User.email"). */
static const char *find_type_attr(importer *im) {
  yajl_val all = wb_get(im->table, "NonKeyAttributes");
  for (size_t i = 0; i < count(all); i++) {
    const char *name = wb_str(at(all, i), "AttributeName");
    size_t hits = 0, misses = 0;
    for (size_t r = 0; name && r < count(im->data); r++) {
      const char *v = av_text(wb_get(at(im->data, r), name));
      if (!v) continue;
      int ok = 0;
      for (size_t f = 0; f < count(im->facets); f++) {
        const char *fn = facet_name(at(im->facets, f));
        size_t n = fn ? strlen(fn) : 0;
        if (fn && !strncmp(v, fn, n) && (v[n] == '\0' || v[n] == '.')) ok = 1;
      }
      ok ? hits++ : misses++;
    }
    if (hits && !misses) return name;
  }
  return NULL;
}

/* Whether item `r` of the data is facet `fn`'s own (not a guard). */
static int item_of(importer *im, yajl_val item, const char *fn) {
  const char *v = im->type_attr ? av_text(wb_get(item, im->type_attr)) : NULL;
  return v && !strcmp(v, fn);
}

/* ---- types ---- */

static int is_timestamp(const char *s, int *digits) {
  /* 2026-01-05T09:00:00Z or with .fff / .ffffff */
  static const char shape[] = "dddd-dd-ddTdd:dd:dd";
  size_t i = 0;
  for (; shape[i]; i++)
    if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
      return 0;
  int n = 0;
  if (s[i] == '.')
    for (i++; isdigit((unsigned char)s[i]); i++) n++;
  *digits = n;
  return s[i] == 'Z' && s[i + 1] == '\0' && (n == 0 || n == 3 || n == 6);
}

static int is_ulid(const char *s) {
  if (strlen(s) != 26) return 0;
  for (; *s; s++)
    if (!strchr("0123456789ABCDEFGHJKMNPQRSTVWXYZ", *s)) return 0;
  return 1;
}

static int is_integer(const char *s) {
  if (*s == '-') s++;
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* The ddbst type of attribute `name` of facet `fn`: the format's type,
 * narrowed by what the facet's items hold. */
static void type_of(importer *im, const char *fn, const char *name, char *out,
                    size_t cap) {
  const char *t = "S";
  yajl_val all = wb_get(im->table, "NonKeyAttributes");
  for (size_t i = 0; i < count(all); i++)
    if (!strcmp(wb_str(at(all, i), "AttributeName"), name))
      t = wb_str(at(all, i), "AttributeType");
  static const struct {
    const char *dynamodb, *ddbst;
  } plain[] = {{"BOOL", "boolean"}, {"L", "list"},         {"M", "map"},
               {"SS", "string_set"}, {"NS", "number_set"}, {"B", "binary"}};
  for (size_t i = 0; t && i < sizeof plain / sizeof plain[0]; i++)
    if (!strcmp(t, plain[i].dynamodb)) {
      snprintf(out, cap, "\"%s\"", plain[i].ddbst);
      return;
    }
  int seen = 0, times = 1, ulids = 1, ints = 1, digits = -1;
  for (size_t r = 0; r < count(im->data); r++) {
    yajl_val item = at(im->data, r);
    const char *v = item_of(im, item, fn) ? av_text(wb_get(item, name)) : NULL;
    if (!v) continue;
    seen++;
    int d = 0;
    if (!is_timestamp(v, &d) || (digits >= 0 && d != digits)) times = 0;
    digits = d;
    if (!is_ulid(v)) ulids = 0;
    if (!is_integer(v)) ints = 0;
  }
  int number = t && !strcmp(t, "N");
  if (number)
    snprintf(out, cap, "\"%s\"", seen && ints ? "integer" : "number");
  else if (seen && times)
    snprintf(out, cap, "{ \"type\": \"timestamp\", \"precision\": \"%s\" }",
             digits == 0 ? "s" : digits == 3 ? "ms" : "us");
  else if (seen && ulids)
    snprintf(out, cap, "\"ulid\"");
  else
    snprintf(out, cap, "\"string\"");
}

static int is_key_attr(importer *im, const char *name);

/* ---- templates ---- */

/* An identifier made of `s` (letters, digits, '_'), into out. */
static void identifier(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; *s && n + 1 < cap; s++) {
    if (!isalnum((unsigned char)*s) && *s != '_') continue;
    out[n] = (n == 0 && isdigit((unsigned char)*s)) ? '_' : *s;
    n++;
  }
  out[n] = '\0';
  if (!n) snprintf(out, cap, "id");
}

/* The first place `s` is in `text` outside the {facets} put there already,
 * or NULL. */
static char *outside(char *text, const char *s) {
  size_t n = strlen(s);
  for (char *p = strstr(text, s); p; p = strstr(p + 1, s)) {
    int depth = 0;
    for (char *q = text; q < p; q++) depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
    int crosses = memchr(p, '{', n) || memchr(p, '}', n);
    if (depth == 0 && !crosses) return p;
  }
  return NULL;
}

/* The template that renders `key` from `item`'s values: each value of the
 * item found in the key (the longest first) becomes its {facet}, or
 * {facet:lower} where the key holds it lower-cased. 1 when a facet was
 * found. Key attributes and the entity attribute are not facets. */
static int infer(importer *im, const char *key, yajl_val item, char *out,
                 size_t cap) {
  char text[2048];
  snprintf(text, sizeof text, "%s", key);
  int found = 0;
  for (int round = 0; round < 8; round++) {
    const char *best = NULL, *best_value = NULL;
    int lower = 0;
    size_t best_len = 0;
    for (size_t i = 0; YAJL_IS_OBJECT(item) && i < item->u.object.len; i++) {
      const char *name = item->u.object.keys[i];
      const char *v = av_text(item->u.object.values[i]);
      if (!v || strchr(v, '{') || strlen(v) <= best_len || !strcmp(name, im->pk) ||
          (im->sk && !strcmp(name, im->sk)) ||
          (im->type_attr && !strcmp(name, im->type_attr)) ||
          is_key_attr(im, name))
        continue;
      char low[1024];
      size_t n = strlen(v);
      if (n >= sizeof low) continue;
      for (size_t k = 0; k <= n; k++) low[k] = (char)tolower((unsigned char)v[k]);
      if (outside(text, v)) {
        best = name, best_value = v, best_len = n, lower = 0;
      } else if (strcmp(low, v) && outside(text, low)) {
        best = name, best_value = v, best_len = n, lower = 1;
      }
    }
    if (!best) break;
    char low[1024], facet[300], next[2048];
    size_t n = strlen(best_value);
    for (size_t k = 0; k <= n; k++)
      low[k] = (char)tolower((unsigned char)best_value[k]);
    char *hit = outside(text, lower ? low : best_value), *from = hit;
    /* a number's key form may be zero-padded to a width: the zeros are
     * the facet's too */
    if (wb_str(wb_get(item, best), "N"))
      while (from > text && from[-1] == '0') from--;
    if (from < hit) {
      char line[600];
      snprintf(line, sizeof line,
               "%s is zero-padded to %d digits in key %s: declare it "
               "{\"type\": \"integer\", \"width\": %d}",
               best, (int)(hit - from + (ptrdiff_t)n), key,
               (int)(hit - from + (ptrdiff_t)n));
      note(im, line);
    }
    snprintf(facet, sizeof facet, "{%s%s}", best, lower ? ":lower" : "");
    snprintf(next, sizeof next, "%.*s%s%s", (int)(from - text), text, facet,
             hit + n);
    snprintf(text, sizeof text, "%s", next);
    found = 1;
  }
  snprintf(out, cap, "%s", text);
  return found;
}

/* ---- the model ---- */

static void add_key_pair(cli_text *t, const char *pk, const char *sk) {
  cli_add(t, "{ \"pk\": ");
  cli_add_string(t, pk, strlen(pk));
  if (sk) {
    cli_add(t, ", \"sk\": ");
    cli_add_string(t, sk, strlen(sk));
  }
  cli_add(t, " }");
}

static int is_key_attr(importer *im, const char *name) {
  if (!strcmp(name, im->pk) || (im->sk && !strcmp(name, im->sk)) ||
      (im->type_attr && !strcmp(name, im->type_attr)))
    return 1;
  yajl_val gsis = wb_get(im->table, "GlobalSecondaryIndexes");
  for (size_t i = 0; i < count(gsis); i++) {
    yajl_val k = wb_get(at(gsis, i), "KeyAttributes");
    const char *a = wb_str(wb_get(k, "PartitionKey"), "AttributeName");
    const char *b = wb_str(wb_get(k, "SortKey"), "AttributeName");
    if ((a && !strcmp(a, name)) || (b && !strcmp(b, name))) return 1;
  }
  return 0;
}

/* A key alias as a template: as it is when it holds {facets}; else a
 * facet named after it, behind the facet's name (noted). */
static void alias_template(importer *im, const char *fn, const char *alias,
                           const char *which, char *out, size_t cap) {
  if (alias && strchr(alias, '{')) {
    snprintf(out, cap, "%s", alias);
    return;
  }
  char id[256], up[256];
  identifier(alias && *alias ? alias : "id", id, sizeof id);
  /* a facet may not be named as a key attribute, which ddbst writes */
  if (is_key_attr(im, id) && strlen(id) + 4 < sizeof id) strcat(id, "Part");
  identifier(fn, up, sizeof up);
  for (char *c = up; *c; c++) *c = (char)toupper((unsigned char)*c);
  snprintf(out, cap, "%s#{%s}", up, id);
  char line[900];
  snprintf(line, sizeof line,
           "%s's %s: the alias is no template; written as %s: give the real "
           "one",
           fn, which, out);
  note(im, line);
}

static void write_entity(importer *im, cli_text *t, yajl_val f, int first) {
  const char *fn = facet_name(f);
  char name[256];
  identifier(fn, name, sizeof name);
  yajl_val alias = wb_get(f, "KeyAttributeAlias");
  char pk[1024], sk[1024];
  alias_template(im, fn, wb_str(alias, "PartitionKeyAlias"), "partition key",
                 pk, sizeof pk);
  if (im->sk)
    alias_template(im, fn, wb_str(alias, "SortKeyAlias"), "sort key", sk,
                   sizeof sk);
  cli_add(t, first ? "\n    " : ",\n    ");
  cli_add_string(t, name, strlen(name));
  cli_add(t, ": {\n      \"attributes\": {");
  /* its attributes, and any facet of its templates the facet lacks */
  yajl_val attrs = wb_get(f, "NonKeyAttributes");
  const char *names[256];
  size_t n = 0;
  for (size_t i = 0; i < count(attrs) && n < 255; i++) {
    const char *a = YAJL_IS_STRING(at(attrs, i)) ? YAJL_GET_STRING(at(attrs, i))
                                                 : NULL;
    if (a && !is_key_attr(im, a)) names[n++] = a;
  }
  char facets[2][1024];
  snprintf(facets[0], sizeof facets[0], "%s", pk);
  snprintf(facets[1], sizeof facets[1], "%s", im->sk ? sk : "");
  static char extra[64][256];
  size_t nextra = 0;
  for (int k = 0; k < 2; k++)
    for (char *p = facets[k]; (p = strchr(p, '{')) != NULL && nextra < 64;) {
      size_t len = strcspn(p + 1, ":}");
      snprintf(extra[nextra], sizeof extra[0], "%.*s", (int)len, p + 1);
      int have = 0;
      for (size_t i = 0; i < n; i++) have |= !strcmp(names[i], extra[nextra]);
      if (!have && n < 255) names[n++] = extra[nextra++];
      p += len + 1;
    }
  for (size_t i = 0; i < n; i++) {
    char type[160];
    type_of(im, fn, names[i], type, sizeof type);
    cli_add(t, i ? ",\n        " : "\n        ");
    cli_add_string(t, names[i], strlen(names[i]));
    cli_add(t, ": ");
    cli_add(t, type);
  }
  cli_add(t, "\n      },\n      \"key\": ");
  add_key_pair(t, pk, im->sk ? sk : NULL);

  /* each GSI: the template the facet's items' keys there are made of */
  yajl_val gsis = wb_get(im->table, "GlobalSecondaryIndexes");
  int nix = 0;
  for (size_t g = 0; g < count(gsis); g++) {
    yajl_val ix = at(gsis, g);
    yajl_val k = wb_get(ix, "KeyAttributes");
    const char *ipk = wb_str(wb_get(k, "PartitionKey"), "AttributeName");
    const char *isk = wb_str(wb_get(k, "SortKey"), "AttributeName");
    yajl_val item = NULL;
    for (size_t r = 0; r < count(im->data) && !item; r++)
      if (item_of(im, at(im->data, r), fn) && av_text(wb_get(at(im->data, r), ipk)))
        item = at(im->data, r);
    if (!item) continue;
    /* a key's text is up to 2048 bytes, and so its template */
    char tp[2048], ts[2048];
    infer(im, av_text(wb_get(item, ipk)), item, tp, sizeof tp);
    const char *skv = isk ? av_text(wb_get(item, isk)) : NULL;
    if (skv) infer(im, skv, item, ts, sizeof ts);
    cli_add(t, nix++ ? ",\n        " : ",\n      \"indexes\": {\n        ");
    const char *ixn = wb_str(ix, "IndexName");
    cli_add_string(t, ixn, strlen(ixn));
    cli_add(t, ": ");
    add_key_pair(t, tp, skv ? ts : NULL);
  }
  if (nix) cli_add(t, "\n      }");

  /* unique constraints: the guard items of this facet ("User.email") */
  int nu = 0;
  for (size_t r = 0; r < count(im->data); r++) {
    yajl_val g = at(im->data, r);
    const char *v = im->type_attr ? av_text(wb_get(g, im->type_attr)) : NULL;
    size_t len = strlen(fn);
    if (!v || strncmp(v, fn, len) || v[len] != '.') continue;
    const char *constraint = v + len + 1;
    int dup = 0;
    for (size_t q = 0; q < r; q++) {
      const char *w = av_text(wb_get(at(im->data, q), im->type_attr));
      dup |= w && !strcmp(w, v);
    }
    if (dup) continue;
    /* the owner is the item whose values make the guard's key */
    const char *gk = av_text(wb_get(g, im->pk));
    char tmpl[2048] = "";
    for (size_t q = 0; q < count(im->data) && !tmpl[0]; q++)
      if (item_of(im, at(im->data, q), fn) &&
          !infer(im, gk, at(im->data, q), tmpl, sizeof tmpl))
        tmpl[0] = '\0';
    if (!tmpl[0]) {
      char line[600];
      snprintf(line, sizeof line,
               "%s: a guard item of the unique constraint %s matches no item: "
               "the constraint is left out",
               fn, constraint);
      note(im, line);
      continue;
    }
    cli_add(t, nu++ ? ", " : ",\n      \"unique\": { ");
    cli_add_string(t, constraint, strlen(constraint));
    cli_add(t, ": ");
    cli_add_string(t, tmpl, strlen(tmpl));
  }
  if (nu) cli_add(t, " }");
  cli_add(t, "\n    }");
}

/* Patterns the format does not hold: a get of each entity, and a query of
 * each index it is in. */
static void write_patterns(importer *im, cli_text *t) {
  int k = 0;
  for (size_t f = 0; f < count(im->facets); f++) {
    char name[256];
    identifier(facet_name(at(im->facets, f)), name, sizeof name);
    char p[1600];
    snprintf(p, sizeof p, "%s\n    \"get%s\": { \"get\": \"%s\" }",
             k++ ? "," : "", name, name);
    cli_add(t, p);
    yajl_val gsis = wb_get(im->table, "GlobalSecondaryIndexes");
    for (size_t g = 0; g < count(gsis); g++) {
      const char *ixn = wb_str(at(gsis, g), "IndexName");
      const char *ipk = wb_str(wb_get(wb_get(at(gsis, g), "KeyAttributes"),
                                      "PartitionKey"),
                               "AttributeName");
      int in = 0;
      for (size_t r = 0; r < count(im->data); r++)
        in |= item_of(im, at(im->data, r), facet_name(at(im->facets, f))) &&
              av_text(wb_get(at(im->data, r), ipk)) != NULL;
      if (!in) continue;
      char pn[300], lower[256];
      identifier(ixn, pn, sizeof pn);
      snprintf(lower, sizeof lower, "%s", name);
      lower[0] = (char)tolower((unsigned char)lower[0]);
      snprintf(p, sizeof p,
               ",\n    \"%sBy%s\": { \"query\": \"%s\", \"index\": \"%s\" }",
               lower, pn, name, ixn);
      cli_add(t, p);
    }
  }
}

int wb_import(const char *file) {
  size_t len;
  char *text = cli_read_file(file, &len);
  if (!text) return 2;
  char why[512];
  yajl_val root = yajl_tree_parse(text, why, sizeof why);
  free(text);
  if (!root) {
    fprintf(stderr, "ddbst: %s: not JSON: %s\n", file, why);
    return 2;
  }
  importer im;
  memset(&im, 0, sizeof im);
  yajl_val tables = wb_get(root, "DataModel");
  im.table = count(tables) ? at(tables, 0) : NULL;
  yajl_val keys = wb_get(im.table, "KeyAttributes");
  im.pk = wb_str(wb_get(keys, "PartitionKey"), "AttributeName");
  im.sk = wb_str(wb_get(keys, "SortKey"), "AttributeName");
  im.facets = wb_get(im.table, "TableFacets");
  im.data = wb_get(im.table, "TableData");
  if (!im.pk || !count(im.facets)) {
    fprintf(stderr, "ddbst: %s: no DataModel[0] with KeyAttributes and "
                    "TableFacets: not a NoSQL Workbench data model ddbst can "
                    "start from\n",
            file);
    yajl_tree_free(root);
    return 2;
  }
  if (count(tables) > 1) {
    char line[600];
    snprintf(line, sizeof line, "the model has %zu tables; the first (%s) is "
                                "imported", count(tables),
             wb_str(im.table, "TableName"));
    note(&im, line);
  }
  im.type_attr = find_type_attr(&im);
  if (!im.type_attr)
    note(&im, "no attribute names each item's facet: no entityAttribute, and "
              "no index keys or unique constraints inferred from the data");

  cli_text t = {0};
  const char *desc = wb_str(wb_get(root, "ModelMetadata"), "Description");
  cli_add(&t, "{\n  \"ddbst\": 1,\n");
  if (desc && *desc) {
    cli_add(&t, "  \"description\": ");
    cli_add_string(&t, desc, strlen(desc));
    cli_add(&t, ",\n");
  }
  const char *tn = wb_str(im.table, "TableName");
  cli_add(&t, "  \"table\": {\n    \"name\": ");
  cli_add_string(&t, tn ? tn : "table", tn ? strlen(tn) : 5);
  cli_add(&t, ", \"partitionKey\": ");
  cli_add_string(&t, im.pk, strlen(im.pk));
  if (im.sk) {
    cli_add(&t, ", \"sortKey\": ");
    cli_add_string(&t, im.sk, strlen(im.sk));
  }
  yajl_val gsis = wb_get(im.table, "GlobalSecondaryIndexes");
  for (size_t g = 0; g < count(gsis); g++) {
    yajl_val ix = at(gsis, g);
    yajl_val k = wb_get(ix, "KeyAttributes");
    const char *ixn = wb_str(ix, "IndexName");
    const char *ipk = wb_str(wb_get(k, "PartitionKey"), "AttributeName");
    const char *isk = wb_str(wb_get(k, "SortKey"), "AttributeName");
    if (!ixn || !ipk) continue;
    cli_add(&t, g ? ",\n      " : ",\n    \"indexes\": {\n      ");
    cli_add_string(&t, ixn, strlen(ixn));
    cli_add(&t, ": { \"partitionKey\": ");
    cli_add_string(&t, ipk, strlen(ipk));
    if (isk) {
      cli_add(&t, ", \"sortKey\": ");
      cli_add_string(&t, isk, strlen(isk));
    }
    yajl_val proj = wb_get(ix, "Projection");
    const char *pt = wb_str(proj, "ProjectionType");
    if (pt && !strcmp(pt, "INCLUDE")) {
      cli_add(&t, ", \"projection\": ");
      wb_add_json(&t, wb_get(proj, "NonKeyAttributes"));
    } else if (pt) {
      cli_add(&t, ", \"projection\": ");
      cli_add_string(&t, pt, strlen(pt));
    }
    cli_add(&t, " }");
  }
  if (count(gsis)) cli_add(&t, "\n    }");
  if (im.type_attr) {
    cli_add(&t, ",\n    \"entityAttribute\": ");
    cli_add_string(&t, im.type_attr, strlen(im.type_attr));
  }
  cli_add(&t, "\n  },\n  \"entities\": {");
  for (size_t f = 0; f < count(im.facets); f++)
    write_entity(&im, &t, at(im.facets, f), f == 0);
  cli_add(&t, "\n  },\n  \"patterns\": {");
  write_patterns(&im, &t);
  cli_add(&t, "\n  }\n}\n");

  note(&im, "types the format cannot say: enums are strings, and a "
            "timestamp's or ULID's type was inferred from the data");
  note(&im, "not in the format: sparse indexes' membership conditions "
            "(\"when\"), a TTL attribute, the delimiter, optimistic locking "
            "(\"version\") and automatic timestamps (plain attributes "
            "here)");
  note(&im, "access patterns: a get of each entity and a query of each "
            "index it is in were made up; name them, add ranges, orders "
            "and limits");

  /* the model must load: say where it does not */
  cli_text config = {0};
  cli_add(&config, "{\"model\":");
  cli_add_string(&config, t.data ? t.data : "", t.len);
  cli_add(&config, "}");
  char *error = NULL;
  ddbst_json *s =
      t.nomem || config.nomem ? NULL
                              : ddbst_json_open(config.data, config.len, NULL,
                                                &error);
  int rc = 0;
  if (t.nomem || config.nomem) {
    fprintf(stderr, "ddbst: out of memory\n");
    rc = 2;
  } else {
    fputs(t.data, stdout);
    fprintf(stderr, "ddbst: imported %s as a starting model; what it could "
                    "not infer:\n%s",
            file, im.note.data ? im.note.data : "");
    if (!s) {
      cli_span e = cli_member(cli_span_of(error), "error");
      cli_span path = cli_member(e, "path"), message = cli_member(e, "message");
      fprintf(stderr, "ddbst: the model does not load yet: %.*s: %.*s\n",
              (int)path.n, path.p ? path.p : "", (int)message.n,
              message.p ? message.p : "");
    }
    rc = s ? 0 : 1;
  }
  ddbst_json_close(s);
  ddbst_json_free(error);
  cli_text_free(&config);
  cli_text_free(&t);
  cli_text_free(&im.note);
  yajl_tree_free(root);
  return rc;
}
