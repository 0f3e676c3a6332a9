/* libFuzzer: attribute values from end users. Input: a byte choosing the
 * model, a byte choosing the entity, then NUL-separated values given to the
 * entity's attributes in order. Each value is stored canonical or refused;
 * whatever was stored builds keys and put/update bodies or is refused with a
 * message; never a crash, never an over-read; and the keys object is the
 * one the key list gives. A list, map or set value that is not JSON text
 * (fuzz_text.h) is refused, and a string set stored holds no element twice
 * (compared here pairwise, apart from the library's hashing). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ddbst.h"
#include "fuzz_models.h"
#include "fuzz_text.h"
#include "base/internal.h" /* ddbst__json_string: the reference keys object */

#include <yajl/yajl_tree.h>

/* The stored {"SS":[...]} holds each element once. */
static void set_is_a_set(const ddbst_item *it, int a) {
  const char *v;
  size_t n;
  if (ddbst_item_get(it, a, &v, &n) != 1) __builtin_trap();
  yajl_val root = yajl_tree_parse(v, NULL, 0);
  const char *at[] = {"SS", NULL};
  yajl_val ss = root ? yajl_tree_get(root, at, yajl_t_array) : NULL;
  if (!ss) __builtin_trap();
  for (size_t i = 0; i < ss->u.array.len; i++)
    for (size_t j = i + 1; j < ss->u.array.len; j++)
      if (!strcmp(YAJL_GET_STRING(ss->u.array.values[i]),
                  YAJL_GET_STRING(ss->u.array.values[j])))
        __builtin_trap();
  yajl_tree_free(root);
}

/* ddbst_item_keys_json writes the object straight from the values when it
 * can (keys.c): it must be the object the key list gives, through the
 * escaping writer, or the same refusal. */
static void keys_json_agrees(ddbst_item *it, ddbst_buf *b, ddbst_buf *ref) {
  ddbst_error e1, e2;
  ddbst_buf_reset(b);
  int r1 = ddbst_item_keys_json(it, b, &e1);
  int n = ddbst_item_build_keys(it, &e2);
  if ((r1 < 0) != (n < 0)) __builtin_trap();
  if (n < 0) {
    if (e1.code != e2.code || strcmp(e1.message, e2.message) != 0)
      __builtin_trap();
    return;
  }
  ddbst_buf_reset(ref);
  ddbst__buf_putc(ref, '{');
  for (int i = 0; i < n; i++) {
    const char *name, *value;
    size_t len;
    if (ddbst_item_key(it, i, &name, &value, &len)) __builtin_trap();
    if (i) ddbst__buf_putc(ref, ',');
    ddbst__json_string(ref, name, strlen(name));
    ddbst__buf_putc(ref, ':');
    ddbst__json_string(ref, value, len);
  }
  ddbst__buf_putc(ref, '}');
  if (ddbst_buf_len(b) != ddbst_buf_len(ref) ||
      memcmp(ddbst_buf_data(b), ddbst_buf_data(ref), ddbst_buf_len(b)) != 0)
    __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  ddbst_model *m = fuzz_model(data[0] & 1);
  int entity = data[1] % ddbst_model_entity_count(m);
  ddbst_item *it = ddbst_item_new(m, entity);
  ddbst_buf *b = ddbst_buf_new(NULL), *ref = ddbst_buf_new(NULL);
  if (!it || !b || !ref) goto done;
  const char *p = (const char *)data + 2, *end = (const char *)data + size;
  int nattrs = ddbst_model_attribute_count(m, entity);
  for (int a = 0; a < nattrs && p <= end; a++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
    ddbst_error err;
    int rc = ddbst_item_set(it, a, p, n, &err);
    if (rc && err.message[0] == '\0') __builtin_trap();
    const char *type = ddbst_model_attribute_type(m, entity, a);
    if (!rc && !fuzz_maybe_json_text(p, n) &&
        (!strcmp(type, "list") || !strcmp(type, "map") ||
         !strcmp(type, "string_set") || !strcmp(type, "number_set")))
      __builtin_trap();
    if (!rc && !strcmp(type, "string_set")) set_is_a_set(it, a);
    p += n + 1;
  }
  keys_json_agrees(it, b, ref);
  ddbst_buf_reset(b);
  ddbst_put_request(it, DDBST_CREATE, 0, b, NULL);
  ddbst_buf_reset(b);
  ddbst_update_request(it, 0, 0, b, NULL);
  ddbst_buf_reset(b);
  ddbst_delete_request(it, 0, b, NULL);
done:
  ddbst_buf_free(ref);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  return 0;
}
