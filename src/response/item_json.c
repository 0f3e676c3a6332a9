/* A page's items as plain JSON ({"entity": "User", "item": {...}}): the
 * attributes in declaration order, so equal items give equal text. */
#include <string.h>

#include "response/page.h"

static int plain_value(const ddbst_page *pg, const ddbst__pattr *r,
                       ddbst_buf *out) {
  const char *v = pg->text.data + r->val;
  switch (r->type) {
  case DDBST__AV_S:
  case DDBST__AV_B: return ddbst__json_string(out, v, r->val_len);
  case DDBST__AV_N: return ddbst__json_number(out, v, r->val_len);
  case DDBST__AV_BOOL: return ddbst__buf_append(out, v, r->val_len);
  case DDBST__AV_NULL: return ddbst__buf_puts(out, "null");
  default: return ddbst__buf_append(out, pg->plain.data + r->plain, r->plain_len);
  }
}

static int plain_member(const ddbst_page *pg, const ddbst__pattr *r,
                        ddbst_buf *out, int *first) {
  int rc = *first ? 0 : ddbst__buf_putc(out, ',');
  *first = 0;
  rc = rc ? rc : ddbst__json_string(out, pg->text.data + r->name, r->name_len);
  rc = rc ? rc : ddbst__buf_putc(out, ':');
  return rc ? rc : plain_value(pg, r, out);
}

int ddbst__page_json_attrs(const ddbst_page *pg, uint32_t i, ddbst_buf *out) {
  const ddbst__pitem *pi = &pg->items[i];
  uint32_t end = pi->first + pi->count;
  int first = 1;
  int rc = ddbst__buf_putc(out, '{');
  if (pi->entity < 0) {
    /* nothing is known about it: every attribute, keys included */
    for (uint32_t k = pi->first; !rc && k < end; k++)
      rc = plain_member(pg, &pg->attrs[k], out, &first);
    return rc ? rc : ddbst__buf_putc(out, '}');
  }
  /* declaration order, so equal items give equal text */
  int nattrs = pg->m->entities[pi->entity].nattrs;
  for (int a = 0; !rc && a < nattrs; a++)
    for (uint32_t k = pi->first; k < end; k++) {
      const ddbst__pattr *r = &pg->attrs[k];
      if (r->attr != a || (r->role != DDBST__PA_ATTR &&
                           r->role != DDBST__PA_RECOVERED))
        continue;
      rc = plain_member(pg, r, out, &first);
      break;
    }
  return rc ? rc : ddbst__buf_putc(out, '}');
}

int ddbst__page_json_undeclared(const ddbst_page *pg, uint32_t i,
                                const char *member, ddbst_buf *out) {
  const ddbst__pitem *pi = &pg->items[i];
  if (pi->entity < 0) return 0;
  int first = 1, rc = 0;
  for (uint32_t k = pi->first; !rc && k < pi->first + pi->count; k++) {
    const ddbst__pattr *r = &pg->attrs[k];
    if (r->role != DDBST__PA_ATTR || r->attr >= 0) continue;
    if (first) {
      rc = ddbst__buf_puts(out, ",\"");
      rc = rc ? rc : ddbst__buf_puts(out, member);
      rc = rc ? rc : ddbst__buf_puts(out, "\":{");
    }
    rc = rc ? rc : plain_member(pg, r, out, &first);
  }
  if (!rc && !first) rc = ddbst__buf_putc(out, '}');
  return rc;
}

int ddbst__page_json_item(const ddbst_page *pg, uint32_t i, ddbst_buf *out) {
  const ddbst__pitem *pi = &pg->items[i];
  if (!pi->present) return ddbst__buf_puts(out, "null");
  int rc = ddbst__buf_puts(out, "{\"entity\":");
  if (!rc && pi->entity >= 0) {
    const char *e = pg->m->entities[pi->entity].name;
    rc = ddbst__json_string(out, e, strlen(e));
  } else if (!rc) {
    rc = ddbst__buf_puts(out, "null");
  }
  rc = rc ? rc : ddbst__buf_puts(out, ",\"item\":");
  rc = rc ? rc : ddbst__page_json_attrs(pg, i, out);
  rc = rc ? rc : ddbst__page_json_undeclared(pg, i, "undeclared", out);
  rc = rc ? rc : ddbst__page_json_unprojected(pg, i, out);
  return rc ? rc : ddbst__buf_putc(out, '}');
}

int ddbst_page_item_json(const ddbst_page *pg, int i, ddbst_buf *out,
                         ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  return ddbst_page_item_json_append(pg, i, out, err);
}

int ddbst_page_item_json_append(const ddbst_page *pg, int i, ddbst_buf *out,
                                ddbst_error *err) {
  int rc = ddbst__page_check_index(pg, i, err);
  if (rc) return rc;
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "buffer is NULL");
  size_t start = out->len;
  if (ddbst__page_json_item(pg, ddbst__page_slot(pg, i), out)) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}
