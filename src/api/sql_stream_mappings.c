/*-------------------------------------------------------------------------
 *
 * sql_stream_mappings.c
 *		The SQL functions of the stream mappings (ops/stream_mappings.c):
 *		st_stream_mapping_create, _update, _drop, st_stream_mappings and
 *		st_stream_dead_letters.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/uuid.h"

#include "common/st_common.h"
#include "ops/stream_mappings.h"
#include "sql_args.h"

/* A uuid argument as text, or NULL. */
static char *
uuid_arg(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return DatumGetCString(DirectFunctionCall1(uuid_out, PG_GETARG_DATUM(n)));
}

PG_FUNCTION_INFO_V1(st_stream_mapping_create);
Datum
st_stream_mapping_create(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(1))
		st_validation_null("FunctionName");
	if (PG_ARGISNULL(2))
		st_validation_null("BatchSize");
	if (PG_ARGISNULL(3))
		st_validation_null("StartingPosition");
	if (PG_ARGISNULL(4))
		st_validation_null("MaximumRetryAttempts");
	PG_RETURN_JSONB_P(ops_stream_mapping_create(api_arg_text(fcinfo, 0), PG_GETARG_OID(1),
												PG_GETARG_INT32(2), api_arg_text(fcinfo, 3),
												PG_GETARG_INT32(4),
												PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5),
												PG_ARGISNULL(6) ? true : PG_GETARG_BOOL(6)));
}

PG_FUNCTION_INFO_V1(st_stream_mapping_update);
Datum
st_stream_mapping_update(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(ops_stream_mapping_update(uuid_arg(fcinfo, 0),
												PG_ARGISNULL(1) ? -1 : PG_GETARG_BOOL(1),
												PG_ARGISNULL(2) ? INT_MIN : PG_GETARG_INT32(2),
												PG_ARGISNULL(3) ? INT_MIN : PG_GETARG_INT32(3),
												PG_ARGISNULL(4) ? -1 : PG_GETARG_BOOL(4)));
}

PG_FUNCTION_INFO_V1(st_stream_mapping_drop);
Datum
st_stream_mapping_drop(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ops_stream_mapping_drop(uuid_arg(fcinfo, 0)));
}

PG_FUNCTION_INFO_V1(st_stream_dead_letter_delete);
Datum
st_stream_dead_letter_delete(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(1))
		st_validation_null("first_sequence");
	PG_RETURN_BOOL(ops_stream_dead_letter_delete(uuid_arg(fcinfo, 0), PG_GETARG_INT64(1)));
}

PG_FUNCTION_INFO_V1(st_stream_mappings);
Datum
st_stream_mappings(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops_stream_mappings_list(rsinfo->setResult, rsinfo->setDesc);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_stream_dead_letters);
Datum
st_stream_dead_letters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops_stream_dead_letters_list(uuid_arg(fcinfo, 0), rsinfo->setResult, rsinfo->setDesc);
	return (Datum) 0;
}
