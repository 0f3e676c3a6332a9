/* The mailbox of examples/mailbox/model.json on DynamoDB Local: one
 * partition per user (USER#{userId}) holds a Mailbox item and the user's
 * messages, ordered by time on the table (MSG#{receivedAt}#{messageId}), by
 * sender then time on the local index BySender (INCLUDE), and, for unread
 * messages only, by time on Unread (KEYS_ONLY, sparse by "when"). Messages
 * are written with ddbst's PutItem bodies and read back through every
 * pattern, with every sort-key condition, paged with sealed cursors against
 * an oracle: each item once, in order, never the Mailbox item. Senders are
 * normalised (NFKC_Casefold) and escaped in order, so a sender typed in
 * capitals is the same sender and one holding '!' sorts where it should;
 * Unread is read consistently, so a message marked read has left it on the
 * very next read; a cursor opens only for its own pattern and partition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

enum { NUSERS = 3, NMSG = 16, NSENDERS = 4 };

/* as written, and as the key holds them (folded): 'bob!ops' sorts before
 * 'bob@' because '!' is below '@' */
static const char *const senders[NSENDERS] = {
    "alice@example.com", "Bob@Example.COM", "bob!ops@example.com",
    "carol@example.com"};
static const char *const folded[NSENDERS] = {
    "alice@example.com", "bob@example.com", "bob!ops@example.com",
    "carol@example.com"};

typedef struct message {
  char user[8];
  char id[32];       /* a ULID */
  char received[24]; /* canonical: 2026-MM-DDTHH:00:00Z */
  int sender;        /* index in senders */
  int unread;
} message;

static itest_fixture *fixture;
static message messages[NUSERS * NMSG];

static unsigned long rng = 1808;
static unsigned rnd(unsigned below) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng >> 33) % below);
}

static int write_items(void **state) {
  fixture = itest_open_sealed(DDBST_SOURCE_DIR "/examples/mailbox/model.json",
                              "mail", 8);
  if (!fixture) return -1;
  *state = fixture; /* itest_teardown drops its table */
  for (int u = 0; u < NUSERS; u++) {
    char uid[32], addr[48];
    snprintf(uid, sizeof uid, "userId=u%d", u + 1);
    snprintf(addr, sizeof addr, "address=u%d@example.org", u + 1);
    /* in the same partition, in no local index: never on their pages */
    ITEST_CREATE(fixture, "Mailbox", uid, addr);
    for (int k = 0; k < NMSG; k++) {
      message *m = &messages[u * NMSG + k];
      snprintf(m->user, sizeof m->user, "u%d", u + 1);
      snprintf(m->id, sizeof m->id, "01HZZ0000000000000000000%02d", k);
      /* few distinct instants: the message id orders the ties */
      snprintf(m->received, sizeof m->received, "2026-%02u-%02uT%02u:00:00Z",
               1 + rnd(3), 1 + rnd(4), rnd(3) * 8);
      m->sender = (int)rnd(NSENDERS);
      m->unread = rnd(2);
      char id[48], at[48], from[64], body[64];
      ITEST_FORMAT(id, "messageId=%s", m->id);
      ITEST_FORMAT(at, "receivedAt=%s", m->received);
      snprintf(from, sizeof from, "sender=%s", senders[m->sender]);
      ITEST_FORMAT(body, "bodyKey=s3://mail/%s/%s", m->user, m->id);
      ITEST_CREATE(fixture, "Message", uid, id, at, from, "subject=hello",
                   body, m->unread ? "unread=true" : "unread=false");
    }
  }
  return 0;
}

/* ---- the oracle ---- */

typedef struct cond {
  int kind; /* DDBST_SK_* */
  const char *v, *v2;
  const char *key_v; /* v as the key holds it, when not as written */
} cond;

/* a partial timestamp takes every instant it begins; the senders compared
 * are whole values, none the start of another, so the same rule holds */
static int holds(const char *x, const cond *c) {
  return itest_text_holds(x, c->kind, c->key_v ? c->key_v : c->v, c->v2, 1);
}

static int by_sender;
static int message_cmp(const void *pa, const void *pb) {
  const message *a = *(const message *const *)pa,
                *b = *(const message *const *)pb;
  int c = by_sender ? strcmp(folded[a->sender], folded[b->sender]) : 0;
  if (!c) c = strcmp(a->received, b->received);
  return c ? c : strcmp(a->id, b->id);
}

enum { ON_TIME, ON_SENDER };

/* The SKs of `user`'s messages the pattern reads, in its order: those from
 * `sender` (-1: any), unread only when `unread`, for which `c` holds on
 * the time or on the sender. */
static void oracle(const char *user, int sender, int unread, int on,
                   const cond *c, int desc, char *out, size_t cap) {
  const message *list[NMSG];
  int n = 0;
  for (int i = 0; i < NUSERS * NMSG; i++) {
    const message *m = &messages[i];
    if (strcmp(m->user, user) || (sender >= 0 && m->sender != sender) ||
        (unread && !m->unread))
      continue;
    if (holds(on == ON_TIME ? m->received : folded[m->sender], c))
      list[n++] = m;
  }
  by_sender = sender >= 0 || on == ON_SENDER;
  qsort(list, (size_t)n, sizeof *list, message_cmp);
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    const message *m = list[desc ? n - 1 - i : i];
    used += (size_t)snprintf(out + used, cap - used, "%sMSG#%s#%s",
                             used ? " " : "", m->received, m->id);
  }
}

static ddbst_query query_of(itest_fixture *f, const char *attr,
                            const cond *c) {
  ddbst_query q = itest_condition(f, c->kind, attr, c->v, c->v2);
  q.limit = 3; /* many pages */
  return q;
}

static const cond time_conds[] = {
    {DDBST_SK_NONE, NULL, NULL, NULL},
    {DDBST_SK_GTE, "2026-02-03T08:00:00Z", NULL, NULL},
    {DDBST_SK_GT, "2026-02-03T08:00:00Z", NULL, NULL},
    {DDBST_SK_LT, "2026-02-02T16:00:00Z", NULL, NULL},
    {DDBST_SK_LTE, "2026-02-02T16:00:00Z", NULL, NULL},
    {DDBST_SK_BETWEEN, "2026-01-02T00:00:00Z", "2026-03-01T16:00:00Z", NULL},
    {DDBST_SK_BEGINS, "2026-02", NULL, NULL},
    /* partial instants take their whole range */
    {DDBST_SK_GT, "2026-02", NULL, NULL},
    {DDBST_SK_LTE, "2026-01-03", NULL, NULL},
    {DDBST_SK_BETWEEN, "2026-01-02", "2026-02", NULL},
};
enum { NTIME = sizeof time_conds / sizeof *time_conds };

/* Reads `pattern` for each user (and sender) with each condition, and
 * compares with the oracle; each item must have exactly `attributes`
 * (NULL: not checked). */
static void check(const char *pattern, int by_from, int unread, int on,
                  const cond *conds, size_t nconds, int desc, int flags,
                  const char *attributes) {
  itest_fixture *f = fixture;
  for (int u = 0; u < NUSERS; u++)
    for (int s = by_from ? 0 : -1; s < (by_from ? NSENDERS : 0); s++)
      for (size_t c = 0; c < nconds; c++) {
        char uid[32], user[8], from[64], want[4096], what[256];
        snprintf(user, sizeof user, "u%d", u + 1);
        snprintf(uid, sizeof uid, "userId=%s", user);
        if (s >= 0) {
          /* a sender as another writer typed it: the same key */
          snprintf(from, sizeof from, "sender=%s",
                   s == 1 ? "BOB@example.com" : senders[s]);
          ITEST_VALUES(f, "Message", uid, from);
        } else {
          ITEST_VALUES(f, "Message", uid);
        }
        ddbst_query q = query_of(
            f, on == ON_TIME ? "receivedAt" : "sender", &conds[c]);
        q.flags = (uint32_t)flags;
        yajl_val items = itest_query_cursors(f, pattern, &q, f->keys);
        if (flags)
          assert_non_null(
              strstr(ddbst_buf_data(f->body), "\"ConsistentRead\":true"));
        oracle(user, s, unread, on, &conds[c], desc, want, sizeof want);
        snprintf(what, sizeof what, "%s of %s from %s, condition %zu",
                 pattern, user, s >= 0 ? senders[s] : "anyone", c);
        itest_expect(f, items, "SK", want, what);
        for (size_t i = 0; i < items->u.array.len; i++) {
          yajl_val it = items->u.array.values[i];
          char pk[16];
          snprintf(pk, sizeof pk, "USER#%s", user);
          itest_expect_s(it, "PK", pk);
          if (attributes) itest_expect_attributes(f, it, attributes);
        }
      }
}

static void inbox(void **state) {
  (void)state;
  check("inbox", 0, 0, ON_TIME, time_conds, NTIME, 1, 0, NULL);
  /* every attribute, LSI2SK only while unread */
  itest_fixture *f = fixture;
  ITEST_VALUES(f, "Message", "userId=u3");
  yajl_val items = itest_query(f, "inbox", NULL);
  assert_int_equal(items->u.array.len, NMSG);
  for (size_t i = 0; i < items->u.array.len; i++) {
    yajl_val it = items->u.array.values[i];
    int unread = itest_s(it, "LSI2SK") != NULL;
    const char *path[] = {"unread", "BOOL", NULL};
    yajl_val flag = yajl_tree_get(it, path, yajl_t_any);
    assert_non_null(flag);
    assert_int_equal(unread, YAJL_IS_TRUE(flag));
    itest_expect_attributes(
        f, it,
        unread ? "PK SK LSI1SK LSI2SK _type userId messageId receivedAt "
                 "sender subject unread bodyKey"
               : "PK SK LSI1SK _type userId messageId receivedAt sender "
                 "subject unread bodyKey");
  }
}

static void from_sender(void **state) {
  (void)state;
  check("fromSender", 1, 0, ON_TIME, time_conds, NTIME, 1, 0,
        "PK SK LSI1SK subject receivedAt");
}

static void senders_in_order(void **state) {
  (void)state;
  static const cond conds[] = {
      {DDBST_SK_NONE, NULL, NULL, NULL},
      {DDBST_SK_GTE, "bob@example.com", NULL, NULL},
      /* every item with exactly that value is out; bounds are normalised */
      {DDBST_SK_GT, "BOB@Example.com", NULL, "bob@example.com"},
      {DDBST_SK_BEGINS, "ＢＯＢ", NULL, "bob"},
      {DDBST_SK_LT, "carol@example.com", NULL, NULL},
      {DDBST_SK_LTE, "bob!ops@example.com", NULL, NULL},
      {DDBST_SK_BETWEEN, "alice@example.com", "bob@example.com", NULL},
      {DDBST_SK_BEGINS, "bob", NULL, NULL},
      {DDBST_SK_BEGINS, "bob!", NULL, NULL},
  };
  check("senders", 0, 0, ON_SENDER, conds, sizeof conds / sizeof *conds, 0, 0,
        "PK SK LSI1SK subject receivedAt");
}

static void unread_consistent(void **state) {
  (void)state;
  check("unread", 0, 1, ON_TIME, time_conds, NTIME, 0, DDBST_CONSISTENT_READ,
        "PK SK LSI2SK");
}

/* Marking a message read is an UpdateItem that REMOVEs LSI2SK (the "when"
 * stops holding) and keeps every other key; a consistent read of Unread
 * right after no longer has it. */
static void marking_read_leaves_unread(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  message *m = &messages[NMSG]; /* u2's */
  while (!m->unread) m++;
  char id[48], at[48];
  snprintf(id, sizeof id, "messageId=%s", m->id);
  snprintf(at, sizeof at, "receivedAt=%s", m->received);
  ITEST_VALUES(f, "Message", "userId=u2", id, at, "unread=false");
  itest_ok(f, ddbst_update_request(f->item, 0, ITEST_NOW_US, itest_body(f),
                                   &f->err));
  if (!strstr(ddbst_buf_data(f->body), "REMOVE"))
    fail_msg("no REMOVE in %s", ddbst_buf_data(f->body));
  m->unread = 0;
  ITEST_VALUES(f, "Message", "userId=u2", id, at);
  yajl_val item = itest_get(f);
  assert_non_null(item);
  itest_expect_s(item, "PK", "USER#u2");
  itest_expect_s(item, "LSI2SK", NULL);
  assert_non_null(itest_s(item, "LSI1SK"));
  check("unread", 0, 1, ON_TIME, time_conds, 1, 0, DDBST_CONSISTENT_READ,
        "PK SK LSI2SK");
  check("inbox", 0, 0, ON_TIME, time_conds, 1, 1, 0, NULL);
}

static void cursors_bound(void **state) {
  (void)state;
  itest_fixture *f = fixture;
  ddbst_buf *cursor = ddbst_buf_new(NULL);
  ITEST_VALUES(f, "Message", "userId=u1");
  ddbst_query q;
  memset(&q, 0, sizeof q);
  q.size = sizeof q;
  q.limit = 2;
  itest_first_cursor(f, "senders", &q, 2, cursor);
  /* another user's partition; the other patterns of the same partition,
   * on the other local index, this one and the table, are named */
  ITEST_VALUES(f, "Message", "userId=u2");
  itest_cursor_refused(f, "senders", cursor, ITEST_MSG_NO_OPEN);
  ITEST_VALUES(f, "Message", "userId=u1");
  itest_cursor_refused(f, "unread", cursor,
                       ITEST_MSG_MADE_FOR("senders", "unread"));
  itest_cursor_refused(f, "inbox", cursor,
                       ITEST_MSG_MADE_FOR("senders", "inbox"));
  ITEST_VALUES(f, "Message", "userId=u1", "sender=alice@example.com");
  itest_cursor_refused(f, "fromSender", cursor,
                       ITEST_MSG_MADE_FOR("senders", "fromSender"));
  ddbst_buf_free(cursor);
}

int main(void) {
  if (itest_should_skip("test_mailbox")) return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(inbox),
      cmocka_unit_test(from_sender),
      cmocka_unit_test(senders_in_order),
      cmocka_unit_test(unread_consistent),
      cmocka_unit_test(marking_read_leaves_unread),
      cmocka_unit_test(cursors_bound),
  };
  return cmocka_run_group_tests(tests, write_items, itest_teardown);
}
