/* Verbs on the model itself: check it, build keys, parse keys, list the
 * access patterns. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Runs `request` on `model` and prints the answer's member `key` (NULL: the
 * whole answer) on a line. */
static int print_answer(const char *model, int every_error,
                        const cli_text *request, const char *key) {
  cli_session s = {.model = model, .every_error = every_error};
  char *answer = cli_run(&s, request);
  if (!answer) return 2;
  cli_span all = cli_span_of(answer);
  cli_print_span(key ? cli_member(all, key) : all);
  ddbst_json_free(answer);
  return 0;
}

/* A request of one bare op: {"op":"check"}. */
static int model_op(const char *model, const char *op, int every_error,
                    const char *key) {
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, op);
  cli_add(&req, "\"}");
  int rc = print_answer(model, every_error, &req, key);
  cli_text_free(&req);
  return rc;
}

int cli_check(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("check takes one model file");
  return model_op(argv[0], "check", 1, NULL);
}

int cli_patterns(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("patterns takes one model file");
  return model_op(argv[0], "patterns", 0, "patterns");
}

/* keys MODEL ENTITY NAME=VALUE...: the keys as the item would be written,
 * defaults (now, generated ULIDs) filled in first. */
int cli_keys(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("keys takes a model file and an entity");
  cli_text req = {0}, values = {0};
  int rc = 0;
  cli_add(&req, "{\"op\":\"keys\"");
  cli_add_field(&req, "entity", argv[1]);
  for (int i = 2; i < argc && !rc; i++)
    rc = cli_add_assignment(&values, argv[i]);
  cli_add_group(&req, "values", '{', &values);
  cli_add(&req, "}");
  if (!rc) rc = print_answer(argv[0], 0, &req, "keys");
  cli_text_free(&values);
  cli_text_free(&req);
  return rc;
}

/* parse MODEL [--index NAME] PK [SK] */
int cli_parse(int argc, char **argv) {
  if (argc < 1) return cli_usage_error("parse takes a model file and a key");
  const char *model = argv[0];
  argc--, argv++;
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"parse\"");
  if (argc >= 2 && strcmp(argv[0], "--index") == 0) {
    cli_add_field(&req, "index", argv[1]);
    argc -= 2, argv += 2;
  }
  int rc = 2;
  if (argc < 1 || argc > 2) {
    rc = cli_usage_error("parse takes PK and maybe SK");
  } else {
    cli_add_field(&req, "pk", argv[0]);
    if (argc == 2) cli_add_field(&req, "sk", argv[1]);
    cli_add(&req, "}");
    rc = print_answer(model, 0, &req, NULL);
  }
  cli_text_free(&req);
  return rc;
}
