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
 * (so it is valid).
 *
 * This file reads the model and holds the verb; generate_ts.c, _py.c and
 * _c.c write the languages. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generate.h"

/* ---- reading the model ---- */

/* A string value's text, "" for anything else. */
const char *gen_text_of(yajl_val v) {
  const char *t = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
  return t ? t : "";
}

yajl_val gen_member(yajl_val obj, const char *key) {
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
  yajl_val attrs = gen_member(file, "attributes");
  for (int a = 0; a < e->nattrs; a++) {
    gen_attr *at = &e->attrs[a];
    at->name = ddbst_model_attribute_name(g->model, index, a);
    at->type = ddbst_model_attribute_type(g->model, index, a);
    yajl_val decl = gen_member(attrs, at->name);
    if (YAJL_IS_OBJECT(decl)) {
      at->required = YAJL_IS_TRUE(gen_member(decl, "required"));
      at->defaulted = gen_member(decl, "default") != NULL;
      at->values = gen_member(decl, "values");
    }
    /* implicit attributes (version, timestamps) are the library's to fill */
    if (!decl) at->defaulted = 1;
  }
  yajl_val key = gen_member(file, "key");
  int lowered[MAX_FACETS] = {0};
  for (int part = 0; part < 2; part++) {
    yajl_val tpl = gen_member(key, part ? "sk" : "pk");
    int first = e->nkey;
    template_facets(YAJL_IS_STRING(tpl) ? gen_text_of(tpl) : NULL, e->key,
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
  yajl_val op = gen_member(p, "op");
  out->query = strcmp(gen_text_of(op), "query") == 0;
  yajl_val ents = gen_member(p, "entities");
  if (YAJL_IS_ARRAY(ents))
    for (size_t i = 0; i < ents->u.array.len && out->nentities < 32; i++)
      if (YAJL_IS_STRING(ents->u.array.values[i]))
        out->entities[out->nentities++] = gen_text_of(ents->u.array.values[i]);
  yajl_val pk = gen_member(p, "pk"), sk = gen_member(p, "sk");
  template_facets(YAJL_IS_STRING(pk) ? gen_text_of(pk) : NULL, out->pk,
                  &out->npk, NULL, facet_names, sizeof facet_names,
                  &facet_used);
  template_facets(YAJL_IS_STRING(sk) ? gen_text_of(sk) : NULL, out->sk,
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

int gen_load(gen_model *g) {
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
  yajl_val pats = gen_member(g->patterns_tree, "patterns");
  size_t np = YAJL_IS_OBJECT(pats) ? pats->u.object.len : 0;
  g->patterns = calloc(np + 1, sizeof *g->patterns);
  if (!g->patterns) return 2;
  for (size_t i = 0; i < np; i++)
    read_pattern(g, pats->u.object.keys[i], pats->u.object.values[i],
                 &g->patterns[g->npatterns++]);
  return 0;
}

void gen_unload(gen_model *g) {
  for (int i = 0; i < g->nentities; i++) free(g->entities[i].attrs);
  free(g->entities);
  free(g->patterns);
  yajl_tree_free(g->tree);
  yajl_tree_free(g->patterns_tree);
  ddbst_model_free(g->model);
}

const gen_entity *gen_entity_named(const gen_model *g, const char *name) {
  for (int i = 0; i < g->nentities; i++)
    if (strcmp(g->entities[i].name, name) == 0) return &g->entities[i];
  return NULL;
}

const gen_attr *gen_attr_of(const gen_entity *e, const char *name) {
  int a = e ? find_attr(e, name) : -1;
  return a < 0 ? NULL : &e->attrs[a];
}

int gen_is(const gen_attr *a, const char *type) {
  return strcmp(a->type, type) == 0;
}

/* A put takes it without a default of its own to fill it. */
int gen_put_requires(const gen_attr *a) {
  return a->required && !a->defaulted;
}

/* ---- names ---- */

/* "listOrders" → "list_orders", "OrderLine" → "order_line"; anything not
 * a letter or digit becomes '_'. */
void gen_snake(const char *s, char *out, size_t cap) {
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
void gen_pascal(const char *s, char *out, size_t cap) {
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
void gen_c_ident(const char *s, char *out, size_t cap) {
  size_t n = 0;
  if (isdigit((unsigned char)s[0]) && cap > 1) out[n++] = '_';
  for (size_t i = 0; s[i] && n + 1 < cap; i++)
    out[n++] = isalnum((unsigned char)s[i]) ? s[i] : '_';
  out[n] = '\0';
}

void gen_print_enum(yajl_val values, const char *quote, const char *sep) {
  for (size_t i = 0; YAJL_IS_ARRAY(values) && i < values->u.array.len; i++) {
    yajl_val v = values->u.array.values[i];
    if (!YAJL_IS_STRING(v)) continue;
    printf("%s%s%s%s", i ? sep : "", quote, gen_text_of(v), quote);
  }
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
  gen_pascal(stem, out, cap);
  if (!out[0]) snprintf(out, cap, "Model");
}

static const cli_option generate_options[] = {
    {"--name", "NAME",
     "the prefix of the generated names (default: from the file's name)"},
    {NULL, NULL, NULL}};

const cli_help cli_generate_help[] = {
    {"generate", "typescript|python|c MODEL [--name NAME]",
     "Declarations for one model: entity names, each entity's attribute\n"
     "value types, pattern names with the values each requires, and what\n"
     "each page item holds, so that a type checker (tsc --strict, mypy\n"
     "--strict, the C compiler) catches a misspelt attribute or a wrong\n"
     "value type.",
     generate_options, "ddbst generate typescript examples/saas/model.json"},
    {NULL, NULL, NULL, NULL, NULL}};

int cli_generate(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error("generate takes a language and a model file");
  const char *lang = argv[0];
  gen_model g = {.file = argv[1]};
  char label[256];
  label_of(argv[1], label, sizeof label);
  if (argc == 4 && strcmp(argv[2], "--name") == 0) {
    gen_pascal(argv[3], label, sizeof label);
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
  int rc = gen_load(&g);
  if (!rc) emit(&g);
  gen_unload(&g);
  if (!rc && (fflush(stdout) || ferror(stdout))) {
    fprintf(stderr, "ddbst: generate: cannot write the output\n");
    rc = 1;
  }
  return rc;
}
