/* DynamoDB Streams events as Lambda delivers them: the records read by the
 * page parser (parse_stream.c), their images as items, and the answer of a
 * Lambda that reports the records it could not process. */
#include <stdio.h>
#include <string.h>

#include "json/jw.h"
#include "response/page.h"

struct ddbst_stream {
  ddbst_page page;
};

ddbst_stream *ddbst_stream_new(const ddbst_model *m) {
  if (!m) return NULL;
  ddbst_stream *s = ddbst__malloc(&m->alloc, sizeof *s);
  if (!s) return NULL;
  if (ddbst__page_init(&s->page, m)) {
    ddbst__free(&m->alloc, s);
    return NULL;
  }
  return s;
}

void ddbst_stream_free(ddbst_stream *s) {
  if (!s) return;
  const ddbst_model *m = s->page.m;
  ddbst__page_release(&s->page);
  ddbst__free(&m->alloc, s);
}

ddbst_page *ddbst__stream_page(ddbst_stream *s) { return &s->page; }

int ddbst_stream_parse(ddbst_stream *s, const char *json, size_t len,
                       ddbst_error *err) {
  if (!s) return ddbst__fail(err, DDBST_EINVAL, NULL, "stream is NULL");
  return ddbst__page_parse(&s->page, DDBST__ANSWER_STREAM, json,
                           ddbst__len(json, len), err);
}

static const ddbst__precord *record(const ddbst_stream *s, int i) {
  if (!s || i < 0 || i >= s->page.count) return NULL;
  return &s->page.records[i];
}

int ddbst_stream_count(const ddbst_stream *s) { return s ? s->page.count : 0; }

int ddbst_stream_event(const ddbst_stream *s, int i) {
  const ddbst__precord *r = record(s, i);
  return r ? r->event : DDBST_EINVAL;
}

int ddbst_stream_entity(const ddbst_stream *s, int i) {
  const ddbst__precord *r = record(s, i);
  if (!r) return DDBST_EINVAL;
  return r->entity >= 0 ? r->entity : DDBST_ENOTFOUND;
}

const char *ddbst_stream_sequence_number(const ddbst_stream *s, int i) {
  const ddbst__precord *r = record(s, i);
  return r ? ddbst__page_text(&s->page, r->seq) : NULL;
}

int ddbst_stream_by_ttl(const ddbst_stream *s, int i) {
  const ddbst__precord *r = record(s, i);
  return r && r->event == DDBST_STREAM_REMOVE && r->by_ttl ? 1 : 0;
}

static const char *const image_names[] = {"Keys", "NewImage", "OldImage"};

int ddbst_stream_image(const ddbst_stream *s, int i, int which,
                       ddbst_item *item, ddbst_error *err) {
  const ddbst__precord *r = record(s, i);
  if (!r)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "record %d of %d does not exist", i,
                       ddbst_stream_count(s));
  if (!item) return ddbst__fail(err, DDBST_EINVAL, NULL, "item is NULL");
  if (item->m != s->page.m)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "the item belongs to another model");
  if (which < DDBST_IMAGE_KEYS || which > DDBST_IMAGE_OLD)
    return ddbst__fail(err, DDBST_EINVAL, "image",
                       "DDBST_IMAGE_KEYS, DDBST_IMAGE_NEW or DDBST_IMAGE_OLD");
  int32_t it = which == DDBST_IMAGE_KEYS  ? r->keys
               : which == DDBST_IMAGE_NEW ? r->new_image
                                          : r->old_image;
  if (it < 0) {
    char path[64];
    snprintf(path, sizeof path, "Records[%d].dynamodb.%s", i,
             image_names[which]);
    const char *why =
        which == DDBST_IMAGE_NEW && r->event == DDBST_STREAM_REMOVE
            ? "the item was removed"
        : which == DDBST_IMAGE_OLD && r->event == DDBST_STREAM_INSERT
            ? "the item did not exist before"
            : "the stream does not carry it: see its StreamViewType";
    return ddbst__fail(err, DDBST_ENOTFOUND, path, "the record has no %s (%s)",
                       image_names[which], why);
  }
  return ddbst__page_fill(&s->page, (uint32_t)it, item, err);
}

/* "name": the image's attributes as plain JSON, and its undeclared ones
 * under `undeclared` (ddbst__page_json_attrs writes the object). */
static void json_image(ddbst__jw *w, const ddbst_page *pg, int32_t it,
                       const char *name, const char *undeclared) {
  if (it < 0) return;
  ddbst__jw_key(w, name);
  if (ddbst__jw_value(w))
    ddbst__jw_status(w, ddbst__page_json_attrs(pg, (uint32_t)it, w->b));
  if (undeclared && !w->rc)
    ddbst__jw_status(
        w, ddbst__page_json_undeclared(pg, (uint32_t)it, undeclared, w->b));
}

int ddbst_stream_record_json(const ddbst_stream *s, int i, ddbst_buf *out,
                             ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  return ddbst_stream_record_json_append(s, i, out, err);
}

int ddbst_stream_record_json_append(const ddbst_stream *s, int i,
                                    ddbst_buf *out, ddbst_error *err) {
  const ddbst__precord *r = record(s, i);
  if (!r || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "no record %d, or the buffer is NULL", i);
  static const char *const events[] = {"", "INSERT", "MODIFY", "REMOVE"};
  const ddbst_page *pg = &s->page;
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_pair(&w, "eventName", events[r->event]);
  ddbst__jw_key(&w, "sequenceNumber");
  ddbst__jw_strn(&w, ddbst__page_text(pg, r->seq), r->seq_len);
  if (r->id != UINT32_MAX) {
    ddbst__jw_key(&w, "eventID");
    ddbst__jw_strn(&w, ddbst__page_text(pg, r->id), r->id_len);
  }
  ddbst__jw_key(&w, "entity");
  if (r->entity >= 0)
    ddbst__jw_str(&w, pg->m->entities[r->entity].name);
  else
    ddbst__jw_null(&w);
  json_image(&w, pg, r->keys, "keys", NULL);
  json_image(&w, pg, r->new_image, "new", "newUndeclared");
  json_image(&w, pg, r->old_image, "old", "oldUndeclared");
  if (r->event == DDBST_STREAM_REMOVE && r->by_ttl) {
    ddbst__jw_key(&w, "removedByTtl");
    ddbst__jw_bool(&w, 1);
  }
  ddbst__jw_close(&w, '}');
  if (w.rc) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}

int ddbst_stream_failures_json(const ddbst_stream *s, const int32_t *failed,
                               size_t nfailed, ddbst_buf *out,
                               ddbst_error *err) {
  if (out) ddbst_buf_reset(out); /* builders replace */
  if (!s || !out || (!failed && nfailed))
    return ddbst__fail(err, DDBST_EINVAL, NULL,
                       "stream, buffer or failed is NULL");
  int count = s->page.count;
  for (size_t k = 0; k < nfailed; k++)
    if (failed[k] < 0 || failed[k] >= count) {
      char path[48];
      snprintf(path, sizeof path, "failed[%zu]", k);
      return ddbst__fail(err, DDBST_EINVAL, path,
                         "record %d of %d does not exist", (int)failed[k],
                         count);
    }
  /* which records failed, as bits: on the stack for any batch Lambda
   * delivers (at most 10,000 records) */
  unsigned char local[1280];
  unsigned char *bits = local;
  size_t nbytes = ((size_t)count + 7) / 8;
  const ddbst_allocator *a = &s->page.m->alloc;
  if (nbytes > sizeof local && !(bits = ddbst__malloc(a, nbytes)))
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  memset(bits, 0, nbytes);
  for (size_t k = 0; k < nfailed; k++)
    bits[failed[k] / 8] |= (unsigned char)(1u << (failed[k] % 8));
  size_t start = out->len;
  ddbst__jw w;
  ddbst__jw_init(&w, out);
  ddbst__jw_open(&w, '{');
  ddbst__jw_key(&w, "batchItemFailures");
  ddbst__jw_open(&w, '[');
  for (int i = 0; i < count; i++) {
    if (!(bits[i / 8] & (1u << (i % 8)))) continue;
    const ddbst__precord *r = &s->page.records[i];
    ddbst__jw_open(&w, '{');
    ddbst__jw_key(&w, "itemIdentifier");
    ddbst__jw_strn(&w, ddbst__page_text(&s->page, r->seq), r->seq_len);
    ddbst__jw_close(&w, '}');
  }
  ddbst__jw_close(&w, ']');
  ddbst__jw_close(&w, '}');
  int rc = w.rc;
  if (bits != local) ddbst__free(a, bits);
  if (rc) {
    ddbst__buf_truncate(out, start);
    return ddbst__fail(err, DDBST_ENOMEM, NULL, "out of memory");
  }
  return 0;
}
