/* Compiled as C11 and as C++: the public header must be clean in both. */
#include "ddbst.h"

int ddbst_header_probe(void);
int ddbst_header_probe(void) {
  ddbst_error err = {0, 0, 0, 0, 0, {0, 0, 0, 0}, {0}, {0}};
  return err.code + DDBST_OK;
}
