/* What a JSON text must be before any parser reads it: the one rule, kept
 * apart from the parser so that a parser put in YAJL's place (parse.c) keeps
 * it. YAJL checks the shape of UTF-8 only (it lets overlongs, surrogates and
 * code points past U+10FFFF through) and decodes a lone surrogate escape to
 * '?', or joins a high one with whatever escape follows it, without a word:
 * "x\ud800y" would become "x?y", and two different ids one key. */
#ifndef DDBST_JSON_TEXT_H
#define DDBST_JSON_TEXT_H

#include <stddef.h>

/* A fault of a JSON text: where, and why. */
typedef struct ddbst__json_fault {
  size_t at;       /* the offset of the bad byte or of the escape's '\' */
  const char *why; /* static: "invalid UTF-8: overlong encoding", ... */
  int escape;      /* a \u escape: at..at+6 is its text, for messages */
} ddbst__json_fault;

/* Checks json[0..len): every byte from 0x80 up is part of well-formed UTF-8
 * (base/utf8.h, as for every caller's text), and every \u escape of a
 * surrogate is half of a pair in order (\ud83d\ude00). Returns 1 and fills
 * *f with the first fault, or 0 when there is none before the first thing
 * a JSON parser refuses anyway (a malformed escape, the text's end). The
 * faults outside strings are the parser's to refuse too; reporting them
 * first is as right. */
int ddbst__json_text_fault(const char *json, size_t len, ddbst__json_fault *f);

/* The same with the form of the scan chosen: `wide` nonzero for the AVX2
 * one (base/bytes.h; only where the build has it and the CPU runs it:
 * ddbst__json_text_fault asks), else the build's own. The same answer
 * either way; tests compare them. */
int ddbst__json_text_fault_with(const char *json, size_t len,
                                ddbst__json_fault *f, int wide);

/* Whether the string holding offset `at` (a fault's) is a member name: the
 * first thing after its closing quote is ':'. */
int ddbst__json_fault_in_name(const char *json, size_t len, size_t at);

#endif
