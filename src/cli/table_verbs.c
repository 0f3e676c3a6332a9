/* The table verbs beside create-table: describe-table, delete-table,
 * update-table (a GSI added or removed), and the follow-ups of
 * create-table for what CreateTable cannot set: point-in-time recovery,
 * contributor insights and time to live. Each prints OPERATION<TAB>BODY. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_option update_options[] = {
    {"--add-index", "NAME",
     "create the model's global index NAME (DynamoDB backfills it)"},
    {"--remove-index", "NAME",
     "delete index NAME, which the model no longer declares"},
    {NULL, NULL, NULL}};

static const cli_option ttl_options[] = {
    {"--disable", "ATTR",
     "disable expiry by ATTR, which the model no longer declares"},
    {NULL, NULL, NULL}};

static const cli_option insights_options[] = {
    {"--index", "NAME", "the global index NAME's insights, not the table's"},
    {NULL, NULL, NULL}};

const cli_help cli_table_help[] = {
    {"describe-table", "MODEL",
     "The DescribeTable request of the model's table (its status, its\n"
     "indexes' status and what it was created with).",
     NULL, "ddbst describe-table examples/saas/model.json"},
    {"delete-table", "MODEL",
     "The DeleteTable request of the model's table: every item goes with\n"
     "it (refused by DynamoDB while deletionProtection is on).",
     NULL, "ddbst delete-table examples/saas/model.json"},
    {"update-table", "MODEL --add-index NAME | --remove-index NAME",
     "The UpdateTable request adding the model's global index NAME to the\n"
     "live table, or deleting an index the model no longer declares.",
     update_options,
     "ddbst update-table examples/saas/model.json --add-index GSI1"},
    {"update-continuous-backups", "MODEL",
     "The UpdateContinuousBackups request: point-in-time recovery as the\n"
     "model's pointInTimeRecovery says (on unless false).",
     NULL, "ddbst update-continuous-backups examples/saas/model.json"},
    {"update-contributor-insights", "MODEL [--index NAME]",
     "The UpdateContributorInsights request: ENABLE or DISABLE, as the\n"
     "model's contributorInsights says for the table or index NAME.",
     insights_options,
     "ddbst update-contributor-insights docs/examples/orders-settings.json "
     "--index GSI1"},
    {"update-time-to-live", "MODEL [--disable ATTR]",
     "The UpdateTimeToLive request: expiry enabled on the model's\n"
     "ttlAttribute, or disabled on ATTR, which the model no longer declares.",
     ttl_options, "ddbst update-time-to-live examples/saas/model.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* Runs `request` on MODEL and prints the request it answers. */
static int print_answer(const char *model, const cli_text *request) {
  cli_session s = {.model = model};
  char *answer = cli_run(&s, request);
  if (!answer) return 2;
  cli_print_request(cli_span_of(answer));
  ddbst_json_free(answer);
  return 0;
}

/* MODEL and the options of `allowed` (each taking a value), gathered as
 * ,"field":"value" members; 2 and a message on a bad line. */
static int gather(int argc, char **argv, const char *const *allowed,
                  const char *const *fields, cli_text *req,
                  const char **model) {
  *model = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-') {
      if (*model) {
        char why[96];
        snprintf(why, sizeof why, "%s takes one model file", cli_verb);
        return cli_usage_error(why);
      }
      *model = a;
      continue;
    }
    int k = -1;
    for (int j = 0; allowed[j]; j++)
      if (!strcmp(a, allowed[j])) k = j;
    if (k < 0) return cli_unknown_option(a);
    if (i + 1 >= argc) {
      fprintf(stderr, "ddbst: %s: %s needs a value\n", cli_verb, a);
      return 2;
    }
    cli_add_field(req, fields[k], argv[++i]);
  }
  if (!*model) return cli_usage_error("a model file is needed");
  return 0;
}

/* {"op": op, ...the options} on MODEL. */
static int with_options(int argc, char **argv, const char *op,
                        const char *const *allowed,
                        const char *const *fields) {
  cli_text req = {0};
  cli_add(&req, "{\"op\":");
  cli_add_string(&req, op, strlen(op));
  const char *model;
  int rc = gather(argc, argv, allowed, fields, &req, &model);
  cli_add(&req, "}");
  if (!rc) rc = print_answer(model, &req);
  cli_text_free(&req);
  return rc;
}

int cli_update_table(int argc, char **argv) {
  static const char *const opts[] = {"--add-index", "--remove-index", NULL};
  static const char *const fields[] = {"addIndex", "removeIndex"};
  return with_options(argc, argv, "updateTable", opts, fields);
}

int cli_update_contributor_insights(int argc, char **argv) {
  static const char *const opts[] = {"--index", NULL};
  static const char *const fields[] = {"index"};
  return with_options(argc, argv, "updateContributorInsights", opts, fields);
}

int cli_update_time_to_live(int argc, char **argv) {
  static const char *const opts[] = {"--disable", NULL};
  static const char *const fields[] = {"disable"};
  return with_options(argc, argv, "updateTimeToLive", opts, fields);
}

static const char *const no_options[] = {NULL};

int cli_describe_table(int argc, char **argv) {
  return with_options(argc, argv, "describeTable", no_options, NULL);
}

int cli_delete_table(int argc, char **argv) {
  return with_options(argc, argv, "deleteTable", no_options, NULL);
}

int cli_update_continuous_backups(int argc, char **argv) {
  return with_options(argc, argv, "updateContinuousBackups", no_options,
                      NULL);
}
