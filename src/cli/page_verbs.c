/* Reading answers back: `ddbst page` turns a Query response into one JSON
 * line per item and a cursor line; the cursor keys come from
 * --cursor-key-file or DDBST_CURSOR_KEY. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

ddbst_cursor_keys *cli_cursor_keys(const char *key_file, int *rc) {
  *rc = 0;
  char text[4096];
  const char *hex = NULL;
  if (key_file) {
    FILE *f = fopen(key_file, "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (!f || ferror(f)) {
      fprintf(stderr, "ddbst: %s: cannot read the cursor key file\n", key_file);
      if (f) fclose(f);
      *rc = 2;
      return NULL;
    }
    fclose(f);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
      n--;
    text[n] = '\0';
    hex = text;
  } else {
    hex = getenv("DDBST_CURSOR_KEY");
  }
  if (!hex || !*hex) {
    fprintf(stderr, "ddbst: no cursor key (--cursor-key-file or "
                    "DDBST_CURSOR_KEY): cursors are unsealed, for "
                    "development only\n");
    return NULL;
  }
  ddbst_cursor_keys *keys = ddbst_cursor_keys_new(NULL);
  ddbst_error e;
  if (!keys) {
    fprintf(stderr, "ddbst: out of memory\n");
    *rc = 2;
  } else if (ddbst_cursor_keys_add_hex(keys, hex, &e)) {
    *rc = cli_fail(&e);
    ddbst_cursor_keys_free(keys);
    keys = NULL;
  }
  return keys;
}

/* All of stdin, or NULL. */
static char *read_stdin(size_t *len) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, stdin);
    n += got;
    if (got == 0) break;
    if (n == cap) {
      char *more = realloc(buf, cap * 2);
      if (!more) {
        free(buf);
        return NULL;
      }
      buf = more;
      cap *= 2;
    }
  }
  *len = n;
  return buf;
}

/* page MODEL PATTERN NAME=VALUE... [--cursor-key-file FILE] < response */
int cli_page(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("page takes MODEL PATTERN NAME=VALUE...");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  int rc = 0;
  ddbst_item *values = NULL, *scratch = NULL;
  ddbst_page *page = ddbst_page_new(m);
  ddbst_buf *out = ddbst_buf_new(NULL);
  ddbst_cursor_keys *keys = NULL;
  char *body = NULL;
  ddbst_error e;
  const char *key_file = NULL;
  int pattern = ddbst_model_pattern(m, argv[1]);
  int entity = pattern >= 0 ? ddbst_model_pattern_entity(m, pattern, 0) : -1;
  if (entity < 0) {
    fprintf(stderr, "ddbst: pattern %s: the model has no such pattern\n",
            argv[1]);
    rc = 2;
    goto done;
  }
  values = ddbst_item_new(m, entity);
  scratch = ddbst_item_new(m, entity);
  if (!values || !scratch || !page || !out) {
    fprintf(stderr, "ddbst: out of memory\n");
    rc = 2;
    goto done;
  }
  for (int i = 2; i < argc && !rc; i++) {
    if (!strcmp(argv[i], "--cursor-key-file") && i + 1 < argc) {
      key_file = argv[++i];
      continue;
    }
    char *eq = strchr(argv[i], '=');
    int a = -1;
    if (eq) {
      *eq = '\0';
      a = ddbst_model_attribute(m, entity, argv[i]);
    }
    if (a < 0) {
      fprintf(stderr, "ddbst: %s: expected NAME=VALUE of %s\n", argv[i],
              ddbst_model_entity_name(m, entity));
      rc = 2;
    } else if (ddbst_item_set(values, a, eq + 1, strlen(eq + 1), &e)) {
      rc = cli_fail(&e);
    }
  }
  if (rc) goto done;
  size_t len;
  body = read_stdin(&len);
  if (!body) {
    fprintf(stderr, "ddbst: cannot read the response on stdin\n");
    rc = 2;
    goto done;
  }
  int n = ddbst_page_parse(page, DDBST_OP_QUERY, body, len, &e);
  if (n < 0) {
    rc = cli_fail(&e);
    goto done;
  }
  for (int i = 0; i < n && !rc; i++) {
    ddbst_buf_reset(out);
    if (ddbst_page_item_json(page, i, out, &e))
      rc = cli_fail(&e);
    else
      rc = cli_print_buf(out);
  }
  /* keys are needed (and a missing one worth a notice) only for a cursor */
  if (!rc && ddbst_page_has_more(page)) keys = cli_cursor_keys(key_file, &rc);
  if (!rc && ddbst_page_has_more(page)) {
    ddbst_buf_reset(out);
    if (ddbst_page_cursor(page, keys, values, pattern, ddbst_now_unix_us(),
                          out, &e)) {
      rc = cli_fail(&e);
    } else {
      printf("{\"cursor\":");
      cli_print_json_string(ddbst_buf_data(out), ddbst_buf_len(out));
      printf("}\n");
    }
  }
done:
  free(body);
  ddbst_cursor_keys_free(keys);
  ddbst_buf_free(out);
  ddbst_page_free(page);
  ddbst_item_free(scratch);
  ddbst_item_free(values);
  ddbst_model_free(m);
  return rc;
}

/* stream MODEL < event.json: one JSON line per record. */
int cli_stream(int argc, char **argv) {
  if (argc != 1) return cli_usage_error("stream takes MODEL and reads stdin");
  ddbst_model *m;
  if (cli_load(argv[0], 0, &m)) return 2;
  int rc = 0;
  ddbst_stream *s = ddbst_stream_new(m);
  ddbst_buf *out = ddbst_buf_new(NULL);
  size_t len = 0;
  char *body = read_stdin(&len);
  ddbst_error e;
  if (!s || !out || !body) {
    fprintf(stderr, "ddbst: out of memory or no event on stdin\n");
    rc = 2;
  } else {
    int n = ddbst_stream_parse(s, body, len, &e);
    if (n < 0) rc = cli_fail(&e);
    for (int i = 0; i < n && !rc; i++) {
      ddbst_buf_reset(out);
      if (ddbst_stream_record_json(s, i, out, &e))
        rc = cli_fail(&e);
      else
        rc = cli_print_buf(out);
    }
  }
  free(body);
  ddbst_buf_free(out);
  ddbst_stream_free(s);
  ddbst_model_free(m);
  return rc;
}
