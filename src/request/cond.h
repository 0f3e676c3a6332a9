/* Conditions, filters and update actions in the model's terms: the one
 * representation both written forms compile to (cond_text.c, the text form;
 * cond_json.c, the JSON form), resolved and typed against an entity
 * (cond.c, cond_values.c, update_actions.c) and written into request
 * bodies through the placeholders of expr.h (cond_write.c). */
#ifndef DDBST_REQUEST_COND_H
#define DDBST_REQUEST_COND_H

#include "json/tree.h"
#include "request/expr.h"

/* What a node is. The parsers make the syntax (every kind, names and
 * literals as written); resolution fills in what the names and values
 * are, so the writer never looks anything up. */
typedef enum {
  /* conditions: their kids are conditions */
  DDBST__X_OR,
  DDBST__X_AND,
  DDBST__X_NOT,
  /* comparisons and functions: their kids are operands */
  DDBST__X_CMP,         /* kids[0] op kids[1] */
  DDBST__X_BETWEEN,     /* kids[0] BETWEEN kids[1] AND kids[2] */
  DDBST__X_IN,          /* kids[0] IN (kids[1], ...) */
  DDBST__X_EXISTS,      /* attribute_exists(kids[0]) */
  DDBST__X_NOT_EXISTS,  /* attribute_not_exists(kids[0]) */
  DDBST__X_TYPE,        /* attribute_type(kids[0], kids[1]) */
  DDBST__X_BEGINS,      /* begins_with(kids[0], kids[1]) */
  DDBST__X_CONTAINS,    /* contains(kids[0], kids[1]) */
  /* operands */
  DDBST__X_PATH,        /* an attribute, or a path into a map or list one */
  DDBST__X_SIZE,        /* size(kids[0]) */
  DDBST__X_VALUE,       /* a literal */
  DDBST__X_PARAM,       /* :name, bound per request */
  /* values of a SET action */
  DDBST__X_PLUS,          /* kids[0] + kids[1] */
  DDBST__X_MINUS,         /* kids[0] - kids[1] */
  DDBST__X_IF_NOT_EXISTS, /* if_not_exists(kids[0], kids[1]) */
  DDBST__X_LIST_APPEND,   /* list_append(kids[0], kids[1]) */
  /* update actions: kids[0] is the path acted on */
  DDBST__X_SET,    /* SET kids[0] = kids[1] */
  DDBST__X_REMOVE, /* REMOVE kids[0] */
  DDBST__X_ADD,    /* ADD kids[0] kids[1] */
  DDBST__X_DELETE  /* DELETE kids[0] kids[1] */
} ddbst__xkind;

/* Comparison operators, in the order of their text in cond_write.c. */
typedef enum {
  DDBST__CMP_EQ,
  DDBST__CMP_NE,
  DDBST__CMP_LT,
  DDBST__CMP_LE,
  DDBST__CMP_GT,
  DDBST__CMP_GE
} ddbst__cmp;

/* How a literal was written: a string (its decoded text), a number, true or
 * false, null, an array or an object (their JSON text); or a parameter's
 * bound text, read as ddbst_item_set reads values (as JSON where no
 * attribute types it). */
typedef enum {
  DDBST__L_STRING,
  DDBST__L_NUMBER,
  DDBST__L_BOOL,
  DDBST__L_NULL,
  DDBST__L_ARRAY,
  DDBST__L_OBJECT,
  DDBST__L_BOUND
} ddbst__lform;

/* What a value must be where it stands, decided by what it is compared
 * with or acts on (cond_values.c turns a literal into its AttributeValue
 * by it: one function for literals and for parameters). */
typedef enum {
  DDBST__U_ATTR,    /* a value of attribute `attr`, as ddbst_item_set reads it */
  DDBST__U_DOC,     /* inside a map or list: by its JSON form (S N BOOL NULL L M) */
  DDBST__U_NUMBER,  /* a number: size(), arithmetic inside a document */
  DDBST__U_PREFIX,  /* begins_with on attribute `attr` (or a document): a string */
  DDBST__U_PART,    /* contains on a string-typed attribute: a string */
  DDBST__U_ELEMENT, /* contains on a set attribute: one element */
  DDBST__U_TYPE,    /* attribute_type: S SS N NS B BS BOOL NULL L M */
  DDBST__U_SET,     /* ADD or DELETE inside a document: a string or number set */
  DDBST__U_LIST     /* list_append inside a document: a list */
} ddbst__use;

/* One step of a path after its attribute: .name (`name` set) or [index]. */
typedef struct ddbst__xstep {
  const char *name; /* NULL: an index */
  uint32_t len;
  uint32_t index;
  const ddbst__name *nm; /* resolved: the name as placeholders write it */
} ddbst__xstep;

typedef struct ddbst__xnode ddbst__xnode;
struct ddbst__xnode {
  ddbst__xkind kind;
  ddbst__cmp op;
  int nkids;
  ddbst__xnode **kids;
  /* where it was written, for errors: a byte offset in the text form, or
   * the JSON form's path ("condition.and[1].=[0]") */
  uint32_t offset;
  const char *jpath;
  /* X_PATH: the attribute's name as written, then the steps */
  const char *name;
  uint32_t name_len;
  ddbst__xstep *steps;
  int nsteps;
  /* X_VALUE: the literal as written; X_PARAM: its name */
  ddbst__lform form;
  const char *text;
  size_t len;
  /* resolved */
  int attr;                 /* X_PATH: the entity's attribute */
  const char *av;           /* X_VALUE: its AttributeValue JSON */
  uint32_t av_len;
  ddbst__use use;           /* X_VALUE, X_PARAM: what it had to be */
  const ddbst__attr *uattr; /* ... for which attribute (NULL: none) */
};

/* What a request writes of an expression, flattened at compile time:
 * fixed text, names (placeholders), values and parameters, in order. */
typedef enum {
  DDBST__XOP_TEXT,  /* text, len */
  DDBST__XOP_NAME,  /* nm */
  DDBST__XOP_VALUE, /* text, len: an AttributeValue */
  DDBST__XOP_PARAM  /* param: typed and rendered per request */
} ddbst__xop_kind;

typedef struct ddbst__xop {
  ddbst__xop_kind kind;
  uint32_t len;
  const char *text;
  const ddbst__name *nm;
  const ddbst__xnode *param;
} ddbst__xop;

typedef struct ddbst__xprog {
  ddbst__xop *ops;
  int nops;
} ddbst__xprog;

/* The compiled expression: immutable once made, shared between threads. */
struct ddbst_expr {
  const ddbst_model *m;
  int entity;
  int kind;             /* DDBST_EXPR_* */
  ddbst__arena ar;
  ddbst__xnode *root;   /* a condition or filter */
  ddbst__xnode **actions; /* update actions, in the order written */
  int nactions;
  /* what a request writes: the condition's, or each action's */
  ddbst__xprog prog;
  ddbst__xprog *action_progs;
  int has_remove, has_add, has_delete, has_set; /* clauses present */
  /* placeholders a body may need for it, at most: reserved on the item
   * when the expression is attached, so building never grows them */
  int nnames, nvalues;
  /* every attribute it names (top level), by index: projections and
   * updates are checked against it */
  unsigned char *uses;
  /* compiled into memory its caller lent (ddbst__expr_compile_in), which
   * the caller reclaims: ddbst_expr_free frees nothing */
  int lent;
};

/* What a compile may borrow rather than allocate: the JSON entry's memory,
 * kept from call to call. The expression and its nodes go into `ar` and
 * live until its owner rewinds it; `tmp` and `work` are what the compile
 * works in (emptied first). */
typedef struct ddbst__xmem {
  ddbst__arena *ar;
  ddbst_buf *tmp, *work;
} ddbst__xmem;

/* An expression of `kind` compiled in `mem` from the text form (`text`,
 * `len`: any bytes) or, when `tree` is given, the JSON form (a node of a
 * JSON tree the caller parsed: the JSON entry's request), as
 * ddbst_expr_parse and ddbst_expr_parse_json compile them (the same
 * errors); with `mem` NULL it is allocated, as theirs are. */
int ddbst__expr_compile_in(const ddbst__xmem *mem, const ddbst_model *m,
                           int entity, int kind, const char *text, size_t len,
                           const ddbst__jnode *tree, ddbst_expr **out,
                           ddbst_error *err);

/* ---- parsing (cond_text.c, cond_json.c) ---- */

/* What both parsers share: where nodes go and how errors are told. */
typedef struct ddbst__xparse {
  ddbst__arena *ar;
  int update;          /* update actions, not a condition */
  const char *field;   /* "condition", "filter", "update": the error path */
  const char *src;     /* the text form's text (NULL for the JSON form) */
  size_t src_len;
  /* a path of the JSON form, parsed as text: errors in it are told at
   * that path and the character of the path's text */
  const char *src_jpath;
  ddbst_error *err;
  /* the compile's work buffer, lent: the JSON form writes its array and
   * object literals' text there before copying them into `ar` */
  ddbst_buf *tmp;
} ddbst__xparse;

/* A new zeroed node of `kind` with room for `nkids` kids, or NULL. */
ddbst__xnode *ddbst__xnode_new(ddbst__arena *ar, ddbst__xkind kind, int nkids);

/* Fails at node `n` (NULL: the expression as a whole): for the text form
 * the path is the field and the offset, line and column point at the
 * character; for the JSON form the path is the node's. */
int ddbst__xfail(const ddbst__xparse *p, const ddbst__xnode *n, int code,
                 const char *fmt, ...) DDBST__PRINTF(4, 5);
/* The same at byte `offset` of the text form. */
int ddbst__xfail_at(const ddbst__xparse *p, size_t offset, int code,
                    const char *fmt, ...) DDBST__PRINTF(4, 5);

/* Nesting the parsers accept: a condition deeper than this is refused. */
enum { DDBST__X_DEPTH = 32 };

/* The text form into a condition (*root) or update actions (*actions). */
int ddbst__xparse_text(ddbst__xparse *p, ddbst__xnode **root,
                       ddbst__xnode ***actions, int *nactions);

/* A path as text ("payload.items[2].qty") into node `n` (an X_PATH), for
 * the JSON form, whose paths are strings. */
int ddbst__xparse_path_text(ddbst__xparse *p, const char *text, size_t len,
                            ddbst__xnode *n);

/* The JSON form (a node of a JSON tree) likewise. */
int ddbst__xparse_json(ddbst__xparse *p, const ddbst__jnode *v,
                       ddbst__xnode **root, ddbst__xnode ***actions,
                       int *nactions);

/* Attaches `x` (a condition or update actions) to the item, which then
 * owns it and frees it at its next reset; on failure `x` is freed. */
int ddbst__item_carry(ddbst_item *it, ddbst_expr *x, ddbst_error *err);

/* ---- resolving (cond.c, cond_values.c, update_actions.c) ---- */

typedef struct ddbst__xres {
  ddbst__xparse *p;
  ddbst_expr *x;
  const ddbst__entity *e;
  ddbst_buf tmp;
  ddbst_buf *work; /* the program's emitter's memory, lent (NULL: its own) */
  /* the map keys interned so far, so one key gets one placeholder */
  const ddbst__name **keys;
  int nkeys, cap_keys;
} ddbst__xres;

/* Resolves a path node against the entity (cond_paths.c): its attribute,
 * its steps (a map takes .name, a list [index]). */
int ddbst__xresolve_path(ddbst__xres *r, ddbst__xnode *n);

/* What a path holds, as DynamoDB types values: S N B BOOL L M SS NS, or
 * DOC for a place inside a map or list, which the model does not type. */
typedef enum {
  DDBST__V_S,
  DDBST__V_N,
  DDBST__V_B,
  DDBST__V_BOOL,
  DDBST__V_L,
  DDBST__V_M,
  DDBST__V_SS,
  DDBST__V_NS,
  DDBST__V_DOC
} ddbst__vclass;

ddbst__vclass ddbst__xclass_of_type(ddbst__type t);
ddbst__vclass ddbst__xclass(const ddbst__xres *r, const ddbst__xnode *path);
/* "a string", "a number", ... for messages. */
const char *ddbst__xclass_name(ddbst__vclass c);

/* Types a value node (X_VALUE: rendered now; X_PARAM: how it will be)
 * for its use: `a` the attribute that types it (NULL inside a document). */
int ddbst__xtype_value(ddbst__xres *r, ddbst__xnode *v, ddbst__use use,
                       const ddbst__attr *a);

/* The AttributeValue of a literal for its use, appended to `out`: 0,
 * DDBST_EVALUE with `why`, DDBST_ENOMEM. Literals at compile time and
 * parameters at build time both come through here. */
int ddbst__xliteral(const ddbst_model *m, ddbst__use use, const ddbst__attr *a,
                    ddbst__lform form, const char *text, size_t len,
                    ddbst_buf *out, char *why, size_t why_cap);

/* Resolves a condition or filter (cond_resolve.c). */
int ddbst__xresolve_cond(ddbst__xres *r, ddbst__xnode *n);

/* Resolves update actions (update_actions.c). */
int ddbst__xresolve_actions(ddbst__xres *r);

/* ---- writing (cond_write.c, update_actions.c) ---- */

/* Makes sure the item's placeholder lists hold what `x` may add. */
int ddbst__xreserve(ddbst_item *it, const ddbst_expr *x);

/* The program of a resolved condition or update action `n`
 * (cond_write.c), in the expression's arena. */
int ddbst__xcompile_prog(ddbst__xres *r, const ddbst__xnode *n,
                         ddbst__xprog *out);

/* Runs program `p` into `out`: "#n3 = :v2 AND size(#n4) < :v3". Errors
 * are a parameter's (DDBST_EMISSING, DDBST_EVALUE) or DDBST_ENOMEM /
 * DDBST_ERANGE (placeholders). */
int ddbst__xrun(ddbst_item *it, const ddbst__xprog *p, ddbst_buf *out,
                ddbst_error *err);
/* The condition or filter `x`. */
int ddbst__xwrite_cond(ddbst_item *it, const ddbst_expr *x, ddbst_buf *out,
                       ddbst_error *err);

/* Update actions of one clause (DDBST__X_SET, _REMOVE, _ADD, _DELETE):
 * action `i` of `x` when it is of that clause, written as the clause's
 * item ("#n1 = #n1 + :v2"); 0 and nothing written when it is not. */
int ddbst__xwrite_action(ddbst_item *it, const ddbst_expr *x, int i,
                         ddbst__xkind clause, ddbst_buf *out,
                         ddbst_error *err);

/* Whether the update actions and the item's own values change one
 * attribute twice (DynamoDB refuses overlapping paths): DDBST_EINVAL
 * naming it, else 0. */
int ddbst__xcheck_overlap(const ddbst_item *it, const ddbst_expr *x,
                          ddbst_error *err);

#endif
