/* generate typescript|python|c MODEL [--name NAME]: declarations of one
 * model for a type checker — entities, each attribute's value type, the
 * values a put requires and a key names, the patterns with the values each
 * requires, and what an item read back holds — so that a misspelt
 * attribute, a missing partition value or a wrong value type fails
 * `tsc --strict`, `mypy --strict` or the C compiler.
 *
 * Names and types come from the library (ddbst_model_* of the typed API,
 * the "patterns" answer); what the API does not describe — which attributes
 * are required or have a default, an enum's values, the primary key's
 * templates — is read from the model file, after the library has loaded it
 * (so it is valid). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "cli.h"

#define MAX_FACETS 16

typedef struct gen_attr {
  const char *name;
  const char *type;     /* "string", "integer", ... (the library's) */
  int required;         /* a put needs it: required, or a key facet... */
  int defaulted;        /* ...unless it has a default */
  int key;              /* a facet of the primary key */
  int lowered;          /* a primary-key facet the key lower-cases */
  yajl_val values;      /* an enum's values (in the file's tree) */
} gen_attr;

typedef struct gen_entity {
  const char *name;
  gen_attr *attrs;
  int nattrs;
  const char *key[MAX_FACETS]; /* primary-key facets, pk's then sk's */
  int nkey;
} gen_entity;

typedef struct gen_pattern {
  const char *name;
  int query;
  const char *entities[32];
  int nentities;
  const char *pk[MAX_FACETS], *sk[MAX_FACETS];
  int npk, nsk;
} gen_pattern;

typedef struct gen_model {
  const char *label;  /* "Shop" */
  const char *file;
  gen_entity *entities;
  int nentities;
  gen_pattern *patterns;
  int npatterns;
  /* the model file and the patterns answer, which the names point into */
  yajl_val tree, patterns_tree;
  ddbst_model *model;
} gen_model;

/* ---- reading the model ---- */

/* A string value's text, "" for anything else. */
static const char *text_of(yajl_val v) {
  const char *t = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
  return t ? t : "";
}

static yajl_val member(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  return obj ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

/* The facet names of a template ("ORG#{orgId}#{email:lower}"), appended to
 * `out`; `lowered` is set for each that has :lower. */
static void template_facets(const char *tpl, const char **out, int *n,
                            int *lowered, char *names, size_t cap,
                            size_t *used) {
  for (const char *p = tpl; p && (p = strchr(p, '{')) != NULL;) {
    const char *close = strchr(p, '}');
    if (!close || *n >= MAX_FACETS) return;
    size_t len = strcspn(p + 1, ":}");
    if (*used + len + 1 > cap) return;
    char *name = names + *used;
    memcpy(name, p + 1, len);
    name[len] = '\0';
    *used += len + 1;
    if (lowered) lowered[*n] = strncmp(p + 1 + len, ":lower", 6) == 0;
    out[(*n)++] = name;
    p = close + 1;
  }
}

static int find_attr(const gen_entity *e, const char *name) {
  for (int i = 0; i < e->nattrs; i++)
    if (strcmp(e->attrs[i].name, name) == 0) return i;
  return -1;
}

/* Facet names live here for the run. */
static char facet_names[16384];
static size_t facet_used;

static int read_entity(gen_model *g, int index, gen_entity *e) {
  e->name = ddbst_model_entity_name(g->model, index);
  e->nattrs = ddbst_model_attribute_count(g->model, index);
  e->attrs = calloc((size_t)e->nattrs + 1, sizeof *e->attrs);
  if (!e->attrs) return -1;
  const char *path[] = {"entities", e->name, NULL};
  yajl_val file = yajl_tree_get(g->tree, path, yajl_t_object);
  yajl_val attrs = member(file, "attributes");
  for (int a = 0; a < e->nattrs; a++) {
    gen_attr *at = &e->attrs[a];
    at->name = ddbst_model_attribute_name(g->model, index, a);
    at->type = ddbst_model_attribute_type(g->model, index, a);
    yajl_val decl = member(attrs, at->name);
    if (YAJL_IS_OBJECT(decl)) {
      at->required = YAJL_IS_TRUE(member(decl, "required"));
      at->defaulted = member(decl, "default") != NULL;
      at->values = member(decl, "values");
    }
    /* implicit attributes (version, timestamps) are the library's to fill */
    if (!decl) at->defaulted = 1;
  }
  yajl_val key = member(file, "key");
  int lowered[MAX_FACETS] = {0};
  for (int part = 0; part < 2; part++) {
    yajl_val tpl = member(key, part ? "sk" : "pk");
    int first = e->nkey;
    template_facets(YAJL_IS_STRING(tpl) ? text_of(tpl) : NULL, e->key,
                    &e->nkey, lowered + first, facet_names,
                    sizeof facet_names, &facet_used);
  }
  /* a facet in both pk and sk ("ORG#{orgId}", "ORG#{orgId}") is one value */
  int kept = 0;
  for (int i = 0; i < e->nkey; i++) {
    int dup = 0;
    for (int j = 0; j < kept; j++) dup |= strcmp(e->key[j], e->key[i]) == 0;
    if (dup) continue;
    lowered[kept] = lowered[i];
    e->key[kept++] = e->key[i];
  }
  e->nkey = kept;
  for (int i = 0; i < e->nkey; i++) {
    int a = find_attr(e, e->key[i]);
    if (a < 0) continue;
    e->attrs[a].key = 1;
    e->attrs[a].lowered = lowered[i];
    e->attrs[a].required = 1;
  }
  return 0;
}

static void read_pattern(gen_model *g, const char *name, yajl_val p,
                         gen_pattern *out) {
  out->name = name;
  yajl_val op = member(p, "op");
  out->query = strcmp(text_of(op), "query") == 0;
  yajl_val ents = member(p, "entities");
  if (YAJL_IS_ARRAY(ents))
    for (size_t i = 0; i < ents->u.array.len && out->nentities < 32; i++)
      if (YAJL_IS_STRING(ents->u.array.values[i]))
        out->entities[out->nentities++] = text_of(ents->u.array.values[i]);
  yajl_val pk = member(p, "pk"), sk = member(p, "sk");
  template_facets(YAJL_IS_STRING(pk) ? text_of(pk) : NULL, out->pk,
                  &out->npk, NULL, facet_names, sizeof facet_names,
                  &facet_used);
  template_facets(YAJL_IS_STRING(sk) ? text_of(sk) : NULL, out->sk,
                  &out->nsk, NULL, facet_names, sizeof facet_names,
                  &facet_used);
  /* a facet of both ("ORG#{orgId}", "ORG#{orgId}") is one value */
  int kept = 0;
  for (int i = 0; i < out->nsk; i++) {
    int dup = 0;
    for (int j = 0; j < out->npk; j++) dup |= strcmp(out->pk[j], out->sk[i]) == 0;
    if (!dup) out->sk[kept++] = out->sk[i];
  }
  out->nsk = kept;
  (void)g;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += n;
    if (cap - len < 2) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

static int load(gen_model *g) {
  ddbst_error err;
  if (ddbst_model_load_file(g->file, NULL, &g->model, &err)) {
    fprintf(stderr, "ddbst: %s%s%s\n", err.path, err.path[0] ? ": " : "",
            err.message);
    return 2;
  }
  char *text = read_file(g->file);
  char why[256] = "";
  g->tree = text ? yajl_tree_parse(text, why, sizeof why) : NULL;
  free(text);
  /* the patterns as the library describes them (the JSON entry's answer) */
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"patterns\"}");
  cli_session s = {.model = g->file};
  char *answer = cli_run(&s, &req);
  cli_text_free(&req);
  g->patterns_tree = answer ? yajl_tree_parse(answer, why, sizeof why) : NULL;
  ddbst_json_free(answer);
  if (!g->tree || !g->patterns_tree) {
    fprintf(stderr, "ddbst: %s: %s\n", g->file, why[0] ? why : "unreadable");
    return 2;
  }
  g->nentities = ddbst_model_entity_count(g->model);
  g->entities = calloc((size_t)g->nentities + 1, sizeof *g->entities);
  if (!g->entities) return 2;
  for (int i = 0; i < g->nentities; i++)
    if (read_entity(g, i, &g->entities[i])) return 2;
  yajl_val pats = member(g->patterns_tree, "patterns");
  size_t np = YAJL_IS_OBJECT(pats) ? pats->u.object.len : 0;
  g->patterns = calloc(np + 1, sizeof *g->patterns);
  if (!g->patterns) return 2;
  for (size_t i = 0; i < np; i++)
    read_pattern(g, pats->u.object.keys[i], pats->u.object.values[i],
                 &g->patterns[g->npatterns++]);
  return 0;
}

static void unload(gen_model *g) {
  for (int i = 0; i < g->nentities; i++) free(g->entities[i].attrs);
  free(g->entities);
  free(g->patterns);
  yajl_tree_free(g->tree);
  yajl_tree_free(g->patterns_tree);
  ddbst_model_free(g->model);
}

static const gen_entity *entity_named(const gen_model *g, const char *name) {
  for (int i = 0; i < g->nentities; i++)
    if (strcmp(g->entities[i].name, name) == 0) return &g->entities[i];
  return NULL;
}

static const gen_attr *attr_of(const gen_entity *e, const char *name) {
  int a = e ? find_attr(e, name) : -1;
  return a < 0 ? NULL : &e->attrs[a];
}

static int is(const gen_attr *a, const char *type) {
  return strcmp(a->type, type) == 0;
}

/* A put takes it without a default of its own to fill it. */
static int put_requires(const gen_attr *a) {
  return a->required && !a->defaulted;
}

/* ---- names ---- */

/* "listOrders" → "list_orders", "OrderLine" → "order_line"; anything not
 * a letter or digit becomes '_'. */
static void snake(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; s[i] && n + 2 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isupper(c)) {
      if (i > 0 && n > 0 && out[n - 1] != '_') out[n++] = '_';
      out[n++] = (char)tolower(c);
    } else {
      out[n++] = isalnum(c) ? (char)c : '_';
    }
  }
  out[n] = '\0';
}

/* "listOrders" → "ListOrders" */
static void pascal(const char *s, char *out, size_t cap) {
  size_t n = 0;
  int up = 1;
  for (size_t i = 0; s[i] && n + 1 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!isalnum(c)) {
      up = 1;
      continue;
    }
    out[n++] = up ? (char)toupper(c) : (char)c;
    up = 0;
  }
  out[n] = '\0';
}

/* A C identifier: letters, digits and '_' only, not starting with a digit. */
static void c_ident(const char *s, char *out, size_t cap) {
  size_t n = 0;
  if (isdigit((unsigned char)s[0]) && cap > 1) out[n++] = '_';
  for (size_t i = 0; s[i] && n + 1 < cap; i++)
    out[n++] = isalnum((unsigned char)s[i]) ? s[i] : '_';
  out[n] = '\0';
}

static void print_enum(yajl_val values, const char *quote, const char *sep) {
  for (size_t i = 0; YAJL_IS_ARRAY(values) && i < values->u.array.len; i++) {
    yajl_val v = values->u.array.values[i];
    if (!YAJL_IS_STRING(v)) continue;
    printf("%s%s%s%s", i ? sep : "", quote, text_of(v), quote);
  }
}

/* ---- TypeScript ---- */

/* The type an attribute takes going in. */
static void ts_in(const gen_attr *a) {
  if (is(a, "enum") && a->values) print_enum(a->values, "'", " | ");
  else if (is(a, "timestamp")) fputs("string | Date", stdout);
  else if (is(a, "integer")) fputs("number | bigint", stdout);
  else if (is(a, "ttl")) fputs("number | bigint | string | Date", stdout);
  else if (is(a, "number")) fputs("number | bigint | NumberText", stdout);
  else if (is(a, "boolean")) fputs("boolean", stdout);
  else if (is(a, "binary")) fputs("Uint8Array", stdout);
  else if (is(a, "string_set")) fputs("Set<string> | string[]", stdout);
  else if (is(a, "number_set"))
    fputs("Set<number | bigint | string> | (number | bigint | string)[]",
          stdout);
  else if (is(a, "list")) fputs("Value[]", stdout);
  else if (is(a, "map")) fputs("{ [name: string]: Value }", stdout);
  else fputs("string", stdout);
}

/* The type an attribute has read back, in number mode N. */
static void ts_out(const gen_attr *a) {
  if (is(a, "enum") && a->values) print_enum(a->values, "'", " | ");
  else if (is(a, "integer") || is(a, "ttl")) fputs("Int<N>", stdout);
  else if (is(a, "number")) fputs("Num<N>", stdout);
  else if (is(a, "boolean")) fputs("boolean", stdout);
  else if (is(a, "binary")) fputs("Uint8Array", stdout);
  else if (is(a, "string_set")) fputs("Set<string>", stdout);
  else if (is(a, "number_set")) fputs("Set<Num<N>>", stdout);
  else if (is(a, "list")) fputs("ReadValue<N>[]", stdout);
  else if (is(a, "map")) fputs("{ [name: string]: ReadValue<N> }", stdout);
  else fputs("string", stdout);
}

static void ts_member(const gen_attr *a, int optional, int out) {
  printf("  %s%s: ", a->name, optional ? "?" : "");
  if (out) ts_out(a);
  else ts_in(a);
  fputs(";\n", stdout);
}

static void ts_values(const gen_entity *e, const char *const *facets, int n,
                      int optional) {
  for (int i = 0; i < n; i++) {
    const gen_attr *a = attr_of(e, facets[i]);
    if (!a) continue;
    printf(" %s%s: ", a->name, optional ? "?" : "");
    ts_in(a);
    fputs(";", stdout);
  }
}

static void generate_typescript(const gen_model *g) {
  printf("// %s: the types of the model %s, for `tsc --strict`.\n"
         "// Generated by `ddbst generate typescript`: do not edit, generate "
         "again.\n"
         "//   import { Ddbst } from 'ddbst';\n"
         "//   import type { %s } from './%s.js';\n"
         "//   const db = new Ddbst<%s>({ modelFile: '...' });\n",
         g->label, g->file, g->label, g->label, g->label);
  fputs("import type { NumberMode, NumberText, ReadValue, Value } from "
        "'ddbst';\n\n"
        "type Int<N extends NumberMode> = N extends 'string' ? string : "
        "N extends 'bigint' ? bigint : number;\n"
        "type Num<N extends NumberMode> = N extends 'string' ? string : "
        "N extends 'bigint' ? bigint | string : number;\n",
        stdout);
  for (int i = 0; i < g->nentities; i++) {
    const gen_entity *e = &g->entities[i];
    printf("\n/** What a put or create of %s takes. */\n"
           "export interface %sInput {\n", e->name, e->name);
    for (int a = 0; a < e->nattrs; a++)
      ts_member(&e->attrs[a], !put_requires(&e->attrs[a]), 0);
    printf("}\n\n/** The primary key of %s: what get, update and delete "
           "need. */\nexport interface %sKey {\n", e->name, e->name);
    for (int k = 0; k < e->nkey; k++) {
      const gen_attr *a = attr_of(e, e->key[k]);
      if (a) ts_member(a, 0, 0);
    }
    printf("}\n\n/** %s read back: its key facets always (but for a "
           "lower-cased one), the rest when stored. */\n"
           "export interface %sItem<N extends NumberMode = 'number'> {\n",
           e->name, e->name);
    for (int a = 0; a < e->nattrs; a++)
      ts_member(&e->attrs[a], !e->attrs[a].key || e->attrs[a].lowered, 1);
    fputs("}\n", stdout);
  }
  printf("\n/** The model: give it as new Ddbst<%s>(...). */\n"
         "export interface %s {\n  entities: {\n", g->label, g->label);
  for (int i = 0; i < g->nentities; i++) {
    const char *n = g->entities[i].name;
    printf("    %s: { input: %sInput; key: %sKey; item: { number: "
           "%sItem<'number'>; string: %sItem<'string'>; bigint: "
           "%sItem<'bigint'> } };\n",
           n, n, n, n, n, n);
  }
  fputs("  };\n  patterns: {\n", stdout);
  for (int i = 0; i < g->npatterns; i++) {
    const gen_pattern *p = &g->patterns[i];
    const gen_entity *e =
        p->nentities ? entity_named(g, p->entities[0]) : NULL;
    printf("    %s: { values: {", p->name);
    /* a get needs the whole key; a query its partition, and may narrow
     * with leading sort-key facets */
    ts_values(e, p->pk, p->npk, 0);
    ts_values(e, p->sk, p->nsk, p->query);
    fputs(" }; entities: ", stdout);
    for (int k = 0; k < p->nentities; k++)
      printf("%s'%s'", k ? " | " : "", p->entities[k]);
    if (!p->nentities) fputs("never", stdout);
    fputs(" };\n", stdout);
  }
  fputs("  };\n}\n", stdout);
}

/* ---- Python ---- */

static void py_in(const gen_attr *a) {
  if (is(a, "enum") && a->values) {
    fputs("Literal[", stdout);
    print_enum(a->values, "\"", ", ");
    fputs("]", stdout);
  } else if (is(a, "timestamp")) fputs("str | datetime.datetime", stdout);
  else if (is(a, "integer")) fputs("int", stdout);
  else if (is(a, "ttl")) fputs("int | str | datetime.datetime", stdout);
  else if (is(a, "number")) fputs("Decimal | int", stdout);
  else if (is(a, "boolean")) fputs("bool", stdout);
  else if (is(a, "binary")) fputs("bytes", stdout);
  else if (is(a, "string_set")) fputs("set[str] | frozenset[str]", stdout);
  else if (is(a, "number_set"))
    fputs("set[Decimal | int] | frozenset[Decimal | int]", stdout);
  else if (is(a, "list")) fputs("list[Any]", stdout);
  else if (is(a, "map")) fputs("dict[str, Any]", stdout);
  else fputs("str", stdout);
}

static void py_out(const gen_attr *a) {
  if (is(a, "enum") || is(a, "timestamp") || is(a, "integer") ||
      is(a, "ttl") || is(a, "boolean") || is(a, "binary") || is(a, "list") ||
      is(a, "map")) {
    if (is(a, "timestamp")) fputs("str", stdout);
    else if (is(a, "ttl")) fputs("int", stdout);
    else py_in(a);
  } else if (is(a, "number")) fputs("Decimal", stdout);
  else if (is(a, "string_set")) fputs("set[str]", stdout);
  else if (is(a, "number_set")) fputs("set[Decimal]", stdout);
  else fputs("str", stdout);
}

static void py_field(const gen_attr *a, int required, int total, int out) {
  printf("    %s: ", a->name);
  if (required && !total) fputs("Required[", stdout);
  if (out) py_out(a);
  else py_in(a);
  fputs(required && !total ? "]\n" : "\n", stdout);
}

static void py_pattern_values(const gen_model *g, const gen_pattern *p,
                              const char *cls) {
  const gen_entity *e = p->nentities ? entity_named(g, p->entities[0]) : NULL;
  printf("\n\nclass %sValues(TypedDict, total=False):\n"
         "    \"\"\"The values pattern %s takes.\"\"\"\n", cls, p->name);
  int any = 0;
  for (int part = 0; part < 2; part++) {
    const char *const *f = part ? p->sk : p->pk;
    for (int i = 0; i < (part ? p->nsk : p->npk); i++) {
      const gen_attr *a = attr_of(e, f[i]);
      if (a) py_field(a, !part || !p->query, 0, 0), any = 1;
    }
  }
  if (!any) fputs("    pass\n", stdout);
}

static void generate_python(const gen_model *g) {
  char cls[256], snk[256];
  printf("\"\"\"%s: the types of the model %s, for `mypy --strict`.\n\n"
         "Generated by `ddbst generate python`: do not edit, generate again."
         "\n\n    table = %sTable(ddbst.boto3.Table(Ddbst(model_file=...), "
         "boto3.client(\"dynamodb\")))\n\"\"\"\n\n",
         g->label, g->file, g->label);
  fputs("from __future__ import annotations\n\n"
        "import datetime\n"
        "from collections.abc import Iterator, Mapping, Sequence\n"
        "from decimal import Decimal\n"
        "from typing import Any, Literal, Required, TypedDict, cast\n\n"
        "import ddbst.boto3\n",
        stdout);
  for (int i = 0; i < g->nentities; i++) {
    const gen_entity *e = &g->entities[i];
    printf("\n\nclass %sInput(TypedDict, total=False):\n"
           "    \"\"\"What a put or create of %s takes.\"\"\"\n",
           e->name, e->name);
    for (int a = 0; a < e->nattrs; a++)
      py_field(&e->attrs[a], put_requires(&e->attrs[a]), 0, 0);
    printf("\n\nclass %sKey(TypedDict):\n"
           "    \"\"\"The primary key of %s.\"\"\"\n", e->name, e->name);
    for (int k = 0; k < e->nkey; k++) {
      const gen_attr *a = attr_of(e, e->key[k]);
      if (a) py_field(a, 1, 1, 0);
    }
    if (!e->nkey) fputs("    pass\n", stdout);
    printf("\n\nclass %sUpdate(TypedDict, total=False):\n"
           "    \"\"\"Attributes an update of %s may set.\"\"\"\n",
           e->name, e->name);
    int any = 0;
    for (int a = 0; a < e->nattrs; a++)
      if (!e->attrs[a].key) py_field(&e->attrs[a], 0, 0, 0), any = 1;
    if (!any) fputs("    pass\n", stdout);
    printf("\n\nclass %sItem(TypedDict, total=False):\n"
           "    \"\"\"%s read back.\"\"\"\n", e->name, e->name);
    for (int a = 0; a < e->nattrs; a++)
      py_field(&e->attrs[a], e->attrs[a].key && !e->attrs[a].lowered, 0, 1);
    printf("\n\nclass %sEntry(TypedDict):\n    entity: Literal[\"%s\"]\n"
           "    item: %sItem\n", e->name, e->name, e->name);
  }
  for (int i = 0; i < g->npatterns; i++) {
    const gen_pattern *p = &g->patterns[i];
    pascal(p->name, cls, sizeof cls);
    py_pattern_values(g, p, cls);
    if (!p->query) continue;
    printf("\n\nclass %sPage(TypedDict, total=False):\n"
           "    items: Required[list[", cls);
    for (int k = 0; k < p->nentities; k++)
      printf("%s%sEntry", k ? " | " : "", p->entities[k]);
    if (!p->nentities) fputs("Any", stdout);
    fputs("]]\n    count: Required[int]\n    hasMore: Required[bool]\n"
          "    cursor: str\n",
          stdout);
  }

  printf("\n\nclass %sTable:\n"
         "    \"\"\"ddbst.boto3.Table with this model's types: one method per "
         "entity and\n    operation, each taking that entity's (or "
         "pattern's) TypedDict, so\n    mypy refuses a misspelt attribute, "
         "a missing key value or a wrong\n    value type.\"\"\"\n\n"
         "    def __init__(self, table: ddbst.boto3.Table) -> None:\n"
         "        self.table = table\n",
         g->label);
  for (int i = 0; i < g->nentities; i++) {
    const char *n = g->entities[i].name;
    snake(n, snk, sizeof snk);
    printf("\n    def put_%s(self, values: %sInput, now: int | None = None) "
           "-> %sItem:\n"
           "        return cast(%sItem, self.table.put(\"%s\", dict(values), "
           "now=now))\n"
           "\n    def create_%s(self, values: %sInput, now: int | None = None)"
           " -> %sItem:\n"
           "        return cast(%sItem, self.table.create(\"%s\", "
           "dict(values), now=now))\n"
           "\n    def get_%s(self, key: %sKey, consistent: bool = False) -> "
           "%sItem | None:\n"
           "        return cast(%sItem | None, self.table.get(\"%s\", "
           "dict(key), consistent=consistent))\n"
           "\n    def update_%s(self, key: %sKey, set: %sUpdate | None = None,"
           "\n               remove: Sequence[str] | None = None) -> None:\n"
           "        self.table.update(\"%s\", dict(key), set=dict(set) if set "
           "is not None else None,\n"
           "                          remove=remove)\n"
           "\n    def delete_%s(self, key: %sKey) -> None:\n"
           "        self.table.delete(\"%s\", dict(key))\n",
           snk, n, n, n, n, snk, n, n, n, n, snk, n, n, n, n, snk, n, n, n,
           snk, n, n);
  }
  for (int i = 0; i < g->npatterns; i++) {
    const gen_pattern *p = &g->patterns[i];
    if (!p->query) continue;
    pascal(p->name, cls, sizeof cls);
    snake(p->name, snk, sizeof snk);
    printf("\n    def query_%s(self, values: %sValues, *, limit: int | None = "
           "None,\n                cursor: str | None = None,\n"
           "                condition: Mapping[str, Mapping[str, Any]] | "
           "None = None) -> %sPage:\n"
           "        return cast(%sPage, self.table.query(\"%s\", dict(values),"
           " condition=condition,\n"
           "                                             limit=limit, "
           "cursor=cursor))\n"
           "\n    def query_all_%s(self, values: %sValues, *, limit: int | "
           "None = None) -> Iterator[",
           snk, cls, cls, cls, p->name, snk, cls);
    for (int k = 0; k < p->nentities; k++)
      printf("%s%sEntry", k ? " | " : "", p->entities[k]);
    printf("]:\n        return cast(Iterator[Any], self.table.query_all(\"%s\", "
           "dict(values), limit=limit))\n",
           p->name);
  }
  (void)snk;
}

/* ---- C ---- */

/* The member's C type in the generated struct. */
static const char *c_type(const gen_attr *a, const char *prefix, char *buf,
                          size_t cap) {
  if (is(a, "integer") || is(a, "ttl")) snprintf(buf, cap, "%s_i64", prefix);
  else if (is(a, "boolean")) snprintf(buf, cap, "%s_bool", prefix);
  else snprintf(buf, cap, "const char *");
  return buf;
}

static const char *c_note(const gen_attr *a) {
  if (is(a, "timestamp")) return "ISO-8601 with a zone";
  if (is(a, "binary")) return "standard base64";
  if (is(a, "number")) return "a number's decimal text (exact)";
  if (is(a, "list") || is(a, "map") || is(a, "string_set") ||
      is(a, "number_set"))
    return "JSON text";
  return NULL;
}

/* Statements setting attribute `a` from expression `v`, in a wrapper. */
static void c_set(const char *prefix, const gen_entity *e, const gen_attr *a,
                  const char *v, int required) {
  char en[256], an[256];
  snake(e->name, en, sizeof en);
  c_ident(a->name, an, sizeof an);
  if (is(a, "integer") || is(a, "ttl")) {
    printf("  if (%s.set && (rc = ddbst_item_set_int(item, s->%s_%s, "
           "%s.value, err)) < 0) return rc;\n",
           v, en, an, v);
  } else if (is(a, "boolean")) {
    printf("  if (%s.set && (rc = ddbst_item_set_bool(item, s->%s_%s, "
           "%s.value, err)) < 0) return rc;\n",
           v, en, an, v);
  } else if (required) {
    printf("  if ((rc = %s__text(item, s->%s_%s, %s, err)) < 0) return rc;\n",
           prefix, en, an, v);
  } else {
    printf("  if (%s && (rc = %s__text(item, s->%s_%s, %s, err)) < 0) "
           "return rc;\n",
           v, prefix, en, an, v);
  }
}

/* The parameters of `facets` (each a value of its attribute's C type). */
static void c_params(const char *prefix, const gen_entity *e,
                     const char *const *facets, int n) {
  char t[256], an[256];
  for (int i = 0; i < n; i++) {
    const gen_attr *a = attr_of(e, facets[i]);
    if (!a) continue;
    c_ident(a->name, an, sizeof an);
    const char *ty = c_type(a, prefix, t, sizeof t);
    printf(", %s%s%s", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", an);
  }
}

static void generate_c(const gen_model *g) {
  char prefix[256], guard[260], en[256], an[256], t[256], pn[256];
  snake(g->label, prefix, sizeof prefix);
  char upper[256];
  size_t k = 0;
  for (; prefix[k] && k + 3 < sizeof guard; k++)
    upper[k] = guard[k] = (char)toupper((unsigned char)prefix[k]);
  upper[k] = '\0';
  memcpy(guard + k, "_H", 3);
  printf("/* %s.h: typed wrappers over ddbst's C API for the model %s.\n"
         " * Generated by `ddbst generate c`: do not edit, generate again.\n"
         " *\n"
         " * %s_bind() looks every entity, attribute and pattern up once "
         "and\n * checks the loaded model is the one this header was made "
         "from; each\n * wrapper then takes the values a request needs as "
         "parameters (so a\n * missing one does not compile) and the rest "
         "in a struct of typed\n * members (so a misspelt or mistyped one "
         "does not either). */\n"
         "#ifndef %s\n#define %s\n\n#include <stdint.h>\n#include "
         "<stdio.h>\n#include <string.h>\n\n#include <ddbst.h>\n\n",
         prefix, g->file, prefix, guard, guard);
  printf("/* An optional integer or boolean: %s_I64(42), %s_BOOL(1); a "
         "zeroed one is unset. */\n"
         "typedef struct %s_i64 { int set; int64_t value; } %s_i64;\n"
         "typedef struct %s_bool { int set; int value; } %s_bool;\n"
         "#define %s_I64(v) ((%s_i64){1, (v)})\n"
         "#define %s_BOOL(v) ((%s_bool){1, (v)})\n\n",
         prefix, upper, prefix, prefix, prefix, prefix, upper, prefix, upper,
         prefix);
  /* the indices */
  printf("/* Indices of the model's names, filled by %s_bind. */\n"
         "typedef struct %s {\n  const ddbst_model *model;\n",
         prefix, prefix);
  for (int i = 0; i < g->nentities; i++) {
    const gen_entity *e = &g->entities[i];
    snake(e->name, en, sizeof en);
    printf("  int %s;\n", en);
    for (int a = 0; a < e->nattrs; a++) {
      c_ident(e->attrs[a].name, an, sizeof an);
      printf("  int %s_%s;\n", en, an);
    }
  }
  for (int i = 0; i < g->npatterns; i++) {
    snake(g->patterns[i].name, pn, sizeof pn);
    printf("  int pattern_%s;\n", pn);
  }
  printf("} %s;\n\n", prefix);
  /* bind */
  printf("static inline int %s__fail(ddbst_error *err, const char *what) {\n"
         "  if (err) {\n    memset(err, 0, sizeof *err);\n"
         "    err->code = DDBST_EMODEL;\n"
         "    snprintf(err->path, sizeof err->path, \"%%s\", what);\n"
         "    snprintf(err->message, sizeof err->message, \"not in the loaded "
         "model as %s.h describes it: generate the header again\");\n  }\n  return DDBST_EMODEL;\n}\n\n",
         prefix, prefix);
  printf("static inline int %s__attr(const ddbst_model *m, int e, const char "
         "*name, const char *type, int *out, ddbst_error *err) {\n"
         "  int a = ddbst_model_attribute(m, e, name);\n"
         "  const char *t = a < 0 ? NULL : ddbst_model_attribute_type(m, e, "
         "a);\n"
         "  if (!t || strcmp(t, type) != 0) return %s__fail(err, name);\n"
         "  *out = a;\n  return 0;\n}\n\n",
         prefix, prefix);
  printf("/* Looks the model's names up into `s` (once, at start-up): 0, or "
         "DDBST_EMODEL\n * naming what the model lacks. */\n"
         "static inline int %s_bind(%s *s, const ddbst_model *m, ddbst_error "
         "*err) {\n  s->model = m;\n",
         prefix, prefix);
  for (int i = 0; i < g->nentities; i++) {
    const gen_entity *e = &g->entities[i];
    snake(e->name, en, sizeof en);
    printf("  if ((s->%s = ddbst_model_entity(m, \"%s\")) < 0) return "
           "%s__fail(err, \"%s\");\n",
           en, e->name, prefix, e->name);
    for (int a = 0; a < e->nattrs; a++) {
      c_ident(e->attrs[a].name, an, sizeof an);
      printf("  if (%s__attr(m, s->%s, \"%s\", \"%s\", &s->%s_%s, err)) "
             "return DDBST_EMODEL;\n",
             prefix, en, e->attrs[a].name, e->attrs[a].type, en, an);
    }
  }
  for (int i = 0; i < g->npatterns; i++) {
    snake(g->patterns[i].name, pn, sizeof pn);
    printf("  if ((s->pattern_%s = ddbst_model_pattern(m, \"%s\")) < 0) "
           "return %s__fail(err, \"%s\");\n",
           pn, g->patterns[i].name, prefix, g->patterns[i].name);
  }
  printf("  return 0;\n}\n\n"
         "static inline int %s__text(ddbst_item *item, int attribute, const "
         "char *text, ddbst_error *err) {\n"
         "  return ddbst_item_set(item, attribute, text, text ? strlen(text) "
         ": 0, err);\n}\n",
         prefix);
  for (int i = 0; i < g->nentities; i++) {
    const gen_entity *e = &g->entities[i];
    snake(e->name, en, sizeof en);
    /* the struct of the values not given as parameters */
    printf("\n/* ---- %s ---- */\n\n/* %s's values besides those its "
           "wrappers take as parameters; NULL\n * (or unset) members are "
           "left unset. */\ntypedef struct %s_%s {\n",
           e->name, e->name, prefix, en);
    int members = 0;
    for (int a = 0; a < e->nattrs; a++) {
      const gen_attr *at = &e->attrs[a];
      if (put_requires(at) || at->key) continue;
      c_ident(at->name, an, sizeof an);
      const char *ty = c_type(at, prefix, t, sizeof t);
      const char *note = c_note(at);
      printf("  %s%s%s; /* %s", ty, ty[strlen(ty) - 1] == '*' ? "" : " ", an,
             at->type);
      if (note) printf(": %s", note);
      if (is(at, "enum")) {
        fputs(": ", stdout);
        print_enum(at->values, "", ", ");
      }
      fputs(" */\n", stdout);
      members++;
    }
    if (!members) fputs("  int unused; /* every value is a parameter */\n",
                        stdout);
    printf("} %s_%s;\n\n", prefix, en);
    /* key */
    printf("/* Resets `item` to the %s of this primary key. */\n"
           "static inline int %s_%s_key(const %s *s, ddbst_item *item",
           e->name, prefix, en, prefix);
    c_params(prefix, e, e->key, e->nkey);
    printf(", ddbst_error *err) {\n  int rc;\n"
           "  if ((rc = ddbst_item_reset(item, s->%s)) < 0) return rc;\n",
           en);
    for (int f = 0; f < e->nkey; f++) {
      const gen_attr *a = attr_of(e, e->key[f]);
      if (!a) continue;
      c_ident(a->name, an, sizeof an);
      c_set(prefix, e, a, an, 1);
    }
    fputs("  return 0;\n}\n\n", stdout);
    /* put: required values as parameters */
    const char *req[64];
    int nreq = 0;
    for (int a = 0; a < e->nattrs && nreq < 64; a++)
      if (put_requires(&e->attrs[a]) ||
          (e->attrs[a].key && nreq < 64))
        req[nreq++] = e->attrs[a].name;
    printf("/* PutItem (flags: DDBST_CREATE for a create) of one %s: what it "
           "requires as\n * parameters (key facets with a default may be "
           "NULL, to be filled), the\n * rest in `more` (may be NULL). */\n"
           "static inline int %s_%s_put(const %s *s, ddbst_item *item",
           e->name, prefix, en, prefix);
    c_params(prefix, e, req, nreq);
    printf(", const %s_%s *more, uint32_t flags, int64_t now, ddbst_buf "
           "*out, ddbst_error *err) {\n  int rc;\n"
           "  if ((rc = ddbst_item_reset(item, s->%s)) < 0) return rc;\n",
           prefix, en, en);
    for (int f = 0; f < nreq; f++) {
      const gen_attr *a = attr_of(e, req[f]);
      c_ident(a->name, an, sizeof an);
      c_set(prefix, e, a, an, put_requires(a));
    }
    if (members) {
      fputs("  if (more) {\n", stdout);
      for (int a = 0; a < e->nattrs; a++) {
        const gen_attr *at = &e->attrs[a];
        if (put_requires(at) || at->key) continue;
        char expr[300];
        c_ident(at->name, an, sizeof an);
        snprintf(expr, sizeof expr, "more->%s", an);
        fputs("  ", stdout);
        c_set(prefix, e, at, expr, 0);
      }
      fputs("  }\n", stdout);
    }
    fputs("  return ddbst_put_request(item, flags, now, out, err);\n}\n\n",
          stdout);
    /* get and delete */
    static const char *const kinds[] = {"get", "delete"};
    for (int kd = 0; kd < 2; kd++) {
      printf("/* %s of one %s by its key. */\n"
             "static inline int %s_%s_%s(const %s *s, ddbst_item *item",
             kd ? "DeleteItem" : "GetItem", e->name, prefix, en, kinds[kd],
             prefix);
      c_params(prefix, e, e->key, e->nkey);
      printf(", uint32_t flags, ddbst_buf *out, ddbst_error *err) {\n"
             "  int rc = %s_%s_key(s, item",
             prefix, en);
      for (int f = 0; f < e->nkey; f++) {
        c_ident(e->key[f], an, sizeof an);
        printf(", %s", an);
      }
      printf(", err);\n  return rc < 0 ? rc : ddbst_%s_request(item, flags, "
             "out, err);\n}\n\n",
             kinds[kd]);
    }
  }
  /* queries */
  for (int i = 0; i < g->npatterns; i++) {
    const gen_pattern *p = &g->patterns[i];
    if (!p->query || !p->nentities) continue;
    const gen_entity *e = entity_named(g, p->entities[0]);
    if (!e) continue;
    snake(p->name, pn, sizeof pn);
    snake(e->name, en, sizeof en);
    printf("/* Query of pattern %s: its partition values as parameters; "
           "`q` (may be\n * NULL) for a sort-key condition, a limit and a "
           "cursor. `item` is reset to hold them. */\n"
           "static inline int %s_%s_query(const %s *s, ddbst_item *item",
           p->name, prefix, pn, prefix);
    c_params(prefix, e, p->pk, p->npk);
    printf(", const ddbst_query *q, ddbst_buf *out, ddbst_error *err) {\n"
           "  int rc;\n"
           "  if ((rc = ddbst_item_reset(item, s->%s)) < 0) return rc;\n",
           en);
    for (int f = 0; f < p->npk; f++) {
      const gen_attr *a = attr_of(e, p->pk[f]);
      if (!a) continue;
      c_ident(a->name, an, sizeof an);
      c_set(prefix, e, a, an, 1);
    }
    printf("  return ddbst_query_request(item, s->pattern_%s, q, out, "
           "err);\n}\n\n",
           pn);
  }
  printf("#endif /* %s */\n", guard);
}

/* ---- the verb ---- */

/* "examples/shop/model.json" → "Shop"; "blog.json" → "Blog". */
static void label_of(const char *file, char *out, size_t cap) {
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  char stem[256];
  size_t n = strcspn(base, ".");
  if (strncmp(base, "model.", 6) == 0 && slash) {
    const char *dir = slash;
    while (dir > file && dir[-1] != '/') dir--;
    base = dir;
    n = (size_t)(slash - dir);
  }
  if (n >= sizeof stem) n = sizeof stem - 1;
  memcpy(stem, base, n);
  stem[n] = '\0';
  pascal(stem, out, cap);
  if (!out[0]) snprintf(out, cap, "Model");
}

int cli_generate(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error("generate takes a language and a model file");
  const char *lang = argv[0];
  gen_model g = {.file = argv[1]};
  char label[256];
  label_of(argv[1], label, sizeof label);
  if (argc == 4 && strcmp(argv[2], "--name") == 0) {
    pascal(argv[3], label, sizeof label);
  } else if (argc != 2) {
    return cli_usage_error("generate: unexpected arguments");
  }
  if (!label[0] || isdigit((unsigned char)label[0]))
    return cli_usage_error("generate: --name must start with a letter");
  g.label = label;
  void (*emit)(const gen_model *) =
      strcmp(lang, "typescript") == 0 ? generate_typescript
      : strcmp(lang, "python") == 0   ? generate_python
      : strcmp(lang, "c") == 0        ? generate_c
                                      : NULL;
  if (!emit)
    return cli_usage_error("generate: the language is typescript, python "
                           "or c");
  facet_used = 0;
  int rc = load(&g);
  if (!rc) emit(&g);
  unload(&g);
  if (!rc && (fflush(stdout) || ferror(stdout))) {
    fprintf(stderr, "ddbst: generate: cannot write the output\n");
    rc = 1;
  }
  return rc;
}
