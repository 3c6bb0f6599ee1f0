/*-------------------------------------------------------------------------
 *
 * st_work.c
 *		A background worker's unit of work (an HTTP request, a batch of the
 *		time-to-live worker) on behalf of a role.
 *
 * The workers connect as the bootstrap superuser and run, for each unit,
 * code a role can influence: its triggers, defaults, policies and
 * functions on its tables.  Every worker runs such a unit here, so that:
 *
 *   - the unit runs as the role with SECURITY_LOCAL_USERID_CHANGE |
 *     SECURITY_RESTRICTED_OPERATION (as REFRESH MATERIALIZED VIEW and
 *     autovacuum's index functions run as the table's owner), so that
 *     nothing it runs can SET ROLE, create temporary tables, LISTEN,
 *     PREPARE or keep a cursor open past the unit;
 *   - it stays so through the commit, so that nothing the role planted
 *     ever runs with the worker's rights.  Postgres fires no deferred
 *     trigger inside a security-restricted operation (afterTriggerMarkEvents
 *     refuses it: the trigger could outlive the restriction), so the unit
 *     runs with SET CONSTRAINTS ALL IMMEDIATE, as that refusal suggests:
 *     constraint triggers declared DEFERRABLE INITIALLY DEFERRED, and
 *     deferred constraints, fire at the end of their statement, as the
 *     role; one that code of the role defers again (SET CONSTRAINTS ...
 *     DEFERRED) is refused, failing the unit.  None is left for the
 *     commit, which runs as the role all the same;
 *   - the unit has a GUC nest level of its own, undone before the commit
 *     (as a SECURITY DEFINER function's SET is undone at its exit): a
 *     set_config(..., false) of one request or batch is a session-level
 *     setting that the commit would otherwise keep for every later unit of
 *     the worker, whoever's it is (search_path, read-only transactions, a
 *     placeholder setting).  Each unit thus starts from the worker's own
 *     settings: the server's (postgresql.conf, ALTER SYSTEM, ALTER DATABASE),
 *     never from what an earlier unit set; a role's own ALTER ROLE ... SET
 *     settings do not apply (no login of the role takes place);
 *   - the session-level advisory locks the unit took (pg_advisory_lock,
 *     which a security-restricted operation allows, unlike the rest of a
 *     session's state above) are released at its end, committed or not:
 *     kept by the worker, they would block other sessions' lockers for as
 *     long as the worker lives, and be held already, or released, by
 *     another role's later unit.
 *
 * An error anywhere aborts the transaction, which undoes the settings and
 * restores the user as well (but keeps session-level locks: see above).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
#include "utils/timeout.h"

#include "st_common.h"
#include "st_work.h"

/*
 * A limit that code of the role cannot catch.  A unit's own time bound
 * (the HTTP request timeout, the TTL batch's) is a statement timeout, a
 * query_canceled ERROR, which a role's PL/pgSQL can catch (EXCEPTION WHEN
 * query_canceled) and loop on, keeping the worker for ever.  Past the hard
 * limit the worker ends as pg_terminate_backend ends a backend: the next
 * CHECK_FOR_INTERRUPTS raises FATAL, which no handler catches, the
 * transaction is rolled back, and the postmaster starts the worker again.
 */
static TimeoutId hard_limit_id = MAX_TIMEOUTS;

/* The timeout's handler (SIGALRM): what die() does for SIGTERM. */
static void
hard_limit_reached(void)
{
	InterruptPending = true;
	ProcDiePending = true;
	SetLatch(MyLatch);
}

void
st_work_hard_limit(StWork *work, int ms)
{
	if (ms <= 0)
		return;
	if (hard_limit_id == MAX_TIMEOUTS)
		hard_limit_id = RegisterTimeout(USER_TIMEOUT, hard_limit_reached);
	enable_timeout_after(hard_limit_id, ms);
	work->hard_limit = true;
}

static void
hard_limit_off(StWork *work)
{
	if (work->hard_limit)
		disable_timeout(hard_limit_id, false);
	work->hard_limit = false;
}

void
st_work_begin(StWork *work)
{
	GetUserIdAndSecContext(&work->save_user, &work->save_sec);
	work->as_role = false;
	work->hard_limit = false;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	/* on a Citus coordinator, a block: one distributed transaction (st_xact.c) */
	work->block = st_xact_block_begin();
	work->nest = NewGUCNestLevel();
	PushActiveSnapshot(GetTransactionSnapshot());
}

void
st_work_as_role(StWork *work, Oid role)
{
	ConstraintsSetStmt *all_immediate = makeNode(ConstraintsSetStmt);

	/* deferred triggers at the end of their statement (see above) */
	all_immediate->constraints = NIL;
	all_immediate->deferred = false;
	AfterTriggerSetState(all_immediate);
	SetUserIdAndSecContext(role, work->save_sec |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	work->as_role = true;
}

void
st_work_commit(StWork *work)
{
	PopActiveSnapshot();

	/*
	 * Deferred triggers still queued (none, as a role's unit runs them at
	 * the end of their statements; a unit that did not switch to a role
	 * ran nothing of one), still as the role and inside the unit's nest
	 * level, so that what they set is undone below; the commit then finds
	 * none left.
	 */
	AfterTriggerFireDeferred();
	AtEOXact_GUC(false, work->nest);
	hard_limit_off(work);
	/* as the role: whatever else runs at commit runs restricted */
	st_xact_block_commit(work->block);
	SetUserIdAndSecContext(work->save_user, work->save_sec);
	work->as_role = false;
	/* the unit's session-level advisory locks (see above) */
	LockReleaseSession(USER_LOCKMETHOD);
}

void
st_work_abort(StWork *work)
{
	hard_limit_off(work);
	if (work->block)
		AbortOutOfAnyTransaction();
	else
		AbortCurrentTransaction();
	/* the abort restored the user the transaction began with: the worker's */
	SetUserIdAndSecContext(work->save_user, work->save_sec);
	work->as_role = false;
	/* an abort keeps session-level advisory locks: released here (see above) */
	LockReleaseSession(USER_LOCKMETHOD);
}
