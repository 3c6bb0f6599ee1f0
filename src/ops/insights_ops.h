/*-------------------------------------------------------------------------
 *
 * insights_ops.h
 *		Contributor Insights: UpdateContributorInsights,
 *		DescribeContributorInsights and ListContributorInsights, the setting
 *		kept per table (stdesign.tables) and per global secondary index
 *		(stdesign.indexes) in insights_mode and insights_updated_at.
 *
 * DynamoDB's insights are CloudWatch rules over its own access logs; the
 * counts behind them here are the per-partition traffic counters
 * (traffic.h), which count whether insights are enabled or not
 * (docs/studio.md, "Contributor Insights").
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_INSIGHTS_OPS_H
#define ST_INSIGHTS_OPS_H

#include "postgres.h"

#include "item/av.h"

/* ContributorInsightsMode, the default when ENABLE names none. */
#define OPS_INSIGHTS_DEFAULT_MODE "ACCESSED_AND_THROTTLED_KEYS"

/*
 * Enable (mode: ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS) or disable
 * insights on table_name (a name or an ARN) or on its global secondary
 * index index_name (NULL: the table), for the relation's owner.  Returns
 * UpdateContributorInsights' answer {TableName, IndexName?,
 * ContributorInsightsStatus, ContributorInsightsMode?}.
 */
extern Av  *ops_insights_update(const char *table_name, const char *index_name,
								bool enable, const char *mode);

/* DescribeContributorInsights' answer for the table or its index. */
extern Av  *ops_insights_describe(const char *table_name, const char *index_name);

/*
 * ListContributorInsights' answer: the tables (or the one named) and their
 * global secondary indexes, by table and index name, up to max_results of
 * them after next_token (NULL: from the first).
 */
extern Av  *ops_insights_list(const char *table_name, int max_results, const char *next_token);

#endif							/* ST_INSIGHTS_OPS_H */
