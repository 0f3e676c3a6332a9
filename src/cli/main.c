/* The `ddbst` command: each verb turns its arguments into a request to the
 * JSON entry (ddbst_json_call) and prints the answer. Output is JSON on
 * stdout; bad input exits 2 with "ddbst: <path>: <message>" on stderr. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: ddbst check MODEL\n"
    "       ddbst keys MODEL ENTITY NAME=VALUE...\n"
    "       ddbst parse MODEL [--index NAME] PK [SK]\n"
    "       ddbst patterns MODEL\n"
    "requests (printed as OPERATION<TAB>BODY):\n"
    "       ddbst create-table MODEL\n"
    "       ddbst get|put|create|delete MODEL ENTITY NAME=VALUE... "
    "[--consistent] [--project NAME]... [--if-exists] [--expect-version N]\n"
    "       ddbst update MODEL ENTITY NAME=VALUE... [--set NAME=VALUE]... "
    "[--remove NAME]... [--previous NAME=VALUE]...\n"
    "             [--add NAME=NUMBER]... [--append NAME=JSON]... "
    "[--expect-version N] [--upsert]\n"
    "             [--set 'ACTION']... [--remove PATH]... [--add 'PATH VALUE']... "
    "[--delete 'PATH VALUE']... [--update TEXT]\n"
    "       put, update, delete: [--condition TEXT] [--param NAME=VALUE]... "
    "(docs/conditions.md)\n"
    "       put, create, update: [--now MICROSECONDS] (the clock of defaults "
    "and timestamps)\n"
    "       ddbst query MODEL PATTERN NAME=VALUE... [--begins|--gt|--gte|--lt|"
    "--lte NAME=VALUE]\n"
    "             [--limit N] [--consistent] [--project NAME]... [--cursor C "
    "[--cursor-key-file FILE]]\n"
    "             [--filter TEXT] [--param NAME=VALUE]... "
    "(--gte with --lte: between)\n"
    "       ddbst batch-get MODEL [--consistent] < ops.jsonl\n"
    "       ddbst batch-write MODEL [--now MICROSECONDS] < ops.jsonl\n"
    "       ddbst transact MODEL [--token TOKEN] [--now MICROSECONDS] < ops.jsonl\n"
    "         one JSON object per line: {\"op\":\"put\",\"entity\":\"User\","
    "\"values\":{...}}\n"
    "answers:\n"
    "       ddbst page MODEL PATTERN NAME=VALUE... [--cursor-key-file FILE] "
    "< query-response.json\n"
    "       ddbst stream MODEL < lambda-stream-event.json\n"
    "cursor keys: --cursor-key-file FILE or DDBST_CURSOR_KEY (64 hex "
    "characters, comma-separated, newest first)\n"
    "infrastructure and review:\n"
    "       ddbst cloudformation MODEL [--yaml] "
    "[--stream-filter ENTITY[:INSERT,MODIFY,REMOVE]]...\n"
    "       ddbst lint MODEL    (error|warning|note PATH: MESSAGE; exit 1 on "
    "an error)\n"
    "       ddbst doc MODEL     (Markdown for a design review)\n"
    "types for a type checker:\n"
    "       ddbst generate typescript|python|c MODEL [--name NAME]\n"
    "options before the verb: --table NAME (overrides table.name)\n";

const char *cli_table_override;

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} verbs[] = {
    {"check", cli_check},
    {"keys", cli_keys},
    {"parse", cli_parse},
    {"patterns", cli_patterns},
    {"create-table", cli_create_table},
    {"get", cli_get},
    {"put", cli_put},
    {"create", cli_create},
    {"delete", cli_delete},
    {"update", cli_update},
    {"query", cli_query},
    {"batch-get", cli_batch_get},
    {"batch-write", cli_batch_write},
    {"transact", cli_transact},
    {"page", cli_page},
    {"stream", cli_stream},
    {"cloudformation", cli_cloudformation},
    {"lint", cli_lint},
    {"doc", cli_doc},
    {"generate", cli_generate},
};

int cli_usage_error(const char *why) {
  fprintf(stderr, "ddbst: %s\n%s", why, usage);
  return 2;
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
    fputs(usage, argc < 1 ? stderr : stdout);
    return argc < 1 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
    if (strcmp(argv[0], verbs[i].name) != 0) continue;
    int rc = verbs[i].run(argc - 1, argv + 1);
    /* output cut short is a failure even when the verb itself succeeded */
    return (fflush(stdout) || ferror(stdout)) && !rc ? 1 : rc;
  }
  fprintf(stderr, "ddbst: unknown verb '%s'\n%s", argv[0], usage);
  return 2;
}
