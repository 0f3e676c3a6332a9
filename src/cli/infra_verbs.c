/* Verbs on the model as infrastructure and as a design review:
 * cloudformation (JSON or YAML), lint and doc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"
#include "json_yaml.h"

/* Writes all of `s` to stdout, ending with a newline. */
static void print_text(const char *s, size_t n) {
  fwrite(s, 1, n, stdout);
  if (n && s[n - 1] != '\n') fputc('\n', stdout);
}

/* The answer to {"op":"<op>"} parsed, or NULL (the error printed). */
static yajl_val run_op(const char *model, const char *op, int every_error) {
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, op);
  cli_add(&req, "\"}");
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
  const char *model = NULL, *why = NULL;
  int yaml = 0;
  cli_text req = {0}, filters = {0};
  for (int i = 0; i < argc && !why; i++) {
    if (strcmp(argv[i], "--yaml") == 0)
      yaml = 1;
    else if (strcmp(argv[i], "--stream-filter") == 0 && i + 1 < argc)
      cli_add_element(&filters, argv[++i]);
    else if (strncmp(argv[i], "--stream-filter=", 16) == 0)
      cli_add_element(&filters, argv[i] + 16);
    else if (argv[i][0] == '-')
      why = "cloudformation: unknown option";
    else if (model)
      why = "cloudformation takes one model file";
    else
      model = argv[i];
  }
  if (!why && !model) why = "cloudformation takes a model file";
  cli_add(&req, "{\"op\":\"cloudformation\"");
  cli_add_group(&req, "streamFilters", '[', &filters);
  cli_add(&req, "}");
  int rc = why ? cli_usage_error(why) : cloudformation(model, yaml, &req);
  cli_text_free(&filters);
  cli_text_free(&req);
  return rc;
}

/* lint MODEL: error|warning|note PATH: MESSAGE lines; exit 1 on an error */
int cli_lint(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("lint takes one model file");
  yajl_val root = run_op(argv[0], "lint", 1);
  if (!root) return 2;
  const char *findings[] = {"findings", NULL}, *errors[] = {"errors", NULL};
  yajl_val all = yajl_tree_get(root, findings, yajl_t_array);
  yajl_val n = yajl_tree_get(root, errors, yajl_t_number);
  for (size_t i = 0; all && i < all->u.array.len; i++) {
    yajl_val f = all->u.array.values[i];
    printf("%s %s: %s\n", string_at(f, "severity"), string_at(f, "path"),
           string_at(f, "message"));
  }
  int rc = n && YAJL_GET_INTEGER(n) > 0 ? 1 : 0;
  yajl_tree_free(root);
  return rc;
}

/* doc MODEL: Markdown for a design review */
int cli_doc(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("doc takes one model file");
  yajl_val root = run_op(argv[0], "doc", 0);
  if (!root) return 2;
  const char *markdown = string_at(root, "markdown");
  print_text(markdown, strlen(markdown));
  yajl_tree_free(root);
  return 0;
}
