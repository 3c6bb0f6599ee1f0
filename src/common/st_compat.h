/*-------------------------------------------------------------------------
 *
 * st_compat.h
 *		What differs between the PostgreSQL majors stdesign builds against
 *		(15, 16, 17 and 18), in one place.
 *
 * The sources call the names defined here and hold no version check of
 * their own.  Each guard names the release that made the change.  Where a
 * function was only renamed, the new name is defined for the older
 * releases; where a call changed its shape, an st_ macro (or, for the range
 * table, a function in st_compat.c) takes what every version needs and
 * passes each version what it expects.  The macros name Postgres's
 * functions and types only when expanded: a file that uses one includes
 * the Postgres header that declares what it expands to.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_COMPAT_H
#define ST_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "stdesign needs PostgreSQL 15 or later"
#endif

/*
 * PostgreSQL 18: functions that never return are marked by a prefix,
 * pg_noreturn (C11's _Noreturn), and the postfix pg_attribute_noreturn()
 * is gone.  Before, the GCC attribute does the same at the front.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * PostgreSQL 18: index_beginscan takes the IndexScanInstrumentation that
 * EXPLAIN counts index searches in (none here).
 */
#if PG_VERSION_NUM >= 180000
#define st_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys)
#else
#define st_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan(heap, index, snapshot, nkeys, norderbys)
#endif

/*
 * PostgreSQL 16: table_tuple_update says which indexes need entries for the
 * new version as a TU_UpdateIndexes, no longer a bool: TU_None for a
 * heap-only (HOT) update, TU_Summarizing for a HOT update that still owes
 * the summarizing indexes (BRIN) an entry (16 lets an update that changes
 * only their columns be HOT), TU_All otherwise; and ExecInsertIndexTuples
 * takes onlySummarizing, to insert into those indexes only.  In 15 an
 * update is HOT only when no index at all needs an entry, so there is
 * never an "only summarizing" case and the argument is dropped.  Writing
 * the enum through a bool pointer would overrun it: declare the variable
 * as StUpdateIndexes.
 */
#if PG_VERSION_NUM >= 160000
#define StUpdateIndexes TU_UpdateIndexes
#define st_update_needs_index_entries(u) ((u) != TU_None)
#define st_update_only_summarizing(u) ((u) == TU_Summarizing)
#define st_insert_index_tuples(rri, slot, estate, update, noDupErr, specConflict, arbiters, onlySummarizing) \
	ExecInsertIndexTuples(rri, slot, estate, update, noDupErr, specConflict, arbiters, onlySummarizing)
#else
#define StUpdateIndexes bool
#define st_update_needs_index_entries(u) (u)
#define st_update_only_summarizing(u) false
#define st_insert_index_tuples(rri, slot, estate, update, noDupErr, specConflict, arbiters, onlySummarizing) \
	ExecInsertIndexTuples(rri, slot, estate, update, noDupErr, specConflict, arbiters)
#endif

/*
 * PostgreSQL 18: ExecCheckIndexConstraints takes the TID of the row being
 * updated, to be passed over as no conflict (logical replication's update
 * conflicts); an insert has none (NULL), as INSERT ... ON CONFLICT passes.
 */
#if PG_VERSION_NUM >= 180000
#define st_check_index_constraints(rri, slot, estate, conflictTid, arbiters) \
	ExecCheckIndexConstraints(rri, slot, estate, conflictTid, NULL, arbiters)
#else
#define st_check_index_constraints(rri, slot, estate, conflictTid, arbiters) \
	ExecCheckIndexConstraints(rri, slot, estate, conflictTid, arbiters)
#endif

/*
 * PostgreSQL 16: the columns an UPDATE changes moved from RangeTblEntry
 * (updatedCols) to an RTEPermissionInfo the entry points to, and
 * ExecInitRangeTable takes the list of those; PostgreSQL 18 adds the set
 * of range table entries left after pruning.  st_compat.c: an executor
 * state whose range table is one relation, an update of updated_cols
 * (attribute numbers offset by FirstLowInvalidHeapAttributeNumber).
 */
struct EState;
struct RangeTblEntry;
struct Bitmapset;
extern void st_init_range_table(struct EState *estate, struct RangeTblEntry *rte,
								struct Bitmapset *updated_cols);

/*
 * PostgreSQL 16: object_ownercheck and object_aclcheck take the catalog of
 * the object, in place of one function per catalog (pg_class_ownercheck,
 * pg_namespace_aclcheck).  The caller includes catalog/pg_class.h,
 * catalog/pg_namespace.h or catalog/pg_proc.h.
 */
#if PG_VERSION_NUM >= 160000
#define st_class_ownercheck(relid, roleid) \
	object_ownercheck(RelationRelationId, relid, roleid)
#define st_namespace_aclcheck(nspid, roleid, mode) \
	object_aclcheck(NamespaceRelationId, nspid, roleid, mode)
#define st_proc_aclcheck(procid, roleid, mode) \
	object_aclcheck(ProcedureRelationId, procid, roleid, mode)
#else
#define st_class_ownercheck(relid, roleid) pg_class_ownercheck(relid, roleid)
#define st_namespace_aclcheck(nspid, roleid, mode) pg_namespace_aclcheck(nspid, roleid, mode)
#define st_proc_aclcheck(procid, roleid, mode) pg_proc_aclcheck(procid, roleid, mode)
#endif

/* PostgreSQL 16: relfilenodes are relfilenumbers (the same call, renamed). */
#if PG_VERSION_NUM < 160000
#define RelationSetNewRelfilenumber(rel, persistence) \
	RelationSetNewRelfilenode(rel, persistence)
#endif

/*
 * PostgreSQL 18: lc_collate_is_c is gone; the collation's pg_locale_t says
 * whether it sorts bytewise.  lc_collate_is_c(InvalidOid) was false, and
 * pg_newlocale_from_collation refuses it: tested first.
 */
#if PG_VERSION_NUM >= 180000
#define st_collation_is_c(collid) \
	(OidIsValid(collid) && pg_newlocale_from_collation(collid)->collate_is_c)
#else
#define st_collation_is_c(collid) lc_collate_is_c(collid)
#endif

/*
 * PostgreSQL 17: a WaitEventSet is tracked by a resource owner (NULL: by
 * none, kept until freed) and always allocated in TopMemoryContext; before,
 * the caller named the memory context.  Passing a MemoryContext where 17
 * expects a ResourceOwner would corrupt memory.  A set that lives as long
 * as the process, either way.
 */
#if PG_VERSION_NUM >= 170000
#define st_create_wait_event_set(nevents) CreateWaitEventSet(NULL, nevents)
#else
#define st_create_wait_event_set(nevents) CreateWaitEventSet(TopMemoryContext, nevents)
#endif

/*
 * PostgreSQL 17: PG_TEMP_FILE_PREFIX and PG_TEMP_FILES_DIR moved from
 * storage/fd.h to common/file_utils.h, which every version has: a file
 * that uses them includes both, with no guard.
 */

#endif							/* ST_COMPAT_H */
