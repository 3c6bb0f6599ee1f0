/*-------------------------------------------------------------------------
 *
 * stream_capture.c
 *		DynamoDB Streams' change capture, and the order of its records.
 *
 * Which changes.  A table with an enabled stream has an AFTER INSERT OR
 * UPDATE OR DELETE row trigger, stdesign.stream_capture(stream id, view
 * type, key names), on its relation: every statement that writes the
 * relation (stdesign's own through SPI, and plain SQL, which the README
 * says users may run) reports its rows' changes here.  stdesign's direct
 * writes (row_write.c), which run no executor and so fire no trigger, call
 * storage_stream_capture themselves with the same old and new items, and
 * count the trigger as handled, as they do the set_keys trigger: a stream
 * does not push writes off their fast path.  The trigger is also the flag
 * that a relation has a stream (looked up in its relcache entry, which
 * every write opens anyway), so a table without one pays nothing more.
 * Attaching the trigger locks the relation against writers (SHARE ROW
 * EXCLUSIVE): a transaction either wrote before the stream was enabled,
 * and is not in it, or after, with every change in it.
 *
 * Which are changes.  A replacement of an item by an equal one (the same
 * item put again, an update that sets what is there) records nothing, as
 * in DynamoDB; a delete of a missing item deletes no row, so reaches no
 * capture.
 *
 * Order by construction.  Numbering records when they are written would
 * let a transaction that took number 5 commit after one that took 6: a
 * reader that has read 6 would never see 5.  So nothing is numbered while
 * the transaction runs.  Records are kept in this backend (a tuplestore in
 * the transaction's memory, spilling to a temporary file past work_mem);
 * a subtransaction that rolls back drops its records (SubXactCallback).
 * At XACT_EVENT_PRE_COMMIT the transaction takes each of its streams' lock
 * (a heavyweight lock on the stream's object id, in stream order, held
 * until the transaction has ended), takes sequence numbers from one
 * sequence and inserts the records.  A lock holder's commit is visible
 * before the next holder can take a number, so in each stream sequence
 * numbers become visible in the order they grow: a reader that has read up
 * to N never later sees a record below N appear.  Commit order is WAL
 * order, so a physical standby, replaying commits in that order, shows the
 * same.  The price: writers of one stream serialise on their commits
 * (the time from PRE_COMMIT to the end of the commit, WAL flush included);
 * bench/RESULTS.md has the measure.
 *
 * A transaction with records cannot be prepared (PREPARE TRANSACTION):
 * its stream's lock would be held by the prepared transaction, stopping
 * every writer of the table until COMMIT PREPARED.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "commands/trigger.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "item/av.h"
#include "item/av_jsonb.h"
#include "stream_capture.h"

/* The columns of a buffered record. */
enum
{
	BUF_STREAM,
	BUF_EVENT,
	BUF_KEYS,
	BUF_NEW,
	BUF_OLD,
	BUF_SIZE,
	BUF_TTL,
	BUF_NCOLS
};

/* The columns of stdesign.stream_records. */
#define REC_NCOLS 10

typedef enum StStreamEvent
{
	EV_INSERT,
	EV_MODIFY,
	EV_REMOVE
} StStreamEvent;

static const char *const event_names[] = {"INSERT", "MODIFY", "REMOVE"};

typedef struct SubMark
{
	SubTransactionId subid;
	int64		pos;			/* its first record */
} SubMark;

typedef struct DroppedRange
{
	int64		start;
	int64		end;			/* exclusive */
} DroppedRange;

/*
 * This transaction's records, in the order they were made.  Records are
 * appended only: a subtransaction's records are always a suffix of the
 * records made since it started (a subtransaction started later, while it
 * is open, is one of its own), so a rollback drops a range of positions.
 * marks: per open (sub)transaction with records, its first record, in
 * strictly increasing subtransaction ids (at most the nesting depth).
 */
typedef struct StreamBuffer
{
	MemoryContext cxt;
	MemoryContext scratch;		/* reset after each record */
	TupleDesc	desc;
	Tuplestorestate *store;
	int64		count;
	int64		live;			/* count less those dropped */
	SubMark    *marks;
	int			nmarks;
	int			maxmarks;
	DroppedRange *dropped;
	int			ndropped;
	int			maxdropped;
	int64	   *streams;		/* the distinct streams of the records */
	int			nstreams;
	int			maxstreams;
} StreamBuffer;

static StreamBuffer *buffer = NULL;
static bool ttl_deletions = false;
static Oid	capture_oid = InvalidOid;

/* ---------- the trigger as the relation's flag ---------- */

static Oid
capture_function(void)
{
	if (!OidIsValid(capture_oid))
		capture_oid = LookupFuncName(list_make2(makeString("stdesign"), makeString("stream_capture")),
									 0, NULL, true);
	return capture_oid;
}

Oid
storage_stream_capture_oid(void)
{
	return capture_function();
}

bool
storage_stream_is_capture(const Trigger *trigger)
{
	Oid			fn = capture_function();

	return OidIsValid(fn) && trigger->tgfoid == fn;
}

bool
storage_stream_view_from_name(const char *name, StStreamView *view)
{
	static const char *const names[] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};

	for (int i = 0; i < lengthof(names); i++)
		if (name && strcmp(name, names[i]) == 0)
		{
			*view = (StStreamView) i;
			return true;
		}
	return false;
}

/* The target of a capture trigger's arguments; raises when they are not one. */
static StStreamTarget *
target_from_trigger(const Trigger *trigger)
{
	StStreamTarget *t = palloc0(sizeof(StStreamTarget));
	char	   *end;

	if (trigger->tgnargs != 3 && trigger->tgnargs != 4)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.stream_capture() takes a stream id, a view type and the key names")));
	errno = 0;
	t->stream_id = strtoi64(trigger->tgargs[0], &end, 10);
	if (errno != 0 || *end != '\0' || t->stream_id <= 0 ||
		!storage_stream_view_from_name(trigger->tgargs[1], &t->view))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("the arguments of stdesign.stream_capture() are not a stream id and a view type")));
	t->pk = pstrdup(trigger->tgargs[2]);
	t->sk = trigger->tgnargs == 4 ? pstrdup(trigger->tgargs[3]) : NULL;
	return t;
}

StStreamTarget *
storage_stream_target(Relation rel)
{
	/*
	 * The function's lookup first: a first lookup may take a lock and
	 * process invalidations, which can rebuild the relation's cache entry
	 * and free the trigger descriptor read below.
	 */
	Oid			fn = capture_function();
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td && OidIsValid(fn) && i < td->numtriggers; i++)
	{
		Trigger    *trigger = &td->triggers[i];

		if (trigger->tgenabled != TRIGGER_DISABLED && trigger->tgfoid == fn)
			return target_from_trigger(trigger);
	}
	return NULL;
}

void
storage_stream_ttl_deletions(bool on)
{
	ttl_deletions = on;
}

/* ---------- the transaction's buffer ---------- */

static StreamBuffer *
buffer_get(void)
{
	MemoryContext cxt;
	MemoryContext old;
	ResourceOwner owner = CurrentResourceOwner;

	if (buffer)
		return buffer;
	cxt = AllocSetContextCreate(TopTransactionContext, "stdesign stream records",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	buffer = palloc0(sizeof(StreamBuffer));
	buffer->cxt = cxt;
	buffer->scratch = AllocSetContextCreate(cxt, "stdesign stream record", ALLOCSET_DEFAULT_SIZES);
	buffer->desc = CreateTemplateTupleDesc(BUF_NCOLS);
	TupleDescInitEntry(buffer->desc, BUF_STREAM + 1, "stream", INT8OID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_EVENT + 1, "event", INT4OID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_KEYS + 1, "keys", JSONBOID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_NEW + 1, "new", JSONBOID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_OLD + 1, "old", JSONBOID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_SIZE + 1, "size", INT4OID, -1, 0);
	TupleDescInitEntry(buffer->desc, BUF_TTL + 1, "ttl", BOOLOID, -1, 0);
	/* its temporary file, past work_mem, lives as long as the transaction */
	CurrentResourceOwner = TopTransactionResourceOwner;
	buffer->store = tuplestore_begin_heap(false, false, work_mem);
	CurrentResourceOwner = owner;
	buffer->maxmarks = 4;
	buffer->marks = palloc(sizeof(SubMark) * buffer->maxmarks);
	buffer->maxstreams = 2;
	buffer->streams = palloc(sizeof(int64) * buffer->maxstreams);
	MemoryContextSwitchTo(old);
	return buffer;
}

/* Note the record about to be appended at buffer->count, made in the current subtransaction. */
static void
mark_record(StreamBuffer *b, int64 stream_id)
{
	SubTransactionId subid = GetCurrentSubTransactionId();
	int64		first = b->count;
	bool		known = false;

	/* subtransactions with ids above the current one have ended, committed into it */
	while (b->nmarks > 0 && b->marks[b->nmarks - 1].subid > subid)
		first = b->marks[--b->nmarks].pos;
	if (b->nmarks == 0 || b->marks[b->nmarks - 1].subid != subid)
	{
		if (b->nmarks == b->maxmarks)
		{
			b->maxmarks *= 2;
			b->marks = repalloc(b->marks, sizeof(SubMark) * b->maxmarks);
		}
		b->marks[b->nmarks].subid = subid;
		b->marks[b->nmarks].pos = first;
		b->nmarks++;
	}
	for (int i = 0; i < b->nstreams && !known; i++)
		known = b->streams[i] == stream_id;
	if (!known)
	{
		if (b->nstreams == b->maxstreams)
		{
			b->maxstreams *= 2;
			b->streams = repalloc(b->streams, sizeof(int64) * b->maxstreams);
		}
		b->streams[b->nstreams++] = stream_id;
	}
}

/* The key attributes of item as a map ({pk: {...}[, sk: {...}]}). */
static Jsonb *
keys_of(const StStreamTarget *target, Jsonb *item)
{
	JsonbParseState *state = NULL;
	const char *names[2] = {target->pk, target->sk};

	/* set_keys refuses a row whose item is no map; never read one as a map */
	if (!JB_ROOT_IS_OBJECT(item))
		st_internal_error("an item of a table with a stream is not a map");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int k = 0; k < 2 && names[k]; k++)
	{
		JsonbValue	vbuf;
		JsonbValue *v = getKeyJsonValueFromContainer(&item->root, names[k], strlen(names[k]), &vbuf);
		JsonbValue	key;

		/* every row has its key attributes (set_keys refuses one without) */
		if (v == NULL)
			st_internal_error("an item of a table with a stream lacks its key attribute %s", names[k]);
		key.type = jbvString;
		key.val.string.val = (char *) names[k];
		key.val.string.len = strlen(names[k]);
		pushJsonbValue(&state, WJB_KEY, &key);
		pushJsonbValue(&state, WJB_VALUE, v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

static int64
stored_size(Jsonb *jb)
{
	return jb ? av_item_size(av_item_from_stored(jb)) : 0;
}

/* Append one record of event; keys given (a map of the key attributes). */
static void
append_record(StreamBuffer *b, const StStreamTarget *target, StStreamEvent event, Jsonb *keys,
			  Jsonb *old_item, Jsonb *new_item)
{
	ResourceOwner owner = CurrentResourceOwner;
	Datum		values[BUF_NCOLS];
	bool		nulls[BUF_NCOLS] = {false};
	bool		keep_new;
	bool		keep_old;
	int64		size;

	keep_new = new_item && (target->view == ST_STREAM_NEW_IMAGE ||
							target->view == ST_STREAM_NEW_AND_OLD_IMAGES);
	keep_old = old_item && (target->view == ST_STREAM_OLD_IMAGE ||
							target->view == ST_STREAM_NEW_AND_OLD_IMAGES);
	size = stored_size(keys) + (keep_new ? stored_size(new_item) : 0) +
		(keep_old ? stored_size(old_item) : 0);
	values[BUF_STREAM] = Int64GetDatum(target->stream_id);
	values[BUF_EVENT] = Int32GetDatum((int32) event);
	values[BUF_KEYS] = JsonbPGetDatum(keys);
	values[BUF_NEW] = keep_new ? JsonbPGetDatum(new_item) : (Datum) 0;
	nulls[BUF_NEW] = !keep_new;
	values[BUF_OLD] = keep_old ? JsonbPGetDatum(old_item) : (Datum) 0;
	nulls[BUF_OLD] = !keep_old;
	values[BUF_SIZE] = Int32GetDatum((int32) Min(size, PG_INT32_MAX));
	values[BUF_TTL] = BoolGetDatum(event == EV_REMOVE && ttl_deletions);

	mark_record(b, target->stream_id);
	CurrentResourceOwner = TopTransactionResourceOwner;
	PG_TRY();
	{
		tuplestore_putvalues(b->store, b->desc, values, nulls);
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();
	b->count++;
	b->live++;
}

void
storage_stream_capture(const StStreamTarget *target, Jsonb *old_item, Jsonb *new_item)
{
	StreamBuffer *b;
	MemoryContext old;
	Jsonb	   *keys;

	if (old_item == NULL && new_item == NULL)
		return;
	/* no change, no record */
	if (old_item && new_item && compareJsonbContainers(&old_item->root, &new_item->root) == 0)
		return;

	b = buffer_get();
	old = MemoryContextSwitchTo(b->scratch);
	keys = keys_of(target, new_item ? new_item : old_item);
	if (old_item == NULL)
		append_record(b, target, EV_INSERT, keys, NULL, new_item);
	else if (new_item == NULL)
		append_record(b, target, EV_REMOVE, keys, old_item, NULL);
	else
	{
		Jsonb	   *old_keys = keys_of(target, old_item);

		/*
		 * A plain SQL UPDATE may give a row another key (set_keys follows
		 * the item): to DynamoDB that is one item removed and another put.
		 */
		if (compareJsonbContainers(&old_keys->root, &keys->root) != 0)
		{
			append_record(b, target, EV_REMOVE, old_keys, old_item, NULL);
			append_record(b, target, EV_INSERT, keys, NULL, new_item);
		}
		else
			append_record(b, target, EV_MODIFY, keys, old_item, new_item);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(b->scratch);
}

/* A subtransaction rolled back: its records (a suffix, see StreamBuffer) are dropped. */
static void
drop_subtransaction(SubTransactionId subid)
{
	StreamBuffer *b = buffer;
	int64		start = -1;
	int64		kept_dropped = 0;
	int			n;

	while (b->nmarks > 0 && b->marks[b->nmarks - 1].subid >= subid)
		start = b->marks[--b->nmarks].pos;
	if (start < 0 || start >= b->count)
		return;
	/* ranges inside the new one merge into it */
	for (n = 0; n < b->ndropped && b->dropped[n].start < start; n++)
		kept_dropped += b->dropped[n].end - b->dropped[n].start;
	b->ndropped = n;
	if (b->ndropped == b->maxdropped)
	{
		b->maxdropped = Max(4, b->maxdropped * 2);
		b->dropped = b->dropped
			? repalloc(b->dropped, sizeof(DroppedRange) * b->maxdropped)
			: MemoryContextAlloc(b->cxt, sizeof(DroppedRange) * b->maxdropped);
	}
	b->dropped[b->ndropped].start = start;
	b->dropped[b->ndropped].end = b->count;
	b->ndropped++;
	b->live = b->count - kept_dropped - (b->count - start);
}

/* ---------- at commit: lock, number, write ---------- */

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/* The shard stream_id's records go to now, or NULL when the stream is gone. */
static char *
current_shard(Relation streams, Oid streams_pkey, int64 stream_id)
{
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	char	   *shard = NULL;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(stream_id));
	scan = systable_beginscan(streams, streams_pkey, true, snap, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		/* stream_id, table_name, label, view_type, shard_id, ... */
		Datum		d = heap_getattr(tup, 5, RelationGetDescr(streams), &isnull);

		if (!isnull)
			shard = TextDatumGetCString(d);
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	return shard;
}

static Oid
stdesign_relid(const char *name)
{
	Oid			nsp = get_namespace_oid("stdesign", false);
	Oid			relid = get_relname_relid(name, nsp);

	if (!OidIsValid(relid))
		st_internal_error("the catalog relation stdesign.%s is missing", name);
	return relid;
}

/*
 * Shards roll over on a schedule (stdesign.stream_shard_lifetime), as
 * DynamoDB's do, about every four hours
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html:
 * shards are ephemeral, created and deleted automatically; a shard can
 * split into children).  The first writer that numbers records after the
 * open shard's lifetime closes it and opens its child, here, under the
 * stream's lock: no record of the stream is numbered meanwhile, so the
 * closed shard's last number is final, and every later number is in the
 * child.  The check reads the shard's row (an index lookup per stream
 * per commit); the rollover itself, rare, is one statement run as the
 * catalog's owner.  Returns the shard to write to.
 */
int			storage_stream_shard_lifetime = 4 * 60 * 60;

static char *
roll_shard_if_due(int64 stream_id, char *shard, TimestampTz now)
{
	Relation	rel = table_open(stdesign_relid("stream_shards"), AccessShareLock);
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	bool		due = false;
	char	   *child = NULL;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(stream_id));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_TEXTEQ, CStringGetTextDatum(shard));
	scan = systable_beginscan(rel, stdesign_relid("stream_shards_pkey"), true, snap, 2, keys);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		/* stream_id, shard_id, parent_shard_id, created_at, ..., closed_at (7) */
		Datum		created = heap_getattr(tup, 4, RelationGetDescr(rel), &isnull);
		bool		open;

		/* a closed shard is never the stream's current one; read as open when its closed_at is null */
		(void) heap_getattr(tup, 7, RelationGetDescr(rel), &open);
		due = !isnull && open &&
			now - DatumGetTimestampTz(created) >= (TimestampTz) storage_stream_shard_lifetime * USECS_PER_SEC;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	if (due)
	{
		CatalogAsOwner save;
		Oid			types[4] = {INT8OID, TEXTOID, TEXTOID, TIMESTAMPTZOID};
		Datum		args[4];
		SPIPlanPtr	plan;

		/* DynamoDB's form: shardId-<20 digits of ms since the epoch>-<8 hex digits> */
		child = psprintf("shardId-%020lld-%08x",
						 (long long) ((now / 1000) + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000),
						 (unsigned int) pg_prng_uint32(&pg_global_prng_state));
		args[0] = Int64GetDatum(stream_id);
		args[1] = CStringGetTextDatum(shard);
		args[2] = CStringGetTextDatum(child);
		args[3] = TimestampTzGetDatum(now);
		catalog_check_triggers();
		catalog_as_owner_begin(&save);
		SPI_connect();
		plan = SPI_prepare("WITH closed AS (UPDATE stdesign.stream_shards"
						   "  SET ending_sequence = COALESCE((SELECT pg_catalog.max(r.sequence_number)"
						   "    FROM stdesign.stream_records r WHERE r.stream_id OPERATOR(pg_catalog.=) $1"
						   "    AND r.shard_id OPERATOR(pg_catalog.=) $2), starting_sequence), closed_at = $4"
						   "  WHERE stream_id OPERATOR(pg_catalog.=) $1 AND shard_id OPERATOR(pg_catalog.=) $2 RETURNING 1),"
						   " opened AS (INSERT INTO stdesign.stream_shards"
						   "  (stream_id, shard_id, parent_shard_id, created_at, starting_sequence)"
						   "  VALUES ($1, $3, $2, $4, pg_catalog.nextval('stdesign.stream_sequence_numbers'::pg_catalog.regclass))"
						   "  RETURNING 1)"
						   " UPDATE stdesign.streams SET shard_id = $3 WHERE stream_id OPERATOR(pg_catalog.=) $1",
						   4, types);
		/* the latest snapshot: a repeatable read transaction's is older than the last rollover */
		if (plan == NULL ||
			SPI_execute_snapshot(plan, args, NULL, snap, InvalidSnapshot, false, true, 0) != SPI_OK_UPDATE)
			st_internal_error("could not roll over the shard of stream " INT64_FORMAT, stream_id);
		SPI_finish();
		catalog_as_owner_end(&save);
	}
	UnregisterSnapshot(snap);
	return child ? child : shard;
}

static void
write_records(void)
{
	StreamBuffer *b = buffer;
	Oid			streams_relid = stdesign_relid("streams");
	Oid			records_relid = stdesign_relid("stream_records");
	Oid			seq = stdesign_relid("stream_sequence_numbers");
	Relation	streams;
	Relation	records;
	CatalogIndexState indstate;
	char	  **shards;
	TupleTableSlot *slot;
	TimestampTz now = GetCurrentTimestamp();
	int			next_dropped = 0;
	ResourceOwner owner = CurrentResourceOwner;

	/* in one order, so that two transactions writing two streams never deadlock */
	qsort(b->streams, b->nstreams, sizeof(int64), cmp_int64);
	for (int i = 0; i < b->nstreams; i++)
	{
		if (b->streams[i] > PG_UINT32_MAX)
			st_internal_error("stream id " INT64_FORMAT " is out of range", b->streams[i]);
		LockDatabaseObject(streams_relid, (Oid) b->streams[i], 0, ExclusiveLock);
	}

	streams = table_open(streams_relid, AccessShareLock);
	shards = palloc(sizeof(char *) * b->nstreams);
	for (int i = 0; i < b->nstreams; i++)
		shards[i] = current_shard(streams, stdesign_relid("streams_pkey"), b->streams[i]);
	table_close(streams, AccessShareLock);
	for (int i = 0; i < b->nstreams; i++)
		if (shards[i])
			shards[i] = roll_shard_if_due(b->streams[i], shards[i], now);

	records = table_open(records_relid, RowExclusiveLock);
	indstate = CatalogOpenIndexes(records);
	slot = MakeSingleTupleTableSlot(b->desc, &TTSOpsMinimalTuple);
	CurrentResourceOwner = TopTransactionResourceOwner;
	tuplestore_rescan(b->store);
	CurrentResourceOwner = owner;
	for (int64 pos = 0; pos < b->count; pos++)
	{
		bool		got;
		int64		stream_id;
		char	   *shard = NULL;
		Datum		values[REC_NCOLS];
		bool		nulls[REC_NCOLS] = {false};
		bool		isnull;
		HeapTuple	tup;

		CurrentResourceOwner = TopTransactionResourceOwner;
		got = tuplestore_gettupleslot(b->store, true, false, slot);
		CurrentResourceOwner = owner;
		if (!got)
			st_internal_error("a stream record of this transaction is missing");
		while (next_dropped < b->ndropped && b->dropped[next_dropped].end <= pos)
			next_dropped++;
		if (next_dropped < b->ndropped && b->dropped[next_dropped].start <= pos)
			continue;
		stream_id = DatumGetInt64(slot_getattr(slot, BUF_STREAM + 1, &isnull));
		for (int i = 0; i < b->nstreams; i++)
			if (b->streams[i] == stream_id)
				shard = shards[i];
		/* a stream removed meanwhile (its catalog row deleted) takes no records */
		if (shard == NULL)
			continue;
		values[0] = Int64GetDatum(stream_id);
		values[1] = CStringGetTextDatum(shard);
		values[2] = Int64GetDatum(nextval_internal(seq, false));
		values[3] = TimestampTzGetDatum(now);
		values[4] = CStringGetTextDatum(event_names[DatumGetInt32(slot_getattr(slot, BUF_EVENT + 1, &isnull))]);
		values[5] = slot_getattr(slot, BUF_KEYS + 1, &isnull);
		values[6] = slot_getattr(slot, BUF_NEW + 1, &nulls[6]);
		values[7] = slot_getattr(slot, BUF_OLD + 1, &nulls[7]);
		values[8] = slot_getattr(slot, BUF_SIZE + 1, &isnull);
		values[9] = slot_getattr(slot, BUF_TTL + 1, &isnull);
		tup = heap_form_tuple(RelationGetDescr(records), values, nulls);
		CatalogTupleInsertWithInfo(records, tup, indstate);
		heap_freetuple(tup);
	}
	ExecDropSingleTupleTableSlot(slot);
	CatalogCloseIndexes(indstate);
	table_close(records, NoLock);
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			if (buffer && buffer->live > 0)
			{
				MemoryContext old = MemoryContextSwitchTo(buffer->cxt);

				write_records();
				MemoryContextSwitchTo(old);
			}
			if (buffer)
			{
				ResourceOwner owner = CurrentResourceOwner;

				CurrentResourceOwner = TopTransactionResourceOwner;
				tuplestore_end(buffer->store);
				CurrentResourceOwner = owner;
				buffer->store = NULL;
			}
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (buffer && buffer->live > 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that changed a table with a stream"),
						 errdetail("Its stream records are numbered and written when it commits.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* the memory goes with the transaction's, the file with its resource owner */
			buffer = NULL;
			ttl_deletions = false;
			break;
		default:
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid,
				 void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && buffer)
		drop_subtransaction(mySubid);
}

void
storage_stream_init(void)
{
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
}

/* ---------- the trigger ---------- */

PG_FUNCTION_INFO_V1(st_stream_capture);
Datum
st_stream_capture(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	StStreamTarget *target;
	TupleDesc	desc;
	AttrNumber	item_attnum;
	Jsonb	   *old_item = NULL;
	Jsonb	   *new_item = NULL;
	bool		isnull;
	Datum		d;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.stream_capture() must be an AFTER ... FOR EACH ROW trigger")));
	target = target_from_trigger(td->tg_trigger);
	desc = RelationGetDescr(td->tg_relation);
	/* pk, [sk,] item, as set_keys reads the row */
	item_attnum = target->sk ? 3 : 2;
	if (item_attnum > desc->natts || TupleDescAttr(desc, item_attnum - 1)->atttypid != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.stream_capture() fires on the relations of stdesign's tables only")));
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
	{
		d = heap_getattr(td->tg_trigtuple, item_attnum, desc, &isnull);
		new_item = isnull ? NULL : DatumGetJsonbP(d);
	}
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		d = heap_getattr(td->tg_trigtuple, item_attnum, desc, &isnull);
		old_item = isnull ? NULL : DatumGetJsonbP(d);
		d = heap_getattr(td->tg_newtuple, item_attnum, desc, &isnull);
		new_item = isnull ? NULL : DatumGetJsonbP(d);
	}
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		d = heap_getattr(td->tg_trigtuple, item_attnum, desc, &isnull);
		old_item = isnull ? NULL : DatumGetJsonbP(d);
	}
	storage_stream_capture(target, old_item, new_item);
	return PointerGetDatum(NULL);
}
