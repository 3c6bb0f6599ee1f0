/*-------------------------------------------------------------------------
 *
 * sql_stream.c
 *		The SQL functions of DynamoDB Streams: st_stream_enable,
 *		st_stream_disable (UpdateTable's StreamSpecification) and
 *		st_stream_records (the records of a table's stream, as GetRecords
 *		gives them); the consumers in SQL (st_stream_consumer_create,
 *		_drop, _reset, st_stream_read, st_stream_wait), st_stream_stats and
 *		st_stream_trim (the retention's trim, now); stdesign.stream_event_id
 *		(a record's eventID, for the SQL readers).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "common/st_record_id.h"
#include "ops/stream_consumers.h"
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

PG_FUNCTION_INFO_V1(st_stream_event_id);
Datum
st_stream_event_id(PG_FUNCTION_ARGS)
{
	text	   *id = (text *) palloc(VARHDRSZ + ST_RECORD_ID_LEN);

	SET_VARSIZE(id, VARHDRSZ + ST_RECORD_ID_LEN);
	st_record_id_hex((uint64) PG_GETARG_INT64(0), (uint64) PG_GETARG_INT64(1), VARDATA(id));
	PG_RETURN_TEXT_P(id);
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

/* ---------- consumers in SQL (ops/stream_consumers.c) ---------- */

PG_FUNCTION_INFO_V1(st_stream_consumer_create);
Datum
st_stream_consumer_create(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_text(fcinfo, 0);
	const char *table = api_arg_text(fcinfo, 1);

	if (table == NULL)
		table = catalog_default_table_name();
	PG_RETURN_JSONB_P(ops_stream_consumer_create(name, table, api_arg_text(fcinfo, 2)));
}

PG_FUNCTION_INFO_V1(st_stream_consumer_drop);
Datum
st_stream_consumer_drop(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ops_stream_consumer_drop(api_arg_text(fcinfo, 0)));
}

PG_FUNCTION_INFO_V1(st_stream_consumer_reset);
Datum
st_stream_consumer_reset(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(ops_stream_consumer_reset(api_arg_text(fcinfo, 0), api_arg_text(fcinfo, 1)));
}

PG_FUNCTION_INFO_V1(st_stream_read);
Datum
st_stream_read(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = api_arg_text(fcinfo, 0);
	char	   *table = api_arg_text(fcinfo, 1);
	int			max = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	Jsonb	  **records;
	int			n;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	records = ops_stream_consumer_read(name, table, max, &n);
	for (int i = 0; i < n; i++)
	{
		Datum		value = JsonbPGetDatum(records[i]);
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_stream_wait);
Datum
st_stream_wait(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_text(fcinfo, 0);
	double		timeout = PG_ARGISNULL(1) ? -1 : PG_GETARG_FLOAT8(1);

	PG_RETURN_BOOL(ops_stream_consumer_wait(name, timeout));
}

/* ---------- retention (ops/stream_retention.c) ---------- */

PG_FUNCTION_INFO_V1(st_stream_stats);
Datum
st_stream_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops_stream_stats(api_arg_text(fcinfo, 0), rsinfo->setResult, rsinfo->setDesc);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_stream_trim);
Datum
st_stream_trim(PG_FUNCTION_ARGS)
{
	int64		deleted = 0;
	int64		rows;

	/* batches (of rows) as the worker deletes them, all in this transaction */
	do
	{
		CHECK_FOR_INTERRUPTS();
		deleted += ops_stream_trim_batch(1000, &rows);
	} while (rows == 1000);
	(void) ops_stream_drop_aged();
	while (ops_stream_dead_letters_trim(1000) == 1000)
		CHECK_FOR_INTERRUPTS();
	PG_RETURN_INT64(deleted);
}
