/* Verbs that print request bodies, one per line as OPERATION<TAB>BODY, ready
 * for curl with the header X-Amz-Target: DynamoDB_20120810.OPERATION. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_option read_options[] = {
    {"--consistent", NULL, "a strongly consistent read"},
    {"--project", "NAME", "return only this attribute (repeat for more)"},
    {NULL, NULL, NULL}};
static const cli_option put_options[] = {
    {"--expect-version", "N",
     "only if the item's version attribute is N (stores N + 1)"},
    {"--condition", "TEXT",
     "only if TEXT holds (docs/conditions.md): 'status = \"draft\"'"},
    {"--param", "NAME=VALUE", "a value for :NAME in --condition"},
    {"--now", "MICROSECONDS", "the clock of defaults and timestamps"},
    {"--return", "old|none", "the answer holds the item as it was"},
    {"--return-on-failure", NULL,
     "a failed condition's answer holds the item (ddbst explains it)"},
    {NULL, NULL, NULL}};
static const cli_option delete_options[] = {
    {"--if-exists", NULL, "fail when there is no such item"},
    {"--expect-version", "N", "only if the item's version attribute is N"},
    {"--condition", "TEXT", "only if TEXT holds (docs/conditions.md)"},
    {"--param", "NAME=VALUE", "a value for :NAME in --condition"},
    {"--return", "old|none", "the answer holds the item as it was"},
    {"--return-on-failure", NULL,
     "a failed condition's answer holds the item (ddbst explains it)"},
    {NULL, NULL, NULL}};
static const cli_option update_options[] = {
    {"--set", "NAME=VALUE", "SET an attribute (index keys follow)"},
    {"--remove", "NAME", "REMOVE an attribute (a sparse index's facet: the "
                         "item leaves it)"},
    {"--add", "NAME=NUMBER", "ADD to a number, or elements to a set"},
    {"--append", "NAME=JSON", "append a JSON array's elements to a list"},
    {"--previous", "NAME=VALUE",
     "the value a unique attribute had, to move its guard"},
    {"--set", "'ACTION'",
     "an action of the text form: 'count = count + 1', 'tags = "
     "list_append(tags, :t)'"},
    {"--remove", "PATH", "REMOVE a map key or list element: payload.items[2]"},
    {"--add", "'PATH VALUE'", "ADD to a number or set at PATH"},
    {"--delete", "'PATH VALUE'", "DELETE elements from a set"},
    {"--update", "TEXT", "actions as one text: 'SET a = :a REMOVE b'"},
    {"--expect-version", "N", "only if the item's version attribute is N"},
    {"--upsert", NULL, "also when the item does not exist"},
    {"--condition", "TEXT", "only if TEXT holds (docs/conditions.md)"},
    {"--param", "NAME=VALUE", "a value for :NAME in an action or condition"},
    {"--now", "MICROSECONDS", "the clock of defaults and timestamps"},
    {"--return", "new|old|updated-new|updated-old|none",
     "the answer holds the item after or before the update (updated-*: "
     "only what it wrote)"},
    {"--return-on-failure", NULL,
     "a failed condition's answer holds the item (ddbst explains it)"},
    {NULL, NULL, NULL}};
static const cli_option query_options[] = {
    {"--begins", "NAME=VALUE", "the facet starts with VALUE"},
    {"--gt", "NAME=VALUE",
     "after VALUE (after all that start with it; with --lt or --lte: a "
     "range)"},
    {"--gte", "NAME=VALUE", "VALUE or after (with --lt or --lte: a range)"},
    {"--lt", "NAME=VALUE", "before VALUE"},
    {"--lte", "NAME=VALUE", "VALUE or before (a partial VALUE: all of it)"},
    {"--limit", "N", "items a page (capped at the pattern's maximum)"},
    {"--consistent", NULL, "a strongly consistent read (table patterns)"},
    {"--project", "NAME", "return only this attribute (repeat for more)"},
    {"--filter", "TEXT",
     "only items for which TEXT holds, after the read (docs/conditions.md)"},
    {"--param", "NAME=VALUE", "a value for :NAME in --filter"},
    {"--count", NULL, "the number of matching items, not the items"},
    {"--cursor", "CURSOR", "start after this cursor (from ddbst page)"},
    {"--cursor-key-file", "FILE",
     "the cursor keys (else DDBST_CURSOR_KEY): 64 hex characters each, "
     "comma-separated, newest first"},
    {NULL, NULL, NULL}};

static const cli_option scan_options[] = {
    {"--index", "NAME", "scan this index, not the table"},
    {"--entity", "NAME", "only items of this entity (repeat for more)"},
    {"--filter", "TEXT",
     "only items of the one --entity for which TEXT holds "
     "(docs/conditions.md)"},
    {"--param", "NAME=VALUE", "a value for :NAME in --filter"},
    {"--project", "NAME", "return only this attribute (repeat for more)"},
    {"--segment", "S/T", "segment S of a parallel scan in T segments"},
    {"--limit", "N", "items read a page"},
    {"--consistent", NULL, "a strongly consistent read (not a global index)"},
    {"--count", NULL, "the number of matching items, not the items"},
    {"--cursor", "CURSOR", "start after this cursor (from the page before)"},
    {"--cursor-key-file", "FILE",
     "the cursor keys (else DDBST_CURSOR_KEY): 64 hex characters each, "
     "comma-separated, newest first"},
    {NULL, NULL, NULL}};

const cli_help cli_request_help[] = {
    {"create-table", "MODEL",
     "The CreateTable request of the model's table: key attributes, GSIs\n"
     "with their projections, on-demand billing, the stream.",
     NULL, "ddbst create-table examples/saas/model.json"},
    {"get", "MODEL ENTITY NAME=VALUE... [options]",
     "The GetItem of the item whose primary-key facets are given.",
     read_options,
     "ddbst get examples/saas/model.json User orgId=o1 userId=u1 "
     "--consistent"},
    {"put", "MODEL ENTITY NAME=VALUE... [options]",
     "The PutItem of the whole item: defaults filled, required attributes\n"
     "checked, every key built. An entity with unique attributes is\n"
     "written with create, update and delete instead.",
     put_options,
     "ddbst put examples/saas/model.json Project orgId=o1 projectId=p1 "
     "createdAt=2026-03-14T10:00:00Z name=Apollo status=active"},
    {"create", "MODEL ENTITY NAME=VALUE... [options]",
     "A put only if no such item exists (with its unique guards, a\n"
     "TransactWriteItems).",
     put_options,
     "ddbst create examples/saas/model.json User orgId=o1 userId=u1 "
     "email=Ann@Example.com name=Ann"},
    {"delete", "MODEL ENTITY NAME=VALUE... [options]",
     "The DeleteItem of the item (and its unique guards).", delete_options,
     "ddbst delete examples/saas/model.json Project orgId=o1 projectId=p1 "
     "createdAt=2026-03-14T10:00:00Z --if-exists"},
    {"update", "MODEL ENTITY NAME=VALUE... [options]",
     "The UpdateItem of the item whose primary-key facets are given; the\n"
     "index keys stay true (a changed facet rewrites them, a removed one\n"
     "takes the item out of a sparse index).",
     update_options,
     "ddbst update examples/saas/model.json Project orgId=o1 projectId=p1 "
     "createdAt=2026-03-14T10:00:00Z --set status=archived"},
    {"query", "MODEL PATTERN NAME=VALUE... [options]",
     "The Query of access pattern PATTERN: NAME=VALUE gives the partition\n"
     "key's facets (and leading sort-key facets); one sort-key condition\n"
     "narrows it, inside the entity's key space.",
     query_options,
     "ddbst query examples/saas/model.json listEvents projectId=p1 "
     "--gte ts=2026-01-01 --lte ts=2026-02-01"},
    {"scan", "MODEL [options]",
     "The Scan of the table or an index: every item, or those of some\n"
     "entities or a filter, a page at a time, in parallel segments if\n"
     "asked. For migrations and audits, never a request path.",
     scan_options,
     "ddbst scan examples/saas/model.json --entity User --segment 0/4 "
     "--limit 100"},
    {NULL, NULL, NULL, NULL, NULL}};

/* Runs `request` and prints the request it answers. */
static int print_request(const cli_session *s, const cli_text *request) {
  char *answer = cli_run(s, request);
  if (!answer) return 2;
  cli_print_request(cli_span_of(answer));
  ddbst_json_free(answer);
  return 0;
}

/* A whole number as JSON; 2 and a message when `s` is not one. */
static int add_number(cli_text *t, const char *key, const char *option,
                      const char *s) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (!*s || *end || errno == ERANGE) {
    fprintf(stderr, "ddbst: %s: expected a whole number, not '%s'\n", option,
            s);
    return 2;
  }
  char field[96];
  snprintf(field, sizeof field, ",\"%s\":%lld", key, x);
  cli_add(t, field);
  return 0;
}

int cli_create_table(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("create-table takes one model file");
  cli_text req = {0};
  cli_add(&req, "{\"op\":\"createTable\"}");
  cli_session s = {.model = argv[0]};
  int rc = print_request(&s, &req);
  cli_text_free(&req);
  return rc;
}

/* The options of the item verbs that gather NAME=VALUE or names. */
static const struct {
  const char *option, *field;
  char open; /* '{': NAME=VALUE members, '[': names */
} groups[] = {{"--set", "set", '{'},         {"--add", "add", '{'},
              {"--append", "append", '{'},   {"--previous", "previous", '{'},
              {"--remove", "remove", '['},   {"--project", "project", '['},
              {"--param", "params", '{'}};
enum { NGROUPS = sizeof groups / sizeof groups[0] };

/* Whether `arg` is NAME=VALUE (NAME letters, digits, '_' and '-' only) or
 * NAME, the forms --set, --add and --remove gather; anything else is an
 * update action in the text form ('count = count + 1', 'details.color'). */
static int is_plain(const char *arg, int assignment) {
  size_t i = 0;
  while ((arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= 'A' && arg[i] <= 'Z') ||
         (arg[i] >= '0' && arg[i] <= '9') || arg[i] == '_' || arg[i] == '-')
    i++;
  return i > 0 && (assignment ? arg[i] == '=' : arg[i] == '\0');
}

/* The update actions given as text, one clause per keyword. */
typedef struct actions {
  cli_text clause[4]; /* set, remove, add, delete */
  cli_text raw;       /* --update */
} actions;

static void add_action(actions *a, int clause, const char *text) {
  cli_text *t = &a->clause[clause];
  cli_add(t, t->len ? ", " : "");
  cli_add(t, text);
}

/* ,"update":"set ..., ... remove ... add ... delete ... <--update>" */
static void add_actions_field(cli_text *req, actions *a) {
  static const char *const kw[] = {"set ", "remove ", "add ", "delete "};
  cli_text text = {0};
  for (int i = 0; i < 4; i++) {
    if (!a->clause[i].len) continue;
    cli_add(&text, text.len ? " " : "");
    cli_add(&text, kw[i]);
    cli_add_n(&text, a->clause[i].data, a->clause[i].len);
  }
  if (a->raw.len) {
    cli_add(&text, text.len ? " " : "");
    cli_add_n(&text, a->raw.data, a->raw.len);
  }
  if (text.nomem) req->nomem = 1;
  if (text.len) {
    cli_add(req, ",\"update\":");
    cli_add_string(req, text.data, text.len);
  }
  cli_text_free(&text);
  for (int i = 0; i < 4; i++) cli_text_free(&a->clause[i]);
  cli_text_free(&a->raw);
}

/* ,"return":"ALL_NEW" for --return new (and the others; DynamoDB's own
 * spellings too). */
static int add_return(cli_text *req, const char *v) {
  static const struct {
    const char *cli, *ddb;
  } values[] = {{"none", "NONE"},
                {"old", "ALL_OLD"},
                {"new", "ALL_NEW"},
                {"updated-old", "UPDATED_OLD"},
                {"updated-new", "UPDATED_NEW"}};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    if (!strcmp(v, values[i].cli) || !strcmp(v, values[i].ddb)) {
      cli_add_field(req, "return", values[i].ddb);
      return 0;
    }
  fprintf(stderr, "ddbst: --return %s: expected new, old, updated-new, "
                  "updated-old or none\n",
          v);
  return 2;
}

/* get, put, create, delete, update: MODEL ENTITY NAME=VALUE... [options].
 * Which options a verb takes is the entry's to say. */
static int item_verb(const char *verb, int argc, char **argv) {
  if (argc < 2) return cli_usage_error("this verb takes MODEL ENTITY");
  cli_text req = {0}, values = {0}, gathered[NGROUPS];
  actions acts;
  memset(gathered, 0, sizeof gathered);
  memset(&acts, 0, sizeof acts);
  cli_add(&req, "{\"op\":\"");
  cli_add(&req, verb);
  cli_add(&req, "\"");
  cli_add_field(&req, "entity", argv[1]);
  int rc = 0;
  for (int i = 2; i < argc && !rc; i++) {
    const char *a = argv[i];
    size_t g = 0;
    while (g < NGROUPS && strcmp(a, groups[g].option) != 0) g++;
    /* --set, --add and --remove also take actions in the text form */
    int clause = g == 0 ? 0 : g == 4 ? 1 : g == 1 ? 2 : -1;
    if (g < NGROUPS && i + 1 < argc && clause >= 0 &&
        !is_plain(argv[i + 1], groups[g].open == '{')) {
      add_action(&acts, clause, argv[++i]);
    } else if (g < NGROUPS && i + 1 < argc) {
      if (groups[g].open == '{')
        rc = cli_add_assignment(&gathered[g], argv[++i]);
      else
        cli_add_element(&gathered[g], argv[++i]);
    } else if (!strcmp(a, "--delete") && i + 1 < argc) {
      add_action(&acts, 3, argv[++i]);
    } else if (!strcmp(a, "--update") && i + 1 < argc) {
      cli_add(&acts.raw, acts.raw.len ? " " : "");
      cli_add(&acts.raw, argv[++i]);
    } else if (!strcmp(a, "--condition") && i + 1 < argc) {
      cli_add_field(&req, "condition", argv[++i]);
    } else if (!strcmp(a, "--consistent")) {
      cli_add(&req, ",\"consistent\":true");
    } else if (!strcmp(a, "--if-exists")) {
      cli_add(&req, ",\"ifExists\":true");
    } else if (!strcmp(a, "--upsert")) {
      cli_add(&req, ",\"upsert\":true");
    } else if (!strcmp(a, "--return") && i + 1 < argc) {
      rc = add_return(&req, argv[++i]);
    } else if (!strcmp(a, "--return-on-failure")) {
      cli_add(&req, ",\"returnOnFailure\":true");
    } else if (!strcmp(a, "--expect-version") && i + 1 < argc) {
      rc = add_number(&req, "expectVersion", a, argv[++i]);
    } else if (!strcmp(a, "--now") && i + 1 < argc) {
      /* the clock of defaults and timestamps: reproducible output */
      rc = add_number(&req, "now", a, argv[++i]);
    } else if (a[0] == '-' && a[1] == '-') {
      rc = cli_unknown_option(a);
    } else {
      rc = cli_add_assignment(&values, a);
    }
  }
  cli_add_group(&req, "values", '{', &values);
  for (size_t g = 0; g < NGROUPS; g++) {
    cli_add_group(&req, groups[g].field, groups[g].open, &gathered[g]);
    cli_text_free(&gathered[g]);
  }
  add_actions_field(&req, &acts);
  cli_add(&req, "}");
  cli_session s = {.model = argv[0]};
  if (!rc) rc = print_request(&s, &req);
  cli_text_free(&values);
  cli_text_free(&req);
  return rc;
}

int cli_get(int argc, char **argv) { return item_verb("get", argc, argv); }
int cli_put(int argc, char **argv) { return item_verb("put", argc, argv); }
int cli_create(int argc, char **argv) { return item_verb("create", argc, argv); }
int cli_delete(int argc, char **argv) { return item_verb("delete", argc, argv); }
int cli_update(int argc, char **argv) { return item_verb("update", argc, argv); }

/* The sort-key condition of a query: one of --begins|--gt|--gte|--lt|--lte
 * NAME=VALUE, or a lower bound (--gt, --gte) and an upper one (--lt,
 * --lte) on one facet, which make a pair. */
typedef struct condition {
  const char *test; /* "begins", ..., "gt"; NULL: none */
  const char *test2; /* a pair's upper bound: "lt" or "lte"; NULL: none */
  const char *name, *value, *value2;
  size_t name_len;
} condition;

static int is_lower(const char *t) {
  return !strcmp(t, "gt") || !strcmp(t, "gte");
}
static int is_upper(const char *t) {
  return !strcmp(t, "lt") || !strcmp(t, "lte");
}

static int add_condition(condition *c, const char *test, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq) {
    fprintf(stderr, "ddbst: %s: expected NAME=VALUE\n", arg);
    return 2;
  }
  size_t n = (size_t)(eq - arg);
  int pair = c->test && !c->test2 &&
             ((is_lower(c->test) && is_upper(test)) ||
              (is_upper(c->test) && is_lower(test)));
  if (pair && (n != c->name_len || memcmp(arg, c->name, n) != 0)) {
    fprintf(stderr, "ddbst: a lower and an upper bound must name one facet\n");
    return 2;
  }
  if (c->test && !pair) {
    fprintf(stderr, "ddbst: a query takes one sort-key condition, or one "
                    "lower bound (--gt, --gte) with one upper bound (--lt, "
                    "--lte)\n");
    return 2;
  }
  if (pair) {
    /* the lower bound first, its value as value */
    if (is_upper(c->test)) {
      c->test2 = c->test;
      c->value2 = c->value;
      c->test = test;
      c->value = eq + 1;
    } else {
      c->test2 = test;
      c->value2 = eq + 1;
    }
    return 0;
  }
  c->test = test;
  c->name = arg;
  c->name_len = n;
  c->value = eq + 1;
  return 0;
}

/* ,"condition":{"NAME":{"TEST":"VALUE"}} or, for a pair,
 * {"NAME":{"LOWER":"VALUE","UPPER":"VALUE2"}} */
static void add_condition_field(cli_text *req, const condition *c) {
  if (!c->test) return;
  cli_add(req, ",\"condition\":{");
  cli_add_string(req, c->name, c->name_len);
  cli_add(req, ":{\"");
  cli_add(req, c->test);
  cli_add(req, "\":");
  cli_add_string(req, c->value, strlen(c->value));
  if (c->test2) {
    cli_add(req, ",\"");
    cli_add(req, c->test2);
    cli_add(req, "\":");
    cli_add_string(req, c->value2, strlen(c->value2));
  }
  cli_add(req, "}}");
}

/* query MODEL PATTERN NAME=VALUE... [a condition] [--limit N]
 * [--consistent] [--project NAME]... [--cursor C [--cursor-key-file F]] */
/* The options a query and a scan share, gathered while reading argv. */
typedef struct read_args {
  cli_text project, params;
  const char *cursor, *key_file;
} read_args;

/* Reads the shared option at argv[*i] (and its value): 1 when it was one,
 * with *rc set on a bad value; 0 for an option of the verb's own. */
static int read_option(read_args *r, cli_text *req, int argc, char **argv,
                       int *i, int *rc) {
  const char *a = argv[*i];
  int value = *i + 1 < argc;
  if (!strcmp(a, "--project") && value) {
    cli_add_element(&r->project, argv[++*i]);
  } else if (!strcmp(a, "--filter") && value) {
    cli_add_field(req, "filter", argv[++*i]);
  } else if (!strcmp(a, "--param") && value) {
    *rc = cli_add_assignment(&r->params, argv[++*i]);
  } else if (!strcmp(a, "--cursor") && value) {
    r->cursor = argv[++*i];
  } else if (!strcmp(a, "--cursor-key-file") && value) {
    r->key_file = argv[++*i];
  } else if (!strcmp(a, "--limit") && value) {
    *rc = add_number(req, "limit", a, argv[++*i]);
  } else if (!strcmp(a, "--consistent")) {
    cli_add(req, ",\"consistent\":true");
  } else if (!strcmp(a, "--count")) {
    cli_add(req, ",\"select\":\"COUNT\"");
  } else {
    return 0;
  }
  return 1;
}

/* Ends `req` with the shared members (and a query's condition `cond`),
 * prints its request unless `rc` says the line was bad, and frees what was
 * gathered. */
static int print_read(const char *model, cli_text *req, read_args *r,
                      const condition *cond, int rc) {
  cli_add_group(req, "project", '[', &r->project);
  cli_add_group(req, "params", '{', &r->params);
  if (cond) add_condition_field(req, cond);
  if (r->cursor) cli_add_field(req, "cursor", r->cursor);
  cli_add(req, "}");
  char hex[4096];
  cli_session s = {.model = model};
  /* keys are read only for a cursor */
  if (!rc && r->cursor)
    s.cursor_keys = cli_cursor_keys(r->key_file, hex, sizeof hex, &rc);
  if (!rc) rc = print_request(&s, req);
  /* a cursor read without keys was unsealed, as only a model declaring so
   * allows: the notice follows it (a sealed model's refusal says the rest) */
  if (!rc && r->cursor && !s.cursor_keys) cli_unsealed_notice();
  cli_wipe(hex, sizeof hex);
  cli_text_free(&r->project);
  cli_text_free(&r->params);
  cli_text_free(req);
  return rc;
}

int cli_query(int argc, char **argv) {
  static const char *const tests[] = {"--begins", "--gt", "--gte", "--lt",
                                      "--lte"};
  enum { NTESTS = sizeof tests / sizeof tests[0] };
  if (argc < 2) return cli_usage_error("query takes MODEL PATTERN");
  cli_text req = {0}, values = {0};
  read_args r = {0};
  condition cond = {0};
  int rc = 0;
  cli_add(&req, "{\"op\":\"query\"");
  cli_add_field(&req, "pattern", argv[1]);
  for (int i = 2; i < argc && !rc; i++) {
    const char *a = argv[i];
    size_t t = 0;
    while (t < NTESTS && strcmp(a, tests[t]) != 0) t++;
    if (t < NTESTS && i + 1 < argc)
      rc = add_condition(&cond, tests[t] + 2, argv[++i]);
    else if (read_option(&r, &req, argc, argv, &i, &rc))
      continue;
    else if (!strncmp(a, "--", 2))
      rc = cli_unknown_option(a);
    else
      rc = cli_add_assignment(&values, a);
  }
  cli_add_group(&req, "values", '{', &values);
  cli_text_free(&values);
  return print_read(argv[0], &req, &r, &cond, rc);
}

/* scan MODEL [--index I] [--entity E]... [--filter T [--param N=V]...]
 * [--project NAME]... [--segment S/T] [--limit N] [--consistent] [--count]
 * [--cursor C [--cursor-key-file F]] */
int cli_scan(int argc, char **argv) {
  if (argc < 1) return cli_usage_error("scan takes MODEL");
  cli_text req = {0}, entities = {0};
  read_args r = {0};
  int rc = 0;
  cli_add(&req, "{\"op\":\"scan\"");
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--index") && i + 1 < argc) {
      cli_add_field(&req, "index", argv[++i]);
    } else if (!strcmp(a, "--entity") && i + 1 < argc) {
      cli_add_element(&entities, argv[++i]);
    } else if (!strcmp(a, "--segment") && i + 1 < argc) {
      const char *v = argv[++i], *slash = strchr(v, '/');
      char seg[32];
      if (!slash || (size_t)(slash - v) >= sizeof seg) {
        fprintf(stderr, "ddbst: --segment: expected S/T (segment S of T), "
                        "not '%s'\n", v);
        rc = 2;
      } else {
        memcpy(seg, v, (size_t)(slash - v));
        seg[slash - v] = '\0';
        rc = add_number(&req, "segment", a, seg);
        rc = rc ? rc : add_number(&req, "totalSegments", a, slash + 1);
      }
    } else if (!read_option(&r, &req, argc, argv, &i, &rc)) {
      rc = cli_unknown_option(a);
    }
  }
  cli_add_group(&req, "entities", '[', &entities);
  cli_text_free(&entities);
  return print_read(argv[0], &req, &r, NULL, rc);
}
