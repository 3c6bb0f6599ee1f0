/*-------------------------------------------------------------------------
 *
 * sql_convert.c
 *		st_to_plain, st_to_typed, st_item_size, and the catalog's
 *		stdesign.item_size.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "item/av_jsonb.h"
#include "sql_args.h"

PG_FUNCTION_INFO_V1(st_to_plain);
Datum
st_to_plain(PG_FUNCTION_ARGS)
{
	Av		   *item = av_item_from_jsonb(PG_GETARG_JSONB_P(0), true, "item");

	PG_RETURN_JSONB_P(av_item_to_jsonb(item, false));
}

PG_FUNCTION_INFO_V1(st_to_typed);
Datum
st_to_typed(PG_FUNCTION_ARGS)
{
	Av		   *item = av_item_from_jsonb(PG_GETARG_JSONB_P(0), false, "item");

	PG_RETURN_JSONB_P(av_item_to_jsonb(item, true));
}

/* st_item_size(item, typed): the DynamoDB size of an item given in either form */
PG_FUNCTION_INFO_V1(st_item_size);
Datum
st_item_size(PG_FUNCTION_ARGS)
{
	Av		   *item = av_item_from_jsonb(PG_GETARG_JSONB_P(0), api_arg_bool(fcinfo, 1, false), "item");
	int64		size = av_item_size(item);

	if (size > PG_INT32_MAX)
		st_error(ST_ERR_VALIDATION, "Item size has exceeded the maximum allowed size");
	PG_RETURN_INT32((int32) size);
}

/* stdesign.item_size(stored item): for DescribeTable's TableSizeBytes */
PG_FUNCTION_INFO_V1(st_item_size_stored);
Datum
st_item_size_stored(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(av_stored_item_size(PG_GETARG_JSONB_P(0)));
}
