/* Pagination cursors (src/cursor/seal.c, open.c): a page's LastEvaluatedKey
 * sealed into an opaque base64url string, and opened back into the
 * ExclusiveStartKey of the next request. docs/cursor.md specifies the
 * bytes. */
#ifndef DDBST_CURSOR_H
#define DDBST_CURSOR_H

#include "item/item.h"

/* The longest cursor text anything here writes or accepts: 4608 bytes of
 * envelope in base64url. Longer input is refused before it is decoded. */
#define DDBST__CURSOR_MAX_CHARS 6144

/* Seals the LastEvaluatedKey of a page read by `pattern`'s query with the
 * partition given in `values`: key attribute names[i] has the string value
 * vals[i] (lens[i] bytes), i < n (DynamoDB's LastEvaluatedKey of ddbst
 * tables holds only key attributes, all strings). Appends base64url text.
 *
 * `keys` NULL makes an unsealed cursor, which only a model declaring
 * "cursors": "unsealed" allows. `now_us` (<= 0: the clock) is the issue time
 * written when the keyring sets a maximum age. The partition is rendered
 * into `values`' key text (as ddbst_query_request does); nothing else in
 * `values` changes. Allocation-free when `out` and `values` are warm.
 *
 * Returns 0, or appends nothing and returns:
 *   DDBST_EINVAL  a NULL argument, a pattern that is no query, values of
 *                 an entity the pattern does not read, no keys for a model
 *                 whose cursors are sealed (path "cursor_keys"), an empty
 *                 keyring;
 *   DDBST_EVALUE  a LastEvaluatedKey that is not the one this query can
 *                 return: a missing, repeated or unknown attribute, another
 *                 partition, keys that are no keys of the pattern's
 *                 entities (path "LastEvaluatedKey" or
 *                 "LastEvaluatedKey.<name>");
 *   DDBST_ERANGE  a cursor that would pass DDBST__CURSOR_MAX_CHARS;
 *   DDBST_EMISSING and the like from rendering the partition;
 *   DDBST_ENOMEM. */
int ddbst__cursor_seal(const ddbst_cursor_keys *keys, ddbst_item *values,
                       int pattern, const char *const *names,
                       const char *const *vals, const size_t *lens, int n,
                       int64_t now_us, ddbst_buf *out, ddbst_error *err);

/* The same with the partition already rendered (`part_text`, what
 * ddbst__cursor_partition wrote for values of `entity`): what a page that
 * remembers its query seals with. */
int ddbst__cursor_seal_part(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, int entity, int pattern,
                            const char *part_text, size_t part_len,
                            const char *const *names, const char *const *vals,
                            const size_t *lens, int n, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err);

/* Appends the partition key `pattern`'s query reads for the values in `it`
 * (rendered into its key text, as ddbst__cursor_seal does): 0, or
 * DDBST_EINVAL (no query of the item's entity), DDBST_EMISSING and the
 * like from rendering, DDBST_ENOMEM. */
int ddbst__cursor_partition(ddbst_item *it, int pattern, ddbst_buf *out,
                            ddbst_error *err);

/* The partition key value a query fixes, as the query rendered it: its
 * text, whether it is known to need no JSON escape, and, when the query
 * knows them, its facets' spans (offset, length) as splitting it along
 * template `t` finds them (t NULL: not known; opening splits it). */
typedef struct ddbst__cursor_part {
  const char *p;
  size_t n;
  int plain;
  const ddbst__template *t;
  size_t spans[2 * DDBST__MAX_FACETS];
} ddbst__cursor_part;

/* Opens `cursor` (`len` bytes) for a query of `pattern` whose partition key
 * value is `part`, and appends the ExclusiveStartKey
 * as a DynamoDB AttributeValue map, {"PK":{"S":"..."},"SK":{"S":"..."}}, in
 * the fixed order index partition key, index sort key, table partition key,
 * table sort key. `now_us` (<= 0: the clock) checks the keyring's maximum
 * age. Allocation-free when `out` is warm.
 *
 * Returns 0; DDBST_ECURSOR with path "cursor" and a precise message for
 * every cursor it refuses; DDBST_EINVAL (path "cursor_keys") for no keys
 * on a model whose cursors are sealed; DDBST_ENOMEM. On error `out` may hold
 * part of the map: the caller cuts it back. */
int ddbst__cursor_open(const ddbst_cursor_keys *keys, const ddbst_model *m,
                       int pattern, const ddbst__cursor_part *part,
                       const char *cursor, size_t len, int64_t now_us,
                       ddbst_buf *out, ddbst_error *err);

/* ---- scans (scan_cursor.c) ---- */

/* What a scan's cursor is bound to: the index read (-1: the table), the
 * segment and total of segments (0: none), and the digest of the body
 * that reads them (ddbst_scan's filter, entity filter and projection). */
enum { DDBST__SCAN_DIGEST = 16 };
typedef struct ddbst__scan_ctx {
  int index;
  uint32_t segment, total;
  uint8_t digest[DDBST__SCAN_DIGEST];
} ddbst__scan_ctx;

/* The digest a scan's cursors are bound to: BLAKE2b of the body's text up
 * to its Segment (table, index, filters, projection, their values). */
void ddbst__scan_digest(const char *body, size_t len,
                        uint8_t digest[DDBST__SCAN_DIGEST]);

/* One attribute of a LastEvaluatedKey: its name, AttributeValue type
 * ('S', 'N', 'B') and value text (a number's digits, binary's base64). */
typedef struct ddbst__lek_attr {
  const char *name;
  char type;
  const char *val;
  size_t len;
} ddbst__lek_attr;

/* Seals a Scan page's LastEvaluatedKey, lek[0..n): exactly the key
 * attributes of the table and the index read, each once and of its type
 * (else DDBST_EVALUE, path "LastEvaluatedKey.<name>"). Appends base64url;
 * DDBST_EINVAL (path "cursor_keys"), DDBST_ERANGE past
 * DDBST__CURSOR_MAX_CHARS, DDBST_ENOMEM. */
int ddbst__scan_cursor_seal(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, const ddbst__scan_ctx *c,
                            const ddbst__lek_attr *lek, int n, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err);

/* Opens a scan's cursor for the scan `c` and appends the ExclusiveStartKey
 * map. DDBST_ECURSOR (path "cursor") saying what the cursor was made for
 * when it is another scan's; DDBST_EINVAL, DDBST_ENOMEM. On error `out`
 * may hold part of the map: the caller cuts it back. */
int ddbst__scan_cursor_open(const ddbst_cursor_keys *keys,
                            const ddbst_model *m, const ddbst__scan_ctx *c,
                            const char *cursor, size_t len, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err);

#endif
