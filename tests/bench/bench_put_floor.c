/* The floor under put_project (issue 22, target 3): what no change to
 * ddbst's writer can take out. put_floor sets the five values as
 * put_project does (reset, and each checked by the model: UTF-8 or ASCII,
 * the enum, the timestamp's form, the delimiter and escape scan), then
 * writes the same PutItem body from a template made by hand for this one
 * body: its eleven fixed texts and ten value slots, each one padded 32-byte
 * copy, with no decision (no index condition, no optional attribute, no
 * default, no size count). At startup the body is checked byte for byte
 * against put_project's. Not ddbst's code: the lower bound a writer of
 * this body could reach. */
#include <string.h>

#include "bench_body_floor.h"

/* the fixed texts, each in its own 64 bytes (a 32-byte copy reads past it) */
enum { SLOT = 64, NFIXED = 11 };
static const char fixed_src[NFIXED][SLOT] = {
    "{\"TableName\":\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"ORG#",
    "\"},\"SK\":{\"S\":\"PROJECT#",
    "#",
    "\"},\"GSI2PK\":{\"S\":\"STATUS#",
    "\"},\"GSI2SK\":{\"S\":\"",
    "\"},\"_type\":{\"S\":\"Project\"},\"orgId\":{\"S\":\"",
    "\"},\"projectId\":{\"S\":\"",
    "\"},\"createdAt\":{\"S\":\"",
    "\"},\"name\":{\"S\":\"",
    "\"},\"status\":{\"S\":\"",
    "\"}}}",
};
/* which value follows each fixed text (an index into the five below) */
enum { ORG, ID, CREATED, NAME, STATUS };
static const int slot_value[NFIXED - 1] = {ORG,    CREATED, ID,     STATUS,
                                           CREATED, ORG,    ID,     CREATED,
                                           NAME,   STATUS};
static bench_template tmpl = {fixed_src[0], SLOT, NFIXED, slot_value, {0}};

/* the body, in the bench's own memory (the public buffer is read-only) */
static char body[1024];

static int op_put_floor(bench_ctx *c) {
  ddbst_item *it = c->item;
  ddbst_item_reset(it, c->project);
  BENCH_SET(it, c->p_org, BENCH_ORG);
  BENCH_SET(it, c->p_id, BENCH_PROJECT_ID);
  BENCH_SET(it, c->p_created, BENCH_CREATED);
  BENCH_SET(it, c->p_name, BENCH_PROJECT_NAME);
  BENCH_SET(it, c->p_status, "active");
  const int attrs[5] = {c->p_org, c->p_id, c->p_created, c->p_name,
                        c->p_status};
  const char *v[5];
  size_t n[5], total = 0;
  for (int i = 0; i < 5; i++) {
    ddbst_item_get(it, attrs[i], &v[i], &n[i]);
    total += n[i];
  }
  /* room: the texts, every value twice, and a copy's 32 bytes past
   * (the values here are short: the bound is checked, not assumed) */
  if (400 + 2 * total + 32 > sizeof body) return -1;
  char *o = bench_floor_write(fixed_src[0], SLOT, NFIXED, slot_value,
                              tmpl.len, body, v, n);
  __asm__ volatile("" : : "r"(body) : "memory"); /* the copy is the work */
  return (int)(o - body);
}

void bench_put_floor(bench_ctx *c, bench_fn put_project) {
  if (bench_skips("put_floor")) return;
  bench_floor_check(c, &tmpl, "put_floor", op_put_floor, body, "put_project",
                    put_project);
  bench_run(c, "put_floor", "put_project's values set, its body copied "
            "from a template (the floor)", op_put_floor, 10000, 0);
}
