/*-------------------------------------------------------------------------
 *
 * studio_partitions.c
 *		Item collections: how many items, and how many bytes by DynamoDB's
 *		size rules, each partition key value holds, in the table and in
 *		each global secondary index; the largest collections and the skew.
 *
 *	 st_partitions(table_name, "limit", sample_items)
 *	 st_partition_skew(table_name, sample_items)
 *
 * A partition in DynamoDB holds at most 10 GB and serves at most 3,000
 * read and 1,000 write units per second; a design whose items pile up
 * under a few partition key values runs into both.  The items are read
 * once, grouped by each key space's partition key.  A table with more
 * items than sample_items is read through TABLESAMPLE BERNOULLI (the same
 * sample each time: REPEATABLE), and its counts are scaled up: the rows
 * say so (sampled).
 *
 * A global secondary index's items are its projection (keys only, the
 * included attributes, or the whole item) and only the items that have
 * its key attributes (sparse).  A local secondary index shares the table's
 * partitions: its collections are the table's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "item/av_jsonb.h"
#include "studio.h"

char *
studio_io_arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

char *
studio_io_arg_required(FunctionCallInfo fcinfo, int n, const char *name)
{
	char	   *s = studio_io_arg_text(fcinfo, n);

	if (s == NULL)
		st_validation_null("%s", name);
	return s;
}

/* ---------- grouping ---------- */

typedef struct PartKey
{
	const char *key;
} PartKey;

typedef struct PartEntry
{
	PartKey		k;				/* first: the hash key */
	int64		items;
	int64		bytes;
} PartEntry;

static uint32
part_hash(const void *key, Size keysize)
{
	const char *s = ((const PartKey *) key)->key;

	return hash_bytes((const unsigned char *) s, strlen(s));
}

static int
part_match(const void *a, const void *b, Size keysize)
{
	return strcmp(((const PartKey *) a)->key, ((const PartKey *) b)->key);
}

static HTAB *
part_table(void)
{
	HASHCTL		info;

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(PartKey);
	info.entrysize = sizeof(PartEntry);
	info.hash = part_hash;
	info.match = part_match;
	info.hcxt = CurrentMemoryContext;
	return hash_create("stdesign partitions", 1024, &info,
					   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

/* A key value as text: S as is, N its canonical text, B base64. */
static char *
key_text(const Av *v)
{
	if (v->type == AV_B)
	{
		int			len;
		char	   *s = av_base64_encode(v->str, v->len, &len);

		return pnstrdup(s, len);
	}
	return pnstrdup(v->str, v->len);
}

static int64
attr_size(const Av *item, const char *name)
{
	Av		   *v;

	if (name == NULL)
		return 0;
	v = av_map_get(item, name, strlen(name));
	return v ? strlen(name) + av_value_size(v) : 0;
}

/* The DynamoDB size of an item's entry in index ix (its projection). */
static int64
entry_size(StTable *t, StIndex *ix, const Av *item, int64 item_size)
{
	int64		size;

	if (ix == NULL || ix->projection == ST_PROJECT_ALL)
		return item_size;
	size = attr_size(item, t->pk.name) + attr_size(item, t->sk.name);
	/* each key attribute of the index (all of a multi-attribute key) once */
	for (int i = 0; i < ix->npk + ix->nsk; i++)
	{
		const char *name = ix->keys[i].name;
		bool		seen = strcmp(name, t->pk.name) == 0 || (t->sk.name && strcmp(name, t->sk.name) == 0);

		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(name, ix->keys[j].name) == 0;
		if (!seen)
			size += attr_size(item, name);
	}
	if (ix->projection == ST_PROJECT_INCLUDE)
		for (int i = 0; i < ix->n_non_key; i++)
			size += attr_size(item, ix->non_key_attributes[i]);
	return size;
}

static void
add_item(HTAB *h, const Av *pk, int64 bytes)
{
	PartKey		k;
	PartEntry  *e;
	bool		found;

	k.key = key_text(pk);
	e = hash_search(h, &k, HASH_ENTER, &found);
	if (!found)
	{
		e->items = 0;
		e->bytes = 0;
	}
	else
		pfree((char *) k.key);
	e->items++;
	e->bytes += bytes;
}

static int
part_cmp(const void *a, const void *b)
{
	const StudioPartition *x = a;
	const StudioPartition *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void
finish_space(StudioKeySpace *s, HTAB *h, double scale)
{
	HASH_SEQ_STATUS seq;
	PartEntry  *e;
	int			i = 0;

	s->n = hash_get_num_entries(h);
	s->parts = palloc(sizeof(StudioPartition) * Max(s->n, 1));
	s->items = s->bytes = 0;
	hash_seq_init(&seq, h);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		StudioPartition *p = &s->parts[i++];

		p->key = (char *) e->k.key;
		p->items = (int64) rint(e->items * scale);
		p->bytes = (int64) rint(e->bytes * scale);
		s->items += p->items;
		s->bytes += p->bytes;
	}
	qsort(s->parts, s->n, sizeof(StudioPartition), part_cmp);
}

/* About how many items the relation holds: the planner's estimate, or a count. */
static double
estimated_items(StTable *t, int64 sample_items)
{
	char	   *sql = psprintf("SELECT pg_catalog.count(*) FROM (SELECT FROM %s LIMIT %lld) AS s",
							   t->qualified, (long long) sample_items + 1);
	bool		isnull;
	int64		n;
	double		reltuples;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		st_internal_error("counting the items of table %s failed", t->name);
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (n <= sample_items)
		return n;
	sql = psprintf("SELECT reltuples::pg_catalog.float8 FROM pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) %u",
				   t->relid);
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("reading the statistics of table %s failed", t->name);
	reltuples = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (isnull || reltuples <= sample_items)
	{
		/* never analyzed, or stale: count them all once */
		sql = psprintf("SELECT pg_catalog.count(*) FROM %s", t->qualified);
		if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
			st_internal_error("counting the items of table %s failed", t->name);
		return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	return reltuples;
}

StudioPartitions *
studio_partitions(StTable *t, int64 sample_items)
{
	StudioPartitions *r = palloc0(sizeof(StudioPartitions));
	HTAB	  **tabs;
	double		total;
	double		fraction = 1.0;
	char	   *sql;
	Portal		portal;
	int			nspaces = 1;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext rowcxt;

	if (sample_items < 1)
		st_error(ST_ERR_VALIDATION, "sample_items must be at least 1");
	r->spaces = palloc0(sizeof(StudioKeySpace) * (t->nindexes + 1));
	tabs = palloc0(sizeof(HTAB *) * (t->nindexes + 1));
	tabs[0] = part_table();
	for (int i = 0; i < t->nindexes; i++)
		if (!t->indexes[i].is_local)
		{
			r->spaces[nspaces].index = &t->indexes[i];
			tabs[nspaces++] = part_table();
		}
	r->nspaces = nspaces;

	if (SPI_connect() != SPI_OK_CONNECT)
		st_internal_error("SPI_connect failed");
	total = estimated_items(t, sample_items);
	if (total > sample_items)
	{
		fraction = sample_items / total;
		r->sampled = true;
		sql = psprintf("SELECT item FROM %s TABLESAMPLE BERNOULLI (%.9g) REPEATABLE (0)",
					   t->qualified, 100.0 * fraction);
	}
	else
		sql = psprintf("SELECT item FROM %s", t->qualified);
	portal = SPI_cursor_open_with_args(NULL, sql, 0, NULL, NULL, NULL, true, 0);
	rowcxt = AllocSetContextCreate(outer, "stdesign partitions row", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			MemoryContext old;
			Jsonb	   *jb;
			Av		   *item;
			int64		size;

			if (isnull)
				continue;
			old = MemoryContextSwitchTo(rowcxt);
			jb = DatumGetJsonbP(d);
			item = av_item_from_stored(jb);
			size = av_item_size(item);
			/* the keys live as long as the result: allocate them outside */
			MemoryContextSwitchTo(outer);
			for (int s = 0; s < nspaces; s++)
			{
				StIndex    *ix = r->spaces[s].index;
				const Av   *pk;
				bool		in_index = true;

				/* an index's partition: all of its HASH attributes */
				pk = ix ? ops_index_partition_of(ix, item) : av_map_get(item, t->pk.name, strlen(t->pk.name));
				if (pk == NULL || !av_type_is_scalar(pk->type))
					continue;
				for (int k = ix ? ix->npk : 0; ix && k < ix->npk + ix->nsk && in_index; k++)
					in_index = av_map_get(item, ix->keys[k].name, strlen(ix->keys[k].name)) != NULL;
				if (!in_index)
					continue;	/* sparse: not in the index */
				add_item(tabs[s], pk, entry_size(t, ix, item, size));
			}
			r->items_read++;
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextDelete(rowcxt);
	for (int s = 0; s < nspaces; s++)
		finish_space(&r->spaces[s], tabs[s], 1.0 / fraction);
	return r;
}

/* ---------- SQL ---------- */

static int64
arg_int64(FunctionCallInfo fcinfo, int n, int64 dflt)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return dflt;
	return PG_GETARG_INT64(n);
}

static Datum
space_name(const StudioKeySpace *s, bool *isnull)
{
	*isnull = s->index == NULL;
	return s->index ? CStringGetTextDatum(s->index->name) : (Datum) 0;
}

/*
 * st_partitions(table_name, "limit", sample_items): the largest item
 * collections of the table and of each GSI, largest first, "limit" of each.
 */
PG_FUNCTION_INFO_V1(st_partitions);
Datum
st_partitions(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = studio_io_arg_text(fcinfo, 0);
	int64		limit = arg_int64(fcinfo, 1, 10);
	int64		sample = arg_int64(fcinfo, 2, 1000000);
	StTable    *t;
	StudioPartitions *p;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	t = catalog_lookup(name, false);
	if (limit < 0)
		st_error(ST_ERR_VALIDATION, "limit must not be negative");
	p = studio_partitions(t, sample);
	for (int s = 0; s < p->nspaces; s++)
	{
		StudioKeySpace *ks = &p->spaces[s];

		for (int i = 0; i < ks->n && i < limit; i++)
		{
			Datum		values[6];
			bool		nulls[6] = {0};

			values[0] = space_name(ks, &nulls[0]);
			values[1] = CStringGetTextDatum(ks->parts[i].key);
			values[2] = Int64GetDatum(ks->parts[i].items);
			values[3] = Int64GetDatum(ks->parts[i].bytes);
			values[4] = Float8GetDatum(ks->bytes > 0 ? (double) ks->parts[i].bytes / ks->bytes : 0);
			values[5] = BoolGetDatum(p->sampled);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}

/* The Gini coefficient of the partitions' bytes (0: even, near 1: one holds all). */
static double
gini(const StudioKeySpace *ks)
{
	double		weighted = 0;

	if (ks->n < 2 || ks->bytes == 0)
		return 0;
	/* parts are sorted largest first: rank i (1-based, ascending) = n - k */
	for (int k = 0; k < ks->n; k++)
		weighted += (double) (ks->n - k) * ks->parts[k].bytes;
	return (2.0 * weighted) / ((double) ks->n * ks->bytes) - (ks->n + 1.0) / ks->n;
}

/*
 * st_partition_skew(table_name, sample_items): per key space, how evenly
 * the items spread over the partition key values.
 */
PG_FUNCTION_INFO_V1(st_partition_skew);
Datum
st_partition_skew(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = studio_io_arg_text(fcinfo, 0);
	int64		sample = arg_int64(fcinfo, 1, 1000000);
	StTable    *t;
	StudioPartitions *p;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	t = catalog_lookup(name, false);
	p = studio_partitions(t, sample);
	for (int s = 0; s < p->nspaces; s++)
	{
		StudioKeySpace *ks = &p->spaces[s];
		Datum		values[10];
		bool		nulls[10] = {0};
		double		mean = ks->n > 0 ? (double) ks->bytes / ks->n : 0;

		values[0] = space_name(ks, &nulls[0]);
		values[1] = Int64GetDatum(ks->n);
		values[2] = Int64GetDatum(ks->items);
		values[3] = Int64GetDatum(ks->bytes);
		if (ks->n > 0)
		{
			values[4] = CStringGetTextDatum(ks->parts[0].key);
			values[5] = Int64GetDatum(ks->parts[0].bytes);
			values[6] = Float8GetDatum(ks->bytes > 0 ? (double) ks->parts[0].bytes / ks->bytes : 0);
			values[7] = Float8GetDatum(mean > 0 ? ks->parts[0].bytes / mean : 0);
		}
		else
			nulls[4] = nulls[5] = nulls[6] = nulls[7] = true;
		values[8] = Float8GetDatum(gini(ks));
		values[9] = BoolGetDatum(p->sampled);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
