/* The floor under create_user (issue 22, target 3): what no change to
 * ddbst's writer can take out of a create with a unique guard.
 * create_floor sets the User's five values as create_user does (reset, and
 * each checked by the model: UTF-8, the e-mail's normal form declared,
 * the delimiter and escape scan), then writes the same TransactWriteItems
 * body (the User's Put and its e-mail guard's Put) from a template made by
 * hand for this one body: thirteen fixed texts and twelve value slots,
 * each one padded copy, the e-mail's key form (EMAIL#{email:lower}, under
 * NFKC_Casefold) made once per call and copied three times. For ASCII text
 * that form is ASCII lower-casing, so the template lower-cases eight bytes
 * at a time and refuses any other text (this body's e-mail is ASCII).
 * No decision otherwise (no index condition, no optional attribute, no
 * default, no size count). At startup the body is checked byte for byte
 * against create_user's. Not ddbst's code: the lower bound a writer of
 * this body could reach. */
#include <stdint.h>
#include <string.h>

#include "bench_body_floor.h"

/* the fixed texts, each in its own SLOT bytes (a 32-byte copy reads past) */
enum { SLOT = 192, NFIXED = 13 };
static const char fixed_src[NFIXED][SLOT] = {
    "{\"TransactItems\":[{\"Put\":{\"TableName\":\"saas-api-dev\",\"Item\":"
    "{\"PK\":{\"S\":\"ORG#",
    "\"},\"SK\":{\"S\":\"USER#",
    "\"},\"GSI1PK\":{\"S\":\"EMAIL#",
    "\"},\"_type\":{\"S\":\"User\"},\"orgId\":{\"S\":\"",
    "\"},\"userId\":{\"S\":\"",
    "\"},\"email\":{\"S\":\"",
    "\"},\"role\":{\"S\":\"",
    "\"},\"name\":{\"S\":\"",
    "\"}},\"ConditionExpression\":\"attribute_not_exists(#n0)\","
    "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}},{\"Put\":{\"TableName\":"
    "\"saas-api-dev\",\"Item\":{\"PK\":{\"S\":\"EMAIL#",
    "\"},\"SK\":{\"S\":\"EMAIL#",
    "\"},\"_type\":{\"S\":\"User.email\"},\"holderKey\":{\"M\":{\"PK\":{\"S\":"
    "\"ORG#",
    "\"},\"SK\":{\"S\":\"USER#",
    "\"}}}},\"ConditionExpression\":\"attribute_not_exists(#n0)\","
    "\"ExpressionAttributeNames\":{\"#n0\":\"PK\"}}}]}",
};
/* the values: the five set, and the e-mail's key form */
enum { ORG, ID, EMAIL, ROLE, NAME, LOWER, NVALUES };
static const int slot_value[NFIXED - 1] = {ORG,  ID,   LOWER, ORG,
                                           ID,   EMAIL, ROLE, NAME,
                                           LOWER, LOWER, ORG,  ID};
static bench_template tmpl = {fixed_src[0], SLOT, NFIXED, slot_value, {0}};

/* the body and the key form, in the bench's own memory */
static char body[2048];
static _Alignas(8) char lowered[256 + 32];

/* A-Z to a-z, eight bytes at a time, over whole words of the padded copy;
 * nonzero when a byte is not ASCII (its normal form is more than that). */
static int lower_ascii(char *s, size_t n) {
  const uint64_t ones = 0x0101010101010101u, highs = ones * 0x80;
  uint64_t seen = 0;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    if (i + 8 > n) w &= ~(uint64_t)0 >> (8 * (i + 8 - n)); /* little-endian */
    seen |= w;
    uint64_t low7 = w & ones * 0x7F;
    uint64_t upper = ((low7 + ones * (0x80 - 'A')) ^
                      (low7 + ones * (0x7F - 'Z'))) & ~w & highs;
    w |= upper >> 2;
    memcpy(s + i, &w, 8);
  }
  return (seen & highs) != 0;
}

static int op_create_floor(bench_ctx *c) {
  ddbst_item *it = c->item;
  ddbst_item_reset(it, c->user);
  BENCH_SET(it, c->u_org, BENCH_ORG);
  BENCH_SET(it, c->u_id, BENCH_USER_ID);
  BENCH_SET(it, c->u_email, BENCH_EMAIL);
  BENCH_SET(it, c->u_role, BENCH_ROLE);
  BENCH_SET(it, c->u_name, BENCH_USER_NAME);
  const int attrs[5] = {c->u_org, c->u_id, c->u_email, c->u_role,
                        c->u_name};
  const char *v[NVALUES];
  size_t n[NVALUES], total = 0;
  for (int i = 0; i < 5; i++) {
    ddbst_item_get(it, attrs[i], &v[i], &n[i]);
    total += n[i];
  }
  if (n[EMAIL] > 256) return -1;
  memcpy(lowered, v[EMAIL], n[EMAIL]);
  if (lower_ascii(lowered, n[EMAIL])) return -1;
  v[LOWER] = lowered;
  n[LOWER] = n[EMAIL];
  /* room: the texts, every value four times, and a copy's 32 bytes past
   * (the values here are short: the bound is checked, not assumed) */
  if (600 + 4 * total + 32 > sizeof body) return -1;
  char *o = bench_floor_write(fixed_src[0], SLOT, NFIXED, slot_value,
                              tmpl.len, body, v, n);
  __asm__ volatile("" : : "r"(body) : "memory"); /* the copy is the work */
  return (int)(o - body);
}

void bench_create_floor(bench_ctx *c, bench_fn create_user) {
  if (bench_skips("create_floor")) return;
  bench_floor_check(c, &tmpl, "create_floor", op_create_floor, body,
                    "create_user", create_user);
  bench_run(c, "create_floor", "create_user's values set, its body copied "
            "from a template (the floor)", op_create_floor, 10000, 0);
}
