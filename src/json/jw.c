/* The sticky-error JSON writer (json/jw.h). */
#include <stdio.h>
#include <string.h>

#include "json/jw.h"

void ddbst__jw_init(ddbst__jw *w, ddbst_buf *b) {
  w->b = b;
  w->rc = 0;
  w->depth = 0;
  w->after_key = 0;
}

void ddbst__jw_raw(ddbst__jw *w, const char *s, size_t n) {
  if (!w->rc) w->rc = ddbst__buf_append(w->b, s, n);
}

void ddbst__jw_puts(ddbst__jw *w, const char *s) {
  ddbst__jw_raw(w, s, strlen(s));
}

void ddbst__jw_printf(ddbst__jw *w, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  ddbst__jw_raw(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A comma before every member or element but the first of its container. */
static void separate(ddbst__jw *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0 && w->has_items[w->depth - 1]) ddbst__jw_raw(w, ",", 1);
  if (w->depth > 0) w->has_items[w->depth - 1] = 1;
}

void ddbst__jw_open(ddbst__jw *w, char c) {
  separate(w);
  if (w->depth == DDBST__JW_DEPTH) {
    ddbst__jw_status(w, DDBST_ERANGE);
    return;
  }
  ddbst__jw_raw(w, &c, 1);
  w->has_items[w->depth++] = 0;
}

void ddbst__jw_close(ddbst__jw *w, char c) {
  if (w->depth > 0) w->depth--;
  ddbst__jw_raw(w, &c, 1);
}

void ddbst__jw_strn(ddbst__jw *w, const char *s, size_t n) {
  separate(w);
  if (!w->rc) w->rc = ddbst__json_string(w->b, s, n);
}

void ddbst__jw_str(ddbst__jw *w, const char *s) {
  ddbst__jw_strn(w, s, strlen(s));
}

void ddbst__jw_keyn(ddbst__jw *w, const char *k, size_t n) {
  ddbst__jw_strn(w, k, n);
  ddbst__jw_raw(w, ":", 1);
  w->after_key = 1;
}

void ddbst__jw_key(ddbst__jw *w, const char *k) {
  ddbst__jw_keyn(w, k, strlen(k));
}

void ddbst__jw_bool(ddbst__jw *w, int v) {
  separate(w);
  ddbst__jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void ddbst__jw_null(ddbst__jw *w) {
  separate(w);
  ddbst__jw_raw(w, "null", 4);
}

void ddbst__jw_int(ddbst__jw *w, long long x) {
  char num[32];
  int n = snprintf(num, sizeof num, "%lld", x);
  separate(w);
  ddbst__jw_raw(w, num, (size_t)n);
}

void ddbst__jw_number(ddbst__jw *w, const char *s, size_t n) {
  separate(w);
  if (!w->rc) w->rc = ddbst__json_number(w->b, s, n);
}

void ddbst__jw_json(ddbst__jw *w, const char *s, size_t n) {
  separate(w);
  ddbst__jw_raw(w, s, n);
}

void ddbst__jw_pair(ddbst__jw *w, const char *k, const char *v) {
  ddbst__jw_key(w, k);
  ddbst__jw_str(w, v);
}

int ddbst__jw_value(ddbst__jw *w) {
  separate(w);
  return w->rc == 0;
}

int ddbst__jw_status(ddbst__jw *w, int rc) {
  if (!w->rc) w->rc = rc;
  return w->rc;
}
