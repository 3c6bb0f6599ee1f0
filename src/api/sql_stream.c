/*-------------------------------------------------------------------------
 *
 * sql_stream.c
 *		The SQL functions of DynamoDB Streams: st_stream_enable,
 *		st_stream_disable (UpdateTable's StreamSpecification) and
 *		st_stream_records (the records of a table's stream, as GetRecords
 *		gives them).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "ops/stream_ops.h"
#include "sql_args.h"

/* The table argument, or the default table when NULL. */
static const char *
table_arg(FunctionCallInfo fcinfo)
{
	char	   *name = api_arg_text(fcinfo, 0);

	return name ? name : catalog_default_table_name();
}

PG_FUNCTION_INFO_V1(st_stream_enable);
Datum
st_stream_enable(PG_FUNCTION_ARGS)
{
	const char *name = table_arg(fcinfo);

	PG_RETURN_JSONB_P(ops_stream_enable(name, api_arg_text(fcinfo, 1)));
}

PG_FUNCTION_INFO_V1(st_stream_disable);
Datum
st_stream_disable(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(ops_stream_disable(table_arg(fcinfo)));
}

PG_FUNCTION_INFO_V1(st_stream_records);
Datum
st_stream_records(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *name = table_arg(fcinfo);
	Numeric		after = PG_ARGISNULL(1) ? NULL : PG_GETARG_NUMERIC(1);
	int			max = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	Jsonb	  **records;
	int			n;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	records = ops_stream_records(name, after, max, &n);
	for (int i = 0; i < n; i++)
	{
		Datum		value = JsonbPGetDatum(records[i]);
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}
