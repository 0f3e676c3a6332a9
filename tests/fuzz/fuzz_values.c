/* libFuzzer: attribute values from end users. Input: a byte choosing the
 * model, a byte choosing the entity, then NUL-separated values given to the
 * entity's attributes in order. Each value is stored canonical or refused;
 * whatever was stored builds keys and put/update bodies or is refused with a
 * message; never a crash, never an over-read. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_models.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  ddbst_model *m = fuzz_model(data[0] & 1);
  int entity = data[1] % ddbst_model_entity_count(m);
  ddbst_item *it = ddbst_item_new(m, entity);
  ddbst_buf *b = ddbst_buf_new(NULL);
  if (!it || !b) goto done;
  const char *p = (const char *)data + 2, *end = (const char *)data + size;
  int nattrs = ddbst_model_attribute_count(m, entity);
  for (int a = 0; a < nattrs && p <= end; a++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
    ddbst_error err;
    if (ddbst_item_set(it, a, p, n, &err) && err.message[0] == '\0')
      __builtin_trap();
    p += n + 1;
  }
  ddbst_item_keys_json(it, b, NULL);
  ddbst_buf_reset(b);
  ddbst_put_request(it, DDBST_CREATE, 0, b, NULL);
  ddbst_buf_reset(b);
  ddbst_update_request(it, 0, 0, b, NULL);
  ddbst_buf_reset(b);
  ddbst_delete_request(it, 0, b, NULL);
done:
  ddbst_buf_free(b);
  ddbst_item_free(it);
  return 0;
}
