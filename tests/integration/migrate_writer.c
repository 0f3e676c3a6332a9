/* The service of the migration proof: a second process that writes,
 * updates and deletes items under the NEW model while the driver migrates
 * the table, by the writer protocol of ddbst_migration (include/ddbst.h):
 * an order (whose key moves) is put and deleted through
 * ddbst_migration_write_request, which takes care of its old key, and
 * updated in place, or — when it is still under its old key — read there
 * and put whole; accounts and tickets (whose keys stay) by the new model's
 * own requests. Every write DynamoDB accepted is one line of its log
 * (migrate_data.h), flushed at once; it stops at SIGTERM, after the write
 * under way. */
#define _POSIX_C_SOURCE 200809L
#include "migrate_writer.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "migrate_data.h"

static volatile sig_atomic_t stopping;
static void on_term(int sig) {
  (void)sig;
  stopping = 1;
}

typedef struct writer {
  itest_client *client;
  ddbst_model *old_model, *new_model;
  ddbst_migration *m;
  mig_store *store;
  ddbst_item *item, *old_item;
  ddbst_page *page;
  ddbst_buf *body, *values;
  FILE *log;
  uint64_t rng;
  int created;
  long writes, old_key, retried; /* old_key: updates made under the old key */
  ddbst_error err;
} writer;

static uint32_t rnd(writer *w, uint32_t n) {
  w->rng ^= w->rng << 13, w->rng ^= w->rng >> 7, w->rng ^= w->rng << 17;
  return (uint32_t)(w->rng % n);
}

static int fail(writer *w, const char *doing, int rc) {
  fprintf(stderr, "writer: %s: %s: %s: %s\n", doing, ddbst_strerror(rc),
          w->err.path, w->err.message);
  return -1;
}

/* Sends w->body (a builder's `op`): the HTTP status; retried while
 * DynamoDB says it may be (a transaction conflict with the pass). */
static long send(writer *w, int op) {
  for (int attempt = 0;; attempt++) {
    long status = itest_client_send(w->client, ddbst_operation_name(op),
                                    ddbst_buf_data(w->body),
                                    ddbst_buf_len(w->body));
    if (status == 200 || status < 0) return status;
    const char *answer = itest_client_body(w->client);
    int parsed = ddbst_page_parse_error(w->page, answer, strlen(answer),
                                        NULL) > 0;
    /* a 5xx is the service's failure whatever its type (DynamoDB Local's
     * InternalFailure is no type ddbst_page_error_retryable knows) */
    if ((status < 500 && !(parsed && ddbst_page_error_retryable(w->page))) ||
        attempt == 20)
      return status;
    w->retried++;
    struct timespec ts = {0, 20L * 1000 * 1000 << (attempt < 4 ? attempt : 4)};
    nanosleep(&ts, NULL);
  }
}

static int must(writer *w, long status, const char *doing) {
  if (status == 200) return 0;
  fprintf(stderr, "writer: %s: HTTP %ld: %.400s\nrequest: %.400s\n", doing,
          status, itest_client_body(w->client), ddbst_buf_data(w->body));
  return -1;
}

/* The log line of a write DynamoDB accepted, and the writer's store. */
static int logged(writer *w, char op, const ddbst_item *item,
                  const char *removed) {
  if (mig_values_json(w->new_model, item, w->values)) return -1;
  char line[2300];
  snprintf(line, sizeof line, "%c %s %s%s%s\n", op,
           ddbst_model_entity_name(w->new_model, ddbst_item_entity(item)),
           ddbst_buf_data(w->values), removed ? " -" : "",
           removed ? removed : "");
  fputs(line, w->log);
  fflush(w->log);
  char why[512];
  if (mig_store_apply(w->store, line, why, sizeof why)) {
    fprintf(stderr, "writer: %s\n", why);
    return -1;
  }
  w->writes++;
  return 0;
}

/* A live record of `entity`, or NULL (rarely: none found quickly). */
static mig_record *pick(writer *w, const char *entity) {
  int e = ddbst_model_entity(w->new_model, entity);
  size_t n = mig_store_count(w->store);
  for (int tries = 0; tries < 200; tries++) {
    mig_record *r = mig_store_record(w->store, rnd(w, (uint32_t)n));
    if (r->live && r->entity == e) return r;
  }
  return NULL;
}

/* w->item: a NEW item of `r`'s entity holding `r`'s values named. */
static int values_of(writer *w, const mig_record *r, const char *const *names) {
  ddbst_item_reset(w->item, r->entity);
  for (; *names; names++) {
    const char *text;
    size_t len;
    if (ddbst_item_get_by_name(r->item, *names, &text, &len) != 1) continue;
    int rc = ddbst_item_set_by_name(w->item, *names, text, len, &w->err);
    if (rc) return fail(w, *names, rc);
  }
  return 0;
}

static int set(writer *w, ddbst_item *item, const char *name,
               const char *value) {
  int rc = ddbst_item_set_by_name(item, name, value, strlen(value), &w->err);
  return rc ? fail(w, name, rc) : 0;
}

/* ---- orders: their key moves ---- */

static int create_order(writer *w) {
  char id[32], at[40], total[16];
  snprintf(id, sizeof id, "w%06d", w->created++);
  snprintf(at, sizeof at, "2026-02-%02uT%02u:%02u:%02u.%03uZ", 1 + rnd(w, 28),
           rnd(w, 24), rnd(w, 60), rnd(w, 60), rnd(w, 1000));
  snprintf(total, sizeof total, "%u", 1 + rnd(w, 999));
  char account[16];
  snprintf(account, sizeof account, "a%04u", rnd(w, (uint32_t)mig_accounts()));
  ddbst_item_reset(w->item, ddbst_model_entity(w->new_model, "Order"));
  if (set(w, w->item, "accountId", account) || set(w, w->item, "orderId", id) ||
      set(w, w->item, "placedAt", at) || set(w, w->item, "status", "open") ||
      set(w, w->item, "total", total))
    return -1;
  int op = ddbst_migration_write_request(w->m, w->item, DDBST_OP_PUT_ITEM,
                                         DDBST_CREATE, ddbst_now_unix_us(),
                                         w->body, &w->err);
  if (op < 0) return fail(w, "an order's create", op);
  if (must(w, send(w, op), "an order's create")) return -1;
  return logged(w, 'P', w->item, NULL);
}

static const char *const order_key[] = {"accountId", "placedAt", "orderId",
                                        NULL};

/* Sets the change of an order's update on `item` (of either model). */
static int order_change(writer *w, ddbst_item *item, int change_status,
                        const char *value) {
  return set(w, item, change_status ? "status" : "total", value);
}

/* An update of an order by the protocol: the NEW model's update of its new
 * key; refused while it is still under its old key, then the OLD model's
 * update there (the pass carries it over); refused again when the pass
 * moved it in between, then the new key again. */
static int update_order(writer *w) {
  static const char *const statuses[] = {"open", "shipped", "cancelled"};
  mig_record *r = pick(w, "Order");
  if (!r) return 0;
  char total[16];
  snprintf(total, sizeof total, "%u", 1 + rnd(w, 999));
  int change_status = (int)rnd(w, 2);
  const char *value = change_status ? statuses[rnd(w, 3)] : total;
  for (int attempt = 0; attempt < 10; attempt++) {
    if (values_of(w, r, order_key) ||
        order_change(w, w->item, change_status, value))
      return -1;
    int op = ddbst_update_request(w->item, 0, ddbst_now_unix_us(), w->body,
                                  &w->err);
    if (op < 0) return fail(w, "an order's update", op);
    long status = send(w, op);
    if (status == 200) return logged(w, 'U', w->item, NULL);
    if (ddbst_page_error_kind(w->page) != DDBST_DDB_CONDITIONAL_CHECK_FAILED)
      return must(w, status, "an order's update");
    /* not under its new key yet: the same update under the old one */
    w->old_key++;
    ddbst_item_reset(w->old_item, ddbst_model_entity(w->old_model, "Order"));
    for (const char *const *k = order_key; *k; k++) {
      const char *text;
      size_t len;
      ddbst_item_get_by_name(r->item, *k, &text, &len);
      int rc = ddbst_item_set_by_name(w->old_item, *k, text, len, &w->err);
      if (rc) return fail(w, *k, rc);
    }
    if (order_change(w, w->old_item, change_status, value)) return -1;
    op = ddbst_update_request(w->old_item, 0, ddbst_now_unix_us(), w->body,
                              &w->err);
    if (op < 0) return fail(w, "an order's update under its old key", op);
    status = send(w, op);
    if (status == 200) return logged(w, 'U', w->item, NULL);
    if (ddbst_page_error_kind(w->page) != DDBST_DDB_CONDITIONAL_CHECK_FAILED)
      return must(w, status, "an order's update under its old key");
    /* the pass moved it in between: the new key again */
  }
  fprintf(stderr, "writer: %s: never settled\n", r->id);
  return -1;
}

/* A replacing put of a whole order (a new total): the protocol's Put of
 * the new key and Delete of the old one, in one transaction. */
static int replace_order(writer *w) {
  static const char *const all[] = {"accountId", "orderId", "placedAt",
                                    "status", "total", NULL};
  mig_record *r = pick(w, "Order");
  if (!r) return 0;
  char total[16];
  snprintf(total, sizeof total, "%u", 1 + rnd(w, 999));
  if (values_of(w, r, all) || set(w, w->item, "total", total)) return -1;
  int op = ddbst_migration_write_request(w->m, w->item, DDBST_OP_PUT_ITEM, 0,
                                         ddbst_now_unix_us(), w->body, &w->err);
  if (op < 0) return fail(w, "an order's replace", op);
  if (must(w, send(w, op), "an order's replace")) return -1;
  return logged(w, 'P', w->item, NULL);
}

static int delete_order(writer *w) {
  mig_record *r = pick(w, "Order");
  if (!r) return 0;
  if (values_of(w, r, order_key)) return -1;
  int op = ddbst_migration_write_request(w->m, w->item, DDBST_OP_DELETE_ITEM,
                                         0, 0, w->body, &w->err);
  if (op < 0) return fail(w, "an order's delete", op);
  if (must(w, send(w, op), "an order's delete")) return -1;
  return logged(w, 'D', w->item, NULL);
}

/* ---- tickets and accounts: keys that stay ---- */

static int create_ticket(writer *w) {
  char id[32], at[40], agent[16], account[16];
  snprintf(id, sizeof id, "w%06d", w->created++);
  snprintf(at, sizeof at, "2026-02-%02uT%02u:%02u:%02uZ", 1 + rnd(w, 28),
           rnd(w, 24), rnd(w, 60), rnd(w, 60));
  snprintf(agent, sizeof agent, "agent%02u", rnd(w, 40));
  snprintf(account, sizeof account, "a%04u", rnd(w, (uint32_t)mig_accounts()));
  ddbst_item_reset(w->item, ddbst_model_entity(w->new_model, "Ticket"));
  if (set(w, w->item, "accountId", account) ||
      set(w, w->item, "ticketId", id) || set(w, w->item, "openedAt", at) ||
      set(w, w->item, "priority", rnd(w, 2) ? "high" : "low") ||
      set(w, w->item, "status", "open") ||
      (rnd(w, 3) && set(w, w->item, "assignee", agent)) ||
      set(w, w->item, "subject", "written during the migration"))
    return -1;
  int op = ddbst_put_request(w->item, DDBST_CREATE, ddbst_now_unix_us(),
                             w->body, &w->err);
  if (op < 0) return fail(w, "a ticket's create", op);
  if (must(w, send(w, op), "a ticket's create")) return -1;
  return logged(w, 'P', w->item, NULL);
}

/* Assigns, closes or reopens a ticket: GSI3 (open tickets by assignee)
 * gains or loses it; the update is given every facet GSI3 reads. */
static int update_ticket(writer *w) {
  static const char *const key[] = {"accountId", "ticketId", "assignee",
                                    "status", NULL};
  mig_record *r = pick(w, "Ticket");
  if (!r) return 0;
  if (values_of(w, r, key)) return -1;
  const char *removed = NULL;
  int attr = ddbst_model_attribute(w->new_model, r->entity, "assignee");
  switch (rnd(w, 4)) {
  case 0: {
    char agent[16];
    snprintf(agent, sizeof agent, "agent%02u", rnd(w, 40));
    if (set(w, w->item, "assignee", agent)) return -1;
    break;
  }
  case 1:
    if (set(w, w->item, "status", "closed")) return -1;
    break;
  case 2:
    if (set(w, w->item, "status", "open")) return -1;
    break;
  default: /* unassigned: it leaves GSI3 */
    ddbst_item_unset(w->item, attr);
    ddbst_item_remove(w->item, attr);
    removed = "assignee";
    break;
  }
  if (!removed && ddbst_item_get(w->item, attr, NULL, NULL) != 1) {
    ddbst_item_remove(w->item, attr); /* it has none: say so */
    removed = "assignee";
  }
  int op = ddbst_update_request(w->item, 0, ddbst_now_unix_us(), w->body,
                                &w->err);
  if (op < 0) return fail(w, "a ticket's update", op);
  if (must(w, send(w, op), "a ticket's update")) return -1;
  return logged(w, 'U', w->item, removed);
}

static int delete_ticket(writer *w) {
  static const char *const key[] = {"accountId", "ticketId", NULL};
  mig_record *r = pick(w, "Ticket");
  if (!r || values_of(w, r, key)) return r ? -1 : 0;
  int op = ddbst_delete_request(w->item, 0, w->body, &w->err);
  if (op < 0) return fail(w, "a ticket's delete", op);
  if (must(w, send(w, op), "a ticket's delete")) return -1;
  return logged(w, 'D', w->item, NULL);
}

static int update_account(writer *w) {
  static const char *const key[] = {"accountId", NULL};
  static const char *const plans[] = {"free", "team", "enterprise"};
  mig_record *r = pick(w, "Account");
  if (!r || values_of(w, r, key)) return r ? -1 : 0;
  if (set(w, w->item, "plan", plans[rnd(w, 3)])) return -1;
  int op = ddbst_update_request(w->item, 0, ddbst_now_unix_us(), w->body,
                                &w->err);
  if (op < 0) return fail(w, "an account's update", op);
  if (must(w, send(w, op), "an account's update")) return -1;
  return logged(w, 'U', w->item, NULL);
}

static int create_account(writer *w) {
  char id[32];
  snprintf(id, sizeof id, "w%06d", w->created++);
  ddbst_item_reset(w->item, ddbst_model_entity(w->new_model, "Account"));
  if (set(w, w->item, "accountId", id) ||
      set(w, w->item, "name", "an account of the new model") ||
      set(w, w->item, "plan", "team"))
    return -1;
  int op = ddbst_put_request(w->item, DDBST_CREATE, ddbst_now_unix_us(),
                             w->body, &w->err);
  if (op < 0) return fail(w, "an account's create", op);
  if (must(w, send(w, op), "an account's create")) return -1;
  return logged(w, 'P', w->item, NULL); /* its region: the default */
}

static int one_write(writer *w) {
  uint32_t dice = rnd(w, 100);
  if (dice < 15) return create_order(w);
  if (dice < 35) return update_order(w);
  if (dice < 45) return replace_order(w);
  if (dice < 55) return delete_order(w);
  if (dice < 65) return create_ticket(w);
  if (dice < 85) return update_ticket(w);
  if (dice < 90) return delete_ticket(w);
  if (dice < 97) return update_account(w);
  return create_account(w);
}

int mig_writer_main(const char *table, const char *log_path, uint64_t seed) {
  writer w = {.rng = seed | 1};
  char why[256];
  struct sigaction sa = {0};
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  ddbst_load_options o = {.size = sizeof o, .table_name = table};
  int rc = ddbst_model_load_file(MIG_OLD_MODEL, &o, &w.old_model, &w.err);
  if (!rc) rc = ddbst_model_load_file(MIG_NEW_MODEL, &o, &w.new_model, &w.err);
  if (!rc) rc = ddbst_migration_new(w.old_model, w.new_model, 0, &w.m, &w.err);
  if (rc) return fail(&w, "loading", rc), 1;
  w.client = itest_client_new(why, sizeof why);
  w.store = mig_store_new(w.new_model, mig_accounts());
  w.item = ddbst_item_new(w.new_model, 0);
  w.old_item = ddbst_item_new(w.old_model, 0);
  w.page = ddbst_page_new(w.new_model);
  w.body = ddbst_buf_new(NULL), w.values = ddbst_buf_new(NULL);
  w.log = fopen(log_path, "w");
  if (!w.client || !w.store || !w.item || !w.old_item || !w.page || !w.body ||
      !w.values || !w.log) {
    fprintf(stderr, "writer: cannot start: %s\n", w.client ? log_path : why);
    return 1;
  }
  rc = 0;
  while (!stopping && !rc) rc = one_write(&w);
  fprintf(stderr,
          "writer: %ld writes (%ld order updates tried under the old key, %ld "
          "requests sent again)\n",
          w.writes, w.old_key, w.retried);
  fclose(w.log);
  ddbst_buf_free(w.values);
  ddbst_buf_free(w.body);
  ddbst_page_free(w.page);
  ddbst_item_free(w.old_item);
  ddbst_item_free(w.item);
  mig_store_free(w.store);
  itest_client_free(w.client);
  ddbst_migration_free(w.m);
  ddbst_model_free(w.new_model);
  ddbst_model_free(w.old_model);
  return rc ? 1 : 0;
}
