/* Shared pieces of the `ddbst` command, which is built on the JSON entry
 * (ddbst_json_*): request text, sessions and answers. Each group of verbs
 * lives in its own file. */
#ifndef DDBST_CLI_H
#define DDBST_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "ddbst.h"

/* --table NAME, given before the verb. */
extern const char *cli_table_override;

/* ---- help (help.c): each verb's, in a table beside the verb ---- */

typedef struct cli_option {
  const char *name; /* "--limit" */
  const char *arg;  /* "N", or NULL for a flag */
  const char *text; /* what it does, one line */
} cli_option;

/* What `ddbst help VERB`, `ddbst VERB --help` and a usage error print, and
 * what completion offers. Each file of verbs lists its own, ending with an
 * entry whose verb is NULL; help.c gathers the lists. */
typedef struct cli_help {
  const char *verb;
  const char *synopsis;       /* after "ddbst VERB ": "MODEL ENTITY ..." */
  const char *summary;        /* one paragraph, lines of at most 76 */
  const cli_option *options;  /* ending with {NULL}; NULL: none */
  const char *example;        /* a command line, after "$ " */
} cli_help;

extern const cli_help cli_model_help[], cli_request_help[], cli_batch_help[],
    cli_page_help[], cli_infra_help[], cli_view_help[], cli_generate_help[],
    cli_workbench_help[], cli_hydrate_help[], cli_evolve_help[], cli_migrate_help[],
    cli_table_help[];

/* The verb being run (main sets it), for usage errors and option hints. */
extern const char *cli_verb;

/* The help of `verb`, or NULL. */
const cli_help *cli_help_of(const char *verb);
/* Every verb's help in turn: *i = 0 first; NULL past the last. */
const cli_help *cli_help_next(size_t *i);
/* `ddbst help VERB` on stdout; 2 and a message for an unknown verb. */
int cli_print_help(const char *verb);
/* The overview (`ddbst --help`) on `out`. */
void cli_print_overview(FILE *out);
/* ddbst help --man | --verbs | --options VERB | --names MODEL
 * entities|patterns|attributes:ENTITY: the manual, and the completion
 * scripts' questions; -1 for none of them. */
int cli_help_answer(int argc, char **argv);
/* The closest verb to a misspelt one, or NULL (ddbst_suggest). */
const char *cli_suggest_verb(const char *word);

/* Prints "ddbst: VERB: why" and the verb's usage line, returns 2. */
int cli_usage_error(const char *why);
/* "ddbst: VERB: unknown option --x; did you mean --y?" and the usage
 * line, returns 2. */
int cli_unknown_option(const char *arg);

/* ---- request text (text.c) ---- */

/* Growable NUL-terminated text. Out of memory sets `nomem` and drops later
 * writes: cli_run refuses such a request, so callers need not check. */
typedef struct cli_text {
  char *data;
  size_t len, cap;
  int nomem;
} cli_text;

void cli_text_free(cli_text *t);
void cli_add(cli_text *t, const char *raw);
void cli_add_n(cli_text *t, const char *raw, size_t n);
/* `s` as a JSON string: quotes, backslashes and control bytes escaped. */
void cli_add_string(cli_text *t, const char *s, size_t n);
/* ,"key":"value" */
void cli_add_field(cli_text *t, const char *key, const char *value);
/* Members and elements gathered from several arguments, then added to the
 * request with cli_add_group: NAME=VALUE → "NAME":"VALUE" (2 and a message
 * when there is no '='), and a string element. */
int cli_add_assignment(cli_text *members, const char *arg);
void cli_add_element(cli_text *elements, const char *s);
/* ,"key":{members} or ,"key":[elements] (`open` '{' or '['); nothing when
 * none were gathered. */
void cli_add_group(cli_text *t, const char *key, char open,
                   const cli_text *items);

/* Zeroes memory that held secrets (cursor keys), in a way the compiler
 * keeps. */
void cli_wipe(void *p, size_t n);

/* All of stdin, or NULL (and a message) when it cannot be read. */
char *cli_read_stdin(size_t *len);

/* ---- answers (span.c): the exact bytes of a value, no tree ---- */

typedef struct cli_span {
  const char *p; /* NULL: absent */
  size_t n;
} cli_span;

cli_span cli_span_of(const char *json);
/* The value of member `key` of the object `obj`. */
cli_span cli_member(cli_span obj, const char *key);
/* The same for key[0..klen), with *name (when `name` is not NULL) at the
 * quote that opens the member's name. */
cli_span cli_member_n(cli_span obj, const char *key, size_t klen,
                      const char **name);

/* ---- places in the model file (locate.c) ---- */

/* The 1-based line and column in `text` of the member a model path names
 * ("entities.User.indexes.GSI1.pk"): its quoted name, or the deepest
 * member of the path that exists (1:1 for none). Names may hold dots
 * (index names): the longest that exists is taken at each level. */
void cli_locate(cli_span text, const char *path, unsigned *line,
                unsigned *column);
/* All of a file, NUL-terminated, or NULL (and a message). */
char *cli_read_file(const char *file, size_t *len);
/* Steps through the array `arr`: set elem->p to NULL for the first element;
 * returns 0 past the last. */
int cli_next(cli_span arr, cli_span *elem);
/* The span and a newline on stdout. */
void cli_print_span(cli_span s);
/* {"operation":"PutItem",...,"body":{...}} → PutItem<TAB>BODY, a line. */
void cli_print_request(cli_span request);

/* ---- sessions (session.c) ---- */

typedef struct cli_session {
  const char *model;       /* MODEL, the file */
  const char *cursor_keys; /* "hex64,hex64" newest first, or NULL */
  int every_error;         /* a bad model: every problem, one a line */
  /* The user's name for an error's path (NULL: the path as it is). */
  void (*rename)(const struct cli_session *s, const char *path, char *out,
                 size_t cap);
  const void *user; /* for rename */
} cli_session;

/* Opens a session on s->model (with --table), runs `request` and closes
 * it. Returns the answer (free it with ddbst_json_free), or NULL when the
 * answer is an error, printed as "ddbst: <path>: <message>". */
char *cli_run(const cli_session *s, const cli_text *request);

/* The cursor keys from `key_file`, else DDBST_CURSOR_KEY, into `hex` (of
 * `cap` bytes): hex, NULL when there are none, or NULL with *rc 2 and a
 * message when the file cannot be read. */
const char *cli_cursor_keys(const char *key_file, char *hex, size_t cap,
                            int *rc);
/* The notice that cursors made or read without keys are unsealed. */
void cli_unsealed_notice(void);

/* ---- verbs: each takes the arguments after the verb, returns the exit
 * code ---- */
int cli_check(int argc, char **argv);
int cli_keys(int argc, char **argv);
int cli_parse(int argc, char **argv);
int cli_patterns(int argc, char **argv);
int cli_schema(int argc, char **argv);
int cli_create_table(int argc, char **argv);
/* describe-table, delete-table, update-table, update-continuous-backups,
 * update-contributor-insights (table_verbs.c) */
int cli_describe_table(int argc, char **argv);
int cli_delete_table(int argc, char **argv);
int cli_update_table(int argc, char **argv);
int cli_update_continuous_backups(int argc, char **argv);
int cli_update_contributor_insights(int argc, char **argv);
int cli_update_time_to_live(int argc, char **argv);
int cli_get(int argc, char **argv);
int cli_put(int argc, char **argv);
int cli_create(int argc, char **argv);
int cli_delete(int argc, char **argv);
int cli_update(int argc, char **argv);
int cli_query(int argc, char **argv);
int cli_scan(int argc, char **argv);
int cli_batch_get(int argc, char **argv);
int cli_batch_write(int argc, char **argv);
int cli_transact(int argc, char **argv);
int cli_page(int argc, char **argv);
int cli_hydrate(int argc, char **argv); /* hydrate_verb.c */
int cli_stream(int argc, char **argv);
int cli_cloudformation(int argc, char **argv);
int cli_lint(int argc, char **argv);
int cli_diff(int argc, char **argv);
/* migrate plan|step|verify OLD NEW [PAGE.json] (migrate_verbs.c) */
int cli_migrate(int argc, char **argv);
int cli_doc(int argc, char **argv);
/* generate typescript|python|c MODEL [--name NAME] (generate_model.c) */
int cli_generate(int argc, char **argv);
/* view MODEL [-o FILE] [--seed N] [--data|--json] (view_verbs.c) */
int cli_view(int argc, char **argv);
/* workbench MODEL | --import FILE (workbench.c, workbench_import.c) */
int cli_workbench(int argc, char **argv);

#endif
