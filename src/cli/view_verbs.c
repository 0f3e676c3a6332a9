/* view: the design view a team reviews together, one self-contained HTML
 * page (the template src/cli/view.html, embedded at build time, with the
 * library's view of the model put in it): no network, no CDN, readable
 * opened from disk. --data writes the same sample items as BatchWriteItem
 * requests, to load into DynamoDB Local; --json the view data itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern const char cli_view_html[];
extern const size_t cli_view_html_len;

static const cli_option view_options[] = {
    {"-o", "FILE", "write the page to FILE (else stdout)"},
    {"--seed", "N", "the sample's seed (default 1): the same seed, the same "
                    "items"},
    {"--data", NULL, "the sample items as BatchWriteItem lines instead (for "
                     "DynamoDB Local)"},
    {"--json", NULL, "the view data the page draws, as JSON, instead"},
    {NULL, NULL, NULL}};

const cli_help cli_view_help[] = {
    {"view", "MODEL [-o FILE] [--seed N] [--data|--json]",
     "One HTML file for a design review: sample items as the table and\n"
     "each index hold them, every access pattern with the rows it reads\n"
     "lit up in order and the request ddbst builds for it, the lint\n"
     "findings, the descriptions. Works opened from disk.",
     view_options, "ddbst view examples/saas/model.json -o saas-view.html"},
    {NULL, NULL, NULL, NULL, NULL}};

/* The marker in the template that the view data replaces. */
static const char MARKER[] = "/*DDBST_VIEW_DATA*/";

/* The data inside <script type="application/json">: a '<' written as
 * \u003c (JSON reads it back the same) so no "</script>" or "<!--" in a
 * description can end the script early. */
static int write_data(FILE *f, cli_span data) {
  const char *p = data.p, *end = data.p + data.n;
  while (p < end) {
    const char *lt = memchr(p, '<', (size_t)(end - p));
    size_t n = lt ? (size_t)(lt - p) : (size_t)(end - p);
    if (n && fwrite(p, 1, n, f) != n) return -1;
    if (!lt) break;
    if (fputs("\\u003c", f) < 0) return -1;
    p = lt + 1;
  }
  return 0;
}

static int write_page(FILE *f, cli_span data) {
  const char *at = strstr(cli_view_html, MARKER);
  if (!at) {
    fprintf(stderr, "ddbst: view: the page template has no %s\n", MARKER);
    return -1;
  }
  size_t head = (size_t)(at - cli_view_html);
  size_t tail = cli_view_html_len - head - (sizeof MARKER - 1);
  if (fwrite(cli_view_html, 1, head, f) != head || write_data(f, data) ||
      fwrite(at + sizeof MARKER - 1, 1, tail, f) != tail)
    return -1;
  return 0;
}

int cli_view(int argc, char **argv) {
  const char *model = NULL, *file = NULL, *seed = "1";
  int data = 0, json = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc)
      file = argv[++i];
    else if (!strcmp(a, "--seed") && i + 1 < argc)
      seed = argv[++i];
    else if (!strcmp(a, "--data"))
      data = 1;
    else if (!strcmp(a, "--json"))
      json = 1;
    else if (a[0] == '-' && a[1])
      return cli_unknown_option(a);
    else if (model)
      return cli_usage_error("view takes one model file");
    else
      model = a;
  }
  if (!model) return cli_usage_error("view takes a model file");
  if (data && json) return cli_usage_error("give --data or --json, not both");
  char *end;
  errno = 0;
  unsigned long long n = strtoull(seed, &end, 10);
  if (!*seed || *end || errno == ERANGE || seed[0] == '-' ||
      n > 9007199254740991ull) {
    fprintf(stderr, "ddbst: view: --seed: expected a whole number from 0 to "
                    "2^53 - 1, not '%s'\n",
            seed);
    return 2;
  }
  cli_text req = {0};
  char field[64];
  snprintf(field, sizeof field, "{\"op\":\"%s\",\"seed\":%llu}",
           data ? "viewData" : "view", n);
  cli_add(&req, field);
  cli_session s = {.model = model};
  char *answer = cli_run(&s, &req);
  cli_text_free(&req);
  if (!answer) return 2;
  int rc = 0;
  FILE *f = file ? fopen(file, "wb") : stdout;
  if (!f) {
    fprintf(stderr, "ddbst: %s: cannot write the file\n", file);
    rc = 2;
  } else if (data) {
    cli_span all = cli_member(cli_span_of(answer), "requests"), r = {NULL, 0};
    while (cli_next(all, &r)) {
      cli_span body = cli_member(r, "body");
      fwrite(body.p, 1, body.n, f);
      fputc('\n', f);
    }
  } else if (json) {
    cli_span v = cli_member(cli_span_of(answer), "view");
    fwrite(v.p, 1, v.n, f);
    fputc('\n', f);
  } else if (write_page(f, cli_member(cli_span_of(answer), "view"))) {
    rc = 2;
  }
  if (f && f != stdout && fclose(f) != 0) rc = 2;
  if (rc == 2 && f) fprintf(stderr, "ddbst: view: the page was not written\n");
  ddbst_json_free(answer);
  return rc;
}
