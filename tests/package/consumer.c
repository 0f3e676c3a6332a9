/* A program outside the ddbst tree, as a user writes one: it loads the model
 * named on the command line and prints the keys of one User. */
#include <ddbst.h>

#include <stdio.h>
#include <string.h>

static int set_text(ddbst_item *item, const ddbst_model *model, int entity,
                    const char *name, const char *text, ddbst_error *err) {
  int attribute = ddbst_model_attribute(model, entity, name);
  if (attribute < 0) return attribute;
  return ddbst_item_set(item, attribute, text, strlen(text), err);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.json\n", argv[0]);
    return 2;
  }
  ddbst_error err = {0};
  ddbst_model *model = NULL;
  if (ddbst_model_load_file(argv[1], NULL, &model, &err) < 0) {
    fprintf(stderr, "%s: %s: %s\n", argv[1], err.path, err.message);
    return 1;
  }
  int status = 1;
  int user = ddbst_model_entity(model, "User");
  ddbst_item *item = user < 0 ? NULL : ddbst_item_new(model, user);
  if (item == NULL) goto done;
  if (set_text(item, model, user, "orgId", "123", &err) < 0 ||
      set_text(item, model, user, "userId", "9", &err) < 0 ||
      set_text(item, model, user, "email", "Ann@Example.com", &err) < 0)
    goto done;
  int nkeys = ddbst_item_build_keys(item, &err);
  if (nkeys < 0) goto done;
  for (int i = 0; i < nkeys; i++) {
    const char *name = NULL, *value = NULL;
    ddbst_item_key(item, i, &name, &value, NULL);
    printf("%s=%s\n", name, value);
  }
  status = 0;
done:
  if (status != 0) fprintf(stderr, "consumer: %s: %s\n", err.path, err.message);
  ddbst_item_free(item);
  ddbst_model_free(model);
  return status;
}
