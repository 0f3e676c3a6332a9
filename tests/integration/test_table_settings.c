/* The table settings of a model on DynamoDB Local: a table created from
 * docs/examples/orders-settings.json (every setting declared) with ddbst's
 * CreateTable, read back with ddbst's DescribeTable. What DynamoDB Local
 * keeps and reports is asserted exactly: deletion protection (and
 * DeleteTable refused while it is on) and the index's on-demand maximum
 * (the undeclared write maximum sent as -1, no maximum). The rest Local
 * takes and does not report (the table's OnDemandThroughput,
 * WarmThroughput, TableClass, Tags, ResourcePolicy: docs/model.md says
 * so), and it has no UpdateContinuousBackups or
 * UpdateContributorInsights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static yajl_val at(yajl_val v, const char **path, yajl_type t) {
  yajl_val r = yajl_tree_get(v, path, t);
  if (!r) fail_msg("%s...: absent or not of the type expected", path[0]);
  return r;
}

static void settings_read_back(void **state) {
  (void)state;
  itest_fixture *f = itest_open(
      DDBST_SOURCE_DIR "/docs/examples/orders-settings.json", "settings");
  assert_non_null(f);

  itest_ok(f, ddbst_describe_table_request(f->model, itest_body(f), &f->err));
  const char *name[] = {"Table", "TableName", NULL};
  assert_string_equal(YAJL_GET_STRING(at(f->response, name, yajl_t_string)),
                      f->table);
  const char *dp[] = {"Table", "DeletionProtectionEnabled", NULL};
  assert_true(YAJL_IS_TRUE(at(f->response, dp, yajl_t_true)));
  const char *gsis[] = {"Table", "GlobalSecondaryIndexes", NULL};
  yajl_val list = at(f->response, gsis, yajl_t_array);
  assert_int_equal(list->u.array.len, 1);
  const char *rd[] = {"OnDemandThroughput", "MaxReadRequestUnits", NULL};
  const char *wr[] = {"OnDemandThroughput", "MaxWriteRequestUnits", NULL};
  yajl_val gsi = list->u.array.values[0];
  assert_int_equal(YAJL_GET_INTEGER(at(gsi, rd, yajl_t_number)), 200);
  assert_int_equal(YAJL_GET_INTEGER(at(gsi, wr, yajl_t_number)), -1);

  /* the items go in and out as in any table */
  ITEST_CREATE(f, "Order", "customerId=c1", "status=open", "total=12.5");
  ITEST_VALUES(f, "Order", "customerId=c1");
  assert_string_equal(itest_labels(f, itest_query(f, "customerOrders", NULL),
                                   "status"),
                      "open");

  /* protected: ddbst's DeleteTable is refused until it is turned off */
  itest_refused(f, ddbst_delete_table_request(f->model, itest_body(f), &f->err),
                "ValidationException");
  const char *msg[] = {"message", NULL}, *Msg[] = {"Message", NULL};
  yajl_val m = yajl_tree_get(f->response, msg, yajl_t_string);
  if (!m) m = yajl_tree_get(f->response, Msg, yajl_t_string);
  const char *why = m ? YAJL_GET_STRING(m) : NULL;
  if (!why || !strstr(why, "protected against deletion"))
    fail_msg("DeleteTable refused, but not for its protection: %s",
             why ? why : "(no message)");

  /* Local has neither follow-up: said here, so that a Local that learns
   * them makes this test ask for its assertions */
  itest_refused(f, ddbst_update_continuous_backups_request(
                       f->model, itest_body(f), &f->err),
                "UnknownOperationException");
  itest_refused(f, ddbst_update_contributor_insights_request(
                       f->model, NULL, itest_body(f), &f->err),
                "UnknownOperationException");

  char off[300];
  snprintf(off, sizeof off,
           "{\"TableName\":\"%s\",\"DeletionProtectionEnabled\":false}",
           f->table);
  assert_int_equal(itest_send_json(f, "UpdateTable", off), 200);
  assert_int_equal(itest_close(f), 0);
}

int main(void) {
  if (itest_should_skip("test_table_settings")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(settings_read_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
