/* DescribeTable is read with json_walk.h: the few fields the driver
 * needs, and no JSON library to link besides ddbst. */
#define _POSIX_C_SOURCE 200809L
#include "table.h"

#include "json_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- DescribeTable ---- */

static int table_span(const ddb *c, const char **t, const char **t_end) {
  const char *answer = ddb_answer(c);
  return json_member(answer, answer + ddb_answer_len(c), "Table", t, t_end);
}

int table_describe(ddb *c, const ddbst_model *model, table_info *t) {
  ddbst_error err;
  ddbst_buf *body = ddbst_buf_new(NULL);
  if (!body) return ddbst_failed("DescribeTable", DDBST_ENOMEM, NULL);
  int op = ddbst_describe_table_request(model, body, &err);
  long status = op < 0 ? 0
                       : ddb_send(c, "DescribeTable", ddbst_buf_data(body),
                                  ddbst_buf_len(body));
  ddbst_buf_free(body);
  if (op < 0) return ddbst_failed("DescribeTable", op, &err);
  if (status != 200) return ddb_failed(c, "DescribeTable", status);
  const char *p, *end;
  if (!table_span(c, &p, &end) ||
      !json_member_text(p, end, "TableStatus", t->status, sizeof t->status)) {
    fprintf(stderr, "migrate: DescribeTable: no Table.TableStatus in %.300s\n",
            ddb_answer(c));
    return -1;
  }
  t->item_count = json_member_int(p, end, "ItemCount");
  t->size_bytes = json_member_int(p, end, "TableSizeBytes");
  return 0;
}

int table_index_status(const ddb *c, const char *index, char *status,
                       size_t n) {
  const char *p, *end, *a, *a_end;
  if (!table_span(c, &p, &end) ||
      !json_member(p, end, "GlobalSecondaryIndexes", &a, &a_end) || *a != '[')
    return 0;
  for (a++;;) {
    a = json_skip_ws(a, a_end);
    const char *el_end = json_skip_value(a, a_end);
    if (!el_end || *a != '{') return 0;
    char name[256];
    if (json_member_text(a, el_end, "IndexName", name, sizeof name) &&
        !strcmp(name, index))
      return json_member_text(a, el_end, "IndexStatus", status, n) ? 1 : 0;
    a = json_skip_ws(el_end, a_end);
    if (*a != ',') return 0;
    a++;
  }
}

int table_index_step(ddb *c, const ddbst_model *model, ddbst_migration *m,
                     int step, const char *index, int adding) {
  const char *doing = adding ? "adding index" : "removing index";
  table_info t;
  char status[32];
  if (table_describe(c, model, &t)) return -1;
  int present = table_index_status(c, index, status, sizeof status);
  /* sent already (a step run again after a restart): only wait */
  int sent = adding ? present : !present || !strcmp(status, "DELETING");
  if (!sent) {
    ddbst_error err;
    ddbst_buf *body = ddbst_buf_new(NULL);
    int op = body ? ddbst_migration_step_request(m, step, body, &err)
                  : DDBST_ENOMEM;
    long http = op == DDBST_OP_UPDATE_TABLE
                    ? ddb_send(c, "UpdateTable", ddbst_buf_data(body),
                               ddbst_buf_len(body))
                    : 0;
    ddbst_buf_free(body);
    if (op < 0) return ddbst_failed(doing, op, &err);
    if (http != 200) return ddb_failed(c, "UpdateTable", http);
    printf("step %d: UpdateTable: %s %s\n", step + 1,
           adding ? "create index" : "delete index", index);
  }
  for (int waited = 0;; waited++) {
    if (table_describe(c, model, &t)) return -1;
    present = table_index_status(c, index, status, sizeof status);
    if (adding ? present && !strcmp(status, "ACTIVE") &&
                     !strcmp(t.status, "ACTIVE")
               : !present) {
      printf("step %d: index %s %s\n", step + 1, index,
             adding ? "ACTIVE" : "deleted");
      fflush(stdout);
      return 0;
    }
    if (waited % 30 == 0)
      printf("step %d: waiting for index %s (%s)\n", step + 1, index,
             present ? status : "not listed yet");
    fflush(stdout);
    sleep_ms(1000);
  }
}
