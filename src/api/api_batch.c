/*-------------------------------------------------------------------------
 *
 * api_batch.c
 *		st_api handlers (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"

Jsonb *
api_batch_get_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_batch_write_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}
