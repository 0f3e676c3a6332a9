/* A large stream event's records read a slice at a time, for the stream op:
 * the reader then holds what one slice needs (its text, its attributes),
 * within what the session's scratch keeps, instead of what the whole event
 * needs (100 records with both images: 115 KB of text, 147 KB of
 * attributes, each freed after the call and made again at the next). Each
 * record's answer depends on that record alone, so the slices' answers
 * joined are the whole event's. Anything but the plain shape
 * {"Records":[...]} is left to the whole parse, and so is any slice the
 * reader refuses: errors are told as the whole event's. */
#include "base/bytes.h"
#include "ffi/ffi.h"

/* Events from this size are sliced, into slices of about this size (a
 * record past it is a slice of its own). */
enum { SLICE_FROM = 32 * 1024, SLICE_BYTES = 8 * 1024 };

static size_t skip_space(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  return i;
}

/* The index after the object opening at s[i] (its matching '}'), or 0
 * when the text ends first. Only quotes, backslashes and braces matter:
 * brackets balance inside a record, and a record that is not JSON is the
 * reader's to refuse. 64 bytes a step, the bytes inside strings told from
 * the quotes at once (a block with a backslash goes mark by mark): the
 * scan costs a small part of reading the slice it finds. */
static size_t object_end(const char *s, size_t n, size_t i) {
  size_t depth = 0, skip = 0;
  uint64_t in_string = 0; /* all ones inside a string */
  for (size_t base = i; base < n; base += 64) {
    ddbst__json_marks m;
    if (base + 64 <= n) {
      ddbst__json_marks_of(s + base, &m);
    } else {
      char tail[64] = {0};
      memcpy(tail, s + base, n - base);
      ddbst__json_marks_bytes(tail, &m);
    }
    if (m.slashes || skip > base) {
      uint64_t all = m.quotes | m.slashes | m.opens | m.closes;
      for (; all; all &= all - 1) {
        size_t at = base + (size_t)__builtin_ctzll(all);
        if (at < skip) continue; /* the byte a backslash escapes */
        char ch = s[at];
        if (ch == '"') {
          in_string = ~in_string;
        } else if (in_string) {
          if (ch == '\\') skip = at + 2;
        } else if (ch == '{') {
          depth++;
        } else if (ch == '}' && --depth == 0) {
          return at + 1;
        }
      }
      continue;
    }
    uint64_t inside = ddbst__prefix_xor(m.quotes) ^ in_string;
    /* the block's last byte says whether the next block starts inside */
    in_string = (uint64_t)0 - (inside >> 63);
    uint64_t opens = m.opens & ~inside, closes = m.closes & ~inside;
    if (!closes) {
      depth += (size_t)__builtin_popcountll(opens);
      continue;
    }
    for (uint64_t all = opens | closes; all; all &= all - 1) {
      if (opens & all & -all)
        depth++;
      else if (--depth == 0)
        return base + (size_t)__builtin_ctzll(all) + 1;
    }
  }
  return 0;
}

/* Where the Records array's elements start, when `event` is
 * {"Records":[ ... ]} and nothing else; 0 otherwise. */
static size_t records_start(const char *s, size_t n) {
  static const char key[] = "\"Records\"";
  size_t i = skip_space(s, n, 0);
  if (i >= n || s[i] != '{') return 0;
  i = skip_space(s, n, i + 1);
  if (n - i < sizeof key - 1 || memcmp(s + i, key, sizeof key - 1)) return 0;
  i = skip_space(s, n, i + sizeof key - 1);
  if (i >= n || s[i] != ':') return 0;
  i = skip_space(s, n, i + 1);
  if (i >= n || s[i] != '[') return 0;
  return i + 1;
}

/* One slice, {"Records":[<s[from..to)>]}, read and its records written
 * into the open "records" array; 0, or 1 when the reader refused it. */
static int write_slice(call *c, ddbst_stream *st, const char *s, size_t from,
                       size_t to) {
  ddbst_buf *b = &c->xtmp;
  ddbst_buf_reset(b);
  if (ddbst__buf_puts(b, "{\"Records\":[") ||
      ddbst__buf_append(b, s + from, to - from) || ddbst__buf_puts(b, "]}"))
    return 1;
  int n = ddbst_stream_parse(st, b->data, b->len, &c->err);
  if (n < 0) return 1;
  ddbst__jw *w = &c->w;
  for (int i = 0; i < n; i++)
    if (ddbst__jw_value(w))
      ddbst__jw_status(w, ddbst_stream_record_json_append(st, i, w->b, &c->err));
  return w->rc ? 1 : 0;
}

int ddbst__ffi_stream_sliced(call *c, ddbst_stream *st, const char *s,
                             size_t n) {
  size_t i = n >= SLICE_FROM ? records_start(s, n) : 0;
  if (!i) return 1;
  size_t start = c->out.len;
  ddbst__jw *w = &c->w;
  ddbst__jw_open(w, '{');
  ddbst__jw_key(w, "records");
  ddbst__jw_open(w, '[');
  i = skip_space(s, n, i);
  size_t from = i, next;
  for (;;) {
    size_t end = i < n && s[i] == '{' ? object_end(s, n, i) : 0;
    if (!end) goto whole;
    next = skip_space(s, n, end);
    if (next >= n || (s[next] != ',' && s[next] != ']')) goto whole;
    int last = s[next] == ']';
    /* a slice ends at a record's end: the comma after it is no part */
    if (last || end - from >= SLICE_BYTES) {
      if (write_slice(c, st, s, from, end)) goto whole;
      from = skip_space(s, n, next + 1);
    }
    if (last) break;
    i = skip_space(s, n, next + 1);
  }
  /* the array's close, then the event's, then nothing */
  i = skip_space(s, n, next + 1);
  if (i >= n || s[i] != '}' || skip_space(s, n, i + 1) != n) goto whole;
  ddbst__jw_close(w, ']');
  ddbst__jw_close(w, '}');
  if (!w->rc) return 0;
whole:
  /* the whole parse answers, and tells any error as the event's */
  ddbst__buf_truncate(&c->out, start);
  ddbst__jw_init(w, &c->out);
  memset(&c->err, 0, sizeof c->err);
  return 1;
}
