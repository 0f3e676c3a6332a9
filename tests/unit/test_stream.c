/* DynamoDB Streams events: records captured from DynamoDB Local's stream of
 * the SaaS table (tests/data/responses/local-stream-event.json, see
 * capture.sh) and events written from Lambda's documentation. Entities and
 * images, guard items kept as no entity's, records as JSON, the
 * batchItemFailures answer, malformed events, memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "support.h"

static ddbst_model *saas;
static ddbst_stream *stream;
static ddbst_buf *out;

static int setup(void **state) {
  (void)state;
  saas = load_example("examples/saas/model.json");
  stream = ddbst_stream_new(saas);
  out = ddbst_buf_new(NULL);
  return stream && out ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  ddbst_buf_free(out);
  ddbst_stream_free(stream);
  ddbst_model_free(saas);
  return 0;
}

static int entity(const char *name) {
  int e = ddbst_model_entity(saas, name);
  if (e < 0) fail_msg("no entity %s", name);
  return e;
}

static const char *val(const ddbst_item *it, const char *name) {
  int a = ddbst_model_attribute(saas, ddbst_item_entity(it), name);
  if (a < 0) fail_msg("no attribute %s", name);
  const char *text = NULL;
  size_t len;
  return ddbst_item_get(it, a, &text, &len) == 1 ? text : NULL;
}

static const char *record_json(int i) {
  ddbst_buf_reset(out);
  ddbst_error err;
  if (ddbst_stream_record_json(stream, i, out, &err))
    fail_msg("record %d: %s", i, err.message);
  return ddbst_buf_data(out);
}

static void parse_local(void) {
  size_t n;
  char *b = read_response("local-stream-event.json", &n);
  ddbst_error err;
  int rc = ddbst_stream_parse(stream, b, n, &err);
  if (rc != 11) fail_msg("%d %s: %s", rc, err.path, err.message);
  free(b);
}

static void records_of_a_table(void **state) {
  (void)state;
  parse_local();
  assert_int_equal(ddbst_stream_count(stream), 11);
  static const struct {
    int event;
    const char *entity; /* NULL: no entity's */
    const char *seq;
  } want[] = {
      {DDBST_STREAM_INSERT, "Organisation", "000000000000000000001"},
      {DDBST_STREAM_INSERT, "User", "000000000000000000002"},
      {DDBST_STREAM_INSERT, NULL, "000000000000000000003"},
      {DDBST_STREAM_INSERT, "User", "000000000000000000004"},
      {DDBST_STREAM_INSERT, NULL, "000000000000000000005"},
      {DDBST_STREAM_INSERT, "Project", "000000000000000000006"},
      {DDBST_STREAM_INSERT, "Project", "000000000000000000007"},
      {DDBST_STREAM_INSERT, "Event", "000000000000000000008"},
      {DDBST_STREAM_INSERT, "Organisation", "000000000000000000009"},
      {DDBST_STREAM_MODIFY, "User", "000000000000000000012"},
      {DDBST_STREAM_REMOVE, "Project", "000000000000000000013"},
  };
  for (int i = 0; i < 11; i++) {
    assert_int_equal(ddbst_stream_event(stream, i), want[i].event);
    assert_int_equal(ddbst_stream_entity(stream, i),
                     want[i].entity ? entity(want[i].entity) : DDBST_ENOTFOUND);
    assert_string_equal(ddbst_stream_sequence_number(stream, i), want[i].seq);
    assert_int_equal(ddbst_stream_by_ttl(stream, i), 0);
  }
  assert_int_equal(ddbst_stream_event(stream, 11), DDBST_EINVAL);
  assert_int_equal(ddbst_stream_entity(stream, -1), DDBST_EINVAL);
  assert_null(ddbst_stream_sequence_number(stream, 11));

  /* a MODIFY: both images, and the key's facets */
  ddbst_item *it = ddbst_item_new(saas, 0);
  ddbst_error err;
  assert_int_equal(ddbst_stream_image(stream, 9, DDBST_IMAGE_NEW, it, &err),
                   entity("User"));
  assert_string_equal(val(it, "role"), "admin");
  assert_string_equal(val(it, "email"), "bob@x.com");
  assert_int_equal(ddbst_stream_image(stream, 9, DDBST_IMAGE_OLD, it, &err),
                   entity("User"));
  assert_string_equal(val(it, "role"), "member");
  assert_int_equal(ddbst_stream_image(stream, 9, DDBST_IMAGE_KEYS, it, &err),
                   entity("User"));
  assert_string_equal(val(it, "orgId"), "1");
  assert_string_equal(val(it, "userId"), "3");
  assert_null(val(it, "role"));
  assert_string_equal(
      record_json(9),
      "{\"eventName\":\"MODIFY\",\"sequenceNumber\":\"000000000000000000012\","
      "\"eventID\":\"local-000000000000000000012\",\"entity\":\"User\","
      "\"keys\":{\"orgId\":\"1\",\"userId\":\"3\"},\"new\":{\"orgId\":\"1\","
      "\"userId\":\"3\",\"email\":\"bob@x.com\",\"role\":\"admin\",\"name\":"
      "\"Bob\"},\"old\":{\"orgId\":\"1\",\"userId\":\"3\",\"email\":\"bob@x."
      "com\",\"role\":\"member\",\"name\":\"Bob\"}}");

  /* a REMOVE has no new image */
  assert_int_equal(ddbst_stream_image(stream, 10, DDBST_IMAGE_NEW, it, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Records[10].dynamodb.NewImage");
  assert_int_equal(ddbst_stream_image(stream, 10, DDBST_IMAGE_OLD, it, &err),
                   entity("Project"));
  assert_string_equal(val(it, "createdAt"), "2026-02-01T12:30:00Z");
  assert_string_equal(
      record_json(10),
      "{\"eventName\":\"REMOVE\",\"sequenceNumber\":\"000000000000000000013\","
      "\"eventID\":\"local-000000000000000000013\",\"entity\":"
      "\"Project\",\"keys\":{\"orgId\":\"1\",\"projectId\":\"p2\",\"createdAt\":"
      "\"2026-02-01T12:30:00Z\"},\"old\":{\"orgId\":\"1\",\"projectId\":\"p2\","
      "\"createdAt\":\"2026-02-01T12:30:00Z\",\"name\":\"Beta\",\"status\":"
      "\"archived\"}}");

  /* a unique guard is no entity's item: kept, and shown as stored */
  assert_int_equal(ddbst_stream_image(stream, 2, DDBST_IMAGE_NEW, it, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Records[2].dynamodb.NewImage");
  assert_string_equal(
      record_json(2),
      "{\"eventName\":\"INSERT\",\"sequenceNumber\":\"000000000000000000003\","
      "\"eventID\":\"local-000000000000000000003\",\"entity\":null,"
      "\"keys\":{\"SK\":\"EMAIL#ann@x.com\",\"PK\":\"EMAIL#ann@x.com\"},"
      "\"new\":{\"SK\":\"EMAIL#ann@x.com\",\"_type\":\"User.email\",\"PK\":"
      "\"EMAIL#ann@x.com\"}}");

  /* the event's document, typed */
  assert_int_equal(ddbst_stream_image(stream, 7, DDBST_IMAGE_NEW, it, &err),
                   entity("Event"));
  assert_string_equal(val(it, "expiresAt"), "1800000000");
  assert_non_null(strstr(val(it, "payload"), "\"tags\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"}]}"));

  /* bad arguments */
  assert_int_equal(ddbst_stream_image(stream, 11, DDBST_IMAGE_NEW, it, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_stream_image(stream, 0, 7, it, &err), DDBST_EINVAL);
  assert_int_equal(ddbst_stream_image(stream, 0, DDBST_IMAGE_NEW, NULL, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_stream_record_json(stream, 11, out, &err), DDBST_EINVAL);
  ddbst_item_free(it);
}

/* Lambda's own form: eventSourceARN, a float creation time, userIdentity for
 * a TTL removal (or null), a KEYS_ONLY record, a tumbling window's fields. */
static const char lambda_event[] =
    "{\"Records\":[\n"
    " {\"eventID\":\"1\",\"eventVersion\":\"1.1\",\"eventSource\":"
    "\"aws:dynamodb\",\"awsRegion\":\"us-west-2\",\"eventName\":\"REMOVE\",\n"
    "  \"userIdentity\":{\"type\":\"Service\",\"principalId\":"
    "\"dynamodb.amazonaws.com\"},\n"
    "  \"dynamodb\":{\"ApproximateCreationDateTime\":1693997155.0,\n"
    "   \"Keys\":{\"PK\":{\"S\":\"PROJECT#p1\"},\"SK\":{\"S\":\"EVENT#2026-03-"
    "14T09:00:00Z#01J0000000000000000000000A\"}},\n"
    "   \"OldImage\":{\"PK\":{\"S\":\"PROJECT#p1\"},\"SK\":{\"S\":\"EVENT#2026-"
    "03-14T09:00:00Z#01J0000000000000000000000A\"},\"_type\":{\"S\":\"Event\"},"
    "\"projectId\":{\"S\":\"p1\"},\"ts\":{\"S\":\"2026-03-14T09:00:00Z\"},"
    "\"eventId\":{\"S\":\"01J0000000000000000000000A\"},\"type\":{\"S\":"
    "\"deploy\"},\"expiresAt\":{\"N\":\"1773478800\"},\"traceId\":{\"S\":"
    "\"t-1\"}},\n"
    "   \"SequenceNumber\":\"1100000000000136137170\",\"SizeBytes\":180,"
    "\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"},\n"
    "  \"eventSourceARN\":\"arn:aws:dynamodb:us-west-2:123456789012:table/"
    "saas-api-dev/stream/2026-03-14T09:00:00.000\"},\n"
    " {\"eventID\":\"2\",\"eventName\":\"INSERT\",\"userIdentity\":null,\n"
    "  \"dynamodb\":{\"Keys\":{\"PK\":{\"S\":\"ORG#5\"},\"SK\":{\"S\":\"USER#"
    "6\"}},\"SequenceNumber\":\"1200000000000136158523\",\"SizeBytes\":30,"
    "\"StreamViewType\":\"KEYS_ONLY\"}}\n"
    "],\"window\":{\"start\":\"2026-03-14T09:00:00Z\",\"end\":\"2026-03-14T09:"
    "15:00Z\"},\"state\":{},\"shardId\":\"shardId-1\",\"eventSourceARN\":"
    "\"arn:x\",\"isFinalInvokeForWindow\":false,\"isWindowTerminatedEarly\":"
    "false}";

static void lambda_events(void **state) {
  (void)state;
  ddbst_error err;
  assert_int_equal(
      ddbst_stream_parse(stream, lambda_event, strlen(lambda_event), &err), 2);
  assert_int_equal(ddbst_stream_event(stream, 0), DDBST_STREAM_REMOVE);
  assert_int_equal(ddbst_stream_by_ttl(stream, 0), 1);
  assert_int_equal(ddbst_stream_by_ttl(stream, 1), 0);
  assert_int_equal(ddbst_stream_entity(stream, 0), entity("Event"));
  assert_string_equal(
      record_json(0),
      "{\"eventName\":\"REMOVE\",\"sequenceNumber\":\"1100000000000136137170\","
      "\"eventID\":\"1\",\"entity\":\"Event\",\"keys\":{\"projectId\":\"p1\","
      "\"ts\":\"2026-03-14T09:00:00Z\",\"eventId\":\"01J0000000000000000000000"
      "A\"},\"old\":{\"projectId\":\"p1\",\"ts\":\"2026-03-14T09:00:00Z\","
      "\"eventId\":\"01J0000000000000000000000A\",\"type\":\"deploy\","
      "\"expiresAt\":1773478800},\"oldUndeclared\":{\"traceId\":\"t-1\"},"
      "\"removedByTtl\":true}");
  /* KEYS_ONLY: the entity from the key, no images */
  assert_int_equal(ddbst_stream_entity(stream, 1), entity("User"));
  assert_string_equal(record_json(1),
                      "{\"eventName\":\"INSERT\",\"sequenceNumber\":"
                      "\"1200000000000136158523\",\"eventID\":\"2\",\"entity\":"
                      "\"User\",\"keys\":{\"orgId\":\"5\",\"userId\":\"6\"}}");
  ddbst_item *it = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_stream_image(stream, 1, DDBST_IMAGE_NEW, it, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(err.path, "Records[1].dynamodb.NewImage");
  assert_non_null(strstr(err.message, "StreamViewType"));
  assert_int_equal(ddbst_stream_image(stream, 1, DDBST_IMAGE_KEYS, it, &err),
                   entity("User"));
  assert_string_equal(val(it, "userId"), "6");
  ddbst_item_free(it);

  /* an empty batch */
  assert_int_equal(ddbst_stream_parse(stream, "{\"Records\":[]}", 14, &err), 0);
  assert_int_equal(ddbst_stream_count(stream), 0);
}

static void batch_item_failures(void **state) {
  (void)state;
  parse_local();
  ddbst_error err;
  /* any order, repeats ignored: in stream order */
  const int32_t failed[] = {3, 1, 3};
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_stream_failures_json(stream, failed, 3, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out),
                      "{\"batchItemFailures\":[{\"itemIdentifier\":"
                      "\"000000000000000000002\"},{\"itemIdentifier\":"
                      "\"000000000000000000004\"}]}");
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_stream_failures_json(stream, NULL, 0, out, &err), 0);
  assert_string_equal(ddbst_buf_data(out), "{\"batchItemFailures\":[]}");
  const int32_t bad[] = {0, 11};
  ddbst_buf_reset(out);
  assert_int_equal(ddbst_stream_failures_json(stream, bad, 2, out, &err),
                   DDBST_EINVAL);
  assert_string_equal(err.path, "failed[1]");
  assert_int_equal(ddbst_buf_len(out), 0);
  assert_int_equal(ddbst_stream_failures_json(stream, NULL, 1, out, &err),
                   DDBST_EINVAL);
  assert_int_equal(ddbst_stream_failures_json(NULL, failed, 1, out, &err),
                   DDBST_EINVAL);
}

typedef struct bad {
  const char *json;
  int code;
  const char *path;
  const char *message;
} bad;

static const bad bads[] = {
    {"{\"Records\":{}}", DDBST_EVALUE, "Records", "expected a list of records"},
    {"{}", DDBST_EVALUE, "Records", "missing"},
    {"{\"__type\":\"x#ValidationException\",\"message\":\"no\"}", DDBST_EVALUE,
     "Records", "missing"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"PK\":{"
     "\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}}}}]}",
     DDBST_EVALUE, "Records[0].dynamodb.SequenceNumber", "missing"},
    {"{\"Records\":[{\"dynamodb\":{\"Keys\":{},\"SequenceNumber\":\"1\"}}]}",
     DDBST_EVALUE, "Records[0].eventName", "missing"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"SequenceNumber\":"
     "\"1\"}}]}",
     DDBST_EVALUE, "Records[0].dynamodb.Keys", "missing"},
    {"{\"Records\":[{\"eventName\":\"UPSERT\"}]}", DDBST_EVALUE,
     "Records[0].eventName", "INSERT, MODIFY or REMOVE"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"PK\":{"
     "\"S\":\"PROJECT#p1\"}},\"NewImage\":{\"expiresAt\":{\"N\":\"12a\"}},"
     "\"SequenceNumber\":\"1\"}}]}",
     DDBST_EVALUE, "Records[0].dynamodb.NewImage.expiresAt.N", "not a number"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{},"
     "\"SequenceNumber\":\"1\\u0000\"}}]}",
     DDBST_EVALUE, "Records[0].dynamodb.SequenceNumber", "NUL"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{},"
     "\"SequenceNumber\":1}}]}",
     DDBST_EVALUE, "Records[0].dynamodb.SequenceNumber", "expected a string"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"eventName\":\"MODIFY\"}]}",
     DDBST_EVALUE, "Records[0].eventName", "twice"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"userIdentity\":\"x\"}]}",
     DDBST_EVALUE, "Records[0].userIdentity", "expected an object"},
    {"{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"PK\":",
     DDBST_ESYNTAX, "", NULL},
};

static void malformed_events(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    const bad *b = &bads[i];
    ddbst_error err;
    memset(&err, 0, sizeof err);
    int rc = ddbst_stream_parse(stream, b->json, strlen(b->json), &err);
    if (rc != b->code || strcmp(err.path, b->path) ||
        (b->message && !strstr(err.message, b->message)))
      fail_msg("%s\n  got %d %s: %s\n  want %d %s: %s", b->json, rc, err.path,
               err.message, b->code, b->path, b->message ? b->message : "");
    assert_int_equal(ddbst_stream_count(stream), 0);
  }
  /* a value ddbst_item_set would refuse: refused when the image is read */
  static const char ev[] =
      "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"PK\":{"
      "\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-01-05T09:00:00Z#p1\"}},"
      "\"NewImage\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"PROJECT#2026-01-"
      "05T09:00:00Z#p1\"},\"_type\":{\"S\":\"Project\"},\"status\":{\"S\":"
      "\"gone\"}},\"SequenceNumber\":\"7\"}}]}";
  ddbst_error err;
  assert_int_equal(ddbst_stream_parse(stream, ev, strlen(ev), &err), 1);
  ddbst_item *it = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_stream_image(stream, 0, DDBST_IMAGE_NEW, it, &err),
                   DDBST_EVALUE);
  assert_string_equal(err.path, "Records[0].dynamodb.NewImage.status");
  /* the key still reads */
  assert_int_equal(ddbst_stream_image(stream, 0, DDBST_IMAGE_KEYS, it, &err),
                   entity("Project"));
  /* items of another model are refused */
  ddbst_model *blog = load_example("examples/blog/model.json");
  ddbst_item *bi = ddbst_item_new(blog, 0);
  assert_int_equal(ddbst_stream_image(stream, 0, DDBST_IMAGE_KEYS, bi, &err),
                   DDBST_EINVAL);
  ddbst_item_free(bi);
  ddbst_model_free(blog);
  ddbst_item_free(it);
  assert_int_equal(ddbst_stream_parse(NULL, "{}", 2, &err), DDBST_EINVAL);
  assert_null(ddbst_stream_new(NULL));
  ddbst_stream_free(NULL);
  assert_int_equal(ddbst_stream_count(NULL), 0);
}

/* An image whose entity attribute names an entity its key does not belong
 * to, and whose facets must come from that key: a stream keeps it as no
 * entity's (a page would refuse it), so one odd item does not stop the
 * batch. */
static void mismatched_images_kept(void **state) {
  (void)state;
  static const char ev[] =
      "{\"Records\":[{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"PK\":{"
      "\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"}},\"NewImage\":{\"PK\":{\"S\":"
      "\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},\"_type\":{\"S\":\"User\"}},"
      "\"SequenceNumber\":\"9\"}}]}";
  ddbst_error err;
  assert_int_equal(ddbst_stream_parse(stream, ev, strlen(ev), &err), 1);
  assert_int_equal(ddbst_stream_entity(stream, 0), DDBST_ENOTFOUND);
  ddbst_item *it = ddbst_item_new(saas, 0);
  assert_int_equal(ddbst_stream_image(stream, 0, DDBST_IMAGE_NEW, it, &err),
                   DDBST_ENOTFOUND);
  assert_string_equal(record_json(0),
                      "{\"eventName\":\"INSERT\",\"sequenceNumber\":\"9\","
                      "\"entity\":null,\"keys\":{\"orgId\":\"1\"},\"new\":{"
                      "\"PK\":\"ORG#1\",\"SK\":\"ORG#1\",\"_type\":\"User\"}}");
  /* a page refuses the same item */
  ddbst_page *pg = ddbst_page_new(saas);
  static const char get[] =
      "{\"Item\":{\"PK\":{\"S\":\"ORG#1\"},\"SK\":{\"S\":\"ORG#1\"},"
      "\"_type\":{\"S\":\"User\"}}}";
  assert_int_equal(ddbst_page_parse(pg, DDBST_OP_GET_ITEM, get, strlen(get), &err),
                   DDBST_EVALUE);
  assert_string_equal(err.message,
                      "_type says User, but its key PK is not a User's key");
  ddbst_page_free(pg);
  ddbst_item_free(it);
}

/* The captured event, and every prefix of it, ending at a page no byte of
 * may be read. */
static void no_over_read(void **state) {
  (void)state;
  size_t n;
  char *b = read_response("local-stream-event.json", &n);
  ddbst_error err;
  char *at = NULL;
  for (size_t len = 0; len <= n; len++) {
    guard_free(at);
    at = guard_copy(b, len);
    int rc = ddbst_stream_parse(stream, at, len, &err);
    if (len < n) assert_true(rc < 0);
    else assert_int_equal(rc, 11);
  }
  /* the records hold nothing of the input */
  memset(at, 'x', n);
  for (int i = 0; i < 11; i++) record_json(i);
  assert_string_equal(ddbst_stream_sequence_number(stream, 0),
                      "000000000000000000001");
  guard_free(at);
  free(b);
}

/* ---- memory ---- */

static ddbst_model *counted_model(counting_alloc *ca) {
  counting_alloc_init(ca);
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/saas/model.json", DDBST_SOURCE_DIR);
  ddbst_load_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.allocator = &ca->hooks;
  ddbst_model *m = NULL;
  ddbst_error err;
  if (ddbst_model_load_file(path, &o, &m, &err)) fail_msg("%s", err.message);
  return m;
}

static void warm_stream_does_not_allocate(void **state) {
  (void)state;
  counting_alloc ca;
  ddbst_model *m = counted_model(&ca);
  ddbst_stream *s = ddbst_stream_new(m);
  ddbst_item *it = ddbst_item_new(m, 0);
  ddbst_buf *b = ddbst_buf_new(&ca.hooks);
  size_t n;
  char *body = read_response("local-stream-event.json", &n);
  ddbst_error err;
  const int32_t failed[] = {4, 1};
  for (int round = 0; round < 3; round++) {
    long before = ca.calls;
    assert_int_equal(ddbst_stream_parse(s, body, n, &err), 11);
    for (int i = 0; i < 11; i++) {
      for (int img = DDBST_IMAGE_KEYS; img <= DDBST_IMAGE_OLD; img++)
        ddbst_stream_image(s, i, img, it, &err);
      ddbst_buf_reset(b);
      assert_int_equal(ddbst_stream_record_json(s, i, b, &err), 0);
    }
    assert_int_equal(ddbst_stream_parse(s, lambda_event, strlen(lambda_event), &err), 2);
    ddbst_buf_reset(b);
    assert_int_equal(ddbst_stream_failures_json(s, failed + 1, 1, b, &err), 0);
    if (round > 0) assert_int_equal(ca.calls, before);
  }
  free(body);
  ddbst_buf_free(b);
  ddbst_item_free(it);
  ddbst_stream_free(s);
  ddbst_model_free(m);
  assert_int_equal(ca.live, 0);
}

static void allocation_failures(void **state) {
  (void)state;
  size_t n;
  char *body = read_response("local-stream-event.json", &n);
  const char *bodies[] = {body, lambda_event};
  size_t lens[] = {n, strlen(lambda_event)};
  int counts[] = {11, 2};
  for (int k = 0; k < 2; k++) {
    counting_alloc ca;
    ddbst_model *m = counted_model(&ca);
    long base = ca.live;
    int failures = 0;
    for (long f = 1;; f++) {
      ca.fail_at = ca.calls + f;
      ddbst_error err;
      memset(&err, 0, sizeof err);
      ddbst_stream *s = ddbst_stream_new(m);
      ddbst_item *it = ddbst_item_new(m, 0);
      ddbst_buf *b = ddbst_buf_new(&m->alloc);
      int rc = s && it && b ? 0 : DDBST_ENOMEM;
      if (!rc) rc = ddbst_stream_parse(s, bodies[k], lens[k], &err);
      for (int i = 0; rc >= 0 && i < ddbst_stream_count(s); i++) {
        int r = ddbst_stream_image(s, i, DDBST_IMAGE_NEW, it, &err);
        if (r == DDBST_ENOMEM) rc = r;
        r = ddbst_stream_record_json(s, i, b, &err);
        if (r) rc = r;
      }
      if (rc >= 0) {
        int32_t all[1] = {0};
        int r = ddbst_stream_failures_json(s, all, 1, b, &err);
        if (r) rc = r;
      }
      ddbst_buf_free(b);
      ddbst_item_free(it);
      ddbst_stream_free(s);
      ca.fail_at = 0;
      assert_int_equal(ca.live, base);
      if (rc != DDBST_ENOMEM) {
        assert_int_equal(rc, counts[k]);
        break;
      }
      failures++;
    }
    assert_true(failures > 3);
    ddbst_model_free(m);
    assert_int_equal(ca.live, 0);
  }
  free(body);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(records_of_a_table),
      cmocka_unit_test(lambda_events),
      cmocka_unit_test(batch_item_failures),
      cmocka_unit_test(malformed_events),
      cmocka_unit_test(mismatched_images_kept),
      cmocka_unit_test(no_over_read),
      cmocka_unit_test(warm_stream_does_not_allocate),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
