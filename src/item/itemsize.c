/* DynamoDB's item size: attribute names plus values, by its published rules
 * (strings and binary by bytes, numbers by significant digits, one byte per
 * boolean or null, three per list or map plus one per element). An item
 * over 400 KB is refused before any request is built. */
#include <string.h>

#include "item/itemsize.h"

/* Bytes of a number: about one per two significant digits, plus one. */
static size_t number_size(const char *s, size_t n) {
  size_t first = 0, last = 0, digits = 0, i = 0;
  int seen = 0;
  for (; i < n && s[i] != 'e' && s[i] != 'E'; i++) {
    if (s[i] < '0' || s[i] > '9') continue;
    digits++;
    if (s[i] != '0') {
      if (!seen) first = digits;
      seen = 1;
      last = digits;
    }
  }
  size_t sig = seen ? last - first + 1 : 1;
  return (sig + 1) / 2 + 1;
}

/* Decoded bytes of a base64 text. */
static size_t binary_size(const char *s, size_t n) {
  size_t pad = 0;
  while (pad < n && pad < 2 && s[n - 1 - pad] == '=') pad++;
  return n / 4 * 3 - pad;
}

/* ---- walking the AttributeValue JSON ddbst wrote itself ---- */

typedef struct walker {
  const char *p, *end;
} walker;

/* Decoded bytes of the JSON string at w->p (on its opening quote). */
static size_t string_bytes(walker *w) {
  size_t n = 0;
  w->p++; /* " */
  while (w->p < w->end && *w->p != '"') {
    if (*w->p == '\\') {
      w->p++;
      if (w->p < w->end && *w->p == 'u') {
        /* ddbst writes \u00XX only for control characters: one byte */
        w->p += 5;
        n++;
        continue;
      }
    }
    w->p++;
    n++;
  }
  w->p++; /* " */
  return n;
}

static void skip_ws(walker *w) {
  while (w->p < w->end && (*w->p == ' ' || *w->p == ',' || *w->p == ':'))
    w->p++;
}

static size_t av_size(walker *w);

/* [elem, ...] of AttributeValues (lists) or bare strings (sets). */
static size_t array_size(walker *w, int kind /* 'L', 'S' set, 'N' set */) {
  size_t total = 0;
  w->p++; /* [ */
  skip_ws(w);
  while (w->p < w->end && *w->p != ']') {
    if (kind == 'L') {
      total += av_size(w) + 1;
    } else {
      const char *s = w->p + 1;
      size_t bytes = string_bytes(w);
      total += kind == 'N' ? number_size(s, bytes) : bytes;
    }
    skip_ws(w);
  }
  w->p++; /* ] */
  return total;
}

static size_t map_size(walker *w) {
  size_t total = 0;
  w->p++; /* { */
  skip_ws(w);
  while (w->p < w->end && *w->p != '}') {
    total += string_bytes(w); /* the member's name */
    skip_ws(w);
    total += av_size(w) + 1;
    skip_ws(w);
  }
  w->p++; /* } */
  return total;
}

/* {"T":value} → its size; w->p on the '{'. */
static size_t av_size(walker *w) {
  size_t size = 0;
  w->p += 2; /* {" */
  const char *type = w->p;
  while (w->p < w->end && *w->p != '"') w->p++;
  size_t tl = (size_t)(w->p - type);
  w->p += 2; /* ": */
  if (tl == 1 && *type == 'S') {
    size = string_bytes(w);
  } else if (tl == 1 && *type == 'N') {
    const char *s = w->p + 1;
    size = number_size(s, string_bytes(w));
  } else if (tl == 1 && *type == 'B') {
    const char *s = w->p + 1;
    size = binary_size(s, string_bytes(w));
  } else if (tl == 1 && *type == 'L') {
    size = 3 + array_size(w, 'L');
  } else if (tl == 1 && *type == 'M') {
    size = 3 + map_size(w);
  } else if (tl == 2 && type[0] == 'S') {
    size = array_size(w, 'S');
  } else if (tl == 2 && type[0] == 'N') {
    size = array_size(w, 'N');
  } else { /* BOOL, NULL */
    while (w->p < w->end && *w->p != '}') w->p++;
    size = 1;
  }
  while (w->p < w->end && *w->p != '}') w->p++;
  w->p++; /* } */
  return size;
}

size_t ddbst__value_size(const ddbst__attr *a, const char *v, size_t n) {
  switch (a->type) {
  case DDBST__T_NUMBER:
  case DDBST__T_INTEGER:
  case DDBST__T_TTL:
    return number_size(v, n);
  case DDBST__T_BOOLEAN:
    return 1;
  case DDBST__T_BINARY:
    return binary_size(v, n);
  case DDBST__T_LIST:
  case DDBST__T_MAP:
  case DDBST__T_STRING_SET:
  case DDBST__T_NUMBER_SET: {
    walker w = {v, v + n};
    return av_size(&w);
  }
  default:
    return n;
  }
}

size_t ddbst__item_size(const ddbst_item *it) {
  const ddbst__entity *e = &it->m->entities[it->entity];
  size_t total = 0;
  for (int a = 0; a < e->nattrs; a++) {
    if (!it->vals[a].set) continue;
    total += e->attrs[a].jname.raw_len +
             ddbst__value_size(&e->attrs[a], it->text.data + it->vals[a].off,
                               it->vals[a].len);
  }
  for (int k = 0; k < it->nkeys; k++)
    total += it->keys[k].jname->raw_len + it->keys[k].len;
  return total;
}

int ddbst_item_size(ddbst_item *it, ddbst_error *err) {
  if (!it) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  int rc = ddbst_item_build_keys(it, err);
  if (rc < 0) return rc;
  size_t n = ddbst__item_size(it);
  return n > INT32_MAX ? INT32_MAX : (int)n;
}
