/* "Did you mean" over a model's own names: the entity, attribute, index or
 * pattern closest to a misspelt one (base/suggest.h has the rule), for
 * every error that names something the model does not have. */
#ifndef DDBST_MODEL_SUGGEST_H
#define DDBST_MODEL_SUGGEST_H

#include "model/model.h"

/* Each returns the model's closest name (valid as long as the model), or
 * NULL when none is close enough. They read what is loaded so far, so the
 * loader may call them too. */
const char *ddbst__suggest_entity(const ddbst_model *m, const char *name);
const char *ddbst__suggest_attribute(const ddbst__entity *e, const char *name);
const char *ddbst__suggest_index(const ddbst_model *m, const char *name);
const char *ddbst__suggest_pattern(const ddbst_model *m, const char *name);

/* "; did you mean X?" or "": a message's tail, in a caller's buffer. */
enum { DDBST__TAIL_CAP = 300 };

#endif
