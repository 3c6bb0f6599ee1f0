/*-------------------------------------------------------------------------
 *
 * stream_ops.c
 *		DynamoDB Streams' operations on a table's stream: enabling it,
 *		disabling it, reading its records (the capture and the order of the
 *		records are storage/stream_capture.c's).
 *
 * A stream is a row of stdesign.streams, one per enabling: enabling again
 * after a disabling makes a new stream with a new label, as DynamoDB does
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html:
 * "If you disable and then re-enable a stream on the table, a new stream
 * is created with a different stream descriptor"), and the old one stays
 * readable.  Enabling an enabled stream, whatever its view type, is
 * DynamoDB's ValidationException "Table already has an enabled stream:
 * TableName: <name>" (the view type of an enabled stream cannot be
 * changed in place: disable, then enable).
 *
 * The catalog tables are granted to nobody: these functions check the
 * caller's right (the ownership of the table's relation to enable or
 * disable, SELECT on it to read) and then read and write them as the
 * catalog's owner.  Reading refuses a table whose relation has row-level
 * security applying to the reader: records hold whole items, which the
 * relation's policies could not filter.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rls.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "storage/st_storage.h"
#include "storage/stream_capture.h"
#include "stream_ops.h"

/* GetRecords' Limit: 1 to 1000 (DynamoDB Streams API reference, GetRecords). */
#define STREAM_RECORDS_MAX 1000

char *
ops_stream_arn(const char *table_name, const char *label)
{
	return psprintf("%s/stream/%s", catalog_table_arn(table_name), label);
}

/* {"StreamSpecification": ..., "LatestStreamLabel": label, "LatestStreamArn": arn} */
static Jsonb *
stream_answer(const char *table_name, const char *label, const char *view_type, bool enabled)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, "{\"StreamSpecification\": {\"StreamEnabled\": ");
	appendStringInfoString(&s, enabled ? "true" : "false");
	if (enabled)
	{
		appendStringInfoString(&s, ", \"StreamViewType\": ");
		escape_json(&s, view_type);
	}
	appendStringInfoString(&s, "}, \"LatestStreamLabel\": ");
	escape_json(&s, label);
	appendStringInfoString(&s, ", \"LatestStreamArn\": ");
	escape_json(&s, ops_stream_arn(table_name, label));
	appendStringInfoChar(&s, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(s.data)));
}

/* [{"AttributeName": pk, "KeyType": "HASH"}, {sk, "RANGE"}]: DescribeStream's KeySchema */
static Jsonb *
key_schema_jsonb(const char *pk, const char *sk)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, "[{\"AttributeName\": ");
	escape_json(&s, pk);
	appendStringInfoString(&s, ", \"KeyType\": \"HASH\"}");
	if (sk)
	{
		appendStringInfoString(&s, ", {\"AttributeName\": ");
		escape_json(&s, sk);
		appendStringInfoString(&s, ", \"KeyType\": \"RANGE\"}");
	}
	appendStringInfoChar(&s, ']');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(s.data)));
}

/*
 * The table, checked to be one the caller owns, locked against writers
 * until the transaction ends (as attaching a trigger locks it): enablings
 * and disablings of one table take turns, and each writer of the table
 * writes wholly before or wholly after.
 */
static StTable *
owned_table(const char *table_name)
{
	StTable    *t = catalog_lookup(table_name, false);

	catalog_check_owner(t);
	if (t->distributed)
		st_error(ST_ERR_VALIDATION,
				 "Streams are not supported on a distributed table: TableName: %s", t->name);
	LockRelationOid(t->relid, ShareRowExclusiveLock);
	/* as it is now that the lock is held */
	return catalog_lookup(table_name, false);
}

/* Is the streams' catalog there (not a 0.1.0 catalog the library runs on before ALTER EXTENSION UPDATE)? */
static bool
streams_catalog_present(void)
{
	Oid			nsp = get_namespace_oid("stdesign", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("stream_shards", nsp));
}

/*
 * Close the open shards of the table's streams that take no more records
 * (disabled, or the table deleted), in the caller's SPI connection, as
 * the catalog's owner: their last records are final (the table is locked
 * against writers).
 */
static void
close_open_shards(const char *table_name)
{
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(table_name);

	if (SPI_execute_with_args("UPDATE stdesign.stream_shards sh SET closed_at = pg_catalog.now(),"
							  " ending_sequence = COALESCE((SELECT pg_catalog.max(r.sequence_number)"
							  "  FROM stdesign.stream_records r WHERE r.stream_id OPERATOR(pg_catalog.=) sh.stream_id"
							  "  AND r.sequence_number OPERATOR(pg_catalog.>) sh.starting_sequence), sh.starting_sequence)"
							  " FROM stdesign.streams s WHERE s.stream_id OPERATOR(pg_catalog.=) sh.stream_id"
							  " AND s.table_name OPERATOR(pg_catalog.=) $1 AND sh.closed_at IS NULL"
							  " AND (s.disabled_at IS NOT NULL OR s.table_deleted_at IS NOT NULL)",
							  1, &type, &arg, NULL, false, 0) != SPI_OK_UPDATE)
		st_internal_error("could not close the shards of table %s", table_name);
}

void
ops_stream_table_deleted(const char *table_name)
{
	CatalogAsOwner save;

	if (!streams_catalog_present())
		return;
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	close_open_shards(table_name);
	SPI_finish();
	catalog_as_owner_end(&save);
}

Jsonb *
ops_stream_enable(const char *table_name, const char *view_type)
{
	StTable    *t;
	StStreamView view;
	CatalogAsOwner save;
	Oid			types[4] = {TEXTOID, TEXTOID, JSONBOID, OIDOID};
	Datum		args[4];
	bool		isnull;
	int64		stream_id;
	char	   *label;
	char	   *name;
	char	   *relname;
	char	   *pk;
	char	   *sk;
	MemoryContext caller = CurrentMemoryContext;

	if (view_type == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: StreamViewType is required when StreamEnabled is true");
	if (!storage_stream_view_from_name(view_type, &view))
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]",
				 view_type);
	t = owned_table(table_name);
	name = pstrdup(t->name);
	relname = pstrdup(t->relname);
	pk = pstrdup(t->pk.name);
	sk = t->sk.name ? pstrdup(t->sk.name) : NULL;
	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum(view_type);
	args[2] = JsonbPGetDatum(key_schema_jsonb(pk, sk));
	args[3] = ObjectIdGetDatum(t->relid);

	/* the catalog is written as its owner: no trigger of a role's on it */
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT 1 FROM stdesign.streams WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " AND disabled_at IS NULL AND table_deleted_at IS NULL",
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	if (SPI_processed > 0)
		st_error(ST_ERR_VALIDATION, "Table already has an enabled stream: TableName: %s", name);
	/*
	 * The stream, its first shard (DescribeStream), its key schema and the
	 * relation's owner, who reads it once the table is deleted.  The
	 * label: the time of the enabling, in UTC, to the millisecond
	 * (StreamLabel); the shard id as DynamoDB's: "shardId-", the time in
	 * ms since the epoch on 20 digits, "-", 8 hex digits.
	 */
	if (SPI_execute_with_args("WITH s AS (SELECT pg_catalog.nextval('stdesign.stream_ids'::pg_catalog.regclass) AS id),"
							  " n AS (SELECT s.id, 'shardId-' OPERATOR(pg_catalog.||)"
							  "  pg_catalog.lpad((pg_catalog.date_part('epoch', pg_catalog.now()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8::pg_catalog.text, 20, '0')"
							  "  OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||)"
							  "  pg_catalog.substr(pg_catalog.md5(s.id::pg_catalog.text OPERATOR(pg_catalog.||) pg_catalog.random()::pg_catalog.text), 1, 8) AS shard"
							  "  FROM s),"
							  " sh AS (INSERT INTO stdesign.stream_shards (stream_id, shard_id, created_at, starting_sequence)"
							  "  SELECT n.id, n.shard, pg_catalog.now(), pg_catalog.nextval('stdesign.stream_sequence_numbers'::pg_catalog.regclass) FROM n)"
							  " INSERT INTO stdesign.streams"
							  " (stream_id, table_name, label, view_type, shard_id, enabled_at, key_schema, table_owner,"
							  "  table_owner_name)"
							  " SELECT n.id, $1,"
							  " pg_catalog.to_char(pg_catalog.now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'),"
							  " $2, n.shard, pg_catalog.now(), $3,"
							  " o.oid::pg_catalog.regrole, o.rolname"
							  " FROM n LEFT JOIN (pg_catalog.pg_class c JOIN pg_catalog.pg_roles o"
							  "  ON o.oid OPERATOR(pg_catalog.=) c.relowner) ON c.oid OPERATOR(pg_catalog.=) $4"
							  " RETURNING stream_id, label",
							  4, types, args, NULL, false, 0) != SPI_OK_INSERT_RETURNING ||
		SPI_processed != 1)
		st_internal_error("could not record the stream of table %s", name);
	stream_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	label = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	label = MemoryContextStrdup(caller, label);
	SPI_finish();
	catalog_as_owner_end(&save);

	storage_stream_attach(relname, stream_id, view_type, pk, sk);
	return stream_answer(name, label, view_type, true);
}

Jsonb *
ops_stream_disable(const char *table_name)
{
	StTable    *t = owned_table(table_name);
	CatalogAsOwner save;
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	char	   *label;
	char	   *name = pstrdup(t->name);
	char	   *relname = pstrdup(t->relname);
	MemoryContext caller = CurrentMemoryContext;

	args[0] = CStringGetTextDatum(name);
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("UPDATE stdesign.streams SET disabled_at = pg_catalog.now()"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " AND disabled_at IS NULL AND table_deleted_at IS NULL RETURNING label",
							  1, types, args, NULL, false, 0) != SPI_OK_UPDATE_RETURNING)
		st_internal_error("could not update stdesign.streams");
	if (SPI_processed == 0)
		st_error(ST_ERR_VALIDATION, "Table already has no enabled stream: TableName: %s", name);
	label = MemoryContextStrdup(caller,
								SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	/* its shard takes no more records: closed, as DynamoDB closes a disabled stream's shards */
	close_open_shards(name);
	SPI_finish();
	catalog_as_owner_end(&save);

	storage_stream_detach(relname);
	return stream_answer(name, label, NULL, false);
}

/* after as a sequence number: a whole number, at least 0; *beyond when above any bigint. */
static int64
sequence_arg(Numeric after, bool *beyond)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(after)));
	int64		v;
	char	   *end;

	*beyond = false;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			st_error(ST_ERR_VALIDATION,
					 "Invalid SequenceNumber: %s (a whole number of at least 0)",
					 strlen(s) > 64 ? "(too long)" : s);
	if (strlen(s) > 40)
		st_error(ST_ERR_VALIDATION,
				 "Invalid SequenceNumber: 1 validation error detected: Member must have length less than or equal to 40");
	errno = 0;
	v = strtoi64(s, &end, 10);
	if (errno == ERANGE)
	{
		*beyond = true;
		return PG_INT64_MAX;
	}
	return v;
}

void
ops_stream_check_read(StTable *t)
{
	storage_require_privilege(t, ACL_SELECT);
	if (check_enable_rls(t->relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot read the stream of table %s: row-level security applies to you on its relation",
						t->name),
				 errdetail("Stream records hold whole items, which the relation's policies do not filter."),
				 errhint("The relation's owner, a superuser or a role with BYPASSRLS may read them.")));
}

void
ops_stream_check_max(int max)
{
	if (max < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 max);
	if (max > STREAM_RECORDS_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d",
				 max, STREAM_RECORDS_MAX);
}

Jsonb **
ops_stream_records_of(int64 stream_id, int64 after, int max, int *n, int64 *last)
{
	CatalogAsOwner save;
	Oid			types[3] = {INT8OID, INT8OID, INT4OID};
	Datum		args[3];
	Jsonb	  **records;
	MemoryContext caller = CurrentMemoryContext;

	*n = 0;
	*last = after;
	args[0] = Int64GetDatum(stream_id);
	args[1] = Int64GetDatum(after);
	args[2] = Int32GetDatum(max);
	catalog_as_owner_begin(&save);
	SPI_connect();

	/*
	 * Not read-only: in READ COMMITTED each call sees what committed before
	 * it (a consumer that waited, st_stream_wait, then reads).  No more than
	 * about 1 MB of records, as GetRecords: the rows are bounded on their
	 * SizeBytes before their images are read and built into records, so
	 * that one call (a consumer's read, a mapping's batch) holds a few MB
	 * at most, not max records of up to 800 kB each, several times over.
	 */
	if (SPI_execute_with_args(
							  "WITH s AS (SELECT stream_id, view_type FROM stdesign.streams"
							  " WHERE stream_id OPERATOR(pg_catalog.=) $1),"
							  " q AS (SELECT r.*, pg_catalog.sum(r.size_bytes) OVER (ORDER BY r.sequence_number"
							  "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS bytes_before"
							  "  FROM (SELECT r.* FROM s, stdesign.stream_record_rows(s.stream_id, $2, $3) r) r)"
							  " SELECT pg_catalog.jsonb_build_object("
							  "  'eventID', stdesign.stream_event_id(r.stream_id, r.sequence_number),"
							  "  'eventName', r.event_name, 'eventVersion', '1.1', 'eventSource', 'aws:dynamodb',"
							  "  'awsRegion', '" ST_ARN_REGION "',"
							  "  'dynamodb', pg_catalog.jsonb_build_object("
							  "    'ApproximateCreationDateTime',"
							  "      pg_catalog.floor(pg_catalog.date_part('epoch', r.created_at))::pg_catalog.int8,"
							  "    'Keys', r.keys,"
							  "    'SequenceNumber', r.sequence_number::pg_catalog.text,"
							  "    'SizeBytes', r.size_bytes,"
							  "    'StreamViewType', s.view_type)"
							  "  OPERATOR(pg_catalog.||) CASE WHEN r.new_image IS NULL THEN '{}'::pg_catalog.jsonb"
							  "    ELSE pg_catalog.jsonb_build_object('NewImage', r.new_image) END"
							  "  OPERATOR(pg_catalog.||) CASE WHEN r.old_image IS NULL THEN '{}'::pg_catalog.jsonb"
							  "    ELSE pg_catalog.jsonb_build_object('OldImage', r.old_image) END)"
							  " OPERATOR(pg_catalog.||) CASE WHEN r.ttl_deletion THEN"
							  "   '{\"userIdentity\": {\"Type\": \"Service\", \"PrincipalId\": \"dynamodb.amazonaws.com\"}}'::pg_catalog.jsonb"
							  "   ELSE '{}'::pg_catalog.jsonb END,"
							  " r.sequence_number"
							  " FROM s, q r"
							  " WHERE COALESCE(r.bytes_before, 0) OPERATOR(pg_catalog.<) " CppAsString2(ST_STREAM_RECORDS_MAX_BYTES)
							  " ORDER BY r.sequence_number",
							  3, types, args, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read the records of stream " INT64_FORMAT, stream_id);
	records = MemoryContextAlloc(caller, sizeof(Jsonb *) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		records[i] = DatumGetJsonbPCopy(d);
		MemoryContextSwitchTo(spi);
		*last = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
	}
	*n = (int) SPI_processed;
	SPI_finish();
	catalog_as_owner_end(&save);
	return records;
}

bool
ops_stream_latest(const char *table_name, bool with_last, OpsStreamLatest *latest)
{
	CatalogAsOwner save;
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(table_name);
	bool		found;
	MemoryContext caller = CurrentMemoryContext;

	memset(latest, 0, sizeof(OpsStreamLatest));
	catalog_as_owner_begin(&save);
	SPI_connect();

	/*
	 * Not read-only: each call sees what committed before it, and what its
	 * own transaction did (a stream enabled earlier in the same statement).
	 */
	if (SPI_execute_with_args(with_last
							  ? "SELECT s.stream_id, s.label, s.view_type, s.disabled_at IS NULL,"
							  " (SELECT pg_catalog.max(r.sequence_number) FROM stdesign.stream_records r"
							  "  WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id)"
							  " FROM stdesign.streams s WHERE s.table_name OPERATOR(pg_catalog.=) $1"
							  " AND s.table_deleted_at IS NULL ORDER BY s.stream_id DESC LIMIT 1"
							  : "SELECT s.stream_id, s.label, s.view_type, s.disabled_at IS NULL"
							  " FROM stdesign.streams s WHERE s.table_name OPERATOR(pg_catalog.=) $1"
							  " AND s.table_deleted_at IS NULL ORDER BY s.stream_id DESC LIMIT 1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	found = SPI_processed == 1;
	if (found)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;

		latest->stream_id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		latest->label = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 2));
		latest->view_type = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 3));
		latest->enabled = DatumGetBool(SPI_getbinval(tup, desc, 4, &isnull));
		if (with_last)
		{
			Datum		d = SPI_getbinval(tup, desc, 5, &isnull);

			latest->has_last = !isnull;
			latest->last = isnull ? 0 : DatumGetInt64(d);
		}
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return found;
}

void
ops_stream_describe_table(const char *table_name, Av *description)
{
	OpsStreamLatest latest;
	char	   *arn;

	if (!streams_catalog_present() || !ops_stream_latest(table_name, false, &latest))
		return;

	/*
	 * An enabled stream: StreamSpecification, as CreateTable and UpdateTable
	 * answer it; a disabled one still has its ARN and label (readable until
	 * its records age out).
	 */
	if (latest.enabled)
	{
		Av		   *spec = av_new(AV_M);

		av_map_put_nocheck(spec, "StreamEnabled", 13, av_new_bool(true));
		av_map_put_nocheck(spec, "StreamViewType", 14,
						   av_new_str(AV_S, latest.view_type, strlen(latest.view_type)));
		av_map_set(description, "StreamSpecification", 19, spec);
	}
	av_map_set(description, "LatestStreamLabel", 17,
			   av_new_str(AV_S, latest.label, strlen(latest.label)));
	arn = ops_stream_arn(table_name, latest.label);
	av_map_set(description, "LatestStreamArn", 15, av_new_str(AV_S, arn, strlen(arn)));
}

int64
ops_stream_drop_trimmed_shards(void)
{
	CatalogAsOwner save;
	int64		n;

	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute("DELETE FROM stdesign.stream_shards s WHERE s.closed_at IS NOT NULL"
					" AND NOT EXISTS (SELECT 1 FROM stdesign.stream_records r"
					"  WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id"
					"  AND r.sequence_number OPERATOR(pg_catalog.>) s.starting_sequence"
					"  AND r.sequence_number OPERATOR(pg_catalog.<=) s.ending_sequence)",
					false, 0) != SPI_OK_DELETE)
		st_internal_error("could not delete the trimmed shards");
	n = (int64) SPI_processed;
	SPI_finish();
	catalog_as_owner_end(&save);
	return n;
}

Jsonb **
ops_stream_records(const char *table_name, Numeric after, int max, int *n)
{
	StTable    *t;
	OpsStreamLatest latest;
	bool		beyond;
	int64		after_seq;
	int64		stream_id;
	int64		last;

	*n = 0;
	if (after == NULL)
		st_error(ST_ERR_VALIDATION, "Invalid SequenceNumber: null");
	ops_stream_check_max(max);
	after_seq = sequence_arg(after, &beyond);
	t = catalog_lookup(table_name, false);
	ops_stream_check_read(t);
	if (!ops_stream_latest(t->name, false, &latest))
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Table: %s has no stream", t->name);
	stream_id = latest.stream_id;
	if (beyond)
		return palloc(sizeof(Jsonb *));
	return ops_stream_records_of(stream_id, after_seq, max, n, &last);
}
