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
arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

Jsonb *
arg_jsonb(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return PG_GETARG_JSONB_P(n);
}

bool
arg_bool(FunctionCallInfo fcinfo, int n, bool dflt)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return dflt;
	return PG_GETARG_BOOL(n);
}

char *
arg_required_text(FunctionCallInfo fcinfo, int n, const char *name)
{
	char	   *s = arg_text(fcinfo, n);

	if (s == NULL)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null",
				 name);
	return s;
}
