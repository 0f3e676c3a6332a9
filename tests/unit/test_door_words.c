/* An error a JSON entry (or binding, or CLI) user can meet names the
 * option as that user gives it, not only as the C API spells it: each
 * request below is refused with the exact answer. */
#include "support.h"

#include <stdio.h>
#include <string.h>

static void check(ddbst_json *j, const char *request, const char *want) {
  char *a = ddbst_json_call(j, request, strlen(request), NULL);
  assert_non_null(a);
  if (strcmp(a, want) != 0) fail_msg("%s\n got %s\nwant %s", request, a, want);
  ddbst_json_free(a);
}

static ddbst_json *open_model(const char *file) {
  char config[512];
  snprintf(config, sizeof config, "{\"modelFile\":\"%s/%s\"}",
           DDBST_SOURCE_DIR, file);
  ddbst_json *j = ddbst_json_open(config, strlen(config), NULL, NULL);
  assert_non_null(j);
  return j;
}

static void scan_count_with_projection(void **state) {
  (void)state;
  ddbst_json *j = open_model("examples/saas/model.json");
  check(j, "{\"op\":\"scan\",\"select\":\"COUNT\",\"project\":[\"name\"]}",
        "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"select\","
        "\"message\":\"a count (select COUNT, --count, DDBST_QUERY_COUNT) "
        "returns no attributes: it takes no projection\"}}");
  ddbst_json_close(j);
}

static void transaction_return_values(void **state) {
  (void)state;
  ddbst_json *j = open_model("examples/saas/model.json");
  check(j,
        "{\"op\":\"create\",\"entity\":\"User\",\"values\":{\"orgId\":\"1\","
        "\"userId\":\"2\",\"email\":\"a@b.c\"},\"return\":\"ALL_OLD\"}",
        "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"User\","
        "\"message\":\"a write of an entity with unique attributes is a "
        "transaction: a transaction returns no values (ReturnValues); read "
        "the item afterwards, or ask for the item on a failed condition "
        "(returnOnFailure, DDBST_RETURN_OLD_ON_FAILURE)\"}}");
  ddbst_json_close(j);
}

static void unsafe_migration(void **state) {
  (void)state;
  ddbst_json *j = open_model("tests/evolve/unsafe.new.json");
  char request[512];
  snprintf(request, sizeof request,
           "{\"op\":\"migratePlan\",\"oldFile\":\"%s/tests/evolve/"
           "unsafe.old.json\"}",
           DDBST_SOURCE_DIR);
  check(j, request,
        "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":"
        "\"entities.Author.unique.email\",\"message\":\"unsafe (accept it "
        "with --unsafe, \\\"unsafe\\\": true or DDBST_MIGRATE_UNSAFE); check "
        "first: no two items of Author already stored share "
        "EMAIL#{email:lower}; then write a guard item for each\"}}");
  ddbst_json_close(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scan_count_with_projection),
      cmocka_unit_test(transaction_return_values),
      cmocka_unit_test(unsafe_migration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
