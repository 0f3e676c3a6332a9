/* Verbs that print request bodies, one per line as OPERATION<TAB>BODY, ready
 * for curl with the header X-Amz-Target: DynamoDB_20120810.OPERATION. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int print_request(int op, const ddbst_buf *b) {
  printf("%s\t", ddbst_operation_name(op));
  return cli_print_buf(b);
}

/* NAME=VALUE → the attribute index and the value; prints the error. */
static int split_assignment(const ddbst_model *m, int entity, char *arg,
                            int *attr, const char **value) {
  char *eq = strchr(arg, '=');
  if (!eq) {
    fprintf(stderr, "ddbst: %s: expected NAME=VALUE\n", arg);
    return 2;
  }
  *eq = '\0';
  *attr = ddbst_model_attribute(m, entity, arg);
  if (*attr < 0) {
    fprintf(stderr, "ddbst: %s.%s: %s has no attribute %s\n",
            ddbst_model_entity_name(m, entity), arg,
            ddbst_model_entity_name(m, entity), arg);
    return 2;
  }
  *value = eq + 1;
  return 0;
}

/* The shared front of the item verbs: model, entity, item. */
typedef struct item_cmd {
  ddbst_model *m;
  int entity;
  ddbst_item *item;
  ddbst_buf *out;
} item_cmd;

static int open_item(item_cmd *c, int argc, char **argv) {
  memset(c, 0, sizeof *c);
  if (argc < 2) return cli_usage_error("this verb takes MODEL ENTITY");
  if (cli_load(argv[0], 0, &c->m)) return 2;
  c->entity = ddbst_model_entity(c->m, argv[1]);
  if (c->entity < 0) {
    fprintf(stderr, "ddbst: entity %s: the model has no such entity\n",
            argv[1]);
    return 2;
  }
  c->item = ddbst_item_new(c->m, c->entity);
  c->out = ddbst_buf_new(NULL);
  if (!c->item || !c->out) {
    fprintf(stderr, "ddbst: out of memory\n");
    return 2;
  }
  return 0;
}

static void close_item(item_cmd *c) {
  ddbst_buf_free(c->out);
  ddbst_item_free(c->item);
  ddbst_model_free(c->m);
}

static int parse_int64(const char *s, int64_t *v) {
  char *end;
  long long x = strtoll(s, &end, 10);
  if (!*s || *end) return -1;
  *v = x;
  return 0;
}

/* get, put, create, delete, update: MODEL ENTITY NAME=VALUE... [options] */
static int item_verb(const char *verb, int argc, char **argv) {
  item_cmd c;
  int rc = open_item(&c, argc, argv);
  if (rc) {
    close_item(&c);
    return rc;
  }
  ddbst_error e;
  uint32_t flags = 0;
  int is_update = strcmp(verb, "update") == 0;
  for (int i = 2; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    int attr;
    const char *value;
    if (strcmp(a, "--consistent") == 0) {
      flags |= DDBST_CONSISTENT_READ;
    } else if (strcmp(a, "--if-exists") == 0) {
      flags |= DDBST_IF_EXISTS;
    } else if (strcmp(a, "--upsert") == 0 && is_update) {
      flags |= DDBST_UPSERT;
    } else if (strcmp(a, "--expect-version") == 0 && i + 1 < argc) {
      int64_t v;
      if (parse_int64(argv[++i], &v) ||
          ddbst_item_expect_version(c.item, v)) {
        fprintf(stderr, "ddbst: --expect-version: needs a whole number and "
                        "an entity with a version attribute\n");
        rc = 2;
      }
    } else if (strcmp(a, "--project") == 0 && i + 1 < argc) {
      int at = ddbst_model_attribute(c.m, c.entity, argv[++i]);
      if (at < 0) {
        fprintf(stderr, "ddbst: %s: no such attribute\n", argv[i]);
        rc = 2;
      } else {
        ddbst_item_project(c.item, at);
      }
    } else if (is_update && strcmp(a, "--remove") == 0 && i + 1 < argc) {
      int at = ddbst_model_attribute(c.m, c.entity, argv[++i]);
      if (at < 0) {
        fprintf(stderr, "ddbst: %s: no such attribute\n", argv[i]);
        rc = 2;
      } else {
        ddbst_item_remove(c.item, at);
      }
    } else if (is_update &&
               (strcmp(a, "--set") == 0 || strcmp(a, "--add") == 0 ||
                strcmp(a, "--append") == 0 || strcmp(a, "--previous") == 0) &&
               i + 1 < argc) {
      rc = split_assignment(c.m, c.entity, argv[++i], &attr, &value);
      if (rc) break;
      size_t n = strlen(value);
      int r = a[2] == 's'   ? ddbst_item_set(c.item, attr, value, n, &e)
              : a[2] == 'p' ? ddbst_item_set_previous(c.item, attr, value, n, &e)
              : a[3] == 'd' ? ddbst_item_add(c.item, attr, value, n, &e)
                            : ddbst_item_append(c.item, attr, value, n, &e);
      if (r) rc = cli_fail(&e);
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "ddbst: %s: unknown option for %s\n", a, verb);
      rc = 2;
    } else {
      rc = split_assignment(c.m, c.entity, argv[i], &attr, &value);
      if (!rc && ddbst_item_set(c.item, attr, value, strlen(value), &e))
        rc = cli_fail(&e);
    }
  }
  if (rc == 0) {
    int op;
    int64_t now = ddbst_now_unix_us();
    if (strcmp(verb, "get") == 0)
      op = ddbst_get_request(c.item, flags, c.out, &e);
    else if (strcmp(verb, "put") == 0)
      op = ddbst_put_request(c.item, flags, now, c.out, &e);
    else if (strcmp(verb, "create") == 0)
      op = ddbst_put_request(c.item, flags | DDBST_CREATE, now, c.out, &e);
    else if (strcmp(verb, "delete") == 0)
      op = ddbst_delete_request(c.item, flags, c.out, &e);
    else
      op = ddbst_update_request(c.item, flags, now, c.out, &e);
    rc = op < 0 ? cli_fail(&e) : print_request(op, c.out);
  }
  close_item(&c);
  return rc;
}

int cli_get(int argc, char **argv) { return item_verb("get", argc, argv); }
int cli_put(int argc, char **argv) { return item_verb("put", argc, argv); }
int cli_create(int argc, char **argv) { return item_verb("create", argc, argv); }
int cli_delete(int argc, char **argv) { return item_verb("delete", argc, argv); }
int cli_update(int argc, char **argv) { return item_verb("update", argc, argv); }

int cli_create_table(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("create-table takes one model file");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  int rc;
  int op = out ? ddbst_create_table_request(m, out, &e) : DDBST_ENOMEM;
  if (!out)
    rc = cli_usage_error("out of memory");
  else
    rc = op < 0 ? cli_fail(&e) : print_request(op, out);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return rc;
}

/* query MODEL PATTERN NAME=VALUE... [--begins|--gt|--gte|--lt|--lte
 * NAME=VALUE]... [--limit N] [--consistent]; --gte with --lte is a between. */
int cli_query(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("query takes MODEL PATTERN");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  int rc = 0;
  ddbst_cursor_keys *keys = NULL;
  ddbst_item *item = NULL;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  int pattern = ddbst_model_pattern(m, argv[1]);
  if (pattern < 0) {
    fprintf(stderr, "ddbst: pattern %s: the model has no such pattern\n",
            argv[1]);
    rc = 2;
    goto done;
  }
  /* the values are of the pattern's (first) entity */
  int entity = ddbst_model_pattern_entity(m, pattern, 0);
  if (entity < 0) {
    fprintf(stderr, "ddbst: pattern %s: not a query pattern\n", argv[1]);
    rc = 2;
    goto done;
  }
  item = ddbst_item_new(m, entity);
  if (!item || !out) {
    fprintf(stderr, "ddbst: out of memory\n");
    rc = 2;
    goto done;
  }
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  int have_gte = 0, have_lte = 0;
  const char *key_file = NULL;
  for (int i = 2; i < argc && !rc; i++) {
    const char *a = argv[i];
    int attr;
    const char *value;
    static const struct {
      const char *flag;
      int cond;
    } conds[] = {{"--begins", DDBST_SK_BEGINS}, {"--gt", DDBST_SK_GT},
                 {"--gte", DDBST_SK_GTE},       {"--lt", DDBST_SK_LT},
                 {"--lte", DDBST_SK_LTE}};
    int cond = -1;
    for (size_t j = 0; j < sizeof conds / sizeof conds[0]; j++)
      if (strcmp(a, conds[j].flag) == 0) cond = conds[j].cond;
    if (cond >= 0 && i + 1 < argc) {
      rc = split_assignment(m, entity, argv[++i], &attr, &value);
      if (rc) break;
      if (cond == DDBST_SK_GTE) have_gte = 1;
      if (cond == DDBST_SK_LTE) have_lte = 1;
      if (have_gte && have_lte && q.condition != DDBST_SK_NONE) {
        /* the second of --gte/--lte makes a between */
        if (q.attribute != attr) {
          fprintf(stderr, "ddbst: --gte and --lte must name one facet\n");
          rc = 2;
          break;
        }
        if (cond == DDBST_SK_LTE) {
          q.value2 = value;
          q.value2_len = strlen(value);
        } else {
          q.value2 = q.value;
          q.value2_len = q.value_len;
          q.value = value;
          q.value_len = strlen(value);
        }
        q.condition = DDBST_SK_BETWEEN;
        continue;
      }
      if (q.condition != DDBST_SK_NONE) {
        fprintf(stderr, "ddbst: a query takes one sort-key condition "
                        "(--gte with --lte makes a between)\n");
        rc = 2;
        break;
      }
      q.condition = cond;
      q.attribute = attr;
      q.value = value;
      q.value_len = strlen(value);
    } else if (strcmp(a, "--project") == 0 && i + 1 < argc) {
      int at = ddbst_model_attribute(m, entity, argv[++i]);
      if (at < 0) {
        fprintf(stderr, "ddbst: %s: no such attribute\n", argv[i]);
        rc = 2;
      } else {
        ddbst_item_project(item, at);
      }
    } else if (strcmp(a, "--cursor") == 0 && i + 1 < argc) {
      q.cursor = argv[++i];
      q.cursor_len = strlen(q.cursor);
    } else if (strcmp(a, "--cursor-key-file") == 0 && i + 1 < argc) {
      key_file = argv[++i];
    } else if (strcmp(a, "--limit") == 0 && i + 1 < argc) {
      q.limit = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(a, "--consistent") == 0) {
      q.flags |= DDBST_CONSISTENT_READ;
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "ddbst: %s: unknown option for query\n", a);
      rc = 2;
    } else {
      rc = split_assignment(m, entity, argv[i], &attr, &value);
      if (!rc && ddbst_item_set(item, attr, value, strlen(value), &e))
        rc = cli_fail(&e);
    }
  }
  if (!rc && q.cursor) {
    keys = cli_cursor_keys(key_file, &rc);
    q.cursor_keys = keys;
  }
  if (!rc) {
    int op = ddbst_query_request(item, pattern, &q, out, &e);
    rc = op < 0 ? cli_fail(&e) : print_request(op, out);
  }
done:
  ddbst_cursor_keys_free(keys);
  ddbst_buf_free(out);
  ddbst_item_free(item);
  ddbst_model_free(m);
  return rc;
}
