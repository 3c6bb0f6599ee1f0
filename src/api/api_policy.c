/*-------------------------------------------------------------------------
 *
 * api_policy.c
 *		Resource-based policies: st_api's PutResourcePolicy,
 *		GetResourcePolicy and DeleteResourcePolicy.
 *
 * The model's checks come first (api_validate.c: ResourceArn 1 to 1283
 * characters, Policy a string, ExpectedRevisionId 1 to 255).  Then the
 * ResourceArn, as DynamoDB checks it, in its words (observed): an ARN,
 * of DynamoDB, of this server's partition, region and account, naming a
 * table or a table's stream (an index's ARN is refused: a table's policy
 * covers its indexes, its statements naming their ARNs).  policy_ops.c
 * does the rest.  The policies are stored and returned, never evaluated
 * (docs/security.md, "Resource-based policies").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"
#include "json_req.h"
#include "ops/policy_ops.h"

#define INVALID_PREFIX "One or more parameter values were invalid: "

/*
 * The table (and the stream's label, or NULL) a ResourceArn names:
 * arn:aws:dynamodb:<region>:<account>:table/<name>[/stream/<label>].
 */
static void
resource(const char *arn, char **table_name, char **stream_label)
{
	const char *field[6];
	int			nfields = 0;
	const char *res;
	const char *slash;

	if (strncmp(arn, "arn:", 4) != 0)
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "ARNs must start with 'arn:': %s", arn);
	field[nfields++] = arn;
	for (const char *c = arn; *c && nfields < 6; c++)
		if (*c == ':')
			field[nfields++] = c + 1;
#define FIELD_IS(i, text) (strncmp(field[i], text ":", strlen(text) + 1) == 0)
	if (nfields < 6 || !FIELD_IS(2, "dynamodb") || strncmp(field[5], "table/", 6) != 0)
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "Provided Arn is not a DynamoDB resource arn: %s", arn);
	if (!FIELD_IS(1, "aws") || !FIELD_IS(3, ST_ARN_REGION))
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "Invalid resource Arn: %s", arn);
	if (!FIELD_IS(4, ST_ARN_ACCOUNT))
		st_error(ST_ERR_VALIDATION, "This action is only supported by accounts that match the resource owner\u2019s account.");
#undef FIELD_IS
	res = field[5] + 6;
	slash = strchr(res, '/');
	if (res[0] == '\0' || slash == res)
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "Provided Arn is not a DynamoDB resource arn: %s", arn);
	*table_name = slash ? pnstrdup(res, slash - res) : pstrdup(res);
	*stream_label = NULL;
	if (slash == NULL)
		return;
	if (strncmp(slash, "/index/", 7) == 0)
		st_error(ST_ERR_VALIDATION,
				 INVALID_PREFIX "Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s",
				 arn);
	if (strncmp(slash, "/stream/", 8) != 0 || slash[8] == '\0' || strchr(slash + 8, '/') != NULL)
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "Provided Arn is not a DynamoDB resource arn: %s", arn);
	*stream_label = pstrdup(slash + 8);
}

static char *
resource_arn(Jsonb *request)
{
	char	   *arn = api_jreq_member_text(request, "ResourceArn", "resourceArn");

	if (arn == NULL)
		st_validation_null("resourceArn");
	return arn;
}

/* {"RevisionId": revision}, or {} when there is none. */
static Jsonb *
revision_response(const char *revision, const char *policy)
{
	ApiOut		out;

	api_out_begin(&out);
	if (policy)
	{
		api_out_key(&out, "Policy");
		api_out_string(&out, policy);
	}
	if (revision)
	{
		api_out_key(&out, "RevisionId");
		api_out_string(&out, revision);
	}
	return api_out_end(&out);
}

/*
 * PutResourcePolicy: {ResourceArn, Policy, ExpectedRevisionId?,
 * ConfirmRemoveSelfResourceAccess?}.  ConfirmRemoveSelfResourceAccess
 * acknowledges that a policy may lock its writer out; no policy does
 * here (none is evaluated), so it is accepted and changes nothing.
 */
Jsonb *
api_put_resource_policy(Jsonb *request)
{
	char	   *arn = resource_arn(request);
	char	   *policy = api_jreq_member_text(request, "Policy", "policy");
	char	   *expected = api_jreq_member_text(request, "ExpectedRevisionId", "expectedRevisionId");
	char	   *table;
	char	   *stream;

	(void) api_jreq_member_bool(request, "ConfirmRemoveSelfResourceAccess", "confirmRemoveSelfResourceAccess", false);
	if (policy == NULL)
		st_validation_null("policy");
	resource(arn, &table, &stream);
	return revision_response(ops_policy_put(table, stream, arn, policy, expected), NULL);
}

/* GetResourcePolicy: {ResourceArn} -> {Policy, RevisionId}. */
Jsonb *
api_get_resource_policy(Jsonb *request)
{
	char	   *arn = resource_arn(request);
	char	   *table;
	char	   *stream;
	char	   *policy;
	char	   *revision;

	resource(arn, &table, &stream);
	ops_policy_get(table, stream, arn, &policy, &revision);
	return revision_response(revision, policy);
}

/* DeleteResourcePolicy: {ResourceArn, ExpectedRevisionId?} -> {RevisionId?}. */
Jsonb *
api_delete_resource_policy(Jsonb *request)
{
	char	   *arn = resource_arn(request);
	char	   *expected = api_jreq_member_text(request, "ExpectedRevisionId", "expectedRevisionId");
	char	   *table;
	char	   *stream;

	resource(arn, &table, &stream);
	return revision_response(ops_policy_delete(table, stream, arn, expected), NULL);
}
