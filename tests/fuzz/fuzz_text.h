/* For the fuzz targets that read JSON (issue 16): whether a text could be
 * JSON text at all, stated independently of the library's rule
 * (src/json/text.c): UTF-8 decoded and then judged (no overlong form, no
 * surrogate, nothing past U+10FFFF), and every \u escape of a surrogate the
 * first half of a pair in order. A text that is not is refused by every
 * reader, whatever else it holds. */
#ifndef DDBST_FUZZ_TEXT_H
#define DDBST_FUZZ_TEXT_H

#include <stddef.h>

static int fuzz_hex4(const unsigned char *s, unsigned long *v) {
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned c = s[k];
    int h = c >= '0' && c <= '9'   ? (int)(c - '0')
            : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
            : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10)
                                   : -1;
    if (h < 0) return 0;
    *v = *v * 16 + (unsigned long)h;
  }
  return 1;
}

/* 0: certainly not JSON text; 1: perhaps (the parser judges the rest). */
static int fuzz_maybe_json_text(const char *text, size_t n) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c == '\\') {
      unsigned long cp, lo;
      if (i + 6 > n || s[i + 1] != 'u' || !fuzz_hex4(s + i + 2, &cp)) {
        i += 2; /* another escape, or one the parser refuses */
        continue;
      }
      i += 6;
      if (cp >= 0xDC00 && cp <= 0xDFFF) return 0;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u' ||
            !fuzz_hex4(s + i + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
          return 0;
        i += 6;
      }
      continue;
    }
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len = c >= 0xF8 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!len || i + len > n) return 0;
    unsigned long cp = c & (0x3Fu >> (len - 1));
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (s[i + k] & 0x3Fu);
    }
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return 0;
    i += len;
  }
  return 1;
}

#endif
