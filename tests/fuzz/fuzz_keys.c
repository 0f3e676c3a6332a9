/* libFuzzer: keys read back (the path of `ddbst parse`). Input: a byte
 * choosing the model and index, then PK, a NUL, SK. A key either parses into
 * an entity whose keys build back to exactly the same strings, or is
 * refused. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_models.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  ddbst_model *m = fuzz_model(data[0] & 1);
  static const char *const indexes[2][4] = {{NULL, "GSI1", "GSI2", NULL},
                                            {NULL, "gsi1", "gsi2", "gsi3"}};
  const char *index = indexes[data[0] & 1][(data[0] >> 1) & 3];
  const char *pk = (const char *)data + 1;
  size_t rest = size - 1;
  const char *nul = memchr(pk, '\0', rest);
  size_t pkl = nul ? (size_t)(nul - pk) : rest;
  const char *sk = nul ? nul + 1 : NULL;
  size_t skl = nul ? rest - pkl - 1 : 0;
  ddbst_item *it = ddbst_item_new(m, 0);
  if (!it) return 0;
  ddbst_error err;
  int e = ddbst_item_from_key(it, index, pk, pkl, sk, skl, &err);
  if (e >= 0 && !index) {
    /* a parsed table key builds back to itself */
    if (ddbst_item_build_keys(it, NULL) >= 2) {
      const char *v;
      size_t n;
      ddbst_item_key(it, 0, NULL, &v, &n);
      if (n != pkl || memcmp(v, pk, n)) __builtin_trap();
      ddbst_item_key(it, 1, NULL, &v, &n);
      if (sk && (n != skl || memcmp(v, sk, n))) __builtin_trap();
    }
  } else if (e < 0 && err.message[0] == '\0') {
    __builtin_trap();
  }
  ddbst_item_free(it);
  return 0;
}
