/* A parsed DynamoDB answer, as the parser (parse.c and its parts) writes it
 * and the accessors of response/ read it: items as stored attribute
 * records, LastEvaluatedKey, unprocessed batch entries, an error body's
 * reasons and stream records. Strings live in two buffers and are referred
 * to by offset, so a page keeps its memory between parses. */
#ifndef DDBST_PAGE_H
#define DDBST_PAGE_H

#include <string.h>

#include "base/hash.h"
#include "cursor/cursor.h"
#include "item/item.h"
#include "json/parse.h"

/* DynamoDB's AttributeValue types. */
typedef enum {
  DDBST__AV_S,
  DDBST__AV_N,
  DDBST__AV_B,
  DDBST__AV_BOOL,
  DDBST__AV_NULL,
  DDBST__AV_L,
  DDBST__AV_M,
  DDBST__AV_SS,
  DDBST__AV_NS,
  DDBST__AV_BS
} ddbst__avtype;

/* What an attribute of a stored item is to the model. */
typedef enum {
  DDBST__PA_ATTR,      /* an attribute (declared or not: see `attr`) */
  DDBST__PA_KEY,       /* a key attribute of the table or of an index */
  DDBST__PA_ENTITY,    /* the entity attribute */
  DDBST__PA_RECOVERED  /* a facet absent from the item, read from its keys */
} ddbst__parole;

/* What a parse reads: the answer of one operation, a stream event, or an
 * error body alone. Never a DDBST_OP_* code: the public operations map onto
 * these (ddbst_page_parse), and streams and error bodies are no
 * operation. */
typedef enum {
  DDBST__ANSWER_GET_ITEM,
  DDBST__ANSWER_QUERY,
  DDBST__ANSWER_BATCH_GET,
  DDBST__ANSWER_BATCH_WRITE,
  DDBST__ANSWER_TRANSACT_GET,
  DDBST__ANSWER_STREAM,
  DDBST__ANSWER_ERROR, /* ddbst_page_parse_error */
  DDBST__ANSWER_WRITE  /* PutItem, UpdateItem, DeleteItem: Attributes */
} ddbst__answer;

/* One top-level attribute of a stored item. `val` is S, N and B text as
 * given, "true"/"false" for BOOL, empty for NULL, and for L, M and the sets
 * the AttributeValue JSON re-written compactly ({"L":[{"S":"a"}]}), the form
 * ddbst__write_av copies; `plain` is then its plain JSON (["a"]). Names and
 * values are NUL-terminated in `text`. */
typedef struct ddbst__pattr {
  uint32_t name, name_len;   /* into page text */
  uint32_t val, val_len;     /* into page text */
  uint32_t plain, plain_len; /* into page plain (L, M, sets) */
  int32_t name_id;           /* a name the model knows, or -1 */
  int32_t attr;              /* declared attribute of the item's entity, or -1 */
  uint8_t type;              /* ddbst__avtype */
  uint8_t role;              /* ddbst__parole */
} ddbst__pattr;

/* Where an item was in the answer, for paths in errors. */
typedef enum {
  DDBST__IN_ITEM,      /* GetItem: "Item" */
  DDBST__IN_ITEMS,     /* Query: "Items[i]" */
  DDBST__IN_BATCH,     /* BatchGetItem: "Responses.<table>[i]" */
  DDBST__IN_TXN,       /* TransactGetItems: "Responses[i].Item" */
  DDBST__IN_KEYS,      /* stream: "Records[i].dynamodb.Keys" */
  DDBST__IN_NEW,       /* "Records[i].dynamodb.NewImage" */
  DDBST__IN_OLD,       /* "Records[i].dynamodb.OldImage" */
  DDBST__IN_LEK,       /* "LastEvaluatedKey" */
  DDBST__IN_ATTRS,     /* a write's ReturnValues: "Attributes" */
  DDBST__IN_ERROR,     /* an error body's item (ReturnValuesOn...): "Item" */
  DDBST__IN_REASON     /* "CancellationReasons[i].Item" */
} ddbst__where;

typedef struct ddbst__pitem {
  int32_t entity;          /* -1: an empty slot, or (streams) no entity */
  uint32_t first, count;   /* its records: attrs[first .. first + count) */
  uint32_t ordinal;        /* position in its list */
  uint32_t table, table_len; /* DDBST__IN_BATCH: the table's name, in text */
  uint8_t where;           /* ddbst__where */
  uint8_t present;         /* 0: an empty TransactGetItems slot */
} ddbst__pitem;

/* One CancellationReasons entry. */
typedef struct ddbst__preason {
  int32_t kind; /* DDBST_DDB_* */
  int32_t item; /* the item it carried (an index into items), or -1 */
  uint32_t code, code_len, msg, msg_len; /* into text */
} ddbst__preason;

/* One ThrottlingReasons entry: reason (TableWriteKeyRangeThroughputExceeded
 * ...) and resource (the table's or index's ARN), into text. A body holds
 * at most DDBST__MAX_THROTTLES: more is refused, never cut. */
typedef struct ddbst__pthrottle {
  uint32_t reason, reason_len, resource, resource_len;
} ddbst__pthrottle;
enum { DDBST__MAX_THROTTLES = 8 };

/* A table's part of UnprocessedKeys / UnprocessedItems; its entries are the
 * re-written key maps or write requests, spans of text. */
typedef struct ddbst__pgroup {
  uint32_t table, table_len;
  uint32_t first, count; /* into spans */
  int32_t consistent;    /* ConsistentRead: -1 absent, 0, 1 */
  uint32_t proj, proj_len; /* ProjectionExpression (proj_len 0: none) */
  uint32_t names, names_len; /* ExpressionAttributeNames, JSON text */
} ddbst__pgroup;

typedef struct ddbst__pspan {
  uint32_t off, len;
} ddbst__pspan;

/* One stream record. Images are items of the page. */
typedef struct ddbst__precord {
  int32_t event;      /* DDBST_STREAM_INSERT, _MODIFY, _REMOVE */
  int32_t keys, new_image, old_image; /* item indices, -1 when absent */
  int32_t entity;     /* of its images; -1: no entity of the model */
  int32_t by_ttl;     /* removed by DynamoDB's TTL (userIdentity) */
  uint32_t seq, seq_len;
  uint32_t id, id_len;
} ddbst__precord;

struct ddbst_page {
  const ddbst_model *m;
  ddbst__answer kind; /* of the last parse */
  int failed; /* the last parse failed: the page is empty */
  ddbst_buf text, plain;
  ddbst__pattr *attrs;
  uint32_t nattrs, cap_attrs;
  ddbst__pitem *items;
  uint32_t nitems, cap_items;
  int count; /* items the page reports (stream pages: records) */
  ddbst__pitem lek;
  int has_more;
  int64_t qcount, qscanned; /* a Query's Count and ScannedCount; -1: none */
  int count_only; /* a Select COUNT answer: Count, and no Items */
  int32_t want_entity; /* a write's Attributes without keys: this entity */
  int32_t error_item;  /* the item of a single write's error body, or -1 */
  /* UnprocessedKeys / UnprocessedItems */
  ddbst__pgroup *groups;
  uint32_t ngroups, cap_groups;
  ddbst__pspan *spans;
  uint32_t nspans, cap_spans;
  /* an error body */
  int error_kind; /* DDBST_DDB_*; DDBST_DDB_NONE when no error was read */
  uint32_t etype, etype_len, emsg, emsg_len;
  ddbst__preason *reasons;
  uint32_t nreasons, cap_reasons;
  ddbst__pthrottle throttles[DDBST__MAX_THROTTLES];
  uint32_t nthrottles;
  /* stream records */
  ddbst__precord *records;
  uint32_t nrecords, cap_records;

  /* Every name the model knows (key attributes, the entity attribute, every
   * entity's attributes), hashed once at creation: an item's attribute is
   * resolved with one lookup, never by comparing against each name. */
  const char **names;
  uint32_t *name_lens;
  uint8_t *name_role;   /* ddbst__parole */
  int32_t *name_attr;   /* [entity * nnames + id]: attribute index or -1 */
  ddbst__strset name_set; /* entries: name ids */
  uint32_t nnames;
  int32_t pk_id, sk_id, entity_id;
  /* Per-item duplicate detection and presence, by generation stamps. */
  uint32_t gen;
  uint32_t *seen_gen, *seen_rec; /* per name id */
  uint32_t *present_gen;         /* per attribute index */
  /* per name id, then the item's start and "after an unknown name": the
   * id of the name that followed it in the last item, or -1 */
  int32_t *name_next;
  ddbst__strset others; /* names the model does not know: records */
  /* For reading keys back into entities and facets. */
  ddbst_item *scratch;
  /* The query the page answers, when parsed by ddbst_page_parse_query:
   * its pattern (-1: none), the entity of its values and the partition key
   * it read, so that the page seals its own next cursor. */
  int q_pattern, q_entity;
  ddbst_buf q_part;
  ddbst_item *q_values; /* a native index's query: its values (made once) */
  /* The scan the page answers, when parsed by ddbst_page_parse_scan
   * (scan_page.c): its next cursor is bound to `scan`. `keep_unknown`:
   * the parse keeps items of no entity, as a stream's images. */
  int scan_set, keep_unknown;
  ddbst__scan_ctx scan;
  ddbst__json_cache parser_blocks; /* kept between parses */
};

/* Initialises `page` for `m` (allocating its name tables and scratch item
 * with the model's allocator): 0 or DDBST_ENOMEM (nothing then to release). */
int ddbst__page_init(ddbst_page *page, const ddbst_model *m);
void ddbst__page_release(ddbst_page *page);
/* The page a stream reader parses into (stream.c), for an owner that
 * measures what it holds. */
ddbst_page *ddbst__stream_page(ddbst_stream *s);

/* Parses `json` as an answer of `kind` into `page`: the number of items
 * (stream records; 0 for BatchWriteItem), or a negative code with `err`
 * filled (DDBST_EDYNAMODB for an error body, which the page then holds).
 * For DDBST__ANSWER_ERROR, the error's DDBST_DDB_* kind. */
int ddbst__page_parse(ddbst_page *page, ddbst__answer kind, const char *json,
                      size_t len, ddbst_error *err);

/* Item `i` (an index into page->items, whatever the page's kind) into `item`,
 * or as plain JSON. */
int ddbst__page_fill(const ddbst_page *page, uint32_t i, ddbst_item *item,
                     ddbst_error *err);
int ddbst__page_json_item(const ddbst_page *page, uint32_t i, ddbst_buf *out);
/* The JSON object of item `i`'s attributes (declared, then recovered facets,
 * in declaration order; for an item of no entity, every attribute), and
 * "undeclared" when it has attributes its entity does not declare. */
int ddbst__page_json_attrs(const ddbst_page *page, uint32_t i, ddbst_buf *out);

/* ,"<member>":{...} of item `i`'s attributes its entity does not declare,
 * when it has any. */
int ddbst__page_json_undeclared(const ddbst_page *page, uint32_t i,
                                const char *member, ddbst_buf *out);

/* ,"notProjected":[...] of the attributes of item `i`'s entity that the
 * index the page read does not project, when there are any (projection.c). */
int ddbst__page_json_unprojected(const ddbst_page *page, uint32_t i,
                                 ddbst_buf *out);

/* The path of item `i` ("Items[3]") into `buf`. */
void ddbst__page_item_path(const ddbst_page *page, uint32_t i, char *buf,
                           size_t cap);

/* ddbst_page_next_cursor of a page parsed by ddbst_page_parse_scan
 * (scan_page.c): 1 and the cursor, 0 on the last page, or an error; `out`
 * has been reset. */
int ddbst__page_scan_cursor(const ddbst_page *page,
                            const ddbst_cursor_keys *keys, int64_t now_us,
                            ddbst_buf *out, ddbst_error *err);

/* The text at `off` in the page (NUL-terminated). */
static inline const char *ddbst__page_text(const ddbst_page *page,
                                           uint32_t off) {
  return page->text.data + off;
}

/* ---- shared by the page's files (inline where the parser calls them for
 * every attribute) ---- */

/* Forgets the previous parse, keeping every buffer's memory; with
 * `keep_error` the error body's type, message and reasons stay. */
void ddbst__page_clear(ddbst_page *page, int keep_error);

/* 0 when item `i` of a page of items exists, else DDBST_EINVAL (items.c). */
int ddbst__page_check_index(const ddbst_page *page, int i, ddbst_error *err);

/* Where the page's item `i` is in page->items: itself, but for a write's
 * answer, whose error item (when there is one) may come first. */
static inline uint32_t ddbst__page_slot(const ddbst_page *page, int i) {
  if (page->kind == DDBST__ANSWER_WRITE && page->error_item == 0)
    return (uint32_t)i + 1;
  return (uint32_t)i;
}

static inline ddbst__strkey ddbst__page_name_key(const void *page,
                                                 uint32_t id) {
  const ddbst_page *pg = page;
  ddbst__strkey k = {pg->names[id], pg->name_lens[id]};
  return k;
}

/* The id of a name the model knows, or -1. */
static inline int32_t ddbst__page_name_id(const ddbst_page *pg, const char *s,
                                          size_t n) {
  const ddbst__strslot *slot =
      ddbst__strset_find(&pg->name_set, s, n, ddbst__page_name_key, pg);
  return slot && ddbst__strset_taken(&pg->name_set, slot) ? (int32_t)slot->entry
                                                          : -1;
}

/* The id of an item's name s[0..n) that follows the name of id `prev` (or
 * pg->nnames at the item's start, pg->nnames + 1 after a name the model
 * does not know), or -1: the items of a page nearly always repeat one
 * order of names, so the name that followed `prev` last time is compared
 * first (length, then bytes), and the hash is asked only when it differs. */
static inline int32_t ddbst__page_next_name_id(ddbst_page *pg, uint32_t prev,
                                               const char *s, size_t n) {
  int32_t g = pg->name_next[prev];
  if (g >= 0 && pg->name_lens[g] == n && ddbst__same_bytes(pg->names[g], s, n))
    return g;
  int32_t id = ddbst__page_name_id(pg, s, n);
  pg->name_next[prev] = id;
  return id;
}

/* Room for `need` elements of `size` bytes in `v` (capacity *cap, doubled
 * as needed): the array, or NULL when allocation fails (v unchanged). */
static inline void *ddbst__page_grow(const ddbst_allocator *a, void *v,
                                     uint32_t *cap, uint32_t need,
                                     size_t size) {
  if (need <= *cap) return v;
  uint32_t c = *cap ? *cap : 16;
  while (c < need) {
    if (c > UINT32_MAX / 2) return NULL;
    c *= 2;
  }
  if ((size_t)c > SIZE_MAX / size) return NULL;
  void *p = ddbst__realloc(a, v, (size_t)c * size);
  if (p) *cap = c;
  return p;
}

/* The AttributeValue type an attribute of type `t` is stored as. */
static inline int ddbst__av_of_type(ddbst__type t) {
  switch (t) {
  case DDBST__T_NUMBER:
  case DDBST__T_INTEGER:
  case DDBST__T_TTL:
    return DDBST__AV_N;
  case DDBST__T_BOOLEAN: return DDBST__AV_BOOL;
  case DDBST__T_BINARY: return DDBST__AV_B;
  case DDBST__T_LIST: return DDBST__AV_L;
  case DDBST__T_MAP: return DDBST__AV_M;
  case DDBST__T_STRING_SET: return DDBST__AV_SS;
  case DDBST__T_NUMBER_SET: return DDBST__AV_NS;
  default: return DDBST__AV_S;
  }
}

/* The tag DynamoDB writes for AttributeValue type `type` ("S", "BOOL"). */
static inline const char *ddbst__av_tag(int type) {
  static const char *const tags[] = {"S", "N",    "B", "BOOL", "NULL",
                                     "L", "M",    "SS", "NS",  "BS"};
  return type >= 0 && type < (int)(sizeof tags / sizeof tags[0]) ? tags[type]
                                                                  : "?";
}

/* L, M and the sets: kept as AttributeValue JSON, with a plain twin. */
static inline int ddbst__av_is_container(int t) {
  return t == DDBST__AV_L || t == DDBST__AV_M || t == DDBST__AV_SS ||
         t == DDBST__AV_NS || t == DDBST__AV_BS;
}

/* Appends "; throttled: <reason> (<what it means>) on <resource>; ..."
 * to the NUL-terminated sentence in `out` (throttling.c): nothing when the
 * body carried no ThrottlingReasons. Cut at `cap`. */
void ddbst__throttling_say(const ddbst_page *pg, char *out, size_t cap);

#endif
