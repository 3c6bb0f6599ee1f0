/*-------------------------------------------------------------------------
 *
 * capacity.h
 *		ConsumedCapacity by DynamoDB's rules.
 *
 * Reads are counted in 4 KB read units over the bytes of the items read
 * (for Query and Scan summed over all items before rounding up; halved when
 * eventually consistent; doubled inside transactions); writes in 1 KB write
 * units of the larger of the old and the new item (doubled inside
 * transactions), plus the writes each affected secondary index needs.  See
 * docs/capacity.md for the rules and where they come from.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_CAPACITY_H
#define ST_CAPACITY_H

#include "postgres.h"

#include "catalog/st_catalog.h"
#include "item/av.h"

typedef enum StCapacityMode
{
	ST_CAPACITY_NONE,
	ST_CAPACITY_TOTAL,
	ST_CAPACITY_INDEXES
} StCapacityMode;

/* The capacity one request consumed, per table (and per index). */
typedef struct StCapacity StCapacity;

extern StCapacity *ops_capacity_new(StCapacityMode mode);

/* Did the request ask for ConsumedCapacity (so that callers fetch old items)? */
extern bool ops_capacity_wanted(const StCapacity *c);

/*
 * A read of `bytes` (the summed size of the items read; 0 for a miss, which
 * still costs one unit) from table t, or from index ix of it.
 */
extern void ops_capacity_read(StCapacity *c, StTable *t, StIndex *ix, int64 bytes,
						  bool consistent, bool transactional);

/*
 * A query or scan of a local secondary index that needs attributes the
 * index does not project fetches each item from table t: `units` is the
 * sum of the fetched items' sizes, each rounded up to 4 KB on its own
 * (ops_capacity_read_units).
 */
extern void ops_capacity_read_fetched(StCapacity *c, StTable *t, int64 units, bool consistent);
extern int64 ops_capacity_read_units(int64 bytes);

/*
 * A write of one item: old and new are the item before and after (either
 * may be NULL); counts the table and every secondary index the change
 * touches (an index write when the item enters, leaves or changes in it).
 */
extern void ops_capacity_write(StCapacity *c, StTable *t, const Av *old_item, const Av *new_item,
						   bool transactional);

/*
 * The size of an item's entry in a secondary index (its keys and the
 * projected attributes), or -1 when the item is not in the index.
 */
extern int64 ops_index_entry_size(const StTable *t, const StIndex *ix, const Av *item);

/*
 * The half units (even: whole units) secondary index ix of t spends on a
 * change from old_item to new_item (either NULL); 0 when it is untouched.
 */
extern int64 ops_capacity_index_write_halves(const StTable *t, const StIndex *ix,
											 const Av *old_item, const Av *new_item);

/*
 * The same for a new item that replaced none, its size (av_item_size)
 * known: an index projecting ALL costs it without another walk.
 */
extern int64 ops_capacity_index_insert_halves(const StTable *t, const StIndex *ix,
											  const Av *new_item, int64 new_size);

/*
 * The ConsumedCapacity of the request: NULL for mode NONE; for a single
 * table an AV_M {TableName, CapacityUnits, ReadCapacityUnits?,
 * WriteCapacityUnits?, Table?, GlobalSecondaryIndexes?, LocalSecondaryIndexes?};
 * for batches and transactions an AV_L of those (as_list).
 */
extern Av  *ops_capacity_result(StCapacity *c, bool as_list);

#endif							/* ST_CAPACITY_H */
