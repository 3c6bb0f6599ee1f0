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

#include "st_common.h"

/*
 * Right after StartTransactionCommand: make the transaction a transaction
 * block when Citus is in the database.  Returns whether it did; the caller
 * ends it with st_xact_block_commit, or on error AbortOutOfAnyTransaction.
 */
bool
st_xact_block_begin(void)
{
	if (!OidIsValid(get_extension_oid("citus", true)))
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
