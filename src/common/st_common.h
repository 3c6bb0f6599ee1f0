/*-------------------------------------------------------------------------
 *
 * st_common.h
 *		What every stdesign module shares: memory allocation and the error
 *		report that the backend-independent layers return.
 *
 * The item model and the expression language are written so that they can
 * be compiled without a Postgres backend (define ST_STANDALONE), which is
 * how the unit tests and the fuzz targets build them.  Those layers never
 * call ereport(): they fill an StErr and return false, and the SQL-facing
 * layer turns that into an ERROR (st_raise()).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_COMMON_H
#define ST_COMMON_H

#ifdef ST_STANDALONE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t uint8;
typedef int32_t int32;
typedef uint32_t uint32;
typedef int64_t int64;
typedef uint64_t uint64;

/*
 * A standalone program's palloc: every allocation is remembered so that
 * st_standalone_reset() can free them all at once, the way a memory context
 * reset does in the backend.  Aborts on out-of-memory.
 */
extern void *palloc(size_t size);
extern void *palloc0(size_t size);
extern void *repalloc(void *ptr, size_t size);
extern void pfree(void *ptr);
extern char *pstrdup(const char *s);
extern char *pnstrdup(const char *s, size_t len);
extern void st_standalone_reset(void);

#ifndef lengthof
#define lengthof(array) (sizeof (array) / sizeof ((array)[0]))
#endif
#ifndef Max
#define Max(x, y)		((x) > (y) ? (x) : (y))
#define Min(x, y)		((x) < (y) ? (x) : (y))
#endif
#ifndef pg_attribute_printf
#define pg_attribute_printf(f,a) __attribute__((format(printf, f, a)))
#endif
#else
#include "postgres.h"
#endif

/* The exceptions, as an enum (see st_exceptions.h). */
typedef enum StErrCode
{
	ST_OK = 0,
#define ST_EXCEPTION(sym, name, sqlstate) sym,
#include "st_exceptions.h"
#undef ST_EXCEPTION
	ST_ERR__COUNT
} StErrCode;

#define ST_ERR_MSG_MAX 1024

/*
 * An error report: the exception, DynamoDB's message, and optionally a JSON
 * text that goes to the ERROR's DETAIL (CancellationReasons, Item, ...).
 */
typedef struct StErr
{
	StErrCode	code;
	char		message[ST_ERR_MSG_MAX];
	char	   *detail;			/* palloc'd JSON text, or NULL */
} StErr;

/* Fill *err (printf-style message) and return false, for "return st_fail(...)". */
extern bool st_fail(StErr *err, StErrCode code, const char *fmt,...) pg_attribute_printf(3, 4);

/* The DynamoDB exception name of a code ("ValidationException"). */
extern const char *st_exception_name(StErrCode code);

/* The SQLSTATE text of a code ("SD001"). */
extern const char *st_exception_sqlstate(StErrCode code);

#ifndef ST_STANDALONE
/*
 * The position of the first of names[0..n-1] that repeats an earlier one,
 * or -1; O(n log n), for request lists of any length.
 */
extern int	st_first_duplicate(const char *const *names, int n);

/* Raise *err as a Postgres ERROR: "<ExceptionName>: <message>". Never returns. */
extern void st_raise(const StErr *err) pg_attribute_noreturn();

/* Shorthand: raise a new error directly. */
extern void st_error(StErrCode code, const char *fmt,...) pg_attribute_printf(2, 3) pg_attribute_noreturn();
#endif

#endif							/* ST_COMMON_H */
