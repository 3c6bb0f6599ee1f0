/*-------------------------------------------------------------------------
 *
 * api_tables.c
 *		st_api handlers (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"

Jsonb *
api_create_table(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_delete_table(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_describe_table(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_list_tables(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}

Jsonb *
api_update_table(Jsonb *request)
{
	st_error(ST_ERR_UNKNOWN_OPERATION, "not implemented yet");
}
