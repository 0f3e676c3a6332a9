/* The compiled model: what the loader (load.h, compile.h) builds and
 * everything else reads. Names are resolved to indices and templates to
 * segments once, at load, so the hot path never parses or looks up a name. */
#ifndef DDBST_MODEL_H
#define DDBST_MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/forksafe.h"
#include "base/normalize.h"
#include "base/internal.h"
#include "model/types.h"

typedef enum {
  DDBST__DEF_NONE,
  DDBST__DEF_VALUE,    /* a literal, canonical at load */
  DDBST__DEF_NOW,      /* timestamps */
  DDBST__DEF_GENERATE  /* ULIDs */
} ddbst__default;

/* JSON text fixed at load, so bodies copy it instead of escaping names on
 * every call: `"PK":` for a name, `{"TableName":"t"` for a body's start. */
typedef struct ddbst__jtext {
  const char *p;
  uint32_t n;
  uint32_t raw_len; /* of the text it was made from: a name's own length */
} ddbst__jtext;

/* A name an expression may write (a key's, an attribute's), interned at
 * load: equal names share one address, so placeholders are deduplicated by
 * pointer, and its JSON string text ("orgId") is ready to copy. */
typedef struct ddbst__name {
  ddbst__jtext json;
  char text[]; /* the name itself: what the model's name fields point at */
} ddbst__name;

/* How a string facet's key text escapes what a key may not hold as it is
 * (facet_key.c): not at all (the delimiter is refused); %XX for '%' and the
 * delimiter's bytes ("escape": true; order is the escaped text's); or E XX
 * for every byte up to the delimiter's first and for E itself, E being the
 * byte just above it ("escape": "ordered": '$' after '#'; order is the
 * value's). */
enum { DDBST__ESCAPE_NONE, DDBST__ESCAPE_PERCENT, DDBST__ESCAPE_ORDERED };

typedef struct ddbst__attr {
  const char *name; /* interned: the text of a ddbst__name */
  ddbst__jtext jname;
  /* `"name":{"S":"` of a string-typed attribute (p NULL for the others):
   * an Item's member before its value */
  ddbst__jtext s_member;
  ddbst__type type;
  int precision; /* timestamps: DDBST__PREC_* */
  int width;     /* integers in keys: 0 = unpadded */
  int sortable_negative;
  int required;
  int escape;   /* DDBST__ESCAPE_*: a reversible escaping in keys */
  int normalize; /* DDBST__NORM_* (base/normalize.h): the Unicode form its
                    key text and unique guards take; the value is kept */
  /* A range may read its key text before the delimiter
   * (compile_ranges.c): the facet renderer refuses text that would sort
   * below it (ddbst__facet_order_break). */
  int range_checked;
  int implicit; /* added by the model (version, timestamps), not declared */
  const char **values; /* enum values */
  size_t *value_lens;  /* their lengths: checked on every set */
  unsigned char *value_scans; /* their DDBST__SCAN_* for this delimiter */
  size_t nvalues;
  ddbst__default def;
  const char *def_text;
  size_t def_len;
  /* what setting def_text records (DDBST__SCAN_*, compile_scans.c): a
   * string's or an enum value's, else 0 */
  unsigned char def_scan;
  int primary_facet; /* a facet of the table's primary key: immutable */
  const char *description; /* the model file's, NULL when none */
} ddbst__attr;

/* A template compiles to segments: literal text, or a facet (attribute index,
 * optionally lower-cased in the key only). */
typedef struct ddbst__seg {
  const char *text; /* literal; NULL for a facet */
  uint32_t len;
  int attr;
  int lower;
  int as_is; /* a facet copied as it is: not lower-cased, %-escaped or an
                integer's key form (the fast path of rendering) */
} ddbst__seg;

/* A facet with the literal before it ("" when none): the segments as the
 * fast path of rendering walks them, with no branch per segment. */
typedef struct ddbst__piece {
  const char *lit; /* in the arena: padded (DDBST__PAD) */
  uint32_t lit_len;
  int attr;
} ddbst__piece;

typedef struct ddbst__template {
  const char *source; /* as written in the model, for messages and docs */
  ddbst__seg *segs;
  int nsegs;
  int nfacets;
  int literals_plain; /* no literal byte needs a JSON escape */
  uint32_t literal_len; /* the literals' bytes: a key's length less its facets' */
  /* literals_plain and every facet as_is: the key is its literals and values
   * as they are, which render_simple (keys.c) writes from `pieces` (one per
   * facet) and `tail` (the literal after the last facet) when the values'
   * recorded scans are clean */
  int simple;
  ddbst__piece *pieces;
  const char *tail;
  uint32_t tail_len;
} ddbst__template;

/* A membership condition: `attr` equals one of `values` (canonical text). */
typedef struct ddbst__cond {
  int attr;
  const char **values;
  size_t *lens;
  size_t nvalues;
} ddbst__cond;

/* A facet of a key's JSON run (ddbst__jrun) and the text after it. */
typedef struct ddbst__jpiece {
  const char *lit; /* in the arena: padded */
  uint32_t lit_len;
  int attr;
  int key; /* 0: the partition key's facet, 1: the sort key's */
} ddbst__jpiece;

/* A key pair of simple templates (ddbst__template.simple) as members of the
 * keys object, made at load (compile_key_runs.c): the text before the
 * first facet (`"PK":"ORG#`), then each facet with the text up to the next
 * (`","SK":"PROJECT#`), the last ending in `",`. head is NULL when a
 * template is not simple. */
typedef struct ddbst__jrun {
  const char *head; /* in the arena: padded */
  uint32_t head_len;
  int npieces;
  ddbst__jpiece *pieces;
  uint32_t lits[2]; /* each key's literal bytes: with its facets, its length */
  uint32_t text_len; /* head and every piece's text: what the run adds to
                        its facets */
  uint32_t names_raw; /* the key names' own bytes, as the item size counts
                         them */
} ddbst__jrun;

/* How one entity is keyed in the table (index -1) or in a secondary index. */
typedef struct ddbst__ekey {
  int index;
  ddbst__template pk, sk; /* sk.nsegs == 0 when that key has no sort key */
  ddbst__jrun jrun;
  /* the same pair as members of an Item (`"PK":{"S":"ORG#` ... `"},`):
   * a put's keys written straight from the values (item_body.c) */
  ddbst__jrun avrun;
  ddbst__cond *when;
  int nwhen;
  /* Whether any facet of pk or sk is not a primary-key facet: only those say
   * whether the caller meant the item to be in the index. */
  int has_own_facets;
} ddbst__ekey;

typedef struct ddbst__unique {
  const char *name;
  ddbst__template tmpl;
  ddbst__jtext owner; /* {"S":"User.email"}: the guard item's entity type */
  /* The name of the entity's index key whose template is this guard's
   * (compile_guards.c), NULL when none: that key, once built, is the
   * guard's key too. */
  const ddbst__jtext *same_key;
} ddbst__unique;

/* A PutItem of one entity as fixed texts and values, made at load
 * (compile_put_plans.c) and written by request/put_plan.c: the body up to
 * the last key's value is steps of a text (padded in the arena) then a key
 * facet's value; each set attribute adds its `"},"name":{"S":"` and value;
 * the end closes the body. An entity it does not serve (keys not simple,
 * unique constraints) has none. */
typedef struct ddbst__pstep {
  const char *text;
  uint32_t len;
  int attr;
} ddbst__pstep;

typedef struct ddbst__put_plan {
  ddbst__pstep *steps;
  int nsteps;
  ddbst__jtext keys_end; /* after the last facet: `"},"_type":{"S":"Project` */
  const ddbst__jtext *members; /* per attribute: `"},"name":{"S":"`; p
                                  NULL: not a string */
  ddbst__jtext put_end;  /* `"}}}` */
  ddbst__jtext create_end; /* `"}},"ConditionExpression":...}}` */
  /* the indexes whose "when" conditions decide whether the item is in */
  const ddbst__ekey **conds;
  int nconds;
  size_t fixed; /* every text's bytes, the longer end's: the reservation */
  uint32_t key_literal_max; /* the longest key template's literal bytes */
} ddbst__put_plan;

/* A create of an entity with unique constraints (one TransactWriteItems
 * of the item's Put and each guard item's Put) as fixed texts and its
 * keys as parts, made at load (compile_create_plans.c) and written by
 * request/create_plan.c. A key is parts of a text (its JSON head and first
 * literal, or a literal) then a facet in the form the facet renderer gives
 * it: copied as it is, ASCII copied and lower-cased in words (an ASCII
 * value's normal form), or rendered by ddbst__facet_key_at; each guard's
 * key is copied from the index key with its template (else written from
 * its own parts), and its holder's copied from the item's key. */
enum {
  DDBST__CFORM_COPY,   /* the value as it is (ddbst__seg.as_is) */
  DDBST__CFORM_ASCII,  /* lower-cased when `fold`; with `need_ascii` (a
                          normal form) only when every byte is ASCII */
  DDBST__CFORM_RENDER  /* ddbst__facet_key_at: an integer, an escape, a
                          range check, a normal form of other text */
};

typedef struct ddbst__cpart {
  const char *text; /* in the arena: padded */
  uint32_t len;
  int attr;         /* the facet after the text; -1: none (the last part) */
  unsigned char form, fold, need_ascii, lower; /* lower: the seg's own */
} ddbst__cpart;

typedef struct ddbst__ckey {
  const ddbst__cpart *parts;
  int nparts;
  uint32_t head;  /* the bytes of parts[0]'s text before the key's own */
  int ekey;       /* -1: the table's key, or a guard's own; else
                     e->indexes[ekey] */
  int group;      /* the first plan key of its index (the table's keys
                     are one group) */
  int next;       /* the first plan key of another index: where a key of a
                     sparse index left out goes on */
  int when;       /* the index has "when" conditions: decided first */
  uint32_t limit; /* DynamoDB's length limit for this key */
} ddbst__ckey;

typedef struct ddbst__cguard {
  int key;           /* the plan key whose text is the guard's key, or -1 */
  ddbst__ckey own;   /* with key -1: its own template, `head` first */
  ddbst__jtext head; /* `,{"Put":{"TableName":..,"Item":{"PK":{"S":"` */
  ddbst__jtext holder; /* `"},"_type":{..},"holderKey":{"M":{"PK":{"S":"` */
  ddbst__jtext end;  /* `"}}}},"ConditionExpression":...}}` */
} ddbst__cguard;

/* The create of the common shape, flat (compile_create_flat.c): every
 * string attribute set and clean (an optional one may be unset), every
 * index in with its facets, each facet copied or ASCII lower-cased. Its
 * body is runs of fixed text, each then a value slot: slots
 * 0..nchecks-1 are attribute values, checked; the rest (nderives) are key
 * forms made from one of those per request (an e-mail lower-cased once,
 * copied where the guard repeats it). */
enum { DDBST__CSLOTS_MAX = 64, DDBST__CSTEPS_MAX = 256 };

typedef struct ddbst__cstep {
  const char *text; /* in the arena: padded */
  uint32_t len;
  uint32_t slot;    /* the value after the text */
} ddbst__cstep;

/* A value the body copies: its scan under `mask` exactly
 * DDBST__SCAN_KNOWN (set, not empty; a key's facet 7: no delimiter, no
 * escape; a member 6: no escape) and its length at most `max` (so that no
 * key passes its limit); or, when `optional` (neither a facet nor
 * required nor defaulted), unset. */
typedef struct ddbst__ccheck {
  int attr;
  uint32_t mask, max, optional;
} ddbst__ccheck;

/* A key form made from check `from`'s value: ASCII lower-cased when
 * `fold`; with `need_ascii` (a normal form) only when all of it is ASCII,
 * else the flat create does not serve. */
typedef struct ddbst__cderive {
  int from;
  unsigned char fold, need_ascii;
} ddbst__cderive;

typedef struct ddbst__cflat {
  const ddbst__cstep *steps;
  int nsteps;
  /* per step, its text's last bytes that are an optional attribute's
   * member, left out with it when it is unset */
  const uint32_t *cuts;
  const ddbst__ccheck *checks;
  int nchecks;
  const ddbst__cderive *derives;
  int nderives;
  ddbst__jtext end; /* after the last value: `"}}}},..}}]}` */
  size_t fixed;     /* every text's bytes */
  size_t uses;      /* the values the body copies: times the item's text,
                       with `fixed`, the room it reserves */
} ddbst__cflat;

typedef struct ddbst__create_plan {
  ddbst__jtext head;  /* `{"TransactItems":[{"Put":{"TableName":..,"Item":{` */
  ddbst__ckey *keys;
  int nkeys;
  ddbst__jtext type;  /* `"},"_type":{"S":"User` (empty: no entity
                         attribute); it and each member close the value
                         before them */
  const ddbst__jtext *members; /* per attribute: `"},"name":{"S":"`; p NULL:
                                  not a string */
  /* the attributes whose being set lets ddbst__prepare_write do nothing
   * (required, defaulted: ddbst__write_prepared's), unless `versioned` */
  int *must, nmust, versioned;
  int *strings, nstrings; /* the attributes with a member text, in order */
  int *others, nothers;   /* the others: written the general way */
  ddbst__jtext item_end; /* `"}},"ConditionExpression":...}}}` */
  ddbst__jtext sk_mid;   /* `"},"SK":{"S":"` (empty: no sort key) */
  ddbst__cguard *guards;
  int nguards;
  /* the reservation: fixed + room + room_per_byte * the item's text */
  size_t fixed, room, room_per_byte;
  const ddbst__cflat *flat; /* NULL: the entity has no flat create */
} ddbst__create_plan;

typedef struct ddbst__entity {
  const char *name;
  size_t name_len; /* the entity attribute's value, written per key build */
  ddbst__attr *attrs;
  int nattrs;
  ddbst__ekey key;
  ddbst__ekey *indexes; /* only the indexes this entity is in */
  int nindexes;
  ddbst__unique *uniques;
  int nuniques;
  int version_attr; /* -1 when none */
  int created_attr;
  int updated_attr;
  /* Filled at load, in attribute order, so that a write visits only the
   * attributes it may have to fill or demand. */
  int *default_attrs; /* a default, or created_attr / updated_attr */
  int ndefaults;
  int *required_attrs; /* required, or a facet of the primary key */
  int nrequired;
  /* What bounds the text of the keys a build writes, so that it reserves
   * once: the literals of every key template, the NULs after the keys and
   * the entity name, plus each facet attribute's value times the number of
   * templates it appears in. */
  size_t keys_fixed;
  int *key_facets, *key_facet_uses;
  int nkey_facets;
  size_t key_uses; /* the sum of key_facet_uses */
  /* Every key pair has its run (ddbst__jrun): the keys object can be
   * written straight from the values (keys.c, keys_json_simple). */
  int keys_simple;
  ddbst__jtext type_json; /* "_type":"Project", (empty: no entity attribute) */
  ddbst__jtext type_av;   /* "_type":{"S":"Project"}, (the same, in an Item) */
  /* The fixed bytes of the Item a put writes from the runs: every avrun's
   * text, type_av and every attribute's s_member and its `"},`; what the
   * values add is their length (item_body.c reserves once). */
  size_t item_fixed;
  /* compile_put_plans.c, in the arena: NULL when it serves no put */
  const ddbst__put_plan *put_plan;
  /* compile_create_plans.c, in the arena: NULL when it serves no create */
  const ddbst__create_plan *create_plan;
  /* compile_update_plans.c (model/update_plan.h), in the arena: NULL when
   * it serves no update */
  const struct ddbst__update_plan *update_plan;
  /* Loading only: its "attributes" could not be read, so names are not
   * checked against them (one missing block is one error, not one per
   * facet). */
  int attrs_unread;
  const char *description; /* the model file's, NULL when none */
} ddbst__entity;

typedef enum {
  DDBST__PROJ_ALL,
  DDBST__PROJ_KEYS_ONLY,
  DDBST__PROJ_INCLUDE
} ddbst__projection;

/* A pair of capacity figures the model declares (0: not declared). */
typedef struct ddbst__throughput {
  int64_t read, write;
} ddbst__throughput;

/* A global index's own settings (table.indexes.<name>): its on-demand
 * maximum and warm throughput, and contributor insights (-1: not
 * declared). */
typedef struct ddbst__index_settings {
  ddbst__throughput on_demand, warm;
  int contributor_insights;
} ddbst__index_settings;

typedef struct ddbst__index {
  const char *name;
  ddbst__index_settings settings;
  const char *pk_attr;
  const char *sk_attr; /* NULL when the index has no sort key */
  ddbst__jtext pk_jname, sk_jname;
  ddbst__projection projection;
  const char **include;
  size_t ninclude;
  /* A local secondary index (table.localIndexes): its partition key is the
   * table's (pk_attr is the table's name, and its ekeys' pk the entity's
   * own partition key template, never written twice); only its sort key is
   * an attribute of its own. Local indexes follow the global ones in
   * ddbst_model.indexes. */
  int local;
  /* A global index keyed natively on the entities' own attributes
   * (DynamoDB's multi-attribute keys): partitionKey and sortKey are lists
   * of 1 to 4 attribute names, nothing synthetic is written, and an item is
   * in the index exactly when it has every one. pk_attr and sk_attr are the
   * first of each list (names only: never written as keys); each entity's
   * ekey lists the attributes as facet-only segments, so membership and
   * update rules read them as they read templates. `types` are the
   * AttributeValue types ('S', 'N', 'B') of pk_attrs then sk_attrs, found
   * from the entities that are in the index. */
  int native;
  /* A key of the index that is one of the table's own (an inverted index
   * keyed on the table's sort key, a GSI on the table's partition key, a
   * local index's partition key): 0 own, 1 the table's partition key, 2 its
   * sort key. Written once, as the table's; the ekey's template for it is
   * the entity's own key.pk or key.sk. */
  int pk_shared, sk_shared;
  const char *pk_attrs[4], *sk_attrs[4];
  int npk, nsk;
  char types[8];
} ddbst__index;

/* DynamoDB's limits on a table's indexes. */
enum { DDBST__MAX_GSI = 20, DDBST__MAX_LSI = 5,
       DDBST__MAX_INDEXES = DDBST__MAX_GSI + DDBST__MAX_LSI };

/* Whether index `ix` writes a partition key attribute of its own (a
 * global index), or shares the table's (a local one). */
static inline int ddbst__index_own_pk(const ddbst__index *ix) {
  return !ix->local && !ix->native && !ix->pk_shared;
}

/* Whether every key of index `ix` is the table's own: then every item of
 * the table, unique guards too, is in it. */
static inline int ddbst__index_all_shared(const ddbst__index *ix) {
  return ix->pk_shared && !ix->local && (ix->sk_shared || !ix->sk_attr);
}

/* Whether index `ix` writes a sort key attribute of its own. */
static inline int ddbst__index_own_sk(const ddbst__index *ix) {
  return ix->sk_attr && !ix->native && !ix->sk_shared;
}

/* Whether index `ix` has key attributes ddbst writes (a template-keyed
 * index), rather than the entities' own (a native one). */
static inline int ddbst__index_written(const ddbst__index *ix) {
  return !ix->native;
}

/* A scan is declared so that review can see it (lint flags it, IAM grants
 * Scan for it); it is never the way a pattern ought to be served. */
typedef enum { DDBST__OP_GET, DDBST__OP_QUERY, DDBST__OP_SCAN } ddbst__op;

typedef struct ddbst__cursor_plan ddbst__cursor_plan;

typedef struct ddbst__pattern {
  const char *name;
  ddbst__op op;
  int *entities;
  int nentities;
  int index;    /* -1: the table */
  int range;    /* attribute index (in entities[0]) a range may name, or -1 */
  int descending;
  uint32_t limit_default; /* 0: none */
  uint32_t limit_max;     /* 0: none */
  /* For review (lint, doc). `ordered`: "order" or "range" was given, so the
   * pattern relies on sort-key order. `filter`: conditions applied after the
   * read, attribute indices of entities[0] (every entity of the pattern
   * declares the attribute). */
  int ordered;
  /* Items of other entities can fall in this pattern's key range (their keys
   * may share its prefix): the query filters on the entity attribute. */
  int type_filter;
  ddbst__cond *filter;
  int nfilter;
  const char *description; /* NULL when none */
  /* Query text fixed at load, so that a query copies it: the body up to the
   * partition key's condition,
   * {"TableName":"t","IndexName":"i","KeyConditionExpression":"#n0 = :v0
   * (the first name and value of every query body); and for a collection,
   * the literal start every entity's sort key shares (0 bytes when none). */
  ddbst__jtext query_head;
  const char *sk_common;
  uint32_t sk_common_len;
  /* The whole body of this pattern's commonest query, fixed at load
   * (compile_query_bodies.c): one entity, no filter, no sort-key condition
   * and no sort-key facet among the values. The text before the partition
   * key's {"S":...} (through "ExpressionAttributeValues":{":v0":) and after
   * it (the sort key's value, the order). n == 0: the pattern has none. */
  ddbst__jtext fixed_open, fixed_close;
  /* ,"Limit":N for the limit a query that gives none reads (the default,
   * else the maximum; n == 0: none), made at load (compile_query_bodies.c)
   * with limit_text_of its N. */
  ddbst__jtext limit_text;
  uint32_t limit_text_of;
  /* A query's cursor shape and layouts (model/cursor_layout.h), made at
   * load; NULL for other patterns. */
  const struct ddbst__cursor_plan *cursor;
} ddbst__pattern;

/* Stream view types, as DynamoDB spells them. */
typedef enum {
  DDBST__STREAM_NONE,
  DDBST__STREAM_KEYS_ONLY,
  DDBST__STREAM_NEW_IMAGE,
  DDBST__STREAM_OLD_IMAGE,
  DDBST__STREAM_NEW_AND_OLD_IMAGES
} ddbst__stream;

/* The table's settings beyond its keys (load_table_settings.c), for
 * CreateTable, its follow-ups and CloudFormation. -1: not declared. */
typedef struct ddbst__table_settings {
  ddbst__throughput on_demand, warm;
  int deletion_protection;
  int pitr;      /* point-in-time recovery: -1 (CloudFormation turns it on) */
  int pitr_days; /* 1..35; 0: DynamoDB's default */
  const char *table_class; /* NULL: DynamoDB's default, STANDARD */
  int contributor_insights;
  const char **tag_keys, **tag_values;
  int ntags;
  const char *resource_policy; /* the policy as compact JSON, or NULL */
} ddbst__table_settings;

struct ddbst_model {
  ddbst_allocator alloc;
  ddbst__arena arena;
  /* As the model (or the load's override) gives it: a name or a table
   * ARN, which DynamoDB takes wherever it takes a name. */
  const char *table_name;
  /* The name alone (the ARN's last part): what CloudFormation's TableName
   * and the docs show. */
  const char *table_plain_name;
  ddbst__table_settings settings;
  const char *pk_attr;
  const char *sk_attr; /* NULL when the table has no sort key */
  /* The key names (table's, indexes'), the entity attribute's and every
   * attribute's name point into this block of interned ddbst__name (see
   * ddbst__name_of); `name_list` lists them. */
  const char *names_lo, *names_hi;
  const ddbst__name **name_list;
  int nnames;
  const char *delim;
  size_t delim_len;
  /* DDBST__SCAN_* of every canonical timestamp and ULID: their alphabets
   * are fixed, so only the delimiter decides */
  unsigned char ts_scan, ulid_scan;
  const char *entity_attr; /* NULL when not configured */
  const char *ttl_attr;
  ddbst__jtext begin; /* {"TableName":"..." */
  ddbst__jtext pk_jname, sk_jname, entity_jname;
  /* The JSON names of every key attribute of the table and its indexes and
   * of the entity attribute, each with two quotes and a comma, and the
   * braces: any item's keys object less its values. */
  size_t keys_json_names;
  ddbst__stream stream;
  ddbst__index *indexes;
  int nindexes;
  ddbst__entity *entities;
  int nentities;
  ddbst__pattern *patterns;
  int npatterns;
  int max_attrs; /* the most attributes any entity has: item slot count */
  /* "cursors": "unsealed" (development only; lint flags it). */
  int cursors_unsealed;
  const char *description; /* the model file's, NULL when none */

  /* Monotonic ULID state: the one mutable part, behind its own lock. */
  struct ddbst__ulid_state *ulid;
};

struct ddbst__ulid_state {
  pthread_mutex_t lock;
  ddbst__fork_lock fork; /* the lock, held across fork() (forksafe.h) */
  unsigned long gen;     /* ddbst__fork_generation of rand; 0: none yet */
  uint64_t ms;
  uint8_t rand[10];
};

/* The interned entry of `name` when it is one of the model's name fields
 * (its address says so), else NULL. */
static inline const ddbst__name *ddbst__name_of(const ddbst_model *m,
                                                const char *name) {
  uintptr_t p = (uintptr_t)name;
  if (p < (uintptr_t)m->names_lo || p >= (uintptr_t)m->names_hi) return NULL;
  const char *entry = name - offsetof(ddbst__name, text);
  return (const ddbst__name *)(const void *)entry;
}

/* How entity `e` is keyed in index `index` (-1: the table's own key), or
 * NULL when the entity is not in that index. */
static inline const ddbst__ekey *ddbst__entity_key(const ddbst__entity *e,
                                                   int index) {
  if (index < 0) return &e->key;
  for (int i = 0; i < e->nindexes; i++)
    if (e->indexes[i].index == index) return &e->indexes[i];
  return NULL;
}

/* Limits DynamoDB puts on key attribute values, in bytes. */
enum { DDBST__PK_MAX = 2048, DDBST__SK_MAX = 1024 };
/* DynamoDB's limit on one item, in bytes (here, as the plans compiled at
 * load bound the items they write). */
enum { DDBST__ITEM_MAX = 400 * 1024 };

/* Facets one template may hold; keeps key parsing on the stack. */
enum { DDBST__MAX_FACETS = 16 };

/* Compiles template text `src` against an entity's attributes: "ORG#{orgId}",
 * "EMAIL#{email:lower}". Returns 0, or DDBST_EMODEL with `why` saying what is
 * wrong, or DDBST_ENOMEM. A facet must be followed by the end of the template
 * or by the delimiter, so that a key splits back into its facets unambiguously;
 * literals may not contain '{' or '}'. */
int ddbst__template_compile(ddbst__arena *ar, const char *src,
                            const ddbst__attr *attrs, int nattrs,
                            const char *delim, size_t delim_len,
                            ddbst__template *out, char *why, size_t why_cap);

/* Splits `key` along template `t`: literals must match exactly; each facet
 * runs to the next delimiter or the end. Fills spans[2*i], spans[2*i+1] with
 * the start and length of facet i. Returns 1 on a match, 0 otherwise. */
int ddbst__template_split(const ddbst__template *t, const char *key,
                          size_t len, const char *delim, size_t delim_len,
                          size_t *spans);

/* The first place s[0..n) holds the delimiter d[0..dn), or NULL (also for
 * an empty delimiter). memchr for its first byte, not a byte loop: keys,
 * facets and every opened cursor's keys are searched. */
static inline const char *ddbst__find_delim(const char *s, size_t n,
                                            const char *d, size_t dn) {
  if (dn == 0) return NULL;
  const char *end = s + n;
  for (const char *p = s; (size_t)(end - p) >= dn; p++) {
    p = memchr(p, d[0], (size_t)(end - p) - dn + 1);
    if (!p) return NULL;
    if (memcmp(p, d, dn) == 0) return p;
  }
  return NULL;
}

/* Whether templates `a` and `b` can produce one and the same key
 * (overlap.c); 1 also when unsure. */
int ddbst__templates_may_share(const ddbst__template *a,
                               const ddbst__template *b, const char *d,
                               size_t dn);
/* Whether template `t` can produce a key that starts with q[0..qn). */
int ddbst__template_may_start_with(const ddbst__template *t, const char *q,
                                   size_t qn, const char *d, size_t dn);

/* What decides at a glance that two templates cannot share a key, so that
 * the loader's checks compare only the pairs that may (overlap.c): how many
 * delimiter-separated parts the template's keys have, and its first part's
 * text hashed when that part is literal. Two templates both `known` cannot
 * share a key when their part counts differ, or when both heads are known
 * and their hashes differ (equal hashes prove nothing: compare them). */
typedef struct ddbst__tsig {
  uint8_t known;      /* 0: too many pieces to tell; compare */
  uint8_t head_known; /* part 0 holds no facet */
  uint16_t nparts;
  uint32_t head;      /* FNV-1a of part 0's text */
} ddbst__tsig;
void ddbst__template_sig(const ddbst__template *t, const char *d, size_t dn,
                         ddbst__tsig *sig);
/* The same of plain text q[0..qn): its parts, and its first part's hash. */
void ddbst__text_sig(const char *q, size_t qn, const char *d, size_t dn,
                     ddbst__tsig *sig);

/* A fresh monotonic ULID for `now_ms`. */
int ddbst__model_next_ulid(const ddbst_model *m, uint64_t now_ms, char out[26]);

#endif
