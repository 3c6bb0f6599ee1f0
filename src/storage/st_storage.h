/*-------------------------------------------------------------------------
 *
 * storage.h
 *		Where items live: one relation per table, (pk, sk) generated from the
 *		typed item, a unique btree on the key, and one partial expression
 *		btree per secondary index.  Every read and write goes through plans
 *		prepared once per backend and table (see catalog.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STORAGE_H
#define ST_STORAGE_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "storage/itemptr.h"
#include "utils/jsonb.h"

#include "catalog/st_catalog.h"

/* A bound on the sort key of a query. */
typedef enum StBoundKind
{
	ST_BOUND_NONE = 0,
	ST_BOUND_INCLUSIVE = 1,
	ST_BOUND_EXCLUSIVE = 2
} StBoundKind;

/* A primary key (or an index key) as Datums of the key columns' types. */
typedef struct StKey
{
	Datum		pk;
	Datum		sk;				/* unused when the key space has no sort key */
} StKey;

/*
 * A position in a key space's order, to resume after (ExclusiveStartKey):
 * the index's keys (for an index) and the table's keys, as Datums of the
 * key columns' types.  Index order breaks ties between items with equal
 * index keys by the table key, so a position is exact.
 */
typedef struct StPosition
{
	Datum		index_pk;
	Datum		index_sk;
	Datum		table_pk;
	Datum		table_sk;
	const Av   *key;			/* a multi-attribute GSI's: the key map itself (typed) */
} StPosition;

/* A query over one partition of the table or of an index. */
typedef struct StQueryRange
{
	Datum		pk;
	StBoundKind lower_kind;
	Datum		lower;
	StBoundKind upper_kind;
	Datum		upper;
	bool		backward;
	int64		limit;			/* rows to read at most, or -1 */
	const StPosition *start;	/* resume after this position, or NULL */

	/*
	 * A multi-attribute GSI (catalog.h): multi_eq, the values its HASH
	 * attributes and its first multi_neq RANGE attributes equal (a map,
	 * typed); the bounds are then on RANGE attribute multi_neq, and pk is
	 * unused.
	 */
	const Av   *multi_eq;
	int			multi_neq;
} StQueryRange;

/* A scan of a whole table or index. */
typedef struct StScanRange
{
	int64		limit;			/* rows to read at most, or -1 */
	const StPosition *start;	/* resume after this position, or NULL */
	int			segment;		/* this segment of total_segments (0 of 1: all) */
	int			total_segments;
} StScanRange;

/* Called for each row a query reads, in the caller's memory context; return false to stop. */
typedef bool (*StRowCallback) (Jsonb *item, void *arg);

/* The btree key of a partition-key value's bytes (stdesign.key_ix). */
extern bytea *st_key_ix(const char *data, int len);

/* DDL: the relation of a new table, a secondary index, and dropping them. */
extern void storage_create_relation(const char *relname, const char *key_index,
									const StKeyDef *pk, const StKeyDef *sk);
extern void storage_create_index(const char *relname, const char *index_relname,
								 int npk, int nsk, const StKeyDef *keys,
								 const StKeyDef *table_pk, const StKeyDef *table_sk);
extern void storage_drop_index(const char *index_relname);
/*
 * Time to live's index over an attribute's expiry (see storage_expired_items),
 * in STORAGE_TTL_SHARDS shards of the key (stdesign.ttl_shard).
 */
#define STORAGE_TTL_SHARDS 16
extern void storage_create_ttl_index(const char *relname, const char *index_relname,
									 const char *attribute, bool has_sk);
extern bool storage_is_ttl_index(Oid relid, const char *index_relname, const char *attribute,
								 bool has_sk);
/* Whether no relation of the data schema has this name. */
extern bool storage_name_free(const char *relname);
extern void storage_drop_relation(const char *relname);

/* The partial-index predicate of an index's key attributes, as SQL over item. */
extern char *storage_index_predicate(const StKeyDef *pk, const StKeyDef *sk);
/* The same for an index's key attributes (StIndex.keys: npk HASH, then nsk RANGE). */
extern char *storage_index_keys_predicate(int npk, int nsk, const StKeyDef *keys);

/* The Postgres type of a key column for a key type. */
extern Oid	storage_key_typoid(AvType type);

/* A key value (S, N or B Av) as a Datum of its key column's type. */
extern Datum storage_key_datum(const Av *value);

/* Item access by primary key. */
/* No privilege or row security stands in the way of reading the relation directly. */
extern bool storage_direct_ok(Oid relid, AclMode mode);

/*
 * Postgres's own error when the transaction is read-only (a hot standby's
 * are), as for the SQL command cmdname: before any write, or any read made
 * to write.
 */
extern void storage_prevent_write(const char *cmdname);

/* The user holds the privileges on the relation, or the usual "permission denied" error. */
extern void storage_require_privilege(StTable *t, AclMode mode);

extern Jsonb *storage_get(StTable *t, const StKey *key);
extern Jsonb *storage_get_for_update(StTable *t, const StKey *key, ItemPointer ctid);
extern void storage_upsert(StTable *t, Jsonb *item);
/*
 * Put items[0..n-1] (distinct keys, in key order: locks are taken in that
 * order), each replacing the item with its key.  *probe: look for an
 * existing item before inserting each (see storage_row_upsert_many); a caller
 * writing many chunks passes the same flag each time.
 */
extern void storage_upsert_many(StTable *t, Jsonb **items, int n, bool *probe);
/*
 * Insert items[0..n-1] (distinct keys, in key order) that no item of the
 * table has (a load into an empty table): written as COPY writes rows, a
 * key that exists after all (written meanwhile by another transaction)
 * failing with a unique violation.  False, having written nothing, when
 * the table is not written directly (user triggers, row security, rules,
 * Citus...): the caller writes them with storage_upsert_many.
 */
extern bool storage_insert_new_many(StTable *t, Jsonb **items, int n);
/*
 * A load of new keys in chunks (as storage_insert_new_many's), the indexes
 * built at the end when no other transaction uses the table, else their
 * entries sorted and inserted in index order at the end (see row_write.c):
 * NULL when the table is not written directly.  Until storage_load_end
 * the rows are in the table but not in its indexes: nothing may read them.
 * When storage_load_dedupes says so, a key may be loaded twice (the later
 * row replaces the earlier); otherwise each key only once.
 */
typedef struct StRowLoader StStorageLoad;
extern StStorageLoad *storage_load_begin(StTable *t);
extern void storage_load(StStorageLoad *l, Jsonb **items, int n);
extern bool storage_load_dedupes(StStorageLoad *l);
extern void storage_load_end(StTable *t, StStorageLoad *l);
/*
 * Has the table no item (no entry in its key index, of any transaction,
 * live or dead)?  False also when that cannot be told directly.
 */
extern bool storage_table_is_empty(StTable *t);
/* Insert a new item; false when its key exists.  Fills *ctid (when given) with the new row's. */
extern bool storage_insert(StTable *t, Jsonb *item, ItemPointer ctid);
/*
 * Replace the locked item at ctid; false when a rewrite rule of the
 * relation kept the UPDATE from writing it (DO INSTEAD NOTHING).
 */
extern bool storage_replace(StTable *t, ItemPointer ctid, Jsonb *item);

/*
 * Optimistic replacement, for a write that reads an item and replaces it:
 * read the latest version without locking it (storage_get_latest), then
 * replace it only if it is still the latest (storage_replace_unlocked:
 * false when another transaction changed it meanwhile, in READ COMMITTED;
 * a serialization failure otherwise).  An UPDATE statement takes no more
 * locks than that; a locking read costs a WAL record of its own.  Only
 * where storage_can_replace_unlocked says so (see row_write.h).
 */
extern bool storage_can_replace_unlocked(StTable *t);
extern Jsonb *storage_get_latest(StTable *t, const StKey *key, ItemPointer ctid);
extern bool storage_replace_unlocked(StTable *t, ItemPointer ctid, Jsonb *item);
/* Delete the locked item at ctid, whose key is key (by which a distributed table deletes it). */
extern void storage_delete_ctid(StTable *t, ItemPointer ctid, const StKey *key);
extern Jsonb *storage_delete(StTable *t, const StKey *key, bool want_old, bool *deleted);

/*
 * A transaction's hold on the key of an item that does not exist, until it
 * ends (see storage.c): ST_KEY_HELD with the key locked when no item has the
 * key (waiting for a transaction writing it); ST_KEY_EXISTS when one has
 * (committed, or written by this transaction): the caller locks its row
 * instead; ST_KEY_HIDDEN, nothing locked, when one has that row-level
 * security hides from the role: for the role the item is missing (a write
 * that would create it gets insufficient_privilege, see storage_insert).
 * In REPEATABLE READ and SERIALIZABLE, an item committed since the
 * snapshot is a serialization failure.  storage_unlock_absent_key lets go
 * early, once the transaction has inserted the item (its index entry holds
 * the key).
 */
typedef enum StKeyHold
{
	ST_KEY_HELD,
	ST_KEY_EXISTS,
	ST_KEY_HIDDEN
} StKeyHold;

extern StKeyHold storage_lock_absent_key(StTable *t, const StKey *key);
extern void storage_unlock_absent_key(StTable *t, const StKey *key);

/*
 * After writing items[0..n-1] (stored form), which may have created them:
 * wait for any transaction holding one of their keys as absent.  Every
 * write that may create an item calls it (storage_upsert, _upsert_many
 * and _insert do).
 */
extern void storage_respect_key_locks(StTable *t, Jsonb **items, int n);

/*
 * The SQL a query variant runs ($1 partition key, $2 lower bound, $3 upper
 * bound, $4 limit): for EXPLAIN in tests and documentation.
 */
extern char *storage_query_sql(StTable *t, StIndex *ix, const StQueryRange *range);

/* Query one partition of the table (ix NULL) or of an index. */
extern void storage_query(StTable *t, StIndex *ix, const StQueryRange *range,
						  StRowCallback callback, void *arg);

/*
 * Scan the whole table (ix NULL) or every item of an index, in key order
 * (partition key bytes, then sort key), as the range says.
 */
extern void storage_scan(StTable *t, StIndex *ix, const StScanRange *range,
						 StRowCallback callback, void *arg);

/*
 * Time to live: up to limit items whose Number attribute attr lies in
 * [oldest, now) (numeric Datums), locked, skipping items other transactions
 * hold; *items gets them (stored form).  Returns how many.
 */
extern int	storage_expired_items(StTable *t, const char *attr, Datum now, Datum oldest,
								  int limit, Jsonb ***items);

/* How many items the partition of pk (a Datum of its column's type) holds, at most limit. */
extern int64 storage_partition_count(StTable *t, Datum pk, int64 limit);

/* The segment of total_segments a table partition key (a Datum of its column's type) falls in. */
extern int	storage_segment_of(StTable *t, Datum pk, int total_segments);

/*
 * Citus (docs/citus.md): distribute a table's relation by pk into
 * shard_count shards with a colocation group of its own, after copying its
 * catalog rows to every worker; on a table already distributed, copy the
 * catalog rows again.  storage_publish_catalog copies them after DDL on a
 * distributed table (its GSIs, its drop).  Returns the number of shards.
 */
extern int	storage_distribute(StTable *t, int shard_count);
extern void storage_publish_catalog(const char *table_name);

/*
 * How many GetItems and Queries this backend ran directly against a shard
 * of a distributed table on this node (a Citus worker; see storage.c).
 */
extern int64 storage_shard_direct_reads(void);

/*
 * Delegated reads (docs/citus.md; see storage.c): a GetItem or a Query of
 * one table partition run for the coordinator at the node holding its
 * shard, which never delegates them again; *direct: the node read its own
 * shard directly.  storage_check_key_arg refuses a key argument whose type
 * is not the key column's.  storage_shard_delegated_reads: how many of
 * this backend's reads a node answered from its own shard that way.
 */
extern void storage_check_key_arg(StTable *t, bool sort_key, Oid argtype);
extern Jsonb *storage_delegated_get(StTable *t, const StKey *key, bool *direct);
extern void storage_delegated_query(StTable *t, const StQueryRange *r,
									StRowCallback callback, void *arg, bool *direct);
extern int64 storage_shard_delegated_reads(void);

/*
 * Until storage_citus_sequential_end: Citus uses one connection per worker
 * (citus.multi_shard_modify_mode = sequential), as commands on distributed
 * functions later in the transaction need.  Returns the level to end.
 */
extern int	storage_citus_sequential_begin(void);
extern void storage_citus_sequential_end(int nest);

/* Drop a distributed table's relation and its delegated functions. */
extern void storage_drop_distributed_relation(const char *relname);

#endif							/* ST_STORAGE_H */
