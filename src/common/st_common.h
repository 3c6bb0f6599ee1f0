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

#include "st_compat.h"
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
 * An error report: the exception, DynamoDB's message, optionally a JSON
 * text that goes to the ERROR's DETAIL (CancellationReasons, Item, ...),
 * and optionally advice for the user, which goes to its HINT: the message
 * says what is wrong (DynamoDB's words where DynamoDB has them), the hint
 * what to do about it.
 */
typedef struct StErr
{
	StErrCode	code;
	char		message[ST_ERR_MSG_MAX];
	char	   *detail;			/* palloc'd JSON text, or NULL */
	const char *hint;			/* a sentence of advice, or NULL */
} StErr;

/*
 * Make a message valid UTF-8 in place: each byte of a sequence that is
 * invalid or cut short (a quote cut at a byte count) becomes '?'.  Every
 * StErr message goes through it.
 */
extern void st_make_valid_utf8(char *s);

/*
 * Does JSON text (len bytes) hold the escape \u0000, which jsonb cannot
 * store?  Backslashes occur only in JSON strings, each starting one
 * escape, so skipping the escaped character keeps "\\u0000" (a backslash,
 * then "u0000") apart from the real one.
 */
extern bool st_json_has_nul_escape(const char *text, size_t len);

/* Fill *err (printf-style message) and return false, for "return st_fail(...)". */
extern bool st_fail(StErr *err, StErrCode code, const char *fmt,...) pg_attribute_printf(3, 4);

/*
 * DynamoDB's ValidationException for a required member that is missing:
 * "1 validation error detected: Value null at '<path>' failed to satisfy
 * constraint: Member must not be null", the path printf-style.
 */
extern bool st_fail_null(StErr *err, const char *path_fmt,...) pg_attribute_printf(2, 3);

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
extern pg_noreturn void st_raise(const StErr *err);

/* Shorthand: raise a new error directly. */
extern pg_noreturn void st_error(StErrCode code, const char *fmt,...) pg_attribute_printf(2, 3);

/* The same with a hint: advice for the user, apart from the message. */
extern pg_noreturn void st_error_hint(StErrCode code, const char *hint, const char *fmt,...) pg_attribute_printf(3, 4);

/* Raise st_fail_null's ValidationException. */
extern pg_noreturn void st_validation_null(const char *path_fmt,...) pg_attribute_printf(1, 2);

/*
 * Something that cannot happen did: stdesign's own data is inconsistent or a
 * step that cannot fail failed (SPI, a locking result it does not expect).
 * InternalServerError, with a hint to report it.  Every such case is raised
 * through here (or st_fail with ST_ERR_INTERNAL where there is no backend).
 */
extern pg_noreturn void st_internal_error(const char *fmt,...) pg_attribute_printf(1, 2);

/*
 * Postgres's serialization failure for an item changed ("update") or
 * deleted ("delete") by a concurrent transaction, in REPEATABLE READ and
 * SERIALIZABLE: the same SQLSTATE and message as a plain UPDATE's, so that a
 * client retries it the same way.
 */
extern pg_noreturn void st_serialization_failure(const char *what);

#ifndef ST_STANDALONE
/*
 * A background worker's transaction on a Citus coordinator (st_xact.c):
 * after StartTransactionCommand, st_xact_block_begin makes it a transaction
 * block when Citus is in the database (returns whether it did), so that
 * Citus keeps the statements it routes to workers in one distributed
 * transaction; st_xact_block_commit(block) commits it in place of
 * CommitTransactionCommand; an error aborts it with AbortOutOfAnyTransaction.
 */
extern bool st_xact_block_begin(void);
extern void st_xact_block_commit(bool block);
#endif
#endif

#endif							/* ST_COMMON_H */
