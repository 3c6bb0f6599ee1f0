/*-------------------------------------------------------------------------
 *
 * st_compat.c
 *		The one call that differs between PostgreSQL majors in more than its
 *		arguments (st_compat.h says what differs where).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/parsenodes.h"

#include "st_common.h"

/*
 * An executor state whose range table is rte alone (index 1), as an UPDATE
 * of updated_cols sees it: the executor tells each index whether its key
 * columns are among them (index_unchanged_by_update).  No permission is
 * checked through it: the caller has checked the table's privileges.
 */
void
st_init_range_table(EState *estate, RangeTblEntry *rte, Bitmapset *updated_cols)
{
#if PG_VERSION_NUM >= 160000
	RTEPermissionInfo *perm = makeNode(RTEPermissionInfo);

	perm->relid = rte->relid;
	perm->inh = false;
	perm->requiredPerms = ACL_UPDATE;
	perm->checkAsUser = InvalidOid;
	perm->updatedCols = updated_cols;
	rte->perminfoindex = 1;
#if PG_VERSION_NUM >= 180000
	ExecInitRangeTable(estate, list_make1(rte), list_make1(perm), bms_make_singleton(1));
#else
	ExecInitRangeTable(estate, list_make1(rte), list_make1(perm));
#endif
#else
	rte->updatedCols = updated_cols;
	ExecInitRangeTable(estate, list_make1(rte));
#endif
}
