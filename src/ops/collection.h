/*-------------------------------------------------------------------------
 *
 * collection.h
 *		Item collections of tables with local secondary indexes: their
 *		size (ItemCollectionMetrics) and its limit
 *		(ItemCollectionSizeLimitExceededException).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_COLLECTION_H
#define ST_COLLECTION_H

#include "postgres.h"

#include "catalog/st_catalog.h"
#include "item/av.h"

/* stdesign.item_collection_size_limit, in kB (DynamoDB's 10 GB by default; 0: none). */
extern int	ops_item_collection_limit_kb;

#define OPS_ITEM_COLLECTION_LIMIT_DEFAULT_KB (10 * 1024 * 1024)

/* Does the table have a local secondary index (and so item collections)? */
extern bool ops_has_item_collections(const StTable *t);

/*
 * The size of the item collection of a partition key value (an Av of the
 * key's type): the sizes of its items, plus, for each local secondary
 * index, the size of each item's entry and 100 bytes of overhead.
 */
extern int64 ops_item_collection_size(StTable *t, const Av *pk_value);

/*
 * After a write of item (Put or Update) to t: when t has item collections
 * and the item's collection is now over the limit, raise
 * ItemCollectionSizeLimitExceededException (the write is undone with the
 * statement).
 */
extern void ops_check_item_collection(StTable *t, const Av *item);

/* The same check, reporting through *err instead of raising. */
extern bool ops_item_collection_fits(StTable *t, const Av *item, StErr *err);

/*
 * ItemCollectionMetrics of the collection an item (or key) belongs to:
 * {"ItemCollectionKey": {pk: value}, "SizeEstimateRangeGB": [low, high]},
 * or NULL when the table has no local secondary index.  The key map is
 * typed by the caller's output; SizeEstimateRangeGB is plain.
 */
extern Av  *ops_item_collection_key(StTable *t, const Av *item);
extern Av  *ops_item_collection_range(StTable *t, const Av *item);

#endif							/* ST_COLLECTION_H */
