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
 * The same function, as a BEFORE TRUNCATE statement trigger, refuses a
 * TRUNCATE of the relation (it would remove items and write no record).
 * Both triggers are found, and dropped, by their function, never by name.
 *
 * Which are changes.  A replacement of an item by an equal one (the same
 * item put again, an update that sets what is there) records nothing, as
 * in DynamoDB; a delete of a missing item deletes no row, so reaches no
 * capture.  An image the stream keeps is at most 400 KB, DynamoDB's item
 * limit (a plain SQL write past it fails its statement), so that a record
 * stays below ~800 KB.
 *
 * Order by construction.  Numbering records when they are written would
 * let a transaction that took number 5 commit after one that took 6: a
 * reader that has read 6 would never see 5.  So nothing is numbered while
 * the transaction runs.  Records are kept in this backend (the first in
 * the transaction's memory, up to half of work_mem, the rest in a
 * tuplestore that spills to a temporary file past the other half);
 * a subtransaction that rolls back drops its records (SubXactCallback).
 * At XACT_EVENT_PRE_COMMIT the transaction takes each of its streams' lock
 * (a heavyweight lock on the stream's object id, in stream order, held
 * until the transaction has ended), takes sequence numbers from one
 * sequence and inserts the records.  A lock holder's commit is visible
 * before the next holder can take a number, so in each stream sequence
 * numbers become visible in the order they grow: a reader that has read up
 * to N never later sees a record below N appear.  Commit order is WAL
 * order, so a physical standby, replaying commits in that order, shows the
 * same.  The shard a record goes to is not written with it: a shard's
 * rollover (roll_shard_if_due) runs under the same lock, before that
 * commit's numbering, and the child's first number is taken after the
 * parent's last, so a stream's shards hold disjoint, ordered ranges of
 * numbers (stream_shards) and a number names its shard.  A commit of
 * several records of a stream writes them several to a row (its batch
 * column, stream_batch.c): the stream's records in the row are
 * consecutive in it (no other commit numbers records of the stream
 * meanwhile) and in one shard, so the row's number, its last record's,
 * stands for all of them in the readers' ranges.
 * The price: writers of one stream serialise on their commits
 * (the time from PRE_COMMIT to the end of the commit, WAL flush included);
 * bench/RESULTS.md has the measure.  So the work under the lock is kept
 * short: the datums records share are made once, records go in by batches
 * (heap_multi_insert: one WAL record and one buffer lock per page), each
 * batch in a context reset after it, and a cancel is honoured between
 * records (an error there aborts the transaction, which releases the
 * locks: nothing is left half done).
 *
 * Nothing is lost silently.  A record that failed to go into the
 * tuplestore (temp_file_limit, a full disk) leaves it out of step with
 * the buffer's account, whatever a savepoint makes of the error: the
 * transaction can then neither capture more nor commit.  A change made
 * after PRE_COMMIT numbered the records (another module's PRE_COMMIT
 * callback that runs after ours) is refused; deferred triggers fire
 * before PRE_COMMIT, and their changes are numbered with the rest.
 *
 * A transaction with records cannot be prepared (PREPARE TRANSACTION):
 * its stream's lock would be held by the prepared transaction, stopping
 * every writer of the table until COMMIT PREPARED.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_sequence.h"
#include "catalog/pg_trigger.h"
#include "commands/sequence.h"
#include "commands/trigger.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "item/av.h"
#include "item/av_jsonb.h"
#include "item/jsonb_raw.h"
#include "stream_batch.h"
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
 * A record kept in memory: its images copied into the buffer's context.
 * The first records of a transaction are kept so, up to half of work_mem,
 * and the rest in a tuplestore, which can spill to a temporary file past
 * the other half: most transactions write
 * a few records, and a tuplestore's start, its copies in and out of
 * minimal tuples and its end cost a put some 3,000 instructions
 * (bench/RESULTS.md).
 */
typedef struct MemRecord
{
	int64		stream_id;
	StStreamEvent event;
	bool		ttl;
	int32		size;
	Jsonb	   *keys;
	Jsonb	   *new_image;		/* NULL: not kept */
	Jsonb	   *old_image;
} MemRecord;

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
	/* records 0 .. nmem - 1, while their bytes stay below mem_budget */
	MemRecord  *mem;
	int			nmem;
	int			maxmem;
	Size		mem_bytes;
	Size		mem_budget;
	/* the records after them, once one did not fit (NULL before) */
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
	bool		broken;			/* a record failed to go in: see append_record */
} StreamBuffer;

static StreamBuffer *buffer = NULL;
/* this transaction's records are numbered: no change may come after */
static bool numbered = false;
static bool ttl_deletions = false;

/*
 * The waiters for new records (st_stream_wait): woken by each transaction
 * that wrote records, once it has committed.  In shared memory when the
 * library is preloaded; NULL otherwise (the waiters look every 100 ms).
 */
static ConditionVariable *commits_cv = NULL;
static bool wrote_records = false;
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

		/* the row trigger, not the one that refuses TRUNCATE */
		if (trigger->tgenabled != TRIGGER_DISABLED && trigger->tgfoid == fn &&
			TRIGGER_FOR_ROW(trigger->tgtype))
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

/* The buffered records' columns: the same for every transaction, made once per backend. */
static TupleDesc
buffer_desc(void)
{
	static TupleDesc desc = NULL;
	MemoryContext old;
	TupleDesc	d;

	if (desc)
		return desc;
	old = MemoryContextSwitchTo(TopMemoryContext);
	d = CreateTemplateTupleDesc(BUF_NCOLS);
	TupleDescInitEntry(d, BUF_STREAM + 1, "stream", INT8OID, -1, 0);
	TupleDescInitEntry(d, BUF_EVENT + 1, "event", INT4OID, -1, 0);
	TupleDescInitEntry(d, BUF_KEYS + 1, "keys", JSONBOID, -1, 0);
	TupleDescInitEntry(d, BUF_NEW + 1, "new", JSONBOID, -1, 0);
	TupleDescInitEntry(d, BUF_OLD + 1, "old", JSONBOID, -1, 0);
	TupleDescInitEntry(d, BUF_SIZE + 1, "size", INT4OID, -1, 0);
	TupleDescInitEntry(d, BUF_TTL + 1, "ttl", BOOLOID, -1, 0);
	MemoryContextSwitchTo(old);
	desc = d;
	return desc;
}

static StreamBuffer *
buffer_get(void)
{
	MemoryContext cxt;
	MemoryContext old;

	StreamBuffer *b;

	if (buffer)
		return buffer;
	cxt = AllocSetContextCreate(TopTransactionContext, "stdesign stream records",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	/* made whole before it is the transaction's: an error on the way leaves none */
	b = palloc0(sizeof(StreamBuffer));
	b->cxt = cxt;
	b->scratch = AllocSetContextCreate(cxt, "stdesign stream record", ALLOCSET_DEFAULT_SIZES);
	b->desc = buffer_desc();
	/* half of work_mem in memory, the tuplestore's the other half */
	b->mem_budget = (Size) Max(work_mem / 2, 64) * 1024;
	b->maxmem = 4;
	b->mem = palloc(sizeof(MemRecord) * b->maxmem);
	b->maxmarks = 4;
	b->marks = palloc(sizeof(SubMark) * b->maxmarks);
	b->maxstreams = 2;
	b->streams = palloc(sizeof(int64) * b->maxstreams);
	MemoryContextSwitchTo(old);
	buffer = b;
	return buffer;
}

/* The records from now on go to a tuplestore (see MemRecord). */
static void
buffer_spill(StreamBuffer *b)
{
	ResourceOwner owner = CurrentResourceOwner;
	MemoryContext old = MemoryContextSwitchTo(b->cxt);

	/* its temporary file, past work_mem, lives as long as the transaction */
	CurrentResourceOwner = TopTransactionResourceOwner;
	b->store = tuplestore_begin_heap(false, false, Max(work_mem / 2, 64));
	CurrentResourceOwner = owner;
	MemoryContextSwitchTo(old);
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

/*
 * The key attributes of item as a map ({pk: {...}[, sk: {...}]}).  Their
 * values are copied as stored (st_jsonb_raw_from_value), not unpacked and
 * serialised again as pushJsonbValue and JsonbValueToJsonb would: the map
 * is made for every record.
 */
/* The values of item's key attributes (vals[0] the partition key's); their count. */
static int
key_values(const StStreamTarget *target, Jsonb *item, JsonbValue *vals)
{
	const char *names[2] = {target->pk, target->sk};
	int			n = 0;

	/* set_keys refuses a row whose item is no map; never read one as a map */
	if (!JB_ROOT_IS_OBJECT(item))
		st_internal_error("an item of a table with a stream is not a map");
	for (int k = 0; k < 2 && names[k]; k++)
	{
		/* every row has its key attributes (set_keys refuses one without) */
		if (getKeyJsonValueFromContainer(&item->root, names[k], strlen(names[k]), &vals[n]) == NULL)
			st_internal_error("an item of a table with a stream lacks its key attribute %s", names[k]);
		n++;
	}
	return n;
}

/* The map of the key attributes' values vals (key_values'). */
static Jsonb *
keys_map(const StStreamTarget *target, const JsonbValue *vals)
{
	const char *names[2] = {target->pk, target->sk};
	JsonbPair	pairs[2];
	JsonbValue	map;
	int			n = 0;

	for (int k = 0; k < 2 && names[k]; k++)
	{
		pairs[n].value = vals[n];
		pairs[n].key.type = jbvString;
		pairs[n].key.val.string.val = (char *) names[k];
		pairs[n].key.val.string.len = strlen(names[k]);
		pairs[n].order = n;
		n++;
	}

	/*
	 * An object's keys in jsonb's order: shorter first, then by bytes.  The
	 * two names differ (a table's key attributes do); the same name twice
	 * would be one key.
	 */
	if (n == 2)
	{
		int			la = pairs[0].key.val.string.len;
		int			lb = pairs[1].key.val.string.len;
		int			cmp = la != lb ? (la > lb ? 1 : -1) :
			memcmp(pairs[0].key.val.string.val, pairs[1].key.val.string.val, la);

		if (cmp == 0)
			n = 1;
		else if (cmp > 0)
		{
			JsonbPair	swap = pairs[0];

			pairs[0] = pairs[1];
			pairs[1] = swap;
		}
	}
	map.type = jbvObject;
	map.val.object.nPairs = n;
	map.val.object.pairs = pairs;
	return st_jsonb_raw_from_value(&map);
}

static Jsonb *
keys_of(const StStreamTarget *target, Jsonb *item)
{
	JsonbValue	vals[2];

	(void) key_values(target, item, vals);
	return keys_map(target, vals);
}

/*
 * Do the items have equal key attributes (their values avals and bvals,
 * key_values'), as their maps from keys_map would compare?  Read in
 * place: an update, the common change, keeps its key, and making the old
 * item's map only to compare it costs as much again as the new one's.
 */
static bool
same_keys(const StStreamTarget *target, const JsonbValue *avals, const JsonbValue *bvals, int n)
{
	for (int k = 0; k < n; k++)
	{
		const JsonbValue *av = &avals[k];
		const JsonbValue *bv = &bvals[k];

		/* an attribute value is a map ({"S": ...}); anything else is compared as before, whole */
		if (av->type != jbvBinary || bv->type != jbvBinary)
			return compareJsonbContainers(&keys_map(target, avals)->root, &keys_map(target, bvals)->root) == 0;
		/* the same bytes are the same value (the usual case: a key kept) */
		if (av->val.binary.len == bv->val.binary.len &&
			memcmp(av->val.binary.data, bv->val.binary.data, av->val.binary.len) == 0)
			continue;
		if (compareJsonbContainers(av->val.binary.data, bv->val.binary.data) != 0)
			return false;
	}
	return true;
}

/* Does the container hold a number anywhere (a JSON number, not an N)? */
static bool
holds_numeric(const JsonbContainer *jc)
{
	int			n = JsonContainerSize(jc);
	int			count = JsonContainerIsObject(jc) ? 2 * n : n;
	const char *base = (const char *) &jc->children[count];
	uint32		offset = 0;

	check_stack_depth();
	for (int i = 0; i < count; i++)
	{
		JEntry		je = jc->children[i];

		if (JBE_ISNUMERIC(je))
			return true;
		if (JBE_ISCONTAINER(je) &&
			holds_numeric((const JsonbContainer *) (base + INTALIGN(offset))))
			return true;
		JBE_ADVANCE_OFFSET(offset, je);
	}
	return false;
}

/*
 * Are the items equal, as compareJsonbContainers says?  jsonb's layout is
 * canonical (keys sorted and unique, offsets at a fixed stride, zeroed
 * padding; strings, booleans and nulls compared by their bytes), so the
 * same bytes are the same item, and other bytes another item, unless they
 * hold JSON numbers (1.0 and 1 are equal numbers written differently):
 * when a holds none, b equals it only with the same bytes.  stdesign
 * stores numbers as N strings, so the comparison, some 2,000 instructions
 * for a small item, is left to plain SQL writes of numbers.
 */
static bool
same_item(Jsonb *a, Jsonb *b)
{
	if (VARSIZE(a) == VARSIZE(b) && memcmp(VARDATA(a), VARDATA(b), VARSIZE(a) - VARHDRSZ) == 0)
		return true;
	if (!holds_numeric(&a->root))
		return false;
	return compareJsonbContainers(&a->root, &b->root) == 0;
}

static int64
stored_size(Jsonb *jb)
{
	return jb ? av_stored_item_size(jb) : 0;
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
	int64		new_size;
	int64		old_size;
	int64		size;

	keep_new = new_item && (target->view == ST_STREAM_NEW_IMAGE ||
							target->view == ST_STREAM_NEW_AND_OLD_IMAGES);
	keep_old = old_item && (target->view == ST_STREAM_OLD_IMAGE ||
							target->view == ST_STREAM_NEW_AND_OLD_IMAGES);
	new_size = keep_new ? stored_size(new_item) : 0;
	old_size = keep_old ? stored_size(old_item) : 0;

	/*
	 * An image the stream keeps is an item, at most 400 KB as DynamoDB
	 * stores them (stdesign's writes check it; a plain SQL write to the
	 * relation does not): so a record stays below ~800 KB, and a change too
	 * large for one fails its statement here, with DynamoDB's message, not
	 * the commit (where the record is written).
	 */
	if (new_size > AV_MAX_ITEM_SIZE || old_size > AV_MAX_ITEM_SIZE)
		st_error_hint(ST_ERR_VALIDATION,
					  "A table with a stream keeps items of at most 400 KB; disable its stream to change this one.",
					  "Item size has exceeded the maximum allowed size");
	size = stored_size(keys) + new_size + old_size;
	size = Min(size, PG_INT32_MAX);

	/*
	 * In memory while the records fit: copied into the buffer's context,
	 * whole before they count (an error on the way, out of memory, leaves
	 * a record that was never appended).
	 */
	if (b->store == NULL)
	{
		Size		bytes = VARSIZE(keys) + (keep_new ? VARSIZE(new_item) : 0) +
			(keep_old ? VARSIZE(old_item) : 0);

		if (b->mem_bytes + bytes <= b->mem_budget)
		{
			MemoryContext old = MemoryContextSwitchTo(b->cxt);
			MemRecord	r;

			r.stream_id = target->stream_id;
			r.event = event;
			r.ttl = event == EV_REMOVE && ttl_deletions;
			r.size = (int32) size;
			r.keys = (Jsonb *) datumCopy(JsonbPGetDatum(keys), false, -1);
			r.new_image = keep_new ? (Jsonb *) datumCopy(JsonbPGetDatum(new_item), false, -1) : NULL;
			r.old_image = keep_old ? (Jsonb *) datumCopy(JsonbPGetDatum(old_item), false, -1) : NULL;
			if (b->nmem == b->maxmem)
			{
				b->mem = repalloc(b->mem, sizeof(MemRecord) * b->maxmem * 2);
				b->maxmem *= 2;
			}
			MemoryContextSwitchTo(old);
			mark_record(b, target->stream_id);
			b->mem[b->nmem++] = r;
			b->mem_bytes += bytes;
			b->count++;
			b->live++;
			return;
		}
		buffer_spill(b);
	}
	values[BUF_STREAM] = Int64GetDatum(target->stream_id);
	values[BUF_EVENT] = Int32GetDatum((int32) event);
	values[BUF_KEYS] = JsonbPGetDatum(keys);
	values[BUF_NEW] = keep_new ? JsonbPGetDatum(new_item) : (Datum) 0;
	nulls[BUF_NEW] = !keep_new;
	values[BUF_OLD] = keep_old ? JsonbPGetDatum(old_item) : (Datum) 0;
	nulls[BUF_OLD] = !keep_old;
	values[BUF_SIZE] = Int32GetDatum((int32) size);
	values[BUF_TTL] = BoolGetDatum(event == EV_REMOVE && ttl_deletions);

	mark_record(b, target->stream_id);
	CurrentResourceOwner = TopTransactionResourceOwner;
	PG_TRY();
	{
		tuplestore_putvalues(b->store, b->desc, values, nulls);
	}
	PG_CATCH();
	{
		/*
		 * Whether the tuplestore holds the record, or all of the records
		 * it was moving to its temporary file (temp_file_limit, a full
		 * disk), is unknown: its positions no longer match count and the
		 * dropped ranges.  A savepoint that catches the error cannot make
		 * that right, so the transaction cannot commit (see xact_callback).
		 */
		b->broken = true;
		CurrentResourceOwner = owner;
		PG_RE_THROW();
	}
	PG_END_TRY();
	CurrentResourceOwner = owner;
	b->count++;
	b->live++;
}

void
storage_stream_capture(const StStreamTarget *target, Jsonb *old_item, Jsonb *new_item)
{
	StreamBuffer *b;
	MemoryContext old;

	if (old_item == NULL && new_item == NULL)
		return;
	/* no change, no record */
	if (old_item && new_item && same_item(old_item, new_item))
		return;

	/*
	 * A change after the records were numbered (a PRE_COMMIT callback of
	 * another module that runs after ours) would be written by no one:
	 * refused, so that it is not lost silently.  Deferred triggers fire
	 * before PRE_COMMIT, and their changes are numbered with the rest.
	 */
	if (numbered)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot change a table with a stream after its transaction's stream records were written"),
				 errdetail("The change was made while the transaction was committing.")));
	b = buffer_get();
	if (b->broken)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("a stream record of this transaction could not be kept"),
				 errdetail("An earlier error while keeping one left the transaction's records incomplete; roll it back.")));
	old = MemoryContextSwitchTo(b->scratch);
	if (old_item == NULL)
		append_record(b, target, EV_INSERT, keys_of(target, new_item), NULL, new_item);
	else if (new_item == NULL)
		append_record(b, target, EV_REMOVE, keys_of(target, old_item), old_item, NULL);
	else
	{
		JsonbValue	old_keys[2];
		JsonbValue	new_keys[2];
		int			n = key_values(target, old_item, old_keys);

		(void) key_values(target, new_item, new_keys);

		/*
		 * A plain SQL UPDATE may give a row another key (set_keys follows
		 * the item): to DynamoDB that is one item removed and another put.
		 */
		if (!same_keys(target, old_keys, new_keys, n))
		{
			append_record(b, target, EV_REMOVE, keys_map(target, old_keys), old_item, NULL);
			append_record(b, target, EV_INSERT, keys_map(target, new_keys), NULL, new_item);
		}
		else
			append_record(b, target, EV_MODIFY, keys_map(target, new_keys), old_item, new_item);
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

/*
 * What the commit step reads of the catalog, kept between transactions:
 * each commit that writes records otherwise looked up six relations by
 * name, its streams' rows by their index and their shards' rows again to
 * see whether one is due to roll over, some 30,000 instructions
 * (bench/RESULTS.md).
 *
 * The relations' oids: forgotten on any change of pg_class (a dropped or
 * recreated extension included), looked up again on the next use.
 */
typedef struct CatalogOids
{
	bool		valid;
	Oid			streams;
	Oid			streams_pkey;
	Oid			records;
	Oid			records_pkey;
	Oid			seq;
	Oid			shards;
	Oid			shards_pkey;
} CatalogOids;

static CatalogOids oids;
static uint64 catalog_changes = 0;

/*
 * Per stream: where its streams row was last read, and that row's shard
 * with the shard's created_at.  Nothing here is trusted without a check
 * that keeps the order by construction:
 * - the row is fetched again at its tid with the latest snapshot, taken
 *   under the stream's lock: a rollover (which updates the row) or a
 *   deletion committed before the lock was granted makes that version
 *   invisible, and the row is then found by its index as before;
 * - a shard's created_at never changes (a rollover makes a new shard with
 *   a new id), so the cache can only answer "not due yet" for the very
 *   shard it read; whether a due shard is still open is read from its row.
 * Forgotten with the oids; bounded by the streams a backend writes to.
 */
#define SHARD_ID_CACHED_MAX 63
#define SHARD_CACHE_MAX 256

typedef struct ShardCache
{
	int64		stream_id;		/* the hash key */
	ItemPointerData tid;		/* its streams row, last read */
	char		shard[SHARD_ID_CACHED_MAX + 1]; /* that row's shard_id, "" unknown */
	bool		created_known;
	TimestampTz created;		/* that shard's created_at */
} ShardCache;

static HTAB *shard_cache = NULL;

/*
 * The IndexInfo of stream_records' primary key, made once (as row_write.c
 * keeps its tables'): made per commit with the indexes' list, it cost a
 * put some 2,000 instructions.  Forgotten with the oids.
 */
static MemoryContext records_index_cxt = NULL;
static IndexInfo *records_index_info = NULL;

/* The indexes records are inserted into: open them, with their IndexInfos. */
typedef struct RecordIndexes
{
	int			n;
	Relation   *rels;
	IndexInfo **infos;
	Relation	pkey;			/* the usual case: the primary key only */
	CatalogIndexState indstate; /* otherwise */
} RecordIndexes;

static void
catalog_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	/* only flags: the hash is remade on its next use, outside the callback */
	oids.valid = false;
	catalog_changes++;
}

static Oid
stdesign_relid(Oid nsp, const char *name)
{
	Oid			relid = get_relname_relid(name, nsp);

	if (!OidIsValid(relid))
		st_internal_error("the catalog relation stdesign.%s is missing", name);
	return relid;
}

static const CatalogOids *
catalog_oids(void)
{
	static bool registered = false;
	CatalogOids fresh;
	uint64		changes;
	Oid			nsp;
	HASHCTL		ctl;

	if (oids.valid)
		return &oids;
	if (!registered)
	{
		CacheRegisterSyscacheCallback(RELOID, catalog_changed, (Datum) 0);
		registered = true;
	}
	/* kept only when no change came in while they were looked up */
	changes = catalog_changes;
	nsp = get_namespace_oid("stdesign", false);
	fresh.streams = stdesign_relid(nsp, "streams");
	fresh.streams_pkey = stdesign_relid(nsp, "streams_pkey");
	fresh.records = stdesign_relid(nsp, "stream_records");
	fresh.records_pkey = stdesign_relid(nsp, "stream_records_pkey");
	fresh.seq = stdesign_relid(nsp, "stream_sequence_numbers");
	fresh.shards = stdesign_relid(nsp, "stream_shards");
	fresh.shards_pkey = stdesign_relid(nsp, "stream_shards_pkey");
	fresh.valid = changes == catalog_changes;
	oids = fresh;
	if (records_index_cxt)
		MemoryContextReset(records_index_cxt);
	records_index_info = NULL;
	if (shard_cache)
		hash_destroy(shard_cache);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(ShardCache);
	ctl.hcxt = TopMemoryContext;
	shard_cache = hash_create("stdesign stream shards", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return &oids;
}

/*
 * The entries of a commit's streams, made before any is used: a backend
 * that wrote to many streams starts over, so nothing grows without bound,
 * and never while the caller holds an entry.
 */
static ShardCache **
shard_cache_entries(const int64 *streams, int n)
{
	ShardCache **entries = palloc(sizeof(ShardCache *) * n);

	if (hash_get_num_entries(shard_cache) + n > SHARD_CACHE_MAX)
	{
		HASH_SEQ_STATUS status;
		ShardCache *e;

		hash_seq_init(&status, shard_cache);
		while ((e = hash_seq_search(&status)) != NULL)
			hash_search(shard_cache, &e->stream_id, HASH_REMOVE, NULL);
	}
	for (int i = 0; i < n; i++)
	{
		bool		found;
		ShardCache *e = hash_search(shard_cache, &streams[i], HASH_ENTER, &found);

		if (!found)
		{
			ItemPointerSetInvalid(&e->tid);
			e->shard[0] = '\0';
			e->created_known = false;
		}
		entries[i] = e;
	}
	return entries;
}

/*
 * The shard_id of a streams row (NULL when null), that row's stream_id,
 * and whether the stream was disabled or its table deleted.
 */
static char *
shard_of_row(Relation streams, HeapTuple tup, int64 *stream_id, bool *stopped)
{
	bool		isnull;
	bool		enabled;
	bool		table_kept;
	/* stream_id, table_name, label, view_type, shard_id, enabled_at, disabled_at, table_deleted_at, ... */
	Datum		id = heap_getattr(tup, 1, RelationGetDescr(streams), &isnull);
	Datum		d;

	*stream_id = isnull ? 0 : DatumGetInt64(id);
	(void) heap_getattr(tup, 7, RelationGetDescr(streams), &enabled);
	(void) heap_getattr(tup, 8, RelationGetDescr(streams), &table_kept);
	*stopped = !enabled || !table_kept;
	d = heap_getattr(tup, 5, RelationGetDescr(streams), &isnull);
	return isnull ? NULL : TextDatumGetCString(d);
}

/*
 * The shard stream_id's records go to now, or NULL when the stream is
 * gone; read with the latest snapshot (the caller holds the stream's lock).
 * *stopped: the stream was disabled, or its table deleted (see
 * extend_closed_shard).
 */
static char *
current_shard(Relation streams, Oid streams_pkey, ShardCache *e, bool *stopped)
{
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	char	   *shard = NULL;
	int64		id;

	*stopped = false;
	/* where the row was: still the visible version unless it changed */
	if (ItemPointerIsValid(&e->tid) &&
		ItemPointerGetBlockNumber(&e->tid) < RelationGetNumberOfBlocks(streams))
	{
		HeapTupleData tuple;
		Buffer		buf;

		tuple.t_self = e->tid;
		if (heap_fetch(streams, snap, &tuple, &buf, false))
		{
			shard = shard_of_row(streams, &tuple, &id, stopped);
			ReleaseBuffer(buf);
			if (id == e->stream_id)
			{
				UnregisterSnapshot(snap);
				return shard;
			}
			shard = NULL;
		}
	}
	ItemPointerSetInvalid(&e->tid);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(e->stream_id));
	scan = systable_beginscan(streams, streams_pkey, true, snap, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		shard = shard_of_row(streams, tup, &id, stopped);
		e->tid = tup->t_self;
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	return shard;
}

/*
 * The primary key alone, as the catalog makes it, with its IndexInfo kept;
 * any other set of indexes (an index an administrator added) opened as
 * CatalogOpenIndexes opens them, so that each gets its entries.
 */
static void
record_indexes_open(Relation records, const CatalogOids *cat, RecordIndexes *ix)
{
	List	   *list = RelationGetIndexList(records);

	memset(ix, 0, sizeof(*ix));
	if (list_length(list) == 1 && linitial_oid(list) == cat->records_pkey)
	{
		ix->pkey = index_open(cat->records_pkey, RowExclusiveLock);
		if (records_index_info == NULL)
		{
			MemoryContext old;

			if (records_index_cxt == NULL)
				records_index_cxt = AllocSetContextCreate(TopMemoryContext, "stdesign stream records index",
														  ALLOCSET_SMALL_SIZES);
			old = MemoryContextSwitchTo(records_index_cxt);
			records_index_info = BuildIndexInfo(ix->pkey);
			MemoryContextSwitchTo(old);
		}
		ix->n = 1;
		ix->rels = &ix->pkey;
		ix->infos = &records_index_info;
	}
	else
	{
		ix->indstate = CatalogOpenIndexes(records);
		ix->n = ix->indstate->ri_NumIndices;
		ix->rels = ix->indstate->ri_IndexRelationDescs;
		ix->infos = ix->indstate->ri_IndexRelationInfo;
	}
	list_free(list);
}

static void
record_indexes_close(RecordIndexes *ix)
{
	if (ix->indstate)
		CatalogCloseIndexes(ix->indstate);
	else
		index_close(ix->pkey, NoLock);
}

/* A batch of records (RECORD_BATCH_ROWS at most), and their index entries. */
#define RECORD_BATCH_ROWS 64
#define RECORD_BATCH_BYTES (256 * 1024)

static void
insert_batch(Relation records, TupleTableSlot **batch, int n, const RecordIndexes *ix,
			 MemoryContext tuples)
{
	MemoryContext old;

	if (n == 0)
		return;
	old = MemoryContextSwitchTo(tuples);
	if (n == 1)
	{
		/* one record, the usual commit: heap_insert, the lighter of the two */
		HeapTuple	tup = ExecFetchSlotHeapTuple(batch[0], false, NULL);

		heap_insert(records, tup, GetCurrentCommandId(true), 0, NULL);
		/* where it went, toasted or not (heap_insert sets the caller's t_self) */
		batch[0]->tts_tid = tup->t_self;
	}
	else
		heap_multi_insert(records, batch, n, GetCurrentCommandId(true), 0, NULL);

	/*
	 * The index entries, one by one as CatalogTuplesMultiInsertWithInfo
	 * makes them, but from each slot's tts_tid: a record with large images
	 * is toasted into another tuple, and only the slot learns where it went.
	 * The indexes of stream_records are on plain columns (no expressions,
	 * no predicates).
	 */
	for (int i = 0; i < n; i++)
	{
		for (int k = 0; k < ix->n; k++)
		{
			Relation	index = ix->rels[k];
			IndexInfo  *info = ix->infos[k];
			Datum		values[INDEX_MAX_KEYS];
			bool		isnull[INDEX_MAX_KEYS];

			if (info->ii_Expressions != NIL || info->ii_Predicate != NIL)
				st_internal_error("an index of stdesign.stream_records has expressions or a predicate");
			FormIndexDatum(info, batch[i], NULL, values, isnull);
			index_insert(index, values, isnull, &batch[i]->tts_tid, records,
						 index->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
						 false, info);
		}
		ExecClearTuple(batch[i]);
	}
	MemoryContextSwitchTo(old);
	/* the batch's tuples, and what heap_multi_insert made of them */
	MemoryContextReset(tuples);
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
 * child.  The check reads the shard's created_at once per backend (see
 * ShardCache) and its row again only when it looks due; the rollover
 * itself, rare, is one statement run as the catalog's owner.  Returns the
 * shard to write to.
 */
int			storage_stream_shard_lifetime = 4 * 60 * 60;

static char *
roll_shard_if_due(const CatalogOids *cat, ShardCache *e, char *shard, TimestampTz now)
{
	int64		stream_id = e->stream_id;
	TimestampTz lifetime = (TimestampTz) storage_stream_shard_lifetime * USECS_PER_SEC;
	Relation	rel;
	Snapshot	snap;
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	bool		due = false;
	char	   *child = NULL;

	/* the shard read before, not due yet: its created_at never changes */
	if (e->created_known && strcmp(e->shard, shard) == 0 && now - e->created < lifetime)
		return shard;
	e->created_known = false;
	rel = table_open(cat->shards, AccessShareLock);
	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(stream_id));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_TEXTEQ, CStringGetTextDatum(shard));
	scan = systable_beginscan(rel, cat->shards_pkey, true, snap, 2, keys);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		/* stream_id, shard_id, parent_shard_id, created_at, ..., closed_at (7) */
		Datum		created = heap_getattr(tup, 4, RelationGetDescr(rel), &isnull);
		bool		open;

		/* a closed shard is never the stream's current one; read as open when its closed_at is null */
		(void) heap_getattr(tup, 7, RelationGetDescr(rel), &open);
		due = !isnull && open && now - DatumGetTimestampTz(created) >= lifetime;
		if (!isnull && strlen(shard) <= SHARD_ID_CACHED_MAX)
		{
			strlcpy(e->shard, shard, sizeof(e->shard));
			e->created = DatumGetTimestampTz(created);
			e->created_known = true;
		}
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
		/* the streams row and the shard change: read both again next time */
		e->created_known = false;
		ItemPointerSetInvalid(&e->tid);
		args[0] = Int64GetDatum(stream_id);
		args[1] = CStringGetTextDatum(shard);
		args[2] = CStringGetTextDatum(child);
		args[3] = TimestampTzGetDatum(now);
		catalog_check_triggers();
		catalog_as_owner_begin(&save);
		SPI_connect();
		/* the stream's records above the open shard's start are all the shard's */
		plan = SPI_prepare("WITH closed AS (UPDATE stdesign.stream_shards sh"
						   "  SET ending_sequence = COALESCE((SELECT pg_catalog.max(r.sequence_number)"
						   "    FROM stdesign.stream_records r WHERE r.stream_id OPERATOR(pg_catalog.=) $1"
						   "    AND r.sequence_number OPERATOR(pg_catalog.>) sh.starting_sequence), sh.starting_sequence),"
						   "  closed_at = $4"
						   "  WHERE sh.stream_id OPERATOR(pg_catalog.=) $1 AND sh.shard_id OPERATOR(pg_catalog.=) $2 RETURNING 1),"
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

/*
 * A stream disabled, or its table deleted, in the transaction that
 * commits: its shard was closed then (ops_stream_disable,
 * ops_stream_table_deleted), its ending_sequence the last number of the
 * records committed before, while this transaction's own records, made
 * before the disabling, are numbered only now.  No other transaction can
 * have records of it left (the disabling waited for the table's writers),
 * so the shard's range is made to end at this commit's last number for the
 * stream, under the stream's lock: every record of a stream stays in the
 * range of one of its shards, where readers find it.
 */
static void
extend_closed_shard(int64 stream_id, const char *shard, int64 last)
{
	CatalogAsOwner save;
	Oid			types[3] = {INT8OID, TEXTOID, INT8OID};
	Datum		args[3];
	SPIPlanPtr	plan;
	/* at commit there is no statement's snapshot: the latest, as the rollover's */
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());

	args[0] = Int64GetDatum(stream_id);
	args[1] = CStringGetTextDatum(shard);
	args[2] = Int64GetDatum(last);
	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	plan = SPI_prepare("UPDATE stdesign.stream_shards SET ending_sequence = $3"
					   " WHERE stream_id OPERATOR(pg_catalog.=) $1 AND shard_id OPERATOR(pg_catalog.=) $2"
					   " AND closed_at IS NOT NULL AND ending_sequence OPERATOR(pg_catalog.<) $3",
					   3, types);
	if (plan == NULL ||
		SPI_execute_snapshot(plan, args, NULL, snap, InvalidSnapshot, false, true, 0) != SPI_OK_UPDATE)
		st_internal_error("could not close the shard of stream " INT64_FORMAT, stream_id);
	SPI_finish();
	catalog_as_owner_end(&save);
	UnregisterSnapshot(snap);
}

/*
 * How many records a commit numbers from each number it takes: the
 * sequence's increment (1000, sql/stdesign.sql), so that a commit of many
 * records takes one number per 1000 of them, not one each (nextval costs
 * some 2,500 instructions).  The numbers a commit gives are below the next
 * number taken, which the next commit of the stream takes after this one
 * has committed: in each stream they still grow in commit order.  Read
 * from the sequence's definition, not assumed: an increment of 1 (or
 * less) numbers one record per number taken, as before.
 */
static int64
number_block(Oid seq, int records)
{
	HeapTuple	tup;
	int64		block = 1;

	/* one record takes one number: no need to read (a put's commit) */
	if (records <= 1)
		return 1;
	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seq));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_sequence form = (Form_pg_sequence) GETSTRUCT(tup);

		/*
		 * Numbers cached by a backend would be handed out after larger
		 * ones another backend committed meanwhile: out of commit order.
		 */
		if (form->seqcache > 1)
		{
			ReleaseSysCache(tup);
			st_internal_error("stdesign.stream_sequence_numbers must have CACHE 1 for stream records to be numbered in commit order");
		}
		block = Max(form->seqincrement, 1);
		ReleaseSysCache(tup);
	}
	return block;
}

/* The event names' texts, made once per backend. */
static Datum
event_text(int event)
{
	static Datum texts[lengthof(event_names)];

	if (event < 0 || event >= lengthof(texts))
		st_internal_error("a stream record has no event");
	if (texts[0] == (Datum) 0)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		for (int i = lengthof(texts) - 1; i >= 0; i--)
			texts[i] = CStringGetTextDatum(event_names[i]);
		MemoryContextSwitchTo(old);
	}
	return texts[event];
}

/*
 * values/nulls, from event_name to ttl_deletion, = rec's, batch NULL: a
 * record of a batch as a row of its own would hold it
 */
static void
record_columns(const StStreamBatchRecord *rec, Datum *values, bool *nulls)
{
	values[REC_SEQ] = Int64GetDatum(rec->seq);
	values[REC_EVENT] = event_text(rec->event);
	values[REC_KEYS] = JsonbPGetDatum(rec->keys);
	values[REC_NEW] = rec->new_image ? JsonbPGetDatum(rec->new_image) : (Datum) 0;
	values[REC_OLD] = rec->old_image ? JsonbPGetDatum(rec->old_image) : (Datum) 0;
	values[REC_SIZE] = Int32GetDatum(rec->size);
	values[REC_TTL] = BoolGetDatum(rec->ttl);
	nulls[REC_EVENT] = nulls[REC_KEYS] = nulls[REC_SIZE] = nulls[REC_TTL] = false;
	nulls[REC_NEW] = rec->new_image == NULL;
	nulls[REC_OLD] = rec->old_image == NULL;
	nulls[REC_BATCH] = true;
}

/* The rows a commit inserts, by batches of RECORD_BATCH_ROWS (insert_batch). */
typedef struct RowQueue
{
	Relation	records;
	const RecordIndexes *ix;
	MemoryContext tuples;		/* where they are formed, reset by each insert_batch */
	TupleTableSlot **slots;
	int			n;
	Size		bytes;
} RowQueue;

static void
queue_row(RowQueue *q, Datum *values, bool *nulls)
{
	MemoryContext old = MemoryContextSwitchTo(q->tuples);
	HeapTuple	tup = heap_form_tuple(RelationGetDescr(q->records), values, nulls);

	MemoryContextSwitchTo(old);
	if (q->slots[q->n] == NULL)
		q->slots[q->n] = MakeSingleTupleTableSlot(RelationGetDescr(q->records), &TTSOpsHeapTuple);
	ExecStoreHeapTuple(tup, q->slots[q->n], false);
	q->n++;
	q->bytes += tup->t_len;
	if (q->n == RECORD_BATCH_ROWS || q->bytes >= RECORD_BATCH_BYTES)
	{
		insert_batch(q->records, q->slots, q->n, q->ix, q->tuples);
		q->n = 0;
		q->bytes = 0;
	}
}

/*
 * The records of a stream packed so far into one row (stream_batch.c):
 * queued as that row, or as a record's own row when it holds one.
 */
static void
flush_packed(RowQueue *q, StStreamBatchBuilder *pb, int64 stream_id, TimestampTz now)
{
	Datum		values[REC_NCOLS];
	bool		nulls[REC_NCOLS] = {false};
	StStreamBatchReader r;
	StStreamBatchRecord rec;
	bytea	   *packed;

	if (pb->count == 0)
		return;
	packed = storage_stream_batch_end(pb);
	values[REC_STREAM] = Int64GetDatum(stream_id);
	values[REC_CREATED] = TimestampTzGetDatum(now);
	if (pb->count == 1)
	{
		storage_stream_batch_read(&r, PointerGetDatum(packed), pb->last);
		if (!storage_stream_batch_next(&r, &rec))
			st_internal_error("a stream record of this transaction is missing");
		record_columns(&rec, values, nulls);
	}
	else
	{
		/* numbered by its last record; the record's own columns NULL */
		values[REC_SEQ] = Int64GetDatum(pb->last);
		for (int c = REC_EVENT; c <= REC_OLD; c++)
			nulls[c] = true;
		values[REC_SIZE] = Int32GetDatum((int32) Min(pb->size, PG_INT32_MAX));
		nulls[REC_TTL] = true;
		values[REC_BATCH] = PointerGetDatum(packed);
	}
	queue_row(q, values, nulls);
	storage_stream_batch_begin(pb);
}

static void
write_records(void)
{
	StreamBuffer *b = buffer;
	const CatalogOids *cat = catalog_oids();
	Oid			streams_relid = cat->streams;
	Oid			records_relid = cat->records;
	Oid			seq = cat->seq;
	ShardCache **cached;
	Relation	streams;
	Relation	records;
	RecordIndexes ix;
	char	  **shards;
	bool	   *stopped;
	int64	   *last;			/* per stream, its last number of this commit (0: none) */
	TupleTableSlot *slot = NULL;
	RowQueue	q;
	StStreamBatchBuilder *packed = NULL;	/* per stream, when the commit packs */
	TimestampTz now = GetCurrentTimestamp();
	int			next_dropped = 0;
	ResourceOwner owner = CurrentResourceOwner;
	int64		next_number = 0;
	int64		numbers_end = 0;
	int64		block = 0;		/* read once the first number is taken */

	/* in one order, so that two transactions writing two streams never deadlock */
	qsort(b->streams, b->nstreams, sizeof(int64), cmp_int64);
	for (int i = 0; i < b->nstreams; i++)
	{
		if (b->streams[i] > PG_UINT32_MAX)
			st_internal_error("stream id " INT64_FORMAT " is out of range", b->streams[i]);
		LockDatabaseObject(streams_relid, (Oid) b->streams[i], 0, ExclusiveLock);
	}

	/*
	 * The entries after the locks: cat's oids stay as read (a callback
	 * while locking only flags them), and the hash is remade only by the
	 * next commit's catalog_oids.
	 */
	cached = shard_cache_entries(b->streams, b->nstreams);
	streams = table_open(streams_relid, AccessShareLock);
	shards = palloc(sizeof(char *) * b->nstreams);
	stopped = palloc0(sizeof(bool) * b->nstreams);
	last = palloc0(sizeof(int64) * b->nstreams);
	for (int i = 0; i < b->nstreams; i++)
		shards[i] = current_shard(streams, cat->streams_pkey, cached[i], &stopped[i]);
	table_close(streams, AccessShareLock);
	for (int i = 0; i < b->nstreams; i++)
		if (shards[i])
			shards[i] = roll_shard_if_due(cat, cached[i], shards[i], now);

	records = table_open(records_relid, RowExclusiveLock);
	record_indexes_open(records, cat, &ix);
	memset(&q, 0, sizeof(q));
	q.records = records;
	q.ix = &ix;
	q.tuples = b->scratch;
	q.slots = palloc0(sizeof(TupleTableSlot *) * RECORD_BATCH_ROWS);

	/*
	 * A commit of several records packs each stream's into rows of several
	 * (stream_batch.c): one heap tuple and one index entry for many.  A
	 * commit of one record writes its row as before.
	 */
	if (b->live > 1)
	{
		MemoryContext old = MemoryContextSwitchTo(b->cxt);

		packed = palloc0(sizeof(StStreamBatchBuilder) * b->nstreams);
		for (int i = 0; i < b->nstreams; i++)
			storage_stream_batch_begin(&packed[i]);
		MemoryContextSwitchTo(old);
	}

	if (b->store)
	{
		slot = MakeSingleTupleTableSlot(b->desc, &TTSOpsMinimalTuple);
		CurrentResourceOwner = TopTransactionResourceOwner;
		tuplestore_rescan(b->store);
		CurrentResourceOwner = owner;
	}
	for (int64 pos = 0; pos < b->count; pos++)
	{
		int64		stream_id;
		int32		event;
		int			s = -1;
		Datum		values[REC_NCOLS];
		bool		nulls[REC_NCOLS] = {false};
		bool		isnull;

		/*
		 * A cancel here aborts the transaction (we are before its commit
		 * record), which releases the streams' locks: nothing is half done.
		 */
		CHECK_FOR_INTERRUPTS();
		if (pos < b->nmem)
		{
			MemRecord  *r = &b->mem[pos];

			stream_id = r->stream_id;
			event = (int32) r->event;
			values[4] = JsonbPGetDatum(r->keys);
			values[5] = r->new_image ? JsonbPGetDatum(r->new_image) : (Datum) 0;
			nulls[5] = r->new_image == NULL;
			values[6] = r->old_image ? JsonbPGetDatum(r->old_image) : (Datum) 0;
			nulls[6] = r->old_image == NULL;
			values[7] = Int32GetDatum(r->size);
			values[8] = BoolGetDatum(r->ttl);
		}
		else
		{
			bool		got = false;

			if (slot)
			{
				ExecClearTuple(slot);
				CurrentResourceOwner = TopTransactionResourceOwner;
				got = tuplestore_gettupleslot(b->store, true, false, slot);
				CurrentResourceOwner = owner;
			}
			if (!got)
				st_internal_error("a stream record of this transaction is missing");
			stream_id = DatumGetInt64(slot_getattr(slot, BUF_STREAM + 1, &isnull));
			event = DatumGetInt32(slot_getattr(slot, BUF_EVENT + 1, &isnull));
			values[4] = slot_getattr(slot, BUF_KEYS + 1, &isnull);
			values[5] = slot_getattr(slot, BUF_NEW + 1, &nulls[5]);
			values[6] = slot_getattr(slot, BUF_OLD + 1, &nulls[6]);
			values[7] = slot_getattr(slot, BUF_SIZE + 1, &isnull);
			values[8] = slot_getattr(slot, BUF_TTL + 1, &isnull);
		}
		while (next_dropped < b->ndropped && b->dropped[next_dropped].end <= pos)
			next_dropped++;
		if (next_dropped < b->ndropped && b->dropped[next_dropped].start <= pos)
			continue;
		/*
		 * A stream removed meanwhile (its catalog row deleted) takes no
		 * records.  The others' go to their current shard (rolled over
		 * above if due) by their numbers alone, all taken below.
		 */
		for (int i = 0; i < b->nstreams; i++)
			if (b->streams[i] == stream_id && shards[i] != NULL)
				s = i;
		if (s < 0)
			continue;
		if (event < 0 || event >= lengthof(event_names))
			st_internal_error("a stream record of this transaction has no event");
		values[0] = Int64GetDatum(stream_id);
		if (next_number == numbers_end)
		{
			next_number = nextval_internal(seq, false);

			/*
			 * The sequence's definition read only now: nextval holds its
			 * lock until the commit, so that an ALTER SEQUENCE cannot
			 * change the increment between this read and the number taken.
			 */
			if (block == 0)
				block = number_block(seq, b->live);
			numbers_end = next_number + (next_number <= PG_INT64_MAX - block ? block : 1);
		}
		last[s] = next_number;
		values[1] = Int64GetDatum(next_number++);
		values[2] = TimestampTzGetDatum(now);
		values[3] = event_text(event);
		nulls[REC_BATCH] = true;
		if (packed)
		{
			StStreamBatchRecord rec;
			MemoryContext old;
			int64		seq = DatumGetInt64(values[1]);
			Size		bytes;

			bytes = storage_stream_batch_record_bytes(DatumGetPointer(values[4]),
													  nulls[5] ? NULL : DatumGetPointer(values[5]),
													  nulls[6] ? NULL : DatumGetPointer(values[6]));
			if (!storage_stream_batch_fits(&packed[s], seq, bytes))
				flush_packed(&q, &packed[s], stream_id, now);
			/* one too large for any batch: its own row, after those before it */
			if (storage_stream_batch_fits(&packed[s], seq, bytes))
			{
				/* as the batch keeps them: 4-byte headers (a tuplestore's may be short) */
				rec.seq = seq;
				rec.event = event;
				rec.ttl = DatumGetBool(values[8]);
				rec.size = DatumGetInt32(values[7]);
				old = MemoryContextSwitchTo(b->scratch);
				rec.keys = DatumGetJsonbP(values[4]);
				rec.new_image = nulls[5] ? NULL : DatumGetJsonbP(values[5]);
				rec.old_image = nulls[6] ? NULL : DatumGetJsonbP(values[6]);
				MemoryContextSwitchTo(old);
				storage_stream_batch_add(&packed[s], &rec);
				continue;
			}
		}

		/*
		 * The rows go in by batches (heap_multi_insert: one WAL record and
		 * one buffer lock per page, not per row), formed in the per-record
		 * context that the batch's insertion resets.
		 */
		queue_row(&q, values, nulls);
	}
	for (int i = 0; packed && i < b->nstreams; i++)
		flush_packed(&q, &packed[i], b->streams[i], now);
	insert_batch(records, q.slots, q.n, &ix, b->scratch);
	if (slot)
		ExecDropSingleTupleTableSlot(slot);
	for (int i = 0; i < RECORD_BATCH_ROWS && q.slots[i]; i++)
		ExecDropSingleTupleTableSlot(q.slots[i]);
	record_indexes_close(&ix);
	table_close(records, NoLock);
	for (int i = 0; i < b->nstreams; i++)
		if (stopped[i] && shards[i] != NULL && last[i] > 0)
			extend_closed_shard(b->streams[i], shards[i], last[i]);
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			numbered = true;
			if (buffer && buffer->broken)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
						 errmsg("a stream record of this transaction could not be kept"),
						 errdetail("An earlier error while keeping one left the transaction's records incomplete, so it cannot commit.")));
			if (buffer && buffer->live > 0)
			{
				MemoryContext old = MemoryContextSwitchTo(buffer->cxt);

				write_records();
				wrote_records = true;
				MemoryContextSwitchTo(old);
			}
			if (buffer && buffer->store)
			{
				ResourceOwner owner = CurrentResourceOwner;

				CurrentResourceOwner = TopTransactionResourceOwner;
				tuplestore_end(buffer->store);
				CurrentResourceOwner = owner;
				buffer->store = NULL;
			}
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (buffer && (buffer->live > 0 || buffer->broken))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that changed a table with a stream"),
						 errdetail("Its stream records are numbered and written when it commits.")));
			break;
		case XACT_EVENT_COMMIT:
			/* visible now (the callback runs after the commit shows) */
			if (wrote_records && commits_cv)
				ConditionVariableBroadcast(commits_cv);
			/* FALLTHROUGH */
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* the memory goes with the transaction's, the file with its resource owner */
			buffer = NULL;
			numbered = false;
			ttl_deletions = false;
			wrote_records = false;
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

/* ---------- waiting for records ---------- */

void
storage_stream_shmem_request(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(ConditionVariable)));
}

void
storage_stream_shmem_startup(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	commits_cv = ShmemInitStruct("stdesign stream commits", sizeof(ConditionVariable), &found);
	if (!found)
		ConditionVariableInit(commits_cv);
	LWLockRelease(AddinShmemInitLock);
}

void
storage_stream_wait_begin(void)
{
	if (commits_cv)
		ConditionVariablePrepareToSleep(commits_cv);
}

void
storage_stream_wait_sleep(long ms)
{
	if (commits_cv)
	{
		/* serves interrupts itself (CHECK_FOR_INTERRUPTS) */
		(void) ConditionVariableTimedSleep(commits_cv, ms, PG_WAIT_EXTENSION);
		return;
	}
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 Min(ms, 100), PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

void
storage_stream_wait_end(void)
{
	if (commits_cv)
		ConditionVariableCancelSleep();
}

void
storage_stream_lock(int64 stream_id)
{
	Oid			nsp = get_namespace_oid("stdesign", false);

	if (stream_id <= 0 || stream_id > PG_UINT32_MAX)
		st_internal_error("stream id " INT64_FORMAT " is out of range", stream_id);
	LockDatabaseObject(get_relname_relid("streams", nsp), (Oid) stream_id, 0, ExclusiveLock);
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

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.stream_capture() must be an AFTER ... FOR EACH ROW trigger")));

	/*
	 * A TRUNCATE would remove every item and write no record; DynamoDB has
	 * no such operation, and REMOVE records for every item would be a
	 * stream's worth of writes in one statement.  Refused while the stream
	 * is enabled (storage_stream_attach).
	 */
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate relation \"%s\": its table has an enabled stream",
						RelationGetRelationName(td->tg_relation)),
				 errdetail("A TRUNCATE removes the items without a record in the stream."),
				 errhint("Delete the items (each deletion writes its REMOVE record), or disable the stream first.")));
	if (!TRIGGER_FIRED_AFTER(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event))
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

/*
 * GetRecords' read: an ordered scan of stream_records' primary key, each
 * row handed on in place.  Through SPI the same read copied every tuple
 * into its result and ran the executor around the scan (bench/RESULTS.md,
 * GetRecords against DynamoDB Local).
 */
void
storage_stream_records_scan(int64 stream_id, int64 after, int64 upto,
							int max, int ncols, StStreamRecordFn fn, void *arg)
{
	const CatalogOids *cat = catalog_oids();
	Relation	rel;
	Relation	idx;
	ScanKeyData keys[3];
	SysScanDesc scan;
	HeapTuple	tup;
	Datum	   *values = palloc(ncols * sizeof(Datum));
	bool	   *nulls = palloc(ncols * sizeof(bool));
	int			n = 0;
	int64		handed = after;	/* the last number handed to fn */

	rel = table_open(cat->records, AccessShareLock);
	/* the row as the caller knows it (a column added or dropped is not) */
	if (RelationGetDescr(rel)->natts != ncols || ncols != REC_NCOLS)
		st_internal_error("stdesign.stream_records has %d columns, not %d",
						  RelationGetDescr(rel)->natts, ncols);
	idx = index_open(cat->records_pkey, AccessShareLock);
	/* (stream_id, sequence_number): the key's columns */
	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(stream_id));
	ScanKeyInit(&keys[1], 2, BTGreaterStrategyNumber, F_INT8GT, Int64GetDatum(after));
	ScanKeyInit(&keys[2], 2, BTLessEqualStrategyNumber, F_INT8LE, Int64GetDatum(upto));
	scan = systable_beginscan_ordered(rel, idx, GetActiveSnapshot(), 3, keys);
	while (n < max && (tup = systable_getnext_ordered(scan, ForwardScanDirection)) != NULL)
	{
		StStreamBatchReader r;
		StStreamBatchRecord rec;
		bool		more = true;

		CHECK_FOR_INTERRUPTS();
		heap_deform_tuple(tup, RelationGetDescr(rel), values, nulls);
		if (nulls[REC_BATCH])
		{
			n++;
			handed = DatumGetInt64(values[REC_SEQ]);
			if (!fn(arg, values, nulls))
				break;
			continue;
		}

		/*
		 * A batch: each of its records as a row of its own, in place.  Its
		 * first may be at or below after (the row is numbered by its last):
		 * those were read before.
		 */
		storage_stream_batch_read(&r, values[REC_BATCH], DatumGetInt64(values[REC_SEQ]));
		nulls[REC_BATCH] = true;
		while (more && n < max && storage_stream_batch_next(&r, &rec))
		{
			if (rec.seq <= after)
				continue;
			/* rows' numbers only order the rows: a batch must not reach back over its predecessors */
			if (rec.seq <= handed)
				st_internal_error("a batch of stdesign.stream_records is malformed: its numbers overlap the records before it");
			handed = rec.seq;
			record_columns(&rec, values, nulls);
			n++;
			more = fn(arg, values, nulls);
		}
		if (!more)
			break;
	}
	systable_endscan_ordered(scan);
	index_close(idx, AccessShareLock);
	table_close(rel, AccessShareLock);
	pfree(values);
	pfree(nulls);
}
