/* What the lint rules share: the run's state and how a finding is
 * reported. lint.c holds the rules of the seed's review; rules of their own
 * concern live in lint_*.c beside it. */
#ifndef DDBST_REVIEW_LINT_H
#define DDBST_REVIEW_LINT_H

#include <stdarg.h>
#include <stdio.h>

#include "base/internal.h"
#include "review/review.h"

typedef struct ddbst__linter {
  const ddbst_model *m;
  ddbst_lint_fn on_finding;
  void *user;
  int errors;
} ddbst__linter;

/* Counts an error, formats the message and hands the finding on. Inline,
 * so that each file of rules reports without calling into another. */
static inline void ddbst__lint_vreport(ddbst__linter *L, int32_t severity,
                                       const char *rule, const char *path,
                                       const char *fmt, va_list ap)
    DDBST__PRINTF(5, 0);
static inline void ddbst__lint_vreport(ddbst__linter *L, int32_t severity,
                                       const char *rule, const char *path,
                                       const char *fmt, va_list ap) {
  if (severity == DDBST_LINT_ERROR) L->errors++;
  if (!L->on_finding) return;
  char message[640];
  vsnprintf(message, sizeof message, fmt, ap);
  L->on_finding(L->user, severity, rule, path, message);
}

/* Whether a sort key fits the ranges patterns declare on it
 * (lint_sort_fit.c): a range on a facet the partition key holds, or behind
 * facets every query must pin. */
void ddbst__lint_sort_fit(ddbst__linter *L);

#endif
