/* libFuzzer: DynamoDB Streams events as Lambda delivers them. Input: the
 * event JSON, parsed by both example models' stream readers (reused from run
 * to run, as a handler reuses one); every record is then read back every
 * way: accessors, each image, its JSON, the batch-failure answer. Never a
 * crash, never an over-read, never an error without a message, every JSON
 * written is JSON, and an event that is not JSON text (fuzz_text.h) is
 * refused. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "ddbst.h"
#include "fuzz_models.h"
#include "fuzz_text.h"

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

/* Only the documented refusal for a record index out of range. */
static void out_of_range(const ddbst_stream *s, int i, ddbst_item *item,
                         ddbst_buf *out) {
  ddbst_error err;
  if (ddbst_stream_event(s, i) != DDBST_EINVAL ||
      ddbst_stream_entity(s, i) != DDBST_EINVAL ||
      ddbst_stream_sequence_number(s, i) != NULL ||
      ddbst_stream_image(s, i, DDBST_IMAGE_KEYS, item, &err) != DDBST_EINVAL ||
      ddbst_stream_record_json(s, i, out, &err) != DDBST_EINVAL ||
      ddbst_buf_len(out) != 0)
    __builtin_trap();
  int32_t bad = i;
  if (ddbst_stream_failures_json(s, &bad, 1, out, &err) != DDBST_EINVAL ||
      err.message[0] == '\0' || ddbst_buf_len(out) != 0)
    __builtin_trap();
}

static void read_back(const ddbst_stream *s, int n, ddbst_item *item,
                      ddbst_buf *out) {
  static int32_t failed[256];
  ddbst_error err;
  size_t nfailed = 0;
  for (int i = 0; i < n; i++) {
    int ev = ddbst_stream_event(s, i);
    if (ev < DDBST_STREAM_INSERT || ev > DDBST_STREAM_REMOVE) __builtin_trap();
    int entity = ddbst_stream_entity(s, i);
    if (entity < 0 && entity != DDBST_ENOTFOUND) __builtin_trap();
    if (!ddbst_stream_sequence_number(s, i)) __builtin_trap();
    ddbst_stream_by_ttl(s, i);
    for (int img = DDBST_IMAGE_KEYS; img <= DDBST_IMAGE_OLD; img++) {
      memset(&err, 0, sizeof err);
      check(ddbst_stream_image(s, i, img, item, &err), &err);
    }
    memset(&err, 0, sizeof err);
    check(ddbst_stream_record_json(s, i, out, &err), &err);
    valid(out);
    /* every other record failed, listed backwards with a repeat */
    if (i % 2 == 0 && nfailed + 2 <= sizeof failed / sizeof *failed) {
      failed[nfailed++] = n - 1 - i;
      failed[nfailed++] = n - 1 - i;
    }
  }
  memset(&err, 0, sizeof err);
  check(ddbst_stream_failures_json(s, failed, nfailed, out, &err), &err);
  valid(out);
  check(ddbst_stream_failures_json(s, NULL, 0, out, &err), &err);
  valid(out);
  out_of_range(s, -1, item, out);
  out_of_range(s, n, item, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ddbst_stream *streams[2];
  static ddbst_item *items[2];
  static ddbst_buf *out;
  if (!out) {
    for (int m = 0; m < 2; m++) {
      streams[m] = ddbst_stream_new(fuzz_model(m));
      items[m] = ddbst_item_new(fuzz_model(m), 0);
      if (!streams[m] || !items[m]) __builtin_trap();
    }
    out = ddbst_buf_new(NULL);
    if (!out) __builtin_trap();
  }
  for (int m = 0; m < 2; m++) {
    ddbst_error err;
    memset(&err, 0, sizeof err);
    ddbst_buf_reset(out);
    int n = ddbst_stream_parse(streams[m], (const char *)data, size, &err);
    if (n < 0) {
      /* refused: a message, and nothing left of the event */
      if (err.message[0] == '\0' || ddbst_stream_count(streams[m]) != 0)
        __builtin_trap();
      continue;
    }
    if (ddbst_stream_count(streams[m]) != n) __builtin_trap();
    if (!fuzz_maybe_json_text((const char *)data, size)) __builtin_trap();
    read_back(streams[m], n, items[m], out);
  }
  return 0;
}
