/*-------------------------------------------------------------------------
 *
 * studio_traffic.c
 *		The per-partition traffic counters (src/ops/traffic.c) as SQL, and
 *		the hot-partition report against DynamoDB's per-partition limits.
 *
 *	 st_partition_traffic(table_name)	 the counts, by index and partition
 *	 st_partition_traffic_reset()		 forget them all (not for PUBLIC)
 *	 stdesign.studio_traffic_shown(table_name)	 may the studio's page show them?
 *	 st_hot_partitions(table_name, top)	 peaks against the limits, advice
 *	 st_contributor_insights(table, index, top)	 top keys, as Contributor Insights
 *	 stdesign.studio_scan(...)			 the studio's own reads, not counted
 *
 * The limits are DynamoDB's documented ones: a partition serves at most
 * 3,000 read units and 1,000 write units per second (Developer Guide,
 * "Best practices for designing and using partition keys effectively"),
 * and with a local secondary index an item collection holds at most 10 GB
 * ("Item collection size limit").  The advice for a partition over the
 * write limit is the write-sharding pattern: spread the key over N
 * suffixed keys and read every shard back, merged in sort-key order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
#include "utils/timestamp.h"

#include "item/av_jsonb.h"
#include "ops/traffic.h"
#include "studio.h"

#define PARTITION_READ_LIMIT 3000.0
#define PARTITION_WRITE_LIMIT 1000.0
#define COLLECTION_LIMIT_BYTES (10.0 * 1024 * 1024 * 1024)
/* past this share of a limit a partition is reported as near it */
#define NEAR_LIMIT 0.8

/* Say why there are no counts; false when there are none to read. */
static bool
counters_available(void)
{
	if (ops_traffic_shared == NULL)
	{
		ereport(NOTICE,
				(errmsg("stdesign's traffic counters are off: stdesign is not in shared_preload_libraries"),
				 errhint("Add stdesign to shared_preload_libraries and restart the server to count reads and writes per partition.")));
		return false;
	}
	if (!ops_traffic_track_guc)
		ereport(NOTICE,
				(errmsg("stdesign.track_traffic is off: the counts are those from before it was turned off")));
	return true;
}

static const char *
index_name_of(StTable *t, Oid indexoid)
{
	for (int i = 0; i < t->nindexes; i++)
		if (t->indexes[i].index_oid == indexoid)
			return t->indexes[i].name;
	return NULL;
}

static int
traffic_cmp(const void *a, const void *b)
{
	const StTrafficRow *x = a;
	const StTrafficRow *y = b;
	double		ux = x->read_units + x->write_units;
	double		uy = y->read_units + y->write_units;

	if (x->indexoid != y->indexoid)
		return x->indexoid == InvalidOid ? -1 : y->indexoid == InvalidOid ? 1 :
			(x->indexoid > y->indexoid ? 1 : -1);
	if (ux != uy)
		return ux < uy ? 1 : -1;
	return strcmp(x->partition_key, y->partition_key);
}

/*
 * The counted rows of table t still known to it (an index dropped since is
 * left out), ordered: the table first, then each index, busiest first.
 */
static StTrafficRow *
table_rows(StTable *t, int *n, TimestampTz *since)
{
	StTrafficRow *rows = ops_traffic_rows(t->relid, n, since);
	int			m = 0;

	for (int i = 0; i < *n; i++)
		if (rows[i].indexoid == InvalidOid || index_name_of(t, rows[i].indexoid) != NULL)
			rows[m++] = rows[i];
	*n = m;
	if (m > 1)
		qsort(rows, m, sizeof(StTrafficRow), traffic_cmp);
	return rows;
}

PG_FUNCTION_INFO_V1(st_partition_traffic);
Datum
st_partition_traffic(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = studio_io_arg_text(fcinfo, 0);
	StTable    *t;
	StTrafficRow *rows;
	TimestampTz since;
	int			n;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	t = catalog_lookup(name, false);
	/* key values, and which of them others read: SELECT, and no policy to hide any */
	catalog_check_keys_readable(t, "st_partition_traffic");
	if (!counters_available())
		return (Datum) 0;
	rows = table_rows(t, &n, &since);
	for (int i = 0; i < n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {0};
		const char *ix = index_name_of(t, rows[i].indexoid);

		nulls[0] = ix == NULL;
		values[0] = ix ? CStringGetTextDatum(ix) : (Datum) 0;
		values[1] = CStringGetTextDatum(rows[i].partition_key);
		values[2] = Int64GetDatum(rows[i].reads);
		values[3] = Int64GetDatum(rows[i].writes);
		values[4] = Float8GetDatum(rows[i].read_units);
		values[5] = Float8GetDatum(rows[i].write_units);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * stdesign.studio_traffic_shown(table_name): are the counters there (stdesign
 * preloaded) and may the caller read the table's (st_partition_traffic's
 * rule)?  The studio's page shows them then, and otherwise leaves them out
 * without the notice or the error st_partition_traffic would raise.
 */
PG_FUNCTION_INFO_V1(studio_traffic_shown);
Datum
studio_traffic_shown(PG_FUNCTION_ARGS)
{
	StTable    *t = catalog_lookup(studio_io_arg_required(fcinfo, 0, "table_name"), false);

	PG_RETURN_BOOL(ops_traffic_shared != NULL && catalog_keys_readable(t));
}

PG_FUNCTION_INFO_V1(st_partition_traffic_reset);
Datum
st_partition_traffic_reset(PG_FUNCTION_ARGS)
{
	/* refused in a read-only transaction, counters on or off */
	ops_traffic_reset();
	(void) counters_available();	/* says when they are off */
	PG_RETURN_VOID();
}

/* The advice for a partition at these peaks (per second) and this collection size. */
static char *
advice(const char *key, double peak_read, double peak_write, double collection_bytes)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (peak_write > PARTITION_WRITE_LIMIT * NEAR_LIMIT)
	{
		int			shards = (int) ceil(peak_write / (PARTITION_WRITE_LIMIT * 0.5));

		appendStringInfo(&buf, "%s the 1,000 WCU/s partition limit: write-shard the key over %d keys "
						 "(\"%s#SHARD0\" .. \"%s#SHARD%d\", a random or computed suffix per write) "
						 "and read back by querying every shard, merged in sort-key order",
						 peak_write > PARTITION_WRITE_LIMIT ? "over" : "near",
						 Max(shards, 2), key, key, Max(shards, 2) - 1);
	}
	if (peak_read > PARTITION_READ_LIMIT * NEAR_LIMIT)
		appendStringInfo(&buf, "%s%s the 3,000 RCU/s partition limit: cache the hot items, read eventually "
						 "consistent (half the units), or copy the hot items under several keys",
						 buf.len > 0 ? "; " : "",
						 peak_read > PARTITION_READ_LIMIT ? "over" : "near");
	if (collection_bytes > COLLECTION_LIMIT_BYTES * NEAR_LIMIT)
		appendStringInfo(&buf, "%s%s the 10 GB item collection limit of a table with local secondary "
						 "indexes: spread the collection over more partition key values, or use a "
						 "global secondary index instead of the local one",
						 buf.len > 0 ? "; " : "",
						 collection_bytes > COLLECTION_LIMIT_BYTES ? "over" : "near");
	return buf.len > 0 ? buf.data : "ok";
}

static bool
has_local_index(StTable *t)
{
	for (int i = 0; i < t->nindexes; i++)
		if (t->indexes[i].is_local)
			return true;
	return false;
}

/*
 * st_hot_partitions(table_name, top): the busiest `top` partitions by peak
 * units per second, against the limits; with local secondary indexes, the
 * largest item collections against 10 GB too.
 */
PG_FUNCTION_INFO_V1(st_hot_partitions);
Datum
st_hot_partitions(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = studio_io_arg_text(fcinfo, 0);
	int			top = PG_ARGISNULL(1) ? 10 : PG_GETARG_INT32(1);
	StTable    *t;
	StTrafficRow *rows = NULL;
	TimestampTz since = 0;
	int			n = 0;
	double		seconds;
	StudioPartitions *sizes = NULL;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	t = catalog_lookup(name, false);
	catalog_check_keys_readable(t, "st_hot_partitions");
	if (top < 0)
		st_error(ST_ERR_VALIDATION, "top must not be negative");
	if (counters_available())
		rows = table_rows(t, &n, &since);
	if (has_local_index(t))
		sizes = studio_partitions(t, 1000000);
	seconds = n > 0 ? Max((GetCurrentTimestamp() - since) / 1000000.0, 1.0) : 1.0;

	/* the busiest first, by the larger share of either limit */
	for (int i = 1; i < n; i++)
	{
		StTrafficRow r = rows[i];
		double		key = Max(r.peak_read_units / PARTITION_READ_LIMIT,
							  r.peak_write_units / PARTITION_WRITE_LIMIT);
		int			j = i - 1;

		while (j >= 0 && Max(rows[j].peak_read_units / PARTITION_READ_LIMIT,
							 rows[j].peak_write_units / PARTITION_WRITE_LIMIT) < key)
		{
			rows[j + 1] = rows[j];
			j--;
		}
		rows[j + 1] = r;
	}
	for (int i = 0; i < n && i < top; i++)
	{
		Datum		values[11];
		bool		nulls[11] = {0};
		const char *ix = index_name_of(t, rows[i].indexoid);
		double		collection = 0;

		if (sizes && ix == NULL)
			for (int k = 0; k < sizes->spaces[0].n; k++)
				if (strcmp(sizes->spaces[0].parts[k].key, rows[i].partition_key) == 0)
					collection = sizes->spaces[0].parts[k].bytes;
		nulls[0] = ix == NULL;
		values[0] = ix ? CStringGetTextDatum(ix) : (Datum) 0;
		values[1] = CStringGetTextDatum(rows[i].partition_key);
		values[2] = Float8GetDatum(rows[i].read_units);
		values[3] = Float8GetDatum(rows[i].write_units);
		values[4] = Float8GetDatum(rows[i].read_units / seconds);
		values[5] = Float8GetDatum(rows[i].write_units / seconds);
		values[6] = Float8GetDatum(rows[i].peak_read_units);
		values[7] = Float8GetDatum(rows[i].peak_write_units);
		values[8] = Float8GetDatum(Max(rows[i].peak_read_units / PARTITION_READ_LIMIT,
									   rows[i].peak_write_units / PARTITION_WRITE_LIMIT));
		nulls[9] = sizes == NULL || ix != NULL;
		values[9] = Int64GetDatum((int64) collection);
		values[10] = CStringGetTextDatum(advice(rows[i].partition_key, rows[i].peak_read_units,
												rows[i].peak_write_units, collection));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	/* item collections near the LSI limit that saw no counted traffic */
	if (sizes)
		for (int k = 0; k < sizes->spaces[0].n && k < top; k++)
		{
			StudioPartition *p = &sizes->spaces[0].parts[k];
			bool		listed = false;
			Datum		values[11];
			bool		nulls[11] = {0};

			if (p->bytes <= COLLECTION_LIMIT_BYTES * NEAR_LIMIT)
				break;			/* sorted: the rest are smaller */
			for (int i = 0; i < n && i < top; i++)
				listed |= rows[i].indexoid == InvalidOid && strcmp(rows[i].partition_key, p->key) == 0;
			if (listed)
				continue;
			nulls[0] = true;
			values[1] = CStringGetTextDatum(p->key);
			for (int c = 2; c <= 8; c++)
				values[c] = Float8GetDatum(0);
			values[9] = Int64GetDatum(p->bytes);
			values[10] = CStringGetTextDatum(advice(p->key, 0, 0, p->bytes));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	return (Datum) 0;
}

/* ---------- the studio's own reads ---------- */

typedef struct StudioScanOut
{
	Tuplestorestate *store;
	TupleDesc	desc;
	bool		typed;
} StudioScanOut;

static bool
studio_scan_row(Jsonb *stored, void *arg)
{
	StudioScanOut *out = (StudioScanOut *) arg;
	Datum		value = JsonbPGetDatum(out->typed ? stored : av_stored_to_plain(stored));
	bool		isnull = false;

	tuplestore_putvalues(out->store, out->desc, &value, &isnull);
	return true;
}

/*
 * stdesign.studio_scan(table_name, ix, max_items, typed): the items st_scan
 * returns (whole items, in the key space's order), read for st_studio_html
 * and st_export_workbench without being counted as traffic: a page that
 * shows the hot partitions must not heat them.  The relation's privileges
 * apply as they do to st_scan.
 */
PG_FUNCTION_INFO_V1(st_studio_scan);
Datum
st_studio_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *t = catalog_lookup(studio_io_arg_text(fcinfo, 0), false);
	char	   *index = studio_io_arg_text(fcinfo, 1);
	StIndex    *ix = NULL;
	int64		limit = -1;
	StudioScanOut out;

	if (index)
	{
		ix = catalog_find_index(t, index);
		if (ix == NULL)
			st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", index);
	}
	if (!PG_ARGISNULL(2))
		limit = Max(PG_GETARG_INT32(2), 0);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
	ops_scan_uncounted(t, ix, limit, studio_scan_row, &out);
	return (Datum) 0;
}

/* Busiest first by units, then the larger share of a limit at the peak, then the key. */
static int
insights_cmp(const void *a, const void *b)
{
	const StTrafficRow *x = a;
	const StTrafficRow *y = b;
	double		ux = x->read_units + x->write_units;
	double		uy = y->read_units + y->write_units;
	double		px = Max(x->peak_read_units / PARTITION_READ_LIMIT, x->peak_write_units / PARTITION_WRITE_LIMIT);
	double		py = Max(y->peak_read_units / PARTITION_READ_LIMIT, y->peak_write_units / PARTITION_WRITE_LIMIT);

	if (ux != uy)
		return ux < uy ? 1 : -1;
	if (px != py)
		return px < py ? 1 : -1;
	return strcmp(x->partition_key, y->partition_key);
}

/*
 * st_contributor_insights(table_name, index_name, top): what DynamoDB's
 * Contributor Insights graphs from CloudWatch (its most accessed and most
 * throttled keys), from the traffic counters: the `top` partition keys of
 * the table (index_name NULL) or of one global secondary index, busiest
 * first, with their per-second peaks and whether one passed a partition's
 * limit (the requests DynamoDB would have throttled).  The counters run
 * whether insights are enabled or not (docs/studio.md); the reader needs
 * what st_partition_traffic needs.
 */
PG_FUNCTION_INFO_V1(st_contributor_insights);
Datum
st_contributor_insights(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = studio_io_arg_required(fcinfo, 0, "table_name");
	char	   *index = studio_io_arg_text(fcinfo, 1);
	int			top = PG_ARGISNULL(2) ? 10 : PG_GETARG_INT32(2);
	StTable    *t;
	Oid			indexoid = InvalidOid;
	StTrafficRow *rows;
	TimestampTz since;
	int			n;
	int			m = 0;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	t = catalog_lookup(name, false);
	if (index)
	{
		StIndex    *ix = catalog_find_index(t, index);

		/* insights are per table and per global secondary index */
		if (ix == NULL || ix->is_local)
			st_error(ST_ERR_RESOURCE_NOT_FOUND,
					 "Requested resource not found: Index: %s not found in table %s", index, t->name);
		indexoid = ix->index_oid;
	}
	catalog_check_keys_readable(t, "st_contributor_insights");
	if (top < 1)
		st_error(ST_ERR_VALIDATION, "top must be at least 1");
	if (!counters_available())
		return (Datum) 0;
	rows = ops_traffic_rows(t->relid, &n, &since);
	for (int i = 0; i < n; i++)
		if (rows[i].indexoid == indexoid)
			rows[m++] = rows[i];
	if (m > 1)
		qsort(rows, m, sizeof(StTrafficRow), insights_cmp);
	for (int i = 0; i < m && i < top; i++)
	{
		Datum		values[8];
		bool		nulls[8] = {0};

		values[0] = CStringGetTextDatum(rows[i].partition_key);
		values[1] = Int64GetDatum(rows[i].reads);
		values[2] = Int64GetDatum(rows[i].writes);
		values[3] = Float8GetDatum(rows[i].read_units);
		values[4] = Float8GetDatum(rows[i].write_units);
		values[5] = Float8GetDatum(rows[i].peak_read_units);
		values[6] = Float8GetDatum(rows[i].peak_write_units);
		values[7] = BoolGetDatum(rows[i].peak_read_units > PARTITION_READ_LIMIT ||
								 rows[i].peak_write_units > PARTITION_WRITE_LIMIT);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
