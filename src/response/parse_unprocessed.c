/* The answer parser's part for UnprocessedKeys (BatchGetItem) and
 * UnprocessedItems (BatchWriteItem): each table's entries re-written as JSON,
 * with the read's settings, for the follow-up request (followup.c). */
#include <string.h>

#include "response/parser.h"

/* A table of UnprocessedKeys or UnprocessedItems: a new group, named in the
 * frame on top for paths. */
static int new_group(ddbst__parser *p, const char *table, size_t n) {
  ddbst_page *pg = p->pg;
  if (!no_nul(p, table, n, "a table name")) return 0;
  for (uint32_t g = 0; g < pg->ngroups; g++)
    if (pg->groups[g].table_len == n &&
        memcmp(pg->text.data + pg->groups[g].table, table, n) == 0)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "the table appears twice");
  ddbst__pgroup *v = ddbst__page_grow(&p->m->alloc, pg->groups, &pg->cap_groups,
                                      pg->ngroups + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->groups = v;
  ddbst__pgroup *g = &v[pg->ngroups];
  memset(g, 0, sizeof *g);
  if (!keep(p, table, n, &g->table)) return 0;
  g->table_len = (uint32_t)n;
  g->first = pg->nspans;
  g->consistent = -1;
  ddbst__frame *f = top(p);
  f->key_src = K_RAW;
  f->key_off = g->table;
  f->key_len = g->table_len;
  f->target = (int32_t)pg->ngroups++;
  return 1;
}

/* The key map or write request just re-written at text[off..]: an entry of
 * the current group. */
static int add_span(ddbst__parser *p, uint32_t off) {
  ddbst_page *pg = p->pg;
  ddbst__pspan *v = ddbst__page_grow(&p->m->alloc, pg->spans, &pg->cap_spans,
                                     pg->nspans + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->spans = v;
  v[pg->nspans].off = off;
  v[pg->nspans].len = (uint32_t)(pg->text.len - off);
  pg->nspans++;
  pg->groups[pg->ngroups - 1].count++;
  return 1;
}

static const ddbst__shape_member unprocessed_members[] = {
    {F_KAA, "Keys", X_KEY_LIST},
    {F_KAA, "ConsistentRead", X_CONSISTENT},
    {F_KAA, "ProjectionExpression", X_PROJECTION},
    {F_KAA, "ExpressionAttributeNames", X_EAN},
    {F_WRITEREQ, "PutRequest", X_PUT_REQ},
    {F_WRITEREQ, "DeleteRequest", X_DEL_REQ},
    {F_PUTREQ, "Item", X_RAW_ITEM},
    {F_DELREQ, "Key", X_RAW_ITEM},
};

int ddbst__unprocessed_key(ddbst__parser *p, const char *k, size_t n) {
  ddbst__frame *f = top(p);
  switch (f->kind) {
  case F_UKEYS:
  case F_UITEMS:
    if (!new_group(p, k, n)) return 0;
    p->pending = f->kind == F_UKEYS ? X_KAA : X_WRITE_LIST;
    return 1;
  default:
    break;
  }
  const ddbst__shape_member *sm;
  if (!ddbst__shape_key(p, unprocessed_members,
                        sizeof unprocessed_members /
                            sizeof unprocessed_members[0],
                        k, n, &sm))
    return 0;
  if (!sm || f->kind == F_KAA) return 1;
  /* a write request's parts are written as they come */
  if (f->kind == F_WRITEREQ && (f->seen & ~(1ull << sm->x)))
    return ddbst__refuse(p, DDBST_EVALUE, p->depth - 1, NULL,
                         "a write request is a PutRequest or a DeleteRequest");
  if (!f->first && !put_text(p, ",", 1)) return 0;
  f->first = 0;
  return put_text(p, "\"", 1) && put_text(p, k, n) && put_text(p, "\":", 2);
}

int ddbst__unprocessed_value(ddbst__parser *p, int x, int vt, const char *s,
                             size_t n, int b) {
  ddbst_page *pg = p->pg;
  switch (x) {
  case X_UNPROC_KEYS:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_UKEYS, M_RAW, -1);
  case X_KAA:
    return want(p, vt, V_MAP, "an object with Keys") &&
           push(p, F_KAA, M_RAW, top(p)->target);
  case X_KEY_LIST:
    return want(p, vt, V_ARRAY, "a list of keys") &&
           push(p, F_KEYLIST, M_RAW, -1);
  case X_KEY_ELEM:
  case X_RAW_ITEM: {
    if (!want(p, vt, V_MAP, "a JSON object")) return 0;
    uint32_t off = (uint32_t)pg->text.len;
    return push(p, F_RAWMAP, M_RAW, (int32_t)off) && put_text(p, "{", 1);
  }
  case X_CONSISTENT:
    if (!want(p, vt, V_BOOL, "true or false")) return 0;
    pg->groups[pg->ngroups - 1].consistent = b;
    return 1;
  case X_PROJECTION: {
    ddbst__pgroup *g = &pg->groups[pg->ngroups - 1];
    return keep_string(p, vt, s, n, &g->proj, &g->proj_len, "a string");
  }
  case X_EAN:
    if (!want(p, vt, V_MAP, "an object of names")) return 0;
    pg->groups[pg->ngroups - 1].names = (uint32_t)pg->text.len;
    return push(p, F_NAMES, M_RAW, -1) && put_text(p, "{", 1);
  case X_NAME_VALUE:
    if (!want(p, vt, V_STRING, "a string")) return 0;
    return no_nul(p, s, n, "a name") && put_text_string(p, s, n);
  case X_UNPROC_ITEMS:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_UITEMS, M_RAW, -1);
  case X_WRITE_LIST:
    return want(p, vt, V_ARRAY, "a list of write requests") &&
           push(p, F_WRITELIST, M_RAW, -1);
  case X_WRITE_ELEM: {
    if (!want(p, vt, V_MAP, "a write request (a JSON object)")) return 0;
    uint32_t off = (uint32_t)pg->text.len;
    return push(p, F_WRITEREQ, M_RAW, (int32_t)off) && put_text(p, "{", 1);
  }
  case X_PUT_REQ:
  case X_DEL_REQ:
    if (!want(p, vt, V_MAP, "a JSON object")) return 0;
    return push(p, x == X_PUT_REQ ? F_PUTREQ : F_DELREQ, M_RAW, -1) &&
           put_text(p, "{", 1);
  default:
    break;
  }
  return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "unexpected %s",
                       vt_name(vt));
}

int ddbst__unprocessed_end(ddbst__parser *p) {
  ddbst_page *pg = p->pg;
  ddbst__frame *f = top(p);
  int up = p->depth - 1;
  switch (f->kind) {
  case F_RAWMAP:
    if (!put_text(p, "}", 1)) return 0;
    if (p->st[up - 1].kind == F_KEYLIST && !add_span(p, (uint32_t)f->target))
      return 0;
    break;
  case F_NAMES: {
    if (!put_text(p, "}", 1)) return 0;
    ddbst__pgroup *g = &pg->groups[pg->ngroups - 1];
    g->names_len = (uint32_t)(pg->text.len - g->names);
    break;
  }
  case F_KAA:
    if (!(f->seen & (1ull << X_KEY_LIST)))
      return ddbst__refuse(p, DDBST_EVALUE, up, "Keys", "missing");
    break;
  case F_PUTREQ:
  case F_DELREQ:
    if (!f->seen)
      return ddbst__refuse(p, DDBST_EVALUE, up,
                           f->kind == F_PUTREQ ? "Item" : "Key", "missing");
    if (!put_text(p, "}", 1)) return 0;
    break;
  case F_WRITEREQ:
    if (!f->seen)
      return ddbst__refuse(
          p, DDBST_EVALUE, up, NULL,
          "a write request holds a PutRequest or a DeleteRequest");
    if (!put_text(p, "}", 1) || !add_span(p, (uint32_t)f->target)) return 0;
    break;
  default:
    break;
  }
  return 1;
}
