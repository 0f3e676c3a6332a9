/* ddbst — DynamoDB single-table design, exact, fast and safe.
 *
 * The whole public API. A service describes its table, entities and access
 * patterns once, in a model file; ddbst builds every key from it and reads keys
 * back, without doing any network I/O of its own.
 *
 * Conventions, true of every function below unless its comment says otherwise:
 *
 *  - Status: fallible calls return 0 on success or a negative DDBST_E* code.
 *    Calls that look something up return an index >= 0 or a negative code.
 *  - Errors: `err` may be NULL. When it is not, a failing call fills it with the
 *    code, the path of what was wrong ("entities.User.attributes.email",
 *    "facet orgId") and a message; a successful call leaves it untouched.
 *  - Ownership: handles returned by *_new / *_load belong to the caller, who
 *    releases them with the matching *_free (NULL is accepted and ignored).
 *    Strings returned by the library point into the object they came from and
 *    stay valid until that object is changed or freed; the library never keeps
 *    pointers to caller memory after a call returns.
 *  - Threads: a loaded ddbst_model is immutable and may be used from any number
 *    of threads at once. An item or buffer is used by one thread at a time.
 *    Every function is reentrant. The one process-wide state is a list of
 *    the locks models and cursor keyrings hold inside, which pthread_atfork
 *    handlers take across fork(): a process may fork while its other
 *    threads use ddbst, and the child finds every such lock free (and draws
 *    its own nonces and ULID randomness).
 *  - Allocation: objects that allocate take an optional ddbst_allocator; NULL
 *    means malloc/realloc/free. Allocation failure is DDBST_ENOMEM, never an
 *    abort, and leaves the object as it was before the call.
 *  - Lengths: every text the API takes as a pointer and a length (values,
 *    keys, expressions, JSON, cursors, model files) may be given the length
 *    DDBST_NUL_TERMINATED instead: the text then runs to its first NUL.
 *    A NULL pointer with a length of 0 (or DDBST_NUL_TERMINATED) is "".
 *  - Time: every function that needs the current instant (defaults of
 *    "now", updatedAt, a cursor's issue time and maximum age) takes it as
 *    `int64_t now_unix_us`, microseconds since the epoch, and DDBST_NOW (0)
 *    means "read the clock" (once per call, so one write uses one instant).
 *    Give an instant to make the output reproducible (tests, replays); the
 *    epoch itself is given as 1.
 */
#ifndef DDBST_H
#define DDBST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DDBST_STATIC)
#define DDBST_API
#elif defined(_WIN32)
#ifdef DDBST_BUILDING
#define DDBST_API __declspec(dllexport)
#else
#define DDBST_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define DDBST_API __attribute__((visibility("default")))
#else
#define DDBST_API
#endif

/* ---- version ------------------------------------------------------------ */

#define DDBST_VERSION_MAJOR 0
#define DDBST_VERSION_MINOR 2
#define DDBST_VERSION_PATCH 0
#define DDBST_VERSION_STRING "0.2.0"
/* The model-file format this library reads ("ddbst": 1). */
#define DDBST_MODEL_FORMAT 1

/* The library's version, "MAJOR.MINOR.PATCH" (static string). */
DDBST_API const char *ddbst_version(void);

/* ---- errors ------------------------------------------------------------- */

#define DDBST_OK 0
#define DDBST_EINVAL (-1)    /* an argument is invalid (NULL handle, bad index) */
#define DDBST_ENOMEM (-2)    /* an allocation failed */
#define DDBST_ESYNTAX (-3)   /* input is not well-formed (JSON, an expression) */
#define DDBST_EMODEL (-4)    /* the model file is well-formed but wrong */
#define DDBST_EVALUE (-5)    /* a value is not valid for its attribute */
#define DDBST_EMISSING (-6)  /* a value the operation needs is missing */
#define DDBST_ENOTFOUND (-7) /* no such entity, attribute or pattern; a key of no entity */
#define DDBST_ERANGE (-8)    /* a key or value is too long or out of range */
#define DDBST_EIO (-9)       /* a file could not be read */
#define DDBST_ENOSPC (-10)   /* a caller's fixed-size buffer is too small */
#define DDBST_ECURSOR (-11)  /* a pagination cursor was refused */
#define DDBST_EDYNAMODB (-12) /* DynamoDB answered with an error (see ddbst_page_*) */

#define DDBST_ERROR_PATH_MAX 256
#define DDBST_ERROR_MESSAGE_MAX 256

/* Details of a failure. A plain fixed-size struct the caller owns (a stack
 * variable is fine); reserved fields are zero and may carry meaning later. */
typedef struct ddbst_error {
  int32_t code;     /* the DDBST_E* code the call returned */
  uint32_t reserved0;
  uint64_t offset;  /* byte offset in the input, where there is one; else 0 */
  /* 1-based line and column (bytes) in a model file or other JSON input:
   * where a syntax error stopped the parser, or the start of the member
   * (its quoted name) or element a model error is about; else 0. */
  uint32_t line;
  uint32_t column;
  uint64_t reserved1[4];
  /* What was wrong, as a path: "entities.User.key.sk", "facet orgId",
   * "cursor". Empty when the error is about the call as a whole. */
  char path[DDBST_ERROR_PATH_MAX];
  /* A sentence a person can act on. Always NUL-terminated. */
  char message[DDBST_ERROR_MESSAGE_MAX];
} ddbst_error;

/* The length of a text that runs to its first NUL (see "Lengths" above). */
#define DDBST_NUL_TERMINATED ((size_t)-1)
/* The `now_unix_us` that reads the clock (see "Time" above). */
#define DDBST_NOW ((int64_t)0)

/* A static, never-NULL description of a DDBST_E* code ("value not valid"). */
DDBST_API const char *ddbst_strerror(int code);

/* "Did you mean": the index of the name among `candidates` (`count` of
 * them; NULL entries are skipped) closest to the unknown `word`, by the rule
 * the library's own messages use ("User has no attribute customerID; did
 * you mean customerId?"): letter case aside, at most 1 edit (an insertion,
 * deletion, substitution or swap of neighbours) for names up to 4 bytes, 2
 * up to 8, 3 beyond; a case-only difference wins; the first of equally
 * close names wins (and `word` itself, when it is among them).
 * DDBST_ENOTFOUND when none is close enough, DDBST_EINVAL for a NULL
 * `word`. Does not allocate;
 * thread-safe. For bindings and tools that name their own options. */
DDBST_API int ddbst_suggest(const char *word, const char *const *candidates,
                            size_t count);

/* ---- allocation --------------------------------------------------------- */

/* Allocator hooks, given to the objects that allocate, never process-wide.
 * All three functions must be set. `user` is passed back unchanged. The struct
 * is copied: it need not outlive the call that receives it. */
typedef struct ddbst_allocator {
  void *(*malloc)(void *user, size_t size);
  void *(*realloc)(void *user, void *ptr, size_t size);
  void (*free)(void *user, void *ptr);
  void *user;
} ddbst_allocator;

/* ---- buffers ------------------------------------------------------------ */

/* A growable output buffer: JSON documents and key lists are written into it.
 * Reuse one across calls: its memory is kept, so steady-state use does not
 * allocate. Output is always NUL-terminated.
 *
 * Replace or append: every function that writes its output into a
 * ddbst_buf `out` REPLACES what the buffer held — on success it holds
 * exactly that one output (one request body, one document), on failure it
 * is empty — so one buffer reused for request after request needs no
 * ddbst_buf_reset. Only the functions whose names end in _append add to
 * what is there instead (and leave it as it was on failure): the
 * ddbst_buf_append* functions below, and ddbst_item_keys_json_append,
 * ddbst_page_item_json_append and ddbst_stream_record_json_append, for a
 * response that holds several. (ddbst_item_append is no buffer function:
 * it marks a list append in an update.) */
typedef struct ddbst_buf ddbst_buf;

/* A new empty buffer, or NULL when allocation fails. Free with ddbst_buf_free. */
DDBST_API ddbst_buf *ddbst_buf_new(const ddbst_allocator *alloc);
DDBST_API void ddbst_buf_free(ddbst_buf *buf);
/* Empties the buffer, keeping its memory. */
DDBST_API void ddbst_buf_reset(ddbst_buf *buf);
/* The contents (never NULL, NUL-terminated; valid until the next change). */
DDBST_API const char *ddbst_buf_data(const ddbst_buf *buf);
DDBST_API size_t ddbst_buf_len(const ddbst_buf *buf);
/* Appends `len` bytes of `data` (DDBST_NUL_TERMINATED: up to its NUL), for a
 * request or document ddbst does not write. DDBST_EINVAL for a NULL buffer
 * or NULL data with a length; DDBST_ENOMEM leaves the buffer as it was. The
 * bytes are copied as they are: JSON text needs ddbst_buf_append_json_string
 * for its strings. */
DDBST_API int ddbst_buf_append(ddbst_buf *buf, const char *data, size_t len);
/* Appends `text` as one JSON string, quoted and escaped as ddbst's own
 * writer escapes ("a\"b" for a"b, \u001f for control characters).
 * DDBST_EVALUE for text that is not UTF-8, DDBST_EINVAL, DDBST_ENOMEM; on
 * error the buffer is as it was. */
DDBST_API int ddbst_buf_append_json_string(ddbst_buf *buf, const char *text,
                                           size_t len);
/* Cuts the buffer back to its first `len` bytes (to undo what was appended
 * since ddbst_buf_len returned `len`); a larger `len` changes nothing.
 * Keeps its memory. */
DDBST_API void ddbst_buf_truncate(ddbst_buf *buf, size_t len);
/* Makes room for `extra` more bytes, so that appending them does not
 * allocate (an FFI caller sizing a buffer once). DDBST_EINVAL, DDBST_ENOMEM. */
DDBST_API int ddbst_buf_reserve(ddbst_buf *buf, size_t extra);

/* ---- models ------------------------------------------------------------- */

/* A compiled model: table, entities, key templates, access patterns. Immutable
 * once loaded; share it between threads freely. */
typedef struct ddbst_model ddbst_model;

/* Called once for every problem found in a model file, in the order the
 * loader meets them: object by object through the document, each object's
 * unknown fields first, then its other fields in document order. One
 * mistake is one problem: a field misspelt where a required one is missing
 * is reported as "unknown field 'atributes'; did you mean attributes?"
 * alone; an entity or index name the model does not declare, where it is
 * first named; an entity's facets are not checked when its attributes
 * could not be read. Messages about a name the model lacks end with
 * "; did you mean X?" when one is close (ddbst_suggest's rule). Once an
 * allocation fails the load is DDBST_ENOMEM and nothing more is reported. */
typedef void (*ddbst_error_fn)(void *user, const ddbst_error *err);

/* Options for loading a model. Zero-initialise, set `size` to
 * sizeof(ddbst_load_options) (so the struct can grow without breaking callers),
 * then set what you need. */
typedef struct ddbst_load_options {
  uint32_t size;
  uint32_t flags;           /* reserved, 0 */
  /* Overrides table.name, e.g. from a TABLE_NAME variable per stage; a
   * table's ARN (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME) is taken as
   * well, and then names the table in every request. */
  const char *table_name;
  const ddbst_allocator *allocator;
  /* When set, receives every error in the model, not only the first. */
  ddbst_error_fn on_error;
  void *on_error_user;
} ddbst_load_options;

/* Compiles the model file in `json` (`len` bytes, need not be NUL-terminated).
 * On success stores a new model in *out (free with ddbst_model_free). On
 * failure *out is NULL and `err` holds the first problem reported (see
 * ddbst_error_fn for the order): DDBST_ESYNTAX with
 * line and column for malformed JSON (and with the JSON path too for text
 * that is not text, NUL, a name given twice in one object, nesting past 64
 * levels: "table.name: name given twice"), DDBST_EMODEL with the JSON path
 * for everything else, DDBST_ERANGE for a document of 4 GiB or more (refused
 * unread), DDBST_ENOMEM. `opts` may be NULL. */
DDBST_API int ddbst_model_load(const char *json, size_t len,
                               const ddbst_load_options *opts,
                               ddbst_model **out, ddbst_error *err);

/* ddbst_model_load on the contents of a file; DDBST_EIO when it cannot be read. */
DDBST_API int ddbst_model_load_file(const char *path,
                                    const ddbst_load_options *opts,
                                    ddbst_model **out, ddbst_error *err);

/* Frees a model and everything it owns. Items, pages, transactions and
 * batches made from it must be freed first. NULL is ignored. */
DDBST_API void ddbst_model_free(ddbst_model *model);

/* The table name in force (the override given at load, else table.name):
 * a name, or the table's ARN when that is what was given. */
DDBST_API const char *ddbst_model_table_name(const ddbst_model *model);

/* Entities, in the order the model file declares them. */
DDBST_API int ddbst_model_entity_count(const ddbst_model *model);
/* The index of entity `name`, or DDBST_ENOTFOUND. */
DDBST_API int ddbst_model_entity(const ddbst_model *model, const char *name);
/* The name of entity `entity`, or NULL when out of range. */
DDBST_API const char *ddbst_model_entity_name(const ddbst_model *model,
                                              int entity);

/* Attributes of an entity, by index in declaration order (implicit ones —
 * the version and automatic timestamps when not declared — come last). */
DDBST_API int ddbst_model_attribute_count(const ddbst_model *model, int entity);
/* The index of attribute `name` of `entity`, or DDBST_ENOTFOUND. */
DDBST_API int ddbst_model_attribute(const ddbst_model *model, int entity,
                                    const char *name);
DDBST_API const char *ddbst_model_attribute_name(const ddbst_model *model,
                                                 int entity, int attribute);
/* The attribute's type as the model file spells it ("string", "integer",
 * "timestamp", ...), or NULL when out of range. */
DDBST_API const char *ddbst_model_attribute_type(const ddbst_model *model,
                                                 int entity, int attribute);

/* Access patterns, in declaration order. */
DDBST_API int ddbst_model_pattern_count(const ddbst_model *model);
DDBST_API int ddbst_model_pattern(const ddbst_model *model, const char *name);
DDBST_API const char *ddbst_model_pattern_name(const ddbst_model *model,
                                               int pattern);
/* The i-th entity a pattern reads (a collection reads several; a get one),
 * or DDBST_ENOTFOUND past the last; DDBST_EINVAL for a bad pattern. */
DDBST_API int ddbst_model_pattern_entity(const ddbst_model *model, int pattern,
                                         int i);
/* 1 when the pattern is a query, 0 when it is a get, DDBST_EINVAL. */
DDBST_API int ddbst_model_pattern_is_query(const ddbst_model *model,
                                           int pattern);

/* Writes a JSON description of every access pattern into `out` (replacing):
 * operation, entities, index, key templates, sort-key range facet, order and
 * limits. For reviews, docs and the CLI. */
DDBST_API int ddbst_model_patterns_json(const ddbst_model *model,
                                        ddbst_buf *out, ddbst_error *err);

/* ---- items -------------------------------------------------------------- */

/* The attribute values of one item of one entity, by attribute index, in their
 * canonical text. Reusable: ddbst_item_reset clears it for the next item while
 * keeping its memory. Holds a pointer to the model, which must outlive it. */
typedef struct ddbst_item ddbst_item;

/* A new item of `entity`, or NULL (bad entity or no memory). Uses the model's
 * allocator. Free with ddbst_item_free. */
DDBST_API ddbst_item *ddbst_item_new(const ddbst_model *model, int entity);
DDBST_API void ddbst_item_free(ddbst_item *item);

/* Clears every value and makes the item one of `entity` (DDBST_EINVAL when out
 * of range). */
DDBST_API int ddbst_item_reset(ddbst_item *item, int entity);
DDBST_API int ddbst_item_entity(const ddbst_item *item);

/* Sets an attribute from text, typed by the model: a string as is; an integer
 * or number as decimal text; a boolean as true/false; a timestamp as ISO-8601
 * with any offset and fraction (stored as UTC at the attribute's precision); a
 * ULID in either case (stored upper-case); an enum as one of its values;
 * binary as standard base64; a list, map or set as JSON text (a set holds
 * each element once, numbers by value: [1, 1.0] is refused; a map each name
 * once). Values must be valid UTF-8 without NUL bytes. DDBST_EVALUE names the attribute on refusal;
 * the item keeps its previous value then. */
DDBST_API int ddbst_item_set(ddbst_item *item, int attribute, const char *text,
                             size_t len, ddbst_error *err);
/* An integer or number attribute from a C integer. */
DDBST_API int ddbst_item_set_int(ddbst_item *item, int attribute, int64_t value,
                                 ddbst_error *err);
/* A boolean attribute. */
DDBST_API int ddbst_item_set_bool(ddbst_item *item, int attribute, int value,
                                  ddbst_error *err);
/* Forgets an attribute's value. */
DDBST_API int ddbst_item_unset(ddbst_item *item, int attribute);

/* The canonical text of an attribute: 1 and *text, *len when set, 0 when not,
 * DDBST_EINVAL for a bad index. The text is NUL-terminated and stays valid
 * until the item changes. */
DDBST_API int ddbst_item_get(const ddbst_item *item, int attribute,
                             const char **text, size_t *len);

/* By name: the same as the index forms above, with the attribute named as
 * the model file names it ("createdAt"). A name the entity lacks is
 * DDBST_ENOTFOUND at "Entity.name", with "did you mean" when one is close.
 * Each call looks the name up (a short scan of the entity's attributes):
 * the index forms stay the fast path (tests/bench: set_by_name). */
DDBST_API int ddbst_item_set_by_name(ddbst_item *item, const char *name,
                                     const char *text, size_t len,
                                     ddbst_error *err);
DDBST_API int ddbst_item_set_int_by_name(ddbst_item *item, const char *name,
                                         int64_t value, ddbst_error *err);
DDBST_API int ddbst_item_set_bool_by_name(ddbst_item *item, const char *name,
                                          int value, ddbst_error *err);
/* ddbst_item_get by name: 1, 0, DDBST_ENOTFOUND or DDBST_EINVAL. */
DDBST_API int ddbst_item_get_by_name(const ddbst_item *item, const char *name,
                                     const char **text, size_t *len);

/* Sets every value of a JSON object in one call, as the JSON entry reads
 * its "values" (docs/ffi.md): {"orgId":"acme","priority":3,"done":false,
 * "tags":["a","b"],"note":null}. A string is the value's text (as
 * ddbst_item_set reads it); a number only for integer, number and ttl
 * attributes, true/false only for booleans; arrays and objects for list,
 * map and set attributes; null leaves an attribute alone. All or nothing:
 * on any error the item holds the values it held before. Errors:
 * DDBST_ESYNTAX (not JSON, or JSON text that is not text: at the path of
 * the string, "orgId"), DDBST_EINVAL (not an object), DDBST_ENOTFOUND (an
 * attribute the entity lacks, path "orgId", with "did you mean"),
 * DDBST_EVALUE (a number or boolean for another type, path "orgId"; a
 * value ddbst_item_set refuses, path "Entity.orgId"), DDBST_ENOMEM.
 * Allocates for the parse. */
DDBST_API int ddbst_item_set_json(ddbst_item *item, const char *json,
                                  size_t len, ddbst_error *err);

/* Fills every unset attribute that has a default: literal defaults, "now" for
 * timestamps (at `now_unix_us`, microseconds since the epoch, so one write can
 * use one instant; DDBST_NOW for the clock, see "Time" above) and generated ULIDs
 * (monotonic per model, random bits from libsodium). */
DDBST_API int ddbst_item_apply_defaults(ddbst_item *item, int64_t now_unix_us,
                                        ddbst_error *err);

/* The wall clock in microseconds since the epoch. */
DDBST_API int64_t ddbst_now_unix_us(void);

/* Checks required attributes: DDBST_EMISSING naming the first one unset. */
DDBST_API int ddbst_item_check_required(const ddbst_item *item,
                                        ddbst_error *err);

/* The item's size by DynamoDB's rules (attribute names and values, keys
 * included: they are built first, with ddbst_item_build_keys's errors).
 * Writes of items over 400 KB (409600 bytes) are refused with DDBST_ERANGE
 * before any request is built. */
DDBST_API int ddbst_item_size(ddbst_item *item, ddbst_error *err);

/* ---- keys --------------------------------------------------------------- */

/* Builds every key attribute the item would be written with: the table's
 * partition and sort key, the keys of each index the entity is in whose facets
 * are all present and whose membership condition holds, and the entity-type
 * attribute. Returns how many there are (>= 0), or:
 *   DDBST_EMISSING  a primary-key facet is unset, or some but not all of an
 *                   index's facets are set (the path names what is missing);
 *   DDBST_EVALUE    a facet value contains the delimiter or is empty, or
 *                   (a facet a range reads before the delimiter) holds a
 *                   character that would sort out of place there, such as a
 *                   space before '#' (docs/queries.md);
 *   DDBST_ERANGE    a partition key would pass 2048 bytes or a sort key 1024.
 * The keys are kept in the item; read them with ddbst_item_key. */
DDBST_API int ddbst_item_build_keys(ddbst_item *item, ddbst_error *err);

/* Key attribute `i` (0 <= i < the count ddbst_item_build_keys returned): its
 * attribute name and value, both NUL-terminated, valid until the item changes.
 * Any out-pointer may be NULL. DDBST_EINVAL when `i` is out of range. */
DDBST_API int ddbst_item_key(const ddbst_item *item, int i, const char **name,
                             const char **value, size_t *value_len);

/* The keys ddbst_item_build_keys would build, into `out` (replacing) as one
 * JSON object, with the same errors (on error `out` is empty):
 * {"PK":"ORG#123","SK":"USER#9","GSI1PK":"EMAIL#ann@example.com","_type":"User"}
 * It does not change the item's key list: ddbst_item_key reads what
 * ddbst_item_build_keys last built. */
DDBST_API int ddbst_item_keys_json(ddbst_item *item, ddbst_buf *out,
                                   ddbst_error *err);
/* The same, appended to what `out` holds (on error `out` is as it was). */
DDBST_API int ddbst_item_keys_json_append(ddbst_item *item, ddbst_buf *out,
                                          ddbst_error *err);

/* The reverse: which entity a key belongs to, and its facet values. `index` is
 * NULL for the table's own key or the name of a secondary index; `sk` may be
 * NULL when that key has no sort key. On success the item is reset to the
 * entity found, holds the facet values (canonical; a lower-cased facet comes
 * back lower-cased), and the entity index is returned. DDBST_ENOTFOUND when no
 * entity's templates match, DDBST_EVALUE when one matches in shape but a facet
 * is not a canonical value of its type. */
DDBST_API int ddbst_item_from_key(ddbst_item *item, const char *index,
                                  const char *pk, size_t pk_len, const char *sk,
                                  size_t sk_len, ddbst_error *err);

/* ---- update operations on an item ---- */

/* Marks an attribute for REMOVE in an update (removing a facet of a sparse
 * index takes the item out of that index). */
DDBST_API int ddbst_item_remove(ddbst_item *item, int attribute);
/* Marks an ADD in an update: a number delta for an integer or number, or
 * elements (a JSON array) for a string or number set. DDBST_EVALUE for other
 * types; an update refuses ADD on a key facet. */
DDBST_API int ddbst_item_add(ddbst_item *item, int attribute, const char *text,
                             size_t len, ddbst_error *err);
/* Marks a list append in an update: `json` is a JSON array of the elements. */
DDBST_API int ddbst_item_append(ddbst_item *item, int attribute,
                                const char *json, size_t len,
                                ddbst_error *err);
/* GetItem and Query return only the attributes marked here, plus the keys
 * and entity type that identify the item (batch and transaction reads
 * return whole items). None marked: the whole item. Cleared by
 * ddbst_item_reset. */
DDBST_API int ddbst_item_project(ddbst_item *item, int attribute);

/* The value an attribute had before this update. An update that changes a
 * unique attribute needs it: the old guard item is deleted and the new one
 * written in the same transaction, conditional on the item holding the old
 * value. Cleared by ddbst_item_reset. */
DDBST_API int ddbst_item_set_previous(ddbst_item *item, int attribute,
                                      const char *text, size_t len,
                                      ddbst_error *err);
/* Optimistic locking: the write succeeds only if the item's version attribute
 * equals `version`, and stores version + 1. DDBST_EINVAL when the entity has
 * no version attribute; DDBST_ERANGE for a version below 1 (versions start at
 * 1) or at INT64_MAX (it has no next). Cleared by ddbst_item_reset. */
DDBST_API int ddbst_item_expect_version(ddbst_item *item, int64_t version);

/* ---- conditions, filters and update actions ---- */

/* An expression over an entity's attributes, compiled once against the
 * model: a condition on a write, a filter on a query, or update actions.
 * docs/conditions.md has the grammar of both forms, the table of what each
 * becomes and worked examples. Compiling resolves every name (an attribute
 * of the entity, or a path into a map or list attribute:
 * payload.items[2].qty) and types every value by the attribute it meets:
 * an enum value must be one of its values, a number is compared
 * numerically, a timestamp is made canonical. Values known only per
 * request are parameters (:qty), bound on the item (ddbst_item_bind) and
 * typed when the request is built.
 *
 * A compiled expression is immutable: share it between threads and give it
 * to any number of items and requests. Building a request with one does not
 * allocate once the item has carried it (or one as large) before. */
typedef struct ddbst_expr ddbst_expr;

#define DDBST_EXPR_CONDITION 1 /* ConditionExpression of a write or check */
#define DDBST_EXPR_FILTER 2    /* FilterExpression of a query */
#define DDBST_EXPR_UPDATE 3    /* actions of an UpdateExpression */

/* Compiles the text form for entity `entity`:
 *   'status = "draft" and size(tags) < 10'         (a condition or filter)
 *   'set views = views + 1 remove draftNote'       (update actions)
 * `len` bytes, need not be NUL-terminated. On success *out is the new
 * expression (free with ddbst_expr_free). Errors (the path is "condition",
 * "filter" or "update"):
 *   DDBST_ESYNTAX    the text is not of the grammar: offset and column
 *                    point at the character, the message says what was
 *                    expected ("at character 12: expected ')'");
 *   DDBST_ENOTFOUND  no such attribute; the message names the one meant
 *                    when one is close ("did you mean status?");
 *   DDBST_EVALUE     a value its attribute cannot hold ("lost" for an enum
 *                    without it), a comparison that can never hold (an
 *                    order on a boolean), a path into a string;
 *   DDBST_EINVAL     a bad model, entity or kind; a key attribute ddbst
 *                    writes (PK); an action on what the key rules keep
 *                    (a key facet, a unique attribute, the version);
 *   DDBST_ENOMEM. */
DDBST_API int ddbst_expr_parse(const ddbst_model *model, int entity, int kind,
                               const char *text, size_t len, ddbst_expr **out,
                               ddbst_error *err);

/* The same for the JSON form, as the JSON entry and bindings give it:
 *   {"and": [{"=": ["status", "draft"]}, {"<": [{"size": "tags"}, 10]}]}
 *   [{"set": ["views", {"+": ["views", 1]}]}, {"remove": "draftNote"}]
 * with the same errors, their path the JSON path ("condition.and[1].<[0]");
 * malformed JSON is DDBST_ESYNTAX with offset, line and column. */
DDBST_API int ddbst_expr_parse_json(const ddbst_model *model, int entity,
                                    int kind, const char *json, size_t len,
                                    ddbst_expr **out, ddbst_error *err);

/* Frees an expression. No item may still carry it. NULL is ignored. */
DDBST_API void ddbst_expr_free(ddbst_expr *expr);

/* The item's next put, update, delete or ConditionCheck (ddbst_txn_check)
 * holds only if `condition` (a DDBST_EXPR_CONDITION of the item's entity)
 * does: it is combined with the conditions ddbst adds itself (the item
 * exists, the expected version, unique values) as (ddbst's) AND (yours),
 * so neither changes the other's meaning. A create refuses it (no item is
 * there to hold it); a get or a batch write refuses it. The item keeps a
 * pointer to `condition`, which must outlive its use; ddbst_item_reset
 * forgets it. The first time an item carries an expression larger than
 * any before, its placeholder lists grow: DDBST_ENOMEM. */
DDBST_API int ddbst_item_condition(ddbst_item *item,
                                   const ddbst_expr *condition,
                                   ddbst_error *err);

/* The item's next update also applies `actions` (a DDBST_EXPR_UPDATE of
 * its entity), after its own values, removes, adds and appends. An
 * attribute both set on the item and named by an action is refused when
 * the update is built (DynamoDB refuses overlapping paths). Kept and
 * forgotten as ddbst_item_condition's. */
DDBST_API int ddbst_item_update(ddbst_item *item, const ddbst_expr *actions,
                                ddbst_error *err);

/* Conveniences: compile `text` (the text form) for the item's entity and
 * carry it, as ddbst_expr_parse and ddbst_item_condition /
 * ddbst_item_update would; the item owns it, and its next reset frees it.
 * Each call compiles, so it allocates: compile once for a hot path. */
DDBST_API int ddbst_item_condition_text(ddbst_item *item, const char *text,
                                        size_t len, ddbst_error *err);
DDBST_API int ddbst_item_update_text(ddbst_item *item, const char *text,
                                     size_t len, ddbst_error *err);

/* The value of parameter `param` ("qty" or ":qty") for the item's next
 * request, as text: typed where the expression uses it, as ddbst_item_set
 * reads values of that attribute, or as JSON inside a map or list
 * attribute. Binding a name again replaces its value. At most 16
 * parameters (DDBST_ERANGE); DDBST_EINVAL for a bad name; DDBST_EVALUE
 * for text that is not UTF-8. The text is copied. A value its use refuses
 * is DDBST_EVALUE from the builder (path "params.qty"), and a parameter
 * the expression uses but the item has no value for is DDBST_EMISSING.
 * ddbst_item_reset forgets every binding. */
DDBST_API int ddbst_item_bind(ddbst_item *item, const char *param,
                              const char *text, size_t len, ddbst_error *err);

/* ---- requests ---- */

/* What a body is for: send it with the header
 * X-Amz-Target: DynamoDB_20120810.<ddbst_operation_name(op)> and
 * Content-Type: application/x-amz-json-1.0. The builders return these. */
#define DDBST_OP_GET_ITEM 1
#define DDBST_OP_PUT_ITEM 2
#define DDBST_OP_UPDATE_ITEM 3
#define DDBST_OP_DELETE_ITEM 4
#define DDBST_OP_QUERY 5
#define DDBST_OP_BATCH_GET_ITEM 6
#define DDBST_OP_BATCH_WRITE_ITEM 7
#define DDBST_OP_TRANSACT_WRITE_ITEMS 8
#define DDBST_OP_TRANSACT_GET_ITEMS 9
#define DDBST_OP_CREATE_TABLE 10
#define DDBST_OP_DESCRIBE_TABLE 11
#define DDBST_OP_DELETE_TABLE 12
#define DDBST_OP_UPDATE_TABLE 13
#define DDBST_OP_SCAN 14
/* The follow-ups of CreateTable for what it cannot set (numbered apart
 * from the data-plane operations). */
#define DDBST_OP_UPDATE_CONTINUOUS_BACKUPS 20
#define DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS 21
#define DDBST_OP_UPDATE_TIME_TO_LIVE 22

/* "GetItem", "Query", ... (static), or NULL for an unknown code. */
DDBST_API const char *ddbst_operation_name(int op);

/* Flags of the builders. */
#define DDBST_CONSISTENT_READ 0x1u /* get, query: strongly consistent (a
                                      query of the table or a local index) */
#define DDBST_CREATE 0x2u          /* put: only if no such item exists */
#define DDBST_UPSERT 0x4u          /* update: also when the item is missing */
#define DDBST_IF_EXISTS 0x8u       /* delete: fail when the item is missing */
/* What a put, update or delete answers with (ReturnValues), at most one;
 * none: nothing (NONE). A put and a delete take DDBST_RETURN_ALL_OLD only;
 * the updated ones are an update's (only the attributes it wrote). A
 * write that is a transaction (an entity with unique attributes, a
 * ddbst_txn) returns no values: DDBST_EINVAL. Read the answer with
 * ddbst_page_parse_write. */
#define DDBST_RETURN_ALL_OLD 0x100u     /* the item as it was */
#define DDBST_RETURN_UPDATED_OLD 0x200u /* what the update wrote, as it was */
#define DDBST_RETURN_ALL_NEW 0x300u     /* the item as it is now */
#define DDBST_RETURN_UPDATED_NEW 0x400u /* what the update wrote, as it is */
#define DDBST_RETURN_MASK 0x700u
/* ReturnValuesOnConditionCheckFailure ALL_OLD: when a condition fails, the
 * error answer carries the item as it is, so that ddbst_item_explain and
 * ddbst_txn_explain say which condition failed and with what value
 * ("version is 7, you expected 5"). Put, update, delete, in a transaction
 * too (ddbst_txn_check_flags for a ConditionCheck). */
#define DDBST_RETURN_OLD_ON_FAILURE 0x800u
/* Query (ddbst_query.flags): Select COUNT, the number of matching items
 * and none of them (ddbst_page_query_count). */
#define DDBST_QUERY_COUNT 0x1000u

/* Every builder below REPLACES the contents of `out` with one complete
 * request body and returns its DDBST_OP_* code, or leaves `out` empty and
 * returns a negative DDBST_E* code with `err` naming what was wrong: one
 * buffer reused for every request needs no reset, and two bodies can never
 * run together. Attribute names in expressions go
 * through ExpressionAttributeNames and values through
 * ExpressionAttributeValues, numbered in order of use: the same call gives
 * the same bytes. With a warm item and buffer they do not allocate. The item
 * is not thread-safe; the model may be shared. */

/* GetItem of the item whose primary-key facets are set. */
DDBST_API int ddbst_get_request(ddbst_item *item, uint32_t flags,
                                ddbst_buf *out, ddbst_error *err);

/* PutItem of the whole item: defaults filled first (timestamps at
 * `now_unix_us`, generated ULIDs — the item keeps them, so the caller sees
 * them), required attributes checked, keys built (primary, the sparse
 * indexes that apply, the entity type). With DDBST_CREATE it is conditional
 * on no item having the key, and a version attribute starts at 1. With an
 * expected version it is conditional on it. */
DDBST_API int ddbst_put_request(ddbst_item *item, uint32_t flags,
                                int64_t now_unix_us, ddbst_buf *out,
                                ddbst_error *err);

/* UpdateItem: the primary-key facets identify the item; every other set
 * attribute is SET, removed ones REMOVEd, ADDs and appends applied. Index
 * keys stay true: changing a facet of an index rewrites that index's keys
 * (DDBST_EMISSING names any other facet needed to rebuild them, or the
 * attribute its membership condition reads); removing a facet, or a
 * membership condition that stops holding, removes them. Primary-key facets
 * cannot change (DDBST_EVALUE). The version attribute is checked (with an
 * expected version) and incremented; updatedAt is set to `now_unix_us`
 * unless given. Conditional on the item existing unless DDBST_UPSERT. An
 * upsert may create the item, so it needs every required attribute
 * (DDBST_EMISSING). DDBST_ERANGE when the key and the values the update
 * writes already pass DynamoDB's 400 KB per item (what the item held before
 * only DynamoDB counts). */
DDBST_API int ddbst_update_request(ddbst_item *item, uint32_t flags,
                                   int64_t now_unix_us, ddbst_buf *out,
                                   ddbst_error *err);

/* DeleteItem; with DDBST_IF_EXISTS or an expected version, conditional. */
DDBST_API int ddbst_delete_request(ddbst_item *item, uint32_t flags,
                                   ddbst_buf *out, ddbst_error *err);

/* CreateTable for the model: key attributes, GSIs with their projections
 * (and each one's onDemandThroughput and warmThroughput), on-demand
 * billing, the stream view type, and what the model's table declares of
 * OnDemandThroughput, WarmThroughput, DeletionProtectionEnabled,
 * TableClass, Tags and ResourcePolicy (the policy document as a JSON
 * string). TableName is the model's as given, a table's ARN included.
 * Point-in-time recovery and contributor insights are not CreateTable's:
 * send ddbst_update_continuous_backups_request and
 * ddbst_update_contributor_insights_request once the table is ACTIVE
 * (and UpdateTimeToLive for the TTL attribute). */
DDBST_API int ddbst_create_table_request(const ddbst_model *model,
                                         ddbst_buf *out, ddbst_error *err);

/* DescribeTable and DeleteTable of the model's table ({"TableName":...}).
 * Return DDBST_OP_DESCRIBE_TABLE / DDBST_OP_DELETE_TABLE, or DDBST_EINVAL
 * (a NULL argument), DDBST_ENOMEM, leaving `out` empty. Like every
 * builder they replace what `out` held. Thread-safe: the model is only
 * read. */
DDBST_API int ddbst_describe_table_request(const ddbst_model *model,
                                           ddbst_buf *out, ddbst_error *err);
DDBST_API int ddbst_delete_table_request(const ddbst_model *model,
                                         ddbst_buf *out, ddbst_error *err);

/* UpdateTable adding the model's global secondary index `index` to the
 * live table: the index's AttributeDefinitions and a Create of its key
 * schema and projection (on-demand, as CreateTable makes tables). DynamoDB
 * backfills it from the items already there; a multi-attribute index needs
 * no key strings written first. Wait for its IndexStatus to be ACTIVE
 * (DescribeTable) before querying it. Replaces what `out` held. Returns
 * DDBST_OP_UPDATE_TABLE, or leaves `out` empty and returns DDBST_ENOTFOUND (no such index in the
 * model), DDBST_EINVAL (a NULL argument; a local index, which only
 * CreateTable makes), DDBST_ENOMEM. */
DDBST_API int ddbst_update_table_add_index_request(const ddbst_model *model,
                                                   const char *index,
                                                   ddbst_buf *out,
                                                   ddbst_error *err);

/* UpdateTable deleting global secondary index `index` from the live table.
 * The model given is the one without it: DDBST_EINVAL when the model still
 * declares it (its writes would keep its keys) or `index` is no index name
 * (3 to 255 of A-Z a-z 0-9 _ - .). Replaces what `out` held; returns
 * DDBST_OP_UPDATE_TABLE, or an error with `out` empty. */
DDBST_API int ddbst_update_table_remove_index_request(const ddbst_model *model,
                                                      const char *index,
                                                      ddbst_buf *out,
                                                      ddbst_error *err);

/* UpdateContinuousBackups of the model's table: point-in-time recovery
 * on (with RecoveryPeriodInDays when the model gives one) unless the
 * model's table says "pointInTimeRecovery": false. Replaces what `out`
 * held; returns DDBST_OP_UPDATE_CONTINUOUS_BACKUPS, or DDBST_EINVAL (a
 * NULL argument), DDBST_ENOMEM with `out` empty. Thread-safe. */
DDBST_API int ddbst_update_continuous_backups_request(const ddbst_model *model,
                                                      ddbst_buf *out,
                                                      ddbst_error *err);

/* UpdateContributorInsights of the table (`index` NULL) or of its global
 * index `index`: ENABLE or DISABLE as the model's contributorInsights
 * says. Replaces what `out` held; returns
 * DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS, or leaves `out` empty and returns
 * DDBST_ENOTFOUND (no such index; the model declares no
 * contributorInsights there), DDBST_EINVAL (a NULL model or buffer; a
 * local index, whose insights are the table's), DDBST_ENOMEM.
 * Thread-safe. */
DDBST_API int ddbst_update_contributor_insights_request(
    const ddbst_model *model, const char *index, ddbst_buf *out,
    ddbst_error *err);

/* UpdateTimeToLive of the model's table. `disable` NULL: enable expiry on
 * the model's ttlAttribute (DDBST_ENOTFOUND when it declares none).
 * `disable` an attribute name: disable expiry by that attribute (DynamoDB
 * wants the name it was enabled on); the model given is the one without
 * it, as for removing an index: DDBST_EINVAL when the model still declares
 * it as its ttlAttribute, or `disable` is no attribute name. Replaces what
 * `out` held; returns DDBST_OP_UPDATE_TIME_TO_LIVE, or an error (also
 * DDBST_EINVAL for a NULL model or buffer, DDBST_ENOMEM) with `out` empty.
 * Thread-safe. */
DDBST_API int ddbst_update_time_to_live_request(const ddbst_model *model,
                                                const char *disable,
                                                ddbst_buf *out,
                                                ddbst_error *err);

/* ---- transactions ---- */

/* Entities with unique attributes ("unique" in the model) are written as
 * transactions by the single-item builders above: create → the item and one
 * guard item per unique attribute, each conditional on not existing (so a
 * second user with the same email, in any letter case the key lower-cases,
 * is refused and nothing is written); delete → the item and its guards (the
 * unique attributes' values must be set); an update that changes a unique
 * attribute → the update (conditional on the previous value, see
 * ddbst_item_set_previous), the old guard's Delete and the new guard's Put.
 * Those builders then return DDBST_OP_TRANSACT_WRITE_ITEMS. A plain put of
 * such an entity is refused (DDBST_EINVAL): it could not keep guards true.
 * A guard item holds its key, the entity attribute ("User.email") and its
 * holder's primary key ("holderKey"). */

/* Several items' operations in one TransactWriteItems (or, with gets only,
 * TransactGetItems): at most 100 operations, unique guards included, never
 * two on one item. Reusable after ddbst_txn_reset. Not thread-safe. */
typedef struct ddbst_txn ddbst_txn;

/* A new empty transaction for `model` (which must outlive it), or NULL. */
DDBST_API ddbst_txn *ddbst_txn_new(const ddbst_model *model);
DDBST_API void ddbst_txn_free(ddbst_txn *txn);
DDBST_API void ddbst_txn_reset(ddbst_txn *txn);
/* Operations so far. */
DDBST_API int ddbst_txn_count(const ddbst_txn *txn);

/* Each adds the item's operation (and its guards) as the matching single
 * builder would write it, all or nothing: DDBST_EINVAL for a second
 * operation on one item or a read mixed with writes, DDBST_ERANGE past 100,
 * or the builder's own errors. The item may be reset and reused right after
 * the call: the transaction keeps what it needs. */
DDBST_API int ddbst_txn_put(ddbst_txn *txn, ddbst_item *item, uint32_t flags,
                            int64_t now_unix_us, ddbst_error *err);
DDBST_API int ddbst_txn_update(ddbst_txn *txn, ddbst_item *item,
                               uint32_t flags, int64_t now_unix_us,
                               ddbst_error *err);
DDBST_API int ddbst_txn_delete(ddbst_txn *txn, ddbst_item *item,
                               uint32_t flags, ddbst_error *err);
/* ConditionCheck: the item exists (and has the expected version, if one was
 * set with ddbst_item_expect_version). */
DDBST_API int ddbst_txn_check(ddbst_txn *txn, ddbst_item *item,
                              ddbst_error *err);
/* ddbst_txn_check with flags: DDBST_RETURN_OLD_ON_FAILURE, or 0. */
DDBST_API int ddbst_txn_check_flags(ddbst_txn *txn, ddbst_item *item,
                                    uint32_t flags, ddbst_error *err);
/* A Get of TransactGetItems. */
DDBST_API int ddbst_txn_get(ddbst_txn *txn, ddbst_item *item,
                            ddbst_error *err);

/* The request body: DDBST_OP_TRANSACT_WRITE_ITEMS or
 * DDBST_OP_TRANSACT_GET_ITEMS. `client_token` (1 to 36 printable ASCII
 * characters, or NULL) makes a retried TransactWriteItems apply once. */
DDBST_API int ddbst_txn_request(const ddbst_txn *txn, const char *client_token,
                                ddbst_buf *out, ddbst_error *err);

/* ---- batches ---- */

/* Any number of reads (BatchGetItem) and writes (BatchWriteItem), cut into
 * DynamoDB's chunks: 100 keys per BatchGetItem, 25 writes per
 * BatchWriteItem. Reusable after ddbst_batch_reset. Not thread-safe. */
typedef struct ddbst_batch ddbst_batch;

/* A new empty batch for `model` (which must outlive it), or NULL when
 * allocation fails. Free with ddbst_batch_free (NULL is ignored); reset
 * empties it and keeps its memory. */
DDBST_API ddbst_batch *ddbst_batch_new(const ddbst_model *model);
DDBST_API void ddbst_batch_free(ddbst_batch *batch);
DDBST_API void ddbst_batch_reset(ddbst_batch *batch);

/* Adds the item's key to read: 1 when added, 0 when the batch reads it
 * already (duplicates are dropped: DynamoDB would refuse the request). */
DDBST_API int ddbst_batch_get(ddbst_batch *batch, ddbst_item *item,
                              ddbst_error *err);
/* Adds a PutRequest of the whole item (defaults filled, keys built as
 * ddbst_put_request does) or a DeleteRequest of its key. A second write of
 * one key is refused (DDBST_EINVAL), and so are entities with unique
 * attributes and expected versions: a batch write holds no conditions. */
DDBST_API int ddbst_batch_put(ddbst_batch *batch, ddbst_item *item,
                              int64_t now_unix_us, ddbst_error *err);
DDBST_API int ddbst_batch_delete(ddbst_batch *batch, ddbst_item *item,
                                 ddbst_error *err);

/* How many request bodies the batch makes: the BatchGetItem chunks first,
 * then the BatchWriteItem chunks. */
DDBST_API int ddbst_batch_request_count(const ddbst_batch *batch);
/* Body `i` (0-based); returns DDBST_OP_BATCH_GET_ITEM or
 * DDBST_OP_BATCH_WRITE_ITEM. DDBST_CONSISTENT_READ applies to reads. */
DDBST_API int ddbst_batch_request(const ddbst_batch *batch, int i,
                                  uint32_t flags, ddbst_buf *out,
                                  ddbst_error *err);

/* ---- queries ---- */

/* Sort-key conditions, on the canonical text of one facet of the sort key,
 * the facets before it fixed by the values (docs/queries.md has the table).
 * A partial value is a proper prefix of a canonical value ("2026-03" of a
 * timestamp). Whatever the condition, only keys of the queried entity match:
 * the bounds are built inside its key space, never by a filter. */
#define DDBST_SK_NONE 0    /* the entity's whole key space (or the facets given) */
#define DDBST_SK_BEGINS 1  /* facet starts with value */
#define DDBST_SK_GT 2      /* after value (after every value starting with a partial one) */
#define DDBST_SK_GTE 3     /* value or after */
#define DDBST_SK_LT 4      /* before value */
#define DDBST_SK_LTE 5     /* value or before (a partial value: through its whole range) */
#define DDBST_SK_BETWEEN 6 /* value (gte) through value2 (lte) */
/* Any other pair of bounds, value the lower and value2 the upper one, each
 * by the rule of its single condition above (complete or partial). */
#define DDBST_SK_GT_LT 7   /* after value and before value2 */
#define DDBST_SK_GT_LTE 8  /* after value, value2 or before */
#define DDBST_SK_GTE_LT 9  /* value or after, before value2 */
#define DDBST_SK_GTE_LTE DDBST_SK_BETWEEN

/* Pagination cursors' sealing keys (see "cursors" below). */
typedef struct ddbst_cursor_keys ddbst_cursor_keys;

/* A query's options. Zero-initialise, set `size` to sizeof(ddbst_query). */
typedef struct ddbst_query {
  uint32_t size;
  uint32_t flags;      /* DDBST_CONSISTENT_READ (table and local-index patterns) */
  int32_t condition;   /* DDBST_SK_* */
  int32_t attribute;   /* the facet's attribute index in the values' entity */
  const char *value;   /* the bound, as text typed by the attribute */
  size_t value_len;
  const char *value2;  /* the upper bound of a pair (DDBST_SK_BETWEEN, ...) */
  size_t value2_len;
  uint32_t limit;      /* 0: the pattern's default; capped at its maximum */
  uint32_t reserved;
  /* Start after this cursor (from ddbst_page_next_cursor for the same pattern,
   * partition and order; docs/cursor.md): opened with `cursor_keys` and
   * checked, else DDBST_ECURSOR (path "cursor") with a precise message.
   * `cursor_keys` NULL accepts unsealed cursors only, and only when the
   * model declares "cursors": "unsealed"; otherwise it is DDBST_EINVAL
   * (path "cursor_keys"). */
  const char *cursor;
  size_t cursor_len;
  const ddbst_cursor_keys *cursor_keys;
  int64_t now_unix_us; /* for the cursor's maximum age; DDBST_NOW (0): the clock */
  /* A filter: items the key range reads but `filter` (a DDBST_EXPR_FILTER
   * of the values' entity) does not hold for are dropped by DynamoDB after
   * the read (they count towards the page's Limit and its cost). Or its
   * text form in filter_text (compiled per call, which allocates), not
   * both. Combined with the pattern's own filter as (pattern's) AND
   * (yours). Refused on a collection pattern, and on an index that does
   * not project every attribute it names (DDBST_EINVAL, path "filter"). */
  const ddbst_expr *filter;
  const char *filter_text;
  size_t filter_text_len;
  /* The condition's facet by name ("createdAt"), instead of `attribute`
   * (which is then ignored): DDBST_ENOTFOUND at "Entity.name" for a name
   * the values' entity lacks. */
  const char *attribute_name;
} ddbst_query;

/* Query for access pattern `pattern` (ddbst_model_pattern). `values` is an
 * item of the pattern's entity (or of one entity of a collection) holding the
 * partition key's facets and, for a narrower read, leading sort-key facets
 * (complete facets match up to the following delimiter: USER#12 never
 * matches USER#123). `q` may be NULL for the whole key space. Errors:
 * DDBST_EMISSING (a partition facet, or a facet before the condition's),
 * DDBST_EVALUE (a bad bound), DDBST_ERANGE (an empty range), DDBST_EINVAL
 * (a get pattern, a condition on a collection, a consistent read of a
 * global index). */
DDBST_API int ddbst_query_request(ddbst_item *values, int pattern,
                                  const ddbst_query *q, ddbst_buf *out,
                                  ddbst_error *err);

/* ---- scans ---- */

/* A Scan of the table or of one index: every item it holds, or those of
 * some entities, or those a filter holds for, read a page at a time, in
 * parallel segments if wished. A scan reads what no key narrows — a
 * migration, a backfill, an audit (ddbst_guard_audit) — and never serves a
 * request path (docs/scans.md).
 *
 * Set up once, then build one body per page: each body is
 *   {"TableName":..,"IndexName":..,"FilterExpression":..,
 *    "ProjectionExpression":..,"ExpressionAttributeNames":..,
 *    "ExpressionAttributeValues":..,"Segment":s,"TotalSegments":t,
 *    "Select":"COUNT","Limit":n,"ConsistentRead":true,
 *    "ExclusiveStartKey":{..}}
 * (each member only when it applies). Parse each answer with
 * ddbst_page_parse_scan, which keeps the items of no entity of the model,
 * and take the next page's cursor from ddbst_page_next_cursor.
 *
 * A scan's cursor is sealed as a query's (same keyring, AEAD and envelope,
 * docs/cursor.md) and bound to what the scan reads: the table, the index,
 * the segment and the total of segments, and the filter and projection
 * (with the entity filter and bound parameters: the body up to Segment, as
 * a 16-byte BLAKE2b digest). Given to any other scan it is refused
 * (DDBST_ECURSOR, path "cursor") with what it was made for. It carries the
 * LastEvaluatedKey's whole key strings (a scan meets items of no entity,
 * whose keys no template explains), at most 4.5 KB of them.
 *
 * Not thread-safe: one scan per thread (a parallel scan: one per segment,
 * each with its own ddbst_scan_segment). The model must outlive it. */
typedef struct ddbst_scan ddbst_scan;

/* A new scan of the whole table (no index, no filter, no segments), or
 * NULL (a NULL model, a model without entities, no memory). Uses the
 * model's allocator. Free with ddbst_scan_free (NULL is ignored). */
DDBST_API ddbst_scan *ddbst_scan_new(const ddbst_model *model);
DDBST_API void ddbst_scan_free(ddbst_scan *scan);

/* Scans index `index` (a name of the model's table.indexes or
 * localIndexes), or the table when `index` is NULL. A sparse index holds
 * only the items written with its keys. DDBST_ENOTFOUND (path "index",
 * "did you mean") for a name the model lacks; the scan is then as it was. */
DDBST_API int ddbst_scan_index(ddbst_scan *scan, const char *index,
                               ddbst_error *err);

/* Reads only items of entity `entity` (call again for more entities: the
 * filter becomes "<entityAttribute> IN (...)"). DDBST_EINVAL for a bad
 * entity, or a model without an entityAttribute (the items cannot be told
 * apart before they are read: filter them on the page instead, with
 * ddbst_page_item_entity). With no entity given, every item comes back:
 * guard items and items of no entity of the model too. */
DDBST_API int ddbst_scan_entity(ddbst_scan *scan, int entity,
                                ddbst_error *err);

/* A filter (a DDBST_EXPR_FILTER, docs/conditions.md) on the items of its
 * entity: the scan then reads only that entity (as ddbst_scan_entity, and
 * DDBST_EINVAL when other entities were given) and writes
 * "<entityAttribute> = :v AND (<filter>)". NULL removes it. The scan keeps
 * a pointer: `filter` must outlive its use. Setting a filter forgets the
 * parameters bound so far (ddbst_scan_bind after it). DDBST_EINVAL: not a
 * filter of this model, a model without an entityAttribute, an index that
 * does not project an attribute it names; DDBST_ENOMEM. */
DDBST_API int ddbst_scan_filter(ddbst_scan *scan, const ddbst_expr *filter,
                                ddbst_error *err);

/* The value of a filter's parameter (":cutoff"), as ddbst_item_bind. */
DDBST_API int ddbst_scan_bind(ddbst_scan *scan, const char *param,
                              const char *text, size_t len, ddbst_error *err);

/* Reads back only attribute `name` (any attribute of any entity of the
 * model; call once per attribute), besides the keys of the table and the
 * index read and the entity attribute, which always come back so that
 * items are identified and pages continue. None: whole items.
 * DDBST_ENOTFOUND ("did you mean") for a name no entity declares,
 * DDBST_ENOMEM. A name given twice is kept once. */
DDBST_API int ddbst_scan_project(ddbst_scan *scan, const char *name,
                                 ddbst_error *err);

/* A parallel scan's segment: `segment` of `total` (1 to 1000000 segments,
 * 0 <= segment < total; DynamoDB cuts the table into `total` parts and
 * each part is read by its own scan, each with its own cursors).
 * total 0 (and segment 0): no segments (the default). DDBST_ERANGE,
 * naming the bad value; the scan is then as it was. */
DDBST_API int ddbst_scan_segment(ddbst_scan *scan, uint32_t segment,
                                 uint32_t total, ddbst_error *err);

/* The Scan body of the next page, into `out` (replacing; as every builder,
 * `out` is empty on error). `flags`: DDBST_CONSISTENT_READ (the table or a
 * local index: a global index refuses it, DDBST_EINVAL), DDBST_QUERY_COUNT
 * (Select COUNT: how many items, none of them; refused with a projection).
 * `limit` 0: none (DynamoDB's 1 MB per page). `cursor` (`cursor_len`
 * bytes; NULL: the first page) is the cursor ddbst_page_next_cursor made
 * for this scan's previous page, opened with `keys` (NULL as for queries:
 * only unsealed cursors, only when the model declares "cursors":
 * "unsealed") and checked against this scan at `now_unix_us` (the
 * keyring's maximum age): DDBST_ECURSOR (path "cursor") says what it was
 * made for when it is another scan's. Returns DDBST_OP_SCAN. With a warm
 * scan and buffer it does not allocate. */
DDBST_API int ddbst_scan_request(ddbst_scan *scan, uint32_t flags,
                                 uint32_t limit, const char *cursor,
                                 size_t cursor_len,
                                 const ddbst_cursor_keys *keys,
                                 int64_t now_unix_us, ddbst_buf *out,
                                 ddbst_error *err);

/* ---- responses ---- */

/* A parsed DynamoDB response: the items of a GetItem, Query,
 * TransactGetItems or BatchGetItem answer (each identified as an entity of
 * the model, by the entity attribute or else by its keys), the
 * LastEvaluatedKey of a Query, the UnprocessedKeys / UnprocessedItems of a
 * batch, and DynamoDB's error bodies (see "errors from DynamoDB"). Parsed
 * with YAJL's streaming parser straight into the page's own storage: no
 * tree. Reusable: the page keeps the memory of the largest answers it has
 * parsed, so a warm page parses an answer no larger (no more bytes, items
 * or attributes) without allocating. Not thread-safe; the model may be
 * shared, and must outlive the page. */
typedef struct ddbst_page ddbst_page;

/* A new empty page, or NULL (a NULL model, no memory). Uses the model's
 * allocator. */
DDBST_API ddbst_page *ddbst_page_new(const ddbst_model *model);
DDBST_API void ddbst_page_free(ddbst_page *page);

/* Parses `json`, the body DynamoDB answered to a request of operation `op`
 * (DDBST_OP_GET_ITEM, _QUERY, _BATCH_GET_ITEM, _BATCH_WRITE_ITEM,
 * _TRANSACT_GET_ITEMS; _PUT_ITEM, _UPDATE_ITEM and _DELETE_ITEM as
 * ddbst_page_parse_write with entity -1; a Query answer of Count and
 * ScannedCount without Items, a DDBST_QUERY_COUNT one, is 0 items and
 * ddbst_page_query_count). Returns the number of items: 0 or 1 for GetItem
 * ({} when the item does not exist); for TransactGetItems one per Get, in
 * request order, a Get that found nothing being an empty slot (its
 * ddbst_page_item is DDBST_ENOTFOUND, its JSON null); 0 for BatchWriteItem.
 * Members an answer may carry besides (ConsumedCapacity,
 * ItemCollectionMetrics, Count) are skipped. Errors:
 *   DDBST_EDYNAMODB  the body is DynamoDB's error answer: the page holds
 *                    it, as ddbst_page_parse_error reads it, and `err` says
 *                    "TransactionCanceledException: ..." (path "__type");
 *   DDBST_ESYNTAX    not JSON (truncated, not UTF-8), with offset, line and
 *                    column; a string that is not text (invalid UTF-8, a
 *                    lone surrogate escape such as \ud800) at its path
 *                    ("Items[0].name.S");
 *   DDBST_EVALUE     JSON of the wrong shape, with the path: an "N" that is
 *                    not a number ("Items[3].price.N"), "Items" that is not
 *                    a list, a type other than S N B BOOL NULL L M SS NS BS,
 *                    an empty set, documents nested past 32 levels, strings
 *                    holding NUL, an attribute twice in one item, a member
 *                    the operation's answer always has missing ("Items");
 *   DDBST_ENOTFOUND  an item that is no entity of the model (path "Items[i]"):
 *                    its entity attribute names none, or it has none and its
 *                    key matches no entity's templates;
 *   DDBST_EINVAL     a NULL page, an op whose answer holds no items;
 *   DDBST_ENOMEM.
 * On error the page is empty (DDBST_EDYNAMODB: but for the error). */
DDBST_API int ddbst_page_parse(ddbst_page *page, int op, const char *json,
                               size_t len, ddbst_error *err);

/* Items parsed (0 after an error). */
DDBST_API int ddbst_page_count(const ddbst_page *page);

/* Parses the answer to a PutItem, UpdateItem or DeleteItem (`op`, as the
 * builder returned it) built with a DDBST_RETURN_* flag: its Attributes
 * become item 0 of the page (1 returned), none 0 (DDBST_RETURN_ALL_OLD of
 * an item that was not there, or no ReturnValues). The values of an
 * update's DDBST_RETURN_UPDATED_* hold neither the keys nor the entity
 * attribute: they are read as entity `entity` (the written item's; -1:
 * told from the item, as ddbst_page_parse does, DDBST_ENOTFOUND when it
 * cannot be). An item that names another entity is DDBST_EVALUE. Read it
 * with ddbst_page_item (only the attributes the answer holds are set) or
 * ddbst_page_item_json. Otherwise as ddbst_page_parse: an error body is
 * DDBST_EDYNAMODB and the page holds it. */
DDBST_API int ddbst_page_parse_write(ddbst_page *page, int op, int entity,
                                     const char *json, size_t len,
                                     ddbst_error *err);

/* The Count of a Query answer (with DDBST_QUERY_COUNT the only thing it
 * holds besides ScannedCount, into *scanned when not NULL), or -1 when the
 * answer had none. */
DDBST_API int64_t ddbst_page_query_count(const ddbst_page *page,
                                         int64_t *scanned);

/* The entity of item `i` without reading it: its index, DDBST_ENOTFOUND for
 * an empty TransactGetItems slot, DDBST_EINVAL for a bad `i`. */
DDBST_API int ddbst_page_item_entity(const ddbst_page *page, int i);

/* Item `i` into `item` (of the page's model): reset to the item's entity,
 * every attribute the model declares set from the response — facets missing
 * from it recovered from its keys (the table's, else an index's; never a
 * lower-cased facet, whose case the key has lost) — and nothing else: key
 * attributes, the entity attribute and attributes the entity does not
 * declare are left out, and a NULL value leaves its attribute unset. Values
 * are read as ddbst_item_set reads them, so a timestamp stored at another
 * precision or offset comes back canonical; what ddbst_item_set would
 * refuse — a type other than the attribute's ("N" for a string), an enum
 * value the model does not list, a timestamp that is none — is DDBST_EVALUE
 * with the path "Items[3].createdAt" (the item then holds what was read
 * before). Returns the entity index, or DDBST_ENOTFOUND for an empty slot,
 * DDBST_EINVAL, DDBST_ENOMEM. A warm item does not allocate. */
DDBST_API int ddbst_page_item(const ddbst_page *page, int i, ddbst_item *item,
                              ddbst_error *err);

/* Item `i` as plain JSON, into `out` (replacing; _append: after what `out`
 * holds, to write several into one array):
 * {"entity":"Project","item":{"orgId":"123","createdAt":"2026-...Z",...}}
 * with the entity's attributes in declaration order (recovered facets
 * included), numbers as their exact decimal text (never through a double),
 * sets as arrays, binary as base64 strings, NULL as null, and the table's
 * and indexes' key attributes and the entity attribute left out. Attributes
 * the entity does not declare follow as "undeclared":{...}, only when there
 * are any. An empty TransactGetItems slot is null. Values are as stored
 * (ddbst_page_item is the one that checks them against the model). */
DDBST_API int ddbst_page_item_json(const ddbst_page *page, int i,
                                   ddbst_buf *out, ddbst_error *err);
DDBST_API int ddbst_page_item_json_append(const ddbst_page *page, int i,
                                          ddbst_buf *out, ddbst_error *err);

/* 1 when the Query answer had a LastEvaluatedKey (there is a next page). */
DDBST_API int ddbst_page_has_more(const ddbst_page *page);

/* The follow-up request of a batch answer, into `out` (replacing): a BatchGetItem
 * of its UnprocessedKeys (with the ConsistentRead, ProjectionExpression and
 * ExpressionAttributeNames DynamoDB handed back) or a BatchWriteItem of its
 * UnprocessedItems, re-written by ddbst's own writer in the form the batch
 * builders write. Returns DDBST_OP_BATCH_GET_ITEM or
 * DDBST_OP_BATCH_WRITE_ITEM, or 0 when nothing is left. */
DDBST_API int ddbst_page_followup_request(const ddbst_page *page,
                                          ddbst_buf *out, ddbst_error *err);

/* ---- errors from DynamoDB ---- */

/* What DynamoDB's error answer (HTTP 400 or 500) says, by its __type
 * ("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException") and,
 * for a cancelled transaction, by each operation's CancellationReasons
 * code. One list for both. */
#define DDBST_DDB_NONE 0          /* no error; the reason "None" */
#define DDBST_DDB_OTHER 1         /* a type or code ddbst does not sort */
#define DDBST_DDB_CONDITIONAL_CHECK_FAILED 2
#define DDBST_DDB_TRANSACTION_CANCELED 3
#define DDBST_DDB_TRANSACTION_CONFLICT 4 /* also a global table's
                                          ReplicatedWriteConflict */
#define DDBST_DDB_TRANSACTION_IN_PROGRESS 5
#define DDBST_DDB_THROTTLED 6     /* ProvisionedThroughputExceeded, Throttling,
                                     RequestLimitExceeded, LimitExceeded (too
                                     many table operations at once) */
#define DDBST_DDB_VALIDATION 7    /* ValidationException, ValidationError */
#define DDBST_DDB_RESOURCE_NOT_FOUND 8 /* no such table or index */
/* HTTP 500 and 503: InternalServerError, InternalFailure,
 * ServiceUnavailable, ServiceUnavailableException */
#define DDBST_DDB_INTERNAL 9
#define DDBST_DDB_ITEM_COLLECTION_SIZE_LIMIT 10
#define DDBST_DDB_IDEMPOTENT_PARAMETER_MISMATCH 11
#define DDBST_DDB_ACCESS_DENIED 12 /* credentials, signature, permissions */

/* Parses DynamoDB's error body into the page (ddbst_page_parse does the
 * same when it meets one): its type, message and, for a
 * TransactionCanceledException, one reason per operation of the
 * transaction. Returns the DDBST_DDB_* kind (> 0), or DDBST_ESYNTAX,
 * DDBST_EVALUE (no "__type": not an error body; a reason without "Code"),
 * DDBST_ENOMEM; the page then holds no error. */
DDBST_API int ddbst_page_parse_error(ddbst_page *page, const char *json,
                                     size_t len, ddbst_error *err);

/* The error's DDBST_DDB_* kind; DDBST_DDB_NONE when the page holds none. */
DDBST_API int ddbst_page_error_kind(const ddbst_page *page);
/* Its type, the short name after '#' ("TransactionCanceledException"), or
 * NULL when the page holds no error. */
DDBST_API const char *ddbst_page_error_type(const ddbst_page *page);
/* Its message ("message" or "Message"), "" when none. */
DDBST_API const char *ddbst_page_error_message(const ddbst_page *page);
/* 1 when sending the same request again later, with backoff, can
 * succeed, as DynamoDB's error reference says ("OK to retry? Yes"):
 * DDBST_DDB_THROTTLED, _INTERNAL (HTTP 500 and 503), _TRANSACTION_CONFLICT,
 * _TRANSACTION_IN_PROGRESS, and a cancellation whose every failed reason
 * is one of those. 0 for every other kind, DDBST_DDB_OTHER included, and
 * for a page that holds no error. ddbst never sees the HTTP status: an
 * answer of HTTP 500 or 503 whose body is not DynamoDB's error (a proxy's
 * page, an empty body: ddbst_page_parse_error refuses it) is the caller's
 * to retry. Thread-safe on a page no one is changing. */
DDBST_API int ddbst_page_error_retryable(const ddbst_page *page);

/* CancellationReasons, one per operation of the cancelled transaction, in
 * its order (0 for other errors). */
DDBST_API int ddbst_page_reason_count(const ddbst_page *page);
/* Reason `i`: its DDBST_DDB_* kind (DDBST_DDB_NONE: that operation did not
 * fail), and *code ("ConditionalCheckFailed") and *message ("" when none),
 * valid until the page changes; either may be NULL. DDBST_EINVAL for a bad
 * `i`. */
DDBST_API int ddbst_page_reason(const ddbst_page *page, int i,
                                const char **code, const char **message);

/* ThrottlingReasons of the error body last parsed (newer DynamoDB error
 * bodies carry them with a throttling exception): how many (at most 8; a
 * body with more is refused), and entry `i`'s reason
 * ("TableWriteKeyRangeThroughputExceeded": resource type, operation and
 * limit) and resource (the table's or index's ARN; "" when absent). Both
 * strings live as long as the page's parse. Returns 0, or DDBST_EINVAL for
 * an `i` out of range. ddbst_item_explain and ddbst_txn_explain name them
 * in words. */
DDBST_API int ddbst_page_throttling_reason_count(const ddbst_page *page);
DDBST_API int ddbst_page_throttling_reason(const ddbst_page *page, int i,
                                           const char **reason,
                                           const char **resource);

/* The item an error answer carried (DDBST_RETURN_OLD_ON_FAILURE): with
 * `reason` -1 a single write's (ConditionalCheckFailedException), else
 * that of CancellationReasons[reason], into `item` as ddbst_page_item
 * fills it. Returns its entity, DDBST_ENOTFOUND when the answer carried
 * none there (the item did not exist) or it is no entity's, DDBST_EINVAL
 * (no error in the page, a bad reason), DDBST_EVALUE. */
DDBST_API int ddbst_page_error_item(const ddbst_page *page, int reason,
                                    ddbst_item *item, ddbst_error *err);

/* Why a transaction failed, in the model's words: each failed operation
 * mapped to what the transaction built for it. */
#define DDBST_FAIL_UNIQUE 1    /* a unique value is taken: "unique constraint
                                  User.email" (a guard's Put failed) */
#define DDBST_FAIL_EXISTS 2    /* a create found the item: "User already
                                  exists" */
#define DDBST_FAIL_VERSION 3   /* an expected version was set and the item
                                  is at another (or gone): "version mismatch" */
#define DDBST_FAIL_MISSING 4   /* an update, delete-if-exists or
                                  ConditionCheck found no item: "User does not
                                  exist" */
#define DDBST_FAIL_CONDITION 5 /* another condition: the item is gone or its
                                  unique values are not the ones given; or the
                                  caller's own condition (ddbst_item_condition)
                                  does not hold, or the item is gone */
#define DDBST_FAIL_CONFLICT 6  /* another transaction was at the item: retry */
#define DDBST_FAIL_THROTTLED 7 /* retry with backoff */
#define DDBST_FAIL_OTHER 8     /* validation, size limits, anything else */

/* Explains `page`, the error DynamoDB answered to `txn`'s request (parsed
 * with ddbst_page_parse_error), one line per failed operation, into `out`
 * (replacing):
 *   TransactItems[1]: unique constraint User.email: another User already
 *   has this email (EMAIL#ann@x.com)
 * A ConditionalCheckFailedException answers a one-operation transaction; any
 * other error is explained as the request's as a whole. Returns the
 * DDBST_FAIL_* kind of the first failure, 0 when no operation failed, or
 * DDBST_EINVAL (no error in the page; reasons that do not match the
 * transaction's operations), DDBST_ENOMEM. The transaction must be as it was
 * when its request was built. */
DDBST_API int ddbst_txn_explain(const ddbst_txn *txn, const ddbst_page *page,
                                ddbst_buf *out, ddbst_error *err);

/* The k-th failure (k = 0, 1, ...) of the same: its DDBST_FAIL_* kind, with
 * *index its position in TransactItems (-1: the request as a whole),
 * *entity the entity of the item written (for a guard, the guarded
 * entity's), *unique the unique constraint of a guard ("email", else NULL,
 * valid as long as the model). DDBST_ENOTFOUND past the last failure,
 * DDBST_EINVAL as above. Out-pointers may be NULL. */
DDBST_API int ddbst_txn_failure(const ddbst_txn *txn, const ddbst_page *page,
                                int k, int *index, int *entity,
                                const char **unique);

/* With DDBST_RETURN_OLD_ON_FAILURE the answer carries each failed
 * operation's item, and the explanations say which condition failed and on
 * what: "version mismatch: Product (SHOP#s1 / PRODUCT#p7): version is 1, you
 * expected 5; ...", "Product (...): the condition failed: status is
 * published", "...: the item does not exist". */

/* ddbst_txn_explain for a single-item builder's request — a create, update
 * or delete of an entity with unique attributes, which is a
 * TransactWriteItems, or a plain conditional PutItem, UpdateItem or
 * DeleteItem (ConditionalCheckFailedException): `op` is the builder called
 * (DDBST_OP_PUT_ITEM, _UPDATE_ITEM, _DELETE_ITEM), `flags` those given to
 * it, and `item` unchanged since (the operations are worked out by building
 * the request again, which allocates). */
DDBST_API int ddbst_item_explain(ddbst_item *item, int op, uint32_t flags,
                                 const ddbst_page *page, ddbst_buf *out,
                                 ddbst_error *err);

/* ---- orphan guards ---- */

/* A unique attribute's guard item (see "transactions") whose holder is
 * gone, or no longer holds the value the guard claims, blocks that value
 * for ever: an orphan. It comes of a write outside ddbst (a raw
 * DeleteItem of the holder, an update that skipped the guard), never of
 * ddbst's own transactions. The audit names every orphan among the guard
 * items of a scan's pages (docs/requests.md, "Orphan guards"):
 *
 *   ddbst_guard_audit_add(audit, page)          for each scan page
 *   while (ddbst_guard_audit_request(audit, body) > 0)
 *     send body (BatchGetItem); ddbst_guard_audit_answer(audit, answer)
 *   ddbst_guard_audit_orphan(audit, k, ...) / ddbst_guard_audit_json
 *
 * Each request reads at most 100 holders (BatchGetItem's limit), each
 * once, strongly consistent, by the guard's holderKey; a holder DynamoDB
 * leaves in UnprocessedKeys is asked for again by the next request, so the
 * loop ends when every holder has been answered. A guard is held when its
 * holder is an item of the entity the guard names and renders, from its
 * values now, the guard's very key. The audit keeps each guard's key and
 * holder (a few hundred bytes each): audit page by page (reset between)
 * to bound its memory. Not thread-safe; the model must outlive it. */
typedef struct ddbst_guard_audit ddbst_guard_audit;

/* What an orphan is (ddbst_guard_audit_orphan). */
#define DDBST_GUARD_MISSING 1     /* its holder item does not exist */
#define DDBST_GUARD_STALE 2       /* its holder exists but does not hold the
                                     value: another value, another entity */
#define DDBST_GUARD_UNTRACEABLE 3 /* it has no holderKey (written before
                                     guards carried one): it cannot be
                                     traced, and is named to be checked by
                                     hand */

/* A new empty audit, or NULL (a NULL model, a model without entities, no
 * memory). Uses the model's allocator. Free with ddbst_guard_audit_free
 * (NULL is ignored); reset forgets every guard and keeps the memory. */
DDBST_API ddbst_guard_audit *ddbst_guard_audit_new(const ddbst_model *model);
DDBST_API void ddbst_guard_audit_free(ddbst_guard_audit *audit);
DDBST_API void ddbst_guard_audit_reset(ddbst_guard_audit *audit);

/* Takes the guard items of `page` (a scan's, ddbst_page_parse_scan; with
 * no projection, or one that keeps holderKey): an item of no entity that
 * says it is a guard ("User.email" in the entity attribute), or, in a
 * model without an entity attribute, whose key is written twice (PK = SK)
 * and fits a unique's template. Returns how many it took (>= 0), or
 * DDBST_EINVAL (a page of another model, a page without items),
 * DDBST_ENOMEM (then it took none of the page's). */
DDBST_API int ddbst_guard_audit_add(ddbst_guard_audit *audit,
                                    const ddbst_page *page, ddbst_error *err);

/* The BatchGetItem of the next holders to read, into `out` (replacing):
 * returns DDBST_OP_BATCH_GET_ITEM, or 0 (`out` empty) when every holder
 * has been answered. Building it makes it the request that
 * ddbst_guard_audit_answer answers. DDBST_EINVAL, DDBST_ENOMEM. */
DDBST_API int ddbst_guard_audit_request(ddbst_guard_audit *audit,
                                        ddbst_buf *out, ddbst_error *err);

/* DynamoDB's answer (`len` bytes of JSON) to the last request built:
 * each holder it holds is checked; a holder it does not hold is missing
 * when the answer left no UnprocessedKeys, and asked again otherwise.
 * Returns the number of guards it decided, or ddbst_page_parse's errors
 * (DDBST_EDYNAMODB for an error answer: build the request again, after a
 * pause when throttled), DDBST_EINVAL (no request built), DDBST_ENOMEM
 * (the guards it had not decided are asked for again by the next
 * request). */
DDBST_API int ddbst_guard_audit_answer(ddbst_guard_audit *audit,
                                       const char *json, size_t len,
                                       ddbst_error *err);

/* The k-th orphan (k = 0, 1, ..., in the order the guards were taken):
 * its DDBST_GUARD_* kind, with *guard_key the guard's key, *holder_pk and
 * *holder_sk its holderKey (NULL for an untraceable one, and *holder_sk
 * for a table without a sort key), *entity and *unique the constraint it
 * claims (*unique NULL when the model has no entity attribute and the
 * guard's key alone tells it), valid until the audit changes; every
 * out-pointer may be NULL. DDBST_ENOTFOUND past the last orphan;
 * DDBST_EINVAL while holders are unanswered (the loop above is not done),
 * or for a bad `k`. */
DDBST_API int ddbst_guard_audit_orphan(const ddbst_guard_audit *audit, int k,
                                       const char **guard_key,
                                       const char **holder_pk,
                                       const char **holder_sk, int *entity,
                                       const char **unique);

/* Every orphan as JSON, into `out` (replacing):
 * {"guards":12,"orphans":[{"kind":"missing","entity":"User","unique":"email",
 *   "guard":"EMAIL#ann@x.com","holder":{"PK":"ORG#1","SK":"USER#2"}}]}
 * ("guards": how many guard items were taken; "holder" null for an
 * untraceable guard). DDBST_EINVAL while holders are unanswered,
 * DDBST_ENOMEM. */
DDBST_API int ddbst_guard_audit_json(const ddbst_guard_audit *audit,
                                     ddbst_buf *out, ddbst_error *err);

/* ---- DynamoDB Streams ---- */

/* The records of a DynamoDB stream event as Lambda delivers it,
 * {"Records":[{"eventID":"...","eventName":"INSERT","dynamodb":{"Keys":{..},
 * "NewImage":{..},"OldImage":{..},"SequenceNumber":"...",...},...}]}, each
 * record's images identified as a page's items are. A record of an item
 * that is no entity — a unique attribute's guard item, an item another
 * program wrote — is kept with DDBST_ENOTFOUND as its entity, so a handler
 * skips it instead of failing the batch. Parsed like a page (no tree; a
 * warm stream parses an event no larger without allocating). Not
 * thread-safe; the model must outlive it. */
typedef struct ddbst_stream ddbst_stream;

#define DDBST_STREAM_INSERT 1
#define DDBST_STREAM_MODIFY 2
#define DDBST_STREAM_REMOVE 3

/* A record's images. */
#define DDBST_IMAGE_KEYS 0 /* the key: primary-key facets only */
#define DDBST_IMAGE_NEW 1  /* the item after the write (INSERT, MODIFY) */
#define DDBST_IMAGE_OLD 2  /* the item before it (MODIFY, REMOVE) */

/* A new stream reader, or NULL (a NULL model, no memory). Uses the model's
 * allocator. */
DDBST_API ddbst_stream *ddbst_stream_new(const ddbst_model *model);
DDBST_API void ddbst_stream_free(ddbst_stream *stream);

/* Parses the event; returns the number of records, or DDBST_ESYNTAX,
 * DDBST_EVALUE (path "Records[2].dynamodb.NewImage.price.N"; a record
 * without eventName, dynamodb.Keys or dynamodb.SequenceNumber), DDBST_EINVAL,
 * DDBST_ENOMEM; then the stream is empty. */
DDBST_API int ddbst_stream_parse(ddbst_stream *stream, const char *json,
                                 size_t len, ddbst_error *err);

/* Records parsed (0 after an error). */
DDBST_API int ddbst_stream_count(const ddbst_stream *stream);
/* Record `i`'s DDBST_STREAM_* event, or DDBST_EINVAL. */
DDBST_API int ddbst_stream_event(const ddbst_stream *stream, int i);
/* Record `i`'s entity index, DDBST_ENOTFOUND when it is no entity's item,
 * DDBST_EINVAL. */
DDBST_API int ddbst_stream_entity(const ddbst_stream *stream, int i);
/* Record `i`'s dynamodb.SequenceNumber (the batchItemFailures identifier),
 * or NULL for a bad `i`; valid until the stream changes. */
DDBST_API const char *ddbst_stream_sequence_number(const ddbst_stream *stream,
                                                   int i);
/* 1 when record `i` is a REMOVE that DynamoDB's TTL made (its userIdentity
 * is the DynamoDB service), else 0. */
DDBST_API int ddbst_stream_by_ttl(const ddbst_stream *stream, int i);

/* Image `image` (DDBST_IMAGE_*) of record `i` into `item`, as
 * ddbst_page_item fills it (paths "Records[i].dynamodb.NewImage.<name>").
 * Returns the entity index, or DDBST_ENOTFOUND when the record has no such
 * image (a KEYS_ONLY stream, the new image of a REMOVE) or is no entity's,
 * DDBST_EVALUE, DDBST_EINVAL, DDBST_ENOMEM. */
DDBST_API int ddbst_stream_image(const ddbst_stream *stream, int i, int image,
                                 ddbst_item *item, ddbst_error *err);

/* Record `i` as plain JSON, into `out` (replacing; _append: after what
 * `out` holds):
 * {"eventName":"MODIFY","sequenceNumber":"...","eventID":"...",
 *  "entity":"User","keys":{"orgId":"1","userId":"3"},"new":{...},"old":{...}}
 * with images as ddbst_page_item_json writes items ("new" and "old" only
 * when the record has them; "newUndeclared"/"oldUndeclared" for attributes
 * the entity does not declare; "removedByTtl":true for a TTL removal). A
 * record of no entity has "entity":null and every attribute as stored,
 * key attributes included. */
DDBST_API int ddbst_stream_record_json(const ddbst_stream *stream, int i,
                                       ddbst_buf *out, ddbst_error *err);
DDBST_API int ddbst_stream_record_json_append(const ddbst_stream *stream,
                                              int i, ddbst_buf *out,
                                              ddbst_error *err);

/* The answer of a Lambda with ReportBatchItemFailures, into `out` (replacing):
 * {"batchItemFailures":[{"itemIdentifier":"<SequenceNumber>"},...]} for the
 * records whose indices are in `failed` (`nfailed` of them, any order,
 * repeats ignored), in stream order; no failures gives
 * {"batchItemFailures":[]}. Lambda retries from the first one listed.
 * DDBST_EINVAL (path "failed[k]") for an index out of range. */
DDBST_API int ddbst_stream_failures_json(const ddbst_stream *stream,
                                         const int32_t *failed, size_t nfailed,
                                         ddbst_buf *out, ddbst_error *err);

/* ---- cursors ---- */

/* ddbst_cursor_keys (declared with the queries): sealing keys for
 * pagination cursors, 32-byte XChaCha20-Poly1305 keys. The first one added
 * seals, every one opens what it sealed (rotation: add the new key first,
 * keep the old ones until their cursors have expired). Set up once, then
 * read-only: share it between threads. */

#define DDBST_CURSOR_KEY_BYTES 32

/* A new empty keyring (one allocation, through `alloc`; NULL: malloc), or
 * NULL when allocation fails. Free with ddbst_cursor_keys_free, which wipes
 * the keys. */
DDBST_API ddbst_cursor_keys *ddbst_cursor_keys_new(const ddbst_allocator *alloc);
DDBST_API void ddbst_cursor_keys_free(ddbst_cursor_keys *keys);
/* Adds a key (the first added seals); never allocates. DDBST_ERANGE past 16
 * keys, DDBST_EVALUE for a key of zero bytes or one already added. */
DDBST_API int ddbst_cursor_keys_add(ddbst_cursor_keys *keys,
                                    const uint8_t key[DDBST_CURSOR_KEY_BYTES],
                                    ddbst_error *err);
/* Adds keys written as 64 hex characters each, comma-separated, newest
 * first (the DDBST_CURSOR_KEY format; spaces around a key are ignored), all
 * or none: DDBST_EVALUE names the first bad key by its position, never by
 * its text. */
DDBST_API int ddbst_cursor_keys_add_hex(ddbst_cursor_keys *keys,
                                        const char *hex, ddbst_error *err);
/* Cursors older than this are refused (0: no limit, the default). With a
 * maximum age, cursors carry their issue time (5 bytes more); cursors made
 * without one are refused once a maximum age is set. */
DDBST_API void ddbst_cursor_keys_set_max_age(ddbst_cursor_keys *keys,
                                             int64_t seconds);

/* Parses `json`, DynamoDB's answer to the Query that `values` and `pattern`
 * made (as given to ddbst_query_request), and remembers that query — its
 * pattern (and so its index and order) and the partition key it read,
 * rendered from `values` now — so that ddbst_page_next_cursor needs the
 * page alone. `values` is only read: it may be reset and reused (for the
 * page's items, say) right after the call. Returns the number of items, or
 * ddbst_page_parse's errors, and DDBST_EINVAL (a pattern that is no query
 * of the values' entity; values of another model), DDBST_EMISSING (a
 * partition facet unset, as ddbst_query_request refuses it); on error the
 * page is empty. ddbst_page_parse forgets the query. */
DDBST_API int ddbst_page_parse_query(ddbst_page *page, const ddbst_item *values,
                                     int pattern, const char *json, size_t len,
                                     ddbst_error *err);

/* Parses `json`, DynamoDB's answer to the Scan body `scan` last built
 * (ddbst_scan_request), as ddbst_page_parse parses a Query's answer, with
 * two differences: an item that is no entity of the model — a unique
 * attribute's guard item, an item another program or an older model
 * wrote, one whose entity attribute names no entity — is kept, not
 * refused (ddbst_page_item_entity says DDBST_ENOTFOUND, ddbst_page_item
 * refuses it, ddbst_page_item_json gives it whole, keys included, with
 * "entity":null; ddbst_guard_audit_add reads its guards); and the page
 * remembers the scan, so that ddbst_page_next_cursor makes the cursor of
 * the scan's next page. `scan` is only read: it may build its next body
 * right after. Returns the number of items, or ddbst_page_parse's errors,
 * and DDBST_EINVAL (a scan of another model, or one that built no body);
 * on error the page is empty. */
DDBST_API int ddbst_page_parse_scan(ddbst_page *page, const ddbst_scan *scan,
                                    const char *json, size_t len,
                                    ddbst_error *err);

/* The cursor of the next page, as base64url text, into `out` (replacing
 * its contents): returns 1 when there is a next page and `out` holds its
 * cursor, 0 when this page is the last (`out` is then empty: no cursor is
 * not an error). `keys` NULL makes an unsealed cursor (development only: it
 * reveals the keys and can be altered), which only a model declaring
 * "cursors": "unsealed" allows (else DDBST_EINVAL, path "cursor_keys").
 * `now_unix_us` is the issue time a keyring with a maximum age writes
 * (DDBST_NOW: the clock). DDBST_EINVAL (path "page") for a page not parsed
 * with ddbst_page_parse_query or ddbst_page_parse_scan, or whose last
 * parse failed; DDBST_EVALUE for a LastEvaluatedKey that is not the
 * query's (another partition, keys of no entity of the pattern: path
 * "LastEvaluatedKey...") or the scan's (not the keys of its table and
 * index); DDBST_ERANGE,
 * DDBST_ENOMEM. On error `out` is empty. Does not change the page; a warm
 * buffer is not allocated into. */
DDBST_API int ddbst_page_next_cursor(const ddbst_page *page,
                                     const ddbst_cursor_keys *keys,
                                     int64_t now_unix_us, ddbst_buf *out,
                                     ddbst_error *err);

/* ---- projections: what an index's page holds, and the full items ---- */

/* Whether the page's items can hold attribute `attr` of entity `entity`:
 * 1 when the index the page read projects it (ALL; a name of an INCLUDE
 * list; a facet the page recovers from the table's or the index's keys,
 * which every projection carries, a lower-cased facet excepted), 0 when it
 * does not — an unset value then means "not read", never "absent": read the
 * item whole with ddbst_hydrate_begin. Only a page parsed with
 * ddbst_page_parse_query knows its index; any other page says 1.
 * DDBST_EINVAL for a NULL page or a bad entity or attribute. Such items'
 * ddbst_page_item_json carries "notProjected":["role",...] (declaration
 * order) after "item", naming what the index leaves out. Thread-safe on a
 * page no one parses into. */
DDBST_API int ddbst_page_projects(const ddbst_page *page, int entity, int attr);

/* The full items of a page read from a KEYS_ONLY or INCLUDE index (or any
 * page of items: a table's, to re-read it with ConsistentRead), by
 * BatchGetItem of their primary keys on the table, read back in the
 * page's order. The loop (docs/responses.md has it whole):
 *
 *   n = ddbst_hydrate_begin(h, page, NULL, 0, &err);   // chunks of 100 keys
 *   for (k = 0; k < n; k++) {
 *     ddbst_hydrate_request(h, k, 0, body, &err);       // send it
 *     do {
 *       ddbst_page_parse(answer, DDBST_OP_BATCH_GET_ITEM, resp, len, &err);
 *       ddbst_hydrate_read(h, k, answer, &err);
 *     } while (ddbst_page_followup_request(answer, body, &err) > 0); // resend
 *   }
 *   full = ddbst_hydrate_page(h);  // item i: page item i, or an empty slot
 *
 * Not thread-safe; the model must outlive it. Reusable: begin forgets the
 * previous hydration and keeps the memory, so a warm hydrator (a page no
 * larger) builds and reads without allocating, but for an answer with
 * UnprocessedKeys. */
typedef struct ddbst_hydrate ddbst_hydrate;

/* A new hydrator for `model`, or NULL (a NULL model, no memory). Free with
 * ddbst_hydrate_free (NULL is ignored). */
DDBST_API ddbst_hydrate *ddbst_hydrate_new(const ddbst_model *model);
DDBST_API void ddbst_hydrate_free(ddbst_hydrate *h);

/* Starts hydrating `page` (only read: it may be reused right after): the
 * primary keys of its items, in its order, each distinct key once (two
 * items of one key share it: BatchGetItem refuses a key twice), cut into
 * chunks of DynamoDB's 100 keys. `attributes`, `nattributes` names (NULL,
 * 0: whole items) narrow the read to those attributes, with the table's
 * keys and the entity attribute always added, so each answer is matched
 * to its item and identified. Returns the number of requests (0 for an
 * empty page). Errors: DDBST_EINVAL (NULL arguments, a page of another
 * model, a page holding no read's items — BatchWriteItem, a stream, an
 * error body, a failed parse — or an empty TransactGetItems slot, path
 * "Responses[i]"; an attribute given twice), DDBST_ENOTFOUND (an attribute
 * no entity of the page declares, path "attributes[i]"), DDBST_ENOMEM. On
 * error the hydrator is empty (0 requests). */
DDBST_API int ddbst_hydrate_begin(ddbst_hydrate *h, const ddbst_page *page,
                                  const char *const *attributes,
                                  size_t nattributes, ddbst_error *err);

/* The number of requests ddbst_hydrate_begin made (0 when empty). */
DDBST_API int ddbst_hydrate_request_count(const ddbst_hydrate *h);

/* The BatchGetItem of chunk `chunk` (0-based: keys 100*chunk onward, in
 * the page's order), into `out` (replacing):
 * {"RequestItems":{"<table>":{"Keys":[{"PK":{"S":...},"SK":{"S":...}},...]
 * [,"ConsistentRead":true][,"ProjectionExpression":"#p0, #p1, ...",
 * "ExpressionAttributeNames":{"#p0":"PK",...}]}}}. `flags`: 0 or
 * DDBST_CONSISTENT_READ. Returns DDBST_OP_BATCH_GET_ITEM; DDBST_EINVAL (a
 * chunk that does not exist, path "chunk"; another flag, path "flags"),
 * DDBST_ENOMEM; on error `out` is empty. */
DDBST_API int ddbst_hydrate_request(const ddbst_hydrate *h, int chunk,
                                    uint32_t flags, ddbst_buf *out,
                                    ddbst_error *err);

/* What hydration knows of an item of the page. */
#define DDBST_HYDRATE_UNREAD 0      /* its chunk's answer is not read yet */
#define DDBST_HYDRATE_FOUND 1       /* read: ddbst_hydrate_page holds it */
#define DDBST_HYDRATE_MISSING 2     /* not there any more (deleted since) */
#define DDBST_HYDRATE_UNPROCESSED 3 /* in UnprocessedKeys: send the follow-up */

/* Reads `answer`, DynamoDB's answer to chunk `chunk`'s request or to a
 * follow-up of it (ddbst_page_followup_request), as ddbst_page_parse
 * parsed it with DDBST_OP_BATCH_GET_ITEM. Each item it holds goes to the
 * page's slots of its key (FOUND); the chunk's keys in its UnprocessedKeys
 * are UNPROCESSED (unless found before); every other key of the chunk not
 * found yet is MISSING: DynamoDB answers nothing for a key it has no item
 * of. Answers of one chunk may be read in any order. Returns the number of
 * the chunk's keys left UNPROCESSED (0: the chunk is settled). All or
 * nothing: on error nothing changes. Errors: DDBST_EINVAL (NULL arguments,
 * an answer of another model or not a parsed BatchGetItem answer, path
 * "answer"; a chunk that does not exist, path "chunk"); DDBST_EVALUE (an
 * item of another table, an item or an unprocessed key the chunk did not
 * ask for — "Responses.<table>[i]", "UnprocessedKeys.<table>.Keys[j]" —
 * and an item read already: the same answer read twice); DDBST_ENOMEM. */
DDBST_API int ddbst_hydrate_read(ddbst_hydrate *h, int chunk,
                                 const ddbst_page *answer, ddbst_error *err);

/* DDBST_HYDRATE_* of the page's item `i`, or DDBST_EINVAL for a bad `i`. */
DDBST_API int ddbst_hydrate_state(const ddbst_hydrate *h, int i);

/* How many of the page's items are neither FOUND nor MISSING: 0 when the
 * hydration is complete. */
DDBST_API int ddbst_hydrate_pending(const ddbst_hydrate *h);

/* The full items, as a page that the ddbst_page_* readers read (never
 * parse into it or free it: the hydrator owns it): as many items as the
 * page hydrated, item i being its item i as read by BatchGetItem, or an
 * empty slot (ddbst_page_item DDBST_ENOTFOUND, JSON null) until FOUND.
 * Valid until the next ddbst_hydrate_begin or ddbst_hydrate_free; NULL for
 * a NULL hydrator. */
DDBST_API const ddbst_page *ddbst_hydrate_page(const ddbst_hydrate *h);

/* ---- infrastructure and review ---- */

/* The model as a deployable table and as a design review. These read the
 * model only: like every model function they may run on many threads at
 * once. Output replaces the contents of `out`; on failure it is empty. */

/* A CloudFormation template (JSON) for the model's table, into `out`:
 *  - Resources.AppTable, the AWS::DynamoDB::Table: the table name in force,
 *    AttributeDefinitions of exactly the key attributes (S, and a
 *    multi-attribute index's own typed S, N or B by the attribute), the key
 *    schema, every GSI with its projection, PAY_PER_REQUEST, the stream when
 *    the model has one, point-in-time recovery and SSE on, TTL on the
 *    model's TTL attribute when it has one, DeletionPolicy and
 *    UpdateReplacePolicy Retain;
 *  - Resources.AppTableAccess, an AWS::IAM::ManagedPolicy with one statement
 *    on the table's ARN and its "/index/" wildcard (when it has indexes) allowing only
 *    the actions the access patterns and writes need;
 *  - with stream filters, Metadata.ddbst.filterPatterns: one Lambda
 *    event-source filter pattern per filter, in order, passing only that
 *    entity's records (told apart by key prefixes) and only its events.
 * `stream_filters` holds `nfilters` strings "Entity" (every event) or
 * "Entity:INSERT,MODIFY,REMOVE" (any of the three); it may be NULL when
 * `nfilters` is 0. Errors, with the path "stream_filters[i]":
 * DDBST_ENOTFOUND (no such entity), DDBST_EINVAL (a bad event name; filters
 * on a model without a stream, path "table.stream"), DDBST_EMODEL (no key
 * prefix tells the entity's records apart from another item's), and
 * DDBST_ENOMEM. */
DDBST_API int ddbst_model_cloudformation(const ddbst_model *model,
                                         const char *const *stream_filters,
                                         size_t nfilters, ddbst_buf *out,
                                         ddbst_error *err);

/* Severities of lint findings. */
#define DDBST_LINT_NOTE 0
#define DDBST_LINT_WARNING 1
#define DDBST_LINT_ERROR 2

/* Receives one lint finding: its severity (DDBST_LINT_*), the rule's stable
 * name ("hot-partition"), the JSON path in the model file it is about
 * ("entities.Blog.indexes.gsi1.pk") and a message a person can act on. The
 * strings are valid during the call only. */
typedef void (*ddbst_lint_fn)(void *user, int32_t severity, const char *rule,
                              const char *path, const char *message);

/* Reviews the model against the single-table checklist (docs/review.md lists
 * every rule) and calls `on_finding` (which may be NULL, to count only) for
 * each finding in a stable order: table, entities, patterns. Returns the
 * number of findings of severity DDBST_LINT_ERROR (>= 0), or DDBST_EINVAL.
 * Does not allocate. */
DDBST_API int ddbst_model_lint(const ddbst_model *model,
                               ddbst_lint_fn on_finding, void *user,
                               ddbst_error *err);

/* "error", "warning" or "note" (static), or NULL for an unknown severity. */
DDBST_API const char *ddbst_lint_severity_name(int32_t severity);

/* ---- model evolution ---- */

/* Classes of change, by what a change does to the items already stored,
 * least severe first (docs/evolution.md gives an example of each):
 *   FREE        nothing stored changes (a new pattern served by keys items
 *               have, a new optional attribute, a description);
 *   CLEANUP     something removed stays on items until removed (an index's
 *               key attributes, an attribute, guard items, an entity's items);
 *   BACKFILL    items already stored lack what the new model writes (a new
 *               index's keys, a default, an entity joining an index);
 *   REWRITE     every affected item moves to a new key (a template, facet
 *               order, precision, width, casing or delimiter changed);
 *   UNSAFE      items may hold what the new model refuses or merges (an enum
 *               value removed, a type changed, a unique constraint added):
 *               each says what a migration must check first;
 *   IMPOSSIBLE  DynamoDB cannot do it in place (a new local index, a changed
 *               table key schema, a rename): a new table and a copy. */
#define DDBST_CHANGE_NONE 0
#define DDBST_CHANGE_FREE 1
#define DDBST_CHANGE_CLEANUP 2
#define DDBST_CHANGE_BACKFILL 3
#define DDBST_CHANGE_REWRITE 4
#define DDBST_CHANGE_UNSAFE 5
#define DDBST_CHANGE_IMPOSSIBLE 6

/* Flags of ddbst_model_diff. */
#define DDBST_DIFF_TEXT 0x1u          /* text for people instead of JSON */
#define DDBST_DIFF_TABLE_RENAMED 0x2u /* models of differently named tables
                                         are one table renamed (an
                                         IMPOSSIBLE change), not an error */

/* Every difference between `old_model` and `new_model` that matters to the
 * items already in the table, classified (DDBST_CHANGE_*), into `out`
 * (replacing its contents). Keys are compared as compiled (templates,
 * facets and each facet's key form), so a model reformatted or reordered
 * is no change. The JSON form:
 *   {"table":"saas-api-dev","changes":[{"class":"rewrite",
 *    "what":"entities.Project.key.sk","reason":"...","entities":["Project"],
 *    "patterns":["listProjects"],"check":"..." (unsafe only),
 *    "updateTable":[{"removeIndex":"GSI2"},{"addIndex":"GSI2"}] (when the
 *    change needs UpdateTable)}],"worst":"rewrite"}
 * in a stable order: table, indexes, entities (the new model's order, then
 * those removed), patterns; "what" is a path in the new model file (the
 * old one's for what was removed). DDBST_DIFF_TEXT writes one change a
 * paragraph ("CLASS WHAT: REASON", then its entities and patterns, what to
 * check first, the UpdateTable steps) and a last line "N changes, the
 * worst: CLASS" or "no change".
 * Returns the most severe class met (DDBST_CHANGE_NONE .. _IMPOSSIBLE: a CI
 * job fails on >= DDBST_CHANGE_REWRITE, say), or DDBST_EINVAL (a NULL
 * model or buffer, unknown flags, models of tables with different names
 * without DDBST_DIFF_TABLE_RENAMED, path "table.name"), DDBST_ENOMEM; on
 * error `out` is left empty. Allocates through `out`'s allocator only.
 * Reentrant: the models are only read. */
DDBST_API int ddbst_model_diff(const ddbst_model *old_model,
                               const ddbst_model *new_model, uint32_t flags,
                               ddbst_buf *out, ddbst_error *err);

/* "free", "cleanup", ... (static) for a DDBST_CHANGE_*, "none" for
 * DDBST_CHANGE_NONE, NULL for anything else. */
DDBST_API const char *ddbst_change_class_name(int32_t cls);

/* ddbst_model_lint of `model`, then one finding for each change since the
 * model `since` that ddbst_model_diff classes UNSAFE (rule "change-unsafe",
 * its message ending with what to check first) or IMPOSSIBLE (rule
 * "change-impossible"), both of severity DDBST_LINT_ERROR, at the change's
 * path; a renamed table is such a change, not an error. Returns the number
 * of error findings, or DDBST_EINVAL (a NULL model), DDBST_ENOMEM (the
 * findings given so far stand). Allocates through `model`'s allocator. */
DDBST_API int ddbst_model_lint_since(const ddbst_model *model,
                                     const ddbst_model *since,
                                     ddbst_lint_fn on_finding, void *user,
                                     ddbst_error *err);

/* Markdown for a design review, into `out`: the entity and key table
 * (Entity | PK | SK | each index's keys | other attributes), the indexes, the
 * access-pattern table (# | pattern | operation | index | key condition |
 * order | limit) and a Mermaid diagram of which entities share which
 * partitions of the table and of each index. DDBST_ENOMEM. */
DDBST_API int ddbst_model_doc(const ddbst_model *model, ddbst_buf *out,
                              ddbst_error *err);

/* The design view of the model as JSON, into `out`: what the page
 * `ddbst view` writes draws (docs/view.md). Sample items made from the
 * model deterministically from `seed` (the same seed, the same bytes) —
 * values by type and attribute name, partitions shared the way the keys
 * share them, each item prepared and keyed as a create writes it, unique
 * guard items included — as the table and each index hold them, in key
 * order; every access pattern with a request ddbst builds for the sample
 * (its key condition and filter spelled out, a sentence on what it reads)
 * and the rows it reads, in the order DynamoDB returns them; the lint
 * findings; the model's descriptions:
 *   {"seed":1,"table":{...},"indexes":[...],"entities":[...],
 *    "items":[{"entity":"User","item":{<AttributeValue map>}},...],
 *    "views":[{"index":null,"rows":[0,3,...]},...],
 *    "patterns":[{"name":"listUsers","request":{"operation":"Query",
 *      "body":{...}},"keyCondition":"PK = \"ORG#acme\" AND ...",
 *      "reads":[4,5,6],...}],"findings":[...]}
 * DDBST_EINVAL, DDBST_ENOMEM, or the error a sample item of the model could
 * not be made with; on error `out` is empty. Reads the model only. */
DDBST_API int ddbst_model_view_json(const ddbst_model *model, uint64_t seed,
                                    ddbst_buf *out, ddbst_error *err);

/* The view's sample items for `seed` as DynamoDB takes them, into `out`: BatchWriteItem bodies of at most 25 PutRequests, each on a line of
 * its own, to load the very items ddbst_model_view_json shows into a table
 * (DynamoDB Local, a review stage). Errors as ddbst_model_view_json's. */
DDBST_API int ddbst_model_view_data(const ddbst_model *model, uint64_t seed,
                                    ddbst_buf *out, ddbst_error *err);

/* ---- migrations: carrying stored items from one model to the next ---- */

/* A migration from `old_model` to `new_model` (docs/evolution.md,
 * "Migrating"): the ordered plan, and for each page of a Scan the write
 * requests that bring every item of the page to the new model.
 *
 * The plan, in order: UpdateTable adding each new global index (then wait
 * for its IndexStatus ACTIVE, DescribeTable); deploy the code of the new
 * model writing by the writer protocol below; one scan pass of the whole
 * table (parallel segments welcome) in which each item gets, at most, one
 * write that does all its work — backfill (new index keys, defaults, the
 * entity attribute), rewrite (values at a new precision, index keys
 * re-rendered; a primary key that moves), cleanup (the key attributes of
 * removed indexes, attributes the new model removed); one verify pass;
 * UpdateTable removing each index the new model dropped, last.
 *
 * Each write is conditional on the item still being as it was read: on
 * its version attribute when the old entity has one and the item holds it
 * (the write stores version + 1, so a writer holding the old version is
 * refused in turn), else on every attribute read being equal to what was
 * read and every attribute either model declares for it (and each name
 * the write sets) still being absent where it was, and the item existing.
 * So a concurrent writer is never overwritten: its write wins, the
 * migration's fails (ConditionalCheckFailed) and the driver re-reads the
 * item (ddbst_migration_reread_request) and redoes it. An item whose
 * primary key moves is one TransactWriteItems: Put under the new key
 * (attribute_not_exists), Delete of the old key (as read), and its unique
 * guards moved (a guard whose key changes: Delete the old, Put the new;
 * one whose holder's key changes: Put again with the new holderKey,
 * conditional on it holding the old one) — it is never lost nor in the
 * table twice. An item already in the new model's shape gets no write,
 * so a pass run again (after a kill, from the segments' saved cursors, or
 * from the start) does nothing more. Guard items are no entity: the pass
 * leaves them alone (they move with their holder). An item the new model
 * cannot take (a value it refuses, a facet missing for a key, an entity it
 * removed, an item of no entity of either model) is REPORTED with the
 * reason, never written, never dropped.
 *
 * Changes ddbst_model_diff classes IMPOSSIBLE refuse the migration. UNSAFE
 * ones refuse it unless DDBST_MIGRATE_UNSAFE is given: then every item is
 * checked against the new model as it is migrated, and one that fails the
 * check (an enum value removed, a value of the old type) is reported, not
 * written; a new unique constraint writes each item's guard (Put,
 * conditional on no other holder), so a duplicate makes that item's write
 * fail and ddbst_migration_failed reports it.
 *
 * THE WRITER PROTOCOL. While old-shape items exist, a service writing
 * under the new model must not create a second copy of an item whose
 * primary key moves, nor resurrect one it deletes (deleting the new key
 * alone leaves the old-key item, which the pass would move back). So,
 * for an entity whose primary key moves (ddbst_migration_moves):
 *   - a put (create or replace) is ddbst_migration_write_request with
 *     DDBST_OP_PUT_ITEM: the new item's Put and, in the same
 *     TransactWriteItems, a Delete of its old key (a create: a
 *     ConditionCheck that no item has the old key either);
 *   - a delete is ddbst_migration_write_request with DDBST_OP_DELETE_ITEM:
 *     the Delete of both keys in one TransactWriteItems, and of its unique
 *     guards under either model, each conditional on being held by the
 *     item (under either key);
 *   - an update is an ordinary update of the new key (ddbst_update_request
 *     of the new model without DDBST_UPSERT: conditional on the item
 *     existing). It fails while the item is still under its old key; then
 *     update it there, as the old model writes it (ddbst_update_request of
 *     an item of the old model, no upsert either), and the pass carries it
 *     over; if that fails too, the pass moved it in between: update the
 *     new key again;
 *   - never an upsert (DDBST_UPSERT), a plain replacing put of an entity
 *     with unique attributes (refused anyway) or a delete with
 *     DDBST_IF_EXISTS or an expected version, of such an entity.
 * Every interleaving with the pass then ends with one copy (docs/
 * evolution.md walks each: the pass's Delete of the old key is conditional
 * on the item as read, its Put on the new key being free; the writer's
 * Delete of the old key makes the pass's transaction fail, and the re-read
 * finds the old key gone: nothing to do). Entities whose primary key stays
 * need nothing but the new model's own requests: the pass's conditional
 * update fails when the writer changed the item first, and the writer's
 * update after the pass writes on a migrated item.
 *
 * Thread-safety: a migration holds scratch items; it is not thread-safe:
 * one per thread (a parallel pass: one per segment). The models are only
 * read and must outlive it. Once warm (its scratch grown to the largest
 * item and body), stepping a page does not allocate. */
typedef struct ddbst_migration ddbst_migration;

/* Flags of ddbst_migration_new. */
#define DDBST_MIGRATE_UNSAFE 0x1u /* accept UNSAFE changes: items are checked
                                     one by one and refused ones reported */

/* A new migration from `old_model` to `new_model` into *out (free with
 * ddbst_migration_free). Both models must be of one table: same name and
 * key attributes (DDBST_EINVAL, path "table.name"). DDBST_EINVAL also for
 * an IMPOSSIBLE change (path: the change's "what", the message its
 * reason), and for an UNSAFE one without DDBST_MIGRATE_UNSAFE (the
 * message ends with what to check first), unknown flags, NULL arguments;
 * DDBST_ENOMEM. *out is NULL on error. Allocates through `new_model`'s
 * allocator. */
DDBST_API int ddbst_migration_new(const ddbst_model *old_model,
                                  const ddbst_model *new_model,
                                  uint32_t flags, ddbst_migration **out,
                                  ddbst_error *err);
/* NULL is ignored. */
DDBST_API void ddbst_migration_free(ddbst_migration *m);

/* Kinds of the plan's steps. */
#define DDBST_STEP_ADD_INDEX 1    /* UpdateTable creating a global index;
                                     then wait for IndexStatus ACTIVE */
#define DDBST_STEP_SCAN 2         /* the pass: every item through
                                     ddbst_migration_page / _next */
#define DDBST_STEP_VERIFY 3       /* a pass of ddbst_migration_verify */
#define DDBST_STEP_REMOVE_INDEX 4 /* UpdateTable deleting a global index */

/* The number of steps of the plan (a migration with nothing to carry
 * over has none: every change was free). */
DDBST_API int ddbst_migration_step_count(const ddbst_migration *m);
/* Step `i` (0-based, in order): its DDBST_STEP_* kind, and *index the
 * index's name (static while the models live) for the index steps, NULL
 * otherwise (`index` may be NULL). DDBST_EINVAL for a bad `i`. */
DDBST_API int ddbst_migration_step(const ddbst_migration *m, int i,
                                   const char **index);
/* The UpdateTable body of index step `i` into `out` (replacing):
 * DDBST_OP_UPDATE_TABLE, or 0 with `out` empty for the scan and verify
 * steps (their bodies are ddbst_scan's); DDBST_EINVAL for a bad `i`. */
DDBST_API int ddbst_migration_step_request(const ddbst_migration *m, int i,
                                           ddbst_buf *out, ddbst_error *err);
/* The whole plan into `out` (replacing). JSON:
 *   {"table":"blog-dev","worst":"rewrite","steps":[
 *    {"step":"addIndex","index":"GSI2","request":{"operation":
 *     "UpdateTable","body":{...}},"then":"wait until ... ACTIVE"},
 *    {"step":"scan","work":[{"class":"rewrite","what":"...",
 *     "reason":"..."},...]},{"step":"verify"},
 *    {"step":"removeIndex","index":"GSI1","request":{...}}],
 *   "notes":["..."]}
 * ("notes": what no request does: a TTL attribute set or moved is an
 * UpdateTimeToLive you send; the writer protocol). DDBST_DIFF_TEXT: the
 * same as numbered lines for people. DDBST_EINVAL (flags), DDBST_ENOMEM. */
DDBST_API int ddbst_migration_plan(const ddbst_migration *m, uint32_t flags,
                                   ddbst_buf *out, ddbst_error *err);

/* Whether items of entity `name` (of the new model) move to a new primary
 * key: 1 (a writer must then follow the protocol above), 0 (the entity's
 * items keep their key, or it is new), DDBST_ENOTFOUND (no such entity of
 * the new model), DDBST_EINVAL. */
DDBST_API int ddbst_migration_moves(const ddbst_migration *m,
                                    const char *name);

/* What an item of a page is (ddbst_migration_next, _identify). */
#define DDBST_MIGRATE_WRITE 1   /* it needs the write in `out` */
#define DDBST_MIGRATE_SKIP 2    /* in the new model's shape already */
#define DDBST_MIGRATE_GUARD 3   /* a unique guard: moves with its holder */
#define DDBST_MIGRATE_REFUSED 4 /* the new model cannot take it: reported */
#define DDBST_MIGRATE_FOREIGN 5 /* no entity of either model: reported */
/* ddbst_migration_failed's answers besides DDBST_MIGRATE_REFUSED. */
#define DDBST_MIGRATE_REDO 6    /* the item changed: re-read it and redo */
#define DDBST_MIGRATE_RETRY 7   /* throttled or a conflict: send the same
                                   body again, after a backoff */

/* Starts stepping through `page`: the answer to a Scan of the table as a
 * whole — ddbst_scan_new of either model, with no index, entity filter,
 * filter or projection (the pass must see every item whole; segments are
 * fine; ConsistentRead is recommended, so that no write of the last
 * moments is missed) — parsed with ddbst_page_parse_scan; or any page of
 * items (a Query's, a GetItem's) of a model of the same table, to read
 * or verify. The migration keeps a pointer to `page`, which must not
 * change until its last item is stepped. Returns the number of items.
 * DDBST_EINVAL (path "page") for a page of another table, a scan of an
 * index or with a filter or projection, a page whose last parse failed;
 * for a Scan page the check is of the scan its answer was parsed with. */
DDBST_API int ddbst_migration_page(ddbst_migration *m, const ddbst_page *page,
                                   ddbst_error *err);

/* The next item of the page (a re-read item first, see below): returns
 * its DDBST_MIGRATE_* outcome, or 0 when the page is done. For
 * DDBST_MIGRATE_WRITE, `out` holds the request body and *op its
 * DDBST_OP_UPDATE_ITEM (the item keeps its key) or
 * DDBST_OP_TRANSACT_WRITE_ITEMS (it moves, or guards move with it); send
 * it, and on an error answer call ddbst_migration_failed. For
 * DDBST_MIGRATE_REFUSED and _FOREIGN, `out` holds a report, one JSON
 * object: {"key":{"PK":"...","SK":"..."},"entity":"Post" (null when
 * none),"reason":"..."} (*op 0). For _SKIP and _GUARD `out` is empty (*op
 * 0). `out` is replaced in every case. Negative: DDBST_EINVAL (no page
 * given), DDBST_ENOMEM (the item is not consumed: call again). Bodies are
 * deterministic (placeholders in order): the same item, the same bytes. */
DDBST_API int ddbst_migration_next(ddbst_migration *m, int *op,
                                   ddbst_buf *out, ddbst_error *err);

/* The index in its page of the item ddbst_migration_next last gave (-1:
 * the re-read item, or none yet). */
DDBST_API int ddbst_migration_item_index(const ddbst_migration *m);

/* DynamoDB's error answer (`len` bytes) to the write ddbst_migration_next
 * last gave: DDBST_MIGRATE_REDO when a condition on the item as read
 * failed (it changed, or is gone: send ddbst_migration_reread_request);
 * DDBST_MIGRATE_RETRY (throttling, a transaction conflict, an internal
 * error: send the same body again later); DDBST_MIGRATE_REFUSED when the
 * item's new primary key is held by another item, or a unique value by
 * another holder (`out` holds the report, as ddbst_migration_next's).
 * `out` is replaced (empty but for REFUSED). DDBST_ESYNTAX for an answer
 * that is not DynamoDB's error body; DDBST_EINVAL when no write was
 * given; DDBST_EDYNAMODB for any other error of DynamoDB (validation,
 * access), with its message in `err`: stop and look. */
DDBST_API int ddbst_migration_failed(ddbst_migration *m, const char *answer,
                                     size_t len, ddbst_buf *out,
                                     ddbst_error *err);

/* A strongly consistent GetItem of the key the last item given was read
 * under, into `out` (replacing): DDBST_OP_GET_ITEM. Send it after a
 * DDBST_MIGRATE_REDO and give its answer to ddbst_migration_reread.
 * DDBST_EINVAL when no item was given. */
DDBST_API int ddbst_migration_reread_request(ddbst_migration *m,
                                             ddbst_buf *out,
                                             ddbst_error *err);
/* The answer to ddbst_migration_reread_request's GetItem: 1 when the item
 * is there (the next ddbst_migration_next gives its step, before the
 * rest of the page), 0 when it is gone (a writer moved or deleted it:
 * nothing to do). Errors as ddbst_page_parse's. */
DDBST_API int ddbst_migration_reread(ddbst_migration *m, const char *json,
                                     size_t len, ddbst_error *err);

/* Reading during a migration: item `i` of `page` (given or not to
 * ddbst_migration_page) as the new model reads it. Returns
 * DDBST_MIGRATE_SKIP (an item of the new model's shape), DDBST_MIGRATE_WRITE
 * (an item of the old model's shape, not migrated yet), _GUARD, _REFUSED
 * (of an entity, but not one the new model can take) or _FOREIGN; for the
 * first two `item` (of the new model; may be NULL) is reset and holds its
 * values as the new model reads them (defaults the pass would write
 * included) and *entity_out (may be NULL) its entity in the new model, -1
 * otherwise. DDBST_EINVAL (a bad `i`, a page of another table, an item of
 * another model), DDBST_ENOMEM. It uses the migration's scratch: the page
 * being stepped goes on where it was, but the item last given can no
 * longer be re-read (ddbst_migration_reread_request): identify before
 * stepping, or with a migration of its own. */
DDBST_API int ddbst_migration_identify(ddbst_migration *m,
                                       const ddbst_page *page, int i,
                                       ddbst_item *item, int *entity_out,
                                       ddbst_error *err);

/* Verifies every item of `page` against the new model: identified by it
 * (its entity attribute, its keys); its primary and index keys equal to
 * what the new model renders from its facets; an index's keys present
 * exactly when the item belongs in it (a sparse index); no key attribute
 * of an index the new model removed; every default present; values
 * canonical for the new model (precision, types, enum values). Each
 * problem is one JSON line in `out` (replacing):
 *   {"key":{"PK":"...","SK":"..."},"entity":"Post","problem":"..."}
 * Guard items pass. Returns the number of problems (0: `out` empty), or
 * DDBST_EINVAL (a page ddbst_migration_page refuses), DDBST_ENOMEM. Uses
 * the migration's scratch (it replaces the page being stepped). */
DDBST_API int ddbst_migration_verify(ddbst_migration *m,
                                     const ddbst_page *page, ddbst_buf *out,
                                     ddbst_error *err);

/* The writer protocol (above): the request of a write under the new
 * model of `item` (an item of the new model, with the values the write
 * needs), as a TransactWriteItems that also takes care of the item's old
 * key when its entity moves (ddbst_migration_moves), else the very body
 * the new model's own builder makes. `op`: DDBST_OP_PUT_ITEM (flags and
 * now as ddbst_put_request: DDBST_CREATE, DDBST_RETURN_OLD_ON_FAILURE;
 * the old key's Delete, or for DDBST_CREATE a ConditionCheck that it does
 * not exist) or DDBST_OP_DELETE_ITEM (flags 0: the Delete of the new key
 * and of the old one, and of the item's guards, each conditional on naming
 * the item under either key as its holder). The old key is rendered by
 * the old model from the same values (its primary-key facets: they must
 * be set). Returns the op code of the body (DDBST_OP_TRANSACT_WRITE_ITEMS
 * when it wraps), or the builders' errors, DDBST_EINVAL (another op, an
 * item of another model, DDBST_RETURN_* values, which a transaction cannot
 * return); `out` is replaced, and empty on error. */
DDBST_API int ddbst_migration_write_request(ddbst_migration *m,
                                            ddbst_item *item, int op,
                                            uint32_t flags,
                                            int64_t now_unix_us,
                                            ddbst_buf *out, ddbst_error *err);

/* ---- the JSON entry (FFI) ---------------------------------------------- */

/* Every feature above through JSON text, for languages that call C through
 * an FFI (Python ctypes, Node koffi, Go cgo, Rust) and for the `ddbst`
 * command, which is built on it. docs/ffi.md lists every request and answer.
 *
 * A session holds a loaded model and the cursor keys. Once opened it is
 * read-only: any number of threads may call it at once. Answers are JSON
 * objects; a failure is {"error":{"code":-5,"name":"EVALUE","path":
 * "Project.createdAt","message":"..."}} with the typed API's code, path and
 * message (paths of request fields are the field's: "values.orgId",
 * "items[2].entity"; the request's own text, refused as DDBST_ESYNTAX, at the
 * path of the string at fault: "values.orgId: \ud800 is the high half of a
 * surrogate pair, ...", "values.orgId: orgId given twice"), and nothing
 * else of the answer is written (but for
 * a "page" of DynamoDB's error answer, which adds what DynamoDB said as
 * "dynamodb"). */
typedef struct ddbst_json ddbst_json;

/* Opens a session from `config` (`len` bytes of JSON):
 *   {"modelFile": "examples/saas/model.json"}   or {"model": "<model text>"}
 *   "table":        overrides table.name (optional)
 *   "cursorKeys":   the DDBST_CURSOR_KEY format, "hex64,hex64" newest first
 *   "cursorMaxAge": seconds (optional, needs cursorKeys)
 * `alloc` (NULL: malloc) serves the session, its model and its answers.
 * Returns the session (close with ddbst_json_close), or NULL with *error (if
 * `error` is not NULL) set to an error answer — for a bad model,
 * {"error":<the first problem>,"errors":[<every problem>]} — to be freed
 * with ddbst_json_free. */
DDBST_API ddbst_json *ddbst_json_open(const char *config, size_t len,
                                      const ddbst_allocator *alloc,
                                      char **error);

/* Runs one request, {"op":"query","pattern":"listProjects",...}, and
 * returns its answer: NUL-terminated JSON, its length in *answer_len (which
 * may be NULL), owned by the caller until ddbst_json_free. Never NULL: when
 * even the answer cannot be allocated it is a static ENOMEM error answer
 * (which ddbst_json_free accepts too). Thread-safe on a shared session.
 * A warm call allocates only its answer, conditions, transactions, batches
 * and stream events included (a request whose memory outgrows what the
 * session keeps, 64 KiB a piece, allocates that part at each call). */
DDBST_API char *ddbst_json_call(const ddbst_json *session, const char *request,
                                size_t len, size_t *answer_len);

/* Frees an answer of ddbst_json_call or ddbst_json_open. NULL is ignored. */
DDBST_API void ddbst_json_free(char *answer);

/* Closes a session: its model and keys are freed (the keys wiped). No call
 * may be running on it. NULL is ignored. */
DDBST_API void ddbst_json_close(ddbst_json *session);

/* ---- prepared operations (FFI without JSON) ---- */

/* One operation of a session, resolved once, whose values are passed as
 * flat text: for bindings whose cost per call is the JSON around it (Node
 * through koffi; docs/ffi.md, "Prepared operations"). The body is the one
 * the JSON entry's "body" holds for the same request. A prepared operation
 * is one caller's at a time (not thread-safe: each thread prepares its
 * own); any number of them may share a session, which must outlive them. */
typedef struct ddbst_prepared ddbst_prepared;

/* Prepares `op` — DDBST_OP_GET_ITEM, DDBST_OP_PUT_ITEM,
 * DDBST_OP_UPDATE_ITEM, DDBST_OP_DELETE_ITEM (`name` an entity) or
 * DDBST_OP_QUERY (`name` a query pattern) — with the builder's `flags`
 * (get, query: DDBST_CONSISTENT_READ; query: DDBST_QUERY_COUNT; put:
 * DDBST_CREATE, DDBST_RETURN_ALL_OLD; update: DDBST_UPSERT and one of the
 * four DDBST_RETURN_* values; delete: DDBST_IF_EXISTS,
 * DDBST_RETURN_ALL_OLD; put, update, delete: DDBST_RETURN_OLD_ON_FAILURE).
 * Returns it (free with ddbst_prepared_free), or NULL with `err`:
 * DDBST_EINVAL (no session, another op, a flag the op does not take: path
 * "op", "flags"; a get pattern: "pattern"),
 * DDBST_ENOTFOUND (path "entity" or "pattern", with "did you mean"),
 * DDBST_ENOMEM. Uses the session's allocator. */
DDBST_API ddbst_prepared *ddbst_prepared_new(const ddbst_json *session,
                                             int op, const char *name,
                                             uint32_t flags,
                                             ddbst_error *err);
/* NULL is ignored. */
DDBST_API void ddbst_prepared_free(ddbst_prepared *p);

/* The entity whose attributes `values` lists (a query's: its pattern's
 * first entity, as the JSON entry reads "values"), DDBST_EINVAL for NULL. */
DDBST_API int ddbst_prepared_entity(const ddbst_prepared *p);

/* The attribute index of the entity's version attribute, where an
 * update's '?' segment goes (ddbst_prepared_run); -1 when the entity has
 * none, DDBST_EINVAL for NULL. */
DDBST_API int ddbst_prepared_version_attribute(const ddbst_prepared *p);

/* Builds one body. `values` holds one segment per attribute of the entity,
 * in attribute index order (ddbst_model_attribute_name), each ending in a
 * NUL byte: an empty segment leaves the attribute unset, '=' and the text
 * ddbst_item_set reads sets it ("=acme\0=p-1\0\0=active\0"). An update
 * reads '=' as SET (the primary key's facets: which item) and takes four
 * more marks: '-' alone REMOVEs the attribute (ddbst_item_remove), '+' and
 * a number delta or a set's JSON elements ADDs (ddbst_item_add), '>' and a
 * JSON array appends to a list (ddbst_item_append), and '?' and an integer
 * on the version attribute expects that version (ddbst_item_expect_version);
 * the other operations refuse them. An update that changes a unique
 * attribute needs its previous value, which segments do not carry: it is
 * refused (DDBST_EMISSING at the attribute; the JSON entry's "previous"
 * carries it). `len` is the bytes of all segments,
 * their NULs included, or DDBST_NUL_TERMINATED:
 * exactly one segment per attribute is read, each to its NUL (what an FFI
 * that passes a string writes; nothing else marks the text's end, so it
 * must hold every segment). NULL: every attribute unset. A query takes
 * `limit` (0: the pattern's default) and `cursor` (NULL: the first page;
 * `cursor_len` may be DDBST_NUL_TERMINATED), opened with the session's
 * cursorKeys; the others take neither (DDBST_EINVAL). `now_unix_us`: a
 * put's defaults, an update's updatedAt and a cursor's age (DDBST_NOW: the
 * clock). Returns the body's DDBST_OP_* (a put of an entity with unique
 * attributes is DDBST_OP_TRANSACT_WRITE_ITEMS), or a negative code with `err` as the
 * typed API fills it (path "Project.status", "cursor", ...; "values" for
 * text that is not segments as above, a mark the op does not take, a
 * version that is no integer from 1: the message names the segment and
 * its attribute). A warm run does not allocate, JSON text (lists, maps,
 * sets, their ADD and append) included, but for a set of more than 32
 * elements or a map of more than 32 names, whose duplicate check does. */
DDBST_API int ddbst_prepared_run(ddbst_prepared *p, const char *values,
                                 size_t len, uint32_t limit,
                                 const char *cursor, size_t cursor_len,
                                 int64_t now_unix_us, ddbst_error *err);

/* The body the last run built: NUL-terminated, its length in *len (may be
 * NULL); "" after a failed run. Owned by `p`, valid until its next run or
 * its free. */
DDBST_API const char *ddbst_prepared_body(const ddbst_prepared *p,
                                          size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* DDBST_H */
