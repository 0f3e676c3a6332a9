/* Verbs on the model as infrastructure and as a design review:
 * cloudformation (JSON or YAML), lint and doc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_yaml.h"

/* Writes all of `s` to stdout: 0, or 1 when stdout failed. */
static int print_text(const char *s, size_t n) {
  fwrite(s, 1, n, stdout);
  if (n && s[n - 1] != '\n') fputc('\n', stdout);
  return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

int cli_cloudformation(int argc, char **argv) {
  const char *model_path = NULL;
  int yaml = 0;
  const char **filters = calloc((size_t)argc + 1, sizeof *filters);
  size_t nfilters = 0;
  if (!filters) return cli_usage_error("out of memory");
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--yaml") == 0) {
      yaml = 1;
    } else if (strcmp(argv[i], "--stream-filter") == 0 && i + 1 < argc) {
      filters[nfilters++] = argv[++i];
    } else if (strncmp(argv[i], "--stream-filter=", 16) == 0) {
      filters[nfilters++] = argv[i] + 16;
    } else if (argv[i][0] == '-' || model_path) {
      free(filters);
      return cli_usage_error(argv[i][0] == '-'
                                 ? "cloudformation: unknown option"
                                 : "cloudformation takes one model file");
    } else {
      model_path = argv[i];
    }
  }
  if (!model_path) {
    free(filters);
    return cli_usage_error("cloudformation takes a model file");
  }
  ddbst_model *m;
  if (cli_load(model_path, 0, &m)) {
    free(filters);
    return 2;
  }
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  char why[300];
  char *text = NULL;
  size_t len = 0;
  int rc;
  if (!out) {
    rc = cli_usage_error("out of memory");
  } else if (ddbst_model_cloudformation(m, filters, nfilters, out, &e)) {
    rc = cli_fail(&e);
  } else if ((yaml ? cli_json_to_yaml : cli_json_indent)(
                 ddbst_buf_data(out), &text, &len, why, sizeof why)) {
    fprintf(stderr, "ddbst: %s\n", why);
    rc = 2;
  } else {
    rc = print_text(text, len);
  }
  free(text);
  ddbst_buf_free(out);
  ddbst_model_free(m);
  free(filters);
  return rc;
}

static void print_finding(void *user, int32_t severity, const char *rule,
                          const char *path, const char *message) {
  (void)user;
  (void)rule;
  printf("%s %s: %s\n", ddbst_lint_severity_name(severity), path, message);
}

int cli_lint(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("lint takes one model file");
  ddbst_model *m;
  if (cli_load(argv[0], 1, &m)) return 2;
  ddbst_error e;
  int errors = ddbst_model_lint(m, print_finding, NULL, &e);
  ddbst_model_free(m);
  if (errors < 0) return cli_fail(&e);
  if (fflush(stdout) || ferror(stdout)) return 2;
  return errors > 0 ? 1 : 0;
}

int cli_doc(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("doc takes one model file");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_error e;
  int rc;
  if (!out)
    rc = cli_usage_error("out of memory");
  else if (ddbst_model_doc(m, out, &e))
    rc = cli_fail(&e);
  else
    rc = print_text(ddbst_buf_data(out), ddbst_buf_len(out));
  ddbst_buf_free(out);
  ddbst_model_free(m);
  return rc;
}
