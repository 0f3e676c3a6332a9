/* Verbs on two versions of a model: diff. (lint --since, the same
 * question asked by the review, is in infra_verbs.c.) */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"

static const cli_option diff_options[] = {
    {"--json", NULL, "the changes as JSON, for tools (docs/evolution.md)"},
    {"--table-renamed", NULL,
     "the table's name differs on purpose: a rename, not two tables"},
    {NULL, NULL, NULL}};

const cli_help cli_evolve_help[] = {
    {"diff", "OLD NEW [--json] [--table-renamed]",
     "Every change from model OLD to model NEW, classified by what it does\n"
     "to the items already in the table: free, cleanup, backfill, rewrite,\n"
     "unsafe (with what to check first) or impossible in place, each with\n"
     "its reason, entities and patterns (docs/evolution.md). Exit 0 when\n"
     "nothing or only free changes, else 10 + the worst class: 12 cleanup,\n"
     "13 backfill, 14 rewrite, 15 unsafe, 16 impossible.",
     diff_options,
     "ddbst diff tests/evolve/free.old.json tests/evolve/free.new.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* The class names of the answer's "worst", in the order of their exit
 * codes (10 + the index) */
static int exit_of(cli_span worst) {
  static const char *const classes[] = {
      "none", "free", "cleanup", "backfill", "rewrite", "unsafe", "impossible"};
  for (int i = 0; i < 7; i++) {
    size_t n = strlen(classes[i]);
    if (worst.n == n + 2 && memcmp(worst.p + 1, classes[i], n) == 0)
      return i <= 1 ? 0 : 10 + i;
  }
  return 2;
}

/* diff OLD NEW [--json] [--table-renamed] */
int cli_diff(int argc, char **argv) {
  const char *files[2] = {NULL, NULL};
  int json = 0, renamed = 0, nfiles = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--table-renamed"))
      renamed = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_unknown_option(argv[i]);
    else if (nfiles == 2)
      return cli_usage_error("diff takes two model files, OLD and NEW");
    else
      files[nfiles++] = argv[i];
  }
  if (nfiles != 2)
    return cli_usage_error("diff takes two model files, OLD and NEW");
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"diff\"");
  cli_add_field(&req, "oldFile", files[0]);
  /* --table names the table in force for both versions */
  if (cli_table_override) cli_add_field(&req, "oldTable", cli_table_override);
  if (!json) cli_add_field(&req, "format", "text");
  if (renamed) cli_add(&req, ",\"tableRenamed\":true");
  cli_add(&req, "}");
  cli_session s = {.model = files[1], .every_error = 1};
  char *answer = cli_run(&s, &req);
  cli_text_free(&req);
  if (!answer) return 2;
  cli_span all = cli_span_of(answer);
  int rc = exit_of(cli_member(all, "worst"));
  if (json) {
    cli_print_span(all);
  } else {
    char why[256];
    yajl_val root = yajl_tree_parse(answer, why, sizeof why);
    const char *path[] = {"text", NULL};
    yajl_val v = root ? yajl_tree_get(root, path, yajl_t_string) : NULL;
    const char *text = v ? YAJL_GET_STRING(v) : NULL;
    if (text) {
      fputs(text, stdout);
    } else {
      fprintf(stderr, "ddbst: diff: %s\n", root ? "no text" : why);
      rc = 2;
    }
    yajl_tree_free(root);
  }
  ddbst_json_free(answer);
  return rc;
}
