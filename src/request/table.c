/* The table's schema as DynamoDB's CreateTable request. */
#include <string.h>

#include "request/request.h"

/* ---- CreateTable ---- */

static int key_schema(ddbst_buf *out, const char *pk, const char *sk) {
  int rc = ddbst__buf_puts(out, "[{\"AttributeName\":");
  rc = rc ? rc : ddbst__json_string(out, pk, strlen(pk));
  rc = rc ? rc : ddbst__buf_puts(out, ",\"KeyType\":\"HASH\"}");
  if (!rc && sk) {
    rc = ddbst__buf_puts(out, ",{\"AttributeName\":");
    rc = rc ? rc : ddbst__json_string(out, sk, strlen(sk));
    rc = rc ? rc : ddbst__buf_puts(out, ",\"KeyType\":\"RANGE\"}");
  }
  return rc ? rc : ddbst__buf_putc(out, ']');
}

int ddbst_create_table_request(const ddbst_model *m, ddbst_buf *out,
                               ddbst_error *err) {
  if (!m || !out)
    return ddbst__fail(err, DDBST_EINVAL, NULL, "model or buffer is NULL");
  static const char *const views[] = {NULL, "KEYS_ONLY", "NEW_IMAGE",
                                      "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};
  size_t start = out->len;
  int rc = ddbst__begin(out, m);
  /* every key attribute once, all strings: ddbst's keys are text */
  rc = rc ? rc : ddbst__buf_puts(out, ",\"AttributeDefinitions\":[");
  const char *seen[2 + 2 * 20];
  int nseen = 0;
  for (int i = -1; !rc && i < m->nindexes; i++) {
    const char *pair[2] = {i < 0 ? m->pk_attr : m->indexes[i].pk_attr,
                           i < 0 ? m->sk_attr : m->indexes[i].sk_attr};
    for (int j = 0; !rc && j < 2; j++) {
      if (!pair[j]) continue;
      int dup = 0;
      for (int k = 0; k < nseen; k++)
        if (strcmp(seen[k], pair[j]) == 0) dup = 1;
      if (dup || nseen == (int)(sizeof seen / sizeof seen[0])) continue;
      if (nseen) rc = ddbst__buf_putc(out, ',');
      seen[nseen++] = pair[j];
      rc = rc ? rc : ddbst__buf_puts(out, "{\"AttributeName\":");
      rc = rc ? rc : ddbst__json_string(out, pair[j], strlen(pair[j]));
      rc = rc ? rc : ddbst__buf_puts(out, ",\"AttributeType\":\"S\"}");
    }
  }
  rc = rc ? rc : ddbst__buf_puts(out, "],\"KeySchema\":");
  rc = rc ? rc : key_schema(out, m->pk_attr, m->sk_attr);
  rc = rc ? rc : ddbst__buf_puts(out, ",\"BillingMode\":\"PAY_PER_REQUEST\"");
  if (!rc && m->nindexes) {
    rc = ddbst__buf_puts(out, ",\"GlobalSecondaryIndexes\":[");
    for (int i = 0; !rc && i < m->nindexes; i++) {
      const ddbst__index *ix = &m->indexes[i];
      if (i) rc = ddbst__buf_putc(out, ',');
      rc = rc ? rc : ddbst__buf_puts(out, "{\"IndexName\":");
      rc = rc ? rc : ddbst__json_string(out, ix->name, strlen(ix->name));
      rc = rc ? rc : ddbst__buf_puts(out, ",\"KeySchema\":");
      rc = rc ? rc : key_schema(out, ix->pk_attr, ix->sk_attr);
      rc = rc ? rc : ddbst__buf_puts(out, ",\"Projection\":{\"ProjectionType\":");
      if (ix->projection == DDBST__PROJ_ALL)
        rc = rc ? rc : ddbst__buf_puts(out, "\"ALL\"}}");
      else if (ix->projection == DDBST__PROJ_KEYS_ONLY)
        rc = rc ? rc : ddbst__buf_puts(out, "\"KEYS_ONLY\"}}");
      else {
        rc = rc ? rc : ddbst__buf_puts(out, "\"INCLUDE\",\"NonKeyAttributes\":[");
        for (size_t j = 0; !rc && j < ix->ninclude; j++) {
          if (j) rc = ddbst__buf_putc(out, ',');
          rc = rc ? rc : ddbst__json_string(out, ix->include[j],
                                            strlen(ix->include[j]));
        }
        rc = rc ? rc : ddbst__buf_puts(out, "]}}");
      }
    }
    rc = rc ? rc : ddbst__buf_putc(out, ']');
  }
  if (!rc && m->stream != DDBST__STREAM_NONE) {
    rc = ddbst__buf_puts(out, ",\"StreamSpecification\":{\"StreamEnabled\":"
                              "true,\"StreamViewType\":\"");
    rc = rc ? rc : ddbst__buf_puts(out, views[m->stream]);
    rc = rc ? rc : ddbst__buf_puts(out, "\"}");
  }
  rc = rc ? rc : ddbst__buf_putc(out, '}');
  return rc ? ddbst__abandon(out, start, rc, err) : DDBST_OP_CREATE_TABLE;
}
