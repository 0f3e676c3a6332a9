/* Reading DynamoDB's answers with the streaming JSON parser, straight into
 * the page's storage (no tree): the state machine, the items of GetItem,
 * Query, BatchGetItem and TransactGetItems with LastEvaluatedKey, and their
 * records. The other answer parts are read by their own files (parser.h). */
#include <stdio.h>
#include <string.h>

#include "json/parse.h"
#include "response/av.h"
#include "response/parser.h"

/* ---- items: records and duplicate names ---- */

static ddbst__strkey record_name(const void *page, uint32_t rec) {
  const ddbst_page *pg = page;
  ddbst__strkey k = {pg->text.data + pg->attrs[rec].name,
                     pg->attrs[rec].name_len};
  return k;
}

/* Names the model does not know: a set per item (emptied in O(1) when the
 * next item opens), so that a hostile item with many names stays linear.
 * *dup: record `rec`'s name was in the item already. 0 when out of
 * memory. */
static int other_seen(ddbst__parser *p, uint32_t rec, int *dup) {
  ddbst_page *pg = p->pg;
  ddbst__strset *set = &pg->others;
  if (ddbst__strset_reserve(set, &p->m->alloc, set->count + 1, 64,
                            record_name, pg))
    return nomem(p);
  ddbst__strkey k = record_name(pg, rec);
  ddbst__strslot *slot = ddbst__strset_find(set, k.s, k.n, record_name, pg);
  *dup = ddbst__strset_taken(set, slot);
  if (!*dup) ddbst__strset_put(set, slot, rec);
  return 1;
}

/* A new record named k[0..n) in the current item. */
PAGE_HOT int item_key(ddbst__parser *p, const char *k, size_t n) {
  ddbst_page *pg = p->pg;
  ddbst__frame *f = top(p);
  f->key_src = K_NONE; /* the path is the item's until the name is kept */
  if (!no_nul(p, k, n, "an attribute name")) return 0;
  if (n == 0)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "an attribute name is empty");
  ddbst__pattr *v = ddbst__page_grow(&p->m->alloc, pg->attrs, &pg->cap_attrs,
                                     pg->nattrs + 1, sizeof *v);
  if (!v) return nomem(p);
  pg->attrs = v;
  uint32_t rec = pg->nattrs;
  ddbst__pattr *r = &v[rec];
  memset(r, 0, sizeof *r);
  if (!keep(p, k, n, &r->name)) return 0;
  r->name_len = (uint32_t)n;
  r->name_id = ddbst__page_next_name_id(pg, p->name_prev, k, n);
  p->name_prev = r->name_id >= 0 ? (uint32_t)r->name_id : pg->nnames + 1;
  r->role = r->name_id >= 0 ? pg->name_role[r->name_id] : DDBST__PA_ATTR;
  r->attr = -1;
  pg->nattrs++;
  f->key_src = K_RAW;
  f->key_off = r->name;
  f->key_len = r->name_len;
  int dup;
  if (r->name_id >= 0) {
    dup = pg->seen_gen[r->name_id] == pg->gen;
    pg->seen_gen[r->name_id] = pg->gen;
    pg->seen_rec[r->name_id] = rec;
  } else if (!other_seen(p, rec, &dup)) {
    return 0;
  }
  if (dup)
    return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                         "the attribute appears twice in one item");
  p->pending = X_AV;
  return 1;
}

/* ---- the answer's structure ---- */

/* A member of the answer's root: what each kind of answer holds there. */
static int root_key(ddbst__parser *p, const char *k, size_t n) {
  static const struct {
    ddbst__answer kind; /* DDBST__ANSWER_ERROR: any answer but a stream's */
    const char *name;
    int x;
  } members[] = {
      {DDBST__ANSWER_ERROR, "__type", X_ETYPE},
      {DDBST__ANSWER_ERROR, "message", X_EMSG},
      {DDBST__ANSWER_ERROR, "Message", X_EMSG},
      {DDBST__ANSWER_ERROR, "CancellationReasons", X_REASONS},
      {DDBST__ANSWER_ERROR, "ThrottlingReasons", X_THROTTLES},
      {DDBST__ANSWER_GET_ITEM, "Item", X_ITEM_SINGLE},
      {DDBST__ANSWER_ERROR, "Item", X_ERROR_ITEM},
      {DDBST__ANSWER_WRITE, "Attributes", X_ATTRIBUTES},
      {DDBST__ANSWER_QUERY, "Items", X_ITEMS},
      {DDBST__ANSWER_QUERY, "Count", X_COUNT},
      {DDBST__ANSWER_QUERY, "ScannedCount", X_SCANNED},
      {DDBST__ANSWER_QUERY, "LastEvaluatedKey", X_LEK},
      {DDBST__ANSWER_BATCH_GET, "Responses", X_BATCH_RESPONSES},
      {DDBST__ANSWER_BATCH_GET, "UnprocessedKeys", X_UNPROC_KEYS},
      {DDBST__ANSWER_BATCH_WRITE, "UnprocessedItems", X_UNPROC_ITEMS},
      {DDBST__ANSWER_TRANSACT_GET, "Responses", X_TXN_RESPONSES},
      {DDBST__ANSWER_STREAM, "Records", X_RECORDS},
  };
  for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
    if ((members[i].kind == p->kind ||
         (members[i].kind == DDBST__ANSWER_ERROR &&
          p->kind != DDBST__ANSWER_STREAM)) &&
        key_is(k, n, members[i].name))
      return ddbst__member(p, members[i].x, members[i].name);
  top(p)->key_src = K_NONE;
  p->pending = X_SKIP; /* ConsumedCapacity, ItemCollectionMetrics, ... */
  return 1;
}

static const ddbst__shape_member txn_entry_members[] = {
    {F_TXN_ENTRY, "Item", X_TXN_ITEM},
};

PAGE_HOT int on_key(void *ctx, const unsigned char *key, size_t n) {
  ddbst__parser *p = ctx;
  if (p->skip) return 1;
  const char *k = (const char *)key;
  ddbst__frame *f = top(p);
  const ddbst__shape_member *sm;
  switch (f->kind) {
  case F_ROOT: return root_key(p, k, n);
  case F_ITEM: return item_key(p, k, n);
  case F_AV: return av_key(p, k, n);
  case F_MAP:
  case F_RAWMAP: return doc_key(p, k, n);
  case F_NAMES:
    if (!doc_key(p, k, n)) return 0;
    p->pending = X_NAME_VALUE;
    return 1;
  case F_BATCH_RESP: {
    uint32_t off;
    if (!no_nul(p, k, n, "a table name") || !keep(p, k, n, &off)) return 0;
    f->key_src = K_RAW;
    f->key_off = off;
    f->key_len = (uint32_t)n;
    p->pending = X_BATCH_TABLE;
    return 1;
  }
  case F_TXN_ENTRY:
    return ddbst__shape_key(p, txn_entry_members, 1, k, n, &sm);
  default:
    break;
  }
  /* the frames of the other answer parts, by their group (parser.h) */
  if (f->kind <= F_DELREQ) return ddbst__unprocessed_key(p, k, n);
  if (f->kind <= F_REASON) return ddbst__error_body_key(p, k, n);
  return ddbst__stream_key(p, k, n);
}

static int on_value(ddbst__parser *p, int vt, const char *s, size_t n, int b) {
  if (p->skip) {
    if (vt == V_MAP || vt == V_ARRAY) p->skip++;
    return 1;
  }
  ddbst_page *pg = p->pg;
  int x;
  if (p->depth == 0) {
    x = X_ROOT;
  } else {
    ddbst__frame *f = top(p);
    if (is_array(f->kind)) {
      static const uint8_t elems[F_USERID + 1] = {
          [F_LIST] = X_AV,           [F_SET] = X_SET_ELEM,
          [F_ITEMS] = X_ITEM_ELEM,   [F_TXN_RESP] = X_TXN_ENTRY,
          [F_KEYLIST] = X_KEY_ELEM,  [F_WRITELIST] = X_WRITE_ELEM,
          [F_REASONS] = X_REASON_ELEM, [F_THROTTLES] = X_THROTTLE_ELEM,
          [F_RECORDS] = X_RECORD_ELEM};
      x = elems[f->kind];
      f->index++;
    } else {
      x = p->pending;
      p->pending = X_NONE;
    }
  }
  if (x == X_SKIP) {
    if (vt == V_MAP || vt == V_ARRAY) p->skip = 1;
    return 1;
  }
  int32_t t;
  switch (x) {
  case X_ROOT:
    if (vt != V_MAP)
      return ddbst__refuse(p, DDBST_EVALUE, 0, NULL,
                           "expected a JSON object, found %s", vt_name(vt));
    return push(p, F_ROOT, M_RAW, -1);
  case X_ITEM_SINGLE:
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    if ((t = new_item(p, DDBST__IN_ITEM, 0)) < 0) return 0;
    return open_item(p, t);
  case X_ATTRIBUTES:
  case X_ERROR_ITEM:
    /* an error body's item answers a write only */
    if (x == X_ERROR_ITEM && p->kind != DDBST__ANSWER_ERROR &&
        p->kind != DDBST__ANSWER_WRITE) {
      if (vt == V_MAP || vt == V_ARRAY) p->skip = 1;
      return 1;
    }
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    if ((t = new_item(p, x == X_ATTRIBUTES ? DDBST__IN_ATTRS : DDBST__IN_ERROR,
                      0)) < 0)
      return 0;
    if (x == X_ERROR_ITEM) pg->error_item = t;
    return open_item(p, t);
  case X_COUNT:
  case X_SCANNED: {
    int64_t v = 0;
    size_t i = 0;
    if (vt == V_NUMBER)
      for (; i < n && s[i] >= '0' && s[i] <= '9' && v < INT64_MAX / 10; i++)
        v = v * 10 + (s[i] - '0');
    if (vt != V_NUMBER || i == 0 || i != n)
      return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                           "expected a count (a whole number)");
    *(x == X_COUNT ? &pg->qcount : &pg->qscanned) = v;
    return 1;
  }
  case X_ITEMS:
    if (!want(p, vt, V_ARRAY, "a list of items")) return 0;
    if (!push(p, F_ITEMS, M_RAW, -1)) return 0;
    top(p)->avtype = DDBST__IN_ITEMS;
    return 1;
  case X_BATCH_TABLE: {
    if (!want(p, vt, V_ARRAY, "a list of items")) return 0;
    ddbst__frame *f = top(p);
    uint32_t off = f->key_off, len = f->key_len;
    if (!push(p, F_ITEMS, M_RAW, -1)) return 0;
    top(p)->avtype = DDBST__IN_BATCH;
    top(p)->key_off = off; /* the table, for the items' paths */
    top(p)->key_len = len;
    return 1;
  }
  case X_ITEM_ELEM: {
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    ddbst__frame *f = top(p);
    if ((t = new_item(p, f->avtype, f->index - 1)) < 0) return 0;
    pg->items[t].table = f->key_off;
    pg->items[t].table_len = f->key_len;
    return open_item(p, t);
  }
  case X_LEK:
    if (!want(p, vt, V_MAP, "a key (a JSON object)")) return 0;
    memset(&pg->lek, 0, sizeof pg->lek);
    pg->lek.where = DDBST__IN_LEK;
    pg->lek.entity = -1;
    return open_item(p, LEK_TARGET);
  case X_BATCH_RESPONSES:
    return want(p, vt, V_MAP, "an object of tables") &&
           push(p, F_BATCH_RESP, M_RAW, -1);
  case X_TXN_RESPONSES:
    return want(p, vt, V_ARRAY, "a list") && push(p, F_TXN_RESP, M_RAW, -1);
  case X_TXN_ENTRY:
    if (!want(p, vt, V_MAP, "an object")) return 0;
    if ((t = new_item(p, DDBST__IN_TXN, top(p)->index - 1)) < 0)
      return 0;
    pg->items[t].present = 0;
    return push(p, F_TXN_ENTRY, M_RAW, t);
  case X_TXN_ITEM:
    if (!want(p, vt, V_MAP, "an item (a JSON object)")) return 0;
    t = top(p)->target;
    pg->items[t].present = 1;
    return open_item(p, t);
  case X_AV: {
    if (vt != V_MAP)
      return ddbst__refuse(
          p, DDBST_EVALUE, p->depth, NULL,
          "expected an AttributeValue such as {\"S\": \"text\"}, "
          "found %s",
          vt_name(vt));
    ddbst__frame *f = top(p);
    int mode = f->kind == F_ITEM ? M_TOP : f->mode;
    int32_t target = f->kind == F_ITEM ? (int32_t)pg->nattrs - 1 : -1;
    uint16_t depth = f->doc_depth;
    if (f->kind == F_LIST && !separate(p)) return 0;
    if (!push(p, F_AV, mode, target)) return 0;
    top(p)->doc_depth = depth;
    return 1;
  }
  case X_AV_VALUE:
    if (vt == V_MAP || vt == V_ARRAY) {
      if (!ddbst__av_is_container(top(p)->avtype))
        return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL,
                             "expected %s, found %s",
                             top(p)->avtype == DDBST__AV_BOOL ? "true or false"
                             : top(p)->avtype == DDBST__AV_NULL ? "true"
                                                                : "a string",
                             vt_name(vt));
      return av_container(p, vt == V_MAP);
    }
    if (ddbst__av_is_container(top(p)->avtype))
      return ddbst__refuse(
          p, DDBST_EVALUE, p->depth, NULL, "expected %s, found %s",
          top(p)->avtype == DDBST__AV_M ? "an object" : "a list", vt_name(vt));
    return av_scalar(p, vt, s, n, b);
  case X_SET_ELEM: return set_elem(p, vt, s, n);
  default:
    break;
  }
  /* what the other answer parts expect, by their group (parser.h) */
  if (x >= X_UNPROC_KEYS && x <= X_WRITE_ELEM)
    return ddbst__unprocessed_value(p, x, vt, s, n, b);
  if (x >= X_ETYPE && x <= X_REASON_ELEM)
    return ddbst__error_body_value(p, x, vt, s, n, b);
  if (x >= X_RECORDS && x <= X_RECORD_ELEM)
    return ddbst__stream_value(p, x, vt, s, n, b);
  return ddbst__refuse(p, DDBST_EVALUE, p->depth, NULL, "unexpected %s",
                       vt_name(vt));
}

static int on_null(void *ctx) { return on_value(ctx, V_NULL, NULL, 0, 0); }
static int on_bool(void *ctx, int b) {
  return on_value(ctx, V_BOOL, NULL, 0, b);
}
static int on_number(void *ctx, const char *s, size_t n) {
  return on_value(ctx, V_NUMBER, s, n, 0);
}
/* The three callbacks of nearly every attribute ({"S": "text"} opened, its
 * value, closed) take the way on_value and on_end would take, without
 * their turns: the same checks, the same state after. */
PAGE_HOT int on_string(void *ctx, const unsigned char *s, size_t n) {
  ddbst__parser *p = ctx;
  if (p->pending == X_AV_VALUE && !p->skip &&
      !ddbst__av_is_container(top(p)->avtype)) {
    p->pending = X_NONE;
    return av_scalar(p, V_STRING, (const char *)s, n, 0);
  }
  return on_value(ctx, V_STRING, (const char *)s, n, 0);
}
PAGE_HOT int on_start_map(void *ctx) {
  ddbst__parser *p = ctx;
  if (p->pending == X_AV && !p->skip && top(p)->kind == F_ITEM) {
    p->pending = X_NONE;
    return push(p, F_AV, M_TOP, (int32_t)p->pg->nattrs - 1);
  }
  return on_value(ctx, V_MAP, NULL, 0, 0);
}
static int on_start_array(void *ctx) {
  return on_value(ctx, V_ARRAY, NULL, 0, 0);
}

/* The root's members that each operation's answer always has. */
static int root_complete(ddbst__parser *p) {
  ddbst__frame *f = top(p);
  if (p->has_type) return 1; /* an error body: told apart afterwards */
  p->pg->count_only = p->kind == DDBST__ANSWER_QUERY &&
                      !(f->seen & (1ull << X_ITEMS)) &&
                      (f->seen & (1ull << X_COUNT));
  static const struct {
    ddbst__answer kind;
    int x;
    const char *name;
  } required[] = {
      {DDBST__ANSWER_QUERY, X_ITEMS, "Items"},
      {DDBST__ANSWER_BATCH_GET, X_BATCH_RESPONSES, "Responses"},
      {DDBST__ANSWER_BATCH_WRITE, X_UNPROC_ITEMS, "UnprocessedItems"},
      {DDBST__ANSWER_TRANSACT_GET, X_TXN_RESPONSES, "Responses"},
      {DDBST__ANSWER_STREAM, X_RECORDS, "Records"},
      {DDBST__ANSWER_ERROR, X_ETYPE, "__type"},
  };
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (required[i].kind == p->kind && !(f->seen & (1ull << required[i].x)) &&
        /* a Select COUNT answer holds Count and ScannedCount instead */
        !(required[i].x == X_ITEMS && (f->seen & (1ull << X_COUNT)) &&
          (f->seen & (1ull << X_SCANNED))))
      return ddbst__refuse(
          p, DDBST_EVALUE, 0, required[i].name, "%s",
          p->kind == DDBST__ANSWER_ERROR
              ? "missing: this is not a DynamoDB error body"
              : "missing: this is not the answer to the operation "
                "given");
  return 1;
}

PAGE_HOT int on_end(void *ctx) {
  ddbst__parser *p = ctx;
  if (p->skip) {
    p->skip--;
    return 1;
  }
  ddbst_page *pg = p->pg;
  ddbst__frame *f = top(p);
  if (f->kind == F_AV && f->state == 2 && f->mode == M_TOP &&
      !ddbst__av_is_container(f->avtype)) { /* an item's scalar: kept */
    p->depth--;
    return 1;
  }
  int up = p->depth - 1;
  switch (f->kind) {
  case F_ROOT:
    if (!root_complete(p)) return 0;
    break;
  case F_ITEM:
    if (!ddbst__finish_item(p)) return 0;
    break;
  case F_AV:
    if (f->state != 2)
      return ddbst__refuse(
          p, DDBST_EVALUE, up, NULL,
          "an AttributeValue needs a type and a value, such as "
          "{\"S\": \"text\"}");
    if (f->mode == M_TOP) {
      ddbst__pattr *r = &pg->attrs[f->target];
      if (ddbst__av_is_container(r->type)) {
        if (!put_text(p, "}", 1)) return 0;
        r->val_len = (uint32_t)(pg->text.len - r->val);
        r->plain_len = (uint32_t)(pg->plain.len - r->plain);
        if (!put_text(p, "", 1)) return 0;
      }
    } else if (!put_text(p, "}", 1)) {
      return 0;
    }
    break;
  case F_LIST:
  case F_SET:
    if (f->kind == F_SET && f->index == 0)
      return ddbst__refuse(p, DDBST_EVALUE, up, NULL,
                           "a set is never empty in DynamoDB");
    if (!put_text(p, "]", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, "]", 1)) return 0;
    break;
  case F_MAP:
    if (!put_text(p, "}", 1)) return 0;
    if (f->mode == M_DOC && !put_plain(p, "}", 1)) return 0;
    break;
  default:
    if (f->kind <= F_DELREQ) {
      if (!ddbst__unprocessed_end(p)) return 0;
    } else if (f->kind <= F_REASON) {
      if (!ddbst__error_body_end(p)) return 0;
    } else if (!ddbst__stream_end(p)) {
      return 0;
    }
    break;
  }
  p->depth--;
  return 1;
}

static const ddbst__json_callbacks callbacks = {
    .on_null = on_null,
    .on_bool = on_bool,
    .on_number = on_number,
    .on_string = on_string,
    .on_start_map = on_start_map,
    .on_key = on_key,
    .on_end_map = on_end,
    .on_start_array = on_start_array,
    .on_end_array = on_end,
};

static int item_scalar_whole(ddbst__parser *p, const char *s, size_t len,
                             size_t i, size_t *end);
static int item_member_whole(ddbst__parser *p, const char *s, size_t len,
                             size_t i, size_t *end);

/* The reader's loop with these callbacks compiled in (json/read_loop.h):
 * called directly, they are inlined into it, and a page's tokens cost no
 * call through a pointer. An item's scalar AttributeValue is read whole
 * when it is written as DynamoDB writes it (item_scalar_whole). */
#define on_end_map on_end
#define on_end_array on_end
#define DDBST__READ_LINKAGE static
#define DDBST__READ_NAME page_read
#define DDBST__READ_HAS(on) 1
#define DDBST__READ_CALL(on) on
#define DDBST__READ_WHOLE(ctx, s, len, i, end)                                 \
  item_scalar_whole(ctx, s, len, i, end)
#define DDBST__READ_MEMBER(ctx, s, len, i, end)                                \
  item_member_whole(ctx, s, len, i, end)
#include "json/read_loop.h"
#undef on_end_map
#undef on_end_array

/* An item's attribute value at s[i] ('{') written as DynamoDB writes it,
 * {"S":"text"} or {"N":"12.5"}: no whitespace, no escape, a valid number.
 * Read in one step, where the loop takes five tokens (the object, its
 * type, ':', the value and the end) and the handlers push and pop a frame:
 * the record ends as on_start_map, av_key, av_scalar and on_end leave it,
 * and nothing else changes (the frame they push is popped again). Any other
 * form, and every fault, is left to the loop (0, nothing changed), so every
 * refusal is the handlers' own. -1: out of memory. */
PAGE_HOT int item_scalar_whole(ddbst__parser *p, const char *s, size_t len,
                               size_t i, size_t *end) {
  if (p->pending != X_AV || p->skip || top(p)->kind != F_ITEM ||
      p->depth == MAX_FRAMES || len - i < 8)
    return 0;
  /* {"S":" or {"N":" */
  int type = s[i + 2] == 'S' ? DDBST__AV_S : s[i + 2] == 'N' ? DDBST__AV_N : -1;
  if (type < 0 || s[i + 1] != '"' || memcmp(s + i + 3, "\":\"", 3)) return 0;
  size_t j = string_stop(s, i + 6, len);
  if (j + 1 >= len || s[j] != '"' || s[j + 1] != '}') return 0;
  const char *v = s + i + 6;
  size_t n = j - (i + 6);
  if (type == DDBST__AV_N && ddbst__number_check(v, n)) return 0;
  ddbst_page *pg = p->pg;
  ddbst__pattr *r = &pg->attrs[pg->nattrs - 1];
  r->type = (uint8_t)type;
  r->plain = (uint32_t)pg->plain.len;
  p->pending = X_NONE;
  *end = j + 2;
  if (!keep(p, v, n, &r->val)) return -1;
  r->val_len = (uint32_t)n;
  return 1;
}

/* An item's member at s[i] ('"') written as DynamoDB writes it,
 * "name":{"S":"text"} or "name":{"N":"12.5"}, its name one the model knows
 * and new in the item: item_key's and item_scalar_whole's work in one step,
 * where the loop takes seven tokens. The record, the item's frame and the
 * name's stamps end as item_key, on_start_map, av_key, av_scalar and on_end
 * leave them. Any other member is left to the loop (0, nothing changed but
 * the cache of the name that follows, which item_key fills alike), so every
 * refusal (an empty name, a name twice, a bad number) is the handlers' own.
 * -1: out of memory. */
PAGE_HOT int item_member_whole(ddbst__parser *p, const char *s, size_t len,
                               size_t i, size_t *end) {
  if (p->skip || p->depth == MAX_FRAMES || top(p)->kind != F_ITEM) return 0;
  size_t j = string_stop(s, i + 1, len);
  /* the name's closing quote, then :{"S":" or :{"N":" (8 bytes) */
  if (j + 8 >= len || s[j] != '"' || j == i + 1) return 0;
  uint64_t w, w_s, w_n;
  memcpy(&w, s + j, 8);
  memcpy(&w_s, "\":{\"S\":\"", 8);
  memcpy(&w_n, "\":{\"N\":\"", 8);
  int type = w == w_s ? DDBST__AV_S : w == w_n ? DDBST__AV_N : -1;
  if (type < 0) return 0;
  size_t vi = j + 8, k = string_stop(s, vi, len);
  if (k + 1 >= len || s[k] != '"' || s[k + 1] != '}') return 0;
  const char *name = s + i + 1, *v = s + vi;
  size_t n = j - i - 1, vn = k - vi;
  if (type == DDBST__AV_N && ddbst__number_check(v, vn)) return 0;
  ddbst_page *pg = p->pg;
  int32_t id = ddbst__page_next_name_id(pg, p->name_prev, name, n);
  if (id < 0 || pg->seen_gen[id] == pg->gen) return 0;
  ddbst__pattr *a = ddbst__page_grow(&p->m->alloc, pg->attrs, &pg->cap_attrs,
                                     pg->nattrs + 1, sizeof *a);
  if (!a) return nomem(p) - 1;
  pg->attrs = a;
  ddbst_buf *t = &pg->text;
  /* the name and the value kept as keep keeps them, one after the other */
  if (t->len > UINT32_MAX - n - vn - 3 || ddbst__buf_reserve(t, n + vn + 2))
    return nomem(p) - 1;
  uint32_t rec = pg->nattrs, off = (uint32_t)t->len;
  char *d = t->data + off;
  /* text has DDBST__PAD bytes past its room: short strings are copied 32
   * bytes at a time when the JSON holds 32 bytes past the value's start
   * (so past the name's too), which is nearly always */
  if ((n | vn) < 32 && len - vi >= 32) {
    memcpy(d, name, 32);
    memcpy(d + n + 1, v, 32);
  } else {
    memcpy(d, name, n);
    memcpy(d + n + 1, v, vn);
  }
  d[n] = '\0';
  d[n + 1 + vn] = '\0';
  d[n + 2 + vn] = '\0';
  t->len += n + vn + 2;
  /* every field, as stores (a compound literal was built on the stack and
   * copied) */
  ddbst__pattr *r = &a[rec];
  r->name = off;
  r->name_len = (uint32_t)n;
  r->val = off + (uint32_t)n + 1;
  r->val_len = (uint32_t)vn;
  r->plain = (uint32_t)pg->plain.len;
  r->plain_len = 0;
  r->name_id = id;
  r->attr = -1;
  r->type = (uint8_t)type;
  r->role = pg->name_role[id];
  pg->nattrs = rec + 1;
  p->name_prev = (uint32_t)id;
  pg->seen_gen[id] = pg->gen;
  pg->seen_rec[id] = rec;
  p->pending = X_NONE;
  ddbst__frame *f = top(p);
  f->key_src = K_RAW;
  f->key_off = off;
  f->key_len = (uint32_t)n;
  *end = k + 2;
  return 1;
}

/* The parse stopped at a string that is not text (json/text.h): refused at
 * that string's path, as a refusal of its value or name would be. */
static void refuse_text(ddbst__parser *p, const ddbst__json_run *r) {
  if (p->depth > 0 && !p->skip) {
    ddbst__frame *f = top(p);
    if (r->in_name)
      f->key_src = K_NONE; /* the name is the string: the path is its object's */
    else if (is_array(f->kind))
      f->index++; /* the element being read */
  }
  ddbst__refuse(p, DDBST_ESYNTAX, p->depth, NULL, "%s%s",
                r->in_name ? "a member name: " : "", r->msg);
}

int ddbst__page_parse(ddbst_page *pg, ddbst__answer kind, const char *json,
                      size_t len, ddbst_error *err) {
  ddbst__page_clear(pg, 0);
  pg->kind = kind;
  pg->failed = 1;
  if (!json && len) return ddbst__fail(err, DDBST_EINVAL, NULL, "json is NULL");
  if (len > UINT32_MAX / 4)
    return ddbst__fail(err, DDBST_ERANGE, NULL,
                       "the response is over 1 GB; DynamoDB's answers are not");
  /* Strings kept are never longer than the text they came from, so one
   * reservation covers nearly every parse. */
  if (ddbst__buf_reserve(&pg->text, len + 64))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  ddbst__parser p;
  memset(&p, 0, sizeof p);
  p.pg = pg;
  p.m = pg->m;
  p.kind = kind;
  p.lenient = kind == DDBST__ANSWER_STREAM || pg->keep_unknown;
  p.in_text = (uintptr_t)json;
  p.in_len = len;
  ddbst__json_run r;
  int rc = ddbst__json_parse_with(page_read, &r, &callbacks, &p, json, len,
                                  &pg->m->alloc, &pg->parser_blocks);
  if (rc == 0 && r.status == DDBST__JSON_TEXT) refuse_text(&p, &r);
  if (rc == 0 && (r.status != DDBST__JSON_OK || p.code))
    rc = p.code ? p.code : DDBST_ESYNTAX;
  if (rc) {
    ddbst__page_clear(pg, 0);
    if (rc == DDBST_ENOMEM)
      return ddbst__fail(err, rc, NULL, "out of memory");
    unsigned line, col;
    ddbst__text_position(json, len, r.at, &line, &col);
    if (!p.code)
      ddbst__fail(err, rc, NULL, "%s (line %u, column %u)", r.msg, line, col);
    else
      ddbst__fail(err, rc, p.path, "%s", p.msg);
    if (err) {
      err->offset = r.at;
      err->line = line;
      err->column = col;
    }
    return rc;
  }
  if (p.has_type) {
    /* the error's items (ReturnValuesOnConditionCheckFailure) stay */
    pg->ngroups = pg->nspans = pg->nrecords = 0;
    pg->count = 0;
    pg->has_more = 0;
    pg->qcount = pg->qscanned = -1;
    pg->error_kind =
        ddbst__ddb_error_kind(pg->text.data + pg->etype, pg->etype_len);
    /* a type spelled like the reason "None" is still an error */
    if (pg->error_kind == DDBST_DDB_NONE) pg->error_kind = DDBST_DDB_OTHER;
    pg->failed = 0;
    if (kind == DDBST__ANSWER_ERROR) return pg->error_kind;
    return ddbst__fail(err, DDBST_EDYNAMODB, "__type", "%s: %s",
                       pg->text.data + pg->etype,
                       pg->emsg_len ? pg->text.data + pg->emsg
                                    : "(no message)");
  }
  pg->failed = 0;
  pg->count = kind == DDBST__ANSWER_STREAM        ? (int)pg->nrecords
              : kind == DDBST__ANSWER_BATCH_WRITE ? 0
              : kind == DDBST__ANSWER_WRITE
                  ? (int)pg->nitems - (pg->error_item >= 0)
                  : (int)pg->nitems;
  return pg->count;
}

int ddbst_page_parse_write(ddbst_page *pg, int op, int entity,
                           const char *json, size_t len, ddbst_error *err) {
  if (!pg) return ddbst__fail(err, DDBST_EINVAL, NULL, "page is NULL");
  if (op != DDBST_OP_PUT_ITEM && op != DDBST_OP_UPDATE_ITEM &&
      op != DDBST_OP_DELETE_ITEM) {
    ddbst__page_clear(pg, 0);
    return ddbst__fail(err, DDBST_EINVAL, "op",
                       "ddbst_page_parse_write reads PutItem, UpdateItem or "
                       "DeleteItem answers; a TransactWriteItems answer "
                       "holds no values");
  }
  if (entity < -1 || entity >= pg->m->nentities) {
    ddbst__page_clear(pg, 0);
    return ddbst__fail(err, DDBST_EINVAL, "entity",
                       "entity index %d is out of range", entity);
  }
  pg->want_entity = entity;
  int rc = ddbst__page_parse(pg, DDBST__ANSWER_WRITE, json, len, err);
  pg->want_entity = -1;
  return rc;
}

int ddbst_page_parse(ddbst_page *pg, int op, const char *json, size_t len,
                     ddbst_error *err) {
  if (!pg) return ddbst__fail(err, DDBST_EINVAL, NULL, "page is NULL");
  len = ddbst__len(json, len);
  ddbst__answer kind;
  switch (op) {
  case DDBST_OP_GET_ITEM: kind = DDBST__ANSWER_GET_ITEM; break;
  case DDBST_OP_QUERY: kind = DDBST__ANSWER_QUERY; break;
  case DDBST_OP_BATCH_GET_ITEM: kind = DDBST__ANSWER_BATCH_GET; break;
  case DDBST_OP_BATCH_WRITE_ITEM: kind = DDBST__ANSWER_BATCH_WRITE; break;
  case DDBST_OP_TRANSACT_GET_ITEMS: kind = DDBST__ANSWER_TRANSACT_GET; break;
  case DDBST_OP_PUT_ITEM:
  case DDBST_OP_UPDATE_ITEM:
  case DDBST_OP_DELETE_ITEM:
    return ddbst_page_parse_write(pg, op, -1, json, len, err);
  default:
    ddbst__page_clear(pg, 0);
    return ddbst__fail(err, DDBST_EINVAL, "op",
                       "%s answers hold no items: parse GetItem, Query, "
                       "BatchGetItem, BatchWriteItem, TransactGetItems, "
                       "PutItem, UpdateItem or DeleteItem answers, and "
                       "errors with ddbst_page_parse_error",
                       ddbst_operation_name(op) ? ddbst_operation_name(op)
                                                : "an unknown operation's");
  }
  return ddbst__page_parse(pg, kind, json, len, err);
}
