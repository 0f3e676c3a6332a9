/* DynamoDB's error bodies: what a page that read one says about it (its
 * kind, type, message, cancellation reasons, whether to retry). */
#include <string.h>

#include "response/page.h"

int ddbst_page_parse_error(ddbst_page *pg, const char *json, size_t len,
                           ddbst_error *err) {
  if (!pg) return ddbst__fail(err, DDBST_EINVAL, NULL, "page is NULL");
  return ddbst__page_parse(pg, DDBST__ANSWER_ERROR, json, ddbst__len(json, len),
                           err);
}

int ddbst_page_error_kind(const ddbst_page *pg) {
  return pg ? pg->error_kind : DDBST_DDB_NONE;
}

const char *ddbst_page_error_type(const ddbst_page *pg) {
  if (!pg || pg->error_kind == DDBST_DDB_NONE) return NULL;
  return pg->text.data + pg->etype;
}

const char *ddbst_page_error_message(const ddbst_page *pg) {
  if (!pg || pg->error_kind == DDBST_DDB_NONE || !pg->emsg_len) return "";
  return pg->text.data + pg->emsg;
}

int ddbst_page_reason_count(const ddbst_page *pg) {
  return pg && pg->error_kind != DDBST_DDB_NONE ? (int)pg->nreasons : 0;
}

int ddbst_page_reason(const ddbst_page *pg, int i, const char **code,
                      const char **message) {
  if (i < 0 || i >= ddbst_page_reason_count(pg)) return DDBST_EINVAL;
  const ddbst__preason *r = &pg->reasons[i];
  if (code) *code = pg->text.data + r->code;
  if (message) *message = r->msg_len ? pg->text.data + r->msg : "";
  return r->kind;
}

static int kind_retryable(int kind) {
  return kind == DDBST_DDB_THROTTLED || kind == DDBST_DDB_INTERNAL ||
         kind == DDBST_DDB_TRANSACTION_CONFLICT ||
         kind == DDBST_DDB_TRANSACTION_IN_PROGRESS;
}

int ddbst_page_error_retryable(const ddbst_page *pg) {
  if (!pg) return 0;
  if (pg->error_kind != DDBST_DDB_TRANSACTION_CANCELED)
    return kind_retryable(pg->error_kind);
  /* a cancellation is worth retrying when only contention caused it */
  int failed = 0;
  for (uint32_t i = 0; i < pg->nreasons; i++) {
    int k = pg->reasons[i].kind;
    if (k == DDBST_DDB_NONE) continue;
    if (!kind_retryable(k)) return 0;
    failed++;
  }
  return failed > 0;
}
