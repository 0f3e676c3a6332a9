/* The `ddbst` command: a thin shell over the public API. Output is one JSON
 * document on stdout; bad input exits 2 with "ddbst: <path>: <message>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddbst.h"

static const char usage[] =
    "usage: ddbst check MODEL\n"
    "       ddbst keys MODEL ENTITY NAME=VALUE...\n"
    "       ddbst parse MODEL [--index NAME] PK [SK]\n"
    "       ddbst patterns MODEL\n"
    "options before the verb: --table NAME (overrides table.name)\n";

static void print_error(const ddbst_error *e) {
  if (e->path[0])
    fprintf(stderr, "ddbst: %s: %s\n", e->path, e->message);
  else
    fprintf(stderr, "ddbst: %s\n", e->message);
}

static void print_each(void *user, const ddbst_error *e) {
  (void)user;
  print_error(e);
}

static int fail(const ddbst_error *e) {
  print_error(e);
  return 2;
}

static int usage_error(const char *why) {
  fprintf(stderr, "ddbst: %s\n%s", why, usage);
  return 2;
}

static const char *table_override;
static void print_json_string(const char *s, size_t n);

/* Loads MODEL; with `all`, every error is printed, else only the first. */
static int load(const char *path, int all, ddbst_model **m) {
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = table_override;
  if (all) o.on_error = print_each;
  ddbst_error e;
  int rc = ddbst_model_load_file(path, &o, m, &e);
  if (rc == 0) return 0;
  if (!all || rc == DDBST_EIO || rc == DDBST_ENOMEM) print_error(&e);
  return 2;
}

static int print_buf(ddbst_buf *b) {
  fwrite(ddbst_buf_data(b), 1, ddbst_buf_len(b), stdout);
  fputc('\n', stdout);
  return ferror(stdout) ? 1 : 0;
}

static int cmd_check(int argc, char **argv) {
  if (argc != 1) return usage_error("check takes one model file");
  ddbst_model *m;
  if (load(argv[0], 1, &m)) return 2;
  const char *table = ddbst_model_table_name(m);
  printf("{\"ok\":true,\"table\":");
  print_json_string(table, strlen(table));
  printf(",\"entities\":%d,\"patterns\":%d}\n", ddbst_model_entity_count(m),
         ddbst_model_pattern_count(m));
  ddbst_model_free(m);
  return 0;
}

static int cmd_keys(int argc, char **argv) {
  if (argc < 2) return usage_error("keys takes a model file and an entity");
  ddbst_model *m;
  if (load(argv[0], 0, &m)) return 2;
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
      rc = fail(&e);
      goto done;
    }
  }
  /* Keys as the item would be written: defaults (now, generated ULIDs)
   * filled in first. */
  if (ddbst_item_apply_defaults(item, ddbst_now_unix_us(), &e) ||
      ddbst_item_keys_json(item, out, &e)) {
    rc = fail(&e);
    goto done;
  }
  rc = print_buf(out);
done:
  ddbst_buf_free(out);
  ddbst_item_free(item);
  ddbst_model_free(m);
  return rc;
}

static void print_json_string(const char *s, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

/* A value as JSON, typed the way its attribute is. */
static void print_value(const char *type, const char *v, size_t n) {
  if (strcmp(type, "integer") == 0 || strcmp(type, "boolean") == 0)
    fwrite(v, 1, n, stdout);
  else
    print_json_string(v, n);
}

static int cmd_parse(int argc, char **argv) {
  const char *index = NULL;
  if (argc < 1) return usage_error("parse takes a model file and a key");
  const char *model_path = argv[0];
  argc--, argv++;
  if (argc >= 2 && strcmp(argv[0], "--index") == 0) {
    index = argv[1];
    argc -= 2, argv += 2;
  }
  if (argc < 1 || argc > 2) return usage_error("parse takes PK and maybe SK");
  ddbst_model *m;
  if (load(model_path, 0, &m)) return 2;
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
    rc = fail(&e);
  } else {
    printf("{\"entity\":");
    const char *ename = ddbst_model_entity_name(m, entity);
    print_json_string(ename, strlen(ename));
    printf(",\"values\":{");
    int first = 1;
    for (int a = 0; a < ddbst_model_attribute_count(m, entity); a++) {
      const char *v;
      size_t n;
      if (ddbst_item_get(item, a, &v, &n) != 1) continue;
      const char *name = ddbst_model_attribute_name(m, entity, a);
      printf("%s", first ? "" : ",");
      first = 0;
      print_json_string(name, strlen(name));
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

static int cmd_patterns(int argc, char **argv) {
  if (argc != 1) return usage_error("patterns takes one model file");
  ddbst_model *m;
  if (load(argv[0], 0, &m)) return 2;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  int rc;
  if (!out)
    rc = usage_error("out of memory");
  else if (ddbst_model_patterns_json(m, out, &e))
    rc = fail(&e);
  else
    rc = print_buf(out);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return rc;
}

int main(int argc, char **argv) {
  argc--, argv++;
  while (argc >= 2 && strcmp(argv[0], "--table") == 0) {
    table_override = argv[1];
    argc -= 2, argv += 2;
  }
  if (argc >= 1 && (strcmp(argv[0], "--version") == 0)) {
    printf("ddbst %s\n", ddbst_version());
    return 0;
  }
  if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
    fputs(usage, argc < 1 ? stderr : stdout);
    return argc < 1 ? 2 : 0;
  }
  const char *verb = argv[0];
  argc--, argv++;
  if (strcmp(verb, "check") == 0) return cmd_check(argc, argv);
  if (strcmp(verb, "keys") == 0) return cmd_keys(argc, argv);
  if (strcmp(verb, "parse") == 0) return cmd_parse(argc, argv);
  if (strcmp(verb, "patterns") == 0) return cmd_patterns(argc, argv);
  fprintf(stderr, "ddbst: unknown verb '%s'\n%s", verb, usage);
  return 2;
}
