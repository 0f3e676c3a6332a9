/* The `generate` verb's shared pieces: a model as the generators see it
 * (read by generate_model.c) and one emitter a language (generate_ts.c,
 * generate_py.c, generate_c.c), each writing to stdout. */
#ifndef DDBST_CLI_GENERATE_H
#define DDBST_CLI_GENERATE_H

#include <stddef.h>
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

/* Loads the model file into `g` (g->file set): 0, or 2 after a message. */
int gen_load(gen_model *g);
void gen_unload(gen_model *g);

const gen_entity *gen_entity_named(const gen_model *g, const char *name);
const gen_attr *gen_attr_of(const gen_entity *e, const char *name);
int gen_is(const gen_attr *a, const char *type);
/* A put takes it without a default of its own to fill it. */
int gen_put_requires(const gen_attr *a);
/* A string value's text, "" for anything else. */
const char *gen_text_of(yajl_val v);
yajl_val gen_member(yajl_val obj, const char *key);

/* Names: "listOrders" → "list_orders", → "ListOrders"; a C identifier. */
void gen_snake(const char *s, char *out, size_t cap);
void gen_pascal(const char *s, char *out, size_t cap);
void gen_c_ident(const char *s, char *out, size_t cap);
/* An enum's values, each quoted with `quote`, separated by `sep`. */
void gen_print_enum(yajl_val values, const char *quote, const char *sep);

void generate_typescript(const gen_model *g);
void generate_python(const gen_model *g);
void generate_c(const gen_model *g);

#endif
