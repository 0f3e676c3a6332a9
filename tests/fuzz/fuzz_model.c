/* libFuzzer: model files. Any bytes load or are refused with an error; a
 * model that loads builds the keys of an empty item of every entity without
 * crashing; a file that is not JSON text (fuzz_text.h) never loads. */
#include <stddef.h>
#include <stdint.h>

#include "ddbst.h"
#include "fuzz_text.h"

static void count(void *user, const ddbst_error *e) {
  (void)e;
  ++*(int *)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ddbst_load_options o = {0};
  int errors = 0;
  o.size = sizeof o;
  o.on_error = count;
  o.on_error_user = &errors;
  ddbst_model *m = NULL;
  ddbst_error err;
  int rc = ddbst_model_load((const char *)data, size, &o, &m, &err);
  if (rc != DDBST_ENOMEM && !fuzz_maybe_json_text((const char *)data, size) &&
      rc != DDBST_ESYNTAX)
    __builtin_trap();
  if (rc == 0) {
    for (int e = 0; e < ddbst_model_entity_count(m); e++) {
      ddbst_item *it = ddbst_item_new(m, e);
      if (it) {
        ddbst_item_apply_defaults(it, 0, NULL);
        ddbst_item_build_keys(it, NULL);
        ddbst_item_free(it);
      }
    }
    ddbst_buf *b = ddbst_buf_new(NULL);
    ddbst_model_patterns_json(m, b, NULL);
    ddbst_create_table_request(m, b, NULL);
    ddbst_buf_free(b);
    ddbst_model_free(m);
  } else if (rc != DDBST_ENOMEM && (errors == 0 || err.message[0] == '\0')) {
    __builtin_trap(); /* a refusal always says why */
  }
  return 0;
}
