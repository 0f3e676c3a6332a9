/* The `ddbst` command: each verb turns its arguments into a request to the
 * JSON entry (ddbst_json_call) and prints the answer. Output is JSON on
 * stdout; bad input exits 2 with "ddbst: <path>: <message>" on stderr (a
 * bad model: "FILE:LINE:COLUMN: <path>: <message>"). help.c holds the
 * help, from each verb file's table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_table_override;

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} verbs[] = {
    {"check", cli_check},
    {"keys", cli_keys},
    {"parse", cli_parse},
    {"patterns", cli_patterns},
    {"schema", cli_schema},
    {"create-table", cli_create_table},
    {"describe-table", cli_describe_table},
    {"delete-table", cli_delete_table},
    {"update-table", cli_update_table},
    {"update-continuous-backups", cli_update_continuous_backups},
    {"update-contributor-insights", cli_update_contributor_insights},
    {"update-time-to-live", cli_update_time_to_live},
    {"get", cli_get},
    {"put", cli_put},
    {"create", cli_create},
    {"delete", cli_delete},
    {"update", cli_update},
    {"query", cli_query},
    {"scan", cli_scan},
    {"batch-get", cli_batch_get},
    {"batch-write", cli_batch_write},
    {"transact", cli_transact},
    {"page", cli_page},
    {"hydrate", cli_hydrate},
    {"stream", cli_stream},
    {"cloudformation", cli_cloudformation},
    {"lint", cli_lint},
    {"diff", cli_diff},
    {"migrate", cli_migrate},
    {"doc", cli_doc},
    {"generate", cli_generate},
    {"view", cli_view},
    {"workbench", cli_workbench},
};

/* --help or -h anywhere after the verb asks for its help. */
static int asks_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

int main(int argc, char **argv) {
  argc--, argv++;
  while (argc >= 2 && strcmp(argv[0], "--table") == 0) {
    cli_table_override = argv[1];
    argc -= 2, argv += 2;
  }
  if (argc >= 1 && strcmp(argv[0], "--version") == 0) {
    printf("ddbst %s\n", ddbst_version());
    return 0;
  }
  if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
    cli_print_overview(argc < 1 ? stderr : stdout);
    return argc < 1 ? 2 : 0;
  }
  if (strcmp(argv[0], "help") == 0) {
    int rc = argc > 1 ? cli_help_answer(argc - 1, argv + 1) : -1;
    if (rc >= 0) return rc;
    if (argc == 1) {
      cli_print_overview(stdout);
      return 0;
    }
    return cli_print_help(argv[1]);
  }
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
    if (strcmp(argv[0], verbs[i].name) != 0) continue;
    cli_verb = verbs[i].name;
    if (asks_help(argc - 1, argv + 1)) return cli_print_help(cli_verb);
    int rc = verbs[i].run(argc - 1, argv + 1);
    /* output cut short is a failure even when the verb itself succeeded */
    return (fflush(stdout) || ferror(stdout)) && !rc ? 1 : rc;
  }
  const char *meant = cli_suggest_verb(argv[0]);
  fprintf(stderr, "ddbst: unknown verb '%s'%s%s%s\n", argv[0],
          meant ? "; did you mean " : "", meant ? meant : "",
          meant ? "?" : "");
  fprintf(stderr, "(ddbst --help lists the verbs)\n");
  return 2;
}
