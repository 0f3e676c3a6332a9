/* batch-get, batch-write and transact: operations read from stdin, one JSON
 * object per line in the entry's shape, e.g.
 * {"op":"put","entity":"User","values":{...}}, become the request's "items";
 * the requests are printed as OPERATION<TAB>BODY lines. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "cli.h"

static const cli_option batch_get_options[] = {
    {"--consistent", NULL, "strongly consistent reads"}, {NULL, NULL, NULL}};
static const cli_option batch_write_options[] = {
    {"--now", "MICROSECONDS", "the clock of defaults and timestamps"},
    {NULL, NULL, NULL}};
static const cli_option transact_options[] = {
    {"--token", "TOKEN", "ClientRequestToken: a retry applies once"},
    {"--now", "MICROSECONDS", "the clock of defaults and timestamps"},
    {"--return-on-failure", NULL,
     "a failed condition's answer holds each item (ddbst explains it)"},
    {NULL, NULL, NULL}};

const cli_help cli_batch_help[] = {
    {"batch-get", "MODEL [--consistent] < ops.jsonl",
     "BatchGetItem requests (100 keys each) of the items on stdin, one JSON\n"
     "object a line: {\"op\":\"get\",\"entity\":\"User\",\"values\":{...}}.",
     batch_get_options,
     "ddbst batch-get examples/saas/model.json < docs/examples/gets.jsonl"},
    {"batch-write", "MODEL [--now MICROSECONDS] < ops.jsonl",
     "BatchWriteItem requests (25 writes each) of the puts and deletes on\n"
     "stdin, one JSON object a line: {\"op\":\"put\",\"entity\":...}.",
     batch_write_options,
     "ddbst batch-write examples/saas/model.json < docs/examples/writes.jsonl"},
    {"transact", "MODEL [--token TOKEN] [--now MICROSECONDS] < ops.jsonl",
     "One TransactWriteItems (or TransactGetItems) of the operations on\n"
     "stdin, unique guards included, all or nothing.",
     transact_options,
     "ddbst transact examples/saas/model.json < docs/examples/transact.jsonl"},
    {NULL, NULL, NULL, NULL, NULL}};

/* The stdin line of each item, for errors: "line 3", not "items[1]". */
typedef struct item_lines {
  int *line;
  size_t n, cap;
} item_lines;

static void rename_item_path(const cli_session *s, const char *path,
                             char *out, size_t cap) {
  const item_lines *lines = s->user;
  char *end = NULL;
  unsigned long i =
      strncmp(path, "items[", 6) ? 0 : strtoul(path + 6, &end, 10);
  if (!end || *end != ']' || i >= lines->n) {
    snprintf(out, cap, "%s", path);
    return;
  }
  const char *rest = end[1] == '.' ? end + 2 : end + 1;
  snprintf(out, cap, "line %d%s%s", lines->line[i], *rest ? ": " : "", rest);
}

/* What the first token of a line was: the line must be one object. */
typedef struct line_shape {
  int tokens, object;
} line_shape;

static int first_token(line_shape *l, int object) {
  if (l->tokens++ == 0) l->object = object;
  return 1;
}
static int on_scalar(void *ctx) { return first_token(ctx, 0); }
static int on_bool(void *ctx, int b) {
  (void)b;
  return first_token(ctx, 0);
}
static int on_text(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return first_token(ctx, 0);
}
static int on_string(void *ctx, const unsigned char *s, size_t n) {
  return on_text(ctx, (const char *)s, n);
}
static int on_map(void *ctx) { return first_token(ctx, 1); }

/* One stdin line: it must be one JSON object, to be an element of "items"
 * as it is (so that a line cannot close the array and add to the request).
 * Only its shape is checked here: its text (UTF-8, escapes) and its values
 * are the library's to judge, which names the field ("line 3:
 * values.orgId: ..."). */
static int check_line(const char *line, size_t len, int n) {
  static const yajl_callbacks shape = {
      .yajl_null = on_scalar,
      .yajl_boolean = on_bool,
      .yajl_number = on_text,
      .yajl_string = on_string,
      .yajl_start_map = on_map,
      .yajl_start_array = on_scalar,
  };
  line_shape l = {0, 0};
  yajl_handle h = strlen(line) == len ? yajl_alloc(&shape, NULL, &l) : NULL;
  const char *why = h ? NULL : "a NUL byte";
  unsigned char *msg = NULL;
  if (h) {
    yajl_config(h, yajl_dont_validate_strings, 1);
    if (yajl_parse(h, (const unsigned char *)line, len) != yajl_status_ok ||
        yajl_complete_parse(h) != yajl_status_ok) {
      msg = yajl_get_error(h, 0, NULL, 0);
      why = msg ? (const char *)msg : "not JSON";
    } else if (!l.object) {
      why = "not an object";
    }
  }
  if (why) {
    size_t w = strcspn(why, "\n"); /* YAJL's first line */
    fprintf(stderr, "ddbst: line %d: expected one JSON object (%.*s)\n", n,
            (int)w, why);
  }
  if (msg) yajl_free_error(h, msg);
  if (h) yajl_free(h);
  return why ? 2 : 0;
}

/* The non-blank lines of stdin as a JSON array's elements, in `items`. */
static int read_items(cli_text *items, item_lines *lines) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  for (int n = 1; !rc && (len = getline(&line, &cap, stdin)) > 0; n++) {
    if (strspn(line, " \t\r\n") == (size_t)len) continue;
    rc = check_line(line, (size_t)len, n);
    if (!rc && lines->n == lines->cap) {
      size_t more = lines->cap ? lines->cap * 2 : 64;
      int *p = realloc(lines->line, more * sizeof *p);
      if (!p) {
        fprintf(stderr, "ddbst: out of memory\n");
        rc = 2;
        break;
      }
      lines->line = p;
      lines->cap = more;
    }
    if (rc) break;
    lines->line[lines->n++] = n;
    if (items->len) cli_add(items, ",");
    cli_add_n(items, line, (size_t)len);
  }
  free(line);
  return rc;
}

/* `op`: batchGet (takes --consistent), batchWrite, transact (--token). */
static int run(const char *op, int argc, char **argv) {
  if (argc < 1) return cli_usage_error("this verb takes MODEL and reads stdin");
  int transact = !strcmp(op, "transact");
  cli_text req = {0}, items = {0};
  item_lines lines = {NULL, 0, 0};
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, op);
  cli_add(&req, "\"");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--token") && i + 1 < argc && transact) {
      cli_add_field(&req, "token", argv[++i]);
    } else if (!strcmp(argv[i], "--return-on-failure") && transact) {
      cli_add(&req, ",\"returnOnFailure\":true");
    } else if (!strcmp(argv[i], "--consistent") && !strcmp(op, "batchGet")) {
      cli_add(&req, ",\"consistent\":true");
    } else if (!strcmp(argv[i], "--now") && i + 1 < argc &&
               strcmp(op, "batchGet") != 0 &&
               argv[i + 1][strspn(argv[i + 1], "0123456789")] == '\0' &&
               argv[i + 1][0]) {
      /* the clock of defaults and timestamps: reproducible output */
      cli_add(&req, ",\"now\":");
      cli_add(&req, argv[++i]);
    } else {
      cli_text_free(&req);
      return cli_unknown_option(argv[i]);
    }
  }
  int rc = read_items(&items, &lines);
  cli_add(&req, ",\"items\":[");
  cli_add_n(&req, items.data, items.len);
  cli_add(&req, "]}");
  req.nomem |= items.nomem;
  cli_session s = {
      .model = argv[0], .rename = rename_item_path, .user = &lines};
  char *answer = rc ? NULL : cli_run(&s, &req);
  if (!rc && !answer) rc = 2;
  if (answer && transact) {
    cli_print_request(cli_span_of(answer));
  } else if (answer) {
    cli_span requests = cli_member(cli_span_of(answer), "requests");
    cli_span request = {NULL, 0};
    while (cli_next(requests, &request)) cli_print_request(request);
  }
  ddbst_json_free(answer);
  free(lines.line);
  cli_text_free(&items);
  cli_text_free(&req);
  return rc;
}

int cli_batch_get(int argc, char **argv) { return run("batchGet", argc, argv); }
int cli_batch_write(int argc, char **argv) {
  return run("batchWrite", argc, argv);
}
int cli_transact(int argc, char **argv) { return run("transact", argc, argv); }
