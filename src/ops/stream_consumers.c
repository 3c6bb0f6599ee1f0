/*-------------------------------------------------------------------------
 *
 * stream_consumers.c
 *		Consumers of DynamoDB Streams in SQL: a named, stored checkpoint
 *		in a table's stream that moves in the reader's own transaction,
 *		and a wait for the records after it.
 *
 * A consumer is a row of stdesign.stream_consumers: its role, its name,
 * the table and the stream it reads, and its position (the sequence
 * number of the last record it was given).  ops_stream_consumer_read
 * locks the row (FOR UPDATE), reads the records after the position and
 * moves it past them, all in the caller's transaction: a commit keeps
 * both what the caller derived from the records and the new position, a
 * rollback neither.  That is exactly-once processing, which DynamoDB's
 * own consumers (Lambda's event source mappings, the Kinesis adapter)
 * cannot give: they checkpoint apart from what they write.
 *
 * Two sessions reading one consumer take turns on its row: the second
 * waits for the first's transaction, then (READ COMMITTED) reads the
 * position it left, so that no batch is given twice; in REPEATABLE READ
 * or SERIALIZABLE it gets a serialization failure, to be retried.
 *
 * A consumer is its role's: the row's key is (role, name), so that no
 * role reads, moves or even sees another's.  SELECT on the table (and no
 * row-level security applying on its relation, as for st_stream_records)
 * is checked at every call, not at the consumer's creation only.
 *
 * Waiting: the committing writer of stream records wakes the waiters
 * (storage_stream_wait_*, a condition variable in shared memory when the
 * library is preloaded, else a check every 100 ms).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "storage/stream_capture.h"
#include "stream_consumers.h"
#include "stream_ops.h"

/* A consumer's name: as long as a table's at most. */
#define CONSUMER_NAME_MAX 255

/* st_stream_wait's timeout: at most a day, in seconds. */
#define WAIT_MAX_SECONDS 86400.0

/*
 * The consumer rows of the role $1: its OID, and the name it had when it
 * made them (role_name), as stdesign.backups checks its owner: a dropped
 * role's OID given to a new role (or a restore where OIDs differ) must
 * not hand the old role's consumers to the new one.
 */
#define CONSUMER_OF_ROLE \
	" role OPERATOR(pg_catalog.=) $1::pg_catalog.regrole" \
	" AND role_name OPERATOR(pg_catalog.=) (SELECT r.rolname FROM pg_catalog.pg_roles r" \
	"  WHERE r.oid OPERATOR(pg_catalog.=) $1)"

typedef struct Consumer
{
	char	   *table_name;
	int64		stream_id;
	int64		position;
} Consumer;

static void
check_name(const char *name)
{
	if (name == NULL || name[0] == '\0')
		st_error(ST_ERR_VALIDATION, "1 validation error detected: ConsumerName must not be empty");
	if (strlen(name) > CONSUMER_NAME_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at 'consumerName' failed to satisfy constraint: Member must have length less than or equal to %d",
				 CONSUMER_NAME_MAX);
}

/* TRIM_HORIZON (false) or LATEST (true), as GetShardIterator names them. */
static bool
start_is_latest(const char *start)
{
	if (start && strcmp(start, "TRIM_HORIZON") == 0)
		return false;
	if (start && strcmp(start, "LATEST") == 0)
		return true;
	st_error(ST_ERR_VALIDATION,
			 "1 validation error detected: Value '%s' at 'startingPosition' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST]",
			 start == NULL ? "null" : (strlen(start) > 64 ? "(too long)" : start));
	return false;
}

/*
 * The table's latest stream not left by a deleted table (enabled, or
 * disabled and still readable) and the position a consumer starting there
 * takes: 0 (TRIM_HORIZON) or its last record's (LATEST).
 */
static void
stream_start(const char *table_name, bool latest, int64 *stream_id, int64 *position)
{
	OpsStreamLatest s;

	if (!ops_stream_latest(table_name, latest, &s))
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Table: %s has no stream", table_name);
	*stream_id = s.stream_id;
	*position = latest && s.has_last ? s.last : 0;
}

/* {"ConsumerName", "TableName", "StreamArn", "Position"} */
static Jsonb *
consumer_answer(const char *name, const char *table_name, int64 stream_id, int64 position)
{
	CatalogAsOwner save;
	Oid			types[1] = {INT8OID};
	Datum		args[1];
	char	   *label = NULL;
	StringInfoData s;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = Int64GetDatum(stream_id);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT label FROM stdesign.streams WHERE stream_id OPERATOR(pg_catalog.=) $1",
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	if (SPI_processed == 1)
		label = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	catalog_as_owner_end(&save);

	initStringInfo(&s);
	appendStringInfoString(&s, "{\"ConsumerName\": ");
	escape_json(&s, name);
	appendStringInfoString(&s, ", \"TableName\": ");
	escape_json(&s, table_name);
	if (label)
	{
		appendStringInfoString(&s, ", \"StreamArn\": ");
		escape_json(&s, ops_stream_arn(table_name, label));
	}
	appendStringInfo(&s, ", \"SequenceNumber\": \"" INT64_FORMAT "\"}", position);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(s.data)));
}

/*
 * The current user's consumer name, locked FOR UPDATE when lock; raises
 * ResourceNotFoundException when it has none of that name.
 */
static Consumer *
consumer_get(const char *name, bool lock)
{
	CatalogAsOwner save;
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		args[2];
	bool		isnull;
	Consumer   *c = palloc0(sizeof(Consumer));
	MemoryContext caller = CurrentMemoryContext;

	args[0] = ObjectIdGetDatum(GetUserId());
	args[1] = CStringGetTextDatum(name);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args(lock
							  ? "SELECT table_name, stream_id, position FROM stdesign.stream_consumers"
							  " WHERE" CONSUMER_OF_ROLE
							  " AND consumer_name OPERATOR(pg_catalog.=) $2 FOR UPDATE"
							  : "SELECT table_name, stream_id, position FROM stdesign.stream_consumers"
							  " WHERE" CONSUMER_OF_ROLE
							  " AND consumer_name OPERATOR(pg_catalog.=) $2",
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_consumers");
	if (SPI_processed == 0)
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Consumer: %s not found", name);
	c->table_name = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	c->stream_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	c->position = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	SPI_finish();
	catalog_as_owner_end(&save);
	return c;
}

/*
 * The consumer's table, checked for the reader's right now; raises when
 * the table (or the table the stream was of) is gone.
 */
static StTable *
consumer_table(const char *name, const Consumer *c)
{
	StTable    *t = catalog_lookup(c->table_name, true);
	CatalogAsOwner save;
	Oid			types[1] = {INT8OID};
	Datum		args[1];
	uint64		live;

	if (t == NULL)
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Table: %s not found", c->table_name);
	ops_stream_check_read(t);
	/* a table made again under the name is another table: not this stream's */
	args[0] = Int64GetDatum(c->stream_id);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT 1 FROM stdesign.streams WHERE stream_id OPERATOR(pg_catalog.=) $1"
							  " AND table_deleted_at IS NULL",
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	live = SPI_processed;
	SPI_finish();
	catalog_as_owner_end(&save);
	if (live == 0)
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: the stream consumer %s read of table %s is gone (the table was deleted, or the stream disabled and aged out); reset the consumer to read the table's latest stream",
				 name, c->table_name);
	return t;
}

Jsonb *
ops_stream_consumer_create(const char *name, const char *table_name, const char *start)
{
	bool		latest;
	StTable    *t;
	CatalogAsOwner save;
	Oid			types[5] = {OIDOID, TEXTOID, TEXTOID, INT8OID, INT8OID};
	Datum		args[5];
	int64		stream_id;
	int64		position;
	char	   *tname;

	check_name(name);
	latest = start_is_latest(start);
	t = catalog_lookup(table_name, false);
	ops_stream_check_read(t);
	tname = pstrdup(t->name);

	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	stream_start(tname, latest, &stream_id, &position);
	args[0] = ObjectIdGetDatum(save.userid);
	args[1] = CStringGetTextDatum(name);
	args[2] = CStringGetTextDatum(tname);
	args[3] = Int64GetDatum(stream_id);
	args[4] = Int64GetDatum(position);
	/*
	 * A row of the same key whose role_name is not the role's is not its
	 * consumer (see CONSUMER_OF_ROLE): a dropped role's, whose OID the
	 * role now has, or its own from before a rename, which it no longer
	 * reads; the new consumer takes its place.
	 */
	if (SPI_execute_with_args("INSERT INTO stdesign.stream_consumers AS c"
							  " (role, consumer_name, table_name, stream_id, position, created_at, role_name)"
							  " SELECT $1::pg_catalog.regrole, $2, $3, $4, $5, pg_catalog.now(), r.rolname"
							  " FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $1"
							  " ON CONFLICT (role, consumer_name) DO UPDATE SET table_name = excluded.table_name,"
							  " stream_id = excluded.stream_id, position = excluded.position,"
							  " created_at = excluded.created_at, role_name = excluded.role_name"
							  " WHERE c.role_name OPERATOR(pg_catalog.<>) excluded.role_name",
							  5, types, args, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("could not write stdesign.stream_consumers");
	if (SPI_processed == 0)
		st_error(ST_ERR_RESOURCE_IN_USE, "Consumer already exists: %s", name);
	SPI_finish();
	catalog_as_owner_end(&save);
	return consumer_answer(name, tname, stream_id, position);
}

bool
ops_stream_consumer_drop(const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		args[2];

	check_name(name);
	args[0] = ObjectIdGetDatum(GetUserId());
	args[1] = CStringGetTextDatum(name);
	catalog_check_triggers();
	return catalog_write("DELETE FROM stdesign.stream_consumers"
						 " WHERE" CONSUMER_OF_ROLE
						 " AND consumer_name OPERATOR(pg_catalog.=) $2",
						 2, types, args, NULL) > 0;
}

Jsonb *
ops_stream_consumer_reset(const char *name, const char *start)
{
	bool		latest;
	Consumer   *c;
	StTable    *t;
	CatalogAsOwner save;
	Oid			types[4] = {OIDOID, TEXTOID, INT8OID, INT8OID};
	Datum		args[4];
	int64		stream_id;
	int64		position;

	check_name(name);
	latest = start_is_latest(start);
	c = consumer_get(name, true);
	t = catalog_lookup(c->table_name, false);
	ops_stream_check_read(t);

	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	/* the table's latest stream: a consumer follows a new enabling so */
	stream_start(c->table_name, latest, &stream_id, &position);
	args[0] = ObjectIdGetDatum(save.userid);
	args[1] = CStringGetTextDatum(name);
	args[2] = Int64GetDatum(stream_id);
	args[3] = Int64GetDatum(position);
	if (SPI_execute_with_args("UPDATE stdesign.stream_consumers SET stream_id = $3, position = $4"
							  " WHERE" CONSUMER_OF_ROLE
							  " AND consumer_name OPERATOR(pg_catalog.=) $2",
							  4, types, args, NULL, false, 0) != SPI_OK_UPDATE)
		st_internal_error("could not write stdesign.stream_consumers");
	SPI_finish();
	catalog_as_owner_end(&save);
	return consumer_answer(name, c->table_name, stream_id, position);
}

Jsonb **
ops_stream_consumer_read(const char *name, const char *table_name, int max, int *n)
{
	Consumer   *c;
	Jsonb	  **records;
	int64		last;
	Oid			types[3] = {OIDOID, TEXTOID, INT8OID};
	Datum		args[3];

	*n = 0;
	check_name(name);
	ops_stream_check_max(max);
	/* the turn of this transaction on the consumer (see above) */
	c = consumer_get(name, true);
	if (table_name && strcmp(table_name, c->table_name) != 0)
		st_error(ST_ERR_VALIDATION,
				 "Consumer %s reads the stream of table %s, not of table %s",
				 name, c->table_name, strlen(table_name) > ST_TABLE_NAME_MAX ? "(too long)" : table_name);
	(void) consumer_table(name, c);
	records = ops_stream_records_of(c->stream_id, c->position, max, n, &last);
	if (*n > 0)
	{
		args[0] = ObjectIdGetDatum(GetUserId());
		args[1] = CStringGetTextDatum(name);
		args[2] = Int64GetDatum(last);
		catalog_check_triggers();
		if (catalog_write("UPDATE stdesign.stream_consumers SET position = $3"
						  " WHERE" CONSUMER_OF_ROLE
						  " AND consumer_name OPERATOR(pg_catalog.=) $2",
						  3, types, args, NULL) != 1)
			st_internal_error("could not move consumer %s", name);
	}
	return records;
}

/* Are there records of the stream after position?  (A snapshot of now.) */
static bool
records_after(int64 stream_id, int64 position)
{
	CatalogAsOwner save;
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		args[2];
	bool		found;

	args[0] = Int64GetDatum(stream_id);
	args[1] = Int64GetDatum(position);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT 1 FROM stdesign.stream_records WHERE stream_id OPERATOR(pg_catalog.=) $1"
							  " AND sequence_number OPERATOR(pg_catalog.>) $2 LIMIT 1",
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_records");
	found = SPI_processed > 0;
	SPI_finish();
	catalog_as_owner_end(&save);
	return found;
}

bool
ops_stream_consumer_wait(const char *name, double timeout)
{
	Consumer   *c;
	instr_time	start;
	bool		found = false;

	check_name(name);
	if (isnan(timeout) || timeout < 0 || timeout > WAIT_MAX_SECONDS)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at 'timeout' failed to satisfy constraint: Member must be between 0 and %d seconds",
				 (int) WAIT_MAX_SECONDS);
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("st_stream_wait needs READ COMMITTED"),
				 errdetail("A transaction snapshot never shows the records committed after it was taken.")));
	c = consumer_get(name, false);
	(void) consumer_table(name, c);

	INSTR_TIME_SET_CURRENT(start);
	/* on the waiters' list before looking: a commit after the look wakes us */
	storage_stream_wait_begin();
	for (;;)
	{
		instr_time	now;
		double		left;

		if (records_after(c->stream_id, c->position))
		{
			found = true;
			break;
		}
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		left = timeout - INSTR_TIME_GET_DOUBLE(now);
		if (left <= 0)
			break;
		/* interrupts (a cancel, statement_timeout) are served in there */
		storage_stream_wait_sleep((long) (left * 1000.0) + 1);
	}
	storage_stream_wait_end();
	return found;
}

void
ops_stream_start_position(const char *table_name, const char *start, int64 *stream_id, int64 *position)
{
	bool		latest = start_is_latest(start);
	CatalogAsOwner save;

	catalog_as_owner_begin(&save);
	SPI_connect();
	stream_start(table_name, latest, stream_id, position);
	SPI_finish();
	catalog_as_owner_end(&save);
}
