/* What the two halves of `ddbst workbench` share: NoSQL Workbench's JSON
 * read with YAJL's tree, written with cli_text. */
#ifndef DDBST_CLI_WORKBENCH_H
#define DDBST_CLI_WORKBENCH_H

#include <yajl/yajl_tree.h>

#include "cli.h"

/* The member `key` of `obj` (NULL: absent, or `obj` NULL), and its text
 * when it is a string. */
yajl_val wb_get(yajl_val obj, const char *key);
const char *wb_str(yajl_val obj, const char *key);
/* DynamoDB's type of a ddbst attribute type: "S", "N", "BOOL", ... */
const char *wb_dynamodb_type(const char *type);
/* A tree back to JSON text. */
void wb_add_json(cli_text *t, yajl_val v);

/* workbench --import FILE (workbench_import.c): the model on stdout, the
 * note of what could not be inferred on stderr. */
int wb_import(const char *file);

#endif
