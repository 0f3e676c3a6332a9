/* `ddbst migrate plan|step|verify OLD NEW`: a migration's plan, the writes
 * a Scan page's items need, and the problems of a page after it
 * (docs/evolution.md, "Migrating"), through the JSON entry's migrate ops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"

static const cli_option migrate_options[] = {
    {"--json", NULL, "plan: the plan as JSON, for tools"},
    {"--unsafe", NULL,
     "accept unsafe changes: each item the new model refuses is reported"},
    {NULL, NULL, NULL}};

const cli_help cli_migrate_help[] = {
    {"migrate", "plan|step|verify OLD NEW [PAGE.json] [--json] [--unsafe]",
     "Carries the items stored under model OLD to model NEW. plan: the\n"
     "steps in order (UpdateTable adding indexes, the scan pass, verify,\n"
     "UpdateTable removing indexes). step: for PAGE.json, DynamoDB's answer\n"
     "to a Scan of the table, the write each item needs, one JSON line each\n"
     "({\"operation\":\"UpdateItem\",\"body\":{...}}), and a report line for\n"
     "each item the new model cannot take. verify: each problem of the\n"
     "page's items under NEW, one JSON line each; exit 1 when any.",
     migrate_options,
     "ddbst migrate plan tests/evolve/cleanup.old.json "
     "tests/evolve/cleanup.new.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* Prints the step answer's writes and reports, a line each. */
static void print_steps(const char *answer) {
  cli_span items = cli_member(cli_span_of(answer), "items"), one = {NULL, 0};
  while (cli_next(items, &one)) {
    cli_span body = cli_member(one, "body"), report = cli_member(one, "report");
    if (body.p) {
      cli_span op = cli_member(one, "operation");
      printf("{\"operation\":%.*s,\"body\":%.*s}\n", (int)op.n, op.p,
             (int)body.n, body.p);
    } else if (report.p) {
      cli_span outcome = cli_member(one, "outcome");
      printf("{%.*s:%.*s}\n", (int)outcome.n, outcome.p, (int)report.n,
             report.p);
    }
  }
}

/* The text member of a plan's answer, printed. */
static int print_text(const char *answer) {
  char why[256];
  yajl_val root = yajl_tree_parse(answer, why, sizeof why);
  const char *path[] = {"text", NULL};
  yajl_val v = root ? yajl_tree_get(root, path, yajl_t_string) : NULL;
  const char *text = v ? YAJL_GET_STRING(v) : NULL;
  int rc = 0;
  if (text) {
    fputs(text, stdout);
  } else {
    fprintf(stderr, "ddbst: migrate: %s\n", root ? "no text" : why);
    rc = 2;
  }
  yajl_tree_free(root);
  return rc;
}

/* migrate plan|step|verify OLD NEW [PAGE.json] [--json] [--unsafe] */
int cli_migrate(int argc, char **argv) {
  static const char *const subs[] = {"plan", "step", "verify"};
  int sub = -1;
  for (int k = 0; argc > 0 && k < 3; k++)
    if (!strcmp(argv[0], subs[k])) sub = k;
  if (sub < 0)
    return cli_usage_error("migrate takes plan, step or verify, then OLD NEW");
  const char *files[3] = {NULL, NULL, NULL};
  int json = 0, unsafe = 0, nfiles = 0, want = sub == 0 ? 2 : 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--unsafe"))
      unsafe = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_unknown_option(argv[i]);
    else if (nfiles == want)
      nfiles++;
    else
      files[nfiles++] = argv[i];
  }
  if (nfiles != want)
    return cli_usage_error(sub == 0 ? "migrate plan takes OLD NEW"
                                    : "migrate step and verify take OLD NEW "
                                      "PAGE.json (a Scan answer)");
  static const char *const ops[] = {"migratePlan", "migrateStep",
                                    "migrateVerify"};
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, ops[sub]);
  cli_add(&req, "\"");
  cli_add_field(&req, "oldFile", files[0]);
  if (cli_table_override) cli_add_field(&req, "oldTable", cli_table_override);
  if (unsafe) cli_add(&req, ",\"unsafe\":true");
  if (sub == 0 && !json) cli_add_field(&req, "format", "text");
  if (sub > 0) {
    size_t len;
    char *page = cli_read_file(files[2], &len);
    if (!page) {
      cli_text_free(&req);
      return 2;
    }
    cli_add(&req, ",\"response\":");
    cli_add_string(&req, page, len);
    free(page);
  }
  cli_add(&req, "}");
  cli_session s = {.model = files[1], .every_error = 1};
  char *answer = cli_run(&s, &req);
  cli_text_free(&req);
  if (!answer) return 2;
  int rc = 0;
  if (sub == 0) {
    if (json)
      cli_print_span(cli_span_of(answer));
    else
      rc = print_text(answer);
  } else if (sub == 1) {
    print_steps(answer);
  } else {
    cli_span all = cli_span_of(answer), one = {NULL, 0};
    cli_span problems = cli_member(all, "problems");
    while (cli_next(problems, &one)) {
      cli_print_span(one);
      rc = 1;
    }
  }
  ddbst_json_free(answer);
  return rc;
}
