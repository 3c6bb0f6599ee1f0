/*-------------------------------------------------------------------------
 *
 * row_write.c
 *		Writing the rows of items without an executor.
 *
 * A write that reads an item and then replaces it (UpdateItem, a Put over
 * an existing item, a transaction's writes) would replace it through SPI
 * with an UPDATE ... WHERE ctid = $1: a plan-cache check, an executor
 * started and stopped, triggers and constraints looked at, for a write of
 * one known row.  That was a third of an UpdateItem.  Here the same write
 * is done the way the executor's ExecUpdate does it: table_tuple_update on
 * the version read (locked by this transaction, or checked by
 * table_tuple_update to still be the latest), then new entries in every
 * index unless the update was HOT (the partial expression indexes of the
 * GSIs evaluate their expressions and predicates as the executor would).
 *
 * Puts of many items (st_put_all, BatchWriteItem) are an INSERT ... ON
 * CONFLICT (key) DO UPDATE SET item = excluded.item, written here the way
 * the executor writes one: per item, an optional look for an existing row
 * in the key index (ExecCheckIndexConstraints), else a speculative
 * insertion -- the heap tuple, then the index entries, the key index
 * checking for a conflicting entry -- confirmed, or undone and retried
 * when another row with the key was found meanwhile; an existing row is
 * locked and replaced as ON CONFLICT DO UPDATE replaces it.  The key
 * columns are computed by the set_keys trigger's own function, from its
 * own arguments.  What this saves over the statement: the array of items
 * and its unnest, a trigger call per row, and, while no key is found to
 * exist, the look before each insertion (the insertion checks anyway).
 *
 * A bulk load of keys known to be new (an import into an empty table) is
 * written as COPY writes rows: the heap tuples of a batch together
 * (table_multi_insert, with a BulkInsertState), then each row's index
 * entries, the key index checking uniqueness as a plain INSERT does -- no
 * speculative insertion, no look before each row.  A key that exists after
 * all (written meanwhile by another transaction) is a unique violation,
 * as for INSERT.
 *
 * A whole load of new keys into a table without item collections to check
 * goes further (StRowLoader): its rows' index entries are not inserted
 * with each batch but sorted, per btree index, as CREATE INDEX sorts them
 * (tuplesort, spilling to disk past maintenance_work_mem), and inserted in
 * index order when the load ends.  Each insertion then lands on the
 * index's rightmost leaf page, which btree finds without descending the
 * tree (its "fastpath"), and leaf pages split as in a load in key order,
 * nearly full.  Until the load ends its rows are in the table but not in
 * its indexes: nothing reads them meanwhile (the load is one statement of
 * this transaction, and other transactions do not see them), and a key
 * written twice by the load must end the load first (storage_load_end)
 * before its second write looks for the first.
 *
 * Deleting an item (DeleteItem, a transaction's Delete) is table_tuple_delete
 * of the version read, as ExecDelete does it; a DELETE has no index entries
 * to write.
 *
 * Only taken when the statement would do nothing more: the only trigger on
 * the relation is stdesign.set_keys (whose job, keeping pk and sk equal to
 * the item's key, is done here: a replacement never changes the key, and
 * an insertion computes them as the trigger does), besides a stream's
 * capture trigger (whose job, a record of each change, is done here too:
 * storage_stream_capture with the old and new items, stream_capture.c), no rewrite rule (the
 * rewriter could replace the statement or add others), no row-level security,
 * no CHECK constraints or generated columns, the user may SELECT and
 * UPDATE (DELETE) the table, and for the upserts no columns besides pk, sk
 * and item, no unique index besides the key, and the INSERT privilege.  Otherwise the caller runs the statement, which
 * also raises the errors.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/sysattr.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "index_cache.h"
#include "key_trigger.h"
#include "load_sort.h"
#include "row_write.h"
#include "st_storage.h"
#include "stream_capture.h"

/* OID of stdesign.set_keys(), looked up once per backend. */
static Oid	set_keys_oid = InvalidOid;

static Oid
set_keys_function(void)
{
	if (!OidIsValid(set_keys_oid))
		set_keys_oid = LookupFuncName(list_make2(makeString("stdesign"), makeString("set_keys")),
									  0, NULL, true);
	return set_keys_oid;
}

/*
 * The relation's only trigger, if it is stdesign.set_keys; NULL if it has
 * none; *others set if it has any other.  A stream's capture trigger is
 * not another: the writes here capture their changes themselves
 * (stream_capture.c).
 */
static Trigger *
set_keys_trigger(Relation rel, bool *others)
{
	/*
	 * The functions' lookups before the trigger descriptor is read: a first
	 * lookup may process invalidations, which can rebuild the relation's
	 * cache entry and free its descriptor.
	 */
	Oid			ours = set_keys_function();
	Oid			capture = storage_stream_capture_oid();
	TriggerDesc *td = rel->trigdesc;
	Trigger    *found = NULL;

	*others = false;
	for (int i = 0; td && i < td->numtriggers; i++)
	{
		if (OidIsValid(ours) && td->triggers[i].tgfoid == ours && found == NULL)
			found = &td->triggers[i];
		else if (OidIsValid(capture) && td->triggers[i].tgfoid == capture)
			continue;
		else
			*others = true;
	}
	return found;
}

/* Would a statement writing this relation's items do more than write rows and index entries? */
static bool
plain_write_allowed(Relation rel, AclMode mode)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;
	bool		others;

	if (constr && (constr->num_check > 0 || constr->has_generated_stored))
		return false;
	/* a rewrite rule (DO INSTEAD NOTHING, DO ALSO ...) changes what the statement does */
	if (rel->rd_rules != NULL)
		return false;
	(void) set_keys_trigger(rel, &others);
	if (others)
		return false;
	return storage_direct_ok(RelationGetRelid(rel), mode);
}

/* A write of mode (ACL_UPDATE or ACL_DELETE) that may be done directly. */
static bool
direct_write_allowed(Oid relid, AclMode mode)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	bool		ok = plain_write_allowed(rel, ACL_SELECT | mode);

	table_close(rel, NoLock);
	return ok;
}

bool
storage_row_update_allowed(Oid relid)
{
	return direct_write_allowed(relid, ACL_UPDATE);
}

bool
storage_row_delete_allowed(Oid relid)
{
	return direct_write_allowed(relid, ACL_DELETE);
}

/* ---------- a relation opened for writing ---------- */

typedef struct RowWriter
{
	Relation	rel;
	AttrNumber	item_attnum;
	EState	   *estate;			/* NULL until indexes are opened */
	ResultRelInfo *rri;
	TupleTableSlot *row;		/* the row to write (virtual) */
	TupleTableSlot *existing;	/* a version fetched or locked */
	CommandId	cid;
	StStreamTarget *stream;		/* the stream its changes go to, or NULL */
} RowWriter;

static void
writer_open(RowWriter *w, Oid relid, AttrNumber item_attnum)
{
	w->rel = table_open(relid, RowExclusiveLock);
	if (item_attnum < 1 || item_attnum > RelationGetDescr(w->rel)->natts)
		st_internal_error("relation %u has no item column %d", relid, (int) item_attnum);
	w->item_attnum = item_attnum;
	w->estate = NULL;
	w->rri = NULL;
	w->row = MakeSingleTupleTableSlot(RelationGetDescr(w->rel), &TTSOpsVirtual);
	w->existing = table_slot_create(w->rel, NULL);
	w->cid = GetCurrentCommandId(true);
	w->stream = storage_stream_target(w->rel);
}

/* The item of the row in slot. */
static Jsonb *
slot_item(RowWriter *w, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, w->item_attnum, &isnull);

	return isnull ? NULL : DatumGetJsonbP(d);
}

/* The change from the row in old (NULL: none) to the row in new (NULL: none), to the stream. */
static void
writer_capture(RowWriter *w, TupleTableSlot *old, TupleTableSlot *new)
{
	if (w->stream)
		storage_stream_capture(w->stream, old ? slot_item(w, old) : NULL,
							   new ? slot_item(w, new) : NULL);
}

/*
 * The executor state index entries are made with.  The range table says
 * that an update changes only the item, so that each index is told whether
 * its key is unchanged (a hint that lets a btree remove old versions'
 * entries before splitting a page), as in an UPDATE of item.  The indexes
 * are opened as ExecOpenIndices(rri, true) opens them (the unique index
 * with what a look for conflicts needs), their IndexInfos kept per backend.
 */
/*
 * InitResultRelInfo, less its copy of the relation's triggers: direct
 * writes fire none (they stand in for set_keys and a stream's capture
 * themselves), and the copy of a streamed table's three, with their
 * arguments, cost a write some 1,000 instructions.  Without triggers
 * InitResultRelInfo allocates nothing and cannot fail, so the relcache
 * entry's trigdesc, hidden only for the call, is always put back.
 */
static void
writer_init_result_rel(ResultRelInfo *rri, Relation rel)
{
	TriggerDesc *triggers = rel->trigdesc;

	rel->trigdesc = NULL;
	InitResultRelInfo(rri, rel, 1, NULL, 0);
	rel->trigdesc = triggers;
}

static void
writer_open_indexes(RowWriter *w)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	w->estate = CreateExecutorState();
	w->rri = makeNode(ResultRelInfo);
	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(w->rel);
	rte->relkind = w->rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	st_init_range_table(w->estate, rte,
						bms_make_singleton(w->item_attnum - FirstLowInvalidHeapAttributeNumber));
	writer_init_result_rel(w->rri, w->rel);
	storage_index_cache_open(w->rri);
	w->estate->es_snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	w->estate->es_output_cid = w->cid;
}

/* Done: what follows in this transaction sees the rows written, as after a statement. */
static void
writer_close(RowWriter *w, bool wrote)
{
	if (w->estate)
	{
		ExecCloseIndices(w->rri);
		FreeExecutorState(w->estate);
	}
	ExecDropSingleTupleTableSlot(w->row);
	ExecDropSingleTupleTableSlot(w->existing);
	table_close(w->rel, NoLock);
	if (wrote)
		CommandCounterIncrement();
}

/*
 * Update the row version at ctid to w->row, waiting for a transaction
 * still writing it as an UPDATE does; index entries unless HOT.
 */
static TM_Result
writer_update(RowWriter *w, ItemPointer ctid)
{
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	StUpdateIndexes update_indexes;
	TM_Result	res;

	/* an UPDATE of a table published without a replica identity is refused */
	CheckCmdReplicaIdentity(w->rel, CMD_UPDATE);
	res = table_tuple_update(w->rel, ctid, w->row, w->cid,
							 ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(),
							 InvalidSnapshot, true,
							 &tmfd, &lockmode, &update_indexes);
	if (res == TM_Ok && st_update_needs_index_entries(update_indexes))
	{
		if (w->estate == NULL)
			writer_open_indexes(w);
		list_free(st_insert_index_tuples(w->rri, w->row, w->estate, true, false, NULL, NIL,
										 st_update_only_summarizing(update_indexes)));
	}
	return res;
}

/* ---------- replacing one item ---------- */

/* w->row: the version in w->existing with a new item (the key columns kept). */
static void
fill_new_row(RowWriter *w, Jsonb *item)
{
	TupleTableSlot *row = w->row;
	int			natts = row->tts_tupleDescriptor->natts;

	slot_getallattrs(w->existing);
	ExecClearTuple(row);
	for (int i = 0; i < natts; i++)
	{
		row->tts_values[i] = w->existing->tts_values[i];
		row->tts_isnull[i] = w->existing->tts_isnull[i];
	}
	row->tts_values[w->item_attnum - 1] = PointerGetDatum(item);
	row->tts_isnull[w->item_attnum - 1] = false;
	ExecStoreVirtualTuple(row);
}

/* A concurrent change to the row read: retried in READ COMMITTED, an error otherwise. */
static bool
changed_meanwhile(TM_Result res)
{
	if (IsolationUsesXactSnapshot())
		st_serialization_failure(res == TM_Deleted ? "delete" : "update");
	return false;
}

bool
storage_row_update(Oid relid, AttrNumber item_attnum, ItemPointer ctid, Jsonb *item, bool locked)
{
	RowWriter	w;
	TM_Result	res;

	writer_open(&w, relid, item_attnum);
	if (!table_tuple_fetch_row_version(w.rel, ctid, SnapshotAny, w.existing))
		st_internal_error("the item's row version is gone");
	fill_new_row(&w, item);
	res = writer_update(&w, ctid);
	if (res == TM_Ok)
		writer_capture(&w, w.existing, w.row);
	writer_close(&w, res == TM_Ok);

	if (res == TM_Ok)
		return true;
	if (!locked && (res == TM_Updated || res == TM_Deleted))
		return changed_meanwhile(res);
	st_internal_error("update of %s item failed (%d)", locked ? "a locked" : "an", (int) res);
	return false;				/* not reached */
}

/* ---------- deleting one item ---------- */

bool
storage_row_delete(Oid relid, ItemPointer ctid, bool locked)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	TM_FailureData tmfd;
	TM_Result	res;
	StStreamTarget *stream = storage_stream_target(rel);
	Jsonb	   *old_item = NULL;

	/* a DELETE from a table published without a replica identity is refused */
	CheckCmdReplicaIdentity(rel, CMD_DELETE);
	/* the item deleted, for the stream: the version at ctid is the one deleted, if any */
	if (stream)
	{
		TupleTableSlot *slot = table_slot_create(rel, NULL);
		bool		isnull;
		Datum		d;

		if (!table_tuple_fetch_row_version(rel, ctid, SnapshotAny, slot))
			st_internal_error("the item's row version is gone");
		/* pk, [sk,] item */
		d = slot_getattr(slot, stream->sk ? 3 : 2, &isnull);
		old_item = isnull ? NULL : DatumGetJsonbPCopy(d);
		ExecDropSingleTupleTableSlot(slot);
	}
	/* waits for a transaction still writing the row, as a DELETE does */
	res = table_tuple_delete(rel, ctid, GetCurrentCommandId(true),
							 ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(),
							 InvalidSnapshot, true, &tmfd, false);
	table_close(rel, NoLock);

	if (res == TM_Ok)
	{
		if (stream)
			storage_stream_capture(stream, old_item, NULL);
		CommandCounterIncrement();
		return true;
	}
	if (!locked && (res == TM_Updated || res == TM_Deleted))
		return changed_meanwhile(res);
	st_internal_error("delete of %s item failed (%d)", locked ? "a locked" : "an", (int) res);
	return false;				/* not reached */
}

/* ---------- INSERT ... ON CONFLICT DO UPDATE of many items ---------- */

/* Does trigger fire for this session's rows (session_replication_role)? */
static bool
trigger_fires(const Trigger *trigger)
{
	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
		return trigger->tgenabled == TRIGGER_FIRES_ON_REPLICA ||
			trigger->tgenabled == TRIGGER_FIRES_ALWAYS;
	return trigger->tgenabled == TRIGGER_FIRES_ON_ORIGIN ||
		trigger->tgenabled == TRIGGER_FIRES_ALWAYS;
}

/*
 * A copy of the trigger's name-and-type arguments: the relation's trigger
 * descriptor is rebuilt (and the old one freed) whenever an invalidation of
 * the relation is processed, which any lock taken while writing can do.
 */
static Trigger *
copy_trigger_args(const Trigger *trigger)
{
	Trigger    *copy = palloc0(sizeof(Trigger));

	copy->tgnargs = trigger->tgnargs;
	copy->tgargs = palloc(sizeof(char *) * Max(1, trigger->tgnargs));
	for (int i = 0; i < trigger->tgnargs; i++)
		copy->tgargs[i] = pstrdup(trigger->tgargs[i]);
	return copy;
}

/*
 * The set_keys trigger an upsert computes the key columns with (a copy of
 * its arguments, taken before anything else can take a lock), or NULL when
 * the statement would do more than write rows (see the banner).  What
 * makes that decision cannot change meanwhile: changing triggers, columns
 * or indexes takes a lock that conflicts with the one held from here on.
 */
static Trigger *
upsert_trigger(Relation rel, AttrNumber item_attnum)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Trigger    *trigger;
	bool		others;
	int			nkeys;

	if (!plain_write_allowed(rel, ACL_SELECT | ACL_INSERT | ACL_UPDATE))
		return NULL;
	trigger = set_keys_trigger(rel, &others);
	if (trigger == NULL || !trigger_fires(trigger) ||
		!TRIGGER_FOR_ROW(trigger->tgtype) || !TRIGGER_FOR_BEFORE(trigger->tgtype) ||
		!TRIGGER_FOR_INSERT(trigger->tgtype) || !TRIGGER_FOR_UPDATE(trigger->tgtype) ||
		(trigger->tgnargs != 2 && trigger->tgnargs != 4))
		return NULL;
	nkeys = trigger->tgnargs / 2;
	if (item_attnum != nkeys + 1)
		return NULL;
	/* pk, [sk,] item and nothing else (a column with a default would need it) */
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (i < nkeys ? (att->attisdropped ||
						 strcmp(NameStr(att->attname), i == 0 ? "pk" : "sk") != 0)
			: (i >= item_attnum && !att->attisdropped))
			return NULL;
	}
	return copy_trigger_args(trigger);
}

/* The key index is the only unique index, and checks at once. */
static bool
only_key_unique(ResultRelInfo *rri, Oid key_index)
{
	bool		key_found = false;

	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Form_pg_index ix = rri->ri_IndexRelationDescs[i]->rd_index;

		if (ix->indexrelid == key_index)
			key_found = ix->indisunique && ix->indimmediate && ix->indisvalid && ix->indisready;
		else if (ix->indisunique || ix->indisexclusion)
			return false;
	}
	return key_found;
}

/* The inserting transaction of the row version in slot. */
static TransactionId
slot_xmin(TupleTableSlot *slot)
{
	bool		isnull;

	return DatumGetTransactionId(slot_getsysattr(slot, MinTransactionIdAttributeNumber, &isnull));
}

/*
 * The existing row with the key at conflict: lock it and replace it with
 * w->row, as ON CONFLICT DO UPDATE does.  False: it was updated or
 * deleted meanwhile, try again from the start.
 */
static bool
conflict_update(RowWriter *w, ItemPointer conflict)
{
	TM_FailureData tmfd;
	TM_Result	res;

	res = table_tuple_lock(w->rel, conflict, w->estate->es_snapshot, w->existing, w->cid,
						   ExecUpdateLockMode(w->estate, w->rri), LockWaitBlock, 0, &tmfd);
	switch (res)
	{
		case TM_Ok:
			break;
		case TM_Invisible:
			if (TransactionIdIsCurrentTransactionId(slot_xmin(w->existing)))
				ereport(ERROR,
						(errcode(ERRCODE_CARDINALITY_VIOLATION),
						 errmsg("ON CONFLICT DO UPDATE command cannot affect row a second time")));
			st_internal_error("attempted to lock an invisible row");
			break;
		case TM_Updated:
		case TM_Deleted:
			ExecClearTuple(w->existing);
			return changed_meanwhile(res);
		default:
			st_internal_error("unexpected result %d locking an item", (int) res);
	}

	/*
	 * REPEATABLE READ and SERIALIZABLE may only replace a row their snapshot
	 * sees (or that this transaction wrote).
	 */
	if (IsolationUsesXactSnapshot() &&
		!table_tuple_satisfies_snapshot(w->rel, w->existing, w->estate->es_snapshot) &&
		!TransactionIdIsCurrentTransactionId(slot_xmin(w->existing)))
		st_serialization_failure("update");

	res = writer_update(w, conflict);
	if (res != TM_Ok)
		st_internal_error("update of a locked item failed (%d)", (int) res);
	writer_capture(w, w->existing, w->row);
	ExecClearTuple(w->existing);
	return true;
}

/* w->row: inserted, or the existing row with its key replaced. */
static void
upsert_row(RowWriter *w, List *arbiter, bool *probe)
{
	for (;;)
	{
		ItemPointerData conflict;
		TransactionId xid;
		uint32		token;
		bool		conflicted = false;
		List	   *recheck;

		CHECK_FOR_INTERRUPTS();
		if (*probe &&
			!st_check_index_constraints(w->rri, w->row, w->estate, &conflict, arbiter))
		{
			if (conflict_update(w, &conflict))
				return;
			continue;
		}

		/* others looking for this key wait for the token, not for this transaction */
		xid = GetCurrentTransactionId();
		token = SpeculativeInsertionLockAcquire(xid);
		table_tuple_insert_speculative(w->rel, w->row, w->cid, 0, NULL, token);
		recheck = st_insert_index_tuples(w->rri, w->row, w->estate, false, true,
										 &conflicted, arbiter, false);
		table_tuple_complete_speculative(w->rel, w->row, token, !conflicted);
		SpeculativeInsertionLockRelease(xid);
		list_free(recheck);
		if (!conflicted)
		{
			writer_capture(w, NULL, w->row);
			return;
		}
		/* the key exists (or is being written): look first from now on */
		*probe = true;
	}
}

/*
 * w opened for an insertion of items by INSERT ... ON CONFLICT (key):
 * *trigger the set_keys arguments the key columns are computed with, the
 * indexes open.  False, with w closed, when the statement would do more
 * than write rows (see the banner).
 */
static bool
upsert_open(RowWriter *w, Oid relid, Oid key_index, AttrNumber item_attnum, Trigger **trigger)
{
	writer_open(w, relid, item_attnum);
	*trigger = upsert_trigger(w->rel, item_attnum);
	if (*trigger != NULL)
		writer_open_indexes(w);
	if (*trigger == NULL || !only_key_unique(w->rri, key_index))
	{
		writer_close(w, false);
		return false;
	}
	return true;
}

/* row: a new row of item, its key columns computed as set_keys computes them. */
static void
fill_row(RowWriter *w, TupleTableSlot *row, Trigger *trigger, Jsonb *item)
{
	int			natts = RelationGetDescr(w->rel)->natts;

	ExecClearTuple(row);

	for (int a = 0; a < natts; a++)
	{
		row->tts_values[a] = (Datum) 0;
		row->tts_isnull[a] = true;
	}
	storage_set_keys_values(trigger, item, row->tts_values);
	for (int a = 0; a < w->item_attnum; a++)
		row->tts_isnull[a] = false;
	row->tts_values[w->item_attnum - 1] = PointerGetDatum(item);
	ExecStoreVirtualTuple(row);
}

/* w->row: a new row of item. */
static void
fill_insert_row(RowWriter *w, Trigger *trigger, Jsonb *item)
{
	fill_row(w, w->row, trigger, item);
}

bool
storage_row_upsert_many(Oid relid, Oid key_index, AttrNumber item_attnum,
				Jsonb **items, int n, bool *probe)
{
	RowWriter	w;
	Trigger    *trigger;
	List	   *arbiter;
	MemoryContext row_cxt;
	MemoryContext old;

	if (!upsert_open(&w, relid, key_index, item_attnum, &trigger))
		return false;

	arbiter = list_make1_oid(key_index);
	row_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign upsert row",
									ALLOCSET_DEFAULT_SIZES);
	for (int i = 0; i < n; i++)
	{
		old = MemoryContextSwitchTo(row_cxt);
		fill_insert_row(&w, trigger, items[i]);
		upsert_row(&w, arbiter, probe);
		MemoryContextSwitchTo(old);
		ExecClearTuple(w.row);
		ResetPerTupleExprContext(w.estate);
		MemoryContextReset(row_cxt);
	}
	MemoryContextDelete(row_cxt);
	writer_close(&w, true);
	return true;
}

/* ---------- INSERT ... ON CONFLICT DO NOTHING of one item ---------- */

/*
 * The row at conflict keeps its key, and nothing is written: as ON
 * CONFLICT DO NOTHING, REPEATABLE READ and SERIALIZABLE refuse a row their
 * snapshot does not see (ExecCheckTIDVisible), unless this transaction
 * wrote it.
 */
static void
conflict_nothing(RowWriter *w, ItemPointer conflict)
{
	if (!IsolationUsesXactSnapshot())
		return;
	if (!table_tuple_fetch_row_version(w->rel, conflict, SnapshotAny, w->existing))
		st_internal_error("failed to fetch conflicting tuple for ON CONFLICT");
	if (!table_tuple_satisfies_snapshot(w->rel, w->existing, w->estate->es_snapshot) &&
		!TransactionIdIsCurrentTransactionId(slot_xmin(w->existing)))
		st_serialization_failure("update");
	ExecClearTuple(w->existing);
}

/* w->row inserted (true, *ctid its row), or the key exists (false). */
static bool
insert_row(RowWriter *w, List *arbiter, ItemPointer ctid)
{
	for (;;)
	{
		ItemPointerData conflict;
		TransactionId xid;
		uint32		token;
		bool		conflicted = false;
		List	   *recheck;

		CHECK_FOR_INTERRUPTS();
		/* waits for a transaction still writing the key, as the statement does */
		if (!st_check_index_constraints(w->rri, w->row, w->estate, &conflict, arbiter))
		{
			conflict_nothing(w, &conflict);
			return false;
		}
		xid = GetCurrentTransactionId();
		token = SpeculativeInsertionLockAcquire(xid);
		table_tuple_insert_speculative(w->rel, w->row, w->cid, 0, NULL, token);
		recheck = st_insert_index_tuples(w->rri, w->row, w->estate, false, true,
										 &conflicted, arbiter, false);
		table_tuple_complete_speculative(w->rel, w->row, token, !conflicted);
		SpeculativeInsertionLockRelease(xid);
		list_free(recheck);
		if (!conflicted)
		{
			if (ctid)
				ItemPointerCopy(&w->row->tts_tid, ctid);
			writer_capture(w, NULL, w->row);
			return true;
		}
	}
}

StRowInsert
storage_row_insert(Oid relid, Oid key_index, AttrNumber item_attnum, Jsonb *item,
				   ItemPointer ctid)
{
	RowWriter	w;
	Trigger    *trigger;
	bool		inserted;

	if (!upsert_open(&w, relid, key_index, item_attnum, &trigger))
		return ST_ROW_NOT_DIRECT;
	fill_insert_row(&w, trigger, item);
	inserted = insert_row(&w, list_make1_oid(key_index), ctid);
	ExecClearTuple(w.row);
	writer_close(&w, inserted);
	return inserted ? ST_ROW_INSERTED : ST_ROW_KEY_EXISTS;
}

/* ---------- INSERT of many items of new keys (a bulk load) ---------- */

/* Rows per table_multi_insert, as COPY buffers them. */
#define MULTI_INSERT_ROWS 1000

bool
storage_row_insert_many(Oid relid, Oid key_index, AttrNumber item_attnum, Jsonb **items, int n)
{
	RowWriter	w;
	Trigger    *trigger;
	TupleTableSlot **slots;
	BulkInsertState bistate;
	MemoryContext batch_cxt;
	int			nslots = Min(n, MULTI_INSERT_ROWS);

	if (n == 0)
		return true;
	if (!upsert_open(&w, relid, key_index, item_attnum, &trigger))
		return false;
	slots = palloc(sizeof(TupleTableSlot *) * nslots);
	for (int i = 0; i < nslots; i++)
		slots[i] = table_slot_create(w.rel, NULL);
	bistate = GetBulkInsertState();
	batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign bulk insert",
									  ALLOCSET_DEFAULT_SIZES);
	for (int start = 0; start < n; start += nslots)
	{
		int			m = Min(nslots, n - start);
		MemoryContext old = MemoryContextSwitchTo(batch_cxt);

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < m; i++)
			fill_row(&w, slots[i], trigger, items[start + i]);
		table_multi_insert(w.rel, slots, m, w.cid, 0, bistate);
		for (int i = 0; i < m; i++)
		{
			/* the key index checks uniqueness, waiting for a writer of the key */
			list_free(st_insert_index_tuples(w.rri, slots[i], w.estate, false, false,
											 NULL, NIL, false));
			writer_capture(&w, NULL, slots[i]);
			ResetPerTupleExprContext(w.estate);
			ExecClearTuple(slots[i]);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(batch_cxt);
	}
	FreeBulkInsertState(bistate);
	MemoryContextDelete(batch_cxt);
	for (int i = 0; i < nslots; i++)
		ExecDropSingleTupleTableSlot(slots[i]);
	writer_close(&w, true);
	return true;
}

/* ---------- a load of new keys, index entries sorted ---------- */

struct StRowLoader
{
	RowWriter	w;
	Trigger    *trigger;
	TupleTableSlot **slots;
	BulkInsertState bistate;
	MemoryContext batch_cxt;
	Tuplesortstate **sorts;		/* per index: NULL for one written at once */
	bool		rebuild;		/* the table's btree indexes are built at the end */
	StLoadSort **kept;			/* per index: its entries kept for the build, or NULL */
	int			key;			/* the key index's place among the indexes */
	int64		nrows;			/* rows loaded so far */
};

/*
 * Can the load leave the table's btree indexes alone and build them from
 * the table when it ends, as CREATE INDEX builds one (bottom-up, from a
 * sorted scan: several times cheaper than inserting the same entries one
 * by one, even in order)?  Only into a table with no row at all, which
 * nothing else writes until this transaction ends, and whose indexes
 * nothing reads meanwhile: the table is locked against writers
 * (SHARE ROW EXCLUSIVE, as CREATE TRIGGER locks it) and each btree index
 * against everything (ACCESS EXCLUSIVE, as REINDEX locks it), so that
 * readers of the table wait for the load's commit, as DynamoDB's import
 * creates a table that is not readable until the import is done.  The
 * locks are only taken when free at once: a table in use takes the
 * other way, waiting for no one.
 */
static bool
load_can_rebuild(StRowLoader *l, Oid key_index)
{
	ResultRelInfo *rri = l->w.rri;
	Relation	key = NULL;
	int			locked = 0;
	bool		ok = true;
	IndexScanDesc scan;

	if (!ConditionalLockRelation(l->w.rel, ShareRowExclusiveLock))
		return false;
	for (; locked < rri->ri_NumIndices && ok; locked++)
	{
		Relation	ind = rri->ri_IndexRelationDescs[locked];
		Form_pg_index ix = ind->rd_index;

		if (ind->rd_rel->relam != BTREE_AM_OID)
			continue;
		if (!ix->indisvalid || !ix->indisready || !ix->indislive ||
			!ConditionalLockRelation(ind, AccessExclusiveLock))
		{
			ok = false;
			break;
		}
		if (ix->indexrelid == key_index)
			key = ind;
	}
	/* no entry at all, under any snapshot: no row the build could miss */
	if (ok && key != NULL)
	{
		scan = st_index_beginscan(l->w.rel, key, SnapshotAny, 0, 0);
		index_rescan(scan, NULL, 0, NULL, 0);
		ok = index_getnext_tid(scan, ForwardScanDirection) == NULL;
		index_endscan(scan);
	}
	else
		ok = false;
	if (!ok)
	{
		/* locks taken only to look: given back, nothing was done under them */
		for (int i = 0; i < locked; i++)
			if (rri->ri_IndexRelationDescs[i]->rd_rel->relam == BTREE_AM_OID)
				UnlockRelation(rri->ri_IndexRelationDescs[i], AccessExclusiveLock);
		UnlockRelation(l->w.rel, ShareRowExclusiveLock);
		return false;
	}

	/*
	 * The builds insert no entry as an insertion would, so they check no
	 * serializable transaction's read of the indexes (a key found absent):
	 * as REINDEX does, those reads' predicate locks become locks on the
	 * table, which each row the load writes then checks.  Done before the
	 * first row, else a read-write conflict with a transaction that read
	 * the empty table, and has committed since, would go unseen.
	 */
	for (int i = 0; i < rri->ri_NumIndices; i++)
		if (rri->ri_IndexRelationDescs[i]->rd_rel->relam == BTREE_AM_OID)
			TransferPredicateLocksToHeapRelation(rri->ri_IndexRelationDescs[i]);
	return true;
}

/*
 * When rebuilding, the entries of each btree index that load_sort can
 * order are kept, in maintenance_work_mem in all (runs written to
 * temporary files past it): the others are built from a scan of the
 * table.  The key index's entries are kept deduplicating: a key the load
 * writes again is then found at the end, its last row kept.
 */
static void
load_keep_entries(StRowLoader *l, Oid key_index)
{
	ResultRelInfo *rri = l->w.rri;
	int			nbtree = 0;
	Size		budget;

	l->kept = palloc0(sizeof(StLoadSort *) * Max(rri->ri_NumIndices, 1));
	for (int i = 0; i < rri->ri_NumIndices; i++)
		if (rri->ri_IndexRelationDescs[i]->rd_rel->relam == BTREE_AM_OID)
			nbtree++;
	budget = (Size) maintenance_work_mem * 1024 / Max(nbtree, 1);
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	ind = rri->ri_IndexRelationDescs[i];
		bool		is_key = RelationGetRelid(ind) == key_index;

		if (is_key)
			l->key = i;
		if (ind->rd_rel->relam == BTREE_AM_OID)
			l->kept[i] = storage_load_sort_begin(ind, budget, is_key);
	}
}

/* Delete the rows a later row of the load replaced (no index has them). */
static void
load_drop_rows(StRowLoader *l, const ItemPointerData *tids, int64 n)
{
	CommandCounterIncrement();
	for (int64 i = 0; i < n; i++)
	{
		simple_table_tuple_delete(l->w.rel, (ItemPointer) &tids[i], l->w.estate->es_snapshot);
		if ((i & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
	}
	CommandCounterIncrement();
}

/*
 * Build the btree indexes, from their entries kept or from the table: the
 * key index first (with the rows it leaves out, keys written again, then
 * deleted and left out of the others).
 */
static void
load_build_indexes(StRowLoader *l)
{
	ResultRelInfo *rri = l->w.rri;
	StLoadSort *key = l->kept[l->key];
	ItemPointerData *dropped = NULL;
	int64		ndropped = 0;

	storage_load_sort_build(key, l->w.rel, rri->ri_IndexRelationDescs[l->key]);
	if (key != NULL)
	{
		ItemPointerData *d = storage_load_sort_dropped(key, &ndropped);

		if (ndropped > 0)
		{
			dropped = palloc_extended(sizeof(ItemPointerData) * ndropped, MCXT_ALLOC_HUGE);
			memcpy(dropped, d, sizeof(ItemPointerData) * ndropped);
			load_drop_rows(l, dropped, ndropped);
		}
		storage_load_sort_end(key);
		l->kept[l->key] = NULL;
	}
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	ind = rri->ri_IndexRelationDescs[i];

		if (ind->rd_rel->relam != BTREE_AM_OID || i == l->key)
			continue;
		if (l->kept[i] && ndropped > 0)
			storage_load_sort_skip(l->kept[i], dropped, ndropped);
		storage_load_sort_build(l->kept[i], l->w.rel, ind);
		storage_load_sort_end(l->kept[i]);
		l->kept[i] = NULL;
	}
	if (dropped)
		pfree(dropped);
}

bool
storage_row_load_dedupes(StRowLoader *l)
{
	return l->rebuild && l->kept[l->key] != NULL;
}

StRowLoader *
storage_row_load_begin(Oid relid, Oid key_index, AttrNumber item_attnum)
{
	StRowLoader *l = palloc0(sizeof(StRowLoader));
	ResultRelInfo *rri;
	int			mem;

	if (!upsert_open(&l->w, relid, key_index, item_attnum, &l->trigger))
	{
		pfree(l);
		return NULL;
	}

	/*
	 * A table with a stream is loaded another way: this load writes a key
	 * twice as one row (the last), which the stream would see as one
	 * INSERT where the writes were an INSERT and a MODIFY.
	 */
	if (l->w.stream)
	{
		writer_close(&l->w, false);
		pfree(l);
		return NULL;
	}
	rri = l->w.rri;
	l->slots = palloc(sizeof(TupleTableSlot *) * MULTI_INSERT_ROWS);
	for (int i = 0; i < MULTI_INSERT_ROWS; i++)
		l->slots[i] = table_slot_create(l->w.rel, NULL);
	l->bistate = GetBulkInsertState();
	l->batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign load",
										 ALLOCSET_DEFAULT_SIZES);
	l->sorts = palloc0(sizeof(Tuplesortstate *) * Max(rri->ri_NumIndices, 1));
	l->rebuild = load_can_rebuild(l, key_index);
	if (l->rebuild)
	{
		load_keep_entries(l, key_index);
		return l;
	}
	mem = Max(maintenance_work_mem / Max(rri->ri_NumIndices, 1), 1024);
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	ind = rri->ri_IndexRelationDescs[i];

		/* an index of another kind (a user's) gets its entries at once */
		if (ind->rd_rel->relam == BTREE_AM_OID)
			l->sorts[i] = tuplesort_begin_index_btree(l->w.rel, ind, false, false, mem,
													  NULL, TUPLESORT_NONE);
	}
	return l;
}

/* The index entries of the row in slot: sorted for later, or written now. */
static void
load_index_entries(StRowLoader *l, TupleTableSlot *slot)
{
	ResultRelInfo *rri = l->w.rri;
	EState	   *estate = l->w.estate;
	ExprContext *econtext = GetPerTupleExprContext(estate);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	ind = rri->ri_IndexRelationDescs[i];
		IndexInfo  *ii = rri->ri_IndexRelationInfo[i];

		/* as ExecInsertIndexTuples: not yet (CREATE INDEX CONCURRENTLY), or not this row */
		if (!ii->ii_ReadyForInserts)
			continue;
		/* built at the end, from the entries kept or from the table */
		if (l->rebuild && ind->rd_rel->relam == BTREE_AM_OID && l->kept[i] == NULL)
			continue;
		if (ii->ii_Predicate != NIL)
		{
			if (ii->ii_PredicateState == NULL)
				ii->ii_PredicateState = ExecPrepareQual(ii->ii_Predicate, estate);
			if (!ExecQual(ii->ii_PredicateState, econtext))
				continue;
		}
		FormIndexDatum(ii, slot, estate, values, isnull);
		if (l->rebuild && ind->rd_rel->relam == BTREE_AM_OID)
			storage_load_sort_add(l->kept[i], &slot->tts_tid, values, isnull, l->nrows);
		else if (l->sorts[i])
			tuplesort_putindextuplevalues(l->sorts[i], ind, &slot->tts_tid, values, isnull);
		else
			(void) index_insert(ind, values, isnull, &slot->tts_tid, l->w.rel,
								ind->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
								false, ii);
	}
}

void
storage_row_load(StRowLoader *l, Jsonb **items, int n)
{
	for (int start = 0; start < n; start += MULTI_INSERT_ROWS)
	{
		int			m = Min(MULTI_INSERT_ROWS, n - start);
		MemoryContext old = MemoryContextSwitchTo(l->batch_cxt);

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < m; i++)
			fill_row(&l->w, l->slots[i], l->trigger, items[start + i]);
		table_multi_insert(l->w.rel, l->slots, m, l->w.cid, 0, l->bistate);
		for (int i = 0; i < m; i++)
		{
			load_index_entries(l, l->slots[i]);
			l->nrows++;
			ResetPerTupleExprContext(l->w.estate);
			ExecClearTuple(l->slots[i]);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(l->batch_cxt);
	}
}

/* The sorted entries of index i, in index order. */
static void
load_sorted_entries(StRowLoader *l, int i)
{
	Relation	ind = l->w.rri->ri_IndexRelationDescs[i];
	IndexInfo  *ii = l->w.rri->ri_IndexRelationInfo[i];
	IndexUniqueCheck check = ind->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO;
	IndexTuple	itup;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	int64		k = 0;
	MemoryContext old;

	tuplesort_performsort(l->sorts[i]);
	old = MemoryContextSwitchTo(l->batch_cxt);
	while ((itup = tuplesort_getindextuple(l->sorts[i], true)) != NULL)
	{
		index_deform_tuple(itup, RelationGetDescr(ind), values, isnull);
		/* the key index checks uniqueness, waiting for a writer of the key */
		(void) index_insert(ind, values, isnull, &itup->t_tid, l->w.rel, check, false, ii);
		if (++k % MULTI_INSERT_ROWS == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(l->batch_cxt);
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(l->batch_cxt);
	tuplesort_end(l->sorts[i]);
	l->sorts[i] = NULL;
}

void
storage_row_load_end(StRowLoader *l)
{
	FreeBulkInsertState(l->bistate);
	for (int i = 0; i < MULTI_INSERT_ROWS; i++)
		ExecDropSingleTupleTableSlot(l->slots[i]);
	/* the key index first: a key written meanwhile by another transaction fails the load soonest */
	for (int i = 0; i < l->w.rri->ri_NumIndices; i++)
		if (l->sorts[i] && l->w.rri->ri_IndexRelationDescs[i]->rd_index->indisunique)
			load_sorted_entries(l, i);
	for (int i = 0; i < l->w.rri->ri_NumIndices; i++)
		if (l->sorts[i])
			load_sorted_entries(l, i);
	if (l->rebuild)
	{
		load_build_indexes(l);
		pfree(l->kept);
	}
	MemoryContextDelete(l->batch_cxt);
	writer_close(&l->w, true);
	pfree(l->sorts);
	pfree(l->slots);
	pfree(l);
}
