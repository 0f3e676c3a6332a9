/* Reading answers back: `ddbst page` turns a Query response into one JSON
 * line per item and a cursor line (sealed with the keys of --cursor-key-file
 * or DDBST_CURSOR_KEY); `ddbst stream` turns a Lambda stream event into one
 * JSON line per record. Both read what DynamoDB sent on stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_option page_options[] = {
    {"--cursor-key-file", "FILE",
     "the cursor keys (else DDBST_CURSOR_KEY) that seal the next cursor"},
    {NULL, NULL, NULL}};

const cli_help cli_page_help[] = {
    {"page", "MODEL PATTERN NAME=VALUE... [options] < response.json",
     "Reads DynamoDB's answer to the pattern's query: one JSON line per\n"
     "item, identified as its entity, then the next page's cursor.",
     page_options,
     "ddbst page examples/saas/model.json listUsers orgId=1 "
     "--cursor-key-file docs/examples/cursor-key.hex < "
     "tests/data/responses/local-query-users-page1.json"},
    {"stream", "MODEL < event.json",
     "Reads a Lambda DynamoDB stream event: one JSON line per record, its\n"
     "images as the model's entities.",
     NULL,
     "ddbst stream examples/saas/model.json < "
     "tests/data/responses/local-stream-event.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* Ends `request` with ,"<field>":"<all of stdin>"} and runs it. */
static char *run_on_stdin(const cli_session *s, cli_text *request,
                          const char *field) {
  size_t len;
  char *in = cli_read_stdin(&len);
  if (!in) return NULL;
  cli_add(request, ",\"");
  cli_add(request, field);
  cli_add(request, "\":");
  cli_add_string(request, in, len);
  cli_add(request, "}");
  free(in);
  return cli_run(s, request);
}

/* Each element of the answer's array `key` on a line. */
static void print_each(const char *answer, const char *key) {
  cli_span all = cli_member(cli_span_of(answer), key), one = {NULL, 0};
  while (cli_next(all, &one)) cli_print_span(one);
}

/* page MODEL PATTERN NAME=VALUE... [--cursor-key-file FILE] < response */
int cli_page(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error("page takes MODEL PATTERN NAME=VALUE...");
  cli_text req = {0}, values = {0};
  const char *key_file = NULL;
  int rc = 0;
  cli_add(&req, "{\"op\":\"page\"");
  cli_add_field(&req, "pattern", argv[1]);
  for (int i = 2; i < argc && !rc; i++) {
    if (!strcmp(argv[i], "--cursor-key-file") && i + 1 < argc)
      key_file = argv[++i];
    else if (!strncmp(argv[i], "--", 2))
      rc = cli_unknown_option(argv[i]);
    else
      rc = cli_add_assignment(&values, argv[i]);
  }
  cli_add_group(&req, "values", '{', &values);
  char hex[4096];
  cli_session s = {.model = argv[0]};
  if (!rc) s.cursor_keys = cli_cursor_keys(key_file, hex, sizeof hex, &rc);
  char *answer = rc ? NULL : run_on_stdin(&s, &req, "response");
  cli_wipe(hex, sizeof hex);
  if (!rc && !answer) rc = 2;
  if (answer) {
    print_each(answer, "items");
    cli_span cursor = cli_member(cli_span_of(answer), "cursor");
    if (cursor.p) {
      if (!s.cursor_keys) cli_unsealed_notice();
      fputs("{\"cursor\":", stdout);
      fwrite(cursor.p, 1, cursor.n, stdout);
      fputs("}\n", stdout);
    }
  }
  ddbst_json_free(answer);
  cli_text_free(&values);
  cli_text_free(&req);
  return rc;
}

/* stream MODEL < event.json */
int cli_stream(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("stream takes MODEL and reads stdin");
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"stream\"");
  cli_session s = {.model = argv[0]};
  char *answer = run_on_stdin(&s, &req, "event");
  int rc = answer ? 0 : 2;
  if (answer) print_each(answer, "records");
  ddbst_json_free(answer);
  cli_text_free(&req);
  return rc;
}
