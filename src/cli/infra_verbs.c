/* Verbs on the model as infrastructure and as a design review:
 * cloudformation (JSON or YAML), lint and doc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"
#include "json_yaml.h"

static const cli_option cloudformation_options[] = {
    {"--yaml", NULL, "YAML (for a serverless.yml) instead of JSON"},
    {"--stream-filter", "ENTITY[:EVENTS]",
     "a Lambda filter pattern passing only ENTITY's records (EVENTS: "
     "INSERT,MODIFY,REMOVE)"},
    {NULL, NULL, NULL}};
static const cli_option lint_options[] = {
    {"--format", "text|json|sarif",
     "text (the default): SEVERITY PATH: MESSAGE lines; json; sarif: SARIF "
     "2.1.0 for code scanning"},
    {"--since", "OLD",
     "also the changes since model OLD that are unsafe or impossible in "
     "place (docs/evolution.md)"},
    {NULL, NULL, NULL}};

const cli_help cli_infra_help[] = {
    {"cloudformation", "MODEL [--yaml] [--stream-filter ENTITY[:EVENTS]]...",
     "The table, its IAM policy and stream filters as a CloudFormation\n"
     "template.",
     cloudformation_options,
     "ddbst cloudformation examples/saas/model.json --yaml"},
    {"lint", "MODEL [--format text|json|sarif] [--since OLD]",
     "The design review: one finding per problem, with its rule and the\n"
     "place in the model file (docs/review.md explains every rule). With\n"
     "--since, the changes from OLD that no migration may take blindly are\n"
     "findings too (change-unsafe, change-impossible). Exit 1 when a\n"
     "finding is an error.",
     lint_options, "ddbst lint examples/blog/model.json --format sarif"},
    {"doc", "MODEL",
     "Markdown for a design review: entities and keys, indexes, access\n"
     "patterns and a partition diagram.",
     NULL, "ddbst doc examples/saas/model.json"},
    {NULL, NULL, NULL, NULL, NULL}};

/* Writes all of `s` to stdout, ending with a newline. */
static void print_text(const char *s, size_t n) {
  fwrite(s, 1, n, stdout);
  if (n && s[n - 1] != '\n') fputc('\n', stdout);
}

/* The answer to {"op":"<op>"} (with "sinceFile" when `since` is not
 * NULL) parsed, or NULL (the error printed). */
static yajl_val run_op(const char *model, const char *op, int every_error,
                       const char *since) {
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, op);
  cli_add(&req, "\"");
  if (since) cli_add_field(&req, "sinceFile", since);
  if (since && cli_table_override)
    cli_add_field(&req, "sinceTable", cli_table_override);
  cli_add(&req, "}");
  cli_session s = {.model = model, .every_error = every_error};
  char *answer = cli_run(&s, &req);
  char why[256];
  yajl_val root = answer ? yajl_tree_parse(answer, why, sizeof why) : NULL;
  if (answer && !root) fprintf(stderr, "ddbst: %s: %s\n", op, why);
  ddbst_json_free(answer);
  cli_text_free(&req);
  return root;
}

static const char *string_at(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(obj, path, yajl_t_string);
  return v ? YAJL_GET_STRING(v) : "";
}

/* cloudformation MODEL [--yaml] [--stream-filter ENTITY[:EVENTS]]... */
static int cloudformation(const char *model, int yaml, const cli_text *req) {
  cli_session s = {.model = model};
  char *answer = cli_run(&s, req);
  if (!answer) return 2;
  cli_span tmpl = cli_member(cli_span_of(answer), "template");
  char *json = malloc(tmpl.n + 1), *text = NULL, why[300] = "out of memory";
  size_t len = 0;
  int rc = 2;
  if (json) {
    if (tmpl.n) memcpy(json, tmpl.p, tmpl.n);
    json[tmpl.n] = '\0';
    rc = (yaml ? cli_json_to_yaml : cli_json_indent)(json, &text, &len, why,
                                                      sizeof why)
             ? 2
             : 0;
  }
  if (rc)
    fprintf(stderr, "ddbst: %s\n", why);
  else
    print_text(text, len);
  free(text);
  free(json);
  ddbst_json_free(answer);
  return rc;
}

int cli_cloudformation(int argc, char **argv) {
  const char *model = NULL, *why = NULL, *unknown = NULL;
  int yaml = 0;
  cli_text req = {0}, filters = {0};
  for (int i = 0; i < argc && !why && !unknown; i++) {
    if (strcmp(argv[i], "--yaml") == 0)
      yaml = 1;
    else if (strcmp(argv[i], "--stream-filter") == 0 && i + 1 < argc)
      cli_add_element(&filters, argv[++i]);
    else if (strncmp(argv[i], "--stream-filter=", 16) == 0)
      cli_add_element(&filters, argv[i] + 16);
    else if (argv[i][0] == '-')
      unknown = argv[i];
    else if (model)
      why = "cloudformation takes one model file";
    else
      model = argv[i];
  }
  if (!why && !unknown && !model) why = "cloudformation takes a model file";
  cli_add(&req, "{\"op\":\"cloudformation\"");
  cli_add_group(&req, "streamFilters", '[', &filters);
  cli_add(&req, "}");
  int rc = unknown ? cli_unknown_option(unknown)
           : why   ? cli_usage_error(why)
                   : cloudformation(model, yaml, &req);
  cli_text_free(&filters);
  cli_text_free(&req);
  return rc;
}

/* ---- lint ---- */

/* A SARIF or JSON file's location of a model file: a relative URI
 * reference, bytes outside the unreserved set and '/' percent-encoded. */
static void add_uri(cli_text *t, const char *file) {
  cli_text uri = {0};
  for (const unsigned char *p = (const unsigned char *)file; *p; p++) {
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
        (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
      cli_add_n(&uri, (const char *)p, 1);
    } else {
      char esc[4];
      snprintf(esc, sizeof esc, "%%%02X", *p);
      cli_add(&uri, esc);
    }
  }
  cli_add_string(t, uri.data ? uri.data : "", uri.len);
  if (uri.nomem) t->nomem = 1;
  cli_text_free(&uri);
}

static void add_number(cli_text *t, unsigned n) {
  char s[16];
  snprintf(s, sizeof s, "%u", n);
  cli_add(t, s);
}

/* SARIF's level for a severity: "error", "warning" and "note" are the
 * same words. */
static const char *level_of(const char *severity) {
  return !strcmp(severity, "error") || !strcmp(severity, "warning")
             ? severity
             : "note";
}

/* SARIF 2.1.0: one run of ddbst, a rule per rule id met (in order), a
 * result per finding with its place in the model file and its path as the
 * logical location. */
static void write_sarif(cli_text *t, const char *file, cli_span text,
                        yajl_val all) {
  const char *rules[64];
  size_t nrules = 0;
  size_t count = all ? all->u.array.len : 0;
  for (size_t i = 0; i < count; i++) {
    const char *rule = string_at(all->u.array.values[i], "rule");
    size_t k = 0;
    while (k < nrules && strcmp(rules[k], rule)) k++;
    if (k == nrules && nrules < 64) rules[nrules++] = rule;
  }
  cli_add(t, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
             "\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{"
             "\"name\":\"ddbst\",\"version\":");
  cli_add_string(t, ddbst_version(), strlen(ddbst_version()));
  cli_add(t, ",\"rules\":[");
  for (size_t k = 0; k < nrules; k++) {
    char help[200];
    snprintf(help, sizeof help,
             "docs/%s.md explains the rule %s and how to fix the model",
             strncmp(rules[k], "change-", 7) ? "review" : "evolution",
             rules[k]);
    cli_add(t, k ? ",{\"id\":" : "{\"id\":");
    cli_add_string(t, rules[k], strlen(rules[k]));
    cli_add(t, ",\"help\":{\"text\":");
    cli_add_string(t, help, strlen(help));
    cli_add(t, "}}");
  }
  cli_add(t, "]}},\"artifacts\":[{\"location\":{\"uri\":");
  add_uri(t, file);
  cli_add(t, "}}],\"results\":[");
  for (size_t i = 0; i < count; i++) {
    yajl_val f = all->u.array.values[i];
    const char *rule = string_at(f, "rule"), *path = string_at(f, "path");
    const char *message = string_at(f, "message");
    size_t k = 0;
    while (k < nrules && strcmp(rules[k], rule)) k++;
    unsigned line, column;
    cli_locate(text, path, &line, &column);
    cli_add(t, i ? ",{\"ruleId\":" : "{\"ruleId\":");
    cli_add_string(t, rule, strlen(rule));
    cli_add(t, ",\"ruleIndex\":");
    add_number(t, (unsigned)k);
    cli_add(t, ",\"level\":\"");
    cli_add(t, level_of(string_at(f, "severity")));
    cli_add(t, "\",\"message\":{\"text\":");
    cli_add_string(t, message, strlen(message));
    cli_add(t, "},\"locations\":[{\"physicalLocation\":{"
               "\"artifactLocation\":{\"uri\":");
    add_uri(t, file);
    cli_add(t, ",\"index\":0},\"region\":{\"startLine\":");
    add_number(t, line);
    cli_add(t, ",\"startColumn\":");
    add_number(t, column);
    cli_add(t, "}},\"logicalLocations\":[{\"fullyQualifiedName\":");
    cli_add_string(t, path, strlen(path));
    cli_add(t, ",\"kind\":\"member\"}]}]}");
  }
  cli_add(t, "]}]}");
}

/* {"file":...,"findings":[{severity, rule, path, line, column, message}],
 * "errors":N} */
static void write_json(cli_text *t, const char *file, cli_span text,
                       yajl_val all, long long errors) {
  cli_add(t, "{\"file\":");
  cli_add_string(t, file, strlen(file));
  cli_add(t, ",\"findings\":[");
  for (size_t i = 0; all && i < all->u.array.len; i++) {
    yajl_val f = all->u.array.values[i];
    static const char *const fields[] = {"severity", "rule", "path"};
    cli_add(t, i ? ",{" : "{");
    for (size_t k = 0; k < 3; k++) {
      const char *v = string_at(f, fields[k]);
      cli_add(t, k ? ",\"" : "\"");
      cli_add(t, fields[k]);
      cli_add(t, "\":");
      cli_add_string(t, v, strlen(v));
    }
    unsigned line, column;
    cli_locate(text, string_at(f, "path"), &line, &column);
    cli_add(t, ",\"line\":");
    add_number(t, line);
    cli_add(t, ",\"column\":");
    add_number(t, column);
    cli_add(t, ",\"message\":");
    const char *m = string_at(f, "message");
    cli_add_string(t, m, strlen(m));
    cli_add(t, "}");
  }
  char tail[64];
  snprintf(tail, sizeof tail, "],\"errors\":%lld}", errors);
  cli_add(t, tail);
}

/* lint MODEL [--format text|json|sarif] [--since OLD]: text is SEVERITY PATH: MESSAGE
 * lines; exit 1 on an error */
int cli_lint(int argc, char **argv) {
  const char *model = NULL, *format = "text", *since = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--format") && i + 1 < argc)
      format = argv[++i];
    else if (!strcmp(argv[i], "--since") && i + 1 < argc)
      since = argv[++i];
    else if (!strncmp(argv[i], "--since=", 8))
      since = argv[i] + 8;
    else if (!strncmp(argv[i], "--format=", 9))
      format = argv[i] + 9;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_unknown_option(argv[i]);
    else if (model)
      return cli_usage_error("lint takes one model file");
    else
      model = argv[i];
  }
  if (!model) return cli_usage_error("lint takes one model file");
  if (strcmp(format, "text") && strcmp(format, "json") &&
      strcmp(format, "sarif")) {
    fprintf(stderr, "ddbst: lint: --format %s: expected text, json or sarif\n",
            format);
    return 2;
  }
  yajl_val root = run_op(model, "lint", 1, since);
  if (!root) return 2;
  const char *findings[] = {"findings", NULL}, *errors[] = {"errors", NULL};
  yajl_val all = yajl_tree_get(root, findings, yajl_t_array);
  yajl_val n = yajl_tree_get(root, errors, yajl_t_number);
  long long nerrors = n ? YAJL_GET_INTEGER(n) : 0;
  int rc = nerrors > 0 ? 1 : 0;
  if (!strcmp(format, "text")) {
    for (size_t i = 0; all && i < all->u.array.len; i++) {
      yajl_val f = all->u.array.values[i];
      printf("%s %s: %s\n", string_at(f, "severity"), string_at(f, "path"),
             string_at(f, "message"));
    }
  } else {
    size_t len = 0;
    char *text = cli_read_file(model, &len);
    cli_text out = {0};
    cli_span whole = {text, len};
    if (text && !strcmp(format, "json"))
      write_json(&out, model, whole, all, nerrors);
    else if (text)
      write_sarif(&out, model, whole, all);
    if (!text || out.nomem) {
      if (text) fprintf(stderr, "ddbst: out of memory\n");
      rc = 2;
    } else {
      print_text(out.data, out.len);
    }
    cli_text_free(&out);
    free(text);
  }
  yajl_tree_free(root);
  return rc;
}

/* doc MODEL: Markdown for a design review */
int cli_doc(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("doc takes one model file");
  yajl_val root = run_op(argv[0], "doc", 0, NULL);
  if (!root) return 2;
  const char *markdown = string_at(root, "markdown");
  print_text(markdown, strlen(markdown));
  yajl_tree_free(root);
  return 0;
}
