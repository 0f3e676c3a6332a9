/* BatchGetItem and BatchWriteItem: any number of keys or writes, cut into
 * DynamoDB's chunks (100 keys, 25 writes). Duplicate keys are removed from
 * reads and refused in writes, which DynamoDB would reject whole. */
#include <stdint.h>
#include <string.h>

#include "request/request.h"

enum { GET_CHUNK = 100, WRITE_CHUNK = 25 };

/* A growable array of (offset, length) spans into a buffer. */
typedef struct spans {
  uint32_t *v; /* pairs */
  size_t n, cap;
} spans;

/* An open-addressing set of key identities ("PK\x1fSK") by span. */
typedef struct keyset {
  uint32_t *slots; /* index + 1 into `ids` spans; 0 is empty */
  size_t cap;
} keyset;

struct ddbst_batch {
  const ddbst_model *m;
  ddbst_buf gets, writes, ids;
  spans get_spans, write_spans, id_spans;
  keyset get_keys, write_keys;
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

static uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* Finds identity ids[span k] in `set`: 1 found, 0 not (then *slot is where
 * it would go). */
static int keyset_find(const ddbst_batch *b, const keyset *set, const char *id,
                       size_t n, size_t *slot) {
  size_t mask = set->cap - 1, i = (size_t)fnv1a(id, n) & mask;
  for (;; i = (i + 1) & mask) {
    uint32_t e = set->slots[i];
    if (!e) {
      *slot = i;
      return 0;
    }
    const uint32_t *sp = &b->id_spans.v[2 * (e - 1)];
    if (sp[1] == n && memcmp(b->ids.data + sp[0], id, n) == 0) return 1;
  }
}

static int keyset_grow(ddbst_batch *b, keyset *set, size_t count) {
  if (set->cap && (count + 1) * 2 <= set->cap) return 0;
  size_t cap = set->cap ? set->cap * 2 : 256;
  uint32_t *slots = ddbst__malloc(&b->m->alloc, cap * sizeof *slots);
  if (!slots) return DDBST_ENOMEM;
  memset(slots, 0, cap * sizeof *slots);
  keyset grown = {slots, cap};
  for (size_t i = 0; i < set->cap; i++) {
    uint32_t e = set->slots[i];
    if (!e) continue;
    const uint32_t *sp = &b->id_spans.v[2 * (e - 1)];
    size_t slot = 0;
    keyset_find(b, &grown, b->ids.data + sp[0], sp[1], &slot);
    slots[slot] = e;
  }
  ddbst__free(&b->m->alloc, set->slots);
  *set = grown;
  return 0;
}

ddbst_batch *ddbst_batch_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_batch *b = ddbst__malloc(&m->alloc, sizeof *b);
  if (!b) return NULL;
  memset(b, 0, sizeof *b);
  b->m = m;
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
  ddbst__free(a, b->get_keys.slots);
  ddbst__free(a, b->write_keys.slots);
  ddbst__free(a, b);
}

void ddbst_batch_reset(ddbst_batch *b) {
  if (!b) return;
  ddbst_buf_reset(&b->gets);
  ddbst_buf_reset(&b->writes);
  ddbst_buf_reset(&b->ids);
  b->get_spans.n = b->write_spans.n = b->id_spans.n = 0;
  if (b->get_keys.slots)
    memset(b->get_keys.slots, 0, b->get_keys.cap * sizeof *b->get_keys.slots);
  if (b->write_keys.slots)
    memset(b->write_keys.slots, 0,
           b->write_keys.cap * sizeof *b->write_keys.slots);
}

/* Records the item's key identity in `set`: 1 when it was there already. */
static int claim_key(ddbst_batch *b, keyset *set, size_t count,
                     ddbst_item *it, ddbst_error *err) {
  uint32_t po, pl, so, sl;
  int rc = ddbst__render_primary(it, &po, &pl, &so, &sl, err);
  if (rc) return rc;
  if (keyset_grow(b, set, count)) return DDBST_ENOMEM;
  size_t id0 = b->ids.len;
  rc = ddbst__buf_append(&b->ids, it->keytext.data + po, pl);
  rc = rc ? rc : ddbst__buf_putc(&b->ids, '\x1f');
  rc = rc ? rc : ddbst__buf_append(&b->ids, it->keytext.data + so, sl);
  if (rc) return DDBST_ENOMEM;
  size_t n = b->ids.len - id0, slot = 0;
  if (keyset_find(b, set, b->ids.data + id0, n, &slot)) {
    ddbst__buf_truncate(&b->ids, id0);
    return 1;
  }
  if (spans_push(&b->m->alloc, &b->id_spans, id0, n)) {
    ddbst__buf_truncate(&b->ids, id0);
    return DDBST_ENOMEM;
  }
  set->slots[slot] = (uint32_t)b->id_spans.n;
  return 0;
}

/* Forgets the identity claim_key just recorded (its write failed). */
static void unclaim(ddbst_batch *b, keyset *set) {
  uint32_t e = (uint32_t)b->id_spans.n;
  for (size_t i = 0; i < set->cap; i++)
    if (set->slots[i] == e) {
      /* rebuild the cluster after it, as open addressing needs */
      set->slots[i] = 0;
      const uint32_t *sp = &b->id_spans.v[2 * (e - 1)];
      ddbst__buf_truncate(&b->ids, sp[0]);
      b->id_spans.n--;
      size_t mask = set->cap - 1;
      for (size_t j = (i + 1) & mask; set->slots[j]; j = (j + 1) & mask) {
        uint32_t moved = set->slots[j];
        set->slots[j] = 0;
        const uint32_t *ms = &b->id_spans.v[2 * (moved - 1)];
        size_t slot = 0;
        keyset_find(b, set, b->ids.data + ms[0], ms[1], &slot);
        set->slots[slot] = moved;
      }
      return;
    }
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
  rc = claim_key(b, &b->get_keys, b->get_spans.n, it, err);
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
  rc = claim_key(b, &b->write_keys, b->write_spans.n, it, err);
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
  return add_write(b, it, 1, now_us, err);
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
