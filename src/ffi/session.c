/* The JSON entry: one request object in, one answer object out, for callers
 * that reach ddbst through an FFI (and for the `ddbst` command). This file
 * holds the session (open, close), the call (parse, dispatch by op, the
 * error answer) and the answers' memory; each op is a thin mapping onto the
 * typed API, in the ffi/..._ops.c files. docs/ffi.md is the reference for
 * requests and answers. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "base/suggest.h"
#include "ffi/ffi.h"
#include "item/item.h"
#include "request/held.h"
#include "response/page.h"

/* What one call leaves for the next: its answer's and its builders'
 * buffers (emptied), an item, a page, a transaction, a batch, a stream
 * reader, the request's arena (rewound: expressions are compiled into it
 * too, with the two buffers they work in) and its parse's arrays, so that
 * a warm call allocates nothing but its answer. */
typedef struct scratch {
  ddbst_buf out, tmp, xtmp, xwork;
  ddbst_item *item;
  ddbst_page *page;
  ddbst_txn *txn;
  ddbst_batch *batch;
  ddbst_stream *stream;
  ddbst__arena ar;
  ddbst__jtree_kept tree;
} scratch;

/* Memory past this is freed, not kept (per buffer, for the parse's arrays
 * and its reader's blocks, for each array of a page): one big request or
 * answer (a page of 1 MB) would otherwise hold its memory for the
 * session's life. */
#define SCRATCH_KEEP (64u * 1024u)

/* The arena keeps more: it holds the request's strings, and a stream op's
 * event is one string (115 KB for 100 records with both images, which the
 * stream reader then reads a slice at a time within SCRATCH_KEEP,
 * stream_slices.c). The tree unescapes such a string straight into the
 * arena (json/tree.c), so the arena's copy is the only one. After such an
 * event a session holds less past its warm size than the 320 KiB
 * test_ffi_scratch allows after any request. */
#define TEXT_KEEP (128u * 1024u)

struct ddbst_json {
  ddbst_allocator alloc;
  ddbst_model *model;
  ddbst_cursor_keys *keys; /* NULL: none configured */
  /* one spare scratch; a call takes it whole (atomically) or makes its own,
   * so threads calling one session never share one */
  _Atomic(scratch *) spare;
};

/* Frees the memory a call holds (its scratch's, moved into it). */
static void call_release(call *c) {
  ddbst__buf_release(&c->out);
  ddbst__buf_release(&c->tmp);
  ddbst__buf_release(&c->xtmp);
  ddbst__buf_release(&c->xwork);
  ddbst_item_free(c->spare);
  ddbst_page_free(c->spare_page);
  ddbst_txn_free(c->spare_txn);
  ddbst_batch_free(c->spare_batch);
  ddbst_stream_free(c->spare_stream);
  ddbst__arena_free(&c->ar);
  ddbst__jtree_kept_release(&c->tree, c->alloc);
}

static void scratch_free(scratch *sc, const ddbst_allocator *a) {
  if (!sc) return;
  ddbst__buf_release(&sc->out);
  ddbst__buf_release(&sc->tmp);
  ddbst__buf_release(&sc->xtmp);
  ddbst__buf_release(&sc->xwork);
  ddbst_item_free(sc->item);
  ddbst_page_free(sc->page);
  ddbst_txn_free(sc->txn);
  ddbst_batch_free(sc->batch);
  ddbst_stream_free(sc->stream);
  ddbst__arena_free(&sc->ar);
  ddbst__jtree_kept_release(&sc->tree, a);
  ddbst__free(a, sc);
}

/* A call's memory: the spare scratch's when there is one. */
static scratch *scratch_take(ddbst_json *s, call *c) {
  scratch *sc = atomic_exchange(&s->spare, NULL);
  if (sc) {
    c->out = sc->out;
    c->tmp = sc->tmp;
    c->xtmp = sc->xtmp;
    c->xwork = sc->xwork;
    c->spare = sc->item;
    c->spare_page = sc->page;
    c->spare_txn = sc->txn;
    c->spare_batch = sc->batch;
    c->spare_stream = sc->stream;
    c->ar = sc->ar;
    c->tree = sc->tree;
  } else {
    ddbst__buf_init(&c->out, c->alloc);
    ddbst__buf_init(&c->tmp, c->alloc);
    ddbst__buf_init(&c->xtmp, c->alloc);
    ddbst__buf_init(&c->xwork, c->alloc);
    ddbst__arena_init(&c->ar, c->alloc);
    memset(&c->tree, 0, sizeof c->tree);
  }
  return sc;
}

/* An item that holds a huge value's text is freed, not kept, for the same
 * reason as a huge buffer. */
static ddbst_item *item_kept(ddbst_item *it) {
  if (it && (it->text.cap > SCRATCH_KEEP || it->keytext.cap > SCRATCH_KEEP ||
             it->ptext.cap > SCRATCH_KEEP || it->pvals.cap > SCRATCH_KEEP)) {
    ddbst_item_free(it);
    return NULL;
  }
  return it;
}

/* Likewise a page that parsed a huge answer (into any of its arrays); a
 * page kept gives back its parser's blocks past the cap. */
static int page_fits(ddbst_page *pg, const ddbst_allocator *a) {
  if (pg->text.cap > SCRATCH_KEEP || pg->plain.cap > SCRATCH_KEEP ||
      pg->q_part.cap > SCRATCH_KEEP ||
      pg->cap_attrs * sizeof *pg->attrs > SCRATCH_KEEP ||
      pg->cap_items * sizeof *pg->items > SCRATCH_KEEP ||
      pg->cap_groups * sizeof *pg->groups > SCRATCH_KEEP ||
      pg->cap_spans * sizeof *pg->spans > SCRATCH_KEEP ||
      pg->cap_reasons * sizeof *pg->reasons > SCRATCH_KEEP ||
      pg->cap_records * sizeof *pg->records > SCRATCH_KEEP)
    return 0;
  ddbst__json_cache_trim(&pg->parser_blocks, a, SCRATCH_KEEP);
  return 1;
}

static ddbst_page *page_kept(ddbst_page *pg, const ddbst_allocator *a) {
  if (pg && !page_fits(pg, a)) {
    ddbst_page_free(pg);
    return NULL;
  }
  return pg;
}

/* A stream reader is a page. */
static ddbst_stream *stream_kept(ddbst_stream *s, const ddbst_allocator *a) {
  if (s && !page_fits(ddbst__stream_page(s), a)) {
    ddbst_stream_free(s);
    return NULL;
  }
  return s;
}

static ddbst_txn *txn_kept(ddbst_txn *t) {
  if (t && ddbst__txn_held(t) > SCRATCH_KEEP) {
    ddbst_txn_free(t);
    return NULL;
  }
  return t;
}

static ddbst_batch *batch_kept(ddbst_batch *b) {
  if (b && ddbst__batch_held(b) > SCRATCH_KEEP) {
    ddbst_batch_free(b);
    return NULL;
  }
  return b;
}

static void keep_or_release(ddbst_buf *b, const ddbst_allocator *a) {
  if (b->cap > SCRATCH_KEEP) {
    ddbst__buf_release(b);
    ddbst__buf_init(b, a);
  }
  ddbst_buf_reset(b);
}

/* Gives the call's memory back as the session's spare (or frees it when
 * another call gave its own back first, or when there is no memory for
 * the scratch itself). */
static void scratch_give(ddbst_json *s, call *c, scratch *sc) {
  if (!sc) sc = ddbst__malloc(c->alloc, sizeof *sc);
  if (!sc) {
    call_release(c);
    return;
  }
  keep_or_release(&c->out, c->alloc);
  keep_or_release(&c->tmp, c->alloc);
  keep_or_release(&c->xtmp, c->alloc);
  keep_or_release(&c->xwork, c->alloc);
  ddbst__arena_rewind(&c->ar, TEXT_KEEP);
  ddbst__jtree_kept_trim(&c->tree, c->alloc, SCRATCH_KEEP);
  sc->out = c->out;
  sc->tmp = c->tmp;
  sc->xtmp = c->xtmp;
  sc->xwork = c->xwork;
  sc->item = item_kept(c->spare);
  sc->page = page_kept(c->spare_page, c->alloc);
  sc->txn = txn_kept(c->spare_txn);
  sc->batch = batch_kept(c->spare_batch);
  sc->stream = stream_kept(c->spare_stream, c->alloc);
  sc->ar = c->ar;
  sc->tree = c->tree;
  scratch *none = NULL;
  if (!atomic_compare_exchange_strong(&s->spare, &none, sc))
    scratch_free(sc, c->alloc);
}

/* What a prepared operation (prepared.c) takes from its session. */
const ddbst_allocator *ddbst__json_alloc(const ddbst_json *s) {
  return &s->alloc;
}
const ddbst_model *ddbst__json_model(const ddbst_json *s) { return s->model; }
const ddbst_cursor_keys *ddbst__json_keys(const ddbst_json *s) {
  return s->keys;
}

/* Answers carry the allocator that made them in a header, so that
 * ddbst_json_free needs nothing but the pointer. */
typedef struct answer_header {
  ddbst_allocator alloc;
  size_t len;
} answer_header;

#define HEADER_SIZE                                                           \
  ((sizeof(answer_header) + sizeof(max_align_t) - 1) / sizeof(max_align_t) *  \
   sizeof(max_align_t))

/* When even an answer cannot be allocated: static, never freed. */
static char nomem_answer[] =
    "{\"error\":{\"code\":-2,\"name\":\"ENOMEM\",\"path\":\"\",\"message\":"
    "\"out of memory\"}}";
static char nosession_answer[] =
    "{\"error\":{\"code\":-1,\"name\":\"EINVAL\",\"path\":\"session\","
    "\"message\":\"no session: open one with ddbst_json_open\"}}";

/* ---- answers ---- */

static char *finish(const ddbst_allocator *a, const ddbst_buf *b,
                    size_t *len) {
  char *mem = ddbst__malloc(a, HEADER_SIZE + b->len + 1);
  if (!mem) {
    if (len) *len = sizeof nomem_answer - 1;
    return nomem_answer;
  }
  answer_header h;
  h.alloc = *a;
  h.len = b->len;
  memcpy(mem, &h, sizeof h);
  memcpy(mem + HEADER_SIZE, b->data, b->len);
  mem[HEADER_SIZE + b->len] = '\0';
  if (len) *len = b->len;
  return mem + HEADER_SIZE;
}

void ddbst_json_free(char *answer) {
  if (!answer || answer == nomem_answer || answer == nosession_answer) return;
  char *mem = answer - HEADER_SIZE;
  answer_header h;
  memcpy(&h, mem, sizeof h);
  ddbst__free(&h.alloc, mem);
}

/* ---- the entry ---- */

/* {"error":{...}} alone in c->out, or nothing when even that fails. */
static void put_error_answer(call *c) {
  ddbst__ffi_name_previous(&c->err, 0);
  ddbst_buf_reset(&c->out);
  ddbst__jw_init(&c->w, &c->out);
  ddbst__jw_open(&c->w, '{');
  ddbst__jw_key(&c->w, "error");
  ddbst__ffi_put_error(&c->w, &c->err);
  ddbst__jw_close(&c->w, '}');
  if (c->w.rc) ddbst_buf_reset(&c->out);
}

static int dispatch(call *c, const ddbst__jnode *req) {
  static const struct {
    const char *name;
    int (*run)(call *, const ddbst__jnode *);
  } ops[] = {
      {"check", ddbst__ffi_op_check},
      {"patterns", ddbst__ffi_op_patterns},
      {"createTable", ddbst__ffi_op_create_table},
      {"describeTable", ddbst__ffi_op_table},
      {"deleteTable", ddbst__ffi_op_table},
      {"updateTable", ddbst__ffi_op_table},
      {"updateContinuousBackups", ddbst__ffi_op_table},
      {"updateContributorInsights", ddbst__ffi_op_table},
      {"updateTimeToLive", ddbst__ffi_op_table},
      {"cloudformation", ddbst__ffi_op_cloudformation},
      {"lint", ddbst__ffi_op_lint},
      {"diff", ddbst__ffi_op_diff},
      {"migratePlan", ddbst__ffi_op_migrate_plan},
      {"migrateStep", ddbst__ffi_op_migrate_step},
      {"migrateVerify", ddbst__ffi_op_migrate_verify},
      {"migrateWrite", ddbst__ffi_op_migrate_write},
      {"doc", ddbst__ffi_op_doc},
      {"keys", ddbst__ffi_op_keys},
      {"itemSize", ddbst__ffi_op_item_size},
      {"parse", ddbst__ffi_op_parse},
      {"query", ddbst__ffi_op_query},
      {"scan", ddbst__ffi_op_scan},
      {"scanPage", ddbst__ffi_op_scan_page},
      {"guards", ddbst__ffi_op_guards},
      {"transact", ddbst__ffi_op_transact},
      {"page", ddbst__ffi_op_page},
      {"hydrate", ddbst__ffi_op_hydrate},
      {"explain", ddbst__ffi_op_explain},
      {"stream", ddbst__ffi_op_stream},
      {"version", ddbst__ffi_op_version},
      {"view", ddbst__ffi_op_view},
      {"viewData", ddbst__ffi_op_view_data},
  };
  if (req->type != DDBST__J_OBJECT)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "", "expected a request object");
  const char *op;
  if (ddbst__ffi_get_string(c, req, "op", 1, &op, NULL)) return c->err.code;
  int k = ddbst__ffi_item_kind_of(op);
  if (k >= 0) return ddbst__ffi_op_item(c, req, (item_kind)k, op);
  if (!strcmp(op, "batchGet")) return ddbst__ffi_op_batch(c, req, 1);
  if (!strcmp(op, "batchWrite")) return ddbst__ffi_op_batch(c, req, 0);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i].name)) return ops[i].run(c, req);
  static const char *const others[] = {"get",    "put",      "create",
                                       "update", "delete",   "batchGet",
                                       "batchWrite"};
  ddbst__suggest s;
  ddbst__suggest_init(&s, op);
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    ddbst__suggest_offer(&s, others[i]);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    ddbst__suggest_offer(&s, ops[i].name);
  char tail[300];
  return ddbst__ffi_fail(
      c, DDBST_EINVAL, "op", "unknown op %s (docs/ffi.md lists them)%s", op,
      ddbst__suggest_tail(ddbst__suggest_best(&s), tail, sizeof tail));
}

char *ddbst_json_call(const ddbst_json *session, const char *request,
                      size_t len, size_t *answer_len) {
  len = ddbst__len(request, len);
  if (!session) {
    if (answer_len) *answer_len = sizeof nosession_answer - 1;
    return nosession_answer;
  }
  call c;
  memset(&c, 0, sizeof c);
  c.alloc = &session->alloc;
  c.m = session->model;
  c.keys = session->keys;
  /* the session is read-only but for its spare scratch */
  ddbst_json *mutable_session = (ddbst_json *)session;
  scratch *sc = scratch_take(mutable_session, &c);
  ddbst__jw_init(&c.w, &c.out);
  ddbst__jnode *req;
  int rc = request
               ? ddbst__jtree_parse_kept(&c.ar, &c.tree, request, len, &req,
                                         &c.err)
               : ddbst__ffi_fail(&c, DDBST_EINVAL, "", "no request");
  rc = rc ? rc : dispatch(&c, req);
  if (rc == 0 && c.out.len == 0)
    rc = ddbst__ffi_fail(&c, DDBST_EINVAL, "",
                         "no answer was written (a bug in ddbst)");
  if (rc < 0) {
    /* nothing half-written: the answer is the error alone */
    ddbst_buf_reset(&c.out);
    if (c.err.code != rc) ddbst__fail(&c.err, rc, "", NULL);
    put_error_answer(&c);
  }
  char *answer = c.out.len ? finish(c.alloc, &c.out, answer_len) : NULL;
  if (!answer) {
    if (answer_len) *answer_len = sizeof nomem_answer - 1;
    answer = nomem_answer;
  }
  scratch_give(mutable_session, &c, sc);
  return answer;
}

/* ---- sessions ---- */

/* Every error of a model load, as the elements of an array. */
typedef struct load_errors {
  ddbst__jw w;
  int n;
} load_errors;

static void on_load_error(void *user, const ddbst_error *e) {
  load_errors *le = user;
  le->n++;
  ddbst__ffi_put_error(&le->w, e);
}

/* The session described by `cfg`; every model error is listed in
 * c->out ("errors") as well as c->err (the first). */
static int open_session(call *c, const ddbst__jnode *cfg, ddbst_json *s) {
  static const char *const f[] = {"model",      "modelFile",    "table",
                                  "cursorKeys", "cursorMaxAge", NULL};
  if (cfg->type != DDBST__J_OBJECT)
    return ddbst__ffi_fail(c, DDBST_EINVAL, "",
                           "expected a configuration object");
  if (ddbst__ffi_only(c, cfg, "a session", f)) return c->err.code;
  const char *text, *file, *table, *hex;
  size_t text_len;
  int given;
  int64_t max_age = 0;
  if (ddbst__ffi_get_string(c, cfg, "model", 0, &text, &text_len) ||
      ddbst__ffi_get_string(c, cfg, "modelFile", 0, &file, NULL) ||
      ddbst__ffi_get_string(c, cfg, "table", 0, &table, NULL) ||
      ddbst__ffi_get_string(c, cfg, "cursorKeys", 0, &hex, NULL) ||
      ddbst__ffi_get_int(c, cfg, "cursorMaxAge", 0, INT64_MAX, &given,
                         &max_age))
    return c->err.code;
  if (!text == !file)
    return ddbst__ffi_fail(c, DDBST_EINVAL, text ? "modelFile" : "model",
                           "give the model as \"model\" (its JSON text) or as "
                           "\"modelFile\" (a path), one of the two");
  ddbst_buf errors;
  ddbst__buf_init(&errors, c->alloc);
  load_errors le;
  ddbst__jw_init(&le.w, &errors);
  ddbst__jw_open(&le.w, '[');
  le.n = 0;
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.table_name = table;
  o.allocator = c->alloc;
  o.on_error = on_load_error;
  o.on_error_user = &le;
  int rc = text ? ddbst_model_load(text, text_len, &o, &s->model, &c->err)
                : ddbst_model_load_file(file, &o, &s->model, &c->err);
  ddbst__jw_close(&le.w, ']');
  if (rc && !le.w.rc && le.n) {
    /* {"error":<first>,"errors":[<every one>]} */
    ddbst__jw *w = &c->w;
    ddbst__jw_open(w, '{');
    ddbst__jw_key(w, "error");
    ddbst__ffi_put_error(w, &c->err);
    ddbst__jw_key(w, "errors");
    ddbst__jw_json(w, errors.data, errors.len);
    ddbst__jw_close(w, '}');
    if (w->rc) ddbst_buf_reset(&c->out);
  }
  ddbst__buf_release(&errors);
  if (rc) return rc;
  if (hex) {
    s->keys = ddbst_cursor_keys_new(c->alloc);
    if (!s->keys) return ddbst__ffi_fail(c, DDBST_ENOMEM, "", NULL);
    int bad = ddbst_cursor_keys_add_hex(s->keys, hex, &c->err);
    /* the parsed copy of the keys is ours to wipe (the caller's text is
     * the caller's) */
    sodium_memzero((char *)hex, strlen(hex));
    if (bad) {
      /* the typed API's cursor_keys is this configuration's cursorKeys */
      snprintf(c->err.path, sizeof c->err.path, "cursorKeys");
      return c->err.code;
    }
    ddbst_cursor_keys_set_max_age(s->keys, max_age);
  } else if (given) {
    return ddbst__ffi_fail(c, DDBST_EINVAL, "cursorMaxAge",
                           "a maximum age needs cursorKeys");
  }
  return 0;
}

void ddbst_json_close(ddbst_json *session) {
  if (!session) return;
  ddbst_allocator a = session->alloc;
  scratch_free(atomic_load(&session->spare), &a);
  ddbst_cursor_keys_free(session->keys);
  ddbst_model_free(session->model);
  ddbst__free(&a, session);
}

ddbst_json *ddbst_json_open(const char *config, size_t len,
                            const ddbst_allocator *alloc, char **error) {
  if (error) *error = NULL;
  len = ddbst__len(config, len);
  call c;
  memset(&c, 0, sizeof c);
  ddbst_allocator a;
  ddbst__alloc_init(&a, alloc);
  c.alloc = &a;
  ddbst__arena_init(&c.ar, c.alloc);
  ddbst__buf_init(&c.out, c.alloc);
  ddbst__jw_init(&c.w, &c.out);
  ddbst_json *s = ddbst__malloc(&a, sizeof *s);
  ddbst__jnode *cfg;
  int rc = s ? 0 : ddbst__ffi_fail(&c, DDBST_ENOMEM, "", NULL);
  if (s) {
    memset(s, 0, sizeof *s);
    atomic_init(&s->spare, NULL);
    s->alloc = a;
  }
  rc = rc       ? rc
       : config ? ddbst__jtree_parse(&c.ar, config, len, &cfg, &c.err)
                : ddbst__ffi_fail(&c, DDBST_EINVAL, "", "no configuration");
  rc = rc ? rc : open_session(&c, cfg, s);
  if (rc) {
    ddbst_json_close(s);
    s = NULL;
    if (error) {
      if (!c.out.len) put_error_answer(&c);
      *error = c.out.len ? finish(c.alloc, &c.out, NULL) : nomem_answer;
    }
  }
  ddbst__buf_release(&c.out);
  ddbst__arena_free(&c.ar);
  return s;
}
