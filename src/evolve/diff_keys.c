/* Whether a key template still renders the keys items are stored under:
 * compared as compiled (segments and each facet's key form), so that a
 * model reformatted or reordered is no change, and a facet whose precision
 * or casing changed is one even though its template reads the same. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"
#include "model/facet.h"

const char *ddbst__diff_precision_name(int precision) {
  switch (precision) {
  case DDBST__PREC_S: return "s";
  case DDBST__PREC_MS: return "ms";
  case DDBST__PREC_US: return "us";
  default: return "?";
  }
}

static const char *norm_name(int form) {
  switch (form) {
  case DDBST__NORM_NFC: return "NFC";
  case DDBST__NORM_NFKC_CASEFOLD: return "NFKC_Casefold";
  default: return "none";
  }
}

static const char *escape_name(int escape) {
  switch (escape) {
  case DDBST__ESCAPE_PERCENT: return "%XX";
  case DDBST__ESCAPE_ORDERED: return "ordered";
  default: return "none";
  }
}

/* What changed in the key form of facet `sa` → `sb` (the same attribute by
 * name), appended to `how`; 1 when anything did. */
static int facet_form(const ddbst__attr *a, const ddbst__seg *sa,
                      const ddbst__attr *b, const ddbst__seg *sb, char *how,
                      size_t cap, int *narrows, int *said) {
  size_t n = strlen(how);
  int changed = 0;
#define SAY(...)                                                               \
  do {                                                                         \
    if (*said && n < cap) n += (size_t)snprintf(how + n, cap - n, "; ");       \
    if (n < cap) n += (size_t)snprintf(how + n, cap - n, __VA_ARGS__);         \
    changed = *said = 1;                                                       \
  } while (0)
  if (a->type != b->type) {
    SAY("%s: type %s becomes %s", a->name, ddbst__type_name(a->type),
        ddbst__type_name(b->type));
    *narrows = 1;
  } else {
    if (a->type == DDBST__T_TIMESTAMP && a->precision != b->precision) {
      SAY("%s: precision %s becomes %s", a->name,
          ddbst__diff_precision_name(a->precision),
          ddbst__diff_precision_name(b->precision));
      if (b->precision < a->precision) *narrows = 1;
    }
    if (a->width != b->width) {
      SAY("%s: width %d becomes %d", a->name, a->width, b->width);
      if (b->width && (!a->width || b->width < a->width)) *narrows = 1;
    }
    if (a->sortable_negative != b->sortable_negative)
      SAY("%s: negatives become %s", a->name,
          b->sortable_negative ? "sortable" : "refused");
  }
  if (a->escape != b->escape) {
    SAY("%s: escaping %s becomes %s", a->name, escape_name(a->escape),
        escape_name(b->escape));
  }
  if (a->normalize != b->normalize) {
    SAY("%s: normalize %s becomes %s", a->name, norm_name(a->normalize),
        norm_name(b->normalize));
    if (b->normalize > a->normalize) *narrows = 1;
  }
  if (sa->lower != sb->lower) {
    SAY("{%s%s} becomes {%s%s}", a->name, sa->lower ? ":lower" : "", b->name,
        sb->lower ? ":lower" : "");
    if (sb->lower) *narrows = 1;
  }
#undef SAY
  return changed;
}

int ddbst__diff_template(const ddbst__entity *ea, const ddbst__template *a,
                         const ddbst__entity *eb, const ddbst__template *b,
                         char *how, size_t cap, int *narrows) {
  how[0] = '\0';
  *narrows = 0;
  /* A facet of the old key missing from the new one: items that differed
   * only in it now share a key. */
  for (int i = 0; i < a->nsegs; i++)
    if (a->segs[i].attr >= 0 &&
        !ddbst__diff_has_facet(eb, b, ea->attrs[a->segs[i].attr].name))
      *narrows = 1;
  int shape = a->nsegs != b->nsegs;
  for (int i = 0; !shape && i < a->nsegs; i++) {
    const ddbst__seg *x = &a->segs[i], *y = &b->segs[i];
    if ((x->attr < 0) != (y->attr < 0))
      shape = 1;
    else if (x->attr < 0)
      shape = x->len != y->len || memcmp(x->text, y->text, x->len) != 0;
    else
      shape = strcmp(ea->attrs[x->attr].name, eb->attrs[y->attr].name) != 0;
  }
  if (shape) {
    snprintf(how, cap, "%s becomes %s", a->nsegs ? a->source : "(none)",
             b->nsegs ? b->source : "(none)");
    /* the facets kept may have changed form too: their items move anyway */
    return 1;
  }
  /* the template reads the same: say which, then how its facets changed */
  snprintf(how, cap, "in %s, ", b->source);
  int said = 0;
  for (int i = 0; i < a->nsegs; i++) {
    const ddbst__seg *x = &a->segs[i], *y = &b->segs[i];
    if (x->attr >= 0)
      facet_form(&ea->attrs[x->attr], x, &eb->attrs[y->attr], y, how, cap,
                 narrows, &said);
  }
  return said;
}
