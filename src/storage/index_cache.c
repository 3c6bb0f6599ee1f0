/*-------------------------------------------------------------------------
 *
 * index_cache.c
 *		IndexInfos of item relations, kept per backend.
 *
 * A write without an executor (row_write.c) opens the relation's indexes
 * as the executor does for each statement: ExecOpenIndices builds an
 * IndexInfo per index (reading its expressions and predicate from the
 * catalog), and the first row written plans and compiles those expressions
 * (the GSIs are partial expression indexes over item).  For a one-item
 * write that was a tenth of the work.  Here the IndexInfos, with their
 * expressions and predicates compiled, are built once per relation and
 * backend, in a context of their own, and used again while the relation's
 * list of indexes is unchanged.  An index's definition never changes under
 * its OID (a new definition is a new index, and REINDEX CONCURRENTLY
 * swaps in a new OID); a relcache invalidation of the relation, which
 * creating or dropping an index sends, drops the entry as well.
 *
 * The compiled expressions are evaluated in the caller's executor state
 * (its per-tuple context), as FormIndexDatum and ExecInsertIndexTuples do
 * with the ones they prepare themselves.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "catalog/index.h"
#include "executor/executor.h"
#include "optimizer/optimizer.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "index_cache.h"
#include "common/st_inval.h"

typedef struct IndexCacheEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	int			n;
	Oid		   *oids;			/* RelationGetIndexList's order */
	IndexInfo **infos;
	MemoryContext cxt;			/* all of the above but the entry */
} IndexCacheEntry;

static HTAB *index_cache = NULL;

static void
index_cache_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	IndexCacheEntry *e;

	hash_seq_init(&seq, index_cache);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (relid == InvalidOid || e->relid == relid)
			e->valid = false;
}

static HTAB *
cache_table(void)
{
	HASHCTL		ctl;

	if (index_cache)
		return index_cache;
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(IndexCacheEntry);
	ctl.hcxt = CacheMemoryContext;
	index_cache = hash_create("stdesign index infos", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	st_relcache_callback(index_cache_invalidate, (Datum) 0);
	return index_cache;
}

/* Does the entry describe exactly these indexes, in this order? */
static bool
entry_matches(IndexCacheEntry *e, List *oids)
{
	int			i = 0;
	ListCell   *lc;

	if (!e->valid || e->n != list_length(oids))
		return false;
	foreach(lc, oids)
		if (e->oids[i++] != lfirst_oid(lc))
			return false;
	return true;
}

/* An IndexInfo, its expressions and predicate compiled, in CurrentMemoryContext. */
static IndexInfo *
prepared_index_info(Relation index)
{
	IndexInfo  *ii = BuildIndexInfo(index);
	ListCell   *lc;

	if (ii->ii_Unique)
		BuildSpeculativeIndexInfo(index, ii);
	foreach(lc, ii->ii_Expressions)
		ii->ii_ExpressionsState = lappend(ii->ii_ExpressionsState,
										  ExecInitExpr(expression_planner((Expr *) lfirst(lc)), NULL));
	if (ii->ii_Predicate != NIL)
		ii->ii_PredicateState = ExecInitQual((List *) expression_planner((Expr *) ii->ii_Predicate),
											 NULL);
	return ii;
}

/*
 * Forget the entries of relations dropped since: their invalidation only
 * marked them.  (Called when an entry is rebuilt, which is rare; no entry
 * of a dropped relation can be in use.)
 */
static void
forget_dropped(void)
{
	HASH_SEQ_STATUS seq;
	IndexCacheEntry *e;

	hash_seq_init(&seq, index_cache);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (e->valid || SearchSysCacheExists1(RELOID, ObjectIdGetDatum(e->relid)))
			continue;
		if (e->cxt)
			MemoryContextDelete(e->cxt);
		hash_search(index_cache, &e->relid, HASH_REMOVE, NULL);
	}
}

/* Build the entry for the opened indexes (built aside, installed whole). */
static void
entry_build(IndexCacheEntry *e, Relation *indexes, List *oids)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign index infos",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int			n = list_length(oids);
	Oid		   *oid_array = palloc(sizeof(Oid) * Max(1, n));
	IndexInfo **infos = palloc(sizeof(IndexInfo *) * Max(1, n));

	for (int i = 0; i < n; i++)
	{
		oid_array[i] = list_nth_oid(oids, i);
		infos[i] = prepared_index_info(indexes[i]);
	}
	MemoryContextSwitchTo(old);

	MemoryContextSetParent(cxt, CacheMemoryContext);
	if (e->cxt)
		MemoryContextDelete(e->cxt);
	e->cxt = cxt;
	e->n = n;
	e->oids = oid_array;
	e->infos = infos;
	e->valid = true;
}

void
storage_index_cache_open(ResultRelInfo *rri)
{
	Relation	rel = rri->ri_RelationDesc;
	List	   *oids;
	IndexCacheEntry *e;
	Relation   *indexes;
	IndexInfo **infos;
	Oid			relid = RelationGetRelid(rel);
	bool		found;
	int			n;
	int			i = 0;
	ListCell   *lc;

	rri->ri_NumIndices = 0;
	if (!RelationGetForm(rel)->relhasindex)
		return;
	oids = RelationGetIndexList(rel);
	n = list_length(oids);
	if (n == 0)
		return;

	indexes = palloc(sizeof(Relation) * n);
	infos = palloc(sizeof(IndexInfo *) * n);
	foreach(lc, oids)
		indexes[i++] = index_open(lfirst_oid(lc), RowExclusiveLock);

	e = hash_search(cache_table(), &relid, HASH_ENTER, &found);
	if (!found)
	{
		e->valid = false;
		e->n = 0;
		e->cxt = NULL;
	}
	if (!entry_matches(e, oids))
	{
		e->valid = false;
		entry_build(e, indexes, oids);
		forget_dropped();
	}
	for (i = 0; i < n; i++)
	{
		/*
		 * What an index AM keeps for a statement (GIN's and BRIN's insert
		 * state, which point at the opened index) lives and dies with this
		 * call, as with an IndexInfo built for it.
		 */
		infos[i] = e->infos[i];
		infos[i]->ii_AmCache = NULL;
		infos[i]->ii_Context = CurrentMemoryContext;
	}

	rri->ri_NumIndices = n;
	rri->ri_IndexRelationDescs = indexes;
	rri->ri_IndexRelationInfo = infos;
	list_free(oids);
}
