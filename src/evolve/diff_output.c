/* ddbst_model_diff: the changes between two models as JSON for tools or as
 * text for people (docs/evolution.md shows both). */
#include <stdio.h>
#include <string.h>

#include "evolve/diff.h"
#include "json/jw.h"

const char *ddbst_change_class_name(int32_t cls) {
  switch (cls) {
  case DDBST_CHANGE_NONE: return "none";
  case DDBST_CHANGE_FREE: return "free";
  case DDBST_CHANGE_CLEANUP: return "cleanup";
  case DDBST_CHANGE_BACKFILL: return "backfill";
  case DDBST_CHANGE_REWRITE: return "rewrite";
  case DDBST_CHANGE_UNSAFE: return "unsafe";
  case DDBST_CHANGE_IMPOSSIBLE: return "impossible";
  default: return NULL;
  }
}

typedef struct writer {
  ddbst__jw w;
  int text;
  int count;
} writer;

static void names_json(ddbst__jw *w, const char *key, const char *const *list,
                       int n) {
  ddbst__jw_key(w, key);
  ddbst__jw_open(w, '[');
  for (int i = 0; i < n; i++) ddbst__jw_str(w, list[i]);
  ddbst__jw_close(w, ']');
}

static void names_text(ddbst__jw *w, const char *label, const char *const *list,
                       int n) {
  if (!n) return;
  ddbst__jw_puts(w, label);
  for (int i = 0; i < n; i++) {
    if (i) ddbst__jw_raw(w, ", ", 2);
    ddbst__jw_puts(w, list[i]);
  }
}

static int on_change(void *user, const ddbst__change *c) {
  writer *wr = user;
  ddbst__jw *w = &wr->w;
  const char *cls = ddbst_change_class_name(c->cls);
  if (wr->text) {
    if (wr->count++) ddbst__jw_raw(w, "\n", 1);
    ddbst__jw_puts(w, cls);
    ddbst__jw_raw(w, " ", 1);
    ddbst__jw_puts(w, c->what);
    ddbst__jw_raw(w, ": ", 2);
    ddbst__jw_puts(w, c->reason);
    if (c->nentities || c->npatterns) {
      ddbst__jw_raw(w, "\n ", 2);
      names_text(w, " entities: ", c->entities, c->nentities);
      if (c->nentities && c->npatterns) ddbst__jw_raw(w, ";", 1);
      names_text(w, " patterns: ", c->patterns, c->npatterns);
    }
    if (c->check) {
      ddbst__jw_puts(w, "\n  check first: ");
      ddbst__jw_puts(w, c->check);
    }
    if (c->remove_index) {
      ddbst__jw_puts(w, "\n  UpdateTable: delete index ");
      ddbst__jw_puts(w, c->remove_index);
    }
    if (c->add_index) {
      ddbst__jw_puts(w, "\n  UpdateTable: create index ");
      ddbst__jw_puts(w, c->add_index);
    }
    ddbst__jw_raw(w, "\n", 1);
    return w->rc;
  }
  wr->count++;
  ddbst__jw_open(w, '{');
  ddbst__jw_pair(w, "class", cls);
  ddbst__jw_pair(w, "what", c->what);
  ddbst__jw_pair(w, "reason", c->reason);
  names_json(w, "entities", c->entities, c->nentities);
  names_json(w, "patterns", c->patterns, c->npatterns);
  if (c->check) ddbst__jw_pair(w, "check", c->check);
  if (c->add_index || c->remove_index) {
    ddbst__jw_key(w, "updateTable");
    ddbst__jw_open(w, '[');
    if (c->remove_index) {
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "removeIndex", c->remove_index);
      ddbst__jw_close(w, '}');
    }
    if (c->add_index) {
      ddbst__jw_open(w, '{');
      ddbst__jw_pair(w, "addIndex", c->add_index);
      ddbst__jw_close(w, '}');
    }
    ddbst__jw_close(w, ']');
  }
  ddbst__jw_close(w, '}');
  return w->rc;
}

int ddbst_model_diff(const ddbst_model *old_model, const ddbst_model *new_model,
                     uint32_t flags, ddbst_buf *out, ddbst_error *err) {
  if (!out) return ddbst__fail(err, DDBST_EINVAL, NULL, "out is NULL");
  ddbst_buf_reset(out);
  if (flags & ~(uint32_t)(DDBST_DIFF_TEXT | DDBST_DIFF_TABLE_RENAMED))
    return ddbst__fail(err, DDBST_EINVAL, "flags",
                       "unknown flags 0x%x: DDBST_DIFF_TEXT and "
                       "DDBST_DIFF_TABLE_RENAMED are known",
                       (unsigned)flags);
  writer wr;
  memset(&wr, 0, sizeof wr);
  wr.text = (flags & DDBST_DIFF_TEXT) != 0;
  ddbst__jw_init(&wr.w, out);
  if (!wr.text) {
    ddbst__jw_open(&wr.w, '{');
    if (new_model) ddbst__jw_pair(&wr.w, "table", new_model->table_name);
    ddbst__jw_key(&wr.w, "changes");
    ddbst__jw_open(&wr.w, '[');
  }
  int worst = wr.w.rc
                  ? wr.w.rc
                  : ddbst__diff_walk(old_model, new_model,
                                     (flags & DDBST_DIFF_TABLE_RENAMED) != 0,
                                     &out->alloc, on_change, &wr, err);
  if (worst >= 0) {
    if (wr.text) {
      if (wr.count)
        ddbst__jw_printf(&wr.w, "\n%d change%s, the worst: %s\n", wr.count,
                         wr.count == 1 ? "" : "s",
                         ddbst_change_class_name(worst));
      else
        ddbst__jw_puts(&wr.w, "no change\n");
    } else {
      ddbst__jw_close(&wr.w, ']');
      ddbst__jw_pair(&wr.w, "worst", ddbst_change_class_name(worst));
      ddbst__jw_close(&wr.w, '}');
    }
    if (wr.w.rc) worst = wr.w.rc;
  }
  if (worst < 0) {
    ddbst_buf_reset(out);
    if (worst == DDBST_ENOMEM)
      return ddbst__fail(err, DDBST_ENOMEM, NULL, NULL);
    return worst;
  }
  return worst;
}
