/* libFuzzer: conditions, filters and update actions in the text form and the
 * JSON form (docs/conditions.md). Input: a byte choosing the kind (condition,
 * filter, update) and the form, then the expression. Every refusal has a
 * message; every expression that compiles builds a request body that is
 * one JSON object, the same bytes on a second build. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "ddbst.h"

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

static ddbst_model *catalog(void) {
  static ddbst_model *m;
  if (!m &&
      ddbst_model_load_file(DDBST_SOURCE_DIR "/examples/catalog/model.json",
                            NULL, &m, NULL))
    abort();
  return m;
}

/* The request the expression goes into, built into `b`: the op or an
 * error (with its message). */
static int build(ddbst_model *m, ddbst_item *it, const ddbst_expr *x, int kind,
                 ddbst_buf *b, ddbst_error *err) {
  ddbst_item_reset(it, 0);
  ddbst_item_set(it, ddbst_model_attribute(m, 0, "shopId"), "s1", 2, NULL);
  ddbst_item_bind(it, "n", "3", 1, NULL);
  ddbst_item_bind(it, "s", "x", 1, NULL);
  ddbst_buf_reset(b);
  if (kind == DDBST_EXPR_FILTER) {
    ddbst_query q;
    memset(&q, 0, sizeof q);
    q.size = sizeof q;
    q.filter = x;
    return ddbst_query_request(it, ddbst_model_pattern(m, "listProducts"), &q,
                               b, err);
  }
  ddbst_item_set(it, ddbst_model_attribute(m, 0, "sku"), "k1", 2, NULL);
  int rc = kind == DDBST_EXPR_UPDATE ? ddbst_item_update(it, x, err)
                                     : ddbst_item_condition(it, x, err);
  if (rc) return rc;
  return ddbst_update_request(it, 0, INT64_C(1773964800000000), b, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  ddbst_model *m = catalog();
  int kind = 1 + (data[0] & 3) % 3, json = (data[0] >> 2) & 1;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  ddbst_expr *x = NULL;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int rc = json ? ddbst_expr_parse_json(m, 0, kind, text, len, &x, &err)
                : ddbst_expr_parse(m, 0, kind, text, len, &x, &err);
  if (rc) {
    if (x || err.message[0] == '\0' || err.code != rc) __builtin_trap();
    return 0;
  }
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_buf *b = ddbst_buf_new(NULL), *again = ddbst_buf_new(NULL);
  if (!it || !b || !again) abort();
  int op = build(m, it, x, kind, b, &err);
  if (op < 0 && err.message[0] == '\0') __builtin_trap();
  if (op >= 0) {
    char why[128];
    yajl_val v = yajl_tree_parse(ddbst_buf_data(b), why, sizeof why);
    if (!v || !YAJL_IS_OBJECT(v)) __builtin_trap();
    yajl_tree_free(v);
    /* deterministic: the same request gives the same bytes */
    if (build(m, it, x, kind, again, &err) != op ||
        strcmp(ddbst_buf_data(b), ddbst_buf_data(again)) != 0)
      __builtin_trap();
  }
  ddbst_buf_free(again);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_expr_free(x);
  return 0;
}
