/*-------------------------------------------------------------------------
 *
 * ttl_worker.c
 *		The time-to-live worker: every stdesign.ttl_interval seconds, the
 *		expired items of each table with time to live enabled are deleted
 *		(ops_expire_batch), stdesign.ttl_batch_size items per transaction.
 *
 * One worker serves one database, as pg_cron does: stdesign.ttl_database,
 * by default the HTTP endpoint's (stdesign.http_database, itself
 * "postgres" by default).  It looks for the extension at every round, so a
 * database where stdesign is created (or updated from 0.1.0) later is
 * served from the next round on, and one without it costs a catalog
 * lookup.
 *
 * Short transactions, no long locks: each batch is a transaction of its
 * own, and the items other transactions hold are skipped (FOR UPDATE SKIP
 * LOCKED) until a later round.  Each table's batches run as the owner of
 * the table's relation (the worker connects as the bootstrap superuser and
 * switches, as SET ROLE would), so that triggers and row security see the
 * deletes as the owner's own; the switch is a security-restricted one that
 * lasts through the commit, and what a batch sets is undone at its end
 * (st_work.c), so that nothing the owner plants (a deferred trigger, a
 * set_config) runs as the superuser or outlives its batch; an error on one table is logged and the
 * worker goes on with the next.  A batch's lock waits and its time are
 * bounded (TTL_LOCK_TIMEOUT_MS, TTL_BATCH_TIMEOUT_MS), so that an owner
 * holding a lock on its own relation (LOCK TABLE in an open transaction),
 * or a trigger of its that sleeps, cannot stop time to live for the other
 * owners' tables: its batch fails like any error, and is tried again at
 * the next round.  The worker shows in pg_stat_activity
 * (backend_type "stdesign ttl worker", what it does as the query), is
 * restarted by the postmaster when it dies, and ends on SIGTERM.
 *
 * Each round also trims DynamoDB Streams' records past their retention
 * (stdesign.stream_retention, ops/stream_retention.c), in batches of
 * stdesign.ttl_batch_size records, each its own transaction, and removes
 * the streams left with none after their retention.  That work touches
 * stdesign's own catalog only, and runs as its owner, not as any role.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "lib/stringinfo.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timeout.h"

#include "catalog/st_catalog.h"
#include "common/st_work.h"
#include "ops/stream_consumers.h"
#include "ops/ttl_ops.h"
#include "ttl.h"

/*
 * A batch's bounds (see above): DynamoDB deletes expired items "within a
 * few days", so a table whose lock is not granted within a second waits
 * for the next round.
 */
#define TTL_LOCK_TIMEOUT_MS 1000
#define TTL_BATCH_TIMEOUT_MS 60000

int			ttl_interval = 60;
int			ttl_batch_size = 500;
char	   *ttl_database = NULL;

void
ttl_init(void)
{
	BackgroundWorker worker;

	DefineCustomIntVariable("stdesign.ttl_interval",
							"Time between two rounds of the time-to-live worker.",
							"Each round deletes the expired items of every table with time to live enabled.",
							&ttl_interval, 60, 1, 86400, PGC_SIGHUP, GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.ttl_batch_size",
							"Expired items the time-to-live worker deletes per transaction.",
							NULL, &ttl_batch_size, 500, 1, 10000, PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomStringVariable("stdesign.ttl_database",
							   "The database whose tables the time-to-live worker serves.",
							   "Empty: the database of stdesign.http_database.",
							   &ttl_database, "", PGC_POSTMASTER, 0,
							   NULL, NULL, NULL);

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "stdesign");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "ttl_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "stdesign ttl worker");
	snprintf(worker.bgw_type, BGW_MAXLEN, "stdesign ttl worker");
	RegisterBackgroundWorker(&worker);
}

const char *
ttl_served_database(void)
{
	const char *http;

	if (ttl_database && ttl_database[0] != '\0')
		return ttl_database;
	http = GetConfigOption("stdesign.http_database", true, false);
	return http && http[0] != '\0' ? http : "postgres";
}

/* A unit of work of the worker (st_work.c), showing in pg_stat_activity. */
static void
begin_transaction(StWork *work, const char *activity)
{
	st_work_begin(work);
	pgstat_report_activity(STATE_RUNNING, activity);
}

static void
end_transaction(StWork *work)
{
	st_work_commit(work);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* After a unit of work failed (in its PG_CATCH): the error logged, the transaction aborted. */
static void
abort_transaction(StWork *work)
{
	HOLD_INTERRUPTS();
	disable_timeout(STATEMENT_TIMEOUT, false);
	EmitErrorReport();
	st_work_abort(work);
	FlushErrorState();
	pgstat_report_activity(STATE_IDLE, NULL);
	RESUME_INTERRUPTS();
}

/* The tables with time to live enabled, in cxt; NIL without the extension. */
static List *
tables_to_serve(MemoryContext cxt)
{
	List	   *tables = NIL;
	StWork		work;

	begin_transaction(&work, "stdesign ttl: finding the tables with time to live enabled");
	if (OidIsValid(get_extension_oid("stdesign", true)))
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		tables = ops_ttl_tables();
		MemoryContextSwitchTo(old);
	}
	end_transaction(&work);
	return tables;
}

/*
 * Bound the batch's lock waits (local to its transaction, within the
 * unit's nest level; a shorter lock_timeout of the server's is kept) and
 * its time.
 */
static void
bound_batch(void)
{
	if (LockTimeout <= 0 || LockTimeout > TTL_LOCK_TIMEOUT_MS)
		(void) set_config_option("lock_timeout", CppAsString2(TTL_LOCK_TIMEOUT_MS), PGC_SUSET,
								 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	enable_timeout_after(STATEMENT_TIMEOUT, TTL_BATCH_TIMEOUT_MS);
}

/*
 * One batch of one table, in a transaction of its own, as the owner of its
 * relation, through the commit (st_work.c); *more when the batch was full.
 * Errors are logged, not raised.
 */
static int64
expire_batch(const char *name, bool *more)
{
	volatile int64 deleted = 0;
	StWork		work;
	char		activity[ST_TABLE_NAME_MAX + 64];

	/* not allocated: between transactions it would stay in TopMemoryContext */
	snprintf(activity, sizeof(activity), "stdesign ttl: deleting the expired items of table %s", name);
	*more = false;
	begin_transaction(&work, activity);
	PG_TRY();
	{
		StTable    *t;
		char	   *attribute;

		bound_batch();
		/* past its statement timeout by as much again, whatever catches it */
		st_work_hard_limit(&work, 2 * TTL_BATCH_TIMEOUT_MS);
		t = catalog_lookup(name, true);
		attribute = t ? ops_ttl_attribute(t->name) : NULL;
		if (attribute)
		{
			st_work_as_role(&work, catalog_relation_owner(t->relid));
			deleted = ops_expire_batch(t, attribute, ttl_batch_size, more);
		}
		/* a cancel that arrived meanwhile is raised here, in the batch */
		disable_timeout(STATEMENT_TIMEOUT, false);
		/* still as the owner; what the batch set is undone (st_work.c) */
		end_transaction(&work);
	}
	PG_CATCH();
	{
		/* the abort restores the user; the next table gets its turn */
		abort_transaction(&work);
		*more = false;
		deleted = 0;
	}
	PG_END_TRY();
	return deleted;
}

/*
 * One round: every table's expired items, batch after batch.  A round that
 * deleted something says so in the log, one line with the count of each
 * table ("deleted 21 expired items: Sessions 19, Carts 2"), so that items
 * that vanish can be traced to the worker; a round that deleted nothing
 * says nothing.
 */
static void
ttl_round(MemoryContext cxt)
{
	ListCell   *lc;
	StringInfoData tables;
	int64		all = 0;

	MemoryContextReset(cxt);
	/*
	 * In the round's context, which no transaction resets; appending
	 * enlarges the buffer where it was allocated, whatever context the
	 * batches' transactions leave current.
	 */
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		initStringInfo(&tables);
		MemoryContextSwitchTo(old);
	}
	foreach(lc, tables_to_serve(cxt))
	{
		const char *name = lfirst(lc);
		bool		more = true;
		int64		total = 0;

		while (more)
		{
			CHECK_FOR_INTERRUPTS();
			total += expire_batch(name, &more);
		}
		if (total > 0)
		{
			appendStringInfo(&tables, "%s%s " INT64_FORMAT, all > 0 ? ", " : "", name, total);
			all += total;
		}
	}
	if (all > 0)
		ereport(LOG,
				(errmsg("stdesign: time to live deleted " INT64_FORMAT " expired %s: %s",
						all, all == 1 ? "item" : "items", tables.data)));
}

/* What a batch of stream_trim_batch does */
typedef enum StreamTrimStep
{
	TRIM_RECORDS,				/* records past their retention */
	TRIM_STREAMS,				/* streams aged out */
	TRIM_DEAD_LETTERS			/* mappings' dead letters past theirs */
} StreamTrimStep;

/*
 * One batch of the streams' trim (the records, the streams aged out, or
 * the dead letters), in a transaction of its own; errors are logged.
 */
static int64
stream_trim_batch(StreamTrimStep step, int64 *rows)
{
	volatile int64 done = 0;
	int64		records_rows = 0;
	StWork		work;

	begin_transaction(&work, step == TRIM_STREAMS ? "stdesign ttl: removing aged-out streams"
					  : step == TRIM_DEAD_LETTERS ? "stdesign ttl: deleting dead letters past their retention"
					  : "stdesign ttl: trimming stream records past their retention");
	PG_TRY();
	{
		bound_batch();
		st_work_hard_limit(&work, 2 * TTL_BATCH_TIMEOUT_MS);
		if (OidIsValid(get_extension_oid("stdesign", true)) &&
			OidIsValid(get_relname_relid("stream_records", get_namespace_oid("stdesign", true))))
			done = step == TRIM_STREAMS ? ops_stream_drop_aged()
				: step == TRIM_DEAD_LETTERS ? ops_stream_dead_letters_trim(ttl_batch_size)
				: ops_stream_trim_batch(ttl_batch_size, &records_rows);
		disable_timeout(STATEMENT_TIMEOUT, false);
		end_transaction(&work);
	}
	PG_CATCH();
	{
		abort_transaction(&work);
		done = -1;
	}
	PG_END_TRY();
	/* the records' trim counts rows against the batch, and returns records */
	*rows = step == TRIM_RECORDS && done >= 0 ? records_rows : done;
	return done;
}

/*
 * The streams' records past their retention, batch after batch; then the
 * streams left empty; then the dead letters past theirs, batch after batch.
 */
static void
stream_trim_round(void)
{
	int64		total = 0;
	int64		letters = 0;
	int64		batch;
	int64		rows;
	int64		dropped;

	do
	{
		CHECK_FOR_INTERRUPTS();
		batch = stream_trim_batch(TRIM_RECORDS, &rows);
		total += Max(batch, 0);
	} while (rows >= ttl_batch_size);
	dropped = stream_trim_batch(TRIM_STREAMS, &rows);
	do
	{
		CHECK_FOR_INTERRUPTS();
		batch = stream_trim_batch(TRIM_DEAD_LETTERS, &rows);
		letters += Max(batch, 0);
	} while (rows >= ttl_batch_size);
	if (total > 0 || dropped > 0 || letters > 0)
		ereport(LOG,
				(errmsg("stdesign: trimmed " INT64_FORMAT " stream records past their retention, removed " INT64_FORMAT " streams and " INT64_FORMAT " dead letters",
						total, Max(dropped, 0), letters)));
}

void
ttl_worker_main(Datum arg)
{
	MemoryContext cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	BackgroundWorkerInitializeConnection(ttl_served_database(), NULL, 0);
	pgstat_report_appname("stdesign ttl");
	ereport(LOG,
			(errmsg("stdesign: time-to-live worker serving database \"%s\" every %d s",
					ttl_served_database(), ttl_interval)));
	cxt = AllocSetContextCreate(TopMemoryContext, "stdesign ttl round", ALLOCSET_DEFAULT_SIZES);

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		ttl_round(cxt);
		stream_trim_round();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) ttl_interval * 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
