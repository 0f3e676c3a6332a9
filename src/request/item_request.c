/* The single-item requests of the public API: GetItem, PutItem, UpdateItem
 * and DeleteItem bodies, or, for an entity with unique attributes, the
 * TransactWriteItems that keeps their guards true (transact.c). */
#include "request/request.h"

const char *ddbst_operation_name(int op) {
  switch (op) {
  case DDBST_OP_GET_ITEM:
    return "GetItem";
  case DDBST_OP_PUT_ITEM:
    return "PutItem";
  case DDBST_OP_UPDATE_ITEM:
    return "UpdateItem";
  case DDBST_OP_DELETE_ITEM:
    return "DeleteItem";
  case DDBST_OP_QUERY:
    return "Query";
  case DDBST_OP_BATCH_GET_ITEM:
    return "BatchGetItem";
  case DDBST_OP_BATCH_WRITE_ITEM:
    return "BatchWriteItem";
  case DDBST_OP_TRANSACT_WRITE_ITEMS:
    return "TransactWriteItems";
  case DDBST_OP_TRANSACT_GET_ITEMS:
    return "TransactGetItems";
  case DDBST_OP_CREATE_TABLE:
    return "CreateTable";
  case DDBST_OP_DESCRIBE_TABLE:
    return "DescribeTable";
  case DDBST_OP_DELETE_TABLE:
    return "DeleteTable";
  case DDBST_OP_UPDATE_TABLE:
    return "UpdateTable";
  case DDBST_OP_UPDATE_CONTINUOUS_BACKUPS:
    return "UpdateContinuousBackups";
  case DDBST_OP_UPDATE_CONTRIBUTOR_INSIGHTS:
    return "UpdateContributorInsights";
  case DDBST_OP_UPDATE_TIME_TO_LIVE:
    return "UpdateTimeToLive";
  case DDBST_OP_SCAN:
    return "Scan";
  default:
    return NULL;
  }
}

static int check_args(ddbst_item *it, ddbst_buf *out, ddbst_error *err) {
  if (!it || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "item or buffer is NULL");
  return 0;
}

int ddbst_get_request(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                      ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  int rc = check_args(it, out, err);
  if (rc)
    return rc;
  size_t start = out->len;
  rc = ddbst__get_body(it, flags, out, err);
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_GET_ITEM;
}

int ddbst_put_request(ddbst_item *it, uint32_t flags, int64_t now_us,
                      ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  int rc = check_args(it, out, err);
  if (rc)
    return rc;
  now_us = ddbst__now(now_us);
  size_t start = out->len;
  if (ddbst__entity_of(it)->nuniques) {
    rc = ddbst__create_planned(it, flags, now_us, out, err);
    if (rc == 1) return DDBST_OP_TRANSACT_WRITE_ITEMS;
    if (rc) return ddbst__abandon(out, start, rc, err);
    return ddbst__unique_write(it, DDBST__W_PUT, flags, now_us, out, err);
  }
  rc = ddbst__put_planned(it, flags, now_us, out, err);
  if (rc == 1) return DDBST_OP_PUT_ITEM;
  if (!rc) rc = ddbst__put_body(it, flags, now_us, out, err);
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_PUT_ITEM;
}

int ddbst_delete_request(ddbst_item *it, uint32_t flags, ddbst_buf *out,
                         ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  int rc = check_args(it, out, err);
  if (rc)
    return rc;
  if (ddbst__entity_of(it)->nuniques)
    return ddbst__unique_write(it, DDBST__W_DELETE, flags, 0, out, err);
  size_t start = out->len;
  rc = ddbst__delete_body(it, flags, out, err);
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_DELETE_ITEM;
}

int ddbst_update_request(ddbst_item *it, uint32_t flags, int64_t now_us,
                         ddbst_buf *out, ddbst_error *err) {
  if (!it || !out) {
    if (out) ddbst_buf_reset(out); /* builders replace */
    return check_args(it, out, err);
  }
  out->len = 0; /* ddbst_buf_reset, without a call */
  if (out->data) out->data[0] = '\0';
  /* a jump: the commonest update is written in one frame, its own */
  return ddbst__update_request(it, flags, now_us, out, err);
}
