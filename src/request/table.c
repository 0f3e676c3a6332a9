/* The table's schema (request/table.h) and the CreateTable request made of
 * it. */
#include <string.h>

#include "request/request.h"
#include "request/table.h"

void ddbst__table_key_schema(ddbst__jw *w, const char *pk, const char *sk) {
  ddbst__jw_key(w, "KeySchema");
  ddbst__jw_open(w, '[');
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "AttributeName", pk);
  ddbst__jw_pair(w, "KeyType", "HASH");
  ddbst__jw_close(w, '}');
  if (sk) {
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "AttributeName", sk);
    ddbst__jw_pair(w, "KeyType", "RANGE");
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
}

void ddbst__table_attribute_definitions(ddbst__jw *w, const ddbst_model *m) {
  ddbst__table_attribute_definitions_of(w, m, -1);
}

void ddbst__table_attribute_definitions_of(ddbst__jw *w, const ddbst_model *m,
                                           int only) {
  /* as the loader allows: a native index names up to 8 */
  const char *seen[2 + 8 * DDBST__MAX_INDEXES];
  int nseen = 0;
  ddbst__jw_key(w, "AttributeDefinitions");
  ddbst__jw_open(w, '[');
  for (int i = -1; i < m->nindexes; i++) {
    if (only >= 0 && i != only) continue;
    const ddbst__index *ix = i < 0 ? NULL : &m->indexes[i];
    const char *names[8] = {i < 0 ? m->pk_attr : ix->pk_attr,
                            i < 0 ? m->sk_attr : ix->sk_attr};
    char types[8] = {'S', 'S'};
    int n = 2;
    if (ix && ix->native) {
      n = 0;
      for (int a = 0; a < ix->npk + ix->nsk; a++) {
        names[n] = a < ix->npk ? ix->pk_attrs[a] : ix->sk_attrs[a - ix->npk];
        types[n++] = ix->types[a];
      }
    }
    for (int j = 0; j < n; j++) {
      if (!names[j]) continue;
      int dup = 0;
      for (int k = 0; k < nseen; k++)
        if (strcmp(seen[k], names[j]) == 0) dup = 1;
      if (dup || nseen == (int)(sizeof seen / sizeof seen[0])) continue;
      seen[nseen++] = names[j];
      char type[2] = {types[j], '\0'};
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "AttributeName", names[j]);
      ddbst__jw_pair(w, "AttributeType", type);
      ddbst__jw_close(w, '}');
    }
  }
  ddbst__jw_close(w, ']');
}

/* A native index's KeySchema: every partition attribute (HASH), then
 * every sort attribute (RANGE), in the model's order. */
static void native_key_schema(ddbst__jw *w, const ddbst__index *ix) {
  ddbst__jw_key(w, "KeySchema");
  ddbst__jw_open(w, '[');
  for (int a = 0; a < ix->npk + ix->nsk; a++) {
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "AttributeName",
                   a < ix->npk ? ix->pk_attrs[a] : ix->sk_attrs[a - ix->npk]);
    ddbst__jw_pair(w, "KeyType", a < ix->npk ? "HASH" : "RANGE");
    ddbst__jw_close(w, '}');
  }
  ddbst__jw_close(w, ']');
}

void ddbst__table_billing_mode(ddbst__jw *w) {
  ddbst__jw_pair(w, "BillingMode", "PAY_PER_REQUEST");
}

static const char *projection_name(ddbst__projection p) {
  switch (p) {
  case DDBST__PROJ_KEYS_ONLY: return "KEYS_ONLY";
  case DDBST__PROJ_INCLUDE: return "INCLUDE";
  case DDBST__PROJ_ALL: break;
  }
  return "ALL";
}

static void index_element(ddbst__jw *w, const ddbst__index *ix, int cfn);

/* The indexes of one kind (`local`), or nothing when there is none. */
static void secondary_indexes(ddbst__jw *w, const ddbst_model *m, int local,
                              int cfn) {
  int any = 0;
  for (int i = 0; i < m->nindexes; i++) any |= m->indexes[i].local == local;
  if (!any) return;
  ddbst__jw_key(w, local ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes");
  ddbst__jw_open(w, '[');
  for (int i = 0; i < m->nindexes; i++)
    if (m->indexes[i].local == local) index_element(w, &m->indexes[i], cfn);
  ddbst__jw_close(w, ']');
}

void ddbst__table_index(ddbst__jw *w, const ddbst__index *ix) {
  index_element(w, ix, 0);
}

void ddbst__table_index_cfn(ddbst__jw *w, const ddbst__index *ix) {
  index_element(w, ix, 1);
}

static void index_element(ddbst__jw *w, const ddbst__index *ix, int cfn) {
  {
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "IndexName", ix->name);
    if (ix->native)
      native_key_schema(w, ix);
    else
      ddbst__table_key_schema(w, ix->pk_attr, ix->sk_attr);
    ddbst__jw_key(w, "Projection");
    ddbst__jw_open(w, '{');
    ddbst__jw_pair(w, "ProjectionType", projection_name(ix->projection));
    if (ix->projection == DDBST__PROJ_INCLUDE) {
      ddbst__jw_key(w, "NonKeyAttributes");
      ddbst__jw_open(w, '[');
      for (size_t j = 0; j < ix->ninclude; j++)
        ddbst__jw_str(w, ix->include[j]);
      ddbst__jw_close(w, ']');
    }
    ddbst__jw_close(w, '}');
    if (!ix->local) ddbst__table_index_settings(w, ix, cfn);
    ddbst__jw_close(w, '}');
  }
}

void ddbst__table_global_secondary_indexes(ddbst__jw *w,
                                           const ddbst_model *m) {
  secondary_indexes(w, m, 0, 0);
}

void ddbst__table_global_secondary_indexes_cfn(ddbst__jw *w,
                                               const ddbst_model *m) {
  secondary_indexes(w, m, 0, 1);
}

void ddbst__table_local_secondary_indexes(ddbst__jw *w, const ddbst_model *m) {
  secondary_indexes(w, m, 1, 0);
}

const char *ddbst__stream_view_name(ddbst__stream s) {
  switch (s) {
  case DDBST__STREAM_KEYS_ONLY: return "KEYS_ONLY";
  case DDBST__STREAM_NEW_IMAGE: return "NEW_IMAGE";
  case DDBST__STREAM_OLD_IMAGE: return "OLD_IMAGE";
  case DDBST__STREAM_NEW_AND_OLD_IMAGES: return "NEW_AND_OLD_IMAGES";
  case DDBST__STREAM_NONE: break;
  }
  return NULL;
}

void ddbst__table_stream_specification(ddbst__jw *w, const ddbst_model *m,
                                       int api) {
  const char *view = ddbst__stream_view_name(m->stream);
  if (!view) return;
  ddbst__jw_key(w, "StreamSpecification");
  ddbst__jw_open(w, '{');
  if (api) {
    ddbst__jw_key(w, "StreamEnabled");
    ddbst__jw_bool(w, 1);
  }
  ddbst__jw_pair(w, "StreamViewType", view);
  ddbst__jw_close(w, '}');
}

void ddbst__table_ttl_specification(ddbst__jw *w, const ddbst_model *m) {
  if (m->ttl_attr) ddbst__table_time_to_live(w, m->ttl_attr, 1);
}

/* No TTL: CreateTable cannot set one (that is
 * UpdateTimeToLive, after the table exists). */
int ddbst_create_table_request(const ddbst_model *m, ddbst_buf *out,
                               ddbst_error *err) {
  int rc = ddbst__table_args(m, out, err);
  if (rc) return rc;
  ddbst__jw w;
  ddbst__table_body_open(&w, m, out);
  ddbst__table_attribute_definitions(&w, m);
  ddbst__table_key_schema(&w, m->pk_attr, m->sk_attr);
  ddbst__table_billing_mode(&w);
  ddbst__table_global_secondary_indexes(&w, m);
  ddbst__table_local_secondary_indexes(&w, m);
  ddbst__table_stream_specification(&w, m, 1);
  ddbst__table_settings_write(&w, m, 0);
  return ddbst__table_body_close(&w, out, DDBST_OP_CREATE_TABLE, err);
}
