/* JSON documents the library writes, re-emitted for people: indented JSON,
 * or YAML that pastes into a serverless.yml. Kept in the command so the
 * library itself never depends on libyaml. */
#ifndef DDBST_CLI_JSON_YAML_H
#define DDBST_CLI_JSON_YAML_H

#include <stddef.h>

/* Both return 0 and a malloc'd, NUL-terminated text in *out (the caller
 * frees it), or -1 with a reason in `why` (malformed JSON, no memory). */

/* Block-style YAML: mappings and sequences of scalars inside a sequence are
 * written in flow style ({AttributeName: PK, KeyType: HASH}, [name, status]),
 * as CloudFormation examples are; a string YAML would read as another type
 * ("2012-10-17", "true", "1") is quoted. */
int cli_json_to_yaml(const char *json, char **out, size_t *out_len, char *why,
                     size_t why_cap);

/* The same document as JSON indented by two spaces. */
int cli_json_indent(const char *json, char **out, size_t *out_len, char *why,
                    size_t why_cap);

#endif
