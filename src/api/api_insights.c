/*-------------------------------------------------------------------------
 *
 * api_insights.c
 *		Contributor Insights: st_api's UpdateContributorInsights,
 *		DescribeContributorInsights and ListContributorInsights.
 *
 * The model's checks (api_validate.c) come first: the types, TableName's
 * and IndexName's rules, ContributorInsightsAction's and
 * ContributorInsightsMode's values, MaxResults at most 100.  What is left
 * here is what the model does not say (insights_ops.c for the rest).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/insights_ops.h"

/*
 * ListContributorInsights' page size when MaxResults is absent: the model's
 * largest (ListContributorInsightsLimit, at most 100).
 */
#define LIST_INSIGHTS_MAX 100

/* The answer, a map of plain values, as the response object. */
static Jsonb *
response(const Av *value)
{
	return av_item_to_jsonb(value, false);
}

/* IndexName, when given (its rules are the model's). */
static char *
index_name(Jsonb *request)
{
	return api_jreq_member_text(request, "IndexName", "IndexName");
}

/*
 * UpdateContributorInsights: {TableName, IndexName?, ContributorInsightsAction,
 * ContributorInsightsMode?}.
 */
Jsonb *
api_update_contributor_insights(Jsonb *request)
{
	static const char *const actions[] = {"ENABLE", "DISABLE"};
	static const char *const modes[] = {"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"};
	char	   *name = api_table_name(request);
	const char *action = api_enum(request, "ContributorInsightsAction", "contributorInsightsAction", actions, 2);
	const char *mode = api_enum(request, "ContributorInsightsMode", "contributorInsightsMode", modes, 2);

	if (action == NULL)
		st_validation_null("contributorInsightsAction");
	return response(ops_insights_update(name, index_name(request),
										strcmp(action, "ENABLE") == 0, mode));
}

/* DescribeContributorInsights: {TableName, IndexName?}. */
Jsonb *
api_describe_contributor_insights(Jsonb *request)
{
	char	   *name = api_table_name(request);

	return response(ops_insights_describe(name, index_name(request)));
}

/* ListContributorInsights: {TableName?, NextToken?, MaxResults?}. */
Jsonb *
api_list_contributor_insights(Jsonb *request)
{
	char	   *name = api_jreq_member_text(request, "TableName", "TableName");
	char	   *token = api_jreq_member_text(request, "NextToken", "NextToken");
	int64		max = api_jreq_member_int(request, "MaxResults", "MaxResults", LIST_INSIGHTS_MAX);

	/*
	 * The model bounds MaxResults above only; a page of none (or fewer)
	 * could never move on, so it is refused with the model's words for a
	 * lower bound (docs/differences.md).
	 */
	if (max < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '" INT64_FORMAT "' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 max);
	if (max > LIST_INSIGHTS_MAX)
		max = LIST_INSIGHTS_MAX;
	if (name)
		name = pstrdup(catalog_table_name(name, "tableName"));
	return response(ops_insights_list(name, (int) max, token));
}
