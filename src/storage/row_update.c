/*-------------------------------------------------------------------------
 *
 * row_update.c
 *		Replacing the item of a row without an executor.
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
 * Only taken when the executor's UPDATE would do nothing more: the only
 * trigger on the relation is stdesign.set_keys (whose job, keeping pk and sk
 * equal to the item's key, is done here by keeping them: a replacement never
 * changes the key), no row-level security, no CHECK constraints, and the user
 * may UPDATE the table.  Otherwise the caller falls back to SPI, which also
 * raises the errors.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/sysattr.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "row_update.h"
#include "storage.h"

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

/* Would an UPDATE of this relation do more than write the row and its index entries? */
static bool
plain_update_allowed(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;
	TupleConstr *constr = RelationGetDescr(rel)->constr;

	if (constr && (constr->num_check > 0 || constr->has_generated_stored))
		return false;
	if (td)
	{
		Oid			ours = set_keys_function();

		for (int i = 0; i < td->numtriggers; i++)
			if (!OidIsValid(ours) || td->triggers[i].tgfoid != ours)
				return false;
	}
	return storage_direct_ok(RelationGetRelid(rel), ACL_SELECT | ACL_UPDATE);
}

/* The new row: the locked version's key columns, the new item. */
static void
fill_new_row(TupleTableSlot *newslot, TupleTableSlot *oldslot, AttrNumber item_attnum, Jsonb *item)
{
	int			natts = newslot->tts_tupleDescriptor->natts;

	slot_getallattrs(oldslot);
	ExecClearTuple(newslot);
	for (int i = 0; i < natts; i++)
	{
		newslot->tts_values[i] = oldslot->tts_values[i];
		newslot->tts_isnull[i] = oldslot->tts_isnull[i];
	}
	newslot->tts_values[item_attnum - 1] = PointerGetDatum(item);
	newslot->tts_isnull[item_attnum - 1] = false;
	ExecStoreVirtualTuple(newslot);
}

/*
 * New entries in the relation's indexes for the row in slot (a non-HOT
 * update).  The range table says that only the item changed, so that each
 * index is told whether its key is unchanged (a hint that lets a btree
 * remove old versions' entries before splitting a page), as in an UPDATE.
 */
static void
insert_index_entries(Relation rel, AttrNumber item_attnum, TupleTableSlot *slot)
{
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	rte->updatedCols = bms_make_singleton(item_attnum - FirstLowInvalidHeapAttributeNumber);
	ExecInitRangeTable(estate, list_make1(rte));
	InitResultRelInfo(rri, rel, 1, NULL, 0);
	ExecOpenIndices(rri, false);
	ExecInsertIndexTuples(rri, slot, estate, true, false, NULL, NIL);
	ExecCloseIndices(rri);
	FreeExecutorState(estate);
}

bool
row_update_allowed(Oid relid)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	bool		ok = plain_update_allowed(rel);

	table_close(rel, NoLock);
	return ok;
}

/* A concurrent change to the row read: retried in READ COMMITTED, an error otherwise. */
static bool
changed_meanwhile(TM_Result res)
{
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent %s",
						res == TM_Deleted ? "delete" : "update")));
	return false;
}

bool
row_update(Oid relid, AttrNumber item_attnum, ItemPointer ctid, Jsonb *item, bool locked)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	TupleTableSlot *oldslot;
	TupleTableSlot *newslot;
	TM_FailureData tmfd;
	LockTupleMode lockmode;
	bool		update_indexes;
	TM_Result	res;

	if (item_attnum < 1 || item_attnum > RelationGetDescr(rel)->natts)
		elog(ERROR, "stdesign: relation %u has no item column %d", relid, (int) item_attnum);
	oldslot = table_slot_create(rel, NULL);
	if (!table_tuple_fetch_row_version(rel, ctid, SnapshotAny, oldslot))
		elog(ERROR, "stdesign: the item's row version is gone");
	newslot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
	fill_new_row(newslot, oldslot, item_attnum, item);

	/* waits for a transaction still writing the row, as an UPDATE does */
	res = table_tuple_update(rel, ctid, newslot, GetCurrentCommandId(true),
							 ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(),
							 InvalidSnapshot, true,
							 &tmfd, &lockmode, &update_indexes);
	if (res == TM_Ok && update_indexes)
		insert_index_entries(rel, item_attnum, newslot);
	ExecDropSingleTupleTableSlot(newslot);
	ExecDropSingleTupleTableSlot(oldslot);
	table_close(rel, NoLock);

	if (res == TM_Ok)
	{
		/* what follows in this transaction sees the new version, as after SPI's UPDATE */
		CommandCounterIncrement();
		return true;
	}
	if (!locked && (res == TM_Updated || res == TM_Deleted))
		return changed_meanwhile(res);
	elog(ERROR, "stdesign: update of %s item failed (%d)", locked ? "a locked" : "an", (int) res);
	return false;				/* not reached */
}
