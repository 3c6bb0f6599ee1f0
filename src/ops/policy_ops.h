/*-------------------------------------------------------------------------
 *
 * policy_ops.h
 *		Resource-based policies: PutResourcePolicy, GetResourcePolicy,
 *		DeleteResourcePolicy and CreateTable's ResourcePolicy, kept per table
 *		and per stream in stdesign.resource_policies.
 *
 * stdesign stores and returns policies; it does not evaluate them.  Who
 * may read or change a table is what Postgres grants the role a request
 * runs as (docs/security.md, "Resource-based policies").  A table's owner
 * puts and deletes its policies; a role that may read the table reads them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_POLICY_OPS_H
#define ST_POLICY_OPS_H

#include "postgres.h"

#include "item/av.h"

/* The largest policy document, in bytes, whitespace included (DynamoDB's 20 KB). */
#define OPS_POLICY_MAX_BYTES 20480

/*
 * ExpectedRevisionId's value meaning "no policy may be there yet"
 * (PutResourcePolicy).
 */
#define OPS_POLICY_NO_POLICY "NO_POLICY"

/*
 * Check a policy document as DynamoDB checks it before storing it: its
 * size, that it is JSON, and the fields every statement must have; raise
 * a ValidationException in DynamoDB's words otherwise.
 */
extern void ops_policy_check(const char *policy, int len);

/*
 * CreateTable's ResourcePolicy as a document's text: a string as it is, or
 * (CloudFormation's form) {"PolicyDocument": document}.  Raises a
 * SerializationException for any other type.
 */
extern char *ops_policy_text(const Av *value);

/*
 * The policy of table_name (stream_label NULL) or of its stream
 * stream_label.  put: store `policy` (checked), for the table's owner;
 * expected_revision_id (or NULL) must be the current revision, or
 * OPS_POLICY_NO_POLICY with none there (PolicyNotFoundException).  The same
 * document again keeps its revision.  Returns the revision id.
 * get: the document and its revision, for a role that may read the table
 * (PolicyNotFoundException when there is none).
 * delete: for the owner; returns the deletion's revision id, or NULL when
 * there was no policy (no error, unless expected_revision_id was given).
 * Every one raises ResourceNotFoundException, in DynamoDB's words, when the
 * table or the stream does not exist; `arn` is the resource's ARN as the
 * caller gave it, for messages.
 */
extern char *ops_policy_put(const char *table_name, const char *stream_label, const char *arn,
							const char *policy, const char *expected_revision_id);
extern void ops_policy_get(const char *table_name, const char *stream_label, const char *arn,
						   char **policy, char **revision_id);
extern char *ops_policy_delete(const char *table_name, const char *stream_label, const char *arn,
							   const char *expected_revision_id);

#endif							/* ST_POLICY_OPS_H */
