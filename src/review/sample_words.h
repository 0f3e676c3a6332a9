/* The words sample values are made of (sample.c): names, titles, and a
 * small vocabulary per kind of string attribute, chosen by its name. */
#ifndef DDBST_REVIEW_SAMPLE_WORDS_H
#define DDBST_REVIEW_SAMPLE_WORDS_H

#include <string.h>

static const char *const SAMPLE_COMPANIES[] = {
    "acme", "globex", "initech", "umbrella", "hooli", "vandelay", "stark",
    "wayne"};
static const char *const SAMPLE_FIRST[] = {"Ann",  "Bob",  "Chloe", "Dev",
                                           "Eve",  "Femi", "Grace", "Hugo",
                                           "Iris", "Jon"};
static const char *const SAMPLE_LAST[] = {"Lee",    "Stone",  "Martin",
                                          "Patel",  "Quinn",  "Okafor",
                                          "Novak",  "Silva",  "Haddad"};
static const char *const SAMPLE_STARS[] = {
    "Apollo", "Borealis", "Cygnus", "Draco", "Eridanus", "Fornax", "Gemini",
    "Hydra",  "Lyra",     "Orion",  "Pavo",  "Vela"};
static const char *const SAMPLE_TITLES[] = {
    "One table for everything", "Keys that sort by time",
    "Sparse indexes in practice", "Paging with sealed cursors",
    "Unique emails without a lock", "Hot partitions and how to cool them",
    "Designing for access patterns", "Streams into search",
    "Time to live for sessions", "Migrating a live table"};
static const char *const SAMPLE_SENTENCES[] = {
    "A short note for the review.", "What changed, and why.",
    "Written before the first deploy.", "Read by the weekly report.",
    "Kept for a year, then expired."};
static const char *const SAMPLE_WORDS[] = {"amber", "birch", "cedar",
                                           "delta", "ember", "fjord",
                                           "grove", "harbor"};
static const char *const SAMPLE_TAGS[] = {"aws", "c", "design", "dynamodb",
                                          "keys", "review"};

/* A vocabulary for a string attribute named `name`: role, plan, type, ... */
static inline const char *const *sample_vocabulary(const char *name) {
  static const char *const roles[] = {"admin", "member", "viewer", NULL};
  static const char *const plans[] = {"free", "pro", "enterprise", NULL};
  static const char *const kinds[] = {"deploy", "comment", "review",
                                      "incident", NULL};
  static const char *const categories[] = {"news", "guides", "releases", NULL};
  static const char *const states[] = {"open", "closed", "pending", NULL};
  static const char *const currencies[] = {"EUR", "GBP", "USD", NULL};
  static const char *const countries[] = {"DE", "GB", "NG", "US", NULL};
  static const char *const words[] = {"amber", "birch", "cedar", "delta",
                                      "ember", "fjord", NULL};
  static const struct {
    const char *word;
    const char *const *vocab;
  } by_name[] = {{"role", roles},       {"plan", plans},
                 {"tier", plans},       {"type", kinds},
                 {"kind", kinds},       {"category", categories},
                 {"status", states},    {"state", states},
                 {"currency", currencies}, {"country", countries}};
  for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++) {
    size_t n = strlen(name), k = strlen(by_name[i].word);
    for (size_t j = 0; j + k <= n; j++) {
      size_t c = 0;
      while (c < k && (name[j + c] | 0x20) == by_name[i].word[c]) c++;
      if (c == k) return by_name[i].vocab;
    }
  }
  return words;
}

#endif
