/*-------------------------------------------------------------------------
 *
 * item_ops.h
 *		The item operations (GetItem, PutItem, DeleteItem, UpdateItem,
 *		Query), shared by the friendly SQL functions and st_api: one
 *		implementation of each semantic.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_ITEM_OPS_H
#define ST_ITEM_OPS_H

#include "postgres.h"

#include "catalog/st_catalog.h"
#include "lib/stringinfo.h"
#include "expr/expr.h"
#include "item/av.h"
#include "storage/st_storage.h"

typedef enum StReturnValues
{
	ST_RV_NONE,
	ST_RV_ALL_OLD,
	ST_RV_UPDATED_OLD,
	ST_RV_ALL_NEW,
	ST_RV_UPDATED_NEW
} StReturnValues;

/* DynamoDB's key limits. */
#define ST_PK_MAX_BYTES 2048
#define ST_SK_MAX_BYTES 1024

/* Parse a ReturnValues value, or raise ValidationException naming the parameter. */
extern StReturnValues ops_return_values(const char *text, const char *param);

/* A key value given as text (S as is, N as number text, B as base64), validated. */
extern Av  *ops_key_value_from_text(const char *text, AvType type, const char *keyname);

/*
 * The key of table t from a map of key attributes (exactly the table's key
 * attributes, right types), as Datums; raises DynamoDB's errors otherwise.
 */
extern void ops_key_from_map(StTable *t, const Av *keymap, StKey *key);
/* The checks of ops_key_from_map without raising: false with *err filled. */
extern bool ops_key_valid(StTable *t, const Av *keymap, StErr *err);

/* The key map {pk, sk} built from text arguments (sk NULL for hash-only). */
extern Av  *ops_key_map_from_text(StTable *t, const char *pk, const char *sk);

/*
 * A key attribute's value against its definition: type, not empty, length.
 * `index` names the secondary index the key belongs to, or is NULL.
 */
extern void ops_check_key_value(const Av *v, const StKeyDef *def, bool is_partition,
								const char *index);

/*
 * Check an item for writing into t: key attributes present, typed and within
 * limits; secondary-index key attributes, when present, of the index's type
 * and not empty; size at most 400 KB.
 */
extern void ops_check_item(StTable *t, const Av *item);

/* The key of a checked item (or key map) as bytes, for ordering locks (see item_check.c). */
extern void ops_append_key_bytes(StTable *t, const Av *item, StringInfo buf);

/* The order of two such keys (<0, 0, >0): bytes, then the shorter first. */
extern int	ops_key_bytes_cmp(const char *a, int alen, const char *b, int blen);

/* The same check, reporting through *err instead of raising. */
extern bool ops_validate_item(StTable *t, const Av *item, StErr *err);


/* ---------- operations ---------- */

/*
 * A condition to check against the current item under its row lock (the
 * expression language fills `holds`); NULL means none.
 */
typedef struct StCondition StCondition;
typedef bool (*StConditionFn) (StCondition *cond, const Av *item);
struct StCondition
{
	StConditionFn holds;
	void	   *state;
	bool		return_item_on_failure; /* ReturnValuesOnConditionCheckFailure ALL_OLD */
};

/*
 * What a write did, for capacity and return values: the item before and
 * after (NULL when absent).  Passing one makes the write read the old item
 * even when it would not need to.
 */
typedef struct StWriteResult
{
	Av		   *old_item;
	Av		   *new_item;
} StWriteResult;

/* GetItem: the stored (typed) item, or NULL. */
extern Jsonb *ops_get(StTable *t, const Av *keymap);

/* PutItem: write item; returns the old item when rv is ALL_OLD (else NULL). */
extern Av  *ops_put(StTable *t, Av *item, StCondition *cond, StReturnValues rv,
					StWriteResult *res);

/*
 * Unconditional PutItem of many items with distinct keys, in one statement;
 * written in key order, so that two such writes cannot deadlock.
 */
extern void ops_put_many(StTable *t, Av **items, int n);

/*
 * The same for items already checked (ops_check_item) and in stored form,
 * with distinct keys in key order; *probe as storage_upsert_many's, the
 * same flag for every chunk of one load.
 */
extern void ops_put_sorted(StTable *t, Jsonb **stored, int n, bool *probe);

/*
 * A bulk load's chunk (st_import): as ops_put_sorted, but no traffic is
 * counted: DynamoDB's import from S3 consumes no write capacity of the
 * table it fills (Developer Guide, "DynamoDB data import from Amazon S3"),
 * so it takes nothing from a partition's 1,000 WCU either.  With keys_new
 * the keys are known to be absent from the table (a load into an empty
 * table that has not written them before): they are inserted as COPY
 * inserts rows, without looking for an existing item (a key written
 * meanwhile by another transaction fails the load with a unique violation).
 */
extern void ops_load_sorted(StTable *t, Jsonb **stored, int n, bool keys_new, bool *probe);

/*
 * A whole load of new keys (st_import into an empty table), the table's
 * indexes built at the end (see the storage layer's row_write.c): begin
 * (NULL when the load cannot be written so: the table is not written
 * directly, or has item collections to check after each chunk), chunks
 * as for ops_load_sorted with keys_new, end.
 * Until the end the chunks' items are not found by key: a key written
 * again must end the load first.
 */
typedef struct OpsLoad OpsLoad;
extern OpsLoad *ops_load_begin(StTable *t);
extern void ops_load_chunk(OpsLoad *l, Jsonb **stored, int n);
/* May the load's chunks write a key again (the later item winning)? */
extern bool ops_load_dedupes(OpsLoad *l);
extern void ops_load_end(OpsLoad *l);

/* Has the table no item?  False also when that cannot be told cheaply. */
extern bool ops_table_is_empty(StTable *t);

/* DeleteItem: returns the old item when rv is ALL_OLD and it existed. */
extern Av  *ops_delete(StTable *t, const Av *keymap, StCondition *cond, StReturnValues rv,
					   StWriteResult *res);

/*
 * DeleteItem with a condition that is not an error when false: the item is
 * read locked and deleted when it exists and the condition holds.  Returns
 * whether it was deleted (time to live's expiry).
 */
extern bool ops_delete_if(StTable *t, const Av *keymap, StCondition *cond);

/*
 * UpdateItem: apply an update (an ExprUpdateFn, so that the operations do
 * not depend on the expression module) to the item with this key, or to a
 * new item holding just the key; returns what rv asks for.
 */
typedef struct StUpdate StUpdate;
struct StUpdate
{
	/* apply to item in place; fill *updated_old/new projections when asked */
	void		(*apply) (StUpdate *upd, Av *item);
	/* the attributes the update touched, projected from item (UPDATED_*) */
	Av		   *(*project_updated) (StUpdate *upd, const Av *item);
	void	   *state;
	/* does it write into a missing item (SET, ADD), or leave it missing? */
	bool		creates_item;
};

extern Av  *ops_update(StTable *t, const Av *keymap, StUpdate *upd, StCondition *cond,
					   StReturnValues rv, StWriteResult *res);

/* Raise ConditionalCheckFailedException (with the item as DETAIL when asked). */
extern pg_noreturn void ops_condition_failed(const Av *item, bool return_item);

/* A table by name (ResourceNotFoundException when there is none). */
extern StTable *ops_table_lookup(const char *name);

/* An index of t by name (ValidationException when there is none). */
extern StIndex *ops_index_lookup(StTable *t, const char *name);

/* ---------- Query ---------- */

typedef enum StSortOp
{
	ST_SORT_NONE,
	ST_SORT_EQ,
	ST_SORT_LT,
	ST_SORT_LE,
	ST_SORT_GT,
	ST_SORT_GE,
	ST_SORT_BETWEEN,
	ST_SORT_BEGINS_WITH
} StSortOp;

typedef struct StQuerySpec
{
	StTable    *table;
	StIndex    *index;			/* NULL: the table itself */
	const Av   *pk;				/* the partition key value */
	StSortOp	sort_op;
	const Av   *sort1;
	const Av   *sort2;			/* BETWEEN's upper bound */
	bool		forward;
	int64		limit;			/* items to evaluate, or -1 */
	const StPosition *start;	/* ExclusiveStartKey, or NULL */
	bool		uncounted;		/* the extension's own read: not traffic */

	/*
	 * A multi-attribute GSI's query (ops_query_set_multi_condition):
	 * multi_values, the values of its HASH attributes and of its first
	 * multi_neq RANGE attributes, each given with =; sort_op, sort1 and
	 * sort2 are then on RANGE attribute multi_neq.  pk is unused.
	 */
	bool		multi;
	int			multi_neq;
	const Av   *multi_values[ST_MAX_INDEX_KEYS];
} StQuerySpec;

/* The key definitions a query runs over (the index's, or the table's). */
extern const StKeyDef *ops_query_pk(const StQuerySpec *q);
extern const StKeyDef *ops_query_sk(const StQuerySpec *q);

/*
 * A multi-attribute GSI's key condition (expr_key_condition_multi's terms)
 * into q, checked against the index's key: every HASH attribute with =,
 * RANGE attributes from the first, none skipped, all with = but the last
 * one used; ValidationException otherwise.
 */
struct ExprKeyConditionMulti;
extern void ops_query_set_multi_condition(StQuerySpec *q, const struct ExprKeyConditionMulti *m);
/* A sort-key condition's operator as a multi-attribute key condition names it (= for none). */
extern ExprKeyOp ops_query_key_op(StSortOp op);

/* A multi-attribute GSI query's ExclusiveStartKey lies in what it queries. */
extern void ops_query_check_multi_start(const StQuerySpec *q);

/* Run a query; the callback sees each stored item in order. */
extern void ops_query(const StQuerySpec *q, StRowCallback callback, void *arg);

/* The key of an item in the key space of t (ix NULL) or index ix: its key attributes, each once. */
extern Av  *ops_item_key(StTable *t, StIndex *ix, const Av *item);

/*
 * The partition of index ix that values[0 .. npk-1] (its HASH attributes'
 * values, in key order) name, as the traffic counters and the studio show
 * it: the value itself for one HASH attribute; for several, an S holding
 * the JSON array of their texts (S as is, N its text, B base64), as
 * '["eu", "2"]'.  NULL when a value is missing or not a scalar.
 */
extern const Av *ops_index_partition(const StIndex *ix, const Av *const *values);

/* The same from an item's attributes (NULL: not in the index's partitions). */
extern const Av *ops_index_partition_of(const StIndex *ix, const Av *item);

/*
 * Scan a table (ix NULL) or an index, reading at most limit items (-1: all),
 * counted per partition in the traffic counters (traffic.h), as
 * ops_scan_range is; ops_scan_uncounted for the extension's own reads (an
 * export, the studio's measurements), which are no client's traffic.
 */
extern void ops_scan(StTable *t, StIndex *ix, int64 limit, StRowCallback callback, void *arg);
extern void ops_scan_uncounted(StTable *t, StIndex *ix, int64 limit, StRowCallback callback,
							   void *arg);

/* The same, as the range says: a page from a position, one segment of several. */
extern void ops_scan_range(StTable *t, StIndex *ix, const StScanRange *range,
						   StRowCallback callback, void *arg);

/* A key attribute k of ExclusiveStartKey as the Datum of a position (StPosition). */
extern Datum ops_start_key_datum(const Av *start, const StKeyDef *k);
extern int	ops_segment_of(StTable *t, Datum pk, int total_segments);

/*
 * The SQL a query of that shape runs (storage_query_sql), for
 * stdesign.query_sql.
 */
extern char *ops_query_sql(StTable *t, StIndex *ix, StBoundKind lower, StBoundKind upper,
						   bool backward);

/* GetItems and Queries read straight from a shard on this Citus worker (storage.h). */
extern int64 ops_shard_direct_reads(void);

/*
 * A node's side of a read the coordinator delegated to it (docs/citus.md;
 * storage.h): the key arguments' types checked against the table's key
 * columns, a GetItem (its stored item or NULL) and a Query of one table
 * partition; *direct: read from this node's own shard.  And how many of
 * this backend's reads were answered that way by another node.
 */
extern void ops_check_delegated_key(StTable *t, bool sort_key, Oid argtype);
extern Jsonb *ops_delegated_get(StTable *t, const StKey *key, bool *direct);
extern void ops_delegated_query(StTable *t, const StQueryRange *r, StRowCallback callback, void *arg,
								bool *direct);
extern int64 ops_shard_delegated_reads(void);

#endif							/* ST_ITEM_OPS_H */
