/* `ddbst hydrate`: a page of a KEYS_ONLY or INCLUDE index (on stdin) into
 * the BatchGetItem requests of its full items, and, given the answers to
 * them, the full items in the page's order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_option hydrate_options[] = {
    {"--consistent", NULL, "read with ConsistentRead"},
    {"--attributes", "NAME,...",
     "read only these (the keys and the entity attribute are added)"},
    {"--answer", "CHUNK=FILE",
     "DynamoDB's answer to request CHUNK (0-based) or to its follow-up; "
     "repeat for each"},
    {NULL, NULL, NULL}};

const cli_help cli_hydrate_help[] = {
    {"hydrate", "MODEL [options] < response.json",
     "Reads a Query answer of a projected index and prints the BatchGetItem\n"
     "requests of its items' full versions (100 keys each, in the page's\n"
     "order). With the answers to them: one JSON line per item of the page,\n"
     "in its order (null: not there any more), then the items missing and\n"
     "those still pending (unanswered, or unprocessed: send the follow-up).",
     hydrate_options,
     "ddbst hydrate examples/saas/model.json < "
     "tests/data/responses/local-query-user-by-email.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* --answer CHUNK=FILE: {"chunk":CHUNK,"response":"<FILE>"} into `answers`. */
static int add_answer(cli_text *answers, const char *arg) {
  const char *eq = strchr(arg, '=');
  char *end;
  long chunk = strtol(arg, &end, 10);
  if (!eq || end != eq || end == arg || chunk < 0)
    return cli_usage_error("--answer takes CHUNK=FILE (0=answer.json)");
  size_t len;
  char *text = cli_read_file(eq + 1, &len);
  if (!text) return 2;
  char head[64];
  snprintf(head, sizeof head, "%s{\"chunk\":%ld,\"response\":",
           answers->len ? "," : "", chunk);
  cli_add(answers, head);
  cli_add_string(answers, text, len);
  cli_add(answers, "}");
  free(text);
  return 0;
}

int cli_hydrate(int argc, char **argv) {
  if (argc < 1) return cli_usage_error("hydrate takes MODEL and reads stdin");
  cli_text req = {0}, names = {0}, answers = {0};
  int rc = 0, consistent = 0, with_answers = 0;
  for (int i = 1; i < argc && !rc; i++) {
    if (!strcmp(argv[i], "--consistent")) {
      consistent = 1;
    } else if (!strcmp(argv[i], "--attributes") && i + 1 < argc) {
      char *list = argv[++i];
      for (char *p = strtok(list, ","); p; p = strtok(NULL, ","))
        cli_add_element(&names, p);
    } else if (!strcmp(argv[i], "--answer") && i + 1 < argc) {
      rc = add_answer(&answers, argv[++i]);
      with_answers = 1;
    } else {
      rc = !strncmp(argv[i], "--", 2)
               ? cli_unknown_option(argv[i])
               : cli_usage_error("hydrate takes MODEL and options");
    }
  }
  cli_add(&req, "{\"op\":\"hydrate\"");
  if (consistent) cli_add(&req, ",\"consistent\":true");
  cli_add_group(&req, "attributes", '[', &names);
  if (with_answers) {
    cli_add(&req, ",\"answers\":[");
    cli_add_n(&req, answers.data, answers.len);
    cli_add(&req, "]");
  }
  char *answer = NULL;
  if (!rc) {
    size_t len;
    char *in = cli_read_stdin(&len);
    if (in) {
      cli_add(&req, ",\"response\":");
      cli_add_string(&req, in, len);
      cli_add(&req, "}");
      free(in);
      cli_session s = {.model = argv[0]};
      answer = cli_run(&s, &req);
    }
    if (!answer) rc = 2;
  }
  if (answer) {
    cli_span all = cli_span_of(answer), one = {NULL, 0};
    if (!with_answers) {
      cli_span reqs = cli_member(all, "requests");
      while (cli_next(reqs, &one)) cli_print_request(one);
    } else {
      cli_span items = cli_member(all, "items");
      while (cli_next(items, &one)) cli_print_span(one);
      cli_span missing = cli_member(all, "missing");
      cli_span pending = cli_member(all, "pending");
      printf("{\"missing\":%.*s,\"pending\":%.*s}\n", (int)missing.n,
             missing.p, (int)pending.n, pending.p);
    }
  }
  ddbst_json_free(answer);
  cli_text_free(&answers);
  cli_text_free(&names);
  cli_text_free(&req);
  return rc;
}
