/*-------------------------------------------------------------------------
 *
 * st_error.c
 *		DynamoDB-style errors: exception names, SQLSTATEs, and raising them.
 *
 * Every error stdesign raises has the message "<ExceptionName>: <message>"
 * and the SQLSTATE of its exception, so that a client can tell exceptions
 * apart by SQLSTATE alone and a human by reading the message.
 *
 *-------------------------------------------------------------------------
 */
#include "st_common.h"

#include <stdarg.h>
#include <stdio.h>

#ifndef ST_STANDALONE
#include "utils/elog.h"
#endif

static const char *const exception_names[] = {
	"",
#define ST_EXCEPTION(sym, name, sqlstate) name,
#include "st_exceptions.h"
#undef ST_EXCEPTION
};

static const char *const exception_sqlstates[] = {
	"00000",
#define ST_EXCEPTION(sym, name, sqlstate) sqlstate,
#include "st_exceptions.h"
#undef ST_EXCEPTION
};

bool
st_fail(StErr *err, StErrCode code, const char *fmt,...)
{
	va_list		args;

	err->code = code;
	err->detail = NULL;
	va_start(args, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, args);
	va_end(args);
	return false;
}

const char *
st_exception_name(StErrCode code)
{
	if (code <= ST_OK || code >= ST_ERR__COUNT)
		return "InternalServerError";
	return exception_names[code];
}

const char *
st_exception_sqlstate(StErrCode code)
{
	if (code <= ST_OK || code >= ST_ERR__COUNT)
		return "XX000";
	return exception_sqlstates[code];
}

#ifndef ST_STANDALONE
void
st_raise(const StErr *err)
{
	const char *state = st_exception_sqlstate(err->code);
	int			sqlstate = MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]);

	if (err->detail)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s: %s", st_exception_name(err->code), err->message),
				 errdetail_internal("%s", err->detail)));
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("%s: %s", st_exception_name(err->code), err->message)));
	pg_unreachable();
}

void
st_error(StErrCode code, const char *fmt,...)
{
	StErr		err;
	va_list		args;

	err.code = code;
	err.detail = NULL;
	va_start(args, fmt);
	vsnprintf(err.message, sizeof(err.message), fmt, args);
	va_end(args);
	st_raise(&err);
}
#endif
