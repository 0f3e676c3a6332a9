/* Shared pieces of the `ddbst` command: loading the model, printing errors
 * and JSON. Each group of verbs lives in its own file. */
#ifndef DDBST_CLI_H
#define DDBST_CLI_H

#include <stddef.h>

#include "ddbst.h"

/* --table NAME, given before the verb. */
extern const char *cli_table_override;

/* "ddbst: <path>: <message>" on stderr. */
void cli_print_error(const ddbst_error *e);
/* Prints the error and returns the exit code for bad input, 2. */
int cli_fail(const ddbst_error *e);
/* Prints why and the usage, returns 2. */
int cli_usage_error(const char *why);
/* Loads MODEL; with `all`, every error is printed, else only the first.
 * Returns 0 or 2. */
int cli_load(const char *path, int all, ddbst_model **m);
/* The buffer and a newline on stdout; 0, or 1 when stdout failed. */
int cli_print_buf(const ddbst_buf *b);
void cli_print_json_string(const char *s, size_t n);

/* The cursor keys from `key_file` or DDBST_CURSOR_KEY (NULL and a notice on
 * stderr when there is none: unsealed); *rc is 2 when a key is bad. */
ddbst_cursor_keys *cli_cursor_keys(const char *key_file, int *rc);

/* Verbs: each takes the arguments after the verb, returns the exit code. */
int cli_check(int argc, char **argv);
int cli_keys(int argc, char **argv);
int cli_parse(int argc, char **argv);
int cli_patterns(int argc, char **argv);
int cli_create_table(int argc, char **argv);
int cli_get(int argc, char **argv);
int cli_put(int argc, char **argv);
int cli_create(int argc, char **argv);
int cli_delete(int argc, char **argv);
int cli_update(int argc, char **argv);
int cli_query(int argc, char **argv);
int cli_batch_get(int argc, char **argv);
int cli_batch_write(int argc, char **argv);
int cli_transact(int argc, char **argv);
int cli_page(int argc, char **argv);
int cli_stream(int argc, char **argv);
int cli_cloudformation(int argc, char **argv);
int cli_lint(int argc, char **argv);
int cli_doc(int argc, char **argv);

#endif
