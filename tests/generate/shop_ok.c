/* A right program on the generated header (ddbst generate c
 * examples/shop/model.json > shop.h): it compiles with -Werror, and runs
 * against DynamoDB Local, sent by libcurl (examples/curl/dynamo_http.c).
 * Usage: shop_ok MODEL TABLE (and DDBST_ENDPOINT, AWS_* set). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamo_http.h"
#include "shop.h"

static int fail(const char *what, const ddbst_error *err) {
  fprintf(stderr, "shop_ok: %s: %s%s%s\n", what, err ? err->path : "",
          err && err->path[0] ? ": " : "", err ? err->message : "");
  return 1;
}

static long send(dynamo_http *c, int op, const ddbst_buf *body) {
  return dynamo_http_post(c, ddbst_operation_name(op), ddbst_buf_data(body),
                          ddbst_buf_len(body));
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  char why[256];
  dynamo_http *http = dynamo_http_new(why, sizeof why);
  if (!http) return fprintf(stderr, "shop_ok: %s\n", why), 1;
  ddbst_error err;
  ddbst_load_options opts = {.size = sizeof opts, .table_name = argv[2]};
  ddbst_model *model;
  if (ddbst_model_load_file(argv[1], &opts, &model, &err))
    return fail("load", &err);
  shop s;
  if (shop_bind(&s, model, &err)) return fail("bind", &err);
  ddbst_item *item = ddbst_item_new(model, s.order);
  ddbst_buf *body = ddbst_buf_new(NULL);
  ddbst_page *page = ddbst_page_new(model);
  int rc = 1;
  int op = ddbst_create_table_request(model, body, &err);
  if (op < 0 || send(http, op, body) != 200) goto out;

  /* the required values are parameters; the rest typed members */
  ddbst_buf_reset(body);
  op = shop_order_put(&s, item, "c1", "01KKNS5TM0JB3X7N5WJJTB8P91",
                      "2026-03-14T10:00:00+01:00", "12345678901234567890.5",
                      &(shop_order){.status = "open", .quantity = SHOP_I64(2),
                                    .receipt = "AAH+/w=="},
                      0, 0, body, &err);
  if (op < 0) {
    fail("put", &err);
    goto out;
  }
  if (send(http, op, body) != 200) goto http_error;

  ddbst_buf_reset(body);
  op = shop_order_get(&s, item, "c1", "2026-03-14T09:00:00Z",
                      "01KKNS5TM0JB3X7N5WJJTB8P91", DDBST_CONSISTENT_READ, body,
                      &err);
  if (op < 0 || send(http, op, body) != 200) goto http_error;
  if (ddbst_page_parse(page, DDBST_OP_GET_ITEM, dynamo_http_answer(http),
                       dynamo_http_answer_len(http), &err) != 1 ||
      ddbst_page_item(page, 0, item, &err) != s.order) {
    fail("get", &err);
    goto out;
  }
  const char *total, *quantity;
  size_t n;
  if (ddbst_item_get(item, s.order_total, &total, &n) != 1 ||
      strcmp(total, "12345678901234567890.5") != 0 ||
      ddbst_item_get(item, s.order_quantity, &quantity, &n) != 1 ||
      strcmp(quantity, "2") != 0) {
    fprintf(stderr, "shop_ok: read back another order\n");
    goto out;
  }

  ddbst_buf_reset(body);
  op = shop_list_orders_query(&s, item, "c1", NULL, body, &err);
  if (op < 0 || send(http, op, body) != 200) goto http_error;
  printf("listOrders: %s\n", dynamo_http_answer(http));
  rc = 0;
  printf("shop_ok.c: ok\n");
  goto out;
http_error:
  fprintf(stderr, "shop_ok: %s\n", op < 0 ? err.message : dynamo_http_answer(http));
out:
  ddbst_buf_reset(body);
  ddbst_buf *del = ddbst_buf_new(NULL);
  char req[512];
  snprintf(req, sizeof req, "{\"TableName\":\"%s\"}", argv[2]);
  dynamo_http_post(http, "DeleteTable", req, strlen(req));
  ddbst_buf_free(del);
  ddbst_page_free(page);
  ddbst_buf_free(body);
  ddbst_item_free(item);
  ddbst_model_free(model);
  dynamo_http_free(http);
  return rc;
}
