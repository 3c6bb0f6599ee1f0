/*-------------------------------------------------------------------------
 *
 * api_items.c
 *		st_api handlers (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"

Jsonb *
api_put_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_get_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_update_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_delete_item(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}
