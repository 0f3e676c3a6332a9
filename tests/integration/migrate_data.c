/* The proof's initial items and the store that replays the writer's log.
 * Values are spread so that every change of the migration has items to
 * work on: orders in each status (the GSI1 rewrite), tickets open and
 * closed, with and without an assignee (the sparse GSI3), of each
 * priority (GSI2, removed), accounts of each plan (the region default). */
#include "migrate_data.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_SLOTS (1u << 17) /* open addressing: 25,000 ids, half full at most */

struct mig_store {
  const ddbst_model *model;
  mig_record *records;
  size_t count, cap;
  uint32_t *slots; /* record index + 1, 0 empty */
};

int mig_accounts(void) {
  const char *env = getenv("DDBST_MIGRATE_ACCOUNTS");
  if (env && atoi(env) > 0) return atoi(env);
#if defined(__SANITIZE_ADDRESS__)
  return 100;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return 100;
#endif
#endif
  return 500;
}

static const char *const plans[] = {"free", "team", "enterprise"};
static const char *const order_status[] = {"open", "shipped", "cancelled"};

const char *mig_initial(int n, char *json, size_t cap) {
  int a = n / MIG_PER_ACCOUNT, k = n % MIG_PER_ACCOUNT;
  if (k == 0) {
    snprintf(json, cap,
             "{\"accountId\":\"a%04d\",\"name\":\"Account %d\","
             "\"plan\":\"%s\"}",
             a, a, plans[a % 3]);
    return "Account";
  }
  if (k <= MIG_ORDERS) {
    int j = k - 1;
    /* a second apart within an account, accounts a minute apart */
    long t = (long)a * 60 + j;
    snprintf(json, cap,
             "{\"accountId\":\"a%04d\",\"orderId\":\"o%04d-%02d\","
             "\"placedAt\":\"2026-01-%02ldT%02ld:%02ld:%02ldZ\","
             "\"status\":\"%s\",\"total\":\"%d\"}",
             a, a, j, 1 + t / 86400, t / 3600 % 24, t / 60 % 60, t % 60,
             order_status[(a + j) % 3], (a * 7 + j * 13) % 1000 + 1);
    return "Order";
  }
  int j = k - 1 - MIG_ORDERS;
  long t = (long)a * 97 + j * 3;
  char assignee[40] = "";
  if (j % 4) snprintf(assignee, sizeof assignee, ",\"assignee\":\"agent%02d\"",
                      (a + j) % 40);
  snprintf(json, cap,
           "{\"accountId\":\"a%04d\",\"ticketId\":\"t%04d-%02d\","
           "\"openedAt\":\"2025-12-%02ldT%02ld:%02ld:%02ldZ\","
           "\"priority\":\"%s\",\"status\":\"%s\"%s,"
           "\"subject\":\"Ticket %d of account %d\"}",
           a, a, j, 1 + t / 86400, t / 3600 % 24, t / 60 % 60, t % 60,
           (a + j) % 2 ? "high" : "low", j % 3 ? "open" : "closed", assignee,
           j, a);
  return "Ticket";
}

/* ---- identity ---- */

static const char *id_attribute(const char *entity) {
  if (!strcmp(entity, "Account")) return "accountId";
  if (!strcmp(entity, "Order")) return "orderId";
  return "ticketId";
}

int mig_identity(const ddbst_model *m, const ddbst_item *item, char *out,
                 size_t cap) {
  const char *entity = ddbst_model_entity_name(m, ddbst_item_entity(item));
  const char *text;
  size_t len;
  if (!entity ||
      ddbst_item_get_by_name(item, id_attribute(entity), &text, &len) != 1)
    return -1;
  int w = snprintf(out, cap, "%s/%s", entity, text);
  return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* ---- the store ---- */

static uint32_t hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

mig_record *mig_store_find(mig_store *s, const char *id) {
  for (uint32_t i = hash(id) & (STORE_SLOTS - 1);; i = (i + 1) & (STORE_SLOTS - 1)) {
    if (!s->slots[i]) return NULL;
    mig_record *r = &s->records[s->slots[i] - 1];
    if (!strcmp(r->id, id)) return r;
  }
}

/* The record of `id`, added (not live, no values) when new. */
static mig_record *find_or_add(mig_store *s, const char *id, int entity) {
  uint32_t i = hash(id) & (STORE_SLOTS - 1);
  for (; s->slots[i]; i = (i + 1) & (STORE_SLOTS - 1)) {
    mig_record *r = &s->records[s->slots[i] - 1];
    if (!strcmp(r->id, id)) return r;
  }
  if (s->count * 2 >= STORE_SLOTS) return NULL;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4096;
    mig_record *grown = realloc(s->records, cap * sizeof *grown);
    if (!grown) return NULL;
    s->records = grown, s->cap = cap;
  }
  mig_record *r = &s->records[s->count];
  memset(r, 0, sizeof *r);
  snprintf(r->id, sizeof r->id, "%s", id);
  r->entity = entity;
  r->item = ddbst_item_new(s->model, entity);
  if (!r->item) return NULL;
  s->slots[i] = (uint32_t)++s->count;
  return r;
}

size_t mig_store_count(const mig_store *s) { return s->count; }
mig_record *mig_store_record(mig_store *s, size_t i) {
  return i < s->count ? &s->records[i] : NULL;
}

void mig_store_free(mig_store *s) {
  if (!s) return;
  for (size_t i = 0; i < s->count; i++) ddbst_item_free(s->records[i].item);
  free(s->records);
  free(s->slots);
  free(s);
}

/* Sets the values of `json` on a fresh or existing item: the record. */
static int put_values(mig_store *s, const char *entity, const char *json,
                      int replace, char *why, size_t n) {
  ddbst_error err;
  int e = ddbst_model_entity(s->model, entity);
  if (e < 0) return snprintf(why, n, "no entity %s", entity), -1;
  ddbst_item *scratch = ddbst_item_new(s->model, e);
  if (!scratch) return snprintf(why, n, "out of memory"), -1;
  char id[48];
  int rc = ddbst_item_set_json(scratch, json, strlen(json), &err);
  if (rc || mig_identity(s->model, scratch, id, sizeof id)) {
    snprintf(why, n, "%s %s: %s", entity, json, rc ? err.message : "no id");
    ddbst_item_free(scratch);
    return -1;
  }
  ddbst_item_free(scratch);
  mig_record *r = find_or_add(s, id, e);
  if (!r) return snprintf(why, n, "out of memory"), -1;
  if (!replace && !r->live)
    return snprintf(why, n, "an update of %s, which is not there", id), -1;
  if (replace) ddbst_item_reset(r->item, e);
  rc = ddbst_item_set_json(r->item, json, strlen(json), &err);
  if (rc) return snprintf(why, n, "%s: %s", id, err.message), -1;
  r->live = 1;
  return 0;
}

mig_store *mig_store_new(const ddbst_model *new_model, int accounts) {
  mig_store *s = calloc(1, sizeof *s);
  if (!s || !(s->slots = calloc(STORE_SLOTS, sizeof *s->slots))) {
    free(s);
    return NULL;
  }
  s->model = new_model;
  char json[512], why[512];
  for (int i = 0; i < accounts * MIG_PER_ACCOUNT; i++) {
    const char *entity = mig_initial(i, json, sizeof json);
    if (put_values(s, entity, json, 1, why, sizeof why)) {
      fprintf(stderr, "mig_store_new: %s\n", why);
      mig_store_free(s);
      return NULL;
    }
  }
  return s;
}

int mig_store_apply(mig_store *s, const char *line, char *why, size_t n) {
  char op, entity[32];
  int at = 0;
  if (sscanf(line, "%c %31s %n", &op, entity, &at) != 2 || !at)
    return snprintf(why, n, "not a log line: %s", line), -1;
  const char *json = line + at;
  const char *end = strrchr(json, '}');
  if (*json != '{' || !end)
    return snprintf(why, n, "no values: %s", line), -1;
  char values[2048];
  size_t len = (size_t)(end - json + 1);
  if (len >= sizeof values) return snprintf(why, n, "too long: %s", line), -1;
  memcpy(values, json, len);
  values[len] = '\0';
  if (op == 'P') return put_values(s, entity, values, 1, why, n);
  if (op == 'U') {
    if (put_values(s, entity, values, 0, why, n)) return -1;
    /* the attributes removed: " -name" after the values */
    mig_record *r = NULL;
    ddbst_item *scratch =
        ddbst_item_new(s->model, ddbst_model_entity(s->model, entity));
    char id[48];
    if (scratch && !ddbst_item_set_json(scratch, values, len, NULL) &&
        !mig_identity(s->model, scratch, id, sizeof id))
      r = mig_store_find(s, id);
    ddbst_item_free(scratch);
    if (!r) return snprintf(why, n, "lost: %s", line), -1;
    for (const char *p = end + 1; (p = strstr(p, " -")) != NULL;) {
      p += 2;
      char name[64];
      size_t k = strcspn(p, " \n");
      if (k >= sizeof name) return snprintf(why, n, "bad: %s", line), -1;
      memcpy(name, p, k);
      name[k] = '\0';
      int attr = ddbst_model_attribute(s->model, r->entity, name);
      if (attr < 0) return snprintf(why, n, "no attribute %s: %s", name, line), -1;
      ddbst_item_unset(r->item, attr);
    }
    return 0;
  }
  if (op == 'D') {
    ddbst_item *scratch =
        ddbst_item_new(s->model, ddbst_model_entity(s->model, entity));
    char id[48];
    mig_record *r = NULL;
    if (scratch && !ddbst_item_set_json(scratch, values, len, NULL) &&
        !mig_identity(s->model, scratch, id, sizeof id))
      r = mig_store_find(s, id);
    ddbst_item_free(scratch);
    if (!r || !r->live)
      return snprintf(why, n, "a delete of what is not there: %s", line), -1;
    r->live = 0;
    return 0;
  }
  return snprintf(why, n, "unknown operation: %s", line), -1;
}

int mig_values_json(const ddbst_model *m, const ddbst_item *item,
                    ddbst_buf *out) {
  ddbst_buf_reset(out);
  int rc = ddbst_buf_append(out, "{", 1);
  int e = ddbst_item_entity(item), n = ddbst_model_attribute_count(m, e);
  const char *sep = "";
  for (int a = 0; !rc && a < n; a++) {
    const char *text, *name = ddbst_model_attribute_name(m, e, a);
    size_t len;
    if (ddbst_item_get(item, a, &text, &len) != 1) continue;
    rc = ddbst_buf_append(out, sep, DDBST_NUL_TERMINATED);
    if (!rc) rc = ddbst_buf_append_json_string(out, name, strlen(name));
    if (!rc) rc = ddbst_buf_append(out, ":", 1);
    if (!rc) rc = ddbst_buf_append_json_string(out, text, len);
    sep = ",";
  }
  if (!rc) rc = ddbst_buf_append(out, "}", 1);
  return rc;
}
