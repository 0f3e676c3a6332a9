/* The parts of the CloudFormation template (cloudformation.c) that have
 * files of their own: the IAM policy and the stream filters. */
#ifndef DDBST_REVIEW_CLOUDFORMATION_H
#define DDBST_REVIEW_CLOUDFORMATION_H

#include "json/jw.h"
#include "review/review.h"

/* The table's logical ID: fixed, because renaming a logical ID replaces the
 * resource (and with an explicit table name, makes the deploy fail). */
#define DDBST__CFN_TABLE_ID "AppTable"

/* The policy resource, a member of "Resources". */
void ddbst__cfn_policy_resource(ddbst__jw *w, const ddbst_model *m);

/* "Metadata":{"ddbst":{"filterPatterns":[...]}}, one pattern per spec
 * ("Project" or "Project:INSERT,MODIFY"); nothing when nspecs is 0. An
 * error (with the path stream_filters[i]) leaves the writer's output for
 * the caller to drop. */
int ddbst__cfn_stream_filters(ddbst__jw *w, const ddbst_model *m,
                              const char *const *specs, size_t nspecs,
                              ddbst_error *err);

#endif
