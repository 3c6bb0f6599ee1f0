/*-------------------------------------------------------------------------
 *
 * sql_args.h
 *		Reading the friendly functions' arguments.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_SQL_ARGS_H
#define ST_SQL_ARGS_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

/* A text argument as a C string, or NULL when SQL NULL. */
extern char *api_arg_text(FunctionCallInfo fcinfo, int n);

/* A jsonb argument, or NULL when SQL NULL. */
extern Jsonb *api_arg_jsonb(FunctionCallInfo fcinfo, int n);

/* A boolean argument, or `dflt` when SQL NULL. */
extern bool api_arg_bool(FunctionCallInfo fcinfo, int n, bool dflt);

/* A text argument that must be given, or ValidationException naming it. */
extern char *api_arg_required_text(FunctionCallInfo fcinfo, int n, const char *name);

#endif							/* ST_SQL_ARGS_H */
