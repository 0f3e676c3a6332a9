/* The JSON entry's refusal of an update that moves a unique guard without
 * the previous value: it names "previous", the member the caller writes,
 * not the typed API's ddbst_item_set_previous; alone and in a
 * transaction. (The prepared operation's: test_prepared.c.) */
#include "ffi_session.h"

/* an update of the email, with no previous value */
#define UPDATE_EMAIL                                                           \
  "{\"op\":\"update\",\"entity\":\"User\",\"values\":{\"orgId\":\"o1\","       \
  "\"userId\":\"u1\"},\"set\":{\"email\":\"ann@new.example\"}"

static void update_names_previous(void **state) {
  (void)state;
  expect(UPDATE_EMAIL ",\"now\":" NOW "}",
         "{\"error\":{\"code\":-6,\"name\":\"EMISSING\",\"path\":"
         "\"User.email\",\"message\":\"changing User.email moves its unique "
         "guard email: give the previous value too (previous.email)\"}}");
}

static void transaction_element_names_previous(void **state) {
  (void)state;
  expect("{\"op\":\"transact\",\"now\":" NOW ",\"items\":[" UPDATE_EMAIL "}]}",
         "{\"error\":{\"code\":-6,\"name\":\"EMISSING\",\"path\":"
         "\"items[0].User.email\",\"message\":\"changing User.email moves its "
         "unique guard email: give the previous value too "
         "(previous.email)\"}}");
}

/* given where the message says, the update is built */
static void previous_given_builds(void **state) {
  (void)state;
  expect(
      UPDATE_EMAIL ",\"previous\":{\"email\":\"Ann@Example.com\"},\"now\":" NOW
                   "}",
      "{\"operation\":\"TransactWriteItems\",\"target\":\"DynamoDB_20120810."
      "TransactWriteItems\",\"body\":{\"TransactItems\":[{\"Update\":{"
      "\"TableName\":\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"ORG#o1\"},\"SK\":"
      "{\"S\":\"USER#u1\"}},\"UpdateExpression\":\"SET #n0 = :v0, #n1 = :v1\","
      "\"ConditionExpression\":\"attribute_exists(#n2) AND #n0 = :v2\","
      "\"ExpressionAttributeNames\":{\"#n0\":\"email\",\"#n1\":\"GSI1PK\","
      "\"#n2\":\"PK\"},\"ExpressionAttributeValues\":{\":v0\":{\"S\":"
      "\"ann@new.example\"},\":v1\":{\"S\":\"EMAIL#ann@new.example\"},\":v2\":"
      "{\"S\":\"Ann@Example.com\"}}}},{\"Delete\":{\"TableName\":"
      "\"saas-api-dev\",\"Key\":{\"PK\":{\"S\":\"EMAIL#ann@example.com\"},"
      "\"SK\":{\"S\":\"EMAIL#ann@example.com\"}}}},{\"Put\":{\"TableName\":"
      "\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"EMAIL#ann@new.example\"},"
      "\"SK\":{\"S\":\"EMAIL#ann@new.example\"},\"_type\":{\"S\":"
      "\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":\"ORG#o1\"},"
      "\"SK\":{\"S\":\"USER#u1\"}}}},\"ConditionExpression\":"
      "\"attribute_not_exists(#n0)\",\"ExpressionAttributeNames\":{\"#n0\":"
      "\"PK\"}}}]}}");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(update_names_previous),
      cmocka_unit_test(transaction_element_names_previous),
      cmocka_unit_test(previous_given_builds),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
