/* DescribeTable is read by a small walker over its JSON (members of an
 * object, elements of an array): enough for the few fields the driver
 * needs, and no JSON library to link besides ddbst. */
#define _POSIX_C_SOURCE 200809L
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the walker: spans [p, end) of the answer ---- */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* The end of the JSON value at `p`, or NULL when it is cut short. */
static const char *skip_value(const char *p, const char *end) {
  p = skip_ws(p, end);
  if (p >= end) return NULL;
  if (*p == '"') {
    for (p++; p < end; p++) {
      if (*p == '\\') p++;
      else if (*p == '"') return p + 1;
    }
    return NULL;
  }
  if (*p == '{' || *p == '[') {
    int depth = 0;
    for (; p < end; p++) {
      if (*p == '"') {
        p = skip_value(p, end);
        if (!p) return NULL;
        p--;
      } else if (*p == '{' || *p == '[') {
        depth++;
      } else if ((*p == '}' || *p == ']') && --depth == 0) {
        return p + 1;
      }
    }
    return NULL;
  }
  while (p < end && !strchr(",}] \n\r\t", *p)) p++;
  return p;
}

/* The value of member `name` of the object at `p` (its span in *v, *v_end),
 * 1; 0 when it has none or `p` is no object. */
static int member(const char *p, const char *end, const char *name,
                  const char **v, const char **v_end) {
  size_t name_len = strlen(name);
  p = skip_ws(p, end);
  if (p >= end || *p != '{') return 0;
  for (p++;;) {
    p = skip_ws(p, end);
    if (p >= end || *p != '"') return 0;
    const char *key = p + 1, *key_end = skip_value(p, end);
    if (!key_end) return 0;
    p = skip_ws(key_end, end);
    if (p >= end || *p != ':') return 0;
    const char *value = skip_ws(p + 1, end), *value_end = skip_value(value, end);
    if (!value_end) return 0;
    if ((size_t)(key_end - 1 - key) == name_len &&
        !memcmp(key, name, name_len)) {
      *v = value, *v_end = value_end;
      return 1;
    }
    p = skip_ws(value_end, end);
    if (p >= end || *p != ',') return 0;
    p++;
  }
}

/* A string member's text (no escapes expected in these fields). */
static int member_text(const char *p, const char *end, const char *name,
                       char *out, size_t n) {
  const char *v, *v_end;
  if (!member(p, end, name, &v, &v_end) || *v != '"' || v_end - v < 2 ||
      (size_t)(v_end - v - 2) >= n)
    return 0;
  memcpy(out, v + 1, (size_t)(v_end - v - 2));
  out[v_end - v - 2] = '\0';
  return 1;
}

static int64_t member_int(const char *p, const char *end, const char *name) {
  const char *v, *v_end;
  if (!member(p, end, name, &v, &v_end)) return -1;
  return strtoll(v, NULL, 10);
}

/* ---- DescribeTable ---- */

static int table_span(const ddb *c, const char **t, const char **t_end) {
  const char *answer = ddb_answer(c);
  return member(answer, answer + ddb_answer_len(c), "Table", t, t_end);
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
      !member_text(p, end, "TableStatus", t->status, sizeof t->status)) {
    fprintf(stderr, "migrate: DescribeTable: no Table.TableStatus in %.300s\n",
            ddb_answer(c));
    return -1;
  }
  t->item_count = member_int(p, end, "ItemCount");
  t->size_bytes = member_int(p, end, "TableSizeBytes");
  return 0;
}

int table_index_status(const ddb *c, const char *index, char *status,
                       size_t n) {
  const char *p, *end, *a, *a_end;
  if (!table_span(c, &p, &end) ||
      !member(p, end, "GlobalSecondaryIndexes", &a, &a_end) || *a != '[')
    return 0;
  for (a++;;) {
    a = skip_ws(a, a_end);
    const char *el_end = skip_value(a, a_end);
    if (!el_end || *a != '{') return 0;
    char name[256];
    if (member_text(a, el_end, "IndexName", name, sizeof name) &&
        !strcmp(name, index))
      return member_text(a, el_end, "IndexStatus", status, n) ? 1 : 0;
    a = skip_ws(el_end, a_end);
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
