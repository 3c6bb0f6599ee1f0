/*-------------------------------------------------------------------------
 *
 * sql_args.c
 *		Reading the friendly functions' arguments (none of them is STRICT:
 *		a NULL means "not given").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "common/st_common.h"
#include "sql_args.h"

char *
api_arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

Jsonb *
api_arg_jsonb(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return PG_GETARG_JSONB_P(n);
}

bool
api_arg_bool(FunctionCallInfo fcinfo, int n, bool dflt)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return dflt;
	return PG_GETARG_BOOL(n);
}

char *
api_arg_required_text(FunctionCallInfo fcinfo, int n, const char *name)
{
	char	   *s = api_arg_text(fcinfo, n);

	if (s == NULL)
		st_validation_null("%s", name);
	return s;
}
