/* The example models, loaded once per fuzzing process. */
#ifndef DDBST_FUZZ_MODELS_H
#define DDBST_FUZZ_MODELS_H

#include <stdio.h>
#include <stdlib.h>

#include "ddbst.h"

#ifndef DDBST_SOURCE_DIR
#define DDBST_SOURCE_DIR "."
#endif

/* 0: the SaaS example, 1: the blog example. */
static inline ddbst_model *fuzz_model(int which) {
  static ddbst_model *models[2];
  if (!models[which]) {
    const char *path = which ? DDBST_SOURCE_DIR "/examples/blog/model.json"
                             : DDBST_SOURCE_DIR "/examples/saas/model.json";
    if (ddbst_model_load_file(path, NULL, &models[which], NULL)) {
      fprintf(stderr, "cannot load %s\n", path);
      abort();
    }
  }
  return models[which];
}

#endif
