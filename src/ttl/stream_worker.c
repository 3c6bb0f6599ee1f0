/*-------------------------------------------------------------------------
 *
 * stream_worker.c
 *		The stream worker: runs the stream mappings (ops/stream_mappings.c)
 *		of one database, calling each mapping's SQL function with the next
 *		batch of its table's stream as the role that created it.
 *
 * One worker for the server, in the database the time-to-live worker
 * serves (stdesign.ttl_database, else stdesign.http_database), registered
 * when the library is preloaded: the mappings of every role take turns in
 * it, one batch each per round, so that its work is bounded whatever the
 * roles register (each role has at most 100 mappings).  A round follows a
 * round while some mapping found records; then the worker sleeps until a
 * writer of stream records commits (the consumers' wake-up, see
 * storage_stream_wait_*) or a second passes, which also serves the
 * retries whose delay is over.
 *
 * Each batch is a unit of work (st_work.c): a transaction, as the
 * mapping's role with SECURITY_RESTRICTED_OPERATION through the commit,
 * in a GUC nest level of its own undone at its end, as the time-to-live
 * worker runs a table's expiry as its owner.  In it the mapping's row is
 * locked, the role's rights checked again, the function called with the
 * batch and the checkpoint moved: one commit for the function's writes
 * and the checkpoint.  The function cannot SET ROLE or SET SESSION
 * AUTHORIZATION (nor create temporary tables, LISTEN, PREPARE), and what
 * it sets ends with its batch.  A batch's time is bounded
 * (STREAM_BATCH_TIMEOUT_MS, then a hard limit that ends the worker).  A
 * function can catch the statement timeout's cancel and go on, so the
 * worker may end in the middle of a batch, its failure not recorded: the
 * mapping running is kept in shared memory, and the worker started again
 * records that batch as failed before anything else.  Otherwise the same
 * batch would run first again at every start, end the worker again, and
 * no other mapping of any role would ever run.
 *
 * A failed batch is rolled back whole; a unit of its own (that runs no
 * code of the role) then counts the attempt, or sets the batch aside in
 * the dead letters and moves the checkpoint past it once the mapping's
 * retries are spent.  A mapping that cannot run at all (its role, function,
 * table or stream gone, a grant revoked) is disabled, the reason kept.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timeout.h"
#include "utils/uuid.h"

#include "common/st_work.h"
#include "ops/stream_mappings.h"
#include "ttl.h"

/*
 * A batch's bound: Lambda's functions run 3 seconds by default, at most 15
 * minutes; a batch here gets a minute (its function's statement timeout),
 * then as much again before the worker is ended (st_work_hard_limit).
 */
#define STREAM_BATCH_TIMEOUT_MS 60000

/* The sleep between idle rounds at most: new records wake the worker earlier. */
#define STREAM_IDLE_MS 1000

int			ttl_stream_retry_delay = 1000;

/*
 * The batch the worker is running, in shared memory (only the worker
 * reads and writes it; it outlives the worker, not a restart of the
 * server): set before the mapping's function is called, cleared once the
 * batch's end, success or failure, is known.
 */
typedef struct StreamRunning
{
	bool		running;
	int64		position;		/* the mapping's checkpoint when the batch began */
	char		uuid[UUID_LEN * 2 + 5]; /* the mapping's id as text */
} StreamRunning;

static StreamRunning *stream_running = NULL;

void
ttl_stream_shmem_request(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(StreamRunning)));
}

void
ttl_stream_shmem_startup(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	stream_running = ShmemInitStruct("stdesign stream worker's batch", sizeof(StreamRunning), &found);
	if (!found)
		memset(stream_running, 0, sizeof(StreamRunning));
	LWLockRelease(AddinShmemInitLock);
}

void
ttl_stream_worker_init(void)
{
	BackgroundWorker worker;

	DefineCustomIntVariable("stdesign.stream_mapping_retry_delay",
							"Time before a stream mapping's failed batch is tried again.",
							"Doubled at each further failed attempt, up to 64 times as long.",
							&ttl_stream_retry_delay, 1000, 0, 3600 * 1000, PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "stdesign");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "ttl_stream_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "stdesign stream worker");
	snprintf(worker.bgw_type, BGW_MAXLEN, "stdesign stream worker");
	RegisterBackgroundWorker(&worker);
}

static void
begin_unit(StWork *work, const char *activity)
{
	st_work_begin(work);
	pgstat_report_activity(STATE_RUNNING, activity);
}

static void
end_unit(StWork *work)
{
	disable_timeout(STATEMENT_TIMEOUT, false);
	st_work_commit(work);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * After a unit failed (in its PG_CATCH): the error's message copied into
 * cxt (when cxt is given), the error logged, the transaction aborted.
 */
static char *
abort_unit(StWork *work, MemoryContext cxt)
{
	char	   *message = NULL;

	HOLD_INTERRUPTS();
	disable_timeout(STATEMENT_TIMEOUT, false);
	if (cxt)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);
		ErrorData  *edata = CopyErrorData();

		message = pstrdup(edata->message ? edata->message : "unknown error");
		MemoryContextSwitchTo(old);
	}
	EmitErrorReport();
	st_work_abort(work);
	FlushErrorState();
	pgstat_report_activity(STATE_IDLE, NULL);
	RESUME_INTERRUPTS();
	return message;
}

/* The mappings due now, in cxt; NIL without the extension or its mappings. */
static List *
mappings_due(MemoryContext cxt)
{
	List	   *volatile due = NIL;
	StWork		work;

	begin_unit(&work, "stdesign stream worker: finding the mappings to run");
	PG_TRY();
	{
		if (ops_stream_mappings_present())
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			due = ops_stream_mappings_due(ttl_stream_retry_delay);
			MemoryContextSwitchTo(old);
		}
		end_unit(&work);
	}
	PG_CATCH();
	{
		(void) abort_unit(&work, NULL);
		due = NIL;
	}
	PG_END_TRY();
	return due;
}

/* What went wrong in a batch, for what follows. */
typedef enum BatchFailure
{
	BATCH_OK,
	BATCH_CANNOT_RUN,			/* the role's rights, the function, the table: disable */
	BATCH_FUNCTION_FAILED		/* the function (or the checkpoint): retry */
} BatchFailure;

/*
 * The unit after a failed batch of mapping uuid: disable the mapping, or
 * count the attempt (and maybe set the batch aside), when its position is
 * still position (nobody moved it meanwhile).  Runs no code of the role.
 */
static void
after_failure(const char *uuid, int64 position, BatchFailure failure, const char *error)
{
	StWork		work;

	begin_unit(&work, "stdesign stream worker: recording a failed batch");
	PG_TRY();
	{
		OpsStreamMapping *m;

		enable_timeout_after(STATEMENT_TIMEOUT, STREAM_BATCH_TIMEOUT_MS);
		m = ops_stream_mapping_lock(uuid);
		if (m && m->position == position)
		{
			if (failure == BATCH_CANNOT_RUN)
				ops_stream_mapping_disable(uuid, error);
			else
				(void) ops_stream_mapping_failed(m, error);
		}
		end_unit(&work);
	}
	PG_CATCH();
	{
		(void) abort_unit(&work, NULL);
	}
	PG_END_TRY();
}

/*
 * One batch of mapping uuid in a unit of its own (see above); the number
 * of records processed.  Errors are logged and recorded, not raised.
 */
static int
run_batch(const char *uuid, MemoryContext cxt)
{
	volatile int done = 0;
	volatile BatchFailure stage = BATCH_CANNOT_RUN;
	volatile int64 position = -1;
	char	   *volatile error = NULL;
	StWork		work;
	char		activity[128];

	snprintf(activity, sizeof(activity), "stdesign stream worker: running stream mapping %s", uuid);
	begin_unit(&work, activity);
	PG_TRY();
	{
		OpsStreamMapping *m;

		enable_timeout_after(STATEMENT_TIMEOUT, STREAM_BATCH_TIMEOUT_MS);
		st_work_hard_limit(&work, 2 * STREAM_BATCH_TIMEOUT_MS);
		m = ops_stream_mapping_lock(uuid);
		if (m)
		{
			char	   *problem = ops_stream_mapping_problem(m);

			position = m->position;
			if (problem)
			{
				/* no role to run as: disabled, by the worker itself */
				ereport(LOG,
						(errmsg("stdesign: stream mapping %s disabled: %s", uuid, problem)));
				ops_stream_mapping_disable(uuid, problem);
			}
			else
			{
				st_work_as_role(&work, m->role);
				ops_stream_mapping_check(m);
				stage = BATCH_FUNCTION_FAILED;
				/* should the worker end in the function (see above) */
				if (stream_running)
				{
					strlcpy(stream_running->uuid, uuid, sizeof(stream_running->uuid));
					stream_running->position = position;
					stream_running->running = true;
				}
				done = ops_stream_mapping_invoke(m);
			}
		}
		/* still as the role; what the batch set is undone (st_work.c) */
		end_unit(&work);
	}
	PG_CATCH();
	{
		error = abort_unit(&work, cxt);
		done = 0;
	}
	PG_END_TRY();
	if (stream_running)
		stream_running->running = false;
	if (error && position >= 0)
		after_failure(uuid, position, stage, error);
	return done;
}

/*
 * At the worker's start: a batch the previous worker did not finish (it
 * was ended in the function: the hard limit, or a terminate) is recorded
 * as a failed attempt, so that it is retried after its delay, or set
 * aside, as any failed batch.
 */
static void
unfinished_batch(void)
{
	char		uuid[sizeof(stream_running->uuid)];

	if (stream_running == NULL || !stream_running->running)
		return;
	strlcpy(uuid, stream_running->uuid, sizeof(uuid));
	ereport(LOG,
			(errmsg("stdesign: stream mapping %s: the worker was ended during its batch; the batch counts as failed",
					uuid)));
	after_failure(uuid, stream_running->position, BATCH_FUNCTION_FAILED,
				  psprintf("the batch did not end: the stream worker was ended while the function ran (a batch is cancelled after %d seconds, the worker ended after %d)",
						   STREAM_BATCH_TIMEOUT_MS / 1000, 2 * STREAM_BATCH_TIMEOUT_MS / 1000));
	stream_running->running = false;
}

/* One round: a batch of each mapping due; true when some had records. */
static bool
stream_round(MemoryContext cxt)
{
	ListCell   *lc;
	bool		busy = false;

	MemoryContextReset(cxt);
	foreach(lc, mappings_due(cxt))
	{
		CHECK_FOR_INTERRUPTS();
		if (run_batch(lfirst(lc), cxt) > 0)
			busy = true;
	}
	return busy;
}

void
ttl_stream_worker_main(Datum arg)
{
	MemoryContext cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	BackgroundWorkerInitializeConnection(ttl_served_database(), NULL, 0);
	pgstat_report_appname("stdesign stream worker");
	ereport(LOG,
			(errmsg("stdesign: stream worker serving the stream mappings of database \"%s\"",
					ttl_served_database())));
	cxt = AllocSetContextCreate(TopMemoryContext, "stdesign stream round", ALLOCSET_DEFAULT_SIZES);
	unfinished_batch();

	for (;;)
	{
		bool		busy;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		/* on the waiters' list before the round: a commit during it wakes us */
		ops_stream_mappings_wait_begin();
		busy = stream_round(cxt);
		if (!busy)
			ops_stream_mappings_wait_sleep(STREAM_IDLE_MS);
		ops_stream_mappings_wait_end();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 0, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
