/* A generated model of any size, for measuring what a model's size costs
 * (issue 22, item 5): deterministic, valid, and shaped like a real service's
 * single table, with every kind of key the loader's checks look at.
 *
 * Entities come in four shapes, in turn (plus the SaaS model's Project,
 * planted in the middle so that a request on it can be compared byte for
 * byte with the same request on examples/saas/model.json):
 *
 *   0  a tenant's child:  ORG#{orgId} / LIT#{createdAt}#{id}, in an LSI
 *      (LIT#{amount}#{id}) and a GSI by owner; a filtered listing
 *   1  a root:            LIT#{id} / LIT#{id}, versioned, with timestamps
 *   2  a root's child:    PARENT#{parentId} / LIT#{seq}#{id}: one partition
 *      holds the root and its children (a collection pattern reads both)
 *   3  a tenant's member: ORG#{orgId} / LIT#{id}, in an LSI, with a unique
 *      email (guard items EMAIL_LIT#{email:lower})
 *
 * Every entity joins one template GSI by owner (sparse: ownerId is
 * optional); every third a second one by status, only while active
 * (`when`); every third a native multi-attribute index (declared
 * attributes, no synthetic keys). All the entities of a partition share
 * its template (ORG#{orgId}, PARENT#{parentId}) and differ by their sort
 * key's literal, so the overlap check compares templates that match up to
 * their last part: its worst case, not its best.
 *
 * Patterns: per entity, in rounds, a get, a listing (with a range where
 * the sort key allows one), a query per index it is in, a filtered
 * listing, a second page size; round by round until the count asked for
 * is reached. */
#define _POSIX_C_SOURCE 200809L
#include "gen_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
  char *p;
  size_t n, cap;
  int failed;
} out;

__attribute__((format(printf, 2, 3)))
static void put(out *o, const char *fmt, ...) {
  if (o->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
    va_end(ap);
    if (k < 0) {
      o->failed = 1;
      return;
    }
    if ((size_t)k < o->cap - o->n) {
      o->n += (size_t)k;
      return;
    }
    size_t cap = (o->cap + (size_t)k) * 2;
    char *q = realloc(o->p, cap);
    if (!q) {
      o->failed = 1;
      return;
    }
    o->p = q;
    o->cap = cap;
  }
}

/* Names: a noun and a qualifier (InvoiceLine), past 200 a number too. */
static const char *const nouns[] = {
    "Invoice",  "Order",    "Shipment", "Ticket",  "Comment",
    "Task",     "Asset",    "Contract", "Payment", "Refund",
    "Webhook",  "Session",  "Device",   "Report",  "Budget",
    "Campaign", "Lead",     "Quote",    "Account", "Document"};
static const char *const quals[] = {"",      "Line", "Note", "Event", "Item",
                                    "Version", "Tag", "Link", "Review", "Audit"};
enum { NNOUNS = sizeof nouns / sizeof nouns[0],
       NQUALS = sizeof quals / sizeof quals[0] };

typedef struct ent {
  char name[48];    /* InvoiceLine */
  char camel[48];   /* invoiceLine */
  char lit[48];     /* INVOICE_LINE */
  char id[56];      /* invoiceLineId */
  int shape;        /* 0-3 as above, 4 the planted Project */
  int parent;       /* shape 2: its root */
  int gsi_owner;    /* template GSI number (1-based) */
  int gsi_status;   /* 0: none */
  int native;       /* 0: none, else 1-based among the native indexes */
  int lsi;          /* 0: none */
} ent;

static void name_entity(ent *e, int i) {
  const char *noun = nouns[i % NNOUNS], *qual = quals[(i / NNOUNS) % NQUALS];
  char num[16] = "";
  if (i >= NNOUNS * NQUALS) snprintf(num, sizeof num, "%d", i / (NNOUNS * NQUALS));
  snprintf(e->name, sizeof e->name, "%s%s%s", noun, qual, num);
  snprintf(e->camel, sizeof e->camel, "%s", e->name);
  e->camel[0] = (char)(e->camel[0] - 'A' + 'a');
  snprintf(e->id, sizeof e->id, "%sId", e->camel);
  size_t n = 0;
  for (const char *c = e->name; *c && n + 2 < sizeof e->lit; c++) {
    if (*c >= 'A' && *c <= 'Z' && c != e->name) e->lit[n++] = '_';
    e->lit[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
  }
  e->lit[n] = '\0';
}

static void attributes(out *o, const ent *e, const ent *all) {
  put(o, "\"attributes\": {");
  if (e->shape == 2) put(o, "\"%s\": \"string\", ", all[e->parent].id);
  put(o, "\"%s\": \"string\", \"orgId\": \"string\", \"ownerId\": \"string\", "
         "\"name\": \"string\", "
         "\"status\": {\"type\": \"enum\", \"values\": [\"active\", \"archived\", \"draft\"]}, "
         "\"createdAt\": {\"type\": \"timestamp\", \"precision\": \"s\", \"default\": \"now\"}, "
         "\"updatedAt\": {\"type\": \"timestamp\", \"precision\": \"ms\"}, "
         "\"amount\": {\"type\": \"integer\", \"width\": 10}, "
         "\"total\": \"number\", \"notes\": \"string\", \"tags\": \"string_set\"",
      e->id);
  if (e->shape == 2) put(o, ", \"seq\": {\"type\": \"integer\", \"width\": 10}");
  if (e->shape == 3)
    put(o, ", \"email\": {\"type\": \"string\", \"required\": true, "
           "\"normalize\": \"NFKC_Casefold\"}");
  if (e->shape == 0) put(o, ", \"meta\": \"map\"");
  put(o, "}");
}

static void entity(out *o, const ent *e, const ent *all, int first) {
  if (e->shape == 4) { /* examples/saas/model.json's Project, as it is there */
    put(o, "%s\n    \"Project\": {\"attributes\": {\"orgId\": \"string\", "
           "\"projectId\": \"string\", \"createdAt\": {\"type\": \"timestamp\", "
           "\"precision\": \"s\", \"default\": \"now\"}, \"name\": \"string\", "
           "\"status\": {\"type\": \"enum\", \"values\": [\"active\", \"archived\"]}}, "
           "\"key\": {\"pk\": \"ORG#{orgId}\", \"sk\": \"PROJECT#{createdAt}#{projectId}\"}, "
           "\"indexes\": {\"GSI2\": {\"pk\": \"STATUS#{status}\", \"sk\": \"{createdAt}\"}}}",
        first ? "" : ",");
    return;
  }
  put(o, "%s\n    \"%s\": {\"description\": \"%s items (shape %d).\", ",
      first ? "" : ",", e->name, e->name, e->shape);
  attributes(o, e, all);
  switch (e->shape) {
  case 0:
    put(o, ", \"key\": {\"pk\": \"ORG#{orgId}\", \"sk\": \"%s#{createdAt}#{%s}\"}",
        e->lit, e->id);
    break;
  case 1:
    put(o, ", \"key\": {\"pk\": \"%s#{%s}\", \"sk\": \"%s#{%s}\"}, "
           "\"version\": \"version\", \"timestamps\": true",
        e->lit, e->id, e->lit, e->id);
    break;
  case 2:
    put(o, ", \"key\": {\"pk\": \"%s#{%s}\", \"sk\": \"%s#{seq}#{%s}\"}",
        all[e->parent].lit, all[e->parent].id, e->lit, e->id);
    break;
  default:
    put(o, ", \"key\": {\"pk\": \"ORG#{orgId}\", \"sk\": \"%s#{%s}\"}, "
           "\"unique\": {\"email\": \"EMAIL_%s#{email:lower}\"}",
        e->lit, e->id, e->lit);
    break;
  }
  put(o, ", \"indexes\": {\"GSI%d\": {\"pk\": \"%s_BY_OWNER#{ownerId}\", "
         "\"sk\": \"{updatedAt}#{%s}\"}",
      e->gsi_owner, e->lit, e->id);
  if (e->gsi_status)
    put(o, ", \"GSI%d\": {\"pk\": \"%s_BY_STATUS#{status}\", "
           "\"sk\": \"{createdAt}#{%s}\", \"when\": {\"status\": \"active\"}}",
        e->gsi_status, e->lit, e->id);
  if (e->lsi)
    put(o, ", \"LSI%d\": {\"sk\": \"%s_BY_AMOUNT#{amount}#{%s}\"}", e->lsi,
        e->lit, e->id);
  if (e->native) put(o, ", \"ByOrg%d\": {}", e->native);
  put(o, "}}");
}

/* Candidate `round` of entity `e`'s patterns; 0 when it has no more. */
static int pattern(out *o, const ent *e, const ent *all, int round, int first) {
  const char *sep = first ? "" : ",";
  if (e->shape == 4) {
    if (round == 0)
      put(o, "%s\n    \"listProjects\": {\"query\": \"Project\", \"order\": \"desc\", "
             "\"limit\": {\"default\": 25, \"max\": 100}}", sep);
    else if (round == 1)
      put(o, "%s\n    \"projectsByStatus\": {\"query\": \"Project\", \"index\": "
             "\"GSI2\", \"order\": \"desc\", \"limit\": {\"default\": 25, \"max\": 100}}",
          sep);
    else return 0;
    return 1;
  }
  const char *lim = "\"limit\": {\"default\": 25, \"max\": 100}";
  int k = 0; /* the candidates in order; `round` picks one */
  if (round == k++) {
    put(o, "%s\n    \"get%s\": {\"get\": \"%s\"}", sep, e->name, e->name);
    return 1;
  }
  if (round == k++) {
    if (e->shape == 0)
      put(o, "%s\n    \"list%ss\": {\"query\": \"%s\", \"range\": \"createdAt\", "
             "\"order\": \"desc\", %s}", sep, e->name, e->name, lim);
    else if (e->shape == 1)
      put(o, "%s\n    \"%sWithChildren\": {\"query\": [\"%s\"%s%s%s], %s}", sep,
          e->camel, e->name, e[1].shape == 2 && e[1].parent == (int)(e - all) ? ", \"" : "",
          e[1].shape == 2 && e[1].parent == (int)(e - all) ? e[1].name : "",
          e[1].shape == 2 && e[1].parent == (int)(e - all) ? "\"" : "", lim);
    else if (e->shape == 2)
      put(o, "%s\n    \"list%ss\": {\"query\": \"%s\", \"range\": \"seq\", %s}", sep,
          e->name, e->name, lim);
    else
      put(o, "%s\n    \"list%ss\": {\"query\": \"%s\", %s}", sep, e->name,
          e->name, lim);
    return 1;
  }
  if (round == k++) {
    put(o, "%s\n    \"%ssByOwner\": {\"query\": \"%s\", \"index\": \"GSI%d\", "
           "\"range\": \"updatedAt\", \"order\": \"desc\", %s}",
        sep, e->camel, e->name, e->gsi_owner, lim);
    return 1;
  }
  if (e->gsi_status && round == k++) {
    put(o, "%s\n    \"active%ss\": {\"query\": \"%s\", \"index\": \"GSI%d\", "
           "\"range\": \"createdAt\", %s}",
        sep, e->name, e->name, e->gsi_status, lim);
    return 1;
  }
  if (e->lsi && round == k++) {
    put(o, "%s\n    \"%ssByAmount\": {\"query\": \"%s\", \"index\": \"LSI%d\", "
           "\"range\": \"amount\", %s}",
        sep, e->camel, e->name, e->lsi, lim);
    return 1;
  }
  if (e->native && round == k++) {
    put(o, "%s\n    \"%ssOfOrg\": {\"query\": \"%s\", \"index\": \"ByOrg%d\", "
           "\"range\": \"createdAt\", \"order\": \"desc\", %s}",
        sep, e->camel, e->name, e->native, lim);
    return 1;
  }
  if (round == k++) {
    const char *part = e->shape == 1 ? "" : "s";
    put(o, "%s\n    \"archived%s%s\": {\"query\": \"%s\", \"filter\": "
           "{\"status\": \"archived\"}, %s}",
        sep, e->name, part, e->name, lim);
    return 1;
  }
  if (round == k++) {
    put(o, "%s\n    \"%ssOfOwnerPage\": {\"query\": \"%s\", \"index\": \"GSI%d\", "
           "\"limit\": {\"default\": 100, \"max\": 1000}}",
        sep, e->camel, e->name, e->gsi_owner);
    return 1;
  }
  return 0;
}

char *bench_gen_model(const bench_gen_shape *s, size_t *len,
                      int *patterns_made) {
  int ne = s->entities < 1 ? 1 : s->entities;
  int ng = s->gsis < 2 ? 2 : s->gsis > 20 ? 20 : s->gsis;
  int nl = s->lsis < 0 ? 0 : s->lsis > 5 ? 5 : s->lsis;
  int nnative = ng >= 5 ? ng / 5 : 0;
  int ntemplate = ng - nnative; /* GSI1..GSIn; GSI2 holds Project */
  ent *es = calloc((size_t)ne + 1, sizeof *es);
  out o = {NULL, 0, 0, 0};
  if (!es) return NULL;
  int planted = ne / 2;
  for (int i = 0; i < ne; i++) {
    ent *e = &es[i];
    if (i == planted) {
      e->shape = 4;
      snprintf(e->name, sizeof e->name, "Project");
      continue;
    }
    name_entity(e, i);
    e->shape = i % 4;
    if (e->shape == 2 && (i == 0 || es[i - 1].shape != 1)) e->shape = 0;
    e->parent = i - 1;
    e->gsi_owner = 1 + i % ntemplate;
    e->gsi_status = i % 3 == 0 ? 1 + (i * 7 + 3) % ntemplate : 0;
    if (e->gsi_status == e->gsi_owner) e->gsi_status = 0;
    e->native = nnative && i % 3 == 1 ? 1 + i % nnative : 0;
    e->lsi = nl && (e->shape == 0 || e->shape == 3) ? 1 + i % nl : 0;
  }

  put(&o, "{\n  \"ddbst\": 1,\n  \"description\": \"Generated by ddbst_bench: "
          "%d entities, %d global and %d local indexes.\",\n  \"table\": {\n"
          "    \"name\": \"saas-api-dev\", \"partitionKey\": \"PK\", \"sortKey\": "
          "\"SK\",\n    \"entityAttribute\": \"_type\", \"ttlAttribute\": "
          "\"expiresAt\", \"stream\": \"NEW_AND_OLD_IMAGES\",\n    \"indexes\": {",
      ne, ng, nl);
  static const char *const projections[] = {"\"KEYS_ONLY\"",
                                            "[\"name\", \"status\"]",
                                            "\"ALL\""};
  for (int g = 1; g <= ntemplate; g++)
    put(&o, "%s\n      \"GSI%d\": {\"partitionKey\": \"GSI%dPK\", \"sortKey\": "
            "\"GSI%dSK\", \"projection\": %s}",
        g > 1 ? "," : "", g, g, g, projections[g % 3]);
  for (int n = 1; n <= nnative; n++)
    put(&o, ",\n      \"ByOrg%d\": {\"partitionKey\": [\"orgId\", \"status\"], "
            "\"sortKey\": [\"createdAt\"], \"projection\": \"ALL\"}",
        n);
  put(&o, "\n    }");
  if (nl) {
    put(&o, ",\n    \"localIndexes\": {");
    for (int l = 1; l <= nl; l++)
      put(&o, "%s\n      \"LSI%d\": {\"sortKey\": \"LSI%dSK\", \"projection\": "
              "\"KEYS_ONLY\"}",
          l > 1 ? "," : "", l, l);
    put(&o, "\n    }");
  }
  put(&o, "\n  },\n  \"entities\": {");
  for (int i = 0; i < ne; i++) entity(&o, &es[i], es, i == 0);
  put(&o, "\n  },\n  \"patterns\": {");
  int made = 0;
  for (int round = 0; made < s->patterns; round++) {
    int any = 0;
    for (int i = 0; i < ne && made < s->patterns; i++)
      if (pattern(&o, &es[i], es, round, made == 0)) {
        made++;
        any = 1;
      }
    if (!any) break; /* every entity's candidates are used up */
  }
  put(&o, "\n  }\n}\n");
  free(es);
  if (o.failed) {
    free(o.p);
    return NULL;
  }
  *len = o.n;
  if (patterns_made) *patterns_made = made;
  return o.p;
}
