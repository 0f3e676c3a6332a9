/* Scans known at load (ddbst__scan, bytes.h): what keys and JSON would ask
 * of enum values, canonical timestamps and ULIDs, for this model's
 * delimiter, so that setting such a value records it for free. */
#include <string.h>

#include "base/bytes.h"
#include "model/compile.h"

/* The scan (ddbst__scan, bytes.h) a value of an alphabet gets without
 * looking at it: nothing to escape, and no delimiter when the alphabet lacks
 * its first byte; else 0, unknown, for an exotic delimiter ("-", a digit)
 * that only the value itself can say it holds. */
static unsigned char alphabet_scan(const char *alphabet, unsigned char d0) {
  return ddbst__scan(alphabet, strlen(alphabet), d0) ? 0 : DDBST__SCAN_KNOWN;
}

/* The scan ddbst_item_set records for text it copies as it is (a
 * string's, an enum value's): of ASCII without NUL, not empty; else 0. */
static unsigned char text_scan(const char *s, size_t n, unsigned char d0) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] - 1u >= 0x7Fu) return 0; /* NUL, or past ASCII */
  return (unsigned char)(DDBST__SCAN_KNOWN | ddbst__scan(s, n, d0));
}

/* What keys and JSON ask of the values whose text load already knows (enum
 * values) or whose alphabet is fixed (canonical timestamps, ULIDs), for this
 * model's delimiter: setting them then records it for free. */
int ddbst__compile_scans(ddbst_model *m) {
  unsigned char d0 = (unsigned char)m->delim[0];
  m->ts_scan = alphabet_scan("0123456789-:.TZ", d0);
  m->ulid_scan = alphabet_scan("0123456789ABCDEFGHJKMNPQRSTVWXYZ", d0);
  for (int e = 0; e < m->nentities; e++)
    for (int i = 0; i < m->entities[e].nattrs; i++) {
      ddbst__attr *a = &m->entities[e].attrs[i];
      if (a->def == DDBST__DEF_VALUE &&
          (a->type == DDBST__T_STRING || a->type == DDBST__T_ENUM))
        a->def_scan = text_scan(a->def_text, a->def_len, d0);
      if (a->type != DDBST__T_ENUM || !a->nvalues) continue;
      a->value_scans = ddbst__arena_alloc(&m->arena, a->nvalues);
      if (!a->value_scans) return DDBST_ENOMEM;
      for (size_t v = 0; v < a->nvalues; v++)
        a->value_scans[v] =
            (unsigned char)(DDBST__SCAN_KNOWN |
                            ddbst__scan(a->values[v], a->value_lens[v], d0));
    }
  return 0;
}
