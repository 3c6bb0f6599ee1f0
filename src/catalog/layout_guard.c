/*-------------------------------------------------------------------------
 *
 * layout_guard.c
 *		The SQL functions of the layout guard: the DDL event triggers of the
 *		extension script call them to refuse DDL that would break a table's
 *		relation (see docs/security.md, "Layout protection").
 *
 * The guard is a convenience: a relation altered anyway (the event
 * triggers disabled, or the DDL run by stdesign's own code under another
 * name) is still refused when its definition is loaded, by the same check
 * (catalog_layout_problem).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "st_catalog.h"
#include "st_layout.h"

/*
 * stdesign.own_ddl(): is a DDL statement of stdesign's own running?  Also
 * true in Citus's connections between nodes: on a worker, the shards of a
 * distributed table (and their set_keys triggers) are created and dropped
 * by the coordinator's DDL, which the guard let through there.
 */
PG_FUNCTION_INFO_V1(st_own_ddl);
Datum
st_own_ddl(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(catalog_in_own_ddl() || catalog_citus_internal_session());
}

/* stdesign.check_layout(relid oid): raise if DDL broke a table's relation. */
PG_FUNCTION_INFO_V1(st_check_layout);
Datum
st_check_layout(PG_FUNCTION_ARGS)
{
	catalog_guard_relation(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}
