/* table.<setting> and a global index's own settings: read, checked against
 * the limits DynamoDB documents, and kept for CreateTable, its follow-up
 * requests and CloudFormation (table_settings.h). Also the table's name,
 * which may be given as the table's ARN. */
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "model/facet.h"
#include "model/table_settings.h"

int ddbst__is_table_name(const char *s) {
  size_t n = strlen(s);
  if (n < 3 || n > 255) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
      return 0;
  }
  return 1;
}

/* The text up to the next ':' (of [a-z0-9-], 1 to 63 bytes), or NULL. */
static const char *arn_part(const char *p, int digits_only, size_t *n) {
  size_t i = 0;
  while (p[i] && p[i] != ':') {
    char c = p[i];
    int ok = (c >= '0' && c <= '9') ||
             (!digits_only && ((c >= 'a' && c <= 'z') || c == '-'));
    if (!ok || ++i > 63) return NULL;
  }
  if (!i || p[i] != ':') return NULL;
  *n = i;
  return p + i + 1;
}

const char *ddbst__table_name_part(const char *s) {
  if (strncmp(s, "arn:", 4) != 0) return ddbst__is_table_name(s) ? s : NULL;
  size_t n;
  const char *p = arn_part(s + 4, 0, &n); /* partition: aws, aws-cn, ... */
  if (!p || strncmp(s + 4, "aws", 3) != 0 || (n > 3 && s[7] != '-'))
    return NULL;
  if (strncmp(p, "dynamodb:", 9) != 0) return NULL;
  p = arn_part(p + 9, 0, &n); /* region */
  if (!p) return NULL;
  const char *account = p;
  p = arn_part(p, 1, &n);
  if (!p || n != 12 || account[0] == ':') return NULL;
  if (strncmp(p, "table/", 6) != 0) return NULL;
  /* a plain name follows: an index's or a stream's ARN is not a table's */
  return ddbst__is_table_name(p + 6) ? p + 6 : NULL;
}

/* A whole number member of `obj` from 1 to `max`; 0 when absent or
 * refused (reported). */
static int64_t whole(ddbst__loader *L, const ddbst__jnode *obj,
                     const char *field, int64_t max) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, field);
  if (!v) return 0;
  int64_t x = 0;
  if (v->type != DDBST__J_NUMBER || ddbst__int_parse(v->text, v->len, &x) ||
      x < 1 || x > max) {
    ddbst__load_report_field(L, field, v,
                             "expected a whole number from 1 to %lld",
                             (long long)max);
    return 0;
  }
  return x;
}

/* Capacity figures DynamoDB takes as a Long; kept to what JSON numbers
 * hold exactly everywhere (2^53 - 1). */
#define MAX_UNITS 9007199254740991LL

/* {"<read>": n, "<write>": n}, at least one of them. */
static void throughput(ddbst__loader *L, const ddbst__jnode *obj,
                       const char *field, const char *read,
                       const char *write, ddbst__throughput *out) {
  const ddbst__jnode *n = ddbst__jobj_get(obj, field);
  if (!n) return;
  size_t old = ddbst__load_push(L, field);
  if (ddbst__load_expect(L, n, DDBST__J_OBJECT, "an object")) {
    const char *fields[] = {read, write, NULL};
    ddbst__load_check_fields(L, n, fields);
    out->read = whole(L, n, read, MAX_UNITS);
    out->write = whole(L, n, write, MAX_UNITS);
    if (!ddbst__jobj_get(n, read) && !ddbst__jobj_get(n, write))
      ddbst__load_report(L, n, "give %s, %s or both", read, write);
  }
  ddbst__load_pop(L, old);
}

static void on_demand(ddbst__loader *L, const ddbst__jnode *obj,
                      ddbst__throughput *out) {
  throughput(L, obj, "onDemandThroughput", "maxReadRequestUnits",
             "maxWriteRequestUnits", out);
}

static void warm(ddbst__loader *L, const ddbst__jnode *obj,
                 ddbst__throughput *out) {
  throughput(L, obj, "warmThroughput", "readUnitsPerSecond",
             "writeUnitsPerSecond", out);
}

/* A boolean member: -1 when absent or refused (reported). */
static int flag(ddbst__loader *L, const ddbst__jnode *obj,
                const char *field) {
  const ddbst__jnode *v = ddbst__jobj_get(obj, field);
  if (!v) return -1;
  if (v->type != DDBST__J_BOOL) {
    ddbst__load_report_field(L, field, v, "expected true or false");
    return -1;
  }
  return v->boolean;
}

/* "pointInTimeRecovery": true, false, or {"recoveryPeriodInDays": 1..35}
 * (on, keeping that many days). */
static void pitr(ddbst__loader *L, const ddbst__jnode *t) {
  ddbst__table_settings *s = &L->m->settings;
  const ddbst__jnode *v = ddbst__jobj_get(t, "pointInTimeRecovery");
  if (!v) return;
  if (v->type == DDBST__J_BOOL) {
    s->pitr = v->boolean;
    return;
  }
  size_t old = ddbst__load_push(L, "pointInTimeRecovery");
  if (v->type != DDBST__J_OBJECT) {
    ddbst__load_report(L, v,
                       "expected true, false or {\"recoveryPeriodInDays\": "
                       "1 to 35}");
  } else {
    static const char *const fields[] = {"recoveryPeriodInDays", NULL};
    ddbst__load_check_fields(L, v, fields);
    s->pitr = 1;
    s->pitr_days = (int)whole(L, v, "recoveryPeriodInDays", 35);
    if (!ddbst__jobj_get(v, "recoveryPeriodInDays"))
      ddbst__load_report(L, v, "'recoveryPeriodInDays' is required");
  }
  ddbst__load_pop(L, old);
}

static void table_class(ddbst__loader *L, const ddbst__jnode *t) {
  const ddbst__jnode *v = ddbst__load_string(L, t, "tableClass", 0);
  if (!v) return;
  if (strcmp(v->text, "STANDARD") && strcmp(v->text, "STANDARD_INFREQUENT_ACCESS"))
    ddbst__load_report_field(L, "tableClass", v,
                             "expected STANDARD or "
                             "STANDARD_INFREQUENT_ACCESS");
  else
    L->m->settings.table_class = ddbst__load_dup(L, v->text);
}

/* AWS's tag rules: letters, digits and spaces of any script, and
 * _ . : / = + - @. */
static int tag_text_ok(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x80 && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                       (*p >= '0' && *p <= '9') || *p == ' ' ||
                       strchr("_.:/=+-@", *p)))
      return 0;
  return 1;
}

/* "tags": {"key": "value", ...}: at most 50; a key 1 to 128 characters
 * not starting with aws: (AWS's own), a value 0 to 256. */
static void tags(ddbst__loader *L, const ddbst__jnode *t) {
  ddbst__table_settings *s = &L->m->settings;
  const ddbst__jnode *v = ddbst__jobj_get(t, "tags");
  if (!v) return;
  size_t old = ddbst__load_push(L, "tags");
  if (ddbst__load_expect(L, v, DDBST__J_OBJECT,
                         "an object of tag key: value")) {
    if (v->count > 50)
      ddbst__load_report(L, v, "%zu tags; DynamoDB allows at most 50",
                         (size_t)v->count);
    s->tag_keys = ddbst__load_array(L, v->count, sizeof *s->tag_keys);
    s->tag_values = ddbst__load_array(L, v->count, sizeof *s->tag_values);
    for (size_t i = 0; i < v->count && s->tag_keys && s->tag_values; i++) {
      const char *k = v->keys[i];
      const ddbst__jnode *val = v->items[i];
      size_t o2 = ddbst__load_push(L, k);
      size_t kc = ddbst__utf8_chars(k, v->key_lens[i]);
      if (kc < 1 || kc > 128 || !tag_text_ok(k))
        ddbst__load_report(L, val,
                           "a tag key is 1 to 128 letters, digits, spaces "
                           "and _ . : / = + - @");
      else if (strncmp(k, "aws:", 4) == 0)
        ddbst__load_report(L, val,
                           "tag keys starting with aws: are AWS's own");
      if (val->type != DDBST__J_STRING)
        ddbst__load_report(L, val, "expected the tag's value, a string");
      else if (ddbst__utf8_chars(val->text, val->len) > 256 ||
               !tag_text_ok(val->text))
        ddbst__load_report(L, val,
                           "a tag value is 0 to 256 letters, digits, spaces "
                           "and _ . : / = + - @");
      else {
        s->tag_keys[s->ntags] = ddbst__load_dup(L, k);
        s->tag_values[s->ntags++] = ddbst__load_dup(L, val->text);
      }
      ddbst__load_pop(L, o2);
    }
  }
  ddbst__load_pop(L, old);
}

/* DynamoDB's limit on a resource-based policy. */
#define MAX_POLICY_BYTES 20480

/* "resourcePolicy": the policy document, an object with its Statement;
 * kept as compact JSON (CreateTable sends it as a string). */
static void resource_policy(ddbst__loader *L, const ddbst__jnode *t) {
  const ddbst__jnode *v = ddbst__jobj_get(t, "resourcePolicy");
  if (!v) return;
  size_t old = ddbst__load_push(L, "resourcePolicy");
  if (ddbst__load_expect(L, v, DDBST__J_OBJECT,
                         "an object: the policy document")) {
    const ddbst__jnode *st = ddbst__jobj_get(v, "Statement");
    if (!st || (st->type != DDBST__J_ARRAY && st->type != DDBST__J_OBJECT))
      ddbst__load_report(L, v,
                         "a policy document has a Statement (an array of "
                         "statements)");
    ddbst_buf b;
    ddbst__buf_init(&b, &L->m->alloc);
    ddbst__jw w;
    ddbst__jw_init(&w, &b);
    ddbst__jtree_write(&w, v);
    if (!w.rc) w.rc = ddbst__buf_append(&b, "", 1);
    if (w.rc)
      L->nomem = 1;
    else if (b.len - 1 > MAX_POLICY_BYTES)
      ddbst__load_report(L, v,
                         "the policy is %zu bytes of JSON; DynamoDB allows "
                         "at most 20 KB",
                         b.len - 1);
    else
      L->m->settings.resource_policy = ddbst__load_dup(L, b.data);
    ddbst__buf_release(&b);
  }
  ddbst__load_pop(L, old);
}

void ddbst__load_table_settings(ddbst__loader *L, const ddbst__jnode *t) {
  ddbst__table_settings *s = &L->m->settings;
  s->pitr = -1;
  on_demand(L, t, &s->on_demand);
  warm(L, t, &s->warm);
  s->deletion_protection = flag(L, t, "deletionProtection");
  s->contributor_insights = flag(L, t, "contributorInsights");
  pitr(L, t);
  table_class(L, t);
  tags(L, t);
  resource_policy(L, t);
}

void ddbst__load_index_settings(ddbst__loader *L, const ddbst__jnode *n,
                                ddbst__index *ix) {
  static const char *const own[] = {"onDemandThroughput", "warmThroughput",
                                    "contributorInsights"};
  ix->settings.contributor_insights = -1;
  if (ix->local) {
    for (int i = 0; i < 3; i++)
      if (ddbst__jobj_get(n, own[i]))
        ddbst__load_report_field(L, own[i], ddbst__jobj_get(n, own[i]),
                                 "a local index shares the table's capacity "
                                 "and insights: declare %s on the table",
                                 own[i]);
    return;
  }
  on_demand(L, n, &ix->settings.on_demand);
  warm(L, n, &ix->settings.warm);
  ix->settings.contributor_insights = flag(L, n, "contributorInsights");
}
