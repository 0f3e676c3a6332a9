/* The stream op's large events, read a slice of records at a time
 * (src/ffi/stream_slices.c): the answer is the whole event's, byte for
 * byte, as the typed API reads it whole; every error is the whole parse's
 * (its path names the record's index in the event); and a warm call keeps
 * its memory within what the session's scratch keeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define CONFIG                                                                 \
  "{\"modelFile\":\"" DDBST_SOURCE_DIR "/examples/saas/model.json\"}"

typedef struct text {
  char *data;
  size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->data = realloc(t->data, t->cap);
    assert_non_null(t->data);
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* The records of tests/data's stream event (INSERTs, a MODIFY, a REMOVE of
 * several entities), each `copies` times over, between `head` and "]}"
 * and separated by `sep`; record `bad` (-1: none) replaced by `bad_text`. */
static char *event_of(int copies, const char *sep, int bad,
                      const char *bad_text, size_t *len) {
  size_t n;
  char *one = read_response("local-stream-event.json", &n);
  /* its records: the text between the array's brackets, split at the
   * top-level commas */
  char *open = strchr(one, '[');
  char *close = strrchr(one, ']');
  assert_non_null(open);
  assert_non_null(close);
  const char *rec[64];
  size_t rec_len[64];
  int nrec = 0, depth = 0;
  const char *from = open + 1;
  for (const char *p = open + 1; p < close; p++) {
    if (*p == '"') {
      for (p++; *p != '"'; p++)
        if (*p == '\\') p++;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      depth--;
    } else if (*p == ',' && depth == 0) {
      rec[nrec] = from;
      rec_len[nrec++] = (size_t)(p - from);
      from = p + 1;
    }
  }
  rec[nrec] = from;
  rec_len[nrec++] = (size_t)(close - from);
  text t = {0};
  puts_(&t, "{\"Records\":[");
  for (int i = 0; i < copies * nrec; i++) {
    if (i) puts_(&t, sep);
    if (i == bad)
      puts_(&t, bad_text);
    else
      put(&t, rec[i % nrec], rec_len[i % nrec]);
  }
  puts_(&t, "]}");
  free(one);
  *len = t.len;
  return t.data;
}

/* {"op":"stream","event":"<event>"<tail>}, the event as a JSON string. */
static char *request_of(const char *event, size_t n, const char *tail,
                        size_t *len) {
  text t = {0};
  puts_(&t, "{\"op\":\"stream\",\"event\":\"");
  for (size_t i = 0; i < n; i++) {
    if (event[i] == '"' || event[i] == '\\') puts_(&t, "\\");
    if (event[i] == '\n') {
      puts_(&t, "\\n");
      continue;
    }
    put(&t, event + i, 1);
  }
  puts_(&t, "\"");
  puts_(&t, tail);
  puts_(&t, "}");
  *len = t.len;
  return t.data;
}

static char *call(ddbst_json *s, const char *req, size_t len) {
  size_t n;
  char *a = ddbst_json_call(s, req, len, &n);
  char *copy = malloc(n + 1);
  memcpy(copy, a, n + 1);
  ddbst_json_free(a);
  return copy;
}

/* What the entry answers for `event` read whole by the typed API: the
 * records, or the error. */
static char *whole(const ddbst_model *m, const char *event, size_t n) {
  ddbst_stream *st = ddbst_stream_new(m);
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  memset(&err, 0, sizeof err);
  int count = ddbst_stream_parse(st, event, n, &err);
  text t = {0};
  if (count < 0) {
    char e[1024];
    snprintf(e, sizeof e, "\"path\":\"%s\",\"message\":\"%s\"", err.path,
             err.message);
    puts_(&t, e);
  } else {
    puts_(&t, "{\"records\":[");
    for (int i = 0; i < count; i++) {
      if (i) puts_(&t, ",");
      assert_int_equal(ddbst_stream_record_json(st, i, b, &err), 0);
      put(&t, ddbst_buf_data(b), ddbst_buf_len(b));
    }
    puts_(&t, "]}");
  }
  ddbst_buf_free(b);
  ddbst_stream_free(st);
  return t.data;
}

static void check(ddbst_json *s, const ddbst_model *m, const char *event,
                  size_t n, const char *what) {
  size_t len;
  char *req = request_of(event, n, "", &len);
  char *got = call(s, req, len);
  char *want = whole(m, event, n);
  /* an error: the whole parse's path and message (the answer's words
   * escape nothing these messages hold) */
  if (want[0] == '"' ? !strstr(got, want) : strcmp(got, want) != 0)
    fail_msg("%s\n  got:  %.400s\n  want: %.400s", what, got, want);
  free(got);
  free(want);
  free(req);
}

static void sliced_answers_are_the_whole_events(void **state) {
  (void)state;
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
  ddbst_model *m = NULL;
  assert_int_equal(ddbst_model_load_file(DDBST_SOURCE_DIR
                                         "/examples/saas/model.json",
                                         NULL, &m, NULL),
                   0);
  assert_non_null(s);
  size_t n;
  char *e = event_of(12, ",", -1, NULL, &n);
  assert_true(n > 64 * 1024); /* several slices */
  check(s, m, e, n, "132 records");
  free(e);
  e = event_of(12, " ,\n  ", -1, NULL, &n);
  check(s, m, e, n, "spaced");
  free(e);
  /* strings holding brackets, quotes and backslashes: only the reader's
   * reading of a string ends it (at every offset in the scan's blocks of
   * 64 bytes: the records before it differ in length) */
  for (int at = 60; at < 76; at++) {
    e = event_of(12, ",", at,
                 "{\"eventID\":\"x]}\\\"{[\\\\\",\"eventName\":\"REMOVE\","
                 "\"dynamodb\":{\"Keys\":{\"PK\":{\"S\":\"ORG#]\\\\\"},\"SK\":{"
                 "\"S\":\"ORG#}\\\\\\\"\"}},\"SequenceNumber\":\"9\"}}",
                 &n);
    check(s, m, e, n, "brackets in strings");
    free(e);
  }
  /* errors in a late slice, told at the record's index in the event */
  e = event_of(12, ",", 120, "{\"eventName\":\"MODIFY\"}", &n);
  check(s, m, e, n, "a record without keys");
  free(e);
  e = event_of(12, ",", 100, "7", &n);
  check(s, m, e, n, "a record that is no object");
  free(e);
  e = event_of(12, " ", -1, NULL, &n);
  check(s, m, e, n, "no commas");
  free(e);
  e = event_of(12, ",", 131, "{\"eventName\":\"MODIFY\",", &n);
  check(s, m, e, n, "cut short");
  free(e);
  /* other shapes are read whole: a member after the records, text after
   * the event */
  e = event_of(12, ",", -1, NULL, &n);
  e[n - 1] = ',';
  text t = {0};
  put(&t, e, n);
  puts_(&t, "\"more\":1}");
  check(s, m, t.data, t.len, "a member after the records");
  free(t.data);
  t = (text){0};
  put(&t, e, n);
  puts_(&t, " x");
  check(s, m, t.data, t.len, "text after the event");
  free(t.data);
  free(e);
  ddbst_model_free(m);
  ddbst_json_close(s);
}

/* Failures name records by their index in the whole event: such a request
 * is read whole, and its records are the sliced answer's. */
static void failures_read_the_whole_event(void **state) {
  (void)state;
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), NULL, NULL);
  size_t n, len, flen;
  char *e = event_of(12, ",", -1, NULL, &n);
  char *req = request_of(e, n, "", &len);
  char *freq = request_of(e, n, ",\"failed\":[3,131]", &flen);
  char *sliced = call(s, req, len);
  char *failed = call(s, freq, flen);
  size_t records = strlen(sliced) - 1; /* without its '}' */
  assert_memory_equal(failed, sliced, records);
  assert_non_null(strstr(failed + records, "\"failures\":"));
  free(sliced);
  free(failed);
  free(req);
  free(freq);
  free(e);
  ddbst_json_close(s);
}

/* A warm call of a large event (as the bench's json_stream_100) allocates
 * its answer alone: the event's text is unescaped straight into the
 * session's arena (until the eighth pass, into a reader's block past what
 * the scratch keeps: 2 allocations); before slices, the stream reader's
 * every piece was freed and made again (45 allocations for this one). */
static void a_warm_large_event_keeps_its_reader(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &ca.hooks, NULL);
  assert_non_null(s);
  /* plain, and with escapes in its strings (read sliced too) */
  for (int escaped = 0; escaped < 2; escaped++) {
    size_t n, len;
    char *e = event_of(12, ",", escaped ? 70 : -1,
                       "{\"eventID\":\"\\\"}\\\\\",\"eventName\":\"REMOVE\","
                       "\"dynamodb\":{\"Keys\":{\"PK\":{\"S\":\"ORG#\\\\\"}},"
                       "\"SequenceNumber\":\"9\"}}",
                       &n);
    char *req = request_of(e, n, "", &len);
    for (int i = 0; i < 2; i++)
      ddbst_json_free(ddbst_json_call(s, req, len, NULL));
    long before = ca.calls;
    char *a = ddbst_json_call(s, req, len, NULL);
    long calls = ca.calls - before;
    if (strncmp(a, "{\"records\":[{", 13)) fail_msg("%.200s", a);
    ddbst_json_free(a);
    if (calls != 1)
      fail_msg("a warm 132-record event%s: %ld allocations",
               escaped ? " with escapes" : "", calls);
    free(req);
    free(e);
  }
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

/* A name's pieces as the event's JSON writes them, as they read, and as
 * the answer writes them again: every escape the reader decodes. */
static const struct {
  const char *in_event, *answer;
} pieces[] = {
    {"\\\"", "\\\""},           {"\\\\", "\\\\"},
    {"\\/", "/"},               {"\\n", "\\n"},
    {"\\t", "\\t"},             {"\\b", "\\b"},
    {"\\f", "\\f"},             {"\\r", "\\r"},
    {"\\u0001", "\\u0001"},     {"\\u00e9", "\xc3\xa9"},
    {"\\u20AC", "\xe2\x82\xac"}, {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},
    {"\xc3\xa9", "\xc3\xa9"},   {"ab", "ab"},
};

/* An event of `records` MODIFYs of Organisations, each named with `name_len`
 * bytes or more of pieces (the event's text in *event), and the answer the
 * entry owes for it, written here by hand. */
static void escaped_event(int records, size_t name_len, text *event,
                          text *want) {
  puts_(event, "{\"Records\":[");
  puts_(want, "{\"records\":[");
  for (int r = 0; r < records; r++) {
    char head[512];
    snprintf(head, sizeof head,
             "%s{\"eventID\":\"e%d\",\"eventName\":\"MODIFY\",\"dynamodb\":{"
             "\"Keys\":{\"PK\":{\"S\":\"ORG#%d\"},\"SK\":{\"S\":\"ORG#%d\"}},"
             "\"NewImage\":{\"PK\":{\"S\":\"ORG#%d\"},\"SK\":{\"S\":\"ORG#%d\"},"
             "\"_type\":{\"S\":\"Organisation\"},\"orgId\":{\"S\":\"%d\"},"
             "\"name\":{\"S\":\"",
             r ? "," : "", r, r, r, r, r, r);
    puts_(event, head);
    snprintf(head, sizeof head,
             "%s{\"eventName\":\"MODIFY\",\"sequenceNumber\":\"%d\","
             "\"eventID\":\"e%d\",\"entity\":\"Organisation\",\"keys\":{"
             "\"orgId\":\"%d\"},\"new\":{\"orgId\":\"%d\",\"name\":\"",
             r ? "," : "", r, r, r, r);
    puts_(want, head);
    size_t from = event->len;
    for (size_t k = (size_t)r; event->len - from < name_len; k++) {
      puts_(event, pieces[k % (sizeof pieces / sizeof pieces[0])].in_event);
      puts_(want, pieces[k % (sizeof pieces / sizeof pieces[0])].answer);
    }
    snprintf(head, sizeof head, "\"}},\"SequenceNumber\":\"%d\"}}", r);
    puts_(event, head);
    puts_(want, "\"}}");
  }
  puts_(event, "]}");
  puts_(want, "]}");
}

/* Long strings with escapes, in the request (the event is one) and in the
 * event: the answer is exact, whole or sliced, and a warm call allocates
 * the answer alone (the request's text is decoded straight into the
 * session's arena, json/tree.c). */
static void long_escaped_strings_answer_exactly(void **state) {
  (void)state;
  counting_alloc ca;
  counting_alloc_init(&ca);
  ddbst_json *s = ddbst_json_open(CONFIG, strlen(CONFIG), &ca.hooks, NULL);
  assert_non_null(s);
  static const struct {
    int records;
    size_t name_len;
  } shapes[] = {{1, 200}, {1, 3000}, {4, 9000}, {100, 700}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    text event = {0}, want = {0};
    escaped_event(shapes[k].records, shapes[k].name_len, &event, &want);
    size_t len;
    char *req = request_of(event.data, event.len, "", &len);
    for (int round = 0; round < 3; round++) {
      long before = ca.calls;
      size_t n;
      char *a = ddbst_json_call(s, req, len, &n);
      long calls = ca.calls - before;
      if (n != want.len || memcmp(a, want.data, n))
        fail_msg("%d records, names of %zu bytes\n  got:  %.300s\n  want: "
                 "%.300s",
                 shapes[k].records, shapes[k].name_len, a, want.data);
      ddbst_json_free(a);
      if (round == 2 && calls != 1)
        fail_msg("%d records, names of %zu bytes (%zu in the request), "
                 "warm: %ld allocations",
                 shapes[k].records, shapes[k].name_len, len, calls);
    }
    free(req);
    free(event.data);
    free(want.data);
  }
  ddbst_json_close(s);
  assert_int_equal(ca.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sliced_answers_are_the_whole_events),
      cmocka_unit_test(failures_read_the_whole_event),
      cmocka_unit_test(a_warm_large_event_keeps_its_reader),
      cmocka_unit_test(long_escaped_strings_answer_exactly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
