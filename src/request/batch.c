/* BatchGetItem and BatchWriteItem: any number of keys or writes, cut into
 * DynamoDB's chunks (100 keys, 25 writes). Duplicate keys are removed from
 * reads and refused in writes, which DynamoDB would reject whole. */
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "request/held.h"
#include "request/request.h"

enum { GET_CHUNK = 100, WRITE_CHUNK = 25 };

/* A growable array of (offset, length) spans into a buffer. */
typedef struct spans {
  uint32_t *v; /* pairs */
  size_t n, cap;
} spans;

struct ddbst_batch {
  const ddbst_model *m;
  ddbst_buf gets, writes, ids;
  spans get_spans, write_spans, id_spans;
  /* the key identities ("PK\x1fSK") read and written: `id_spans` indices */
  ddbst__strset get_keys, write_keys;
};

static int spans_push(const ddbst_allocator *a, spans *s, size_t off,
                      size_t len) {
  if (off > UINT32_MAX || len > UINT32_MAX) return DDBST_ENOMEM;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint32_t *v = ddbst__realloc(a, s->v, cap * 2 * sizeof *v);
    if (!v) return DDBST_ENOMEM;
    s->v = v;
    s->cap = cap;
  }
  s->v[2 * s->n] = (uint32_t)off;
  s->v[2 * s->n + 1] = (uint32_t)len;
  s->n++;
  return 0;
}

/* Key identity `k`, the set's key of entry k. */
static ddbst__strkey id_key(const void *batch, uint32_t k) {
  const ddbst_batch *b = batch;
  const uint32_t *sp = &b->id_spans.v[2 * k];
  ddbst__strkey key = {b->ids.data + sp[0], sp[1]};
  return key;
}

ddbst_batch *ddbst_batch_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_batch *b = ddbst__malloc(&m->alloc, sizeof *b);
  if (!b) return NULL;
  memset(b, 0, sizeof *b);
  b->m = m;
  ddbst__strset_init(&b->get_keys);
  ddbst__strset_init(&b->write_keys);
  ddbst__buf_init(&b->gets, &m->alloc);
  ddbst__buf_init(&b->writes, &m->alloc);
  ddbst__buf_init(&b->ids, &m->alloc);
  return b;
}

void ddbst_batch_free(ddbst_batch *b) {
  if (!b) return;
  const ddbst_allocator *a = &b->m->alloc;
  ddbst__buf_release(&b->gets);
  ddbst__buf_release(&b->writes);
  ddbst__buf_release(&b->ids);
  ddbst__free(a, b->get_spans.v);
  ddbst__free(a, b->write_spans.v);
  ddbst__free(a, b->id_spans.v);
  ddbst__strset_release(&b->get_keys, a);
  ddbst__strset_release(&b->write_keys, a);
  ddbst__free(a, b);
}

void ddbst_batch_reset(ddbst_batch *b) {
  if (!b) return;
  ddbst_buf_reset(&b->gets);
  ddbst_buf_reset(&b->writes);
  ddbst_buf_reset(&b->ids);
  b->get_spans.n = b->write_spans.n = b->id_spans.n = 0;
  ddbst__strset_clear(&b->get_keys);
  ddbst__strset_clear(&b->write_keys);
}

static size_t larger(size_t a, size_t b) { return a > b ? a : b; }

size_t ddbst__batch_held(const ddbst_batch *b) {
  size_t n = larger(larger(b->gets.cap, b->writes.cap), b->ids.cap);
  n = larger(n, larger(b->get_spans.cap, b->write_spans.cap) * 2 *
                    sizeof(uint32_t));
  n = larger(n, b->id_spans.cap * 2 * sizeof(uint32_t));
  return larger(n, (size_t)larger(b->get_keys.cap, b->write_keys.cap) *
                       sizeof(ddbst__strslot));
}

/* Records the item's key identity in `set`: 1 when it was there already. */
static int claim_key(ddbst_batch *b, ddbst__strset *set, ddbst_item *it,
                     ddbst_error *err) {
  uint32_t po, pl, so, sl;
  int rc = ddbst__render_primary(it, &po, &pl, &so, &sl, err);
  if (rc) return rc;
  if (ddbst__strset_reserve(set, &b->m->alloc, set->count + 1, 256, id_key,
                            b))
    return DDBST_ENOMEM;
  size_t id0 = b->ids.len;
  rc = ddbst__buf_append(&b->ids, it->keytext.data + po, pl);
  rc = rc ? rc : ddbst__buf_putc(&b->ids, '\x1f');
  rc = rc ? rc : ddbst__buf_append(&b->ids, it->keytext.data + so, sl);
  if (rc) return DDBST_ENOMEM;
  size_t n = b->ids.len - id0;
  ddbst__strslot *slot =
      ddbst__strset_find(set, b->ids.data + id0, n, id_key, b);
  if (ddbst__strset_taken(set, slot)) {
    ddbst__buf_truncate(&b->ids, id0);
    return 1;
  }
  if (spans_push(&b->m->alloc, &b->id_spans, id0, n)) {
    ddbst__buf_truncate(&b->ids, id0);
    return DDBST_ENOMEM;
  }
  ddbst__strset_put(set, slot, (uint32_t)b->id_spans.n - 1);
  return 0;
}

/* Forgets the identity claim_key just recorded (its write failed). */
static void unclaim(ddbst_batch *b, ddbst__strset *set) {
  uint32_t k = (uint32_t)b->id_spans.n - 1;
  ddbst__strkey key = id_key(b, k);
  ddbst__strset_remove(set, ddbst__strset_find(set, key.s, key.n, id_key, b),
                       id_key, b);
  ddbst__buf_truncate(&b->ids, b->id_spans.v[2 * k]);
  b->id_spans.n--;
}

static int check(ddbst_batch *b, ddbst_item *it, ddbst_error *err) {
  if (!b || !it) return ddbst__fail(err, DDBST_EINVAL, NULL, "NULL argument");
  if (it->m != b->m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item belongs to another model");
  return 0;
}

int ddbst_batch_get(ddbst_batch *b, ddbst_item *it, ddbst_error *err) {
  int rc = check(b, it, err);
  if (rc) return rc;
  rc = claim_key(b, &b->get_keys, it, err);
  if (rc == 1) return 0; /* read once */
  if (rc) return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  size_t start = b->gets.len;
  rc = ddbst__write_key(it, &b->gets, err);
  if (!rc && spans_push(&b->m->alloc, &b->get_spans, start, b->gets.len - start))
    rc = ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  if (rc) {
    ddbst__buf_truncate(&b->gets, start);
    unclaim(b, &b->get_keys);
  }
  return rc ? rc : 1;
}

/* One write request: {"PutRequest":{"Item":...}} or {"DeleteRequest":...}. */
static int add_write(ddbst_batch *b, ddbst_item *it, int put, int64_t now_us,
                     ddbst_error *err) {
  int rc = check(b, it, err);
  if (rc) return rc;
  const ddbst__entity *e = ddbst__entity_of(it);
  if (e->nuniques)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "%s has unique attributes, whose guards need a "
                       "transaction; a batch write cannot hold conditions",
                       e->name);
  if (it->has_expected_version)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "a batch write cannot check a version; use a "
                       "transaction");
  if (it->cond || it->update)
    return ddbst__fail(err, DDBST_EINVAL, e->name,
                       "a batch write holds no %s; use single writes or a "
                       "transaction",
                       it->cond ? "condition" : "update actions");
  if (put) {
    rc = ddbst__prepare_write(it, 0, now_us, err);
    if (rc) return rc;
  }
  rc = claim_key(b, &b->write_keys, it, err);
  if (rc == 1)
    return ddbst__fail(err, DDBST_EINVAL, "batch",
                       "the batch already writes this %s; DynamoDB refuses "
                       "two writes of one key in a batch",
                       e->name);
  if (rc) return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  size_t start = b->writes.len;
  if (put) {
    rc = ddbst__buf_puts(&b->writes, "{\"PutRequest\":{\"Item\":");
    rc = rc ? rc : ddbst__write_item(it, &b->writes, err);
  } else {
    rc = ddbst__buf_puts(&b->writes, "{\"DeleteRequest\":{\"Key\":");
    rc = rc ? rc : ddbst__write_key(it, &b->writes, err);
  }
  rc = rc ? rc : ddbst__buf_puts(&b->writes, "}}");
  if (!rc &&
      spans_push(&b->m->alloc, &b->write_spans, start, b->writes.len - start))
    rc = DDBST_ENOMEM;
  if (rc) {
    ddbst__buf_truncate(&b->writes, start);
    unclaim(b, &b->write_keys);
    return rc == DDBST_ENOMEM ? ddbst__fail(err, rc, NULL, "out of memory") : rc;
  }
  return 0;
}

int ddbst_batch_put(ddbst_batch *b, ddbst_item *it, int64_t now_us,
                    ddbst_error *err) {
  return add_write(b, it, 1, ddbst__now(now_us), err);
}

int ddbst_batch_delete(ddbst_batch *b, ddbst_item *it, ddbst_error *err) {
  return add_write(b, it, 0, 0, err);
}

static size_t chunks(size_t n, size_t per) { return (n + per - 1) / per; }

int ddbst_batch_request_count(const ddbst_batch *b) {
  if (!b) return DDBST_EINVAL;
  size_t n = chunks(b->get_spans.n, GET_CHUNK) +
             chunks(b->write_spans.n, WRITE_CHUNK);
  return n > INT32_MAX ? DDBST_ERANGE : (int)n;
}

int ddbst_batch_request(const ddbst_batch *b, int i, uint32_t flags,
                        ddbst_buf *out, ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!b || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "batch or buffer is NULL");
  size_t ng = chunks(b->get_spans.n, GET_CHUNK);
  size_t nw = chunks(b->write_spans.n, WRITE_CHUNK);
  if (i < 0 || (size_t)i >= ng + nw)
    return ddbst__fail(err, DDBST_EINVAL, "batch",
                       "request %d of %zu does not exist", i, ng + nw);
  const ddbst_model *m = b->m;
  int is_get = (size_t)i < ng;
  const spans *s = is_get ? &b->get_spans : &b->write_spans;
  const ddbst_buf *data = is_get ? &b->gets : &b->writes;
  size_t per = is_get ? GET_CHUNK : WRITE_CHUNK;
  size_t first = (is_get ? (size_t)i : (size_t)i - ng) * per;
  size_t last = first + per < s->n ? first + per : s->n;
  size_t start = out->len;
  int rc = ddbst__buf_puts(out, "{\"RequestItems\":{");
  rc = rc ? rc : ddbst__json_string(out, m->table_name, strlen(m->table_name));
  rc = rc ? rc : ddbst__buf_puts(out, is_get ? ":{\"Keys\":[" : ":[");
  for (size_t k = first; !rc && k < last; k++) {
    if (k > first) rc = ddbst__buf_putc(out, ',');
    rc = rc ? rc : ddbst__buf_append(out, data->data + s->v[2 * k], s->v[2 * k + 1]);
  }
  rc = rc ? rc : ddbst__buf_putc(out, ']');
  if (!rc && is_get && (flags & DDBST_CONSISTENT_READ))
    rc = ddbst__buf_puts(out, ",\"ConsistentRead\":true");
  if (!rc && is_get) rc = ddbst__buf_putc(out, '}');
  rc = rc ? rc : ddbst__buf_puts(out, "}}");
  if (rc) return ddbst__abandon(out, start, rc, err);
  return is_get ? DDBST_OP_BATCH_GET_ITEM : DDBST_OP_BATCH_WRITE_ITEM;
}
