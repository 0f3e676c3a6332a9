/* lint --since: the review of a model together with what its changes since
 * an older model do to the items already stored; the changes no migration
 * can take blindly (unsafe, impossible in place) become findings. */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"

typedef struct since_linter {
  ddbst_lint_fn on_finding;
  void *user;
  int errors;
} since_linter;

static int on_change(void *user, const ddbst__change *c) {
  since_linter *L = user;
  if (c->cls < DDBST_CHANGE_UNSAFE) return 0;
  L->errors++;
  if (!L->on_finding) return 0;
  char message[2 * DDBST__REASON_MAX + 32];
  if (c->check)
    snprintf(message, sizeof message, "%s; check first: %s", c->reason,
             c->check);
  else
    snprintf(message, sizeof message, "%s", c->reason);
  L->on_finding(L->user, DDBST_LINT_ERROR,
                c->cls == DDBST_CHANGE_UNSAFE ? "change-unsafe"
                                              : "change-impossible",
                c->what, message);
  return 0;
}

int ddbst_model_lint_since(const ddbst_model *model, const ddbst_model *since,
                           ddbst_lint_fn on_finding, void *user,
                           ddbst_error *err) {
  if (!model || !since)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "%s is NULL",
                       model ? "since" : "model");
  int errors = ddbst_model_lint(model, on_finding, user, err);
  if (errors < 0) return errors;
  since_linter L = {on_finding, user, 0};
  int rc = ddbst__diff_walk(since, model, 1, &model->alloc, on_change, &L, err);
  if (rc < 0) return rc;
  return errors + L.errors;
}
