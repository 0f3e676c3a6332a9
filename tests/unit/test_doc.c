/* The design-review Markdown: the exact document for a small model that
 * exercises every part of the layout (and the escapes a key can need), the
 * examples against docs/examples, and allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *doc_of(const ddbst_model *m) {
  static char out[16384];
  ddbst_buf *b = ddbst_buf_new(NULL);
  ddbst_error err;
  if (ddbst_model_doc(m, b, &err) == 0)
    snprintf(out, sizeof out, "%s", ddbst_buf_data(b));
  else
    snprintf(out, sizeof out, "error %d %s: %s", err.code, err.path,
             err.message);
  ddbst_buf_free(b);
  return out;
}

/* tests/doc/desk.json: a '|' and a backtick in a key (escaped in the cell,
 * a longer code fence), a quote (an entity code in Mermaid), a uniqueness
 * item, a sparse index with a condition, a collection, a range on the first
 * sort-key facet, a scan with a filter, a pattern description. */
static void desk_exactly(void **state) {
  (void)state;
  ddbst_model *m = load_example("tests/doc/desk.json");
  assert_string_equal(
      doc_of(m),
      "# desk\n"
      "\n"
      "A help desk, small enough to check the Markdown by eye: a | and a ba"
      "cktick in a key, a quote for Mermaid, a uniqueness item, a sparse in"
      "dex with a condition, a collection, a range, a scan with a filter.\n"
      "\n"
      "## Entities and keys\n"
      "\n"
      "| Entity | PK | SK | SPK | Other attributes |\n"
      "| --- | --- | --- | --- | --- |\n"
      "| Queue | ``Q\\|\"`#<queueId>`` | `QUEUE` |  | title |\n"
      "| Ticket | ``Q\\|\"`#<queueId>`` | `T#<opened>#<ticketId>` | `STATE#"
      "<state>` when state = `open` | state, subject |\n"
      "| Ticket (unique subject) | `SUBJECT#<lowercased subject>` | `SUBJEC"
      "T#<lowercased subject>` |  |  |\n"
      "\n"
      "## Indexes\n"
      "\n"
      "| Index | Partition key | Sort key | Projection | Written by |\n"
      "| --- | --- | --- | --- | --- |\n"
      "| BY_STATE | SPK |  | KEYS_ONLY | Ticket when state = `open` |\n"
      "\n"
      "## Access patterns\n"
      "\n"
      "| # | Pattern | Operation | Index | Key condition | Order | Limit |"
      "\n"
      "| --- | --- | --- | --- | --- | --- | --- |\n"
      "| 1 | getQueue: One queue | GetItem Queue | table | PK = ``Q\\|\"`#<"
      "queueId>`` AND SK = `QUEUE` | - | - |\n"
      "| 2 | queueAndTickets | Query Queue, Ticket | table | PK = ``Q\\|\"`"
      "#<queueId>`` | asc | max 50 |\n"
      "| 3 | ticketsOpened | Query Ticket | table | PK = ``Q\\|\"`#<queueId"
      ">`` AND SK BETWEEN `T#<opened from>` AND `T#<opened to>` | desc | 10"
      " (max 50) |\n"
      "| 4 | openTickets | Query Ticket | BY_STATE | SPK = `STATE#<state>` "
      "| asc | max 20 |\n"
      "| 5 | everything | Scan Ticket | table | none: every item is read, t"
      "hen filter state = `open` or `closed` | - | none |\n"
      "\n"
      "## Partitions\n"
      "\n"
      "An arrow goes from an entity to the partitions it writes, in the tab"
      "le and in each index; a dotted one to the partitions of its uniquene"
      "ss items. Entities that point at one node share those partitions.\n"
      "\n"
      "```mermaid\n"
      "flowchart LR\n"
      "  E0[\"Queue\"]\n"
      "  E1[\"Ticket\"]\n"
      "  subgraph T[\"table desk\"]\n"
      "    P0[\"PK = Q|#quot;`#{queueId}\"]\n"
      "    P1[\"PK = SUBJECT#{subject:lower}\"]\n"
      "  end\n"
      "  subgraph X0[\"BY_STATE, KEYS_ONLY\"]\n"
      "    P2[\"SPK = STATE#{state}\"]\n"
      "  end\n"
      "  E0 --> P0\n"
      "  E1 --> P0\n"
      "  E1 -. unique subject .-> P1\n"
      "  E1 --> P2\n"
      "```\n");
  ddbst_model_free(m);
}

static char *read_text(const char *relative) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DDBST_SOURCE_DIR, relative);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static char text[32768];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

/* The checked-in pages are this function's output (the CLI adds nothing). */
static void examples_match_docs(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/saas/model.json");
  assert_string_equal(doc_of(m), read_text("docs/examples/saas.md"));
  /* The seed's first table, row by row. */
  assert_non_null(strstr(doc_of(m),
                         "| Project | `ORG#<orgId>` | "
                         "`PROJECT#<createdAt>#<projectId>` |  | "
                         "`STATUS#<status>` | `<createdAt>` | name, status |\n"));
  assert_non_null(strstr(doc_of(m),
                         "| 6 | listEvents | Query Event | table | PK = "
                         "`PROJECT#<projectId>` AND SK BETWEEN `EVENT#<ts "
                         "from>` AND `EVENT#<ts to>` | asc | 100 (max 1000) "
                         "|\n"));
  ddbst_model_free(m);
  m = load_example("examples/blog/model.json");
  assert_string_equal(doc_of(m), read_text("docs/examples/blog.md"));
  ddbst_model_free(m);
}

static void appends_and_refuses(void **state) {
  (void)state;
  ddbst_model *m = load_example("tests/doc/desk.json");
  ddbst_buf *b = ddbst_buf_new(NULL);
  assert_int_equal(ddbst_model_doc(m, b, NULL), 0);
  size_t one = ddbst_buf_len(b);
  assert_int_equal(ddbst_model_doc(m, b, NULL), 0);
  assert_int_equal(ddbst_buf_len(b), one); /* replaced, not appended */
  ddbst_error err;
  assert_int_equal(ddbst_model_doc(NULL, b, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_model_doc(m, NULL, &err), DDBST_EINVAL);
  assert_string_equal(err.message, "model or buffer is NULL");
  assert_int_equal(ddbst_buf_len(b), 0); /* a failure leaves it empty */
  ddbst_buf_free(b);
  ddbst_model_free(m);
}

/* Fail the Nth allocation for N = 1, 2, ... until the call succeeds: each
 * failure is DDBST_ENOMEM, appends nothing and leaks nothing. */
static void allocation_failures(void **state) {
  (void)state;
  ddbst_model *m = load_example("examples/blog/model.json");
  counting_alloc ca;
  counting_alloc_init(&ca);
  int failures = 0;
  for (long n = 1;; n++) {
    ddbst_buf *b = ddbst_buf_new(&ca.hooks);
    assert_non_null(b);
    ca.calls = 0;
    ca.fail_at = n;
    int rc = ddbst_model_doc(m, b, NULL);
    ca.fail_at = 0;
    if (rc == 0) {
      assert_string_equal(ddbst_buf_data(b),
                          read_text("docs/examples/blog.md"));
      ddbst_buf_free(b);
      break;
    }
    assert_int_equal(rc, DDBST_ENOMEM);
    assert_int_equal(ddbst_buf_len(b), 0);
    ddbst_buf_free(b);
    assert_int_equal(ca.live, 0);
    failures++;
  }
  assert_true(failures >= 3); /* the output's growth, scratch, the diagram */
  assert_int_equal(ca.live, 0);
  ddbst_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(desk_exactly),
      cmocka_unit_test(examples_match_docs),
      cmocka_unit_test(appends_and_refuses),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
