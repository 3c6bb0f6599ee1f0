/*-------------------------------------------------------------------------
 *
 * catalog.h
 *		Table and index definitions, the DynamoDB name -> relation mapping,
 *		and the per-backend cache of both.
 *
 * The catalog is two ordinary tables, stdesign.tables and stdesign.indexes
 * (see the extension script).  A backend reads a table's definition once and
 * keeps it, with the plans prepared against its relation, until a relcache
 * invalidation says the relation changed (CREATE/DROP INDEX, DROP TABLE) or
 * the set of tables changed (st_create_table/st_drop_table invalidate the
 * catalog relation itself).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_CATALOG_H
#define ST_CATALOG_H

#include "postgres.h"

#include "executor/spi.h"
#include "storage/lockdefs.h"
#include "item/av.h"

#define ST_TABLE_NAME_MAX 255
#define ST_INDEX_NAME_MAX 255

/* A key attribute: its name and scalar type (AV_S, AV_N or AV_B). */
typedef struct StKeyDef
{
	char	   *name;			/* NULL when the key is absent (no sort key) */
	AvType		type;
} StKeyDef;

typedef enum StProjection
{
	ST_PROJECT_ALL,
	ST_PROJECT_KEYS_ONLY,
	ST_PROJECT_INCLUDE
} StProjection;

/*
 * The query plans of one key space (the table or one index), prepared on
 * first use.  See storage.h.
 */
#define ST_BOUND_KINDS 3		/* none, inclusive, exclusive */
typedef struct StPlanSet
{
	SPIPlanPtr	query[ST_BOUND_KINDS][ST_BOUND_KINDS][2][2];	/* ...[backward][from start] */
	SPIPlanPtr	scan[2][2];		/* [from start][one segment] */
	SPIPlanPtr *multi;			/* a multi-attribute GSI's (storage.c), NULL until one is made */
} StPlanSet;

/*
 * A GSI's key may have up to 4 partition-key (HASH) attributes and up to 4
 * sort-key (RANGE) attributes, all HASH before all RANGE ("multi-attribute
 * keys", DynamoDB Developer Guide, GSI.DesignPattern.MultiAttributeKeys;
 * botocore's dynamodb service-2.json, CreateGlobalSecondaryIndexAction:
 * "Global secondary index supports up to 4 partition and up to 4 sort
 * keys").  Tables and LSIs keep one of each.
 */
#define ST_MAX_INDEX_HASH_KEYS 4
#define ST_MAX_INDEX_RANGE_KEYS 4
#define ST_MAX_INDEX_KEYS (ST_MAX_INDEX_HASH_KEYS + ST_MAX_INDEX_RANGE_KEYS)

typedef struct StIndex
{
	char	   *name;
	bool		is_local;		/* LSI (same partition key as the table) */
	StKeyDef	pk;				/* the first HASH attribute */
	StKeyDef	sk;				/* the first RANGE attribute (name NULL: none) */
	/*
	 * Every key attribute: npk HASH ones, then nsk RANGE ones (keys[0] is
	 * pk, keys[npk] is sk).  multi: more than one of either kind, whose
	 * btree and queries differ from a single-attribute index's (see
	 * storage.c); everything else reads pk and sk as before.
	 */
	int			npk;
	int			nsk;
	StKeyDef   *keys;
	bool		multi;
	StProjection projection;
	int			n_non_key;
	char	  **non_key_attributes;
	char	   *pg_index;		/* the btree's name, in the data schema */
	Oid			index_oid;		/* and its OID */
	StPlanSet	plans;
} StIndex;

typedef struct StTable
{
	char		name[ST_TABLE_NAME_MAX + 1];	/* hash key: the DynamoDB name */
	bool		valid;
	Oid			relid;
	Oid			key_index;		/* the unique btree on (key_ix(pk), sk) */
	char	   *key_index_name; /* its name in the data schema, as recorded */
	AttrNumber	item_attnum;	/* the item column */
	bool		distributed;	/* a Citus distributed table (see storage.c) */
	struct StShardMap *shards;	/* its shards on this node, once looked up (storage.c) */
	char	   *relname;		/* the relation's own name (unquoted) */
	char	   *qualified;		/* schema-qualified and quoted, for SQL text */
	StKeyDef	pk;
	StKeyDef	sk;
	int			nindexes;
	StIndex    *indexes;
	MemoryContext cxt;			/* holds everything above, and the plan pointers */

	/* item plans, prepared on first use */
	SPIPlanPtr	plan_get;
	SPIPlanPtr	plan_get_for_update;
	SPIPlanPtr	plan_upsert;
	SPIPlanPtr	plan_upsert_many;
	SPIPlanPtr	plan_insert;
	SPIPlanPtr	plan_update;
	SPIPlanPtr	plan_delete;
	SPIPlanPtr	plan_delete_returning;
	SPIPlanPtr	plan_partition_count;
	StPlanSet	plans;			/* queries on the table itself */

	/*
	 * In use: how many memory contexts of callers hold this definition (see
	 * catalog_lookup).  A definition replaced by a newer one is kept, plans
	 * and all, until none does.
	 */
	int			pins;
	MemoryContext pin_cxt;		/* the last context that pinned it */
	bool		retired;		/* replaced: freed once unpinned */
	struct StTable *next_retired;
} StTable;

/* The schema that holds the data relations. */
#define ST_DATA_SCHEMA "stdesign_data"

/*
 * The table named `name` (or the default table when name is NULL), from the
 * cache, its relation locked (AccessShareLock) and checked to have the
 * layout stdesign gave it (InternalServerError when it does not).  Raises
 * ResourceNotFoundException when there is none, unless missing_ok.  The
 * definition and its plans stay valid until the caller's current memory
 * context is reset or deleted, even when an invalidation makes a nested
 * call load a newer one: use it within one operation.
 */
extern StTable *catalog_lookup(const char *name, bool missing_ok);

/*
 * catalog_lookup with the relation locked in `mode`: the lock a change of
 * the table needs (AccessExclusiveLock to drop it, ShareUpdateExclusiveLock
 * to change its settings), taken at once so that two changes never both
 * hold a weaker lock and wait for each other.
 */
extern StTable *catalog_lookup_locked(const char *name, bool missing_ok, LOCKMODE mode);

/* The index of a table by name, or NULL. */
extern StIndex *catalog_find_index(StTable *table, const char *index_name);

/* Resolve the default table's name (GUC, or the only table), or raise. */
extern const char *catalog_default_table_name(void);

/* Check a table or index name against DynamoDB's rules, or raise ValidationException. */
extern void catalog_check_name(const char *name, const char *what, int maxlen);

/*
 * Table ARNs: this server's region and account, as DescribeTable's TableArn
 * shows them.  catalog_table_name takes a TableName as DynamoDB does, a name
 * or a table's ARN, and returns the name, checked by DynamoDB's rules
 * (ValidationException for an ARN of no table of this server).
 * catalog_arn_table: the name in a table's ARN, or NULL.
 */
#define ST_ARN_REGION "local"
#define ST_ARN_ACCOUNT "000000000000"
#define ST_ARN_PREFIX "arn:aws:dynamodb:" ST_ARN_REGION ":" ST_ARN_ACCOUNT ":table/"
extern bool catalog_is_arn(const char *name);
extern char *catalog_table_arn(const char *table_name);
extern const char *catalog_arn_table(const char *arn);
extern const char *catalog_table_name(const char *name_or_arn, const char *what);

/*
 * Names of relations and indexes in the data schema: the readable form of a
 * table (its name), of its key index, of a secondary index and of its time
 * to live's index, and the Postgres name of a form (hashed: the form that
 * is never readable).  No form can be another's: a table or index name has
 * neither ':' nor '/'.
 */
extern char *catalog_key_index_form(const char *table_name);
extern char *catalog_index_form(const char *table_name, const char *index_name);
extern char *catalog_ttl_index_form(const char *table_name);
extern char *catalog_pg_name(const char *readable, bool hashed);

/* Tell every backend (this one included) that the set of tables changed. */
extern void catalog_invalidate_all(void);

/* The catalog tables are still 0.1.0's (ALTER EXTENSION UPDATE not run yet). */
extern bool catalog_sql_is_0_1_0(void);

/* How many times this backend read a table's definition from the catalog. */
extern int64 catalog_load_count(void);

/*
 * How many times a definition was replaced by a newer one while a caller
 * still held it (its plans freed only later): a nested call on a table
 * after an invalidation, which tests show happening.
 */
extern int64 catalog_kept_in_use_count(void);

/*
 * The layout guard (DDL event trigger): raise if DDL left relation relid,
 * when it is a table's relation, without the layout stdesign gave it, or
 * left a relation with the set_keys trigger that is no table's relation
 * (renamed, moved to another schema).
 */
extern void catalog_guard_relation(Oid relid);

/*
 * Citus (see docs/citus.md): is the extension installed in this
 * database; is this session one of Citus's own connections between nodes
 * (which run the DDL and writes the coordinator sends to shards); is relid a
 * distributed table; the distributed table a shard (relid on this node)
 * belongs to, or InvalidOid.
 */
extern bool catalog_citus_present(void);
extern bool catalog_citus_internal_session(void);
extern bool catalog_citus_distributed(Oid relid);
extern char *catalog_citus_shard_table_name(Oid relid);

/*
 * Copy the catalog rows of table_name (stdesign.tables and its
 * stdesign.indexes; none when it was dropped) to every Citus worker, so
 * that the catalog is the same on every node: catalog_publish when the
 * transaction commits (nothing when it rolls back), catalog_publish_now at
 * once, outside the transaction (a worker's commit of its own).
 * catalog_publish_pending: is a copy of the table's rows still to come in
 * this transaction (the workers' rows are not yet the transaction's)?
 * No-ops without Citus.
 */
extern void catalog_publish(const char *table_name);
extern void catalog_publish_now(const char *table_name);
extern bool catalog_publish_pending(const char *table_name);

/*
 * Who may change or read a table, and the catalog's writes (catalog_acl.c;
 * docs/security.md).  The catalog is not a grant: stdesign checks the
 * caller's right first, then writes the catalog's rows as its owner.
 *
 * catalog_check_owner: raise Postgres's "must be owner of table ..."
 * unless the current user owns t's relation (every change of a table).
 * catalog_check_create: raise unless it may create in stdesign_data (a new
 * table).  catalog_check_keys_readable: raise unless it may see t's key
 * values outside a query (SELECT on the relation, and no row-level
 * security applying to it there); function names the caller in the error.
 * catalog_keys_readable: the same question, answered without an error.
 *
 * catalog_owner: the catalog's owner (stdesign.tables's, the extension's).
 * catalog_relation_owner: the owner of relation relid now (its pg_class row).
 * catalog_write: run one statement on the catalog as its owner (after one
 * of the checks above); returns SPI_processed.  catalog_as_owner_begin and
 * _end: the same switch around several statements of the caller's own; a
 * caller that writes the catalog so runs catalog_check_triggers first, as
 * catalog_write does (raise while a catalog table has a trigger of someone
 * else's, which would run as the catalog's owner).
 */
extern void catalog_check_owner(StTable *t);
extern void catalog_check_create(void);
extern void catalog_check_keys_readable(StTable *t, const char *function);
extern bool catalog_keys_readable(StTable *t);
extern Oid	catalog_owner(void);
extern Oid	catalog_relation_owner(Oid relid);
extern uint64 catalog_write(const char *sql, int nargs, Oid *types, Datum *args, const char *nulls);
extern void catalog_check_triggers(void);

typedef struct CatalogAsOwner
{
	Oid			userid;
	int			sec_context;
} CatalogAsOwner;
extern void catalog_as_owner_begin(CatalogAsOwner *save);
extern void catalog_as_owner_end(CatalogAsOwner *save);

/* Register the invalidation callbacks (from _PG_init). */
extern void catalog_init(void);

/* The GUC stdesign.default_table. */
extern char *st_default_table_guc;

/* The GUC stdesign.citus_shard_count: CreateTable distributes new tables (0: not). */
extern int	st_citus_shard_count_guc;

/* The GUC stdesign.citus_delegate_reads: delegated GetItem and Query (storage.c). */
extern bool st_citus_delegate_reads_guc;

#endif							/* ST_CATALOG_H */
