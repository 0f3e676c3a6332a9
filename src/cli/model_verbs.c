/* Verbs on the model itself: check it, build keys, parse keys, list the
 * access patterns. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A value as JSON, typed the way its attribute is. */
static void print_value(const char *type, const char *v, size_t n) {
  if (strcmp(type, "integer") == 0 || strcmp(type, "boolean") == 0)
    fwrite(v, 1, n, stdout);
  else
    cli_print_json_string(v, n);
}

int cli_check(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("check takes one model file");
  ddbst_model *m;
  if (cli_load(argv[0], 1, &m)) return 2;
  const char *table = ddbst_model_table_name(m);
  printf("{\"ok\":true,\"table\":");
  cli_print_json_string(table, strlen(table));
  printf(",\"entities\":%d,\"patterns\":%d}\n", ddbst_model_entity_count(m),
         ddbst_model_pattern_count(m));
  ddbst_model_free(m);
  return 0;
}

int cli_keys(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("keys takes a model file and an entity");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  ddbst_error e;
  int rc = 2;
  ddbst_item *item = NULL;
  ddbst_buf *out = ddbst_buf_new(NULL);
  int entity = ddbst_model_entity(m, argv[1]);
  if (entity < 0) {
    fprintf(stderr, "ddbst: entity %s: the model has no such entity\n", argv[1]);
    goto done;
  }
  item = ddbst_item_new(m, entity);
  if (!item || !out) {
    fprintf(stderr, "ddbst: out of memory\n");
    goto done;
  }
  for (int i = 2; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      fprintf(stderr, "ddbst: %s: expected NAME=VALUE\n", argv[i]);
      goto done;
    }
    *eq = '\0';
    int a = ddbst_model_attribute(m, entity, argv[i]);
    if (a < 0) {
      fprintf(stderr, "ddbst: %s.%s: %s has no attribute %s\n", argv[1],
              argv[i], argv[1], argv[i]);
      goto done;
    }
    if (ddbst_item_set(item, a, eq + 1, strlen(eq + 1), &e)) {
      rc = cli_fail(&e);
      goto done;
    }
  }
  /* Keys as the item would be written: defaults (now, generated ULIDs)
   * filled in first. */
  if (ddbst_item_apply_defaults(item, ddbst_now_unix_us(), &e) ||
      ddbst_item_keys_json(item, out, &e)) {
    rc = cli_fail(&e);
    goto done;
  }
  rc = cli_print_buf(out);
done:
  ddbst_buf_free(out);
  ddbst_item_free(item);
  ddbst_model_free(m);
  return rc;
}

int cli_parse(int argc, char **argv) {
  const char *index = NULL;
  if (argc < 1) return cli_usage_error("parse takes a model file and a key");
  const char *model_path = argv[0];
  argc--, argv++;
  if (argc >= 2 && strcmp(argv[0], "--index") == 0) {
    index = argv[1];
    argc -= 2, argv += 2;
  }
  if (argc < 1 || argc > 2) return cli_usage_error("parse takes PK and maybe SK");
  ddbst_model *m;
  if (cli_load(model_path, 0, &m)) return 2;
  ddbst_error e;
  int rc = 2;
  ddbst_item *item = ddbst_item_new(m, 0);
  if (!item) {
    fprintf(stderr, "ddbst: out of memory\n");
    ddbst_model_free(m);
    return 2;
  }
  int entity = ddbst_item_from_key(item, index, argv[0], strlen(argv[0]),
                                   argc == 2 ? argv[1] : NULL,
                                   argc == 2 ? strlen(argv[1]) : 0, &e);
  if (entity < 0) {
    rc = cli_fail(&e);
  } else {
    printf("{\"entity\":");
    const char *ename = ddbst_model_entity_name(m, entity);
    cli_print_json_string(ename, strlen(ename));
    printf(",\"values\":{");
    int first = 1;
    for (int a = 0; a < ddbst_model_attribute_count(m, entity); a++) {
      const char *v;
      size_t n;
      if (ddbst_item_get(item, a, &v, &n) != 1) continue;
      const char *name = ddbst_model_attribute_name(m, entity, a);
      printf("%s", first ? "" : ",");
      first = 0;
      cli_print_json_string(name, strlen(name));
      putchar(':');
      print_value(ddbst_model_attribute_type(m, entity, a), v, n);
    }
    printf("}}\n");
    rc = 0;
  }
  ddbst_item_free(item);
  ddbst_model_free(m);
  return rc;
}

int cli_patterns(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("patterns takes one model file");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  int rc;
  if (!out)
    rc = cli_usage_error("out of memory");
  else if (ddbst_model_patterns_json(m, out, &e))
    rc = cli_fail(&e);
  else
    rc = cli_print_buf(out);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return rc;
}

