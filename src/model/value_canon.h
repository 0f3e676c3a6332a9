/* Canonical text of a value for its attribute: what an item stores, what
 * the loader keeps of a default or a condition literal. */
#ifndef DDBST_VALUE_CANON_H
#define DDBST_VALUE_CANON_H

#include <stddef.h>

#include "model/model.h"

/* Canonical text of `in` for attribute `a`, appended to `out`; DDBST_EVALUE
 * with `why` on refusal (then `out` is as it was), DDBST_ENOMEM. */
int ddbst__value_canon(const ddbst__attr *a, const char *in, size_t n,
                       ddbst_buf *out, char *why, size_t why_cap);

#endif
