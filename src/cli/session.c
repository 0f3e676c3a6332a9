/* One verb, one session on the JSON entry: its config made of MODEL,
 * --table and the cursor keys, and its errors printed for people as
 * "ddbst: <path>: <message>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"

static const char *string_at(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(obj, path, yajl_t_string);
  return v ? YAJL_GET_STRING(v) : "";
}

static long long integer_at(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(obj, path, yajl_t_number);
  return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : 0;
}

/* One {"code","name","path","message"} error on stderr. An error in the
 * model file, which has a line and column, is FILE:LINE:COLUMN: PATH:
 * MESSAGE, as compilers write theirs, for editors and CI annotations. */
static void print_error(const cli_session *s, yajl_val e, int from_call) {
  char renamed[DDBST_ERROR_PATH_MAX + 64];
  const char *path = string_at(e, "path"), *message = string_at(e, "message");
  long long line = from_call ? 0 : integer_at(e, "line");
  long long column = integer_at(e, "column");
  /* the session's own errors (model, keys) name no request field */
  if (from_call && s->rename && path[0]) {
    s->rename(s, path, renamed, sizeof renamed);
    path = renamed;
  }
  if (line > 0) {
    /* a syntax error's message ends with its position, said once here */
    char where[64];
    int w = snprintf(where, sizeof where, " (line %lld, column %lld)", line,
                     column);
    size_t n = strlen(message);
    int cut = w > 0 && (size_t)w < n && !strcmp(message + n - (size_t)w, where);
    fprintf(stderr, "%s:%lld:%lld: %s%s%.*s\n", s->model, line, column, path,
            path[0] ? ": " : "", cut ? (int)(n - (size_t)w) : (int)n, message);
  } else if (path[0]) {
    fprintf(stderr, "ddbst: %s: %s\n", path, message);
  } else {
    fprintf(stderr, "ddbst: %s\n", message);
  }
}

/* An error answer: {"error":{...}}, or for a bad model
 * {"error":<first>,"errors":[<each>]}. */
static void print_errors(const cli_session *s, const char *answer,
                         int from_call) {
  const char *error[] = {"error", NULL}, *errors[] = {"errors", NULL};
  yajl_val root = yajl_tree_parse(answer, NULL, 0);
  yajl_val each = root && s->every_error
                      ? yajl_tree_get(root, errors, yajl_t_array)
                      : NULL;
  if (!root)
    fprintf(stderr, "ddbst: %s\n", answer);
  else if (each)
    for (size_t i = 0; i < each->u.array.len; i++)
      print_error(s, each->u.array.values[i], from_call);
  else
    print_error(s, yajl_tree_get(root, error, yajl_t_object), from_call);
  yajl_tree_free(root);
}

char *cli_run(const cli_session *s, const cli_text *request) {
  cli_text config = {0};
  cli_add(&config, "{\"modelFile\":");
  cli_add_string(&config, s->model, strlen(s->model));
  if (cli_table_override) cli_add_field(&config, "table", cli_table_override);
  if (s->cursor_keys) cli_add_field(&config, "cursorKeys", s->cursor_keys);
  cli_add(&config, "}");
  if (config.nomem || request->nomem) {
    fprintf(stderr, "ddbst: out of memory\n");
    cli_text_free(&config);
    return NULL;
  }
  char *error;
  ddbst_json *session = ddbst_json_open(config.data, config.len, NULL, &error);
  cli_wipe(config.data, config.len); /* the cursor keys */
  cli_text_free(&config);
  if (!session) {
    print_errors(s, error, 0);
    ddbst_json_free(error);
    return NULL;
  }
  char *answer = ddbst_json_call(session, request->data, request->len, NULL);
  ddbst_json_close(session);
  if (cli_member(cli_span_of(answer), "error").p) {
    print_errors(s, answer, 1);
    ddbst_json_free(answer);
    return NULL;
  }
  return answer;
}

const char *cli_cursor_keys(const char *key_file, char *hex, size_t cap,
                            int *rc) {
  *rc = 0;
  if (!key_file) {
    const char *env = getenv("DDBST_CURSOR_KEY");
    return env && *env ? env : NULL;
  }
  FILE *f = fopen(key_file, "rb");
  size_t n = f ? fread(hex, 1, cap - 1, f) : 0;
  if (!f || ferror(f)) {
    fprintf(stderr, "ddbst: %s: cannot read the cursor key file\n", key_file);
    if (f) fclose(f);
    *rc = 2;
    return NULL;
  }
  fclose(f);
  while (n && (hex[n - 1] == '\n' || hex[n - 1] == '\r' || hex[n - 1] == ' '))
    n--;
  hex[n] = '\0';
  return n ? hex : NULL;
}

void cli_unsealed_notice(void) {
  fprintf(stderr, "ddbst: no cursor key (--cursor-key-file or "
                  "DDBST_CURSOR_KEY): cursors are unsealed, for "
                  "development only\n");
}
