/*-------------------------------------------------------------------------
 *
 * api_query.c
 *		st_api handlers (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"

Jsonb *
api_query(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_scan(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}
