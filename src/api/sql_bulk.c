/*-------------------------------------------------------------------------
 *
 * sql_bulk.c
 *		st_put_all(item, "table", typed): an aggregate that loads the items
 *		of a query, many per statement.
 *
 * st_put runs one INSERT per call, and for one item the executor's start
 * (opening the relation and its indexes, preparing its expressions) costs
 * more than the write itself.  st_put_all validates each item exactly as
 * st_put does, and writes them 1000 at a time, in key order, as one INSERT
 * ... ON CONFLICT DO UPDATE would (ops_put_sorted: directly, where
 * the statement would do nothing more).  Within a chunk a later item with the
 * same key replaces an earlier one, as consecutive st_put calls would.  A
 * load does not look for an existing item before inserting one until it
 * has found one (see storage_row_upsert_many): a load into new key ranges never
 * looks twice, a reload looks first from its first item on.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "ops/item_ops.h"
#include "sql_args.h"

#define BULK_CHUNK 1000

typedef struct BulkItem
{
	char	   *key;			/* the key values' bytes: sort and dedupe */
	int			key_len;
	int			seq;			/* arrival order: the last of equal keys wins */
	Jsonb	   *stored;
} BulkItem;

typedef struct BulkState
{
	char	   *table;			/* NULL: the default table */
	MemoryContext chunk_cxt;	/* the pending items; reset after each write */
	int			n;
	BulkItem	items[BULK_CHUNK];
	int64		total;
	bool		probe;			/* a key was found to exist: look first */
} BulkState;

static int
key_cmp(const BulkItem *x, const BulkItem *y)
{
	return ops_key_bytes_cmp(x->key, x->key_len, y->key, y->key_len);
}

static int
bulk_item_cmp(const void *a, const void *b)
{
	const BulkItem *x = a;
	const BulkItem *y = b;
	int			c = key_cmp(x, y);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Write the chunk: sorted by key, the last item of each key kept. */
static void
bulk_flush(BulkState *st)
{
	StTable    *t;
	Jsonb	  **stored;
	int			m = 0;

	if (st->n == 0)
		return;
	t = catalog_lookup(st->table, false);
	qsort(st->items, st->n, sizeof(BulkItem), bulk_item_cmp);
	stored = palloc(sizeof(Jsonb *) * st->n);
	for (int i = 0; i < st->n; i++)
	{
		if (i + 1 < st->n && key_cmp(&st->items[i], &st->items[i + 1]) == 0)
			continue;
		stored[m++] = st->items[i].stored;
	}
	ops_put_sorted(t, stored, m, &st->probe);
	st->total += st->n;
	st->n = 0;
	MemoryContextReset(st->chunk_cxt);
}

/* The key of a checked item as bytes (ops_append_key_bytes): sort and dedupe. */
static void
item_key_bytes(StTable *t, const Av *item, BulkItem *bi)
{
	StringInfoData buf;

	initStringInfo(&buf);
	ops_append_key_bytes(t, item, &buf);
	bi->key = buf.data;
	bi->key_len = buf.len;
}

PG_FUNCTION_INFO_V1(st_put_all_sfunc);
Datum
st_put_all_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	MemoryContext old;
	BulkState  *st;
	Jsonb	   *itemj = api_arg_jsonb(fcinfo, 1);
	bool		typed = api_arg_bool(fcinfo, 3, false);
	StTable    *t;
	Av		   *item;
	BulkItem   *bi;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		st_internal_error("st_put_all_sfunc called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		char	   *table = api_arg_text(fcinfo, 2);

		st = MemoryContextAllocZero(aggcxt, sizeof(BulkState));
		st->table = table ? MemoryContextStrdup(aggcxt, table) : NULL;
		/*
		 * Blocks under malloc's mmap threshold: a chunk's memory is freed
		 * and taken again every 1000 items, and mmap'd blocks would come
		 * back as fresh pages to fault in each time.
		 */
		st->chunk_cxt = AllocSetContextCreate(aggcxt, "stdesign bulk put",
											  8 * 1024, 64 * 1024, 64 * 1024);
	}
	else
		st = (BulkState *) PG_GETARG_POINTER(0);
	if (itemj == NULL)
		st_validation_null("item");

	t = catalog_lookup(st->table, false);
	item = av_item_from_jsonb(itemj, typed, "Item");
	ops_check_item(t, item);

	old = MemoryContextSwitchTo(st->chunk_cxt);
	bi = &st->items[st->n];
	item_key_bytes(t, item, bi);
	bi->seq = st->n;
	bi->stored = av_item_to_jsonb(item, true);
	st->n++;
	MemoryContextSwitchTo(old);

	if (st->n == BULK_CHUNK)
		bulk_flush(st);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(st_put_all_final);
Datum
st_put_all_final(PG_FUNCTION_ARGS)
{
	BulkState  *st;

	if (PG_ARGISNULL(0))
		PG_RETURN_INT64(0);
	st = (BulkState *) PG_GETARG_POINTER(0);
	bulk_flush(st);
	PG_RETURN_INT64(st->total);
}
