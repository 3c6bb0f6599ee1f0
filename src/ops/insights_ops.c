/*-------------------------------------------------------------------------
 *
 * insights_ops.c
 *		Contributor Insights: the setting of a table and of each of its
 *		global secondary indexes (UpdateContributorInsights,
 *		DescribeContributorInsights, ListContributorInsights).
 *
 * The setting lives in insights_mode (NULL: disabled) and
 * insights_updated_at of stdesign.tables and stdesign.indexes, so that it
 * goes with the table or index when either is deleted.  DynamoDB's rules,
 * from its API reference (UpdateContributorInsights,
 * DescribeContributorInsights, ListContributorInsights,
 * ContributorInsightsSummary): insights exist for a table and for each of
 * its global secondary indexes, not for local ones; ENABLE takes
 * ContributorInsightsMode ACCESSED_AND_THROTTLED_KEYS (the default) or
 * THROTTLED_KEYS, and enabling an enabled table again changes its mode.
 * An update answers ENABLING or DISABLING, as DynamoDB does, but takes
 * effect at once: a describe that follows says ENABLED or DISABLED
 * (DynamoDB passes through the first two for a while; there is no
 * CloudWatch rule to create here, so never FAILED; docs/differences.md).
 *
 * The rule names follow DynamoDB's: DynamoDBContributorInsights-, then PKC
 * (most accessed partition keys) and PKT (most throttled), SKC and SKT for
 * the sort key when there is one (the throttled ones only in
 * THROTTLED_KEYS mode), then the table's name, the index's, and the time
 * of the change in epoch milliseconds.  There is no CloudWatch behind them:
 * st_contributor_insights (src/studio) reads the same counts from the
 * traffic counters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lockdefs.h"
#include "utils/builtins.h"

#include "catalog/st_catalog.h"
#include "insights_ops.h"
#include "storage/st_storage.h"

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

static void
put(Av *map, const char *name, Av *value)
{
	av_map_put_nocheck(map, name, strlen(name), value);
}

/* Insights need the columns of the 0.2.0 catalog. */
static void
check_catalog(void)
{
	if (catalog_sql_is_0_1_0())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("stdesign: contributor insights need the catalog of stdesign 0.2.0"),
				 errhint("Run ALTER EXTENSION stdesign UPDATE.")));
}

/*
 * The global secondary index of t named index_name, or
 * ResourceNotFoundException (a local index has no insights of its own).
 */
static StIndex *
global_index(StTable *t, const char *index_name)
{
	StIndex    *ix = catalog_find_index(t, index_name);

	if (ix == NULL || ix->is_local)
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Index: %s not found in table %s", index_name, t->name);
	return ix;
}

/*
 * The mode (NULL: disabled) and the time of the last change in epoch
 * milliseconds (NULL: never changed) of the table or its index.
 */
static void
read_setting(StTable *t, const char *index_name, char **mode, char **updated)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	char		nulls[2] = {' ', index_name ? ' ' : 'n'};
	MemoryContext caller = CurrentMemoryContext;

	*mode = NULL;
	*updated = NULL;
	args[0] = CStringGetTextDatum(t->name);
	args[1] = index_name ? CStringGetTextDatum(index_name) : (Datum) 0;
	SPI_connect();
	if (SPI_execute_with_args(index_name
							  ? "SELECT insights_mode, (pg_catalog.round(EXTRACT(epoch FROM insights_updated_at) * 1000))::pg_catalog.int8::pg_catalog.text"
							  " FROM stdesign.indexes WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " AND index_name OPERATOR(pg_catalog.=) $2"
							  : "SELECT insights_mode, (pg_catalog.round(EXTRACT(epoch FROM insights_updated_at) * 1000))::pg_catalog.int8::pg_catalog.text"
							  " FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " AND $2 IS NULL",
							  2, types, args, nulls, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign's catalog");
	if (SPI_processed != 1)
		st_internal_error("table %s or its index is missing from the catalog", t->name);
	{
		char	   *m = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		char	   *u = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

		*mode = m ? MemoryContextStrdup(caller, m) : NULL;
		*updated = u ? MemoryContextStrdup(caller, u) : NULL;
	}
	SPI_finish();
}

Av *
ops_insights_update(const char *table_name, const char *index_name, bool enable, const char *mode)
{
	/* a setting of the table: self-exclusive, and readers and writers go on */
	StTable    *t = catalog_lookup_locked(table_name, false, ShareUpdateExclusiveLock);
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		args[3];
	char		nulls[3] = {' ', index_name ? ' ' : 'n', enable ? ' ' : 'n'};
	Av		   *out = av_new(AV_M);

	check_catalog();
	storage_prevent_write("UpdateContributorInsights");
	if (index_name)
		(void) global_index(t, index_name);
	/* changing a table's setting is for its owner, as UpdateTable is */
	catalog_check_owner(t);
	if (enable && mode == NULL)
		mode = OPS_INSIGHTS_DEFAULT_MODE;

	/* the table's own name: table_name may be its ARN */
	args[0] = CStringGetTextDatum(t->name);
	args[1] = index_name ? CStringGetTextDatum(index_name) : (Datum) 0;
	args[2] = enable ? CStringGetTextDatum(mode) : (Datum) 0;
	/* as the catalog's owner (docs/security.md); the time changes only with the setting */
	if (catalog_write(index_name
					  ? "UPDATE stdesign.indexes SET insights_mode = $3,"
					  " insights_updated_at = CASE WHEN insights_mode IS NOT DISTINCT FROM $3"
					  " THEN insights_updated_at ELSE pg_catalog.now() END"
					  " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2"
					  : "UPDATE stdesign.tables SET insights_mode = $3,"
					  " insights_updated_at = CASE WHEN insights_mode IS NOT DISTINCT FROM $3"
					  " THEN insights_updated_at ELSE pg_catalog.now() END"
					  " WHERE table_name OPERATOR(pg_catalog.=) $1 AND $2 IS NULL",
					  3, types, args, nulls) != 1)
		st_internal_error("table %s or its index is missing from the catalog", t->name);
	catalog_publish(t->name);

	put(out, "TableName", s_value(t->name));
	if (index_name)
		put(out, "IndexName", s_value(index_name));
	put(out, "ContributorInsightsStatus", s_value(enable ? "ENABLING" : "DISABLING"));
	if (enable)
		put(out, "ContributorInsightsMode", s_value(mode));
	return out;
}

/* The rule names of an enabled table or index (see the banner). */
static Av  *
rule_list(StTable *t, const char *index_name, const char *mode, const char *updated)
{
	static const char *const kinds[4] = {"PKC", "PKT", "SKC", "SKT"};
	bool		has_sk = t->sk.name != NULL;
	bool		throttled_only = strcmp(mode, "THROTTLED_KEYS") == 0;
	Av		   *list = av_new(AV_L);

	if (index_name)
		has_sk = global_index(t, index_name)->sk.name != NULL;
	for (int i = 0; i < 4; i++)
	{
		char	   *name;

		if ((i >= 2 && !has_sk) || (throttled_only && i % 2 == 0))
			continue;
		name = psprintf("DynamoDBContributorInsights-%s-%s%s%s-%s", kinds[i], t->name,
						index_name ? "-" : "", index_name ? index_name : "",
						updated ? updated : "0");
		av_append(list, s_value(name));
	}
	return list;
}

Av *
ops_insights_describe(const char *table_name, const char *index_name)
{
	StTable    *t = catalog_lookup(table_name, false);
	char	   *mode;
	char	   *updated;
	Av		   *out = av_new(AV_M);

	check_catalog();
	if (index_name)
		(void) global_index(t, index_name);
	read_setting(t, index_name, &mode, &updated);
	put(out, "TableName", s_value(t->name));
	if (index_name)
		put(out, "IndexName", s_value(index_name));
	if (mode)
		put(out, "ContributorInsightsRuleList", rule_list(t, index_name, mode, updated));
	put(out, "ContributorInsightsStatus", s_value(mode ? "ENABLED" : "DISABLED"));
	if (updated)
	{
		/* epoch seconds with milliseconds, as DynamoDB's timestamps go out */
		int64		ms = pg_strtoint64(updated);
		char	   *seconds = psprintf(INT64_FORMAT ".%03d", ms / 1000, (int) (ms % 1000));

		put(out, "LastUpdateDateTime", av_new_str(AV_N, seconds, strlen(seconds)));
	}
	if (mode)
		put(out, "ContributorInsightsMode", s_value(mode));
	return out;
}

/*
 * NextToken: "<table>#" after a table, "<table>#<index>" after an index
 * ('#' is in neither name's alphabet).  A token that is not one is refused.
 */
static void
parse_token(const char *token, char **table, char **index)
{
	const char *hash = strchr(token, '#');

	if (hash == NULL || hash == token || strchr(hash + 1, '#') != NULL)
		st_error(ST_ERR_VALIDATION, "Invalid NextToken: %s", token);
	*table = pnstrdup(token, hash - token);
	*index = pstrdup(hash + 1);
}

Av *
ops_insights_list(const char *table_name, int max_results, const char *next_token)
{
	const char *only = NULL;
	char	   *after_table = NULL;
	char	   *after_index = NULL;
	Oid			types[4] = {TEXTOID, TEXTOID, TEXTOID, INT4OID};
	Datum		args[4];
	char		nulls[4] = {'n', 'n', 'n', ' '};
	Av		   *summaries = av_new(AV_L);
	Av		   *out = av_new(AV_M);
	char	   *last = NULL;
	MemoryContext caller = CurrentMemoryContext;
	uint64		n;

	check_catalog();
	if (table_name)
		only = catalog_lookup(table_name, false)->name;
	if (next_token)
		parse_token(next_token, &after_table, &after_index);
	if (only)
	{
		nulls[0] = ' ';
		args[0] = CStringGetTextDatum(only);
	}
	if (after_table)
	{
		nulls[1] = nulls[2] = ' ';
		args[1] = CStringGetTextDatum(after_table);
		args[2] = CStringGetTextDatum(after_index);
	}
	/* one more than a page: is there a next one? */
	args[3] = Int32GetDatum(max_results + 1);
	SPI_connect();
	if (SPI_execute_with_args("SELECT table_name, index_name, insights_mode FROM ("
							  " SELECT table_name, ''::pg_catalog.text COLLATE \"C\" AS index_name, insights_mode"
							  " FROM stdesign.tables"
							  " UNION ALL SELECT table_name, index_name, insights_mode"
							  " FROM stdesign.indexes WHERE NOT is_local) AS s"
							  " WHERE ($1 IS NULL OR table_name OPERATOR(pg_catalog.=) $1)"
							  " AND ($2 IS NULL OR (table_name, index_name) OPERATOR(pg_catalog.>) ($2, $3))"
							  " ORDER BY table_name, index_name LIMIT $4",
							  4, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign's catalog");
	n = SPI_processed;
	for (uint64 i = 0; i < n && i < (uint64) max_results; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *table = SPI_getvalue(row, desc, 1);
		char	   *index = SPI_getvalue(row, desc, 2);
		char	   *mode = SPI_getvalue(row, desc, 3);
		MemoryContext spi = MemoryContextSwitchTo(caller);
		Av		   *s = av_new(AV_M);

		put(s, "TableName", s_value(table));
		if (index[0] != '\0')
			put(s, "IndexName", s_value(index));
		put(s, "ContributorInsightsStatus", s_value(mode ? "ENABLED" : "DISABLED"));
		if (mode)
			put(s, "ContributorInsightsMode", s_value(mode));
		av_append(summaries, s);
		last = psprintf("%s#%s", table, index);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	put(out, "ContributorInsightsSummaries", summaries);
	/* a page that stops short of the end says where the next one starts */
	if (n > (uint64) max_results && last != NULL)
		put(out, "NextToken", s_value(last));
	return out;
}
