/* The response and cursor half of ddbst_bench: a Query with a sealed cursor,
 * sealing and opening cursors, and parsing a 1 MiB Query response into typed
 * items and into plain JSON. Built only with DDBST_BENCH_PAGES (see
 * CMakeLists.txt): it needs ddbst_page_* and ddbst_cursor_*. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static struct {
  ddbst_page *page;        /* the 1 MiB response */
  ddbst_page *first_page;  /* the listing's first 25 items, with more to come */
  ddbst_cursor_keys *keys;
  ddbst_item *values;      /* the listing's values: orgId */
  ddbst_item *typed;       /* one parsed item */
  ddbst_buf *cursor;       /* a sealed cursor of first_page */
  ddbst_buf *json;         /* the page's items as plain JSON */
} P;

static void set_query(ddbst_query *q, const char *cursor, size_t len) {
  memset(q, 0, sizeof *q);
  q->size = sizeof *q;
  q->limit = 25;
  q->cursor = cursor;
  q->cursor_len = len;
  q->cursor_keys = P.keys;
  q->now_unix_us = BENCH_NOW;
}

/* The listing's next page: the request a client's cursor turns into. */
static int op_query_cursor(bench_ctx *c) {
  ddbst_item_reset(c->item, c->project);
  BENCH_SET(c->item, c->p_org, BENCH_ORG);
  ddbst_query q;
  set_query(&q, ddbst_buf_data(P.cursor), ddbst_buf_len(P.cursor));
  ddbst_buf_reset(c->out);
  return ddbst_query_request(c->item, c->list_projects, &q, c->out, NULL);
}

static int op_cursor_seal(bench_ctx *c) {
  return ddbst_page_next_cursor(P.first_page, P.keys, BENCH_NOW, c->out, NULL);
}

/* Seal the first page's cursor, then open it in the next page's Query (the
 * only public way to open one: this includes building that Query body). */
static int op_cursor_seal_open(bench_ctx *c) {
  int rc = ddbst_page_next_cursor(P.first_page, P.keys, BENCH_NOW, P.cursor,
                                  NULL);
  if (rc < 0) return rc;
  return op_query_cursor(c);
}

static int op_parse_typed(bench_ctx *c) {
  int n = ddbst_page_parse(P.page, DDBST_OP_QUERY, c->page, c->page_len, NULL);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item(P.page, i, P.typed, NULL);
    if (rc < 0) return rc;
  }
  return n;
}

static int op_parse_json(bench_ctx *c) {
  int n = ddbst_page_parse(P.page, DDBST_OP_QUERY, c->page, c->page_len, NULL);
  ddbst_buf_reset(P.json);
  for (int i = 0; i < n; i++) {
    int rc = ddbst_page_item_json_append(P.page, i, P.json, NULL);
    if (rc < 0) return rc;
  }
  return n;
}

/* A fixed sealing key: the bench measures cost, not secrecy. */
static const uint8_t bench_key[DDBST_CURSOR_KEY_BYTES] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
    0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
    0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};

void bench_pages(bench_ctx *c) {
  ddbst_error err;
  memset(&err, 0, sizeof err);
  P.page = ddbst_page_new(c->model);
  P.first_page = ddbst_page_new(c->model);
  P.keys = ddbst_cursor_keys_new(&bench_allocator);
  P.values = ddbst_item_new(c->model, c->project);
  P.typed = ddbst_item_new(c->model, c->project);
  P.cursor = ddbst_buf_new(&bench_allocator);
  P.json = ddbst_buf_new(&bench_allocator);
  if (!P.page || !P.first_page || !P.keys || !P.values || !P.typed ||
      !P.cursor || !P.json)
    bench_fail("bench_pages setup", DDBST_ENOMEM, NULL);
  int rc = ddbst_cursor_keys_add(P.keys, bench_key, &err);
  if (rc < 0) bench_fail("ddbst_cursor_keys_add", rc, &err);
  BENCH_SET(P.values, c->p_org, BENCH_ORG);

  /* The first page and its cursor, as a service has them after page one. */
  rc = ddbst_page_parse_query(P.first_page, P.values, c->list_projects,
                              c->small_page, c->small_page_len, &err);
  if (rc != 25) bench_fail("ddbst_page_parse_query (first page)", rc, &err);
  if (ddbst_page_has_more(P.first_page) != 1)
    bench_fail("ddbst_page_has_more", DDBST_EINVAL, NULL);
  rc = ddbst_page_next_cursor(P.first_page, P.keys, BENCH_NOW, P.cursor, &err);
  if (rc != 1) bench_fail("ddbst_page_next_cursor", rc, &err);
  /* The 1 MiB page must parse whole before it is timed. */
  rc = ddbst_page_parse(P.page, DDBST_OP_QUERY, c->page, c->page_len, &err);
  if (rc != c->page_items) bench_fail("ddbst_page_parse (1 MiB)", rc, &err);

  bench_run(c, "query_cursor", "Query listProjects, newest first, sealed cursor",
            op_query_cursor, 10000, 0);
  bench_run(c, "cursor_seal", "ddbst_page_next_cursor: CBOR, seal, base64url",
            op_cursor_seal, 10000, 0);
  bench_run(c, "cursor_seal_open", "seal + open it in the next Query's body",
            op_cursor_seal_open, 5000, 0);
  bench_floor(c, op_query_cursor, ddbst_buf_data(P.cursor), ddbst_buf_len(P.cursor),
              "listProjects", "ORG#" BENCH_ORG);
  bench_run(c, "parse_typed", "1 MiB Query page -> typed items (ddbst_page_item)",
            op_parse_typed, 3, c->page_len);
  bench_run(c, "parse_json", "1 MiB Query page -> plain JSON (ddbst_page_item_json)",
            op_parse_json, 3, c->page_len);

  ddbst_page_free(P.page);
  ddbst_page_free(P.first_page);
  ddbst_cursor_keys_free(P.keys);
  ddbst_item_free(P.values);
  ddbst_item_free(P.typed);
  ddbst_buf_free(P.cursor);
  ddbst_buf_free(P.json);
}
