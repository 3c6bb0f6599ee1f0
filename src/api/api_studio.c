/*-------------------------------------------------------------------------
 *
 * api_studio.c
 *		The design studio's own operations, for its page (/studio on the
 *		HTTP endpoint, http_studio.c): X-Amz-Target StDesign_Studio.<Op>,
 *		or st_api('StDesign_Studio.<Op>', request).
 *
 *	 DescribeTableDefinition {TableName}					-> {Table}
 *	 GetModel		{TableName}							-> {TableName, Model}
 *	 SetModel		{TableName, Model}					-> {TableName, Model}
 *	 CheckModel		{TableName}							-> {Checks: [...]}
 *	 ModelCost		{TableName, Rates?, Prices?}		-> {Costs: [...]}
 *	 RunPattern		{TableName, Pattern, Parameters?}	-> {Items: [...], Count}
 *	 Partitions		{TableName, Limit?, SampleItems?}	-> {Partitions, Skew}
 *	 HotPartitions	{TableName, Top?}					-> {HotPartitions, Traffic}
 *
 * Each runs the studio's SQL function of the same purpose (st_get_model,
 * st_set_model, st_check_model, st_model_cost, st_run_pattern,
 * st_partitions and st_partition_skew, st_hot_partitions and
 * st_partition_traffic) as the caller's role, so that it may do exactly
 * what those functions let that role do (SELECT on the table to read,
 * ownership to set a model), with their errors.  The functions are named
 * with the extension's schema: nothing the caller put on its search_path
 * is called.  They are not DynamoDB's operations, so they carry a prefix
 * of stdesign's own; the endpoint gives them the same authentication as
 * DynamoDB's, and under trust the page's token (http_protocol.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api.h"
#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/table_admin.h"

/* The largest Limit, SampleItems and Top the studio's calls take. */
#define STUDIO_MAX_LIMIT	1000
#define STUDIO_MAX_SAMPLE	10000000

/* The extension's schema, quoted, for naming its functions (inside SPI). */
static const char *
ext_schema(void)
{
	bool		isnull;
	Datum		d;

	if (SPI_execute("SELECT n.nspname::text FROM pg_catalog.pg_extension AS e"
					" JOIN pg_catalog.pg_namespace AS n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
					" WHERE e.extname OPERATOR(pg_catalog.=) 'stdesign'", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		st_error(ST_ERR_INTERNAL, "stdesign's schema is not found");
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return quote_identifier(TextDatumGetCString(d));
}

/*
 * Run sql (its %s is the extension's schema) with up to three arguments
 * and return its one jsonb value, copied into the caller's context; NULL
 * for SQL NULL.
 */
static Jsonb *
run_sql(const char *fmt, int nargs, Oid *types, Datum *values, const char *nulls)
{
	MemoryContext caller = CurrentMemoryContext;
	const char *schema;
	char	   *sql;
	Jsonb	   *result = NULL;
	bool		isnull;
	Datum		d;

	SPI_connect();
	schema = ext_schema();
	sql = psprintf(fmt, schema, schema);
	if (SPI_execute_with_args(sql, nargs, types, values, nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		st_error(ST_ERR_INTERNAL, "the studio's query did not return one row");
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		result = DatumGetJsonbPCopy(d);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return result;
}

static Jsonb *
jsonb_of(const char *text)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

/* An optional member that must be a JSON object (or absent/null). */
static Jsonb *
object_member(Jsonb *request, const char *key)
{
	Jsonb	   *v = api_jreq_member(request, key);

	if (v && !api_jreq_is_object(v))
		st_error(ST_ERR_VALIDATION, "%s must be a JSON object", key);
	return v;
}

static int64
bounded_int(Jsonb *request, const char *key, int64 dflt, int64 max)
{
	int64		v = api_jreq_member_int(request, key, key, dflt);

	if (v < 1 || v > max)
		st_error(ST_ERR_VALIDATION, "%s must be from 1 to " INT64_FORMAT, key, max);
	return v;
}

static Datum
text_datum(const char *s)
{
	return CStringGetTextDatum(s);
}

/*
 * DescribeTableDefinition: {TableName} -> {Table}: DescribeTable's
 * TableDescription without its pass over the items (ItemCount,
 * TableSizeBytes and the indexes' counts are 0), for the page's views,
 * which need the keys at once: DescribeTable counts every item (seconds on
 * a table of millions).  It needs what DescribeTable needs to count: SELECT
 * on the table's relation.
 */
Jsonb *
api_studio_describe_table_definition(Jsonb *request)
{
	char	   *name = api_table_name(request);
	StTable    *t = catalog_lookup(name, false);
	Av		   *out = av_new(AV_M);

	if (pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, t->relname);
	av_map_set(out, "Table", 5, ops_table_describe_definition(name));
	return av_item_to_jsonb(out, false);
}

/* GetModel: {TableName} -> {TableName, Model} (Model null: none). */
Jsonb *
api_studio_get_model(Jsonb *request)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {text_datum(api_table_name(request))};

	return run_sql("SELECT jsonb_build_object('TableName', $1::text, 'Model', %s.st_get_model($1))",
				   1, types, values, NULL);
}

/* SetModel: {TableName, Model} -> {TableName, Model}; Model null removes it. */
Jsonb *
api_studio_set_model(Jsonb *request)
{
	Oid			types[2] = {TEXTOID, JSONBOID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	Jsonb	   *model;

	values[0] = text_datum(api_table_name(request));
	model = api_jreq_member(request, "Model");
	if (model)
		values[1] = JsonbPGetDatum(model);
	else
	{
		values[1] = (Datum) 0;
		nulls[1] = 'n';
	}
	return run_sql("SELECT jsonb_build_object('TableName', $1::text, 'Model', %s.st_set_model($1, $2))",
				   2, types, values, nulls);
}

/* CheckModel: {TableName} -> {Checks: st_check_model's rows}. */
Jsonb *
api_studio_check_model(Jsonb *request)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {text_datum(api_table_name(request))};

	return run_sql("SELECT jsonb_build_object('Checks', COALESCE(jsonb_agg(to_jsonb(c)), '[]'))"
				   " FROM %s.st_check_model($1) AS c",
				   1, types, values, NULL);
}

/* ModelCost: {TableName, Rates?, Prices?} -> {Costs: st_model_cost's rows}. */
Jsonb *
api_studio_model_cost(Jsonb *request)
{
	Oid			types[3] = {TEXTOID, JSONBOID, TEXTOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	Jsonb	   *rates;
	char	   *prices;

	values[0] = text_datum(api_table_name(request));
	rates = object_member(request, "Rates");
	prices = api_jreq_member_text(request, "Prices", "Prices");
	values[1] = rates ? JsonbPGetDatum(rates) : (Datum) 0;
	nulls[1] = rates ? ' ' : 'n';
	values[2] = text_datum(prices ? prices : "us-east-1");
	return run_sql("SELECT jsonb_build_object('Costs', COALESCE(jsonb_agg(to_jsonb(c)), '[]'))"
				   " FROM %s.st_model_cost($1, $2, $3) AS c",
				   3, types, values, nulls);
}

/*
 * RunPattern: {TableName, Pattern, Parameters?} -> {Items (typed), Count}:
 * what st_run_pattern returns (a PutItem pattern writes its entity).
 */
Jsonb *
api_studio_run_pattern(Jsonb *request)
{
	Oid			types[3] = {TEXTOID, TEXTOID, JSONBOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	char	   *pattern = api_jreq_member_text(request, "Pattern", "Pattern");
	Jsonb	   *params = object_member(request, "Parameters");

	values[0] = text_datum(api_table_name(request));
	if (pattern == NULL)
		st_error(ST_ERR_VALIDATION, "The parameter 'Pattern' is required but was not present in the request");
	values[1] = text_datum(pattern);
	values[2] = JsonbPGetDatum(params ? params : jsonb_of("{}"));
	return run_sql("SELECT jsonb_build_object('Items', COALESCE(jsonb_agg(i), '[]'), 'Count', count(i))"
				   " FROM %s.st_run_pattern($2, $3, $1, true) AS i",
				   3, types, values, nulls);
}

/*
 * Partitions: {TableName, Limit?, SampleItems?} -> {Partitions:
 * st_partitions' rows, Skew: st_partition_skew's}.
 */
Jsonb *
api_studio_partitions(Jsonb *request)
{
	Oid			types[3] = {TEXTOID, INT8OID, INT8OID};
	Datum		values[3];

	values[0] = text_datum(api_table_name(request));
	values[1] = Int64GetDatum(bounded_int(request, "Limit", 10, STUDIO_MAX_LIMIT));
	values[2] = Int64GetDatum(bounded_int(request, "SampleItems", 100000, STUDIO_MAX_SAMPLE));
	return run_sql("SELECT jsonb_build_object("
				   "'Partitions', (SELECT COALESCE(jsonb_agg(to_jsonb(p)), '[]') FROM %s.st_partitions($1, $2, $3) AS p),"
				   "'Skew', (SELECT COALESCE(jsonb_agg(to_jsonb(s)), '[]') FROM %s.st_partition_skew($1, $3) AS s))",
				   3, types, values, NULL);
}

/*
 * HotPartitions: {TableName, Top?} -> {HotPartitions: st_hot_partitions'
 * rows, Traffic: st_partition_traffic's, the busiest Top}.
 */
Jsonb *
api_studio_hot_partitions(Jsonb *request)
{
	Oid			types[2] = {TEXTOID, INT4OID};
	Datum		values[2];

	values[0] = text_datum(api_table_name(request));
	values[1] = Int32GetDatum((int32) bounded_int(request, "Top", 10, STUDIO_MAX_LIMIT));
	return run_sql("SELECT jsonb_build_object("
				   "'HotPartitions', (SELECT COALESCE(jsonb_agg(to_jsonb(h)), '[]') FROM %s.st_hot_partitions($1, $2) AS h),"
				   "'Traffic', (SELECT COALESCE(jsonb_agg(to_jsonb(t) ORDER BY t.read_units + t.write_units DESC), '[]')"
				   " FROM (SELECT * FROM %s.st_partition_traffic($1) AS x"
				   " ORDER BY x.read_units + x.write_units DESC LIMIT $2) AS t))",
				   2, types, values, NULL);
}
