/*-------------------------------------------------------------------------
 *
 * api_transact.c
 *		st_api handlers (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"

Jsonb *
api_transact_write_items(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_transact_get_items(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}
