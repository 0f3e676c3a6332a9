/* A small read-only JSON tree for documents read once and walked with paths
 * (model files, the JSON entry's requests), built into an arena from the
 * streaming parser (parse.h). */
#ifndef DDBST_JSON_TREE_H
#define DDBST_JSON_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "base/internal.h"
#include "json/jw.h"
#include "json/parse.h" /* ddbst__text_position, for errors at a node */

typedef enum {
  DDBST__J_NULL,
  DDBST__J_BOOL,
  DDBST__J_NUMBER, /* text kept exactly as written */
  DDBST__J_STRING,
  DDBST__J_ARRAY,
  DDBST__J_OBJECT
} ddbst__jtype;

/* 48 bytes for an array or object, 24 for the rest: a scalar node is
 * allocated without the fields past `text` (read keys, key_lens and items
 * of arrays and objects only; a scalar's count is 0). A model of 200
 * entities has 14,000 nodes, two thirds of them scalars. Lengths, offsets
 * and counts fit 32 bits because a document over 4 GiB is refused. */
typedef struct ddbst__jnode ddbst__jnode;
struct ddbst__jnode {
  unsigned type : 8;    /* ddbst__jtype */
  unsigned boolean : 1;
  uint32_t len;
  uint32_t offset; /* byte offset just past the value's first token */
  uint32_t count;  /* members or elements */
  const char *text; /* string or number text, NUL-terminated */
  /* arrays and objects only; an object's three arrays are one block */
  const char **keys;     /* object member names, in document order */
  uint32_t *key_lens;
  ddbst__jnode **items;  /* member values or elements */
};

/* Parses `json` into a tree in `ar`. Text that is not text (invalid UTF-8, a
 * lone surrogate escape: json/text.h), strings holding NUL (\u0000), a name
 * given twice in one object, nesting deeper than 64 and objects of more than
 * 4096 members are refused as DDBST_ESYNTAX with the path of the value
 * ("values.orgId", "items[2]"; an object's own path for a bad member name,
 * the member's for one given twice: "orgId given twice") and the offset,
 * line and column in `err`'s fields; malformed JSON has no path, and its
 * message ends with " (line L, column C)". A document of 4 GiB or more is
 * DDBST_ESYNTAX, unread. */
int ddbst__jtree_parse(ddbst__arena *ar, const char *json, size_t len,
                       ddbst__jnode **root, ddbst_error *err);

/* What the tree parses of one owner keep from one to the next (the JSON
 * entry's session keeps one per spare scratch): the reader's blocks and
 * each nesting level's member arrays, emptied rather than freed, so that a
 * warm owner's parse allocates nothing but its arena's blocks. All zero is
 * empty; one parse at a time. */
typedef struct ddbst__jtree_frame ddbst__jtree_frame;
typedef struct ddbst__jtree_kept {
  ddbst__json_cache reader;
  ddbst__jtree_frame *frames; /* one per level, from the first parse */
} ddbst__jtree_kept;

/* ddbst__jtree_parse, its temporaries kept in `kept` (NULL: none kept).
 * When even the frames cannot be allocated, the parse runs without. */
int ddbst__jtree_parse_kept(ddbst__arena *ar, ddbst__jtree_kept *kept,
                            const char *json, size_t len, ddbst__jnode **root,
                            ddbst_error *err);
/* Frees what `kept` holds past `budget` bytes (the shallow levels stay,
 * which every request uses), so that one huge request does not hold its
 * memory for the owner's life. */
void ddbst__jtree_kept_trim(ddbst__jtree_kept *kept, const ddbst_allocator *a,
                            size_t budget);
/* Frees everything `kept` holds; it is then empty. */
void ddbst__jtree_kept_release(ddbst__jtree_kept *kept,
                               const ddbst_allocator *a);

/* The member `key` of an object node, or NULL. */
const ddbst__jnode *ddbst__jobj_get(const ddbst__jnode *obj, const char *key);

/* A node back to JSON text, through the sticky writer (its status says
 * whether it all went). */
void ddbst__jtree_write(ddbst__jw *w, const ddbst__jnode *v);

#endif
