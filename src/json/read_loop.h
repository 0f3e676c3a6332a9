/* The JSON reader (read.h): a loop over the text with what may come next as
 * its state, strings scanned 16 bytes a step. Written once and compiled
 * twice: read.c makes ddbst__json_read, which calls the callbacks through
 * their pointers, and a caller whose callbacks are known where it
 * compiles (the page parser, response/parse.c) makes its own copy that
 * calls them directly, so that the compiler inlines them into the loop.
 * Included once per file, with
 *   DDBST__READ_LINKAGE  empty, or static
 *   DDBST__READ_NAME     the function's name
 *   DDBST__READ_HAS(on)  whether callback `on` (on_key, ...) is there
 *   DDBST__READ_CALL(on) the callback itself, to call
 * and optionally
 *   DDBST__READ_STRING_ROOM defined when the callbacks may have string_room
 *                        (json/parse.h): DDBST__READ_HAS(string_room) is
 *                        then asked, and a long string with escapes is
 *                        decoded where DDBST__READ_CALL(string_room) says
 *   DDBST__READ_WHOLE(ctx, s, len, i, end) a caller's reading of a whole
 *                        value that opens with '{' at s[i] in one step:
 *                        1 when it took s[i..*end) as the callbacks would
 *                        have (nothing else changes), 0 when it leaves the
 *                        value to the loop having changed nothing, -1 to
 *                        stop as a callback's 0 would
 *   DDBST__READ_MEMBER(ctx, s, len, i, end) the same for a whole member,
 *                        name and value, whose name opens with '"' at s[i]
 *                        where a member name may come: 1 when it took
 *                        s[i..*end) (what an object's member may be
 *                        followed by is next),
 *                        0 when it left it, having changed nothing, -1 to
 *                        stop
 * The function has ddbst__json_read's signature and contract (read.h);
 * the differential fuzz target holds read.c's copy to YAJL, and the page
 * fuzz targets run the page parser's. */
#ifndef DDBST_JSON_READ_LOOP_H
#define DDBST_JSON_READ_LOOP_H

#include <string.h>

#include "base/bytes.h"
#include "json/blocks.h"
#include "json/parse.h"

enum { IN_ARRAY, IN_MAP };

/* What may come next. */
enum {
  E_VALUE,       /* a value: the text's, after ':' or an array's ',' */
  E_FIRST_VALUE, /* a value or ']' */
  E_FIRST_KEY,   /* a member name or '}' */
  E_KEY,         /* a member name, after ',' */
  E_COLON,
  E_NEXT /* ',' or the container's end; the text's end at the top */
};

static inline int is_space(unsigned char c) {
  /* YAJL's whitespace, \v and \f with JSON's four; a token's first byte is
   * above ' ', so one compare says no */
  return c <= ' ' && (c == ' ' || c == '\n' || c == '\r' || c == '\t' ||
                      c == '\v' || c == '\f');
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The offset of the first '"', '\\' or control character from i, or n. */
static inline size_t string_stop(const char *s, size_t i, size_t n) {
#if defined(__SSE2__)
  while (i + 16 <= n) {
    unsigned m = (unsigned)_mm_movemask_epi8(
        ddbst__vec_escapes(ddbst__load16(s + i)));
    if (m) return i + (size_t)__builtin_ctz(m);
    i += 16;
  }
#endif
  return i + ddbst__plain_run(s + i, n - i);
}

static int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static unsigned hex4(const char *s) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++)
    v = v << 4 | (unsigned)hex_digit((unsigned char)s[i]);
  return v;
}

static size_t put_utf8(char *d, unsigned cp) {
  if (cp < 0x80) {
    d[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    d[0] = (char)(0xC0 | cp >> 6);
    d[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    d[0] = (char)(0xE0 | cp >> 12);
    d[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    d[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  d[0] = (char)(0xF0 | cp >> 18);
  d[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  d[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  d[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Decodes the escapes of s[0..n) (lexed already: every escape whole) into
 * d, which has room for n bytes (no escape decodes longer than itself);
 * the decoded length. A surrogate pair is one character; half of one
 * cannot be here (json/text.h refused it), and would become '?' as in
 * YAJL. */
static size_t unescape(char *d, const char *s, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    const char *bs = memchr(s + i, '\\', n - i);
    size_t run = bs ? (size_t)(bs - s) - i : n - i;
    memcpy(d + o, s + i, run);
    o += run;
    i += run;
    if (i >= n) break;
    char e = s[i + 1];
    i += 2;
    switch (e) {
    case 'b': d[o++] = '\b'; break;
    case 'f': d[o++] = '\f'; break;
    case 'n': d[o++] = '\n'; break;
    case 'r': d[o++] = '\r'; break;
    case 't': d[o++] = '\t'; break;
    case 'u': {
      unsigned cp = hex4(s + i);
      i += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned low;
        if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' &&
            (low = hex4(s + i + 2)) >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        } else {
          d[o++] = '?';
          break;
        }
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        d[o++] = '?';
        break;
      }
      o += put_utf8(d + o, cp);
      break;
    }
    default: d[o++] = e; /* " \ / */
    }
  }
  return o;
}

/* How a token ended that is not a token to report. */
enum { T_OK, T_SYNTAX, T_CUT };

/* The string whose opening quote is at s[i]: *end just past its closing
 * quote, *esc whether it holds an escape, and *decoded the bytes unescape
 * writes for it. That is exact for a text that meets json/text.h's rule,
 * and never less: a high surrogate escape counts as the pair's 4 bytes
 * (a lone one is '?', 1), the low one right after it as none (elsewhere
 * '?', 1), as unescape pairs them. Counted here, where each escape is
 * looked at anyway, so that a caller can have the text decoded straight
 * into memory of its exact size (string_room, json/parse.h). */
static int lex_string(const char *s, size_t len, size_t i, size_t *end,
                      int *esc, size_t *decoded) {
  size_t j = i + 1, saved = 0, pair_at = 0;
  *esc = 0;
  for (;;) {
    j = string_stop(s, j, len);
    if (j >= len) return T_CUT;
    unsigned char c = (unsigned char)s[j];
    if (c == '"') break;
    if (c != '\\') return T_SYNTAX; /* a control character */
    *esc = 1;
    if (j + 1 >= len) return T_CUT;
    c = (unsigned char)s[j + 1];
    if (c == 'u') {
      for (size_t k = j + 2; k < j + 6; k++) {
        if (k >= len) return T_CUT;
        if (hex_digit((unsigned char)s[k]) < 0) return T_SYNTAX;
      }
      unsigned cp = hex4(s + j + 2);
      size_t width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        width = 4;
        pair_at = j + 6;
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        width = j == pair_at ? 0 : 1;
      }
      saved += 6 - width;
      j += 6;
    } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' ||
               c == 'n' || c == 'r' || c == 't') {
      saved++;
      j += 2;
    } else {
      return T_SYNTAX;
    }
  }
  *end = j + 1;
  *decoded = j - i - 1 - saved;
  return T_OK;
}

/* lex_string for the string nearly every one is: no escape, closed before
 * the text's end. Inline, where lex_string is a call: 1 and *end, or 0 to
 * ask lex_string. */
static inline int plain_string(const char *s, size_t len, size_t i,
                               size_t *end) {
  size_t j = string_stop(s, i + 1, len);
  if (j >= len || s[j] != '"') return 0;
  *end = j + 1;
  return 1;
}

/* The number at s[i] (YAJL's grammar: a lone 0 ends it, so "01" is two
 * tokens): *end just past it. Cut when the text ends inside it, or, in a
 * partial text, at its end (what follows might have continued it). */
static int lex_number(const char *s, size_t len, size_t i, size_t *end,
                      int partial) {
  size_t j = i;
  if (s[j] == '-' && ++j >= len) return T_CUT;
  if (s[j] == '0') {
    j++;
  } else if (s[j] >= '1' && s[j] <= '9') {
    while (++j < len && is_digit((unsigned char)s[j])) {
    }
  } else {
    return T_SYNTAX;
  }
  if (j < len && s[j] == '.') {
    if (++j >= len) return T_CUT;
    if (!is_digit((unsigned char)s[j])) return T_SYNTAX;
    while (++j < len && is_digit((unsigned char)s[j])) {
    }
  }
  if (j < len && (s[j] == 'e' || s[j] == 'E')) {
    if (++j < len && (s[j] == '+' || s[j] == '-')) j++;
    if (j >= len) return T_CUT;
    if (!is_digit((unsigned char)s[j])) return T_SYNTAX;
    while (++j < len && is_digit((unsigned char)s[j])) {
    }
  }
  if (j >= len && partial) return T_CUT;
  *end = j;
  return T_OK;
}

/* true, false or null at s[i]: *end just past it. */
static int lex_literal(const char *s, size_t len, size_t i, const char *word,
                       size_t *end) {
  size_t n = strlen(word);
  for (size_t k = 0; k < n; k++) {
    if (i + k >= len) return T_CUT;
    if (s[i + k] != word[k]) return T_SYNTAX;
  }
  *end = i + n;
  return T_OK;
}

/* A token at s[i] that may not come there: YAJL lexes a token before it
 * judges its place, so in a partial text one the end cuts is no error. */
static int misplaced(const char *s, size_t len, size_t i, int partial) {
  size_t end, decoded;
  int esc;
  if (!partial) return T_SYNTAX;
  switch (s[i]) {
  case '"': return lex_string(s, len, i, &end, &esc, &decoded);
  case 't': return lex_literal(s, len, i, "true", &end);
  case 'f': return lex_literal(s, len, i, "false", &end);
  case 'n': return lex_literal(s, len, i, "null", &end);
  default:
    if (s[i] == '-' || is_digit((unsigned char)s[i]))
      return lex_number(s, len, i, &end, partial);
    return T_SYNTAX;
  }
}

/* Room for n bytes in `p`, which is NULL, the read's own `local` (local_cap
 * bytes on the C stack) or a block: a read whose nesting and escaped
 * strings fit the local arrays takes no block at all, so even a caller
 * that keeps no cache (a list value set on an item) parses without
 * allocating. The first `keep` bytes move with a block taken for `local`. */
static void *local_grow(ddbst__json_run *r, void *p, void *local,
                        size_t local_cap, size_t keep, size_t n) {
  if (!p || p == local) {
    if (n <= local_cap) return local;
    void *q = ddbst__json_block_get(r, n);
    if (q && p) memcpy(q, local, keep);
    return q;
  }
  return ddbst__json_block_grow(r, p, n);
}

/* How the read ends: a token the text cut (the end of a partial text, else
 * a syntax error), a syntax error, or a callback's stop. */
static int stop(ddbst__json_run *r, ddbst__json_status st, size_t at) {
  r->status = st;
  r->at = at;
  return 0;
}

DDBST__READ_LINKAGE int DDBST__READ_NAME(ddbst__json_run *r,
                                         const ddbst__json_callbacks *cb,
                                         void *ctx, const char *json,
                                         size_t len, int partial) {
  (void)cb; /* a copy with callbacks of its own does not use it */
  const char *s = json;
  unsigned char local_stack[64];
  char local_scratch[256];
  unsigned char *stack = local_stack;
  size_t cap = sizeof local_stack, depth = 0, i = 0;
  size_t decoded = 0; /* an escaped string's decoded bytes (lex_string) */
  char *scratch = NULL;
  int expect = E_VALUE, rc = 0;
  r->status = DDBST__JSON_OK;
/* a token s[i..end) is reported: r->at just past it, as YAJL's offset */
#define REPORT(call)                                                       \
  do {                                                                     \
    r->at = end;                                                           \
    if (!(call)) {                                                         \
      stop(r, DDBST__JSON_STOPPED, end);                                   \
      goto out;                                                            \
    }                                                                      \
  } while (0)
/* a token that ended the read instead of being reported */
#define FAIL(t)                                                            \
  do {                                                                     \
    if ((t) == T_CUT && partial)                                           \
      stop(r, DDBST__JSON_OK, i);                                          \
    else                                                                   \
      stop(r, DDBST__JSON_SYNTAX, i);                                      \
    goto out;                                                              \
  } while (0)
#define MISPLACED misplaced(s, len, i, partial)
/* where the escaped string s[i..end) is decoded (`decoded` bytes): the
 * stack when it fits, else the caller's room when it offers one, else a
 * block; d NULL when out of memory */
#ifdef DDBST__READ_STRING_ROOM
#define CALLER_ROOM(d)                                                     \
  (end - i > sizeof local_scratch && DDBST__READ_HAS(string_room) &&       \
   ((d) = DDBST__READ_CALL(string_room)(ctx, decoded), 1))
#else
#define CALLER_ROOM(d) 0
#endif
#define ROOM(d)                                                            \
  do {                                                                     \
    if (!CALLER_ROOM(d)) {                                                 \
      d = local_grow(r, scratch, local_scratch, sizeof local_scratch, 0,   \
                     end - i);                                             \
      if (d) scratch = d;                                                  \
    }                                                                      \
  } while (0)
  for (;;) {
    while (i < len && is_space((unsigned char)s[i])) i++;
    if (i >= len) {
      if (!partial && (depth > 0 || expect != E_NEXT))
        stop(r, DDBST__JSON_SYNTAX, i); /* premature EOF */
      else
        r->at = i;
      goto out;
    }
    unsigned char c = (unsigned char)s[i];
    size_t end = i + 1;
    int t, esc;
    switch (expect) {
    case E_NEXT:
      if (depth == 0) {
        /* YAJL's words, for the one text it takes and should not: an
         * unterminated string after the value ({}"abc) */
        memcpy(r->msg, "parse error: trailing garbage", 30);
        FAIL(MISPLACED);
      }
      if (c == ',') {
        i++;
        expect = stack[depth - 1] == IN_MAP ? E_KEY : E_VALUE;
        continue;
      }
      if (c != (stack[depth - 1] == IN_MAP ? '}' : ']')) FAIL(MISPLACED);
      goto close;
    case E_COLON:
      if (c != ':') FAIL(MISPLACED);
      i++;
      expect = E_VALUE;
      continue;
    case E_FIRST_KEY:
      if (c == '}') goto close;
      /* fall through */
    case E_KEY:
      if (c != '"') FAIL(MISPLACED);
#ifdef DDBST__READ_MEMBER
      {
        int w = DDBST__READ_MEMBER(ctx, s, len, i, &end);
        if (w) {
          r->at = end; /* as the value's last token would leave it */
          if (w < 0) {
            stop(r, DDBST__JSON_STOPPED, end);
            goto out;
          }
          /* the ',' that nearly always follows at once, without a turn */
          if (end < len && s[end] == ',') {
            end++;
            expect = E_KEY;
          } else {
            expect = E_NEXT;
          }
          break;
        }
        end = i + 1;
      }
#endif
      esc = 0;
      if (!plain_string(s, len, i, &end) &&
          (t = lex_string(s, len, i, &end, &esc, &decoded)) != T_OK)
        FAIL(t);
      expect = E_COLON;
      if (!DDBST__READ_HAS(on_key)) break;
      if (!esc) {
        REPORT(DDBST__READ_CALL(on_key)(ctx, (const unsigned char *)s + i + 1,
                          end - i - 2));
      } else {
        char *d;
        ROOM(d);
        if (!d) goto nomem;
        REPORT(DDBST__READ_CALL(on_key)(ctx, (const unsigned char *)d,
                          unescape(d, s + i + 1, end - i - 2)));
      }
      /* the ':' that nearly always follows at once, without a turn */
      if (end < len && s[end] == ':') {
        end++;
        expect = E_VALUE;
      }
      break;
    case E_FIRST_VALUE:
      if (c == ']') goto close;
      /* fall through */
    default: /* E_VALUE */
      expect = E_NEXT;
#ifdef DDBST__READ_WHOLE
      if (c == '{') {
        int w = DDBST__READ_WHOLE(ctx, s, len, i, &end);
        if (w > 0) {
          r->at = end; /* as the value's last token would leave it */
          break;
        }
        if (w < 0) {
          r->at = end;
          stop(r, DDBST__JSON_STOPPED, end);
          goto out;
        }
        end = i + 1;
      }
#endif
      switch (c) {
      case '"':
        esc = 0;
        if (!plain_string(s, len, i, &end) &&
            (t = lex_string(s, len, i, &end, &esc, &decoded)) != T_OK)
          FAIL(t);
        if (!DDBST__READ_HAS(on_string)) break;
        if (!esc) {
          REPORT(DDBST__READ_CALL(on_string)(ctx, (const unsigned char *)s + i + 1,
                               end - i - 2));
        } else {
          char *d;
          ROOM(d);
          if (!d) goto nomem;
          REPORT(DDBST__READ_CALL(on_string)(ctx, (const unsigned char *)d,
                               unescape(d, s + i + 1, end - i - 2)));
        }
        break;
      case '{':
      case '[':
        if (depth == cap) {
          size_t ncap = cap * 2;
          unsigned char *g = local_grow(r, stack, local_stack,
                                        sizeof local_stack, depth, ncap);
          if (!g) goto nomem;
          stack = g;
          cap = ncap;
        }
        stack[depth++] = c == '{' ? IN_MAP : IN_ARRAY;
        expect = c == '{' ? E_FIRST_KEY : E_FIRST_VALUE;
        if (c == '{') {
          if (DDBST__READ_HAS(on_start_map)) REPORT(DDBST__READ_CALL(on_start_map)(ctx));
        } else if (DDBST__READ_HAS(on_start_array)) {
          REPORT(DDBST__READ_CALL(on_start_array)(ctx));
        }
        break;
      case 't':
      case 'f':
        if ((t = lex_literal(s, len, i, c == 't' ? "true" : "false", &end)) !=
            T_OK)
          FAIL(t);
        if (DDBST__READ_HAS(on_bool)) REPORT(DDBST__READ_CALL(on_bool)(ctx, c == 't'));
        break;
      case 'n':
        if ((t = lex_literal(s, len, i, "null", &end)) != T_OK) FAIL(t);
        if (DDBST__READ_HAS(on_null)) REPORT(DDBST__READ_CALL(on_null)(ctx));
        break;
      default:
        if (c != '-' && !is_digit(c)) FAIL(T_SYNTAX);
        if ((t = lex_number(s, len, i, &end, partial)) != T_OK) FAIL(t);
        if (DDBST__READ_HAS(on_number)) REPORT(DDBST__READ_CALL(on_number)(ctx, s + i, end - i));
      }
      break;
    }
    i = end;
    continue;
  close:
    end = i + 1;
    expect = E_NEXT;
    if (stack[--depth] == IN_MAP) {
      if (DDBST__READ_HAS(on_end_map)) REPORT(DDBST__READ_CALL(on_end_map)(ctx));
    } else if (DDBST__READ_HAS(on_end_array)) {
      REPORT(DDBST__READ_CALL(on_end_array)(ctx));
    }
    i = end;
  }
nomem:
  rc = DDBST_ENOMEM;
out:
  if (stack != local_stack) ddbst__json_block_put(stack);
  if (scratch != local_scratch) ddbst__json_block_put(scratch);
  return rc;
#undef REPORT
#undef FAIL
#undef MISPLACED
#undef ROOM
#undef CALLER_ROOM
}

#endif
