/*-------------------------------------------------------------------------
 *
 * tableam.c
 *		The stdesign table access method: item collections stored together.
 *
 * DynamoDB stores the items of one partition (an item collection) together,
 * which is what makes "a customer and their last 20 orders" one cheap Query.
 * A plain heap puts each new row wherever there is room, so orders arriving
 * over time for many customers end up on as many pages as there are orders.
 *
 * This access method is heap in every respect (page format, WAL, MVCC,
 * VACUUM, TOAST, visibility map, logical decoding) except where a new tuple
 * goes.  It takes heap's TableAmRoutine and overrides the insert callbacks:
 * each chooses a target page and hands it to heap through the relation's
 * target block, with HEAP_INSERT_SKIP_FSM so that heap either uses that page
 * or extends the relation, and never wanders off to a page of another
 * partition through the free space map.
 *
 * Placement policy, for a table with `pk` and `sk` columns (a table without
 * a sort key holds one item per partition: it is placed as heap places it):
 *
 *	1. An item of a partition that already has items goes to the page of
 *	   that partition's latest item, when that page has room.  The page is
 *	   found in a per-backend cache (hash of pk -> page), else through the
 *	   table's unique key index (the entry with the highest sort key).
 *	2. The first item of a partition goes to this backend's "dense" page
 *	   while it has room, else to a page the free space map knows to be at
 *	   least half empty, else to a new page.  New partitions are packed with
 *	   no reserve: a partition that never grows costs nothing.
 *	3. An item of a partition whose page is full (a partition that grows)
 *	   goes to this backend's "collection" page while that page is at most
 *	   ST_COLLECTION_FILL_PERCENT full, else to a new page, which becomes the
 *	   collection page.  A collection page is thus shared by few growing
 *	   partitions, and each has room there for its next ~10 items.
 *
 * The space cost is in rule 3: a collection page whose partitions stop
 * growing early stays partly empty (worst case, partitions of exactly two
 * items arriving interleaved: such pages hold ~10% of a page each).  Rows
 * inserted in key order, and partitions of one item, are packed as densely
 * as heap packs them.  The table's fillfactor applies on top, as in heap
 * (room kept for updates).  CLUSTER on the key index rewrites the table
 * packed and in key order.
 *
 * Pitfalls of building on heap, and how they are handled:
 *	- the TOAST table must be a heap (relation_toast_am returns heap);
 *	- heap_getnext() refuses any relation whose rd_tableam is not heap's own
 *	  routine, and heap's index build and validate scans use it, so those
 *	  two callbacks run heap's code with heap's routine lent to the
 *	  relation, lent again after any relcache rebuild of it meanwhile;
 *	- table rewrites that insert row by row (ALTER TABLE ... SET ACCESS
 *	  METHOD, column type changes) go through the insert callbacks with a
 *	  BulkInsertState, whose current buffer heap prefers to the target block:
 *	  its pin is released before each placed insert.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_index.h"
#include "nodes/primnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/freespace.h"
#include "utils/datum.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"

#include "common/st_common.h"
#include "tableam.h"
#include "common/st_inval.h"

/* heap's routine, and ours: a copy of it with a few callbacks replaced. */
static const TableAmRoutine *heap_routine = NULL;
static TableAmRoutine st_routine;

/*
 * Per-backend placement state of one relation, kept in rd_amcache: one
 * palloc'd chunk, freed by any relcache invalidation of the relation (it is
 * only a cache: every block it names is checked before use).
 */
typedef struct StKeyInfo
{
	AttrNumber	pk_attnum;		/* 0: no placement, behave as heap */
	Oid			key_index;		/* unique btree led by the partition key */
	Oid			key_func;		/* its first column is key_func(pk), or pk */
	Oid			key_func_coll;
	Oid			key_coll;
	RegProcedure key_eq;		/* equality of the index's first column */
} StKeyInfo;

typedef struct StPlacement
{
	StKeyInfo	key;
	BlockNumber dense_block;	/* where new partitions go */
	BlockNumber collect_block;	/* where partitions that outgrew a page go */
	BlockNumber nblocks;		/* the relation's size when last looked at */
	uint32		slot_hash[ST_PLACEMENT_SLOTS];
	BlockNumber slot_block[ST_PLACEMENT_SLOTS];
} StPlacement;

/* What a placement decided, to learn from where heap put the tuple. */
typedef enum StPlaceKind
{
	ST_PLACE_HEAP,				/* no placement: heap's own choice */
	ST_PLACE_FOLLOW,			/* next to the partition's items */
	ST_PLACE_DENSE,				/* first item of a partition */
	ST_PLACE_COLLECT			/* a partition that outgrew its page */
} StPlaceKind;

typedef struct StPlace
{
	StPlaceKind kind;
	uint32		hash;
	BlockNumber target;			/* InvalidBlockNumber: heap's last page */
} StPlace;

/* ---------- per-relation state ---------- */

/*
 * The unique btree whose first column is the partition key (or an
 * immutable function of it, as stdesign.key_ix(pk)), to find an existing
 * item of a partition the cache does not know.
 */
static void
find_key_index(Relation rel, StKeyInfo *pl)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	ind = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index form = ind->rd_index;
		Oid			func = InvalidOid;
		Oid			func_coll = InvalidOid;
		bool		usable = false;

		if (form->indisunique && form->indisvalid && form->indnkeyatts >= 1 &&
			ind->rd_rel->relam == BTREE_AM_OID &&
			heap_attisnull(ind->rd_indextuple, Anum_pg_index_indpred, NULL))
		{
			if (form->indkey.values[0] == pl->pk_attnum)
				usable = true;
			else if (form->indkey.values[0] == 0)
			{
				List	   *exprs = RelationGetIndexExpressions(ind);
				Node	   *first = exprs ? linitial(exprs) : NULL;

				if (first && IsA(first, FuncExpr) &&
					list_length(((FuncExpr *) first)->args) == 1)
				{
					Node	   *arg = linitial(((FuncExpr *) first)->args);

					if (IsA(arg, Var) && ((Var *) arg)->varattno == pl->pk_attnum)
					{
						func = ((FuncExpr *) first)->funcid;
						func_coll = ((FuncExpr *) first)->inputcollid;
						usable = true;
					}
				}
			}
		}
		if (usable)
		{
			Oid			op = get_opfamily_member(ind->rd_opfamily[0],
												 ind->rd_opcintype[0],
												 ind->rd_opcintype[0],
												 BTEqualStrategyNumber);

			if (OidIsValid(op))
			{
				pl->key_index = RelationGetRelid(ind);
				pl->key_func = func;
				pl->key_func_coll = func_coll;
				pl->key_coll = ind->rd_indcollation[0];
				pl->key_eq = get_opcode(op);
			}
		}
		index_close(ind, AccessShareLock);
		if (OidIsValid(pl->key_index))
			break;
	}
	list_free(indexes);
}

/*
 * The relation's placement state, built on first use.  Building it opens
 * indexes, which can process invalidations and reset rd_amcache: the state
 * is built in a local copy and attached at the end, and callers fetch it
 * again after anything that may take a lock.
 */
static StPlacement *
get_placement(Relation rel)
{
	StKeyInfo	key;
	StPlacement *pl;
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	sk_attnum = 0;

	if (rel->rd_amcache)
		return (StPlacement *) rel->rd_amcache;

	memset(&key, 0, sizeof(key));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (strcmp(NameStr(att->attname), "pk") == 0)
			key.pk_attnum = att->attnum;
		else if (strcmp(NameStr(att->attname), "sk") == 0)
			sk_attnum = att->attnum;
	}
	/* One item per partition (no sort key): nothing to keep together. */
	if (sk_attnum == 0)
		key.pk_attnum = 0;
	if (key.pk_attnum != 0)
		find_key_index(rel, &key);

	pl = MemoryContextAlloc(CacheMemoryContext, sizeof(StPlacement));
	pl->key = key;
	pl->dense_block = InvalidBlockNumber;
	pl->collect_block = InvalidBlockNumber;
	pl->nblocks = InvalidBlockNumber;
	memset(pl->slot_hash, 0, sizeof(pl->slot_hash));
	memset(pl->slot_block, 0xFF, sizeof(pl->slot_block));	/* InvalidBlockNumber */
	if (rel->rd_amcache)
		pfree(rel->rd_amcache);
	rel->rd_amcache = pl;
	return pl;
}

/*
 * The cache is 4-way set associative, most recently used first in its set:
 * a direct-mapped one loses a third of 3,000 partitions to collisions, and
 * each lost partition costs an index probe on its next item.
 */
#define ST_PLACEMENT_WAYS	4

static BlockNumber
cache_get(StPlacement *pl, uint32 hash)
{
	int			set = (hash % (ST_PLACEMENT_SLOTS / ST_PLACEMENT_WAYS)) * ST_PLACEMENT_WAYS;

	for (int i = set; i < set + ST_PLACEMENT_WAYS; i++)
		if (pl->slot_hash[i] == hash)
			return pl->slot_block[i];
	return InvalidBlockNumber;
}

static void
cache_put(StPlacement *pl, uint32 hash, BlockNumber blk)
{
	int			set = (hash % (ST_PLACEMENT_SLOTS / ST_PLACEMENT_WAYS)) * ST_PLACEMENT_WAYS;
	int			i;

	/* the entry itself, or else the least recently used one, moves to the front */
	for (i = set; i < set + ST_PLACEMENT_WAYS - 1; i++)
		if (pl->slot_hash[i] == hash)
			break;
	for (; i > set; i--)
	{
		pl->slot_hash[i] = pl->slot_hash[i - 1];
		pl->slot_block[i] = pl->slot_block[i - 1];
	}
	pl->slot_hash[set] = hash;
	pl->slot_block[set] = blk;
}

/*
 * The partition's newest page, through the key index, or InvalidBlockNumber:
 * the highest block number among the partition's entries (the relation
 * grows at its end, so that is where its latest items went; the entry with
 * the highest sort key is not: items do not arrive in sort-key order).  At
 * most ST_PROBE_ENTRIES entries are looked at.  Any index entry will do,
 * dead or not (it is only a hint), so the scan uses SnapshotAny and reads no
 * heap page.
 */
#define ST_PROBE_ENTRIES 256

static BlockNumber
probe_partition(Relation rel, Datum pk)
{
	StKeyInfo	info = get_placement(rel)->key;
	Relation	ind;
	IndexScanDesc scan;
	ScanKeyData key;
	ItemPointer tid;
	BlockNumber blk = InvalidBlockNumber;
	Datum		value;

	if (!OidIsValid(info.key_index))
		return InvalidBlockNumber;
	value = OidIsValid(info.key_func) ?
		OidFunctionCall1Coll(info.key_func, info.key_func_coll, pk) : pk;
	ind = index_open(info.key_index, AccessShareLock);
	ScanKeyEntryInitialize(&key, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   info.key_coll, info.key_eq, value);
	scan = st_index_beginscan(rel, ind, SnapshotAny, 1, 0);
	index_rescan(scan, &key, 1, NULL, 0);
	for (int n = 0; n < ST_PROBE_ENTRIES &&
		 (tid = index_getnext_tid(scan, BackwardScanDirection)) != NULL; n++)
	{
		BlockNumber b = ItemPointerGetBlockNumber(tid);

		if (blk == InvalidBlockNumber || b > blk)
			blk = b;
	}
	index_endscan(scan);
	index_close(ind, AccessShareLock);
	return blk;
}

/* ---------- pages ---------- */

/*
 * Is `blk` a block of the relation?  The relation's size is asked of the
 * kernel only when needed: it grows (by any backend) past what we saw, or it
 * may have shrunk.  Only VACUUM shrinks a relation, under a lock no insert
 * can hold meanwhile, and its smgr invalidation resets the relation's target
 * block, which every placed insert sets: an unset target block means "look
 * again".
 */
static bool
block_exists(Relation rel, StPlacement *pl, BlockNumber blk)
{
	if (blk == InvalidBlockNumber)
		return false;
	if (pl->nblocks == InvalidBlockNumber || blk >= pl->nblocks ||
		RelationGetTargetBlock(rel) == InvalidBlockNumber)
		pl->nblocks = RelationGetNumberOfBlocks(rel);
	return blk < pl->nblocks;
}

/* Free space heap would see on a page; a never-initialised page counts as full. */
static Size
page_free_space(Relation rel, BlockNumber blk)
{
	Buffer		buf = ReadBuffer(rel, blk);
	Page		page;
	Size		free_space;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	free_space = PageIsNew(page) ? 0 : PageGetHeapFreeSpace(page);
	UnlockReleaseBuffer(buf);
	return free_space;
}

/* The space heap will ask of a page for this tuple (as hio.c computes it). */
static Size
space_needed(Relation rel, Size len)
{
	Size		save = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);

	/* A tuple that heap will TOAST shrinks to about TOAST_TUPLE_TARGET. */
	if (len > TOAST_TUPLE_THRESHOLD)
		len = TOAST_TUPLE_TARGET;
	len = MAXALIGN(len);
	if (len + save > MaxHeapTupleSize)
		return len;
	return len + save;
}

/*
 * Does a collection page still take a partition that outgrew its page?  Only
 * while, with this tuple, it stays at most ST_COLLECTION_FILL_PERCENT full.
 */
static bool
collection_admits(Size free_space, Size need)
{
	Size		usable = BLCKSZ - SizeOfPageHeaderData;
	Size		used = usable - Min(free_space, usable);

	return free_space >= need &&
		(used + need + sizeof(ItemIdData)) * 100 <= usable * ST_COLLECTION_FILL_PERCENT;
}

/* ---------- placement ---------- */

static uint32
slot_pk_hash(Relation rel, TupleTableSlot *slot, AttrNumber attnum, Datum *pk)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
	bool		isnull;
	uint32		hash;

	*pk = slot_getattr(slot, attnum, &isnull);
	if (isnull)
		return 0;
	hash = datum_image_hash(*pk, att->attbyval, att->attlen);
	/* 0 marks an empty cache slot */
	return hash ? hash : 1;
}

/* A page for the first item of a partition (rule 2). */
static BlockNumber
choose_dense(Relation rel, StPlacement *pl, Size need)
{
	BlockNumber blk = pl->dense_block;

	if (block_exists(rel, pl, blk) && page_free_space(rel, blk) >= need)
		return blk;

	/* A page that VACUUM found mostly empty starts a new run of partitions. */
	blk = GetPageWithFreeSpace(rel, Max(need, BLCKSZ / 2));
	if (block_exists(rel, pl, blk) && page_free_space(rel, blk) >= need)
		return blk;

	/*
	 * Else a new page: pointing heap at a full page, without the free space
	 * map, makes it extend the relation.  With no full page known, heap tries
	 * the relation's last page first.
	 */
	if (block_exists(rel, pl, pl->dense_block))
		return pl->dense_block;
	return InvalidBlockNumber;
}

/* Decide where the tuple in `slot` goes. */
static StPlace
place_tuple(Relation rel, TupleTableSlot *slot)
{
	StPlace		place = {ST_PLACE_HEAP, 0, InvalidBlockNumber};
	StPlacement *pl = get_placement(rel);
	AttrNumber	pk_attnum = pl->key.pk_attnum;
	BlockNumber blk;
	Datum		pk;
	Size		need;
	Size		free_space;
	bool		should_free;
	HeapTuple	tuple;

	if (pk_attnum == 0)
		return place;
	place.hash = slot_pk_hash(rel, slot, pk_attnum, &pk);
	if (place.hash == 0)
		return place;

	/* Heap's insert fetches the same (materialised) tuple again: no copy. */
	tuple = ExecFetchSlotHeapTuple(slot, true, &should_free);
	need = space_needed(rel, tuple->t_len);
	if (should_free)
		heap_freetuple(tuple);

	blk = cache_get(pl, place.hash);
	if (blk == InvalidBlockNumber)
	{
		blk = probe_partition(rel, pk);
		pl = get_placement(rel);	/* the probe may have reset it */
	}

	if (!block_exists(rel, pl, blk))
	{
		place.kind = ST_PLACE_DENSE;
		place.target = choose_dense(rel, pl, need);
		return place;
	}

	free_space = page_free_space(rel, blk);
	if (free_space >= need)
	{
		place.kind = ST_PLACE_FOLLOW;
		place.target = blk;
		return place;
	}

	place.kind = ST_PLACE_COLLECT;
	if (pl->collect_block != blk && block_exists(rel, pl, pl->collect_block) &&
		collection_admits(page_free_space(rel, pl->collect_block), need))
		place.target = pl->collect_block;
	else
		place.target = blk;		/* full: heap extends the relation */
	return place;
}

/* Point heap at the chosen page for its next insert. */
static void
aim(Relation rel, const StPlace *place, struct BulkInsertStateData *bistate)
{
	/* heap prefers the bulk-insert buffer to the target block: drop it */
	if (bistate)
		ReleaseBulkInsertStatePin(bistate);
	RelationSetTargetBlock(rel, place->target);
}

/* Remember where heap put the tuple. */
static void
learn(Relation rel, const StPlace *place, TupleTableSlot *slot)
{
	StPlacement *pl;
	BlockNumber blk;

	if (place->kind == ST_PLACE_HEAP || !ItemPointerIsValid(&slot->tts_tid))
		return;
	pl = get_placement(rel);
	blk = ItemPointerGetBlockNumber(&slot->tts_tid);
	if (pl->nblocks == InvalidBlockNumber || blk >= pl->nblocks)
		pl->nblocks = blk + 1;
	cache_put(pl, place->hash, blk);
	if (place->kind == ST_PLACE_DENSE)
		pl->dense_block = blk;
	else if (place->kind == ST_PLACE_COLLECT)
		pl->collect_block = blk;
}

/* ---------- insert callbacks ---------- */

static void
st_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				int options, struct BulkInsertStateData *bistate)
{
	StPlace		place = place_tuple(rel, slot);

	if (place.kind == ST_PLACE_HEAP)
	{
		heap_routine->tuple_insert(rel, slot, cid, options, bistate);
		return;
	}
	aim(rel, &place, bistate);
	heap_routine->tuple_insert(rel, slot, cid, options | HEAP_INSERT_SKIP_FSM, bistate);
	learn(rel, &place, slot);
}

static void
st_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid,
							int options, struct BulkInsertStateData *bistate,
							uint32 specToken)
{
	StPlace		place = place_tuple(rel, slot);

	if (place.kind == ST_PLACE_HEAP)
	{
		heap_routine->tuple_insert_speculative(rel, slot, cid, options, bistate, specToken);
		return;
	}
	aim(rel, &place, bistate);
	heap_routine->tuple_insert_speculative(rel, slot, cid, options | HEAP_INSERT_SKIP_FSM,
										   bistate, specToken);
	learn(rel, &place, slot);
}

/*
 * COPY's batches: items of partitions that already have a page are placed
 * one by one; first items of partitions are handed to heap's multi-insert
 * together, on this backend's dense page, so that a batch of new partitions
 * (a load in key order, a restore) is written as heap would write it, with
 * each partition's rows side by side.
 */
static void
st_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
				CommandId cid, int options, struct BulkInsertStateData *bistate)
{
	StPlacement *pl = get_placement(rel);
	TupleTableSlot **dense;
	uint32	   *dense_hash;
	int			ndense = 0;
	StPlace		place = {ST_PLACE_HEAP, 0, InvalidBlockNumber};

	if (pl->key.pk_attnum == 0)
	{
		heap_routine->multi_insert(rel, slots, nslots, cid, options, bistate);
		return;
	}

	dense = palloc(sizeof(TupleTableSlot *) * nslots);
	dense_hash = palloc(sizeof(uint32) * nslots);
	for (int i = 0; i < nslots; i++)
	{
		bool		pending = false;
		Datum		pk;
		uint32		hash;

		/* A partition whose first rows wait in this batch joins them. */
		pl = get_placement(rel);
		hash = slot_pk_hash(rel, slots[i], pl->key.pk_attnum, &pk);
		for (int j = ndense - 1; j >= 0 && !pending; j--)
			pending = dense_hash[j] == hash;
		if (!pending)
		{
			place = place_tuple(rel, slots[i]);
			pending = place.kind == ST_PLACE_DENSE || place.kind == ST_PLACE_HEAP;
		}
		if (pending)
		{
			dense_hash[ndense] = hash;
			dense[ndense++] = slots[i];
			continue;
		}
		aim(rel, &place, bistate);
		heap_routine->tuple_insert(rel, slots[i], cid, options | HEAP_INSERT_SKIP_FSM, bistate);
		learn(rel, &place, slots[i]);
	}

	if (ndense > 0)
	{
		Size		need = space_needed(rel, 0);

		pl = get_placement(rel);
		place.kind = ST_PLACE_DENSE;
		place.target = choose_dense(rel, pl, need);
		aim(rel, &place, bistate);
		heap_routine->multi_insert(rel, dense, ndense, cid, options | HEAP_INSERT_SKIP_FSM,
								   bistate);
		for (int i = 0; i < ndense; i++)
		{
			place.hash = dense_hash[i];
			if (place.hash != 0)
				learn(rel, &place, dense[i]);
		}
	}
	pfree(dense);
	pfree(dense_hash);
}

/* ---------- heap's scans that insist on heap's routine ---------- */

/*
 * heap_getnext() refuses a relation whose rd_tableam is not heap's own
 * routine, and heap's index build and validate scans call it: while they
 * run, the relation is lent heap's routine (only the placement of inserts
 * differs, and a build inserts nothing into the table).  A relcache
 * invalidation of the relation meanwhile (a GRANT, a concurrent index
 * build's catalog updates, a cache reset) rebuilds the entry in place and
 * with it rd_tableam, from this AM's handler: the relcache callback below
 * lends heap's routine again, before the scan can read another tuple.  The
 * relations being scanned are kept on a small stack (scans nest only if an
 * index expression builds an index).
 */
#define ST_MAX_LENT 8

static Relation lent[ST_MAX_LENT];
static int	nlent = 0;

static void
lend_again_after_rebuild(Datum arg, Oid relid)
{
	for (int i = 0; i < nlent; i++)
		if (!OidIsValid(relid) || RelationGetRelid(lent[i]) == relid)
			lent[i]->rd_tableam = heap_routine;
}

static void
lend_heap_routine(Relation rel)
{
	if (nlent >= ST_MAX_LENT)
		st_internal_error("too many nested index builds of stdesign tables");
	lent[nlent++] = rel;
	rel->rd_tableam = heap_routine;
}

/* The scan is over (or failed): the relation gets its own routine back. */
static void
return_heap_routine(Relation rel)
{
	Assert(nlent > 0 && lent[nlent - 1] == rel);
	nlent--;
	rel->rd_tableam = &st_routine;
}

/* The entries of the next build of one index, when its rows' writer has them. */
static Oid	feed_index = InvalidOid;
static StIndexBuildFeed feed_func = NULL;
static void *feed_arg = NULL;

void
st_tableam_build_feed(Oid index, StIndexBuildFeed feed, void *arg)
{
	feed_index = index;
	feed_func = feed;
	feed_arg = arg;
}

static double
st_index_build_range_scan(Relation table_rel, Relation index_rel,
						  struct IndexInfo *index_info, bool allow_sync,
						  bool anyvisible, bool progress,
						  BlockNumber start_blockno, BlockNumber numblocks,
						  IndexBuildCallback callback, void *callback_state,
						  TableScanDesc scan)
{
	volatile double result = 0;

	/* a whole (not parallel, not partial) build of the index fed: no scan */
	if (OidIsValid(feed_index) && RelationGetRelid(index_rel) == feed_index &&
		scan == NULL && start_blockno == 0 && numblocks == InvalidBlockNumber)
		return feed_func(index_rel, callback, callback_state, feed_arg);

	lend_heap_routine(table_rel);
	PG_TRY();
	{
		result = heap_routine->index_build_range_scan(table_rel, index_rel, index_info,
													  allow_sync, anyvisible, progress,
													  start_blockno, numblocks,
													  callback, callback_state, scan);
	}
	PG_FINALLY();
	{
		return_heap_routine(table_rel);
	}
	PG_END_TRY();
	return result;
}

static void
st_index_validate_scan(Relation table_rel, Relation index_rel,
					   struct IndexInfo *index_info, Snapshot snapshot,
					   struct ValidateIndexState *state)
{
	lend_heap_routine(table_rel);
	PG_TRY();
	{
		heap_routine->index_validate_scan(table_rel, index_rel, index_info,
										  snapshot, state);
	}
	PG_FINALLY();
	{
		return_heap_routine(table_rel);
	}
	PG_END_TRY();
}

/* TOAST tables of stdesign tables are plain heaps. */
static Oid
st_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/* ---------- handler ---------- */

PG_FUNCTION_INFO_V1(st_tableam_handler);

Datum
st_tableam_handler(PG_FUNCTION_ARGS)
{
	if (heap_routine == NULL)
	{
		const TableAmRoutine *heap = GetHeapamTableAmRoutine();

		st_routine = *heap;
		st_routine.tuple_insert = st_tuple_insert;
		st_routine.tuple_insert_speculative = st_tuple_insert_speculative;
		st_routine.multi_insert = st_multi_insert;
		st_routine.index_build_range_scan = st_index_build_range_scan;
		st_routine.index_validate_scan = st_index_validate_scan;
		st_routine.relation_toast_am = st_relation_toast_am;
		st_relcache_callback(lend_again_after_rebuild, (Datum) 0);
		heap_routine = heap;
	}
	PG_RETURN_POINTER(&st_routine);
}
