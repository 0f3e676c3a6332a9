/* The answer parser's part for DynamoDB Streams events: each record's event,
 * sequence number and images (items of the page), and whether DynamoDB's
 * TTL removed the item. */
#include <string.h>

#include "response/parser.h"

static const ddbst__shape_member record_members[] = {
    {F_RECORD, "eventID", X_EVENT_ID},
    {F_RECORD, "eventName", X_EVENT_NAME},
    {F_RECORD, "dynamodb", X_DDB},
    {F_RECORD, "userIdentity", X_USER_ID},
    {F_DDB, "Keys", X_IMAGE_KEYS},
    {F_DDB, "NewImage", X_IMAGE_NEW},
    {F_DDB, "OldImage", X_IMAGE_OLD},
    {F_DDB, "SequenceNumber", X_SEQ},
    {F_USERID, "principalId", X_PRINCIPAL},
};

int ddbst__stream_key(ddbst__parser *p, const char *k, size_t n) {
  const ddbst__shape_member *sm;
  return ddbst__shape_key(p, record_members,
                          sizeof record_members / sizeof record_members[0], k,
                          n, &sm);
}

/* The record being read, from anywhere inside it. */
static ddbst__precord *record_of(ddbst__parser *p) {
  for (int i = p->depth - 1; i >= 0; i--)
    if (p->st[i].kind == F_RECORD) return &p->pg->records[p->st[i].target];
  return NULL;
}

/* A record's Keys, NewImage or OldImage: an item of the page. */
static int image(ddbst__parser *p, int vt, int where) {
  if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
  int32_t rec_index = top(p)->target;
  int32_t it = new_item(p, where, (uint32_t)rec_index);
  if (it < 0) return 0;
  ddbst__precord *r = &p->pg->records[rec_index];
  if (where == DDBST__IN_KEYS) r->keys = it;
  if (where == DDBST__IN_NEW) r->new_image = it;
  if (where == DDBST__IN_OLD) r->old_image = it;
  return open_item(p, it);
}

int ddbst__stream_value(ddbst__parser *p, int x, int vt, const char *s,
                        size_t n, int b) {
  (void)b;
  ddbst_page *pg = p->pg;
  switch (x) {
  case X_RECORDS:
    return want(p, vt, V_ARRAY, "a list of records") &&
           push(p, F_RECORDS, M_RAW, -1);
  case X_RECORD_ELEM: {
    if (!want(p, vt, V_MAP, "a record (a JSON object)")) return 0;
    ddbst__precord *v =
        ddbst__page_grow(&p->m->alloc, pg->records, &pg->cap_records,
                         pg->nrecords + 1, sizeof *v);
    if (!v) return nomem(p);
    pg->records = v;
    ddbst__precord *r = &v[pg->nrecords];
    memset(r, 0, sizeof *r);
    r->keys = r->new_image = r->old_image = r->entity = -1;
    r->seq = r->id = UINT32_MAX;
    return push(p, F_RECORD, M_RAW, (int32_t)pg->nrecords++);
  }
  case X_EVENT_ID: {
    ddbst__precord *r = record_of(p);
    return keep_string(p, vt, s, n, &r->id, &r->id_len, "a string");
  }
  case X_EVENT_NAME: {
    ddbst__precord *r = record_of(p);
    if (!want(p, vt, V_STRING, "INSERT, MODIFY or REMOVE")) return 0;
    r->event = key_is(s, n, "INSERT")   ? DDBST_STREAM_INSERT
               : key_is(s, n, "MODIFY") ? DDBST_STREAM_MODIFY
               : key_is(s, n, "REMOVE") ? DDBST_STREAM_REMOVE
                                        : 0;
    if (!r->event)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "expected INSERT, MODIFY or REMOVE");
    return 1;
  }
  case X_DDB:
    return want(p, vt, V_MAP, "an object") &&
           push(p, F_DDB, M_RAW, top(p)->target);
  case X_USER_ID:
    if (vt == V_NULL) return 1;
    return want(p, vt, V_MAP, "an object") &&
           push(p, F_USERID, M_RAW, top(p)->target);
  case X_PRINCIPAL:
    if (!want(p, vt, V_STRING, "a string")) return 0;
    /* DynamoDB itself removed the item: its TTL expired */
    if (key_is(s, n, "dynamodb.amazonaws.com"))
      pg->records[top(p)->target].by_ttl = 1;
    return 1;
  case X_IMAGE_KEYS: return image(p, vt, DDBST__IN_KEYS);
  case X_IMAGE_NEW: return image(p, vt, DDBST__IN_NEW);
  case X_IMAGE_OLD: return image(p, vt, DDBST__IN_OLD);
  case X_SEQ: {
    ddbst__precord *r = &pg->records[top(p)->target];
    return keep_string(p, vt, s, n, &r->seq, &r->seq_len, "a string");
  }
  default:
    break;
  }
  return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "unexpected %s",
                       vt_name(vt));
}

/* A record is complete: its event, keys and sequence number. */
static int record_complete(ddbst__parser *p) {
  const ddbst__precord *r = &p->pg->records[top(p)->target];
  int up = p->depth - 1;
  if (!r->event)
    return ddbst__refuse(p, DDBST_EVALUE, up, "eventName", "missing");
  if (r->keys < 0)
    return ddbst__refuse(p, DDBST_EVALUE, up, "dynamodb.Keys", "missing");
  if (r->seq == UINT32_MAX)
    return ddbst__refuse(p, DDBST_EVALUE, up, "dynamodb.SequenceNumber",
                         "missing");
  /* the entity its image says; a KEYS_ONLY record's, its key's */
  ddbst__precord *w = &p->pg->records[top(p)->target];
  int32_t it = r->new_image >= 0 ? r->new_image
               : r->old_image >= 0 ? r->old_image
                                   : r->keys;
  w->entity = p->pg->items[it].entity;
  return 1;
}

int ddbst__stream_end(ddbst__parser *p) {
  if (top(p)->kind == F_RECORD) return record_complete(p);
  return 1;
}
