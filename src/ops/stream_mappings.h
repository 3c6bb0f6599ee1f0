/*-------------------------------------------------------------------------
 *
 * stream_mappings.h
 *		Event source mappings of DynamoDB Streams to SQL functions: their
 *		registration (st_stream_mapping_*) and the steps of a batch that
 *		the stream worker (ttl/stream_worker.c) runs, as the mapping's
 *		role, in one transaction with the mapping's checkpoint.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_MAPPINGS_H
#define ST_STREAM_MAPPINGS_H

#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/tuplestore.h"

/* MaximumRetryAttempts: -1 (until the batch succeeds) to 10000, as Lambda's. */
#define OPS_MAPPING_RETRIES_MAX 10000

/*
 * A mapping as the worker runs it (ops_stream_mapping_lock), in the
 * transaction's memory.
 */
typedef struct OpsStreamMapping
{
	char	   *uuid;
	Oid			role;
	char	   *role_name;
	char	   *table_name;
	int64		stream_id;
	Oid			function;		/* InvalidOid: no longer found */
	char	   *function_name;	/* as stored: schema.name(types) */
	int			batch_size;
	int			max_retries;	/* -1: no bound */
	bool		dead_letter;
	int64		position;
	int			retries;
} OpsStreamMapping;

/* ---------- registration, for the role that calls ---------- */

/*
 * A new mapping of the current user: function (one jsonb argument, no
 * set) called with the batches of the table's latest stream from start
 * (TRIM_HORIZON or LATEST).  Needs EXECUTE on the function and SELECT on
 * the table.  The answer: the mapping as Lambda's CreateEventSourceMapping
 * gives it (UUID, EventSourceArn, FunctionName, BatchSize, ...).
 */
extern Jsonb *ops_stream_mapping_create(const char *table_name, Oid function, int batch_size,
										const char *start, int max_retries, bool dead_letter,
										bool enabled);

/*
 * Change the current user's mapping uuid: each argument given (enabled
 * < 0, batch_size or max_retries INT_MIN, dead_letter < 0: unchanged).
 * Enabling checks the rights again and forgets the failed attempts.
 */
extern Jsonb *ops_stream_mapping_update(const char *uuid, int enabled, int batch_size,
										int max_retries, int dead_letter);

/* Drop the current user's mapping and its dead letters; false when none. */
extern bool ops_stream_mapping_drop(const char *uuid);

/* Into tupstore (st_stream_mappings' columns): the current user's mappings. */
extern void ops_stream_mappings_list(Tuplestorestate *tupstore, TupleDesc desc);

/* Into tupstore: the dead letters of the current user's mappings (of uuid only when given). */
extern void ops_stream_dead_letters_list(const char *uuid, Tuplestorestate *tupstore, TupleDesc desc);

/*
 * Remove the dead letter of the current user's mapping uuid that starts at
 * first_sequence (a consumer's "handled"); false when there was none.
 */
extern bool ops_stream_dead_letter_delete(const char *uuid, int64 first_sequence);

/* ---------- the worker's steps, each in its unit of work ---------- */

/*
 * Are the mappings' catalog tables there (the extension created or
 * updated to a version that has them)?
 */
extern bool ops_stream_mappings_present(void);

/*
 * The enabled mappings whose next attempt is due: all but those waiting
 * for a retry (retry_delay_ms doubled at each failed attempt, at most 64
 * times); their uuids, palloc'd.
 */
extern List *ops_stream_mappings_due(int retry_delay_ms);

/* The mapping, enabled and locked (FOR UPDATE SKIP LOCKED), or NULL. */
extern OpsStreamMapping *ops_stream_mapping_lock(const char *uuid);

/*
 * Why the mapping cannot run at all, or NULL: its role dropped (or its OID
 * given to another), its function dropped or no longer of the signature.
 */
extern char *ops_stream_mapping_problem(const OpsStreamMapping *m);

/*
 * As the mapping's role: may it still EXECUTE the function and read the
 * table's stream (SELECT, no row security), and is the stream still the
 * table's?  Raises otherwise.
 */
extern void ops_stream_mapping_check(const OpsStreamMapping *m);

/*
 * As the mapping's role: the next batch (at most batch_size records after
 * the position) given to the function and the position moved past it, in
 * the caller's transaction; the number of records (0: none, nothing run).
 */
extern int	ops_stream_mapping_invoke(const OpsStreamMapping *m);

/*
 * The batch after m's position failed with error: counted as an attempt;
 * past maximum_retry_attempts the batch goes to the dead letters (when
 * dead_letter) and the position moves past it.  The number of records
 * set aside (0: to be retried).
 */
extern int	ops_stream_mapping_failed(const OpsStreamMapping *m, const char *error);

/* Disable the mapping, reason saying why (StateTransitionReason). */
extern void ops_stream_mapping_disable(const char *uuid, const char *reason);

/*
 * Waiting for new stream records between rounds (the committing writers
 * wake the waiters, see storage_stream_wait_*): begin before the round's
 * reads, sleep at most ms after it, end.
 */
extern void ops_stream_mappings_wait_begin(void);
extern void ops_stream_mappings_wait_sleep(long ms);
extern void ops_stream_mappings_wait_end(void);

#endif							/* ST_STREAM_MAPPINGS_H */
