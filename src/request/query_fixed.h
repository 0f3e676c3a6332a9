/* The fixed query bodies (model/compile_query_bodies.c) as request/query.c
 * uses them. */
#ifndef DDBST_REQUEST_QUERY_FIXED_H
#define DDBST_REQUEST_QUERY_FIXED_H

/* Nonzero: every query takes the general path. For the tests that hold the
 * fixed bodies to it (tests/unit/test_query_fixed.c) only; never set by the
 * library. */
extern int ddbst__query_fixed_off;

#endif
