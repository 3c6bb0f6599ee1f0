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

#define ST_INTERNAL_HINT "This is a bug in stdesign: please report it."

/*
 * Messages quote what a request said, cut to a number of bytes (a syntax
 * error's token and excerpt, a name, the whole message at ST_ERR_MSG_MAX):
 * a cut may fall inside a UTF-8 character, and a database that is not UTF-8
 * lets a request carry bytes that are no UTF-8 at all.  DynamoDB's messages
 * are UTF-8 text (the HTTP endpoint sends them in a JSON body, which must be
 * valid UTF-8), so each byte of a sequence that is invalid or cut short
 * becomes '?'.
 */
void
st_make_valid_utf8(char *s)
{
	unsigned char *p = (unsigned char *) s;

	while (*p)
	{
		int			len;
		unsigned int cp;
		bool		ok;

		if (*p < 0x80)
		{
			p++;
			continue;
		}
		len = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
		ok = len > 0;
		cp = len == 2 ? (*p & 0x1F) : len == 3 ? (*p & 0x0F) : (*p & 0x07);
		/* a NUL ends the loop: it is no continuation byte */
		for (int i = 1; i < len && ok; i++)
		{
			ok = (p[i] & 0xC0) == 0x80;
			cp = (cp << 6) | (p[i] & 0x3F);
		}
		/* no overlong forms, surrogates nor code points past U+10FFFF */
		if (ok)
			ok = (len == 2 && cp >= 0x80) ||
				(len == 3 && cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) ||
				(len == 4 && cp >= 0x10000 && cp <= 0x10FFFF);
		if (!ok)
		{
			*p++ = '?';
			continue;
		}
		p += len;
	}
}

bool
st_json_has_nul_escape(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		if (text[i] != '\\')
			continue;
		if (len - i >= 6 && text[i + 1] == 'u' && memcmp(text + i + 2, "0000", 4) == 0)
			return true;
		i++;
	}
	return false;
}

static pg_attribute_printf(3, 0) void
fill(StErr *err, StErrCode code, const char *fmt, va_list args)
{
	err->code = code;
	err->detail = NULL;
	err->hint = code == ST_ERR_INTERNAL ? ST_INTERNAL_HINT : NULL;
	vsnprintf(err->message, sizeof(err->message), fmt, args);
	st_make_valid_utf8(err->message);
}

bool
st_fail(StErr *err, StErrCode code, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	fill(err, code, fmt, args);
	va_end(args);
	return false;
}

bool
st_fail_null(StErr *err, const char *path_fmt,...)
{
	char		path[ST_ERR_MSG_MAX / 2];
	va_list		args;

	va_start(args, path_fmt);
	vsnprintf(path, sizeof(path), path_fmt, args);
	va_end(args);
	return st_fail(err, ST_ERR_VALIDATION,
				   "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null",
				   path);
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

	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("%s: %s", st_exception_name(err->code), err->message),
			 err->detail ? errdetail_internal("%s", err->detail) : 0,
			 err->hint ? errhint("%s", err->hint) : 0));
	pg_unreachable();
}

void
st_error(StErrCode code, const char *fmt,...)
{
	StErr		err;
	va_list		args;

	va_start(args, fmt);
	fill(&err, code, fmt, args);
	va_end(args);
	st_raise(&err);
}

void
st_error_hint(StErrCode code, const char *hint, const char *fmt,...)
{
	StErr		err;
	va_list		args;

	va_start(args, fmt);
	fill(&err, code, fmt, args);
	va_end(args);
	err.hint = hint;
	st_raise(&err);
}

void
st_validation_null(const char *path_fmt,...)
{
	StErr		err;
	char		path[ST_ERR_MSG_MAX / 2];
	va_list		args;

	va_start(args, path_fmt);
	vsnprintf(path, sizeof(path), path_fmt, args);
	va_end(args);
	st_fail_null(&err, "%s", path);
	st_raise(&err);
}

void
st_internal_error(const char *fmt,...)
{
	StErr		err;
	va_list		args;

	va_start(args, fmt);
	fill(&err, ST_ERR_INTERNAL, fmt, args);
	va_end(args);
	st_raise(&err);
}

void
st_serialization_failure(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to concurrent %s", what)));
	pg_unreachable();
}
#endif
