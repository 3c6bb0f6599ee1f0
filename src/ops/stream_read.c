/*-------------------------------------------------------------------------
 *
 * stream_read.c
 *		DynamoDB Streams' read API: ListStreams, DescribeStream,
 *		GetShardIterator, GetRecords
 *		(https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html).
 *
 * Streams, shards and records are stdesign.streams, stream_shards and
 * stream_records (the capture and the order of the records are
 * storage/stream_capture.c's; enabling and disabling, stream_ops.c's).
 * Those tables are granted to nobody: every call here checks the caller's
 * right to the stream's table, then reads them as the catalog's owner.
 * A stream of a live table is read by the roles that may SELECT its
 * relation (and to which no row-level security applies there: records
 * hold whole items); once the table is deleted, its stream stays readable
 * (DynamoDB keeps it 24 hours) by the role that owned the table's relation
 * when it was deleted (ops/table_admin.c).
 *
 * Sequence numbers are stdesign's (one sequence for every stream, taken in
 * commit order per stream), written as decimal strings of at least 21
 * digits, zero-padded: the SDKs' model wants 21 to 40 characters, and the
 * Kinesis adapter compares them as numbers.
 *
 * Shard iterators.  An iterator names the stream (its ARN first, as
 * DynamoDB's do), the shard, the position (after which sequence number),
 * the role it was issued to and when, and ends with an HMAC-SHA256 of all
 * that under a key only the catalog's owner reads
 * (stdesign.stream_iterator_key): it cannot be forged or changed to read
 * another stream, shard or position, nor be used by another role.  It is
 * good for 15 minutes (ExpiredIteratorException after that, as DynamoDB:
 * API reference, GetShardIterator: "A shard iterator expires 15 minutes
 * after it is returned to the requester"); stdesign.stream_iterator_lifetime
 * shortens that for tests.  Nothing is stored per iterator.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hmac.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rls.h"
#include "utils/timestamp.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "common/st_record_id.h"
#include "item/jsonb_raw.h"
#include "storage/st_storage.h"
#include "storage/stream_capture.h"
#include "stream_ops.h"
#include "stream_read.h"

/*
 * GetShardIterator: "A shard iterator expires 15 minutes after it is
 * returned"; stdesign.stream_iterator_lifetime (seconds, superuser) lets a
 * test see ExpiredIteratorException without waiting that long.
 */
int			ops_stream_iterator_lifetime = 15 * 60;
/* the model's length of a ShardIterator */
#define ITERATOR_MAX_LEN 2048

/* A row of stdesign.streams. */
typedef struct StreamRow
{
	int64		id;
	char	   *table;
	char	   *label;
	char	   *view;
	char	   *created;		/* epoch seconds, with ms, as text */
	bool		disabled;
	bool		deleted;		/* its table was deleted */
	char	   *key_schema;		/* JSON text, or NULL */
	Oid			owner;			/* the relation's owner when enabled (or at the
								 * table's deletion) while that role keeps its
								 * name, else InvalidOid */
	char	   *arn;
} StreamRow;

/* A row of stdesign.stream_shards, with the shard's last record. */
typedef struct ShardRow
{
	int64		starting;
	bool		closed;
	int64		ending;
	bool		trimmed;
	int64		trimmed_to;
	bool		has_last;
	int64		last;			/* its latest record's number */
} ShardRow;

#define STREAM_COLUMNS \
	"stream_id, table_name, label, view_type," \
	" pg_catalog.round(pg_catalog.date_part('epoch', enabled_at)::pg_catalog.numeric, 3)::pg_catalog.text," \
	" disabled_at IS NOT NULL, table_deleted_at IS NOT NULL, key_schema::pg_catalog.text," \
	" CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r" \
	"  WHERE r.oid OPERATOR(pg_catalog.=) table_owner AND r.rolname OPERATOR(pg_catalog.=) table_owner_name)" \
	" THEN table_owner::pg_catalog.oid END"

static char *
seq_text(int64 seq)
{
	return psprintf("%021lld", (long long) seq);
}

/*
 * A statement of this file, planned once per backend (*plan keeps it):
 * every GetRecords runs the same few, and planning them each time was a
 * good part of a call.  The plans run as the catalog's owner (who alone
 * reads the streams' tables), checked at each execution; the plan cache
 * replans them when those tables change.  Called within SPI.
 */
static SPIPlanPtr
kept_plan(SPIPlanPtr *plan, const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	p;

	if (*plan != NULL)
		return *plan;
	p = SPI_prepare(sql, nargs, types);
	if (p == NULL || SPI_keepplan(p) != 0)
		st_internal_error("could not plan a read of the streams' tables");
	*plan = p;
	return p;
}

/* Row i of the SPI result as a StreamRow, in the current context. */
static void
stream_row(uint64 i, StreamRow *s)
{
	HeapTuple	tup = SPI_tuptable->vals[i];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	bool		isnull;
	Datum		d;

	s->id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	s->table = pstrdup(SPI_getvalue(tup, desc, 2));
	s->label = pstrdup(SPI_getvalue(tup, desc, 3));
	s->view = pstrdup(SPI_getvalue(tup, desc, 4));
	s->created = pstrdup(SPI_getvalue(tup, desc, 5));
	s->disabled = DatumGetBool(SPI_getbinval(tup, desc, 6, &isnull));
	s->deleted = DatumGetBool(SPI_getbinval(tup, desc, 7, &isnull));
	s->key_schema = SPI_getvalue(tup, desc, 8);
	if (s->key_schema)
		s->key_schema = pstrdup(s->key_schema);
	d = SPI_getbinval(tup, desc, 9, &isnull);
	s->owner = isnull ? InvalidOid : DatumGetObjectId(d);
	s->arn = ops_stream_arn(s->table, s->label);
}

/*
 * May the current role read stream s?  With raise, the refusal is an
 * error (permission denied); else false.
 */
static bool
stream_readable(const StreamRow *s, bool raise)
{
	if (!s->deleted)
	{
		StTable    *t = catalog_lookup(s->table, true);

		if (t == NULL)
		{
			if (raise)
				st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Stream: %s not found", s->arn);
			return false;
		}
		if (!raise)
			return pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
				check_enable_rls(t->relid, InvalidOid, true) != RLS_ENABLED;
		storage_require_privilege(t, ACL_SELECT);
		if (check_enable_rls(t->relid, InvalidOid, true) == RLS_ENABLED)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot read the stream of table %s: row-level security applies to you on its relation",
							t->name),
					 errdetail("Stream records hold whole items, which the relation's policies do not filter."),
					 errhint("The relation's owner, a superuser or a role with BYPASSRLS may read them.")));
		return true;
	}
	if (superuser() || (OidIsValid(s->owner) && has_privs_of_role(GetUserId(), s->owner)))
		return true;
	if (raise)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for the stream of deleted table %s", s->table),
				 errdetail("Once its table is deleted, a stream is read by the role that owned the table.")));
	return false;
}

/*
 * The table and label of a stream ARN of this server
 * (arn:aws:dynamodb:local:000000000000:table/<name>/stream/<label>):
 * false for what is no stream ARN at all (ValidationException); *ours
 * false for another region's or account's (not found here).
 */
static bool
arn_parts(const char *arn, char **table, char **label, bool *ours)
{
	const char *tab = strstr(arn, ":table/");
	const char *mid;

	*ours = false;
	if (strncmp(arn, "arn:", 4) != 0 || tab == NULL)
		return false;
	mid = strstr(tab + 7, "/stream/");
	if (mid == NULL || mid == tab + 7 || mid[8] == '\0' || strchr(mid + 8, '/') != NULL)
		return false;
	*table = pnstrdup(tab + 7, mid - (tab + 7));
	*label = pstrdup(mid + 8);
	*ours = strncmp(arn, ST_ARN_PREFIX, strlen(ST_ARN_PREFIX)) == 0 &&
		tab + 7 == arn + strlen(ST_ARN_PREFIX);
	return true;
}

/* The stream of arn, or NULL when there is none (raise: ResourceNotFoundException). */
static StreamRow *
stream_by_arn(const char *arn, bool raise)
{
	char	   *table;
	char	   *label;
	bool		ours;
	StreamRow  *s = NULL;
	CatalogAsOwner save;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	MemoryContext caller = CurrentMemoryContext;
	static SPIPlanPtr plan = NULL;

	if (!arn_parts(arn, &table, &label, &ours))
		st_error(ST_ERR_VALIDATION, "Invalid StreamArn: %s",
				 strlen(arn) > 128 ? "(too long)" : arn);
	if (ours)
	{
		args[0] = CStringGetTextDatum(table);
		args[1] = CStringGetTextDatum(label);
		catalog_as_owner_begin(&save);
		SPI_connect();
		if (SPI_execute_plan(kept_plan(&plan, "SELECT " STREAM_COLUMNS " FROM stdesign.streams"
									   " WHERE table_name OPERATOR(pg_catalog.=) $1 AND label OPERATOR(pg_catalog.=) $2"
									   " ORDER BY stream_id DESC LIMIT 1", 2, types),
							 args, NULL, true, 1) != SPI_OK_SELECT)
			st_internal_error("could not read stdesign.streams");
		if (SPI_processed == 1)
		{
			MemoryContext spi = MemoryContextSwitchTo(caller);

			s = palloc0(sizeof(StreamRow));
			stream_row(0, s);
			MemoryContextSwitchTo(spi);
		}
		SPI_finish();
		catalog_as_owner_end(&save);
	}
	if (s == NULL && raise)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Stream: %s not found", arn);
	return s;
}

/* The stream of arn, which the caller may read. */
static StreamRow *
readable_stream(const char *arn)
{
	StreamRow  *s = stream_by_arn(arn, true);

	stream_readable(s, true);
	return s;
}

/* The shard of stream s, or false when it has none of that id. */
static bool
shard_row(const StreamRow *s, const char *shard_id, ShardRow *sh)
{
	CatalogAsOwner save;
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		args[2];
	bool		found;
	static SPIPlanPtr plan = NULL;

	args[0] = Int64GetDatum(s->id);
	args[1] = CStringGetTextDatum(shard_id);
	memset(sh, 0, sizeof(ShardRow));
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_plan(kept_plan(&plan, "SELECT sh.starting_sequence, sh.ending_sequence, sh.trimmed_sequence,"
								   " (SELECT pg_catalog.max(r.sequence_number) FROM stdesign.stream_records r"
								   "  WHERE r.stream_id OPERATOR(pg_catalog.=) sh.stream_id"
								   "  AND r.sequence_number OPERATOR(pg_catalog.>) sh.starting_sequence"
								   "  AND r.sequence_number OPERATOR(pg_catalog.<=)"
								   "   COALESCE(sh.ending_sequence, 9223372036854775807))"
								   " FROM stdesign.stream_shards sh"
								   " WHERE sh.stream_id OPERATOR(pg_catalog.=) $1 AND sh.shard_id OPERATOR(pg_catalog.=) $2",
								   2, types),
						 args, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_shards");
	found = SPI_processed == 1;
	if (found)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		d;

		sh->starting = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		d = SPI_getbinval(tup, desc, 2, &isnull);
		sh->closed = !isnull;
		sh->ending = isnull ? 0 : DatumGetInt64(d);
		d = SPI_getbinval(tup, desc, 3, &isnull);
		sh->trimmed = !isnull;
		sh->trimmed_to = isnull ? 0 : DatumGetInt64(d);
		d = SPI_getbinval(tup, desc, 4, &isnull);
		sh->has_last = !isnull;
		sh->last = isnull ? 0 : DatumGetInt64(d);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return found;
}

static void
shard_not_found(void)
{
	st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Shard does not exist");
}

/* ---------- ListStreams ---------- */

Jsonb *
ops_streams_list(const char *table_name, int limit, const char *exclusive_start)
{
	CatalogAsOwner save;
	Oid			types[2] = {TEXTOID, INT8OID};
	Datum		args[2];
	char		nulls[2] = {table_name ? ' ' : 'n', ' '};
	int64		after = 0;
	StreamRow  *rows;
	uint64		n;
	int			listed = 0;
	StringInfoData out;
	const char *last = NULL;
	bool		more = false;
	MemoryContext caller = CurrentMemoryContext;

	if (exclusive_start)
	{
		StreamRow  *start = stream_by_arn(exclusive_start, false);

		/* a stream gone meanwhile: the next ones still follow its ARN's table and label */
		after = start ? start->id : 0;
	}
	args[0] = table_name ? CStringGetTextDatum(table_name) : (Datum) 0;
	args[1] = Int64GetDatum(after);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT " STREAM_COLUMNS " FROM stdesign.streams"
							  " WHERE ($1 IS NULL OR table_name OPERATOR(pg_catalog.=) $1)"
							  " AND stream_id OPERATOR(pg_catalog.>) $2 ORDER BY stream_id",
							  2, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	n = SPI_processed;
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		rows = palloc0(sizeof(StreamRow) * Max(n, 1));
		for (uint64 i = 0; i < n; i++)
			stream_row(i, &rows[i]);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);

	/* the role's rights are checked as the role */
	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Streams\": [");
	for (uint64 i = 0; i < n; i++)
	{
		if (!stream_readable(&rows[i], false))
			continue;
		if (listed == limit)
		{
			more = true;
			break;
		}
		appendStringInfoString(&out, listed ? ", {\"StreamArn\": " : "{\"StreamArn\": ");
		escape_json(&out, rows[i].arn);
		appendStringInfoString(&out, ", \"TableName\": ");
		escape_json(&out, rows[i].table);
		appendStringInfoString(&out, ", \"StreamLabel\": ");
		escape_json(&out, rows[i].label);
		appendStringInfoChar(&out, '}');
		last = rows[i].arn;
		listed++;
	}
	appendStringInfoChar(&out, ']');
	if (more)
	{
		appendStringInfoString(&out, ", \"LastEvaluatedStreamArn\": ");
		escape_json(&out, last);
	}
	appendStringInfoChar(&out, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* ---------- DescribeStream ---------- */

Jsonb *
ops_stream_describe(const char *arn, int limit, const char *exclusive_start_shard, const char *child_of)
{
	StreamRow  *s = readable_stream(arn);
	CatalogAsOwner save;
	Oid			types[4] = {INT8OID, TEXTOID, TEXTOID, INT4OID};
	Datum		args[4];
	char		nulls[4] = {' ', exclusive_start_shard ? ' ' : 'n', child_of ? ' ' : 'n', ' '};
	StringInfoData out;
	char	   *last = NULL;
	bool		more;
	uint64		n;

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"StreamDescription\": {\"StreamArn\": ");
	escape_json(&out, s->arn);
	appendStringInfoString(&out, ", \"StreamLabel\": ");
	escape_json(&out, s->label);
	/* a disabled stream, or one whose table is gone, takes no more records */
	appendStringInfo(&out, ", \"StreamStatus\": \"%s\", \"StreamViewType\": ",
					 s->disabled || s->deleted ? "DISABLED" : "ENABLED");
	escape_json(&out, s->view);
	appendStringInfo(&out, ", \"CreationRequestDateTime\": %s, \"TableName\": ", s->created);
	escape_json(&out, s->table);
	if (s->key_schema)
		appendStringInfo(&out, ", \"KeySchema\": %s", s->key_schema);
	appendStringInfoString(&out, ", \"Shards\": [");

	/* shards in the order of their ids, which begin with their creation time */
	args[0] = Int64GetDatum(s->id);
	args[1] = exclusive_start_shard ? CStringGetTextDatum(exclusive_start_shard) : (Datum) 0;
	args[2] = child_of ? CStringGetTextDatum(child_of) : (Datum) 0;
	args[3] = Int32GetDatum(limit + 1);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT shard_id, parent_shard_id, starting_sequence, ending_sequence"
							  " FROM stdesign.stream_shards WHERE stream_id OPERATOR(pg_catalog.=) $1"
							  " AND ($2 IS NULL OR shard_id OPERATOR(pg_catalog.>) $2)"
							  " AND ($3 IS NULL OR parent_shard_id OPERATOR(pg_catalog.=) $3)"
							  " ORDER BY shard_id LIMIT $4",
							  4, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_shards");
	more = SPI_processed > (uint64) limit;
	n = more ? (uint64) limit : SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *parent = SPI_getvalue(tup, desc, 2);
		bool		isnull;
		Datum		ending;

		last = SPI_getvalue(tup, desc, 1);
		appendStringInfoString(&out, i ? ", {\"ShardId\": " : "{\"ShardId\": ");
		escape_json(&out, last);
		appendStringInfo(&out, ", \"SequenceNumberRange\": {\"StartingSequenceNumber\": \"%s\"",
						 seq_text(DatumGetInt64(SPI_getbinval(tup, desc, 3, &isnull))));
		ending = SPI_getbinval(tup, desc, 4, &isnull);
		if (!isnull)
			appendStringInfo(&out, ", \"EndingSequenceNumber\": \"%s\"", seq_text(DatumGetInt64(ending)));
		appendStringInfoChar(&out, '}');
		if (parent)
		{
			appendStringInfoString(&out, ", \"ParentShardId\": ");
			escape_json(&out, parent);
		}
		appendStringInfoChar(&out, '}');
	}
	appendStringInfoChar(&out, ']');
	if (more)
	{
		appendStringInfoString(&out, ", \"LastEvaluatedShardId\": ");
		escape_json(&out, last);
	}
	appendStringInfoString(&out, "}}");
	SPI_finish();
	catalog_as_owner_end(&save);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* ---------- shard iterators ---------- */

/* The HMAC key: stdesign.stream_iterator_key, read as the catalog's owner. */
static char *
iterator_key(void)
{
	static SPIPlanPtr plan = NULL;
	CatalogAsOwner save;
	char	   *key = NULL;
	MemoryContext caller = CurrentMemoryContext;

	catalog_as_owner_begin(&save);
	SPI_connect();
	/* twice a GetRecords (its iterator checked, the next one made): planned once */
	if (SPI_execute_plan(kept_plan(&plan, "SELECT key FROM stdesign.stream_iterator_key LIMIT 1", 0, NULL),
						 NULL, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_iterator_key");
	if (SPI_processed == 1)
	{
		char	   *k = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		key = k ? MemoryContextStrdup(caller, k) : NULL;
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	if (key == NULL || strlen(key) < 32)
		st_internal_error("the key of the shard iterators (stdesign.stream_iterator_key) is missing");
	return key;
}

/* HMAC-SHA256 of data under the key, in 64 hex digits. */
static char *
iterator_mac(const char *data, size_t len)
{
	char	   *key = iterator_key();
	uint8		mac[PG_SHA256_DIGEST_LENGTH];
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);
	char	   *hex = palloc(PG_SHA256_DIGEST_LENGTH * 2 + 1);

	if (ctx == NULL || pg_hmac_init(ctx, (const uint8 *) key, strlen(key)) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) data, len) < 0 ||
		pg_hmac_final(ctx, mac, sizeof(mac)) < 0)
	{
		pg_hmac_free(ctx);
		st_internal_error("could not compute the HMAC of a shard iterator");
	}
	pg_hmac_free(ctx);
	for (int i = 0; i < PG_SHA256_DIGEST_LENGTH; i++)
		sprintf(hex + 2 * i, "%02x", mac[i]);
	return hex;
}

static int64
now_ms(void)
{
	TimestampTz now = GetCurrentTimestamp();

	return now / 1000 + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
}

/* "<stream ARN>|1|<stream id>~<shard>~<after>~<role>~<issued ms>|<hmac>" */
static char *
iterator_make(const StreamRow *s, const char *shard_id, int64 after)
{
	char	   *payload = psprintf("%s|1|" INT64_FORMAT "~%s~" INT64_FORMAT "~%u~" INT64_FORMAT,
								   s->arn, s->id, shard_id, after, GetUserId(), now_ms());

	return psprintf("%s|%s", payload, iterator_mac(payload, strlen(payload)));
}

/* A parsed iterator. */
typedef struct Iterator
{
	int64		stream_id;
	char	   *arn;
	char	   *shard_id;
	int64		after;
	Oid			role;
	int64		issued;
} Iterator;

static void
invalid_iterator(void)
{
	st_error(ST_ERR_VALIDATION, "Invalid ShardIterator");
}

static bool
take_int64(char **p, char stop, int64 *out)
{
	char	   *end;

	errno = 0;
	if (!isdigit((unsigned char) **p))
		return false;
	*out = strtoi64(*p, &end, 10);
	if (errno != 0 || *end != stop)
		return false;
	*p = end + (stop != '\0');
	return true;
}

/* The iterator's fields, its MAC checked (ValidationException when it is no iterator of ours). */
static Iterator
iterator_parse(const char *text)
{
	Iterator	it = {0};
	size_t		len = strlen(text);
	const char *bar;
	char	   *mac;
	char	   *fields;
	char	   *p;
	char	   *tilde;
	int			diff = 0;
	int64		role;

	if (len > ITERATOR_MAX_LEN || len < 66)
		invalid_iterator();
	bar = strrchr(text, '|');
	if (bar == NULL || strlen(bar + 1) != PG_SHA256_DIGEST_LENGTH * 2)
		invalid_iterator();
	mac = iterator_mac(text, bar - text);
	/* in constant time */
	for (int i = 0; i < PG_SHA256_DIGEST_LENGTH * 2; i++)
		diff |= mac[i] ^ bar[1 + i];
	if (diff != 0)
		invalid_iterator();
	/* ours, so well formed; parsed with care all the same */
	fields = pnstrdup(text, bar - text);
	p = strrchr(fields, '|');
	if (p == NULL || p - fields < 3 || strncmp(p - 2, "|1", 2) != 0)
		invalid_iterator();
	it.arn = pnstrdup(fields, p - 2 - fields);
	p++;
	if (!take_int64(&p, '~', &it.stream_id))
		invalid_iterator();
	tilde = strchr(p, '~');
	if (tilde == NULL)
		invalid_iterator();
	it.shard_id = pnstrdup(p, tilde - p);
	p = tilde + 1;
	if (!take_int64(&p, '~', &it.after) || !take_int64(&p, '~', &role) ||
		!take_int64(&p, '\0', &it.issued) || role > PG_UINT32_MAX)
		invalid_iterator();
	it.role = (Oid) role;
	return it;
}

/* A sequence number argument: a whole number (*beyond when past any bigint). */
static int64
sequence_arg(const char *text, bool *beyond)
{
	int64		v;
	char	   *end;

	*beyond = false;
	if (*text == '\0' || strspn(text, "0123456789") != strlen(text))
		st_error(ST_ERR_VALIDATION, "Invalid SequenceNumber: %s",
				 strlen(text) > 64 ? "(too long)" : text);
	errno = 0;
	v = strtoi64(text, &end, 10);
	if (errno == ERANGE)
	{
		*beyond = true;
		return PG_INT64_MAX;
	}
	return v;
}

static void
trimmed(void)
{
	st_error(ST_ERR_TRIMMED_DATA,
			 "The operation attempted to read past the oldest stream record in a shard.");
}

Jsonb *
ops_stream_shard_iterator(const char *arn, const char *shard_id, const char *type,
						  const char *sequence)
{
	StreamRow  *s = readable_stream(arn);
	ShardRow	sh;
	int64		after;
	StringInfoData out;

	if (!shard_row(s, shard_id, &sh))
		shard_not_found();
	if (strcmp(type, "TRIM_HORIZON") == 0)
		after = sh.trimmed ? Max(sh.starting, sh.trimmed_to) : sh.starting;
	else if (strcmp(type, "LATEST") == 0)
		after = sh.closed ? sh.ending : (sh.has_last ? sh.last : sh.starting);
	else
	{
		bool		at = strcmp(type, "AT_SEQUENCE_NUMBER") == 0;
		bool		beyond;
		int64		n;

		if (sequence == NULL)
			st_error(ST_ERR_VALIDATION,
					 "Sequence number must be specified for the iterator type %s", type);
		n = sequence_arg(sequence, &beyond);
		/* the shard's range: above its start, at most its end once closed */
		if (beyond || n <= sh.starting || (sh.closed && n > sh.ending))
			st_error(ST_ERR_VALIDATION,
					 "Invalid SequenceNumber: %s is not in the range of shard %s",
					 strlen(sequence) > 64 ? "(too long)" : sequence, shard_id);
		after = at ? n - 1 : n;
		if (sh.trimmed && after < sh.trimmed_to)
			trimmed();
	}
	initStringInfo(&out);
	appendStringInfoString(&out, "{\"ShardIterator\": ");
	escape_json(&out, iterator_make(s, shard_id, after));
	appendStringInfoChar(&out, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* A time in ms since the epoch as Java's Date prints it (DynamoDB's message). */
static char *
java_date(int64 ms)
{
	static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	TimestampTz ts = (ms - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000) * 1000;
	struct pg_tm tm;
	fsec_t		fsec;

	if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		return pstrdup("?");
	return psprintf("%s %s %02d %02d:%02d:%02d UTC %04d",
					days[j2day(date2j(tm.tm_year, tm.tm_mon, tm.tm_mday))],
					months[tm.tm_mon - 1], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year);
}

/* ---------- GetRecords ---------- */

/*
 * GetRecords reads the records' rows in place (storage_stream_records_scan,
 * its columns REC_*), each handed on without a copy; through SPI, the
 * executor took each row apart, formed a new tuple of the columns wanted
 * and SPI copied it (perf: 12% and then 6% of a GetRecords of 1000
 * records).  A row of several records (batch) comes as its records, one
 * by one, each with batch NULL.
 */

/*
 * out += n bytes, without a call when they fit (the images' punctuation
 * went through appendBinaryStringInfo's call and its memcpy of two bytes;
 * the text's NUL is written once, at the end of an image)
 */
static inline void
text_put(StringInfo out, const char *s, int n)
{
	if (unlikely(out->len + n >= out->maxlen))
		enlargeStringInfo(out, n);
	memcpy(out->data + out->len, s, n);
	out->len += n;
}

#define TEXT_PUT_LITERAL(out, lit) text_put((out), (lit), sizeof(lit) - 1)

/* out += a record's eventID (src/common/st_record_id.c) */
static void
event_id(StringInfo out, int64 stream_id, int64 seq)
{
	enlargeStringInfo(out, ST_RECORD_ID_LEN);
	st_record_id_hex((uint64) stream_id, (uint64) seq, out->data + out->len);
	out->len += ST_RECORD_ID_LEN;
	out->data[out->len] = '\0';
}

/* out += v in decimal */
static void
append_int64(StringInfo out, int64 v)
{
	enlargeStringInfo(out, MAXINT8LEN + 1);
	out->len += pg_lltoa(v, out->data + out->len);
}

/* out += a sequence number (positive) as seq_text prints it: at least 21 digits, zero-padded */
static void
append_seq(StringInfo out, int64 seq)
{
	char		digits[MAXINT8LEN + 1];
	int			len = pg_lltoa(seq, digits);
	int			pad = len < 21 ? 21 - len : 0;

	enlargeStringInfo(out, pad + len);
	memset(out->data + out->len, '0', pad);
	memcpy(out->data + out->len + pad, digits, len);
	out->len += pad + len;
	out->data[out->len] = '\0';
}

/* out += the string s as a JSON string, after the member name key */
static void
member_string(StringInfo out, const char *key, const char *s)
{
	appendStringInfoString(out, key);
	escape_json(out, s);
}

/*
 * The images' text, exactly as JsonbToCString prints them (", " between
 * members and elements, ": " after keys, strings through escape_json,
 * numbers through numeric_out), walked over jsonb's binary form without
 * an iterator's allocations, and each string that needs no escape copied
 * whole: escape_json's byte-at-a-time append and JsonbToCString's copy of
 * every string before it were the largest part of a GetRecords of 1000
 * records (bench/RESULTS.md).  A string with a byte to escape goes through
 * escape_json itself, so that both give the same text.
 */

/*
 * Has the string a byte that JSON strings escape: '"', '\\' or a control?
 * Eight bytes at a time: (x - n * ONES) & ~x & HIGHS is nonzero exactly
 * when some byte of x is below n (n <= 128), and x ^ c * ONES has a zero
 * byte where x has c.
 */
static bool
json_needs_escape(const char *s, uint32 len)
{
	const uint64 ones = UINT64CONST(0x0101010101010101);
	const uint64 highs = UINT64CONST(0x8080808080808080);
	uint32		i = 0;

	for (; i + 8 <= len; i += 8)
	{
		uint64		x;
		uint64		q;
		uint64		b;

		memcpy(&x, s + i, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		if ((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs)
			return true;
	}
	for (; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c < 0x20 || c == '"' || c == '\\')
			return true;
	}
	return false;
}

/*
 * dst[0..len) = src[0..len): most of an image's strings are a few bytes
 * (attribute names, type tags, short values), for which a call of memcpy
 * was a sizeable part of the copy; two fixed-size moves that overlap do it
 * inline, reading nothing outside src[0..len)
 */
static inline void
copy_short(char *dst, const char *src, uint32 len)
{
	if (len >= 8 && len <= 16)
	{
		memcpy(dst, src, 8);
		memcpy(dst + len - 8, src + len - 8, 8);
	}
	else if (len >= 4 && len < 8)
	{
		memcpy(dst, src, 4);
		memcpy(dst + len - 4, src + len - 4, 4);
	}
	else if (len < 4)
	{
		for (uint32 i = 0; i < len; i++)
			dst[i] = src[i];
	}
	else
		memcpy(dst, src, len);
}

static void
json_text_string(StringInfo out, const char *s, uint32 len)
{
	if (json_needs_escape(s, len))
	{
		char	   *copy = pnstrdup(s, len);

		escape_json(out, copy);
		pfree(copy);
		return;
	}
	if (unlikely(out->len + (int) len + 2 >= out->maxlen))
		enlargeStringInfo(out, len + 2);
	out->data[out->len++] = '"';
	copy_short(out->data + out->len, s, len);
	out->len += len;
	out->data[out->len++] = '"';
}

static void json_text_container(StringInfo out, const JsonbContainer *c);

static void
json_text_value(StringInfo out, const JsonbRaw *v)
{
	switch (v->type)
	{
		case JENTRY_ISSTRING:
			json_text_string(out, v->data, v->len);
			break;
		case JENTRY_ISNUMERIC:
			appendStringInfoString(out, DatumGetCString(DirectFunctionCall1(numeric_out,
																			PointerGetDatum(v->data))));
			break;
		case JENTRY_ISBOOL_TRUE:
			TEXT_PUT_LITERAL(out, "true");
			break;
		case JENTRY_ISBOOL_FALSE:
			TEXT_PUT_LITERAL(out, "false");
			break;
		case JENTRY_ISNULL:
			TEXT_PUT_LITERAL(out, "null");
			break;
		case JENTRY_ISCONTAINER:
			json_text_container(out, (const JsonbContainer *) v->data);
			break;
		default:
			st_internal_error("corrupt jsonb in a stream record");
	}
}

static void
json_text_container(StringInfo out, const JsonbContainer *c)
{
	JsonbRawIter it;
	JsonbRaw	key;
	JsonbRaw	value;
	bool		first = true;

	check_stack_depth();
	st_jsonb_raw_begin(&it, c);
	if (JsonContainerIsObject(c))
	{
		TEXT_PUT_LITERAL(out, "{");
		while (st_jsonb_raw_next_member(&it, &key, &value))
		{
			if (!first)
				TEXT_PUT_LITERAL(out, ", ");
			first = false;
			json_text_string(out, key.data, key.len);
			TEXT_PUT_LITERAL(out, ": ");
			json_text_value(out, &value);
		}
		TEXT_PUT_LITERAL(out, "}");
	}
	else if (JsonContainerIsScalar(c))
	{
		/* a scalar at the top: its one element, without brackets */
		if (st_jsonb_raw_next_elem(&it, &value))
			json_text_value(out, &value);
	}
	else
	{
		TEXT_PUT_LITERAL(out, "[");
		while (st_jsonb_raw_next_elem(&it, &value))
		{
			if (!first)
				TEXT_PUT_LITERAL(out, ", ");
			first = false;
			json_text_value(out, &value);
		}
		TEXT_PUT_LITERAL(out, "]");
	}
}

/* out += the jsonb image, after the member name key */
static void
member_jsonb(StringInfo out, const char *key, Datum d)
{
	Jsonb	   *j = DatumGetJsonbP(d);

	appendStringInfoString(out, key);
	json_text_container(out, &j->root);
	out->data[out->len] = '\0';
	/* a detoasted copy (an image over about 2 kB) is not kept past its record */
	if ((Pointer) j != DatumGetPointer(d))
		pfree(j);
}

/* ApproximateCreationDateTime: whole seconds since the epoch, floored */
static int64
epoch_seconds(TimestampTz ts)
{
	int64		secs = ts / USECS_PER_SEC;

	if (ts % USECS_PER_SEC < 0)
		secs--;
	return secs + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
}

/* GetRecords' records as they are written out (record_text) */
typedef struct RecordsText
{
	StringInfo	out;
	const char *view;			/* the members every record shares, as JSON */
	const char *region;
	uint64		n;				/* records written */
	int64		next;			/* the last one's sequence number */
	size_t		bytes;			/* their text's bytes */
	int64		size;			/* their SizeBytes */
	MemoryContext cxt;			/* what one record allocates */
} RecordsText;

/*
 * One record (a row of stdesign.stream_records) into the answer; false
 * when the answer has all it may take.
 */
static bool
record_text(void *arg, const Datum *col, const bool *null)
{
	RecordsText *w = arg;
	StringInfo	out = w->out;
	int			start = out->len;
	int64		seq = DatumGetInt64(col[REC_SEQ]);
	int32		size_bytes = DatumGetInt32(col[REC_SIZE]);
	size_t		len;
	text	   *event_name;
	MemoryContext caller;

	/*
	 * No more than about 1 MB of records: those that start within the first
	 * MB of their SizeBytes (the answer's bytes are bounded again below, on
	 * its text)
	 */
	if (w->size >= ST_STREAM_RECORDS_MAX_BYTES)
		return false;
	w->size += size_bytes;
	caller = MemoryContextSwitchTo(w->cxt);
	if (w->n > 0)
		TEXT_PUT_LITERAL(out, ", ");
	/* a record's members in jsonb's order, as its Jsonb printed */
	TEXT_PUT_LITERAL(out, "{\"eventID\": \"");
	event_id(out, DatumGetInt64(col[REC_STREAM]), seq);
	TEXT_PUT_LITERAL(out, "\", \"dynamodb\": {");
	member_jsonb(out, "\"Keys\": ", col[REC_KEYS]);
	if (!null[REC_NEW])
		member_jsonb(out, ", \"NewImage\": ", col[REC_NEW]);
	if (!null[REC_OLD])
		member_jsonb(out, ", \"OldImage\": ", col[REC_OLD]);
	/* printed piece by piece: appendStringInfo's format was a cost per record */
	TEXT_PUT_LITERAL(out, ", \"SizeBytes\": ");
	append_int64(out, size_bytes);
	TEXT_PUT_LITERAL(out, ", \"SequenceNumber\": \"");
	append_seq(out, seq);
	TEXT_PUT_LITERAL(out, "\", \"StreamViewType\": ");
	appendStringInfoString(out, w->view);
	TEXT_PUT_LITERAL(out, ", \"ApproximateCreationDateTime\": ");
	append_int64(out, epoch_seconds(DatumGetTimestampTz(col[REC_CREATED])));
	TEXT_PUT_LITERAL(out, "}, \"awsRegion\": ");
	appendStringInfoString(out, w->region);
	TEXT_PUT_LITERAL(out, ", \"eventName\": ");
	event_name = DatumGetTextPP(col[REC_EVENT]);
	json_text_string(out, VARDATA_ANY(event_name), VARSIZE_ANY_EXHDR(event_name));
	TEXT_PUT_LITERAL(out, ", \"eventSource\": \"aws:dynamodb\", \"eventVersion\": \"1.1\"");
	if (DatumGetBool(col[REC_TTL]))
		TEXT_PUT_LITERAL(out, ", \"userIdentity\": {\"Type\": \"Service\", \"PrincipalId\": \"dynamodb.amazonaws.com\"}");
	TEXT_PUT_LITERAL(out, "}");
	out->data[out->len] = '\0';
	MemoryContextSwitchTo(caller);
	MemoryContextReset(w->cxt);
	len = out->len - start - (w->n > 0 ? 2 : 0);

	/* the answer stays within 1 MB, unless one record alone is more */
	if (w->n > 0 && w->bytes + len > ST_STREAM_RECORDS_MAX_BYTES)
	{
		out->len = start;
		out->data[start] = '\0';
		return false;
	}
	w->bytes += len;
	w->next = seq;
	w->n++;
	return true;
}

/*
 * GetRecords' answer, as JSON text appended to out.  The text is written
 * here directly from the stored columns, each image printed once into it,
 * exactly as the Jsonb of the answer prints (jsonb's order of keys:
 * shorter first, then bytewise; its ", " and ": "): building the records
 * as Jsonb in SQL, bounding them on their printed text, then printing the
 * whole answer again was most of the call (bench/streams_getrecords.sh).
 * The HTTP endpoint sends this text as it is; st_api parses it
 * (ops_stream_get_records).
 */
void
ops_stream_get_records_text(const char *iterator, int limit, StringInfo out)
{
	Iterator	it = iterator_parse(iterator);
	int64		now = now_ms();
	StreamRow  *s;
	ShardRow	sh;
	RecordsText w;
	int64		next;
	bool		end;
	char	   *view;
	char	   *region;

	/* an iterator is its role's: another's may not use it */
	if (it.role != GetUserId())
		st_error(ST_ERR_VALIDATION, "Invalid ShardIterator: it was issued to another role");
	if (now - it.issued > (int64) ops_stream_iterator_lifetime * 1000)
		st_error(ST_ERR_EXPIRED_ITERATOR,
				 "Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of %lld milliseconds.",
				 java_date(it.issued), java_date(now),
				 (long long) ops_stream_iterator_lifetime * 1000);
	s = stream_by_arn(it.arn, true);
	/* the same stream as when the iterator was issued (not a later one of the same ARN) */
	if (s->id != it.stream_id)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Stream: %s not found", it.arn);
	/* the right to read it, checked on every call */
	stream_readable(s, true);
	if (!shard_row(s, it.shard_id, &sh))
		shard_not_found();
	if (sh.trimmed && it.after < sh.trimmed_to)
		trimmed();

	/* the members every record shares, as JSON strings */
	{
		StringInfoData t;

		initStringInfo(&t);
		escape_json(&t, s->view);
		view = t.data;
		initStringInfo(&t);
		escape_json(&t, ST_ARN_REGION);
		region = t.data;
	}

	appendStringInfoString(out, "{\"Records\": [");
	memset(&w, 0, sizeof(w));
	w.out = out;
	w.view = view;
	w.region = region;
	w.next = it.after;
	w.cxt = AllocSetContextCreate(CurrentMemoryContext, "GetRecords record", ALLOCSET_DEFAULT_SIZES);
	/*
	 * A record's shard is the one whose range holds its number (a stream's
	 * shards hold disjoint ranges, src/storage/stream_capture.c).  The
	 * range comes from shard_row, read with the same active snapshot as
	 * the records (a read-only SPI statement takes no snapshot of its
	 * own), so that a rollover committed meanwhile cannot add the child's
	 * records to the parent's: the rollover commits with the child's
	 * first records.
	 */
	storage_stream_records_scan(s->id, Max(it.after, sh.starting),
								sh.closed ? sh.ending : PG_INT64_MAX,
								limit, REC_NCOLS, record_text, &w);
	MemoryContextDelete(w.cxt);
	next = w.next;
	appendStringInfoChar(out, ']');
	/* a closed shard read to its end has no next iterator (API reference, GetRecords) */
	end = sh.closed && next >= sh.ending;
	if (!end)
		member_string(out, ", \"NextShardIterator\": ", iterator_make(s, it.shard_id, next));
	appendStringInfoChar(out, '}');
}

Jsonb *
ops_stream_get_records(const char *iterator, int limit)
{
	StringInfoData out;

	initStringInfo(&out);
	ops_stream_get_records_text(iterator, limit, &out);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}
