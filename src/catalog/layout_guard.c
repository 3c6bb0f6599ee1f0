/*-------------------------------------------------------------------------
 *
 * layout_guard.c
 *		The SQL functions of the layout guard: the DDL event triggers of the
 *		extension script call them to refuse DDL that would break a table's
 *		relation (see README, "Layout protection").
 *
 * The guard is a convenience: a relation altered anyway (the event
 * triggers disabled, or the DDL run by stdesign's own code under another
 * name) is still refused when its definition is loaded, by the same check
 * (storage_layout_problem).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "st_catalog.h"
#include "storage/st_layout.h"

/* stdesign.own_ddl(): is a DDL statement of stdesign's own running? */
PG_FUNCTION_INFO_V1(st_own_ddl);
Datum
st_own_ddl(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(storage_in_own_ddl());
}

/* stdesign.check_layout(relid oid): raise if DDL broke a table's relation. */
PG_FUNCTION_INFO_V1(st_check_layout);
Datum
st_check_layout(PG_FUNCTION_ARGS)
{
	catalog_guard_relation(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}

/* stdesign.key_index_name(relation_name text): the name of its key index. */
PG_FUNCTION_INFO_V1(st_key_index_name);
Datum
st_key_index_name(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(storage_key_index_name(text_to_cstring(PG_GETARG_TEXT_PP(0)))));
}
