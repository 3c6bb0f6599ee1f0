/*-------------------------------------------------------------------------
 *
 * st_xact.c
 *		The transaction of a background worker's unit of work (an HTTP
 *		request, a batch of the time-to-live worker) on a Citus coordinator.
 *
 * Citus (docs/citus.md) runs the statements it routes to its workers in
 * one distributed transaction (a transaction block on each worker, two-phase
 * commit across them) only inside a transaction block or a function call.
 * A background worker that calls stdesign's C code directly is neither:
 * each routed statement would then commit on its worker at once, so that a
 * cancelled TransactWriteItems kept its writes and a conditional write
 * lost the lock of its check.  In a database with Citus, the worker's
 * transaction is therefore a transaction block (BEGIN ... COMMIT); without
 * Citus nothing changes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/extension.h"
#include "utils/guc.h"

#include "st_common.h"

/*
 * Right after StartTransactionCommand: make the transaction a transaction
 * block when Citus is in the database.  Returns whether it did; the caller
 * ends it with st_xact_block_commit, or on error AbortOutOfAnyTransaction.
 */
/*
 * Could Citus be at work in this server?  Only if shared_preload_libraries
 * names it (Citus refuses to load otherwise); that setting is fixed at
 * start, so this is looked at once.  When it may be, the extension is
 * looked up in the database at each call as before: the lookup, an index
 * scan of pg_extension, was 7% of a GetItem over the endpoint.
 */
static bool
citus_may_be_loaded(void)
{
	static int	may = -1;

	if (may < 0)
	{
		const char *libs = GetConfigOption("shared_preload_libraries", true, false);

		may = (libs != NULL && strstr(libs, "citus") != NULL) ? 1 : 0;
	}
	return may == 1;
}

bool
st_xact_block_begin(void)
{
	if (!citus_may_be_loaded() || !OidIsValid(get_extension_oid("citus", true)))
		return false;
	BeginTransactionBlock();
	CommitTransactionCommand();
	StartTransactionCommand();
	return true;
}

/* In place of CommitTransactionCommand: commit, ending the block if there is one. */
void
st_xact_block_commit(bool block)
{
	if (block)
		(void) EndTransactionBlock(false);
	CommitTransactionCommand();
}
