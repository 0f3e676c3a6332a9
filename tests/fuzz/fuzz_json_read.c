/* libFuzzer: the JSON reader (src/json/read.c) against YAJL 2.1, the parser
 * it replaced. Input: one byte saying after how many tokens a callback
 * stops the parse (0: never), then the text. Both run over the same text,
 * cut where json/text.h finds a fault (as json/parse.c does), with the same
 * callbacks: the tokens they report (kind and bytes) must be the same, in
 * the same order, up to the same end (done, stopped, malformed), and a stop
 * must leave the same offset. Twice with one cache, as a page parses, so
 * that reused blocks are read too; then once more with string_room (as the
 * tree parses), each long string with escapes decoded into a block of
 * exactly the length the reader asked for, which must be the length it
 * reports (ASan traps a byte past it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "json/parse.h"
#include "json/text.h"

typedef struct trace {
  unsigned char log[1 << 16];
  size_t n;
  int truncated;
  long tokens, stop_at;
} trace;

static int add(trace *t, char kind, const void *s, size_t n) {
  unsigned char head[9];
  head[0] = (unsigned char)kind;
  memcpy(head + 1, &n, sizeof n < 8 ? sizeof n : 8);
  if (t->n + sizeof head + n > sizeof t->log) {
    t->truncated = 1;
  } else {
    memcpy(t->log + t->n, head, sizeof head);
    if (n) memcpy(t->log + t->n + sizeof head, s, n);
    t->n += sizeof head + n;
  }
  return ++t->tokens != t->stop_at;
}

static int t_null(void *c) { return add(c, 'z', NULL, 0); }
static int t_bool(void *c, int b) { return add(c, b ? 't' : 'f', NULL, 0); }
static int t_number(void *c, const char *s, size_t n) {
  return add(c, 'n', s, n);
}
static int t_string(void *c, const unsigned char *s, size_t n) {
  return add(c, 's', s, n);
}
static int t_key(void *c, const unsigned char *s, size_t n) {
  return add(c, 'k', s, n);
}

/* string_room: a block of exactly n bytes, freed when its text is
 * reported (or the parse ends), whose length must be n */
static char *room;
static size_t room_len;
static char *t_room(void *c, size_t n) {
  (void)c;
  free(room);
  room = malloc(n ? n : 1);
  room_len = n;
  return room;
}
static int t_room_text(void *c, char kind, const unsigned char *s, size_t n) {
  if ((const char *)s == room) {
    if (n != room_len) abort();
    int go = add(c, kind, s, n);
    free(room);
    room = NULL;
    return go;
  }
  return add(c, kind, s, n);
}
static int t_room_string(void *c, const unsigned char *s, size_t n) {
  return t_room_text(c, 's', s, n);
}
static int t_room_key(void *c, const unsigned char *s, size_t n) {
  return t_room_text(c, 'k', s, n);
}
static int t_map(void *c) { return add(c, '{', NULL, 0); }
static int t_end_map(void *c) { return add(c, '}', NULL, 0); }
static int t_array(void *c) { return add(c, '[', NULL, 0); }
static int t_end_array(void *c) { return add(c, ']', NULL, 0); }

static trace ours, theirs;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  long stop_at = data[0];
  const char *json = (const char *)data + 1;
  size_t len = size - 1;
  ddbst__json_fault f;
  int faulty = ddbst__json_text_fault(json, len, &f);
  size_t upto = faulty ? f.at : len;

  /* YAJL, as json/parse.c ran it before the reader */
  memset(&theirs, 0, sizeof theirs);
  theirs.stop_at = stop_at;
  yajl_callbacks ycb = {t_null, t_bool, NULL, NULL, t_number, t_string,
                        t_map, t_key, t_end_map, t_array, t_end_array};
  yajl_handle h = yajl_alloc(&ycb, NULL, &theirs);
  yajl_status st = yajl_parse(h, (const unsigned char *)json, upto);
  size_t yat = yajl_get_bytes_consumed(h);
  int in_complete = 0;
  if (st == yajl_status_ok && !faulty) {
    in_complete = 1;
    st = yajl_complete_parse(h);
  }
  yajl_free(h);
  ddbst__json_status want = st == yajl_status_ok
                                ? (faulty ? DDBST__JSON_TEXT : DDBST__JSON_OK)
                            : st == yajl_status_error ? DDBST__JSON_SYNTAX
                                                      : DDBST__JSON_STOPPED;

  ddbst_allocator alloc;
  ddbst__alloc_init(&alloc, NULL);
  ddbst__json_cache cache = {0};
  const ddbst__json_callbacks cb = {t_null,      t_bool,  t_number,
                                    t_string,    t_map,   t_key,
                                    t_end_map,   t_array, t_end_array};
  const ddbst__json_callbacks with_room = {
      t_null,      t_bool,       t_number,    t_room_string,
      t_map,       t_room_key,   t_end_map,   t_array,
      t_end_array, t_room};
  for (int round = 0; round < 3; round++) {
    memset(&ours, 0, sizeof ours);
    ours.stop_at = stop_at;
    ddbst__json_run r;
    if (ddbst__json_parse(&r, round < 2 ? &cb : &with_room, &ours, json, len,
                          &alloc, &cache))
      abort(); /* malloc does not fail here */
    free(room); /* a room the parse stopped before reporting */
    room = NULL;
    /* YAJL takes an unterminated string after the text's value ({}"abc:
     * its lexer waits for more, and completing the parse does not ask); the
     * reader refuses it, as trailing garbage */
    if (r.status == DDBST__JSON_SYNTAX && want == DDBST__JSON_OK) {
      size_t k = r.at;
      while (k < len && strchr(" \t\n\r\v\f", json[k]) && json[k]) k++;
      int open = k < len && json[k] == '"';
      for (size_t q = k + 1; open && q < len; q += json[q] == '\\' ? 2 : 1)
        if (json[q] == '"') open = 0;
      if (open && !strcmp(r.msg, "parse error: trailing garbage"))
        want = DDBST__JSON_SYNTAX;
    }
    if (r.status != want) abort();
    if (ours.tokens != theirs.tokens || ours.n != theirs.n ||
        ours.truncated != theirs.truncated ||
        memcmp(ours.log, theirs.log, ours.n))
      abort();
    /* YAJL's offset after a stop is just past the token, but for a number
     * that only its completion could end */
    if (want == DDBST__JSON_STOPPED && !in_complete && r.at != yat) abort();
  }
  ddbst__json_cache_release(&cache, &alloc);
  return 0;
}
