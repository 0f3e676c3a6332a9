/* The Item of a put in one pass, for an entity whose keys are simple
 * (ddbst__entity.keys_simple): the keys straight from the values through
 * their runs made at load, then each attribute's member from its fixed
 * text, and the item's size counted on the way instead of in a pass of its
 * own. Whatever this way does not take (a value not scanned clean, a key
 * that needs a check) goes to ddbst__write_item, which says why. */
#include "item/attribute_value.h"
#include "item/itemsize.h"
#include "request/request.h"
#include "base/bytes.h"

int ddbst__item_too_big(const ddbst__entity *e, size_t size,
                        ddbst_error *err) {
  return ddbst__fail(err, DDBST_ERANGE, e->name,
                     "the %s would be %zu bytes; DynamoDB stores at most "
                     "%d per item",
                     e->name, size, DDBST__ITEM_MAX);
}

/* ,"name":... of an attribute the short way does not take (a number, a
 * list, a string that needs an escape), with its comma after. */
DDBST__NOINLINE static int general_member(ddbst_buf *out,
                                          const ddbst__attr *at,
                                          const char *v, size_t len) {
  int rc = ddbst__buf_append(out, at->jname.p, at->jname.n);
  rc = rc ? rc : ddbst__write_av(out, at, v, len);
  return rc ? rc : ddbst__buf_putc(out, ',');
}

int ddbst__write_item_simple(ddbst_item *it, ddbst_buf *out,
                             ddbst_error *err) {
  const ddbst__entity *e = ddbst__entity_of(it);
  size_t text_bound = e->key_uses * it->text.len;
  if (!e->keys_simple || text_bound > 4096) return 0;
  /* room for the keys and every attribute written the short way (a member
   * written the general way makes its own, so the members after it check
   * again) */
  if (ddbst__buf_reserve(out, 1 + e->item_fixed + text_bound + it->text.len))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  size_t start = out->len, size = 0;
  char *o = out->data + start;
  *o = '{';
  o = ddbst__keys_av_simple(it, o + 1, &size);
  if (!o) {
    out->data[start] = '\0'; /* what was written is past the end */
    return 0;
  }
  const char *text = it->text.data;
  int general = 0; /* a member written the general way spent room */
  for (int a = 0; a < e->nattrs; a++) {
    const ddbst__val *val = &it->vals[a];
    if (!val->set) continue;
    const ddbst__attr *at = &e->attrs[a];
    const char *v = text + val->off;
    size_t len = val->len;
    unsigned scan = val->scan; /* what setting it found, if it looked */
    size += at->jname.raw_len;
    if (at->s_member.p && (scan ? !(scan & DDBST__SCAN_ESCAPE)
                                : ddbst__json_plain_len(v, len) == len)) {
      size += len;
      if (general) { /* the room reserved above may be spent */
        out->len = (size_t)(o - out->data);
        if (ddbst__buf_reserve(out, at->s_member.n + len + 3)) goto nomem;
        o = out->data + out->len;
      }
      /* the member's text (the arena) and the value (the item's text) are
       * both padded */
      ddbst__copy_padded(o, at->s_member.p, at->s_member.n);
      o += at->s_member.n;
      ddbst__copy_padded(o, v, len);
      o += len;
      memcpy(o, "\"},", 3);
      o += 3;
      continue;
    }
    size += ddbst__value_size(at, v, len);
    out->len = (size_t)(o - out->data);
    if (general_member(out, at, v, len)) goto nomem;
    general = 1;
    o = out->data + out->len;
  }
  out->len = (size_t)(o - out->data);
  out->data[out->len - 1] = '}'; /* the last comma: there are keys */
  out->data[out->len] = '\0';
  /* the item's key list was not built: none is kept from before */
  it->nkeys = 0;
  if (size > DDBST__ITEM_MAX) return ddbst__item_too_big(e, size, err);
  return 1;
nomem:
  ddbst__buf_truncate(out, start);
  return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
}
