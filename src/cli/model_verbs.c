/* Verbs on the model itself: check it, build keys, parse keys, list the
 * access patterns. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_option parse_options[] = {
    {"--index", "NAME", "the keys are of this secondary index, not the table's"},
    {NULL, NULL, NULL}};

const cli_help cli_model_help[] = {
    {"check", "MODEL",
     "Loads the model file and prints what it holds, or every problem it\n"
     "has, one a line as FILE:LINE:COLUMN: path: message (exit 2).",
     NULL, "ddbst check examples/saas/model.json"},
    {"keys", "MODEL ENTITY NAME=VALUE...",
     "The key attributes an item of ENTITY is written with: the table's\n"
     "keys, each index's whose facets are all given, the entity attribute.\n"
     "Defaults (now, generated ULIDs) are filled first. A value that would\n"
     "forge another key is refused, naming the attribute.",
     NULL,
     "ddbst keys examples/saas/model.json User orgId=123 userId=9 "
     "email=Ann@Example.com"},
    {"parse", "MODEL [--index NAME] PK [SK]",
     "The reverse of keys: which entity a key belongs to, and its facets.",
     parse_options,
     "ddbst parse examples/saas/model.json 'ORG#123' "
     "'PROJECT#2026-03-14T09:00:00Z#p1'"},
    {"patterns", "MODEL",
     "Every access pattern as JSON: operation, entities, index, key\n"
     "templates, range facet, order and limits.",
     NULL, "ddbst patterns examples/blog/model.json"},
    {"schema", "",
     "The JSON Schema (draft-07) of the model file, for editors: point a\n"
     "model's \"$schema\" at a copy of it (installed as\n"
     "share/ddbst/ddbst.schema.json) for completion and checks as you type.",
     NULL, "ddbst schema > ddbst.schema.json"},
    {NULL, NULL, NULL, NULL, NULL}};

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

/* schema: the model file's JSON Schema, carried in the command
 * (schema/ddbst.schema.json, embedded at build time). */
extern const char cli_schema_json[];
extern const size_t cli_schema_json_len;

int cli_schema(int argc, char **argv) {
  (void)argv;
  if (argc != 0) return cli_usage_error("schema takes no arguments");
  fwrite(cli_schema_json, 1, cli_schema_json_len, stdout);
  return 0;
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
