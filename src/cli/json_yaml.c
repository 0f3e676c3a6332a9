/* JSON → YAML (libyaml's emitter) and JSON → indented JSON (YAJL's
 * generator), both from a YAJL tree: the tree lets the YAML side see a whole
 * container before choosing block or flow style. */
#include "json_yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>
#include <yaml.h>

/* ---- a growable output ---- */

typedef struct text {
  char *data;
  size_t len, cap;
  int nomem;
} text;

static int text_add(void *user, unsigned char *s, size_t n) {
  text *t = user;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + n + 1) cap *= 2;
    char *p = realloc(t->data, cap);
    if (!p) {
      t->nomem = 1;
      return 0;
    }
    t->data = p;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
  return 1;
}

static yajl_val parse(const char *json, char *why, size_t why_cap) {
  char reason[256];
  yajl_val root = yajl_tree_parse(json, reason, sizeof reason);
  if (!root)
    snprintf(why, why_cap, "not JSON: %s", reason[0] ? reason : "no memory");
  return root;
}

/* ---- YAML ---- */

static int is_scalar(yajl_val v) {
  return !YAJL_IS_OBJECT(v) && !YAJL_IS_ARRAY(v);
}

static int all_scalars(yajl_val v) {
  size_t n = YAJL_IS_OBJECT(v) ? v->u.object.len : v->u.array.len;
  yajl_val *items = YAJL_IS_OBJECT(v) ? v->u.object.values : v->u.array.values;
  for (size_t i = 0; i < n; i++)
    if (!is_scalar(items[i])) return 0;
  return 1;
}

static int equals_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if ((*a | 0x20) != *b) return 0;
  return *a == *b;
}

/* Whether a YAML 1.1 reader (serverless, PyYAML, libyaml-based tools) would
 * take this plain text for something other than a string: null, a boolean,
 * a number, a date, a merge key. */
static int retypes_when_plain(const char *s) {
  static const char *const words[] = {"null", "~",   "true", "false", "yes",
                                      "no",   "on",  "off",  "y",     "n",
                                      "=",    "<<"};
  if (!*s) return 1;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (equals_nocase(s, words[i])) return 1;
  return (*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.';
}

static int emit_scalar(yaml_emitter_t *em, const char *s, size_t n,
                       yaml_scalar_style_t style) {
  yaml_event_t ev;
  return yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
                                      (int)n, 1, 1, style) &&
         yaml_emitter_emit(em, &ev);
}

static int emit_value(yaml_emitter_t *em, yajl_val v, int in_sequence) {
  yaml_event_t ev;
  if (YAJL_IS_STRING(v)) {
    const char *s = v->u.string;
    return emit_scalar(em, s, strlen(s),
                       retypes_when_plain(s) ? YAML_SINGLE_QUOTED_SCALAR_STYLE
                                             : YAML_ANY_SCALAR_STYLE);
  }
  if (YAJL_IS_NUMBER(v))
    return emit_scalar(em, v->u.number.r, strlen(v->u.number.r),
                       YAML_PLAIN_SCALAR_STYLE);
  if (YAJL_IS_TRUE(v)) return emit_scalar(em, "true", 4, YAML_PLAIN_SCALAR_STYLE);
  if (YAJL_IS_FALSE(v))
    return emit_scalar(em, "false", 5, YAML_PLAIN_SCALAR_STYLE);
  if (YAJL_IS_NULL(v)) return emit_scalar(em, "null", 4, YAML_PLAIN_SCALAR_STYLE);
  if (YAJL_IS_OBJECT(v)) {
    int flow = in_sequence && all_scalars(v);
    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE) ||
        !yaml_emitter_emit(em, &ev))
      return 0;
    for (size_t i = 0; i < v->u.object.len; i++) {
      const char *k = v->u.object.keys[i];
      if (!emit_scalar(em, k, strlen(k),
                       retypes_when_plain(k) ? YAML_SINGLE_QUOTED_SCALAR_STYLE
                                             : YAML_ANY_SCALAR_STYLE) ||
          !emit_value(em, v->u.object.values[i], 0))
        return 0;
    }
    return yaml_mapping_end_event_initialize(&ev) &&
           yaml_emitter_emit(em, &ev);
  }
  int flow = all_scalars(v);
  if (!yaml_sequence_start_event_initialize(
          &ev, NULL, NULL, 1,
          flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) ||
      !yaml_emitter_emit(em, &ev))
    return 0;
  for (size_t i = 0; i < v->u.array.len; i++)
    if (!emit_value(em, v->u.array.values[i], 1)) return 0;
  return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
}

int cli_json_to_yaml(const char *json, char **out, size_t *out_len, char *why,
                     size_t why_cap) {
  *out = NULL;
  yajl_val root = parse(json, why, why_cap);
  if (!root) return -1;
  text t = {NULL, 0, 0, 0};
  yaml_emitter_t em;
  yaml_event_t ev;
  int ok = yaml_emitter_initialize(&em);
  if (ok) {
    yaml_emitter_set_output(&em, text_add, &t);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_indent(&em, 2);
    yaml_emitter_set_width(&em, -1); /* never fold a long line */
    ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
         yaml_emitter_emit(&em, &ev) &&
         yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
         yaml_emitter_emit(&em, &ev) && emit_value(&em, root, 0) &&
         yaml_document_end_event_initialize(&ev, 1) &&
         yaml_emitter_emit(&em, &ev) && yaml_stream_end_event_initialize(&ev) &&
         yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
    if (!ok)
      snprintf(why, why_cap, "YAML: %s",
               t.nomem || !em.problem ? "out of memory" : em.problem);
    yaml_emitter_delete(&em);
  } else {
    snprintf(why, why_cap, "YAML: out of memory");
  }
  yajl_tree_free(root);
  if (!ok || !t.data) {
    free(t.data);
    if (ok) snprintf(why, why_cap, "YAML: nothing was written");
    return -1;
  }
  *out = t.data;
  *out_len = t.len;
  return 0;
}

/* ---- indented JSON ---- */

static int gen_value(yajl_gen g, yajl_val v) {
  if (YAJL_IS_STRING(v))
    return yajl_gen_string(g, (const unsigned char *)v->u.string,
                           strlen(v->u.string)) == yajl_gen_status_ok;
  if (YAJL_IS_NUMBER(v))
    return yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r)) ==
           yajl_gen_status_ok;
  if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
    return yajl_gen_bool(g, YAJL_IS_TRUE(v)) == yajl_gen_status_ok;
  if (YAJL_IS_NULL(v)) return yajl_gen_null(g) == yajl_gen_status_ok;
  if (YAJL_IS_OBJECT(v)) {
    if (yajl_gen_map_open(g) != yajl_gen_status_ok) return 0;
    for (size_t i = 0; i < v->u.object.len; i++) {
      const char *k = v->u.object.keys[i];
      if (yajl_gen_string(g, (const unsigned char *)k, strlen(k)) !=
              yajl_gen_status_ok ||
          !gen_value(g, v->u.object.values[i]))
        return 0;
    }
    return yajl_gen_map_close(g) == yajl_gen_status_ok;
  }
  if (yajl_gen_array_open(g) != yajl_gen_status_ok) return 0;
  for (size_t i = 0; i < v->u.array.len; i++)
    if (!gen_value(g, v->u.array.values[i])) return 0;
  return yajl_gen_array_close(g) == yajl_gen_status_ok;
}

int cli_json_indent(const char *json, char **out, size_t *out_len, char *why,
                    size_t why_cap) {
  *out = NULL;
  yajl_val root = parse(json, why, why_cap);
  if (!root) return -1;
  yajl_gen g = yajl_gen_alloc(NULL);
  int ok = g && yajl_gen_config(g, yajl_gen_beautify, 1) &&
           yajl_gen_config(g, yajl_gen_indent_string, "  ") &&
           gen_value(g, root);
  const unsigned char *buf = NULL;
  size_t len = 0;
  if (ok) ok = yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok;
  if (ok) {
    *out = malloc(len + 1);
    ok = *out != NULL;
  }
  if (ok) {
    memcpy(*out, buf, len);
    (*out)[len] = '\0';
    *out_len = len;
  } else {
    snprintf(why, why_cap, "JSON: out of memory");
  }
  if (g) yajl_gen_free(g);
  yajl_tree_free(root);
  return ok ? 0 : -1;
}
