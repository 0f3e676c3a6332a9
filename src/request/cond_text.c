/* The text form of conditions, filters and update actions
 * ('status = "draft" and size(tags) < 10', 'set count = count + 1'): a
 * tokenizer and a recursive-descent parser into the nodes of cond.h. Syntax
 * errors point at the character. docs/conditions.md has the grammar. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "request/cond.h"

typedef enum {
  T_END,
  T_NAME,   /* a bare word: a name, a keyword or a function */
  T_QNAME,  /* `a name in backquotes` */
  T_STRING, /* "..." (JSON string syntax) */
  T_NUMBER, /* JSON number syntax, with its sign */
  T_PARAM,  /* :name */
  T_OP,     /* = <> < <= > >= + - */
  T_LPAREN,
  T_RPAREN,
  T_COMMA,
  T_DOT,
  T_LBRACKET,
  T_RBRACKET,
  T_LBRACE,
  T_BAD /* a byte that starts no token */
} tok_kind;

typedef struct tok {
  tok_kind kind;
  size_t at, len; /* in the source */
} tok;

typedef struct parser {
  ddbst__xparse *p;
  const char *s;
  size_t n;
  size_t pos; /* after the current token */
  tok t;      /* the current token */
  tok prev;   /* the one before: a '-' after an operand is a minus */
  int depth;
} parser;

/* ---- tokens ---- */

static int is_name_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_name_char(unsigned char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The extent of a JSON number at s[i..n): its length, 0 when there is
 * none. Its validity as a number (leading zeros, range) is checked where
 * it is typed. */
static size_t number_len(const char *s, size_t i, size_t n) {
  size_t j = i;
  if (j < n && s[j] == '-') j++;
  if (j >= n || !is_digit((unsigned char)s[j])) return 0;
  while (j < n && is_digit((unsigned char)s[j])) j++;
  if (j + 1 < n && s[j] == '.' && is_digit((unsigned char)s[j + 1])) {
    j++;
    while (j < n && is_digit((unsigned char)s[j])) j++;
  }
  if (j < n && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1;
    if (k < n && (s[k] == '+' || s[k] == '-')) k++;
    if (k < n && is_digit((unsigned char)s[k])) {
      while (k < n && is_digit((unsigned char)s[k])) k++;
      j = k;
    }
  }
  return j - i;
}

/* The extent of a string literal starting at the quote s[i]: its length
 * with both quotes, 0 when it does not end. */
static size_t string_len(const char *s, size_t i, size_t n) {
  for (size_t j = i + 1; j < n; j++) {
    if (s[j] == '\\') {
      j++;
      continue;
    }
    if (s[j] == '"') return j + 1 - i;
  }
  return 0;
}

static int operand_before(const tok *t) {
  return t->kind == T_NAME || t->kind == T_QNAME || t->kind == T_STRING ||
         t->kind == T_NUMBER || t->kind == T_PARAM || t->kind == T_RPAREN ||
         t->kind == T_RBRACKET;
}

static int lex(parser *P) {
  const char *s = P->s;
  size_t n = P->n, i = P->pos;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  P->prev = P->t;
  tok t = {T_END, i, 0};
  if (i >= n) {
    P->t = t;
    P->pos = i;
    return 0;
  }
  unsigned char c = (unsigned char)s[i];
  size_t len = 1;
  if (is_name_start(c)) {
    while (i + len < n && is_name_char((unsigned char)s[i + len])) len++;
    t.kind = T_NAME;
  } else if (c == '`') {
    const char *end = memchr(s + i + 1, '`', n - i - 1);
    if (!end) return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX,
                                     "a name in backquotes does not end");
    len = (size_t)(end - (s + i)) + 1;
    if (len == 2)
      return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX, "an empty name");
    t.kind = T_QNAME;
  } else if (c == '"') {
    len = string_len(s, i, n);
    if (!len) return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX,
                                     "a string does not end (a '\"' is missing)");
    t.kind = T_STRING;
  } else if (is_digit(c) ||
             /* a sign, not a minus: after an operator, or spaced from the
              * operand before and touching its digits ("add stock -1") */
             (c == '-' && i + 1 < n && is_digit((unsigned char)s[i + 1]) &&
              (!operand_before(&P->t) ||
               (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))))) {
    len = number_len(s, i, n);
    t.kind = T_NUMBER;
  } else if (c == ':') {
    while (i + len < n && is_name_char((unsigned char)s[i + len])) len++;
    if (len == 1)
      return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX,
                             "a parameter is ':' and a name (:qty)");
    t.kind = T_PARAM;
  } else if (c == '<') {
    t.kind = T_OP;
    if (i + 1 < n && (s[i + 1] == '=' || s[i + 1] == '>')) len = 2;
  } else if (c == '>') {
    t.kind = T_OP;
    if (i + 1 < n && s[i + 1] == '=') len = 2;
  } else if (c == '=' || c == '+' || c == '-') {
    t.kind = T_OP;
  } else {
    switch (c) {
    case '(': t.kind = T_LPAREN; break;
    case ')': t.kind = T_RPAREN; break;
    case ',': t.kind = T_COMMA; break;
    case '.': t.kind = T_DOT; break;
    case '[': t.kind = T_LBRACKET; break;
    case ']': t.kind = T_RBRACKET; break;
    case '{': t.kind = T_LBRACE; break;
    default: t.kind = T_BAD; break;
    }
  }
  t.len = len;
  P->t = t;
  P->pos = i + len;
  return 0;
}

/* Whether the current token is the bare word `w` (any letter case). */
static int is_word(const parser *P, const char *w) {
  size_t n = strlen(w);
  if (P->t.kind != T_NAME || P->t.len != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = P->s[P->t.at + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != w[i]) return 0;
  }
  return 1;
}

/* Whether the token after the current one is '(' (a function call). */
static int call_follows(const parser *P) {
  size_t i = P->pos;
  while (i < P->n && (P->s[i] == ' ' || P->s[i] == '\t' || P->s[i] == '\n' ||
                      P->s[i] == '\r'))
    i++;
  return i < P->n && P->s[i] == '(';
}

/* "at the end" or "at 'x'": what was found instead of what was expected. */
static const char *found(const parser *P, char *buf, size_t cap) {
  if (P->t.kind == T_END) return "the end";
  size_t n = P->t.len > 24 ? 24 : P->t.len;
  snprintf(buf, cap, "'%.*s'", (int)n, P->s + P->t.at);
  return buf;
}

static int expected(parser *P, const char *what) {
  char buf[40];
  return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX, "expected %s, found %s",
                         what, found(P, buf, sizeof buf));
}

static int expect(parser *P, tok_kind k, const char *what) {
  if (P->t.kind != k) return expected(P, what);
  return lex(P);
}

/* ---- literals ---- */

static int hex4(const char *s, uint32_t *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    *v = *v * 16 + (uint32_t)d;
  }
  return 0;
}

static size_t put_utf8(char *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Decodes the string token (JSON escapes) into the arena: *out, *len. */
static int decode_string(parser *P, const char **out, size_t *len) {
  const char *s = P->s + P->t.at + 1;
  size_t n = P->t.len - 2;
  char *d = ddbst__arena_alloc(P->p->ar, n + 1);
  if (!d) return DDBST_ENOMEM;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    size_t at = P->t.at + 1 + i;
    if (c < 0x20)
      return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                             "a control character in a string: write it as "
                             "an escape (\\n, \\u0001)");
    if (c != '\\') {
      d[o++] = (char)c;
      continue;
    }
    char e = s[++i];
    uint32_t cp;
    switch (e) {
    case '"': d[o++] = '"'; break;
    case '\\': d[o++] = '\\'; break;
    case '/': d[o++] = '/'; break;
    case 'b': d[o++] = '\b'; break;
    case 'f': d[o++] = '\f'; break;
    case 'n': d[o++] = '\n'; break;
    case 'r': d[o++] = '\r'; break;
    case 't': d[o++] = '\t'; break;
    case 'u':
      if (i + 4 >= n + 0 || hex4(s + i + 1, &cp))
        return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                               "\\u takes four hex digits");
      i += 4;
      if (cp >= 0xD800 && cp < 0xDC00) {
        uint32_t lo;
        if (i + 6 >= n + 0 || s[i + 1] != '\\' || s[i + 2] != 'u' ||
            hex4(s + i + 3, &lo) || lo < 0xDC00 || lo > 0xDFFF)
          return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                                 "a high surrogate without its low one");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                               "a low surrogate without its high one");
      }
      if (cp == 0)
        return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                               "DynamoDB text holds no NUL (\\u0000)");
      o += put_utf8(d + o, cp); /* six escape bytes hold any code point */
      break;
    default:
      return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                             "unknown escape '\\%c'", e ? e : '0');
    }
  }
  d[o] = '\0';
  const char *bad = ddbst__utf8_check(d, o);
  if (bad) return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX, "%s", bad);
  *out = d;
  *len = o;
  return 0;
}

/* An array or object literal: its JSON text runs to the matching bracket
 * (brackets inside strings do not count). Its JSON is checked where it is
 * typed. */
static int json_literal(parser *P, ddbst__xnode *v) {
  size_t start = P->t.at, i = start;
  int depth = 0;
  for (; i < P->n; i++) {
    char c = P->s[i];
    if (c == '"') {
      size_t l = string_len(P->s, i, P->n);
      if (!l) return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX,
                                     "a string does not end (a '\"' is missing)");
      i += l - 1;
    } else if (c == '[' || c == '{') {
      if (++depth > DDBST__X_DEPTH)
        return ddbst__xfail_at(P->p, i, DDBST_ESYNTAX,
                               "a value nested past %d levels", DDBST__X_DEPTH);
    } else if (c == ']' || c == '}') {
      if (--depth == 0) break;
    }
  }
  if (i >= P->n)
    return ddbst__xfail_at(P->p, start, DDBST_ESYNTAX,
                           "this %s does not end",
                           P->s[start] == '[' ? "list" : "map");
  v->form = P->s[start] == '[' ? DDBST__L_ARRAY : DDBST__L_OBJECT;
  v->text = ddbst__arena_strndup(P->p->ar, P->s + start, i + 1 - start);
  if (!v->text) return DDBST_ENOMEM;
  v->len = i + 1 - start;
  P->pos = i + 1;
  return lex(P);
}

/* ---- paths ---- */

static ddbst__xnode *node(parser *P, ddbst__xkind kind, int nkids,
                          size_t at) {
  ddbst__xnode *n = ddbst__xnode_new(P->p->ar, kind, nkids);
  if (n) n->offset = (uint32_t)at;
  return n;
}

/* The name of a T_NAME or T_QNAME token. */
static void token_name(const parser *P, const char **s, uint32_t *len) {
  int q = P->t.kind == T_QNAME;
  *s = P->s + P->t.at + q;
  *len = (uint32_t)(P->t.len - 2 * (size_t)q);
}

/* name ( .name | [index] )* */
static int parse_path(parser *P, ddbst__xnode **out) {
  if (P->t.kind != T_NAME && P->t.kind != T_QNAME)
    return expected(P, "an attribute");
  ddbst__xnode *n = node(P, DDBST__X_PATH, 0, P->t.at);
  if (!n) return DDBST_ENOMEM;
  const char *s;
  uint32_t len;
  token_name(P, &s, &len);
  n->name = ddbst__arena_strndup(P->p->ar, s, len);
  n->name_len = len;
  if (!n->name) return DDBST_ENOMEM;
  int rc = lex(P);
  /* count the steps first, so they go in one array */
  ddbst__xstep steps[DDBST__X_DEPTH];
  int nsteps = 0;
  /* a step touches what it follows: "tags [1]" is the attribute and a
   * list value (ADD tags [1]), "tags[1]" an element */
  while (!rc && (P->t.kind == T_DOT || P->t.kind == T_LBRACKET) &&
         P->t.at == P->prev.at + P->prev.len) {
    if (nsteps == DDBST__X_DEPTH)
      return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                             "a path of more than %d steps", DDBST__X_DEPTH);
    ddbst__xstep *st = &steps[nsteps++];
    memset(st, 0, sizeof *st);
    if (P->t.kind == T_DOT) {
      rc = lex(P);
      if (rc) return rc;
      if (P->t.kind != T_NAME && P->t.kind != T_QNAME)
        return expected(P, "a name after '.'");
      token_name(P, &s, &len);
      st->name = ddbst__arena_strndup(P->p->ar, s, len);
      st->len = len;
      if (!st->name) return DDBST_ENOMEM;
      rc = lex(P);
    } else {
      rc = lex(P);
      if (rc) return rc;
      size_t at = P->t.at;
      if (P->t.kind != T_NUMBER || P->s[at] == '-')
        return expected(P, "a list index (0, 1, ...)");
      uint64_t x = 0;
      for (size_t i = 0; i < P->t.len; i++) {
        char c = P->s[at + i];
        if (!is_digit((unsigned char)c) || x > 100000000)
          return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                                 "a list index is a whole number");
        x = x * 10 + (uint64_t)(c - '0');
      }
      if (P->t.len > 1 && P->s[at] == '0')
        return ddbst__xfail_at(P->p, at, DDBST_ESYNTAX,
                               "a list index has no leading zeros");
      st->index = (uint32_t)x;
      rc = lex(P);
      if (!rc) rc = expect(P, T_RBRACKET, "']'");
    }
  }
  if (rc) return rc;
  if (nsteps) {
    n->steps = ddbst__arena_alloc(P->p->ar, (size_t)nsteps * sizeof *n->steps);
    if (!n->steps) return DDBST_ENOMEM;
    memcpy(n->steps, steps, (size_t)nsteps * sizeof *steps);
    n->nsteps = nsteps;
  }
  *out = n;
  return 0;
}

/* ---- operands ---- */

static int parse_value_term(parser *P, ddbst__xnode **out);

/* A literal, a parameter, a path or size(path). */
static int parse_operand(parser *P, ddbst__xnode **out) {
  size_t at = P->t.at;
  ddbst__xnode *v;
  int rc;
  switch (P->t.kind) {
  case T_STRING:
    v = node(P, DDBST__X_VALUE, 0, at);
    if (!v) return DDBST_ENOMEM;
    v->form = DDBST__L_STRING;
    rc = decode_string(P, &v->text, &v->len);
    *out = v;
    return rc ? rc : lex(P);
  case T_NUMBER:
    v = node(P, DDBST__X_VALUE, 0, at);
    if (!v) return DDBST_ENOMEM;
    v->form = DDBST__L_NUMBER;
    v->text = ddbst__arena_strndup(P->p->ar, P->s + at, P->t.len);
    v->len = P->t.len;
    *out = v;
    return v->text ? lex(P) : DDBST_ENOMEM;
  case T_PARAM:
    v = node(P, DDBST__X_PARAM, 0, at);
    if (!v) return DDBST_ENOMEM;
    v->text = ddbst__arena_strndup(P->p->ar, P->s + at + 1, P->t.len - 1);
    v->len = P->t.len - 1;
    *out = v;
    return v->text ? lex(P) : DDBST_ENOMEM;
  case T_LBRACKET:
  case T_LBRACE:
    v = node(P, DDBST__X_VALUE, 0, at);
    if (!v) return DDBST_ENOMEM;
    *out = v;
    return json_literal(P, v);
  case T_NAME:
    if (is_word(P, "true") || is_word(P, "false") || is_word(P, "null")) {
      v = node(P, DDBST__X_VALUE, 0, at);
      if (!v) return DDBST_ENOMEM;
      v->form = is_word(P, "null") ? DDBST__L_NULL : DDBST__L_BOOL;
      v->text = is_word(P, "true") ? "true" : is_word(P, "false") ? "false"
                                                                  : "null";
      v->len = strlen(v->text);
      *out = v;
      return lex(P);
    }
    if (is_word(P, "size") && call_follows(P)) {
      v = node(P, DDBST__X_SIZE, 1, at);
      if (!v) return DDBST_ENOMEM;
      *out = v;
      rc = lex(P);
      rc = rc ? rc : expect(P, T_LPAREN, "'('");
      rc = rc ? rc : parse_path(P, &v->kids[0]);
      return rc ? rc : expect(P, T_RPAREN, "')' after size's attribute");
    }
    return parse_path(P, out);
  case T_QNAME:
    return parse_path(P, out);
  default:
    return expected(P, "an attribute or a value");
  }
}

/* ---- conditions ---- */

static int parse_or(parser *P, ddbst__xnode **out);

static int parse_cmp_op(parser *P, ddbst__cmp *op) {
  static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
  for (int i = 0; i < 6; i++)
    if (P->t.kind == T_OP && P->t.len == strlen(ops[i]) &&
        !memcmp(P->s + P->t.at, ops[i], P->t.len)) {
      *op = (ddbst__cmp)i;
      return 1;
    }
  return 0;
}

/* A function of the condition vocabulary, its name the current token. */
static int parse_function(parser *P, ddbst__xkind kind, int nargs,
                          ddbst__xnode **out) {
  ddbst__xnode *f = node(P, kind, nargs, P->t.at);
  if (!f) return DDBST_ENOMEM;
  *out = f;
  int rc = lex(P);
  rc = rc ? rc : expect(P, T_LPAREN, "'('");
  rc = rc ? rc : parse_path(P, &f->kids[0]);
  if (!rc && nargs == 2) {
    rc = expect(P, T_COMMA, "',' and the function's value");
    rc = rc ? rc : parse_operand(P, &f->kids[1]);
  }
  return rc ? rc : expect(P, T_RPAREN, "')'");
}

/* A comparison, BETWEEN, IN, a function, or a parenthesised condition. */
static int parse_predicate(parser *P, ddbst__xnode **out) {
  static const struct {
    const char *name;
    ddbst__xkind kind;
    int nargs;
  } functions[] = {{"attribute_exists", DDBST__X_EXISTS, 1},
                   {"attribute_not_exists", DDBST__X_NOT_EXISTS, 1},
                   {"attribute_type", DDBST__X_TYPE, 2},
                   {"begins_with", DDBST__X_BEGINS, 2},
                   {"contains", DDBST__X_CONTAINS, 2}};
  int rc;
  if (P->t.kind == T_LPAREN) {
    if (++P->depth > DDBST__X_DEPTH)
      return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                             "conditions nested past %d levels",
                             DDBST__X_DEPTH);
    rc = lex(P);
    rc = rc ? rc : parse_or(P, out);
    P->depth--;
    return rc ? rc : expect(P, T_RPAREN, "')'");
  }
  if (P->t.kind == T_NAME && call_follows(P))
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
      if (is_word(P, functions[i].name))
        return parse_function(P, functions[i].kind, functions[i].nargs, out);
  if (P->t.kind == T_NAME && call_follows(P) && !is_word(P, "size")) {
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)(P->t.len > 32 ? 32 : P->t.len),
             P->s + P->t.at);
    return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                           "unknown function %s (a condition takes "
                           "attribute_exists, attribute_not_exists, "
                           "attribute_type, begins_with, contains and size)",
                           name);
  }
  size_t at = P->t.at;
  ddbst__xnode *left;
  rc = parse_operand(P, &left);
  if (rc) return rc;
  ddbst__cmp op;
  ddbst__xnode *n;
  if (parse_cmp_op(P, &op)) {
    n = node(P, DDBST__X_CMP, 2, P->t.at);
    if (!n) return DDBST_ENOMEM;
    n->op = op;
    n->kids[0] = left;
    rc = lex(P);
    rc = rc ? rc : parse_operand(P, &n->kids[1]);
  } else if (is_word(P, "between")) {
    n = node(P, DDBST__X_BETWEEN, 3, P->t.at);
    if (!n) return DDBST_ENOMEM;
    n->kids[0] = left;
    rc = lex(P);
    rc = rc ? rc : parse_operand(P, &n->kids[1]);
    if (!rc && !is_word(P, "and")) rc = expected(P, "AND and BETWEEN's upper bound");
    rc = rc ? rc : lex(P);
    rc = rc ? rc : parse_operand(P, &n->kids[2]);
  } else if (is_word(P, "in")) {
    size_t in_at = P->t.at;
    rc = lex(P);
    rc = rc ? rc : expect(P, T_LPAREN, "'(' and IN's values");
    ddbst__xnode *vals[101];
    int nv = 0;
    while (!rc) {
      if (nv == 100)
        return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                               "IN takes at most 100 values");
      rc = parse_operand(P, &vals[nv++]);
      if (rc || P->t.kind != T_COMMA) break;
      rc = lex(P);
    }
    rc = rc ? rc : expect(P, T_RPAREN, "',' or ')'");
    if (rc) return rc;
    n = node(P, DDBST__X_IN, 1 + nv, in_at);
    if (!n) return DDBST_ENOMEM;
    n->kids[0] = left;
    memcpy(n->kids + 1, vals, (size_t)nv * sizeof *vals);
  } else {
    char buf[40];
    return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                           "expected a comparison (= <> < <= > >=), BETWEEN "
                           "or IN after the operand at character %zu, found "
                           "%s",
                           ddbst__utf8_chars(P->s, at) + 1,
                           found(P, buf, sizeof buf));
  }
  *out = n;
  return rc;
}

static int parse_not(parser *P, ddbst__xnode **out) {
  if (!is_word(P, "not")) return parse_predicate(P, out);
  if (++P->depth > DDBST__X_DEPTH)
    return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                           "conditions nested past %d levels", DDBST__X_DEPTH);
  ddbst__xnode *n = node(P, DDBST__X_NOT, 1, P->t.at);
  if (!n) return DDBST_ENOMEM;
  int rc = lex(P);
  rc = rc ? rc : parse_not(P, &n->kids[0]);
  P->depth--;
  *out = n;
  return rc;
}

/* a (AND a)* or a (OR a)*: one node with every operand. */
static int parse_chain(parser *P, ddbst__xkind kind, const char *word,
                       int (*sub)(parser *, ddbst__xnode **),
                       ddbst__xnode **out) {
  size_t at = P->t.at;
  ddbst__xnode *first;
  int rc = sub(P, &first);
  if (rc || !is_word(P, word)) {
    *out = first;
    return rc;
  }
  ddbst__xnode *kids[DDBST__X_DEPTH * 4];
  int nk = 0;
  kids[nk++] = first;
  while (!rc && is_word(P, word)) {
    if (nk == (int)(sizeof kids / sizeof kids[0]))
      return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                             "more than %d conditions joined by %s",
                             (int)(sizeof kids / sizeof kids[0]), word);
    rc = lex(P);
    rc = rc ? rc : sub(P, &kids[nk++]);
  }
  if (rc) return rc;
  ddbst__xnode *n = node(P, kind, nk, at);
  if (!n) return DDBST_ENOMEM;
  memcpy(n->kids, kids, (size_t)nk * sizeof *kids);
  *out = n;
  return 0;
}

static int parse_and(parser *P, ddbst__xnode **out) {
  return parse_chain(P, DDBST__X_AND, "and", parse_not, out);
}

static int parse_or(parser *P, ddbst__xnode **out) {
  return parse_chain(P, DDBST__X_OR, "or", parse_and, out);
}

/* ---- update actions ---- */

/* An operand, if_not_exists(path, term) or list_append(term, term). */
static int parse_value_term(parser *P, ddbst__xnode **out) {
  int ine = is_word(P, "if_not_exists") && call_follows(P);
  int app = is_word(P, "list_append") && call_follows(P);
  if (!ine && !app) return parse_operand(P, out);
  if (++P->depth > DDBST__X_DEPTH)
    return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                           "values nested past %d levels", DDBST__X_DEPTH);
  ddbst__xnode *f = node(P, ine ? DDBST__X_IF_NOT_EXISTS : DDBST__X_LIST_APPEND,
                         2, P->t.at);
  if (!f) return DDBST_ENOMEM;
  *out = f;
  int rc = lex(P);
  rc = rc ? rc : expect(P, T_LPAREN, "'('");
  rc = rc ? rc : (ine ? parse_path(P, &f->kids[0])
                      : parse_value_term(P, &f->kids[0]));
  rc = rc ? rc : expect(P, T_COMMA, "','");
  rc = rc ? rc : parse_value_term(P, &f->kids[1]);
  P->depth--;
  return rc ? rc : expect(P, T_RPAREN, "')'");
}

/* term, or term + term, or term - term */
static int parse_set_value(parser *P, ddbst__xnode **out) {
  ddbst__xnode *a;
  int rc = parse_value_term(P, &a);
  if (rc) return rc;
  int plus = P->t.kind == T_OP && P->s[P->t.at] == '+';
  int minus = P->t.kind == T_OP && P->s[P->t.at] == '-';
  /* "stock -1": the sign the tokenizer saw is a minus here */
  int signed_number = P->t.kind == T_NUMBER && P->s[P->t.at] == '-';
  if (!plus && !minus && !signed_number) {
    *out = a;
    return 0;
  }
  ddbst__xnode *n = node(P, plus ? DDBST__X_PLUS : DDBST__X_MINUS, 2, P->t.at);
  if (!n) return DDBST_ENOMEM;
  n->kids[0] = a;
  if (signed_number) {
    P->t.at++;
    P->t.len--;
    rc = parse_operand(P, &n->kids[1]);
  } else {
    rc = lex(P);
    rc = rc ? rc : parse_value_term(P, &n->kids[1]);
  }
  *out = n;
  return rc;
}

static int clause_of(const parser *P, ddbst__xkind *k) {
  if (is_word(P, "set")) *k = DDBST__X_SET;
  else if (is_word(P, "remove")) *k = DDBST__X_REMOVE;
  else if (is_word(P, "add")) *k = DDBST__X_ADD;
  else if (is_word(P, "delete")) *k = DDBST__X_DELETE;
  else return 0;
  return 1;
}

/* One action of clause `k`. */
static int parse_action(parser *P, ddbst__xkind k, ddbst__xnode **out) {
  ddbst__xnode *a = node(P, k, k == DDBST__X_REMOVE ? 1 : 2, P->t.at);
  if (!a) return DDBST_ENOMEM;
  *out = a;
  int rc = parse_path(P, &a->kids[0]);
  if (rc || k == DDBST__X_REMOVE) return rc;
  if (k == DDBST__X_SET) {
    if (!(P->t.kind == T_OP && P->t.len == 1 && P->s[P->t.at] == '='))
      return expected(P, "'=' and the value to set");
    rc = lex(P);
    return rc ? rc : parse_set_value(P, &a->kids[1]);
  }
  return parse_operand(P, &a->kids[1]);
}

/* SET a = v, ... REMOVE p, ... ADD p v, ... DELETE p v, ... in any order;
 * a clause may come again (the body writes each once, its actions in the
 * order given), so pieces of an update can be put together. */
static int parse_update(parser *P, ddbst__xnode ***actions, int *nactions) {
  enum { MAX_ACTIONS = 256 };
  ddbst__xnode *list[MAX_ACTIONS];
  int n = 0;
  int rc = 0;
  if (P->t.kind == T_END) return expected(P, "SET, REMOVE, ADD or DELETE");
  while (!rc && P->t.kind != T_END) {
    ddbst__xkind k;
    if (!clause_of(P, &k))
      return expected(P, n ? "',' or the next clause (SET, REMOVE, ADD, "
                             "DELETE)"
                           : "SET, REMOVE, ADD or DELETE");
    rc = lex(P);
    for (;;) {
      if (rc) break;
      if (n == MAX_ACTIONS)
        return ddbst__xfail_at(P->p, P->t.at, DDBST_ESYNTAX,
                               "more than %d actions", MAX_ACTIONS);
      rc = parse_action(P, k, &list[n++]);
      if (rc || P->t.kind != T_COMMA) break;
      rc = lex(P);
    }
  }
  if (rc) return rc;
  *actions = ddbst__arena_alloc(P->p->ar, (size_t)n * sizeof **actions);
  if (!*actions) return DDBST_ENOMEM;
  memcpy(*actions, list, (size_t)n * sizeof *list);
  *nactions = n;
  return 0;
}

int ddbst__xparse_text(ddbst__xparse *p, ddbst__xnode **root,
                       ddbst__xnode ***actions, int *nactions) {
  parser P;
  memset(&P, 0, sizeof P);
  P.p = p;
  P.s = p->src;
  P.n = p->src_len;
  int rc = lex(&P);
  if (rc) return rc;
  if (p->update) {
    rc = parse_update(&P, actions, nactions);
  } else {
    if (P.t.kind == T_END) return expected(&P, "a condition");
    rc = parse_or(&P, root);
  }
  if (!rc && P.t.kind != T_END)
    rc = expected(&P, p->update ? "the end, ',' or the next clause"
                                : "the end, AND or OR");
  return rc;
}

int ddbst__xparse_path_text(ddbst__xparse *p, const char *text, size_t len,
                            ddbst__xnode *n) {
  /* the path's own text is the source of its offsets */
  ddbst__xparse sub = *p;
  sub.src = text;
  sub.src_len = len;
  sub.src_jpath = n->jpath;
  parser P;
  memset(&P, 0, sizeof P);
  P.p = &sub;
  P.s = text;
  P.n = len;
  ddbst__xnode *path;
  int rc = lex(&P);
  rc = rc ? rc : parse_path(&P, &path);
  if (!rc && P.t.kind != T_END)
    rc = expected(&P, "'.', '[' or the end of the path");
  if (rc) return rc;
  n->name = path->name;
  n->name_len = path->name_len;
  n->steps = path->steps;
  n->nsteps = path->nsteps;
  return 0;
}
