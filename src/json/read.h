/* The JSON reader behind json/parse.h: one pass over the text, calling the
 * callbacks token by token, with the tokens, their boundaries and the
 * syntax YAJL 2.1 has (so that the callbacks see what they saw before; the
 * differential fuzz target tests/fuzz/fuzz_json_read.c holds it to that).
 * Iterative: the open containers are a byte each on a stack grown from the
 * run's blocks, so no document can exhaust the C stack. Strings without an
 * escape are handed over in place; the others are decoded on the stack,
 * or when long where the callbacks' string_room says, else into one
 * block. */
#ifndef DDBST_JSON_READ_H
#define DDBST_JSON_READ_H

#include "json/parse.h"

/* Reads json[0..len): 0 with r->status DDBST__JSON_OK, _STOPPED (a callback
 * returned 0; r->at is just past its token) or _SYNTAX (r->at near the
 * fault; the callbacks saw every token before it), or DDBST_ENOMEM.
 * `partial`: the text was cut short (at a fault of json/text.h), so its
 * end ends the read as DDBST__JSON_OK and a token it cuts is not reported,
 * as YAJL reports nothing it has not seen the end of. The text before len
 * must meet json/text.h's rule: bytes from 0x80 up in strings are taken as
 * valid UTF-8, and a \u escape of a surrogate as half of a pair. */
int ddbst__json_read(ddbst__json_run *r, const ddbst__json_callbacks *cb,
                     void *ctx, const char *json, size_t len, int partial);

#endif
