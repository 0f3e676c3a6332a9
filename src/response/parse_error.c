/* The answer parser's part for DynamoDB's error bodies: __type, message,
 * CancellationReasons and ThrottlingReasons, with the exception types and
 * reason codes told apart. */
#include <string.h>

#include "response/parser.h"

static const struct {
  const char *name;
  int kind;
} error_types[] = {
    {"ConditionalCheckFailedException", DDBST_DDB_CONDITIONAL_CHECK_FAILED},
    {"TransactionCanceledException", DDBST_DDB_TRANSACTION_CANCELED},
    {"TransactionConflictException", DDBST_DDB_TRANSACTION_CONFLICT},
    /* a global table's item written at once in another Region */
    {"ReplicatedWriteConflictException", DDBST_DDB_TRANSACTION_CONFLICT},
    {"TransactionInProgressException", DDBST_DDB_TRANSACTION_IN_PROGRESS},
    {"ProvisionedThroughputExceededException", DDBST_DDB_THROTTLED},
    {"ThrottlingException", DDBST_DDB_THROTTLED},
    {"RequestLimitExceeded", DDBST_DDB_THROTTLED},
    /* too many control-plane operations at once: the reference's "OK to
     * retry? Yes", with backoff, like throttling */
    {"LimitExceededException", DDBST_DDB_THROTTLED},
    {"ValidationException", DDBST_DDB_VALIDATION},
    {"SerializationException", DDBST_DDB_VALIDATION},
    {"ResourceNotFoundException", DDBST_DDB_RESOURCE_NOT_FOUND},
    /* HTTP 500 and 503: DynamoDB's own names, and the names every AWS
     * service's front end answers with (the API reference's common
     * errors) */
    {"InternalServerError", DDBST_DDB_INTERNAL},
    {"InternalFailure", DDBST_DDB_INTERNAL},
    {"ServiceUnavailable", DDBST_DDB_INTERNAL},
    {"ServiceUnavailableException", DDBST_DDB_INTERNAL},
    {"ItemCollectionSizeLimitExceededException",
     DDBST_DDB_ITEM_COLLECTION_SIZE_LIMIT},
    {"IdempotentParameterMismatchException",
     DDBST_DDB_IDEMPOTENT_PARAMETER_MISMATCH},
    {"AccessDeniedException", DDBST_DDB_ACCESS_DENIED},
    {"UnrecognizedClientException", DDBST_DDB_ACCESS_DENIED},
    {"MissingAuthenticationTokenException", DDBST_DDB_ACCESS_DENIED},
    {"InvalidSignatureException", DDBST_DDB_ACCESS_DENIED},
    {"IncompleteSignatureException", DDBST_DDB_ACCESS_DENIED},
    {"ExpiredTokenException", DDBST_DDB_ACCESS_DENIED},
    /* CancellationReasons codes */
    {"None", DDBST_DDB_NONE},
    {"ConditionalCheckFailed", DDBST_DDB_CONDITIONAL_CHECK_FAILED},
    {"TransactionConflict", DDBST_DDB_TRANSACTION_CONFLICT},
    {"ProvisionedThroughputExceeded", DDBST_DDB_THROTTLED},
    {"ThrottlingError", DDBST_DDB_THROTTLED},
    {"ItemCollectionSizeLimitExceeded", DDBST_DDB_ITEM_COLLECTION_SIZE_LIMIT},
    {"ValidationError", DDBST_DDB_VALIDATION},
};

int ddbst__ddb_error_kind(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof error_types / sizeof error_types[0]; i++)
    if (strlen(error_types[i].name) == n &&
        memcmp(error_types[i].name, s, n) == 0)
      return error_types[i].kind;
  return DDBST_DDB_OTHER;
}

static const ddbst__shape_member reason_members[] = {
    {F_REASON, "Code", X_RCODE},
    {F_REASON, "Message", X_RMSG},
    {F_REASON, "Item", X_REASON_ITEM},
    {F_THROTTLE, "reason", X_TREASON},
    {F_THROTTLE, "resource", X_TRESOURCE},
};

int ddbst__error_body_key(ddbst__parser *p, const char *k, size_t n) {
  const ddbst__shape_member *sm;
  return ddbst__shape_key(p, reason_members,
                          sizeof reason_members / sizeof reason_members[0], k,
                          n, &sm);
}

int ddbst__error_body_value(ddbst__parser *p, int x, int vt, const char *s,
                            size_t n, int b) {
  (void)b;
  ddbst_page *pg = p->pg;
  switch (x) {
  case X_ETYPE: {
    if (!keep_string(p, vt, s, n, &pg->etype, &pg->etype_len, "a string"))
      return 0;
    /* "com.amazonaws.dynamodb.v20120810#TransactionCanceledException" */
    const char *hash = memchr(s, '#', n);
    while (hash && memchr(hash + 1, '#', n - (size_t)(hash + 1 - s)))
      hash = memchr(hash + 1, '#', n - (size_t)(hash + 1 - s));
    if (hash) {
      uint32_t cut = (uint32_t)(hash + 1 - s);
      pg->etype += cut;
      pg->etype_len -= cut;
    }
    p->has_type = 1;
    return 1;
  }
  case X_EMSG:
    return keep_string(p, vt, s, n, &pg->emsg, &pg->emsg_len, "a string");
  case X_REASONS:
    return want(p, vt, V_ARRAY, "a list") && push(p, F_REASONS, M_RAW, -1);
  case X_REASON_ELEM: {
    if (!want(p, vt, V_MAP, "an object")) return 0;
    ddbst__preason *v =
        ddbst__page_grow(&p->m->alloc, pg->reasons, &pg->cap_reasons,
                         pg->nreasons + 1, sizeof *v);
    if (!v) return nomem(p);
    pg->reasons = v;
    memset(&v[pg->nreasons], 0, sizeof *v);
    v[pg->nreasons].code = UINT32_MAX;
    v[pg->nreasons].item = -1;
    return push(p, F_REASON, M_RAW, (int32_t)pg->nreasons++);
  }
  case X_RCODE: {
    ddbst__preason *r = &pg->reasons[top(p)->target];
    return keep_string(p, vt, s, n, &r->code, &r->code_len, "a string");
  }
  case X_RMSG: {
    ddbst__preason *r = &pg->reasons[top(p)->target];
    return keep_string(p, vt, s, n, &r->msg, &r->msg_len, "a string");
  }
  case X_THROTTLES:
    return want(p, vt, V_ARRAY, "a list") && push(p, F_THROTTLES, M_RAW, -1);
  case X_THROTTLE_ELEM: {
    if (!want(p, vt, V_MAP, "an object")) return 0;
    if (pg->nthrottles == DDBST__MAX_THROTTLES)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "more than %d throttling reasons",
                           DDBST__MAX_THROTTLES);
    ddbst__pthrottle *t = &pg->throttles[pg->nthrottles];
    memset(t, 0, sizeof *t);
    t->reason = UINT32_MAX;
    return push(p, F_THROTTLE, M_RAW, (int32_t)pg->nthrottles++);
  }
  case X_TREASON: {
    ddbst__pthrottle *t = &pg->throttles[top(p)->target];
    return keep_string(p, vt, s, n, &t->reason, &t->reason_len, "a string");
  }
  case X_TRESOURCE: {
    ddbst__pthrottle *t = &pg->throttles[top(p)->target];
    return keep_string(p, vt, s, n, &t->resource, &t->resource_len,
                       "a string");
  }
  case X_REASON_ITEM: {
    /* ReturnValuesOnConditionCheckFailure: the item as it was */
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    int32_t reason = top(p)->target;
    int32_t t = new_item(p, DDBST__IN_REASON, (uint32_t)reason);
    if (t < 0) return 0;
    pg->reasons[reason].item = t;
    return open_item(p, t);
  }
  default:
    break;
  }
  return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "unexpected %s",
                       vt_name(vt));
}

int ddbst__error_body_end(ddbst__parser *p) {
  ddbst_page *pg = p->pg;
  ddbst__frame *f = top(p);
  int up = p->depth - 1;
  switch (f->kind) {
  case F_REASON: {
    ddbst__preason *r = &pg->reasons[f->target];
    if (r->code == UINT32_MAX)
      return ddbst__refuse(p, DDBST_EVALUE, up, "Code", "missing");
    r->kind = ddbst__ddb_error_kind(pg->text.data + r->code, r->code_len);
    break;
  }
  case F_THROTTLE:
    if (pg->throttles[f->target].reason == UINT32_MAX)
      return ddbst__refuse(p, DDBST_EVALUE, up, "reason", "missing");
    break;
  default:
    break;
  }
  return 1;
}
