/*-------------------------------------------------------------------------
 *
 * stream_retention.c
 *		How long DynamoDB Streams' records are kept, their trimming, and
 *		what a stream costs (st_stream_stats).
 *
 * DynamoDB keeps a stream's records for 24 hours
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html:
 * "All data in DynamoDB Streams is subject to a 24-hour lifetime"), and
 * a stream of a deleted table, or a disabled one, stays readable for as
 * long.  stdesign.stream_retention sets that time (seconds, a day by
 * default; a few seconds in tests).  The time-to-live worker trims, at
 * each of its rounds, the records older than that, ops_stream_trim_batch
 * records per transaction, so that a stream's storage is bounded by its
 * retention; then it removes the streams that were disabled, or whose
 * table was deleted, longer ago than the retention and have no record
 * left (ops_stream_drop_aged), and the stream mappings' dead letters
 * older than stdesign.stream_dead_letter_retention (four days by default).
 *
 * Writers are never blocked: the trim deletes rows of
 * stdesign.stream_records, which takes the ROW EXCLUSIVE lock that the
 * writers' inserts take too (no conflict), and only rows no writer
 * touches again.  Removing a stream takes that stream's own lock
 * (storage_stream_lock), which no writer of it holds by then (its table
 * has no capture trigger any more), so that no late commit writes
 * records to a stream that is gone.
 *
 * A batch finds its records through the records' primary key: per
 * stream, the oldest records in key order (sequence number, which is
 * commit order), at most a batch of them each, those past the
 * retention deleted by their row addresses.  A round with nothing to trim
 * reads a few index entries per stream, not the whole table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/rls.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "storage/stream_capture.h"
#include "stream_consumers.h"
#include "stream_ops.h"

int			ops_stream_retention = 86400;
int			ops_stream_dead_letter_retention = 345600;

void
ops_stream_retention_init(void)
{
	DefineCustomIntVariable("stdesign.stream_retention",
							"How long the records of DynamoDB Streams are kept.",
							"Older records are deleted by the time-to-live worker; a disabled stream, "
							"or one of a deleted table, is removed as long after it stopped.",
							&ops_stream_retention, 86400, 1, INT_MAX / 2, PGC_SUSET, GUC_UNIT_S,
							NULL, NULL, NULL);

	/*
	 * Four days, the default retention of the SQS queue that is a Lambda
	 * mapping's usual on-failure destination
	 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html:
	 * MessageRetentionPeriod "Default: 345,600 (4 days)", at most 14 days):
	 * a mapping that keeps failing writes a batch of up to 1 MB each time,
	 * so that the dead letters need a bound as the records do.
	 */
	DefineCustomIntVariable("stdesign.stream_dead_letter_retention",
							"How long the dead letters of stream mappings are kept.",
							"Older dead letters are deleted by the time-to-live worker.",
							&ops_stream_dead_letter_retention, 345600, 1, INT_MAX / 2, PGC_SUSET, GUC_UNIT_S,
							NULL, NULL, NULL);
}

int64
ops_stream_dead_letters_trim(int batch)
{
	Oid			types[2] = {INT4OID, INT4OID};
	Datum		args[2];

	args[0] = Int32GetDatum(ops_stream_dead_letter_retention);
	args[1] = Int32GetDatum(Max(batch, 1));
	catalog_check_triggers();
	/* the oldest first, through the index on failed_at */
	return (int64) catalog_write("DELETE FROM stdesign.stream_dead_letters"
								 " WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
								 "  SELECT d.ctid FROM stdesign.stream_dead_letters d"
								 "   WHERE d.failed_at OPERATOR(pg_catalog.<) (pg_catalog.now()"
								 "    OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
								 "   ORDER BY d.failed_at LIMIT $2))",
								 2, types, args, NULL);
}

int64
ops_stream_trim_batch(int batch, int64 *rows)
{
	CatalogAsOwner save;
	Oid			types[2] = {INT4OID, INT4OID};
	Datum		args[2];
	int64		deleted;

	args[0] = Int32GetDatum(ops_stream_retention);
	args[1] = Int32GetDatum(Max(batch, 1));
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	/*
	 * The records go, and each shard they were in (the one whose range
	 * holds their numbers) learns the highest number trimmed from it
	 * (stream_shards.trimmed_sequence): an iterator at or below it is
	 * TrimmedDataAccessException.
	 */
	if (SPI_execute_with_args("WITH d AS (DELETE FROM stdesign.stream_records"
							  " WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
							  "  SELECT o.ctid FROM stdesign.streams s, LATERAL ("
							  "   SELECT r.ctid, r.created_at FROM stdesign.stream_records r"
							  "    WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id"
							  "    ORDER BY r.sequence_number LIMIT $2) o"
							  "  WHERE o.created_at OPERATOR(pg_catalog.<) (pg_catalog.now()"
							  "   OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
							  "  LIMIT $2))"
							  " RETURNING stream_id, sequence_number,"
							  "  CASE WHEN batch IS NULL THEN 1 ELSE stdesign.stream_batch_records(batch) END AS records),"
							  " m AS (SELECT s.stream_id, s.shard_id, pg_catalog.max(d.sequence_number) AS top"
							  "  FROM d JOIN stdesign.stream_shards s ON s.stream_id OPERATOR(pg_catalog.=) d.stream_id"
							  "  AND d.sequence_number OPERATOR(pg_catalog.>) s.starting_sequence"
							  "  AND (s.ending_sequence IS NULL OR d.sequence_number OPERATOR(pg_catalog.<=) s.ending_sequence)"
							  "  GROUP BY s.stream_id, s.shard_id),"
							  " u AS (UPDATE stdesign.stream_shards sh"
							  "  SET trimmed_sequence = GREATEST(sh.trimmed_sequence, m.top) FROM m"
							  "  WHERE sh.stream_id OPERATOR(pg_catalog.=) m.stream_id"
							  "  AND sh.shard_id OPERATOR(pg_catalog.=) m.shard_id RETURNING 1)"
							  " SELECT (SELECT pg_catalog.count(*) FROM d),"
							  "  (SELECT pg_catalog.count(*) FROM u),"
							  "  (SELECT COALESCE(pg_catalog.sum(d.records), 0)::pg_catalog.int8 FROM d)",
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("could not trim stdesign.stream_records");
	{
		bool		isnull;

		/* the records, those of its batch rows included */
		deleted = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
		*rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return deleted;
}

int64
ops_stream_drop_aged(void)
{
	CatalogAsOwner save;
	Oid			types[1] = {INT4OID};
	Datum		args[1];
	int64	   *ids;
	uint64		n;
	int64		dropped = 0;

	args[0] = Int32GetDatum(ops_stream_retention);
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT s.stream_id FROM stdesign.streams s"
							  " WHERE COALESCE(s.table_deleted_at, s.disabled_at)"
							  "  OPERATOR(pg_catalog.<) (pg_catalog.now()"
							  "  OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
							  " AND NOT EXISTS (SELECT 1 FROM stdesign.stream_records r"
							  "  WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id)"
							  " ORDER BY s.stream_id",
							  1, types, args, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	n = SPI_processed;
	ids = palloc(sizeof(int64) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (uint64 i = 0; i < n; i++)
	{
		Oid			dtypes[1] = {INT8OID};
		Datum		dargs[1];

		/* no writer numbers records for it while it goes (see above) */
		storage_stream_lock(ids[i]);
		dargs[0] = Int64GetDatum(ids[i]);
		if (SPI_execute_with_args("DELETE FROM stdesign.streams s WHERE s.stream_id OPERATOR(pg_catalog.=) $1"
								  " AND NOT EXISTS (SELECT 1 FROM stdesign.stream_records r"
								  "  WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id)",
								  1, dtypes, dargs, NULL, false, 0) != SPI_OK_DELETE)
			st_internal_error("could not remove a stream");
		dropped += (int64) SPI_processed;
	}

	SPI_finish();
	catalog_as_owner_end(&save);
	/* and the closed shards, of any stream, whose records are all gone */
	(void) ops_stream_drop_trimmed_shards();
	return dropped;
}

/* May the current user see the stream of table name (NULL: a deleted table's)? */
static bool
stats_visible(const char *name, bool deleted)
{
	StTable    *t;

	if (deleted)
		return superuser();
	t = catalog_lookup(name, true);
	if (t == NULL)
		return superuser();
	return pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(t->relid, InvalidOid, true) != RLS_ENABLED;
}

void
ops_stream_stats(const char *table_name, Tuplestorestate *tupstore, TupleDesc desc)
{
	CatalogAsOwner save;
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	char		nulls[1] = {' '};
	SPITupleTable *tt;
	uint64		n;

	if (table_name)
	{
		/* the table named must exist, and be the caller's to read */
		StTable    *t = catalog_lookup(table_name, false);

		if (pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
			st_error(ST_ERR_RESOURCE_NOT_FOUND,
					 "Requested resource not found: Table: %s not found", table_name);
		args[0] = CStringGetTextDatum(t->name);
	}
	else
		nulls[0] = 'n';
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT s.table_name, s.label,"
							  " CASE WHEN s.disabled_at IS NULL AND s.table_deleted_at IS NULL"
							  "  THEN 'ENABLED' ELSE 'DISABLED' END,"
							  " COALESCE(pg_catalog.sum(CASE WHEN r.stream_id IS NULL THEN 0 WHEN r.batch IS NULL THEN 1"
							  "  ELSE stdesign.stream_batch_records(r.batch) END), 0)::pg_catalog.int8,"
							  " COALESCE(pg_catalog.sum(pg_catalog.pg_column_size(r.*)), 0)::pg_catalog.int8,"
							  " pg_catalog.min(r.created_at), pg_catalog.max(r.created_at),"
							  " s.table_deleted_at IS NOT NULL"
							  " FROM stdesign.streams s LEFT JOIN stdesign.stream_records r"
							  "  ON r.stream_id OPERATOR(pg_catalog.=) s.stream_id"
							  " WHERE $1 IS NULL OR (s.table_name OPERATOR(pg_catalog.=) $1"
							  "  AND s.table_deleted_at IS NULL)"
							  " GROUP BY s.stream_id ORDER BY s.table_name, s.stream_id",
							  1, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read the streams' records");
	tt = SPI_tuptable;
	n = SPI_processed;
	/* the visibility checks as the caller */
	catalog_as_owner_end(&save);
	for (uint64 i = 0; i < n; i++)
	{
		Datum		values[7];
		bool		isnull[7];
		bool		deleted_isnull;
		char	   *name = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
		bool		deleted = DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 8, &deleted_isnull));

		if (!stats_visible(name, deleted))
			continue;
		for (int c = 0; c < 7; c++)
			values[c] = SPI_getbinval(tt->vals[i], tt->tupdesc, c + 1, &isnull[c]);
		tuplestore_putvalues(tupstore, desc, values, isnull);
	}
	SPI_finish();
}
