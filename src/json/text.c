/* The rule every JSON text meets before it is parsed (see text.h): one pass,
 * 16 or 32 bytes a step (64 where the CPU has AVX2) over the ASCII without
 * a backslash that nearly every document is made of; escapes and
 * multi-byte characters one by one. */
#include "json/text.h"

#include "base/bytes.h"
#include "base/utf8.h"

static int hex4(const char *s, unsigned *v) {
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = (unsigned char)s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    x = x << 4 | d;
  }
  *v = x;
  return 1;
}

static int fault(ddbst__json_fault *f, size_t at, const char *why,
                 int escape) {
  f->at = at;
  f->why = why;
  f->escape = escape;
  return 1;
}

/* The run of plain text from s: the wide form when asked (and built). */
static size_t text_run(const char *s, size_t n, int wide) {
#if defined(DDBST__HAVE_AVX2)
  if (wide) return ddbst__text_run_avx2(s, n);
#else
  (void)wide;
#endif
  return ddbst__text_run(s, n);
}

int ddbst__json_text_fault(const char *json, size_t len,
                           ddbst__json_fault *f) {
#if defined(DDBST__HAVE_AVX2)
  return ddbst__json_text_fault_with(json, len, f, ddbst__cpu_avx2());
#else
  return ddbst__json_text_fault_with(json, len, f, 0);
#endif
}

int ddbst__json_text_fault_with(const char *json, size_t len,
                                ddbst__json_fault *f, int wide) {
  const unsigned char *p = (const unsigned char *)json;
  size_t i = 0;
  for (;;) {
    i += text_run(json + i, len - i, wide);
    if (i >= len) return 0;
    if (p[i] >= 0x80) {
      const char *why;
      size_t n = ddbst__utf8_sequence(p + i, len - i, &why);
      if (!n) return fault(f, i, why, 0);
      i += n;
      continue;
    }
    /* a backslash: in a string (outside one the parser refuses it), where
     * every backslash starts an escape, so they pair up from the first */
    if (len - i < 2) return 0;
    if (p[i + 1] != 'u') {
      i += 2; /* \" \\ \/ \b \f \n \r \t, or one the parser refuses */
      continue;
    }
    unsigned cp, low;
    if (len - i < 6 || !hex4(json + i + 2, &cp)) return 0;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      return fault(f, i, "the low half of a surrogate pair, with no high "
                         "half (\\ud800-\\udbff) before it", 1);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (len - i < 12 || p[i + 6] != '\\' || p[i + 7] != 'u' ||
          !hex4(json + i + 8, &low) || low < 0xDC00 || low > 0xDFFF)
        return fault(f, i, "the high half of a surrogate pair, with no low "
                           "half (\\udc00-\\udfff) after it", 1);
      i += 12;
      continue;
    }
    i += 6;
  }
}

int ddbst__json_fault_in_name(const char *json, size_t len, size_t at) {
  size_t i = at;
  while (i < len && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
  for (i++; i < len; i++)
    if (json[i] != ' ' && json[i] != '\t' && json[i] != '\n' &&
        json[i] != '\r')
      return json[i] == ':';
  return 0;
}
