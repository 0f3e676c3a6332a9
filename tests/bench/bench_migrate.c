/* The rows of a migration's pass (issue 22 item 6, issue 19): a Scan page
 * of 100 items written under an old model, stepped by ddbst_migration_next
 * into the write each item needs. The models are two of tests/evolve's
 * golden pairs: backfill-index (Authors gain a default and a new index's
 * key, an UpdateItem each) and rewrite-key (Posts move to a new sort key, a
 * TransactWriteItems each). Like every row, none may allocate once warm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct migrate_row {
  ddbst_model *old_model, *new_model;
  ddbst_migration *migration;
  ddbst_scan *scan;
  ddbst_page *page;
  char *answer; /* the Scan answer of 100 old items */
  size_t answer_len;
} migrate_row;

static migrate_row backfill, move;

/* Every item of the parsed page stepped; the number of writes. */
static int step_page(migrate_row *r, ddbst_buf *out) {
  int rc = ddbst_migration_page(r->migration, r->page, NULL);
  if (rc < 0) return rc;
  int writes = 0, op = 0;
  while ((rc = ddbst_migration_next(r->migration, &op, out, NULL)) > 0)
    writes += rc == DDBST_MIGRATE_WRITE;
  return rc < 0 ? rc : writes;
}

static int op_migrate_backfill_100(bench_ctx *c) {
  return step_page(&backfill, c->out);
}

static int op_migrate_move_100(bench_ctx *c) { return step_page(&move, c->out); }

/* {"Items":[...100 items...],"Count":100,"ScannedCount":100}, item i
 * written by `item` into buf. */
static char *scan_answer(int (*item)(char *, size_t, int), size_t *len) {
  size_t cap = 100 * 512 + 128, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  n += (size_t)snprintf(buf, cap, "{\"Items\":[");
  for (int i = 0; i < 100; i++) {
    if (i) buf[n++] = ',';
    n += (size_t)item(buf + n, cap - n, i);
  }
  n += (size_t)snprintf(buf + n, cap - n,
                        "],\"Count\":100,\"ScannedCount\":100}");
  *len = n;
  return buf;
}

static int author_item(char *b, size_t cap, int i) {
  return snprintf(b, cap,
                  "{\"PK\":{\"S\":\"AUTHOR#a%03d\"},\"SK\":{\"S\":\"AUTHOR#"
                  "a%03d\"},\"_type\":{\"S\":\"Author\"},\"authorId\":{\"S\":"
                  "\"a%03d\"},\"email\":{\"S\":\"a%03d@example.com\"},"
                  "\"name\":{\"S\":\"Author %d\"}}",
                  i, i, i, i, i);
}

static int post_item(char *b, size_t cap, int i) {
  return snprintf(
      b, cap,
      "{\"PK\":{\"S\":\"AUTHOR#a1\"},\"SK\":{\"S\":\"POST#2026-01-02T03:04:"
      "05Z#p%03d\"},\"_type\":{\"S\":\"Post\"},\"authorId\":{\"S\":\"a1\"},"
      "\"postId\":{\"S\":\"p%03d\"},\"publishedAt\":{\"S\":\"2026-01-02T03:"
      "04:05Z\"},\"status\":{\"S\":\"published\"},\"title\":{\"S\":\"Post "
      "%d\"},\"views\":{\"N\":\"%d\"},\"GSI1PK\":{\"S\":\"STATUS#published\"},"
      "\"GSI1SK\":{\"S\":\"2026-01-02T03:04:05Z#p%03d\"}}",
      i, i, i, i, i);
}

static void load_pair(migrate_row *r, const char *pair,
                      int (*item)(char *, size_t, int), ddbst_buf *out) {
  char path[512];
  ddbst_error err;
  memset(&err, 0, sizeof err);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &bench_allocator;
  snprintf(path, sizeof path, "%s/tests/evolve/%s.old.json", DDBST_SOURCE_DIR,
           pair);
  int rc = ddbst_model_load_file(path, &o, &r->old_model, &err);
  if (rc < 0) bench_fail(path, rc, &err);
  snprintf(path, sizeof path, "%s/tests/evolve/%s.new.json", DDBST_SOURCE_DIR,
           pair);
  rc = ddbst_model_load_file(path, &o, &r->new_model, &err);
  if (rc < 0) bench_fail(path, rc, &err);
  rc = ddbst_migration_new(r->old_model, r->new_model, 0, &r->migration, &err);
  if (rc < 0) bench_fail("ddbst_migration_new", rc, &err);
  r->scan = ddbst_scan_new(r->new_model);
  r->page = ddbst_page_new(r->new_model);
  r->answer = scan_answer(item, &r->answer_len);
  if (!r->scan || !r->page || !r->answer)
    bench_fail("bench_migrate setup", DDBST_ENOMEM, NULL);
  rc = ddbst_scan_request(r->scan, DDBST_CONSISTENT_READ, 100, NULL, 0, NULL,
                          0, out, &err);
  if (rc < 0) bench_fail("ddbst_scan_request (migration)", rc, &err);
  rc = ddbst_page_parse_scan(r->page, r->scan, r->answer, r->answer_len, &err);
  if (rc != 100) bench_fail("ddbst_page_parse_scan (migration)", rc, &err);
  /* the row measures what it says: every item of the page is a write */
  rc = step_page(r, out);
  if (rc != 100) bench_fail(pair, rc < 0 ? rc : DDBST_EINVAL, NULL);
}

static void free_pair(migrate_row *r) {
  ddbst_migration_free(r->migration);
  ddbst_scan_free(r->scan);
  ddbst_page_free(r->page);
  ddbst_model_free(r->old_model);
  ddbst_model_free(r->new_model);
  free(r->answer);
}

void bench_migrate(bench_ctx *c) {
  if (bench_skips("migrate_backfill_100") && bench_skips("migrate_move_100"))
    return;
  load_pair(&backfill, "backfill-index", author_item, c->out);
  load_pair(&move, "rewrite-key", post_item, c->out);
  bench_run(c, "migrate_backfill_100",
            "a Scan page of 100 old Authors -> their 100 UpdateItem bodies",
            op_migrate_backfill_100, 200, 0);
  bench_run(c, "migrate_move_100",
            "a Scan page of 100 old Posts -> their 100 moves (transactions)",
            op_migrate_move_100, 200, 0);
  free_pair(&backfill);
  free_pair(&move);
}
