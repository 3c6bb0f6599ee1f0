/*-------------------------------------------------------------------------
 *
 * collection.c
 *		Item collections: the items of a table with local secondary
 *		indexes that share a partition key value, with their index entries.
 *
 * DynamoDB's Developer Guide ("Item collections in Local Secondary
 * Indexes", "Item collection size limit") limits such a collection to
 * 10 GB: the sizes of all its items plus those of their entries in every
 * local secondary index (an entry: the index and table keys and the
 * projected attributes, plus 100 bytes of overhead).  A write that takes a
 * collection past the limit fails with ItemCollectionSizeLimitExceeded-
 * Exception; ReturnItemCollectionMetrics=SIZE returns the collection's size
 * as a range in GB (SizeEstimateRangeGB, a lower and an upper bound).
 *
 * The size is computed when needed, by one query of the partition (the
 * key index's range).  The limit is checked after each Put or Update of a
 * table with a local secondary index; a first pass only counts the
 * partition's entries in the key index (storage_partition_count), up to
 * the number that could reach the limit at the largest item size, so an
 * ordinary collection is never read; past that number of items, each
 * such write sums the partition.  stdesign.item_collection_size_limit
 * lowers the limit (for tests), or turns it off (0) where that cost is
 * not wanted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "capacity.h"
#include "collection.h"
#include "item/av_jsonb.h"
#include "item_ops.h"
#include "storage/st_storage.h"

int			ops_item_collection_limit_kb = OPS_ITEM_COLLECTION_LIMIT_DEFAULT_KB;

/* The per-entry overhead of a local secondary index. */
#define LSI_ENTRY_OVERHEAD 100

bool
ops_has_item_collections(const StTable *t)
{
	for (int i = 0; i < t->nindexes; i++)
		if (t->indexes[i].is_local)
			return true;
	return false;
}

typedef struct SizeSum
{
	StTable    *table;
	int64		bytes;
	int64		items;
} SizeSum;

static bool
add_item(Jsonb *stored, void *arg)
{
	SizeSum    *s = arg;
	Av		   *item = av_item_from_stored(stored);

	s->items++;
	s->bytes += av_item_size(item);
	for (int i = 0; i < s->table->nindexes; i++)
	{
		StIndex    *ix = &s->table->indexes[i];
		int64		entry;

		if (ix->is_local && (entry = ops_index_entry_size(s->table, ix, item)) >= 0)
			s->bytes += entry + LSI_ENTRY_OVERHEAD;
	}
	return true;
}

/* The query of one partition of the table. */
static void
scan_partition(StTable *t, const Av *pk_value, StRowCallback cb, SizeSum *sum)
{
	StQuerySpec q;

	memset(&q, 0, sizeof(q));
	q.table = t;
	q.pk = pk_value;
	q.sort_op = ST_SORT_NONE;
	q.forward = true;
	q.limit = -1;
	q.uncounted = true;			/* the extension's own measurement */
	sum->table = t;
	sum->bytes = sum->items = 0;
	ops_query(&q, cb, sum);
}

int64
ops_item_collection_size(StTable *t, const Av *pk_value)
{
	SizeSum		sum;

	scan_partition(t, pk_value, add_item, &sum);
	return sum.bytes;
}

static const Av *
pk_of(StTable *t, const Av *item)
{
	return av_map_get(item, t->pk.name, strlen(t->pk.name));
}

bool
ops_item_collection_fits(StTable *t, const Av *item, StErr *err)
{
	int64		limit = (int64) ops_item_collection_limit_kb * 1024;
	const Av   *pk = pk_of(t, item);
	int			nlocal = 0;
	int64		largest;

	/* 0: no limit, and nothing to count */
	if (limit == 0 || pk == NULL || !ops_has_item_collections(t))
		return true;
	for (int i = 0; i < t->nindexes; i++)
		nlocal += t->indexes[i].is_local ? 1 : 0;
	/* no collection of this many items can pass the limit */
	largest = (int64) AV_MAX_ITEM_SIZE * (1 + nlocal) + LSI_ENTRY_OVERHEAD * nlocal;
	if (storage_partition_count(t, storage_key_datum(pk), limit / largest + 1) * largest <= limit)
		return true;
	if (ops_item_collection_size(t, pk) <= limit)
		return true;
	return st_fail(err, ST_ERR_ITEM_COLLECTION_SIZE, "Item collection size limit exceeded");
}

void
ops_check_item_collection(StTable *t, const Av *item)
{
	StErr		err;

	if (!ops_item_collection_fits(t, item, &err))
		st_raise(&err);
}

Av *
ops_item_collection_key(StTable *t, const Av *item)
{
	Av		   *key;

	if (!ops_has_item_collections(t) || pk_of(t, item) == NULL)
		return NULL;
	key = av_new(AV_M);
	av_map_put_nocheck(key, t->pk.name, strlen(t->pk.name), av_copy(pk_of(t, item)));
	return key;
}

/*
 * [low, high] in GB: the whole gigabytes the collection holds and one
 * more, as DynamoDB's estimate brackets the size ([0.0, 1.0] for any
 * collection under 1 GB).
 */
Av *
ops_item_collection_range(StTable *t, const Av *item)
{
	Av		   *range = av_new(AV_L);
	double		gb;
	char	   *low;
	char	   *high;

	if (!ops_has_item_collections(t) || pk_of(t, item) == NULL)
		return NULL;
	gb = floor((double) ops_item_collection_size(t, pk_of(t, item)) / (1024.0 * 1024.0 * 1024.0));
	low = psprintf("%.1f", gb);
	high = psprintf("%.1f", gb + 1);
	av_append(range, av_new_str(AV_N, low, strlen(low)));
	av_append(range, av_new_str(AV_N, high, strlen(high)));
	return range;
}
