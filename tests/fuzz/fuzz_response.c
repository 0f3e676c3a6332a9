/* libFuzzer: DynamoDB's answers, error bodies and stream events. Input: a
 * byte choosing what the body answers (GetItem, Query, BatchGetItem,
 * BatchWriteItem, TransactGetItems, an error, a stream event, a write's
 * ReturnValues), then the body. It is parsed into a page reused from run to
 * run (as a service reuses one), and whatever parsed is read back every
 * way: items, JSON, follow-up requests, errors and the items they carry,
 * counts, stream records. Never a crash, never an over-read,
 * never an error without a message, every JSON written is JSON, and a body
 * that is not JSON text (fuzz_text.h) is refused. Each page answer is also
 * parsed with a space after every '{', which the page parser's one-step
 * reading of {"S":"..."} cannot take: both must end and read the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "ddbst.h"
#include "fuzz_models.h"
#include "fuzz_text.h"
#include "../spaced.h"

static void check(int rc, const ddbst_error *err) {
  if (rc < 0 && rc != DDBST_ENOTFOUND && err->message[0] == '\0')
    __builtin_trap();
}

/* What `out` holds, when anything, parses as JSON; then it is emptied. */
static void valid(ddbst_buf *out) {
  if (ddbst_buf_len(out)) {
    yajl_val v = yajl_tree_parse(ddbst_buf_data(out), NULL, 0);
    if (!v) __builtin_trap();
    yajl_tree_free(v);
  }
  ddbst_buf_reset(out);
}

/* The page parser's one-step reading of a value agrees with the loop's:
 * `json` parsed as given into `page` (with `n` and `err` from that parse)
 * and spaced into `twin` end the same way and read back the same items. */
static void same_both_ways(ddbst_page *page, ddbst_page *twin, int op,
                           int entity, const char *json, size_t len, int n,
                           const ddbst_error *err) {
  static char *buf;
  static size_t cap;
  static ddbst_buf *a, *b;
  if (!a && (!(a = ddbst_buf_new(NULL)) || !(b = ddbst_buf_new(NULL))))
    __builtin_trap();
  if (cap < 2 * len + 1) {
    free(buf);
    cap = 2 * len + 1;
    if (!(buf = malloc(cap))) __builtin_trap();
  }
  size_t sl = spaced(json, len, buf);
  ddbst_error e2;
  int n2 = op == DDBST_OP_UPDATE_ITEM
               ? ddbst_page_parse_write(twin, op, entity, buf, sl, &e2)
               : ddbst_page_parse(twin, op, buf, sl, &e2);
  if (n2 != n) __builtin_trap();
  if (n < 0) {
    if (strcmp(err->path, e2.path)) __builtin_trap();
    /* a syntax error's message says where it is */
    if (n != DDBST_ESYNTAX && n != DDBST_EDYNAMODB &&
        strcmp(err->message, e2.message))
      __builtin_trap();
    return;
  }
  for (int i = 0; i < n; i++) {
    ddbst_buf_reset(a);
    ddbst_buf_reset(b);
    int ra = ddbst_page_item_json(page, i, a, &e2);
    if (ra != ddbst_page_item_json(twin, i, b, &e2)) __builtin_trap();
    if (ddbst_buf_len(a) != ddbst_buf_len(b) ||
        memcmp(ddbst_buf_data(a), ddbst_buf_data(b), ddbst_buf_len(a)))
      __builtin_trap();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ddbst_page *page, *twin;
  static ddbst_stream *stream;
  static ddbst_item *item;
  static ddbst_buf *out;
  static ddbst_hydrate *hydrate;
  static const int ops[] = {DDBST_OP_GET_ITEM, DDBST_OP_QUERY,
                            DDBST_OP_BATCH_GET_ITEM, DDBST_OP_BATCH_WRITE_ITEM,
                            DDBST_OP_TRANSACT_GET_ITEMS};
  if (!page) {
    ddbst_model *m = fuzz_model(0);
    page = ddbst_page_new(m);
    twin = ddbst_page_new(m);
    if (!twin) __builtin_trap();
    stream = ddbst_stream_new(m);
    item = ddbst_item_new(m, 0);
    out = ddbst_buf_new(NULL);
    hydrate = ddbst_hydrate_new(m);
    if (!page || !stream || !item || !out || !hydrate) __builtin_trap();
  }
  if (size < 1) return 0;
  const char *json = (const char *)data + 1;
  size_t len = size - 1;
  int what = data[0] % 8;
  ddbst_error err;
  memset(&err, 0, sizeof err);
  ddbst_buf_reset(out);
  int text = fuzz_maybe_json_text(json, len);
  if (what == 6) {
    int n = ddbst_stream_parse(stream, json, len, &err);
    check(n, &err);
    if (!text && n >= 0) __builtin_trap();
    for (int i = 0; i < n; i++) {
      for (int img = DDBST_IMAGE_KEYS; img <= DDBST_IMAGE_OLD; img++)
        check(ddbst_stream_image(stream, i, img, item, &err), &err);
      check(ddbst_stream_record_json(stream, i, out, &err), &err);
      valid(out);
      int32_t one = i;
      check(ddbst_stream_failures_json(stream, &one, 1, out, &err), &err);
      valid(out);
    }
    return 0;
  }
  /* 7: a write's answer, read as entity -1 (told from the item) or 0, 1 */
  int n = what == 5   ? ddbst_page_parse_error(page, json, len, &err)
          : what == 7 ? ddbst_page_parse_write(page, DDBST_OP_UPDATE_ITEM,
                                               (int)(data[0] / 8 % 3) - 1,
                                               json, len, &err)
                      : ddbst_page_parse(page, ops[what], json, len, &err);
  check(n, &err);
  /* an error body's kind is >= 0: only a refusal is negative */
  if (!text && n >= 0) __builtin_trap();
  if (what != 5)
    same_both_ways(page, twin, what == 7 ? DDBST_OP_UPDATE_ITEM : ops[what],
                   (int)(data[0] / 8 % 3) - 1, json, len, n, &err);
  if (what == 5) n = 0;
  for (int i = 0; i < n; i++) {
    check(ddbst_page_item(page, i, item, &err), &err);
    check(ddbst_page_item_json(page, i, out, &err), &err);
    valid(out);
  }
  check(ddbst_page_followup_request(page, out, &err), &err);
  valid(out);
  ddbst_page_has_more(page);
  /* hydration of the page's items; a BatchGetItem answer is also read as
   * the answer to its own requests */
  int chunks = ddbst_hydrate_begin(hydrate, page, NULL, 0, &err);
  check(chunks, &err);
  for (int c = 0; c < chunks; c++) {
    check(ddbst_hydrate_request(hydrate, c, DDBST_CONSISTENT_READ, out, &err),
          &err);
    valid(out);
    if (what == 2) check(ddbst_hydrate_read(hydrate, c, page, &err), &err);
  }
  const ddbst_page *full = ddbst_hydrate_page(hydrate);
  for (int i = 0; i < ddbst_page_count(full); i++) {
    check(ddbst_page_item_json(full, i, out, &err), &err);
    valid(out);
    check(ddbst_page_item(full, i, item, &err), &err);
  }
  if (ddbst_hydrate_pending(hydrate) < 0) __builtin_trap();
  for (int i = 0; i < ddbst_page_reason_count(page); i++) {
    const char *code, *msg;
    if (ddbst_page_reason(page, i, &code, &msg) < 0 || !code || !msg)
      __builtin_trap();
  }
  /* ThrottlingReasons: bounded, each with its reason, NUL-terminated */
  int nthrottles = ddbst_page_throttling_reason_count(page);
  if (nthrottles < 0 || nthrottles > 8) __builtin_trap();
  for (int i = 0; i < nthrottles; i++) {
    const char *reason, *resource;
    if (ddbst_page_throttling_reason(page, i, &reason, &resource) != 0 ||
        !reason || !resource)
      __builtin_trap();
    (void)strlen(reason);
    (void)strlen(resource);
  }
  /* the items an error body carried (ReturnValuesOnConditionCheckFailure) */
  if (ddbst_page_error_kind(page) != DDBST_DDB_NONE)
    for (int i = -1; i < ddbst_page_reason_count(page); i++) {
      int e = ddbst_page_error_item(page, i, item, &err);
      if (e == DDBST_EINVAL) __builtin_trap();
      check(e, &err);
    }
  int64_t scanned;
  if (ddbst_page_query_count(page, &scanned) < -1 || scanned < -1)
    __builtin_trap();
  ddbst_page_error_type(page);
  ddbst_page_error_message(page);
  ddbst_page_error_retryable(page);
  return 0;
}
