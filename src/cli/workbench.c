/* workbench MODEL: the model as a NoSQL Workbench data model (its JSON
 * format: ModelName, ModelMetadata, DataModel[] of tables with
 * KeyAttributes, NonKeyAttributes, GlobalSecondaryIndexes, TableFacets and
 * TableData), made from the library's view of the model: one facet per
 * entity, its key templates as the key aliases, and the view's sample items
 * as the table's data. workbench_import.c reads the format back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"
#include "workbench.h"

static const cli_option workbench_options[] = {
    {"--import", "FILE", "read a Workbench model into a starting ddbst model"},
    {"--seed", "N", "the sample data's seed (default 1)"},
    {NULL, NULL, NULL}};

const cli_help cli_workbench_help[] = {
    {"workbench", "MODEL [--seed N] | --import FILE",
     "The model as a NoSQL Workbench data model: the table, its key\n"
     "attributes and GSIs, one facet per entity (its key templates as the\n"
     "aliases) and ddbst view's sample items as the table's data. With\n"
     "--import, a Workbench model as a starting ddbst model, and on stderr\n"
     "a note of what could not be inferred.",
     workbench_options,
     "ddbst workbench examples/saas/model.json > saas.workbench.json"},
    {NULL, NULL, NULL, NULL, NULL}};

yajl_val wb_get(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  return obj ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

const char *wb_str(yajl_val obj, const char *key) {
  yajl_val v = wb_get(obj, key);
  return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
}

const char *wb_dynamodb_type(const char *type) {
  static const struct {
    const char *ddbst, *dynamodb;
  } types[] = {{"integer", "N"},   {"number", "N"},      {"ttl", "N"},
               {"boolean", "BOOL"}, {"list", "L"},       {"map", "M"},
               {"string_set", "SS"}, {"number_set", "NS"}, {"binary", "B"}};
  for (size_t i = 0; type && i < sizeof types / sizeof types[0]; i++)
    if (!strcmp(type, types[i].ddbst)) return types[i].dynamodb;
  return "S"; /* string, timestamp, ulid, enum: text */
}

static void add_key(cli_text *t, const char *role, const char *name) {
  cli_add(t, "\"");
  cli_add(t, role);
  cli_add(t, "\":{\"AttributeName\":");
  cli_add_string(t, name, strlen(name));
  cli_add(t, ",\"AttributeType\":\"S\"}");
}

/* {"PartitionKey":{...},"SortKey":{...}} */
static void add_key_attributes(cli_text *t, const char *pk, const char *sk) {
  cli_add(t, "{");
  add_key(t, "PartitionKey", pk);
  if (sk) {
    cli_add(t, ",");
    add_key(t, "SortKey", sk);
  }
  cli_add(t, "}");
}

/* Whether `name` is among the first `n` names of `seen`. */
static int seen_before(const char **seen, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(seen[i], name)) return 1;
  return 0;
}

static void add_attribute(cli_text *t, int *first, const char *name,
                          const char *type) {
  cli_add(t, *first ? "{\"AttributeName\":" : ",{\"AttributeName\":");
  cli_add_string(t, name, strlen(name));
  cli_add(t, ",\"AttributeType\":\"");
  cli_add(t, type);
  cli_add(t, "\"}");
  *first = 0;
}

/* The Workbench model of the view `v` (the answer's "view"). */
static void write_model(cli_text *t, yajl_val v, const char *model_file) {
  yajl_val table = wb_get(v, "table"), indexes = wb_get(v, "indexes");
  yajl_val entities = wb_get(v, "entities"), items = wb_get(v, "items");
  const char *name = wb_str(table, "name"), *pk = wb_str(table, "partitionKey");
  const char *sk = wb_str(table, "sortKey");
  const char *desc = wb_str(table, "description");
  char about[1024];
  snprintf(about, sizeof about, "%s", desc ? desc : "");
  (void)model_file;
  cli_add(t, "{\"ModelName\":");
  cli_add_string(t, name, strlen(name));
  cli_add(t, ",\"ModelMetadata\":{\"Author\":\"ddbst\",\"DateCreated\":"
             "\"Jun 01, 2026, 12:00 PM\",\"DateLastModified\":"
             "\"Jun 01, 2026, 12:00 PM\",\"Description\":");
  cli_add_string(t, about, strlen(about));
  cli_add(t, ",\"AWSService\":\"Amazon DynamoDB\",\"Version\":\"3.0\"},"
             "\"DataModel\":[{\"TableName\":");
  cli_add_string(t, name, strlen(name));
  cli_add(t, ",\"KeyAttributes\":");
  add_key_attributes(t, pk, sk);

  /* every other attribute once: the indexes' keys, the entity attribute,
   * then each entity's attributes (the first type met wins) */
  const char *seen[1024];
  size_t nseen = 0;
  int first = 1;
  cli_add(t, ",\"NonKeyAttributes\":[");
  for (size_t i = 0; indexes && i < indexes->u.array.len; i++) {
    const char *keys[2] = {wb_str(indexes->u.array.values[i], "partitionKey"),
                           wb_str(indexes->u.array.values[i], "sortKey")};
    for (int k = 0; k < 2; k++)
      if (keys[k] && !seen_before(seen, nseen, keys[k]) && nseen < 1024) {
        seen[nseen++] = keys[k];
        add_attribute(t, &first, keys[k], "S");
      }
  }
  const char *type_attr = wb_str(table, "entityAttribute");
  if (type_attr && nseen < 1024) {
    seen[nseen++] = type_attr;
    add_attribute(t, &first, type_attr, "S");
  }
  for (size_t e = 0; entities && e < entities->u.array.len; e++) {
    yajl_val attrs = wb_get(entities->u.array.values[e], "attributes");
    for (size_t a = 0; attrs && a < attrs->u.array.len; a++) {
      const char *n = wb_str(attrs->u.array.values[a], "name");
      if (!n || seen_before(seen, nseen, n) || nseen >= 1024) continue;
      seen[nseen++] = n;
      add_attribute(t, &first,
                    n, wb_dynamodb_type(wb_str(attrs->u.array.values[a], "type")));
    }
  }
  cli_add(t, "]");

  cli_add(t, ",\"GlobalSecondaryIndexes\":[");
  for (size_t i = 0; indexes && i < indexes->u.array.len; i++) {
    yajl_val ix = indexes->u.array.values[i];
    const char *ixn = wb_str(ix, "name");
    cli_add(t, i ? ",{\"IndexName\":" : "{\"IndexName\":");
    cli_add_string(t, ixn, strlen(ixn));
    cli_add(t, ",\"KeyAttributes\":");
    add_key_attributes(t, wb_str(ix, "partitionKey"), wb_str(ix, "sortKey"));
    yajl_val proj = wb_get(ix, "projection");
    if (YAJL_IS_ARRAY(proj)) {
      cli_add(t, ",\"Projection\":{\"ProjectionType\":\"INCLUDE\","
                 "\"NonKeyAttributes\":[");
      for (size_t k = 0; k < proj->u.array.len; k++) {
        const char *a = YAJL_GET_STRING(proj->u.array.values[k]);
        if (k) cli_add(t, ",");
        cli_add_string(t, a, strlen(a));
      }
      cli_add(t, "]}}");
    } else {
      cli_add(t, ",\"Projection\":{\"ProjectionType\":");
      const char *p = YAJL_IS_STRING(proj) ? YAJL_GET_STRING(proj) : "ALL";
      cli_add_string(t, p, strlen(p));
      cli_add(t, "}}");
    }
  }
  cli_add(t, "]");

  cli_add(t, ",\"TableFacets\":[");
  for (size_t e = 0; entities && e < entities->u.array.len; e++) {
    yajl_val ent = entities->u.array.values[e];
    const char *en = wb_str(ent, "name");
    yajl_val key = wb_get(ent, "key");
    const char *kp = wb_str(key, "pk"), *ks = wb_str(key, "sk");
    cli_add(t, e ? ",{\"FacetName\":" : "{\"FacetName\":");
    cli_add_string(t, en, strlen(en));
    cli_add(t, ",\"KeyAttributeAlias\":{\"PartitionKeyAlias\":");
    cli_add_string(t, kp ? kp : "", kp ? strlen(kp) : 0);
    if (sk) {
      cli_add(t, ",\"SortKeyAlias\":");
      cli_add_string(t, ks ? ks : "", ks ? strlen(ks) : 0);
    }
    cli_add(t, "},\"NonKeyAttributes\":[");
    /* the entity's attributes, and the keys of the indexes it is in */
    int f = 1;
    yajl_val ixs = wb_get(ent, "indexes");
    for (size_t i = 0; YAJL_IS_OBJECT(ixs) && i < ixs->u.object.len; i++)
      for (size_t j = 0; indexes && j < indexes->u.array.len; j++) {
        yajl_val ix = indexes->u.array.values[j];
        if (strcmp(wb_str(ix, "name"), ixs->u.object.keys[i])) continue;
        const char *keys[2] = {wb_str(ix, "partitionKey"),
                               wb_str(ix, "sortKey")};
        for (int k = 0; k < 2; k++)
          if (keys[k]) {
            cli_add(t, f ? "" : ",");
            cli_add_string(t, keys[k], strlen(keys[k]));
            f = 0;
          }
      }
    if (type_attr) {
      cli_add(t, f ? "" : ",");
      cli_add_string(t, type_attr, strlen(type_attr));
      f = 0;
    }
    yajl_val attrs = wb_get(ent, "attributes");
    for (size_t a = 0; attrs && a < attrs->u.array.len; a++) {
      const char *n = wb_str(attrs->u.array.values[a], "name");
      cli_add(t, f ? "" : ",");
      cli_add_string(t, n, strlen(n));
      f = 0;
    }
    cli_add(t, "]}");
  }
  cli_add(t, "]");

  /* the sample items, as written: the table's data */
  cli_add(t, ",\"TableData\":[");
  for (size_t i = 0; items && i < items->u.array.len; i++) {
    if (i) cli_add(t, ",");
    wb_add_json(t, wb_get(items->u.array.values[i], "item"));
  }
  cli_add(t, "],\"DataAccess\":{\"MySql\":{}},\"BillingMode\":"
             "\"PAY_PER_REQUEST\"}]}");
}

void wb_add_json(cli_text *t, yajl_val v) {
  if (YAJL_IS_STRING(v)) {
    const char *s = YAJL_GET_STRING(v);
    cli_add_string(t, s ? s : "", s ? strlen(s) : 0);
  } else if (YAJL_IS_NUMBER(v)) {
    cli_add(t, YAJL_GET_NUMBER(v));
  } else if (YAJL_IS_TRUE(v)) {
    cli_add(t, "true");
  } else if (YAJL_IS_FALSE(v)) {
    cli_add(t, "false");
  } else if (YAJL_IS_OBJECT(v)) {
    cli_add(t, "{");
    for (size_t i = 0; i < v->u.object.len; i++) {
      if (i) cli_add(t, ",");
      cli_add_string(t, v->u.object.keys[i], strlen(v->u.object.keys[i]));
      cli_add(t, ":");
      wb_add_json(t, v->u.object.values[i]);
    }
    cli_add(t, "}");
  } else if (YAJL_IS_ARRAY(v)) {
    cli_add(t, "[");
    for (size_t i = 0; i < v->u.array.len; i++) {
      if (i) cli_add(t, ",");
      wb_add_json(t, v->u.array.values[i]);
    }
    cli_add(t, "]");
  } else {
    cli_add(t, "null");
  }
}

static int export_model(const char *model, const char *seed) {
  char *end;
  unsigned long long n = strtoull(seed, &end, 10);
  if (!*seed || *end || seed[0] == '-') {
    fprintf(stderr, "ddbst: workbench: --seed: expected a whole number, not "
                    "'%s'\n",
            seed);
    return 2;
  }
  cli_text req = {0};
  char text[64];
  snprintf(text, sizeof text, "{\"op\":\"view\",\"seed\":%llu}", n);
  cli_add(&req, text);
  cli_session s = {.model = model};
  char *answer = cli_run(&s, &req);
  cli_text_free(&req);
  if (!answer) return 2;
  const char *path[] = {"view", NULL};
  yajl_val root = yajl_tree_parse(answer, NULL, 0);
  yajl_val v = root ? yajl_tree_get(root, path, yajl_t_object) : NULL;
  cli_text out = {0};
  if (v) write_model(&out, v, model);
  int rc = v && !out.nomem ? 0 : 2;
  if (rc)
    fprintf(stderr, "ddbst: workbench: out of memory\n");
  else
    printf("%s\n", out.data);
  cli_text_free(&out);
  yajl_tree_free(root);
  ddbst_json_free(answer);
  return rc;
}

int cli_workbench(int argc, char **argv) {
  const char *model = NULL, *import = NULL, *seed = "1";
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--import") && i + 1 < argc)
      import = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_unknown_option(argv[i]);
    else if (model)
      return cli_usage_error("workbench takes one model file");
    else
      model = argv[i];
  }
  if (!!model == !!import)
    return cli_usage_error("workbench takes a model file, or --import FILE");
  return import ? wb_import(import) : export_model(model, seed);
}
