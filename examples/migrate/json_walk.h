/* A small walker over DynamoDB's JSON answers (spans [p, end) of the
 * text): an object's members, an array's elements. Enough for the few
 * fields the driver reads (DescribeTable, ConsumedCapacity) without a JSON
 * library to link besides ddbst. */
#ifndef MIGRATE_JSON_WALK_H
#define MIGRATE_JSON_WALK_H

#include <stddef.h>
#include <stdint.h>

const char *json_skip_ws(const char *p, const char *end);
/* The end of the JSON value at `p`, or NULL when it is cut short. */
const char *json_skip_value(const char *p, const char *end);
/* The value of member `name` of the object at `p` (its span in *v, *v_end):
 * 1; 0 when it has none or `p` is no object. */
int json_member(const char *p, const char *end, const char *name,
                const char **v, const char **v_end);
/* A string member's text (no escapes expected in these fields): 1, or 0. */
int json_member_text(const char *p, const char *end, const char *name,
                     char *out, size_t n);
/* A number member, or -1. */
int64_t json_member_int(const char *p, const char *end, const char *name);
/* A number member as a double, or 0. */
double json_member_double(const char *p, const char *end, const char *name);

#endif
