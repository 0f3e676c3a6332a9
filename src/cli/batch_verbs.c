/* batch-get, batch-write and transact: operations read from stdin, one JSON
 * object per line, e.g. {"op":"put","entity":"User","values":{...}}; the
 * request bodies printed as OPERATION<TAB>BODY lines. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"

/* A JSON value back to text, for list, map and set attributes. */

static int grow(char **out, size_t *len, size_t *cap, size_t extra) {
  if (*len + extra + 1 <= *cap) return 0;
  size_t c = *cap ? *cap : 256;
  while (c < *len + extra + 1) c *= 2;
  char *p = realloc(*out, c);
  if (!p) return -1;
  *out = p;
  *cap = c;
  return 0;
}

static int put(char **out, size_t *len, size_t *cap, const char *s, size_t n) {
  if (grow(out, len, cap, n)) return -1;
  memcpy(*out + *len, s, n);
  *len += n;
  (*out)[*len] = '\0';
  return 0;
}

static int put_string(char **out, size_t *len, size_t *cap, const char *s) {
  if (put(out, len, cap, "\"", 1)) return -1;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      if (put(out, len, cap, esc, 2)) return -1;
    } else if (c < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      if (put(out, len, cap, esc, 6)) return -1;
    } else if (put(out, len, cap, s, 1)) {
      return -1;
    }
  }
  return put(out, len, cap, "\"", 1);
}

static int to_json(yajl_val v, char **out, size_t *len, size_t *cap) {
  if (YAJL_IS_STRING(v)) return put_string(out, len, cap, v->u.string);
  if (YAJL_IS_NUMBER(v)) {
    const char *n = YAJL_GET_NUMBER(v);
    return put(out, len, cap, n, strlen(n));
  }
  if (YAJL_IS_TRUE(v)) return put(out, len, cap, "true", 4);
  if (YAJL_IS_FALSE(v)) return put(out, len, cap, "false", 5);
  if (YAJL_IS_NULL(v)) return put(out, len, cap, "null", 4);
  if (YAJL_IS_ARRAY(v)) {
    if (put(out, len, cap, "[", 1)) return -1;
    for (size_t i = 0; i < v->u.array.len; i++) {
      if (i && put(out, len, cap, ",", 1)) return -1;
      if (to_json(v->u.array.values[i], out, len, cap)) return -1;
    }
    return put(out, len, cap, "]", 1);
  }
  if (put(out, len, cap, "{", 1)) return -1;
  for (size_t i = 0; i < v->u.object.len; i++) {
    if (i && put(out, len, cap, ",", 1)) return -1;
    if (put_string(out, len, cap, v->u.object.keys[i])) return -1;
    if (put(out, len, cap, ":", 1)) return -1;
    if (to_json(v->u.object.values[i], out, len, cap)) return -1;
  }
  return put(out, len, cap, "}", 1);
}

/* The text form of a JSON value for ddbst_item_set and friends: strings as
 * they are, numbers and booleans as written, containers as JSON. */
static const char *value_text(yajl_val v, char **buf, size_t *cap,
                              size_t *n) {
  const char *s = YAJL_IS_STRING(v) ? v->u.string : NULL;
  if (s) {
    *n = strlen(s);
    return s;
  }
  size_t len = 0;
  if (to_json(v, buf, &len, cap)) return NULL;
  *n = len;
  return *buf;
}

typedef int (*setter)(ddbst_item *, int, const char *, size_t, ddbst_error *);

static int set_add(ddbst_item *it, int a, const char *t, size_t n,
                   ddbst_error *e) {
  return ddbst_item_add(it, a, t, n, e);
}
static int set_append(ddbst_item *it, int a, const char *t, size_t n,
                      ddbst_error *e) {
  return ddbst_item_append(it, a, t, n, e);
}

/* Applies each member of object `obj` to the item with `fn`. */
static int apply(const ddbst_model *m, int entity, ddbst_item *it,
                 yajl_val obj, setter fn, const char *field, int line) {
  if (!obj) return 0;
  if (!YAJL_IS_OBJECT(obj)) {
    fprintf(stderr, "ddbst: line %d: %s: expected an object\n", line, field);
    return 2;
  }
  char *buf = NULL;
  size_t cap = 0;
  int rc = 0;
  for (size_t i = 0; i < obj->u.object.len && !rc; i++) {
    const char *name = obj->u.object.keys[i];
    int a = ddbst_model_attribute(m, entity, name);
    if (a < 0) {
      fprintf(stderr, "ddbst: line %d: %s.%s: %s has no attribute %s\n", line,
              field, name, ddbst_model_entity_name(m, entity), name);
      rc = 2;
      break;
    }
    size_t n;
    const char *t = value_text(obj->u.object.values[i], &buf, &cap, &n);
    ddbst_error e;
    if (!t) {
      fprintf(stderr, "ddbst: out of memory\n");
      rc = 2;
    } else if (fn(it, a, t, n, &e)) {
      fprintf(stderr, "ddbst: line %d: %s: %s\n", line, e.path, e.message);
      rc = 2;
    }
  }
  free(buf);
  return rc;
}

typedef enum { MODE_BATCH_GET, MODE_BATCH_WRITE, MODE_TRANSACT } mode;

/* One stdin line → the item, filled; the op name in *op. */
static int read_op(const ddbst_model *m, const char *text, int line,
                   ddbst_item **item, const char **op, yajl_val *root) {
  char why[256];
  *root = yajl_tree_parse(text, why, sizeof why);
  if (!*root || !YAJL_IS_OBJECT(*root)) {
    fprintf(stderr, "ddbst: line %d: expected one JSON object (%s)\n", line,
            *root ? "not an object" : why);
    return 2;
  }
  static const char *const known[] = {"op",     "entity", "values",
                                      "set",    "remove", "add",
                                      "append", "previous", "expectVersion",
                                      NULL};
  for (size_t i = 0; i < (*root)->u.object.len; i++) {
    int ok = 0;
    for (const char *const *k = known; *k; k++)
      if (!strcmp((*root)->u.object.keys[i], *k)) ok = 1;
    if (!ok) {
      fprintf(stderr, "ddbst: line %d: %s: unknown field\n", line,
              (*root)->u.object.keys[i]);
      return 2;
    }
  }
  const char *path_op[] = {"op", NULL}, *path_entity[] = {"entity", NULL};
  yajl_val opv = yajl_tree_get(*root, path_op, yajl_t_string);
  yajl_val ev = yajl_tree_get(*root, path_entity, yajl_t_string);
  if (!opv || !ev) {
    fprintf(stderr, "ddbst: line %d: \"op\" and \"entity\" are required\n",
            line);
    return 2;
  }
  *op = YAJL_GET_STRING(opv);
  int entity = ddbst_model_entity(m, YAJL_GET_STRING(ev));
  if (entity < 0) {
    fprintf(stderr, "ddbst: line %d: entity %s: the model has no such entity\n",
            line, YAJL_GET_STRING(ev));
    return 2;
  }
  *item = ddbst_item_new(m, entity);
  if (!*item) {
    fprintf(stderr, "ddbst: out of memory\n");
    return 2;
  }
  const char *p_values[] = {"values", NULL}, *p_set[] = {"set", NULL},
             *p_add[] = {"add", NULL}, *p_append[] = {"append", NULL},
             *p_prev[] = {"previous", NULL}, *p_remove[] = {"remove", NULL},
             *p_ver[] = {"expectVersion", NULL};
  int rc = apply(m, entity, *item, yajl_tree_get(*root, p_values, yajl_t_any),
                 ddbst_item_set, "values", line);
  rc = rc ? rc : apply(m, entity, *item, yajl_tree_get(*root, p_set, yajl_t_any),
                       ddbst_item_set, "set", line);
  rc = rc ? rc : apply(m, entity, *item, yajl_tree_get(*root, p_add, yajl_t_any),
                       set_add, "add", line);
  rc = rc ? rc : apply(m, entity, *item, yajl_tree_get(*root, p_append, yajl_t_any),
                       set_append, "append", line);
  rc = rc ? rc : apply(m, entity, *item, yajl_tree_get(*root, p_prev, yajl_t_any),
                       ddbst_item_set_previous, "previous", line);
  yajl_val rem = yajl_tree_get(*root, p_remove, yajl_t_any);
  if (!rc && rem) {
    if (!YAJL_IS_ARRAY(rem)) {
      fprintf(stderr, "ddbst: line %d: remove: expected an array of names\n",
              line);
      return 2;
    }
    for (size_t i = 0; i < rem->u.array.len && !rc; i++) {
      yajl_val x = rem->u.array.values[i];
      int a = YAJL_IS_STRING(x)
                  ? ddbst_model_attribute(m, entity, YAJL_GET_STRING(x))
                  : -1;
      if (a < 0) {
        fprintf(stderr, "ddbst: line %d: remove[%zu]: no such attribute\n",
                line, i);
        rc = 2;
      } else {
        ddbst_item_remove(*item, a);
      }
    }
  }
  yajl_val ver = yajl_tree_get(*root, p_ver, yajl_t_number);
  if (!rc && ver) {
    if (!YAJL_IS_INTEGER(ver) ||
        ddbst_item_expect_version(*item, YAJL_GET_INTEGER(ver))) {
      fprintf(stderr, "ddbst: line %d: expectVersion: needs a whole number "
                      "and an entity with a version attribute\n",
              line);
      rc = 2;
    }
  }
  return rc;
}

static int run(mode md, int argc, char **argv) {
  if (argc < 1) return cli_usage_error("this verb takes MODEL and reads stdin");
  const char *token = NULL;
  uint32_t flags = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--token") && i + 1 < argc && md == MODE_TRANSACT)
      token = argv[++i];
    else if (!strcmp(argv[i], "--consistent") && md == MODE_BATCH_GET)
      flags |= DDBST_CONSISTENT_READ;
    else
      return cli_usage_error("unknown option");
  }
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  ddbst_batch *batch = ddbst_batch_new(m);
  ddbst_txn *txn = ddbst_txn_new(m);
  ddbst_buf *out = ddbst_buf_new(NULL);
  char *line = NULL;
  size_t cap = 0;
  int rc = 0, n = 0;
  int64_t now = ddbst_now_unix_us();
  if (!batch || !txn || !out) {
    fprintf(stderr, "ddbst: out of memory\n");
    rc = 2;
  }
  while (!rc && getline(&line, &cap, stdin) > 0) {
    n++;
    if (strspn(line, " \t\r\n") == strlen(line)) continue;
    ddbst_item *item = NULL;
    const char *op = NULL;
    yajl_val root = NULL;
    ddbst_error e;
    rc = read_op(m, line, n, &item, &op, &root);
    if (!rc) {
      int r;
      if (md == MODE_BATCH_GET && !strcmp(op, "get"))
        r = ddbst_batch_get(batch, item, &e) < 0 ? -1 : 0;
      else if (md == MODE_BATCH_WRITE && !strcmp(op, "put"))
        r = ddbst_batch_put(batch, item, now, &e);
      else if (md == MODE_BATCH_WRITE && !strcmp(op, "delete"))
        r = ddbst_batch_delete(batch, item, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "put"))
        r = ddbst_txn_put(txn, item, 0, now, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "create"))
        r = ddbst_txn_put(txn, item, DDBST_CREATE, now, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "update"))
        r = ddbst_txn_update(txn, item, 0, now, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "delete"))
        r = ddbst_txn_delete(txn, item, 0, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "check"))
        r = ddbst_txn_check(txn, item, &e);
      else if (md == MODE_TRANSACT && !strcmp(op, "get"))
        r = ddbst_txn_get(txn, item, &e);
      else {
        fprintf(stderr, "ddbst: line %d: op %s: not allowed here\n", n, op);
        r = 0;
        rc = 2;
      }
      if (r < 0) {
        fprintf(stderr, "ddbst: line %d: %s%s%s\n", n, e.path,
                e.path[0] ? ": " : "", e.message);
        rc = 2;
      }
    }
    yajl_tree_free(root);
    ddbst_item_free(item);
  }
  ddbst_error e;
  if (!rc && md == MODE_TRANSACT) {
    int op = ddbst_txn_request(txn, token, out, &e);
    if (op < 0) {
      rc = cli_fail(&e);
    } else {
      printf("%s\t", ddbst_operation_name(op));
      rc = cli_print_buf(out);
    }
  } else if (!rc) {
    int count = ddbst_batch_request_count(batch);
    for (int i = 0; i < count && !rc; i++) {
      ddbst_buf_reset(out);
      int op = ddbst_batch_request(batch, i, flags, out, &e);
      if (op < 0) {
        rc = cli_fail(&e);
      } else {
        printf("%s\t", ddbst_operation_name(op));
        rc = cli_print_buf(out);
      }
    }
  }
  free(line);
  ddbst_buf_free(out);
  ddbst_txn_free(txn);
  ddbst_batch_free(batch);
  ddbst_model_free(m);
  return rc;
}

int cli_batch_get(int argc, char **argv) {
  return run(MODE_BATCH_GET, argc, argv);
}
int cli_batch_write(int argc, char **argv) {
  return run(MODE_BATCH_WRITE, argc, argv);
}
int cli_transact(int argc, char **argv) {
  return run(MODE_TRANSACT, argc, argv);
}
