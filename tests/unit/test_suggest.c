/* "Did you mean" (src/base/suggest.c): which misspellings find their name,
 * which names are too far to suggest, the order of equally close ones, and
 * the public ddbst_suggest over the same rule. */
#include <string.h>

#include "base/suggest.h"
#include "support.h"

static const char *best_of(const char *word, const char *const *names) {
  ddbst__suggest s;
  ddbst__suggest_init(&s, word);
  for (; *names; names++) ddbst__suggest_offer(&s, *names);
  return ddbst__suggest_best(&s);
}

static void misspellings_find_their_name(void **state) {
  (void)state;
  static const char *const fields[] = {"attributes", "key", "indexes",
                                       "unique", "version", "timestamps",
                                       NULL};
  /* a deletion, an insertion, a swap of neighbours */
  assert_string_equal(best_of("atributes", fields), "attributes");
  assert_string_equal(best_of("attributess", fields), "attributes");
  assert_string_equal(best_of("attrbiutes", fields), "attributes");
  assert_string_equal(best_of("kye", fields), "key");
  assert_string_equal(best_of("indexs", fields), "indexes");
  assert_string_equal(best_of("Unique", fields), "unique");
  static const char *const types[] = {"string", "number", "integer",
                                      "timestamp", "ulid", NULL};
  assert_string_equal(best_of("strng", types), "string");
  assert_string_equal(best_of("timestmp", types), "timestamp");
  assert_string_equal(best_of("ULID", types), "ulid");
  static const char *const entities[] = {"Organisation", "User", NULL};
  assert_string_equal(best_of("Usr", entities), "User");
  assert_string_equal(best_of("Organization", entities), "Organisation");
}

static void case_beats_a_closer_spelling(void **state) {
  (void)state;
  /* customerIp is one substitution away; customerId only differs in case */
  static const char *const names[] = {"customerIp", "customerId", NULL};
  assert_string_equal(best_of("customerID", names), "customerId");
}

static void far_names_are_not_suggested(void **state) {
  (void)state;
  static const char *const names[] = {"pk", "sk", "orgId", "email", NULL};
  assert_null(best_of("colour", names));
  assert_null(best_of("x", names));      /* one letter: case only */
  assert_null(best_of("ab", names));     /* two edits on a short name */
  assert_null(best_of("", names));
  static const char *const longer[] = {"projection", NULL};
  assert_null(best_of("reflection", longer)); /* 4 edits on 10 bytes */
  assert_string_equal(best_of("protectoin", longer), "projection"); /* 2 */
  /* past 64 bytes only a case-only difference counts */
  char a[80], b[80];
  memset(a, 'a', 70);
  a[70] = '\0';
  memcpy(b, a, sizeof a);
  b[0] = 'A';
  const char *const big[] = {b, NULL};
  assert_ptr_equal(best_of(a, big), b);
  b[0] = 'c';
  assert_null(best_of(a, big));
}

static void the_first_of_equals_wins_and_the_word_is_skipped(void **state) {
  (void)state;
  static const char *const names[] = {"GSI1", "GSI2", "GSI9x", NULL};
  assert_string_equal(best_of("GSI9", names), "GSI1");
  static const char *const same[] = {"pk", NULL};
  assert_null(best_of("pk", same));
  ddbst__suggest s;
  ddbst__suggest_init(&s, "kye");
  ddbst__suggest_offer(&s, NULL);
  assert_null(ddbst__suggest_best(&s));
}

static void the_tail_is_the_message_end(void **state) {
  (void)state;
  char tail[64];
  assert_string_equal(ddbst__suggest_tail("customerId", tail, sizeof tail),
                      "; did you mean customerId?");
  assert_string_equal(ddbst__suggest_tail(NULL, tail, sizeof tail), "");
}

static void the_public_function_returns_an_index(void **state) {
  (void)state;
  const char *const verbs[] = {"check", "keys", NULL, "query", "lint"};
  assert_int_equal(ddbst_suggest("quer", verbs, 5), 3);
  assert_int_equal(ddbst_suggest("keys", verbs, 5), 1);
  assert_int_equal(ddbst_suggest("deploy", verbs, 5), DDBST_ENOTFOUND);
  assert_int_equal(ddbst_suggest("lnt", verbs, 5), 4);
  assert_int_equal(ddbst_suggest(NULL, verbs, 5), DDBST_EINVAL);
  assert_int_equal(ddbst_suggest("x", NULL, 1), DDBST_EINVAL);
  assert_int_equal(ddbst_suggest("x", NULL, 0), DDBST_ENOTFOUND);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(misspellings_find_their_name),
      cmocka_unit_test(case_beats_a_closer_spelling),
      cmocka_unit_test(far_names_are_not_suggested),
      cmocka_unit_test(the_first_of_equals_wins_and_the_word_is_skipped),
      cmocka_unit_test(the_tail_is_the_message_end),
      cmocka_unit_test(the_public_function_returns_an_index),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
