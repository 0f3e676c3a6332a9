/* The small public pieces: version, error texts, buffers, NULL handling. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static void version(void **state) {
  (void)state;
  assert_string_equal(ddbst_version(), DDBST_VERSION_STRING);
  assert_string_equal(DDBST_VERSION_STRING, "0.2.0");
}

static void error_texts(void **state) {
  (void)state;
  for (int code = 0; code >= -12; code--) {
    const char *s = ddbst_strerror(code);
    assert_non_null(s);
    assert_string_not_equal(s, "unknown error");
  }
  assert_string_equal(ddbst_strerror(-999), "unknown error");
  assert_string_equal(ddbst_strerror(DDBST_ECURSOR), "cursor refused");
}

static void buffers(void **state) {
  (void)state;
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_non_null(b);
  assert_string_equal(ddbst_buf_data(b), "");
  assert_int_equal(ddbst_buf_len(b), 0);
  ddbst_buf_reset(b);
  assert_string_equal(ddbst_buf_data(NULL), "");
  assert_int_equal(ddbst_buf_len(NULL), 0);
  ddbst_buf_free(b);
  ddbst_buf_free(NULL);
}

static void null_arguments(void **state) {
  (void)state;
  ddbst_error err;
  ddbst_model *m = (ddbst_model *)1;
  assert_int_equal(ddbst_model_load(NULL, 5, NULL, &m, &err), DDBST_EINVAL);
  assert_null(m);
  assert_int_equal(ddbst_model_load("{}", 2, NULL, NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_model_load_file(NULL, NULL, &m, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_model_load_file("/nonexistent/model.json", NULL, &m,
                                         &err),
                   DDBST_EIO);
  assert_string_equal(err.path, "/nonexistent/model.json");
  /* err may be NULL */
  assert_int_equal(ddbst_model_load("[", 1, NULL, &m, NULL), DDBST_ESYNTAX);
  ddbst_load_options o;
  memset(&o, 0, sizeof o); /* size not set */
  assert_int_equal(ddbst_model_load("{}", 2, &o, &m, &err), DDBST_EINVAL);
  assert_null(ddbst_model_table_name(NULL));
  assert_int_equal(ddbst_model_entity_count(NULL), DDBST_EINVAL);
  assert_int_equal(ddbst_model_entity(NULL, "x"), DDBST_EINVAL);
  assert_null(ddbst_model_entity_name(NULL, 0));
  assert_int_equal(ddbst_model_pattern(NULL, "x"), DDBST_EINVAL);
  assert_int_equal(ddbst_item_build_keys(NULL, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_item_keys_json(NULL, NULL, &err), DDBST_EINVAL);
  ddbst_model_free(NULL);
}

/* A model from an older caller whose options struct is shorter still works:
 * fields it does not have read as zero. */
static void short_options_struct(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  ddbst_model_free(m);
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = (uint32_t)offsetof(ddbst_load_options, allocator);
  o.table_name = "saas-api-prod";
  assert_int_equal(ddbst_model_load_file(path, &o, &m, NULL), 0);
  assert_string_equal(ddbst_model_table_name(m), "saas-api-prod");
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version),
      cmocka_unit_test(error_texts),
      cmocka_unit_test(buffers),
      cmocka_unit_test(null_arguments),
      cmocka_unit_test(short_options_struct),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
