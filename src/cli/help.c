/* The command's help, gathered from the table each file of verbs keeps
 * beside its verbs: the overview (`ddbst --help`), one verb's help
 * (`ddbst help VERB`, `ddbst VERB --help`), its usage line on a usage
 * error, and "did you mean" for verbs and options. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_verb;

/* The lists in the overview's order, each under its heading. */
static const struct {
  const char *heading;
  const cli_help *verbs;
} groups[] = {
    {"the model", cli_model_help},
    {"requests, printed as OPERATION<TAB>BODY lines", cli_request_help},
    {NULL, cli_batch_help},
    {NULL, cli_table_help},
    {"answers", cli_page_help},
    {NULL, cli_hydrate_help},
    {"infrastructure and review", cli_infra_help},
    {NULL, cli_evolve_help},
    {NULL, cli_migrate_help},
    {NULL, cli_view_help},
    {NULL, cli_workbench_help},
    {"types for a type checker", cli_generate_help},
};
enum { NGROUPS = sizeof groups / sizeof groups[0] };

/* Options every verb takes. */
static const cli_option common[] = {
    {"--table", "NAME",
     "(before the verb) the table name in force, e.g. per stage"},
    {"--help", NULL, "this help"},
    {NULL, NULL, NULL}};

const cli_help *cli_help_next(size_t *i) {
  size_t k = *i;
  for (size_t g = 0; g < NGROUPS; g++) {
    size_t n = 0;
    while (groups[g].verbs[n].verb) n++;
    if (k < n) {
      (*i)++;
      return &groups[g].verbs[k];
    }
    k -= n;
  }
  return NULL;
}

const cli_help *cli_help_of(const char *verb) {
  size_t i = 0;
  for (const cli_help *h; verb && (h = cli_help_next(&i)) != NULL;)
    if (strcmp(h->verb, verb) == 0) return h;
  return NULL;
}

const char *cli_suggest_verb(const char *word) {
  const char *names[128];
  size_t n = 0, i = 0;
  for (const cli_help *h; n < 127 && (h = cli_help_next(&i)) != NULL;)
    names[n++] = h->verb;
  names[n++] = "help";
  int k = ddbst_suggest(word, names, n);
  return k >= 0 ? names[k] : NULL;
}

static void print_options(FILE *out, const cli_option *o) {
  for (; o && o->name; o++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
    fprintf(out, "  %-26s %s\n", left, o->text);
  }
}

int cli_print_help(const char *verb) {
  const cli_help *h = cli_help_of(verb);
  if (!h) {
    const char *meant = cli_suggest_verb(verb);
    fprintf(stderr, "ddbst: help: no verb '%s'%s%s%s (ddbst --help lists them)\n",
            verb, meant ? "; did you mean " : "", meant ? meant : "",
            meant ? "?" : "");
    return 2;
  }
  printf("usage: ddbst %s%s%s\n\n%s\n\noptions:\n", h->verb,
         h->synopsis[0] ? " " : "", h->synopsis, h->summary);
  print_options(stdout, h->options);
  print_options(stdout, common);
  printf("\nexample:\n  $ %s\n", h->example);
  return 0;
}

void cli_print_overview(FILE *out) {
  fprintf(out, "usage: ddbst [--table NAME] VERB ARGUMENTS...\n"
               "       ddbst help VERB    (or ddbst VERB --help): a verb's "
               "options and an example\n"
               "       ddbst --version\n");
  for (size_t g = 0; g < NGROUPS; g++) {
    if (groups[g].heading) fprintf(out, "%s:\n", groups[g].heading);
    for (const cli_help *h = groups[g].verbs; h->verb; h++)
      fprintf(out, "       ddbst %s%s%s\n", h->verb, h->synopsis[0] ? " " : "",
              h->synopsis);
  }
  fprintf(out, "cursor keys: --cursor-key-file FILE or DDBST_CURSOR_KEY (64 "
               "hex characters, comma-separated, newest first)\n");
}

/* "usage: ddbst VERB SYNOPSIS" and where the rest is, on stderr. */
static void usage_line(void) {
  const cli_help *h = cli_help_of(cli_verb);
  if (h)
    fprintf(stderr, "usage: ddbst %s%s%s\n(ddbst help %s: its options and an "
                    "example)\n",
            h->verb, h->synopsis[0] ? " " : "", h->synopsis, h->verb);
  else
    cli_print_overview(stderr);
}

int cli_usage_error(const char *why) {
  fprintf(stderr, "ddbst: %s\n", why);
  usage_line();
  return 2;
}

int cli_unknown_option(const char *arg) {
  const cli_help *h = cli_help_of(cli_verb);
  const char *names[64];
  size_t n = 0;
  for (const cli_option *o = h ? h->options : NULL; o && o->name && n < 62;
       o++)
    names[n++] = o->name;
  for (const cli_option *o = common; o->name; o++) names[n++] = o->name;
  /* --flag=VALUE is the flag */
  char flag[128];
  snprintf(flag, sizeof flag, "%.*s", (int)strcspn(arg, "="), arg);
  int k = ddbst_suggest(flag, names, n);
  for (const cli_option *o = h ? h->options : NULL; o && o->name; o++)
    if (o->arg && strcmp(o->name, flag) == 0) {
      fprintf(stderr, "ddbst: %s: %s takes %s\n", cli_verb, o->name, o->arg);
      usage_line();
      return 2;
    }
  fprintf(stderr, "ddbst: %s: unknown option %s%s%s%s\n",
          cli_verb ? cli_verb : "", flag, k >= 0 ? "; did you mean " : "",
          k >= 0 ? names[k] : "", k >= 0 ? "?" : "");
  usage_line();
  return 2;
}

/* ---- the manual and the completion scripts' questions ---- */

/* Text for troff: a leading '.' or '\'' escaped, backslashes doubled. */
static void troff(FILE *out, const char *s) {
  int bol = 1;
  for (; *s; s++) {
    if (bol && (*s == '.' || *s == '\'')) fputs("\\&", out);
    if (*s == '\\')
      fputs("\\e", out);
    else if (*s == '-')
      fputs("\\-", out);
    else
      fputc(*s, out);
    bol = *s == '\n';
  }
}

/* ddbst(1), from the same tables as the help, so it lists every verb. */
static void print_man(FILE *out) {
  fprintf(out, ".TH DDBST 1 \"\" \"ddbst %s\" \"User Commands\"\n"
               ".SH NAME\nddbst \\- DynamoDB single\\-table design: keys, "
               "requests, review\n.SH SYNOPSIS\n.B ddbst\n[\\-\\-table "
               "\\fINAME\\fR] \\fIVERB\\fR \\fIARGUMENTS\\fR...\n"
               ".br\n.B ddbst help\n\\fIVERB\\fR\n.br\n.B ddbst\n"
               "\\-\\-version\n.SH DESCRIPTION\n",
          ddbst_version());
  troff(out, "ddbst reads a model file (JSON: the table, its entities and "
             "their keys, the access patterns) and builds every key and "
             "request body of it, reads DynamoDB's answers back, and reviews "
             "the design. It does no network I/O: request verbs print "
             "OPERATION<TAB>BODY lines to send with any client.\n");
  fprintf(out, ".SH VERBS\n");
  size_t i = 0;
  for (const cli_help *h; (h = cli_help_next(&i)) != NULL;) {
    fprintf(out, ".TP\n.B %s\n", h->verb);
    troff(out, h->synopsis);
    fprintf(out, "\n.br\n");
    troff(out, h->summary);
    fputc('\n', out);
    for (const cli_option *o = h->options; o && o->name; o++) {
      fprintf(out, ".RS\n.TP\n.B ");
      troff(out, o->name);
      if (o->arg) {
        fputs(" \\fI", out);
        troff(out, o->arg);
        fputs("\\fR", out);
      }
      fputc('\n', out);
      troff(out, o->text);
      fprintf(out, "\n.RE\n");
    }
    fprintf(out, ".RS\nExample:\n.nf\n$ ");
    troff(out, h->example);
    fprintf(out, "\n.fi\n.RE\n");
  }
  fprintf(out, ".SH OPTIONS\n.TP\n.BI \\-\\-table \" NAME\"\n");
  troff(out, "Before the verb: the table name in force (e.g. per stage), "
             "instead of the model's table.name.\n");
  fprintf(out, ".TP\n.B \\-\\-help\nAfter a verb: that verb's help.\n"
               ".TP\n.B \\-\\-version\nThe version.\n"
               ".SH ENVIRONMENT\n.TP\n.B DDBST_CURSOR_KEY\n");
  troff(out, "Cursor keys: 64 hex characters each, comma-separated, newest "
             "first (else \\-\\-cursor\\-key\\-file).\n");
  fprintf(out, ".SH EXIT STATUS\n0: done; 1: lint found an error, or "
               "output failed; 12 to 16: diff found a change of class "
               "cleanup, backfill, rewrite, unsafe or impossible; 2: bad input (a message names what was "
               "wrong; a model error is FILE:LINE:COLUMN: path: message).\n"
               ".SH FILES\n");
  troff(out, "share/ddbst/ddbst.schema.json: the model file's JSON Schema "
             "(ddbst schema). Completion for bash and zsh is installed with "
             "the command; it asks ddbst help \\-\\-verbs, \\-\\-options "
             "VERB and \\-\\-names MODEL KIND.\n");
  fprintf(out, ".SH SEE ALSO\nThe docs/ of the source tree: model.md, "
               "queries.md, requests.md, responses.md, review.md, evolution.md, view.md.\n");
}

/* What the completion scripts ask (cli_help_answer). */
int cli_help_answer(int argc, char **argv) {
  if (argc == 1 && !strcmp(argv[0], "--man")) {
    print_man(stdout);
    return 0;
  }
  if (argc == 1 && !strcmp(argv[0], "--verbs")) {
    size_t i = 0;
    for (const cli_help *h; (h = cli_help_next(&i)) != NULL;)
      printf("%s\n", h->verb);
    printf("help\n");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[0], "--options")) {
    const cli_help *h = cli_help_of(argv[1]);
    for (const cli_option *o = h ? h->options : NULL; o && o->name; o++)
      printf("%s\n", o->name);
    printf("--help\n");
    return 0;
  }
  if (argc == 3 && !strcmp(argv[0], "--names")) {
    ddbst_model *m;
    ddbst_error err;
    if (ddbst_model_load_file(argv[1], NULL, &m, &err)) return 2;
    if (!strcmp(argv[2], "entities"))
      for (int e = 0; e < ddbst_model_entity_count(m); e++)
        printf("%s\n", ddbst_model_entity_name(m, e));
    else if (!strcmp(argv[2], "patterns"))
      for (int p = 0; p < ddbst_model_pattern_count(m); p++)
        printf("%s\n", ddbst_model_pattern_name(m, p));
    else if (argc == 3 && !strncmp(argv[2], "attributes:", 11)) {
      int e = ddbst_model_entity(m, argv[2] + 11);
      for (int a = 0; e >= 0 && a < ddbst_model_attribute_count(m, e); a++)
        printf("%s\n", ddbst_model_attribute_name(m, e, a));
    }
    ddbst_model_free(m);
    return 0;
  }
  return -1;
}
